"""Command-line interface: ``contactmodes {analyze,plot,...} ...``.

Subcommands: ``analyze`` and ``plot`` live here; packages layered above ``contactmodes``
(``controllers``) add theirs (``flip``, ``brace``) through the entry-point group
``contactmodes.commands`` (declared in ``pyproject.toml``), so that imports keep going one way
(``polytopes`` ← ``contactmodes`` ← ``controllers``). A command plugin is a module with
``add_parser(sub) -> argparse.ArgumentParser`` that calls ``parser.set_defaults(run=func)``;
``func(args) -> str | None`` returns the text for stdout (or ``--output``) and raises
``UserError`` or ``ContactModelError`` on
user error. Files a command writes go through ``write_atomic``. A ``StreamedText`` (``analyze
--json``) is written as it is computed, into a temporary file renamed onto ``--output`` or copied to
stdout only when complete: nothing partial either (``docs/cli.md``).

Exit statuses (``contactmodes._command_line``): 0 success; 1 a command's documented "no" answer
(``brace``: no bracing torque, ``flip``: no flip, ``control``: no guaranteed torque); 2 user
error — one line on stderr naming the field, nothing written (a malformed or invalid system
file, an unknown mode, an approaching
contact, an output path that is the input file, not a regular file, or in a missing directory);
70 the toolkit's own failure (``internal error (please report): …``, never a traceback); 130
interrupted (Ctrl-C), nothing written.

A command whose answer is negative (``brace``: no bracing torque, ``flip``: no flip) returns a
``CommandOutput`` with status ``NO_ANSWER`` (1): its usual output is
printed or written, then the command exits with 1.

Negative values follow their option with a space as well as with ``=``: a token that starts
with ``-`` and a digit (``--box -2:6,-2:8``, ``--inconsistency-box -20:20``, ``--at -1,2``) is
a value, never an option, in every subcommand (no option of the toolkit starts with a digit).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import sys
import tempfile
from typing import Any, Iterable, Iterator, Sequence

from contactmodes._command_line import (INTERNAL_ERROR, INTERRUPTED, NO_ANSWER, USAGE_ERROR, CommandOutput, UserError,
                      check_output_path, check_writable, parse_box, parse_floats, write_all_atomic, write_atomic)
from contactmodes.errors import ContactModelError, InternalError

__all__ = ["main", "build_parser", "write_atomic", "write_all_atomic", "check_writable", "parse_box", "UserError",
           "CommandOutput", "COMMAND_GROUP", "NO_ANSWER"]
# the names above are the interface of the subcommands other packages register (``COMMAND_GROUP``:
# ``controllers``' flip, brace, simulate): they import them from here, not from ``contactmodes._command_line``

COMMAND_GROUP = "contactmodes.commands"

OVERLAP_LP_LIMIT = 20000
"""Default ``analyze``: candidate pairs (boxes meeting) above this are not tested by LP (the front
door's default too, ``contactmodes.analysis.analyze.OVERLAP_LIMIT``: one number, not imported here
to keep the command line's start light; tests/contactmodes/analysis/test_outputs_planar.py checks
they agree)."""

OVERLAP_LIST_LIMIT = 40
"""Default text output lists the overlapping pairs in full up to this many."""


class _ArgumentParser(argparse.ArgumentParser):
    """Reads a token that starts with ``-`` and a digit (``-2:6,-2:8``, ``-1,2``, ``-.5``) as a
    value, never as an option, in this parser and in every subcommand's (``add_subparsers``
    makes them of the same class): the rule of later CPython releases, whose argparse has
    ``_negative_number_matcher = re.compile(r'-\\.?\\d')``, applied on every Python we support."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"-\.?\d")


