"""The ray checks of ``verify_projection`` solved in a batch (issue 28): each decision equals the
single LP's (``_lifts_to_ray``) and the closed form, for directions that lift and that do not."""

import numpy as np

from polytopes import Polytope, batchlp
from polytopes.projection import _lifts, _lifts_to_ray, _ray_stack, verify_projection


def _cone() -> Polytope:
    """Over ``(t1, t2, w)``: ``t1 <= w``, ``t2 <= w``, ``0 <= w <= 1 + t1 + t2``. A direction
    ``(a, b)`` of ``(t1, t2)`` lifts to a recession direction iff some ``u`` has ``a <= u``,
    ``b <= u`` and ``0 <= u <= a + b`` (the closed form below)."""
    A = np.array([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, -1.0], [-1.0, -1.0, 1.0]])
    return Polytope(A, np.array([0.0, 0.0, 0.0, 1.0]))


def _lifts_closed_form(a: float, b: float) -> bool:
    # u must satisfy max(a, b, 0) <= u <= a + b
    return max(a, b, 0.0) <= a + b + 1e-12


def test_batched_ray_checks_equal_the_single_lps_and_the_closed_form():
    P = _cone()
    ks = [0, 1]
    R = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, -1.0], [-1.0, 0.0], [-1.0, -1.0], [0.5, 1.0]])
    R = R / np.abs(R).max(axis=1)[:, None]
    answers = batchlp.solve_stacked([_ray_stack(P, ks, R)], fallback=False, kernel="numpy")[0]
    batched = [_lifts(P, ks, R, answers, i) for i in range(len(R))]
    single = [_lifts_to_ray(P, ks, r) for r in R]
    assert batched == single == [_lifts_closed_form(a, b) for a, b in R]
    assert any(batched) and not all(batched)


def test_projection_of_the_cone_passes_the_check():
    P = _cone()
    T = P.project([0, 1], method="fourier_motzkin")
    assert verify_projection(P, T, [0, 1]) is None
    assert len(T.vertices().rays) + len(T.vertices().lines) > 0
