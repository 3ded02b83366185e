"""The RHex max-thrust controller is the generic controller configured for RHex: at every step of
the two reference flips (μ_t = 0.39 and 0.6, the defaults, 1 s at most) it commands the torques,
modes, predictions and statuses recorded from the controller *before* it became the generic one
(``tests/data/flip_steps/``, written by ``tests/_support/record_flip_steps.py`` on that code) with
the margin 0 (the supremum points: the recording predates the margin) — the modes and statuses
exactly, the torques and predictions within the step's conditioning (``_support.replay_check``:
the record was written on one machine); and it is an ``UnambiguousOptimalController``'s base with
RHex's objective.

A mode that differs from the record at some step is checked by RHex's independent reference at
that state (``_support.rhex_reference``): the replayed step must be the reference's optimum and
the recorded mode tie with it (a legitimate flip within the tolerances). The closed loops part
there (another torque), so the comparison stops at the first such step.

With its default margin (``contactmodes.control.margin``), called at the same states in the same
run, the controller moves every margin-0 torque by at most the margin (0.031 N·m at most of 0.053
at μ_t 0.39, 0.029 at 0.6; about 380 of each flip's ~500 steps move, the others are the box's
corners), keeps every mode and status and the supremum, and predicts at most
``‖∂θ̈/∂τ‖ · margin`` less θ̈ (0.13 rad/s² at most of about 80); its predictions are the
``(q̈, f)`` oracle's θ̈ at its torques. Closed by itself the loop drifts from the recording
(after about 320 steps the states differ) and still flips."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from _support.control_oracle import guaranteed_mode, objective_range
from _support.oracle import all_modes, kinematically_ok
from _support.paths import DATA
from _support.record_flip_steps import FLIPS, record
from _support.replay_check import close, close_torques, float_rtol, mode_condition
from _support.rhex_reference import VALUE_RTOL, assert_matches_reference
from contactmodes.tolerances import MARGIN_RTOL
from controllers.generic.controller import OptimalControllerBase
from controllers.rhex import RHexParams
from controllers.rhex.max_thrust import PITCH_OBJECTIVE, MaxThrustController, StepModel
from controllers.rhex.rigid_model import PITCH_INDEX
from controllers.rhex.simulator import initial_state


def test_max_thrust_is_the_generic_controller_with_the_pitch_objective():
    assert issubclass(MaxThrustController, OptimalControllerBase)
    assert PITCH_OBJECTIVE.sense == "maximize" and PITCH_OBJECTIVE.qdd.tolist() == np.eye(6)[PITCH_INDEX].tolist()
    assert not PITCH_OBJECTIVE.force.any() and not PITCH_OBJECTIVE.tau.any()


class _Shadow:
    """A default-margin controller called at every state of a flip (its answers not applied)."""

    def __init__(self, params: RHexParams) -> None:
        self.params = params
        self.controller = MaxThrustController(params)
        self.steps: list = []

    def __call__(self, t, state, params=None) -> None:
        out = self.controller(t, state, params)
        self.steps.append((np.array(state, dtype=float), np.asarray(out.torque, dtype=float), self.controller.last))


def _theta_at(step: StepModel, mode: str, tau) -> float:
    """θ̈ of ``mode`` at ``tau`` by the ``(q̈, f)`` oracle (unique there)."""
    s = step.system
    lo, hi = objective_range(s, mode, tau, np.eye(s.n_q + 2 * s.k)[PITCH_INDEX])
    assert hi - lo <= 1e-9 * max(1.0, abs(lo)), (mode, lo, hi)
    return lo


def _check_margin(shadow: _Shadow, now: dict, upto: int) -> dict:
    """The shadow's answers against the margin-0 controller's at the same states in the same run
    (its first ``upto`` steps; module doc); returns the largest changes."""
    ctrl, p = shadow.controller, shadow.params
    scales = StepModel(initial_state(p), p, ctrl.normal_velocity_tol).arrays.scales
    margin = ctrl.margin
    assert margin == pytest.approx(MARGIN_RTOL * scales.mass * scales.length ** 2 / scales.time ** 2, rel=1e-12)
    assert len(shadow.steps) == len(now["steps"])
    worst = {"tau": 0.0, "theta": 0.0, "moved": 0}
    for k, ((state, tau, res), want) in enumerate(zip(shadow.steps[:upto], now["steps"][:upto])):
        tau_rec = np.array([float.fromhex(x) for x in want["tau"]])
        pred_rec = None if want["predicted"] is None else float.fromhex(want["predicted"])
        assert res.status == want["status"], k
        moved = float(np.linalg.norm(tau - tau_rec))
        scale = 1e-9 * max(1.0, float(np.abs(tau_rec).max()))
        assert moved <= margin + scale, (k, tau, tau_rec)
        worst["tau"] = max(worst["tau"], moved)
        if pred_rec is None:
            continue
        tol = 1e-9 * max(1.0, abs(pred_rec))
        assert res.closure_value == pytest.approx(pred_rec, abs=tol), k  # the supremum is the recorded one
        assert res.value <= res.closure_value + tol, k
        if res.mode4 != want["mode"]:  # a tie where the mode flips: the oracle decides at the state
            step = StepModel(state, p, ctrl.normal_velocity_tol)
            kinematic = [m for m in all_modes(step.system.k) if kinematically_ok(step.system, m)]
            assert guaranteed_mode(step.system, tau, kinematic) == res.mode, (k, res.mode4, want["mode"])
        if moved > scale:  # the margin moved it: its θ̈ by the oracle, within ‖g‖·margin of the supremum
            worst["moved"] += 1
            step = StepModel(state, p, ctrl.normal_velocity_tol)
            assert _theta_at(step, res.mode, tau) == pytest.approx(res.value, abs=1e-7 * max(1.0, abs(res.value))), k
            g = step.session.mode(res.mode).response(res.status == "optimal").P_q[PITCH_INDEX]
            assert res.closure_value - res.value <= float(np.linalg.norm(g)) * margin + tol, k
            worst["theta"] = max(worst["theta"], res.closure_value - res.value)
    return worst


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
    shadow = _Shadow(RHexParams(mu_toe=FLIPS[stem]))
    calls: list = []
    now = record(FLIPS[stem], margin=0.0, shadow=shadow, calls=calls)
    assert len(calls) == len(now["steps"])
    upto = len(now["steps"])
    for k, (a, b) in enumerate(zip(now["steps"], stored["steps"])):
        state, last, params = calls[k]
        assert (a["t"], a["status"]) == (b["t"], b["status"]), k
        if a["mode"] != b["mode"]:
            _check_flip(state, last, params, b["mode"], f"{stem} step {k}")
            upto = k  # the loops part here (module doc)
            break
        step = StepModel(state, params, params.normal_velocity_tol)
        mode = None if a["mode"] is None else _present_mode(step, a["mode"])
        rtol = float_rtol(mode_condition(step.scaled_system, mode))
        ta, tb = ([float.fromhex(x) for x in s["tau"]] for s in (a, b))
        assert close_torques(ta, tb, rtol), (k, ta, tb, rtol)
        pa, pb = (math.nan if s["predicted"] is None else float.fromhex(s["predicted"]) for s in (a, b))
        assert close(pa, pb, rtol), (k, pa, pb, rtol)
    if upto == len(now["steps"]):
        assert now["outcome"] == stored["outcome"] and len(now["steps"]) == len(stored["steps"])
    assert any(s["status"] == "task_dropped" for s in stored["steps"])  # both statuses are compared
    assert all(s["predicted"] is None or math.isfinite(float.fromhex(s["predicted"])) for s in stored["steps"])
    worst = _check_margin(shadow, now, upto)
    assert worst["moved"] > upto // 2  # the margin is exercised (cone edges, zero forces)
    assert 0.0 < worst["tau"] <= shadow.controller.margin


@pytest.mark.slow
def test_the_flip_with_the_margin_still_flips():
    """The default-margin controller closing the loop by itself: the states drift from the
    recording (the torques differ by up to the margin), the flip succeeds."""
    shadow_free = record(FLIPS["max_thrust_mu039"], margin=None)
    assert shadow_free["outcome"] == "flipped"


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
