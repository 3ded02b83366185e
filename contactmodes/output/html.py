"""Interactive torque sets: one self-contained HTML page (plotly, its JavaScript inline).

The page of ``contactmodes plot FILE --html OUT.html`` shows every feasible mode's torque set
``T_c`` in one, two or three drawn torques (user units on every axis):

* one torque: each mode's interval as a thick bar on its own row (points as markers);
* two torques: polygons (filled), segments (thick lines) and points (markers);
* three torques: rotatable hulls (``Mesh3d``, from ``scipy.spatial.ConvexHull`` on the
  polytope's vertices); a flat set as a flat polygon (a triangle fan), a segment or a point as a
  thick 3-D line or a marker, so that lower-dimensional sets are seen.

One trace per feasible mode and slice, coloured as in the PNG pictures (``contactmodes.output.plot.PALETTE``,
in analysis order), in the legend group of its mode. Hovering a mode shows its name, the
dimension of ``T_c`` (and of the drawn slice), the bounds of ``T_c`` in every torque and its
Chebyshev centre. Overlaps of positive measure (ambiguities; the pairs' ``T_a ∩ T_b``),
the unambiguous sets ``T*_c`` and the torques with no solution at all (inconsistent, red) are
traces of their own legend groups (``"overlaps"``, ``"unambiguous"``, ``"inconsistent"``):
a click on a legend entry hides or shows the whole group. In 3-D the overlaps and the
inconsistent torques start hidden (``HIDDEN_IN_3D``: their volumes would hide the modes).

With more torques than drawn, the others are held at a slice point (``SetView.slices``): the
first slice is the default one (the point chosen as for the PNG pictures); each held torque
gets a slider whose steps move that torque through ``SLIDER_STEPS`` values while the others stay
at the slice point. Every trace carries ``meta = {"kind", "mode", "slice"}`` (``kind`` one of
``"mode"``, ``"overlap"``, ``"unambiguous"``, ``"inconsistent"``) so that scripts and tests can
find them in the page (``document.querySelector('.plotly-graph-div').data``).

Sets are clipped to the plotting box; overlaps of measure zero (sets touching along a face) are
not ambiguities (the closure convention of ``polytopes.regions``) and are not drawn.
"""

from __future__ import annotations

import base64
import html as _html
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes.output.plot import INCONSISTENT_COLOUR, FILL_ALPHA, axis_label, mode_style, slice_domain
from contactmodes.output.shapes import Shape, shape_of

__all__ = ["SetView", "Slice", "figure_dict", "mode_hover", "page", "SLIDER_STEPS", "OVERLAP_LIMIT"]

#: values of a held torque on its slider (the slice point's own value is added)
SLIDER_STEPS = 7
#: at most this many overlapping pairs are drawn (the rest are counted in the caption)
OVERLAP_LIMIT = 300
#: colour of overlaps and of the outline of ``T*_c``
OVERLAP_COLOUR = "#000000"
UNAMBIGUOUS_COLOUR = "#111111"
#: in 3-D these groups start hidden (legend entry only: a click shows them); their volumes hide the modes
HIDDEN_IN_3D = ("overlap", "inconsistent")
LINE_WIDTH = 6
MARKER_SIZE = 9


@dataclass(frozen=True)
class Slice:
    """A slice through the torque space.

    Attributes
    ----------
    point : numpy.ndarray
        ``(n_τ,)`` (user units): holds the torques that are not drawn.
    held : int or None
        The index of the torque a slider moves (``None`` for the default slice).
    value : float or None
        The held torque's value at this step (user units).
    """

    point: np.ndarray
    held: int | None = None
    value: float | None = None


