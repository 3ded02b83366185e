"""The unambiguous optimal controller of any planar system with rigid Coulomb contacts.

At every call ``controller(q, q̇) -> τ`` it evaluates the system's mechanism at the state
(``MechanismStep``: ``M``, ``h``, ``J``, ``J̇q̇`` in closed form, nondimensionalized), takes the
torque box ``L`` at the actuator speeds (``TorqueBox``) and returns the torque of
``controllers.generic.search.optimize``: the largest (or smallest) value of a linear objective
over ``q̈``, the contact forces and ``τ`` on ``T*_c ∩ L`` of every kinematically feasible mode
(flipping paper Sec. IV-B.2, eq. (34)), where ``T*_c`` is the mode's torque set (33) without the
torques that also admit another mode. The per-mode responses (24)–(31) come from the real-time
plans (``contactmodes.realtime.plan``: one ``Structure`` per contact set, one ``Layout`` per
velocity pattern, reused and warm-started across calls); fast answers are verified (batched LPs
with certificates, a point test against every other mode's ``T_c'``) and anything not certified
goes to the exact slow path (projections and ``polytopes.difference`` in an ``AnalysisSession``
of the step), as in the RHex max-thrust controller, which is this controller configured for RHex
(``controllers.rhex.max_thrust``).

*Touchdown.* At a state with an approaching contact (Table III) the step takes the plastic impact
first and optimizes at the post-impact state ``(q, q̇⁺)`` of one outcome
(``controllers.generic.touchdown``: the rule that chooses it, the frictionless fallback), recorded
per step (``StepRecord.touchdown``, ``touchdown_status``); zeroing small normal velocities instead
is the explicit opt-in ``normal_velocity_tol``.

*Fallback.* A step whose statuses leave no torque of an acceptable mode — ``optimize``'s
``"no_mode"`` (no acceptable mode with a unique objective has a torque in the box, with or
without the task rows: not even the ambiguity-allowed optimum over ``T_c ∩ L``, status
``"ambiguous"``, exists) or an ``"error"`` (the computation raised) — applies the *last torque
of an acceptable mode* (the last step whose status is in ``MODE_STATUSES``), clipped to the box
at the current actuator speeds: status ``"no_mode_held"`` / ``"error_held"``. Before any such
step (the first call after construction or ``reset``) it applies the torque of the box nearest
zero, ``"no_mode_zero"`` / ``"error_zero"``. Held, not re-optimized over the modes the filter
refuses: in closed loop such a state is a soft plant's state a little off the rigid model's
(velocities of micrometres per second, a contact a little inside its surface), where the last
accepted torque is the one that kept the accepted mode, while the best torque of a refused mode
serves a behaviour the user excluded: at the gripper's states of this kind
(``../shared/cases/gripper_squeeze.toml``, ``FFFF`` accepted, maximize the fingertips' normal
forces) the best torque of any feasible mode is ``FFRL``'s, ``(2, −0.5, 0.5, 0.5, −0.5)``, both
fingertips sliding and every torque reversed, where holding the last ``FFFF`` torque kept the
grasp in ``FFFF`` for the whole run (``tests/controllers/simulation/test_sim_fallback.py``). The
statuses say which steps held: ``contactmodes simulate`` records them (``controller_status``),
warns and exits with 1.

*Task equalities* (a ``qdd_zero`` row): the real-time plans refuse them, so a system with one
is controlled through ``controllers.generic.one_shot`` at every step (the one-shot controller,
``contactmodes.control.control``, at the step's state: exact, projections at every step).

*Uniqueness.* A mode is a candidate only if its objective is unique: ``J`` must not depend on the
mode's ambiguity variables ``w`` (the ``w``-coefficients ``c_qᵀ Q_q + c_fᵀ Q_f`` vanish, III-G.2;
``contactmodes.modes.response.batched_responses``). An objective on accelerations only tolerates
a force-only ambiguity (RHex requires θ̈ unique, not its forces); a mode whose objective moves
with ``w`` has no well-defined value and is never chosen (its ``T_c`` still counts for the
ambiguity of the others).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import numpy as np

from contactmodes.modes.contact_model import require_planar
from contactmodes.control.margin import actuator_lengths, default_margin
from contactmodes.control.spec import check_margin
from contactmodes.control.objective import LinearObjective
from contactmodes.errors import ApproachingContactError, ContactModelError
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.realtime import kernels
from polytopes import batchlp_kernel

from .limits import TorqueBox
from .search import STATUSES as SEARCH_STATUSES
from .search import Engine, ObjectivePlan, OptimalResult, optimize
from .one_shot import has_task_equalities, one_shot_step
from .step import MechanismStep, check_constraints
from .touchdown import Touchdown, resolve_touchdown, torque_box

__all__ = ["UnambiguousOptimalController", "OptimalControllerBase", "StepRecord", "PATHS", "STATUSES",
           "FALLBACK_STATUSES", "MODE_STATUSES", "step_ms_stats"]

MODE_STATUSES = ("optimal", "ambiguous", "task_dropped", "task_dropped_ambiguous")
"""The statuses of a step whose torque is an acceptable mode's (``optimize``'s statuses but
``"no_mode"`` and ``"error"``; ``"ambiguous"``: the best torque of an acceptable mode with
ambiguity allowed, the optimum over ``T_c ∩ L`` instead of ``T*_c ∩ L``)."""

FALLBACK_STATUSES = ("no_mode_held", "no_mode_zero", "error_held", "error_zero")
"""The statuses of a step without an acceptable mode (module doc, *Fallback*): ``"no_mode_*"``
when no acceptable mode is feasible at the state (``optimize``'s ``"no_mode"``), ``"error_*"``
when the step's computation raised; ``"*_held"`` the last torque of an acceptable mode held,
``"*_zero"`` the torque of the limits nearest zero (no such torque yet)."""

STATUSES = SEARCH_STATUSES + FALLBACK_STATUSES
"""Every step status of the controllers of this module: ``optimize``'s
(``controllers.generic.search.STATUSES``; ``OptimalControllerBase`` logs ``"no_mode"`` and
``"error"`` when it has no fallback, as RHex's controller) and ``FALLBACK_STATUSES``
(``UnambiguousOptimalController`` logs these instead of ``"no_mode"`` and ``"error"``)."""

PATHS = ("fast", "slow", "fallback", "precomputed")
"""How a step was computed: ``"fast"`` (batched LPs and certified responses only; a step whose
candidates the certificates settled is fast too, ``OptimalResult.settled`` says which), ``"slow"``
(the slow path's projections ran for some candidate), ``"fallback"`` (an LP or a response went
to the exact solvers, no slow path), ``"precomputed"`` (a stored answer, RHex's at-rest start)."""


class StepRecord(NamedTuple):
    """One controller step.

    Attributes
    ----------
    t : float
        Time (s) given by the caller, or the step's index for ``UnambiguousOptimalController``.
    mode : str or None
        The chosen mode, labelled over all of the system's contacts (``None`` without a mode).
    predicted : float
        The objective's predicted value at the applied torque (user units; NaN if none).
    wall_time : float
        Wall time of the step (s).
    n_modes : int
        Modes known to be kinematically feasible (at a screened step, of the modes the screen
        kept: ``OptimalResult.screened``).
    status : str
        One of ``STATUSES``.
    n_examined : int
        Candidates examined for ambiguity.
    n_slow : int
        Of those, through the slow path.
    n_projections : int
        Polytope projections done.
    cpu_time : float
        This thread's CPU time for the step (s).
    path : str
        One of ``PATHS``.
    n_pending : int
        Candidates whose kinematic feasibility the step did not need to decide.
    touchdown : str or None
        At a touchdown state (an approaching contact): the impact outcome the step followed
        (``controllers.generic.touchdown``), labelled over all contacts; ``None`` otherwise.
    touchdown_status : str or None
        ``"impact"`` or ``"frictionless"`` (the fallback) at a touchdown, ``None`` otherwise
        (``controllers.generic.touchdown.TOUCHDOWN_STATUSES``).
    """

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
    touchdown: str | None = None
    touchdown_status: str | None = None


def step_ms_stats(log) -> dict:
    """Step-time statistics of a controller log in milliseconds.

    Parameters
    ----------
    log : Sequence[StepRecord]
        A controller's ``log``.

    Returns
    -------
    dict
        ``{"n", "median", "p90", "p99", "max", "mean"}`` of the steps' wall times (ms; NaN
        without steps).
    """
    w = np.array([r.wall_time for r in log], dtype=float) * 1e3
    if w.size == 0:
        return {"n": 0, **{k: math.nan for k in ("median", "p90", "p99", "max", "mean")}}
    return {"n": int(w.size), "median": float(np.median(w)), "p90": float(np.percentile(w, 90)),
            "p99": float(np.percentile(w, 99)), "max": float(w.max()), "mean": float(w.mean())}


class OptimalControllerBase:
    """The bookkeeping shared by the generic controller and its RHex configuration: the engine
    (structures, layouts, warm starts), the compiled kernels, and per step the timing, the
    statuses, the paths and the errors.

    Parameters
    ----------
    objective : LinearObjective
        The objective (user units).
    accept : callable, optional
        ``accept(mode) -> bool``, the modes that may be chosen.
    """

    def __init__(self, objective: LinearObjective, accept: Callable[[str], bool] | None = None) -> None:
        self.objective = objective
        self.objective_plan = ObjectivePlan(objective)  # the conversion's step-independent part, once
        self.accept = accept
        self.engine = Engine()
        # the compiled kernels are compiled here, once per process, outside every timed step
        self.compile_seconds = batchlp_kernel.compile_kernel() + kernels.compile_kernel()
        self.reset()

    def reset(self) -> None:
        """Clear the log, the counters and the error messages (not the engine)."""
        self.log: list[StepRecord] = []
        self.counts = {**{s: 0 for s in STATUSES}, "nudged": 0, "slow_steps": 0, "screened_steps": 0}
        self.paths = {**{s: 0 for s in PATHS}, "lp_fallbacks": 0, "svd_fallbacks": 0}
        self.errors: list[str] = []
        self.last: OptimalResult | None = None

    def _run(self, t: float, compute: Callable[[], tuple[OptimalResult, str | None]], n_tau: int,
             fallback: Callable[[OptimalResult], OptimalResult] | None = None) -> OptimalResult:
        """One step: ``compute() -> (result, path or None)`` timed, recorded and counted; an
        exception becomes an ``"error"`` step (zero torque, message kept in ``errors``). With
        ``fallback``, a ``"no_mode"`` or ``"error"`` result is replaced by ``fallback(result)``
        (``UnambiguousOptimalController``: a ``FALLBACK_STATUSES`` step)."""
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            res, path = compute()
            if path is None:
                path = "slow" if res.n_slow else ("fallback" if res.fallbacks else "fast")
        except Exception as exc:  # noqa: BLE001 - a failed step is recorded, the run goes on
            if len(self.errors) < 10:
                self.errors.append(f"t={t:.3f} s: {type(exc).__name__}: {exc}")
            res = OptimalResult(np.zeros(n_tau), None, None, math.nan, math.nan, "error")
            path = "fallback"
        if fallback is not None and res.status in ("no_mode", "error"):
            res = fallback(res)
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        self.counts[res.status] += 1
        self.counts["nudged"] += int(res.nudged)
        self.counts["slow_steps"] += int(res.n_slow > 0)
        self.counts["screened_steps"] += int(res.screened)
        self.paths[path] += 1
        if path != "precomputed":  # a stored answer's fallbacks were counted when it was computed
            self.paths["lp_fallbacks"] += res.lp_fallbacks
            self.paths["svd_fallbacks"] += res.svd_fallbacks
        self.last = res
        pred = res.value if math.isfinite(res.value) else math.nan
        self.log.append(StepRecord(t, res.mode4, pred, wall, res.n_modes, res.status, res.n_examined, res.n_slow,
                                   res.n_projections, cpu, path, res.n_pending))
        return res

    @property
    def step_ms(self) -> np.ndarray:
        """``(steps,)`` the wall time of every logged step, ms."""
        return np.array([r.wall_time for r in self.log], dtype=float) * 1e3

    def stats(self) -> dict:
        """``step_ms_stats`` of the log (ms)."""
        return step_ms_stats(self.log)


def _mode_filter(modes, contacts: Sequence[str]) -> Callable[[str], bool] | None:
    """``modes`` (``None``, a list of mode strings or a callable) as a callable filter."""
    if modes is None or callable(modes):
        return modes
    if isinstance(modes, str):
        modes = [modes]
    allowed = set()
    for m in modes:
        validate_mode(m, contacts)
        allowed.add(m)
    return allowed.__contains__


class UnambiguousOptimalController(OptimalControllerBase):
    """Unambiguous optimal control of a planar system loaded from a system file (module doc).

    Parameters
    ----------
    system : LoadedSystem or str or Path
        A system file's path or its ``LoadedSystem`` (``contactmodes.system_file.loader.load_system_file``:
        the mechanism and its ``ContactSystem``; ``contactmodes.load_system`` gives the
        ``ContactSystem`` alone, without the mechanism the controller evaluates at each state). Its constraint rows (e.g. a task ``f_n >= ...``) apply at every state;
        with a task equality (``qdd_zero``) every step goes through ``controllers.generic.one_shot``
        (module doc); disturbances are not supported.
    objective : LinearObjective
        ``contactmodes.control.objective.LinearObjective`` in the system's units: ``qdd`` ``(n_q,)``,
        ``force`` ``(2k,)`` in the (t, n) per-contact order, ``tau`` ``(n_τ,)``, ``sense``
        ``"maximize"`` or ``"minimize"``.
    limits : TorqueBox or tuple, optional
        The torque box ``(lo, hi)`` (``(n_τ,)`` each, finite, the system's units) or a
        ``TorqueBox`` (with a torque–speed line per actuator). Required: ``None`` raises.
    modes : Sequence[str] or Callable[[str], bool], optional
        The modes that may be chosen (mode strings over the system's contacts, or
        ``accept(mode) -> bool``); default all. Every feasible mode still counts for ambiguity.
    normal_velocity_tol : float, optional
        Opt-in, the old behaviour: normal contact velocities ``<=`` this are set to 0 before
        classification (velocity units; for a soft plant's scattered velocities, as RHex's
        controller does). Default ``None``: no velocity is changed, and a state with an
        approaching contact goes through the impact law (``pseudo_impulse``).
    touching_velocity_tol : float, optional
        Normal contact velocities within ``±`` this count as zero (velocity units; default none):
        the touching contacts of a soft plant, whose velocities scatter at µm/s, while a contact
        approaching faster still goes through the impact law (``docs/impact.md``).
    pseudo_impulse : float, optional
        At a touchdown state (a contact approaching by the Table III rule): the plastic impact
        is taken first with this ``δ_t`` (s, thesis eq. 39; default 0, none), one reachable
        outcome chosen and the step optimized at the post-impact state ``(q, q̇⁺)``
        (``controllers.generic.touchdown``: the rule, the fallback). Recorded in the
        ``StepRecord`` (``touchdown``, ``touchdown_status``) and in ``touchdowns``.
    gap_tol : float, optional
        Contacts whose gap exceeds this (length units) are left out of the step, their force
        zero, ``S`` in the logged mode (``MechanismStep``); default ``GAP_RTOL`` times the
        mechanism's characteristic length, ``inf`` keeps every contact.
    screen : bool, optional
        Screen steps whose ``modes`` accept few of many candidate modes
        (``controllers.generic.search``, *Screened steps*; default ``True``): the same torques,
        modes and values, with ``n_modes`` counting only the modes the screen kept. ``False``
        searches every feasible mode at every step (``n_modes`` the whole count).
    margin : float, optional
        The system's torque units (``contactmodes.control.margin``; an actuator on a floating
        base's ``x`` or ``y`` counts its force times the characteristic length): the torque lies
        within it of the supremum point, inside its set with clearance
        (``controllers.generic.search``, *Margin*). Default ``MARGIN_RTOL`` times the file's
        characteristic torque ``m L² / T²`` at its state, fixed for the run (attribute
        ``margin``); 0 returns the supremum point.

    Raises
    ------
    ContactModelError
        One line naming the field: an objective of the wrong sizes, missing or bad limits, an
        unknown mode, a disturbance, a margin that is not a finite number >= 0, a system whose
        contact model is not the planar one (``"controller: planar contact systems only for now
        (issue 40)"``).

    Notes
    -----
    ``controller(q, qdot) -> tau`` (``(n_q,)`` each, the system's units; returns ``(n_τ,)``). The
    objective is converted to the plan's units at each state (the units depend on the state,
    ``controllers.generic.search.plan_objective``); every decision is taken on the
    nondimensional problem. Attributes: ``log`` (``StepRecord`` per call; ``t`` the call's
    index), ``last`` (the last ``OptimalResult``: mode, prediction, statuses and counts),
    ``counts`` (per ``STATUSES``: never ``"no_mode"`` nor ``"error"``, replaced by the
    ``FALLBACK_STATUSES`` of the module doc's *Fallback*; plus ``"nudged"``, ``"slow_steps"``, ``"screened_steps"``), ``paths`` (per path, plus
    ``"lp_fallbacks"``, ``"svd_fallbacks"``), ``errors``, ``step_ms``, ``stats()``,
    ``compile_seconds``, ``touchdowns`` (``(step index, Touchdown)`` per touchdown handled),
    ``last_touchdown`` (the last step's ``Touchdown`` or ``None``), ``held`` (``(n_τ,)`` the last
    torque of an acceptable mode, the fallback's, or ``None``), ``task_equalities`` (whether
    every step goes through ``controllers.generic.one_shot``); ``reset()`` clears them.
    """

    def __init__(self, system, objective: LinearObjective, limits=None, modes=None, *,
                 normal_velocity_tol: float | None = None, gap_tol: float | None = None,
                 pseudo_impulse: float = 0.0, touching_velocity_tol: float | None = None, screen: bool = True,
                 margin: float | None = None) -> None:
        if isinstance(system, (str, Path)):
            from contactmodes.system_file.loader import load_system_file

            system = load_system_file(system)
        mech, template = getattr(system, "mechanism", None), getattr(system, "system", None)
        if mech is None or template is None:
            raise ContactModelError("system: expected a system file's path or its LoadedSystem "
                                    "(contactmodes.system_file.loader.load_system_file), which carries the mechanism")
        require_planar(template.contact_model, "controller")
        if template.disturbance is not None:
            raise ContactModelError("disturbance: not supported by the real-time controller")
        self.mechanism, self.template = mech, template
        mech.compile_dynamics()  # compiled and checked here, outside every timed step
        self.task_equalities = has_task_equalities(template.constraints)  # every step: one_shot_step
        self.blocks = tuple((c.kind, c.type, c.n_rows) for c in template.constraints) if self.task_equalities \
            else check_constraints(template.constraints)
        n_q, n_tau, k = template.n_q, template.n_tau, template.k
        if not isinstance(objective, LinearObjective):
            raise ContactModelError("objective: expected a LinearObjective (contactmodes.control.objective)")
        for name, arr, size in (("qdd", objective.qdd, n_q), ("force", objective.force, 2 * k),
                                ("tau", objective.tau, n_tau)):
            if arr.shape != (size,):
                raise ContactModelError(f"objective.{name}: expected {size} coefficients, got {arr.size}")
        self.limits = TorqueBox.of(limits, n_tau)
        self.normal_velocity_tol = normal_velocity_tol
        self.touching_velocity_tol = touching_velocity_tol
        self.gap_tol = gap_tol
        if not (math.isfinite(float(pseudo_impulse)) and float(pseudo_impulse) >= 0.0):
            raise ContactModelError(f"pseudo_impulse: must be a finite duration >= 0 s, got {pseudo_impulse!r}")
        self.pseudo_impulse = float(pseudo_impulse)
        self.screen = bool(screen)
        self.margin = default_margin(template.scales) if margin is None else check_margin(margin, "margin")
        self.lengths = actuator_lengths(template.S, template.coordinates, mech.linear_coordinates,
                                        template.scales.length)
        self.touchdowns: list = []
        self.last_touchdown: Touchdown | None = None
        self.S = mech.actuator_matrix()
        self._accepts: dict[tuple, Callable[[str], bool]] = {}
        super().__init__(objective, _mode_filter(modes, template.contacts))

    def step_model(self, q, qdot) -> MechanismStep:
        """The ``MechanismStep`` of the state (what a call computes on), with this controller's
        velocity and gap tolerances.

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        MechanismStep
            The step at ``(q, q̇)``; ``ApproachingContactError`` (from ``MechanismStep``) at a
            touchdown state.
        """
        return MechanismStep(self.mechanism, self.template, q, qdot, self.normal_velocity_tol, self.blocks,
                             self.gap_tol, self.touching_velocity_tol)

    def torque_limits(self, qdot) -> tuple[np.ndarray, np.ndarray]:
        """The torque box at a velocity (``TorqueBox.at`` of the actuator speeds ``Sᵀ q̇``).

        Parameters
        ----------
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray]
            ``(lo, hi)``, ``(n_τ,)`` each, the system's torque units (N·m; N for a force).
        """
        return self.limits.at(self.S.T @ np.asarray(qdot, dtype=float))

    def reset(self) -> None:
        """``OptimalControllerBase.reset``, the touchdowns and the held torque."""
        super().reset()
        self.touchdowns = []
        self.last_touchdown = None
        self.held: np.ndarray | None = None

    def solve(self, q, qdot, **kwargs) -> OptimalResult:
        """``optimize`` at ``(q, q̇)`` on this controller's engine, without logging; at a touchdown
        state, at ``(q, q̇⁺)`` of the impact outcome ``controllers.generic.touchdown.resolve_touchdown``
        chooses (kept in ``last_touchdown``, the box cut to its torque set). With task equalities
        the step goes through ``controllers.generic.one_shot.one_shot_step`` (``kwargs`` unused).

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s), before any impact.
        **kwargs
            Passed to ``optimize``: ``force_slow``, ``lazy``, ``screen``.

        Returns
        -------
        OptimalResult
            The step's answer (torque ``(n_τ,)`` in the system's units); status ``"no_mode"``
            without an acceptable mode (no fallback here: ``__call__`` applies it).
        """
        self.last_touchdown = None
        td: Touchdown | None = None
        try:
            step = self.step_model(q, qdot)
        except ApproachingContactError:
            lo, hi = self.torque_limits(qdot)  # the torque acts during the impact: pre-impact speeds
            td = resolve_touchdown(self.mechanism, self.template, q, qdot, lo, hi, self.pseudo_impulse, self.gap_tol,
                                   v0_floor=self.touching_velocity_tol)
            self.last_touchdown = td
            qdot = td.qdot_plus
            step = self.step_model(q, qdot)
        lo, hi = self.torque_limits(qdot)
        if td is not None:
            lo, hi = torque_box(td, lo, hi)
        accept = self.accept
        if accept is not None and len(step.contacts) != len(step.all_contacts):
            # the filter names all contacts; one wrapper per set of present contacts, so that the
            # engine's per-layout mask of accepted modes is kept (Engine.accepted: by identity)
            wrapped = self._accepts.get(step.contacts)
            if wrapped is None:
                full, label = accept, step.label
                wrapped = self._accepts[step.contacts] = lambda m: full(label(m))
            accept = wrapped
        if self.task_equalities:  # the real-time plans refuse them: the one-shot controller at the state
            res = one_shot_step(step, self.objective, lo, hi, accept=accept, label=step.label,
                                margin=self.margin)
        else:
            res = optimize(step, self.objective_plan, lo, hi, self.engine, accept=accept, label=step.label,
                           margin=self.margin, lengths=self.lengths, **kwargs)
        if td is not None and td.torque_set is not None:
            self.last_touchdown = replace(td, torque_in_set=td.contains_torque(res.tau))
        return res

    def fallback(self, res: OptimalResult, qdot) -> OptimalResult:
        """The step ``res`` without an acceptable mode (status ``"no_mode"`` or ``"error"``) with
        the fallback torque (module doc, *Fallback*): the last torque of an acceptable mode
        (``held``) clipped to the limits at ``qdot``, else the torque of those limits nearest
        zero; status ``"<status>_held"`` or ``"<status>_zero"`` (``FALLBACK_STATUSES``), no mode,
        no prediction. Limits that cannot be read at ``qdot`` (not finite, or an error) are taken
        at rest.

        Parameters
        ----------
        res : OptimalResult
            The step's result, status ``"no_mode"`` or ``"error"``.
        qdot : numpy.ndarray
            ``(n_q,)`` the step's velocity (m/s, rad/s).

        Returns
        -------
        OptimalResult
            ``res`` with the fallback torque ``(n_τ,)``, ``mode`` and ``mode4`` ``None``,
            ``value`` and ``closure_value`` NaN.
        """
        try:
            lo, hi = self.torque_limits(qdot)
            if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
                raise ValueError("limits not finite at this velocity")
        except Exception:  # noqa: BLE001 - a velocity the limits cannot read (an error step's): the box at rest
            lo, hi = self.limits.at(np.zeros(self.template.n_tau))
        if self.held is not None:
            tau, how = np.clip(self.held, lo, hi), "held"
        else:
            tau, how = np.clip(np.zeros(self.template.n_tau), lo, hi), "zero"
        return replace(res, tau=tau, mode=None, mode4=None, value=math.nan, closure_value=math.nan,
                       status=f"{res.status}_{how}")

    def __call__(self, q, qdot) -> np.ndarray:
        """One control step: ``solve`` at ``(q, q̇)`` (with ``screen``), timed and logged
        (``StepRecord``, ``t`` the call's index); an exception or a step without an acceptable
        mode gets the fallback torque (``fallback``, module doc *Fallback*). A torque of an
        acceptable mode is kept in ``held``; a touchdown is appended to ``touchdowns``.

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        numpy.ndarray
            ``(n_τ,)`` the torque to apply (N·m; N for a force), within the limits.
        """
        self.last_touchdown = None
        res = self._run(float(len(self.log)), lambda: (self.solve(q, qdot, screen=self.screen), None),
                        self.template.n_tau, fallback=lambda r: self.fallback(r, qdot))
        if res.status in MODE_STATUSES:
            self.held = np.array(res.tau, dtype=float)
        td = self.last_touchdown
        if td is not None:
            self.touchdowns.append((len(self.log) - 1, td))
            self.log[-1] = self.log[-1]._replace(touchdown=td.outcome, touchdown_status=td.status)
        return np.asarray(res.tau, dtype=float)
