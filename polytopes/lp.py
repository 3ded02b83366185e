"""The one front door for linear programs in ``polytopes`` (and its callers): verified answers.

Every LP of the package — and of ``contactmodes``/``controllers`` through ``solve`` — is solved
here, and every answer is a *claim checked before it is returned*:

* **optimal**: the point's primal residual (each row normalized, relative to
  ``max(1, ||x||_inf, |b_i|)``, ``tolerances.LP_PRIMAL_TOL``) and the dual certificate — dual
  feasibility (sign and stationarity) and a zero duality gap (``tolerances.LP_DUAL_TOL``). An
  optimum whose dual is missing or fails is still accepted when a second solver returns a
  primal-feasible point with the same objective value.
* **infeasible**: a Farkas certificate (``y >= 0``, ``G^T y + E^T z = 0``, ``h.y + f.z < 0``)
  checked in NumPy, or two independent solves agreeing (cddlib and HiGHS, or HiGHS with and
  without presolve).
* **unbounded**: a feasible point plus a verified ray (``G r <= 0``, ``E r = 0``, ``c.r < 0``), or
  two independent solves agreeing. With ``bounded=True`` (an LP bounded by construction, e.g. the
  capped max-slack LP) an "unbounded" claim is a solver error and never accepted.

Solvers: cddlib's dense simplex (pycddlib, no per-call set-up, ~0.1 ms) is a fast path for small
LPs (``tolerances.LP_SMALL_ROWS`` × ``LP_SMALL_COLS``); HiGHS (``highspy``) with presolve, then
without presolve, are the fallbacks (and the only solvers for larger LPs). An LP that no solver
decides consistently raises ``NumericalError`` (an internal failure, not a
``PolytopeError``).

Before solving, inequality and equality rows are divided by their Euclidean norms (the same LP,
so answers do not depend on how a row is scaled) and all-zero rows are decided in Python (never
passed to a solver).

Conventions: ``minimize c.x  s.t.  A_ub x <= b_ub,  A_eq x = b_eq,  bounds`` (SciPy's argument
names; ``bounds`` a pair ``(lo, hi)`` for every variable or a list of pairs, ``None`` for no bound;
the default is *free* variables, unlike SciPy).
"""

from __future__ import annotations

import math

import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

import cdd
import numpy as np

from ._quiet import quiet_c_stderr
from . import tolerances as tol
from .errors import NumericalError, PolytopeError
from ._linalg import row_norms

OPTIMAL, INFEASIBLE, UNBOUNDED = 0, 2, 3
_NAMES = {OPTIMAL: "optimal", INFEASIBLE: "infeasible", UNBOUNDED: "unbounded"}
SOLVERS = ("auto", "cdd", "highs")


@dataclass(frozen=True)
class LPResult:
    """A verified LP answer.

    Attributes
    ----------
    status : int
        ``OPTIMAL`` (0), ``INFEASIBLE`` (2) or ``UNBOUNDED`` (3).
    x : numpy.ndarray or None
        Shape ``(n,)``: the optimal point (also a feasible point for ``UNBOUNDED`` when one was
        verified), else ``None``.
    fun : float or None
        ``c.x`` at the optimum, else ``None``.
    solver : str
        Which solve produced the accepted claim (``"cdd"``, ``"highs"``, ``"highs-nopresolve"``,
        ``"python"`` for trivial rows).
    verified_by : str
        ``"certificate"`` (dual / Farkas / ray checked) or ``"agreement"`` (two independent solves
        agree).
    ray : numpy.ndarray or None
        Shape ``(n,)``: for ``UNBOUNDED`` from ``solve_many``, the verified direction of
        unboundedness, else ``None``.
    """

    status: int
    x: np.ndarray | None
    fun: float | None
    solver: str
    verified_by: str
    ray: np.ndarray | None = None


@dataclass
class _Claim:
    """One solver's unverified answer: dual ``y`` (>= 0, one per row of ``G``) and ``z`` (one per row
    of ``E``) in the convention ``c + G^T y + E^T z = 0``; ``ray`` a primal ray (unbounded) or a
    Farkas vector ``(y, z)`` stacked (infeasible)."""

    status: int | None
    solver: str
    x: np.ndarray | None = None
    y: np.ndarray | None = None
    z: np.ndarray | None = None
    ray: np.ndarray | None = None


# --------------------------------------------------------------------------- problem set-up -----
def _rows_and_bounds(n, A_ub, b_ub, bounds):
    """Stack ``A_ub x <= b_ub`` and the variable bounds into one inequality block ``G x <= h``."""
    if isinstance(bounds, tuple) and len(bounds) == 2 and not isinstance(bounds[0], (tuple, list)):
        if bounds[0] is None and bounds[1] is None:  # free variables (the default): no rows
            return (A_ub, b_ub) if A_ub is not None and A_ub.shape[0] else (np.zeros((0, n)), np.zeros(0))
        bounds = [bounds] * n
    if len(bounds) != n:
        raise PolytopeError(f"bounds: expected {n} pairs, got {len(bounds)}")
    idx, sign, rhs_b = [], [], []
    for j, (lo, hi) in enumerate(bounds):
        if hi is not None and math.isfinite(hi):
            idx.append(j); sign.append(1.0); rhs_b.append(float(hi))
        if lo is not None and math.isfinite(lo):
            idx.append(j); sign.append(-1.0); rhs_b.append(-float(lo))
    if not idx:
        if A_ub is not None and A_ub.shape[0]:
            return A_ub, b_ub
        return np.zeros((0, n)), np.zeros(0)
    B = np.zeros((len(idx), n))
    B[np.arange(len(idx)), idx] = sign
    if A_ub is not None and A_ub.shape[0]:
        return np.vstack([A_ub, B]), np.concatenate([b_ub, rhs_b])
    return B, np.array(rhs_b)


