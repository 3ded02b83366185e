"""Trustworthy engine: verified LPs, one emptiness rule, verified projections, row-scaling
invariance, crash guards. Oracles are independent of the code under test: PPL's exact rational
arithmetic (pplpy), SciPy's HiGHS (``scipy.optimize.linprog``), hand-made sets."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from polytopes import NumericalError, Polytope, PolytopeError, ProjectionBudgetError, lp

ppl = pytest.importorskip("ppl")
from polytopes import ppl_io  # noqa: E402

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
BIG = 1e12  # supports beyond BIG * scale count as infinite (tolerances.EFFECTIVELY_INFINITE)


# ----------------------------------------------------------------------- random polytopes ------
def random_polytope(seed: int, kind: str, n: int):
    """A polytope of the given kind in R^n with <= 40 rows (integer data, so PPL is fast)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(n + 1, min(40, 3 * n + 4)))
    A = rng.integers(-4, 5, size=(m, n)).astype(float)
    A = A[np.any(A != 0, axis=1)]
    b = rng.integers(1, 6, size=A.shape[0]).astype(float)  # origin inside
    C, d = np.zeros((0, n)), np.zeros(0)
    if kind == "unbounded":
        A, b = A[A[:, 0] <= 0], b[A[:, 0] <= 0]
    else:
        A = np.vstack([A, np.eye(n), -np.eye(n)])
        b = np.concatenate([b, 6 * np.ones(2 * n)])
    if kind == "explicit_lowdim":
        p = int(rng.integers(1, max(2, n // 2)))
        C = rng.integers(-2, 3, size=(p, n)).astype(float)
        C[:, 0] += np.all(C == 0, axis=1)
        d = np.zeros(p)
    elif kind == "implicit_lowdim":
        a = rng.integers(-2, 3, size=n).astype(float)
        a[0] += float(not np.any(a))
        A, b = np.vstack([A, a, -a]), np.concatenate([b, [0.0, 0.0]])  # a.x = 0 as two rows
    elif kind == "empty":
        a = rng.integers(-2, 3, size=n).astype(float)
        a[0] += float(not np.any(a))
        A, b = np.vstack([A, a, -a]), np.concatenate([b, [-1.0, 0.0]])  # a.x <= -1, a.x >= 0
    return Polytope(A, b, C, d)


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["bounded", "unbounded", "explicit_lowdim", "implicit_lowdim",
                                 "empty"]))
    n = draw(st.integers(2, 7))
    P = random_polytope(draw(st.integers(0, 2**31 - 1)), kind, n)
    n_elim = draw(st.integers(1, min(4, n - 1)))
    keep = [int(k) for k in np.random.default_rng(n * 7 + n_elim).permutation(n)[: n - n_elim]]
    return P, keep


def exact_projection_facts(P, keep):
    order = keep + [j for j in range(P.dim) if j not in keep]
    E = ppl_io.to_ppl(P.A, P.b, P.C, P.d, order)
    E.remove_higher_space_dimensions(len(keep))
    return E


def exact_support(E, u) -> float:
    """max u.y over the PPL polyhedron E (exact), as a float."""
    return ppl_io.polyhedron_support(E, u)


def squash(v, scale):
    return np.inf if v > BIG * scale else (-np.inf if v < -BIG * scale else v)


def assert_same_set(Q, E, scale, what):
    """Q (float result) equals the exact PPL polyhedron E: emptiness, affine dimension, supports
    along both sets' facet normals and random directions."""
    assert Q.is_empty() == E.is_empty(), what
    if E.is_empty():
        return
    assert Q.affine_dimension() == E.affine_dimension(), what
    k = Q.dim
    Ae, _, Ce, _ = ppl_io.from_ppl(E)
    dirs_e = []  # exact rays and lines of E (float copies), to spot ill-posed directions
    for g in E.minimized_generators():
        if g.is_ray() or g.is_line():
            r = np.array([float(g.coefficient(ppl.Variable(j))) for j in range(k)])
            dirs_e.append(r / np.linalg.norm(r))
    dirs = [*Q.A, *Q.C, *(-Q.C), *Ae, *Ce, *(-Ce),
            *np.random.default_rng(5).standard_normal((6, k)), *np.eye(k), *(-np.eye(k))]
    for u in dirs:
        u = np.asarray(u, float)
        if not np.any(u):
            continue
        u = u / np.linalg.norm(u)
        hq, he = squash(Q.support(u), scale), squash(exact_support(E, u), scale)
        if np.isinf(he) or np.isinf(hq):
            # a float facet normal orthogonal (up to rounding) to an exact ray of E: the exact
            # support along the rounded normal flips between finite and inf; not a test of Q
            if any(abs(u @ r) <= 1e-9 for r in dirs_e):
                continue
            assert hq == he, (what, u, hq, he)
        else:
            assert abs(hq - he) <= 1e-6 * max(scale, abs(he)), (what, u, hq, he)


@SETTINGS
@given(cases())
def test_projection_every_method_against_pplpy(case):
    P, keep = case
    E = exact_projection_facts(P, keep)
    scale = max(1.0, float(np.max(np.abs(P.b) / np.linalg.norm(P.A, axis=1))))
    for method in ("auto", "exact", "fourier_motzkin", "block_elimination", "vertex"):
        try:
            Q = P.project(keep, method=method)
        except (NumericalError, ProjectionBudgetError) as exc:
            assert method not in ("auto", "exact"), exc
            assert "verification" in str(exc) or "max_rows" in str(exc)
            continue
        assert_same_set(Q, E, scale, method)


@SETTINGS
@given(cases())
def test_reduce_every_method_against_pplpy(case):
    P, _ = case
    E = ppl_io.to_ppl(P.A, P.b, P.C, P.d)
    assert P.is_empty() == E.is_empty()
    assert P.affine_dimension() == (-1 if E.is_empty() else E.affine_dimension())
    scale = max(1.0, float(np.max(np.abs(P.b) / np.linalg.norm(P.A, axis=1))))
    for method in ("cdd", "lp", "exact"):
        R = P.reduce(method)
        assert_same_set(R, E, scale, method)
        if not E.is_empty():  # minimal: as many facets/equalities as PPL's minimized system
            Ae, _, Ce, _ = ppl_io.from_ppl(E)
            assert (R.n_ineq, R.n_eq) == (Ae.shape[0], Ce.shape[0]), method


# ----------------------------------------------------------------------- one emptiness rule ----
def test_nearly_empty_set_all_queries_agree():
    """The ValueError of the issue: max slack -2.9e-10 accepted by is_empty, then the affine-hull
    step found the set empty. Every query now reads one cached decision."""
    for gap in (-2.9e-10, -5e-10, 2.9e-10, 0.0):
        P = Polytope([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [gap, 0.0, 1.0, 0.0])
        empty = P.is_empty()
        assert not empty  # |gap| below FEASIBILITY_TOL * scale: nonempty by the rule
        assert P.affine_dimension() == 1
        assert len(P.implicit_equalities()) == 2
        lo, hi = P.bounding_box()
        assert lo[1] == pytest.approx(0.0, abs=1e-8) and hi[1] == pytest.approx(1.0, abs=1e-8)
        assert P.chebyshev_center().radius >= 0
        R = P.reduce()
        assert R.n_eq == 1 and not R.is_empty()


def test_empty_set_is_a_normal_value():
    E = Polytope([[1.0, 0.0], [-1.0, 0.0]], [0.0, -1.0])
    lo, hi = E.bounding_box()
    assert np.all(lo == np.inf) and np.all(hi == -np.inf)
    assert E.affine_dimension() == -1 and E.support([0.0, 1.0]) == -np.inf
    assert E.chebyshev_center().radius == -np.inf
    assert E.project([0]).is_empty()


# ----------------------------------------------------------------------- verified LPs ----------
SMUBIG_A = np.array([
    [2.5479681111400569e+03, -1.5089599726979250e+03, -2.7773830972943637e+02, 0.0],
    [2.5482794793881667e+03, -1.5114670812111933e+03, -2.7422697055338250e+02, 0.0],
    [2.5481237952641118e+00, -1.5102135269545591e+00, -2.7598264014140944e-01, 0.0],
    [4.1991111498276396e+03, -1.0262565740027628e+03, -3.7388037700205682e+03, 2.5142420266688333e+02],
    [4.1977256327728001e+03, -1.0269288581416281e+03, -3.7346164803803654e+03, 2.5274549480571955e+02],
    [4.1984183913002200e+00, -1.0265927160721955e+00, -3.7367101252004669e+00, 2.5208484873630144e-01],
    [1.0089645004465330e+01, 4.3704356477578261e+02, -2.3428903949126907e+03, 5.6573156257529536e+02],
    [7.2306290145798382e+00, 4.3814409846356722e+02, -2.3387166899439176e+03, 5.6657883653339286e+02],
    [8.6601370095225842e-03, 4.3759383161967491e-01, -2.3408035424283042e+00, 5.6615519955434412e-01],
    [-8.6601370095225842e-03, -4.3759383161967491e-01, 2.3408035424283042e+00, -5.6615519955434412e-01]])
SMUBIG_b = np.array([-6.7931671985575376e+03, -6.8160270998503893e+03, -6.8045971492039632e+00,
                     3.1326872331853534e+04, 3.1381029567648184e+04, 3.1353950949750860e+01,
                     -2.9212499405821087e+04, -2.9256131473968868e+04, -2.9234315439894978e+01,
                     1.6645242136178246e+02])
SMUBIG_C = np.array([[0.8327557497952147, 0.4066170269477045, -0.3757398762165385, 0.0]])
SMUBIG_d = np.array([-2.5997920754781627])


def smubig_max_slack_lp():
    """The max-slack LP of the FFF domain of tests/data/cases/smubig606.toml (mu = 1000):
    bounded by construction (s <= 1)."""
    An = SMUBIG_A / np.linalg.norm(SMUBIG_A, axis=1)[:, None]
    bn = SMUBIG_b / np.linalg.norm(SMUBIG_A, axis=1)
    A_ub = np.hstack([An, np.ones((10, 1))])
    A_eq = np.hstack([SMUBIG_C, np.zeros((1, 1))])
    c = np.zeros(5)
    c[-1] = -1.0
    return c, A_ub, bn, A_eq, SMUBIG_d, [(None, None)] * 4 + [(None, 1.0)]


def test_cddlib_lies_on_the_smubig_lp_and_solve_returns_the_verified_answer():
    c, A_ub, b_ub, A_eq, b_eq, bounds = smubig_max_slack_lp()
    G, h = lp._rows_and_bounds(5, A_ub, b_ub, bounds)
    assert lp._solve_cdd(c, G, h, A_eq, b_eq).status == lp.UNBOUNDED  # the lie (s <= 1!)
    ref = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    assert ref.status == 0
    for solver in ("auto", "cdd", "highs"):
        st_, x, fun = lp.solve(c, A_ub, b_ub, A_eq, b_eq, bounds, solver=solver, bounded=True)
        assert st_ == lp.OPTIMAL and fun == pytest.approx(ref.fun, abs=1e-7)
    P = Polytope(SMUBIG_A, SMUBIG_b, SMUBIG_C, SMUBIG_d)
    assert not P.is_empty() and P.affine_dimension() == 3  # PPL: nonempty, dimension 3
    E = ppl_io.exact_facts(SMUBIG_A, SMUBIG_b, SMUBIG_C, SMUBIG_d)
    assert E == {"empty": False, "affine_dimension": 3, "bounded": True}


def test_a_lying_fast_path_falls_back_to_highs(monkeypatch):
    """cddlib's claim replaced by the lie seen on smubig606 (unbounded on a bounded LP): the
    answer still comes back optimal, from HiGHS."""
    monkeypatch.setattr(lp, "_solve_cdd", lambda *a: lp._Claim(lp.UNBOUNDED, "cdd"))
    c, A_ub, b_ub, A_eq, b_eq, bounds = smubig_max_slack_lp()
    res = lp.solve_verified(c, A_ub, b_ub, A_eq, b_eq, bounds, bounded=True)
    assert res.status == lp.OPTIMAL and res.solver.startswith("highs")
    # an infeasible LP with a lying "optimal" fast path: the point fails its residual check
    monkeypatch.setattr(lp, "_solve_cdd", lambda c, *a: lp._Claim(lp.OPTIMAL, "cdd", np.zeros(1),
                                                                   np.zeros(2), np.zeros(0)))
    st_, x, _ = lp.solve([1.0], [[1.0], [-1.0]], [-1.0, 0.0])
    assert st_ == lp.INFEASIBLE and x is None


def test_large_mu_friction_cone_lp():
    """max f_t over a friction cone |f_t| <= mu f_n, f_n <= 1 with mu up to 1e6: optimum mu."""
    for mu in (1e3, 1e4, 1e6):
        A = np.array([[1.0, -mu], [-1.0, -mu], [0.0, 1.0]])
        st_, x, fun = lp.solve([-1.0, 0.0], A, [0.0, 0.0, 1.0])
        assert st_ == lp.OPTIMAL and -fun == pytest.approx(mu, rel=1e-9)


def test_statuses_match_highs_on_random_badly_scaled_lps():
    rng = np.random.default_rng(2024)
    counts = {0: 0, 2: 0, 3: 0}
    for _ in range(1500):
        n = int(rng.integers(1, 5))
        m = int(rng.integers(1, 8))
        A = rng.integers(-3, 4, size=(m, n)).astype(float)
        b = rng.integers(-2, 4, size=m).astype(float)
        scale = 10.0 ** rng.integers(-9, 10, size=m)
        A, b = A * scale[:, None], b * scale
        c = rng.integers(-2, 3, size=n).astype(float)
        # the reference sees the unscaled rows (same LP): HiGHS with presolve off
        ref = linprog(c, A_ub=A / scale[:, None], b_ub=b / scale, bounds=(None, None),
                      method="highs", options={"presolve": False})
        st_, x, fun = lp.solve(c, A, b)
        assert st_ == ref.status, (A, b, c)
        counts[st_] += 1
        if st_ == lp.OPTIMAL:
            assert fun == pytest.approx(ref.fun, abs=1e-7 * max(1.0, abs(ref.fun)))
    assert min(counts.values()) > 50  # every status exercised


def test_solve_many_matches_highs_on_random_lps():
    """``lp.solve_many`` (one matrix, many costs, batch-verified) gives HiGHS's status and
    optimum for every cost, on random feasible systems with bounded and unbounded objectives, badly
    scaled rows included; "unbounded" answers carry a verified ray."""
    rng = np.random.default_rng(7)
    counts = {0: 0, 3: 0}
    for _ in range(150):
        n = int(rng.integers(1, 6))
        m = int(rng.integers(1, 10))
        A = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-6, 7, size=m)[:, None]
        x0 = rng.standard_normal(n)
        b = A @ x0 + np.abs(A).sum(axis=1) * rng.uniform(0.0, 1.0, m)  # x0 feasible
        costs = rng.integers(-2, 3, size=(4, n)).astype(float)
        results = lp.solve_many(costs, A, b, feasible_point=x0 if rng.random() < 0.5 else None)
        for c, res in zip(costs, results):
            ref = linprog(c, A_ub=A / np.abs(A).max(axis=1, keepdims=True),
                          b_ub=b / np.abs(A).max(axis=1), bounds=(None, None), method="highs")
            assert res.status == ref.status, (A, b, c)
            counts[res.status] += 1
            if res.status == lp.OPTIMAL:
                assert res.fun == pytest.approx(ref.fun, abs=1e-7 * max(1.0, abs(ref.fun)))
            elif res.ray is not None:
                assert float(c @ res.ray) < 0 and np.all(A @ res.ray <= 1e-9 * np.abs(A).sum(axis=1) * np.abs(res.ray).max())
    assert min(counts.values()) > 30  # both statuses exercised


def test_solve_many_lying_fast_path_falls_back(monkeypatch):
    """cddlib's claims replaced by lies (a wrong optimum, an unbounded claim without a ray): every
    answer still comes back right, through the single-LP front door."""
    A = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    b = np.array([1.0, 2.0, 0.0])
    lies = [lp._Claim(lp.OPTIMAL, "cdd", np.array([5.0, 5.0]), np.zeros(3), np.zeros(0)),
            lp._Claim(lp.UNBOUNDED, "cdd", ray=None)]
    real = lp._cdd_claim
    monkeypatch.setattr(lp, "_cdd_claim", lambda *a: lies.pop(0) if lies else real(*a))
    res = lp.solve_many([[-1.0, 0.0], [0.0, -1.0]], A, b)
    assert [r.status for r in res] == [lp.OPTIMAL, lp.OPTIMAL]
    assert res[0].fun == pytest.approx(-1.0) and res[1].fun == pytest.approx(-2.0)


# ----------------------------------------------------------------------- row scaling -----------
@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.sampled_from(["bounded", "unbounded", "explicit_lowdim", "implicit_lowdim", "empty"]),
       st.integers(2, 5), st.integers(0, 2**31 - 1))
