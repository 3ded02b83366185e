"""Pictures of torque domains: every feasible mode's ``T_c`` in torque space (matplotlib, Agg).

For one torque the sets are intervals drawn as one thick horizontal bar per mode (one row per
mode, named on the axis); for two torques they are polygons; for more torques a 2-D slice
through a given point is drawn (the other torques held at the point's values; the caller states
the point in the title). Overlaps of two or more modes (mode ambiguities, Sec. III-G.1) are
hatched ``///`` in black, the unambiguous sets ``T*_c`` are outlined in black, and torques for
which no mode has a solution (inconsistency) are shaded red.

Telling modes apart
    Mode ``i`` (in the order given, ``PlotData.order``) gets the colour ``PALETTE[i % 20]``
    and the cue ``CUES[i // 20]``: a hatch pattern drawn in the mode's colour over its fill and
    a marker shape for its points and segment ends. The first 20 modes are told apart by colour
    alone, modes 20–39 repeat the colours with dots and squares, and so on: 120 modes are
    distinct (beyond that the styles repeat; three contacts have at most 4³ = 64 modes).
    The palette was chosen by a greedy max–min selection under CIEDE2000 on a 21³ sRGB grid
    (seeded with Tableau blue and green, then improved one colour at a time, then reordered so
    that the first colours are the familiar ones) subject to: lightness ``30 <= L* <= 72``
    (lines show on white and differ from the black outlines); ``ΔE00 >= 35`` from the
    inconsistency red and ``ΔE00 >= 22`` between a mode's fill and the red shading as drawn
    (both blended with white at their alphas). Any two palette colours differ by
    ``ΔE00 >= 10.3``, solid and as fills; ``tests/contactmodes/output/test_plot.py`` checks all of these with
    colour-science's CIEDE2000.
Lower-dimensional sets
    Sets of dimension 0 or 1 in the picture (a point, a segment: a "hold still" task, a slice
    through an edge) are drawn so they are seen: segments as lines ``SEGMENT_WIDTH`` points wide
    with the mode's marker at both ends, points as markers of ``POINT_SIZE`` points; an
    unambiguous piece of that kind is cased in black. In a 1-D picture an interval narrower than
    ``THIN_FRACTION`` of the axis also gets its marker.
Unbounded sets are clipped to the plotting box. In a 1-D picture a side of an interval that goes on
past the edge of the axis (to ±∞ when the set is unbounded there) ends in a black arrowhead at the
axis edge, and every finite end is labelled with its value (three significant digits; beside the
end, outside the bar, or at the arrow's tail when the end is past the edge). Overlaps are hatched
only where they have positive area (2-D) or length (1-D): overlaps of measure zero — two sets
touching along an edge — are not ambiguities under the closure convention of
``polytopes.regions`` and are not hatched. The legend is placed outside the axes (right of
them), never over the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes import tolerances
from contactmodes.errors import ContactModelError
from contactmodes.output.shapes import extreme_pair

__all__ = [
    "PlotData",
    "ModeStyle",
    "mode_style",
    "torque_units",
    "axis_label",
    "slice_domain",
    "draw_domains",
    "PALETTE",
    "CUES",
    "FILL_ALPHA",
    "INCONSISTENT_COLOUR",
    "INCONSISTENT_ALPHA",
]

#: mode colours (see the module docstring for how they were chosen and what is guaranteed)
PALETTE: tuple[str, ...] = (
    "#1f77b4", "#2ca02c", "#d99900", "#8c59f2", "#00bfa6", "#ff33ff", "#4d594d", "#664d00", "#99b3bf", "#8ca6f2",
    "#006666", "#b3a673", "#404d73", "#99b300", "#4d00ff", "#33590d", "#80b38c", "#1a40bf", "#1abfe6", "#80008c",
)
#: (hatch, marker) added to the colour for modes ``20 k … 20 k + 19``
CUES: tuple[tuple[str, str], ...] = (("", "o"), ("..", "s"), ("oo", "^"), ("++", "D"), ("**", "v"), ("OO", "P"))
#: opacity of a mode's fill (2-D sets and 1-D bars); lines and markers are opaque
FILL_ALPHA = 0.45
#: the shading of torques with no solution (no mode has one)
INCONSISTENT_COLOUR = "#ff0000"
INCONSISTENT_ALPHA = 0.2
#: the hatch of overlaps of positive measure (ambiguities), in black
OVERLAP_HATCH = "///"
#: the dashed lines of the torque limits (a system file's ``[control]`` table)
LIMIT_COLOUR = "0.25"
#: line width (points) of a 1-D set in a 2-D picture, and the black casing added for ``T*_c``
SEGMENT_WIDTH = 4.5
CASING_WIDTH = 3.0
#: marker size (points) of a 0-D set
POINT_SIZE = 10.0
#: dash length (points) when several modes share one segment: their dashes interleave
SEGMENT_DASH = 6.0
#: coincident points are drawn as concentric markers up to (1 + NEST_GROWTH) times POINT_SIZE
NEST_GROWTH = 1.5
#: in a 1-D picture, intervals narrower than this fraction of the axis also get their marker
THIN_FRACTION = 0.005
#: legend entries per column before another column is started
LEGEND_ROWS = 30
#: in a 1-D picture, length of the arrow marking a side that continues past the axis edge (fraction of the axis)
ARROW_FRACTION = 0.05


@dataclass(frozen=True)
class ModeStyle:
    """How one mode is drawn.

    Attributes
    ----------
    colour : str
        Hex colour.
    hatch : str
        matplotlib hatch pattern drawn in that colour over the fill (``""`` for none).
    marker : str
        matplotlib marker for points and segment ends.
    """

    colour: str
    hatch: str
    marker: str

    @property
    def fill(self) -> tuple[float, float, float, float]:
        """RGBA of the fill: ``colour`` at ``FILL_ALPHA``."""
        from matplotlib.colors import to_rgb

        return (*to_rgb(self.colour), FILL_ALPHA)


def mode_style(index: int) -> ModeStyle:
    """The style of the ``index``-th mode (0-based): colour ``PALETTE[index % 20]``, cue
    ``CUES[index // 20]`` (cycling after ``20 * len(CUES)`` modes).

    Parameters
    ----------
    index : int
        The mode's position (``>= 0``) in the drawing order.

    Returns
    -------
    ModeStyle
        Its colour, hatch and marker.

    Raises
    ------
    ValueError
        For a negative ``index``.
    """
    if index < 0:
        raise ValueError(f"index: must be >= 0, got {index}")
    hatch, marker = CUES[(index // len(PALETTE)) % len(CUES)]
    return ModeStyle(PALETTE[index % len(PALETTE)], hatch, marker)


def torque_units(mechanism) -> dict[str, str]:
    """Actuator name → unit of its generalized force, from the mechanism's structure.

    An actuator is a unit generalized force on one coordinate (the columns of
    ``mechanism.actuator_matrix()``); its unit is energy per unit of that coordinate: ``"N"``
    on the ``x``/``y`` position of a floating base (a force on the root frame origin), ``"N·m"``
    on the base angle ``theta`` and on every revolute joint angle (a moment or joint torque) —
    the same split into lengths and angles that system files use for ``<coord>_deg`` keys.

    Parameters
    ----------
    mechanism : PlanarMechanism
        ``PlanarMechanism`` (``LoadedSystem.mechanism``).

    Returns
    -------
    dict[str, str]
        Dict mapping each name of ``mechanism.actuators`` (= ``ContactSystem.torques``) to its unit.
    """
    from contactmodes.model.mechanism import FLOATING_COORDINATES

    linear = set(FLOATING_COORDINATES[:2]) if mechanism.base == "floating" else set()
    S = mechanism.actuator_matrix()
    units = {}
    for j, name in enumerate(mechanism.actuators):
        coordinate = mechanism.coordinates[int(np.argmax(np.abs(S[:, j])))]
        units[name] = "N" if coordinate in linear else "N·m"
    return units


def axis_label(name: str, unit: str | None) -> str:
    """``"tau1 (N·m)"``; just the name when the unit is not known.

    Parameters
    ----------
    name : str
        The torque's name.
    unit : str or None
        Its unit.

    Returns
    -------
    str
        The label.
    """
    return f"{name} ({unit})" if unit else name


@dataclass
class PlotData:
    """What ``draw_domains`` draws, already restricted to the plotted torques.

    Attributes
    ----------
    labels : Sequence[str]
        Names of the plotted torques (1 or 2).
    domains : Mapping[str, Polytope]
        Mode → ``T_c`` restricted to the plotted torques (Polytope of dim 1 or 2); modes
        whose set misses the slice are left out.
    unambiguous : Mapping[str, Sequence[Polytope]]
        Mode → list of pieces of ``T*_c`` (may be empty or missing).
    inconsistent : Sequence[Polytope]
        Pieces where no mode has a solution.
    box : tuple[numpy.ndarray, numpy.ndarray]
        ``(lo, hi)`` arrays of the plotted range.
    title : str
        Figure title (should state the slice point when there is one).
    caption : str
        Small text under the axes (e.g. what the white space means).
    units : Sequence[str | None]
        Unit of each plotted torque (``"N·m"``, ``"N"``) or ``None``; added to the axis labels.
    order : Sequence[str]
        Every mode in the order that fixes its style (default: the order of ``domains``).
        Give all feasible modes so that a mode keeps its colour from one slice to the next.
    limits : tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)`` of the plotted torques' limits (the file's ``[control]`` table; ±inf for
        none), drawn as dashed lines at the finite ends; ``None`` for none.
    """

    labels: Sequence[str]
    domains: Mapping[str, Polytope]
    unambiguous: Mapping[str, Sequence[Polytope]]
    inconsistent: Sequence[Polytope]
    box: tuple[np.ndarray, np.ndarray]
    title: str = ""
    caption: str = ""
    units: Sequence[str | None] = field(default_factory=tuple)
    order: Sequence[str] = field(default_factory=tuple)
    limits: tuple[np.ndarray, np.ndarray] | None = None

    def finite_limits(self) -> list[tuple[int, float]]:
        """``(axis, value)`` of every finite end of ``limits`` (axis 0 or 1)."""
        if self.limits is None:
            return []
        return [(k, float(v)) for end in self.limits for k, v in enumerate(np.asarray(end, dtype=float))
                if np.isfinite(v)]

    def styles(self) -> dict[str, ModeStyle]:
        """Mode → ``ModeStyle`` for every mode drawn."""
        order = list(self.order) + [m for m in self.domains if m not in self.order]
        return {m: mode_style(i) for i, m in enumerate(order)}

    def axis_labels(self) -> list[str]:
        """The axis labels with units."""
        units = list(self.units) + [None] * (len(self.labels) - len(self.units))
        return [axis_label(n, u) for n, u in zip(self.labels, units)]


def slice_domain(T: Polytope, axes: Sequence[int], at: np.ndarray | None) -> Polytope | None:
    """``T`` restricted to the coordinates ``axes``.

    A slice through ``at`` holding the other torques fixed, or ``T`` itself when ``axes`` covers
    every coordinate.

    Parameters
    ----------
    T : Polytope
        ``T_c`` over the ``n_τ`` torques (user units).
    axes : Sequence[int]
        The plotted torques.
    at : numpy.ndarray or None
        ``(n_τ,)`` the slice point (user units), needed when ``axes`` leaves torques out.

    Returns
    -------
    Polytope or None
        Over ``len(axes)`` coordinates; ``None`` when the slice is empty.

    Raises
    ------
    ContactModelError
        When a slice is needed but ``at`` is missing or of the wrong length.
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


