"""Max-thrust flipping controller across all contact modes (flipping paper, Sec. IV-B.2, Fig. 4).

At every control step (``params.control_rate``, zero-order hold) the controller

1. builds the rigid model (``rigid_arrays``, task constraint
   ``f_n(body) >= params.min_body_normal_force``) at the measured state, with the normal contact
   velocities classified as described under *Velocity classification* below;
2. enumerates the kinematically feasible modes ``M_f`` (Sec. III-F with the thresholds ``v0`` of
   Sec. IV-C.3, ``contactmodes.modes.enumeration.enumerate_modes``);
3. for each mode ``c`` whose pitch acceleration is unique (the θ row of ``Q_q`` is zero: a
   force-only ambiguity, III-G.2, is tolerated; within-mode task negations are *not* removed, i.e.
   ``within_mode=False`` of ``contactmodes.analysis.ambiguity.unambiguous``) maximizes
   ``θ̈_c(τ) = P_q[θ] τ + r_q[θ]`` over

       T*_c ∩ L,   T*_c = T_c(with task) − ∪_{c' ∈ M_f, c' ≠ c} T_c'(without task)        (34)

   (task constraint applied *after* the mode intersections, Fig. 4(d)), ``L`` the motor-limit box
   at the current hip speeds (``torque_limits``);
4. applies the torque of the best mode ``c* = argmax_c θ̈*_c``, from t = 0 until the run ends
   (flip or failure; no pitch stop, as ``BlindController``).

Lazy evaluation
---------------
The union of polytopes ``T*_c ∩ L`` is never built for every mode. Per step:

* **Bounds.** One response per mode (the task row is an inequality, so the response with and
  without task is the same; the untasked domain (33) drops the task row), and one LP per mode in
  the lifted ``(τ, w)`` space: ``β_c = max θ̈ over D_c(task) ∩ L`` (no projection). ``β_c`` is an
  upper bound of ``θ̈*_c`` because ``T*_c ∩ L ⊆ T_c ∩ L``; the LP's maximizer ``τ°_c`` comes along.
* **Candidates in decreasing β order.** For a candidate ``c``:

  - *fast path*: if ``τ°_c`` lies in no other ``T_c'`` (a point test per ``c'``: direct row check
    when ``n_w' = 0``, else a small max-slack LP over ``w'`` — still no projection; a point within
    the tolerance ``POINT_TOL`` of ``T_c'`` counts as inside, so the fast path never accepts a
    boundary point), then ``τ°_c`` is strictly outside every closed ``T_c'``, hence unambiguous,
    and ``θ̈*_c = β_c``;
  - *slow path* otherwise: ``K = T_c ∩ L`` is projected (the candidate's
    ``ModeSolution`` of an analysis session of the step,
    ``projected`` with the limit rows appended), the
    ``c'`` whose domains meet ``K`` are found by one lifted feasibility LP each over ``(τ, w')``
    (no projection), only those ``T_c'`` are projected (cached by the session), those meeting
    ``K`` with full relative dimension are removed by ``polytopes.difference``, and ``θ̈`` is
    maximized over each remaining piece (one LP each).
* **Stop** as soon as the best value found is ``>= β`` of the next candidate (minus
  ``TIE_TOL``): no remaining mode can do better.

Real time (1 kHz)
-----------------
The fast path runs on ``contactmodes.realtime.plan`` and ``polytopes.batchlp``:

* the rigid model in closed form (``rigid_arrays``), nondimensionalized by
  the rule of every analysis session (``contactmodes.model.scaling.scale_terms``) in one compiled
  call (``contactmodes.realtime.plan.scaled_terms``, bit-identical);
* one ``Structure`` per set of present contacts and one
  ``Layout`` per velocity pattern (Table III,
  ``key``), kept across steps: the index tables, the
  per-mode pivot choices of (24) and the LP bases are reused while the pattern is unchanged;
* every candidate's kinematic test, every mode's response, the bound LPs and the point-test LPs
  are evaluated in batches, each LP warm-started from the previous step's optimal basis and every
  answer verified (primal and dual feasibility, or a Farkas certificate); an answer that does not
  verify goes to ``polytopes.lp.solve_verified`` (cddlib, HiGHS), a response whose rank
  decision is not certified to be the SVD's goes to the SVD
  (``contactmodes.modes.response.response_from_equations``) — the counts are in
  ``MaxThrustController.paths``;
* the small dense LPs, the responses, the domains (33) and the assembly around them (the
  kinematic LPs' rows and decisions, the bound LPs' rows over the real ambiguity columns only, the
  point test's row checks and LP rows) run in compiled kernels (numba:
  ``polytopes.batchlp_kernel``, ``contactmodes.realtime.kernels``; the same computations as the
  NumPy paths, which stay the tested reference), the LP answers verified inside the same compiled
  loop; the kernels are compiled (or loaded from the on-disk cache) in the constructor
  (``MaxThrustController.compile_seconds``), never during a step;
* the slow path runs on an ``AnalysisSession`` built, only
  when a step needs it, from what the step has already decided: its system is the step's
  nondimensional system assembled from the scaled terms (``StepModel.scaled_system``: not
  built in SI units, validated and nondimensionalized again) and its modes are the layout's
  kinematic decisions (``contactmodes.realtime.plan.KinematicTest.enumeration``: not
  enumerated again) — the same numbers and the same modes as a session of the SI system
  (compared in ``tests/controllers/rhex/test_rhex_max_thrust.py``). The reference
  (``max_thrust_reference``) keeps its own session of the SI system (``StepModel.session``),
  which nondimensionalizes and enumerates independently of the fast path it checks;
* **precomputed before the run** (in the constructor, outside every timed step): the structures
  and pivot choices of every set of present contacts at the at-rest start
  (``initial_state``), and the answer at that start state itself (136 modes at
  rest); a step whose state is exactly that start state returns the stored answer
  (``MaxThrustController.paths["precomputed"]``). Any other state is computed. Then a dry run of
  ``PRECOMPUTE_STEPS`` control periods of the compliant model from that start builds the
  layouts and pivots of the velocity patterns met just after it (113–120 and 64 modes in the
  default flips); its LP warm starts are cleared, so the run's answers do not depend on it.

Decisions are those of the reference: the same enumeration (footnote 5's strict slack, decided by
the batched LP unless within LP precision of the margin or leaning on its box, then by a second
compiled solve in the unit box (``contactmodes.realtime.plan.Layout.kinematic``), then by the
enumeration's own LP), the
same rank and consistency decisions (certified, else the SVD), the same candidates, bounds, point
tests and stopping rule, in nondimensional units throughout.

*Pending modes.* Near rest the strict-slack LP of some candidates is degenerate (its optimum
floats at ``|q̈'| ~ 10⁷``) and the batch leaves it undecided; the second solve and the exact LP
(about 0.13 ms each, 8–9 per step at the first steps after the at-rest start) are then run only
where the answer can depend on the mode (``_Modes``, ``_search``): before a pending
mode is examined as a candidate, when the point test finds ``τ°`` in a pending mode's ``T_c'``,
and for every pending mode before the slow path. Until then the mode is treated as possibly
feasible (it gets a response, a domain and a bound LP with the others); resolved infeasible, it
is dropped as if never enumerated. The answer is the one with every mode decided first (the
stopping rule needs no decision: dropping a candidate only lowers the next ``β``);
``n_modes`` counts the modes known feasible and ``n_pending`` those left undecided
(``MaxThrustResult``).

Boundary convention (ties)
--------------------------
``T*_c`` follows ``polytopes.regions``: pieces are closures, and a ``T_c'`` meeting ``K`` in a
set of lower dimension (typically the friction-cone edge shared by an ``F`` mode and the adjacent
``L``/``R`` mode) removes nothing. The *value* ``θ̈*_c`` is the maximum over these closures (what
the slow reference computes). When the maximizer lies on a removed (full-dimensional) ambiguity
set — a tie with the ambiguous region — the applied torque is pulled into the winning piece,
``τ = τ° + NUDGE·(centre − τ°)`` (``centre`` the piece's Chebyshev centre, ``NUDGE`` = 1 %),
so it lies in the piece's relative interior and therefore outside every removed set; the prediction
reported is ``θ̈_c`` at that torque (at most 1 % of the piece's θ̈ spread below the closure maximum).

Velocity classification
-----------------------
The compliant simulator's contacts are not rigid: the body corner sinks into and rises out of its
penalty ground (up to ~4 cm/s), and the rigid toe velocity lacks the leg's radial rate (~3 cm/s),
so normal contact velocities of touching contacts scatter around zero (measured over blind flips at
μ_t = 0.39/0.6: −0.048 … +0.025 m/s while the simulator reports contact). The rigid model has no
impact law (an approaching contact raises ``ApproachingContactError``),
so before enumeration the controller replaces every normal velocity ``v_n <= normal_velocity_tol``
(default 0.03 m/s) by 0 — the contact is *persistent* (Sec. IV-C.3: interval tests instead of
equalities) — and leaves larger ones (lift-off, ``S`` only). Tangential velocities keep the paper's
``v0`` thresholds. The same classified system is used for the slow reference.

Statuses (counted in ``MaxThrustController.counts``, logged per step)
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
``MaxThrustController.errors``). Lifted toes (left out of the rigid model) are ``S`` in the
logged 4-letter modes (``expand_mode``).

Speed
-----
Measured by ``benchmarks/bench_flip_step.py`` (whole flips at μ_t 0.39 and 0.6, this code against
the previous code in one run); the numbers, the targets met and not met, and what the tests
compare are in ``docs/realtime.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
import weakref
from typing import NamedTuple

import numpy as np

from contactmodes.analysis.ambiguity import unambiguous
from contactmodes.analysis.domains import intersect_domains
from contactmodes.realtime.plan import W_BOUND, Layout, StepCounters, Structure, domain_lp_rows, scaled_terms
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.model.scaling import ScaledTerms, scale_terms, scaled_system_fields
from contactmodes.analysis.session import AnalysisSession
from contactmodes.tolerances import AMBIGUITY_ATOL
from contactmodes.realtime import kernels
from polytopes import Polytope, batchlp, batchlp_kernel, difference
from polytopes import lp

from .limits import torque_limits
from .params import RHexParams
from .rigid_model import (COORDINATES, PITCH_INDEX, TORQUES, RigidArrays, RigidModel, expand_mode,
                          rigid_arrays, task_constraint)
from .simulator import ControlOutput, initial_state, leg_kinematics

__all__ = [
    "MaxThrustController",
    "MaxThrustRecord",
    "MaxThrustResult",
    "ReferenceResult",
    "controller_model",
    "max_thrust",
    "max_thrust_reference",
    "step_time_stats",
    "NORMAL_VELOCITY_TOL",
    "STATUSES",
    "PATHS",
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
be met to within ``POINT_TOL · max(1, ‖τ°‖∞, scale)`` (nondimensional torques; generous on
purpose: near-boundary points go to the exact slow path)."""
TIE_TOL = 1e-9
"""Relative tolerance (× ``max(1, |θ̈|)``) of the stopping rule ``best >= β_next``."""
SLACK_CAP = 1e6
PRECOMPUTE_STEPS = 10
"""Control periods of the constructor's dry run from the at-rest start (module doc, *Real time*):
the velocity patterns met there (113, 120 and 64 modes in the default flips) get their layouts
and pivots before the run."""
"""Upper bound of the point test's slack variable (a point outside by more is outside)."""

