"""A user's linear objective in the generic search's nondimensional units
(``controllers.generic.search``): prepared once per controller (``ObjectivePlan``), converted at
each step (``plan_objective``), and read on a session's mode response for the slow path
(``session_objective``)."""

from __future__ import annotations

import numpy as np

__all__ = ["ObjectivePlan", "plan_objective", "session_objective"]


class ObjectivePlan:
    """A ``LinearObjective`` prepared once (when a controller is built) for ``plan_objective`` at
    every step: its sign, constant, force coefficients per contact, and whether it has a single
    term (then each step's conversion is one product and one division).

    Parameters
    ----------
    objective : LinearObjective
        ``contactmodes.control.objective.LinearObjective`` in user units.
    """

    def __init__(self, objective) -> None:
        self.objective = objective
        self.sign = float(objective.sign)
        self.constant = float(objective.constant)
        self.has_force = bool(objective.force.any())
        self.force2 = objective.force.reshape(-1, 2)
        terms = [(part, i, float(v)) for part, arr in (("qdd", objective.qdd), ("force", objective.force),
                                                       ("tau", objective.tau)) for i, v in enumerate(arr.tolist())
                 if v != 0.0]
        self.single = terms[0] if len(terms) == 1 else None


def plan_objective(objective, step) -> tuple[np.ndarray, float]:
    """A user objective in the plan's nondimensional units at ``step``.

    ``J = c_q·q̈ + c_f·f + c_τ·τ`` in user units is ``J = scale · (c'·(q̈', f', τ'))`` with
    ``c' = sign · (c_q ⊙ s, c_f ⊙ F, c_τ ⊙ u) / scale`` (``s``, ``F``, ``u`` the step's units of
    ``q̈``, ``f`` and ``τ``, ``contactmodes.model.scaling``), normalized to ``‖c'‖∞ = 1`` so that
    every decision is taken on the same numbers in any unit system; ``sign`` is ``-1`` for
    ``"minimize"`` (the plan always maximizes). A single coefficient becomes an exact unit vector.
    The units depend on the state (``s_j`` on ``M(q)``), so the conversion is made per step; what
    does not depend on it is prepared once (``ObjectivePlan``).

    Parameters
    ----------
    objective : LinearObjective or ObjectivePlan
        ``contactmodes.control.objective.LinearObjective`` over the system's contacts (``force``
        of length ``2k`` for all ``k`` of the system's contacts, in the (t, n) per-contact order),
        or its ``ObjectivePlan``.
    step : object
        The step (module doc): its ``terms``, ``n_q``, ``n_tau``, ``contacts`` and
        ``contact_index``.

    Returns
    -------
    tuple
        ``(c', scale)``: ``c'`` ``(n_q + 2k_step + n_τ,)`` over the step's present contacts,
        ``scale`` the signed factor with ``J = scale · J' (+ objective.constant)``; ``scale`` is
        ``sign`` and ``c'`` zero for an objective that is zero at this step.
    """
    plan = objective if isinstance(objective, ObjectivePlan) else ObjectivePlan(objective)
    t = step.terms
    sign = plan.sign
    if plan.single is not None:  # one term: the general rule below on one entry, the same numbers
        part, i, coef = plan.single
        n_q, k2 = step.n_q, 2 * len(step.contacts)
        c = np.zeros(n_q + k2 + step.n_tau)
        if part == "qdd":
            j, unit = i, t.qdd[i]
        elif part == "tau":
            j, unit = n_q + k2 + i, t.tau[i]
        else:
            present = list(step.contact_index)
            if i // 2 not in present:
                return c, sign
            j, unit = n_q + 2 * present.index(i // 2) + i % 2, t.force
        v = coef * unit
        if sign < 0.0:
            v = -v
        norm = float(abs(v))
        if norm == 0.0:
            return c, sign
        c[j] = v / norm
        return c, sign * norm
    obj = plan.objective
    if plan.has_force:
        cf = plan.force2[np.asarray(step.contact_index, dtype=int)].reshape(-1) * t.force
    else:
        cf = np.zeros(2 * len(step.contacts))
    c = np.concatenate([obj.qdd * t.qdd, cf, obj.tau * t.tau])
    if sign < 0.0:
        c = -c
    norm = float(np.abs(c).max(initial=0.0))
    if norm == 0.0:
        return c, sign
    return c / norm, sign * norm


def session_objective(resp, objective: np.ndarray) -> tuple[np.ndarray, float]:
    """The plan objective on a session's response: ``J = grad·τ + offset + Q-terms``.

    The slow path's objective (``contactmodes.modes.response.ModeResponse``, the same units).

    Parameters
    ----------
    resp : ModeResponse
        A mode's response (the step's scaled session).
    objective : numpy.ndarray
        ``(n_q + 2k + n_τ,)`` the plan objective over ``(q̈, f, τ)``.

    Returns
    -------
    grad : numpy.ndarray
        ``(n_τ,)``.
    offset : float
        The constant part.
    """
    n_q, k2 = resp.P_q.shape[0], resp.P_f.shape[0]
    cq, cf, ct = objective[:n_q], objective[n_q:n_q + k2], objective[n_q + k2:]
    grad = cq @ resp.P_q
    offset = cq @ resp.r_q
    if cf.any():
        grad = grad + cf @ resp.P_f
        offset = offset + cf @ resp.r_f
    if ct.any():
        grad = grad + ct
    return grad, float(offset)
