"""Support-LP projections of affine dimension at most 1 are returned without the check LPs
(``polytopes.projection._certified``, issue 28): they equal closed forms and pass the check."""

import numpy as np

from polytopes import Polytope
from polytopes.projection import project, project_many, support_first, verify_projection

N_W = 12


def _domain(shift: float = 0.0) -> Polytope:
    """Over ``(t, w_1..w_12)``: ``|w_i| <= 1``, ``t - Σw <= 3 + shift``, ``Σw - t <= 2``; its
    projection onto ``t`` is ``[-2 - 12, 3 + shift + 12]``."""
    n = 1 + N_W
    A = np.vstack([np.hstack([np.zeros((N_W, 1)), np.eye(N_W)]), np.hstack([np.zeros((N_W, 1)), -np.eye(N_W)]),
                   np.concatenate([[1.0], -np.ones(N_W)])[None], np.concatenate([[-1.0], np.ones(N_W)])[None]])
    b = np.concatenate([np.ones(2 * N_W), [3.0 + shift, 2.0]])
    assert A.shape[1] == n
    return Polytope(A, b)


def _segment_domain() -> Polytope:
    """Over ``(t1, t2, w)``: ``t2 = 2 t1``, ``|w_i| <= 1``, ``t1 - Σw <= 1``, ``-t1 - Σw <= 1``: the
    projection onto ``(t1, t2)`` is the segment ``t1 ∈ [-13, 13]`` of the line ``t2 = 2 t1``."""
    A = np.vstack([np.hstack([np.zeros((N_W, 2)), np.eye(N_W)]), np.hstack([np.zeros((N_W, 2)), -np.eye(N_W)]),
                   np.concatenate([[1.0, 0.0], -np.ones(N_W)])[None], np.concatenate([[-1.0, 0.0], -np.ones(N_W)])[None]])
    b = np.concatenate([np.ones(2 * N_W), [1.0, 1.0]])
    C = np.concatenate([[2.0, -1.0], np.zeros(N_W)])[None]
    return Polytope(A, b, C, np.zeros(1))


def test_interval_equals_the_closed_form_and_passes_the_check():
    assert support_first(N_W, 1)
    P = _domain()
    T = project(P, [0])
    lo, hi = T.bounding_box()
    np.testing.assert_allclose([lo[0], hi[0]], [-14.0, 15.0], rtol=1e-12)
    assert verify_projection(P, T, [0]) is None
    assert T.equals(project(P, [0], method="fourier_motzkin"))


def test_segment_equals_the_closed_form_and_passes_the_check():
    P = _segment_domain()
    T = project(P, [0, 1])
    assert T.affine_dimension() == 1
    lo, hi = T.bounding_box()
    np.testing.assert_allclose([lo[0], hi[0], lo[1], hi[1]], [-13.0, 13.0, -26.0, 26.0], rtol=1e-12)
    assert verify_projection(P, T, [0, 1]) is None


def test_many_equal_one_by_one():
    polys = [_domain(s) for s in (0.0, 1.0, 2.5)]
    for P, T in zip(polys, project_many(polys, [0])):
        assert T.equals(project(P, [0], method="block_elimination"))
