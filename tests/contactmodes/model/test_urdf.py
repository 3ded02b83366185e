"""URDF input (contactmodes.model.urdf and the ``[mechanism] urdf`` hook of contactmodes.system_file.loader).

Oracles, independent of the conversion:

* the two-link brace written in TOML (point masses) — same ``M, h, J, J̇q̇`` and the same ``T_c``;
* hand calculations (rotated inertial frame, a fixed-joint merge with the parallel-axis theorem,
  a reversed joint axis);
* a 3-D forward-kinematics oracle written here with SciPy rotations (URDF's fixed-axis ``rpy``,
  rotation about the joint axis by the URDF joint value): the 3-D rigid-body mass matrix
  ``Σ m J_cᵀ J_c + J_ωᵀ (R I Rᵀ) J_ω``, the gravity vector and the contact Jacobian from central
  differences, on a branched tree in every plane, floating and fixed base.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from _support.paths import ROOT
from contactmodes.analysis.analyze import analyze
from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.system_file.loader import load_system_file, parse_system, system_geometry
from contactmodes.model.urdf import load_urdf

pytest.importorskip("yourdfpy")

EXAMPLES = ROOT / "examples"
PLANE_AXES = {"xz": (0, 2), "xy": (0, 1), "yz": (1, 2)}


# ------------------------------------------------------------------------------------------------
# URDF documents from Python data (the oracle reads the same data, never the parser's output)


def _vec(v) -> str:
    return " ".join(repr(float(x)) for x in v)


def urdf_text(links: list[dict], joints: list[dict], name: str = "robot") -> str:
    out = [f'<?xml version="1.0"?>\n<robot name="{name}">']
    for link in links:
        inertial = link.get("inertial")
        if inertial is None:
            out.append(f'  <link name="{link["name"]}"/>')
            continue
        I = np.asarray(inertial["I"], dtype=float)
        out.append(
            f'  <link name="{link["name"]}">\n    <inertial>\n'
            f'      <origin xyz="{_vec(inertial.get("xyz", (0, 0, 0)))}" rpy="{_vec(inertial.get("rpy", (0, 0, 0)))}"/>\n'
            f'      <mass value="{float(inertial["mass"])!r}"/>\n'
            f'      <inertia ixx="{float(I[0, 0])!r}" ixy="{float(I[0, 1])!r}" ixz="{float(I[0, 2])!r}" '
            f'iyy="{float(I[1, 1])!r}" iyz="{float(I[1, 2])!r}" izz="{float(I[2, 2])!r}"/>\n    </inertial>\n  </link>'
        )
    for j in joints:
        axis = f'\n    <axis xyz="{_vec(j["axis"])}"/>' if "axis" in j else ""
        out.append(
            f'  <joint name="{j["name"]}" type="{j["type"]}">\n    <parent link="{j["parent"]}"/>\n'
            f'    <child link="{j["child"]}"/>\n'
            f'    <origin xyz="{_vec(j.get("xyz", (0, 0, 0)))}" rpy="{_vec(j.get("rpy", (0, 0, 0)))}"/>{axis}\n'
            "  </joint>"
        )
    out.append("</robot>\n")
    return "\n".join(out)


def write_urdf(tmp_path: Path, links, joints, filename="robot.urdf") -> Path:
    path = tmp_path / filename
    path.write_text(urdf_text(links, joints), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------
# 3-D forward-kinematics oracle


def _origin(j: dict) -> tuple[np.ndarray, np.ndarray]:
    return Rotation.from_euler("xyz", j.get("rpy", (0, 0, 0))).as_matrix(), np.asarray(j.get("xyz", (0, 0, 0)), float)


def oracle_frames(links, joints, plane, base, qmech: np.ndarray, coords: list[str], signs: dict[str, int],
                  base_position=(0.0, 0.0)) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World rotation and origin (3-D) of every link at mechanism coordinates ``qmech``.

    ``signs[j]`` converts a mechanism coordinate to the URDF joint value (``q_urdf = sign · q``),
    written by hand per test. Floating base: the root frame is at ``x·u + y·v`` rotated by
    ``theta`` about the plane normal; fixed base: the root frame is the world (at base_position).
    """
    iu, iv = PLANE_AXES[plane]
    u, v = np.eye(3)[iu], np.eye(3)[iv]
    n = np.cross(u, v)
    value = dict(zip(coords, qmech))
    if base == "floating":
        R0 = Rotation.from_rotvec(n * value["theta"]).as_matrix()
        o0 = value["x"] * u + value["y"] * v
    else:
        R0, o0 = np.eye(3), base_position[0] * u + base_position[1] * v
    child_names = {j["child"] for j in joints}
    root = next(link["name"] for link in links if link["name"] not in child_names)
    frames = {root: (R0, o0)}
    pending = list(joints)
    while pending:
        for j in pending:
            if j["parent"] in frames:
                break
        pending.remove(j)
        Rp, op = frames[j["parent"]]
        Rj, tj = _origin(j)
        R, o = Rp @ Rj, op + Rp @ tj
        if j["type"] != "fixed":
            axis = np.asarray(j.get("axis", (1, 0, 0)), float)
            axis = axis / np.linalg.norm(axis)
            R = R @ Rotation.from_rotvec(axis * signs[j["name"]] * value[j["name"]]).as_matrix()
        frames[j["child"]] = (R, o)
    return frames


