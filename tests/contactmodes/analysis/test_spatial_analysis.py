"""``cm.analyze`` on spatial systems (issue 40, items 1 and 4): the pipeline reads the system's
contact model (``SpatialPointContact``: three force components, the letters of a friction polygon).

The oracles (``_support.spatial_oracle``) are written independently of the code under test:

* the rows of every letter of the circumscribed square (``n_f = 4``, side normals along
  ``±t1``, ``±t2``) are written out by hand (``letter_rows``) from the issue's rule —
  separate, stick in the polyhedral cone, slip onset on a side (force on the side, tangential
  acceleration along its outward normal's opposite) or at a vertex (force at the corner,
  ``−a_t`` in the corner's normal cone), slide ``D`` (``f_t = −μ f_n v̂``);
* a mode's torque set is ``{τ : ∃ q̈, f: M q̈ + h = S τ + Jᵀ f, the letters' rows}``: one LP per
  torque and mode (SciPy/HiGHS ``linprog``), its largest common slack of the inequalities
  deciding membership (torques within ``SLACK_BAND`` of a boundary are not compared);
* kinematic feasibility (footnote 5): the largest slack of the letters' acceleration
  inequalities (strict there) under their equalities, over ``q̈`` alone.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.errors import ContactModelError  # noqa: E402
from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.system import CharacteristicScales, ContactSystem  # noqa: E402
from contactmodes.modes.constraints import mode_equations  # noqa: E402
from contactmodes.modes.contact_conditions import classify_velocities  # noqa: E402
from contactmodes.modes.spatial_contact import SpatialPointContact  # noqa: E402

from _support.robots import BOX_URDF, brace_in_space  # noqa: E402
from _support.spatial_oracle import SQUARE, oracle_kinematic, oracle_torque_slack  # noqa: E402

MU = 0.6
SLACK_BAND = 1e-6
"""Torques whose oracle slack is within this band of 0 sit on a boundary (to rounding): not
compared (relative to the problem's numbers, all O(1)–O(10) in SI here)."""

ARM_URDF = """<?xml version="1.0"?>
<robot name="arm3">
  <link name="base_link">
    <inertial><origin xyz="0 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="yaw" type="revolute">
    <parent link="base_link"/><child link="turret"/><origin xyz="0 0 0"/><axis xyz="0 0 1"/>
    <limit effort="10" velocity="10" lower="-3" upper="3"/>
  </joint>
  <link name="turret">
    <inertial><origin xyz="0 0 0.02"/><mass value="0.3"/>
      <inertia ixx="0.0005" ixy="0" ixz="0" iyy="0.0005" iyz="0" izz="0.0004"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="turret"/><child link="upper"/><origin xyz="0 0 0"/><axis xyz="0 1 0"/>
    <limit effort="10" velocity="10" lower="-3" upper="3"/>
  </joint>
  <link name="upper">
    <inertial><origin xyz="0.2 0 0"/><mass value="1.0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.014" iyz="0" izz="0.014"/></inertial>
  </link>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/><origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit effort="10" velocity="10" lower="-3" upper="3"/>
  </joint>
  <link name="fore">
    <inertial><origin xyz="0.2 0 0"/><mass value="0.8"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.011" iyz="0" izz="0.011"/></inertial>
  </link>
</robot>
"""

ARM_Q = np.array([0.3, 0.6, 0.9])

# ----------------------------------------------------------------------------- systems


@pytest.fixture(scope="module")
def arm_mechanism(tmp_path_factory):
    path = tmp_path_factory.mktemp("arm") / "arm3.urdf"
    path.write_text(ARM_URDF)
    mech = SpatialMechanism(path, base="fixed", base_position=(0.0, 0.0, 0.5), name="arm3")
    mech.actuate_joints()
    # the tip (0.4 m along the forearm) touches a horizontal plane through it
    mech.add_contact("probe", "fore", (0.4, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), MU)
    tip = mech.dynamics(ARM_Q, np.zeros(3)).positions[0]
    arm = SpatialMechanism(path, base="fixed", base_position=(0.0, 0.0, 0.5), name="arm3")
    arm.actuate_joints()
    arm.add_contact("tip", "fore", (0.4, 0.0, 0.0), tip, (0.0, 0.0, 1.0), MU)
    return arm


@pytest.fixture(scope="module")
def arm(arm_mechanism):
    return arm_mechanism.contact_system(ARM_Q, np.zeros(3))


@pytest.fixture(scope="module")
def arm_result(arm):
    return cm.analyze(arm, unambiguous=True)


def _box(qdot) -> ContactSystem:
    """The example box (0.4 × 0.3 × 0.1 m, 1.2 kg) on the floor on its four bottom corners."""
    box = SpatialMechanism(BOX_URDF, base="floating", name="box")
    for i, (a, b) in enumerate([(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)]):
        box.add_contact(f"c{i}", "box", (a, b, -0.05), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.4 + 0.05 * i)
    return box.contact_system(np.array([0.0, 0.0, 0.05, 1.0, 0.0, 0.0, 0.0]), np.asarray(qdot, float))


# ----------------------------------------------------------------------------- the system


def test_a_spatial_contact_system_has_three_components_per_contact(arm):
    assert arm.contact_model == SpatialPointContact(4, "circumscribed")
    assert (arm.n_components, arm.n_f, arm.J.shape, arm.Jdot_qdot.shape) == (3, 3, (3, 3), (3,))
    assert arm.to_json()["components"] == ["t1", "t2", "n"]
    with pytest.raises(ContactModelError, match=r"^J: expected shape \(3, 3\), got \(2, 3\)$"):
        ContactSystem(M=arm.M, h=arm.h, S=arm.S, J=arm.J[:2], Jdot_qdot=arm.Jdot_qdot, v_contact=arm.v_contact,
                      mu=arm.mu, coordinates=arm.coordinates, torques=arm.torques, contacts=arm.contacts,
                      contact_model=arm.contact_model)
    with pytest.raises(ContactModelError, match="^contact_model: expected a contact model"):
        ContactSystem(M=arm.M, h=arm.h, S=arm.S, J=arm.J, Jdot_qdot=arm.Jdot_qdot, v_contact=arm.v_contact,
                      mu=arm.mu, coordinates=arm.coordinates, torques=arm.torques, contacts=arm.contacts,
                      contact_model="spatial")


def test_the_scaled_system_keeps_the_contact_model_and_its_force_units(arm):
    sc = arm.scaling
    assert sc.system.contact_model is arm.contact_model
    assert sc.x.shape == (arm.n_q + 3,) and np.all(sc.x[arm.n_q:] == sc.force)


def test_velocity_classification_asks_the_model():
    model = SpatialPointContact(4)
    # a speed of 0.05 along the diagonal: within v0 = 0.06 as a disk (not per component)
    rest = model.velocity_class((0.03, 0.04, 0.0), 0.06)
    assert (rest.allowed, rest.t_zero, rest.n_zero, rest.row_args) == ("SFabcdABCE", True, True, (True, True, None))
    slide = model.velocity_class((0.03, 0.04, 0.0), 0.049)
    assert slide.allowed == "SD" and slide.row_args[2] == pytest.approx((0.6, 0.8), abs=1e-15)
    assert model.velocity_class((0.0, 0.0, 0.2), 0.1).allowed == "S"


# ----------------------------------------------------------------------------- the arm: T_c vs the LP


def test_every_letter_of_the_arm_is_kinematically_feasible_as_the_oracle_says(arm, arm_result):
    expected = sorted(m for m in SQUARE if oracle_kinematic(arm, m) > 1e-9)
    assert expected == sorted(SQUARE)  # the tip's 3×3 Jacobian is nonsingular: every letter
    assert sorted(arm_result.modes) == expected
    assert arm_result.enumeration.after_velocity == len(SQUARE)


def test_arm_torque_sets_match_the_per_mode_lp(arm, arm_result):
    rng = np.random.default_rng(40)
    taus = rng.uniform(-12.0, 12.0, size=(60, 3))
    compared = 0
    for tau in taus:
        for mode in SQUARE:
            slack = oracle_torque_slack(arm, mode, tau)
            if abs(slack) <= SLACK_BAND:
                continue
            compared += 1
            assert arm_result.modes[mode].contains(tau) == (slack > 0), (mode, tau.tolist(), slack)
    assert compared >= 590
    # the oracle and the analysis agree that some torques stick and some slip (a real test)
    inside = {m: sum(oracle_torque_slack(arm, m, t) > SLACK_BAND for t in taus) for m in SQUARE}
    assert inside["F"] > 0 and sum(inside[m] for m in "abcdABCE") > 0 and inside["S"] > 0


def test_arm_rows_come_from_the_model_with_its_component_labels(arm):
    eqs = mode_equations(arm.scaling.system, "a")
    assert eqs.n_f == 3 and eqs.A.shape[1] == arm.n_q + 3
    assert "accel n tip" in eqs.eq_labels
    assert "force tip (1 f_t1 + 0 f_t2 + -0.6 f_n = 0)" in eqs.eq_labels
    assert "accel (-0 a_t1 + 1 a_t2 + 0 a_n = 0) tip" in eqs.eq_labels or \
        "accel (0 a_t1 + 1 a_t2 + 0 a_n = 0) tip" in eqs.eq_labels
    assert "accel (-1 a_t1 + -0 a_t2 + 0 a_n >= 0) tip" in eqs.ineq_labels or \
        "accel (-1 a_t1 + 0 a_t2 + 0 a_n >= 0) tip" in eqs.ineq_labels


def test_arm_unambiguous_sets_and_overlaps(arm, arm_result):
    # one contact, a nonsingular Jacobian: no ambiguity variable; the letters' torque sets meet
    # only on boundaries (the oracle: no torque strictly inside two of them), so T*_c is T_c up
    # to its boundary and every overlap is boundary-only
    rng = np.random.default_rng(7)
    taus = rng.uniform(-12.0, 12.0, size=(40, 3))
    slack = {m: [oracle_torque_slack(arm, m, t) for t in taus] for m in SQUARE}
    for j in range(len(taus)):
        assert sum(slack[m][j] > SLACK_BAND for m in SQUARE) <= 1
    for mode in SQUARE:
        u = arm_result.unambiguous[mode]
        assert u.feasible and not u.w_varies
        for j, tau in enumerate(taus):
            if abs(slack[mode][j]) > SLACK_BAND:
                assert any(P.contains(tau) for P in u.unambiguous) == (slack[mode][j] > 0), (mode, tau)
    pairs = {tuple(sorted(p)) for p in arm_result.overlaps}
    assert pairs == {tuple(sorted((a, b))) for i, a in enumerate(SQUARE) for b in SQUARE[i + 1:]}
    assert {tuple(sorted(p)) for p in arm_result.overlaps.boundary_only()} == pairs


def test_arm_in_millimetres_and_grams_gives_the_same_modes_and_sets(arm, arm_result):
    # every coordinate is an angle: M, h, τ scale with g·mm² (1e9), contact rows with mm (1e3)
    mm = ContactSystem(M=arm.M * 1e9, h=arm.h * 1e9, S=arm.S, J=arm.J * 1e3, Jdot_qdot=arm.Jdot_qdot * 1e3,
                       v_contact=arm.v_contact * 1e3, mu=arm.mu, coordinates=arm.coordinates,
                       torques=arm.torques, contacts=arm.contacts, v0=arm.v0 * 1e3,
                       scales=CharacteristicScales(arm.scales.length * 1e3, arm.scales.mass * 1e3,
                                                      arm.scales.time),
                       contact_model=arm.contact_model)
    res = cm.analyze(mm)
    assert res.feasible_modes() == arm_result.feasible_modes()
    rng = np.random.default_rng(3)
    for tau in rng.uniform(-12.0, 12.0, size=(20, 3)):
        for mode in SQUARE:
            if abs(oracle_torque_slack(arm, mode, tau)) > SLACK_BAND:
                assert res.modes[mode].contains(tau * 1e9) == arm_result.modes[mode].contains(tau)


# ----------------------------------------------------------------------------- a passive box


@pytest.mark.parametrize("qdot", [
    (0.3, 0.1, 0.0, 0.0, 0.0, 0.4),   # sliding and turning: four slip directions (letters S, D)
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),   # at rest on four corners
])
def test_passive_box_feasible_modes_match_the_lp(qdot):
    box = _box(qdot)
    assert box.n_tau == 0 and box.n_f == 12
    pattern = classify_velocities(box)
    res = cm.analyze(box, compute_overlaps=False)
    candidates = _candidates(pattern.allowed)
    assert res.enumeration.after_velocity == len(candidates)
    # the kinematic test: every mode the analysis keeps, and a sample of the others (10^4
    # candidates at rest: the oracle's LPs take 10 ms each)
    rng = np.random.default_rng(11)
    others = [m for m in candidates if m not in res.modes]
    sample = list(res.modes) + [others[i] for i in rng.choice(len(others), min(len(others), 300), replace=False)]
    kinematic = {m for m in sample if oracle_kinematic(box, m) > 1e-9}
    assert kinematic == set(res.modes)
    decided = 0
    for mode in sorted(kinematic):
        slack = oracle_torque_slack(box, mode, np.zeros(0))
        if abs(slack) <= SLACK_BAND:
            continue
        decided += 1
        assert res.modes[mode].feasible == (slack > 0), (mode, slack)
    assert decided >= 1 and any(res.modes[m].feasible for m in kinematic)


