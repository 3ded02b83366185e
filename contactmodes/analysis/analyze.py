"""The front door: the whole pipeline of Sec. III on one system, in the user's units.

``analyze`` takes a system (or its file), runs an ``AnalysisSession``
— enumerate the modes, solve each, their domains ``D_c`` and ``T_c``, the overlapping pairs, and
on request the unambiguous sets ``T*_c`` (Sec. III-G), the inconsistent torques of a box and the
modes containing a torque — and returns one ``AnalysisResult``. The CLI, the plots and the
sweeps all go through it, so the sequence exists once; ``AnalysisResult.to_json`` is the
``contactmodes.analysis/1`` document. Per-mode quantities are computed lazily by the session (a
text report at 10 contacts does not project domains it does not show) and never twice; every
public value is in the system's units (the nondimensional ones stay in the session).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Sequence, Union

import numpy as np

from polytopes import Polytope

from contactmodes.analysis.ambiguity import UnambiguousResult, inconsistent
from contactmodes.analysis.ambiguity import unambiguous as _unambiguous  # analyze() has a parameter `unambiguous`
from contactmodes.analysis.domains import ModeDomain
from contactmodes.analysis.friction_interval import FrictionIntervalAnalysis, RobustFrictionResult
from contactmodes.analysis.outputs import OutputAnalysis, output_analysis, output_spec
from contactmodes import views
from contactmodes.errors import ContactModelError
from contactmodes.modes.enumeration import Enumeration
from contactmodes.progress import Progress
from contactmodes.modes.response import ModeResponse
from contactmodes.analysis.session import AnalysisSession, ModeSolution, NearestMode
from contactmodes.model.friction import FrictionBox
from contactmodes.model.system import ContactSystem

if TYPE_CHECKING:
    import pandas

    from contactmodes.system_file.loader import LoadedSystem

__all__ = ["AnalysisResult", "AtAnswer", "ModeAnalysis", "OverlapPairs", "SCHEMA", "analyze"]

#: What ``analyze`` accepts as the system: the model, a loaded file, or a file's path.
SystemLike = Union[ContactSystem, "LoadedSystem", str, os.PathLike]

SCHEMA = "contactmodes.analysis/1"

JSON_INDENT = 2

OVERLAP_LIMIT = 20000
"""``analyze``'s default ``overlap_limit`` (and the command line's without ``--overlaps``): past this
many candidate pairs (bounding boxes meeting) no overlap LP runs and ``overlaps`` is ``None``. A
spatial robot's modes are many (Solo-12 standing: 10^4 modes, 5·10^7 candidate pairs, hours of
LPs with no answer in sight); ``overlap_limit=None`` tests them all (issue 40, item 6: the front
door's default is the command line's)."""
"""The indentation of the document's text (``contactmodes analyze --json``, ``iter_json``)."""


