"""The RHex max-thrust controller is the generic controller configured for RHex: at every step of
the two reference flips (μ_t = 0.39 and 0.6, the defaults, 1 s at most) it commands the torques,
modes, predictions and statuses recorded from the controller *before* it became the generic one
(``tests/data/flip_steps/``, written by ``tests/_support/record_flip_steps.py`` on that code) —
the modes and statuses exactly, the torques and predictions within the step's conditioning
(``_support.replay_check``: the record was written on one machine); and it is an
``UnambiguousOptimalController``'s base with RHex's objective.

A mode that differs from the record at some step is checked by RHex's independent reference at
that state (``_support.rhex_reference``): the replayed step must be the reference's optimum and
the recorded mode tie with it (a legitimate flip within the tolerances). The closed loops part
there (another torque), so the comparison stops at the first such step."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from _support.paths import DATA
from _support.record_flip_steps import FLIPS, record
from _support.replay_check import close, close_torques, float_rtol, mode_condition
from _support.rhex_reference import VALUE_RTOL, assert_matches_reference
from controllers.generic.controller import OptimalControllerBase
from controllers.rhex.max_thrust import PITCH_OBJECTIVE, MaxThrustController
from controllers.rhex.rigid_model import PITCH_INDEX


def test_max_thrust_is_the_generic_controller_with_the_pitch_objective():
    assert issubclass(MaxThrustController, OptimalControllerBase)
    assert PITCH_OBJECTIVE.sense == "maximize" and PITCH_OBJECTIVE.qdd.tolist() == np.eye(6)[PITCH_INDEX].tolist()
    assert not PITCH_OBJECTIVE.force.any() and not PITCH_OBJECTIVE.tau.any()


def _present_mode(step, mode4):
    return "".join(mode4[i] for i in step.contact_index)


def _check_flip(state, last, params, recorded_mode, where):
    """A replayed step whose mode is not the recorded one (module doc)."""
    from controllers.rhex.limits import torque_limits
    from controllers.rhex.max_thrust import StepModel, max_thrust_reference
    from controllers.rhex.simulator import leg_kinematics

    step = StepModel(state, params, params.normal_velocity_tol)
    lo, hi = torque_limits(leg_kinematics(state, params).phidot, params)
    assert_matches_reference(step, lo, hi, last, where)  # the replayed step is the reference's optimum
    ref = max_thrust_reference(step, lo, hi, task=last.status == "optimal")
    tol = VALUE_RTOL * max(1.0, abs(ref.best))
    assert ref.values.get(_present_mode(step, recorded_mode), -math.inf) >= ref.best - tol, (where, ref.values)


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(FLIPS))
def test_every_step_of_the_reference_flips_is_the_recorded_one(stem):
    from controllers.rhex.max_thrust import StepModel

    stored = json.loads((DATA / "flip_steps" / f"{stem}.json").read_text(encoding="utf-8"))
    calls: list = []
    now = record(FLIPS[stem], calls)
    assert len(calls) == len(now["steps"])
    for k, (a, b) in enumerate(zip(now["steps"], stored["steps"])):
        state, last, params = calls[k]
        assert (a["t"], a["status"]) == (b["t"], b["status"]), k
        if a["mode"] != b["mode"]:
            _check_flip(state, last, params, b["mode"], f"{stem} step {k}")
            return  # the loops part here (module doc)
        step = StepModel(state, params, params.normal_velocity_tol)
        mode = None if a["mode"] is None else _present_mode(step, a["mode"])
        rtol = float_rtol(mode_condition(step.scaled_system, mode))
        ta, tb = ([float.fromhex(x) for x in s["tau"]] for s in (a, b))
        assert close_torques(ta, tb, rtol), (k, ta, tb, rtol)
        pa, pb = (math.nan if s["predicted"] is None else float.fromhex(s["predicted"]) for s in (a, b))
        assert close(pa, pb, rtol), (k, pa, pb, rtol)
    assert now["outcome"] == stored["outcome"] and len(now["steps"]) == len(stored["steps"])
    assert any(s["status"] == "task_dropped" for s in stored["steps"])  # both statuses are compared
    assert all(s["predicted"] is None or math.isfinite(float.fromhex(s["predicted"])) for s in stored["steps"])


@pytest.mark.slow
def test_a_flipped_mode_is_checked_by_rhex_reference():
    """``_check_flip`` at the start state (the controller's precomputed answer): the chosen mode
    ties with itself; a mode whose reference optimum is below the best by 1 rad/s² is no tie."""
    from controllers.rhex import RHexParams
    from controllers.rhex.limits import torque_limits
    from controllers.rhex.max_thrust import MaxThrustController, StepModel, max_thrust_reference
    from controllers.rhex.rigid_model import expand_mode
    from controllers.rhex.simulator import initial_state, leg_kinematics

    p = RHexParams()
    st0, _, _, res = MaxThrustController(p)._start
    assert (st0 == initial_state(p)).all()
    _check_flip(st0, res, p, res.mode4, "start")
    step = StepModel(st0, p, p.normal_velocity_tol)
    ref = max_thrust_reference(step, *torque_limits(leg_kinematics(st0, p).phidot, p))
    worse = next(m for m, v in ref.values.items() if math.isfinite(v) and v < ref.best - 1.0)
    with pytest.raises(AssertionError):
        _check_flip(st0, res, p, expand_mode(worse, step.contacts), "start")
