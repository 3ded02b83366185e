"""Issue 22, the sweep items: the grid-size guard (``--max-points``), the point count announced
before anything runs, progress on a terminal and off it (item 6); ``--output`` replacing stdout
and small sweeps in this process (item 9); the flip map's RMSE panel and ticks (item 11).
The Ctrl-C item (5) is
``tests/contactmodes/sweeps/test_sweep_dask.py::test_ctrl_c_cancels_a_cluster_run_and_writes_nothing``.

Everything runs in this process and takes seconds; no Dask cluster is started here (a cluster
request is answered by a stand-in that records it)."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

from _support.paths import ROOT
from _support.timing import deadline
from contactmodes.cli import main
from contactmodes.progress import Progress
from contactmodes.sweeps import SweepError, engine, get_kind, grid, parse_vary, run_sweep

BRACE = str(ROOT / "examples" / "two_link_brace.toml")


class ClusterRequested(Exception):
    pass


@pytest.fixture
def no_cluster(monkeypatch):
    """Replace Dask's ``LocalCluster`` by a stand-in that records the request and fails; yields
    the list of requests."""
    import dask.distributed
    import distributed

    calls = []

    def fake(*args, **kwargs):
        calls.append(kwargs)
        raise ClusterRequested("a LocalCluster was requested")

    monkeypatch.setattr(distributed, "LocalCluster", fake)
    monkeypatch.setattr(dask.distributed, "LocalCluster", fake)
    return calls


# ------------------------------------------------------------------------- item 6: grid size


def test_default_limit_refuses_a_huge_grid_at_once_in_one_line(capsys):
    """``0:1:100000000`` ran silently for weeks; now one line naming the option, exit 2, before
    any value is made (the 10^8 values are never generated: well within the deadline)."""
    with deadline(20):
        assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0:1:100000000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("contactmodes: error: --max-points: "), err
    assert "100000000 points" in err and "limit of 100000 " in err and grid.MAX_POINTS == 100_000


def test_default_limit_is_exact_and_checked_before_the_points(capsys):
    """One point above the default limit is refused quickly (a product of two keys, too)."""
    with deadline(20):
        assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0:1:1001",
                     "--vary", "contacts.1.mu=0:1:100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-points: the grid has 100100 points" in err, err


def test_max_points_option(capsys, no_cluster):
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1:1:6", "--max-points", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-points: the grid has 6 points, more than the limit of 5" in err, err
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1:1:6", "--max-points", "6",
                 "--workers", "0", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["points"]) == 6
    assert not no_cluster


def test_python_api_has_the_same_guard():
    with deadline(20), pytest.raises(SweepError, match="max_points: the grid has 200000 points"):
        run_sweep("analyze", {"contacts.0.mu": "0:1:200000"}, system=BRACE, workers=0)
    with pytest.raises(SweepError, match="max_points: the grid has 4 points, more than the limit of 3"):
        parse_vary({"a": [1, 2], "b": "x,y"}, max_points=3)
    assert len(parse_vary({"a": "0:1:100000"}, max_points=100000)) == 100000  # quick: no quadratic check


def test_point_count_is_printed_before_any_point_runs(monkeypatch, capsys):
    seen = []

    def record(system, *args):
        seen.append(capsys.readouterr().err)  # what stderr had when the first point ran
        return real(system, *args)

    import contactmodes.sweeps.adapter as adapter

    real = adapter.analyze_point
    monkeypatch.setattr(adapter, "analyze_point", record)
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5,0.9", "--workers", "0"]) == 0
    assert seen[0] == "contactmodes: sweep: 3 points in this process\n", seen


def test_progress_is_a_periodic_line_off_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(Progress.__init__, "__defaults__", (0.0, 0.0, None))  # report every update
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5,0.9", "--workers", "0",
                 "--json"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert "contactmodes: sweep: points checked 3/3" in err, err
    assert "contactmodes: sweep: points done 1/3" in err and "contactmodes: sweep: points done 3/3" in err, err


def test_progress_is_a_bar_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = Terminal()
    run_sweep("analyze", {"contacts.0.mu": [0.1, 0.5, 0.9]}, system=BRACE, workers=0,
              progress=Progress(after=0.0, stream=tty))
    text = tty.getvalue()
    assert "contactmodes: sweep: points done" in text and "/3 [" in text and "%|" in text, text
    assert "\r" in text and "\n" not in text  # a bar redrawn in place (and cleared), not lines


def test_no_progress_by_default_off_a_terminal_in_the_api(capsys):
    run_sweep("analyze", {"contacts.0.mu": [0.1, 0.5]}, system=BRACE, workers=0)
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------- item 9: --output, small sweeps


def test_output_replaces_stdout_as_analyze_output_does(tmp_path, capsys):
    sweep_out, analyze_out = tmp_path / "t.csv", tmp_path / "a.txt"
    assert main(["analyze", BRACE, "--output", str(analyze_out)]) == 0
    assert capsys.readouterr().out == ""  # the reference behaviour
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5", "--workers", "0",
                 "--output", str(sweep_out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "", captured.out
    assert captured.err == "contactmodes: sweep: 2 points in this process\n"
    import pandas as pd

    assert list(pd.read_csv(sweep_out)["contacts.0.mu"]) == [0.1, 0.5]
    # without --output the table is still printed
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5", "--workers", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 points in this process"


def test_failed_points_are_mentioned_on_stderr_with_output(tmp_path, monkeypatch, capsys):
    import contactmodes.sweeps.adapter as adapter

    def broken(*args):
        raise ValueError("solver gave up")

    monkeypatch.setattr(adapter, "analyze_point", broken)
    out = tmp_path / "t.csv"
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5", "--workers", "0",
                 "--output", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == f"contactmodes: sweep: 2 of 2 points failed (their error is in {out})"


def test_small_sweeps_run_in_this_process_without_a_cluster(capsys, no_cluster):
    """Two points started a LocalCluster (2.9 s against 0.8 s); now they run here."""
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["scheduler"] == "serial" and doc["workers"] == 0 and not no_cluster
    assert main(["sweep", "flip", "--vary", "mu_toe=0.3,0.6", "--controller", "blind", "--duration", "0.002",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheduler"] == "serial" and not no_cluster


def test_larger_sweeps_and_explicit_workers_still_start_a_cluster(capsys, no_cluster):
    n = get_kind("analyze").in_process_points
    with pytest.raises(SystemExit):  # the stand-in's failure is an internal error (exit 70)
        main(["sweep", "analyze", BRACE, "--vary", f"contacts.0.mu=0.1:1:{n + 1}"])
    assert len(no_cluster) == 1 and no_cluster[0]["n_workers"] >= 1
    with pytest.raises(SystemExit):
        main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=0.1,0.5", "--workers", "1"])
    assert len(no_cluster) == 2 and no_cluster[1]["n_workers"] == 1
    capsys.readouterr()


def test_in_process_rule():
    assert get_kind("analyze").in_process_points == 64 and get_kind("flip").in_process_points == 2
    rule = engine.runs_in_process
    assert rule(64, None, None, 64) and not rule(65, None, None, 64)
    assert rule(10**6, None, 0, 64)  # --workers 0
    assert not rule(2, None, 1, 64)  # --workers N: a cluster, as asked
    assert not rule(2, "tcp://127.0.0.1:8786", None, 64)  # --scheduler


def test_help_documents_the_limits(capsys):
    with pytest.raises(SystemExit):
        main(["sweep", "analyze", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-points N refuse a grid of more than N points (default 100000)" in text
    assert "in this process for at most 64 points" in text


# ------------------------------------------------------------------------ item 11: flip map


def _flip_result(n_mu: int = 9):
    """A flip sweep result over ``mu_toe`` × ``controller`` with made-up run fields (no simulation):
    the runs at the first and last μ did not flip, the others did."""
    from contactmodes.sweeps.result import SweepResult

    flips = parse_vary([f"mu_toe=0.05:1.5:{n_mu}", "controller=blind,max-thrust"])
    prepared = get_kind("flip").prepare(flips)
    points = []
    for i, params in enumerate(flips):
        flipped = 0 < i // 2 < n_mu - 1
        points.append({"params": params, "ok": True, "error": None, "controller": params["controller"],
                       "success": flipped, "outcome": "flipped" if flipped else "timeout",
                       "flip_time_s": 0.5 + 0.01 * i if flipped else None,
                       "rmse_pitch_accel": 50.0 + i, "rmse_pitch_accel_window": 5.0 + 0.1 * i})
    return SweepResult("flip", flips, prepared, points, "serial", 0)


def _figure(result, path, monkeypatch):
    from matplotlib.figure import Figure

    figures = []
    real = Figure.savefig

    def keep(self, *args, **kwargs):
        figures.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    from contactmodes.sweeps.plot import plot_sweep

    plot_sweep(result, str(path))
    return figures[0]


def test_flip_map_rmse_panel_is_windowed_labelled_and_masked(tmp_path, monkeypatch):
    result = _flip_result()
    fig = _figure(result, tmp_path / "map.png", monkeypatch)
    axes = {ax.get_title(): ax for ax in fig.axes if ax.get_images()}
    (title, ax), = [(t, a) for t, a in axes.items() if "RMSE" in t]
    assert "window" in title and "rmse_pitch_accel_window" in title and "flipped runs" in title, title
    shown = ax.get_images()[0].get_array()  # (controller, mu_toe)
    windowed = np.array([p["rmse_pitch_accel_window"] for p in result.points]).reshape(9, 2).T
    flipped = np.array([p["success"] for p in result.points]).reshape(9, 2).T
    assert np.array_equal(np.ma.getmaskarray(shown), ~flipped)  # no flip: no RMSE (n/a)
    assert np.allclose(shown[flipped], windowed[flipped])  # the windowed definition, not the whole-thrust one
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("n/a") == int((~flipped).sum())


def test_flip_map_x_tick_labels_do_not_overlap(tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _figure(_flip_result(), tmp_path / "map.png", monkeypatch)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()  # the layout as saved
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        if not ax.get_images():
            continue
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        assert 2 <= len(boxes) <= 5, [t.get_text() for t in ax.get_xticklabels()]
        for a, b in zip(boxes, boxes[1:]):
            assert a.x1 < b.x0, (ax.get_title(), a, b)
        assert ax.get_xticklabels()[0].get_text() == "0.05"


def test_rmse_panel_keeps_the_table_whole():
    """Masking is the picture's: the table keeps both RMSE definitions for every run."""
    df = _flip_result().to_frame()
    assert df["rmse_pitch_accel_window"].notna().all() and df["rmse_pitch_accel"].notna().all()
    assert math.isnan(df["flip_time_s"][0])
