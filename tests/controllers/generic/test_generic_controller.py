"""``controllers.generic.UnambiguousOptimalController`` on systems other than RHex's controller model.

The answer is checked against an independent reference at each state: an ``AnalysisSession`` of
the mechanism's ``ContactSystem`` at the state (built by ``PlanarMechanism.contact_system``, in
user units, not the controller's scaled terms), ``contactmodes.analysis.ambiguity.unambiguous``
(``within_mode=False``) for every kinematically feasible mode whose objective is unique (its
``w``-coefficients zero on the SVD response's orthonormal null space), the pieces cut by the
torque box and one LP per piece for the objective. The controller's torque lies within the limits
and in the chosen mode's ``T_c``, its supremum (``closure_value``) is the reference's best (no
other mode's ``T*_c ∩ L`` does better), its value — the objective of the chosen mode's SVD response
at the torque — lies within ``‖g‖ · margin`` below it (the margin rule, ``contactmodes.control.margin``:
the torque lies within the margin of the supremum point; ``g`` the response's gradient in τ); a mode
filter restricts the choice to the allowed modes; and the answer does not depend on the units.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.generic_reference import VALUE_RTOL, reference_values
from _support.paths import EXAMPLES
from contactmodes.analysis.ambiguity import unambiguous
from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.objective import LinearObjective
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file
from controllers.generic import TorqueBox, UnambiguousOptimalController
from polytopes import Polytope, lp


def _objective(loaded, qdd=None, force=None, tau=None, sense="maximize"):
    s = loaded.system
    z = lambda n, v: np.zeros(n) if v is None else np.asarray(v, dtype=float)  # noqa: E731
    return LinearObjective(z(s.n_q, qdd), z(2 * s.k, force), z(s.n_tau, tau), sense)


def _reference(loaded, q, qdot, objective, lo, hi, accept=None):
    """``{mode: best J over T*_c ∩ L}`` and the session (``_support.generic_reference``) of the
    mechanism's system at the state."""
    system = loaded.mechanism.contact_system(q, qdot, constraints=loaded.system.constraints)
    return reference_values(system, objective, lo, hi, accept)


def _check(loaded, q, qdot, objective, lo, hi, modes=None, where=""):
    ctrl = UnambiguousOptimalController(loaded, objective, limits=(lo, hi), modes=modes)
    tau = ctrl(q, qdot)
    res = ctrl.last
    assert not ctrl.errors, ctrl.errors
    accept = None if modes is None else set(modes).__contains__
    values, ses = _reference(loaded, q, qdot, objective, lo, hi, accept)
    sign = objective.sign
    best = max((sign * v for v in values.values()), default=-math.inf)  # in "maximize" terms
    if not math.isfinite(best):
        assert res.status in ("ambiguous", "no_mode_zero"), where  # a first step: nothing to hold
        return res, values
    assert res.status == "optimal", (where, res.status)
    tol = VALUE_RTOL * max(1.0, abs(best))
    assert np.all(tau >= lo - 1e-9) and np.all(tau <= hi + 1e-9), where
    assert res.mode in values and (accept is None or accept(res.mode)), (where, res.mode)
    T = ses.mode(res.mode).T(True)
    assert T is not None and T.contains(tau, 1e-6 * max(1.0, float(np.abs(tau).max()))), where
    assert abs(sign * res.closure_value - best) <= tol, (where, res.closure_value, values)
    assert all(sign * v <= sign * res.closure_value + tol for v in values.values()), (where, values)
    r = ses.mode(res.mode).response(True)
    J = objective.qdd @ (r.P_q @ tau + r.r_q) + objective.force @ (r.P_f @ tau + r.r_f) + objective.tau @ tau
    assert abs(J - res.value) <= tol, where
    g = objective.qdd @ r.P_q + objective.force @ r.P_f + objective.tau  # J's gradient in τ (user units)
    give = float(np.linalg.norm(g / ctrl.lengths)) * ctrl.margin  # ‖Δτ · lengths‖ <= margin
    assert sign * res.closure_value - give - tol <= sign * res.value <= sign * res.closure_value + tol, where
    return res, values


