"""The whole pipeline of Sec. III: enumerate modes, solve each, compute domains and overlaps.

:func:`analyze` returns an :class:`AnalysisResult`; its :meth:`~AnalysisResult.to_json` is the
``contactmodes.analysis/1`` document.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Callable


from polytopes import Polytope


from .domains import ModeDomain, boxes_disjoint, intersect_domains, mode_domain
from .errors import ContactModelError
from .modes import MODE_LETTERS, Enumeration, enumerate_modes
from .response import ModeResponse
from .system import ContactSystem

SCHEMA = "contactmodes.analysis/1"


@dataclass
class ModeAnalysis:
    """Everything computed for one mode.

    Attributes
    ----------
    mode : the mode string.
    response : :class:`~contactmodes.response.ModeResponse` (eqs. 24–31).
    domain : the :class:`~contactmodes.domains.ModeDomain`.
    D : ``D_c`` over ``(τ, w)``; T : ``T_c`` over τ, ``None`` when infeasible.
    feasible : ``D_c`` non-empty.
    kinematically_feasible : the mode survived :func:`~contactmodes.modes.enumerate_modes`.
    timing : seconds per stage (``response``, ``assemble``, ``reduce``, ``project``).
    """

    mode: str
    response: ModeResponse = field(repr=False)
    domain: ModeDomain = field(repr=False)
    D: Polytope = field(repr=False)
    T: Polytope | None = field(repr=False)
    feasible: bool
    kinematically_feasible: bool
    timing: dict[str, float] = field(default_factory=dict)


@dataclass
class AnalysisResult:
    """Result of :func:`analyze`.

    Attributes
    ----------
    system : the analysed :class:`~contactmodes.system.ContactSystem`.
    enumeration : the :class:`~contactmodes.modes.Enumeration` (always for all modes).
    modes : mode string → :class:`ModeAnalysis`, in analysis order.
    overlaps : ``(mode_a, mode_b)`` (``a`` before ``b`` in analysis order) → the intersection
        ``T_a ∩ T_b`` (stacked inequalities, independent equalities; *not* reduced — call
        ``.reduce()`` when a minimal form is needed), for feasible pairs whose intersection is
        non-empty (III-G.1).
    task : whether task constraints were applied.
    timing : seconds: ``"enumerate"``, ``"modes"``, ``"overlaps"``.
    """

    system: ContactSystem = field(repr=False)
    enumeration: Enumeration
    modes: dict[str, ModeAnalysis]
    overlaps: dict[tuple[str, str], Polytope] = field(repr=False)
    task: bool = True
    timing: dict[str, float] = field(default_factory=dict)

    def overlapping(self, mode: str) -> list[str]:
        """The modes whose ``T_c`` intersects that of ``mode``, in analysis order."""
        others = {b for a, b in self.overlaps if a == mode} | {a for a, b in self.overlaps if b == mode}
        return [m for m in self.modes if m in others]

    def feasible_modes(self) -> list[str]:
        """Analysed modes with a non-empty domain."""
        return [m for m, a in self.modes.items() if a.feasible]

    def to_json(self) -> dict:
        """The ``contactmodes.analysis/1`` document."""
        modes = []
        for m, a in self.modes.items():
            modes.append({
                "mode": m,
                "kinematically_feasible": a.kinematically_feasible,
                "rank_case": a.response.rank_case,
                "n_w": a.response.n_w,
                "w_moves_accelerations": a.response.w_moves_accelerations,
                "w_moves_forces": a.response.w_moves_forces,
                "w_varies": a.domain.w_varies,
                "feasible": a.feasible,
                "torque_domain": a.T.to_json() if a.T is not None else None,
                "overlaps": self.overlapping(m),
            })
        return {
            "schema": SCHEMA,
            "system": self.system.to_json(),
            "task": self.task,
            "enumeration": self.enumeration.to_json(),
            "modes": modes,
        }


def _validate_modes(system: ContactSystem, modes) -> list[str]:
    if isinstance(modes, str):
        raise ContactModelError(f"modes: expected a list of mode strings, got the string {modes!r}")
    out: list[str] = []
    for i, m in enumerate(modes):
        if not isinstance(m, str) or len(m) != system.k or any(c not in MODE_LETTERS for c in m):
            raise ContactModelError(
                f"modes[{i}]: {m!r} is not a contact mode: expected {system.k} letters from 'SLRF' "
                f"(one per contact {list(system.contacts)})"
            )
        if m not in out:
            out.append(m)
    return out


def analyze(system: ContactSystem, modes=None, task: bool = True, method: str = "auto",
            compute_overlaps: bool = True,
            progress: Callable[[int, int, str], None] | None = None) -> AnalysisResult:
    """Run Sec. III on ``system``.

    Parameters
    ----------
    modes : ``None`` to analyse the kinematically feasible modes of the enumeration, or a list of
        mode strings to analyse exactly those (validated; the enumeration counts are still
        reported, and each mode records whether it survived it).
    task : include task constraints (eqs. 15–18).
    method : projection method passed to :meth:`polytopes.Polytope.project`.
    progress : optional callback ``progress(done, total, mode)`` called after each mode's
        domain (the CLI uses it for a periodic progress line on long analyses).
    compute_overlaps : compute the pairwise ``T_c`` intersections; when ``False``, ``overlaps`` is
        empty. Pairs whose bounding boxes are disjoint are skipped; the others cost one LP each.

    Raises
    ------
    ApproachingContactError
        When a contact approaches (no solution without an impact law).
    ContactModelError
        When ``modes`` contains something that is not a mode of this system, or the system has
        no actuators (``n_τ = 0``).
    """
    if system.n_tau == 0:
        raise ContactModelError("torques: the system has no actuators; torque domains T_c need at least one")
    timing: dict[str, float] = {}
    selected = None if modes is None else _validate_modes(system, modes)
    t0 = time.perf_counter()
    enumeration = enumerate_modes(system)
    timing["enumerate"] = time.perf_counter() - t0
    surviving = set(enumeration.modes)
    selected = list(enumeration.modes) if selected is None else selected

    t0 = time.perf_counter()
    results: dict[str, ModeAnalysis] = {}
    for i, m in enumerate(selected):
        dom = mode_domain(system, m, task=task, method=method)
        if progress is not None:
            progress(i + 1, len(selected), m)
        results[m] = ModeAnalysis(
            mode=m, response=dom.response, domain=dom, D=dom.D, T=dom.T, feasible=dom.feasible,
            kinematically_feasible=m in surviving, timing=dict(dom.timing),
        )
    timing["modes"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    overlaps: dict[tuple[str, str], Polytope] = {}
    feasible = [m for m in selected if results[m].feasible] if compute_overlaps else []
    boxes = {m: results[m].T.bounding_box() for m in feasible}
    for a, b in itertools.combinations(feasible, 2):
        if boxes_disjoint(boxes[a], boxes[b]):
            continue  # separated along a coordinate axis: no LP needed
        inter = intersect_domains(results[a].T, results[b].T)
        if inter is not None and not inter.is_empty():
            overlaps[(a, b)] = inter
    timing["overlaps"] = time.perf_counter() - t0
    return AnalysisResult(system, enumeration, results, overlaps, task, timing)
