"""Projection onto a few coordinates by support LPs: cost grows with the output, not the input.

When many variables are eliminated onto few kept ones (a torque domain ``D_c`` over ``(τ, w)``
with dozens of ambiguity variables ``w`` projected onto one to three torques), Fourier–Motzkin
elimination and block elimination pay for every intermediate row, although the answer has a
handful of facets. Here the projection ``Q = {x[keep] : x in P}`` is built from the support
function of ``P`` alone, one verified LP (``Polytope.maximize``) per query:

1. **Affine hull.** With ``P``'s affine hull ``{x : Qₐ x = qₐ}`` (``Polytope.affine_hull``, the
   package's one rule) and an orthonormal basis ``N`` of its null space, the projection's affine
   hull is ``y₀ + range(N[keep])``. Its orthonormal basis ``U`` (``k × s``) comes from the SVD of
   ``N[keep]`` with the rank rule of ``tolerances.RANK_RTOL``; the ``k − s`` directions orthogonal
   to it give the output's equalities ``U⊥ᵀ y = U⊥ᵀ y₀``. The rest works in ``u = Uᵀ y`` where
   ``Q`` is full-dimensional.
2. **s = 0**: a point. **s = 1**: two LPs, ``min`` and ``max`` of ``u``: an interval, a ray or a
   line.
3. **s = 2, 3** (bounded ``Q``): the incremental convex hull of Bretl & Lall (2008, "Testing
   static equilibrium for legged robots", the method ``pypoman`` implements for 2-D), in any of
   the two dimensions: the inner approximation starts from the maximizers along ``±e_i`` (and
   along the normal of their span while they span less than ``u``-space); then for each facet
   ``a·u <= β`` of the inner hull (``scipy.spatial.ConvexHull``) one LP ``max a·u`` over ``P``:
   if it exceeds ``β`` by more than ``SUPPORT_HULL_TOL * scale`` the maximizer is added and the
   hull rebuilt, else the facet is final. When every facet is final the inner hull equals ``Q``
   within that tolerance: each facet is then a supporting hyperplane of ``Q`` and each vertex a
   point of ``Q``.

Not handled here (the caller falls back to the elimination methods): ``s > 3``, and an
unbounded ``Q`` with ``s >= 2`` (an LP along a hull direction reports unboundedness), or more than
``SUPPORT_PROJECTION_MAX_LPS`` LPs. The result is *not* trusted here: ``polytopes.projection``
verifies it like every other method's (support functions along the facet normals, the axes and
random directions; vertices inside the projection).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import tolerances as tol

if TYPE_CHECKING:  # pragma: no cover
    from .polytope import Polytope

__all__ = ["support_projection", "SupportProjectionUnavailable"]


class SupportProjectionUnavailable(Exception):
    """The support method does not apply to this projection (the reason in the message); the
    caller falls back to an elimination method."""


def _orthonormal_complement(U: np.ndarray, k: int) -> np.ndarray:
    """Orthonormal basis ``(k, k - s)`` of the complement of the columns of ``U`` ``(k, s)``."""
    if U.shape[1] == 0:
        return np.eye(k)
    full, _, _ = np.linalg.svd(U, full_matrices=True)
    return full[:, U.shape[1]:]


def _projected_hull(P: "Polytope", ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(U, y0)``: an orthonormal basis ``(k, s)`` of the directions of the projection's affine
    hull and one point ``(k,)`` of it."""
    Qa, qa = P.affine_hull()
    n = P.dim
    x0 = Qa.T @ qa if Qa.shape[0] else np.zeros(n)
    if Qa.shape[0]:
        _, sv, Vt = np.linalg.svd(Qa, full_matrices=True)
        N = Vt[Qa.shape[0]:].T
    else:
        N = np.eye(n)
    M = N[ks, :]
    if M.size == 0:
        return np.zeros((len(ks), 0)), x0[ks]
    Uf, sv, _ = np.linalg.svd(M, full_matrices=False)
    cut = tol.RANK_RTOL * max(M.shape) * max(1.0, float(sv.max(initial=0.0)))
    s = int(np.sum(sv > cut))
    return Uf[:, :s], x0[ks]


def _support(P: "Polytope", ks: list[int], direction_y: np.ndarray, count: list[int]) -> tuple[float, np.ndarray | None]:
    """``max direction_y · x[keep]`` over ``P`` and a maximizer's ``x[keep]``; counts the LP."""
    count[0] += 1
    if count[0] > tol.SUPPORT_PROJECTION_MAX_LPS:
        raise SupportProjectionUnavailable(f"more than {tol.SUPPORT_PROJECTION_MAX_LPS} support LPs")
    c = np.zeros(P.dim)
    c[ks] = direction_y
    value, x = P.maximize(c)
    return value, (None if x is None else x[ks])


