"""The lazy search of the unambiguous optimal torque over all contact modes at one state.

The computation of the flipping paper's Sec. IV-B.2 for any planar system and any linear
objective ``J = c_q·q̈ + c_f·f + c_τ·τ``: maximize ``J_c(τ)`` over

    T*_c ∩ L,   T*_c = T_c(with task) − ∪_{c' ∈ M_f, c' ≠ c} T_c'(without task)        (34)

over the kinematically feasible modes ``c`` whose objective is unique (``J`` does not depend on
the mode's ambiguity variables ``w``, III-G.2; eqs. (24)–(33) for the responses and domains),
``L`` a torque box, and apply the best mode's torque. ``controllers.generic.controller`` wraps
it into a controller; ``controllers.rhex.max_thrust`` configures it for RHex (maximize θ̈).

Lazy evaluation (``T*_c ∩ L`` is never built for every mode): one response per mode
(``contactmodes.realtime.plan.Layout.responses``, the objective's ``grad``/``offset``), one bound
LP per mode over the lifted domain ``D_c ∩ L`` in ``(τ, w)`` giving ``β_c >= J*_c`` and its
maximizer ``τ°_c``; candidates in decreasing ``β`` order: the *fast path* accepts ``τ°_c`` when a
point test (``POINT_TOL``) finds it in no other mode's ``T_c'``, the *slow path* projects
``K = T_c ∩ L`` in an ``AnalysisSession`` of the step's scaled system, removes the full-dimensional
intersections with the other modes' ``T_c'`` (``polytopes.difference``) and maximizes over the
pieces; stop when the best value is ``>= β`` of the next candidate (``TIE_TOL``). The modes are
ranked by their suprema (the maxima over the closures); the winner's torque is then the margin
rule's (*Margin* below). When no mode meets the task rows the search runs again without them
(``"task_dropped"``). Modes whose kinematic LP the batch leaves undecided (near rest) are
resolved only where the answer can depend on them (*pending* modes, ``_Modes``).

*Settled candidates* (``controllers.generic.certify``). A candidate whose ``τ°`` the point test
finds in other modes' ``T_c'`` is first offered to two certificates that need no projection,
only the lifted domains and a few LPs: **kept** when each of those ``T_c'`` meets ``K`` in a set
of lower dimension than ``K`` (then ``τ°`` attains ``β_c`` over the closure of ``T*_c ∩ L``, and
it is the answer's supremum point, the margin rule's start) and **empty** when one of them, without ambiguity variables,
contains ``K`` (then ``T*_c ∩ L`` is empty). Only when neither applies does the slow path run.
These are the *twin modes* of the slow steps seen in closed loop (two modes differing at one
contact, ``S``/``L`` or ``S``/``R``, with equal bounds): RHex's file's ``LSF``/``LLF`` and the
quadruped's ``SS``/``RS``, whose steps took 23–58 ms through the slow path; a certificate
costs 0.1–0.2 ms at RHex's twins and about 1 ms at the quadruped's (whose holder has no
equalities: the lifted intersection's hull), and those steps 1.0–1.6 ms replayed (RHex's file's
step 1, which also builds a new velocity pattern's layout, 2.2 ms;
``benchmarks/bench_generic_replay.py``).

*The tie rule.* Before a candidate's slow path runs, the candidates whose bounds tie with its
own (within ``TIE_TOL``) are tried: first by the point test, in bound order, then — the
candidate itself among them — by the certificates, fewest ambiguity variables ``n_w`` first (a
mode with fewer is the one whose ``T_c`` is not a lower-dimensional slice of its twin's at the
recorded twins, so the first certificate tried settles the step: RHex's file's ``LLF`` before
``LSF``); the first whose ``τ°`` is so accepted (fast or kept) is the answer — an optimum, since
no mode's ``T*_c ∩ L`` exceeds its bound. Otherwise the slow path runs as before. Compared with running
the first tied candidate's slow path first: the same optimal value; the mode differs only where
two tied modes both attain the bound (then either is an optimum), and a kept candidate's torque
is ``τ°`` rather than the slow path's maximizer of the projected ``K`` — the same point where
the maximizer is unique, up to rounding. ``OptimalResult.settled`` lists the settled candidates.

*Screened steps* (``_screened``). When the mode filter accepts few modes
(``SCREEN_MAX_CANDIDATES``) of a layout large enough for the prefix search
(``contactmodes.realtime.prefix``; the snake that may only stick, ``FFFFFF`` of 4096), the
point test against every feasible mode is most of the step, and most of those modes cannot hold
the candidate's torque at all. Such a step first computes only the accepted modes (kinematic
test, responses, domains, bound LPs), takes the best candidate's ``τ°``, and then runs the
kinematic test's prefix search with a *screen* at ``τ°``
(``contactmodes.realtime.torque_screen``: one verified LP per contact and letter proves that no
mode with that letter there has ``τ°`` in its ``T_c'``, by ``SCREEN_MARGIN``); the modes the
screen keeps get responses and domains and the usual point test. If the point test finds ``τ°``
in none of them, ``τ°`` is the fast path's answer — the same torque, mode and value as the
whole search, which would examine this candidate first and stop there; anything else (a
candidate resolved infeasible, ``τ°`` in a kept mode's ``T_c'``) runs the whole search. A
screened step decides the feasibility of the kept modes only (``OptimalResult.n_modes``,
``screened``). From step to step the screen's exclusions and the kinematic pruning's prunes are
proved again from their old LP bases (``_screen_attempt``; ``TorqueScreen.recertify``,
``PrefixPruning.candidates``), their LPs run only when a proof fails. For the snake: 3 modes kept
of 288, about 0.9 ms of CPU a step instead of 10–16 ms (``benchmarks/bench_generic_replay.py``);
the same answers at every recorded state (``tests/controllers/generic/test_generic_replay.py``,
``test_screened_search.py``).

*Margin* (``contactmodes.control.margin``, the one-shot controller's rule). The supremum point of
the winner — the bound LP's vertex ``τ°`` on the fast path, the slow path's maximizer — lies on a
boundary of its set (a friction-cone edge, a zero force, a removed set): fragile on any plant. The
torque returned is within the margin ``δ`` (torque units) of it, in the box, with a ball of radius
``ρ`` (the rule's clearance, within the set's affine hull) inside ``T_c`` and, for the slow path's
pieces, outside every removed set. On the fast path the ball is certified on the lifted domain
``D_c`` with ``w`` fixed (a sufficient condition; the hull is that of the equalities (31)) by one
LP (``_lifted_margin``), and the torque is then checked against the other modes: the holders of
``τ°`` (the *kept* certificate's lower-dimensional intersections) by the point test, every other
mode by the point test widened by ``ρ`` — a mode it finds within reach must meet ``K`` in a
lower-dimensional set (the *kept* certificate again), as the slow path's convention has it. When
either check fails, or the lifted LP finds no clearance, the slow path computes the winner's
pieces and applies the rule there. ``margin=0`` returns ``τ°`` itself (the old answers, bit for bit where they were
not nudged). The suprema, hence the modes chosen, do not depend on the margin.

Everything here is nondimensional (the plan's units): ``plan_objective`` converts a user
objective at a step, ``optimize`` converts torques and values back.

A *step* (``optimize``'s ``step``) is any object with the attributes ``n_q``, ``n_tau``,
``contacts`` (names of the present contacts), ``contact_index`` (their positions in the system's
contact list), ``mu`` (k,), ``blocks`` (the ``Structure`` block specification), ``terms`` (the
state's ``contactmodes.model.scaling.ScaledTerms``), ``pattern`` (its velocity pattern, scaled)
and ``scaled_system`` (the nondimensional ``ContactSystem`` of the state, for the slow path):
``controllers.generic.step.MechanismStep`` for a system file's mechanism,
``controllers.rhex.max_thrust.StepModel`` for RHex.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import weakref
from typing import Callable

import numpy as np

from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.margin import MarginPoint, equality_directions, margin_point
from contactmodes.realtime import kernels
from contactmodes.tolerances import MARGIN_RTOL, MEETS_MARGIN
from contactmodes.realtime.plan import W_BOUND, Layout, StepCounters, Structure, domain_lp_rows
from contactmodes.realtime.prefix import PREFIX_MIN_CANDIDATES
from polytopes import batchlp
from polytopes import lp
from polytopes.errors import NumericalError

from controllers.generic.certify import EMPTY, KEPT, settle
from controllers.generic.exact import slow_margin_point
from controllers.generic.objective_plan import ObjectivePlan, plan_objective, session_objective

__all__ = ["Engine", "ObjectivePlan", "OptimalResult", "optimize", "plan_objective", "session_objective", "POINT_TOL",
           "TIE_TOL", "SLACK_CAP", "STATUSES", "SearchCounters"]

POINT_TOL = 1e-6
"""Fast-path point test: ``τ°`` counts as inside ``T_c'`` when the normalized rows of ``D_c'`` can
be met to within ``POINT_TOL · max(1, ‖τ°‖∞, scale)`` (nondimensional torques; generous on
purpose: near-boundary points go to the exact slow path)."""
TIE_TOL = 1e-9
"""Relative tolerance (× ``max(1, |J|)``) of the stopping rule ``best >= β_next``."""
SLACK_CAP = 1e6
"""Upper bound of the point test's slack variable (a point outside by more is outside)."""
SCREEN_MAX_CANDIDATES = 4
"""Steps whose filter accepts at most this many of a prefix-pruned layout's modes are screened
first (``_screened``; module doc, *Screened steps*)."""
SCREEN_RETRY = 16
"""After a screened attempt that falls back to the whole search (its work wasted: about a quarter
of the step on the 5-link wedged chain), the layout's next this many steps are not screened."""
STATUSES = ("optimal", "ambiguous", "task_dropped", "task_dropped_ambiguous", "no_mode", "error")
"""Every step status (``OptimalResult.status``): ``"optimal"`` the regular case; ``"ambiguous"``
no accepted mode has a non-empty ``T*_c ∩ L`` (the best bound maximizer of ``T_c ∩ L`` is used);
``"task_dropped"``, ``"task_dropped_ambiguous"`` the same with the task rows dropped because no
mode meets them; ``"no_mode"`` not even that leaves a mode (zero torque); ``"error"`` the
computation raised (set by the controllers)."""


