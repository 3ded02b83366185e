"""Polytopes in R^0 (issue 25 item 5: the torque sets of a system without actuators).

R^0 has one point, the empty tuple ``()``, so a set in it is either ``{()}`` or empty. Its rows
read ``0 <= b_i`` and ``0 = d_i``; the answers below are derived from that by hand: the set is
empty iff some ``b_i < 0`` or some ``d_i != 0`` beyond the emptiness rule's tolerance
(``FEASIBILITY_TOL`` times the data scale, which is 1 here: a zero row carries no scale).
"""

from __future__ import annotations

import numpy as np
import pytest

from polytopes import Polytope, project
from polytopes.errors import PolytopeError
from polytopes.regions import difference
from polytopes.tolerances import FEASIBILITY_TOL


def point(b=(), d=()):
    """``{x in R^0 : 0 <= b, 0 = d}``."""
    return Polytope(np.zeros((len(b), 0)), list(b), np.zeros((len(d), 0)), list(d))


# (b, d, empty) by hand: 0 <= b_i for every i and 0 = d_j for every j
CASES = [
    ((), (), False),
    ((1.0, 0.0), (), False),
    ((2.0,), (0.0,), False),
    ((-1.0,), (), True),
    ((1.0, -0.5), (), True),
    ((1.0,), (0.25,), True),
    ((), (-3.0,), True),
    ((0.1 * FEASIBILITY_TOL,), (), False),     # within the rule's tolerance: 0 <= b holds
    ((-0.1 * FEASIBILITY_TOL,), (), False),
    ((), (0.1 * FEASIBILITY_TOL,), False),
    ((-10 * FEASIBILITY_TOL,), (), True),       # beyond it
    ((), (10 * FEASIBILITY_TOL,), True),
]


@pytest.mark.parametrize("b, d, empty", CASES)
def test_emptiness_and_queries_by_hand(b, d, empty):
    P = point(b, d)
    assert P.dim == 0 and P.n_ineq == len(b) and P.n_eq == len(d)
    assert P.is_empty() is empty
    assert P.affine_dimension() == (-1 if empty else 0)
    assert P.contains(np.zeros(0)) is (not empty)
    assert P.contains(()) is (not empty)
    assert P.contains(np.zeros((3, 0))).tolist() == [not empty] * 3
    lo, hi = P.bounding_box()
    assert lo.shape == hi.shape == (0,)
    ball = P.chebyshev_center()
    assert ball.center.shape == (0,)
    assert ball.radius == (float("-inf") if empty else 0.0)
    G = P.vertices()
    assert G.vertices.shape == ((0, 0) if empty else (1, 0))
    assert G.rays.shape == G.lines.shape == (0, 0)
    value, x = P.maximize(np.zeros(0))
    if empty:
        assert value == float("-inf") and x is None
    else:
        assert value == 0.0 and x.shape == (0,)
    R = P.reduce()
    assert R.dim == 0 and R.is_empty() is empty
    assert R.n_eq == 0 and R.n_ineq == (1 if empty else 0)  # empty(0): 0 <= -1; the point: no row
    assert P.reduce("lp").equals(R)
    assert P.equals(Polytope.empty(0) if empty else Polytope.universe(0))


def test_constructors():
    U, E = Polytope.universe(0), Polytope.empty(0)
    assert (U.dim, U.is_empty(), E.dim, E.is_empty()) == (0, False, 0, True)
    assert Polytope([], []).dim == 0 and not Polytope([], []).is_empty()
    assert Polytope.box([], []).equals(U)
    assert Polytope.from_generators(np.zeros((1, 0)), dim=0).equals(U)
    assert Polytope.from_generators(np.zeros((0, 0)), dim=0).is_empty()
    assert repr(U) == "Polytope(dim=0, n_ineq=0, n_eq=0)"


def test_set_operations():
    U, E = Polytope.universe(0), Polytope.empty(0)
    P = point((1.0, 2.0))
    assert U.issubset(P) and P.issubset(U) and U.equals(P)
    assert E.issubset(U) and not U.issubset(E) and not U.equals(E) and E.equals(point((-1.0,)))
    assert P.intersect(E).is_empty() and not P.intersect(U).is_empty()
    assert [Q.is_empty() for Q in difference(U, [E])] == [False]  # {()} − ∅ = {()}
    assert difference(U, [U]) == [] and difference(E, [U]) == [] and difference(U, []) != []
    with pytest.raises(PolytopeError, match="other: dimension 1 does not match 0"):
        U.intersect(Polytope.universe(1))
    with pytest.raises(PolytopeError, match="^x: expected shape"):
        U.contains([0.0])


def test_json_round_trip():
    for P, empty in ((point((1.0, 0.0), (0.0,)), False), (point((-1.0,)), True), (Polytope.universe(0), False)):
        doc = P.to_json()
        assert doc["dim"] == 0 and len(doc["b"]) == P.n_ineq and len(doc["d"]) == P.n_eq
        Q = Polytope.from_json(doc)
        assert (Q.dim, Q.n_ineq, Q.n_eq, Q.is_empty()) == (0, P.n_ineq, P.n_eq, empty)
    assert Polytope.from_json({"A": [[]], "b": [-1.0], "dim": 0}).is_empty()
    assert not Polytope.from_json({"A": [], "b": [], "C": [], "d": [], "dim": 0}).is_empty()
    assert Polytope.from_json({"A": [[], []], "b": [1.0, 1.0], "C": [[]], "d": [2.0], "dim": 0}).is_empty()


def test_projection_onto_no_coordinate_is_emptiness():
    # a box, a thin segment, an unbounded set and a set empty by 1e-3: onto R^0 by their emptiness
    seg = Polytope([[1.0, 0.0], [-1.0, 0.0]], [1.0, 1.0], C=[[0.0, 1.0]], d=[0.5])
    half = Polytope([[1.0, 1.0, 1.0]], [0.0])
    gap = Polytope([[1.0], [-1.0]], [-1e-3, 0.0])  # x <= -0.001 and x >= 0
    sets = [Polytope.box([0.0, 0.0], [1.0, 2.0]), seg, half, gap, Polytope.empty(4)]
    expected_empty = [False, False, False, True, True]
    for P, empty in zip(sets, expected_empty):
        Q = project(P, [])
        assert Q.dim == 0 and Q.is_empty() is empty
        assert P.project([], method="fourier_motzkin").is_empty() is empty
    same_dim = [Polytope.box([0.0, 0.0], [1.0, 2.0]), seg, Polytope.empty(2)]
    assert [Q.is_empty() for Q in Polytope.project_many(same_dim, [])] == [False, False, True]
    with pytest.raises(PolytopeError, match=r"keep: coordinates \[0\] out of range for dimension 0"):
        project(Polytope.universe(0), [0])
    assert project(Polytope.universe(0), []).equals(Polytope.universe(0))
