"""Max-thrust flipping controller across all contact modes (flipping paper, Sec. IV-B.2, Fig. 4).

This is the generic unambiguous optimal controller (``controllers.generic``: the lazy search
``controllers.generic.search.optimize`` and the bookkeeping of
``controllers.generic.controller.OptimalControllerBase``) configured for RHex: the objective
``PITCH_OBJECTIVE`` (maximize θ̈), the task row, the motor box at the hip speeds, the rigid model
with its velocity classification (``StepModel``) and the precomputed at-rest start live here;
everything below that is not RHex-specific is done by the generic search.

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
where the answer can depend on the mode (``controllers.generic.search``): before a pending
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
the slow reference computes), attained at a point of the winning piece's boundary — a removed
set, a friction-cone edge, a zero toe force. The applied torque is the margin rule's
(``contactmodes.control.margin``, ``controllers.generic.search`` *Margin*): within the margin
(``MaxThrustController(margin=...)``, N·m; default ``MARGIN_RTOL`` times RHex's characteristic
torque at the start, about 0.048 N·m) of that point, in the motor box, with a ball of half the
margin (or the most there is) around it inside ``T_c`` and clear of the other modes; the
prediction reported is ``θ̈_c`` at that torque (within ``‖∂θ̈/∂τ‖`` times the margin of the
maximum). The modes chosen do not depend on the margin.

Velocity classification
-----------------------
The compliant simulator's contacts are not rigid: the body corner sinks into and rises out of its
penalty ground (up to ~4 cm/s), and the rigid toe velocity lacks the leg's radial rate (~3 cm/s),
so normal contact velocities of touching contacts scatter around zero (measured over blind flips at
μ_t = 0.39/0.6: −0.048 … +0.025 m/s while the simulator reports contact). Before enumeration the
controller therefore replaces every normal velocity ``v_n <= normal_velocity_tol`` (default 0.03
m/s, ``RHexParams``) by 0 — the contact is *persistent* (Sec. IV-C.3: interval tests instead of
equalities) — and leaves larger ones (lift-off, ``S`` only). Tangential velocities keep the paper's
``v0`` thresholds. The same classified system is used for the slow reference.

This is a documented, explicit parameter, not the toolkit's default: the generic controller
(``controllers.generic``) answers an approaching contact with the plastic impact law
(``controllers.generic.touchdown``) unless given a tolerance. RHex keeps its tolerance because
its approaching velocities are the penalty ground's scatter of contacts that persist, not
touchdowns: without it 70 of the 476 steps of the reference flip at μ_t = 0.39 and 176 of 536 at
0.6 would take an impact (measured; ``docs/impact.md``), and the
recorded reference flips (``tests/data/flip_steps/``) are this classification's.

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

import numpy as np

from contactmodes.analysis.ambiguity import unambiguous
from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.margin import default_margin
from contactmodes.control.spec import check_margin
from contactmodes.control.objective import LinearObjective
from contactmodes.model.scaling import ScaledTerms, scale_terms, scaled_system_fields
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.realtime.plan import Structure, scaled_terms
from contactmodes.tolerances import AMBIGUITY_ATOL
from controllers.generic.controller import PATHS, OptimalControllerBase, StepRecord
from controllers.generic.search import (POINT_TOL, STATUSES, TIE_TOL, Engine, ObjectivePlan, OptimalResult,
                                        SearchCounters, optimize, plan_objective)
from controllers.generic.exact import maximize_pieces as _maximize_pieces
from controllers.generic.exact import slow_optimum as _generic_slow
from polytopes import Polytope

from .limits import torque_limits
from .params import RHexParams
from .rigid_model import (CONTACT_NAMES, COORDINATES, PITCH_INDEX, TORQUES, RigidArrays, RigidModel, expand_mode,
                          rigid_arrays, task_constraint)
from .simulator import ControlOutput, initial_state, leg_kinematics

__all__ = [
    "MaxThrustController",
    "MaxThrustRecord",
    "MaxThrustResult",
    "ReferenceResult",
    "StepModel",
    "controller_model",
    "max_thrust",
    "max_thrust_reference",
    "step_time_stats",
    "NORMAL_VELOCITY_TOL",
    "PITCH_OBJECTIVE",
    "STATUSES",
    "PATHS",
    "POINT_TOL",
    "TIE_TOL",
]

NORMAL_VELOCITY_TOL = 0.03
"""Default (m/s): normal contact velocities ``<=`` this are treated as 0 (module doc)."""
PRECOMPUTE_STEPS = 10
"""Control periods of the constructor's dry run from the at-rest start (module doc, *Real time*):
the velocity patterns met there (113, 120 and 64 modes in the default flips) get their layouts
and pivots before the run."""

S_MATRIX = np.vstack([np.zeros((3, 3)), np.eye(3)])
"""The rigid model's actuator map ``S`` (hip torques on ``phi1..phi3``)."""