@dataclasses.dataclass
class OptimalResult:
    """The answer of ``optimize`` at one state (user units).

    Attributes
    ----------
    tau : numpy.ndarray
        ``(n_τ,)`` the torque, user units, within the limits.
    mode : str or None
        The chosen mode over the step's contacts (``None`` when no mode is left).
    mode4 : str or None
        The chosen mode labelled over all of the system's contacts (``optimize``'s ``label``;
        the name is RHex's, whose labels have four letters).
    value : float
        The objective ``J`` at ``tau`` (user units; NaN without a mode).
    closure_value : float
        The supremum: the maximum of ``J`` over the closure of ``T*_c ∩ L``, attained at the
        supremum point that ``tau`` lies within the margin of (``value`` is within ``‖g‖·margin``
        of it; equal without a margin).
    status : str
        One of ``STATUSES``.
    n_modes : int
        Modes known to be kinematically feasible (footnote 5; at a screened step only those the
        screen kept, ``screened``).
    n_examined : int
        Candidates examined for ambiguity.
    n_slow : int
        Of those, the ones that went through the slow path.
    n_projections : int
        Polytope projections done.
    bounds : dict
        ``{mode: β_c}`` the bounds of the candidates known feasible (user units).
    values : dict
        ``{mode: J*_c}`` of the examined modes (``-inf`` when ``T*_c ∩ L`` is empty).
    nudged : bool
        Whether the margin rule moved the torque off the supremum point (module doc, *Margin*).
    clearance : float
        The margin rule's clearance ``ρ`` (torque units; ``inf`` for a single-point set, 0 without
        a margin, NaN without a guaranteed torque).
    fallbacks : int
        ``lp_fallbacks + svd_fallbacks``.
    lp_fallbacks : int
        LPs handed to the exact solvers.
    svd_fallbacks : int
        Responses computed by the SVD.
    n_pending : int
        Candidates whose kinematic feasibility the step did not need to decide.
    screened : bool
        Whether the step was screened (module doc, *Screened steps*): then ``n_modes`` and
        ``n_pending`` count only the modes the screen kept, and ``n_examined`` is 1.
    settled : dict
        ``{mode: "kept" | "empty"}`` the candidates settled without the slow path although the
        point test found their ``τ°`` in another mode's ``T_c'`` (module doc, *Settled
        candidates*; ``controllers.generic.certify``).
    """

    tau: np.ndarray
    mode: str | None
    mode4: str | None
    value: float
    closure_value: float
    status: str
    n_modes: int = 0
    n_examined: int = 0
    n_slow: int = 0
    n_projections: int = 0
    bounds: dict = dataclasses.field(default_factory=dict)
    values: dict = dataclasses.field(default_factory=dict)
    nudged: bool = False
    clearance: float = math.nan
    fallbacks: int = 0
    lp_fallbacks: int = 0
    svd_fallbacks: int = 0
    n_pending: int = 0
    screened: bool = False
    settled: dict = dataclasses.field(default_factory=dict)


def _accepted(names: list, accept):
    """(len(names),) bool: the modes the filter ``accept`` lets be chosen; ``True`` (every mode,
    broadcast) for ``None``."""
    if accept is None:
        return True
    out = np.ones(len(names), dtype=bool)
    for j, m in enumerate(names):
        out[j] = bool(accept(m))
    return out


# ----------------------------------------------------------------------------------- the fast path


@dataclasses.dataclass(slots=True)
class SearchCounters(StepCounters):
    """The work counts of one ``optimize`` call: the plan's
    (``StepCounters``: the kinematic test's LPs and their second
    solves and exact LPs, the responses and their SVDs) with the bound and point-test LPs added to
    ``lps`` and ``fallback_lps``, and ``projections`` the polytope projections of the slow path
    (``_slow``). They become ``OptimalResult``'s ``n_projections``, ``lp_fallbacks``
    (``fallback_lps``), ``svd_fallbacks`` (``svd_responses``) and ``fallbacks``. Public: the
    counters a caller passes to the slow path (``controllers.generic.exact.slow_optimum``,
    ``controllers.rhex.max_thrust``).

    The fields of ``StepCounters`` (``lps``, ``second_solve_lps``, ``fallback_lps``,
    ``responses``, ``svd_responses``) are documented there; the one added here:

    Attributes
    ----------
    projections : int
        Polytope projections done by the slow path (``controllers.generic.exact.slow_margin_point``).
    """

    projections: int = 0


@dataclasses.dataclass(slots=True)
class _WarmStarts:
    """The bound LPs' warm starts of one ``Layout``
    (``_bound_lps``), kept across steps by ``Engine``.

    ``width`` the number of ``w`` columns of the layout's bound LPs (the largest real ``n_w`` any
    of its feasible modes has had; 0 before the first step); ``bases`` per task flag (``True``:
    with the task rows, ``False``: without) an ``(N, n_τ + width)`` int64 array, the last optimal
    basis of each of the layout's ``N`` candidates (``-1``: none yet). Widening the LPs drops
    both arrays."""

    width: int = 0
    bases: dict[bool, np.ndarray] = dataclasses.field(default_factory=dict)


