"""Which contacts an impact concerns, and the outcomes to test (thesis Sec. 5.1.2–5.1.3).

The Table III classification (``contactmodes.modes.contact_conditions.classify_velocities``, on
the nondimensional system) splits the contacts of a state into three groups:

* **approaching** (``v_n < −ε_i``): the contacts the impact is about;
* **touching** (``|v_n| <= ε_i``): existing contacts that the impact may keep or release;
* **separating** (``v_n > ε_i``): outside the impact's scope; they keep their Table III letter
  ``S`` and carry no impulse.

The contacts in scope (approaching and touching) each take one of the outcome letters of the
system's contact model (``impact_letters``; planar ``F`` sticks, plastic, ``L``/``R`` slides towards
``−t``/``+t`` with the impulse on the friction cone's edge, ``S`` released, no impulse; spatial
``S``, ``F``, the side and vertex letters of its friction polygon,
``contactmodes.modes.spatial_contact``); an *outcome* is one letter per contact over all contacts
(separating ones ``S``), e.g. ``"SF"``. Enumeration order: the model's (planar ``"FSLR"``) per
contact, the first contact varying slowest (as ``itertools.product``).

A frictionless contact (``μ = 0``) has no tangential impulse, so its kept letters differ only in
the post-impact sliding velocity: it is enumerated with ``F`` and ``S`` only, its ``F`` meaning
*kept by the normal row* (normal velocity zero, no tangential impulse: the model's
``normal_row_rows``), and a consistent outcome is reported under the letter of its tangential
velocity (the model's ``frictionless_letter``: planar ``L``/``R`` when it slides beyond the
Table III threshold, spatial ``D``, else ``F``; ``contactmodes.impact.outcomes``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_conditions import classify_velocities
from contactmodes.model.system import ContactSystem
from contactmodes.modes.contact_model import PLANAR_POINT

__all__ = ["IMPACT_INTERFACE", "ImpactScope", "impact_scope", "require_impact_model"]


@dataclass(frozen=True)
class ImpactScope:
    """The contacts an impact concerns (module docstring), ``k`` contacts.

    Attributes
    ----------
    approaching : numpy.ndarray
        ``(k,)`` bool: normal velocity below ``−ε_i`` (Table III).
    touching : numpy.ndarray
        ``(k,)`` bool: normal velocity within ``±ε_i`` (an existing contact).
    separating : numpy.ndarray
        ``(k,)`` bool: normal velocity above ``ε_i``; outside the scope.
    threshold : numpy.ndarray
        ``(k,)`` the thresholds ``ε_i`` of the classified system (its velocity units).
    frictionless : numpy.ndarray
        ``(k,)`` bool: ``μ = 0``.
    model : object
        The system's contact model (``ContactSystem.contact_model``): the outcome letters.
    """

    approaching: np.ndarray
    touching: np.ndarray
    separating: np.ndarray
    threshold: np.ndarray
    frictionless: np.ndarray
    model: Any = PLANAR_POINT

    @property
    def in_scope(self) -> np.ndarray:
        """``(k,)`` bool: approaching or touching."""
        return self.approaching | self.touching

    def outcomes(self) -> list[str]:
        """Every outcome string: per contact the model's ``impact_letters`` (planar ``"FSLR"`` in
        scope, ``"FS"`` if frictionless, ``"S"`` out of scope)."""
        choices = [self.model.impact_letters(s, f) for s, f in zip(self.in_scope.tolist(), self.frictionless.tolist())]
        return ["".join(c) for c in itertools.product(*choices)]


def impact_scope(system: ContactSystem) -> ImpactScope:
    """The ``ImpactScope`` of ``system`` by the Table III rule, decided in the system's own
    velocity units (call it on the nondimensional system, ``contactmodes.model.scaling``).

    Parameters
    ----------
    system : ContactSystem
        The system at the impact (normally its nondimensional form).

    Returns
    -------
    ImpactScope
        The approaching, touching and separating contacts, the thresholds and the frictionless
        flags.

    Raises
    ------
    ContactModelError
        For a system whose contact model has no impact rows (``require_impact_model``).
    """
    model = system.contact_model
    require_impact_model(model)
    pattern = classify_velocities(system, check_approaching=False)
    c = len(model.components)
    v = np.asarray(system.v_contact, dtype=float).reshape(-1, c)
    vn = np.array([model.velocity_class(vi, e).normal for vi, e in zip(v.tolist(), pattern.threshold.tolist())])
    touching = np.asarray(pattern.n_zero, dtype=bool)
    approaching = ~touching & (vn < 0.0)
    return ImpactScope(approaching, touching, ~touching & ~approaching, np.asarray(pattern.threshold, dtype=float),
                       np.asarray(system.mu, dtype=float) == 0.0, model)


IMPACT_INTERFACE = ("impact_letters", "impact_rows", "normal_row_rows", "impact_guarded_letters",
                    "frictionless_letter")
"""The members of a contact model the impact reads (``docs/contact-types.md``)."""


def require_impact_model(model: object) -> None:
    """Refuse a contact model without the impact's members (``IMPACT_INTERFACE``), in one line.

    ``ContactSystem`` checks only the members every analysis needs; a contact type without an
    impact law can still be analysed, and is refused here.

    Parameters
    ----------
    model : object
        The system's contact model.

    Raises
    ------
    ContactModelError
        ``"impact: the contact model <type> has no impact rows (missing …)"``.
    """
    missing = [name for name in IMPACT_INTERFACE if not hasattr(model, name)]
    if missing:
        raise ContactModelError(f"impact: the contact model {type(model).__name__} has no impact rows "
                                f"(missing {', '.join(missing)})")
