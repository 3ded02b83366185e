"""The text report of ``contactmodes control``: a short readable table (system units)."""

from __future__ import annotations

import math

from contactmodes.control.optimal import ControlResult

__all__ = ["format_control"]


def _num(value: float | None) -> str:
    """A value in 6 significant digits, ``-`` for none, ``±inf`` for unbounded."""
    if value is None:
        return "-"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:.6g}"


def _torque(names, tau) -> str:
    return "-" if tau is None else ", ".join(f"{n}={float(v):.6g}" for n, v in zip(names, tau))


def format_control(result: ControlResult, limit: int = 12) -> str:
    """The report: objective, status, the torque and its prediction, the ambiguity-allowed
    optimum and the price of the guarantee, and the best ``limit`` modes (one line each)."""
    sys_ = result.system
    obj = result.objective_spec
    lines = [f"{obj.sense} {obj.text or '(objective)'}   [{sys_.name or 'system'}; system units]",
             f"status: {result.status}: {result.message}"]
    if result.torque is not None:
        lines.append(f"torque: {_torque(sys_.torques, result.torque)}   mode {result.mode}"
                     f"{'' if result.unambiguous else ' (not guaranteed)'}")
        lines.append(f"objective: {_num(result.objective)}")
    if result.prediction is not None:
        qdd = ", ".join(f"{k}={_num(v)}" for k, v in result.prediction["qdd"].items())
        f = ", ".join(f"{c}=({_num(v['t'])}, {_num(v['n'])})" for c, v in result.prediction["f"].items())
        lines.append(f"predicted qdd: {qdd}")
        if f:
            lines.append(f"predicted f (t, n): {f}")
    if result.allowed is not None:
        price = result.price
        lines.append(f"ambiguity allowed: {_num(result.allowed.allowed_objective)} in mode {result.allowed.mode} "
                     f"at {_torque(sys_.torques, result.allowed.allowed_torque)}"
                     + ("" if price is None else f"; price of the guarantee {_num(price)}"))
    rows = [("mode", "status", "objective", "allowed", "torque")]
    for a in result.alternatives[:limit]:
        rows.append((a.mode or '""', a.status, _num(a.supremum), _num(a.allowed_objective), _torque(sys_.torques, a.torque)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines.append("")
    lines += ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]
    if len(result.alternatives) > limit:
        lines.append(f"... {len(result.alternatives) - limit} more modes (--json lists them all)")
    return "\n".join(line.rstrip() for line in lines)