PITCH_OBJECTIVE = LinearObjective(qdd=np.eye(6)[PITCH_INDEX], force=np.zeros(2 * len(CONTACT_NAMES)), tau=np.zeros(3),
                                  sense="maximize", text="qdd.theta")
"""The controller's objective: maximize the pitch acceleration θ̈ (rad/s²), over the rigid
model's coordinates ``COORDINATES`` and all four contacts ``CONTACT_NAMES``."""

_PITCH_PLAN = ObjectivePlan(PITCH_OBJECTIVE)

MaxThrustRecord = StepRecord
"""One controller step (``controllers.generic.controller.StepRecord``): ``mode`` has 4 letters
(body, toe1..3), ``predicted`` is θ̈ (rad/s²)."""

MaxThrustResult = OptimalResult
"""Result of ``max_thrust`` at one state (``controllers.generic.search.OptimalResult``): ``tau``
(3,) N·m, ``mode`` over the model's contacts, ``mode4`` its 4-letter form, ``value`` the predicted
θ̈ (rad/s²). Near rest the batched kinematic test leaves some strict-slack LPs undecided and the
step decides them only where its answer may depend on them, so ``n_modes <= |M_f| <= n_modes +
n_pending``."""


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
    """The rigid model of one state as the controller sees it (module doc): the *step* of
    ``controllers.generic.search``.

    Closed-form terms (``rigid_arrays``), classified velocities, scaled terms
    (``contactmodes.model.scaling.scale_terms``) and the velocity pattern (on the scaled
    velocities); ``scaled_system`` builds the nondimensional ``ContactSystem`` from the scaled
    terms on first use (the slow path's); ``system`` and ``session`` the SI one and its
    ``AnalysisSession`` (the reference's).

    Parameters
    ----------
    state : numpy.ndarray
        ``(18,)`` the simulator's state (``STATE_LAYOUT``).
    params : RHexParams
        The robot as the controller models it.
    normal_velocity_tol : float, optional
        m/s: normal contact velocities ``<=`` this are set to 0 (module doc).
    classify : bool, optional
        ``False`` keeps the measured normal velocities (the blind controller's model; an
        approaching contact is then not an error).
    kinematics : LegKinematics, optional
        The state's ``leg_kinematics`` when the caller has it.
    """

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

    n_q = 6
    """Coordinates of the rigid model (``COORDINATES``)."""
    n_tau = 3
    """Actuators (``TORQUES``)."""
    blocks = (("task", "geq", 1),)
    """The ``Structure`` block specification: the task row ``f_n(body) >= min``."""

    @property
    def mu(self) -> np.ndarray:
        """``(k,)`` friction coefficients of the present contacts."""
        return self.arrays.mu

    @property
    def contact_index(self) -> list:
        """Positions of the present contacts in ``CONTACT_NAMES``."""
        return [CONTACT_NAMES.index(c) for c in self.contacts]

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
        (``controllers.generic.search``)."""
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
    """Rigid model at a state with the velocity classification of the module doc.

    Parameters
    ----------
    state : numpy.ndarray
        ``(18,)`` the simulator's state.
    params : RHexParams
        The robot.
    normal_velocity_tol : float, optional
        m/s: normal velocities ``<=`` this are set to 0.

    Returns
    -------
    tuple
        ``(model, system, n_clamped)``: the ``RigidModel`` (closed-form terms, task on), its
        ``ContactSystem`` with the classified normal velocities, and how many contacts were
        changed by more than the zero threshold of Table III.
    """
    sm = StepModel(state, params, normal_velocity_tol)
    v0 = sm.arrays.v_contact.reshape(-1, 2)
    eps = sm.pattern.threshold * sm.terms.velocity
    n = int(np.sum((v0[:, 1] != sm.v_contact.reshape(-1, 2)[:, 1]) & (np.abs(v0[:, 1]) > eps)))
    return sm.model, sm.system, n


# ----------------------------------------------------------------------------------- the search


class _Engine(Engine):
    """The generic search's ``Engine`` for RHex: ``modes`` defaults to the pitch objective
    (``PITCH_OBJECTIVE`` at the step, ``plan_objective``)."""

    def __init__(self, params: RHexParams) -> None:
        super().__init__()
        self.params = params

    def modes(self, step, objective=None, counters=None, lazy: bool = True, accept=None):
        """``Engine.modes`` with ``objective`` defaulting to the pitch objective at ``step``."""
        if objective is None:
            objective = plan_objective(_PITCH_PLAN, step)[0]
        return super().modes(step, objective, counters, lazy, accept)


def _slow(session: AnalysisSession, mode: str, others: list, lo, hi, counters: SearchCounters, task: bool = True):
    """The generic slow path (``controllers.generic.search``) with the pitch objective of the
    session's system: ``(value, tau, nudged, closure)`` in nondimensional units."""
    sys_ = session.system
    return _generic_slow(session, mode, others, lo, hi, counters, task,
                         np.eye(sys_.n_q + 2 * sys_.k + sys_.n_tau)[PITCH_INDEX])


