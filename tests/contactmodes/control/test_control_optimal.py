"""``contactmodes.control``'s optimum checked by independent oracles on the examples.

For each case (an example, an objective, a limit box): the returned torque lies in the limits and
in the chosen mode's ``T_c`` (the ``(q̈, f)`` LP oracle of ``_support.oracle``), the objective and
the predicted ``q̈`` there are those the oracle finds among the mode's solutions; every mode's
supremum over ``T*_c ∩ L`` and optimum over ``T_c ∩ L`` equal per-mode ``linprog`` LPs over the
analysis's ``T*_c`` pieces and ``D_c`` (``_support.control_oracle``); no acceptable mode does
better; and no random torque of the box that the oracle finds guaranteed (strictly inside one
mode's ``T_c`` only, no task row violable) beats the optimum.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.control_oracle import allowed_best, closure_best, gradient, guaranteed_mode, objective_range
from _support.oracle import all_modes, kinematically_ok, oracle_slack
from _support.paths import EXAMPLES

import contactmodes as cm
from contactmodes.control.objective import objective_for

#: (id, example, sense, objective, limits {actuator: (lo, hi)}, expected status, samples)
CASES = [
    ("brace-theta1", "two_link_brace.toml", "maximize", "qdd.theta1", {"tau1": (-3.0, 3.0)}, "optimal", 60),
    ("brace-tau", "two_link_brace.toml", "minimize", "2*tau.tau1 - qdd.theta1/1000", {"tau1": (-3.0, 3.0)},
     "optimal", 60),
    ("table-x", "table_two_legs.toml", "maximize", "qdd.x", {"Fx": (-50.0, 50.0)}, "optimal", 60),
    ("table-mixed", "table_two_legs.toml", "minimize", "qdd.x - 0.1*tau.Fx + f.left.n", {"Fx": (-50.0, 50.0)},
     "optimal", 60),
    ("painleve-y", "painleve_rod.toml", "maximize", "qdd.y", {"M": (-10.0, 10.0)}, "ambiguous", 40),
    ("rhex-pitch", "rhex_flip_start.toml", "maximize", "qdd.theta",
     {"tau1": (-5.0, 5.0), "tau2": (-5.0, 5.0), "tau3": (-5.0, 5.0)}, "optimal", 25),
    ("rhex-pitch-15", "rhex_flip_start.toml", "maximize", "qdd.theta + 0.01*qdd.x",
     {"tau1": (-15.0, 15.0), "tau2": (-15.0, 15.0), "tau3": (-15.0, 15.0)}, "optimal", 25),
]


def _setup(example, sense, text, limits):
    path = EXAMPLES / example
    system = cm.load_system(path)
    obj = objective_for(system, text, sense)
    lo = np.array([limits[t][0] for t in system.torques])
    hi = np.array([limits[t][1] for t in system.torques])
    result = cm.control(path, **{sense: text}, limits={k: f"{a}:{b}" for k, (a, b) in limits.items()})
    return path, system, obj, lo, hi, result


def _scale(values) -> float:
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    return max([1.0] + finite)


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def case(request):
    name, example, sense, text, limits, status, samples = request.param
    path, system, obj, lo, hi, result = _setup(example, sense, text, limits)
    analysis = cm.analyze(path, unambiguous=True)
    kinematic = [m for m in all_modes(system.k) if kinematically_ok(system, m)]
    return dict(id=name, system=system, obj=obj, lo=lo, hi=hi, result=result, analysis=analysis, status=status,
                samples=samples, kinematic=kinematic)


def test_status_and_the_torque_in_the_limits_and_in_T_c(case):
    r, s, lo, hi = case["result"], case["system"], case["lo"], case["hi"]
    assert r.status == case["status"], r.message
    assert r.torque is not None and r.mode is not None
    span = float(np.max(hi - lo))
    assert np.all(r.torque >= lo - 1e-9 * span) and np.all(r.torque <= hi + 1e-9 * span)
    sigma = oracle_slack(s, r.mode, r.torque, task=r.task)
    assert sigma is not None and sigma > -1e-7
    assert r.unambiguous == (case["status"] == "optimal")


def test_objective_and_prediction_are_the_oracles(case):
    """At the torque, the oracle's range of ``J`` over the mode's solutions is one value, the
    reported objective; each predicted ``q̈`` is the oracle's unique value."""
    r, s, obj = case["result"], case["system"], case["obj"]
    c_x = np.concatenate([obj.qdd, obj.force])
    lo_v, hi_v = objective_range(s, r.mode, r.torque, c_x, task=r.task)
    tol = 1e-6 * _scale([lo_v, hi_v, r.objective])
    assert hi_v - lo_v <= tol
    assert r.objective == pytest.approx(lo_v + obj.tau @ r.torque, abs=tol)
    for i, (name, value) in enumerate(r.prediction["qdd"].items()):
        e = np.eye(s.n_q + 2 * s.k)[i]
        a, b = objective_range(s, r.mode, r.torque, e, task=r.task)
        if value is None:
            assert b - a > 1e-9 * _scale([a, b])
        else:
            assert value == pytest.approx(a, abs=1e-6 * _scale([a, b])) and b - a <= 1e-6 * _scale([a, b])


