"""``contactmodes sweep KIND [FILE] --vary KEY=SPEC [--vary ...] [options]``.

::

    contactmodes sweep analyze FILE --vary KEY=SPEC [--vary KEY=SPEC ...] [--mode MODE ...] [--unambiguous]
                       [--inconsistency-box LO:HI[,...]] [--scheduler ADDRESS] [--workers N]
                       [--output OUT.csv|OUT.json|OUT.parquet] [--plot PNG] [--json]
    contactmodes sweep flip --vary PARAM=SPEC [--vary ...] [--controller NAME] [--duration S]
                       [--scheduler ADDRESS] [--workers N] [--output ...] [--plot PNG] [--json]

One sub-command per sweep kind (``kinds``: ``analyze`` built in, others through the
``contactmodes.sweep_kinds`` entry points). Stdout gets the ``contactmodes.sweep/1`` document with
``--json``; otherwise the table as text, unless ``--output`` writes it (CSV, JSON records, or
parquet when pyarrow is installed): then stdout gets nothing, as ``analyze --output``. ``--plot``
writes the picture. ``--workers 0`` runs in this process, as does, without ``--workers`` and
``--scheduler``, a sweep of at most the kind's ``in_process_points`` points (``analyze`` 64,
``flip`` 2). Stderr gets one line saying how many points run where, before they run, and
progress (a tqdm bar on a terminal, a line every few seconds otherwise) while the points are
checked and run; a grid of more than ``--max-points`` (default 100000) points is refused before
any value is made.

Contract (as every ``contactmodes`` command, ``contactmodes.cli``): everything that can be
checked is checked before anything runs — specs, keys, options, every grid point's values (the
loader's verdict), output paths and formats — and a failure is one line on stderr, exit 2,
nothing written. A grid point that fails while running is recorded (``ok: false`` and its error)
and the sweep goes on; the exit status is still 0. Ctrl-C cancels the outstanding tasks, writes
nothing and exits 130. Files are written only after the whole sweep, atomically and all together
(a failure while rendering leaves none of them). Any other exception is a bug: ``contactmodes:
internal error (please report): …``, exit 70.
"""

from __future__ import annotations

from typing import Callable

import argparse
import sys

from polytopes import PolytopeError

from contactmodes._command_line import UserError, check_writable, write_all_atomic
from contactmodes.errors import ContactModelError

__all__ = ["add_parser", "run", "INTERNAL_ERROR"]

INTERNAL_ERROR = 70


def _integer_at_least(minimum: int):
    """An argparse ``type``: an integer ``>= minimum``, else the option's one-line error."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {n}")
        return n

    return parse


_workers, _max_points = _integer_at_least(0), _integer_at_least(1)


def _common(p: argparse.ArgumentParser, what: str, in_process_points: int) -> None:
    from contactmodes.sweeps.grid import MAX_POINTS

    p.add_argument("--vary", action="append", required=True, metavar=f"{what}=SPEC",
                   help=f"vary {what} over SPEC: LO:HI:N (N values, ends included) or a,b,c; "
                        "repeat for the Cartesian product (last varies fastest)")
    p.add_argument("--max-points", type=_max_points, default=MAX_POINTS, metavar="N",
                   help=f"refuse a grid of more than N points (default {MAX_POINTS})")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:port)")
    p.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="start a local Dask cluster of N worker processes; 0 runs in this process; default: "
                        f"in this process for at most {in_process_points} points (a cluster takes longer to "
                        "start), otherwise one worker per core")
    p.add_argument("--output", dest="table_output", metavar="OUT", default=None,
                   help="write the table, one row per point (.csv, .json, or .parquet with pyarrow), "
                        "instead of printing it")
    p.add_argument("--plot", metavar="PNG", default=None,
                   help="write a line plot (one varied key) or heat maps (two)")
    p.add_argument("--html", metavar="PAGE", default=None,
                   help="write the same maps as an interactive page, one panel at a time (plotly, offline)")
    p.add_argument("--json", action="store_true", help="print the contactmodes.sweep/1 document")


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``sweep`` and one sub-command per kind on the ``contactmodes`` subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``sweep`` parser (one sub-parser per kind, each with ``run``).
    """
    from contactmodes.sweeps.registry import available_kinds

    p = sub.add_parser("sweep", help="run a grid of analyses or simulations on Dask (table, picture, JSON)",
                       description="Parameter sweeps on every core (Dask LocalCluster) or on a Dask cluster.")
    kinds = p.add_subparsers(dest="sweep_kind", required=True, metavar="KIND")
    for name, kind in available_kinds().items():
        kp = kinds.add_parser(name, help=kind.help, description=kind.help)
        kind.add_arguments(kp)
        _common(kp, "KEY" if name == "analyze" else "PARAM", kind.in_process_points)
        kp.set_defaults(run=run, sweep_kind_object=kind)
    return p