def max_thrust(step: StepModel, lo, hi, force_slow: bool = False, engine: _Engine | None = None,
               lazy: bool = True, margin: float | None = None) -> MaxThrustResult:
    """The lazy max-thrust optimization of the module doc at one state.

    The generic search (``controllers.generic.search.optimize``) with RHex's objective
    (``PITCH_OBJECTIVE``, maximize θ̈), its task row and 4-letter mode labels.

    Parameters
    ----------
    step : StepModel
        The state.
    lo : numpy.ndarray
        ``(3,)`` lower torque bounds, N·m.
    hi : numpy.ndarray
        ``(3,)`` upper torque bounds, N·m.
    force_slow : bool, optional
        Skip the fast point test: every examined candidate goes through the slow path (tests).
    engine : _Engine, optional
        The structures and warm starts kept across steps (a fresh one if ``None``).
    lazy : bool, optional
        Resolve the modes the batched kinematic test leaves undecided only where the answer may
        depend on them (default; the same answer); ``False`` resolves them all first (then
        ``n_pending`` is 0).
    margin : float, optional
        N·m: the torque lies within it of the supremum point, inside its set (module doc,
        *Boundary convention*); default ``MARGIN_RTOL`` times the step's characteristic torque
        (``controllers.generic.search.default_step_margin``); 0: the supremum point.

    Returns
    -------
    MaxThrustResult
        When no mode meets the task constraint the search is repeated with the task row dropped
        (status ``"task_dropped"`` / ``"task_dropped_ambiguous"``); when not even that leaves a
        mode, zero torque with status ``"no_mode"`` (prediction NaN).

    Raises
    ------
    Exception
        Errors of the LPs propagate.
    """
    contacts = step.contacts
    return optimize(step, _PITCH_PLAN, lo, hi, engine or _Engine(step.params), force_slow=force_slow, lazy=lazy,
                    label=lambda m: expand_mode(m, contacts), margin=margin)


