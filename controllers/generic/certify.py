"""Certificates that settle a candidate of the generic search without its slow path.

The fast path of ``controllers.generic.search`` accepts a candidate's bound maximizer ``τ°_c``
when the point test finds it in no other mode's ``T_c'``. When the test finds it in some, the
exact slow path (``controllers.generic.exact``) projects ``K = T_c ∩ L`` and the other modes'
``T_c'`` and computes the region difference of eq. (34) of the flipping paper: tens of
milliseconds. Two situations are common at the states where that happens — *twin modes*, two
modes differing at one contact (``S``/``L``, ``S``/``R``) whose domains coincide or touch, with
equal bounds — and each has a certificate that needs no projection, only the lifted domains
``D_c`` over ``(τ, w)`` (``contactmodes.realtime.plan.domain_lp_rows``) and a few LPs:

* **kept** — every ``T_c'`` holding ``τ°`` meets ``K`` in a set of lower dimension than ``K``.
  The affine hull of a projection is the projection of the affine hull, so the dimension of
  ``K ∩ T_c' = proj_τ{(τ, w, w') : (τ, w) ∈ D_c ∩ L, (τ, w') ∈ D_c'}`` is read off the lifted
  set's hull (``polytopes.Polytope.projected_dimension``). Such intersections remove nothing under
  the closure convention (``polytopes.regions``), and the other sets do not hold ``τ°``, so
  ``τ°`` lies in the closure of ``T*_c ∩ L`` and attains the bound ``β_c``: the slow path's
  value, at ``τ°`` itself (no removed set holds it: the supremum point, from which the margin rule
  of ``controllers.generic.search`` moves into the set). A holder's
  ``T_c'`` lies in the affine subspace of its ``p`` admissible-torque equalities (31), whose rows
  are orthonormal (``Responses.cvalid``), so ``dim(K ∩ T_c') <= n_τ − p``: when that is below
  ``dim K`` the lifted intersection is not needed (RHex's ``LLF``/``LSF`` twins: every holder so
  counted). ``dim K`` is ``n_τ − p_c`` when one LP finds a point of ``K`` well inside every
  inequality (``_interior``), else it is read off ``K``'s hull.
* **empty** — some ``T_c'`` holding ``τ°`` has no ambiguity variables (``n_w = 0``: ``D_c'`` is
  ``T_c'``) and contains ``K``: the support LPs of ``D_c ∩ L`` along its rows stay within them
  (``_contains``: the rule of ``Polytope.issubset``, the LPs in one batch). Then
  ``K ∩ T_c' = K`` is removed whole and ``T*_c ∩ L`` is empty (value ``-inf``), as the slow path
  would find.

The LPs of both go in batches through the compiled batch kernel when numba is installed
(``Polytope.prepare_many(..., kernel="auto")``, ``polytopes.batchlp.solve_batch``): a kept
verdict at RHex's twins, counted with ``_interior``'s one LP, costs about 0.15 ms replayed (0.9 ms
through the hulls of ``K`` and of the lifted intersection).

Neither certificate decides anything the slow path would decide differently except through the
tolerances of the two ways (a hull's rank, a containment to ``CONTAINMENT_TOL``); when neither
applies the slow path runs. Nondimensional, as the search.
"""

from __future__ import annotations

import numpy as np

from contactmodes.realtime.plan import Domains, Responses, domain_lp_rows
from polytopes import Polytope, batchlp, lp
from polytopes.errors import NumericalError
from polytopes.tolerances import CONTAINMENT_TOL, FEASIBILITY_TOL

__all__ = ["KEPT", "EMPTY", "lifted_domain", "settle"]

KEPT = "kept"
"""``settle``'s answer when ``τ°`` attains ``β_c`` over ``T*_c ∩ L``."""
EMPTY = "empty"
"""``settle``'s answer when ``T*_c ∩ L`` is empty."""
INTERIOR_MARGIN = 1e3 * FEASIBILITY_TOL
"""``_interior``'s margin, relative to the data scale: a thousand times the emptiness rule's
(``polytopes.tolerances.FEASIBILITY_TOL``), so a set it calls full-dimensional is never one the
hull calls thin."""


def _lp_rows(resp: Responses, dom: Domains, j: int, lo, hi, task: bool) -> tuple[np.ndarray, ...]:
    """``domain_lp_rows`` of mode ``j`` alone, over its own ``n_w`` ambiguity columns:
    ``(G (1, p + 2n_τ, n_τ + n_w), h, lo, hi, artificial)``."""
    return domain_lp_rows(resp, dom, np.array([j]), lo, hi, task, width=int(resp.n_w[j]))


