"""Real-time layouts (``contactmodes.realtime.plan``) against the analysis session.

On the example systems and on random mechanisms (``_support.units.random_system``: floating base,
massless links, 1–5 contacts, at rest or moving, task rows) written in SI and in millimetres and
grams: the layout's kinematically feasible modes are the Table III candidates that
``acceleration_feasible`` accepts (the definition, Sec. III-F) and the
session's enumeration (``enumerate_modes``, whose depth-first search once
pruned seed 4's ``SFFF`` on a relaxed row that cancels only up to rounding); per feasible mode the consistency of (31), the
number of ambiguity variables and the rank of (31) are the SVD response's; the torque domains
``T_c`` agree — every torque of a grid lies in the layout's ``D_c`` (one LP) exactly when the
session's ``T_c`` contains it (well inside or well outside, points within 1e-6 of a boundary are
skipped); and the layout's answers do not depend on the units. A system with task equalities
is refused (one line naming the constraints).
"""


import numpy as np
import pytest

from _support.paths import ROOT
from _support.units import random_system, rewrite
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file, parse_system
from contactmodes.realtime.plan import StepCounters, Structure, domain_lp_rows, terms_of
from contactmodes.modes.enumeration import acceleration_feasible
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.analysis.session import AnalysisSession
from polytopes import lp

EXAMPLES = ["two_link_brace", "six_link_brace", "painleve_rod", "table_two_legs", "rhex_flip_start"]


def _layout_answers(system):
    """(modes, per-mode (consistent, n_w, rank of (31)), responses, domains, terms, layout)."""
    terms = terms_of(system)
    st = Structure.of(system)
    pattern = classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts)
    lay = st.layout(pattern)
    banks = st.banks(terms)
    feasible = lay.kinematic(banks)
    idx = np.flatnonzero(feasible)
    resp = lay.responses(banks, idx, st.objective(qdd=np.eye(system.n_q)[0]))
    dom = lay.domains(banks, resp)
    modes = [lay.modes[i] for i in idx]
    flags = {m: (bool(resp.consistent[j]), int(resp.n_w[j]), int(resp.cvalid[j].sum())) for j, m in enumerate(modes)}
    return modes, flags, resp, dom, terms, lay


def _in_layout_T(resp, dom, j, tau, task=False):
    """Whether the scaled torque ``tau`` lies in the layout's ``T_c`` of entry ``j`` (one LP over w)."""
    nt = resp.P.shape[2]
    if not resp.consistent[j]:
        return False
    rows = dom.valid[j] & (task | ~dom.task[j])
    A, b = dom.A[j][rows], dom.b[j][rows]
    C, d = resp.C[j][resp.cvalid[j]], resp.d[j][resp.cvalid[j]]
    if np.abs(C @ tau - d).max(initial=0.0) > 1e-9 * max(1.0, float(np.abs(tau).max())):
        return False
    wf = resp.wfree[j]
    Aw = A[:, nt:][:, wf]
    rhs = b - A[:, :nt] @ tau
    if Aw.shape[1] == 0:
        return bool(np.all(rhs >= -1e-9))
    st, _, _ = lp.solve(np.zeros(Aw.shape[1]), Aw, rhs)
    return st == lp.OPTIMAL


def _compare(system):
    if any(c.kind == "task" and c.type == "eq" for c in system.constraints):
        with pytest.raises(ContactModelError, match="task equalities"):
            Structure.of(system)
        return None, None
    ses = AnalysisSession(system)
    modes, flags, resp, dom, terms, lay = _layout_answers(system)
    assert modes == [m for m in lay.modes if acceleration_feasible(system, m)]
    assert modes == list(ses.enumeration.modes)
    rng = np.random.default_rng(3)
    for j, m in enumerate(modes):
        sol = ses.mode(m)
        r = sol.response_scaled(False)
        assert flags[m] == (r.consistent, r.n_w, r.tau_C.shape[0]), m
        T = sol.T_scaled(False)
        if T is None:
            continue
        lo, hi = T.bounding_box()
        lo = np.where(np.isfinite(lo), lo, np.where(np.isfinite(hi), hi - 3.0, -3.0))
        hi = np.where(np.isfinite(hi), hi, lo + 6.0)
        pts = rng.uniform(lo - 0.5 * (hi - lo) - 0.1, hi + 0.5 * (hi - lo) + 0.1, size=(12, T.dim))
        pts = np.vstack([pts, T.chebyshev_center().center[None]])
        for tau in pts:
            inside, outside = T.contains(tau, -1e-6), not T.contains(tau, 1e-6)
            if inside or outside:
                assert _in_layout_T(resp, dom, j, tau) == inside, (m, tau)
    return modes, flags


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_match_session(name):
    _compare(load_system_file(ROOT / "examples" / f"{name}.toml").system)


