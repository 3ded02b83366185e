"""Human-readable tables of an analysis result (the CLI's default output).

One row per kinematically feasible contact mode: the mode string, the rank case of the stacked
equality system (24) (cases 1–4 of Sec. III-D), ``dim w`` (null-space dimension), whether the mode
is feasible (non-empty ``D_c``), the per-torque bounds of ``T_c`` (its bounding box), the number of
facets (inequality rows of the minimal H-representation), the affine dimension of ``T_c``, and the
modes whose ``T_c`` overlaps this one. Then the overlapping pairs.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["format_bound", "format_table"]

#: Display only: numbers smaller than this in magnitude print as 0 (no "-0", no "1e-17").
DISPLAY_ZERO = 1e-12


def format_bound(lo: float, hi: float) -> str:
    """Format an interval ``[lo, hi]`` compactly, with ``-inf``/``inf`` for unbounded sides."""

    def one(v: float) -> str:
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{0.0 if abs(v) < DISPLAY_ZERO else v:.4g}"

    if math.isfinite(lo) and math.isfinite(hi) and abs(hi - lo) <= 1e-9 * max(1.0, abs(lo), abs(hi)):
        return f"={one(lo)}"
    return f"[{one(lo)}, {one(hi)}]"


def _render(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _pieces_cell(pieces: list) -> str:
    """``T*_c`` in one cell: ``none``, the interval(s) for one torque, else the piece count."""
    if not pieces:
        return "none"
    if pieces[0].dim == 1:
        return " ∪ ".join(format_bound(*(v[0] for v in p.bounding_box())) for p in pieces)
    return f"{len(pieces)} piece{'s' if len(pieces) > 1 else ''}"


def format_table(result: Any, unambiguous: dict | None = None, inconsistent: list | None = None) -> str:
    """Render an :class:`~contactmodes.analysis.AnalysisResult` as a plain-text table.

    Parameters
    ----------
    result : the object returned by :func:`contactmodes.analysis.analyze`.
    unambiguous : optional mode → :class:`~contactmodes.ambiguity.UnambiguousResult`; adds the
        column ``T*_c`` (intervals for one torque, else the number of convex pieces) and a list of
        ambiguity sources per mode.
    inconsistent : optional list of polytopes (torques with no solution); adds a section.

    Returns
    -------
    str : a header with the system and enumeration counts, the per-mode table, and the
    overlapping pairs ``T_c ∩ T_c'`` (mode ambiguities, Sec. III-G.1).
    """
    system = result.system
    enum = result.enumeration
    out = [
        f"system: {system.name or '(unnamed)'}   coordinates: {', '.join(system.coordinates)}",
        f"torques: {', '.join(system.torques) or '(none)'}   contacts: {', '.join(system.contacts)}",
        f"modes: {enum.total} total, {enum.after_velocity} after velocity pruning (Table III), "
        f"{enum.after_acceleration} after acceleration pruning (Sec. III-F)",
        "",
    ]
    header = ["mode", "case", "dim w", "w moves q̈", "feasible"]
    header += [f"{name} bounds" for name in system.torques]
    header += ["facets", "dim T_c", "overlaps"]
    if unambiguous is not None:
        header.append("T*_c")
    rows = [header]
    for mode, item in result.modes.items():
        resp = item.response
        row = [mode, str(resp.rank_case), str(resp.n_w), "yes" if resp.w_moves_accelerations else "no"]
        T = item.T
        if item.feasible and T is not None:
            lo, hi = T.bounding_box()
            row.append("yes")
            row += [format_bound(a, b) for a, b in zip(lo, hi)]
            row += [str(T.n_ineq), str(T.affine_dimension())]
        else:
            row.append("no")
            row += ["-"] * system.n_tau
            row += ["-", "-"]
        row.append(",".join(result.overlapping(mode)) or "-")
        if unambiguous is not None:
            u = unambiguous.get(mode)
            row.append("-" if u is None else _pieces_cell(u.unambiguous))
        rows.append(row)
    out.append(_render(rows))
    pairs = sorted(result.overlaps)
    out.append("")
    if pairs:
        out.append("overlapping pairs (mode ambiguities T_c ∩ T_c'):")
        for a, b in pairs:
            out.append(f"  {a} ∩ {b}")
    else:
        out.append("overlapping pairs: none")
    if unambiguous:
        out.append("")
        out.append("ambiguity sources of T_c (other modes; task:<i> = task row i violated within the mode):")
        for mode, u in unambiguous.items():
            names = [s.source + (" (boundary only)" if s.boundary_only else "") for s in u.sources]
            out.append(f"  {mode}: {', '.join(names) or 'none'}")
    if inconsistent is not None:
        out.append("")
        if inconsistent:
            out.append(f"inconsistent torques (no mode has a solution): {_pieces_cell(inconsistent)}")
        else:
            out.append("inconsistent torques (no mode has a solution): none in the box")
    return "\n".join(out)
