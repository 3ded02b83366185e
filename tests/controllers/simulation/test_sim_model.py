"""The MuJoCo plant reproduces the toolkit's dynamics (controllers.simulation.model).

MuJoCo's joint-space inertia ``mj_fullM``, bias ``qfrc_bias`` and point Jacobians ``mj_jac`` at the
contact spheres (projected on the toolkit's ``(t, n)``) against the toolkit's analytic ``M``,
``h``, ``J`` (``PlanarMechanism.dynamics``, an independent second model) at the state of each
example (and at a non-zero velocity, so that ``h`` has Coriolis terms). The floor is accounted
for both ways: MuJoCo equals the toolkit's mechanism with the documented floor applied (the
floored links' masses and inertias recomputed here from the rule, not read from the plant), and
differs from the analysed mechanism by no more than the floor.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from contactmodes.model.mechanism import PlanarMechanism  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402
from controllers.simulation.model import build_plant, mechanism_parts  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
FILES = ["two_link_brace.toml", "table_two_legs.toml", "rhex_flip_start.toml", "five_link_climb.toml",
         "six_link_brace.toml", "two_link_brace_urdf.toml"]


def _load(name):
    if "urdf" in name:
        pytest.importorskip("yourdfpy", reason="URDF input is the 'urdf' extra")
    return load_system_file(ROOT / "examples" / name)


def _mujoco_terms(plant, q, qdot):
    model = plant.model
    data = mujoco.MjData(model)
    plant.set_state(data, q, qdot)
    mujoco.mj_forward(model, data)
    full = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, full)
    idx = plant.qpos_index
    J = np.zeros((2 * len(plant.contacts), len(q)))
    positions = np.zeros((len(plant.contacts), 2))
    for i, g in enumerate(plant.sphere_geoms):
        jacp = np.zeros((3, model.nv))
        mujoco.mj_jac(model, data, jacp, None, data.geom_xpos[g], model.geom_bodyid[g])
        J[2 * i] = plant.tangents[i] @ jacp[:2][:, idx]
        J[2 * i + 1] = plant.normals[i] @ jacp[:2][:, idx]
        positions[i] = data.geom_xpos[g][:2]
    return full[np.ix_(idx, idx)], data.qfrc_bias[idx].copy(), J, positions


def _floor_by_rule(mech, q, qdot):
    """The documented floor, recomputed: per link (its point masses merged), mass >= 1e-4 m_total,
    central inertia >= m_min (0.1 L)^2, armature I_min on a floored link's hinge."""
    parts = mechanism_parts(mech)
    L = mech.characteristic_scales(q, qdot).length
    m_total = sum(l["mass"] for l in parts.links) + sum(m for _, m, _ in parts.point_masses)
    m_min = 1e-4 * m_total
    I_min = m_min * (0.1 * L) ** 2
    out = PlanarMechanism(base=mech.base, gravity=mech.gravity, base_position=mech.base_position)
    armature = np.zeros(mech.n_q)
    for l in parts.links:
        pts = [(l["mass"], l["com"])] + [(m, p) for link, m, p in parts.point_masses if link == l["name"]]
        mass = sum(m for m, _ in pts)
        com = sum(m * p for m, p in pts) / mass if mass > 0 else l["com"]
        inertia = l["inertia"] + sum(m * float((p - com) @ (p - com)) for m, p in pts)
        if (mass < m_min or inertia < I_min) and l["joint"] is not None:
            armature[mech.coordinate_index(l["joint"])] = I_min
        out.add_link(l["name"], l["parent"], l["joint"], l["joint_position"], max(mass, m_min), com,
                     max(inertia, I_min))
    for c in parts.contacts:
        out.add_contact(c["name"], c["link"], c["position"], c["surface_point"], c["normal"], c["mu"])
    return out, armature, m_min, I_min


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("moving", [False, True], ids=["at_rest", "moving"])
def test_mujoco_reproduces_the_toolkit_dynamics(name, moving):
    loaded = _load(name)
    mech, q = loaded.mechanism, loaded.q
    qdot = np.linspace(-0.7, 0.9, mech.n_q) if moving else loaded.qdot
    plant = build_plant(mech, loaded.q, loaded.qdot)
    M_mj, h_mj, J_mj, pos_mj = _mujoco_terms(plant, q, qdot)

    floored, armature, m_min, I_min = _floor_by_rule(mech, loaded.q, loaded.qdot)
    ref = floored.dynamics(q, qdot)
    M_ref = ref.M + np.diag(armature)
    scale_M = np.abs(M_ref).max()
    np.testing.assert_allclose(M_mj, M_ref, rtol=0, atol=1e-12 * scale_M)
    np.testing.assert_allclose(h_mj, ref.h, rtol=0, atol=1e-12 * max(1.0, np.abs(ref.h).max()))

    analysed = mech.dynamics(q, qdot)  # the floor does not touch the kinematics
    np.testing.assert_allclose(J_mj, analysed.J, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pos_mj, analysed.positions, rtol=0, atol=1e-12)

    # the plant differs from the analysed model by the floor alone: per floored link at most m_min
    # on each translational entry (times the squared reach), I_min on the rotational ones and the armature
    parts = mechanism_parts(mech)
    n_floored = sum(1 for l in parts.links if l["name"] in plant.difference.floored_links)
    reach = 1.0 + np.abs(analysed.positions).max() + np.abs(q[:2]).max() + plant.length
    bound = n_floored * (m_min * reach ** 2 + 2 * I_min) * 4
    assert np.abs(M_mj - analysed.M).max() <= bound + 1e-12 * scale_M
    assert np.abs(h_mj - analysed.h).max() <= n_floored * m_min * (mech.gravity + 10 * reach ** 2) * 4 + 1e-9
    if n_floored == 0:
        np.testing.assert_allclose(M_mj, analysed.M, rtol=0, atol=1e-12 * scale_M)
    # the reported plant difference is the one seen here
    assert plant.difference.M_rel == pytest.approx(
        np.linalg.norm(M_ref - mech.dynamics(loaded.q, loaded.qdot).M) / np.linalg.norm(mech.dynamics(loaded.q, loaded.qdot).M),
        rel=1e-9, abs=1e-15)