class _Modes:
    """The fast path's data of one step: the layout's candidate modes that are kinematically
    feasible or not decided yet, their responses and domains (nondimensional), and the per-mode
    work of the search.

    *Pending modes.* Near rest some strict-slack LPs of footnote 5 are degenerate and the batched
    kinematic test leaves them undecided (``kinematic_test``).
    With ``lazy`` (the default) such a mode is *pending*: it is treated as possibly feasible (it
    gets a response, a domain and a bound LP with the others) and ``resolve`` decides it — by
    ``resolve``, the decision
    ``kinematic`` takes — only when the search's answer may depend
    on it (``_search``); a mode resolved infeasible is dropped (``alive`` false), as if it had
    never been a candidate. ``lazy=False`` resolves every pending mode first. Positions (``j``)
    index ``names``, ``index`` and the arrays below.

    ``warm`` the layout's bound-LP warm starts (``_WarmStarts``, kept across steps by the
    ``Engine``); ``counters`` the step's work counts (``SearchCounters``), added to by every
    helper of the step that is given this object. ``session`` is the slow path's
    ``AnalysisSession`` (built on first use). ``kin`` a kinematic test of the step already run
    (``Layout.kinematic_test``; default: the whole test, run here) — a screened step's
    (``_screened``) counts only some candidates; ``accepted`` the layout's accepted-mode mask
    (``Engine.accepted``; default: ``accept`` asked per mode)."""

    def __init__(self, layout: Layout, banks, warm: _WarmStarts, counters: SearchCounters, objective: np.ndarray,
                 lazy: bool = True, accept=None, kin=None, accepted: np.ndarray | None = None) -> None:
        self.layout = layout
        self.objective = objective
        self.n_tau = layout.structure.n_tau
        self.warm = warm
        self.counters = counters
        self.kin = layout.kinematic_test(banks, counters) if kin is None else kin
        if not lazy:
            self.kin.resolve(self.kin.pending())
        undecided = ~self.kin.decided
        self.n_pending = int(np.count_nonzero(undecided))  # pending now (kept up to date by resolve)
        self.n_dropped = 0  # pending modes resolved infeasible
        self.index = (self.kin.feasible | undecided).nonzero()[0]  # the known feasible and the pending
        self.pending = undecided[self.index]
        self.alive = np.empty(self.index.size, dtype=bool)  # not resolved infeasible
        self.alive.fill(True)
        self.names = [layout.modes[i] for i in self.index.tolist()]
        self.resp = layout.responses(banks, self.index, objective, counters)
        self.accepted = _accepted(self.names, accept) if accepted is None else accepted[self.index]
        self.dom = layout.domains(banks, self.resp)
        r = self.resp
        self.grad = r.grad
        self.offset = r.offset
        self.unique = r.unique
        A, b = self.dom.A, self.dom.b
        zero = ~(A != 0.0).any(axis=2)
        bad = zero & (b < 0.0) & self.dom.valid
        self.feasible_u = r.consistent & ~(bad & ~self.dom.task).any(axis=1)
        self.feasible_t = r.consistent & ~bad.any(axis=1)
        self._point_rows = None
        self._session: AnalysisSession | None = None

    def resolve(self, pos) -> np.ndarray:
        """Decide the pending modes among the positions ``pos`` (class doc); returns ``alive[pos]``
        (whether each is a kinematically feasible mode)."""
        pos = np.asarray(pos, dtype=np.int64)
        todo = pos[self.pending[pos]]
        if todo.size:
            feasible = self.kin.resolve(self.index[todo])
            self.alive[todo] = feasible
            self.pending[todo] = False
            self.n_pending -= todo.size
            self.n_dropped += todo.size - int(feasible.sum())
        return self.alive[pos]

    def resolve_all(self) -> None:
        """Decide every pending mode (before anything that uses the whole mode set)."""
        if self.n_pending:
            self.resolve(self.pending.nonzero()[0])

    def session(self, step) -> AnalysisSession:
        """The slow path's ``AnalysisSession`` of ``step`` (the
        step these modes were computed for), built once: of the step's nondimensional system
        (``step.scaled_system``, from the scaled terms the layout used) with the
        layout's kinematic decisions as its enumeration
        (``enumeration``, every pending mode resolved
        first) — nothing is nondimensionalized or enumerated again. Its modes are the
        enumeration's (``enumerate_modes`` on the SI system)
        and its numbers those of a session of the SI system (module doc, *Real time*)."""
        if self._session is None:
            self.resolve_all()
            self._session = AnalysisSession(step.scaled_system, enumeration=self.kin.enumeration(step.pattern))
        return self._session

    def any_feasible(self, pos: np.ndarray) -> bool:
        """Whether any of the modes ``pos`` (not dropped) is kinematically feasible: resolves the
        pending ones among them only when none of them is known feasible."""
        if not self.n_pending or not self.pending[pos].all():
            return bool(pos.size)
        return bool(self.resolve(pos).any())

    def others(self, j: int) -> np.ndarray:
        """The positions of the modes other than ``j`` not known to be infeasible."""
        if self.n_dropped:
            others = self.alive.nonzero()[0]
            return others[others != j]
        others = np.arange(len(self.names) - 1)  # every position but j
        others[j:] += 1
        return others

    @property
    def n_modes(self) -> int:
        """Modes known to be kinematically feasible (decided by the batch, or resolved)."""
        return len(self.names) - self.n_pending - self.n_dropped

    @property
    def point_rows(self):
        """``(An, bn, bscale, w_used)``: the untasked rows of every domain divided by their norms
        (others ``0 <= 1``), each mode's largest ``|bn|``, and which real ``w`` columns enter
        its rows — the NumPy point test's data (``_inside``), computed on first use."""
        if self._point_rows is None:
            A, b = self.dom.A, self.dom.b
            keep = self.dom.valid & ~self.dom.task
            nrm = np.sqrt(np.sum(A ** 2, axis=2))
            nrm = np.where(nrm > 0.0, nrm, 1.0)
            An = np.where(keep[:, :, None], A / nrm[:, :, None], 0.0)
            bn = np.where(keep, b / nrm, 1.0)
            bscale = np.max(np.where(keep, np.abs(bn), 0.0), axis=1, initial=0.0)
            self._point_rows = (An, bn, bscale, np.any(An[:, :, self.n_tau:] != 0.0, axis=1) & self.resp.wfree)
        return self._point_rows


def _bound_lps(md: _Modes, sel: np.ndarray, lo, hi, task: bool):
    """``β_c`` and ``τ°_c`` of the modes ``sel`` (positions in ``md``) by one batched LP each over
    ``D_c ∩ L`` in ``(τ, w)`` (with or without the task rows); ``(sel, bound (len(sel),), tau0
    (len(sel), n_τ))``, ``-inf`` / NaN where that set is empty, ``sel`` without the pending modes
    resolved infeasible here (those whose ``n_w`` would widen the LPs). Warm-started from and
    updating ``md.warm``; ``md.counters.lps`` and ``.fallback_lps`` counted."""
    # only the real ambiguity columns: as many w columns as the most any mode of the layout has had
    # (a layout-wide width, so that the warm starts keep their meaning from step to step); a pending
    # mode that would widen the LPs is resolved first (the width is that of the feasible modes)
    warm, counters = md.warm, md.counters
    nt = md.n_tau
    n_w = md.resp.n_w
    if md.n_pending:
        wide = sel[n_w[sel] > max(int(n_w[sel[~md.pending[sel]]].max(initial=0)), warm.width)]
        if wide.size:
            md.resolve(wide)
            sel = sel[md.alive[sel]]
    nsel = sel.size
    if nsel == 0:
        return sel, np.full(0, -math.inf), np.full((0, nt), np.nan)
    s = max(int(n_w[sel].max()), warm.width)  # the pending modes left do not widen it
    if s != warm.width:  # wider LPs: the bases of the narrower ones are dropped
        warm.bases.clear()
        warm.width = s
    G, h, lo_, hi_, art = domain_lp_rows(md.resp, md.dom, sel, lo, hi, task, width=s)
    grad = md.grad[sel]
    cost = np.zeros((nsel, nt + s))
    cost[:, :nt] = -grad
    # warm starts: one row per candidate of the layout (``-1``: none yet, the box vertex is used)
    bases = warm.bases.get(task)
    if bases is None:
        bases = warm.bases[task] = np.full((len(md.layout.modes), nt + s), -1, dtype=np.int64)
    pos = md.index[sel]
    res = batchlp.solve_batch(cost, G, h, lo_, hi_, art, bases[pos])
    bases[pos] = res.basis
    counters.lps += nsel
    counters.fallback_lps += res.n_fallback
    ok = (res.status == lp.OPTIMAL)[:, None]
    tau0 = np.where(ok, np.minimum(np.maximum(res.x[:, :nt], lo), hi), np.nan)  # clipped (x is NaN unless optimal)
    bound = np.einsum("bi,bi->b", grad, tau0) + md.offset[sel]
    return sel, np.where(ok[:, 0], bound, -math.inf), tau0


