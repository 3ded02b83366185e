"""The ``contactmodes flip`` command and its metrics/plots (flipping paper Sec. IV-C, Table V).

JSON fields, files, user errors (exit 2, one line, nothing written), Ctrl-C (exit 130, nothing
written), the RMSE definition against an independent computation, and the reproduction script.
Short runs only (``--duration`` of a few hundredths of a second).
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from contactmodes.cli import main
from controllers.rhex.plots import (
    mode_timeline,
    plot_pitch,
    rmse_pitch_accel,
    rmse_weighted,
    simulated_pitch_accel,
    thrust_phase,
)

ROOT = Path(__file__).resolve().parents[1]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _synthetic():
    """A SimulationResult-like run: 6 steps of unequal length, pitch rate by hand, predictions
    during the first 4 steps (one missing), none after (thrust over)."""
    times = np.array([0.0, 0.001, 0.002, 0.004, 0.005, 0.006, 0.007])
    omega = np.array([0.0, 0.10, 0.15, 0.15, 0.16, 0.16, 0.15])
    states = np.zeros((7, 18))
    states[:, 5] = omega
    pred = np.array([90.0, np.nan, 10.0, 0.0, np.nan, np.nan])
    return SimpleNamespace(times=times, states=states, predicted_pitch_acc=pred,
                           sim_modes=["RFFF", "RFFF", "RFLL", "RFLL", "SSSS", "SSSS"],
                           controller_modes=["RRLL", "RRLL", "RRLL", "RFLL", None, None])


def test_rmse_is_the_papers_integral_over_the_thrust_phase():
    r = _synthetic()
    # simulated mean accelerations per step, by hand: Δω/Δt
    acc = [0.10 / 0.001, 0.05 / 0.001, 0.0 / 0.002, 0.01 / 0.001, 0.0, -0.01 / 0.001]
    np.testing.assert_allclose(simulated_pitch_accel(r), acc)
    assert thrust_phase(r) == 4  # last prediction at step 3: t_f = 0.005 s
    # (1/t_f ∫ (p − a)² dt)^½ over the thrust steps with a prediction: steps 0, 2, 3 (step 1 has none)
    num = (90 - 100) ** 2 * 0.001 + (10 - 0) ** 2 * 0.002 + (0 - 10) ** 2 * 0.001
    assert rmse_pitch_accel(r) == pytest.approx(math.sqrt(num / 0.004))
    assert rmse_pitch_accel(r, skip=1) == pytest.approx(10.0)  # steps 2, 3 only: both errors 10
    with pytest.raises(ValueError):
        rmse_pitch_accel(r, skip=-1)
    r.predicted_pitch_acc = np.full(6, np.nan)
    assert rmse_pitch_accel(r) is None and thrust_phase(r) == 0


def test_rmse_weighted_validates():
    assert rmse_weighted([1.0, 3.0], [0.0, 0.0], [1.0, 1.0]) == pytest.approx(math.sqrt(5.0))
    with pytest.raises(ValueError):
        rmse_weighted([1.0], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError):
        rmse_weighted([1.0], [1.0], [-1.0])


def test_mode_timeline_merges_steps_and_tiles_the_run():
    tl = mode_timeline(_synthetic())
    assert [(s["simulated"], s["controller"]) for s in tl] == [
        ("RFFF", "RRLL"), ("RFLL", "RRLL"), ("RFLL", "RFLL"), ("SSSS", None)]
    assert tl[0]["t0"] == 0.0 and tl[-1]["t1"] == 0.007
    assert all(a["t1"] == b["t0"] for a, b in zip(tl, tl[1:]))


def test_simulated_accel_matches_the_simulator_record():
    from controllers.rhex import BlindController, RHexParams, simulate

    p = RHexParams()
    res = simulate(BlindController(p), p, duration=0.02)
    np.testing.assert_allclose(simulated_pitch_accel(res), res.pitch_acc, rtol=1e-9, atol=1e-9)
    assert thrust_phase(res) == 20


def test_short_blind_run_json_plot_and_gif(tmp_path, capsys):
    out, png, gif = tmp_path / "f.json", tmp_path / "f.png", tmp_path / "f.gif"
    code = main(["flip", "--controller", "blind", "--mu-toe", "0.39", "--mu-body", "0.25", "--duration", "0.05",
                 "--json", "--output", str(out), "--plot", str(png), "--animate", str(gif)])
    assert code == 0
    assert capsys.readouterr().err == ""  # no progress lines when stderr is not a terminal
    doc = json.loads(out.read_text())
    assert doc["schema"] == "contactmodes.flip/1" and doc["controller"] == "blind"
    assert doc["mu_toe"] == 0.39 and doc["mu_body"] == 0.25
    assert doc["success"] is False and doc["outcome"] == "timeout" and doc["flip_time_s"] is None
    assert doc["steps"] == round(0.05 * doc["control_rate_hz"]) == 50
    assert doc["thrust_end_s"] == pytest.approx(0.05)  # pitch still far below the thrust stop
    timeline = doc["mode_timeline"]
    assert timeline[0]["t0"] == 0.0 and timeline[-1]["t1"] == pytest.approx(0.05)
    assert all(a["t1"] == b["t0"] for a, b in zip(timeline, timeline[1:]))
    assert all(len(s["simulated"]) == 4 and set(s["simulated"]) <= set("SFLR") for s in timeline)
    assert all(s["controller"] is None or len(s["controller"]) == 4 for s in timeline)
    assert doc["median_step_ms"] > 0 and 0 <= doc["rmse_pitch_accel"] < 1e3
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 10_000
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a") and gif.stat().st_size > 10_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.gif", "f.json", "f.png"]


def test_text_summary_and_progress_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.2"]) == 0
    cap = capsys.readouterr()
    assert cap.out.count("\n") == 1 and "blind at mu_toe=0.6" in cap.out and "no flip (timeout)" in cap.out
    lines = cap.err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("contactmodes: flip t=0.10 s pitch=")
    assert lines[1].startswith("contactmodes: flip t=0.20 s pitch=") and lines[1].endswith("°")


@pytest.mark.parametrize("args, option", [
    (["--mu-toe", "-0.1"], "--mu-toe"),
    (["--mu-toe", "nan"], "--mu-toe"),
    (["--mu-toe", "0.5", "--mu-body", "-1"], "--mu-body"),
    (["--mu-toe", "0.5", "--mu-body", "inf"], "--mu-body"),
    (["--mu-toe", "0.5", "--duration", "0"], "--duration"),
    (["--mu-toe", "0.5", "--plot", "x.jpg"], "--plot"),
    (["--mu-toe", "0.5", "--animate", "x.png"], "--animate"),
    (["--mu-toe", "0.5", "--plot", "missing/x.png"], "--plot"),
    (["--mu-toe", "0.5", "--animate", "missing/x.gif"], "--animate"),
])
def test_bad_input_exits_2_with_one_line(args, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["flip", "--controller", "blind", *args]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1 and cap.err.startswith(f"contactmodes: error: {option}")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_plot_directory_fails_before_the_run(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "file" / "p.png"  # the "directory" is a file: unwritable for anyone, even root
    assert main(["flip", "--controller", "blind", "--mu-toe", "0.6", "--plot", str(bad),
                 "--animate", str(tmp_path / "a.gif")]) == 2
    assert capsys.readouterr().err.startswith("contactmodes: error: --plot")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_exit_code_2_through_the_console_entry(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "flip", "--controller", "blind", "--mu-toe", "-1",
                           "--plot", "p.png"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1
    assert "--mu-toe" in proc.stderr and list(tmp_path.iterdir()) == []


def test_ctrl_c_during_the_run_writes_nothing(tmp_path, monkeypatch, capsys):
    from controllers.rhex.blind import BlindController

    calls = {"n": 0}
    original = BlindController.__call__

    def interrupted(self, t, state, params=None):
        calls["n"] += 1
        if calls["n"] == 10:
            raise KeyboardInterrupt
        return original(self, t, state, params)

    monkeypatch.setattr(BlindController, "__call__", interrupted)
    code = main(["flip", "--controller", "blind", "--mu-toe", "0.6", "--json", "--output", str(tmp_path / "o.json"),
                 "--plot", str(tmp_path / "p.png"), "--animate", str(tmp_path / "a.gif")])
    assert code == 130 and capsys.readouterr().out == ""
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_rendering_leaves_no_file(tmp_path, monkeypatch):
    import controllers.rhex.plots as plots

    def broken_animate(result, path, **kw):
        Path(path).write_bytes(b"GIF89a partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "animate", broken_animate)
    code = main(["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.01",
                 "--plot", str(tmp_path / "p.png"), "--animate", str(tmp_path / "a.gif")])
    assert code == 130 and list(tmp_path.iterdir()) == []  # the finished PNG is not kept either


def test_short_max_thrust_run():
    pytest.importorskip("controllers.rhex.max_thrust")
    from contactmodes.cli import build_parser

    args = build_parser().parse_args(["flip", "--controller", "max-thrust", "--mu-toe", "0.6", "--duration", "0.02",
                                      "--json"])
    doc = json.loads(args.run(args))
    assert doc["controller"] == "max-thrust" and doc["steps"] == 20 and doc["thrust_end_s"] == pytest.approx(0.02)
    assert doc["rmse_pitch_accel"] is not None and all(s["controller"] for s in doc["mode_timeline"])


def test_plot_pitch_needs_runs(tmp_path):
    with pytest.raises(ValueError):
        plot_pitch({}, str(tmp_path / "x.png"))


def test_reproduce_flip_script_short(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("reproduce_flip", ROOT / "benchmarks" / "reproduce_flip.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--output-dir", str(tmp_path / "out"), "--duration", "0.03"]) == 0
    out = capsys.readouterr().out
    assert "| blind | 0.39 | no flip (timeout) |" in out and "11.22" in out and "| median | p90 | max |" in out
    assert (tmp_path / "out" / "fig15_pitch.png").read_bytes()[:8] == PNG_MAGIC
