"""``polytopes.planar.planar_projections`` (the batched sweep onto the plane) against the lifted
projection of ``polytopes.projection.project`` (elimination and its verification, an independent
method) on random bounded, unbounded and lineality-carrying sets, and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from polytopes import Polytope
from polytopes import planar_projections


def reference(P: Polytope, M: np.ndarray, g: np.ndarray) -> Polytope:
    """``{M x + g : x in P}`` by ``project`` of the lifted set ``{(x, y) : x in P, y = M x + g}``."""
    n = P.dim
    L = Polytope(np.hstack([P.A, np.zeros((P.n_ineq, 2))]), P.b,
                 np.vstack([np.hstack([P.C, np.zeros((P.n_eq, 2))]), np.hstack([-M, np.eye(2)])]),
                 np.concatenate([P.d, g]))
    return L.project([n, n + 1], method="fourier_motzkin")


def random_sets(seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for rows in (12, 4, 6, 3):  # bounded (mostly), cones and wedges, half-planes, strips/lines
        A = rng.normal(size=(rows, 4))
        if rows == 6:
            A[:, 0] = np.abs(A[:, 0]) + 0.5  # unbounded towards -x0 only
        out.append((Polytope(A, rng.uniform(0.5, 2.0, rows)), rng.normal(size=(2, 4)), rng.normal(size=2)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_sweep_gives_the_lifted_projection(seed):
    sets = random_sets(seed)
    found = planar_projections([P for P, _, _ in sets], [M for _, M, _ in sets], [g for _, _, g in sets])
    assert all(f is not None for f in found)
    for (P, M, g), (A, b) in zip(sets, found):
        assert Polytope(A, b).equals(reference(P, M, g))
        assert np.allclose(np.linalg.norm(A, axis=1), 1.0)


def test_closed_forms_square_wedge_half_plane_plane():
    cube = Polytope.box([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0])
    M = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    wedge = Polytope([[-1.0, 0.0], [0.0, -1.0]], [0.0, 0.0])   # the first quadrant
    half = Polytope([[0.0, 0.0, -1.0]], [0.0])                 # z >= 0 in R^3
    (A1, b1), (A2, b2), (A3, b3), (A4, b4) = planar_projections(
        [cube, wedge, half, half], [M, np.array([[1.0, 1.0], [1.0, -1.0]]), np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), M])
    assert Polytope(A1, b1).equals(Polytope.box([-1.0, -1.0], [1.0, 1.0])) and len(b1) == 4
    # (u, v) = (x + y, x - y) over x, y >= 0: the cone u >= |v|
    assert Polytope(A2, b2).equals(Polytope([[-1.0, 1.0], [-1.0, -1.0]], [0.0, 0.0])) and len(b2) == 2
    assert Polytope(A3, b3).equals(Polytope([[-1.0, 0.0]], [0.0])) and len(b3) == 1  # (z, x): z >= 0
    assert len(b4) == 0  # (x, y) free: the plane


def test_a_lower_dimensional_image_is_refused():
    segment = Polytope.box([0.0, 0.0], [1.0, 1.0])
    assert planar_projections([segment], [np.array([[1.0, 1.0], [2.0, 2.0]])]) == [None]
