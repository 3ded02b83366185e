"""Rigid RHex model (flipping paper, Sec. IV-B.1) against the compliant simulator; torque limits."""

import numpy as np
import pytest

from contactmodes.modes.response import solve_response
from controllers.rhex import (RHexParams, initial_state, rigid_model, simulate, torque_limit_polytope,
                              torque_limits)
from controllers.rhex.rigid_model import PITCH_INDEX, expand_mode

P = RHexParams()


def test_rigid_model_at_rest():
    m = rigid_model(initial_state(P), P)
    assert m.contacts == ("body", "toe1", "toe2", "toe3")
    assert np.allclose(m.mechanism.contact_gaps(m.q), 0.0, atol=1e-12)
    assert np.allclose(m.system.M[3:], 0.0)  # massless legs: rows are the moment balance (36)
    assert np.allclose(m.system.v_contact, 0.0)
    assert m.system.coordinates == ("x", "y", "theta", "phi1", "phi2", "phi3")
    assert len(m.system.constraints) == 1 and m.system.constraints[0].kind == "task"


def test_lifted_toe_is_omitted():
    s = initial_state(P)
    s[11] = 0.02  # front toe 2 cm up
    m = rigid_model(s, P)
    assert m.contacts == ("body", "toe1", "toe2")
    assert expand_mode("RFL", m.contacts) == "RFLS"


def test_rigid_pitch_acceleration_matches_simulator_in_sticking_configuration():
    """Held torque; the rigid prediction in the simulated mode at t = 30 ms (rear toe stuck) vs the
    simulator's mean θ̈ over the next 10 ms. Tolerance 15 rad/s² (paper's Table V RMSEs: 6.7–11.6)."""
    tau = np.array([-10.0, -10.0, -10.0])
    p_hw = P.with_(tau_limit=P.tau_stall)  # the hardware line: −10 N·m is applied unsaturated
    r = simulate(lambda t, s, p: tau, p_hw, duration=0.05)
    assert np.allclose(r.torques, tau)
    k = 30
    mode = r.sim_modes[k]
    assert mode[1] == "F"  # rear toe sticking
    model = rigid_model(r.states[k], P, task=False)
    resp = solve_response(model.system, mode, task=False)
    pred = float(resp.P_q[PITCH_INDEX] @ tau + resp.r_q[PITCH_INDEX])
    meas = (r.states[k + 10, 5] - r.states[k, 5]) / 0.01
    assert abs(pred - meas) < 15.0, (pred, meas, mode)


def test_torque_limits():
    """The hardware line (16.2 N·m stall, 43.1 rad/s no-load: half the torque at 21.55 rad/s, none
    above no-load) and the effective limit scaling the whole line (rhex.md, limits.py)."""
    hw = P.with_(tau_limit=P.tau_stall)
    lo, hi = torque_limits([0.0, 21.55, -50.0], hw)
    assert np.allclose(hi, [16.2, 8.1, 0.0]) and np.allclose(lo, -hi)
    lo, hi = torque_limits([0.0, 21.55, -50.0], P.with_(tau_limit=10.0))
    assert np.allclose(hi, [10.0, 5.0, 0.0])
    box = torque_limit_polytope([0.0, 0.0, 0.0], hw)
    assert box.contains([16.2, -16.2, 0.0]) and not box.contains([16.3, 0.0, 0.0])
    assert P.tau_stall == 16.2 and P.tau_limit < P.tau_stall  # the default is the calibrated effective limit
    with pytest.raises(ValueError):
        torque_limits([0.0, 1.0], P)


def test_analytic_model_equals_the_mechanism_at_random_states():
    """The closed-form rigid model (rigid_arrays / analytic_model) against the generic
    PlanarMechanism (rigid_model, the reference) at random states: poses, pitch, hip angles, leg
    lengths, velocities, toes on the ground or lifted; every term to 1e-12 relative to its size."""
    from controllers.rhex.rigid_model import analytic_model

    rng = np.random.default_rng(7)
    p = RHexParams(mu_toe=0.45, mu_body=0.2)
    base = initial_state(p)
    lifted = 0
    for _ in range(60):
        s = base.copy()
        s[0:3] += rng.normal(0.0, [0.05, 0.01, 0.6])
        s[3:6] = rng.normal(0.0, [0.5, 0.5, 4.0])
        for i in range(3):
            hip = np.array([s[0] + p.hips[i] * np.cos(s[2]), s[1] + p.hips[i] * np.sin(s[2])])
            ang, r = rng.uniform(-np.pi, 0.0), rng.uniform(0.12, 0.2)
            s[6 + 2 * i:8 + 2 * i] = hip + r * np.array([np.cos(ang), np.sin(ang)])
            s[7 + 2 * i] = rng.choice([0.0, rng.uniform(-0.003, 0.004), rng.uniform(0.006, 0.05)])
            s[12 + 2 * i:14 + 2 * i] = rng.normal(0.0, 0.5, 2)
        a, b = rigid_model(s, p), analytic_model(s, p)
        assert a.contacts == b.contacts
        lifted += 4 - len(a.contacts)
        for f in ("M", "h", "S", "J", "Jdot_qdot", "v_contact", "mu", "v0"):
            x, y = getattr(a.system, f), getattr(b.system, f)
            assert np.abs(x - y).max(initial=0.0) <= 1e-12 * max(1.0, float(np.abs(x).max(initial=0.0))), f
        for f in ("length", "mass", "time"):
            assert getattr(b.system.scales, f) == pytest.approx(getattr(a.system.scales, f), rel=1e-12)
        assert np.allclose(a.q, b.q, rtol=0, atol=1e-12) and np.allclose(a.qdot, b.qdot, rtol=0, atol=1e-12)
        assert a.system.constraints[0].rhs == b.system.constraints[0].rhs
    assert lifted > 10  # toes were left out in some states