# ------------------------------------------------------------------------------------------------
# 2-D pictures


@dataclass(frozen=True)
class _Shape:
    """A clipped set as drawn in the plane: ``dim`` 0, 1 or 2 and its points (k, 2) — the
    point, the segment's two ends, or the polygon's vertices counter-clockwise."""

    dim: int
    points: np.ndarray


def _shape(P: Polytope) -> _Shape:
    V = _polygon(P)
    dim = P.affine_dimension()
    if dim == 2 and len(V) >= 3:
        return _Shape(2, V)
    if dim == 1 or len(V) == 2:
        return _Shape(1, extreme_pair(V))
    return _Shape(0, V[:1])


def _coincident_groups(shapes: Mapping[str, _Shape], box) -> list[list[str]]:
    """Modes whose 0-D or 1-D sets are the same point or segment (to a millionth of the box),
    grouped in drawing order, so that a group can be drawn with every member visible."""
    lo, hi = (np.asarray(v, dtype=float) for v in box)
    groups: dict[tuple, list[str]] = {}
    for m, sh in shapes.items():
        if sh.dim == 2:
            continue
        u = np.round((sh.points - lo) / (hi - lo) * 1e6).astype(np.int64)
        key = (sh.dim,) + tuple(sorted(map(tuple, u.tolist())))
        groups.setdefault(key, []).append(m)
    return list(groups.values())


