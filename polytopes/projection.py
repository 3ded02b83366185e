"""Projection of H-polytopes onto coordinate subspaces, verified before it is returned.

Methods:

``"fourier_motzkin"``
    Ours. Equalities are eliminated first by substitution (Gaussian pivot on the largest
    coefficient); the remaining variables are eliminated one at a time, always the one minimizing
    ``#pos * #neg`` (ties: smallest net growth). After each step: exact/scaled duplicate removal,
    Chernikov's rule in Imbert's form (a combined row whose history of original rows holds more
    than ``1 + |E ∪ I|`` rows is redundant, ``E`` and ``I`` the variables effectively and
    implicitly eliminated while producing it, i.e. those occurring in its history rows but not in
    it; Imbert 1990, "Fourier's elimination: which to choose?"; Chernikov 1965), and an LP
    redundancy removal (cdd within its row budget, else verified LPs) once the system exceeds
    ``tolerances.FM_LP_PRUNE_ROWS`` rows, after which histories restart from the pruned system.
``"block_elimination"``
    cddlib's block elimination (dual double description) on the reduced input; an output above
    ``tolerances.BLOCK_ELIMINATION_MAX_ROWS`` rows is refused (budget error) and it is reduced by
    the package's verified path (cdd canonicalization only within its crash-guard budget).
``"vertex"``
    Generators of the input with cdd (floating double description), keep the coordinates,
    convert back with cdd. Fragile (lost rays and facets on about 1 in 5 random inputs before
    verification existed): it is tried last among the float methods.
``"exact"``
    The package's decisions in floating point, the rest in rational arithmetic (PPL through
    ``polytopes.ppl_io``; needs pplpy): emptiness, affine hull, the projection's dimension and
    which rows can constrain it are decided by the rules every method uses, then the projection
    of the set's inner system and its facets are computed exactly and rounded to floats once
    (``polytopes._exact_projection``, whose docstring is the contract). Not verified again by
    LPs: its dimension is the rank decision's, its facets are exact for the decided rows.
``"support"``
    Ours (``polytopes._support_projection``). For at most three kept coordinates: verified
    support LPs only — two for one dimension, the Bretl–Lall incremental hull of support points
    for two and three — so the cost grows with the facets of the result, not with the
    eliminated variables. Refused (``ProjectionBudgetError``) for an affine dimension above
    three, an unbounded two- or three-dimensional result, or more than
    ``SUPPORT_PROJECTION_MAX_LPS`` LPs.
``"auto"``
    The support method first when at most three coordinates are kept and more than
    ``AUTO_SUPPORT_MIN_ELIMINATED`` variables are eliminated (a box on 40 contacts: its
    one-torque domains over dozens of ambiguity variables took Fourier–Motzkin 175 s, two LPs
    here). Then Fourier–Motzkin first when at most ``AUTO_FM_MAX_ELIMINATED`` variables are
    eliminated, else block elimination first; then the other of the two, then vertex
    enumeration, then the exact method if pplpy is installed. The first result that passes verification is returned; if none
    does, ``NumericalError`` is raised. ``auto`` never returns an unverified set. A support-LP
    result of affine dimension at most 1 is certified by its construction (``_certified``: a point,
    or the interval between two verified support LPs whose maximizers lie over its ends) and is
    not checked again — the check would solve the same LPs (a box on 128 contacts: 2.5 s of
    ``analyze --json`` in the check of one interval).

Verification (``verify_projection``) of ``Q`` against ``P`` (``lift(u)`` puts ``u`` on the
kept coordinates): every facet ``a.y <= b`` and equality of ``Q`` is supported by ``P``
(``h_P(lift a) = b`` within ``PROJECTION_CHECK_TOL``: an invalid facet, a lost ray or a facet that
does not touch the projection fails); the supports of ``Q`` and ``P`` agree along the coordinate
axes and ``PROJECTION_CHECK_DIRECTIONS`` random directions (same boundedness); each vertex of
``Q`` lies in the projection of ``P`` and each ray (line) of ``Q`` lifts to a ray (line) of ``P``
(so a bounded ``P`` has a bounded ``Q`` and no facet is missing), up to
``PROJECTION_CHECK_MAX_GENERATORS`` generators; the projections of ``P``'s Chebyshev center and of
its maximizers along the check directions lie in ``Q``. Explicit float methods whose result fails
raise ``NumericalError`` naming the failed check. The support and membership LPs
of a verification (of all the verifications of ``verify_projections``, for
``project_many``) are solved together by the verified dual simplex of ``polytopes.batchlp``
when there are at least ``CHECK_BATCH_MIN_LPS`` (hull coordinates in the artificial box
``BATCH_LP_BOUND * scale``); an answer it does not certify goes to the single verified LP of
``polytopes.lp`` (as does the Chebyshev center). The batch's kernel is the one
``polytopes.batchlp.preferred_kernel`` picks for the number of LPs (a choice by the problem's
size). Two shortcuts keep single LPs rare, each proving exactly what the single LP would: the
distance LPs (vertex membership, ray lifting) carry perturbed costs in the batch
(``CHECK_COST_PERTURBATION``: unperturbed, the dual simplex cycles on their degenerate optima)
and their verified points serve as primal witnesses (``t`` within tolerance proves the check;
anything else goes to the single unperturbed LP); and a check direction along which a verified
ray of ``Q`` and a verified recession direction of ``P`` (from the batch's ray LPs) both point
outward has both supports infinite, with no LP (``_unbounded_both``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import _cdd_io, _redundancy, lp, ppl_io
from . import tolerances as tol
from .errors import NumericalError, PolytopeError, ProjectionBudgetError
from ._exact_projection import exact_projection
from ._support_projection import SupportProjectionUnavailable, support_projection
from ._feasibility import feasibility, hull
from ._linalg import row_norms

if TYPE_CHECKING:  # pragma: no cover
    from .polytope import Polytope

METHODS = ("auto", "support", "fourier_motzkin", "block_elimination", "vertex", "exact")

CHECK_BATCH_MIN_LPS = 12
"""``verify_projections`` solves its check LPs in batches when there are at least this many
(a batch costs a few tenths of a millisecond, several single LPs); fewer are solved one by one as
the checks reach them (the two-link brace's one projection, 6 LPs: 0.5 ms less). A cost knob."""


def _normalize_maxabs(A, b):
    s = np.max(np.abs(A), axis=1) if A.shape[0] else np.zeros(0)
    s = np.where(s > 0, s, 1.0)
    return A / s[:, None], b / s


def _substitute_equalities(A, b, C, d, elim: np.ndarray):
    """Eliminate variables ``elim`` (bool mask) using equalities. Returns updated arrays and mask
    of variables still to eliminate; ``None`` for ``A`` if the equalities are inconsistent."""
    A, b, C, d = A.copy(), b.copy(), C.copy(), d.copy()
    elim = elim.copy()
    while C.shape[0] and np.any(elim):
        C, d = _normalize_maxabs(C, d)
        sub = np.abs(C[:, elim])
        if sub.size == 0 or sub.max() <= tol.COEF_ZERO_TOL:
            break
        k, jj = np.unravel_index(np.argmax(sub), sub.shape)
        j = np.flatnonzero(elim)[jj]
        row, rhs = C[k] / C[k, j], d[k] / C[k, j]
        A, b = A - np.outer(A[:, j], row), b - A[:, j] * rhs
        C, d = np.delete(C, k, 0), np.delete(d, k)
        C, d = C - np.outer(C[:, j], row), d - C[:, j] * rhs
        A[:, j] = 0.0
        C[:, j] = 0.0
        elim[j] = False
    if C.shape[0]:
        C, d = _normalize_maxabs(C, d)
        C[:, elim] = 0.0  # remaining coefficients on eliminated variables are numerically zero
        zero = np.all(np.abs(C) <= tol.COEF_ZERO_TOL, axis=1)
        if np.any(np.abs(d[zero]) > tol.FEASIBILITY_TOL * max(1.0, float(np.max(np.abs(d))))):
            return None, None, None, None, elim
        C, d = C[~zero], d[~zero]
    return A, b, C, d, elim


def _budget(n_rows: int, max_rows: int, j: int):
    raise ProjectionBudgetError(
        f"max_rows: Fourier-Motzkin would hold {n_rows} rows (> {max_rows}) after eliminating "
        f"variable {j}; use method='block_elimination' or method='vertex'")


def _restart(A, b):
    """Treat ``A x <= b`` as the original system: histories = identity, supports of its rows."""
    A, b = _normalize_maxabs(A, b)
    A[np.abs(A) <= tol.COEF_ZERO_TOL] = 0.0
    H = np.eye(A.shape[0], dtype=bool)
    A, b, H = _drop_dups(A, b, H)
    H = np.eye(A.shape[0], dtype=bool)
    S = (A != 0).astype(np.int64)
    return A, b, H, S


def _drop_dups(A, b, H):
    if A.shape[0] == 0:
        return A, b, H
    key = np.round(A, tol.DUPLICATE_DECIMALS) + 0.0
    order = np.lexsort((H.sum(axis=1), b) + tuple(key.T[::-1]))
    ks = key[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.any(ks[1:] != ks[:-1], axis=1)
    keep = np.sort(order[first])
    return A[keep], b[keep], H[keep]


def fourier_motzkin(A: np.ndarray, b: np.ndarray, C: np.ndarray, d: np.ndarray,
                    eliminate: Sequence[int], max_rows: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eliminate the variables ``eliminate`` from ``{A x <= b, C x = d}``.

    Fourier–Motzkin elimination with Chernikov/Imbert pruning (Imbert 1990; module doc). The
    output may still hold redundant rows (use ``Polytope.reduce``); an inconsistent system may
    come back as ``0 x <= -1``.

    Parameters
    ----------
    A : numpy.ndarray
        Shape ``(m, n)``: the inequality matrix.
    b : numpy.ndarray
        Shape ``(m,)``: its right-hand side.
    C : numpy.ndarray
        Shape ``(p, n)``: the equality matrix (``p`` may be 0).
    d : numpy.ndarray
        Shape ``(p,)``: its right-hand side.
    eliminate : Sequence[int]
        The variables to eliminate (indices into ``0 .. n - 1``).
    max_rows : int, optional
        Row budget of an intermediate system (default ``tolerances.DEFAULT_ROW_BUDGET``).

    Returns
    -------
    A : numpy.ndarray
        Shape ``(m', r)``: the inequality rows over the ``r = n - len(eliminate)`` remaining
        variables, in their original order (rows scaled to unit max-norm).
    b : numpy.ndarray
        Shape ``(m',)``.
    C : numpy.ndarray
        Shape ``(p', r)``: the equalities left after substitution.
    d : numpy.ndarray
        Shape ``(p',)``.

    Raises
    ------
    ProjectionBudgetError
        When an intermediate system would hold more than ``max_rows`` rows.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    C = np.asarray(C, dtype=float)
    d = np.asarray(d, dtype=float)
    m, n = A.shape
    max_rows = tol.DEFAULT_ROW_BUDGET if max_rows is None else int(max_rows)
    elim_mask = np.zeros(n, dtype=bool)
    elim_mask[list(eliminate)] = True
    keep_cols = np.flatnonzero(~elim_mask)
    k_out = keep_cols.size

    def _empty():
        return np.zeros((1, k_out)), np.array([-1.0]), np.zeros((0, k_out)), np.zeros(0)

    A, b, C, d, todo = _substitute_equalities(A, b, C, d, elim_mask)
    if A is None:
        return _empty()
    A, b = _normalize_maxabs(A, b)
    A[np.abs(A) <= tol.COEF_ZERO_TOL] = 0.0
    A, b, H, S = _restart(A, b)
    while np.any(todo):
        cand = np.flatnonzero(todo)
        pos = A[:, cand] > 0
        neg = A[:, cand] < 0
        npos, nneg = pos.sum(axis=0), neg.sum(axis=0)
        cost = npos * nneg
        growth = cost - npos - nneg
        j = cand[np.lexsort((growth, cost))[0]]
        todo[j] = False
        P = np.flatnonzero(A[:, j] > 0)
        Nn = np.flatnonzero(A[:, j] < 0)
        Z = np.flatnonzero(A[:, j] == 0)
        if P.size == 0 or Nn.size == 0:
            A, b, H = A[Z], b[Z], H[Z]
            continue
        # Imbert's rule: keep a combination only if |H| <= 1 + |vars that vanished from it|;
        # vanished vars are a subset of the support of its history rows (cheap pre-filter)
        Hp, Hn = H[P].astype(np.int64), H[Nn].astype(np.int64)
        hsize = Hp.sum(1)[:, None] + Hn.sum(1)[None, :] - Hp @ Hn.T
        Sp = (Hp @ S) > 0
        Sn = (Hn @ S) > 0
        Sp_, Sn_ = Sp.astype(np.int64), Sn.astype(np.int64)
        ssize = Sp_.sum(1)[:, None] + Sn_.sum(1)[None, :] - Sp_ @ Sn_.T
        ok = hsize <= ssize + 1
        n_pre = int(ok.sum()) + Z.size
        if n_pre > tol.FM_PREFILTER_FACTOR * max_rows:
            _budget(n_pre, max_rows, j)
        ip, iq = np.nonzero(ok)
        p, q = P[ip], Nn[iq]
        lam, mu = -A[q, j], A[p, j]
        newA = lam[:, None] * A[p] + mu[:, None] * A[q]
        newb = lam * b[p] + mu * b[q]
        newA[:, j] = 0.0
        # cancellation noise relative to the combined terms (not to the result, which may be
        # tiny): left in, normalization would blow a 1e-16 residue up into a spurious facet
        mag = lam[:, None] * np.abs(A[p]) + mu[:, None] * np.abs(A[q])
        newA[np.abs(newA) <= tol.COEF_ZERO_TOL * mag] = 0.0
        newH = H[p] | H[q]
        newA, newb = _normalize_maxabs(newA, newb)
        newA[np.abs(newA) <= tol.COEF_ZERO_TOL] = 0.0
        vanished = (Sp[ip] | Sn[iq]) & (newA == 0)
        exact = newH.sum(1) <= vanished.sum(1) + 1
        newA, newb, newH = newA[exact], newb[exact], newH[exact]
        if Z.size + newA.shape[0] > max_rows:
            _budget(Z.size + newA.shape[0], max_rows, j)
        zero = ~np.any(newA != 0, axis=1)
        scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
        if np.any(newb[zero] < -tol.FEASIBILITY_TOL * scale):
            return _empty()
        nz = ~zero
        A = np.vstack([A[Z], newA[nz]])
        b = np.concatenate([b[Z], newb[nz]])
        H = np.vstack([H[Z], newH[nz]])
        A, b, H = _drop_dups(A, b, H)
        if A.shape[0] > tol.FM_LP_PRUNE_ROWS:
            keep = _lp_prune(A, b, C, d)
            if keep is None:
                return _empty()
            # the pruned system is an exact representation: restart histories from it
            A, b, H, S = _restart(A[keep], b[keep])
    A, C = A[:, keep_cols], C[:, keep_cols]
    return A + 0.0, b + 0.0, C + 0.0, d + 0.0


def _lp_prune(A, b, C, d):
    """Indices of rows to keep (implicit equalities and irredundant rows), ``None`` if empty.

    Emptiness and implicit equalities by the package's rule (``polytopes._feasibility``); the
    irredundant non-implicit rows by cddlib's redundancy removal on the clean inner system when
    within its budget (verified, ``polytopes._redundancy.irredundant_cdd``), else by LPs."""
    feas = feasibility(A, b, C, d)
    if feas.empty:
        return None
    h = hull(A, b, C, d, feas)
    implicit = np.flatnonzero(h.implicit & (row_norms(A) > 0))
    nv = row_norms(h.V)
    if h.V.shape[0] == 0:
        return implicit
    U, beta = h.V / nv[:, None], (h.gamma + h.relax) / nv
    k = _redundancy.dedup(U, beta)
    rest, U, beta = h.rows[k], U[k], beta[k]
    keep = _redundancy.irredundant_cdd(U, beta, feas.scale)
    if keep is None:
        keep = _redundancy.irredundant_in_hull(U, beta, feas.scale)
    return np.sort(np.concatenate([implicit, rest[keep]]))


def _check_keep(keep, n: int) -> list[int]:
    try:
        ks = [int(k) for k in keep]
    except (TypeError, ValueError) as exc:
        raise PolytopeError(f"keep: expected a sequence of coordinate indices ({exc})") from None
    if len(set(ks)) != len(ks):
        raise PolytopeError(f"keep: duplicate coordinates in {ks}")
    bad = [k for k in ks if not 0 <= k < n]
    if bad:
        raise PolytopeError(f"keep: coordinates {bad} out of range for dimension {n}")
    return ks


def _close(a: float, b: float, scale: float) -> bool:
    """Equal within ``PROJECTION_CHECK_TOL`` relative to ``scale``; values beyond
    ``EFFECTIVELY_INFINITE * scale`` count as infinite (double arithmetic cannot tell them apart)."""
    big = tol.EFFECTIVELY_INFINITE * scale
    a = np.inf if a > big else (-np.inf if a < -big else a)
    b = np.inf if b > big else (-np.inf if b < -big else b)
    if np.isinf(a) or np.isinf(b):
        return a == b
    return abs(a - b) <= tol.PROJECTION_CHECK_TOL * max(scale, abs(a), abs(b))


def _distance_lps(h, ks: list[int], g: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LPs ``min t  s.t.  V w <= g, |N[ks] w - r| <= t`` over the hull ``h`` of a set (affine
    dimension ``k >= 1``), one per row ``r`` of ``R`` (N, len(ks)), variables ``(w, t)``: one
    matrix for all, returns ``(c (k+1,), A_ub (m + 2 len(ks), k+1), b_ub (N, m + 2 len(ks)))``."""
    k = h.N.shape[1]
    M = h.N[ks]
    one = np.ones((len(ks), 1))
    A_ub = np.vstack([np.hstack([h.V, np.zeros((h.V.shape[0], 1))]),
                      np.hstack([M, -one]), np.hstack([-M, -one])])
    b_ub = np.hstack([np.broadcast_to(g, (len(R), h.V.shape[0])), R, -R])
    c = np.zeros(k + 1)
    c[-1] = 1.0
    return c, A_ub, b_ub


def _membership_lp(h, ks: list[int], Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LPs of ``_in_projection`` over the hull ``h`` of ``P`` (affine dimension ``k >= 1``)
    for the points ``Y`` (N, len(ks)): ``min t  s.t.  V w <= gamma + relax, |x0[ks] + N[ks] w - y|
    <= t``, variables ``(w, t)``, ``w`` free, ``t >= 0`` (``_distance_lps``)."""
    return _distance_lps(h, ks, h.gamma + h.relax, Y - h.x0[ks])


def _near(t: float, y: np.ndarray, scale: float) -> bool:
    """Whether a distance ``t`` of ``y`` (k,) to the projection is within ``PROJECTION_CHECK_TOL``."""
    return t <= tol.PROJECTION_CHECK_TOL * max(scale, float(np.max(np.abs(y), initial=0.0)))


def _in_projection(P: "Polytope", ks: list[int], y: np.ndarray, scale: float) -> bool:
    """Whether ``y`` (k,) lies within ``PROJECTION_CHECK_TOL`` of the projection of ``P``: one LP
    over ``P``'s affine-hull coordinates, ``min t  s.t.  V w <= gamma, |x0[ks] + N[ks] w - y| <= t``."""
    h = P.inner_system()
    assert h is not None  # callers pass non-empty sets
    k = h.N.shape[1]
    if k == 0:
        return _near(float(np.max(np.abs(y - h.x0[ks]), initial=0.0)), y, scale)
    c, A_ub, b_ub = _membership_lp(h, ks, y[None, :])
    st, _, fun = lp.solve(c, A_ub, b_ub[0], bounds=[(None, None)] * k + [(0.0, None)], bounded=True)
    return st == lp.OPTIMAL and _near(fun, y, scale)


def _lifts_to_ray(P: "Polytope", ks: list[int], r: np.ndarray) -> bool:
    """Whether the direction ``r`` (k,) is the projection of a recession direction of ``P``:
    ``V w <= 0, N[ks] w = r`` feasible (``r`` normalized to unit max-norm)."""
    h = P.inner_system()
    assert h is not None  # callers pass non-empty sets
    k = h.N.shape[1]
    r = r / max(float(np.max(np.abs(r))), 1e-300)
    if k == 0:
        return False
    # min t  s.t.  V w <= 0, |N[ks] w - r| <= t, |w| <= big: a direction exists iff t* ~ 0
    c, A_ub, b_ub = _distance_lps(h, ks, np.zeros(h.V.shape[0]), r[None, :])
    bound = tol.RAY_LP_BOUND
    st, _, fun = lp.solve(c, A_ub, b_ub[0], bounds=[(-bound, bound)] * k + [(0.0, None)],
                          bounded=True)
    return st == lp.OPTIMAL and fun <= tol.PROJECTION_CHECK_TOL


def _ray_directions(G) -> np.ndarray:
    """The directions whose lifts ``verify_projection`` checks (``_lifts_to_ray``), (N, k): the
    first ``PROJECTION_CHECK_MAX_GENERATORS`` rays, then as many lines, then those lines negated,
    each of unit max-norm."""
    lim = tol.PROJECTION_CHECK_MAX_GENERATORS
    R = np.vstack([G.rays[:lim], G.lines[:lim], -G.lines[:lim]])
    return R / np.maximum(np.abs(R).max(axis=1, initial=0.0), 1e-300)[:, None] if len(R) else R


def _perturbed(c: np.ndarray) -> np.ndarray:
    """The costs ``c`` (k + 1,) of a distance LP over ``(w, t)`` with ``± CHECK_COST_PERTURBATION``
    on ``w`` (``polytopes.tolerances``; magnitudes in ``[0.5, 1]`` fixed by ``k`` alone, so an
    LP's answer does not depend on the process): the batch's costs, whose optima serve only as
    primal witnesses."""
    k = c.size - 1
    rng = np.random.default_rng(2718)
    out = c.copy()
    out[:k] = tol.CHECK_COST_PERTURBATION * rng.uniform(0.5, 1.0, k) * rng.choice([-1.0, 1.0], k)
    return out


def _ray_stack(P: "Polytope", ks: list[int], R: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_lifts_to_ray``'s LPs for the unit directions ``R`` (N, len(ks)) as a stack of
    ``polytopes.batchlp.solve_stacked``: the same constraints (``|w| <= tol.RAY_LP_BOUND`` a real
    bound), ``0 <= t`` below an artificial bound (``t* <= 1`` at ``w = 0``: never leaned on), the
    costs ``_perturbed`` (an optimum is a primal witness: its ``t``, not its value, is read)."""
    h = P.inner_system()
    assert h is not None  # callers pass non-empty sets
    N, k = len(R), h.N.shape[1]
    c, A_ub, b_ub = _distance_lps(h, ks, np.zeros(h.V.shape[0]), R)
    c = _perturbed(c)
    lo, hi = np.append(np.full(k, -tol.RAY_LP_BOUND), 0.0), np.append(np.full(k, tol.RAY_LP_BOUND), tol.BATCH_LP_BOUND)
    art_lo, art_hi = np.zeros(k + 1, dtype=bool), np.append(np.zeros(k, dtype=bool), True)
    return (np.broadcast_to(c, (N, k + 1)), np.broadcast_to(A_ub, (N, *A_ub.shape)), b_ub,
            *(np.broadcast_to(v, (N, k + 1)) for v in (lo, hi, art_lo, art_hi)))


def _lifts(P: "Polytope", ks: list[int], R: np.ndarray, answers, i: int) -> bool:
    """``_lifts_to_ray(P, ks, R[i])``: true from the batch's ``answers`` to ``_ray_stack`` where
    its verified point has ``t`` within ``PROJECTION_CHECK_TOL`` (a primal witness), else decided
    by the single unperturbed LP."""
    if answers is not None and answers[0][i] == lp.OPTIMAL and answers[1][i, -1] <= tol.PROJECTION_CHECK_TOL:
        return True
    return _lifts_to_ray(P, ks, R[i])


def _unbounded_both(ch: "_Checks", answers: dict, i: int) -> bool:
    """Whether ``Q`` and ``P`` are both proven unbounded along the check direction ``ch.dirs[i]``
    (``u``) without an LP: some ray of ``Q``'s generators passes ``polytopes.lp.rays_ok`` for
    ``max u.y`` over ``Q`` (the test an unbounded answer of the single LP passes), and some point
    ``w`` of the batch's ray LPs (``_ray_stack``) passes it for ``max u.(N[ks] w)`` over ``V w <=
    0``, the recession cone of ``P``'s hull coordinates. Both supports are then ``inf``, as the
    single LPs would find."""
    if ch.R is None or "R" not in answers:
        return False
    u = ch.dirs[i]
    R = ch.R
    if not len(R) or not lp.rays_ok(-u[None, :], R, ch.Q.A, ch.Q.C)[0].any():
        return False
    status, X, _ = answers["R"]
    W = X[status == lp.OPTIMAL, :-1]
    h = ch.P.inner_system()
    if not len(W) or h is None:
        return False
    V = h.V / np.maximum(row_norms(h.V), 1e-300)[:, None]
    cost = -(u @ h.N[ch.ks])
    return bool(lp.rays_ok(cost[None, :], W, V, np.zeros((0, W.shape[1])))[0].any())


class _Supports:
    """``max d.x`` over a nonempty set ``S`` and a maximizer, for the rows ``d`` of ``D`` (B, n):
    ``value`` (B,) and ``points`` (B entries, (n,) or ``None``) are the batch's certified answers
    (NaN where it certified none); ``at(i)`` returns ``(value, maximizer)`` — the maximizer
    ``None`` when unbounded — from the batch, else from one LP (``Polytope.maximize``, the
    single-LP path), solved only when asked for."""

    def __init__(self, S: "Polytope", D: np.ndarray, value: np.ndarray,
                 points: list[np.ndarray | None]) -> None:
        self.S, self.D, self.value, self.points = S, D, value, points

    def at(self, i: int) -> tuple[float, np.ndarray | None]:
        if np.isnan(self.value[i]):
            return self.S.maximize(self.D[i])
        return float(self.value[i]), self.points[i]


def _batchable(h) -> bool:
    """Whether the LPs over a hull go to the batch: at least one hull coordinate and one inner row
    (the other sets are decided without an LP by the single-LP functions)."""
    return h.N.shape[1] > 0 and h.V.shape[0] > 0


def _membership_stack(P: "Polytope", ks: list[int], Y: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_in_projection``'s LPs for the points ``Y`` (N, len(ks)) as a stack of
    ``polytopes.batchlp.solve_stacked``: ``w`` in the artificial box ``|w| <= BATCH_LP_BOUND *
    scale``, ``0 <= t`` below it (that upper bound artificial too), the costs ``_perturbed`` (an
    optimum is a primal witness: its ``t`` is read)."""
    h = P.inner_system()
    assert h is not None  # callers pass non-empty sets
    N, k = len(Y), h.N.shape[1]
    c, A_ub, b_ub = _membership_lp(h, ks, Y)
    c = _perturbed(c)
    bound = tol.BATCH_LP_BOUND * P.data_scale
    lo, hi = np.append(np.full(k, -bound), 0.0), np.full(k + 1, bound)
    art_lo, art_hi = np.append(np.ones(k, dtype=bool), False), np.ones(k + 1, dtype=bool)
    return (np.broadcast_to(c, (N, k + 1)), np.broadcast_to(A_ub, (N, *A_ub.shape)), b_ub,
            *(np.broadcast_to(v, (N, k + 1)) for v in (lo, hi, art_lo, art_hi)))


def _supports_from(S: "Polytope", D: np.ndarray, answers: tuple[np.ndarray, np.ndarray, np.ndarray] | None
                   ) -> _Supports:
    """``_Supports`` of ``S`` along the rows of ``D`` (B, n) from the batch's ``answers`` to
    ``Polytope.support_lps`` (``None`` when the set's LPs were not batched): a value and a maximizer
    where it certified an optimum."""
    h = S.inner_system()
    assert h is not None  # callers pass non-empty sets
    value = np.full(len(D), np.nan)
    points: list[np.ndarray | None] = [None] * len(D)
    if answers is not None:
        status, W, fun = answers
        ok = status == lp.OPTIMAL
        value[ok] = (D @ h.x0)[ok] - fun[ok]
        X = h.x0 + W @ h.N.T
        for i in np.flatnonzero(ok):
            points[i] = X[i]
    return _Supports(S, D, value, points)


def _check_stacks(P: "Polytope", Q: "Polytope", ks: list[int], lifted: np.ndarray, dirs: np.ndarray,
                  Y: np.ndarray, R: np.ndarray | None = None) -> dict:
    """The LPs of ``verify_projection`` as stacks of ``polytopes.batchlp.solve_stacked``:
    ``"P"`` the supports of ``P`` along the rows of ``lifted`` (B, n), ``"Q"`` those of ``Q`` along
    ``dirs`` (D, k), ``"Y"`` the distances ``t`` of ``_in_projection`` of the points ``Y`` (N,
    k); a set without a hull coordinate or an inner row has none (its single LPs decide)."""
    stacks: dict[str, tuple[np.ndarray, ...]] = {}
    if _batchable(P.inner_system()):
        stacks["P"] = P.support_lps(lifted)
        stacks["Y"] = _membership_stack(P, ks, Y)
        if R is not None and len(R):
            stacks["R"] = _ray_stack(P, ks, R)
    if _batchable(Q.inner_system()):
        stacks["Q"] = Q.support_lps(dirs)
    return stacks


def _check_answers(P: "Polytope", Q: "Polytope", lifted: np.ndarray, dirs: np.ndarray, Y: np.ndarray,
                   answers: dict) -> tuple[_Supports, _Supports, np.ndarray]:
    """The batch's ``answers`` to ``_check_stacks`` (solved without the fallback, by the kernel
    ``polytopes.batchlp.preferred_kernel`` picks for their number: a choice by the problem's size)
    as the two ``_Supports`` and the distances ``t`` (N,) of the verified points of the perturbed
    membership LPs (upper bounds of the distances; NaN where the batch certified no optimum: the
    caller then asks the single-LP path, as it does where such a ``t`` is not small)."""
    t = np.full(len(Y), np.nan)
    if "Y" in answers:
        status, X, _ = answers["Y"]
        ok = status == lp.OPTIMAL
        t[ok] = X[ok, -1]
    return _supports_from(P, lifted, answers.get("P")), _supports_from(Q, dirs, answers.get("Q")), t


def verify_projection(P: "Polytope", Q: "Polytope", keep: Sequence[int]) -> str | None:
    """Check that ``Q`` is the projection of ``P`` onto ``keep`` (module docstring).

    The support LPs of ``P`` and ``Q`` and the membership LPs of ``Q``'s vertices are solved
    together by the verified batched dual simplex (``polytopes.batchlp``); an answer the batch
    does not certify (unbounded, or leaning on its artificial box) is found by one verified LP
    (``polytopes.lp``) when its check is reached.

    Parameters
    ----------
    P : Polytope
        The projected set, of dimension ``n``.
    Q : Polytope
        The claimed projection, of dimension ``len(keep)``, in reduced form (unit rows).
    keep : Sequence[int]
        The kept coordinates of ``P``, in ``Q``'s order.

    Returns
    -------
    str or None
        ``None`` when every check passes, else a sentence naming the first failed check.

    Raises
    ------
    NumericalError
        Only if a check LP cannot be solved reliably.
    """
    return verify_projections([(P, Q)], keep)[0]


def verify_projections(pairs: Sequence[tuple["Polytope", "Polytope"]], keep: Sequence[int]) -> list[str | None]:
    """``verify_projection`` of every pair, the check LPs of all pairs solved together.

    One batch per padded size (``polytopes.batchlp.solve_stacked``), the same checks in the same
    order for each pair.

    Parameters
    ----------
    pairs : Sequence[tuple[Polytope, Polytope]]
        The pairs ``(P, Q)``, each ``Q`` checked as the projection of its ``P`` onto ``keep``.
    keep : Sequence[int]
        The kept coordinates, valid for every ``P``.

    Returns
    -------
    list[str | None]
        Per pair, ``None`` where every check passes, else the first failed check's sentence.

    Raises
    ------
    NumericalError
        Only if a check LP cannot be solved reliably.
    """
    from . import batchlp

    ks = [int(k) for k in keep]
    setups = [_check_setup(P, Q, ks) for P, Q in pairs]
    stacks, owner = [], []
    for i, st in enumerate(setups):
        if isinstance(st, _Checks):
            for name, stack in st.stacks.items():
                stacks.append(stack)
                owner.append((i, name))
    answers: list[dict] = [{} for _ in pairs]
    total = sum(st[1].shape[0] for st in stacks)
    if total >= CHECK_BATCH_MIN_LPS:  # else the single LPs, asked one by one
        kernel = batchlp.preferred_kernel(total)
        for (i, name), ans in zip(owner, batchlp.solve_stacked(stacks, fallback=False, kernel=kernel)):
            answers[i][name] = ans
    return [_check_run(st, ans) if isinstance(st, _Checks) else st for st, ans in zip(setups, answers)]


@dataclass
class _Checks:
    """One verification after its LP-free checks (``_check_setup``): the pair, the kept
    coordinates ``ks``, ``P``'s data scale, ``Q``'s generators ``G`` (``None`` when cdd gave up), the
    check directions ``dirs`` (D, k), the support directions of ``P`` ``lifted`` (B, n: ``Q``'s
    facets, equalities both ways, then ``dirs``), the vertices ``V`` (N, k) whose membership is
    checked, the unit directions ``R`` of ``Q``'s rays and lines (``_ray_directions``; ``None``
    without generators) and the batch's stacks of ``_check_stacks``."""

    P: "Polytope"
    Q: "Polytope"
    ks: list[int]
    scale: float
    G: object
    dirs: np.ndarray
    lifted: np.ndarray
    V: np.ndarray
    R: np.ndarray | None
    stacks: dict


def _check_setup(P: "Polytope", Q: "Polytope", ks: list[int]) -> "_Checks | str | None":
    """The checks of ``verify_projection`` that need no LP of its own (emptiness, dimension;
    a reason or ``None`` when they decide), else its ``_Checks``."""
    n, k = P.dim, len(ks)
    if P.is_empty():
        return None if Q.is_empty() else "P is empty but the result is not"
    if Q.is_empty():
        return "P is nonempty but the result is empty"
    if Q.affine_dimension() > P.affine_dimension():
        return "the result has a larger affine dimension than P"
    try:  # first: the check directions depend on it, and all support LPs go in one batch
        G = Q.vertices()
    except (RuntimeError, ValueError, NumericalError):
        G = None  # cdd could not enumerate the result's generators: the support checks stand
    lim = tol.PROJECTION_CHECK_MAX_GENERATORS
    complete = G is not None and max(len(G.vertices), len(G.rays), len(G.lines)) <= lim
    # Q ⊆ proj(P) is shown by the generators of Q (when they are all checked); supports along a
    # few directions guard against a V-representation that misses some, many more without one
    rng = np.random.default_rng(12345)
    extra = tol.PROJECTION_CHECK_DIRECTIONS_WITH_GENERATORS if complete else tol.PROJECTION_CHECK_DIRECTIONS
    dirs = rng.standard_normal((extra, k))
    if not complete:
        dirs = np.vstack([np.eye(k), -np.eye(k), dirs])
    lifted = np.zeros((Q.n_ineq + 2 * Q.n_eq + len(dirs), n))
    lifted[:, ks] = np.vstack([Q.A, Q.C, -Q.C, dirs])
    V = G.vertices[:lim] if G is not None else np.zeros((0, k))
    R = _ray_directions(G) if G is not None else None
    return _Checks(P, Q, ks, P.data_scale, G, dirs, lifted, V, R, _check_stacks(P, Q, ks, lifted, dirs, V, R))


def _check_run(ch: _Checks, answers: dict) -> str | None:
    """The checks of ``verify_projection`` after its LP-free ones, from the batch's
    ``answers`` to ``ch.stacks`` (the single-LP path for what the batch did not certify)."""
    P, Q, ks, scale, G = ch.P, ch.Q, ch.ks, ch.scale, ch.G
    m, p = Q.n_ineq, Q.n_eq
    sp, sq, dist = _check_answers(P, Q, ch.lifted, ch.dirs, ch.V, answers)
    for i, (a, b) in enumerate(zip(Q.A, Q.b)):
        hp = sp.at(i)[0]
        if not _close(hp, float(b), scale):
            return f"facet {np.round(a, 6).tolist()} . y <= {b:.6g} is not supported by P (support {hp:.6g})"
    for i, (c, dd) in enumerate(zip(Q.C, Q.d)):
        if not (_close(sp.at(m + i)[0], float(dd), scale) and _close(-sp.at(m + p + i)[0], float(dd), scale)):
            return f"equality {np.round(c, 6).tolist()} . y = {dd:.6g} does not hold on P"
    points = []
    for i, u in enumerate(ch.dirs):
        if np.isnan(sq.value[i]) and np.isnan(sp.value[m + 2 * p + i]) and _unbounded_both(ch, answers, i):
            continue  # both supports inf, proven by rays: the single LPs would answer inf twice
        hq = sq.at(i)[0]
        hp, xp = sp.at(m + 2 * p + i)
        if not _close(hq, hp, scale):
            return f"supports differ along {np.round(u, 4).tolist()}: result {hq:.6g}, P {hp:.6g}"
        if xp is not None:
            points.append(xp[ks])
    ball = P.chebyshev_center()
    points.append(ball.center[ks])
    for y, inside in zip(points, Q.contains(np.array(points), tol=tol.PROJECTION_CHECK_TOL)):
        if not inside:
            return f"the projection of a point of P, {np.round(y, 6).tolist()}, is not in the result"
    if G is not None and ch.R is not None:  # R is set exactly when G is
        lim = tol.PROJECTION_CHECK_MAX_GENERATORS
        for v, tv in zip(ch.V, dist):
            inside = (not np.isnan(tv) and _near(float(tv), v, scale)) or _in_projection(P, ks, v, scale)
            if not inside:
                return f"vertex {np.round(v, 6).tolist()} of the result is not in the projection of P"
        R, rays, lines = ch.R, G.rays[:lim], G.lines[:lim]  # type: ignore[attr-defined]
        for i, r in enumerate(rays):
            if not _lifts(P, ks, R, answers.get("R"), i):
                return f"ray {np.round(r, 6).tolist()} of the result is not a direction of P"
        for i, line in enumerate(lines):
            j = len(rays) + i
            if not (_lifts(P, ks, R, answers.get("R"), j) and _lifts(P, ks, R, answers.get("R"), j + len(lines))):
                return f"line {np.round(line, 6).tolist()} of the result is not a direction of P"
    return None


def _clean_rows(A, b, scale):
    """Float elimination output cleaned of cancellation residue: each row scaled to unit max-norm,
    coefficients below ``COEF_ZERO_TOL`` zeroed, rows then ``0 <= b`` (``b >= 0``) dropped and
    rows farther from the origin than ``EFFECTIVELY_INFINITE * scale`` dropped (a ``1e-16`` residue
    left in would become a facet at ``1e16`` and poison the data scale)."""
    if A.shape[0] == 0:
        return A, b
    A, b = _normalize_maxabs(A, b)
    A = np.where(np.abs(A) <= tol.COEF_ZERO_TOL, 0.0, A)
    nrm = row_norms(A)
    far = np.abs(b) > tol.EFFECTIVELY_INFINITE * scale * np.maximum(nrm, 1e-300)
    trivial = (nrm == 0) & (b >= 0)
    keep = ~(trivial | (far & (nrm > 0)) | (far & (b >= 0)))
    return A[keep], b[keep]


def _project_with(P: "Polytope", ks: list[int], method: str, max_rows: int) -> "Polytope":
    """The projection by one method, reduced; not yet verified."""
    Q = _unreduced(P, ks, method, max_rows)
    return Q if method == "exact" else Q.reduce()


def _unreduced(P: "Polytope", ks: list[int], method: str, max_rows: int) -> "Polytope":
    """The projection by one method before its reduction (the exact method's is canonical
    already); not yet verified."""
    cls = type(P)  # results are of the input's class (no import of polytope.py: it imports us)
    n, k = P.dim, len(ks)
    eliminate = [j for j in range(n) if j not in set(ks)]
    if method == "exact":  # P is nonempty (``project`` decided it)
        return cls(*exact_projection(P, ks))
    if method == "support":
        try:
            return cls(*support_projection(P, ks))
        except SupportProjectionUnavailable as exc:
            raise ProjectionBudgetError(f"support: {exc}") from exc
    R = P.reduce()
    sorted_keep = sorted(ks)
    perm = [sorted_keep.index(kk) for kk in ks]
    if method == "fourier_motzkin":
        A, b, C, d = fourier_motzkin(R.A, R.b, R.C, R.d, eliminate, max_rows)
        Q = cls(A[:, perm], b, C[:, perm], d)
    elif method == "block_elimination":
        if not eliminate:
            A, b, C, d = R.A, R.b, R.C, R.d
        else:
            A, b, C, d = _cdd_io.block_eliminate(R.A, R.b, R.C, R.d, eliminate)
        rows = A.shape[0] + C.shape[0]
        if rows > min(max_rows, tol.BLOCK_ELIMINATION_MAX_ROWS):
            raise ProjectionBudgetError(
                f"max_rows: block elimination produced {rows} rows (> "
                f"{min(max_rows, tol.BLOCK_ELIMINATION_MAX_ROWS)}); use method='fourier_motzkin'")
        Q = cls(A[:, perm], b, C[:, perm], d)
    else:  # vertex
        G = R.vertices()
        ng = len(G.vertices) + len(G.rays) + len(G.lines)
        if ng > max_rows:
            raise ProjectionBudgetError(
                f"max_rows: vertex enumeration produced {ng} generators (> {max_rows}); use "
                f"method='fourier_motzkin' or method='block_elimination'")
        Q = cls.from_generators(G.vertices[:, ks], G.rays[:, ks], G.lines[:, ks], dim=k)
    A, b = _clean_rows(Q.A, Q.b, P.data_scale)
    return cls(A, b, Q.C, Q.d)


def _certified(method: str, Q: "Polytope") -> bool:
    """Whether the result ``Q`` of ``method`` is the projection by construction, so that
    ``verify_projection`` would only solve its LPs again: a support-LP result of affine dimension at
    most 1 (``polytopes._support_projection``) is a point, or the interval between two verified
    support LPs — their maximizers are points of ``P`` over its ends, their dual certificates bound
    it — within the projection's affine hull computed from ``P``'s by the package's one rule."""
    return method == "support" and Q.affine_dimension() <= 1


def _verified(P: "Polytope", Q: "Polytope", ks: list[int], method: str) -> str | None:
    """``verify_projection`` of ``Q``, the result of ``method``, unless ``_certified``."""
    return None if _certified(method, Q) else verify_projection(P, Q, ks)


def project(P: "Polytope", keep: Sequence[int], method: str = "auto",
            max_rows: int | None = None) -> "Polytope":
    """Projection of the polytope ``P`` onto the coordinates ``keep``, verified before it is returned.

    The result is ``{y : y = x[keep] for some x in P}`` with its coordinates in the order of
    ``keep``, reduced to a minimal H-representation (``Polytope.reduce``). The empty set projects
    to the empty set of dimension ``len(keep)``. With ``keep`` empty the result lives in ``R^0``
    (one point): ``universe(0)`` when ``P`` is not empty, ``empty(0)`` when it is (the package's
    one emptiness rule decides; no other LP). The methods and the verification are described
    in the module docstring.

    Parameters
    ----------
    P : Polytope
        The set to project, of dimension ``n`` (in the caller's units; the result is in the same
        units).
    keep : Sequence[int]
        The coordinates kept, ``k >= 0`` distinct indices in ``range(n)``, in the order wanted
        for the result.
    method : str, optional
        ``"auto"`` (default: the float methods in turn until one passes verification, then the
        exact one if pplpy is installed), ``"support"``, ``"fourier_motzkin"``,
        ``"block_elimination"``, ``"vertex"`` or ``"exact"`` (the package's decisions, then
        rational arithmetic: ``polytopes._exact_projection``; needs pplpy).
    max_rows : int, optional
        Row budget of an intermediate representation (default
        ``polytopes.tolerances.DEFAULT_ROW_BUDGET``).

    Returns
    -------
    Polytope
        The projection, of dimension ``k = len(keep)``, of the same class as ``P``.

    Raises
    ------
    PolytopeError
        When ``keep`` has an index out of range or a repeated one, ``method`` is not one of
        ``METHODS``, or ``method="exact"`` is asked for without pplpy.
    ProjectionBudgetError
        When an explicit method's intermediate representation would exceed ``max_rows`` rows.
    NumericalError
        When an explicit float method's result fails verification, or, for ``"auto"``, when
        every method fails and pplpy is not installed.

    See Also
    --------
    project_many : The same projections of many polytopes, their LPs solved together.
    Polytope.project : The method form, ``P.project(keep)``.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-E and Fig. 2: the torque set ``T_c`` of a mode is the
    projection of its domain ``D_c`` (eq. (33), over ``(τ, w)``) onto the torques ``τ``, by
    Fourier–Motzkin elimination followed by LP reduction.

    Examples
    --------
    A domain over ``(τ, w)``, ``τ - w <= 0.5``, ``w - τ <= 1``, ``0 <= w <= 1``, projected onto
    ``τ`` (the ambiguity variable ``w`` eliminated):

    >>> from polytopes import Polytope, project
    >>> D = Polytope([[1.0, -1.0], [-1.0, 1.0], [0.0, 1.0], [0.0, -1.0]], [0.5, 1.0, 1.0, 0.0])
    >>> T = project(D, [0])
    >>> T
    Polytope(dim=1, n_ineq=2, n_eq=0)
    >>> lo, hi = T.bounding_box()
    >>> float(lo[0]), float(hi[0])
    (-1.0, 1.5)
    >>> project(D, [0], method="fourier_motzkin").equals(T)
    True
    >>> project(Polytope.empty(3), [2]).is_empty()
    True
    >>> project(D, [2])
    Traceback (most recent call last):
    ...
    polytopes.errors.PolytopeError: keep: coordinates [2] out of range for dimension 2
    """
    cls = type(P)  # results are of the input's class (no import of polytope.py: it imports us)
    n = P.dim
    ks = _check_keep(keep, n)
    if method not in METHODS:
        raise PolytopeError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "exact" and not ppl_io.available():
        raise PolytopeError(ppl_io.INSTALL_HINT)
    max_rows = tol.DEFAULT_ROW_BUDGET if max_rows is None else int(max_rows)
    k = len(ks)
    if P.is_empty():
        return cls(*_redundancy.canonical_empty(k))
    if k == 0:  # onto R^0: its one point, since P is not empty (the one emptiness rule)
        return cls(np.zeros((0, 0)), np.zeros(0))
    if method == "exact":
        return _project_with(P, ks, "exact", max_rows)
    if method != "auto":
        Q = _project_with(P, ks, method, max_rows)
        reason = _verified(P, Q, ks, method)
        if reason is not None:
            raise NumericalError(f"projection by {method} failed verification ({reason}); "
                                 f"use method='auto' or method='exact'")
        return Q
    failures = []
    for mth in _auto_order(n - k, k):
        try:
            Q = _project_with(P, ks, mth, max_rows)
            reason = _verified(P, Q, ks, mth)
        except (ProjectionBudgetError, NumericalError, RuntimeError) as exc:
            reason = str(exc)
        if reason is None:
            return Q
        failures.append(f"{mth}: {reason}")
    if ppl_io.available():
        return _project_with(P, ks, "exact", max_rows)
    raise NumericalError("every projection method failed verification and pplpy (the exact "
                         "method, pip install 'contactmodes[exact]') is not installed: "
                         + "; ".join(failures))


def support_first(n_elim: int, n_keep: int) -> bool:
    """Whether ``project(method="auto")`` tries the support-LP method first.

    Parameters
    ----------
    n_elim : int
        Number of eliminated variables.
    n_keep : int
        Number of kept coordinates.

    Returns
    -------
    bool
        ``n_keep <= 3`` and ``n_elim > tolerances.AUTO_SUPPORT_MIN_ELIMINATED``. That method never
        reduces its input, so a caller holding an unreduced set may project it as it is.

    Examples
    --------
    >>> from polytopes.projection import support_first
    >>> support_first(40, 1), support_first(3, 1), support_first(40, 4)
    (True, False, False)
    """
    return n_keep <= 3 and n_elim > tol.AUTO_SUPPORT_MIN_ELIMINATED


def _auto_order(n_elim: int, n_keep: int) -> list[str]:
    """The float methods ``"auto"`` tries, in order, when ``n_elim`` variables are eliminated
    onto ``n_keep`` kept ones."""
    first = ["support"] if support_first(n_elim, n_keep) else []
    if n_elim <= tol.AUTO_FM_MAX_ELIMINATED:
        return first + ["fourier_motzkin", "block_elimination", "vertex"]
    return first + ["block_elimination", "fourier_motzkin", "vertex"]


def project_many(polytopes: Sequence["Polytope"], keep: Sequence[int], method: str = "auto",
                 max_rows: int | None = None) -> list["Polytope"]:
    """``project`` of every polytope of the sequence onto ``keep``: the same results, with the
    LPs of many sets solved together.

    The emptiness and hulls of the unreduced results (``prepare_many``), then those of the
    reduced ones with their sets', then the check LPs of every pair (``verify_projections``). A
    result of the first method that fails its check, or a method that raises, is done again by
    ``project`` (the other methods of ``"auto"``, or its error).

    Parameters
    ----------
    polytopes : Sequence[Polytope]
        The sets to project (their dimensions may differ).
    keep : Sequence[int]
        The kept coordinates, valid for each set, in the order wanted for the results.
    method : str
        As ``project``: ``"auto"`` (default) or one of ``METHODS``.
    max_rows : int, optional
        As ``project``.

    Returns
    -------
    list[Polytope]
        The projections, in the order of ``polytopes``, each of the class of the first.

    Raises
    ------
    PolytopeError
        When ``keep`` is invalid for a set or ``method`` is not one of ``METHODS``; otherwise as
        ``project`` (``ProjectionBudgetError``, ``NumericalError``).
    """
    polys = list(polytopes)
    if not polys:
        return []
    cls = type(polys[0])  # results are of the input's class (no import of polytope.py: it imports us)
    for P in polys:  # valid for each (they may differ in dimension)
        ks = _check_keep(keep, P.dim)
    if method not in METHODS:
        raise PolytopeError(f"method: expected one of {METHODS}, got {method!r}")
    if method == "exact" or len(polys) < 2 or not ks:  # onto R^0: each set's emptiness (in one batch)
        cls.are_empty(polys)
        return [project(P, keep, method, max_rows) for P in polys]
    budget = tol.DEFAULT_ROW_BUDGET if max_rows is None else int(max_rows)
    out: list["Polytope | None"] = [None] * len(polys)
    first = []  # (index, the first method's unreduced result)
    methods: dict[int, str] = {}
    for i, P in enumerate(polys):
        if P.is_empty():
            continue  # project(): the canonical empty set
        mth = methods[i] = _auto_order(P.dim - len(ks), len(ks))[0] if method == "auto" else method
        try:
            first.append((i, _unreduced(P, ks, mth, budget)))
        except (ProjectionBudgetError, NumericalError, RuntimeError):
            pass  # project() tries it again, and the others (or raises)
    try:  # a failure here leaves every set to project(), which meets it again where it belongs
        cls.prepare_many([Q for _, Q in first])
        reduced = []
        for i, Q in first:
            try:
                reduced.append((i, Q.reduce()))
            except (NumericalError, RuntimeError):
                pass
        cls.prepare_many([polys[i] for i, _ in reduced] + [R for _, R in reduced])
        for i, R in reduced:
            if _certified(methods[i], R):
                out[i] = R
        reduced = [(i, R) for i, R in reduced if out[i] is None]
        for (i, R), reason in zip(reduced, verify_projections([(polys[i], R) for i, R in reduced], ks)):
            if reason is None:
                out[i] = R
    except (NumericalError, RuntimeError):
        out = [None] * len(polys)
    return [Q if Q is not None else project(P, keep, method, max_rows) for P, Q in zip(polys, out)]
