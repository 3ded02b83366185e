"""Enumeration of the kinematically feasible contact modes (flipping paper, Sec. III-F).

Two eliminations, both unchanged in meaning from the paper:

* **Local, by velocity** (Table III): ``classify_velocities`` keeps,
  per contact, the letters its velocity allows (an approaching contact is an error).
* **Global, by acceleration** (Sec. III-F with footnote 5): a mode survives when some ``q̈``
  satisfies its contact-acceleration equalities (eq. 7) and, *strictly*, its inequalities (eq. 9),
  i.e. when the largest common slack ``s`` of the inequalities (capped at 1) exceeds
  ``STRICT_MARGIN`` (``strict_slack``).

Output-sensitive search
-----------------------
Every contact's rows come from the system's contact model (``ContactSystem.contact_model``: the
planar point contact's four letters ``FSLR``, or the spatial one's ``2 + 2 n_f`` at rest); below
"``4^k``" reads "``|letters|^k``". Instead of testing all ``4^k`` candidates, ``enumerate_modes`` assigns letters contact by
contact (level by level: the prefixes of length ``i + 1`` are the surviving prefixes of length
``i`` extended by each allowed letter of contact ``i``, in ``"FSLR"`` order, so the survivors come
out in product order) and tests each *partial* assignment with the same slack LP in which every
unassigned contact keeps only the rows common to all of its allowed letters
(``relaxed_rows``: ``ẍ_n >= 0`` when its normal velocity is zero,
loosened by the margin). That is a relaxation: a completion's feasible ``(q̈, s)`` with ``s >= 0``
is feasible for the partial problem, so a partial assignment whose slack is at most the margin
has no surviving completion, and its whole subtree is skipped. For whole modes the test is
exactly footnote 5's. The cost therefore grows with the number of surviving modes (times
``4k``), not with ``4^k``; the counts per stage (``4^k``, after Table III, after the acceleration
test) are reported as before.

The LPs of one level are solved together by the vectorized, verified dual simplex of
``polytopes.batchlp`` (every answer checked by its primal and dual or Farkas certificate); a
prefix the batch cannot decide beyond the LP precision is decided by the definition's own LP
(``strict_slack_of_rows``: equalities eliminated by an SVD, one verified LP), see ``_Search.decide``.

All decisions are taken on the nondimensionalized system (``contactmodes.model.scaling``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from polytopes import lp

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

from contactmodes import tolerances
from contactmodes.errors import InternalError
from contactmodes._linalg import null_space_solution
from contactmodes.progress import Progress, stage
from contactmodes.modes.contact_conditions import MODE_LETTERS, VelocityPattern, classify_velocities
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.model.system import ContactSystem

SMALL_LEVEL = 4
"""A level with fewer prefixes than this is decided by the definition's LP one prefix at a time
(``strict_slack_of_rows``; cheaper than setting up a batch). Larger levels use the batched simplex, with
the compiled kernel only where its load pays (``polytopes.batchlp.preferred_kernel``).
Measured on the examples (``enumerate_modes``, ms CPU, 48 → 4): two-link 18.1 → 16.0, RHex
31.1 → 27.4, table 8.3 → 4.6; the same modes (measured before ``DIRECT_CANDIDATES``, which
now sends these examples past the levels)."""

DIRECT_CANDIDATES = 256
"""With at most this many modes allowed by Table III, they are decided as whole modes in one batch
(no prefixes: the search's levels cost more than they prune). Measured on the examples
(``enumerate_modes``, ms CPU, levels → one batch): two-link (64 candidates) 15.8 → 8.4, six-link
16.8 → 8.9, RHex start (256) 26.7 → 16.4; the same modes in the same order."""

LEAF_BATCH = 1024
"""Prefixes are decided in batches of at most this many (one vectorized LP call each)."""

__all__ = ["MODE_LETTERS", "Enumeration", "acceleration_feasible", "acceleration_rows", "all_modes",
           "contact_acceleration_rows", "contact_relaxed_rows", "enumerate_modes", "mode_graph", "strict_slack", "strict_slack_of_rows", "velocity_allowed",
           "zero_threshold"]


def zero_threshold(system: ContactSystem) -> np.ndarray:
    """Per-contact threshold ``ε_i`` below which a velocity component counts as zero.

    Parameters
    ----------
    system : ContactSystem
        The system at its state.

    Returns
    -------
    numpy.ndarray
        ``(k,)`` in the system's velocity units (``classify_velocities``).
    """
    return classify_velocities(system, check_approaching=False).threshold


def velocity_allowed(system: ContactSystem) -> list[str]:
    """Per contact, the letters Table III allows, in ``"FSLR"`` order (e.g. ``"SR"``).

    Parameters
    ----------
    system : ContactSystem
        The system at its state.

    Returns
    -------
    list[str]
        One string per contact.

    Raises
    ------
    ApproachingContactError
        For an approaching contact.
    """
    return list(classify_velocities(system).allowed)


def contact_acceleration_rows(system: ContactSystem, pattern: VelocityPattern, i: int, letter: str):
    """Contact ``i``'s acceleration rows in ``letter``, ``(E, e, G, g)``: ``E q̈ = e`` (eq. 7) and
    ``G q̈ >= g`` (eq. 9), from the system's contact model (``rows`` under ``pattern``).

    Component rows take row ``c`` of the contact's block of ``J`` and ``J̇ q̇``; the direction
    rows (``accel_eq_dirs``, ``accel_geq_dirs``: the spatial side and vertex letters) the
    combination ``Σ_c a_c`` of the block's rows, after the component rows of their kind. ``G``
    holds the strict rows of footnote 5 (``accel_geq`` and ``accel_geq_dirs`` alike).

    Parameters
    ----------
    system : ContactSystem
        The system at its state (the enumeration passes the scaled one).
    pattern : VelocityPattern
        Its Table III classification (``classify_velocities``).
    i : int
        The contact's index.
    letter : str
        One of the contact model's letters.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]
        ``E`` ``(p, n_q)``, ``e`` ``(p,)``, ``G`` ``(r, n_q)``, ``g`` ``(r,)``.

    Raises
    ------
    ContactModelError
        As the model's ``rows`` (a letter it does not know, or cannot build at this state).
    """
    nc = system.n_components
    Jb, cb = system.J[nc * i:nc * (i + 1)], system.Jdot_qdot[nc * i:nc * (i + 1)]
    rows = system.contact_model.rows(letter, float(system.mu[i]), *pattern.args(i))
    E = [Jb[cp] for cp in rows.accel_eq] + [np.asarray(d, dtype=float) @ Jb for d in rows.accel_eq_dirs]
    e = [-cb[cp] for cp in rows.accel_eq] + [-(np.asarray(d, dtype=float) @ cb) for d in rows.accel_eq_dirs]
    G = [sg * Jb[cp] for cp, sg in rows.accel_geq] + [np.asarray(d, dtype=float) @ Jb for d in rows.accel_geq_dirs]
    g = [-sg * cb[cp] for cp, sg in rows.accel_geq] + [-(np.asarray(d, dtype=float) @ cb) for d in rows.accel_geq_dirs]
    n = system.n_q
    return (np.array(E, dtype=float).reshape(len(E), n), np.array(e, dtype=float),
            np.array(G, dtype=float).reshape(len(G), n), np.array(g, dtype=float))


def contact_relaxed_rows(system: ContactSystem, pattern: VelocityPattern, i: int):
    """Contact ``i``'s relaxed rows ``(R, r)``, ``R q̈ >= r``: the rows common to every letter
    Table III allows it (the model's ``relaxed_rows``), for the enumeration's partial assignments.

    Parameters
    ----------
    system : ContactSystem
        The system at its state.
    pattern : VelocityPattern
        Its Table III classification.
    i : int
        The contact's index.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray]
        ``R`` ``(l, n_q)`` and ``r`` ``(l,)``.
    """
    nc = system.n_components
    rel = system.contact_model.relaxed_rows(pattern.allowed[i], bool(pattern.n_zero[i]))
    R = [sg * system.J[nc * i + cp] for cp, sg in rel]
    r = [-sg * system.Jdot_qdot[nc * i + cp] for cp, sg in rel]
    return np.array(R, dtype=float).reshape(len(R), system.n_q), np.array(r, dtype=float)


def _rows(system: ContactSystem, pattern: VelocityPattern, letters: str, relax_from: int | None = None):
    """Acceleration rows ``(E, e, G, g)``: ``E q̈ = e`` and ``G q̈ >= g`` (strict), plus the
    relaxed rows ``(R, r)`` (``R q̈ >= r``) of contacts ``relax_from…k−1`` (none if ``None``)."""
    n = system.n_q
    blocks = [contact_acceleration_rows(system, pattern, i, letter) for i, letter in enumerate(letters)]
    relaxed = [contact_relaxed_rows(system, pattern, i) for i in range(relax_from, system.k)] if relax_from is not None else []
    E = np.vstack([b[0] for b in blocks] + [np.zeros((0, n))])
    e = np.concatenate([b[1] for b in blocks] + [np.zeros(0)])
    G = np.vstack([b[2] for b in blocks] + [np.zeros((0, n))])
    g = np.concatenate([b[3] for b in blocks] + [np.zeros(0)])
    R = np.vstack([x[0] for x in relaxed] + [np.zeros((0, n))])
    r = np.concatenate([x[1] for x in relaxed] + [np.zeros(0)])
    return E, e, G, g, R, r


def acceleration_rows(system: ContactSystem, mode: str):
    """The contact-acceleration constraints of ``mode`` as ``(E, e, G, g)`` in the system's units.

    Equalities ``E q̈ = e`` (eq. 7) and inequalities ``G q̈ >= g`` (eq. 9, only where the velocity is
    zero), ``ẍ = J q̈ + J̇ q̇``; rows from ``contact_rows``.

    Parameters
    ----------
    system : ContactSystem
        The system at its state.
    mode : str
        One letter of ``"FSLR"`` per contact.

    Returns
    -------
    E : numpy.ndarray
        ``(p, n_q)``.
    e : numpy.ndarray
        ``(p,)``.
    G : numpy.ndarray
        ``(r, n_q)``.
    g : numpy.ndarray
        ``(r,)``.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of the system.
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    E, e, G, g, _, _ = _rows(system, classify_velocities(system, check_approaching=False), mode)
    return E, e, G, g


def strict_slack_of_rows(E, e, G, g, R, r) -> float:
    """Largest ``s <= 1`` with ``E q̈ = e``, ``G q̈ − g >= s``, ``R q̈ >= r``; ``-inf`` if none.

    Footnote 5's strict-slack LP on given acceleration rows (nondimensional), the one kinematic
    decision the enumeration and the real-time plans share. The equalities are eliminated first
    (``null_space_solution``, robust to redundant rows); the rest is one verified LP through
    ``polytopes.lp.solve``.

    Parameters
    ----------
    E : numpy.ndarray
        ``(p, n_q)`` equality rows (eq. 7).
    e : numpy.ndarray
        ``(p,)``.
    G : numpy.ndarray
        ``(m, n_q)`` strict inequality rows (eq. 9).
    g : numpy.ndarray
        ``(m,)``.
    R : numpy.ndarray
        ``(l, n_q)`` non-strict rows (the relaxed rows of unassigned contacts).
    r : numpy.ndarray
        ``(l,)``.

    Returns
    -------
    float
        The slack (nondimensional); ``1`` without inequality rows, ``-inf`` when infeasible.

    Raises
    ------
    InternalError
        When the verified LP, bounded by construction, is not optimal.
    NumericalError
        When the LP cannot be solved reliably.
    """
    n_q = E.shape[1]
    if E.shape[0]:
        sol = null_space_solution(E, e)
        if sol is None:
            return -np.inf
        q0, Z = sol
    else:
        q0, Z = np.zeros(n_q), np.eye(n_q)
    return _reduced_slack(q0, Z, G, g, R, r)


def strict_slack(system: ContactSystem, mode: str) -> float:
    """Largest ``s <= 1`` with ``E q̈ = e`` and ``G q̈ − g >= s`` (eqs. 7 and 9 of ``mode``).

    Computed in the nondimensionalized system (``contactmodes.model.scaling``).

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any units: its scaled form is used).
    mode : str
        One letter of ``"FSLR"`` per contact.

    Returns
    -------
    float
        The slack (nondimensional); ``-inf`` if the equalities have no solution, ``1`` without
        inequality rows.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of the system.
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    scaled = system.scaling.system
    return strict_slack_of_rows(*_rows(scaled, classify_velocities(scaled, check_approaching=False), mode))


def _margin(system: ContactSystem) -> float:
    return tolerances.STRICT_MARGIN * max(1.0, float(np.abs(system.J).max(initial=0.0)),
                                          float(np.abs(system.Jdot_qdot).max(initial=0.0)))


def acceleration_feasible(system: ContactSystem, mode: str) -> bool:
    """Kinematic feasibility of ``mode`` (Sec. III-F with footnote 5): ``strict_slack``
    exceeds ``STRICT_MARGIN · max(1, max|J'|, max|J̇q̇'|)`` (primes: nondimensionalized system).

    Only contacts whose velocity is zero in the relevant direction contribute inequality rows;
    the equalities of ``F`` (both rows) and ``L``/``R`` (normal row) are imposed whatever the
    velocity (a mode that Table III excludes is never passed here by ``enumerate_modes``).

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any units: decided on its scaled form).
    mode : str
        One letter of ``"FSLR"`` per contact.

    Returns
    -------
    bool
        Whether ``mode`` is kinematically feasible.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of the system.
    """
    return strict_slack(system, mode) > _margin(system.scaling.system)


@dataclass
class Enumeration:
    """Result of ``enumerate_modes``.

    Attributes
    ----------
    total : int
        Number of modes, ``|letters|**k`` (``4**k`` planar).
    after_velocity : int
        Number of modes allowed by Table III.
    after_acceleration : int
        Number of those that are also kinematically feasible (footnote 5).
    modes : list[str]
        The surviving modes, in product order over ``"FSLR"`` (first contact slowest).
    allowed : list[str]
        Per contact, the Table III letters.
    pattern : VelocityPattern or None
        The ``VelocityPattern`` (thresholds in user units).
    lps : int
        Number of slack LPs the search solved (its cost; ``4^k`` for the exhaustive loop).
    graph : networkx.Graph
        ``networkx.Graph`` on ``modes`` (edges: modes differing at one contact), built
        on first access.
    """

    total: int
    after_velocity: int
    after_acceleration: int
    modes: list[str]
    allowed: list[str] = field(default_factory=list)
    pattern: VelocityPattern | None = field(default=None, repr=False)
    lps: int = 0

    @cached_property
    def graph(self) -> "nx.Graph":
        return mode_graph(self.modes)

    def to_json(self) -> dict:
        """``{"total", "after_velocity", "after_acceleration", "modes", "allowed"}``."""
        return {
            "total": self.total,
            "after_velocity": self.after_velocity,
            "after_acceleration": self.after_acceleration,
            "modes": list(self.modes),
            "allowed": list(self.allowed),
        }


def all_modes(k: int, letters: str = MODE_LETTERS) -> list[str]:
    """All ``len(letters)**k`` modes in product order over ``letters``.

    Parameters
    ----------
    k : int
        Number of contacts.
    letters : str, optional
        The contact model's letters (default the planar ``"FSLR"``: ``4**k`` modes).

    Returns
    -------
    list[str]
        ``len(letters)**k`` strings of length ``k``.
    """
    return ["".join(p) for p in itertools.product(letters, repeat=k)]


def mode_graph(modes: list[str]) -> "nx.Graph":
    """Graph on ``modes`` with an edge between modes that differ at exactly one contact.

    Parameters
    ----------
    modes : list[str]
        Mode strings of one length.

    Returns
    -------
    networkx.Graph
        Nodes ``modes``; an edge between modes that differ at exactly one contact.
    """
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(modes)
    present = set(modes)
    # the planar letters in their order, then any other contact model's letters in use
    alphabet = MODE_LETTERS + "".join(sorted(set("".join(modes)) - set(MODE_LETTERS)))
    for a in modes:  # neighbours by one-letter substitution: O(n k |letters|)
        for i, letter in enumerate(a):
            for other in alphabet:
                b = a[:i] + other + a[i + 1:]
                if other != letter and b in present:
                    graph.add_edge(a, b)
    return graph


class _Search:
    """The level-by-level search of the module docstring on a nondimensional system.

    Per contact and letter the acceleration rows are precomputed once. The prefixes of one level
    are decided together (``decide``): one vectorized verified LP each, the definition's LP
    (``strict_slack_of_rows``) for the few the batch leaves undecided.
    """

    def __init__(self, system: ContactSystem, pattern: VelocityPattern) -> None:
        self.system, self.pattern = system, pattern
        self.k, self.n = system.k, system.n_q
        self.margin = _margin(system)
        self.blocks: list[dict[str, tuple]] = []
        self.relaxed: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(self.k):
            per = {}
            for letter in pattern.allowed[i]:
                per[letter] = contact_acceleration_rows(system, pattern, i, letter)
            self.blocks.append(per)
            self.relaxed.append(contact_relaxed_rows(system, pattern, i))
        self.lps = 0
        self.bank = self._bank()

    def _confirm_prune(self, letters: str) -> bool:
        """Whether the rows of ``letters`` (a prefix) with the relaxed rows of the remaining
        contacts, loosened by the margin, eliminated at once (``strict_slack_of_rows``, as
        ``strict_slack`` does for a whole mode), leave no strict slack above the margin."""
        n = self.n
        blocks = [self.blocks[i][letter] for i, letter in enumerate(letters)]
        relaxed = self.relaxed[len(letters):]
        # the rows _rows() builds for these letters (same order), from the precomputed blocks
        E = np.vstack([b[0] for b in blocks] + [np.zeros((0, n))])
        e = np.concatenate([b[1] for b in blocks] + [np.zeros(0)])
        G = np.vstack([b[2] for b in blocks] + [np.zeros((0, n))])
        g = np.concatenate([b[3] for b in blocks] + [np.zeros(0)])
        R = np.vstack([x[0] for x in relaxed] + [np.zeros((0, n))])
        r = np.concatenate([x[1] for x in relaxed] + [np.zeros(0)])
        self.lps += 1
        return strict_slack_of_rows(E, e, G, g, R, r - self.margin) <= self.margin

    def _bank(self):
        """All rows the slack LPs use, over ``(q̈, s)`` as ``F z <= f``, and where each block sits:
        per contact and letter the equalities (two rows each) and the strict rows
        ``G q̈ − g >= s``; per suffix of contacts the relaxed rows loosened by the margin,
        ``R q̈ >= r − margin``; the last row is ``0 <= 0`` (padding). Returns ``(F, f, where,
        suffix, pad)``: ``where[i][letter]`` and ``suffix[i]`` are lists of row indices."""
        rows, rhs = [], []

        def add(F, f) -> list[int]:
            start = sum(len(x) for x in rhs)
            rows.append(F)
            rhs.append(f)
            return list(range(start, start + F.shape[0]))

        where = []
        for per_letter in self.blocks:
            per = {}
            for letter, (E, e, G, g) in per_letter.items():
                z, o = np.zeros((E.shape[0], 1)), np.ones((G.shape[0], 1))
                per[letter] = add(np.vstack([np.hstack([E, z]), np.hstack([-E, z]), np.hstack([-G, o])]),
                                  np.concatenate([e, -e, -g]))
            where.append(per)
        relaxed = [add(np.hstack([-R, np.zeros((R.shape[0], 1))]), -(r - self.margin)) for R, r in self.relaxed]
        suffix = [sum(relaxed[i:], []) for i in range(self.k + 1)]
        pad = add(np.zeros((1, self.n + 1)), np.zeros(1))[0]
        return np.vstack(rows), np.concatenate(rhs), where, suffix, pad

    def _lp_rows(self, prefixes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows ``(F, f)`` (B, m, n_q + 1), (B, m) of the slack LPs of ``prefixes`` (padded with
        ``0 <= 0``) and their bank indices (B, m): each prefix's equalities (two rows each), its strict rows
        ``G q̈ − g >= s`` and the relaxed rows of the other contacts loosened by the margin."""
        F, f, where, suffix, pad = self.bank
        idx = []
        for p in prefixes:
            rows = []
            for i, letter in enumerate(p):
                rows += where[i][letter]
            idx.append(rows + suffix[len(p)])
        m = max(len(r) for r in idx)
        index = np.array([r + [pad] * (m - len(r)) for r in idx], dtype=int)
        return F[index], f[index], index

    def decide(self, prefixes: list[str], warm: dict[str, np.ndarray] | None = None
               ) -> tuple[list[str], dict[str, np.ndarray]]:
        """The ``prefixes`` (all of one length) that may have a surviving completion, in order (for
        whole modes exactly those ``acceleration_feasible`` accepts), and the final simplex
        basis of each, a warm start for its children.

        One vectorized verified LP per prefix (``polytopes.batchlp.simplex_batch``, the
        formulation of ``contactmodes.realtime.plan.Layout.kinematic``): over ``(q̈, s)``, maximize
        ``s <= 1`` s.t. ``_lp_rows``, with an artificial box on ``q̈`` (nondimensional) and
        the real bound ``s >= −KINEMATIC_BOUND``, warm-started from the parent prefix's optimal
        basis (``warm``: prefix → basis as bank rows ``r >= 0`` and bounds ``−1 − j`` (upper),
        ``−1 − n − j`` (lower); the simplex uses it only when it is nonsingular and dual
        feasible). A verified optimum farther than the LP precision from the margin, or a verified
        Farkas certificate proving the rows infeasible beyond that precision (an infeasibility
        within it, of equalities dependent up to rounding, may be one the definition's SVD
        accepts), decides a prefix (``tolerances.KINEMATIC_BAND_RTOL``). The precision band
        grows with ``|q̈|`` and a degenerate optimum sits on the box, so the prefixes left within the band (typically a slack
        of exactly 0) are solved again in the unit box (still artificial); whatever is still
        undecided (an answer leaning on the box, a slack at the margin) goes to the definition's
        LP (``_confirm_prune``)."""
        out: list[str] = []
        bases: dict[str, np.ndarray] = {}
        if len(prefixes) < SMALL_LEVEL:  # a few LPs: the definition's own, no batch set-up
            return [p for p in prefixes if not self._confirm_prune(p)], bases

        from polytopes import batchlp

        kernel = batchlp.preferred_kernel(len(prefixes))  # the compiled one only where its load pays
        for start in range(0, len(prefixes), LEAF_BATCH):
            chunk = prefixes[start:start + LEAF_BATCH]
            keep, ids = self._decide_chunk(chunk, warm or {}, kernel)
            for p, kp, bid in zip(chunk, keep, ids):
                if kp:
                    out.append(p)
                    bases[p] = bid
        return out, bases

    def _decide_chunk(self, chunk: list[str], warm: dict[str, np.ndarray], kernel: str):
        from polytopes import batchlp

        bound = tolerances.KINEMATIC_BOUND  # not from .layout: that imports the compiled kernels

        n = self.n
        nv = n + 1
        B = len(chunk)
        Gb, hb, index = self._lp_rows(chunk)
        m = index.shape[1]
        cost = np.zeros((B, nv))
        cost[:, -1] = -1.0
        lo = np.full((B, nv), -bound)
        hi = np.full((B, nv), bound)
        hi[:, -1] = 1.0
        art = np.ones((B, nv), dtype=bool)
        art[:, -1] = False
        basis = self._warm_basis(chunk, index, warm, cost)
        decided = np.zeros(B, dtype=bool)
        alive = np.zeros(B, dtype=bool)
        final = np.full((B, nv), -1, dtype=int)
        for box in (bound, 1.0):
            todo = np.flatnonzero(~decided)
            if todo.size == 0:
                break
            lo[todo, :n], hi[todo, :n] = -box, box
            res = batchlp.simplex_batch(cost[todo], Gb[todo], hb[todo], lo[todo], hi[todo], art[todo],
                                        basis[todo], kernel=kernel, infeasible_tol=tolerances.KINEMATIC_BAND_RTOL)
            self.lps += todo.size
            o = res.status == lp.OPTIMAL
            sv = np.where(o, -res.fun, -np.inf)
            band = tolerances.KINEMATIC_BAND_RTOL * np.maximum(
                1.0, np.max(np.abs(np.where(o[:, None], res.x, 0.0)), axis=1))
            dec = (o & (np.abs(np.where(o, sv, 0.0) - self.margin) > band)) | (res.status == lp.INFEASIBLE)
            decided[todo[dec]] = True
            alive[todo[dec]] = sv[dec] > self.margin
            # the basis as identities: bank rows, or bounds -1 - j (upper) / -1 - nv - j (lower)
            pos = res.basis
            bank_row = index[todo[:, None], np.minimum(pos, m - 1)] if m else pos
            ident = np.where(pos < m, bank_row, -1 - (pos - m))
            final[todo] = ident
            basis[todo] = pos  # the unit box's LPs start where these ended (same rows and costs: dual feasible)
        keep = [bool(alive[b]) if decided[b] else not self._confirm_prune(p) for b, p in enumerate(chunk)]
        return keep, list(final)

    def _warm_basis(self, chunk: list[str], index: np.ndarray, warm: dict[str, np.ndarray],
                    cost: np.ndarray) -> np.ndarray:
        """(B, n_q + 1) starting bases: the parent's basis mapped to this prefix's row positions
        where every basic row is still present, else the default box vertex."""
        B, m = index.shape
        nv = cost.shape[1]
        j = np.arange(nv)
        basis = np.broadcast_to(np.where(cost <= 0.0, m + j, m + nv + j), (B, nv)).copy()
        pad = self.bank[4]
        for b, p in enumerate(chunk):
            parent = warm.get(p[:-1])
            if parent is None:
                continue
            where = {int(r): i for i, r in enumerate(index[b]) if r != pad}
            mapped = []
            for r in parent.tolist():
                if r >= 0:
                    if r not in where:
                        break
                    mapped.append(where[r])
                else:
                    mapped.append(m + (-1 - r))
            else:
                basis[b] = mapped
        return basis


def _reduced_slack(x0, Z, G, g, R, r) -> float:
    """``strict_slack_of_rows`` on rows already reduced to ``q̈ = x0 + Z y``: variables ``(y, s)``, maximize
    ``s`` s.t. ``−GZ y + s <= G x0 − g``, ``−RZ y <= R x0 − r``, ``s <= 1``."""
    base_g, base_r = G @ x0 - g, R @ x0 - r
    if G.shape[0] == 0 and R.shape[0] == 0:
        return 1.0
    n_y = Z.shape[1]
    if n_y == 0:
        if np.any(base_r < -tolerances.FEASIBILITY_RTOL):
            return -np.inf
        return float(min(1.0, base_g.min(initial=1.0)))
    GZ, RZ = G @ Z, R @ Z
    cost = np.zeros(n_y + 1)
    cost[-1] = -1.0
    A_ub = np.vstack([np.hstack([-GZ, np.ones((G.shape[0], 1))]), np.hstack([-RZ, np.zeros((R.shape[0], 1))])])
    status, _, fun = lp.solve(cost, A_ub, np.concatenate([base_g, base_r]),
                              bounds=[(None, None)] * n_y + [(None, 1.0)])
    if status == lp.INFEASIBLE:
        return -np.inf
    if status != lp.OPTIMAL:
        raise InternalError(f"acceleration LP: status {status} for a problem bounded by construction")
    return float(-fun)


def enumerate_modes(system: ContactSystem, progress: Progress | None = None, decide=None) -> Enumeration:
    """Kinematically feasible contact modes of ``system`` (Sec. III-F).

    The output-sensitive level-by-level search of the module docstring, on the nondimensionalized
    system.

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any consistent units).
    progress : Progress, optional
        Shows the stage ``enumerating modes``, one step per contact assigned.
    decide : Callable, optional
        Decides one level's prefixes: ``decide(search, prefixes, bases) -> (kept, bases)``, what
        ``search.decide(prefixes, bases)`` returns (the default;
        ``contactmodes.analysis.distributed.ClusterDecide`` spreads a level's subtrees over a Dask
        cluster).

    Returns
    -------
    Enumeration
        The counts per stage and the surviving modes in product order.

    Raises
    ------
    ApproachingContactError
        When a contact approaches (Table III).
    """
    scaled = system.scaling.system
    pattern = classify_velocities(system)
    allowed = list(pattern.allowed)
    after_velocity = 1
    for letters in allowed:
        after_velocity *= len(letters)
    search = _Search(scaled, pattern)
    frontier: list[str] = [""]
    bases: dict[str, np.ndarray] = {}
    with stage(progress, "enumerating modes", scaled.k) as st:
        if after_velocity <= DIRECT_CANDIDATES:  # a few candidates: every whole mode in one batch
            frontier, _ = search.decide(["".join(m) for m in itertools.product(*allowed)])
            st.update(scaled.k, f"{len(frontier)} modes")
        else:
            for i in range(scaled.k):  # level by level: the prefixes of length i + 1, in product order
                children = [p + letter for p in frontier for letter in allowed[i]]
                frontier, bases = search.decide(children, bases) if decide is None else decide(search, children, bases)
                st.update(1, f"contact {i + 1} of {scaled.k}: {len(frontier)} prefixes")
                if not frontier:
                    break
    return Enumeration(total=len(scaled.contact_model.letters) ** scaled.k, after_velocity=after_velocity, after_acceleration=len(frontier),
                       modes=frontier, allowed=allowed, pattern=pattern, lps=search.lps)