def _draw_low_2d(ax, group: Sequence[str], shapes: Mapping[str, _Shape], styles: Mapping[str, ModeStyle]) -> None:
    """Draw coincident segments (or points) of the modes in ``group``: a single segment as a
    thick line with the mode's marker at both ends; ``g`` coincident segments interleave dashes
    of ``SEGMENT_DASH`` points so each colour shows; ``g`` coincident points (and segment ends)
    as concentric markers, the outermost at most ``1 + NEST_GROWTH`` times the usual size."""
    g = len(group)
    for i, m in enumerate(group):
        st, E = styles[m], shapes[m].points
        grow = (g - 1 - i) / max(g - 1, 1) * min(0.5 * (g - 1), NEST_GROWTH)  # outermost first
        if shapes[m].dim == 1:
            dash = SEGMENT_DASH / SEGMENT_WIDTH  # matplotlib scales dashes by the line width
            ls = "-" if g == 1 else (i * dash, (dash, (g - 1) * dash))
            ax.plot(E[:, 0], E[:, 1], ls=ls, color=st.colour, lw=SEGMENT_WIDTH, solid_capstyle="butt",
                    dash_capstyle="butt", zorder=3)
            ax.plot(E[:, 0], E[:, 1], ls="none", marker=st.marker, color=st.colour,
                    ms=(0.75 + grow) * POINT_SIZE, mec="k", mew=0.6, zorder=3.5 + 0.01 * i)
        else:
            ax.plot(E[:, 0], E[:, 1], ls="none", marker=st.marker, color=st.colour,
                    ms=(1.0 + grow) * POINT_SIZE, mec="k", mew=0.8, zorder=4 + 0.01 * i)


