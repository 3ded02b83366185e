"""``contactmodes flip --controller {max-thrust,blind} --mu-toe MU [options]``: one RHex flip.

Runs the compliant simulator (``simulate``, flipping paper Sec. IV-C.1) from the
flat start (``initial_state``) with the chosen controller through
``simulate_flip`` (the code behind ``controllers.rhex.run_flip``) and prints a
one-line summary or, with ``--json``, the ``contactmodes.flip/1`` document (fields in
``controllers.rhex.api``: success, flip time, Table V's RMSE by the paper's definition and over
our documented window, the blind controller's switch time beside the simulated rear-toe stiction,
controller statuses, the mode timeline).

Parameters: ``--mu-toe`` (required), ``--mu-body``, ``--tau-limit`` (the calibrated effective
torque limit, N·m per planar leg), ``--detector-threshold`` (blind), and ``--param NAME=VALUE``
(repeatable) for any other ``RHexParams`` field (``hips`` and ``v0`` take a comma
list). Defaults: ``RHexParams()`` (``docs/rhex-reproduction.md`` says where each comes from).

Exit status: **0** the body flipped; **1** no flip (``fell_back`` or ``timeout``) — the usual
output (summary or JSON, and the requested files) is still written; **2** user error (invalid
option value, unknown parameter, wrong extension, missing or unwritable directory, max-thrust
controller not installed: one line on stderr, nothing written); **130** Ctrl-C (nothing written).

Progress: when stderr is a terminal, one line every 0.1 s of simulated time
(``contactmodes: flip t=0.30 s pitch=45°``); nothing when stderr is redirected (scripts, tests).
``--plot`` / ``--animate`` / ``--output`` are written atomically
(``contactmodes.cli.write_atomic``) only after a complete run; their directories are checked
*before* the run, so a bad path fails at once.

Exit status 1 goes through ``CommandOutput`` (the CLI writes the usual
output, then returns 1). Registered through the ``contactmodes.commands`` entry-point group
(``pyproject.toml``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import fields

from contactmodes.extras import require
from contactmodes.cli import CommandOutput, UserError, check_writable, write_all_atomic

from .api import CONTROLLERS, SCHEMA, flip_document, simulate_flip

__all__ = ["SCHEMA", "CONTROLLERS", "NO_FLIP", "add_parser", "run", "params_from_args"]

PROGRESS_EVERY = 0.1  # s of simulated time between progress lines
NO_FLIP = 1
"""Exit status when the run ends without a flip."""


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``flip`` on the ``contactmodes`` subparsers; returns the sub-parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``flip`` parser (``run`` set as its default ``run``).
    """
    p = sub.add_parser(
        "flip", help="simulate RHex self-righting (flipping paper Sec. IV) under a controller",
        description="Simulate RHex flipping on flat ground with the blind or the max-thrust controller. "
                    "Exit status: 0 flipped, 1 no flip (output still written), 2 user error, 130 interrupted.",
        epilog="Parameters not given keep the RHexParams defaults (docs/rhex-reproduction.md).")
    p.add_argument("--controller", choices=CONTROLLERS, required=True)
    p.add_argument("--mu-toe", type=float, required=True, metavar="MU", help="toe-ground friction coefficient (>= 0)")
    p.add_argument("--mu-body", type=float, default=None, metavar="MU",
                   help="body-ground friction coefficient (>= 0; default 0.3, our choice)")
    p.add_argument("--tau-limit", type=float, default=None, metavar="NM",
                   help="effective stall torque per planar leg (N·m, <= the 16.2 N·m hardware bound; "
                        "default: the calibrated value)")
    p.add_argument("--detector-threshold", type=float, default=None, metavar="RAD_S2",
                   help="blind controller's rear-toe stiction threshold (rad/s²; default: tuned at mu_toe 0.39)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set any RHexParams field, e.g. --param min_body_normal_force=2 or "
                        "--param v0=0.001,0.08,0.001,0.001 (repeatable)")
    p.add_argument("--duration", type=float, default=2.0, metavar="S",
                   help="simulated seconds before giving up (default 2; the run stops at a flip)")
    p.add_argument("--json", action="store_true", help="print the contactmodes.flip/1 document")
    p.add_argument("--plot", metavar="PNG", help="write the Fig. 10/13/14-style plot (pitch acceleration, modes)")
    p.add_argument("--animate", metavar="GIF", help="write an animation of the run")
    p.add_argument("--output", metavar="PATH", help="write the text output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def _check_number(value: float | None, option: str, positive: bool = False) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise UserError(f"{option}: must be a finite number {'> 0' if positive else '>= 0'}, got {value}")


def _parse_param(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` → ``(name, value)`` typed like the ``RHexParams`` field."""
    from .params import RHexParams

    name, sep, raw = text.partition("=")
    name = name.strip()
    kinds = {f.name: getattr(RHexParams(), f.name) for f in fields(RHexParams)}
    if not sep or name not in kinds:
        known = ", ".join(sorted(kinds))
        raise UserError(f"--param {name or text}: expected NAME=VALUE with NAME one of {known}")
    default = kinds[name]
    value: object
    try:
        if isinstance(default, tuple):
            value = tuple(float(v) for v in raw.split(","))
        elif isinstance(default, int) and not isinstance(default, bool):
            value = int(raw)
        else:
            value = float(raw)
    except ValueError:
        raise UserError(f"--param {name}: not a number: {raw!r}") from None
    return name, value


def params_from_args(args: argparse.Namespace):
    """The ``RHexParams`` of the command line.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``flip`` options (``mu_toe``, ``mu_body``, ``tau_limit`` (N·m),
        ``detector_threshold`` (rad/s²), ``param`` items ``NAME=VALUE``).

    Returns
    -------
    RHexParams
        The defaults with the options applied.

    Raises
    ------
    UserError
        Naming the option, for a non-finite or out-of-range value or an unknown ``--param`` name.
    """
    from .params import RHexParams

    _check_number(args.mu_toe, "--mu-toe")
    _check_number(args.mu_body, "--mu-body")
    _check_number(getattr(args, "tau_limit", None), "--tau-limit", positive=True)
    threshold = getattr(args, "detector_threshold", None)
    if threshold is not None and not math.isfinite(threshold):
        raise UserError(f"--detector-threshold: must be finite, got {threshold}")
    changes: dict[str, tuple[str, object]] = {}
    for text in getattr(args, "param", None) or []:
        name, value = _parse_param(text)
        changes[name] = (f"--param {name}", value)
    for option, name in (("--mu-toe", "mu_toe"), ("--mu-body", "mu_body"), ("--tau-limit", "tau_limit"),
                         ("--detector-threshold", "detector_threshold")):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = (option, value)
    params = RHexParams()
    try:
        return params.with_(**{name: value for name, (_, value) in changes.items()})
    except (ValueError, TypeError) as exc:
        error = str(exc)
    field, sep, rest = error.partition(": ")
    named = field.removeprefix("RHexParams.")
    if sep and named in changes:  # the field named is one the user set: its option, the values given
        raise UserError(f"{changes[named][0]}: {rest}")
    for name, (option, value) in changes.items():  # else name the option at fault when one alone is
        try:
            params.with_(**{name: value})
        except (ValueError, TypeError) as exc:
            raise UserError(f"{option}: {str(exc).split(': ', 1)[-1]}") from None
    raise UserError(error)


def summary(doc: dict) -> str:
    """The one-line text summary of a flip document.

    Parameters
    ----------
    doc : dict
        A ``contactmodes.flip/1`` document.

    Returns
    -------
    str
        The line, newline-terminated.
    """
    flip = f"flipped at {doc['flip_time_s']:.3f} s" if doc["success"] else f"no flip ({doc['outcome']})"
    fmt = lambda v: "n/a" if v is None else f"{v:.2f} rad/s²"  # noqa: E731
    med = "n/a" if doc["median_step_ms"] is None else f"{doc['median_step_ms']:.2f} ms"
    switch = ""
    if doc["controller"] == "blind":
        sw, st = doc["switch_time_s"], doc["stiction_time_s"]
        switch = ("; no model switch" if sw is None else f"; model switch at {sw:.3f} s") + \
            (" (no simulated rear-toe stiction)" if st is None else f" (simulated rear-toe stiction at {st:.3f} s)")
    return (f"{doc['controller']} at mu_toe={doc['mu_toe']:g}, mu_body={doc['mu_body']:g}, "
            f"tau_limit={doc['tau_limit_nm']:g} N·m: {flip}{switch}; RMSE predicted vs simulated pitch acceleration "
            f"{fmt(doc['rmse_pitch_accel'])} (paper's definition, thrust phase), "
            f"{fmt(doc['rmse_pitch_accel_window'])} (documented window); "
            f"{doc['steps']} steps, median controller step {med}\n")


def run(args: argparse.Namespace) -> str | CommandOutput:
    """Validate, simulate, write the requested files, return the summary or JSON text.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``flip`` options.

    Returns
    -------
    str or CommandOutput
        The text; a ``CommandOutput`` with status ``NO_FLIP`` when the run ended without a flip
        (the CLI writes it, then exits 1).

    Raises
    ------
    UserError
        On invalid options or an unavailable controller (nothing written).
    KeyboardInterrupt
        When the run was interrupted (nothing written; the CLI exits 130).
    MissingExtraError
        For ``--plot`` or ``--animate`` without matplotlib.
    """
    from .plots import animate, plot_run

    params = params_from_args(args)
    _check_number(args.duration, "--duration", positive=True)
    check_writable(args.plot, "--plot", ".png")
    check_writable(args.animate, "--animate", ".gif")
    check_writable(getattr(args, "output", None), "--output")
    for option, path in (("--plot", args.plot), ("--animate", args.animate)):
        if path:
            require("matplotlib", "plot", option)

    def progress(t: float, pitch: float) -> None:
        print(f"contactmodes: flip t={t:.2f} s pitch={math.degrees(pitch):.0f}°", file=sys.stderr, flush=True)

    try:
        flip = simulate_flip(params, args.controller, args.duration,
                             progress=progress if sys.stderr.isatty() else None, progress_every=PROGRESS_EVERY)
    except ImportError as exc:
        raise UserError(f"--controller: {args.controller} is not available ({exc})") from None
    result = flip.result
    if result.outcome == "interrupted":
        raise KeyboardInterrupt
    title = (f"{args.controller} controller, μ_toe = {params.mu_toe:g}, μ_body = {params.mu_body:g}, "
             f"τ_limit = {params.tau_limit:g} N·m")
    files = []
    if args.plot:
        switch = getattr(flip.agent, "switch_time", None)
        files.append((args.plot, lambda tmp: plot_run(result, tmp, title, switch_time=switch), "--plot"))
    if args.animate:
        files.append((args.animate, lambda tmp: animate(result, tmp, title=f"{args.controller}, μ_t = {params.mu_toe:g}"), "--animate"))
    write_all_atomic(files)
    doc = flip_document(flip)
    text = json.dumps(doc, indent=2, allow_nan=False) + "\n" if args.json else summary(doc)
    return text if result.success else CommandOutput(text, NO_FLIP)
