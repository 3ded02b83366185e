"""The Dask client of a sweep (``contactmodes.sweeps.engine``) and of one analysis on a cluster
(``contactmodes.cli._cluster``, ``analyze --workers/--scheduler``): started, connected and closed
here, once for both.

``dask_client(scheduler, workers, error)`` yields a ``Client`` of a new ``LocalCluster`` of
``workers`` worker processes with one thread each, or of the running cluster at ``scheduler``;
``error`` is the caller's exception type for an unreachable scheduler or one without workers
(``SweepError``, ``UserError``). The worker processes are started with SIGINT blocked
(``held_interrupt``: they inherit the signal mask of the thread that starts them), so the
terminal's Ctrl-C reaches only this process; Ctrl-C while the cluster starts or closes takes effect
once it has started or closed (a half-started cluster cannot be closed cleanly), and everything
started here is closed on exit with Dask's loggers silenced (``close``).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from typing import Iterator

__all__ = ["CONNECT_TIMEOUT", "WORKER_WAIT", "close", "dask_client", "held_interrupt", "quiet_dask",
           "start_resource_tracker"]

CONNECT_TIMEOUT = "10s"
"""How long to try to reach a ``--scheduler`` before giving up (a user error)."""
WORKER_WAIT = 60.0
"""Seconds to wait for at least one worker to join a ``--scheduler`` that has none."""


@contextlib.contextmanager
def held_interrupt():
    """Hold Ctrl-C in the block (a ``LocalCluster`` starting or closing); yields a list that is
    non-empty if Ctrl-C came meanwhile. No-op off the main thread.

    SIGINT is also *blocked* in this thread meanwhile (``pthread_sigmask``, where it exists):
    threads and processes started in the block inherit the mask, so the Dask loop thread and the
    worker processes it spawns never receive Ctrl-C; a Ctrl-C that came meanwhile is delivered,
    and recorded, when the block ends."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    mask = getattr(signal, "pthread_sigmask", None)
    old = mask(signal.SIG_BLOCK, {signal.SIGINT}) if mask is not None else None
    try:
        yield got
    finally:
        if mask is not None:
            mask(signal.SIG_SETMASK, old)  # a pending Ctrl-C runs the handler above here
        signal.signal(signal.SIGINT, previous)


_DASK_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")


@contextlib.contextmanager
def quiet_dask():
    """Dask's (and its event loop's) loggers in this process silenced: closing a cluster with
    cancelled tasks logs warnings that mean nothing to the user."""
    saved = []
    for name in _DASK_LOGGERS:
        log = logging.getLogger(name)
        saved.append((log, log.disabled))
        log.disabled = True
    try:
        yield
    finally:
        for log, disabled in saved:
            log.disabled = disabled


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, from this thread, if it is not running.

    Dask's loop thread would otherwise start it while creating the first worker, and starting it
    *unblocks* SIGINT in the calling thread (``resource_tracker.ensure_running``): the worker
    processes spawned from that thread afterwards would get the terminal's Ctrl-C again."""
    try:
        from multiprocessing import resource_tracker
    except ImportError:  # pragma: no cover - no resource tracker on this platform
        return
    resource_tracker.ensure_running()


def close(*closables) -> None:
    """Close a client and its cluster, holding Ctrl-C, with Dask's loggers silenced; a Ctrl-C
    that came meanwhile is raised (``KeyboardInterrupt``) once they are closed."""
    with held_interrupt() as interrupted, quiet_dask():
        for c in closables:
            if c is not None:
                c.close()
    if interrupted:
        raise KeyboardInterrupt


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int | None, error: type[Exception],
                processes: bool = True) -> Iterator:
    """A connected Dask ``Client`` (module doc), closed on exit.

    Parameters
    ----------
    scheduler : str or None
        The address of a running scheduler (``tcp://host:port``), or ``None`` for a new
        ``LocalCluster``.
    workers : int or None
        The ``LocalCluster``'s workers (one thread each); unused with ``scheduler``.
    error : type
        Raised, with one line naming ``--scheduler``, for a scheduler that cannot be reached or
        has no worker within ``WORKER_WAIT`` s.
    processes : bool, optional
        Worker processes (default) or threads of this process (quick to start: tests).

    Raises
    ------
    RuntimeError
        The ``LocalCluster`` could not start (e.g. a script that starts one outside
        ``if __name__ == "__main__":``).
    KeyboardInterrupt
        Ctrl-C while the cluster started, once it is closed again.
    """
    from dask.distributed import Client, LocalCluster

    if scheduler is None:
        if processes:
            start_resource_tracker()
        cluster = client = None
        with held_interrupt() as interrupted:
            try:
                # worker processes run side by side: one thread each for the large batches too
                extra = {"env": {"CONTACTMODES_THREADS": "1"}} if processes else {}
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                                       dashboard_address=":0", silence_logs=logging.CRITICAL, **extra)
            except Exception as exc:
                raise RuntimeError(
                    f"could not start a local Dask cluster ({type(exc).__name__}: {exc}); worker processes "
                    "re-import the main module, so a script must start it under "
                    "`if __name__ == \"__main__\":`") from exc
            try:
                client = Client(cluster)
            except BaseException:
                close(cluster)
                raise
        try:
            if interrupted:
                raise KeyboardInterrupt
            yield client
        finally:
            close(client, cluster)
        return
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise error(f"--scheduler: cannot connect to {scheduler}: {exc}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except TimeoutError:
            raise error(f"--scheduler: {scheduler} has no workers (waited {WORKER_WAIT:g} s)") from None
        yield client
    finally:
        close(client)
