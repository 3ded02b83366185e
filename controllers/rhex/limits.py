"""Hip torque limits of RHex as linear constraints on τ (``shared/reference/rhex.md``).

DC-motor limit, linear in speed, per planar leg (two motors):

    |τ_i| <= τ_stall · max(0, 1 − |ω_i| / ω_noload)

with ``ω_i`` the hip speed (leg angular velocity relative to the body, rad/s). At a given state this
is a box ``lo <= τ <= hi``, hence linear constraints for the controllers' LPs.
"""

from __future__ import annotations

import numpy as np

from polytopes import Polytope

from .params import RHexParams

__all__ = ["torque_bound", "torque_limits", "torque_limit_polytope"]


def torque_bound(omega, params: RHexParams) -> np.ndarray:
    """Largest admissible ``|τ|`` (N·m) per hip at hip speeds ``omega`` (rad/s, any shape)."""
    omega = np.asarray(omega, dtype=float)
    if not np.all(np.isfinite(omega)):
        raise ValueError("omega: hip speeds must be finite")
    return params.tau_stall * np.clip(1.0 - np.abs(omega) / params.omega_noload, 0.0, None)


def torque_limits(omega, params: RHexParams) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``, each (3,) (N·m): the torque box at hip speeds ``omega`` (3,) (rad/s).

    Raises ``ValueError`` for a wrong shape or non-finite speeds.
    """
    omega = np.asarray(omega, dtype=float).reshape(-1)
    if omega.shape != (3,):
        raise ValueError(f"omega: expected shape (3,), got {omega.shape}")
    hi = torque_bound(omega, params)
    return -hi, hi


def torque_limit_polytope(omega, params: RHexParams) -> Polytope:
    """The torque box of :func:`torque_limits` as a :class:`polytopes.Polytope` over τ (dim 3).

    H-form ``[I; −I] τ <= [hi; −lo]``; a hip at or above no-load speed gives ``τ_i = 0`` (a
    lower-dimensional box, which is a legal polytope).
    """
    lo, hi = torque_limits(omega, params)
    A = np.vstack([np.eye(3), -np.eye(3)])
    return Polytope(A, np.concatenate([hi, -lo]))
