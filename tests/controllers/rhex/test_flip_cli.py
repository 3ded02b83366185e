"""The ``contactmodes flip`` command, the ``run_flip`` API and the RHex reproduction scripts.

JSON fields, files, exit status (0 flip, 1 no flip with the usual output, 2 user error, 130
Ctrl-C), the GIF, the simulated pitch acceleration against the simulator's own record, and the
scripts' output directories. Short runs only, except one cached flip at the hardware torque
(0.27 s of simulated time).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.cli import build_parser, main
from controllers.rhex import RHexParams, run_flip, simulate_flip
from controllers.rhex.metrics import simulated_pitch_accel, thrust_phase
from controllers.rhex.plots import plot_pitch

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIELDS = {"schema", "controller", "mu_toe", "mu_body", "tau_limit_nm", "params", "success", "outcome", "flip_time_s",
          "rmse_pitch_accel", "rmse_pitch_accel_window", "rmse_window_s", "thrust_end_s", "switch_time_s",
          "stiction_time_s", "resliding_time_s", "body_contact_fraction", "controller_status", "controller_errors", "steps",
          "control_rate_hz", "median_step_ms", "step_ms", "step_cpu_ms", "controller_paths"}


def _main_exit(argv) -> int:
    """``main(argv)``'s exit status, whether returned or raised (exit 1 is a ``SystemExit``)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


@pytest.fixture(scope="module")
def blind_flip(tmp_path_factory):
    """A complete blind flip at the hardware torque (fast: 0.27 s simulated) through the CLI."""
    d = tmp_path_factory.mktemp("flip")
    code = _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--tau-limit", "16.2", "--json",
                       "--output", str(d / "f.json"), "--plot", str(d / "f.png")])
    return code, json.loads((d / "f.json").read_text()), d


def test_flip_exits_0_with_switch_and_stiction_fields(blind_flip):
    code, doc, d = blind_flip
    assert code == 0 and doc["success"] and doc["outcome"] == "flipped"
    assert set(doc) == FIELDS | {"mode_timeline"}
    assert doc["tau_limit_nm"] == 16.2 and doc["params"]["tau_limit"] == 16.2 and doc["params"]["mu_toe"] == 0.6
    assert doc["thrust_end_s"] == pytest.approx(doc["flip_time_s"])  # thrust until the flip, no pitch stop
    assert doc["steps"] == round(doc["flip_time_s"] * 1000)
    # at the hardware torque the rear toe never sticks after sliding, and the tuned detector stays quiet
    assert doc["stiction_time_s"] is None and doc["switch_time_s"] is None
    # the blind controller's status counts cover every step
    assert sum(doc["controller_status"].values()) == doc["steps"]
    w0, w1 = doc["rmse_window_s"]
    assert w0 == pytest.approx(0.001) and w1 <= doc["thrust_end_s"] + 1e-9
    # the timeline's rear-toe letters agree with the stiction field
    tl = doc["mode_timeline"]
    if doc["stiction_time_s"] is not None:
        seg = next(s for s in tl if s["t0"] <= doc["stiction_time_s"] < s["t1"])
        assert seg["simulated"][1] == "F"
    assert (d / "f.png").read_bytes()[:8] == PNG_MAGIC


