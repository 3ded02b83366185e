"""The outcomes of one impact in the user's units, and their JSON document ``contactmodes.impact/1``."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from polytopes import Polytope

from contactmodes import tolerances, views
from contactmodes.impact.scope import ImpactScope
from contactmodes.model.system import ContactSystem
from contactmodes.modes.contact_model import PLANAR_POINT

__all__ = ["ImpactOutcome", "ImpactResult", "SCHEMA"]

SCHEMA = "contactmodes.impact/1"


@dataclass
class ImpactOutcome:
    """One outcome of an impact (``contactmodes.impact.equations``), in the system's units.

    ``n_q`` coordinates, ``k`` contacts, ``n_τ`` torques; quantities are ``None`` when the outcome
    is not consistent.

    Attributes
    ----------
    mode : str
        One letter per contact, the contact model's: planar ``F`` sticks, ``L``/``R`` slides,
        ``S`` released or separating; spatial ``S``, ``F``, a side or vertex letter of the
        friction polygon (slides), ``D`` a frictionless contact sliding after the impact.
    consistent : bool
        The outcome's conditions have a solution (with a pseudo-impulse: for some torque).
    qdot_plus : numpy.ndarray or None
        ``(n_q,)`` a post-impact velocity ``q̇⁺`` of the outcome (m/s, rad/s in SI); the only one
        unless ``qdot_plus_set`` is given.
    impulse : numpy.ndarray or None
        ``(c k,)`` the impulse each contact transmits (N·s) at that solution, ``c`` components
        per contact in the contact model's order (planar ``(P_t1, P_n1, …)``, spatial ``(P_t1_1,
        P_t2_1, P_n_1, …)``):
        the plastic impulse ``P`` (thesis eq. 10), or ``P + δ_t f`` (eq. 40, at ``torque``) for
        a contact kept by the pseudo-impulse (``pseudo_kept``). Normal components ``>= 0``.
    energy_loss : float or None
        ``½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺`` (J), its definition; never negative
        (``contactmodes.impact.equations``, *Energy*).
    qdot_plus_set : tuple or None
        When the outcome leaves ``q̇⁺`` ambiguous: ``(offset (n_q,), directions (n_q, n_w),
        W)``, ``q̇⁺ = offset + directions · w`` for ``w`` in the polytope ``W`` (the ambiguity
        variables of the nondimensional response, ``contactmodes.modes.response``).
    impulse_ambiguous : bool
        The impulses vary over the outcome's solutions (e.g. two sticking contacts of one rigid
        body share a tangential impulse).
    torque_set : list[Polytope] or None
        With a pseudo-impulse and actuators: the torques for which the outcome is consistent, a
        union of polytopes over ``τ`` (user units), within the torque box; ``None`` otherwise.
    plastic_impulse : numpy.ndarray or None
        ``(c k,)`` the plastic impulse ``P`` of thesis eq. (10), the one that changes the velocity:
        ``M (q̇⁺ − q̇⁻) = Jᵀ P`` (N·s). Equal to ``impulse`` except on the contacts kept by the
        pseudo-impulse, where its normal component may be negative (the thesis's ``P_1n = −1.47``
        N·s at RHex's front leg): the rest, ``δ_t f``, is transmitted over the impact's duration.
    pseudo_kept : tuple[str, ...]
        The contacts whose cone holds only with the pseudo-impulse at the reported solution
        (empty without one).
    torque : numpy.ndarray or None
        ``(n_τ,)`` the torque of the reported solution (a point of ``torque_set``; user units),
        with a pseudo-impulse and actuators; ``None`` otherwise.
    """

    mode: str
    consistent: bool
    qdot_plus: np.ndarray | None = None
    impulse: np.ndarray | None = None
    energy_loss: float | None = None
    qdot_plus_set: tuple[np.ndarray, np.ndarray, Polytope] | None = field(default=None, repr=False)
    impulse_ambiguous: bool = False
    torque_set: list[Polytope] | None = field(default=None, repr=False)
    plastic_impulse: np.ndarray | None = None
    pseudo_kept: tuple[str, ...] = ()
    torque: np.ndarray | None = None

    def to_json(self, contacts, components=("t", "n")) -> dict:
        """The outcome's entry of ``contactmodes.impact/1``.

        Parameters
        ----------
        contacts : Sequence[str]
            The ``k`` contact names (impulses are listed per contact).
        components : Sequence[str], optional
            The contact model's component names (default the planar ``t``, ``n``): the keys of
            each contact's impulse.

        Returns
        -------
        dict
            JSON-ready, the system's units.
        """
        out: dict = {"mode": self.mode, "consistent": self.consistent, "qdot_plus": None, "qdot_plus_set": None,
                     "impulse": None, "plastic_impulse": None, "impulse_ambiguous": self.impulse_ambiguous,
                     "pseudo_kept": list(self.pseudo_kept), "energy_loss": self.energy_loss, "torque_set": None,
                     "torque": None if self.torque is None else [float(v) for v in self.torque]}
        if self.qdot_plus is not None:
            out["qdot_plus"] = [float(v) for v in self.qdot_plus]
        for key, value in (("impulse", self.impulse), ("plastic_impulse", self.plastic_impulse)):
            if value is not None:
                nc = len(components)
                out[key] = [{"contact": name, **{c: float(value[nc * i + j]) for j, c in enumerate(components)}}
                            for i, name in enumerate(contacts)]
        if self.qdot_plus_set is not None:
            offset, directions, W = self.qdot_plus_set
            out["qdot_plus_set"] = {"offset": [float(v) for v in offset], "directions": directions.tolist(),
                                    "w": W.to_json()}
        if self.torque_set is not None:
            out["torque_set"] = [T.to_json() for T in self.torque_set]
        return out


@dataclass
class ImpactResult:
    """Every outcome of one impact (``contactmodes.impact.outcomes.impact``).

    Attributes
    ----------
    system : ContactSystem
        The pre-impact system (user units).
    qdot_minus : numpy.ndarray
        ``(n_q,)`` the pre-impact velocity ``q̇⁻``.
    pseudo_impulse : float
        ``δ_t`` (s); 0 without a pseudo-impulse.
    scope : ImpactScope
        Which contacts approach, touch or separate (Table III on the nondimensional system).
    outcomes : list[ImpactOutcome]
        Every outcome, in enumeration order (``ImpactScope.outcomes``).
    source : str or None
        The system file, when given by path.
    torque_box : tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)``, each ``(n_τ,)``: the torques allowed during the pseudo-impulse (user
        units, ``±inf`` for an open end); ``None`` without a pseudo-impulse or a box.
    """

    system: ContactSystem
    qdot_minus: np.ndarray
    pseudo_impulse: float
    scope: ImpactScope
    outcomes: list[ImpactOutcome]
    source: str | None = None
    torque_box: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def consistent_modes(self) -> list[str]:
        """The consistent outcomes' mode strings: none means impact-inconsistent, several
        impact-ambiguous."""
        return [o.mode for o in self.outcomes if o.consistent]

    def outcome(self, mode: str) -> ImpactOutcome:
        """The outcome of ``mode``.

        Parameters
        ----------
        mode : str
            An outcome string (one letter per contact).

        Returns
        -------
        ImpactOutcome
            Consistent or not.

        Raises
        ------
        KeyError
            If ``mode`` is not an outcome of this impact.
        """
        for o in self.outcomes:
            if o.mode == mode:
                return o
        raise KeyError(mode)

    def to_json(self) -> dict:
        """The ``contactmodes.impact/1`` document (``contactmodes/schemas``).

        A system whose contact model is not the planar one adds ``"components"`` and
        ``"letters"`` (as ``ContactSystem.to_json``), and its impulses are keyed by those
        components (spatial ``t1``, ``t2``, ``n``); a planar document is unchanged.
        """
        s = self.system
        names = lambda mask: [c for c, m in zip(s.contacts, mask.tolist()) if m]  # noqa: E731
        components = tuple(s.contact_model.components)
        model_keys = {} if s.contact_model is PLANAR_POINT else {
            "components": list(components), "letters": str(s.contact_model.letters)}
        return {
            "schema": SCHEMA,
            "system": s.name,
            "source": self.source,
            "coordinates": list(s.coordinates),
            "torques": list(s.torques),
            "contacts": list(s.contacts),
            **model_keys,
            "qdot_minus": [float(v) for v in self.qdot_minus],
            "pseudo_impulse": float(self.pseudo_impulse),
            "torque_box": None if self.torque_box is None else {
                "lo": [None if np.isinf(v) else float(v) for v in self.torque_box[0]],
                "hi": [None if np.isinf(v) else float(v) for v in self.torque_box[1]]},
            "scope": {"approaching": names(self.scope.approaching), "touching": names(self.scope.touching),
                      "separating": names(self.scope.separating)},
            "consistent_modes": self.consistent_modes,
            "outcomes": [o.to_json(s.contacts, components) for o in self.outcomes],
        }

    def format_text(self) -> str:
        """A short human-readable report: the scope, then one line per consistent outcome
        (``contactmodes.output.impact_text.format_impact``, reached through ``contactmodes.views``:
        the output stage draws the results of the earlier ones)."""
        return views.render("impact", "text", self)

    def box_text(self) -> str:
        """The torque box as ``name lo:hi`` per bounded actuator (``any`` when none is)."""
        if self.torque_box is None:
            return "any"
        lo, hi = self.torque_box
        ends = lambda v: "" if np.isinf(v) else f"{v:g}"  # noqa: E731
        parts = [f"{name} {ends(a)}:{ends(b)}" for name, a, b in zip(self.system.torques, lo, hi)
                 if np.isfinite(a) or np.isfinite(b)]
        return ", ".join(parts) or "any"

    def distinct_velocities(self) -> int:
        """How many different ``q̇⁺`` the consistent outcomes have (outcomes on a boundary, e.g.
        ``F`` and ``L`` at zero sliding speed, share one): equal within ``CONSISTENCY_RTOL``
        times, per coordinate, the largest magnitude of that coordinate's velocity before and
        after, and at least its unit velocity (``contactmodes.model.scaling``: a coordinate at
        rest before and after, the box's yaw rate landing flat, has only rounding noise, 1e-16,
        to tell outcomes apart), so the count does not depend on the units."""
        found = [o.qdot_plus for o in self.outcomes if o.consistent and o.qdot_plus is not None]
        sc = self.system.scaling
        unit = np.asarray(sc.qdd, dtype=float) * sc.scales.time  # each coordinate's velocity unit
        scale = tolerances.CONSISTENCY_RTOL * np.maximum(np.max(np.abs(np.vstack([self.qdot_minus, *found])), axis=0),
                                                         unit)
        seen: list[np.ndarray] = []
        for v in found:
            if not any(np.all(np.abs(v - u) <= scale) for u in seen):
                seen.append(v)
        return len(seen)

    def scope_names(self, group: str) -> str:
        """The names of the contacts of ``group`` (``"approaching"``, ``"touching"``,
        ``"separating"``), comma-separated.

        Parameters
        ----------
        group : str
            ``"approaching"``, ``"touching"`` or ``"separating"``.

        Returns
        -------
        str
            ``""`` for an empty group.
        """
        mask = getattr(self.scope, group)
        return ", ".join(c for c, m in zip(self.system.contacts, mask.tolist()) if m)

