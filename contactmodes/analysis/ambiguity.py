"""Ambiguity and inconsistency of the rigid-body model (flipping paper Sec. III-G; bracing paper).

For a desired behaviour — a contact mode ``c`` plus the system's task constraints — the torques
that are *guaranteed* to produce it are (bracing.md, "Goal")

    T*_c = T_c − ∪_{c'} (T_c ∩ T_c') − ∪_i (T_c ∩ T_c^i)

* ``T_c``: the torque domain of ``c`` **with** the task constraints (``mode_domain``);
* across modes (III-G.1, the ordering of Fig. 4): ``T_c'`` of every other kinematically feasible
  mode ``c'`` computed **without** task constraints — the model may predict ``c'`` instead;
* within the mode: ``T_c^i``, the torques admitting a mode-``c`` solution that violates task
  constraint row ``i`` (physical constraints kept, the other task rows dropped).

Negation margin (the boundary convention of the within-mode sets)
------------------------------------------------------------------
The negation of ``a·z >= b`` (``z = (q̈, f, τ)``) is the open half-space ``a·z < b``. After
substituting the mode's response it reads ``α·(τ, w) < β``; it is represented by the closed
``α·(τ, w) <= β − δ`` with ``δ = NEGATION_RTOL · max(‖α‖, |β|)``
(``NEGATION_RTOL``): a slab of relative width ``NEGATION_RTOL``
in the torque/ambiguity space is not counted, so LP-level noise is never reported as an
ambiguity (the margin is measured where the LPs work, not in the units of the task row). The
negation of ``a·z = b`` is the union of ``a·z > b`` and ``a·z < b`` (two sets, both reported
under the same source). Set
differences follow ``polytopes.regions`` (closures; removals of measure zero within ``T_c``
are reported as sources but remove nothing).

Degenerate domains (III-G.2): ``UnambiguousResult`` reports whether ``w`` varies over
``D_c`` and whether it moves accelerations or only contact forces.

Inconsistency: ``inconsistent`` returns the torques of a box for which **no** kinematically
feasible mode has a solution (no task constraints), e.g. the Painlevé rod.

Everything is computed in an ``AnalysisSession`` (nondimensional, each
mode's domains computed once and shared between desired modes) and mapped back to user units.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from polytopes import Polytope, PolytopeError, difference, union_contains

from contactmodes import tolerances
from contactmodes.analysis.domains import ModeDomain, boxes_disjoint, intersect_domains
from contactmodes.errors import ContactModelError
from contactmodes.modes.response import ModeResponse
from contactmodes.model.scaling import Scaling
from contactmodes.progress import Progress, stage
from contactmodes.analysis.session import AnalysisSession
from contactmodes.model.system import ContactSystem

__all__ = [
    "AmbiguitySource",
    "TaskRow",
    "UnambiguousResult",
    "inconsistent",
    "negated_rows",
    "task_rows",
    "unambiguous",
    "untasked_domains",
]


@dataclass(frozen=True)
class TaskRow:
    """One row ``i`` of the system's task constraints (eqs. 15–18), in file order.

    Attributes
    ----------
    index : int
        ``i`` (0-based over all task rows, blocks in system order).
    label : str
        ``"task:<i>"``, the source name used in reports and JSON.
    name : str
        The block's name (``""`` if none).
    type : str
        ``"eq"`` or ``"geq"``.
    qdd, f, tau : numpy.ndarray
        Coefficients of ``q̈``, ``f`` and ``τ``, shapes ``(n_q,)``, ``(n_f,)`` and ``(n_τ,)``.
    rhs : float
        Right-hand side.
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
        The margin is applied after substitution (``negated_rows``).
        """
        a_x = np.concatenate([self.qdd, self.f])
        out = [(a_x, self.tau, self.rhs)]
        if self.type == "eq":
            out.append((-a_x, -self.tau, -self.rhs))
        return out

    def violated(self, qdd: np.ndarray, f: np.ndarray, tau: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``(q̈, f, τ)`` violates this row by more than ``tol``.

        Parameters
        ----------
        qdd : numpy.ndarray
            ``(n_q,)`` generalized accelerations.
        f : numpy.ndarray
            ``(n_f,)`` contact forces.
        tau : numpy.ndarray
            ``(n_τ,)`` torques.
        tol : float, optional
            Allowed violation, in the units of the row's value.

        Returns
        -------
        bool
            ``eq``: ``|a·z − rhs| > tol``; ``geq``: ``a·z < rhs − tol``.
        """
        value = float(self.qdd @ qdd + self.f @ f + self.tau @ tau)
        if self.type == "eq":
            return abs(value - self.rhs) > tol
        return value < self.rhs - tol


