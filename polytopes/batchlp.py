"""Many small dense LPs at once: a vectorized dual simplex whose every answer is verified.

The fast path of ``polytopes.lp`` for callers that solve dozens of tiny LPs of the same shape
per call (the RHex max-thrust controller: one LP per contact mode, every millisecond). One NumPy
operation advances every LP of the batch, so the Python overhead is paid once per pivot rather
than once per LP. It is a *fast path only*: an answer is returned as decided only after the same
checks ``polytopes.lp.solve_verified`` applies (``primal_ok``,
``dual_ok``, ``farkas_ok``); everything else is reported
``UNDECIDED`` and ``solve_batch`` hands it to ``polytopes.lp.solve_verified`` (cddlib, then
HiGHS; ``NumericalError`` when nothing verifies).

Problem (per LP ``b`` of the batch, ``n`` variables, ``m`` rows):

    minimize c_b.x   s.t.   G_b x <= h_b,   lo_b <= x <= hi_b        (lo, hi finite)

Equalities are passed as two rows. Rows are divided by their norms first (all-zero rows are
decided directly: ``0 <= h``). LPs of different sizes share a batch by padding: zero rows with
``h = 0`` and variables fixed by ``lo = hi = 0`` with zero cost.

*Artificial bounds.* A free variable is given a finite box by the caller (``artificial`` marks
those bounds, e.g. ``|w| <= 1e3`` on nondimensional data). Certificates are checked with the
multipliers of artificial bounds set to zero, so an accepted answer is an answer of the caller's
LP; one whose multipliers lean on the box at all (beyond rounding, ``ART_TOL``) is
``UNDECIDED`` (and solved by ``polytopes.lp`` without it).

*Infeasibility beyond a tolerance.* A verified Farkas certificate proves the rows infeasible as
given; rows dependent up to rounding can be infeasible by a rounding-sized amount that a caller's
own rule accepts (an SVD that takes equalities as consistent up to a residual tolerance).
``simplex_batch``'s ``infeasible_tol`` lets such a certificate decide only when it proves the
caller's rows, each relaxed by that tolerance times the certificate's data scale, still
infeasible (``_beyond``); a smaller infeasibility is ``UNDECIDED``.

Method: the dual simplex on the inequality form. A basis is ``n`` active rows (of ``G`` and the
bounds); the start is the box vertex whose bound rows carry the multipliers ``|c_j|`` (dual
feasible by construction), or a caller's *warm start* (e.g. the previous control step's optimal
basis) when it is nonsingular and dual feasible. Each pivot enters the most violated row and
leaves by the dual ratio test (ties to the lowest row index), updating ``F_B^{-1}`` by the
Sherman–Morrison formula; a basis whose entering row has no positive ratio coefficient yields a
Farkas certificate (``y_r = 1``, ``y_B = −α``). The final answers are recomputed from the basis by
a fresh solve before they are checked.

*Kernels.* The same method runs in two implementations: ``"numpy"`` (this module, one NumPy
operation per pivot for the whole batch: the reference) and ``"compiled"``
(``polytopes.batchlp_kernel``, numba, one LP at a time, verified in the same compiled loop by
the same rules). ``kernel="auto"`` (the default, ``KERNEL``) takes the compiled one when numba
is installed; both are compared in ``tests/polytopes/test_batchlp_kernel.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _threads, lp

__all__ = ["BatchResult", "UNDECIDED", "KERNEL", "KERNELS", "COMPILED_MIN_LPS", "available", "preferred_kernel",
           "solve_batch", "simplex_batch", "solve_padded", "solve_stacked", "PADDED_CHUNK", "PAD_ROWS", "PAD_COLS"]

UNDECIDED = -1
"""Status of an LP the vectorized simplex did not decide (before the fallback)."""
ENTER_TOL = 1e-10
"""A normalized row enters the basis when violated by more than this × ``max(1, |x|_inf, |h_i|)``."""
PIVOT_TOL = 1e-9
"""Ratio-test coefficients at most this are treated as zero."""
ART_TOL = 1e-12
"""A certificate *leans on* an artificial bound when that bound's multiplier exceeds this fraction
of the multipliers' 1-norm (rounding level): such an answer is ``UNDECIDED``."""
COMPILED_MIN_LPS = 1024
"""``preferred_kernel``: the compiled kernel is worth loading for at least this many LPs (its
load, about a second, against some 0.1–0.3 ms per LP saved over the NumPy kernel)."""
PADDED_CHUNK = 1024
"""``solve_padded`` solves at most this many LPs per batch (memory: a batch holds a few
``(B, m + 2n, n)`` arrays)."""
PAD_ROWS = 16
PAD_COLS = 4
"""``solve_padded`` pads an LP to multiples of these numbers of rows and variables. Each padded
size is one batch, and a batch costs its pivots once whatever its size: 16 rows (rather than 8)
puts the analyses' LPs of up to 16 rows in one batch (``benchmarks/bench_analyze.py``: two-link
14.6 → 13.4 ms, the same answers on every example); 32 rows gained nothing more."""
KERNELS = ("auto", "numpy", "compiled")
KERNEL = "auto"
"""The kernel ``kernel="auto"`` means (module doc): ``"auto"`` is the compiled one when numba is
installed, else ``"numpy"``."""


