"""``contactmodes simulate FILE --controller control|zero|constant:TAU1,... --duration T [--dt DT]
[--rate HZ] [--disturbance COORD=VALUE,...] [--goal COORD=VALUE[:TOL] [--brake T_D]] [--plot PNG]
[--animate GIF] [--json] [--output PATH]``: a closed loop on MuJoCo.

``--goal`` (with ``--controller control`` on a file whose ``[control]`` objective is one
coordinate's acceleration, ``maximize = "qdd.theta"``) gives that objective a goal: the controller
drives the coordinate until it is within ``TOL`` of ``VALUE`` (SI: rad for an angle, compared
modulo 2π; m for the base's ``x``, ``y``), then holds it there by switching between maximizing and
minimizing its acceleration on the sign of a PD law with braking time ``--brake`` (s; default the
system's characteristic time ``√(L/g)``, ``CharacteristicScales.time``; TOL default
``GOAL_TOLERANCE`` rad or ``GOAL_TOLERANCE · L``): ``controllers.simulation.goal.GoalSwitch``.

Loads the system file (TOML; its mechanism may be a URDF file), builds the MuJoCo plant
(``controllers.simulation.model``), runs the controller (``controllers.simulation.registry``) at
``--rate`` Hz with MuJoCo steps of ``--dt`` s (``controllers.simulation.loop``) and prints a
summary or, with ``--json``, the ``contactmodes.simulation/1`` document
(``controllers.simulation.document``). Registered through the ``contactmodes.commands``
entry-point group (``pyproject.toml``).

Exit status: **0** the run completed; **1** the run completed with control steps without an
acceptable mode (the generic controller's fallback torque: ``controller_status`` names it; the
summary or document is written, and a warning on stderr counts them), or the plant could not be
simulated to the end (MuJoCo warned mid-run: a diverging simulation, a control it discarded;
``controllers.simulation.mujoco_warnings``; one line on stderr, nothing written); **2** user
error (one line on stderr naming the option or the file's field, nothing written): an invalid
file, option value or controller, a constant torque beyond MuJoCo's largest control, a run of
more than ``--max-steps`` control steps, a missing ``sim`` extra (MuJoCo:
``pip install 'contactmodes[sim]'``) or ``plot`` extra for ``--plot`` / ``--animate``; **70**
internal error; **130** Ctrl-C (nothing written). A link found below a contact surface (the
plant collides only the contact points, ``controllers.simulation.penetration``) is a warning on
stderr and an entry of ``penetrations``; it does not change the exit status.

MuJoCo is imported with ``MUJOCO_GL=disable`` unless the environment sets ``MUJOCO_GL``: the
command draws with Matplotlib, never with MuJoCo's OpenGL, whose probe (``glfw``) starts a Python
subprocess at import that a Ctrl-C would interrupt with its own traceback. MuJoCo's warnings are
captured (``controllers.simulation.mujoco_warnings``): nothing is written into the current folder.

Progress: a tqdm bar on stderr when it is a terminal and the run lasts over a second
(``contactmodes.progress``). ``--plot``, ``--animate`` and ``--output`` are checked before the run
and written atomically after it (``contactmodes.cli.write_all_atomic``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from contactmodes.extras import require
from contactmodes.cli import NO_ANSWER, CommandOutput, UserError, check_writable, write_all_atomic

__all__ = ["add_parser", "run", "summary", "parse_disturbance", "parse_goal", "goal_controller", "DEFAULT_RATE",
           "GOAL_TOLERANCE"]

GOAL_TOLERANCE = 0.1
"""``--goal``'s default tolerance: rad for an angle, times the characteristic length for ``x``, ``y``."""

DEFAULT_RATE = 100.0
"""Default control rate (Hz)."""


