"""``UnambiguousOptimalController``'s fallback (``controllers.generic.controller``, *Fallback*): a
step without an acceptable mode applies the last torque of an acceptable mode, clipped to the
limits at the current speeds (``"no_mode_held"``, ``"error_held"``), or before any such torque the
point of the limits nearest zero (``"no_mode_zero"``, ``"error_zero"``) — never a silent zero.

The states come from the gripper of ``tests/data/cases/gripper_squeeze.toml`` (``FFFF``
accepted): at rest ``FFFF`` is the optimum; with the left proximal joint opening at 0.1 rad/s
the left fingertip separates at about 1 cm/s, ten times its ``v0``, so Table III leaves it only
``S`` — the independent oracle (``_support.oracle.table_iii_ok``) says ``FFFF`` is excluded.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.oracle import table_iii_ok
from _support.paths import DATA
from contactmodes.system_file.loader import load_system_file
from controllers.generic import TorqueBox, UnambiguousOptimalController
from controllers.generic.controller import FALLBACK_STATUSES, MODE_STATUSES, STATUSES

GRIPPER = DATA / "cases" / "gripper_squeeze.toml"


@pytest.fixture(scope="module")
def gripper():
    return load_system_file(GRIPPER)


def _box(loaded, **kw) -> TorqueBox:
    lim = loaded.control.limits
    names = loaded.system.torques
    return TorqueBox([lim[a].lo for a in names], [lim[a].hi for a in names], **kw)


def _controller(loaded, box=None) -> UnambiguousOptimalController:
    return UnambiguousOptimalController(loaded, loaded.control.objective, limits=box or _box(loaded),
                                        modes=loaded.control.modes.accepts)


def _opening(loaded) -> np.ndarray:
    """The velocity of the module doc: l1 opening at 0.1 rad/s; checked to exclude ``FFFF``."""
    qdot = np.zeros(loaded.system.n_q)
    qdot[list(loaded.system.coordinates).index("l1")] = -0.1
    system = loaded.mechanism.contact_system(loaded.q, qdot, constraints=loaded.system.constraints)
    tip_l = list(system.contacts).index("tip_l")
    assert system.v_contact[2 * tip_l + 1] > 5 * system.v0[tip_l]  # separating, far beyond v0
    assert not table_iii_ok(system, "FFFF")
    return qdot


def test_the_statuses_are_the_searchs_and_the_fallbacks():
    assert set(MODE_STATUSES) | set(FALLBACK_STATUSES) | {"no_mode", "error"} == set(STATUSES)
    assert all(s.startswith(("no_mode_", "error_")) for s in FALLBACK_STATUSES)


def test_a_first_step_without_an_acceptable_mode_applies_the_limits_point_nearest_zero(gripper):
    """Nothing to hold yet: zero, clipped into the box (here the wrist's box excludes zero)."""
    n = gripper.system.n_tau
    lo, hi = np.full(n, -0.5), np.full(n, 0.5)
    lo[0], hi[0] = 0.25, 2.0  # the wrist: zero is outside
    ctrl = _controller(gripper, TorqueBox(lo, hi))
    tau = ctrl(gripper.q, _opening(gripper))
    assert ctrl.last.status == "no_mode_zero" and ctrl.log[-1].status == "no_mode_zero"
    assert ctrl.last.mode is None and math.isnan(ctrl.last.value)
    assert tau.tolist() == [0.25, 0.0, 0.0, 0.0, 0.0]
    assert ctrl.counts["no_mode_zero"] == 1 and ctrl.counts["no_mode"] == 0 and ctrl.held is None


def test_a_later_step_holds_the_last_acceptable_torque(gripper):
    ctrl = _controller(gripper)
    rest = np.zeros(gripper.system.n_q)
    first = ctrl(gripper.q, rest)
    assert ctrl.last.status == "optimal" and ctrl.last.mode == "FFFF"
    assert np.abs(first).max() > 0.1  # a real squeeze, not a zero torque
    opening = _opening(gripper)
    for _ in range(2):  # held again: the held torque is the last *acceptable* one
        tau = ctrl(gripper.q, opening)
        assert ctrl.last.status == "no_mode_held"
        assert np.array_equal(tau, first)
    again = ctrl(gripper.q, rest)
    assert ctrl.last.status == "optimal" and np.array_equal(again, first)
    assert [r.status for r in ctrl.log] == ["optimal", "no_mode_held", "no_mode_held", "optimal"]
    assert ctrl.counts["no_mode_held"] == 2 and ctrl.counts["optimal"] == 2


def test_the_held_torque_is_clipped_to_the_limits_at_the_current_speeds(gripper):
    """A torque–speed line on l1 (``|τ| <= τ_max (1 − |ω|/ω_0)``: 0.5 · (1 − 0.1/0.2) = 0.25 N·m
    at the opening speed) cuts the held l1 torque of 0.5 N·m to 0.25 N·m."""
    n = gripper.system.n_tau
    tau_max, omega_0 = np.full(n, 10.0), np.full(n, np.inf)  # omega_0 = inf: no line
    tau_max[1], omega_0[1] = 0.5, 0.2
    ctrl = _controller(gripper, _box(gripper, tau_max=tau_max, omega_0=omega_0))
    first = ctrl(gripper.q, np.zeros(gripper.system.n_q))
    assert ctrl.last.status == "optimal" and first[1] == pytest.approx(0.5, abs=ctrl.margin)  # within the margin
    tau = ctrl(gripper.q, _opening(gripper))
    assert ctrl.last.status == "no_mode_held"
    expected = first.copy()
    expected[1] = 0.25
    assert tau == pytest.approx(expected, abs=1e-12)


def test_an_error_step_falls_back_too_and_keeps_its_message(gripper):
    ctrl = _controller(gripper)
    bad = np.full(gripper.system.n_q, np.nan)  # the mechanism refuses a non-finite state
    tau = ctrl(bad, np.zeros(gripper.system.n_q))
    assert ctrl.last.status == "error_zero" and not tau.any() and len(ctrl.errors) == 1
    first = ctrl(gripper.q, np.zeros(gripper.system.n_q))
    tau = ctrl(bad, np.zeros(gripper.system.n_q))
    assert ctrl.last.status == "error_held" and np.array_equal(tau, first)
    assert [r.status for r in ctrl.log] == ["error_zero", "optimal", "error_held"] and len(ctrl.errors) == 2
    tau = ctrl(gripper.q, np.full(gripper.system.n_q, np.nan))  # a velocity the limits cannot read either
    assert ctrl.last.status == "error_held" and np.array_equal(tau, first)
