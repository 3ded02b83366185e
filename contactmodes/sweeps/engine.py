"""Run the points of a prepared sweep: in this process, on a Dask ``LocalCluster``, or on a
running Dask cluster given its scheduler address.

* ``scheduler=None, workers=0``: a plain loop in this process (no Dask; debugging, tiny sweeps).
* ``scheduler=None, workers=None``: in this process when there are at most ``in_process_points``
  points (the kind's ``in_process_points``: a cluster would take longer to
  start than they take to run), otherwise as ``workers=os.cpu_count()``.
* ``scheduler=None, workers=N``: a ``LocalCluster`` of ``min(N, points)`` worker **processes**
  with one thread each, started and closed here.
* ``scheduler="tcp://host:port"``: a ``Client`` connected to that scheduler; its workers must
  have this package installed. ``workers`` must then be ``None``.

Every point runs the same deterministic function on the same inputs, so the results do not
depend on who runs them (``tests/contactmodes/sweeps/test_sweep_dask.py`` checks serial = local = remote). A point whose
function raises is recorded as ``{"ok": false, "error": "Type: message"}`` and the sweep goes
on; so is a point whose task is lost (e.g. its worker died).

Ctrl-C (a terminal sends SIGINT to the whole foreground process group, the workers included)
cancels the outstanding tasks, closes what was started here and re-raises ``KeyboardInterrupt``:
the caller writes nothing. The worker processes of a ``LocalCluster`` are started with SIGINT
blocked (they inherit the signal mask of the thread that starts them), so the terminal's Ctrl-C
reaches only this process and no worker prints a traceback; they are closed by this process, with
Dask's loggers silenced. Ctrl-C while the cluster is starting (or closing) takes effect once it
has started (or closed): a half-started cluster cannot be closed cleanly.

Progress (``progress``): ``None`` a bar on stderr when it is a terminal, nothing otherwise;
``True`` a bar on a terminal, a line every few seconds otherwise (``contactmodes.progress``);
``False`` nothing; or a ``Progress`` to report to.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence

from contactmodes._dask import CONNECT_TIMEOUT, WORKER_WAIT, dask_client, held_interrupt, quiet_dask
from contactmodes.sweeps.grid import SweepError

__all__ = ["run_point", "execute", "check_resources", "runs_in_process", "progress_of", "held_interrupt",
           "CONNECT_TIMEOUT", "WORKER_WAIT"]



def run_point(evaluate: Callable[[dict], dict], params: dict) -> dict:
    """The point document of one grid point.

    ``{"params", "ok", "error", **evaluate(params)}``, or ``{"params", "ok": False, "error":
    "Type: message"}`` when ``evaluate`` raises (a failing point is a result).

    Parameters
    ----------
    evaluate : Callable[[dict], dict]
        The kind's evaluator (``Prepared.evaluate``).
    params : dict
        Varied key → value at the point.

    Returns
    -------
    dict
        The point document.
    """
    try:
        fields = evaluate(params)
    except Exception as exc:  # a failing point is a result, not a failure of the sweep
        return {"params": dict(params), "ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"params": dict(params), "ok": True, "error": None, **fields}


def progress_of(progress: Any):
    """The ``Progress`` that ``progress`` (module doc) asks for, or ``None`` for no progress.

    Parameters
    ----------
    progress : bool or Progress or None
        ``None`` a bar when stderr is a terminal, ``True`` always some progress, ``False`` none, or
        a ``Progress`` (returned as it is).

    Returns
    -------
    Progress or None
        The factory, or ``None``.
    """
    from contactmodes.progress import Progress

    if isinstance(progress, Progress):
        return progress
    if progress is None:
        p = Progress()
        return p if p.tty else None
    return Progress() if progress else None


def _bar(total: int, progress: Any):
    from contactmodes.progress import stage

    return stage(progress_of(progress), "sweep: points done", total)


def _say(message: str, announce: bool) -> None:
    if announce:
        print(f"contactmodes: sweep: {message}", file=sys.stderr, flush=True)


def _serial(evaluate, points, bar) -> list[dict]:
    out = []
    failed = 0
    for p in points:
        out.append(run_point(evaluate, p))
        failed += not out[-1]["ok"]
        bar.update(1, f"{failed} failed" if failed else "")
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
            bar.update(1, f"{failed} failed" if failed else "")
    except BaseException:
        with held_interrupt(), quiet_dask():
            client.cancel(futures, force=True)
        raise
    return results


def runs_in_process(n_points: int, scheduler: str | None, workers: int | None, in_process_points: int = 0) -> bool:
    """Whether ``execute`` runs ``n_points`` in this process (module doc).

    Parameters
    ----------
    n_points : int
        The grid's size.
    scheduler : str or None
        A Dask scheduler's address.
    workers : int or None
        The number of local workers (``0``: this process).
    in_process_points : int, optional
        Without ``workers`` and ``scheduler``, at most this many points run in this process.

    Returns
    -------
    bool
        ``True`` without a scheduler when ``workers == 0``, or ``workers`` is ``None`` and
        ``n_points <= in_process_points``.
    """
    return scheduler is None and (workers == 0 or (workers is None and n_points <= in_process_points))


def check_resources(scheduler: str | None, workers: int | None) -> None:
    """Check the ``workers``/``scheduler`` combination before anything runs.

    Parameters
    ----------
    scheduler : str or None
        A Dask scheduler's address.
    workers : int or None
        The number of local workers.

    Raises
    ------
    SweepError
        On ``workers`` that is not an integer >= 0, ``workers`` given with ``scheduler``, or a
        ``scheduler`` that is not a non-empty string.
    """
    if scheduler is not None and workers is not None:
        raise SweepError("--workers: not used with --scheduler (the cluster has its own workers)")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 0):
        raise SweepError(f"--workers: must be an integer >= 0, got {workers!r}")
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise SweepError(f"--scheduler: expected an address such as tcp://127.0.0.1:8786, got {scheduler!r}")


def execute(evaluate: Callable[[dict], dict], points: Sequence[dict], scheduler: str | None = None,
            workers: int | None = None, progress: Any = None,
            announce: bool = False, in_process_points: int = 0) -> tuple[list[dict], str, int]:
    """Evaluate every point (module doc).

    Parameters
    ----------
    evaluate : Callable[[dict], dict]
        The kind's picklable evaluator.
    points : Sequence[dict]
        The grid's points (varied key → value), in grid order.
    scheduler : str, optional
        A Dask scheduler's address.
    workers : int, optional
        Local workers (``0``: this process).
    progress : bool or Progress, optional
        As ``progress_of``.
    announce : bool, optional
        Print one line on stderr saying how many points run where, before they run.
    in_process_points : int, optional
        Without ``workers`` and ``scheduler``, at most this many points run in this process.

    Returns
    -------
    points : list[dict]
        The point documents, in grid order.
    label : str
        ``"serial"``, ``"local"`` or the scheduler's address.
    workers : int
        The number of workers used.

    Raises
    ------
    SweepError
        On a bad ``workers``/``scheduler`` combination or an unreachable scheduler.
    KeyboardInterrupt
        On Ctrl-C (outstanding tasks cancelled).
    """
    points = [dict(p) for p in points]
    check_resources(scheduler, workers)
    if runs_in_process(len(points), scheduler, workers, in_process_points):
        _say(f"{len(points)} point{'s' * (len(points) != 1)} in this process", announce)
        with _bar(len(points), progress) as bar:
            return _serial(evaluate, points, bar), "serial", 0
    from contactmodes.extras import require

    require("distributed", "sweep", "sweep on Dask")
    if scheduler is None:
        n = max(1, min(workers or os.cpu_count() or 1, len(points)))
        _say(f"starting a LocalCluster with {n} worker{'s' * (n > 1)} for {len(points)} points", announce)
        with dask_client(None, n, SweepError) as client, _bar(len(points), progress) as bar:
            return _on_client(client, evaluate, points, bar), "local", n
    with dask_client(scheduler, None, SweepError) as client:
        n = len(client.nthreads())
        _say(f"{len(points)} points on {scheduler} ({n} worker{'s' * (n > 1)})", announce)
        with _bar(len(points), progress) as bar:
            return _on_client(client, evaluate, points, bar), scheduler, n
