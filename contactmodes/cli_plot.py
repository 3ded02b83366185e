"""``contactmodes plot FILE [--mode MODE ...] --output PNG [--torques I,J] [--at V,...] [--box LO:HI,...]``.

Draws every feasible mode's torque domain ``T_c`` (task constraints applied, as in ``analyze``),
overlaps hatched, the unambiguous sets ``T*_c`` of the chosen modes outlined, and the torques
with no solution at all (no mode, no task constraints) shaded red.

Decisions: ``--mode`` chooses whose ``T*_c`` is outlined (default: the file's ``desired_mode`` if
it has one, else every feasible mode when there are at most 12); the plotting box defaults to
the finite bounds of all ``T_c`` widened by 25 % (unbounded sides get the same width again);
with more than two torques, the picture is the slice through ``--at`` holding the other torques
fixed (default: the Chebyshev center of the desired mode's ``T_c``, else of the first feasible
mode's — a lower-dimensional ``T_c`` may then show as a point or a segment).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from polytopes import Polytope

from .errors import ContactModelError

MAX_DEFAULT_OUTLINED = 12


def add_parser(sub) -> argparse.ArgumentParser:
    """Register the ``plot`` subcommand on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser("plot", help="draw the torque domains of every feasible mode (PNG)")
    p.add_argument("file", help="system file (TOML)")
    p.add_argument("--output", required=True, metavar="PNG", help="image file to write")
    p.add_argument("--mode", action="append", default=None, metavar="MODE",
                   help="outline the unambiguous set of this mode (repeatable)")
    p.add_argument("--torques", default=None, metavar="I[,J]",
                   help="indices or names of the one or two torques to draw (default: the first two)")
    p.add_argument("--at", default=None, metavar="V,...",
                   help="point (all torques) the 2-D slice passes through when there are more than two")
    p.add_argument("--box", default=None, metavar="LO:HI[,LO:HI]", help="plotting range of the drawn torques")
    return p


def _parse_floats(text: str, field: str) -> np.ndarray:
    try:
        values = np.array([float(v) for v in text.split(",")])
    except ValueError:
        raise ContactModelError(f"{field}: expected comma-separated numbers, got {text!r}") from None
    if not np.all(np.isfinite(values)):
        raise ContactModelError(f"{field}: values must be finite, got {text!r}")
    return values


def _axes(text: str | None, names: tuple[str, ...]) -> list[int]:
    if text is None:
        return list(range(min(2, len(names))))
    axes = []
    for token in text.split(","):
        token = token.strip()
        if token in names:
            axes.append(names.index(token))
        elif token.isdigit() and int(token) < len(names):
            axes.append(int(token))
        else:
            raise ContactModelError(f"--torques: unknown torque {token!r} (torques: {list(names)})")
    if not 1 <= len(axes) <= 2 or len(set(axes)) != len(axes):
        raise ContactModelError("--torques: give one or two distinct torques")
    return axes


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


def _default_slice_point(result, desired: str | None, n: int) -> np.ndarray:
    """Chebyshev center of the desired mode's ``T_c`` (else of the first feasible mode's), so
    that the default slice passes through a set that exists; zeros when no mode is feasible."""
    feasible = result.feasible_modes()
    if not feasible:
        return np.zeros(n)
    mode = desired if desired in feasible else feasible[0]
    return np.asarray(result.modes[mode].T.chebyshev_center().center, dtype=float)


def run(args: argparse.Namespace) -> None:
    """Compute and write the picture; raises ContactModelError on bad input (nothing written)."""
    from .ambiguity import inconsistent, unambiguous
    from .analysis import analyze
    from .cliutil import UserError, check_output_path, parse_box, write_atomic
    from .io import load_system
    from .plot import PlotData, draw_domains, slice_domain
    from .session import AnalysisSession

    if not args.output.lower().endswith(".png"):
        raise ContactModelError(f"--output: expected a .png file name, got {args.output!r}")
    check_output_path(args.output, [args.file])
    loaded = load_system(args.file)
    system = loaded.system
    axes = _axes(args.torques, system.torques)
    n = system.n_tau
    at = None if args.at is None else _parse_floats(args.at, "--at")
    if at is not None and len(at) != n:
        raise ContactModelError(f"--at: expected {n} values, got {len(at)}")
    session = AnalysisSession(system)  # one enumeration, one domain per mode for everything below
    result = analyze(system, compute_overlaps=False, session=session)
    feasible = result.feasible_modes()
    if n > len(axes) and at is None:
        at = _default_slice_point(result, loaded.desired_mode, n)
    outlined = args.mode
    if outlined is None:
        if loaded.desired_mode and loaded.desired_mode in feasible:
            outlined = [loaded.desired_mode]
        else:
            outlined = feasible if len(feasible) <= MAX_DEFAULT_OUTLINED else []
    for m in outlined:
        if m not in result.modes and len(m) == system.k:
            continue
        if len(m) != system.k or any(c not in "SLRF" for c in m):
            raise ContactModelError(f"--mode: {m!r} is not a contact mode of {system.k} contacts")

    domains = {}
    for m in feasible:
        S = slice_domain(result.modes[m].T, axes, at)
        if S is not None:
            domains[m] = S
    if args.box:
        box = parse_box(args.box, len(axes), "--box")
        if np.any(box[0] >= box[1]):
            raise UserError("--box: every plotting range needs LO < HI")
    else:
        box = _default_box(list(domains.values()), len(axes))
    star = {}
    for m in outlined:
        pieces = unambiguous(session, m).unambiguous
        star[m] = [s for s in (slice_domain(p, axes, at) for p in pieces) if s is not None]
    lo_full = np.array(at if at is not None else np.zeros(n), dtype=float)
    hi_full = lo_full.copy()
    lo_full[axes], hi_full[axes] = box
    gaps = inconsistent(session, lo_full, hi_full)
    bad = [s for s in (slice_domain(p, axes, at) for p in gaps) if s is not None]
    title = f"{system.name}: torque domains T_c"
    if n > len(axes):
        title += "\n(slice at " + ", ".join(f"{system.torques[k]}={at[k]:g}" for k in range(n) if k not in axes) + ")"
    caption = ""
    if system.constraints_of(("task",)):
        caption = ("T_c drawn with the task constraints; white: the model has solutions there, but none "
                   "meets the task constraints (red: no solution at all)")
    fig = draw_domains(PlotData([system.torques[k] for k in axes], domains, star, bad, box, title, caption))
    try:
        write_atomic(args.output, lambda tmp: fig.savefig(tmp, dpi=120, format="png"), inputs=[args.file])
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