@dataclass
class SetView:
    """What the page draws (everything in all ``n_τ`` torques, user units).

    Attributes
    ----------
    name : str
        The system's name (page title).
    torques : Sequence[str]
        Names of the ``n_τ`` torques.
    units : Sequence[str | None]
        Unit of each torque (``"N·m"``, ``"N"``) or ``None``.
    axes : Sequence[int]
        The 1, 2 or 3 drawn torques.
    domains : Mapping[str, Polytope]
        Feasible mode → ``T_c`` (dimension ``n_τ``), in analysis order (it fixes the colours).
    box : tuple[numpy.ndarray, numpy.ndarray]
        ``(lo, hi)``, each ``(len(axes),)``: the plotting box of the drawn torques.
    slices : Sequence[Slice]
        The default slice first, then the slider steps (empty or one slice when every torque is drawn).
    unambiguous : Mapping[str, Sequence[Polytope]]
        Mode → pieces of ``T*_c`` (dimension ``n_τ``).
    overlaps : Mapping[tuple[str, str], Polytope]
        Overlapping pair → ``T_a ∩ T_b`` (dimension ``n_τ``).
    inconsistent : Sequence[Polytope]
        Pieces of torques with no solution at all (dimension ``n_τ``).
    caption : str
        Text under the figure (what the slice is, what was left out).
    """

    name: str
    torques: Sequence[str]
    units: Sequence[str | None]
    axes: Sequence[int]
    domains: Mapping[str, Polytope]
    box: tuple[np.ndarray, np.ndarray]
    slices: Sequence[Slice] = field(default_factory=list)
    unambiguous: Mapping[str, Sequence[Polytope]] = field(default_factory=dict)
    overlaps: Mapping[tuple[str, str], Polytope] = field(default_factory=dict)
    inconsistent: Sequence[Polytope] = field(default_factory=list)
    caption: str = ""

    @property
    def n_tau(self) -> int:
        return len(self.torques)

    def labels(self) -> list[str]:
        """Axis titles of the drawn torques, with units (``"tau1 (N·m)"``)."""
        return [axis_label(self.torques[k], self.units[k]) for k in self.axes]

    def slice_list(self) -> list[Slice]:
        """``slices``, or the one trivial slice when every torque is drawn."""
        if self.slices:
            return list(self.slices)
        return [Slice(np.zeros(self.n_tau))]


def _fmt(v: float) -> str:
    if not np.isfinite(v):
        return "∞" if v > 0 else "−∞"
    return f"{v:.4g}"


def mode_hover(mode: str, T: Polytope, torques: Sequence[str], units: Sequence[str | None],
               slice_dim: int | None = None) -> str:
    """The hover text of a mode (HTML with ``<br>``).

    The mode, ``dim T_c`` (and of the drawn slice), the bounds of ``T_c`` per torque (``±∞`` where
    unbounded) and its Chebyshev centre.

    Parameters
    ----------
    mode : str
        The mode string.
    T : Polytope
        ``T_c`` over the ``n_τ`` torques (user units).
    torques : Sequence[str]
        The torque names.
    units : Sequence[str or None]
        The unit of each torque (``"N·m"``, ``"N"``) or ``None``.
    slice_dim : int, optional
        The affine dimension of the drawn slice, when it differs from the set's.

    Returns
    -------
    str
        HTML text.
    """
    lo, hi = T.bounding_box()
    centre = T.chebyshev_center().center
    lines = [f"<b>mode {mode}</b>", f"dim T_c = {T.affine_dimension()}"
             + ("" if slice_dim is None else f" (drawn slice: {slice_dim})")]
    for k, name in enumerate(torques):
        unit = f" {units[k]}" if units[k] else ""
        lines.append(f"{name} ∈ [{_fmt(lo[k])}, {_fmt(hi[k])}]{unit}")
    lines.append("Chebyshev centre: (" + ", ".join(_fmt(float(c)) for c in centre) + ")")
    return "<br>".join(lines)


def _rgba(colour: str, alpha: float) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


#: coordinates are rounded to this fraction of the plotting box's side: plotly's 3-D lines vanish when
#: two points differ by rounding noise only (e.g. z = -8.256754333838144 and -8.256754333838142)
SNAP = 1e-9


def _sliced_shapes(P: Polytope, view: SetView, sl: Slice) -> Shape | None:
    S = slice_domain(P, list(view.axes), sl.point if len(view.axes) < view.n_tau else None)
    if S is None:
        return None
    shape = shape_of(S, view.box[0], view.box[1])
    if shape is None:
        return None
    step = SNAP * (np.asarray(view.box[1], float) - np.asarray(view.box[0], float))
    return Shape(shape.dim, np.round(shape.points / step) * step, shape.triangles)


def _empty_trace(d: int) -> dict[str, Any]:
    if d == 3:
        return {"type": "scatter3d", "x": [], "y": [], "z": [], "mode": "markers"}
    return {"type": "scatter", "x": [], "y": [], "mode": "markers"}


