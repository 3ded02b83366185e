"""The text section ``analyze`` prints for a system whose friction is known to a box (issue 26).

Below the usual table (computed at the nominal μ, each interval's midpoint) one line per mode
whose ``T_c^∃`` is non-empty: the bounds of ``T_c^∃`` (some μ), ``T_c^∀`` (every μ) and, with
``--unambiguous``, of the robust ``T*_c`` pieces, per torque, in the system's units
(``contactmodes.analysis.friction_interval``; ``docs/friction-intervals.md``).
"""

from __future__ import annotations

from typing import Any

from contactmodes.output.text import format_bound

__all__ = ["format_friction"]


def _bounds(P, names, scales) -> str:
    if P is None:
        return "none"
    if not len(names):  # no actuators: T_c in R^0, the mode consistent or not
        return "none" if P.is_empty() else "consistent"
    lo, hi = P.bounding_box()
    return ", ".join(f"{n} {format_bound(float(a), float(b), float(s))}" for n, a, b, s in zip(names, lo, hi, scales))


def format_friction(result: Any) -> str:
    """The friction-box section of ``result``, lines of text without a trailing newline.

    Parameters
    ----------
    result : AnalysisResult
        An analysis, with ``friction`` set when a box was given (torques in the system's units).

    Returns
    -------
    str
        ``""`` when the result has no box.
    """
    fa = result.friction
    if fa is None:
        return ""
    box, names, scales = fa.box, result.system.torques, fa.scaling.tau  # torque units: 0 within rounding
    lines = ["", "friction known to intervals (independent per contact): " + ", ".join(
        f"{c} [{lo:g}, {hi:g}]" for c, lo, hi in zip(result.system.contacts, box.lo, box.hi)),
        "the table above is at the nominal mu (the midpoints); over the whole box:"]
    for mode in result.modes:
        E = fa.exists(mode, result.task)
        if E is None:
            continue
        text = f"{mode}: some mu {_bounds(E, names, scales)}; every mu {_bounds(fa.forall(mode, result.task), names, scales)}"
        robust = (result.robust or {}).get(mode)
        if robust is not None:
            pieces = "; ".join(_bounds(p, names, scales) for p in robust.unambiguous) or "none"
            text += f"; T*_c robust {pieces}"
        lines.append(text)
    return "\n".join(lines)
