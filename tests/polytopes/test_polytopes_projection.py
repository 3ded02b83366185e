"""Projection: the three methods agree with each other and with an independent oracle (support
functions of the projected generators of the input)."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polytopes import Polytope, PolytopeError, ProjectionBudgetError, fourier_motzkin

METHODS = ("fourier_motzkin", "block_elimination", "vertex")
# raise for a stress run: POLYTOPES_HYPOTHESIS_EXAMPLES=500 pytest tests/polytopes
N_EXAMPLES = int(os.environ.get("POLYTOPES_HYPOTHESIS_EXAMPLES", "20"))
SETTINGS = settings(max_examples=N_EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def box(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = lo.size
    return Polytope(np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -lo]))


@st.composite
def polytopes(draw):
    """Random nonempty polytopes: bounded, unbounded (a few rays) or lower-dimensional."""
    n = draw(st.integers(2, 4))
    kind = draw(st.sampled_from(["bounded", "unbounded", "lowdim"]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    m = int(rng.integers(n + 1, 9))
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    A = A[np.any(A != 0, axis=1)]
    b = rng.integers(1, 5, size=A.shape[0]).astype(float)  # origin strictly inside
    C = np.zeros((0, n))
    d = np.zeros(0)
    if kind == "unbounded":
        # keep only rows with a_0 <= 0 (x_0 -> +inf is a ray) and drop a few coordinates' bounds
        A, b = A[A[:, 0] <= 0], b[A[:, 0] <= 0]
    else:
        A = np.vstack([A, np.eye(n), -np.eye(n)])
        b = np.concatenate([b, 5 * np.ones(2 * n)])
    if kind == "lowdim":
        p = 1 if n < 4 else 2
        C = rng.integers(-2, 3, size=(p, n)).astype(float)
        C[:, 0] += (np.all(C == 0, axis=1)).astype(float)
        d = np.zeros(p)
    keep_n = int(rng.integers(1, n))
    keep = list(rng.permutation(n)[:keep_n])
    return Polytope(A, b, C, d), [int(k) for k in keep]


def oracle_support(P, keep, c):
    """max c . y over the projection, from the generators of P (cdd) projected by hand."""
    G = P.vertices()
    c_full = np.zeros(P.dim)
    c_full[keep] = c
    for r in G.rays:
        if r @ c_full > 1e-9 * np.linalg.norm(r):
            return np.inf
    for l in G.lines:
        if abs(l @ c_full) > 1e-9 * np.linalg.norm(l):
            return np.inf
    return float(np.max(G.vertices @ c_full))


@SETTINGS
@given(polytopes())
def test_methods_agree_with_each_other_and_oracle(data):
    P, keep = data
    results = {m: P.project(keep, method=m) for m in METHODS}
    base = results["vertex"]
    for m, Q in results.items():
        assert Q.dim == len(keep)
        assert Q.equals(base, tol=1e-6), m
    rng = np.random.default_rng(0)
    dirs = np.vstack([np.eye(len(keep)), -np.eye(len(keep)), rng.standard_normal((6, len(keep)))])
    for Q in results.values():
        for c in dirs:
            expected = oracle_support(P, keep, c)
            got = Q.support(c)
            if np.isinf(expected):
                assert np.isinf(got)
            else:
                assert got == pytest.approx(expected, rel=1e-6, abs=1e-6)


@SETTINGS
@given(polytopes())
def test_auto_and_reduced_row_counts(data):
    P, keep = data
    Q = P.project(keep)  # auto
    R = P.project(keep, method="fourier_motzkin")
    assert Q.equals(R, tol=1e-6)
    # results are reduced: same canonical row counts either way
    assert (Q.n_ineq, Q.n_eq) == (R.n_ineq, R.n_eq)
    S = R.reduce("lp")
    assert (S.n_ineq, S.n_eq) == (R.n_ineq, R.n_eq) and S.equals(R, tol=1e-6)


@SETTINGS
@given(polytopes())
def test_reduce_cdd_vs_lp(data):
    P, _ = data
    # add duplicated and scaled copies of rows plus a redundant row
    if P.n_ineq >= 2:
        A = np.vstack([P.A, 2 * P.A[:2], P.A[0] + P.A[1]])
        b = np.concatenate([P.b, 2 * P.b[:2], [P.b[0] + P.b[1] + 1]])
    else:
        A, b = np.vstack([P.A, 3 * P.A]), np.concatenate([P.b, 3 * P.b + 1])
    P2 = Polytope(A, b, P.C, P.d)
    Rc, Rl = P2.reduce("cdd"), P2.reduce("lp")
    assert (Rc.n_ineq, Rc.n_eq) == (Rl.n_ineq, Rl.n_eq)
    assert Rc.equals(Rl, tol=1e-6) and Rc.equals(P, tol=1e-6)
    assert Rl.affine_dimension() == P.affine_dimension()


def test_project_cube_hand():
    cube = box([0, 0, 0], [1, 2, 3])
    for m in METHODS + ("auto",):
        Q = cube.project([2, 0], method=m)
        assert Q.equals(box([0, 0], [3, 1])), m


def test_project_simplex_hand():
    # 3-D simplex x, y, z >= 0, x + y + z <= 1 onto (x, y): the triangle x, y >= 0, x + y <= 1
    S = Polytope([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 1, 1]], [0, 0, 0, 1])
    T = Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    for m in METHODS:
        Q = S.project([0, 1], method=m)
        assert Q.n_ineq == 3 and Q.n_eq == 0 and Q.equals(T), m


def test_project_segment_in_3d():
    # segment (0,0,0)-(2,2,1) via equalities; projection onto (y, z) is the segment (0,0)-(2,1)
    S = Polytope([[1.0, 0, 0], [-1.0, 0, 0]], [2, 0], [[1, -1, 0], [1, 0, -2]], [0, 0])
    target = Polytope.from_generators([[0, 0], [2, 1]])
    for m in METHODS:
        Q = S.project([1, 2], method=m)
        assert Q.affine_dimension() == 1 and Q.equals(target), m


def test_project_unbounded_cone_and_halfplane():
    # cone x >= 0, y >= x, z free with z <= y: onto (x, z) is {x >= 0} (z unbounded both ways)
    P = Polytope([[-1, 0, 0], [1, -1, 0], [0, -1, 1]], [0, 0, 0])
    target = Polytope([[-1.0, 0]], [0.0])
    H = Polytope([[1.0, 1.0]], [1.0])  # half-plane onto x: all of R
    for m in METHODS:
        assert P.project([0, 2], method=m).equals(target), m
        Q = H.project([0], method=m)
        assert Q.n_ineq == 0 and Q.n_eq == 0, m


def test_project_empty():
    E = Polytope([[1.0, 0, 0], [-1.0, 0, 0]], [0, -1])
    for m in METHODS + ("auto",):
        Q = E.project([1, 2], method=m)
        assert Q.dim == 2 and Q.is_empty()


def test_budget_error():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((40, 6))
    P = Polytope(A, np.ones(40))
    with pytest.raises(ProjectionBudgetError, match="method="):
        P.project([0, 1], method="fourier_motzkin", max_rows=5)
    with pytest.raises(ProjectionBudgetError, match="method="):
        P.project([0, 1], method="vertex", max_rows=5)
    assert issubclass(ProjectionBudgetError, PolytopeError)


def test_bad_keep_and_method():
    P = box([0, 0], [1, 1])
    with pytest.raises(PolytopeError, match="keep"):
        P.project([0, 0])
    with pytest.raises(PolytopeError, match="keep"):
        P.project([5])
    with pytest.raises(PolytopeError, match="method"):
        P.project([0], method="magic")


def test_fourier_motzkin_function_hand():
    # x + y <= 1, -x <= 0, -y <= 0; eliminate y: x <= 1, x >= 0 (y >= 0 and y <= 1 - x)
    A, b, C, d = fourier_motzkin(np.array([[1.0, 1], [-1, 0], [0, -1]]), np.array([1.0, 0, 0]),
                                 np.zeros((0, 2)), np.zeros(0), [1])
    Q = Polytope(A, b, C, d)
    assert Q.equals(box([0], [1]))
    # with an equality y = 2 x: x + 2x <= 1 and x >= 0, 2x >= 0 -> [0, 1/3]
    A, b, C, d = fourier_motzkin(np.array([[1.0, 1], [-1, 0], [0, -1]]), np.array([1.0, 0, 0]),
                                 np.array([[2.0, -1]]), np.zeros(1), [1])
    assert Polytope(A, b, C, d).equals(box([0], [1 / 3]))


def test_chernikov_prunes_rows():
    # a cross-polytope in 4-D (16 facets), projected onto 2 coordinates: a diamond with 4 facets
    signs = np.array(np.meshgrid(*[[-1, 1]] * 4)).reshape(4, -1).T.astype(float)
    P = Polytope(signs, np.ones(16))
    A, b, _, _ = fourier_motzkin(P.A, P.b, P.C, P.d, [2, 3], max_rows=200)
    diamond = Polytope(signs[:, :2][::4], np.ones(4))
    assert Polytope(A, b).equals(P.project([0, 1], method="vertex"))
    assert Polytope(A, b).equals(Polytope(np.array([[1, 1], [1, -1], [-1, 1], [-1, -1.0]]), np.ones(4)))
    assert A.shape[0] < 64  # without any pruning: 8 * 8 = 64 rows after the first step alone


def test_fm_larger_system_uses_lp_pruning():
    # 5-D polytope with 30 random facets plus a box; eliminating 3 variables exceeds
    # FM_LP_PRUNE_ROWS on the way, so the LP pruning path runs
    rng = np.random.default_rng(7)
    A = np.vstack([rng.standard_normal((30, 5)), np.eye(5), -np.eye(5)])
    b = np.concatenate([np.ones(30) + rng.random(30), 3 * np.ones(10)])
    P = Polytope(A, b)
    Q = P.project([3, 0], method="fourier_motzkin")
    V = P.project([3, 0], method="vertex")
    B = P.project([3, 0], method="block_elimination")
    assert Q.equals(V, tol=1e-6) and B.equals(V, tol=1e-6)
    for c in rng.standard_normal((8, 2)):
        assert Q.support(c) == pytest.approx(oracle_support(P, [3, 0], c), rel=1e-6, abs=1e-6)


def test_reduce_many_rows_cdd_vs_lp():
    # 200 random tangent planes of the unit sphere in 3-D plus 100 shifted (redundant) copies
    rng = np.random.default_rng(3)
    U = rng.standard_normal((200, 3))
    U /= np.linalg.norm(U, axis=1)[:, None]
    A = np.vstack([U, 2 * U[:100]])
    b = np.concatenate([np.ones(200), 2 * np.ones(100) + 0.5])
    P = Polytope(A, b)
    Rc, Rl = P.reduce("cdd"), P.reduce("lp")
    assert Rc.n_ineq == Rl.n_ineq == 200  # every tangent plane is a facet
    assert Rc.equals(Rl)


def test_fm_and_reduce_fall_back_to_highs_when_cdd_fails(monkeypatch):
    from polytopes import _cdd_io

    def broken(*args, **kwargs):
        raise RuntimeError("simulated cddlib failure")
    rng = np.random.default_rng(11)
    A = np.vstack([rng.standard_normal((25, 4)), np.eye(4), -np.eye(4)])
    P = Polytope(A, np.concatenate([np.ones(25), 2 * np.ones(8)]))
    expected = P.project([1, 2], method="vertex")
    monkeypatch.setattr(_cdd_io, "irredundant_rows", broken)
    monkeypatch.setattr(_cdd_io, "canonicalize", broken)
    Q = P.project([1, 2], method="fourier_motzkin")
    assert Q.equals(expected, tol=1e-6)
    assert (Q.n_ineq, Q.n_eq) == (expected.n_ineq, expected.n_eq)


def test_fourier_motzkin_zeroes_cancellation_residues_before_normalizing():
    """Regression: eliminating two variables combined rows whose remaining coefficients cancelled
    to ~1e-16; normalizing that residue produced a facet with b ~ 5e15, the scale-relative
    tolerances then collapsed the projection to a point. Reference: cdd block elimination and
    the projected vertices/rays (double description), which agree with each other."""
    import numpy as np

    from polytopes import Polytope

    A = np.array([
        [0.26658081762511937, -0.0664815076636777, 0.9143242785911466, -0.29753317527944095],
        [0.28258847020254346, -0.4239796170555173, -0.5502032328785704, 0.6615598562186287],
        [0.5308825537488652, 0.03263766475603468, -0.4627797731361024, -0.7091779597114207],
        [-0.699940111827374, -0.2920911210282994, -0.04397827644529292, -0.6502557405147732],
        [-0.5785361913913964, 0.4573250461766074, -0.6387474368271575, -0.21943424832199254]])
    b = np.array([-1.0253344252663465, -6.143448930065174, 0.31871686542552957, -3.9827634080904657,
                  7.48771625399759])
    P = Polytope(A, b)
    fm = P.project([0, 1], method="fourier_motzkin")
    assert fm.affine_dimension() == 2
    assert fm.equals(P.project([0, 1], method="block_elimination"))
    assert fm.equals(P.project([0, 1], method="vertex"))


@pytest.mark.parametrize("seed", range(12))
def test_exact_projection_ignores_rounding_tilts_of_parallel_rows(seed):
    """Rows whose eliminated parts are parallel in exact arithmetic, written in a random float
    basis of the eliminated coordinates (so rounding tilts them by ~1e-16): the exact projection
    must equal the closed form, not the tilted rows' exact projection, which reaches a sliver
    far along the direction only one row sees (issue 22, RHex's FFSF; about half of these seeds
    failed before). In coordinates ``(τ, s, t)`` the set is ``t <= 0``, ``c_i s <= τ + e_i``
    (``e_1 = 0``, ``e_i > 0``) and ``s >= 0``: the projection is ``τ >= 0``."""
    pytest.importorskip("ppl")
    rng = np.random.default_rng(seed)
    c = rng.uniform(0.3, 5.0, size=5)
    e = np.concatenate([[0.0], rng.uniform(0.1, 2.0, size=4)])
    rows_st = np.vstack([[0.0, 1.0], np.column_stack([c, np.zeros(5)]), [[-1.0, 0.0]]])
    tau = np.concatenate([[0.0], -np.ones(5), [0.0]])
    b = np.concatenate([[0.0], e, [0.0]])
    T = rng.normal(size=(2, 2))  # w = T^-1 (s, t): a row over (s, t) is row @ T over w
    rows_w = (rows_st * 3.0 ** 0.5) @ T / 3.0 ** 0.5  # a path with rounding, as an SVD has
    Q = Polytope(np.column_stack([tau, rows_w]), b).project([0], method="exact")
    assert Q.contains(np.array([0.0])) and not Q.contains(np.array([-1e-6]))
    assert Q.contains(np.array([1e6]))


# D_c of RHex's LLSS and FFSF as the default method reduces them under OPENBLAS_CORETYPE=Haswell
# (issue 39): over (τ1, τ2, τ3, w1, w2), rows of unit norm, rounding in the last bits.
LLSS_HASWELL = (
    [[0.21949297354053693, 4.873723059362888e-17, -4.873723059362888e-17, -0.2888880152622541, 0.9318618723846195],
     [0.6710246252259551, 1.4899739780326442e-16, -1.4899739780326442e-16, 0.7081848032908217, 0.21954552313428438],
     [-0.9999999999999999, -2.220446049250313e-16, 2.220446049250313e-16, 0.0, 0.0],
     [0.9999999999999999, 2.220446049250313e-16, -2.220446049250313e-16, 0.0, 0.0]],
    [-0.4125695119884071, -1.261290043576483, 0.0, 0.10921158049895875],
    [[2.2204460492503136e-16, -1.0, -2.465190328815663e-32, 0.0, 0.0],
     [-2.2204460492503136e-16, -2.465190328815663e-32, -1.0, 0.0, 0.0]], [0.0, 0.0])
FFSF_HASWELL = (
    [[0.0, 0.0, 0.0, 0.01438587535683423, -0.9998965179408406],
     [0.5832364553705683, 0.0, 0.6341013424946137, 0.507639027441724, 0.00730358756532165],
     [0.0013756053432905802, 0.0, -0.5866776458039442, -0.8097355901999336, -0.011649960834545049],
     [-0.8504590074202705, 0.0, 0.3645210857356296, -0.37922827660345804, -0.005456095326983742],
     [0.04392614443248786, 0.0, -0.6922825737593591, 0.7202138302632273, 0.010361978671324702],
     [0.9363336149477598, 0.0, 0.24330328884036231, -0.25311975227079514, -0.003641726059831957]],
    [0.0, 0.38217379599046913, -0.1953657873519252, 0.14274519469096258, -0.27109545823121467, 0.30525104215183296],
    [[0.0, -1.0, 0.0, 0.0, 0.0]], [0.0])


def _highs_support(P, u):
    """``max u·x`` over ``P`` by HiGHS directly (``inf`` when unbounded): the oracle."""
    from scipy.optimize import linprog

    res = linprog(-u, A_ub=P.A, b_ub=P.b, A_eq=P.C if P.n_eq else None, b_eq=P.d if P.n_eq else None,
                  bounds=(None, None), method="highs", options={"presolve": False})
    return np.inf if res.status == 3 else -res.fun


def test_exact_projection_keeps_the_bounds_of_a_set_with_tilted_equalities():
    """RHex's ``LLSS`` (issue 39): the equalities ``τ2 = τ3 = 0`` carry couplings of 2e-16 to
    ``τ1``. Their exact projection had inequalities mixed with those equalities, and the
    conversion back to floats dropped them: ``T_c`` came out unbounded. By hand: the two rows in
    ``w`` leave it free, so the projection is the segment ``0 <= τ1 <= 0.10921158…`` (``τ2``,
    ``τ3`` within 1e-16 of 0)."""
    pytest.importorskip("ppl")
    T = Polytope(*LLSS_HASWELL).project([0, 1, 2], method="exact")
    lo, hi = T.bounding_box()
    assert T.affine_dimension() == 1
    assert lo[0] == pytest.approx(0.0, abs=1e-12) and hi[0] == pytest.approx(0.10921158049895875, rel=1e-12)
    assert np.abs(np.concatenate([lo[1:], hi[1:]])).max() <= 1e-12


def test_exact_projection_sees_a_direction_rounding_blocks():
    """RHex's ``FFSF`` under Haswell: five rows whose eliminated parts are parallel to ``d`` (up to
    1e-17) and one along ``d⊥``. In the model the sixth row is free along ``-d⊥``, so the five
    combine into the facets; rounded, their tilts block that direction in exact arithmetic,
    every row then looks like an equality of the eliminated cone and half of the combinations
    are lost (``T_c`` unbounded). The exact projection against HiGHS's supports of ``D``."""
    pytest.importorskip("ppl")
    D = Polytope(*FFSF_HASWELL)
    T = D.project([0, 1, 2], method="exact")
    rng = np.random.default_rng(3)
    for u in np.vstack([np.eye(3), -np.eye(3), rng.normal(size=(8, 3))]):
        expected = _highs_support(D, np.concatenate([u, [0.0, 0.0]]))
        got = _highs_support(T, u)
        assert np.isfinite(expected) and got == pytest.approx(expected, rel=1e-9, abs=1e-12), u


