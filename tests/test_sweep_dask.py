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
from pathlib import Path

import pytest

from contactmodes.sweeps import SweepError, engine, run_sweep

ROOT = Path(__file__).resolve().parents[1]
BRACE = ROOT / "examples" / "two_link_brace.toml"
DEADLINE = 240  # s: generous for a loaded 2-core machine; a healthy run takes ~20 s
ANALYZE = dict(vary={"contacts.*.mu": [0.1, 0.3, 0.6, 1.5]}, system=BRACE, modes=["FFF", "SSS"],
               unambiguous=True, inconsistency_box="-1:1")
TIMING = ("median_step_ms",)  # a wall-time measurement, not a result


@contextlib.contextmanager
def deadline(seconds: int):
    """Raise TimeoutError in this thread if the block runs longer than ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


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


def test_ctrl_c_cancels_a_cluster_run_and_writes_nothing(tmp_path):
    out, png = tmp_path / "t.csv", tmp_path / "p.png"
    proc = subprocess.Popen(
        [sys.executable, "-m", "contactmodes", "sweep", "flip", "--vary", "mu_toe=0.1:0.8:40", "--controller",
         "blind", "--duration", "2", "--workers", "1", "--output", str(out), "--plot", str(png)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = proc.stderr.readline()  # the announce line: the cluster is being started
        # 40 flips on one worker take far longer than the 3 s below on any machine: the signal
        # lands mid-run (a short sweep could finish first and exit 0)
        assert "starting a LocalCluster with 1 worker for 40 points" in line, line
        time.sleep(3.0)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "contactmodes: interrupted" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