class ModeAnalysis:
    """Everything computed for one contact mode, in the system's units, computed on first access.

    One entry of ``AnalysisResult.modes``; made by ``analyze``, not by hand. The properties are
    read through the session's mode object, so each stage (response, domain, projection) runs at
    most once.

    Parameters
    ----------
    solution : ModeSolution
        The session's ``contactmodes.analysis.session.ModeSolution`` of the mode
        (nondimensional; its values are converted on the way out).
    task : bool
        Whether the task constraints (eqs. 15–18) are applied.

    Attributes
    ----------
    mode : str
        The mode string, one letter of ``FSLR`` per contact (fixed, separating, sliding left,
        sliding right).
    kinematically_feasible : bool
        The mode survived the enumeration (Table III and Sec. III-F).
    feasible : bool
        ``D_c`` is non-empty: some torque is consistent with the mode.
    response : ModeResponse
        The ``contactmodes.modes.response.ModeResponse``, the SVD response of eqs. (24)–(31).
    domain : ModeDomain
        The ``contactmodes.analysis.domains.ModeDomain`` (eqs. (32)–(33)).
    D : Polytope
        The domain ``D_c`` over ``(τ, w)``, dimension ``n_τ + n_w``.
    T : Polytope or None
        The torque set ``T_c``, dimension ``n_τ`` (N·m for revolute joints), ``None`` when the
        mode is infeasible.
    box : tuple[numpy.ndarray, numpy.ndarray]
        Bounding box ``(lo, hi)`` of ``T_c``, each of shape ``(n_τ,)``, ``±inf`` where ``T_c``
        is unbounded; the empty box (``lo = inf``, ``hi = -inf``) when infeasible.
    timing : dict
        Seconds per stage of the session's mode object (``"response"``, ``"project"``, …).
    solution : ModeSolution
        The session's mode object (nondimensional).

    See Also
    --------
    AnalysisResult : The result that holds one ``ModeAnalysis`` per analysed mode.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-D (the response, eqs. (24)–(31)) and Sec. III-E (the
    domain, eqs. (32)–(33), and its projection ``T_c``, Fig. 2).

    Examples
    --------
    >>> import contactmodes as cm
    >>> fff = cm.analyze("examples/two_link_brace.toml").modes["FFF"]
    >>> fff
    ModeAnalysis(mode='FFF', feasible=True)
    >>> fff.kinematically_feasible, fff.T.dim
    (True, 1)
    >>> lo, hi = fff.box                  # N·m: the brace holds for tau1 <= -0.1926
    >>> float(lo[0]), round(float(hi[0]), 4)
    (-inf, -0.1926)
    >>> fff.contains([-0.5]), fff.contains([0.0])
    (True, False)
    >>> fff.maximize([-1.0])              # -tau1 is unbounded on T_c
    (inf, None)
    """

    def __init__(self, solution: ModeSolution, task: bool) -> None:
        self.solution = solution
        self.task = task

    mode = property(lambda self: self.solution.mode)
    kinematically_feasible = property(lambda self: self.solution.kinematically_feasible)
    timing = property(lambda self: dict(self.solution.timing))

    @property
    def feasible(self) -> bool:
        return self.solution.feasible(self.task)

    @property
    def response(self) -> ModeResponse:
        return self.solution.response(self.task)

    @property
    def domain(self) -> ModeDomain:
        return self.solution.domain(self.task)

    @property
    def D(self) -> Polytope:
        return self.domain.D

    @property
    def T(self) -> Polytope | None:
        return self.solution.T(self.task)

    @property
    def box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.solution.box(self.task)

    def contains(self, tau) -> bool:
        """Whether the torque ``tau`` lies in ``T_c``.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` the torque, the system's units.

        Returns
        -------
        bool
            Decided on the nondimensional torques (the session's tolerances).

        Raises
        ------
        ContactModelError
            When ``tau`` is not ``n_τ`` finite numbers.
        """
        return self.solution.contains(tau, self.task)

    def maximize(self, c) -> tuple[float, np.ndarray | None] | None:
        """``max c·τ`` over ``T_c``: one LP on ``D_c`` (``ModeSolution.maximize``).

        Parameters
        ----------
        c : array_like
            ``(n_τ,)`` weights per torque unit of the system.

        Returns
        -------
        tuple[float, numpy.ndarray or None] or None
            ``(value, τ*)``, ``τ*`` ``(n_τ,)`` a maximizer in the system's units; ``None`` when
            infeasible, ``(inf, None)`` when unbounded.

        Raises
        ------
        ContactModelError
            When ``c`` is not ``n_τ`` finite numbers.
        """
        return self.solution.maximize(c, self.task)

    def __repr__(self) -> str:
        return f"ModeAnalysis(mode={self.mode!r}, feasible={self.feasible})"

    def _repr_html_(self) -> str:
        """Jupyter's view: the mode's flags, ``dim T_c``, bounds and Chebyshev centre per torque
        (``contactmodes.output.notebook.mode_html``, reached through ``contactmodes.views``)."""
        return views.render("mode", "html", self)


class AtAnswer(NamedTuple):
    """The answer of ``analyze(..., at=τ)`` (``AnalysisResult.at``; ``contactmodes analyze
    --at``): an ordinary tuple whose first two items are the torque and the modes, as before.

    Attributes
    ----------
    tau : numpy.ndarray
        ``(n_τ,)`` the torque (the system's units).
    modes : list[str]
        The analysed modes whose ``T_c`` contains it, or lies within ``tol`` of it
        (``AnalysisResult.locate``).
    tol : float
        The distance within which a mode counts (the torques' units; default 0: membership).
    nearest : NearestMode or None
        When no mode counts: the feasible mode whose ``T_c`` is nearest, its Euclidean
        distance and nearest torque (``AnalysisResult.nearest``); ``None`` otherwise, or when no
        mode is feasible.
    """

    tau: np.ndarray
    modes: list[str]
    tol: float = 0.0
    nearest: NearestMode | None = None

    def to_json(self) -> dict:
        """``{"tau", "modes", "tol", "nearest"}`` (``nearest`` ``{"mode", "distance", "torque"}``
        or ``null``)."""
        return {"tau": np.asarray(self.tau).tolist(), "modes": list(self.modes), "tol": float(self.tol),
                "nearest": None if self.nearest is None else self.nearest.to_json()}