def _as_matrix(name, M, n):
    if M is None:
        return np.zeros((0, n))
    M = np.asarray(M, dtype=float)
    if M.size == 0:
        return np.zeros((0, n))
    if M.ndim != 2 or M.shape[1] != n:
        raise PolytopeError(f"{name}: expected shape (m, {n}), got {M.shape}")
    return M


def _as_vector(name, v, m):
    if m == 0:
        return np.zeros(0)
    v = np.asarray(v, dtype=float).reshape(-1)
    if v.shape != (m,):
        raise PolytopeError(f"{name}: expected shape ({m},), got {v.shape}")
    return v


def _normalized(M, v):
    """Rows divided by their norms; returns ``(M, v, zero_mask)`` (zero rows left as they are)."""
    if M.shape[0] == 0:
        return M, v, np.zeros(0, dtype=bool)
    nrm = np.sqrt(np.einsum("ij,ij->i", M, M))
    zero = nrm == 0
    s = np.where(zero, 1.0, nrm)
    return M / s[:, None], v / s, zero


# --------------------------------------------------------------------------- verification -------
# The checks are written for a batch of LPs (leading axis ``B``; rows of unit norm or zero, padded
# LPs carry zero rows with a non-negative right-hand side): ``polytopes.batchlp`` verifies its
# answers with them. The single-LP front door uses the scalar forms below (``_primal_ok``,
# ``_dual_ok``, ``_farkas_ok``: the same rules without the batch axis, cheaper for one LP).
def primal_ok(x, G, h, E, f) -> np.ndarray:
    """Whether each point ``x`` satisfies ``G x <= h`` and ``E x = f``, for a batch of ``B`` LPs.

    Each violation may be at most ``LP_PRIMAL_TOL · max(1, ||x||_inf, |h_i|)`` (rows of unit norm
    or zero).

    Parameters
    ----------
    x : numpy.ndarray
        Shape ``(B, n)``: the points.
    G : numpy.ndarray
        Shape ``(B, m, n)``.
    h : numpy.ndarray
        Shape ``(B, m)``.
    E : numpy.ndarray
        Shape ``(B, p, n)`` (``p`` may be 0).
    f : numpy.ndarray
        Shape ``(B, p)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(B,)``, bool.
    """
    finite = np.isfinite(x)
    ok = finite.all(axis=1)
    size = np.maximum(1.0, np.abs(np.where(finite, x, 0.0)).max(axis=1, initial=0.0))[:, None]
    if G.shape[1]:
        viol = np.einsum("bmn,bn->bm", G, x) - h
        ok &= ~(viol > tol.LP_PRIMAL_TOL * np.maximum(size, np.abs(h))).any(axis=1)
    if E.shape[1]:
        res = np.abs(np.einsum("bmn,bn->bm", E, x) - f)
        ok &= ~(res > tol.LP_PRIMAL_TOL * np.maximum(size, np.abs(f))).any(axis=1)
    return ok


def dual_ok(c, x, y, z, G, h, E, f) -> np.ndarray:
    """Dual feasibility and a zero duality gap, for a batch of ``B`` LPs ``min c.x, G x <= h, E x = f``.

    Sign (``y >= 0``) and stationarity (``c + G^T y + E^T z = 0``) within ``LP_DUAL_TOL`` of the
    multipliers' size, and ``|c.x - (-h.y - f.z)|`` within ``LP_DUAL_TOL`` of the terms' sizes (rows
    of unit norm).

    Parameters
    ----------
    c : numpy.ndarray
        Shape ``(B, n)``: the costs.
    x : numpy.ndarray
        Shape ``(B, n)``: the claimed optima.
    y : numpy.ndarray
        Shape ``(B, m)``: the inequality multipliers.
    z : numpy.ndarray
        Shape ``(B, p)``: the equality multipliers.
    G : numpy.ndarray
        Shape ``(B, m, n)``.
    h : numpy.ndarray
        Shape ``(B, m)``.
    E : numpy.ndarray
        Shape ``(B, p, n)`` (``p`` may be 0).
    f : numpy.ndarray
        Shape ``(B, p)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(B,)``, bool.
    """
    ay = np.abs(y)
    ok = np.isfinite(y).all(axis=1)
    mag = np.abs(c).max(axis=1, initial=0.0) + ay.sum(axis=1)
    stat = c + np.einsum("bmn,bm->bn", G, y)
    dual = -(h * y).sum(axis=1)
    size = np.abs(h) * ay
    if z.shape[1]:  # the equality terms (without equalities they add zeros: skipped)
        az = np.abs(z)
        ok &= np.isfinite(z).all(axis=1)
        mag = mag + az.sum(axis=1)
        stat = stat + np.einsum("bmn,bm->bn", E, z)
        dual = dual - (f * z).sum(axis=1)
        size_eq = (np.abs(f) * az).sum(axis=1)
    mag = np.maximum(mag, 1e-300)
    ok &= ~(y < -tol.LP_DUAL_TOL * mag[:, None]).any(axis=1)
    ok &= np.abs(stat).max(axis=1, initial=0.0) <= tol.LP_DUAL_TOL * mag
    primal = (c * x).sum(axis=1)
    size = np.abs(primal) + size.sum(axis=1)
    if z.shape[1]:
        size = size + size_eq
    size = size + mag * np.maximum(1.0, np.abs(x).max(axis=1, initial=0.0))
    return ok & (np.abs(primal - dual) <= tol.LP_DUAL_TOL * size)


