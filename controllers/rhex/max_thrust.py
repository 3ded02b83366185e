"""Max-thrust flipping controller across all contact modes (flipping paper, Sec. IV-B.2, Fig. 4).

At every control step (``params.control_rate``, zero-order hold) the controller

1. builds the rigid model (:func:`~.rigid_model.rigid_model`, task constraint
   ``f_n(body) >= params.min_body_normal_force``) at the measured state, with the normal contact
   velocities classified as described under *Velocity classification* below;
2. enumerates the kinematically feasible modes ``M_f`` (Sec. III-F with the thresholds ``v0`` of
   Sec. IV-C.3, :func:`contactmodes.modes.enumerate_modes`);
3. for each mode ``c`` whose pitch acceleration is unique (the θ row of ``Q_q`` is zero: a
   force-only ambiguity, III-G.2, is tolerated; within-mode task negations are *not* removed, i.e.
   ``within_mode=False`` of :func:`contactmodes.ambiguity.unambiguous`) maximizes
   ``θ̈_c(τ) = P_q[θ] τ + r_q[θ]`` over

       T*_c ∩ L,   T*_c = T_c(with task) − ∪_{c' ∈ M_f, c' ≠ c} T_c'(without task)        (34)

   (task constraint applied *after* the mode intersections, Fig. 4(d)), ``L`` the motor-limit box
   at the current hip speeds (:func:`~.limits.torque_limits`);
4. applies the torque of the best mode ``c* = argmax_c θ̈*_c``, from t = 0 until the run ends
   (flip or failure; no pitch stop, as :class:`~.blind.BlindController`).

Lazy evaluation (speed)
-----------------------
The union of polytopes ``T*_c ∩ L`` is never built for every mode. Per step:

* **Bounds.** One SVD response per mode (the task row is an inequality, so the response with and
  without task is the same; the untasked domain (33) drops the task row), and one LP per mode in
  the lifted ``(τ, w)`` space: ``β_c = max θ̈ over D_c(task) ∩ L`` (no projection). ``β_c`` is an
  upper bound of ``θ̈*_c`` because ``T*_c ∩ L ⊆ T_c ∩ L``; the LP's maximizer ``τ°_c`` comes along.
* **Candidates in decreasing β order.** For a candidate ``c``:

  - *fast path*: if ``τ°_c`` lies in no other ``T_c'`` (a point test per ``c'``: direct row check
    when ``n_w' = 0``, else a small max-slack LP over ``w'`` — still no projection; a point within
    the tolerance :data:`POINT_TOL` of ``T_c'`` counts as inside, so the fast path never accepts a
    boundary point), then ``τ°_c`` is strictly outside every closed ``T_c'``, hence unambiguous,
    and ``θ̈*_c = β_c``;
  - *slow path* otherwise: ``K = T_c ∩ L`` is projected (one :func:`~contactmodes.domains.mode_domain`
    with the limit rows appended), the ``c'`` whose domains meet ``K`` are found by one lifted
    feasibility LP each over ``(τ, w')`` (no projection), only those ``T_c'`` are projected (cached
    for the step), those meeting ``K`` with full relative dimension are removed by
    :func:`polytopes.difference`, and ``θ̈`` is maximized over each remaining piece (one LP each).
* **Stop** as soon as the best value found is ``>= β`` of the next candidate (minus
  :data:`TIE_TOL`): no remaining mode can do better.

Boundary convention (ties)
--------------------------
``T*_c`` follows :mod:`polytopes.regions`: pieces are closures, and a ``T_c'`` meeting ``K`` in a
set of lower dimension (typically the friction-cone edge shared by an ``F`` mode and the adjacent
``L``/``R`` mode) removes nothing. The *value* ``θ̈*_c`` is the maximum over these closures (what
the slow reference computes). When the maximizer lies on a removed (full-dimensional) ambiguity
set — a tie with the ambiguous region — the applied torque is pulled into the winning piece,
``τ = τ° + NUDGE·(centre − τ°)`` (``centre`` the piece's Chebyshev centre, :data:`NUDGE` = 1 %),
so it lies in the piece's relative interior and therefore outside every removed set; the prediction
reported is ``θ̈_c`` at that torque (at most 1 % of the piece's θ̈ spread below the closure maximum).

Velocity classification
-----------------------
The compliant simulator's contacts are not rigid: the body corner sinks into and rises out of its
penalty ground (up to ~4 cm/s), and the rigid toe velocity lacks the leg's radial rate (~3 cm/s),
so normal contact velocities of touching contacts scatter around zero (measured over blind flips at
μ_t = 0.39/0.6: −0.048 … +0.025 m/s while the simulator reports contact). The rigid model has no
impact law (an approaching contact raises :class:`~contactmodes.errors.ApproachingContactError`),
so before enumeration the controller replaces every normal velocity ``v_n <= normal_velocity_tol``
(default 0.03 m/s) by 0 — the contact is *persistent* (Sec. IV-C.3: interval tests instead of
equalities) — and leaves larger ones (lift-off, ``S`` only). Tangential velocities keep the paper's
``v0`` thresholds. The same classified system is used for the slow reference.

Statuses (counted in :attr:`MaxThrustController.counts`, logged per step)
------------------------------------------------------------------------
``"optimal"``: the regular case above. ``"ambiguous"``: no mode has a non-empty ``T*_c ∩ L``; the
best mode of ``T_c ∩ L`` ignoring ambiguity is used (its bound maximizer ``τ°``).
``"task_dropped"`` (and ``"task_dropped_ambiguous"``): no mode meets the task constraint at all
(every ``D_c(task) ∩ L`` is empty: late in the thrust the centre of mass's centripetal
acceleration about the body corner approaches g and legs can only push, so no torque keeps 5 N on
the body corner); the same all-mode search is then run with the task row dropped (``T_c`` and
``T*_c`` without the task), as the method prescribes — there is no blind-model fallback.
``"no_mode"``: not even that leaves a mode (zero torque, no prediction). ``"error"``: the
computation raised (zero torque, no prediction; the message is kept in
:attr:`MaxThrustController.errors`). Lifted toes (left out of the rigid model) are ``S`` in the
logged 4-letter modes (:func:`~.rigid_model.expand_mode`).

Measured before the effective torque limit and the removal of the blind fallback (shared 2-core box, 16.2 N·m, 60° stop, 1 s runs)
--------------------------------------------------------------------------------------------------------------------------------
μ_t = 0.39: flips at 0.263 s (blind 0.267 s); per-step median 4.6 ms, p90 14 ms, max 78 ms (the
first step at rest: 136 modes, enumeration alone 25 ms); whole run 1.3 s wall; RMSE of predicted
vs simulated θ̈ over the thrust steps 9.7 rad/s² (blind 11.5). μ_t = 0.6: 0.278 s (blind 0.280 s);
median 4.5 ms, p90 8.1 ms; RMSE 9.6 (blind 10.9). In both runs the fast point test decided every
step (no slow path); the task constraint becomes infeasible (the body normal force cannot reach
5 N) from about 27° pitch on (at 16.2 N·m). Current numbers: ``docs/rhex-reproduction.md``. Cost per step ≈ enumeration + one SVD response, one bound LP and one point test per
mode (≈ 0.4 ms per mode).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import NamedTuple

import numpy as np

from contactmodes.ambiguity import unambiguous, untasked_domains
from contactmodes.domains import domain_inequalities, intersect_domains, mode_domain
from contactmodes.modes import enumerate_modes, zero_threshold
from contactmodes.response import ModeResponse, solve_response
from contactmodes.tolerances import AMBIGUITY_ATOL
from polytopes import Polytope, difference
from polytopes import lp

from .limits import torque_limits
from .params import RHexParams
from .rigid_model import PITCH_INDEX, RigidModel, expand_mode, rigid_model
from .simulator import ControlOutput, leg_kinematics

__all__ = [
    "MaxThrustController",
    "MaxThrustRecord",
    "MaxThrustResult",
    "controller_model",
    "max_thrust",
    "max_thrust_reference",
    "step_time_stats",
    "NORMAL_VELOCITY_TOL",
    "STATUSES",
    "NUDGE",
    "POINT_TOL",
    "TIE_TOL",
]

NORMAL_VELOCITY_TOL = 0.03
"""Default (m/s): normal contact velocities ``<=`` this are treated as 0 (module doc)."""
NUDGE = 0.01
"""Fraction of the way towards the winning piece's Chebyshev centre a tied maximizer is moved."""
POINT_TOL = 1e-6
"""Fast-path point test: ``τ°`` counts as inside ``T_c'`` when the normalized rows of ``D_c'`` can
be met to within ``POINT_TOL · max(1, ‖τ°‖∞, scale)`` (generous on purpose: near-boundary points
go to the exact slow path)."""
TIE_TOL = 1e-9
"""Relative tolerance (× ``max(1, |θ̈|)``) of the stopping rule ``best >= β_next``."""


