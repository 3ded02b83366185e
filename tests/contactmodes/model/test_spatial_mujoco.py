"""Spatial dynamics (contactmodes.model.spatial, Pinocchio) against MuJoCo at random states.

The reference is MuJoCo reading the same robot file with its own parser
(contactmodes.model.spatial_mjcf): ``M`` from ``mj_fullM``, ``h`` from ``qfrc_bias``, the contact
Jacobian from ``mj_jacSite``, ``J̇ q̇`` from ``mj_jacDot`` at the contact sites, positions from
``site_xpos`` — converted to the toolkit's coordinates by the velocity map ``qvel = V q̇``
(MuJoCo's free joint: linear velocity in world axes, angular velocity in the body frame), so
``M = Vᵀ M_mj V``, ``h = Vᵀ qfrc_bias`` (``V̇ q̇ = 0``: ``d/dt(Rᵀ ω) = Rᵀ ω̇``). Relative
agreement 1e-9 on every robot shipped or used: the box, the mixed-joint arm (fixed and floating),
an MJCF gripper, and example-robot-data's Solo-12, Go1 (dummy base link of degenerate inertia),
Bolt (biped; massless feet with inertia), G1 (humanoid, 29 joints) and the continuous double
pendulum.
"""

from __future__ import annotations

import numpy as np
import pytest

from _support.robots import BOX_URDF, ERD_ROBOTS, SPATIAL, erd_urdf

pytest.importorskip("pinocchio")
mujoco = pytest.importorskip("mujoco")

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.spatial_mjcf import mjcf, mujoco_model, mujoco_urdf  # noqa: E402

RTOL = 1e-9

# robot → (file, base, contacts (link, position in the link frame))
OWN = {
    "box": (BOX_URDF, "floating", [("box", (0.2, 0.15, -0.05)), ("box", (-0.2, -0.15, -0.05))]),
    "arm_fixed": (SPATIAL / "mixed_arm.urdf", "fixed",
                  [("fingertip", (0.01, 0.0, 0.02)), ("tool", (0.0, 0.01, 0.0)), ("side_link", (0.1, 0.0, 0.0))]),
    "arm_floating": (SPATIAL / "mixed_arm.urdf", "floating",
                     [("fingertip", (0.01, 0.0, 0.02)), ("base_link", (0.1, -0.05, 0.0))]),
    "gripper_mjcf": (SPATIAL / "gripper.xml", "floating",
                     [("left_pad", (0.01, 0.0, 0.0)), ("right_tip", (0.0, 0.0, -0.02)), ("palm", (0.02, 0.02, 0.0))]),
}
ERD = {
    "solo12": ("floating", [("FL_FOOT", (0.0, 0.0, 0.0)), ("HR_FOOT", (0.01, 0.0, -0.01))]),
    "go1": ("floating", [("FL_foot", (0.0, 0.0, -0.02)), ("trunk", (0.1, 0.0, 0.0))]),
    "bolt": ("floating", [("FL_FOOT", (0.0, 0.0, 0.0)), ("FR_FOOT", (0.0, 0.0, 0.0))]),
    "g1": ("floating", [("left_ankle_roll_link", (0.1, 0.03, -0.03)), ("right_ankle_roll_link", (-0.05, 0.0, -0.03))]),
    "double_pendulum_continuous": ("fixed", [("link2", (0.0, 0.0, 0.1))]),
}
assert set(ERD) == set(ERD_ROBOTS)


def _mechanism(path, base, contacts, rng, **kw) -> SpatialMechanism:
    mech = SpatialMechanism(path, base=base, gravity=9.81, **kw)
    for i, (link, position) in enumerate(contacts):
        mech.add_contact(f"c{i}", link, position, rng.normal(size=3), rng.normal(size=3), 0.5)
    return mech