def farkas_ok(y, z, G, h, E, f) -> np.ndarray:
    """Whether ``(y, z)`` is a Farkas certificate of infeasibility of ``G x <= h, E x = f``, per LP.

    ``y >= 0``, ``G^T y + E^T z = rho ~ 0`` and ``g = h.y + f.z < 0``. Every feasible ``x`` would
    satisfy ``rho.x <= g``, so the certificate excludes all ``x`` with ``||x||_inf < |g| / ||rho||_1``;
    it is accepted when that radius exceeds ``max(1, |h|, |f|) / LP_DUAL_TOL`` (far beyond the data's
    own scale).

    Parameters
    ----------
    y : numpy.ndarray
        Shape ``(B, m)``: the inequality multipliers.
    z : numpy.ndarray
        Shape ``(B, p)``: the equality multipliers.
    G : numpy.ndarray
        Shape ``(B, m, n)``.
    h : numpy.ndarray
        Shape ``(B, m)``.
    E : numpy.ndarray
        Shape ``(B, p, n)`` (``p`` may be 0).
    f : numpy.ndarray
        Shape ``(B, p)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(B,)``, bool.
    """
    ok = np.all(np.isfinite(y), axis=1) & np.all(np.isfinite(z), axis=1)
    y = np.where(np.isfinite(y), y, 0.0)
    z = np.where(np.isfinite(z), z, 0.0)
    mag = np.sum(np.abs(y), axis=1) + np.sum(np.abs(z), axis=1)
    ok &= (mag > 0.0) & ~np.any(y < -tol.LP_DUAL_TOL * mag[:, None], axis=1)
    m = np.where(mag > 0.0, mag, 1.0)[:, None]
    y, z = np.maximum(y, 0.0) / m, z / m
    g = np.sum(h * y, axis=1) + np.sum(f * z, axis=1)
    ok &= g < -tol.LP_DUAL_TOL * (np.sum(np.abs(h) * y, axis=1) + np.sum(np.abs(f) * np.abs(z), axis=1))
    rho = np.sum(np.abs(np.einsum("bmn,bm->bn", G, y) + np.einsum("bmn,bm->bn", E, z)), axis=1)
    R = np.maximum(1.0, np.maximum(np.max(np.abs(h), axis=1, initial=0.0), np.max(np.abs(f), axis=1, initial=0.0)))
    return ok & (rho * R <= tol.LP_DUAL_TOL * np.abs(g))


def _primal_ok(x, G, h, E, f) -> bool:
    if x is None:
        return False
    size = float(np.abs(x).max(initial=0.0))
    if not math.isfinite(size):
        return False
    size = max(1.0, size)
    if G.shape[0]:
        viol = G @ x - h
        if (viol > tol.LP_PRIMAL_TOL * np.maximum(size, np.abs(h))).any():
            return False
    if E.shape[0]:
        res = np.abs(E @ x - f)
        if (res > tol.LP_PRIMAL_TOL * np.maximum(size, np.abs(f))).any():
            return False
    return True


def _dual_ok(c, x, y, z, G, h, E, f) -> bool:
    """Dual feasibility and zero gap for ``min c.x, G x <= h, E x = f`` (rows of unit norm)."""
    if y is None or z is None:
        return False
    ay, az = np.abs(y), np.abs(z)
    mag = float(np.abs(c).max(initial=0.0) + ay.sum() + az.sum())
    if not math.isfinite(mag):
        return False
    mag = max(mag, 1e-300)
    if (y < -tol.LP_DUAL_TOL * mag).any():
        return False
    stat = c + G.T @ y + E.T @ z
    if float(np.abs(stat).max(initial=0.0)) > tol.LP_DUAL_TOL * mag:
        return False
    primal = float(c @ x)
    dual = -float(h @ y) - float(f @ z)
    size = abs(primal) + float(np.abs(h) @ ay) + float(np.abs(f) @ az) \
        + mag * max(1.0, float(np.abs(x).max(initial=0.0)))
    return abs(primal - dual) <= tol.LP_DUAL_TOL * size


def _farkas_ok(y, z, G, h, E, f) -> bool:
    """A Farkas certificate of infeasibility: ``y >= 0``, ``G^T y + E^T z = rho ~ 0`` and
    ``g = h.y + f.z < 0``. Every feasible ``x`` would satisfy ``rho.x <= g``, so the certificate
    excludes all ``x`` with ``||x||_inf < |g| / ||rho||_1``; it is accepted when that radius exceeds
    ``max(1, |h|, |f|) / LP_DUAL_TOL`` (far beyond the data's own scale)."""
    if y is None or z is None or not (np.all(np.isfinite(y)) and np.all(np.isfinite(z))):
        return False
    mag = float(np.sum(np.abs(y)) + np.sum(np.abs(z)))
    if mag == 0.0 or np.any(y < -tol.LP_DUAL_TOL * mag):
        return False
    y, z = np.maximum(y, 0.0) / mag, z / mag
    g = float(h @ y + f @ z)
    if not g < -tol.LP_DUAL_TOL * float(np.abs(h) @ y + np.abs(f) @ np.abs(z)):
        return False
    rho = float(np.sum(np.abs(G.T @ y + E.T @ z)))
    R = max(1.0, float(np.max(np.abs(h), initial=0.0)), float(np.max(np.abs(f), initial=0.0)))
    return rho * R <= tol.LP_DUAL_TOL * abs(g)