class MaxThrustRecord(NamedTuple):
    """One controller step: ``t`` (s), ``mode`` (4 letters or ``None``), ``predicted`` θ̈ (rad/s²,
    NaN if none), ``wall_time`` (s), ``n_modes`` kinematically feasible modes considered,
    ``status`` (module doc: ``"optimal"``, ``"ambiguous"``, ``"task_dropped"``,
    ``"task_dropped_ambiguous"``, ``"no_mode"``, ``"error"``), ``n_examined`` candidates examined
    for ambiguity, ``n_slow`` of them through the slow path, ``n_projections`` polytope
    projections done."""

    t: float
    mode: str | None
    predicted: float
    wall_time: float
    n_modes: int
    status: str
    n_examined: int
    n_slow: int
    n_projections: int


@dataclasses.dataclass
class MaxThrustResult:
    """Result of :func:`max_thrust` at one state.

    ``tau`` (3,) N·m; ``mode`` over the model's contacts (``None`` when no mode is left);
    ``mode4`` 4-letter form; ``value`` predicted θ̈ (rad/s²) at ``tau``; ``closure_value`` the
    maximum over the closure of ``T*_c ∩ L`` (equal to ``value`` unless nudged); ``status`` (module
    doc); ``n_modes``, ``n_examined``, ``n_slow``, ``n_projections`` work counters; ``bounds``
    ``{mode: β_c}``; ``values`` ``{mode: θ̈*_c}`` for the examined modes (``-inf`` when
    ``T*_c ∩ L`` is empty); ``nudged`` whether the tie rule moved the torque.
    """

    tau: np.ndarray
    mode: str | None
    mode4: str | None
    value: float
    closure_value: float
    status: str
    n_modes: int = 0
    n_examined: int = 0
    n_slow: int = 0
    n_projections: int = 0
    bounds: dict = dataclasses.field(default_factory=dict)
    values: dict = dataclasses.field(default_factory=dict)
    nudged: bool = False