def _inside(md: _Modes, others: np.ndarray, tau: np.ndarray, kernel: str = "auto", extra: float = 0.0) -> np.ndarray:
    """(len(others),) whether ``tau`` (n_τ,) lies in ``T_c'`` (untasked) of each mode position in
    ``others`` up to ``POINT_TOL`` (module doc): row checks, then one batched max-slack LP for
    the modes whose ``w`` enters their rows. ``kernel``: ``"numpy"`` (the reference below),
    ``"compiled"`` (the row checks and the LPs' rows by
    ``contactmodes.realtime.kernels.point_test_kernel``) or ``"auto"`` (compiled when numba is
    installed). ``extra`` (>= 0, nondimensional) widens the tolerance of every normalized row by
    that much (the margin's check, ``_margin_clear``; NumPy only). The max-slack LPs are counted in
    ``md.counters`` (``lps``, ``fallback_lps``)."""
    out = np.zeros(others.size, dtype=bool)
    if others.size == 0:
        return out
    if not extra and (kernel == "compiled" or (kernel == "auto" and kernels.AVAILABLE)):
        return _inside_compiled(md, others, tau)
    r = md.resp
    An_all, bn, bscale, w_used = md.point_rows
    ok = md.feasible_u[others]
    tol = POINT_TOL * np.maximum(max(1.0, float(np.abs(tau).max())), bscale[others]) + extra
    eq = np.where(r.cvalid[others], np.abs(np.einsum("bij,j->bi", r.C[others], tau) - r.d[others]), 0.0)
    ok &= np.max(eq, axis=1, initial=0.0) <= tol
    An = An_all[others]
    nt = md.n_tau
    rhs = bn[others] - np.einsum("bpi,i->bp", An[:, :, :nt], tau)
    uses_w = np.any(w_used[others], axis=1)
    direct = ok & ~uses_w
    out[direct] = np.min(rhs[direct], axis=1, initial=np.inf) >= -tol[direct]
    lpsel = np.flatnonzero(ok & uses_w)
    if lpsel.size:
        o = others[lpsel]
        Aw = An[lpsel][:, :, nt:]
        rowv = md.dom.valid[o] & ~md.dom.task[o]
        s = Aw.shape[2]
        G = np.concatenate([Aw, -rowv[:, :, None].astype(float)], axis=2)
        h = np.where(rowv, rhs[lpsel], 1.0)
        cost = np.zeros((lpsel.size, s + 1))
        cost[:, -1] = 1.0
        wf = r.wfree[o]
        lo_ = np.concatenate([np.where(wf, -W_BOUND, 0.0), -np.ones((lpsel.size, 1))], axis=1)
        hi_ = np.concatenate([np.where(wf, W_BOUND, 0.0), np.full((lpsel.size, 1), SLACK_CAP)], axis=1)
        art = np.concatenate([wf, np.zeros((lpsel.size, 1), bool)], axis=1)
        res = batchlp.solve_batch(cost, G, h, lo_, hi_, art)
        md.counters.lps += int(lpsel.size)
        md.counters.fallback_lps += res.n_fallback
        out[lpsel] = (res.status == lp.OPTIMAL) & (res.fun <= tol[lpsel])
    return out


def _inside_compiled(md: _Modes, others: np.ndarray, tau: np.ndarray, point_tol: float = POINT_TOL) -> np.ndarray:
    """``_inside`` through ``contactmodes.realtime.kernels.point_test_kernel`` (its relative
    tolerance ``point_tol``, ``POINT_TOL`` unless widened)."""
    r, dom = md.resp, md.dom
    K, (p, nz) = others.size, dom.A.shape[1:]
    s = nz - md.n_tau
    state, tol = np.empty(K, dtype=np.int64), np.empty(K)
    G, h = np.empty((K, p, s + 1)), np.empty((K, p))
    lo_, hi_, art = np.empty((K, s + 1)), np.empty((K, s + 1)), np.empty((K, s + 1), dtype=bool)
    kernels.point_test_kernel(dom.A, dom.b, dom.valid, dom.task, r.C, r.d, r.cvalid, r.wfree, md.feasible_u,
                                    np.asarray(others, dtype=np.int64), np.asarray(tau, dtype=float), point_tol,
                                    W_BOUND, SLACK_CAP, state, tol, G, h, lo_, hi_, art)
    out = state == 1
    lpsel = (state == 2).nonzero()[0]
    if lpsel.size:
        cost = np.zeros((lpsel.size, s + 1))
        cost[:, -1] = 1.0
        res = batchlp.solve_batch(cost, G[lpsel], h[lpsel], lo_[lpsel], hi_[lpsel], art[lpsel])
        md.counters.lps += int(lpsel.size)
        md.counters.fallback_lps += res.n_fallback
        out[lpsel] = (res.status == lp.OPTIMAL) & (res.fun <= tol[lpsel])
    return out


def _disjoint(md: _Modes, others: np.ndarray, K, lo, hi) -> set:
    """The names of the modes at positions ``others`` whose ``T_c'`` (untasked) certainly does
    not meet ``K`` (a ``Polytope`` over ``τ``, nondimensional; ``lo``, ``hi`` the torque box):
    ``controllers.generic.exact.meets`` would answer ``False`` for each.

    One batched max-slack LP per mode over ``(τ, w', t)`` (``polytopes.batchlp.solve_batch``,
    verified; ``τ`` and the real ``w'`` in artificial boxes an accepted answer does not lean on):
    maximize ``t`` subject to every row of ``K`` and of the layout's lifted domain ``D_c'``
    (``domain_lp_rows``, untasked), each normalized, holding with slack ``t`` (an equality as two
    rows). A mode is certified when the optimum is below ``−MEETS_MARGIN · max(1, ‖lo‖_∞,
    ‖hi‖_∞)``: every point misses some row of ``K ∩ D_c'`` by more than that, far beyond the
    exact LP's tolerances. Modes without a consistent response or with a trivially violated row
    are never certified (the exact LP decides them), nor is any when an LP of the batch cannot
    be verified."""
    r = md.resp
    sel = others[md.feasible_u[others]]
    if sel.size == 0 or K.dim != md.n_tau:
        return set()
    nt = md.n_tau
    v = int(r.wfree[sel].sum(axis=1).max(initial=0))
    box = W_BOUND * max(1.0, float(np.max(np.abs(lo), initial=0.0)), float(np.max(np.abs(hi), initial=0.0)))
    G_d, h_d, lo_, hi_, art = domain_lp_rows(r, md.dom, sel, np.full(nt, -box), np.full(nt, box), False,
                                             width=v)
    art[:, :nt] = True  # the τ box is artificial too (K's rows bound τ)
    KA = np.vstack([K.A, K.C, -K.C]) if K.n_eq else K.A
    Kb = np.concatenate([K.b, K.d, -K.d]) if K.n_eq else K.b
    nk, B = KA.shape[0], sel.size
    G = np.zeros((B, nk + G_d.shape[1], nt + v + 1))
    G[:, :nk, :nt] = KA
    G[:, nk:, :nt + v] = G_d
    h = np.concatenate([np.broadcast_to(Kb, (B, nk)), h_d], axis=1)
    nrm = np.sqrt(np.einsum("bij,bij->bi", G[:, :, :nt + v], G[:, :, :nt + v]))
    G[:, :, -1] = nrm  # slack t in each row's own units (zero rows: none)
    cost = np.zeros((B, nt + v + 1))
    cost[:, -1] = -1.0
    lo_t = np.concatenate([lo_, np.full((B, 1), -SLACK_CAP)], axis=1)
    hi_t = np.concatenate([hi_, np.ones((B, 1))], axis=1)
    art_t = np.concatenate([art, np.zeros((B, 1), dtype=bool)], axis=1)
    try:
        res = batchlp.solve_batch(cost, G, h, lo_t, hi_t, art_t)
    except NumericalError:  # an LP nothing verifies: certify nothing (the exact LPs decide)
        return set()
    md.counters.lps += B
    md.counters.fallback_lps += res.n_fallback
    margin = MEETS_MARGIN * max(1.0, float(np.max(np.abs(lo), initial=0.0)), float(np.max(np.abs(hi), initial=0.0)))
    ok = res.status == lp.OPTIMAL
    certain = np.zeros(B, dtype=bool)
    certain[ok] = res.x[ok, -1] < -margin
    names = md.names
    return {names[i] for i in sel[certain].tolist()}


