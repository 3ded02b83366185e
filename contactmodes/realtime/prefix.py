"""Output-sensitive kinematic test of a layout's candidates: prefixes pruned level by level.

A ``Layout`` of ``k`` contacts at rest has ``4^k`` candidate modes (4096 for the snake wedged in
its chimney, ``examples/snake/snake_chimney.toml``), of which a few hundred are kinematically
feasible (Sec. III-F, footnote 5). Solving the strict-slack LP of every candidate at every control
step was most of a step's time (12 of 24 ms for the snake; issue 24). ``PrefixPruning`` runs the
search of ``contactmodes.modes.enumeration`` (module doc there, *Output-sensitive search*) on the
layout's candidates instead: letters are assigned contact by contact (first contact slowest, the
product order of ``Layout.modes``), each *prefix* (the letters of contacts ``0 … ℓ−1``) is tested
by the same strict-slack LP in which every unassigned contact keeps only the rows common to all of
its allowed letters (``contactmodes.modes.contact_conditions.relaxed_rows``, ``ẍ_n >= 0`` loosened
by the margin), and a prefix whose slack is *decided* at most the margin is pruned with its whole
subtree. That is a relaxation: every completion's feasible ``(q̈, s)`` with ``s >= 0`` is feasible
for the prefix's LP, so no completion of a pruned prefix is kinematically feasible (the
enumeration's own argument). Only the leaves below the surviving prefixes of length ``k − 1`` are
returned; ``Layout.kinematic_test`` solves *their* LPs exactly as before (the same rows and
decisions, each warm-started from its own last basis), and decides every other candidate
infeasible. For the snake at rest 512–624 of the 4096 candidates are left, after about 410
prefix LPs.

A prefix is pruned only on a certificate. Its LP (over ``(q̈, s)``, the artificial box
``KINEMATIC_BOUND`` on ``q̈``) is solved by ``polytopes.batchlp.simplex_batch``; a verified
optimum farther than the LP precision band (``10 · FEASIBILITY_RTOL · max(1, ‖x‖∞)``, the
leaves' band) below the margin proposes the prune (a prefix left within the band is solved again
in the unit box, still artificial, as ``contactmodes.modes.enumeration._Search.decide`` does),
and the prune is taken only when the final basis's own multipliers, recomputed without the LP
tolerances, bound the slack by the margin over the whole box ``|q̈'| <= KINEMATIC_BOUND``
(``PrefixPruning.certified``: weak duality with the residual kept; the tolerances of the
verification are relative to the multipliers' size, which an ill-conditioned basis makes larger
than the margin). An infeasibility (Farkas) certificate prunes nothing: near rest, equalities
dependent up to rounding (a chain wedged by six contacts) with ``J̇q̇`` at rounding level get
verified Farkas certificates where the definition's LP (``strict_slack_of_rows``, equalities
eliminated by an SVD) finds the slack at 1. A prefix that is not pruned survives, and its leaves
are decided by their own LPs as without pruning.

So a left-out candidate has no strict slack above the margin with ``|q̈'| <= KINEMATIC_BOUND``,
the box of every stage of the leaves' test but its last, exact LP. Where Jacobian rows are
dependent up to rounding (singular values of 1e-15), that exact LP may still find a slack of 1
along those directions (``|q̈'|`` of order 1e15) and call such a candidate feasible; pruned, it is
infeasible. ``tests/contactmodes/realtime/test_prefix.py`` compares the left-out candidates with
every candidate's own LP (``strict_slack_of_rows``, and in the box by ``polytopes.lp``) and the
pruned test's decisions with the unpruned test's, on random mechanisms, random Jacobians at, near
and (rank-deficient) degenerately at rest, and the snake's recorded and perturbed states.

The prefix LPs are warm-started from their own optimal bases of the previous step (one array per
level, kept on the ``PrefixPruning``), so from step to step most of them need no pivot.

*Screened searches* (``candidates``' ``exclude``: the letters a torque screen left out,
``contactmodes.realtime.torque_screen``). The search keeps the prefixes it pruned, with their
final bases, and the candidates it returned. At the next screened search with the same left-out
letters (``Exclusion.key``), each of those prefixes is first proved again by its old basis at the
new state (``certified_slack``: the certificate above, whatever basis it comes from); when every
one is, the same candidates are returned without an LP, else the search runs. A prefix that
survived last time is not a claim, so nothing else needs proving. The snake's screened steps
take this path (about 0.16 instead of 0.7 ms).

Everything is nondimensional (the plan's units).
"""