def _shapes_trace(shapes: Sequence[Shape], d: int, colour: str, alpha: float, row: float | None = None) -> dict[str, Any]:
    """One trace drawing ``shapes`` (all in the drawn torques) in ``colour``.

    ``d`` = 1: each shape a bar at height ``row``; 2: polygons filled (``fill="toself"``, rings
    separated by ``None``), segments and points as lines and markers; 3: a ``Mesh3d`` of the
    triangles when any shape has dimension >= 2 (lower-dimensional ones are then dropped from
    this trace — callers give them their own), else a ``Scatter3d`` of lines and markers."""
    if not shapes:
        return _empty_trace(d)
    if d == 1:
        xs: list = []
        ys: list = []
        for s in shapes:
            p = s.points[:, 0]
            xs += [float(p.min()), float(p.max()), None]
            ys += [row, row, None]
        return {"type": "scatter", "x": xs, "y": ys, "mode": "lines+markers",
                "line": {"color": colour, "width": 3 * LINE_WIDTH}, "marker": {"color": colour, "size": MARKER_SIZE}}
    if d == 2:
        xs, ys = [], []
        full = all(s.dim == 2 for s in shapes)
        for s in shapes:
            ring = s.points if s.dim < 2 else np.vstack([s.points, s.points[:1]])
            xs += [float(v) for v in ring[:, 0]] + [None]
            ys += [float(v) for v in ring[:, 1]] + [None]
        trace = {"type": "scatter", "x": xs[:-1], "y": ys[:-1], "mode": "lines" if full else "lines+markers",
                 "line": {"color": colour, "width": 2 if full else LINE_WIDTH},
                 "marker": {"color": colour, "size": MARKER_SIZE}}
        if any(s.dim == 2 for s in shapes):
            trace.update(fill="toself", fillcolor=_rgba(colour, alpha))
        return trace
    solid = [s for s in shapes if s.dim >= 2]
    if solid:
        points, tris, offset = [], [], 0
        for s in solid:
            points.append(s.points)
            tris.append(s.triangles + offset)
            offset += len(s.points)
        P, T = np.vstack(points), np.vstack(tris)
        return {"type": "mesh3d", "x": P[:, 0].tolist(), "y": P[:, 1].tolist(), "z": P[:, 2].tolist(),
                "i": T[:, 0].tolist(), "j": T[:, 1].tolist(), "k": T[:, 2].tolist(),
                "color": colour, "opacity": max(alpha, 0.35), "flatshading": True}
    zs: list = []
    xs, ys = [], []
    for s in shapes:
        for axis, out in zip(range(3), (xs, ys, zs)):
            out += [float(v) for v in s.points[:, axis]] + [None]
    return {"type": "scatter3d", "x": xs[:-1], "y": ys[:-1], "z": zs[:-1], "mode": "lines+markers",
            "line": {"color": colour, "width": LINE_WIDTH}, "marker": {"color": colour, "size": MARKER_SIZE / 2}}


def _family_traces(shapes: Sequence[Shape], d: int, colour: str, alpha: float, row: float | None) -> list[dict]:
    """Traces for a family of pieces: in 3-D a mesh for the pieces of dimension >= 2 and a line
    trace for the others; elsewhere one trace."""
    if d != 3:
        return [_shapes_trace(shapes, d, colour, alpha, row)]
    solid = [s for s in shapes if s.dim >= 2]
    thin = [s for s in shapes if s.dim < 2]
    traces = [_shapes_trace(solid, d, colour, alpha)] if solid else []
    if thin or not traces:
        traces.append(_shapes_trace(thin, d, colour, alpha))
    return traces


def _layout(view: SetView, rows: Sequence[str]) -> dict[str, Any]:
    labels = view.labels()
    d = len(view.axes)
    lo, hi = (np.asarray(v, dtype=float) for v in view.box)
    layout: dict[str, Any] = {
        "title": {"text": f"{_html.escape(view.name)}: torque domains T_c", "x": 0.02},
        "legend": {"groupclick": "togglegroup", "itemclick": "toggle"},
        "margin": {"l": 70, "r": 20, "t": 60, "b": 60},
        "hovermode": "closest",
        "height": 640,
        "uirevision": "keep",
    }
    if d == 3:
        layout["scene"] = {
            "xaxis": {"title": {"text": labels[0]}, "range": [lo[0], hi[0]]},
            "yaxis": {"title": {"text": labels[1]}, "range": [lo[1], hi[1]]},
            "zaxis": {"title": {"text": labels[2]}, "range": [lo[2], hi[2]]},
            "aspectmode": "cube",
            "camera": {"eye": {"x": 1.6, "y": 1.6, "z": 1.1}},
        }
    else:
        layout["xaxis"] = {"title": {"text": labels[0]}, "range": [lo[0], hi[0]], "zeroline": True}
        if d == 2:
            layout["yaxis"] = {"title": {"text": labels[1]}, "range": [lo[1], hi[1]], "zeroline": True}
        else:
            layout["yaxis"] = {"title": {"text": "mode"}, "tickvals": list(range(len(rows))),
                               "ticktext": list(rows), "range": [-0.7, len(rows) - 0.3], "autorange": False}
            layout["height"] = max(320, 120 + 34 * len(rows))
    return layout