class OverlapPairs(Mapping):
    """The overlapping pairs ``(a, b)`` (``a`` before ``b`` in analysis order) as a read-only
    mapping to ``T_a ∩ T_b`` (user units, computed on first access and kept: one object per pair).

    Parameters
    ----------
    session : AnalysisSession
        The session that found the pairs (and computes their sets).
    pairs : Sequence[tuple[str, str]]
        The overlapping pairs, ``a`` before ``b`` in analysis order.
    task : bool
        Whether the sets are computed with the task constraints.
    """

    def __init__(self, session: AnalysisSession, pairs: Sequence[tuple[str, str]], task: bool) -> None:
        self.session, self.pairs, self.task = session, list(pairs), task
        self._set = set(self.pairs)
        self._sets: dict[tuple[str, str], Polytope] = {}
        self._boundary: set[tuple[str, str]] | None = None
        self.neighbours: dict[str, set[str]] = {}
        for a, b in self.pairs:
            self.neighbours.setdefault(a, set()).add(b)
            self.neighbours.setdefault(b, set()).add(a)

    def __getitem__(self, key: tuple[str, str]) -> Polytope:
        if key not in self._set:
            raise KeyError(key)
        if key not in self._sets:
            inter = self.session.overlap_set_scaled(*key, task=self.task)
            if inter is None:  # pragma: no cover - the pair was found overlapping by the same rule
                raise KeyError(key)
            self._sets[key] = self.session.to_user(inter)
        return self._sets[key]

    def boundary_only(self) -> set[tuple[str, str]]:
        """The pairs that meet only on the sets' boundaries: ``dim(T_a ∩ T_b) < min(dim T_a,
        dim T_b)`` (``AnalysisSession.boundary_only_pairs``; computed on first call, for every
        pair at once, and kept). A boundary-only pair is an ambiguity of measure zero: the two
        modes are both predicted only on a common face, such as a friction cone's edge."""
        if self._boundary is None:
            flags = self.session.boundary_only_pairs(self.pairs, self.task)
            self._boundary = {pair for pair, flag in zip(self.pairs, flags) if flag}
        return set(self._boundary)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __eq__(self, other) -> bool:
        if isinstance(other, Mapping) and not isinstance(other, OverlapPairs):
            return set(self.pairs) == set(other.keys()) and all(
                self[k].equals(other[k]) for k in self.pairs)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass
class AnalysisResult:
    """The result of ``analyze``: every analysed mode's sets and the ambiguities, in the system's units.

    Built by ``analyze`` (not by hand). Torques are in the system's units (N·m for revolute
    joints of a system file); ``n_τ`` is the number of actuators. Per-mode quantities are
    computed by the session on first access and kept.

    Attributes
    ----------
    system : ContactSystem
        The analysed ``contactmodes.model.system.ContactSystem``.
    enumeration : Enumeration
        The ``contactmodes.modes.enumeration.Enumeration`` of all the modes (Sec. III-F): counts
        after the velocity and acceleration tests and the kinematically feasible modes.
    modes : dict[str, ModeAnalysis]
        Mode string → ``ModeAnalysis``, in analysis order.
    overlaps : OverlapPairs or None
        The pairs of feasible modes whose ``T_c`` intersect (Sec. III-G.1), a read-only mapping
        ``(a, b) → T_a ∩ T_b``; ``None`` when not computed (``compute_overlaps=False``, or more
        candidate pairs than ``overlap_limit``).
    task : bool
        Whether the task constraints (eqs. 15–18) were applied.
    timing : dict[str, float]
        Seconds of the stages ``"enumerate"``, ``"modes"`` and ``"overlaps"``.
    session : AnalysisSession
        The ``contactmodes.analysis.session.AnalysisSession`` behind the result (reuse it for
        further calls on the same system).
    candidate_pairs : int or None
        Number of mode pairs whose bounding boxes meet, ``None`` if not looked at.
    unambiguous : dict[str, UnambiguousResult] or None
        Mode → ``contactmodes.analysis.ambiguity.UnambiguousResult``: the unambiguous set
        ``T*_c`` and its ambiguity sources (Sec. III-G, Fig. 4) for the modes asked for;
        ``None`` when none was (``unambiguous_for`` adds more).
    inconsistency_box : tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)``, each of shape ``(n_τ,)``: the box searched for inconsistent torques, or
        ``None``.
    inconsistent : list[Polytope] or None
        The torques of that box for which no mode has a solution, as convex pieces
        (``contactmodes.analysis.ambiguity.inconsistent``), or ``None``.
    at : AtAnswer or None
        ``(τ, modes, tol, nearest)``: a torque of shape ``(n_τ,)``, the analysed modes whose
        ``T_c`` contains it (or lies within ``tol``), and the nearest mode when none does; or
        ``None``.
    friction : FrictionIntervalAnalysis or None
        With a friction box (``mu = [lo, hi]``, issue 26): the
        ``contactmodes.analysis.friction_interval.FrictionIntervalAnalysis`` giving each mode's
        ``exists(mode)`` (``T_c^∃``) and ``forall(mode)`` (``T_c^∀``); every other attribute is
        then the analysis at the nominal μ (each interval's midpoint, ``system.mu``). ``None``
        without a box.
    robust : dict[str, RobustFrictionResult] or None
        With a friction box and ``unambiguous``: mode → the robustly unambiguous set over the box
        (``T_c^∀`` minus every other mode's ``T_{c'}^∃`` and the within-mode ``T_c^{i,∃}``).
    outputs : OutputAnalysis or None
        With ``outputs``: mode → ``contactmodes.analysis.outputs.ModeOutputs``, each analysed mode's
        set of outputs ``Y_c`` (and, with ``unambiguous``, those of the pieces of ``T*_c``);
        ``None`` when no output was asked for.

    See Also
    --------
    analyze : The function that returns it.
    ModeAnalysis : One mode's sets.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-E (``D_c`` and ``T_c``, eqs. (32)–(33)), Sec. III-F (the
    enumeration) and Sec. III-G (ambiguity: overlapping ``T_c`` and the unambiguous sets
    ``T*_c`` of eq. (34)).

    Examples
    --------
    Painlevé's rod (``examples/painleve_rod.toml``): sliding with ``mu = 2``, a moment
    ``M <= -3.656`` N·m admits both separation and sliding, any larger one no solution at all.

    >>> import contactmodes as cm
    >>> r = cm.analyze("examples/painleve_rod.toml", unambiguous=True,
    ...                inconsistency_box=([-20.0], [20.0]), at=[-5.0])
    >>> r.feasible_modes(), list(r.overlaps)
    (['S', 'L'], [('S', 'L')])
    >>> round(float(r.modes["S"].box[1][0]), 3)      # N·m
    -3.656
    >>> r.at[1], r.locate([0.0])
    (['S', 'L'], [])
    >>> r.unambiguous["S"].unambiguous           # T*_S: every torque of T_S is ambiguous
    []
    >>> [round(float(v), 3) for piece in r.inconsistent for v in piece.bounding_box()[0]]
    [-3.656]
    >>> r.to_json()["schema"]
    'contactmodes.analysis/1'
    """

    system: ContactSystem = field(repr=False)
    enumeration: Enumeration
    modes: dict[str, ModeAnalysis]
    overlaps: OverlapPairs | None = field(repr=False)
    task: bool = True
    timing: dict[str, float] = field(default_factory=dict)
    session: AnalysisSession | None = field(default=None, repr=False)
    candidate_pairs: int | None = None
    unambiguous: dict[str, UnambiguousResult] | None = field(default=None, repr=False)
    inconsistency_box: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    inconsistent: list[Polytope] | None = field(default=None, repr=False)
    at: AtAnswer | None = None
    friction: FrictionIntervalAnalysis | None = field(default=None, repr=False)
    robust: dict[str, RobustFrictionResult] | None = field(default=None, repr=False)
    outputs: OutputAnalysis | None = field(default=None, repr=False)

    def unambiguous_for(self, modes: Sequence[str]) -> dict[str, UnambiguousResult]:
        """``T*_c`` and the ambiguity sources of each of ``modes``, added to ``unambiguous``.

        The session's domains are reused; with a friction box, the robust sets over it are added to
        ``robust`` too.

        Parameters
        ----------
        modes : Sequence[str]
            Analysed feasible modes.

        Returns
        -------
        dict[str, UnambiguousResult]
            In the order of ``modes``, the system's units.

        Raises
        ------
        ContactModelError
            For a mode that is not a mode of the system.
        """
        if self.unambiguous is None:
            self.unambiguous = {}
        for m in modes:
            if m not in self.unambiguous:
                self.unambiguous[m] = _unambiguous(self.session, m, task=self.task)
        if self.friction is not None:  # the sets over the friction box too (issue 26)
            self.robust = self.robust or {}
            for m in modes:
                self.robust[m] = self.friction.unambiguous(m, task=self.task)
        return {m: self.unambiguous[m] for m in modes}

    def inconsistent_in(self, lo, hi) -> list[Polytope]:
        """The torques of the box ``[lo, hi]`` for which no kinematically feasible mode has a solution.

        ``inconsistent`` (Painlevé-type); recorded as ``inconsistent`` and ``inconsistency_box``.

        Parameters
        ----------
        lo, hi : array_like
            ``(n_τ,)`` finite bounds, the system's units, ``lo <= hi``.

        Returns
        -------
        list[Polytope]
            Convex pieces over τ, the system's units.

        Raises
        ------
        ContactModelError
            On a malformed box.
        """
        gaps = inconsistent(self.session, lo, hi)
        self.inconsistency_box = (np.asarray(lo, dtype=float).reshape(-1), np.asarray(hi, dtype=float).reshape(-1))
        self.inconsistent = gaps
        return gaps

    def overlapping(self, mode: str) -> list[str]:
        """The modes whose ``T_c`` intersects that of ``mode``, in analysis order.

        Parameters
        ----------
        mode : str
            An analysed mode.

        Returns
        -------
        list[str]
            ``[]`` when overlaps were not computed.
        """
        if self.overlaps is None:
            return []
        others = self.overlaps.neighbours.get(mode, set())
        return [m for m in self.modes if m in others]

    def __repr__(self) -> str:
        n_feasible = sum(a.feasible for a in self.modes.values())
        overlaps = "not computed" if self.overlaps is None else len(self.overlaps)
        return (f"AnalysisResult(system={self.system.name!r}, modes={len(self.modes)}, feasible={n_feasible}, "
                f"overlaps={overlaps})")

    def _repr_html_(self) -> str:
        """Jupyter's view: one row per mode (feasible, ``dim T_c``, bounds, overlaps) and, for one
        or two torques, the picture of ``contactmodes plot`` (``contactmodes.output.notebook``,
        reached through ``contactmodes.views``)."""
        return views.render("analysis", "html", self)

    def feasible_modes(self) -> list[str]:
        """Analysed modes with a non-empty domain."""
        return [m for m, a in self.modes.items() if a.feasible]

    def locate(self, tau, tol: float = 0.0) -> list[str]:
        """The analysed modes whose ``T_c`` contains the torque ``tau`` (n_τ,), user units —
        or lies within the Euclidean distance ``tol`` of it (the torques' units; default 0:
        membership within the analysis's tolerances). A torque printed to a few digits misses a
        ``T_c`` with equalities by its rounding: ``tol`` of about that rounding accepts it
        (``AnalysisSession.locate``).

        Parameters
        ----------
        tau : array_like
            The torque, shape ``(n_τ,)``, the system's units.
        tol : float, optional
            Euclidean distance (the torques' units, ``>= 0``) within which a mode counts.

        Returns
        -------
        list[str]
            The modes, in analysis order.

        Raises
        ------
        ContactModelError
            On a bad ``tau`` or a negative or non-finite ``tol``."""
        return self.session.locate(tau, self.task, selection=list(self.modes), tol=tol)

    def nearest(self, tau) -> NearestMode | None:
        """The analysed feasible mode whose ``T_c`` is nearest to the torque ``tau`` (n_τ,, user
        units): ``NearestMode(mode, distance, torque)``, the distance Euclidean in the torques'
        units (0 inside; verified, ``polytopes.Polytope.nearest_point``), ``torque`` the nearest
        point of ``T_c``; ``None`` when no analysed mode is feasible
        (``AnalysisSession.nearest``).

        Parameters
        ----------
        tau : array_like
            The torque, shape ``(n_τ,)``, the system's units.

        Returns
        -------
        NearestMode or None
            ``mode``, ``distance`` and ``torque`` of the nearest mode.

        Raises
        ------
        ContactModelError
            On a bad ``tau``."""
        return self.session.nearest(tau, self.task, selection=list(self.modes))

    def to_frame(self) -> "pandas.DataFrame":
        """One row per analysed mode (pandas, the ``sweep`` extra): ``mode``,
        ``kinematically_feasible``, ``feasible``, ``rank_case``, ``n_w``, ``w_moves_accelerations``,
        ``dim_T`` (affine dimension of ``T_c``, ``-1`` when infeasible), ``<torque>_lo`` and
        ``<torque>_hi`` (the bounding box of ``T_c``, system units, ±inf where unbounded, NaN when
        infeasible) and ``overlaps`` (the other modes whose ``T_c`` meets it, ``None`` when not
        computed).

        Raises ``MissingExtraError`` (a
        ``ContactModelError``) when pandas is not installed."""
        from contactmodes.extras import require

        require("pandas", "sweep", "to_frame")
        import pandas as pd

        rows = []
        for m, a in self.modes.items():
            resp = a.response
            row: dict[str, Any] = {"mode": m, "kinematically_feasible": a.kinematically_feasible,
                                   "feasible": a.feasible, "rank_case": resp.rank_case, "n_w": resp.n_w,
                                   "w_moves_accelerations": resp.w_moves_accelerations,
                                   "dim_T": a.T.affine_dimension() if a.feasible else -1}
            lo, hi = a.box if a.feasible else (np.full(self.system.n_tau, np.nan),) * 2
            for k, name in enumerate(self.system.torques):
                row[f"{name}_lo"], row[f"{name}_hi"] = float(lo[k]), float(hi[k])
            row["overlaps"] = self.overlapping(m) if self.overlaps is not None else None
            rows.append(row)
        return pd.DataFrame(rows)

    def to_json(self, include_overlaps: bool = True) -> dict:
        """The ``contactmodes.analysis/1`` document.

        ``"overlaps"`` per mode is ``null`` when overlaps were not computed or ``include_overlaps`` is
        false; ``"unambiguous"`` and ``"ambiguity_sources"`` per mode when ``unambiguous`` was
        computed, ``[]`` for the modes without; ``"inconsistency_box"``/``"inconsistent"`` and ``"at"``
        when computed. ``iter_json`` gives its text without building it whole.

        Parameters
        ----------
        include_overlaps : bool, optional
            List each mode's overlapping modes.

        Returns
        -------
        dict
            JSON-ready (polytopes as ``{"A", "b", "C", "d", "dim"}``, the system's units).
        """
        self.session.prime_T(self.feasible_modes(), self.task)
        return self._document([self._mode_json(m, include_overlaps) for m in self.modes])

    def iter_json(self, include_overlaps: bool = True, release: bool = False) -> Iterator[str]:
        """The text of the ``contactmodes.analysis/1`` document, piece by piece, as it is produced.

        The pieces joined are ``json.dumps(self.to_json(include_overlaps), indent=JSON_INDENT,
        allow_nan=False)`` byte for byte (no final newline), but the per-mode entries are computed and
        encoded a chunk at a time — the ``T_c`` of ``contactmodes.analysis.session.PRIME_CHUNK``
        feasible modes (``AnalysisSession.T_chunks``) — so the document never exists whole in memory.

        Parameters
        ----------
        include_overlaps : bool, optional
            As ``to_json``.
        release : bool, optional
            Also drop each mode's computed objects (responses, ``D_c``, ``T_c``, their LP caches) once
            its entry is encoded (``ModeSolution.release``; kept: whether it is feasible, its bounding
            box): for a caller done with the result, as ``contactmodes analyze --json``; memory then
            does not grow with the number of modes. A released mode computes its sets again when asked
            (the same sets).

        Yields
        ------
        str
            Consecutive pieces of the document's text.
        """
        encoder = json.JSONEncoder(indent=JSON_INDENT, allow_nan=False)  # json.dumps' encoder
        marker = f"\x00modes {uuid.uuid4().hex}"  # stands for the "modes" list in the skeleton
        slot = encoder.encode(marker)
        head, found, tail = encoder.encode(self._document(marker)).partition(slot)
        assert found and slot not in tail, "the modes' place in the document"
        yield head
        # a list item at depth 2 (the document, "modes"): each line indented by two levels more
        newline = "\n" + " " * (2 * JSON_INDENT)
        names = list(self.modes)
        done = 0
        opened = False

        def entries(end: int) -> Iterator[str]:
            nonlocal done, opened
            for m in names[done:end]:
                text = encoder.encode(self._mode_json(m, include_overlaps)).replace("\n", newline)
                yield ("," if opened else "[") + newline + text
                opened = True
            if release:
                for m in names[done:end]:
                    self.modes[m].solution.release()
            done = end

        place = {m: i for i, m in enumerate(names)}
        for chunk in self.session.T_chunks(self.feasible_modes(), self.task):
            yield "".join(entries(place[chunk[-1]] + 1))
        yield "".join(entries(len(names)))
        yield ("\n" + " " * JSON_INDENT + "]" if opened else "[]") + tail

    def _mode_json(self, m: str, include_overlaps: bool) -> dict:
        """The entry of mode ``m`` in the document's ``"modes"``."""
        a = self.modes[m]
        resp = a.response
        T = a.T
        entry: dict[str, Any] = {
            "mode": m,
            "kinematically_feasible": a.kinematically_feasible,
            "rank_case": resp.rank_case,
            "n_w": resp.n_w,
            "w_moves_accelerations": resp.w_moves_accelerations,
            "w_moves_forces": resp.w_moves_forces,
            "w_varies": a.solution.w_varies(self.task),
            "feasible": a.feasible,
            "torque_domain": T.to_json() if T is not None else None,
            "overlaps": self.overlapping(m) if (include_overlaps and self.overlaps is not None) else None,
        }
        if self.unambiguous is not None:
            u = self.unambiguous.get(m)
            entry["unambiguous"] = [] if u is None else [p.to_json() for p in u.unambiguous]
            entry["ambiguity_sources"] = [] if u is None else [src.to_json() for src in u.sources]
        if self.friction is not None:
            entry.update(_friction_json(self.friction, m, self.task, self.robust))
        if self.outputs is not None:
            entry["outputs"] = self.outputs[m].to_json()
        return entry

    def _document(self, modes: Any) -> dict:
        """The document around its ``"modes"`` value ``modes``."""
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "system": self.system.to_json(),
            "task": self.task,
            "enumeration": self.enumeration.to_json(),
            "modes": modes,
            "candidate_pairs": self.candidate_pairs,
        }
        if self.inconsistent is not None and self.inconsistency_box is not None:
            doc["inconsistency_box"] = {"lo": self.inconsistency_box[0].tolist(), "hi": self.inconsistency_box[1].tolist()}
            doc["inconsistent"] = [p.to_json() for p in self.inconsistent]
        if self.at is not None:
            doc["at"] = self.at.to_json()
        if self.friction is not None:
            doc["friction"] = self.friction.box.to_json()
        if self.outputs is not None:
            doc["outputs"] = self.outputs.spec.to_json()
        return doc


