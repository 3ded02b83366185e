"""``contactmodes control FILE``: the one-shot optimal controller (``contactmodes.control``,
``docs/control.md``).

Exit status 0 when a torque guaranteed to produce its mode is found (``status`` ``optimal``, or
``task_dropped`` with an unambiguous torque), 1 otherwise (its report or ``--json`` document is
still printed: ``unbounded``, ``ambiguous``, ``ambiguous_objective``, ``infeasible``), 2 on a user
error (one line naming the option or the file's key), 70 on an internal error.
"""

from __future__ import annotations

import argparse
import json

from contactmodes._command_line import NO_ANSWER, CommandOutput, UserError, check_output_path

__all__ = ["add_parser", "run", "parse_limit_options"]


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``control`` on the ``contactmodes`` sub-parsers ``sub``; returns its parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``control`` parser (``run`` set as its default ``run``).
    """
    p = sub.add_parser("control", help="the torque within limits that optimizes a linear objective while "
                                       "guaranteeing its contact mode")
    p.add_argument("file", help="system file (TOML, see docs/system-file.md); its [control] table gives defaults")
    p.add_argument("--maximize", metavar="EXPR", help="objective to maximize, e.g. 'qdd.theta' or "
                                                      "'tau.hip1 - tau.hip2' (docs/control.md)")
    p.add_argument("--minimize", metavar="EXPR", help="objective to minimize")
    p.add_argument("--limit", action="append", default=None, metavar="ACT=LO:HI",
                   help="torque limit of actuator ACT (system units; an empty end for none), or "
                        "ACT='{lo = .., hi = .., tau_max = .., omega_0 = ..}' (a TOML inline table, as in the "
                        "file's [control.limits]: a torque-speed line); repeatable, replaces the file's limit of ACT")
    p.add_argument("--modes", metavar="SPEC", default=None,
                   help="acceptable modes: 'all', a list 'FFF,FFS', or per contact 'tip=F|S,base=F'")
    p.add_argument("--margin", metavar="TORQUE", default=None,
                   help="how far (system torque units, Euclidean) the torque may lie from the supremum point, "
                        "so that it lies inside its set with clearance; 0 returns the supremum point "
                        "(default: the file's [control] margin, else 1e-3 times the system's torque scale "
                        "m L^2/T^2; docs/control.md)")
    p.add_argument("--no-task", action="store_true", help="ignore the file's task constraints")
    p.add_argument("--json", action="store_true", help="print the contactmodes.control/1 JSON document")
    p.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def parse_limit_options(items: list[str], actuators) -> dict[str, object]:
    """The ``--limit`` options by actuator, each value still to be checked by
    ``contactmodes.control.limits.parse_limit`` (keys and numbers).

    Parameters
    ----------
    items : list[str]
        The ``--limit`` values as given, ``["ACT=LO:HI", "ACT={tau_max = 8, omega_0 = 20}", ...]``.
    actuators : Sequence[str]
        The system's actuator names (``ContactSystem.torques``).

    Returns
    -------
    dict[str, object]
        Actuator name → ``"LO:HI"`` (a str) or the TOML inline table as a dict.

    Raises
    ------
    UserError
        One line naming ``--limit``: no ``=`` or no name, an unknown actuator, an actuator given
        twice, or an inline table that does not parse.
    """
    out: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UserError(f"--limit: expected ACT=LO:HI, got {item!r}")
        if name not in actuators:
            raise UserError(f"--limit: unknown actuator {name!r} (actuators: {', '.join(actuators)})")
        if name in out:
            raise UserError(f"--limit: actuator {name!r} given twice")
        out[name] = _inline_table(value, name) if value.lstrip().startswith("{") else value
    return out


def _inline_table(text: str, name: str) -> dict:
    """The TOML inline table ``text`` (``{tau_max = 8, omega_0 = 20}``) as a dict; ``UserError``
    naming ``--limit ACT`` when it does not parse."""
    import tomllib

    try:
        return dict(tomllib.loads(f"limit = {text}")["limit"])
    except (tomllib.TOMLDecodeError, TypeError, ValueError) as exc:
        raise UserError(f"--limit {name}: expected LO:HI or a TOML inline table such as "
                        f"{{lo = -5, hi = 5, tau_max = 8, omega_0 = 20}}, got {text!r} ({exc})") from None


def run(args: argparse.Namespace) -> str | CommandOutput:
    """Run ``control``: the text report or the JSON document (exit 1 without a guaranteed torque).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``file``, ``maximize``, ``minimize``, ``limit``, ``modes``, ``margin``,
        ``no_task``, ``json``, ``output``).

    Returns
    -------
    str or CommandOutput
        The output; a ``CommandOutput`` with status ``NO_ANSWER`` (1) when no torque is
        guaranteed to produce its mode (``ControlResult.success`` false).

    Raises
    ------
    UserError
        A refused ``--output``, both ``--maximize`` and ``--minimize``, a bad ``--limit``, or no
        objective at all (neither option nor the file's ``[control]`` table).
    ContactModelError
        A bad ``--margin``, objective expression, limit value or ``--modes`` (one line naming the
        option); ``SystemFileError`` on a bad file.
    """
    from contactmodes.control.limits import parse_limit
    from contactmodes.control.spec import check_margin
    from contactmodes.control.objective import objective_for
    from contactmodes.control.optimal import control
    from contactmodes.control.report import format_control
    from contactmodes.control.selection import parse_modes_text
    from contactmodes.system_file.loader import load_system_file

    if args.output is not None:
        check_output_path(args.output, [args.file])
    if args.maximize is not None and args.minimize is not None:
        raise UserError("--minimize: give --maximize or --minimize, not both")
    margin = None if args.margin is None else check_margin(args.margin, "--margin")
    loaded = load_system_file(args.file)
    system = loaded.system
    objective = None
    for sense in ("maximize", "minimize"):
        text = getattr(args, sense)
        if text is not None:
            objective = objective_for(system, text, sense, where=f"--{sense}")
    limits = {name: parse_limit(value, f"--limit {name}")
              for name, value in parse_limit_options(args.limit or [], system.torques).items()}
    modes = None if args.modes is None else parse_modes_text(args.modes, system.contacts, "--modes",
                                                                 system.contact_model.letters)
    if objective is None and (loaded.control is None or loaded.control.objective is None):
        raise UserError("--maximize: no objective (give --maximize or --minimize, or a [control] table with "
                        "one in the file)")
    result = control(loaded, maximize=objective, limits=limits, modes=modes, task=not args.no_task, margin=margin)
    text = json.dumps(result.to_json(), indent=2, allow_nan=False) if args.json else format_control(result)
    return text + "\n" if result.success else CommandOutput(text + "\n", NO_ANSWER)
