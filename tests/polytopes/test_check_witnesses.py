"""Issue 28's cheaper verified projections and boxes, each against an independent decision:

* the distance LPs of the projection check (does a vertex of the result lie in the projection,
  does a ray lift) carry perturbed costs in the batch and are read as primal witnesses
  (``polytopes.tolerances.CHECK_COST_PERTURBATION``): on the degenerate domains of the 6-contact
  chain the unperturbed batch leaves some undecided (it cycles), the perturbed one none, and every
  decision equals the single unperturbed LP's (``_lifts_to_ray``, ``_in_projection``);
* a check direction along which both sets are unbounded is decided by verified rays
  (``_unbounded_both``) as the single LPs decide it (both supports infinite), and a result with a
  ray the set does not have still fails;
* box sides whose support LP leans on the batch's artificial box are proven unbounded by the
  direction the final basis moves along as that box grows (``Polytope._rays_from_bases``): boxes
  equal those of the single-LP path on random unbounded sets, with no single LP for a side so
  proven, and no basis of a bounded set yields a ray (the ray check refuses every one).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

import contactmodes.analysis.session as session_module
from polytopes import Polytope, batchlp, projection
from polytopes import tolerances as tol
from polytopes.projection import _lifts, _lifts_to_ray, _in_projection, verify_projection

from _support.chains import zigzag_chain
from _support.toml_writer import to_toml


@pytest.fixture(scope="module")
def chain_domains():
    """``(P, Q, keep)`` for the 6-contact chain's modes with at least two ambiguity variables:
    ``P`` the domain ``D_c`` (scaled), ``Q`` its Fourier–Motzkin projection onto the torques."""
    import contactmodes as cm

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "chain.toml")
        with open(path, "w") as fh:
            fh.write(to_toml(zigzag_chain(6)))
        s = session_module.AnalysisSession(cm.load_system(path))
        sols = [s.mode(m) for m in s.feasible_modes()]
    keep = list(range(s.scaled.n_tau))
    out = []
    for sol in sols:
        if sol.response_scaled(True).n_w >= 2:
            P = sol._projection_input(True)
            out.append((P, projection._unreduced(P, keep, "fourier_motzkin", 10 ** 6).reduce(), keep))
    assert len(out) >= 15
    return out


def _distance_answers(P, Q, keep):
    st = projection._check_setup(P, Q, keep)
    names = [name for name in ("R", "Y") if name in st.stacks]
    solved = batchlp.solve_stacked([st.stacks[name] for name in names], fallback=False, kernel="numpy")
    return st, dict(zip(names, solved))


def test_perturbed_distance_lps_are_all_certified_where_unperturbed_ones_cycle(chain_domains, monkeypatch):
    undecided = {}
    for eps in (0.0, tol.CHECK_COST_PERTURBATION):
        monkeypatch.setattr(tol, "CHECK_COST_PERTURBATION", eps)
        n = 0
        for P, Q, keep in chain_domains:
            _, answers = _distance_answers(P, Q, keep)
            n += sum(int(np.sum(a[0] == batchlp.UNDECIDED)) for a in answers.values())
        undecided[eps] = n
    assert undecided[0.0] > 0  # the reason for the perturbation: degenerate optima make it cycle
    assert undecided[tol.CHECK_COST_PERTURBATION] == 0


def test_witness_decisions_equal_the_single_unperturbed_lps(chain_domains):
    n_rays = n_vertices = 0
    for P, Q, keep in chain_domains:
        st, answers = _distance_answers(P, Q, keep)
        if "R" in answers:
            R = projection._ray_directions(st.G)
            for i in range(len(R)):
                assert _lifts(P, keep, R, answers["R"], i) == _lifts_to_ray(P, keep, R[i])
                n_rays += 1
        status, X, _ = answers["Y"]
        for v, s_, x in zip(st.V, status, X):
            assert s_ == 0  # certified
            single = _in_projection(P, keep, v, P.data_scale)
            assert single  # a vertex of the true projection
            assert projection._near(float(x[-1]), v, P.data_scale) == single
            n_vertices += 1
    assert n_rays > 100 and n_vertices > 50


def test_chain_projections_verify_and_a_shifted_facet_fails(chain_domains):
    for P, Q, keep in chain_domains:
        assert verify_projection(P, Q, keep) is None
        if Q.n_ineq:
            wrong = Polytope(Q.A, Q.b + 0.05 * (1.0 + np.abs(Q.b)), Q.C, Q.d)
            assert verify_projection(P, wrong, keep) is not None


def _wedge() -> Polytope:
    """Over ``(y1, y2, w)``: ``|y2| <= w``, ``0 <= w <= 1 + y1``: the projection onto ``y`` is the
    unbounded wedge ``|y2| <= 1 + y1``, ``y1 >= -1`` with the rays ``(1, 1)``, ``(1, -1)``."""
    A = np.array([[0.0, 1.0, -1.0], [0.0, -1.0, -1.0], [0.0, 0.0, -1.0], [-1.0, 0.0, 1.0]])
    return Polytope(A, np.array([0.0, 0.0, 0.0, 1.0]))


def test_both_unbounded_directions_need_no_single_support_lp(monkeypatch):
    P, keep = _wedge(), [0, 1]
    Q = Polytope(np.array([[-1.0, 1.0], [-1.0, -1.0]]) / np.sqrt(2.0), np.array([1.0, 1.0]) / np.sqrt(2.0))
    monkeypatch.setattr(projection, "CHECK_BATCH_MIN_LPS", 0)
    monkeypatch.setattr(tol, "PROJECTION_CHECK_DIRECTIONS_WITH_GENERATORS", 16)
    calls = []
    maximize = Polytope.maximize
    monkeypatch.setattr(Polytope, "maximize", lambda self, d: calls.append(1) or maximize(self, d))
    assert verify_projection(P, Q, keep) is None
    st = projection._check_setup(P, Q, keep)
    # the directions along which the wedge is unbounded (a positive component along a ray)
    R = np.array([[1.0, 1.0], [1.0, -1.0]])
    n_unbounded = int(np.sum(np.max(st.dirs @ R.T, axis=1) > 1e-9))
    assert n_unbounded >= 8  # 16 random directions: most see a ray
    assert len(calls) <= len(st.dirs) - n_unbounded  # no single support LP of P or Q for those


def test_a_result_with_a_ray_the_set_lacks_still_fails():
    """The wedge cut to ``y1 <= 5`` as the set (bounded): the unbounded wedge is not its
    projection, and the check says so (a ray that does not lift, or supports that differ)."""
    P0 = _wedge()
    P = Polytope(np.vstack([P0.A, [1.0, 0.0, 0.0]]), np.append(P0.b, 5.0))
    Q = Polytope(np.array([[-1.0, 1.0], [-1.0, -1.0]]) / np.sqrt(2.0), np.array([1.0, 1.0]) / np.sqrt(2.0))
    assert verify_projection(P, Q, [0, 1]) is not None
    assert verify_projection(P, P.project([0, 1]), [0, 1]) is None


def _random_unbounded(seed: int, n: int = 5, m: int = 9) -> Polytope:
    """``{x : A x <= b}`` with the rows ``A`` inside the half-space ``a_0 <= -0.2 |a|`` (so
    ``e_0`` is a recession direction) and the origin inside: unbounded along ``x_0`` at least."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    A[:, 0] = -np.abs(A[:, 0]) - 0.2 * np.linalg.norm(A, axis=1)
    return Polytope(A, rng.uniform(0.5, 2.0, m))


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_boxes_with_rays_from_bases_equal_the_single_lp_boxes(kernel, monkeypatch):
    if kernel == "compiled" and not batchlp.available():
        pytest.skip("numba not installed")
    monkeypatch.setattr(tol, "BOX_RAYS_MAX_DIM", 0)  # no double description: the LPs decide every side
    n_inf = 0
    for seed in range(30):
        P = _random_unbounded(seed)
        lo_ref, hi_ref = Polytope(P.A, P.b).bounding_box()
        Pk = Polytope(P.A, P.b)
        calls = []
        inner = Polytope._inner_lps
        monkeypatch.setattr(Polytope, "_inner_lps", lambda self, D: calls.append(len(D)) or inner(self, D))
        lo, hi = Pk.bounding_box(kernel=kernel)
        monkeypatch.setattr(Polytope, "_inner_lps", inner)
        for got, want in ((lo, lo_ref), (hi, hi_ref)):
            assert np.array_equal(np.isinf(got), np.isinf(want)), seed
            fin = np.isfinite(want)
            assert np.allclose(got[fin], want[fin], rtol=1e-7, atol=1e-7), seed
        n_inf += int(np.sum(np.isinf(hi)) + np.sum(np.isinf(lo)))
        assert sum(calls) <= int(np.sum(np.isfinite(lo_ref)) + np.sum(np.isfinite(hi_ref)))  # none for a proven side
    assert n_inf >= 30


def test_no_basis_of_a_bounded_set_yields_a_ray():
    """A bounded set has no direction of unboundedness: whatever basis is offered (random rows of
    ``V`` and of the artificial bounds), ``_rays_from_bases`` proves no side."""
    rng = np.random.default_rng(7)
    n = 4
    A = rng.standard_normal((12, n))
    P = Polytope(np.vstack([A, np.eye(n), -np.eye(n)]), np.concatenate([rng.uniform(1, 2, 12), np.full(2 * n, 3.0)]))
    h = P.inner_system()
    m, k = h.V.shape
    cw = -np.vstack([np.eye(n), -np.eye(n)]) @ h.N
    for _ in range(50):
        basis = np.array([rng.choice(m + 2 * k, size=k, replace=False) for _ in range(len(cw))])
        proven, _ = P._rays_from_bases(cw, basis)
        assert not proven.any()
