"""Thin HiGHS wrappers (``scipy.optimize.linprog``) used by :class:`polytopes.Polytope`.

All functions take an H-representation ``A x <= b``, ``C x = d`` with ``A`` (m, n), ``b`` (m,),
``C`` (p, n), ``d`` (p,).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from . import tolerances as tol
from .errors import PolytopeError
from .linalg import normalize_rows, row_norms

_OPTIONS = {"primal_feasibility_tolerance": tol.HIGHS_TOL,
            "dual_feasibility_tolerance": tol.HIGHS_TOL}

OPTIMAL, INFEASIBLE, UNBOUNDED = 0, 2, 3


def solve(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(None, None)):
    """Minimize ``c x``; returns ``(status, x, fun)`` with status 0 optimal, 2 infeasible,
    3 unbounded. Raises :class:`PolytopeError` when HiGHS fails otherwise."""
    def _none_if_empty(M):
        return None if M is None or M.shape[0] == 0 else M
    A_ub_, A_eq_ = _none_if_empty(A_ub), _none_if_empty(A_eq)
    b_ub_ = None if A_ub_ is None else b_ub
    b_eq_ = None if A_eq_ is None else b_eq
    res = linprog(c, A_ub=A_ub_, b_ub=b_ub_, A_eq=A_eq_, b_eq=b_eq_, bounds=bounds,
                  method="highs", options=_OPTIONS)
    if res.status in (2, 3) and "unbounded" in res.message.lower() and "infeasible" in res.message.lower():
        # "infeasible or unbounded" from presolve: decide without presolve
        res = linprog(c, A_ub=A_ub_, b_ub=b_ub_, A_eq=A_eq_, b_eq=b_eq_, bounds=bounds,
                      method="highs", options={**_OPTIONS, "presolve": False})
    if res.status == OPTIMAL:
        return OPTIMAL, np.asarray(res.x, dtype=float), float(res.fun)
    if res.status in (INFEASIBLE, UNBOUNDED):
        return int(res.status), None, None
    raise PolytopeError(f"LP solver failed (status {res.status}): {res.message}")


def max_slack(A, b, C, d):
    """Largest common slack of the normalized inequalities, capped at 1.

    Solves ``max s  s.t.  a_i x / ||a_i|| + s <= b_i / ||a_i||, C x = d, s <= 1``. Returns
    ``(s, x)`` or ``(None, None)`` when ``C x = d`` has no solution. Zero rows of ``A`` enter as
    ``s <= b_i``.
    """
    n = A.shape[1]
    An, bn, nrm = normalize_rows(A, b)
    ones = np.where(nrm > 0, 1.0, 1.0)
    A_ub = np.hstack([An, ones[:, None]]) if A.shape[0] else np.zeros((0, n + 1))
    A_eq = np.hstack([C, np.zeros((C.shape[0], 1))])
    c = np.zeros(n + 1)
    c[-1] = -1.0
    bounds = [(None, None)] * n + [(None, 1.0)]
    st, z, _ = solve(c, A_ub, bn, A_eq, d, bounds)
    if st != OPTIMAL:
        if st == UNBOUNDED:  # cannot happen with s <= 1 and free x unless degenerate
            raise PolytopeError("LP solver reported an unbounded slack problem")
        return None, None
    return float(z[-1]), z[:n]


def support(A, b, C, d, direction) -> float:
    """Support function ``max {direction . x : A x <= b, C x = d}``.

    Returns ``inf`` when unbounded; raises :class:`PolytopeError` when the set is empty.
    """
    direction = np.asarray(direction, dtype=float)
    st, x, fun = solve(-direction, A, b, C, d)
    if st == UNBOUNDED:
        return float("inf")
    if st == INFEASIBLE:
        raise PolytopeError("support function of an empty set")
    return -fun


def argmax(A, b, C, d, direction):
    """Maximizer of ``direction . x`` or ``None`` if unbounded; raises on an empty set."""
    st, x, _ = solve(-np.asarray(direction, dtype=float), A, b, C, d)
    if st == INFEASIBLE:
        raise PolytopeError("support function of an empty set")
    return None if st == UNBOUNDED else x


def chebyshev(A, b, cap: float | None = None):
    """Largest ball ``{z : ||z - c|| <= r}`` inside ``{z : A z <= b}`` (full space, no equalities).

    ``max r  s.t.  a_i z + ||a_i|| r <= b_i,  0 <= r (<= cap)``. Returns ``(c, r)``; ``r`` is
    ``inf`` if unbounded and ``cap`` is ``None``; ``(None, None)`` if infeasible.
    """
    k = A.shape[1]
    nrm = row_norms(A)
    A_ub = np.hstack([A, nrm[:, None]])
    c = np.zeros(k + 1)
    c[-1] = -1.0
    bounds = [(None, None)] * k + [(0.0, cap)]
    st, z, _ = solve(c, A_ub, b, None, None, bounds)
    if st == UNBOUNDED:
        return None, float("inf")
    if st == INFEASIBLE:
        return None, None
    return z[:k], float(z[-1])