def test_flip_plot_shades_the_documented_window_as_a_time_span(tmp_path, monkeypatch):
    """``flip --plot``: the documented RMSE window (docs/rhex-reproduction.md, Metrics: from the
    second control step up to the first step at whose end the body's rear-top corner is at or below
    the ground, else to the end of the thrust) is a shaded span over exactly those times, named in
    the legend with its RMSE, and no horizontal line or bracket stands for it."""
    import matplotlib.figure
    from matplotlib.text import Annotation

    import controllers.rhex.plots as plots

    seen = {}
    plot_run, savefig = plots.plot_run, matplotlib.figure.Figure.savefig

    def spy_plot_run(result, path, *args, **kw):
        seen["result"] = result
        return plot_run(result, path, *args, **kw)

    def spy_savefig(fig, *args, **kw):
        seen["fig"] = fig
        return savefig(fig, *args, **kw)

    monkeypatch.setattr(plots, "plot_run", spy_plot_run)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy_savefig)
    out, png = tmp_path / "f.json", tmp_path / "f.png"
    assert _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--json", "--output", str(out),
                       "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == PNG_MAGIC
    doc, res = json.loads(out.read_text()), seen["result"]
    # the window by its definition, from the recorded states (x, y, pitch) and the body's half
    # length d and half height h: the rear-top corner is (-d, +h) in the body frame
    p, times, states = res.params, np.asarray(res.times), np.asarray(res.states)
    rear_top_y = states[:, 1] - p.d * np.sin(states[:, 2]) + p.h * np.cos(states[:, 2])
    landed = np.nonzero(rear_top_y[1:] <= 0.0)[0]
    n_thrust = int(np.nonzero(np.isfinite(np.asarray(res.predicted_pitch_acc, dtype=float)))[0][-1]) + 1
    assert landed.size and landed[0] < n_thrust  # this run lands before its thrust ends: the window stops there
    t0, t1 = times[1], times[landed[0]]
    assert t0 == pytest.approx(1.0 / p.control_rate) and t1 < times[n_thrust]
    assert doc["rmse_window_s"] == pytest.approx([t0, t1])
    ax = seen["fig"].axes[0]
    spans = [a for a in ax.patches if "window" in a.get_label()]
    assert len(spans) == 1 and spans[0].get_fill() and spans[0].get_facecolor()[3] > 0
    corners = spans[0].get_transform().transform(spans[0].get_path().vertices)  # pixels
    xs = ax.transData.inverted().transform(corners)[:, 0]
    ys = ax.transAxes.inverted().transform(corners)[:, 1]
    assert (xs.min(), xs.max()) == pytest.approx((t0, t1), abs=1e-9)
    assert (ys.min(), ys.max()) == pytest.approx((0.0, 1.0))  # the full height: a time span, not a level
    label = spans[0].get_label()
    assert "RMSE window" in label and "landing" in label and f"{doc['rmse_pitch_accel_window']:.2f}" in label
    assert label in [t.get_text() for t in ax.get_legend().get_texts()]
    # nothing horizontal for it: the only constant-level line is the zero line, no bracket arrow
    for line in ax.get_lines():
        assert "window" not in line.get_label()
        y = np.asarray(line.get_ydata(), dtype=float)
        if len(line.get_xdata()) > 1 and np.ptp(line.get_xdata()) > 0 and np.ptp(y) == 0:
            assert y[0] == 0.0
    assert not [t for t in ax.texts if isinstance(t, Annotation) and t.arrow_patch is not None]


def test_no_flip_exits_1_with_its_usual_output(tmp_path, capsys):
    out, png, gif = tmp_path / "f.json", tmp_path / "f.png", tmp_path / "f.gif"
    code = _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.39", "--mu-body", "0.25", "--duration", "0.05",
                       "--json", "--output", str(out), "--plot", str(png), "--animate", str(gif)])
    assert code == 1
    assert capsys.readouterr().err == ""  # no progress lines when stderr is not a terminal
    doc = json.loads(out.read_text())
    assert set(doc) == FIELDS | {"mode_timeline"}
    assert doc["schema"] == "contactmodes.flip/1" and doc["controller"] == "blind"
    assert doc["mu_toe"] == 0.39 and doc["mu_body"] == 0.25 and doc["tau_limit_nm"] == RHexParams().tau_limit
    assert doc["success"] is False and doc["outcome"] == "timeout" and doc["flip_time_s"] is None
    assert doc["steps"] == 50 and doc["thrust_end_s"] == pytest.approx(0.05)
    assert doc["switch_time_s"] is None and doc["stiction_time_s"] is None
    timeline = doc["mode_timeline"]
    assert timeline[0]["t0"] == 0.0 and timeline[-1]["t1"] == pytest.approx(0.05)
    assert all(a["t1"] == b["t0"] for a, b in zip(timeline, timeline[1:]))
    assert all(len(s["simulated"]) == 4 and set(s["simulated"]) <= set("SFLR") for s in timeline)
    assert doc["median_step_ms"] > 0 and 0 <= doc["rmse_pitch_accel"] < 1e3
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 10_000
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.gif", "f.json", "f.png"]


def test_gif_frames_are_large_and_start_on_the_ground(tmp_path):
    from PIL import Image

    from controllers.rhex.plots import animate

    run = simulate_flip(RHexParams(), "blind", 0.02)
    animate(run.result, str(tmp_path / "a.gif"), title="blind, μ_t = 0.6", max_frames=5)
    with Image.open(tmp_path / "a.gif") as im:
        assert im.n_frames == 5 and im.size[0] >= 600  # 100 dpi: 13 pt title ≈ 18 px
        im.seek(0)
        frame = np.asarray(im.convert("RGB"), dtype=int)
    # the body's fill colour (#9ecae1) must not appear inside the grey ground band: find the ground
    # line (the darkest full-width row) and look below it
    body = np.all(np.abs(frame - [0x9E, 0xCA, 0xE1]) <= 6, axis=2)
    rows = np.nonzero(body.any(axis=1))[0]
    dark = np.nonzero((frame.sum(axis=2) < 150).mean(axis=1) > 0.6)[0]
    ground = dark[dark > rows.min()].min()
    assert rows.max() < ground, (rows.max(), ground)


