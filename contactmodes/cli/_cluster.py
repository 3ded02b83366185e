"""``contactmodes analyze FILE --workers N`` / ``--scheduler ADDR``: the Dask client of one
analysis (issue 28), started and closed as the sweeps start theirs (``contactmodes.sweeps.engine``).

``--workers N`` starts a ``LocalCluster`` of ``N`` worker processes with one thread each (SIGINT
blocked in them while they start, so the terminal's Ctrl-C reaches only this process);
``--scheduler tcp://host:port`` connects to a running cluster whose workers have this package
installed. Both need the ``sweep`` extra (dask[distributed]); without it the command prints the
one-line extras message and exits 2. Ctrl-C cancels the outstanding tasks and closes what was
started here; the command then prints one line and exits 130, writing nothing.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator

from contactmodes.cli._common import UserError

__all__ = ["analysis_client", "check_cluster_args"]

CONNECT_TIMEOUT = "10s"
"""How long to try to reach a ``--scheduler`` before giving up (a user error)."""
WORKER_WAIT = 60.0
"""Seconds to wait for at least one worker to join a ``--scheduler`` that has none."""


def check_cluster_args(scheduler: str | None, workers: int | None) -> None:
    """``UserError`` on ``--workers`` below 1, or given with ``--scheduler``."""
    if scheduler is not None and workers is not None:
        raise UserError("--workers: not used with --scheduler (the cluster has its own workers)")
    if workers is not None and workers < 1:
        raise UserError(f"--workers: must be an integer >= 1, got {workers}")
    if scheduler is not None and not scheduler.strip():
        raise UserError("--scheduler: expected an address such as tcp://127.0.0.1:8786")


def _close(*closables) -> None:
    """Close a client and its cluster with Ctrl-C held and Dask's loggers silenced; a Ctrl-C
    that came meanwhile is raised once they are closed."""
    from contactmodes.sweeps.engine import held_interrupt

    names = ("distributed", "tornado", "asyncio", "bokeh")
    saved = [(logging.getLogger(n), logging.getLogger(n).disabled) for n in names]
    with held_interrupt() as interrupted:
        for log, _ in saved:
            log.disabled = True
        try:
            for c in closables:
                if c is not None:
                    c.close()
        finally:
            for log, disabled in saved:
                log.disabled = disabled
    if interrupted:
        raise KeyboardInterrupt


@contextlib.contextmanager
def analysis_client(scheduler: str | None, workers: int | None, processes: bool = True) -> Iterator:
    """A Dask ``Client``: of a new ``LocalCluster`` of ``workers`` workers (``processes``: worker
    processes, else threads of this process), or connected to ``scheduler``; closed on exit.

    Raises ``MissingExtraError`` without dask[distributed], ``UserError`` for an unreachable
    scheduler or one without workers."""
    from contactmodes.extras import require

    require("distributed", "sweep", "analyze --workers/--scheduler")
    from dask.distributed import Client, LocalCluster

    from contactmodes.sweeps.engine import held_interrupt

    if scheduler is None:
        if processes:
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()  # from this thread: its start would unblock SIGINT
        cluster = client = None
        with held_interrupt() as interrupted:
            try:
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
                client = Client(cluster)
            except BaseException:
                _close(client, cluster)
                raise
        try:
            if interrupted:
                raise KeyboardInterrupt
            yield client
        finally:
            _close(client, cluster)
        return
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UserError(f"--scheduler: cannot connect to {scheduler}: {exc}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            raise UserError(f"--scheduler: {scheduler} has no workers (waited {WORKER_WAIT:g} s)") from None
        yield client
    finally:
        _close(client)
