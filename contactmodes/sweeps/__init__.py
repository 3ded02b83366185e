"""Parameter sweeps and atlases on Dask: one grid of inputs, one result row per point.

A sweep varies keys over a grid (``LO:HI:N`` or ``a,b,c`` per key, Cartesian product; ``grid``)
and evaluates every point with a *kind*: ``analyze`` (a system file's modes, ``T_c``, ``T*_c`` and
inconsistency; ``analyze_kind``) or a kind registered by another package (``flip``, the RHex
self-righting simulation, in ``controllers.rhex.sweep``; ``kinds`` says how). The points run
in this process, on a Dask ``LocalCluster`` or on a running Dask cluster (``engine``); the
result is the ``contactmodes.sweep/1`` document or a pandas table (``result``) and a picture
(``plot``). Command line: ``contactmodes sweep KIND ...`` (``cli``); guide: ``docs/sweeps.md``.
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence

from contactmodes.progress import stage
from contactmodes.sweeps.engine import check_resources, execute, progress_of
from contactmodes.sweeps.grid import MAX_POINTS, Grid, SweepError, parse_spec, parse_vary
from contactmodes.sweeps.kinds import KIND_GROUP, Panel, Prepared, SweepKind
from contactmodes.sweeps.registry import available_kinds, get_kind
from contactmodes.sweeps.result import SCHEMA, SweepResult

__all__ = ["sweep", "run_sweep", "SweepResult", "SweepError", "SweepKind", "Prepared", "Panel", "Grid",
           "KIND_GROUP", "SCHEMA", "MAX_POINTS", "available_kinds", "get_kind", "parse_spec", "parse_vary"]


def run_sweep(kind: str, vary: Mapping[str, Any] | Sequence[str] | Grid, *, scheduler: str | None = None,
              workers: int | None = None, progress: Any = None, announce: bool = False,
              max_points: int | None = MAX_POINTS, **options: Any) -> SweepResult:
    """Validate every grid point, run the sweep, return the ``SweepResult``.

    Parameters
    ----------
    kind : str
        ``"analyze"``, ``"flip"`` or another registered kind (``available_kinds``).
    vary : Mapping[str, Any] or Sequence[str] or Grid
        ``{key: spec}`` with ``spec`` a string ``"LO:HI:N"`` / ``"a,b,c"`` or a sequence of
        values; the keys' Cartesian product is the grid (last key fastest). Or a ``Grid``.
    scheduler : str, optional
        Address of a running Dask scheduler (``"tcp://host:port"``), or ``None``.
    workers : int, optional
        Without ``scheduler``: ``0`` runs the points in this process (no Dask), ``N``
        starts a ``LocalCluster`` of ``N`` processes; default (``None``): in this process when
        the grid has at most the kind's ``in_process_points`` points (``analyze`` 64, ``flip``
        2), otherwise a ``LocalCluster`` of one process per core.
    progress : bool or Progress, optional
        ``None`` (default) a progress bar on stderr when it is a terminal; ``True`` a bar
        on a terminal, a line every few seconds otherwise; ``False`` none; or a
        ``contactmodes.progress.Progress``. Covers checking the points and running them.
    announce : bool, optional
        Print one line on stderr, before the points run, saying how many run where.
    max_points : int or None, optional
        Refuse a grid of more points (``MAX_POINTS`` = 100000 by default; ``None``:
        no limit), counted before any value is made.
    **options : object
        The kind's options — ``analyze``: ``system`` (path or parsed table, required),
        ``modes``, ``unambiguous``, ``inconsistency_box``; ``flip``: ``controller``, ``duration``.

    Returns
    -------
    SweepResult
        The grid, the prepared kind and every point's document (failed points included, with
        their error).

    Raises
    ------
    SweepError
        (a ``ContactModelError``) before anything runs: a malformed spec,
        a key that does not exist, a value the model rejects at any point (the message names the
        key), bad options, an unreachable scheduler.
    KeyboardInterrupt
        On Ctrl-C; outstanding tasks are cancelled.
    """
    check_resources(scheduler, workers)
    k = get_kind(kind)
    grid = parse_vary(vary, max_points)
    shown = progress_of(progress)
    if "progress" in inspect.signature(k.prepare).parameters:
        with stage(shown, "sweep: points checked", len(grid)) as checking:
            prepared = k.prepare(grid, progress=checking, **options)
    else:
        prepared = k.prepare(grid, **options)
    points, label, n = execute(prepared.evaluate, grid.points(), scheduler, workers, shown if shown else False,
                               announce, k.in_process_points)
    return SweepResult(k.name, grid, prepared, points, label, n)


def sweep(kind: str, vary: Mapping[str, Any] | Sequence[str] | Grid, *, scheduler: str | None = None,
          workers: int | None = None, progress: Any = None, max_points: int | None = MAX_POINTS, **options: Any):
    """Run a sweep and return its table as a ``pandas.DataFrame`` (one row per grid point).

    Columns: the varied keys, ``ok``, ``error`` (``None`` or ``"Type: message"`` of a failed point),
    then the kind's results (``docs/sweeps.md``); NaN where not applicable, ±inf where unbounded.
    ``df.attrs`` holds the inputs (kind, grid, scheduler, workers, system, modes, torques…).

    Parameters
    ----------
    kind : str
        ``"analyze"``, ``"flip"`` or another registered kind (``run_sweep``).
    vary : Mapping[str, Any] or Sequence[str] or Grid
        The grid (``run_sweep``).
    scheduler : str, optional
        Address of a running Dask scheduler, or ``None`` (``run_sweep``).
    workers : int, optional
        ``0`` in this process, ``N`` a ``LocalCluster`` of ``N`` processes (``run_sweep``).
    progress : bool or Progress, optional
        As ``run_sweep``.
    max_points : int or None, optional
        Refuse a grid of more points (``run_sweep``).
    **options : object
        The kind's options (``run_sweep``).

    Returns
    -------
    pandas.DataFrame
        One row per grid point.

    Raises
    ------
    SweepError
        As ``run_sweep``, before anything runs.
    MissingExtraError
        Without pandas (the ``sweep`` extra), before anything runs.
    KeyboardInterrupt
        On Ctrl-C; outstanding tasks are cancelled.

    Examples
    --------
    Where does the two-link brace hold in mode ``FFF``, and how large is the set of elbow torques
    that guarantees it (within −1…1 N·m), as all three contacts' μ grows?

    >>> import contactmodes
    >>> df = contactmodes.sweep("analyze", {"contacts.*.mu": "0.1:0.5:5"},
    ...                         system="examples/two_link_brace.toml", modes=["FFF"],
    ...                         unambiguous=True, inconsistency_box="-1:1", workers=0)
    >>> df[["contacts.*.mu", "FFF.T_hi.tau1", "FFF.unambiguous_measure"]].round(3)  # doctest: +SKIP
       contacts.*.mu  FFF.T_hi.tau1  FFF.unambiguous_measure
    0            0.1         -0.563                    0.437
    ...
    """
    from contactmodes.extras import require

    require("pandas", "sweep", "sweep")
    return run_sweep(kind, vary, scheduler=scheduler, workers=workers, progress=progress, max_points=max_points,
                     **options).to_frame()
