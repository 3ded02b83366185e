"""Robust feasible and unambiguous torque sets under a bounded disturbance (bracing paper).

The system's ``Disturbance`` adds ``E δ``, ``δ ∈ D``, to the right-hand
side of the equations of motion with the same sign as ``S τ`` (docs/conventions.md; bracing paper,
"Robust brace immobilization"). Treating ``δ`` as extra inputs gives the *augmented system*
(``S_aug = [S, E]``), whose torque domains live in the joint space ``(τ, δ)``:

* robust feasible set ``T'_c = {τ : (τ, δ) ∈ T_c^aug for all δ ∈ D}``; ``T_c^aug`` is convex, so
  it is the intersection of the slices of ``T_c^aug`` at the vertices of ``D``;
* robust ambiguity sets: for every other kinematically feasible mode ``c'`` (without task
  constraints) and every negated task row (as in ``contactmodes.analysis.ambiguity``), the torques
  ``τ`` that admit that undesired solution for *some* ``δ ∈ D``: the projection onto ``τ`` of
  ``T^aug ∩ (R^{n_τ} × D)``;
* robustly unambiguous set ``T'*_c = T'_c −`` the union of those projections (region difference,
  closure convention of ``polytopes.regions``).

Kinematic feasibility does not depend on the inputs, so the augmented system has the same
surviving modes as the nominal one. Everything is computed in one
``AnalysisSession`` of the augmented system (nondimensional) and mapped
back to user units by the nominal system's scaling: the augmented scaling applies the same rule
column by column, so its factors of ``τ`` and ``δ`` are the nominal ``scaling.tau`` and
``scaling.disturbance`` and its δ-set is the nominal scaled system's (the same numbers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from polytopes import Polytope, difference

from contactmodes.analysis.ambiguity import AmbiguitySource, mark_boundary_only, negated_rows, task_rows
from contactmodes.analysis.domains import boxes_disjoint, intersect_domains
from contactmodes.errors import ContactModelError
from contactmodes.analysis.session import AnalysisSession
from contactmodes.model.scaling import UserSets
from contactmodes.model.system import ContactSystem, LinearConstraint

__all__ = ["RobustResult", "augmented_system", "robust_feasible_set", "robust_result", "robust_unambiguous", "slice_at"]


def _disturbance(system: ContactSystem):
    if system.disturbance is None:
        raise ContactModelError("disturbance: the system has no disturbance set (add a [disturbance] table)")
    return system.disturbance


def augmented_system(system: ContactSystem) -> ContactSystem:
    """The system with the disturbance components as extra inputs: ``S_aug = [S, E]`` (n_q, n_τ + n_d).

    Input names are the torques followed by ``"d:<coordinate>"``; constraint blocks get zero
    coefficients for the new inputs; the result has no disturbance of its own.

    Parameters
    ----------
    system : ContactSystem
        A model with a ``Disturbance`` (``n_d`` components).

    Returns
    -------
    ContactSystem
        ``n_τ + n_d`` inputs, the same units as ``system``.

    Raises
    ------
    ContactModelError
        When ``system`` has no disturbance.
    """
    dist = _disturbance(system)
    n_d = dist.n_d
    blocks = tuple(
        LinearConstraint(c.kind, c.type, c.qdd, c.f, np.hstack([c.tau, np.zeros((c.n_rows, n_d))]), c.rhs, c.name)
        for c in system.constraints
    )
    return replace(
        system,
        S=np.hstack([system.S, dist.E]),
        torques=system.torques + tuple(f"d:{c}" for c in dist.coordinates),
        constraints=blocks,
        disturbance=None,
    )


def slice_at(T_aug: Polytope, n_tau: int, delta: np.ndarray) -> Polytope:
    """``{τ : (τ, δ) ∈ T_aug}`` for a fixed ``δ``: a polytope over the first ``n_tau`` coordinates.

    Parameters
    ----------
    T_aug : Polytope
        Over ``(τ, δ)``, dimension ``n_tau + n_d``.
    n_tau : int
        Number of torque coordinates.
    delta : numpy.ndarray
        ``(n_d,)`` the disturbance, in the units of ``T_aug``'s ``δ`` coordinates (the session's
        nondimensional ones in this module).

    Returns
    -------
    Polytope
        Over the ``n_tau`` torques, in ``T_aug``'s units.
    """
    A, b, C, d = T_aug.A, T_aug.b, T_aug.C, T_aug.d
    return Polytope(A[:, :n_tau], b - A[:, n_tau:] @ delta, C[:, :n_tau], d - C[:, n_tau:] @ delta)


def _lift(D: Polytope, n_tau: int) -> Polytope:
    """``R^{n_τ} × D`` as a polytope over ``(τ, δ)``."""
    pad = lambda M: np.hstack([np.zeros((M.shape[0], n_tau)), M])  # noqa: E731
    return Polytope(pad(D.A), D.b, pad(D.C), D.d)


def _scaled_D(system: ContactSystem) -> Polytope:
    """The disturbance set over the nondimensional δ' (the augmented session's, module doc)."""
    scaled = system.scaling.system.disturbance
    assert scaled is not None  # _disturbance checked the system has one
    return scaled.set


def _robust_feasible_scaled(session: AnalysisSession, system: ContactSystem, mode: str) -> tuple[Polytope, np.ndarray]:
    n_tau = system.n_tau
    V = system.disturbance.set.vertices().vertices
    sol = session.mode(mode)
    if not sol.feasible(True):
        return Polytope.empty(n_tau), V
    T = Polytope.universe(n_tau)
    for v in V:
        T = T.intersect(slice_at(sol.T_scaled(True), n_tau, system.scaling.disturbance_from_user(v)))
    return (T.reduce() if not T.is_empty() else Polytope.empty(n_tau)), V


def robust_feasible_set(system: ContactSystem, mode: str, method: str = "auto") -> tuple[Polytope, np.ndarray]:
    """``T'_c`` over τ and the vertices of ``D`` it was sliced at.

    The result is reduced; it is empty (``is_empty()``) when no torque works for every disturbance.

    Parameters
    ----------
    system : ContactSystem
        A model with a ``Disturbance``.
    mode : str
        The mode (task constraints of ``system`` included).
    method : str, optional
        Projection method of the session (``AnalysisSession``).

    Returns
    -------
    T : Polytope
        ``T'_c`` over τ, the system's units.
    vertices : numpy.ndarray
        ``(n_v, n_d)`` the vertices of ``D``, the system's units.

    Raises
    ------
    ContactModelError
        When the system has no disturbance or ``mode`` is not one of its modes.
    """
    _disturbance(system)
    session = AnalysisSession(augmented_system(system), method=method)
    T, V = _robust_feasible_scaled(session, system, mode)
    return system.scaling.polytope_to_user(T), V


@dataclass
class RobustResult:
    """Result of ``robust_unambiguous``.

    Attributes
    ----------
    mode : str
        The desired mode.
    robust_feasible : Polytope
        ``T'_c`` over τ (possibly empty).
    robust_unambiguous : list[Polytope]
        ``T'*_c`` as convex pieces (``[]`` if none).
    sources : list[AmbiguitySource]
        Robust ambiguity sets (projections onto τ, intersected with ``T'_c``), the
        non-empty ones; ``boundary_only`` as in ``AmbiguitySource``.
    vertices : numpy.ndarray
        ``(n_v, n_d)`` vertices of ``D`` used for the slices.
    timing : dict[str, float]
        Seconds: ``"feasible"``, ``"ambiguity"``, ``"difference"``.
    """

    mode: str
    robust_feasible: Polytope = field(repr=False)
    robust_unambiguous: list[Polytope] = field(repr=False)
    sources: list[AmbiguitySource]
    vertices: np.ndarray = field(repr=False)
    timing: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict:
        """``{"mode", "robust_feasible": polytope, "robust_unambiguous": [polytopes], "ambiguity_sources"}``."""
        return {
            "mode": self.mode,
            "robust_feasible": self.robust_feasible.to_json(),
            "robust_unambiguous": [p.to_json() for p in self.robust_unambiguous],
            "ambiguity_sources": [s.to_json() for s in self.sources],
        }


def _robust_source(label: str, kind: str, T_aug: Polytope | None, lifted_D: Polytope, n_tau: int,
                   T_robust: Polytope, method: str) -> AmbiguitySource | None:
    """Project ``T_aug ∩ (R × D)`` onto τ and intersect with ``T'_c``; ``None`` if empty."""
    if T_aug is None:
        return None
    joint = intersect_domains(T_aug, lifted_D)
    if joint is None or joint.is_empty():
        return None
    projected = joint.project(list(range(n_tau)), method=method)
    inter = intersect_domains(T_robust, projected)
    if inter is None or inter.is_empty():
        return None
    return AmbiguitySource(label, kind, [inter])


def robust_unambiguous(system: ContactSystem, mode: str, within_mode: bool = True,
                       method: str = "auto") -> RobustResult:
    """Robust feasible set, robust ambiguity sets and the robustly unambiguous set of ``mode``
    (user units).

    Parameters
    ----------
    system : ContactSystem
        A model with a ``Disturbance``.
    mode : str
        The desired contact mode (task constraints of ``system`` included).
    within_mode : bool, optional
        Also count solutions of ``mode`` violating a task row (negation margin as in
        ``contactmodes.analysis.ambiguity``).
    method : str, optional
        Projection method of the session and of the robust ambiguity sets.

    Returns
    -------
    RobustResult
        The sets over τ in the system's units.

    Raises
    ------
    ContactModelError
        When the system has no disturbance or ``mode`` is not one of its modes.
    """
    _disturbance(system)
    session = AnalysisSession(augmented_system(system), method=method)
    own = session.mode(mode)
    n_tau = system.n_tau
    lifted_D = _lift(_scaled_D(system), n_tau)
    timing: dict[str, float] = {}

    t0 = time.perf_counter()
    T_robust, V = _robust_feasible_scaled(session, system, mode)
    timing["feasible"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    sources: list[AmbiguitySource] = []
    if not T_robust.is_empty():
        box = lifted_D.bounding_box()
        for m in session.enumeration.modes:
            sol = session.mode(m)
            if m == mode or not sol.feasible(False) or boxes_disjoint(box, sol.box_scaled(False)):
                continue
            src = _robust_source(m, "mode", sol.T_scaled(False), lifted_D, n_tau, T_robust, method)
            if src is not None:
                sources.append(src)
        if within_mode:
            plain = own.response_scaled(False)
            for row in task_rows(session.scaled):
                pieces = []
                for alpha, beta in negated_rows(plain, row):
                    Ti = own.projected_scaled((alpha[None, :], np.array([beta])), task=False)
                    src = _robust_source(row.label, "task", Ti, lifted_D, n_tau, T_robust, method)
                    if src is not None:
                        pieces += src.set
                if pieces:
                    sources.append(AmbiguitySource(row.label, "task", pieces))
    timing["ambiguity"] = time.perf_counter() - t0

    return robust_result(mode, system, T_robust, sources, V, timing)


def robust_result(mode: str, system: ContactSystem, T_robust: Polytope, sources: list[AmbiguitySource],
                  V: np.ndarray, timing: dict[str, float]) -> RobustResult:
    """The ``RobustResult`` of ``mode``: ``T_robust`` minus its full-dimensional ambiguity ``sources``.

    ``polytopes.difference``; sources meeting it only on its boundary are marked and kept out; every
    set over τ is converted to the user's units once (``UserSets``: the nominal torques' units,
    module doc).

    Parameters
    ----------
    mode : str
        The desired mode.
    system : ContactSystem
        The nominal system (its scaling converts the sets).
    T_robust : Polytope
        ``T'_c`` over the nondimensional torques.
    sources : list[AmbiguitySource]
        The robust ambiguity sets over the nondimensional torques.
    V : numpy.ndarray
        ``(n_v, n_d)`` the vertices of ``D`` used for the slices.
    timing : dict[str, float]
        Stage seconds; ``"difference"`` is added (s).

    Returns
    -------
    RobustResult
        In the system's units.
    """
    t0 = time.perf_counter()
    pieces: list[Polytope] = []
    if not T_robust.is_empty():
        sources = mark_boundary_only(sources, T_robust.affine_dimension())
        pieces = difference(T_robust, [p for s in sources if not s.boundary_only for p in s.set])
    timing["difference"] = time.perf_counter() - t0
    to_user = UserSets(system.scaling)
    user_sources = [AmbiguitySource(s.source, s.kind, [to_user(p) for p in s.set], s.boundary_only) for s in sources]
    return RobustResult(mode, to_user(T_robust), [to_user(p) for p in pieces], user_sources, V, timing)
