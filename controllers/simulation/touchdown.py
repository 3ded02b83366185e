"""Touchdown events of a MuJoCo run, beside the toolkit's predicted plastic impact.

Detection (``TouchdownDetector``, fed by the control loop at every MuJoCo step ``j`` with the
state ``x_j`` the step began from and the contact reading of that step's forward pass,
``controllers.simulation.modes.read_contacts``): contact ``i`` *touches down* at step ``j`` when

* its normal force was at most the mode letters' force threshold over the ``QUIET_S`` (1 ms)
  before step ``j`` (or since the start of the run) and exceeds it at step ``j``, and
* its normal velocity at ``x_j`` (before the force has acted: the force of step ``j`` changes the
  velocity of ``x_{j+1}``) is below ``−v_slip``, the mode letters' slip threshold
  (``ModeThresholds.slip_tol``): it approaches.

A contact that starts loaded, re-loads at a slower speed, or after less than ``QUIET_S`` in the
air (the micro-hops of a few µm of a loaded soft contact, which MuJoCo makes at about the slip
threshold's speed) is no touchdown. Several contacts touching down at one step give one event each, with
the same pre-impact state.

Observation: ``after_s`` later (default ``AFTER_S`` = 3 ms: a few contact time constants,
MuJoCo's ``solref`` being ``2 dt`` = 1 ms at the default step, ``controllers.simulation.model``;
MuJoCo's impulse is over by then) the event records MuJoCo's velocity ``q̇``, the contact's normal
velocity and the mode letters of the contacts' mean force and velocity over the second half of
that window (the mean, as the loop's letters: a soft contact presses in micro-hops). The window's
continuous-time forces (gravity: ``g · after_s`` = 3 cm/s) are in the observed velocity.

Prediction (``touchdown_entries``): ``contactmodes.impact`` at the pre-impact state ``(q_j,
q̇_j)`` of the toolkit's mechanism, without pseudo-impulse. The contacts present are those whose
gap is at most MuJoCo's contact margin plus the distance the fastest contact point covers in one
step (MuJoCo pushes within its margin, so a touching-down contact is not at gap 0 exactly), and
each contact's Table III threshold is at least ``v_slip``: the speed under which the loop counts a
soft contact as at rest. Reported: every consistent outcome's mode and ``q̇⁺`` and the one the
generic controller would follow (``controllers.generic.touchdown.choose_outcome``).

MuJoCo's contacts are soft and not perfectly plastic: on drops of the thesis' block at 0.54 m/s
(``tests/controllers/simulation/test_sim_touchdown.py``) MuJoCo's velocity change is the plastic
one times ``1 + e`` with a restitution ``e`` of 0.04–0.12 (0.08 at the default step and critical
damping, ``dampratio`` 1; 0.04 overdamped), the rest (direction, the corner's sticking) agreeing
within 0.1 % of the velocity change; with ``e`` > 0 the landing corner bounces off (observed
``S`` where the prediction keeps it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .modes import ModeThresholds, mode_letters

__all__ = ["AFTER_S", "QUIET_S", "TouchdownEvent", "TouchdownDetector", "touchdown_entries"]

AFTER_S = 0.003
"""Default delay (s) after a touchdown at which MuJoCo's post-impact velocity is read."""

QUIET_S = 0.001
"""A contact touches down only after at least this long (s) without force (module docstring)."""


@dataclass
class TouchdownEvent:
    """One touchdown of a run (module docstring), SI units.

    Attributes
    ----------
    t : float
        Time (s) of the state ``x_j`` the contact's force first appears at.
    contact : int
        The contact's index.
    vn_before : float
        Its normal velocity at ``x_j`` (m/s, negative).
    q_before, qdot_before : numpy.ndarray
        ``(n_q,)`` the pre-impact state ``x_j``.
    after_s : float
        The observation delay (s).
    qdot_after : numpy.ndarray or None
        ``(n_q,)`` MuJoCo's velocity ``after_s`` later (``None`` if the run ended first).
    modes_after : str or None
        The letters of the mean contact force and velocity over the second half of the window.
    vn_after : float or None
        The contact's normal velocity (m/s) ``after_s`` later, at the last step of the window.
    """

    t: float
    contact: int
    vn_before: float
    q_before: np.ndarray
    qdot_before: np.ndarray
    after_s: float
    qdot_after: np.ndarray | None = None
    modes_after: str | None = None
    vn_after: float | None = None
    _steps: int = field(default=0, repr=False)
    _f: list = field(default_factory=list, repr=False)
    _v: list = field(default_factory=list, repr=False)


