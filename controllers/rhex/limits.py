"""Hip torque limits of RHex as linear constraints on τ (the "motor torque limitations" of the
flipping paper, Sec. IV-B; the calibration in ``docs/rhex-reproduction.md``).

Per planar leg (two motors), at hip speed ``ω_i`` (leg angular velocity relative to the body,
rad/s):

    |τ_i| <= τ_limit · max(0, 1 − |ω_i| / ω_noload),      τ_limit <= τ_stall

* ``τ_stall · (1 − |ω|/ω_noload)`` is the hardware bound: the DC motors' linear torque–speed line
  at their achievable stall torque (2 × 8.1 = 16.2 N·m per planar leg, 43.1 rad/s no-load speed;
  Johnson's thesis, Table 2.2).
* ``τ_limit`` is the *effective* stall torque a flip sees. Battery sag, current limits, gearbox
  ratings and the legs' torsional compliance keep the torque that reaches the ground below the
  hardware figure; we model their net effect as a transmission factor ``τ_limit / τ_stall``
  applied to the whole torque–speed line (as a gearbox efficiency would). ``τ_limit`` is
  calibrated against the paper's described time course by ``benchmarks/calibrate_torque.py``
  (target and procedure there and in ``docs/rhex-reproduction.md``); ``τ_limit = τ_stall`` is the
  hardware line itself. (A constant current-limit cap under the hardware line would be the other
  reading; it lets the fast-turning hips keep their torque and, at the same nominal value, flips
  far faster than the paper's runs: 0.30 s instead of ≈ 0.5 s at 10 N·m.)

At a given state this is a box ``lo <= τ <= hi``, hence linear constraints for the controllers' LPs.
"""

from __future__ import annotations

import numpy as np

from polytopes import Polytope

from .params import RHexParams

__all__ = ["torque_bound", "torque_limits", "torque_limit_polytope"]


def torque_bound(omega, params: RHexParams) -> np.ndarray:
    """Largest admissible ``|τ|`` per hip at hip speeds ``omega``: the module docstring's bound.

    Parameters
    ----------
    omega : array_like
        Hip speeds (rad/s), any shape.
    params : RHexParams
        ``tau_limit`` (N·m) and ``omega_noload`` (rad/s).

    Returns
    -------
    numpy.ndarray
        Same shape as ``omega`` (N·m).

    Raises
    ------
    ValueError
        For non-finite speeds.
    """
    omega = np.asarray(omega, dtype=float)
    if not np.isfinite(omega).all():
        raise ValueError("omega: hip speeds must be finite")
    # np.maximum(·, 0) is what np.clip(·, 0, None) computes, without its Python wrapper (per control step)
    return params.tau_limit * np.maximum(1.0 - np.abs(omega) / params.omega_noload, 0.0)


def torque_limits(omega, params: RHexParams) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: the torque box at hip speeds ``omega``.

    Parameters
    ----------
    omega : array_like
        ``(3,)`` hip speeds (rad/s).
    params : RHexParams
        ``tau_limit`` and ``omega_noload``.

    Returns
    -------
    lo, hi : numpy.ndarray
        ``(3,)`` each (N·m).

    Raises
    ------
    ValueError
        For a wrong shape or non-finite speeds.
    """
    omega = np.asarray(omega, dtype=float).reshape(-1)
    if omega.shape != (3,):
        raise ValueError(f"omega: expected shape (3,), got {omega.shape}")
    hi = torque_bound(omega, params)
    return -hi, hi


def torque_limit_polytope(omega, params: RHexParams) -> Polytope:
    """The torque box of ``torque_limits`` as a ``polytopes.Polytope`` over τ (dim 3).

    H-form ``[I; −I] τ <= [hi; −lo]``; a hip at or above no-load speed gives ``τ_i = 0`` (a
    lower-dimensional box, which is a legal polytope).

    Parameters
    ----------
    omega : array_like
        ``(3,)`` hip speeds (rad/s).
    params : RHexParams
        ``tau_limit`` and ``omega_noload``.

    Returns
    -------
    Polytope
        Over the three hip torques (N·m).

    Raises
    ------
    ValueError
        For a wrong shape or non-finite speeds.
    """
    lo, hi = torque_limits(omega, params)
    A = np.vstack([np.eye(3), -np.eye(3)])
    return Polytope(A, np.concatenate([hi, -lo]))