def controller_model(state, params: RHexParams, normal_velocity_tol: float = NORMAL_VELOCITY_TOL):
    """Rigid model at ``state`` (18,) with the velocity classification of the module doc.

    Returns ``(model, system, n_clamped)``: the :class:`~.rigid_model.RigidModel` (task on), its
    :class:`~contactmodes.system.ContactSystem` with normal velocities ``<= normal_velocity_tol``
    (m/s) set to 0, and how many contacts were changed.
    """
    model = rigid_model(state, params, task=True)
    sys0 = model.system
    v = np.array(sys0.v_contact, dtype=float).reshape(-1, 2)
    eps = zero_threshold(sys0)
    change = (v[:, 1] <= max(0.0, float(normal_velocity_tol))) & (np.abs(v[:, 1]) > 0.0)
    n = int(np.sum(change & (np.abs(v[:, 1]) > eps)))
    if not np.any(change):
        return model, sys0, 0
    v[change, 1] = 0.0
    return model, dataclasses.replace(sys0, v_contact=v.reshape(-1)), n


# ----------------------------------------------------------------------------------- per mode data


class _Mode:
    """Lifted data of one mode at one step (z = (τ, w))."""

    __slots__ = ("mode", "resp", "n_w", "A_t", "b_t", "A_u", "b_u", "C", "d", "feasible_t",
                 "feasible_u", "unique", "grad", "offset", "bound", "tau0", "T_u", "An_u", "bn_u",
                 "_resp_u")

    def __init__(self, mode: str, resp: ModeResponse):
        self.mode = mode
        self.resp = resp
        self.n_w = resp.n_w
        # The task row is an inequality: the response is the same with and without it, and the
        # tasked rows (33) are the untasked ones plus the substituted task rows.
        eqs = resp.equations
        task = np.array([lab.startswith("task") for lab in eqs.ineq_labels], dtype=bool)
        split = lambda mask: dataclasses.replace(resp, equations=dataclasses.replace(  # noqa: E731
            eqs, N=eqs.N[mask], e=eqs.e[mask], ineq_labels=[l for l, k in zip(eqs.ineq_labels, mask) if k]))
        resp_u = split(~task)
        A_u, b_u, bad_u = domain_inequalities(resp_u)
        if task.any():
            A_k, b_k, bad_k = domain_inequalities(split(task))
            A_t, b_t, bad_t = np.vstack([A_u, A_k]), np.concatenate([b_u, b_k]), bad_u or bad_k
        else:
            A_t, b_t, bad_t = A_u, b_u, bad_u
        self.A_t, self.b_t, self.A_u, self.b_u = A_t, b_t, A_u, b_u
        n = 3 + self.n_w
        if resp.consistent:
            self.C = np.hstack([resp.tau_C, np.zeros((resp.tau_C.shape[0], self.n_w))])
            self.d = resp.tau_d
        else:
            self.C, self.d = np.zeros((0, n)), np.zeros(0)
        self.feasible_t = resp.consistent and not bad_t
        self.feasible_u = resp.consistent and not bad_u
        self.unique = not (resp.Q_q.shape[1] and np.abs(resp.Q_q[PITCH_INDEX]).max() > AMBIGUITY_ATOL)
        self.grad = resp.P_q[PITCH_INDEX]
        self.offset = float(resp.r_q[PITCH_INDEX])
        self.bound = -math.inf
        self.tau0 = None
        self.T_u = None  # untasked ModeDomain once projected
        nrm = np.linalg.norm(A_u, axis=1)
        nrm[nrm == 0] = 1.0
        self.An_u, self.bn_u = A_u / nrm[:, None], b_u / nrm
        self._resp_u = resp_u

    def untasked_domain(self, system):
        if self.T_u is None:
            self.T_u = mode_domain(system, self.mode, task=False, response=self._resp_u)
        return self.T_u

    def contains_point(self, tau: np.ndarray) -> bool:
        """Whether ``tau`` lies in ``T_c'`` (untasked) up to :data:`POINT_TOL` (module doc)."""
        if not self.feasible_u:
            return False
        tol = POINT_TOL * max(1.0, float(np.abs(tau).max()), float(np.abs(self.bn_u).max(initial=0.0)))
        if self.resp.tau_C.shape[0] and np.abs(self.resp.tau_C @ tau - self.resp.tau_d).max() > tol:
            return False
        A = self.An_u
        if A.shape[0] == 0:
            return True
        rhs = self.bn_u - A[:, :3] @ tau
        if self.n_w == 0:
            return bool(rhs.min() >= -tol)
        Aw = A[:, 3:]
        # min s  s.t.  Aw w - s <= rhs,  s >= -1
        c = np.zeros(self.n_w + 1)
        c[-1] = 1.0
        A_ub = np.hstack([Aw, -np.ones((A.shape[0], 1))])
        st, x, fun = lp.solve(c, A_ub, rhs, bounds=[(None, None)] * self.n_w + [(-1.0, None)])
        return st == lp.OPTIMAL and fun <= tol