def _ray_ok(c, r, G, E) -> bool:
    """``G r <= 0``, ``E r = 0``, ``c.r < 0`` (relative to ``||r||``): a direction of unboundedness."""
    if r is None or not np.all(np.isfinite(r)):
        return False
    nr = float(np.max(np.abs(r), initial=0.0))
    if nr == 0.0:
        return False
    r = r / nr
    if G.shape[0] and np.any(G @ r > tol.LP_PRIMAL_TOL):
        return False
    if E.shape[0] and np.any(np.abs(E @ r) > tol.LP_PRIMAL_TOL):
        return False
    return float(c @ r) < -tol.LP_DUAL_TOL * max(1.0, float(np.max(np.abs(c), initial=0.0)))


def rays_ok(costs, R, G, E) -> np.ndarray:
    """Which rays are verified directions of unboundedness, for many costs and rays at once.

    Ray ``r`` (scaled to ``||r||_inf = 1``) is one for cost ``c`` when ``G r <= LP_PRIMAL_TOL``,
    ``|E r| <= LP_PRIMAL_TOL`` and ``c.r < -LP_DUAL_TOL · max(1, ||c||_inf)``, over ``G x <= h,
    E x = f`` (any ``h``, ``f``; rows of unit norm or less).

    Parameters
    ----------
    costs : array_like
        Shape ``(c, n)``: the costs of ``min costs[i].x``.
    R : array_like
        Shape ``(r, n)``: the rays.
    G : numpy.ndarray
        Shape ``(m, n)``.
    E : numpy.ndarray
        Shape ``(p, n)`` (``p`` may be 0).

    Returns
    -------
    numpy.ndarray
        Shape ``(c, r)``, bool: entry ``[i, j]`` whether ray ``R[j]`` proves ``min costs[i].x``
        unbounded (a zero or non-finite ray never does).
    """
    R = np.asarray(R, dtype=float).reshape(-1, G.shape[1])
    costs = np.asarray(costs, dtype=float).reshape(-1, G.shape[1])
    nr = np.max(np.abs(R), axis=1, initial=0.0)
    good = np.all(np.isfinite(R), axis=1) & (nr > 0.0)
    Rn = R[good] / nr[good, None]
    ok = np.ones(len(Rn), dtype=bool)
    if G.shape[0]:
        ok &= np.all(G @ Rn.T <= tol.LP_PRIMAL_TOL, axis=0)
    if E.shape[0]:
        ok &= np.all(np.abs(E @ Rn.T) <= tol.LP_PRIMAL_TOL, axis=0)
    lim = -tol.LP_DUAL_TOL * np.maximum(1.0, np.max(np.abs(costs), axis=1, initial=0.0))
    out = np.zeros((len(costs), len(R)), dtype=bool)
    out[:, good] = ((costs @ Rn.T) < lim[:, None]) & ok[None, :]
    return out


# --------------------------------------------------------------------------- solvers ------------
_CDD_STATUS = {
    cdd.LPStatusType.OPTIMAL: OPTIMAL,
    cdd.LPStatusType.INCONSISTENT: INFEASIBLE,
    cdd.LPStatusType.STRUC_INCONSISTENT: INFEASIBLE,
    cdd.LPStatusType.DUAL_INCONSISTENT: UNBOUNDED,
    cdd.LPStatusType.STRUC_DUAL_INCONSISTENT: UNBOUNDED,
    cdd.LPStatusType.UNBOUNDED: UNBOUNDED,
}


def _cdd_matrix(G, h, E, f):
    """The cddlib H-matrix of ``G x <= h, E x = f`` (rows of unit norm; the row ``1 >= 0`` keeps
    cddlib well defined on a system without constraints)."""
    n = G.shape[1]
    m_g, m_e = G.shape[0], E.shape[0]
    array = np.zeros((m_g + m_e + 1, n + 1))
    array[:m_g, 0], array[:m_g, 1:] = h, -G
    array[m_g:m_g + m_e, 0], array[m_g:m_g + m_e, 1:] = f, -E
    array[-1, 0] = 1.0
    # a list of lists: pycddlib converts it ten times faster than an ndarray
    mat = cdd.matrix_from_array(array.tolist(), rep_type=cdd.RepType.INEQUALITY,
                                lin_set=set(range(m_g, m_g + m_e)))
    mat.obj_type = cdd.LPObjType.MIN
    return mat