def _positive_int(text: str) -> int:
    """An integer >= 1 (``--max-steps``); argparse's one-line error otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``simulate`` on the ``contactmodes`` subparsers; returns the sub-parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``simulate`` parser (``run`` set as its default ``run``).
    """
    from .loop import MAX_STEPS
    from .model import ContactSettings

    p = sub.add_parser(
        "simulate", help="run a controller in closed loop on a MuJoCo model of the system",
        description="Simulate the system file's mechanism on MuJoCo under a controller and read each contact's mode. "
                    "Exit status: 0 done, 1 steps without an acceptable mode (output written) or the plant failed "
                    "mid-run (nothing written), 2 user error (or the sim extra missing), 130 interrupted.",
        epilog="Controllers: zero (no torque), constant:TAU1,TAU2,... (held, one value per actuator), "
               "control (controllers.generic with the file's [control] objective).")
    p.add_argument("file", help="system file (TOML, see docs/system-file.md)")
    p.add_argument("--controller", required=True, metavar="control|zero|constant:TAU1,TAU2,...",
                   help="the controller")
    p.add_argument("--duration", type=float, required=True, metavar="T", help="simulated time (s, > 0)")
    p.add_argument("--dt", type=float, default=ContactSettings().timestep, metavar="DT",
                   help=f"MuJoCo time step (s; default {ContactSettings().timestep:g})")
    p.add_argument("--max-steps", type=_positive_int, default=MAX_STEPS, metavar="N",
                   help=f"refuse a run of more than N control steps (default {MAX_STEPS})")
    p.add_argument("--rate", type=float, default=DEFAULT_RATE, metavar="HZ",
                   help=f"control rate (Hz; default {DEFAULT_RATE:g}); 1/(rate·dt) must be a whole number")
    p.add_argument("--disturbance", metavar="COORD=VALUE,...",
                   help="a generalized force held over the run on named coordinates (N on x/y, N·m on angles; "
                        "the E δ of a [disturbance] table), e.g. y=-3,theta1=-0.25")
    p.add_argument("--goal", metavar="COORD=VALUE[:TOL]",
                   help="with --controller control and an objective qdd.COORD: drive COORD to VALUE (rad, or m "
                        "for x/y), then hold it (module doc); TOL: reached within it (default 0.1 rad or 0.1 L)")
    p.add_argument("--brake", type=float, default=None, metavar="T_D",
                   help="braking time of --goal's hold phase (s, >= 0; default the system's time scale sqrt(L/g))")
    p.add_argument("--plot", metavar="PNG", help="write q(t), the torques and the modes as a PNG figure")
    p.add_argument("--animate", metavar="GIF", help="write an animation of the robot")
    p.add_argument("--json", action="store_true", help="print the contactmodes.simulation/1 document")
    p.add_argument("--output", metavar="PATH", help="write the text output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def summary(doc: dict) -> str:
    """The text summary of a ``contactmodes.simulation/1`` document (a few lines).

    Parameters
    ----------
    doc : dict
        A ``contactmodes.simulation/1`` document.

    Returns
    -------
    str
        Lines of text.
    """
    N = len(doc["t"])
    contacts = doc["contacts"]
    modes = ["".join(doc["modes"][c][k] for c in contacts) for k in range(N)]
    counts: dict[str, int] = {}
    for m in modes:
        counts[m] = counts.get(m, 0) + 1
    share = ", ".join(f"{m or '-'} {100 * n / N:.0f} %" for m, n in sorted(counts.items(), key=lambda x: -x[1])[:4])
    diff = doc["plant_difference"]
    lines = [f"{doc['system']} under {doc['controller']}: {N} control steps of {doc['control_dt_s']:g} s "
             f"(MuJoCo {doc['engine']['version']}, dt {doc['dt_s']:g} s)",
             f"modes: {share}; first {modes[0] or '-'}, last {modes[-1] or '-'}",
             "q at the end: " + ", ".join(f"{c} = {v:.6g}" for c, v in doc["q_end"].items()),
             f"plant vs analysed model at the start: |dM|/|M| = {diff['M_rel']:.2e}, |dh|/|h| = {diff['h_rel']:.2e}"
             + (f" (mass/inertia floor on {', '.join(diff['floored_links'])})" if diff["floored_links"] else "")]
    goal = doc.get("goal")
    if goal:
        lines.append(f"goal {goal['coordinate']} = {goal['value']:g} ± {goal['tolerance']:g}: "
                     + ("never reached" if goal["reached_s"] is None else f"first reached at {goal['reached_s']:.3g} s"))
    if doc.get("disturbance"):
        lines.append("held disturbance: " + ", ".join(f"{c} = {v:g}" for c, v in doc["disturbance"].items() if v))
    creep = [f"{c} {v['speed_m_s']:.1e} m/s over {v['sticking_s']:.2f} s" for c, v in doc["creep"].items() if v]
    if creep:
        lines.append("creep while sticking: " + ", ".join(creep))
    for e in doc.get("touchdowns") or []:
        obs = e["observed"]
        lines.append(f"touchdown of {e['contact']} at {e['t_s']:.4g} s, v_n {e['vn_before_m_s']:.3g} m/s: predicted "
                     f"{e['predicted']['chosen'] or 'no outcome'}"
                     + (f", observed {obs['modes']} {1e3 * obs['after_s']:.3g} ms later (v_n {obs['vn_m_s']:.3g} m/s)"
                        if obs else ""))
    statuses = doc.get("controller_status")
    if statuses:
        lines.append("controller: " + ", ".join(f"{st} {n}" for st, n in _counted(statuses)))
        fallback = _fallback_note(doc)
        if fallback:
            lines.append(fallback)
    if doc.get("penetrations"):
        from .penetration import describe

        lines.extend(describe(e) for e in doc["penetrations"])
    pred = doc["prediction"]
    if pred is not None:
        w = pred["windows"]["after_first"]
        if w["rmse"]:
            lines.append(f"RMSE predicted vs simulated q̈ (after the first step, {w['steps']} steps): "
                         + ", ".join(f"{c} {v:.3g}" for c, v in w["rmse"].items()))
    return "\n".join(lines) + "\n"


def _counted(statuses: list) -> list[tuple[str, int]]:
    """``(status, count)`` most frequent first (ties in order of first appearance)."""
    counts: dict[str, int] = {}
    for st in statuses:
        counts[st] = counts.get(st, 0) + 1
    return sorted(counts.items(), key=lambda x: -x[1])


def _fallback_note(doc: dict) -> str | None:
    """The line on the steps without an acceptable mode (``fallback_steps``), ``None`` without any."""
    from .document import fallback_steps

    statuses = doc.get("controller_status") or []
    steps = fallback_steps(statuses)
    if not steps:
        return None
    used = ", ".join(f"{st} {n}" for st, n in _counted([statuses[k] for k in steps]))
    return (f"no acceptable mode at {len(steps)} of {len(statuses)} control steps (first at t = "
            f"{doc['t'][steps[0]]:.4g} s): the controller applied its fallback torque ({used}; docs/simulate.md)")


def _check_positive(value: float, option: str) -> None:
    if not (math.isfinite(value) and value > 0):
        raise UserError(f"{option}: must be a finite number > 0, got {value:g}")


def _named(item: str, text: str, coordinates: tuple[str, ...], option: str, form: str) -> tuple[str, str]:
    """``COORD=REST`` of ``item`` (part of the option's ``text``) as ``(COORD, REST)``, the
    coordinate checked against the file's; ``UserError`` naming ``option`` (``form`` in the
    message)."""
    name, sep, rest = item.partition("=")
    name = name.strip()
    if not sep or not name:
        raise UserError(f"{option}: expected {form}, got {text!r}")
    if name not in coordinates:
        raise UserError(f"{option}: unknown coordinate {name!r} (the file's: {', '.join(coordinates)})")
    return name, rest


def parse_goal(text: str, coordinates: tuple[str, ...]) -> tuple[str, float, float | None]:
    """``--goal COORD=VALUE[:TOL]`` as ``(coordinate, value, tolerance or None)``.

    Parameters
    ----------
    text : str
        The option's value.
    coordinates : tuple[str, ...]
        The mechanism's coordinate names.

    Returns
    -------
    tuple[str, float, float or None]
        ``(coordinate, value, tolerance or None)``, in the coordinate's unit (m or rad).

    Raises
    ------
    UserError
        A malformed goal, an unknown coordinate, a value that is not finite or a tolerance that is
        not > 0 (one line naming ``--goal``).
    """
    name, rest = _named(text, text, coordinates, "--goal", "COORD=VALUE[:TOL]")
    value_text, colon, tol_text = rest.partition(":")
    try:
        value = float(value_text)
        tol = float(tol_text) if colon else None
    except ValueError:
        raise UserError(f"--goal: expected numbers in COORD=VALUE[:TOL], got {text!r}") from None
    if not math.isfinite(value):
        raise UserError(f"--goal: {name}: the value must be finite, got {value_text.strip()!r}")
    if tol is not None and not (math.isfinite(tol) and tol > 0):
        raise UserError(f"--goal: {name}: the tolerance must be a finite number > 0, got {tol_text.strip()!r}")
    return name, value, tol


def goal_controller(args: argparse.Namespace, loaded, velocity_tol: float | None):
    """The ``GoalSwitch`` of ``--goal`` (module doc) for ``loaded``, wrapped in the file's limits.

    As ``make_controller`` wraps every controller.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``simulate`` options (``controller``, ``goal``, ``brake`` (s)).
    loaded : LoadedSystem
        The system file.
    velocity_tol : float or None
        The normal velocity tolerance of the controller's steps (m/s).

    Returns
    -------
    GoalSwitch or LimitedController
        The switch, within the file's limits when it has some.

    Raises
    ------
    UserError
        Naming ``--goal`` or ``--brake``.
    """
    from contactmodes.errors import ContactModelError

    from .goal import GoalSwitch, goal_controllers
    from .registry import LimitedController, file_limits

    if args.controller != "control":
        raise UserError(f"--goal: needs --controller control (got {args.controller!r})")
    coords = tuple(loaded.mechanism.coordinates)
    name, value, tol = parse_goal(args.goal, coords)
    try:
        up, down, index, drive_up = goal_controllers(loaded, velocity_tol)
    except ContactModelError as exc:
        raise UserError(f"--goal: {exc}") from None
    if coords[index] != name:
        raise UserError(f"--goal: the file's objective drives qdd.{coords[index]}: the goal must be on "
                        f"{coords[index]}, got {name!r}")
    angle = not (loaded.mechanism.base == "floating" and index < 2)
    scales = loaded.system.scales
    if tol is None:
        tol = GOAL_TOLERANCE if angle else GOAL_TOLERANCE * scales.length
    brake = scales.time if args.brake is None else args.brake
    if not (math.isfinite(brake) and brake >= 0):
        raise UserError(f"--brake: must be a finite number >= 0, got {brake:g}")
    switch = GoalSwitch(up, down, index, value, tol, brake, angle=angle, drive_up=drive_up)
    limits, _ = file_limits(loaded)
    return LimitedController(switch, limits, loaded.system.S) if any(l is not None for l in limits) else switch


def parse_disturbance(text: str | None, coordinates: tuple[str, ...]):
    """``--disturbance COORD=VALUE,...`` as an ``(n_q,)`` generalized force (SI; zero on the
    coordinates not named), ``None`` for ``None``.

    Parameters
    ----------
    text : str or None
        The option's value.
    coordinates : tuple[str, ...]
        The mechanism's coordinate names.

    Returns
    -------
    numpy.ndarray or None
        ``(n_q,)`` the generalized force (N or N·m per coordinate).

    Raises
    ------
    UserError
        A malformed item, an unknown or repeated coordinate, or a value that is not finite
        (one line naming ``--disturbance``).
    """
    if text is None:
        return None
    import numpy as np

    tau_d = np.zeros(len(coordinates))
    seen: set[str] = set()
    for item in (p.strip() for p in text.split(",")):
        name, value = _named(item, text, coordinates, "--disturbance", "COORD=VALUE[,COORD=VALUE...]")
        if name in seen:
            raise UserError(f"--disturbance: coordinate {name!r} given twice")
        seen.add(name)
        try:
            v = float(value)
        except ValueError:
            raise UserError(f"--disturbance: {name}: expected a number, got {value.strip()!r}") from None
        if not math.isfinite(v):
            raise UserError(f"--disturbance: {name}: must be finite, got {value.strip()!r}")
        tau_d[coordinates.index(name)] = v
    return tau_d


def run(args: argparse.Namespace) -> str | CommandOutput:
    """Validate, simulate, write the requested files, return the summary or JSON text.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``simulate`` options.

    Returns
    -------
    str or CommandOutput
        The text; a ``CommandOutput`` with status 1 after steps without an acceptable mode, or
        without text when the plant failed mid-run (module doc).

    Raises
    ------
    UserError
        (or another ``ContactModelError``) on a user error, nothing written.
    KeyboardInterrupt
        Passes (the CLI exits 130, nothing written).
    MissingExtraError
        Without MuJoCo (the ``sim`` extra), or matplotlib for ``--plot``/``--animate``.
    """
    # MuJoCo's OpenGL probe (glfw) starts a Python subprocess at import, which a Ctrl-C would
    # interrupt with its own traceback; the command renders nothing with OpenGL (module doc)
    os.environ.setdefault("MUJOCO_GL", "disable")
    require("mujoco", "sim", "simulate")
    from .loop import MAX_STEPS, control_steps

    _check_positive(args.duration, "--duration")
    _check_positive(args.dt, "--dt")
    _check_positive(args.rate, "--rate")
    control_steps(args.duration, args.rate, args.dt, getattr(args, "max_steps", MAX_STEPS))  # before any work
    check_writable(args.plot, "--plot", ".png", inputs=[args.file])
    check_writable(args.animate, "--animate", ".gif", inputs=[args.file])
    check_writable(getattr(args, "output", None), "--output", inputs=[args.file])
    for option, path in (("--plot", args.plot), ("--animate", args.animate)):
        if path:
            require("matplotlib", "plot", option)

    from contactmodes.progress import Progress
    from contactmodes.system_file.loader import load_system_file

    from .document import simulation_document
    from .loop import simulate, substeps
    from .mujoco_warnings import PlantFailure
    from .model import ContactSettings, build_plant
    from .modes import ModeThresholds
    from .registry import file_limits, make_controller
    from .touchdown import touchdown_entries

    loaded = load_system_file(args.file, lifted_contacts=True)  # a contact in the air touches down on MuJoCo
    disturbance = parse_disturbance(getattr(args, "disturbance", None), tuple(loaded.mechanism.coordinates))
    substeps(args.rate, args.dt)  # before building anything
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, settings=ContactSettings(timestep=args.dt),
                        limits=box)
    velocity_tol = ModeThresholds().slip_tol(plant)
    if getattr(args, "goal", None) is not None:
        controller = goal_controller(args, loaded, velocity_tol)
    else:
        if getattr(args, "brake", None) is not None:
            raise UserError("--brake: only with --goal")
        controller = make_controller(args.controller, loaded, velocity_tol=velocity_tol).controller
    try:
        result = simulate(plant, loaded.q, loaded.qdot, controller, args.duration, args.rate,
                          progress=Progress(), disturbance=disturbance, max_steps=getattr(args, "max_steps", MAX_STEPS))
    except PlantFailure as exc:  # the plant could not go on: exit 1, nothing written (module doc)
        print(f"contactmodes: error: {exc}; nothing written", file=sys.stderr)
        return CommandOutput(None, NO_ANSWER)
    doc = simulation_document(result, loaded.name, args.controller, args.duration,
                              touchdowns=touchdown_entries(result.touchdowns, loaded, plant))
    if getattr(args, "goal", None) is not None:
        switch = getattr(controller, "inner", controller)  # the GoalSwitch inside the file's limits
        reached = None if switch.reached_at is None else float(result.times[switch.reached_at])
        doc["goal"] = {"coordinate": loaded.mechanism.coordinates[switch.index], "value": switch.goal,
                       "tolerance": switch.tolerance, "brake_s": switch.T_d, "reached_s": reached}
    title = f"{loaded.name}, {args.controller}"
    files = []
    if args.plot:
        from .plots import plot_run

        files.append((args.plot, lambda tmp: plot_run(result, tmp, title), "--plot"))
    if args.animate:
        from .plots import animate

        files.append((args.animate, lambda tmp: animate(result, tmp, title), "--animate"))
    write_all_atomic(files, inputs=[args.file])
    text = json.dumps(doc, indent=2, allow_nan=False) + "\n" if args.json else summary(doc)
    for e in result.penetrations:
        print(f"contactmodes: warning: {e.message()}", file=sys.stderr)
    note = _fallback_note(doc)
    if note is not None:  # the run is written, and exits with 1 (module doc)
        print(f"contactmodes: warning: simulate: {note}", file=sys.stderr)
        return CommandOutput(text, NO_ANSWER)
    return text