_BUILTIN = ("analyze", "plot", "check", "control", "impact")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``contactmodes`` command.

    For a built-in sub-command (``analyze``, ``plot``, ``check``, ``control``, ``impact``) the
    sweep kinds and the plug-in commands are not registered: loading them imports the
    controllers (about a second of start-up).

    Parameters
    ----------
    command : str or None, optional
        The sub-command about to run (the first argument), when known; ``None`` registers every
        sub-command, the sweeps' and the plug-ins' (``COMMAND_GROUP``) included.

    Returns
    -------
    argparse.ArgumentParser
        The parser; each sub-command's parser sets its default ``run`` (module doc).
    """
    parser = _ArgumentParser(
        prog="contactmodes",
        description="Feasible torque sets of every contact mode of a planar system with frictional contacts.",
        epilog="Negative values may follow an option with a space or '=': --box -2:6,-2:8, --at=-1,2.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    an = sub.add_parser("analyze", help="torque domain T_c of every kinematically feasible contact mode")
    an.add_argument("file", help="system file (TOML, see docs/system-file.md)")
    an.add_argument("--mode", action="append", default=None, metavar="MODE",
                    help="analyse only this mode (one letter S/L/R/F per contact); repeatable")
    an.add_argument("--no-task", action="store_true", help="ignore task constraints")
    an.add_argument("--json", action="store_true", help="print the contactmodes.analysis/1 JSON document")
    an.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    an.add_argument("--method", default="auto", choices=["auto", "fourier_motzkin", "block_elimination", "vertex", "exact"],
                    help="projection method for T_c (default: auto; exact: the default's decisions, then rational "
                         "arithmetic, needs pplpy; docs/cli.md)")
    an.add_argument("--unambiguous", action="store_true",
                    help="also compute each feasible mode's unambiguous set T*_c and its ambiguity sources")
    an.add_argument("--inconsistency-box", metavar="LO:HI[,LO:HI...]", default=None,
                    help="also compute the torques in this box (one range per torque) with no solution at all")
    an.add_argument("--overlaps", action="store_true",
                    help="test every candidate pair for overlapping T_c and list them all (by default they are "
                         f"tested up to {OVERLAP_LP_LIMIT} candidate pairs and listed up to {OVERLAP_LIST_LIMIT})")
    an.add_argument("--at", metavar="TAU1,TAU2,...", default=None,
                    help="print only the modes whose T_c contains this torque (one value per torque; "
                         "with --json: the document's \"at\" entry); when none does, the nearest mode and "
                         "its Euclidean distance (the torques' units)")
    an.add_argument("--at-tol", metavar="D", default=None,
                    help="with --at: a mode counts when its T_c lies within this Euclidean distance of the "
                         "torque (the torques' units, >= 0; default 0: the torque as given), e.g. the "
                         "rounding of a torque printed to a few digits")
    an.add_argument("--table", action="store_true",
                    help="with --at: print the table (and what --unambiguous, --inconsistency-box, --overlaps "
                         "add to it) before the answer; without --at the table is the default output")
    an.add_argument("--outputs", metavar="EXPR[,EXPR...]", default=None,
                    help="also project each mode's polytope onto these linear outputs (qdd.<coordinate>, "
                         "tau.<actuator>, f.<contact>.<component> and sums, e.g. \"qdd.x, f.tip.n + f.heel.n\"); "
                         "with --unambiguous also the outputs of T*_c (docs/cli.md)")
    an.add_argument("--fix", metavar="tau.NAME=V[,...]", default=None,
                    help="with --outputs: hold these torques at these values (default: every torque free)")
    an.add_argument("--impact", action="store_true",
                    help="at a touchdown: the plastic impact outcomes and the analysis after each (docs/impact.md)")
    an.add_argument("--workers", type=int, default=None, metavar="N",
                    help="spread the per-mode work and the overlap tests over a local Dask cluster of N worker "
                         "processes (the sweep extra); the output is the single-process one")
    an.add_argument("--scheduler", default=None, metavar="ADDR",
                    help="the same on a running Dask cluster (tcp://host:port) whose workers have contactmodes")
    an.set_defaults(run=_analyze)
    from contactmodes.cli import check as cli_check
    from contactmodes.cli import plot as cli_plot

    from contactmodes.cli import plot_html as cli_plot_html

    cli_plot.add_parser(sub).set_defaults(run=cli_plot_html.run)  # --output PNG and/or --html page
    cli_check.add_parser(sub)
    from contactmodes.cli import impact as cli_impact

    cli_impact.add_parser(sub)  # contactmodes impact FILE [--pseudo-impulse DT]
    from contactmodes.cli import control as cli_control

    cli_control.add_parser(sub)  # contactmodes control FILE --maximize EXPR ...
    if command in _BUILTIN:
        return parser
    from contactmodes.sweeps import cli as sweep_cli

    sweep_cli.add_parser(sub)  # contactmodes sweep KIND ...
    for plugin in _command_plugins():
        plugin.add_parser(sub)
    return parser


def _command_plugins() -> list:
    """The modules registered under the ``contactmodes.commands`` entry-point group."""
    from importlib.metadata import entry_points

    return [ep.load() for ep in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name)]


class StreamedText:
    """A command's output produced piece by piece (``analyze --json``: each chunk of modes'
    entries as their ``T_c`` are computed), so that it never exists whole in memory. ``_write``
    writes the pieces, as they come, to a temporary file — next to ``--output``, else in the
    system's temporary directory (``tempfile``, ``TMPDIR``) — and only a complete output is renamed
    onto ``--output`` or copied to stdout: an error or Ctrl-C while it is produced leaves nothing
    written, as for any other output.

    Parameters
    ----------
    pieces : Iterable[str]
        The output's text, piece by piece, in order (consumed once, when written).
    """

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces


def _pieces(output: StreamedText) -> Iterator[str]:
    """The output's pieces; an ``OSError`` raised while computing them is the toolkit's failure,
    not the output file's (``write_atomic`` reports an ``OSError`` as one that cannot be written)."""
    pieces = iter(output.pieces)
    while True:
        try:
            piece = next(pieces)
        except StopIteration:
            return
        except OSError as exc:
            raise InternalError(f"{type(exc).__name__}: {exc}") from exc
        yield piece


