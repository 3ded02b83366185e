"""``contactmodes brace FILE [--mode MODE] [--objective …] [--margin M] [--torque-bound B] [--json] [--output PATH]``.

Computes the robust feasible set ``T'_c`` and the robustly unambiguous set ``T'*_c`` of the
desired mode (default: the file's ``desired_mode``) under the file's ``[disturbance]`` set, and
the ``BracingController`` torque. JSON: ``{"schema":
"contactmodes.brace/1", "mode", "status", "robust_feasible": polytope, "robust_unambiguous":
[polytopes], "ambiguity_sources": [...], "torque": [...] | null, "margin": float | null,
"objective", "torque_bound": [...]}``. Registered as a ``contactmodes`` subcommand through the
``contactmodes.commands`` entry-point group.

Exit status: 0 when a bracing torque is found; 1 when there is none (``status`` ``"empty"`` or
``"margin_infeasible"``: the robustly unambiguous set is empty, misses the torque bound box, or
admits no torque with the required margin), after printing the usual table or JSON document
(``"torque": null``); 2 on a user error (nothing written).
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from contactmodes.cli import CommandOutput, UserError
from contactmodes.output.text import format_bound

SCHEMA = "contactmodes.brace/1"


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``brace`` on the ``contactmodes`` subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``brace`` parser (``run`` set as its default ``run``).
    """
    p = sub.add_parser("brace", help="robust bracing torque under the file's disturbance set",
                       description="Robust feasible set T'_c, robustly unambiguous set T'*_c and bracing torque of "
                                   "the desired mode under the file's [disturbance] set.",
                       epilog="Exit status: 0 a bracing torque was found; 1 there is no bracing torque (the "
                              "table or JSON is printed all the same, with no torque); 2 user error.")
    p.add_argument("file", help="system file (TOML) with a [disturbance] table")
    p.add_argument("--mode", default=None, help="desired mode (default: the file's desired_mode)")
    p.add_argument("--objective", choices=["max-margin", "least-effort"], default="max-margin",
                   help="largest margin to the set's boundary, or least effort keeping --margin")
    p.add_argument("--margin", type=float, default=0.0, help="required margin (N·m) for least-effort")
    p.add_argument("--torque-bound", type=float, default=None,
                   help="per-joint torque bound |tau_j| <= B (N·m), 0 < B <= 1e60; default 1 N·m")
    p.add_argument("--json", action="store_true", help="print the contactmodes.brace/1 document")
    p.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> str | CommandOutput:
    """Compute the sets and the torque; returns the text to print (table or JSON).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``brace`` options (``file``, ``mode``, ``objective``, ``margin`` (N·m),
        ``torque_bound`` (N·m), ``json``, ``output``).

    Returns
    -------
    str or CommandOutput
        The text; a ``CommandOutput`` with status 1 when there is no bracing torque.

    Raises
    ------
    UserError
        A ``--torque-bound`` outside ``(0, MAGNITUDE_MAX]``, a file without a ``[disturbance]``
        table, or no mode (neither ``--mode`` nor the file's ``desired_mode``).
    SystemFileError
        On a bad file.
    """
    from contactmodes.system_file.loader import load_system_file
    from contactmodes.tolerances import MAGNITUDE_MAX

    from .controller import DEFAULT_TORQUE_BOUND, BracingController

    if args.torque_bound is not None and not 0 < args.torque_bound <= MAGNITUDE_MAX:  # NaN fails too
        raise UserError(f"--torque-bound: must be > 0 and <= {MAGNITUDE_MAX:g} N·m "
                        f"(contactmodes.tolerances.MAGNITUDE_MAX), got {args.torque_bound:g}")
    loaded = load_system_file(args.file, mu_intervals=True)  # mu = [lo, hi]: docs/friction-intervals.md
    system = loaded.system
    if system.disturbance is None:
        raise UserError(f"{args.file}: no [disturbance] table; brace needs a disturbance set")
    mode = args.mode or loaded.desired_mode
    if mode is None:
        raise UserError("--mode: the file has no desired_mode; give --mode")
    bound = DEFAULT_TORQUE_BOUND if args.torque_bound is None else args.torque_bound
    controller = BracingController(objective=args.objective.replace("-", "_"), margin=args.margin,
                                   torque_bound=bound)
    robust = None
    if loaded.friction is not None:  # robust over the friction box as well as the disturbance set
        from contactmodes.analysis.friction_robust import robust_unambiguous_over_friction

        robust = robust_unambiguous_over_friction(system, loaded.friction, mode, within_mode=controller.within_mode)
    res = controller.solve(system, mode, robust=robust)
    bounds = np.broadcast_to(np.asarray(bound, dtype=float), (system.n_tau,))
    if args.json:
        doc = {
            "schema": SCHEMA,
            "mode": mode,
            "status": res.status,
            "message": res.message,
            "objective": controller.objective,
            "torque_bound": bounds.tolist(),
            "disturbance": system.disturbance.to_json(),
            "robust_feasible": res.robust.robust_feasible.to_json(),
            "robust_unambiguous": [p.to_json() for p in res.robust.robust_unambiguous],
            "ambiguity_sources": [s.to_json() for s in res.robust.sources],
            "torque": None if res.torque is None else res.torque.tolist(),
            "margin": res.margin,
        }
        if loaded.friction is not None:
            doc["friction"] = loaded.friction.to_json()
        text = json.dumps(doc, indent=2, allow_nan=False) + "\n"
    else:
        text = _table(system, res) + "\n"
        if loaded.friction is not None:
            text += "friction known to intervals (every mu of the box): " + ", ".join(
                f"{c} [{lo:g}, {hi:g}]" for c, lo, hi in zip(system.contacts, loaded.friction.lo, loaded.friction.hi)) + "\n"
    return text if res.success else CommandOutput(text)


def _set_text(P) -> str:
    if P.is_empty():
        return "empty"
    lo, hi = P.bounding_box()
    return " x ".join(format_bound(a, b) for a, b in zip(lo, hi))


def _table(system, res) -> str:
    lines = [
        f"system: {system.name}   desired mode: {res.mode}   torques: {', '.join(system.torques)}",
        f"disturbance on {', '.join(system.disturbance.coordinates)}: "
        f"{len(res.robust.vertices)} vertices of D",
        f"robust feasible set T'_c (bounding box): {_set_text(res.robust.robust_feasible)}",
        "robustly unambiguous set T'*_c: "
        + (" ∪ ".join(_set_text(p) for p in res.robust.robust_unambiguous) or "empty"),
        "ambiguity sources: " + (", ".join(s.source + (" (boundary only)" if s.boundary_only else "")
                                           for s in res.robust.sources) or "none"),
    ]
    if res.success:
        lines.append(f"torque: {np.array2string(res.torque, precision=4)} N·m   margin: {res.margin:.4g} N·m "
                     f"({res.status}, {res.message})")
    else:
        lines.append(f"no torque: {res.message}")
    return "\n".join(lines)
