"""``contactmodes sweep KIND … --html PAGE``: the sweep's maps as one interactive page (plotly).

The same panels as ``--plot`` (``contactmodes.sweeps.plot``: the kind's plotted columns, those
constant over the grid listed instead), one at a time, chosen in a drop-down menu above the figure:

* one varied key: the column against the key (a line with markers; categories unconnected),
  unbounded values as triangles on the top (+∞) or bottom (−∞) edge;
* two varied keys: a heat map of the column over the grid (viridis), ``+∞`` cells red, ``−∞``
  cells blue, n/a and failed points grey; hovering a cell shows both keys and the value.

Each panel is one trace (``meta = {"kind": "panel", "column": …}``); the axes carry the varied
keys with their units and the colour bar the column's unit. The page holds plotly's JavaScript
(``include_plotlyjs=True``): it opens offline. Needs the ``plot`` extra (plotly).
"""

from __future__ import annotations

import html as _html
import math
import os
from typing import Any

import numpy as np

from contactmodes.sweeps.grid import SweepError
from contactmodes.sweeps.plot import _cell_text, _fmt, _numeric, _panels

__all__ = ["check_html", "sweep_figure", "write_sweep_html"]

POS_INF_COLOUR = "#d62728"
NEG_INF_COLOUR = "#1f77b4"
NA_COLOUR = "#d9d9d9"


def check_html(n_keys: int, path: str) -> None:
    """Refuse, before anything runs, an ``--html`` that cannot show this sweep.

    Parameters
    ----------
    n_keys : int
        The number of varied keys.
    path : str
        The ``--html`` path.

    Raises
    ------
    SweepError
        When ``path`` is not a ``.html`` file name or ``n_keys`` is not 1 or 2.
    """
    if not path.lower().endswith((".html", ".htm")):
        raise SweepError(f"--html: expected a .html file name, got {path!r}")
    if n_keys not in (1, 2):
        raise SweepError(f"--html: shows one varied key (lines) or two (heat maps), got {n_keys}")


def _heat_trace(values: np.ndarray, xs: list, ys: list, unit: str) -> dict[str, Any]:
    """A heat map of ``values`` (``(len(xs) * len(ys),)`` in grid order: x slowest): finite cells on
    viridis; the infinite and n/a cells as a second layer of fixed colours (``_overlay``)."""
    z = values.reshape(len(xs), len(ys)).T  # (ny, nx)
    finite = np.where(np.isfinite(z), z, np.nan)
    text = [[_cell_text(float(v)) for v in row] for row in z]
    return {"type": "heatmap", "x": [_fmt(v) for v in xs], "y": [_fmt(v) for v in ys],
            "z": [[None if math.isnan(v) else float(v) for v in row] for row in finite],
            "text": text, "colorscale": "Viridis", "colorbar": {"title": {"text": unit}},
            "hovertemplate": "%{x}, %{y}: %{text}<extra></extra>", "xgap": 1, "ygap": 1}


def _overlay_trace(values: np.ndarray, xs: list, ys: list) -> dict[str, Any]:
    """The cells that are +∞ (red), −∞ (blue) or n/a (grey), over the heat map."""
    z = values.reshape(len(xs), len(ys)).T
    code = np.where(np.isposinf(z), 2.0, np.where(np.isneginf(z), 0.0, np.where(np.isnan(z), 1.0, np.nan)))
    scale = [[0.0, NEG_INF_COLOUR], [0.33, NEG_INF_COLOUR], [0.34, NA_COLOUR], [0.66, NA_COLOUR],
             [0.67, POS_INF_COLOUR], [1.0, POS_INF_COLOUR]]
    text = [[_cell_text(float(v)) for v in row] for row in z]
    return {"type": "heatmap", "x": [_fmt(v) for v in xs], "y": [_fmt(v) for v in ys],
            "z": [[None if math.isnan(v) else float(v) for v in row] for row in code], "zmin": 0, "zmax": 2,
            "colorscale": scale, "showscale": False, "text": text,
            "hovertemplate": "%{x}, %{y}: %{text}<extra></extra>", "xgap": 1, "ygap": 1}