def _limit_rows(lo, hi, n_w: int):
    E = np.hstack([np.eye(3), np.zeros((3, n_w))])
    return np.vstack([E, -E]), np.concatenate([hi, -lo])


def _bound(md: _Mode, lo, hi, task: bool = True) -> None:
    """``β_c`` and ``τ°_c`` by one LP over ``D_c ∩ L`` in ``(τ, w)`` (with or without the task rows);
    resets them first (``-inf`` / ``None`` when that set is empty)."""
    md.bound, md.tau0 = -math.inf, None
    if not (md.feasible_t if task else md.feasible_u):
        return
    A, b = (md.A_t, md.b_t) if task else (md.A_u, md.b_u)
    n = 3 + md.n_w
    c = np.zeros(n)
    c[:3] = -md.grad
    bounds = [(float(lo[i]), float(hi[i])) for i in range(3)] + [(None, None)] * md.n_w
    st, x, fun = lp.solve(c, A if A.shape[0] else None, b if A.shape[0] else None,
                          md.C if md.C.shape[0] else None, md.d if md.C.shape[0] else None, bounds)
    if st == lp.OPTIMAL:
        md.tau0 = np.clip(x[:3], lo, hi)
        md.bound = float(md.grad @ md.tau0 + md.offset)


def _meets(K: Polytope, other: _Mode) -> bool:
    """Whether ``K`` (over τ) meets ``T_c'`` — one feasibility LP over ``(τ, w')``."""
    if not other.feasible_u:
        return False
    nw = other.n_w
    pad = lambda M: np.hstack([M, np.zeros((M.shape[0], nw))])  # noqa: E731
    A = np.vstack([pad(K.A), other.A_u])
    b = np.concatenate([K.b, other.b_u])
    C = np.vstack([pad(K.C), other.C])
    d = np.concatenate([K.d, other.d])
    st, _, _ = lp.solve(np.zeros(3 + nw), A if A.shape[0] else None, b if A.shape[0] else None,
                        C if C.shape[0] else None, d if C.shape[0] else None)
    return st == lp.OPTIMAL


