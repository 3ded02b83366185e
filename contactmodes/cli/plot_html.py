"""``contactmodes plot FILE --html OUT.html``: the interactive page of the torque sets.

The ``plot`` command's ``run``: ``--output PNG`` draws the matplotlib picture
(``contactmodes.cli.plot``), ``--html OUT.html`` writes the page of
``contactmodes.output.html`` (both may be given; at least one). What the page holds:

* the drawn torques: ``--torques`` (one to three indices or names), default the first three;
* with more torques, the others are held at the slice point (``--at``, else the Chebyshev centre
  of the desired mode's ``T_c`` as for the PNG), and a slider per held torque moves it through
  ``SLIDER_STEPS`` values over the range the feasible sets span in that torque;
* every feasible mode's ``T_c`` (task constraints applied), the overlapping pairs
  (``analyze``'s overlaps, at most ``OVERLAP_LIMIT`` drawn), ``T*_c`` of the outlined modes
  (``--mode``, default as for the PNG) and the inconsistent torques of the plotting box (held
  torques over their slider range);
* below the figure, the robot at its state (``contactmodes.output.robot``).

The page is written through ``write_atomic`` (never onto the input file). Needs the ``plot``
extra (plotly, matplotlib): otherwise one line naming it, exit 2, nothing written.
"""

from __future__ import annotations

import argparse
import io

import numpy as np

from polytopes import Polytope

from contactmodes.cli import plot as cli_plot
from contactmodes.errors import ContactModelError

__all__ = ["run", "run_html", "set_view"]


def _axes(text: str | None, names: tuple[str, ...]) -> list[int]:
    """``--torques`` for the page: one to three distinct torques, default the first three."""
    return cli_plot._axes(text, names, 3, "with --html give one, two or three distinct torques")


def _held_range(domains, k: int, at: float) -> tuple[float, float]:
    """The range a slider moves held torque ``k`` over: the finite bounds of the feasible sets
    in that torque, widened by 10 % (a unit around ``at`` when none is finite)."""
    los, his = [], []
    for T in domains.values():
        lo, hi = T.bounding_box()
        if np.isfinite(lo[k]):
            los.append(lo[k])
        if np.isfinite(hi[k]):
            his.append(hi[k])
    a = min(los + his) if los + his else at - 1.0
    b = max(los + his) if los + his else at + 1.0
    if b - a <= 0:
        a, b = a - 1.0, b + 1.0
    pad = 0.1 * (b - a)
    return a - pad, b + pad


