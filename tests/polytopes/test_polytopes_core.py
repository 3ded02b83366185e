"""Hand-computed oracles for ``polytopes.Polytope`` (values derived on paper, not printed)."""

import json

import numpy as np
import pytest

from polytopes import ChebyshevBall, Generators, Polytope, PolytopeError, tolerances

SQ2 = np.sqrt(2.0)


def box(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = lo.size
    return Polytope(np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -lo]))


def triangle(p, q, r):
    """H-rep of the triangle with vertices p, q, r (computed from edge normals)."""
    pts = [np.asarray(v, float) for v in (p, q, r)]
    A, b = [], []
    for i in range(3):
        u, v, w = pts[i], pts[(i + 1) % 3], pts[(i + 2) % 3]
        e = v - u
        nrm = np.array([e[1], -e[0]])
        if nrm @ (w - u) > 0:
            nrm = -nrm
        A.append(nrm)
        b.append(nrm @ u)
    return Polytope(np.array(A), np.array(b))


def rows_as_set(A, b):
    return sorted(tuple(np.round(np.append(a, bi), 8)) for a, bi in zip(A, b))


# ----- construction and validation --------------------------------------------------------------

def test_attributes_and_shapes():
    P = box([0, 0], [1, 2])
    assert P.dim == 2 and P.n_ineq == 4 and P.n_eq == 0
    assert P.C.shape == (0, 2) and P.d.shape == (0,)
    assert P.A.dtype == np.float64


def test_immutable_copies():
    A = np.eye(2)
    P = Polytope(A, [1.0, 1.0])
    A[0, 0] = 5.0
    assert P.A[0, 0] == 1.0
    with pytest.raises(ValueError):
        P.A[0, 0] = 3.0
    with pytest.raises(AttributeError):
        P.A = np.eye(2)


@pytest.mark.parametrize("args, field", [
    ((np.eye(3), [1, 2]), "b: expected shape (3,), got (2,)"),
    (([[np.nan, 0]], [1]), "A: contains NaN"),
    (([[1, 0]], [np.inf]), "b: contains infinite"),
    (([[1, 0]], [1], [[1, 0, 0]], [0]), "C: expected 2 columns"),
    (([[1, 0]], [1], [[1, 0]], [0, 1]), "d: expected shape (1,)"),
    (([[1, 0]], [1], [[np.nan, 0]], [0]), "C: contains NaN"),
    (([1, 0], [1]), "A: expected a 2-D array"),
])
def test_bad_input_names_field(args, field):
    with pytest.raises(PolytopeError) as exc:
        Polytope(*args)
    assert field in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_json_roundtrip_plain_types():
    P = Polytope([[1.0, 2.0]], [3.0], [[0.0, 1.0]], [0.5])
    data = P.to_json()
    assert data == {"A": [[1.0, 2.0]], "b": [3.0], "C": [[0.0, 1.0]], "d": [0.5], "dim": 2}
    text = json.dumps(data)
    Q = Polytope.from_json(json.loads(text))
    assert np.array_equal(Q.A, P.A) and np.array_equal(Q.d, P.d)
    U = Polytope.from_json({"A": [], "b": [], "C": [], "d": [], "dim": 3})
    assert U.dim == 3 and U.n_ineq == 0


def test_from_json_bad():
    with pytest.raises(PolytopeError, match="A"):
        Polytope.from_json({"b": [1]})
    with pytest.raises(PolytopeError, match="dim"):
        Polytope.from_json({"A": [[1, 0]], "b": [1], "dim": 3})


def test_cdd_roundtrip():
    P = Polytope([[1.0, 2.0], [-1, 0]], [3.0, 0.0], [[0.0, 1.0]], [0.5])
    mat = P.to_cdd()
    assert list(mat.array[0]) == [3.0, -1.0, -2.0]  # [b, -A]
    assert 2 in mat.lin_set
    Q = Polytope.from_cdd(mat)
    assert np.array_equal(Q.A, P.A) and np.array_equal(Q.C, P.C) and np.array_equal(Q.d, P.d)


# ----- emptiness, containment -------------------------------------------------------------------

def test_empty_sets():
    assert Polytope([[1.0], [-1.0]], [0.0, -1.0]).is_empty()              # x <= 0, x >= 1
    assert Polytope(np.zeros((1, 2)), [-1.0]).is_empty()                  # 0 <= -1
    assert Polytope(np.zeros((0, 2)), np.zeros(0), [[1, 1], [1, 1]], [0, 1]).is_empty()
    assert not Polytope.universe(3).is_empty()
    assert not Polytope([[1.0], [-1.0]], [0.0, 0.0]).is_empty()           # the point 0


