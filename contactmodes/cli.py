"""Command-line interface: ``contactmodes {analyze,plot,...} ...``.

Subcommands: ``analyze`` and ``plot`` live here; packages layered above :mod:`contactmodes`
(``controllers``) add theirs (``flip``, ``brace``) through the entry-point group
``contactmodes.commands`` (declared in ``pyproject.toml``), so that imports keep going one way
(``polytopes`` ← ``contactmodes`` ← ``controllers``). A command plugin is a module with
``add_parser(sub) -> argparse.ArgumentParser`` that calls ``parser.set_defaults(run=func)``;
``func(args) -> str | None`` returns the text for stdout (or ``--output``) and raises
:class:`UserError`, :class:`~contactmodes.errors.ContactModelError` or
:class:`~polytopes.PolytopeError` on user error. Files a command writes go through
:func:`write_atomic`.

User error (a malformed or invalid system file, an unknown mode, an approaching contact, an
unwritable output path) prints one line on stderr and exits with status 2; nothing is written.
Output files are written atomically (a temporary file renamed into place).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import tempfile
import time
from typing import Sequence

from polytopes import PolytopeError

from .errors import ContactModelError

__all__ = ["main", "build_parser", "write_atomic", "UserError", "COMMAND_GROUP"]

COMMAND_GROUP = "contactmodes.commands"

USAGE_ERROR = 2


class UserError(Exception):
    """An error the user can fix; printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``contactmodes`` command."""
    parser = argparse.ArgumentParser(
        prog="contactmodes",
        description="Feasible torque sets of every contact mode of a planar system with frictional contacts.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    an = sub.add_parser("analyze", help="torque domain T_c of every kinematically feasible contact mode")
    an.add_argument("file", help="system file (TOML, see docs/system-file.md)")
    an.add_argument("--mode", action="append", default=None, metavar="MODE",
                    help="analyse only this mode (one letter S/L/R/F per contact); repeatable")
    an.add_argument("--no-task", action="store_true", help="ignore task constraints")
    an.add_argument("--json", action="store_true", help="print the contactmodes.analysis/1 JSON document")
    an.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    an.add_argument("--method", default="auto", choices=["auto", "fourier_motzkin", "block_elimination", "vertex"],
                    help="projection method for T_c (default: auto)")
    an.add_argument("--unambiguous", action="store_true",
                    help="also compute each feasible mode's unambiguous set T*_c and its ambiguity sources")
    an.add_argument("--inconsistency-box", metavar="LO:HI[,LO:HI...]", default=None,
                    help="also compute the torques in this box (one range per torque) with no solution at all")
    an.set_defaults(run=_analyze)
    from . import cli_plot

    cli_plot.add_parser(sub).set_defaults(run=cli_plot.run)
    importlib.import_module(".sweeps.cli", __package__).add_parser(sub)  # contactmodes sweep KIND ...
    for plugin in _command_plugins():
        plugin.add_parser(sub)
    return parser


def _command_plugins() -> list:
    """The modules registered under the ``contactmodes.commands`` entry-point group."""
    from importlib.metadata import entry_points

    return [ep.load() for ep in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name)]


def write_atomic(path: str, write, option: str = "--output", mode: str = "w") -> None:
    """Create ``path`` through ``write(tmp_path)`` then rename it into place: nothing partial.

    Raises :class:`UserError` naming ``option`` when the directory does not exist or the file
    cannot be written; any exception from ``write`` leaves no file behind.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UserError(f"{option}: directory does not exist: {directory}")
    suffix = os.path.splitext(path)[1] or ".tmp"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".contactmodes-", suffix=suffix)
        os.close(fd)
    except OSError as exc:
        raise UserError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _write(text: str, path: str | None) -> None:
    """Write ``text`` to stdout, or atomically to ``path`` (nothing partial on failure)."""
    if path is None:
        sys.stdout.write(text)
        return

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    write_atomic(path, write)


class Progress:
    """A periodic progress line on stderr for long computations.

    Silent for the first ``after`` seconds (short runs print nothing), then one line at most every
    ``every`` seconds: ``contactmodes: <what> <done>/<total> (<label>)``.
    """

    def __init__(self, what: str, after: float = 2.0, every: float = 2.0) -> None:
        self.what, self.after, self.every = what, after, every
        self.start = time.monotonic()
        self.last = self.start

    def __call__(self, done: int, total: int, label: str = "") -> None:
        now = time.monotonic()
        if now - self.start >= self.after and now - self.last >= self.every:
            self.last = now
            extra = f" ({label})" if label else ""
            print(f"contactmodes: {self.what} {done}/{total}{extra}", file=sys.stderr, flush=True)


def parse_box(text: str, n: int, option: str) -> tuple:
    """Parse ``LO:HI[,LO:HI...]`` with exactly ``n`` ranges into ``(lo, hi)``, each (n,) floats;
    :class:`UserError` naming ``option`` on a malformed, non-finite or reversed range."""
    import numpy as np

    parts = text.split(",")
    if len(parts) != n:
        raise UserError(f"{option}: expected {n} LO:HI ranges (one per torque), got {len(parts)}")
    lo, hi = np.zeros(n), np.zeros(n)
    for i, part in enumerate(parts):
        try:
            a, b = (float(v) for v in part.split(":"))
        except ValueError:
            raise UserError(f"{option}: range {i} must be LO:HI, got {part!r}") from None
        if not (math.isfinite(a) and math.isfinite(b) and a <= b):
            raise UserError(f"{option}: range {i} needs finite LO <= HI, got {part!r}")
        lo[i], hi[i] = a, b
    return lo, hi


def _analyze(args: argparse.Namespace) -> str:
    from .ambiguity import inconsistent, unambiguous, untasked_domains
    from .analysis import analyze
    from .io import load_system
    from .report import format_table

    loaded = load_system(args.file)
    system = loaded.system
    box = None
    if args.inconsistency_box is not None:
        box = parse_box(args.inconsistency_box, system.n_tau, "--inconsistency-box")
    result = analyze(system, modes=args.mode, task=not args.no_task, method=args.method,
                     progress=Progress("analysed modes"))
    others = None
    if args.unambiguous or box is not None:
        others = untasked_domains(system, method=args.method)
    unamb = None
    if args.unambiguous:
        unamb = {}
        for m in result.feasible_modes():
            unamb[m] = unambiguous(system, m, task=not args.no_task, others=others,
                                   domain=result.modes[m].domain, method=args.method)
    gaps = None if box is None else inconsistent(system, box[0], box[1], domains=others)
    if args.json:
        doc = result.to_json()
        if unamb is not None:
            for entry in doc["modes"]:
                u = unamb.get(entry["mode"])
                entry["unambiguous"] = [] if u is None else [p.to_json() for p in u.unambiguous]
                entry["ambiguity_sources"] = [] if u is None else [src.to_json() for src in u.sources]
        if gaps is not None:
            doc["inconsistency_box"] = {"lo": box[0].tolist(), "hi": box[1].tolist()}
            doc["inconsistent"] = [p.to_json() for p in gaps]
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    return format_table(result, unambiguous=unamb, inconsistent=gaps) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``contactmodes`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        text = args.run(args)
        if text is not None:
            _write(text, getattr(args, "output", None))
    except (ContactModelError, PolytopeError, UserError) as exc:
        print(f"contactmodes: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("contactmodes: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
