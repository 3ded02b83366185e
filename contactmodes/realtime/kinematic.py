"""Footnote 5's kinematic test (Sec. III-F) of a real-time plan's candidate modes, decided in
stages: one warm-started batch of strict-slack LPs (``kinematic_test``; with prefix pruning,
``contactmodes.realtime.prefix``, for large layouts), the unit-box solves of what it leaves
undecided (``unit_box``) and the enumeration's exact LP (``KinematicTest.resolve``). The
decisions are those of ``contactmodes.modes.enumeration`` (``contactmodes.realtime.plan``'s
module doc); ``Layout.kinematic_test`` and ``Layout.kinematic`` are the entry points.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from polytopes import batchlp, batchlp_kernel
from polytopes import lp

from contactmodes import tolerances
from contactmodes.realtime import kernels
from contactmodes.realtime.prefix import PREFIX_MIN_CANDIDATES, PrefixPruning
from contactmodes.modes.enumeration import SMALL_LEVEL, Enumeration, strict_slack_of_rows
from contactmodes.modes.contact_conditions import VelocityPattern

if TYPE_CHECKING:  # pragma: no cover
    from contactmodes.realtime.plan import Banks, Layout, StepCounters

__all__ = ["KinematicTest", "kinematic_test", "unit_box"]


class KinematicTest:
    """Footnote 5's kinematic test (Sec. III-F) of one step's candidates, decided in stages
    (``Layout.kinematic_test``; module doc).

    Parameters
    ----------
    layout : Layout
        The layout whose candidates are tested.
    J : numpy.ndarray
        ``(2k, n_q)`` the state's nondimensional contact Jacobian.
    c : numpy.ndarray
        ``(2k,)`` its ``J̇ q̇`` (nondimensional).
    rows : numpy.ndarray
        ``(B, r, n_q + 1)`` the strict-slack LPs' rows over ``(q̈', s)``.
    rhs : numpy.ndarray
        ``(B, r)`` their right-hand sides.
    margin : float
        The strict-slack margin.
    kernel : str
        ``"numpy"`` or ``"compiled"`` (resolved).
    feasible : numpy.ndarray
        ``(N,)`` bool over ``Layout.modes`` (kept and updated).
    decided : numpy.ndarray
        ``(N,)`` bool (kept and updated).
    counters : StepCounters or None
        Counted into by ``resolve``.
    slot : numpy.ndarray, optional
        ``(N,)`` int, where a candidate's rows are in ``rows`` (``None``: at its position).
    partial : bool, optional
        Only some candidates were tested.

    Attributes
    ----------
    feasible : numpy.ndarray
        ``(N,)`` bool over ``Layout.modes``, final where ``decided``.
    decided : numpy.ndarray
        ``(N,)`` bool.
    margin : float
        The strict-slack margin of the step.
    partial : bool
        Whether only some candidates were tested (``kinematic_test``'s ``subset`` or
        ``exclude``): the others count as infeasible here without a decision, so such a test
        gives no ``enumeration``.

    Notes
    -----
    ``resolve`` decides the others — the unit-box solves (``unit_box``), then the enumeration's
    own LP (``contactmodes.modes.enumeration.strict_slack_of_rows``); fewer than ``SMALL_LEVEL``
    at once go to that LP directly, as the enumeration decides a small level (``_Search.decide``)
    — for the candidates asked for, so a caller may decide only those whose feasibility can
    change its answer. Whatever is resolved when, each decision is the one ``Layout.kinematic``
    takes (each unit-box LP is solved independently of the others in its batch, so a decision does not
    depend on which candidates are resolved with it; compared in ``tests/controllers/rhex/test_rhex_realtime.py``).
    """

    def __init__(self, layout: "Layout", J: np.ndarray, c: np.ndarray, rows: np.ndarray, rhs: np.ndarray,
                 margin: float, kernel: str, feasible: np.ndarray, decided: np.ndarray,
                 counters: StepCounters | None, slot: np.ndarray | None = None, partial: bool = False) -> None:
        self.layout = layout
        self._J, self._c, self._rows, self._rhs = J, c, rows, rhs
        self._slot = slot  # where a candidate's rows are in ``rows`` (None: at its position)
        self.margin = margin
        self._kernel = kernel
        self.feasible = feasible
        self.decided = decided
        self._counters = counters
        self.partial = partial  # only some candidates tested (a subset, or a screen): not an enumeration

    def pending(self) -> np.ndarray:
        """Positions (in ``Layout.modes``) of the candidates not decided yet, increasing."""
        return (~self.decided).nonzero()[0]

    def enumeration(self, pattern: VelocityPattern | None = None) -> Enumeration:
        """The kinematically feasible candidates as the ``Enumeration`` of the state.

        The modes ``enumerate_modes`` finds on the state's scaled system (the same decisions,
        footnote 5, and the same product order over ``"FSLR"``; compared in
        ``tests/contactmodes/realtime/test_layout.py``), for an ``AnalysisSession`` of that
        system that need not enumerate again (its ``enumeration`` argument); ``lps`` counts the
        batch's strict-slack LPs (one per candidate).

        Parameters
        ----------
        pattern : VelocityPattern, optional
            The state's velocity pattern (in the units of the scaled terms: the layout's key;
            default the layout's own, whose thresholds are those of the state that built it).

        Returns
        -------
        Enumeration
            The feasible candidates with the counts of Table III.

        Raises
        ------
        ValueError
            When a candidate is not decided yet (``resolve`` the ``pending`` ones first), for
            a ``pattern`` of another layout, or for a ``partial`` test.
        """
        lay = self.layout
        if self.partial:
            raise ValueError("a test of some candidates only (subset or screen): not the state's enumeration")
        if pattern is None:
            pattern = lay.pattern
        elif pattern.key != lay.pattern.key:
            raise ValueError("pattern: not the velocity pattern of this layout")
        if not self.decided.all():
            raise ValueError(f"{int(np.count_nonzero(~self.decided))} candidates are not decided yet: resolve them first")
        modes = [lay.modes[i] for i in self.feasible.nonzero()[0].tolist()]
        return Enumeration(total=4 ** lay.structure.k, after_velocity=len(lay.modes), after_acceleration=len(modes),
                           modes=modes, allowed=list(pattern.allowed), pattern=pattern, lps=len(lay.modes))

    def resolve(self, index) -> np.ndarray:
        """Decide the candidates ``index`` (decided ones are left alone).

        Parameters
        ----------
        index : array_like
            Positions in ``Layout.modes``, any order.

        Returns
        -------
        numpy.ndarray
            ``feasible[index]``, bool.

        Notes
        -----
        Fewer than ``SMALL_LEVEL`` (``contactmodes.modes.enumeration``) undecided candidates go
        straight to the definition's LP (``strict_slack_of_rows``), as the enumeration decides a
        level that small: near rest the unit-box solves leave them undecided anyway (the snake
        wedged by six contacts: its all-``F`` mode, whose twelve equality rows are dependent up to
        rounding, and the modes that slide one end of the rigid chain), and for a rigid chain that
        LP is one SVD. More go to the unit-box solves first. Either way each decision is the
        definition's (the unit-box solves decide only where they agree with it).

        The ``StepCounters`` given to ``Layout.kinematic_test`` (if any): ``second_solve_lps``
        += those the unit-box solves decide, ``fallback_lps`` += those handed to the exact LP.
        """
        index = np.asarray(index, dtype=np.int64)
        lay, decided, out = self.layout, self.decided, self.feasible
        todo = np.unique(index[~decided[index]])
        left = todo
        if todo.size >= SMALL_LEVEL:  # fewer: the definition's own LP, no batch set-up (as _Search.decide)
            unit_box(lay, todo, self._rows, self._rhs, self.margin, decided, out, self._kernel, self._slot)
            left = todo[~decided[todo]]
        if left.size:
            J, c = self._J, self._c
            SJ = np.vstack([J, -J])
            sc = np.concatenate([-c, c])  # sign·J q̈ >= −sign·c
            n_q = lay.structure.n_q
            for i in left.tolist():
                sel_e = lay.kin_eq[i][lay.kin_eq[i] >= 0]
                sel_g = lay.kin_geq[i][lay.kin_geq[i] >= 0]
                slack = strict_slack_of_rows(SJ[sel_e], sc[sel_e], SJ[sel_g], sc[sel_g], np.zeros((0, n_q)), np.zeros(0))
                out[i] = slack > self.margin
            decided[left] = True
        cn = self._counters
        if cn is not None:
            cn.fallback_lps += int(left.size)
            cn.second_solve_lps += int(todo.size - left.size)
        return out[index]


def kinematic_test(layout: "Layout", banks: "Banks", counters: "StepCounters | None" = None,
                   kernel: str = "auto", prune: bool | None = None, exclude=None,
                   subset: np.ndarray | None = None) -> KinematicTest:
    """The first stage of ``kinematic``: footnote 5's strict-slack LP of every candidate in
    one batch, warm-started from the previous step's bases.

    With ``prune`` (by default for layouts of more than ``PREFIX_MIN_CANDIDATES`` candidates)
    the candidates are first pruned by prefixes (``contactmodes.realtime.prefix``: a
    certificate that a prefix's relaxed slack LP is at most the margin in the box
    ``|q̈'| <= KINEMATIC_BOUND`` decides its whole subtree infeasible) and only the remaining
    candidates' LPs are solved, with the same rows and decisions, each warm-started from its
    own last basis; of those the batch leaves undecided, the ones whose final basis certifies
    the slack at most the margin in that box (the prefixes' certificate,
    ``PrefixPruning.certified``) or which the first unit-box solve decides infeasible
    (``unit_box``, stage (1), the decision ``KinematicTest.resolve`` takes for them) are
    dropped at once, so they are not carried as pending modes. The known feasible candidates
    are the same; the pending ones are fewer (those left out are infeasible; prefix module doc
    for rows dependent up to rounding).

    Parameters
    ----------
    layout : Layout
        The layout of the state's velocity pattern.
    banks : Banks
        The row banks of the state.
    counters : StepCounters, optional
        ``lps`` += the candidates' (and prefixes') LPs here, ``second_solve_lps`` += the
        candidates dropped early, and ``second_solve_lps`` and ``fallback_lps`` (exact LPs) by
        ``KinematicTest.resolve``.
    kernel : str, optional
        As in ``kinematic``.
    prune : bool, optional
        Prune by prefixes (above); ``None`` (default): when the layout has more than
        ``PREFIX_MIN_CANDIDATES`` candidates and more than one contact.
    exclude : callable, optional
        Passed to ``PrefixPruning.candidates`` (implies ``prune``): prefixes left out before
        their LPs (``contactmodes.realtime.torque_screen``: no mode below them admits a torque).
        The candidates it leaves out are *not* decided infeasible by kinematics: they count as
        infeasible in the returned test, which is then the test of the screened candidates only
        (what ``controllers.generic.search`` needs at a screened step, never an enumeration).
    subset : numpy.ndarray, optional
        Test only these candidates (positions in ``Layout.modes``), each by its own LP as above,
        without prefixes; the others count as infeasible in the returned test, as with
        ``exclude``. Each decision is the one the whole test takes. With ``exclude`` as well:
        the screened search's candidates and these.

    Returns
    -------
    KinematicTest
        Its ``decided`` candidates are final; the others (``KinematicTest.pending``) are
        decided by ``KinematicTest.resolve`` when the caller needs them — with exactly the
        decisions ``kinematic`` takes.

    Raises
    ------
    ValueError
        For an unknown ``kernel``.
    """
    J, c = banks.J, banks.c
    n_q = layout.structure.n_q
    N = len(layout.modes)
    cost, lo, hi, art = layout.kin_cost, layout.kin_lo, layout.kin_hi, layout.kin_art
    kin_rows, warm = layout.kin_rows, layout.basis.get("kinematic")
    band_rtol = tolerances.KINEMATIC_BAND_RTOL
    kern = batchlp_kernel.kernel_choice(kernel)
    if prune is None:
        prune = N > PREFIX_MIN_CANDIDATES and layout.structure.k > 1
    cand: np.ndarray | None = None
    pruning: PrefixPruning | None = None
    if exclude is not None or subset is not None or prune:
        pruning = layout.prefix_pruning
    if pruning is not None and (exclude is not None or (prune and subset is None)):
        margin = tolerances.STRICT_MARGIN * max(1.0, float(np.abs(J).max(initial=0.0)),
                                                float(np.abs(c).max(initial=0.0)))
        cand = pruning.candidates(J, c, margin, kern, counters, exclude)
    if subset is not None:  # (one sort: np.union1d's, the same positions)
        sub = np.asarray(subset, dtype=np.int64).reshape(-1)
        cand = np.unique(sub if cand is None else np.concatenate([cand, sub]))
    if cand is not None:
        cost, lo, hi, art, kin_rows = cost[cand], lo[cand], hi[cand], art[cand], kin_rows[cand]
        if warm is not None:
            warm = warm[cand]
    B = kin_rows.shape[0]
    if kern == "compiled":
        rows, rhs = np.empty((B, kin_rows.shape[1], n_q + 1)), np.empty((B, kin_rows.shape[1]))
        margin = kernels.kinematic_rows_kernel(np.ascontiguousarray(J, dtype=float),
                                                     np.ascontiguousarray(c, dtype=float), kin_rows,
                                                     float(tolerances.STRICT_MARGIN), rows, rhs)
        res = batchlp.simplex_batch(cost, rows, rhs, lo, hi, art, warm, kernel="compiled", infeasible_tol=band_rtol)
        out, decided = np.empty(B, dtype=bool), np.empty(B, dtype=bool)
        kernels.kinematic_decide_kernel(res.status, res.x, res.fun, margin, band_rtol, out, decided)
    else:
        k = layout.structure.k
        margin = tolerances.STRICT_MARGIN * max(1.0, float(np.abs(J).max(initial=0.0)),
                                                float(np.abs(c).max(initial=0.0)))
        # E q̈ <= e, −E q̈ <= −e (E = J rows, e = −J̇q̇), and −sign·J q̈ + s <= sign·J̇q̇ for the strict
        # rows sign·ẍ >= 0 (sign = +1: rows 0..2k−1 of the signed bank, −1: 2k..4k−1); last: padding
        bank, rb = layout.kin_bank, layout.kin_rhs  # the s column and the padding row are constant
        bank[0:2 * k, :n_q] = J
        bank[2 * k:4 * k, :n_q] = -J
        bank[4 * k:6 * k, :n_q] = bank[2 * k:4 * k, :n_q]
        bank[6 * k:8 * k, :n_q] = J
        rb[0:2 * k] = -c
        rb[2 * k:4 * k] = c
        rb[4 * k:6 * k] = c
        rb[6 * k:8 * k] = -c
        rows, rhs = bank[kin_rows], rb[kin_rows]
        res = batchlp.simplex_batch(cost, rows, rhs, lo, hi, art, warm, kernel="numpy", infeasible_tol=band_rtol)
        s = -res.fun  # NaN unless optimal (then x is NaN too and every comparison below is false)
        band = band_rtol * np.maximum(1.0, np.max(np.abs(res.x), axis=1))
        decided = (np.abs(s - margin) > band) | (res.status == lp.INFEASIBLE)
        out = s > margin
    if counters is not None:
        counters.lps += B
    if cand is None or pruning is None:
        layout.basis["kinematic"] = res.basis
        return KinematicTest(layout, J, c, rows, rhs, float(margin), kern, out, decided, counters)
    # pruned: each candidate keeps its own last basis; the others are decided infeasible
    bases = layout.basis.get("kinematic")
    if bases is None:
        bases = layout.basis["kinematic"] = np.full((N, n_q + 1), -1, dtype=np.int64)
    bases[cand] = res.basis
    feasible, known = np.zeros(N, dtype=bool), np.ones(N, dtype=bool)
    feasible[cand], known[cand] = out, decided
    slot = np.full(N, -1, dtype=np.int64)
    slot[cand] = np.arange(B)
    pend = cand[~decided]
    if pend.size:  # dropped when their own basis certifies them (prefix rule), else by stage (1)
        at = slot[pend]
        opt = res.status[at] == lp.OPTIMAL
        if opt.any():
            known[pend[opt]] = pruning.certified(rows[at[opt]], rhs[at[opt]], res.basis[at[opt]],
                                                  float(margin), kern)
        unit_box(layout, pend[~known[pend]], rows, rhs, float(margin), known, feasible, kern, slot, drop_only=True)
        if counters is not None:
            counters.second_solve_lps += int(np.count_nonzero(known[pend]))
    return KinematicTest(layout, J, c, rows, rhs, float(margin), kern, feasible, known, counters, slot,
                         partial=subset is not None or exclude is not None)


def unit_box(layout: "Layout", todo: np.ndarray, rows: np.ndarray, rhs: np.ndarray, margin: float, decided: np.ndarray,
              out: np.ndarray, kernel: str = "auto", slot: np.ndarray | None = None,
              drop_only: bool = False) -> None:
    """Second compiled solve of the kinematic LPs ``todo`` the first one left undecided (in place
    on ``decided``, ``out``). Near rest their optimum leans on the box ``KINEMATIC_BOUND`` or
    sits within the precision band, which grows with ``|q̈'|``. (1) In the unit box, still
    artificial, as ``contactmodes.modes.enumeration._Search.decide`` does: a verified answer that does
    not lean on the box decides as before. (2) In the unit box, then in ``KINEMATIC_BOUND``, as a
    *real* bound: the LP is a restriction of the strict-slack LP, so its verified optimum
    ``s₁`` (a point meeting the rows to ``LP_PRIMAL_TOL``) is a lower bound of the strict
    slack, and ``s₁ > margin + band`` (the band of the first solve, grown with ``|q̈'|``)
    proves the mode kinematically feasible. Neither proves more than that; the rest goes to
    the exact LP.

    ``rows``, ``rhs`` hold the LPs' rows at ``slot[todo]`` (default ``todo``: one row per
    candidate). ``drop_only`` runs stage (1) alone and takes only its *infeasible* decisions
    (``kinematic_test``'s early drop: each LP is solved independently of the others of
    its batch and without a warm start, so these are the decisions ``KinematicTest.resolve``
    takes for those candidates whenever it runs).

    Parameters
    ----------
    layout : Layout
        The layout of the candidates.
    todo : numpy.ndarray
        ``(T,)`` int, positions in ``Layout.modes`` left undecided.
    rows : numpy.ndarray
        ``(B, r, n_q + 1)`` the strict-slack LPs' rows over ``(q̈', s)`` (nondimensional).
    rhs : numpy.ndarray
        ``(B, r)``.
    margin : float
        The strict-slack margin.
    decided : numpy.ndarray
        ``(N,)`` bool, updated in place.
    out : numpy.ndarray
        ``(N,)`` bool, updated in place: feasible.
    kernel : str, optional
        ``"auto"``, ``"numpy"`` or ``"compiled"``.
    slot : numpy.ndarray, optional
        ``(N,)`` int, where each candidate's rows are in ``rows``; ``None``: at its position.
    drop_only : bool, optional
        Stage (1) alone, its infeasible decisions only.
    """
    n_q = layout.structure.n_q
    lo, hi = layout.kin_lo[todo].copy(), layout.kin_hi[todo].copy()
    at = todo if slot is None else slot[todo]
    cost, G, h = layout.kin_cost[todo], rows[at], rhs[at]
    for real, box in ((False, 1.0), (True, 1.0), (True, tolerances.KINEMATIC_BOUND)):
        if np.all(decided[todo]):
            return
        lo[:, :n_q], hi[:, :n_q] = -box, box
        art = layout.kin_art[todo].copy()
        if real:
            art[:, :n_q] = False
        res = batchlp.simplex_batch(cost, G, h, lo, hi, art, kernel=kernel,
                                    infeasible_tol=tolerances.KINEMATIC_BAND_RTOL)
        s = -res.fun
        band = tolerances.KINEMATIC_BAND_RTOL * np.maximum(1.0, np.max(np.abs(res.x), axis=1))
        if real:
            dec = (res.status == lp.OPTIMAL) & (s > margin + band)
        else:
            dec = (np.abs(s - margin) > band) | (res.status == lp.INFEASIBLE)
        dec &= ~decided[todo]
        if drop_only:
            dec &= ~(s > margin)
        decided[todo[dec]] = True
        out[todo[dec]] = s[dec] > margin
        if drop_only:
            return