@dataclass
class BatchResult:
    """Answers for a batch of ``B`` LPs (``n`` variables, ``m`` rows).

    Attributes
    ----------
    status : numpy.ndarray
        Shape ``(B,)``, int: ``lp.OPTIMAL``, ``lp.INFEASIBLE`` (every LP here is bounded by its
        box), ``UNDECIDED`` (only from ``simplex_batch``) or, after the fallback without the
        artificial bounds, ``lp.UNBOUNDED``.
    x : numpy.ndarray
        Shape ``(B, n)``: the optimal points (NaN where not optimal).
    fun : numpy.ndarray
        Shape ``(B,)``: ``c.x`` at the optimum (NaN where not optimal).
    basis : numpy.ndarray
        Shape ``(B, n)``, int: the final basis of the simplex (row ``i < m`` of ``G``, ``m + j``
        the upper bound of ``x_j``, ``m + n + j`` its lower bound), a warm start for the next call.
    solver : numpy.ndarray
        Shape ``(B,)``, object: ``"batch"`` or the fallback's solver name (``LPResult.solver``).
    iterations : int
        Pivots done (the largest over the batch).
    """

    status: np.ndarray
    x: np.ndarray
    fun: np.ndarray
    basis: np.ndarray
    solver: np.ndarray
    iterations: int = 0

    @property
    def n_fallback(self) -> int:
        """How many LPs the fallback (``polytopes.lp.solve_verified``) decided."""
        return len(self.solver) - self.solver.tolist().count("batch")


def _normalize(G, h):
    """``(G / s, h / s, zero, s)``: the rows divided by their norms ``s`` (B, m) (1 for a zero row,
    flagged in ``zero``)."""
    nrm = np.sqrt(np.einsum("bmn,bmn->bm", G, G))
    zero = nrm == 0.0
    s = np.where(zero, 1.0, nrm)
    return G / s[:, :, None], h / s, zero, s


def _default_basis(c, m, n):
    j = np.arange(n)
    return np.where(c <= 0.0, m + j, m + n + j)


def _artificial(artificial):
    """``(lower, upper)`` flags of artificial bounds from ``artificial``: ``None``, one (B, n) bool
    array for both bounds, or a pair of them."""
    if artificial is None:
        return None, None
    if isinstance(artificial, tuple):
        return np.asarray(artificial[0], dtype=bool), np.asarray(artificial[1], dtype=bool)
    a = np.asarray(artificial, dtype=bool)
    return a, a


def _inverse(FB):
    """Batched inverse; singular entries (a warm start may be singular) replaced by NaN."""
    try:
        return np.linalg.inv(FB)
    except np.linalg.LinAlgError:
        out = np.full(FB.shape, np.nan)
        good = np.abs(np.linalg.det(FB)) > 1e-13
        if np.any(good):
            out[good] = np.linalg.inv(FB[good])
        return out


_kernel_module = None  # polytopes.batchlp_kernel once imported (per call, an import statement costs a few µs)


def _compiled_module():
    """``polytopes.batchlp_kernel``, imported on first use (it imports numba, about 0.5 s)."""
    global _kernel_module
    if _kernel_module is None:
        from . import batchlp_kernel

        _kernel_module = batchlp_kernel
    return _kernel_module


