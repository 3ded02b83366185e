"""The control loop: a controller driving the MuJoCo plant at a fixed rate (zero-order hold).

Control step ``k`` (``k = 0 … N−1``, ``N = round(duration · rate)``) starts at ``t_k = k / rate``
from the simulated state ``(q_k, q̇_k)``: the controller returns ``τ_k`` (clamped to the plant's
limits by MuJoCo, which records the applied value), held for ``n_sub = 1 / (rate · dt)`` MuJoCo
steps. Recorded per step: the state at ``t_k``, the applied torque, the contact forces and
point velocities averaged over the period's MuJoCo steps (each read from the forward pass its step
began with) and the mode letters of those means (``controllers.simulation.modes``), the
controller's predicted ``q̈`` and mode when it gives them and its status; and the state at the end
``t_N``. Every MuJoCo step also feeds the touchdown detector (``controllers.simulation.touchdown``);
at every step's start and at the end the links' points are checked against the contact surfaces
(``controllers.simulation.penetration``). MuJoCo's warnings are errors (``PlantFailure``, after
the control period that raised them) and are kept from its log file
(``controllers.simulation.mujoco_warnings``). The number of control steps is checked before
anything is allocated (``control_steps``, ``MAX_STEPS``).

An optional disturbance ``τ_d`` ((n_q,) generalized force, N on ``x``/``y``, N·m on angles) is
held over the whole run (MuJoCo's ``qfrc_applied``): ``M q̈ + h = S τ + τ_d + Jᵀ f``, the
``E δ`` of a system file's ``[disturbance]`` with ``τ_d = E δ`` (docs/conventions.md).

A controller is any callable ``controller(q, qdot) -> tau`` (``q``, ``qdot`` (n_q,) SI, ``tau``
(n_τ,) in the file's units); after each call the loop reads its optional attributes
``predicted_qdd`` ((n_q,) or ``None``), ``predicted_mode`` (a mode string or ``None``) and
``controller_status`` (a string naming how the step's torque was found, e.g. the generic
controller's ``"optimal"`` or ``"no_mode_held"``, or ``None``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.progress import Progress, stage

from .model import Plant
from .modes import ModeThresholds, mode_letters, read_contacts
from .touchdown import TouchdownDetector

__all__ = ["SimulationRun", "simulate", "substeps", "control_steps", "MAX_STEPS"]

_STEP_TOL = 1e-9

MAX_STEPS = 100_000
"""Default largest number of control steps a run takes (``simulate``'s ``max_steps``,
``contactmodes simulate --max-steps``): 1000 s at the default 100 Hz. Every step keeps the state,
the torque and the contact readings (``SimulationRun``) and a step of the generic controller
costs about a millisecond or more, so a longer run is minutes of work and a document of hundreds of
megabytes, more likely a typo (``--duration 1e9``) than a plan; raise the limit to run it anyway.
Checked before anything is allocated, as ``sweep`` checks its grid (``contactmodes.sweeps.grid``)."""


def substeps(rate: float, dt: float) -> int:
    """MuJoCo steps per control step, ``1 / (rate · dt)``.

    Parameters
    ----------
    rate : float
        Control rate (Hz), finite and > 0.
    dt : float
        MuJoCo time step (s).

    Returns
    -------
    int
        ``>= 1``.

    Raises
    ------
    ContactModelError
        Naming ``--rate`` unless the ratio is a whole number >= 1.
    """
    if not (math.isfinite(rate) and rate > 0):
        raise ContactModelError(f"--rate: must be a finite number > 0 (Hz), got {rate}")
    n = 1.0 / (rate * dt)
    if n < 1 - _STEP_TOL or abs(n - round(n)) > _STEP_TOL * max(1.0, n):
        raise ContactModelError(f"--rate: the control period 1/{rate:g} s must be a whole number of simulation "
                                f"steps of {dt:g} s (--dt), got {n:g}")
    return int(round(n))


def control_steps(duration: float, rate: float, dt: float, max_steps: int | None = MAX_STEPS) -> int:
    """The number of control steps of a run, ``N = max(1, round(duration / (n_sub · dt)))`` with
    ``n_sub = substeps(rate, dt)``, checked against ``max_steps`` before anything is allocated.

    Parameters
    ----------
    duration : float
        Simulated time (s), finite and > 0.
    rate : float
        Control rate (Hz).
    dt : float
        MuJoCo time step (s).
    max_steps : int or None, optional
        Refuse more control steps (``MAX_STEPS`` by default; ``None``: no limit).

    Returns
    -------
    int

    Raises
    ------
    ContactModelError
        One line naming ``--duration`` (not finite or not > 0, or more steps than ``max_steps``,
        saying how to run it anyway) or ``--rate`` (``substeps``).
    """
    if not (math.isfinite(duration) and duration > 0):
        raise ContactModelError(f"--duration: must be a finite number > 0 (s), got {duration}")
    control_dt = substeps(rate, dt) * dt
    N = max(1, int(round(duration / control_dt)))
    if max_steps is not None and N > max_steps:
        raise ContactModelError(f"--duration: {duration:g} s at {1 / control_dt:g} Hz is {N} control steps, more than "
                                f"the limit of {max_steps} (give --max-steps {N} to run it anyway)")
    return N


@dataclass
class SimulationRun:
    """What one closed-loop run recorded (module docstring), SI units.

    Attributes
    ----------
    plant : Plant
        The simulated plant.
    control_dt : float
        Control period ``1 / rate`` (s).
    times : numpy.ndarray
        ``(N,)`` start of each control step (s).
    q, qdot : numpy.ndarray
        ``(N + 1, n_q)`` state at each step's start and at the end.
    torque : numpy.ndarray
        ``(N, n_τ)`` applied torques (after MuJoCo's clamping).
    modes : list[str]
        ``N`` mode strings (one letter per contact).
    force, velocity : numpy.ndarray
        ``(N, k, 2)`` contact forces ``(f_t, f_n)`` (N) and point velocities ``(v_t, v_n)`` (m/s),
        means over each control period.
    position : numpy.ndarray
        ``(N + 1, k, 2)`` contact point positions (m) at each step's start and at the end.
    predicted_qdd : numpy.ndarray
        ``(N, n_q)`` the controller's predicted ``q̈`` (NaN where it gave none).
    predicted_mode : list
        ``N`` predicted mode strings or ``None``.
    controller_status : list
        ``N`` controller statuses (the controller's ``controller_status`` after each call) or
        ``None``.
    disturbance : numpy.ndarray or None
        ``(n_q,)`` the held disturbance generalized force (N, N·m), ``None`` without one.
    touchdowns : list[TouchdownEvent]
        The touchdowns of the run (``controllers.simulation.touchdown``), in time order.
    penetrations : list[Penetration]
        The links found below a contact surface (``controllers.simulation.penetration``), in
        order of their first time.
    """

    plant: Plant
    control_dt: float
    times: np.ndarray
    q: np.ndarray
    qdot: np.ndarray
    torque: np.ndarray
    modes: list[str]
    force: np.ndarray
    velocity: np.ndarray
    position: np.ndarray
    predicted_qdd: np.ndarray
    predicted_mode: list
    controller_status: list = field(default_factory=list)
    disturbance: np.ndarray | None = None
    touchdowns: list = field(default_factory=list)
    penetrations: list = field(default_factory=list)

    def simulated_qdd(self) -> np.ndarray:
        """``(N, n_q)`` mean ``q̈`` over each control step, ``(q̇_{k+1} − q̇_k) / Δt``."""
        return np.diff(self.qdot, axis=0) / self.control_dt


def simulate(plant: Plant, q0: np.ndarray, qdot0: np.ndarray, controller: Callable[[np.ndarray, np.ndarray], Any],
             duration: float, rate: float, thresholds: ModeThresholds | None = None,
             progress: Progress | None = None, disturbance: np.ndarray | None = None,
             max_steps: int | None = MAX_STEPS) -> SimulationRun:
    """Run ``controller`` on ``plant`` from ``(q0, qdot0)`` for ``duration`` s at ``rate`` Hz.

    Parameters
    ----------
    plant : Plant
        From ``controllers.simulation.model.build_plant``.
    q0, qdot0 : numpy.ndarray
        ``(n_q,)`` initial state (SI).
    controller : callable
        ``controller(q, qdot) -> tau`` ((n_τ,)); optional attributes ``predicted_qdd``,
        ``predicted_mode`` (module docstring).
    duration : float
        Simulated time (s), > 0.
    rate : float
        Control rate (Hz); ``1 / (rate · dt)`` must be a whole number.
    thresholds : ModeThresholds, optional
        Mode letter thresholds.
    progress : Progress, optional
        Progress on stderr (one stage, one update per control step).
    disturbance : numpy.ndarray, optional
        ``(n_q,)`` generalized force held over the run (N on ``x``/``y``, N·m on angles), added
        to the right-hand side as ``S τ`` is (module docstring).
    max_steps : int or None, optional
        Refuse a run of more control steps (``MAX_STEPS``; ``control_steps``); ``None``: no limit.

    Returns
    -------
    SimulationRun

    Raises
    ------
    ContactModelError
        Bad duration or rate, more control steps than ``max_steps``, a torque or disturbance of
        the wrong shape or not finite.
    PlantFailure
        MuJoCo warned during the run (``controllers.simulation.mujoco_warnings``: a diverging
        simulation, a control it discarded, a full buffer); nothing is kept. MuJoCo's warnings are
        captured for the run: nothing is written into the current folder.
    KeyboardInterrupt
        Passed on (nothing is kept).
    """
    from .mujoco_warnings import capture

    model = plant.model
    N = control_steps(duration, rate, model.opt.timestep, max_steps)
    with capture() as texts:
        return _run(plant, q0, qdot0, controller, N, substeps(rate, model.opt.timestep), thresholds, progress,
                    disturbance, texts)


def _run(plant: Plant, q0, qdot0, controller, N: int, n_sub: int, thresholds, progress, disturbance,
         texts: list[str]) -> SimulationRun:
    """``simulate``'s loop: ``N`` control steps of ``n_sub`` MuJoCo steps, MuJoCo's warning texts
    collected in ``texts`` (``mujoco_warnings.capture``)."""
    import mujoco

    from .mujoco_warnings import check
    from .penetration import PenetrationWatch

    model = plant.model
    control_dt = n_sub * model.opt.timestep
    n, n_tau, k = len(plant.coordinates), len(plant.actuators), len(plant.contacts)
    data = mujoco.MjData(model)
    plant.set_state(data, np.asarray(q0, float), np.asarray(qdot0, float))
    if disturbance is not None:
        disturbance = np.array(disturbance, dtype=float).reshape(-1)
        if disturbance.shape != (n,) or not np.all(np.isfinite(disturbance)):
            raise ContactModelError(f"--disturbance: expected {n} finite generalized forces, got "
                                    f"{disturbance.tolist()}")
        data.qfrc_applied[plant.qpos_index] = disturbance  # held: mj_step never clears it
    mujoco.mj_forward(model, data)
    check(data, 0.0, texts)
    watch = PenetrationWatch(plant, data)
    q = np.zeros((N + 1, n))
    qdot = np.zeros((N + 1, n))
    torque = np.zeros((N, n_tau))
    force = np.zeros((N, k, 2))
    velocity = np.zeros((N, k, 2))
    position = np.zeros((N + 1, k, 2))
    pred = np.full((N, n), np.nan)
    pred_mode: list = [None] * N
    status: list = [None] * N
    modes: list[str] = []
    detector = TouchdownDetector(plant, thresholds) if k else None
    with stage(progress, "simulate", N) as bar:
        for step in range(N):
            q[step], qdot[step] = plant.state(data)
            mujoco.mj_kinematics(model, data)  # positions at q_k (the last step's pass saw the state before it)
            position[step] = data.geom_xpos[plant.sphere_geoms][:, :2] if k else np.zeros((0, 2))
            watch.update(step * control_dt, data)
            tau = np.asarray(controller(q[step].copy(), qdot[step].copy()), dtype=float).reshape(-1)
            if tau.shape != (n_tau,) or not np.all(np.isfinite(tau)):
                raise ContactModelError(f"--controller: returned {tau.tolist()} at t = {step * control_dt:g} s; "
                                        f"expected {n_tau} finite torques")
            p = getattr(controller, "predicted_qdd", None)
            if p is not None:
                pred[step] = np.asarray(p, float).reshape(n)
            pred_mode[step] = getattr(controller, "predicted_mode", None)
            status[step] = getattr(controller, "controller_status", None)
            if n_tau:
                data.ctrl[plant.ctrl_index] = tau
            f_sum = np.zeros((k, 2))
            v_sum = np.zeros((k, 2))
            for sub in range(n_sub):
                if detector is not None:
                    q_j, qdot_j = plant.state(data)
                mujoco.mj_step(model, data)
                if k:
                    reading = read_contacts(plant, data, thresholds)
                    f_sum += reading.force
                    v_sum += reading.velocity
                if detector is not None:
                    detector.update(step * control_dt + sub * model.opt.timestep, q_j, qdot_j, reading.force,
                                    reading.velocity, data.qvel[plant.qpos_index])
            check(data, (step + 1) * control_dt, texts)
            torque[step] = data.actuator_force[plant.ctrl_index] if n_tau else tau
            force[step], velocity[step] = f_sum / n_sub, v_sum / n_sub
            modes.append(mode_letters(plant, force[step], velocity[step], thresholds))
            bar.update(1)
    q[N], qdot[N] = plant.state(data)
    mujoco.mj_kinematics(model, data)
    position[N] = data.geom_xpos[plant.sphere_geoms][:, :2] if k else np.zeros((0, 2))
    watch.update(N * control_dt, data)
    return SimulationRun(plant=plant, control_dt=control_dt, times=np.arange(N) * control_dt, q=q, qdot=qdot,
                         torque=torque, modes=modes, force=force, velocity=velocity, position=position,
                         predicted_qdd=pred, predicted_mode=pred_mode, controller_status=status, disturbance=disturbance,
                         touchdowns=[] if detector is None else detector.finished(), penetrations=watch.finished())
