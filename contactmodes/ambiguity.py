"""Ambiguity and inconsistency of the rigid-body model (flipping paper Sec. III-G; bracing paper).

For a desired behaviour — a contact mode ``c`` plus the system's task constraints — the torques
that are *guaranteed* to produce it are (bracing paper, "Goal")

    T*_c = T_c − ∪_{c'} (T_c ∩ T_c') − ∪_i (T_c ∩ T_c^i)

* ``T_c``: the torque domain of ``c`` **with** the task constraints (:func:`~contactmodes.domains.mode_domain`);
* across modes (III-G.1, the ordering of Fig. 4): ``T_c'`` of every other kinematically feasible
  mode ``c'`` computed **without** task constraints — the model may predict ``c'`` instead;
* within the mode: ``T_c^i``, the torques admitting a mode-``c`` solution that violates task
  constraint row ``i`` (physical constraints kept, the other task rows dropped).

Negation margin (the boundary convention of the within-mode sets)
------------------------------------------------------------------
The negation of ``a·z >= b`` (``z = (q̈, f, τ)``) is the open half-space ``a·z < b``. After
substituting the mode's response it reads ``α·(τ, w) < β``; it is represented by the closed
``α·(τ, w) <= β − δ`` with ``δ = NEGATION_RTOL · max(‖α‖, |β|)``
(:data:`~contactmodes.tolerances.NEGATION_RTOL`): a slab of relative width ``NEGATION_RTOL``
in the torque/ambiguity space is not counted, so LP-level noise is never reported as an
ambiguity (the margin is measured where the LPs work, not in the units of the task row). The
negation of ``a·z = b`` is the union of ``a·z > b`` and ``a·z < b`` (two sets, both reported
under the same source). Set
differences follow :mod:`polytopes.regions` (closures; removals of measure zero within ``T_c``
are reported as sources but remove nothing).

Degenerate domains (III-G.2): :class:`UnambiguousResult` reports whether ``w`` varies over
``D_c`` and whether it moves accelerations or only contact forces.

Inconsistency: :func:`inconsistent` returns the torques of a box for which **no** kinematically
feasible mode has a solution (no task constraints), e.g. the Painlevé rod.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from polytopes import Polytope, PolytopeError, difference, union_contains

from . import tolerances
from .domains import ModeDomain, boxes_disjoint, intersect_domains, mode_domain
from .errors import ContactModelError
from .modes import enumerate_modes, validate_mode
from .response import ModeResponse, solve_response
from .system import ContactSystem

__all__ = [
    "AmbiguitySource",
    "TaskRow",
    "UnambiguousResult",
    "across_mode_sets",
    "inconsistent",
    "task_rows",
    "unambiguous",
    "untasked_domains",
    "within_mode_sets",
]


@dataclass(frozen=True)
class TaskRow:
    """One row ``i`` of the system's task constraints (eqs. 15–18), in file order.

    Attributes
    ----------
    index : ``i`` (0-based over all task rows, blocks in system order).
    label : ``"task:<i>"``, the source name used in reports and JSON.
    name : the block's name (``""`` if none).
    type : ``"eq"`` or ``"geq"``.
    qdd, f, tau : (n_q,), (2k,), (n_τ,) coefficients; rhs : right-hand side.
    """

    index: int
    label: str
    name: str
    type: str
    qdd: np.ndarray
    f: np.ndarray
    tau: np.ndarray
    rhs: float

    def negations(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """The negation(s) as ``(a_x, a_τ, b)`` meaning ``a_x·[q̈; f] + a_τ·τ <= b`` before the margin.

        ``geq``: one row (``a·z <= rhs``); ``eq``: two (``a·z <= rhs`` and ``−a·z <= −rhs``).
        The margin is applied after substitution (:func:`negated_rows`).
        """
        a_x = np.concatenate([self.qdd, self.f])
        out = [(a_x, self.tau, self.rhs)]
        if self.type == "eq":
            out.append((-a_x, -self.tau, -self.rhs))
        return out

    def violated(self, qdd: np.ndarray, f: np.ndarray, tau: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``(q̈, f, τ)`` violates this row by more than ``tol``."""
        value = float(self.qdd @ qdd + self.f @ f + self.tau @ tau)
        if self.type == "eq":
            return abs(value - self.rhs) > tol
        return value < self.rhs - tol


def task_rows(system: ContactSystem) -> list[TaskRow]:
    """The task constraint rows of ``system`` as :class:`TaskRow` objects, in file order."""
    out: list[TaskRow] = []
    for blk in system.constraints_of(("task",)):
        for r in range(blk.n_rows):
            i = len(out)
            out.append(TaskRow(i, f"task:{i}", blk.name, blk.type, blk.qdd[r], blk.f[r], blk.tau[r],
                               float(blk.rhs[r])))
    return out