def lifted_domain(resp: Responses, dom: Domains, j: int, lo, hi, task: bool, box: bool,
                  rows: tuple[np.ndarray, ...] | None = None) -> Polytope:
    """Mode ``j``'s domain ``D_c`` (33) over ``(τ, w)`` (its own ``n_w`` ambiguity variables, free;
    dimension ``n_τ + n_w``), the response's equalities (31) as equalities (the rows
    ``domain_lp_rows`` gives, without its artificial box on ``w``).

    Parameters
    ----------
    resp : Responses
        The step's responses (nondimensional).
    dom : Domains
        Their domains (33).
    j : int
        The mode's position in ``resp``/``dom``.
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits (nondimensional).
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits (nondimensional).
    task : bool
        Whether the task rows are included.
    box : bool
        Whether the torque box ``lo <= τ <= hi`` is added as ``2 n_τ`` inequality rows.
    rows : tuple[numpy.ndarray, ...] or None, optional
        Those LP rows (``_lp_rows`` with the same ``resp``, ``dom``, ``j``, ``lo``, ``hi``,
        ``task``) when already computed; ``None`` computes them.

    Returns
    -------
    Polytope
        ``D_c`` (``∩`` the box when ``box``) over ``(τ, w)``, dimension ``n_τ + n_w``.
    """
    nt = len(lo)
    G, h = (rows if rows is not None else _lp_rows(resp, dom, j, lo, hi, task))[:2]
    nw = G.shape[2] - nt
    p = G.shape[1] - 2 * nt
    A, b = G[0, :p], h[0, :p]
    C, d = G[0, p:p + nt], h[0, p:p + nt]
    if box:
        E = np.zeros((nt, nt + nw))
        E[:, :nt] = np.eye(nt)
        A = np.vstack([A, E, -E])
        b = np.concatenate([b, np.asarray(hi, dtype=float), -np.asarray(lo, dtype=float)])
    return Polytope(A, b, C, d)


def _pad(P: Polytope, before: int, after: int, nt: int) -> Polytope:
    """``P`` over ``(τ, w)`` lifted to ``(τ, u, w, v)``: ``before`` zero columns ``u`` inserted after τ,
    ``after`` zero columns ``v`` appended (the rows do not involve them)."""

    def cols(M: np.ndarray) -> np.ndarray:
        m = M.shape[0]
        return np.hstack([M[:, :nt], np.zeros((m, before)), M[:, nt:], np.zeros((m, after))])

    return Polytope(cols(P.A), P.b, cols(P.C), P.d)


def _contains(rows: tuple[np.ndarray, ...], lo, hi, T: Polytope) -> bool:
    """Whether ``K = T_c ∩ L`` of the mode whose LP rows are ``rows`` (``_lp_rows``) lies in the
    τ-polytope ``T`` (``n_w = 0``): the
    support of ``D_c ∩ L`` along each normalized row of ``T`` (an equality both ways) stays
    within ``CONTAINMENT_TOL`` (``polytopes.tolerances``, the rule of ``Polytope.issubset``) times
    ``max(1, ‖lo‖∞, ‖hi‖∞, |b|)`` of it. One verified batch (``polytopes.batchlp.solve_batch``;
    ``w`` in its artificial box, an answer leaning on it solved again without it); ``False``
    when an LP is not optimal (``K`` empty or a support unbounded: the slow path decides)."""
    A = np.vstack([T.A, T.C, -T.C])
    b = np.concatenate([T.b, T.d, -T.d])
    nrm = np.sqrt(np.einsum("ij,ij->i", A, A))
    live = nrm > 0.0
    if not live.any():
        return True
    A, b = A[live] / nrm[live, None], b[live] / nrm[live]
    G, h, lo_, hi_, art = rows
    B, nt = A.shape[0], len(lo)
    cost = np.zeros((B, G.shape[2]))
    cost[:, :nt] = -A
    rep = lambda M: np.repeat(M, B, axis=0)  # noqa: E731
    try:
        res = batchlp.solve_batch(cost, rep(G), rep(h), rep(lo_), rep(hi_), rep(art))
    except NumericalError:
        return False
    if not (res.status == lp.OPTIMAL).all():
        return False
    scale = max(1.0, float(np.abs(lo).max(initial=0.0)), float(np.abs(hi).max(initial=0.0)), float(np.abs(b).max()))
    return bool((-res.fun <= b + CONTAINMENT_TOL * scale).all())


