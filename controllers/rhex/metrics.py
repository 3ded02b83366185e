"""Flip metrics from a recorded run (flipping paper, Sec. IV-C, Figs. 10–15, Table V).

Everything here reads a ``SimulationResult`` (or any object with the same
attributes: ``times`` (N+1,) s, ``states`` (N+1, 18), ``predicted_pitch_acc`` (N,) rad/s²,
``sim_modes`` (N,) 4-letter strings, ``params``) and nothing else, so each metric can be checked
on synthetic data.

Pitch acceleration
------------------
``simulated_pitch_accel``: the finite difference of the recorded pitch rate at the control
rate, ``a_k = (θ̇(t_{k+1}) − θ̇(t_k)) / (t_{k+1} − t_k)``, the *exact mean* pitch acceleration over
control period ``k``. No further filter: the mean over the 1 ms hold is already a box filter
matched to the controller's zero-order hold; a wider filter would smear the model switches that
Figs. 10–14 are meant to show.

Table V: two windows (say which one, everywhere)
-------------------------------------------------
* ``rmse_pitch_accel`` (``rmse_pitch_accel``) — **the paper's definition**,
  ``RMSE = ((1/t_f) ∫_0^{t_f} (α̈̂(t) − α̈(t))² dt)^{1/2}`` (Sec. IV-C.4) over the *thrust phase*
  ``[0, t_f]``. Both controllers thrust, and predict, from t = 0 until the run ends (the flip —
  pitch 90° with positive rate — or a failure; there is no pitch stop), so ``t_f`` is the end of
  the last control step with a prediction (``thrust_phase``). With the zero-order hold the
  prediction is constant over each control period and is compared with the simulated mean over
  that period: the integral is the duration-weighted sum over the thrust steps. Steps without a
  prediction are left out of both the integral and ``t_f``.
* ``rmse_pitch_accel_window`` (``rmse_pitch_accel_window``) — **our documented window**
  (``rmse_window``): the thrust phase without (a) the first control step, the start-up
  transient of the unloaded compliant legs (its simulated θ̈ overshoots every rigid prediction
  by 50–65 rad/s², about half the paper-definition mean square of a blind run by itself), and
  (b) everything from the rear-face landing on: the first control step at whose end the body's
  rear-top corner touches the ground (a contact the rigid models do not have; the landing gives
  one spike of 150–400 rad/s² in the last few milliseconds before the flip).

Rear-toe events (the paper's "stiction of the rear toe", Figs. 10–14)
---------------------------------------------------------------------
From the simulated rear-toe letters (``sim_modes[k][1]``): maximal runs of one letter; a run
shorter than ``MIN_RUN_S`` (3 ms) that does not end the recording is chatter and is merged
into the run before it. ``stiction_time`` is the start of the first ``F`` run that follows a
sliding (``R``/``L``) run — the rear toe sticking after its initial slide; ``resliding_time``
the start of the first sliding run after that ``F`` run (the paper's "renewed sliding of the rear
toe towards the end of the flip"). Times are the start ``times[k]`` of the first step of a run
(the letters are the simulator's at the end of each control period), as in the mode timeline.
"""

from __future__ import annotations

import math

import numpy as np

from .simulator import body_corners

__all__ = [
    "MIN_RUN_S",
    "simulated_pitch_accel",
    "thrust_phase",
    "rmse_weighted",
    "rmse_pitch_accel",
    "rmse_window",
    "landing_step",
    "rmse_pitch_accel_window",
    "letter_runs",
    "stiction_time",
    "resliding_time",
    "body_contact_fraction",
    "mode_timeline",
]

MIN_RUN_S = 0.003
"""Shortest run (s) of one rear-toe letter that counts as an event; shorter ones are chatter."""
REAR_TOP = 3
"""Index of the rear-top corner in ``body_corners``."""


def simulated_pitch_accel(result) -> np.ndarray:
    """Simulated pitch acceleration per control step, from the recorded trajectory.

    ``(θ̇_{k+1} − θ̇_k) / (t_{k+1} − t_k)`` with ``θ̇ = result.states[:, 5]``: the exact mean over each
    control period (module docstring).

    Parameters
    ----------
    result : SimulationResult
        A run (``times`` ``(N+1,)`` s, ``states`` ``(N+1, 18)``).

    Returns
    -------
    numpy.ndarray
        ``(N,)`` (rad/s²).

    Raises
    ------
    ValueError
        When ``times`` and ``states`` do not match or ``times`` does not increase.
    """
    times = np.asarray(result.times, dtype=float)
    omega = np.asarray(result.states, dtype=float)[:, 5]
    if times.shape != omega.shape:
        raise ValueError(f"result: times {times.shape} and states {omega.shape} rows differ")
    dt = np.diff(times)
    if np.any(dt <= 0):
        raise ValueError("result.times: must be strictly increasing")
    return np.diff(omega) / dt