def figure_dict(view: SetView) -> dict[str, Any]:
    """The plotly figure of ``view`` as a plain dict (``{"data": [...], "layout": {...}}``);
    no plotly import (``page`` renders it). Trace order: per slice, the modes (one trace each,
    an empty one when the mode misses the slice), then ``T*_c``, overlaps and inconsistent
    torques. Only the first slice's traces are visible; the sliders switch slices.

    Parameters
    ----------
    view : SetView
        What to draw.

    Returns
    -------
    dict[str, Any]
        ``{"data": [...], "layout": {...}}``.

    Raises
    ------
    ValueError
        When ``view.axes`` does not name 1, 2 or 3 torques.
    """
    d = len(view.axes)
    if d not in (1, 2, 3):
        raise ValueError(f"axes: draw 1, 2 or 3 torques, got {d}")
    order = list(view.domains)
    styles = {m: mode_style(i) for i, m in enumerate(order)}
    hovers = {m: mode_hover(m, T, view.torques, view.units) for m, T in view.domains.items()}
    # 1-D rows: modes top-down, then the extra rows below them
    extra_rows: list[str] = []
    rows = list(reversed(order))
    row_of = {m: len(rows) - 1 - i for i, m in enumerate(order)}
    if d == 1:
        extra = ["no solution", "overlaps"]
        rows = extra + rows
        row_of = {m: r + len(extra) for m, r in row_of.items()}
        extra_rows = extra
    slices = view.slice_list()
    overlaps = list(view.overlaps.items())[:OVERLAP_LIMIT]
    data: list[dict] = []
    shows: list[bool | str] = []  # each trace's visibility when its slice is shown
    per_slice: list[list[int]] = []
    for s_index, sl in enumerate(slices):
        indices = []
        first_legend = {"unambiguous": True, "overlap": True, "inconsistent": True}

        def add(trace: dict, kind: str, mode: str | None, name: str, group: str, legend: bool, hover: str) -> None:
            shown = "legendonly" if d == 3 and kind in HIDDEN_IN_3D else True
            shows.append(shown)
            trace.update(name=name, legendgroup=group, showlegend=legend, visible=shown if s_index == 0 else False,
                         meta={"kind": kind, "mode": mode, "slice": s_index},
                         hovertemplate=hover + "<extra></extra>")
            indices.append(len(data))
            data.append(trace)

        for m, T in view.domains.items():
            shape = _sliced_shapes(T, view, sl)
            colour = styles[m].colour
            trace = _shapes_trace([shape] if shape is not None else [], d, colour, FILL_ALPHA,
                                  row=row_of.get(m) if d == 1 else None)
            if d == 3 and shape is not None and shape.dim < 2:
                trace["line"] = {"color": colour, "width": LINE_WIDTH * 1.5}
            hover = mode_hover(m, T, view.torques, view.units, None if shape is None else shape.dim) \
                if len(view.axes) < view.n_tau else hovers[m]
            name = m if shape is not None else f"{m} (misses this slice)"
            add(trace, "mode", m, name, m, True, hover)
        for m, pieces in view.unambiguous.items():
            shapes = [s for s in (_sliced_shapes(p, view, sl) for p in pieces) if s is not None]
            for trace in _family_traces(shapes, d, UNAMBIGUOUS_COLOUR, 0.15,
                                        row_of.get(m, 0) + 0.25 if d == 1 else None):
                if d == 2 and shapes:
                    trace.update(fill="none", line={"color": UNAMBIGUOUS_COLOUR, "width": 2.5})
                if d == 1:  # a thin black bar over the top edge of the mode's own bar
                    trace.update(line={"color": UNAMBIGUOUS_COLOUR, "width": LINE_WIDTH / 1.5},
                                 marker={"color": UNAMBIGUOUS_COLOUR, "size": MARKER_SIZE / 1.5})
                add(trace, "unambiguous", m, "T*_c (unambiguous)", "unambiguous", first_legend["unambiguous"],
                    f"<b>T*_{m}</b>: torques that give mode {m} only")
                first_legend["unambiguous"] = False
        shapes = [s for s in (_sliced_shapes(P, view, sl) for _, P in overlaps) if s is not None and s.dim == d]
        for trace in _family_traces(shapes, d, OVERLAP_COLOUR, 0.3, extra_rows.index("overlaps") if d == 1 else None):
            add(trace, "overlap", None, "overlaps (ambiguous)", "overlaps", first_legend["overlap"],
                "<b>overlap</b>: more than one mode has a solution")
            first_legend["overlap"] = False
        shapes = [s for s in (_sliced_shapes(P, view, sl) for P in view.inconsistent) if s is not None]
        for trace in _family_traces(shapes, d, INCONSISTENT_COLOUR, 0.35,
                                    extra_rows.index("no solution") if d == 1 else None):
            add(trace, "inconsistent", None, "no solution (inconsistent)", "inconsistent", first_legend["inconsistent"],
                "<b>inconsistent</b>: no mode has a solution")
            first_legend["inconsistent"] = False
        per_slice.append(indices)
    layout = _layout(view, rows)
    sliders = _sliders(view, slices, per_slice, shows)
    if sliders:
        layout["sliders"] = sliders
        layout["margin"]["b"] = 90 + 70 * len(sliders)
        layout["height"] += 70 * len(sliders)
    return {"data": data, "layout": layout}


