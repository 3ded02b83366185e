"""``contactmodes plot FILE --output PNG [--mode MODE ...] [--torques I[,J]] [--at V,...] [--box LO:HI[,LO:HI]]``.

Draws every feasible mode's torque domain ``T_c`` (task constraints applied, as in ``analyze``),
overlaps hatched, the unambiguous sets ``T*_c`` of the chosen modes outlined, and the torques
with no solution at all (no mode, no task constraints) shaded red. How modes are told apart and
how lower-dimensional sets are drawn: ``contactmodes.output.plot``.

Decisions
    * ``--mode`` chooses whose ``T*_c`` is outlined (default: the file's ``desired_mode`` if it
      is feasible, else every feasible mode when there are at most 12).
    * Units on the axes come from the mechanism (``contactmodes.output.plot.torque_units``): an
      actuator on a revolute joint or on a floating base's angle is a torque (N·m), one on a
      floating base's ``x``/``y`` a force (N).
    * With more torques than drawn, the picture is the slice through a point holding the other
      torques fixed. The point is ``--at`` (one value per torque, or one per held torque), else
      the Chebyshev centre of the desired mode's ``T_c`` (else of the first feasible mode's), so
      that the slice passes through the middle of a set that exists; the title says which and
      gives the held values with their units. A lower-dimensional ``T_c`` may then show as a
      point or a segment; feasible modes whose set misses the slice are counted in the caption.
    * The plotting box: ``--box``; else, when the file's ``[control]`` limits bound every drawn
      torque (both ends finite, at the file's velocity for a torque–speed line), those limits
      widened by ``LIMIT_MARGIN`` of their width on each side and drawn dashed — the torques the
      robot can make, however far the sets' corners lie (a biped's sets have corners at ±1500
      N·m, its actuators ±60 N·m, and the sets' own extents hid the desired mode); else the
      finite bounds of all drawn sets widened by 25 % (unbounded sides get the same width
      again). With limits, the default slice point is the Chebyshev centre of the desired
      mode's ``T_c`` within the limits (``T_c ∩ L``, when they meet), so that the slice passes
      through torques the robot can make.
    * Negative values follow their option with a space or with ``=`` (``--box -2:6,-2:8``,
      ``--at=-1,2``): see ``contactmodes.cli``.

The analysis itself is gathered in ``_gather`` (the only calls to ``analyze``,
``unambiguous`` and ``inconsistent``); everything else here is option handling and the wording of
the picture. ``plot_data`` returns what would be drawn, for tests and scripts.
"""

from __future__ import annotations

import argparse
import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes.errors import ContactModelError

MAX_DEFAULT_OUTLINED = 12
#: the plotting range around the file's torque limits: this fraction of their width on each side
LIMIT_MARGIN = 0.15
#: width (characters) at which the title's slice line is wrapped
TITLE_WIDTH = 72

DESCRIPTION = """\
Draw the torque domain T_c of every feasible contact mode for one or two torques (PNG):
overlaps of modes (ambiguities) hatched, the unambiguous sets T*_c of the chosen modes
outlined in black, torques with no solution at all shaded red. With more torques than
drawn, the picture is a 2-D (or 1-D) slice through a point that holds the other torques
fixed: --at, or by default the Chebyshev centre of the desired mode's T_c (else of the
first feasible mode's); the title states the point."""

EPILOG = """\
Negative values may follow an option with a space or '=': --box -2:6,-2:8, --at=-1,2.
Axis units: N·m for a joint torque or a moment on a floating base's angle, N for a force
on a floating base's x or y."""


