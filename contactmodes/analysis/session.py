"""One analysis session per system: the modes are enumerated once and each mode's response,
domain ``D_c``, torque domain ``T_c``, bounding box, point test and linear maximization are
computed lazily, once, by one ``ModeSolution`` object (flipping paper, Sec. III-D/E).

Everything inside a session is nondimensional (``contactmodes.model.scaling``): torques ``τ'``,
ambiguity variables ``w`` of the scaled response. Methods whose names do not end in ``_scaled``
map back to the user's units, every set through ``AnalysisSession.to_user`` (each scaled
object converted once per session); the analysis, ambiguity, robust, plotting and controller code
all go through a session, so no caller rebuilds a domain.

Task constraints: when the system has no task *equalities*, a mode has one response and one
assembled ``D_c`` whose task rows are marked by a mask — ``D_c`` without tasks is the same rows
with the task rows left out. Task equalities change the response (24), so such a system keeps a
second response for ``task=True``.
"""

from __future__ import annotations

import functools
import math
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Iterator, Sequence

import numpy as np

from polytopes import NumericalError, Polytope, RayPool, empty_stacked, in_threads, is_empty, normalize_rows
from polytopes.batchlp import PADDED_CHUNK, preferred_kernel
from polytopes.projection import support_first

from contactmodes.analysis.point_location import PointFilter
from contactmodes.analysis.domains import (ModeDomain, domain_from_response, independent_equalities, independent_equalities_stacked,
                      intersect_domains, substituted_rows, substituted_rows_many)
from contactmodes import tolerances
from contactmodes.errors import ContactModelError
from contactmodes.modes.enumeration import Enumeration, acceleration_feasible, enumerate_modes
from contactmodes.modes.contact_conditions import classify_velocities, validate_mode
from contactmodes.progress import Progress, stage
from contactmodes.modes.constraints import EquationBank
from contactmodes.modes.response import ModeResponse, response_from_equations, responses_from_equations, solve_response
from contactmodes.model.scaling import UserSets
from contactmodes.model.system import ContactSystem

__all__ = ["AnalysisSession", "ModeSolution", "PIPELINE_STAGES", "empty_box", "mode_domain"]

DIRECT_PAIRS = 16
"""Up to this many candidate pairs, each is decided by one LP (no witness points or V-representations).
Measured on the examples: from about 20 pairs on, the witnesses pay (six-link brace, 101 pairs:
79 → 56 ms; two pairs of the table: 11 ms by LPs, 13 ms with witnesses)."""

SWEEP_BLOCK = 64
"""Modes per block of the bounding-box sweep (``AnalysisSession.candidate_pairs_within``): a
block is compared with its later modes at once (a cost knob; memory ``SWEEP_BLOCK`` × modes)."""

BATCH_BOX_MODES = 500
"""Above this many kinematically feasible modes, bounding boxes may solve their support LPs with
the compiled batched simplex first (``AnalysisSession.box_kernel``; a cost knob)."""
BOX_LPS_PER_MODE = 4
"""About how many support LPs a bounding box needs after the ray pool (measured on the zig-zag
chain: 3–5), for ``AnalysisSession.box_kernel``'s estimate."""
BOX_MODES_PER_THREAD = 256
"""``AnalysisSession._boxes``: a thread computes the boxes of at least this many modes (fewer
do not pay for the hand-off); the boxes of a few modes stay in the calling thread."""

SEPARATION_FACTOR = 1e3
"""A pair of τ-sets is certified disjoint without an LP only when a facet separates them by this
many emptiness tolerances of ``polytopes`` (closer pairs are left to the LP rule)."""

BATCH_MIN = 8
"""The session computes responses, substituted rows, emptiness LPs and bounding boxes of at least
this many modes together (stacked arrays, the batched verified simplex); fewer go one mode at a
time (the batches' set-up costs more than it saves: Painlevé rod, 2 modes, 9.3 → 5 ms)."""

PRIME_CHUNK = 256
"""``AnalysisSession.prime_T`` computes at most this many ``T_c`` together (bounded memory: the
projections' intermediate sets and check LPs of one chunk)."""

PREPARE_MIN = 16
"""``AnalysisSession.prime_T`` decides the emptiness and hulls of at least this many domains
together (``polytopes.Polytope.prepare_many``); fewer go one by one, which costs less (the text
table of RHex's start, 44 domains: 192 → 174 ms; of the two-link brace, 9 domains: 20.6 → 21.4 ms
with them batched)."""

LIFTED_PAIRS_MAX = 32
"""In the overlap stage a mode whose ``T_c`` is not computed yet and that has at most this many
candidate partners is not projected: its pairs are decided on the lifted domains ``(τ', w_a,
w_b)`` (one batched LP each; for a mode without ambiguity variables its ``D_c`` itself); with
more, one projection of its ``T_c`` (about 10–15 ms, verified) costs less than the LPs. Measured
on RHex's start (34 modes with ambiguity variables, 7–25 partners each): 766 → 350 ms for the
whole ``analyze``; the 10 modes without them, lifted too (their projections, reductions and
vertices are not needed for the overlaps): 82 → 68 ms."""

_KEPT_ON_RELEASE = frozenset({"feasible", "box", "w_varies"})
"""What ``ModeSolution.release`` keeps: booleans and a bounding box per mode (the overlap stage's
sweep needs the boxes only)."""

LOCATE_FILTER_MAX = 1 << 17
"""``AnalysisSession.locate`` filters every mode Table III allows, without the enumeration, up
to this many of them (``PointFilter``: about 25 µs a mode measured on Solo-12's ``10^4``); with
more (the 12-contact chain's ``4^12``) it filters the enumeration's modes."""

PIPELINE_STAGES = ("response", "assemble", "reduce", "project")
"""The per-mode stages of Sec. III-D/E whose times a ``ModeDomain`` reports."""


def _near(T: Polytope, X: np.ndarray) -> np.ndarray:
    """Which points ``X`` (N, n) satisfy every normalized row of ``T`` within the emptiness
    tolerance of ``polytopes`` (``FEASIBILITY_TOL`` times the data scale): then ``T`` and a set
    containing the point intersect by the same rule ``is_empty`` applies."""
    from polytopes import tolerances as ptol

    tol = ptol.FEASIBILITY_TOL * T.data_scale
    ok = np.ones(len(X), dtype=bool)
    if T.n_ineq:
        An, bn, _ = normalize_rows(T.A, T.b)
        ok &= np.all(X @ An.T - bn <= tol, axis=1)
    if T.n_eq:
        Cn, dn, _ = normalize_rows(T.C, T.d)
        ok &= np.all(np.abs(X @ Cn.T - dn) <= tol, axis=1)
    return ok


def _lift(Ma: np.ndarray, Mb: np.ndarray, n: int) -> np.ndarray:
    """Rows over ``(τ', w_a)`` and over ``(τ', w_b)`` (``Ma`` (G, r_a, n + n_wa), ``Mb`` (G, r_b, n +
    n_wb)) as rows over ``(τ', w_a, w_b)``: (G, r_a + r_b, n + n_wa + n_wb), ``n`` torques."""
    G, ra, da = Ma.shape
    rb, db = Mb.shape[1:]
    M = np.zeros((G, ra + rb, da + db - n))
    M[:, :ra, :da] = Ma
    M[:, ra:, :n] = Mb[:, :, :n]
    M[:, ra:, da:] = Mb[:, :, n:]
    return M


class _SetInfo:
    """A τ-polytope with what the overlap tests reuse: normalized rows, a (hint) V-representation
    from cdd and witness points (Chebyshev centre, vertices, vertices moved along rays/lines)."""

    def __init__(self, T: Polytope) -> None:
        from polytopes import tolerances as ptol

        self.T = T
        self.An, self.bn, _ = normalize_rows(T.A, T.b)
        self.tol = ptol.FEASIBILITY_TOL * T.data_scale
        try:
            g = T.vertices()
            self.V, self.R, self.L = g.vertices, g.rays, g.lines
        except NumericalError:  # the V-representation is only a hint: go on without it
            empty = np.zeros((0, T.dim))
            self.V, self.R, self.L = empty, empty.copy(), empty.copy()
        pts = [T.chebyshev_center().center[None, :]]
        if len(self.V):
            pts.append(self.V)
            for d in (*self.R, *self.L, *(-self.L)):
                pts.append(self.V + d / max(1e-300, float(np.abs(d).max())))
        self.witnesses = np.vstack(pts)


def _separated(b: "_SetInfo", sets: Sequence["_SetInfo"], names: Sequence[str]) -> list[str]:
    """The ``names`` of ``sets`` one of whose facets is certified to leave ``b.T`` strictly
    outside, by a margin of ``SEPARATION_FACTOR`` emptiness tolerances (vectorized over all facets
    of all ``sets``).

    A facet ``d·x <= β`` (unit ``d``) is proposed by ``b``'s V-representation (every vertex beyond
    it, no ray or line coming back); the certificate is LP duality: multipliers ``y >= 0`` on the
    rows of ``b.T`` active at the vertex minimizing ``d·x`` and ``z`` on its equalities with
    ``A_Jᵀ y + Cᵀ z = −d`` (least squares, residual checked) prove ``d·x >= −(yᵀ b_J + zᵀ e)`` on
    all of ``b.T``."""
    if len(b.V) == 0:
        return []
    owner = np.concatenate([np.full(s_.An.shape[0], i) for i, s_ in enumerate(sets)]) if sets else np.zeros(0, int)
    if owner.size == 0:
        return []
    D = np.vstack([s_.An for s_ in sets])
    beta = np.concatenate([s_.bn for s_ in sets])
    margin = SEPARATION_FACTOR * np.maximum(b.tol, np.array([sets[i].tol for i in owner]))
    proj = b.V @ D.T  # (nv, nF)
    beyond = np.all(proj - beta > margin, axis=0)
    if len(b.R):
        beyond &= np.all(b.R @ D.T >= 0.0, axis=0)
    if len(b.L):
        beyond &= np.all(np.abs(b.L @ D.T) <= 1e-12, axis=0)
    cand = np.flatnonzero(beyond)
    if cand.size == 0:
        return []
    TB = b.T
    vert = np.argmin(proj[:, cand], axis=0)
    certified = np.zeros(len(sets), dtype=bool)
    for v in np.unique(vert):
        fac = cand[vert == v]
        fac = fac[~certified[owner[fac]]]
        if fac.size == 0:
            continue
        active = (np.flatnonzero(np.abs(b.An @ b.V[v] - b.bn) <= tolerances.SEPARATION_ACTIVE_FACTOR * b.tol) if b.An.shape[0]
                  else np.zeros(0, dtype=int))
        M = np.vstack([TB.A[active], TB.C]).T  # (n, |J| + p)
        if M.shape[1] == 0:
            continue
        coef = np.linalg.pinv(M) @ (-D[fac].T)  # (|J| + p, nf)
        y, z = coef[: len(active)], coef[len(active):]
        resid = np.linalg.norm(M @ coef + D[fac].T, axis=0)
        lower = -(TB.b[active] @ y + TB.d @ z)
        ok = np.all(y >= 0.0, axis=0) & (resid <= tolerances.SEPARATION_RESID_RTOL) & (lower > beta[fac] + margin[fac])
        certified[owner[fac[ok]]] = True
    return [n for n, c in zip(names, certified) if c]