def thrust_phase(result) -> int:
    """Number ``n_f`` of control steps in the thrust phase.

    Steps ``0 … n_f − 1``, ending at the last step with a finite ``predicted_pitch_acc`` (0 when
    there is none); ``t_f = result.times[n_f]`` (s). With our controllers (no pitch stop) this is the
    whole run.

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    int
        ``n_f``.
    """
    pred = np.asarray(result.predicted_pitch_acc, dtype=float)
    idx = np.nonzero(np.isfinite(pred))[0]
    return int(idx[-1]) + 1 if idx.size else 0


def rmse_weighted(predicted, simulated, durations) -> float | None:
    """``(Σ w_k (p_k − a_k)² / Σ w_k)^{1/2}`` over the steps where both are finite.

    The integral of the paper's RMSE for piecewise-constant signals.

    Parameters
    ----------
    predicted : array_like
        ``(N,)`` predictions (rad/s²).
    simulated : array_like
        ``(N,)`` simulated values (rad/s²).
    durations : array_like
        ``(N,)`` the weights ``w_k`` (s), ``>= 0``.

    Returns
    -------
    float or None
        The RMSE (rad/s²); ``None`` when no step qualifies.

    Raises
    ------
    ValueError
        On shape mismatch or a negative duration.
    """
    p = np.asarray(predicted, dtype=float)
    a = np.asarray(simulated, dtype=float)
    w = np.asarray(durations, dtype=float)
    if not (p.shape == a.shape == w.shape) or p.ndim != 1:
        raise ValueError(f"predicted, simulated, durations: need equal (N,) shapes, got {p.shape}, {a.shape}, {w.shape}")
    if np.any(w < 0):
        raise ValueError("durations: must be >= 0")
    mask = np.isfinite(p) & np.isfinite(a) & (w > 0)
    if not np.any(mask):
        return None
    return float(math.sqrt(np.sum(w[mask] * (p[mask] - a[mask]) ** 2) / np.sum(w[mask])))


def _rmse_steps(result, k0: int, k1: int) -> float | None:
    sim = simulated_pitch_accel(result)
    pred = np.asarray(result.predicted_pitch_acc, dtype=float)
    if pred.shape != sim.shape:
        raise ValueError(f"result.predicted_pitch_acc: expected shape {sim.shape}, got {pred.shape}")
    dt = np.diff(np.asarray(result.times, dtype=float))
    return rmse_weighted(pred[k0:k1], sim[k0:k1], dt[k0:k1])


def rmse_pitch_accel(result) -> float | None:
    """Table V's RMSE by **the paper's definition**.

    Predicted minus simulated pitch acceleration over the whole thrust phase ``[0, t_f]`` (module
    docstring).

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    float or None
        (rad/s²); ``None`` when the controller made no prediction.

    Raises
    ------
    ValueError
        On inconsistent shapes.
    """
    return _rmse_steps(result, 0, thrust_phase(result))


def landing_step(result) -> int | None:
    """The rear-face landing: the first control step at whose end the rear-top corner touches.

    The first step ``k`` at whose end (state ``k + 1``) the body's rear-top corner is at or below
    the ground (``y <= 0``).

    Parameters
    ----------
    result : SimulationResult
        A run (its ``params`` and ``states``).

    Returns
    -------
    int or None
        ``k``; ``None`` if it never happens.
    """
    p = result.params
    states = np.asarray(result.states, dtype=float)
    for k in range(1, len(states)):
        if body_corners(states[k], p)[REAR_TOP, 1] <= 0.0:
            return k - 1
    return None


def rmse_window(result) -> tuple[int, int]:
    """Steps ``[k0, k1)`` of the documented RMSE window (module docstring).

    ``k0 = 1`` (without the first control step), ``k1`` = the rear-face landing step
    (``landing_step``) or the end of the thrust phase, whichever comes first. Times:
    ``result.times[k0]`` to ``result.times[k1]`` (s); empty when ``k1 <= k0``.

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    k0, k1 : int
        The window's first step and the step after its last.
    """
    n_f = thrust_phase(result)
    landing = landing_step(result)
    k1 = n_f if landing is None else min(n_f, landing)
    return 1, k1


