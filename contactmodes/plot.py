"""Pictures of torque domains: every feasible mode's ``T_c`` in torque space (matplotlib, Agg).

For one torque the sets are intervals drawn as one horizontal bar per mode; for two torques they
are polygons; for more torques a 2-D slice through a given point is drawn (the other torques held
at the point's values). Overlaps of two or more modes (mode ambiguities, Sec. III-G.1) are
hatched, the unambiguous sets ``T*_c`` are outlined in black, and torques for which no mode has a
solution (inconsistency) are shaded red.

Unbounded sets are clipped to the plotting box; lower-dimensional sets (points, segments) are
drawn as markers and lines. Overlaps are hatched only where they have positive area (2-D) or
length (1-D): overlaps of measure zero — two sets touching along an edge — are not ambiguities
under the closure convention of :mod:`polytopes.regions` and are not hatched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from polytopes import Polytope

from .errors import ContactModelError

__all__ = ["PlotData", "slice_domain", "draw_domains"]

#: colours of the modes, cycled
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#d62728")


@dataclass
class PlotData:
    """What :func:`draw_domains` draws, already restricted to the plotted torques.

    Attributes
    ----------
    labels : names of the plotted torques (1 or 2).
    domains : mode → ``T_c`` restricted to the plotted torques (Polytope of dim 1 or 2).
    unambiguous : mode → list of pieces of ``T*_c`` (may be empty or missing).
    inconsistent : pieces where no mode has a solution.
    box : (lo, hi) arrays of the plotted range.
    title : figure title.
    caption : a line of small text under the axes (e.g. what the white space means).
    """

    labels: Sequence[str]
    domains: Mapping[str, Polytope]
    unambiguous: Mapping[str, Sequence[Polytope]]
    inconsistent: Sequence[Polytope]
    box: tuple[np.ndarray, np.ndarray]
    title: str = ""
    caption: str = ""


def slice_domain(T: Polytope, axes: Sequence[int], at: np.ndarray | None) -> Polytope | None:
    """``T`` restricted to the coordinates ``axes``: a slice through ``at`` (n_τ,) holding the
    other torques fixed, or ``T`` itself when ``axes`` covers every coordinate.

    Returns ``None`` when the slice is empty. Raises :class:`ContactModelError` when a slice is
    needed but ``at`` is missing or of the wrong length.
    """
    n = T.dim
    others = [k for k in range(n) if k not in axes]
    if others:
        if at is None or len(at) != n:
            raise ContactModelError(f"--at: a point with {n} torque values is needed to slice {n}-D sets")
        C = np.zeros((len(others), n))
        C[np.arange(len(others)), others] = 1.0
        T = T.intersect(Polytope(np.zeros((0, n)), np.zeros(0), C, np.asarray(at, float)[others]))
    if T.is_empty():
        return None
    return T.project(list(axes)) if others or list(axes) != list(range(n)) else T


def _clip(P: Polytope, box) -> Polytope | None:
    lo, hi = box
    Q = P.intersect(Polytope.box(lo, hi))
    return None if Q.is_empty() else Q


def _polygon(P: Polytope) -> np.ndarray:
    """Vertices of a bounded 2-D set in counter-clockwise order (k, 2)."""
    V = P.vertices().vertices
    if len(V) <= 2:
        return V
    c = V.mean(axis=0)
    return V[np.argsort(np.arctan2(V[:, 1] - c[1], V[:, 0] - c[0]))]


def _draw_2d(ax, P: Polytope, **style) -> None:
    V = _polygon(P)
    if len(V) == 1:
        ax.plot(V[:, 0], V[:, 1], "o", color=style.get("edgecolor", style.get("facecolor")), ms=5)
    elif len(V) == 2 or P.affine_dimension() < 2:
        ax.plot(V[:, 0], V[:, 1], "-", color=style.get("edgecolor", style.get("facecolor")), lw=2.5)
    else:
        from matplotlib.patches import Polygon

        ax.add_patch(Polygon(V, closed=True, **style))


def draw_domains(data: PlotData):
    """Draw ``data`` on a new matplotlib figure (Agg backend) and return the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    modes = list(data.domains)
    colour = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(modes)}
    lo, hi = data.box
    clipped = {m: _clip(T, data.box) for m, T in data.domains.items()}
    if len(data.labels) == 1:
        fig, ax = plt.subplots(figsize=(9, 1.2 + 0.45 * max(1, len(modes))))
        for row, m in enumerate(modes):
            T = clipped[m]
            if T is None:
                continue
            a, b = T.bounding_box()
            a, b = float(a[0]), float(b[0])
            ax.add_patch(Rectangle((a, row - 0.3), max(b - a, 1e-9), 0.6, facecolor=colour[m], alpha=0.6,
                                   edgecolor=colour[m]))
            if b - a <= 1e-9 * max(1.0, abs(a)):
                ax.plot([a], [row], "o", color=colour[m])
            # overlaps with other modes, hatched
            for other in modes:
                if other == m or clipped[other] is None:
                    continue
                inter = T.intersect(clipped[other])
                if inter.affine_dimension() == 1:
                    c, d = inter.bounding_box()
                    ax.add_patch(Rectangle((float(c[0]), row - 0.3), max(float(d[0] - c[0]), 1e-9), 0.6,
                                           fill=False, hatch="///", edgecolor="k", lw=0))
            for piece in data.unambiguous.get(m, []):
                P = _clip(piece, data.box)
                if P is not None:
                    c, d = P.bounding_box()
                    ax.add_patch(Rectangle((float(c[0]), row - 0.36), max(float(d[0] - c[0]), 1e-9), 0.72,
                                           fill=False, edgecolor="k", lw=2))
        for piece in data.inconsistent:
            P = _clip(piece, data.box)
            if P is not None:
                c, d = P.bounding_box()
                ax.axvspan(float(c[0]), float(d[0]), color="red", alpha=0.15, lw=0)
        ax.set_yticks(range(len(modes)))
        ax.set_yticklabels(modes)
        ax.set_ylim(-0.7, len(modes) - 0.3)
        ax.set_xlim(lo[0], hi[0])
        ax.set_xlabel(data.labels[0])
        ax.set_ylabel("contact mode")
    else:
        fig, ax = plt.subplots(figsize=(7.5, 6.5))
        for m in modes:
            if clipped[m] is not None:
                _draw_2d(ax, clipped[m], facecolor=colour[m], alpha=0.35, edgecolor=colour[m], lw=1.2)
        for i, a in enumerate(modes):
            for b in modes[i + 1:]:
                if clipped[a] is None or clipped[b] is None:
                    continue
                inter = clipped[a].intersect(clipped[b])
                if inter.affine_dimension() == 2:  # measure-zero overlaps are not hatched
                    _draw_2d(ax, inter.reduce(), fill=False, hatch="///", edgecolor="k", lw=0.5)
        for m in modes:
            for piece in data.unambiguous.get(m, []):
                P = _clip(piece, data.box)
                if P is not None:
                    _draw_2d(ax, P, fill=False, edgecolor="k", lw=2)
        for piece in data.inconsistent:
            P = _clip(piece, data.box)
            if P is not None:
                _draw_2d(ax, P, facecolor="red", alpha=0.2, edgecolor="none", lw=0)
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_xlabel(data.labels[0])
        ax.set_ylabel(data.labels[1])
        ax.set_aspect("auto")
    handles = [Patch(facecolor=colour[m], alpha=0.6, label=m) for m in modes if clipped[m] is not None]
    handles.append(Patch(fill=False, hatch="///", label="overlap (ambiguous)"))
    if any(data.unambiguous.get(m) for m in modes):
        handles.append(Patch(fill=False, edgecolor="k", lw=2, label="unambiguous T*_c"))
    if data.inconsistent:
        handles.append(Patch(facecolor="red", alpha=0.2, label="no solution"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.set_title(data.title)
    if data.caption:
        fig.text(0.01, 0.005, data.caption, fontsize=7, va="bottom", ha="left", color="0.3")
    fig.tight_layout(rect=(0, 0.03 if data.caption else 0, 1, 1))
    return fig
