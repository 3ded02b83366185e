"""A goal on one coordinate for the generic controller: drive, then hold.

``controllers.generic.UnambiguousOptimalController`` optimizes a fixed linear objective at every
state: ``maximize = "qdd.theta"`` rolls a robot over and keeps rolling it, since a linear objective
knows no goal. ``GoalSwitch`` adds one: with two generic controllers on the same file, one
maximizing and one minimizing the acceleration ``q̈_i`` of one coordinate, it

1. *drives*: calls the controller of the file's sense (e.g. maximize ``q̈_θ``) until the
   coordinate is first within ``tolerance`` of ``goal`` (an angle compared modulo 2π);
2. *holds*: from then on calls the maximizing controller when the sign of a PD law,
   ``s = −e − T_d q̇_i`` with ``e = q_i − goal`` (an angle wrapped to ``[−π, π]``), is positive and
   the minimizing one otherwise: the largest acceleration towards the goal, braked over the time
   ``T_d`` (s) before it is reached.

Both controllers keep their own limits, modes and unambiguity: ``GoalSwitch`` only picks which
objective the step optimizes. The mode and ``q̈`` predictions and the status of the controller
called are passed on (``predicted_mode``, ``predicted_qdd``, ``controller_status``) for
``controllers.simulation.loop``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from contactmodes.errors import ContactModelError

__all__ = ["GoalSwitch", "goal_controllers"]


class GoalSwitch:
    """Drive one coordinate to a goal with one controller, hold it there with two (module doc).

    Parameters
    ----------
    up, down : callable
        ``controller(q, qdot) -> tau`` maximizing and minimizing ``q̈_i``.
    index : int
        ``i``, the coordinate's index in ``q``.
    goal : float
        The goal value (rad for an angle, m for a position).
    tolerance : float
        The drive phase ends when ``|e| <= tolerance`` (same unit as ``goal``).
    T_d : float
        Braking time of the hold phase's PD sign (s, >= 0).
    angle : bool, optional
        Compare modulo 2π (default ``True``).
    drive_up : bool, optional
        The drive phase's controller: ``up`` (default) or ``down``.

    Raises
    ------
    ContactModelError
        One line naming ``goal``: ``tolerance`` not a finite number > 0, or ``T_d`` not a finite
        number >= 0.

    Attributes
    ----------
    reached_at : int or None
        Index of the first call at which the goal was within ``tolerance`` (``None`` before).
    phase : list[str]
        ``"drive"`` or ``"hold"`` per call.
    """

    def __init__(self, up: Callable, down: Callable, index: int, goal: float, tolerance: float, T_d: float,
                 angle: bool = True, drive_up: bool = True) -> None:
        if not (math.isfinite(tolerance) and tolerance > 0 and math.isfinite(T_d) and T_d >= 0):
            raise ContactModelError(f"goal: tolerance must be > 0 and T_d >= 0, got {tolerance}, {T_d}")
        self.up, self.down, self.index, self.goal = up, down, int(index), float(goal)
        self.tolerance, self.T_d, self.angle, self.drive_up = float(tolerance), float(T_d), angle, drive_up
        self.reached_at: int | None = None
        self.phase: list[str] = []
        self._last: Any = None

    def error(self, value: float) -> float:
        """The error ``e = value − goal`` of the coordinate.

        Parameters
        ----------
        value : float
            The coordinate ``q_i`` (rad for an angle, m for a position).

        Returns
        -------
        float
            ``e`` in the unit of ``goal``; for an angle wrapped to ``[−π, π]``
            (``math.remainder`` by 2π).
        """
        e = float(value) - self.goal
        return math.remainder(e, 2 * math.pi) if self.angle else e

    @property
    def predicted_qdd(self) -> Any:
        """The called controller's ``predicted_qdd`` (``None`` if it gives none)."""
        return getattr(self._last, "predicted_qdd", None)

    @property
    def predicted_mode(self) -> Any:
        """The called controller's ``predicted_mode`` (``None`` if it gives none)."""
        return getattr(self._last, "predicted_mode", None)

    @property
    def controller_status(self) -> Any:
        """The called controller's ``controller_status`` (``None`` if it gives none; each of the
        two holds its own last torque when it finds no acceptable mode)."""
        return getattr(self._last, "controller_status", None)

    def __call__(self, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
        """One step: the drive controller until the goal is first reached, then the PD sign's
        choice of ``up`` or ``down`` (module doc); the phase is appended to ``phase``.

        Parameters
        ----------
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad: the system's units).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).

        Returns
        -------
        numpy.ndarray
            ``(n_τ,)`` the chosen controller's torque (N·m; N for a force).
        """
        e = self.error(q[self.index])
        if self.reached_at is None and abs(e) <= self.tolerance:
            self.reached_at = len(self.phase)
        if self.reached_at is None:
            self.phase.append("drive")
            chosen = self.up if self.drive_up else self.down
        else:
            self.phase.append("hold")
            chosen = self.up if -e - self.T_d * float(qdot[self.index]) > 0 else self.down
        self._last = chosen
        return chosen(q, qdot)


def goal_controllers(loaded: Any, velocity_tol: float | None = None) -> tuple[Callable, Callable, int, bool]:
    """The two generic controllers of a file whose ``[control]`` objective is ``maximize`` or
    ``minimize`` of one coordinate's ``qdd`` (times a coefficient): ``(up, down, index,
    drive_up)``, ``up`` maximizing and ``down`` minimizing ``q̈_index``, each with the file's limits
    and modes and wrapped for their predictions (``controllers.simulation.registry.GenericController``);
    ``drive_up`` is whether the file's objective asks for a larger ``q̈_index``.

    Parameters
    ----------
    loaded : LoadedSystem
        The loaded system file.
    velocity_tol : float, optional
        The controllers' normal-velocity tolerance (m/s; ``make_controller``).

    Returns
    -------
    tuple
        ``(up, down, index, drive_up)``: two ``GenericController`` (callables
        ``(q, qdot) -> tau``), the coordinate's index in ``q`` (int) and a bool.

    Raises
    ------
    ContactModelError
        The file's objective is not a single ``qdd`` coefficient.
    """
    from controllers.generic import UnambiguousOptimalController

    from .registry import GenericController, _spec, _torque_box

    spec = _spec(loaded, required=True)
    obj = spec.objective if spec is not None else None
    if obj is None or np.count_nonzero(obj.qdd) != 1 or np.any(obj.force) or np.any(obj.tau):
        raise ContactModelError("control: a goal needs an objective on one coordinate's acceleration "
                                "(maximize = \"qdd.NAME\")")
    index = int(np.flatnonzero(obj.qdd)[0])
    name = loaded.mechanism.coordinates[index]
    box = _torque_box(spec, tuple(loaded.system.torques))
    unit = np.zeros_like(obj.qdd)
    unit[index] = 1.0
    drive_up = (obj.sense == "maximize") == bool(obj.qdd[index] > 0)

    def make(sense: str) -> GenericController:
        o = dataclasses.replace(obj, qdd=unit, sense=sense, text=f"qdd.{name}", constant=0.0)
        return GenericController(UnambiguousOptimalController(loaded, o, limits=box, modes=spec.modes.accepts,
                                                              normal_velocity_tol=velocity_tol, margin=spec.margin),
                                 loaded)

    return make("maximize"), make("minimize"), index, drive_up
