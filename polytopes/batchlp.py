"""Many small dense LPs at once: a vectorized dual simplex whose every answer is verified.

The fast path of :mod:`polytopes.lp` for callers that solve dozens of tiny LPs of the same shape
per call (the RHex max-thrust controller: one LP per contact mode, every millisecond). One NumPy
operation advances every LP of the batch, so the Python overhead is paid once per pivot rather
than once per LP. It is a *fast path only*: an answer is returned as decided only after the same
checks :func:`polytopes.lp.solve_verified` applies (:func:`~polytopes.lp.primal_ok`,
:func:`~polytopes.lp.dual_ok`, :func:`~polytopes.lp.farkas_ok`); everything else is reported
``UNDECIDED`` and :func:`solve_batch` hands it to :func:`polytopes.lp.solve_verified` (cddlib, then
HiGHS; :class:`~polytopes.NumericalError` when nothing verifies).

Problem (per LP ``b`` of the batch, ``n`` variables, ``m`` rows)::

    minimize c_b.x   s.t.   G_b x <= h_b,   lo_b <= x <= hi_b        (lo, hi finite)

Equalities are passed as two rows. Rows are divided by their norms first (all-zero rows are
decided directly: ``0 <= h``). LPs of different sizes share a batch by padding: zero rows with
``h = 0`` and variables fixed by ``lo = hi = 0`` with zero cost.

*Artificial bounds.* A free variable is given a finite box by the caller (``artificial`` marks
those bounds, e.g. ``|w| <= 1e3`` on nondimensional data). Certificates are checked with the
multipliers of artificial bounds set to zero, so an accepted answer is an answer of the caller's
LP; one whose multipliers lean on the box at all (beyond rounding, :data:`ART_TOL`) is
``UNDECIDED`` (and solved by :mod:`polytopes.lp` without it).

Method: the dual simplex on the inequality form. A basis is ``n`` active rows (of ``G`` and the
bounds); the start is the box vertex whose bound rows carry the multipliers ``|c_j|`` (dual
feasible by construction), or a caller's *warm start* (e.g. the previous control step's optimal
basis) when it is nonsingular and dual feasible. Each pivot enters the most violated row and
leaves by the dual ratio test (ties to the lowest row index), updating ``F_B^{-1}`` by the
Sherman–Morrison formula; a basis whose entering row has no positive ratio coefficient yields a
Farkas certificate (``y_r = 1``, ``y_B = −α``). The final answers are recomputed from the basis by
a fresh solve before they are checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import lp
from . import tolerances as tol

__all__ = ["BatchResult", "UNDECIDED", "solve_batch", "simplex_batch"]

UNDECIDED = -1
"""Status of an LP the vectorized simplex did not decide (before the fallback)."""
ENTER_TOL = 1e-10
"""A normalized row enters the basis when violated by more than this × ``max(1, |x|_inf, |h_i|)``."""
PIVOT_TOL = 1e-9
"""Ratio-test coefficients at most this are treated as zero."""
ART_TOL = 1e-12
"""A certificate *leans on* an artificial bound when that bound's multiplier exceeds this fraction
of the multipliers' 1-norm (rounding level): such an answer is ``UNDECIDED``."""


@dataclass
class BatchResult:
    """Answers for a batch of ``B`` LPs (``n`` variables, ``m`` rows).

    ``status`` (B,): ``lp.OPTIMAL``, ``lp.INFEASIBLE`` (every LP here is bounded by its box), or
    :data:`UNDECIDED` (only from :func:`simplex_batch`). ``x`` (B, n): optimal points (NaN
    otherwise); ``fun`` (B,): ``c.x`` at the optimum (NaN otherwise); ``basis`` (B, n): the final
    basis of the simplex (row ``i < m`` of ``G``, ``m + j`` the upper bound of ``x_j``, ``m + n + j``
    its lower bound), a warm start for the next call; ``solver`` (B,) object: ``"batch"`` or the
    fallback's solver name; ``iterations``: pivots done (the largest over the batch).
    """

    status: np.ndarray
    x: np.ndarray
    fun: np.ndarray
    basis: np.ndarray
    solver: np.ndarray
    iterations: int = 0

    @property
    def n_fallback(self) -> int:
        """How many LPs the fallback (:func:`polytopes.lp.solve_verified`) decided."""
        return int(np.sum(self.solver != "batch"))


def _normalize(G, h):
    nrm = np.sqrt(np.einsum("bmn,bmn->bm", G, G))
    zero = nrm == 0.0
    s = np.where(zero, 1.0, nrm)
    return G / s[:, :, None], h / s, zero


def _default_basis(c, m, n):
    j = np.arange(n)
    return np.where(c <= 0.0, m + j, m + n + j)


