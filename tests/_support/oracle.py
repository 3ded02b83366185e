"""The independent per-mode LP oracle, in ``(q̈, f)`` (shared by the oracle, ambiguity, session
and shared-case tests).

Written from Tables I–III and footnote 5 of the flipping paper, independently of
``contactmodes.modes.enumeration`` / ``response`` / ``domains``: for a torque τ and a mode c,
``oracle_slack`` solves

    max σ  s.t.  M q̈ − Jᵀ f = S τ − h,  the mode's equalities (Tables I–II, eq-constraints),
                 every inequality row (normalized) >= σ,  σ <= 1

(τ is a member when σ* > δ, a non-member when σ* < −δ or the LP is infeasible, too close to call
otherwise). Kinematic pruning (``kinematically_ok``) is decided by its own Table III rule and
by a homogenized strict LP (exists q̈ with the equalities and the strict inequalities of S/L/R ⇔
exists (q̈, t) with E q̈ + c_E t = 0, G q̈ + c_G t >= 1, t >= 1). ``max_violation``: the
largest violation of a task row over a mode's solutions at a fixed τ (physical constraints only).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

from contactmodes import tolerances
from contactmodes.model.system import ContactSystem

LETTERS = "FSLR"


def zero_flags(s: ContactSystem):
    """(t_zero, n_zero, n_negative) per contact, Table III with the documented threshold."""
    v = np.asarray(s.v_contact).reshape(-1, 2)
    eps = np.maximum(tolerances.VELOCITY_RTOL * max(1.0, np.abs(v).max(initial=0.0)), s.v0)
    return np.abs(v[:, 0]) <= eps, np.abs(v[:, 1]) <= eps, v[:, 1] < -eps, v


def table_iii_ok(s: ContactSystem, mode: str) -> bool:
    t0, n0, _, v = zero_flags(s)
    for i, c in enumerate(mode):
        if not n0[i]:  # separating velocity
            if c != "S":
                return False
        elif not t0[i]:
            if c == "F" or (c == "L" and v[i, 0] > 0) or (c == "R" and v[i, 0] < 0):
                return False
    return True


def contact_rows(s: ContactSystem, mode: str):
    """Acceleration rows: equalities (row of J, index) and strict-sign rows (sign, index)."""
    t0, n0, _, _ = zero_flags(s)
    eq, sign = [], []
    for i, c in enumerate(mode):
        t, n = 2 * i, 2 * i + 1
        if c == "F":
            eq += [t, n]
        elif c in "LR":
            eq.append(n)
            if t0[i]:
                sign.append((-1.0 if c == "L" else 1.0, t))
        elif c == "S" and n0[i]:
            sign.append((1.0, n))
    return eq, sign


def kinematically_ok(s: ContactSystem, mode: str) -> bool:
    if not table_iii_ok(s, mode):
        return False
    eq, sign = contact_rows(s, mode)
    J, c, n_q = s.J, s.Jdot_qdot, s.n_q
    # variables (q̈, t)
    A_eq = np.array([np.append(J[i], c[i]) for i in eq]).reshape(len(eq), n_q + 1)
    A_ub = np.array([-sg * np.append(J[i], c[i]) for sg, i in sign]).reshape(len(sign), n_q + 1)
    res = linprog(np.zeros(n_q + 1), A_ub=A_ub if len(sign) else None,
                  b_ub=-np.ones(len(sign)) if len(sign) else None,
                  A_eq=A_eq if len(eq) else None, b_eq=np.zeros(len(eq)) if len(eq) else None,
                  bounds=[(None, None)] * n_q + [(1.0, None)], method="highs")
    return res.status == 0


def mode_rows(s: ContactSystem, mode: str, tau, kinds=("physical", "task")):
    """``(eqA, eqb, geA, geb)``: the equalities ``eqA x = eqb`` and rows ``geA x >= geb`` of
    ``mode`` at the torque ``tau`` over ``x = (q̈, f)``, ``(·, n_q + 2k)``: dynamics, Tables I–II
    written out directly (``contact_rows`` for the acceleration rows) and the constraint blocks
    of ``kinds``, independently of ``contactmodes``."""
    n_q, nf = s.n_q, 2 * s.k
    nx = n_q + nf
    J, c, mu = s.J, s.Jdot_qdot, s.mu
    unit = np.eye(nx)
    eqA, eqb, geA, geb = [], [], [], []
    for j in range(n_q):  # M q̈ − Jᵀ f = S τ − h
        eqA.append(np.concatenate([s.M[j], -J[:, j]]))
        eqb.append(s.S[j] @ tau - s.h[j])
    eq_rows, sign_rows = contact_rows(s, mode)
    for j in eq_rows:  # ẍ_j = 0
        eqA.append(np.concatenate([J[j], np.zeros(nf)]))
        eqb.append(-c[j])
    for sg, j in sign_rows:  # sg ẍ_j >= 0 (non-strict inside a mode's domain)
        geA.append(sg * np.concatenate([J[j], np.zeros(nf)]))
        geb.append(-sg * c[j])
    for i, ch in enumerate(mode):
        t, n = n_q + 2 * i, n_q + 2 * i + 1
        if ch == "S":
            eqA += [unit[t], unit[n]]
            eqb += [0.0, 0.0]
            continue
        geA.append(unit[n])  # f_n >= 0
        geb.append(0.0)
        if ch == "F":
            geA += [mu[i] * unit[n] - unit[t], mu[i] * unit[n] + unit[t]]
            geb += [0.0, 0.0]
        else:
            eqA.append(unit[t] - (mu[i] if ch == "L" else -mu[i]) * unit[n])
            eqb.append(0.0)
    for blk in s.constraints:
        if blk.kind not in kinds:
            continue
        for r in range(blk.n_rows):
            a = np.concatenate([blk.qdd[r], blk.f[r]])
            (eqA if blk.type == "eq" else geA).append(a)
            (eqb if blk.type == "eq" else geb).append(blk.rhs[r] - blk.tau[r] @ tau)
    return (np.array(eqA, dtype=float).reshape(-1, nx), np.array(eqb, dtype=float),
            np.array(geA, dtype=float).reshape(-1, nx), np.array(geb, dtype=float))


def oracle_slack(s: ContactSystem, mode: str, tau: np.ndarray, task: bool = True):
    """σ* of the module docstring, or None when the LP is infeasible."""
    nx = s.n_q + 2 * s.k
    eqA, eqb, geA, geb = mode_rows(s, mode, tau, ("physical", "task") if task else ("physical",))
    norms = np.linalg.norm(geA, axis=1)
    norms[norms == 0] = 1.0
    geA, geb = geA / norms[:, None], geb / norms
    # variables (x, σ): maximize σ; -geA x + σ <= -geb; σ <= 1
    A_ub = np.hstack([-geA, np.ones((geA.shape[0], 1))])
    A_eq = np.hstack([eqA, np.zeros((len(eqA), 1))])
    cost = np.zeros(nx + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=A_ub, b_ub=-geb, A_eq=A_eq, b_eq=eqb,
                  bounds=[(None, None)] * nx + [(None, 1.0)], method="highs")
    if res.status == 2:
        return None
    if res.status != 0:
        return np.nan  # solver trouble: caller skips
    return -res.fun


def max_violation(s: ContactSystem, mode: str, tau, row) -> tuple[float, float]:
    """``max (rhs − a·z)`` (and ``max (a·z − rhs)`` for ``eq``) over the solutions of ``mode`` at
    fixed τ with the physical constraints only; ``(−inf, 0)`` if there is none, ``(inf, 0)`` if
    unbounded. Second item: ``‖x*‖_∞`` of the maximizer (a scale for the tolerance).

    Tables I–II written out directly (with ``contact_rows`` for the acceleration rows),
    independently of ``contactmodes``: variables ``x = (q̈, f)``.
    """
    nx = s.n_q + 2 * s.k
    eqA, eqb, geA, geb = mode_rows(s, mode, tau, ("physical",))
    a_x = np.concatenate([row.qdd, row.f])
    best, xnorm = -np.inf, 0.0
    for sign in ((1.0, -1.0) if row.type == "eq" else (1.0,)):
        # violation sign·(rhs − a_x·x − a_τ·τ): maximize ⇔ minimize sign·a_x·x
        res = linprog(sign * a_x, A_ub=-geA if len(geb) else None,
                      b_ub=-geb if len(geb) else None, A_eq=eqA, b_eq=eqb,
                      bounds=[(None, None)] * nx, method="highs")
        if res.status == 3:
            return np.inf, 0.0
        if res.status == 0:
            v = sign * (row.rhs - row.tau @ tau) - res.fun
            if v > best:
                best, xnorm = v, float(np.abs(res.x).max())
    return best, xnorm


def t_margin(T, tau):
    """Signed distance-like margin of τ to T's boundary (>0 inside), and equality residual."""
    eq_res = 0.0
    if T.C.shape[0]:
        Cn = T.C / np.linalg.norm(T.C, axis=1)[:, None]
        dn = T.d / np.linalg.norm(T.C, axis=1)
        eq_res = float(np.abs(Cn @ tau - dn).max())
    margin = np.inf
    if T.A.shape[0]:
        nrm = np.linalg.norm(T.A, axis=1)
        margin = float(((T.b - T.A @ tau) / nrm).min())
    return margin, eq_res


