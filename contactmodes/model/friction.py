"""Friction coefficients known only to an interval: the box ``[lo, hi]`` of ``μ`` (issue 26).

A ``FrictionBox`` gives every contact ``i`` an interval ``lo_i <= μ_i <= hi_i``; a contact whose μ
is known exactly has ``lo_i = hi_i``. The intervals are **independent**: the box is the product
``[lo_1, hi_1] × … × [lo_k, hi_k]``, so contacts that share one physical coefficient are treated
as if each could take its own value. The sets computed over the box are then conservative but
sound (``contactmodes.analysis.friction_interval``): a "for every μ" set is a subset of the one a
shared coefficient would give, a "for some μ" set a superset.

The analysis over the box lives in ``contactmodes.analysis.friction_interval``; this module holds
the value object, its validation (the ranges a single μ has, ``0 <= μ <= MU_MAX``) and the
systems at one point of the box.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.model.system import ContactSystem
from contactmodes.tolerances import MU_MAX

__all__ = ["FrictionBox"]


@dataclass(frozen=True)
class FrictionBox:
    """The box of friction coefficients ``lo <= μ <= hi`` (one interval per contact, contact order).

    Parameters
    ----------
    lo, hi : array_like
        ``(k,)`` bounds, dimensionless, ``0 <= lo_i <= hi_i <= MU_MAX``
        (``contactmodes.tolerances.MU_MAX``); ``lo_i = hi_i`` for an exactly known μ.
    contacts : Sequence[str], optional
        The contact names, for messages (default ``c0, c1, …``).

    Raises
    ------
    ContactModelError
        On a wrong shape, a non-finite bound, ``lo_i < 0``, ``hi_i > MU_MAX`` or ``lo_i > hi_i``,
        naming the contact (``"mu[1] (tip): interval [0.5, 0.3] needs lo <= hi"``).

    Examples
    --------
    >>> box = FrictionBox([0.2, 0.3], [0.4, 0.3], ("a", "b"))
    >>> box.exact, box.widths().tolist(), box.nominal().tolist()
    (False, [0.2, 0.0], [0.30000000000000004, 0.3])
    """

    lo: np.ndarray
    hi: np.ndarray
    contacts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        lo = np.array(self.lo, dtype=float).reshape(-1)
        hi = np.array(self.hi, dtype=float).reshape(-1)
        if lo.shape != hi.shape:
            raise ContactModelError(f"mu: expected as many upper bounds as lower bounds, got {hi.size} and {lo.size}")
        names = tuple(str(c) for c in self.contacts) or tuple(f"c{i}" for i in range(lo.size))
        if len(names) != lo.size:
            raise ContactModelError(f"mu: expected {len(names)} intervals (one per contact), got {lo.size}")
        for i, (a, b) in enumerate(zip(lo.tolist(), hi.tolist())):
            where = f"mu[{i}] ({names[i]})"
            if not (np.isfinite(a) and np.isfinite(b)):
                raise ContactModelError(f"{where}: bounds must be finite, got [{a:g}, {b:g}]")
            if a < 0.0:
                raise ContactModelError(f"{where}: must be >= 0, got {a:g}")
            if b > MU_MAX:
                raise ContactModelError(f"{where}: must be <= {MU_MAX:g} (contactmodes.tolerances.MU_MAX), got {b:g}")
            if a > b:
                raise ContactModelError(f"{where}: interval [{a:g}, {b:g}] needs lo <= hi")
        lo.setflags(write=False)
        hi.setflags(write=False)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        object.__setattr__(self, "contacts", names)

    @classmethod
    def of(cls, system: ContactSystem) -> "FrictionBox":
        """The zero-width box of ``system``'s own ``mu`` (every μ known exactly).

        Parameters
        ----------
        system : ContactSystem
            The system whose ``mu`` (``(k,)``, dimensionless) is taken.

        Returns
        -------
        FrictionBox
            ``lo = hi = system.mu``, the contacts named as in ``system``.
        """
        return cls(system.mu, system.mu, system.contacts)

    @property
    def k(self) -> int:
        """Number of contacts."""
        return int(self.lo.size)

    @property
    def exact(self) -> bool:
        """Every interval has zero width."""
        return bool(np.all(self.lo == self.hi))

    def widths(self) -> np.ndarray:
        """``(k,)`` ``hi − lo``."""
        return self.hi - self.lo

    def nominal(self) -> np.ndarray:
        """``(k,)`` the midpoint ``(lo + hi) / 2`` (exactly ``lo`` where the width is zero): the μ
        at which an analysis reports its plain, exact-μ fields (``docs/friction-intervals.md``)."""
        return np.where(self.lo == self.hi, self.lo, 0.5 * (self.lo + self.hi))

    def check_system(self, system: ContactSystem) -> None:
        """Raise ``ContactModelError`` unless the box has one interval per contact of ``system``.

        Parameters
        ----------
        system : ContactSystem
            The system the box is to be used with.

        Raises
        ------
        ContactModelError
            When ``self.k != system.k`` (the message lists the system's contacts). Any contact
            model whose rows are linear in ``μ f_n`` is accepted, planar or spatial
            (``contactmodes.analysis.friction_interval``).
        """
        if self.k != system.k:
            raise ContactModelError(f"mu: the friction box has {self.k} intervals, the system "
                                    f"{system.k} contacts ({list(system.contacts)})")

    def at(self, system: ContactSystem, mu: "Sequence[float] | np.ndarray") -> ContactSystem:
        """``system`` with friction coefficients ``mu`` (k,) — a point of the box or not — and
        everything else unchanged (a new object; its scaling is computed afresh, and μ, being
        dimensionless, does not enter it).

        Parameters
        ----------
        system : ContactSystem
            The system at its state.
        mu : Sequence[float] or numpy.ndarray
            Shape ``(k,)``: the friction coefficients (dimensionless), contact order; not checked
            against the box.

        Returns
        -------
        ContactSystem
            A copy of ``system`` with ``mu`` replaced (``dataclasses.replace``, so the system's own
            validation runs again).
        """
        return replace(system, mu=np.asarray(mu, dtype=float))

    def to_json(self) -> dict:
        """``{"lo": [...], "hi": [...]}`` (contact order)."""
        return {"lo": self.lo.tolist(), "hi": self.hi.tolist()}