def _outline_2d(ax, sh: _Shape) -> None:
    """Outline a piece of ``T*_c`` in black: a polygon's edge, a casing under a segment, a ring
    around a point."""
    from matplotlib.patches import Polygon

    if sh.dim == 2:
        ax.add_patch(Polygon(sh.points, closed=True, fill=False, edgecolor="k", lw=2, zorder=2))
    elif sh.dim == 1:
        ax.plot(sh.points[:, 0], sh.points[:, 1], "-", color="k", lw=SEGMENT_WIDTH + CASING_WIDTH,
                solid_capstyle="butt", zorder=2.9)
    else:
        ax.plot(sh.points[:, 0], sh.points[:, 1], ls="none", marker="o", mfc="none", mec="k", mew=2,
                ms=POINT_SIZE + CASING_WIDTH + 2, zorder=4.5)


def _shade_inconsistent_2d(ax, shapes: Sequence[_Shape]) -> None:
    """Shade the inconsistent pieces: the polygons as one compound path (so that overlapping
    pieces are not shaded twice), segments as red lines, points as red crosses."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    polygons = [Path(sh.points, closed=False) for sh in shapes if sh.dim == 2]
    if polygons:  # counter-clockwise polygons under the non-zero rule: the union, once
        ax.add_patch(PathPatch(Path.make_compound_path(*polygons), facecolor=INCONSISTENT_COLOUR,
                               alpha=INCONSISTENT_ALPHA, edgecolor="none", lw=0, zorder=0.5))
    for sh in shapes:
        if sh.dim == 1:
            ax.plot(sh.points[:, 0], sh.points[:, 1], "-", color=INCONSISTENT_COLOUR, alpha=0.6, lw=SEGMENT_WIDTH,
                    zorder=0.6)
        elif sh.dim == 0:
            ax.plot(sh.points[:, 0], sh.points[:, 1], ls="none", marker="X", color=INCONSISTENT_COLOUR,
                    ms=POINT_SIZE, zorder=0.6)


def _name_regions(ax, regions: Mapping[str, Polytope], box) -> None:
    """Write each full-dimensional region's mode at its Chebyshev centre (in the box scaled to
    the unit square) when the region is large enough to hold the text and the spot is free."""
    lo, hi = (np.asarray(v, dtype=float) for v in box)
    width = hi - lo
    placed: list[np.ndarray] = []
    for mode, P in regions.items():
        unit = Polytope(P.A * width, P.b - P.A @ lo, P.C * width, P.d - P.C @ lo)
        ball = unit.chebyshev_center()
        if not ball.radius >= 0.04:
            continue
        u = np.asarray(ball.center, dtype=float)
        if any(np.max(np.abs(u - v) / np.array([0.12, 0.05])) < 1 for v in placed):
            continue
        placed.append(u)
        x = lo + u * width
        ax.text(x[0], x[1], mode, ha="center", va="center", fontsize=8, color="0.1", zorder=5,
                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.75))


def _draw_2d(ax, data: PlotData, clipped: Mapping[str, Polytope], styles: Mapping[str, ModeStyle]) -> bool:
    """Draw a 2-D picture; returns whether any overlap was hatched."""
    from matplotlib.patches import Polygon

    shapes = {m: _shape(P) for m, P in clipped.items()}
    full = {m: clipped[m] for m, sh in shapes.items() if sh.dim == 2}
    for m in full:
        ax.add_patch(Polygon(shapes[m].points, closed=True, facecolor=styles[m].fill, edgecolor=styles[m].colour,
                             lw=1.2, hatch=styles[m].hatch, zorder=1))
    for group in _coincident_groups(shapes, data.box):
        _draw_low_2d(ax, group, shapes, styles)
    boxes = {m: P.bounding_box() for m, P in full.items()}
    names = list(full)
    overlaps = False
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if np.any(np.minimum(boxes[a][1], boxes[b][1]) <= np.maximum(boxes[a][0], boxes[b][0])):
                continue  # bounding boxes do not overlap with positive area
            inter = full[a].intersect(full[b])
            if inter.affine_dimension() == 2:  # measure-zero overlaps are not hatched
                ax.add_patch(Polygon(_polygon(inter.reduce()), closed=True, fill=False, hatch=OVERLAP_HATCH,
                                     edgecolor="k", lw=0, zorder=1.5))
                overlaps = True
    for m in clipped:
        for piece in data.unambiguous.get(m, []):
            P = _clip(piece, data.box)
            if P is not None:
                _outline_2d(ax, _shape(P))
    _shade_inconsistent_2d(ax, [_shape(P) for P in (_clip(p, data.box) for p in data.inconsistent) if P is not None])
    _name_regions(ax, full, data.box)
    for axis, value in data.finite_limits():
        (ax.axvline if axis == 0 else ax.axhline)(value, color=LIMIT_COLOUR, ls="--", lw=1.2, zorder=3)
    lo, hi = data.box
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    return overlaps


# ------------------------------------------------------------------------------------------------
# 1-D pictures


def _interval(P: Polytope) -> tuple[float, float]:
    a, b = P.bounding_box()
    return float(a[0]), float(b[0])


def _union(intervals: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of closed intervals as disjoint intervals, sorted."""
    merged: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _value_text(v: float, span: float) -> str:
    """An end's value as labelled: three significant digits, a true minus sign, and ``0`` for a
    value that is zero to ``DISPLAY_ZERO_RTOL`` of the axis (numerical noise such as −7e-16)."""
    if abs(v) <= tolerances.DISPLAY_ZERO_RTOL * span:
        return "0"
    return f"{v:.3g}".replace("-", "\u2212")


