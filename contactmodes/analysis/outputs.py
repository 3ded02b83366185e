"""Each mode's polytope projected onto chosen linear outputs (issue 40, item 5).

An *output* is a linear expression of the objective language (``contactmodes.control.objective``)

    y_i = a_i·q̈ + b_i·f + c_i·τ + e_i

naming ``qdd.<coordinate>``, ``f.<contact>.<component>`` and ``tau.<actuator>`` with sums and
coefficients. In a mode ``c`` the response (eqs. 26–31, ``ModeResponse``) makes ``q̈`` and ``f``
affine in ``(τ, w)``, so ``y = G (τ, w) + g``, and the mode's *output set* is

    Y_c = {G z + g : z = (τ, w) ∈ D_c}                                            (D_c: eq. 33)

the projection onto ``y`` of the lifted polytope ``{(τ, w, y) : (τ, w) ∈ D_c, y = G (τ, w) + g}``
(``polytopes.project``: verified as every projection is; its support-function method comes first
when the outputs are few, ``polytopes.projection.support_first``).

Decisions
---------
* **Input.** When ``project(method="auto")`` goes to the support-LP method first
  (``support_first``: at most three outputs, enough eliminated variables), the lifted polytope is
  built on the raw ``D_c`` (the same set, not reduced), as ``T_c`` is; otherwise on ``D_c`` reduced.
* **Units.** The projection runs in the session's nondimensional variables ``(τ', w)``
  (``contactmodes.model.scaling``) and on scaled outputs ``y'_i = y_i / s_i``, with ``s_i`` the
  output's characteristic unit ``Σ |coefficient| × unit`` over the quantities it names (the units of
  ``q̈``, ``f`` and ``τ`` of ``Scaling``): every emptiness, rank and redundancy decision is taken in
  a problem of unit scale. ``Y_c`` is returned in the system's units (``y = s ∘ y'``).
* **Fixed torques.** By default every torque is free (``Y_c`` ranges over all of ``D_c``). Torques
  may be fixed at given values (``--fix "tau.hip=0.5, tau.knee=0"``, ``fix={"hip": 0.5}``): equality
  rows ``τ_k = v_k`` in the lifted polytope; a mode with no solution at those torques has no output
  set (``None``).
* **Guaranteed outputs** (``--unambiguous``). For a piece ``P`` of ``T*_c`` (the torques that
  produce mode ``c`` and nothing else, ``contactmodes.analysis.ambiguity``), the outputs reachable
  from it are the projection of ``{(τ, w, y) : (τ, w) ∈ D_c, τ ∈ P, y = G (τ, w) + g}``: the
  outputs the mode *guarantees* are those a torque of ``T*_c`` produces with the mode itself
  guaranteed. When ``w`` moves an output (III-G.2: the model admits several solutions of the same
  mode at one torque) a torque does not determine ``y``; each output's *spread*
  ``max { y_i(τ, w₁) − y_i(τ, w₂) : (τ, w₁), (τ, w₂) ∈ D_c }`` (one LP per output, ``0`` when the
  ``w`` columns of ``G'`` vanish) is reported, and ``determined`` is ``False`` when the spread exceeds
  ``OUTPUT_SPREAD_ATOL`` (``contactmodes.tolerances``, on the scaled output). The sets are then still
  the outputs *reachable* (some solution of the mode has them), not outputs every solution has.
* **Two outputs, many modes** (issue 40, item 6). With exactly two outputs, no fixed torque, no
  ``--unambiguous`` and the default method, the sets ``Y_c`` of all feasible modes are computed
  together by ``polytopes.planar_projections`` (a batched angular sweep of verified support
  LPs over the raw ``D_c``, its own certificates as verification: that module's doc), the same
  sets as the per-mode projection gives (``tests/test_outputs_planar.py``). A mode the sweep does
  not certify (a lower-dimensional ``Y_c``, an undecided LP) is projected by the per-mode path.
  Solo-12 standing (10^4 modes, ``benchmarks/bench_outputs.py``): about 60 times faster than the
  per-mode path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import numpy as np

from polytopes import Polytope
from polytopes import planar_projections
from polytopes.projection import support_first

from contactmodes import tolerances
from contactmodes.control.objective import LinearObjective, parse_objective
from contactmodes.errors import ContactModelError
from contactmodes.progress import stage

__all__ = ["OutputSpec", "ModeOutputs", "OutputAnalysis", "parse_outputs", "parse_fix", "mode_outputs",
           "output_spec", "output_analysis", "planar_outputs"]


@dataclass(frozen=True)
class OutputSpec:
    """The outputs asked for and the torques held fixed.

    Parameters
    ----------
    expressions : tuple[LinearObjective, ...]
        One parsed expression per output (``parse_outputs``), in the system's units.
    fixed : dict[int, float]
        Actuator index → its fixed value (the system's torque units: N·m, or N on a linear
        coordinate); empty when every torque is free.
    actuators : tuple[str, ...]
        The system's actuator names (for reports).
    """

    expressions: tuple[LinearObjective, ...]
    fixed: dict = field(default_factory=dict)
    actuators: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        """The outputs' texts, as given (each stripped)."""
        return [e.text for e in self.expressions]

    def to_json(self) -> dict:
        """``{"expressions": [text...], "fixed": {actuator: value}}``."""
        return {"expressions": self.names,
                "fixed": {self.actuators[k]: float(v) for k, v in sorted(self.fixed.items())}}