def task_rows(system: ContactSystem) -> list[TaskRow]:
    """The task constraint rows of ``system`` as ``TaskRow`` objects, in file order.

    Parameters
    ----------
    system : ContactSystem
        The system (its task blocks, eqs. 15–18).

    Returns
    -------
    list[TaskRow]
        One per row, blocks in system order, in the system's units.
    """
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
    source : str
        The other mode ``c'`` (a mode string) or ``"task:<i>"`` (a violated task row).
    kind : str
        ``"mode"`` or ``"task"``.
    set : list[Polytope]
        The non-empty pieces of ``T_c ∩ T_c'`` (one) or ``T_c ∩ T_c^i`` (one, or two for an
        equality row), over τ (dimension ``n_τ``).
    boundary_only : bool
        Every piece has a lower affine dimension than ``T_c``: the ambiguity lives
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
    """Result of ``unambiguous`` for one desired mode ``c`` (user units).

    Attributes
    ----------
    mode : str
        The desired mode ``c``.
    task : bool
        Whether task constraints were part of the desired behaviour.
    feasible : bool
        ``T_c`` non-empty and the mode kinematically feasible (it survives the
        enumeration of Table III / Sec. III-F; a pruned mode never occurs, so nothing is guaranteed).
    feasible_set : Polytope or None
        ``T_c`` over τ (``n_τ``), ``None`` when infeasible.
    kinematically_feasible : bool
        The mode survives the enumeration.
    unambiguous : list[Polytope]
        ``T*_c`` as a list of convex pieces (closures, relative interiors disjoint);
        ``[]`` when every feasible torque is ambiguous or ``T_c`` is empty.
    sources : list[AmbiguitySource]
        Every non-empty ambiguity set, across modes first (analysis order) then task rows.
    w_varies : bool
        The null-space variables ``w`` vary over ``D_c`` (III-G.2).
    w_moves_accelerations, w_moves_forces : bool
        What ``w`` moves (III-G.2): a degenerate domain with
        ``w_moves_accelerations = False`` has unique accelerations and ambiguous forces only.
    domain : ModeDomain
        The ``ModeDomain`` of ``c`` (with tasks if ``task``).
    timing : dict[str, float]
        Seconds: ``"feasible"``, ``"across"``, ``"within"``, ``"difference"``.
    scaled_pieces : list[Polytope]
        ``T*_c`` over the nondimensional torques of the session (membership tests are
        made there, so that they do not depend on units).
    scaling : Scaling or None
        The session's ``Scaling``.
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
    scaled_pieces: list[Polytope] = field(default_factory=list, repr=False)
    scaling: Scaling | None = field(default=None, repr=False)

    def contains(self, tau, tol: float | None = None) -> bool:
        """Whether ``tau`` lies in ``T*_c`` (closure convention, see the module doc).

        Decided on the nondimensional torques.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` torques, the system's units.
        tol : float, optional
            Relative tolerance as ``polytopes.Polytope.contains``.

        Returns
        -------
        bool
            ``False`` when ``T*_c`` is empty.
        """
        tau = np.asarray(tau, dtype=float)
        if self.scaling is None:
            return union_contains(self.unambiguous, tau, tol)
        return union_contains(self.scaled_pieces, self.scaling.tau_from_user(tau), tol)

    def sources_at(self, tau, tol: float | None = None) -> list[str]:
        """The sources whose set contains ``tau``.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` torques, the system's units.
        tol : float, optional
            Relative tolerance as ``polytopes.Polytope.contains``.

        Returns
        -------
        list[str]
            Mode strings or ``"task:<i>"``, in the order of ``sources``.
        """
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


class UntaskedDomains(dict):
    """``mode → ModeDomain`` without task constraints (user units), with the
    ``AnalysisSession`` that computed them (``.session``), so that
    ``unambiguous`` / ``inconsistent`` given it reuse that session's cached work.

    Parameters
    ----------
    session : AnalysisSession
        The session that computes (and keeps) the domains.
    modes : Iterable[str]
        The modes to compute.
    """

    def __init__(self, session: AnalysisSession, modes) -> None:
        super().__init__({m: session.mode(m).domain(False) for m in modes})
        self.session = session


def untasked_domains(system: ContactSystem, modes=None, method: str = "auto") -> UntaskedDomains:
    """``T_c'`` without task constraints for ``modes``, as an ``UntaskedDomains`` carrying its session.

    Prefer passing an ``AnalysisSession`` to ``unambiguous`` directly.

    Parameters
    ----------
    system : ContactSystem
        The model at its state.
    modes : Iterable[str], optional
        The modes; ``None``: every kinematically feasible mode.
    method : str, optional
        The projection method of the session (``"auto"``, ``"exact"``, ...:
        ``AnalysisSession``).

    Returns
    -------
    UntaskedDomains
        ``mode → ModeDomain`` in the system's units.

    Raises
    ------
    ContactModelError
        For a mode that is not a mode of the system.
    ApproachingContactError
        When a contact approaches (from the enumeration).
    """
    session = AnalysisSession(system, method=method)
    return UntaskedDomains(session, session.enumeration.modes if modes is None else list(modes))


def _session(system, others) -> AnalysisSession:
    """The session to work in: ``system`` itself when it is one, else the one ``others`` lends
    (an ``UntaskedDomains`` of the same system), else a new one."""
    if isinstance(system, AnalysisSession):
        return system
    own = getattr(others, "session", None)
    if isinstance(own, AnalysisSession) and own.system is system:
        return own
    return AnalysisSession(system)


def negated_rows(response: ModeResponse, row: TaskRow) -> list[tuple[np.ndarray, float]]:
    """The negation(s) of ``row`` over ``z = (τ, w)`` of a physical-only ``response``, with margin.

    Substituting ``[q̈; f] = P τ + Q w + r`` into ``a_x·[q̈; f] + a_τ·τ <= b`` gives
    ``α·z <= β`` with ``α = [a_x P + a_τ, a_x Q]``, ``β = b − a_x r``; the margin moves it to
    ``α·z <= β − δ``, ``δ = NEGATION_RTOL · max(‖α‖, |β|)``: the removed slab has width
    ``NEGATION_RTOL · max(1, |β|/‖α‖)`` in ``z`` (module doc).

    A row whose ``w``-part ``a_x Q`` vanishes (up to cancellation noise of its terms) is skipped:
    the task quantity is then the same for every solution of the mode at a given τ, so ``T_c``
    (which contains the row) already guarantees it for each of its torques — it cannot make a
    torque of ``T_c`` ambiguous. (Testing it anyway would intersect two parallel hyperplanes a
    margin apart, a decision left to tolerances; that once reported a far-away sliver.) A row with
    ``α = 0`` altogether is skipped for the same reason.

    Parameters
    ----------
    response : ModeResponse
        The mode's physical-only response (no task rows), nondimensional as the session computes it.
    row : TaskRow
        The task row (of the same, nondimensional system).

    Returns
    -------
    list[tuple[numpy.ndarray, float]]
        ``(α, β − δ)`` per negation: ``α`` ``(n_τ + n_w,)`` over ``z = (τ, w)``; empty when the row
        is skipped.
    """
    out = []
    terms_w = float(np.linalg.norm(np.concatenate([row.qdd, row.f]))) * float(np.abs(response.Q).max(initial=0.0))
    for a_x, a_tau, b in row.negations():
        alpha_w = a_x @ response.Q
        if float(np.linalg.norm(alpha_w)) <= tolerances.CANCEL_RTOL * terms_w:
            continue
        alpha = np.concatenate([a_x @ response.P + a_tau, alpha_w])
        beta = float(b - a_x @ response.r)
        norm = float(np.linalg.norm(alpha))
        out.append((alpha, beta - tolerances.NEGATION_RTOL * max(norm, abs(beta))))
    return out


SCREEN_MIN_MODES = 512
"""``unambiguous`` screens the other modes (``interior_sources``) when there are at least this many
(``screen=None``): below it every mode meeting ``T_c`` is reported as before, boundary-only ones
included (the planar examples have at most a few dozen modes)."""


def interior_sources(session: AnalysisSession, T_c: Polytope, names: list[str]) -> list[str]:
    """The modes of ``names`` whose ``T_c'`` (without task constraints) may meet ``T_c`` in a
    full-dimensional set, in the order given: ``PointFilter.interior_overlaps`` of the session's
    filter without task rows (``contactmodes.analysis.point_location``; one verified batched LP
    per mode at a common point of the sets, e.g. the apex ``τ*`` of a system at rest). A mode left
    out meets ``T_c`` at most in a set holding no ball of radius ``OVERLAP_APERTURE`` times its
    distance from that point (``contactmodes.tolerances``): a boundary-only source, which removes
    nothing from ``T*_c``.

    Parameters
    ----------
    session : AnalysisSession
        The session (nondimensional sets).
    T_c : Polytope
        ``T_c`` over the nondimensional torques ``τ'``.
    names : list[str]
        The candidate modes ``c'``.

    Returns
    -------
    list[str]
        The modes kept (a subset of ``names``; all of them when the filter does not apply).
    """
    return session.point_filter(False).interior_overlaps(T_c, names)


def across_mode_sets(session: AnalysisSession, mode: str, T_c: Polytope, others) -> list[AmbiguitySource]:
    """``T_c ∩ T_c'`` over τ' for every kinematically feasible ``c' != mode`` in ``others``
    (III-G.1), ``T_c'`` without task constraints; the non-empty ones. Separated boxes cost no LP.

    Parameters
    ----------
    session : AnalysisSession
        The session (nondimensional sets).
    mode : str
        The desired mode ``c``.
    T_c : Polytope
        ``T_c`` over the nondimensional torques ``τ'``.
    others : Iterable[str]
        The candidate modes ``c'`` (``mode`` itself and infeasible ones are skipped).

    Returns
    -------
    list[AmbiguitySource]
        Kind ``"mode"``, one piece each, over ``τ'``.
    """
    box = T_c.bounding_box()
    out = []
    for m in others:
        if m == mode:
            continue
        sol = session.mode(m)
        if not sol.kinematically_feasible or not sol.feasible(False):
            continue
        if boxes_disjoint(box, sol.box_scaled(False)):
            continue
        inter = intersect_domains(T_c, sol.T_scaled(False))
        if inter is not None and not inter.is_empty():
            out.append(AmbiguitySource(m, "mode", [inter]))
    return out


def within_mode_sets(session: AnalysisSession, mode: str, T_c: Polytope) -> list[AmbiguitySource]:
    """``T_c ∩ T_c^i`` over τ' for each task row ``i`` (bracing.md, step 3), the non-empty ones:
    ``T_c^i`` is ``mode``'s torque domain with the physical constraints and the negation of row
    ``i`` only (module doc for the margin); an equality row contributes up to two pieces.

    Parameters
    ----------
    session : AnalysisSession
        The session (nondimensional sets).
    mode : str
        The desired mode ``c``.
    T_c : Polytope
        ``T_c`` (with tasks) over the nondimensional torques ``τ'``.

    Returns
    -------
    list[AmbiguitySource]
        Kind ``"task"``, labelled ``"task:<i>"``, over ``τ'``.
    """
    sol = session.mode(mode)
    response = sol.response_scaled(False)
    out = []
    for row in task_rows(session.scaled):
        pieces = []
        for alpha, beta in negated_rows(response, row):
            Ti = sol.projected_scaled((alpha[None, :], np.array([beta])), task=False)
            if Ti is None:
                continue
            inter = intersect_domains(T_c, Ti)
            if inter is not None and not inter.is_empty():
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
    the others (every piece of affine dimension below ``dim``, the dimension of ``T_c``).

    Parameters
    ----------
    sources : list[AmbiguitySource]
        The sources (their ``set`` is replaced in place).
    dim : int
        The affine dimension of ``T_c``.

    Returns
    -------
    list[AmbiguitySource]
        The sources left, ``boundary_only`` set.
    """
    out = []
    for src in sources:
        dims = [(p, _affine_dimension(p)) for p in src.set]
        src.set = [p for p, d in dims if d >= 0]
        if src.set:
            src.boundary_only = all(d < dim for _, d in dims if d >= 0)
            out.append(src)
    return out


