"""Sanity tests of the compliant RHex simulator (flipping paper, Sec. IV-C.1)."""

import math

import numpy as np

from controllers.rhex import RHexParams, energy, initial_state, simulate
from controllers.rhex.simulator import body_corners, leg_kinematics, step, toe_contact_impulse

P = RHexParams()
P_HW = RHexParams(tau_limit=16.2)  # the hardware torque line (full 16.2 N·m thrust unsaturated at rest)
ZERO = lambda t, s, p: np.zeros(3)  # noqa: E731
THRUST = lambda t, s, p: -16.2 * np.ones(3)  # noqa: E731


def test_rest_stays_put_energy_does_not_grow():
    s0 = initial_state(P)
    r = simulate(ZERO, P, duration=0.3)
    assert r.outcome == "timeout"
    assert np.abs(r.states - s0).max() < 1e-9
    e = [energy(s, P) for s in r.states[::20]]
    assert max(e) <= e[0] + 1e-9
    pen = min(body_corners(s, P)[:, 1].min() for s in r.states[::20])
    assert -0.006 < pen < 0.0  # ≈ m g / (2 k_b) = 4.2 mm


def test_penetration_bounded_during_thrust():
    r = simulate(THRUST, P_HW, duration=0.3)
    pen = min(body_corners(s, P)[:, 1].min() for s in r.states)
    assert pen > -0.02
    assert r.states[:, 7:12:2].min() > -1e-9  # toes never below ground


def _hold_legs_up(t, s, p):
    lk = leg_kinematics(s, p)
    return -2.0 * (lk.phi - math.pi / 2) - 0.1 * lk.phidot


def _block_state(p):
    s = initial_state(p)
    for i, d in enumerate(p.hips):
        s[6 + 2 * i], s[7 + 2 * i] = d, s[1] + p.l
    return s


def test_block_on_slope_below_friction_angle_stays_put():
    p = RHexParams(slope=math.atan(0.2))  # tan 0.2 < mu_body 0.3
    s0 = _block_state(p)
    r = simulate(_hold_legs_up, p, duration=0.5, initial_state=s0)
    # the rear-bottom corner (stuck by Coulomb friction) does not creep; the body only rocks by
    # a few hundredths of a degree while the penetration settles under the tilted load
    corner = np.array([body_corners(s, p)[0, 0] for s in r.states])
    assert np.abs(corner - corner[0]).max() < 1e-6
    assert abs(r.states[-1, 0] - s0[0]) < 1e-3
    # above the friction angle it slides down the slope (−x)
    p2 = RHexParams(slope=math.atan(0.4))
    r2 = simulate(_hold_legs_up, p2, duration=0.3, initial_state=_block_state(p2))
    a = p2.gravity * (np.sin(p2.slope) - p2.mu_body * np.cos(p2.slope))  # Coulomb block: 0.91 m/s²
    assert abs((s0[0] - r2.states[-1, 0]) - 0.5 * a * 0.3**2) < 0.1 * 0.5 * a * 0.3**2


def test_toe_stiction_holds_below_cone():
    p = RHexParams(mu_toe=0.39)
    s0 = initial_state(p)
    r = simulate(lambda t, s, pp: np.array([0.0, -3.0, 0.0]), p, duration=0.3, initial_state=s0)
    assert abs(r.states[-1, 8] - s0[8]) < 1e-12  # middle toe x: not a nanometre of creep
    assert all(m[2] == "F" for m in r.sim_modes)
    # the single-contact solver: inside the cone → F with zero tangential velocity; outside → slides
    v, P_, letter = toe_contact_impulse((0.1, -1.0), (0.0, -1.0), 0.05, 0.5, 0.0, 0.6)
    assert letter == "F" and v[0] == 0.0 and abs(P_[0]) <= 0.6 * P_[1]
    v, P_, letter = toe_contact_impulse((5.0, -1.0), (1.0, 0.0), 0.05, 0.5, 0.0, 0.6)
    assert letter == "R" and v[0] > 0 and math.isclose(P_[0], -0.6 * P_[1])


def test_integrator_converges_when_halving_step():
    out = []
    for dt in (1e-4, 5e-5):
        p = RHexParams(sim_dt=dt, tau_limit=16.2)
        out.append(simulate(THRUST, p, duration=0.1).states[-1])
    a, b = out
    assert np.abs(a[:2] - b[:2]).max() < 1e-3  # body position: < 1 mm
    assert abs(a[2] - b[2]) < 5e-3  # pitch: < 5 mrad
    assert np.abs(a[6:12] - b[6:12]).max() < 2e-3  # toes: < 2 mm


def test_single_step_shapes():
    s = step(initial_state(P), np.zeros(3), P)
    assert s.shape == (18,)