def oracle_dynamics(links, joints, plane, base, q, coords, signs, gravity=9.81, points=(), base_position=(0.0, 0.0)):
    """``M`` (n, n) and gravity ``g`` (n,) of the 3-D rigid bodies, and the planar world positions
    and Jacobians (2, n) of ``points`` = [(link, (a, b))] (``a·u + b·v`` in the link frame)."""
    iu, iv = PLANE_AXES[plane]
    n_q = len(q)
    h = 1e-6

    def bodies(qq):
        frames = oracle_frames(links, joints, plane, base, qq, coords, signs, base_position)
        out = []
        for link in links:
            inertial = link.get("inertial")
            if inertial is None or link["name"] not in frames:
                continue
            R, o = frames[link["name"]]
            Rc = R @ Rotation.from_euler("xyz", inertial.get("rpy", (0, 0, 0))).as_matrix()
            out.append((inertial["mass"], o + R @ np.asarray(inertial.get("xyz", (0, 0, 0)), float), Rc,
                        np.asarray(inertial["I"], float)))
        pts = []
        for link, (a, b) in points:
            R, o = frames[link]
            local = np.zeros(3)
            local[iu], local[iv] = a, b
            pts.append(o + R @ local)
        return out, pts

    base_bodies, base_pts = bodies(q)
    M = np.zeros((n_q, n_q))
    g = np.zeros(n_q)
    Jc = [np.zeros((3, n_q)) for _ in base_bodies]
    Jw = [np.zeros((3, n_q)) for _ in base_bodies]
    Jp = [np.zeros((3, n_q)) for _ in base_pts]
    for k in range(n_q):
        dq = np.zeros(n_q)
        dq[k] = h
        plus, pplus = bodies(q + dq)
        minus, pminus = bodies(q - dq)
        for i, ((_, cp, Rp, _), (_, cm, Rm, _)) in enumerate(zip(plus, minus)):
            Jc[i][:, k] = (cp - cm) / (2 * h)
            W = (Rp - Rm) @ base_bodies[i][2].T / (2 * h)
            Jw[i][:, k] = [W[2, 1], W[0, 2], W[1, 0]]
        for i, (pp, pm) in enumerate(zip(pplus, pminus)):
            Jp[i][:, k] = (pp - pm) / (2 * h)
    up = np.zeros(3)
    up[iv] = gravity
    for (m, _, Rc, I), Jci, Jwi in zip(base_bodies, Jc, Jw):
        M += m * Jci.T @ Jci + Jwi.T @ (Rc @ I @ Rc.T) @ Jwi
        g += m * Jci.T @ up
    positions = [np.array([p[iu], p[iv]]) for p in base_pts]
    jacobians = [np.vstack([J[iu], J[iv]]) for J in Jp]
    return M, g, positions, jacobians


# ------------------------------------------------------------------------------------------------
# the shipped example against the TOML two-link brace


def test_example_matches_toml_two_link_brace_dynamics():
    toml = load_system_file(EXAMPLES / "two_link_brace.toml")
    urdf = load_system_file(EXAMPLES / "two_link_brace_urdf.toml")
    assert urdf.mechanism.coordinates == toml.mechanism.coordinates
    assert urdf.system.contacts == toml.system.contacts and urdf.system.torques == toml.system.torques
    for key in ("M", "h", "J", "Jdot_qdot", "v_contact", "mu"):
        np.testing.assert_allclose(getattr(urdf.system, key), getattr(toml.system, key), rtol=1e-12, atol=1e-14)
    rng = np.random.default_rng(3)
    for _ in range(5):  # away from the file's state too, with velocities (Coriolis terms, J̇q̇)
        q, qdot = rng.normal(size=4), rng.normal(size=4)
        a, b = toml.mechanism.dynamics(q, qdot), urdf.mechanism.dynamics(q, qdot)
        for key in ("M", "h", "J", "Jdot_qdot", "positions"):
            np.testing.assert_allclose(getattr(b, key), getattr(a, key), rtol=1e-12, atol=1e-13)


