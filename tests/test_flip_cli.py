"""The ``contactmodes flip`` command: JSON fields, files, user errors (exit 2, nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contactmodes.cli import main
from controllers.rhex.plots import rmse_pitch_accel

ROOT = Path(__file__).resolve().parents[1]


def test_rmse_is_over_the_steps_with_a_prediction():
    predicted = np.array([1.0, np.nan, 3.0, 5.0])
    simulated = np.array([2.0, 100.0, 1.0, 5.0])
    # by hand: errors −1, 2, 0 over the three predicted steps
    assert rmse_pitch_accel(predicted, simulated) == pytest.approx(np.sqrt(5.0 / 3.0))
    assert rmse_pitch_accel(np.full(3, np.nan), np.zeros(3)) is None


def test_short_blind_run_json_plot_and_gif(tmp_path):
    out, png, gif = tmp_path / "f.json", tmp_path / "f.png", tmp_path / "f.gif"
    code = main(["flip", "--controller", "blind", "--mu-toe", "0.39", "--duration", "0.03", "--json",
                 "--output", str(out), "--plot", str(png), "--animate", str(gif)])
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["schema"] == "contactmodes.flip/1" and doc["controller"] == "blind"
    assert doc["mu_toe"] == 0.39 and doc["success"] is False and doc["flip_time_s"] is None
    assert doc["steps"] == 30  # 0.03 s at the default 1 kHz control rate
    timeline = doc["mode_timeline"]
    assert timeline[0]["t0"] == 0.0 and timeline[-1]["t1"] == pytest.approx(0.03)
    assert all(a["t1"] == pytest.approx(b["t0"]) for a, b in zip(timeline, timeline[1:]))
    assert doc["median_step_ms"] > 0 and doc["rmse_pitch_accel"] >= 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")


@pytest.mark.parametrize("args, option", [
    (["--mu-toe", "-0.1"], "--mu-toe"),
    (["--mu-toe", "nan"], "--mu-toe"),
    (["--mu-toe", "0.5", "--duration", "0"], "--duration"),
    (["--mu-toe", "0.5", "--plot", "x.jpg"], "--plot"),
])
def test_bad_input_exits_2_with_one_line(args, option, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "flip", "--controller", "blind", *args],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and option in proc.stderr and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_unwritable_plot_directory_writes_nothing(tmp_path):
    bad = tmp_path / "missing" / "p.png"
    assert main(["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.01", "--plot", str(bad)]) == 2
    assert not bad.parent.exists()