def _random_states(rng, p, n):
    base = initial_state(p)
    for _ in range(n):
        s = base.copy()
        s[0:3] += rng.normal(0.0, [0.05, 0.01, 0.6])
        s[3:6] = rng.normal(0.0, [0.5, 0.5, 4.0]) * rng.choice([0.0, 1.0])  # some at rest: exact zeros
        s[6:12] += rng.normal(0.0, 0.02, 6)
        s[12:18] = rng.normal(0.0, 0.5, 6) * rng.choice([0.0, 1.0])
        yield s


def test_leg_kinematics_bit_for_bit_the_vectorized_formulas():
    """leg_kinematics (Python floats per leg, kept for speed) gives exactly — bit for bit, signs
    of zeros included — the numbers of the componentwise NumPy formulas it replaced (written out
    here), so the simulator's physics did not change."""
    from controllers.rhex import leg_kinematics

    p = RHexParams()
    rng = np.random.default_rng(11)
    for s in _random_states(rng, p, 300):
        x, y, th, vx, vy, om = s[:6]
        c, sn = np.cos(th), np.sin(th)
        d = np.asarray(p.hips)
        hip = np.stack([x + d * c, y + d * sn], axis=1)
        hip_vel = np.stack([vx - om * d * sn, vy + om * d * c], axis=1)
        e = s[6:12].reshape(3, 2) - hip
        r = np.hypot(e[:, 0], e[:, 1])
        rel = s[12:18].reshape(3, 2) - hip_vel
        rdot = np.sum(e * rel, axis=1) / r
        beta = np.arctan2(e[:, 1], e[:, 0])
        phidot = (e[:, 0] * rel[:, 1] - e[:, 1] * rel[:, 0]) / r**2 - om
        phi = np.angle(np.exp(1j * (beta - th)))
        lk = leg_kinematics(s, p)
        for want, got in ((hip, lk.hip), (hip_vel, lk.hip_vel), (r, lk.r), (rdot, lk.rdot), (beta, lk.beta),
                          (phi, lk.phi), (phidot, lk.phidot)):
            assert got.shape == want.shape and np.array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want))


def test_rigid_arrays_scales_from_extent_equal_from_mechanism_data():
    """rigid_arrays reduces its few points itself (CharacteristicScales.from_extent): the two
    reductions give exactly NumPy's numbers as from_mechanism_data computes them (random point
    sets, NaN included), and the scales of rigid_arrays equal from_mechanism_data on the model's
    points rebuilt here from the state (toe points to rounding: the model rebuilds them from r, β)."""
    import math

    from contactmodes.model.system import CharacteristicScales
    from controllers.rhex.rigid_model import _largest, _largest_distance, rigid_arrays

    rng = np.random.default_rng(12)
    for _ in range(500):
        q = [tuple(v) for v in rng.normal(0.0, rng.choice([1e-3, 1.0, 1e3]), (rng.integers(1, 9), 2))]
        P = np.array(q)
        want = float(np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=2)).max()) if len(q) > 1 else 0.0
        assert _largest_distance(q) == want
        v = np.abs(rng.normal(0.0, 1.0, rng.integers(1, 9)))
        assert _largest(v.tolist()) == float(np.max(v, initial=0.0))
    v = [0.3, math.nan, 2.0]
    assert math.isnan(_largest(v))
    a = CharacteristicScales.from_mechanism_data(np.array([[0.0, 0.0], [1.0, 0.0]]), 9.0, 9.81, np.array(v))
    b = CharacteristicScales.from_extent(_largest_distance([(0.0, 0.0), (1.0, 0.0)]), 9.0, 9.81, _largest(v))
    assert (a.length, a.mass, a.time) == (b.length, b.mass, b.time)
    p = RHexParams()
    for s in _random_states(rng, p, 100):
        ra = rigid_arrays(s, p)
        x, y, th = s[:3]
        R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
        pts = [np.array([x, y]), np.array([x, y]) + R @ np.array([-p.d, -p.h])]
        pts += [np.array([x, y]) + R @ np.array([di, 0.0]) for di in p.hips]
        pts += [s[6 + 2 * (int(cn[-1]) - 1):8 + 2 * (int(cn[-1]) - 1)] for cn in ra.contacts[1:]]
        speeds = np.abs(np.linalg.norm(ra.v_contact.reshape(-1, 2), axis=1))  # not all the points: a lower bound
        ref = CharacteristicScales.from_mechanism_data(np.array(pts), p.m, p.gravity, speeds)
        assert ra.scales.length == pytest.approx(ref.length, rel=1e-12)
        assert ra.scales.mass == ref.mass and ra.scales.time <= ref.time * (1 + 1e-12)