@pytest.mark.parametrize("seed", range(8))
def test_random_mechanisms_match_session_in_any_units(seed):
    doc = random_system(seed)
    modes, flags = _compare(parse_system(doc).system)
    if modes is None:
        return
    mm_g, _ = rewrite(doc, 1e3, 1e3)
    assert _layout_answers(parse_system(mm_g).system)[:2] == (modes, flags)


@pytest.mark.parametrize("case", EXAMPLES + [f"random{seed}" for seed in range(8)])
def test_compiled_responses_equal_numpy_reference(case):
    """The compiled responses and domains (``contactmodes.realtime.kernels``) against the NumPy
    path of ``Layout.responses`` and ``Layout.domains`` on every Table III candidate
    (feasible or not): the same certified decisions, the same ``P``, ``Q``, ``r`` (1e-12
    relative), the same admissible set (31) (the projector ``CᵀC`` and ``Cᵀd`` of the orthonormal
    rows, signs of the rows aside), the same rows (33) and the same cancelled entries."""
    system = (load_system_file(ROOT / "examples" / f"{case}.toml").system if not case.startswith("random")
              else parse_system(random_system(int(case[6:]))).system)
    if any(c.kind == "task" and c.type == "eq" for c in system.constraints):
        return
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    idx = np.arange(len(lay.modes))
    first = st.objective(qdd=np.eye(system.n_q)[0])
    a = lay.responses(banks, idx, first, kernel="numpy")
    b = lay.responses(banks, idx, first, kernel="compiled")
    for f in ("consistent", "unique", "n_w", "certified", "wfree", "cvalid"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    for f in ("P", "Q", "r"):
        x, y = getattr(a, f), getattr(b, f)
        assert np.allclose(x, y, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(x).max(initial=0.0)))), f
    CtCa = np.einsum("bki,bkj->bij", a.C * a.cvalid[:, :, None], a.C * a.cvalid[:, :, None])
    CtCb = np.einsum("bki,bkj->bij", b.C * b.cvalid[:, :, None], b.C * b.cvalid[:, :, None])
    assert np.allclose(CtCa, CtCb, atol=1e-10)
    assert np.allclose(np.einsum("bki,bk->bi", a.C, a.d * a.cvalid), np.einsum("bki,bk->bi", b.C, b.d * b.cvalid),
                       atol=1e-10 * max(1.0, float(np.abs(a.d).max(initial=0.0))))
    da, db = lay.domains(banks, a, kernel="numpy"), lay.domains(banks, a, kernel="compiled")
    for f in ("task", "valid", "unit"):
        assert np.array_equal(getattr(da, f), getattr(db, f)), f
    assert np.allclose(da.A, db.A, rtol=1e-12, atol=1e-13) and np.allclose(da.b, db.b, rtol=1e-12, atol=1e-13)
    assert np.array_equal(da.A == 0.0, db.A == 0.0) and np.array_equal(da.b == 0.0, db.b == 0.0)  # cancellations
    # the kinematic test: the compiled rows, simplex and decisions against the NumPy reference
    fresh = Structure.of(system).layout(lay.pattern)  # cold, as lay
    assert np.array_equal(fresh.kinematic(banks, kernel="numpy"), lay.kinematic(banks, kernel="compiled"))
    # the bound-LP rows over D_c ∩ box (domain_lp_rows): the compiled assembly is the NumPy one exactly
    nt = a.C.shape[1]
    sel = idx[::2][::-1]  # a subset, out of order
    rng_cost = np.array([1.0, -0.5, 0.25, 0.125])
    lo, hi = -np.arange(1.0, nt + 1.0), np.arange(2.0, nt + 2.0)
    narrow = int(a.n_w[sel].max(initial=0))
    for task in (True, False):
        for width in (None, narrow):
            x = domain_lp_rows(a, da, sel, lo, hi, task, kernel="numpy", width=width)
            y = domain_lp_rows(a, da, sel, lo, hi, task, kernel="compiled", width=width)
            for u, v in zip(x, y):
                assert u.shape == v.shape and u.dtype == v.dtype and np.array_equal(u, v)
        # task rows dropped as 0 <= 1 exactly when asked; the w box only on the real ambiguity columns
        x = domain_lp_rows(a, da, sel, lo, hi, task, kernel="numpy")
        p = da.A.shape[1]
        assert np.array_equal(x[1][:, :p] == 1.0, np.where(da.task[sel], not task, da.b[sel] == 1.0))
        assert np.array_equal(x[4][:, nt:], np.arange(x[4].shape[1] - nt) < a.n_w[sel][:, None])  # real w first
        assert np.all(x[2][:, :nt] == lo)
        # the narrow LPs are the same LPs: the same optimal values (HiGHS on the full width)
        z = domain_lp_rows(a, da, sel, lo, hi, task, width=narrow)
        assert z[0].shape[2] == nt + narrow and np.array_equal(np.sum(z[4], axis=1), a.n_w[sel])
        for k in range(min(sel.size, 6)):
            g = rng_cost[:nt]
            want = lp.solve_verified(np.concatenate([g, np.zeros(x[0].shape[2] - nt)]), x[0][k], x[1][k],
                                     bounds=list(zip(x[2][k], x[3][k])))
            got = lp.solve_verified(np.concatenate([g, np.zeros(narrow)]), z[0][k], z[1][k],
                                    bounds=list(zip(z[2][k], z[3][k])))
            assert want.status == got.status
            if want.status == lp.OPTIMAL:
                assert abs(want.fun - got.fun) <= 1e-9 * max(1.0, abs(want.fun))
    with pytest.raises(ValueError, match="width"):
        domain_lp_rows(a, da, sel, lo, hi, width=narrow - 1 if narrow else -1)


