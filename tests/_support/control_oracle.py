"""Independent checks of the one-shot controller (``contactmodes.control``), shared by its tests.

* ``objective_range``: the range of a linear objective ``c_x·(q̈, f)`` over the solutions of a
  mode at a fixed torque, written from Tables I–II directly in ``(q̈, f)`` (``_support.oracle``'s
  rows, no response, no null space): unique when the range is a point.
* ``guaranteed_mode``: a torque guarantees a mode when it lies strictly inside the mode's ``T_c`` (with
  tasks), strictly outside every other kinematically feasible mode's ``T_c'`` (without tasks) and
  no solution of the mode violates a task row (``oracle_slack``, ``max_violation``).
* ``torque_extreme``: ``max d·τ`` over the torques of a box at which a mode has a solution — one
  ``linprog`` over ``(τ, q̈, f)`` with ``_support.oracle``'s rows (Tables I–II), ``τ`` a variable
  (the rows are affine in ``τ``: read off at ``τ = 0`` and the unit torques), no projection.
* ``closure_best`` / ``allowed_best``: per-mode LPs with SciPy's ``linprog`` over the pieces of
  the analysis's ``T*_c`` (``cm.analyze(..., unambiguous=True)``) cut to a box, and over ``D_c``
  in ``(τ, w)`` cut to the box, of the objective's gradient in τ from the analysis's response.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from _support.oracle import max_violation, mode_rows, oracle_slack

from contactmodes.analysis.ambiguity import task_rows
from contactmodes.model.system import ContactSystem

#: a torque counts as strictly inside / outside when the oracle's normalized slack exceeds this
SLACK = 1e-7


def objective_range(s: ContactSystem, mode: str, tau, c_x, task: bool = True) -> tuple[float, float] | None:
    """``(min, max)`` of ``c_x·(q̈, f)`` over the solutions of ``mode`` at ``tau`` (``None``
    if there is none; ``±inf`` when unbounded)."""
    eqA, eqb, geA, geb = mode_rows(s, mode, np.asarray(tau, dtype=float), ("physical", "task") if task else ("physical",))
    out = []
    for sign in (1.0, -1.0):
        res = linprog(sign * np.asarray(c_x, dtype=float), A_ub=-geA if len(geb) else None,
                      b_ub=-geb if len(geb) else None, A_eq=eqA, b_eq=eqb,
                      bounds=[(None, None)] * eqA.shape[1], method="highs")
        if res.status == 2:
            return None
        if res.status == 3:
            out.append(-sign * np.inf)
            continue
        assert res.status == 0, res.message
        out.append(sign * res.fun)
    return out[0], out[1]


def guaranteed_mode(s: ContactSystem, tau, kinematic_modes, slack: float = SLACK) -> str | None:
    """The mode ``tau`` certainly produces (module doc), decided with margin ``slack``, or
    ``None``: one LP per kinematically feasible mode (without tasks), then the mode's own."""
    tau = np.asarray(tau, dtype=float)
    inside = []
    for m in kinematic_modes:
        sig = oracle_slack(s, m, tau, task=False)
        if sig is not None and not sig < -slack:
            inside.append((m, sig))
    if len(inside) != 1 or not inside[0][1] > slack:
        return None
    mode = inside[0][0]
    own = oracle_slack(s, mode, tau, task=True)
    if own is None or not own > slack:
        return None
    for row in task_rows(s):
        worst, scale = max_violation(s, mode, tau, row)
        if worst > -slack * max(1.0, scale):
            return None
    return mode