def add_parser(sub) -> argparse.ArgumentParser:
    """Register the ``plot`` subcommand on ``sub`` (an argparse subparsers object).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``plot`` parser.
    """
    p = sub.add_parser("plot", help="draw the torque domains of every feasible mode (PNG)",
                       description=DESCRIPTION, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="system file (TOML)")
    p.add_argument("--output", default=None, metavar="PNG", help="image file to write (this, --html, or both)")
    p.add_argument("--html", default=None, metavar="HTML",
                   help="also (or instead) write an interactive page: 1-3 torques, 3-D hulls, sliders for the "
                        "other torques, the robot at its state (contactmodes.cli.plot_html; needs the plot extra)")
    p.add_argument("--mode", action="append", default=None, metavar="MODE",
                   help="outline the unambiguous set T*_c of this mode (repeatable; default: the file's "
                        "desired_mode, else every feasible mode if there are at most 12)")
    p.add_argument("--torques", default=None, metavar="I[,J]",
                   help="indices or names of the one or two torques to draw (default: the first two)")
    p.add_argument("--at", default=None, metavar="V,...",
                   help="the point the slice passes through when there are more torques than drawn: one value "
                        "per torque (those of the drawn torques are ignored) or one per held torque, in torque "
                        "order (default: the Chebyshev centre of the desired mode's T_c, else of the first "
                        "feasible mode's)")
    p.add_argument("--box", default=None, metavar="LO:HI[,LO:HI]",
                   help="plotting range of each drawn torque (default: the file's [control] limits of the drawn "
                        "torques widened by 15%%, drawn dashed; without them the sets' finite bounds widened "
                        "by 25%%)")
    return p


def _axes(text: str | None, names: tuple[str, ...], most: int = 2,
          rule: str = "give one or two distinct torques") -> list[int]:
    """``--torques``: one to ``most`` distinct torques by name or index, default the first
    ``most``; ``rule`` is the error's wording of that limit."""
    if text is None:
        return list(range(min(most, len(names))))
    axes = []
    for token in text.split(","):
        token = token.strip()
        if token in names:
            axes.append(names.index(token))
        elif token.isdigit() and int(token) < len(names):
            axes.append(int(token))
        else:
            raise ContactModelError(f"--torques: unknown torque {token!r} (torques: {list(names)})")
    if not 1 <= len(axes) <= most or len(set(axes)) != len(axes):
        raise ContactModelError(f"--torques: {rule}")
    return axes


def _slice_point(text: str | None, n: int, axes: Sequence[int]) -> np.ndarray | None:
    """``--at`` as a full (n,) point: ``n`` values, or one per held torque (the drawn ones set
    to 0, they are not used). ``None`` when not given."""
    if text is None:
        return None
    held = [k for k in range(n) if k not in axes]
    if not held:
        raise ContactModelError("--at: every torque is drawn; there is no other torque to hold fixed")
    from contactmodes._command_line import parse_floats

    values = parse_floats(text, None, "--at")
    if len(values) == n:
        return values
    if len(values) == len(held):
        at = np.zeros(n)
        at[held] = values
        return at
    raise ContactModelError(f"--at: expected {n} values (one per torque) or {len(held)} (one per held torque), "
                            f"got {len(values)}")


def _modes(requested: Sequence[str] | None, k: int) -> list[str] | None:
    """Check ``--mode`` values (one letter of SLRF per contact); ``None`` when not given."""
    if requested is None:
        return None
    for m in requested:
        if len(m) != k or any(c not in "SLRF" for c in m):
            raise ContactModelError(f"--mode: {m!r} is not a contact mode of {k} contacts")
    return list(requested)


