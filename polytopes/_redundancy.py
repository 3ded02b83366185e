"""Redundancy removal (minimal H-representations) on the inner system of ``feasibility``.

Emptiness and the affine hull come from ``polytopes._feasibility`` (one rule for the whole
package). What is left to decide here is which inequalities of the *inner system* — the
non-implicit rows written over coordinates of the affine hull, full-dimensional there — are
redundant. Rows are first made unit vectors within the hull (so a row multiplied by any positive
number gives the same decision) and duplicates merged.

``"lp"``: rows hit first by a ray shot from an interior point (along each row normal and a few
random directions) are certified irredundant without an LP; the others by Clarkson's
output-sensitive method (small LPs against the rows known to be facets; see
``irredundant_in_hull``).
``"cdd"``: cddlib's ``matrix_redundancy_remove`` on the same clean system (unit rows, no zero
rows, no equalities), then *verified*: a row cdd removed that the ray-shooting test certifies is a
contradiction, and each removed row is checked by one LP against the kept rows; on any failure
the ``"lp"`` path is used.
``"exact"``: PPL's minimized constraint system in rational arithmetic (``ppl_io``).
"""

from __future__ import annotations

import numpy as np

from . import _cdd_io, lp
from . import tolerances as tol
from ._feasibility import Feasibility, Hull, feasibility, hull
from ._linalg import row_norms


def implicit_equalities(A, b, C, d) -> np.ndarray:
    """Boolean mask (m,) of inequalities holding with equality on the whole set (the affine-hull
    rule of ``polytopes._feasibility``); every row for the empty set (vacuously)."""
    feas = feasibility(A, b, C, d)
    if feas.empty:
        return np.ones(A.shape[0], dtype=bool)
    return hull(A, b, C, d, feas).implicit


def dedup(U: np.ndarray, beta: np.ndarray) -> np.ndarray:
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


def _interior(U, beta, scale):
    """An interior point of the full-dimensional ``U z <= beta`` (Chebyshev center, radius capped)
    and its radius, or ``(None, 0)``."""
    zc, r = lp.chebyshev(U, beta, cap=scale * tol.CHEBYSHEV_RADIUS_CAP * 1e3)
    return zc, (0.0 if zc is None else r)


def _certified(U, beta, scale):
    zc, r = _interior(U, beta, scale)
    if zc is not None and r > tol.FEASIBILITY_TOL * scale:
        return _witness(U, beta, zc, np.random.default_rng(0))
    return np.zeros(U.shape[0], dtype=bool)


def _redundant(U, beta, i, others, eps) -> bool:
    """Whether row ``i`` is implied (within ``eps``) by the rows ``others``: one LP, bounded by
    construction (row ``i`` itself enters relaxed by ``max(1, |beta_i|)``)."""
    A_ub = np.vstack([U[others], U[i:i + 1]])
    b_ub = np.concatenate([beta[others], [beta[i] + max(1.0, abs(beta[i]))]])
    st, z, fun = lp.solve(-U[i], A_ub, b_ub, bounded=True)
    return st == lp.OPTIMAL and -fun <= beta[i] + eps


def irredundant_in_hull(U: np.ndarray, beta: np.ndarray, scale: float) -> np.ndarray:
    """Indices of the irredundant rows of a *full-dimensional* system ``U z <= beta``.

    ``U`` has unit rows with no duplicates. Rows hit first by rays from an interior point are
    certified without an LP (``_witness``); the others are decided by Clarkson's
    output-sensitive method (K. L. Clarkson, "More output-sensitive geometric algorithms", FOCS
    1994): row ``i`` is tested by one LP against the rows *known* to be irredundant only — a
    small LP. If that LP's optimum ``z*`` stays within row ``i``, the row is implied by a subset
    of the rows, hence redundant. Otherwise the ray from the interior point towards ``z*`` leaves
    the set through a row ``j`` hit uniquely first — a facet — which joins the known rows, and
    row ``i`` is tested again. Ties along the ray (degenerate cases), and a first row that is
    already known (the maximizer ``z*`` lies outside the known rows: an LP verified only relative
    to ``‖z*‖``, a far vertex of an unbounded optimal face), fall back to one LP against every row
    not yet found redundant; so every pass of the loop makes a new row known or ends it.
    """
    m = U.shape[0]
    if m == 0:
        return np.zeros(0, dtype=int)
    eps = tol.REDUNDANCY_TOL * scale
    zc, r = _interior(U, beta, scale)
    if zc is None or r <= tol.FEASIBILITY_TOL * scale:
        return _sequential(U, beta, np.zeros(m, dtype=bool), eps)
    known = _witness(U, beta, zc, np.random.default_rng(0))
    alive = np.ones(m, dtype=bool)  # not (yet) found redundant
    slack = beta - U @ zc  # > 0
    for i in np.flatnonzero(~known):
        while not known[i]:
            R = np.flatnonzero(known)
            A_ub = np.vstack([U[R], U[i:i + 1]])
            b_ub = np.concatenate([beta[R], [beta[i] + max(1.0, abs(beta[i]))]])
            st, z, fun = lp.solve(-U[i], A_ub, b_ub, bounded=True)
            if st != lp.OPTIMAL:  # cannot happen for a bounded, feasible LP; decide the hard way
                alive[i] = not _redundant(U, beta, i, np.flatnonzero(alive & (np.arange(m) != i)), eps)
                known[i] = alive[i]
                break
            if -fun <= beta[i] + eps:
                alive[i] = False  # implied by known facets
                break
            d = z - zc
            G = U[alive] @ d
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(G > tol.COEF_ZERO_TOL, slack[alive] / G, np.inf)
            order = np.argsort(t)
            first = np.flatnonzero(alive)[order[0]]
            tie = len(order) > 1 and not t[order[0]] < t[order[1]] * (1.0 - tol.WITNESS_MARGIN)
            if tie or known[first]:
                # a tie along the ray, or a first row already known: the LP's maximizer is not
                # within the known rows (a far vertex of an unbounded optimal face is verified only
                # relative to its own size), so the ray names no new facet and the loop would not
                # progress; decide row i by one LP against every row still alive
                others = np.flatnonzero(alive & (np.arange(m) != i))
                alive[i] = not _redundant(U, beta, i, others, eps)
                known[i] = alive[i]
                break
            known[first] = True
    return np.flatnonzero(alive & known)