def available() -> bool:
    """Whether the compiled kernel can run (numba importable)."""
    return (_kernel_module or _compiled_module()).AVAILABLE


def preferred_kernel(n_lps: int) -> str:
    """The kernel worth using for about ``n_lps`` LPs.

    ``"compiled"`` when numba is installed and ``n_lps`` is at least ``COMPILED_MIN_LPS`` (loading
    it costs about a second per process), else ``"numpy"``. The choice depends on the problem
    only, never on what the process ran before (the two kernels' last bits differ; an answer must
    not depend on the process).

    Parameters
    ----------
    n_lps : int
        How many LPs the caller is about to solve (in all its batches).

    Returns
    -------
    str
        ``"compiled"`` or ``"numpy"``, a ``kernel`` argument of ``solve_batch``.
    """
    if n_lps >= COMPILED_MIN_LPS:
        return "compiled" if available() else "numpy"
    return "numpy"


def _kernel(kernel: str) -> str:
    k = KERNEL if kernel == "auto" else kernel
    if (k == "compiled" or k == "auto") and _kernel_module is not None and _kernel_module.AVAILABLE:
        return "compiled"  # the common case of a control step, without the checks below
    if k not in KERNELS:
        raise ValueError(f"kernel: must be one of {KERNELS}, got {kernel!r}")
    if k == "auto":
        k = "compiled" if available() else "numpy"
    if k == "compiled" and not available():
        raise ValueError("kernel: 'compiled' needs numba: pip install 'contactmodes[compiled]'")
    return k


