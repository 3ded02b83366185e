"""``contactmodes impact FILE [--pseudo-impulse DT] [--json] [--output PATH]``: every plastic-impact
outcome at the file's state (``contactmodes.impact``; thesis Sec. 5.1.2–5.1.4).

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
    """Register ``impact`` on the ``contactmodes`` sub-parsers ``sub``; returns its parser."""
    p = sub.add_parser("impact", help="plastic impact outcomes at a touchdown (one letter F/L/R/S per contact)")
    p.add_argument("file", help="system file (TOML, see docs/system-file.md) whose state has an approaching contact")
    p.add_argument("--pseudo-impulse", metavar="DT", type=str, default=None,
                   help="pseudo-impulse duration in seconds (thesis eq. 39): slow impacts keep existing contacts; "
                        "each outcome's consistency is then a set of torques")
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
    """Run ``impact``: the text report or the JSON document; ``CommandOutput`` with status 1 when
    no outcome is consistent."""
    if args.output is not None:
        check_output_path(args.output, [args.file])
    delta = _duration(args.pseudo_impulse)
    from contactmodes.impact.outcomes import impact

    result = impact(args.file, pseudo_impulse=delta)
    text = (json.dumps(result.to_json(), indent=2, allow_nan=False) if args.json else result.format_text()) + "\n"
    return text if result.consistent_modes else CommandOutput(text, NO_ANSWER)


def run_analyze(args: argparse.Namespace, overlap_limit: int, list_limit: int):
    """``contactmodes analyze FILE --impact``: the impact's outcomes (no pseudo-impulse) and,
    grouped by consistent outcome, the analysis at the post-impact state; ``--mode``,
    ``--no-task``, ``--method``, ``--unambiguous``, ``--overlaps``, ``--json``, ``--output`` as
    for ``analyze``, with its default candidate-pair and listing limits ``overlap_limit`` and
    ``list_limit``. Status 1 when no outcome is consistent."""
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