def _interval(P: "Polytope", ks: list[int], u: np.ndarray, count: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(A, b)`` of ``lo <= u·y <= hi`` (only the finite sides)."""
    rows, rhs = [], []
    hi, _ = _support(P, ks, u, count)
    lo_neg, _ = _support(P, ks, -u, count)
    if np.isfinite(hi):
        rows.append(u)
        rhs.append(hi)
    if np.isfinite(lo_neg):
        rows.append(-u)
        rhs.append(lo_neg)
    return np.array(rows, dtype=float).reshape(len(rows), len(u)), np.array(rhs, dtype=float)


def _hull(points: np.ndarray):
    """``scipy.spatial.ConvexHull`` of full-dimensional ``points`` ``(p, s)``, or ``None`` when
    they span less than ``s`` dimensions (or qhull refuses them)."""
    from scipy.spatial import ConvexHull, QhullError

    if len(points) <= points.shape[1]:
        return None
    centred = points - points.mean(axis=0)
    sv = np.linalg.svd(centred, compute_uv=False)
    if sv[-1] <= tol.RANK_RTOL * max(centred.shape) * max(1.0, float(sv[0])):
        return None
    try:
        return ConvexHull(points)
    except (QhullError, ValueError):
        return None


def _span_normal(points: np.ndarray, s: int) -> np.ndarray:
    """A unit vector ``(s,)`` orthogonal to the affine span of ``points`` (which spans less than
    ``s`` dimensions)."""
    centred = points - points.mean(axis=0)
    _, _, Vt = np.linalg.svd(centred, full_matrices=True)
    return Vt[-1]


def _incremental_hull(P: "Polytope", ks: list[int], U: np.ndarray, count: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Facets ``(A_u, b_u)`` of the bounded, full-dimensional ``Q`` in ``u``-coordinates."""
    s = U.shape[1]
    points: list[np.ndarray] = []

    def add(direction_u: np.ndarray) -> float:
        value, y = _support(P, ks, U @ direction_u, count)
        if not np.isfinite(value) or y is None:
            raise SupportProjectionUnavailable("the projection is unbounded")
        points.append(U.T @ y)
        return value

    for i in range(s):
        e = np.zeros(s)
        e[i] = 1.0
        add(e)
        add(-e)
    hull = _hull(np.array(points))
    while hull is None:  # the maximizers span less than u-space: look across their span
        normal = _span_normal(np.array(points), s)
        add(normal)
        add(-normal)
        hull = _hull(np.array(points))
    scale = max(1.0, float(np.abs(np.array(points)).max()), P.data_scale)
    eps = tol.SUPPORT_HULL_TOL * scale
    final: set[frozenset[int]] = set()
    while True:
        grew = False
        for simplex, eq in zip(hull.simplices, hull.equations):
            key = frozenset(int(i) for i in simplex)
            if key in final:
                continue
            a, beta = eq[:-1], -eq[-1]  # qhull: a·u + offset <= 0 inside, |a| = 1
            value, y = _support(P, ks, U @ a, count)
            if not np.isfinite(value) or y is None:
                raise SupportProjectionUnavailable("the projection is unbounded")
            if value <= beta + eps:
                final.add(key)
            else:
                points.append(U.T @ y)
                grew = True
        if not grew:
            return hull.equations[:, :-1].copy(), -hull.equations[:, -1].copy()
        hull = _hull(np.array(points))
        if hull is None:  # cannot happen for a superset of a full-dimensional set
            raise SupportProjectionUnavailable("qhull refused the inner hull")


def support_projection(P: "Polytope", ks: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """H-representation ``(A, b, C, d)`` of the projection of the nonempty ``P`` onto ``ks``.

    Parameters
    ----------
    P : Polytope
        A nonempty set of dimension ``n``.
    ks : list of int
        The ``k`` kept coordinates, in the order of the result's coordinates.

    Returns
    -------
    A, b, C, d : numpy.ndarray
        ``A`` ``(m, k)``, ``b`` ``(m,)``, ``C`` ``(p, k)``, ``d`` ``(p,)``: ``Q = {y : A y <= b,
        C y = d}``, not reduced and not verified.

    Raises
    ------
    SupportProjectionUnavailable
        When the projection's affine dimension exceeds 3, it is unbounded in dimension 2 or 3, or
        more than ``tolerances.SUPPORT_PROJECTION_MAX_LPS`` LPs would be needed.
    """
    k = len(ks)
    U, y0 = _projected_hull(P, ks)
    s = U.shape[1]
    if s > 3:
        raise SupportProjectionUnavailable(f"the projection has affine dimension {s} > 3")
    W = _orthonormal_complement(U, k)
    C, d = W.T.copy(), W.T @ y0
    count = [0]
    if s == 0:
        return np.zeros((0, k)), np.zeros(0), C, d
    if s == 1:
        A, b = _interval(P, ks, U[:, 0], count)
        return A, b, C, d
    A_u, b_u = _incremental_hull(P, ks, U, count)
    return A_u @ U.T, b_u, C, d