class TouchdownDetector:
    """Detects touchdowns step by step (module docstring).

    Parameters
    ----------
    plant : Plant
        The simulated plant.
    thresholds : ModeThresholds, optional
        The mode letters' thresholds (force and slip).
    after_s : float, optional
        Observation delay (s), default ``AFTER_S``.
    """

    def __init__(self, plant, thresholds: ModeThresholds | None = None, after_s: float = AFTER_S) -> None:
        self.plant = plant
        self.thresholds = ModeThresholds() if thresholds is None else thresholds
        self.f_tol = self.thresholds.force_tol(plant)
        self.v_tol = self.thresholds.slip_tol(plant)
        self.dt = float(plant.model.opt.timestep)
        self.n_after = max(1, int(round(after_s / self.dt)))
        self.after_s = self.n_after * self.dt
        self.n_quiet = max(1, int(round(QUIET_S / self.dt)))
        self.events: list[TouchdownEvent] = []
        self._pending: list[TouchdownEvent] = []
        self._quiet: np.ndarray | None = None  # per contact: steps without force so far

    def update(self, t: float, q: np.ndarray, qdot: np.ndarray, force: np.ndarray, velocity: np.ndarray,
               qdot_next: np.ndarray) -> None:
        """Record one MuJoCo step.

        Parameters
        ----------
        t : float
            The step's start time (s).
        q : numpy.ndarray
            ``(n_q,)`` the state the step began from (m, rad).
        qdot : numpy.ndarray
            ``(n_q,)`` its velocity (m/s, rad/s).
        force : numpy.ndarray
            ``(k, 2)`` the step's contact forces ``(f_t, f_n)`` (N).
        velocity : numpy.ndarray
            ``(k, 2)`` the contact points' velocities ``(v_t, v_n)`` (m/s).
        qdot_next : numpy.ndarray
            ``(n_q,)`` the velocity after the step.
        """
        loaded = force[:, 1] > self.f_tol
        for ev in self._pending:
            ev._steps += 1
            if ev._steps > self.n_after // 2:
                ev._f.append(force.copy())
                ev._v.append(velocity.copy())
            if ev._steps == self.n_after:
                ev.vn_after = float(velocity[ev.contact, 1])
                ev.qdot_after = np.array(qdot_next, dtype=float)
                ev.modes_after = mode_letters(self.plant, np.mean(ev._f, axis=0), np.mean(ev._v, axis=0),
                                              self.thresholds)
        self._pending = [ev for ev in self._pending if ev.qdot_after is None]
        if self._quiet is None:  # the first step: no history, the contacts have been quiet
            self._quiet = np.full(loaded.shape, self.n_quiet)
        quiet = self._quiet >= self.n_quiet
        for i in np.flatnonzero(loaded & quiet & (velocity[:, 1] < -self.v_tol)).tolist():
            ev = TouchdownEvent(t=float(t), contact=i, vn_before=float(velocity[i, 1]), q_before=np.array(q, float),
                                qdot_before=np.array(qdot, float), after_s=self.after_s)
            ev._steps = 1
            if self.n_after == 1:
                ev.vn_after = float(velocity[i, 1])
                ev.qdot_after = np.array(qdot_next, dtype=float)
                ev.modes_after = mode_letters(self.plant, force, velocity, self.thresholds)
            else:
                self._pending.append(ev)
            self.events.append(ev)
        self._quiet = np.where(loaded, 0, self._quiet + 1)

    def finished(self) -> list[TouchdownEvent]:
        """Every event (those whose window outlasted the run keep ``qdot_after = None``)."""
        return list(self.events)