def _sweep(args: argparse.Namespace) -> str:
    from contactmodes.extras import require

    for module in ("dask", "distributed", "pandas"):  # also in this process: one rule for every grid size
        require(module, "sweep", "sweep")
    if args.plot is not None:
        require("matplotlib", "plot", "--plot")
    if args.html is not None:
        require("plotly", "plot", "--html")
    from contactmodes.progress import Progress
    from contactmodes.sweeps import run_sweep
    from contactmodes.sweeps.engine import check_resources
    from contactmodes.sweeps.grid import parse_vary
    from contactmodes.sweeps.plot import check_plot, plot_sweep
    from contactmodes.sweeps.result import check_table_path

    kind = args.sweep_kind_object
    check_resources(args.scheduler, args.workers)
    grid = parse_vary(args.vary, args.max_points, "--max-points")
    if args.table_output is not None:
        check_table_path(args.table_output)
        check_writable(args.table_output, "--output")
    if args.plot is not None:
        check_plot(len(args.vary), args.plot)
        check_writable(args.plot, "--plot", ".png")
    if args.html is not None:
        from contactmodes.sweeps.html import check_html

        check_html(len(args.vary), args.html)
        check_writable(args.html, "--html", ".html")
    result = run_sweep(kind.name, grid, scheduler=args.scheduler, workers=args.workers, announce=True,
                       progress=Progress(), max_points=args.max_points, **kind.options_from_args(args))
    if args.json:
        text = result.dumps()
    elif args.table_output is not None:  # as analyze --output: the table goes to the file, not to stdout
        text = ""
    else:
        text = _summary(result)
    files: list[tuple[str, Callable[[str], None], str]] = []
    if args.table_output is not None:
        files.append((args.table_output, result.write_table, "--output"))
    if args.plot is not None:
        files.append((args.plot, lambda tmp: plot_sweep(result, tmp), "--plot"))
    if args.html is not None:
        from contactmodes.sweeps.html import write_sweep_html

        files.append((args.html, lambda tmp: write_sweep_html(result, tmp), "--html"))
    write_all_atomic(files)
    if result.n_failed and not args.json and args.table_output is not None:
        print(f"contactmodes: sweep: {result.n_failed} of {len(result.points)} points failed "
              f"(their error is in {args.table_output})", file=sys.stderr)
    return text


def _summary(result) -> str:
    import pandas as pd

    df = result.to_frame()
    shown = df.drop(columns=["error"]) if not result.n_failed else df
    with pd.option_context("display.max_columns", None, "display.width", 200, "display.max_colwidth", 60):
        table = shown.to_string(index=False)
    failed = f"; {result.n_failed} failed" if result.n_failed else ""
    runner = "in this process" if result.scheduler == "serial" else (
        f"on {result.scheduler} ({result.workers} worker{'s' * (result.workers != 1)})")
    return f"{table}\n{len(result.points)} points {runner}{failed}\n"


def run(args: argparse.Namespace) -> str:
    """Run the sweep command (module doc); returns the text for stdout.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``sweep KIND`` options.

    Returns
    -------
    str
        The text for stdout.

    Raises
    ------
    UserError
        User errors propagate (``UserError``, ``ContactModelError`` such as ``SweepError``,
        ``PolytopeError``: exit 2).
    KeyboardInterrupt
        On Ctrl-C (exit 130).
    SystemExit
        ``70`` after printing the internal-error line, for any other exception.
    """
    try:
        return _sweep(args)
    except (UserError, ContactModelError, PolytopeError, KeyboardInterrupt):
        raise
    except Exception as exc:
        print(f"contactmodes: internal error (please report): {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(INTERNAL_ERROR) from None
