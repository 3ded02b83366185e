"""The 1 kHz max-thrust controller against the slow reference, and its machinery.

(a) Whole flips at the defaults, μ_t = 0.39 and 0.6, with the real-time controller: motor limits
    at every step, no error; at every step of windows around each change of the contact-mode
    structure (a toe lifting, the rear toe sticking, the task dropped and restored, the end of
    the flip) the step's answer equals the ``unambiguous()``-based reference
    (``tests/rhex_reference.py``: value, mode, torque in the optimal face and equal to the
    maximizer where unique, prediction) and its number of modes equals the session's
    enumeration; the precomputed at-rest start answer equals the reference (136 modes).
(b) The batched LP fast path against HiGHS on every LP of short max-thrust runs (more than
    10⁴ LPs): same status, same optimal value.
(c) The blind controller's fixed-mode LP against the previous formulation (SciPy HiGHS on the
    SI domain rows, elastic fallback) at the steps of a blind flip, elastic steps included.
(d) The flip document's step-time statistics and path counts.
"""

import numpy as np
import pytest
from scipy.optimize import linprog

from contactmodes.domains import domain_inequalities
from contactmodes.response import solve_response
from controllers.rhex import BlindController, RHexParams, initial_state, run_flip, simulate, torque_limits
from controllers.rhex.blind import max_thrust_fixed_mode
from controllers.rhex.max_thrust import MaxThrustController, StepModel
from controllers.rhex.rigid_model import PITCH_INDEX, rigid_model
from controllers.rhex.simulator import leg_kinematics
from polytopes import batchlp, lp
from rhex_reference import assert_matches_reference

P39, P60 = RHexParams(mu_toe=0.39), RHexParams(mu_toe=0.6)
# windows [a, b) of control steps around every change of the mode structure in the two flips
# (found from the flips' logs: number of modes, status and chosen mode change there)
WINDOWS = {0.39: [(84, 90), (323, 329), (439, 445), (462, 467)],
           0.6: [(86, 92), (259, 269), (309, 314)]}


class _Recording:
    """The controller, recording each step's :class:`MaxThrustResult`."""

    def __init__(self, params):
        self.controller = MaxThrustController(params)
        self.results = []

    def __call__(self, t, state, params=None):
        out = self.controller(t, state, params)
        self.results.append(self.controller.last)
        return out


@pytest.fixture(scope="module")
def flips():
    out = {}
    for p in (P39, P60):
        rec = _Recording(p)
        r = simulate(rec, p, duration=1.0)
        out[p.mu_toe] = (rec, r)
    return out


def _limits(state, p):
    return torque_limits(leg_kinematics(state, p).phidot, p)


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


@pytest.mark.parametrize("mu", [0.39, 0.6])
def test_whole_flip_windows_match_reference(flips, mu):
    rec, r = flips[mu]
    p = P39 if mu == 0.39 else P60
    seen = set()
    for a, b in WINDOWS[mu]:
        for k in range(a, min(b, len(rec.results))):
            state = r.states[k]
            lo, hi = _limits(state, p)
            step = StepModel(state, p)
            res = rec.results[k]
            assert res.n_modes == len(step.session.enumeration.modes), (mu, k)
            assert_matches_reference(step, lo, hi, res, f"mu={mu} step {k}")
            seen.add(res.status)
    assert "task_dropped" in seen  # the windows include steps without the task (the end at 0.39)


def test_precomputed_start_matches_reference():
    p = P39
    c = MaxThrustController(p)
    state = initial_state(p)
    lo, hi = _limits(state, p)
    out = c(0.0, state, p)
    assert c.log[-1].path == "precomputed" and c.last.n_modes == 136
    step = StepModel(state, p)
    assert len(step.session.enumeration.modes) == 136
    assert_matches_reference(step, lo, hi, c.last, "at-rest start")
    assert np.array_equal(out.torque, c.last.tau)


def test_batch_lp_matches_highs_on_captured_lps(monkeypatch):
    """Every LP the fast path solved in short runs (steps 0–40 at μ_t 0.39 and 0.6, and 40 steps
    from 0.25 s at 0.6, where the task is dropped), re-solved by HiGHS without the artificial
    bounds: a decided status must be HiGHS's, an optimal value must be HiGHS's (relative 1e-7 of
    the terms, LP_DUAL_TOL)."""
    captured = []
    original = batchlp.simplex_batch

    def spy(c, G, h, lo, hi, artificial=None, basis=None, max_iter=None):
        res = original(c, G, h, lo, hi, artificial, basis, max_iter)
        captured.append((np.array(c), np.array(G), np.array(h), np.array(lo), np.array(hi),
                         batchlp._artificial(artificial), res.status.copy(), res.fun.copy()))
        return res

    monkeypatch.setattr(batchlp, "simplex_batch", spy)
    for p in (P39, P60):
        simulate(MaxThrustController(p), p, duration=0.04)
    late = simulate(MaxThrustController(P60, precompute=False), P60, duration=0.25).states[-1]
    simulate(MaxThrustController(P60, precompute=False), P60, duration=0.04, initial_state=late)
    monkeypatch.setattr(batchlp, "simplex_batch", original)
    n = decided = 0
    statuses = {lp.OPTIMAL: 0, lp.INFEASIBLE: 0, batchlp.UNDECIDED: 0}
    for c, G, h, lo, hi, (alo, ahi), status, fun in captured:
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
    assert n >= 10_000, n
    assert statuses[lp.OPTIMAL] > 5000 and statuses[lp.INFEASIBLE] > 500, statuses
    assert decided >= 0.98 * n, statuses  # the fallback is the exception


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
