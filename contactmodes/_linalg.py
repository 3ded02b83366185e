"""Small dense linear-algebra helpers of ``contactmodes`` (rank rule, equality elimination).

Applied to nondimensionalized systems (``contactmodes.model.scaling``), so the relative rules below
are unit-invariant.
"""

from __future__ import annotations

import numpy as np

from contactmodes import tolerances

__all__ = ["null_space_solution", "numerical_rank", "numerical_ranks"]


def numerical_rank(singular_values, shape: tuple[int, int]) -> int:
    """Numerical rank of a matrix of ``shape`` from its singular values.

    Rule: ``rank = #{ s_i > RANK_RTOL · max(shape) · s_max }`` (NumPy's ``matrix_rank`` rule with
    the machine epsilon replaced by ``RANK_RTOL``); ``0`` when there
    are no singular values or all are zero.
    """
    s = np.asarray(singular_values, dtype=float)
    if s.size == 0 or float(s.max()) <= 0.0:
        return 0
    return int(np.sum(s > tolerances.RANK_RTOL * max(shape) * float(s.max())))


def numerical_ranks(singular_values: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``numerical_rank`` of each row of ``singular_values`` (G, k): the singular values of
    ``G`` matrices of ``shape``; returns (G,) int, the same comparisons."""
    s = np.asarray(singular_values, dtype=float)
    if s.shape[1] == 0:
        return np.zeros(s.shape[0], dtype=int)
    s_max = s.max(axis=1)
    counts = np.sum(s > tolerances.RANK_RTOL * max(shape) * s_max[:, None], axis=1)
    return np.where(s_max > 0.0, counts, 0)


def null_space_solution(E: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """All solutions of ``E x = e`` as ``x = x0 + Z y``: ``(x0, Z)`` with ``x0`` (n,) the
    least-norm solution and ``Z`` (n, n − rank) an orthonormal null-space basis; ``None`` when the
    system is inconsistent (residual above ``FEASIBILITY_RTOL · max(1, max|E|·max|x0|, max|e|)``).
    Redundant rows are harmless (SVD with ``numerical_rank``). ``E`` (p, n), ``e`` (p,)."""
    U, s, Vt = np.linalg.svd(E, full_matrices=True)
    r = numerical_rank(s, E.shape)
    x0 = Vt[:r].T @ ((U[:, :r].T @ e) / s[:r])
    resid = float(np.abs(E @ x0 - e).max(initial=0.0))
    scale = max(1.0, float(np.abs(E).max(initial=0.0)) * float(np.abs(x0).max(initial=0.0)),
                float(np.abs(e).max(initial=0.0)))
    if resid > tolerances.FEASIBILITY_RTOL * scale:
        return None
    return x0, Vt[r:].T
