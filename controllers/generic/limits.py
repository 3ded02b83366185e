"""Torque limits of the generic real-time controller: a box per actuator and, optionally, a
DC motor's torque–speed line per actuator (as RHex's hips have, ``controllers.rhex.limits``).

At actuator speed ``ω = Sᵀ q̇`` (the power-conjugate velocity of each actuator; rad/s for a
revolute joint) the admissible torques are

    lo_j <= τ_j <= hi_j,      |τ_j| <= τ_max,j · max(0, 1 − |ω_j| / ω_0,j)   (when a line is given),

a box at every state (the ``L`` of the flipping paper's eq. (34)). Every bound must be finite:
the controller maximizes over it.

``TorqueBox`` is the vector form, for the real-time loop, of the per-actuator limits the system
file's ``[control.limits]`` and ``contactmodes control`` use (``contactmodes.control.limits.TorqueLimit``,
the same formula as ``TorqueLimit.bounds``); ``TorqueBox.from_limits`` builds it from them.
"""

from __future__ import annotations

import numpy as np

from contactmodes.errors import ContactModelError

__all__ = ["TorqueBox"]


def _vector(value, name: str, n: int, allow_inf: bool = False) -> np.ndarray:
    v = np.asarray(value, dtype=float).reshape(-1)
    if v.size == 1 and n != 1:
        v = np.full(n, float(v[0]))
    if v.shape != (n,):
        raise ContactModelError(f"{name}: expected {n} values (one per actuator), got {v.size}")
    if not np.all(np.isfinite(v) | (allow_inf & (v == np.inf))):
        raise ContactModelError(f"{name}: must be finite")
    return v


class TorqueBox:
    """Torque limits per actuator (module doc), in the system's units.

    Parameters
    ----------
    lo : array_like
        ``(n_τ,)`` (or one number for all) lower torque bounds, finite.
    hi : array_like
        ``(n_τ,)`` upper torque bounds, finite, ``>= lo``.
    tau_max : array_like, optional
        ``(n_τ,)`` stall torques of the torque–speed lines (``> 0``); ``omega_0`` must be given too.
    omega_0 : array_like, optional
        ``(n_τ,)`` no-load speeds of the lines (``> 0``, the actuator velocity's unit; ``inf``: that
        actuator's line never cuts, i.e. it has none).
    n_tau : int, optional
        The number of actuators ``n_τ``; default the size of ``hi``. An argument given as one
        number is repeated ``n_τ`` times.

    Raises
    ------
    ContactModelError
        One line naming the field: wrong size, not finite, ``lo > hi``, a non-positive line
        parameter, or only one of ``tau_max``, ``omega_0``.
    """

    def __init__(self, lo, hi, tau_max=None, omega_0=None, n_tau: int | None = None) -> None:
        n = n_tau if n_tau is not None else np.asarray(hi, dtype=float).reshape(-1).size
        self.n_tau = int(n)
        self.lo = _vector(lo, "limits.lo", n)
        self.hi = _vector(hi, "limits.hi", n)
        if np.any(self.lo > self.hi):
            raise ContactModelError("limits: lo must not exceed hi")
        if (tau_max is None) != (omega_0 is None):
            raise ContactModelError("limits: tau_max and omega_0 go together (the torque–speed line)")
        self.tau_max = None if tau_max is None else _vector(tau_max, "limits.tau_max", n)
        self.omega_0 = None if omega_0 is None else _vector(omega_0, "limits.omega_0", n, allow_inf=True)
        for name, v in (("limits.tau_max", self.tau_max), ("limits.omega_0", self.omega_0)):
            if v is not None and np.any(v <= 0.0):
                raise ContactModelError(f"{name}: must be > 0")

    @classmethod
    def of(cls, limits, n_tau: int) -> "TorqueBox":
        """``limits`` as a ``TorqueBox`` of ``n_tau`` actuators: a ``TorqueBox`` or a ``(lo, hi)`` pair.

        Parameters
        ----------
        limits : TorqueBox or tuple
            A box (checked to have ``n_tau`` actuators) or a pair ``(lo, hi)``.
        n_tau : int
            The system's number of actuators.

        Returns
        -------
        TorqueBox
            The box.

        Raises
        ------
        ContactModelError
            For ``None`` (the controller needs a finite box) or anything else.
        """
        if isinstance(limits, TorqueBox):
            if limits.n_tau != n_tau:
                raise ContactModelError(f"limits: {limits.n_tau} actuators, the system has {n_tau}")
            return limits
        if limits is None:
            raise ContactModelError("limits: the controller needs a finite torque box (lo, hi) per actuator")
        try:
            lo, hi = limits
        except (TypeError, ValueError):
            raise ContactModelError("limits: expected a TorqueBox or a pair (lo, hi)") from None
        return cls(lo, hi, n_tau=n_tau)

    @classmethod
    def from_limits(cls, limits, actuators) -> "TorqueBox":
        """The box of per-actuator limits (``contactmodes.control.limits.TorqueLimit``).

        Parameters
        ----------
        limits : Mapping[str, TorqueLimit]
            Actuator name → limit, e.g. a system file's ``[control.limits]``
            (``ControlSpec.limits``).
        actuators : Sequence[str]
            The ``n_τ`` actuator names in system order.

        Returns
        -------
        TorqueBox
            The box; an actuator with a torque–speed line keeps it, one without has none (its
            line is the box itself: ``tau_max = max(|lo|, |hi|)``, ``omega_0 = inf`` never cuts).

        Raises
        ------
        ContactModelError
            When an actuator has no limit or an infinite end, naming those actuators.
        """
        chosen = [limits.get(a) for a in actuators]
        missing = [a for a, lim in zip(actuators, chosen)
                   if lim is None or not (np.isfinite(lim.lo) and np.isfinite(lim.hi))]
        if missing:
            raise ContactModelError("limits: the controller needs a finite box for every actuator "
                                    f"(missing or unbounded: {', '.join(missing)})")
        lo = [lim.lo for lim in chosen]
        hi = [lim.hi for lim in chosen]
        if not any(lim.tau_max is not None for lim in chosen):
            return cls(lo, hi, n_tau=len(actuators))
        tau_max = [lim.tau_max if lim.tau_max is not None else max(abs(lim.lo), abs(lim.hi), 1.0) for lim in chosen]
        omega_0 = [lim.omega_0 if lim.omega_0 is not None else np.inf for lim in chosen]
        return cls(lo, hi, tau_max=tau_max, omega_0=omega_0, n_tau=len(actuators))

    def at(self, omega) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` at actuator speeds ``omega``: the box, cut by the torque–speed lines when given.

        Parameters
        ----------
        omega : array_like
            ``(n_τ,)`` actuator speeds (``contactmodes.control.limits.actuator_speeds``; rad/s for a
            revolute joint); unused without lines.

        Returns
        -------
        lo, hi : numpy.ndarray
            ``(n_τ,)`` each, the system's torque units.
        """
        if self.tau_max is None:
            return self.lo, self.hi
        cap = self.tau_max * np.maximum(1.0 - np.abs(np.asarray(omega, dtype=float)) / self.omega_0, 0.0)
        lo = np.maximum(self.lo, -cap)
        hi = np.minimum(self.hi, cap)
        return np.minimum(lo, hi), hi