CASES = [
    ("table_two_legs", dict(force=[0, 1, 0, 0]), (-2.0, 2.0), None),  # the left foot's normal force (FF: force-only w)
    ("table_two_legs", dict(force=[1, 0, 0, 0], sense="minimize"), (-2.0, 2.0), None),  # a tangential force
    ("table_two_legs", dict(force=[0, 1, 0, 0]), (-2.0, 2.0), (0.4, 0.0, 0.0)),  # sliding
    ("two_link_brace", dict(force=[0, 1, 0, 0, 0, 0]), (-2.0, 2.0), None),
    ("two_link_brace", dict(tau=[1.0], sense="minimize"), (-2.0, 2.0), None),
    ("two_link_brace", dict(qdd=[0, 0, 1, 0]), (-0.5, 0.3), None),
    ("painleve_rod", dict(qdd=[1, 0, 0]), (-5.0, 5.0), None),
    ("painleve_rod", dict(force=[0, 1], sense="minimize"), (-5.0, 5.0), None),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_torque_is_the_reference_optimum(case):
    name, obj, (a, b), qdot = CASES[case]
    loaded = load_system_file(EXAMPLES / f"{name}.toml")
    n_tau = loaded.system.n_tau
    qd = loaded.qdot if qdot is None else np.asarray(qdot, dtype=float)
    _check(loaded, loaded.q, qd, _objective(loaded, **obj), np.full(n_tau, a), np.full(n_tau, b), where=str(case))


def test_a_mode_filter_restricts_the_choice():
    loaded = load_system_file(EXAMPLES / "two_link_brace.toml")
    obj = _objective(loaded, force=[0, 1, 0, 0, 0, 0])
    lo, hi = np.array([-2.0]), np.array([2.0])
    res, values = _check(loaded, loaded.q, loaded.qdot, obj, lo, hi, where="all")
    allowed = [m for m, v in values.items() if m != res.mode and math.isfinite(v)]
    assert allowed, values
    res2, _ = _check(loaded, loaded.q, loaded.qdot, obj, lo, hi, modes=allowed, where="filtered")
    assert res2.mode in allowed and res2.value <= res.value + 1e-9


@pytest.mark.slow
def test_rhex_flip_start_file():
    """The RHex rigid model of a system file (three hips, the task row ``f_n(body) >= 5 N``),
    maximize θ̈ at the file's state: the reference's best (every feasible mode projected)."""
    loaded = load_system_file(EXAMPLES / "rhex_flip_start.toml")
    theta = list(loaded.system.coordinates).index("theta")
    obj = _objective(loaded, qdd=np.eye(loaded.system.n_q)[theta])
    _check(loaded, loaded.q, loaded.qdot, obj, np.full(3, -10.0), np.full(3, 10.0), where="rhex file")


@pytest.mark.parametrize("seed", range(4))
def test_the_answer_does_not_depend_on_units(seed):
    """Random mechanisms (``_support.units.random_system``) in SI and in millimetres and grams,
    maximize ``θ̈`` (rad/s², the same in both) in the torque box ``±2 N·m``: the same status and
    mode, the torque scaled by the torque unit, the same value; and the SI answer is the
    reference's."""
    from _support.units import random_system, rewrite
    from contactmodes.system_file.loader import parse_system

    doc = random_system(seed)
    other, torque = rewrite(doc, 1e3, 1e3)
    a, b = parse_system(doc), parse_system(other)
    if any(c.kind == "task" and c.type == "eq" for c in a.system.constraints):
        pytest.skip("task equalities: not supported by the real-time plans")
    theta = list(a.system.coordinates).index("theta")
    n_tau = a.system.n_tau
    answers = []
    for loaded, unit in ((a, 1.0), (b, torque)):
        obj = _objective(loaded, qdd=np.eye(loaded.system.n_q)[theta])
        ctrl = UnambiguousOptimalController(loaded, obj, limits=(np.full(n_tau, -2.0 * unit), np.full(n_tau, 2.0 * unit)))
        tau = ctrl(loaded.q, loaded.qdot)
        assert not ctrl.errors, ctrl.errors
        answers.append((ctrl.last, tau / unit))
    (ra, ta), (rb, tb) = answers
    assert (ra.status, ra.mode) == (rb.status, rb.mode)
    assert np.allclose(ta, tb, rtol=1e-9, atol=1e-9)
    if math.isfinite(ra.value):
        assert math.isclose(ra.value, rb.value, rel_tol=1e-9, abs_tol=1e-9)
    obj = _objective(a, qdd=np.eye(a.system.n_q)[theta])
    _check(a, a.q, a.qdot, obj, np.full(n_tau, -2.0), np.full(n_tau, 2.0), where=f"seed {seed}")


def test_user_errors_are_one_line_naming_the_field():
    loaded = load_system_file(EXAMPLES / "table_two_legs.toml")
    good = _objective(loaded, force=[0, 1, 0, 0])
    with pytest.raises(ContactModelError, match="^limits: the controller needs a finite torque box"):
        UnambiguousOptimalController(loaded, good)
    with pytest.raises(ContactModelError, match=r"^objective\.force: expected 4 coefficients, got 2$"):
        UnambiguousOptimalController(loaded, LinearObjective(np.zeros(3), np.zeros(2), np.zeros(1)), limits=(-1, 1))
    with pytest.raises(ContactModelError, match="^limits.hi: must be finite"):
        UnambiguousOptimalController(loaded, good, limits=([-1.0], [np.inf]))
    with pytest.raises(ContactModelError, match="^limits: lo must not exceed hi"):
        UnambiguousOptimalController(loaded, good, limits=([1.0], [-1.0]))
    with pytest.raises(ContactModelError):
        UnambiguousOptimalController(loaded, good, limits=(-1, 1), modes=["FX"])
    with pytest.raises(ContactModelError, match="^system: expected a system file's path"):
        UnambiguousOptimalController(loaded.system, good, limits=(-1, 1))


def test_torque_speed_line_cuts_the_box():
    box = TorqueBox([-3.0, -3.0], [3.0, 1.0], tau_max=[2.0, 2.0], omega_0=[10.0, 10.0])
    lo, hi = box.at([5.0, 0.0])
    assert np.allclose(lo, [-1.0, -2.0]) and np.allclose(hi, [1.0, 1.0])
    lo, hi = box.at([20.0, -10.0])
    assert np.allclose(lo, 0.0) and np.allclose(hi, 0.0)


def test_records_and_step_statistics():
    loaded = load_system_file(EXAMPLES / "two_link_brace.toml")
    ctrl = UnambiguousOptimalController(loaded, _objective(loaded, force=[0, 1, 0, 0, 0, 0]), limits=([-2.0], [2.0]))
    for _ in range(3):
        ctrl(loaded.q, loaded.qdot)
    assert [r.t for r in ctrl.log] == [0.0, 1.0, 2.0]
    assert all(r.mode == ctrl.last.mode4 and r.status == "optimal" for r in ctrl.log)
    st = ctrl.stats()
    assert st["n"] == 3 and st["max"] >= st["p99"] >= st["median"] > 0.0
    assert ctrl.step_ms.shape == (3,) and sum(ctrl.paths[p] for p in ("fast", "slow", "fallback")) == 3


def test_a_lifted_contact_is_left_out():
    """The table tilted by 0.01 rad on its left foot: the right foot is 8 mm up, beyond the gap
    tolerance, so it is left out (``S`` in the logged mode) and the answer is the reference's on
    the one-contact system (built here from the mechanism's dynamics rows of the left foot)."""
    from contactmodes.model.system import ContactSystem

    loaded = load_system_file(EXAMPLES / "table_two_legs.toml")
    th = 0.01
    q = np.array([0.0, 0.4 * np.sin(th) + 0.5 * np.cos(th), th])
    qd = np.zeros(3)
    gaps = loaded.mechanism.contact_gaps(q)
    assert abs(gaps[0]) < 1e-12 and gaps[1] > 5e-3
    obj = _objective(loaded, qdd=[0, 0, 1])  # maximize the tilt acceleration
    ctrl = UnambiguousOptimalController(loaded, obj, limits=([-2.0], [2.0]))
    tau = ctrl(q, qd)
    res = ctrl.last
    assert res.status == "optimal" and len(res.mode) == 1 and res.mode4 == res.mode + "S"
    d, s = loaded.mechanism.dynamics(q, qd), loaded.system
    one = ContactSystem(M=d.M, h=d.h, S=s.S, J=d.J[:2], Jdot_qdot=d.Jdot_qdot[:2], v_contact=d.v_contact[:2],
                        mu=s.mu[:1], coordinates=s.coordinates, torques=s.torques, contacts=s.contacts[:1],
                        v0=s.v0[:1], scales=loaded.mechanism.characteristic_scales(q, qd))
    ses = AnalysisSession(one)
    best = -math.inf
    for m in ses.enumeration.modes:
        rs = ses.mode(m).response_scaled(True)
        if rs.n_w and np.abs(rs.Q_q[2]).max() > 1e-9:
            continue
        r = ses.mode(m).response(True)
        for P in unambiguous(ses, m, task=True, within_mode=False).unambiguous:
            K = P.intersect(Polytope.box(np.array([-2.0]), np.array([2.0])))
            st, x, _ = lp.solve(-r.P_q[2], K.A if K.n_ineq else None, K.b if K.n_ineq else None,
                                K.C if K.n_eq else None, K.d if K.n_eq else None)
            if st == lp.OPTIMAL:
                best = max(best, float(r.P_q[2] @ x + r.r_q[2]))
    assert abs(res.value - best) <= VALUE_RTOL * max(1.0, abs(best)) and -2.0 <= tau[0] <= 2.0


def test_a_single_term_objective_converts_as_the_general_rule():
    """``plan_objective``'s one-term shortcut gives the general rule's numbers (each part, both
    senses, a force of a contact left out), and the result is a unit vector."""
    from controllers.generic.search import ObjectivePlan, plan_objective
    from controllers.generic.step import MechanismStep

    loaded = load_system_file(EXAMPLES / "table_two_legs.toml")
    th = 0.01
    tilted = np.array([0.0, 0.4 * np.sin(th) + 0.5 * np.cos(th), th])
    for q in (loaded.q, tilted):
        step = MechanismStep(loaded.mechanism, loaded.system, q, np.zeros(3))
        for part, size in (("qdd", 3), ("force", 4), ("tau", 1)):
            for i in range(size):
                for coef, sense in ((2.5, "maximize"), (-0.3, "minimize")):
                    v = np.zeros(size)
                    v[i] = coef
                    obj = _objective(loaded, **{part: v}, sense=sense)
                    fast = ObjectivePlan(obj)
                    general = ObjectivePlan(obj)
                    general.single = None
                    (a, sa), (b, sb) = plan_objective(fast, step), plan_objective(general, step)
                    # equal numbers (the general rule's negation leaves signed zeros, -0.0 == 0.0)
                    assert fast.single is not None and np.array_equal(a, b) and sa == sb, (part, i, sense)
                    assert np.abs(a).max() in (0.0, 1.0)
