"""Spatial mechanisms' input: robot files, contacts, actuators, state tables, bad input (one line
naming the field), the ``spatial`` extra, coordinate names, the characteristic scales of a box
(hand calculation)."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from _support.paths import ROOT
from _support.robots import BOX_URDF, SPATIAL

from contactmodes.errors import ContactModelError
from contactmodes.extras import MissingExtraError

BOX = BOX_URDF
ARM = SPATIAL / "mixed_arm.urdf"
CORNERS = [(sx * 0.2, sy * 0.15, -0.05) for sx in (1, -1) for sy in (1, -1)]


def _one_line(info, pattern: str) -> None:
    import re

    text = str(info.value)
    assert "\n" not in text, text
    assert re.search(pattern, text), text


# ------------------------------------------------------------------------------------------------
# the extra: without Pinocchio (or MuJoCo), one line naming it; importing loads neither


def test_without_pinocchio_the_error_names_the_extra(monkeypatch):
    from contactmodes.model.spatial import SpatialMechanism

    monkeypatch.setitem(sys.modules, "pinocchio", None)
    with pytest.raises(MissingExtraError) as info:
        SpatialMechanism(BOX)
    assert str(info.value) == "spatial mechanism: needs pinocchio: pip install 'contactmodes[spatial]'"


def test_without_mujoco_the_model_names_the_sim_extra(monkeypatch):
    pytest.importorskip("pinocchio")
    from contactmodes.model.spatial import SpatialMechanism
    from contactmodes.model.spatial_mjcf import mujoco_model

    mech = SpatialMechanism(BOX)
    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(MissingExtraError) as info:
        mujoco_model(mech)
    assert str(info.value) == "MuJoCo model: needs mujoco: pip install 'contactmodes[sim]'"


def test_importing_the_spatial_modules_loads_no_optional_package():
    code = ("import sys, contactmodes.model.spatial, contactmodes.model.spatial_mjcf, "
            "contactmodes.model.spatial_state; "
            "print(sorted(m for m in ('pinocchio', 'mujoco', 'example_robot_data') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


pin = pytest.importorskip("pinocchio")

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.spatial_state import state_vectors  # noqa: E402


# ------------------------------------------------------------------------------------------------
# structure


def test_coordinates_follow_pinocchio_and_the_base_convention():
    floating = SpatialMechanism(ARM)
    # Pinocchio's depth-first order ("side" before "yaw", although the file lists "yaw" first)
    joints = ("side", "yaw", "shoulder", "slide", "wrist")
    assert floating.joints == joints
    assert floating.coordinates == ("x", "y", "z", "wx", "wy", "wz") + joints
    assert floating.configuration_names == ("x", "y", "z", "qw", "qx", "qy", "qz") + joints
    assert floating.n_v == 11 and floating.pinocchio_model.nq == 13  # the continuous joint: (cos, sin)
    assert [floating.joint_kind(j) for j in joints] == ["revolute", "revolute", "continuous", "prismatic", "revolute"]
    fixed = SpatialMechanism(ARM, base="fixed")
    assert fixed.coordinates == joints == fixed.configuration_names
    assert {"base_link", "tool", "fingertip", "hand"} <= set(fixed.links)  # links on fixed joints stay
    assert fixed.total_mass == pytest.approx(1.5 + 0.8 + 0.4 + 0.2 + 0.3 + 0.7)  # the welded base link excluded
    assert floating.total_mass == pytest.approx(3.0 + fixed.total_mass)


def test_a_continuous_joint_is_one_angle():
    """``shoulder`` at θ and θ + 2π: the same dynamics (Pinocchio's ``(cos θ, sin θ)``)."""
    mech = SpatialMechanism(ARM, base="fixed")
    q = np.array([0.1, 0.2, 0.7, 0.05, -0.3])
    qdot = np.array([0.3, -0.2, 1.1, 0.4, 0.9])
    a, b = mech.dynamics(q, qdot), mech.dynamics(q + [0, 0, 2 * math.pi, 0, 0], qdot)
    np.testing.assert_allclose(a.M, b.M, atol=1e-14)
    np.testing.assert_allclose(a.h, b.h, atol=1e-13)
    q_pin = mech.pinocchio_state(q, qdot)[0]
    assert q_pin[2:4].tolist() == [math.cos(0.7), math.sin(0.7)]


def test_a_pickled_copy_gives_the_same_numbers():
    """A copy sent to another process (a Dask worker) rebuilds its Pinocchio workspace there."""
    import pickle

    mech = SpatialMechanism(ARM)
    mech.add_contact("tip", "fingertip", (0.02, 0.01, -0.05), (0, 0, 0), (0, 0, 1), 0.5)
    mech.actuate_joints()
    rng = np.random.default_rng(5)
    q, qdot = rng.normal(size=12), rng.normal(size=11)
    copy = pickle.loads(pickle.dumps(mech))
    a, b = mech.dynamics_and_scales(q, qdot), copy.dynamics_and_scales(q, qdot)
    for field in ("M", "h", "J", "Jdot_qdot", "v_contact", "gaps", "positions"):
        assert np.array_equal(getattr(a[0], field), getattr(b[0], field)), field
    assert a[1] == b[1] and copy.actuators == mech.actuators and copy.contacts[0].name == "tip"


def test_actuators_named_by_joint():
    mech = SpatialMechanism(ARM)
    mech.actuate_joints()
    assert mech.actuators == mech.joints
    S = mech.actuator_matrix()
    assert S.shape == (11, 5) and np.array_equal(S, np.eye(11)[:, 6:])
    mech.add_actuator("thrust", "z")  # a world force on the base, as in the plane
    assert mech.actuator_matrix()[:, 5].tolist() == np.eye(11)[2].tolist()


def test_box_scales_by_hand():
    """Points: the base joint's origin and the centre of mass (both the box's centre), the four
    bottom corners. ``L`` = the corners' diagonal 0.5 m; ``m`` = 1.2 kg; at rest ``T = sqrt(L/g)``;
    translating at 10 m/s, ``a = v²/L = 200 m/s²``, ``T = sqrt(0.5/200) = 0.05 s``."""
    mech = SpatialMechanism(BOX)
    for i, corner in enumerate(CORNERS):
        mech.add_contact(f"c{i}", "box", corner, (0, 0, 0), (0, 0, 1), 0.5)
    q = np.array([0.3, -0.2, 0.05, 1.0, 0.0, 0.0, 0.0])
    rest = mech.characteristic_scales(q, np.zeros(6))
    assert (rest.length, rest.mass, rest.time) == pytest.approx((0.5, 1.2, math.sqrt(0.5 / 9.81)), rel=1e-15)
    moving = mech.characteristic_scales(q, np.array([6.0, 8.0, 0.0, 0.0, 0.0, 0.0]))
    assert (moving.length, moving.mass, moving.time) == pytest.approx((0.5, 1.2, 0.05), rel=1e-14)
    d, s = mech.dynamics_and_scales(q, np.zeros(6))
    assert s == rest and np.array_equal(d.M, mech.dynamics(q, np.zeros(6)).M)
    np.testing.assert_allclose(d.gaps, 0.0, atol=1e-17)  # resting on its four corners
    np.testing.assert_allclose(d.h, [0, 0, 1.2 * 9.81, 0, 0, 0], atol=1e-14)
    np.testing.assert_allclose(d.M, np.diag([1.2, 1.2, 1.2, 0.01, 0.017, 0.025]), atol=1e-16)


# ------------------------------------------------------------------------------------------------
# state tables


def test_state_tables():
    mech = SpatialMechanism(ARM)
    rpy_deg = [10.0, -20.0, 30.0]
    q_table = {"base_position": [0.1, 0.2, 0.3], "base_rpy_deg": rpy_deg, "side": 0.1, "yaw_deg": 45.0,
               "shoulder_deg": 370.0, "slide": 0.05, "wrist": -0.2}
    qd_table = {"base_linear": [1.0, 0.0, -1.0], "base_angular_deg": [90.0, 0.0, 0.0], "yaw_deg": 180.0}
    q, qdot = state_vectors(mech, q_table, qd_table)
    xyzw = Rotation.from_euler("xyz", np.radians(rpy_deg)).as_quat()
    w_first = np.array([xyzw[3], *xyzw[:3]])
    np.testing.assert_allclose(q[:7], [0.1, 0.2, 0.3, *(w_first if w_first[0] > 0 else -w_first)], atol=1e-15)
    np.testing.assert_allclose(q[7:], [0.1, math.pi / 4, math.radians(370.0), 0.05, -0.2], atol=1e-15)
    np.testing.assert_allclose(qdot, [1.0, 0.0, -1.0, math.pi / 2, 0, 0, 0.0, math.pi, 0, 0, 0], atol=1e-15)
    same, _ = state_vectors(mech, {**{k: v for k, v in q_table.items() if k != "base_rpy_deg"},
                                   "base_quaternion": list(-3.0 * w_first)})
    np.testing.assert_allclose(mech.dynamics(same, qdot).M, mech.dynamics(q, qdot).M, atol=1e-14)
    fixed = SpatialMechanism(ARM, base="fixed")
    q, qdot = state_vectors(fixed, {"side": 0.0, "yaw": 0.0, "shoulder": 0.0, "slide": 0.0, "wrist_deg": 90.0})
    assert q.tolist() == [0.0, 0.0, 0.0, 0.0, math.pi / 2] and qdot.tolist() == [0.0] * 5


ARM_Q = {"base_position": [0.0, 0.0, 0.0], "base_quaternion": [1.0, 0.0, 0.0, 0.0], "side": 0.0, "yaw": 0.0,
         "shoulder": 0.0, "slide": 0.0, "wrist": 0.0}


@pytest.mark.parametrize("q, qdot, pattern", [
    ({**ARM_Q, "base_quaternion": [0.0, 0.0, 0.0, 0.0]}, None,
     r"^state\.q\.base_quaternion: a quaternion \(w, x, y, z\) must have a nonzero norm"),
    ({**ARM_Q, "elbow": 0.3}, None, r"^state\.q\.elbow: unknown joint 'elbow' \(the robot's joints: side, yaw"),
    ({**ARM_Q, "elbow_deg": 0.3}, None, r"^state\.q\.elbow_deg: unknown joint"),
    ({k: v for k, v in ARM_Q.items() if k != "wrist"}, None, r"^state\.q: missing joint 'wrist'"),
    ({k: v for k, v in ARM_Q.items() if k != "base_position"}, None, r"^state\.q\.base_position: required"),
    ({k: v for k, v in ARM_Q.items() if k != "base_quaternion"}, None, r"^state\.q: the base orientation is missing"),
    ({**ARM_Q, "base_rpy": [0, 0, 0]}, None, r"^state\.q: the base orientation is given 2 times"),
    ({**ARM_Q, "slide_deg": 3.0}, None, r"^state\.q\.slide_deg: 'slide' is a prismatic joint"),
    ({**ARM_Q, "yaw_deg": 3.0}, None, r"^state\.q\.yaw_deg: joint 'yaw' is given twice"),
    ({**ARM_Q, "base_position": [0.0, 0.0]}, None, r"^state\.q\.base_position: must be an array of 3 numbers"),
    ({**ARM_Q, "side": math.nan}, None, r"^state\.q\.side: must be a finite number"),
    ({**ARM_Q, "base_pose": [0.0]}, None, r"^state\.q\.base_pose: unknown key"),
    (ARM_Q, {"wrist": True}, r"^state\.qdot\.wrist: must be a number"),
    (ARM_Q, {"base_angular": [0, 0, 1], "base_angular_deg": [0, 0, 1]}, r"^state\.qdot\.base_angular_deg: .*twice"),
])
def test_bad_state_tables_name_the_key(q, qdot, pattern):
    with pytest.raises(ContactModelError) as info:
        state_vectors(SpatialMechanism(ARM), q, qdot)
    _one_line(info, pattern)


def test_a_fixed_base_takes_no_base_keys():
    fixed = SpatialMechanism(ARM, base="fixed")
    with pytest.raises(ContactModelError) as info:
        state_vectors(fixed, {"base_position": [0, 0, 0], "side": 0, "yaw": 0, "shoulder": 0, "slide": 0, "wrist": 0})
    _one_line(info, r"^state\.q\.base_position: the base is fixed")


# ------------------------------------------------------------------------------------------------
# bad arrays, contacts, actuators


def test_bad_arrays_name_the_field():
    mech = SpatialMechanism(BOX)
    with pytest.raises(ContactModelError) as info:
        mech.dynamics([0, 0, 0, 0, 0, 0, 0], np.zeros(6))
    _one_line(info, r"^q\[3:7\] \(the base quaternion qw, qx, qy, qz\): .*nonzero norm")
    with pytest.raises(ContactModelError) as info:
        mech.dynamics(np.zeros(6), np.zeros(6))
    _one_line(info, r"^q: expected shape \(7,\), got \(6,\)")
    with pytest.raises(ContactModelError) as info:
        mech.dynamics([0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, math.inf, 0])
    _one_line(info, r"^qdot: contains NaN or infinite values")


@pytest.mark.parametrize("kwargs, pattern", [
    ({"link": "lid"}, r"^contacts\[c1\]\.link: unknown link 'lid' \(the robot's links: box\)"),
    ({"mu": -0.1}, r"^contacts\[c1\]\.mu: must be >= 0"),
    ({"mu": 1e9}, r"^contacts\[c1\]\.mu: must be <="),
    ({"v0": -1.0}, r"^contacts\[c1\]\.v0: must be >= 0"),
    ({"position": (0.1, 0.2)}, r"^contacts\[c1\]\.position: expected shape \(3,\)"),
    ({"surface_normal": (0, 0, 0)}, r"^contacts\[c1\]\.surface_normal: must be a nonzero vector"),
    ({"tangent": (0, 0, 1)}, r"^contacts\[c1\]\.tangent: must make an angle of at least 45 degrees"),
])
def test_bad_contacts_name_the_field(kwargs, pattern):
    mech = SpatialMechanism(BOX)
    args = dict(name="c1", link="box", position=CORNERS[0], surface_point=(0, 0, 0), surface_normal=(0, 0, 1), mu=0.5)
    args.update(kwargs)
    with pytest.raises(ContactModelError) as info:
        mech.add_contact(**args)
    _one_line(info, pattern)
    assert mech.contacts == ()


def test_duplicates_and_unknown_coordinates():
    mech = SpatialMechanism(BOX)
    mech.add_contact("c1", "box", CORNERS[0], (0, 0, 0), (0, 0, 1), 0.5)
    with pytest.raises(ContactModelError) as info:
        mech.add_contact("c1", "box", CORNERS[1], (0, 0, 0), (0, 0, 1), 0.5)
    _one_line(info, r"^contacts\[c1\]\.name: duplicate contact name")
    with pytest.raises(ContactModelError) as info:
        mech.add_actuator("t", "theta")
    _one_line(info, r"^actuators\[t\]\.coordinate: unknown coordinate 'theta' \(have x, y, z, wx, wy, wz\)")
    mech.add_actuator("f", "z")
    with pytest.raises(ContactModelError) as info:
        mech.add_actuator("f", "x")
    _one_line(info, r"^actuators\[f\]\.name: duplicate actuator name")
    with pytest.raises(ContactModelError) as info:
        SpatialMechanism(ARM).actuate_joints(["elbow"])
    _one_line(info, r"^actuators\[elbow\]\.coordinate: unknown joint 'elbow'")


# ------------------------------------------------------------------------------------------------
# robot files


def _urdf(tmp_path, body: str, name: str = "r.urdf"):
    path = tmp_path / name
    path.write_text(f'<robot name="r"><link name="a"><inertial><mass value="1"/>'
                    f'<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>{body}</robot>')
    return path


def _joint(name, kind, extra=""):
    limit = '<limit effort="1" velocity="1" lower="-1" upper="1"/>' if kind in ("revolute", "prismatic") else ""
    return (f'<joint name="{name}" type="{kind}"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>{limit}{extra}'
            f'</joint><link name="b"><inertial><mass value="1"/>'
            f'<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')


@pytest.mark.parametrize("body, pattern", [
    (_joint("hover", "floating"), r"^r\.urdf: joint 'hover': floating joints are not supported"),
    (_joint("glide", "planar"), r"^r\.urdf: joint 'glide': planar joints are not supported"),
    (_joint("twin", "revolute", '<mimic joint="other"/>'), r"^r\.urdf: joint 'twin': mimic joints are not supported"),
    (_joint("x", "revolute"), r"^r\.urdf: joint 'x': the name is reserved for the base"),
    (_joint("base_linear", "revolute"), r"^r\.urdf: joint 'base_linear': the name is reserved"),
    (_joint("knee_deg", "revolute"), r"^r\.urdf: joint 'knee_deg': a joint name must not end in '_deg'"),
    # urdfdom's own reason, on one line (it prints it on the C-level stderr: captured)
    ('<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint><link name="b"/>',
     r"^r\.urdf: not a valid URDF model: Joint \[j\] is of type REVOLUTE but it does not specify limits$"),
    (_joint("j", "revolute").replace('ixx="0.1"', 'ixx="-1"'),  # link b's inertia
     r"^r\.urdf: the body moved by joint 'j': its inertia is not positive semi-definite"),
])
def test_refused_urdfs_name_the_joint(tmp_path, capfd, body, pattern):
    path = _urdf(tmp_path, body)
    with pytest.raises(ContactModelError) as info:
        SpatialMechanism(path)
    _one_line(info, pattern)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_bad_files_and_bases(tmp_path):
    cases = [
        (lambda: SpatialMechanism(tmp_path / "none.urdf"), r"^path: no such file"),
        (lambda: SpatialMechanism(tmp_path / "robot.sdf"), r"^path: unknown robot file type '\.sdf'"),
        (lambda: SpatialMechanism(BOX, base="wheeled"), r"^base: must be one of floating, fixed, got 'wheeled'"),
        (lambda: SpatialMechanism(BOX, gravity=math.nan), r"^gravity: must be finite"),
        (lambda: SpatialMechanism(BOX, base_position=(0, 0, 1)), r"^base_position: a floating base's pose is part of"),
        (lambda: SpatialMechanism(BOX, base="fixed", base_quaternion=(0, 0, 0, 0)),
         r"^base_quaternion: .*nonzero norm"),
    ]
    (tmp_path / "broken.urdf").write_text("<robot><link name='a'></robot>")
    cases.append((lambda: SpatialMechanism(tmp_path / "broken.urdf"), r"^broken\.urdf: invalid XML: mismatched tag"))
    (tmp_path / "other.urdf").write_text("<sdf/>")
    cases.append((lambda: SpatialMechanism(tmp_path / "other.urdf"), r"^other\.urdf: not a URDF file"))
    for make, pattern in cases:
        with pytest.raises(ContactModelError) as info:
            make()
        _one_line(info, pattern)


MJCF_BODY = '<inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>'


@pytest.mark.parametrize("world, base, pattern", [
    (f'<body name="a"><joint name="j" type="ball"/>{MJCF_BODY}</body>', "fixed",
     r"^m\.xml: joint 'j': ball \(spherical\) joints are not supported"),
    (f'<body name="a"><freejoint/>{MJCF_BODY}</body>', "fixed", r"^m\.xml: the root body has a free joint"),
    (f'<body name="a"><joint name="j"/>{MJCF_BODY}<frame pos="1 0 0"><body name="b">{MJCF_BODY}</body></frame></body>',
     "fixed", r"^m\.xml: <frame> elements are not read by Pinocchio's MJCF reader"),
    (f'<body name="a"><joint name="j"/>{MJCF_BODY}</body><body name="b"><joint name="k"/>{MJCF_BODY}</body>', "fixed",
     r"^m\.xml: <worldbody> holds several body trees \('a', 'b'\)"),
])
def test_refused_mjcf(tmp_path, world, base, pattern):
    path = tmp_path / "m.xml"
    path.write_text(f'<mujoco model="m"><worldbody>{world}</worldbody></mujoco>')
    with pytest.raises(ContactModelError) as info:
        SpatialMechanism(path, base=base)
    _one_line(info, pattern)


def test_mjcf_with_and_without_a_free_joint_float_the_same(tmp_path):
    body = f'<body name="a" pos="0.3 0 1" euler="0 0 30">{{free}}{MJCF_BODY}<body name="b" pos="0.2 0 0">' \
           f'<joint name="j" axis="0 1 0"/>{MJCF_BODY}</body></body>'
    paths = []
    for tag, free in (("free", '<freejoint name="root"/>'), ("none", "")):
        path = tmp_path / f"{tag}.xml"
        path.write_text(f'<mujoco model="m"><worldbody>{body.format(free=free)}</worldbody></mujoco>')
        paths.append(path)
    a, b = (SpatialMechanism(p) for p in paths)
    assert a.coordinates == b.coordinates == ("x", "y", "z", "wx", "wy", "wz", "j")
    q = np.array([0.1, 0.2, 0.3, 0.9, 0.1, -0.2, 0.3, 0.4])
    qdot = np.arange(7.0)
    # the base coordinates are the root body's world pose: its pos/euler in the file do not enter
    np.testing.assert_array_equal(a.dynamics(q, qdot).M, b.dynamics(q, qdot).M)
    np.testing.assert_array_equal(a.dynamics(q, qdot).h, b.dynamics(q, qdot).h)


# ------------------------------------------------------------------------------------------------
# the documentation's example


@pytest.mark.parametrize("index", [0, 1, 2], ids=["box_on_the_floor", "analysis_in_3d", "wrench_cone"])
def test_the_docs_python_example_prints_what_it_says(index):
    """``docs/spatial.md``'s Python blocks (the box on the floor; the analysis in 3-D; the contact
    wrench) run from
    the repository root, and each ``print`` line prints what its comment says (the comment's
    text up to its first ``": "``)."""
    import re

    pytest.importorskip("pinocchio")
    text = (ROOT / "docs" / "spatial.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 3
    out = subprocess.run([sys.executable, "-c", blocks[index]], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    expected = [line.split("# ", 1)[1] for line in blocks[index].splitlines() if line.startswith("print(")]
    printed = out.stdout.splitlines()
    assert len(printed) == len(expected) == (3, 3, 2)[index]
    for got, comment in zip(printed, expected):
        assert comment.startswith(got + ":"), (got, comment)
