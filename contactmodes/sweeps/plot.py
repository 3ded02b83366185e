"""Pictures of a sweep: a line plot for one varied key, a heat map for two (matplotlib, Agg).

One panel per result column the kind marks as worth plotting (``Panel``), titled
with its unit; the axes carry the varied keys with their units. Decisions:

* a column that is the same at every point (e.g. a lower bound that is −∞ everywhere; finite
  values to ``CONSTANT_RTOL``) gets no panel; it is listed at the bottom of the figure instead
  (``constant: …``); at most ``MAX_PANELS`` panels, in the kind's order;
* unbounded values: in a heat map, cells beyond the colour bar's arrows (+∞ above, −∞ below)
  and labelled ``+∞``/``−∞``; in a line plot, triangles on the top (+∞) or bottom (−∞) edge;
* not applicable (an empty set) or a failed point: grey cells (``n/a``), gaps in the lines;
* a heat map with at most ``ANNOTATE_MAX_CELLS`` cells prints each value in its cell (3
  significant digits); categorical keys (e.g. ``controller``) are spread over equal cells, and
  drawn as unconnected markers in a line plot;
* a panel with a ``where`` column (``Panel``) shows its value only where that
  column is true, ``n/a`` elsewhere (a flip's prediction error only for the runs that flipped);
* tick labels of a heat map (and of categories) are thinned to every k-th value so that they do
  not overlap: at most ``MAX_TICKS`` per axis, and along x at most ``TICK_CHARS`` characters.
"""

from __future__ import annotations

import math
import os
import textwrap
from typing import Sequence

import numpy as np

from contactmodes.sweeps.grid import SweepError

__all__ = ["plot_sweep", "check_plot", "ANNOTATE_MAX_CELLS", "MAX_PANELS"]

ANNOTATE_MAX_CELLS = 144
MAX_PANELS = 9
MAX_TICKS = 12
TICK_CHARS = 40
"""Characters of x tick labels (with two of spacing each) that fit under one panel: 7-point
labels on a 4.6-inch panel less its colour bar."""
CONSTANT_RTOL = 1e-9
"""Relative spread below which a column counts as constant (no panel) or a colour scale as flat."""


def check_plot(n_keys: int, path: str) -> None:
    """Refuse, before anything runs, a ``--plot`` that cannot draw this sweep.

    Parameters
    ----------
    n_keys : int
        The number of varied keys.
    path : str
        The ``--plot`` path.

    Raises
    ------
    SweepError
        When ``path`` is not a ``.png`` file name or ``n_keys`` is not 1 or 2.
    """
    if not path.lower().endswith(".png"):
        raise SweepError(f"--plot: expected a .png file name, got {path!r}")
    if n_keys not in (1, 2):
        raise SweepError(f"--plot: draws one varied key (lines) or two (heat map), got {n_keys}")


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _numeric(values: Sequence) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _column(df, name: str) -> np.ndarray:
    out = np.full(len(df), np.nan)
    for i, v in enumerate(df[name].tolist()):
        if v is None or isinstance(v, str):
            continue
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            pass
    return out


def _constant(values: np.ndarray) -> bool:
    """Every value is n/a, or none is and all agree (infinities exactly, finite values to
    ``CONSTANT_RTOL`` relative: LP round-off is not a variation worth a panel)."""
    nan = np.isnan(values)
    if nan.all():
        return True
    if nan.any():
        return False
    if np.isinf(values).any():
        return bool(np.all(values == values[0]))
    return bool(np.ptp(values) <= CONSTANT_RTOL * max(1.0, float(np.max(np.abs(values)))))


def tick_step(labels: Sequence[str], axis: str) -> int:
    """Label every ``tick_step``-th value (module doc).

    Parameters
    ----------
    labels : Sequence[str]
        The tick labels of every grid value along the axis.
    axis : str
        ``"x"`` (the labels' widths count too) or ``"y"``.

    Returns
    -------
    int
        ``>= 1``.
    """
    n = len(labels)
    step = max(1, math.ceil(n / MAX_TICKS))
    if axis == "x" and n:
        step = max(step, math.ceil(n * (max(len(t) for t in labels) + 2) / TICK_CHARS))
    return step


def _ticks(ax, axis: str, values: Sequence) -> None:
    n = len(values)
    step = tick_step([_fmt(v) for v in values], axis)
    idx = list(range(0, n, step))
    labels = [_fmt(values[i]) for i in idx]
    if axis == "x":
        ax.set_xticks(idx, labels)
    else:
        ax.set_yticks(idx, labels)


def _cell_text(v: float) -> str:
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "+∞" if v > 0 else "−∞"
    return f"{v:.3g}"


def _heat(fig, ax, z: np.ndarray, xs, ys) -> None:
    import matplotlib as mpl

    finite = z[np.isfinite(z)]
    vmin, vmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if vmax - vmin <= CONSTANT_RTOL * max(1.0, abs(vmin), abs(vmax)):  # flat: a unit-wide scale around it
        vmin, vmax = vmin - 0.5, vmax + 0.5
    span = vmax - vmin
    shown = np.where(np.isposinf(z), vmax + span, np.where(np.isneginf(z), vmin - span, z))
    cmap = mpl.colormaps["viridis"].with_extremes(over="#d62728", under="#1f77b4", bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_invalid(shown), origin="lower", aspect="auto", cmap=cmap,
                   norm=mpl.colors.Normalize(vmin, vmax), interpolation="nearest")
    extend = {(True, True): "both", (True, False): "max", (False, True): "min"}.get(
        (bool(np.isposinf(z).any()), bool(np.isneginf(z).any())), "neither")
    bar = fig.colorbar(im, ax=ax, extend=extend)
    if finite.size and np.all(finite == np.round(finite)):  # counts and flags: integer ticks
        from matplotlib.ticker import MaxNLocator

        bar.locator = MaxNLocator(integer=True)
        bar.update_ticks()
    if extend != "neither":
        bar.ax.set_title({"max": "+∞ ▲", "min": "−∞ ▼", "both": "±∞"}[extend], fontsize=7)
    if z.size <= ANNOTATE_MAX_CELLS:
        for (j, i), v in np.ndenumerate(z):
            dark = math.isinf(v) or (math.isfinite(v) and v < vmin + 0.5 * span)  # viridis is dark below
            ax.text(i, j, _cell_text(v), ha="center", va="center", fontsize=6, color="white" if dark else "black")
    _ticks(ax, "x", xs)
    _ticks(ax, "y", ys)