def _mujoco_terms(model, coords, mech: SpatialMechanism, q, qdot):
    """``M, h, J, J̇q̇, positions`` from MuJoCo, in the toolkit's coordinates (module docstring)."""
    data = mujoco.MjData(model)
    data.qpos[:] = coords.qpos(q)
    data.qvel[:] = coords.qvel(q, qdot)
    mujoco.mj_forward(model, data)
    V = coords.velocity_matrix(q)
    Mm = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, Mm)
    J, Jdq, positions = [], [], []
    for c in mech.contacts:
        site = coords.sites[c.name]
        jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacSite(model, data, jacp, jacr, site)
        jdp, jdr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacDot(model, data, jdp, jdr, data.site_xpos[site], model.site_bodyid[site])
        J.append(c.frame @ jacp @ V)
        Jdq.append(c.frame @ (jdp @ data.qvel))
        positions.append(np.array(data.site_xpos[site]))
    k = len(mech.contacts)
    return (V.T @ Mm @ V, V.T @ data.qfrc_bias, np.vstack(J) if k else np.zeros((0, mech.n_v)),
            np.concatenate(Jdq) if k else np.zeros(0), np.array(positions).reshape(k, 3))


def _random_state(mech: SpatialMechanism, rng):
    q = rng.normal(size=len(mech.configuration_names))
    if mech.floating:
        q[:3] *= 0.5
    return q, rng.normal(scale=2.0, size=mech.n_v)


def _assert_close(name, actual, expected):
    scale = float(np.abs(expected).max())
    err = float(np.abs(actual - expected).max())
    assert err <= RTOL * scale, f"{name}: max error {err:.3g} for max magnitude {scale:.3g}"


def _compare(mech: SpatialMechanism, rng, n_states: int = 4) -> None:
    model, coords = mujoco_model(mech)
    for _ in range(n_states):
        q, qdot = _random_state(mech, rng)
        d = mech.dynamics(q, qdot)
        M, h, J, Jdq, positions = _mujoco_terms(model, coords, mech, q, qdot)
        _assert_close("M", d.M, M)
        _assert_close("h", d.h, h)
        _assert_close("J", d.J, J)
        _assert_close("Jdot_qdot", d.Jdot_qdot, Jdq)
        _assert_close("positions", d.positions, positions)
        _assert_close("v_contact", d.v_contact, J @ qdot)
        normals = np.array([c.normal for c in mech.contacts])
        points = np.array([c.surface_point for c in mech.contacts])
        np.testing.assert_allclose(d.gaps, np.einsum("ij,ij->i", normals, positions - points), rtol=0, atol=1e-12)
        assert np.array_equal(d.M, d.M.T)


@pytest.mark.parametrize("robot", sorted(OWN))
def test_own_robots_agree_with_mujoco(robot):
    path, base, contacts = OWN[robot]
    rng = np.random.default_rng(40)
    _compare(_mechanism(path, base, contacts, rng), rng)


@pytest.mark.parametrize("robot", ERD_ROBOTS)
def test_example_robot_data_robots_agree_with_mujoco(robot):
    pytest.importorskip("example_robot_data")
    base, contacts = ERD[robot]
    rng = np.random.default_rng(41)
    _compare(_mechanism(erd_urdf(robot), base, contacts, rng), rng, n_states=3)


def test_a_placed_fixed_base_agrees_with_mujoco():
    """A fixed base welded at a position and orientation (MuJoCo: the root body's pos/quat)."""
    rng = np.random.default_rng(42)
    path, _, contacts = OWN["arm_fixed"]
    quat = rng.normal(size=4)
    mech = _mechanism(path, "fixed", contacts, rng, base_position=(0.3, -0.2, 0.7), base_quaternion=quat)
    _compare(mech, rng)
    model, coords = mujoco_model(mech)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)  # qpos0: every joint at 0
    q0 = np.zeros(len(mech.configuration_names))
    np.testing.assert_allclose(mech.dynamics(q0, np.zeros(mech.n_v)).positions,
                               data.site_xpos[[coords.sites[c.name] for c in mech.contacts]], atol=1e-12)


def test_zero_gravity_and_another_magnitude():
    rng = np.random.default_rng(43)
    for g in (0.0, 1.62):
        mech = SpatialMechanism(SPATIAL / "mixed_arm.urdf", base="floating", gravity=g)
        model, coords = mujoco_model(mech)
        assert np.array_equal(model.opt.gravity, [0.0, 0.0, -g])
        q, qdot = _random_state(mech, rng)
        _assert_close("h", mech.dynamics(q, qdot).h, _mujoco_terms(model, coords, mech, q, qdot)[1])