def test_row_scaling_changes_no_decision(kind, n, seed):
    P = random_polytope(seed, kind, n)
    rng = np.random.default_rng(seed)
    s = 10.0 ** rng.integers(-12, 13, size=P.n_ineq)
    S = Polytope(P.A * s[:, None], P.b * s, P.C, P.d)
    assert S.is_empty() == P.is_empty()
    assert S.affine_dimension() == P.affine_dimension()
    for method in ("cdd", "lp"):
        Rp, Rs = P.reduce(method), S.reduce(method)
        assert (Rp.n_ineq, Rp.n_eq) == (Rs.n_ineq, Rs.n_eq)
        assert Rp.equals(Rs, tol=1e-7)


def test_tiny_task_row_keeps_the_set():
    """The squeeze of tests/contactmodes/analysis/test_ambiguity.py in polytope terms: a row 1e-8 f_n >= 1e-8 next to
    rows of size 1 (reduce used to change the set once a row was scaled by <= 1e-7)."""
    A = np.array([[1.0, -0.5], [-1.0, -0.5], [0.0, -1.0]])
    b = np.array([0.0, 0.0, -1.0])  # friction cone, f_n >= 1
    for k in range(-12, 13):
        s = 10.0 ** k
        P = Polytope(A * np.array([1.0, 1.0, s])[:, None], b * np.array([1.0, 1.0, s]))
        R = P.reduce()
        assert R.n_ineq == 3 and R.contains([0.0, 1.0]) and not R.contains([0.0, 0.99])
        assert R.support([0.0, 1.0]) == np.inf and R.support([0.0, -1.0]) == pytest.approx(-1.0)