S_MATRIX = np.vstack([np.zeros((3, 3)), np.eye(3)])
"""The rigid model's actuator map ``S`` (hip torques on ``phi1..phi3``)."""


class MaxThrustRecord(NamedTuple):
    """One controller step: ``t`` (s), ``mode`` (4 letters or ``None``), ``predicted`` θ̈ (rad/s²,
    NaN if none), ``wall_time`` (s), ``n_modes`` modes known to be kinematically feasible,
    ``status`` (module doc: ``"optimal"``, ``"ambiguous"``, ``"task_dropped"``,
    ``"task_dropped_ambiguous"``, ``"no_mode"``, ``"error"``), ``n_examined`` candidates examined
    for ambiguity, ``n_slow`` of them through the slow path, ``n_projections`` polytope
    projections done, ``cpu_time`` (s, this thread's CPU time for the step), ``path``
    (``PATHS``), ``n_pending`` candidates whose kinematic feasibility the step did not need
    to decide (``MaxThrustResult.n_pending``)."""

    t: float
    mode: str | None
    predicted: float
    wall_time: float
    n_modes: int
    status: str
    n_examined: int
    n_slow: int
    n_projections: int
    cpu_time: float = math.nan
    path: str = "fast"
    n_pending: int = 0


@dataclasses.dataclass
class MaxThrustResult:
    """Result of ``max_thrust`` at one state.

    ``tau`` (3,) N·m; ``mode`` over the model's contacts (``None`` when no mode is left);
    ``mode4`` 4-letter form; ``value`` predicted θ̈ (rad/s²) at ``tau``; ``closure_value`` the
    maximum over the closure of ``T*_c ∩ L`` (equal to ``value`` unless nudged); ``status`` (module
    doc); ``n_examined``, ``n_slow``, ``n_projections`` work counters; ``n_modes`` the modes
    known to be kinematically feasible (footnote 5) and ``n_pending`` the candidates left
    undecided: near rest the batched kinematic test leaves some strict-slack LPs undecided, and
    the step decides them (exact LP) only where its answer may depend on them (``max_thrust``,
    ``lazy``); so ``n_modes <= |M_f| <= n_modes + n_pending``, with ``n_modes = |M_f|`` (the
    enumeration's count) when ``n_pending`` is 0; ``bounds`` ``{mode: β_c}`` over the candidates
    known feasible; ``values`` ``{mode: θ̈*_c}`` for the examined modes (``-inf`` when ``T*_c ∩ L``
    is empty); ``nudged`` whether the tie rule moved the torque; ``lp_fallbacks`` the LPs the fast
    path handed to the exact solvers (``polytopes.lp.solve_verified``, the enumeration's
    kinematic LP), ``svd_fallbacks`` the responses it computed by the SVD (uncertified pivots),
    ``fallbacks`` their sum (``PATHS``).
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
    fallbacks: int = 0
    lp_fallbacks: int = 0
    svd_fallbacks: int = 0
    n_pending: int = 0


# ----------------------------------------------------------------------------------- the step's model


@functools.lru_cache(maxsize=32)
def _task_rows(k: int, min_normal_force: float) -> tuple:
    """``(qdd, f, tau, rhs)`` of ``task_constraint`` for ``k`` contacts (read-only
    arrays; the row depends on nothing else, so it is built once per ``k``, not per step)."""
    tc = task_constraint(k, dataclasses.replace(RHexParams(), min_body_normal_force=min_normal_force))
    rows = (tc.qdd.copy(), tc.f.copy(), tc.tau.copy(), tc.rhs.copy())
    for a in rows:
        a.flags.writeable = False
    return rows


def _pitch_objective(structure: Structure) -> np.ndarray:
    """The plan's objective of this controller: the unit vector of the pitch acceleration θ̈'
    over ``(q̈, f, τ)`` of ``structure`` (``Layout.responses``)."""
    return structure.objective(qdd=np.eye(structure.n_q)[PITCH_INDEX])


def _classified(v_contact: np.ndarray, normal_velocity_tol: float) -> np.ndarray:
    """Normal velocities ``<= normal_velocity_tol`` (m/s) set to 0 (module doc), (2k,)."""
    tol = max(0.0, float(normal_velocity_tol))
    v = np.asarray(v_contact, dtype=float).reshape(-1).tolist()  # a few contacts: Python floats
    for i in range(1, len(v), 2):
        if v[i] <= tol and abs(v[i]) > 0.0:
            v[i] = 0.0
    return np.array(v)


class StepModel:
    """The rigid model of one state as the controller sees it (module doc): closed-form terms
    (``rigid_arrays``), classified velocities, scaled terms
    (``contactmodes.model.scaling.scale_terms``) and the velocity pattern (on the scaled velocities).
    ``scaled_system`` builds the nondimensional ``ContactSystem``
    from the scaled terms on first use (the slow path's); ``system`` and ``session`` the
    SI one and its ``AnalysisSession`` (the reference's).
    ``classify=False`` keeps the measured normal velocities (the blind controller's model; an
    approaching contact is then not an error); ``kinematics`` the state's
    ``leg_kinematics`` when the caller has it."""

    def __init__(self, state, params: RHexParams, normal_velocity_tol: float = NORMAL_VELOCITY_TOL,
                 classify: bool = True, kinematics=None) -> None:
        self.params = params
        self.arrays: RigidArrays = rigid_arrays(state, params, kinematics)
        ra = self.arrays
        self.contacts = ra.contacts
        self.v_contact = _classified(ra.v_contact, normal_velocity_tol) if classify else ra.v_contact
        # the sessions' rule (contactmodes.model.scaling.scale_terms) in one compiled call: the same numbers
        self.terms: ScaledTerms = scaled_terms(ra.M, ra.h, S_MATRIX, ra.J, ra.Jdot_qdot, self.v_contact, ra.v0,
                                               ra.scales, [_task_rows(len(ra.contacts), params.min_body_normal_force)])
        self.pattern = classify_arrays(self.terms.v_contact, self.terms.v0, 1.0, ra.contacts,
                                       check_approaching=classify)
        self._system = None
        self._scaled_system = None
        self._session = None

    @property
    def system(self):
        """The ``ContactSystem`` (task on, classified velocities)."""
        if self._system is None:
            from contactmodes.model.system import ContactSystem

            ra = self.arrays
            self._system = ContactSystem(
                M=ra.M, h=ra.h, S=S_MATRIX, J=ra.J, Jdot_qdot=ra.Jdot_qdot, v_contact=self.v_contact, mu=ra.mu,
                coordinates=COORDINATES, torques=TORQUES, contacts=ra.contacts, v0=ra.v0,
                constraints=(task_constraint(len(ra.contacts), self.params),), name="rhex_rigid", scales=ra.scales)
        return self._system

    @property
    def scaled_system(self):
        """The nondimensional ``ContactSystem`` of the step (task
        on, classified velocities), built once from ``terms``
        (``contactmodes.model.scaling.scaled_system_fields``): the system a session of
        ``system`` decides on (``system.scaling.system``, the same numbers bit for bit:
        ``terms`` are that session's rule), without building, validating and
        nondimensionalizing ``system`` first. Its scales are marked nondimensional, so its
        own scaling is the identity. The slow path's session is of this system
        (``_Modes.session``)."""
        if self._scaled_system is None:
            from contactmodes.model.system import ContactSystem

            ra = self.arrays
            fields = scaled_system_fields(self.terms, (task_constraint(len(ra.contacts), self.params),), ra.scales)
            self._scaled_system = ContactSystem(mu=ra.mu, coordinates=COORDINATES, torques=TORQUES,
                                                contacts=ra.contacts, name="rhex_rigid", **fields)
        return self._scaled_system

    @property
    def session(self) -> AnalysisSession:
        """An ``AnalysisSession`` of ``system`` (built once):
        the reference's (``max_thrust_reference``), which nondimensionalizes and enumerates
        the modes itself, independently of the fast path."""
        if self._session is None:
            self._session = AnalysisSession(self.system)
        return self._session

    @property
    def model(self) -> RigidModel:
        """The ``RigidModel`` of the step (closed-form terms)."""
        ra = self.arrays
        return RigidModel(self.system, ra.contacts, ra.q, ra.qdot, None)


def controller_model(state, params: RHexParams, normal_velocity_tol: float = NORMAL_VELOCITY_TOL):
    """Rigid model at ``state`` (18,) with the velocity classification of the module doc.

    Returns ``(model, system, n_clamped)``: the ``RigidModel`` (closed-form
    terms, task on), its ``ContactSystem`` with normal velocities
    ``<= normal_velocity_tol`` (m/s) set to 0, and how many contacts were changed by more than the
    zero threshold of Table III.
    """
    sm = StepModel(state, params, normal_velocity_tol)
    v0 = sm.arrays.v_contact.reshape(-1, 2)
    eps = sm.pattern.threshold * sm.terms.velocity
    n = int(np.sum((v0[:, 1] != sm.v_contact.reshape(-1, 2)[:, 1]) & (np.abs(v0[:, 1]) > eps)))
    return sm.model, sm.system, n


# ----------------------------------------------------------------------------------- the fast path


@dataclasses.dataclass(slots=True)
class _Counters(StepCounters):
    """The work counts of one ``max_thrust`` call: the plan's
    (``StepCounters``: the kinematic test's LPs and their second
    solves and exact LPs, the responses and their SVDs) with the bound and point-test LPs added to
    ``lps`` and ``fallback_lps``, and ``projections`` the polytope projections of the slow path
    (``_slow``). They become ``MaxThrustResult``'s ``n_projections``, ``lp_fallbacks``
    (``fallback_lps``), ``svd_fallbacks`` (``svd_responses``) and ``fallbacks``."""

    projections: int = 0


@dataclasses.dataclass(slots=True)
class _WarmStarts:
    """The bound LPs' warm starts of one ``Layout``
    (``_bound_lps``), kept across steps by ``_Engine``.

    ``width`` the number of ``w`` columns of the layout's bound LPs (the largest real ``n_w`` any
    of its feasible modes has had; 0 before the first step); ``bases`` per task flag (``True``:
    with the task rows, ``False``: without) an ``(N, 3 + width)`` int64 array, the last optimal
    basis of each of the layout's ``N`` candidates (``-1``: none yet). Widening the LPs drops
    both arrays."""

    width: int = 0
    bases: dict[bool, np.ndarray] = dataclasses.field(default_factory=dict)


class _Modes:
    """The fast path's data of one step: the layout's candidate modes that are kinematically
    feasible or not decided yet, their responses and domains (nondimensional), and the per-mode
    work of the search.

    *Pending modes.* Near rest some strict-slack LPs of footnote 5 are degenerate and the batched
    kinematic test leaves them undecided (``kinematic_test``).
    With ``lazy`` (the default) such a mode is *pending*: it is treated as possibly feasible (it
    gets a response, a domain and a bound LP with the others) and ``resolve`` decides it — by
    ``resolve``, the decision
    ``kinematic`` takes — only when the search's answer may depend
    on it (``_search``); a mode resolved infeasible is dropped (``alive`` false), as if it had
    never been a candidate. ``lazy=False`` resolves every pending mode first. Positions (``j``)
    index ``names``, ``index`` and the arrays below.

    ``warm`` the layout's bound-LP warm starts (``_WarmStarts``, kept across steps by the
    ``_Engine``); ``counters`` the step's work counts (``_Counters``), added to by every
    helper of the step that is given this object. ``session`` is the slow path's
    ``AnalysisSession`` (built on first use)."""

    def __init__(self, layout: Layout, banks, warm: _WarmStarts, counters: _Counters, lazy: bool = True) -> None:
        self.layout = layout
        self.warm = warm
        self.counters = counters
        self.kin = layout.kinematic_test(banks, counters)
        if not lazy:
            self.kin.resolve(self.kin.pending())
        undecided = ~self.kin.decided
        self.n_pending = int(np.count_nonzero(undecided))  # pending now (kept up to date by resolve)
        self.n_dropped = 0  # pending modes resolved infeasible
        self.index = (self.kin.feasible | undecided).nonzero()[0]  # the known feasible and the pending
        self.pending = undecided[self.index]
        self.alive = np.empty(self.index.size, dtype=bool)  # not resolved infeasible
        self.alive.fill(True)
        self.names = [layout.modes[i] for i in self.index.tolist()]
        self.resp = layout.responses(banks, self.index, _pitch_objective(layout.structure), counters)
        self.dom = layout.domains(banks, self.resp)
        r = self.resp
        self.grad = r.grad
        self.offset = r.offset
        self.unique = r.unique
        A, b = self.dom.A, self.dom.b
        zero = ~(A != 0.0).any(axis=2)
        bad = zero & (b < 0.0) & self.dom.valid
        self.feasible_u = r.consistent & ~(bad & ~self.dom.task).any(axis=1)
        self.feasible_t = r.consistent & ~bad.any(axis=1)
        self._point_rows = None
        self._session: AnalysisSession | None = None

    def resolve(self, pos) -> np.ndarray:
        """Decide the pending modes among the positions ``pos`` (class doc); returns ``alive[pos]``
        (whether each is a kinematically feasible mode)."""
        pos = np.asarray(pos, dtype=np.int64)
        todo = pos[self.pending[pos]]
        if todo.size:
            feasible = self.kin.resolve(self.index[todo])
            self.alive[todo] = feasible
            self.pending[todo] = False
            self.n_pending -= todo.size
            self.n_dropped += todo.size - int(feasible.sum())
        return self.alive[pos]

    def resolve_all(self) -> None:
        """Decide every pending mode (before anything that uses the whole mode set)."""
        if self.n_pending:
            self.resolve(self.pending.nonzero()[0])

    def session(self, step: StepModel) -> AnalysisSession:
        """The slow path's ``AnalysisSession`` of ``step`` (the
        step these modes were computed for), built once: of the step's nondimensional system
        (``StepModel.scaled_system``, from the scaled terms the layout used) with the
        layout's kinematic decisions as its enumeration
        (``enumeration``, every pending mode resolved
        first) — nothing is nondimensionalized or enumerated again. Its modes are the
        enumeration's (``enumerate_modes`` on the SI system)
        and its numbers those of a session of the SI system (module doc, *Real time*)."""
        if self._session is None:
            self.resolve_all()
            self._session = AnalysisSession(step.scaled_system, enumeration=self.kin.enumeration(step.pattern))
        return self._session

    def any_feasible(self, pos: np.ndarray) -> bool:
        """Whether any of the modes ``pos`` (not dropped) is kinematically feasible: resolves the
        pending ones among them only when none of them is known feasible."""
        if not self.n_pending or not self.pending[pos].all():
            return bool(pos.size)
        return bool(self.resolve(pos).any())

    def others(self, j: int) -> np.ndarray:
        """The positions of the modes other than ``j`` not known to be infeasible."""
        if self.n_dropped:
            others = self.alive.nonzero()[0]
            return others[others != j]
        others = np.arange(len(self.names) - 1)  # every position but j
        others[j:] += 1
        return others

    @property
    def n_modes(self) -> int:
        """Modes known to be kinematically feasible (decided by the batch, or resolved)."""
        return len(self.names) - self.n_pending - self.n_dropped

    @property
    def point_rows(self):
        """``(An, bn, bscale, w_used)``: the untasked rows of every domain divided by their norms
        (others ``0 <= 1``), each mode's largest ``|bn|``, and which real ``w`` columns enter
        its rows — the NumPy point test's data (``_inside``), computed on first use."""
        if self._point_rows is None:
            A, b = self.dom.A, self.dom.b
            keep = self.dom.valid & ~self.dom.task
            nrm = np.sqrt(np.sum(A ** 2, axis=2))
            nrm = np.where(nrm > 0.0, nrm, 1.0)
            An = np.where(keep[:, :, None], A / nrm[:, :, None], 0.0)
            bn = np.where(keep, b / nrm, 1.0)
            bscale = np.max(np.where(keep, np.abs(bn), 0.0), axis=1, initial=0.0)
            self._point_rows = (An, bn, bscale, np.any(An[:, :, 3:] != 0.0, axis=1) & self.resp.wfree)
        return self._point_rows


