"""Which contact modes can admit a given torque: groups of modes screened by their dynamics at it.

A controller that has found its candidate torque ``τ°`` (the maximizer of its objective over one
mode's ``T_c``, flipping paper Sec. IV-B.2) must show that ``τ°`` lies in no other feasible mode's
torque set ``T_c'`` (33) before it may apply it as unambiguous, eq. (34). Testing every
kinematically feasible mode needs every mode's response and domain; with six contacts at rest
(the snake wedged in its chimney, ``examples/snake/snake_chimney.toml``) that is 288 of the 4096
candidates, most of a control step (issue 24). ``TorqueScreen`` instead tests *groups* of modes
at the fixed torque: for contact ``i`` and one of its letters, the group of every mode with that
letter at ``i``. Its *relaxation* at ``τ°`` is the set of ``x = (q̈, f)`` (nondimensional) with

* the dynamics ``M q̈ − Jᵀ f = S τ° − h`` and the system's physical constraint rows (task rows
  left out: ``T_c'`` of eq. (34) is taken without them);
* contact ``i``'s rows of its letter (``contact_rows``, Tables I–II: its acceleration and force
  equalities and inequalities, as the layout's modes have them);
* every other contact's rows common to all of its letters: the friction cone ``μ f_n ± f_t >=
  0``, ``f_n >= 0`` (``F`` has them, ``S``'s zero force and ``L``/``R``'s edge satisfy them)
  and, with a zero normal velocity, ``ẍ_n >= 0`` (``contact_conditions.relaxed_rows``).

Every mode of the group has its solutions at ``τ°`` in that set (the rows of ``D_c'``, eq. (33),
before substitution), so when the set is empty no mode of the group has ``τ° ∈ T_c'``, whether it
is kinematically feasible or not. The test is one max-slack LP per group over ``(x, t)``:
maximize ``t`` with every row (normalized, an equality as two rows) holding with slack ``t``,
``x`` in an artificial box (``KINEMATIC_BOUND``) an accepted answer does not lean on,
warm-started from the group's own last basis (``polytopes.batchlp.simplex_batch``, verified; one
batch of ``Σ letters`` LPs). A group is left out only when the verified optimum is below
``−SCREEN_MARGIN · max(1, ‖τ°‖∞)`` (``contactmodes.tolerances``); an LP that is not verified
leaves out nothing.

``TorqueScreen.excluder`` hands the result to the kinematic test's prefix search
(``contactmodes.realtime.prefix.PrefixPruning.candidates``, its ``exclude``): a prefix with a
left-out letter is dropped before its kinematic LP, and so are such leaves. For the snake at a
squeezing torque every separating letter is left out (its group's slack is −0.03 to −0.18; the
sliding ones are not: ``F``'s solutions with a force on the cone's edge satisfy their non-strict
rows), and most kinematic prefixes of the sliding letters, a wedged chain's, are pruned: 3 of the
4096 candidates are left (18 screen LPs, the candidate's own letters untested, and about 30
kinematic prefix LPs). What the screen
leaves out is not *decided*: the caller (``controllers.generic.search``) tests the kept modes as
before and reports only their feasibility.

From step to step the screen keeps its last exclusions and their LPs' final bases: when the
candidate's letters are the same, each last exclusion is first proved again at the new state and
torque by its old basis (``contactmodes.realtime.prefix.certified_slack``: the multipliers
recomputed at the new numbers, negative parts dropped, weak duality with the residual kept over
``|x'| <= KINEMATIC_BOUND``, at most ``−SCREEN_MARGIN · max(1, ‖τ°‖∞)``); when all are, they are
the screen's answer without an LP, and the groups kept last time stay kept (fewer exclusions
are always sound). Every ``SCREEN_REFRESH`` such screens, and whenever a certificate fails, the
LPs run. For the snake: one certificate call for its 6 exclusions instead of 18 LPs.
"""

from __future__ import annotations

import numpy as np

from polytopes import batchlp
from polytopes import lp

from contactmodes import tolerances
from contactmodes.modes.contact_conditions import relaxed_rows
from contactmodes.realtime.prefix import certified_slack

__all__ = ["TorqueScreen", "Exclusion", "SCREEN_REFRESH"]

SCREEN_REFRESH = 16
"""A screen whose last exclusions are all proved again by their old bases (``certified_slack``)
takes them without LPs; every this many such screens the LPs of every group run again (so that
groups kept by the old screen can be left out when they become empty)."""


