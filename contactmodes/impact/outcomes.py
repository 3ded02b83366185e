"""Every outcome of a plastic impact, decided on the nondimensional system (thesis Sec. 5.1.2–5.1.4).

For each outcome of ``contactmodes.impact.scope`` the conditions of
``contactmodes.impact.equations`` are solved by the modes' SVD response
(``contactmodes.modes.response.responses_from_equations``: ``x = [q̇⁺; P; …]`` affine in the
ambiguity variables ``w`` and, with a pseudo-impulse, the torques ``τ``), substituted into the
outcome's inequalities (``contactmodes.analysis.domains.domain_inequalities``, eq. 33 of the
flipping paper) and the resulting polytope over ``(τ, w)`` tested for emptiness (``polytopes``). An
outcome is *consistent* when that polytope is not empty; with ``δ_t > 0`` its torque set is the
union, over the variants of the pseudo-impulse guard, of the polytopes' projections onto ``τ``
(as ``T_c``). Every rank, consistency and emptiness decision is taken on the nondimensional system
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
from contactmodes.impact.equations import ImpactData, kept_contacts, outcome_equations
from contactmodes.impact.result import ImpactOutcome, ImpactResult
from contactmodes.impact.scope import ImpactScope, impact_scope
from contactmodes.model.system import ContactSystem
from contactmodes.modes.response import ModeResponse, response_from_equations, responses_from_equations

__all__ = ["impact", "impact_of_system"]


def impact(system_or_path, pseudo_impulse: float = 0.0, qdot=None, h_rest=None) -> ImpactResult:
    """Every plastic-impact outcome at a state (thesis Sec. 5.1.2–5.1.4), in the system's units.

    Parameters
    ----------
    system_or_path : ContactSystem or str or Path
        A system file (its state gives ``q̇⁻``, its mechanism ``h(q, 0)``), or a
        ``ContactSystem`` (then ``qdot`` is required, and ``h_rest`` for a pseudo-impulse).
    pseudo_impulse : float, optional
        ``δ_t`` (s, ``>= 0``) of thesis eq. (39); 0 (default) for none.
    qdot : array_like, optional
        ``(n_q,)`` the pre-impact velocity ``q̇⁻`` of a ``ContactSystem`` (its ``v_contact`` must be
        ``J q̇⁻``). Ignored with a file.
    h_rest : array_like, optional
        ``(n_q,)`` ``h(q, 0)`` (the generalized gravity force) of a ``ContactSystem``, for
        ``pseudo_impulse > 0``.

    Returns
    -------
    ImpactResult
        One ``ImpactOutcome`` per outcome, consistent or not.

    Raises
    ------
    ContactModelError
        A bad file (``SystemFileError``), a negative or non-finite ``pseudo_impulse``, a missing
        or mis-shaped ``qdot``/``h_rest``, or ``qdot`` inconsistent with ``v_contact``.

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
            rest = loaded.mechanism.contact_system(loaded.q, np.zeros_like(loaded.qdot))
            h_rest = rest.h
    elif isinstance(system_or_path, ContactSystem):
        system = system_or_path
        if qdot is None:
            raise ContactModelError("qdot: the pre-impact velocity is needed with a ContactSystem")
    else:
        raise ContactModelError(f"system: expected a ContactSystem or a file path, got {type(system_or_path).__name__}")
    return impact_of_system(system, qdot, pseudo_impulse=pseudo_impulse, h_rest=h_rest, source=source)


def _vector(value, n: int, name: str) -> np.ndarray:
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ContactModelError(f"{name}: not a numeric vector") from None
    if v.shape != (n,) or not np.all(np.isfinite(v)):
        raise ContactModelError(f"{name}: expected {n} finite numbers (one per coordinate), got shape {v.shape}")
    return v