def _mark_ends_1d(ax, row: int, T: Polytope, a: float, b: float, box, marker: bool) -> tuple[bool, bool]:
    """Mark the ends of one row's interval ``[a, b]`` (``T`` clipped to ``box``): a side where
    ``T`` goes on past the axis edge gets an arrow whose head is at that edge (pointing out), and
    its value at the arrow's tail when that end is finite (a ``--box`` narrower than the set);
    every finite end of ``T`` inside the box gets its value beside it, outside the bar (one label
    when the two ends are one point). ``marker``: the row's marker is drawn at the centre (the
    labels keep clear of it). Returns whether (an unbounded side, a bounded side past the edge)
    was marked."""
    lo, hi = float(box[0][0]), float(box[1][0])
    span = hi - lo
    tlo, thi = (float(v[0]) for v in T.bounding_box())
    tol = tolerances.DISPLAY_ZERO_RTOL * span
    edge_coords = ax.get_yaxis_transform()  # x in axes fraction (0 left edge, 1 right), y in data
    unbounded = clipped = False
    for end, beyond, edge, sign in ((tlo, tlo < lo - tol, 0.0, 1.0), (thi, thi > hi + tol, 1.0, -1.0)):
        if beyond:
            ax.annotate("", xy=(edge, row), xycoords=edge_coords, xytext=(edge + sign * ARROW_FRACTION, row),
                        textcoords=edge_coords, zorder=4.2,
                        arrowprops=dict(arrowstyle="-|>,head_length=0.7,head_width=0.35", color="k", lw=1.6,
                                        shrinkA=0, shrinkB=0))
            unbounded |= not math.isfinite(end)
            if math.isfinite(end):  # bounded, past the edge: its value at the arrow's tail
                clipped = True
                ax.annotate(_value_text(end, span), xy=(edge + sign * ARROW_FRACTION, row), xycoords=edge_coords,
                            xytext=(sign * 3.0, 0.0), textcoords="offset points", ha="left" if sign > 0 else "right",
                            va="center", fontsize=8, color="0.15", zorder=4.3, annotation_clip=False)
    gap = 4.0 + (0.5 * POINT_SIZE if marker else 0.0)  # points between an end and its label
    ends = []
    if math.isfinite(tlo) and tlo >= lo - tol:
        ends.append((a, -1.0))
    if math.isfinite(thi) and thi <= hi + tol and not (ends and b - a <= tol):
        ends.append((b, 1.0))
    if len(ends) == 1 and b - a <= tol:  # a point: one label, right of its marker
        ends = [(0.5 * (a + b), 1.0)]
    for x, side in ends:
        # outside the bar, unless that would leave the axes (then just inside the end)
        room = (hi - x) if side > 0 else (x - lo)
        if room < 0.1 * span:
            side = -side
        ax.annotate(_value_text(x, span), xy=(x, row), xytext=(side * gap, 0.0), textcoords="offset points",
                    ha="left" if side > 0 else "right", va="center", fontsize=8, color="0.15", zorder=4.3,
                    annotation_clip=False)
    return unbounded, clipped


