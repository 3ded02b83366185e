"""The one boundary between NumPy arrays and pycddlib (>= 3.0) matrices.

cdd stores an H-representation row as ``[b, -a]`` meaning ``b - a x >= 0``; rows in ``lin_set``
are equalities. A V-representation row is ``[1, v]`` for a vertex and ``[0, r]`` for a ray;
rows in ``lin_set`` are lines.

Crash guards (every cdd call of the package goes through this module): pycddlib 3.0 segfaults
when canonicalizing a matrix whose rows are all zero, so rows that are entirely zero (``0 <= 0``,
``0 = 0``: no information) are dropped before any matrix is built and every H-matrix carries the
nonzero trivial row ``1 >= 0``; ``canonicalize`` refuses (``PolytopeError``) matrices larger
than ``tolerances.CDD_CANONICALIZE_MAX_ROWS`` (cddlib's canonicalization of large
block-elimination outputs was seen to abort, crash or run for minutes); callers reduce those with
the package's own LP path instead.
"""

from __future__ import annotations

import cdd
import numpy as np

from . import tolerances as tol
from ._quiet import quiet_c_stderr

from .errors import NumericalError, PolytopeError


def drop_zero_rows(A, b, C, d):
    """Remove rows that are entirely zero (``0 <= 0``, ``0 = 0``); other rows untouched."""
    zi = ~np.any(A != 0, axis=1) & (b == 0) if A.shape[0] else np.zeros(0, dtype=bool)
    ze = ~np.any(C != 0, axis=1) & (d == 0) if C.shape[0] else np.zeros(0, dtype=bool)
    return A[~zi], b[~zi], C[~ze], d[~ze]


def h_to_cdd(A: np.ndarray, b: np.ndarray, C: np.ndarray, d: np.ndarray):
    """cdd H-matrix of ``{A x <= b, C x = d}``, with the trivial row ``0 <= 1`` appended: cddlib
    mishandles a matrix without rows and, for a homogeneous system, reads it as a cone and omits
    the origin vertex from the generators. ``h_from_cdd`` drops trivial rows again. Rows
    that are entirely zero are dropped (crash guard, module docstring)."""
    A, b, C, d = drop_zero_rows(np.asarray(A, float), np.asarray(b, float),
                                np.asarray(C, float), np.asarray(d, float))
    n = A.shape[1]
    trivial = np.zeros((1, n + 1))
    trivial[0, 0] = 1.0
    rows = np.vstack([np.hstack([b[:, None], -A]), np.hstack([d[:, None], -C]), trivial])
    lin = set(range(A.shape[0], A.shape[0] + C.shape[0]))
    return cdd.matrix_from_array(rows.tolist(), rep_type=cdd.RepType.INEQUALITY, lin_set=lin)


def h_from_cdd(mat) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(A, b, C, d)`` from a cdd H-matrix; trivially true zero rows are dropped."""
    if mat.rep_type != cdd.RepType.INEQUALITY:
        raise PolytopeError("mat: expected an H-representation (RepType.INEQUALITY)")
    arr = np.array(mat.array, dtype=float)
    ncol = len(mat.array[0]) if len(mat.array) else None
    if arr.size == 0:
        if ncol is None:
            raise PolytopeError("mat: empty cdd matrix carries no dimension")
        arr = arr.reshape(0, ncol)
    lin = np.zeros(arr.shape[0], dtype=bool)
    lin[list(mat.lin_set)] = True
    b, A = arr[:, 0], -arr[:, 1:]
    trivial = np.all(A == 0, axis=1) & ((b >= 0) | (lin & (b == 0)))
    ineq = ~lin & ~trivial
    eq = lin & ~trivial
    return A[ineq] + 0.0, b[ineq] + 0.0, A[eq] + 0.0, b[eq] + 0.0


def v_to_cdd(vertices: np.ndarray, rays: np.ndarray, lines: np.ndarray):
    """cdd V-matrix of ``conv(vertices) + cone(rays) + span(lines)`` (needs one vertex); zero rays
    and lines are dropped (crash guard)."""
    rays = rays[np.any(rays != 0, axis=1)] if len(rays) else rays
    lines = lines[np.any(lines != 0, axis=1)] if len(lines) else lines
    rows = np.vstack([
        np.hstack([np.ones((len(vertices), 1)), vertices]),
        np.hstack([np.zeros((len(rays), 1)), rays]),
        np.hstack([np.zeros((len(lines), 1)), lines]),
    ])
    lin = set(range(len(vertices) + len(rays), rows.shape[0]))
    return cdd.matrix_from_array(rows.tolist(), rep_type=cdd.RepType.GENERATOR, lin_set=lin)


def generators(A, b, C, d) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(vertices, rays, lines)`` of a nonempty set by the double description method."""
    n = A.shape[1]
    with quiet_c_stderr():
        poly = cdd.polyhedron_from_matrix(h_to_cdd(A, b, C, d))
    g = cdd.copy_generators(poly)
    arr = np.array(g.array, dtype=float).reshape(-1, n + 1)
    lin = np.zeros(arr.shape[0], dtype=bool)
    lin[list(g.lin_set)] = True
    # cddlib's floating-point arithmetic can leave a ray with a homogenizing coordinate of ~1e-17
    # instead of 0 (seen on a massless-leg domain): classify relative to the row's size.
    size = np.maximum(1.0, np.abs(arr[:, 1:]).max(axis=1, initial=0.0))
    is_v = (np.abs(arr[:, 0]) > tol.COEF_ZERO_TOL * size) & ~lin
    V = arr[is_v, 1:] / arr[is_v, :1]
    R = arr[~is_v & ~lin, 1:]
    L = arr[lin, 1:]
    return V + 0.0, R + 0.0, L + 0.0