def _rows(F, basis):
    return np.take_along_axis(F, basis[:, :, None], axis=1)


def simplex_batch(c, G, h, lo, hi, artificial=None, basis=None, max_iter: int | None = None) -> BatchResult:
    """The vectorized dual simplex of the module doc without the fallback.

    ``c`` (B, n), ``G`` (B, m, n), ``h`` (B, m), ``lo``, ``hi`` (B, n) finite with ``lo <= hi``;
    ``artificial`` (B, n) bool: the bounds of these variables are artificial (module doc);
    ``basis`` (B, n) int: warm starts (rows as in :class:`BatchResult`; ignored where singular or
    not dual feasible). Undecided LPs have status :data:`UNDECIDED`.
    """
    c = np.asarray(c, dtype=float)
    Bn, n = c.shape
    m = G.shape[1]
    Gn, hn, zero = _normalize(np.asarray(G, dtype=float), np.asarray(h, dtype=float))
    eye = np.broadcast_to(np.eye(n), (Bn, n, n))
    F = np.concatenate([Gn, eye, -eye], axis=1)  # (B, m + 2n, n)
    f = np.concatenate([hn, hi, -lo], axis=1)
    art = np.zeros((Bn, m + 2 * n), dtype=bool)
    if artificial is not None:
        art[:, m:m + n] = artificial
        art[:, m + n:] = artificial
    status = np.full(Bn, UNDECIDED)
    trivially = np.any(zero & (hn < 0.0), axis=1)
    status[trivially] = lp.INFEASIBLE
    enter = np.full(Bn, -1)  # the entering row of an infeasibility claim (its Farkas row)
    enter[trivially] = np.argmax(zero & (hn < 0.0), axis=1)[trivially]
    default = _default_basis(c, m, n)
    if basis is None:
        basis = default
    else:
        basis = np.where((basis >= 0) & (basis < m + 2 * n), basis, default)
        FB = _rows(F, basis)
        sign, logdet = np.linalg.slogdet(FB)
        good = (sign != 0) & (logdet > np.log(1e-10))
        if np.any(good):
            y = np.full((Bn, n), -1.0)
            y[good] = -np.linalg.solve(np.transpose(FB[good], (0, 2, 1)), c[good][:, :, None])[:, :, 0]
            mag = np.maximum(np.sum(np.abs(y), axis=1), 1e-300)
            good &= np.all(y >= -ENTER_TOL * mag[:, None], axis=1)
        basis = np.where(good[:, None], basis, default)
    basis = basis.copy()
    live = np.flatnonzero(status == UNDECIDED)
    FB = _rows(F[live], basis[live])
    Binv = np.linalg.inv(FB)
    y = -np.einsum("bji,bj->bi", Binv, c[live])  # y_B = −F_B^{-T} c
    y = np.maximum(y, 0.0)
    limit = max_iter if max_iter is not None else 4 * (m + 2 * n)
    it = 0
    while live.size and it <= limit:
        Fl, fl = F[live], f[live]
        fB = np.take_along_axis(fl, basis[live], axis=1)
        x = np.einsum("bij,bj->bi", Binv, fB)
        viol = np.einsum("bmn,bn->bm", Fl, x) - fl
        size = np.maximum(1.0, np.max(np.abs(x), axis=1))[:, None]
        scaled = viol / np.maximum(size, np.abs(fl))
        r = np.argmax(scaled, axis=1)
        worst = scaled[np.arange(live.size), r]
        done = worst <= ENTER_TOL
        status[live[done]] = lp.OPTIMAL
        if it == limit:
            break
        keep = ~done
        live, Binv, y, r, Fl = live[keep], Binv[keep], y[keep], r[keep], Fl[keep]
        if not live.size:
            break
        Fr = Fl[np.arange(live.size), r]  # (L, n)
        alpha = np.einsum("bj,bji->bi", Fr, Binv)  # F_r = α F_B
        pos = alpha > PIVOT_TOL
        ratio = np.where(pos, y / np.where(pos, alpha, 1.0), np.inf)
        leave = np.argmin(ratio, axis=1)  # first minimum: lowest basis position
        t = ratio[np.arange(live.size), leave]
        infeas = ~np.isfinite(t)
        if np.any(infeas):
            status[live[infeas]] = lp.INFEASIBLE
            enter[live[infeas]] = r[infeas]
            keep = ~infeas
            live, Binv, y, r, alpha, leave, t = (live[keep], Binv[keep], y[keep], r[keep], alpha[keep],
                                                 leave[keep], t[keep])
            if not live.size:
                break
        L = live.size
        ar = np.arange(L)
        y = np.maximum(y - t[:, None] * alpha, 0.0)
        y[ar, leave] = t
        a_l = alpha[ar, leave]
        col = Binv[ar, :, leave] / a_l[:, None]  # new column `leave` of B^{-1}
        upd = alpha.copy()
        upd[ar, leave] -= 1.0
        Binv = Binv - col[:, :, None] * upd[:, None, :]
        bl = basis[live]
        bl[ar, leave] = r
        basis[live] = bl
        it += 1
    return _verify(c, F, f, art, n, status, basis, enter, it)


