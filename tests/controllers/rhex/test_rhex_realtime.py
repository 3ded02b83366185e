"""The 1 kHz max-thrust controller against the slow reference, and its machinery.

(a) Whole flips at the defaults, μ_t = 0.39 and 0.6, with the real-time controller: motor limits
    at every step, no error, every step accounted to a path. The step's answer equals the
    ``unambiguous()``-based reference (``tests/_support/rhex_reference.py``: value, mode, torque in the
    optimal face and equal to the maximizer where unique, torque in the chosen mode's ``T*_c`` —
    so in no across-mode ambiguity set —, prediction) and its number of modes equals the
    session's enumeration, at the steps around every change of the step's structure (number of
    feasible modes, status, chosen mode; found from the flip's own log): the step before and the
    step of each change, for the changes where both steps have at most ``WINDOW_MODES`` feasible
    modes (the reference costs about 60–70 ms per mode, so the first ~60 steps, with 32–136
    modes, are not repeated in CI), and at the at-rest start (136 modes, precomputed).
    With ``CONTACTMODES_FULL_FLIP=1`` in the environment every step of both flips is compared
    (about 10 minutes on a 2-core machine; docs/realtime.md records the last run).
(b) The batched LP fast path against HiGHS (verified, without the artificial bounds) on the LPs
    of the same two flips (every call of a stride chosen to give more than 10⁴ LPs): same status,
    same optimal value; and the compiled LP kernel against the NumPy kernel on the same LPs.
(c) The blind controller's fixed-mode LP against the previous formulation (SciPy HiGHS on the
    SI domain rows, elastic fallback) at the steps of a blind flip, elastic steps included.
(d) The flip document's step-time statistics and path counts.
(e) Pending modes: resolving the kinematic LPs the batch leaves undecided only where the answer
    depends on them gives the answer of resolving them all first (near rest, and with every
    candidate forced pending).
"""

import os

import numpy as np
import pytest
from scipy.optimize import linprog

from _support.rhex_reference import assert_matches_reference
from contactmodes.analysis.domains import domain_inequalities
from contactmodes.modes.response import solve_response
from controllers.rhex import BlindController, RHexParams, initial_state, run_flip, simulate, torque_limits
from controllers.rhex.blind import max_thrust_fixed_mode
from controllers.rhex.max_thrust import MaxThrustController, StepModel, max_thrust
from controllers.rhex.rigid_model import PITCH_INDEX, rigid_model
from controllers.rhex.simulator import leg_kinematics
from polytopes import batchlp, lp

P39, P60 = RHexParams(mu_toe=0.39), RHexParams(mu_toe=0.6)
WINDOW_MODES = 16
FULL = os.environ.get("CONTACTMODES_FULL_FLIP") == "1"
N_HIGHS = 10_000


class _Recording:
    """The controller, recording each step's ``MaxThrustResult``."""

    def __init__(self, params):
        self.controller = MaxThrustController(params)
        self.results = []

    def __call__(self, t, state, params=None):
        out = self.controller(t, state, params)
        self.results.append(self.controller.last)
        return out


@pytest.fixture(scope="module")
def flips():
    """Both whole flips, with every batch of LPs the fast path solved (module doc (b))."""
    captured = []
    original = batchlp.simplex_batch

    def spy(c, G, h, lo, hi, artificial=None, basis=None, max_iter=None, kernel="auto", infeasible_tol=0.0):
        res = original(c, G, h, lo, hi, artificial, basis, max_iter, kernel, infeasible_tol)
        captured.append((np.array(c), np.array(G), np.array(h), np.array(lo), np.array(hi),
                         batchlp._artificial(artificial), res.status.copy(), res.fun.copy()))
        return res

    out = {}
    batchlp.simplex_batch = spy
    try:
        for p in (P39, P60):
            rec = _Recording(p)
            r = simulate(rec, p, duration=1.0)
            out[p.mu_toe] = (rec, r)
    finally:
        batchlp.simplex_batch = original
    out["lps"] = captured
    return out


def _limits(state, p):
    return torque_limits(leg_kinematics(state, p).phidot, p)


def _compared_steps(log):
    """Steps compared with the reference (module doc (a))."""
    if FULL:
        return list(range(len(log)))
    steps = set()
    for k in range(1, len(log)):
        a, b = log[k - 1], log[k]
        if (a.n_modes, a.status, a.mode) != (b.n_modes, b.status, b.mode) and \
                max(a.n_modes, b.n_modes) <= WINDOW_MODES:
            steps.update((k - 1, k))
    return sorted(steps)


