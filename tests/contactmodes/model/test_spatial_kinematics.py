"""Spatial dynamics (contactmodes.model.spatial) against their own definitions, by finite
differences along a trajectory — no second dynamics library.

The trajectory has the toolkit's velocity ``q̇(t) = q̇ + q̈ t`` (constant generalized
acceleration ``q̈``): base position and joints in closed form, the base orientation integrated
from ``Ṙ = [ω(t)]× R`` (world-frame ``ω``, the quaternion equation ``q̇ = ½ (0, ω) ⊗ q``) by RK4 on
fine steps. Then, by 5-point central differences at ``t = 0``:

* ``d/dt p = J q̇`` (``v_contact``) — the contact points' world positions;
* ``d/dt (J q̇) = J q̈ + J̇ q̇`` — the contact velocities along the trajectory;
* ``d²/dt² p = J q̈ + J̇ q̇`` and ``d²/dt² gap = n·(J q̈ + J̇ q̇)`` — the classical acceleration, the
  gap's second derivative (the normal row of ``J̇ q̇`` is not the spatial acceleration's);
* energy: with no contact force and no torque, ``M q̈ = −h`` conserves ``½ q̇ᵀ M q̇ + V(q)`` —
  ``h``'s velocity terms in world-frame base coordinates (``Tᵀ M_pin Ṫ q̇``) included.
"""

from __future__ import annotations

import numpy as np
import pytest

from _support.robots import BOX_URDF, SPATIAL

pin = pytest.importorskip("pinocchio")

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402

STEP = 1e-3


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def _orientation(quat, omega, alpha, t, substeps=40):
    """RK4 of ``q̇ = ½ (0, ω + α s) ⊗ q`` from ``s = 0`` to ``t``."""
    f = lambda s, q: 0.5 * _qmul(np.concatenate([[0.0], omega + alpha * s]), q)  # noqa: E731
    q, s, dt = np.array(quat, dtype=float), 0.0, t / substeps
    for _ in range(substeps):
        k1 = f(s, q)
        k2 = f(s + dt / 2, q + dt / 2 * k1)
        k3 = f(s + dt / 2, q + dt / 2 * k2)
        k4 = f(s + dt, q + dt * k3)
        q, s = q + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), s + dt
    return q


def _state_at(mech, q, qdot, qdd, t):
    """``(q(t), q̇(t))`` of the trajectory of the module docstring."""
    v = qdot + qdd * t
    if not mech.floating:
        return q + qdot * t + 0.5 * qdd * t * t, v
    quat = q[3:7] / np.linalg.norm(q[3:7])
    out = np.concatenate([q[:3] + qdot[:3] * t + 0.5 * qdd[:3] * t * t,
                          _orientation(quat, qdot[3:6], qdd[3:6], t),
                          q[7:] + qdot[6:] * t + 0.5 * qdd[6:] * t * t])
    return out, v


def _derivatives(samples):
    """First and second 5-point central differences at the middle of samples at ``−2h … 2h``."""
    m2, m1, c, p1, p2 = samples
    return (m2 - 8 * m1 + 8 * p1 - p2) / (12 * STEP), (-m2 + 16 * m1 - 30 * c + 16 * p1 - p2) / (12 * STEP ** 2)


def _mechanism(name, base, rng):
    mech = SpatialMechanism(BOX_URDF if name == "box.urdf" else SPATIAL / name, base=base)
    links = {"mixed_arm.urdf": ["fingertip", "tool", "side_link", "base_link"], "box.urdf": ["box", "box"]}[name]
    for i, link in enumerate(links):
        mech.add_contact(f"c{i}", link, rng.normal(scale=0.1, size=3), rng.normal(size=3), rng.normal(size=3), 0.5)
    return mech


CASES = [("mixed_arm.urdf", "floating"), ("mixed_arm.urdf", "fixed"), ("box.urdf", "floating")]