def _draw_1d(ax, data: PlotData, clipped: Mapping[str, Polytope],
             styles: Mapping[str, ModeStyle]) -> tuple[bool, bool, bool]:
    """Draw a 1-D picture (one row per mode); returns whether any overlap was hatched, any
    unbounded side and any bounded side past the axis edge was marked with an arrow."""
    from matplotlib.patches import Rectangle

    lo, hi = data.box
    span = float(hi[0] - lo[0])
    rows = list(clipped)
    spans = {m: _interval(clipped[m]) for m in rows}
    overlaps = unbounded = beyond = False
    for row, m in enumerate(rows):
        st = styles[m]
        a, b = spans[m]
        if b > a:
            ax.add_patch(Rectangle((a, row - 0.3), b - a, 0.6, facecolor=st.fill, edgecolor=st.colour, lw=1.2,
                                   hatch=st.hatch, zorder=1))
        thin = b - a < THIN_FRACTION * span
        if thin:  # a point, or too narrow to see: add the marker
            ax.plot([0.5 * (a + b)], [row], ls="none", marker=st.marker, color=st.colour, ms=POINT_SIZE,
                    mec="k", mew=0.8, zorder=4)
        u, c = _mark_ends_1d(ax, row, data.domains[m], a, b, data.box, thin)
        unbounded, beyond = unbounded or u, beyond or c
        for other in rows:  # overlaps of positive length with other modes, hatched
            c, d = max(a, spans[other][0]), min(b, spans[other][1])
            if other == m or d <= c or clipped[m].intersect(clipped[other]).affine_dimension() < 1:
                continue
            ax.add_patch(Rectangle((c, row - 0.3), d - c, 0.6, fill=False, hatch=OVERLAP_HATCH,
                                   edgecolor="k", lw=0, zorder=1.5))
            overlaps = True
        for piece in data.unambiguous.get(m, []):
            P = _clip(piece, data.box)
            if P is None:
                continue
            c, d = _interval(P)
            if d > c:
                ax.add_patch(Rectangle((c, row - 0.36), d - c, 0.72, fill=False, edgecolor="k", lw=2, zorder=2))
            else:
                ax.plot([c], [row], ls="none", marker="o", mfc="none", mec="k", mew=2,
                        ms=POINT_SIZE + CASING_WIDTH + 2, zorder=4.1)
    for c, d in _union([_interval(P) for P in (_clip(p, data.box) for p in data.inconsistent) if P is not None]):
        if d > c:  # the union of the pieces, so that overlapping pieces are not shaded twice
            ax.axvspan(c, d, color=INCONSISTENT_COLOUR, alpha=INCONSISTENT_ALPHA, lw=0, zorder=0.5)
        else:
            ax.axvline(c, color=INCONSISTENT_COLOUR, alpha=0.6, lw=SEGMENT_WIDTH, zorder=0.5)
    for _, value in data.finite_limits():
        ax.axvline(value, color=LIMIT_COLOUR, ls="--", lw=1.2, zorder=3)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    ax.set_ylim(len(rows) - 0.4, -0.6)  # first mode on top, as in the legend and the table
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylabel("contact mode")
    return overlaps, unbounded, beyond