def linprog_max(g, A_ub, b_ub, A_eq, b_eq, n) -> float | None:
    """``max g·x`` over ``A_ub x <= b_ub, A_eq x = b_eq``, ``x`` free in R^n, by HiGHS (``None``
    infeasible, ``inf`` unbounded)."""
    res = linprog(-np.asarray(g, dtype=float), A_ub=A_ub if len(b_ub) else None, b_ub=b_ub if len(b_ub) else None,
                  A_eq=A_eq if len(b_eq) else None, b_eq=b_eq if len(b_eq) else None,
                  bounds=[(None, None)] * n, method="highs")
    if res.status == 2:
        return None
    if res.status == 3:
        return np.inf
    assert res.status == 0, res.message
    return -res.fun


def gradient(mode_analysis, c_qdd, c_force, c_tau) -> tuple[np.ndarray, float, np.ndarray]:
    """``(g, g0, w-part)`` of ``J = g·τ + g0 + (w-part)·w`` from the analysis's response (user units)."""
    resp = mode_analysis.response
    g = c_qdd @ resp.P_q + c_force @ resp.P_f + c_tau
    g0 = float(c_qdd @ resp.r_q + c_force @ resp.r_f)
    return g, g0, c_qdd @ resp.Q_q + c_force @ resp.Q_f


def box_rows(lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """``A τ <= b`` of the box ``[lo, hi]``."""
    n = len(lo)
    return np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -np.asarray(lo)])


def closure_best(pieces, g, lo, hi) -> float | None:
    """``max g·τ`` over the closures of ``pieces`` cut to the box (``None`` when all empty)."""
    A_box, b_box = box_rows(lo, hi)
    best = None
    for P in pieces:
        v = linprog_max(g, np.vstack([P.A, A_box]), np.concatenate([P.b, b_box]), P.C, P.d, P.dim)
        if v is not None and (best is None or v > best):
            best = v
    return best


def allowed_best(D, g, lo, hi) -> float | None:
    """``max g·τ`` over ``D_c`` (over ``(τ, w)``) cut to the box on τ."""
    n_tau = len(lo)
    A_box, b_box = box_rows(lo, hi)
    A_box = np.hstack([A_box, np.zeros((A_box.shape[0], D.dim - n_tau))])
    return linprog_max(np.concatenate([g, np.zeros(D.dim - n_tau)]), np.vstack([D.A, A_box]),
                        np.concatenate([D.b, b_box]), D.C, D.d, D.dim)


def torque_extreme(s: ContactSystem, mode: str, direction, lo, hi, task: bool = True) -> float | None:
    """``max direction·τ`` over ``lo <= τ <= hi`` at which ``mode`` has a solution ``(q̈, f)``
    (module doc); ``None`` when there is none, ``inf`` when unbounded."""
    kinds = ("physical", "task") if task else ("physical",)
    n_tau = s.n_tau
    eqA, eqb0, geA, geb0 = mode_rows(s, mode, np.zeros(n_tau), kinds)
    E_tau, G_tau = [], []  # d(rhs)/dτ: the rows hold as eqA x = eqb0 + E τ, geA x >= geb0 + G τ
    for k in range(n_tau):
        _, eqb, _, geb = mode_rows(s, mode, np.eye(n_tau)[k], kinds)
        E_tau.append(eqb - eqb0)
        G_tau.append(geb - geb0)
    E = np.array(E_tau).T.reshape(len(eqb0), n_tau)
    G = np.array(G_tau).T.reshape(len(geb0), n_tau)
    nx = eqA.shape[1]
    A_eq = np.hstack([-E, eqA])
    A_ub = np.hstack([G, -geA])  # geb0 + G τ − geA x <= 0
    cost = -np.concatenate([np.asarray(direction, dtype=float), np.zeros(nx)])
    bounds = [(float(a), float(b)) for a, b in zip(lo, hi)] + [(None, None)] * nx
    res = linprog(cost, A_ub=A_ub if len(geb0) else None, b_ub=-geb0 if len(geb0) else None, A_eq=A_eq,
                  b_eq=eqb0, bounds=bounds, method="highs")
    if res.status == 2:
        return None
    if res.status == 3:
        return np.inf
    assert res.status == 0, res.message
    return -res.fun