def _bound_lps(md: _Modes, sel: np.ndarray, lo, hi, task: bool):
    """``β_c`` and ``τ°_c`` of the modes ``sel`` (positions in ``md``) by one batched LP each over
    ``D_c ∩ L`` in ``(τ, w)`` (with or without the task rows); ``(sel, bound (len(sel),), tau0
    (len(sel), 3))``, ``-inf`` / NaN where that set is empty, ``sel`` without the pending modes
    resolved infeasible here (those whose ``n_w`` would widen the LPs). Warm-started from and
    updating ``md.warm``; ``md.counters.lps`` and ``.fallback_lps`` counted."""
    # only the real ambiguity columns: as many w columns as the most any mode of the layout has had
    # (a layout-wide width, so that the warm starts keep their meaning from step to step); a pending
    # mode that would widen the LPs is resolved first (the width is that of the feasible modes)
    warm, counters = md.warm, md.counters
    n_w = md.resp.n_w
    if md.n_pending:
        wide = sel[n_w[sel] > max(int(n_w[sel[~md.pending[sel]]].max(initial=0)), warm.width)]
        if wide.size:
            md.resolve(wide)
            sel = sel[md.alive[sel]]
    nsel = sel.size
    if nsel == 0:
        return sel, np.full(0, -math.inf), np.full((0, 3), np.nan)
    s = max(int(n_w[sel].max()), warm.width)  # the pending modes left do not widen it
    if s != warm.width:  # wider LPs: the bases of the narrower ones are dropped
        warm.bases.clear()
        warm.width = s
    G, h, lo_, hi_, art = domain_lp_rows(md.resp, md.dom, sel, lo, hi, task, width=s)
    grad = md.grad[sel]
    cost = np.zeros((nsel, 3 + s))
    cost[:, :3] = -grad
    # warm starts: one row per candidate of the layout (``-1``: none yet, the box vertex is used)
    bases = warm.bases.get(task)
    if bases is None:
        bases = warm.bases[task] = np.full((len(md.layout.modes), 3 + s), -1, dtype=np.int64)
    pos = md.index[sel]
    res = batchlp.solve_batch(cost, G, h, lo_, hi_, art, bases[pos])
    bases[pos] = res.basis
    counters.lps += nsel
    counters.fallback_lps += res.n_fallback
    ok = (res.status == lp.OPTIMAL)[:, None]
    tau0 = np.where(ok, np.minimum(np.maximum(res.x[:, :3], lo), hi), np.nan)  # clipped (x is NaN unless optimal)
    bound = np.einsum("bi,bi->b", grad, tau0) + md.offset[sel]
    return sel, np.where(ok[:, 0], bound, -math.inf), tau0