def _maximize_pieces(pieces, grad, offset):
    """Best ``(value, tau, piece)`` of the linear θ̈ over polytope pieces (``-inf`` if none)."""
    best = (-math.inf, None, None)
    for P in pieces:
        st, x, fun = lp.solve(-grad, P.A if P.n_ineq else None, P.b if P.n_ineq else None,
                              P.C if P.n_eq else None, P.d if P.n_eq else None)
        if st == lp.OPTIMAL:
            v = float(grad @ x + offset)
            if v > best[0]:
                best = (v, x, P)
    return best


def _slow(md: _Mode, others: list, system, lo, hi, counters: dict, task: bool = True):
    """Exact ``max θ̈ over T*_c ∩ L`` (closures) for candidate ``md``: ``(value, tau, nudged, closure)``;
    ``task=False`` drops the task row from ``T_c`` (module doc, status ``"task_dropped"``)."""
    A_l, b_l = _limit_rows(lo, hi, md.n_w)
    dom = mode_domain(system, md.mode, task=task, response=md.resp if task else md._resp_u, extra=(A_l, b_l))
    counters["proj"] += 1
    if not dom.feasible:
        return -math.inf, None, False, -math.inf
    K = dom.T
    dim = K.affine_dimension()
    removed = []
    for o in others:
        if not _meets(K, o):
            continue
        od = o.untasked_domain(system)
        counters["proj"] += 1 if o.n_w else 0
        if not od.feasible:
            continue
        # subtract K ∩ T_c' (as across_mode_sets does), not T_c' itself: the closure splitting of
        # polytopes.difference differs between the two on degenerate (lower-dimensional) K
        inter = intersect_domains(K, od.T)
        if inter is not None and inter.affine_dimension() == dim:
            removed.append(inter)
    pieces = difference(K, removed) if removed else [K]
    val, tau, piece = _maximize_pieces(pieces, md.grad, md.offset)
    if tau is None:
        return -math.inf, None, False, -math.inf
    tau = np.asarray(tau, dtype=float)
    nudged = False
    if removed and any(T.contains(tau) for T in removed):
        centre = piece.chebyshev_center().center
        tau = tau + NUDGE * (centre - tau)
        nudged = True
    return float(md.grad @ tau + md.offset), tau, nudged, val


