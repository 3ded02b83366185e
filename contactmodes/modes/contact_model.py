"""The planar point contact: the one place that knows what a contact contributes to a mode.

A contact of this kind is a point on a link against a fixed line of the world. Its force and
acceleration (or, in an impact, impulse and velocity) have two *components*, tangential ``t`` and
normal ``n`` (``docs/conventions.md``: ``(t_i, n_i)`` right-handed, ``n_i`` out of the surface),
and its *letters* are those of the flipping paper's Tables I–II (``CONVENTIONS``): ``F`` fixed,
``S`` separating, ``L`` sliding towards ``−t``, ``R`` sliding towards ``+t``.

``PlanarPointContact`` holds, as data,

* the rows each letter adds to a mode (Tables I–II, eqs. 7–10): equalities on the contact's
  acceleration components and on its force, inequalities on both (``rows``);
* which letters a contact's velocity allows (Table III, ``allowed``) and the acceleration rows
  common to the allowed letters (``relaxed_rows``, the enumeration's relaxation);
* the same letters on ``(J q̇⁺, P)`` for a plastic impact (Johnson thesis Sec. 5.1.2:
  ``impact_rows``, the letters enumerated ``impact_letters``), and the one impact alternative
  outside the four letters, a contact kept by its normal row alone (``normal_row_rows``: the
  table's ``L`` row set with ``μ = 0`` and no sliding direction), the letters the pseudo-impulse
  guards (``impact_guarded_letters``) and the name of a kept frictionless contact after the
  impact (``frictionless_letter``); ``contactmodes.impact`` reads them from the system's model.

Everything that assembles a mode's equations reads its per-contact rows here: the constraints
(24) and (32) (``contactmodes.modes.constraints``), the enumeration, the real-time plans, the
impact (``contactmodes.impact.equations``) and the closed loop's prediction (through the mode's
response, ``controllers.simulation.prediction``). A spatial contact (components ``t1, t2, n`` and
more letters), or a contact between two bodies, would be a second class with the same methods; the
mode strings of this one do not change.

``PLANAR_POINT`` is the instance the toolkit uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Sequence

from contactmodes.errors import ContactModelError

__all__ = ["PLANAR_POINT", "ContactRows", "PlanarPointContact", "VelocityClass", "require_planar"]


@dataclass(frozen=True)
class ContactRows:
    """The rows one contact contributes to a mode (Tables I–II), in the contact's own components.

    Components are numbered in the contact model's ``components`` order: ``0`` (tangential
    ``t``) and ``1`` (normal ``n``) for the planar point contact; ``0, 1, 2`` (``t1, t2, n``) for
    the spatial one (``contactmodes.modes.spatial_contact``). Force rows and direction rows are
    coefficient tuples with one coefficient per component, in ``components`` order. "Acceleration"
    reads "velocity" and "force" reads "impulse" in an impact (``PlanarPointContact.impact_rows``).

    Attributes
    ----------
    accel_eq : tuple[int, ...]
        Components ``c`` with ``ẍ_c = 0`` (eq. 7).
    accel_geq : tuple[tuple[int, float], ...]
        ``(c, sign)`` with ``sign · ẍ_c >= 0`` (eq. 9; strict in the kinematic test of
        footnote 5, non-strict in the domain).
    force_eq : tuple[tuple[float, ...], ...]
        Coefficients ``a`` with ``Σ_c a_c f_c = 0`` (eq. 8); planar: ``(a_t, a_n)``.
    force_geq : tuple[tuple[float, ...], ...]
        Coefficients ``a`` with ``Σ_c a_c f_c >= 0`` (eq. 10 and Table I); planar: ``(a_t, a_n)``.
    accel_eq_dirs : tuple[tuple[float, ...], ...]
        Coefficients ``a`` with ``Σ_c a_c ẍ_c = 0``: an acceleration along a direction that is not
        a component (the spatial contact's side letters). Empty for the planar contact.
    accel_geq_dirs : tuple[tuple[float, ...], ...]
        Coefficients ``a`` with ``Σ_c a_c ẍ_c >= 0`` (strict or not as ``accel_geq``): the spatial
        contact's side and vertex letters. Empty for the planar contact.
    """

    accel_eq: tuple[int, ...]
    accel_geq: tuple[tuple[int, float], ...]
    force_eq: tuple[tuple[float, ...], ...]
    force_geq: tuple[tuple[float, ...], ...]
    accel_eq_dirs: tuple[tuple[float, ...], ...] = ()
    accel_geq_dirs: tuple[tuple[float, ...], ...] = ()


class VelocityClass(NamedTuple):
    """One contact's velocity classified by its contact model (Table III, ``velocity_class``).

    Attributes
    ----------
    allowed : str
        The letters the velocity allows, in the model's ``letters`` order.
    t_zero : bool
        The tangential velocity (planar: ``|v_t|``; spatial: the speed ``|(v_t1, v_t2)|``) is
        within the threshold.
    n_zero : bool
        The normal velocity is within the threshold.
    normal : float
        The normal velocity ``v_n`` (the approach test: ``v_n < −ε`` is approaching).
    row_args : tuple
        The arguments after ``(letter, mu)`` of the model's ``rows`` for this contact: planar
        ``(t_zero, n_zero)``; spatial ``(t_zero, n_zero, slip)`` with ``slip`` the unit slip
        direction (``None`` at rest).
    """

    allowed: str
    t_zero: bool
    n_zero: bool
    normal: float
    row_args: tuple


@dataclass(frozen=True)
class _Letter:
    """One letter of Tables I–II as data.

    ``accel_eq``: components held at zero. ``accel_geq``: ``(component, sign, when)`` with
    ``when`` ``"t_zero"`` or ``"n_zero"``, the velocity component that must be zero for the
    row to apply (Table III: a sliding or separating contact has no acceleration sign condition).
    Force rows ``(a_t, a_n0, a_nμ)``: the row ``a_t f_t + a f_n`` with ``a = a_nμ μ`` when
    ``a_nμ`` is not zero, else ``a_n0``.
    """

    accel_eq: tuple[int, ...]
    accel_geq: tuple[tuple[int, float, str], ...]
    force_eq: tuple[tuple[float, float, float], ...]
    force_geq: tuple[tuple[float, float, float], ...]


T, N = 0, 1

_TABLES_I_II = {
    # F: ẍ_t = ẍ_n = 0; μ f_n − f_t >= 0, μ f_n + f_t >= 0, f_n >= 0 (implied when μ > 0, needed at μ = 0)
    "F": _Letter((T, N), (), (), ((-1.0, 0.0, 1.0), (1.0, 0.0, 1.0), (0.0, 1.0, 0.0))),
    # S: f_t = f_n = 0; ẍ_n >= 0 when the normal velocity is zero
    "S": _Letter((), ((N, 1.0, "n_zero"),), ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), ()),
    # L: ẍ_n = 0, f_t − μ f_n = 0, f_n >= 0; −ẍ_t >= 0 when the tangential velocity is zero
    "L": _Letter((N,), ((T, -1.0, "t_zero"),), ((1.0, 0.0, -1.0),), ((0.0, 1.0, 0.0),)),
    # R: ẍ_n = 0, f_t + μ f_n = 0, f_n >= 0; ẍ_t >= 0 when the tangential velocity is zero
    "R": _Letter((N,), ((T, 1.0, "t_zero"),), ((1.0, 0.0, 1.0),), ((0.0, 1.0, 0.0),)),
}

_TABLE_III = {
    # (normal velocity zero, sign of the tangential velocity beyond its threshold) -> letters
    (False, -1): "S", (False, 0): "S", (False, 1): "S",
    (True, -1): "SL", (True, 0): "FSLR", (True, 1): "SR",
}


@lru_cache(maxsize=4096)
def _rows(letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
    """``PlanarPointContact.rows`` (its arguments), evaluated from ``_TABLES_I_II`` once per
    distinct argument tuple (the rows are immutable and shared)."""
    entry = _TABLES_I_II.get(letter) if isinstance(letter, str) else None
    if entry is None:
        raise ContactModelError(f"mode letter: expected one of '{PlanarPointContact.letters}', got {letter!r}")
    zero = {"t_zero": t_zero, "n_zero": n_zero}
    return ContactRows(
        entry.accel_eq,
        tuple((c, sign) for c, sign, when in entry.accel_geq if zero[when]),
        tuple((a_t, a_mu * mu if a_mu else a_n) for a_t, a_n, a_mu in entry.force_eq),
        tuple((a_t, a_mu * mu if a_mu else a_n) for a_t, a_n, a_mu in entry.force_geq),
    )


class PlanarPointContact:
    """The planar point contact's components, letters and rows (module docstring).

    Attributes
    ----------
    components : tuple[str, str]
        ``("t", "n")``: the order of a contact's entries in every contact vector.
    letters : str
        ``"FSLR"``: the letters, in enumeration order.
    kept_letters : str
        ``"FLR"``: the letters that keep the contact (an impact's outcome).
    table_iii : dict
        Table III as data: ``(n_zero, t_sign) -> letters`` (``allowed``), for loops that
        classify many contacts.
    """

    components = ("t", "n")
    letters = "FSLR"
    kept_letters = "FLR"
    table_iii = _TABLE_III

    def rows(self, letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
        """The rows of one contact in mode ``letter`` (flipping paper, Tables I–II, eqs. 7–10).

        Parameters
        ----------
        letter : str
            One of ``"FSLR"``.
        mu : float
            The contact's friction coefficient (``>= 0``).
        t_zero, n_zero : bool
            Whether the contact's tangential / normal velocity counts as zero (Table III,
            ``contactmodes.modes.contact_conditions.classify_velocities``): the acceleration sign
            rows of eq. (9) apply only then.

        Returns
        -------
        ContactRows
            ``F``: ``ẍ_t = ẍ_n = 0``; ``μ f_n − f_t >= 0``, ``μ f_n + f_t >= 0``, ``f_n >= 0`` (the
            last is implied when ``μ > 0`` but needed when ``μ = 0``). ``S``: ``f_t = f_n = 0``;
            ``ẍ_n >= 0`` when the normal velocity is zero. ``L``: ``ẍ_n = 0``, ``f_t − μ f_n =
            0``, ``f_n >= 0``; ``−ẍ_t >= 0`` when the tangential velocity is zero. ``R``: as ``L``
            with ``f_t + μ f_n = 0`` and ``ẍ_t >= 0``.

        Raises
        ------
        ContactModelError
            For a letter not in ``"FSLR"``.
        """
        return _rows(letter, mu, t_zero, n_zero)

    def allowed(self, n_zero: bool, t_sign: int) -> str:
        """The letters Table III allows a contact, in ``"FSLR"`` order.

        Parameters
        ----------
        n_zero : bool
            The normal velocity counts as zero (a separating contact otherwise: ``"S"``; an
            approaching one is rejected before, ``classify_velocities``).
        t_sign : int
            ``-1``, ``0`` or ``1``: the tangential velocity below minus its threshold, within
            it, above it.

        Returns
        -------
        str
            ``"S"``, ``"SL"``, ``"SR"`` or ``"FSLR"``.
        """
        return self.table_iii[(bool(n_zero), int(t_sign))]

    def velocity_class(self, v: Sequence[float], eps: float) -> VelocityClass:
        """Table III for one contact: its allowed letters and the arguments of its ``rows``.

        Parameters
        ----------
        v : Sequence[float]
            ``(v_t, v_n)``: the contact's velocity components (the system's units).
        eps : float
            The threshold ``ε`` (same units, ``>= 0``): a component counts as zero when its
            magnitude is at most ``ε`` (``contactmodes.modes.contact_conditions.classify_arrays``).

        Returns
        -------
        VelocityClass
            ``t_zero = |v_t| <= ε``, ``n_zero = |v_n| <= ε``, ``allowed = allowed(n_zero,
            t_sign)`` with ``t_sign`` the sign of ``v_t`` beyond ``ε`` (``0`` within it),
            ``normal = v_n`` and ``row_args = (t_zero, n_zero)``.
        """
        vt, vn = v
        t_zero, n_zero = abs(vt) <= eps, abs(vn) <= eps
        allowed = self.table_iii[(n_zero, 1 if vt > eps else -1 if vt < -eps else 0)]
        return VelocityClass(allowed, t_zero, n_zero, vn, (t_zero, n_zero))

    def relaxed_rows(self, allowed: str, n_zero: bool) -> tuple[tuple[int, float], ...]:
        """Acceleration rows common to every letter in ``allowed`` for a contact (non-strict).

        The relaxation used for an unassigned contact in the enumeration
        (``contactmodes.modes.enumeration.enumerate_modes``). With a zero normal velocity every letter
        has ``ẍ_n >= 0`` (``S``: strict inequality; ``F``, ``L``, ``R``: equality); otherwise only ``S``
        is allowed and nothing is common.

        Parameters
        ----------
        allowed : str
            The letters Table III allows the contact; empty: none.
        n_zero : bool
            Whether its normal velocity counts as zero.

        Returns
        -------
        tuple[tuple[int, float], ...]
            ``((1, 1.0),)`` (``ẍ_n >= 0``) when ``n_zero`` and ``allowed`` is not empty, else ``()``.
        """
        return ((N, 1.0),) if n_zero and allowed else ()

    def impact_rows(self, letter: str, mu: float, in_scope: bool) -> ContactRows:
        """The rows of one contact in an impact outcome (Johnson thesis Sec. 5.1.2–5.1.3): the
        letter's rows of Tables I–II on the velocity ``J q̇⁺`` and the impulse ``P``, every
        velocity sign row present (the post-impact velocity is the unknown).

        Parameters
        ----------
        letter : str
            One of ``"FSLR"``.
        mu : float
            The contact's friction coefficient (``>= 0``).
        in_scope : bool
            The contact approaches or touches (``contactmodes.impact.scope``). A separating
            contact takes ``S`` with no velocity row.

        Returns
        -------
        ContactRows
            ``rows(letter, mu, True, True)`` in scope, ``rows("S", mu, False, False)`` out of it;
            a frictionless contact (``μ = 0``) kept (``F``, ``L`` or ``R``) has
            ``normal_row_rows()``: without friction the letters differ only by the sign of the
            post-impact sliding velocity, which is left free.

        Raises
        ------
        ContactModelError
            For a letter not in ``"FSLR"``, or a letter other than ``S`` out of scope.
        """
        if not in_scope:
            if letter != "S":
                raise ContactModelError(f"impact letter: a separating contact is 'S', got {letter!r}")
            return self.rows("S", mu, False, False)
        if mu == 0.0 and letter in self.kept_letters:
            return self.normal_row_rows()
        return self.rows(letter, mu, True, True)

    def impact_letters(self, in_scope: bool, frictionless: bool) -> str:
        """The outcome letters an impact enumerates for one contact (Johnson thesis Sec. 5.1.2).

        Parameters
        ----------
        in_scope : bool
            The contact approaches or touches (``contactmodes.impact.scope``).
        frictionless : bool
            Its ``μ`` is 0: the kept letters differ only by the sign of the post-impact sliding
            velocity, so ``F`` stands for all of them (kept by the normal row, ``normal_row_rows``)
            and the outcome is renamed after that velocity (``frictionless_letter``).

        Returns
        -------
        str
            ``"S"`` out of scope; ``"FS"`` frictionless; else ``"FSLR"`` (the letters' order).
        """
        if not in_scope:
            return "S"
        return "FS" if frictionless else self.letters

    impact_guarded_letters = "F"
    """The letters whose cone rows a pseudo-impulse may impose on ``P + δ_t f`` instead of ``P``
    (thesis eq. 40, ``contactmodes.impact.equations``): the sticking contact, whose post-impact
    velocity is zero so that its impulse does no work."""

    def frictionless_letter(self, v: Sequence[float], eps: float) -> str:
        """The letter a kept frictionless contact (enumerated ``F``) is reported under, after its
        post-impact velocity.

        Parameters
        ----------
        v : Sequence[float]
            ``(v_t, v_n)``: the contact's post-impact velocity (the system's units).
        eps : float
            Its Table III threshold (same units).

        Returns
        -------
        str
            ``"R"`` when ``v_t > ε``, ``"L"`` when ``v_t < −ε``, else ``"F"``.
        """
        vt = float(v[0])
        return "R" if vt > eps else "L" if vt < -eps else "F"

    def normal_row_rows(self) -> ContactRows:
        """A contact kept by its normal row alone: ``ẍ_n = 0``, ``f_t = 0``, ``f_n >= 0``, the
        tangential motion free. These are Table I–II's rows of ``L`` at ``μ = 0`` with a sliding
        tangential velocity (no direction row), i.e. a frictionless kept contact; the impact uses
        them for frictionless contacts and for the release test of thesis eq. (29)
        (``contactmodes.impact.equations``)."""
        return self.rows("L", 0.0, False, True)


PLANAR_POINT = PlanarPointContact()
"""The planar point contact (``PlanarPointContact``), the toolkit's one contact model."""


def require_planar(model: object, what: str) -> None:
    """Refuse a contact model other than the planar point contact, for the stages that still
    assume two force components per contact (issue 40: the real-time plans, control, friction
    intervals and the controllers are not generalized yet; the impact reads the system's model).

    Parameters
    ----------
    model : object
        The system's contact model (``ContactSystem.contact_model``).
    what : str
        The refusing entry point, named in the message (e.g. ``"impact"``).

    Raises
    ------
    ContactModelError
        ``"<what>: planar contact systems only for now (issue 40)"`` when ``model`` is not a
        ``PlanarPointContact``.
    """
    if not isinstance(model, PlanarPointContact):
        raise ContactModelError(f"{what}: planar contact systems only for now (issue 40)")
