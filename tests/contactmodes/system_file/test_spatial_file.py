"""Spatial system files (``dimension = 3``) and ``contactmodes check`` on them.

The expected values are built without the loader: hand geometry of the example box (its corners,
its mass matrix ``diag(m I, R I_body Rᵀ)``), quaternions composed by hand, and ``SpatialMechanism``
built directly (for Solo-12 from example-robot-data's own URDF, not the example's copy).
"""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from _support.paths import ROOT
from _support.toml_writer import to_toml
from contactmodes.cli import main
from contactmodes.errors import SystemFileError
from contactmodes.system_file.loader import load_system_file, parse_system, system_geometry

pytest.importorskip("pinocchio")

SPATIAL = ROOT / "examples" / "spatial"
BOX_URDF = SPATIAL / "box.urdf"
MASS = 1.2
INERTIA = np.diag([0.01, 0.017, 0.025])  # the box URDF's, kg m²
CORNERS = [(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)]


def _ry(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _qmul(a, b):
    """Hamilton product of quaternions (w, x, y, z)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _axis_quaternion(axis: int, angle: float) -> np.ndarray:
    q = np.zeros(4)
    q[0] = math.cos(angle / 2)
    q[1 + axis] = math.sin(angle / 2)
    return q


def flat_box(**state) -> dict:
    """The example box on the floor z = 0 (its centre at 0.05 m), at rest unless ``state`` says."""
    contacts = [{"name": f"c{i + 1}", "link": "box", "position": list(p), "surface_point": [0.0, 0.0, 0.0],
                 "surface_normal": [0.0, 0.0, 1.0], "mu": 0.5} for i, p in enumerate(CORNERS)]
    q = state.get("q", {"base_position": [0.0, 0.0, 0.05], "base_quaternion": [1.0, 0.0, 0.0, 0.0]})
    doc = {"schema": "contactmodes.system/1", "name": "flat_box", "dimension": 3,
           "mechanism": {"urdf": str(BOX_URDF), "base": "floating"}, "contacts": contacts,
           "state": {"q": q}}
    if "qdot" in state:
        doc["state"]["qdot"] = state["qdot"]
    return doc


def _write(tmp_path, doc, name="system.toml"):
    path = tmp_path / name
    path.write_text(to_toml(doc))
    return path


# ------------------------------------------------------------------------------------------------
# the examples


def test_box_on_slope_example_matches_hand_geometry_and_a_direct_build():
    from contactmodes.model.spatial import SpatialMechanism

    loaded = load_system_file(SPATIAL / "box_on_slope.toml")
    assert loaded.dimension == 3 and loaded.name == "box_on_slope"
    assert loaded.sides == 4 and loaded.polygon == "circumscribed"
    np.testing.assert_array_equal(loaded.mu, [0.5] * 4)
    np.testing.assert_array_equal(loaded.v0, [0.0] * 4)
    theta = -math.atan(1.0 / 3.0)  # the pitch that lays the bottom face on the plane normal (-1, 0, 3)
    n = np.array([-1.0, 0.0, 3.0]) / math.sqrt(10.0)
    R = _ry(theta)
    np.testing.assert_allclose(R[:, 2], n, atol=1e-15)
    centre = 0.05 * n
    q_hand = np.concatenate([centre, _axis_quaternion(1, theta)])
    np.testing.assert_allclose(loaded.q, q_hand, atol=1e-15)
    np.testing.assert_array_equal(loaded.qdot, np.zeros(6))
    mech = loaded.mechanism
    assert mech.coordinates == ("x", "y", "z", "wx", "wy", "wz") and mech.actuators == ()  # no joints
    d = mech.dynamics(loaded.q, loaded.qdot)
    # M = diag(m I, R I_body Rᵀ) for world-frame linear and angular velocities about the centre of mass
    M_hand = np.zeros((6, 6))
    M_hand[:3, :3] = MASS * np.eye(3)
    M_hand[3:, 3:] = R @ INERTIA @ R.T
    np.testing.assert_allclose(d.M, M_hand, atol=1e-14)
    for i, corner in enumerate(CORNERS):
        np.testing.assert_allclose(d.positions[i], centre + R @ np.array(corner), atol=1e-15)
    np.testing.assert_allclose(d.gaps, 0.0, atol=1e-15)
    # the same mechanism built directly
    direct = SpatialMechanism(BOX_URDF, base="floating", gravity=9.81)
    for i, corner in enumerate(CORNERS):
        direct.add_contact(f"c{i + 1}", "box", corner, (0, 0, 0), tuple(n), 0.5, tangent=(1, 0, 0))
    e = direct.dynamics(q_hand, np.zeros(6))
    np.testing.assert_allclose(d.M, e.M, rtol=0, atol=1e-15)
    np.testing.assert_allclose(d.J, e.J, rtol=0, atol=1e-15)
    np.testing.assert_allclose(d.h, e.h, rtol=0, atol=1e-14)
    # t1 = (1, 0, 0) projected into the plane
    t1 = np.array([1.0, 0.0, 0.0]) - n[0] * n
    np.testing.assert_allclose(mech.contacts[0].frame[0], t1 / np.linalg.norm(t1), atol=1e-15)
    model = loaded.contact_model
    assert (model.sides, model.polygon, model.components) == (4, "circumscribed", ("t1", "t2", "n"))


def test_solo12_example_matches_example_robot_data():
    """The example's URDF (a copy without meshes) gives example-robot-data's dynamics; its feet
    touch the floor at the state written in degrees; every joint is actuated."""
    from _support.robots import erd_urdf
    from contactmodes.model.spatial import SpatialMechanism

    pytest.importorskip("example_robot_data")
    loaded = load_system_file(SPATIAL / "solo12_standing.toml")
    mech = loaded.mechanism
    direct = SpatialMechanism(erd_urdf("solo12"), base="floating")
    for leg in ("FL", "FR", "HL", "HR"):
        direct.add_contact(leg, f"{leg}_FOOT", (0, 0, 0), (0, 0, 0), (0, 0, 1), 0.8)
    assert mech.joints == direct.joints and len(mech.joints) == 12
    assert mech.actuators == mech.joints
    np.testing.assert_array_equal(mech.actuator_matrix(), np.vstack([np.zeros((6, 12)), np.eye(12)]))
    d, e = mech.dynamics(loaded.q, loaded.qdot), direct.dynamics(loaded.q, loaded.qdot)
    for name in ("M", "h", "J", "Jdot_qdot", "positions"):
        np.testing.assert_array_equal(getattr(d, name), getattr(e, name), err_msg=name)
    # legs at 45° / 90° with 0.16 m segments: the feet 0.16·√2 below the hips, on the floor
    np.testing.assert_allclose(d.gaps, 0.0, atol=1e-12)
    joints = dict(zip(mech.joints, loaded.q[7:]))
    assert joints["FL_HFE"] == pytest.approx(math.pi / 4, abs=1e-15)
    assert joints["HR_KFE"] == pytest.approx(math.pi / 2, abs=1e-15)


def test_spatial_examples_fit_the_system_schema():
    pytest.importorskip("jsonschema")
    import tomllib

    from contactmodes.schemas import validate

    for name in ("box_on_slope.toml", "solo12_standing.toml"):
        validate(tomllib.loads((SPATIAL / name).read_text()), "contactmodes.system/1")


# ------------------------------------------------------------------------------------------------
# gaps, states, actuators


def test_flat_box_gaps_zero_and_one_millimetre_off_is_refused(tmp_path, capsys):
    loaded = parse_system(flat_box(), "<flat>")
    np.testing.assert_array_equal(loaded.mechanism.contact_gaps(loaded.q), np.zeros(4))
    doc = flat_box()
    doc["contacts"][2]["position"] = [-0.2, 0.15, -0.049]  # 1 mm above the floor
    with pytest.raises(SystemFileError) as info:
        parse_system(doc, "<off>")
    text = str(info.value)
    assert text.startswith("contacts[2]: contact 'c3' does not touch its surface") and "gap 0.001" in text
    assert "\n" not in text
    # check shows it, with the loader's message, as for a planar file (exit 0, the verdict in the text)
    path = _write(tmp_path, doc)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "REJECTED" in out and "contacts[2]: contact 'c3' does not touch its surface" in out
    assert parse_system(doc, "<off>", lifted_contacts=True).name == "flat_box"  # above: a lifted contact


def test_rpy_and_quaternion_give_the_same_state():
    roll, pitch, yaw = map(math.radians, (10.0, 20.0, 30.0))
    # URDF rpy: R = Rz(yaw) Ry(pitch) Rx(roll), composed by hand
    quat = _qmul(_qmul(_axis_quaternion(2, yaw), _axis_quaternion(1, pitch)), _axis_quaternion(0, roll))
    states = [{"base_position": [0.0, 0.0, 1.0], "base_rpy_deg": [10.0, 20.0, 30.0]},
              {"base_position": [0.0, 0.0, 1.0], "base_rpy": [roll, pitch, yaw]},
              {"base_position": [0.0, 0.0, 1.0], "base_quaternion": (2.5 * quat).tolist()}]  # normalized on read
    qs = [parse_system(flat_box(q=s), "<s>", lifted_contacts=True).q for s in states]
    for q in qs:
        np.testing.assert_allclose(q[3:], quat if q[3] * quat[0] > 0 else -quat, atol=1e-15)


def test_joint_degrees_equal_radians():
    pytest.importorskip("example_robot_data")
    import tomllib

    data = tomllib.loads((SPATIAL / "solo12_standing.toml").read_text())
    radians = copy.deepcopy(data)
    q = radians["state"]["q"]
    for key in [k for k in q if k.endswith("_deg")]:
        q[key[:-4]] = math.radians(q.pop(key))
    a = parse_system(data, str(SPATIAL / "solo12_standing.toml"))
    b = parse_system(radians, str(SPATIAL / "solo12_standing.toml"))
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-15)


def test_actuators_default_every_joint_explicit_and_none():
    pytest.importorskip("example_robot_data")
    import tomllib

    data = tomllib.loads((SPATIAL / "solo12_standing.toml").read_text())
    src = str(SPATIAL / "solo12_standing.toml")
    explicit = dict(data, actuators=[{"name": "front_knee", "coordinate": "FL_KFE"}, {"name": "push", "coordinate": "z"}])
    m = parse_system(explicit, src).mechanism
    assert m.actuators == ("front_knee", "push")
    S = m.actuator_matrix()
    assert S[m.coordinates.index("FL_KFE"), 0] == 1.0 and S[2, 1] == 1.0 and S.sum() == 2.0
    assert parse_system(dict(data, actuators=[]), src).mechanism.actuators == ()


def test_fixed_base_pose_places_the_root_link():
    """The test arm welded at (1, 2, 0.05), yawed by 90°: a point (0.2, 0.15, −0.05) of its root link
    is at (1 − 0.15, 2 + 0.2, 0)."""
    arm = ROOT / "tests" / "data" / "spatial" / "mixed_arm.urdf"
    doc = flat_box(q={j: 0.0 for j in ("yaw", "shoulder", "slide", "wrist", "side")})
    doc["mechanism"] = {"urdf": str(arm), "base": "fixed", "base_position": [1.0, 2.0, 0.05],
                        "base_rpy_deg": [0.0, 0.0, 90.0]}
    doc["contacts"] = [dict(doc["contacts"][0], link="base_link")]
    loaded = parse_system(doc, "<fixed>")
    d = loaded.mechanism.dynamics(loaded.q, loaded.qdot)
    np.testing.assert_allclose(d.positions[0], [1.0 - 0.15, 2.0 + 0.2, 0.0], atol=1e-15)
    np.testing.assert_allclose(d.gaps, 0.0, atol=1e-15)
    assert loaded.mechanism.actuators == loaded.mechanism.joints  # every joint by default


def test_fixed_base_without_joints_is_refused_not_a_crash():
    doc = flat_box(q={})
    doc["mechanism"] = {"urdf": str(BOX_URDF), "base": "fixed"}
    with pytest.raises(SystemFileError, match=r"^mechanism\.base: box\.urdf has no moving joint"):
        parse_system(doc, "<fixed box>")


# ------------------------------------------------------------------------------------------------
# check


def test_check_json_velocities_by_hand(tmp_path, capsys):
    """Sliding along x at 0.1 m/s and spinning about z at 1 rad/s: a corner r moves at
    v + ω × r = (0.1 − r_y, r_x, 0); the default t1 of a floor is x, t2 = n × t1 = y."""
    pytest.importorskip("jsonschema")
    from contactmodes.schemas import validate

    path = _write(tmp_path, flat_box(q={"base_position": [0.0, 0.0, 0.05], "base_quaternion": [1.0, 0.0, 0.0, 0.0]},
                                     qdot={"base_linear": [0.1, 0.0, 0.0], "base_angular": [0.0, 0.0, 1.0]}))
    assert main(["check", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["dimension"] == 3 and doc["accepted"] is True
    assert doc["configuration"] == ["x", "y", "z", "qw", "qx", "qy", "qz"]
    assert doc["coordinates"] == ["x", "y", "z", "wx", "wy", "wz"]
    for c, (rx, ry, rz) in zip(doc["contacts"], CORNERS):
        assert c["position"] == pytest.approx([rx, ry, 0.0], abs=1e-15)
        assert c["gap"] == pytest.approx(0.0, abs=1e-15)
        assert c["velocity"]["t1"] == pytest.approx(0.1 - ry, abs=1e-15)
        assert c["velocity"]["t2"] == pytest.approx(rx, abs=1e-15)
        assert c["velocity"]["n"] == pytest.approx(0.0, abs=1e-15)
        assert c["surface_normal"] == [0.0, 0.0, 1.0] and c["approaching"] is False
    assert main(["check", str(path)]) == 0
    text = capsys.readouterr().out
    assert "position x, y, z (m)" in text and "v_t1 (m/s)" in text and "the loader accepts every contact" in text


def test_check_marks_an_approaching_contact(tmp_path, capsys):
    path = _write(tmp_path, flat_box(qdot={"base_linear": [0.0, 0.0, -0.01]}))
    assert main(["check", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["approaching"] for c in doc["contacts"]] == [True] * 4


def _bad(doc_change):
    def make():
        doc = flat_box()
        doc_change(doc)
        return doc
    return make


def _set(path, value):
    def change(doc):
        *head, last = path
        t = doc
        for k in head:
            t = t[k]
        t[last] = value
    return change


def _delete(path):
    def change(doc):
        *head, last = path
        t = doc
        for k in head:
            t = t[k]
        del t[last]
    return change


BAD = [
    ("unknown top key", _set(("colour",), "red"), "colour: unknown key"),
    ("planar-only key", _set(("links",), [{"name": "a"}]), "links: not read in spatial files"),
    ("dimension 4", _set(("dimension",), 4), "dimension: must be 2 or 3"),
    ("unknown mechanism key", _set(("mechanism", "plane"), "xz"), "mechanism.plane: unknown key"),
    ("no robot file", _delete(("mechanism", "urdf")), "mechanism.urdf: required key is missing"),
    ("missing robot file", _set(("mechanism", "urdf"), "nope.urdf"), "mechanism.urdf: no such file"),
    ("pose of a floating base", _set(("mechanism", "base_position"), [0.0, 0.0, 1.0]),
     "mechanism.base_position: only allowed with base = \"fixed\""),
    ("unknown contact key", _set(("contacts", 0, "radius"), 0.1), "contacts[0].radius: unknown key"),
    ("missing mu", _delete(("contacts", 1, "mu")), "contacts[1].mu: required key is missing"),
    ("two-number position", _set(("contacts", 1, "position"), [0.2, 0.15]), "contacts[1].position: must be an array of three"),
    ("unknown link", _set(("contacts", 3, "link"), "lid"), "contacts[3].link: unknown link 'lid'"),
    ("zero normal", _set(("contacts", 0, "surface_normal"), [0.0, 0.0, 0.0]), "contacts[0].surface_normal: must be a non-zero"),
    ("tangent along the normal", _set(("contacts", 0, "tangent"), [0.0, 0.0, 1.0]), "contacts[0].tangent"),
    ("negative mu", _set(("contacts", 0, "mu"), -0.1), "contacts[0].mu: must be >= 0"),
    ("mu interval reversed", _set(("contacts", 0, "mu"), [0.6, 0.4]), "contacts[0].mu: interval [0.6, 0.4] needs lo <= hi"),
    ("duplicate contact", _set(("contacts", 1, "name"), "c1"), "contacts[1].name: duplicate contact name"),
    ("two sides", _set(("friction",), {"sides": 2}), "friction.sides: must be an integer from 3 to 20"),
    ("21 sides", _set(("friction",), {"sides": 21}), "friction.sides: must be an integer from 3 to 20"),
    ("polygon", _set(("friction",), {"polygon": "hexagon"}), "friction.polygon: must be one of"),
    ("friction key", _set(("friction",), {"cone": "exact"}), "friction.cone: unknown key"),
    ("sliding", _set(("friction",), {"sliding": "pyramid"}),
     "friction.sliding: must be one of 'exact', 'polygon', got 'pyramid'"),
    ("sliding not a string", _set(("friction",), {"sliding": True}), "friction.sliding: must be a string"),
    ("quaternion of norm 0", _set(("state", "q", "base_quaternion"), [0.0, 0.0, 0.0, 0.0]),
     "state.q.base_quaternion"),
    ("two orientations", _set(("state", "q", "base_rpy"), [0.0, 0.0, 0.0]), "state.q: the base orientation is given 2 times"),
    ("no position", _delete(("state", "q", "base_position")), "state.q.base_position: required key is missing"),
    ("unknown joint", _set(("state", "q", "hinge"), 0.1), "state.q.hinge: unknown joint 'hinge'"),
    ("unknown qdot key", _set(("state", "qdot"), {"base_spin": [0.0, 0.0, 0.0]}), "state.qdot.base_spin: unknown key"),
    ("unknown actuator coordinate", _set(("actuators",), [{"name": "a", "coordinate": "hinge"}]),
     "actuators[0].coordinate: unknown coordinate 'hinge'"),
]


@pytest.mark.parametrize("label, change, where", BAD, ids=[b[0] for b in BAD])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, label, change, where):
    path = _write(tmp_path, _bad(change)())
    before = sorted(p.name for p in tmp_path.iterdir())
    out_file = tmp_path / "out.json"
    assert main(["check", str(path), "--json", "--output", str(out_file)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "\n" not in err and err.startswith("contactmodes: error: ") and where in err, err
    assert "Traceback" not in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_unknown_solo_joint_names_the_key(tmp_path, capsys):
    pytest.importorskip("example_robot_data")
    text = (SPATIAL / "solo12_standing.toml").read_text().replace("FL_HAA = 0.0", "FL_HIP = 0.0")
    path = tmp_path / "solo.toml"
    path.write_text(text.replace('urdf = "solo12.urdf"', f'urdf = "{SPATIAL / "solo12.urdf"}"'))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "state.q.FL_HIP: unknown joint 'FL_HIP'" in err


def test_plot_png_of_a_spatial_file_names_html_in_one_line_and_analysis_reads_it(capsys, tmp_path):
    box = str(SPATIAL / "box_on_slope.toml")
    png = tmp_path / "never-written.png"
    assert main(["check", box, "--plot", str(png)]) == 2  # a 3-D robot is drawn as a page (test_robot3d.py)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--plot: a spatial file (dimension = 3) is drawn as an interactive page" in err, err
    assert not png.exists()
    loaded = load_system_file(box)
    system = loaded.system  # the file's contact model and state, as a direct build gives them
    direct = loaded.mechanism.contact_system(loaded.q, loaded.qdot, contact_model=loaded.contact_model)
    assert system.contact_model == direct.contact_model and system.contact_model.sides == loaded.sides
    np.testing.assert_array_equal(system.J, direct.J)
    assert main(["analyze", box, "--mode", "FFFF"]) == 0
    assert "FFFF" in capsys.readouterr().out


def test_planar_dimension_two_changes_nothing():
    import tomllib

    data = tomllib.loads((ROOT / "examples" / "two_link_brace.toml").read_text())
    a = parse_system(data, str(ROOT / "examples" / "two_link_brace.toml"))
    b = parse_system(dict(data, dimension=2), str(ROOT / "examples" / "two_link_brace.toml"))
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.system.M, b.system.M)
    np.testing.assert_array_equal(a.system.J, b.system.J)


def test_check_runs_as_a_command():
    """The console path: one process, the example file, exit 0 and the 3-D table."""
    r = subprocess.run([sys.executable, "-m", "contactmodes", "check", str(SPATIAL / "box_on_slope.toml")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "v_t2 (m/s)" in r.stdout and r.stdout.rstrip().endswith("the loader accepts every contact")
    geometry = system_geometry(SPATIAL / "box_on_slope.toml")
    assert geometry.dimension == 3 and geometry.components == ("t1", "t2", "n")


def test_mjcf_robot_file_gives_the_direct_build():
    """``mjcf = …``: the test gripper; its palm's origin on a plane through it, so the contact
    touches by construction; dynamics equal to a ``SpatialMechanism`` built directly."""
    from contactmodes.model.spatial import SpatialMechanism

    gripper = ROOT / "tests" / "data" / "spatial" / "gripper.xml"
    joints = {"lift": 0.01, "left_pinch_deg": 10.0, "right_pinch": -0.2}
    direct = SpatialMechanism(gripper, base="floating")
    extra = [j for j in direct.joints if j not in ("lift", "left_pinch", "right_pinch")]
    joints.update({j: 0.0 for j in extra})
    doc = {"dimension": 3, "mechanism": {"mjcf": str(gripper)},
           "contacts": [{"name": "palm", "link": "palm", "position": [0.0, 0.0, 0.0],
                         "surface_point": [0.1, 0.2, 0.5], "surface_normal": [0.0, 0.0, 1.0], "mu": 0.4, "v0": 0.01}],
           "state": {"q": dict(joints, base_position=[0.1, 0.2, 0.5], base_quaternion=[1.0, 0.0, 0.0, 0.0]),
                     "qdot": {"base_angular": [0.0, 0.0, 0.3], "lift": 0.05}},
           "friction": {"sides": 6, "polygon": "inscribed"}}
    loaded = parse_system(doc, "<gripper>")
    direct.add_contact("palm", "palm", (0, 0, 0), (0.1, 0.2, 0.5), (0, 0, 1), 0.4, 0.01)
    direct.actuate_joints()
    d, e = loaded.mechanism.dynamics(loaded.q, loaded.qdot), direct.dynamics(loaded.q, loaded.qdot)
    for name in ("M", "h", "J", "Jdot_qdot", "gaps"):
        np.testing.assert_array_equal(getattr(d, name), getattr(e, name), err_msg=name)
    assert loaded.q[loaded.mechanism.configuration_names.index("left_pinch")] == pytest.approx(math.radians(10.0))
    assert (loaded.sides, loaded.polygon, loaded.v0.tolist()) == (6, "inscribed", [0.01])
    np.testing.assert_array_equal(loaded.mechanism.actuator_matrix(), direct.actuator_matrix())
    bad = copy.deepcopy(doc)
    bad["mechanism"] = {"mjcf": str(ROOT / "examples" / "spatial" / "box.urdf")}
    with pytest.raises(SystemFileError, match=r"^mechanism\.mjcf: expected a \.xml or \.mjcf file"):
        parse_system(bad, "<gripper>")


def test_friction_sliding_polygon_loads_validates_and_analyses(tmp_path):
    """``[friction] sliding = "polygon"`` (issue 40, item 7): the file's contact model slides on
    the polygon; the box sliding along ``(cos 0.3, sin 0.3)`` on the circumscribed square takes the
    vertex against it, ``(−μ, −μ) f_n`` (``C``, vertex 2 between the sides of normals ``−t1`` and
    ``−t2``) on every corner; absent, the default is exact Coulomb (``D``). The schema accepts both
    values and refuses another."""
    pytest.importorskip("jsonschema")
    import contactmodes as cm
    from contactmodes.schemas import DocumentError, validate

    qdot = {"base_linear": [0.4 * math.cos(0.3), 0.4 * math.sin(0.3), 0.0]}
    for sliding, modes in ((None, ["DDDD"]), ("exact", ["DDDD"]), ("polygon", ["CCCC"])):
        doc = flat_box(qdot=qdot)
        if sliding is not None:
            doc["friction"] = {"sliding": sliding}
        validate(json.loads(json.dumps(doc)), "contactmodes.system/1")
        path = _write(tmp_path, doc)
        loaded = load_system_file(path)
        assert loaded.sliding == (sliding or "exact") and loaded.contact_model.sliding == loaded.sliding
        assert cm.analyze(path).feasible_modes() == modes
    doc = flat_box(qdot=qdot)
    doc["friction"] = {"sliding": "pyramid"}
    with pytest.raises(DocumentError, match=r"friction\.sliding"):
        validate(json.loads(json.dumps(doc)), "contactmodes.system/1")