def _cdd_claim(mat, c, m_g: int, m_e: int) -> _Claim:
    """cddlib's dense simplex on ``mat`` (``_cdd_matrix``) with cost ``c``; the dual solution
    is read in the convention of ``_Claim``."""
    mat.obj_func = [0.0, *c.tolist()]
    prog = cdd.linprog_from_matrix(mat)
    with quiet_c_stderr():  # cddlib's criss-cross fallback prints to fd 2 (polytopes._quiet)
        cdd.linprog_solve(prog)
    status = _CDD_STATUS.get(prog.status)
    if status == UNBOUNDED:  # cddlib leaves a direction of unboundedness as the "solution"
        return _Claim(status, "cdd", ray=np.asarray(prog.primal_solution, dtype=float))
    if status != OPTIMAL:
        return _Claim(status, "cdd")
    x = np.asarray(prog.primal_solution, dtype=float)
    y, z = np.zeros(m_g), np.zeros(m_e)
    for i, v in prog.dual_solution:
        if i < m_g:
            y[i] = -v
        elif i < m_g + m_e:
            z[i - m_g] = -v
    return _Claim(OPTIMAL, "cdd", x, y, z)


def _solve_cdd(c, G, h, E, f) -> _Claim:
    """cddlib's dense simplex on one LP (no row passed is all zero: _cdd_io guards against those;
    here the rows are unit vectors)."""
    return _cdd_claim(_cdd_matrix(G, h, E, f), c, G.shape[0], E.shape[0])


_local = threading.local()
_FD1_LOCK = threading.Lock()
"""Held while ``_highs_instance`` points file descriptor 1 at ``os.devnull``: two threads doing it at
once interleave their saves and restores, so that HiGHS's banner reaches the terminal and the
process's stdout can be left pointing at ``os.devnull`` (every later line of output lost)."""


def _highs_instance():
    """One quiet ``highspy.Highs`` per thread (its constructor prints a banner once per process,
    before any option can be set: stdout is silenced at file-descriptor level for that call)."""
    h = getattr(_local, "highs", None)
    if h is None:
        import highspy
        with _FD1_LOCK:  # fd 1 is the process's: threads building their instances take turns
            try:
                sys.stdout.flush()
                saved = os.dup(1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                try:
                    h = highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(devnull)
            except OSError:  # no usable fd 1: accept the banner
                h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("primal_feasibility_tolerance", tol.HIGHS_TOL)
        h.setOptionValue("dual_feasibility_tolerance", tol.HIGHS_TOL)
        _local.highs = h
    return h


def _solve_highs(c, G, h_, E, f, presolve: bool) -> _Claim:
    import highspy
    from scipy.sparse import csr_matrix

    name = "highs" if presolve else "highs-nopresolve"
    h = _highs_instance()
    h.clearModel()
    h.setOptionValue("presolve", "on" if presolve else "off")
    n = c.shape[0]
    inf = highspy.kHighsInf
    h.addVars(n, np.full(n, -inf), np.full(n, inf))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), c)
    M = np.vstack([G, E])
    lower = np.concatenate([np.full(G.shape[0], -inf), f])
    upper = np.concatenate([h_, f])
    if M.shape[0]:
        R = csr_matrix(M)
        h.addRows(M.shape[0], lower, upper, R.nnz, R.indptr[:-1].astype(np.int32),
                  R.indices.astype(np.int32), R.data)
    h.run()
    st = h.getModelStatus()
    MS = highspy.HighsModelStatus
    m_g = G.shape[0]
    if st == MS.kOptimal:
        sol = h.getSolution()
        x = np.asarray(sol.col_value, dtype=float)
        dual = -np.asarray(sol.row_dual, dtype=float)
        return _Claim(OPTIMAL, name, x, dual[:m_g], dual[m_g:])
    if st == MS.kInfeasible:
        ray: np.ndarray | None = None
        try:
            _, has, vals = h.getDualRay()
            if has:
                ray = -np.asarray(vals, dtype=float)
        except Exception:  # pragma: no cover - older highspy without rays
            ray = None
        return _Claim(INFEASIBLE, name, ray=ray)
    if st == MS.kUnbounded:
        ray, x = None, None  # type: ignore[assignment]
        try:
            _, has, vals = h.getPrimalRay()
            if has:
                ray = np.asarray(vals, dtype=float)
            x = np.asarray(h.getSolution().col_value, dtype=float)
        except Exception:  # pragma: no cover
            pass
        return _Claim(UNBOUNDED, name, x=x, ray=ray)
    return _Claim(None, name)  # infeasible-or-unbounded, time/iteration limits, errors


