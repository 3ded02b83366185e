"""The exact slow path of the generic search (``controllers.generic.search``): ``max J'`` over
``T*_c ∩ L`` for one candidate mode through an ``AnalysisSession`` of the step's scaled system —
``K = T_c ∩ L`` projected, its full-dimensional intersections with the other modes' ``T_c'``
removed (``polytopes.difference``, eq. (34) of the flipping paper), the objective maximized over
the pieces, and the torque returned by the margin rule on the winning piece
(``contactmodes.control.margin.piece_margin_point``: within the margin of the maximizer, clear of
``T_c``'s and the removed sets' boundaries, the box's faces held). Nondimensional, as the search."""

from __future__ import annotations

import math

import numpy as np

from contactmodes.analysis.domains import intersect_domains
from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.margin import piece_margin_point
from polytopes import Polytope, difference
from polytopes import lp

from controllers.generic.objective_plan import session_objective

__all__ = ["limit_rows", "meets", "maximize_pieces", "slow_margin_point", "slow_optimum"]


def limit_rows(lo, hi, n_w: int) -> tuple[np.ndarray, np.ndarray]:
    """The torque box ``lo <= τ' <= hi`` as rows over ``(τ', w)``.

    Parameters
    ----------
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits (nondimensional).
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits (nondimensional).
    n_w : int
        The number of ambiguity variables ``w`` (zero columns appended).

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray]
        ``(A, b)``: ``A`` ``(2 n_τ, n_τ + n_w)`` the rows ``τ' <= hi`` then ``−τ' <= −lo``, ``b``
        ``(2 n_τ,)``.
    """
    nt = len(lo)
    E = np.hstack([np.eye(nt), np.zeros((nt, n_w))])
    return np.vstack([E, -E]), np.concatenate([hi, -lo])


def meets(session: AnalysisSession, K: Polytope, mode: str) -> bool:
    """Whether ``K`` meets ``T_c'`` (untasked) — one feasibility LP over ``(τ', w')``.

    Parameters
    ----------
    session : AnalysisSession
        The step's session (scaled system).
    K : Polytope
        A set over the scaled torque ``τ'`` (``n_τ`` variables, nondimensional).
    mode : str
        The other mode ``c'``; its lifted domain ``D_c'`` over ``(τ', w')`` is used.

    Returns
    -------
    bool
        True when the LP finds a common point (``lp.OPTIMAL``); False when ``D_c'`` is trivially
        empty or the LP is not optimal.
    """
    sol = session.mode(mode)
    D, trivially = sol.raw_scaled(False)
    if trivially:
        return False
    nt = K.dim
    nw = D.dim - nt
    pad = lambda M: np.hstack([M, np.zeros((M.shape[0], nw))])  # noqa: E731
    A = np.vstack([pad(K.A), D.A])
    b = np.concatenate([K.b, D.b])
    C = np.vstack([pad(K.C), D.C])
    d = np.concatenate([K.d, D.d])
    st, _, _ = lp.solve(np.zeros(nt + nw), A if A.shape[0] else None, b if A.shape[0] else None,
                        C if C.shape[0] else None, d if C.shape[0] else None)
    return st == lp.OPTIMAL


def maximize_pieces(pieces, grad, offset):
    """The best piece for the linear objective ``grad·τ' + offset``: one LP per piece.

    Parameters
    ----------
    pieces : Iterable[Polytope]
        The pieces over the scaled torque ``τ'`` (``n_τ`` variables, nondimensional).
    grad : numpy.ndarray
        ``(n_τ,)`` the objective's gradient, to maximize.
    offset : float
        The objective's constant part.

    Returns
    -------
    tuple
        ``(value, tau, piece)``: the largest objective over the pieces whose LP is optimal, its
        maximizer ``(n_τ,)`` and that piece; ``(-inf, None, None)`` when no piece has one (empty
        or unbounded pieces are skipped).
    """
    best = (-math.inf, None, None)
    for P in pieces:
        st, x, fun = lp.solve(-grad, P.A if P.n_ineq else None, P.b if P.n_ineq else None,
                              P.C if P.n_eq else None, P.d if P.n_eq else None)
        if st == lp.OPTIMAL:
            v = float(grad @ x + offset)
            if v > best[0]:
                best = (v, x, P)
    return best