def _to_stdout(write) -> None:
    """``write()`` then flush stdout; an ``OSError`` of stdout (a full device, a closed pipe)
    becomes ``UserError`` naming ``stdout`` (one line, exit 2, as ``--output`` when its file
    cannot be written), and stdout is pointed at the null device so that the interpreter's own
    flush at exit does not fail again (the recipe of Python's "Note on SIGPIPE")."""
    try:
        write()
        sys.stdout.flush()
    except OSError as exc:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, AttributeError, ValueError):  # no real file behind sys.stdout (a test's capture)
            pass
        raise UserError(f"stdout: cannot write the output: {exc.strerror or exc}") from None


def _write(text: str | StreamedText, path: str | None, inputs: Sequence[str] = ()) -> None:
    """Write ``text`` to stdout, or atomically to ``path`` (nothing partial on failure); a
    ``StreamedText`` through a temporary file (nothing partial either). Stdout that cannot be
    written is a ``UserError`` naming it (``_to_stdout``)."""
    if path is None:
        if isinstance(text, StreamedText):
            with tempfile.TemporaryFile("w+", encoding="utf-8", prefix="contactmodes-") as spool:
                for piece in _pieces(text):
                    spool.write(piece)
                spool.seek(0)
                _to_stdout(lambda: shutil.copyfileobj(spool, sys.stdout))
            return
        _to_stdout(lambda: sys.stdout.write(text))
        return

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            if isinstance(text, StreamedText):
                for piece in _pieces(text):
                    fh.write(piece)
            else:
                fh.write(text)

    write_atomic(path, write, inputs=inputs)


def _analyze(args: argparse.Namespace) -> str | StreamedText:
    """``contactmodes analyze``, with one BLAS thread (``contactmodes._blas``: the analysis
    parallelizes over modes; BLAS threads spinning on a busy machine cost more than they save)."""
    from contactmodes._blas import single_blas_thread

    with single_blas_thread():
        out = _analyze_run(args)
    if isinstance(out, StreamedText):  # computed while it is written: on one BLAS thread too
        out.pieces = _on_one_blas_thread(out.pieces)
    return out


def _on_one_blas_thread(pieces: Iterable[str]) -> Iterator[str]:
    """``pieces``, each computed with one BLAS thread (``contactmodes._blas``)."""
    from contactmodes._blas import single_blas_thread

    with single_blas_thread():
        yield from pieces