def _search(data: list, system, lo, hi, task: bool, force_slow: bool):
    """The lazy all-mode search of the module doc over ``data`` (:class:`_Mode` list).

    Returns ``(best, cands, values, n_exam, n_slow, n_proj)``: ``best`` = ``(value, tau, md, nudged,
    closure)`` or ``None`` (no mode with a non-empty ``T*_c ∩ L``), ``cands`` the modes with a
    non-empty ``D_c ∩ L`` in decreasing bound order."""
    for md in data:
        if md.unique:
            _bound(md, lo, hi, task)
    cands = sorted((md for md in data if md.unique and md.tau0 is not None), key=lambda m: -m.bound)
    counters = {"proj": 0}
    best = None  # (value, tau, md, nudged, closure)
    n_exam = n_slow = 0
    values = {}
    for md in cands:
        if best is not None and best[0] >= md.bound - TIE_TOL * max(1.0, abs(md.bound)):
            break
        n_exam += 1
        others = [o for o in data if o is not md]
        if not force_slow and not any(o.contains_point(md.tau0) for o in others):
            val, tau, nudged, closure = md.bound, md.tau0, False, md.bound
        else:
            n_slow += 1
            val, tau, nudged, closure = _slow(md, others, system, lo, hi, counters, task)
        values[md.mode] = val
        if tau is not None and (best is None or val > best[0]):
            best = (val, tau, md, nudged, closure)
    return best, cands, values, n_exam, n_slow, counters["proj"]


def max_thrust(model: RigidModel, system, lo, hi, force_slow: bool = False) -> MaxThrustResult:
    """The lazy max-thrust optimization of the module doc at one state.

    ``model`` the rigid model (for contact names); ``system`` its (velocity-classified,
    :func:`controller_model`) ContactSystem; ``lo``, ``hi`` (3,) torque bounds (N·m).
    ``force_slow`` skips the fast point test (every examined candidate goes through the slow path;
    for tests). When no mode meets the task constraint the search is repeated with the task row
    dropped (status ``"task_dropped"`` / ``"task_dropped_ambiguous"``); when not even that leaves
    a mode, zero torque with status ``"no_mode"`` (prediction NaN). Errors of the enumeration or
    the LPs propagate.
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    modes = enumerate_modes(system).modes
    data = [_Mode(m, solve_response(system, m, task=True)) for m in modes]
    n_exam = n_slow = n_proj = 0
    for task, prefix in ((True, ""), (False, "task_dropped")):
        best, cands, values, e, s_, pj = _search(data, system, lo, hi, task, force_slow)
        n_exam, n_slow, n_proj = n_exam + e, n_slow + s_, n_proj + pj
        bounds = {md.mode: md.bound for md in cands}
        if best is not None:
            val, tau, md, nudged, closure = best
            tau = np.clip(tau, lo, hi)
            return MaxThrustResult(tau, md.mode, expand_mode(md.mode, model.contacts),
                                   float(md.grad @ tau + md.offset), closure, prefix or "optimal", len(modes),
                                   n_exam, n_slow, n_proj, bounds, values, nudged=nudged)
        if cands:
            md = cands[0]
            return MaxThrustResult(md.tau0.copy(), md.mode, expand_mode(md.mode, model.contacts), md.bound,
                                   md.bound, f"{prefix}_ambiguous" if prefix else "ambiguous", len(modes), n_exam,
                                   n_slow, n_proj, bounds)
    return MaxThrustResult(np.zeros(3), None, None, math.nan, math.nan, "no_mode", len(modes), n_exam, n_slow,
                           n_proj, {})


def max_thrust_reference(model: RigidModel, system, lo, hi) -> dict:
    """Slow reference: ``{mode: θ̈*_c}`` by :func:`contactmodes.ambiguity.unambiguous` for every
    kinematically feasible mode with a unique θ̈ (``within_mode=False``), its pieces intersected
    with ``L`` and one LP per piece; ``-inf`` when ``T*_c ∩ L`` is empty. Modes whose θ̈ is not
    unique are left out. Projects every mode's domain: for tests, not for control."""
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    modes = enumerate_modes(system).modes
    others = untasked_domains(system, modes)
    L = Polytope.box(lo, hi)
    out = {}
    for m in modes:
        resp = others[m].response
        if resp.Q_q.shape[1] and np.abs(resp.Q_q[PITCH_INDEX]).max() > AMBIGUITY_ATOL:
            continue
        res = unambiguous(system, m, task=True, within_mode=False, others=others)
        pieces = [P.intersect(L) for P in res.unambiguous]
        val, _, _ = _maximize_pieces(pieces, resp.P_q[PITCH_INDEX], float(resp.r_q[PITCH_INDEX]))
        out[m] = val
    return out


