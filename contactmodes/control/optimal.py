"""``control``: the one-shot optimal controller at a state (issue 24; ``docs/control.md``).

Over every kinematically feasible acceptable mode ``c`` whose objective is unique (its ``w``
coefficients vanish, ``contactmodes.control.per_mode``), the torque of the unambiguous set
within the limits, ``T*_c ∩ L`` (flipping paper eq. (34)), that optimizes a linear objective ``J``;
the best mode wins. Alongside, the best torque when ambiguity is allowed (``T_c ∩ L`` only), so
the user sees the price of guaranteeing the behaviour.

Statuses (``ControlResult.status``)
-----------------------------------
``"optimal"``
    A mode has a non-empty ``T*_c ∩ L`` and the best of them a finite optimum: ``torque`` is
    guaranteed to produce ``mode`` (``unambiguous`` is true).
``"unbounded"``
    ``J`` is unbounded over some mode's ``T*_c ∩ L`` (add limits): no ``torque``.
``"ambiguous"``
    No mode has a non-empty ``T*_c ∩ L``, but some ``T_c ∩ L`` is: ``torque`` is the
    ambiguity-allowed optimum (``unambiguous`` false: the model may also predict another mode),
    ``None`` when that is unbounded.
``"ambiguous_objective"``
    Every acceptable mode with a torque in the limits has an objective that depends on the
    ambiguity variables ``w``: no ``torque``.
``"infeasible"``
    No acceptable mode has a torque within the limits: no ``torque``.
``"task_dropped"``
    With the system's task constraints no acceptable mode has a torque within the limits; the
    search was run again without them (as the RHex max-thrust controller does) and found
    ``torque`` (``unambiguous`` tells whether it is guaranteed).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

import numpy as np

from polytopes import Polytope

from contactmodes import tolerances
from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.limits import TorqueLimit, actuator_speeds, limit_polytope, parse_limit
from contactmodes.control.margin import actuator_lengths, default_margin
from contactmodes.control.spec import check_margin
from contactmodes.control.objective import LinearObjective, objective_for
from contactmodes.control.per_mode import ModeOptimum, Prediction, ScaledProblem, mode_optimum, predict
from contactmodes.control.selection import ModeSelection, parse_modes
from contactmodes.control.spec import ControlSpec
from contactmodes.errors import ContactModelError
from contactmodes.model.system import ContactSystem
from contactmodes.modes.contact_model import PlanarPointContact

__all__ = ["ControlResult", "SCHEMA", "STATUSES", "control"]

SCHEMA = "contactmodes.control/1"

#: Every ``ControlResult.status`` (module doc).
STATUSES = ("optimal", "unbounded", "ambiguous", "ambiguous_objective", "infeasible", "task_dropped")


@dataclass
class ControlResult:
    """The answer of ``control`` (SciPy-like: check ``status`` first), user units.

    Attributes
    ----------
    status : str
        One of ``STATUSES`` (module doc).
    mode : str or None
        The chosen mode.
    torque : numpy.ndarray or None
        ``(n_τ,)`` the torque to apply, in actuator order (system units).
    objective : float or None
        ``J`` at ``torque`` (the one objective reported for the torque).
    supremum : float or None
        The optimum over the closures of the chosen mode's set (``per_mode`` module doc), which
        ``torque`` approaches within the margin; not attained by ``torque`` in general.
    prediction : dict or None
        ``{"qdd": {coordinate: value}, "f": {contact: {component: value}}}`` at ``torque``, the
        components those of the system's contact model (``"t"``, ``"n"`` planar; ``"t1"``,
        ``"t2"``, ``"n"`` spatial); a value is ``None`` when the ambiguity variables move it.
    unambiguous : bool
        ``torque`` lies in the chosen mode's ``T*_c`` (the mode is guaranteed).
    alternatives : list[ModeOptimum]
        Every acceptable kinematically feasible mode (and every listed mode), best first.
    allowed : ModeOptimum or None
        The best mode when ambiguity is allowed (over ``T_c ∩ L``), ``None`` if none.
    task : bool
        Whether the task constraints were part of the behaviour (``False`` after
        ``"task_dropped"``).
    objective_spec : LinearObjective
        The objective.
    limits : dict[str, TorqueLimit]
        The limits used.
    modes : ModeSelection
        The acceptable modes.
    system : ContactSystem
        The system.
    unit : float
        The objective's size for unit nondimensional quantities (the scale of the tie rule,
        ``TIE_RTOL``); ``price`` is 0 for tied values.
    margin : float
        The margin used (system torque units, ``contactmodes.control.margin``): ``torque`` lies
        within it of the supremum point.
    clearance : float or None
        The radius (torque units) of the ball around ``torque`` (within its set's affine hull)
        certified inside ``T_c`` and outside the removed sets; ``inf`` for a single-point set,
        ``None`` without a guaranteed torque.
    """

    status: str
    mode: str | None
    torque: np.ndarray | None
    objective: float | None
    supremum: float | None
    prediction: dict | None
    unambiguous: bool
    alternatives: list[ModeOptimum]
    allowed: ModeOptimum | None
    task: bool
    objective_spec: LinearObjective = field(repr=False)
    limits: dict = field(repr=False)
    modes: ModeSelection = field(repr=False)
    system: ContactSystem = field(repr=False)
    unit: float = field(repr=False, default=0.0)
    margin: float = 0.0
    clearance: float | None = None

    @property
    def message(self) -> str:
        """One line explaining ``status``."""
        return _MESSAGES[self.status].format(mode=self.mode)

    @property
    def success(self) -> bool:
        """A guaranteed torque was found (``torque`` given and ``unambiguous``)."""
        return self.torque is not None and self.unambiguous

    @property
    def price(self) -> float | None:
        """How much ``J`` the guarantee costs: ``sign · (allowed − objective)`` (>= 0; the
        margin's share included), ``None`` when either is missing."""
        if self.objective is None or self.allowed is None or self.allowed.allowed_objective is None:
            return None
        if _tied(self.allowed.allowed_objective, self.objective, self.unit):
            return 0.0
        return self.objective_spec.sign * (self.allowed.allowed_objective - self.objective)

    def to_json(self) -> dict:
        """The ``contactmodes.control/1`` document (``docs/control.md``; arrays in system order,
        named by ``actuators``, ``coordinates`` and ``contacts``; ``null`` for none). A system
        whose contact model is not the planar point contact adds ``"components"``, each contact's
        force components in ``prediction.f`` (``["t1", "t2", "n"]``); a planar document is
        unchanged."""
        num = lambda v: None if v is None or not math.isfinite(v) else float(v)  # noqa: E731
        sys_ = self.system
        pred = None
        if self.prediction is not None:
            pred = {"qdd": list(self.prediction["qdd"].values()),
                    "f": [v for c in self.prediction["f"].values() for v in c.values()]}
        doc = {
            "schema": SCHEMA,
            "status": self.status,
            "message": self.message,
            "mode": self.mode,
            "torque": None if self.torque is None else [float(x) for x in self.torque],
            "objective": num(self.objective),
            "supremum": num(self.supremum),
            "margin": float(self.margin),
            "clearance": num(self.clearance),
            "unambiguous": bool(self.unambiguous),
            "prediction": pred,
            "task": self.task,
            "actuators": list(sys_.torques),
            "coordinates": list(sys_.coordinates),
            "contacts": list(sys_.contacts),
            "problem": {"objective": self.objective_spec.to_json(),
                        "limits": {k: v.to_json() for k, v in self.limits.items()},
                        "modes": self.modes.to_json()},
            "allowed": None if self.allowed is None else {
                "mode": self.allowed.mode,
                "torque": None if self.allowed.allowed_torque is None else [float(x) for x in self.allowed.allowed_torque],
                "objective": num(self.allowed.allowed_objective),
                "unbounded": self.allowed.allowed_torque is None},
            "alternatives": [a.to_json() for a in self.alternatives],
        }
        if not isinstance(sys_.contact_model, PlanarPointContact):
            doc["components"] = list(sys_.contact_model.components)
        return doc


_MESSAGES = {
    "optimal": "the best torque within the limits that guarantees its mode ({mode})",
    "unbounded": "the objective is unbounded over the guaranteed torques of mode {mode}: add limits",
    "ambiguous": "no torque within the limits guarantees an acceptable mode; the torque shown is the best "
                 "of mode {mode} if ambiguity is allowed (the model may also predict another mode)",
    "ambiguous_objective": "the objective is not unique (it depends on the ambiguity variables w) in every "
                           "acceptable mode with a torque within the limits",
    "infeasible": "no acceptable mode has a torque within the limits",
    "task_dropped": "no acceptable mode meets the task constraints within the limits; found without them "
                    "(mode {mode})",
}

#: What ``control`` accepts as the system.
SystemLike = Union[ContactSystem, Any, str, os.PathLike]


def _loaded(system: SystemLike):
    """``(ContactSystem, q̇ or None, ControlSpec, linear coordinates)`` of a system, a loaded file
    or a path (the linear coordinates of its mechanism; none for a bare ``ContactSystem``)."""
    if isinstance(system, ContactSystem):
        return system, None, ControlSpec(), ()
    if isinstance(system, (str, os.PathLike)):
        from contactmodes.system_file.loader import load_system_file

        system = load_system_file(Path(system))
    inner = getattr(system, "system", None)
    if isinstance(inner, ContactSystem):
        mech = getattr(system, "mechanism", None)
        return (inner, getattr(system, "qdot", None), getattr(system, "control", None) or ControlSpec(),
                () if mech is None else mech.linear_coordinates)
    raise ContactModelError(f"system: expected a ContactSystem, a loaded system file or a path, "
                            f"got {type(system).__name__}")


def _objective(system: ContactSystem, maximize, minimize, default: LinearObjective | None) -> LinearObjective:
    if maximize is not None and minimize is not None:
        raise ContactModelError("control.minimize: give maximize or minimize, not both")
    for sense, value in (("maximize", maximize), ("minimize", minimize)):
        if isinstance(value, LinearObjective):
            return value
        if value is not None:
            return objective_for(system, value, sense)
    if default is None:
        raise ContactModelError("control.maximize: no objective (give maximize or minimize, or a [control] "
                                "table with one in the system file)")
    return default


def _class_value(sign: float, alt: ModeOptimum) -> tuple[int, float]:
    """``(class, value)``: class 0 a guaranteed value, 1 an ambiguity-allowed one, 2 the rest;
    the value made larger-is-better by ``sign``."""
    if alt.status in ("optimal", "unbounded") and alt.supremum is not None:
        return 0, sign * alt.supremum
    if alt.status == "ambiguous" and alt.allowed_objective is not None:
        return 1, sign * alt.allowed_objective
    return 2, 0.0


def _tied(a: float, b: float, unit: float) -> bool:
    """Whether two optima are equal up to ``TIE_RTOL · max(|a|, |b|, unit)`` (``unit``: the
    objective's size for unit nondimensional quantities, so that the rule does not depend on units)."""
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= tolerances.TIE_RTOL * max(abs(a), abs(b), unit)


def _ordered(alts: list[ModeOptimum], sign: float, unit: float, order: Mapping[str, int]) -> list[ModeOptimum]:
    """Best first (``_class_value``); tied optima (``_tied``) in analysis order ``order``."""
    out: list[ModeOptimum] = []
    for cls in (0, 1, 2):
        items = sorted(((v, a) for a in alts for c, v in [_class_value(sign, a)] if c == cls), key=lambda t: -t[0])
        i = 0
        while i < len(items):
            j = i + 1
            while j < len(items) and _tied(items[i][0], items[j][0], unit):
                j += 1
            out += sorted((a for _, a in items[i:j]), key=lambda a: order[a.mode])
            i = j
    return out


def _prediction(system: ContactSystem, p: Prediction | None) -> dict | None:
    if p is None:
        return None
    parts = tuple(system.contact_model.components)
    n = len(parts)
    return {"qdd": dict(zip(system.coordinates, p.qdd)),
            "f": {c: dict(zip(parts, p.force[n * i:n * i + n])) for i, c in enumerate(system.contacts)}}


def _first_best(alts: list[ModeOptimum], sign: float, unit: float) -> ModeOptimum | None:
    """The ambiguity-allowed best of ``alts`` (analysis order): the first whose optimum over
    ``T_c ∩ L`` is tied (``_tied``) with the largest."""
    items = [(sign * a.allowed_objective, a) for a in alts if a.allowed_objective is not None]
    if not items:
        return None
    top = max(v for v, _ in items)
    return next(a for v, a in items if _tied(v, top, unit))


def _search(session: AnalysisSession, problem: ScaledProblem, selection: ModeSelection,
            task: bool) -> tuple[list[ModeOptimum], ModeOptimum | None]:
    """Every acceptable mode's optimum (the kinematically feasible ones, plus listed ones), best
    first, ties in analysis order; and the ambiguity-allowed best."""
    names = [m for m in session.enumeration.modes if selection.accepts(m)]
    names += [m for m in (selection.modes or ()) if m not in names]
    unit = float(np.linalg.norm(problem.c_x) + np.linalg.norm(problem.c_tau))
    alts = [mode_optimum(session, m, problem, task) for m in names]
    return (_ordered(alts, problem.sign, unit, {m: i for i, m in enumerate(names)}),
            _first_best(alts, problem.sign, unit))


def _decide(alts: list[ModeOptimum], best_allowed: ModeOptimum | None) -> tuple[str, ModeOptimum | None]:
    """``(status, chosen)`` from the ordered alternatives and the ambiguity-allowed best."""
    guaranteed = [a for a in alts if a.status in ("optimal", "unbounded")]
    if guaranteed:
        return guaranteed[0].status, guaranteed[0]
    if best_allowed is not None:
        return "ambiguous", best_allowed
    if any(a.status == "ambiguous_objective" for a in alts):
        return "ambiguous_objective", None
    return "infeasible", None


def control(system: SystemLike, maximize: str | LinearObjective | None = None,
            minimize: str | LinearObjective | None = None, limits: Mapping[str, Any] | None = None,
            modes: Any = None, *, qdot: Sequence[float] | None = None, task: bool = True,
            session: AnalysisSession | None = None, margin: float | None = None) -> ControlResult:
    """The torque within the limits that optimizes a linear objective while guaranteeing its mode.

    Parameters
    ----------
    system : ContactSystem or LoadedSystem or str or os.PathLike
        The model at its state, a loaded system file or its path; a file's ``[control]`` table
        gives the defaults (``contactmodes.control.spec``).
    maximize, minimize : str or LinearObjective, optional
        The objective (one of the two), e.g. ``"qdd.theta"`` or ``"tau.hip1 - tau.hip2"``
        (``contactmodes.control.objective``); replaces the file's.
    limits : Mapping[str, Any], optional
        Actuator → limit (``"LO:HI"``, ``(lo, hi)``, a table with ``lo``, ``hi``, ``tau_max``,
        ``omega_0`` or a ``TorqueLimit``; system units), merged over the file's per actuator.
    modes : str or Sequence[str] or Mapping[str, str] or ModeSelection, optional
        The acceptable modes: ``"all"``, a list of modes, or contact → letters (``{"tip":
        "F|S"}``); replaces the file's. Default all.
    qdot : array_like, optional
        ``(n_q,)`` the state's velocity, for torque–speed limits of a bare ``ContactSystem``
        (a file gives its own).
    task : bool, optional
        Include the system's task constraints in the behaviour (eqs. 15–18).
    session : AnalysisSession, optional
        An ``AnalysisSession`` of this system to reuse.
    margin : float, optional
        How far (Euclidean, system torque units; a force actuator's share times the characteristic
        length) the torque may lie from the supremum point so
        that it lies inside its set with clearance (``contactmodes.control.margin``); replaces the
        file's ``[control] margin``. Default ``MARGIN_RTOL`` (1e-3) times the system's
        characteristic torque ``m L² / T²``; 0 returns the supremum point (on a boundary).

    Returns
    -------
    ControlResult
        ``status``, ``mode``, ``torque`` (n_τ,), ``objective``, ``supremum``, ``margin``,
        ``clearance``, ``prediction``, ``unambiguous``, ``alternatives``, ``allowed``;
        ``to_json()`` gives ``contactmodes.control/1``.

    Raises
    ------
    ContactModelError
        A malformed objective, limit or mode selection (one line naming the field and the
        term), no objective at all, a torque–speed limit without ``qdot``, a ``session`` of
        another system, a margin that is not a finite number ``>= 0``; ``SystemFileError`` for
        a bad file.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-G and eq. (34) (``T*_c``), Sec. IV-B.2 (max-thrust control).

    Examples
    --------
    >>> import contactmodes as cm
    >>> r = cm.control("examples/painleve_rod.toml", maximize="qdd.y", limits={"M": "-10:10"})
    >>> r.status, r.mode, r.unambiguous   # M <= -3.656 N·m: separation and sliding both predicted
    ('ambiguous', 'S', False)
    >>> round(float(r.torque[0]), 6)      # N·m: the best of S, not guaranteed
    -10.0
    """
    sys_, file_qdot, spec, linear = _loaded(system)
    spec = _merged(sys_, spec, maximize, minimize, limits, modes,
                   None if margin is None else check_margin(margin, "margin"))
    delta = default_margin(sys_.scales) if spec.margin is None else spec.margin
    L = _limit_set(sys_, spec, file_qdot if qdot is None else qdot)
    if session is None:
        session = AnalysisSession(sys_)
    elif session.system is not sys_:
        raise ContactModelError("session: it analyses another system (pass the session's own system)")
    assert spec.objective is not None  # _merged raises without one
    lengths = actuator_lengths(sys_.S, sys_.coordinates, linear, sys_.scales.length)
    problem = ScaledProblem.of(session, spec.objective, L, delta, lengths)
    alts, allowed = _search(session, problem, spec.modes, task)
    status, chosen = _decide(alts, allowed)
    used_task = task
    if status == "infeasible" and task and any(c.kind == "task" for c in sys_.constraints):
        alts, allowed = _search(session, problem, spec.modes, False)
        retry, chosen = _decide(alts, allowed)
        if retry != "infeasible":
            status, used_task = "task_dropped", False
    unit = float(np.linalg.norm(problem.c_x) + np.linalg.norm(problem.c_tau))
    if chosen is not None and chosen.allowed_objective is not None and allowed is not None and \
            allowed.allowed_objective is not None and _tied(chosen.allowed_objective, allowed.allowed_objective, unit):
        allowed = chosen  # a tie: the chosen mode is also the ambiguity-allowed best
    result = ControlResult(status, None, None, None, None, None, False, alts, allowed, used_task, spec.objective,
                           spec.limits, spec.modes, sys_, unit, delta)
    if chosen is not None:
        _fill(result, chosen, session)
    return result


def _merged(system: ContactSystem, spec: ControlSpec, maximize, minimize, limits, modes,
            margin: float | None = None) -> ControlSpec:
    """The file's ``spec`` with the arguments of ``control`` over it (names checked)."""
    objective = _objective(system, maximize, minimize, spec.objective)
    given = {} if limits is None else limits
    if not isinstance(given, Mapping):
        raise ContactModelError(f"control.limits: must be a mapping of actuator to limit, got {given!r}")
    for name in given:
        if name not in system.torques:
            raise ContactModelError(f"control.limits.{name}: unknown actuator (actuators: {', '.join(system.torques)})")
    parsed = {str(k): parse_limit(v, f"control.limits.{k}") for k, v in given.items()}
    selection = None if modes is None else parse_modes(modes, system.contacts, letters=system.contact_model.letters)
    return spec.overridden(objective, parsed, selection, margin)


def _limit_set(system: ContactSystem, spec: ControlSpec, qdot) -> Polytope:
    """The limit polytope ``L`` over τ (system units) at the velocity ``qdot`` (``None``: unknown)."""
    v = None if qdot is None else np.asarray(qdot, dtype=float).reshape(-1)
    if v is not None and v.shape != (system.n_q,):
        raise ContactModelError(f"qdot: expected {system.n_q} values (one per coordinate), got {v.shape[0]}")
    if v is None and any(lim.tau_max is not None for lim in spec.limits.values()):
        raise ContactModelError("control.limits: a torque–speed line needs the state's velocity (pass qdot=)")
    return limit_polytope(spec.limits, system.torques, None if v is None else actuator_speeds(system.S, v))


def _fill(result: ControlResult, chosen: ModeOptimum, session: AnalysisSession) -> None:
    """Set ``result``'s mode, torque, objective and prediction from the chosen mode's optimum (the
    guaranteed one; for ``"ambiguous"`` the ambiguity-allowed one)."""
    system = result.system
    result.mode = chosen.mode
    if chosen.status == "optimal":
        result.torque, result.objective, result.supremum = chosen.torque, chosen.objective, chosen.supremum
        result.prediction, result.unambiguous = _prediction(system, chosen.prediction), True
        result.clearance = chosen.clearance
    elif chosen.status == "unbounded":
        result.supremum = chosen.supremum
    elif chosen.allowed_torque is not None:
        result.torque, result.objective = chosen.allowed_torque, chosen.allowed_objective
        result.supremum = chosen.allowed_objective
        tau_s = session.scaling.tau_from_user(chosen.allowed_torque)
        result.prediction = _prediction(system, predict(session, chosen.mode, tau_s, result.task))