# ----------------------------------------------------------------------- crash guards ----------
def run_isolated(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=240)


def test_all_zero_rows_never_reach_cddlib():
    proc = run_isolated("""
        import numpy as np
        from polytopes import Polytope, _cdd_io
        Z = np.zeros((1, 2))
        print(_cdd_io.canonicalize(Z, np.zeros(1), np.zeros((0, 2)), np.zeros(0)))
        print(_cdd_io.canonicalize(Z, np.zeros(1), Z, np.zeros(1)))
        P = Polytope(np.zeros((2, 2)), np.zeros(2), np.zeros((1, 2)), np.zeros(1))
        R = P.reduce("cdd")
        assert R.affine_dimension() == 2 and R.n_ineq == 0, R
        assert Polytope(np.zeros((1, 3)), [0.0]).project([0, 1]).affine_dimension() == 2
        print("ok")
        """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


def test_large_block_elimination_exits_normally():
    """A block elimination whose output (thousands of rows) used to be canonicalized by cddlib
    (crash, abort or minutes): refused by the row budget, and auto still answers (verified)."""
    proc = run_isolated("""
        import numpy as np
        from polytopes import Polytope, ProjectionBudgetError
        rng = np.random.default_rng(4)
        n = 10
        m = int(rng.integers(20, 41))
        P = Polytope(rng.standard_normal((m, n)), rng.uniform(0.5, 2, m))
        try:
            P.project(list(range(7)), method="block_elimination")
            print("answered")
        except ProjectionBudgetError as exc:
            print("refused", exc)
        print("ok")
        """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


def test_exact_without_pplpy_is_a_clear_user_error(monkeypatch):
    monkeypatch.setattr(ppl_io, "_ppl", None)
    P = Polytope.box([0, 0], [1, 1])
    with pytest.raises(PolytopeError, match=r"contactmodes\[exact\]"):
        P.project([0], method="exact")
    with pytest.raises(PolytopeError, match=r"contactmodes\[exact\]"):
        P.reduce("exact")
    assert P.project([0], method="auto").equals(Polytope.box([0], [1]))


def test_highs_infeasible_or_unbounded_is_decided_by_a_point_and_a_ray():
    """A support LP from the 8-contact chain (k = 8 zig-zag, a mode's bounding box): cddlib says
    "unbounded" without a ray, HiGHS "infeasible or unbounded" with and without presolve. The
    answer is decided by a verified feasible point and a verified direction of unboundedness;
    the oracle is SciPy's HiGHS on the two bounded LPs written out here independently."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parents[1] / "data"
                       / "lp_highs_unbounded_or_infeasible.json").read_text())
    c, A, b = (np.array(data[k]) for k in ("c", "A_ub", "b_ub"))
    feas = linprog(np.zeros(c.size), A_ub=A, b_ub=b, bounds=[(None, None)] * c.size,
                   method="highs")
    ray = linprog(c, A_ub=A, b_ub=np.zeros(b.size), bounds=[(-1.0, 1.0)] * c.size,
                  method="highs")
    assert feas.status == 0 and ray.status == 0 and ray.fun < -1e-6  # the oracle: unbounded
    res = lp.solve_verified(c, A, b)
    assert res.status == lp.UNBOUNDED
    assert np.all(A @ res.x <= b + 1e-9 * (1 + np.abs(b)))
    assert Polytope(A, b).support(-c) == float("inf")


def test_undecided_solvers_fall_back_to_point_and_ray(monkeypatch):
    """Every solver undecided on the LP asked (as HiGHS's kUnboundedOrInfeasible): the bounded
    follow-up LPs decide ``min -x s.t. -x <= 0`` (unbounded, ray (1)) and an infeasible LP
    (``x1 <= -1``, ``x1 >= 0``); on a bounded LP (``x1 <= x2 <= 0``) no ray exists and the
    answer stays undecided (NumericalError), never a wrong status."""
    real_cdd, real_highs = lp._solve_cdd, lp._solve_highs
    calls: dict[str, int] = {}

    def first_undecided(real):
        def solve(*args, **kw):
            if not np.any(args[0]):  # the feasibility LP (c = 0) is answered normally
                return real(*args, **kw)
            if calls.setdefault("undecided", 0) < 3:
                calls["undecided"] += 1
                return lp._Claim(None, "mock")
            return real(*args, **kw)
        return solve

    monkeypatch.setattr(lp, "_solve_cdd", first_undecided(real_cdd))
    monkeypatch.setattr(lp, "_solve_highs", first_undecided(real_highs))
    res = lp.solve_verified([-1.0], [[-1.0]], [0.0])
    assert res.status == lp.UNBOUNDED and res.x[0] >= 0.0
    calls.clear()
    res = lp.solve_verified([0.0, 1.0], [[1.0, 0.0], [-1.0, 0.0]], [-1.0, 0.0])
    assert res.status == lp.INFEASIBLE  # x1 <= -1 and x1 >= 0
    calls.clear()
    with pytest.raises(NumericalError):  # bounded optimum: the ray LP finds no ray, still undecided
        lp.solve_verified([-1.0, 0.0], [[1.0, -1.0], [0.0, 1.0]], [1.0, 0.0])


def test_vertices_fall_back_to_exact_generators_when_cddlib_gives_up(monkeypatch):
    """cddlib's "numerical inconsistency" (seen on a T_c of the 8-contact chain) makes
    ``Polytope.vertices`` use PPL's exact generators; without pplpy it is a NumericalError.
    Oracle: the hand-written generators of the set {x >= 0, y >= 0, x + y <= 2, z free}."""
    from polytopes import _cdd_io

    def gives_up(*a):
        raise RuntimeError("*Error: Numerical inconsistency is found.  Use the GMP exact arithmetic.")

    A = np.array([[-1.0, 0, 0], [0, -1.0, 0], [1.0, 1.0, 0]])
    b = np.array([0.0, 0.0, 2.0])
    P = Polytope(A, b)
    monkeypatch.setattr(_cdd_io, "generators", gives_up)
    g = P.vertices()
    got = sorted(map(tuple, np.round(g.vertices, 12)))
    assert got == [(0.0, 0.0, 0.0), (0.0, 2.0, 0.0), (2.0, 0.0, 0.0)]
    assert g.rays.shape[0] == 0 and g.lines.shape[0] == 1
    assert np.allclose(np.abs(g.lines[0]), [0.0, 0.0, 1.0])
    monkeypatch.setattr(ppl_io, "available", lambda: False)
    with pytest.raises(NumericalError, match="pplpy"):
        Polytope(A, b).vertices()


def _random_systems(rng, count):
    """Random ``(A, b, C, d)`` of mixed sizes: full-dimensional, thin (touching rows), with
    equalities (some inconsistent), zero rows, empty, badly scaled."""
    out = []
    for i in range(count):
        n = int(rng.integers(1, 7))
        m = int(rng.integers(1, 14))
        p = int(rng.integers(0, 3))
        A = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-4, 5, size=m)[:, None]
        C = rng.standard_normal((p, n))
        x = rng.standard_normal(n)
        b = A @ x + np.abs(A).sum(axis=1) * rng.uniform(-0.3, 1.0, m)
        d = C @ x
        if i % 4 == 1 and m > 1:  # thin: two opposite rows through x
            A[1] = -A[0]
            b[0], b[1] = A[0] @ x, -(A[0] @ x)
        if i % 7 == 2:
            A[0] = 0.0  # a zero row: 0 <= b_0
        if i % 11 == 3 and p:
            C = np.vstack([C, C[:1]])
            d = np.concatenate([d, d[:1] + 1.0])  # inconsistent equalities
        out.append((A, b, C, d))
    return out


def _highs_max_slack(A, b, C, d):
    """``max s`` with ``a_i x + ||a_i|| s <= b_i``, ``C x = d``, ``s <= scale`` by SciPy's HiGHS
    (the rule's LP written over x, not over the equality basis): ``None`` when infeasible."""
    from polytopes._feasibility import problem_scale

    m, n = A.shape
    nrm = np.linalg.norm(A, axis=1)
    live = nrm > 0
    c = np.zeros(n + 1)
    c[-1] = -1.0
    A_ub = np.hstack([A[live] / nrm[live, None], np.ones((int(live.sum()), 1))])
    r = linprog(c, A_ub=A_ub, b_ub=b[live] / nrm[live], A_eq=np.hstack([C, np.zeros((len(C), 1))]) if len(C) else None,
                b_eq=d if len(C) else None, bounds=[(None, None)] * n + [(None, problem_scale(A, b, C, d))],
                method="highs")
    if r.status != 0:
        return None
    s = -r.fun
    if np.any(~live):
        s = min(s, float(np.min(b[~live])))
    return s


def test_feasibility_many_is_the_emptiness_rule(monkeypatch):
    """``feasibility_many`` (one batch) decides exactly as ``feasibility`` (one LP each) on
    600 random systems, with max slacks equal to HiGHS's on the same LP (within the LP tolerance);
    with the batch made to decide nothing, the fallback gives the same answers again."""
    from polytopes import batchlp
    from polytopes._feasibility import feasibility, feasibility_many

    rng = np.random.default_rng(11)
    systems = _random_systems(rng, 600)
    one = [feasibility(*s) for s in systems]
    many = feasibility_many(systems)
    assert [f.empty for f in many] == [f.empty for f in one]
    assert 100 < sum(f.empty for f in one) < 500
    for (A, b, C, d), f in zip(systems, many):
        ref = _highs_max_slack(A, b, C, d)
        if not np.isfinite(f.slack):  # inconsistent equalities
            assert ref is None
            continue
        assert ref is not None and abs(f.slack - ref) <= 1e-7 * f.scale, (f.slack, ref)
        if not f.empty:
            assert Polytope(A, b, C, d).contains(f.point, tol=1e-8)

    real = batchlp.simplex_batch

    def undecided(*args, **kwargs):
        res = real(*args, **kwargs)
        res.status[:] = batchlp.UNDECIDED
        return res

    monkeypatch.setattr(batchlp, "simplex_batch", undecided)
    again = feasibility_many(systems[:80], kernel="numpy")
    assert [f.empty for f in again] == [f.empty for f in one[:80]]


def test_are_empty_caches_the_rule_on_each_polytope():
    rng = np.random.default_rng(12)
    systems = _random_systems(rng, 60)
    polys = [Polytope(*s) for s in systems]
    polys[0].is_empty()  # one already decided: kept
    flags = Polytope.are_empty(polys)
    assert all("feas" in P._cache for P in polys)
    assert flags.tolist() == [Polytope(*s).is_empty() for s in systems]


def test_stacked_setups_are_each_sets_own():
    """``feasibility_many`` sets up the sets of one shape together (stacked norms, SVDs and
    products) and builds their max-slack LPs stacked (constant rows kept as zero rows); set by set
    its result is exactly what the set's own set-up (``polytopes._feasibility._setup``) and its
    own LP (that template's LP, solved alone by ``polytopes.batchlp.solve_stacked``) give — on
    random systems of mixed shapes and on groups of one shape with equalities (some inconsistent,
    some with zero rows, some with rows constant over the equalities' null space)."""
    from polytopes import batchlp
    from polytopes._feasibility import _decide, _setup, _slack_problem, feasibility_many

    rng = np.random.default_rng(13)
    systems = _random_systems(rng, 300)
    for i in range(200):
        A = rng.standard_normal((6, 4))
        C = rng.standard_normal((2, 4))
        x = rng.standard_normal(4)
        if i % 9 == 0:
            A[2] = 0.0
        if i % 13 == 0:
            C[1] = 0.0
        if i % 3 == 0:
            A[4] = 2.0 * C[0]  # constant over the null space of C
        systems.append((A, A @ x + rng.uniform(0.0, 1.0, 6), C, C @ x + (1.0 if i % 5 == 0 else 0.0)))
    fields = ("eps", "scale", "Q", "q", "x0", "N", "U", "beta", "const", "empty", "slack", "point")
    n_lp = 0
    for sys_, f in zip(systems, feasibility_many(systems)):
        own, slp = _setup(*sys_)
        if slp is not None:  # the set's own LP, alone
            [(status, x, _)] = batchlp.solve_stacked([_slack_problem(own, slp)], fallback=True)
            own = _decide(own, x[0])
            n_lp += 1
        assert all(np.array_equal(getattr(f, k), getattr(own, k), equal_nan=True) for k in fields if k != "point")
        assert (f.point is None) == (own.point is None)
        assert f.point is None or np.array_equal(f.point, own.point)
    assert n_lp > 300


def test_empty_stacked_is_feasibility_many():
    """``polytopes._feasibility.empty_stacked`` (stacks of one shape, set up and solved without
    an object per set) takes, set by set, the decision and the slack ``s*`` that
    ``feasibility_many`` (one ``Feasibility`` each) takes — bit for bit — on stacks with
    rows constant over the equalities' null space, inconsistent equalities, zero rows, no free
    direction, a stack of one set, and stacks of the same width and equalities but different
    numbers of rows (joined by padding), and stacks of that width without inequality rows or with
    zero rows only."""
    from polytopes._feasibility import empty_stacked, feasibility_many

    rng = np.random.default_rng(14)
    stacks = []
    for m, n, p, G in [(6, 4, 0, 120), (6, 4, 2, 120), (9, 5, 1, 80), (3, 2, 2, 60), (7, 5, 2, 1), (5, 3, 3, 20),
                       (8, 5, 2, 120), (4, 2, 2, 10), (11, 5, 2, 40), (3, 4, 0, 30), (13, 5, 1, 25), (2, 5, 2, 12)]:
        A = rng.standard_normal((G, m, n)) * 10.0 ** rng.integers(-3, 4, size=(G, m, 1))
        x = rng.standard_normal((G, n))
        C = rng.standard_normal((G, p, n))
        if (m, p) == (8, 2):  # rows constant over the null space of C: combinations of its rows
            A[:, 0] = 2.0 * C[:, 0]
            A[::2, 1] = C[::2, 1] - C[::2, 0]
        b = np.einsum("gmn,gn->gm", A, x) + np.abs(A).sum(axis=2) * rng.uniform(-0.3, 1.0, (G, m))
        d = np.einsum("gpn,gn->gp", C, x)
        d[::7] += 1.0  # inconsistent where C has a zero row or p = n
        if p:
            C[::11, 0] = 0.0
        A[::13, 1] = 0.0
        stacks.append((A, b, C, d))
    # stacks of a width others are padded to, without inequality rows or with zero rows only
    # (their data scales come from the right-hand sides: they are not padded)
    for m in (0, 2):
        G = 15
        C = rng.standard_normal((G, 2, 5))
        d = np.einsum("gpn,gn->gp", C, rng.standard_normal((G, 5))) * rng.uniform(0.1, 10.0, (G, 1))
        b = rng.uniform(-1.0, 3.0, (G, m)) if m else np.zeros((G, 0))
        stacks.append((np.zeros((G, m, 5)), b, C, d))
    decided = empty_stacked(stacks)
    n_empty = 0
    for (A, b, C, d), (empty, slack) in zip(stacks, decided):
        ref = feasibility_many([(A[g], b[g], C[g], d[g]) for g in range(A.shape[0])])
        assert empty.tolist() == [f.empty for f in ref]
        assert np.array_equal(slack, [f.slack for f in ref], equal_nan=True)
        n_empty += int(empty.sum())
    assert 0 < n_empty < sum(S[0].shape[0] for S in stacks)


def test_hulls_together_are_each_sets_own():
    """The affine-hull rule of many sets at once (``polytopes._feasibility.hulls``: the thin
    sets' implicit-equality LPs in one batch per round) gives each set exactly the hull it gets
    alone, and on sets built with known implicit equalities (two pairs of opposite rows through a
    point, and rows through that point or beyond it that are not implied) finds exactly those
    rows."""
    from polytopes._feasibility import feasibility, hull, hulls

    rng = np.random.default_rng(15)
    systems = [s for s in _random_systems(rng, 200)]
    known = []
    for i in range(60):  # thin by construction: rows 0/1 and 2/3 pinch x onto a plane pair
        n = int(rng.integers(3, 6))
        x = rng.standard_normal(n)
        A = rng.standard_normal((7, n))
        A[1], A[3] = -A[0], -A[2]
        b = A @ x + np.array([0, 0, 0, 0, 0, 1.0, 2.0]) * rng.uniform(0.5, 1.0)  # row 4: through x
        systems.append((A, b, np.zeros((0, n)), np.zeros(0)))
        known.append(len(systems) - 1)
    items = [(*s, feasibility(*s)) for s in systems]
    items = [it for it in items if not it[4].empty]
    together = hulls(items)
    n_thin = sum(it[4].thin for it in items)
    assert n_thin >= 60
    fields = ("implicit", "Q", "q", "x0", "N", "rows", "V", "gamma", "relax")
    for it, h in zip(items, together):
        alone = hull(*it)
        assert all(np.array_equal(getattr(h, f), getattr(alone, f)) for f in fields)
    for it, h in zip(items, together):  # the implicit rows the single-LP loop finds (HiGHS)
        assert h.implicit.tolist() == _implicit_rows_one_lp_each(*it).tolist()
    for it, h in zip(items, together):
        if any(it[0] is systems[j][0] for j in known):
            assert h.implicit.tolist() == [True] * 4 + [False] * 3
            assert h.dimension == it[0].shape[1] - 2


def _implicit_rows_one_lp_each(A, b, C, d, feas):
    """Reference for the implicit rows of the affine-hull rule: the rounds of Freund, Roundy & Todd
    as ``polytopes._feasibility.hull`` defines them, each LP solved alone by HiGHS
    (``scipy.optimize.linprog``)."""
    from scipy.optimize import linprog

    implicit = np.zeros(A.shape[0], dtype=bool)
    if not feas.thin:
        return implicit
    eps, U, beta, const = feas.eps, feas.U, feas.beta, feas.const
    k = U.shape[1]
    z_pt = feas.N.T @ (feas.point - feas.x0)
    implicit[const] = beta[const] <= eps
    implicit[const & (np.linalg.norm(A, axis=1) == 0)] = False
    undecided = ~const & (beta - U @ z_pt <= 2 * eps)
    cap, rb = max(feas.scale, 4 * eps), beta + eps
    while undecided.any():
        idx, live = np.flatnonzero(undecided), np.flatnonzero(~const)
        T = np.zeros((live.size, idx.size))
        T[np.searchsorted(live, idx), np.arange(idx.size)] = 1.0
        res = linprog(np.concatenate([np.zeros(k), -np.ones(idx.size)]), A_ub=np.hstack([U[live], T]),
                      b_ub=rb[live], bounds=[(None, None)] * k + [(0.0, cap)] * idx.size, method="highs")
        assert res.status == 0
        decided = (rb[idx] - U[idx] @ res.x[:k]) > 3 * eps
        if not decided.any():
            implicit[idx] = True
            break
        undecided[idx[decided]] = False
    return implicit


def test_redundancy_removal_ends_when_the_lp_maximizer_is_a_far_vertex(monkeypatch):
    """Clarkson's loop (``polytopes._redundancy.irredundant_in_hull``) on a system from the
    10-link chain (issue 39: ``analyze`` of the chain hung there under ``OPENBLAS_CORETYPE=Haswell``):
    the unbounded set's LP for row 15 has an unbounded optimal face, and the verified answer is a
    vertex 3e8 away that violates a known row by 1.04 (within ``LP_PRIMAL_TOL`` of its size), so the
    ray from the interior point first hits that known row and the loop made no progress, forever.
    Now it ends (within ``4 m`` LPs) and keeps exactly the rows that SciPy's HiGHS finds
    irredundant, one LP per row against all the others (unbounded: irredundant)."""
    import json
    from pathlib import Path

    from polytopes import _redundancy

    data = json.loads((Path(__file__).parents[1] / "data" / "redundancy_far_vertex.json").read_text())
    U = np.array([[float.fromhex(x) for x in row] for row in data["U"]])
    beta = np.array([float.fromhex(x) for x in data["beta"]])
    scale = float.fromhex(data["scale"])
    m, n = U.shape
    calls = [0]
    solve = _redundancy.lp.solve

    def counted(*args, **kwargs):
        calls[0] += 1
        assert calls[0] <= 4 * m, "the redundancy loop does not progress"
        return solve(*args, **kwargs)

    monkeypatch.setattr(_redundancy.lp, "solve", counted)
    kept = _redundancy.irredundant_in_hull(U, beta, scale)
    want = []
    for j in range(m):
        others = np.arange(m) != j
        res = linprog(-U[j], A_ub=U[others], b_ub=beta[others], bounds=[(None, None)] * n, method="highs")
        assert res.status in (0, 3)
        if res.status == 3 or -res.fun > beta[j] + 1e-9 * max(1.0, abs(beta[j])):
            want.append(j)
    assert kept.tolist() == want


def test_stacked_setups_are_each_sets_own_under_another_blas_kernel():
    """The two comparisons above in a child process under ``OPENBLAS_CORETYPE=Prescott`` (NumPy's
    OpenBLAS takes its SSE-only ``Katmai`` kernels for it; issue 39:
    there a stacked ``Q @ x0`` and the single one took different OpenBLAS routines and differed by
    one ulp; the matrix–vector products now go through ``polytopes._linalg.matvec``, NumPy's own
    reduction, in both). x86-64 only (the kernel names are OpenBLAS's x86 ones)."""
    import os
    import platform
    import subprocess
    import sys
    from pathlib import Path

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("OpenBLAS's x86-64 kernels (OPENBLAS_CORETYPE) only")
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott", OPENBLAS_NUM_THREADS="1")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(Path(__file__).resolve()), "-k",
                           "test_stacked_setups_are_each_sets_own and not another or test_empty_stacked_is_feasibility_many"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "2 passed" in proc.stdout, proc.stdout[-2000:]