def simplex_batch(c, G, h, lo, hi, artificial=None, basis=None, max_iter: int | None = None,
                  kernel: str = "auto", infeasible_tol: float = 0.0) -> BatchResult:
    """The dual simplex of the module doc without the fallback.

    Each LP ``b`` is ``minimize c_b.x  s.t.  G_b x <= h_b,  lo_b <= x <= hi_b``; an answer the
    checks of ``polytopes.lp`` do not accept has status ``UNDECIDED``.

    Parameters
    ----------
    c : numpy.ndarray
        Shape ``(B, n)``: the costs.
    G : numpy.ndarray
        Shape ``(B, m, n)``: the inequality rows (any scale: divided by their norms here).
    h : numpy.ndarray
        Shape ``(B, m)``: their right-hand sides.
    lo : numpy.ndarray
        Shape ``(B, n)``: finite lower bounds of the variables.
    hi : numpy.ndarray
        Shape ``(B, n)``: finite upper bounds, ``lo <= hi``.
    artificial : numpy.ndarray or tuple[numpy.ndarray, numpy.ndarray] or None
        Which bounds are artificial (module doc): a ``(B, n)`` bool array (both bounds of those
        variables) or a pair ``(lower, upper)`` of them; ``None``: none.
    basis : numpy.ndarray or None
        Shape ``(B, n)``, int: warm starts (rows numbered as ``BatchResult.basis``), ignored where
        singular or not dual feasible; ``None``: the box vertex of the module doc.
    max_iter : int or None
        Pivots allowed each LP; ``None``: ``4 (m + 2n)``. LPs still open then are ``UNDECIDED``.
    kernel : str
        ``"auto"``, ``"numpy"`` or ``"compiled"`` (module doc).
    infeasible_tol : float
        An infeasibility is decided only when its Farkas certificate proves the caller's rows
        ``G x <= h``, each relaxed by ``infeasible_tol`` times the certificate's data scale (units
        of ``G`` and ``h``), still infeasible (``_beyond``), else the LP is ``UNDECIDED``; 0 (the
        default): any verified certificate decides.

    Returns
    -------
    BatchResult
        The batch's answers, ``UNDECIDED`` where none was verified.

    Raises
    ------
    ValueError
        When ``kernel`` is unknown, or ``"compiled"`` without numba.
    """
    c = np.asarray(c, dtype=float)
    Bn, n = c.shape
    m = G.shape[1]
    M = m + 2 * n
    if _kernel(kernel) == "compiled":
        return _compiled(c, G, h, lo, hi, artificial, basis, max_iter, infeasible_tol)
    Gn, hn, zero, nrm = _normalize(np.asarray(G, dtype=float), np.asarray(h, dtype=float))
    F = np.zeros((Bn, M, n))  # (B, m + 2n, n): [G; I; -I]
    F[:, :m] = Gn
    j = np.arange(n)
    F[:, m + j, j] = 1.0
    F[:, m + n + j, j] = -1.0
    f = np.concatenate([hn, hi, -lo], axis=1)
    art = np.zeros((Bn, M), dtype=bool)
    art_lo, art_hi = _artificial(artificial)
    if art_hi is not None:
        art[:, m:m + n] = art_hi
        art[:, m + n:] = art_lo
    status = np.full(Bn, UNDECIDED)
    bad_row = zero & (hn < 0.0)
    trivially = np.any(bad_row, axis=1)
    status[trivially] = lp.INFEASIBLE
    enter = np.where(trivially, np.argmax(bad_row, axis=1), -1) if m else np.full(Bn, -1)  # Farkas row of a claim
    default = _default_basis(c, m, n)
    bidx = np.arange(Bn)[:, None]
    if basis is None:
        basis = default
        Binv = F[bidx, basis]  # ±I: its own inverse
    else:
        basis = np.where((basis >= 0) & (basis < M), basis, default)
        Binv = _inverse(F[bidx, basis])
        y = -np.einsum("bji,bj->bi", Binv, c)
        mag = np.maximum(np.sum(np.abs(y), axis=1), 1e-300)
        good = np.all(np.isfinite(y), axis=1) & np.all(y >= -ENTER_TOL * mag[:, None], axis=1)
        if not np.all(good):
            basis = np.where(good[:, None], basis, default)
            Binv[~good] = F[np.flatnonzero(~good)[:, None], default[~good]]
    basis = basis.copy()
    live = np.flatnonzero(status == UNDECIDED)
    Binv = Binv[live]
    y = np.maximum(-np.einsum("bji,bj->bi", Binv, c[live]), 0.0)  # y_B = −F_B^{-T} c
    limit = max_iter if max_iter is not None else 4 * M
    it = 0
    # the live LPs' rows, basis and |f| (kept across pivots; compacted only when some LP finishes)
    Fl, fl, bl = F[live], f[live], basis[live]
    afl = np.abs(fl)
    ar = np.arange(live.size)
    while live.size and it <= limit:
        x = np.einsum("bij,bj->bi", Binv, fl[ar[:, None], bl])
        viol = np.einsum("bmn,bn->bm", Fl, x) - fl
        size = np.maximum(1.0, np.abs(x).max(axis=1))[:, None]
        scaled = viol / np.maximum(size, afl)
        r = scaled.argmax(axis=1)
        done = scaled[ar, r] <= ENTER_TOL
        if done.any():
            status[live[done]] = lp.OPTIMAL
            if done.all():
                break
            keep = ~done
            live, Binv, y, r, Fl, fl, afl, bl = (live[keep], Binv[keep], y[keep], r[keep], Fl[keep], fl[keep],
                                                 afl[keep], bl[keep])
            ar = np.arange(live.size)
        if it == limit:
            break
        alpha = np.einsum("bj,bji->bi", Fl[ar, r], Binv)  # F_r = α F_B
        pos = alpha > PIVOT_TOL
        ratio = np.divide(y, alpha, out=np.full(alpha.shape, np.inf), where=pos)
        leave = ratio.argmin(axis=1)  # first minimum: lowest basis position
        t = ratio[ar, leave]
        infeas = ~np.isfinite(t)
        if infeas.any():
            status[live[infeas]] = lp.INFEASIBLE
            enter[live[infeas]] = r[infeas]
            keep = ~infeas
            live, Binv, y, r, alpha, leave, t = (live[keep], Binv[keep], y[keep], r[keep], alpha[keep],
                                                 leave[keep], t[keep])
            Fl, fl, afl, bl = Fl[keep], fl[keep], afl[keep], bl[keep]
            if not live.size:
                break
            ar = np.arange(live.size)
        y = np.maximum(y - t[:, None] * alpha, 0.0)
        y[ar, leave] = t
        col = Binv[ar, :, leave] / alpha[ar, leave][:, None]  # new column `leave` of B^{-1}
        alpha[ar, leave] -= 1.0
        Binv = Binv - col[:, :, None] * alpha[:, None, :]
        bl[ar, leave] = r
        basis[live, leave] = r
        it += 1
    return _verify(c, F, f, art, n, status, basis, enter, it, infeasible_tol, nrm)


