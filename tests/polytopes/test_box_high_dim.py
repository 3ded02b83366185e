"""Bounding boxes of sets of more than ``BOX_RAYS_MAX_DIM`` dimensions: their unbounded sides are
decided by the support LPs alone (no double description), with the same answers (issue 28)."""

import numpy as np

from polytopes import Polytope
from polytopes import tolerances as tol


def _wedge(n: int) -> Polytope:
    """``{x ∈ R^n : x >= 0, x_1 + … + x_{n-1} <= 1 + x_0 / 2}``: ``x_0`` unbounded above,
    ``x_i`` (i >= 1) unbounded above along with it; every lower side 0."""
    A = np.vstack([-np.eye(n), np.concatenate([[-0.5], np.ones(n - 1)])[None, :]])
    b = np.concatenate([np.zeros(n), [1.0]])
    return Polytope(A, b)


def _simplex(n: int) -> Polytope:
    """``{x >= 0, Σ x <= 2}``: the box ``[0, 2]^n`` (closed form)."""
    return Polytope(np.vstack([-np.eye(n), np.ones((1, n))]), np.concatenate([np.zeros(n), [2.0]]))


def test_high_dimensional_boxes_equal_closed_forms():
    n = tol.BOX_RAYS_MAX_DIM + 6
    lo, hi = _wedge(n).bounding_box()
    np.testing.assert_array_equal(lo, np.zeros(n))
    assert np.all(np.isinf(hi)) and np.all(hi > 0)
    lo, hi = _simplex(n).bounding_box(coords=[0, 3])
    np.testing.assert_allclose(lo, [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(hi, [2.0, 2.0], rtol=1e-12)


def test_high_dimensional_box_equals_the_double_description_one(monkeypatch):
    n = tol.BOX_RAYS_MAX_DIM + 6
    without = _wedge(n).bounding_box(coords=[0, 1, n - 1])
    monkeypatch.setattr(tol, "BOX_RAYS_MAX_DIM", n + 1)  # the recession cone's generators first
    with_dd = _wedge(n).bounding_box(coords=[0, 1, n - 1])
    for a, b in zip(without, with_dd):
        np.testing.assert_array_equal(a, b)