# ----------------------------------------------------------------------------------- the margin


def _lifted_margin(md: _Modes, j: int, t0: np.ndarray, lo, hi, task: bool, margin: float,
                   units: np.ndarray) -> MarginPoint | None:
    """The margin rule (``contactmodes.control.margin.margin_point``) for candidate ``j`` at its
    bound maximizer ``t0`` over its lifted domain ``D_c`` in ``(τ', w)`` (``domain_lp_rows``, its
    own ``n_w`` columns, with or without the task rows): every row with a torque part kept clear
    of with ``w`` fixed, the box ``lo``, ``hi`` held, the ball taken within the subspace of the
    equalities (31). ``None`` when the LPs find no clearance (an implicit equality among the rows,
    or numerical trouble: the slow path decides)."""
    nt = md.n_tau
    G, h, _, _, _ = domain_lp_rows(md.resp, md.dom, np.array([j]), lo, hi, task, width=int(md.resp.n_w[j]))
    p = md.dom.A.shape[1]
    A, b = G[0, :p], h[0, :p]
    C = G[0, p:p + nt, :nt]
    C = C[np.abs(C).max(axis=1, initial=0.0) > 0.0]
    box = np.zeros((2 * nt, A.shape[1]))
    box[:nt, :nt], box[nt:, :nt] = np.eye(nt), -np.eye(nt)
    rows = np.vstack([A, box])
    rhs = np.concatenate([b, np.asarray(hi, dtype=float), -np.asarray(lo, dtype=float)])
    tight = np.concatenate([np.abs(A[:, :nt]).max(axis=1, initial=0.0) > 0.0, np.zeros(2 * nt, dtype=bool)])
    counters = md.counters

    def solve(c, G_, h_, lo_, hi_, art):  # one verified batched LP (its fallbacks counted as the others')
        try:
            res = batchlp.solve_batch(c[None], G_[None], h_[None], lo_[None], hi_[None], art[None])
        except NumericalError:
            return None
        counters.lps += 1
        counters.fallback_lps += res.n_fallback
        return res.x[0] if res.status[0] == lp.OPTIMAL else None

    return margin_point(rows, rhs, tight, t0, md.grad[j], units, equality_directions(C, units), margin, solve,
                        W_BOUND)


def _margin_clear(md: _Modes, j: int, point: MarginPoint, holders: np.ndarray, units: np.ndarray, lo, hi,
                  task: bool) -> bool:
    """Whether the lifted margin point of candidate ``j`` (``_lifted_margin``) is clear of the other
    modes (module doc, *Margin*): the ``holders`` (positions whose ``T_c'`` held ``τ°`` and meets
    ``K`` in a lower-dimensional set, the *kept* certificate's) do not hold its torque (point
    test), and every other mode's ``T_c'`` that comes within its clearance ``ρ`` — found by the
    point test widened by ``ρ / min(units)`` (a torque displacement of at most ``ρ`` in torque
    units changes each normalized row by at most that much) — meets ``K`` in a lower-dimensional
    set (``certify.settle``'s *kept* certificate): the ball, inside ``T_c``, can only touch it on
    ``T_c``'s boundary or on a slice, which the closure convention does not remove (a neighbour
    across a friction cone's edge, at the distance ``ρ`` the rule moved away from it)."""
    tau = point.tau
    others = md.others(j)
    held = np.isin(others, holders)
    if holders.size:
        inside = _inside(md, others[held], tau)
        if inside.any() and md.any_feasible(others[held][inside]):
            return False
    rest = others[~held]
    extra = point.clearance / float(np.min(units)) if math.isfinite(point.clearance) else 0.0
    if extra and kernels.AVAILABLE:  # compiled first, widened by more (``POINT_TOL + extra`` times a scale >= 1)
        inside = _inside_compiled(md, rest, tau, POINT_TOL + extra)
        if inside.any():  # those it finds near: the exact widening decides
            inside[inside] = _inside(md, rest[inside], tau, kernel="numpy", extra=extra)
    else:
        inside = _inside(md, rest, tau, kernel="numpy" if extra else "auto", extra=extra)
    near = rest[inside]
    if near.size == 0 or not md.any_feasible(near):
        return True
    known = ~md.pending[near] if md.n_pending else np.ones(near.size, dtype=bool)
    return settle(md.resp, md.dom, j, near, known, lo, hi, task) == KEPT


def _fast_margin(md_c: _Modes, j: int, t0: np.ndarray, lo, hi, task: bool, margin: float, units: np.ndarray,
                 md: _Modes, holders: np.ndarray) -> MarginPoint | None:
    """The margin point of the fast path's answer ``t0`` of candidate ``j`` of ``md_c``
    (``_lifted_margin``), checked against the modes of ``md`` (``_margin_clear``; ``md`` is
    ``md_c`` except at a screened step, whose other modes are the screen's); ``None`` when the
    lifted LPs find no clearance or the check fails (the slow path decides). ``margin`` 0:
    ``t0`` itself."""
    if margin == 0.0:
        return MarginPoint(np.asarray(t0, dtype=float), 0.0, 0.0, "none")
    point = _lifted_margin(md_c, j, t0, lo, hi, task, margin, units)
    if point is None or point.distance == 0.0:
        return point
    jo = int(np.searchsorted(md.index, md_c.index[j]))
    return point if _margin_clear(md, jo, point, holders, units, lo, hi, task) else None


def default_step_margin(step) -> float:
    """``MARGIN_RTOL`` times the characteristic torque ``m L² / T²`` of the step's scales (``F L``
    with ``L = V² / A`` from its ``ScaledTerms``), in the system's torque units: ``optimize``'s
    margin when none is given (``contactmodes.control.margin``).

    Parameters
    ----------
    step : object
        The state (``MechanismStep``, RHex's ``StepModel``); its ``terms`` (``force`` N,
        ``velocity`` m/s, ``acceleration`` m/s²) are read.

    Returns
    -------
    float
        The margin ``δ`` (N·m).
    """
    t = step.terms
    return MARGIN_RTOL * t.force * t.velocity ** 2 / t.acceleration


# ----------------------------------------------------------------------------------- the search