def _inside(md: _Modes, others: np.ndarray, tau: np.ndarray, kernel: str = "auto") -> np.ndarray:
    """(len(others),) whether ``tau`` (3,) lies in ``T_c'`` (untasked) of each mode position in
    ``others`` up to ``POINT_TOL`` (module doc): row checks, then one batched max-slack LP for
    the modes whose ``w`` enters their rows. ``kernel``: ``"numpy"`` (the reference below),
    ``"compiled"`` (the row checks and the LPs' rows by
    ``contactmodes.realtime.kernels.point_test_kernel``) or ``"auto"`` (compiled when numba is
    installed). The max-slack LPs are counted in ``md.counters`` (``lps``, ``fallback_lps``)."""
    out = np.zeros(others.size, dtype=bool)
    if others.size == 0:
        return out
    if kernel == "compiled" or (kernel == "auto" and kernels.AVAILABLE):
        return _inside_compiled(md, others, tau)
    r = md.resp
    An_all, bn, bscale, w_used = md.point_rows
    ok = md.feasible_u[others]
    tol = POINT_TOL * np.maximum(max(1.0, float(np.abs(tau).max())), bscale[others])
    eq = np.where(r.cvalid[others], np.abs(np.einsum("bij,j->bi", r.C[others], tau) - r.d[others]), 0.0)
    ok &= np.max(eq, axis=1, initial=0.0) <= tol
    An = An_all[others]
    rhs = bn[others] - np.einsum("bpi,i->bp", An[:, :, :3], tau)
    uses_w = np.any(w_used[others], axis=1)
    direct = ok & ~uses_w
    out[direct] = np.min(rhs[direct], axis=1, initial=np.inf) >= -tol[direct]
    lpsel = np.flatnonzero(ok & uses_w)
    if lpsel.size:
        o = others[lpsel]
        Aw = An[lpsel][:, :, 3:]
        rowv = md.dom.valid[o] & ~md.dom.task[o]
        s = Aw.shape[2]
        G = np.concatenate([Aw, -rowv[:, :, None].astype(float)], axis=2)
        h = np.where(rowv, rhs[lpsel], 1.0)
        cost = np.zeros((lpsel.size, s + 1))
        cost[:, -1] = 1.0
        wf = r.wfree[o]
        lo_ = np.concatenate([np.where(wf, -W_BOUND, 0.0), -np.ones((lpsel.size, 1))], axis=1)
        hi_ = np.concatenate([np.where(wf, W_BOUND, 0.0), np.full((lpsel.size, 1), SLACK_CAP)], axis=1)
        art = np.concatenate([wf, np.zeros((lpsel.size, 1), bool)], axis=1)
        res = batchlp.solve_batch(cost, G, h, lo_, hi_, art)
        md.counters.lps += int(lpsel.size)
        md.counters.fallback_lps += res.n_fallback
        out[lpsel] = (res.status == lp.OPTIMAL) & (res.fun <= tol[lpsel])
    return out


