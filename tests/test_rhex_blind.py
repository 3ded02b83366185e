"""Blind flipping controller (flipping paper, Sec. IV-A) on the compliant simulator."""

import numpy as np

from controllers.rhex import M1, M2, BlindController, RHexParams, simulate, torque_limits
from controllers.rhex.simulator import leg_kinematics


def test_mode_strings():
    assert (M1, M2) == ("RRLL", "RFLL")


def test_blind_flip_limits_and_mode_sequence():
    p = RHexParams(mu_toe=0.39)
    c = BlindController(p)
    r = simulate(c, p, duration=1.0)
    assert r.success and r.flip_time < 0.5
    for s, cmd, tau in zip(r.states[:-1], r.commanded, r.torques):
        lo, hi = torque_limits(leg_kinematics(s, p).phidot, p)
        assert np.all(cmd >= lo - 1e-9) and np.all(cmd <= hi + 1e-9)
        assert np.all(tau >= lo - 1e-9) and np.all(tau <= hi + 1e-9)
    modes = [m for m in r.controller_modes if m is not None]
    k = modes.index(M2)
    assert k > 0 and set(modes[:k]) == {M1} and set(modes[k:]) == {M2}
