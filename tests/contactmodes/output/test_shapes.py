"""Drawable geometry of torque sets (contactmodes.output.shapes) against independent geometry.

The oracle of a polygon's vertices is brute force on the H-representation: every pair of
inequality lines intersected, the points that satisfy every inequality kept. The oracle of a 3-D
hull is the same with triples of planes, and the surface's enclosed volume (divergence theorem
over the drawn triangles) against the volume of the set from scipy's ConvexHull of those points.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from polytopes import Polytope

from contactmodes.output.shapes import Shape, clip, extreme_pair, hull_triangles, order_around, shape_of


def brute_vertices(A: np.ndarray, b: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Vertices of {A x <= b} (n = 2 or 3): every n-tuple of rows solved as equalities, kept when feasible."""
    n = A.shape[1]
    found = []
    for rows in itertools.combinations(range(len(A)), n):
        M = A[list(rows)]
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        x = np.linalg.solve(M, b[list(rows)])
        if np.all(A @ x <= b + tol):
            found.append(x)
    return np.array(found)


def same_points(P: np.ndarray, Q: np.ndarray, tol: float = 1e-7) -> bool:
    """The same finite point sets (each point of one within ``tol`` of a point of the other)."""
    def near(X, Y):
        return all(np.min(np.linalg.norm(Y - x, axis=1)) < tol for x in X)

    return len(P) > 0 and len(Q) > 0 and near(P, Q) and near(Q, P)


def test_polygon_vertices_match_pairwise_line_intersections_and_go_around():
    rng = np.random.default_rng(7)
    for _ in range(20):
        k = int(rng.integers(4, 9))
        angles = np.sort(rng.uniform(0, 2 * np.pi, k))
        A = np.column_stack([np.cos(angles), np.sin(angles)])
        b = rng.uniform(0.5, 2.0, k)
        P = Polytope(A, b)
        if P.is_empty() or np.any(~np.isfinite(np.concatenate(P.bounding_box()))):
            continue
        s = shape_of(P)
        assert s.dim == 2
        assert same_points(s.points, brute_vertices(A, b))
        # consecutive vertices turn the same way all around (a simple convex ring)
        ring = np.vstack([s.points, s.points[:2]])
        cross = [np.linalg.det(np.array([ring[i + 1] - ring[i], ring[i + 2] - ring[i + 1]]))
                 for i in range(len(s.points))]
        assert all(c > 0 for c in cross) or all(c < 0 for c in cross)


def test_unbounded_set_is_clipped_to_the_box_and_refused_without_one():
    P = Polytope([[-1.0, 0.0], [0.0, -1.0]], [0.0, 0.0])  # the positive quadrant
    with pytest.raises(ValueError, match="unbounded"):
        shape_of(P)
    s = shape_of(P, np.array([-1.0, -1.0]), np.array([2.0, 3.0]))
    assert s.dim == 2
    assert same_points(s.points, np.array([[0, 0], [2, 0], [2, 3], [0, 3]], dtype=float))
    assert shape_of(P, np.array([-3.0, -3.0]), np.array([-1.0, -1.0])) is None
    assert clip(P, np.array([-3.0, -3.0]), np.array([-1.0, -1.0])) is None


def test_lower_dimensional_sets_in_the_plane_are_a_segment_or_a_point():
    seg = Polytope([[1.0, 0.0], [-1.0, 0.0]], [2.0, 1.0], C=[[0.0, 1.0]], d=[0.5])  # y = 0.5, -1 <= x <= 2
    s = shape_of(seg)
    assert s.dim == 1
    assert same_points(s.points, np.array([[-1.0, 0.5], [2.0, 0.5]]))
    pt = Polytope.box([1.0, 2.0], [1.0, 2.0])
    s = shape_of(pt)
    assert s.dim == 0 and np.allclose(s.points, [[1.0, 2.0]])
    interval = shape_of(Polytope([[1.0], [-1.0]], [3.0, 1.0]))
    assert interval.dim == 1 and sorted(interval.points[:, 0].tolist()) == pytest.approx([-1.0, 3.0])


def _volume(points: np.ndarray, tri: np.ndarray) -> float:
    """Enclosed volume of a closed triangulated surface with outward faces (divergence theorem)."""
    a, b, c = points[tri[:, 0]], points[tri[:, 1]], points[tri[:, 2]]
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def test_hull_in_3d_matches_triple_plane_intersections_and_encloses_the_volume():
    rng = np.random.default_rng(3)
    # a box cut by two random planes through its inside
    A = np.vstack([np.eye(3), -np.eye(3), rng.normal(size=(2, 3))])
    b = np.concatenate([[1.0, 2.0, 1.5], [1.0, 0.5, 1.0], [0.3, 0.2]])
    P = Polytope(A, b)
    s = shape_of(P)
    assert s.dim == 3
    V = brute_vertices(A, b)
    assert same_points(s.points, V)
    from scipy.spatial import ConvexHull

    assert _volume(s.points, s.triangles) == pytest.approx(ConvexHull(V).volume, rel=1e-9)
    # every face's normal points away from the centroid
    c = s.points.mean(axis=0)
    a, b2, c2 = (s.points[s.triangles[:, i]] for i in range(3))
    assert np.all(np.einsum("ij,ij->i", np.cross(b2 - a, c2 - a), a - c) > 0)


def test_flat_sets_in_3d_are_a_fan_of_triangles_in_their_plane_or_a_segment():
    # the square |x| <= 1, |y| <= 1 in the plane z = 2
    sq = Polytope(np.vstack([np.eye(3)[:2], -np.eye(3)[:2]]), np.ones(4), C=[[0.0, 0.0, 1.0]], d=[2.0])
    s = shape_of(sq)
    assert s.dim == 2
    assert same_points(s.points, np.array([[1, 1, 2], [1, -1, 2], [-1, -1, 2], [-1, 1, 2]], dtype=float))
    assert s.triangles.shape == (2, 3)
    area = sum(0.5 * np.linalg.norm(np.cross(s.points[j] - s.points[i], s.points[k] - s.points[i]))
               for i, j, k in s.triangles)
    assert area == pytest.approx(4.0)
    line = Polytope([[1.0, 0, 0], [-1.0, 0, 0]], [1.0, 1.0], C=[[0, 1.0, 0], [0, 0, 1.0]], d=[3.0, -1.0])
    s = shape_of(line)
    assert s.dim == 1 and same_points(s.points, np.array([[-1.0, 3, -1], [1.0, 3, -1]]))
    assert isinstance(s, Shape) and s.triangles.shape == (0, 3)


def test_helpers_order_and_extremes():
    square = np.array([[1.0, 1], [-1, -1], [1, -1], [-1, 1]])
    ring = order_around(square)
    assert all(np.linalg.norm(ring[i] - ring[i - 1]) == pytest.approx(2.0) for i in range(4))
    assert same_points(extreme_pair(np.array([[0.0, 0], [1, 1], [3, 3], [2, 2]])), np.array([[0.0, 0], [3, 3]]))
    cube = np.array(list(itertools.product([0.0, 1.0], repeat=3)))
    assert _volume(cube, hull_triangles(cube)) == pytest.approx(1.0)