def rmse_pitch_accel_window(result) -> float | None:
    """Table V's RMSE over **our documented window** (``rmse_window``, module docstring).

    The thrust phase without the first-step transient and the rear-face landing.

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    float or None
        (rad/s²); ``None`` when the window holds no step with a prediction.

    Raises
    ------
    ValueError
        On inconsistent shapes.
    """
    k0, k1 = rmse_window(result)
    if k1 <= k0:
        return None
    return _rmse_steps(result, k0, k1)


def letter_runs(letters, dt: float, min_run_s: float = MIN_RUN_S) -> list[tuple[str, int, int]]:
    """Runs of a letter sequence, chatter merged (module docstring).

    Runs shorter than ``min_run_s`` that do not end the sequence are merged into the run before them.

    Parameters
    ----------
    letters : Sequence[str]
        One letter per control step.
    dt : float
        The control period (s).
    min_run_s : float, optional
        The shortest run that counts (s).

    Returns
    -------
    list[tuple[str, int, int]]
        ``(letter, k_start, k_end)``: steps ``k_start … k_end − 1``.
    """
    runs: list[list] = []
    for k, ch in enumerate(letters):
        if runs and runs[-1][0] == ch:
            runs[-1][2] = k + 1
        else:
            runs.append([ch, k, k + 1])
    n = len(letters)
    out: list[list] = []
    for run in runs:
        short = (run[2] - run[1]) * dt < min_run_s - 1e-12 and run[2] < n
        if out and (short or out[-1][0] == run[0]):
            out[-1][2] = run[2]
        else:
            out.append(list(run))
    return [tuple(r) for r in out]


def _rear_toe_runs(result):
    times = np.asarray(result.times, dtype=float)
    dt = float(times[1] - times[0]) if len(times) > 1 else 1.0
    return letter_runs([m[1] for m in result.sim_modes], dt), times


def stiction_time(result) -> float | None:
    """Start of the rear toe's first ``F`` run after it first slid (module docstring).

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    float or None
        (s); ``None`` if the rear toe never sticks after sliding.
    """
    runs, times = _rear_toe_runs(result)
    slid = False
    for letter, k0, _ in runs:
        if letter in "RL":
            slid = True
        elif letter == "F" and slid:
            return float(times[k0])
    return None


def resliding_time(result) -> float | None:
    """Start of the rear toe's first sliding run after its stiction (``stiction_time``).

    The renewed sliding towards the end of the flip.

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    float or None
        (s); ``None`` if there is none.
    """
    runs, times = _rear_toe_runs(result)
    slid = stuck = False
    for letter, k0, _ in runs:
        if letter in "RL":
            if stuck:
                return float(times[k0])
            slid = True
        elif letter == "F" and slid:
            stuck = True
    return None


def body_contact_fraction(result) -> float | None:
    """Fraction of the thrust-phase steps in which the simulated body corner touches the ground.

    ``sim_modes[k][0] != "S"``: how well a controller keeps the body loaded (the task of
    Sec. IV-B.2).

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    float or None
        0–1; ``None`` for an empty thrust phase.
    """
    n_f = thrust_phase(result)
    if n_f == 0:
        return None
    return float(np.mean([m[0] != "S" for m in result.sim_modes[:n_f]]))


TIME_DECIMALS = 6
"""Mode-timeline times are rounded to 1 µs (the control grid is 1 ms)."""


def mode_timeline(result) -> list[dict]:
    """The run as a list of segments ``{"t0", "t1", "simulated", "controller"}``.

    Consecutive control steps with the same simulated mode (4 letters body/toe1/toe2/toe3, as
    ``simulate`` records it over each step) and the same controller mode (4
    letters, or ``None`` when the controller assumed none) are merged; ``t0``/``t1`` (s, rounded to
    1 µs) are the start of the first and the end of the last step, so segments tile
    ``[0, result.times[-1]]`` without gaps.

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    list[dict]
        The segments in time order.
    """
    out: list[dict] = []
    times = np.asarray(result.times, dtype=float)
    for i, (sim, ctl) in enumerate(zip(result.sim_modes, result.controller_modes)):
        t0, t1 = round(float(times[i]), TIME_DECIMALS), round(float(times[i + 1]), TIME_DECIMALS)
        if out and out[-1]["simulated"] == sim and out[-1]["controller"] == ctl:
            out[-1]["t1"] = t1
        else:
            out.append({"t0": t0, "t1": t1, "simulated": sim, "controller": ctl})
    return out