def _compiled(c, G, h, lo, hi, artificial, basis, max_iter, infeasible_tol: float = 0.0) -> BatchResult:
    """``simplex_batch`` through ``polytopes.batchlp_kernel.simplex_kernel``."""
    batchlp_kernel = _compiled_module()
    Bn, n = c.shape
    m = G.shape[1]
    art = np.zeros((Bn, m + 2 * n), dtype=np.bool_)
    if artificial is not None:
        art_lo, art_hi = _artificial(artificial)
        art[:, m:m + n] = art_hi
        art[:, m + n:] = art_lo
    warm = basis is not None
    basis_in = np.ascontiguousarray(basis, dtype=np.int64) if warm else np.empty((Bn, n), dtype=np.int64)
    status = np.empty(Bn, dtype=np.int64)
    x = np.empty((Bn, n))
    fun = np.empty(Bn)
    basis_out = np.empty((Bn, n), dtype=np.int64)
    limit = max_iter if max_iter is not None else 4 * (m + 2 * n)
    f64 = np.ascontiguousarray
    ins = (f64(c, dtype=np.float64), f64(G, dtype=np.float64), f64(h, dtype=np.float64),
           f64(lo, dtype=np.float64), f64(hi, dtype=np.float64), art, basis_in)

    def solve(z: slice) -> int:  # the LPs z, each solved alone: the same answer in any slice
        return batchlp_kernel.simplex_kernel(*(a[z] for a in ins), warm, int(limit), status[z], x[z], fun[z],
                                             basis_out[z], float(infeasible_tol))

    it = max(_threads.run(solve, Bn))  # a large batch shared by threads (the kernel releases the GIL)
    return BatchResult(status, x, fun, basis_out, _batch_solver(Bn), int(it))


_BATCH_SOLVER = np.full(256, "batch", dtype=object)


def _batch_solver(Bn: int) -> np.ndarray:
    """``BatchResult.solver`` of ``Bn`` LPs decided by the batch: ``"batch"`` everywhere (a copy of
    a kept array: cheaper than ``np.full`` of an object array, per call of a control step)."""
    return _BATCH_SOLVER[:Bn].copy() if Bn <= _BATCH_SOLVER.size else np.full(Bn, "batch", dtype=object)