# --------------------------------------------------------------------------- front door ---------
def solve_verified(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(None, None),
                   solver: str = "auto", bounded: bool = False,
                   feasible_point: Any = None) -> LPResult:
    """Minimize ``c.x`` s.t. ``A_ub x <= b_ub``, ``A_eq x = b_eq``, ``bounds``; verified answer.

    Parameters
    ----------
    c : array_like
        Shape ``(n,)``: the costs.
    A_ub : array_like, optional
        Shape ``(m, n)``; ``None`` or empty: no inequality.
    b_ub : array_like, optional
        Shape ``(m,)``.
    A_eq : array_like, optional
        Shape ``(p, n)``; ``None`` or empty: no equality.
    b_eq : array_like, optional
        Shape ``(p,)``.
    bounds : tuple or list[tuple], optional
        As in SciPy: one pair ``(lo, hi)`` for every variable or a list of ``n`` pairs, ``None`` (or
        an infinity) for no bound; default: free variables.
    solver : str, optional
        ``"auto"`` (cdd for small LPs, then HiGHS), ``"cdd"`` (cdd first whatever the size),
        ``"highs"`` (HiGHS only).
    bounded : bool, optional
        ``True`` declares the LP bounded by construction: an "unbounded" claim is then treated as a
        solver error.
    feasible_point : array_like, optional
        Shape ``(n,)``: a point the caller believes feasible; it is checked, and saves a
        feasibility LP when a solver proves unboundedness by a ray alone.

    Returns
    -------
    LPResult
        The verified answer (module doc).

    Raises
    ------
    NumericalError
        When no solver's claim can be verified or two solvers' verified-looking claims cannot be
        reconciled.
    PolytopeError
        On malformed arguments: an unknown ``solver``, a shape mismatch (the field named), a NaN or
        infinite coefficient, a wrong number of ``bounds``.
    """
    if solver not in SOLVERS:
        raise PolytopeError(f"solver: expected one of {SOLVERS}, got {solver!r}")
    c = np.asarray(c, dtype=float).reshape(-1)
    n = c.shape[0]
    A_ub = _as_matrix("A_ub", A_ub, n)
    b_ub = _as_vector("b_ub", b_ub, A_ub.shape[0])
    A_eq = _as_matrix("A_eq", A_eq, n)
    b_eq = _as_vector("b_eq", b_eq, A_eq.shape[0])
    # one check (a NaN or an infinity makes the sum non-finite; so may an overflow, which the
    # loop then lets through); name the culprit only when it fails
    total = float(c.sum()) + float(A_ub.sum()) + float(b_ub.sum()) + float(A_eq.sum()) + float(b_eq.sum())
    if not math.isfinite(total):
        for name, v in (("c", c), ("A_ub", A_ub), ("b_ub", b_ub), ("A_eq", A_eq), ("b_eq", b_eq)):
            if not np.isfinite(v).all():
                raise PolytopeError(f"{name}: contains NaN or infinite values")
    G, h = _rows_and_bounds(n, A_ub, b_ub, bounds)
    G, h, gz = _normalized(G, h)
    E, f, ez = _normalized(A_eq, b_eq)
    # all-zero rows are decided here: 0 <= h_i, 0 = f_i
    if gz.any() or ez.any():
        if (h[gz] < 0.0).any() or (f[ez] != 0.0).any():
            return LPResult(INFEASIBLE, None, None, "python", "certificate")
        G, h, E, f = G[~gz], h[~gz], E[~ez], f[~ez]

    small = G.shape[0] + E.shape[0] <= tol.LP_SMALL_ROWS and n <= tol.LP_SMALL_COLS
    plan = []
    if solver == "cdd" or (solver == "auto" and small):
        plan.append("cdd")
    plan += ["highs", "highs-nopresolve"]

    claims: list[_Claim] = []
    for name in plan:
        try:
            if name == "cdd":
                cl = _solve_cdd(c, G, h, E, f)
            else:
                cl = _solve_highs(c, G, h, E, f, presolve=(name == "highs"))
        except (RuntimeError, ValueError) as exc:  # a solver failing outright is a claim too
            cl = _Claim(None, f"{name} ({exc})")
        if cl.status == OPTIMAL and _primal_ok(cl.x, G, h, E, f):
            if _dual_ok(c, cl.x, cl.y, cl.z, G, h, E, f):
                return LPResult(OPTIMAL, cl.x, float(c @ cl.x), cl.solver, "certificate")
        elif cl.status == INFEASIBLE and cl.ray is not None and \
                _farkas_ok(cl.ray[:G.shape[0]], cl.ray[G.shape[0]:], G, h, E, f):
            return LPResult(INFEASIBLE, None, None, cl.solver, "certificate")
        elif cl.status == UNBOUNDED and not bounded and _ray_ok(c, cl.ray, G, E):
            if _primal_ok(cl.x, G, h, E, f):
                return LPResult(UNBOUNDED, cl.x, None, cl.solver, "certificate")
            # a verified ray without a point (cddlib): a feasible point decides the rest
            point = _feasible_point(G, h, E, f, solver, feasible_point)
            if point.status == OPTIMAL:
                return LPResult(UNBOUNDED, point.x, None, cl.solver, "certificate")
            return LPResult(INFEASIBLE, None, None, point.solver, point.verified_by)
        elif cl.status == OPTIMAL:
            cl.status = None  # an "optimum" that is not even feasible: no claim
        claims.append(cl)
        agreed = _agreement(c, claims, bounded, G, h, E, f)
        if agreed is not None:
            return agreed
    if not bounded and any(cl.status in (UNBOUNDED, None) for cl in claims):
        decided = _decide_unbounded(c, G, h, E, f, solver, feasible_point)
        if decided is not None:
            return decided
    summary = ", ".join(f"{cl.solver}: {'undecided' if cl.status is None else _NAMES.get(cl.status, 'undecided')}"
                        for cl in claims)
    raise NumericalError(
        f"LP with {n} variables, {G.shape[0]} inequalities and {E.shape[0]} equalities could not "
        f"be solved reliably ({summary}{'; bounded by construction' if bounded else ''})")


def _feasible_point(G, h, E, f, solver: str, hint: Any = None) -> LPResult:
    """A verified point of ``G x <= h, E x = f`` (status ``OPTIMAL``) or verified infeasibility:
    the caller's ``hint`` when it passes the primal check, else the feasibility LP ``min 0``."""
    n = G.shape[1]
    if hint is not None:
        x0 = np.asarray(hint, dtype=float).reshape(-1)
        if x0.shape == (n,) and _primal_ok(x0, G, h, E, f):
            return LPResult(OPTIMAL, x0, 0.0, "caller", "certificate")
    return solve_verified(np.zeros(n), G, h, E, f, solver=solver, bounded=True)


