"""Dense linear-algebra helpers: row normalization, equality bases, null spaces."""

from __future__ import annotations

import numpy as np

from . import _threads
from . import tolerances as tol


def row_norms(A: np.ndarray) -> np.ndarray:
    """Euclidean norm of each row of ``A`` (shape (m,))."""
    # np.linalg.norm(A, axis=1) without its dispatch (the same operations, bit for bit)
    return np.sqrt(np.add.reduce(A * A, axis=1)) if A.shape[0] else np.zeros(0)


def matvec(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``M @ v`` for ``M`` (..., m, n) and ``v`` (..., n): each entry ``Σ_j M_ij v_j`` summed by
    NumPy's own reduction (``np.add.reduce`` along the contiguous last axis), not by BLAS. So a
    matrix alone and the same matrix in a stack give the same bits on any machine: OpenBLAS's
    matrix–vector and matrix–matrix kernels (a 2-D product and a stacked one take different
    routines) round in orders of their own, which differ between CPUs (``OPENBLAS_CORETYPE``
    ``Prescott`` rounds a stacked ``Q @ x0`` otherwise than the single one by one ulp)."""
    return np.add.reduce(M * v[..., None, :], axis=-1)


def data_scale(A: np.ndarray, b: np.ndarray, norms: np.ndarray | None = None) -> float:
    """Problem scale ``max(1, max_i |b_i| / ||a_i||)`` over the nonzero rows of ``A``; ``norms``
    (m,) the row norms of ``A`` when the caller has them already."""
    if A.shape[0] == 0:
        return 1.0
    nrm = row_norms(A) if norms is None else norms
    ok = nrm > 0
    if ok.all():
        return max(1.0, float((np.abs(b) / nrm).max()))
    if not ok.any():
        return max(1.0, float(np.abs(b).max()))
    return max(1.0, float((np.abs(b[ok]) / nrm[ok]).max()))


def normalize_rows(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows ``a_i x <= b_i`` (or ``= b_i``) divided by ``||a_i||_2``, so that a row's
    residual is a Euclidean distance (the normalization of ``Polytope.contains`` and of the
    emptiness rule); zero rows are left unchanged.

    Parameters
    ----------
    A : numpy.ndarray
        The rows, shape ``(m, n)``.
    b : numpy.ndarray
        Their right-hand side, shape ``(m,)``.

    Returns
    -------
    An : numpy.ndarray
        The normalized rows, shape ``(m, n)`` (new arrays).
    bn : numpy.ndarray
        The normalized right-hand side, shape ``(m,)``.
    norms : numpy.ndarray
        ``||a_i||_2``, shape ``(m,)`` (0 for a zero row).

    Examples
    --------
    >>> import numpy as np
    >>> from polytopes import normalize_rows
    >>> An, bn, norms = normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]]), np.array([10.0, 1.0]))
    >>> An.tolist(), bn.tolist(), norms.tolist()
    ([[0.6, 0.8], [0.0, 0.0]], [2.0, 1.0], [5.0, 0.0])
    """
    nrm = row_norms(A)
    s = np.where(nrm > 0, nrm, 1.0)
    return A / s[:, None], b / s, nrm


def rank_tol(s: np.ndarray, shape: tuple[int, int]) -> float:
    """Threshold below which a singular value counts as zero (see ``tolerances.RANK_RTOL``)."""
    if s.size == 0:
        return 0.0
    return tol.RANK_RTOL * max(shape) * max(float(s[0]), 1.0)


def equality_basis(C: np.ndarray, d: np.ndarray, n: int):
    """Orthonormal description of ``{x : C x = d}``.

    Returns ``(Q, q, x0, N, consistent)``: ``Q`` (r, n) orthonormal rows spanning the row space of
    ``C``, ``q = Q x0`` (r,), ``x0`` (n,) the least-norm solution, ``N`` (n, n - r) an orthonormal
    basis of the null space, and whether ``C x = d`` is consistent (residual within
    ``FEASIBILITY_TOL`` times the scale).
    """
    if C.shape[0] == 0:
        return np.zeros((0, n)), np.zeros(0), np.zeros(n), np.eye(n), True
    Cn, dn, nrm = normalize_rows(C, d)
    zero = nrm <= tol.COEF_ZERO_TOL * max(1.0, float(nrm.max()))
    if not zero.any():  # the usual case, without the bookkeeping of zero rows
        scale = max(1.0, float(np.abs(dn).max()))
        consistent_zero = True
    else:
        scale = max(1.0, float(np.abs(dn[~zero]).max())) if not zero.all() else 1.0
        consistent_zero = not bool(
            (np.abs(d[zero]) > tol.FEASIBILITY_TOL * max(1.0, float(np.abs(d).max()))).any())
        Cn, dn = Cn[~zero], dn[~zero]
        if Cn.shape[0] == 0:
            return np.zeros((0, n)), np.zeros(0), np.zeros(n), np.eye(n), consistent_zero
    U, s, Vt = np.linalg.svd(Cn, full_matrices=True)
    r = int((s > rank_tol(s, Cn.shape)).sum())
    Q = Vt[:r]
    # the products by ``matvec``: the same bits as the stacked set-ups of many sets
    # (``polytopes._feasibility._stacked_setups``) on any BLAS
    x0 = matvec(Q.T, matvec(U[:, :r].T, dn) / s[:r])
    N = Vt[r:].T
    resid = matvec(Cn, x0) - dn
    consistent = consistent_zero and bool((np.abs(resid) <= tol.FEASIBILITY_TOL * 10 * scale).all())
    return Q, matvec(Q, x0), x0, N, consistent


def stacked_svd(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.linalg.svd(A, full_matrices=True)`` of a stack ``A`` (B, m, n): ``U`` (B, m, m),
    ``s`` (B, min(m, n)), ``Vt`` (B, n, n), each matrix's the same bits as its own SVD (LAPACK
    runs on one matrix at a time), a large stack cut into slices that threads share (LAPACK
    releases the GIL; ``polytopes._threads``)."""
    B, m, n = A.shape
    U, s, Vt = np.empty((B, m, m)), np.empty((B, min(m, n))), np.empty((B, n, n))

    def one(z: slice) -> None:
        U[z], s[z], Vt[z] = np.linalg.svd(A[z], full_matrices=True)

    _threads.run(one, B, _threads.MIN_PER_THREAD // 4)  # an SVD costs about what four small LPs cost
    return U, s, Vt
