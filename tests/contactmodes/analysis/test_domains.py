"""Domains D_c, torque domains T_c and the full analysis on systems with hand-derived answers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from contactmodes.analysis.analyze import analyze
from contactmodes.analysis.session import mode_domain
from contactmodes.errors import ApproachingContactError, ContactModelError
from contactmodes.model.system import ContactSystem, LinearConstraint
from _support.systems import G_, M_, MU, point_between_floor_and_ceiling, point_on_ground

LIM = MU * M_ * G_  # 9.81 N: the largest horizontal force friction can hold


def table_two_legs():
    """Fig. 5 table: m = 2, I = 0.1, feet at (∓0.4, −0.5) from the COM, floor n = +y, μ = 0.5.

    Hand answer for mode FF with a horizontal force F_x at the COM: q̈ = 0 gives
    f_t1 + f_t2 = −F_x, f_n1 + f_n2 = m g and (moments about the COM) 0.4 (f_n2 − f_n1) = 0.5 F_x;
    friction needs |F_x| <= μ (f_n1 + f_n2) = μ m g = 9.81, non-negative normals need
    |F_x| <= m g / 1.25 = 15.7 (not active). So T_FF = [−9.81, 9.81], and the split of the
    tangential forces is free (w varies, forces only).
    """
    J = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.4], [1.0, 0.0, 0.5], [0.0, 1.0, 0.4]])
    return ContactSystem(
        M=np.diag([2.0, 2.0, 0.1]), h=[0.0, 2.0 * G_, 0.0], S=[[1.0], [0.0], [0.0]], J=J,
        Jdot_qdot=np.zeros(4), v_contact=np.zeros(4), mu=[MU, MU], coordinates=["x", "y", "theta"],
        torques=["Fx"], contacts=["left", "right"],
    )


def interval(T):
    lo, hi = T.bounding_box()
    return float(lo[0]), float(hi[0])


def test_point_at_rest_hand_domains():
    """(a): T_F = [−μmg, μmg], T_L = (−∞, −μmg], T_R = [μmg, ∞), T_S = ∅ (gravity)."""
    s = point_on_ground()
    F = mode_domain(s, "F")
    assert F.feasible and interval(F.T) == pytest.approx((-LIM, LIM), rel=1e-9)
    assert F.T.contains([0.0]) and F.T.contains([LIM * 0.999]) and not F.T.contains([LIM * 1.01])
    L = mode_domain(s, "L")
    lo, hi = interval(L.T)
    assert lo == -np.inf and hi == pytest.approx(-LIM, rel=1e-9)
    R = mode_domain(s, "R")
    lo, hi = interval(R.T)
    assert lo == pytest.approx(LIM, rel=1e-9) and hi == np.inf
    S = mode_domain(s, "S")
    assert not S.feasible and S.T is None
    assert set(F.timing) == {"response", "assemble", "reduce", "project"}


def test_point_moving_right_hand_domains():
    """(b): sliding right with v_t > 0: R holds for every τ (no acceleration sign constraint)."""
    res = analyze(point_on_ground(v=(1.0, 0.0)))
    assert list(res.modes) == ["S", "R"]
    R = res.modes["R"]
    assert R.feasible
    lo, hi = R.T.bounding_box()
    assert lo[0] == -np.inf and hi[0] == np.inf
    assert R.T.contains([1e3]) and R.T.contains([-1e3])
    assert not res.modes["S"].feasible
    assert res.overlaps == {}


def test_approaching_raises():
    """(c)."""
    with pytest.raises(ApproachingContactError, match="ground"):
        analyze(point_on_ground(v=(0.0, -1.0)))


def test_analysis_overlaps_and_json():
    res = analyze(point_on_ground())
    assert res.enumeration.total == 4 and res.enumeration.after_acceleration == 4
    assert res.feasible_modes() == ["F", "L", "R"]
    assert set(res.overlaps) == {("F", "L"), ("F", "R")}
    assert res.overlapping("F") == ["L", "R"]
    assert res.overlapping("L") == ["F"] and res.overlapping("S") == []
    # F ∩ L is the single torque −μ m g
    inter = res.overlaps[("F", "L")]
    assert inter.contains([-LIM]) and not inter.contains([-LIM + 0.1]) and not inter.contains([-LIM - 0.1])
    doc = json.loads(json.dumps(res.to_json(), allow_nan=False))
    assert doc["schema"] == "contactmodes.analysis/1"
    assert doc["enumeration"]["total"] == 4
    by_mode = {m["mode"]: m for m in doc["modes"]}
    assert by_mode["S"]["torque_domain"] is None and by_mode["S"]["feasible"] is False
    assert by_mode["F"]["overlaps"] == ["L", "R"] and by_mode["F"]["rank_case"] == 1
    assert set(by_mode["F"]["torque_domain"]) >= {"A", "b", "C", "d", "dim"}


def test_analyze_selected_modes_validated():
    s = point_on_ground()
    res = analyze(s, modes=["F", "S"])
    assert list(res.modes) == ["F", "S"] and res.enumeration.after_acceleration == 4
    for bad in (["X"], ["FF"], "F", [3]):
        with pytest.raises(ContactModelError, match="modes"):
            analyze(s, modes=bad)
    # a kinematically pruned mode can still be analysed on request, and is flagged
    res = analyze(point_between_floor_and_ceiling(), modes=["SF", "FF"])
    assert not res.modes["SF"].kinematically_feasible and res.modes["FF"].kinematically_feasible


def test_jammed_point_any_force_is_resisted():
    """Point wedged between floor and ceiling, FF: squeeze is free, so every τ is in T_FF."""
    d = mode_domain(point_between_floor_and_ceiling(), "FF")
    assert d.response.n_w == 2 and d.feasible and d.w_varies
    lo, hi = d.T.bounding_box()
    assert np.all(lo == -np.inf) and np.all(hi == np.inf)
    for tau in ([100.0, -300.0], [-1e3, 1e3], [0.0, 0.0]):
        assert d.T.contains(tau)


def test_table_two_legs_force_only_ambiguity():
    """(d) variant with a rigid body: Fig. 5, III-G.2."""
    s = table_two_legs()
    d = mode_domain(s, "FF")
    r = d.response
    assert r.n_w == 1 and r.w_moves_forces and not r.w_moves_accelerations
    assert d.w_varies
    assert interval(d.T) == pytest.approx((-LIM, LIM), rel=1e-8)
    qdd, f = r.evaluate([5.0], [0.0])
    np.testing.assert_allclose(qdd, 0.0, atol=1e-10)
    assert f[0] + f[2] == pytest.approx(-5.0) and f[1] + f[3] == pytest.approx(2 * G_)
    assert 0.4 * (f[3] - f[1]) == pytest.approx(0.5 * 5.0)


def test_task_equality_gives_point_domain():
    task = LinearConstraint(kind="task", type="eq", qdd=[[1.0, 0.0]], f=[[0.0, 0.0]], tau=[[0.0]],
                            rhs=[0.0])
    s = point_on_ground(constraints=[task])
    d = mode_domain(s, "L")
    assert d.feasible and d.T.affine_dimension() == 0
    assert d.T.contains([-LIM]) and not d.T.contains([0.0])
    # without the task constraint the domain is the half-line again
    assert mode_domain(s, "L", task=False).T.affine_dimension() == 1


def test_task_inequality_shrinks_fixed_domain():
    # task: f_t >= −2 (pushing right with τ is resisted by f_t = −τ) ⇒ τ <= 2
    task = LinearConstraint(kind="task", type="geq", qdd=[[0.0, 0.0]], f=[[1.0, 0.0]], tau=[[0.0]],
                            rhs=[-2.0])
    d = mode_domain(point_on_ground(constraints=[task]), "F")
    assert interval(d.T) == pytest.approx((-LIM, 2.0), rel=1e-9)


def test_no_actuators_consistent_or_not():
    # a unit point mass at rest on the ground, no actuator (issue 25 item 5): T_c lives in R^0.
    # F: f = (0, g), |0| <= mu g, consistent; S: y'' = -g sinks; L/R from rest: x'' = ±mu f_n
    # against the sliding direction unless f_n = 0, which sinks: only F
    s = ContactSystem(
        M=np.eye(2), h=[0.0, 9.81], S=np.zeros((2, 0)), J=np.eye(2), Jdot_qdot=[0.0, 0.0],
        v_contact=[0.0, 0.0], mu=[MU], coordinates=["x", "y"], torques=[], contacts=["g"],
    )
    assert analyze(s).feasible_modes() == ["F"]
    T = mode_domain(s, "F").T
    assert T is not None and T.dim == 0 and not T.is_empty()
    assert mode_domain(s, "S").T is None or mode_domain(s, "S").T.is_empty()


def test_independent_equalities_stacked_against_least_squares():
    """``independent_equalities_stacked`` on stacks with dependent rows and inconsistent
    right-hand sides: a system is kept iff least squares (``np.linalg.lstsq``) solves it exactly;
    its rows are then orthonormal, span the row space of ``C`` (same rank as ``matrix_rank``) and
    are solved by the least-squares point; each result equals the one of the system alone (bit for
    bit), which is what ``independent_equalities`` returns."""
    from contactmodes.analysis.domains import independent_equalities, independent_equalities_stacked

    rng = np.random.default_rng(5)
    for p, n in [(2, 5), (3, 6), (4, 4), (5, 3), (1, 4)]:
        G = 60
        C = rng.standard_normal((G, p, n))
        if p > 1:
            C[::3, -1] = 2.0 * C[::3, 0]  # dependent rows
        x = rng.standard_normal((G, n))
        d = np.einsum("gpn,gn->gp", C, x)
        d[::5, -1] += 0.5  # inconsistent where the rows are dependent (or p > n)
        kept = {}
        for sel, C_r, d_r in independent_equalities_stacked(C, d):
            for j, g in enumerate(sel):
                kept[int(g)] = (C_r[j], d_r[j])
        for g in range(G):
            y = np.linalg.lstsq(C[g], d[g], rcond=None)[0]
            solvable = np.abs(C[g] @ y - d[g]).max() < 1e-9
            assert (g in kept) == solvable
            alone = independent_equalities(C[g], d[g])
            if not solvable:
                assert alone is None
                continue
            C_r, d_r = kept[g]
            assert C_r.shape[0] == np.linalg.matrix_rank(C[g])
            np.testing.assert_allclose(C_r @ C_r.T, np.eye(C_r.shape[0]), atol=1e-12)
            np.testing.assert_allclose(C_r @ y, d_r, atol=1e-9)
            assert np.linalg.matrix_rank(np.vstack([C_r, C[g]])) == C_r.shape[0]
            assert np.array_equal(alone[0], C_r) and np.array_equal(alone[1], d_r)