def _to_user(session: AnalysisSession, sources: list[AmbiguitySource]) -> list[AmbiguitySource]:
    return [AmbiguitySource(s.source, s.kind, [session.to_user(p) for p in s.set], s.boundary_only)
            for s in sources]


def unambiguous(system: ContactSystem | AnalysisSession, mode: str, task: bool = True,
                within_mode: bool = True, others: Mapping[str, ModeDomain] | None = None,
                screen: bool | None = None) -> UnambiguousResult:
    """The unambiguous torque set ``T*_c`` of ``mode`` and every ambiguity source (module doc).

    Parameters
    ----------
    system : ContactSystem or AnalysisSession
        The model at its state, or an ``AnalysisSession`` of it
        (whose cached domains are then reused).
    mode : str
        The desired contact mode (one letter per contact).
    task : bool, optional
        Include the task constraints in the desired behaviour (``T_c`` with tasks, and the
        within-mode sets). With ``False``, ``T_c`` is computed without them and there are no
        within-mode sets.
    within_mode : bool, optional
        Compute the within-mode sets (``False`` tolerates task violations inside the
        mode, e.g. a force-only ambiguity the caller handles itself).
    others : Mapping[str, ModeDomain], optional
        Optional mapping whose keys restrict the other modes considered (default: every
        kinematically feasible mode); an ``UntaskedDomains`` also lends its session.
    screen : bool, optional
        Screen the other modes first (``interior_sources``): only those that may meet ``T_c``
        in a full-dimensional set are intersected and reported, so boundary-only sources are
        left out of ``sources`` while ``T*_c`` is the same set. Default (``None``): screen when
        there are at least ``SCREEN_MIN_MODES`` other modes (Solo-12 on four feet: ``10^4``).

    Returns
    -------
    UnambiguousResult
        ``T_c``, ``T*_c`` (pieces) and the sources in the system's units (``scaled_pieces`` over the
        nondimensional torques).

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of ``system`` or the system has no actuators.
    ApproachingContactError
        When a contact approaches (from the enumeration).
    """
    ses = _session(system, others)
    sc = ses.scaling
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    sol = ses.mode(mode)
    kinematic = sol.kinematically_feasible
    feasible = sol.feasible(task)
    resp = sol.response_scaled(task)
    dom = sol.domain(task)
    timing["feasible"] = time.perf_counter() - t0
    flags = dict(w_varies=dom.w_varies, w_moves_accelerations=resp.w_moves_accelerations,
                 w_moves_forces=resp.w_moves_forces)
    if not feasible or not kinematic:
        # a mode pruned by Table III / Sec. III-F never occurs: nothing is guaranteed
        return UnambiguousResult(mode, task, False, None, [], [], domain=dom, timing=timing,
                                 kinematically_feasible=kinematic, scaling=sc, **flags)
    T_c = sol.T_scaled(task)

    t0 = time.perf_counter()
    names = list(others) if others is not None else list(ses.enumeration.modes)
    if screen or (screen is None and len(names) >= SCREEN_MIN_MODES):
        names = interior_sources(ses, T_c, names)
        timing["screen"] = time.perf_counter() - t0
    sources = across_mode_sets(ses, mode, T_c, names)
    timing["across"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    if task and within_mode:
        sources += within_mode_sets(ses, mode, T_c)
    timing["within"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    sources = mark_boundary_only(sources, T_c.affine_dimension())
    pieces = difference(T_c, [p for s in sources if not s.boundary_only for p in s.set])
    timing["difference"] = time.perf_counter() - t0
    return UnambiguousResult(mode, task, True, ses.to_user(T_c), [ses.to_user(p) for p in pieces],
                             _to_user(ses, sources), domain=dom, timing=timing, scaled_pieces=pieces,
                             scaling=sc, **flags)


def inconsistent(system: ContactSystem | AnalysisSession, lo, hi, domains: Mapping[str, ModeDomain] | None = None,
                 progress: Progress | None = None) -> list[Polytope]:
    """Torques in the box ``[lo, hi]`` for which no mode has a solution (Painlevé-type).

    The box minus the union of ``T_c`` over every kinematically feasible mode, task constraints
    ignored (physical ones kept), as convex pieces (closures; a mode whose ``T_c`` has measure
    zero within the box removes nothing — see ``polytopes.regions``), in user units.

    Parameters
    ----------
    system : ContactSystem or AnalysisSession
        The model, or an ``AnalysisSession`` of it.
    lo, hi : array_like
        ``(n_τ,)`` finite box bounds (N·m or N, per torque), ``lo <= hi`` (``lo_j = hi_j``
        fixes torque ``j``: a slice, as the plots use).
    domains : Mapping[str, ModeDomain], optional
        Optional mapping whose keys restrict the modes (an ``UntaskedDomains`` also
        lends its session).
    progress : Progress, optional
        Optional ``Progress``: the stage ``inconsistent
        torques`` while the modes' domains are computed, one step per mode.

    Returns
    -------
    list[Polytope]
        Convex pieces over τ (the system's units); ``[]`` when every torque of the box has a mode.

    Raises
    ------
    ContactModelError
        On a malformed box (shape, NaN/inf, ``lo > hi``), naming the inconsistency box.
    """
    ses = _session(system, domains)
    lo = np.asarray(lo, dtype=float).reshape(-1)
    hi = np.asarray(hi, dtype=float).reshape(-1)
    n = ses.system.n_tau
    for name, v in (("LO", lo), ("HI", hi)):
        if v.shape != (n,):
            raise ContactModelError(
                f"inconsistency box: expected {n} ranges (one per torque), got {v.shape[0]} {name} values")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(lo > hi):
        raise ContactModelError("inconsistency box: every range needs finite LO <= HI")
    names = list(domains) if domains is not None else ses.enumeration.modes
    sc = ses.scaling
    lo_s, hi_s = sc.tau_from_user(lo), sc.tau_from_user(hi)
    box = Polytope.box(lo_s, hi_s)
    covers = []
    with stage(progress, "inconsistent torques", len(names)) as st:
        for m in names:
            sol = ses.mode(m)
            if sol.kinematically_feasible and sol.feasible(False) and \
                    not boxes_disjoint((lo_s, hi_s), sol.box_scaled(False)):
                covers.append(sol.T_scaled(False))
            st.update(1, m)
    return [ses.to_user(p) for p in difference(box, covers)]