@pytest.mark.slow
@pytest.mark.parametrize("mu", [0.39, 0.6])
def test_whole_flip_limits_and_statuses(flips, mu):
    rec, r = flips[mu]
    p = P39 if mu == 0.39 else P60
    c = rec.controller
    assert r.success and len(c.log) == len(r.commanded)
    for s, cmd in zip(r.states[:-1], r.commanded):
        lo, hi = _limits(s, p)
        assert np.all(cmd >= lo - 1e-9) and np.all(cmd <= hi + 1e-9)
    assert c.counts["error"] == 0 and c.counts["no_mode"] == 0 and not c.errors
    assert c.counts["optimal"] + c.counts["task_dropped"] == len(c.log)
    assert c.paths["precomputed"] == 1 and c.log[0].path == "precomputed"
    assert sum(c.paths[k] for k in ("fast", "slow", "fallback", "precomputed")) == len(c.log)


@pytest.mark.slow
@pytest.mark.parametrize("mu", [0.39, 0.6])
def test_whole_flip_windows_match_reference(flips, mu):
    rec, r = flips[mu]
    p = P39 if mu == 0.39 else P60
    steps = _compared_steps(rec.controller.log)
    assert FULL or len(steps) >= 8, steps  # toes lifting, the rear toe sticking, the task dropped, the end
    seen = set()
    for k in steps:
        state = r.states[k]
        lo, hi = _limits(state, p)
        step = StepModel(state, p)
        res = rec.results[k]
        n_enum = len(step.session.enumeration.modes)
        assert res.n_modes <= n_enum <= res.n_modes + res.n_pending, (mu, k)
        if res.n_pending:  # near rest: the pending modes resolved, the count is the enumeration's
            assert max_thrust(step, lo, hi, lazy=False).n_modes == n_enum, (mu, k)
        assert_matches_reference(step, lo, hi, res, f"mu={mu} step {k}", margin=rec.controller.margin)
        seen.add(res.status)
    assert "task_dropped" in seen  # the compared steps include steps without the task


@pytest.mark.slow
def test_precomputed_start_matches_reference(flips):
    rec, r = flips[0.39]
    p = P39
    state = initial_state(p)
    assert np.array_equal(r.states[0], state)
    lo, hi = _limits(state, p)
    c = rec.controller
    assert c.log[0].path == "precomputed" and rec.results[0].n_modes == 136
    step = StepModel(state, p)
    assert len(step.session.enumeration.modes) == 136
    assert_matches_reference(step, lo, hi, rec.results[0], "at-rest start", margin=c.margin)
    assert np.array_equal(r.commanded[0], np.clip(rec.results[0].tau, lo, hi))


def test_dry_run_prebuilds_the_start_and_changes_no_answer():
    """The constructor's dry run (``PRECOMPUTE_STEPS`` periods from the at-rest start) builds every
    layout the first steps of the flip need, and the run's answers are those of a controller
    without any precomputation (the same modes and statuses, torques within 1e-9 N·m)."""
    n = 12
    fast = MaxThrustController(P60)
    built = sum(len(st.layouts) for st in fast.engine.structures.values())
    plain = MaxThrustController(P60, precompute=False)
    ra = simulate(fast, P60, duration=n * P60.control_period)
    rb = simulate(plain, P60, duration=n * P60.control_period)
    assert sum(len(st.layouts) for st in fast.engine.structures.values()) == built
    assert [(r.mode, r.status, r.n_modes) for r in fast.log] == [(r.mode, r.status, r.n_modes) for r in plain.log]
    assert np.allclose(ra.commanded, rb.commanded, rtol=0.0, atol=1e-9)
    assert fast.log[0].path == "precomputed" and plain.log[0].path != "precomputed"
    assert len(fast.log) == n and fast.paths["precomputed"] == 1


def _same_answer(lazy, eager, where):
    """The lazy and the eager answer of one state are the same, bit for bit."""
    key = ("mode", "mode4", "status", "nudged", "value", "closure_value", "values", "n_examined", "n_slow")
    assert [getattr(lazy, k) for k in key] == [getattr(eager, k) for k in key], where
    assert np.array_equal(lazy.tau, eager.tau), where
    assert all(eager.bounds[m] == b for m, b in lazy.bounds.items()), where
    assert eager.n_pending == 0 and lazy.n_modes <= eager.n_modes <= lazy.n_modes + lazy.n_pending, where
    assert lazy.n_slow == 0 or lazy.n_pending == 0, where  # the slow path uses the whole mode set


