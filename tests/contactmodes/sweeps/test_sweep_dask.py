"""Sweeps on Dask give the same points as a plain loop in this process: on a ``LocalCluster`` of
2 workers, and on a scheduler and a worker started here as subprocesses on 127.0.0.1 (killed at
the end). Failing points are recorded on a cluster too; Ctrl-C stops a cluster run writing
nothing. Every cluster step is bounded in time (``DEADLINE`` seconds)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from _support.paths import ROOT
from _support.timing import deadline
from contactmodes.sweeps import SweepError, engine, run_sweep

BRACE = ROOT / "examples" / "two_link_brace.toml"
DEADLINE = 240  # s: generous for a loaded 2-core machine; a healthy run takes ~20 s
ANALYZE = dict(vary={"contacts.*.mu": [0.1, 0.3, 0.6, 1.5]}, system=BRACE, modes=["FFF", "SSS"],
               unambiguous=True, inconsistency_box="-1:1")
TIMING = ("median_step_ms",)  # a wall-time measurement, not a result


def _results(points, drop=()):
    return [{k: v for k, v in p.items() if k not in drop} for p in points]


@pytest.fixture(scope="module")
def local():
    with deadline(DEADLINE):
        return run_sweep("analyze", workers=2, **ANALYZE)


@pytest.fixture(scope="module")
def remote(tmp_path_factory):
    """Address of a ``dask scheduler`` + ``dask worker`` (1 process, 1 thread) started here."""
    tmp = tmp_path_factory.mktemp("dask")
    info = tmp / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    worker = [sys.executable, "-m", "distributed.cli.dask_worker"]
    procs = [subprocess.Popen(dask + ["--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(info), "--idle-timeout", "600"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        t0 = time.monotonic()
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() - t0 < 60, "dask scheduler did not start"
            time.sleep(0.2)
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(subprocess.Popen(worker + [address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
                                                "--death-timeout", "60"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        yield address
    finally:
        for p in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=20)


def test_local_cluster_equals_serial_loop(local):
    assert local.scheduler == "local" and local.workers == 2
    serial = run_sweep("analyze", workers=0, **ANALYZE)
    assert serial.scheduler == "serial"
    assert all(p["ok"] for p in serial.points)
    assert local.points == serial.points  # exactly: same floats, same order
    assert local.to_json()["points"] == json.loads(serial.dumps())["points"]


def test_remote_scheduler_equals_local_cluster(remote, local):
    with deadline(DEADLINE):
        res = run_sweep("analyze", scheduler=remote, **ANALYZE)
    assert res.scheduler == remote and res.workers == 1
    assert res.points == local.points


def test_failing_points_are_recorded_on_a_cluster(remote):
    """Legs of 1 cm cannot reach the ground from the flat start: that run raises, the other runs."""
    flips = dict(vary={"l": [0.01, 0.17]}, controller="blind", duration=0.003)
    with deadline(DEADLINE):
        res = run_sweep("flip", scheduler=remote, **flips)
    serial = run_sweep("flip", workers=0, **flips)
    assert [p["ok"] for p in res.points] == [False, True]
    assert res.points[0]["error"] == "ValueError: initial_state: legs too short to reach the ground"
    assert res.points[1]["steps"] == 3 and res.points[1]["controller"] == "blind"
    assert _results(res.points, TIMING) == _results(serial.points, TIMING)


def test_unreachable_scheduler_is_a_user_error(monkeypatch):
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT", "1s")
    with deadline(60), pytest.raises(SweepError, match="--scheduler: cannot connect to tcp://127.0.0.1:9"):
        run_sweep("analyze", scheduler="tcp://127.0.0.1:9", **ANALYZE)


def _group_gone(pgid: int, seconds: float) -> bool:
    """Whether every process of group ``pgid`` has exited within ``seconds``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


def _workers_of(pid: int) -> list:
    """The Dask worker processes (multiprocessing children, not the resource tracker) under ``pid``."""
    import psutil

    out = []
    for child in psutil.Process(pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            line = " ".join(child.cmdline())
            if "spawn_main" in line and "resource_tracker" not in line:
                out.append(child)
    return out


@pytest.mark.parametrize("when", ["running", "starting"])
def test_ctrl_c_cancels_a_cluster_run_and_writes_nothing(tmp_path, when):
    """Ctrl-C as a terminal sends it: SIGINT to the whole process group, the Dask worker processes
    included (issue 22, item 5: four worker tracebacks, 68 lines on stderr), while the workers run
    points or while the cluster starts. Now one line says so, no traceback, nothing written, exit
    130, no process of the group left."""
    out, png = tmp_path / "t.csv", tmp_path / "p.png"
    # 100 points of 0.2-0.5 s each on two workers: far longer than the wait below on any machine
    proc = subprocess.Popen(
        [sys.executable, "-m", "contactmodes", "sweep", "analyze", str(ROOT / "examples" / "six_link_brace.toml"),
         "--vary", "contacts.0.mu=0.2:1:100", "--unambiguous", "--workers", "2", "--output", str(out),
         "--plot", str(png)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True)
    seen = ""
    try:
        with deadline(DEADLINE):
            if when == "starting":
                while "starting a LocalCluster" not in seen:
                    line = proc.stderr.readline()
                    assert line, seen
                    seen += line
            else:
                while len(_workers_of(proc.pid)) < 2:
                    assert proc.poll() is None, proc.communicate()
                    time.sleep(0.1)
                time.sleep(3.0)  # the workers have imported the toolkit and run points
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C: the whole foreground group
        _, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = seen + err
    lines = err.splitlines()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert lines[-1] == "contactmodes: interrupted", err
    # before it only our announce and progress lines
    assert "contactmodes: sweep: starting a LocalCluster with 2 workers for 100 points" in lines, err
    assert all(line.startswith("contactmodes: sweep: ") for line in lines[:-1]), err
    assert list(tmp_path.iterdir()) == []
    assert _group_gone(proc.pid, 30), "processes left running after Ctrl-C"  # the workers were closed
