r"""Torque sets that hold for some or for every friction coefficient of a box (issue 26).

Each contact's μ is known only to an interval, ``μ ∈ M = [lo_1, hi_1] × … × [lo_k, hi_k]``
(``contactmodes.model.friction.FrictionBox``). For a mode ``c`` with domain ``D_c(μ)`` and torque
set ``T_c(μ)`` (flipping paper, Sec. III-D/E: eqs. 24–33) this module computes, exactly,

* ``T_c^∃ = ∪_{μ ∈ M} T_c(μ)`` — the torques for which the mode has a solution for *some* μ;
* ``T_c^∀ = ∩_{μ ∈ M} T_c(μ)`` — the torques for which it has one for *every* μ;

and the robustly unambiguous set ``T*_c`` (bracing.md, "Goal", with μ uncertain):

    T*_c = T_c^∀ − ∪_{c' ≠ c} T_{c'}^∃ − ∪_i T_c^{i,∃}

(``T_{c'}^∃`` without task constraints, over the kinematically feasible modes; ``T_c^{i,∃}`` the
torques admitting, for some μ, a mode-``c`` solution violating task row ``i``;
``contactmodes.analysis.ambiguity`` for the exact-μ version and its margins). A torque of
``T*_c`` produces mode ``c`` with its task constraints for every μ of the box and no other
behaviour for any μ of the box.

Where μ enters
--------------
Write ``x = [q̈; f]``. For fixed τ the mode has a solution iff the polyhedron
``X(τ, μ) = {x : A(μ) x = B τ + b, N(μ) [x; τ] >= e}`` (eqs. 24 and 32) is non-empty. μ enters
only through the contact rows of Tables I–II (eqs. 8 and 10, ``contact_rows``):

* a sticking contact ``F``: the cone ``μ f_n − f_t >= 0``, ``μ f_n + f_t >= 0`` (with ``f_n >= 0``);
* a sliding contact ``L`` / ``R``: the equality ``σ f_t = μ f_n`` with ``σ = +1`` for ``L``
  (``f_t = +μ f_n``) and ``σ = −1`` for ``R``, and ``f_n >= 0``;
* a separating contact ``S``: nowhere.

Each ``μ_i`` appears in rows of contact ``i`` only; no other row (accelerations, dynamics (5),
constraint blocks (11)–(18)) depends on μ.

Any contact model (issue 40)
----------------------------
The construction below is written for the planar letters but reads only the system's contact
model: every force row a letter adds is linear in the forces and in ``g = μ f_n`` (checked, by
evaluating the mode's equations at ``μ_i = 0`` and ``1`` and comparing with ``μ_i = hi``:
``_mu_split``). A letter whose μ enters force **inequalities only**, each widening with μ (the
planar cone ``F``; the spatial polygon cone ``F``: ``ρ μ f_n − n_j · f_t >= 0``), plays the
sticking contact's part below: ``hi`` for ∃, ``lo`` for ∀. A letter whose μ enters a force
**equality** plays the sliding contact's part (``interval_contacts``): the planar ``L``/``R``; the
spatial side letters (``n_j · f_t = ρ μ f_n``), vertex letters (two such equalities) and ``D``
(``f_t = −μ f_n v̂``). For ∃ one of its equalities gives ``g`` as a row over the forces and ``g``
is substituted into the contact's other μ-rows and into ``lo f_n <= g <= hi f_n`` (the planar
rows below are the case of one equality); for ∀ the interval argument of step 2 holds verbatim,
the rows being linear in ``(x, g)`` with ``f_n >= 0``. On planar systems the rows are bit for bit
those of the planar construction.

The ∃ set (exact, one polyhedron)
---------------------------------
Because ``μ_i`` appears only in contact ``i``'s rows, ``∃μ ∈ M ∃x`` is ``∃x`` with, per contact,
``∃μ_i ∈ [lo_i, hi_i]``:

* sticking: ``|f_t| <= μ_i f_n`` for some ``μ_i`` iff ``|f_t| <= hi_i f_n`` (``f_n >= 0``): the
  cone at ``hi_i``;
* sliding: ``σ f_t = μ_i f_n`` for some ``μ_i ∈ [lo_i, hi_i]`` with ``f_n >= 0`` iff
  ``lo_i f_n <= σ f_t <= hi_i f_n`` (if ``f_n > 0`` take ``μ_i = σ f_t / f_n``; if ``f_n = 0`` both
  sides force ``f_t = 0`` and any μ works). The equality row (8) is replaced by the two
  inequality rows ``σ f_t − lo_i f_n >= 0`` and ``hi_i f_n − σ f_t >= 0`` (added to (32)); no
  variable is added. A contact of zero width keeps its equality.

The result is one ``ModeEquations`` whose response (24)–(31) (more null-space variables ``w``: the
friction magnitude of each relaxed contact is now free between its bounds) and domain (33) are
computed by the ordinary machinery; its projection onto τ is ``T_c^∃``. The within-mode sets
``T_c^{i,∃}`` are the same relaxed domain (without task rows) with the negated row ``i`` added.

The ∀ set (exact, an intersection of ``2^s`` sets)
--------------------------------------------------
Let ``s`` be the number of sliding contacts of ``c`` with ``lo_i < hi_i``.

1. *Sticking contacts at* ``lo``. For fixed τ and fixed sliding μ, ``X(τ, μ)`` grows with each
   sticking ``μ_j`` (the cone widens, ``f_n >= 0``), so "for every sticking μ" is "at
   ``μ_j = lo_j``". Separating contacts do not depend on μ.
2. *One sliding contact, the others fixed: an interval.* Fix τ and every μ but the sliding
   ``μ_i``. Let ``X'`` be the polyhedron of the remaining rows (contact ``i``'s equality removed,
   ``f_n >= 0`` kept). The set of ``μ_i`` with a solution is
   ``I = {σ f_t / f_n : x ∈ X', f_n > 0} ∪ (R if some x ∈ X' has f_n = f_t = 0)``. The first part
   is the image of a convex set under a linear-fractional map — convex (between two of its
   points the ratio along the segment joining their preimages is continuous and takes every
   value in between) — so ``I`` is an interval, whatever the rank of ``A(μ)`` (the Painlevé
   case, where ``A(μ)`` is singular at some μ inside the box, included).
3. *The box from its vertices.* Let ``F_d`` be the points of the sliding box with at most ``d``
   coordinates strictly inside their intervals. If every vertex (``F_0``) admits a solution, so
   does every point of ``F_d`` given ``F_{d−1}``: move one interior coordinate to its two ends
   (points of ``F_{d−1}``) and use 2. By induction the whole box does.

Hence, **with no further condition**,

    T_c^∀ = ∩_{v ∈ {lo, hi}^s} T_c(μ_v),   μ_v: the sliding contacts at v, the others at lo,

each ``T_c(μ_v)`` the ordinary torque set at a point (eqs. 24–33), their intersection a polytope.
(The determinant condition one might expect — ``det A(μ)`` of one sign over the box, making the
response a ratio of multi-affine functions of μ — is sufficient too but not needed: step 2 uses
no response formula.) The only refusal is the size of the intersection: more than
``MAX_SLIDING_INTERVALS`` sliding contacts of positive width raise ``ContactModelError``
(``2^s`` vertices would be computed); a grid of μ is never used.

Contacts that share one physical μ
----------------------------------
The box treats the intervals as independent. If several contacts share one coefficient, the
true sets are taken over the diagonal of the box only: the true ``T^∃`` is a subset of ours and
the true ``T^∀`` a superset, so ``T*_c`` computed here is a subset of the true one — conservative,
never wrong.

Units: every set is computed on the nondimensional system (``contactmodes.model.scaling``; μ is
dimensionless and does not enter the scaling) and mapped back to the user's torque units.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from polytopes import Polytope, difference, union_contains

from contactmodes.analysis.ambiguity import AmbiguitySource, mark_boundary_only, negated_rows, task_rows
from contactmodes.analysis.domains import domain_from_response, intersect_domains
from contactmodes.errors import ContactModelError
from contactmodes.model.friction import FrictionBox
from contactmodes.model.scaling import Scaling, UserSets
from contactmodes.model.system import ContactSystem
from contactmodes.modes.constraints import ModeEquations, mode_equations
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.modes.enumeration import Enumeration, enumerate_modes
from contactmodes.modes.response import ModeResponse, response_from_equations

__all__ = ["FrictionIntervalAnalysis", "MAX_SLIDING_INTERVALS", "RobustFrictionResult", "exists_equations",
           "forall_vertices", "interval_contacts"]

MAX_SLIDING_INTERVALS = 10
"""Most sliding contacts of positive width a mode may have for ``T_c^∀`` (``2^s`` vertex sets
are intersected: 1024 at the cap). A cost limit, not a tolerance."""


def _mu_rows(model, letter: str, args: tuple) -> tuple[bool, bool]:
    """How μ enters one contact's rows in ``letter`` (the contact model's ``rows`` at μ = 0 and 1).

    Every row is linear in ``(f, μ f_n)`` (both contact models; checked where the rows are used,
    ``_mu_split``). Returns ``(in_equality, widening)``: μ enters a force equality (planar ``L``,
    ``R``; spatial sides, vertices, ``D``), or it enters force inequalities only, each with a
    coefficient of ``f_n`` that grows with μ (planar ``F``, the spatial polygon cone ``F``: the
    set widens with μ because ``f_n >= 0``). A letter where μ enters nowhere (``S``) gives
    ``(False, True)``.
    """
    r0, r1 = model.rows(letter, 0.0, *args), model.rows(letter, 1.0, *args)
    in_eq = any(a != b for x, y in zip(r0.force_eq, r1.force_eq) for a, b in zip(x, y))
    widening = all(b >= a for x, y in zip(r0.force_geq, r1.force_geq) for a, b in zip(x, y))
    return in_eq, widening


def interval_contacts(system: ContactSystem, box: FrictionBox, mode: str) -> list[int]:
    """The contacts of ``mode`` whose μ interval must be taken at both ends for ``T_c^∀``.

    A contact of positive width whose letter puts μ in a force equality (module doc: the planar
    sliding letters; the spatial side, vertex and sliding letters, whose force is ``μ f_n`` times
    a fixed point or segment of the polygon). Every other contact is taken at ``lo``: μ enters its
    rows nowhere or only in inequalities that widen with μ.

    Parameters
    ----------
    system : ContactSystem
        The model (its contact model and velocity pattern give the rows).
    box : FrictionBox
        One interval per contact.
    mode : str
        A mode of ``system``.

    Returns
    -------
    list[int]
        Contact indices, increasing.

    Raises
    ------
    ContactModelError
        For a letter whose μ enters inequalities only but not all widening (no such letter in
        the shipped contact models): ``T_c^∀`` would not be the intersection at the vertices.
    """
    from contactmodes.modes.contact_conditions import classify_velocities

    pattern = classify_velocities(system, check_approaching=False)
    out = []
    for i, letter in enumerate(mode):
        if not box.lo[i] < box.hi[i]:
            continue
        in_eq, widening = _mu_rows(system.contact_model, letter, pattern.args(i))
        if in_eq:
            out.append(i)
        elif not widening:
            raise ContactModelError(f"mode {mode}: letter {letter!r} of contact {system.contacts[i]}: mu enters "
                                    "inequalities that narrow with mu and no equality; friction intervals do not "
                                    "support this letter")
    return out


def _mu_split(eqs0: ModeEquations, eqs1: ModeEquations, eqs_hi: ModeEquations, mu_hi: float, col: int, what: str):
    """Contact ``i``'s μ-rows: ``eqs0``/``eqs1`` are the mode's equations with μ_i = 0 / 1 (every
    other μ as in ``eqs_hi``, where μ_i = ``mu_hi``). Returns ``(eq_rows, geq_rows)``, each a list
    of ``(row index, r0, β)``: the row is ``r0 · x + β μ f_n`` (``col`` is ``f_n``'s column).

    The claim that the rows are linear in ``μ f_n`` is checked: ``eqs0``, ``eqs1`` differ only
    in column ``col`` of rows with no torque and no constant term, and ``eqs_hi``'s rows equal
    ``r0 + mu_hi β`` to ``CANCEL_RTOL``; otherwise ``InternalError``.
    """
    from contactmodes.errors import InternalError
    from contactmodes.tolerances import CANCEL_RTOL

    if eqs0.A.shape != eqs1.A.shape or eqs0.N.shape != eqs1.N.shape or eqs0.A.shape != eqs_hi.A.shape:
        raise InternalError(f"{what}: the rows' count depends on mu")
    out = []
    for M0, M1, Mh, extra in ((eqs0.A, eqs1.A, eqs_hi.A, lambda r: np.any(eqs0.B[r]) or eqs0.b[r] != 0.0),
                              (eqs0.N, eqs1.N, eqs_hi.N, lambda r: eqs0.e[r] != 0.0)):
        rows = []
        diff = M1 - M0
        for r in np.flatnonzero(np.any(diff != 0.0, axis=1)):
            others = np.delete(diff[r], col)
            beta = float(diff[r, col])
            expect = M0[r, col] + mu_hi * beta
            if np.any(others) or extra(r) or abs(Mh[r, col] - expect) > CANCEL_RTOL * max(1.0, abs(expect)) \
                    or np.any(np.delete(Mh[r] - M0[r], col)):
                raise InternalError(f"{what}: a contact row is not linear in mu f_n")
            rows.append((int(r), M0[r, :eqs0.n_q + eqs0.n_f].copy(), beta))
        out.append(rows)
    return out[0], out[1]


def exists_equations(system: ContactSystem, box: FrictionBox, mode: str, task: bool = True) -> ModeEquations:
    """The equations whose domain projects to ``T_c^∃`` (module doc, "The ∃ set").

    Every contact at ``μ = hi`` (eqs. 24, 32). For each contact of ``interval_contacts`` the
    variable ``g = μ f_n`` is eliminated: one of its equalities ``r0 · x + β g = 0`` (the largest
    ``|β|``) gives ``g = −r0 · x / β``, which is substituted into the contact's other μ-rows and
    into ``lo f_n <= g <= hi f_n``, appended to the inequalities (labels ``"friction <name> >= lo"``
    / ``"<= hi"``, never task rows). Planar sliding: ``σ f_t = μ f_n`` becomes ``σ f_t − lo f_n >= 0``
    and ``hi f_n − σ f_t >= 0`` (eq. 8). Spatial: a vertex letter (force at the corner ``μ f_n
    v_j``) keeps ``f_t`` along ``v_j`` with its length between ``lo f_n |v_j|`` and ``hi f_n |v_j|``;
    a side letter keeps ``f_t`` in the trapezoid between the side at ``lo`` and at ``hi``; ``D``
    keeps ``f_t`` along ``−v̂`` with ``lo f_n <= |f_t| <= hi f_n``.

    Parameters
    ----------
    system : ContactSystem
        The model (any units; the rows are built in its units).
    box : FrictionBox
        One interval per contact.
    mode : str
        A mode of ``system``.
    task : bool, optional
        Include the task constraints (eqs. 15–18).

    Returns
    -------
    ModeEquations
        ``A`` ``(m − r, n)`` with ``r`` relaxed contacts; ``N`` ``(p + 2r, n + n_τ)``.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of ``system`` or the box does not fit it.
    InternalError
        When a contact model's rows are not linear in ``μ f_n`` (checked, ``_mu_split``).
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    box.check_system(system)
    eqs = mode_equations(box.at(system, box.hi), mode, task=task)
    relax = interval_contacts(system, box, mode)
    if not relax:
        return eqs
    A, N = eqs.A.copy(), eqs.N.copy()
    n, n_tau, nc = eqs.n_q + eqs.n_f, eqs.n_tau, system.n_components
    normal = list(system.contact_model.components).index("n")
    drop, rows, labels = [], [], []
    for i in relax:
        name = system.contacts[i]
        col = eqs.n_q + nc * i + normal
        mu = np.array(box.hi, dtype=float)
        e0 = mode_equations(box.at(system, np.where(np.arange(box.k) == i, 0.0, mu)), mode, task=task)
        e1 = mode_equations(box.at(system, np.where(np.arange(box.k) == i, 1.0, mu)), mode, task=task)
        eq_rows, geq_rows = _mu_split(e0, e1, eqs, float(box.hi[i]), col, f"mode {mode}, contact {name}")
        if not eq_rows:  # interval_contacts read a mu-equality in the model's rows: it must be here
            from contactmodes.errors import InternalError

            raise InternalError(f"mode {mode}, contact {name}: no force equality holds mu")
        p, r0p, beta_p = max(eq_rows, key=lambda row: abs(row[2]))
        g = -r0p / beta_p                                   # g = μ f_n as a row over x
        drop.append(p)
        for r, r0, beta in eq_rows:
            if r != p:
                A[r] = r0 + beta * g
        for r, r0, beta in geq_rows:
            N[r, :n] = r0 + beta * g
        low, high = np.zeros(n + n_tau), np.zeros(n + n_tau)
        low[:n], high[:n] = g, -g
        low[col] -= float(box.lo[i])                        # g − lo f_n >= 0
        high[col] += float(box.hi[i])                       # hi f_n − g >= 0
        rows += [low, high]
        labels += [f"friction {name} >= lo ({box.lo[i]:g})", f"friction {name} <= hi ({box.hi[i]:g})"]
    keep = np.ones(A.shape[0], dtype=bool)
    keep[drop] = False
    return ModeEquations(
        mode=mode, A=A[keep], B=eqs.B[keep], b=eqs.b[keep],
        eq_labels=[lab for lab, k in zip(eqs.eq_labels, keep) if k],
        N=np.vstack([N, np.array(rows)]), e=np.concatenate([eqs.e, np.zeros(len(rows))]),
        ineq_labels=eqs.ineq_labels + labels, n_q=eqs.n_q, n_f=eqs.n_f, n_tau=n_tau,
        ineq_task=np.concatenate([eqs.ineq_task, np.zeros(len(rows), dtype=bool)]))


def forall_vertices(box: FrictionBox, mode: str, system: ContactSystem | None = None) -> np.ndarray:
    """The friction coefficients whose torque sets intersect to ``T_c^∀`` (module doc).

    Each contact of ``interval_contacts`` at ``lo`` or ``hi``, every other contact at ``lo``.

    Parameters
    ----------
    box : FrictionBox
        One interval per contact (dimensionless).
    mode : str
        The mode (one letter per contact).
    system : ContactSystem, optional
        The model whose contact model classifies the letters (``interval_contacts``); without
        it, the planar point contact's letters (``L``, ``R`` at both ends).

    Returns
    -------
    numpy.ndarray
        ``(2^s, k)``, ``s`` the contacts at both ends.

    Raises
    ------
    ContactModelError
        When ``s`` exceeds ``MAX_SLIDING_INTERVALS``.
    """
    if system is None:
        sliding = [i for i, c in enumerate(mode) if c in "LR" and box.lo[i] < box.hi[i]]
    else:
        sliding = interval_contacts(system, box, mode)
    if len(sliding) > MAX_SLIDING_INTERVALS:
        raise ContactModelError(
            f"mode {mode}: {len(sliding)} sliding contacts with a friction interval; the for-every-mu set "
            f"intersects 2^{len(sliding)} vertex sets, more than the limit 2^{MAX_SLIDING_INTERVALS} "
            f"(give exact mu to some of them)")
    out = []
    for ends in itertools.product((0, 1), repeat=len(sliding)):
        mu = box.lo.copy()
        for i, end in zip(sliding, ends):
            mu[i] = box.hi[i] if end else box.lo[i]
        out.append(mu)
    return np.array(out).reshape(-1, box.k)


@dataclass
class RobustFrictionResult:
    """``T*_c`` over a friction box (module doc) for one desired mode ``c``, user units.

    Attributes
    ----------
    mode : str
        The desired mode.
    exists : Polytope or None
        ``T_c^∃`` with the task constraints, over τ (``n_τ``); ``None`` when empty.
    forall : Polytope or None
        ``T_c^∀`` with the task constraints; ``None`` when empty.
    unambiguous : list[Polytope]
        ``T*_c`` as convex pieces (closures; ``[]`` when none).
    sources : list[AmbiguitySource]
        Non-empty ``T_c^∀ ∩ T_{c'}^∃`` (kind ``"mode"``) and ``T_c^∀ ∩ T_c^{i,∃}`` (kind
        ``"task"``), ``boundary_only`` as in ``contactmodes.analysis.ambiguity``.
    vertices : numpy.ndarray
        ``(2^s, k)`` the friction coefficients of ``T_c^∀``'s vertex sets.
    kinematically_feasible : bool
        The mode survives the enumeration (which does not depend on μ); when not, nothing is
        guaranteed and ``unambiguous`` is ``[]``.
    timing : dict[str, float]
        Seconds: ``"forall"``, ``"across"``, ``"within"``, ``"difference"``.
    scaled_pieces : list[Polytope]
        ``T*_c`` over the nondimensional torques (membership is decided there).
    scaling : Scaling or None
        The system's ``Scaling``.
    """

    mode: str
    exists: Polytope | None = field(repr=False)
    forall: Polytope | None = field(repr=False)
    unambiguous: list[Polytope] = field(repr=False)
    sources: list[AmbiguitySource]
    vertices: np.ndarray = field(repr=False)
    kinematically_feasible: bool = True
    timing: dict[str, float] = field(default_factory=dict)
    scaled_pieces: list[Polytope] = field(default_factory=list, repr=False)
    scaling: Scaling | None = field(default=None, repr=False)

    def contains(self, tau, tol: float | None = None) -> bool:
        """Whether ``tau`` lies in ``T*_c``.

        Decided on the nondimensional torques; closure convention of ``polytopes.regions``.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` torques, the system's units.
        tol : float, optional
            Relative tolerance as ``polytopes.Polytope.contains``.

        Returns
        -------
        bool
            ``False`` when ``T*_c`` is empty.
        """
        tau = np.asarray(tau, dtype=float)
        if self.scaling is None:
            return union_contains(self.unambiguous, tau, tol)
        return union_contains(self.scaled_pieces, self.scaling.tau_from_user(tau), tol)

    def to_json(self) -> dict:
        """``{"mode", "torque_domain_exists", "torque_domain_forall", "unambiguous",
        "ambiguity_sources"}`` (polytopes as in the conventions; ``null`` for an empty set)."""
        return {
            "mode": self.mode,
            "torque_domain_exists": None if self.exists is None else self.exists.to_json(),
            "torque_domain_forall": None if self.forall is None else self.forall.to_json(),
            "unambiguous": [p.to_json() for p in self.unambiguous],
            "ambiguity_sources": [s.to_json() for s in self.sources],
        }


class FrictionIntervalAnalysis:
    """The ∃/∀ torque sets and ``T*_c`` of a system over a friction box (module doc).

    Every set is computed once, on the nondimensional system, and kept.

    Parameters
    ----------
    system : ContactSystem
        The model at its state (its own ``mu`` is not used; the box's are).
    box : FrictionBox
        One interval per contact.
    method : str, optional
        Projection method (``polytopes.projection.project``).

    Raises
    ------
    ContactModelError
        When the box does not have one interval per contact.

    Examples
    --------
    Painlevé's rod with μ ∈ [0.5, 1.0] (below 4/3: no paradox anywhere in the box):

    >>> import contactmodes as cm
    >>> from contactmodes.model.friction import FrictionBox
    >>> rod = cm.load_system("examples/painleve_rod.toml")
    >>> fa = FrictionIntervalAnalysis(rod, FrictionBox([0.5], [1.0]))
    >>> [round(float(v), 3) for v in fa.forall("L").bounding_box()[0]]     # N·m: M >= M*
    [-3.656]
    >>> fa.unambiguous("S").contains([-5.0]), fa.unambiguous("L").contains([0.0])
    (True, True)
    """

    def __init__(self, system: ContactSystem, box: FrictionBox, method: str = "auto") -> None:
        box.check_system(system)
        self.system, self.box, self.method = system, box, method
        self.scaling = system.scaling
        self.scaled = self.scaling.system
        self._user = UserSets(self.scaling)
        self._cache: dict[tuple, object] = {}
        self._enumeration: Enumeration | None = None

    def _memo(self, key: tuple, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def modes(self) -> list[str]:
        """The kinematically feasible modes (Sec. III-F; independent of μ: the enumeration reads
        acceleration rows only)."""
        if self._enumeration is None:
            self._enumeration = enumerate_modes(self.scaled)
        return list(self._enumeration.modes)

    # ------------------------------------------------------------------ nondimensional sets
    def exists_response_scaled(self, mode: str, task: bool = True) -> ModeResponse:
        """The response (24)–(31) of ``exists_equations`` on the nondimensional system.

        Parameters
        ----------
        mode : str
            A mode of the system.
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        ModeResponse
            Nondimensional (kept for later calls).

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system.
        """
        return self._memo(("resp∃", mode, task), lambda: response_from_equations(
            exists_equations(self.scaled, self.box, mode, task)))

    def _T_of(self, resp: ModeResponse, extra=None) -> Polytope | None:
        T = domain_from_response(resp, method=self.method, extra=extra).T
        return None if T is None or T.is_empty() else T

    def exists_scaled(self, mode: str, task: bool = True) -> Polytope | None:
        """``T_c^∃`` over the nondimensional τ, or ``None`` when empty.

        Parameters
        ----------
        mode : str
            A mode of the system.
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        Polytope or None
            Over the ``n_τ`` nondimensional torques.

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system.
        """
        return self._memo(("T∃", mode, task), lambda: self._T_of(self.exists_response_scaled(mode, task)))

    def at_scaled(self, mode: str, mu, task: bool = True) -> Polytope | None:
        """``T_c(μ)`` (eqs. 24–33) at one friction vector ``mu`` (k,), nondimensional τ; ``None`` when empty.

        Parameters
        ----------
        mode : str
            A mode of the system.
        mu : array_like
            ``(k,)`` friction coefficients (dimensionless; not checked against the box).
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        Polytope or None
            Over the ``n_τ`` nondimensional torques.
        """
        mu = np.asarray(mu, dtype=float)
        key = ("T@", mode, task, tuple(mu.tolist()))
        return self._memo(key, lambda: self._T_of(response_from_equations(
            mode_equations(self.box.at(self.scaled, mu), mode, task=task))))

    def forall_scaled(self, mode: str, task: bool = True) -> Polytope | None:
        """``T_c^∀`` over the nondimensional τ (the intersection of the ``forall_vertices``
        sets), or ``None`` when empty.

        Parameters
        ----------
        mode : str
            A mode of the system.
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        Polytope or None
            Over the ``n_τ`` nondimensional torques, reduced.

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system or has more than ``MAX_SLIDING_INTERVALS`` sliding
            contacts of positive width.
        """
        def build():
            out = None
            for mu in forall_vertices(self.box, mode, self.scaled):
                T = self.at_scaled(mode, mu, task)
                if T is None:
                    return None
                out = T if out is None else intersect_domains(out, T)
                if out is None or out.is_empty():
                    return None
            return out.reduce() if out is not None else None
        validate_mode(mode, self.system.contacts, letters=self.system.contact_model.letters)
        return self._memo(("T∀", mode, task), build)

    def within_sets_scaled(self, mode: str) -> list[tuple[str, list[Polytope]]]:
        """``T_c^{i,∃}`` per task row ``i`` (nondimensional τ): the torques admitting, for some μ of
        the box, a mode-``c`` solution (physical constraints) that violates row ``i`` — the relaxed
        domain of ``exists_equations`` without tasks plus the negated row (margin of
        ``contactmodes.analysis.ambiguity.negated_rows``; an equality row gives up to two pieces).
        ``[(label, pieces), …]``, rows without a non-empty piece left out.

        Parameters
        ----------
        mode : str
            A mode of the system.

        Returns
        -------
        list[tuple[str, list[Polytope]]]
            ``(label, pieces)`` per task row with a non-empty piece, labels ``"task:<i>"``.

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system.
        """
        def build():
            plain = self.exists_response_scaled(mode, False)
            out = []
            for row in task_rows(self.scaled):
                pieces = [T for alpha, beta in negated_rows(plain, row)
                          if (T := self._T_of(plain, (alpha[None, :], np.array([beta])))) is not None]
                if pieces:
                    out.append((row.label, pieces))
            return out
        return self._memo(("T i∃", mode), build)

    # ------------------------------------------------------------------ user units
    def _to_user(self, P: Polytope | None) -> Polytope | None:
        return None if P is None else self._user(P)

    def exists(self, mode: str, task: bool = True) -> Polytope | None:
        """``T_c^∃`` over τ in the system's units (N·m for revolute joints), ``None`` when empty.

        Parameters
        ----------
        mode : str
            A mode of the system.
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        Polytope or None
            Over the ``n_τ`` torques.

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system.
        """
        validate_mode(mode, self.system.contacts, letters=self.system.contact_model.letters)
        return self._to_user(self.exists_scaled(mode, task))

    def forall(self, mode: str, task: bool = True) -> Polytope | None:
        """``T_c^∀`` over τ in the system's units, ``None`` when empty.

        Parameters
        ----------
        mode : str
            A mode of the system.
        task : bool, optional
            Include the task constraints.

        Returns
        -------
        Polytope or None
            Over the ``n_τ`` torques.

        Raises
        ------
        ContactModelError
            When ``mode`` is not a mode of the system or has more than ``MAX_SLIDING_INTERVALS`` sliding
            contacts of positive width.
        """
        return self._to_user(self.forall_scaled(mode, task))

    def unambiguous(self, mode: str, task: bool = True, within_mode: bool = True) -> RobustFrictionResult:
        """``T*_c = T_c^∀ − ∪_{c'} T_{c'}^∃ − ∪_i T_c^{i,∃}`` for the desired ``mode`` (module doc).

        Parameters
        ----------
        mode : str
            The desired mode.
        task : bool, optional
            Include the task constraints in the desired behaviour (and the within-mode sets).
        within_mode : bool, optional
            Compute the within-mode sets ``T_c^{i,∃}`` (negation margin of
            ``contactmodes.analysis.ambiguity.negated_rows``).

        Returns
        -------
        RobustFrictionResult
            User units.

        Raises
        ------
        ContactModelError
            As ``forall``.
        """
        key = ("T*", mode, task, within_mode)
        return self._memo(key, lambda: self._unambiguous(mode, task, within_mode))

    def _unambiguous(self, mode: str, task: bool, within_mode: bool) -> RobustFrictionResult:
        timing: dict[str, float] = {}
        t0 = time.perf_counter()
        T_all = self.forall_scaled(mode, task)
        vertices = forall_vertices(self.box, mode, self.scaled)
        kinematic = mode in self.modes
        timing["forall"] = time.perf_counter() - t0
        exists = self.exists(mode, task)
        if T_all is None or not kinematic:
            return RobustFrictionResult(mode, exists, self._to_user(T_all), [], [], vertices, kinematic, timing,
                                        scaling=self.scaling)
        t0 = time.perf_counter()
        sources: list[AmbiguitySource] = []
        for other in self.modes:
            if other == mode:
                continue
            T_other = self.exists_scaled(other, False)
            inter = None if T_other is None else intersect_domains(T_all, T_other)
            if inter is not None and not inter.is_empty():
                sources.append(AmbiguitySource(other, "mode", [inter]))
        timing["across"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if task and within_mode:
            for label, sets in self.within_sets_scaled(mode):
                pieces = [inter for Ti in sets
                          if (inter := intersect_domains(T_all, Ti)) is not None and not inter.is_empty()]
                if pieces:
                    sources.append(AmbiguitySource(label, "task", pieces))
        timing["within"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        sources = mark_boundary_only(sources, T_all.affine_dimension())
        pieces = difference(T_all, [p for s in sources if not s.boundary_only for p in s.set])
        timing["difference"] = time.perf_counter() - t0
        user_sources = [AmbiguitySource(s.source, s.kind, [self._user(p) for p in s.set], s.boundary_only)
                        for s in sources]
        return RobustFrictionResult(mode, exists, self._user(T_all), [self._user(p) for p in pieces], user_sources,
                                    vertices, True, timing, pieces, self.scaling)