@pytest.mark.parametrize("name, base", CASES)
@pytest.mark.parametrize("accelerating", [False, True])
def test_contact_terms_are_the_derivatives_of_positions_and_gaps(name, base, accelerating):
    rng = np.random.default_rng(7)
    mech = _mechanism(name, base, rng)
    for _ in range(3):
        q = rng.normal(size=len(mech.configuration_names))
        qdot = rng.normal(scale=1.5, size=mech.n_v)
        qdd = rng.normal(scale=2.0, size=mech.n_v) if accelerating else np.zeros(mech.n_v)
        states = [_state_at(mech, q, qdot, qdd, k * STEP) for k in (-2, -1, 0, 1, 2)]
        dyns = [mech.dynamics(*s) for s in states]
        d = dyns[2]
        frames = np.array([c.frame for c in mech.contacts])  # (k, 3, 3)
        accel = d.J @ qdd + d.Jdot_qdot  # (3k,) contact-frame rows
        scale_v = max(1.0, float(np.abs(d.v_contact).max()))
        scale_a = max(1.0, float(np.abs(accel).max()))

        dp, ddp = _derivatives([x.positions for x in dyns])  # (k, 3) world
        np.testing.assert_allclose(np.einsum("kij,kj->ki", frames, dp).ravel(), d.v_contact, rtol=0,
                                   atol=1e-8 * scale_v)
        np.testing.assert_allclose(np.einsum("kij,kj->ki", frames, ddp).ravel(), accel, rtol=0, atol=1e-6 * scale_a)
        dv, _ = _derivatives([x.v_contact for x in dyns])
        np.testing.assert_allclose(dv, accel, rtol=0, atol=1e-7 * scale_a)
        gaps = [mech.contact_gaps(s[0]) for s in states]
        np.testing.assert_allclose(gaps[2], d.gaps, rtol=0, atol=1e-15)
        dg, ddg = _derivatives(gaps)
        np.testing.assert_allclose(dg, d.v_contact[2::3], rtol=0, atol=1e-8 * scale_v)
        np.testing.assert_allclose(ddg, accel[2::3], rtol=0, atol=1e-6 * scale_a)


def test_the_spatial_acceleration_would_not_be_the_gaps_second_derivative():
    """The check above can fail: the spatial acceleration's linear part (no ``ω × v``) differs
    from the gap's second derivative at a rotating state by much more than its tolerance."""
    rng = np.random.default_rng(8)
    mech = _mechanism("box.urdf", "floating", rng)
    q = np.array([0.0, 0.0, 0.3, 1.0, 0.2, -0.1, 0.3])
    qdot = np.array([0.5, -0.3, 0.2, 2.0, -1.0, 3.0])
    model = mech.pinocchio_model
    data = model.createData()
    q_pin, v_pin, a0, _ = mech.pinocchio_state(q, qdot)
    pin.forwardKinematics(model, data, q_pin, v_pin, a0)
    pin.updateFramePlacements(model, data)
    fid = model.getFrameId("contactmodes/contact/c0")
    spatial = np.array(pin.getFrameAcceleration(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED).linear)
    d = mech.dynamics(q, qdot)
    assert np.abs(mech.contacts[0].frame @ spatial - d.Jdot_qdot[:3]).max() > 1e-2


def _energy(mech, q, qdot):
    d = mech.dynamics(q, qdot)
    model = mech.pinocchio_model
    q_pin = mech.pinocchio_state(q, qdot)[0]
    return 0.5 * qdot @ d.M @ qdot + pin.computePotentialEnergy(model, model.createData(), q_pin)


@pytest.mark.parametrize("base", ["floating", "fixed"])
def test_passive_motion_conserves_energy(base):
    """RK4 of ``M q̈ = −h`` in the toolkit's coordinates (orientation by ``Ṙ = [ω]× R``)."""
    mech = SpatialMechanism(SPATIAL / "mixed_arm.urdf", base=base)
    rng = np.random.default_rng(9)
    q = rng.normal(size=len(mech.configuration_names))
    qdot = rng.normal(scale=2.0, size=mech.n_v)
    nb = 7 if mech.floating else 0

    def rate(q_, v_):
        d = mech.dynamics(q_, v_)
        qdd = np.linalg.solve(d.M, -d.h)
        dq = np.empty_like(q_)
        if mech.floating:
            quat = q_[3:7]
            dq[:3] = v_[:3]
            dq[3:7] = 0.5 * _qmul(np.concatenate([[0.0], v_[3:6]]), quat)
            dq[7:] = v_[6:]
        else:
            dq[:] = v_
        return dq, qdd

    e0 = _energy(mech, q, qdot)
    dt = 2e-3
    for _ in range(100):
        k1 = rate(q, qdot)
        k2 = rate(q + dt / 2 * k1[0], qdot + dt / 2 * k1[1])
        k3 = rate(q + dt / 2 * k2[0], qdot + dt / 2 * k2[1])
        k4 = rate(q + dt * k3[0], qdot + dt * k3[1])
        q = q + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        qdot = qdot + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        if nb:
            q[3:7] /= np.linalg.norm(q[3:7])
    kinetic = 0.5 * qdot @ mech.dynamics(q, qdot).M @ qdot
    assert kinetic > 1e-2  # it moved
    assert abs(_energy(mech, q, qdot) - e0) <= 1e-8 * max(abs(e0), kinetic)