def impact_of_system(system: ContactSystem, qdot, pseudo_impulse: float = 0.0, h_rest=None,
                     source: str | None = None) -> ImpactResult:
    """``impact`` of a ``ContactSystem`` with its pre-impact velocity ``qdot`` (n_q,) and, for
    ``pseudo_impulse > 0`` (s), ``h_rest`` (n_q,) = ``h(q, 0)``; arguments and errors as
    ``impact``."""
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
    h_s = None
    if delta > 0.0:
        if h_rest is None:
            raise ContactModelError("h_rest: h(q, 0) is needed for a pseudo-impulse with a ContactSystem")
        h_s = _vector(h_rest, n_q, "h_rest") / sc.generalized_force
    scope = impact_scope(scaled)
    data = ImpactData(M=np.asarray(scaled.M), J=np.asarray(scaled.J), S=np.asarray(scaled.S), h_rest=h_s,
                      qdot_minus=qdot_s, mu=np.asarray(scaled.mu), in_scope=scope.in_scope,
                      touching=scope.touching, contacts=tuple(system.contacts))
    delta_s = delta / sc.scales.time
    modes = scope.outcomes()
    base = [outcome_equations(data, mode, delta_s) for mode in modes]
    responses = responses_from_equations(base)  # one stacked SVD per shape (contactmodes.modes.response)
    outcomes = [_solve_outcome(data, mode, resp, delta_s, system, qdot, sc, vel, scope)
                for mode, resp in zip(modes, responses)]
    return ImpactResult(system=system, qdot_minus=qdot, pseudo_impulse=delta, scope=scope, outcomes=outcomes,
                        source=source)


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
    pseudo block share one response (their equalities are the same), the others ``resp``."""
    n_kept = len(kept_contacts(mode))
    variants = [()] if delta == 0.0 else list(itertools.product((False, True), repeat=n_kept))
    n_tau = resp.P_q.shape[1]
    found: list[tuple[ModeResponse, Polytope | None]] = []
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
            found.append((r, D))
    if not found:
        return ImpactOutcome(mode=mode, consistent=False)
    r, D = found[0]
    z = np.zeros(0) if D is None else D.witness()
    if z is None:  # D was found non-empty
        raise InternalError(f"outcome {mode}: a non-empty polytope without a witness point")
    tau_s, w = z[:n_tau], z[n_tau:]
    x = r.P @ tau_s + r.Q @ w + r.r
    n_q, k = data.n_q, data.k
    mode = _frictionless_letters(mode, data.J @ x[:n_q], scope)
    unit_p = sc.force * sc.scales.time
    qdot_plus = x[:n_q] * vel
    impulse = x[n_q:n_q + 2 * k] * unit_p
    qdot_set = None
    if r.w_moves_accelerations and D is not None:  # the w-block of q̇⁺ (nondimensional, orthonormal)
        w_set = D if n_tau == 0 else D.project(list(range(n_tau, D.dim)))
        qdot_set = ((r.P_q @ tau_s + r.r_q) * vel, r.Q_q * vel[:, None], w_set)
    torque_set: list[Polytope] | None = None
    if delta > 0.0 and n_tau > 0:
        pieces: list[Polytope] = []
        for _, Dv in found:
            assert Dv is not None  # dimension n_τ + n_w >= 1
            pieces.append(Dv if Dv.dim == n_tau else Dv.reduce().project(list(range(n_tau))))
        torque_set = [sc.polytope_to_user(T, 0) for T in _drop_contained(pieces)]
    impulse_varies = bool(np.abs(r.Q_f[:2 * k]).max(initial=0.0) > tolerances.AMBIGUITY_ATOL)
    return ImpactOutcome(mode=mode, consistent=True, qdot_plus=qdot_plus, impulse=impulse,
                         energy_loss=_energy_loss(system, qdot, qdot_plus, impulse, mode),
                         qdot_plus_set=qdot_set, impulse_ambiguous=impulse_varies, torque_set=torque_set)


def _drop_contained(pieces: list[Polytope]) -> list[Polytope]:
    """The pieces of a union (nondimensional τ-polytopes) without those inside another piece
    (``Polytope.issubset``; of two equal pieces the first is kept)."""
    return [P for i, P in enumerate(pieces)
            if not any(P.issubset(Q) and (j < i or not Q.issubset(P)) for j, Q in enumerate(pieces) if j != i)]


def _frictionless_letters(mode: str, v_plus: np.ndarray, scope: ImpactScope) -> str:
    """``mode`` with each kept frictionless contact (letter ``F``, normal row only) renamed after
    its post-impact tangential velocity ``v_plus[2i]`` (nondimensional; at the reported ``q̇⁺``
    when the outcome leaves it ambiguous): ``R`` above the contact's Table III threshold, ``L``
    below minus it, else ``F`` (``contactmodes.impact.scope``)."""
    letters = list(mode)
    for i, c in enumerate(letters):
        if c == "F" and bool(scope.frictionless[i]) and bool(scope.in_scope[i]):
            vt, eps = float(v_plus[2 * i]), float(scope.threshold[i])
            letters[i] = "R" if vt > eps else "L" if vt < -eps else "F"
    return "".join(letters)


def _energy_loss(system: ContactSystem, qdot_minus: np.ndarray, qdot_plus: np.ndarray, impulse: np.ndarray,
                 mode: str) -> float:
    """``½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺`` (J in SI) in the form that shows its sign: with
    ``Δ = q̇⁻ − q̇⁺`` and ``M Δ = −Jᵀ P``, it is ``½ Δᵀ M Δ − (J q̇⁺)·P``, where ``(J q̇⁺)·P`` vanishes on
    the stuck and released contacts and is ``−μ P_n |v_t⁺|`` on the sliding ones; each term is
    taken with its sign (noise at zero cut), and a loss within ``CANCEL_RTOL`` of the pre-impact
    energy is rounding of a zero loss: 0."""
    d = qdot_minus - qdot_plus
    loss = max(0.0, 0.5 * float(d @ system.M @ d))
    v = system.J @ qdot_plus
    for i, letter in enumerate(mode):
        if letter in "LR":
            loss += float(system.mu[i]) * max(0.0, float(impulse[2 * i + 1])) * abs(float(v[2 * i]))
    before = 0.5 * float(qdot_minus @ system.M @ qdot_minus)
    return 0.0 if loss <= tolerances.CANCEL_RTOL * before else loss