# ----------------------------------------------------------------------------------- the reference


@dataclasses.dataclass
class ReferenceResult:
    """The slow reference at one state (user units; ``max_thrust_reference``).

    Attributes
    ----------
    values : dict
        ``{mode: θ̈*_c}`` (rad/s², ``-inf`` when ``T*_c ∩ L`` is empty) over the kinematically
        feasible modes with a unique θ̈.
    best : float
        The largest value.
    pieces : dict
        ``{mode: [T*_c ∩ L pieces]}`` over the user's torques.
    response : dict
        ``{mode: ModeResponse}`` (user units).
    """

    values: dict
    best: float
    pieces: dict
    response: dict

    def optimal_modes(self, tol: float) -> list[str]:
        """The modes whose value is within ``tol`` of ``best``.

        Parameters
        ----------
        tol : float
            The allowed shortfall from ``best`` (rad/s², >= 0).

        Returns
        -------
        list[str]
            The mode strings with ``values[mode] >= best - tol``, in ``values``' order.
        """
        return [m for m, v in self.values.items() if v >= self.best - tol]


def max_thrust_reference(step: StepModel, lo, hi, task: bool = True) -> ReferenceResult:
    """Slow reference of ``max_thrust``: one ``AnalysisSession`` of the step's SI system,
    ``contactmodes.analysis.ambiguity.unambiguous`` (``within_mode=False``) for every kinematically
    feasible mode with a unique θ̈, its pieces intersected with ``L`` and one LP per piece.

    Projects every mode's domain: for tests, not for control.

    Parameters
    ----------
    step : StepModel
        The state.
    lo : numpy.ndarray
        ``(3,)`` lower torque bounds, N·m.
    hi : numpy.ndarray
        ``(3,)`` upper torque bounds, N·m.
    task : bool, optional
        ``False`` drops the task row (status ``task_dropped``).

    Returns
    -------
    ReferenceResult
        The per-mode values, pieces and responses.
    """
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