from __future__ import annotations

import numpy as np

from polytopes import batchlp, batchlp_kernel
from polytopes import lp

from contactmodes import tolerances
from contactmodes.modes.contact_conditions import relaxed_rows
from contactmodes.realtime import kernels

__all__ = ["PrefixPruning", "PREFIX_MIN_CANDIDATES", "certified_slack"]

PREFIX_MIN_CANDIDATES = 256
"""``Layout.kinematic_test`` prunes by prefixes only for layouts with more candidates than this
(the enumeration's ``DIRECT_CANDIDATES``: below it the levels cost more than they prune; RHex's
four contacts have at most 256 candidates and keep the single batch)."""

# the six blocks of ``PrefixPruning._bank``: ``±J`` (equalities), ``∓J`` with the slack (strict
# rows, both signs) and ``∓J`` relaxed by the margin
_SIGNS = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])
_SLACK_COLUMN = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
_RELAXED = np.array([False, False, False, False, True, True])


class PrefixPruning:
    """The prefix search of the module doc over one ``Layout``'s candidates.

    Parameters
    ----------
    layout : Layout
        The layout (its ``structure``, ``pattern`` and per-contact ``options``).

    Attributes
    ----------
    radix : numpy.ndarray
        ``(k,)`` the number of allowed letters of each contact.
    basis : dict
        Per prefix length ``ℓ``, ``(Π radix[:ℓ], n_q + 1)`` int64: each prefix's last optimal basis
        (``-1``: none yet), the next step's warm starts.
    """

    def __init__(self, layout) -> None:
        st = layout.structure
        k, n_q = st.k, st.n_q
        self.k, self.n_q = k, n_q
        self.radix = np.array([len(opts) for opts in layout.options], dtype=np.int64)
        self.null = 12 * k  # the padding row of the bank (``_bank``)
        # per contact and option: its bank rows (equalities J|0 and -J|0, strict rows), each part
        # padded to the contact's widest option, so that a prefix's rows are a row of fixed width
        self.segments: list[np.ndarray] = []
        for opts in layout.options:
            ne = max(len(o[3]) for o in opts)
            ng = max(len(o[4]) for o in opts)
            seg = np.full((len(opts), 2 * ne + ng), self.null, dtype=np.int64)
            for j, (_, _, _, ke, kg) in enumerate(opts):
                seg[j, :len(ke)] = ke
                seg[j, ne:ne + len(ke)] = [2 * k + e for e in ke]
                seg[j, 2 * ne:2 * ne + len(kg)] = [4 * k + g for g in kg]
            self.segments.append(seg)
        # per contact, its relaxed rows (module doc): block 4 for sign +1, block 5 for sign -1
        self.relaxed: list[list[int]] = []
        for i in range(k):
            rel = relaxed_rows(layout.pattern.allowed[i], bool(layout.pattern.n_zero[i]))
            self.relaxed.append([(8 * k if sg > 0 else 10 * k) + 2 * i + cp for cp, sg in rel])
        self.basis: dict[int, np.ndarray] = {}
        self._screened: tuple | None = None  # (screen key, prunes, candidates) of the last screened search
        nv = n_q + 1
        self._cost = np.zeros(nv)
        self._cost[-1] = -1.0
        self._lo = np.full(nv, -tolerances.KINEMATIC_BOUND)
        self._hi = np.full(nv, tolerances.KINEMATIC_BOUND)
        self._hi[-1] = 1.0
        self._art = np.ones(nv, dtype=bool)
        self._art[-1] = False  # s <= 1 and s >= -bound are real bounds, as in the leaves' LPs

    def _bank(self, J: np.ndarray, c: np.ndarray, margin: float) -> tuple[np.ndarray, np.ndarray]:
        """``(F (12k + 1, n_q + 1), f (12k + 1,))``: the rows ``F (q̈, s) <= f`` the prefix LPs use —
        the leaves' bank ``J | 0``, ``−J | 0``, ``−J | 1``, ``J | 1`` (right-hand sides ``−c``,
        ``c``, ``c``, ``−c``; ``Layout.kinematic_test``), then the relaxed rows ``±ẍ >= −margin``
        (``−J | 0 <= c + margin``, ``J | 0 <= −c + margin``) and the padding row ``0 <= 0``."""
        k2, n_q = J.shape
        signs, scol, relaxed = _SIGNS, _SLACK_COLUMN, _RELAXED
        F = np.zeros((6 * k2 + 1, n_q + 1))
        f = np.zeros(6 * k2 + 1)
        # block by block (views of F's and f's first 6 · 2k rows) ``sign * J``, ``−sign * c + (margin
        # or 0.0)``: the same operations
        F6, f6 = F[:6 * k2].reshape(6, k2, n_q + 1), f[:6 * k2].reshape(6, k2)
        F6[:, :, :n_q] = signs[:, None, None] * J
        F6[:, :, n_q] = scol[:, None]
        f6[:] = -signs[:, None] * c + np.where(relaxed, margin, 0.0)[:, None]
        return F, f

    def _rows(self, level: int, ids: np.ndarray) -> np.ndarray:
        """``(len(ids), m)`` bank rows of the prefixes ``ids`` of length ``level`` (mixed-radix
        indices over ``radix[:level]``, first contact slowest): their letters' rows, then the
        relaxed rows of the contacts ``level … k−1``."""
        codes = np.unravel_index(ids, tuple(self.radix[:level].tolist())) if level else ()
        parts = [self.segments[i][codes[i]] for i in range(level)]
        rel = [r for i in range(level, self.k) for r in self.relaxed[i]]
        if rel:
            parts.append(np.broadcast_to(np.array(rel, dtype=np.int64), (ids.size, len(rel))))
        return np.concatenate(parts, axis=1) if parts else np.full((ids.size, 1), self.null, dtype=np.int64)

    def _pruned(self, level: int, ids: np.ndarray, F: np.ndarray, f: np.ndarray, margin: float, kernel: str,
                counters, record: list | None = None) -> np.ndarray:
        """``(len(ids),)`` bool: the prefixes whose verified slack is decided at most the margin
        (module doc); their LPs warm-started from and updating ``basis[level]``. ``record`` (if
        given) receives ``(rows, bases)`` of the pruned prefixes: their bank rows and certifying
        bases (``_recertified``)."""
        rows = self._rows(level, ids)
        K, nv = ids.size, self.n_q + 1
        G, h = F[rows], f[rows]
        cost = np.broadcast_to(self._cost, (K, nv))
        lo, hi = np.tile(self._lo, (K, 1)), np.tile(self._hi, (K, 1))
        art = np.broadcast_to(self._art, (K, nv))
        bases = self.basis.get(level)
        if bases is None:
            bases = self.basis[level] = np.full((int(np.prod(self.radix[:level])), nv), -1, dtype=np.int64)
        res = batchlp.simplex_batch(cost, G, h, lo, hi, art, bases[ids], kernel=kernel)
        bases[ids] = res.basis
        pruned, decided = _decide(res, margin)
        todo = (~decided).nonzero()[0]
        n_lps = K
        if todo.size:  # within the band: once more in the unit box (artificial), as the enumeration
            lo[todo, :self.n_q], hi[todo, :self.n_q] = -1.0, 1.0
            again = batchlp.simplex_batch(cost[todo], G[todo], h[todo], lo[todo], hi[todo], art[todo], res.basis[todo],
                                          kernel=kernel)
            pruned[todo] = _decide(again, margin)[0]
            res.basis[todo] = again.basis  # (a copy: the warm starts keep the first solve's bases)
            n_lps += todo.size
        sel = pruned.nonzero()[0]
        if sel.size:
            pruned[sel] = self.certified(G[sel], h[sel], res.basis[sel], margin, kernel)
            if record is not None:
                record.append((rows[pruned], res.basis[pruned].copy()))
        if counters is not None:
            counters.lps += n_lps
        return pruned

    def _recertified(self, record: list, F: np.ndarray, f: np.ndarray, margin: float, kernel: str) -> bool:
        """Whether every prefix ``record`` holds (per level ``(rows, bases)``: the bank rows and
        final bases of the prefixes pruned at an earlier state) is pruned at this state by its old
        basis alone (``certified`` on this state's rows: a certificate, whatever basis it comes
        from)."""
        if not record:
            return True
        rows, bases = record[0] if len(record) == 1 else self._padded(record)
        return bool(self.certified(F[rows], f[rows], bases, margin, kernel).all())

    def _padded(self, record: list) -> tuple[np.ndarray, np.ndarray]:
        """``record``'s levels as one batch ``(rows, bases)``: the shorter levels' rows padded with
        the padding row ``0 <= 0`` after their own rows, so a basis index below a level's row
        count keeps its row and the bounds' indices move by the padding (the same
        certificates)."""
        width = max(rows.shape[1] for rows, _ in record)
        out_rows = np.full((sum(rows.shape[0] for rows, _ in record), width), self.null, dtype=np.int64)
        out_bases = np.empty((out_rows.shape[0], self.n_q + 1), dtype=np.int64)
        at = 0
        for rows, bases in record:
            K, m = rows.shape
            out_rows[at:at + K, :m] = rows
            out_bases[at:at + K] = np.where(bases >= m, bases + (width - m), bases)
            at += K
        return out_rows, out_bases

    def certified(self, G: np.ndarray, h: np.ndarray, basis: np.ndarray, margin: float,
                  kernel: str = "auto") -> np.ndarray:
        """Whether the final bases of the slack LPs with rows ``G (q̈, s) <= h`` prove the strict
        slack at most ``margin`` for every ``|q̈'| <= KINEMATIC_BOUND`` (``certified_slack`` with
        these LPs' cost and bounds; also ``contactmodes.realtime.kinematic``'s pending modes).

        Parameters
        ----------
        G : numpy.ndarray
            ``(K, m, n_q + 1)`` the LPs' rows (scaled).
        h : numpy.ndarray
            ``(K, m)`` their right-hand sides.
        basis : numpy.ndarray
            ``(K, n_q + 1)`` the LPs' final bases.
        margin : float
            The strict-slack margin (nondimensional).
        kernel : str, optional
            ``"auto"``, ``"numpy"`` or ``"compiled"`` (``polytopes.batchlp_kernel.kernel_choice``).

        Returns
        -------
        numpy.ndarray
            ``(K,)`` bool: the certificate holds.
        """
        return certified_slack(G, h, basis, self._cost, self._lo, self._hi, margin, kernel)

    def candidates(self, J: np.ndarray, c: np.ndarray, margin: float, kernel: str = "auto",
                   counters=None, exclude=None) -> np.ndarray:
        """The layout positions of the candidates no pruned prefix covers (module doc).

        Parameters
        ----------
        J : numpy.ndarray
            ``(2k, n_q)`` the contact Jacobian (scaled).
        c : numpy.ndarray
            ``(2k,)`` ``J̇q̇`` (scaled).
        margin : float
            The strict-slack margin of the step (``STRICT_MARGIN · max(1, max|J|, max|c|)``).
        kernel : str, optional
            The simplex kernel (``polytopes.batchlp.simplex_batch``) and of the certificates.
        counters : StepCounters, optional
            ``lps`` += the prefix LPs solved (second solves included).
        exclude : callable, optional
            ``exclude(level, ids) -> (len(ids),) bool``: prefixes to leave out before their
            kinematic LPs, and at ``level = k`` the candidates left out of the answer
            (``contactmodes.realtime.torque_screen.TorqueScreen.excluder``: no mode below them
            admits a given torque). Default none.

        Returns
        -------
        numpy.ndarray
            Increasing int64 positions in ``Layout.modes``; every other candidate has a pruned
            prefix (a certificate, at this state, that it is kinematically infeasible) or one
            ``exclude`` left out.
        """
        F, f = self._bank(J, c, margin)
        key = getattr(exclude, "key", None)
        if key is not None and self._screened is not None and self._screened[0] == key:
            _, record, leaves = self._screened
            if self._recertified(record, F, f, margin, kernel):  # the last screened search's prunes hold
                return leaves.copy()
        record = [] if key is not None else None
        ids = np.arange(self.radix[0], dtype=np.int64)
        for level in range(1, self.k):
            if ids.size and exclude is not None:
                ids = ids[~exclude(level, ids)]
            if ids.size == 0:
                break
            ids = ids[~self._pruned(level, ids, F, f, margin, kernel, counters, record)]
            ids = (ids[:, None] * self.radix[level] + np.arange(self.radix[level])).reshape(-1)
        if ids.size and exclude is not None:
            ids = ids[~exclude(self.k, ids)]
        if record is not None:
            self._screened = (key, [self._padded(record)] if len(record) > 1 else record, ids.copy())
        return ids


