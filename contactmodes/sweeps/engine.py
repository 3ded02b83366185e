"""Run the points of a prepared sweep: in this process, on a Dask ``LocalCluster``, or on a
running Dask cluster given its scheduler address.

* ``scheduler=None, workers=0``: a plain loop in this process (no Dask; debugging, tiny sweeps).
* ``scheduler=None, workers=N`` (default ``N`` = ``os.cpu_count()``): a ``LocalCluster`` of
  ``min(N, points)`` worker **processes** with one thread each, started and closed here.
* ``scheduler="tcp://host:port"``: a ``Client`` connected to that scheduler; its workers must
  have this package installed. ``workers`` must then be ``None``.

Every point runs the same deterministic function on the same inputs, so the results do not
depend on who runs them (``tests/test_sweep_dask.py`` checks serial = local = remote). A point whose
function raises is recorded as ``{"ok": false, "error": "Type: message"}`` and the sweep goes
on; so is a point whose task is lost (e.g. its worker died). Ctrl-C cancels the outstanding
tasks, closes what was started here and re-raises ``KeyboardInterrupt``: the caller writes
nothing (Ctrl-C while a ``LocalCluster`` is starting takes effect once it has started, as a
half-started cluster cannot be closed cleanly). A progress bar (tqdm) is shown on stderr when it is a terminal.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from typing import Any, Callable, Sequence

from .grid import SweepError

__all__ = ["run_point", "execute", "check_resources", "CONNECT_TIMEOUT", "WORKER_WAIT"]

CONNECT_TIMEOUT = "10s"
"""How long to try to reach a ``--scheduler`` before giving up (a user error)."""
WORKER_WAIT = 60.0
"""Seconds to wait for at least one worker to join a ``--scheduler`` that has none."""


def run_point(evaluate: Callable[[dict], dict], params: dict) -> dict:
    """The point document of one grid point: ``{"params", "ok", "error", **evaluate(params)}``,
    or ``{"params", "ok": False, "error": "Type: message"}`` when ``evaluate`` raises."""
    try:
        fields = evaluate(params)
    except Exception as exc:  # a failing point is a result, not a failure of the sweep
        return {"params": dict(params), "ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"params": dict(params), "ok": True, "error": None, **fields}


def _bar(total: int, progress: bool | None):
    from tqdm import tqdm

    enabled = sys.stderr.isatty() if progress is None else bool(progress)
    return tqdm(total=total, desc="contactmodes: sweep", unit="point", file=sys.stderr,
                disable=not enabled, dynamic_ncols=True)


def _say(message: str, announce: bool) -> None:
    if announce:
        print(f"contactmodes: sweep: {message}", file=sys.stderr, flush=True)


def _serial(evaluate, points, bar) -> list[dict]:
    out = []
    for p in points:
        out.append(run_point(evaluate, p))
        bar.update(1)
    return out


def _on_client(client, evaluate, points, bar) -> list[dict]:
    from dask.distributed import as_completed

    shared = client.scatter(evaluate, broadcast=True, hash=False)
    futures = client.map(run_point, [shared] * len(points), points, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    results: list[Any] = [None] * len(points)
    failed = 0
    try:
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                results[i] = fut.result()
            except Exception as exc:  # the task itself was lost (worker died, cancelled, …)
                results[i] = {"params": dict(points[i]), "ok": False, "error": f"{type(exc).__name__}: {exc}"}
            failed += not results[i]["ok"]
            bar.update(1)
            if failed:
                bar.set_postfix(failed=failed)
    except BaseException:
        client.cancel(futures, force=True)
        raise
    return results


@contextlib.contextmanager
def _deferred_interrupt():
    """Hold Ctrl-C while a ``LocalCluster`` starts (a half-started cluster cannot be closed
    cleanly); yields a list that is non-empty if Ctrl-C came meanwhile. No-op off the main thread."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        yield got
    finally:
        signal.signal(signal.SIGINT, previous)


def check_resources(scheduler: str | None, workers: int | None) -> None:
    """:class:`SweepError` on ``workers`` that is not an integer >= 0, or given with ``scheduler``."""
    if scheduler is not None and workers is not None:
        raise SweepError("--workers: not used with --scheduler (the cluster has its own workers)")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 0):
        raise SweepError(f"--workers: must be an integer >= 0, got {workers!r}")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise SweepError(f"--scheduler: expected an address such as tcp://127.0.0.1:8786, got {scheduler!r}")


def execute(evaluate: Callable[[dict], dict], points: Sequence[dict], scheduler: str | None = None,
            workers: int | None = None, progress: bool | None = None,
            announce: bool = False) -> tuple[list[dict], str, int]:
    """Evaluate every point (module doc); returns ``(point documents in grid order, scheduler
    label, number of workers)`` with the label ``"serial"``, ``"local"`` or the address.

    Raises :class:`~contactmodes.sweeps.grid.SweepError` on a bad ``workers``/``scheduler``
    combination or an unreachable scheduler, ``KeyboardInterrupt`` on Ctrl-C (outstanding tasks
    cancelled). ``announce`` prints one line on stderr when a cluster is started or reached.
    """
    points = [dict(p) for p in points]
    check_resources(scheduler, workers)
    if scheduler is None and workers == 0:
        with _bar(len(points), progress) as bar:
            return _serial(evaluate, points, bar), "serial", 0
    from dask.distributed import Client, LocalCluster

    if scheduler is None:
        n = max(1, min(workers or os.cpu_count() or 1, len(points)))
        _say(f"starting a LocalCluster with {n} worker{'s' * (n > 1)} for {len(points)} points", announce)
        with _deferred_interrupt() as interrupted:
            try:
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.CRITICAL)
            except Exception as exc:
                raise RuntimeError(
                    f"could not start a local Dask cluster ({type(exc).__name__}: {exc}); worker processes "
                    "re-import the main module, so a script must start a sweep under "
                    "`if __name__ == \"__main__\":`") from exc
        if interrupted:
            cluster.close()
            raise KeyboardInterrupt
        try:
            with Client(cluster) as client, _bar(len(points), progress) as bar:
                return _on_client(client, evaluate, points, bar), "local", n
        finally:
            cluster.close()
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepError(f"--scheduler: cannot connect to {scheduler}: {exc}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            raise SweepError(f"--scheduler: {scheduler} has no workers (waited {WORKER_WAIT:g} s)") from None
        n = len(client.nthreads())
        _say(f"{len(points)} points on {scheduler} ({n} worker{'s' * (n > 1)})", announce)
        with _bar(len(points), progress) as bar:
            return _on_client(client, evaluate, points, bar), scheduler, n
    finally:
        client.close()
