"""One flip, one result document: the Python entry point behind ``contactmodes flip``.

>>> from controllers.rhex import RHexParams, run_flip
>>> doc = run_flip(RHexParams(mu_toe=0.39), "blind", duration=1.0, timeline=False)
>>> doc["success"], doc["flip_time_s"], doc["rmse_pitch_accel_window"]      # doctest: +SKIP

Every setting that matters is a field of ``RHexParams`` (``mu_toe``, ``mu_body``,
``tau_limit`` — the calibrated effective torque limit —, ``tau_stall`` — the hardware bound —,
``detector_threshold`` and the other detector settings, ``v0``, ``min_body_normal_force``,
``normal_velocity_tol``, the Table IV numbers, ...), so a parameter sweep varies
``params.with_(name=value)`` and the controller name (``CONTROLLERS``).

The document (schema ``contactmodes.flip/1``; floats are plain Python floats, no NaN/Infinity):

``schema``
    ``"contactmodes.flip/1"``
``controller``, ``mu_toe``, ``mu_body``, ``tau_limit_nm``
    as run (N·m per planar leg for the effective torque limit)
``params``
    every ``RHexParams`` field as run (``RHexParams.to_dict``)
``success``, ``outcome``
    ``true`` iff the body flipped (pitch reached 90° with positive pitch rate); ``outcome`` one of
    ``"flipped"``, ``"fell_back"`` (lifted above 2°, then back to pitch <= 0), ``"timeout"``
    (``duration`` reached)
``flip_time_s``
    s, ``null`` without a flip
``rmse_pitch_accel``
    rad/s², Table V by **the paper's definition**: predicted minus simulated pitch acceleration
    over the whole thrust phase ``[0, thrust_end_s]`` (``rmse_pitch_accel``);
    ``null`` when the controller made no prediction
``rmse_pitch_accel_window``, ``rmse_window_s``
    rad/s², the same RMSE over **our documented window** ``[t0, t1]`` (s): without the first
    control step (start-up transient) and from the rear-face landing on
    (``rmse_window``); ``null`` when empty
``thrust_end_s``
    s, end of the thrust phase: both controllers thrust from 0 until the run ends (flip or
    failure; no pitch stop), so this is the end of the last control step with a prediction
``switch_time_s``
    s, the blind controller's model switch M1 → M2 (its rear-toe stiction detector); ``null``
    for max-thrust or when it never switched
``stiction_time_s``, ``resliding_time_s``
    s, the *simulated* rear toe sticking after its initial slide and sliding again after that
    (``stiction_time``, ``resliding_time``); ``null`` if absent
``body_contact_fraction``
    0–1, share of the thrust steps with the simulated body corner on the ground
``controller_status``
    ``{status: steps}``: max-thrust's step statuses (``optimal``, ``ambiguous``,
    ``task_dropped``, ``task_dropped_ambiguous``, ``no_mode``, ``error``; ``max_thrust``) or
    the blind LP's (``optimal``, ``elastic``, ``inconsistent``; ``blind``); zero counts left out
``controller_errors``
    the messages of max-thrust's ``error`` steps (at most 10; a failed step commands zero torque
    and predicts nothing), ``[]`` otherwise
``steps``, ``control_rate_hz``
    control steps simulated, the controller rate (Hz)
``step_ms``
    ``{"median", "p90", "p99", "max", "steps"}``: wall time of one controller call (ms) over the
    thrust steps the controller computed — steps ``0 … n_f − 1`` of the thrust phase
    (``thrust_end_s``; idle steps after it are left out) without the steps it answered from its
    precomputed at-rest start (max-thrust, ``max_thrust``); ``steps`` how many (the other
    fields ``null`` when none)
``step_cpu_ms``
    the same statistics of the CPU time of the controller's thread per call (ms): on a shared,
    loaded machine the wall time includes time the process waited for a core
``median_step_ms``
    ``step_ms["median"]``, kept for compatibility
``controller_paths``
    how the steps were computed (``PATHS``): ``fast`` (batched verified LPs and
    certified responses only), ``slow`` (the exact slow path with projections ran), ``fallback``
    (some LP or response went to the exact solvers), ``precomputed`` (the at-rest start), and
    ``lp_fallbacks`` / ``svd_fallbacks`` — LPs and responses handed to ``polytopes.lp`` /
    the SVD; for the blind controller ``fast`` / ``fallback`` steps and ``lp_fallbacks``
``mode_timeline`` (only with ``timeline=True``)
    segments ``{"t0": s, "t1": s, "simulated": "RFLL", "controller": "RRLL" | null}`` — maximal
    runs of control steps with the same simulated mode (letters body, toe1 rear, toe2, toe3 front)
    and the same controller mode (``S`` for toes the rigid model leaves out); contiguous, from 0
    to the end of the run
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .params import RHexParams
from .simulator import SimulationResult, simulate

__all__ = ["SCHEMA", "CONTROLLERS", "FlipRun", "make_controller", "simulate_flip", "flip_document", "run_flip",
           "step_time_summary"]

SCHEMA = "contactmodes.flip/1"
CONTROLLERS = ("max-thrust", "blind")


def make_controller(name: str, params: RHexParams):
    """A fresh controller ``name`` (one of ``CONTROLLERS``) for ``params``.

    Parameters
    ----------
    name : str
        ``"max-thrust"`` or ``"blind"``.
    params : RHexParams
        The robot's and the controller's settings.

    Returns
    -------
    BlindController or MaxThrustController
        Callable as ``controller(t, state, params) -> ControlOutput``.

    Raises
    ------
    ValueError
        For an unknown name.
    ImportError
        When the max-thrust controller cannot be imported (it is imported lazily).
    """
    if name == "blind":
        from .blind import BlindController

        return BlindController(params)
    if name == "max-thrust":
        from .max_thrust import MaxThrustController

        return MaxThrustController(params)
    raise ValueError(f"controller: expected one of {', '.join(CONTROLLERS)}, got {name!r}")


class _Timed:
    """Wraps a controller; records the wall time and this thread's CPU time (s) of each call and
    the last state seen."""

    def __init__(self, controller) -> None:
        self.controller = controller
        self.times: list[float] = []
        self.cpu_times: list[float] = []
        self.last_state = None

    def __call__(self, t, state, params=None):
        self.last_state = state
        t0, c0 = time.perf_counter(), time.thread_time()
        out = self.controller(t, state, params)
        self.cpu_times.append(time.thread_time() - c0)
        self.times.append(time.perf_counter() - t0)
        return out


@dataclass
class FlipRun:
    """A finished flip.

    Attributes
    ----------
    controller : str
        The controller's name.
    params : RHexParams
        The parameters as run.
    result : SimulationResult
        The simulation.
    agent : object
        The controller object (its ``switch_time``, ``log``, ``counts``, ``paths``).
    step_times_s : numpy.ndarray
        ``(N,)`` wall time of each controller call (s).
    step_cpu_s : numpy.ndarray or None
        ``(N,)`` CPU time of each controller call (s).
    """

    controller: str
    params: RHexParams
    result: SimulationResult
    agent: object
    step_times_s: np.ndarray
    step_cpu_s: np.ndarray | None = None

    def document(self, timeline: bool = True) -> dict:
        """The result document (module docstring).

        Parameters
        ----------
        timeline : bool, optional
            Include ``mode_timeline``.

        Returns
        -------
        dict
            The ``contactmodes.flip/1`` document.
        """
        return flip_document(self, timeline)


def simulate_flip(params: RHexParams, controller: str, duration: float = 2.0, *,
                  progress: Callable[[float, float], None] | None = None, progress_every: float = 0.1,
                  initial_state=None) -> FlipRun:
    """Simulate one flip with controller ``controller`` for at most ``duration`` s.

    From the flat start (``initial_state``) or ``initial_state``; the run stops at the flip or the
    fall back. Ctrl-C ends the run early with ``result.outcome == "interrupted"``.

    Parameters
    ----------
    params : RHexParams
        Every robot, ground, torque-limit, controller and detector setting.
    controller : str
        ``"max-thrust"`` or ``"blind"`` (``CONTROLLERS``).
    duration : float, optional
        Simulated time before giving up (s), ``> 0``.
    progress : Callable[[float, float], None], optional
        ``progress(t_s, pitch_rad)``, called every ``progress_every`` s of simulated time.
    progress_every : float, optional
        Seconds of simulated time between calls of ``progress``.
    initial_state : array_like, optional
        ``(18,)`` the start state (``controllers.rhex.simulator.STATE_LAYOUT``).

    Returns
    -------
    FlipRun
        The simulation, the controller object and the step times.

    Raises
    ------
    ValueError
        For an unknown controller, a non-positive duration, or ``params`` that is not an
        ``RHexParams`` (``RHexParams`` validates its own fields).
    """
    if not isinstance(params, RHexParams):
        raise ValueError(f"params: expected RHexParams, got {type(params).__name__}")
    timed = _Timed(make_controller(controller, params))

    def hook(t: float) -> None:
        state = timed.last_state
        if progress is not None:
            progress(t, float(state[2]) if state is not None else 0.0)

    result = simulate(timed, params, duration=duration, progress=hook if progress is not None else None,
                      progress_every=progress_every,
                      initial_state=initial_state)
    return FlipRun(controller, params, result, timed.controller, np.array(timed.times), np.array(timed.cpu_times))


def _round(value, digits: int = 6):
    return None if value is None else round(float(value), digits)


def _status_counts(agent) -> dict:
    if hasattr(agent, "counts"):  # max-thrust
        from .max_thrust import STATUSES

        return {s: int(agent.counts[s]) for s in STATUSES if agent.counts.get(s)}
    return dict(Counter(entry[3] for entry in getattr(agent, "log", [])))


def step_time_summary(times_s, computed=None) -> dict:
    """``{"median", "p90", "p99", "max", "steps"}`` in ms of the step times where ``computed`` holds.

    Parameters
    ----------
    times_s : array_like
        ``(N,)`` step times (s).
    computed : array_like, optional
        ``(N,)`` bool mask; default all.

    Returns
    -------
    dict
        The statistics (ms; ``None`` without steps) and the number of steps.
    """
    t = np.asarray(times_s, dtype=float)
    if computed is not None:
        t = t[np.asarray(computed, dtype=bool)]
    if t.size == 0:
        return {"median": None, "p90": None, "p99": None, "max": None, "steps": 0}
    ms = t * 1e3
    return {"median": float(np.median(ms)), "p90": float(np.percentile(ms, 90)),
            "p99": float(np.percentile(ms, 99)), "max": float(ms.max()), "steps": int(t.size)}


def _computed_steps(run: FlipRun, n_f: int) -> np.ndarray:
    """Mask of the thrust steps ``0 … n_f − 1`` the controller computed (not precomputed)."""
    n = len(run.step_times_s)
    mask = np.arange(n) < n_f
    log = getattr(run.agent, "log", [])
    if len(log) == n:
        mask &= np.array([getattr(r, "path", "") != "precomputed" for r in log], dtype=bool)
    return mask


def flip_document(run: FlipRun, timeline: bool = True) -> dict:
    """The ``contactmodes.flip/1`` document (module docstring) of ``run``.

    Parameters
    ----------
    run : FlipRun
        The finished flip.
    timeline : bool, optional
        Include ``mode_timeline``.

    Returns
    -------
    dict
        JSON-ready, no NaN or infinity.
    """
    from . import metrics

    result, p = run.result, run.params
    n_f = metrics.thrust_phase(result)
    k0, k1 = metrics.rmse_window(result)
    window = metrics.rmse_pitch_accel_window(result)
    times = np.asarray(result.times, dtype=float)
    doc = {
        "schema": SCHEMA,
        "controller": run.controller,
        "mu_toe": float(p.mu_toe),
        "mu_body": float(p.mu_body),
        "tau_limit_nm": float(p.tau_limit),
        "params": p.to_dict(),
        "success": bool(result.success),
        "outcome": result.outcome,
        "flip_time_s": _round(result.flip_time),
        "rmse_pitch_accel": metrics.rmse_pitch_accel(result),
        "rmse_pitch_accel_window": window,
        "rmse_window_s": [_round(times[k0]), _round(times[k1])] if window is not None else None,
        "thrust_end_s": _round(times[n_f]) if n_f else None,
        "switch_time_s": _round(getattr(run.agent, "switch_time", None)),
        "stiction_time_s": _round(metrics.stiction_time(result)),
        "resliding_time_s": _round(metrics.resliding_time(result)),
        "body_contact_fraction": metrics.body_contact_fraction(result),
        "controller_status": _status_counts(run.agent),
        "controller_errors": list(getattr(run.agent, "errors", [])),
        "steps": len(result.sim_modes),
        "control_rate_hz": float(p.control_rate),
    }
    computed = _computed_steps(run, n_f)
    doc["step_ms"] = step_time_summary(run.step_times_s, computed)
    cpu = run.step_cpu_s if run.step_cpu_s is not None else np.zeros(0)
    doc["step_cpu_ms"] = step_time_summary(cpu, computed if len(cpu) == len(computed) else None)
    doc["median_step_ms"] = doc["step_ms"]["median"]
    doc["controller_paths"] = {k: int(v) for k, v in getattr(run.agent, "paths", {}).items()}
    if timeline:
        doc["mode_timeline"] = metrics.mode_timeline(result)
    for key, value in doc.items():  # the JSON contract: no NaN/Infinity
        if isinstance(value, float) and not math.isfinite(value):
            doc[key] = None
    return doc


def run_flip(params: RHexParams, controller: str, duration: float = 2.0, *, timeline: bool = True,
             progress: Callable[[float, float], None] | None = None, initial_state=None) -> dict:
    """Simulate one RHex self-righting flip and return its ``contactmodes.flip/1`` document.

    The compliant simulator (``controllers.rhex.simulator``) runs from the flat start (or
    ``initial_state``) under the named controller at ``params.control_rate`` until the body
    flips, falls back or ``duration`` is reached. The document is the one ``contactmodes flip
    --json`` prints; its keys are listed in the module docstring.

    Parameters
    ----------
    params : RHexParams
        Every robot, ground, torque-limit, controller and detector setting; vary one with
        ``params.with_(mu_toe=0.39)``.
    controller : str
        ``"blind"`` (the paper's baseline, Sec. IV-C.2) or ``"max-thrust"`` (maximal thrust
        across all contact modes, Sec. IV-B.2); see ``CONTROLLERS``.
    duration : float, optional
        Simulated time before giving up, s (default 2; the run stops earlier at a flip or a
        fall back). Must be positive.
    timeline : bool, optional
        Include the per-step ``mode_timeline`` (default ``True``; leave it out for sweeps).
    progress : callable, optional
        ``progress(t_s, pitch_rad)``, called every 0.1 s of simulated time.
    initial_state : array_like, optional
        Start state, shape ``(18,)`` (default: the flat start,
        ``controllers.rhex.simulator.initial_state``).

    Returns
    -------
    dict
        The ``contactmodes.flip/1`` document: ``success`` and ``outcome`` (``"flipped"``,
        ``"fell_back"`` or ``"timeout"``), ``flip_time_s`` (s), the pitch-acceleration RMSE of
        Table V (rad/s²), the controller's statuses and step times (ms), the parameters as run,
        and so on. Plain Python values, no NaN or infinity (``null`` instead).

    Raises
    ------
    ValueError
        For an unknown controller, a non-positive duration, or ``params`` that is not an
        ``RHexParams`` (``RHexParams`` itself names a bad field when it is built).
    ImportError
        When the max-thrust controller cannot be imported (it is imported lazily).
    KeyboardInterrupt
        On Ctrl-C during the run (no document for a partial run).

    See Also
    --------
    simulate_flip : The same run, returning the simulation and the controller object.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. IV: the maximal-thrust controller (Sec. IV-B.2, on the rigid
    model of eqs. (35)–(36)), the compliant simulator (Sec. IV-C.1, Table IV), the blind
    controller (Sec. IV-C.2) and the comparison of Table V and Figs. 10–15.

    Examples
    --------
    A blind flip on linoleum (``mu_toe = 0.39``):

    >>> from controllers.rhex import RHexParams, run_flip
    >>> doc = run_flip(RHexParams(mu_toe=0.39), "blind", duration=1.0, timeline=False)
    >>> doc["schema"], doc["success"], doc["outcome"]
    ('contactmodes.flip/1', True, 'flipped')
    >>> 0.3 < doc["flip_time_s"] < 0.7                               # s
    True
    >>> "mode_timeline" in doc
    False
    >>> run_flip(RHexParams(), "pid")
    Traceback (most recent call last):
    ...
    ValueError: controller: expected one of max-thrust, blind, got 'pid'
    """
    run = simulate_flip(params, controller, duration, progress=progress, initial_state=initial_state)
    if run.result.outcome == "interrupted":
        raise KeyboardInterrupt
    return run.document(timeline)