def _inside_compiled(md: _Modes, others: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """``_inside`` through ``contactmodes.realtime.kernels.point_test_kernel``."""
    r, dom = md.resp, md.dom
    K, (p, nz) = others.size, dom.A.shape[1:]
    s = nz - 3
    state, tol = np.empty(K, dtype=np.int64), np.empty(K)
    G, h = np.empty((K, p, s + 1)), np.empty((K, p))
    lo_, hi_, art = np.empty((K, s + 1)), np.empty((K, s + 1)), np.empty((K, s + 1), dtype=bool)
    kernels.point_test_kernel(dom.A, dom.b, dom.valid, dom.task, r.C, r.d, r.cvalid, r.wfree, md.feasible_u,
                                    np.asarray(others, dtype=np.int64), np.asarray(tau, dtype=float), POINT_TOL,
                                    W_BOUND, SLACK_CAP, state, tol, G, h, lo_, hi_, art)
    out = state == 1
    lpsel = (state == 2).nonzero()[0]
    if lpsel.size:
        cost = np.zeros((lpsel.size, s + 1))
        cost[:, -1] = 1.0
        res = batchlp.solve_batch(cost, G[lpsel], h[lpsel], lo_[lpsel], hi_[lpsel], art[lpsel])
        md.counters.lps += int(lpsel.size)
        md.counters.fallback_lps += res.n_fallback
        out[lpsel] = (res.status == lp.OPTIMAL) & (res.fun <= tol[lpsel])
    return out


# ----------------------------------------------------------------------------------- the slow path


def _limit_rows(lo, hi, n_w: int):
    E = np.hstack([np.eye(3), np.zeros((3, n_w))])
    return np.vstack([E, -E]), np.concatenate([hi, -lo])


def _meets(session: AnalysisSession, K: Polytope, mode: str) -> bool:
    """Whether ``K`` (over τ') meets ``T_c'`` (untasked) — one feasibility LP over ``(τ', w')``."""
    sol = session.mode(mode)
    D, trivially = sol.raw_scaled(False)
    if trivially:
        return False
    nw = D.dim - 3
    pad = lambda M: np.hstack([M, np.zeros((M.shape[0], nw))])  # noqa: E731
    A = np.vstack([pad(K.A), D.A])
    b = np.concatenate([K.b, D.b])
    C = np.vstack([pad(K.C), D.C])
    d = np.concatenate([K.d, D.d])
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


def _slow(session: AnalysisSession, mode: str, others: list, lo, hi, counters: _Counters, task: bool = True):
    """Exact ``max θ̈' over T*_c ∩ L`` (closures, nondimensional) for candidate ``mode`` through the
    session: ``(value, tau, nudged, closure)``; ``task=False`` drops the task row from ``T_c``.
    ``counters.projections`` += the polytope projections done."""
    sol = session.mode(mode)
    resp = sol.response_scaled(task)
    grad, offset = resp.P_q[PITCH_INDEX], float(resp.r_q[PITCH_INDEX])
    K = sol.projected_scaled(_limit_rows(lo, hi, resp.n_w), task=task)
    counters.projections += 1
    if K is None:
        return -math.inf, None, False, -math.inf
    dim = K.affine_dimension()
    removed = []
    for o in others:
        if not _meets(session, K, o):
            continue
        To = session.mode(o).T_scaled(False)
        counters.projections += 1 if session.mode(o).response_scaled(False).n_w else 0
        if To is None:
            continue
        # subtract K ∩ T_c' (as across_mode_sets does), not T_c' itself: the closure splitting of
        # polytopes.difference differs between the two on degenerate (lower-dimensional) K
        inter = intersect_domains(K, To)
        if inter is not None and inter.affine_dimension() == dim:
            removed.append(inter)
    pieces = difference(K, removed) if removed else [K]
    val, tau, piece = _maximize_pieces(pieces, grad, offset)
    if tau is None:
        return -math.inf, None, False, -math.inf
    tau = np.asarray(tau, dtype=float)
    nudged = False
    if removed and any(T.contains(tau) for T in removed):
        centre = piece.chebyshev_center().center
        tau = tau + NUDGE * (centre - tau)
        nudged = True
    return float(grad @ tau + offset), tau, nudged, val


# ----------------------------------------------------------------------------------- the search


def _search(md: _Modes, step: StepModel, lo, hi, task: bool, force_slow: bool):
    """The lazy all-mode search of the module doc (nondimensional torques ``lo``, ``hi``).

    Returns ``(best, cands, values, n_exam, n_slow)``: ``best`` = ``(value, tau, mode, nudged,
    closure)`` or ``None`` (no mode with a non-empty ``T*_c ∩ L``); ``cands`` ``[(mode, β, τ°)]``
    with a non-empty ``D_c ∩ L`` in decreasing bound order (without the modes resolved infeasible;
    pending modes after the stop may remain).

    Pending modes (``_Modes``) are resolved only where the answer can depend on them, so the
    answer is the one with every mode decided first: a pending candidate before it is examined
    (the stop test before that needs no decision: removing a candidate only lowers the next ``β``);
    a pending mode whose ``T_c'`` the point test finds ``τ°`` in (if it is feasible, the slow path
    runs); every pending mode before the slow path (its ``others`` are the whole mode set)."""
    feas = md.feasible_t if task else md.feasible_u
    sel = (md.unique & feas & md.alive).nonzero()[0]
    sel, bound, tau0 = _bound_lps(md, sel, lo, hi, task)
    order = (-bound).argsort(kind="stable").tolist()
    sel_l, bound_l = sel.tolist(), bound.tolist()
    cands = [(sel_l[i], bound_l[i], tau0[i]) for i in order if math.isfinite(bound_l[i])]
    best = None
    n_exam = n_slow = 0
    values = {}
    for j, beta, t0 in cands:
        if best is not None and best[0] >= beta - TIE_TOL * max(1.0, abs(beta)):
            break
        if md.n_pending and md.pending[j] and not md.resolve([j])[0]:
            continue  # not kinematically feasible: never a candidate
        n_exam += 1
        others = md.others(j)
        slow = force_slow
        if not slow:
            inside = _inside(md, others, t0)
            slow = bool(inside.any()) and md.any_feasible(others[inside])
        if not slow:
            val, tau, nudged, closure = beta, t0, False, beta
        else:
            n_slow += 1
            session = md.session(step)  # resolves every pending mode first
            others = md.others(j)
            val, tau, nudged, closure = _slow(session, md.names[j], [md.names[i] for i in others], lo, hi,
                                              md.counters, task)
        values[md.names[j]] = val
        if tau is not None and (best is None or val > best[0]):
            best = (val, tau, j, nudged, closure)
    return best, [c for c in cands if md.alive[c[0]]] if md.n_dropped else cands, values, n_exam, n_slow


class _Engine:
    """Structures, layouts and warm starts kept across steps (module doc, *Real time*).

    ``structures`` one ``Structure`` per set of present contacts
    (each keeps its ``Layout`` per velocity pattern and, on the
    layout, the kinematic LPs' warm starts); ``warm`` the bound LPs' warm starts of each layout
    (``_WarmStarts``), keyed by the layout object itself in a
    ``weakref.WeakKeyDictionary``. Keyed by the object, not by ``id(layout)``: an id can be
    reused by a new object once the old one is collected, and bases sized and indexed for one
    layout's modes would then warm-start another's; a weak key compares by identity while the
    layout is alive and its entry goes with it. Not stored on the layout: the bound LPs (their
    rows, the width rule of ``_bound_lps``) are this controller's, not the plan's."""

    def __init__(self, params: RHexParams) -> None:
        self.params = params
        self.structures: dict[tuple, Structure] = {}
        self.warm: weakref.WeakKeyDictionary[Layout, _WarmStarts] = weakref.WeakKeyDictionary()

    def structure(self, step: StepModel) -> Structure:
        st = self.structures.get(step.contacts)
        if st is None:
            st = Structure(6, 3, step.contacts, step.arrays.mu, [("task", "geq", 1)])
            self.structures[step.contacts] = st
        return st

    def modes(self, step: StepModel, counters: _Counters | None = None, lazy: bool = True) -> _Modes:
        """The ``_Modes`` of ``step`` on its layout (built on first use) with that layout's
        warm starts; ``counters`` the step's work counts (new ones if ``None``)."""
        st = self.structure(step)
        layout = st.layout(step.pattern)
        warm = self.warm.get(layout)
        if warm is None:
            warm = self.warm[layout] = _WarmStarts()
        return _Modes(layout, st.banks(step.terms), warm, _Counters() if counters is None else counters, lazy)


def max_thrust(step: StepModel, lo, hi, force_slow: bool = False, engine: _Engine | None = None,
               lazy: bool = True) -> MaxThrustResult:
    """The lazy max-thrust optimization of the module doc at one state.

    ``step`` the ``StepModel`` of the state; ``lo``, ``hi`` (3,) torque bounds (N·m).
    ``force_slow`` skips the fast point test (every examined candidate goes through the slow path;
    for tests); ``engine`` the structures and warm starts kept across steps (a fresh one if
    ``None``); ``lazy`` (default) resolves the modes the batched kinematic test leaves undecided
    only where the answer may depend on them (``_Modes``, ``_search``: the same answer),
    ``lazy=False`` resolves them all first (then ``n_pending`` is 0). When no mode meets the task
    constraint the search is repeated with the task row dropped (status ``"task_dropped"`` /
    ``"task_dropped_ambiguous"``); when not even that leaves a mode, zero torque with status
    ``"no_mode"`` (prediction NaN). Errors of the LPs propagate.
    """
    engine = engine or _Engine(step.params)
    u = step.terms.tau
    s_theta = float(step.terms.qdd[PITCH_INDEX])
    lo_u = np.asarray(lo, dtype=float)
    hi_u = np.asarray(hi, dtype=float)
    lo_s, hi_s = lo_u / u, hi_u / u
    md = engine.modes(step, _Counters(), lazy)
    cn = md.counters
    n_exam = n_slow = 0
    contacts = step.contacts

    def result(tau, mode, value, closure, status, bounds, values=None, nudged=False) -> MaxThrustResult:
        return MaxThrustResult(tau, mode, None if mode is None else expand_mode(mode, contacts), value, closure,
                               status, md.n_modes, n_exam, n_slow, cn.projections, bounds, values or {},
                               nudged=nudged, fallbacks=cn.fallbacks, lp_fallbacks=cn.fallback_lps,
                               svd_fallbacks=cn.svd_responses, n_pending=md.n_pending)

    for task, prefix in ((True, ""), (False, "task_dropped")):
        best, cands, values, e, s_ = _search(md, step, lo_s, hi_s, task, force_slow)
        n_exam, n_slow = n_exam + e, n_slow + s_
        bounds = {md.names[j]: b * s_theta for j, b, _ in cands if not (md.n_pending and md.pending[j])}
        values = {m: v * s_theta for m, v in values.items()}
        if best is not None:
            val, tau, j, nudged, closure = best
            tau_u = (np.asarray(tau) * u).clip(lo_u, hi_u)
            mode = md.names[j]
            if n_slow:
                resp = md.session(step).mode(mode).response_scaled(task)
                pred = float(resp.P_q[PITCH_INDEX] @ (tau_u / u) + resp.r_q[PITCH_INDEX]) * s_theta
            else:
                pred = float(md.grad[j] @ (tau_u / u) + md.offset[j]) * s_theta
            return result(tau_u, mode, pred, closure * s_theta, prefix or "optimal", bounds, values, nudged)
        if cands:  # every candidate was examined (so resolved): cands[0] is a feasible mode
            j, beta, t0 = cands[0]
            return result((t0 * u).clip(lo_u, hi_u), md.names[j], beta * s_theta, beta * s_theta,
                          f"{prefix}_ambiguous" if prefix else "ambiguous", bounds)
    return result(np.zeros(3), None, math.nan, math.nan, "no_mode", {})


# ----------------------------------------------------------------------------------- the reference


@dataclasses.dataclass
class ReferenceResult:
    """The slow reference at one state (user units): ``values`` ``{mode: θ̈*_c}`` (rad/s², ``-inf``
    when ``T*_c ∩ L`` is empty) over the kinematically feasible modes with a unique θ̈; ``best``
    the largest value; ``pieces`` ``{mode: [T*_c ∩ L pieces]}`` over the user's torques;
    ``response`` ``{mode: ModeResponse}`` (user units)."""

    values: dict
    best: float
    pieces: dict
    response: dict

    def optimal_modes(self, tol: float) -> list[str]:
        """The modes whose value is within ``tol`` of ``best``."""
        return [m for m, v in self.values.items() if v >= self.best - tol]


def max_thrust_reference(step: StepModel, lo, hi, task: bool = True) -> ReferenceResult:
    """Slow reference (``task=False``: with the task row dropped, status ``task_dropped``): one
    ``AnalysisSession`` of the step's system;
    ``contactmodes.analysis.ambiguity.unambiguous`` (``within_mode=False``) for every kinematically
    feasible mode with a unique θ̈, its pieces intersected with ``L`` and one LP per piece.
    Projects every mode's domain: for tests, not for control."""
    ses = step.session
    sc = ses.scaling
    lo_s = sc.tau_from_user(np.asarray(lo, dtype=float))
    hi_s = sc.tau_from_user(np.asarray(hi, dtype=float))
    L = Polytope.box(lo_s, hi_s)
    s_theta = float(sc.qdd[PITCH_INDEX])
    values, pieces, responses = {}, {}, {}
    for m in ses.enumeration.modes:
        resp = ses.mode(m).response_scaled(task)
        if resp.Q_q.shape[1] and np.abs(resp.Q_q[PITCH_INDEX]).max() > AMBIGUITY_ATOL:
            continue
        res = unambiguous(ses, m, task=task, within_mode=False)
        cut = [P.intersect(L) for P in res.scaled_pieces]
        val, _, _ = _maximize_pieces(cut, resp.P_q[PITCH_INDEX], float(resp.r_q[PITCH_INDEX]))
        values[m] = val * s_theta
        pieces[m] = [sc.polytope_to_user(P) for P in cut]
        responses[m] = ses.mode(m).response(task)
    best = max(values.values(), default=-math.inf)
    return ReferenceResult(values, best, pieces, responses)


STATUSES = ("optimal", "ambiguous", "task_dropped", "task_dropped_ambiguous", "no_mode", "error")
"""Every step status of ``max_thrust`` and ``MaxThrustController`` (module doc)."""
PATHS = ("fast", "slow", "fallback", "precomputed")
"""How a step was computed: ``"fast"`` (batched LPs and certified responses only), ``"slow"``
(the slow path's projections ran for some candidate), ``"fallback"`` (an LP or a response went
to the exact solvers, no slow path), ``"precomputed"`` (the at-rest start, module doc)."""


class MaxThrustController:
    """Max-thrust flipping controller (module doc); ``controller(t, state, params) -> ControlOutput``.

    Parameters
    ----------
    params : the robot as the controller models it (friction, velocity thresholds ``v0``, task
        threshold, ``normal_velocity_tol``).
    normal_velocity_tol : m/s, overrides ``params.normal_velocity_tol`` (velocity classification
        of the module doc).
    precompute : compute the at-rest start state's answer and every contact set's structure in
        the constructor (module doc, *Real time*; default true).

    Calling convention as ``BlindController``: ``__call__(t, state, params=None)``
    with ``state`` (18,) (``STATE_LAYOUT``); the rigid model uses the
    controller's ``params``, the torque limits the passed ``params`` (default the controller's).
    Returns ``ControlOutput(tau (3,) N·m, mode (4 letters: body, toe1..3, ``S`` for lifted toes;
    ``None`` without a mode), predicted θ̈ (rad/s²) or ``None``)``.

    Attributes: ``compile_seconds`` the time this constructor spent compiling the kernels (0 when
    an earlier controller of the process did), ``log`` list of ``MaxThrustRecord`` (one per step), ``counts`` (one entry per
    ``STATUSES`` plus ``"nudged"`` and ``"slow_steps"``), ``paths`` (one entry per
    ``PATHS`` plus ``"lp_fallbacks"`` and ``"svd_fallbacks"``, LPs and responses handed to
    the exact solvers), ``errors`` the messages of ``"error"`` steps (at most 10). ``reset``
    clears them (not the precomputed data).
    """

    def __init__(self, params: RHexParams | None = None, normal_velocity_tol: float | None = None,
                 precompute: bool = True) -> None:
        self.params = params or RHexParams()
        self.normal_velocity_tol = float(self.params.normal_velocity_tol if normal_velocity_tol is None
                                         else normal_velocity_tol)
        self.engine = _Engine(self.params)
        self._start = None
        # the compiled kernels (polytopes.batchlp_kernel, contactmodes.realtime.kernels) are compiled here, once per process,
        # outside every timed step; seconds spent in this constructor's call (0 if already done)
        self.compile_seconds = batchlp_kernel.compile_kernel() + kernels.compile_kernel()
        if precompute:
            self._precompute()
        self.reset()

    def _precompute(self) -> None:
        """The at-rest start (its answer at the hardware's zero hip speeds) and the structures of
        every set of present contacts there (module doc)."""
        p = self.params
        st0 = initial_state(p)
        lo, hi = torque_limits(leg_kinematics(st0, p).phidot, p)
        step = StepModel(st0, p, self.normal_velocity_tol)
        res = max_thrust(step, lo, hi, engine=self.engine, lazy=False)  # every mode decided: n_pending 0
        self._start = (st0, lo, hi, res)
        base = step.arrays
        for mask in range(8):  # every subset of lifted toes: pivots at the start configuration
            keep = [0] + [1 + i for i in range(3) if not (mask >> i) & 1]
            rows = [r for c in keep for r in (2 * c, 2 * c + 1)]
            contacts = tuple(base.contacts[c] for c in keep)
            if contacts in self.engine.structures:
                continue
            ra = dataclasses.replace(base, contacts=contacts, J=base.J[rows], Jdot_qdot=base.Jdot_qdot[rows],
                                     v_contact=base.v_contact[rows], mu=base.mu[keep], v0=base.v0[keep])
            tc = task_constraint(len(contacts), p)
            terms = scale_terms(ra.M, ra.h, S_MATRIX, ra.J, ra.Jdot_qdot, ra.v_contact, ra.v0, ra.scales,
                                [(tc.qdd, tc.f, tc.tau, tc.rhs)])
            st = Structure(6, 3, contacts, ra.mu, [("task", "geq", 1)])
            self.engine.structures[contacts] = st
            pattern = classify_arrays(terms.v_contact, terms.v0, 1.0, contacts)
            layout = st.layout(pattern)
            banks = st.banks(terms)
            layout.responses(banks, np.arange(len(layout.modes)), _pitch_objective(st))
        self._dry_run()

    def _dry_run(self) -> None:
        """The layouts of the velocity patterns met just after the start, and the pivots of their
        modes: the first ``PRECOMPUTE_STEPS`` control periods of the compliant model
        (``simulate``) from the at-rest start under this controller. Only the
        structure is kept (layouts, pivots): the LP warm starts are cleared, so the answers of
        the run do not depend on the dry run."""
        from .simulator import simulate

        if PRECOMPUTE_STEPS <= 0:
            return
        self.reset()
        simulate(self, self.params, duration=PRECOMPUTE_STEPS * self.params.control_period, stop_on_outcome=True)
        self.engine.warm.clear()
        for st in self.engine.structures.values():
            for layout in st.layouts.values():
                layout.basis.clear()

    def reset(self) -> None:
        """Clear the log, the counters and the error messages."""
        self.log: list[MaxThrustRecord] = []
        self.counts = {**{s: 0 for s in STATUSES}, "nudged": 0, "slow_steps": 0}
        self.paths = {**{s: 0 for s in PATHS}, "lp_fallbacks": 0, "svd_fallbacks": 0}
        self.errors: list[str] = []
        self.last = None

    def __call__(self, t: float, state, params: RHexParams | None = None) -> ControlOutput:
        p = params or self.params
        st = np.asarray(state, dtype=float)
        w0, c0 = time.perf_counter(), time.thread_time()
        path = "fast"
        try:
            lk = leg_kinematics(st, p)
            lo, hi = torque_limits(lk.phidot, p)
            start = self._start
            # (st, lo, hi have the start's shapes: leg_kinematics and torque_limits check them)
            if start is not None and (st == start[0]).all() and (lo == start[1]).all() and (hi == start[2]).all():
                res, path = start[3], "precomputed"
            else:
                # the rigid model uses the controller's params: reuse the leg kinematics only when
                # the limits were computed with the same params
                step = StepModel(st, self.params, self.normal_velocity_tol,
                                 kinematics=lk if p is self.params else None)
                res = max_thrust(step, lo, hi, engine=self.engine)
                path = "slow" if res.n_slow else ("fallback" if res.fallbacks else "fast")
        except Exception as exc:  # noqa: BLE001 - a failed step is recorded, the run goes on
            if len(self.errors) < 10:
                self.errors.append(f"t={t:.3f} s: {type(exc).__name__}: {exc}")
            res = MaxThrustResult(np.zeros(3), None, None, math.nan, math.nan, "error")
            path = "fallback"
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        self.counts[res.status] += 1
        self.counts["nudged"] += int(res.nudged)
        self.counts["slow_steps"] += int(res.n_slow > 0)
        self.paths[path] += 1
        if path != "precomputed":  # that answer's fallbacks were counted before the run
            self.paths["lp_fallbacks"] += res.lp_fallbacks
            self.paths["svd_fallbacks"] += res.svd_fallbacks
        self.last = res
        pred = res.value if math.isfinite(res.value) else None
        self.log.append(MaxThrustRecord(t, res.mode4, float("nan") if pred is None else pred, wall, res.n_modes,
                                        res.status, res.n_examined, res.n_slow, res.n_projections, cpu, path,
                                        res.n_pending))
        return ControlOutput(np.asarray(res.tau, dtype=float), res.mode4, pred)


def step_time_stats(log) -> dict:
    """``{"n", "median", "p90", "max", "mean"}`` of the step wall times (s) of a controller log."""
    w = np.array([r.wall_time for r in log], dtype=float)
    if w.size == 0:
        return {"n": 0, "median": math.nan, "p90": math.nan, "max": math.nan, "mean": math.nan}
    return {"n": int(w.size), "median": float(np.median(w)), "p90": float(np.percentile(w, 90)),
            "max": float(w.max()), "mean": float(w.mean())}
