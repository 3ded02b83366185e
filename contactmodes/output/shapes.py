"""Bounded pieces of torque sets as drawable geometry: points, segments, polygons and hulls.

A torque set ``T_c`` (a ``polytopes.Polytope`` in 1, 2 or 3 drawn torques, user units) may be
unbounded and of any dimension up to the space's. ``shape_of`` clips it to the plotting box and
returns a ``Shape``: its affine dimension and the points that draw it —

* dimension 0: the point, shape ``(1, n)``;
* dimension 1: the segment's two ends, shape ``(2, n)`` (an interval on one axis when ``n = 1``);
* dimension 2: the polygon's vertices in order around it, shape ``(k, n)``; in 3-D also the
  triangles of a fan over them (the polygon lies in a plane of the space);
* dimension 3: the vertices of the hull and its boundary triangles (``scipy.spatial.ConvexHull``
  on the polytope's vertices), faces oriented outwards.

The vertices come from the polytope itself (``Polytope.vertices``, cdd's double description);
the dimension from ``Polytope.affine_dimension`` (verified LPs), so a flat set is drawn flat
even when its vertices are only nearly coplanar. No plotting package is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from polytopes import Polytope

__all__ = ["Shape", "shape_of", "clip", "order_around", "extreme_pair", "hull_triangles"]


@dataclass(frozen=True)
class Shape:
    """A bounded set as drawn.

    Attributes
    ----------
    dim : int
        Affine dimension of the set (0 … number of drawn torques).
    points : numpy.ndarray
        ``(k, n)`` points in the drawn torques (user units): the point, the segment's ends, the
        polygon's vertices in order around it, or the hull's vertices.
    triangles : numpy.ndarray
        ``(t, 3)`` integer indices into ``points``: the surface triangles of a 2-D set in 3-D (a
        fan) or of a 3-D hull; shape ``(0, 3)`` otherwise.
    """

    dim: int
    points: np.ndarray
    triangles: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=int))


def clip(P: Polytope, lo: np.ndarray, hi: np.ndarray) -> Polytope | None:
    """``P ∩ [lo, hi]``, ``None`` when empty.

    Parameters
    ----------
    P : Polytope
        Of dimension ``n``.
    lo, hi : numpy.ndarray
        ``(n,)`` the box, in ``P``'s units.

    Returns
    -------
    Polytope or None
        The clipped set.
    """
    Q = P.intersect(Polytope.box(lo, hi))
    return None if Q.is_empty() else Q


def extreme_pair(V: np.ndarray) -> np.ndarray:
    """The two extreme points of collinear points ``V`` (along their principal direction).

    Parameters
    ----------
    V : numpy.ndarray
        ``(k, n)`` collinear points.

    Returns
    -------
    numpy.ndarray
        ``(2, n)``; ``V`` itself when ``k <= 2``.
    """
    if len(V) <= 2:
        return V
    d = V - V.mean(axis=0)
    axis = np.linalg.svd(d, full_matrices=False)[2][0]
    s = d @ axis
    return V[[int(np.argmin(s)), int(np.argmax(s))]]


def order_around(V: np.ndarray) -> np.ndarray:
    """Coplanar points in order around their centroid (counter-clockwise in the plane's own basis).

    Parameters
    ----------
    V : numpy.ndarray
        ``(k, n)``, ``n`` = 2 or 3: the vertices of a convex polygon.

    Returns
    -------
    numpy.ndarray
        ``(k, n)`` the same points reordered.
    """
    if len(V) <= 2:
        return V
    c = V.mean(axis=0)
    d = V - c
    basis = np.linalg.svd(d, full_matrices=False)[2][:2]  # (2, n): the polygon's plane
    uv = d @ basis.T
    return V[np.argsort(np.arctan2(uv[:, 1], uv[:, 0]))]


def hull_triangles(V: np.ndarray) -> np.ndarray:
    """Boundary triangles of the convex hull of ``V``, each oriented with its normal out of the hull.

    Parameters
    ----------
    V : numpy.ndarray
        ``(k, 3)`` points of a full-dimensional set.

    Returns
    -------
    numpy.ndarray
        ``(t, 3)`` int, indices into ``V``.
    """
    from scipy.spatial import ConvexHull

    hull = ConvexHull(V)
    tri = np.array(hull.simplices, dtype=int)
    centre = V.mean(axis=0)
    a, b, c = V[tri[:, 0]], V[tri[:, 1]], V[tri[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), centre - a) > 0
    tri[inward] = tri[inward][:, [0, 2, 1]]
    return tri


def shape_of(P: Polytope, lo: np.ndarray | None = None, hi: np.ndarray | None = None) -> Shape | None:
    """The drawable ``Shape`` of ``P``, clipped to ``[lo, hi]`` when given.

    Parameters
    ----------
    P : Polytope
        Of dimension ``n`` = 1, 2 or 3 (user units).
    lo, hi : numpy.ndarray, optional
        ``(n,)`` the plotting box.

    Returns
    -------
    Shape or None
        ``None`` when the (clipped) set is empty.

    Raises
    ------
    ValueError
        When the set is unbounded and no box is given (it cannot be drawn).
    """
    if lo is not None and hi is not None:
        Q = clip(P, np.asarray(lo, float), np.asarray(hi, float))
        if Q is None:
            return None
        P = Q
    elif P.is_empty():
        return None
    g = P.vertices()
    if len(g.rays) or len(g.lines):
        raise ValueError("P: unbounded: give the plotting box lo, hi to clip it")
    V = np.asarray(g.vertices, dtype=float)
    k = P.affine_dimension()
    if k == 0:
        return Shape(0, V[:1])
    if k == 1:
        return Shape(1, extreme_pair(V))
    if k == 2:
        ring = order_around(V)
        fan = np.array([[0, i, i + 1] for i in range(1, len(ring) - 1)], dtype=int).reshape(-1, 3)
        return Shape(2, ring, fan if P.dim == 3 else np.zeros((0, 3), dtype=int))
    return Shape(3, V, hull_triangles(V))
