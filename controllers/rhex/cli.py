"""``contactmodes flip --controller {max-thrust,blind} --mu-toe MU [--mu-body MU] [--json] [--plot PNG] [--animate GIF] [--duration S]``.

Runs the compliant simulator (:func:`~.simulator.simulate`) with the chosen controller and
prints a summary or the ``contactmodes.flip/1`` JSON document::

    {"schema": "contactmodes.flip/1", "controller", "mu_toe", "mu_body", "success",
     "outcome", "flip_time_s" (null without a flip), "rmse_pitch_accel" (rad/s², see
     controllers.rhex.plots.rmse_pitch_accel; null without predictions), "steps",
     "median_step_ms" (controller call wall time), "mode_timeline" (segments
     {"t0", "t1", "simulated", "controller"} of constant modes)}

A progress line (simulated time and pitch) goes to stderr every 0.1 s of simulated time. Ctrl-C
ends the run (exit 130); ``--plot`` / ``--animate`` files are written atomically after the run,
so an interrupted or failed run leaves none. Registered through the ``contactmodes.commands``
entry-point group.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from contactmodes.cli import UserError, write_atomic

SCHEMA = "contactmodes.flip/1"
CONTROLLERS = ("max-thrust", "blind")


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``flip`` on the ``contactmodes`` subparsers."""
    p = sub.add_parser("flip", help="simulate RHex self-righting under a controller")
    p.add_argument("--controller", choices=CONTROLLERS, required=True)
    p.add_argument("--mu-toe", type=float, required=True, help="toe-ground friction coefficient")
    p.add_argument("--mu-body", type=float, default=None, help="body-ground friction (default: RHexParams)")
    p.add_argument("--duration", type=float, default=2.0, help="simulated seconds before giving up (default 2)")
    p.add_argument("--json", action="store_true", help="print the contactmodes.flip/1 document")
    p.add_argument("--plot", metavar="PNG", help="write the Fig. 10/13/14-style plot")
    p.add_argument("--animate", metavar="GIF", help="write an animation of the run")
    p.add_argument("--output", metavar="PATH", help="write the text output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def _check(value: float | None, option: str, positive: bool = False) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        raise UserError(f"{option}: must be a finite number {'> 0' if positive else '>= 0'}, got {value}")


class _Timed:
    """Wraps a controller and records the wall time of each call (s)."""

    def __init__(self, controller) -> None:
        self.controller = controller
        self.times: list[float] = []

    def __call__(self, t, state, params=None):
        t0 = time.perf_counter()
        out = self.controller(t, state, params)
        self.times.append(time.perf_counter() - t0)
        return out


def run(args: argparse.Namespace) -> str:
    """Simulate, write the requested files, return the summary or JSON text."""
    from .params import RHexParams
    from .plots import animate, mode_timeline, plot_run, rmse_pitch_accel
    from .simulator import simulate

    _check(args.mu_toe, "--mu-toe")
    _check(args.mu_body, "--mu-body")
    _check(args.duration, "--duration", positive=True)
    for option, path, ext in (("--plot", args.plot, ".png"), ("--animate", args.animate, ".gif")):
        if path is not None and not path.lower().endswith(ext):
            raise UserError(f"{option}: expected a {ext} file name, got {path!r}")
    changes = {"mu_toe": args.mu_toe}
    if args.mu_body is not None:
        changes["mu_body"] = args.mu_body
    params = RHexParams().with_(**changes)
    if args.controller == "blind":
        from .blind import BlindController

        ctrl = BlindController(params)
    else:
        from .max_thrust import MaxThrustController

        ctrl = MaxThrustController(params)
    timed = _Timed(ctrl)

    def progress(t: float) -> None:
        print(f"contactmodes: flip t={t:.2f} s", file=sys.stderr, flush=True)

    result = simulate(timed, params, duration=args.duration, progress=progress)
    if result.outcome == "interrupted":
        raise KeyboardInterrupt
    rmse = rmse_pitch_accel(result.predicted_pitch_acc, result.pitch_acc)
    if args.plot:
        title = f"{args.controller}, μ_toe = {args.mu_toe:g}"
        write_atomic(args.plot, lambda tmp: plot_run(result, tmp, title), option="--plot")
    if args.animate:
        write_atomic(args.animate, lambda tmp: animate(result, tmp), option="--animate")
    doc = {
        "schema": SCHEMA,
        "controller": args.controller,
        "mu_toe": params.mu_toe,
        "mu_body": params.mu_body,
        "success": bool(result.success),
        "outcome": result.outcome,
        "flip_time_s": result.flip_time,
        "rmse_pitch_accel": rmse,
        "steps": len(result.sim_modes),
        "median_step_ms": float(np.median(timed.times) * 1e3) if timed.times else None,
        "mode_timeline": mode_timeline(result),
    }
    if args.json:
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    flip = f"flipped at {result.flip_time:.3f} s" if result.success else f"no flip ({result.outcome})"
    rm = "n/a" if rmse is None else f"{rmse:.2f} rad/s²"
    return (f"{args.controller} at mu_toe={params.mu_toe:g}, mu_body={params.mu_body:g}: {flip}; "
            f"RMSE predicted vs simulated pitch acceleration {rm}; {doc['steps']} steps, "
            f"median controller step {doc['median_step_ms']:.2f} ms\n")
