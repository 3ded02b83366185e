"""The ``contactmodes.simulation/1`` document of a run (``contactmodes simulate --json``).

Keys (SI units; schema ``contactmodes/schemas/contactmodes.simulation-1.schema.json``):

* ``schema``, ``system`` (the file's name), ``controller`` (the ``--controller`` text),
  ``engine`` (``{"name": "mujoco", "version"}``), ``dt_s`` (MuJoCo step), ``control_dt_s``,
  ``duration_s``, ``coordinates``, ``actuators``, ``contacts``;
* ``t`` (s, start of each control step), ``q`` and ``qdot`` (objects keyed by coordinate, one value
  per control step: the state at ``t``), ``q_end`` (the state after the last step), ``torque``
  (keyed by actuator: the applied torque of each step), ``modes`` (keyed by contact: one letter per
  step, of the mean contact force and velocity over the step, ``controllers.simulation.modes``);
* ``plant_difference`` (``controllers.simulation.model.PlantDifference``), ``contact_settings``,
  ``mode_thresholds``;
* ``creep`` (keyed by contact): ``sticking_s`` the time the contact was ``F``, ``drift_m`` the
  displacement of the contact point along its line over those steps (``Σ t·(p_{k+1} − p_k)`` over
  the steps ``k`` whose letter is ``F``), ``speed_m_s`` ``|drift| / sticking`` (``null`` when the
  contact never sticks);
* ``prediction``: ``null`` unless the controller predicted ``q̈``; otherwise the RMSE, per
  coordinate, between the predicted ``q̈`` (held over the step) and the simulated mean ``q̈``
  over the step, ``(q̇_{k+1} − q̇_k) / Δt``, over three documented windows: ``all`` (every step
  with a prediction), ``after_first`` (without the first step: the contacts settle from the margin
  and the friction rows build up their force during it) and ``mode_agrees`` (``after_first``
  restricted to the steps whose simulated mode is the controller's predicted mode; ``null`` when
  the controller predicts no mode). Each window: ``{"steps": n, "rmse": {coordinate: value} |
  null}`` (m/s² or rad/s²);
* ``controller_status``: ``null`` unless the controller reports a status (``--controller
  control``); otherwise one string per control step, the controller's status of the step
  (``controllers.generic.controller.STATUSES``: ``"optimal"``, ``"ambiguous"``, ... and the
  fallbacks of a step without an acceptable mode, ``"no_mode_held"``, ``"no_mode_zero"``,
  ``"error_held"``, ``"error_zero"``; ``fallback_steps``);
* ``penetrations``: the links found below a contact surface
  (``controllers.simulation.penetration``): per link and surface ``{"link", "surface"`` (the
  contacts whose line it is), ``"first_s", "depth_m"}``, in order of their first time; empty
  when none;
* ``disturbance`` (only when the run had one, ``--disturbance``): the held generalized force keyed
  by coordinate (N on ``x``/``y``, N·m on angles; zero on the coordinates not named);
* ``touchdowns`` (when given, ``contactmodes simulate`` always gives it): one entry per touchdown
  event, MuJoCo's pre-impact state and observed post-impact velocity and modes beside the
  toolkit's predicted plastic impact outcomes
  (``controllers.simulation.touchdown.touchdown_entries``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .loop import SimulationRun
from .modes import ModeThresholds

__all__ = ["SCHEMA", "simulation_document", "creep", "prediction_rmse", "fallback_steps", "FALLBACK_PREFIXES"]

SCHEMA = "contactmodes.simulation/1"

FALLBACK_PREFIXES = ("no_mode", "error")
"""A controller status that starts with one of these names a step without an acceptable mode
(the generic controller's ``FALLBACK_STATUSES``: its torque is a fallback, not an acceptable
mode's)."""


def fallback_steps(statuses: list) -> list[int]:
    """The indices of the control steps whose controller status (``controller_status``, ``None``
    for none) names a fallback (``FALLBACK_PREFIXES``).

    Parameters
    ----------
    statuses : list
        Per control step the controller's status (a string) or ``None``.

    Returns
    -------
    list[int]
        Step indices, increasing.
    """
    return [k for k, st in enumerate(statuses) if st is not None and str(st).startswith(FALLBACK_PREFIXES)]


def _floats(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, float).reshape(-1)]


def creep(run: SimulationRun) -> dict[str, dict | None]:
    """Per contact ``{"sticking_s", "drift_m", "speed_m_s"}`` (module docstring), ``None`` when
    the contact never sticks.

    Parameters
    ----------
    run : SimulationRun
        The recorded run.

    Returns
    -------
    dict[str, dict or None]
        Contact name → ``{"sticking_s": s, "drift_m": m, "speed_m_s": m/s}`` or ``None``.
    """
    out: dict[str, dict | None] = {}
    for i, name in enumerate(run.plant.contacts):
        steps = [k for k, m in enumerate(run.modes) if m[i] == "F"]
        if not steps:
            out[name] = None
            continue
        t = run.plant.tangents[i]
        drift = float(sum(t @ (run.position[k + 1, i] - run.position[k, i]) for k in steps))
        sticking = len(steps) * run.control_dt
        out[name] = {"sticking_s": sticking, "drift_m": drift, "speed_m_s": abs(drift) / sticking}
    return out