def test_example_matches_toml_two_link_brace_torque_domains():
    toml = analyze(load_system_file(EXAMPLES / "two_link_brace.toml").system)
    urdf = analyze(load_system_file(EXAMPLES / "two_link_brace_urdf.toml").system)
    assert sorted(urdf.modes) == sorted(toml.modes)
    assert urdf.feasible_modes() == toml.feasible_modes()
    assert "FFF" in urdf.feasible_modes()
    for mode, item in toml.modes.items():
        if item.feasible:
            assert urdf.modes[mode].T.equals(item.T), mode


def test_example_cli_analyze(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "analyze", str(EXAMPLES / "two_link_brace_urdf.toml")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "FFF" in proc.stdout and "theta1" in proc.stdout


# ------------------------------------------------------------------------------------------------
# hand calculations


def _single_link(tmp_path, inertial, plane="xz"):
    path = write_urdf(tmp_path, [{"name": "body", "inertial": inertial}], [])
    return load_urdf(path, plane=plane)


def test_rotated_inertial_frame_quarter_turn_by_hand(tmp_path):
    # yaw 90°: the inertial x axis lies along world y, the normal of the x-z plane, so the planar
    # inertia is ixx; the centre of mass offset (0.1, 0.7, 0.2) projects to (0.1, 0.2).
    I = np.diag([1.0, 2.0, 3.0])
    mech = _single_link(tmp_path, {"mass": 2.0, "xyz": (0.1, 0.7, 0.2), "rpy": (0, 0, math.pi / 2), "I": I})
    node = mech.graph.nodes["body"]
    assert node["mass"] == 2.0
    np.testing.assert_allclose(node["com"], [0.1, 0.2])
    assert node["inertia"] == pytest.approx(1.0, rel=1e-12)
    # M of a floating body at theta: [[m, 0, -m c_y], [0, m, m c_x], [., ., I + m |c|²]], c rotated
    theta = 0.4
    c = np.array([0.1 * math.cos(theta) - 0.2 * math.sin(theta), 0.1 * math.sin(theta) + 0.2 * math.cos(theta)])
    M = mech.dynamics([0.0, 0.0, theta], [0.0, 0.0, 0.0]).M
    expected = np.array([[2.0, 0.0, -2.0 * c[1]], [0.0, 2.0, 2.0 * c[0]],
                         [-2.0 * c[1], 2.0 * c[0], 1.0 + 2.0 * (0.01 + 0.04)]])
    np.testing.assert_allclose(M, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("plane", ["xz", "xy", "yz"])
def test_rotated_inertial_frame_general_rotation(tmp_path, plane):
    # I_n = nᵀ R I Rᵀ n, R = Rz(yaw) Ry(pitch) Rx(roll) (URDF fixed-axis rpy), n the plane normal
    rpy = (0.3, -0.5, 0.7)
    I = np.array([[0.4, 0.05, -0.02], [0.05, 0.3, 0.01], [-0.02, 0.01, 0.2]])
    mech = _single_link(tmp_path, {"mass": 1.5, "xyz": (0.0, 0.0, 0.0), "rpy": rpy, "I": I}, plane=plane)
    c, s = np.cos(rpy), np.sin(rpy)
    Rx = np.array([[1, 0, 0], [0, c[0], -s[0]], [0, s[0], c[0]]])
    Ry = np.array([[c[1], 0, s[1]], [0, 1, 0], [-s[1], 0, c[1]]])
    Rz = np.array([[c[2], -s[2], 0], [s[2], c[2], 0], [0, 0, 1]])
    R = Rz @ Ry @ Rx
    n = {"xz": [0, -1, 0], "xy": [0, 0, 1], "yz": [1, 0, 0]}[plane]
    n = np.array(n, float)
    assert mech.graph.nodes["body"]["inertia"] == pytest.approx(n @ R @ I @ R.T @ n, rel=1e-12)


def test_fixed_joint_merge_by_hand(tmp_path):
    # link A: 2 kg at (0.1, 0) (x-z plane), planar inertia iyy = 0.05. Link B fixed at (0.3, 0.1),
    # turned 90° counter-clockwise in the plane (rpy pitch -π/2: B's x axis points up, its z axis
    # along −x): 1 kg at (0.2, 0) in B → world (0.3, 0.3), iyy 0.02. A contact at (0.2, 0.05) in
    # B's (x, z) frame is at (0.3 − 0.05, 0.1 + 0.2) = (0.25, 0.3).
    links = [
        {"name": "A", "inertial": {"mass": 2.0, "xyz": (0.1, 0, 0), "I": np.diag([0.01, 0.05, 0.04])}},
        {"name": "B", "inertial": {"mass": 1.0, "xyz": (0.2, 0, 0), "I": np.diag([0.01, 0.02, 0.03])}},
    ]
    joints = [{"name": "weld", "type": "fixed", "parent": "A", "child": "B", "xyz": (0.3, 0, 0.1),
               "rpy": (0, -math.pi / 2, 0)}]
    mech = load_urdf(write_urdf(tmp_path, links, joints))
    assert mech.links == ("A",) and mech.coordinates == ("x", "y", "theta")
    assert mech.body_of("B") == "A"
    com = (2.0 * np.array([0.1, 0.0]) + 1.0 * np.array([0.3, 0.3])) / 3.0
    inertia = 0.05 + 0.02 + 2.0 * np.sum((np.array([0.1, 0.0]) - com) ** 2) + 1.0 * np.sum((np.array([0.3, 0.3]) - com) ** 2)
    node = mech.graph.nodes["A"]
    assert node["mass"] == pytest.approx(3.0)
    np.testing.assert_allclose(node["com"], com, atol=1e-15)
    assert node["inertia"] == pytest.approx(inertia, rel=1e-12)
    mech.add_contact("c", "B", (0.2, 0.05), (0.0, 0.3), (0.0, 1.0), mu=0.5)
    np.testing.assert_allclose(mech.dynamics([0, 0, 0], [0, 0, 0]).positions[0], [0.25, 0.3], atol=1e-15)
    theta = 0.6  # and it moves with A
    R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    np.testing.assert_allclose(mech.point_position([1.0, 2.0, theta], "B", (0.2, 0.05)),
                               np.array([1.0, 2.0]) + R @ [0.25, 0.3], atol=1e-14)


def test_reversed_axis_by_hand(tmp_path):
    # x-z plane, normal −y. Axis "0 1 0" turns the child clockwise in the plane for a positive URDF
    # value: the coordinate (counter-clockwise angle) is minus the URDF joint value. A URDF value
    # of +0.5 rad takes the tip (L, 0, 0) of the child to (L cos 0.5, 0, −L sin 0.5).
    L = 0.3
    links = [{"name": "a"}, {"name": "b", "inertial": {"mass": 1.0, "xyz": (L, 0, 0), "I": np.zeros((3, 3))}}]
    joints = [{"name": "elbow", "type": "revolute", "parent": "a", "child": "b", "xyz": (0.2, 0, 0), "axis": (0, 1, 0)}]
    mech = load_urdf(write_urdf(tmp_path, links, joints))
    assert mech.joint_signs == {"elbow": -1}
    q_urdf = 0.5
    tip = mech.point_position([0.0, 0.0, 0.0, -q_urdf], "b", (L, 0.0))
    np.testing.assert_allclose(tip, [0.2 + L * math.cos(q_urdf), -L * math.sin(q_urdf)], atol=1e-15)
    # the same joint with axis "0 -1 0" has coordinate = URDF value
    joints[0]["axis"] = (0, -1, 0)
    mech = load_urdf(write_urdf(tmp_path, links, joints, "forward.urdf"))
    assert mech.joint_signs == {"elbow": 1}
    tip = mech.point_position([0.0, 0.0, 0.0, q_urdf], "b", (L, 0.0))
    np.testing.assert_allclose(tip, [0.2 + L * math.cos(q_urdf), L * math.sin(q_urdf)], atol=1e-15)
    # point mass at the tip: M[theta1, theta1] = m L², gravity moment m g L cos(angle)
    d = mech.dynamics([0.0, 0.0, 0.0, q_urdf], [0.0, 0.0, 0.0, 0.0])
    assert d.M[3, 3] == pytest.approx(L**2)
    assert d.h[3] == pytest.approx(9.81 * L * math.cos(q_urdf))


# ------------------------------------------------------------------------------------------------
# the 3-D oracle on a branched tree: every plane, both bases, rotated joint frames, reversed axes


def _tree(plane: str):
    """A torso with two two-link limbs, in ``plane``; joint frames rotated in and out of the plane."""
    iu, iv = PLANE_AXES[plane]
    n = np.cross(np.eye(3)[iu], np.eye(3)[iv])

    def p(a, b, w=0.0):  # planar (a, b) plus an out-of-plane offset w along n
        x = np.zeros(3)
        x[iu], x[iv] = a, b
        return tuple(x + w * n)

    def tensor(seed):
        A = np.random.default_rng(seed).normal(size=(3, 3))
        return 0.01 * (A @ A.T + 0.1 * np.eye(3))

    flip = tuple(np.pi * np.eye(3)[iu])  # a half turn about u: the child frame is mirrored in the plane
    in_plane = tuple(Rotation.from_rotvec(0.7 * n).as_euler("xyz"))  # 0.7 rad about n
    links = [
        {"name": "torso", "inertial": {"mass": 3.0, "xyz": p(0.05, 0.02, 0.03), "rpy": (0.2, 0.1, -0.3), "I": tensor(1)}},
        {"name": "thigh1", "inertial": {"mass": 0.8, "xyz": p(0.1, 0.0), "rpy": (0.0, 0.4, 0.0), "I": tensor(2)}},
        {"name": "shin1", "inertial": {"mass": 0.5, "xyz": p(0.12, -0.01), "I": tensor(3)}},
        {"name": "foot1", "inertial": {"mass": 0.2, "xyz": p(0.02, 0.0, -0.05), "I": tensor(4)}},
        {"name": "thigh2"},
        {"name": "shin2", "inertial": {"mass": 0.4, "xyz": p(0.1, 0.03), "rpy": (1.0, 0.2, 0.3), "I": tensor(5)}},
    ]
    joints = [
        {"name": "hip1", "type": "revolute", "parent": "torso", "child": "thigh1", "xyz": p(0.2, -0.1, 0.1),
         "rpy": in_plane, "axis": tuple(n)},
        {"name": "knee1", "type": "continuous", "parent": "thigh1", "child": "shin1", "xyz": p(0.25, 0.0),
         "axis": tuple(-n)},
        {"name": "ankle1", "type": "fixed", "parent": "shin1", "child": "foot1", "xyz": p(0.2, 0.02), "rpy": in_plane},
        {"name": "hip2", "type": "revolute", "parent": "torso", "child": "thigh2", "xyz": p(-0.2, -0.1),
         "rpy": flip, "axis": tuple(n)},  # mirrored frame: this axis is −n in the world
        {"name": "knee2", "type": "revolute", "parent": "thigh2", "child": "shin2", "xyz": p(0.2, 0.05),
         "axis": tuple(2.0 * n)},  # an unnormalized axis
    ]
    signs = {"hip1": 1, "knee1": -1, "hip2": -1, "knee2": -1}
    return links, joints, signs


@pytest.mark.parametrize("plane", ["xz", "xy", "yz"])
@pytest.mark.parametrize("base", ["floating", "fixed"])
def test_tree_against_3d_oracle(tmp_path, plane, base):
    links, joints, signs = _tree(plane)
    if base == "fixed":  # a world link with the torso on a pivot
        links = [{"name": "world", "inertial": {"mass": 5.0, "I": np.eye(3)}}] + links
        iu, iv = PLANE_AXES[plane]
        n = np.cross(np.eye(3)[iu], np.eye(3)[iv])
        xyz = np.zeros(3)
        xyz[iu], xyz[iv] = 0.1, 0.5
        joints = [{"name": "pivot", "type": "revolute", "parent": "world", "child": "torso", "xyz": tuple(xyz),
                   "axis": tuple(n)}] + joints
        signs = {**signs, "pivot": 1}
    mech = load_urdf(write_urdf(tmp_path, links, joints), plane=plane, base=base, base_position=(0.3, -0.2))
    assert mech.joint_signs == signs
    coords = list(mech.coordinates)
    expected_coords = (["x", "y", "theta"] if base == "floating" else ["pivot"]) + ["hip1", "knee1", "hip2", "knee2"]
    assert coords == expected_coords
    points = [("foot1", (0.05, 0.01)), ("shin2", (0.15, -0.02)), ("thigh1", (0.0, 0.0))]
    for i, (link, pos) in enumerate(points):
        mech.add_contact(f"c{i}", link, pos, (0.0, 0.0), (0.0, 1.0), mu=0.5)
    rng = np.random.default_rng(11)
    for _ in range(3):
        q = rng.uniform(-1.5, 1.5, size=len(coords))
        M, g, positions, jacobians = oracle_dynamics(links, joints, plane, base, q, coords, signs,
                                                     points=points, base_position=(0.3, -0.2))
        d = mech.dynamics(q, np.zeros(len(coords)))
        np.testing.assert_allclose(d.M, M, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(d.h, g, rtol=1e-7, atol=1e-7)
        for i, (pos, Jp) in enumerate(zip(positions, jacobians)):
            np.testing.assert_allclose(d.positions[i], pos, atol=1e-12)
            # contact frame rows (t, n) with n = +y: t = (1, 0)
            np.testing.assert_allclose(d.J[2 * i], Jp[0], atol=1e-7)
            np.testing.assert_allclose(d.J[2 * i + 1], Jp[1], atol=1e-7)


def test_fixed_base_pendulum_by_hand(tmp_path):
    # a world link, a pivot at (0, 0, 1) about −y, a 2 kg bob at 0.5 m: M = m l², g = m g l cos θ,
    # placed at base_position (3, 0) of the URDF root frame origin
    links = [{"name": "world"}, {"name": "arm", "inertial": {"mass": 2.0, "xyz": (0.5, 0, 0), "I": np.zeros((3, 3))}}]
    joints = [{"name": "swing", "type": "continuous", "parent": "world", "child": "arm", "xyz": (0, 0, 1),
               "axis": (0, -1, 0)}]
    mech = load_urdf(write_urdf(tmp_path, links, joints), base="fixed", base_position=(3.0, 0.0))
    np.testing.assert_allclose(mech.base_position, [3.0, 1.0])
    d = mech.dynamics([0.3], [0.0])
    assert d.M[0, 0] == pytest.approx(2.0 * 0.25)
    assert d.h[0] == pytest.approx(2.0 * 9.81 * 0.5 * math.cos(0.3))
    np.testing.assert_allclose(mech.point_position([0.3], "arm", (0.5, 0.0)),
                               [3.0 + 0.5 * math.cos(0.3), 1.0 + 0.5 * math.sin(0.3)])
    with pytest.raises(ContactModelError, match="'world' is fixed to the world"):
        mech.add_contact("c", "world", (0.0, 0.0), (0.0, 0.0), (0.0, 1.0), mu=0.5)


@pytest.mark.parametrize("n_pivots", [0, 2])
def test_fixed_base_needs_one_pivot(tmp_path, n_pivots):
    links = [{"name": "world"}, {"name": "a"}, {"name": "b"}]
    kinds = ["fixed", "fixed"] if n_pivots == 0 else ["revolute", "continuous"]
    joints = [{"name": f"j{i}", "type": kind, "parent": "world", "child": child, "axis": (0, 1, 0)}
              for i, (kind, child) in enumerate(zip(kinds, ["a", "b"]))]
    with pytest.raises(ContactModelError, match="exactly one revolute joint must leave the root link 'world'"):
        load_urdf(write_urdf(tmp_path, links, joints), base="fixed")


def test_massless_link_without_inertial(tmp_path):
    mech = load_urdf(write_urdf(tmp_path, [{"name": "ghost"}], []))
    np.testing.assert_array_equal(mech.dynamics([0, 0, 0], [0, 0, 0]).M, np.zeros((3, 3)))


# ------------------------------------------------------------------------------------------------
# system files with urdf


def _system(tmp_path, urdf_name="robot.urdf", **mechanism) -> dict:
    return {
        "mechanism": {"urdf": urdf_name, **mechanism},
        "contacts": [{"name": "c", "link": "b", "position": [0.3, 0.0], "surface_point": [0.0, 0.0],
                      "surface_normal": [0.0, 1.0], "mu": 0.5}],
        "actuators": [{"name": "tau", "coordinate": "elbow"}],
        "state": {"q": {"x": -0.5, "y": 0.0, "theta": 0.0, "elbow": 0.0}},
    }


def _chain(tmp_path, joint_type="revolute", axis=(0, -1, 0), **extra) -> Path:
    links = [{"name": "a", "inertial": {"mass": 1.0, "xyz": (0.1, 0, 0), "I": np.diag([0.0, 0.01, 0.01])}},
             {"name": "b", "inertial": {"mass": 1.0, "xyz": (0.15, 0, 0), "I": np.diag([0.0, 0.02, 0.02])}}]
    joints = [{"name": "elbow", "type": joint_type, "parent": "a", "child": "b", "xyz": (0.2, 0, 0), "axis": axis,
               **extra}]
    return write_urdf(tmp_path, links, joints)


def test_system_file_with_urdf_relative_path_and_plane(tmp_path):
    sub = tmp_path / "models"
    sub.mkdir()
    _chain(sub)
    doc = _system(tmp_path, "models/robot.urdf", plane="xz")
    source = tmp_path / "system.toml"
    loaded = parse_system(doc, source=str(source))
    assert loaded.mechanism.coordinates == ("x", "y", "theta", "elbow")
    assert loaded.system.torques == ("tau",)
    # contact at the tip of b: (−0.5 + 0.2 + 0.3, 0) touches y = 0
    np.testing.assert_allclose(loaded.mechanism.point_position(loaded.q, "b", (0.3, 0.0)), [0.0, 0.0], atol=1e-15)


ERRORS = [
    # (mechanism/urdf variation, expected message start, fragment)
    (dict(links=[{"name": "a"}]), "links: not allowed with mechanism.urdf", ""),
    (dict(point_masses=[{"link": "a", "mass": 1.0}]), "point_masses: not allowed with mechanism.urdf", ""),
    (dict(mechanism={"urdf": "robot.urdf", "plane": "xw"}), "mechanism.plane: must be one of", "'xz'"),
    (dict(mechanism={"urdf": 3}), "mechanism.urdf: must be a string", ""),
    (dict(mechanism={"urdf": "missing.urdf"}), "mechanism.urdf: ", "missing.urdf: no such file"),
    (dict(mechanism={"urdf": "robot.urdf", "base": "fixed"}, state={"q": {"elbow": 0.0}},
          contacts=[{"name": "c", "link": "a", "position": [0.0, 0.0], "surface_point": [0.0, 0.0],
                     "surface_normal": [0.0, 1.0], "mu": 0.5}]),
     "contacts[0]: ", "URDF link 'a' is fixed to the world"),
]


@pytest.mark.parametrize("change,prefix,fragment", ERRORS)
def test_system_file_urdf_errors(tmp_path, change, prefix, fragment):
    _chain(tmp_path)
    doc = _system(tmp_path)
    doc.update(change)
    with pytest.raises(SystemFileError) as info:
        parse_system(doc, source=str(tmp_path / "system.toml"))
    message = str(info.value)
    assert message.startswith(prefix) and fragment in message and "\n" not in message, message


def test_plane_without_urdf_is_an_error():
    doc = {"mechanism": {"plane": "xz"}, "links": [{"name": "a"}], "state": {"q": {"x": 0, "y": 0, "theta": 0}}}
    with pytest.raises(SystemFileError, match=r"^mechanism\.plane: only allowed with mechanism\.urdf"):
        parse_system(doc)


def test_unknown_contact_link_names_urdf_links(tmp_path):
    _chain(tmp_path)
    doc = _system(tmp_path)
    doc["contacts"][0]["link"] = "nope"
    with pytest.raises(SystemFileError, match=r"^contacts\[0\]\.link: unknown link 'nope'"):
        parse_system(doc, source=str(tmp_path / "system.toml"))


URDF_ERRORS = [
    # (joint type, axis, extra joint keys, fragment naming the joint)
    ("prismatic", (1, 0, 0), {}, "joint 'elbow': prismatic joints are not supported"),
    ("floating", (1, 0, 0), {}, "joint 'elbow': type 'floating' is not planar-compatible"),
    ("planar", (0, -1, 0), {}, "joint 'elbow': type 'planar' is not planar-compatible"),
    ("revolute", (0, 0, 1), {}, "joint 'elbow': axis (0, 0, 1) is not normal to the xz plane"),
    ("revolute", (0, -1, 0.01), {}, "joint 'elbow': axis (0, -1, 0.01) is not normal"),
    ("revolute", (0, 0, 0), {}, "joint 'elbow': <axis xyz> must be non-zero"),
    ("revolute", (0, -1, 0), {"rpy": (0.3, 0, 0)}, "joint 'elbow': axis (0, -1, 0) is not normal"),
]


@pytest.mark.parametrize("jtype,axis,extra,fragment", URDF_ERRORS)
def test_joint_errors_name_the_joint(tmp_path, jtype, axis, extra, fragment):
    path = _chain(tmp_path, jtype, axis, **extra)
    with pytest.raises(ContactModelError) as info:
        load_urdf(path)
    message = str(info.value)
    assert message.startswith(str(path)) and fragment in message and "\n" not in message, message


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


EXAMPLE_URDF = (EXAMPLES / "two_link_brace.urdf").read_text()
FILE_ERRORS = [
    (lambda t: t.replace("</robot>", ""), "invalid XML"),
    (lambda t: _edit(t, '<robot name="two_link_brace">', "<model>").replace("</robot>", "</model>"),
     "not a URDF: the root element is <model>"),
    (lambda t: _edit(t, '<mass value="0.1698"/>', '<mass value="-1"/>'), "link 'link1': <inertial> mass must be"),
    (lambda t: _edit(t, '<mass value="0.1698"/>', '<mass value="nan"/>'), "link 'link1': <inertial> mass must be"),
    (lambda t: _edit(t, '<mass value="0.1698"/>', '<mass value="heavy"/>'), "malformed URDF"),
    (lambda t: _edit(t, '<mass value="0.1698"/>', "<mass/>"), "link 'link1': <inertial> needs <mass"),
    (lambda t: _edit(t, ' izz="0.00068467605"', ""), "link 'link1': <inertial>: <inertia> misses izz"),
    (lambda t: _edit(t, 'ixx="0" ixy="0"', 'ixx="-1" ixy="0"'), "link 'link1': <inertial> <inertia> is not positive"),
    (lambda t: _edit(t, '<parent link="link1"/>', '<parent link="nowhere"/>'), "joint 'theta1': unknown parent link"),
    (lambda t: _edit(t, '<parent link="link1"/>', ""), "joint 'theta1': needs <parent"),
    (lambda t: _edit(t, '<child link="link2_tip"/>', '<child link="link2"/>'), "link 'link2' is already the child"),
    (lambda t: _edit(t, '<joint name="tip_mount"', '<joint name="theta1"'), "joint 'theta1': duplicate joint name"),
    (lambda t: _edit(t, '<link name="link2"/>', '<link name="link2"/><link name="stray"/>'), "several root links"),
    (lambda t: _edit(t, 'type="continuous"', 'type="hinge"'), "joint 'theta1': unknown joint type 'hinge'"),
    (lambda t: _edit(t, 'type="continuous"', ''), "joint 'theta1': unknown joint type None"),
    (lambda t: _edit(t, '<joint name="theta1" type="continuous">', '<joint name="theta1" type="continuous">'
                     '<mimic joint="tip_mount"/>'), "joint 'theta1': <mimic> joints are not supported"),
    (lambda t: _edit(t, '<joint name="theta1"', '<joint name="x"'), "joint 'x': the name is a floating-base"),
    (lambda t: _edit(t, '<joint name="theta1"', '<joint name="theta1_deg"'), "must not end in '_deg'"),
    (lambda t: _edit(t, 'xyz="0.127 0 0" rpy="0 0 0"', 'xyz="0.127 0" rpy="0 0 0"'), "malformed URDF"),
]


@pytest.mark.parametrize("edit,fragment", FILE_ERRORS)
def test_file_errors_are_one_line(tmp_path, edit, fragment):
    path = tmp_path / "bad.urdf"
    path.write_text(edit(EXAMPLE_URDF))
    with pytest.raises(ContactModelError) as info:
        load_urdf(path)
    message = str(info.value)
    assert fragment in message and "\n" not in message and message.startswith(str(path)), message


def test_contact_on_a_link_tilted_out_of_the_plane(tmp_path):
    links = [{"name": "a"}, {"name": "tilted"}]
    joints = [{"name": "w", "type": "fixed", "parent": "a", "child": "tilted", "rpy": (math.pi / 2, 0, 0)}]
    mech = load_urdf(write_urdf(tmp_path, links, joints))
    with pytest.raises(ContactModelError, match="frame of URDF link 'tilted' is not parallel to the xz plane"):
        mech.add_contact("c", "tilted", (0.0, 0.0), (0.0, 0.0), (0.0, 1.0), mu=0.5)


def test_cli_bad_urdf_exit_2_one_line(tmp_path):
    (tmp_path / "robot.urdf").write_text("<robot name='r'><link name='a'></robot>")
    system = tmp_path / "system.toml"
    system.write_text('[mechanism]\nurdf = "robot.urdf"\n[state]\nq = { x = 0, y = 0, theta = 0 }\n')
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "analyze", str(system)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactmodes: error: mechanism.urdf: ") and "invalid XML" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


# ------------------------------------------------------------------------------------------------
# fuzz: any damage to the file gives a model or one line, never another exception


def _mutate(text: str, start: int, length: int, insert: str) -> str:
    start = start % (len(text) + 1)
    return text[:start] + insert + text[start + length:]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.integers(0, 10_000), length=st.integers(0, 40),
       insert=st.sampled_from(["", "<", ">", "\"", "nan", "-1", "1e400", "<link/>", "</joint>", "x", "&amp;", "&x;",
                               "<joint name='j' type='revolute'>", "\x00", "é", " "]))
def test_fuzz_damaged_urdf_one_line(tmp_path, start, length, insert):
    urdf = tmp_path / "two_link_brace.urdf"
    urdf.write_bytes(_mutate(EXAMPLE_URDF, start, length, insert).encode("utf-8", "surrogatepass"))
    system = tmp_path / "system.toml"
    system.write_text((EXAMPLES / "two_link_brace_urdf.toml").read_text())
    try:
        load_system_file(system)
    except SystemFileError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(("mechanism.urdf: ", "contacts[", "actuators[", "state")), exc


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=200))
def test_fuzz_random_bytes_one_line(tmp_path, blob):
    path = tmp_path / "random.urdf"
    path.write_bytes(blob)
    with pytest.raises(ContactModelError) as info:
        load_urdf(path)
    assert "\n" not in str(info.value)


def test_missing_and_directory(tmp_path):
    with pytest.raises(ContactModelError, match="no such file"):
        load_urdf(tmp_path / "nope.urdf")
    with pytest.raises(ContactModelError, match="is a directory"):
        load_urdf(tmp_path)


def test_geometry_of_urdf_example():
    geometry = system_geometry(EXAMPLES / "two_link_brace_urdf.toml")
    assert geometry.accepted
    tip = geometry.contacts[1]
    assert tip.link == "link2_tip"
    L = 0.127
    np.testing.assert_allclose(tip.position, [0.0, 2 * L * math.sin(math.pi / 4)], atol=1e-15)