def test_every_mode_matches_the_per_mode_lps(case):
    """Each acceptable mode: ambiguous objective exactly when the oracle finds ``J`` not unique;
    otherwise its supremum over ``T*_c ∩ L`` and its optimum over ``T_c ∩ L`` are the LPs'."""
    r, s, obj, lo, hi, an = case["result"], case["system"], case["obj"], case["lo"], case["hi"], case["analysis"]
    sign = obj.sign
    c_x = np.concatenate([obj.qdd, obj.force])
    alts = {a.mode: a for a in r.alternatives}
    assert set(alts) == set(case["kinematic"]) == set(an.enumeration.modes)
    an.unambiguous_for(an.feasible_modes())
    checked = 0
    for m, a in alts.items():
        ma = an.modes[m]
        if not ma.feasible:
            assert a.status == "infeasible"
            continue
        g, g0, gw = gradient(ma, obj.qdd, obj.force, obj.tau)
        allowed = allowed_best(ma.D, sign * g, lo, hi)
        if allowed is None:
            assert a.status == "infeasible"
            continue
        # uniqueness by the (q̈, f) oracle at a torque of T_c ∩ L: the ambiguity-allowed optimizer
        # or, for a mode with an ambiguous objective, the LP's own optimizer is not needed: any
        # torque of the mode shows a range
        probe = a.allowed_torque if a.allowed_torque is not None else ma.T.chebyshev_center().center
        rng = objective_range(s, m, probe, c_x, task=True)
        unique = rng is not None and rng[1] - rng[0] <= 1e-7 * _scale(list(rng))
        if a.status == "ambiguous_objective":
            assert rng is not None and not unique
            continue
        assert unique, m
        scale = _scale([allowed, g0, float(np.abs(g).max()) * float(np.abs(np.r_[lo, hi]).max())])
        assert sign * a.allowed_objective == pytest.approx(allowed + sign * g0, abs=1e-6 * scale)
        best = closure_best(an.unambiguous[m].unambiguous, sign * g, lo, hi)
        if best is None:
            assert a.status == "ambiguous", m
        else:
            assert a.status == "optimal", m
            assert sign * a.supremum == pytest.approx(best + sign * g0, abs=1e-6 * scale), m
            checked += 1
    assert checked or case["status"] != "optimal"


def test_no_acceptable_mode_does_better(case):
    r, obj = case["result"], case["obj"]
    if r.status != "optimal":
        assert all(a.status != "optimal" for a in r.alternatives)
        return
    values = [obj.sign * a.supremum for a in r.alternatives if a.status == "optimal"]
    assert obj.sign * r.supremum >= max(values) - 1e-9 * _scale(values)
    assert r.allowed is not None and obj.sign * r.allowed.allowed_objective >= obj.sign * r.supremum - 1e-9 * _scale(
        [r.supremum])


def test_no_guaranteed_random_torque_beats_the_optimum(case):
    """Random torques of the box, decided by the ``(q̈, f)`` oracle alone."""
    r, s, obj, lo, hi = case["result"], case["system"], case["obj"], case["lo"], case["hi"]
    c_x = np.concatenate([obj.qdd, obj.force])
    rng = np.random.default_rng(24)
    samples = rng.uniform(lo, hi, size=(case["samples"], len(lo)))
    found = 0
    for tau in samples:
        m = guaranteed_mode(s, tau, case["kinematic"])
        if m is None:
            continue
        a, b = objective_range(s, m, tau, c_x)
        if b - a > 1e-7 * _scale([a, b]):
            continue  # ambiguous objective: not a candidate
        found += 1
        value = a + obj.tau @ tau
        assert r.status == "optimal", (m, tau)
        assert obj.sign * value <= obj.sign * r.supremum + 1e-6 * _scale([value, r.supremum])
    if case["status"] == "optimal" and case["samples"] >= 60:
        assert found, "no guaranteed sample: the check is vacuous"


def test_every_torque_is_guaranteed_within_the_margin_of_its_supremum(case):
    """Every mode's torque is the margin rule's (``contactmodes.control.margin``): one the
    ``(q̈, f)`` oracle finds guaranteed (strictly inside its ``T_c``, outside every other mode's),
    within the margin of the supremum point, so its objective lies between the supremum minus
    ``‖g‖·margin`` (``g`` the gradient in τ from the analysis's response) and the supremum, with a
    positive clearance no larger than half the margin (the rule's target)."""
    r, s, obj, an = case["result"], case["system"], case["obj"], case["analysis"]
    assert r.margin == pytest.approx(1e-3 * s.scales.mass * s.scales.length ** 2 / s.scales.time ** 2, rel=1e-12)
    optimal = [a for a in r.alternatives if a.status == "optimal"]
    assert bool(optimal) == (case["status"] == "optimal")
    for a in optimal:
        assert guaranteed_mode(s, a.torque, case["kinematic"]) == a.mode
        g, _, _ = gradient(an.modes[a.mode], obj.qdd, obj.force, obj.tau)
        tol = 1e-9 * _scale([a.supremum])
        assert obj.sign * a.objective <= obj.sign * a.supremum + tol
        assert obj.sign * a.objective >= obj.sign * a.supremum - float(np.linalg.norm(g)) * r.margin - tol
        assert 0.0 <= a.distance <= r.margin * (1 + 1e-12)
        assert 0.0 < a.clearance <= 0.5 * r.margin * (1 + 1e-12), a.mode
    if case["id"] == "rhex-pitch":  # FFFF's maximizer lies where a solution may break the body's 5 N row
        assert optimal[0].mode == "FFFF" and optimal[0].nudged and "task:0" in optimal[0].sources
