"""The rigid model's ``q̈`` for a torque and a contact mode (the prediction a closed loop is judged by).

At a state ``(q, q̇)`` the toolkit's dynamics (``PlanarMechanism.dynamics``: ``M``, ``h``, ``J``,
``J̇q̇``, flipping paper eqs. (3)–(5)) with the mode's conditions (Tables I–II,
``docs/conventions.md``) per contact ``i``:

* ``F``: ``(J q̈ + J̇q̇)_{t_i} = 0`` and ``(J q̈ + J̇q̇)_{n_i} = 0``;
* ``S``: ``f_{t_i} = 0`` and ``f_{n_i} = 0``;
* ``L``: ``(J q̈ + J̇q̇)_{n_i} = 0`` and ``f_{t_i} = +μ_i f_{n_i}``;
* ``R``: ``(J q̈ + J̇q̇)_{n_i} = 0`` and ``f_{t_i} = −μ_i f_{n_i}``;

with ``M q̈ − Jᵀ f = S τ − h``: ``n_q + 2k`` linear equations in ``(q̈, f)``. ``q̈`` is returned
when it is unique (no null vector of the system moves it; the forces may still be ambiguous, as
the table's in ``FF``); otherwise ``None``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.model.mechanism import PlanarMechanism

__all__ = ["rigid_qdd", "NULL_RTOL"]

NULL_RTOL = 1e-10
"""Singular values below ``NULL_RTOL · σ_max`` span the null space of the mode's equations."""


def rigid_qdd(mechanism: PlanarMechanism, q: ArrayLike, qdot: ArrayLike, tau: ArrayLike, mode: str,
              mu: ArrayLike) -> np.ndarray | None:
    """``q̈`` ``(n_q,)`` of the rigid model in ``mode`` under ``tau`` at ``(q, q̇)`` (module docstring).

    Parameters
    ----------
    mechanism : PlanarMechanism
        The analysed mechanism.
    q, qdot : array_like
        ``(n_q,)`` state (SI).
    tau : array_like
        ``(n_τ,)`` actuator torques (the file's units).
    mode : str
        One letter ``S``/``F``/``L``/``R`` per contact.
    mu : array_like
        ``(k,)`` friction coefficients.

    Returns
    -------
    numpy.ndarray or None
        ``(n_q,)`` (m/s², rad/s²), ``None`` when ``q̈`` is not unique in that mode.
    """
    # (dynamics(q, qdot), compiled where checked to agree within KERNEL_RTOL: a closed loop
    # predicts every control step, between two controller calls)
    d, _ = mechanism.dynamics_and_scales(q, qdot)
    n, k = d.M.shape[0], len(mode)
    S = mechanism.actuator_matrix()
    mu_ = np.asarray(mu, float)
    A = np.zeros((n + 2 * k, n + 2 * k))
    b = np.zeros(n + 2 * k)
    A[:n, :n] = d.M
    A[:n, n:] = -d.J.T
    b[:n] = S @ np.asarray(tau, float) - d.h
    for i, letter in enumerate(mode):
        rt, rn = n + 2 * i, n + 2 * i + 1
        ft, fn = n + 2 * i, n + 2 * i + 1
        if letter == "F":
            A[rt, :n], b[rt] = d.J[2 * i], -d.Jdot_qdot[2 * i]
            A[rn, :n], b[rn] = d.J[2 * i + 1], -d.Jdot_qdot[2 * i + 1]
        elif letter == "S":
            A[rt, ft] = 1.0
            A[rn, fn] = 1.0
        else:
            A[rn, :n], b[rn] = d.J[2 * i + 1], -d.Jdot_qdot[2 * i + 1]
            A[rt, ft] = 1.0
            A[rt, fn] = -mu_[i] if letter == "L" else mu_[i]
    U, s, Vt = np.linalg.svd(A)
    tol = NULL_RTOL * (s[0] if s.size else 0.0)
    null = Vt[s <= tol]
    scale = max(1.0, float(np.abs(A).max()))
    if null.size and np.abs(null[:, :n]).max() > 1e-8 * scale:
        return None
    keep = s > tol
    x = Vt[keep].T @ ((U[:, keep].T @ b) / s[keep])
    if np.abs(A @ x - b).max() > 1e-8 * max(1.0, float(np.abs(b).max())):
        return None  # no solution in this mode (inconsistent equations)
    return x[:n]