def _verify(c, F, f, art, n, status, basis, enter, iterations, infeasible_tol: float = 0.0,
            nrm=None) -> BatchResult:
    """Recompute every claim from its basis (a fresh inverse) and keep it only when the checks of
    ``polytopes.lp`` pass (module doc); a Farkas certificate also ``_beyond`` ``infeasible_tol``
    (``simplex_batch``; ``nrm`` (B, m) the norms of the caller's rows ``G``)."""
    Bn, M = F.shape[0], F.shape[1]
    x_out = np.full((Bn, n), np.nan)
    fun = np.full(Bn, np.nan)
    solver = _batch_solver(Bn)
    claimed = np.flatnonzero(status != UNDECIDED)
    if claimed.size == 0:
        return BatchResult(status, x_out, fun, basis, solver, iterations)
    bc = basis[claimed]
    Fc, fc, artc = F[claimed], f[claimed], art[claimed]
    cl = np.arange(claimed.size)[:, None]
    Binv = _inverse(Fc[cl, bc])
    x = np.einsum("bij,bj->bi", Binv, fc[cl, bc])
    opt = status[claimed] == lp.OPTIMAL
    good = np.zeros(claimed.size, dtype=bool)
    all_opt = bool(opt.all())
    if all_opt or opt.any():
        o = np.flatnonzero(opt)
        # the claims' arrays (no copies when every claim is an optimum: the usual case)
        Bo, co, xo, Fo, fo, ao, bo = (Binv, c[claimed], x, Fc, fc, artc, bc) if all_opt else \
            (Binv[o], c[claimed[o]], x[o], Fc[o], fc[o], artc[o], bc[o])
        yB = -np.einsum("bji,bj->bi", Bo, co)
        y = np.zeros((o.size, M))
        y[np.arange(o.size)[:, None], bo] = yB
        # the certificate must not lean on an artificial bound; it is checked with their
        # multipliers set to zero, so that it proves the caller's LP (without those bounds)
        ay = np.abs(y)
        leans = (ao & (ay > ART_TOL * ay.sum(axis=1, keepdims=True))).any(axis=1)
        y[ao] = 0.0
        z0, e0 = np.zeros((o.size, 0)), np.zeros((o.size, 0, n))
        good[o] = ~leans & lp.primal_ok(xo, Fo, fo, e0, z0) & lp.dual_ok(co, xo, y, z0, Fo, fo, e0, z0)
    if not all_opt:
        q = np.flatnonzero(~opt)
        r = np.maximum(enter[claimed[q]], 0)
        aq = np.arange(q.size)
        alpha = np.einsum("bj,bji->bi", Fc[q, r], Binv[q])  # F_r = α F_B
        yf = np.zeros((q.size, M))
        yf[aq[:, None], bc[q]] = -alpha
        yf[aq, r] += 1.0
        leans = np.any(artc[q] & (np.abs(yf) > ART_TOL * np.sum(np.abs(yf), axis=1, keepdims=True)), axis=1)
        yf[artc[q]] = 0.0
        z0, e0 = np.zeros((q.size, 0)), np.zeros((q.size, 0, n))
        good[q] = ~leans & lp.farkas_ok(yf, z0, Fc[q], fc[q], e0, z0)
        if infeasible_tol > 0.0:
            good[q] &= _beyond(yf, fc[q], nrm[claimed[q]], infeasible_tol)
    status[claimed[~good]] = UNDECIDED
    keep = opt & good
    x_out[claimed[keep]] = x[keep]
    fun[claimed[keep]] = np.sum(c[claimed[keep]] * x[keep], axis=1)
    return BatchResult(status, x_out, fun, basis, solver, iterations)


def _beyond(y, f, nrm, infeasible_tol: float) -> np.ndarray:
    """(K,) whether the Farkas certificates ``y`` (K, M) (over the normalized rows and the bound
    rows, right-hand sides ``f`` (K, M); ``nrm`` (K, m) the norms of the caller's ``m`` rows) prove
    the caller's LPs infeasible beyond ``infeasible_tol`` (``simplex_batch``): with ``y`` scaled
    to unit 1-norm, ``g = f.y`` and the caller's rows ``G_i x <= h_i`` each relaxed by ``δ``, the
    certificate's value is ``g + δ Σ y_i / ‖G_i‖`` (a bound row has norm 1), so it excludes every
    ``δ < −g / Σ y_i / ‖G_i‖``; it decides when that exceeds ``infeasible_tol`` times the
    certificate's own data scale ``max(1, Σ y_i |h_i| / Σ y_i / ‖G_i‖)``, i.e. when
    ``−g > infeasible_tol · max(Σ y_i / ‖G_i‖, Σ y_i |f_i|)``."""
    yp = np.maximum(y, 0.0)
    yp = yp / np.maximum(np.sum(np.abs(y), axis=1), 1e-300)[:, None]
    m = nrm.shape[1]
    inv = np.sum(yp[:, :m] / nrm, axis=1) + np.sum(yp[:, m:], axis=1)
    g = np.sum(yp * f, axis=1)
    return -g > infeasible_tol * np.maximum(inv, np.sum(yp * np.abs(f), axis=1))