def _analyze_run(args: argparse.Namespace) -> str | StreamedText:
    """``contactmodes analyze``: the text table, the ``--at`` answer or, with ``--json``, the
    document streamed (``AnalysisResult.iter_json``, each mode's sets released once written;
    with ``--workers``/``--scheduler`` the sets come from the cluster first; with ``--impact``:
    built whole, as ``json.dumps``)."""
    if args.at_tol is not None and args.at is None:
        raise UserError("--at-tol: needs --at (the torque it is a distance from)")
    if args.impact and (args.outputs is not None or args.fix is not None):
        raise UserError(f"{'--outputs' if args.outputs is not None else '--fix'}: not with --impact "
                        f"(analyse the state after an outcome with --outputs instead)")
    if args.impact:  # contactmodes analyze FILE --impact: contactmodes.cli.impact.run_analyze
        from contactmodes.cli.impact import run_analyze

        return run_analyze(args, OVERLAP_LP_LIMIT, OVERLAP_LIST_LIMIT)
    from contactmodes.analysis.analyze import analyze
    from contactmodes.system_file.loader import load_system_file
    from contactmodes.progress import Progress
    from contactmodes.output.text import format_at, format_table

    if args.method == "exact":
        from polytopes import ppl_io

        if not ppl_io.available():
            raise UserError(f"--method: {ppl_io.INSTALL_HINT}")
    loaded = load_system_file(args.file, mu_intervals=True)  # mu = [lo, hi]: docs/friction-intervals.md
    system = loaded.system
    box = None
    if args.inconsistency_box is not None:
        box = parse_box(args.inconsistency_box, system.n_tau, "--inconsistency-box")
    at = None if args.at is None else parse_floats(args.at, system.n_tau, "--at")
    at_tol = _at_tol(args.at_tol)
    answer_only = at is not None and not args.table and not args.json
    if args.fix is not None and args.outputs is None:
        raise UserError("--fix: needs --outputs (the fixed torques apply to the output sets)")
    if args.outputs is not None:  # checked before the analysis runs
        from contactmodes.analysis.outputs import output_spec

        output_spec(system, args.outputs, args.fix, "--outputs", "--fix")
    if answer_only:  # options that only add to the table are not silently dropped
        for option, given in (("--unambiguous", args.unambiguous), ("--overlaps", args.overlaps),
                              ("--inconsistency-box", box is not None), ("--outputs", args.outputs is not None)):
            if given:
                raise UserError(f"{option}: --at prints only the modes that contain the torque; "
                                f"add --table to print the table with {option}")
    kwargs: dict[str, Any] = dict(modes=args.mode, task=not args.no_task, method=args.method, progress=Progress(),
                                  compute_overlaps=not answer_only,
                                  overlap_limit=None if args.overlaps else OVERLAP_LP_LIMIT,
                                  unambiguous=args.unambiguous, inconsistency_box=box, at=at, friction=loaded.friction,
                                  at_tol=at_tol, outputs=args.outputs, fix=args.fix)
    if answer_only and system.n_tau and args.workers is None and args.scheduler is None:
        # the answer alone: located among the modes without analysing each (AnalysisSession.locate)
        return format_at(system.torques, _at_answer(system, args, at, at_tol)) + "\n"
    if args.workers is not None or args.scheduler is not None:  # on a Dask cluster: contactmodes.cli._cluster
        from contactmodes.cli._cluster import analysis_client, check_cluster_args
        from contactmodes.analysis.distributed import ClusterDecide, ClusterOverlaps
        from contactmodes.analysis.session import AnalysisSession
        from contactmodes.modes.enumeration import enumerate_modes

        check_cluster_args(args.scheduler, args.workers)
        with analysis_client(args.scheduler, args.workers) as client:
            enumeration = enumerate_modes(system, progress=kwargs["progress"], decide=ClusterDecide(client))
            session = AnalysisSession(system, method=args.method, progress=kwargs["progress"], enumeration=enumeration)
            session.executor = ClusterOverlaps(client)
            session.executor.prime(session, args.mode, not args.no_task, project=args.json)
            result = analyze(system, session=session, **kwargs)
        # the cluster primed every T_c the document needs: written below as in one process
    else:
        result = analyze(system, **kwargs)
    if answer_only:
        assert result.at is not None
        return format_at(system.torques, result.at) + "\n"
    if args.json:  # written as it is computed: memory does not grow with the number of modes
        return StreamedText(itertools.chain(result.iter_json(release=True), ["\n"]))
    from contactmodes.output.friction_text import format_friction
    from contactmodes.output.outputs_text import format_outputs

    return format_table(result, unambiguous=result.unambiguous, inconsistent=result.inconsistent, at=result.at,
                        list_limit=None if args.overlaps else OVERLAP_LIST_LIMIT) + format_friction(result) \
        + format_outputs(result) + "\n"


