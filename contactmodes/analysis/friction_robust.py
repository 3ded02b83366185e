r"""Robust bracing sets when both a disturbance and the friction coefficients are uncertain (issue 26).

``contactmodes.analysis.robust`` treats a bounded disturbance ``δ ∈ D`` as extra inputs of the
*augmented system* (``S_aug = [S, E]``) and slices its torque domains at the vertices of ``D``;
``contactmodes.analysis.friction_interval`` gives a mode's torque sets over a box ``M`` of
friction coefficients. Together, for the desired mode ``c``:

* robust feasible set ``T'_c = {τ : (τ, δ) ∈ T_c^aug(μ) for every δ ∈ D and every μ ∈ M}``.
  For fixed ``(τ, δ)`` — inputs of the augmented system — "every μ" is the augmented
  ``T_c^{aug,∀}`` (the intersection over the vertices of the sliding contacts' intervals, exact:
  ``friction_interval``); it is convex, so "every δ" is the intersection of its slices at the
  vertices of ``D``;
* robust ambiguity sets: for every other kinematically feasible mode ``c'`` the torques admitting
  ``c'`` for *some* δ and *some* μ: the projection onto τ of ``T_{c'}^{aug,∃} ∩ (R^{n_τ} × D)``
  (``T^{aug,∃}`` is one polytope, so this is one LP-based projection); and per task row ``i`` the
  same with the within-mode ``T_c^{i,aug,∃}``;
* ``T'*_c = T'_c −`` the union of those sets (closure convention of ``polytopes.regions``).

A torque of ``T'*_c`` gives mode ``c`` with its task constraints for every disturbance of ``D``
and every μ of ``M``, and no other behaviour for any of them. Units as in
``contactmodes.analysis.robust`` (the augmented scaling's τ and δ factors are the nominal
system's); μ is dimensionless.
"""

from __future__ import annotations

import time

import numpy as np

from polytopes import Polytope

from contactmodes.analysis.ambiguity import AmbiguitySource
from contactmodes.analysis.domains import boxes_disjoint, intersect_domains
from contactmodes.analysis.friction_interval import FrictionIntervalAnalysis
from contactmodes.analysis.robust import RobustResult, augmented_system, robust_result, slice_at
from contactmodes.errors import ContactModelError
from contactmodes.model.friction import FrictionBox
from contactmodes.model.system import ContactSystem

__all__ = ["robust_unambiguous_over_friction"]


def _lift(D: Polytope, n_tau: int) -> Polytope:
    """``R^{n_τ} × D`` as a polytope over ``(τ, δ)``."""
    pad = lambda M: np.hstack([np.zeros((M.shape[0], n_tau)), M])  # noqa: E731
    return Polytope(pad(D.A), D.b, pad(D.C), D.d)


def _source(label: str, kind: str, T_aug: Polytope, lifted_D: Polytope, n_tau: int, T_robust: Polytope,
            method: str) -> AmbiguitySource | None:
    """Project ``T_aug ∩ (R × D)`` onto τ and intersect with ``T'_c``; ``None`` if empty."""
    joint = intersect_domains(T_aug, lifted_D)
    if joint is None or joint.is_empty():
        return None
    inter = intersect_domains(T_robust, joint.project(list(range(n_tau)), method=method))
    if inter is None or inter.is_empty():
        return None
    return AmbiguitySource(label, kind, [inter])


def robust_unambiguous_over_friction(system: ContactSystem, box: FrictionBox, mode: str, within_mode: bool = True,
                                     method: str = "auto") -> RobustResult:
    """``T'_c``, the robust ambiguity sets and ``T'*_c`` of ``mode`` over a disturbance set and a
    friction box (module doc), in user units.

    Parameters
    ----------
    system : ContactSystem
        A model with a ``Disturbance`` (its own ``mu`` is not used).
    box : FrictionBox
        One friction interval per contact.
    mode : str
        The desired contact mode (task constraints of ``system`` included).
    within_mode : bool, optional
        Also count solutions of ``mode`` violating a task row (negation margin as in
        ``contactmodes.analysis.ambiguity``).
    method : str, optional
        Projection method (``polytopes.projection.project``).

    Returns
    -------
    RobustResult
        As ``contactmodes.analysis.robust.robust_unambiguous``; ``vertices`` are those of ``D``
        (n_v, n_d).

    Raises
    ------
    ContactModelError
        When the system has no disturbance, ``mode`` is not one of its modes, the box does not fit
        it, or the mode has more sliding contacts of positive width than
        ``contactmodes.analysis.friction_interval.MAX_SLIDING_INTERVALS``.
    """
    if system.disturbance is None:
        raise ContactModelError("disturbance: the system has no disturbance set (add a [disturbance] table)")
    box.check_system(system)
    fa = FrictionIntervalAnalysis(augmented_system(system), box, method=method)
    n_tau = system.n_tau
    scaled_disturbance = system.scaling.system.disturbance
    assert scaled_disturbance is not None  # the scaled copy keeps the user's disturbance
    scaled_D = scaled_disturbance.set  # the augmented session's δ' (robust.py, module doc)
    lifted_D = _lift(scaled_D, n_tau)
    V = system.disturbance.set.vertices().vertices
    timing: dict[str, float] = {}

    t0 = time.perf_counter()
    T_aug = fa.forall_scaled(mode, True)
    T_robust = Polytope.empty(n_tau)
    if T_aug is not None and mode in fa.modes:
        T = Polytope.universe(n_tau)
        for v in V:
            T = T.intersect(slice_at(T_aug, n_tau, system.scaling.disturbance_from_user(v)))
        T_robust = T.reduce() if not T.is_empty() else Polytope.empty(n_tau)
    timing["feasible"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    sources: list[AmbiguitySource] = []
    if not T_robust.is_empty():
        dbox = lifted_D.bounding_box()
        for other in fa.modes:
            T_other = None if other == mode else fa.exists_scaled(other, False)
            if T_other is None or boxes_disjoint(dbox, T_other.bounding_box()):
                continue
            src = _source(other, "mode", T_other, lifted_D, n_tau, T_robust, method)
            if src is not None:
                sources.append(src)
        if within_mode:
            for label, sets in fa.within_sets_scaled(mode):
                within = [p for Ti in sets
                          if (src := _source(label, "task", Ti, lifted_D, n_tau, T_robust, method)) is not None
                          for p in src.set]
                if within:
                    sources.append(AmbiguitySource(label, "task", within))
    timing["ambiguity"] = time.perf_counter() - t0

    return robust_result(mode, system, T_robust, sources, V, timing)