def set_view(args: argparse.Namespace):
    """The ``SetView`` the page draws for ``args``: file loaded, analysis gathered.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``plot`` options (``file``, ``torques``, ``at``, ``box``, ``mode``).

    Returns
    -------
    SetView
        Every set in all ``n_τ`` torques, the system's units.

    Raises
    ------
    ContactModelError
        On bad input (a bad file, an unknown torque, a bad slice point, a system without
        actuators).
    UserError
        On a ``--box`` range with ``LO >= HI``.
    """
    from contactmodes.analysis.analyze import analyze
    from contactmodes._command_line import UserError, parse_box
    from contactmodes.output.html import SLIDER_STEPS, SetView, Slice
    from contactmodes.output.plot import slice_domain, torque_units
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(args.file)
    system = loaded.system
    n = system.n_tau
    if n == 0:
        raise ContactModelError("--html: the system has no actuators: there is no torque to draw")
    axes = _axes(args.torques, system.torques)
    held = [k for k in range(n) if k not in axes]
    at = cli_plot._slice_point(args.at, n, axes) if held else None
    outlined = cli_plot._modes(args.mode, system.k)
    box = None
    if args.box:
        box = parse_box(args.box, len(axes), "--box")
        if np.any(box[0] >= box[1]):
            raise UserError("--box: every plotting range needs LO < HI")
    result = analyze(system, compute_overlaps=True)
    feasible = result.feasible_modes()
    assert result.session is not None  # analyze always keeps its session
    result.session.prime_T(feasible, True, user_units=True)
    domains: dict[str, Polytope] = {}
    for m in feasible:
        T = result.modes[m].T
        assert T is not None  # a feasible mode has its T_c
        domains[m] = T
    words = ""
    if held and at is None:
        at, words = cli_plot._default_slice_point(domains, loaded.desired_mode, n)
    elif held:
        words = "slice at --at"
    point0 = np.asarray(at if at is not None else np.zeros(n), dtype=float)  # (n_τ,) the slice point
    slices: list[Slice] = []
    if held:
        slices.append(Slice(point0))
        for k in held:
            a, b = _held_range(domains, k, float(point0[k]))
            for v in np.linspace(a, b, SLIDER_STEPS):
                point = point0.copy()
                point[k] = v
                slices.append(Slice(point, k, float(v)))
    if box is None:
        points = [sl.point for sl in slices] if slices else [None]
        sliced = [S for p in points for S in (slice_domain(T, axes, p) for T in domains.values()) if S is not None]
        box = cli_plot._default_box(sliced, len(axes))
    if outlined is None:
        if loaded.desired_mode in domains:
            outlined = [loaded.desired_mode]
        else:
            outlined = list(domains) if len(domains) <= cli_plot.MAX_DEFAULT_OUTLINED else []
    star = {m: list(u.unambiguous) for m, u in result.unambiguous_for([m for m in outlined if m in domains]).items()}
    lo = point0.copy()
    hi = lo.copy()
    lo[axes], hi[axes] = box
    for k in held:
        values = [sl.point[k] for sl in slices]
        lo[k], hi[k] = min(values), max(values)
    bad = list(result.inconsistent_in(lo, hi))
    overlaps = dict(result.overlaps.items()) if result.overlaps is not None else {}
    units = torque_units(loaded.mechanism)
    caption = []
    if held:
        caption.append(f"{words}: " + ", ".join(
            f"{system.torques[k]} = {point0[k]:.4g}" + (f" {units[system.torques[k]]}" if units.get(system.torques[k]) else "")
            for k in held) + "; the sliders move one held torque at a time")
    if system.constraints_of(("task",)):
        caption.append("T_c drawn with the task constraints")
    from contactmodes.output.html import OVERLAP_LIMIT

    if len(overlaps) > OVERLAP_LIMIT:
        caption.append(f"{OVERLAP_LIMIT} of {len(overlaps)} overlapping pairs drawn")
    return SetView(name=system.name, torques=list(system.torques), units=[units.get(t) for t in system.torques],
                   axes=axes, domains=domains, box=(np.asarray(box[0], float), np.asarray(box[1], float)),
                   slices=slices, unambiguous=star, overlaps=overlaps, inconsistent=bad,
                   caption="; ".join(caption))


def _robot_png(path: str) -> bytes | None:
    """The robot at the file's state as PNG bytes (``contactmodes.output.robot``)."""
    from contactmodes.output.robot import draw_robot_file

    fig = draw_robot_file(path)
    try:
        buf = io.BytesIO()
        fig.savefig(buf, dpi=100, format="png", bbox_inches="tight")
        return buf.getvalue()
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def run_html(args: argparse.Namespace) -> None:
    """Write the page ``args.html`` (nothing written on any error).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``plot`` options, ``html`` a ``.html`` path.

    Raises
    ------
    ContactModelError
        On bad input (``set_view``), or an ``--html`` that is not a ``.html`` file name or is
        refused.
    MissingExtraError
        Without plotly or matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require
    from contactmodes._command_line import check_output_path, write_atomic

    require("plotly", "plot", "plot --html")
    require("matplotlib", "plot", "plot --html")
    if not args.html.lower().endswith((".html", ".htm")):
        raise ContactModelError(f"--html: expected a .html file name, got {args.html!r}")
    check_output_path(args.html, [args.file], "--html")
    from contactmodes.output.html import page

    text = page(set_view(args), robot_png=_robot_png(args.file))

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    write_atomic(args.html, write, option="--html", inputs=[args.file])


def run(args: argparse.Namespace) -> None:
    """The ``plot`` command: the PNG (``--output``), the page (``--html``), or both.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``plot`` options.

    Raises
    ------
    ContactModelError
        Without ``--output`` and ``--html``, for more than two torques in a PNG, an ``--output``
        that is not a ``.png`` file name, or as ``run_html`` and ``contactmodes.cli.plot.run``.
    """
    if args.output is None and getattr(args, "html", None) is None:
        raise ContactModelError("--output: give --output PNG, --html HTML, or both")
    if args.output is not None and args.torques is not None and len(args.torques.split(",")) > 2:
        raise ContactModelError("--torques: the PNG draws one or two torques (three only with --html alone)")
    if args.output is not None and not args.output.lower().endswith(".png"):
        raise ContactModelError(f"--output: expected a .png file name, got {args.output!r}")
    if getattr(args, "html", None) is not None:
        run_html(args)
    if args.output is not None:
        cli_plot.run(args)