def test_coordinates_map_round_trips():
    rng = np.random.default_rng(44)
    mech = _mechanism(SPATIAL / "mixed_arm.urdf", "floating", [("hand", (0.0, 0.0, 0.0))], rng)
    model, coords = mujoco_model(mech)
    q, qdot = _random_state(mech, rng)
    q[3:7] /= np.linalg.norm(q[3:7])
    q2, qdot2 = coords.state(coords.qpos(q), coords.qvel(q, qdot))
    np.testing.assert_allclose(q2, q, rtol=0, atol=1e-15)
    np.testing.assert_allclose(qdot2, qdot, rtol=0, atol=1e-14)
    # the joints sit where MuJoCo says, whatever its order
    for name, adr in zip(mech.joints, coords.joint_dof):
        assert model.joint(name).dofadr[0] == adr


def test_mjcf_text_reads_back_to_the_same_model():
    """``mjcf`` is MuJoCo's own writer, which prints 6 significant digits: the text gives the
    model to about 1e-6 (``mujoco_model``, not the text, is the exact plant)."""
    rng = np.random.default_rng(45)
    mech = _mechanism(SPATIAL / "mixed_arm.urdf", "floating", [("fingertip", (0.0, 0.0, 0.0))], rng)
    model, coords = mujoco_model(mech)
    again = mujoco.MjModel.from_xml_string(mjcf(mech))
    assert (again.nq, again.nv, again.nsite) == (model.nq, model.nv, model.nsite)
    q, qdot = _random_state(mech, rng)
    terms = [_mujoco_terms(m, coords, mech, q, qdot) for m in (model, again)]
    for name, a, b in zip(("M", "h", "J", "Jdot_qdot", "positions"), terms[1], terms[0]):
        scale = float(np.abs(b).max())
        assert float(np.abs(a - b).max()) <= 1e-5 * scale, name


def test_degenerate_dummy_inertia_is_folded_into_its_fixed_neighbour(tmp_path):
    """Go1's pitfall on a small file: a root link of rank-one inertia on a fixed joint. MuJoCo
    rejects it as it is; folded, the rigid body (and so M) is the one Pinocchio merges."""
    urdf = tmp_path / "dummy.urdf"
    urdf.write_text(
        '<robot name="d"><link name="base"><inertial><mass value="1e-6"/>'
        '<inertia ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"/></inertial></link>'
        '<joint name="mount" type="fixed"><parent link="base"/><child link="trunk"/>'
        '<origin xyz="0.1 0.2 0.3" rpy="0.3 0.2 0.1"/></joint>'
        '<link name="trunk"><inertial><origin xyz="0.01 0 0" rpy="0 0.4 0"/><mass value="2"/>'
        '<inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial></link></robot>')
    with pytest.raises(ValueError, match="positive eigenvalues"):
        mujoco.MjModel.from_xml_string(urdf.read_text())
    text = mujoco_urdf(urdf)
    assert text.count("<inertial>") == 1  # base's inertial moved into trunk
    rng = np.random.default_rng(46)
    _compare(_mechanism(urdf, "floating", [("trunk", (0.0, 0.0, -0.1))], rng), rng)


def test_mujoco_urdf_strips_geometry_and_dynamics(tmp_path):
    urdf = tmp_path / "meshes.urdf"
    urdf.write_text(
        '<robot name="m"><link name="a"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
        '<visual><geometry><mesh filename="package://nowhere/a.stl"/></geometry></visual>'
        '<collision><geometry><mesh filename="package://nowhere/a.stl"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        '<limit effort="1" velocity="1" lower="-1" upper="1"/><dynamics damping="0.5" friction="0.1"/></joint>'
        '<link name="b"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link></robot>')
    text = mujoco_urdf(urdf)
    assert "package://" not in text and "<dynamics" not in text and 'fusestatic="true"' in text
    mech = SpatialMechanism(urdf, base="fixed")
    model, _ = mujoco_model(mech)
    assert model.dof_damping[0] == 0.0 and model.dof_frictionloss[0] == 0.0
    assert model.jnt_range[0].tolist() == [-1.0, 1.0]  # limits are kept
