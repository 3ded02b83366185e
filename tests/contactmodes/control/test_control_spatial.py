"""The one-shot controller on spatial systems (issue 40, item 4): ``cm.control`` and
``contactmodes control FILE`` through the system's contact model (components ``t1, t2, n``, the
friction square's letters).

The oracles are independent of the code under test:

* ``_support.spatial_oracle``: the rows of every letter of the circumscribed square written out by
  hand; per mode, the largest objective over ``(τ, q̈, f)`` with ``τ`` in the limits (one LP,
  ``oracle_box_max``: the closure of ``T_c ∩ L``, an upper bound of the closure of ``T*_c ∩ L``),
  the solution ``(q̈, f)`` at a torque (``oracle_solution``) and the membership slack of a torque
  (``oracle_torque_slack``). A torque strictly inside its mode's set and strictly outside every
  other mode's is guaranteed to produce that mode; with its objective within ``‖g‖ δ`` of the
  upper bound it is the controller's answer (``g`` the objective's gradient in torque, ``δ``
  the margin);
* the same arm in millimetres and grams (torques × 1e9, forces × 1e6): the same answer;
* a planar robot in space: the two-link brace read by Pinocchio as a spatial mechanism (its
  out-of-plane motion free, 208 kinematically feasible modes against the plane's 24) gives the
  planar control answer, computed by the planar pipeline (``L`` ↔ side ``a``, ``R`` ↔ side
  ``c``, the square's sides along ``±t1`` being the planar friction rows).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tomllib

import numpy as np
import pytest

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.cli import main  # noqa: E402
from contactmodes.errors import SystemFileError  # noqa: E402
from contactmodes.model.system import CharacteristicScales, ContactSystem  # noqa: E402
from contactmodes.schemas import DocumentError, validate  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

from _support.paths import EXAMPLES  # noqa: E402
from _support.robots import brace_in_space  # noqa: E402
from _support.spatial_oracle import SQUARE, oracle_box_max, oracle_solution, oracle_torque_slack  # noqa: E402

ARM_FILE = EXAMPLES / "spatial" / "arm_on_table.toml"
LIMIT = 5.0  # the file's [control.limits]: every joint within ±5 N·m
SLACK = 1e-9
"""A torque counts as strictly inside (outside) a mode's set when the oracle's slack exceeds this
(is below its negative); the sets' numbers are O(1)–O(100) in SI here."""


@pytest.fixture(scope="module")
def arm() -> ContactSystem:
    return cm.load_system(ARM_FILE)


def _objective_at(system, mode, tau, c_x, c_tau) -> float:
    x = oracle_solution(system, mode, tau)
    return float(np.dot(c_x, x) + np.dot(c_tau, tau))


# objective text, sense, and its coefficients written by hand over (q̈ yaw, shoulder, elbow;
# f t1, t2, n) and (τ yaw, shoulder, elbow)
OBJECTIVES = [
    ("f.tip.n", "maximize", [0, 0, 0, 0, 0, 1], [0, 0, 0]),
    ("f.tip.t2", "maximize", [0, 0, 0, 0, 1, 0], [0, 0, 0]),
    ("f.tip.t1", "minimize", [0, 0, 0, 1, 0, 0], [0, 0, 0]),
    ("qdd.elbow - 0.5*f.tip.t1", "maximize", [0, 0, 1, -0.5, 0, 0], [0, 0, 0]),
    ("tau.shoulder + 0.1*f.tip.n", "maximize", [0, 0, 0, 0, 0, 0.1], [0, 1, 0]),
]


