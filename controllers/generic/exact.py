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
    """The torque box ``lo <= τ' <= hi`` (n_τ,) as rows over ``(τ', w)`` with ``n_w`` ambiguity
    variables: ``(A (2n_τ, n_τ + n_w), b (2n_τ,))``."""
    nt = len(lo)
    E = np.hstack([np.eye(nt), np.zeros((nt, n_w))])
    return np.vstack([E, -E]), np.concatenate([hi, -lo])


def meets(session: AnalysisSession, K: Polytope, mode: str) -> bool:
    """Whether ``K`` (over τ') meets ``T_c'`` (untasked) — one feasibility LP over ``(τ', w')``."""
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
    """Best ``(value, tau, piece)`` of the linear objective ``grad·τ + offset`` over polytope pieces (``-inf`` if none)."""
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
    """``slow_margin_point``'s answer as ``(value, tau, nudged, closure)``: ``tau`` its margin
    point's torque (``None`` when ``T*_c ∩ L`` is empty, with values ``-inf``), ``value`` ``J'``
    there, ``nudged`` whether it is not the maximizer (the arguments are ``slow_margin_point``'s)."""
    value, mp, closure = slow_margin_point(session, mode, others, lo, hi, counters, task, objective, disjoint,
                                           margin, units)
    if mp is None:
        return -math.inf, None, False, -math.inf
    return value, mp.tau, mp.distance > 0.0, closure


def slow_margin_point(session: AnalysisSession, mode: str, others: list, lo, hi, counters, task: bool,
                      objective: np.ndarray, disjoint=None, margin: float = 0.0, units=None):
    """Exact ``max J' over T*_c ∩ L`` (closures, nondimensional; ``objective`` the plan's vector over
    ``(q̈, f, τ)``) for candidate ``mode`` through the session: ``(value, point, closure)`` —
    ``closure`` the maximum over the closures, ``point`` the margin rule's ``MarginPoint`` on the
    winning piece (``contactmodes.control.margin``; ``margin`` in torque units, ``units``
    ``(n_τ,)`` the torque-unit size of one scaled unit of each actuator; ``margin`` 0: the
    maximizer itself), ``value`` ``J'`` at its torque; ``(-inf, None, -inf)`` when
    ``T*_c ∩ L`` is empty. ``task=False`` drops the task rows from ``T_c``. ``counters`` (the search's ``StepCounters``
    with ``projections``): ``counters.projections`` += the polytope projections done.
    ``disjoint`` (optional): ``disjoint(K) -> set`` of the ``others`` certified not to meet ``K``
    (``meets`` would say ``False``: ``contactmodes.tolerances.MEETS_MARGIN``); their ``meets``
    LPs are skipped, every other mode gets its own."""
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
