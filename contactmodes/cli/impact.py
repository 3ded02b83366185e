"""``contactmodes impact FILE [--pseudo-impulse DT] [--limit ACT=LO:HI ...] [--json] [--output PATH]``:
every plastic-impact outcome at the file's state (``contactmodes.impact``; thesis Sec. 5.1.2–5.1.4).

With a pseudo-impulse the torques the actuators may apply during it are the file's
``[control.limits]`` (their box; a torque–speed line is not used), each replaced by a
``--limit`` given for its actuator (as ``contactmodes control``).

Exit status 0 with at least one consistent outcome (several: impact-ambiguous), 1 when none is
(impact-inconsistent: the documented "no" answer, output still printed or written), 2 on a user
error (bad file or option; nothing written), 70 on the toolkit's own failure.
"""

from __future__ import annotations

import argparse
import json
import math

from contactmodes._command_line import NO_ANSWER, CommandOutput, UserError, check_output_path

__all__ = ["add_parser", "run", "run_analyze"]


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``impact`` on the ``contactmodes`` sub-parsers ``sub``; returns its parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``impact`` parser (``run`` set as its default ``run``).
    """
    p = sub.add_parser("impact", help="plastic impact outcomes at a touchdown (one letter per contact: F/L/R/S in "
                       "the plane; S, F, the friction polygon's sides a.. and vertices A.. in 3-D)")
    p.add_argument("file", help="system file (TOML, see docs/system-file.md) whose state has an approaching contact")
    p.add_argument("--pseudo-impulse", metavar="DT", type=str, default=None,
                   help="pseudo-impulse duration in seconds (thesis eq. 39): slow impacts keep existing contacts; "
                        "each outcome's consistency is then a set of torques")
    p.add_argument("--limit", action="append", default=None, metavar="ACT=LO:HI",
                   help="with --pseudo-impulse: the torque box of actuator ACT during the impact (system units; an "
                        "empty end for none); repeatable, replaces the file's [control.limits] entry of ACT")
    p.add_argument("--json", action="store_true", help="print the contactmodes.impact/1 JSON document")
    p.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def _duration(text: str | None) -> float:
    if text is None:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"--pseudo-impulse: expected a duration in seconds, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0.0):
        raise UserError(f"--pseudo-impulse: must be a finite duration >= 0 s, got {text!r}")
    return value


def run(args: argparse.Namespace):
    """Run ``impact``: the text report or the JSON document.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``file``, ``pseudo_impulse``, ``limit``, ``json``, ``output``).

    Returns
    -------
    str or CommandOutput
        The output; a ``CommandOutput`` with status 1 when no outcome is consistent.

    Raises
    ------
    UserError
        A bad ``--pseudo-impulse`` or ``--limit``, ``--limit`` without a pseudo-impulse, or a refused
        ``--output``.
    SystemFileError
        On a bad file.
    """
    if args.output is not None:
        check_output_path(args.output, [args.file])
    delta = _duration(args.pseudo_impulse)
    from contactmodes.impact.outcomes import impact

    box = None
    if args.limit:
        if not delta:
            raise UserError("--limit: the torque box applies to a pseudo-impulse (give --pseudo-impulse DT)")
        box = _torque_box(args.file, args.limit)
    result = impact(args.file, pseudo_impulse=delta, torque_box=box)
    text = (json.dumps(result.to_json(), indent=2, allow_nan=False) if args.json else result.format_text()) + "\n"
    return text if result.consistent_modes else CommandOutput(text, NO_ANSWER)


def _torque_box(path: str, items: list[str]):
    """``(lo, hi)`` of the file's ``[control.limits]`` with each ``--limit`` ``items`` entry
    replacing its actuator's (a torque–speed line keeps its box only); ``UserError`` naming
    ``--limit ACT`` for a bad entry."""
    import numpy as np

    from contactmodes.cli.control import parse_limit_options
    from contactmodes.control.limits import parse_limit
    from contactmodes.errors import ContactModelError
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(path)
    torques = loaded.system.torques
    limits = dict(loaded.control.limits) if loaded.control is not None else {}
    for name, value in parse_limit_options(items, torques).items():
        try:
            limits[name] = parse_limit(value, f"--limit {name}")
        except ContactModelError as exc:
            raise UserError(str(exc)) from None
    lo = np.array([limits[t].lo if t in limits else -np.inf for t in torques])
    hi = np.array([limits[t].hi if t in limits else np.inf for t in torques])
    return lo, hi


def run_analyze(args: argparse.Namespace, overlap_limit: int, list_limit: int):
    """``contactmodes analyze FILE --impact``: the impact's outcomes and the analyses after them.

    The outcomes (no pseudo-impulse) and, grouped by consistent outcome, the analysis at the
    post-impact state; ``--mode``, ``--no-task``, ``--method``, ``--unambiguous``, ``--overlaps``,
    ``--json``, ``--output`` as for ``analyze``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``analyze`` options.
    overlap_limit : int
        ``analyze``'s default candidate-pair limit (unused with ``--overlaps``).
    list_limit : int
        ``analyze``'s default listing limit (unused with ``--overlaps``).

    Returns
    -------
    str or CommandOutput
        The output; a ``CommandOutput`` with status 1 when no outcome is consistent.

    Raises
    ------
    UserError
        For ``--at``, ``--inconsistency-box`` or ``--table`` (not available with ``--impact``).
    SystemFileError
        On a bad file.
    """
    for option, given in (("--at", args.at is not None), ("--inconsistency-box", args.inconsistency_box is not None),
                          ("--table", args.table)):
        if given:
            raise UserError(f"{option}: not available with --impact (one analysis per impact outcome)")
    from contactmodes.impact.post import analyze_after_impact
    from contactmodes.output.text import format_table
    from contactmodes.progress import Progress

    post = analyze_after_impact(args.file, modes=args.mode, task=not args.no_task, method=args.method,
                                progress=Progress(), overlap_limit=None if args.overlaps else overlap_limit,
                                unambiguous=args.unambiguous)
    if args.json:
        text = json.dumps(post.to_json(), indent=2, allow_nan=False) + "\n"
    else:
        parts = [post.impact.format_text()]
        limit = None if args.overlaps else list_limit
        for mode, result in post.analyses.items():
            table = format_table(result, unambiguous=result.unambiguous, list_limit=limit)
            parts.append(f"\n=== after outcome {mode} ===\n{table}")
        text = "\n".join(parts) + "\n"
    return text if post.impact.consistent_modes else CommandOutput(text, NO_ANSWER)