_NONE = np.zeros(0, dtype=np.int64)
"""No positions (a candidate no other mode's ``T_c'`` held)."""


def _slow(md: _Modes, step, j: int, lo, hi, task: bool, margin: float, units):
    """The slow path of candidate ``j`` (``controllers.generic.exact.slow_margin_point`` through
    the step's session, every other mode not known infeasible removed, ``_disjoint``'s certified
    ones without their LPs): ``(value, point, closure)``."""
    session = md.session(step)  # resolves every pending mode first
    others = md.others(j)
    return slow_margin_point(session, md.names[j], [md.names[i] for i in others], lo, hi, md.counters, task,
                             md.objective, disjoint=lambda K, o=others: _disjoint(md, o, K, lo, hi),
                             margin=margin, units=units)


def _search(md: _Modes, step, lo, hi, task: bool, force_slow: bool, margin: float = 0.0, units=None):
    """The lazy all-mode search of the module doc (nondimensional torques ``lo``, ``hi``; the
    slow path applies the margin rule with ``margin`` and ``units``, ``optimize``'s).

    Returns ``(best, cands, values, n_exam, n_slow, settled)``: ``best`` = ``(closure, tau, mode,
    point, closure, holders)`` or ``None`` (no mode with a non-empty ``T*_c ∩ L``) — ``closure``
    the winner's supremum (the ranking's value), ``point`` the slow path's ``MarginPoint`` (its
    torque ``tau``) or ``None`` when ``tau`` is the fast path's ``τ°`` (the margin is still to be
    applied, ``holders`` the positions of the modes whose ``T_c'`` held it: the kept
    certificate's); ``values`` per examined mode its supremum; ``cands`` ``[(mode, β, τ°)]``
    with a non-empty ``D_c ∩ L`` in decreasing bound order (without the modes resolved infeasible;
    pending modes after the stop may remain); ``settled`` ``{mode: KEPT | EMPTY}`` (*Settled
    candidates*: the certificates that spared a slow path, the tie rule's included).

    Pending modes (``_Modes``) are resolved only where the answer can depend on them, so the
    answer is the one with every mode decided first: a pending candidate before it is examined
    (the stop test before that needs no decision: removing a candidate only lowers the next ``β``);
    a pending mode whose ``T_c'`` the point test finds ``τ°`` in (if it is feasible, the slow path
    runs); every pending mode before the slow path (its ``others`` are the whole mode set)."""
    feas = md.feasible_t if task else md.feasible_u
    sel = (md.unique & feas & md.alive & md.accepted).nonzero()[0]
    sel, bound, tau0 = _bound_lps(md, sel, lo, hi, task)
    order = (-bound).argsort(kind="stable").tolist()
    sel_l, bound_l = sel.tolist(), bound.tolist()
    cands = [(sel_l[i], bound_l[i], tau0[i]) for i in order if math.isfinite(bound_l[i])]
    best = None
    n_slow = 0
    examined: set[int] = set()  # the candidates examined (by the loop, or tried by the tie rule)
    values = {}
    ways: dict[int, str | None] = {}  # per candidate position: how the fast path settled it (once)
    held: dict[int, tuple] = {}  # per candidate the point test found held: (holders, known)

    def point(j: int, t0) -> str | None:
        """The point test of candidate ``j`` (``τ° = t0``), once: ``"fast"`` (held by no other
        feasible mode's ``T_c'``), ``"infeasible"`` (a pending mode resolved infeasible), else
        ``ways[j]`` when its certificates ran (``KEPT``, ``EMPTY`` or ``None``) or ``None`` (held:
        ``held[j]`` names the holders for ``certificate``)."""
        if j not in ways and j not in held:
            if md.n_pending and md.pending[j] and not md.resolve([j])[0]:
                ways[j] = "infeasible"
            else:
                others = md.others(j)
                inside = _inside(md, others, t0)
                if not (inside.any() and md.any_feasible(others[inside])):
                    ways[j] = "fast"
                else:
                    holders = others[inside]
                    held[j] = (holders, ~md.pending[holders] if md.n_pending else np.ones(holders.size, dtype=bool))
        return ways.get(j)

    def certificate(j: int) -> str | None:
        """``certify.settle`` of a held candidate ``j``, once: ``KEPT``, ``EMPTY`` or ``None``."""
        if j not in ways:
            holders, known = held[j]
            ways[j] = settle(md.resp, md.dom, j, holders, known, lo, hi, task)
        return ways[j]

    for i, (j, beta, t0) in enumerate(cands):
        tied = beta - TIE_TOL * max(1.0, abs(beta))  # bounds from here up tie with β
        if best is not None and best[0] >= tied:
            break
        if md.n_pending and md.pending[j] and not md.resolve([j])[0]:
            continue  # not kinematically feasible: never a candidate
        examined.add(j)
        way = None if force_slow else point(j, t0)  # (j is decided here: never "infeasible")
        if way is None and not force_slow:  # the tie rule (module doc)
            group = list(itertools.takewhile(lambda c: c[1] >= tied, cands[i + 1:]))
            twin = None
            for c in group:  # first the point test, in bound order
                way2 = point(c[0], c[2])
                if way2 != "infeasible":
                    examined.add(c[0])
                if way2 == "fast":
                    twin = c
                    break
            if twin is None:  # then the certificates, fewest ambiguity variables first
                held_group = [(j, beta, t0)] + [c for c in group if c[0] in held]
                for c in sorted(held_group, key=lambda c: int(md.resp.n_w[c[0]])):
                    if certificate(c[0]) == KEPT:
                        twin = c
                        break
                way = ways.get(j)
            if twin is not None:
                j2, beta2, t2 = twin
                values[md.names[j2]] = beta2
                best = (beta2, t2, j2, None, beta2, held.get(j2, (_NONE,))[0])
                break
        if way == EMPTY:
            values[md.names[j]] = -math.inf
            continue
        if way in ("fast", KEPT):
            tau, mpt, closure = t0, None, beta
        else:
            n_slow += 1
            _, mpt, closure = _slow(md, step, j, lo, hi, task, margin, units)
            tau = None if mpt is None else mpt.tau
        values[md.names[j]] = closure
        if tau is not None and (best is None or closure > best[0]):
            best = (closure, tau, j, mpt, closure, held.get(j, (_NONE,))[0])
    certified = {md.names[j]: way for j, way in ways.items() if way in (KEPT, EMPTY)}
    return (best, [c for c in cands if md.alive[c[0]]] if md.n_dropped else cands, values, len(examined), n_slow,
            certified)


def _screened(engine: "Engine", step, objective: np.ndarray, lo, hi, accept, lazy: bool, counters: SearchCounters):
    """The search of a step with few accepted modes in a large layout, screened (module doc,
    *Screened steps*): ``(md_c, j, β, τ°, cands, md)`` when the best candidate's ``τ°`` is
    certified in no other mode's ``T_c'`` — ``md_c`` the accepted modes' ``_Modes`` (``j`` the
    candidate's position there, ``cands`` as ``_search`` gives them), ``md`` the screened
    modes' (their counts are the step's) — else ``None``, and the step is searched as before.
    ``counters`` the step's work counts (an attempt that falls back is counted too).

    Only the first search (with the task rows) is screened; a best candidate resolved infeasible
    (``_Modes.resolve``, as ``_search`` resolves it), a screen that leaves out the candidate
    itself, and a ``τ°`` the point test finds in a screened mode's ``T_c'`` all give ``None``,
    and then the layout's next ``SCREEN_RETRY`` steps are not screened (``Engine.screen_wait``)."""
    if accept is None:
        return None
    st = engine.structure(step)
    layout = st.layout(step.pattern)
    if st.k < 2 or len(layout.modes) <= PREFIX_MIN_CANDIDATES:
        return None
    mask = engine.accepted(layout, accept)
    pos = mask.nonzero()[0]
    if pos.size == 0 or pos.size > SCREEN_MAX_CANDIDATES:
        return None
    wait = engine.screen_wait.get(layout, 0)
    if wait:  # a recent attempt fell back (SCREEN_RETRY)
        engine.screen_wait[layout] = wait - 1
        return None
    got = _screen_attempt(engine, st, layout, step, objective, lo, hi, mask, lazy, counters)
    if got is None:
        engine.screen_wait[layout] = SCREEN_RETRY
    return got


