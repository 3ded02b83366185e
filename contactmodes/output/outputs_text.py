"""The text section of ``analyze --outputs`` (``contactmodes.analysis.outputs``): per feasible mode
the output set ``Y_c``'s bounds, dimension and facets, whether a torque determines the outputs, and
with ``--unambiguous`` the bounds of the outputs of each piece of ``T*_c``."""

from __future__ import annotations

from typing import Any

from contactmodes.output.text import format_bound

__all__ = ["format_outputs"]


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()


def _bounds(P: Any, units) -> list[str]:
    lo, hi = P.bounding_box()
    return [format_bound(float(a), float(b), float(u)) for a, b, u in zip(lo, hi, units)]


def format_outputs(result: Any) -> str:
    """The outputs section of ``result``, lines of text without a trailing newline.

    Parameters
    ----------
    result : AnalysisResult
        An analysis, with ``outputs`` set when outputs were asked for (the system's units).

    Returns
    -------
    str
        ``""`` without outputs. A header naming the outputs and the fixed torques, then one row per
        mode with an output set: ``dim Y`` (its affine dimension), ``facets``, one bound per output
        (``format_bound``: ``=v``, ``<=hi``, ``>=lo``, ``any`` or ``[lo, hi]``), ``by τ`` (``yes``
        when a torque determines the outputs, else the outputs that ``w`` moves, III-G.2) and, with
        ``--unambiguous``, ``Y*_c``: the outputs of the pieces of ``T*_c``, separated by ``;``
        (``none`` for a piece without a solution at the fixed torques, or when ``T*_c`` is empty).
    """
    oa = result.outputs
    if oa is None:
        return ""
    spec, units = oa.spec, oa.units
    fixed = spec.to_json()["fixed"]
    head = "outputs: " + ", ".join(spec.names)
    if fixed:
        head += "   torques fixed: " + ", ".join(f"tau.{k} = {v:g}" for k, v in fixed.items())
    with_star = any(o.unambiguous is not None for o in oa.values())
    header = ["mode", "dim Y", "facets"] + spec.names + ["by τ"] + (["Y*_c (outputs of T*_c)"] if with_star else [])
    rows = []
    for m, o in oa.items():
        if o.set is None:
            continue
        moved = [n for n, ok in zip(spec.names, o.determined) if not ok]
        row = [m, str(o.set.affine_dimension()), str(o.set.n_ineq)] + _bounds(o.set, units)
        row.append("no: w moves " + ", ".join(moved) if moved else "yes")
        if with_star:
            star = "; ".join("none" if P is None else ", ".join(_bounds(P, units)) for P in (o.unambiguous or []))
            row.append(star or "none")
        rows.append(row)
    if not rows:
        return "\n".join(["", "", head, "no mode has a solution" + (" at the fixed torques" if fixed else "")])
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    lines = ["", "", head, _row(header, widths), _row(["-" * w for w in widths], widths)]
    lines += [_row(r, widths) for r in rows]
    return "\n".join(lines)
