"""``contactmodes sweep flip --vary PARAM=SPEC ...``: RHex self-righting over a grid of parameters.

Each grid point is one run of the compliant simulator from the flat start under a controller
(``contactmodes flip``; flipping paper Sec. IV-C), with the varied parameters replaced. ``PARAM``
is any field of ``RHexParams`` — discovered with
``dataclasses.fields``, so fields added later work unchanged (``mu_toe``, ``mu_body``,
``tau_stall``, ``v0.1`` for an entry of a tuple field, …) — or ``controller`` (``blind``,
``max-thrust``). A point's fields are those of ``flip --json`` (``contactmodes.flip/1``) without
``schema``, the per-step ``mode_timeline`` and the step-time statistics ``step_ms`` /
``step_cpu_ms``; ``median_step_ms`` (the median of ``step_ms``) is kept as the one wall-time
measurement (not a result: it differs between runs and machines).

Every point's parameters are built (``RHexParams`` validation) before anything runs; a rejected
value is a one-line error naming the parameter. A run that raises (e.g. legs too short to reach
the ground) is a failed point. Registered as the ``flip`` kind of the entry-point group
``contactmodes.sweep_kinds`` (``pyproject.toml``; ``contactmodes.sweeps.kinds``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
from typing import Any, Mapping

from contactmodes.sweeps.grid import Grid, SweepError
from contactmodes.sweeps.keys import apply_overrides, key_paths
from contactmodes.sweeps.kinds import Panel, Prepared, SweepKind

__all__ = ["FlipKind", "FlipPoint", "KIND", "run_one_flip", "UNITS"]

UNITS = {
    "d": "m", "h": "m", "m": "kg", "I": "kg·m²", "hips": "m", "l": "m", "m_t": "kg", "k_b": "N/m",
    "d_b": "N·s/m", "k_l": "N/m", "d_l": "N·s/m", "mu_toe": "–", "mu_body": "–", "gravity": "m/s²",
    "slope": "rad", "v0": "m/s", "tau_stall": "N·m", "tau_limit": "N·m", "omega_noload": "rad/s",
    "min_body_normal_force": "N", "detector_threshold": "rad/s²", "detector_filter_tau": "s", "detector_arm_time": "s",
    "normal_velocity_tol": "m/s", "control_rate": "Hz", "toe_clearance": "m", "sim_dt": "s",
}
"""Units of the ``RHexParams`` fields (its docstring); a field not
listed is labelled without a unit."""

DEFAULT_DURATION = 2.0  # s, as ``contactmodes flip``
RMSE_TITLE = "RMSE of the pitch-accel. prediction, documented\nwindow (rmse_pitch_accel_window), flipped runs"
"""The RMSE panel of ``--plot``: the README's (windowed) definition, not the paper's whole-thrust
``rmse_pitch_accel`` (one rear-face landing spike decides that one), and only for runs that
flipped (``n/a`` otherwise: a run that fell back or timed out is not a flip to predict)."""


def run_one_flip(params, controller: str, duration: float) -> dict:
    """Simulate one flip and return its ``contactmodes.flip/1`` fields for a sweep point.

    Without ``schema``, ``mode_timeline``, ``params``, ``step_ms`` and ``step_cpu_ms``
    (``controllers.rhex.run_flip``; a sweep point carries its varied parameters, the others are the
    defaults).

    Parameters
    ----------
    params : RHexParams
        The robot's and the controller's settings.
    controller : str
        ``"blind"`` or ``"max-thrust"``.
    duration : float
        Simulated seconds before giving up (s).

    Returns
    -------
    dict
        The document's other fields (JSON values).

    Raises
    ------
    KeyboardInterrupt
        When the run was interrupted; whatever the controller or the simulator raise propagates
        too (the sweep records it as a failed point).
    """
    from .api import run_flip

    doc = run_flip(params, controller, duration, timeline=False)
    # the point records its varied parameters itself; median_step_ms is its one timing column
    for key in ("schema", "mode_timeline", "params", "step_ms", "step_cpu_ms"):
        doc.pop(key, None)
    return doc


def _fields() -> dict[str, Any]:
    from .params import RHexParams

    return {f.name: getattr(RHexParams(), f.name) for f in dataclasses.fields(RHexParams) if f.init}


def _table(values: Mapping[str, Any]) -> dict:
    """RHexParams values → a nested document (tuples as lists) for ``contactmodes.sweeps.keys``."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def _params(table: Mapping[str, Any], defaults: Mapping[str, Any]):
    from .params import RHexParams

    kwargs: dict[str, Any] = {k: tuple(v) if isinstance(defaults[k], tuple) else v for k, v in table.items()}
    return RHexParams(**kwargs)


class FlipPoint:
    """Picklable evaluator of one grid point: ``params`` → ``run_one_flip`` fields.

    Parameters
    ----------
    base : dict
        Every ``RHexParams`` field's default, as a nested table.
    paths : dict
        Varied key → its key paths in ``base`` (``contactmodes.sweeps.keys.key_paths``).
    defaults : dict
        ``RHexParams`` field → default (to restore tuples).
    controller : str or None
        The controller, unless varied.
    duration : float
        Simulated seconds per run (s).
    """

    def __init__(self, base: dict, paths: dict, defaults: dict, controller: str | None, duration: float) -> None:
        self.base, self.paths, self.defaults = base, paths, defaults
        self.controller, self.duration = controller, duration

    def build(self, params: Mapping[str, Any]):
        """``(RHexParams, controller)`` of a grid point.

        Parameters
        ----------
        params : Mapping[str, Any]
            Varied key → value (``controller`` among them when varied).

        Returns
        -------
        tuple[RHexParams, str]
            The parameters and the controller's name.

        Raises
        ------
        ValueError
            When ``RHexParams`` rejects a value (or ``TypeError``).
        """
        changes = {k: v for k, v in params.items() if k != "controller"}
        rhex = _params(apply_overrides(self.base, self.paths, changes), self.defaults)
        return rhex, params.get("controller", self.controller)

    def __call__(self, params: Mapping[str, Any]) -> dict:
        """The point's ``run_one_flip`` fields.

        Parameters
        ----------
        params : Mapping[str, Any]
            Varied key → value.

        Returns
        -------
        dict
            JSON values.
        """
        rhex, controller = self.build(params)
        return run_one_flip(rhex, controller, self.duration)


