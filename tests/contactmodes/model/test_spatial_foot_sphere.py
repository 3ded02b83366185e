"""A point contact for Go1's spherical foot (``docs/spatial.md``, "Pitfalls"; issue 40, item 7).

Go1's (and A1's) foot frame sits at the centre of the foot's collision sphere (radius ``r``, read
here from the URDF's ``<collision><sphere>``). The point that touches a plane of normal ``n`` is
``c − r n``; in the foot link's frame that is ``Rᵀ(−r n)`` with ``R`` the link's orientation at
the state. The oracles are geometry written here: the link's pose read from three probe points
(the link-frame origin and unit offsets along its axes), the sphere tangent to the floor, and
rigid-body kinematics (``ω`` from the velocities of the probe points):

* placed so, the point contact has gap 0 when the sphere touches the plane;
* when the foot rolls by ``Δθ`` (the calf joint turned, the sphere still touching), the point fixed
  in the link leaves the touching point along the sphere: gap ``r (1 − cos Δθ)``, distance
  ``2 r sin(Δθ/2)`` (arc ``r Δθ``);
* in motion, its normal ``J̇ q̇`` exceeds the sphere's (the centre's normal ``J̇ q̇``, the gap's
  second derivative at ``q̈ = 0``) by ``r |ω_t|²`` (``ω_t`` the link's angular velocity in the
  plane), and its tangential ``J̇ q̇`` differs from the rolling constraint's by ``−r (ω·n) ω_t``:
  the rows agree at rest, not in motion.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

pytest.importorskip("pinocchio")
pytest.importorskip("example_robot_data")

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.spatial_state import state_vectors  # noqa: E402

from _support.robots import erd_urdf  # noqa: E402

FOOT, A = "FL_foot", 0.1  # the link, the probes' offset (m)
STANDING = {"base_position": [0.0, 0.0, 0.3], "base_rpy_deg": [0.0, 0.0, 30.0],
            **{f"{leg}_{j}_joint": v for leg in ("FL", "FR", "RL", "RR")
               for j, v in (("hip", 0.0), ("thigh", 0.9), ("calf", -1.8))}}


def _radius(path) -> float:
    link = next(x for x in ET.parse(path).getroot().findall("link") if x.get("name") == FOOT)
    return float(link.find("collision").find("geometry").find("sphere").get("radius"))


def _pose(path, q_table, qdot_table=None):
    """The foot link's origin ``c``, orientation ``R`` (columns: its axes in the world), and the
    world velocities of its origin and of the points ``c + A R e_x``, ``c + A R e_y``."""
    probe = SpatialMechanism(path, base="floating")
    for i, p in enumerate([(0.0, 0.0, 0.0), (A, 0.0, 0.0), (0.0, A, 0.0), (0.0, 0.0, A)]):
        probe.add_contact(f"p{i}", FOOT, p, (0, 0, 0), (0, 0, 1), 0.5, tangent=(1, 0, 0))
    q, qdot = state_vectors(probe, q_table, qdot_table or {})
    d = probe.dynamics(q, qdot)
    c = d.positions[0]
    R = np.stack([(d.positions[i] - c) / A for i in (1, 2, 3)], axis=1)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    # the probes' frames are the world's (floor normal z, t1 = x): v_contact rows are world velocities
    v = d.v_contact.reshape(-1, 3)
    return c, R, v, d.Jdot_qdot.reshape(-1, 3)


def _foot_contact(path, q_table, position, floor_z, qdot_table=None):
    mech = SpatialMechanism(path, base="floating")
    mech.add_contact("FL", FOOT, tuple(position), (0.0, 0.0, floor_z), (0, 0, 1), 0.6, tangent=(1, 0, 0))
    q, qdot = state_vectors(mech, q_table, qdot_table or {})
    return mech, q, qdot


def test_a_point_a_radius_below_the_foot_centre_touches_when_the_sphere_does():
    path = erd_urdf("go1")
    r = _radius(path)
    assert r == pytest.approx(0.02)  # "2 cm lower"
    for hip, yaw in ((0.0, 30.0), (0.25, -70.0)):
        table = dict(STANDING, FL_hip_joint=hip, base_rpy_deg=[5.0, -8.0, yaw])
        c, R, _, _ = _pose(path, table)
        floor = c[2] - r  # the sphere tangent to the floor
        position = R.T @ np.array([0.0, 0.0, -r])  # the link frame's direction towards the ground, times r
        mech, q, _ = _foot_contact(path, table, position, floor)
        d = mech.dynamics(q, np.zeros(mech.n_v))
        assert abs(d.gaps[0]) < 1e-12
        np.testing.assert_allclose(d.positions[0], c - [0.0, 0.0, r], atol=1e-12)
        # the foot frame's origin itself (position 0, the URDF's frame) is r above the floor
        mech0, q0, _ = _foot_contact(path, table, (0.0, 0.0, 0.0), floor)
        assert mech0.contact_gaps(q0)[0] == pytest.approx(r, abs=1e-12)


@pytest.mark.parametrize("dtheta", [0.05, 0.2, 0.5])
def test_a_rolling_foot_leaves_the_point_fixed_in_its_link(dtheta):
    """The calf turned by ``Δθ`` about its axis (horizontal: hip 0, the base yawed only), the
    floor moved so the sphere still touches it: the point placed at the first state is ``r (1 −
    cos Δθ)`` above the floor and ``2 r sin(Δθ/2)`` from the new touching point."""
    path = erd_urdf("go1")
    r = _radius(path)
    c, R, _, _ = _pose(path, STANDING)
    position = R.T @ np.array([0.0, 0.0, -r])
    rolled = dict(STANDING, FL_calf_joint=STANDING["FL_calf_joint"] + dtheta)
    c1, _, _, _ = _pose(path, rolled)
    mech, q, _ = _foot_contact(path, rolled, position, c1[2] - r)
    d = mech.dynamics(q, np.zeros(mech.n_v))
    assert d.gaps[0] == pytest.approx(r * (1 - math.cos(dtheta)), abs=1e-12)
    touching = c1 - [0.0, 0.0, r]
    assert np.linalg.norm(d.positions[0] - touching) == pytest.approx(2 * r * math.sin(dtheta / 2), abs=1e-12)


def test_in_motion_the_point_contact_rows_differ_from_the_rolling_sphere():
    """Normal ``J̇ q̇``: the point's minus the centre's is ``r |ω_t|²`` (``ω`` the foot's angular
    velocity, world axes, from the probes: ``v(c + A R e_x) − v(c) = A ω × R e_x``); at rest both
    vanish."""
    path = erd_urdf("go1")
    r = _radius(path)
    rng = np.random.default_rng(40)
    qdot_table = {"base_linear": rng.normal(size=3).tolist(), "base_angular": rng.normal(size=3).tolist(),
                  **{f"{leg}_{j}_joint": float(rng.normal()) for leg in ("FL", "FR", "RL", "RR")
                     for j in ("hip", "thigh", "calf")}}
    c, R, v, jdq = _pose(path, STANDING, qdot_table)
    ex, ey = R[:, 0], R[:, 1]
    # ω × ex = (v1 − v0)/A and ω × ey = (v2 − v0)/A: with ω = a ex + b ey + g ez (ez = ex × ey),
    # ω × ex = g ey − b ez, ω × ey = −g ex + a ez
    dx, dy = (v[1] - v[0]) / A, (v[2] - v[0]) / A
    omega_link = np.array([dy @ R[:, 2], -dx @ R[:, 2], dx @ ey])
    omega = R @ omega_link
    position = R.T @ np.array([0.0, 0.0, -r])
    mech, q, qdot = _foot_contact(path, STANDING, position, c[2] - r, qdot_table)
    d = mech.dynamics(q, qdot)
    centre_normal_jdq = jdq[0][2]  # probe 0 is the centre, its frame the world's
    assert d.Jdot_qdot[2] - centre_normal_jdq == pytest.approx(r * (omega[0] ** 2 + omega[1] ** 2), rel=1e-9)
    assert abs(omega[0]) + abs(omega[1]) > 0.5  # a state where the difference is not small
    # tangentially: the rolling constraint's derivative d/dt(v_c + ω × (−r n)) at q̈ = 0 is
    # a_c + α × (−r n); the point's differs by ω × (ω × (−r n)), whose tangential part is
    # −r (ω·n) ω_t. α from the probes: a(c + A e) − a(c) = A (α × e + ω × (ω × e)) at q̈ = 0.
    n = np.array([0.0, 0.0, 1.0])
    ux = (jdq[1] - jdq[0]) / A - np.cross(omega, np.cross(omega, ex))
    uy = (jdq[2] - jdq[0]) / A - np.cross(omega, np.cross(omega, ey))
    alpha = R @ np.array([uy @ R[:, 2], -ux @ R[:, 2], ux @ ey])
    rolling = jdq[0] + np.cross(alpha, -r * n)
    omega_t = omega - (omega @ n) * n
    np.testing.assert_allclose(d.Jdot_qdot[:2] - rolling[:2], (-r * (omega @ n) * omega_t)[:2],
                               rtol=0, atol=1e-9 * np.abs(d.Jdot_qdot).max())
    d0 = mech.dynamics(q, np.zeros(mech.n_v))
    np.testing.assert_allclose(d0.Jdot_qdot, 0.0, atol=1e-12)