def test_text_summary_and_progress_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.2"]) == 1
    cap = capsys.readouterr()
    assert cap.out.count("\n") == 1 and "blind at mu_toe=0.6" in cap.out and "no flip (timeout)" in cap.out
    assert "paper's definition" in cap.out and "documented window" in cap.out
    lines = cap.err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("contactmodes: flip t=0.10 s pitch=")
    assert lines[1].startswith("contactmodes: flip t=0.20 s pitch=") and lines[1].endswith("°")


@pytest.mark.parametrize("args, option", [
    (["--mu-toe", "-0.1"], "--mu-toe"),
    (["--mu-toe", "nan"], "--mu-toe"),
    (["--mu-toe", "0.5", "--mu-body", "-1"], "--mu-body"),
    (["--mu-toe", "0.5", "--mu-body", "inf"], "--mu-body"),
    (["--mu-toe", "0.5", "--duration", "0"], "--duration"),
    (["--mu-toe", "0.5", "--tau-limit", "20"], "--tau-limit"),
    (["--mu-toe", "0.5", "--tau-limit", "0"], "--tau-limit"),
    (["--mu-toe", "0.5", "--detector-threshold", "inf"], "--detector-threshold"),
    (["--mu-toe", "0.5", "--param", "nonsense=1"], "--param nonsense"),
    (["--mu-toe", "0.5", "--param", "k_l=abc"], "--param k_l"),
    (["--mu-toe", "0.5", "--param", "detector_hold=0"], "--param detector_hold"),
    (["--mu-toe", "0.5", "--param", "v0=0.1,0.1"], "--param v0"),
    (["--mu-toe", "0.5", "--plot", "x.jpg"], "--plot"),
    (["--mu-toe", "0.5", "--animate", "x.png"], "--animate"),
    (["--mu-toe", "0.5", "--plot", "missing/x.png"], "--plot"),
    (["--mu-toe", "0.5", "--animate", "missing/x.gif"], "--animate"),
])
def test_bad_input_exits_2_with_one_line(args, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _main_exit(["flip", "--controller", "blind", *args]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1 and cap.err.startswith(f"contactmodes: error: {option}")
    assert list(tmp_path.iterdir()) == []


def test_param_sets_any_field():
    from controllers.rhex.cli import params_from_args

    args = build_parser().parse_args(["flip", "--controller", "blind", "--mu-toe", "0.4", "--param", "tau_stall=20",
                                      "--tau-limit", "18", "--param", "v0=0.001,0.05,0.002,0.002",
                                      "--param", "detector_hold=2"])
    p = params_from_args(args)
    assert (p.mu_toe, p.tau_stall, p.tau_limit, p.v0, p.detector_hold) == (0.4, 20.0, 18.0, (0.001, 0.05, 0.002, 0.002), 2)


def test_unwritable_plot_directory_fails_before_the_run(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    bad = tmp_path / "file" / "p.png"  # the "directory" is a file: unwritable for anyone, even root
    assert _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--plot", str(bad),
                       "--animate", str(tmp_path / "a.gif")]) == 2
    assert capsys.readouterr().err.startswith("contactmodes: error: --plot")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_exit_codes_through_the_console_entry(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "flip", "--controller", "blind", "--mu-toe", "-1",
                           "--plot", "p.png"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1
    assert "--mu-toe" in proc.stderr and list(tmp_path.iterdir()) == []
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "flip", "--controller", "blind", "--mu-toe", "0.6",
                           "--duration", "0.01"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 1 and "no flip (timeout)" in proc.stdout and proc.stderr == ""


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
    code = _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--json", "--output",
                       str(tmp_path / "o.json"), "--plot", str(tmp_path / "p.png"), "--animate", str(tmp_path / "a.gif")])
    assert code == 130 and capsys.readouterr().out == ""
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_rendering_leaves_no_file(tmp_path, monkeypatch):
    import controllers.rhex.plots as plots

    def broken_animate(result, path, **kw):
        Path(path).write_bytes(b"GIF89a partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(plots, "animate", broken_animate)
    code = _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.01",
                       "--plot", str(tmp_path / "p.png"), "--animate", str(tmp_path / "a.gif")])
    assert code == 130 and list(tmp_path.iterdir()) == []  # the finished PNG is not kept either


def test_short_max_thrust_run(capsys):
    pytest.importorskip("controllers.rhex.max_thrust")
    args = build_parser().parse_args(["flip", "--controller", "max-thrust", "--mu-toe", "0.6", "--duration", "0.02",
                                      "--json"])
    out = args.run(args)
    assert out.status == 1  # no flip in 20 ms: the usual output, exit status 1
    doc = json.loads(out.text)
    assert doc["controller"] == "max-thrust" and doc["steps"] == 20 and doc["thrust_end_s"] == pytest.approx(0.02)
    assert doc["controller_status"] == {"optimal": 20} and doc["switch_time_s"] is None
    assert doc["rmse_pitch_accel"] is not None and all(s["controller"] for s in doc["mode_timeline"])


