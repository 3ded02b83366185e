"""The real-time controller's step for systems with task equalities: the one-shot controller
(``contactmodes.control.control``) at the step's state.

The real-time plans (``contactmodes.realtime.plan``) refuse task equalities (a ``qdd_zero`` row:
the mode's response with the task differs from the one without it, and the plans build one
response per mode for both). A system file whose ``[[constraints]]`` have one
(``kind = "task"``, ``type = "eq"``) is still controlled: every step goes this way, the exact
path of ``contactmodes control`` on the step's ``ContactSystem`` (``MechanismStep.system``: the
mechanism's ``M``, ``h``, ``J``, ``J̇q̇`` at ``(q, q̇)``, the present contacts, the classified
contact velocities, the file's constraint rows) in a fresh ``AnalysisSession``: every
kinematically feasible mode's ``T_c`` with the task (its equalities included in the response,
eqs. 15–18), ``T*_c`` by eq. (34) with the ambiguity ordering of the README's *Decisions*, the
objective optimized over ``T*_c ∩ L`` (``contactmodes.control.per_mode``), the ambiguity-allowed
optimum over ``T_c ∩ L`` when no acceptable mode has an unambiguous torque, and the task dropped
when no acceptable mode meets it — the statuses of ``controllers.generic.search.optimize``.

It costs projections at every step (tens to hundreds of milliseconds for a few contacts), not
the fast path's LPs: a closed loop with task equalities runs, but not at a fast loop's rate
(``docs/simulate.md``).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.objective import LinearObjective
from contactmodes.control.optimal import control
from contactmodes.control.selection import ModeSelection

from .search import OptimalResult

__all__ = ["has_task_equalities", "one_shot_step"]

_PAIR = np.array([0, 1])


def has_task_equalities(constraints) -> bool:
    """Whether any of ``constraints`` is a task equality.

    Parameters
    ----------
    constraints : Iterable[LinearConstraint]
        Constraints of a system (``ContactSystem.constraints``), each with ``kind`` and ``type``.

    Returns
    -------
    bool
        True when one has ``kind == "task"`` and ``type == "eq"``.
    """
    return any(c.kind == "task" and c.type == "eq" for c in constraints)


def _status(result) -> str:
    """``optimize``'s status of a ``ControlResult`` with a torque."""
    if result.status == "optimal":
        return "optimal"
    if result.status == "task_dropped":
        return "task_dropped" if result.unambiguous else "task_dropped_ambiguous"
    return "ambiguous"


def one_shot_step(step, objective: LinearObjective, lo, hi, accept: Callable[[str], bool] | None = None,
                  label: Callable[[str], str] | None = None, margin: float | None = None) -> OptimalResult:
    """The optimal torque at one state through ``contactmodes.control.control`` (module doc).

    Parameters
    ----------
    step : MechanismStep
        The state (``controllers.generic.step.MechanismStep``; its ``system`` and
        ``contact_index`` are used).
    objective : LinearObjective
        The objective in user units, its ``force`` over all of the system's contacts (the
        columns of the contacts left out of the step are dropped: their force is zero).
    lo, hi : numpy.ndarray
        ``(n_τ,)`` the torque box at the state (user units, finite).
    accept : callable, optional
        ``accept(mode) -> bool`` over the step's present contacts: the modes that may be chosen
        (default all). Every feasible mode still counts for ambiguity.
    label : callable, optional
        ``label(mode) -> str``: the mode over all of the system's contacts
        (``OptimalResult.mode4``; default the mode itself).
    margin : float, optional
        The controller's margin (torque units, ``contactmodes.control.margin``): the torque lies
        within it of the supremum point, inside its set; default the system's own
        (``contactmodes.control.control``).

    Returns
    -------
    OptimalResult
        The torque (clipped to ``[lo, hi]``), mode, objective value (``value``; ``closure_value``
        the supremum over the closure of the chosen set) and the statuses of ``optimize``:
        ``"no_mode"`` with zero torque when no acceptable mode has a torque in the box (with or
        without the task rows) or every such mode's objective depends on the ambiguity
        variables. ``n_modes`` the kinematically feasible modes, ``n_examined`` and ``n_slow``
        the acceptable ones (every one through the exact path).

    Raises
    ------
    ContactModelError
        From the analysis (the controller records it as an error step).
    """
    system = step.system
    rows = (2 * np.asarray(step.contact_index)[:, None] + _PAIR).reshape(-1)
    obj = dataclasses.replace(objective, force=np.asarray(objective.force, dtype=float)[rows])
    session = AnalysisSession(system)
    feasible = list(session.enumeration.modes)
    selection = ModeSelection() if accept is None else ModeSelection(modes=tuple(m for m in feasible if accept(m)))
    lo_u, hi_u = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    limits = {a: (float(l), float(h)) for a, l, h in zip(system.torques, lo_u, hi_u)}
    result = control(system, maximize=obj, limits=limits, modes=selection, session=session,
                     margin=margin)
    n_acc = len(result.alternatives)
    if result.torque is None or result.mode is None or result.objective is None:
        return OptimalResult(np.zeros(step.n_tau), None, None, float("nan"), float("nan"), "no_mode",
                             n_modes=len(feasible), n_examined=n_acc, n_slow=n_acc)
    mode = result.mode
    tau = np.asarray(result.torque, dtype=float).clip(lo_u, hi_u)
    value = float(result.objective)
    closure = value if result.supremum is None else float(result.supremum)
    return OptimalResult(tau, mode, label(mode) if label is not None else mode, value, closure, _status(result),
                         n_modes=len(feasible), n_examined=n_acc, n_slow=n_acc)
