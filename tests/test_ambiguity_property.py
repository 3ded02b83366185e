"""Property tests of the ambiguity sets against a direct LP oracle (tests/test_oracle.py).

On random small systems (1–2 contacts, 1–2 torques, sometimes a task row) and sampled torques:

(a) the number of modes whose ``T_c`` (no task) holds τ equals the number of kinematically
    feasible modes for which the oracle LP in ``(q̈, f)`` at that fixed τ finds a solution;
(b) if τ lies in ``T*_c`` (away from boundaries), then exactly one mode — ``c`` — has a solution
    at τ and no mode-``c`` solution violates a task row by more than a small ε (oracle LP with the
    negated row).

Samples within ``δ`` of a domain boundary or with an oracle slack within ``δ`` of zero are skipped
(the closure convention makes boundaries ambiguous by construction).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contactmodes.ambiguity import task_rows, unambiguous, untasked_domains
from contactmodes.system import LinearConstraint
from test_oracle import kinematically_ok, oracle_slack, random_system, t_margin

EPS = 1e-4  # violation a task row must exceed to count in (b)


def _system(seed: int):
    rng = np.random.default_rng(seed)
    k = 1 + seed % 2
    n_q = int(rng.integers(2, 4))
    n_tau = int(rng.integers(1, min(2, n_q) + 1))
    s = random_system(rng, n_q, n_tau, k)
    if seed % 3 == 0:  # a task row: keep contact 0 loaded, f_n0 >= 0.5
        f = np.zeros((1, 2 * k))
        f[0, 1] = 1.0
        task = LinearConstraint("task", "geq", np.zeros((1, n_q)), f, np.zeros((1, n_tau)), [0.5], "fn0")
        s = replace(s, constraints=(task,))
    return s, rng


def _classify(s, mode, tau, task):
    """True/False from the oracle, None when too close to call."""
    scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
    sigma = oracle_slack(s, mode, tau, task)
    if sigma is None:
        return False
    if np.isnan(sigma) or abs(sigma) <= 1e-6 * scale:
        return None
    return sigma > 0


def _near(T, tau, scale):
    margin, eq_res = t_margin(T, tau)
    return abs(margin) < 1e-6 * scale or 1e-9 * scale < eq_res < 1e-5 * scale


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 100_000))
def test_domain_count_equals_oracle_count(seed):
    s, rng = _system(seed)
    doms = untasked_domains(s)
    modes = [m for m in doms if kinematically_ok(s, m)]
    assert set(modes) == set(doms)
    for tau in rng.uniform(-15.0, 15.0, size=(6, s.n_tau)):
        scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
        if any(d.feasible and _near(d.T, tau, scale) for d in doms.values()):
            continue
        oracle = [_classify(s, m, tau, task=False) for m in modes]
        if None in oracle:
            continue
        ours = sum(bool(d.feasible and d.T.contains(tau)) for d in doms.values())
        assert ours == sum(oracle), f"seed {seed} tau {tau}"


def _violation_possible(s, mode, tau, row) -> bool:
    """Oracle: does mode ``mode`` at ``tau`` admit a solution violating ``row`` by more than EPS?"""
    blocks = [c for c in s.constraints if c.kind == "physical"]
    negs = [(-1.0, -row.rhs + EPS)] + ([(1.0, row.rhs + EPS)] if row.type == "eq" else [])
    for sign, rhs in negs:
        neg = LinearConstraint("task", "geq", sign * row.qdd[None, :], sign * row.f[None, :],
                               sign * row.tau[None, :], [rhs])
        if _classify(replace(s, constraints=tuple(blocks) + (neg,)), mode, tau, task=True):
            return True
    return False


def _check_unambiguous(seed: int) -> int:
    """Property (b) on one random system; returns the number of samples checked."""
    s, rng = _system(seed)
    others = untasked_domains(s)
    modes = list(others)
    checked = 0
    for mode in modes:
        res = unambiguous(s, mode, others=others)
        samples = [np.clip(p.chebyshev_center().center, -30, 30) for p in res.unambiguous]
        samples += list(rng.uniform(-15.0, 15.0, size=(3, s.n_tau))) if res.unambiguous else []
        for tau in samples:
            scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
            inside = [p for p in res.unambiguous
                      if t_margin(p, tau)[0] > 1e-6 * scale and t_margin(p, tau)[1] <= 1e-9 * scale]
            if not inside:
                continue
            # mode c with its task rows, every other mode without task rows (Fig. 4 ordering)
            oracle = {m: _classify(s, m, tau, task=(m == mode)) for m in modes}
            if None in oracle.values():
                continue
            with_solution = [m for m, ok in oracle.items() if ok]
            assert with_solution == [mode], f"seed {seed} {mode} tau {tau}: solutions in {with_solution}"
            for row in task_rows(s):
                assert not _violation_possible(s, mode, tau, row), f"seed {seed} {mode} tau {tau} row {row.label}"
            checked += 1
    return checked


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 100_000))
def test_unambiguous_torques_have_one_solution_mode_and_no_task_violation(seed):
    _check_unambiguous(seed)


def test_the_random_family_reaches_unambiguous_samples():
    """Guard against a vacuous property: fixed seeds (with and without task rows) give checks."""
    assert sum(_check_unambiguous(seed) for seed in range(12)) >= 5