@dataclass
class AmbiguitySource:
    """One reason a torque in ``T_c`` may not produce the desired behaviour.

    Attributes
    ----------
    source : the other mode ``c'`` (a mode string) or ``"task:<i>"`` (a violated task row).
    kind : ``"mode"`` or ``"task"``.
    set : the non-empty pieces of ``T_c ∩ T_c'`` (one) or ``T_c ∩ T_c^i`` (one, or two for an
        equality row), over τ (dimension ``n_τ``).
    boundary_only : every piece has a lower affine dimension than ``T_c``: the ambiguity lives
        on a set of measure zero within ``T_c`` (e.g. where two domains touch) and, under the
        closure convention, removes nothing from ``T*_c``.
    """

    source: str
    kind: str
    set: list[Polytope] = field(repr=False)
    boundary_only: bool = False

    def to_json(self) -> dict:
        """``{"source": …, "set": [polytope, …], "boundary_only": bool}``."""
        return {"source": self.source, "set": [p.to_json() for p in self.set],
                "boundary_only": self.boundary_only}


@dataclass
class UnambiguousResult:
    """Result of :func:`unambiguous` for one desired mode ``c``.

    Attributes
    ----------
    mode : ``c``.
    task : whether task constraints were part of the desired behaviour.
    feasible : ``T_c`` non-empty and the mode kinematically feasible (it survives the
        enumeration of Table III / Sec. III-F; a pruned mode never occurs, so nothing is guaranteed).
    feasible_set : ``T_c`` over τ (``n_τ``), ``None`` when infeasible.
    kinematically_feasible : the mode survives the enumeration.
    unambiguous : ``T*_c`` as a list of convex pieces (closures, relative interiors disjoint);
        ``[]`` when every feasible torque is ambiguous or ``T_c`` is empty.
    sources : every non-empty ambiguity set, across modes first (analysis order) then task rows.
    w_varies : the null-space variables ``w`` vary over ``D_c`` (III-G.2).
    w_moves_accelerations, w_moves_forces : what ``w`` moves (III-G.2): a degenerate domain with
        ``w_moves_accelerations = False`` has unique accelerations and ambiguous forces only.
    domain : the :class:`~contactmodes.domains.ModeDomain` of ``c`` (with tasks if ``task``).
    timing : seconds: ``"feasible"``, ``"across"``, ``"within"``, ``"difference"``.
    """

    mode: str
    task: bool
    feasible: bool
    feasible_set: Polytope | None = field(repr=False)
    unambiguous: list[Polytope] = field(repr=False)
    sources: list[AmbiguitySource]
    w_varies: bool
    w_moves_accelerations: bool
    w_moves_forces: bool
    domain: ModeDomain = field(repr=False)
    timing: dict[str, float] = field(default_factory=dict)
    kinematically_feasible: bool = True

    def contains(self, tau, tol: float | None = None) -> bool:
        """Whether ``tau`` (n_τ,) lies in ``T*_c`` (closure convention, see the module doc)."""
        return union_contains(self.unambiguous, np.asarray(tau, dtype=float), tol)

    def sources_at(self, tau, tol: float | None = None) -> list[str]:
        """The sources whose set contains ``tau`` (n_τ,)."""
        tau = np.asarray(tau, dtype=float)
        return [s.source for s in self.sources if union_contains(s.set, tau, tol)]

    def to_json(self) -> dict:
        """``{"mode", "feasible", "unambiguous": [polytopes], "ambiguity_sources": [...], ...}``."""
        return {
            "mode": self.mode,
            "feasible": self.feasible,
            "unambiguous": [p.to_json() for p in self.unambiguous],
            "ambiguity_sources": [s.to_json() for s in self.sources],
            "w_varies": self.w_varies,
            "w_moves_accelerations": self.w_moves_accelerations,
            "w_moves_forces": self.w_moves_forces,
        }


def untasked_domains(system: ContactSystem, modes: Sequence[str] | None = None,
                     method: str = "auto") -> dict[str, ModeDomain]:
    """``T_c'`` without task constraints for ``modes`` (default: every kinematically feasible mode).

    Computed once and passed to :func:`unambiguous` / :func:`inconsistent` to share the work
    between several desired modes.
    """
    if modes is None:
        modes = enumerate_modes(system).modes
    return {m: mode_domain(system, m, task=False, method=method) for m in modes}


def _nonempty_intersection(T: Polytope, other: Polytope | None, box_T=None, box_other=None) -> Polytope | None:
    """``T ∩ other`` if non-empty (``None`` otherwise); boxes, when given, skip separated pairs."""
    if other is None:
        return None
    if box_T is not None and box_other is not None and boxes_disjoint(box_T, box_other):
        return None
    inter = intersect_domains(T, other)
    if inter is None or inter.is_empty():
        return None
    return inter