def _line(ax, x: Sequence, y: np.ndarray) -> None:
    numeric = _numeric(x)
    pos = np.asarray(x, dtype=float) if numeric else np.arange(len(x), dtype=float)
    finite = np.isfinite(y)
    style = "o-" if numeric else "o"  # categories are not joined by lines
    ax.plot(np.where(finite, pos, np.nan), np.where(finite, y, np.nan), style, ms=3 if numeric else 6, lw=1.2,
            color="C0")
    edge = ax.get_xaxis_transform()
    for sign, marker, y_axes, label in ((1, "^", 0.97, "+∞ (unbounded)"), (-1, "v", 0.03, "−∞ (unbounded)")):
        hit = np.isinf(y) & (np.sign(y) == sign)
        if hit.any():
            ax.plot(pos[hit], np.full(hit.sum(), y_axes), marker, color="C3", ms=6, transform=edge,
                    clip_on=False, label=label)
    if not finite.any():
        ax.set_yticks([])
    else:
        lo, hi = float(y[finite].min()), float(y[finite].max())
        if hi - lo <= CONSTANT_RTOL * max(1.0, abs(lo), abs(hi)):  # flat up to round-off
            pad = max(0.5, 0.1 * abs(lo))
            ax.set_ylim(lo - pad, hi + pad)
        ax.yaxis.get_major_formatter().set_useOffset(False)
    if len(pos) > 1:  # the whole grid, so that n/a points show as gaps
        pad = 0.05 * (pos.max() - pos.min()) if numeric else 0.5
        ax.set_xlim(pos.min() - pad, pos.max() + pad)
    if (~finite).any() and np.isinf(y).any():
        ax.legend(fontsize=7, loc="best")
    if not numeric:
        _ticks(ax, "x", list(x))
    ax.grid(True, alpha=0.3)


def _panels(result) -> tuple[list, list[str]]:
    """``[(Panel, values (n_points,))]`` worth showing (at most ``MAX_PANELS``) and the words for
    the constant ones, of a sweep result: the panels of ``--plot`` and ``--html``."""
    df = result.to_frame()
    panels, constant = [], []
    for panel in result.prepared.panels:
        if panel.column not in df.columns:
            continue
        values = _column(df, panel.column)
        if panel.where is not None:
            where = _column(df, panel.where) if panel.where in df.columns else np.zeros(len(df))
            values = np.where(where == 1, values, np.nan)
        if _constant(values):
            unit = f" {panel.unit}" if panel.unit and np.isfinite(values).any() else ""
            constant.append(f"{panel.title.replace(chr(10), ' ')} = {_cell_text(values[0])}{unit}")
        else:
            panels.append((panel, values))
    return panels[:MAX_PANELS], constant


def plot_sweep(result, path: str, title: str | None = None) -> None:
    """Draw ``result`` to the PNG ``path`` (module doc).

    Parameters
    ----------
    result : SweepResult
        The sweep (one or two varied keys).
    path : str
        The PNG file.
    title : str, optional
        The figure's title.

    Raises
    ------
    SweepError
        When the sweep varies more than two keys.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require

    require("matplotlib", "plot", "plot_sweep")
    from matplotlib.figure import Figure

    keys = result.grid.keys
    check_plot(len(keys), path if path.lower().endswith(".png") else path + ".png")
    prepared = result.prepared
    panels, constant = _panels(result)
    n = max(1, len(panels))
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.6 * nrows + 0.9), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    xs = list(result.grid.values[0])
    for ax, (panel, values) in zip(axes, panels):
        ax.set_title(panel.title + (f" ({panel.unit})" if panel.unit else ""), fontsize=9)
        ax.set_xlabel(prepared.labels.get(keys[0], keys[0]), fontsize=8)
        if len(keys) == 1:
            _line(ax, xs, values)
        else:
            ys = list(result.grid.values[1])
            _heat(fig, ax, values.reshape(len(xs), len(ys)).T, xs, ys)
            ax.set_ylabel(prepared.labels.get(keys[1], keys[1]), fontsize=8)
        ax.tick_params(labelsize=7)
    if not panels:
        axes[0].set_visible(True)
        axes[0].text(0.5, 0.5, "every result column is constant", ha="center", va="center")
        axes[0].set_axis_off()
    head = title or f"contactmodes sweep {result.kind}" + (
        f": {os.path.basename(str(prepared.header['system']))}" if "system" in prepared.header else "")
    if result.n_failed:
        head += f" ({result.n_failed} of {len(result.points)} points failed: n/a)"
    fig.suptitle(head, fontsize=11)
    if constant:
        fig.supxlabel(textwrap.fill("constant: " + "; ".join(constant), 40 * ncols + 40), fontsize=7)
    fig.savefig(path, dpi=110)