def test_exact_cone_decision_sees_the_models_free_direction():
    """``ppl_io.cone_implicit_rows`` on rows ``±(1, ε_i)`` (``ε_i`` of 1e-17, as rounding leaves
    them) and ``(0, 1)``: the cone ``{ρ : G ρ <= 0}`` of the model (``ε = 0``) is the ray
    ``ρ = (0, -1)``, on which the first rows are zero and the last is not; with these tilts the
    first rows cut the ray off in exact arithmetic (``ρ = (α, -1)`` needs ``α <= -3e-17`` and
    ``α >= 4e-17``). The decision, relaxed by ``EXACT_CONE_RELAX``, sees the model's cone."""
    pytest.importorskip("ppl")
    from polytopes import ppl_io, tolerances

    eps = (-3e-17, 2e-17, -1e-17, 4e-17)
    G = np.array([[s, s * e] for s, e in zip((1.0, -1.0, 1.0, -1.0), eps)] + [[0.0, 1.0]])
    assert ppl_io.cone_dimension(G) == 0  # exactly, rounding closed the model's ray
    got = ppl_io.cone_implicit_rows(G, tolerances.EXACT_CONE_RELAX, tolerances.COEF_ZERO_TOL)
    assert got.tolist() == [True, True, True, True, False]


@pytest.mark.parametrize("seed", range(40))
def test_projected_dimension_is_the_projections(seed):
    """``Polytope.projected_dimension`` (the hull's direction basis restricted to the kept
    coordinates) against the dimension of the verified projection itself, on random polytopes
    with equalities and thin directions (lower-dimensional images included)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    A = rng.standard_normal((n + 4, n))
    b = rng.uniform(0.5, 2.0, n + 4)
    n_eq = int(rng.integers(0, n))
    C = rng.standard_normal((n_eq, n))
    if n_eq and seed % 3 == 0:  # an equality that does not involve the first coordinate
        C[0, 0] = 0.0
    d = np.zeros(n_eq)
    if seed % 4 == 1:  # a thin slab: an implicit equality through a pair of inequalities
        a = rng.standard_normal(n)
        A, b = np.vstack([A, a, -a]), np.concatenate([b, [0.0, 0.0]])
    P = Polytope(A, b, C, d)
    k = int(rng.integers(1, n + 1))
    keep = sorted(rng.choice(n, size=k, replace=False).tolist())
    assert P.projected_dimension(keep) == P.project(keep).affine_dimension()
    assert Polytope(np.array([[1.0], [-1.0]]), np.array([-1.0, -1.0])).projected_dimension([0]) == -1