def test_empty_set_operations():
    E = Polytope([[1.0, 0], [-1.0, 0]], [0.0, -1.0])
    assert E.affine_dimension() == -1
    ball = E.chebyshev_center()  # documented value for the empty set: no center, radius -inf
    assert np.all(np.isnan(ball.center)) and ball.radius == -np.inf
    lo, hi = E.bounding_box()  # inf/sup over no points
    assert np.all(lo == np.inf) and np.all(hi == -np.inf)
    assert E.support([1.0, 0.0]) == -np.inf
    assert list(E.implicit_equalities()) == [0, 1]  # vacuously every row
    G = E.vertices()
    assert G.vertices.shape == (0, 2) and G.rays.shape == (0, 2)
    R = E.reduce()
    assert np.array_equal(R.A, np.zeros((1, 2))) and np.array_equal(R.b, [-1.0])
    assert E.reduce("lp").is_empty()
    assert E.equals(Polytope.empty(2))
    assert E.issubset(box([0, 0], [1, 1]))
    assert not box([0, 0], [1, 1]).issubset(E)


def test_contains():
    T = triangle([0, 0], [2, 0], [0, 2])
    assert T.contains([0.5, 0.5]) and T.contains([1, 1]) and T.contains([0, 0])
    assert not T.contains([1.1, 1.0])
    assert not T.contains([-1e-3, 0.5])
    assert list(T.contains(np.array([[0.1, 0.1], [3, 3]]))) == [True, False]
    L = Polytope(np.zeros((0, 2)), np.zeros(0), [[1, -1]], [0])
    assert L.contains([3, 3]) and not L.contains([3, 2])
    with pytest.raises(PolytopeError, match="x"):
        T.contains([1, 2, 3])


# ----- Chebyshev, bounding box --------------------------------------------------------------------

def test_chebyshev_unit_box():
    ball = box([-1, -1, -1], [1, 1, 1]).chebyshev_center()
    assert isinstance(ball, ChebyshevBall)
    assert ball.radius == pytest.approx(1.0)
    np.testing.assert_allclose(ball.center, 0.0, atol=1e-9)


def test_chebyshev_triangle_inradius():
    # 3-4-5 right triangle: inradius (a + b - c) / 2 = 1, incenter (1, 1)
    T = triangle([0, 0], [4, 0], [0, 3])
    ball = T.chebyshev_center()
    assert ball.radius == pytest.approx(1.0)
    np.testing.assert_allclose(ball.center, [1.0, 1.0], atol=1e-8)
    # general triangle: r = area / semiperimeter (Heron)
    p, q, r = np.array([0.0, 0]), np.array([5.0, 1]), np.array([1.0, 4])
    a, b_, c = np.linalg.norm(q - r), np.linalg.norm(p - r), np.linalg.norm(p - q)
    s = (a + b_ + c) / 2
    area = np.sqrt(s * (s - a) * (s - b_) * (s - c))
    assert triangle(p, q, r).chebyshev_center().radius == pytest.approx(area / s)


def test_chebyshev_lower_dimensional_segment():
    # segment from (0,0,0) to (2,2,0) in 3-D: ball within the line has radius sqrt(2), center (1,1,0)
    S = Polytope(np.vstack([np.eye(3), -np.eye(3)]), [2, 2, 2, 0, 0, 0], [[1, -1, 0], [0, 0, 1]], [0, 0])
    ball = S.chebyshev_center()
    assert ball.radius == pytest.approx(SQ2)
    np.testing.assert_allclose(ball.center, [1, 1, 0], atol=1e-8)
    assert S.affine_dimension() == 1
    # point
    Pt = Polytope([[1.0, 0], [-1, 0], [0, 1], [0, -1]], [1, -1, 2, -2])
    assert Pt.chebyshev_center().radius == 0.0
    np.testing.assert_allclose(Pt.chebyshev_center().center, [1, 2], atol=1e-9)


def test_chebyshev_unbounded():
    H = Polytope([[0.0, 1.0]], [1.0])  # half-plane y <= 1
    ball = H.chebyshev_center()
    assert ball.radius == np.inf
    assert H.contains(ball.center) and ball.center[1] < 1.0
    strip = Polytope([[0.0, 1.0], [0.0, -1.0]], [1.0, 1.0])  # |y| <= 1: finite radius
    assert strip.chebyshev_center().radius == pytest.approx(1.0)