def across_mode_sets(T_c: Polytope, mode: str, others: Mapping[str, ModeDomain],
                     box: tuple[np.ndarray, np.ndarray] | None = None) -> list[AmbiguitySource]:
    """``T_c ∩ T_c'`` for every ``c' != mode`` in ``others`` (III-G.1), the non-empty ones.

    ``others`` maps modes to their domains *without* task constraints (:func:`untasked_domains`);
    ``box`` is ``T_c``'s bounding box if known (pairs with separated boxes cost no LP).
    """
    out = []
    if box is None:
        box = T_c.bounding_box()
    for m, dom in others.items():
        if m == mode or not dom.feasible:
            continue
        inter = _nonempty_intersection(T_c, dom.T, box, dom.box)
        if inter is not None:
            out.append(AmbiguitySource(m, "mode", [inter]))
    return out


def negated_rows(response: ModeResponse, row: TaskRow) -> list[tuple[np.ndarray, float]]:
    """The negation(s) of ``row`` over ``z = (τ, w)`` of a physical-only ``response``, with margin.

    Substituting ``[q̈; f] = P τ + Q w + r`` into ``a_x·[q̈; f] + a_τ·τ <= b`` gives
    ``α·z <= β`` with ``α = [a_x P + a_τ, a_x Q]``, ``β = b − a_x r``; the margin moves it to
    ``α·z <= β − δ``, ``δ = NEGATION_RTOL · max(‖α‖, |β|)``: the removed slab has width
    ``NEGATION_RTOL · max(1, |β|/‖α‖)`` in ``z`` (module doc). A row with ``α = 0`` (the task
    quantity does not depend on τ or w in this mode) is skipped: it either holds for every
    solution of the mode or for none, so it cannot make a torque of ``T_c`` ambiguous.
    """
    out = []
    for a_x, a_tau, b in row.negations():
        alpha = np.concatenate([a_x @ response.P + a_tau, a_x @ response.Q])
        beta = float(b - a_x @ response.r)
        norm = float(np.linalg.norm(alpha))
        # zero up to cancellation noise of the terms that produced it (relative, no absolute
        # floor: a row written in tiny units is still a row)
        terms = float(np.linalg.norm(a_x)) * max(float(np.abs(response.P).max(initial=0.0)),
                                                  float(np.abs(response.Q).max(initial=0.0)))
        if norm <= tolerances.CANCEL_RTOL * (terms + float(np.linalg.norm(a_tau))):
            continue
        out.append((alpha, beta - tolerances.NEGATION_RTOL * max(norm, abs(beta))))
    return out


def within_mode_sets(system: ContactSystem, mode: str, T_c: Polytope, method: str = "auto",
                     response: ModeResponse | None = None) -> list[AmbiguitySource]:
    """``T_c ∩ T_c^i`` for each task row ``i`` (bracing paper, step 3 of the robust analysis), the non-empty ones.

    ``T_c^i`` is the torque domain of ``mode`` with the physical constraints and the negation of
    row ``i`` only (module doc for the margin); an equality row contributes up to two pieces.
    ``response`` is the physical-only response of ``mode`` if already computed.
    """
    out = []
    if response is None:
        response = solve_response(system, mode, task=False)
    for row in task_rows(system):
        pieces = []
        for alpha, beta in negated_rows(response, row):
            dom = mode_domain(system, mode, task=False, method=method, response=response,
                              extra=(alpha[None, :], np.array([beta])))
            inter = _nonempty_intersection(T_c, dom.T) if dom.feasible else None
            if inter is not None:
                pieces.append(inter)
        if pieces:
            out.append(AmbiguitySource(row.label, "task", pieces))
    return out


def _affine_dimension(P: Polytope) -> int:
    """Affine dimension, ``-1`` for a set that a second, stricter emptiness test finds empty.

    ``is_empty`` and the affine-hull computation use different (both scale-relative) tolerances; a
    sliver that passes the first can fail the second, which then means "empty".
    """
    try:
        return P.affine_dimension()
    except (ValueError, PolytopeError):
        return -1


def mark_boundary_only(sources: list[AmbiguitySource], dim: int) -> list[AmbiguitySource]:
    """Drop pieces found empty, drop sources left without pieces, and set ``boundary_only`` on
    the others (every piece of affine dimension below ``dim``, the dimension of ``T_c``)."""
    out = []
    for src in sources:
        dims = [(p, _affine_dimension(p)) for p in src.set]
        src.set = [p for p, d in dims if d >= 0]
        if src.set:
            src.boundary_only = all(d < dim for _, d in dims if d >= 0)
            out.append(src)
    return out