def _prediction(loaded: Any, plant, ev: TouchdownEvent, v_slip: float) -> dict:
    """The predicted entry of one event (module docstring)."""
    import contactmodes as cm
    from controllers.generic.touchdown import choose_outcome, impact_system

    template = loaded.system
    speed = float(np.abs(loaded.mechanism.dynamics(ev.q_before, ev.qdot_before).v_contact).max(initial=0.0))
    gap_tol = plant.settings.margin_rel * plant.length + speed * float(plant.model.opt.timestep)
    try:
        system, keep, _ = impact_system(loaded.mechanism, template, ev.q_before, ev.qdot_before, gap_tol,
                                        v0_floor=v_slip)
        result = cm.impact(system, qdot=ev.qdot_before)
    except cm.ContactModelError as exc:
        return {"consistent_modes": [], "chosen": None, "outcomes": [], "error": str(exc)}
    chosen, _ = choose_outcome(result)
    k = len(template.contacts)

    def label(mode: str) -> str:
        letters = ["S"] * k
        for i, c in zip(keep.tolist(), mode):
            letters[i] = c
        return "".join(letters)

    coords = list(template.coordinates)
    outcomes = [{"mode": label(o.mode), "qdot_plus": {c: float(v) for c, v in zip(coords, np.asarray(o.qdot_plus))},
                 "qdot_plus_ambiguous": o.qdot_plus_set is not None, "energy_loss_j": float(o.energy_loss or 0.0)}
                for o in result.outcomes if o.consistent]  # a consistent outcome has its q̇⁺ and loss
    return {"consistent_modes": [o["mode"] for o in outcomes], "chosen": None if chosen is None else label(chosen.mode),
            "outcomes": outcomes, "error": None}


def touchdown_entries(events: list[TouchdownEvent], loaded: Any, plant,
                      thresholds: ModeThresholds | None = None) -> list[dict]:
    """The ``touchdowns`` entries of the ``contactmodes.simulation/1`` document.

    Parameters
    ----------
    events : list[TouchdownEvent]
        ``SimulationRun.touchdowns``.
    loaded : LoadedSystem
        The system file (its mechanism and ``ContactSystem``: names, ``mu``, ``v0``).
    plant : Plant
        The simulated plant (margin, time step).
    thresholds : ModeThresholds, optional
        The thresholds of the run.

    Returns
    -------
    list[dict]
        Per event: ``t_s``, ``contact``, ``vn_before_m_s``, ``q_before``, ``qdot_before`` (keyed by
        coordinate), ``predicted`` (``consistent_modes``, ``chosen``, ``outcomes``: per consistent
        outcome ``mode``, ``qdot_plus``, ``qdot_plus_ambiguous``, ``energy_loss_j``; ``error``: a
        message when the toolkit refused the state, else ``null``) and ``observed`` (``after_s``,
        ``qdot`` keyed by coordinate, ``modes`` and the contact's normal velocity ``vn_m_s``; ``null``
        when the run ended first).
    """
    th = ModeThresholds() if thresholds is None else thresholds
    v_slip = th.slip_tol(plant)
    coords = list(loaded.system.coordinates)
    keyed = lambda v: {c: float(x) for c, x in zip(coords, v)}  # noqa: E731
    out = []
    for ev in events:
        observed = None
        if ev.qdot_after is not None:
            observed = {"after_s": float(ev.after_s), "qdot": keyed(ev.qdot_after), "modes": ev.modes_after,
                        "vn_m_s": float(ev.vn_after if ev.vn_after is not None else np.nan)}
        out.append({"t_s": float(ev.t), "contact": plant.contacts[ev.contact], "vn_before_m_s": float(ev.vn_before),
                    "q_before": keyed(ev.q_before), "qdot_before": keyed(ev.qdot_before),
                    "predicted": _prediction(loaded, plant, ev, v_slip), "observed": observed})
    return out
