"""The generic controller's independent reference at one state (shared by its tests).

``reference_values``: an ``AnalysisSession`` of a ``ContactSystem`` in user units (not the
controller's scaled terms), ``contactmodes.analysis.ambiguity.unambiguous`` (``within_mode=False``)
for every kinematically feasible mode whose objective is unique (its ``w``-coefficients zero on
the SVD response's orthonormal null space), the pieces cut by the torque box and one LP per piece
for the objective: ``{mode: best J over T*_c ∩ L}``. Agreement with an answer: within
``VALUE_RTOL`` relative (LP optima over the same polytopes by different routes: batched dual
simplex on the lifted domains vs projections).
"""

from __future__ import annotations

import math

import numpy as np

from contactmodes.analysis.ambiguity import unambiguous
from contactmodes.analysis.session import AnalysisSession
from polytopes import Polytope, lp

VALUE_RTOL = 1e-6


def reference_values(system, objective, lo, hi, accept=None, modes=None, task: bool = True):
    """``({mode: best J over T*_c ∩ L}, session)`` (module doc; user units).

    Parameters
    ----------
    system : ContactSystem
        The state's system, user units.
    objective : LinearObjective
        Over ``system``'s contacts (``force`` of length ``2 system.k``).
    lo, hi : array_like
        ``(n_τ,)`` the torque box ``L``.
    accept : callable, optional
        ``accept(mode) -> bool``: the modes left out are not in the result.
    modes : iterable of str, optional
        Only these modes (default every kinematically feasible one).
    task : bool, optional
        With the task rows (``False``: the controller's ``task_dropped`` answers).

    Returns
    -------
    tuple
        The values (``J`` itself: the worst infinity for the objective's sense when ``T*_c ∩ L``
        is empty; modes whose objective depends on ``w`` are left out) and the session.
    """
    ses = AnalysisSession(system)
    sc = ses.scaling
    sign = objective.sign
    c_scaled = np.concatenate([objective.qdd * sc.qdd, objective.force * sc.force, objective.tau * sc.tau])
    cn = c_scaled / max(np.linalg.norm(c_scaled), 1e-300)
    L = Polytope.box(np.asarray(lo, float), np.asarray(hi, float))
    values = {}
    feasible = set(ses.enumeration.modes)
    for m in (ses.enumeration.modes if modes is None else [m for m in modes if m in feasible]):
        if accept is not None and not accept(m):
            continue
        rs = ses.mode(m).response_scaled(task)
        if rs.n_w and np.abs(cn[:rs.P_q.shape[0] + rs.P_f.shape[0]] @ rs.Q).max() > 1e-9:
            continue  # the objective depends on w: not a candidate
        r = ses.mode(m).response(task)
        g = objective.qdd @ r.P_q + objective.force @ r.P_f + objective.tau
        o = float(objective.qdd @ r.r_q + objective.force @ r.r_f)
        best = -math.inf
        for P in unambiguous(ses, m, task=task, within_mode=False).unambiguous:
            K = P.intersect(L)
            st, x, _ = lp.solve(-sign * g, K.A if K.n_ineq else None, K.b if K.n_ineq else None,
                                K.C if K.n_eq else None, K.d if K.n_eq else None)
            if st == lp.OPTIMAL:
                best = max(best, sign * float(g @ x + o))
        values[m] = sign * best
    return values, ses