def _interior(K: Polytope, rows: tuple[np.ndarray, ...]) -> bool:
    """Whether ``K = D_c ∩ L`` (``lifted_domain`` with the box; ``rows`` its ``_lp_rows``, whose
    variable bounds the LP keeps) is full-dimensional within its equalities (31): a point of ``K``
    at normalized distance at least ``INTERIOR_MARGIN`` times its ``data_scale`` from every
    inequality row, the box's faces included (one Chebyshev-type LP, ``max r`` s.t.
    ``a_i z + ‖a_i‖ r <= b_i``, ``C z = d``; one verified batch). Then its affine hull is the
    subspace of (31) and ``dim K = n_τ − p`` — the hull's decision too, whose max-slack LP (the
    same normalized slack, the same data scale) finds at least that margin, far above its
    ``FEASIBILITY_TOL``. ``False`` when the LP finds less or is not optimal (the hull decides)."""
    _, _, lo_, hi_, art = rows
    A, b, C, d = K.A, K.b, K.C, K.d
    m, p, nz = A.shape[0], C.shape[0], K.dim
    scale = K.data_scale  # the emptiness rule's
    Gs = np.zeros((1, m + 2 * p, nz + 1))
    Gs[0, :m, :nz], Gs[0, :m, nz] = A, np.sqrt(np.einsum("ij,ij->i", A, A))
    Gs[0, m:m + p, :nz], Gs[0, m + p:, :nz] = C, -C  # (31) both ways, no slack
    hs = np.concatenate([b, d, -d])[None]
    cost = np.zeros((1, nz + 1))
    cost[0, nz] = -1.0
    lo_s = np.concatenate([lo_[0], [-scale]])[None]
    hi_s = np.concatenate([hi_[0], [scale]])[None]
    art_s = np.concatenate([art[0], [False]])[None]
    res = batchlp.solve_batch(cost, Gs, hs, lo_s, hi_s, art_s)
    return bool(res.status[0] == lp.OPTIMAL and -res.fun[0] >= INTERIOR_MARGIN * scale)


def settle(resp: Responses, dom: Domains, j: int, holders: np.ndarray, known: np.ndarray, lo, hi,
           task: bool) -> str | None:
    """Settle candidate ``j`` (a position in ``resp``/``dom``) without the slow path (module doc).

    Parameters
    ----------
    resp : Responses
        The step's responses (nondimensional).
    dom : Domains
        Their domains (33).
    j : int
        The candidate.
    holders : numpy.ndarray
        ``(m,)`` positions of the modes not known to be kinematically infeasible whose ``T_c'``
        (untasked) the point test found ``τ°_c`` in (``m >= 1``).
    known : numpy.ndarray
        ``(m,)`` bool: the holders known to be feasible. A pending one (not decided yet) counts
        against ``KEPT`` as if feasible and never gives ``EMPTY``, so that neither certificate
        needs it decided.
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits (nondimensional).
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits.
    task : bool
        Whether ``T_c`` has its task rows (the search's pass).

    Returns
    -------
    str or None
        ``KEPT`` (``τ°_c`` attains ``β_c`` over ``T*_c ∩ L``), ``EMPTY`` (``T*_c ∩ L`` is empty) or
        ``None`` (the slow path decides; also when an LP of either certificate cannot be verified,
        ``NumericalError`` caught).
    """
    nt = len(lo)
    ks = range(nt)
    rows = _lp_rows(resp, dom, j, lo, hi, task)

    def holder(o: int) -> Polytope:
        return lifted_domain(resp, dom, o, lo, hi, False, box=False)

    for o in holders[known].tolist():  # first: a few batched support LPs, no hull
        if resp.n_w[o] == 0 and _contains(rows, lo, hi, holder(o)):
            return EMPTY
    def subspace_dim(o: int) -> int:  # n_τ − p: mode o's rows (31) are p orthonormal equalities on τ (``cvalid``)
        return nt - int(resp.cvalid[o].sum())

    cap = {o: subspace_dim(o) for o in holders.tolist()}  # dim T_c' <= n_τ − p
    K = lifted_domain(resp, dom, j, lo, hi, task, box=True, rows=rows)

    def pair(o: int) -> Polytope:
        T = holder(o)
        return _pad(K, 0, T.dim - nt, nt).intersect(_pad(T, K.dim - nt, 0, nt))

    try:
        # dim K: n_τ − p when K is full-dimensional within its equalities (31), else its hull's
        dim = subspace_dim(j) if _interior(K, rows) else None
        if dim is None and all(c < nt for c in cap.values()):  # it may settle every holder by count
            Polytope.prepare_many([K], kernel="auto")
            dim = K.projected_dimension(ks)
        if dim is None:  # K's hull with every intersection, in one batch
            pairs = [pair(o) for o in cap]
            Polytope.prepare_many([K, *pairs], kernel="auto")
            dim = K.projected_dimension(ks)
        else:
            pairs = [pair(o) for o in cap if cap[o] >= dim]
            if pairs:
                Polytope.prepare_many(pairs, kernel="auto")
        kept = all(P.projected_dimension(ks) < dim for P in pairs)
    except NumericalError:  # an LP nothing verifies: no certificate (the slow path decides)
        return None
    return KEPT if kept else None
