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
