"""Implicit equalities, affine hulls and redundancy removal with HiGHS (the ``"lp"`` path).

The LP path avoids one LP per row where a cheaper test decides: duplicate rows are merged first,
rows hit first by a ray shot from an interior point (along each row normal and along a few random
directions) are certified irredundant without an LP, and only the remaining rows are tested with
one LP each against the current (shrinking) system (Clarkson-style sequential filtering).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import lp
from . import tolerances as tol
from .linalg import data_scale, equality_basis, normalize_rows, row_norms


@dataclass(frozen=True)
class HullInfo:
    """Affine hull of a nonempty set ``{A x <= b, C x = d}``.

    ``implicit`` (m,) bool: inequality rows that hold with equality on the whole set.
    ``Q`` (r, n), ``q`` (r,): orthonormal equalities of the affine hull; ``x0`` (n,) a point of the
    hull; ``N`` (n, n - r) orthonormal basis of its direction space.
    """

    implicit: np.ndarray
    Q: np.ndarray
    q: np.ndarray
    x0: np.ndarray
    N: np.ndarray


def is_empty(A, b, C, d) -> bool:
    """True when ``{A x <= b, C x = d}`` is empty (max-slack LP, ``FEASIBILITY_TOL``)."""
    s, _ = lp.max_slack(A, b, C, d)
    if s is None:
        return True
    return s < -tol.FEASIBILITY_TOL * data_scale(A, b)


def implicit_equalities(A, b, C, d) -> np.ndarray:
    """Boolean mask (m,) of inequalities satisfied with equality by every point of a nonempty set.

    Iterated slack LPs (Freund, Roundy & Todd 1985): maximize the sum of capped slacks of the
    undecided rows; rows with positive slack are decided non-implicit; stop when the optimum is 0.
    Zero rows of ``A`` are never reported.
    """
    m, n = A.shape
    An, bn, nrm = normalize_rows(A, b)
    eps = tol.IMPLICIT_EQ_TOL * data_scale(A, b)
    implicit = np.zeros(m, dtype=bool)
    undecided = nrm > 0
    while np.any(undecided):
        idx = np.flatnonzero(undecided)
        k = idx.size
        # variables (x, t_idx); a_i x + t_i <= b_i for i in idx, a_i x <= b_i otherwise
        T = np.zeros((m, k))
        T[idx, np.arange(k)] = 1.0
        A_ub = np.hstack([An, T])
        A_eq = np.hstack([C, np.zeros((C.shape[0], k))])
        c = np.concatenate([np.zeros(n), -np.ones(k)])
        bounds = [(None, None)] * n + [(0.0, 1.0)] * k
        st, z, _ = lp.solve(c, A_ub, bn, A_eq, d, bounds)
        if st != lp.OPTIMAL:
            raise ValueError("implicit_equalities called on an empty set")
        t = z[n:]
        slack_ok = t > eps
        if not np.any(slack_ok):
            implicit[idx] = True
            break
        undecided[idx[slack_ok]] = False
        # rows with visible slack at the found point are decided too
        x = z[:n]
        undecided &= ~((bn - An @ x) > eps)
    return implicit


def affine_hull(A, b, C, d) -> HullInfo:
    """Affine hull of a nonempty set (explicit and implicit equalities, orthonormalized)."""
    n = A.shape[1]
    imp = implicit_equalities(A, b, C, d)
    Ce = np.vstack([C, A[imp]])
    de = np.concatenate([d, b[imp]])
    Q, q, x0, N, _ = equality_basis(Ce, de, n)
    return HullInfo(imp, Q, q, x0, N)


def _dedup(U: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Indices of rows kept after merging duplicates of the unit rows ``U`` (smallest ``beta``)."""
    if U.shape[0] == 0:
        return np.zeros(0, dtype=int)
    key = np.round(U, tol.DUPLICATE_DECIMALS) + 0.0  # +0.0 turns -0.0 into 0.0
    order = np.lexsort((beta,) + tuple(key.T[::-1]))  # by key rows, then beta ascending
    ks = key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(ks[1:] != ks[:-1], axis=1)
    return np.sort(order[first])


