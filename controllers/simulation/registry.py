"""The controllers ``contactmodes simulate --controller`` offers.

* ``zero`` — no torque: ``τ = 0``;
* ``constant:TAU1,TAU2,...`` — a held torque, one value per actuator in the file's units;
* ``control`` — ``controllers.generic.UnambiguousOptimalController`` with the file's ``[control]``
  objective, limits (a finite box per actuator, the controller's requirement) and modes
  (``LoadedSystem.control``), imported only when chosen, wrapped in ``GenericController`` for its
  predicted mode and ``q̈``.

Every controller is wrapped in the file's ``[control]`` torque limits when the file has some
(``LimitedController``: the box and the torque–speed line at the current actuator speed); the
same box is the plant's ``ctrlrange``. ``make_controller`` raises ``UserError`` naming
``--controller`` for a spec it cannot use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from contactmodes.cli import UserError
from contactmodes.errors import ContactModelError

__all__ = ["CHOICES", "Choice", "GenericController", "LimitedController", "file_limits", "make_controller"]

CHOICES = ("control", "zero", "constant:TAU1,TAU2,...")


@dataclass(frozen=True)
class Choice:
    """A controller ready to run.

    Attributes
    ----------
    name : str
        ``"zero"``, ``"constant"`` or ``"control"``.
    controller : callable
        ``controller(q, qdot) -> tau`` (``controllers.simulation.loop``).
    """

    name: str
    controller: Callable[[np.ndarray, np.ndarray], Any]


class _Zero:
    def __init__(self, n_tau: int) -> None:
        self.tau = np.zeros(n_tau)

    def __call__(self, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
        return self.tau.copy()


class _Constant(_Zero):
    def __init__(self, tau: np.ndarray) -> None:
        self.tau = np.asarray(tau, float)


class LimitedController:
    """A controller whose torque is clamped to per-actuator limits.

    Parameters
    ----------
    inner : callable
        ``inner(q, qdot) -> tau``; its ``predicted_qdd`` and ``predicted_mode`` are passed on.
    limits : list
        One ``contactmodes.control.limits.TorqueLimit`` or ``None`` per actuator.
    S : numpy.ndarray
        ``(n_q, n_τ)`` actuator matrix (the actuator speeds are ``Sᵀ q̇``).
    """

    def __init__(self, inner: Callable, limits: list, S: np.ndarray) -> None:
        self.inner, self.limits, self.S = inner, limits, np.asarray(S, float)

    @property
    def predicted_qdd(self) -> Any:
        """The inner controller's prediction (``None`` if it gives none)."""
        return getattr(self.inner, "predicted_qdd", None)

    @property
    def predicted_mode(self) -> Any:
        """The inner controller's predicted mode (``None`` if it gives none)."""
        return getattr(self.inner, "predicted_mode", None)

    @property
    def controller_status(self) -> Any:
        """The inner controller's status of its last call (``None`` if it gives none)."""
        return getattr(self.inner, "controller_status", None)

    def __call__(self, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
        """The inner controller's torque, each component clamped to its actuator's limit at the
        current actuator speed (``TorqueLimit.bounds`` of ``Sᵀ q̇``: the box and the torque–speed
        line).

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        numpy.ndarray
            ``(n_τ,)`` the clamped torque (N·m; N for a force), a new array.
        """
        tau = np.array(self.inner(q, qdot), dtype=float).reshape(-1)
        speeds = self.S.T @ np.asarray(qdot, float)
        for j, limit in enumerate(self.limits):
            if limit is not None and j < tau.size:
                lo, hi = limit.bounds(float(speeds[j]))
                tau[j] = min(max(tau[j], lo), hi)
        return tau


def file_limits(loaded: Any) -> tuple[list, np.ndarray | None]:
    """The ``[control]`` torque limits of a loaded file. A file without ``[control]`` (or a
    toolkit without ``contactmodes.control``) has none.

    Parameters
    ----------
    loaded : LoadedSystem
        The loaded system file (its ``control`` spec and the actuator names ``system.torques``).

    Returns
    -------
    tuple
        ``(limits, box)``: ``limits`` a list with one ``TorqueLimit`` or ``None`` per actuator;
        ``box`` the ``(n_τ, 2)`` array of ``[lo, hi]`` (N·m; N for a force; ``±inf`` for an
        actuator without a limit), ``None`` when the file gives no limit.
    """
    spec = _spec(loaded, required=False)
    actuators = loaded.system.torques
    if spec is None or not spec.limits:
        return [None] * len(actuators), None
    limits = [spec.limits.get(a) for a in actuators]
    box = np.array([[l.lo, l.hi] if l is not None else [-math.inf, math.inf] for l in limits], float)
    return limits, box


def _spec(loaded: Any, required: bool) -> Any:
    """The file's ``ControlSpec`` (``LoadedSystem.control``), or ``None``; with ``required`` a
    toolkit without ``[control]`` support is a ``UserError``."""
    if hasattr(loaded, "control"):
        return loaded.control
    if required:
        raise UserError("--controller: control: this version has no [control] table support "
                        "(LoadedSystem.control)")
    return None


def _parse_constant(text: str, n_tau: int, names: tuple[str, ...]) -> np.ndarray:
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    try:
        values = np.array([float(p) for p in parts], dtype=float)
    except ValueError:
        raise UserError(f"--controller: constant: expected numbers TAU1,TAU2,..., got {text!r}") from None
    if values.shape != (n_tau,):
        raise UserError(f"--controller: constant: expected {n_tau} value(s) (one per actuator: "
                        f"{', '.join(names) or 'none'}), got {len(parts)}")
    if not np.all(np.isfinite(values)):
        raise UserError(f"--controller: constant: values must be finite, got {text!r}")
    return values


def _checked_control(values: np.ndarray, loaded: Any, names: tuple[str, ...]) -> np.ndarray:
    """``values`` unless one of them, clamped to the file's ``[control]`` box when it has one, is
    beyond MuJoCo's largest control (``mujoco_warnings.MAX_CONTROL``: MuJoCo would discard it and
    apply zero); ``UserError`` naming ``--controller`` then."""
    from .mujoco_warnings import MAX_CONTROL

    _, box = file_limits(loaded)
    applied = values if box is None else np.clip(values, box[:, 0], box[:, 1])
    for name, v in zip(names, applied):
        if abs(v) > MAX_CONTROL:
            raise UserError(f"--controller: constant: {name} = {v:g} is beyond MuJoCo's largest control "
                            f"({MAX_CONTROL:g}; MuJoCo would apply 0)")
    return values


class GenericController:
    """``controllers.generic.UnambiguousOptimalController`` with the predictions the loop reads.

    After each call ``controller_status`` is the controller's status of the step (its
    ``last.status``: ``controllers.generic.controller.STATUSES``, e.g. ``"no_mode_held"`` for a
    step without an acceptable mode), ``predicted_mode`` is the mode the controller chose (its
    ``last.mode4``, ``None`` without one) and ``predicted_qdd`` the controller's own ``predicted_qdd`` when it has
    one, else the rigid model's ``q̈`` in the chosen mode under the returned torque
    (``controllers.simulation.prediction.rigid_qdd``; ``None`` when not unique).

    The rigid model's ``q̈`` is the loop's measurement of the controller, not part of the
    control: it is computed when ``predicted_qdd`` is first read after a call (the loop reads it
    once per step), so a call's time is the controller's alone — the step time issue 24 targets
    (``benchmarks/bench_mujoco_examples.py``). The same numbers as computing it in the call.

    Parameters
    ----------
    inner : callable
        The generic controller.
    loaded : LoadedSystem
        The loaded system file (its mechanism and friction coefficients).
    """

    def __init__(self, inner: Callable, loaded: Any) -> None:
        self.inner = inner
        self.mechanism = loaded.mechanism
        self.mu = np.asarray(loaded.system.mu, float)
        self._predicted: np.ndarray | None = None
        self._pending: tuple | None = None  # (q, qdot, tau, mode) of the call whose q̈ is not computed yet
        self.predicted_mode: str | None = None
        self.controller_status: str | None = None

    @property
    def predicted_qdd(self) -> np.ndarray | None:
        """``(n_q,)`` the predicted ``q̈`` of the last call (class doc), or ``None``."""
        if self._pending is not None:
            q, qdot, tau, mode = self._pending
            self._pending = None
            from .prediction import rigid_qdd

            self._predicted = rigid_qdd(self.mechanism, q, qdot, tau, mode, self.mu)
        return self._predicted

    def __call__(self, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
        """The inner controller's torque; records its status and mode (class doc) and defers the
        rigid model's ``q̈`` to the first read of ``predicted_qdd``.

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        numpy.ndarray
            ``(n_τ,)`` the inner controller's torque (N·m; N for a force).
        """
        tau = np.asarray(self.inner(q, qdot), dtype=float)
        last = getattr(self.inner, "last", None)
        mode = getattr(last, "mode4", None)
        self.predicted_mode = mode
        self.controller_status = getattr(last, "status", None)
        own = getattr(self.inner, "predicted_qdd", None)
        self._pending = None
        if own is not None:
            self._predicted = np.asarray(own, float)
        elif mode is not None:
            self._predicted = None
            self._pending = (np.array(q, dtype=float), np.array(qdot, dtype=float), tau.copy(), mode)
        else:
            self._predicted = None
        return tau


def _torque_box(spec: Any, actuators: tuple[str, ...]) -> Any:
    from controllers.generic.limits import TorqueBox

    try:
        return TorqueBox.from_limits(spec.limits, actuators)
    except ContactModelError as exc:
        raise UserError(f"--controller: control: needs a finite [control.limits] box for every actuator "
                        f"({str(exc).split('(', 1)[-1]}") from None


def _control(loaded: Any, velocity_tol: float | None) -> Callable:
    spec = _spec(loaded, required=True)
    if spec is None or spec.objective is None:
        raise UserError("--controller: control: the file has no [control] objective "
                        "(maximize = \"...\" or minimize = \"...\")")
    try:
        from controllers.generic import UnambiguousOptimalController
    except ImportError as exc:
        raise UserError(f"--controller: control: the generic controller is not available "
                        f"(controllers.generic: {exc})") from None
    box = _torque_box(spec, tuple(loaded.system.torques))
    inner = UnambiguousOptimalController(loaded, spec.objective, limits=box, modes=spec.modes.accepts,
                                         normal_velocity_tol=velocity_tol, margin=spec.margin)
    return GenericController(inner, loaded)


def make_controller(text: str, loaded: Any, velocity_tol: float | None = None) -> Choice:
    """The controller named by ``--controller TEXT`` for ``loaded`` (a ``LoadedSystem``).

    Parameters
    ----------
    text : str
        ``"zero"``, ``"constant:TAU1,TAU2,..."`` or ``"control"``.
    loaded : LoadedSystem
        The loaded system file.
    velocity_tol : float, optional
        For ``control``: normal contact velocities (m/s) at or below it count as zero (the
        controller's ``normal_velocity_tol``). A soft plant's loaded contacts move at µm/s, which
        the rigid model would take for approaching contacts (no solution); the CLI passes the
        slip threshold of the mode letters (``controllers.simulation.modes.ModeThresholds``).
        Tangential velocities are the file's business: its contacts' ``v0`` thresholds.

    Returns
    -------
    Choice

    Raises
    ------
    UserError
        Unknown name, wrong number of constant values, a ``control`` the file or the toolkit cannot
        give (one line naming ``--controller``).
    """
    names = tuple(loaded.system.torques)
    n_tau = len(names)
    name, sep, rest = text.partition(":")
    inner: Callable
    if name == "zero" and not sep:
        inner = _Zero(n_tau)
    elif name == "constant" and sep:
        inner = _Constant(_checked_control(_parse_constant(rest, n_tau, names), loaded, names))
    elif name == "control" and not sep:
        inner = _control(loaded, velocity_tol)
    else:
        raise UserError(f"--controller: expected one of {', '.join(CHOICES)}, got {text!r}")
    limits, _ = file_limits(loaded)
    if any(l is not None for l in limits):
        inner = LimitedController(inner, limits, loaded.system.S)
    return Choice(name=name, controller=inner)
