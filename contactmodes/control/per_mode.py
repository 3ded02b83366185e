"""One mode's part of the one-shot controller: the best torque of a linear objective over the
mode's unambiguous set within the limits, ``T*_c ∩ L``, and over ``T_c ∩ L`` (ambiguity allowed).

Everything here works in the session's nondimensional variables (``contactmodes.model.scaling``:
user value = unit × scaled value) and returns user units.

The problem (flipping paper eq. (34), as ``contactmodes.analysis.ambiguity.unambiguous``)
-------------------------------------------------------------------------------------------
With the mode's response ``q̈ = P_q τ + Q_q w + r_q``, ``f = P_f τ + Q_f w + r_f`` (eqs. (26)–(30))
the objective ``J = c_q·q̈ + c_f·f + c_τ·τ (+ c_0)`` is

    J = g·τ + (c_q Q_q + c_f Q_f)·w + g_0,   g = c_q P_q + c_f P_f + c_τ,   g_0 = c_q r_q + c_f r_f + c_0.

It is unique within the mode (the same for every solution at a torque) only when its ``w``
coefficients vanish: ``max |c_xᵀ Q| <= AMBIGUITY_ATOL · ‖c_x‖₂`` with ``c_x = (c_q, c_f)`` in the
nondimensional variables, where the columns of ``Q`` are orthonormal (the test of III-G.2 applied to
the objective's direction). Otherwise the mode is reported as ``"ambiguous_objective"``.

For a mode with a unique objective, with ``L`` the limit polytope and ``K = T_c ∩ L`` (the
projection of ``D_c ∩ L``, task constraints included when ``task``),

    T*_c ∩ L = K − ∪_{c'} (K ∩ T_c') − ∪_i (K ∩ T_c^i)          (34), cut to the limits

over every other kinematically feasible mode ``c'`` (``T_c'`` without task constraints) and every
task row ``i`` (within-mode sets), exactly the sources of ``unambiguous`` with ``K`` in place of
``T_c``.

Supremum and margin (``contactmodes.control.margin``)
---------------------------------------------------
``T*_c`` is a set difference, so its pieces are not closed. As ``polytopes.regions`` does, the
pieces are closures and a removed set of lower dimension than ``K`` (a shared face) removes
nothing; the *supremum* is the maximum over these closures (one LP per piece), attained at a
point ``τ°`` of the winning piece's boundary — on a removed set (a tie with the ambiguous region),
a friction-cone edge, a zero contact force. The torque returned is the margin rule's
(``contactmodes.control.margin``): within the margin ``δ`` (``ScaledProblem.margin``, torque units)
of ``τ°``, in the limits, with a ball of radius ``clearance`` around it (within the piece's
affine hull) inside ``T_c`` and outside every removed set, the best objective among such points.
The ``objective`` reported is ``J`` at that torque, the ``supremum`` the closure maximum (the
two differ by at most ``‖g‖ δ``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from polytopes import Polytope, difference

from contactmodes import tolerances
from contactmodes.analysis.ambiguity import across_mode_sets, mark_boundary_only, within_mode_sets
from contactmodes.analysis.session import AnalysisSession
from contactmodes.control.margin import piece_margin_point
from contactmodes.control.objective import LinearObjective

__all__ = ["ModeOptimum", "Prediction", "ScaledProblem", "mode_optimum"]

#: Statuses of one mode (``ModeOptimum.status``).
MODE_STATUSES = ("optimal", "unbounded", "ambiguous", "infeasible", "ambiguous_objective", "kinematically_infeasible")


@dataclass(frozen=True)
class ScaledProblem:
    """The objective and the limits in the session's nondimensional variables.

    Attributes
    ----------
    c_x : numpy.ndarray
        ``(n_q + n_f,)`` objective coefficients of ``[q̈'; f']`` (``n_f`` = components × contacts).
    c_tau : numpy.ndarray
        ``(n_τ,)`` objective coefficients of ``τ'``.
    constant : float
        ``c_0`` (the objective's unit).
    sign : float
        ``+1`` to maximize, ``-1`` to minimize.
    A_L, b_L : numpy.ndarray
        Limit rows ``A_L τ' <= b_L``, shapes ``(m, n_τ)``, ``(m,)``.
    margin : float
        ``δ`` of the margin rule (module doc), in the system's torque units (not scaled).
    lengths : numpy.ndarray or None
        ``(n_τ,)`` each actuator's factor to torque units in the margin's metric
        (``contactmodes.control.margin.actuator_lengths``); ``None``: all torques.
    """

    c_x: np.ndarray
    c_tau: np.ndarray
    constant: float
    sign: float
    A_L: np.ndarray
    b_L: np.ndarray
    margin: float = 0.0
    lengths: np.ndarray | None = None

    @classmethod
    def of(cls, session: AnalysisSession, objective: LinearObjective, limits: Polytope,
           margin: float = 0.0, lengths: np.ndarray | None = None) -> "ScaledProblem":
        """Scale ``objective`` (user units) and the limit polytope ``limits`` (over user τ);
        ``margin`` and ``lengths`` are kept as they are.

        ``J`` keeps its value: a coefficient of a quantity of unit ``u`` becomes ``u`` times it.

        Parameters
        ----------
        session : AnalysisSession
            The system's session; its ``scaling`` gives the units of ``q̈``, ``f`` and ``τ``.
        objective : LinearObjective
            The objective in user units (coefficients of ``q̈``, ``f``, ``τ``, a constant, a sense).
        limits : Polytope
            The limit polytope ``L`` over the user torque (``n_τ`` variables; N·m, N for a force);
            its equalities, if any, become pairs of inequalities.
        margin : float, optional
            ``δ`` of the margin rule (torque units, >= 0).
        lengths : numpy.ndarray or None, optional
            ``(n_τ,)`` each actuator's factor to torque units (``actuator_lengths``); ``None``:
            all torques.

        Returns
        -------
        ScaledProblem
            The objective and the limit rows over the nondimensional ``(q̈', f', τ')``.
        """
        sc = session.scaling
        c_x = np.concatenate([objective.qdd * sc.qdd, objective.force * sc.force])
        A = limits.A * sc.tau[None, :]
        if limits.n_eq:  # equalities as two inequalities (the limit polytope has none)
            C = limits.C * sc.tau[None, :]
            A, b = np.vstack([A, C, -C]), np.concatenate([limits.b, limits.d, -limits.d])
        else:
            b = limits.b
        return cls(c_x, objective.tau * sc.tau, objective.constant, objective.sign, A, b, float(margin), lengths)

    def metric_units(self, session: AnalysisSession) -> np.ndarray:
        """The torque-unit size of one scaled unit of each actuator (the margin's metric).

        Parameters
        ----------
        session : AnalysisSession
            The session whose ``scaling.tau`` (the actuator units) this problem was scaled by.

        Returns
        -------
        numpy.ndarray
            ``(n_τ,)`` the actuator units times ``lengths`` (N·m per scaled unit).
        """
        u = session.scaling.tau
        return u if self.lengths is None else u * self.lengths

    def lifted(self, n_w: int) -> tuple[np.ndarray, np.ndarray]:
        """The limit rows over ``(τ', w)`` (zero ``w`` columns).

        Parameters
        ----------
        n_w : int
            The number of ambiguity variables ``w`` of the mode (>= 0).

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray]
            ``(A, b)``: ``A`` ``(m, n_τ + n_w)`` the limit rows ``A_L`` with ``n_w`` zero columns,
            ``b`` ``(m,)`` their right-hand sides ``b_L``.
        """
        return np.hstack([self.A_L, np.zeros((self.A_L.shape[0], n_w))]), self.b_L


@dataclass
class Prediction:
    """``q̈`` and ``f`` at a torque in a mode (user units); ``None`` for a component that the
    ambiguity variables move (not unique at that torque).

    Attributes
    ----------
    qdd : list[float or None]
        ``(n_q,)`` in coordinate order.
    force : list[float or None]
        ``(n_f,)`` per contact in the contact model's component order (planar ``(t_1, n_1, …)``,
        spatial ``(t1_1, t2_1, n_1, …)``).
    """

    qdd: list
    force: list

    def to_json(self) -> dict:
        """``{"qdd": [...], "f": [...]}`` (``null`` where not unique)."""
        return {"qdd": self.qdd, "f": self.force}


@dataclass
class ModeOptimum:
    """The best torque of one mode (module doc), user units.

    Attributes
    ----------
    mode : str
        The mode string.
    status : str
        ``"optimal"`` (finite optimum over ``T*_c ∩ L``), ``"unbounded"`` (``J`` unbounded
        over it), ``"ambiguous"`` (``T_c ∩ L`` non-empty, ``T*_c ∩ L`` empty), ``"infeasible"``
        (``T_c ∩ L`` empty), ``"ambiguous_objective"`` (``J`` depends on ``w``) or
        ``"kinematically_infeasible"`` (listed but pruned by the enumeration).
    torque : numpy.ndarray or None
        ``(n_τ,)`` the torque in ``T*_c ∩ L``, ``None`` unless ``"optimal"``.
    objective : float or None
        ``J`` at ``torque``.
    supremum : float or None
        The optimum of ``J`` over the closures of ``T*_c ∩ L`` (``±inf`` when unbounded).
    nudged : bool
        ``torque`` is not the supremum point ``τ°`` (the margin rule moved it; module doc).
    clearance : float or None
        The radius (torque units) of the ball around ``torque``, within the piece's affine hull,
        certified inside ``T_c`` and outside the removed sets (``inf`` for a single-point piece,
        0 without a margin); ``None`` unless ``"optimal"``.
    distance : float or None
        ``‖torque − τ°‖₂`` (torque units), at most the margin.
    allowed_torque : numpy.ndarray or None
        ``(n_τ,)`` the optimizer over ``T_c ∩ L`` (ambiguity allowed), ``None`` if none or
        unbounded.
    allowed_objective : float or None
        Its ``J`` (``±inf`` when unbounded, ``None`` when ``T_c ∩ L`` is empty or ``J`` is
        ambiguous).
    sources : list[str]
        The modes and task rows (``"task:<i>"``) whose sets were removed from ``T_c ∩ L``.
    prediction : Prediction or None
        ``q̈`` and ``f`` at ``torque``.
    """

    mode: str
    status: str
    torque: np.ndarray | None = None
    objective: float | None = None
    supremum: float | None = None
    nudged: bool = False
    clearance: float | None = None
    distance: float | None = None
    allowed_torque: np.ndarray | None = None
    allowed_objective: float | None = None
    sources: list = field(default_factory=list)
    prediction: Prediction | None = None

    def to_json(self) -> dict:
        """The alternative entry of ``contactmodes.control/1`` (``null`` for none; an unbounded
        value is ``null`` with the status saying so)."""
        num = lambda v: None if v is None or not math.isfinite(v) else float(v)  # noqa: E731
        arr = lambda v: None if v is None else [float(x) for x in v]  # noqa: E731
        return {"mode": self.mode, "status": self.status, "torque": arr(self.torque),
                "objective": num(self.objective), "supremum": num(self.supremum), "nudged": self.nudged,
                "clearance": num(self.clearance), "distance": num(self.distance),
                "allowed": {"torque": arr(self.allowed_torque), "objective": num(self.allowed_objective)},
                "sources": list(self.sources),
                "prediction": None if self.prediction is None else self.prediction.to_json()}


def objective_is_unique(problem: ScaledProblem, Q: np.ndarray) -> bool:
    """Whether ``J`` has no ``w`` part in a mode (module doc: ``max |c_xᵀ Q| <= AMBIGUITY_ATOL ·
    ‖c_x‖₂``, the rule of ``contactmodes.modes.response.batched_responses`` on the unit objective,
    so that the real-time controllers and this one accept the same modes).

    Parameters
    ----------
    problem : ScaledProblem
        The scaled objective; its ``c_x`` ``(n_q + n_f,)`` is read.
    Q : numpy.ndarray
        ``(n_q + n_f, n_w)`` the mode's null-space block of the scaled response (eqs. (26)–(30)),
        orthonormal columns.

    Returns
    -------
    bool
        True when ``J`` is the same for every solution at a torque (always for ``n_w = 0``).
    """
    if Q.shape[1] == 0:
        return True
    return float(np.abs(problem.c_x @ Q).max()) <= tolerances.AMBIGUITY_ATOL * float(np.linalg.norm(problem.c_x))


def predict(session: AnalysisSession, mode: str, tau_scaled: np.ndarray, task: bool) -> Prediction:
    """``q̈`` and ``f`` of ``mode`` at a torque, from its response (eqs. (26)–(30)).

    Parameters
    ----------
    session : AnalysisSession
        The system's session.
    mode : str
        A kinematically feasible mode string of the system.
    tau_scaled : numpy.ndarray
        ``(n_τ,)`` the torque ``τ'`` (nondimensional, the session's scaling).
    task : bool
        Use the response with the task constraints.

    Returns
    -------
    Prediction
        ``q̈`` (m/s², rad/s²) and ``f`` (N) in user units; ``None`` for a component whose row of
        ``Q`` is non-zero (above ``AMBIGUITY_ATOL``: not unique at that torque).
    """
    resp = session.mode(mode).response_scaled(task)
    sc = session.scaling
    x = (resp.P @ tau_scaled + resp.r) * sc.x
    unique = np.abs(resp.Q).max(axis=1, initial=0.0) <= tolerances.AMBIGUITY_ATOL
    values = [float(v) if u else None for v, u in zip(x, unique)]
    n_q = session.system.n_q
    return Prediction(values[:n_q], values[n_q:])


def _best_piece(pieces: list[Polytope], d: np.ndarray) -> tuple[float, np.ndarray | None, Polytope | None]:
    """``(max d·τ', maximizer, piece)`` over ``pieces`` (``-inf`` if none, ``inf`` unbounded)."""
    best: tuple[float, np.ndarray | None, Polytope | None] = (-math.inf, None, None)
    for P in pieces:
        v = P.support(d)
        if v == math.inf:
            return math.inf, None, P
        if v > best[0]:
            best = (float(v), P.argmax(d), P)
    return best


def mode_optimum(session: AnalysisSession, mode: str, problem: ScaledProblem, task: bool = True) -> ModeOptimum:
    """The best torques of ``mode`` over ``T*_c ∩ L`` and ``T_c ∩ L`` (module doc).

    Parameters
    ----------
    session : AnalysisSession
        The analysis session of the system (its domains are reused).
    mode : str
        A mode string of the system.
    problem : ScaledProblem
        Objective and limits in the session's variables.
    task : bool, optional
        Include the task constraints (eqs. 15–18) in the desired behaviour.

    Returns
    -------
    ModeOptimum
        User units (torques in the system's torque units, ``J`` in the objective's).
    """
    sol = session.mode(mode)
    if not sol.kinematically_feasible:
        return ModeOptimum(mode, "kinematically_infeasible")
    if not sol.feasible(task):
        return ModeOptimum(mode, "infeasible")
    resp = sol.response_scaled(task)
    extra = problem.lifted(resp.n_w)
    unique = objective_is_unique(problem, resp.Q)
    g = problem.c_x @ resp.P + problem.c_tau
    g0 = float(problem.c_x @ resp.r) + problem.constant
    d = problem.sign * g
    allowed = sol.maximize_scaled(d if unique else np.zeros_like(d), task, extra)
    if allowed is None:
        return ModeOptimum(mode, "infeasible")
    if not unique:
        return ModeOptimum(mode, "ambiguous_objective")
    sc = session.scaling
    J = lambda tau: float(g @ tau + g0)  # noqa: E731
    out = ModeOptimum(mode, "ambiguous")
    if allowed[1] is None:
        out.allowed_objective = problem.sign * math.inf
    else:
        tau_a = allowed[1][: resp.P.shape[1]]
        out.allowed_torque, out.allowed_objective = sc.tau_to_user(tau_a), J(tau_a)
    K = sol.projected_scaled(extra, task=task)
    if K is None:  # pragma: no cover - the lifted LP above found D_c ∩ L non-empty
        return ModeOptimum(mode, "infeasible")
    sources = across_mode_sets(session, mode, K, session.enumeration.modes)
    if task:
        sources += within_mode_sets(session, mode, K)
    sources = mark_boundary_only(sources, K.affine_dimension())
    removed = [p for s in sources if not s.boundary_only for p in s.set]
    out.sources = [s.source for s in sources if not s.boundary_only]
    pieces = difference(K, removed) if removed else [K]
    value, tau, piece = _best_piece(pieces, d)
    if value == math.inf:
        out.status, out.supremum = "unbounded", problem.sign * math.inf
        return out
    if tau is None or piece is None:
        return out
    closure = J(tau)
    mp = piece_margin_point(piece, tau, d, problem.metric_units(session), (problem.A_L, problem.b_L), problem.margin)
    out.nudged, out.clearance, out.distance = mp.distance > 0.0, mp.clearance, mp.distance
    tau = mp.tau
    out.status, out.torque, out.objective, out.supremum = "optimal", sc.tau_to_user(tau), J(tau), closure
    out.prediction = predict(session, mode, tau, task)
    return out