@pytest.mark.parametrize("text, sense, c_x, c_tau", OBJECTIVES, ids=[o[0] for o in OBJECTIVES])
def test_arm_control_is_the_lp_optimum_and_guaranteed(arm, text, sense, c_x, c_tau):
    sign = 1.0 if sense == "maximize" else -1.0
    c_x, c_tau = sign * np.array(c_x, float), sign * np.array(c_tau, float)  # maximize sign·J
    lo, hi = [-LIMIT] * 3, [LIMIT] * 3
    bound = {m: oracle_box_max(arm, m, c_x, c_tau, lo, hi) for m in SQUARE}
    best = max(v for v in bound.values() if v is not None)
    r = cm.control(ARM_FILE, **{sense: text})
    assert r.status == "optimal" and r.unambiguous and r.success
    tol = 1e-7 * max(1.0, abs(best))
    assert sign * r.supremum == pytest.approx(best, abs=tol)
    assert abs(bound[r.mode] - best) <= tol  # the chosen mode attains it (ties allowed)
    tau = r.torque
    assert np.all(np.abs(tau) <= LIMIT * (1 + 1e-12))
    # guaranteed: strictly inside its own mode's set, strictly outside every other's
    assert oracle_torque_slack(arm, r.mode, tau) > SLACK
    for other in SQUARE:
        if other != r.mode:
            assert oracle_torque_slack(arm, other, tau) < -SLACK, other
    # its objective, from the oracle's solution at the torque, within ‖g‖ δ of the upper bound
    value = _objective_at(arm, r.mode, tau, c_x, c_tau)
    assert sign * r.objective == pytest.approx(value, abs=tol)
    g = np.array([_objective_at(arm, r.mode, tau + e, c_x, c_tau) - value for e in np.eye(3)])
    assert np.linalg.norm(tau - r.alternatives[0].torque) == 0.0 and r.alternatives[0].mode == r.mode
    assert r.alternatives[0].distance <= r.margin * (1 + 1e-9)
    assert value >= best - np.linalg.norm(g) * r.margin - tol
    # the prediction names the three components and matches the oracle's solution
    x = oracle_solution(arm, r.mode, tau)
    f = r.prediction["f"]["tip"]
    assert list(f) == ["t1", "t2", "n"]
    np.testing.assert_allclose([f["t1"], f["t2"], f["n"]], x[3:], rtol=0, atol=1e-9 * max(1.0, np.abs(x).max()))
    np.testing.assert_allclose(list(r.prediction["qdd"].values()), x[:3], rtol=0,
                               atol=1e-9 * max(1.0, np.abs(x).max()))
    # every mode's supremum: its set's closure (the ten T_c meet only on boundaries, so T*_c is
    # T_c up to them: tests/contactmodes/analysis/test_spatial_analysis.py)
    for a in r.alternatives:
        assert a.status == "optimal", a.mode
        assert sign * a.supremum == pytest.approx(bound[a.mode], abs=tol), a.mode


def test_a_sliding_tip_is_controlled_with_coulomb_friction_opposite_its_slip():
    # the yaw joint turning at 0.5 rad/s: the tip slides on the table (letters S and D)
    loaded = load_system_file(ARM_FILE)
    sliding = loaded.mechanism.contact_system(loaded.q, np.array([0.5, 0.0, 0.0]), contact_model=loaded.contact_model)
    v = sliding.v_contact[:2]
    assert np.linalg.norm(v) > 0.1 and abs(sliding.v_contact[2]) < 1e-12
    r = cm.control(sliding, maximize="f.tip.n", limits={a: (-LIMIT, LIMIT) for a in sliding.torques})
    c_x = np.array([0, 0, 0, 0, 0, 1.0])
    bound = {m: oracle_box_max(sliding, m, c_x, np.zeros(3), [-LIMIT] * 3, [LIMIT] * 3) for m in "SD"}
    assert r.status == "optimal" and {a.mode for a in r.alternatives} == {"S", "D"}
    assert r.mode == "D" and r.supremum == pytest.approx(bound["D"], rel=1e-7) and bound["D"] > bound["S"]
    assert oracle_torque_slack(sliding, "D", r.torque) > SLACK and oracle_torque_slack(sliding, "S", r.torque) < -SLACK
    f = r.prediction["f"]["tip"]
    np.testing.assert_allclose([f["t1"], f["t2"]], -0.6 * f["n"] * v / np.linalg.norm(v), rtol=1e-9)