def h_from_generators(vertices, rays, lines):
    """``(A, b, C, d)`` of ``conv(vertices) + cone(rays) + span(lines)`` via cdd."""
    with quiet_c_stderr():
        poly = cdd.polyhedron_from_matrix(v_to_cdd(vertices, rays, lines))
    return h_from_cdd(cdd.copy_inequalities(poly))


def canonicalize(A, b, C, d):
    """cdd canonicalization (implicit linearities and redundancies removed).

    Raises ``PolytopeError`` for more than ``tolerances.CDD_CANONICALIZE_MAX_ROWS`` rows
    (crash guard); cdd's own failures surface as ``RuntimeError``."""
    if A.shape[0] + C.shape[0] > tol.CDD_CANONICALIZE_MAX_ROWS:
        raise PolytopeError(f"rows: {A.shape[0] + C.shape[0]} rows exceed the cdd canonicalization "
                            f"budget ({tol.CDD_CANONICALIZE_MAX_ROWS})")
    mat = h_to_cdd(A, b, C, d)
    with quiet_c_stderr():  # its LPs can fall back to cddlib's criss-cross method, which prints
        cdd.matrix_canonicalize(mat)
    if len(mat.array) == 0:  # only trivial rows: the whole space
        n = A.shape[1]
        return np.zeros((0, n)), np.zeros(0), np.zeros((0, n)), np.zeros(0)
    return h_from_cdd(mat)


def block_eliminate(A, b, C, d, eliminate):
    """cdd block elimination of the variables ``eliminate`` (0-based); the remaining columns keep
    their order. Output may be redundant.

    cddlib's floating-point elimination can fail on a small, well-scaled system: it returns no
    matrix and pycddlib raises ``MemoryError``. That is this method's failure, raised as
    ``NumericalError`` so that ``project(method="auto")`` goes on to its next method."""
    mat = h_to_cdd(A, b, C, d)
    try:
        with quiet_c_stderr():
            out = cdd.block_elimination(mat, {int(j) + 1 for j in eliminate})
    except MemoryError as exc:
        raise NumericalError(f"cdd block elimination returned no matrix ({A.shape[0] + C.shape[0]} rows, "
                             f"{A.shape[1]} variables): floating-point cddlib failed") from exc
    n_left = A.shape[1] - len(set(eliminate))
    if len(out.array) == 0:
        return np.zeros((0, n_left)), np.zeros(0), np.zeros((0, n_left)), np.zeros(0)
    return h_from_cdd(out)


def irredundant_rows(A, b, C, d) -> np.ndarray:
    """Indices of the inequality rows of ``A x <= b`` that cdd's redundancy removal keeps
    (equalities ``C x = d`` take part but are not reported). Raises ``PolytopeError`` over
    ``tolerances.CDD_CANONICALIZE_MAX_ROWS`` rows (crash guard)."""
    if A.shape[0] + C.shape[0] > tol.CDD_CANONICALIZE_MAX_ROWS:
        raise PolytopeError(f"rows: {A.shape[0] + C.shape[0]} rows exceed the cdd redundancy "
                            f"budget ({tol.CDD_CANONICALIZE_MAX_ROWS})")
    zero = ~np.any(A != 0, axis=1) & (b == 0)
    if np.any(zero):  # all-zero rows are redundant; cdd never sees them
        idx = np.flatnonzero(~zero)
        return idx[irredundant_rows(A[idx], b[idx], C, d)]
    mat = h_to_cdd(A, b, C, d)
    with quiet_c_stderr():
        redundant, _ = cdd.matrix_redundancy_remove(mat)
    return np.array([i for i in range(A.shape[0]) if i not in redundant], dtype=int)
