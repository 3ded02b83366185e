"""``Polytope``'s interface for the projection check (``inner_system``, ``data_scale``,
``maximize``, ``support_lps``) and the functions ``polytopes`` exports from its private modules
(``is_empty``, ``empty_stacked``, ``normalize_rows``): the same answers as the private state they
stand for, their docstring examples run."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import polytopes
from polytopes import Polytope, PolytopeError, batchlp, empty_stacked, is_empty, lp


def _sets():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((9, 3))
    yield Polytope(A, 1.0 + 3.0 * rng.random(9))                                  # bounded, full
    yield Polytope(A[:4], 50.0 * rng.random(4))                                   # unbounded
    yield Polytope(A, 1.0 + rng.random(9), C=[[1.0, -2.0, 0.5]], d=[0.3])         # an equality
    yield Polytope([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]], [2.0, -2.0])              # implicit equality


@pytest.mark.parametrize("module", ["polytopes._feasibility", "polytopes._linalg"])
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0


def test_the_interface_gives_the_private_state():
    for P in _sets():
        assert P.inner_system() is P._hull()
        assert P.data_scale == P._feas().scale  # the rule's own number, once it is decided
        fresh = Polytope(P.A, P.b, P.C, P.d)
        assert fresh.data_scale == P.data_scale and "feas" not in fresh._cache  # no LP for the scale
        for d in np.eye(3):
            value, x = P.maximize(d)
            assert (value, None if x is None else x.tolist()) == \
                (P.support(d), None if P.argmax(d) is None else P.argmax(d).tolist())
        D = np.vstack([np.eye(3), -np.eye(3)])
        assert all(np.array_equal(a, b) for a, b in zip(P.support_lps(D), P._support_lps(D)))


def test_support_lps_solved_give_the_supports():
    P = next(_sets())
    h = P.inner_system()
    D = np.vstack([np.eye(3), -np.eye(3)])
    status, _, fun = batchlp.solve_stacked([P.support_lps(D)], fallback=False)[0]
    ok = status == lp.OPTIMAL
    assert ok.any()
    assert np.allclose((D @ h.x0 - fun)[ok], [P.support(d) for d in D[ok]], atol=1e-9)


def test_the_interface_refuses_wrong_shapes_and_the_empty_set():
    P, E = next(_sets()), Polytope.empty(3)
    assert E.inner_system() is None and E.maximize([1.0, 0.0, 0.0]) == (float("-inf"), None)
    with pytest.raises(PolytopeError, match="direction"):
        P.maximize([1.0, 0.0])
    with pytest.raises(PolytopeError, match="directions"):
        P.support_lps(np.eye(2))
    with pytest.raises(PolytopeError, match="empty set"):
        E.support_lps(np.eye(3))


def test_the_exported_emptiness_rule_is_the_polytopes():
    sets = list(_sets()) + [Polytope([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]], [1.0, -2.0]), Polytope.empty(3)]
    for P in sets:
        assert is_empty(P.A, P.b, P.C, P.d) == P.is_empty()
    same = [P for P in sets if P.n_ineq == 2 and P.n_eq == 0]
    empty, _ = empty_stacked([(np.array([P.A for P in same]), np.array([P.b for P in same]),
                               np.zeros((len(same), 0, 3)), np.zeros((len(same), 0)))])[0]
    assert empty.tolist() == [P.is_empty() for P in same] == [False, True]


def test_the_exports_are_documented_public_names():
    for name in ("Hull", "is_empty", "empty_stacked", "normalize_rows", "RayPool"):
        assert name in polytopes.__all__ and getattr(polytopes, name).__doc__, name
