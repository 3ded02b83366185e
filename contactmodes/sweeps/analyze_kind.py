"""``contactmodes sweep analyze FILE --vary KEY=SPEC ...``: the analysis over a grid of system files.

Each grid point is the system file with the varied keys (``keys``) replaced, loaded by the
system-file loader and analysed (``adapter.analyze_point``): the feasible modes, the number of
overlapping mode pairs, and for each reported mode whether ``T_c`` is non-empty, its bounding box,
with ``--unambiguous`` the bounding box and measure of ``T*_c``, with ``--inconsistency-box`` the
measure of the torques that have no solution at all (flipping paper Sec. III; bracing paper).

Decisions
---------
* Reported modes: every ``--mode``; without one, the file's ``desired_mode`` if it has one, else
  none (the point still gives ``feasible_modes`` and ``overlapping_pairs``).
* ``feasible_modes`` and ``overlapping_pairs`` always cover every kinematically feasible mode,
  whatever ``--mode`` says. A reported mode is ``feasible`` when it may occur: it survives the
  enumeration (Table III / Sec. III-F) and its ``T_c`` is non-empty. A pruned mode is reported
  infeasible (``kinematically_feasible: false``, no bounding box, empty ``T*_c``: a mode that
  never occurs guarantees nothing) — unlike ``contactmodes analyze --mode``, which shows the
  ``T_c`` of a pruned mode.
* Every point is loaded in this process before anything runs: a value the loader rejects is a
  one-line error naming the varied key (``contacts.*.mu=-0.1: contacts[0].mu: must be >= 0``).
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.sweeps import adapter
from contactmodes.sweeps.grid import Grid, SweepError
from contactmodes.sweeps.keys import apply_overrides, key_paths, path_text
from contactmodes.sweeps.kinds import Panel, Prepared, SweepKind

__all__ = ["AnalyzeKind", "AnalyzePoint", "KIND"]

_BRACKET_RE = re.compile(r"\[(\d+)\]")
_LENGTH_KEYS = ("position", "surface_point", "com", "joint_position", "base_position")
_UNITS = {"mu": "–", "mass": "kg", "inertia": "kg·m²", "gravity": "m/s²", "v0": "m/s", "surface_normal": "–"}
_SUPERSCRIPT = {2: "²", 3: "³"}


class AnalyzePoint:
    """Picklable evaluator of one grid point: ``params`` → the fields of ``adapter.analyze_point``.

    Parameters
    ----------
    base : dict
        The base system table.
    paths : dict
        Varied (and derived) key → its key paths in the table (``keys.key_paths``).
    modes : list[str]
        The reported modes.
    unambiguous : bool
        Report each mode's ``T*_c``.
    box : tuple[numpy.ndarray, numpy.ndarray] or None
        The inconsistency box ``(lo, hi)`` (the system's torque units), or ``None``.
    derive : Callable[[dict], Mapping[str, Any]], optional
        ``derive(params) -> {key: value}``, further assignments computed from the varied values
        (applied after them; e.g. moving a wall with the elbow angle).
    source : str, optional
        ``adapter.origin`` of the sweep's system: the directory the table's robot files
        (``mechanism.urdf``, a spatial file's robot) resolve from.
    """

    def __init__(self, base: dict, paths: dict, modes: list[str], unambiguous: bool, box,
                 derive: Callable[[dict], Mapping[str, Any]] | None = None, source: str = "<dict>") -> None:
        self.base, self.paths, self.modes, self.unambiguous, self.box = base, paths, modes, unambiguous, box
        self.derive, self.source = derive, source

    def overrides(self, params: Mapping[str, Any]) -> dict:
        """The varied values of a point and, with ``derive``, the derived ones.

        Parameters
        ----------
        params : Mapping[str, Any]
            Varied key → value at the point.

        Returns
        -------
        dict
            Key → value.
        """
        out = dict(params)
        if self.derive is not None:
            out.update(self.derive(dict(params)))
        return out

    def document(self, params: Mapping[str, Any]) -> dict:
        """The system table of a point.

        Parameters
        ----------
        params : Mapping[str, Any]
            Varied key → value at the point.

        Returns
        -------
        dict
            A copy of the base table with the point's values.
        """
        return apply_overrides(self.base, self.paths, self.overrides(params))

    def __call__(self, params: Mapping[str, Any]) -> dict:
        """The ``analyze`` fields of the point (``adapter.analyze_point``).

        Parameters
        ----------
        params : Mapping[str, Any]
            Varied key → value at the point.

        Returns
        -------
        dict
            JSON values (``contactmodes.sweep/1``'s point fields), the system's units.

        Raises
        ------
        ContactModelError
            When the loader rejects the point's table (the engine marks the point failed).
        """
        loaded = adapter.build_loaded(self.document(params), self.source)
        return adapter.analyze_point(loaded.system, self.modes, self.unambiguous, self.box, loaded.friction)


class AnalyzeRow:
    """Table columns of an ``analyze`` point: ``feasible_modes`` (space-separated),
    ``n_feasible_modes``, ``overlapping_pairs``, per mode ``M.feasible``, ``M.kinematically_feasible``,
    ``M.T_lo.<torque>``/``M.T_hi.<torque>`` and with ``--unambiguous`` ``M.unambiguous_lo.<torque>``,
    ``M.unambiguous_hi.<torque>``, ``M.unambiguous_measure``; with a box ``inconsistent_measure``;
    with a friction box ``M.exists_lo/hi.<torque>``, ``M.forall_lo/hi.<torque>`` and with
    ``--unambiguous`` ``M.robust_unambiguous_lo/hi.<torque>``, ``M.robust_unambiguous_measure``.
    NaN where not applicable (an empty set), ±inf where unbounded.

    Parameters
    ----------
    modes : list[str]
        The reported modes.
    torques : list[str]
        The torque names.
    unambiguous : bool
        Whether ``T*_c`` was reported.
    box : bool
        Whether an inconsistency box was given.
    """

    def __init__(self, modes: list[str], torques: list[str], unambiguous: bool, box: bool) -> None:
        self.modes, self.torques, self.unambiguous, self.box = modes, torques, unambiguous, box

    def _bounds(self, row: dict, prefix: str, box) -> None:
        for j, tau in enumerate(self.torques):
            lo = hi = math.nan
            if box is not None:
                lo = -math.inf if box[j][0] is None else box[j][0]
                hi = math.inf if box[j][1] is None else box[j][1]
            row[f"{prefix}_lo.{tau}"] = lo
            row[f"{prefix}_hi.{tau}"] = hi

    def __call__(self, point: dict) -> dict:
        """The table columns of one point document.

        Parameters
        ----------
        point : dict
            The point's document (``params``, ``ok``, ``error`` and the ``analyze`` fields).

        Returns
        -------
        dict
            Column → scalar (NaN where not applicable, ±inf where unbounded).
        """
        row: dict[str, Any] = {
            "feasible_modes": " ".join(point["feasible_modes"]),
            "n_feasible_modes": len(point["feasible_modes"]),
            "overlapping_pairs": point["overlapping_pairs"],
        }
        for m in self.modes:
            e = point["modes"][m]
            row[f"{m}.feasible"] = e["feasible"]
            row[f"{m}.kinematically_feasible"] = e["kinematically_feasible"]
            self._bounds(row, f"{m}.T", e["bounding_box"])
            if self.unambiguous:
                self._bounds(row, f"{m}.unambiguous", e["unambiguous_box"])
                row[f"{m}.unambiguous_measure"] = math.inf if e["unambiguous_measure"] is None else e["unambiguous_measure"]
            if "forall_box" in e:  # a friction box (docs/friction-intervals.md): T^∃, T^∀, robust T*_c
                self._bounds(row, f"{m}.exists", e["exists_box"])
                self._bounds(row, f"{m}.forall", e["forall_box"])
                if self.unambiguous:
                    self._bounds(row, f"{m}.robust_unambiguous", e["robust_unambiguous_box"])
                    value = e["robust_unambiguous_measure"]
                    row[f"{m}.robust_unambiguous_measure"] = math.inf if value is None else value
        if self.box:
            value = point["inconsistent_measure"]
            row["inconsistent_measure"] = math.inf if value is None else value
        return row


def torque_units(doc: Mapping[str, Any]) -> list[str]:
    """Unit of each actuator's input (``docs/system-file.md``).

    N on ``x``/``y`` of a floating base (a world force), N·m otherwise (a joint torque or a pure
    moment).

    Parameters
    ----------
    doc : Mapping[str, Any]
        A parsed system table.

    Returns
    -------
    list[str]
        One unit per actuator, in file order.
    """
    floating = doc.get("mechanism", {}).get("base", "floating") == "floating"
    return ["N" if floating and a.get("coordinate") in ("x", "y") else "N·m" for a in doc.get("actuators", [])]


def measure_unit(units: Sequence[str]) -> str:
    """Unit of a length/area/volume in the torque space: ``N·m``, ``(N·m)²``, ``N·(N·m)``…

    Parameters
    ----------
    units : Sequence[str]
        The unit of each torque.

    Returns
    -------
    str
        E.g. ``N·m``, ``(N·m)²``, ``N·(N·m)``.
    """
    if len(set(units)) == 1:
        u, n = units[0], len(units)
        if n == 1:
            return u
        return f"({u}){_SUPERSCRIPT.get(n, f'^{n}')}" if "·" in u else f"{u}{_SUPERSCRIPT.get(n, f'^{n}')}"
    return "·".join(f"({u})" if "·" in u else u for u in units)


def key_unit(doc: Mapping[str, Any], path: tuple) -> str | None:
    """Unit of the value at ``path`` of a system table (``docs/system-file.md``); ``None`` if unknown.

    Parameters
    ----------
    doc : Mapping[str, Any]
        A parsed system table.
    path : tuple
        A key path into it.

    Returns
    -------
    str or None
        The unit (``"m"``, ``"rad/s"``, ``"°"``, ``"kg"``, ...).
    """
    leaf = str(path[-1])
    if leaf.endswith("_deg"):
        return "°"
    if path[0] == "state" and len(path) == 3:
        floating = doc.get("mechanism", {}).get("base", "floating") == "floating"
        linear = floating and leaf in ("x", "y")
        return ("m" if linear else "rad") + ("/s" if path[1] == "qdot" else "")
    if any(str(c) in _LENGTH_KEYS for c in path):
        return "m"
    return _UNITS.get(leaf)


def _label(key: str, unit: str | None) -> str:
    return key if unit is None else f"{key} ({unit})"


def _blame(message: str, params: Mapping[str, Any], paths: Mapping[str, list]) -> str:
    """Prefix a loader message with the varied key it is about (or every key of the point)."""
    where = _BRACKET_RE.sub(r".\1", message.split(":", 1)[0].strip())
    for key, key_paths_ in paths.items():
        for p in key_paths_:
            text = path_text(p)
            if text == where or text.startswith(where + ".") or where.startswith(text + "."):
                return f"{key}={params[key]!r}: {message}"
    at = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"at {at}: {message}"


class AnalyzeKind(SweepKind):
    """``analyze``: the module doc."""

    name = "analyze"
    help = "analyse a system file over a grid of its values (modes, T_c, T*_c, inconsistency)"
    in_process_points = 64
    """A point takes 15 ms (two-link brace) to 0.4 s (six-link brace with ``--unambiguous``) here;
    64 of them are done before a ``LocalCluster`` has started and warmed up (``docs/sweeps.md``)."""

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("file", help="system file (TOML, see docs/system-file.md)")
        parser.add_argument("--mode", action="append", default=None, metavar="MODE",
                            help="report this mode (one letter S/L/R/F per contact); repeatable; "
                                 "default: the file's desired_mode")
        parser.add_argument("--unambiguous", action="store_true",
                            help="also report each mode's unambiguous set T*_c (bounding box, measure)")
        parser.add_argument("--inconsistency-box", metavar="LO:HI[,LO:HI...]", default=None,
                            help="measure the torques in this box with no solution; T*_c measures are taken in it")

    def options_from_args(self, args: argparse.Namespace) -> dict:
        return dict(system=args.file, modes=args.mode, unambiguous=args.unambiguous,
                    inconsistency_box=args.inconsistency_box)

    def prepare(self, grid: Grid, system=None, modes: Sequence[str] | None = None, unambiguous: bool = False,  # type: ignore[override]  # a kind takes its own options
                inconsistency_box=None, derive: Callable[[dict], Mapping[str, Any]] | None = None,
                progress=None) -> Prepared:
        """Validate and prepare (``SweepKind.prepare``).

        Parameters
        ----------
        grid : Grid
            The validated grid.
        system : str or pathlib.Path or Mapping[str, Any]
            A system-file path or parsed table (required).
        modes : Sequence[str], optional
            The modes to report (default: the file's ``desired_mode``).
        unambiguous : bool, optional
            Report each mode's ``T*_c`` (bounding box, measure).
        inconsistency_box : str or tuple[numpy.ndarray, numpy.ndarray], optional
            ``"LO:HI[,LO:HI...]"`` or ``(lo, hi)`` arrays ``(n_τ,)`` (N·m or N): measure the torques
            there with no solution; ``T*_c`` measures are taken in it.
        derive : Callable[[dict], Mapping[str, Any]], optional
            Python API only: a picklable ``derive(params) -> {key: value}`` of further keys computed
            from the varied values, e.g. the wall that moves with an elbow angle
            (``examples/sweep_brace_atlas.py``); its keys follow the same rules and may not be varied.
        progress : NullStage, optional
            A stage (``contactmodes.progress``) told of each point checked.

        Returns
        -------
        Prepared
            The runnable sweep.

        Raises
        ------
        SweepError
            Without ``system``, ``--unambiguous`` without a mode, a bad ``derive``, a bad key or box,
            or a point the loader rejects (naming the varied key).
        SystemFileError
            When the base file itself is invalid.
        """
        if system is None:
            raise SweepError("system: the analyze sweep needs a system file")
        base, source = adapter.load_document(system)
        derived = _derived_keys(grid, derive)
        paths = key_paths(base, list(grid.keys) + derived, create=True)
        where = adapter.origin(system)
        base_system = adapter.build_system(base, where)
        if modes is None:
            modes = [base["desired_mode"]] if isinstance(base.get("desired_mode"), str) else []
        modes = list(dict.fromkeys(adapter.check_modes(base_system, list(modes))))
        if unambiguous and not modes:
            raise SweepError("--unambiguous: no mode to report (give --mode; the file has no desired_mode)")
        torques = adapter.torque_names(base_system)
        box = _box(inconsistency_box, len(torques))
        point = AnalyzePoint(base, paths, modes, unambiguous, box, derive, where)
        for params in grid:
            try:
                adapter.build_system(point.document(params), where)
            except ContactModelError as exc:
                raise SweepError(_blame(str(exc), point.overrides(params), paths)) from None
            if progress is not None:
                progress.update(1)
        units = torque_units(base)
        return Prepared(
            evaluate=point,
            row=AnalyzeRow(modes, torques, unambiguous, box is not None),
            panels=_panels(modes, torques, units, unambiguous, box is not None),
            labels={k: _label(k, key_unit(base, paths[k][0])) for k in grid.keys},
            header={
                "system": source,
                "modes": modes,
                "torques": torques,
                "torque_units": units,
                "unambiguous": bool(unambiguous),
                "inconsistency_box": None if box is None else {"lo": box[0].tolist(), "hi": box[1].tolist()},
                "derived": derived,
            },
        )


def _derived_keys(grid: Grid, derive) -> list[str]:
    """The keys ``derive`` assigns over the grid (first-seen order); ``SweepError`` when it
    is not callable, returns no mapping, or assigns a varied key."""
    if derive is None:
        return []
    if not callable(derive):
        raise SweepError(f"derive: expected a function params -> {{key: value}}, got {derive!r}")
    keys: list[str] = []
    for params in grid:
        out = derive(dict(params))
        if not isinstance(out, Mapping):
            raise SweepError(f"derive: must return a mapping {{key: value}}, got {type(out).__name__}")
        for key in out:
            if key in grid.keys:
                raise SweepError(f"{key}: both varied and derived")
            if key not in keys:
                keys.append(key)
    return keys


def _box(value, n: int):
    if value is None:
        return None
    if isinstance(value, str):
        from contactmodes._command_line import UserError, parse_box

        try:
            return parse_box(value, n, "--inconsistency-box")
        except UserError as exc:
            raise SweepError(str(exc)) from None
    lo, hi = (np.asarray(v, dtype=float).reshape(-1) for v in value)
    if lo.shape != (n,) or hi.shape != (n,) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) \
            or np.any(lo > hi):
        raise SweepError(f"inconsistency_box: expected (lo, hi) with {n} finite values each, lo <= hi")
    return lo, hi


def _panels(modes, torques, units, unambiguous: bool, box: bool) -> list[Panel]:
    mu = measure_unit(units) if units else ""
    within = " in the box" if box else ""
    panels = [Panel("n_feasible_modes", "number of feasible modes"),
              Panel("overlapping_pairs", "overlapping mode pairs")]
    if box:
        panels.append(Panel("inconsistent_measure", "measure of torques with no solution", mu))
    for m in modes:
        panels.append(Panel(f"{m}.feasible", f"{m} feasible (1 = yes)"))
        for tau, unit in zip(torques, units):
            panels.append(Panel(f"{m}.T_lo.{tau}", f"lower bound of T_{m}, {tau}", unit))
            panels.append(Panel(f"{m}.T_hi.{tau}", f"upper bound of T_{m}, {tau}", unit))
        if unambiguous:
            for tau, unit in zip(torques, units):
                panels.append(Panel(f"{m}.unambiguous_lo.{tau}", f"lower bound of T*_{m}, {tau}", unit))
                panels.append(Panel(f"{m}.unambiguous_hi.{tau}", f"upper bound of T*_{m}, {tau}", unit))
            panels.append(Panel(f"{m}.unambiguous_measure", f"measure of T*_{m}{within}", mu))
    return panels


KIND = AnalyzeKind()
