"""Flip metrics and the reproduction's calibration rules on synthetic data with known answers
(flipping paper Sec. IV-C.3/4; ``docs/rhex-reproduction.md``), plus the parameters' validation."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from controllers.rhex import RHexParams
from controllers.rhex.calibration import (fixed_steps, round_up, select_detector_threshold, select_torque,
                                          velocity_thresholds)
from controllers.rhex.metrics import (body_contact_fraction, landing_step, letter_runs, mode_timeline,
                                      resliding_time, rmse_pitch_accel, rmse_pitch_accel_window, rmse_weighted,
                                      rmse_window, simulated_pitch_accel, stiction_time, thrust_phase)
from controllers.rhex.plots import clip_to_ground

P = RHexParams()


def _synthetic():
    """A SimulationResult-like run: 6 steps of unequal length, pitch rate by hand, predictions
    during the first 4 steps (one missing), none after; the body stands on its rear face (pitch
    90°) with its rear-top corner 1 cm above the ground until it lands at the end of step 2."""
    times = np.array([0.0, 0.001, 0.002, 0.004, 0.005, 0.006, 0.007])
    omega = np.array([0.0, 0.10, 0.15, 0.15, 0.16, 0.16, 0.15])
    states = np.zeros((7, 18))
    states[:, 5] = omega
    states[:, 2] = math.pi / 2
    # rear-top corner at pitch 90°: y_c = y − d·sin θ + h·cos θ = y − d
    states[:, 1] = P.d + np.array([0.01, 0.01, 0.01, -0.001, -0.002, -0.002, -0.002])
    pred = np.array([90.0, np.nan, 10.0, 0.0, np.nan, np.nan])
    return SimpleNamespace(times=times, states=states, predicted_pitch_acc=pred, params=P,
                           sim_modes=["RFFF", "RFFF", "SFLL", "RFLL", "SSSS", "SSSS"],
                           controller_modes=["RRLL", "RRLL", "RRLL", "RFLL", None, None])


def test_rmse_paper_definition_is_the_integral_over_the_thrust_phase():
    r = _synthetic()
    acc = [0.10 / 0.001, 0.05 / 0.001, 0.0 / 0.002, 0.01 / 0.001, 0.0, -0.01 / 0.001]
    np.testing.assert_allclose(simulated_pitch_accel(r), acc)
    assert thrust_phase(r) == 4  # last prediction at step 3: t_f = 0.005 s
    # (1/t_f ∫ (p − a)² dt)^½ over the thrust steps with a prediction: steps 0, 2, 3 (step 1 has none)
    num = (90 - 100) ** 2 * 0.001 + (10 - 0) ** 2 * 0.002 + (0 - 10) ** 2 * 0.001
    assert rmse_pitch_accel(r) == pytest.approx(math.sqrt(num / 0.004))
    r.predicted_pitch_acc = np.full(6, np.nan)
    assert rmse_pitch_accel(r) is None and thrust_phase(r) == 0 and rmse_pitch_accel_window(r) is None


def test_rmse_window_leaves_out_the_first_step_and_the_rear_face_landing():
    r = _synthetic()
    # the rear-top corner is at y = +1 cm in states 0–2 and below ground from state 3: landing in step 2
    assert landing_step(r) == 2
    assert rmse_window(r) == (1, 2)
    # window = step 1 only, which has no prediction → None
    assert rmse_pitch_accel_window(r) is None
    r.predicted_pitch_acc = np.array([90.0, 45.0, 10.0, 0.0, np.nan, np.nan])
    assert rmse_pitch_accel_window(r) == pytest.approx(5.0)  # |45 − 50|
    # never landing: the window runs to the end of the thrust phase (steps 1–3)
    r.states[:, 1] = P.d + 0.01
    assert landing_step(r) is None and rmse_window(r) == (1, 4)
    num = (45 - 50) ** 2 * 0.001 + (10 - 0) ** 2 * 0.002 + (0 - 10) ** 2 * 0.001
    assert rmse_pitch_accel_window(r) == pytest.approx(math.sqrt(num / 0.004))


def test_rmse_weighted_validates():
    assert rmse_weighted([1.0, 3.0], [0.0, 0.0], [1.0, 1.0]) == pytest.approx(math.sqrt(5.0))
    with pytest.raises(ValueError):
        rmse_weighted([1.0], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError):
        rmse_weighted([1.0], [1.0], [-1.0])


def test_mode_timeline_and_body_contact_fraction():
    r = _synthetic()
    tl = mode_timeline(r)
    assert [(s["simulated"], s["controller"]) for s in tl] == [
        ("RFFF", "RRLL"), ("SFLL", "RRLL"), ("RFLL", "RFLL"), ("SSSS", None)]
    assert tl[0]["t0"] == 0.0 and tl[-1]["t1"] == 0.007
    assert all(a["t1"] == b["t0"] for a, b in zip(tl, tl[1:]))
    assert body_contact_fraction(r) == pytest.approx(3 / 4)  # thrust steps 0–3, body S in step 2


def _toe_run(letters: str):
    """A run whose rear toe has the given letters (one per 1 ms step)."""
    n = len(letters)
    return SimpleNamespace(times=np.arange(n + 1) * 1e-3, sim_modes=["R" + ch + "LL" for ch in letters])


def test_letter_runs_merge_chatter_but_keep_the_final_run():
    #          F×5   R×10      F×2 R×6    F×20                 R×1 F×4  L×2 (final)
    letters = "FFFFF" + "R" * 10 + "FF" + "R" * 6 + "F" * 20 + "R" + "FFFF" + "LL"
    runs = letter_runs(letters, 1e-3)
    assert runs == [("F", 0, 5), ("R", 5, 23), ("F", 23, 48), ("L", 48, 50)]
    r = _toe_run(letters)
    assert stiction_time(r) == pytest.approx(0.023)  # the 2 ms F blip is chatter
    assert resliding_time(r) == pytest.approx(0.048)


def test_stiction_needs_a_slide_first_and_resliding_needs_stiction():
    assert stiction_time(_toe_run("F" * 30)) is None  # stuck from rest: no stiction *after* sliding
    assert resliding_time(_toe_run("F" * 5 + "R" * 20)) is None
    r = _toe_run("F" * 5 + "R" * 20 + "F" * 10 + "S" * 10)  # lifts off instead of sliding again
    assert stiction_time(r) == pytest.approx(0.025) and resliding_time(r) is None


def test_clip_to_ground_draws_a_sunk_body_on_the_ground():
    rect = np.array([[-0.25, -0.0042], [0.25, -0.0042], [0.25, 0.0958], [-0.25, 0.0958]])
    clipped = clip_to_ground(rect)
    assert clipped[:, 1].min() == pytest.approx(0.0)
    x, y = clipped[:, 0], clipped[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert area == pytest.approx(0.5 * 0.0958)
    assert clip_to_ground(rect - [0.0, 1.0]).shape == (0, 2)  # wholly below: nothing drawn


def test_select_torque_hand_computation():
    rows = [(8.0, 0.68), (9.0, 0.54), (10.0, 0.479), (10.5, 0.414), (11.0, None)]
    best, table = select_torque(rows, target=0.45)
    errors = {t: (None if e is None else abs(e - 0.45)) for t, e in rows}
    assert best == min((t for t in errors if errors[t] is not None), key=lambda t: errors[t]) == 10.0
    assert [r["tau_limit"] for r in table] == [8.0, 9.0, 10.0, 10.5, 11.0]
    assert table[-1]["error_s"] is None
    # ties (same error) go to the smaller torque; no event at all → None
    assert select_torque([(9.0, 0.40), (10.0, 0.50)], target=0.45)[0] == 9.0
    assert select_torque([(9.0, None)])[0] is None


def test_select_detector_threshold_by_detection_accuracy():
    stick = 0.338
    rows = [(2, 0.167, 0.277), (8, 0.189, 0.272), (10, 0.311, 0.342),  # switch before stiction
            (12, 0.348, stick), (13, 0.348, stick), (14, 0.3482, stick),  # three tied at 10 ms
            (16, 0.353, stick), (20, 0.372, stick), (22, None, stick), (24, None, None)]
    best, band, table = select_detector_threshold(rows, band_s=0.030)
    assert best == 13  # middle of the tied 12, 13, 14
    assert band == [12, 13, 14, 16]  # 0.372 − 0.338 = 34 ms > 30 ms
    assert [r["admissible"] for r in table] == [False] * 3 + [True] * 5 + [False] * 2
    assert table[0]["delay_s"] == pytest.approx(0.167 - 0.277)
    assert select_detector_threshold([(2, 0.1, 0.2)])[0] is None


def test_fixed_steps_are_interior_to_fixed_intervals():
    assert fixed_steps("FFFRRFFS").tolist() == [False, True, True, False, False, False, True, False]


def test_velocity_thresholds_on_a_synthetic_trajectory():
    """Two contacts; contact 0 is fixed over steps 0–4 and 8–11, contact 1 never. Predicted speeds
    inside the fixed intervals (interior steps 1–4 and 9–11) peak at 0.0734 m/s (step 10); the
    larger values at step 0, at the interval ends (5, 8) and while sliding must not count."""
    letters = ["FS", "FS", "FS", "FS", "FS", "RS", "RS", "RS", "FS", "FS", "FS", "FS"]
    pv = np.zeros((12, 2))
    pv[:, 0] = [0.5, 0.01, -0.02, 0.03, 0.01, 0.9, 0.8, 0.7, 0.6, 0.05, -0.0734, 0.02]
    pv[:, 1] = 1.0
    pv[3, 0] = np.nan  # contact left out of the model at step 3: ignored
    out = velocity_thresholds(pv, letters)
    assert out[0]["max_speed"] == pytest.approx(0.0734) and out[0]["n_fixed"] == 6
    assert out[0]["threshold"] == pytest.approx(0.074)
    assert out[1] == {"max_speed": None, "n_fixed": 0, "threshold": 0.001}
    # several runs pool their fixed steps; the floor holds for tiny speeds
    out2 = velocity_thresholds([pv, np.full((3, 2), 1e-5)], [letters, ["FF"] * 3])
    assert out2[0]["max_speed"] == pytest.approx(0.0734) and out2[1]["threshold"] == 0.001
    with pytest.raises(ValueError):
        velocity_thresholds(pv, letters[:-1])


def test_round_up():
    assert round_up(0.0734) == 0.074 and round_up(0.0896) == 0.09 and round_up(0.0235) == 0.024
    assert round_up(0.07) == 0.07 and round_up(12.01) == 13.0


def test_params_validation_names_the_field():
    with pytest.raises(ValueError, match="RHexParams.tau_limit: must be <= tau_stall"):
        RHexParams(tau_limit=20.0)
    with pytest.raises(ValueError, match="RHexParams.mu_toe"):
        RHexParams(mu_toe=-0.1)
    with pytest.raises(ValueError, match="RHexParams.detector_hold"):
        RHexParams(detector_hold=0)
    with pytest.raises(ValueError, match="RHexParams.nonsense: no such parameter"):
        RHexParams().with_(nonsense=1.0)
    d = RHexParams().to_dict()
    assert d["tau_stall"] == 16.2 and isinstance(d["v0"], list) and RHexParams(**{**d, "v0": tuple(d["v0"]),
                                                                                  "hips": tuple(d["hips"])}) == P