# ------------------------------------------------------------------------------------------------


def _legend_handles(data: PlotData, modes: Sequence[str], styles: Mapping[str, ModeStyle], one_d: bool,
                    overlaps: bool, arrows: tuple[bool, bool] = (False, False)):
    """(handles, labels) of the legend: one entry per drawn mode (a fill with the mode's hatch
    and marker; left out in 1-D pictures, whose rows are named), then the keys of the marks.
    ``arrows``: whether a 1-D picture marked (an unbounded side, a bounded side past the axis edge)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, labels = [], []
    if not one_d:
        for m in modes:
            st = styles[m]
            handles.append((Patch(facecolor=st.fill, edgecolor=st.colour, hatch=st.hatch, lw=1.2),
                            Line2D([], [], ls="none", marker=st.marker, color=st.colour, mec="k", mew=0.6, ms=6)))
            labels.append(m)
    if overlaps:
        handles.append(Patch(fill=False, hatch=OVERLAP_HATCH, edgecolor="k", lw=0.5))
        labels.append("overlap (ambiguous)")
    if any(data.unambiguous.get(m) for m in modes):
        handles.append(Patch(fill=False, edgecolor="k", lw=2))
        labels.append("unambiguous T*_c")
    if data.inconsistent:
        handles.append(Patch(facecolor=INCONSISTENT_COLOUR, alpha=INCONSISTENT_ALPHA, edgecolor="none"))
        labels.append("no solution")
    if data.finite_limits():
        handles.append(Line2D([], [], color=LIMIT_COLOUR, ls="--", lw=1.2))
        labels.append("torque limits ([control])")
    if any(arrows):
        handles.append(Line2D([], [], ls="none", marker="$\u2192$", color="k", ms=12))
        labels.append({(True, False): "unbounded: continues to ±∞",
                       (False, True): "continues past the axis edge",
                       (True, True): "continues past the axis edge\n(to ±∞ where no end is labelled)"}[arrows])
    return handles, labels


def draw_domains(data: PlotData):
    """Draw ``data`` on a new matplotlib figure (Agg backend) and return the figure.

    One plotted torque: one row per mode, intervals as bars, points as markers, a side that goes on
    past the axis edge arrowed and every finite end labelled with its value. Two: polygons,
    segments and points in the plane of the two torques, each full-dimensional region named at its
    Chebyshev centre when it has room. The axis labels carry ``PlotData.units``; the legend (modes in
    the order of ``data.domains``, then the keys) sits right of the axes.

    Parameters
    ----------
    data : PlotData
        What to draw (1 or 2 torques).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (the caller saves or closes it).

    Raises
    ------
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require

    require("matplotlib", "plot", "draw_domains")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.legend_handler import HandlerTuple

    styles = data.styles()
    clipped = {m: P for m, P in ((m, _clip(T, data.box)) for m, T in data.domains.items()) if P is not None}
    modes = list(clipped)
    one_d = len(data.labels) == 1
    n_entries = (0 if one_d else len(modes)) + 3
    ncol = max(1, math.ceil(n_entries / LEGEND_ROWS))
    if one_d:
        fig, ax = plt.subplots(figsize=(7.5 + 1.8 * ncol, max(2.4, 1.3 + 0.32 * len(modes))))
        overlaps, *arrows = _draw_1d(ax, data, clipped, styles)
    else:
        arrows = (False, False)
        fig, ax = plt.subplots(figsize=(6.0 + 1.5 * ncol, 6.5))
        overlaps = _draw_2d(ax, data, clipped, styles)
        ax.set_ylabel(data.axis_labels()[1])
        ax.set_aspect("auto")
    ax.set_xlabel(data.axis_labels()[0])
    handles, labels = _legend_handles(data, modes, styles, one_d, overlaps, tuple(arrows))
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=8,
              frameon=False, ncol=ncol, handler_map={tuple: HandlerTuple(ndivide=1)})
    ax.set_title(data.title, fontsize=10)
    if data.caption:
        fig.text(0.01, 0.01, data.caption, fontsize=8, va="bottom", ha="left", color="0.25", wrap=True)
    fig.tight_layout(rect=(0, 0.05 if data.caption else 0, 1, 1))
    return fig