def test_the_base_conventions_hold_in_mujoco():
    """Counter-clockwise angles and the floating base's order (x, y, theta): a contact point of the
    table at theta = 30 deg sits where the rotation R(30 deg) puts it."""
    loaded = _load("table_two_legs.toml")
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot)
    q = np.array([0.3, 0.7, math.radians(30)])
    *_, pos = _mujoco_terms(plant, q, np.zeros(3))
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    expected = np.array([[0.3 + c * -0.4 - s * -0.5, 0.7 + s * -0.4 + c * -0.5],
                         [0.3 + c * 0.4 - s * -0.5, 0.7 + s * 0.4 + c * -0.5]])
    np.testing.assert_allclose(pos, expected, atol=1e-12)


def test_massless_model_is_refused_with_a_field():
    from contactmodes.errors import ContactModelError

    mech = PlanarMechanism()
    mech.add_link("rod")
    with pytest.raises(ContactModelError, match=r"^links: "):
        build_plant(mech, np.zeros(3), np.zeros(3))


def test_limits_become_ctrlrange():
    loaded = _load("two_link_brace.toml")
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=np.array([[-2.0, 1.5]]))
    assert plant.model.actuator_ctrlrange[plant.ctrl_index[0]].tolist() == [-2.0, 1.5]
    assert bool(plant.model.actuator_ctrllimited[plant.ctrl_index[0]])


def test_a_fixed_base_arm_matches_too():
    """A fixed base (a hinge at base_position, the root's absolute angle) with a contact and
    a second link, at a moving state: M, h and J as the toolkit's."""
    from contactmodes.system_file.loader import parse_system

    loaded = parse_system({
        "name": "arm", "mechanism": {"base": "fixed", "base_position": [0.2, 0.5]},
        "links": [{"name": "upper", "joint": "shoulder", "mass": 1.2, "com": [0.15, 0.01], "inertia": 0.02},
                  {"name": "fore", "parent": "upper", "joint": "elbow", "joint_position": [0.3, 0.0], "mass": 0.7,
                   "com": [0.12, 0.0], "inertia": 0.01}],
        "contacts": [{"name": "tip", "link": "fore", "position": [0.25, 0.0], "surface_point": [0.0, 0.5 - 0.3 - 0.25],
                      "surface_normal": [0, 1], "mu": 0.4}],
        "actuators": [{"name": "t1", "coordinate": "shoulder"}, {"name": "t2", "coordinate": "elbow"}],
        "state": {"q": {"shoulder_deg": -90.0, "elbow": 0.0}},
    })
    mech = loaded.mechanism
    plant = build_plant(mech, loaded.q, loaded.qdot)
    assert plant.difference.floored_links == []
    q = np.array([-1.2, 0.4])
    qdot = np.array([0.8, -1.3])
    M_mj, h_mj, J_mj, pos_mj = _mujoco_terms(plant, q, qdot)
    ref = mech.dynamics(q, qdot)
    np.testing.assert_allclose(M_mj, ref.M, atol=1e-12)
    np.testing.assert_allclose(h_mj, ref.h, atol=1e-12)
    np.testing.assert_allclose(J_mj, ref.J, atol=1e-12)
    np.testing.assert_allclose(pos_mj, ref.positions, atol=1e-12)
