"""Thin HiGHS wrappers (``scipy.optimize.linprog``) used by :class:`polytopes.Polytope`.

All functions take an H-representation ``A x <= b``, ``C x = d`` with ``A`` (m, n), ``b`` (m,),
``C`` (p, n), ``d`` (p,).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

import cdd

from . import tolerances as tol
from .errors import PolytopeError
from .linalg import normalize_rows, row_norms

_OPTIONS = {"primal_feasibility_tolerance": tol.HIGHS_TOL,
            "dual_feasibility_tolerance": tol.HIGHS_TOL}

OPTIMAL, INFEASIBLE, UNBOUNDED = 0, 2, 3


def _rows_and_bounds(n, A_ub, b_ub, bounds):
    """Stack ``A_ub x <= b_ub`` and the variable bounds into one inequality block."""
    if isinstance(bounds, tuple) and len(bounds) == 2 and not isinstance(bounds[0], (tuple, list)):
        bounds = [bounds] * n
    rows, rhs = [], []
    if A_ub is not None and A_ub.shape[0]:
        rows.append(np.asarray(A_ub, dtype=float))
        rhs.append(np.asarray(b_ub, dtype=float))
    for j, (lo, hi) in enumerate(bounds):
        if hi is not None:
            e = np.zeros((1, n)); e[0, j] = 1.0
            rows.append(e); rhs.append(np.array([float(hi)]))
        if lo is not None:
            e = np.zeros((1, n)); e[0, j] = -1.0
            rows.append(e); rhs.append(np.array([-float(lo)]))
    if not rows:
        return np.zeros((0, n)), np.zeros(0)
    return np.vstack(rows), np.concatenate(rhs)


_CDD_STATUS = {
    cdd.LPStatusType.OPTIMAL: OPTIMAL,
    cdd.LPStatusType.INCONSISTENT: INFEASIBLE,
    cdd.LPStatusType.STRUC_INCONSISTENT: INFEASIBLE,
    cdd.LPStatusType.DUAL_INCONSISTENT: UNBOUNDED,
    cdd.LPStatusType.STRUC_DUAL_INCONSISTENT: UNBOUNDED,
    cdd.LPStatusType.UNBOUNDED: UNBOUNDED,
}


def _solve_cdd(c, G, h, A_eq, b_eq):
    """Dense simplex of cddlib (C, no per-call set-up cost) for small LPs; ``None`` if undecided."""
    n = c.shape[0]
    ineq = np.hstack([h[:, None], -G]) if G.shape[0] else np.zeros((0, n + 1))
    eq = np.hstack([b_eq[:, None], -A_eq]) if A_eq is not None and A_eq.shape[0] else np.zeros((0, n + 1))
    # The row ``1 >= 0`` keeps cddlib well defined on a system without constraints.
    array = np.vstack([ineq, eq, np.eye(1, n + 1)])
    mat = cdd.matrix_from_array(array, rep_type=cdd.RepType.INEQUALITY,
                                lin_set=set(range(ineq.shape[0], ineq.shape[0] + eq.shape[0])))
    mat.obj_type = cdd.LPObjType.MIN
    mat.obj_func = [0.0, *c.tolist()]
    prog = cdd.linprog_from_matrix(mat)
    cdd.linprog_solve(prog)
    status = _CDD_STATUS.get(prog.status)
    if status is None:
        return None
    if status == OPTIMAL:
        return OPTIMAL, np.asarray(prog.primal_solution, dtype=float), float(prog.obj_value)
    return status, None, None


def _solve_highs(c, A_ub, b_ub, A_eq, b_eq, bounds):
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                  method="highs", options=_OPTIONS)
    if res.status in (2, 3) and "unbounded" in res.message.lower() and "infeasible" in res.message.lower():
        # "infeasible or unbounded" from presolve: decide without presolve
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                      method="highs", options={**_OPTIONS, "presolve": False})
    if res.status == OPTIMAL:
        return OPTIMAL, np.asarray(res.x, dtype=float), float(res.fun)
    if res.status in (INFEASIBLE, UNBOUNDED):
        return int(res.status), None, None
    raise PolytopeError(f"LP solver failed (status {res.status}): {res.message}")


def solve(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=(None, None), solver="auto"):
    """Minimize ``c x`` s.t. ``A_ub x <= b_ub``, ``A_eq x = b_eq``, bounds (SciPy's convention).

    Returns ``(status, x, fun)`` with status 0 optimal, 2 infeasible, 3 unbounded.

    ``solver="auto"`` uses cddlib's dense simplex (pycddlib) for small problems — up to
    ``tolerances.LP_SMALL_ROWS`` rows and ``tolerances.LP_SMALL_COLS`` variables, where SciPy's
    per-call set-up costs about 1 ms against cddlib's 0.05 ms — and HiGHS (SciPy) otherwise or
    when cddlib leaves the status undecided. ``"cdd"`` / ``"highs"`` force one (the tests
    cross-check them). Raises :class:`PolytopeError` when HiGHS fails otherwise.
    """
    c = np.asarray(c, dtype=float)
    n = c.shape[0]
    def _none_if_empty(M):
        return None if M is None or M.shape[0] == 0 else M
    A_ub_, A_eq_ = _none_if_empty(A_ub), _none_if_empty(A_eq)
    b_ub_ = None if A_ub_ is None else np.asarray(b_ub, dtype=float)
    b_eq_ = None if A_eq_ is None else np.asarray(b_eq, dtype=float)
    if solver in ("auto", "cdd"):
        G, h = _rows_and_bounds(n, A_ub_, b_ub_, bounds)
        small = G.shape[0] + (0 if A_eq_ is None else A_eq_.shape[0]) <= tol.LP_SMALL_ROWS and n <= tol.LP_SMALL_COLS
        if small or solver == "cdd":
            out = _solve_cdd(c, G, h, A_eq_, b_eq_)
            if out is not None:
                return out
    return _solve_highs(c, A_ub_, b_ub_, A_eq_, b_eq_, bounds)


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
