"""The contact-mode alphabet, its validator and the velocity classification of Table III
(flipping paper, Sec. III-F), with the per-contact rows of Tables I–II (eqs. 7–10) read from the
contact model (``contactmodes.modes.contact_model.PLANAR_POINT``).

Every module that needs a mode's contact constraints — the constraints (24) and (32), the
enumeration, the real-time plans, the impact — reads them from ``contact_rows`` (the model's
``rows``); nothing else spells them out.

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
from contactmodes.modes.contact_model import PLANAR_POINT, ContactRows

__all__ = ["MODE_LETTERS", "ContactRows", "VelocityPattern", "classify_arrays", "classify_velocities", "contact_rows",
           "validate_mode"]

MODE_LETTERS = PLANAR_POINT.letters
"""The per-contact mode letters, in enumeration order (``"FSLR"``)."""


def validate_mode(mode: object, contacts: Sequence[str], where: str = "mode", letters: str = MODE_LETTERS) -> str:
    """Check that ``mode`` is a string of one letter of ``letters`` per contact.

    Parameters
    ----------
    mode : object
        The candidate mode.
    contacts : Sequence[str]
        The system's contact names (their number ``k`` is the mode's length).
    where : str, optional
        The field named in the error (e.g. ``"--mode"``).
    letters : str, optional
        The contact model's letters (``system.contact_model.letters``); default the planar
        ``"FSLR"``.

    Returns
    -------
    str
        ``mode`` itself.

    Raises
    ------
    ContactModelError
        Naming ``where``, the expected length and the contacts.
    """
    k = len(contacts)
    if not isinstance(mode, str) or len(mode) != k or any(c not in letters for c in mode):
        raise ContactModelError(
            f"{where}: {mode!r} is not a contact mode: expected {k} letters from '{letters}' "
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
        Per contact, the letters Table III keeps, in the model's letter order (planar
        ``"FSLR"``, e.g. ``"SR"``).
    row_args : tuple[tuple, ...]
        Per contact, the arguments after ``(letter, mu)`` of the contact model's ``rows``
        (``VelocityClass.row_args``: planar ``(t_zero, n_zero)``, spatial ``(t_zero, n_zero,
        slip)``); empty: ``(t_zero[i], n_zero[i])`` (a pattern built by hand for a planar
        system). Read it with ``args``.
    """

    threshold: np.ndarray
    t_zero: np.ndarray
    n_zero: np.ndarray
    allowed: tuple[str, ...]
    row_args: tuple[tuple, ...] = ()

    def args(self, i: int) -> tuple:
        """The arguments after ``(letter, mu)`` of the contact model's ``rows`` for contact ``i``.

        Parameters
        ----------
        i : int
            The contact's index.

        Returns
        -------
        tuple
            ``row_args[i]``, or ``(t_zero[i], n_zero[i])`` when ``row_args`` is empty.
        """
        return self.row_args[i] if self.row_args else (bool(self.t_zero[i]), bool(self.n_zero[i]))

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
    ``v_n < −ε_i`` approaching (error); the contact model's ``velocity_class`` gives the rest:
    planar, ``v_n > ε_i``: ``S``; else ``v_t > ε_i``: ``S, R``; ``v_t < −ε_i``: ``S, L``; else
    ``F, S, L, R``; spatial (``SpatialPointContact.velocity_class``), ``v_n > ε_i``: ``S``; else
    ``|v_t| > ε_i``: ``S, D`` (with the slip direction); else ``S``, ``F`` and the side and vertex
    letters.

    Parameters
    ----------
    system : ContactSystem
        The system at its state (its ``v_contact``, ``v0`` and ``scales.velocity``).
    check_approaching : bool, optional
        Raise for an approaching contact.

    Returns
    -------
    VelocityPattern
        Thresholds, zero flags and allowed letters per contact.

    Raises
    ------
    ApproachingContactError
        Naming the first contact with ``v_n < −ε_i`` (no solution without an impact law), unless
        ``check_approaching`` is false (assembling one mode's rows, where the enumeration has
        already decided).
    """
    velocity = 1.0 if system.scales is None else system.scales.velocity
    return classify_arrays(system.v_contact, system.v0, velocity, system.contacts, check_approaching,
                           model=system.contact_model)


def classify_arrays(v_contact, v0, velocity: float, contacts: Sequence[str],
                    check_approaching: bool = True, model=PLANAR_POINT) -> VelocityPattern:
    """``classify_velocities`` on plain arrays, all in one system of units.

    Parameters
    ----------
    v_contact : array_like
        ``(c k,)`` contact velocities, ``c = len(model.components)`` per contact (planar
        ``(v_t, v_n)``).
    v0 : array_like
        ``(k,)`` velocity thresholds (Sec. IV-C.3).
    velocity : float
        The characteristic velocity ``V`` (1 in a nondimensional system).
    contacts : Sequence[str]
        The contact names (for the error message).
    check_approaching : bool, optional
        Raise for an approaching contact.
    model : object, optional
        The contact model (``ContactSystem.contact_model``; default the planar point contact):
        its ``velocity_class`` classifies each contact's components against ``ε_i``.

    Returns
    -------
    VelocityPattern
        Thresholds, zero flags, allowed letters and ``rows`` arguments per contact.

    Raises
    ------
    ApproachingContactError
        As ``classify_velocities``.
    """
    v = np.asarray(v_contact, dtype=float).reshape(-1, len(model.components))
    k = v.shape[0]
    scale = max(velocity, float(np.abs(v).max(initial=0.0)))
    eps = np.maximum(tolerances.VELOCITY_RTOL * scale, np.asarray(v0, dtype=float))
    vl, el = v.tolist(), eps.tolist()  # Python floats: the same comparisons, cheaper for a few contacts
    classes = [model.velocity_class(vi, e) for vi, e in zip(vl, el)]
    for i in range(k if check_approaching else 0):
        if classes[i].normal < -el[i]:
            raise ApproachingContactError(
                f"contact {i} ({contacts[i]}): approaching, normal velocity {classes[i].normal:g} < "
                f"-{el[i]:g}; the rigid model without an impact law has no solution at this state "
                f"(its plastic impact outcomes: contactmodes impact FILE, or contactmodes.impact)"
            )
    return VelocityPattern(eps, np.array([c.t_zero for c in classes], dtype=bool),
                           np.array([c.n_zero for c in classes], dtype=bool), tuple(c.allowed for c in classes),
                           tuple(c.row_args for c in classes))


def contact_rows(letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
    """The rows of one contact in mode ``letter`` (flipping paper, Tables I–II, eqs. 7–10).

    ``PLANAR_POINT.rows`` (``contactmodes.modes.contact_model.PlanarPointContact.rows``: rows and
    errors there).

    Parameters
    ----------
    letter : str
        One of ``"FSLR"``.
    mu : float
        The contact's friction coefficient (``>= 0``).
    t_zero, n_zero : bool
        Whether the tangential / normal velocity counts as zero (Table III).

    Returns
    -------
    ContactRows
        The equality and inequality rows of the letter.

    Raises
    ------
    ContactModelError
        For a letter not in ``"FSLR"``.
    """
    return PLANAR_POINT.rows(letter, mu, t_zero, n_zero)


def relaxed_rows(allowed: str, n_zero: bool) -> tuple[tuple[int, float], ...]:
    """Acceleration rows common to every letter in ``allowed`` for a contact (non-strict).

    ``PLANAR_POINT.relaxed_rows``
    (``contactmodes.modes.contact_model.PlanarPointContact.relaxed_rows``).

    Parameters
    ----------
    allowed : str
        The letters Table III allows the contact (e.g. ``"FSLR"``).
    n_zero : bool
        Whether its normal velocity counts as zero.

    Returns
    -------
    tuple[tuple[int, float], ...]
        ``(component, sign)`` with ``sign · ẍ_c >= 0``.
    """
    return PLANAR_POINT.relaxed_rows(allowed, n_zero)