def _screen_attempt(engine: "Engine", st: Structure, layout: Layout, step, objective: np.ndarray, lo, hi,
                    mask: np.ndarray, lazy: bool, counters: SearchCounters):
    """``_screened``'s work on a layout it applies to, ``mask`` the accepted modes (same returns).

    One kinematic test of the accepted modes — and, when the layout's screen has exclusions from
    an earlier step (``TorqueScreen.last_exclusion``), of the prefix search under them, whose
    prunes are proved again from their old bases (``PrefixPruning.candidates``) — with their
    responses, domains and bound LPs gives the best candidate's ``τ°``. When those exclusions are
    proved again at ``τ°`` (``TorqueScreen.recertify``: the same candidate's letters kept), the
    modes of that test are the kept ones; else the screen's LPs run at ``τ°`` and the prefix
    search under their exclusions gives the kept modes. The bound LPs, hence ``τ°``, are the same
    whatever else the test holds (each LP is solved alone, warm-started from the same basis)."""
    pos = mask.nonzero()[0]
    banks = st.banks(step.terms)
    warm = engine.warm_starts(layout)
    screen = layout.screen
    last = screen.last_exclusion()
    md_c = _Modes(layout, banks, warm, counters, objective, lazy,
                  kin=layout.kinematic_test(banks, counters, exclude=last, subset=pos), accepted=mask)
    best = _best_bound(md_c, lo, hi)
    if best is None:
        return None
    cands, j, beta, t0 = best
    at = int(md_c.index[j])
    keep = screen.positions(layout.modes[at])
    if last is not None and screen.recertify(banks, t0, keep=keep):
        md, jo = md_c, j  # the kept modes: the prefix search under the exclusions proved at τ°
    else:
        kin = layout.kinematic_test(banks, counters, exclude=screen.excluder(banks, t0, counters, keep=keep))
        if not (kin.feasible[at] or not kin.decided[at]):
            return None  # the screen left out the candidate itself: no certificate
        md = _Modes(layout, banks, warm, counters, objective, lazy, kin=kin, accepted=mask)
        jo = int(np.searchsorted(md.index, at))
    others = md.others(jo)
    inside = _inside(md, others, t0)
    if inside.any() and md.any_feasible(others[inside]):
        return None
    return md_c, j, beta, t0, cands, md


def _best_bound(md: _Modes, lo, hi):
    """The bound LPs (with the task rows) of ``md``'s accepted candidates: ``(cands, j, β, τ°)``
    (``cands`` as ``_search`` orders them, ``j`` the best, resolved when pending), or ``None``
    when there is none or the best is resolved infeasible (the whole search then takes the next
    candidate)."""
    sel = (md.unique & md.feasible_t & md.alive & md.accepted).nonzero()[0]
    sel, bound, tau0 = _bound_lps(md, sel, lo, hi, True)
    order = (-bound).argsort(kind="stable").tolist()
    sel_l, bound_l = sel.tolist(), bound.tolist()
    cands = [(sel_l[i], bound_l[i], tau0[i]) for i in order if math.isfinite(bound_l[i])]
    if not cands:
        return None
    j, beta, t0 = cands[0]
    if md.n_pending and md.pending[j] and not md.resolve([j])[0]:
        return None
    return cands, j, beta, t0


class Engine:
    """Structures, layouts and warm starts kept across steps.

    ``structures`` one ``contactmodes.realtime.plan.Structure`` per set of present contacts (each
    keeps its ``Layout`` per velocity pattern and, on the layout, the kinematic LPs' warm
    starts and the modes' pivots); ``warm`` the bound LPs' warm starts of each layout, keyed by
    the layout object itself in a ``weakref.WeakKeyDictionary`` (by identity while the layout
    lives: an ``id`` could be reused by a new object). Not stored on the layout: the bound LPs
    are this search's, not the plan's. ``screen_wait`` per layout the steps left before the next
    screened attempt (``SCREEN_RETRY``).
    """

    def __init__(self) -> None:
        self.structures: dict[tuple, Structure] = {}
        self.warm: weakref.WeakKeyDictionary[Layout, _WarmStarts] = weakref.WeakKeyDictionary()
        self._accepted: weakref.WeakKeyDictionary[Layout, dict] = weakref.WeakKeyDictionary()
        self.screen_wait: weakref.WeakKeyDictionary[Layout, int] = weakref.WeakKeyDictionary()

    def warm_starts(self, layout: Layout) -> _WarmStarts:
        """The bound LPs' warm starts of ``layout`` (made on first use).

        Parameters
        ----------
        layout : Layout
            A layout of one of this engine's structures (held weakly, by identity).

        Returns
        -------
        _WarmStarts
            The layout's warm starts, kept while the layout lives.
        """
        warm = self.warm.get(layout)
        if warm is None:
            warm = self.warm[layout] = _WarmStarts()
        return warm

    def accepted(self, layout: Layout, accept: Callable[[str], bool]) -> np.ndarray:
        """The modes ``accept`` lets be chosen, asked once per layout and filter (kept while both
        live; the filter by identity).

        Parameters
        ----------
        layout : Layout
            The step's layout; its ``modes`` are the ``N`` candidate mode strings.
        accept : callable
            ``accept(mode) -> bool``: the mode filter (the same object across steps for the mask
            to be reused).

        Returns
        -------
        numpy.ndarray
            ``(N,)`` bool over ``layout.modes``.
        """
        per = self._accepted.get(layout)
        if per is None:
            per = self._accepted[layout] = {}
        mask = per.get(accept)
        if mask is None:
            mask = per[accept] = np.asarray(_accepted(layout.modes, accept), dtype=bool)
        return mask

    def structure(self, step) -> Structure:
        """The ``Structure`` of the step's present contacts (built on first use).

        Parameters
        ----------
        step : object
            The state (``MechanismStep``, RHex's ``StepModel``): its ``contacts``, ``n_q``,
            ``n_tau``, ``mu`` and ``blocks`` are read.

        Returns
        -------
        Structure
            ``contactmodes.realtime.plan.Structure``, one per tuple of present contacts.
        """
        st = self.structures.get(step.contacts)
        if st is None:
            st = Structure(step.n_q, step.n_tau, step.contacts, step.mu, step.blocks)
            self.structures[step.contacts] = st
        return st

    def modes(self, step, objective: np.ndarray, counters: SearchCounters | None = None, lazy: bool = True,
              accept: Callable[[str], bool] | None = None) -> _Modes:
        """The ``_Modes`` of ``step`` on its layout (built on first use) with that layout's warm
        starts.

        Parameters
        ----------
        step : object
            The state (``MechanismStep``, RHex's ``StepModel``).
        objective : numpy.ndarray
            ``(n_q + 2k + n_τ,)`` the plan's objective vector over ``(q̈', f', τ')``
            (``plan_objective``, nondimensional).
        counters : SearchCounters or None, optional
            The step's work counts, added to (new ones if ``None``).
        lazy : bool, optional
            Leave the modes the batched kinematic test cannot decide pending (``_Modes``).
        accept : callable or None, optional
            ``accept(mode) -> bool``: the mode filter (``None``: every mode).

        Returns
        -------
        _Modes
            The fast path's data of the step (candidate modes, responses, domains).
        """
        st = self.structure(step)
        layout = st.layout(step.pattern)
        accepted = None if accept is None else self.accepted(layout, accept)
        return _Modes(layout, st.banks(step.terms), self.warm_starts(layout),
                      SearchCounters() if counters is None else counters, objective, lazy, accept, accepted=accepted)