STATUSES = ("optimal", "ambiguous", "task_dropped", "task_dropped_ambiguous", "no_mode", "error")
"""Every step status of :func:`max_thrust` and :class:`MaxThrustController` (module doc)."""


class MaxThrustController:
    """Max-thrust flipping controller (module doc); ``controller(t, state, params) -> ControlOutput``.

    Parameters
    ----------
    params : the robot as the controller models it (friction, velocity thresholds ``v0``, task
        threshold, ``normal_velocity_tol``).
    normal_velocity_tol : m/s, overrides ``params.normal_velocity_tol`` (velocity classification
        of the module doc).

    Calling convention as :class:`~.blind.BlindController`: ``__call__(t, state, params=None)``
    with ``state`` (18,) (:data:`~.simulator.STATE_LAYOUT`); the rigid model uses the
    controller's ``params``, the torque limits the passed ``params`` (default the controller's).
    Returns ``ControlOutput(tau (3,) N·m, mode (4 letters: body, toe1..3, ``S`` for lifted toes;
    ``None`` without a mode), predicted θ̈ (rad/s²) or ``None``)``.

    Attributes: ``log`` list of :class:`MaxThrustRecord` (one per step), ``counts`` (one entry per
    :data:`STATUSES` plus ``"nudged"`` and ``"slow_steps"``), ``errors`` the messages of
    ``"error"`` steps (at most 10). :meth:`reset` clears them.
    """

    def __init__(self, params: RHexParams | None = None, normal_velocity_tol: float | None = None) -> None:
        self.params = params or RHexParams()
        self.normal_velocity_tol = float(self.params.normal_velocity_tol if normal_velocity_tol is None
                                         else normal_velocity_tol)
        self.reset()

    def reset(self) -> None:
        """Clear the log, the counters and the error messages."""
        self.log: list[MaxThrustRecord] = []
        self.counts = {**{s: 0 for s in STATUSES}, "nudged": 0, "slow_steps": 0}
        self.errors: list[str] = []
        self.last = None

    def __call__(self, t: float, state, params: RHexParams | None = None) -> ControlOutput:
        p = params or self.params
        st = np.asarray(state, dtype=float)
        t0 = time.perf_counter()
        lo, hi = torque_limits(leg_kinematics(st, p).phidot, p)
        try:
            model, system, _ = controller_model(st, self.params, self.normal_velocity_tol)
            res = max_thrust(model, system, lo, hi)
        except Exception as exc:  # noqa: BLE001 - a failed step is recorded, the run goes on
            if len(self.errors) < 10:
                self.errors.append(f"t={t:.3f} s: {type(exc).__name__}: {exc}")
            res = MaxThrustResult(np.zeros(3), None, None, math.nan, math.nan, "error")
        wall = time.perf_counter() - t0
        self.counts[res.status] += 1
        self.counts["nudged"] += int(res.nudged)
        self.counts["slow_steps"] += int(res.n_slow > 0)
        self.last = res
        pred = res.value if math.isfinite(res.value) else None
        self.log.append(MaxThrustRecord(t, res.mode4, float("nan") if pred is None else pred, wall, res.n_modes,
                                        res.status, res.n_examined, res.n_slow, res.n_projections))
        return ControlOutput(np.asarray(res.tau, dtype=float), res.mode4, pred)


def step_time_stats(log) -> dict:
    """``{"n", "median", "p90", "max", "mean"}`` of the step wall times (s) of a controller log."""
    w = np.array([r.wall_time for r in log], dtype=float)
    if w.size == 0:
        return {"n": 0, "median": math.nan, "p90": math.nan, "max": math.nan, "mean": math.nan}
    return {"n": int(w.size), "median": float(np.median(w)), "p90": float(np.percentile(w, 90)),
            "max": float(w.max()), "mean": float(w.mean())}