def test_arm_in_millimetres_and_grams_gives_the_same_torque(arm):
    # every coordinate is an angle: M, h, τ scale with g·mm² (1e9), contact rows with mm (1e3);
    # a force in g·mm/s² is 1e-6 N
    mm = ContactSystem(M=arm.M * 1e9, h=arm.h * 1e9, S=arm.S, J=arm.J * 1e3, Jdot_qdot=arm.Jdot_qdot * 1e3,
                       v_contact=arm.v_contact * 1e3, mu=arm.mu, coordinates=arm.coordinates,
                       torques=arm.torques, contacts=arm.contacts, v0=arm.v0 * 1e3,
                       scales=CharacteristicScales(arm.scales.length * 1e3, arm.scales.mass * 1e3, arm.scales.time),
                       contact_model=arm.contact_model)
    limits = {a: (-LIMIT, LIMIT) for a in arm.torques}
    for text in ("f.tip.n", "f.tip.t2"):
        si = cm.control(arm, maximize=text, limits=limits)
        r = cm.control(mm, maximize=text, limits={a: (-LIMIT * 1e9, LIMIT * 1e9) for a in arm.torques})
        assert (r.status, r.mode) == (si.status, si.mode) == ("optimal", si.mode)
        np.testing.assert_allclose(r.torque / 1e9, si.torque, rtol=0, atol=1e-9 * LIMIT)
        assert r.objective / 1e6 == pytest.approx(si.objective, rel=1e-9, abs=1e-9)
        assert r.margin / 1e9 == pytest.approx(si.margin, rel=1e-12)
        assert [(a.mode, a.status) for a in r.alternatives] == [(a.mode, a.status) for a in si.alternatives]


def test_forces_count_times_the_length_in_the_margin():
    # the coordinates that are lengths: a floating base's x, y, z and prismatic joints
    from contactmodes.control.margin import actuator_lengths
    from contactmodes.model.spatial import SpatialMechanism

    from _support.robots import BOX_URDF, SPATIAL

    box = SpatialMechanism(BOX_URDF, base="floating")
    assert box.linear_coordinates == ("x", "y", "z")
    arm = SpatialMechanism(SPATIAL / "mixed_arm.urdf", base="fixed")  # one prismatic joint among five
    assert arm.linear_coordinates == ("slide",)
    assert SpatialMechanism(EXAMPLES / "spatial" / "arm3.urdf", base="fixed").linear_coordinates == ()
    for name, coordinate in (("push", "x"), ("lift", "z"), ("turn", "wz")):
        box.add_actuator(name, coordinate)
    lengths = actuator_lengths(box.actuator_matrix(), box.coordinates, box.linear_coordinates, 0.25)
    assert lengths.tolist() == [0.25, 0.25, 1.0]


# ----------------------------------------------------------------------------- a planar robot in space

PLANAR_TO_SPATIAL = str.maketrans({"L": "a", "R": "c"})  # F and S keep their letters


@pytest.fixture(scope="module")
def brace():
    return brace_in_space(0.3)


@pytest.mark.parametrize("planar_text, spatial_text", [("qdd.theta1", "qdd.theta1"), ("f.tip.t", "f.tip.t1")])
def test_the_brace_in_space_gives_the_planar_control_answer(brace, planar_text, spatial_text):
    planar, spatial = brace
    p = cm.control(planar, maximize=planar_text, limits={"tau1": "-3:3"})
    s = cm.control(spatial, maximize=spatial_text, limits={"tau1": "-3:3"})
    assert s.status == p.status == "optimal" and s.unambiguous
    assert s.mode == p.mode.translate(PLANAR_TO_SPATIAL)
    assert s.torque == pytest.approx(p.torque, abs=1e-9)
    assert s.objective == pytest.approx(p.objective, rel=1e-9)
    assert s.supremum == pytest.approx(p.supremum, rel=1e-9)
    assert s.margin == pytest.approx(p.margin, rel=1e-12)  # the same scales (tests/.../test_spatial_planar.py)
    assert s.allowed.mode == p.allowed.mode.translate(PLANAR_TO_SPATIAL)
    assert s.allowed.allowed_objective == pytest.approx(p.allowed.allowed_objective, rel=1e-9)
    # every planar mode is one of space's, with the same answer; space has more modes (out of
    # the plane), none of which beats the planar optimum
    by_mode = {a.mode: a for a in s.alternatives}
    assert len(s.alternatives) > len(p.alternatives)
    for a in p.alternatives:
        b = by_mode[a.mode.translate(PLANAR_TO_SPATIAL)]
        assert b.status == a.status, a.mode
        for name in ("supremum", "objective", "allowed_objective"):
            u, v = getattr(a, name), getattr(b, name)
            assert (u is None) == (v is None) and (u is None or v == pytest.approx(u, rel=1e-9, abs=1e-9)), \
                (a.mode, name)


# ----------------------------------------------------------------------------- the command and the file


def _one_line_error(capsys, start: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"contactmodes: error: {start}"), err
    return err[0]