def _verify(c, F, f, art, n, status, basis, enter, iterations) -> BatchResult:
    """Recompute every claim from its basis and keep it only when the checks of
    :mod:`polytopes.lp` pass (module doc)."""
    Bn = c.shape[0]
    x_out = np.full((Bn, n), np.nan)
    fun = np.full(Bn, np.nan)
    claimed = np.flatnonzero(status != UNDECIDED)
    FB = _rows(F[claimed], basis[claimed])
    solvable = np.isfinite(FB).all(axis=(1, 2)) & (np.abs(np.linalg.det(FB)) > 1e-13)
    status[claimed[~solvable]] = UNDECIDED
    claimed, FB = claimed[solvable], FB[solvable]
    if claimed.size:
        fB = np.take_along_axis(f[claimed], basis[claimed], axis=1)
        x = np.linalg.solve(FB, fB[:, :, None])[:, :, 0]
        yB = -np.linalg.solve(np.transpose(FB, (0, 2, 1)), c[claimed][:, :, None])[:, :, 0]
        M = F.shape[1]
        opt = status[claimed] == lp.OPTIMAL
        empty_p = np.zeros((claimed.size, 0, n))
        # optimal claims: primal point, dual multipliers on the basic rows; the certificates are
        # checked with the multipliers of artificial bounds set to zero, so that they prove the
        # caller's LP (without those bounds)
        y = np.zeros((claimed.size, M))
        np.put_along_axis(y, basis[claimed], yB, axis=1)
        Fc, fc, artc = F[claimed], f[claimed], art[claimed]
        leans = np.any(artc & (np.abs(y) > ART_TOL * np.sum(np.abs(y), axis=1, keepdims=True)), axis=1)
        y[artc] = 0.0
        z0 = np.zeros((claimed.size, 0))
        ok_opt = lp.primal_ok(x, Fc, fc, empty_p, z0) & lp.dual_ok(c[claimed], x, y, z0, Fc, fc, empty_p, z0) & ~leans
        # infeasibility claims: the entering row r without a ratio, y_r = 1, y_B = −α
        r = np.maximum(enter[claimed], 0)
        ar = np.arange(claimed.size)
        alpha = np.linalg.solve(np.transpose(FB, (0, 2, 1)), Fc[ar, r][:, :, None])[:, :, 0]
        yf = np.zeros((claimed.size, M))
        np.put_along_axis(yf, basis[claimed], -alpha, axis=1)
        yf[ar, r] += 1.0
        leans_f = np.any(artc & (np.abs(yf) > ART_TOL * np.sum(np.abs(yf), axis=1, keepdims=True)), axis=1)
        yf[artc] = 0.0
        ok_inf = lp.farkas_ok(yf, z0, Fc, fc, empty_p, z0) & ~leans_f
        good = np.where(opt, ok_opt, ok_inf)
        status[claimed[~good]] = UNDECIDED
        keep = opt & ok_opt
        x_out[claimed[keep]] = x[keep]
        fun[claimed[keep]] = np.sum(c[claimed[keep]] * x[keep], axis=1)
    solver = np.full(Bn, "batch", dtype=object)
    return BatchResult(status, x_out, fun, basis, solver, iterations)


def solve_batch(c, G, h, lo, hi, artificial=None, basis=None, max_iter: int | None = None) -> BatchResult:
    """Solve every LP of the batch (module doc): the vectorized dual simplex, then
    :func:`polytopes.lp.solve_verified` for each LP it did not decide — there without the
    artificial bounds (``artificial`` (B, n) bool), which may also answer ``lp.UNBOUNDED``.

    Arguments as :func:`simplex_batch`. Returns a :class:`BatchResult` with no :data:`UNDECIDED`
    entries. Raises :class:`~polytopes.NumericalError` when the fallback cannot verify an LP.
    """
    res = simplex_batch(c, G, h, lo, hi, artificial, basis, max_iter)
    for b in np.flatnonzero(res.status == UNDECIDED):
        bounds = [(None, None) if artificial is not None and artificial[b, j] else (float(lo[b, j]), float(hi[b, j]))
                  for j in range(c.shape[1])]
        out = lp.solve_verified(c[b], G[b], h[b], bounds=bounds)
        res.status[b] = out.status
        res.solver[b] = out.solver
        if out.status == lp.OPTIMAL:
            res.x[b] = out.x
            res.fun[b] = out.fun
    return res