def _candidates(allowed):
    import itertools

    return ["".join(p) for p in itertools.product(*allowed)]


# ----------------------------------------------------------------------------- the stages not yet 3-D


def test_stages_still_planar_refuse_a_spatial_system(arm):
    one_line = r"planar contact systems only for now \(issue 40\)$"
    from contactmodes.realtime.plan import terms_of

    with pytest.raises(ContactModelError, match=r"^real-time plan: " + one_line):
        terms_of(arm)


def test_objective_names_use_the_model_components(arm):
    from contactmodes.control.objective import objective_for

    obj = objective_for(arm, "f.tip.t2 - 2*f.tip.n")
    assert obj.force.tolist() == [0.0, 1.0, -2.0]
    with pytest.raises(ContactModelError, match=r"a contact force is f\.tip\.t1, f\.tip\.t2 or f\.tip\.n\)$"):
        objective_for(arm, "f.tip.t")


# ----------------------------------------------------------------------------- a planar robot in 3-D


def test_the_two_link_brace_in_space_sticks_for_the_planar_torques():
    """The two-link brace (``examples/two_link_brace.urdf``, every joint axis along ``−y``)
    between its walls, read once as a planar mechanism (``load_urdf``, plane ``x–z``) and once as
    a spatial one, with ``t1`` the planar tangent (``n × (−y)``): the circumscribed square's
    sides along ``t1`` are the planar friction rows and the out-of-plane rows decouple (no
    gravity or inertia coupling out of the plane, the three contacts not collinear), so the
    spatial ``FFF`` torque set equals the planar one (one actuator: an interval of ``tau1``)."""
    p_sys, s_sys = brace_in_space(0.3)
    p_box = cm.analyze(p_sys, modes=["FFF"], compute_overlaps=False).modes["FFF"].box
    s_res = cm.analyze(s_sys, modes=["FFF"], compute_overlaps=False).modes["FFF"]
    assert s_res.feasible
    # the brace wedges: it holds for every torque below a bound (an interval unbounded below)
    assert p_box[0][0] == s_res.box[0][0] == -np.inf
    assert math.isfinite(p_box[1][0]) and p_box[1][0] < 0.0
    assert s_res.box[1][0] == pytest.approx(p_box[1][0], rel=1e-9)
    for tau in p_box[1][0] * np.array([1.001, 0.999, 3.0]):  # inside, outside, deep inside
        assert s_res.contains([tau]) == (tau <= p_box[1][0])


