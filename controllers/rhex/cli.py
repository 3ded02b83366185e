"""``contactmodes flip --controller {max-thrust,blind} --mu-toe MU [--mu-body MU] [--json] [--plot PNG] [--animate GIF] [--duration S]``.

Runs the compliant simulator (:func:`~.simulator.simulate`, flipping paper Sec. IV-C.1) from the
flat start (:func:`~.simulator.initial_state`) with the chosen controller and prints a one-line
summary or the ``contactmodes.flip/1`` JSON document:

``schema``
    ``"contactmodes.flip/1"``
``controller``, ``mu_toe``, ``mu_body``
    as run (``mu_body`` defaults to ``RHexParams().mu_body``, 0.3, our choice)
``success``, ``outcome``
    ``true`` iff the body flipped (pitch reached 90° with positive pitch rate); ``outcome`` one of
    ``"flipped"``, ``"fell_back"``, ``"timeout"`` (``--duration`` reached)
``flip_time_s``
    s, ``null`` without a flip
``rmse_pitch_accel``
    rad/s², Table V's RMSE of the controller's predicted minus the simulated pitch acceleration
    over the thrust phase ``[0, thrust_end_s]`` (:func:`~.plots.rmse_pitch_accel` documents our
    reading of the paper's ``t_f``); ``null`` when the controller made no prediction
``thrust_end_s``
    s, end of the thrust phase (last control step with a prediction), ``null`` if none
``steps``
    control steps simulated (``duration × control_rate`` unless the run stopped at its outcome)
``control_rate_hz``
    the controller rate (1000)
``median_step_ms``
    median wall time of one controller call (ms)
``mode_timeline``
    list of segments ``{"t0": s, "t1": s, "simulated": "RFLL", "controller": "RRLL" | null}`` —
    maximal runs of control steps with the same simulated mode (letters body, toe1 rear, toe2,
    toe3 front; :func:`~.simulator.simulate`) and the same controller mode (``null`` when it
    assumes none, i.e. after the thrust phase); contiguous, from 0 to the end of the run

Progress: when stderr is a terminal, one line every 0.1 s of simulated time
(``contactmodes: flip t=0.30 s pitch=45°``); nothing when stderr is redirected (scripts, tests).
Ctrl-C ends the run with exit status 130 and writes nothing: ``--plot`` / ``--animate`` /
``--output`` are written (atomically, :func:`contactmodes.cli.write_atomic`) only after a
complete run. Their directories are checked *before* the run, so a bad path fails at once.
User errors (negative or NaN friction, non-positive duration, wrong extension, missing or
unwritable directory, max-thrust controller not installed) exit 2 with one line.
Registered through the ``contactmodes.commands`` entry-point group (``pyproject.toml``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

from contactmodes.cli import UserError
from contactmodes.files import check_writable, write_all_atomic

__all__ = ["SCHEMA", "CONTROLLERS", "add_parser", "run", "flip_document", "make_controller"]

SCHEMA = "contactmodes.flip/1"
CONTROLLERS = ("max-thrust", "blind")
PROGRESS_EVERY = 0.1  # s of simulated time between progress lines


def add_parser(sub) -> argparse.ArgumentParser:
    """Register ``flip`` on the ``contactmodes`` subparsers; returns the sub-parser."""
    p = sub.add_parser("flip", help="simulate RHex self-righting (flipping paper Sec. IV) under a controller",
                       description="Simulate RHex flipping on flat ground with the blind or the max-thrust controller.")
    p.add_argument("--controller", choices=CONTROLLERS, required=True)
    p.add_argument("--mu-toe", type=float, required=True, metavar="MU", help="toe-ground friction coefficient (>= 0)")
    p.add_argument("--mu-body", type=float, default=None, metavar="MU",
                   help="body-ground friction coefficient (>= 0; default 0.3)")
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


def make_controller(name: str, params):
    """A fresh controller ``name`` (one of :data:`CONTROLLERS`) for ``params``.

    The max-thrust controller is imported lazily; :class:`UserError` when it is not available."""
    if name == "blind":
        from .blind import BlindController

        return BlindController(params)
    if name == "max-thrust":
        try:
            from .max_thrust import MaxThrustController
        except ImportError as exc:
            raise UserError(f"--controller: max-thrust is not available ({exc})") from None
        return MaxThrustController(params)
    raise UserError(f"--controller: expected one of {', '.join(CONTROLLERS)}, got {name!r}")


class _Timed:
    """Wraps a controller; records the wall time (s) of each call and the last state seen."""

    def __init__(self, controller) -> None:
        self.controller = controller
        self.times: list[float] = []
        self.last_state = None

    def __call__(self, t, state, params=None):
        self.last_state = state
        t0 = time.perf_counter()
        out = self.controller(t, state, params)
        self.times.append(time.perf_counter() - t0)
        return out


def flip_document(result, controller: str, step_times_s) -> dict:
    """The ``contactmodes.flip/1`` document (module docstring) of a finished run.

    ``result``: :class:`~.simulator.SimulationResult`; ``step_times_s``: controller call wall
    times (s), any length. Floats are plain Python floats; no NaN/Infinity."""
    from .plots import mode_timeline, rmse_pitch_accel, thrust_phase

    p = result.params
    n_f = thrust_phase(result)
    rmse = rmse_pitch_accel(result)
    return {
        "schema": SCHEMA,
        "controller": controller,
        "mu_toe": float(p.mu_toe),
        "mu_body": float(p.mu_body),
        "success": bool(result.success),
        "outcome": result.outcome,
        "flip_time_s": None if result.flip_time is None else round(float(result.flip_time), 6),
        "rmse_pitch_accel": rmse,
        "thrust_end_s": round(float(result.times[n_f]), 6) if n_f else None,
        "steps": len(result.sim_modes),
        "control_rate_hz": float(p.control_rate),
        "median_step_ms": float(np.median(step_times_s) * 1e3) if len(step_times_s) else None,
        "mode_timeline": mode_timeline(result),
    }


def run(args: argparse.Namespace) -> str:
    """Validate, simulate, write the requested files, return the summary or JSON text.

    Raises :class:`UserError` on invalid options (nothing written) and ``KeyboardInterrupt`` when
    the run was interrupted (nothing written; the CLI exits 130)."""
    from .params import RHexParams
    from .plots import animate, plot_run
    from .simulator import simulate

    _check_number(args.mu_toe, "--mu-toe")
    _check_number(args.mu_body, "--mu-body")
    _check_number(args.duration, "--duration", positive=True)
    check_writable(args.plot, "--plot", ".png")
    check_writable(args.animate, "--animate", ".gif")
    check_writable(getattr(args, "output", None), "--output", None)
    changes = {"mu_toe": args.mu_toe}
    if args.mu_body is not None:
        changes["mu_body"] = args.mu_body
    params = RHexParams().with_(**changes)
    timed = _Timed(make_controller(args.controller, params))

    def progress(t: float) -> None:
        pitch = math.degrees(timed.last_state[2]) if timed.last_state is not None else 0.0
        print(f"contactmodes: flip t={t:.2f} s pitch={pitch:.0f}°", file=sys.stderr, flush=True)

    result = simulate(timed, params, duration=args.duration, progress=progress if sys.stderr.isatty() else None,
                      progress_every=PROGRESS_EVERY)
    if result.outcome == "interrupted":
        raise KeyboardInterrupt
    title = f"{args.controller} controller, μ_toe = {params.mu_toe:g}, μ_body = {params.mu_body:g}"
    files = []
    if args.plot:
        files.append((args.plot, lambda tmp: plot_run(result, tmp, title), "--plot"))
    if args.animate:
        files.append((args.animate, lambda tmp: animate(result, tmp), "--animate"))
    write_all_atomic(files)
    doc = flip_document(result, args.controller, timed.times)
    if args.json:
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    flip = f"flipped at {result.flip_time:.3f} s" if result.success else f"no flip ({result.outcome})"
    rm = "n/a" if doc["rmse_pitch_accel"] is None else f"{doc['rmse_pitch_accel']:.2f} rad/s²"
    med = "n/a" if doc["median_step_ms"] is None else f"{doc['median_step_ms']:.2f} ms"
    return (f"{args.controller} at mu_toe={params.mu_toe:g}, mu_body={params.mu_body:g}: {flip}; "
            f"RMSE predicted vs simulated pitch acceleration over the thrust phase {rm}; "
            f"{doc['steps']} steps, median controller step {med}\n")