def _sliders(view: SetView, slices: Sequence[Slice], per_slice: Sequence[Sequence[int]],
             shows: Sequence[bool | str]) -> list[dict]:
    """One slider per held torque; a step shows the traces of its slice only (each as ``shows``
    says: ``True``, or ``"legendonly"`` for the groups hidden at first)."""
    n_traces = len(shows)
    held = sorted({sl.held for sl in slices if sl.held is not None})
    sliders = []
    for number, k in enumerate(held):
        steps, active = [], 0
        base_value = float(slices[0].point[k])
        members = [(i, sl) for i, sl in enumerate(slices) if sl.held == k]
        values = sorted([(base_value, 0)] + [(float(sl.point[k]), i) for i, sl in members])
        for position, (value, s_index) in enumerate(values):
            visible: list[bool | str] = [False] * n_traces
            for t in per_slice[s_index]:
                visible[t] = shows[t]
            if s_index == 0:
                active = position
            unit = f" {view.units[k]}" if view.units[k] else ""
            steps.append({"method": "restyle", "args": [{"visible": visible}], "label": f"{value:.3g}",
                          "name": f"{view.torques[k]} = {value:.4g}{unit}"})
        sliders.append({"active": active, "steps": steps, "y": -0.08 - 0.16 * number, "yanchor": "top",
                        "len": 0.9, "x": 0.05,
                        "currentvalue": {"prefix": f"{axis_label(view.torques[k], view.units[k])} = "},
                        "pad": {"t": 30}})
    return sliders


def _png_img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_html.escape(alt)}" src="data:image/png;base64,{data}" style="max-width:100%">'


def page(view: SetView, robot_png: bytes | None = None, notes: Sequence[str] = ()) -> str:
    """The whole HTML page (text).

    The interactive figure with plotly's JavaScript inline (no network needed), the caption and
    notes, and the robot at its state when given.

    Parameters
    ----------
    view : SetView
        What to draw.
    robot_png : bytes, optional
        A PNG of the robot at its state, embedded as a data URL.
    notes : Sequence[str], optional
        Paragraphs under the figure.

    Returns
    -------
    str
        A complete HTML document.

    Raises
    ------
    MissingExtraError
        Without plotly.
    """
    from contactmodes.extras import require

    require("plotly", "plot", "--html")
    import plotly.graph_objects as go

    fig = go.Figure(figure_dict(view))
    body = fig.to_html(full_html=False, include_plotlyjs=True, div_id="torque-sets",
                       config={"displaylogo": False, "responsive": True})
    parts = [f"<h1>{_html.escape(view.name)}</h1>", body]
    for text in ([view.caption] if view.caption else []) + list(notes):
        parts.append(f"<p class='caption'>{_html.escape(text)}</p>")
    if robot_png is not None:
        parts.append("<h2>The robot at its state</h2>")
        parts.append(_png_img(robot_png, f"{view.name} at its state"))
    return ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            f"<title>{_html.escape(view.name)}: torque domains</title>\n"
            "<style>body{font-family:sans-serif;margin:1em 2em} .caption{color:#444;font-size:90%}</style>\n"
            "</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")