def test_spatial_analysis_json_validates_and_planar_documents_keep_their_letters(arm, arm_result):
    import json

    from contactmodes.schemas import DocumentError, validate

    doc = json.loads(json.dumps(arm_result.to_json()))
    validate(doc, "contactmodes.analysis/1")
    assert doc["system"]["letters"] == "SFabcdABCED" and {m["mode"] for m in doc["modes"]} == set(SQUARE)
    block = ContactSystem(M=np.eye(2), h=[0.0, 9.81], S=[[1.0], [0.0]], J=np.eye(2), Jdot_qdot=[0.0, 0.0],
                          v_contact=[0.0, 0.0], mu=[0.5], coordinates=("x", "y"), torques=("push",),
                          contacts=("foot",))
    planar = json.loads(json.dumps(cm.analyze(block).to_json()))
    validate(planar, "contactmodes.analysis/1")
    assert "letters" not in planar["system"] and "components" not in planar["system"]
    planar["modes"][0]["mode"] = "a"  # a spatial letter in a planar document
    with pytest.raises(DocumentError, match=r"modes\[0\]\.mode"):
        validate(planar, "contactmodes.analysis/1")


def test_outputs_of_the_box_on_its_slope_are_the_static_balance():
    """``--outputs`` on a spatial system (its components ``t1, t2, n``): the box on the slope of
    ``examples/spatial/box_on_slope.toml`` (normal ``(−1, 0, 3)/√10``, tan α = 1/3, 1.2 kg,
    g = 9.81, ``t1`` world x projected up the slope) sticking on its four corners holds its weight:
    Σ f_n = m g cos α and Σ f_t1 = m g sin α (up the slope), Σ f_t2 = 0 — each determined though
    the corners' forces are not (dim w 6)."""
    import math

    from _support.paths import EXAMPLES

    import contactmodes as cm

    sums = [" + ".join(f"f.c{i}.{c}" for i in range(1, 5)) for c in ("n", "t1", "t2")]
    out = cm.analyze(EXAMPLES / "spatial" / "box_on_slope.toml", modes=["FFFF"], outputs=sums).outputs["FFFF"]
    Y = out.set
    assert Y.n_ineq == 0 and Y.n_eq == 3 and all(out.determined)
    y = np.linalg.solve(Y.C, Y.d)
    alpha, weight = math.atan(1 / 3), 1.2 * 9.81
    np.testing.assert_allclose(y, [weight * math.cos(alpha), weight * math.sin(alpha), 0.0], rtol=1e-9, atol=1e-9)


def test_a_contact_model_without_its_relaxation_is_refused_when_the_system_is_built(arm):
    """The enumeration calls ``relaxed_rows``: a model lacking it fails at construction, in one
    line naming ``contact_model``, not later inside the enumeration."""

    class NoRelaxation:
        components, letters, kept_letters = ("t1", "t2", "n"), "SF", "F"
        rows = velocity_class = staticmethod(lambda *args: None)

    with pytest.raises(ContactModelError, match="^contact_model: expected a contact model .*relaxed_rows"):
        ContactSystem(M=arm.M, h=arm.h, S=arm.S, J=arm.J, Jdot_qdot=arm.Jdot_qdot, v_contact=arm.v_contact,
                      mu=arm.mu, coordinates=arm.coordinates, torques=arm.torques, contacts=arm.contacts,
                      contact_model=NoRelaxation())
