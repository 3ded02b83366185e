"""Blind flipping controller (flipping paper, Sec. IV-A) on the compliant simulator.

One cached blind flip at μ_t = 0.39 with the defaults (the tuning condition of the detector) is
checked against the simulator's own contact record, not against the metric functions: the model
switch comes after the simulated rear toe sticks and within 30 ms of it (the reproduction's
target), the controller's modes follow M1 then M2 on the contacts it models, torques respect the
limits, and the thrust lasts until the flip (no pitch stop).
"""

import numpy as np
import pytest

from controllers.rhex import M1, M2, BlindController, RHexParams, simulate, torque_limits
from controllers.rhex.simulator import leg_kinematics

P39 = RHexParams(mu_toe=0.39)


@pytest.fixture(scope="module")
def blind39():
    c = BlindController(P39)
    return c, simulate(c, P39, duration=0.7)


def test_mode_strings():
    assert (M1, M2) == ("RRLL", "RFLL")


def test_detector_settings_come_from_params():
    c = BlindController(RHexParams(detector_threshold=3.5, detector_hold=2))
    assert (c.threshold, c.hold) == (3.5, 2)
    assert BlindController(RHexParams(), threshold=7.0).threshold == 7.0


def test_switch_after_the_simulated_rear_toe_stiction(blind39):
    c, r = blind39
    assert r.success and 0.4 < r.flip_time < 0.6
    assert c.switch_time is not None
    k_switch = int(round(c.switch_time / P39.control_period))
    toe1 = "".join(m[1] for m in r.sim_modes)
    # the simulator's own record: the rear toe slid (R or L) and was stuck again by the switch
    first_slide = min(i for i, ch in enumerate(toe1) if ch in "RL")
    k_stick = k_switch
    while k_stick > first_slide and toe1[k_stick - 1] == "F":
        k_stick -= 1
    assert toe1[k_switch - 1] == "F" and k_stick > first_slide, toe1[first_slide:k_switch]
    delay = (k_switch - k_stick) * P39.control_period
    assert 0.0 <= delay <= 0.030, (c.switch_time, k_stick * P39.control_period)


def test_modes_limits_and_thrust_until_the_flip(blind39):
    c, r = blind39
    for s, cmd, tau in zip(r.states[:-1], r.commanded, r.torques):
        lo, hi = torque_limits(leg_kinematics(s, P39).phidot, P39)
        assert np.all(cmd >= lo - 1e-9) and np.all(cmd <= hi + 1e-9)
        assert np.all(tau >= lo - 1e-9) and np.all(tau <= hi + 1e-9)
    k = int(round(c.switch_time / P39.control_period))
    for i, mode in enumerate(r.controller_modes):
        assumed = M1 if i < k else M2
        # each contact: the assumed letter, or S for a toe the rigid model leaves out (lifted)
        assert all(a == b or (j > 0 and a == "S") for j, (a, b) in enumerate(zip(mode, assumed))), (i, mode)
        toes_up = r.states[i, 7:12:2] > P39.toe_clearance
        assert [mode[j + 1] == "S" for j in range(3)] == list(toes_up), (i, mode)
    # a prediction at every step up to the flip: the thrust phase is the whole run
    assert np.all(np.isfinite(r.predicted_pitch_acc)) and len(r.predicted_pitch_acc) == round(r.flip_time * 1000)