def _line_traces(values: np.ndarray, xs: list) -> list[dict[str, Any]]:
    numeric = _numeric(xs)
    x: list[Any] = [float(v) for v in xs] if numeric else [_fmt(v) for v in xs]
    finite = [float(v) if math.isfinite(v) else None for v in values]
    traces: list[dict[str, Any]] = [{"type": "scatter", "x": x, "y": finite, "mode": "lines+markers" if numeric else "markers",
               "line": {"color": "#1f77b4"}, "name": "value",
               "hovertemplate": "%{x}: %{y}<extra></extra>"}]
    lo = np.nanmin(np.where(np.isfinite(values), values, np.nan)) if np.isfinite(values).any() else 0.0
    hi = np.nanmax(np.where(np.isfinite(values), values, np.nan)) if np.isfinite(values).any() else 1.0
    for sign, symbol, edge, label in ((1, "triangle-up", hi, "+∞ (unbounded)"),
                                      (-1, "triangle-down", lo, "−∞ (unbounded)")):
        hit = [i for i, v in enumerate(values) if math.isinf(v) and np.sign(v) == sign]
        if hit:
            traces.append({"type": "scatter", "x": [x[i] for i in hit], "y": [float(edge)] * len(hit),
                           "mode": "markers", "marker": {"symbol": symbol, "size": 11, "color": POS_INF_COLOUR},
                           "name": label, "hovertemplate": f"%{{x}}: {label}<extra></extra>"})
    return traces


def sweep_figure(result, title: str | None = None) -> dict[str, Any]:
    """The page's figure as a plain dict.

    Per panel its traces (the first panel's visible) and a drop-down (``layout.updatemenus``) that
    shows one panel at a time.

    Parameters
    ----------
    result : SweepResult
        The sweep (one or two varied keys).
    title : str, optional
        The figure's title.

    Returns
    -------
    dict[str, Any]
        ``{"data": [...], "layout": {...}}`` (plotly's form).

    Raises
    ------
    SweepError
        When the sweep varies more than two keys.
    """
    keys = list(result.grid.keys)
    if len(keys) not in (1, 2):
        raise SweepError(f"--html: shows one varied key (lines) or two (heat maps), got {len(keys)}")
    prepared = result.prepared
    panels, constant = _panels(result)
    xs = list(result.grid.values[0])
    data: list[dict[str, Any]] = []
    owner: list[int] = []
    for p_index, (panel, values) in enumerate(panels):
        unit = panel.unit or ""
        traces = _line_traces(values, xs) if len(keys) == 1 else [
            _heat_trace(values, xs, list(result.grid.values[1]), unit),
            _overlay_trace(values, xs, list(result.grid.values[1]))]
        for t in traces:
            t.update(visible=p_index == 0, meta={"kind": "panel", "column": panel.column})
            data.append(t)
            owner.append(p_index)
    names = [panel.title.replace("\n", " ") + (f" ({panel.unit})" if panel.unit else "") for panel, _ in panels]
    head = title or f"contactmodes sweep {result.kind}" + (
        f": {os.path.basename(str(prepared.header['system']))}" if "system" in prepared.header else "")
    if result.n_failed:
        head += f" ({result.n_failed} of {len(result.points)} points failed: n/a)"
    layout: dict[str, Any] = {
        "title": {"text": _html.escape(head) + (f"<br><sub>{_html.escape(names[0])}</sub>" if names else "")},
        "xaxis": {"title": {"text": prepared.labels.get(keys[0], keys[0])}},
        "height": 600, "margin": {"t": 110},
        "showlegend": len(keys) == 1,
    }
    if len(keys) == 2:
        layout["yaxis"] = {"title": {"text": prepared.labels.get(keys[1], keys[1])}}
    elif names:
        layout["yaxis"] = {"title": {"text": names[0]}}
    if len(panels) > 1:
        buttons = []
        for p_index, name in enumerate(names):
            visible = [o == p_index for o in owner]
            relayout = {"title.text": _html.escape(head) + f"<br><sub>{_html.escape(name)}</sub>"}
            if len(keys) == 1:
                relayout["yaxis.title.text"] = name
            buttons.append({"method": "update", "label": name, "args": [{"visible": visible}, relayout]})
        layout["updatemenus"] = [{"buttons": buttons, "direction": "down", "x": 1.0, "xanchor": "right",
                                  "y": 1.12, "yanchor": "bottom", "showactive": True}]
    if constant:
        layout["annotations"] = [{"text": _html.escape("constant: " + "; ".join(constant)), "showarrow": False,
                                  "xref": "paper", "yref": "paper", "x": 0, "y": -0.18, "xanchor": "left",
                                  "font": {"size": 10}}]
        layout["margin"]["b"] = 110
    return {"data": data, "layout": layout}


def write_sweep_html(result, path: str, title: str | None = None) -> None:
    """Write the page of ``result`` to ``path`` (module doc).

    Parameters
    ----------
    result : SweepResult
        The sweep.
    path : str
        The ``.html`` file.
    title : str, optional
        The figure's title.

    Raises
    ------
    MissingExtraError
        Without plotly.
    SweepError
        For more than two varied keys.
    """
    from contactmodes.extras import require

    require("plotly", "plot", "--html")
    import plotly.graph_objects as go

    fig = go.Figure(sweep_figure(result, title))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(fig.to_html(full_html=True, include_plotlyjs=True, config={"displaylogo": False}))