def test_run_flip_api_matches_the_cli_document(capsys):
    p = RHexParams(mu_toe=0.5, mu_body=0.2, tau_limit=9.0)
    doc = run_flip(p, "blind", duration=0.03, timeline=False)
    assert set(doc) == FIELDS and doc["params"] == p.to_dict()
    assert _main_exit(["flip", "--controller", "blind", "--mu-toe", "0.5", "--mu-body", "0.2", "--tau-limit", "9",
                       "--duration", "0.03", "--json"]) == 1
    cli = json.loads(capsys.readouterr().out)
    cli.pop("mode_timeline")
    for d in (doc, cli):
        for key in ("median_step_ms", "step_ms", "step_cpu_ms"):  # wall and CPU time
            d.pop(key)
    assert doc == cli
    with pytest.raises(ValueError, match="controller"):
        run_flip(p, "fast", duration=0.01)
    with pytest.raises(ValueError, match="params"):
        run_flip({"mu_toe": 0.5}, "blind", duration=0.01)


def test_simulated_accel_matches_the_simulator_record():
    run = simulate_flip(RHexParams(), "blind", 0.02)
    np.testing.assert_allclose(simulated_pitch_accel(run.result), run.result.pitch_acc, rtol=1e-9, atol=1e-9)
    assert thrust_phase(run.result) == 20


def test_plot_pitch_needs_runs(tmp_path):
    with pytest.raises(ValueError):
        plot_pitch({}, str(tmp_path / "x.png"))


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_reproduce_flip_script_plumbing(tmp_path, capsys, monkeypatch):
    """The script's sections and files on tiny runs (nothing flips in 10 ms) over one-point grids
    (the grids themselves are checked separately); only ``--out`` is written."""
    mod = _script("reproduce_flip")
    full, quick = mod.grids(False), mod.grids(True)
    tau0 = RHexParams().tau_limit
    assert tau0 in full["tau"] and 8.0 in full["tau"] and 16.2 in full["tau"] and len(quick["tau"]) < len(full["tau"])
    assert min(full["mu_body"]) == 0.1 and max(full["mu_body"]) == 0.6
    assert min(full["mu_toe"]) == 0.05 and max(full["mu_toe"]) == 1.5 and {0.39, 0.6} <= set(full["mu_toe"])
    monkeypatch.setattr(mod, "grids", lambda q: {"tau": [tau0], "mu_body": [0.3], "threshold": [12.0],
                                                 "mu_toe": [0.39, 0.6]})
    out = tmp_path / "out"
    assert mod.main(["--out", str(out), "--quick", "--duration", "0.01", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "## Table V" in text and "11.22" in text and "6.68" in text and "documented window" in text
    assert "## Flip-time ratio max-thrust / blind at mu_t = 0.6" in text and "0.92" in text
    assert "## Torque sweep" in text and "## Distribution" in text and "## Success map" in text
    assert sorted(p.name for p in out.iterdir()) == ["fig15_pitch.png", "ratio_distribution.png", "runs.json",
                                                      "success_map.png"]
    assert (out / "success_map.png").read_bytes()[:8] == PNG_MAGIC


def test_calibration_scripts_write_only_into_out(tmp_path, capsys):
    det = _script("tune_blind_detector")
    assert det.main(["--out", str(tmp_path / "d"), "--thresholds", "10:12:2", "--duration", "0.03"]) == 0
    assert "chosen threshold: none admissible" in capsys.readouterr().out  # no stiction in 30 ms
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["detector_tuning.json", "detector_tuning.png"]
    v0 = _script("velocity_thresholds")
    assert v0.main(["--out", str(tmp_path / "v"), "--duration", "0.03"]) == 0
    assert "| toe1 |" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == ["fig12_mu039.png", "fig12_mu060.png",
                                                                  "velocity_thresholds.json"]
    tq = _script("calibrate_torque")
    assert tq.main(["--out", str(tmp_path / "t"), "--taus", "10", "--duration", "0.01"]) == 0
    assert "calibrated tau_limit = none" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["torque_calibration.json", "torque_calibration.png"]
    assert tq.torque_grid(quick=True)[0] == 8.0 and tq.torque_grid(quick=False)[-1] == RHexParams().tau_stall
    assert tq.event_before_flip({"resliding_time_s": 0.5, "flip_time_s": 0.45}) is None
    assert tq.event_before_flip({"resliding_time_s": 0.44, "flip_time_s": 0.45}) == 0.44
