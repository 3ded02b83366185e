"""The oracle of the spatial tests: the rows of every letter of the circumscribed square (``n_f =
4``, side normals along ``±t1``, ``±t2``), written out by hand from issue 40's rule, and per-mode
LPs over them (SciPy/HiGHS ``linprog``), independent of the code under test:

* ``oracle_torque_slack``: a mode's torque set is ``{τ : ∃ q̈, f: M q̈ + h = S τ + Jᵀ f, the
  letters' rows}``: one LP per torque and mode, its largest common slack of the inequalities
  deciding membership;
* ``oracle_kinematic``: kinematic feasibility (footnote 5), the largest slack of the letters'
  acceleration inequalities (strict there) under their equalities, over ``q̈`` alone;
* ``oracle_solution``: ``(q̈, f)`` of a mode at a torque from its equalities and the dynamics
  (one linear solve), for modes whose solution is unique;
* ``oracle_box_max``: the largest linear objective over ``(τ, q̈, f)`` with ``τ`` in a box and the
  mode's rows (the closure of ``T_c`` cut to the box), one LP with ``τ`` a variable.

Moved here from ``tests/contactmodes/analysis/test_spatial_analysis.py`` so that the control tests
(``tests/contactmodes/control/test_control_spatial.py``) share it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog

from contactmodes.model.system import ContactSystem

SQUARE = "SFabcdABCE"
"""S, F, the sides a–d and the vertices A B C E of the 4-sided polygon (at rest)."""



def letter_rows(letter: str, mu: float, slip=None):
    """The rows of one contact in ``letter`` for the circumscribed square (module docstring),
    over its acceleration ``a = (a1, a2, an)`` and force ``f = (f1, f2, fn)``: lists of
    ``(coef_a, coef_f)`` pairs of 3-vectors, as ``(eq, geq_accel, geq_force)``: equalities
    ``ca·a + cf·f = 0``; acceleration inequalities ``ca·a >= 0`` (strict in the kinematic test);
    force inequalities ``cf·f >= 0``."""
    z = (0.0, 0.0, 0.0)
    A = lambda *c: (c, z)  # noqa: E731  an acceleration row
    F = lambda *c: (z, c)  # noqa: E731  a force row
    fn = F(0, 0, 1)
    cone = [F(-1, 0, mu), F(0, -1, mu), F(1, 0, mu), F(0, 1, mu)]  # μ f_n ∓ f_t1, μ f_n ∓ f_t2 >= 0
    if letter == "S":
        return [F(1, 0, 0), F(0, 1, 0), F(0, 0, 1)], [A(0, 0, 1)], []
    if letter == "F":
        return [A(1, 0, 0), A(0, 1, 0), A(0, 0, 1)], [], cone + [fn]
    if letter == "D":
        return [A(0, 0, 1), F(1, 0, mu * slip[0]), F(0, 1, mu * slip[1])], [], [fn]
    # sides: side j's force row n_j·f_t = μ f_n, acceleration −a_t along n_j (−n_j·a_t >= 0,
    # d_j·a_t = 0); the other sides' cone rows stay
    sides = {"a": ((1, 0), 0), "b": ((0, 1), 1), "c": ((-1, 0), 2), "d": ((0, -1), 3)}
    if letter in sides:
        (c, s), j = sides[letter]
        eq = [A(0, 0, 1), F(c, s, -mu), A(-s, c, 0)]
        return eq, [A(-c, -s, 0)], [r for i, r in enumerate(cone) if i != j] + [fn]
    # vertices: between sides j and j+1; force at the corner, −a_t in cone{n_j, n_j+1}
    corners = {"A": (1, 1), "B": (-1, 1), "C": (-1, -1), "E": (1, -1)}
    s1, s2 = corners[letter]
    eq = [A(0, 0, 1), F(1, 0, -s1 * mu), F(0, 1, -s2 * mu)]
    return eq, [A(-s1, 0, 0), A(0, -s2, 0)], [fn]


def mode_rows(system: ContactSystem, mode: str, slips):
    """The rows of ``mode`` over ``x = (q̈, f)``: ``E x = e`` (contact rows; dynamics apart),
    acceleration rows ``G x >= g`` and force rows ``H x >= 0`` (``a = J q̈ + J̇q̇``)."""
    n_q, k = system.n_q, system.k
    J, c = system.J, system.Jdot_qdot
    E, e, G, g, H = [], [], [], [], []
    for i, letter in enumerate(mode):
        Ji, ci = J[3 * i:3 * i + 3], c[3 * i:3 * i + 3]
        eq, ga, gf = letter_rows(letter, float(system.mu[i]), slips[i])

        def row(ca, cf):
            x = np.zeros(n_q + 3 * k)
            x[:n_q] = np.asarray(ca, float) @ Ji
            x[n_q + 3 * i:n_q + 3 * i + 3] = cf
            return x, -float(np.asarray(ca, float) @ ci)

        for ca, cf in eq:
            r, b = row(ca, cf)
            E.append(r)
            e.append(b)
        for ca, cf in ga:
            r, b = row(ca, cf)
            G.append(r)
            g.append(b)
        for ca, cf in gf:
            H.append(row(ca, cf)[0])
    width = n_q + 3 * k
    return (np.array(E).reshape(-1, width), np.array(e), np.array(G).reshape(-1, width), np.array(g),
            np.array(H).reshape(-1, width))


def slips_of(system: ContactSystem):
    """Per contact, the unit slip direction of a sliding contact (``None`` at rest), from the
    velocities by hand: ``v_t / |v_t|`` when ``|v_t| > v0``."""
    out = []
    for i in range(system.k):
        vt = system.v_contact[3 * i:3 * i + 2]
        speed = math.hypot(*vt)
        out.append(tuple(vt / speed) if speed > max(system.v0[i], 1e-12) else None)
    return out


def _max_slack(c_eq, d_eq, rows, rhs, n_vars):
    """``max s`` (capped at 1) subject to ``c_eq x = d_eq``, ``rows x − rhs >= s``; ``-inf`` if
    infeasible (HiGHS)."""
    m = rows.shape[0]
    if m == 0:
        res = linprog(np.zeros(n_vars), A_eq=c_eq if len(c_eq) else None, b_eq=d_eq if len(c_eq) else None,
                      bounds=[(None, None)] * n_vars, method="highs")
        return 1.0 if res.status == 0 else -math.inf
    cost = np.zeros(n_vars + 1)
    cost[-1] = -1.0
    A_ub = np.hstack([-rows, np.ones((m, 1))])
    A_eq = np.hstack([c_eq, np.zeros((c_eq.shape[0], 1))]) if len(c_eq) else None
    res = linprog(cost, A_ub=A_ub, b_ub=-rhs, A_eq=A_eq, b_eq=d_eq if len(c_eq) else None,
                  bounds=[(None, None)] * n_vars + [(None, 1.0)], method="highs")
    if res.status == 2:
        return -math.inf
    assert res.status == 0, res.message
    return -res.fun


def oracle_torque_slack(system: ContactSystem, mode: str, tau) -> float:
    """The largest common slack of ``mode``'s inequalities (non-strict) with the dynamics at
    ``tau``: ``> 0`` inside ``T_c``, ``< 0`` or ``-inf`` outside."""
    n_q, n_f = system.n_q, 3 * system.k
    E, e, G, g, H = mode_rows(system, mode, slips_of(system))
    dyn = np.hstack([system.M, -system.J.T])
    A_eq = np.vstack([E, dyn])
    b_eq = np.concatenate([e, system.S @ np.asarray(tau, float) - system.h])
    rows = np.vstack([G, H])
    rhs = np.concatenate([g, np.zeros(H.shape[0])])
    return _max_slack(A_eq, b_eq, rows, rhs, n_q + n_f)


def oracle_kinematic(system: ContactSystem, mode: str) -> float:
    """Footnote 5's slack of ``mode``'s acceleration rows over ``q̈`` (strict inequalities)."""
    n_q = system.n_q
    E, e, G, g, _ = mode_rows(system, mode, slips_of(system))
    acc_eq = [i for i in range(E.shape[0]) if not np.any(E[i, n_q:])]  # the acceleration equalities
    return _max_slack(E[acc_eq, :n_q], e[acc_eq], G[:, :n_q], g, n_q)


def oracle_solution(system: ContactSystem, mode: str, tau) -> np.ndarray:
    """``x = (q̈, f)`` of ``mode`` at ``tau``: the mode's equalities with the dynamics, solved by
    least squares; asserts that they determine ``x`` (full column rank) and hold (residual)."""
    n_q, n_f = system.n_q, 3 * system.k
    E, e, _, _, _ = mode_rows(system, mode, slips_of(system))
    A = np.vstack([E, np.hstack([system.M, -system.J.T])])
    b = np.concatenate([e, system.S @ np.asarray(tau, float) - system.h])
    assert np.linalg.matrix_rank(A) == n_q + n_f, f"{mode}: the solution is not unique"
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    assert np.abs(A @ x - b).max() <= 1e-9 * max(1.0, np.abs(b).max())
    return x


def oracle_box_max(system: ContactSystem, mode: str, c_x, c_tau, lo, hi) -> float | None:
    """``max c_x·(q̈, f) + c_tau·τ`` over ``lo <= τ <= hi`` and the solutions of ``mode`` (its
    rows non-strict: the closure of ``T_c``), one LP over ``(τ, q̈, f)``; ``None`` if infeasible,
    ``inf`` if unbounded."""
    n_q, n_f, n_tau = system.n_q, 3 * system.k, system.n_tau
    E, e, G, g, H = mode_rows(system, mode, slips_of(system))
    zeros = lambda m: np.zeros((m, n_tau))  # noqa: E731
    A_eq = np.vstack([np.hstack([zeros(E.shape[0]), E]), np.hstack([-system.S, system.M, -system.J.T])])
    b_eq = np.concatenate([e, -system.h])
    A_ub = np.vstack([np.hstack([zeros(G.shape[0]), -G]), np.hstack([zeros(H.shape[0]), -H])])
    b_ub = np.concatenate([-g, np.zeros(H.shape[0])])
    cost = -np.concatenate([np.asarray(c_tau, float), np.asarray(c_x, float)])
    bounds = [(float(a), float(b)) for a, b in zip(lo, hi)] + [(None, None)] * (n_q + n_f)
    res = linprog(cost, A_ub=A_ub if len(b_ub) else None, b_ub=b_ub if len(b_ub) else None, A_eq=A_eq, b_eq=b_eq,
                  bounds=bounds, method="highs")
    if res.status == 2:
        return None
    if res.status == 3:
        return math.inf
    assert res.status == 0, res.message
    return -res.fun
