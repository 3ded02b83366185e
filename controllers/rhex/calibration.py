"""The reproduction's three calibration procedures (``docs/rhex-reproduction.md``), as functions.

The scripts in ``benchmarks/`` run the simulations; the decisions are taken here, on plain data,
so each rule can be tested on synthetic input with a known answer.

1. **Effective torque limit** (``select_torque``, ``benchmarks/calibrate_torque.py``). The paper
   gives no torque limit. Target (its only stated time in the flip's time course, Sec. IV-C.4 on
   Fig. 13): in the new (max-thrust) controller's flip at μ_t = 0.39 the rear toe, stuck since
   mid-thrust, *slides again towards the end of the flip, around t = 0.45 s*
   (``TORQUE_TARGET_S``). Event: ``resliding_time`` (the first sliding run of
   the rear toe after its late stiction), counted only when it happens before the flip. The
   effective limit ``tau_limit`` is the grid value whose event time is closest to the target
   (other defaults fixed). Table V and the flip-time ratio are never looked at.
2. **Blind stiction detector** (``select_detector_threshold``,
   ``benchmarks/tune_blind_detector.py``). The paper's criterion: tuned on linoleum (μ_t = 0.39)
   for "relatively accurate timing for the switching of models". Per threshold, the blind run at
   μ_t = 0.39 gives its switch time and its own simulated rear-toe stiction
   (``stiction_time``); admissible thresholds switch no earlier than the stiction;
   the chosen one has the smallest delay (ties: the middle of the tied thresholds). The *band* is
   every threshold whose switch comes after the stiction and within ``DETECTOR_BAND_S``
   (30 ms) of it.
3. **Velocity thresholds** (``velocity_thresholds``, ``benchmarks/velocity_thresholds.py``).
   The paper's Fig. 12 procedure (Sec. IV-C.3): over a typical blind flip, the rigid model's
   predicted tangential velocity of each contact during the intervals in which the simulated
   contact is fixed; ``v_i^0`` is the largest such speed, so that a contact the simulator holds
   fixed is never pruned to sliding-only by the rigid model's velocity error.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .rigid_model import CONTACT_NAMES, rigid_model

__all__ = [
    "TORQUE_TARGET_S",
    "DETECTOR_BAND_S",
    "DETECTOR_BAND_MEASURED",
    "VELOCITY_FLOOR",
    "select_torque",
    "select_detector_threshold",
    "fixed_steps",
    "velocity_thresholds",
    "round_up",
    "predicted_contact_velocities",
    "simulated_contact_velocities",
]

TORQUE_TARGET_S = 0.45
"""s: the paper's "renewed right sliding of the rear toe towards the end of the flip around
t = 0.45 s" (Sec. IV-C.4, Fig. 13: new controller, μ_t = 0.39)."""
DETECTOR_BAND_S = 0.030
"""s: a threshold is in the detector band when its switch comes 0 … 30 ms after the simulated
rear-toe stiction (the issue's target tolerance)."""
DETECTOR_BAND_MEASURED = (12.0, 20.0)
"""rad/s²: the band measured by ``benchmarks/tune_blind_detector.py`` with the defaults (the
distributions of ``benchmarks/reproduce_flip.py`` sample it; rerun the tuning after changing a
default and update this and ``RHexParams.detector_threshold`` together)."""
VELOCITY_FLOOR = 0.001
"""m/s: no velocity threshold below the paper's smallest value (1 mm/s)."""
TIE_S = 5e-4
"""s: delays or event times closer than half a control period are ties."""


