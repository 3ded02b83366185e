"""The text report of an impact (``contactmodes impact``; ``ImpactResult.format_text`` through
``contactmodes.views``): the scope, the verdict, one line per consistent outcome, intervals written
as the analysis table writes them (``contactmodes.output.text.format_bound``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contactmodes.output.text import format_bound

if TYPE_CHECKING:
    from polytopes import Polytope

__all__ = ["format_impact"]


def format_impact(result: Any) -> str:
    """The text report of an impact: the scope, the verdict, then one line per consistent outcome
    (its ``q̇⁺``, impulses per contact in the contact model's components, torque set with a
    pseudo-impulse, energy loss).

    Parameters
    ----------
    result : ImpactResult
        The outcomes (``contactmodes.impact``), in the system's units.

    Returns
    -------
    str
        Lines of text, without a trailing newline.
    """
    s = result.system
    lines = [f"impact of {s.name or 'system'}: approaching {result.scope_names('approaching') or '-'}, "
             f"touching {result.scope_names('touching') or '-'}"
             + (f", pseudo-impulse {result.pseudo_impulse:g} s" if result.pseudo_impulse else "")
             + (f", torques {result.box_text()}" if result.torque_box is not None else "")]
    modes = result.consistent_modes
    components = tuple(s.contact_model.components)  # planar (t, n), spatial (t1, t2, n)
    nc, names = len(components), ", ".join(components)
    verdict = ("impact-inconsistent: no outcome" if not modes else
               f"impact-ambiguous: {len(modes)} outcomes, {result.distinct_velocities()} distinct q̇⁺"
               if len(modes) > 1 else "one outcome")
    lines.append(verdict)
    for o in result.outcomes:
        if not o.consistent:
            continue
        assert o.qdot_plus is not None and o.impulse is not None
        qd = ", ".join(f"{c}={v:.6g}" for c, v in zip(s.coordinates, o.qdot_plus))
        imp = ", ".join(f"{c}=({', '.join(f'{v:.6g}' for v in o.impulse[nc * i:nc * i + nc])})"
                        for i, c in enumerate(s.contacts))
        extra = " (q̇⁺ ambiguous)" if o.qdot_plus_set is not None else ""
        extra += " (impulse ambiguous: one of them)" if o.impulse_ambiguous else ""
        if o.torque_set is not None:
            extra += f" (torques: {_union_text(o.torque_set, s.torques, s.scaling.tau)})"
        if o.pseudo_kept:
            extra += f" (kept by the pseudo-impulse: {', '.join(o.pseudo_kept)})"
        lines.append(f"  {o.mode}: q̇⁺ [{qd}]{extra}; impulse ({names}) [{imp}] N·s; energy loss {o.energy_loss:.6g} J")
    return "\n".join(lines)


def _union_text(pieces: list[Polytope], torques, units) -> str:
    """A union of torque polytopes in a line: per piece its bounding box (exact for one torque),
    each torque's interval as the analysis table writes it (``format_bound`` with the torque's
    unit ``units[k]``, so solver noise at zero prints as 0), ``" or "`` between pieces."""
    out = []
    for T in pieces:
        lo, hi = T.bounding_box()
        box = ", ".join(f"{name} {format_bound(a, b, scale=u)}" for name, a, b, u in zip(torques, lo, hi, units))
        out.append(box if T.dim == 1 else f"box {box}")
    return " or ".join(out)