class TorqueScreen:
    """The screen of the module doc over one ``Layout``'s candidates (one group per contact and letter).

    Parameters
    ----------
    layout : Layout
        The layout (``contactmodes.realtime.plan.Layout``: its ``structure``, ``pattern`` and
        per-contact ``options`` with their bank rows).

    Attributes
    ----------
    basis : numpy.ndarray or None
        ``(groups, n + 1)`` int64: each group's last optimal basis (``-1``: none yet), the next
        screen's warm starts.
    """

    def __init__(self, layout) -> None:
        st = layout.structure
        self.k, self.n = st.k, st.n
        self.n_eq = st.eq_dyn0 + st.n_q  # rows of Banks.A
        n_eq = self.n_eq
        self.null = 2 * n_eq + st.geq_null + 1  # the padding row of the per-step bank

        def eq(rows):
            return [r for r in rows] + [n_eq + r for r in rows]

        def geq(rows):
            return [2 * n_eq + r for r in rows]

        self.radix = np.array([len(opts) for opts in layout.options], dtype=np.int64)
        self._letters = [{o[0]: j for j, o in enumerate(opts)} for opts in layout.options]
        self.segments: list[np.ndarray] = []  # per contact: (options, width) rows of each letter
        for opts in layout.options:
            rows = [eq(o[1]) + geq(o[2]) for o in opts]
            width = max(len(r) for r in rows)
            seg = np.full((len(opts), width), self.null, dtype=np.int64)
            for j, r in enumerate(rows):
                seg[j, :len(r)] = r
            self.segments.append(seg)
        self.relaxed: list[list[int]] = []  # per contact: the rows common to its letters
        for i in range(self.k):
            mu = float(st.mu[i])
            cone = [st.geq_force0 + st.force_geq.index((i, a_t, a_n)) for a_t, a_n in ((-1.0, mu), (1.0, mu), (0.0, 1.0))]
            accel = [(2 * i + cp) if sg > 0 else (2 * st.k + 2 * i + cp)
                     for cp, sg in relaxed_rows(layout.pattern.allowed[i], bool(layout.pattern.n_zero[i]))]
            self.relaxed.append(geq(cone + accel))
        physical = [r for r in range(st.geq_block0, st.geq_null) if not st.geq_task[r]]
        self.fixed = np.array(eq(list(range(st.eq_block0, n_eq))) + geq(physical), dtype=np.int64)
        self.basis: np.ndarray | None = None
        self._rows: np.ndarray | None = None
        self._last: tuple | None = None  # (keep, exclusions, screens since the LPs) of the last screen
        self._exclusion: tuple | None = None  # (exclusions, their Exclusion): last_exclusion's, made once
        nv = self.n + 1
        self._cost = np.zeros(nv)
        self._cost[-1] = -1.0
        self._lo = np.full(nv, -tolerances.KINEMATIC_BOUND)
        self._hi = np.full(nv, tolerances.KINEMATIC_BOUND)
        self._lo[-1], self._hi[-1] = -1e6, 1.0
        self._art = np.ones(nv, dtype=bool)
        self._art[-1] = False  # the slack's bounds are real: an optimum on them is an answer

    def positions(self, mode: str) -> np.ndarray:
        """The position of each letter of ``mode`` among its contact's letters.

        ``Layout.options`` order; ``excluded``'s ``keep``.

        Parameters
        ----------
        mode : str
            One of the layout's candidates.

        Returns
        -------
        numpy.ndarray
            ``(k,)`` int.
        """
        return np.array([self._letters[i][ch] for i, ch in enumerate(mode)], dtype=np.int64)

    def bank(self, banks, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every row of the state's banks at the torque ``tau`` as ``Z (x, t) <= z`` with the slack column.

        Each equality ``A x = B τ + b`` as ``±A x + ‖A‖ t <= ±(B τ + b)``, each inequality
        ``N (x, τ) >= e`` as ``−N_x x + ‖N_x‖ t <= −(e − N_τ τ)``, and the padding row ``0 <= 0`` last.

        Parameters
        ----------
        banks : Banks
            The row banks of the state (nondimensional).
        tau : numpy.ndarray
            ``(n_τ,)`` the torque, nondimensional.

        Returns
        -------
        Z : numpy.ndarray
            ``(R, n + 1)``.
        z : numpy.ndarray
            ``(R,)``.
        """
        n, n_eq = self.n, self.n_eq
        A, N = banks.A, banks.N
        beta = banks.B @ tau + banks.b
        Z = np.zeros((self.null + 1, n + 1))
        z = np.zeros(self.null + 1)
        na = np.sqrt(np.einsum("ij,ij->i", A, A))
        Z[:n_eq, :n], Z[:n_eq, n], z[:n_eq] = A, na, beta
        Z[n_eq:2 * n_eq, :n], Z[n_eq:2 * n_eq, n], z[n_eq:2 * n_eq] = -A, na, -beta
        Nx = N[:, :n]
        Z[2 * n_eq:self.null, :n] = -Nx
        Z[2 * n_eq:self.null, n] = np.sqrt(np.einsum("ij,ij->i", Nx, Nx))
        z[2 * n_eq:self.null] = N[:, n:] @ tau - banks.e
        return Z, z

    def rows(self) -> np.ndarray:
        """``(G, m)`` bank rows of the screen's groups, one per contact and allowed letter (contact
        0's letters first, in ``Layout.options`` order): the fixed rows, that contact's letter's
        rows, every other contact's common rows."""
        if self._rows is None:
            groups = []
            for i in range(self.k):
                rel = [r for j in range(self.k) if j != i for r in self.relaxed[j]]
                for seg in self.segments[i]:
                    groups.append(np.concatenate([self.fixed, seg, np.array(rel, dtype=np.int64)]))
            width = max(g.size for g in groups)
            self._rows = np.full((len(groups), width), self.null, dtype=np.int64)
            for j, g in enumerate(groups):
                self._rows[j, :g.size] = g
        return self._rows

    def excluded(self, banks, tau, counters=None, keep: np.ndarray | None = None) -> list[np.ndarray]:
        """Per contact, ``(letters,)`` bool: the letters (in ``Layout.options`` order) whose group
        admits no solution at ``tau`` — certified (module doc), so no mode with that letter at
        that contact has ``tau`` in its ``T_c'``.

        Parameters
        ----------
        banks : Banks
            The row banks of the state (``Structure.banks``).
        tau : numpy.ndarray
            ``(n_τ,)`` the torque, nondimensional (the plan's units).
        counters : StepCounters, optional
            ``lps`` += the screen's LPs (one per contact and letter tested).
        keep : numpy.ndarray, optional
            ``(k,)`` int: per contact, the position of a letter not to test (kept): the
            candidate's own, whose group holds ``tau`` when ``tau`` is in its ``T_c``.

        Returns
        -------
        list[numpy.ndarray]
            Per contact, ``(letters,)`` bool.
        """
        Z, z, kept, margin = self._at(banks, tau, keep)
        rows = self.rows()
        G, nv = rows.shape[0], self.n + 1
        if self.basis is None:
            self.basis = np.full((G, nv), -1, dtype=np.int64)
        if self._proved_again(Z, z, kept, margin):
            last = self._last
            assert last is not None  # set by _proved_again's proof
            return self._split(last[1])
        test = np.ones(G, dtype=bool)
        if keep is not None:
            test[np.cumsum(self.radix) - self.radix + np.asarray(keep, dtype=np.int64)] = False
        sel = test.nonzero()[0]
        K = sel.size
        rows = rows[sel]
        res = batchlp.simplex_batch(np.broadcast_to(self._cost, (K, nv)), Z[rows], z[rows], np.tile(self._lo, (K, 1)),
                                    np.tile(self._hi, (K, 1)), np.broadcast_to(self._art, (K, nv)), self.basis[sel])
        ok = res.status == lp.OPTIMAL
        self.basis[sel[ok]] = res.basis[ok]
        if counters is not None:
            counters.lps += K
        out = np.zeros(G, dtype=bool)
        out[sel[ok]] = -res.fun[ok] < -margin
        self._last = (kept, out, 0)
        return self._split(out)

    def _at(self, banks, tau, keep: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, bytes, float]:
        """``(Z, z, kept, margin)`` of a screen at ``tau``: the rows (``bank``), the kept letters as
        bytes (``_last``'s key) and the margin ``SCREEN_MARGIN · max(1, ‖τ‖∞)``."""
        tau = np.asarray(tau, dtype=float)
        Z, z = self.bank(banks, tau)
        kept = b"" if keep is None else np.asarray(keep, dtype=np.int64).tobytes()
        return Z, z, kept, tolerances.SCREEN_MARGIN * max(1.0, float(np.max(np.abs(tau), initial=0.0)))

    def _split(self, flat: np.ndarray) -> list[np.ndarray]:
        """Per contact, a copy of its letters' part of ``flat`` ``(groups,)``."""
        ends = np.cumsum(self.radix)
        return [flat[e - r:e].copy() for e, r in zip(ends.tolist(), self.radix.tolist())]

    def _proved_again(self, Z: np.ndarray, z: np.ndarray, kept: bytes, margin: float) -> bool:
        """Whether the last screen's exclusions (``_last``, for the same kept letters, fewer than
        ``SCREEN_REFRESH`` screens since its LPs) are each proved by its old basis on the rows
        ``Z``, ``z`` (``bank``) with ``margin`` (module doc); counts the screen when they are."""
        last = self._last
        if last is None or last[0] != kept or last[2] >= SCREEN_REFRESH or self.basis is None:
            return False
        sel = last[1].nonzero()[0]
        if sel.size == 0:
            return False
        r = self.rows()[sel]
        if not certified_slack(Z[r], z[r], self.basis[sel], self._cost, self._lo, self._hi, -margin).all():
            return False
        self._last = (kept, last[1], last[2] + 1)
        return True

    def last_exclusion(self) -> "Exclusion | None":
        """The last screen's exclusions as an ``Exclusion`` (``None`` before the first screen):
        what the next screen will try to prove again (``recertify``)."""
        if self._last is None:
            return None
        if self._exclusion is None or self._exclusion[0] is not self._last[1]:  # one object per screen's LPs
            self._exclusion = (self._last[1], Exclusion(self._split(self._last[1]), self.radix))
        return self._exclusion[1]

    def recertify(self, banks, tau, keep: np.ndarray | None = None) -> bool:
        """Whether the last screen's exclusions hold at ``tau`` and this state.

        Each proved by its old basis (module doc) for the same ``keep``; counted as a screen when they
        do.

        Parameters
        ----------
        banks : Banks
            The row banks of the state (``Structure.banks``).
        tau : numpy.ndarray
            ``(n_τ,)`` the torque, nondimensional.
        keep : numpy.ndarray, optional
            As in ``excluded``.

        Returns
        -------
        bool
            ``False`` also when no screen ran before.
        """
        if self._last is None:
            return False
        Z, z, kept, margin = self._at(banks, tau, keep)
        return self._proved_again(Z, z, kept, margin)

    def excluder(self, banks, tau, counters=None, keep: np.ndarray | None = None) -> "Exclusion":
        """The screen at ``tau`` (``excluded``) as ``exclude(level, ids) -> (len(ids),) bool``.

        The prefixes of length ``level`` (mixed-radix indices over ``radix[:level]``, first contact
        slowest, as ``contactmodes.realtime.prefix.PrefixPruning``) with an excluded letter, for
        ``PrefixPruning.candidates``; its LPs are solved here, once.

        Parameters
        ----------
        banks : Banks
            The row banks of the state (``Structure.banks``).
        tau : numpy.ndarray
            ``(n_τ,)`` the torque, nondimensional.
        counters : StepCounters, optional
            As in ``excluded``.
        keep : numpy.ndarray, optional
            As in ``excluded``.

        Returns
        -------
        Exclusion
            The left-out letters.
        """
        return Exclusion(self.excluded(banks, tau, counters, keep), self.radix)


class Exclusion:
    """The letters a screen left out, as ``PrefixPruning.candidates``' ``exclude``.

    Parameters
    ----------
    bad : list[numpy.ndarray]
        Per contact, ``(letters,)`` bool: the letters left out (``TorqueScreen.excluded``).
    radix : numpy.ndarray
        ``(k,)`` the number of letters of each contact.

    Attributes
    ----------
    key : bytes
        The left-out letters, for comparing two screens' exclusions (the prefix search reuses its
        last screened prunes under the same key: ``contactmodes.realtime.prefix``).
    """

    def __init__(self, bad: list[np.ndarray], radix: np.ndarray) -> None:
        self.bad = bad
        self.radix = radix
        self.key = np.concatenate(bad).tobytes() if bad else b""

    def __call__(self, level: int, ids: np.ndarray) -> np.ndarray:
        """The prefixes of length ``level`` with a left-out letter.

        Parameters
        ----------
        level : int
            The prefixes' length.
        ids : numpy.ndarray
            ``(P,)`` int, mixed-radix indices over ``radix[:level]`` (first contact slowest).

        Returns
        -------
        numpy.ndarray
            ``(len(ids),)`` bool.
        """
        codes = np.unravel_index(ids, tuple(self.radix[:level].tolist()))
        out = np.zeros(ids.size, dtype=bool)
        for i in range(level):
            out |= self.bad[i][codes[i]]
        return out
