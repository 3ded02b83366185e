"""Every outcome of a plastic impact, decided on the nondimensional system (thesis Sec. 5.1.2–5.1.4).

For each outcome of ``contactmodes.impact.scope`` the conditions of
``contactmodes.impact.equations`` are solved by the modes' SVD response
(``contactmodes.modes.response.responses_from_equations``: ``x = [q̇⁺; P; …]`` affine in the
ambiguity variables ``w`` and, with a pseudo-impulse, the torques ``τ``), substituted into the
outcome's inequalities (``contactmodes.analysis.domains.domain_inequalities``, eq. 33 of the
flipping paper) and the resulting polytope over ``(τ, w)`` tested for emptiness (``polytopes``). An
outcome is *consistent* when that polytope is not empty; with ``δ_t > 0`` its torque set is the
union, over the variants of the pseudo-impulse guard, of the polytopes' projections onto ``τ``
(as ``T_c``), within the torque box when one is given (the file's ``[control.limits]`` by
default). Every rank, consistency and emptiness decision is taken on the nondimensional system
(``contactmodes.model.scaling``: velocity of coordinate ``j`` in units ``s_j T``, impulses in
``F T``, torques in ``u``, time in ``T``); results are mapped back to the user's units.

Not part of the impact model: the system's constraint blocks (flipping paper eqs. 11–18, rows
over ``(q̈, f, τ)``; they have no impulse form in the file) and its disturbance.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np

from polytopes import Polytope

from contactmodes import tolerances
from contactmodes.analysis.domains import domain_inequalities
from contactmodes.errors import ContactModelError, InternalError
from contactmodes.impact.equations import ImpactData, guarded_contacts, outcome_equations
from contactmodes.impact.result import ImpactOutcome, ImpactResult
from contactmodes.impact.scope import ImpactScope, impact_scope, require_impact_model
from contactmodes.model.system import ContactSystem
from contactmodes.modes.response import ModeResponse, response_from_equations, responses_from_equations

__all__ = ["impact", "impact_of_system"]


def impact(system_or_path, pseudo_impulse: float = 0.0, qdot=None, h_rest=None, torque_box=None) -> ImpactResult:
    """Every plastic-impact outcome at a state (thesis Sec. 5.1.2–5.1.4), in the system's units.

    Parameters
    ----------
    system_or_path : ContactSystem or str or Path
        A system file, planar or spatial (``dimension = 3``; its state gives ``q̇⁻``, its
        mechanism ``h(q, 0)``), or a ``ContactSystem`` (then ``qdot`` is required, and ``h_rest``
        for a pseudo-impulse). The outcome letters and rows are its contact model's
        (``ContactSystem.contact_model``: planar ``F S L R``; spatial ``S``, ``F``, the friction
        polygon's side and vertex letters, ``docs/impact.md`` "3-D").
    pseudo_impulse : float, optional
        ``δ_t`` (s, ``>= 0``) of thesis eq. (39); 0 (default) for none.
    qdot : array_like, optional
        ``(n_q,)`` the pre-impact velocity ``q̇⁻`` of a ``ContactSystem`` (its ``v_contact`` must be
        ``J q̇⁻``). Ignored with a file.
    h_rest : array_like, optional
        ``(n_q,)`` ``h(q, 0)`` (the generalized gravity force) of a ``ContactSystem``, for
        ``pseudo_impulse > 0``.
    torque_box : tuple[array_like, array_like], optional
        ``(lo, hi)``, each ``(n_τ,)``: the torques the actuators can apply during the
        pseudo-impulse (system units; ``-inf``/``inf`` for an open end). Default: a file's
        ``[control.limits]`` (their ``lo``, ``hi``; a torque–speed line is not used, the speeds
        jump in the impact; an actuator not named is unbounded), none for a ``ContactSystem``.
        Unused without a pseudo-impulse (the impact does not depend on the torques).

    Returns
    -------
    ImpactResult
        One ``ImpactOutcome`` per outcome, consistent or not.

    Raises
    ------
    ContactModelError
        A bad file (``SystemFileError``), a negative or non-finite ``pseudo_impulse``, a missing
        or mis-shaped ``qdot``/``h_rest``, ``qdot`` inconsistent with ``v_contact``, or a
        ``torque_box`` that is not two ``(n_τ,)`` vectors with ``lo <= hi``.

    Examples
    --------
    >>> import contactmodes as cm
    >>> result = cm.impact("examples/impact/rocking_block.toml")
    >>> result.consistent_modes
    ['SF']
    """
    source = None
    if isinstance(system_or_path, (str, Path)):
        from contactmodes.system_file.loader import load_system_file

        loaded = load_system_file(system_or_path)
        system, qdot = loaded.system, loaded.qdot
        source = str(system_or_path)
        if pseudo_impulse:
            h_rest = _h_at_rest(loaded)
        if torque_box is None and loaded.control is not None and loaded.control.limits:
            limits = [loaded.control.limits.get(name) for name in system.torques]
            torque_box = (np.array([-np.inf if lim is None else lim.lo for lim in limits]),
                          np.array([np.inf if lim is None else lim.hi for lim in limits]))
    elif isinstance(system_or_path, ContactSystem):
        system = system_or_path
        if qdot is None:
            raise ContactModelError("qdot: the pre-impact velocity is needed with a ContactSystem")
    else:
        raise ContactModelError(f"system: expected a ContactSystem or a file path, got {type(system_or_path).__name__}")
    return impact_of_system(system, qdot, pseudo_impulse=pseudo_impulse, h_rest=h_rest, source=source,
                            torque_box=torque_box)


def _vector(value, n: int, name: str) -> np.ndarray:
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ContactModelError(f"{name}: not a numeric vector") from None
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ContactModelError(f"{name}: expected {n} finite numbers (one per coordinate), got shape {v.shape}")
    return v


def _box(torque_box, n_tau: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``torque_box`` as two ``(n_τ,)`` float arrays ``lo <= hi`` (``None`` stays ``None``)."""
    if torque_box is None:
        return None
    try:
        lo, hi = (np.asarray(v, dtype=float).reshape(-1) for v in torque_box)
    except (TypeError, ValueError):
        raise ContactModelError("torque_box: expected a pair (lo, hi) of torque vectors") from None
    if lo.shape != (n_tau,) or hi.shape != (n_tau,):
        raise ContactModelError(f"torque_box: expected lo and hi of {n_tau} values (one per actuator), "
                                f"got shapes {lo.shape} and {hi.shape}")
    if np.isnan(lo).any() or np.isnan(hi).any() or np.any(lo > hi) or np.any(lo == np.inf) or np.any(hi == -np.inf):
        raise ContactModelError("torque_box: needs lo <= hi for every actuator (an infinite end for none)")
    return lo, hi


def impact_of_system(system: ContactSystem, qdot, pseudo_impulse: float = 0.0, h_rest=None,
                     source: str | None = None, torque_box=None) -> ImpactResult:
    """``impact`` of a ``ContactSystem`` with its pre-impact velocity.

    Every decision is taken on the system's nondimensional form (``contactmodes.model.scaling``);
    the outcomes are reported in the system's units.

    Parameters
    ----------
    system : ContactSystem
        The system at the impact's configuration (its ``v_contact`` must be ``J q̇⁻``).
    qdot : array_like
        ``(n_q,)`` the pre-impact velocity ``q̇⁻``, the system's units.
    pseudo_impulse : float, optional
        ``δ_t`` (the system's time unit, s in SI; ``>= 0``) of thesis eq. (39); 0 for none.
    h_rest : array_like, optional
        ``(n_q,)`` ``h(q, 0)``, needed when ``pseudo_impulse > 0``.
    source : str, optional
        The system file's path, for the report.
    torque_box : tuple[array_like, array_like], optional
        ``(lo, hi)``, each ``(n_τ,)``, the system's units: the torques the actuators can apply
        during the pseudo-impulse.

    Returns
    -------
    ImpactResult
        One ``ImpactOutcome`` per outcome, consistent or not.

    Raises
    ------
    ContactModelError
        A negative or non-finite ``pseudo_impulse``, a missing or mis-shaped ``qdot``/``h_rest``,
        ``qdot`` inconsistent with ``v_contact``, or a malformed ``torque_box``; a system whose
        contact model has no impact rows (``contactmodes.impact.scope.require_impact_model``).
    """
    require_impact_model(system.contact_model)
    delta = float(pseudo_impulse)
    if not (np.isfinite(delta) and delta >= 0.0):
        raise ContactModelError(f"pseudo_impulse: must be a finite duration >= 0 s, got {pseudo_impulse!r}")
    n_q = system.n_q
    qdot = _vector(qdot, n_q, "qdot")
    sc = system.scaling
    vel = sc.qdd * sc.scales.time  # unit of each generalized velocity
    scaled = sc.system
    qdot_s = qdot / vel
    v_check = scaled.J @ qdot_s
    scale = max(1.0, float(np.abs(v_check).max(initial=0.0)))
    if np.abs(v_check - scaled.v_contact).max(initial=0.0) > tolerances.VELOCITY_RTOL * scale:
        raise ContactModelError("qdot: J q̇ differs from the system's contact velocities v_contact")
    box = _box(torque_box, system.n_tau)
    h_s = None
    if delta > 0.0:
        if h_rest is None:
            raise ContactModelError("h_rest: h(q, 0) is needed for a pseudo-impulse with a ContactSystem")
        h_s = _vector(h_rest, n_q, "h_rest") / sc.generalized_force
    scope = impact_scope(scaled)
    data = ImpactData(M=np.asarray(scaled.M), J=np.asarray(scaled.J), S=np.asarray(scaled.S), h_rest=h_s,
                      qdot_minus=qdot_s, mu=np.asarray(scaled.mu), in_scope=scope.in_scope,
                      touching=scope.touching, contacts=tuple(system.contacts),
                      tau_lo=None if box is None else box[0] / sc.tau, tau_hi=None if box is None else box[1] / sc.tau,
                      torques=tuple(system.torques), model=system.contact_model)
    delta_s = delta / sc.scales.time
    modes = scope.outcomes()
    base = [outcome_equations(data, mode, delta_s) for mode in modes]
    responses = responses_from_equations(base)  # one stacked SVD per shape (contactmodes.modes.response)
    outcomes = [_solve_outcome(data, mode, resp, delta_s, system, qdot, sc, vel, scope)
                for mode, resp in zip(modes, responses)]
    return ImpactResult(system=system, qdot_minus=qdot, pseudo_impulse=delta, scope=scope, outcomes=outcomes,
                        source=source, torque_box=box if delta > 0.0 else None)


def _variant_polytope(resp: ModeResponse) -> tuple[bool, Polytope | None]:
    """``(feasible, D)`` of a response's substituted inequalities over ``(τ, w)``; ``D`` is
    ``None`` when there is no coordinate (a point) or nothing is feasible."""
    if not resp.consistent:
        return False, None
    A, b, trivially = domain_inequalities(resp)
    if trivially:
        return False, None
    n_tau = resp.P_q.shape[1]
    dim = n_tau + resp.n_w
    if dim == 0:
        return True, None
    C = np.hstack([resp.tau_C, np.zeros((resp.tau_C.shape[0], resp.n_w))])
    D = Polytope(A.reshape(-1, dim), b, C, resp.tau_d.copy())
    if D.is_empty():
        return False, None
    return True, D


def _solve_outcome(data: ImpactData, mode: str, resp: ModeResponse, delta: float, system: ContactSystem,
                   qdot: np.ndarray, sc, vel: np.ndarray, scope: ImpactScope) -> ImpactOutcome:
    """One outcome from its response ``resp`` (nondimensional, first variant): the variants'
    polytopes, torque set and a witness point, mapped to user units. The variants that read the
    pseudo block share one response (their equalities are the same), the others ``resp``.

    Reported at the witness (the first variant with a solution, at a point of its polytope): the
    plastic impulse ``P``; the impulse each contact transmits, ``P + δ_t f`` for a contact the
    variant keeps by the pseudo-impulse and ``P`` otherwise; the torque (with a pseudo-impulse
    and actuators); the energy loss by its definition."""
    guarded = guarded_contacts(mode, data.model)
    variants = [()] if delta == 0.0 else list(itertools.product((False, True), repeat=len(guarded)))
    n_tau = resp.P_q.shape[1]
    found: list[tuple[tuple[bool, ...], ModeResponse, Polytope | None]] = []
    with_block = None  # the response of the variants with the pseudo block: one equality system
    for flags in variants:
        if not any(flags):
            r = resp
        else:
            eqs = outcome_equations(data, mode, delta, flags)
            if with_block is None:
                r = with_block = response_from_equations(eqs)
            else:
                r = replace(with_block, equations=eqs)
        ok, D = _variant_polytope(r)
        if ok:
            found.append((flags, r, D))
    if not found:
        return ImpactOutcome(mode=mode, consistent=False)
    flags, r, D = found[0]
    z = np.zeros(0) if D is None else D.witness()
    if z is None:  # D was found non-empty
        raise InternalError(f"outcome {mode}: a non-empty polytope without a witness point")
    tau_s, w = z[:n_tau], z[n_tau:]
    x = r.P @ tau_s + r.Q @ w + r.r
    n_q, k, nc = data.n_q, data.k, data.c
    reported = _frictionless_letters(mode, data.J @ x[:n_q], scope)
    unit_p = sc.force * sc.scales.time
    qdot_plus = x[:n_q] * vel
    plastic = x[n_q:n_q + nc * k] * unit_p
    impulse = plastic.copy()
    kept_by_pseudo = [i for i, flag in zip(guarded, flags) if flag]
    if kept_by_pseudo:  # the pseudo block [a; f] follows [q̇⁺; P]
        f = x[2 * n_q + nc * k:2 * n_q + 2 * nc * k] * unit_p
        for i in kept_by_pseudo:
            impulse[nc * i:nc * i + nc] += delta * f[nc * i:nc * i + nc]
    qdot_set = None
    if r.w_moves_accelerations and D is not None:  # the w-block of q̇⁺ (nondimensional, orthonormal)
        w_set = D if n_tau == 0 else D.project(list(range(n_tau, D.dim)))
        qdot_set = ((r.P_q @ tau_s + r.r_q) * vel, r.Q_q * vel[:, None], w_set)
    torque_set: list[Polytope] | None = None
    torque = None
    if delta > 0.0 and n_tau > 0:
        pieces: list[Polytope] = []
        for _, _, Dv in found:
            assert Dv is not None  # dimension n_τ + n_w >= 1
            pieces.append(Dv if Dv.dim == n_tau else Dv.reduce().project(list(range(n_tau))))
        torque_set = [sc.polytope_to_user(T, 0) for T in _drop_contained(pieces)]
        torque = sc.tau_to_user(tau_s)
    impulse_varies = bool(np.abs(r.Q_f[:nc * k]).max(initial=0.0) > tolerances.AMBIGUITY_ATOL)
    return ImpactOutcome(mode=reported, consistent=True, qdot_plus=qdot_plus, impulse=impulse,
                         energy_loss=_energy_loss(system, qdot, qdot_plus, mode),
                         qdot_plus_set=qdot_set, impulse_ambiguous=impulse_varies, torque_set=torque_set,
                         plastic_impulse=plastic, pseudo_kept=tuple(system.contacts[i] for i in kept_by_pseudo),
                         torque=torque)


def _drop_contained(pieces: list[Polytope]) -> list[Polytope]:
    """The pieces of a union (nondimensional τ-polytopes) without those inside another piece
    (``Polytope.issubset``; of two equal pieces the first is kept)."""
    return [P for i, P in enumerate(pieces)
            if not any(P.issubset(Q) and (j < i or not Q.issubset(P)) for j, Q in enumerate(pieces) if j != i)]


def _frictionless_letters(mode: str, v_plus: np.ndarray, scope: ImpactScope) -> str:
    """``mode`` with each kept frictionless contact (letter ``F``, normal row only) renamed after
    its post-impact velocity (nondimensional; at the reported ``q̇⁺`` when the outcome leaves it
    ambiguous) by the contact model's ``frictionless_letter``: planar ``R`` above the contact's
    Table III threshold, ``L`` below minus it, spatial ``D`` when its tangential speed exceeds
    it, else ``F`` (``contactmodes.impact.scope``)."""
    model = scope.model
    nc = len(model.components)
    letters = list(mode)
    for i, c in enumerate(letters):
        if c == "F" and bool(scope.frictionless[i]) and bool(scope.in_scope[i]):
            letters[i] = model.frictionless_letter(v_plus[nc * i:nc * i + nc], float(scope.threshold[i]))
    return "".join(letters)


def _h_at_rest(loaded) -> np.ndarray:
    """``h(q, 0)`` of a loaded system file (planar or spatial): the mechanism's system at the
    file's configuration with zero velocity."""
    zero = np.zeros_like(loaded.qdot)
    model = getattr(loaded, "contact_model", None)
    rest = (loaded.mechanism.contact_system(loaded.q, zero) if model is None
            else loaded.mechanism.contact_system(loaded.q, zero, contact_model=model))
    return np.asarray(rest.h, dtype=float)


def _energy_loss(system: ContactSystem, qdot_minus: np.ndarray, qdot_plus: np.ndarray, mode: str) -> float:
    """``½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺`` (J in SI), by its definition, computed as
    ``½ (q̇⁻ − q̇⁺)ᵀ M (q̇⁻ + q̇⁺)`` (the same number without subtracting two energies).

    Every consistent outcome loses energy (``contactmodes.impact.equations``, *Energy*: the loss
    is ``½ Δᵀ M Δ + Σ μ P_n |v_t⁺|`` over the sliding contacts, whose ``P_n >= 0``). The reported
    solution satisfies its rows to the LP's precision, so a loss within ``FEASIBILITY_RTOL ·
    max(E⁻ + E⁺, F L)`` of zero is 0 (``F L`` the system's unit of energy,
    ``contactmodes.model.scaling``); a gain beyond it contradicts the model: ``InternalError``."""
    M = system.M
    loss = 0.5 * float((qdot_minus - qdot_plus) @ M @ (qdot_minus + qdot_plus))
    sc = system.scaling
    energies = 0.5 * float(qdot_minus @ M @ qdot_minus) + 0.5 * float(qdot_plus @ M @ qdot_plus)
    tol = tolerances.FEASIBILITY_RTOL * max(energies, sc.force * sc.scales.length)
    if loss < -tol:
        raise InternalError(f"impact outcome {mode}: the kinetic energy rises by {-loss:g} (to {energies:g} in all); "
                            "an outcome of the plastic impact cannot gain energy")
    return 0.0 if loss <= tol else loss
