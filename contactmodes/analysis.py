"""The whole pipeline of Sec. III: enumerate modes, solve each, compute domains and overlaps.

:func:`analyze` runs an :class:`~contactmodes.session.AnalysisSession` and returns an
:class:`AnalysisResult`, a user-unit view of it; :meth:`AnalysisResult.to_json` is the
``contactmodes.analysis/1`` document. Per-mode quantities are computed lazily by the session (a
text report at 10 contacts does not project domains it does not show) and never twice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from polytopes import Polytope

from .domains import ModeDomain
from .modes import Enumeration
from .progress import Progress
from .response import ModeResponse
from .session import AnalysisSession, ModeSolution
from .system import ContactSystem

__all__ = ["AnalysisResult", "ModeAnalysis", "OverlapPairs", "SCHEMA", "analyze"]

SCHEMA = "contactmodes.analysis/1"


class ModeAnalysis:
    """Everything computed for one mode, in user units, computed on first access.

    Attributes (properties)
    ----------
    mode : the mode string.
    kinematically_feasible : the mode survived the enumeration (Table III and Sec. III-F).
    feasible : ``D_c`` non-empty.
    response : :class:`~contactmodes.response.ModeResponse` (eqs. 24–31).
    domain : the :class:`~contactmodes.domains.ModeDomain`.
    D : ``D_c`` over ``(τ, w)``; T : ``T_c`` over τ, ``None`` when infeasible.
    box : bounding box ``(lo, hi)`` of ``T_c`` (each (n_τ,); the empty box when infeasible).
    timing : seconds per stage of the session's mode object.
    solution : the session's :class:`~contactmodes.session.ModeSolution` (nondimensional).
    """

    def __init__(self, solution: ModeSolution, task: bool) -> None:
        self.solution = solution
        self.task = task

    mode = property(lambda self: self.solution.mode)
    kinematically_feasible = property(lambda self: self.solution.kinematically_feasible)
    timing = property(lambda self: dict(self.solution.timing))

    @property
    def feasible(self) -> bool:
        return self.solution.feasible(self.task)

    @property
    def response(self) -> ModeResponse:
        return self.solution.response(self.task)

    @property
    def domain(self) -> ModeDomain:
        return self.solution.domain(self.task)

    @property
    def D(self) -> Polytope:
        return self.domain.D

    @property
    def T(self) -> Polytope | None:
        return self.solution.T(self.task)

    @property
    def box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.solution.box(self.task)

    def __repr__(self) -> str:
        return f"ModeAnalysis(mode={self.mode!r}, feasible={self.feasible})"


class OverlapPairs(Mapping):
    """The overlapping pairs ``(a, b)`` (``a`` before ``b`` in analysis order) as a read-only
    mapping to ``T_a ∩ T_b`` (user units, computed on access). Only the pairs are stored."""

    def __init__(self, session: AnalysisSession, pairs: Sequence[tuple[str, str]], task: bool) -> None:
        self.session, self.pairs, self.task = session, list(pairs), task
        self._set = set(self.pairs)
        self.neighbours: dict[str, set[str]] = {}
        for a, b in self.pairs:
            self.neighbours.setdefault(a, set()).add(b)
            self.neighbours.setdefault(b, set()).add(a)

    def __getitem__(self, key: tuple[str, str]) -> Polytope:
        if key not in self._set:
            raise KeyError(key)
        inter = self.session.overlap_set_scaled(*key, task=self.task)
        if inter is None:  # pragma: no cover - the pair was found overlapping by the same rule
            raise KeyError(key)
        return self.session.scaling.polytope_to_user(inter)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __eq__(self, other) -> bool:
        if isinstance(other, Mapping) and not isinstance(other, OverlapPairs):
            return set(self.pairs) == set(other.keys()) and all(
                self[k].equals(other[k]) for k in self.pairs)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass
class AnalysisResult:
    """Result of :func:`analyze` (user units).

    Attributes
    ----------
    system : the analysed :class:`~contactmodes.system.ContactSystem`.
    enumeration : the :class:`~contactmodes.modes.Enumeration` (always for all modes).
    modes : mode string → :class:`ModeAnalysis`, in analysis order.
    overlaps : :class:`OverlapPairs` of feasible modes with intersecting ``T_c`` (III-G.1), or
        ``None`` when they were not computed (``compute_overlaps=False``, or more candidate pairs
        than ``overlap_limit``).
    candidate_pairs : number of pairs whose bounding boxes meet (``None`` if not looked at).
    task : whether task constraints were applied.
    timing : seconds: ``"enumerate"``, ``"modes"``, ``"overlaps"``.
    session : the :class:`~contactmodes.session.AnalysisSession` behind the result.
    """

    system: ContactSystem = field(repr=False)
    enumeration: Enumeration
    modes: dict[str, ModeAnalysis]
    overlaps: OverlapPairs | None = field(repr=False)
    task: bool = True
    timing: dict[str, float] = field(default_factory=dict)
    session: AnalysisSession | None = field(default=None, repr=False)
    candidate_pairs: int | None = None

    def overlapping(self, mode: str) -> list[str]:
        """The modes whose ``T_c`` intersects that of ``mode``, in analysis order (``[]`` when
        overlaps were not computed)."""
        if self.overlaps is None:
            return []
        others = self.overlaps.neighbours.get(mode, set())
        return [m for m in self.modes if m in others]

    def feasible_modes(self) -> list[str]:
        """Analysed modes with a non-empty domain."""
        return [m for m, a in self.modes.items() if a.feasible]

    def locate(self, tau) -> list[str]:
        """The analysed modes whose ``T_c`` contains the torque ``tau`` (n_τ,), user units."""
        return self.session.locate(tau, self.task, selection=list(self.modes))

    def to_json(self, include_overlaps: bool = True) -> dict:
        """The ``contactmodes.analysis/1`` document (``"overlaps"`` per mode is ``null`` when
        overlaps were not computed or ``include_overlaps`` is false)."""
        self.session.prime_T(self.feasible_modes(), self.task)
        modes = []
        for m, a in self.modes.items():
            resp = a.response
            T = a.T
            modes.append({
                "mode": m,
                "kinematically_feasible": a.kinematically_feasible,
                "rank_case": resp.rank_case,
                "n_w": resp.n_w,
                "w_moves_accelerations": resp.w_moves_accelerations,
                "w_moves_forces": resp.w_moves_forces,
                "w_varies": a.solution.w_varies(self.task),
                "feasible": a.feasible,
                "torque_domain": T.to_json() if T is not None else None,
                "overlaps": self.overlapping(m) if (include_overlaps and self.overlaps is not None) else None,
            })
        return {
            "schema": SCHEMA,
            "system": self.system.to_json(),
            "task": self.task,
            "enumeration": self.enumeration.to_json(),
            "modes": modes,
        }


def analyze(system: ContactSystem, modes: Sequence[str] | None = None, task: bool = True,
            method: str = "auto", compute_overlaps: bool = True, progress: Progress | None = None,
            overlap_limit: int | None = None, session: AnalysisSession | None = None) -> AnalysisResult:
    """Run Sec. III on ``system`` and return the :class:`AnalysisResult`.

    Parameters
    ----------
    modes : ``None`` to analyse the kinematically feasible modes of the enumeration, or a list of
        mode strings to analyse exactly those (validated; the enumeration counts are still
        reported, and each mode records whether it survived it).
    task : include task constraints (eqs. 15–18).
    method : projection method for ``T_c`` (:func:`polytopes.projection.project`).
    compute_overlaps : find the pairs of feasible modes with intersecting ``T_c`` (box sweep,
        then one LP per candidate pair).
    overlap_limit : when there are more candidate pairs than this, do not run their LPs
        (``overlaps`` is ``None``; ``candidate_pairs`` says how many there were).
    progress : optional :class:`~contactmodes.progress.Progress` for long stages.
    session : an existing session for ``system`` to reuse (its cached results are kept).

    Raises
    ------
    ApproachingContactError
        When a contact approaches (no solution without an impact law).
    ContactModelError
        When ``modes`` contains something that is not a mode of this system, or the system has
        no actuators (``n_τ = 0``).
    """
    if session is None:
        session = AnalysisSession(system, method=method, progress=progress)
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    enumeration = session.enumeration
    timing["enumerate"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    sols = session.modes(modes)
    names = [s.mode for s in sols]
    feasible = session.feasible_modes(task, names)
    timing["modes"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    overlaps, n_cand = None, None
    if compute_overlaps:
        # a list of millions of pairs is never built to be thrown away: dropped past the limit
        n_cand, cands = session.candidate_pairs_within(feasible, task, overlap_limit)
        if cands is not None:
            overlaps = OverlapPairs(session, session.overlapping_pairs(feasible, task, cands), task)
    timing["overlaps"] = time.perf_counter() - t0
    return AnalysisResult(system, enumeration, {s.mode: ModeAnalysis(s, task) for s in sols}, overlaps,
                          task, timing, session, n_cand)
