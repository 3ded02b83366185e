"""``SpatialMechanism.link_frames`` and ``contact_positions`` (the skeleton of the 3-D view) against
hand geometry: a fixed-base arm — a base at ``(0, 0, 0.5)``, a revolute joint ``j1`` about ``z``
0.1 m above it carrying ``upper``, a fixed joint ``mount`` 0.3 m along ``upper``'s ``x`` carrying
``tool`` — at ``j1 = θ``: ``upper``'s origin ``(0, 0, 0.6)`` turned by ``R_z(θ)``, ``tool``'s
``(0, 0, 0.6) + R_z(θ) (0.3, 0, 0)``, a contact 0.1 m along ``tool``'s ``x`` at ``R_z(θ) (0.4, 0,
0)`` from the joint; and a floating box whose root link has no parent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.paths import ROOT

pytest.importorskip("pinocchio")

INERTIAL = ('<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>'
            '</inertial>')
ARM = f"""<?xml version="1.0"?>
<robot name="arm">
  <link name="base">{INERTIAL}</link>
  <link name="upper">{INERTIAL}</link>
  <link name="tool">{INERTIAL}</link>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="10"/>
  </joint>
  <joint name="mount" type="fixed">
    <parent link="upper"/><child link="tool"/><origin xyz="0.3 0 0" rpy="0 0 0"/>
  </joint>
</robot>
"""


def _rz(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("theta", [0.0, 0.7, -2.0])
def test_fixed_base_arm_by_hand(tmp_path, theta):
    from contactmodes.model.spatial import SpatialMechanism

    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    mech = SpatialMechanism(path, base="fixed", base_position=(0.0, 0.0, 0.5))
    mech.add_contact("tip", "tool", (0.1, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.5)
    frames = {f.name: f for f in mech.link_frames([theta])}
    assert list(frames) == list(mech.links)
    R = _rz(theta)
    base, upper, tool = frames["base"], frames["upper"], frames["tool"]
    assert (base.parent, base.joint) == (None, None)
    assert np.allclose(base.origin, (0, 0, 0.5), atol=1e-15) and np.allclose(base.joint_origin, base.origin)
    assert np.allclose(base.rotation, np.eye(3), atol=1e-15)
    assert (upper.parent, upper.joint) == ("base", "j1")
    assert np.allclose(upper.joint_origin, (0, 0, 0.6), atol=1e-15) and np.allclose(upper.origin, (0, 0, 0.6))
    assert np.allclose(upper.rotation, R, atol=1e-15)
    assert (tool.parent, tool.joint) == ("upper", "mount")
    expected_tool = np.array([0.0, 0.0, 0.6]) + R @ np.array([0.3, 0.0, 0.0])
    assert np.allclose(tool.joint_origin, expected_tool, atol=1e-15) and np.allclose(tool.origin, expected_tool)
    assert np.allclose(tool.rotation, R, atol=1e-15)
    tip = np.array([0.0, 0.0, 0.6]) + R @ np.array([0.4, 0.0, 0.0])
    assert np.allclose(mech.contact_positions([theta]), [tip], rtol=0, atol=1e-15)


def test_floating_box_root_has_no_parent():
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(ROOT / "examples" / "spatial" / "box_on_slope.toml")
    (box,) = loaded.mechanism.link_frames(loaded.q)
    assert (box.name, box.parent, box.joint) == ("box", None, None)
    assert np.allclose(box.origin, loaded.q[:3], rtol=0, atol=1e-15)  # the base position as written
    w, x, y, z = loaded.q[3:7]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])  # the quaternion's matrix
    assert np.allclose(box.rotation, R, rtol=0, atol=1e-15)


def test_one_joint_dynamics_by_hand(tmp_path):
    """A mechanism with one velocity coordinate (Pinocchio returns its 6×1 frame Jacobian as a
    (6,) array): about the vertical axis of ``j1``, ``M = I_zz(upper) + I_zz(tool) + m_tool 0.3²
    = 0.01 + 0.01 + 0.09``, ``h = 0`` (gravity along the axis, at rest), and the tip moves
    horizontally at ``0.4 θ̇``."""
    from contactmodes.model.spatial import SpatialMechanism

    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    mech = SpatialMechanism(path, base="fixed", base_position=(0.0, 0.0, 0.5))
    mech.add_contact("tip", "tool", (0.1, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.5)
    d = mech.dynamics([0.7], [0.0])
    assert d.M.shape == (1, 1) and d.M[0, 0] == pytest.approx(0.11, rel=1e-12)
    assert np.allclose(d.h, 0.0, atol=1e-12)
    assert d.J.shape == (3, 1)
    assert math.hypot(d.J[0, 0], d.J[1, 0]) == pytest.approx(0.4, rel=1e-12) and d.J[2, 0] == pytest.approx(0.0, abs=1e-15)