def unambiguous(system: ContactSystem, mode: str, task: bool = True, within_mode: bool = True,
                others: Mapping[str, ModeDomain] | None = None, domain: ModeDomain | None = None,
                method: str = "auto") -> UnambiguousResult:
    """The unambiguous torque set ``T*_c`` of ``mode`` and every ambiguity source (module doc).

    Parameters
    ----------
    system : the model at its state.
    mode : the desired contact mode (one letter per contact).
    task : include the task constraints in the desired behaviour (``T_c`` with tasks, and the
        within-mode sets). With ``False``, ``T_c`` is computed without them and there are no
        within-mode sets.
    within_mode : compute the within-mode sets (``False`` tolerates task violations inside the
        mode, e.g. a force-only ambiguity the caller handles itself).
    others : precomputed domains of the other modes **without** task constraints
        (:func:`untasked_domains`); default: every kinematically feasible mode of ``system``.
    domain : precomputed domain of ``mode`` (with tasks iff ``task``).
    method : projection method for :meth:`polytopes.Polytope.project`.

    Returns
    -------
    UnambiguousResult

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of ``system`` or the system has no actuators.
    ApproachingContactError
        When a contact approaches (from the enumeration).
    """
    validate_mode(system, mode)
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    surviving = None
    if others is None or mode not in others:
        surviving = enumerate_modes(system).modes
    kinematic = surviving is None or mode in surviving
    if domain is None:
        domain = mode_domain(system, mode, task=task, method=method)
    resp = domain.response
    timing["feasible"] = time.perf_counter() - t0
    flags = dict(w_varies=domain.w_varies, w_moves_accelerations=resp.w_moves_accelerations,
                 w_moves_forces=resp.w_moves_forces)
    if not domain.feasible or not kinematic:
        # a mode pruned by Table III / Sec. III-F never occurs: nothing is guaranteed
        return UnambiguousResult(mode, task, False, None, [], [], domain=domain, timing=timing,
                                 kinematically_feasible=kinematic, **flags)
    T_c = domain.T

    t0 = time.perf_counter()
    if others is None:
        others = untasked_domains(system, [m for m in surviving if m != mode], method)
    sources = across_mode_sets(T_c, mode, others, domain.box)
    timing["across"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    if task and within_mode:
        own = others.get(mode)
        sources += within_mode_sets(system, mode, T_c, method, None if own is None else own.response)
    timing["within"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    dim = T_c.affine_dimension()
    sources = mark_boundary_only(sources, dim)
    pieces = difference(T_c, [p for s in sources if not s.boundary_only for p in s.set])
    timing["difference"] = time.perf_counter() - t0
    return UnambiguousResult(mode, task, True, T_c, pieces, sources, domain=domain, timing=timing, **flags)


def inconsistent(system: ContactSystem, lo, hi, domains: Mapping[str, ModeDomain] | None = None,
                 progress: Callable[[int, int, str], None] | None = None) -> list[Polytope]:
    """Torques in the box ``[lo, hi]`` for which no mode has a solution (Painlevé-type).

    The box minus the union of ``T_c`` over every kinematically feasible mode, task constraints
    ignored (physical ones kept), as convex pieces (closures; a mode whose ``T_c`` has measure
    zero within the box removes nothing — see :mod:`polytopes.regions`).

    Parameters
    ----------
    lo, hi : (n_τ,) finite box bounds (N·m or N, per torque), ``lo <= hi`` (``lo_j = hi_j``
        fixes torque ``j``: a slice, as the plots use).
    domains : precomputed :func:`untasked_domains` (default: computed here).
    progress : optional ``progress(done, total, mode)`` callback while computing domains.

    Raises
    ------
    ContactModelError
        On a malformed box (shape, NaN/inf, ``lo > hi``), naming the inconsistency box.
    """
    lo = np.asarray(lo, dtype=float).reshape(-1)
    hi = np.asarray(hi, dtype=float).reshape(-1)
    n = system.n_tau
    for name, v in (("LO", lo), ("HI", hi)):
        if v.shape != (n,):
            raise ContactModelError(
                f"inconsistency box: expected {n} ranges (one per torque), got {v.shape[0]} {name} values")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(lo > hi):
        raise ContactModelError("inconsistency box: every range needs finite LO <= HI")
    if domains is None:
        modes = enumerate_modes(system).modes
        domains = {}
        for i, m in enumerate(modes):
            domains[m] = mode_domain(system, m, task=False)
            if progress is not None:
                progress(i + 1, len(modes), m)
    box = Polytope.box(lo, hi)
    try:
        return difference(box, [d.T for d in domains.values() if d.feasible])
    except PolytopeError as exc:  # pragma: no cover - dimensions are consistent by construction
        raise ContactModelError(f"inconsistency box: {exc}") from None