def test_bounding_box_rotated_square():
    # square with vertices (±1, 0), (0, ±1): |x| + |y| <= 1, shifted by (2, -1)
    A = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], float)
    c = np.array([2.0, -1.0])
    P = Polytope(A, np.ones(4) + A @ c)
    lo, hi = P.bounding_box()
    np.testing.assert_allclose(lo, [1, -2], atol=1e-9)
    np.testing.assert_allclose(hi, [3, 0], atol=1e-9)
    # a square of side 2 rotated by 30 degrees: half-width = cos30 + sin30
    th = np.pi / 6
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    Q = Polytope(np.vstack([R.T, -R.T]), np.ones(4))
    lo, hi = Q.bounding_box()
    np.testing.assert_allclose(hi, [np.cos(th) + np.sin(th)] * 2, atol=1e-9)
    np.testing.assert_allclose(lo, -hi, atol=1e-9)


def test_bounding_box_unbounded():
    cone = Polytope([[-1.0, 0], [1, -1]], [0, 0])  # x >= 0, y >= x
    lo, hi = cone.bounding_box()
    assert list(lo) == [0.0, 0.0] and list(hi) == [np.inf, np.inf]


def _linprog_box(P, coords):
    """Box of P's projection onto ``coords`` by SciPy's HiGHS, one LP per side (independent)."""
    from scipy.optimize import linprog

    lo, hi = [], []
    for k in coords:
        out = []
        for sign in (1.0, -1.0):
            c = np.zeros(P.dim)
            c[k] = sign
            r = linprog(c, A_ub=P.A, b_ub=P.b, A_eq=P.C if P.C.shape[0] else None,
                        b_eq=P.d if P.C.shape[0] else None, bounds=(None, None), method="highs")
            out.append(r.fun if r.status == 0 else -np.inf)  # status 3: unbounded below
        lo.append(out[0])  # min x_k
        hi.append(-out[1])  # -min(-x_k)
    return np.array(lo), np.array(hi)