def _split_top(text: str) -> list[str]:
    """``text`` cut at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_outputs(system, outputs: str | Sequence[str], where: str = "--outputs") -> tuple[LinearObjective, ...]:
    """Parse the outputs: a comma-separated text or a list of expressions.

    Parameters
    ----------
    system : ContactSystem
        Its ``coordinates``, ``contacts`` and ``torques`` name the quantities.
    outputs : str or Sequence[str]
        ``"qdd.x, qdd.theta"`` or ``["qdd.x", "f.tip.n + f.heel.n"]``: expressions of the objective
        language (``contactmodes.control.objective.parse_objective``).
    where : str, optional
        The field named in error messages (``"--outputs"``; ``"outputs"`` from Python).

    Returns
    -------
    tuple[LinearObjective, ...]
        One expression per output, in the order given.

    Raises
    ------
    ContactModelError
        One line naming ``where``: no output, a bad expression (``parse_objective``'s message), an
        expression naming no quantity (a constant), or the same expression twice.
    """
    if isinstance(outputs, str):
        texts = _split_top(outputs)
    elif isinstance(outputs, Sequence) and all(isinstance(t, str) for t in outputs):
        texts = list(outputs)
    else:
        raise ContactModelError(f"{where}: expected a text or a list of texts, got {type(outputs).__name__}")
    texts = [t.strip() for t in texts]
    if not texts or any(not t for t in texts):
        raise ContactModelError(f"{where}: expected comma-separated expressions such as 'qdd.x, qdd.theta', "
                                f"got {outputs!r}")
    parsed = tuple(parse_objective(t, system.coordinates, system.contacts, system.torques, where=where,
                                   components=system.contact_model.components) for t in texts)
    for e in parsed:
        if e.is_zero:
            raise ContactModelError(f"{where}: {e.text!r} names no quantity (a constant output)")
    if len(set(texts)) != len(texts):
        raise ContactModelError(f"{where}: an output is given twice in {outputs!r}")
    return parsed


_FIX_RE = re.compile(r"^\s*tau\.(.+?)\s*=\s*(\S+)\s*$")


def parse_fix(system, fix: str | Mapping[str, float] | None, where: str = "--fix") -> dict[int, float]:
    """Parse the fixed torques: ``"tau.hip=0.5, tau.knee=0"`` or ``{"hip": 0.5, "knee": 0.0}``.

    Parameters
    ----------
    system : ContactSystem
        Its ``torques`` name the actuators.
    fix : str or Mapping[str, float] or None
        The torques to hold fixed, in the system's torque units (N·m; N on a linear coordinate);
        ``None`` or empty: none.
    where : str, optional
        The field named in error messages.

    Returns
    -------
    dict[int, float]
        Actuator index → value.

    Raises
    ------
    ContactModelError
        One line naming ``where``: a malformed item, an unknown actuator, a value that is not a finite
        number, an actuator fixed twice.
    """
    if fix is None:
        return {}
    names = list(system.torques)
    if isinstance(fix, str):
        items = []
        for part in (p for p in fix.split(",") if p.strip()):
            m = _FIX_RE.match(part)
            if not m:
                raise ContactModelError(f"{where}: expected 'tau.<actuator>=<value>', got {part.strip()!r}")
            items.append((m.group(1), m.group(2)))
    elif isinstance(fix, Mapping):
        items = list(fix.items())
    else:
        raise ContactModelError(f"{where}: expected a text or a mapping, got {type(fix).__name__}")
    out: dict[int, float] = {}
    for name, value in items:
        if name not in names:
            raise ContactModelError(f"{where}: unknown actuator {name!r} (actuators: {', '.join(names) or 'none'})")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ContactModelError(f"{where}: the value of tau.{name} is not a number: {value!r}") from None
        if not np.isfinite(v) or abs(v) > tolerances.MAGNITUDE_MAX:
            raise ContactModelError(f"{where}: the value of tau.{name} must be finite and at most "
                                    f"{tolerances.MAGNITUDE_MAX:g} in magnitude, got {value!r}")
        k = names.index(name)
        if k in out:
            raise ContactModelError(f"{where}: tau.{name} is fixed twice")
        out[k] = v
    return out


@dataclass(frozen=True)
class ModeOutputs:
    """One mode's output sets (module doc), in the system's units.

    Attributes
    ----------
    mode : str
        The mode.
    names : list[str]
        The outputs, as given.
    set : Polytope or None
        ``Y_c`` over the ``m`` outputs; ``None`` when the mode has no solution (at the fixed torques).
    spread : numpy.ndarray or None
        ``(m,)``: per output, the largest difference of two of the mode's solutions at one torque
        (the outputs' units; ``inf`` when unbounded); ``None`` with ``set``.
    determined : numpy.ndarray or None
        ``(m,)`` bools: the output's spread is within ``OUTPUT_SPREAD_ATOL`` (on the scaled output):
        a torque determines it.
    unambiguous : list[Polytope or None] or None
        With ``--unambiguous``: the outputs reachable from each piece of ``T*_c``, one entry per
        piece in its order (``None`` for a piece with no solution at the fixed torques); ``None``
        when not asked for.
    """

    mode: str
    names: list[str]
    set: Polytope | None
    spread: np.ndarray | None
    determined: np.ndarray | None
    unambiguous: list[Polytope | None] | None = None

    def to_json(self) -> dict:
        """The mode's ``"outputs"`` entry of ``contactmodes.analysis/1`` (infinite values ``null``)."""
        out: dict = {"set": None if self.set is None else self.set.to_json(),
                     "spread": None if self.spread is None else [_finite(v) for v in self.spread],
                     "determined": None if self.determined is None else [bool(v) for v in self.determined]}
        if self.unambiguous is not None:
            out["unambiguous"] = [None if p is None else p.to_json() for p in self.unambiguous]
        return out


def _finite(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


def output_units(spec: OutputSpec, scaling) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The outputs' coefficients on the nondimensional quantities and their units (module doc).

    Parameters
    ----------
    spec : OutputSpec
        The outputs.
    scaling : Scaling
        The session's ``contactmodes.model.scaling.Scaling``.

    Returns
    -------
    a, b, c : numpy.ndarray
        Shapes ``(m, n_q)``, ``(m, n_f)`` and ``(m, n_τ)``: coefficients on ``q̈'``, ``f'`` and ``τ'``
        (``n_f`` the number of force components of the system).
    s : numpy.ndarray
        ``(m,)`` each output's unit ``Σ |coefficient| × unit`` (positive: an output names a quantity).
    """
    ux = np.asarray(scaling.x, dtype=float)  # units of [q̈; f]
    n_q = len(spec.expressions[0].qdd)
    a = np.array([e.qdd for e in spec.expressions]) * ux[:n_q]
    b = np.array([e.force for e in spec.expressions]) * ux[n_q:]
    c = np.array([e.tau for e in spec.expressions]) * np.asarray(scaling.tau, dtype=float)
    return a, b, c, np.abs(a).sum(axis=1) + np.abs(b).sum(axis=1) + np.abs(c).sum(axis=1)


class _Lift:
    """The output map ``y' = G' z + g'`` over the nondimensional ``z = (τ', w)`` of one mode, and the
    outputs' units ``s`` (module doc)."""

    def __init__(self, sol, spec: OutputSpec, task: bool, units: tuple | None = None) -> None:
        sc = sol.session.scaling
        resp = sol.response_scaled(task)
        ut = np.asarray(sc.tau, dtype=float)
        a, b, c, self.s = output_units(spec, sc) if units is None else units  # the same for every mode
        Gt = a @ resp.P_q + b @ resp.P_f + c
        Gw = a @ resp.Q_q + b @ resp.Q_f
        g = a @ resp.r_q + b @ resp.r_f + np.array([e.constant for e in spec.expressions])
        self.G = np.hstack([Gt, Gw]) / self.s[:, None]
        self.g = g / self.s
        self.n_tau, self.n_w, self.m = Gt.shape[1], Gw.shape[1], len(self.s)
        self.fixed = {k: v / ut[k] for k, v in spec.fixed.items()}

    def fix_rows(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Equalities ``τ'_k = v_k / u_k`` over ``n`` columns starting with τ'."""
        C = np.zeros((len(self.fixed), n))
        d = np.zeros(len(self.fixed))
        for i, (k, v) in enumerate(sorted(self.fixed.items())):
            C[i, k], d[i] = 1.0, v
        return C, d

    def lifted(self, D: Polytope, piece: Polytope | None = None) -> Polytope:
        """``{(z, y') : z ∈ D (∩ piece × R^{n_w}), y' = G' z + g'}`` (fixed torques as equalities)."""
        nz, m = self.n_tau + self.n_w, self.m
        A = np.hstack([D.A, np.zeros((D.n_ineq, m))])
        b = D.b
        C = [np.hstack([D.C, np.zeros((D.n_eq, m))]), np.hstack([-self.G, np.eye(m)])]
        d = [D.d, self.g]
        if piece is not None:
            zero = np.zeros((piece.n_ineq, self.n_w + m))
            A, b = np.vstack([A, np.hstack([piece.A, zero])]), np.concatenate([b, piece.b])
            C.append(np.hstack([piece.C, np.zeros((piece.n_eq, self.n_w + m))]))
            d.append(piece.d)
        Cf, df = self.fix_rows(nz + m)
        return Polytope(A, b, np.vstack(C + [Cf]), np.concatenate(d + [df]))

    def to_user(self, Y: Polytope) -> Polytope:
        """A set over ``y'`` as one over ``y = s ∘ y'``."""
        return Polytope(Y.A / self.s, Y.b, Y.C / self.s, Y.d)

    def spread(self, D: Polytope) -> np.ndarray:
        """Scaled spreads: ``max G'_w (w₁ − w₂)`` over ``(τ', w₁), (τ', w₂) ∈ D`` (fixed torques
        kept), one LP per output whose ``w`` columns do not vanish."""
        nt, nw = self.n_tau, self.n_w
        Gw = self.G[:, nt:]
        out = np.zeros(self.m)
        moving = np.abs(Gw).max(axis=1, initial=0.0) > tolerances.AMBIGUITY_ATOL
        if not moving.any():
            return out
        At, Aw, Ct, Cw = D.A[:, :nt], D.A[:, nt:], D.C[:, :nt], D.C[:, nt:]
        zA, zC = np.zeros_like(Aw), np.zeros_like(Cw)
        Cf, df = self.fix_rows(nt + 2 * nw)
        twice = Polytope(np.vstack([np.hstack([At, Aw, zA]), np.hstack([At, zA, Aw])]), np.concatenate([D.b, D.b]),
                         np.vstack([np.hstack([Ct, Cw, zC]), np.hstack([Ct, zC, Cw]), Cf]),
                         np.concatenate([D.d, D.d, df]))
        for i in np.flatnonzero(moving):
            out[i] = max(0.0, float(twice.support(np.concatenate([np.zeros(nt), Gw[i], -Gw[i]]))))
        return out


def mode_outputs(sol, spec: OutputSpec, task: bool = True, pieces: Sequence[Polytope] | None = None) -> ModeOutputs:
    """The output sets of one mode (module doc).

    Parameters
    ----------
    sol : ModeSolution
        The mode in an ``AnalysisSession`` (``contactmodes.analysis.session``).
    spec : OutputSpec
        The outputs and the fixed torques.
    task : bool, optional
        With the system's task constraints (eqs. 15–18; default) or the physical ones only.
    pieces : Sequence[Polytope], optional
        The convex pieces of ``T*_c`` over the *nondimensional* torques
        (``UnambiguousResult.scaled_pieces``): also the outputs reachable from each.

    Returns
    -------
    ModeOutputs
        In the system's units; ``set`` is ``None`` when ``D_c`` (with the fixed torques) is empty.

    Raises
    ------
    polytopes.PolytopeError
        When a projection fails every method and its verification (an internal failure).

    References
    ----------
    Greenfield, Saranli & Rizzi, Sec. III-E (``D_c``, eq. 33), III-G (``T*_c``; III-G.2 the
    degenerate domains).
    """
    names = spec.names
    if not sol.feasible(task):
        return ModeOutputs(sol.mode, names, None, None, None, [] if pieces is not None else None)
    lift = _Lift(sol, spec, task)
    method = sol.session.method
    # as T_c (ModeSolution._projection_input): the support-LP method needs no reduced D_c
    raw = method == "auto" and support_first(lift.n_tau + lift.n_w, lift.m)
    D = sol.raw_scaled(task)[0] if raw else sol.D_scaled(task)
    keep = list(range(lift.n_tau + lift.n_w, lift.n_tau + lift.n_w + lift.m))
    L = lift.lifted(D)
    if L.is_empty():
        return ModeOutputs(sol.mode, names, None, None, None, [] if pieces is not None else None)
    Y = lift.to_user(L.project(keep, method=method))
    spread = lift.spread(D)
    determined = spread <= tolerances.OUTPUT_SPREAD_ATOL
    unamb = None
    if pieces is not None:
        unamb = []
        for P in pieces:
            Lp = lift.lifted(D, P)
            unamb.append(None if Lp.is_empty() else lift.to_user(Lp.project(keep, method=method)))
    return ModeOutputs(sol.mode, names, Y, spread * lift.s, determined, unamb)


class OutputAnalysis(Mapping):
    """Mode → ``ModeOutputs`` for the analysed modes of an analysis (``AnalysisResult.outputs``).

    Parameters
    ----------
    spec : OutputSpec
        The outputs and the fixed torques.
    modes : dict[str, ModeOutputs]
        Mode → its output sets, in analysis order.
    units : numpy.ndarray
        ``(m,)`` each output's unit (``output_units``).

    Attributes
    ----------
    spec : OutputSpec
        The outputs and the fixed torques.
    units : numpy.ndarray
        ``(m,)`` each output's unit in the analysis (``output_units``): the scale below which a
        bound is shown as ``0`` (``contactmodes.output.outputs_text``).
    """

    def __init__(self, spec: OutputSpec, modes: dict, units: np.ndarray) -> None:
        self.spec = spec
        self._modes = dict(modes)
        self.units = np.asarray(units, dtype=float)

    def __getitem__(self, mode: str) -> ModeOutputs:
        return self._modes[mode]

    def __iter__(self) -> Iterator[str]:
        return iter(self._modes)

    def __len__(self) -> int:
        return len(self._modes)


def output_spec(system, outputs: str | Sequence[str], fix=None, where: str = "outputs",
                fix_where: str = "fix") -> OutputSpec:
    """The ``OutputSpec`` of ``outputs`` and ``fix`` on ``system`` (checked before any analysis runs).

    Parameters
    ----------
    system : ContactSystem
        The system whose names the expressions use.
    outputs : str or Sequence[str]
        As ``parse_outputs``.
    fix : str or Mapping[str, float], optional
        As ``parse_fix``.
    where, fix_where : str, optional
        The fields named in error messages.

    Returns
    -------
    OutputSpec
        The parsed outputs and fixed torques.

    Raises
    ------
    ContactModelError
        A bad output expression or fixed torque (one line naming ``where`` or ``fix_where``).
    """
    return OutputSpec(parse_outputs(system, outputs, where), parse_fix(system, fix, fix_where), tuple(system.torques))


def output_analysis(session, modes: Sequence[str], spec: OutputSpec, task: bool = True,
                    unambiguous: Mapping | None = None) -> OutputAnalysis:
    """``mode_outputs`` of each of ``modes``.

    Parameters
    ----------
    session : AnalysisSession
        The analysis's session.
    modes : Sequence[str]
        The modes (a feasible one gets its sets; an infeasible one an entry with ``set = None``).
    spec : OutputSpec
        The outputs and fixed torques (``output_spec``).
    task : bool, optional
        With the task constraints (default).
    unambiguous : Mapping[str, UnambiguousResult], optional
        The modes' ``T*_c`` (``contactmodes.analysis.ambiguity``): also each piece's outputs.

    Returns
    -------
    OutputAnalysis
        Mode → ``ModeOutputs``.
    """
    out = {} if unambiguous is not None else planar_outputs(session, modes, spec, task)
    todo = [m for m in modes if m not in out]
    with stage(session.progress, "outputs (per mode)", len(todo)) as st:
        for m in todo:
            u = None if unambiguous is None else unambiguous.get(m)
            pieces = None if unambiguous is None else ([] if u is None else list(u.scaled_pieces))
            out[m] = mode_outputs(session.mode(m), spec, task, pieces)
            st.update(1, m)
    return OutputAnalysis(spec, {m: out[m] for m in modes}, output_units(spec, session.scaling)[3])


def planar_outputs(session, modes: Sequence[str], spec: OutputSpec, task: bool = True) -> dict[str, ModeOutputs]:
    """The output sets of the feasible ``modes`` onto two outputs, all modes' LPs together (module
    doc, "Two outputs, many modes"): ``polytopes.planar_projections`` on each raw ``D_c``.

    Parameters
    ----------
    session : AnalysisSession
        The analysis's session.
    modes : Sequence[str]
        The modes.
    spec : OutputSpec
        The outputs and fixed torques.
    task : bool, optional
        With the task constraints (default).

    Returns
    -------
    dict[str, ModeOutputs]
        The modes the sweep certified (a subset of the feasible ``modes``; empty unless there are
        exactly two outputs, no fixed torque and the session's method is ``"auto"``); the others
        are for ``mode_outputs``.
    """
    if len(spec.expressions) != 2 or spec.fixed or session.method != "auto":
        return {}
    sols = [sol for sol in (session.mode(m) for m in modes) if sol.feasible(task)]
    if not sols:
        return {}
    with stage(session.progress, "outputs (all modes together)", len(sols)) as st:
        st.update(0, "the output maps")
        units = output_units(spec, session.scaling)
        lifts = [_Lift(sol, spec, task, units) for sol in sols]
        Ds = [sol.raw_scaled(task)[0] for sol in sols]
        st.update(0, "batched support sweep")
        found = planar_projections(Ds, [lift.G for lift in lifts], [lift.g for lift in lifts])
        out = {}
        for sol, lift, D, Ab in zip(sols, lifts, Ds, found):
            if Ab is None:
                continue
            spread = lift.spread(D)
            out[sol.mode] = ModeOutputs(sol.mode, spec.names, Polytope(Ab[0] / lift.s, Ab[1]), spread * lift.s,
                                        spread <= tolerances.OUTPUT_SPREAD_ATOL, None)
        st.update(len(sols))
    return out