def _default_box(domains: list[Polytope], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The finite bounds of all ``domains`` widened by 25 %; sides where some set is unbounded
    are pushed out by one more width so the unbounded direction shows."""
    boxes = [T.bounding_box() for T in domains]
    finite = [np.where(np.isfinite(v), v, np.nan) for box in boxes for v in box]
    with warnings.catch_warnings():  # a coordinate unbounded in every set is an all-NaN column
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanmin(finite, axis=0) if finite else np.full(n, np.nan)
        hi = np.nanmax(finite, axis=0) if finite else np.full(n, np.nan)
    lo = np.where(np.isfinite(lo), lo, -1.0)
    hi = np.where(np.isfinite(hi), hi, 1.0)
    width = np.maximum(hi - lo, np.maximum(1.0, 0.5 * (np.abs(lo) + np.abs(hi))))
    open_low = np.array([any(not np.isfinite(b[0][i]) for b in boxes) for i in range(n)], dtype=float)
    open_high = np.array([any(not np.isfinite(b[1][i]) for b in boxes) for i in range(n)], dtype=float)
    return lo - (0.25 + open_low) * width, hi + (0.25 + open_high) * width


def _limits_box(limits: tuple[np.ndarray, np.ndarray] | None, axes: Sequence[int]
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """The plotting box around the torque limits ``(lo, hi)`` (n_τ,) of the drawn torques
    ``axes``: widened by ``LIMIT_MARGIN`` of their width each side (by ``LIMIT_MARGIN`` of their
    magnitude, at least 1, for a limit that leaves one value); ``None`` unless both ends of every
    drawn torque are finite."""
    if limits is None:
        return None
    lo, hi = (np.asarray(v, dtype=float)[list(axes)] for v in limits)
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        return None
    width = np.where(hi > lo, hi - lo, np.maximum(1.0, np.abs(lo)))
    return lo - LIMIT_MARGIN * width, hi + LIMIT_MARGIN * width


def _default_slice_point(domains: Mapping[str, Polytope], desired: str | None, n: int,
                         limits: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, str]:
    """Chebyshev center of the desired mode's ``T_c`` (else of the first feasible mode's), so
    that the default slice passes through a set that exists — of ``T_c ∩ L`` when the torque
    limits ``(lo, hi)`` (n_τ,, ±inf for none) are given and meet it; zeros when no mode is
    feasible. Returns the point (n,) and the words for the title."""
    if not domains:
        return np.zeros(n), "slice at 0 (no feasible mode)"
    mode = desired if desired in domains else next(iter(domains))
    which = "desired mode" if mode == desired else "first feasible mode"
    T = domains[mode]
    if limits is not None and np.any(np.isfinite(limits[0]) | np.isfinite(limits[1])):
        within = T.intersect(_limit_set(limits))
        if not within.is_empty():
            point = np.asarray(within.chebyshev_center().center, dtype=float)
            return point, f"slice through the Chebyshev centre of T_{mode} ({which}) within the torque limits"
    point = np.asarray(T.chebyshev_center().center, dtype=float)
    return point, f"slice through the Chebyshev centre of T_{mode} ({which})"


def _limit_set(limits: tuple[np.ndarray, np.ndarray]) -> Polytope:
    """``{τ : lo <= τ <= hi}`` of ``limits`` (n_τ,) each, ±inf for none
    (``contactmodes.control.limits.limit_polytope``)."""
    from contactmodes.control.limits import TorqueLimit, limit_polytope

    names = [str(k) for k in range(len(limits[0]))]
    return limit_polytope({name: TorqueLimit(lo, hi) for name, lo, hi in zip(names, *limits)}, names)


def file_limits(loaded) -> tuple[np.ndarray, np.ndarray] | None:
    """The torque limits ``(lo, hi)`` (n_τ,, ±inf for none) of a loaded system file's
    ``[control]`` table at its velocity (a torque–speed line at the file's ``q̇``); ``None``
    without limits.

    Parameters
    ----------
    loaded : LoadedSystem
        The loaded file (``contactmodes.system_file.loader.load_system_file``).

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)``, each ``(n_τ,)``, the system's units.
    """
    spec = getattr(loaded, "control", None)
    if spec is None or not spec.limits:
        return None
    from contactmodes.control.limits import actuator_speeds

    system = loaded.system
    omega = actuator_speeds(system.S, loaded.qdot)
    lo, hi = np.full(system.n_tau, -np.inf), np.full(system.n_tau, np.inf)
    for k, name in enumerate(system.torques):
        limit = spec.limits.get(name)
        if limit is not None:
            lo[k], hi[k] = limit.bounds(float(omega[k]))
    return lo, hi


@dataclass
class Gathered:
    """The analysis a picture needs (everything in all n_τ torques).

    Attributes
    ----------
    domains : dict[str, Polytope]
        Feasible mode → ``T_c`` (task constraints applied), in ``AnalysisResult.feasible_modes``
        order.
    unambiguous : dict[str, list[Polytope]]
        Outlined mode → pieces of ``T*_c``.
    inconsistent : list[Polytope]
        Pieces of the torque box with no solution at all.
    """

    domains: dict[str, Polytope]
    unambiguous: dict[str, list[Polytope]]
    inconsistent: list[Polytope]


def _gather(system, choose: Callable[[Mapping[str, Polytope]], tuple[list[str], np.ndarray, np.ndarray]]) -> Gathered:
    """Run the analysis: every feasible mode's ``T_c``, then — once ``choose(domains)`` has
    picked the modes to outline and the (n_τ,) torque box ``lo``, ``hi`` shown — their ``T*_c``
    and the inconsistent torques in that box. The one place that calls the analysis."""
    from contactmodes.analysis.analyze import analyze

    result = analyze(system, compute_overlaps=False)  # one session: one domain per mode for all three
    result.session.prime_T(result.feasible_modes(), True, user_units=True)  # their LPs in shared batches
    domains = {m: result.modes[m].T for m in result.feasible_modes()}
    outlined, lo, hi = choose(domains)
    star = {m: list(u.unambiguous) for m, u in result.unambiguous_for(outlined).items()}
    return Gathered(domains, star, list(result.inconsistent_in(lo, hi)))


@dataclass
class _View:
    """The option handling of one picture: what is drawn, where, and the words for it.

    ``choose`` (given to ``_gather``) fixes the slice point, the sliced sets, the plotting
    box and the outlined modes; ``data`` turns the gathered sets into ``PlotData``.
    """

    system: object
    desired: str | None
    axes: list[int]
    at: np.ndarray | None
    box: tuple[np.ndarray, np.ndarray] | None
    outlined: list[str] | None
    limits: tuple[np.ndarray, np.ndarray] | None = None
    slice_words: str = ""
    sliced: dict[str, Polytope] = field(default_factory=dict)
    box_from_limits: bool = False

    @property
    def held(self) -> list[int]:
        return [k for k in range(self.system.n_tau) if k not in self.axes]

    def choose(self, domains: Mapping[str, Polytope]) -> tuple[list[str], np.ndarray, np.ndarray]:
        from contactmodes.output.plot import slice_domain

        n = self.system.n_tau
        if self.held and self.at is None:
            self.at, self.slice_words = _default_slice_point(domains, self.desired, n, self.limits)
        elif self.held:
            self.slice_words = "slice at --at"
        for m, T in domains.items():
            S = slice_domain(T, self.axes, self.at)
            if S is not None:
                self.sliced[m] = S
        if self.box is None:
            self.box = _limits_box(self.limits, self.axes)
            self.box_from_limits = self.box is not None
        if self.box is None:
            self.box = _default_box(list(self.sliced.values()), len(self.axes))
        if self.outlined is None:
            if self.desired in domains:
                self.outlined = [self.desired]
            else:
                self.outlined = list(domains) if len(domains) <= MAX_DEFAULT_OUTLINED else []
        lo = np.array(self.at if self.at is not None else np.zeros(n), dtype=float)
        hi = lo.copy()
        lo[self.axes], hi[self.axes] = self.box
        return self.outlined, lo, hi

    def title(self, units: Sequence[str | None]) -> str:
        title = f"{self.system.name}: torque domains T_c"
        if not self.held:
            return title
        names = self.system.torques
        items = [f"{names[k]} = {self.at[k]:.4g}" + (f" {units[k]}" if units[k] else "") for k in self.held]
        import textwrap

        lines = textwrap.wrap(self.slice_words + ":", TITLE_WIDTH)  # a long slice line wrapped between words
        for item in items:  # wrapped between the held torques, never inside one
            if len(lines[-1]) + 2 + len(item) <= TITLE_WIDTH:
                lines[-1] += (" " if lines[-1].endswith(":") else ", ") + item
            else:
                lines[-1] += "" if lines[-1].endswith(":") else ","
                lines.append(item)
        return title + "\n" + "\n".join(lines)

    def caption(self, n_feasible: int) -> str:
        lines = []
        if self.held and len(self.sliced) < n_feasible:
            lines.append(f"{len(self.sliced)} of the {n_feasible} feasible modes meet this slice; "
                         "choose another with --at")
        if self.box_from_limits:
            lines.append("range: the file's [control] torque limits (dashed) widened by "
                         f"{LIMIT_MARGIN:.0%}; --box sets another")
        if self.system.constraints_of(("task",)):
            lines.append("T_c drawn with the task constraints; white: the model has solutions there, but none "
                         "meets the task constraints (red: no solution at all)")
        return "\n".join(lines)

    def data(self, gathered: Gathered, units: Mapping[str, str]):
        from contactmodes.output.plot import PlotData, slice_domain

        torque_units = [units.get(t) for t in self.system.torques]
        star = {m: [s for s in (slice_domain(p, self.axes, self.at) for p in pieces) if s is not None]
                for m, pieces in gathered.unambiguous.items()}
        bad = [s for s in (slice_domain(p, self.axes, self.at) for p in gathered.inconsistent) if s is not None]
        return PlotData(
            labels=[self.system.torques[k] for k in self.axes],
            domains=self.sliced,
            unambiguous=star,
            inconsistent=bad,
            box=self.box,
            title=self.title(torque_units),
            caption=self.caption(len(gathered.domains)),
            units=[torque_units[k] for k in self.axes],
            order=list(gathered.domains),
            limits=None if self.limits is None else tuple(np.asarray(v)[self.axes] for v in self.limits),
        )


def plot_data(args: argparse.Namespace):
    """What ``run`` draws, as ``PlotData``.

    The file loaded, the options checked, the analysis gathered and sliced, the title, caption and
    units worded (torques in the system's units).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``plot`` options (``file``, ``torques``, ``at``, ``box``, ``mode``).

    Returns
    -------
    PlotData
        The sets restricted to the drawn torques.

    Raises
    ------
    ContactModelError
        On bad input (a bad file, an unknown torque, a bad slice point, a system without
        actuators).
    UserError
        On a ``--box`` range with ``LO >= HI``.
    """
    from contactmodes._command_line import UserError, parse_box
    from contactmodes.system_file.loader import load_system_file
    from contactmodes.output.plot import torque_units

    loaded = load_system_file(args.file, mu_intervals=True)  # mu = [lo, hi]: docs/friction-intervals.md
    system = loaded.system
    if system.n_tau == 0:  # T_c in R^0: nothing to draw; the table says which modes are consistent
        raise ContactModelError("torques: the system has no actuators: there is no torque to draw "
                                "(contactmodes analyze FILE lists the consistent modes)")
    axes = _axes(args.torques, system.torques)
    box = None
    if args.box:
        box = parse_box(args.box, len(axes), "--box")
        if np.any(box[0] >= box[1]):
            raise UserError("--box: every plotting range needs LO < HI")
    view = _View(system, loaded.desired_mode, axes, _slice_point(args.at, system.n_tau, axes), box,
                 _modes(args.mode, system.k), file_limits(loaded))
    if loaded.friction is not None:  # T_c^E filled, robust T*_c outlined (contactmodes.output.friction_sets)
        from dataclasses import replace

        from contactmodes.output.friction_sets import CAPTION, gather_over_friction

        data = view.data(Gathered(*gather_over_friction(system, loaded.friction, view.choose)),
                         torque_units(loaded.mechanism))
        return replace(data, caption="\n".join(filter(None, [CAPTION, data.caption])),
                       title=data.title.replace("torque domains T_c", "torque domains T_c^E (mu known to intervals)", 1))
    return view.data(_gather(system, view.choose), torque_units(loaded.mechanism))


def run(args: argparse.Namespace) -> None:
    """Compute and write the picture (nothing written on any error).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``plot`` options, ``output`` a ``.png`` path.

    Raises
    ------
    ContactModelError
        On bad input (``plot_data``), or an ``--output`` that is not a ``.png`` file name or is
        refused.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require
    from contactmodes._command_line import check_output_path, write_atomic

    require("matplotlib", "plot", "plot")
    from contactmodes.output.plot import draw_domains

    if not args.output.lower().endswith(".png"):
        raise ContactModelError(f"--output: expected a .png file name, got {args.output!r}")
    check_output_path(args.output, [args.file])
    fig = draw_domains(plot_data(args))
    try:
        write_atomic(args.output, lambda tmp: fig.savefig(tmp, dpi=120, format="png"), inputs=[args.file])
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
