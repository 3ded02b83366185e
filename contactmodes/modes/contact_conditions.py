"""The contact-mode alphabet, its validator, the velocity classification of Table III and the one
table of per-contact rows of Tables I–II (flipping paper, eqs. 7–10).

Every module that needs a mode's contact constraints — the enumeration (``contactmodes.modes.enumeration``)
and the response (``contactmodes.modes.response``) — reads them from ``contact_rows``; nothing
else spells them out.

Letters (``CONVENTIONS``): ``F`` fixed, ``S`` separating, ``L`` sliding towards ``−t``, ``R``
sliding towards ``+t``; a system mode is one letter per contact in contact order. Enumeration
order is ``"FSLR"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from contactmodes import tolerances
from contactmodes.errors import ApproachingContactError, ContactModelError
from contactmodes.model.system import ContactSystem

__all__ = ["MODE_LETTERS", "ContactRows", "VelocityPattern", "classify_arrays", "classify_velocities", "contact_rows",
           "validate_mode"]

MODE_LETTERS = "FSLR"
"""The per-contact mode letters, in enumeration order."""


def validate_mode(mode: object, contacts: Sequence[str], where: str = "mode") -> str:
    """Return ``mode`` if it is a string of one letter of ``"FSLR"`` per contact; else raise
    ``ContactModelError`` naming ``where`` (e.g. ``"--mode"``)."""
    k = len(contacts)
    if not isinstance(mode, str) or len(mode) != k or any(c not in MODE_LETTERS for c in mode):
        raise ContactModelError(
            f"{where}: {mode!r} is not a contact mode: expected {k} letters from '{MODE_LETTERS}' "
            f"(one per contact {list(contacts)})"
        )
    return mode


@dataclass(frozen=True)
class VelocityPattern:
    """Table III classification of every contact's velocity (flipping paper, Sec. III-F).

    ``k`` contacts.

    Attributes
    ----------
    threshold : numpy.ndarray
        ``(k,)`` ``ε_i``: a velocity component of contact ``i`` counts as zero when
        ``|v| <= ε_i`` (same units as the system's velocities).
    t_zero, n_zero : numpy.ndarray
        ``(k,)`` bool: tangential / normal velocity counts as zero.
    allowed : tuple[str, ...]
        Per contact, the letters Table III keeps, in ``"FSLR"`` order (e.g. ``"SR"``).
    """

    threshold: np.ndarray
    t_zero: np.ndarray
    n_zero: np.ndarray
    allowed: tuple[str, ...]

    @property
    def key(self) -> tuple:
        """Hashable summary (``allowed`` plus the zero flags): two states with the same key
        have the same candidate modes and the same acceleration-row structure."""
        return (self.allowed, tuple(map(bool, np.asarray(self.t_zero).tolist())),
                tuple(map(bool, np.asarray(self.n_zero).tolist())))


def classify_velocities(system: ContactSystem, check_approaching: bool = True) -> VelocityPattern:
    """Table III for ``system`` (its velocities in its own units).

    Threshold ``ε_i = max(VELOCITY_RTOL · max(V, max_j |ẋ_j|), v0_i)`` with ``V`` the
    characteristic velocity of the system (1 in a nondimensionalized system,
    ``contactmodes.model.scaling``) and ``v0_i`` the contact's threshold of Sec. IV-C.3. Per contact:
    ``v_n < −ε_i`` approaching (error); ``v_n > ε_i``: ``S``; else ``v_t > ε_i``: ``S, R``;
    ``v_t < −ε_i``: ``S, L``; else ``F, S, L, R``.

    Raises
    ------
    ApproachingContactError
        Naming the first contact with ``v_n < −ε_i`` (no solution without an impact law), unless
        ``check_approaching`` is false (assembling one mode's rows, where the enumeration has
        already decided).
    """
    velocity = 1.0 if system.scales is None else system.scales.velocity
    return classify_arrays(system.v_contact, system.v0, velocity, system.contacts, check_approaching)


def classify_arrays(v_contact, v0, velocity: float, contacts: Sequence[str],
                    check_approaching: bool = True) -> VelocityPattern:
    """``classify_velocities`` on plain arrays: contact velocities ``v_contact`` (2k,),
    thresholds ``v0`` (k,), the characteristic velocity ``velocity`` and the contact names (for
    the error message), all in one system of units."""
    v = np.asarray(v_contact, dtype=float).reshape(-1, 2)
    k = v.shape[0]
    scale = max(velocity, float(np.abs(v).max(initial=0.0)))
    eps = np.maximum(tolerances.VELOCITY_RTOL * scale, np.asarray(v0, dtype=float))
    vl, el = v.tolist(), eps.tolist()  # Python floats: the same comparisons, cheaper for a few contacts
    for i in range(k if check_approaching else 0):
        if vl[i][1] < -el[i]:
            raise ApproachingContactError(
                f"contact {i} ({contacts[i]}): approaching, normal velocity {vl[i][1]:g} < "
                f"-{el[i]:g}; the rigid model without an impact law has no solution at this state "
                f"(its plastic impact outcomes: contactmodes impact FILE, or contactmodes.impact)"
            )
    t_zero = [abs(vt) <= e for (vt, _), e in zip(vl, el)]
    n_zero = [abs(vn) <= e for (_, vn), e in zip(vl, el)]
    allowed = []
    for (vt, _), e, nz in zip(vl, el, n_zero):
        if not nz:
            allowed.append("S")
        elif vt > e:
            allowed.append("SR")
        elif vt < -e:
            allowed.append("SL")
        else:
            allowed.append("FSLR")
    return VelocityPattern(eps, np.array(t_zero, dtype=bool), np.array(n_zero, dtype=bool), tuple(allowed))


@dataclass(frozen=True)
class ContactRows:
    """The rows one contact contributes to a mode (Tables I–II), in the contact's own components.

    Components are ``0`` (tangential ``t``) and ``1`` (normal ``n``).

    Attributes
    ----------
    accel_eq : tuple[int, ...]
        Components ``c`` with ``ẍ_c = 0`` (eq. 7).
    accel_geq : tuple[tuple[int, float], ...]
        ``(c, sign)`` with ``sign · ẍ_c >= 0`` (eq. 9; strict in the kinematic test of
        footnote 5, non-strict in the domain).
    force_eq : tuple[tuple[float, float], ...]
        ``(a_t, a_n)`` with ``a_t f_t + a_n f_n = 0`` (eq. 8).
    force_geq : tuple[tuple[float, float], ...]
        ``(a_t, a_n)`` with ``a_t f_t + a_n f_n >= 0`` (eq. 10 and Table I).
    """

    accel_eq: tuple[int, ...]
    accel_geq: tuple[tuple[int, float], ...]
    force_eq: tuple[tuple[float, float], ...]
    force_geq: tuple[tuple[float, float], ...]


def contact_rows(letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
    """The rows of one contact in mode ``letter`` (flipping paper, Tables I–II, eqs. 7–10).

    ``F``: ``ẍ_t = ẍ_n = 0``; ``μ f_n − f_t >= 0``, ``μ f_n + f_t >= 0``, ``f_n >= 0`` (the last
    is implied when ``μ > 0`` but needed when ``μ = 0``).
    ``S``: ``f_t = f_n = 0``; ``ẍ_n >= 0`` when the normal velocity is zero.
    ``L``: ``ẍ_n = 0``, ``f_t − μ f_n = 0``, ``f_n >= 0``; ``−ẍ_t >= 0`` when the tangential
    velocity is zero. ``R``: as ``L`` with ``f_t + μ f_n = 0`` and ``ẍ_t >= 0``.
    """
    if letter == "F":
        return ContactRows((0, 1), (), (), ((-1.0, mu), (1.0, mu), (0.0, 1.0)))
    if letter == "S":
        return ContactRows((), ((1, 1.0),) if n_zero else (), ((1.0, 0.0), (0.0, 1.0)), ())
    if letter in "LR":
        sign = -1.0 if letter == "L" else 1.0
        return ContactRows((1,), ((0, sign),) if t_zero else (), ((1.0, sign * mu),), ((0.0, 1.0),))
    raise ContactModelError(f"mode letter: expected one of '{MODE_LETTERS}', got {letter!r}")


def relaxed_rows(allowed: str, n_zero: bool) -> tuple[tuple[int, float], ...]:
    """Acceleration rows common to every letter in ``allowed`` for a contact (non-strict), as
    ``(component, sign)`` with ``sign · ẍ_c >= 0``: the relaxation used for an unassigned contact
    in the enumeration (``contactmodes.modes.enumeration.enumerate_modes``). With a zero normal velocity
    every mode has ``ẍ_n >= 0`` (``S``: strict inequality; ``F``, ``L``, ``R``: equality);
    otherwise only ``S`` is allowed and nothing is common."""
    return ((1, 1.0),) if n_zero and allowed else ()