def test_ray_pool_normalizes_deduplicates_and_keeps_the_newest():
    from polytopes import RayPool

    pool = RayPool(2, capacity=3)
    pool.add([[2.0, 0.0], [0.0, 0.0], [np.inf, 1.0], [-0.0, -3.0]])  # zero and infinite rows dropped
    assert pool.rays.tolist() == [[1.0, 0.0], [0.0, -1.0]]
    pool.add([[5.0, 0.0], [1.0, 1.0], [1.0, 2.0]])  # [5, 0] is [1, 0] again
    assert pool.rays.tolist() == [[1.0, 1.0], [0.5, 1.0], [1.0, 0.0]]
    with pytest.raises(ValueError):
        pool.rays[0, 0] = 3.0  # read-only view


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("fail_dd", [False, True])
@pytest.mark.parametrize("pool", [None, "garbage", "related"])
@pytest.mark.parametrize("kernel", [None, "numpy", "auto"])
def test_bounding_box_against_highs(seed, fail_dd, pool, kernel, monkeypatch):
    """Sides proven unbounded by recession rays (or by LPs when cddlib's DD is made to fail)
    equal HiGHS's per-side LPs, on random unbounded polyhedra, some with an equality and some
    lower-dimensional, and for a coordinate subset (the box of a projection) — also with a
    ``RayPool`` of random directions (hints that must be checked, most of them
    wrong) or of the rays of a related set (the same rows, some moved), and with the support
    LPs through the batched simplex (NumPy or compiled kernel, then the single-LP path)."""
    from polytopes import RayPool, _cdd_io

    if fail_dd:
        def broken(*args, **kwargs):
            raise RuntimeError("Numerical inconsistency is found (simulated)")
        monkeypatch.setattr(_cdd_io, "generators", broken)
    rng = np.random.default_rng(seed)
    n = 3 + seed % 3
    m = n + rng.integers(0, 4)
    A = rng.standard_normal((m, n))
    A[: m // 2, 0] = np.abs(A[: m // 2, 0])  # cones open towards -x0 on some rows
    b = rng.uniform(0.1, 2.0, m)
    C = rng.standard_normal((1, n)) if seed % 2 else np.zeros((0, n))
    d = np.zeros(C.shape[0])
    if seed % 4 == 3:  # two opposite rows: a lower-dimensional set
        A = np.vstack([A, A[:1], -A[:1]])
        b = np.concatenate([b, [0.0], [0.0]])
    P = Polytope(A, b, C, d)
    if P.is_empty():
        pytest.skip("empty draw")
    coords = list(range(n)) if seed % 3 else [0, n - 1]
    rays = None
    if pool is not None:
        rays = RayPool(n)
        if pool == "garbage":
            rays.add(rng.standard_normal((40, n)))
        else:
            Q = Polytope(A + 0.3 * rng.standard_normal(A.shape) * (rng.random((A.shape[0], 1)) < 0.3), b, C, d)
            if not Q.is_empty():
                Q.bounding_box(pool=rays)
            rays.add(rng.standard_normal((5, n)))
    lo, hi = (P.bounding_box(coords=coords, pool=rays, kernel=kernel) if seed % 3 == 0
              else P.bounding_box(pool=rays, kernel=kernel))
    elo, ehi = _linprog_box(P, coords)
    assert np.array_equal(np.isinf(lo), np.isinf(elo)) and np.array_equal(np.isinf(hi), np.isinf(ehi))
    fin = np.isfinite(elo)
    np.testing.assert_allclose(lo[fin], elo[fin], atol=1e-7)
    fin = np.isfinite(ehi)
    np.testing.assert_allclose(hi[fin], ehi[fin], atol=1e-7)


# ----- generators -----------------------------------------------------------------------------------

def _sorted_rows(X):
    return np.array(sorted(map(tuple, np.round(X, 9))))


def test_vertices_box_and_triangle():
    G = box([0, 0], [1, 2]).vertices()
    assert isinstance(G, Generators)
    np.testing.assert_allclose(_sorted_rows(G.vertices), [[0, 0], [0, 2], [1, 0], [1, 2]])
    assert G.rays.shape == (0, 2) and G.lines.shape == (0, 2)


def test_vertices_cone_and_halfplane():
    cone = Polytope([[-1.0, 0], [1, -1]], [0, 0])  # x >= 0, y >= x: apex 0, rays (0,1), (1,1)
    G = cone.vertices()
    np.testing.assert_allclose(G.vertices, [[0, 0]], atol=1e-12)
    dirs = _sorted_rows(G.rays / np.linalg.norm(G.rays, axis=1)[:, None])
    np.testing.assert_allclose(dirs, _sorted_rows(np.array([[0, 1], [1 / SQ2, 1 / SQ2]])), atol=1e-9)
    H = Polytope([[0.0, 1.0]], [1.0])
    G = H.vertices()
    assert G.lines.shape[0] == 1 and abs(G.lines[0, 1]) < 1e-12
    assert G.rays.shape[0] == 1 and G.rays[0, 1] < 0
    assert G.vertices[0, 1] == pytest.approx(1.0)


def test_from_generators():
    T = Polytope.from_generators([[0, 0], [4, 0], [0, 3]])
    assert T.equals(triangle([0, 0], [4, 0], [0, 3]))
    cone = Polytope.from_generators([[0, 0]], rays=[[0, 1], [1, 1]])
    assert cone.equals(Polytope([[-1.0, 0], [1, -1]], [0, 0]))
    S = Polytope.from_generators([[0, 0, 0], [2, 2, 0]])
    assert S.affine_dimension() == 1
    assert Polytope.from_generators(np.zeros((0, 2)), dim=2).is_empty()
    with pytest.raises(PolytopeError, match="vertices"):
        Polytope.from_generators(np.zeros((0, 2)), rays=[[1, 0]])


# ----- affine hull, reduce ----------------------------------------------------------------------

def test_affine_hull_implicit():
    # x <= 1, x >= 1 (implicit x = 1), y in [0, 2], explicit z = 3
    P = Polytope([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], [1, -1, 2, 0], [[0, 0, 2]], [6])
    assert P.affine_dimension() == 1
    assert list(P.implicit_equalities()) == [0, 1]
    C, d = P.affine_hull()
    assert C.shape == (2, 3)
    for x in ([1, 0, 3], [1, 2, 3], [1, 7, 3]):
        np.testing.assert_allclose(C @ np.array(x, float), d, atol=1e-9)
    assert np.linalg.norm(C @ np.array([0.0, 1, 0])) < 1e-9


def test_reduce_square_with_redundancy_both_methods():
    S = box([-1, -1], [1, 1])
    extra = Polytope([[1, 1], [2, 0], [1, 0], [3, 3]], [5, 2, 1, 6])  # redundant/duplicate rows
    P = S.intersect(extra)
    for method in ("cdd", "lp"):
        R = P.reduce(method)
        assert R.n_ineq == 4 and R.n_eq == 0
        assert rows_as_set(R.A, R.b) == rows_as_set(S.A, S.b)
        assert R.equals(S)


def test_reduce_implicit_equalities_to_C():
    # triangle x, y >= 0, x + y <= 1 inside the plane z = 0 given as z <= 0, z >= 0, plus z <= 4
    P = Polytope([[-1, 0, 0], [0, -1, 0], [1, 1, 0], [0, 0, 1], [0, 0, -1], [0, 0, 1]],
                 [0, 0, 1, 0, 0, 4])
    for method in ("cdd", "lp"):
        R = P.reduce(method)
        assert R.n_eq == 1 and R.n_ineq == 3
        np.testing.assert_allclose(np.abs(R.C), [[0, 0, 1]], atol=1e-9)
        assert R.equals(P)


def test_reduce_unbounded_and_universe():
    H = Polytope([[0.0, 1.0], [0.0, 2.0]], [1.0, 3.0])
    for method in ("cdd", "lp"):
        R = H.reduce(method)
        assert R.n_ineq == 1 and R.equals(H)
        U = Polytope.universe(2).reduce(method)
        assert U.n_ineq == 0 and U.n_eq == 0
    with pytest.raises(PolytopeError, match="method"):
        H.reduce("magic")


def test_issubset_equals():
    S = box([0, 0], [1, 1])
    B = box([-1, -1], [2, 2])
    assert S.issubset(B) and not B.issubset(S)
    assert not S.equals(B) and S.equals(S.intersect(B))
    seg = Polytope(box([0, 0], [1, 1]).A, box([0, 0], [1, 1]).b, [[1, -1]], [0])
    assert seg.issubset(S) and not S.issubset(seg)
    assert seg.issubset(Polytope(np.zeros((0, 2)), np.zeros(0), [[2, -2]], [0]))
    with pytest.raises(PolytopeError, match="other"):
        S.intersect(box([0], [1]))


def test_tolerances_module():
    assert tolerances.FEASIBILITY_TOL == 1e-9
    assert tolerances.CONTAINMENT_TOL == 1e-7
    assert tolerances.DEFAULT_ROW_BUDGET == 20000


@pytest.mark.parametrize("fail_dd", [False, True])
@pytest.mark.parametrize("pooled", [False, True])
def test_bounding_boxes_of_many_sets_against_highs(fail_dd, pooled, monkeypatch):
    """``Polytope.bounding_boxes`` (every side in one batch, then rays and single LPs for
    what the batch leaves) against HiGHS's per-side LPs on a mix of bounded, unbounded,
    lower-dimensional, empty and lifted sets of different sizes, boxes over a coordinate subset."""
    from polytopes import RayPool, _cdd_io

    if fail_dd:
        def broken(*args, **kwargs):
            raise RuntimeError("Numerical inconsistency is found (simulated)")
        monkeypatch.setattr(_cdd_io, "generators", broken)
    rng = np.random.default_rng(77)
    polys = []
    for i in range(30):
        n = 3 + i % 4
        m = n + 1 + int(rng.integers(0, 5))
        A = rng.standard_normal((m, n))
        if i % 3:  # bounded: a box around the origin as well
            A = np.vstack([A, np.eye(n), -np.eye(n)])
        b = rng.uniform(0.1, 2.0, A.shape[0])
        C = rng.standard_normal((1, n)) if i % 2 else np.zeros((0, n))
        if i % 5 == 4:  # two opposite rows: lower-dimensional
            A, b = np.vstack([A, A[:1], -A[:1]]), np.concatenate([b, [0.0], [0.0]])
        if i == 7:  # empty
            A, b = np.vstack([A, A[:1], -A[:1]]), np.concatenate([b, [-1.0], [-1.0]])
        polys.append(Polytope(A, b, C, np.zeros(C.shape[0])))
    coords = [0, 2]
    pool = RayPool(3) if pooled else None
    got = Polytope.bounding_boxes(polys, coords, pool=pool)
    for P, (lo, hi) in zip(polys, got):
        if P.is_empty():
            assert np.all(lo == np.inf) and np.all(hi == -np.inf)
            continue
        elo, ehi = _linprog_box(P, coords)
        assert np.array_equal(np.isinf(lo), np.isinf(elo)) and np.array_equal(np.isinf(hi), np.isinf(ehi))
        np.testing.assert_allclose(lo[np.isfinite(elo)], elo[np.isfinite(elo)], atol=1e-7)
        np.testing.assert_allclose(hi[np.isfinite(ehi)], ehi[np.isfinite(ehi)], atol=1e-7)
    with pytest.raises(PolytopeError, match="coords"):
        Polytope.bounding_boxes(polys[:2], [5])


def test_witness_is_a_point_of_the_set():
    rng = np.random.default_rng(5)
    for _ in range(20):
        A = rng.standard_normal((6, 3))
        P = Polytope(A, rng.uniform(-0.5, 1.0, 6), rng.standard_normal((1, 3)), [0.3])
        x = P.witness()
        if P.is_empty():
            assert x is None
        else:
            assert P.contains(x, tol=1e-9)
    assert Polytope([[1.0], [-1.0]], [-1.0, -1.0]).witness() is None