def _witness(U: np.ndarray, beta: np.ndarray, zc: np.ndarray, rng) -> np.ndarray:
    """Rows certified irredundant by ray shooting from the interior point ``zc`` (bool (m,))."""
    m, k = U.shape
    cert = np.zeros(m, dtype=bool)
    slack = beta - U @ zc  # > 0
    n_rand = min(m, 32)
    dirs = np.vstack([U, rng.standard_normal((n_rand, k))])
    chunk = max(1, 2_000_000 // max(m, 1))
    for s in range(0, dirs.shape[0], chunk):
        D = dirs[s:s + chunk]
        G = D @ U.T  # (nd, m)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(G > tol.COEF_ZERO_TOL, slack[None, :] / G, np.inf)
        two = np.partition(t, 1, axis=1)[:, :2] if m > 1 else np.hstack([t, np.full((len(D), 1), np.inf)])
        first = np.argmin(t, axis=1)
        unique = two[:, 0] < two[:, 1] * (1.0 - tol.WITNESS_MARGIN)
        cert[first[unique & np.isfinite(two[:, 0])]] = True
    return cert


def irredundant_in_hull(U: np.ndarray, beta: np.ndarray, scale: float) -> np.ndarray:
    """Indices of the irredundant rows of a *full-dimensional* system ``U z <= beta``.

    ``U`` has unit rows with no duplicates. Witness test first, then one LP per uncertain row.
    """
    m, k = U.shape
    if m == 0:
        return np.zeros(0, dtype=int)
    keep = np.ones(m, dtype=bool)
    cap = scale * tol.CHEBYSHEV_RADIUS_CAP * 1e3
    zc, r = lp.chebyshev(U, beta, cap=cap)
    cert = np.zeros(m, dtype=bool)
    if zc is not None and r > tol.FEASIBILITY_TOL * scale:
        cert = _witness(U, beta, zc, np.random.default_rng(0))
    eps = tol.REDUNDANCY_TOL * scale
    for i in np.flatnonzero(~cert):
        keep[i] = False
        others = np.flatnonzero(keep)
        A_ub = np.vstack([U[others], U[i:i + 1]])
        b_ub = np.concatenate([beta[others], [beta[i] + max(1.0, abs(beta[i]))]])
        st, z, fun = lp.solve(-U[i], A_ub, b_ub)
        if st != lp.OPTIMAL or -fun > beta[i] + eps:
            keep[i] = True
    return np.flatnonzero(keep)


def canonical_empty(n: int):
    """Canonical H-representation of the empty set in R^n: ``0 x <= -1``."""
    return np.zeros((1, n)), np.array([-1.0]), np.zeros((0, n)), np.zeros(0)


def reduce_lp(A, b, C, d):
    """Minimal H-representation ``(A, b, C, d)`` of a set, by HiGHS LPs.

    Output form (shared with the cdd path through :func:`canonical_form`): ``C`` has orthonormal
    rows spanning the affine hull's normal space; each row of ``A`` is a unit vector orthogonal
    to the rows of ``C``; no redundant rows. Empty sets give :func:`canonical_empty`.
    """
    n = A.shape[1]
    if is_empty(A, b, C, d):
        return canonical_empty(n)
    h = affine_hull(A, b, C, d)
    rest = ~h.implicit
    Az = A[rest] @ h.N
    bz = b[rest] - A[rest] @ h.x0
    nz = row_norms(Az)
    scale = data_scale(A, b)
    ok = nz > tol.COEF_ZERO_TOL * np.maximum(row_norms(A[rest]), 1e-300)
    U, beta = Az[ok] / nz[ok, None], bz[ok] / nz[ok]
    keep = _dedup(U, beta)
    U, beta = U[keep], beta[keep]
    keep = irredundant_in_hull(U, beta, scale)
    U, beta = U[keep], beta[keep]
    A_out = U @ h.N.T
    b_out = beta + A_out @ h.x0
    return A_out, b_out, h.Q, h.q


def canonical_form(A, b, C, d):
    """Bring a nonempty, irredundant representation (e.g. from cdd) to the :func:`reduce_lp`
    output form: orthonormal independent equalities, unit inequality rows orthogonal to them."""
    n = A.shape[1]
    Q, q, x0, N, _ = equality_basis(C, d, n)
    Az = A @ N
    nz = row_norms(Az)
    ok = nz > tol.COEF_ZERO_TOL * np.maximum(row_norms(A), 1e-300)
    U, beta = Az[ok] / nz[ok, None], (b[ok] - A[ok] @ x0) / nz[ok]
    keep = _dedup(U, beta)
    A_out = U[keep] @ N.T
    return A_out, beta[keep] + A_out @ x0, Q, q
