"""How results look in Jupyter: compact HTML tables (and a picture where it helps).

``_repr_html_`` of ``AnalysisResult``, ``ModeAnalysis`` and ``SweepResult`` call the functions
here through ``contactmodes.views`` (``contactmodes.output`` registers them; the earlier stages
never import this one); ``polytopes.Polytope`` has its own (the ``polytopes`` package knows nothing of this one).
Each is a ``<table>`` of what the object holds, numbers to four significant digits, ``−∞``/``∞``
where a set is unbounded:

* ``analysis_html``: one row per analysed mode — feasible, dimension of ``T_c``, its bounds per
  torque (with units when known), the overlapping modes — and, for one or two torques with
  matplotlib installed, the PNG picture of ``contactmodes plot`` (embedded as a data URL);
* ``mode_html``: the mode's flags, ``dim T_c``, bounds and Chebyshev centre per torque;
* ``sweep_html``: the header (kind, varied keys, scheduler, failed points) and the first
  ``MAX_ROWS`` rows of ``SweepResult.to_frame`` (or of the point documents without pandas).

No optional package is needed: without matplotlib there is no picture, without pandas the sweep's
rows come from its documents.
"""

from __future__ import annotations

import base64
import html
import importlib.util
import io
import math
from typing import Any, Sequence

import numpy as np

__all__ = ["analysis_html", "mode_html", "sweep_html", "MAX_ROWS", "MAX_PICTURE_MODES"]

#: rows shown of a long table (the rest counted below it)
MAX_ROWS = 40
#: the analysis picture is drawn up to this many feasible modes
MAX_PICTURE_MODES = 64

_STYLE = ("<style>.cm-table td,.cm-table th{padding:2px 8px;text-align:right;font-family:monospace}"
          ".cm-table th{text-align:center}.cm-table td:first-child{text-align:left}</style>")


