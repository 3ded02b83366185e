"""Human-readable tables of an analysis result (the CLI's default output), at most 100 columns wide.

One row per analysed contact mode: the mode string, the rank case of the stacked equality system
(24) (cases 1–4 of Sec. III-D), ``dim w`` (null-space dimension), ``w→q̈`` whether ``w`` moves
accelerations (III-G.2), whether the mode is feasible (non-empty ``D_c``), then

* up to three torques: the interval each torque ranges over in ``T_c`` (its bounding box:
  ``[lo, hi]``, ``<=hi`` or ``>=lo`` with one side unbounded, ``any``, or ``=v``), the number of
  facets (inequality rows of the minimal H-representation) and the affine dimension;
* more torques: the affine dimension, the facets, the Chebyshev centre and radius of ``T_c``
  (user units) and its *finite* bounds only (``tau1<=-0.19``; an unbounded side is omitted);

and the modes whose ``T_c`` overlaps this one (III-G.1; ``+N`` when the list does not fit; the
column is left out, with a note, when the other columns leave it no room). A cell wider than its
column is cut with ``…``; with more than :data:`MAX_ROWS` modes the table shows the
first ones and says how to see the rest, and shows for them only the bounds (from the bounding
boxes the analysis already has: no domain is projected for the table, which at thousands of modes
would cost minutes; ``--mode MODE`` gives the full columns).
Overlapping pairs are listed in full while there are at most ``list_limit`` of them, else
summarized with the hint ``--overlaps``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["MAX_ROWS", "WIDTH", "format_bound", "format_table"]

#: Display only: numbers smaller than this in magnitude print as 0 (no "-0", no "1e-17").
DISPLAY_ZERO = 1e-12
#: Target width of every line of the table (characters).
WIDTH = 100
#: Largest number of mode rows printed (the rest is summarized).
MAX_ROWS = 200


def _num(v: float) -> str:
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{0.0 if abs(v) < DISPLAY_ZERO else v:.4g}"


def format_bound(lo: float, hi: float) -> str:
    """Format an interval ``[lo, hi]`` compactly: ``=v`` (a single value), ``<=hi`` / ``>=lo`` (one
    side unbounded), ``any`` (both), else ``[lo, hi]``."""
    if math.isfinite(lo) and math.isfinite(hi) and abs(hi - lo) <= 1e-9 * max(1.0, abs(lo), abs(hi)):
        return f"={_num(lo)}"
    if not math.isfinite(lo) and not math.isfinite(hi):
        return "any"
    if not math.isfinite(lo):
        return f"<={_num(hi)}"
    if not math.isfinite(hi):
        return f">={_num(lo)}"
    return f"[{_num(lo)}, {_num(hi)}]"


def _finite_bounds(names, lo, hi) -> str:
    parts = []
    for name, a, b in zip(names, lo, hi):
        if math.isfinite(a) and math.isfinite(b):
            parts.append(f"{name}={_num(a)}" if abs(b - a) <= 1e-9 * max(1.0, abs(a), abs(b))
                         else f"{_num(a)}<={name}<={_num(b)}")
        elif math.isfinite(a):
            parts.append(f"{name}>={_num(a)}")
        elif math.isfinite(b):
            parts.append(f"{name}<={_num(b)}")
    return " ".join(parts) or "unbounded"


def _wrap(text: str) -> list[str]:
    """``text`` broken at commas into lines of at most :data:`WIDTH` (continuations indented)."""
    lines, parts = [], text.split(", ")
    line = parts[0]
    for part in parts[1:]:
        if len(line) + 2 + len(part) > WIDTH:
            lines.append(line + ",")
            line = "  " + part
        else:
            line += ", " + part
    return lines + [line]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _fit(rows: list[list[str]]) -> tuple[list[int], bool]:
    """Column widths so that a line fits :data:`WIDTH`: the widest columns are narrowed first (never
    below their header; the first column, the mode, never); returns the widths and whether some
    cell will be cut."""
    ncol = len(rows[0])
    widths = [max(len(r[i]) for r in rows) for i in range(ncol)]
    floor = [max(len(rows[0][i]), 4) for i in range(ncol)]
    floor[0] = widths[0]  # the mode string is never cut
    while sum(widths) + 2 * (ncol - 1) > WIDTH:
        i = max(range(ncol), key=lambda j: widths[j] - floor[j])
        if widths[i] <= floor[i]:
            break
        widths[i] -= 1
    cut = any(len(r[i]) > widths[i] for r in rows for i in range(ncol))
    return widths, cut


def _render(rows: list[list[str]], widths: list[int]) -> str:
    """Columns padded to ``widths``; longer cells cut with ``…``."""
    out = []
    for r in rows:
        cells = [_cut(c, w).ljust(w) for c, w in zip(r, widths)]
        out.append("  ".join(cells).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def _list_cell(names: list[str], width: int) -> str:
    """Comma list that fits ``width``, ending in ``+N`` for the names left out."""
    if not names:
        return "-"
    text = ""
    for i, name in enumerate(names):
        more = f",+{len(names) - i}"
        cand = name if not text else f"{text},{name}"
        rest = len(names) - i - 1
        if len(cand) + (len(f",+{rest}") if rest else 0) > width:
            return f"{text}{more}" if text else f"+{len(names)}"
        text = cand
    return text


def _pieces_cell(pieces: list) -> str:
    """``T*_c`` in one cell: ``none``, the interval(s) for one torque, else the piece count."""
    if not pieces:
        return "none"
    if pieces[0].dim == 1:
        return " ∪ ".join(format_bound(*(v[0] for v in p.bounding_box())) for p in pieces)
    return f"{len(pieces)} piece{'s' if len(pieces) > 1 else ''}"


def format_table(result: Any, unambiguous: dict | None = None, inconsistent: list | None = None,
                 at: tuple | None = None, list_limit: int | None = 40) -> str:
    """Render an :class:`~contactmodes.analysis.AnalysisResult` as a plain-text table (module doc),
    every line at most :data:`WIDTH` characters.

    Parameters
    ----------
    result : the object returned by :func:`contactmodes.analysis.analyze`.
    unambiguous : optional mode → :class:`~contactmodes.ambiguity.UnambiguousResult`; adds the
        column ``T*_c`` (intervals for one torque, else the number of convex pieces) and a list of
        ambiguity sources per mode.
    inconsistent : optional list of polytopes (torques with no solution); adds a section.
    at : optional ``(tau, modes)``: a torque (n_τ,) and the modes whose ``T_c`` contains it.
    list_limit : list the overlapping pairs in full up to this many (``None``: always).

    Returns
    -------
    str : a header with the system and enumeration counts, the per-mode table, and the
    overlapping pairs ``T_c ∩ T_c'`` (mode ambiguities, Sec. III-G.1) or their summary.
    """
    system = result.system
    enum = result.enumeration
    names = list(system.torques)
    n_tau = len(names)
    feasible = result.feasible_modes()
    out = [
        _cut(f"system: {system.name or '(unnamed)'}   coordinates: {', '.join(system.coordinates)}", WIDTH),
        _cut(f"torques: {', '.join(names) or '(none)'}   contacts: {', '.join(system.contacts)}", WIDTH),
        *_wrap(f"modes: {enum.total} total, {enum.after_velocity} after velocity pruning (Table III), "
               f"{enum.after_acceleration} after acceleration pruning (Sec. III-F)"),
        f"feasible: {len(feasible)} of the {len(result.modes)} analysed modes",
        "",
    ]
    wide = n_tau > 3
    # a large analysis (rows summarized) shows what the analysis already has — each T_c's
    # bounding box — and projects no domain for the table
    boxes_only = len(result.modes) > MAX_ROWS
    header = ["mode", "case", "dim w", "w→q̈", "feasible"]
    if boxes_only:
        header += ["finite bounds of T_c"] if wide else [f"{name} bounds" for name in names]
    else:
        header += ["dim T_c", "facets", "Chebyshev centre", "radius", "finite bounds"] if wide else \
            [f"{name} bounds" for name in names] + ["facets", "dim T_c"]
    if unambiguous is not None:
        header.append("T*_c")
    header.append("overlaps")
    rows = [header]
    shown = list(result.modes.items())[:MAX_ROWS]
    if not boxes_only:  # every shown T_c, its first LPs in shared batches
        result.session.prime_T([m for m, item in shown if item.feasible], result.task, user_units=True)
    for mode, item in shown:
        resp = item.response
        row = [mode, str(resp.rank_case), str(resp.n_w), "yes" if resp.w_moves_accelerations else "no"]
        if item.feasible and boxes_only:
            lo, hi = item.box
            row.append("yes")
            row += [_finite_bounds(names, lo, hi)] if wide else [format_bound(a, b) for a, b in zip(lo, hi)]
        elif item.feasible:
            T = item.T
            lo, hi = item.box
            row.append("yes")
            if wide:
                ball = T.chebyshev_center()
                row += [str(T.affine_dimension()), str(T.n_ineq),
                        _cut("(" + ", ".join(_num(c) for c in ball.center) + ")", 28), _num(ball.radius),
                        _cut(_finite_bounds(names, lo, hi), 30)]
            else:
                row += [format_bound(a, b) for a, b in zip(lo, hi)]
                row += [str(T.n_ineq), str(T.affine_dimension())]
        else:
            row.append("no")
            row += ["-"] * (len(header) - 5 - (unambiguous is not None) - 1)
        if unambiguous is not None:
            u = unambiguous.get(mode)
            row.append("-" if u is None else _pieces_cell(u.unambiguous))
        row.append("?" if result.overlaps is None and item.feasible else "")
        rows.append(row)
    # overlaps column last: fill it to the width left by the others; when the other columns leave
    # no room for it uncut, it is left out (the pairs follow the table) rather than cut numbers
    widths, cut_before = _fit([r[:-1] for r in rows])
    room = WIDTH - sum(widths) - 2 * (len(header) - 1)
    dropped = room < len("overlaps") and not cut_before
    if dropped:
        rows = [r[:-1] for r in rows]
    else:
        room = max(len("overlaps"), room)
        for r, (mode, _) in zip(rows[1:], shown):
            if r[-1] != "?":
                r[-1] = _list_cell(result.overlapping(mode), room)
    widths, cut = _fit(rows)
    out.append(_render(rows, widths))
    if cut:
        out.append("(cells cut with … to fit 100 columns; --json gives every set exactly)")
    if dropped:
        follow = "the overlapping pairs follow" if result.overlaps is not None else "see below"
        out.append(f"(no room for the overlaps column in 100 columns: {follow})")
    if len(result.modes) > len(shown):
        out.append(f"… {len(result.modes) - len(shown)} more modes not shown (give --mode MODE, or --json for all)")
    if boxes_only:
        out.append(f"(over {MAX_ROWS} modes: bounds from each T_c's bounding box, no T_c projected for the table;")
        out.append(" give --mode MODE for facets, dimension and Chebyshev centre)")
    out.append("")
    if result.overlaps is None:
        if result.candidate_pairs is None:
            out.append("overlapping pairs: not computed")
        else:
            out.append(f"overlapping pairs: {result.candidate_pairs} candidate pairs (bounding boxes meet) not tested")
            out.append("  (overlaps column '?'); give --overlaps to test and list them all")
    elif not result.overlaps:
        out.append("overlapping pairs: none")
    elif list_limit is not None and len(result.overlaps) > list_limit:
        involved = {m for pair in result.overlaps for m in pair}
        out.append(f"overlapping pairs (mode ambiguities T_c ∩ T_c'): {len(result.overlaps)} pairs among "
                   f"{len(involved)} modes;")
        out.append("  give --overlaps to list them all (or --json)")
    else:
        out.append("overlapping pairs (mode ambiguities T_c ∩ T_c'):")
        for a, b in sorted(result.overlaps):
            out.append(f"  {a} ∩ {b}")
    if unambiguous:
        out.append("")
        out.append("ambiguity sources of T_c (other modes; task:<i> = task row i violated within the mode):")
        for mode, u in unambiguous.items():
            srcs = [s.source + (" (boundary only)" if s.boundary_only else "") for s in u.sources]
            out.append(_cut(f"  {mode}: {', '.join(srcs) or 'none'}", WIDTH))
    if inconsistent is not None:
        out.append("")
        if inconsistent:
            out.append(f"inconsistent torques (no mode has a solution): {_pieces_cell(inconsistent)}")
        else:
            out.append("inconsistent torques (no mode has a solution): none in the box")
    if at is not None:
        tau, modes = at
        out.append("")
        point = ", ".join(f"{n}={_num(v)}" for n, v in zip(names, np.asarray(tau, dtype=float)))
        out.append(_cut(f"modes whose T_c contains ({point}): {', '.join(modes) or 'none'}", WIDTH))
    return "\n".join(out)