def _intersect(Ta: Polytope, Tb: Polytope) -> bool:
    """Whether ``Ta ∩ Tb`` is non-empty by the emptiness rule of ``polytopes`` (one max-slack
    LP on the stacked rows, without building intermediate objects); equalities are made
    independent first when both sets have some (``intersect_domains``)."""
    if Ta.n_eq and Tb.n_eq:
        inter = intersect_domains(Ta, Tb)
        return inter is not None and not inter.is_empty()
    return not is_empty(np.vstack([Ta.A, Tb.A]), np.concatenate([Ta.b, Tb.b]),
                        Ta.C if Ta.n_eq else Tb.C, Ta.d if Ta.n_eq else Tb.d)


def _rows_entry(resp: ModeResponse, rows: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A mode's cached substituted rows (33): ``(A, b, task_mask)``."""
    return rows[0], rows[1], resp.equations.ineq_task.copy()


def _charge(sols: Sequence["ModeSolution"], stage_name: str, seconds: float) -> None:
    """Share the time of a stage computed for ``sols`` together equally in their ``timing``."""
    share = seconds / len(sols)
    for sol in sols:
        sol.timing[stage_name] = sol.timing.get(stage_name, 0.0) + share


def _user_tau(values, n: int, name: str = "tau", torques=None) -> np.ndarray:
    """``values`` as an (n,) float array of finite numbers (one per torque), else a
    ``ContactModelError`` naming ``name``."""
    try:
        x = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        x = np.full(0, np.nan)
    if x.shape != (n,) or not np.all(np.isfinite(x)):
        which = f" (one per torque {list(torques)})" if torques is not None else ""
        shown = x.tolist() if x.size else values
        raise ContactModelError(f"{name}: expected {n} finite values{which}, got {shown}")
    return x


def _block_pairs(order: np.ndarray, a0: int, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)`` of one block of ``AnalysisSession._box_sweep``: ``ok`` (rows, cols)
    marks the meeting boxes of sweep positions ``a0 + row`` and ``a0 + 1 + col``; ``order``
    (N,) maps sweep positions to indices into the modes."""
    bi, bj = np.nonzero(ok)
    return order[a0 + bi], order[a0 + 1 + bj]


def empty_box(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The bounding box of the empty set.

    Parameters
    ----------
    n : int
        Number of torques ``n_τ``.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray]
        ``(lo, hi)``, each ``(n,)``: ``lo = +inf``, ``hi = −inf`` (``lo > hi`` on every axis).
    """
    return np.full(n, np.inf), np.full(n, -np.inf)


class ModeSolution:
    """One contact mode of an ``AnalysisSession``, computed lazily and cached.

    The public methods speak the user's units: torques τ in the system's units (N·m for SI
    files), ``w`` the response's ambiguity variables. The methods whose name ends in ``_scaled``
    work in the session's nondimensional units (τ' = τ / ``scaling.tau``, the same ``w``): the
    toolkit's own stages use them; their results are not to be compared with user-unit values.
    ``task`` selects the domain with (default) or without the system's task constraints.
    Obtained from ``AnalysisSession.mode``, which validates the mode string.

    Parameters
    ----------
    session : AnalysisSession
        The session the mode belongs to (its scaled system, projection method, equation banks
        and caches).
    mode : str
        The mode string, one letter of ``"FSLR"`` per contact (validated by the caller).
    kinematic : bool or None
        Whether the mode is in the session's enumeration (``kinematically_feasible``); ``None``:
        looked up there on first access (a mode made before the enumeration ran).

    Attributes
    ----------
    mode : str
        The mode string.
    kinematically_feasible : bool
        The mode survived the session's enumeration (Table III and
        Sec. III-F); a pruned mode can still be analysed (``analyze --mode``) but never occurs
        (a property: looked up in the enumeration on first access).
    timing : dict[str, float]
        Seconds spent per stage (``response``, ``assemble``, ``reduce``, ``project``, ``box``).

    Examples
    --------
    >>> from contactmodes.system_file.loader import load_system_file
    >>> session = AnalysisSession(load_system_file("examples/two_link_brace.toml").system)
    >>> lo, hi = session.mode("FFF").box()          # N·m
    >>> round(float(hi[0]), 4)
    -0.1926
    >>> session.mode("FFF").contains([-0.5]), session.locate([-0.5])[:1]
    (True, ['FFF'])
    """

    def __init__(self, session: "AnalysisSession", mode: str, kinematic: bool | None) -> None:
        self.session = session
        self.mode = mode
        self._kinematic = kinematic
        self.timing: dict[str, float] = {}
        self._cache: dict = {}

    @property
    def kinematically_feasible(self) -> bool:
        """The mode survived the session's enumeration (Table III and Sec. III-F); a mode made
        before the enumeration ran asks it on first access."""
        if self._kinematic is None:
            self._kinematic = self.mode in self.session._surviving
        return self._kinematic

    # ------------------------------------------------------------------ helpers
    def _timed(self, key: tuple, stage_name: str, fn):
        if key not in self._cache:
            t0 = time.perf_counter()
            self._cache[key] = fn()
            self.timing[stage_name] = self.timing.get(stage_name, 0.0) + time.perf_counter() - t0
        return self._cache[key]

    def _cached(self, key: tuple, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    def _key(self, kind: str, task: bool) -> tuple[str, object]:
        """The cache key of a per-variant (``response``, ``rows``) or per-task quantity."""
        return (kind, self._variant(task)) if kind in ("response", "rows") else (kind, task)

    def has(self, kind: str, task: bool) -> bool:
        """Whether this mode's ``kind`` is computed (or provided, ``provide``) already.

        Parameters
        ----------
        kind : str
            ``"response"``, ``"rows"``, ``"feasible"``, ``"D"``, ``"T"``, ``"box"`` or ``"w_varies"``.
        task : bool
            With the task rows (``True``) or without.

        Returns
        -------
        bool
            Whether the value is in the mode's cache.
        """
        return self._key(kind, task) in self._cache

    def provide(self, kind: str, task: bool, value) -> None:
        """Accept ``kind`` computed by the session for many modes at once (stacked SVDs, batched
        LPs) or by a cluster's worker (``contactmodes.analysis.distributed``): the value this
        mode's own method gives; a value already computed is kept. The one way anything but this
        object fills its cache.

        Parameters
        ----------
        kind : str
            As in ``has``.
        task : bool
            With the task rows (``True``) or without.
        value : object
            What this mode's method for ``kind`` returns (``response_scaled``, ``feasible``,
            ``box_scaled``, ``T_scaled``, ``w_varies``...), in the session's nondimensional units.
        """
        self._cache.setdefault(self._key(kind, task), value)

    def release(self) -> None:
        """Drop what this mode computed — responses, rows, ``D_c``, ``T_c`` and their LP caches,
        the ``ModeDomain`` and the session's user-unit copies of its sets — except its small
        answers (``feasible``, ``box``, ``w_varies``), for a caller done with them (a document
        written out, ``AnalysisResult.iter_json``): memory then does not grow with the number of
        modes. Anything asked later is computed again (the same sets; not necessarily the same
        objects or the same last bits)."""
        for key in list(self._cache):
            if key[0] in _KEPT_ON_RELEASE:
                continue
            value = self._cache.pop(key)
            for P in (value if isinstance(value, tuple) else (value,)):
                if isinstance(P, Polytope):
                    self.session._user_sets.forget(P)

    def _variant(self, task: bool) -> str:
        return "task" if task and self.session.has_task_eq else "phys"

    @property
    def n_tau(self) -> int:
        return self.session.scaled.n_tau

    # ------------------------------------------------------------------ response (24)–(31)
    def response_scaled(self, task: bool = True) -> ModeResponse:
        """The nondimensional ``ModeResponse`` of the mode (eqs. 24–31), computed once.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
            Without task equalities both choices share one response (the task inequalities are
            rows of ``D_c``, not of the response).

        Returns
        -------
        ModeResponse
            ``q̈`` and ``f`` as affine functions of ``(τ', w)`` and the admissible torque subspace
            (31), in the session's nondimensional units.
        """
        v = self._variant(task)

        def build():
            return response_from_equations(self.session.equation_bank(v == "task").equations(self.mode))

        return self._timed(("response", v), "response", build)

    def _rows(self, variant: str):
        """Substituted inequalities (33) over ``(τ', w)``: ``(A, b, task_mask)``."""

        def build():
            resp = self.response_scaled(variant == "task")
            return _rows_entry(resp, substituted_rows(resp))

        return self._timed(("rows", variant), "assemble", build)

    def raw_scaled(self, task: bool = True, extra: tuple[np.ndarray, np.ndarray] | None = None,
            drop_task: bool | None = None) -> tuple[Polytope, bool]:
        """``D_c`` before reduction (eq. 33 with (31)) and whether it is trivially empty.

        Trivially empty: a row ``0 <= b < 0`` or inconsistent equalities (31). Without ``extra``
        and ``drop_task`` the result is cached (one object, its LPs cached on it).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        extra : tuple[numpy.ndarray, numpy.ndarray], optional
            ``(A_x, b_x)``, shapes ``(r, n_τ + n_w)`` and ``(r,)``: rows ``A_x z <= b_x`` over
            ``z = (τ', w)`` appended (nondimensional).
        drop_task : bool, optional
            Leave the task inequalities out; default (``None``) ``not task``.

        Returns
        -------
        tuple[Polytope, bool]
            The system over ``(τ', w)`` (dimension ``n_τ + n_w``, nondimensional) and whether it is
            trivially empty.
        """
        if extra is None and drop_task is None:  # the plain D_c: one object, its LPs cached on it
            return self._cached(("raw", task), lambda: self._raw(task, None, None))
        return self._raw(task, extra, drop_task)

    def _projection_input(self, task: bool) -> Polytope:
        """What ``T_scaled`` projects: ``D_c`` reduced, or the raw system (the same set) when the
        projection will go to the support-LP method first
        (``polytopes.projection.support_first``), which needs no reduction — reducing a domain
        over dozens of ambiguity variables costs more than projecting it (a box on 64
        contacts: 8 s of cdd redundancy removal for a one-torque projection of two LPs). The
        exact method projects ``D_c`` reduced: the object whose emptiness, affine-hull and
        redundancy decisions the default method takes too (``polytopes._exact_projection``)."""
        if self.session.method == "auto" and support_first(self.response_scaled(task).n_w, self.n_tau):
            return self._D_or_raw(task)
        return self.D_scaled(task)

    def _D_or_raw(self, task: bool) -> Polytope:
        """``D_c`` reduced if ``D`` has run, else the raw system (the same set): what the
        cheap queries (boxes, points, LPs) use without forcing a reduction."""
        return self._cache.get(("D", task)) or self.raw_scaled(task)[0]

    def _raw(self, task, extra, drop_task) -> tuple[Polytope, bool]:
        v = self._variant(task)
        resp = self.response_scaled(task)
        A, b, is_task = self._rows(v)
        if (not task) if drop_task is None else drop_task:  # without the task rows
            A, b = A[~is_task], b[~is_task]
        zero = ~(A != 0.0).any(axis=1)
        trivially = False
        if zero.any():  # rows 0 <= b_i: dropped, the set empty when one has b_i < 0
            trivially = bool((b[zero] < 0.0).any())
            A, b = A[~zero], b[~zero]
        if extra is not None:
            A, b = np.vstack([A, extra[0]]), np.concatenate([b, extra[1]])
        dim = self.n_tau + resp.n_w
        if resp.consistent:
            C = np.hstack([resp.tau_C, np.zeros((resp.tau_C.shape[0], resp.n_w))])
            d = resp.tau_d
        else:
            C, d = np.zeros((1, dim)), np.ones(1)
            trivially = True
        return Polytope(A, b, C, d), trivially

    # ------------------------------------------------------------------ D_c, T_c
    def feasible(self, task: bool = True) -> bool:
        """Whether ``D_c`` is non-empty (one LP; Sec. III-E), computed once.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            ``D_c`` non-empty by the emptiness rule of ``polytopes`` on the nondimensional system.
        """

        def build():
            P, trivially = self.raw_scaled(task)
            return not trivially and not P.is_empty()

        return self._timed(("feasible", task), "assemble", build)

    def D_scaled(self, task: bool = True) -> Polytope:
        """``D_c`` over ``(τ', w)`` (eq. 33), computed once: reduced when non-empty, else the raw
        system.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        Polytope
            Dimension ``n_τ + n_w``, nondimensional.
        """

        def build():
            P, _ = self.raw_scaled(task)
            return P.reduce() if self.feasible(task) else P

        return self._timed(("D", task), "reduce", build)

    def T_scaled(self, task: bool = True) -> Polytope | None:
        """``T_c`` over τ', the projection of ``D_c`` onto the torques (Sec. III-E), computed
        once.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        Polytope or None
            Dimension ``n_τ``, nondimensional; ``None`` when the mode is infeasible.
        """

        def build():
            if not self.feasible(task):
                return None
            n_w = self.response_scaled(task).n_w
            if n_w == 0 and self.session.method != "exact":  # (exact: D_c's facets in rationals)
                return self.D_scaled(task)
            return self._projection_input(task).project(list(range(self.n_tau)), method=self.session.method)

        return self._timed(("T", task), "project", build)

    def has_T(self, task: bool = True) -> bool:
        """Whether ``T_c`` is already computed (cheap callers prefer it then).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            ``T_scaled(task)`` is in the mode's cache.
        """
        return ("T", task) in self._cache

    def w_varies(self, task: bool = True) -> bool:
        """Whether ``affine_dimension(D_c) > affine_dimension(T_c)`` (III-G.2), computed once.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            For a τ in the relative interior of ``T_c`` the admissible ``w`` form a set of positive
            dimension; ``False`` for an infeasible mode or one without ambiguity variables.
        """
        def build():
            if not self.feasible(task) or self.response_scaled(task).n_w == 0:
                return False
            T = self.T_scaled(task)
            return T is not None and self._D_or_raw(task).affine_dimension() > T.affine_dimension()

        return self._cached(("w_varies", task), build)

    def box_scaled(self, task: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Bounding box of ``T_c`` over τ', computed once.

        From ``T_c`` if computed, else by ``2 n_τ`` support LPs on ``D_c`` at most (no projection
        needed; sides proven unbounded by a verified recession direction need none,
        ``polytopes.Polytope.bounding_box``; a domain over τ' alone first tries the rays of the
        session's earlier domains, ``AnalysisSession._ray_pool``).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray]
            ``(lo, hi)``, each ``(n_τ,)``, nondimensional; ±inf where unbounded; the empty box
            ``(+inf, −inf)`` (``empty_box``) when infeasible.
        """

        def build():
            n = self.n_tau
            if not self.feasible(task):
                return empty_box(n)
            if self.has_T(task):
                return self.T_scaled(task).bounding_box()
            P = self._D_or_raw(task)
            # the session's recession rays serve domains over τ' alone (the w of two modes differ)
            pool = self.session._ray_pool(task) if P.dim == n else None
            return P.bounding_box(coords=range(n), pool=pool, kernel=self.session.box_kernel)

        return self._timed(("box", task), "box", build)

    def contains_scaled(self, tau_scaled: np.ndarray, task: bool = True) -> bool:
        """Whether a torque lies in ``T_c`` (some ``w`` completes it in ``D_c``): one LP at most.

        Parameters
        ----------
        tau_scaled : numpy.ndarray
            ``(n_τ,)`` the torque τ' (nondimensional, ``τ / scaling.tau``).
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            Membership by the tolerances of ``polytopes``; ``False`` for an infeasible mode.
        """
        tau = np.asarray(tau_scaled, dtype=float)
        if not self.feasible(task):
            return False
        T = self._cache.get(("T", task))
        if T is not None:
            return bool(T.contains(tau))
        P = self._D_or_raw(task)
        n = self.n_tau
        if P.dim == n:
            return bool(P.contains(tau))
        sl = Polytope(P.A[:, n:], P.b - P.A[:, :n] @ tau, P.C[:, n:], P.d - P.C[:, :n] @ tau)
        return not sl.is_empty()

    def maximize_scaled(self, c_tau: np.ndarray, task: bool = True,
                 extra: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, np.ndarray | None] | None:
        """``max c·τ'`` over ``D_c`` (∩ ``extra``): one LP, no projection.

        Parameters
        ----------
        c_tau : numpy.ndarray
            ``(n_τ,)`` weights of the nondimensional torques τ'.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        extra : tuple[numpy.ndarray, numpy.ndarray], optional
            ``(A_x, b_x)``, shapes ``(r, n_τ + n_w)`` and ``(r,)``: rows ``A_x z <= b_x`` over
            ``z = (τ', w)`` added to ``D_c`` (nondimensional).

        Returns
        -------
        tuple[float, numpy.ndarray or None] or None
            ``(value, z*)`` with ``z* = (τ', w)`` ``(n_τ + n_w,)`` a maximizer; ``None`` when the set
            is empty; ``(inf, None)`` when unbounded.
        """
        if not self.feasible(task):  # also a trivially infeasible row, which raw() leaves out
            return None
        P = self._D_or_raw(task)
        if extra is not None:
            P = Polytope(np.vstack([P.A, extra[0]]), np.concatenate([P.b, extra[1]]), P.C, P.d)
        if P.is_empty():
            return None
        c = np.zeros(P.dim)
        c[: self.n_tau] = c_tau
        value = P.support(c)
        if not np.isfinite(value):
            return value, None
        return value, P.argmax(c)

    def projected_scaled(self, extra: tuple[np.ndarray, np.ndarray], task: bool = False) -> Polytope | None:
        """Projection onto τ' of ``D_c`` ∩ ``extra`` rows over ``(τ', w)``, not cached.

        For instance ``D_c`` with a negated task row (within-mode ambiguity,
        ``contactmodes.analysis.ambiguity``).

        Parameters
        ----------
        extra : tuple[numpy.ndarray, numpy.ndarray]
            ``(A_x, b_x)``, shapes ``(r, n_τ + n_w)`` and ``(r,)``: rows ``A_x z <= b_x`` over
            ``z = (τ', w)`` (nondimensional).
        task : bool, optional
            With the task inequalities of ``D_c`` (``True``) or the physical rows only (default).

        Returns
        -------
        Polytope or None
            Dimension ``n_τ``, nondimensional; ``None`` when the intersection is empty.
        """
        P, trivially = self.raw_scaled(task, extra=extra)
        if trivially or P.is_empty():
            return None
        P = P.reduce()
        if P.dim == self.n_tau and self.session.method != "exact":
            return P
        return P.project(list(range(self.n_tau)), method=self.session.method)

    # ------------------------------------------------------------------ user units
    def domain(self, task: bool = True) -> ModeDomain:
        """This mode's ``ModeDomain`` in the user's units (cached).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        ModeDomain
            The response, ``D_c`` (reduced when non-empty), ``T_c``, feasibility, ``w_varies``, box
            and stage times, every set converted by ``AnalysisSession.to_user``.
        """

        def build():
            resp = self.response(task)
            feasible = self.feasible(task)
            D = self.D_scaled(task) if feasible else self.raw_scaled(task)[0]
            return ModeDomain(
                mode=self.mode, response=resp, D=self.session.to_user(D), T=self.T(task), feasible=feasible,
                w_varies=self.w_varies(task), box=self.box(task) if feasible else None,
                timing={k: v for k, v in self.timing.items() if k in PIPELINE_STAGES})

        return self._cached(("domain", task), build)

    def response(self, task: bool = True) -> ModeResponse:
        """``response_scaled`` in the user's units (cached).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        ModeResponse
            The response (eqs. 24–31) with τ in the system's torque units (N·m; N on a linear
            coordinate) and ``w`` the nondimensional null-space coordinates.
        """
        v = self._variant(task)

        def build():
            sc = self.session.scaling
            resp = self.response_scaled(task)
            if sc.is_identity:
                return resp
            return resp.in_units(sc, self.session.equation_bank(v == "task", scaled=False).equations(self.mode))

        return self._cached(("user_response", v), build)

    def D(self, task: bool = True) -> Polytope:
        """``D_c`` over ``(τ, w)`` in the user's units: reduced when non-empty, else the raw system
        (``domain``'s ``D``).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        Polytope
            Dimension ``n_τ + n_w``; τ in the system's torque units (N·m; N on a linear
            coordinate), ``w`` nondimensional.
        """
        return self.domain(task).D

    def T(self, task: bool = True) -> Polytope | None:
        """``T_c`` in the user's units (one object per mode, ``AnalysisSession.to_user``: its
        emptiness and hull are cached).

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        Polytope or None
            Dimension ``n_τ``, the system's torque units (N·m; N on a linear coordinate);
            ``None`` when the mode is infeasible.
        """
        T = self.T_scaled(task)
        return None if T is None else self.session.to_user(T)

    def box(self, task: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Bounding box of ``T_c`` in the user's units: ``box_scaled`` mapped back.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray]
            ``(lo, hi)``, each ``(n_τ,)``, the system's torque units (N·m; N on a linear
            coordinate); ±inf where unbounded; ``(+inf, −inf)`` when infeasible.
        """
        lo, hi = self.box_scaled(task)
        u = self.session.scaling.tau
        return lo * u, hi * u

    def contains(self, tau, task: bool = True) -> bool:
        """Whether a torque lies in ``T_c`` (``contains_scaled`` after scaling it).

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` the torque, the system's torque units (N·m; N on a linear coordinate).
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            Membership by the tolerances of ``polytopes``; ``False`` for an infeasible mode.

        Raises
        ------
        ContactModelError
            When ``tau`` is not ``n_τ`` finite numbers (named ``tau``).
        """
        return self.contains_scaled(self.session.scaling.tau_from_user(_user_tau(tau, self.n_tau)), task)

    def maximize(self, c, task: bool = True) -> tuple[float, np.ndarray | None] | None:
        """``max c·τ`` over ``T_c``: one LP on ``D_c`` (no projection).

        Parameters
        ----------
        c : array_like
            ``(n_τ,)`` weights per user torque unit.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        tuple[float, numpy.ndarray or None] or None
            ``(value, τ*)``, ``τ*`` ``(n_τ,)`` a maximizer in the system's torque units (N·m; N on
            a linear coordinate); ``None`` when infeasible; ``(inf, None)`` when unbounded.

        Raises
        ------
        ContactModelError
            When ``c`` is not ``n_τ`` finite numbers (named ``c``).
        """
        u = self.session.scaling.tau
        out = self.maximize_scaled(_user_tau(c, self.n_tau, "c") * u, task)  # c·τ = (c u)·τ'
        if out is None or out[1] is None:
            return out
        return out[0], self.session.scaling.tau_to_user(out[1][: self.n_tau])


class AnalysisSession:
    """Analysis of one ``ContactSystem`` (flipping paper, Sec. III).

    A ``system`` whose characteristic scales are marked ``nondimensional`` (the scaled system of
    ``nondimensionalize``, or one built from a state's scaled terms
    with ``scaled_system_fields``) is analysed as it is: its
    scaling is the identity, so nothing is nondimensionalized again and the user's units are the
    nondimensional ones.

    Parameters
    ----------
    system : ContactSystem
        The model at its state (any consistent units; nondimensionalized once here).
    method : str, optional
        Projection method for ``T_c`` (``polytopes.projection.project``).
    progress : Progress, optional
        Optional ``Progress`` for long stages.
    enumeration : Enumeration, optional
        The kinematically feasible modes of ``system`` (Sec. III-F) when the caller has already
        decided them by the enumeration's rule at the same state, e.g. a real-time layout's
        kinematic test (``contactmodes.realtime.plan.KinematicTest.enumeration``). Trusted as
        the kinematically feasible modes: the session does not enumerate again (``enumeration``
        is this object; a mode's ``kinematically_feasible`` is its membership in
        ``enumeration.modes``). Only the mode strings are checked here (one letter of ``"FSLR"``
        per contact, none repeated; a cost linear in the number of modes); that they are the
        modes ``enumerate_modes`` finds is the caller's
        guarantee (for the real-time layouts: ``tests/contactmodes/realtime/test_layout.py``,
        ``tests/contactmodes/analysis/test_session.py``). Default: enumerated on first use.

    Raises
    ------
    ContactModelError
        For an ``enumeration`` with a string that is not a mode of the system's contacts or with a mode
        twice (named ``enumeration.modes[i]``).
    """

    def __init__(self, system: ContactSystem, method: str = "auto", progress: Progress | None = None,
                 enumeration: Enumeration | None = None) -> None:
        if enumeration is not None:
            seen: set[str] = set()
            for i, m in enumerate(enumeration.modes):
                validate_mode(m, system.contacts, f"enumeration.modes[{i}]", system.contact_model.letters)
                if m in seen:
                    raise ContactModelError(f"enumeration.modes[{i}]: mode {m!r} appears twice")
                seen.add(m)
        self._enumeration = enumeration
        self.system = system
        self.method = method
        self.progress = progress
        self.scaling = system.scaling
        self.scaled = self.scaling.system
        self.has_task_eq = any(c.kind == "task" and c.type == "eq" for c in self.scaled.constraints)
        self._modes: dict[str, ModeSolution] = {}
        self._pools: dict[tuple[bool, int], RayPool] = {}  # per (task, thread): a pool is not thread-safe
        self._banks: dict[tuple[bool, bool], EquationBank] = {}
        self._user_sets = UserSets(self.scaling)
        self._filters: dict[bool, PointFilter] = {}  # per task: locate's PointFilter, built once
        #: decides ``overlapping_pairs`` elsewhere when set (``contactmodes.analysis.distributed``:
        #: a Dask cluster); ``None``: in this process
        self.executor = None

    def to_user(self, P: Polytope) -> Polytope:
        """A set of this session in the user's units (``polytope_to_user``).

        The one place a session's results are converted, each scaled object once: a later call
        returns the same user-unit object, its LP caches warm (``UserSets``).

        Parameters
        ----------
        P : Polytope
            A set over ``(τ', z)``: the nondimensional torques, then trailing variables kept as they
            are (e.g. the ambiguity variables ``w`` of ``D_c``).

        Returns
        -------
        Polytope
            The same set over ``(τ, z)``, τ in the system's torque units (N·m; N on a linear
            coordinate).
        """
        return self._user_sets(P)

    @property
    def enumeration(self) -> Enumeration:
        """The kinematically feasible modes: the ``enumeration`` given to the constructor, else
        ``enumerate_modes`` of the system, once."""
        if self._enumeration is None:
            self._enumeration = enumerate_modes(self.system, progress=self.progress)
        return self._enumeration

    def equation_bank(self, task: bool, scaled: bool = True) -> EquationBank:
        """The ``EquationBank`` of the nondimensional (or the user's) system, built once and shared by
        every mode.

        Parameters
        ----------
        task : bool
            With the task equalities (eqs. 15–18) or without; task inequalities are always in,
            marked by ``ineq_task``.
        scaled : bool, optional
            The nondimensional system (default) or, ``False``, the user's.

        Returns
        -------
        EquationBank
            The rows every mode's equations (24)–(25) and (32) are taken from.
        """
        key = (task, scaled)
        bank = self._banks.get(key)
        if bank is None:
            bank = self._banks[key] = EquationBank(self.scaled if scaled else self.system, task=task, task_geq=True)
        return bank

    @property
    def box_kernel(self) -> str | None:
        """The ``polytopes.batchlp`` kernel the bounding boxes' support LPs go through first
        (``"compiled"``) for analyses of more than ``BATCH_BOX_MODES`` kinematically feasible
        modes when the compiled kernel is worth its load (about ``BOX_LPS_PER_MODE`` LPs per mode
        make it pay, ``polytopes.batchlp.preferred_kernel``: a choice by the problem's size,
        never by the process's history), else ``None`` (one cddlib LP each; the NumPy
        kernel's per-pivot overhead does not pay for a few LPs per box). Before the enumeration
        has run (a point location's few modes, ``locate``) ``None``: a box never enumerates."""
        from polytopes import batchlp

        n = len(self._enumeration.modes) if self._enumeration is not None else 0  # never enumerates for a box
        if n <= BATCH_BOX_MODES or batchlp.preferred_kernel(BOX_LPS_PER_MODE * n) != "compiled":
            return None
        return "compiled"

    def _ray_pool(self, task: bool = True) -> RayPool:
        """The ``RayPool`` of recession rays met on this session's domains over τ'
        (with or without task rows) in the calling thread (``_boxes`` shares boxes between
        threads; a pool is not thread-safe): hints for the bounding boxes of later modes, each
        checked on the domain it serves."""
        key = (task, threading.get_ident())
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = RayPool(self.scaled.n_tau)
        return pool

    def mode(self, mode: str, where: str = "mode") -> ModeSolution:
        """The ``ModeSolution`` of a mode, one object per mode and session.

        Parameters
        ----------
        mode : str
            The mode string, one letter of ``"FSLR"`` per contact.
        where : str, optional
            The field name error messages use (default ``"mode"``).

        Returns
        -------
        ModeSolution
            The mode's lazily computed solution (a mode the enumeration pruned too).

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system's contacts (the message names ``where``).
        """
        sol = self._modes.get(mode)
        if sol is None:
            validate_mode(mode, self.system.contacts, where, self.system.contact_model.letters)
            sol = ModeSolution(self, mode, (mode in self._surviving) if self._enumeration is not None else None)
            self._modes[mode] = sol
        return sol

    @cached_property
    def _surviving(self) -> frozenset[str]:
        return frozenset(self.enumeration.modes)

    def forget_modes(self) -> None:
        """Drop every mode's ``ModeSolution`` and what it computed; the session's equation banks,
        ray pools and enumeration stay (a cluster worker's session between two chunks of modes,
        ``contactmodes.analysis.distributed``). A mode asked later starts afresh."""
        self._modes.clear()

    def modes(self, selection: Iterable[str] | None = None, where: str = "modes") -> list[ModeSolution]:
        """Mode objects for a selection, validated, duplicates dropped, order kept.

        Parameters
        ----------
        selection : Iterable[str], optional
            Mode strings; default the kinematically feasible modes (``enumeration``).
        where : str, optional
            The field name error messages use (default ``"modes"``; an entry is ``where[i]``).

        Returns
        -------
        list[ModeSolution]
            One per distinct mode, in the order of ``selection``.

        Raises
        ------
        ContactModelError
            When ``selection`` is a single string, or an entry is not a mode of the system's
            contacts.
        """
        if selection is None:
            names = list(self.enumeration.modes)
        else:
            if isinstance(selection, str):
                raise ContactModelError(f"{where}: expected a list of mode strings, got the string {selection!r}")
            seen: dict[str, None] = {}  # ordered, O(1) membership (a list made this quadratic: 6 s at 28 000 modes)
            for i, m in enumerate(selection):
                validate_mode(m, self.system.contacts, f"{where}[{i}]", self.system.contact_model.letters)
                seen.setdefault(m)
            names = list(seen)
        return [self.mode(m) for m in names]

    def feasible_modes(self, task: bool = True, selection: Iterable[str] | None = None) -> list[str]:
        """The modes whose ``D_c`` is non-empty (Sec. III-E), with progress stages.

        The missing responses are computed together (stacked SVDs) and the emptiness LPs of
        ``BATCH_MIN`` or more domains solved in one verified batch; each result is cached on its mode.

        Parameters
        ----------
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        selection : Iterable[str], optional
            Mode strings to look at; default the kinematically feasible modes.

        Returns
        -------
        list[str]
            The feasible modes, in the order of ``selection`` (or of the enumeration).
        """
        every = self.modes(selection)
        sols = [sol for sol in every if not sol.has("feasible", task)]  # not decided elsewhere already
        with stage(self.progress, "mode responses", len(sols)) as st:  # one batched call: the heartbeat shows it
            st.update(0, "stacked SVDs")
            self._prime_responses(sols, task)
            st.update(len(sols))
        with stage(self.progress, "domains", len(sols)) as st:
            raws = []
            for sol in sols:
                raws.append(sol.raw_scaled(task))
                st.update(1, sol.mode)
        # the emptiness LPs of all modes in one verified batch (each result cached on its D_c)
        polys = [P for P, trivially in raws if not trivially]
        if len(polys) >= BATCH_MIN:
            # by the compiled kernel when their number pays (a choice by the problem's size): the
            # 12-contact chain's 30 720 emptiness LPs, 2x faster than the NumPy kernel
            with stage(self.progress, "emptiness of the domains", len(polys)) as st:
                st.update(0, "one verified LP batch")
                Polytope.are_empty(polys, kernel=preferred_kernel(len(polys)))
                st.update(len(polys))
        return [sol.mode for sol in every if sol.feasible(task)]

    def _prime_responses(self, sols: Sequence[ModeSolution], task: bool) -> None:
        """Compute the missing responses of ``sols`` (``ModeSolution.response``) and their
        substituted rows together (``responses_from_equations``,
        ``substituted_rows_many``: the same numbers, stacked SVDs and
        products per shape)."""
        todo = [sol for sol in sols if not sol.has("response", task)]
        if len(todo) < BATCH_MIN:
            return
        t0 = time.perf_counter()
        bank = self.equation_bank(todo[0]._variant(task) == "task")
        responses = responses_from_equations([bank.equations(sol.mode) for sol in todo])
        _charge(todo, "response", time.perf_counter() - t0)
        for sol, resp in zip(todo, responses):
            sol.provide("response", task, resp)
        t0 = time.perf_counter()  # and their substituted rows (33), likewise
        rows = substituted_rows_many(responses)
        _charge(todo, "assemble", time.perf_counter() - t0)
        for sol, resp, ab in zip(todo, responses, rows):
            sol.provide("rows", task, _rows_entry(resp, ab))

    def prime_T(self, modes: Sequence[str], task: bool = True, user_units: bool = False) -> None:
        """Compute the ``T_c`` of the feasible ``modes`` with a progress stage.

        For the callers that show every ``T_c`` (the text table, the JSON document):
        ``PRIME_CHUNK`` modes at a time (bounded memory), and for ``PREPARE_MIN`` or more the
        emptiness and hull LPs of their ``D_c`` (and of the user-unit ``T_c``) solved together
        (``polytopes.Polytope.prepare_many``), and the projections' LPs too
        (``polytopes.Polytope.project_many``) — the same sets as ``ModeSolution.T_scaled`` gives.

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
            Infeasible ones are skipped.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        user_units : bool, optional
            Also convert each ``T_c`` to the user's units (``ModeSolution.T``) and decide their
            emptiness and hulls together.
        """
        for _ in self.T_chunks(modes, task, user_units):
            pass

    def T_chunks(self, modes: Sequence[str], task: bool = True, user_units: bool = False) -> Iterator[list[str]]:
        """``prime_T`` one chunk at a time.

        The same chunks and sets as ``prime_T``, so that a caller can use a chunk (write it out) and
        release it (``ModeSolution.release``) before the next is computed
        (``AnalysisResult.iter_json``).

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
            Infeasible ones are skipped.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        user_units : bool, optional
            As in ``prime_T``.

        Yields
        ------
        list[str]
            The names of each chunk of (at most ``PRIME_CHUNK``) feasible ``modes``, in their order,
            once their ``T_c`` are computed.
        """
        sols = [sol for sol in (self.mode(m) for m in modes) if sol.feasible(task)]
        with stage(self.progress, "projections", len(sols)) as st:
            for start in range(0, len(sols), PRIME_CHUNK):
                chunk = sols[start:start + PRIME_CHUNK]
                self._prime_T_chunk([sol for sol in chunk if not sol.has_T(task)], task)
                if user_units and len(chunk) >= PREPARE_MIN:
                    Polytope.prepare_many([T for T in (sol.T(task) for sol in chunk) if T is not None])
                st.update(len(chunk), chunk[-1].mode)
                yield [sol.mode for sol in chunk]

    def _prime_T_chunk(self, todo: Sequence[ModeSolution], task: bool) -> None:
        """``prime_T``'s ``T_c`` of ``todo`` (feasible modes without one yet)."""
        if len(todo) >= PREPARE_MIN:
            Polytope.prepare_many([sol._projection_input(task) for sol in todo])
            lifted = [sol for sol in todo if sol.response_scaled(task).n_w > 0]  # the others' T_c is D_c
            if lifted:
                t0 = time.perf_counter()
                Ts = Polytope.project_many([sol._projection_input(task) for sol in lifted], list(range(self.scaled.n_tau)),
                                           self.method)
                _charge(lifted, "project", time.perf_counter() - t0)
                for sol, T in zip(lifted, Ts):
                    sol.provide("T", task, T)
        for sol in todo:
            sol.T_scaled(task)

    # ------------------------------------------------------------------ overlaps (III-G.1)
    def prime_boxes(self, modes: Sequence[str], task: bool) -> None:
        """Compute the missing bounding boxes of ``modes`` (``ModeSolution.box``) with their
        support LPs in one verified batch (``polytopes.Polytope.bounding_boxes``) — for the
        analyses whose boxes go through cddlib one side at a time (``box_kernel`` ``None``).

        Parameters
        ----------
        modes : Sequence[str]
            The modes (only the feasible ones without a box or ``T_c`` yet are computed).
        task : bool
            With the task rows (``True``) or without.
        """
        if self.box_kernel is not None:
            return
        sols = [sol for sol in (self.mode(m) for m in modes)
                if not sol.has("box", task) and not sol.has_T(task) and sol.feasible(task)]
        if len(sols) < BATCH_MIN:
            return
        t0 = time.perf_counter()
        polys = [sol._D_or_raw(task) for sol in sols]
        boxes = Polytope.bounding_boxes(polys, range(self.scaled.n_tau), pool=self._ray_pool(task))
        _charge(sols, "box", time.perf_counter() - t0)
        for sol, box in zip(sols, boxes):
            sol.provide("box", task, box)

    def _boxes(self, modes: Sequence[str], task: bool) -> list[tuple[np.ndarray, np.ndarray]]:
        """``box_scaled`` of every mode of ``modes``, with a progress stage; the boxes of many
        modes by the compiled kernel (``box_kernel``) are shared by threads
        (``polytopes.in_threads``; the kernel releases the GIL), each thread with its own ray
        pool (``_ray_pool``): a box's values do not depend on which rays proved its unbounded
        sides (``polytopes.Polytope.bounding_box``), so the boxes are those of one thread."""
        sols = [self.mode(m) for m in modes]
        boxes: list = [None] * len(sols)
        lock = threading.Lock()
        with stage(self.progress, "bounding boxes", len(sols)) as st:
            def some(z: slice) -> None:
                for i in range(z.start, z.stop):
                    boxes[i] = sols[i].box_scaled(task)
                    with lock:
                        st.update(1, sols[i].mode)

            in_threads(some, len(sols), BOX_MODES_PER_THREAD if self.box_kernel is not None else len(sols) + 1)
        return boxes

    def _box_sweep(self, modes: Sequence[str], task: bool):
        """The bounding-box sweep along the first torque (the other axes checked), in blocks of
        ``SWEEP_BLOCK`` modes: yields ``(count, pairs)`` per block, ``count`` how many pairs of
        this block have meeting boxes and ``pairs()`` those pairs as ``(i, j)``, two index arrays
        of length ``count`` (``i`` earlier in the sweep order than ``j``, indices into ``modes``),
        built only when called (a caller past its limit only counts). Stores nothing quadratic
        beyond one block."""
        self.prime_boxes(modes, task)
        boxes = self._boxes(modes, task)
        lo = np.array([b[0] for b in boxes])
        hi = np.array([b[1] for b in boxes])
        if lo.ndim == 2 and lo.shape[1] == 0:  # no torque: the boxes are the one point of R^0, all meet
            N = len(modes)
            if N > 1:
                yield N * (N - 1) // 2, lambda: np.triu_indices(N, 1)
            return
        finite = np.abs(np.concatenate([lo[np.isfinite(lo)], hi[np.isfinite(hi)]]))

        gap = tolerances.CONSISTENCY_RTOL * max(1.0, float(finite.max(initial=0.0)))
        order = np.argsort(lo[:, 0], kind="stable")
        loT, hiT = np.ascontiguousarray(lo[order].T), np.ascontiguousarray(hi[order].T)
        hiG = hiT + gap
        ends = np.searchsorted(loT[0], hiG[0], side="right")
        N = len(order)
        for a0 in range(0, N, SWEEP_BLOCK):
            a1 = min(N, a0 + SWEEP_BLOCK)
            end = int(ends[a0:a1].max())
            if end <= a0 + 1:
                continue
            rows, cols = np.arange(a0, a1)[:, None], np.arange(a0 + 1, end)[None, :]
            ok = (cols > rows) & (cols < ends[a0:a1, None])
            for k in range(loT.shape[0]):
                # a comparison every pair of the block passes (max lo <= min hi, most sides being
                # infinite) is skipped: the same mask (a NaN fails the test, so it is compared)
                lo_c, hi_r = loT[k, a0 + 1:end], hiG[k, a0:a1]
                if not lo_c.max() <= hi_r.min():
                    ok &= lo_c[None, :] <= hi_r[:, None]
                lo_r, hi_c = loT[k, a0:a1], hiG[k, a0 + 1:end]
                if not lo_r.max() <= hi_c.min():
                    ok &= lo_r[:, None] <= hi_c[None, :]
            count = int(np.count_nonzero(ok))
            if count:
                yield count, functools.partial(_block_pairs, order, a0, ok)

    def candidate_pairs_within(self, modes: Sequence[str], task: bool = True, limit: int | None = None
                               ) -> tuple[int, list[tuple[str, str]] | None]:
        """How many pairs of ``modes`` have meeting bounding boxes, and those pairs unless there are
        more than ``limit`` (one sweep either way; the list is dropped as soon as the count passes
        ``limit``).

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
            Feasible modes (an infeasible mode's empty box meets none).
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        limit : int, optional
            Build the list of pairs only up to this many; default no limit.

        Returns
        -------
        tuple[int, list[tuple[str, str]] or None]
            ``(count, pairs)``: ``pairs`` as ``candidate_pairs`` gives them, or ``None`` when
            ``count > limit``.
        """
        if len(modes) < 2:
            return 0, []
        count = 0
        parts: list[np.ndarray] | None = []
        for n, block in self._box_sweep(modes, task):
            count += n
            if parts is not None and limit is not None and count > limit:
                parts = None
            if parts is not None:
                i, j = block()
                parts.append(np.stack([np.minimum(i, j), np.maximum(i, j)], axis=1))
        if parts is None:
            return count, None
        if not parts:
            return 0, []
        pairs = np.concatenate(parts)
        pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
        return count, [(modes[i], modes[j]) for i, j in pairs.tolist()]

    def count_candidate_pairs(self, modes: Sequence[str], task: bool = True) -> int:
        """How many pairs of ``modes`` have meeting bounding boxes (``candidate_pairs`` without
        building the list).

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        int
            The number of candidate pairs.
        """
        return self.candidate_pairs_within(modes, task, limit=0)[0]

    def candidate_pairs(self, modes: Sequence[str], task: bool = True) -> list[tuple[str, str]]:
        """Pairs of ``modes`` whose bounding boxes meet (a sweep along the first torque, then the other
        axes checked); no LP beyond the boxes.

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
            Feasible modes (an infeasible mode's empty box meets none).
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        list[tuple[str, str]]
            Pairs ``(a, b)`` with ``a`` before ``b`` in ``modes``, sorted by those positions.
        """
        pairs = self.candidate_pairs_within(modes, task)[1]
        assert pairs is not None  # no limit
        return pairs

    def overlap_set_scaled(self, a: str, b: str, task: bool = True) -> Polytope | None:
        """``T_a ∩ T_b`` over τ' (Sec. III-G.1), its equalities made independent.

        Parameters
        ----------
        a, b : str
            The two mode strings.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        Polytope or None
            Dimension ``n_τ``, nondimensional; ``None`` when either mode is infeasible or the
            intersection is empty.
        """
        Ta, Tb = self.mode(a).T_scaled(task), self.mode(b).T_scaled(task)
        if Ta is None or Tb is None:
            return None
        inter = intersect_domains(Ta, Tb)
        if inter is None or inter.is_empty():
            return None
        return inter

    def overlaps(self, a: str, b: str, task: bool = True) -> bool:
        """Whether ``T_a ∩ T_b`` is non-empty (Sec. III-G.1).

        One LP, on the ``T``'s if both are computed, else on the lifted domains
        ``{(τ', w_a, w_b) : (τ', w_a) ∈ D_a, (τ', w_b) ∈ D_b}``.

        Parameters
        ----------
        a, b : str
            The two mode strings.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.

        Returns
        -------
        bool
            ``False`` when either mode is infeasible.
        """
        sa, sb = self.mode(a), self.mode(b)
        if not (sa.feasible(task) and sb.feasible(task)):
            return False
        if sa.has_T(task) and sb.has_T(task):
            return self.overlap_set_scaled(a, b, task) is not None
        rows = self._lifted_pair(a, b, task)
        return rows is not None and not Polytope(*rows).is_empty()

    def _lifted_pair(self, a: str, b: str, task: bool):
        """``(A, b, C, d)`` of ``{(τ', w_a, w_b) : (τ', w_a) ∈ D_a, (τ', w_b) ∈ D_b}`` (its
        projection onto τ' is ``T_a ∩ T_b``), the equalities made independent when both modes
        have some (``independent_equalities``); ``None`` when they are
        inconsistent. ``_lifted_nonempty`` builds the same rows for many pairs at once."""
        Pa, Pb = self.mode(a)._D_or_raw(task), self.mode(b)._D_or_raw(task)
        n = self.scaled.n_tau
        C, d = _lift(Pa.C[None], Pb.C[None], n)[0], np.concatenate([Pa.d, Pb.d])
        if Pa.n_eq and Pb.n_eq:
            eq = independent_equalities(C, d)
            if eq is None:
                return None
            C, d = eq
        return _lift(Pa.A[None], Pb.A[None], n)[0], np.concatenate([Pa.b, Pb.b]), C, d

    def _lifted_nonempty(self, pairs: Sequence[tuple[str, str]], task: bool) -> np.ndarray:
        """Whether the lifted domain of each pair (``_lifted_pair``) is non-empty by the
        emptiness rule, (len(pairs),) bool: the pairs whose two domains have the same shapes as
        another pair's stacked (their rows, ``independent_equalities_stacked``
        and ``polytopes.empty_stacked``), so no Python loop runs per pair beyond
        grouping; each decision is the one ``feasibility_many`` takes on
        ``_lifted_pair``'s rows (``tests/contactmodes/analysis/test_session.py``)."""
        n = self.scaled.n_tau
        polys: dict[str, Polytope] = {}
        for pair in pairs:
            for m in pair:
                if m not in polys:
                    polys[m] = self.mode(m)._D_or_raw(task)
        groups: dict[tuple, list[int]] = {}
        for i, (first_mode, second_mode) in enumerate(pairs):
            Pa, Pb = polys[first_mode], polys[second_mode]
            groups.setdefault((Pa.A.shape, Pa.n_eq, Pb.A.shape, Pb.n_eq), []).append(i)
        stacks, places = [], []
        for (_, p_a, _, p_b), idx in groups.items():
            first = [polys[pairs[i][0]] for i in idx]
            second = [polys[pairs[i][1]] for i in idx]
            A = _lift(np.array([P.A for P in first]), np.array([P.A for P in second]), n)
            b = np.concatenate([np.array([P.b for P in first]), np.array([P.b for P in second])], axis=1)
            C = _lift(np.array([P.C for P in first]), np.array([P.C for P in second]), n)
            d = np.concatenate([np.array([P.d for P in first]), np.array([P.d for P in second])], axis=1)
            parts = independent_equalities_stacked(C, d) if p_a and p_b else [(np.arange(len(idx)), C, d)]
            where = np.asarray(idx)
            for sel, C_s, d_s in parts:  # inconsistent equalities: in no part, empty
                stacks.append((A[sel], b[sel], C_s, d_s))
                places.append(where[sel])
        out = np.zeros(len(pairs), dtype=bool)
        for where, (empty, _) in zip(places, empty_stacked(stacks)):
            out[where] = ~empty
        return out

    def overlapping_pairs(self, modes: Sequence[str], task: bool = True,
                          candidates: Sequence[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
        """Every pair of ``modes`` (feasible ones) with intersecting ``T_c`` (III-G.1), with a progress
        stage. Stores pairs only.

        Each pair is decided by the first of (the V-representations come from cdd's floating
        double description and serve only as *hints*: every claim is checked against the
        H-representations, so a wrong V-representation costs an LP, never a wrong answer):

        1. a witness point — the Chebyshev centre, a vertex, a vertex moved along a ray or line —
           of one set satisfying every row of the other within the emptiness tolerance of
           ``polytopes`` (``_near``): non-empty (neighbouring modes typically share a
           face, where no centre lies but vertices do);
        2. a facet of one set beyond which the other's vertices all lie, *certified* by LP duality
           from the active rows of the minimizing vertex (``_separated``): empty;
        3. one LP (``_intersect``).

        A mode whose ``T_c`` is not computed yet and with at most ``LIFTED_PAIRS_MAX`` candidate
        partners is not projected: its witness is the τ' part of ``D_c``'s max-slack point, and its
        pairs left undecided are decided by the emptiness rule on the lifted domains ``{(τ', w_a, w_b)}``
        (``_lifted_nonempty``), their LPs solved in verified batches
        (``polytopes.empty_stacked``). Up to ``DIRECT_PAIRS`` candidates each pair is one LP; with
        more and an ``executor`` set, the pairs are decided there.

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings of the system (one letter of ``"FSLR"`` per contact).
            Feasible modes.
        task : bool, optional
            With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        candidates : Sequence[tuple[str, str]], optional
            The pairs to decide (modes of ``modes``); default ``candidate_pairs(modes, task)``.

        Returns
        -------
        list[tuple[str, str]]
            The intersecting pairs, in the order of ``candidates``.
        """
        cands = self.candidate_pairs(modes, task) if candidates is None else list(candidates)
        if not cands:
            return []
        if self.executor is not None and len(cands) > DIRECT_PAIRS:  # on a cluster, in blocks
            return self.executor.overlapping_pairs(self, modes, task, cands)
        if len(cands) <= DIRECT_PAIRS:  # a few pairs: one LP each costs less than the witnesses
            out = []
            with stage(self.progress, "overlaps", len(cands)) as st:
                for a, b in cands:
                    Ta, Tb = self.mode(a).T_scaled(task), self.mode(b).T_scaled(task)
                    if Ta is not None and Tb is not None and _intersect(Ta, Tb):
                        out.append((a, b))
                    st.update(1)
            return out
        order = {m: i for i, m in enumerate(modes)}
        involved = sorted({m for pair in cands for m in pair}, key=order.__getitem__)
        # T_c is used only where it already was computed or pays (more than LIFTED_PAIRS_MAX
        # partners); the other modes offer one witness, the τ' part of D_c's max-slack point, and
        # their pairs are decided on the lifted domains
        partners: dict[str, list[str]] = {}
        for a, b in cands:
            partners.setdefault(b, []).append(a)
            partners.setdefault(a, []).append(b)
        lifted = {m for m in involved if not self.mode(m).has_T(task) and len(partners[m]) <= LIFTED_PAIRS_MAX}
        info = {}
        with stage(self.progress, "overlaps: vertices", len(involved) - len(lifted)) as st:
            for m in involved:
                if m not in lifted:
                    T = self.mode(m).T_scaled(task)
                    assert T is not None  # candidates are feasible modes
                    info[m] = _SetInfo(T)
                    st.update(1, m)
        n = self.scaled.n_tau
        points = {}
        for m in lifted:
            p = self.mode(m)._D_or_raw(task).witness()
            assert p is not None  # candidates are feasible modes
            points[m] = p[None, :n]
        hit: set[frozenset[str]] = set()
        for m, others in partners.items():
            if m in lifted:
                continue
            pts = [info[o].witnesses if o in info else points[o] for o in others]
            X = np.vstack(pts)
            ok = _near(info[m].T, X)
            starts = np.cumsum([0] + [len(p) for p in pts[:-1]])
            any_ok = np.logical_or.reduceat(ok, starts) if len(X) else np.zeros(len(others), dtype=bool)
            hit.update(frozenset((o, m)) for o, h in zip(others, any_ok) if h)
        undecided: dict[str, list[str]] = {}
        for a, b in cands:
            if frozenset((a, b)) not in hit and a in info and b in info:
                undecided.setdefault(a, []).append(b)
                undecided.setdefault(b, []).append(a)
        separated: set[frozenset[str]] = set()
        for m, others in undecided.items():  # facets of the partners against m's vertices
            separated.update(frozenset((o, m)) for o in _separated(info[m], [info[o] for o in others], others))
        # the pairs with a mode without T_c: their lifted domains, decided together (one batch)
        lifted_pairs: dict[tuple[str, str], bool] = {}
        todo = [(a, b) for a, b in cands if frozenset((a, b)) not in hit and (a in lifted or b in lifted)]
        with stage(self.progress, "overlaps: lifted domains", len(todo)) as st:
            for start in range(0, len(todo), PADDED_CHUNK):  # bounded memory: one chunk of rows at a time
                chunk = todo[start:start + PADDED_CHUNK]
                lifted_pairs.update(zip(chunk, self._lifted_nonempty(chunk, task).tolist()))
                st.update(len(chunk))
        out = []
        with stage(self.progress, "overlaps", len(cands)) as st:
            for a, b in cands:
                key = frozenset((a, b))
                if key in hit:
                    out.append((a, b))
                elif (a, b) in lifted_pairs:
                    if lifted_pairs[(a, b)]:
                        out.append((a, b))
                elif key not in separated and _intersect(info[a].T, info[b].T):
                    out.append((a, b))
                st.update(1)
        return out

    def boundary_only_pairs(self, pairs: Sequence[tuple[str, str]], task: bool = True) -> list[bool]:
        """Whether each overlapping pair ``(a, b)`` meets only on the sets' boundaries:
        ``dim(T_a ∩ T_b) < min(dim T_a, dim T_b)`` (affine dimensions by ``polytopes``' one
        affine-hull rule, on the scaled sets), so that neither set loses a piece of its own
        dimension to the other: ``boundary_only`` of ``AmbiguitySource`` (Sec. III-G.1) seen from
        both modes. Neighbouring modes typically meet on a common facet (a friction cone's
        edge, a normal force reaching zero): a *boundary-only* overlap, which the closure
        convention of ``T*_c`` removes nothing for (``contactmodes.analysis.ambiguity``).

        The intersections' emptiness and affine hulls are decided together
        (``Polytope.prepare_many``, the NumPy kernel: the same decisions in every process); a
        pair whose intersection the rule now finds empty, or whose equalities are inconsistent,
        meets within the tolerances only and counts as boundary-only.

        Parameters
        ----------
        pairs : Sequence[tuple[str, str]]
            Pairs of feasible modes found overlapping (``overlapping_pairs``).
        task : bool, optional
            Whether the ``T_c`` are those with the task constraints.

        Returns
        -------
        list[bool]
            One per pair, in order.
        """
        inters: list[Polytope | None] = []
        for a, b in pairs:
            Ta, Tb = self.mode(a).T_scaled(task), self.mode(b).T_scaled(task)
            inters.append(None if Ta is None or Tb is None else intersect_domains(Ta, Tb))
        Polytope.prepare_many([P for P in inters if P is not None])
        out = []
        for (a, b), P in zip(pairs, inters):
            if P is None or P.is_empty():
                out.append(True)
                continue
            Ta, Tb = self.mode(a).T_scaled(task), self.mode(b).T_scaled(task)
            assert Ta is not None and Tb is not None
            out.append(P.affine_dimension() < min(Ta.affine_dimension(), Tb.affine_dimension()))
        return out

    def locate(self, tau, task: bool = True, selection: Iterable[str] | None = None, tol: float = 0.0) -> list[str]:
        """Modes (default: kinematically feasible ones) whose ``T_c`` contains the torque ``tau``
        (n_τ,) **in user units** — or, with ``tol > 0``, lies within the Euclidean distance
        ``tol`` of it (user units, ``distance``): box filter, then one LP per remaining mode (and,
        for a mode not containing ``tau`` whose box is within ``tol``, its verified distance).
        With ``tol = 0`` the modes are first filtered at the torque by their unique solutions
        (``_point_candidates``, ``contactmodes.analysis.point_location``: a mode is dropped only
        when ``tau`` is far outside its ``T_c``), so only the few left are built; with ``tol > 0``
        every mode of the selection is tested as before.

        ``tol`` answers for a torque known to some precision: a torque printed to two digits
        misses a lower-dimensional ``T_c`` (one with equalities) by the rounding; the default 0
        asks for membership as given (within the analysis's tolerances).

        Parameters
        ----------
        tau : array_like
            The torque, shape ``(n_τ,)``, user units.
        task : bool, optional
            Whether ``T_c`` includes the task constraints.
        selection : Iterable[str], optional
            The modes to look at (default: the kinematically feasible ones).
        tol : float, optional
            Euclidean distance (the torques' units, ``>= 0``) within which a mode counts.

        Returns
        -------
        list[str]
            The modes, in analysis order.

        Raises
        ------
        ContactModelError
            On a wrong shape or non-finite value (named ``tau``), or a negative or non-finite
            ``tol``."""
        tol = _distance_tol(tol)
        t = self.scaling.tau_from_user(_user_tau(tau, self.system.n_tau, torques=self.system.torques))
        out = []
        sols = self._point_candidates(t, task, selection) if tol == 0 else self.modes(selection)
        for sol in sols:
            if not sol.feasible(task):
                continue
            lo, hi = sol.box_scaled(task)
            slack = tolerances.LOCATE_BOX_RTOL * max(1.0, float(np.abs(t).max(initial=0.0)))  # no torque: no box to filter by
            if _box_distance(t, lo - slack, hi + slack, self.scaling.tau) > tol:
                continue
            if sol.contains_scaled(t, task) or (tol > 0 and self._distance(sol, t, task)[0] <= tol):
                out.append(sol.mode)
        return out

    def point_filter(self, task: bool) -> PointFilter:
        """The session's ``PointFilter`` (``contactmodes.analysis.point_location``), built once per
        ``task``.

        Parameters
        ----------
        task : bool
            With the system's task rows or without.

        Returns
        -------
        PointFilter
            The filter over this session's nondimensional system.
        """
        filt = self._filters.get(task)
        if filt is None:
            filt = self._filters[task] = PointFilter(self, task)
        return filt

    def _point_candidates(self, t: np.ndarray, task: bool, selection: Iterable[str] | None) -> list[ModeSolution]:
        """``locate``'s modes to test at the torque ``t`` (nondimensional): those of ``selection``
        (default: the kinematically feasible ones) that ``PointFilter`` cannot rule out
        (``contactmodes.analysis.point_location``: each mode's unique solution at ``t``, for all
        modes at once), in the same order. Without a selection, with the filter available and at
        most ``LOCATE_FILTER_MAX`` modes allowed by Table III, these are filtered without the
        enumeration, and the few left are tested for kinematic feasibility one by one
        (``acceleration_feasible``, the enumeration's decision of a whole mode) unless the
        enumeration has run."""
        if self._enumeration is None:
            classify_velocities(self.system)  # an approaching contact: the enumeration's error
        filt = self.point_filter(task)
        if selection is not None:
            return self.modes(filt.candidates(t, [s.mode for s in self.modes(selection)]))
        if self._enumeration is not None or not filt.available or filt.count() > LOCATE_FILTER_MAX:
            return self.modes(filt.candidates(t, self.enumeration.modes))
        names = [m for m in filt.candidates(t) if acceleration_feasible(self.system, m)]
        return self.modes(names)

    def distance(self, tau, mode: str, task: bool = True) -> float:
        """The Euclidean distance (user units) from the torque ``tau`` (n_τ,, user units) to
        ``T_c`` of ``mode``: 0 when ``T_c`` contains it (the point test of ``locate``), else the
        verified distance to its nearest point (``polytopes.Polytope.nearest_point`` on the
        scaled ``T_c`` with the torques' units as weights); ``inf`` for an infeasible mode.

        Parameters
        ----------
        tau : array_like
            The torque, shape ``(n_τ,)``, user units.
        mode : str
            The mode string.
        task : bool, optional
            Whether ``T_c`` includes the task constraints.

        Returns
        -------
        float
            The distance, user units.

        Raises
        ------
        ContactModelError
            On a bad ``tau`` or ``mode``.
        NumericalError
            When the nearest point cannot be verified (``polytopes``)."""
        t = self.scaling.tau_from_user(_user_tau(tau, self.system.n_tau, torques=self.system.torques))
        return self._distance(self.mode(mode), t, task)[0]

    def nearest(self, tau, task: bool = True, selection: Iterable[str] | None = None) -> NearestMode | None:
        """The mode whose ``T_c`` is nearest to the torque ``tau`` (n_τ,, user units), its
        Euclidean distance and the nearest torque of ``T_c`` (user units), among the feasible
        modes of ``selection`` (default: the kinematically feasible ones); ``None`` when none is
        feasible. Ties (distances equal within ``DISTANCE_TIE_RTOL``) go to the first mode in
        analysis order. Modes are visited by the distance to their bounding boxes (a lower
        bound), each ``T_c`` projected only while that bound can still beat the best.

        Parameters
        ----------
        tau : array_like
            The torque, shape ``(n_τ,)``, user units.
        task : bool, optional
            Whether ``T_c`` includes the task constraints.
        selection : Iterable[str], optional
            The modes to look at (default: the kinematically feasible ones).

        Returns
        -------
        NearestMode or None
            The nearest mode, its distance and nearest torque; ``None`` when none is feasible.

        Raises
        ------
        ContactModelError
            On a bad ``tau``."""
        t = self.scaling.tau_from_user(_user_tau(tau, self.system.n_tau, torques=self.system.torques))
        u = self.scaling.tau
        feasible = [sol for sol in self.modes(selection) if sol.feasible(task)]
        if not feasible:
            return None
        order = {sol.mode: i for i, sol in enumerate(feasible)}
        bounds = sorted(((_box_distance(t, *sol.box_scaled(task), u), order[sol.mode], sol) for sol in feasible),
                        key=lambda item: item[:2])
        best: NearestMode | None = None
        for bound, _, sol in bounds:
            if best is not None and bound > best.distance * (1 + tolerances.DISTANCE_TIE_RTOL):
                break
            d, point = self._distance(sol, t, task)
            if best is None or _nearer(d, order[sol.mode], best.distance, order[best.mode]):
                best = NearestMode(sol.mode, d, self.scaling.tau_to_user(point))
        return best

    def _distance(self, sol: ModeSolution, t: np.ndarray, task: bool) -> tuple[float, np.ndarray]:
        """``(distance in user units, nearest point τ')`` from ``t`` (scaled) to ``T_c`` of
        ``sol``; ``(inf, t)`` when infeasible, ``(0, t)`` when it contains ``t``."""
        if not sol.feasible(task):
            return float("inf"), t
        if sol.contains_scaled(t, task):
            return 0.0, t
        T = sol.T_scaled(task)
        assert T is not None  # feasible
        if T.dim == 0:  # R^0: a consistent mode contains the one point
            return 0.0, t
        near = T.nearest_point(t, weights=self.scaling.tau)
        return near.distance, np.asarray(near.point)


@dataclass(frozen=True)
class NearestMode:
    """The mode nearest to a torque (``AnalysisSession.nearest``, ``AnalysisResult.nearest``).

    Attributes
    ----------
    mode : str
        The mode string.
    distance : float
        Euclidean distance from the torque to ``T_c`` in the system's torque units (0 when
        ``T_c`` contains it).
    torque : numpy.ndarray
        ``(n_τ,)`` the nearest torque of ``T_c`` (the system's units).
    """

    mode: str
    distance: float
    torque: np.ndarray

    def to_json(self) -> dict:
        """``{"mode", "distance", "torque"}`` (floats)."""
        return {"mode": self.mode, "distance": float(self.distance), "torque": np.asarray(self.torque).tolist()}


def _distance_tol(tol) -> float:
    """``tol`` as a finite float ``>= 0`` (a distance in the torques' units), else a
    ``ContactModelError`` naming ``tol``."""
    try:
        value = float(tol)
    except (TypeError, ValueError):
        raise ContactModelError(f"tol: expected a distance >= 0 in the torques' units, got {tol!r}") from None
    if not (math.isfinite(value) and value >= 0.0):
        raise ContactModelError(f"tol: expected a finite distance >= 0 in the torques' units, got {tol!r}")
    return value


def _box_distance(t: np.ndarray, lo: np.ndarray, hi: np.ndarray, units: np.ndarray) -> float:
    """Euclidean distance in user units (``units`` per scaled unit, (n,)) from ``t`` to the box
    ``[lo, hi]`` (scaled, ±inf allowed): a lower bound on the distance to any set inside it."""
    gap = np.maximum(lo - t, 0.0) + np.maximum(t - hi, 0.0)
    return float(np.linalg.norm(units * gap))


def _nearer(d: float, i: int, best_d: float, best_i: int) -> bool:
    """Whether distance ``d`` of the mode at position ``i`` beats ``best_d`` at ``best_i``: smaller
    beyond ``DISTANCE_TIE_RTOL``, or tied and earlier in analysis order."""
    tied = abs(d - best_d) <= tolerances.DISTANCE_TIE_RTOL * max(d, best_d)
    return (i < best_i) if tied else d < best_d


def mode_domain(system: ContactSystem, mode: str, task: bool = True, method: str = "auto",
                response: ModeResponse | None = None,
                extra: tuple[np.ndarray, np.ndarray] | None = None) -> ModeDomain:
    """``D_c`` and ``T_c`` of one mode (Sec. III-E) in user units.

    Without ``response``/``extra`` this is a one-mode ``AnalysisSession``
    (nondimensional decisions; use a session to analyse several modes). With a caller's own
    ``response`` (e.g. with some inequality rows left out) and/or ``extra`` rows, the domain of
    exactly that response is built (``domain_from_response``). A system without actuators gives
    its ``T_c`` in ``R^0`` (nonempty iff the mode is consistent).

    Parameters
    ----------
    system : ContactSystem
        The model at its state (any consistent units).
    mode : str
        The mode string, one letter of ``"FSLR"`` per contact (not read when ``response`` is
        given: the domain is that response's).
    task : bool, optional
        With the system's task constraints (eqs. 15–18; default) or the physical ones only.
        Not read when ``response`` is given.
    method : str, optional
        Projection method for ``T_c``, passed to ``polytopes.Polytope.project`` (default
        ``"auto"``).
    response : ModeResponse, optional
        The mode's response (eqs. 24–31) in the user's units to build the domain of; default
        ``solve_response(system, mode, task=task)`` when ``extra`` is given.
    extra : tuple[numpy.ndarray, numpy.ndarray], optional
        ``(A_x, b_x)``, shapes ``(r, n_τ + n_w)`` and ``(r,)``: rows ``A_x z <= b_x`` over
        ``z = (τ, w)`` of that response (user units), added to ``D_c``.

    Returns
    -------
    ModeDomain
        The mode's response, ``D_c``, ``T_c``, feasibility, ``w_varies`` and box.

    Raises
    ------
    ContactModelError
        For a mode that is not a mode of the system's contacts (without ``response``).
    """
    if response is None and extra is None:
        return AnalysisSession(system, method=method).mode(mode).domain(task)
    if response is None:
        response = solve_response(system, mode, task=task)
    return domain_from_response(response, method, extra)