def test_kinematic_second_solve_matches_definition_near_rest():
    """The first steps of the μ_t = 0.39 RHex flip after the at-rest start (113 and 112 candidate
    modes): kinematic LPs the first batched solve leaves undecided (their strict-slack optimum
    leans on the artificial box) are decided by the second, unit-box solve
    (``contactmodes.realtime.kinematic.unit_box``) for some modes; every decision, whichever
    solve took it, is the definition's (``acceleration_feasible`` on the
    session's system), also when the undecided candidates are resolved one at a time
    (``kinematic_test``)."""
    from controllers.rhex import RHexParams, simulate
    from controllers.rhex.max_thrust import MaxThrustController, StepModel

    p = RHexParams(mu_toe=0.39)
    run = simulate(MaxThrustController(p, precompute=False), p, duration=3 * p.control_period)
    second = 0
    for state in run.states[1:3]:
        step = StepModel(state, p)
        lay = Structure(6, 3, step.contacts, step.arrays.mu, [("task", "geq", 1)]).layout(step.pattern)
        banks = lay.structure.banks(step.terms)
        want = [acceleration_feasible(step.system, m) for m in lay.modes]
        for kernel in ("compiled", "numpy"):
            counters = StepCounters()
            lay.basis.clear()
            got = lay.kinematic(banks, counters, kernel=kernel)
            second += counters.second_solve_lps
            assert list(got) == want, kernel
            # in stages (Layout.kinematic_test): the undecided candidates resolved one at a time,
            # last first, give the same decisions
            lay.basis.clear()
            test = lay.kinematic_test(banks, kernel=kernel)
            pending = test.pending()
            assert pending.size and not test.decided[pending].any()
            for i in pending[::-1]:
                test.resolve([i])
            assert test.decided.all() and list(test.feasible) == want, kernel
    assert second > 0


@pytest.mark.parametrize("seed", range(12))
def test_compiled_scaling_equals_the_rule(seed):
    """``layout.scaled_terms`` (one compiled call) against the rule itself
    (``contactmodes.model.scaling.scale_terms``) on random mechanisms with constraint rows, in SI and
    in millimetres and grams, and with two stacked blocks: the same numbers, bit for bit."""
    from contactmodes.realtime.plan import scaled_terms
    from contactmodes.model.scaling import scale_terms

    doc = random_system(seed)
    for text in (doc, rewrite(doc, 1e3, 1e3)[0]):
        sy = parse_system(text).system
        blocks = [(c.qdd, c.f, c.tau, c.rhs) for c in sy.constraints]
        rng = np.random.default_rng(seed)
        extra = (rng.normal(size=(2, sy.n_q)), np.zeros((2, 2 * sy.k)), rng.normal(size=(2, sy.n_tau)),
                 np.array([0.0, 3.0]))
        for bl in (blocks, blocks + [extra]):
            args = (sy.M, sy.h, sy.S, sy.J, sy.Jdot_qdot, sy.v_contact, sy.v0, sy.scales, bl)
            a, b = scale_terms(*args), scaled_terms(*args, kernel="compiled")
            for name, x, y in zip(a._fields, a, b):
                if name in ("blocks", "rows"):
                    assert len(x) == len(y) == len(bl)
                    for u, v in zip(x, y):
                        for uu, vv in zip(u if name == "blocks" else (u,), v if name == "blocks" else (v,)):
                            assert np.array_equal(uu, vv), name
                else:
                    assert np.array_equal(x, y), name


