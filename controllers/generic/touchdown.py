"""A touchdown state for the generic controller: the plastic impact first, then the usual step.

At a state ``(q, q̇⁻)`` where a contact *approaches* its surface (normal velocity below ``−ε_i``
by the Table III rule, the state ``MechanismStep`` refuses with ``ApproachingContactError``) the
rigid model without an impact law has no solution. The controller then takes the impact first
(``resolve_touchdown``): the plastic impact outcomes of the state (``contactmodes.impact``, thesis
Sec. 5.1.2–5.1.4, with the controller's pseudo-impulse ``δ_t`` when configured), *one* consistent
outcome chosen by the rule below, and the usual optimization runs at the post-impact state
``(q, q̇⁺)`` (``q⁺ = q⁻``: the configuration does not jump), where the continuous-time modes apply.

Choice of the outcome
---------------------
The thesis *assumes* that the impulse–velocity complementarity problem (28)–(29) has a unique
solution (Assumption 5.7, proven only without friction), so it gives no rule for several
consistent outcomes; with friction several are common (the rocking block with a reaction wheel and
a pseudo-impulse: ``FF``, ``FL``, ``FR``, ``SF``, each for some wheel moments). The rule, in this
order:

1. **Reachable.** An outcome counts only if it is consistent for some torque the controller can
   apply: with ``δ_t > 0`` and actuators its consistency is a torque set (``torque_set``, a union of
   polytopes: the guard (40) ``U(P_λ + P_δ) >= 0`` depends on ``τ`` through ``P_δ``, eq. 39), which
   must meet the torque box ``L`` at the pre-impact actuator speeds (the torque acts during the
   impact). Without a pseudo-impulse the impact does not depend on ``τ``.
2. **Most contacts kept.** The outcome that keeps the most contacts in the impact's scope (letters
   other than ``S``). This is the thesis' reasoning for the pseudo-impulse (Sec. 5.1.4): "the
   pseudo-impulse should not break contacts that would otherwise persist", contacts persist
   (Assumption 5.3), and releasing a contact impulsively is the qualitatively undesirable,
   chattering behaviour of Figs. 5.6–5.7; an impact that can keep a contact keeps it.
3. **Least post-impact kinetic energy** (largest ``energy_loss``, within ``CONSISTENCY_RTOL``
   of the pre-impact energy): the plastic law is the mass-weighted projection that removes the
   most energy compatible with the kept constraints (Assumption 5.5, eq. 10).
4. **Enumeration order** (``"FSLR"`` per contact, first contact slowest): a sticking contact
   before a sliding one; outcomes on a boundary (a contact sticking or sliding at zero speed)
   share one ``q̇⁺``, so this last tie changes the label only.

The post-impact optimization keeps to the chosen outcome's torque set when it has one
(``torque_box``: exact with one actuator, the bounding box of a piece with several; whether the
applied torque lies in the set is recorded, ``Touchdown.torque_in_set``).

When the chosen outcome leaves ``q̇⁺`` ambiguous (``qdot_plus_set``) its reported point is used
and ``qdot_plus_ambiguous`` says so.

Fallback
--------
When no outcome is reachable (impact-inconsistent: friction cones that no impulse satisfies, or a
torque set outside the box), the impact is taken again **without friction** (``μ = 0`` on every
contact, no pseudo-impulse): for plastic frictionless contacts existence of a solution is proven
(the thesis' [172, Ex. 3.3], quoted under Assumption 5.6), the outcome chosen by the same rule and
the status is ``"frictionless"``. If even that has none, ``ContactModelError`` (the step becomes
an ``"error"`` step: zero torque, message kept).

Statuses (``Touchdown.status``, ``StepRecord.touchdown_status``): ``"impact"`` (an outcome of the
impact law), ``"frictionless"`` (the fallback's outcome).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import contactmodes as cm
from contactmodes.errors import ContactModelError
from contactmodes.tolerances import CONSISTENCY_RTOL, GAP_RTOL
from polytopes import Polytope

__all__ = ["Touchdown", "TOUCHDOWN_STATUSES", "choose_outcome", "impact_system", "resolve_touchdown", "torque_box"]

TOUCHDOWN_STATUSES = ("impact", "frictionless")
"""``Touchdown.status`` values (module docstring)."""


@dataclass(frozen=True)
class Touchdown:
    """A touchdown handled through the impact law (module docstring), SI / the system's units.

    Attributes
    ----------
    status : str
        One of ``TOUCHDOWN_STATUSES``.
    outcome : str
        The chosen outcome, one letter per contact of the system (``S`` for the contacts left
        out of the step by their gap).
    consistent : tuple[str, ...]
        Every reachable outcome (same labelling), the chosen one among them.
    approaching : tuple[str, ...]
        The approaching contacts' names.
    qdot_minus, qdot_plus : numpy.ndarray
        ``(n_q,)`` the velocity before and after the impact.
    qdot_plus_ambiguous : bool
        The chosen outcome leaves ``q̇⁺`` ambiguous; ``qdot_plus`` is its reported point.
    energy_loss : float
        ``½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺`` (J), ``>= 0``.
    impulse : numpy.ndarray
        ``(2k_present,)`` the impulses ``(P_t, P_n)`` per present contact (N·s).
    torque_set : list[Polytope] or None
        With ``δ_t > 0`` and actuators: the torques for which the chosen outcome is consistent.
    torque_in_set : bool or None
        Whether the torque the step applied lies in ``torque_set`` (``None`` without one).
    """

    status: str
    outcome: str
    consistent: tuple
    approaching: tuple
    qdot_minus: np.ndarray
    qdot_plus: np.ndarray
    qdot_plus_ambiguous: bool
    energy_loss: float
    impulse: np.ndarray
    torque_set: list | None = field(default=None, repr=False)
    torque_in_set: bool | None = None

    def contains_torque(self, tau, tol: float = 1e-6) -> bool | None:
        """Whether ``tau`` lies in the chosen outcome's torque set.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` the torque, the system's units.
        tol : float, optional
            ``tol · max(1, |τ|_∞)`` is passed to ``Polytope.contains`` as its tolerance.

        Returns
        -------
        bool or None
            ``None`` without a torque set.
        """
        if self.torque_set is None:
            return None
        t = np.asarray(tau, dtype=float)
        return any(P.contains(t, tol * max(1.0, float(np.abs(t).max(initial=0.0)))) for P in self.torque_set)


def impact_system(mechanism, template, q, qdot, gap_tol: float | None = None,
                  frictionless: bool = False, v0_floor: float | None = None):
    """The ``ContactSystem`` (user units) of the state for ``contactmodes.impact``.

    Parameters
    ----------
    mechanism : PlanarMechanism
        The system file's mechanism.
    template : ContactSystem
        The system file's ``ContactSystem`` (names, ``mu``, ``v0``).
    q, qdot : numpy.ndarray
        ``(n_q,)`` the state, ``qdot`` the pre-impact velocity ``q̇⁻``.
    gap_tol : float, optional
        Contacts with a gap above it (m) are left out, as ``MechanismStep`` does; default
        ``GAP_RTOL`` times the characteristic length.
    frictionless : bool, optional
        ``μ = 0`` on every contact (the fallback).
    v0_floor : float, optional
        Each contact's Table III threshold ``v0`` at least this (m/s): contacts within ``±`` it are
        touching (the controller's ``touching_velocity_tol``, a soft plant's contacts at rest).

    Returns
    -------
    system : ContactSystem
        ``M(q)``, ``h(q, q̇⁻)``, ``S``, ``J`` (present contacts), ``v_contact = J q̇⁻``.
    keep : numpy.ndarray
        ``(k_present,)`` the present contacts' indices among the system's.
    h_rest : numpy.ndarray
        ``(n_q,)`` ``h(q, 0)``, the generalized gravity force of the pseudo-impulse (eq. 39).
    """
    q, qdot = np.asarray(q, dtype=float), np.asarray(qdot, dtype=float)
    d = mechanism.dynamics(q, qdot)
    scales = mechanism.characteristic_scales(q, qdot)
    tol = GAP_RTOL * scales.length if gap_tol is None else float(gap_tol)
    keep = np.flatnonzero(~(d.gaps > tol))
    rows = np.stack([2 * keep, 2 * keep + 1], axis=1).reshape(-1)
    mu = np.zeros(keep.size) if frictionless else np.asarray(template.mu, dtype=float)[keep]
    system = cm.ContactSystem(M=d.M, h=d.h, S=mechanism.actuator_matrix(), J=d.J[rows], Jdot_qdot=d.Jdot_qdot[rows],
                              v_contact=d.v_contact[rows], mu=mu, coordinates=template.coordinates,
                              torques=template.torques, contacts=tuple(template.contacts[i] for i in keep),
                              v0=np.maximum(np.asarray(template.v0, dtype=float)[keep], v0_floor or 0.0),
                              name=template.name, scales=scales)
    h_rest = mechanism.dynamics(q, np.zeros_like(qdot)).h
    return system, keep, h_rest


def _reachable(outcome, lo, hi) -> bool:
    """A consistent outcome whose torque set (if any) meets the box ``[lo, hi]``."""
    if not outcome.consistent:
        return False
    if outcome.torque_set is None:
        return True
    box = Polytope.box(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    return any(not P.intersect(box).is_empty() for P in outcome.torque_set)


def choose_outcome(result, lo=None, hi=None):
    """The outcome of an ``ImpactResult`` the controller follows (module docstring's rule).

    Parameters
    ----------
    result : ImpactResult
        From ``contactmodes.impact``.
    lo, hi : numpy.ndarray, optional
        ``(n_τ,)`` the torque box (needed only when outcomes carry torque sets).

    Returns
    -------
    chosen : ImpactOutcome or None
        ``None`` when no outcome is reachable.
    reachable : list[ImpactOutcome]
        Every reachable outcome, in enumeration order.
    """
    reachable = [o for o in result.outcomes if _reachable(o, lo, hi)]
    if not reachable:
        return None, reachable
    scope = result.scope.in_scope.tolist()
    kept = [sum(1 for c, s in zip(o.mode, scope) if s and c != "S") for o in reachable]
    most = max(kept)
    best = [o for o, n in zip(reachable, kept) if n == most]
    qd = np.asarray(result.qdot_minus, dtype=float)
    before = 0.5 * float(qd @ result.system.M @ qd)
    top = max(o.energy_loss for o in best)
    best = [o for o in best if o.energy_loss >= top - CONSISTENCY_RTOL * max(before, 1e-300)]
    return best[0], reachable  # enumeration order: result.outcomes' order is kept


def torque_box(td: Touchdown, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """The torque box of the post-impact optimization.

    ``[lo, hi]`` cut to the bounding box of the first piece of the chosen outcome's torque set that
    meets it (unchanged without a torque set). The torques that make the outcome consistent act
    during the impact; the step applies one torque, so it keeps to them: exactly with one actuator
    (the piece is an interval), the piece's box with several (``Touchdown.torque_in_set`` records
    the check).

    Parameters
    ----------
    td : Touchdown
        The resolved touchdown.
    lo, hi : array_like
        ``(n_τ,)`` the torque box, the system's units.

    Returns
    -------
    lo, hi : numpy.ndarray
        ``(n_τ,)`` each.
    """
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if td.torque_set is None:
        return lo, hi
    box = Polytope.box(lo, hi)
    for P in td.torque_set:
        K = P.intersect(box)
        if not K.is_empty():
            a, b = K.bounding_box()
            return np.maximum(lo, a), np.minimum(hi, np.maximum(b, a))
    return lo, hi


def _label(mode: str, keep: np.ndarray, k: int) -> str:
    letters = ["S"] * k
    for i, c in zip(keep.tolist(), mode):
        letters[i] = c
    return "".join(letters)


def resolve_touchdown(mechanism, template, q, qdot, lo=None, hi=None, pseudo_impulse: float = 0.0,
                      gap_tol: float | None = None, v0_floor: float | None = None) -> Touchdown:
    """The impact at a touchdown state and the outcome the controller follows (module docstring).

    Parameters
    ----------
    mechanism : PlanarMechanism
        The system file's mechanism.
    template : ContactSystem
        The system file's ``ContactSystem``.
    q, qdot : numpy.ndarray
        ``(n_q,)`` the state, ``qdot`` = ``q̇⁻`` (the system's units).
    lo, hi : numpy.ndarray, optional
        ``(n_τ,)`` the torque box at the pre-impact actuator speeds (for the torque sets).
    pseudo_impulse : float, optional
        ``δ_t`` (s) of thesis eq. (39); 0 for none.
    gap_tol : float, optional
        As ``MechanismStep``'s.
    v0_floor : float, optional
        As ``impact_system``'s.

    Returns
    -------
    Touchdown

    Raises
    ------
    ContactModelError
        No outcome even without friction (module docstring, *Fallback*).
    """
    system, keep, h_rest = impact_system(mechanism, template, q, qdot, gap_tol, v0_floor=v0_floor)
    result = cm.impact(system, qdot=qdot, pseudo_impulse=pseudo_impulse, h_rest=h_rest)
    chosen, reachable = choose_outcome(result, lo, hi)
    status = "impact"
    if chosen is None:
        system, keep, h_rest = impact_system(mechanism, template, q, qdot, gap_tol, frictionless=True, v0_floor=v0_floor)
        result = cm.impact(system, qdot=qdot)
        chosen, reachable = choose_outcome(result)
        status = "frictionless"
        if chosen is None:
            raise ContactModelError("touchdown: no plastic impact outcome, even without friction, at this state")
    k = len(template.contacts)
    names = [c for c, a in zip(system.contacts, result.scope.approaching.tolist()) if a]
    return Touchdown(status=status, outcome=_label(chosen.mode, keep, k),
                     consistent=tuple(_label(o.mode, keep, k) for o in reachable), approaching=tuple(names),
                     qdot_minus=np.asarray(qdot, dtype=float).copy(), qdot_plus=np.asarray(chosen.qdot_plus, dtype=float),
                     qdot_plus_ambiguous=chosen.qdot_plus_set is not None, energy_loss=float(chosen.energy_loss),
                     impulse=np.asarray(chosen.impulse, dtype=float), torque_set=chosen.torque_set)

