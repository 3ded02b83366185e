"""``Polytope.nearest_point`` (``polytopes._nearest``): the verified Euclidean nearest point.

Oracles: closed forms (boxes, a half-plane, a segment, a point), and cvxpy's conic solver on
random sets (``min ‖W (y − x)‖²`` over ``A y <= b, C y = d``), independent of the NNLS and
HiGHS paths of the package.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from polytopes import NearestPoint, NumericalError, Polytope, PolytopeError
from polytopes import _nearest


def test_closed_forms():
    square = Polytope.box([0.0, 0.0], [1.0, 1.0])
    near = square.nearest_point([3.0, 5.0])
    assert isinstance(near, NearestPoint)
    np.testing.assert_allclose(near.point, [1.0, 1.0], atol=1e-12)
    assert near.distance == pytest.approx(math.sqrt(20.0), rel=1e-12)
    assert square.nearest_point([0.5, 0.25]).distance == 0.0            # inside
    assert square.nearest_point([0.5, -2.0]).distance == pytest.approx(2.0, rel=1e-12)
    # weights: the x difference counts twice
    assert square.nearest_point([3.0, 0.5], weights=[2.0, 1.0]).distance == pytest.approx(4.0, rel=1e-12)
    # a half-plane x + y <= 1 from (2, 2): distance 3/sqrt(2)
    half = Polytope([[1.0, 1.0]], [1.0])
    assert half.nearest_point([2.0, 2.0]).distance == pytest.approx(3 / math.sqrt(2), rel=1e-12)
    # a segment in 3-D (explicit equalities) from a point off its line
    seg = Polytope([[1.0, 0, 0], [-1.0, 0, 0]], [1.0, 1.0], C=[[0, 1.0, 0], [0, 0, 1.0]], d=[0.0, 0.0])
    near = seg.nearest_point([2.0, 3.0, 4.0])
    np.testing.assert_allclose(near.point, [1.0, 0.0, 0.0], atol=1e-12)
    assert near.distance == pytest.approx(math.sqrt(1 + 9 + 16), rel=1e-12)
    # a single point given by inequalities only (implicit equalities)
    pt = Polytope([[1.0, 0], [-1.0, 0], [0, 1.0], [0, -1.0]], [2.0, -2.0, 1.0, -1.0])
    assert pt.affine_dimension() == 0
    assert pt.nearest_point([5.0, 5.0]).distance == pytest.approx(5.0, rel=1e-9)
    # far away: relative accuracy
    assert square.nearest_point([1e8 + 1.0, 0.5]).distance == pytest.approx(1e8, rel=1e-12)


def test_errors():
    with pytest.raises(PolytopeError, match="empty set"):
        Polytope.empty(2).nearest_point([0.0, 0.0])
    with pytest.raises(PolytopeError, match="x: expected a finite point of shape"):
        Polytope.box([0.0], [1.0]).nearest_point([0.0, 1.0])
    with pytest.raises(PolytopeError, match="x: expected a finite point"):
        Polytope.box([0.0], [1.0]).nearest_point([math.nan])
    with pytest.raises(PolytopeError, match="weights"):
        Polytope.box([0.0], [1.0]).nearest_point([2.0], weights=[0.0])


def _cvxpy_distance(A, b, C, d, x, w):
    import cvxpy as cp

    y = cp.Variable(len(x))
    cons = [A @ y <= b] + ([C @ y == d] if len(d) else [])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(w, y - x))), cons)
    prob.solve(solver="CLARABEL")  # an interior-point conic solver (OSQP stops early on some)
    assert prob.status == "optimal"
    return math.sqrt(max(prob.value, 0.0))


def test_random_sets_against_cvxpy():
    """Random sets with 0–n−1 equalities, some unbounded, some lower-dimensional through their
    inequalities; weighted and not. The nearest point lies in the set, and its distance agrees
    with cvxpy's to its accuracy."""
    rng = np.random.default_rng(39)
    checked = 0
    for trial in range(120):
        n = int(rng.integers(1, 6))
        m = int(rng.integers(1, 12))
        A = rng.normal(size=(m, n))
        b = rng.normal(size=m) + 0.5
        p = int(rng.integers(0, n))
        C, d = rng.normal(size=(p, n)), 0.1 * rng.normal(size=p)
        oracle_rows = (A, b, C, d)
        if trial % 5 == 0:  # a pair of opposite rows: lower-dimensional through inequalities (the
            A = np.vstack([A, A[:1], -A[:1]])  # oracle gets the equality they make, which its solver prefers)
            b = np.concatenate([b, b[:1], -b[:1]])
            oracle_rows = (oracle_rows[0][1:], oracle_rows[1][1:], np.vstack([C, A[:1]]), np.concatenate([d, b[:1]]))
        P = Polytope(A, b, C, d)
        if P.is_empty():
            continue
        x = 3.0 * rng.normal(size=n)
        w = rng.uniform(0.2, 5.0, size=n) if trial % 2 else np.ones(n)
        near = P.nearest_point(x, weights=None if trial % 2 == 0 else w)
        assert P.contains(near.point)
        assert near.distance == pytest.approx(float(np.linalg.norm(w * (near.point - x))), rel=1e-9, abs=1e-12)
        assert near.distance == pytest.approx(_cvxpy_distance(*oracle_rows, x, w), rel=1e-6, abs=1e-7)
        checked += 1
    assert checked > 60


def test_a_failed_check_goes_to_the_second_method(monkeypatch):
    """The NNLS answer replaced by a wrong point: the check refuses it and HiGHS's QP answers."""
    monkeypatch.setattr(_nearest, "_ldp_nnls", lambda V, s: np.zeros(V.shape[1]) + 0.3)
    near = Polytope.box([0.0, 0.0], [1.0, 1.0]).nearest_point([3.0, 5.0])
    np.testing.assert_allclose(near.point, [1.0, 1.0], atol=1e-7)


def test_no_verified_answer_is_a_numerical_error(monkeypatch):
    monkeypatch.setattr(_nearest, "_ldp_nnls", lambda V, s: None)
    monkeypatch.setattr(_nearest, "_qp_highs", lambda V, s: np.full(V.shape[1], 0.5))
    with pytest.raises(NumericalError, match="nearest point could not be computed reliably"):
        Polytope.box([0.0, 0.0], [1.0, 1.0]).nearest_point([3.0, 5.0])
