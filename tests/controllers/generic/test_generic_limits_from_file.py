"""``TorqueBox.from_limits`` (the real-time vector form) against the core's per-actuator
``TorqueLimit.bounds`` (``contactmodes.control.limits``), which the one-shot ``contactmodes
control`` uses: the same box at every actuator speed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contactmodes.control.limits import TorqueLimit
from contactmodes.errors import ContactModelError
from controllers.generic.limits import TorqueBox


def test_from_limits_equals_the_core_limits_at_every_speed():
    limits = {"hip": TorqueLimit(-3.0, 2.0, tau_max=4.0, omega_0=10.0), "knee": TorqueLimit(-1.0, 1.5)}
    box = TorqueBox.from_limits(limits, ("hip", "knee"))
    for omega in ([0.0, 0.0], [5.0, -30.0], [-9.0, 3.0], [12.0, 0.0]):
        lo, hi = box.at(np.array(omega))
        for j, name in enumerate(("hip", "knee")):
            core_lo, core_hi = limits[name].bounds(omega[j])
            assert (lo[j], hi[j]) == pytest.approx((core_lo, core_hi))


def test_from_limits_names_the_actuators_without_a_finite_box():
    with pytest.raises(ContactModelError, match="knee"):
        TorqueBox.from_limits({"hip": TorqueLimit(-1.0, 1.0), "knee": TorqueLimit(-1.0, math.inf)}, ("hip", "knee"))
    with pytest.raises(ContactModelError, match="hip"):
        TorqueBox.from_limits({}, ("hip",))
