"""The support-LP projection (``polytopes._support_projection``) against independent methods.

Oracles: cddlib's block elimination (dual double description, a different algorithm) on random
polytopes, closed forms for sets whose projection is known by hand, and the brute-force
projection of vertices (every vertex of ``P`` enumerated by cdd, projected, their hull's support
compared along many directions).
"""

from __future__ import annotations

import numpy as np
import pytest

from polytopes import Polytope, project
from polytopes._support_projection import SupportProjectionUnavailable, support_projection


def _random_bounded(rng, n: int, m: int, flat: bool) -> Polytope:
    A = np.vstack([rng.normal(size=(m, n)), np.eye(n), -np.eye(n)])
    b = np.concatenate([rng.uniform(0.5, 2.0, size=m), 3.0 * np.ones(2 * n)])
    C, d = np.zeros((0, n)), np.zeros(0)
    if flat:
        C, d = rng.normal(size=(1, n)), np.array([0.1])
    return Polytope(A, b, C, d)


@pytest.mark.parametrize("seed", range(12))
def test_equals_block_elimination_on_random_polytopes(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    P = _random_bounded(rng, n, int(rng.integers(n + 2, 2 * n + 3)), flat=seed % 3 == 0)
    if P.is_empty():
        pytest.skip("empty draw")
    k = 1 + seed % 3
    ks = [int(i) for i in rng.choice(n, k, replace=False)]
    Q = Polytope(*support_projection(P, ks))
    assert Q.equals(project(P, ks, method="block_elimination"))


def test_support_function_equals_vertex_hull():
    rng = np.random.default_rng(42)
    P = _random_bounded(rng, 5, 9, flat=False)
    ks = [3, 0, 4]
    Q = Polytope(*support_projection(P, ks))
    V = P.vertices().vertices[:, ks]
    for d in rng.normal(size=(40, 3)):
        assert Q.support(d) == pytest.approx(float(np.max(V @ d)), rel=1e-7, abs=1e-7)


def test_interval_of_a_lifted_segment_closed_form():
    # {(t, w) : t - w <= 0.5, w - t <= 1, 0 <= w <= 1} projects onto t in [-1, 1.5]
    D = Polytope([[1.0, -1.0], [-1.0, 1.0], [0.0, 1.0], [0.0, -1.0]], [0.5, 1.0, 1.0, 0.0])
    Q = Polytope(*support_projection(D, [0]))
    lo, hi = Q.bounding_box()
    assert (float(lo[0]), float(hi[0])) == pytest.approx((-1.0, 1.5))


def test_ray_in_one_dimension():
    # t >= w, w >= 2, w free above: t in [2, inf)
    D = Polytope([[-1.0, 1.0], [0.0, -1.0]], [0.0, -2.0])
    Q = Polytope(*support_projection(D, [0]))
    assert Q.contains([2.0]) and Q.contains([1e6]) and not Q.contains([1.99])


def test_lower_dimensional_projection_gets_its_equality():
    # the plane x0 + x1 = 1 in the unit cube of R^4, projected onto (x0, x1): a segment
    P = Polytope(np.vstack([np.eye(4), -np.eye(4)]), np.concatenate([np.ones(4), np.zeros(4)]),
                 np.array([[1.0, 1.0, 0.0, 0.0]]), np.array([1.0]))
    Q = Polytope(*support_projection(P, [0, 1]))
    assert Q.affine_dimension() == 1
    assert Q.contains([0.25, 0.75]) and not Q.contains([0.25, 0.5])
    assert Q.equals(Polytope.from_generators([[0.0, 1.0], [1.0, 0.0]]))


def test_unbounded_plane_projection_is_refused():
    # the half-space x0 <= 0 in R^3 projected onto (x0, x1): unbounded in two dimensions
    P = Polytope([[1.0, 0.0, 0.0]], [0.0])
    with pytest.raises(SupportProjectionUnavailable):
        support_projection(P, [0, 1])


def test_four_dimensional_output_is_refused():
    P = Polytope(np.vstack([np.eye(5), -np.eye(5)]), np.ones(10))
    with pytest.raises(SupportProjectionUnavailable):
        support_projection(P, [0, 1, 2, 3])
