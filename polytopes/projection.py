"""Projection of H-polytopes onto coordinate subspaces.

Three methods:

``"fourier_motzkin"``
    Ours. Equalities are eliminated first by substitution (Gaussian pivot on the largest
    coefficient); the remaining variables are eliminated one at a time, always the one minimizing
    ``#pos * #neg`` (ties: smallest net growth). After each step: exact/scaled duplicate removal,
    Chernikov's rule in Imbert's form (a combined row whose history of original rows holds more
    than ``1 + |E ∪ I|`` rows is redundant, ``E`` and ``I`` the variables effectively and
    implicitly eliminated while producing it, i.e. those occurring in its history rows but not in
    it; Imbert 1990, "Fourier's elimination: which to choose?"; Chernikov 1965), and an LP
    redundancy removal (cdd, HiGHS fallback) once the system exceeds ``tolerances.FM_LP_PRUNE_ROWS`` rows, after which
    histories restart from the pruned (exact) system.
``"block_elimination"``
    cddlib's block elimination (dual double description).
``"vertex"``
    Enumerate generators with cdd, keep the coordinates, convert back with cdd.
``"auto"``
    Fourier–Motzkin when at most ``AUTO_FM_MAX_ELIMINATED`` variables are eliminated, otherwise
    ``"vertex"`` when the ambient dimension is at most ``AUTO_VERTEX_MAX_DIM``, otherwise
    ``"block_elimination"``; on a budget error or a cdd failure the next method in the list
    (fourier_motzkin, vertex, block_elimination) is tried.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import cdd_io, redundancy
from . import tolerances as tol
from .errors import PolytopeError, ProjectionBudgetError

if TYPE_CHECKING:  # pragma: no cover
    from .polytope import Polytope

METHODS = ("auto", "fourier_motzkin", "block_elimination", "vertex")


def _normalize_maxabs(A, b):
    s = np.max(np.abs(A), axis=1) if A.shape[0] else np.zeros(0)
    s = np.where(s > 0, s, 1.0)
    return A / s[:, None], b / s


def _substitute_equalities(A, b, C, d, elim: np.ndarray):
    """Eliminate variables ``elim`` (bool mask) using equalities. Returns updated arrays and mask
    of variables still to eliminate; ``None`` for ``A`` if the equalities are inconsistent."""
    A, b, C, d = A.copy(), b.copy(), C.copy(), d.copy()
    elim = elim.copy()
    while C.shape[0] and np.any(elim):
        C, d = _normalize_maxabs(C, d)
        sub = np.abs(C[:, elim])
        if sub.size == 0 or sub.max() <= tol.COEF_ZERO_TOL:
            break
        k, jj = np.unravel_index(np.argmax(sub), sub.shape)
        j = np.flatnonzero(elim)[jj]
        row, rhs = C[k] / C[k, j], d[k] / C[k, j]
        A, b = A - np.outer(A[:, j], row), b - A[:, j] * rhs
        C, d = np.delete(C, k, 0), np.delete(d, k)
        C, d = C - np.outer(C[:, j], row), d - C[:, j] * rhs
        A[:, j] = 0.0
        C[:, j] = 0.0
        elim[j] = False
    if C.shape[0]:
        C, d = _normalize_maxabs(C, d)
        C[:, elim] = 0.0  # remaining coefficients on eliminated variables are numerically zero
        zero = np.all(np.abs(C) <= tol.COEF_ZERO_TOL, axis=1)
        if np.any(np.abs(d[zero]) > tol.FEASIBILITY_TOL * max(1.0, float(np.max(np.abs(d))))):
            return None, None, None, None, elim
        C, d = C[~zero], d[~zero]
    return A, b, C, d, elim


def _budget(n_rows: int, max_rows: int, j: int):
    raise ProjectionBudgetError(
        f"max_rows: Fourier-Motzkin would hold {n_rows} rows (> {max_rows}) after eliminating "
        f"variable {j}; use method='block_elimination' or method='vertex'")


def _restart(A, b):
    """Treat ``A x <= b`` as the original system: histories = identity, supports of its rows."""
    A, b = _normalize_maxabs(A, b)
    A[np.abs(A) <= tol.COEF_ZERO_TOL] = 0.0
    H = np.eye(A.shape[0], dtype=bool)
    A, b, H = _drop_dups(A, b, H)
    H = np.eye(A.shape[0], dtype=bool)
    S = (A != 0).astype(np.int64)
    return A, b, H, S


def _drop_dups(A, b, H):
    if A.shape[0] == 0:
        return A, b, H
    key = np.round(A, tol.DUPLICATE_DECIMALS) + 0.0
    order = np.lexsort((H.sum(axis=1), b) + tuple(key.T[::-1]))
    ks = key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(ks[1:] != ks[:-1], axis=1)
    keep = np.sort(order[first])
    return A[keep], b[keep], H[keep]


def fourier_motzkin(A: np.ndarray, b: np.ndarray, C: np.ndarray, d: np.ndarray,
                    eliminate: Sequence[int], max_rows: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eliminate the variables ``eliminate`` from ``{A x <= b, C x = d}``.

    Fourier–Motzkin elimination with Chernikov/Imbert pruning (Imbert 1990). ``A`` (m, n),
    ``b`` (m,), ``C`` (p, n), ``d`` (p,). Returns ``(A', b', C', d')`` over the remaining
    variables in their original order; the output may still hold redundant rows (use
    :meth:`Polytope.reduce`). An inconsistent system may come back as ``0 x <= -1``.

    Raises :class:`ProjectionBudgetError` when an intermediate system would hold more than
    ``max_rows`` rows (default ``tolerances.DEFAULT_ROW_BUDGET``).
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    C = np.asarray(C, dtype=float)
    d = np.asarray(d, dtype=float)
    m, n = A.shape
    max_rows = tol.DEFAULT_ROW_BUDGET if max_rows is None else int(max_rows)
    elim_mask = np.zeros(n, dtype=bool)
    elim_mask[list(eliminate)] = True
    keep_cols = np.flatnonzero(~elim_mask)
    k_out = keep_cols.size

    def _empty():
        return np.zeros((1, k_out)), np.array([-1.0]), np.zeros((0, k_out)), np.zeros(0)

    A, b, C, d, todo = _substitute_equalities(A, b, C, d, elim_mask)
    if A is None:
        return _empty()
    A, b = _normalize_maxabs(A, b)
    A[np.abs(A) <= tol.COEF_ZERO_TOL] = 0.0
    A, b, H, S = _restart(A, b)
    while np.any(todo):
        cand = np.flatnonzero(todo)
        pos = A[:, cand] > 0
        neg = A[:, cand] < 0
        npos, nneg = pos.sum(axis=0), neg.sum(axis=0)
        cost = npos * nneg
        growth = cost - npos - nneg
        j = cand[np.lexsort((growth, cost))[0]]
        todo[j] = False
        P = np.flatnonzero(A[:, j] > 0)
        Nn = np.flatnonzero(A[:, j] < 0)
        Z = np.flatnonzero(A[:, j] == 0)
        if P.size == 0 or Nn.size == 0:
            A, b, H = A[Z], b[Z], H[Z]
            continue
        # Imbert's rule: keep a combination only if |H| <= 1 + |vars that vanished from it|;
        # vanished vars are a subset of the support of its history rows (cheap pre-filter)
        Hp, Hn = H[P].astype(np.int64), H[Nn].astype(np.int64)
        hsize = Hp.sum(1)[:, None] + Hn.sum(1)[None, :] - Hp @ Hn.T
        Sp = (Hp @ S) > 0
        Sn = (Hn @ S) > 0
        Sp_, Sn_ = Sp.astype(np.int64), Sn.astype(np.int64)
        ssize = Sp_.sum(1)[:, None] + Sn_.sum(1)[None, :] - Sp_ @ Sn_.T
        ok = hsize <= ssize + 1
        n_pre = int(ok.sum()) + Z.size
        if n_pre > tol.FM_PREFILTER_FACTOR * max_rows:
            _budget(n_pre, max_rows, j)
        ip, iq = np.nonzero(ok)
        p, q = P[ip], Nn[iq]
        lam, mu = -A[q, j], A[p, j]
        newA = lam[:, None] * A[p] + mu[:, None] * A[q]
        newb = lam * b[p] + mu * b[q]
        newA[:, j] = 0.0
        # cancellation noise relative to the combined terms (not to the result, which may be
        # tiny): left in, normalization would blow a 1e-16 residue up into a spurious facet
        mag = lam[:, None] * np.abs(A[p]) + mu[:, None] * np.abs(A[q])
        newA[np.abs(newA) <= tol.COEF_ZERO_TOL * mag] = 0.0
        newH = H[p] | H[q]
        newA, newb = _normalize_maxabs(newA, newb)
        newA[np.abs(newA) <= tol.COEF_ZERO_TOL] = 0.0
        vanished = (Sp[ip] | Sn[iq]) & (newA == 0)
        exact = newH.sum(1) <= vanished.sum(1) + 1
        newA, newb, newH = newA[exact], newb[exact], newH[exact]
        if Z.size + newA.shape[0] > max_rows:
            _budget(Z.size + newA.shape[0], max_rows, j)
        zero = ~np.any(newA != 0, axis=1)
        scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
        if np.any(newb[zero] < -tol.FEASIBILITY_TOL * scale):
            return _empty()
        nz = ~zero
        A = np.vstack([A[Z], newA[nz]])
        b = np.concatenate([b[Z], newb[nz]])
        H = np.vstack([H[Z], newH[nz]])
        A, b, H = _drop_dups(A, b, H)
        if A.shape[0] > tol.FM_LP_PRUNE_ROWS:
            keep = _lp_prune(A, b, C, d)
            if keep is None:
                return _empty()
            # the pruned system is an exact representation: restart histories from it
            A, b, H, S = _restart(A[keep], b[keep])
    A, C = A[:, keep_cols], C[:, keep_cols]
    return A + 0.0, b + 0.0, C + 0.0, d + 0.0


def _lp_prune(A, b, C, d):
    """Indices of rows to keep (implicit equalities and irredundant rows), ``None`` if empty.

    cddlib's redundancy removal (LPs in C, no per-LP Python overhead) is tried first; the HiGHS
    path of :mod:`polytopes.redundancy` is the fallback when cdd raises."""
    if redundancy.is_empty(A, b, C, d):
        return None
    try:
        return cdd_io.irredundant_rows(A, b, C, d)
    except (RuntimeError, ValueError):
        pass
    h = redundancy.affine_hull(A, b, C, d)
    rest = np.flatnonzero(~h.implicit)
    Az = A[rest] @ h.N
    bz = b[rest] - A[rest] @ h.x0
    nz = np.linalg.norm(Az, axis=1)
    ok = nz > tol.COEF_ZERO_TOL * np.maximum(np.linalg.norm(A[rest], axis=1), 1e-300)
    rest = rest[ok]
    U, beta = Az[ok] / nz[ok, None], bz[ok] / nz[ok]
    k = redundancy._dedup(U, beta)
    rest, U, beta = rest[k], U[k], beta[k]
    from .linalg import data_scale
    k = redundancy.irredundant_in_hull(U, beta, data_scale(A, b))
    return np.sort(np.concatenate([np.flatnonzero(h.implicit), rest[k]]))


def _check_keep(keep, n: int) -> list[int]:
    try:
        ks = [int(k) for k in keep]
    except (TypeError, ValueError) as exc:
        raise PolytopeError(f"keep: expected a sequence of coordinate indices ({exc})") from None
    if not ks:
        raise PolytopeError("keep: must list at least one coordinate")
    if len(set(ks)) != len(ks):
        raise PolytopeError(f"keep: duplicate coordinates in {ks}")
    bad = [k for k in ks if not 0 <= k < n]
    if bad:
        raise PolytopeError(f"keep: coordinates {bad} out of range for dimension {n}")
    return ks


def project(P: "Polytope", keep: Sequence[int], method: str = "auto",
            max_rows: int | None = None) -> "Polytope":
    """Projection of ``P`` onto the coordinates ``keep`` (result coordinates in that order).

    See the module docstring for the methods. The result is reduced (:meth:`Polytope.reduce`).
    Raises :class:`PolytopeError` on a bad ``keep``/``method`` and :class:`ProjectionBudgetError`
    when an intermediate representation would exceed ``max_rows`` (default
    ``tolerances.DEFAULT_ROW_BUDGET``).
    """
    from .polytope import Polytope

    n = P.dim
    ks = _check_keep(keep, n)
    if method not in METHODS:
        raise PolytopeError(f"method: expected one of {METHODS}, got {method!r}")
    max_rows = tol.DEFAULT_ROW_BUDGET if max_rows is None else int(max_rows)
    k = len(ks)
    if P.is_empty():
        return Polytope(*redundancy.canonical_empty(k))
    eliminate = [j for j in range(n) if j not in set(ks)]
    if method == "auto":
        if len(eliminate) <= tol.AUTO_FM_MAX_ELIMINATED:
            order = ["fourier_motzkin", "vertex", "block_elimination"]
        elif n <= tol.AUTO_VERTEX_MAX_DIM:
            order = ["vertex", "block_elimination", "fourier_motzkin"]
        else:
            order = ["block_elimination", "fourier_motzkin", "vertex"]
        last: Exception | None = None
        for mth in order:
            try:
                return project(P, ks, mth, max_rows)
            except ProjectionBudgetError as exc:
                last = exc
            except RuntimeError as exc:  # cddlib failure
                last = exc
        raise ProjectionBudgetError(f"max_rows: every projection method failed ({last})")
    sorted_keep = sorted(ks)
    perm = [sorted_keep.index(kk) for kk in ks]
    if method == "fourier_motzkin":
        A, b, C, d = fourier_motzkin(P.A, P.b, P.C, P.d, eliminate, max_rows)
        Q = Polytope(A[:, perm], b, C[:, perm], d)
    elif method == "block_elimination":
        if not eliminate:
            Q = P
        else:
            A, b, C, d = cdd_io.block_eliminate(P.A, P.b, P.C, P.d, eliminate)
            if A.shape[0] + C.shape[0] > max_rows:
                raise ProjectionBudgetError(
                    f"max_rows: block elimination produced {A.shape[0] + C.shape[0]} rows "
                    f"(> {max_rows}); use method='vertex' or method='fourier_motzkin'")
            Q = Polytope(A, b, C, d)
        Q = Polytope(Q.A[:, perm], Q.b, Q.C[:, perm], Q.d)
    else:  # vertex
        G = P.vertices()
        ng = len(G.vertices) + len(G.rays) + len(G.lines)
        if ng > max_rows:
            raise ProjectionBudgetError(
                f"max_rows: vertex enumeration produced {ng} generators (> {max_rows}); use "
                f"method='fourier_motzkin' or method='block_elimination'")
        Q = Polytope.from_generators(G.vertices[:, ks], G.rays[:, ks], G.lines[:, ks], dim=k)
    return Q.reduce()