def solve_batch(c, G, h, lo, hi, artificial=None, basis=None, max_iter: int | None = None,
                kernel: str = "auto") -> BatchResult:
    """Solve every LP of the batch (module doc).

    The vectorized dual simplex (``simplex_batch``), then ``polytopes.lp.solve_verified`` for each
    LP it did not decide — there without the artificial bounds, which may also answer
    ``lp.UNBOUNDED``.

    Parameters
    ----------
    c : numpy.ndarray
        Shape ``(B, n)``: the costs.
    G : numpy.ndarray
        Shape ``(B, m, n)``: the inequality rows.
    h : numpy.ndarray
        Shape ``(B, m)``: their right-hand sides.
    lo : numpy.ndarray
        Shape ``(B, n)``: finite lower bounds of the variables.
    hi : numpy.ndarray
        Shape ``(B, n)``: finite upper bounds, ``lo <= hi``.
    artificial : numpy.ndarray or tuple[numpy.ndarray, numpy.ndarray] or None
        Which bounds are artificial, as in ``simplex_batch``; the fallback drops them.
    basis : numpy.ndarray or None
        Shape ``(B, n)``, int: warm starts, as in ``simplex_batch``.
    max_iter : int or None
        Pivots allowed the simplex, as in ``simplex_batch``.
    kernel : str
        ``"auto"``, ``"numpy"`` or ``"compiled"`` (module doc).

    Returns
    -------
    BatchResult
        The answers, with no ``UNDECIDED`` entry.

    Raises
    ------
    NumericalError
        When the fallback cannot verify an LP.
    ValueError
        When ``kernel`` is unknown, or ``"compiled"`` without numba.
    """
    res = simplex_batch(c, G, h, lo, hi, artificial, basis, max_iter, kernel)
    undecided = res.status == UNDECIDED
    if not undecided.any():
        return res
    undecided = undecided.nonzero()[0]
    art_lo, art_hi = _artificial(artificial)
    for b in undecided:
        bounds = [(None if art_lo is not None and art_lo[b, j] else float(lo[b, j]),
                   None if art_hi is not None and art_hi[b, j] else float(hi[b, j])) for j in range(c.shape[1])]
        out = lp.solve_verified(c[b], G[b], h[b], bounds=bounds)
        res.status[b] = out.status
        res.solver[b] = out.solver
        if out.status == lp.OPTIMAL:
            res.x[b] = out.x
            res.fun[b] = out.fun
    return res