def select_torque(rows: Sequence[tuple[float, float | None]], target: float = TORQUE_TARGET_S):
    """The effective torque limit from a torque scan (procedure 1 of the module docstring).

    Parameters
    ----------
    rows : Sequence[tuple[float, float or None]]
        ``(tau_limit N·m, event time s or None)`` per scanned value.
    target : float, optional
        The target event time (s).

    Returns
    -------
    tau : float or None
        The value whose event is closest to ``target`` (ties: the smaller torque, the more
        conservative reading of the hardware), ``None`` when no row has an event.
    table : list[dict]
        The rows as dicts ``{"tau_limit", "event_s", "error_s"}`` sorted by torque.
    """
    table = []
    for tau, event in sorted(rows, key=lambda r: r[0]):
        err = None if event is None else abs(float(event) - target)
        table.append({"tau_limit": float(tau), "event_s": None if event is None else float(event), "error_s": err})
    ok = [r for r in table if r["error_s"] is not None]
    if not ok:
        return None, table
    best_err = min(float(r["error_s"] or 0.0) for r in ok)
    ties = [r for r in ok if float(r["error_s"] or 0.0) <= best_err + TIE_S]
    return ties[0]["tau_limit"], table


def select_detector_threshold(rows: Sequence[tuple[float, float | None, float | None]],
                              band_s: float = DETECTOR_BAND_S):
    """The blind detector's threshold by detection accuracy (procedure 2 of the module docstring).

    Parameters
    ----------
    rows : Sequence[tuple[float, float or None, float or None]]
        ``(threshold rad/s², switch time s or None, simulated stiction time s or None)``, one blind
        run each at μ_t = 0.39.
    band_s : float, optional
        The band's largest delay (s).

    Returns
    -------
    best : float or None
        The admissible threshold (switch >= stiction) with the smallest delay — ties (within half a
        control period) resolved to the middle of the tied thresholds (the lower middle for an even
        count) — or ``None``.
    band : list[float]
        The sorted thresholds with ``0 <= delay <= band_s``.
    table : list[dict]
        One dict per row ``{"threshold", "switch_s", "stiction_s", "delay_s", "admissible"}`` sorted
        by threshold (``delay_s`` ``None`` when either time is missing; a switch before the stiction
        has a negative delay and is not admissible).
    """
    table = []
    for th, switch, stick in sorted(rows, key=lambda r: r[0]):
        delay = None if switch is None or stick is None else float(switch) - float(stick)
        table.append({"threshold": float(th), "switch_s": switch, "stiction_s": stick, "delay_s": delay,
                      "admissible": delay is not None and delay >= -1e-9})
    ok = [r for r in table if r["admissible"]]
    band = [r["threshold"] for r in ok if float(r["delay_s"] or 0.0) <= band_s + 1e-9]
    if not ok:
        return None, band, table
    best_delay = min(float(r["delay_s"] or 0.0) for r in ok)
    ties = [r["threshold"] for r in ok if float(r["delay_s"] or 0.0) <= best_delay + TIE_S]
    return ties[(len(ties) - 1) // 2], band, table


def fixed_steps(letters: Sequence[str]) -> np.ndarray:
    """Which steps lie inside a fixed interval of the contact.

    Step ``k`` does when its simulated letter is ``F`` over control period ``k − 1`` and over period
    ``k`` (so the state at ``t_k``, where the rigid model's prediction is taken, is within the
    interval, not at its ends). Step 0 never.

    Parameters
    ----------
    letters : Sequence[str]
        ``(N,)`` the contact's simulated letter per control period.

    Returns
    -------
    numpy.ndarray
        ``(N,)`` bool.
    """
    f = np.array([ch == "F" for ch in letters], dtype=bool)
    out = np.zeros(len(f), dtype=bool)
    out[1:] = f[1:] & f[:-1]
    return out


def velocity_thresholds(predicted, letters, floor: float = VELOCITY_FLOOR) -> list[dict]:
    """Fig. 12 procedure (module docstring) for one or several runs.

    Parameters
    ----------
    predicted : list[numpy.ndarray] or numpy.ndarray
        Per run ``r`` an ``(N_r, k)`` array of the rigid model's tangential contact velocities (m/s,
        NaN where the model leaves the contact out) at the start of each control step; a single run
        may be passed as an array.
    letters : list[Sequence[str]] or Sequence[str]
        Per run ``(N_r,)`` the simulated letters of those contacts (one string of ``k`` letters per
        step); a single run as one sequence.
    floor : float, optional
        The smallest threshold (m/s).

    Returns
    -------
    list[dict]
        One per contact: ``{"max_speed": largest |v| over the fixed steps (fixed_steps) or None if
        there are none, "n_fixed": count, "threshold": max(floor, round_up(max_speed))}`` (``floor``
        alone without fixed steps); m/s.

    Raises
    ------
    ValueError
        On mismatched shapes.
    """
    if isinstance(predicted, np.ndarray):
        predicted, letters = [predicted], [letters]
    if len(predicted) != len(letters):
        raise ValueError("predicted, letters: need one entry per run")
    k = None
    speeds: list[list[float]] = []
    for pv, lt in zip(predicted, letters):
        pv = np.asarray(pv, dtype=float)
        if pv.ndim != 2 or pv.shape[0] != len(lt) or (k is not None and pv.shape[1] != k):
            raise ValueError(f"predicted: expected (N, k) matching the letters, got {pv.shape}")
        k = pv.shape[1]
        if not speeds:
            speeds = [[] for _ in range(k)]
        for i in range(k):
            mask = fixed_steps([m[i] for m in lt]) & np.isfinite(pv[:, i])
            speeds[i].extend(np.abs(pv[mask, i]).tolist())
    out = []
    for s in speeds:
        top = max(s) if s else None
        out.append({"max_speed": top, "n_fixed": len(s),
                    "threshold": floor if top is None else max(floor, round_up(top))})
    return out


def round_up(value: float, digits: int = 2) -> float:
    """``value`` (> 0) rounded *up* to ``digits`` significant digits (0.0734 → 0.074).

    Parameters
    ----------
    value : float
        The number (``<= 0`` gives 0).
    digits : int, optional
        Significant digits.

    Returns
    -------
    float
        The rounded number.
    """
    if value <= 0:
        return 0.0
    e = math.floor(math.log10(value)) - digits + 1
    q = 10.0 ** e
    return round(math.ceil(value / q - 1e-9) * q, max(0, -e))


def predicted_contact_velocities(result) -> np.ndarray:
    """The rigid model's tangential contact velocities at the start of each control step.

    Of the contacts body, toe1..3 (``rigid_model`` at ``states[k]``: ``J q̇`` with the compliant
    legs' hip speeds and no radial rate).

    Parameters
    ----------
    result : SimulationResult
        A run (its ``params`` and ``states``).

    Returns
    -------
    numpy.ndarray
        ``(N, 4)`` (m/s), NaN for a toe the model leaves out (more than ``toe_clearance`` above the
        ground).
    """
    p = result.params
    n = len(result.sim_modes)
    out = np.full((n, len(CONTACT_NAMES)), np.nan)
    for k in range(n):
        model = rigid_model(result.states[k], p, task=False)
        v = np.asarray(model.system.v_contact, dtype=float).reshape(-1, 2)
        for j, name in enumerate(model.contacts):
            out[k, CONTACT_NAMES.index(name)] = v[j, 0]
    return out


def simulated_contact_velocities(result) -> np.ndarray:
    """The simulated tangential velocities at the start of each control step.

    Of the body's rear-bottom corner and the three toes (the compliant model's own state).

    Parameters
    ----------
    result : SimulationResult
        A run.

    Returns
    -------
    numpy.ndarray
        ``(N, 4)`` (m/s).
    """
    p = result.params
    st = np.asarray(result.states, dtype=float)[:-1]
    th, om = st[:, 2], st[:, 5]
    ry = np.sin(th) * (-p.d) + np.cos(th) * (-p.h)  # rear-bottom corner, world offset from the centre
    body = st[:, 3] - om * ry
    return np.column_stack([body, st[:, 12], st[:, 14], st[:, 16]])