def _friction_json(fa: FrictionIntervalAnalysis, mode: str, task: bool,
                   robust: dict[str, RobustFrictionResult] | None) -> dict:
    """A mode's fields over the friction box: ``torque_domain_exists``/``_forall`` (``null`` when
    empty) and, when computed, ``unambiguous_robust``/``ambiguity_sources_robust``."""
    E, A = fa.exists(mode, task), fa.forall(mode, task)
    out: dict[str, Any] = {"torque_domain_exists": None if E is None else E.to_json(),
                           "torque_domain_forall": None if A is None else A.to_json()}
    if robust is not None:
        r = robust.get(mode)
        out["unambiguous_robust"] = [] if r is None else [p.to_json() for p in r.unambiguous]
        out["ambiguity_sources_robust"] = [] if r is None else [s.to_json() for s in r.sources]
    return out


def _as_system(system: SystemLike) -> ContactSystem:
    """The ``ContactSystem`` of ``system``: itself, a loaded file's, or the file's at a path."""
    if isinstance(system, ContactSystem):
        return system
    if isinstance(system, (str, os.PathLike)):
        from contactmodes.system_file.loader import load_system_file

        return load_system_file(system, mu_intervals=True).system
    inner = getattr(system, "system", None)
    if isinstance(inner, ContactSystem):
        return inner
    raise ContactModelError(f"system: expected a ContactSystem, a loaded system file or a path, "
                            f"got {type(system).__name__}")