def _sequential(U, beta, cert, eps) -> np.ndarray:
    """One LP per uncertain row against the current (shrinking) system."""
    m = U.shape[0]
    keep = np.ones(m, dtype=bool)
    for i in np.flatnonzero(~cert):
        keep[i] = False
        if not _redundant(U, beta, i, np.flatnonzero(keep), eps):
            keep[i] = True
    return np.flatnonzero(keep)


def irredundant_cdd(U: np.ndarray, beta: np.ndarray, scale: float) -> np.ndarray | None:
    """cdd's redundancy removal on the clean system ``U z <= beta`` (unit rows, no duplicates),
    verified (module docstring); ``None`` when cdd fails or its answer does not verify."""
    m = U.shape[0]
    if m == 0:
        return np.zeros(0, dtype=int)
    try:
        kept = _cdd_io.irredundant_rows(U, beta, np.zeros((0, U.shape[1])), np.zeros(0))
    except (RuntimeError, ValueError):
        return None
    removed = np.setdiff1d(np.arange(m), kept)
    if removed.size == 0:
        return kept
    if np.any(_certified(U, beta, scale)[removed]):
        return None
    eps = tol.REDUNDANCY_TOL * scale
    for i in removed:
        if not _redundant(U, beta, i, kept, eps):
            return None
    return kept


def canonical_empty(n: int):
    """Canonical H-representation of the empty set in R^n: ``0 x <= -1``."""
    return np.zeros((1, n)), np.array([-1.0]), np.zeros((0, n)), np.zeros(0)


def inner_unit_system(h: Hull):
    """The inner system of ``h`` with unit rows within the hull and duplicates merged:
    ``(U, beta, beta_relaxed)``; ``U`` (m', k)."""
    nv = row_norms(h.V)
    if h.V.shape[0] == 0:
        k = h.N.shape[1]
        return np.zeros((0, k)), np.zeros(0), np.zeros(0)
    U, beta = h.V / nv[:, None], h.gamma / nv
    beta_r = (h.gamma + h.relax) / nv
    keep = dedup(U, beta)
    return U[keep], beta[keep], beta_r[keep]


def reduce(A, b, C, d, method: str = "lp", feas: Feasibility | None = None,
           hl: Hull | None = None):
    """Minimal H-representation ``(A, b, C, d)`` of ``{A x <= b, C x = d}``.

    Output form: ``C`` has orthonormal rows spanning the normal space of the affine hull; each
    row of ``A`` is a unit vector orthogonal to the rows of ``C``; no redundant rows (``"cdd"``
    falls back to ``"lp"`` when its answer does not verify). Empty sets give
    ``canonical_empty``. ``feas``/``hl`` may pass cached results of
    ``polytopes._feasibility``.
    """
    n = A.shape[1]
    feas = feasibility(A, b, C, d) if feas is None else feas
    if feas.empty:
        return canonical_empty(n)
    hl = hull(A, b, C, d, feas) if hl is None else hl
    U, beta, beta_r = inner_unit_system(hl)
    keep = None
    if method == "cdd":
        keep = irredundant_cdd(U, beta_r, feas.scale)
    if keep is None:
        keep = irredundant_in_hull(U, beta_r, feas.scale)
    U, beta = U[keep], beta[keep]
    A_out = U @ hl.N.T
    b_out = beta + A_out @ hl.x0
    return A_out, b_out, hl.Q.copy(), hl.q.copy()