def test_lazy_kinematic_resolution_equals_resolving_every_mode_first(monkeypatch):
    """Pending modes (``controllers.generic.search._Modes``): the kinematic LPs the batch leaves undecided are
    resolved only where the answer depends on them; the answer equals the one with every mode
    decided before the search (``lazy=False``, each on a fresh engine), and the eager count of
    modes is the session's enumeration (the definition). (1) The first computed steps of both
    default flips (near rest: 112–120 modes, 8–9 pending): the same answer, and the lazy steps
    leave pending modes without any exact LP. (2) Every candidate forced pending (the batch
    decides nothing), near rest and at legs-back states where the point test finds the maximizer
    in other modes' ``T_c`` and the slow path runs: the same answer with and without
    ``force_slow``."""
    from contactmodes.realtime import plan as layout
    from _support.rhex_reference import LEGACY

    near_rest = []
    for p in (P39, P60):
        r = simulate(MaxThrustController(p, precompute=False), p, duration=3 * p.control_period)
        near_rest += [(p, s) for s in r.states[1:3]]
    skipped = 0
    for i, (p, state) in enumerate(near_rest):
        lo, hi = _limits(state, p)
        step = StepModel(state, p)
        lazy, eager = max_thrust(step, lo, hi), max_thrust(step, lo, hi, lazy=False)
        _same_answer(lazy, eager, f"near rest {i}")
        assert eager.n_modes == len(step.session.enumeration.modes)
        skipped += lazy.n_pending > 0 and lazy.lp_fallbacks < eager.lp_fallbacks
    assert skipped >= 3

    p2 = RHexParams(mu_toe=0.39, **LEGACY)
    r2 = simulate(MaxThrustController(p2), p2, duration=0.006, initial_state=initial_state(p2, legs="back"))
    real_test, real_resolve = layout.Layout.kinematic_test, layout.KinematicTest.resolve
    victim = [None]

    def nothing_decided(self, *args, **kwargs):
        test = real_test(self, *args, **kwargs)
        test.decided[:] = False
        return test

    def resolve_without_victim(self, index):  # the real decisions, but the victim declared infeasible
        real_resolve(self, index)
        self.feasible[[i for i, m in enumerate(self.layout.modes) if m == victim[0]]] = False
        return self.feasible[np.asarray(index, dtype=np.int64)]

    monkeypatch.setattr(layout.Layout, "kinematic_test", nothing_decided)
    monkeypatch.setattr(layout.KinematicTest, "resolve", resolve_without_victim)
    slow = 0
    for i, (p, state) in enumerate(near_rest[:2] + [(p2, s) for s in r2.states[4:6]]):
        lo, hi = _limits(state, p)
        victim[0] = None
        for force_slow in (False, True):
            lazy = max_thrust(StepModel(state, p), lo, hi, force_slow)
            eager = max_thrust(StepModel(state, p), lo, hi, force_slow, lazy=False)
            _same_answer(lazy, eager, f"forced pending {i} {force_slow}")
            # a step past the point test: through the slow path or settled by a certificate
            # (with pending holders: certify.settle's ``known``)
            slow += (lazy.n_slow > 0 or bool(lazy.settled)) and not force_slow
            if i < 2 and not force_slow:  # near rest: the fast path needed only some of them
                assert lazy.n_slow == 0 and lazy.n_pending > 0
        # the best mode declared kinematically infeasible: a pending top candidate must be dropped
        victim[0] = eager.mode
        lazy = max_thrust(StepModel(state, p), lo, hi)
        eager = max_thrust(StepModel(state, p), lo, hi, lazy=False)
        assert eager.mode != victim[0]
        _same_answer(lazy, eager, f"forced pending {i}, {victim[0]} infeasible")
    assert slow >= 1