def _decide_unbounded(c, G, h, E, f, solver: str, hint: Any = None) -> LPResult | None:
    """Second opinion when a solver claims "unbounded" without a usable ray, or reports
    "infeasible or unbounded" (HiGHS does on degenerate unbounded LPs): two LPs that are bounded by
    construction, each verified. A feasible point (``min 0``) and a direction of unboundedness
    (``min c.r`` s.t. ``G r <= 0``, ``E r = 0``, ``-1 <= r <= 1``) with ``c.r < 0`` prove
    unboundedness; ``None`` when they do not (the caller then reports the LP as undecided)."""
    point = _feasible_point(G, h, E, f, solver, hint)
    if point.status == INFEASIBLE:
        return LPResult(INFEASIBLE, None, None, point.solver, point.verified_by)
    if point.status != OPTIMAL:
        return None
    ray = solve_verified(c, G, np.zeros(G.shape[0]), E, np.zeros(E.shape[0]), bounds=(-1.0, 1.0),
                         solver=solver, bounded=True)
    if ray.status == OPTIMAL and _ray_ok(c, ray.x, G, E):
        return LPResult(UNBOUNDED, point.x, None, ray.solver, "certificate")
    return None


def _agreement(c, claims, bounded, G, h, E, f) -> LPResult | None:
    """Two independent claims that agree: same infeasible/unbounded status, or two primal-feasible
    optima with the same objective value (dual certificates failed to verify)."""
    if len(claims) < 2:
        return None
    last = claims[-1]
    for other in claims[:-1]:
        if last.status is None or other.status != last.status:
            continue
        if last.status == INFEASIBLE:
            return LPResult(INFEASIBLE, None, None, last.solver, "agreement")
        if last.status == UNBOUNDED and not bounded:
            x = last.x if _primal_ok(last.x, G, h, E, f) else None
            return LPResult(UNBOUNDED, x, None, last.solver, "agreement")
        if last.status == OPTIMAL:
            v1, v2 = float(c @ last.x), float(c @ other.x)
            size = max(1.0, abs(v1), abs(v2),
                       float(np.max(np.abs(c), initial=0.0)) * max(
                           float(np.max(np.abs(last.x), initial=0.0)),
                           float(np.max(np.abs(other.x), initial=0.0))))
            if abs(v1 - v2) <= tol.LP_DUAL_TOL * size:
                best = last if v1 <= v2 else other
                return LPResult(OPTIMAL, best.x, min(v1, v2), best.solver, "agreement")
    return None


def solve_many(costs, A_ub, b_ub, feasible_point: Any = None) -> list[LPResult]:
    """Minimize each ``costs[i].x`` over one system ``A_ub x <= b_ub`` with free variables.

    ``solve_verified`` for many objectives, with the rows normalized and cddlib's matrix built once
    (small LPs; larger ones go to ``solve_verified`` one by one). Every answer is verified as in
    ``solve_verified``: an optimum by its primal point and dual certificate; "unbounded" by cddlib's
    ray (``ray`` of the result) and a feasible point — the caller's ``feasible_point`` when it passes
    the primal check; a claim that fails goes through ``solve_verified`` on its own.

    Parameters
    ----------
    costs : array_like
        Shape ``(c, n)``: one cost per row.
    A_ub : array_like
        Shape ``(m, n)``.
    b_ub : array_like
        Shape ``(m,)``.
    feasible_point : array_like, optional
        Shape ``(n,)``: a point the caller believes feasible (checked).

    Returns
    -------
    list[LPResult]
        One per cost, in order.

    Raises
    ------
    PolytopeError
        On a shape mismatch or a NaN or infinite coefficient.
    NumericalError
        As ``solve_verified``.
    """
    A_ub = np.asarray(A_ub, dtype=float)
    n = A_ub.shape[1]
    costs = np.asarray(costs, dtype=float).reshape(-1, n)
    b_ub = _as_vector("b_ub", b_ub, A_ub.shape[0])
    if not (np.isfinite(costs).all() and np.isfinite(A_ub).all() and np.isfinite(b_ub).all()):
        raise PolytopeError("costs, A_ub, b_ub: contain NaN or infinite values")
    G, h, gz = _normalized(A_ub, b_ub)
    E, f = np.zeros((0, n)), np.zeros(0)
    if gz.any():  # all-zero rows: 0 <= h_i decides them for every cost
        if (h[gz] < 0.0).any():
            return [LPResult(INFEASIBLE, None, None, "python", "certificate") for _ in costs]
        G, h = G[~gz], h[~gz]
    fallback = lambda c: solve_verified(c, G, h, feasible_point=feasible_point)  # noqa: E731
    if G.shape[0] > tol.LP_SMALL_ROWS or n > tol.LP_SMALL_COLS:
        return [fallback(c) for c in costs]
    point = None
    if feasible_point is not None:
        x0 = np.asarray(feasible_point, dtype=float).reshape(-1)
        point = x0 if x0.shape == (n,) and _primal_ok(x0, G, h, E, f) else None
    try:
        mat = _cdd_matrix(G, h, E, f)
    except (RuntimeError, ValueError):
        return [fallback(c) for c in costs]
    out = []
    for c in costs:
        try:
            cl = _cdd_claim(mat, c, G.shape[0], 0)
        except (RuntimeError, ValueError):
            cl = _Claim(None, "cdd")
        if cl.status == OPTIMAL and _primal_ok(cl.x, G, h, E, f) and _dual_ok(c, cl.x, cl.y, cl.z, G, h, E, f):
            out.append(LPResult(OPTIMAL, cl.x, float(c @ cl.x), "cdd", "certificate"))
        elif cl.status == UNBOUNDED and point is not None and _ray_ok(c, cl.ray, G, E):
            out.append(LPResult(UNBOUNDED, point, None, "cdd", "certificate", ray=cl.ray))
        else:
            out.append(fallback(c))
    return out