class MaxThrustController(OptimalControllerBase):
    """Max-thrust flipping controller (module doc): the generic unambiguous optimal controller
    (``controllers.generic``) configured for RHex.

    RHex's configuration: the objective ``PITCH_OBJECTIVE`` (maximize θ̈), the task row
    ``f_n(body) >= params.min_body_normal_force``, the motor box at the hip speeds
    (``torque_limits``), the rigid model of the state with the lifted toes left out and the normal
    velocities classified (``StepModel``), the 4-letter mode labels and the at-rest start
    precomputed.

    Parameters
    ----------
    params : RHexParams, optional
        The robot as the controller models it (friction, velocity thresholds ``v0``, task
        threshold, ``normal_velocity_tol``); default ``RHexParams()``.
    normal_velocity_tol : float, optional
        m/s, overrides ``params.normal_velocity_tol`` (velocity classification of the module doc).
    precompute : bool, optional
        Compute the at-rest start state's answer and every contact set's structure in the
        constructor (module doc, *Real time*; default true).
    margin : float, optional
        N·m (module doc, *Boundary convention*; ``contactmodes.control.margin``): the torque lies
        within it of the supremum point, inside its set. Default ``MARGIN_RTOL`` times the
        characteristic torque of the rigid model at the start state (``initial_state``),
        fixed for the run (attribute ``margin``); 0 returns the supremum point.

    Notes
    -----
    Calling convention as ``BlindController``: ``controller(t, state, params=None)`` with ``state``
    (18,) (``STATE_LAYOUT``); the rigid model uses the controller's ``params``, the torque limits
    the passed ``params`` (default the controller's). Returns ``ControlOutput(tau (3,) N·m, mode (4
    letters: body, toe1..3, ``S`` for lifted toes; ``None`` without a mode), predicted θ̈ (rad/s²)
    or ``None``)``.

    Attributes (``controllers.generic.controller.OptimalControllerBase``): ``compile_seconds`` the
    time this constructor spent compiling the kernels (0 when an earlier controller of the process
    did), ``log`` one ``MaxThrustRecord`` per step, ``counts`` (one entry per ``STATUSES`` plus
    ``"nudged"`` and ``"slow_steps"``), ``paths`` (one entry per ``PATHS`` plus
    ``"lp_fallbacks"`` and ``"svd_fallbacks"``, LPs and responses handed to the exact solvers),
    ``errors`` the messages of ``"error"`` steps (at most 10), ``last`` the last
    ``MaxThrustResult``. ``reset`` clears them (not the precomputed data).
    """

    def __init__(self, params: RHexParams | None = None, normal_velocity_tol: float | None = None,
                 precompute: bool = True, margin: float | None = None) -> None:
        self.params = params or RHexParams()
        self.normal_velocity_tol = float(self.params.normal_velocity_tol if normal_velocity_tol is None
                                         else normal_velocity_tol)
        self.margin = (default_margin(StepModel(initial_state(self.params), self.params,
                                                self.normal_velocity_tol).arrays.scales)
                       if margin is None else check_margin(margin, "margin"))
        self._start = None
        super().__init__(PITCH_OBJECTIVE)
        self.engine = _Engine(self.params)
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
        res = max_thrust(step, lo, hi, engine=self.engine, lazy=False, margin=self.margin)  # n_pending 0
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

    def __call__(self, t: float, state, params: RHexParams | None = None) -> ControlOutput:
        """One control step: ``max_thrust`` at the state on this controller's engine (the
        precomputed answer at the at-rest start), timed and logged (``OptimalControllerBase``);
        an exception becomes an ``"error"`` step with zero torque.

        Parameters
        ----------
        t : float
            Time (s), recorded in the log.
        state : array_like
            ``(18,)`` the measured state (``controllers.rhex.simulator.STATE_LAYOUT``, SI).
        params : RHexParams, optional
            The plant's parameters for the torque limits; default the controller's (the rigid
            model always uses the controller's).

        Returns
        -------
        ControlOutput
            The torque ``(3,)`` (N·m; clipped to the limits, zero on a ``"no_mode"`` or
            ``"error"`` step), the 4-letter mode (``None`` without a mode) and the predicted θ̈
            (rad/s², ``None`` when not finite).
        """
        p = params or self.params
        st = np.asarray(state, dtype=float)

        def compute():
            lk = leg_kinematics(st, p)
            lo, hi = torque_limits(lk.phidot, p)
            start = self._start
            # (st, lo, hi have the start's shapes: leg_kinematics and torque_limits check them)
            if start is not None and (st == start[0]).all() and (lo == start[1]).all() and (hi == start[2]).all():
                return start[3], "precomputed"
            # the rigid model uses the controller's params: reuse the leg kinematics only when
            # the limits were computed with the same params
            step = StepModel(st, self.params, self.normal_velocity_tol, kinematics=lk if p is self.params else None)
            return max_thrust(step, lo, hi, engine=self.engine, margin=self.margin), None

        res = self._run(t, compute, 3)
        pred = res.value if math.isfinite(res.value) else None
        return ControlOutput(np.asarray(res.tau, dtype=float), res.mode4, pred)


def step_time_stats(log) -> dict:
    """Step wall-time statistics of a controller log, in seconds.

    Parameters
    ----------
    log : Sequence[MaxThrustRecord]
        A controller's ``log``.

    Returns
    -------
    dict
        ``{"n", "median", "p90", "max", "mean"}`` (s; NaN without steps). In milliseconds with
        the p99: ``controllers.generic.controller.step_ms_stats``.
    """
    w = np.array([r.wall_time for r in log], dtype=float)
    if w.size == 0:
        return {"n": 0, "median": math.nan, "p90": math.nan, "max": math.nan, "mean": math.nan}
    return {"n": int(w.size), "median": float(np.median(w)), "p90": float(np.percentile(w, 90)),
            "max": float(w.max()), "mean": float(w.mean())}
