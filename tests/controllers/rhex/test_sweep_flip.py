"""``sweep flip``: RHex runs over a grid of ``RHexParams`` fields and controllers (very short runs).

The grid reaches the simulator (each point equals a run made here by hand with the same
parameters), fields added to ``RHexParams`` are varied without code changes, bad values are
one-line errors naming the parameter before anything runs, a run that raises is a failed point.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from contactmodes.cli import main
from contactmodes.sweeps import SweepError, run_sweep
from controllers.rhex.api import simulate_flip
from controllers.rhex.params import RHexParams

DURATION = 0.004  # s: four control steps


def test_each_point_is_the_run_with_its_parameters():
    res = run_sweep("flip", {"mu_toe": [0.2, 0.9], "tau_limit": [4.0, 10.25]}, controller="blind",
                    duration=DURATION, workers=0)
    assert [p["params"] for p in res.points] == [{"mu_toe": a, "tau_limit": b} for a in (0.2, 0.9) for b in (4.0, 10.25)]
    for p in res.points:
        params = RHexParams().with_(**p["params"])
        by_hand = simulate_flip(params, "blind", DURATION).document(timeline=False)
        for key in ("schema", "median_step_ms", "params", "step_ms", "step_cpu_ms"):  # timings: not compared
            by_hand.pop(key)
        got = {k: v for k, v in p.items() if k not in ("params", "ok", "error", "median_step_ms")}
        assert got == by_hand
        assert p["ok"] and p["error"] is None and p["median_step_ms"] > 0
    # the torque limit matters within four steps: the runs differ
    assert res.points[0]["rmse_pitch_accel"] != res.points[1]["rmse_pitch_accel"]


def test_controller_is_a_parameter_and_tuple_entries_are_keys(capsys):
    assert main(["sweep", "flip", "--vary", "controller=blind", "--vary", "v0.1=0.05,0.08",
                 "--duration", str(DURATION), "--workers", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "flip" and doc["controller"] is None and doc["duration_s"] == DURATION
    assert doc["rhex_params"]["v0"] == list(RHexParams().v0)
    assert [p["params"] for p in doc["points"]] == [{"controller": "blind", "v0.1": 0.05},
                                                    {"controller": "blind", "v0.1": 0.08}]
    assert all(p["ok"] and p["controller"] == "blind" and p["steps"] == 4 for p in doc["points"])


def test_new_rhexparams_fields_are_discovered(monkeypatch):
    @dataclasses.dataclass(frozen=True)
    class Extended(RHexParams):
        detector_threshold: float = 1.0

        def __post_init__(self) -> None:
            super().__post_init__()
            if self.detector_threshold < 0:
                raise ValueError(f"RHexParams.detector_threshold: must be >= 0, got {self.detector_threshold!r}")

    monkeypatch.setattr("controllers.rhex.params.RHexParams", Extended)
    kind = __import__("contactmodes.sweeps", fromlist=["get_kind"]).get_kind("flip")
    from contactmodes.sweeps import parse_vary

    prepared = kind.prepare(parse_vary(["detector_threshold=0.5,2"]), controller="blind", duration=DURATION)
    assert prepared.evaluate.build({"detector_threshold": 2})[0].detector_threshold == 2
    with pytest.raises(SweepError, match="detector_threshold=-1: RHexParams.detector_threshold: must be >= 0"):
        kind.prepare(parse_vary(["detector_threshold=-1"]), controller="blind", duration=DURATION)


@pytest.mark.parametrize("args, message", [
    (["--vary", "mu_tow=1", "--controller", "blind"], "mu_tow: unknown parameter 'mu_tow'"),
    (["--vary", "mu_toe=-1", "--controller", "blind"], "mu_toe=-1: RHexParams.mu_toe: must be >= 0"),
    (["--vary", "sim_dt=0.0003", "--controller", "blind"], "sim_dt=0.0003: RHexParams.sim_dt: must divide"),
    (["--vary", "mu_toe=abc", "--controller", "blind"], "mu_toe: expected numbers, got 'abc'"),
    (["--vary", "v0.7=1", "--controller", "blind"], "v0.7: index 7 out of range (v0 has 4 entries)"),
    (["--vary", "hips=1", "--controller", "blind"], "hips: hips is an array, not a value"),
    (["--vary", "controller=blind,fast"], "controller: expected one of max-thrust, blind, got 'fast'"),
    (["--vary", "mu_toe=1"], "--controller: required unless controller is varied"),
    (["--vary", "controller=blind", "--controller", "blind"], "--controller: the controller is varied"),
    (["--vary", "mu_toe=1", "--controller", "blind", "--duration", "0"], "--duration: must be a finite number > 0"),
])
def test_flip_user_errors(capsys, args, message):
    assert main(["sweep", "flip", "--workers", "0", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_run_that_raises_is_a_failed_point():
    res = run_sweep("flip", {"l": [0.01, 0.17]}, controller="blind", duration=DURATION, workers=0)
    assert [p["ok"] for p in res.points] == [False, True] and res.n_failed == 1
    assert res.points[0] == {"params": {"l": 0.01}, "ok": False,
                             "error": "ValueError: initial_state: legs too short to reach the ground"}
    df = res.to_frame()
    assert df["success"].isna().tolist() == [True, False]