def solve(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(None, None), solver="auto",
          bounded: bool = False, feasible_point: Any = None):
    """Minimize ``c.x`` s.t. ``A_ub x <= b_ub``, ``A_eq x = b_eq``, bounds; the answer verified.

    SciPy's convention, default free variables; ``solve_verified`` with a tuple for an answer (see
    the module docstring).

    Parameters
    ----------
    c : array_like
        Shape ``(n,)``: the costs.
    A_ub : array_like, optional
        Shape ``(m, n)``.
    b_ub : array_like, optional
        Shape ``(m,)``.
    A_eq : array_like, optional
        Shape ``(p, n)``.
    b_eq : array_like, optional
        Shape ``(p,)``.
    bounds : tuple or list[tuple], optional
        As in ``solve_verified`` (default: free variables).
    solver : str, optional
        ``"auto"``, ``"cdd"`` or ``"highs"`` (``solve_verified``).
    bounded : bool, optional
        The LP is bounded by construction (``solve_verified``).
    feasible_point : array_like, optional
        Shape ``(n,)``: a point believed feasible (``solve_verified``).

    Returns
    -------
    status : int
        ``OPTIMAL`` (0), ``INFEASIBLE`` (2) or ``UNBOUNDED`` (3).
    x : numpy.ndarray or None
        Shape ``(n,)``: the optimum, ``None`` unless optimal.
    fun : float or None
        ``c.x`` at the optimum, ``None`` unless optimal.

    Raises
    ------
    NumericalError
        When no solver's answer survives verification.
    PolytopeError
        On malformed arguments (``solve_verified``).
    """
    res = solve_verified(c, A_ub, b_ub, A_eq, b_eq, bounds, solver, bounded, feasible_point)
    if res.status != OPTIMAL:
        return res.status, None, None
    return OPTIMAL, res.x, res.fun


def support(A, b, C, d, direction) -> float:
    """Support function ``max {direction . x : A x <= b, C x = d}`` of the raw system.

    ``polytopes.Polytope.support`` applies the package's emptiness rule first; this function does
    not.

    Parameters
    ----------
    A : array_like
        Shape ``(m, n)``.
    b : array_like
        Shape ``(m,)``.
    C : array_like
        Shape ``(p, n)`` (may have no rows, or be ``None``).
    d : array_like
        Shape ``(p,)``.
    direction : array_like
        Shape ``(n,)``.

    Returns
    -------
    float
        The maximum; ``inf`` when unbounded and ``-inf`` when the system is infeasible (the
        supremum over the empty set).

    Raises
    ------
    NumericalError
        When the LP cannot be solved reliably (``solve_verified``).
    """
    direction = np.asarray(direction, dtype=float)
    st, x, fun = solve(-direction, A, b, C, d)
    if st == UNBOUNDED:
        return float("inf")
    if st == INFEASIBLE:
        return float("-inf")
    return -fun


def chebyshev(A, b, cap: float | None = None, weights=None):
    """Largest ball ``{z : ||z - c|| <= r}`` inside ``{z : A z <= b}`` (full space, no equalities).

    The LP ``max r  s.t.  a_i z + w_i r <= b_i,  0 <= r (<= cap)`` with ``w_i = ||a_i||`` unless
    ``weights`` are given.

    Parameters
    ----------
    A : numpy.ndarray
        Shape ``(m, k)``.
    b : array_like
        Shape ``(m,)``.
    cap : float, optional
        Upper bound on ``r`` (the LP is then bounded by construction); ``None``: none.
    weights : array_like, optional
        Shape ``(m,)``: the ``w_i`` (default the rows' Euclidean norms).

    Returns
    -------
    center : numpy.ndarray or None
        Shape ``(k,)``; ``None`` when infeasible or unbounded.
    radius : float or None
        ``r``; ``inf`` when unbounded (only without ``cap``), ``None`` when infeasible.

    Raises
    ------
    NumericalError
        When the LP cannot be solved reliably (``solve_verified``).
    """
    k = A.shape[1]
    w = row_norms(A) if weights is None else np.asarray(weights, dtype=float)
    A_ub = np.hstack([A, w[:, None]])
    c = np.zeros(k + 1)
    c[-1] = -1.0
    bounds = [(None, None)] * k + [(0.0, cap)]
    st, z, _ = solve(c, A_ub, b, None, None, bounds, bounded=cap is not None)
    if st == UNBOUNDED:
        return None, float("inf")
    if st == INFEASIBLE:
        return None, None
    return z[:k], float(z[-1])