def _sorted_rows(M):
    M = np.round(np.asarray(M, dtype=float), 12) + 0.0
    return M[np.lexsort(M.T[::-1])] if len(M) else M


@pytest.mark.parametrize("seed", range(8))
def test_equation_bank_rows_equal_layout_rows(seed):
    """The session's equation bank (``contactmodes.modes.constraints.EquationBank``, rows stacked per
    mode in the order of eqs. 24 and 32) and the layout's row banks (``Structure.banks``
    indexed by ``Layout.eq_rows`` / ``geq_rows``: contact-interleaved, assembled by other
    code) give every Table III candidate the same equality rows ``[A | B | b]`` and inequality
    rows ``[N | e]`` as sets, on random mechanisms without task equalities (scaled system)."""
    from contactmodes.modes.constraints import EquationBank

    system = parse_system(random_system(100 + seed)).system
    if any(c.kind == "task" and c.type == "eq" for c in system.constraints):
        pytest.skip("task equalities: no layout")
    scaled = system.scaling.system
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    bank = EquationBank(scaled, task=True, task_geq=True)
    for i, mode in enumerate(lay.modes):
        eqs = bank.equations(mode)
        rows = lay.eq_rows[i]
        mine = np.hstack([eqs.A, eqs.B, eqs.b[:, None]])
        theirs = np.hstack([banks.A[rows], banks.B[rows], banks.b[rows][:, None]])
        np.testing.assert_allclose(_sorted_rows(mine), _sorted_rows(theirs), atol=1e-12)
        g = lay.geq_rows[i][lay.geq_valid[i]]
        mine = np.hstack([eqs.N, eqs.e[:, None]])
        theirs = np.hstack([banks.N[g], banks.e[g][:, None]])
        np.testing.assert_allclose(_sorted_rows(mine), _sorted_rows(theirs), atol=1e-12)
        assert int(eqs.ineq_task.sum()) == int(lay.geq_task[i][lay.geq_valid[i]].sum())


@pytest.mark.parametrize("name", ["two_link_brace", "table_two_legs", "rhex_flip_start"])
def test_objective_gradient_and_offset(name):
    """``Responses.grad``/``offset`` are ``c_xᵀP + c_τ`` and ``c_xᵀr`` for objectives with one
    term (positive or negative, on ``q̈``, ``f`` or ``τ``) and several terms; uniqueness does
    not depend on the τ part or on a positive scale."""
    system = load_system_file(ROOT / "examples" / f"{name}.toml").system
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    idx = np.arange(len(lay.modes))
    n, nt = st.n, st.n_tau
    rng = np.random.default_rng(5)
    objectives = [np.eye(n + nt)[j] * s for j in (0, n - 1, n + nt - 1) for s in (1.0, -2.0)]
    objectives += [rng.normal(size=n + nt) for _ in range(3)]
    base = lay.responses(banks, idx, np.eye(n + nt)[0])
    for c in objectives:
        r = lay.responses(banks, idx, c)
        assert np.allclose(r.grad, np.einsum("a,bat->bt", c[:n], r.P) + c[n:], rtol=0, atol=1e-12)
        assert np.allclose(r.offset, np.einsum("a,ba->b", c[:n], r.r), rtol=0, atol=1e-12)
        r2 = lay.responses(banks, idx, 3.0 * c + np.concatenate([np.zeros(n), rng.normal(size=nt)]))
        assert np.array_equal(r.unique, lay.responses(banks, idx, 3.0 * c).unique)
        assert np.array_equal(r2.unique, r.unique)
    assert np.array_equal(base.P, r.P)  # the responses do not depend on the objective