class FlipRow:
    """Table columns of a flip point: its scalar fields (``success``, ``outcome``, ``flip_time_s``
    (NaN without a flip), ``rmse_pitch_accel``, ``thrust_end_s``, ``steps``, …) except those the
    varied keys already give."""

    def __call__(self, point: dict) -> dict:
        """The table columns of one point document.

        Parameters
        ----------
        point : dict
            The point's document.

        Returns
        -------
        dict
            Column → scalar (``None`` as NaN).
        """
        skip = {"params", "ok", "error"} | set(point["params"])
        return {k: (math.nan if v is None else v) for k, v in point.items() if k not in skip}


def _check_types(grid: Grid, defaults: Mapping[str, Any]) -> None:
    from .cli import CONTROLLERS

    for key, values in zip(grid.keys, grid.values):
        if key == "controller":
            for v in values:
                if v not in CONTROLLERS:
                    raise SweepError(f"controller: expected one of {', '.join(CONTROLLERS)}, got {v!r}")
            continue
        top = key.replace("[", ".").split(".")[0]
        if top not in defaults:
            raise SweepError(f"{key}: unknown parameter {top!r} (RHexParams fields: {', '.join(defaults)}; "
                             "or controller)")
        if isinstance(defaults[top], (int, float)) or isinstance(defaults[top], tuple):
            for v in values:
                if isinstance(v, str):
                    raise SweepError(f"{key}: expected numbers, got {v!r}")


def _check_controllers(names) -> None:
    if "max-thrust" in names:
        try:
            importlib.import_module(".max_thrust", __package__)
        except ImportError as exc:
            raise SweepError(f"controller: max-thrust is not available ({exc})") from None


class FlipKind(SweepKind):
    """``flip``: the module doc."""

    name = "flip"
    help = "simulate RHex self-righting over a grid of RHexParams fields and controllers"
    in_process_points = 2
    """A run takes 2–7 s here; more than two are worth a ``LocalCluster`` (``docs/sweeps.md``)."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--controller", default=None, metavar="NAME",
                            help="blind or max-thrust (required unless controller is varied)")
        parser.add_argument("--duration", type=float, default=DEFAULT_DURATION, metavar="S",
                            help=f"simulated seconds per run before giving up (default {DEFAULT_DURATION:g}; "
                                 "a run stops at its outcome)")

    def options_from_args(self, args: argparse.Namespace) -> dict:
        return dict(controller=args.controller, duration=args.duration)

    def prepare(self, grid: Grid, controller: str | None = None,  # type: ignore[override]  # a kind takes its own options
                duration: float = DEFAULT_DURATION, progress=None) -> Prepared:
        """Validate and prepare (``SweepKind.prepare``).

        Parameters
        ----------
        grid : Grid
            The validated grid (``RHexParams`` fields and ``controller``).
        controller : str, optional
            ``"blind"`` or ``"max-thrust"`` (required unless varied).
        duration : float, optional
            Simulated seconds per run (s, > 0).
        progress : NullStage, optional
            A stage (``contactmodes.progress``) told of each point checked.

        Returns
        -------
        Prepared
            The runnable sweep.

        Raises
        ------
        SweepError
            For a missing, doubled or unknown controller, a bad duration, an unknown or mistyped
            parameter, a point ``RHexParams`` rejects, or an unavailable max-thrust controller.
        """
        from .cli import CONTROLLERS

        varied_controller = "controller" in grid.keys
        if varied_controller and controller is not None:
            raise SweepError("--controller: the controller is varied; drop --controller")
        if not varied_controller:
            if controller is None:
                raise SweepError("--controller: required unless controller is varied "
                                 f"(one of {', '.join(CONTROLLERS)})")
            if controller not in CONTROLLERS:
                raise SweepError(f"--controller: expected one of {', '.join(CONTROLLERS)}, got {controller!r}")
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not (
                math.isfinite(duration) and duration > 0):
            raise SweepError(f"--duration: must be a finite number > 0, got {duration!r}")
        defaults = _fields()
        _check_types(grid, defaults)
        base = _table(defaults)
        paths = key_paths(base, [k for k in grid.keys if k != "controller"], create=False)
        point = FlipPoint(base, paths, defaults, controller, float(duration))
        for params in grid:
            try:
                point.build(params)
            except (ValueError, TypeError) as exc:
                at = ", ".join(f"{k}={v!r}" for k, v in params.items() if k != "controller")
                raise SweepError(f"{at}: {exc}") from None
            if progress is not None:
                progress.update(1)
        _check_controllers(grid.values[grid.keys.index("controller")] if varied_controller else [controller])
        return Prepared(
            evaluate=point,
            row=FlipRow(),
            panels=[Panel("success", "flipped (1 = yes)"), Panel("flip_time_s", "flip time", "s"),
                    Panel("rmse_pitch_accel_window", RMSE_TITLE, "rad/s²", where="success")],
            labels={k: k if UNITS.get(k.split(".")[0]) is None else f"{k} ({UNITS[k.split('.')[0]]})"
                    for k in grid.keys},
            header={"controller": controller, "duration_s": float(duration), "rhex_params": base},
        )


KIND = FlipKind()