def slow_optimum(session: AnalysisSession, mode: str, others: list, lo, hi, counters, task: bool,
                 objective: np.ndarray, disjoint=None, margin: float = 0.0, units=None):
    """``slow_margin_point``'s answer as ``(value, tau, nudged, closure)``.

    Parameters
    ----------
    session : AnalysisSession
        The step's session (scaled system).
    mode : str
        The candidate mode ``c``.
    others : list[str]
        The other modes whose ``T_c'`` are removed (those not known kinematically infeasible).
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits (nondimensional).
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits (nondimensional).
    counters : SearchCounters
        The step's work counts; ``projections`` is added to.
    task : bool
        Whether ``T_c`` has its task rows.
    objective : numpy.ndarray
        ``(n_q + 2k + n_τ,)`` the plan objective over ``(q̈, f, τ)`` (nondimensional).
    disjoint : callable or None, optional
        ``disjoint(K) -> set`` of the ``others`` certified not to meet ``K``.
    margin : float, optional
        ``δ`` of the margin rule (torque units, >= 0).
    units : numpy.ndarray or None, optional
        ``(n_τ,)`` the torque-unit size of one scaled unit of each actuator (``None``: ones).

    Returns
    -------
    tuple
        ``(value, tau, nudged, closure)``: ``tau`` ``(n_τ,)`` the margin point's torque
        (nondimensional), ``value`` ``J'`` there, ``nudged`` whether it is not the maximizer,
        ``closure`` the maximum over the closures; ``(-inf, None, False, -inf)`` when
        ``T*_c ∩ L`` is empty.
    """
    value, mp, closure = slow_margin_point(session, mode, others, lo, hi, counters, task, objective, disjoint,
                                           margin, units)
    if mp is None:
        return -math.inf, None, False, -math.inf
    return value, mp.tau, mp.distance > 0.0, closure


def slow_margin_point(session: AnalysisSession, mode: str, others: list, lo, hi, counters, task: bool,
                      objective: np.ndarray, disjoint=None, margin: float = 0.0, units=None):
    """Exact ``max J' over T*_c ∩ L`` (closures, nondimensional; eq. (34) of the flipping paper,
    module doc) for candidate ``mode`` through the session, and the margin rule's point on the
    winning piece (``contactmodes.control.margin``).

    Parameters
    ----------
    session : AnalysisSession
        The step's session (scaled system).
    mode : str
        The candidate mode ``c``.
    others : list[str]
        The other modes whose ``T_c'`` (untasked) are removed from ``K = T_c ∩ L``.
    lo : numpy.ndarray
        ``(n_τ,)`` lower torque limits (nondimensional).
    hi : numpy.ndarray
        ``(n_τ,)`` upper torque limits (nondimensional).
    counters : SearchCounters
        The search's work counts: ``counters.projections`` += the polytope projections done.
    task : bool
        Whether ``T_c`` has its task rows (``False`` drops them).
    objective : numpy.ndarray
        ``(n_q + 2k + n_τ,)`` the plan objective over ``(q̈, f, τ)`` (nondimensional).
    disjoint : callable or None, optional
        ``disjoint(K) -> set`` of the ``others`` certified not to meet ``K`` (``meets`` would say
        ``False``: ``contactmodes.tolerances.MEETS_MARGIN``); their ``meets`` LPs are skipped,
        every other mode gets its own.
    margin : float, optional
        ``δ`` of the margin rule (torque units, >= 0); 0: the maximizer itself.
    units : numpy.ndarray or None, optional
        ``(n_τ,)`` the torque-unit size of one scaled unit of each actuator (``None``: ones).

    Returns
    -------
    tuple
        ``(value, point, closure)``: ``closure`` the maximum of ``J'`` over the closures of the
        pieces, ``point`` the ``MarginPoint`` on the winning piece, ``value`` ``J'`` at its torque;
        ``(-inf, None, -inf)`` when ``T*_c ∩ L`` is empty.
    """
    sol = session.mode(mode)
    resp = sol.response_scaled(task)
    grad, offset = session_objective(resp, objective)
    K = sol.projected_scaled(limit_rows(lo, hi, resp.n_w), task=task)
    counters.projections += 1
    if K is None:
        return -math.inf, None, -math.inf
    dim = K.affine_dimension()
    skip = disjoint(K) if disjoint is not None else ()
    inters = []
    for o in others:
        if o in skip or not meets(session, K, o):
            continue
        To = session.mode(o).T_scaled(False)
        counters.projections += 1 if session.mode(o).response_scaled(False).n_w else 0
        if To is None:
            continue
        # subtract K ∩ T_c' (as across_mode_sets does), not T_c' itself: the closure splitting of
        # polytopes.difference differs between the two on degenerate (lower-dimensional) K
        inter = intersect_domains(K, To)
        if inter is not None:
            inters.append(inter)
    Polytope.prepare_hulls(inters)  # each emptiness decided alone, the hulls together: the same dimensions
    removed = [inter for inter in inters if inter.affine_dimension() == dim]
    pieces = difference(K, removed) if removed else [K]
    val, tau, piece = maximize_pieces(pieces, grad, offset)
    if tau is None:
        return -math.inf, None, -math.inf
    tau = np.asarray(tau, dtype=float)
    units = np.ones(len(lo)) if units is None else np.asarray(units, dtype=float)
    mp = piece_margin_point(piece, tau, grad, units, limit_rows(lo, hi, 0), margin)
    return float(grad @ mp.tau + offset), mp, val