def analyze(system: SystemLike, modes: Sequence[str] | None = None, task: bool = True,
            method: str = "auto", compute_overlaps: bool = True, progress: Progress | None = None,
            overlap_limit: int | None = OVERLAP_LIMIT, session: AnalysisSession | None = None, *,
            unambiguous: bool | Sequence[str] = False,
            inconsistency_box: tuple[Sequence[float], Sequence[float]] | None = None,
            at: Sequence[float] | None = None, friction: FrictionBox | None = None,
            at_tol: float = 0.0, outputs: str | Sequence[str] | None = None,
            fix: str | Mapping[str, float] | None = None) -> AnalysisResult:
    """Run Sec. III on ``system`` and return the ``AnalysisResult`` (the system's units).

    Parameters
    ----------
    system : ContactSystem or LoadedSystem or str or os.PathLike
        The model at its state: a ``ContactSystem``, a
        ``LoadedSystem`` or the path of a system file (TOML or JSON,
        ``docs/system-file.md``).
    modes : Sequence[str], optional
        ``None`` to analyse the kinematically feasible modes of the enumeration, or a list of
        mode strings to analyse exactly those (validated; the enumeration counts are still
        reported, and each mode records whether it survived it).
    task : bool, optional
        Include task constraints (eqs. 15–18).
    method : str, optional
        Projection method for ``T_c`` (``polytopes.projection.project``).
    compute_overlaps : bool, optional
        Find the pairs of feasible modes with intersecting ``T_c`` (III-G.1; box
        sweep, then one LP per candidate pair).
    progress : Progress, optional
        Optional ``Progress`` for long stages.
    overlap_limit : int or None, optional
        When there are more candidate pairs than this, do not run their LPs
        (``overlaps`` is ``None``; ``candidate_pairs`` says how many there were). Default
        ``OVERLAP_LIMIT`` (20000, the command line's); ``None``: test every candidate pair.
    session : AnalysisSession, optional
        An existing ``AnalysisSession`` *of this system* to reuse
        (its cached results are kept).
    unambiguous : bool or Sequence[str], optional
        ``True`` for the unambiguous set ``T*_c`` and the ambiguity sources of every
        feasible mode (Sec. III-G, Fig. 4), or a list of the modes to compute them for.
    inconsistency_box : tuple[array_like, array_like], optional
        ``(lo, hi)``, each ``(n_τ,)`` in the system's units: also the torques of
        that box for which no mode has a solution (Painlevé-type inconsistency).
    at : array_like, optional
        A torque ``(n_τ,)``, the system's units: also the analysed modes whose ``T_c`` contains it
        (``AnalysisResult.at``, an ``AtAnswer``), and the nearest mode and its distance when
        none does.
    friction : FrictionBox, optional
        Friction coefficients known to a box (issue 26, ``docs/friction-intervals.md``): adds
        ``AnalysisResult.friction`` (``T_c^∃``, ``T_c^∀``) and, with ``unambiguous``,
        ``AnalysisResult.robust``. Default: the box of a system file with ``mu = [lo, hi]``
        (given as a path or a ``LoadedSystem``), else none.
    at_tol : float, optional
        With ``at``: a mode counts when its ``T_c`` lies within this Euclidean distance of the
        torque (the torques' units, ``>= 0``; default 0: membership within the analysis's
        tolerances).
    outputs : str or Sequence[str], optional
        Linear outputs (``"qdd.x, qdd.theta"`` or a list of expressions of the objective language,
        ``contactmodes.analysis.outputs``): adds ``AnalysisResult.outputs``, each analysed mode's
        polytope projected onto them, and with ``unambiguous`` the outputs of ``T*_c``.
    fix : str or Mapping[str, float], optional
        With ``outputs``: torques held at given values (``{"tau1": 0.5}`` or ``"tau.tau1=0.5"``, the
        system's units); default every torque free.

    Returns
    -------
    AnalysisResult
        Everything in the system's units (``result.modes["FFF"].T`` a
        ``Polytope`` over τ).

    Raises
    ------
    SystemFileError
        When ``system`` is a path to a file that cannot be read or is not a valid system file.
    ApproachingContactError
        When a contact approaches (no solution without an impact law).
    ContactModelError
        When ``modes`` contains something that is not a mode of this system, the system has no
        actuators (``n_τ = 0``), ``session`` belongs to another system, or ``at``, ``at_tol``
        or the inconsistency box is malformed, or an output or a fixed torque is (naming
        ``outputs`` or ``fix``).

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III (eqs. 24–33; III-F the enumeration, III-G ambiguity).

    Examples
    --------
    >>> import contactmodes as cm
    >>> result = cm.analyze("examples/two_link_brace.toml", at=[-0.5])
    >>> result.feasible_modes()[:3]
    ['FFF', 'SSS', 'SSR']
    >>> lo, hi = result.modes["FFF"].box          # N·m: the brace holds for tau1 <= -0.1926
    >>> round(float(hi[0]), 4)
    -0.1926
    >>> result.modes["FFF"].contains([-0.5]), result.at[1]
    (True, ['FFF'])
    """
    if isinstance(system, (str, os.PathLike)):
        from contactmodes.system_file.loader import load_system_file

        system = load_system_file(system, mu_intervals=True)
    if friction is None:
        friction = getattr(system, "friction", None)  # a LoadedSystem's box, if any
    system = _as_system(system)
    if fix is not None and outputs is None:
        raise ContactModelError("fix: needs outputs (the fixed torques apply to the output sets)")
    spec = None if outputs is None else output_spec(system, outputs, fix)
    if session is None:
        session = AnalysisSession(system, method=method, progress=progress)
    elif session.system is not system:
        raise ContactModelError(f"session: it analyses system {session.system.name!r}, not the "
                                f"{system.name!r} given (pass the session's own system)")
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    enumeration = session.enumeration
    timing["enumerate"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    sols = session.modes(modes)
    names = [s.mode for s in sols]
    feasible = session.feasible_modes(task, names)
    timing["modes"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    overlaps, n_cand = None, None
    if compute_overlaps:
        # a list of millions of pairs is never built to be thrown away: dropped past the limit
        n_cand, cands = session.candidate_pairs_within(feasible, task, overlap_limit)
        if cands is not None:
            overlaps = OverlapPairs(session, session.overlapping_pairs(feasible, task, cands), task)
    timing["overlaps"] = time.perf_counter() - t0
    result = AnalysisResult(system, enumeration, {s.mode: ModeAnalysis(s, task) for s in sols}, overlaps,
                            task, timing, session, n_cand)
    if friction is not None:
        result.friction = FrictionIntervalAnalysis(system, friction, method=method)
    if unambiguous is not False:
        result.unambiguous_for(feasible if unambiguous is True else list(unambiguous))
    if inconsistency_box is not None:
        result.inconsistent_in(*inconsistency_box)
    if at is not None:
        tau = np.asarray(at, dtype=float).reshape(-1)
        found = result.locate(tau, tol=at_tol)
        result.at = AtAnswer(tau, found, float(at_tol), None if found or not len(tau) else result.nearest(tau))
    elif at_tol:
        raise ContactModelError("at_tol: needs at (the torque)")
    if spec is not None:
        result.outputs = output_analysis(session, names, spec, task, result.unambiguous)
    return result