def _at_answer(system, args: argparse.Namespace, at, at_tol: float):
    """``--at`` without ``--table``: the modes (``--mode``, default the kinematically feasible ones)
    whose ``T_c`` contains the torque, located by ``AnalysisSession.locate`` (a few modes built,
    not all: ``contactmodes.analysis.point_location``), and the nearest when none does: the
    answer ``analyze(..., at=...)`` gives, without the rest of the analysis."""
    import numpy as np

    from contactmodes.analysis.analyze import AtAnswer
    from contactmodes.analysis.session import AnalysisSession
    from contactmodes.progress import Progress

    session = AnalysisSession(system, method=args.method, progress=Progress())
    task = not args.no_task
    found = session.locate(at, task, selection=args.mode, tol=at_tol)
    nearest = None if found else session.nearest(at, task, selection=args.mode)
    return AtAnswer(np.asarray(at, dtype=float), found, float(at_tol), nearest)


def _at_tol(text: str | None) -> float:
    """``--at-tol``: a finite distance ``>= 0`` (the torques' units); 0 when not given
    (``UserError`` naming the option otherwise)."""
    if text is None:
        return 0.0
    value = parse_floats(text, 1, "--at-tol")[0]
    if value < 0:
        raise UserError(f"--at-tol: expected a distance >= 0 (the torques' units), got {text!r}")
    return float(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``contactmodes`` console script; returns the exit status (module doc).

    A command's ``run`` returns the text for stdout/``--output``, a ``StreamedText`` (written as
    it is computed, ``_write``), or a ``CommandOutput`` to exit with a status other than 0 after
    writing it (``NO_ANSWER`` = 1: the command's documented "no" answer).

    Ctrl-C at any point after the interpreter has started this function — while the sub-commands'
    modules and plug-ins are imported, while the arguments are parsed, while a command runs — is
    one line (``contactmodes: interrupted``), exit 130, nothing written: ``import
    contactmodes.cli`` itself loads neither NumPy nor ``polytopes`` (a few milliseconds), so only
    the interpreter's own start-up is outside this handling.

    Parameters
    ----------
    argv : Sequence[str] or None, optional
        The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 success, 1 a command's "no" answer, 2 user error, 70 the toolkit's
        own failure, 130 interrupted (module doc).
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("contactmodes: interrupted", file=sys.stderr)
        return INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    """``main`` without its Ctrl-C handling of the start-up."""
    from polytopes import PolytopeError

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    inputs = [args.file] if isinstance(getattr(args, "file", None), str) else []
    status = 0
    try:
        output = getattr(args, "output", None)
        if output is not None and getattr(args, "run", None) is _analyze:
            check_output_path(output, inputs)
        result = args.run(args)
        if isinstance(result, CommandOutput):
            result, status = result.text, result.status
        if result is not None:
            _write(result, getattr(args, "output", None), inputs)
    except (ContactModelError, PolytopeError) as exc:  # the user's mistake (UserError is one)
        print(f"contactmodes: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("contactmodes: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the CLI contract: never a traceback
        print(f"contactmodes: internal error (please report): {type(exc).__name__}: {exc}", file=sys.stderr)
        return INTERNAL_ERROR
    return int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
