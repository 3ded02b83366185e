"""Which contacts an impact concerns, and the outcomes to test (thesis Sec. 5.1.2–5.1.3).

The Table III classification (``contactmodes.modes.contact_conditions.classify_velocities``, on
the nondimensional system) splits the contacts of a state into three groups:

* **approaching** (``v_n < −ε_i``): the contacts the impact is about;
* **touching** (``|v_n| <= ε_i``): existing contacts that the impact may keep or release;
* **separating** (``v_n > ε_i``): outside the impact's scope; they keep their Table III letter
  ``S`` and carry no impulse.

The contacts in scope (approaching and touching) each take one of the outcome letters
``F`` (sticks, plastic), ``L``/``R`` (slides towards ``−t``/``+t`` with the impulse on the
friction cone's edge), ``S`` (released, no impulse); an *outcome* is one letter per contact over
all contacts (separating ones ``S``), e.g. ``"SF"``. Enumeration order ``"FSLR"`` per contact, the
first contact varying slowest (as ``itertools.product``).

A frictionless contact (``μ = 0``) has no tangential impulse, so its kept letters ``F``, ``L``,
``R`` differ only in the sign of the post-impact sliding velocity: it is enumerated with ``"FS"``
only, its ``F`` meaning *kept by the normal row* (``J_n q̇⁺ = 0``, ``P_t = 0``), and a consistent
outcome is reported under the letter of its tangential velocity (``L``/``R`` when it slides beyond
the Table III threshold, else ``F``; ``contactmodes.impact.outcomes``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from contactmodes.modes.contact_model import require_planar
from contactmodes.modes.contact_conditions import MODE_LETTERS, classify_velocities
from contactmodes.model.system import ContactSystem

__all__ = ["ImpactScope", "impact_scope"]


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
    """

    approaching: np.ndarray
    touching: np.ndarray
    separating: np.ndarray
    threshold: np.ndarray
    frictionless: np.ndarray

    @property
    def in_scope(self) -> np.ndarray:
        """``(k,)`` bool: approaching or touching."""
        return self.approaching | self.touching

    def outcomes(self) -> list[str]:
        """Every outcome string: ``"FSLR"`` for each contact in scope (``"FS"`` if frictionless),
        ``"S"`` for the others."""
        choices = [("FS" if f else MODE_LETTERS) if s else "S"
                   for s, f in zip(self.in_scope.tolist(), self.frictionless.tolist())]
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
        For a system whose contact model is not the planar one (``"impact: planar contact
        systems only for now (issue 40)"``).
    """
    require_planar(system.contact_model, "impact")
    pattern = classify_velocities(system, check_approaching=False)
    vn = np.asarray(system.v_contact, dtype=float).reshape(-1, 2)[:, 1]
    touching = np.asarray(pattern.n_zero, dtype=bool)
    approaching = ~touching & (vn < 0.0)
    return ImpactScope(approaching, touching, ~touching & ~approaching, np.asarray(pattern.threshold, dtype=float),
                       np.asarray(system.mu, dtype=float) == 0.0)
