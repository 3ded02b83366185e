"""The sets ``contactmodes plot`` draws when the friction coefficients are known to a box (issue 26).

With ``mu = [lo, hi]`` the picture shows, per feasible mode, ``T_c^∃`` (the torques for which the
mode can occur for some μ of the box: the filled sets), outlines the robust ``T*_c`` (the mode,
with its task constraints, for every μ and no other behaviour for any μ) and marks in red the
torques of the plotted box for which no mode has a solution for any μ (the box minus the union of
every kinematically feasible mode's ``T_c^∃`` without task constraints). All from
``contactmodes.analysis.friction_interval``; ``docs/friction-intervals.md``.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from polytopes import Polytope, difference

from contactmodes.analysis.friction_interval import FrictionIntervalAnalysis
from contactmodes.model.friction import FrictionBox
from contactmodes.model.system import ContactSystem

__all__ = ["CAPTION", "gather_over_friction"]

CAPTION = ("mu known to intervals: filled T_c for some mu of the box (T_c^E); outlined: robust T*_c "
           "(every mu); red: no solution for any mu")
"""The line the picture's caption gets with a friction box."""


def gather_over_friction(system: ContactSystem, box: FrictionBox,
                         choose: Callable[[Mapping[str, Polytope]], tuple[list[str], np.ndarray, np.ndarray]]
                         ) -> tuple[dict[str, Polytope], dict[str, list[Polytope]], list[Polytope]]:
    """``(domains, unambiguous, inconsistent)`` over ``box`` for the picture (module doc), user units.

    Parameters
    ----------
    system : ContactSystem
        The model (its own ``mu`` is not used).
    box : FrictionBox
        One friction interval per contact.
    choose : callable
        Given the drawn sets (mode → ``T_c^∃``), returns the modes to outline and the torque box
        ``(lo, hi)``, each ``(n_τ,)``, searched for torques without solution (as
        ``contactmodes.cli.plot``'s views do).

    Returns
    -------
    tuple
        ``domains`` (mode → ``T_c^∃`` with task constraints, the kinematically feasible modes
        where it is non-empty), ``unambiguous`` (outlined mode → robust ``T*_c`` pieces),
        ``inconsistent`` (pieces of the box where no mode has a solution for any μ).

    Raises
    ------
    ContactModelError
        As ``FrictionIntervalAnalysis``.
    """
    fa = FrictionIntervalAnalysis(system, box)
    domains = {m: E for m in fa.modes if (E := fa.exists(m)) is not None}
    outlined, lo, hi = choose(domains)
    star = {m: list(fa.unambiguous(m).unambiguous) for m in outlined}
    sc = fa.scaling
    covers = [E for m in fa.modes if (E := fa.exists_scaled(m, False)) is not None]
    pieces = difference(Polytope.box(sc.tau_from_user(lo), sc.tau_from_user(hi)), covers)
    return domains, star, [sc.polytope_to_user(p) for p in pieces]