def _window(run: SimulationRun, mask: np.ndarray) -> dict:
    sim = run.simulated_qdd()
    pred = run.predicted_qdd
    mask = mask & np.all(np.isfinite(pred), axis=1)
    n = int(mask.sum())
    if n == 0:
        return {"steps": 0, "rmse": None}
    err = pred[mask] - sim[mask]
    return {"steps": n, "rmse": {c: float(math.sqrt(np.mean(err[:, j] ** 2)))
                                  for j, c in enumerate(run.plant.coordinates)}}


def prediction_rmse(run: SimulationRun) -> dict | None:
    """The ``prediction`` entry (module docstring): ``None`` when the controller predicted nothing.

    Parameters
    ----------
    run : SimulationRun
        The recorded run.

    Returns
    -------
    dict or None
        ``{"windows": {"all", "after_first", "mode_agrees"}}``, each ``{"steps", "rmse"}`` with the
        RMSE per coordinate (the coordinate's acceleration unit, m/s² or rad/s²).
    """
    if not np.any(np.all(np.isfinite(run.predicted_qdd), axis=1)):
        return None
    N = len(run.modes)
    every = np.ones(N, bool)
    after = every.copy()
    after[0] = False
    has_mode = any(m is not None for m in run.predicted_mode)
    agrees = None
    if has_mode:
        agrees = _window(run, after & np.array([p == m for p, m in zip(run.predicted_mode, run.modes)]))
    return {"windows": {"all": _window(run, every), "after_first": _window(run, after), "mode_agrees": agrees}}


def simulation_document(run: SimulationRun, system: str, controller: str, duration: float,
                        thresholds: ModeThresholds | None = None, touchdowns: list | None = None) -> dict:
    """The ``contactmodes.simulation/1`` document of ``run`` (module docstring).

    Parameters
    ----------
    run : SimulationRun
        The recorded run.
    system : str
        The system's name.
    controller : str
        The ``--controller`` text.
    duration : float
        The requested duration (s).
    thresholds : ModeThresholds, optional
        The thresholds the letters were read with (default ``ModeThresholds()``).
    touchdowns : list[dict], optional
        The ``touchdowns`` entries (``controllers.simulation.touchdown.touchdown_entries``);
        left out of the document when ``None``.

    Returns
    -------
    dict
        JSON-ready (finite floats, lists, ``None``).
    """
    import mujoco

    plant = run.plant
    th = ModeThresholds() if thresholds is None else thresholds
    s = plant.settings
    L = plant.length
    doc = {
        "schema": SCHEMA,
        "system": system,
        "controller": controller,
        "engine": {"name": "mujoco", "version": str(mujoco.__version__)},
        "dt_s": float(plant.model.opt.timestep),
        "control_dt_s": float(run.control_dt),
        "duration_s": float(duration),
        "coordinates": list(plant.coordinates),
        "actuators": list(plant.actuators),
        "contacts": list(plant.contacts),
        "t": _floats(run.times),
        "q": {c: _floats(run.q[:-1, j]) for j, c in enumerate(plant.coordinates)},
        "qdot": {c: _floats(run.qdot[:-1, j]) for j, c in enumerate(plant.coordinates)},
        "q_end": {c: float(run.q[-1, j]) for j, c in enumerate(plant.coordinates)},
        "torque": {a: _floats(run.torque[:, j]) for j, a in enumerate(plant.actuators)},
        "modes": {c: [m[i] for m in run.modes] for i, c in enumerate(plant.contacts)},
        "plant_difference": plant.difference.to_json(),
        "contact_settings": {"solref": list(s.solref()), "solreffriction": [s.friction_timeconst, 1.0],
                             "solimp": list(s.solimp), "impratio": s.impratio, "cone": "elliptic",
                             "margin_m": s.margin_rel * L, "sphere_radius_m": s.radius_rel * L},
        "mode_thresholds": {"force_n": th.force_tol(plant), "slip_m_s": th.slip_tol(plant)},
        "creep": creep(run),
        "prediction": prediction_rmse(run),
        "controller_status": (None if all(st is None for st in run.controller_status)
                              else [str(st) if st is not None else "none" for st in run.controller_status]),
        "penetrations": [e.to_json() for e in run.penetrations],
    }
    if run.disturbance is not None:
        doc["disturbance"] = {c: float(run.disturbance[j]) for j, c in enumerate(plant.coordinates)}
    if touchdowns is not None:
        doc["touchdowns"] = touchdowns
    return doc