def certified_slack(G: np.ndarray, h: np.ndarray, basis: np.ndarray, cost: np.ndarray, lo: np.ndarray,
                hi: np.ndarray, margin: float, kernel: str = "auto") -> np.ndarray:
    """Whether the final bases of max-slack LPs prove the slack at most ``margin`` on a box.

    The bases ``basis`` of the max-slack LPs with rows ``G (z, s) <= h``, cost ``cost`` and bounds
    ``lo``, ``hi`` (those of ``z`` artificial) prove the slack at most ``margin`` for every
    ``|z| <= KINEMATIC_BOUND`` — by the LP's own numbers, without its tolerances. ``z = q̈'`` for
    the prefixes' strict-slack LPs (``PrefixPruning.certified``), ``z = (q̈', f')`` for the screen's
    groups (``contactmodes.realtime.torque_screen``, ``margin < 0``); every number nondimensional.

    The verified answers of ``_decide`` are accepted by the relative rules of ``polytopes.lp``
    (multipliers down to ``−LP_DUAL_TOL`` times their sum, an artificial bound's multiplier up to
    ``ART_TOL`` times it); with an ill-conditioned basis (Jacobian rows dependent up to ``1e-6``)
    those allowances are larger than the margin itself, and a prefix whose leaves are feasible was
    claimed at a slack of ``3e-8`` (random rank-deficient Jacobians,
    ``tests/contactmodes/realtime/test_prefix.py``). Here the basis multipliers ``y``
    (``F_Bᵀ y_B = −c`` on the rows normalized as the simplex normalizes them) are recomputed, their
    negative parts and those of the ``q̈`` bounds dropped (``y⁺``), and weak duality is applied with
    the residual ``r = c + Fᵀ y⁺`` kept: for every point of the rows with
    ``‖(q̈, s)‖∞ <= KINEMATIC_BOUND``, ``s <= y⁺·f + ‖r‖₁ · KINEMATIC_BOUND``; the prefix is pruned
    only when that bound, plus an allowance for the rounding of these sums
    (``4 ε (M + n) (Σ|y⁺ f| + n Σ y⁺ · KINEMATIC_BOUND + 1)``, ``M`` rows with the bounds), is at
    most the margin.

    Parameters
    ----------
    G : numpy.ndarray
        ``(K, m, n + 1)`` the rows over ``(z, s)``.
    h : numpy.ndarray
        ``(K, m)``.
    basis : numpy.ndarray
        ``(K, n + 1)`` int, the final bases (rows ``< m``, then the upper and the lower bounds).
    cost : numpy.ndarray
        ``(n + 1,)`` the cost (``−s``).
    lo, hi : numpy.ndarray
        ``(n + 1,)`` the bounds (those of ``z`` artificial).
    margin : float
        The slack bound to prove.
    kernel : str, optional
        ``"compiled"`` (``kernels.prefix_certify_kernel``, one LP at a time), ``"numpy"`` (the
        reference) or ``"auto"``.

    Returns
    -------
    numpy.ndarray
        ``(K,)`` bool: certified.

    Raises
    ------
    ValueError
        For an unknown ``kernel``.
    """
    K, m, nv = G.shape
    n_q = nv - 1
    zb = tolerances.KINEMATIC_BOUND
    if batchlp_kernel.kernel_choice(kernel) == "compiled":
        out = np.empty(K, dtype=bool)
        kernels.prefix_certify_kernel(np.ascontiguousarray(G), np.ascontiguousarray(h),
                                      np.ascontiguousarray(basis, dtype=np.int64), cost, lo,
                                      hi, n_q, float(zb), float(margin), out)
        return out
    M = m + 2 * nv
    nrm = np.sqrt(np.sum(G ** 2, axis=2))
    safe = np.where(nrm > 0.0, nrm, 1.0)
    eye = np.broadcast_to(np.eye(nv), (K, nv, nv))
    F = np.concatenate([G / safe[:, :, None], eye, -eye], axis=1)  # (K, M, nv)
    f = np.concatenate([h / safe, np.broadcast_to(hi, (K, nv)), -np.broadcast_to(lo, (K, nv))], axis=1)
    FB = np.take_along_axis(F, basis[:, :, None], axis=1)  # (K, nv, nv)
    c = np.broadcast_to(cost, (K, nv))
    yB = np.full((K, nv), np.nan)
    for i in range(K):
        try:
            yB[i] = np.linalg.solve(FB[i].T, -c[i])
        except np.linalg.LinAlgError:  # singular: no certificate
            pass
    y = np.zeros((K, M))
    np.put_along_axis(y, basis, yB, axis=1)
    y = np.maximum(y, 0.0)  # (NaN stays NaN: no certificate)
    y[:, m:m + n_q] = 0.0  # the artificial q̈ bounds: their multipliers go to the residual
    y[:, m + nv:m + nv + n_q] = 0.0
    r = c + np.einsum("kmn,km->kn", F, y)
    terms = y * f
    bound = terms.sum(axis=1) + np.abs(r).sum(axis=1) * zb
    rounding = 4.0 * np.finfo(float).eps * (M + nv) * (np.abs(terms).sum(axis=1) + nv * y.sum(axis=1) * zb + 1.0)
    return np.isfinite(bound) & (bound + rounding <= margin)


def _decide(res, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``(pruned, decided)`` from a batch of slack LPs: the leaves' rule for an optimum
    (``kinematic_decide_kernel``: it decides when ``|s − margin| > 10 · FEASIBILITY_RTOL ·
    max(1, ‖x‖∞)``), *pruned* = decided and not above the margin. An infeasibility certificate
    decides nothing here: near rest, equalities that are dependent up to rounding (six contacts
    wedging a five-link chain) and a right-hand side ``J̇q̇`` at rounding level give verified
    Farkas certificates (within the LP tolerances) for prefixes whose strict slack the
    definition's LP (``strict_slack_of_rows``, equalities eliminated by an SVD) finds at 1; such
    a prefix survives and its leaves are decided by their own LPs, as without pruning."""
    opt = res.status == lp.OPTIMAL
    s = np.where(opt, -res.fun, 0.0)
    size = np.maximum(1.0, np.max(np.abs(np.where(opt[:, None], res.x, 0.0)), axis=1, initial=0.0))
    decided = opt & (np.abs(s - margin) > tolerances.KINEMATIC_BAND_RTOL * size)
    return decided & ~(s > margin), decided
