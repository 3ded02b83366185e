"""Actuator limits of the one-shot controller: a torque box per actuator and an optional
torque–speed line, turned into one polytope over the torques (the system's units).

A limit of actuator ``j`` is ``lo_j <= τ_j <= hi_j`` (either end may be infinite) and, when
``tau_max`` and ``omega_0`` are given, the torque–speed line of a DC motor taken symmetric,

    |τ_j| <= τ_max,j · max(0, 1 − |ω_j| / ω_0,j),

with ``ω = Sᵀ q̇`` the actuator's velocity at the state (the velocity of the coordinate it drives:
``S`` maps torques to generalized forces, so ``Sᵀ q̇`` is the power-conjugate velocity; rad/s for
a revolute joint). At ``|ω_j| >= ω_0,j`` the line leaves only ``τ_j = 0``. An actuator without a
limit is unbounded.

Text form (system file ``[control.limits]``, CLI ``--limit ACT=LO:HI``): ``"LO:HI"``, an empty end
meaning unbounded (``"-2:"``, ``":2"``); in a file also ``[lo, hi]`` or a table
``{lo = -2, hi = 2, tau_max = 3, omega_0 = 20}`` (every key optional), which the CLI also takes as
``--limit 'ACT={...}'`` (a TOML inline table).

Every finite number of a limit is at most ``MAGNITUDE_MAX`` (1e60, ``contactmodes.tolerances``)
in magnitude, the bound of every number of a system file, so that the limits stay finite in the
controller's scaled problem (``1e308:`` overflowed to ``inf`` inside the LP before this check);
leave an end empty for no bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes.errors import ContactModelError
from contactmodes.tolerances import MAGNITUDE_MAX

__all__ = ["TorqueLimit", "parse_limit", "parse_limits", "limit_polytope", "actuator_speeds"]

_LIMIT_KEYS = ("lo", "hi", "tau_max", "omega_0")


@dataclass(frozen=True)
class TorqueLimit:
    """The limit of one actuator (module doc), in the system's units.

    Parameters
    ----------
    lo, hi : float
        Box ``lo <= τ <= hi`` (N·m for a revolute joint in SI; ``-inf``/``inf`` for none).
    tau_max : float or None
        Stall torque of the torque–speed line (> 0, the torque's unit), ``None`` for no line.
    omega_0 : float or None
        No-load speed of the line (> 0, the actuator velocity's unit: rad/s in SI).

    Raises
    ------
    ContactModelError
        When ``lo > hi``, a value is NaN, a finite value exceeds ``MAGNITUDE_MAX`` in magnitude,
        or only one of ``tau_max``, ``omega_0`` is given or either is not finite and > 0.
    """

    lo: float = -math.inf
    hi: float = math.inf
    tau_max: float | None = None
    omega_0: float | None = None

    def __post_init__(self) -> None:
        lo, hi = float(self.lo), float(self.hi)
        if math.isnan(lo) or math.isnan(hi) or lo > hi or lo == math.inf or hi == -math.inf:
            raise ContactModelError(f"limit: needs LO <= HI, got {lo:g}:{hi:g}")
        for end in (lo, hi):
            if math.isfinite(end) and abs(end) > MAGNITUDE_MAX:
                raise ContactModelError(f"limit: {end:g} exceeds {MAGNITUDE_MAX:g} in magnitude "
                                        "(contactmodes.tolerances.MAGNITUDE_MAX; leave an end empty for none)")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if (self.tau_max is None) != (self.omega_0 is None):
            raise ContactModelError("limit: tau_max and omega_0 go together (the torque–speed line)")
        for name in ("tau_max", "omega_0"):
            v = getattr(self, name)
            if v is not None:
                v = float(v)
                if not (math.isfinite(v) and v > 0):
                    raise ContactModelError(f"limit: {name} must be finite and > 0, got {v:g}")
                if v > MAGNITUDE_MAX:
                    raise ContactModelError(f"limit: {name} {v:g} exceeds {MAGNITUDE_MAX:g} "
                                            "(contactmodes.tolerances.MAGNITUDE_MAX)")
                object.__setattr__(self, name, v)

    def bounds(self, omega: float | None) -> tuple[float, float]:
        """``(lo, hi)`` of the torque at actuator speed ``omega`` (box ∩ torque–speed line).

        Parameters
        ----------
        omega : float or None
            The actuator's velocity ``ω_j`` (``actuator_speeds``; rad/s for a revolute joint in SI);
            ``None`` when the state's velocity is unknown.

        Returns
        -------
        tuple[float, float]
            The bounds in the torque's unit (``-inf``/``inf`` for none).

        Raises
        ------
        ContactModelError
            When the limit has a torque–speed line and ``omega`` is ``None``.
        """
        lo, hi = self.lo, self.hi
        if self.tau_max is not None and self.omega_0 is not None:
            if omega is None:
                raise ContactModelError("limit: a torque–speed line needs the state's velocity q̇")
            cap = self.tau_max * max(0.0, 1.0 - abs(float(omega)) / self.omega_0)
            lo, hi = max(lo, -cap), min(hi, cap)
        return lo, hi

    def to_json(self) -> dict:
        """``{"lo", "hi", "tau_max", "omega_0"}``, ``null`` for an infinite end or no line."""
        end = lambda v: None if v is None or math.isinf(v) else v  # noqa: E731
        return {"lo": end(self.lo), "hi": end(self.hi), "tau_max": self.tau_max, "omega_0": self.omega_0}


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ContactModelError(f"{where}: must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ContactModelError(f"{where}: must be finite, got {value!r}")
    return x


def _end(text: str, default: float, where: str, full: str) -> float:
    text = text.strip()
    if not text:
        return default
    try:
        x = float(text)
    except ValueError:
        raise ContactModelError(f"{where}: expected LO:HI (numbers, an empty end for none), got {full!r}") from None
    if not math.isfinite(x):
        raise ContactModelError(f"{where}: ends must be finite numbers (leave an end empty for none), got {full!r}")
    return x


def parse_limit(value: Any, where: str) -> TorqueLimit:
    """One actuator's limit from ``"LO:HI"``, ``[lo, hi]``, a table with keys ``lo``, ``hi``,
    ``tau_max``, ``omega_0`` (all optional) or a ``TorqueLimit``.

    Parameters
    ----------
    value : str or Sequence[float] or Mapping[str, float] or TorqueLimit
        ``"LO:HI"`` (an empty end for none), ``[lo, hi]``, a table or a limit (returned as it is).
    where : str
        The key path that starts every error message.

    Returns
    -------
    TorqueLimit
        In the system's units.

    Raises
    ------
    ContactModelError
        One line starting with ``where`` (e.g. ``control.limits.hip``).
    """
    if isinstance(value, TorqueLimit):
        return value
    try:
        if isinstance(value, str):
            parts = value.split(":")
            if len(parts) != 2:
                raise ContactModelError(f"{where}: expected LO:HI (an empty end for none), got {value!r}")
            return TorqueLimit(_end(parts[0], -math.inf, where, value), _end(parts[1], math.inf, where, value))
        if isinstance(value, (list, tuple)):
            if len(value) != 2:
                raise ContactModelError(f"{where}: expected [lo, hi], got {value!r}")
            return TorqueLimit(_number(value[0], f"{where}[0]"), _number(value[1], f"{where}[1]"))
        if isinstance(value, Mapping):
            for key in value:
                if key not in _LIMIT_KEYS:
                    raise ContactModelError(f"{where}.{key}: unknown key (allowed: {', '.join(_LIMIT_KEYS)})")
            args = {k: _number(value[k], f"{where}.{k}") for k in _LIMIT_KEYS if k in value}
            return TorqueLimit(**args)
    except ContactModelError as exc:
        text = str(exc)
        raise ContactModelError(text if text.startswith(where) else f"{where}: {text.removeprefix('limit: ')}") from None
    raise ContactModelError(f"{where}: expected \"LO:HI\", [lo, hi] or a table, got {value!r}")


def parse_limits(value: Any, actuators: Sequence[str], where: str = "control.limits") -> dict[str, TorqueLimit]:
    """Actuator name → ``TorqueLimit`` from a mapping (names checked against ``actuators``).

    Parameters
    ----------
    value : Mapping[str, Any]
        Actuator name → limit in a form of ``parse_limit``.
    actuators : Sequence[str]
        The system's actuator names.
    where : str, optional
        The key path of the table.

    Returns
    -------
    dict[str, TorqueLimit]
        In the order of ``value``.

    Raises
    ------
    ContactModelError
        Naming ``where.<name>`` for an unknown actuator or a bad limit, or ``where`` when
        ``value`` is not a mapping.
    """
    if not isinstance(value, Mapping):
        raise ContactModelError(f"{where}: must be a table of actuator = limit, got {value!r}")
    out = {}
    for name, limit in value.items():
        if name not in actuators:
            raise ContactModelError(f"{where}.{name}: unknown actuator (actuators: {', '.join(actuators)})")
        out[str(name)] = parse_limit(limit, f"{where}.{name}")
    return out


def actuator_speeds(S: np.ndarray, qdot) -> np.ndarray:
    """``ω = Sᵀ q̇``: each actuator's velocity (the power-conjugate velocity of its torque).

    Parameters
    ----------
    S : numpy.ndarray
        ``(n_q, n_τ)`` the actuator map.
    qdot : array_like
        ``(n_q,)`` the generalized velocity (the system's units).

    Returns
    -------
    numpy.ndarray
        ``(n_τ,)`` (rad/s for a revolute joint in SI).
    """
    return np.asarray(S, dtype=float).T @ np.asarray(qdot, dtype=float)


def limit_polytope(limits: Mapping[str, TorqueLimit], actuators: Sequence[str],
                   omega: np.ndarray | None = None) -> Polytope:
    """The set ``L`` of admissible torques: the intersection of every actuator's limit.

    Parameters
    ----------
    limits : Mapping[str, TorqueLimit]
        Actuator name → limit; an actuator not named is unbounded.
    actuators : Sequence[str]
        The ``n_τ`` actuator names in system order.
    omega : numpy.ndarray, optional
        ``(n_τ,)`` actuator velocities (``actuator_speeds``), needed by torque–speed lines.

    Returns
    -------
    Polytope
        ``{τ : A τ <= b}`` over ``n_τ`` torques (system units), one row per finite bound
        (``n_τ``-dimensional, unbounded where no limit is given).

    Raises
    ------
    ContactModelError
        When a limit has a torque–speed line and ``omega`` is ``None``.
    """
    n = len(actuators)
    rows, rhs = [], []
    for j, name in enumerate(actuators):
        limit = limits.get(name)
        if limit is None:
            continue
        lo, hi = limit.bounds(None if omega is None else float(omega[j]))
        if math.isfinite(hi):
            rows.append(np.eye(n)[j])
            rhs.append(hi)
        if math.isfinite(lo):
            rows.append(-np.eye(n)[j])
            rhs.append(-lo)
    A = np.array(rows, dtype=float).reshape(-1, n)
    return Polytope(A, np.array(rhs, dtype=float))