@pytest.mark.slow
def test_batch_lp_matches_highs_on_captured_lps(flips):
    """LPs the fast path solved in both flips, re-solved by HiGHS (``polytopes.lp.solve_verified``)
    without the artificial bounds: a decided status must be HiGHS's, an optimal value must be
    HiGHS's (relative 1e-7 of the terms)."""
    captured = flips["lps"]
    total = sum(c.shape[0] for c, *_ in captured)
    stride = max(1, total // (N_HIGHS + N_HIGHS // 5))
    n = decided = 0
    statuses = {lp.OPTIMAL: 0, lp.INFEASIBLE: 0, batchlp.UNDECIDED: 0}
    for c, G, h, lo, hi, (alo, ahi), status, fun in captured[::stride]:
        for b in range(c.shape[0]):
            n += 1
            statuses[int(status[b])] += 1
            if status[b] == batchlp.UNDECIDED:
                continue
            decided += 1
            bounds = [(None if alo is not None and alo[b, j] else lo[b, j],
                       None if ahi is not None and ahi[b, j] else hi[b, j]) for j in range(c.shape[1])]
            ref = lp.solve_verified(c[b], G[b], h[b], bounds=bounds, solver="highs")
            assert ref.status == status[b], (b, ref.status, status[b])
            if ref.status == lp.OPTIMAL:
                size = max(1.0, abs(ref.fun), float(np.abs(c[b]).max()) * float(np.abs(ref.x).max()))
                assert abs(ref.fun - fun[b]) <= 1e-7 * size, (ref.fun, fun[b])
    assert n >= N_HIGHS, (n, total, stride)
    assert statuses[lp.OPTIMAL] > 5000 and statuses[lp.INFEASIBLE] > 500, statuses
    assert decided >= 0.98 * n, statuses  # the fallback is the exception


@pytest.mark.slow
def test_compiled_lp_kernel_matches_numpy_on_captured_lps(flips):
    """The compiled kernel (``polytopes.batchlp_kernel``, used by the flips) against the NumPy
    kernel of ``polytopes.batchlp`` on the captured batches, both from a cold start: the same
    status for every LP, the same optimal value (relative 1e-9), and the warm-started answers of
    the flips (the captured status) equal to the cold ones where both decided."""
    captured = flips["lps"]
    n = 0
    for c, G, h, lo, hi, art, status, fun in captured[::max(1, len(captured) // 400)]:
        a = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="numpy")
        b = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="compiled")
        assert np.array_equal(a.status, b.status)
        o = a.status == lp.OPTIMAL
        assert np.all(np.abs(a.fun[o] - b.fun[o]) <= 1e-9 * np.maximum(1.0, np.abs(a.fun[o])))
        both = (status != batchlp.UNDECIDED) & (b.status != batchlp.UNDECIDED)
        assert np.array_equal(status[both], b.status[both])
        n += c.shape[0]
    assert n >= 2000, n


def _previous_fixed_mode(model, mode4, lo, hi):
    """The blind LP as it was solved before the real-time machinery: SciPy HiGHS on the SI
    domain rows (33) of the mode's response, elastic LP with ρ = 1e3 per SI unit of violation."""
    letters = dict(zip(("body", "toe1", "toe2", "toe3"), mode4))
    mode = "".join(letters[c] for c in model.contacts)
    resp = solve_response(model.system, mode, task=True)
    n_w = resp.n_w
    A, b, bad = domain_inequalities(resp)
    c = -np.concatenate([resp.P_q[PITCH_INDEX], resp.Q_q[PITCH_INDEX]])
    C = np.hstack([resp.tau_C, np.zeros((resp.tau_C.shape[0], n_w))]) if resp.tau_C.shape[0] else None
    d = resp.tau_d if C is not None else None
    bounds = [(lo[i], hi[i]) for i in range(3)] + [(None, None)] * n_w
    res = None if bad else linprog(c, A_ub=A if A.shape[0] else None, b_ub=b if A.shape[0] else None, A_eq=C,
                                   b_eq=d, bounds=bounds, method="highs")
    status = "optimal"
    if res is None or res.status != 0:
        status = "elastic"
        m = A.shape[0]
        res = linprog(np.concatenate([c, 1e3 * np.ones(m)]), A_ub=np.hstack([A, -np.eye(m)]), b_ub=b,
                      A_eq=None if C is None else np.hstack([C, np.zeros((C.shape[0], m))]), b_eq=d,
                      bounds=bounds + [(0, None)] * m, method="highs")
    z = res.x[:3 + n_w]
    return z[:3], float(-c @ z + resp.r_q[PITCH_INDEX]), status


def test_blind_lp_matches_previous_formulation():
    c = BlindController(P39)
    r = simulate(c, P39, duration=0.5)
    statuses = {}
    for k in list(range(0, 30, 3)) + list(range(320, len(c.log), 4)):
        t, mode4, acc, status = c.log[k]
        state = r.states[k]
        lo, hi = _limits(state, P39)
        assumed = c.mode if k * P39.control_period >= c.switch_time else "RRLL"
        tau0, acc0, st0 = _previous_fixed_mode(rigid_model(state, P39), assumed, lo, hi)
        tau1, acc1, st1 = max_thrust_fixed_mode(StepModel(state, P39, classify=False), assumed, lo, hi)
        assert st0 == st1 == status, (k, st0, st1, status)
        assert np.allclose(np.clip(tau1, lo, hi), r.commanded[k], atol=1e-9)
        assert np.allclose(tau0, tau1, atol=1e-6 * max(1.0, float(np.abs(tau0).max()))), (k, tau0, tau1)
        assert acc1 == pytest.approx(acc0, rel=1e-6, abs=1e-6)
        statuses[status] = statuses.get(status, 0) + 1
    assert statuses.get("elastic", 0) >= 3 and statuses.get("optimal", 0) >= 10, statuses


def test_flip_document_step_times_and_paths():
    doc = run_flip(P60, "max-thrust", duration=0.01, timeline=False)
    sm = doc["step_ms"]
    assert set(sm) == {"median", "p90", "p99", "max", "steps"}
    assert sm["steps"] == 9  # ten thrust steps, the at-rest start precomputed
    assert 0 < sm["median"] <= sm["p90"] <= sm["p99"] <= sm["max"]
    assert doc["median_step_ms"] == sm["median"] and doc["step_cpu_ms"]["steps"] == 9
    paths = doc["controller_paths"]
    assert paths["precomputed"] == 1 and paths["fast"] + paths["slow"] + paths["fallback"] == 9
    blind = run_flip(P60, "blind", duration=0.01, timeline=False)
    assert blind["step_ms"]["steps"] == 10 and blind["controller_paths"]["fast"] + \
        blind["controller_paths"]["fallback"] == 10


def test_fallback_counts_are_the_exact_solves_of_the_step(monkeypatch):
    """``paths["lp_fallbacks"]`` / ``["svd_fallbacks"]`` count what the step really handed to the
    exact solvers: the calls of ``polytopes.lp.solve_verified`` and of the SVD response
    (``contactmodes.modes.response.batched_responses``'s fallback) during the step (forced: the batched simplex leaves every third LP undecided, and
    every pivot certificate is refused)."""
    from contactmodes.modes import _pivot_response, response_kernels
    from contactmodes.modes import response as response_mod

    p = RHexParams(mu_toe=0.6)
    c = MaxThrustController(p, precompute=False)
    calls = {"lp": 0, "svd": 0, "depth": 0}
    real_lp, real_svd = lp.solve_verified, response_mod._svd_entry
    real_numpy, real_kernel = _pivot_response.pivot_responses, response_kernels.responses_kernel
    real_simplex = batchlp.simplex_batch

    def counting_lp(*args, **kwargs):
        calls["lp"] += calls["depth"] == 0  # an exact solve may call itself: count the outer call
        calls["depth"] += 1
        try:
            return real_lp(*args, **kwargs)
        finally:
            calls["depth"] -= 1

    def lazy_simplex(*args, **kwargs):
        res = real_simplex(*args, **kwargs)
        res.status[::3] = batchlp.UNDECIDED
        return res

    def counting_svd(*args, **kwargs):
        calls["svd"] += 1
        return real_svd(*args, **kwargs)

    def refusing_numpy(*args, **kwargs):  # every pivot certificate refused (the last array: ok)
        out = real_numpy(*args, **kwargs)
        out[-1][:] = False
        return out

    def refusing_kernel(*args):
        real_kernel(*args)
        args[-1][:] = False

    monkeypatch.setattr(lp, "solve_verified", counting_lp)
    monkeypatch.setattr(response_mod, "_svd_entry", counting_svd)
    monkeypatch.setattr(_pivot_response, "pivot_responses", refusing_numpy)
    monkeypatch.setattr(response_kernels, "responses_kernel", refusing_kernel)
    monkeypatch.setattr(batchlp, "simplex_batch", lazy_simplex)
    c(0.0, initial_state(p))
    assert c.log[-1].path == "fallback" and c.log[-1].n_slow == 0
    assert calls["lp"] > 0 and calls["svd"] > 0
    assert c.paths["lp_fallbacks"] == calls["lp"] and c.paths["svd_fallbacks"] == calls["svd"]