def _num(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "—"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        return f"{v + 0.0:.4g}"  # + 0.0: no "-0"
    if v is None:
        return "—"
    return html.escape(str(v))


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> str:
    """An HTML ``<table>`` (class ``cm-table``) of ``rows`` under ``header``; at most ``MAX_ROWS``
    rows, the rest counted in a last line.

    Parameters
    ----------
    header : Sequence[str]
        The column names.
    rows : Sequence[Sequence[Any]]
        The rows: numbers to 4 significant digits, booleans as yes/no, NaN and ``None`` as
        ``—``, other values as escaped text.
    caption : str, optional
        A caption above the table.

    Returns
    -------
    str
        HTML.
    """
    out = [_STYLE, "<table class='cm-table'>"]
    if caption:
        out.append(f"<caption style='text-align:left'>{html.escape(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
    for row in rows[:MAX_ROWS]:
        out.append("<tr>" + "".join(f"<td>{_num(v)}</td>" for v in row) + "</tr>")
    if len(rows) > MAX_ROWS:
        out.append(f"<tr><td colspan='{len(header)}'>… {len(rows) - MAX_ROWS} more rows</td></tr>")
    out.append("</table>")
    return "".join(out)


def _picture(result) -> str:
    """The ``contactmodes plot`` picture of ``result`` (1 or 2 torques, matplotlib installed) as an
    ``<img>``, else ``""`` (also without actuators: ``T_c`` in ``R^0``, nothing to draw)."""
    n = result.system.n_tau
    feasible = result.feasible_modes()
    if n == 0 or n > 2 or not feasible or len(feasible) > MAX_PICTURE_MODES or importlib.util.find_spec("matplotlib") is None:
        return ""
    from contactmodes.output.plot import PlotData, draw_domains

    domains = {m: result.modes[m].T for m in feasible}
    ends = np.vstack([np.vstack(T.bounding_box()) for T in domains.values()])  # (2 × modes, n)
    lo, hi = np.full(n, -1.0), np.full(n, 1.0)
    for k in range(n):  # the finite ends of every set, in each torque
        finite = ends[np.isfinite(ends[:, k]), k]
        if len(finite):
            lo[k], hi[k] = finite.min(), finite.max()
    width = np.maximum(hi - lo, 1.0)
    box = (lo - 0.5 * width, hi + 0.5 * width)
    star = {m: u.unambiguous for m, u in (result.unambiguous or {}).items()}
    data = PlotData(labels=list(result.system.torques), domains=domains, unambiguous=star,
                    inconsistent=list(result.inconsistent or []), box=box,
                    title=f"{result.system.name}: torque domains T_c", order=feasible)
    import matplotlib.pyplot as plt

    fig = draw_domains(data)
    try:
        buf = io.BytesIO()
        fig.savefig(buf, dpi=80, format="png")
    finally:
        plt.close(fig)
    return (f"<img alt='torque domains' style='max-width:100%' "
            f"src='data:image/png;base64,{base64.b64encode(buf.getvalue()).decode('ascii')}'>")


def analysis_html(result) -> str:
    """HTML of an ``AnalysisResult``: one row per mode, then the picture (module doc).

    Parameters
    ----------
    result : AnalysisResult
        The analysis (torques in the system's units).

    Returns
    -------
    str
        HTML.
    """
    torques = list(result.system.torques)
    header = ["mode", "feasible", "dim T_c"] + [f"{t} lo" for t in torques] + [f"{t} hi" for t in torques]
    header.append("overlaps with")
    rows = []
    for m, a in result.modes.items():
        if a.feasible:
            lo, hi = a.box
            dim = a.T.affine_dimension()
        else:
            lo = hi = np.full(len(torques), np.nan)
            dim = None
        overlaps = ", ".join(result.overlapping(m)) if result.overlaps is not None else None
        rows.append([m, a.feasible, dim, *lo, *hi, overlaps])
    n_feasible = len(result.feasible_modes())
    caption = (f"{result.system.name}: {len(result.modes)} modes analysed, {n_feasible} feasible"
               + (f", {len(result.overlaps)} overlapping pairs" if result.overlaps is not None else "")
               + ("" if result.task else " (no task constraints)"))
    return table(header, rows, caption) + _picture(result)


def mode_html(mode) -> str:
    """HTML of a ``ModeAnalysis``: flags, ``dim T_c``, and per torque the bounds and Chebyshev centre.

    Parameters
    ----------
    mode : ModeAnalysis
        One mode of an analysis.

    Returns
    -------
    str
        HTML.
    """
    caption = f"mode {mode.mode}: " + ("feasible" if mode.feasible else "infeasible") + (
        "" if mode.kinematically_feasible else " (kinematically infeasible)")
    if not mode.feasible:
        return table(["mode", "feasible"], [[mode.mode, False]], caption)
    T = mode.T
    lo, hi = mode.box
    centre = T.chebyshev_center().center
    torques = mode.solution.session.system.torques if hasattr(mode.solution, "session") else None
    names = list(torques) if torques is not None and len(torques) == T.dim else [f"τ{k + 1}" for k in range(T.dim)]
    rows = [[names[k], lo[k], hi[k], centre[k]] for k in range(T.dim)]
    return table(["torque", "lo", "hi", "Chebyshev centre"], rows, caption + f", dim T_c = {T.affine_dimension()}")


def sweep_html(result) -> str:
    """HTML of a ``SweepResult``: the header, then its table's first rows (module doc).

    Parameters
    ----------
    result : SweepResult
        The sweep.

    Returns
    -------
    str
        HTML.
    """
    keys = list(result.grid.keys)
    caption = (f"sweep of kind {result.kind}: {len(result.points)} points over {', '.join(keys)}, "
               f"{result.n_failed} failed ({result.scheduler}, {result.workers} workers)")
    if importlib.util.find_spec("pandas") is not None:
        df = result.to_frame()
        return table(list(map(str, df.columns)), [list(r) for r in df.itertuples(index=False, name=None)], caption)
    rows = [[*(p["params"][k] for k in keys), p["ok"], p["error"]] for p in result.points]
    return table(keys + ["ok", "error"], rows, caption)