def test_control_command_on_the_spatial_example(capsys):
    assert main(["control", str(ARM_FILE)]) == 0  # the file's [control] table: maximize f.tip.n
    out = capsys.readouterr().out
    assert out.startswith("maximize f.tip.n   [arm_on_table; system units]")
    assert "predicted f (t1, t2, n): tip=(" in out
    assert main(["control", str(ARM_FILE), "--modes", "tip=a|b|c|d", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["components"] == ["t1", "t2", "n"] and len(doc["prediction"]["f"]) == 3
    assert doc["problem"]["modes"] == {"per_contact": ["abcd"]}
    assert {a["mode"] for a in doc["alternatives"]} == set("abcd")
    arm = cm.load_system(ARM_FILE)
    c_x = np.array([0, 0, 0, 0, 0, 1.0])
    best = max(oracle_box_max(arm, m, c_x, np.zeros(3), [-LIMIT] * 3, [LIMIT] * 3) for m in "abcd")
    assert doc["supremum"] == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("argv, start", [
    (["--maximize", "f.tip.t"],
     "--maximize: unknown name 'f.tip.t' (a contact force is f.tip.t1, f.tip.t2 or f.tip.n)"),
    (["--maximize", "force.tip"],
     "--maximize: unknown name 'force.tip' (names are qdd.<coordinate>, f.<contact>.t1, f.<contact>.t2, "
     "f.<contact>.n and tau.<actuator>)"),
    (["--modes", "tip=L"], "--modes.tip: 'L' is not a contact mode letter (one of S, F, a, b, c, d, A, B, C, E, D"),
    (["--modes", "FF"], "--modes[0]: 'FF' is not a contact mode: expected 1 letters from 'SFabcdABCED'"),
])
def test_spatial_names_and_letters_are_checked(capsys, argv, start):
    assert main(["control", str(ARM_FILE), *argv]) == 2
    _one_line_error(capsys, start)


def test_a_spatial_files_control_table_is_read_with_the_spatial_names(tmp_path):
    doc = tomllib.loads(ARM_FILE.read_text())
    validate(doc, "contactmodes.system/1")
    shutil.copy(EXAMPLES / "spatial" / "arm3.urdf", tmp_path / "arm3.urdf")
    text = ARM_FILE.read_text()
    for old, new, message in [
            ('maximize = "f.tip.n"', 'maximize = "f.tip.t"',
             "control.maximize: unknown name 'f.tip.t' (a contact force is f.tip.t1, f.tip.t2 or f.tip.n)"),
            ('[control]\n', '[control]\nmodes = { tip = "F|L" }\n',
             "control.modes.tip: 'L' is not a contact mode letter"),
            ('elbow = "-5:5"', 'knee = "-5:5"', "control.limits.knee: unknown actuator")]:
        assert text.count(old) == 1
        path = tmp_path / "bad.toml"
        path.write_text(text.replace(old, new))
        with pytest.raises(SystemFileError, match="^" + re.escape(message)):
            load_system_file(path)
    path = tmp_path / "sides.toml"
    path.write_text(text.replace('[control]\n', '[control]\nmodes = { tip = "F|a|C" }\n'))
    loaded = load_system_file(path)
    assert loaded.control.modes.letters == ("FaC",)
    assert cm.control(loaded).mode in ("F", "a", "C")


def test_the_system_schema_takes_spatial_letters_in_a_spatial_files_control_table_only():
    spatial = tomllib.loads(ARM_FILE.read_text())
    spatial["control"]["modes"] = {"tip": "F|a|C"}
    validate(spatial, "contactmodes.system/1")
    planar = tomllib.loads((EXAMPLES / "two_link_brace.toml").read_text())
    planar["control"] = {"maximize": "qdd.theta1", "modes": {"tip": "F|L"}}
    validate(planar, "contactmodes.system/1")
    planar["control"]["modes"] = {"tip": "F|a"}
    with pytest.raises(DocumentError, match=r"control\.modes\.tip"):
        validate(planar, "contactmodes.system/1")


def test_a_planar_control_document_has_no_components_and_planar_modes_only():
    doc = json.loads(json.dumps(cm.control(EXAMPLES / "two_link_brace.toml", maximize="qdd.theta1",
                                           limits={"tau1": "-3:3"}).to_json()))
    assert "components" not in doc and len(doc["prediction"]["f"]) == 6
    validate(doc)
    doc["alternatives"][0]["mode"] = "aSS"
    with pytest.raises(DocumentError, match=r"alternatives\[0\]\.mode"):
        validate(doc)
    assert math.isfinite(doc["objective"])