def _bucket(m: int, n: int) -> tuple[int, int]:
    """The padded size of an LP with ``m`` rows and ``n`` variables: a function of its own size
    only, so that its answer does not depend on the other LPs of a batch."""
    return -(-m // PAD_ROWS) * PAD_ROWS, -(-n // PAD_COLS) * PAD_COLS


def solve_padded(problems, fallback: bool = True, kernel: str = "numpy",
                 chunk: int = PADDED_CHUNK) -> tuple[np.ndarray, list[np.ndarray | None], np.ndarray]:
    """Solve LPs of different sizes together.

    Each LP is padded (zero rows ``0 <= 0``, variables fixed by ``lo = hi = 0`` with zero cost) to
    a size that depends on its own size only (multiples of ``PAD_ROWS`` rows and ``PAD_COLS``
    variables), so an LP gets the same answer, bit for bit, whatever else is solved with it; the
    LPs of one padded size are solved together (``solve_stacked`` of stacks of one LP).

    Parameters
    ----------
    problems : Sequence[tuple]
        ``N`` LPs, each ``(c, G, h, lo, hi, art_lo, art_hi)`` with shapes ``(n_i,)``,
        ``(m_i, n_i)``, ``(m_i,)``, ``(n_i,)``, ``(n_i,)`` and two ``(n_i,)`` bool arrays marking
        the artificial lower and upper bounds (``simplex_batch``).
    fallback : bool
        Solve by ``solve_batch`` (every LP decided) rather than ``simplex_batch``.
    kernel : str
        ``"auto"``, ``"numpy"`` or ``"compiled"`` (module doc).
    chunk : int
        At most this many LPs per batch (bounded memory).

    Returns
    -------
    status : numpy.ndarray
        Shape ``(N,)``, int: ``lp.OPTIMAL``, ``lp.INFEASIBLE``, ``lp.UNBOUNDED`` (fallback only)
        or, without the fallback, ``UNDECIDED``.
    x : list[numpy.ndarray | None]
        ``x[i]`` the optimal point ``(n_i,)`` of LP ``i``, or ``None``.
    fun : numpy.ndarray
        Shape ``(N,)``: the optimal values (NaN where not optimal).
    """
    solved = solve_stacked([tuple(np.asarray(a)[None] for a in p) for p in problems], fallback, kernel, chunk)
    status = np.array([st[0] for st, _, _ in solved], dtype=int).reshape(len(problems))
    fun = np.array([f[0] for _, _, f in solved], dtype=float).reshape(len(problems))
    xs = [x[0].copy() if st[0] == lp.OPTIMAL else None for st, x, _ in solved]
    return status, xs, fun


def solve_stacked(stacks, fallback: bool = True, kernel: str = "numpy",
                  chunk: int = PADDED_CHUNK) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``solve_padded`` of LPs given as stacks of one size each, without a Python loop over the LPs.

    Each LP is padded as ``solve_padded`` pads it and the stacks of one padded size are solved
    together, at most ``chunk`` LPs per batch, so each gets the answer ``solve_padded`` gives it,
    bit for bit.

    Parameters
    ----------
    stacks : Sequence[tuple]
        Each ``(c, G, h, lo, hi, art_lo, art_hi)`` with shapes ``(S, n)``, ``(S, m, n)``,
        ``(S, m)``, ``(S, n)``, ``(S, n)`` and two ``(S, n)`` bool arrays (``S``, ``m``, ``n`` per
        stack).
    fallback : bool
        Solve by ``solve_batch`` (every LP decided) rather than ``simplex_batch``.
    kernel : str
        ``"auto"``, ``"numpy"`` or ``"compiled"`` (module doc).
    chunk : int
        At most this many LPs per batch (bounded memory).

    Returns
    -------
    list[tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]]
        Per stack, ``(status, x, fun)``: shapes ``(S,)`` (int, as ``solve_padded``), ``(S, n)``
        (NaN where not optimal) and ``(S,)``.
    """
    out = []
    pieces: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # per padded size: (stack, start, stop)
    for k, (c, G, *_rest) in enumerate(stacks):
        S, m, n = G.shape
        out.append((np.full(S, UNDECIDED), np.full((S, n), np.nan), np.full(S, np.nan)))
        pieces.setdefault(_bucket(m, n), []).extend((k, a, min(S, a + chunk)) for a in range(0, S, chunk))
    for size, segs in pieces.items():
        batch: list[tuple[int, int, int]] = []
        n_lps = 0
        for k, a, b in segs:
            if n_lps + b - a > chunk:
                _solve_pieces(stacks, batch, size, out, fallback, kernel)
                batch, n_lps = [], 0
            batch.append((k, a, b))
            n_lps += b - a
        if batch:
            _solve_pieces(stacks, batch, size, out, fallback, kernel)
    return out


def _solve_pieces(stacks, pieces: list[tuple[int, int, int]], size: tuple[int, int], out: list,
                  fallback: bool, kernel: str) -> None:
    """Solve the LPs ``stacks[k][...][a:b]`` of ``pieces`` (``(k, a, b)``, one padded ``size``) in
    one batch and write their answers into ``out`` (``solve_stacked``'s)."""
    mp, np_ = size
    total = sum(b - a for _, a, b in pieces)
    cp, Gp, hp = np.zeros((total, np_)), np.zeros((total, mp, np_)), np.zeros((total, mp))
    lop, hip = np.zeros((total, np_)), np.zeros((total, np_))
    alp, ahp = np.zeros((total, np_), dtype=bool), np.zeros((total, np_), dtype=bool)
    at = 0
    for k, a, b in pieces:
        c, G, h, lo, hi, art_lo, art_hi = stacks[k]
        m, n = G.shape[1:]
        z = slice(at, at + b - a)
        cp[z, :n], Gp[z, :m, :n], hp[z, :m] = c[a:b], G[a:b], h[a:b]
        lop[z, :n], hip[z, :n], alp[z, :n], ahp[z, :n] = lo[a:b], hi[a:b], art_lo[a:b], art_hi[a:b]
        at += b - a
    res = (solve_batch if fallback else simplex_batch)(cp, Gp, hp, lop, hip, artificial=(alp, ahp), kernel=kernel)
    at = 0
    for k, a, b in pieces:
        n = stacks[k][1].shape[2]
        z = slice(at, at + b - a)
        opt = res.status[z] == lp.OPTIMAL
        status, x, fun = out[k]
        status[a:b] = res.status[z]
        fun[a:b] = res.fun[z]
        x[a:b][opt] = res.x[z][opt, :n]
        at += b - a