def optimize(step, objective, lo, hi, engine: Engine | None = None, *, force_slow: bool = False, lazy: bool = True,
             accept: Callable[[str], bool] | None = None, label: Callable[[str], str] | None = None,
             screen: bool = True, margin: float | None = None, lengths=None) -> OptimalResult:
    """The unambiguous optimal torque at one state (module doc): maximize (or minimize) a linear
    objective over ``T*_c ∩ L`` of every accepted, kinematically feasible mode with a unique
    objective (flipping paper Sec. IV-B.2, eq. (34); responses (24)–(31), domains (33)); the
    torque returned lies within the margin of the winner's supremum point, inside its set (module
    doc, *Margin*).

    Parameters
    ----------
    step : object
        The state (module doc: ``MechanismStep``, RHex's ``StepModel``).
    objective : LinearObjective or ObjectivePlan
        The objective in user units (``contactmodes.control.objective.LinearObjective``; its
        ``force`` over all of the system's contacts), or its ``ObjectivePlan`` (prepared once).
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits, user units.
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits, user units.
    engine : Engine, optional
        Structures and warm starts kept across steps (a fresh one if ``None``).
    force_slow : bool, optional
        Skip the fast point test: every examined candidate goes through the slow path (tests).
    lazy : bool, optional
        Resolve the modes the batched kinematic test leaves undecided only where the answer may
        depend on them (default; the same answer); ``False`` resolves them all first.
    accept : callable, optional
        ``accept(mode) -> bool``: the modes that may be chosen (default all). Every feasible
        mode's ``T_c'`` still counts for ambiguity.
    label : callable, optional
        ``label(mode) -> str``: the mode over all of the system's contacts
        (``OptimalResult.mode4``; default the mode itself).
    screen : bool, optional
        Try the screened search first (module doc, *Screened steps*; default). ``False``: the
        search of every feasible mode (the same answer; tests compare the two).
    margin : float, optional
        The margin ``δ`` (system torque units, >= 0; ``contactmodes.control.margin``). Default
        ``MARGIN_RTOL`` times the step's characteristic torque (``default_step_margin``; the
        controllers pass theirs, fixed at construction); 0 returns the supremum point.
    lengths : array_like, optional
        ``(n_τ,)`` each actuator's factor to torque units in the margin's metric
        (``contactmodes.control.margin.actuator_lengths``: the characteristic length for a
        force); default all 1 (torques).

    Returns
    -------
    OptimalResult
        The torque (clipped to ``[lo, hi]``), mode, objective value at the torque, the supremum
        (``closure_value``), the margin rule's clearance and work counts; status ``"no_mode"``
        with zero torque when no mode is left.

    Raises
    ------
    Exception
        Errors of the LPs and of the step's model propagate (the controllers record them).
    """
    engine = engine or Engine()
    plan = objective if isinstance(objective, ObjectivePlan) else ObjectivePlan(objective)
    c, scale = plan_objective(plan, step)
    const = plan.constant
    u = step.terms.tau
    lo_u = np.asarray(lo, dtype=float)
    hi_u = np.asarray(hi, dtype=float)
    lo_s, hi_s = lo_u / u, hi_u / u

    delta = default_step_margin(step) if margin is None else float(margin)
    units = u if lengths is None else u * np.asarray(lengths, dtype=float)

    def user(v: float) -> float:
        return v * scale + const if const else v * scale

    counters = SearchCounters()
    screened = _screened(engine, step, c, lo_s, hi_s, accept, lazy, counters) if screen and not force_slow else None
    if screened is not None:  # the fast path's answer for the best candidate, certified by the screen
        md_c, j, beta, t0, cands, md = screened
        point = _fast_margin(md_c, j, t0, lo_s, hi_s, True, delta, units, md, _NONE)
        if point is not None:  # else the whole search below (its own margin)
            cn = md.counters
            tau_u = (point.tau * u).clip(lo_u, hi_u)
            mode = md_c.names[j]
            bounds = {md_c.names[i]: user(b) for i, b, _ in cands}
            return OptimalResult(tau_u, mode, label(mode) if label is not None else mode,
                                 user(float(md_c.grad[j] @ (tau_u / u) + md_c.offset[j])), user(beta), "optimal",
                                 md.n_modes, 1, 0, cn.projections, bounds, {mode: user(beta)},
                                 nudged=point.distance > 0.0, clearance=point.clearance,
                                 fallbacks=cn.fallbacks, lp_fallbacks=cn.fallback_lps, svd_fallbacks=cn.svd_responses,
                                 n_pending=md.n_pending, screened=True)
    md = engine.modes(step, c, counters, lazy, accept)
    cn = md.counters
    n_exam = n_slow = 0

    settled: dict = {}

    def result(tau, mode, value, closure, status, bounds, values=None, point=None) -> OptimalResult:
        lab = None if mode is None else (label(mode) if label is not None else mode)
        return OptimalResult(tau, mode, lab, value, closure, status, md.n_modes, n_exam, n_slow, cn.projections,
                             bounds, values or {}, nudged=point is not None and point.distance > 0.0,
                             clearance=math.nan if point is None else point.clearance, fallbacks=cn.fallbacks,
                             lp_fallbacks=cn.fallback_lps, svd_fallbacks=cn.svd_responses, n_pending=md.n_pending,
                             settled=settled)

    for task, prefix in ((True, ""), (False, "task_dropped")):
        if not task and not any(kd == "task" for kd, _, _ in md.layout.structure.blocks):
            break  # without task rows the second search would be the first one again
        best, cands, values, e, s_, certified = _search(md, step, lo_s, hi_s, task, force_slow, delta, units)
        settled.update(certified)
        n_exam, n_slow = n_exam + e, n_slow + s_
        # user(b) written out (a call per candidate saved; the same operations)
        names, pending = md.names, md.pending if md.n_pending else None
        if const:
            bounds = {names[j]: b * scale + const for j, b, _ in cands if pending is None or not pending[j]}
            values = {m: v * scale + const for m, v in values.items()}
        else:
            bounds = {names[j]: b * scale for j, b, _ in cands if pending is None or not pending[j]}
            values = {m: v * scale for m, v in values.items()}
        if best is not None:
            _, tau, j, point, closure, holders = best
            if point is None:  # the fast path's τ°: the margin rule on the lifted domain, else the slow path's
                point = _fast_margin(md, j, tau, lo_s, hi_s, task, delta, units, md, holders)
                if point is None:
                    n_slow += 1
                    _, point, _ = _slow(md, step, j, lo_s, hi_s, task, delta, units)
                    if point is None:  # the slow path finds T*_c ∩ L empty where the fast path did not
                        point = MarginPoint(np.asarray(tau, dtype=float), 0.0, 0.0, "none")
            tau = point.tau
            tau_u = (np.asarray(tau) * u).clip(lo_u, hi_u)
            mode = md.names[j]
            if n_slow:
                resp = md.session(step).mode(mode).response_scaled(task)
                grad, offset = session_objective(resp, c)
                pred = user(float(grad @ (tau_u / u) + offset))
            else:
                pred = user(float(md.grad[j] @ (tau_u / u) + md.offset[j]))
            return result(tau_u, mode, pred, user(closure), prefix or "optimal", bounds, values, point)
        if cands:  # every candidate was examined (so resolved): cands[0] is a feasible mode
            j, beta, t0 = cands[0]
            return result((t0 * u).clip(lo_u, hi_u), md.names[j], user(beta), user(beta),
                          f"{prefix}_ambiguous" if prefix else "ambiguous", bounds)
    return result(np.zeros(step.n_tau), None, math.nan, math.nan, "no_mode", {})
