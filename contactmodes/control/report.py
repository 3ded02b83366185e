"""The text report of ``contactmodes control``: a short readable table (system units)."""

from __future__ import annotations

import math

import numpy as np

from contactmodes.control.optimal import ControlResult
from contactmodes.tolerances import BOUND_ZERO_RTOL

__all__ = ["format_control"]


def _num(value: float | None) -> str:
    """A value in 6 significant digits, ``-`` for none, ``±inf`` for unbounded."""
    if value is None:
        return "-"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:.6g}"


def _torque(names, tau, units) -> str:
    """``name=value, …``; a component within ``BOUND_ZERO_RTOL · max(u_k, max|τ|)`` of zero (``u_k``
    the analysis's unit of torque ``k``: LP noise, not data) shows as ``0``."""
    if tau is None:
        return "-"
    tau = np.asarray(tau, dtype=float)
    floor = BOUND_ZERO_RTOL * np.maximum(units, np.abs(tau).max(initial=0.0))
    return ", ".join(f"{n}={0.0 if abs(v) <= f else float(v):.6g}" for n, v, f in zip(names, tau, floor))


def _supremum_note(result: ControlResult) -> str:
    """``"   (supremum S; margin M, clearance C)"`` for a guaranteed torque, else ``""``."""
    if not result.unambiguous or result.supremum is None:
        return ""
    clear = result.clearance
    ctext = "" if clear is None else (", clearance: any (a single-point set)" if math.isinf(clear)
                                      else f", clearance {_num(clear)}")
    return f"   (supremum {_num(result.supremum)}; margin {_num(result.margin)}{ctext}; torque units)"


def format_control(result: ControlResult, limit: int = 12) -> str:
    """The report: objective, status, the torque and its prediction, the ambiguity-allowed
    optimum and the price of the guarantee, and the best ``limit`` modes (one line each).

    One objective per torque: ``objective`` is ``J`` at the torque shown beside it (the chosen
    one's on its line, each mode's in the table); ``supremum`` is labelled as such (the optimum
    over the closure of the set, which the torque approaches within the margin).

    Parameters
    ----------
    result : ControlResult
        The controller's answer (``contactmodes.control.optimal.control``); values in system units.
    limit : int, optional
        How many modes of ``result.alternatives`` (best first) the table lists; a last line
        counts the others.

    Returns
    -------
    str
        The report (several lines), without a trailing newline.
    """
    sys_ = result.system
    units = sys_.scaling.tau
    obj = result.objective_spec
    lines = [f"{obj.sense} {obj.text or '(objective)'}   [{sys_.name or 'system'}; system units]",
             f"status: {result.status}: {result.message}"]
    if result.torque is not None:
        lines.append(f"torque: {_torque(sys_.torques, result.torque, units)}   mode {result.mode}"
                     f"{'' if result.unambiguous else ' (not guaranteed)'}")
        lines.append(f"objective: {_num(result.objective)}" + _supremum_note(result))
    if result.prediction is not None:
        qdd = ", ".join(f"{k}={_num(v)}" for k, v in result.prediction["qdd"].items())
        f = ", ".join(f"{c}=({', '.join(_num(x) for x in v.values())})" for c, v in result.prediction["f"].items())
        lines.append(f"predicted qdd: {qdd}")
        if f:
            lines.append(f"predicted f ({', '.join(sys_.contact_model.components)}): {f}")
    if result.allowed is not None:
        price = result.price
        lines.append(f"ambiguity allowed: {_num(result.allowed.allowed_objective)} in mode {result.allowed.mode} "
                     f"at {_torque(sys_.torques, result.allowed.allowed_torque, units)}"
                     + ("" if price is None else f"; price of the guarantee {_num(price)}"))
    rows = [("mode", "status", "objective", "supremum", "allowed", "torque")]
    for a in result.alternatives[:limit]:
        rows.append((a.mode or '""', a.status, _num(a.objective), _num(a.supremum), _num(a.allowed_objective),
                     _torque(sys_.torques, a.torque, units)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines.append("")
    lines += ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
    if len(result.alternatives) > limit:
        lines.append(f"... {len(result.alternatives) - limit} more modes (--json lists them all)")
    return "\n".join(line.rstrip() for line in lines)