def all_modes(k):
    return ["".join(p) for p in itertools.product(LETTERS, repeat=k)]


def distance_to_T(s: ContactSystem, mode: str, tau0, task: bool = True) -> tuple[float, np.ndarray]:
    """Euclidean distance (the system's torque units) from ``tau0`` to ``T_c`` of ``mode`` and the
    nearest torque: ``min ‖τ − τ0‖₂`` over ``(τ, q̈, f)`` with the mode's rows of ``mode_rows``
    (dynamics, Tables I–II, the constraint blocks), by cvxpy's interior-point conic solver
    (CLARABEL) — no projection, no ``polytopes``. The rows are affine in τ: their τ-part is read
    off ``mode_rows`` at ``τ = 0`` and at the unit torques. ``(inf, None)`` when infeasible."""
    import cvxpy as cp

    kinds = ("physical", "task") if task else ("physical",)
    tau0 = np.asarray(tau0, dtype=float)
    n = s.n_tau
    eqA, eqb0, geA, geb0 = mode_rows(s, mode, np.zeros(n), kinds)
    Beq = np.zeros((len(eqb0), n))
    Bge = np.zeros((len(geb0), n))
    for k in range(n):  # eqA x = eqb0 + Beq τ, geA x >= geb0 + Bge τ
        _, eqb, _, geb = mode_rows(s, mode, np.eye(n)[k], kinds)
        Beq[:, k], Bge[:, k] = eqb - eqb0, geb - geb0
    x, tau = cp.Variable(eqA.shape[1]), cp.Variable(n)
    cons = [eqA @ x - Beq @ tau == eqb0]
    if len(geb0):
        cons.append(geA @ x - Bge @ tau >= geb0)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(tau - tau0)), cons)
    prob.solve(solver="CLARABEL")
    if prob.status in ("infeasible", "infeasible_inaccurate"):
        return float("inf"), None
    assert prob.status == "optimal", prob.status
    return float(np.linalg.norm(tau.value - tau0)), np.asarray(tau.value)
