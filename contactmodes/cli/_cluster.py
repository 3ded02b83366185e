"""``contactmodes analyze FILE --workers N`` / ``--scheduler ADDR``: the Dask client of one
analysis (issue 28), started and closed by ``contactmodes._dask``, as the sweeps start theirs.

``--workers N`` starts a ``LocalCluster`` of ``N`` worker processes with one thread each (SIGINT
blocked in them while they start, so the terminal's Ctrl-C reaches only this process);
``--scheduler tcp://host:port`` connects to a running cluster whose workers have this package
installed. Both need the ``sweep`` extra (dask[distributed]); without it the command prints the
one-line extras message and exits 2. Ctrl-C cancels the outstanding tasks and closes what was
started here; the command then prints one line and exits 130, writing nothing.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from contactmodes._command_line import UserError

__all__ = ["analysis_client", "check_cluster_args"]


def check_cluster_args(scheduler: str | None, workers: int | None) -> None:
    """``UserError`` on ``--workers`` below 1, or given with ``--scheduler``."""
    if scheduler is not None and workers is not None:
        raise UserError("--workers: not used with --scheduler (the cluster has its own workers)")
    if workers is not None and workers < 1:
        raise UserError(f"--workers: must be an integer >= 1, got {workers}")
    if scheduler is not None and not scheduler.strip():
        raise UserError("--scheduler: expected an address such as tcp://127.0.0.1:8786")


@contextlib.contextmanager
def analysis_client(scheduler: str | None, workers: int | None, processes: bool = True) -> Iterator:
    """A Dask ``Client``: of a new ``LocalCluster`` of ``workers`` workers (``processes``: worker
    processes, else threads of this process), or connected to ``scheduler``; closed on exit
    (``contactmodes._dask.dask_client``, as the sweeps start theirs).

    Raises ``MissingExtraError`` without dask[distributed], ``UserError`` for an unreachable
    scheduler or one without workers."""
    from contactmodes.extras import require

    require("distributed", "sweep", "analyze --workers/--scheduler")
    from contactmodes._dask import dask_client

    with dask_client(scheduler, workers, UserError, processes) as client:
        yield client
