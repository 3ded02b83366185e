"""Real-time layouts: the constant structure of a velocity pattern's modes, evaluated in batches.

A controller that analyses the same mechanism every millisecond (the RHex max-thrust controller,
flipping paper Sec. IV-B.2) meets the same *structure* over and over: while the velocity pattern
(Table III, ``key``) and the set of contacts are
unchanged, every candidate mode has the same rows (7)–(10), the same equalities (24), the same
inequalities (32) and the same kinematic test (Sec. III-F); only the numbers ``M, h, J, J̇q̇``
change. A ``Layout`` stores, once per pattern, index tables into per-step *row banks* (the
rows of ``contact_rows``, the one mode table, for every contact and
letter), so that one NumPy call assembles the matrices of every mode, and evaluates them for all
modes at once:

* **Kinematic feasibility** (Sec. III-F, footnote 5): the strict-slack LP of every candidate
  (``contactmodes.modes.enumeration.strict_slack``) in one ``polytopes.batchlp.solve_batch`` call,
  warm-started from the previous step's bases. An LP that answer leaves undecided (a slack within
  LP precision of the margin, an infeasibility within it — ``KINEMATIC_BAND_RTOL`` — or a
  certificate leaning on the box ``KINEMATIC_BOUND``) is solved
  again, compiled, in the unit box (``contactmodes.realtime.kinematic.unit_box``: decided as the enumeration decides
  its prefixes, or proved feasible by a verified point of a boxed restriction); what is still
  undecided goes to the enumeration's own LP (``contactmodes.modes.enumeration.strict_slack_of_rows``).
  ``Layout.kinematic`` takes every decision at once; ``Layout.kinematic_test`` stops after
  the batch and leaves the undecided candidates to ``KinematicTest.resolve`` (the same
  second solve and exact LP, for the candidates a caller needs: the RHex max-thrust controller
  resolves them only where its answer can depend on them).
* **Responses** (24)–(31) without an SVD per mode and step: each mode's pivot choice of its
  equalities (``contactmodes.modes.response.pivot_choices``, once per mode, cached in the
  ``Structure``) and ``contactmodes.modes.response.batched_responses``, the one response
  computation of the toolkit for many modes at once (certified to take the SVD's decisions, the
  SVD where a certificate fails; then the mode's pivots are re-chosen at the current numbers).
* **Domains** (33): the substituted rows of every mode with the cancellation rule of
  ``substituted_rows``, over ``z = (τ, w)`` padded to one width.

The ambiguity coordinates ``w`` of a layout are the free columns of the pivoting, not the
orthonormal null-space coordinates of a session: the torque sets ``T_c``, accelerations and
forces are the same, the ``w``-coordinates of ``D_c`` are not.

Everything here is nondimensional: the numbers come from ``contactmodes.model.scaling.scale_terms``
and every rank, consistency and feasibility decision is taken on them. Systems with task
*equalities* (whose response differs with and without the task) are not supported: use an
``AnalysisSession``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from polytopes import batchlp_kernel

from contactmodes import tolerances
from contactmodes.realtime import kernels
from contactmodes.realtime.kinematic import KinematicTest, kinematic_test
from contactmodes.realtime.prefix import PrefixPruning
from contactmodes.realtime.torque_screen import TorqueScreen
from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_conditions import VelocityPattern, contact_rows
from contactmodes.modes.contact_model import require_planar
from contactmodes.modes.response import BatchedResponses, batched_responses, pivot_choices
from contactmodes.model.scaling import ScaledTerms, scale_terms

__all__ = ["Structure", "Layout", "KinematicTest", "Responses", "Domains", "StepCounters", "KINEMATIC_BOUND",
           "W_BOUND", "domain_lp_rows", "scaled_terms", "terms_of"]

KINEMATIC_BOUND = tolerances.KINEMATIC_BOUND
"""Artificial bound on the nondimensional ``|q̈'|`` of the kinematic-slack LPs (an answer that
leans on it goes to the exact LP of ``polytopes.lp``)."""
W_BOUND = 1e3
"""Artificial bound on the ambiguity coordinates ``|w|`` in the domain LPs (same rule)."""


@dataclass(slots=True)
class StepCounters:
    """Work counts of one evaluation of a layout (e.g. one control step), each a number of LPs or
    responses.

    The plan adds to the counts it knows about when a ``counters`` object is passed
    (``Layout.kinematic_test``, ``KinematicTest.resolve``, ``Layout.kinematic``,
    ``Layout.responses``); a caller that solves LPs of its own on the plan's rows adds them
    to ``lps`` and ``fallback_lps``, and may subclass this class for counts of its own (the search
    of ``controllers.generic`` adds its projections).

    Attributes
    ----------
    lps : int
        LPs solved in batches (``polytopes.batchlp.simplex_batch``,
        ``solve_batch``): the ``N`` strict-slack LPs of each
        ``Layout.kinematic_test``, plus the caller's.
    second_solve_lps : int
        Undecided kinematic LPs that the second, unit-box solve decided (``contactmodes.realtime.kinematic.unit_box``), or
        that ``Layout.kinematic_test`` dropped on their first solve's certificate (pruned layouts).
    fallback_lps : int
        LPs handed to the exact solvers: kinematic LPs left to the enumeration's own LP
        (``strict_slack_of_rows``), plus the caller's LPs whose
        batched answer did not verify (``polytopes.lp.solve_verified``).
    responses : int
        Mode responses computed by ``Layout.responses``.
    svd_responses : int
        Of those, the ones whose certificate failed and which the SVD computed
        (``response_from_equations``).
    """

    lps: int = 0
    second_solve_lps: int = 0
    fallback_lps: int = 0
    responses: int = 0
    svd_responses: int = 0

    @property
    def fallbacks(self) -> int:
        """``fallback_lps + svd_responses``: the work handed to the exact solvers."""
        return self.fallback_lps + self.svd_responses


class Structure:
    """What stays fixed while a system moves (one per set of present contacts).

    Parameters
    ----------
    n_q : int
        Number of generalized coordinates.
    n_tau : int
        Number of actuators.
    contacts : Sequence[str]
        The ``k`` present contacts' names.
    mu : array_like
        ``(k,)`` friction coefficients.
    blocks : Sequence[tuple], optional
        Per constraint block ``(kind, type, n_rows)`` in system order (``"physical"`` or
        ``"task"``, ``"eq"`` or ``"geq"``).

    Raises
    ------
    ContactModelError
        For task equalities (their response differs with and without the task; module doc).

    Attributes
    ----------
    pivots : dict
        Per mode, the pivot choice of its equalities (24) (``pivot_choices``; module doc).
    layouts : dict
        Per velocity-pattern key, its ``Layout`` (``layout``).
    """

    def __init__(self, n_q: int, n_tau: int, contacts, mu, blocks=()) -> None:
        self.n_q, self.n_tau = int(n_q), int(n_tau)
        self.contacts = tuple(contacts)
        self.k = len(self.contacts)
        self.mu = np.asarray(mu, dtype=float).reshape(self.k)
        self.blocks = tuple((str(kd), str(tp), int(n)) for kd, tp, n in blocks)
        if any(kd == "task" and tp == "eq" for kd, tp, _ in self.blocks):
            raise ContactModelError("constraints: task equalities are not supported by contactmodes.realtime.plan "
                                    "(their response differs with and without the task); use AnalysisSession")
        self.n = self.n_q + 2 * self.k
        # constant force rows (eq. 8) and force inequalities (eq. 10), one bank entry per distinct row
        self.force_eq: list[tuple[int, float, float]] = []
        self.force_geq: list[tuple[int, float, float]] = []
        for i in range(self.k):
            for letter in "FSLR":
                for t_zero in (False, True):
                    rows = contact_rows(letter, float(self.mu[i]), t_zero, True)
                    for a_t, a_n in rows.force_eq:
                        if (i, a_t, a_n) not in self.force_eq:
                            self.force_eq.append((i, a_t, a_n))
                    for a_t, a_n in rows.force_geq:
                        if (i, a_t, a_n) not in self.force_geq:
                            self.force_geq.append((i, a_t, a_n))
        n, nt = self.n, self.n_tau
        self._Feq = np.zeros((len(self.force_eq), n))
        for j, (i, a_t, a_n) in enumerate(self.force_eq):
            self._Feq[j, self.n_q + 2 * i], self._Feq[j, self.n_q + 2 * i + 1] = a_t, a_n
        self._Fgeq = np.zeros((len(self.force_geq), n + nt))
        for j, (i, a_t, a_n) in enumerate(self.force_geq):
            self._Fgeq[j, self.n_q + 2 * i], self._Fgeq[j, self.n_q + 2 * i + 1] = a_t, a_n
        self.n_eq_rows = sum(r for kd, tp, r in self.blocks if tp == "eq")
        self.n_geq_rows = sum(r for kd, tp, r in self.blocks if tp == "geq")
        # equality bank: accel (2k) | force eq | eq blocks | dynamics (n_q)
        self.eq_force0 = 2 * self.k
        self.eq_block0 = self.eq_force0 + len(self.force_eq)
        self.eq_dyn0 = self.eq_block0 + self.n_eq_rows
        # inequality bank: accel ± (4k) | force geq | geq blocks (physical, then task) | null row
        self.geq_force0 = 4 * self.k
        self.geq_block0 = self.geq_force0 + len(self.force_geq)
        self.geq_null = self.geq_block0 + self.n_geq_rows
        task = []
        for kind in ("physical", "task"):
            for kd, tp, r in self.blocks:
                if tp == "geq" and kd == kind:
                    task += [kind == "task"] * r
        self.geq_task = np.array([False] * self.geq_block0 + task + [False], dtype=bool)
        self.pivots: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
        self.layouts: dict[tuple, "Layout"] = {}

    @classmethod
    def of(cls, system) -> "Structure":
        """The ``Structure`` of a ``ContactSystem`` (its sizes, contacts, friction and blocks).

        Parameters
        ----------
        system : ContactSystem
            Any system of the structure (its numbers are not kept).

        Returns
        -------
        Structure
            Sizes, contact names, friction coefficients and constraint blocks ``(kind, type, rows)``.

        Raises
        ------
        ContactModelError
            For a system whose contact model is not the planar one (``"real-time plan: planar
            contact systems only for now (issue 40)"``).
        """
        require_planar(system.contact_model, "real-time plan")
        return cls(system.n_q, system.n_tau, system.contacts, system.mu,
                   [(c.kind, c.type, c.n_rows) for c in system.constraints])

    def objective(self, qdd=None, force=None, tau=None) -> np.ndarray:
        """The objective vector ``Layout.responses`` takes, from its parts.

        Parameters
        ----------
        qdd : array_like, optional
            ``(n_q,)`` coefficients of ``q̈`` (default zero), nondimensional.
        force : array_like, optional
            ``(2k,)`` coefficients of ``f`` in the (t, n) per-contact order (default zero).
        tau : array_like, optional
            ``(n_τ,)`` coefficients of ``τ`` (default zero).

        Returns
        -------
        numpy.ndarray
            ``(n_q + 2k + n_τ,)`` the coefficients over ``(q̈, f, τ)``.

        Raises
        ------
        ValueError
            For a part of the wrong size (the message names it).
        """
        out = np.zeros(self.n + self.n_tau)
        for name, part, lo, size in (("qdd", qdd, 0, self.n_q), ("force", force, self.n_q, 2 * self.k),
                                     ("tau", tau, self.n, self.n_tau)):
            if part is None:
                continue
            v = np.asarray(part, dtype=float).reshape(-1)
            if v.shape != (size,):
                raise ValueError(f"{name}: expected {size} coefficients, got shape {v.shape}")
            out[lo:lo + size] = v
        return out

    def layout(self, pattern: VelocityPattern) -> "Layout":
        """The ``Layout`` of ``pattern`` (a ``VelocityPattern``; built once, then cached by its key).

        Parameters
        ----------
        pattern : VelocityPattern
            A state's velocity pattern (its ``key`` selects the layout).

        Returns
        -------
        Layout
            The same object for every pattern of one key.
        """
        key = pattern.key
        lay = self.layouts.get(key)
        if lay is None:
            lay = Layout(self, pattern)
            self.layouts[key] = lay
        return lay

    # ------------------------------------------------------------------ per-step banks
    def banks(self, t: ScaledTerms) -> "Banks":
        """The row banks (``Banks``) of one state's scaled terms ``t`` (``ScaledTerms``; module doc).

        Parameters
        ----------
        t : ScaledTerms
            One state's nondimensional terms (``scaled_terms``).

        Returns
        -------
        Banks
            The state's equality and inequality banks (module doc), nondimensional.
        """
        k, n_q, nt, n = self.k, self.n_q, self.n_tau, self.n
        J, c = t.J, t.Jdot_qdot
        # equalities: accel (2k) | force eq | eq blocks | dynamics (n_q)
        A = np.zeros((self.eq_dyn0 + n_q, n))
        Bm = np.zeros((self.eq_dyn0 + n_q, nt))
        b = np.zeros(self.eq_dyn0 + n_q)
        A[:2 * k, :n_q] = J
        A[self.eq_force0:self.eq_block0] = self._Feq
        b[:2 * k] = -c
        i = self.eq_block0
        for (kd, tp, r), (q, f, tau, rhs) in zip(self.blocks, t.blocks):
            if tp == "eq":
                A[i:i + r, :n_q], A[i:i + r, n_q:] = q, f
                Bm[i:i + r] = -tau
                b[i:i + r] = rhs
                i += r
        A[self.eq_dyn0:, :n_q] = t.M
        A[self.eq_dyn0:, n_q:] = -J.T
        Bm[self.eq_dyn0:] = t.S
        b[self.eq_dyn0:] = -t.h
        # inequalities: accel ± (4k) | force geq | geq blocks (physical, then task) | null row
        N = np.zeros((self.geq_null + 1, n + nt))
        e = np.zeros(self.geq_null + 1)
        unit = np.empty(self.geq_null + 1)
        N[:2 * k, :n_q] = J
        N[2 * k:4 * k, :n_q] = -J
        e[:2 * k] = -c
        e[2 * k:4 * k] = c
        N[self.geq_force0:self.geq_block0] = self._Fgeq
        unit[:4 * k] = t.acceleration
        unit[self.geq_force0:self.geq_block0] = t.force
        i = self.geq_block0
        for kind in ("physical", "task"):
            for (kd, tp, r), (q, f, tau, rhs), rho in zip(self.blocks, t.blocks, t.rows):
                if tp == "geq" and kd == kind:
                    N[i:i + r, :n_q], N[i:i + r, n_q:n], N[i:i + r, n:] = q, f, tau
                    e[i:i + r] = rhs
                    unit[i:i + r] = rho
                    i += r
        e[-1] = -1.0
        unit[-1] = 1.0
        return Banks(A, Bm, b, N, e, J, c, unit)


@dataclass
class Banks:
    """Row banks of one state, nondimensional (``Structure.banks``).

    Attributes
    ----------
    A : numpy.ndarray
        ``(E, n)`` equalities ``A x = B τ + b`` over ``x = (q̈, f)``, ``n = n_q + 2k``.
    B : numpy.ndarray
        ``(E, n_τ)`` their τ-coefficients.
    b : numpy.ndarray
        ``(E,)`` their constants.
    N : numpy.ndarray
        ``(I, n + n_τ)`` inequalities ``N (x, τ) >= e``.
    e : numpy.ndarray
        ``(I,)`` their right-hand sides.
    J : numpy.ndarray
        ``(2k, n_q)`` the contact Jacobian.
    c : numpy.ndarray
        ``(2k,)`` ``J̇q̇``.
    unit : numpy.ndarray
        ``(I,)`` the unit of each inequality row: the user's row is ``unit`` times the scaled one
        (the characteristic acceleration for contact accelerations, force for contact forces,
        the row divisor for constraint rows).
    """

    A: np.ndarray
    B: np.ndarray
    b: np.ndarray
    N: np.ndarray
    e: np.ndarray
    J: np.ndarray
    c: np.ndarray
    unit: np.ndarray


@dataclass(kw_only=True)
class Responses(BatchedResponses):
    """Batched responses of the modes ``index`` (positions in ``Layout.modes``), nondimensional
    (``Layout.responses``): the arrays of ``contactmodes.modes.response.BatchedResponses``
    (``[q̈; f] = P τ + Q w + r``, its attributes ``P`` … ``repivoted``; ``unique`` is decided for
    the objective given to ``Layout.responses``), and the objective evaluated on them.

    Attributes
    ----------
    index : numpy.ndarray
        ``(B,)`` positions in ``Layout.modes``.
    grad : numpy.ndarray
        ``(B, n_τ)`` the objective's τ-coefficients ``c_xᵀ P + c_τ`` (meaningful where ``unique``).
    offset : numpy.ndarray
        ``(B,)`` the objective's constant ``c_xᵀ r``.
    """

    index: np.ndarray
    grad: np.ndarray
    offset: np.ndarray


@dataclass
class Domains:
    """Substituted inequalities (33) ``A z <= b`` over ``z = (τ, w)`` (``Layout.domains``).

    Attributes
    ----------
    A : numpy.ndarray
        ``(B, p, n_τ + s)`` the rows.
    b : numpy.ndarray
        ``(B, p)`` the right-hand sides.
    task : numpy.ndarray
        ``(B, p)`` bool, the task rows.
    valid : numpy.ndarray
        ``(B, p)`` bool, the real (non-padding) rows.
    unit : numpy.ndarray
        ``(B, p)`` each row's unit (``Banks``).
    """

    A: np.ndarray
    b: np.ndarray
    task: np.ndarray
    valid: np.ndarray
    unit: np.ndarray


class Layout:
    """The candidate modes of one velocity pattern and their index tables (module doc).

    Parameters
    ----------
    structure : Structure
        The structure of the present contacts.
    pattern : VelocityPattern
        The velocity pattern (Table III).

    Attributes
    ----------
    modes : list[str]
        The Table III candidates in product order over ``"FSLR"`` (first contact slowest, as
        ``enumerate_modes``).
    eq_rows : numpy.ndarray
        ``(N, m)`` bank rows of each mode's equalities.
    geq_rows : numpy.ndarray
        ``(N, p)`` bank rows of its inequalities (padding: the null row).
    kin_eq : numpy.ndarray
        ``(N, pe)`` signed Jacobian rows of the kinematic test's equalities (−1: padding).
    kin_geq : numpy.ndarray
        ``(N, pg)`` likewise for its inequalities.
    kin_bank, kin_rhs : numpy.ndarray
        ``(8k + 1, n_q + 1)`` and ``(8k + 1,)``: the per-step bank of the kinematic LPs' rows
        ``J | 0, −J | 0, −J | 1, J | 1`` and the padding row, and their right-hand sides (filled
        at each step by ``contactmodes.realtime.kinematic``; the ``s`` column and the padding
        row are constant).
    basis : dict
        Warm starts kept from the previous evaluation.
    """

    def __init__(self, structure: Structure, pattern: VelocityPattern) -> None:
        st = structure
        self.structure = st
        self.pattern = pattern
        k = st.k
        per_contact = []
        for i in range(k):
            opts = []
            for letter in pattern.allowed[i]:
                rows = contact_rows(letter, float(st.mu[i]), bool(pattern.t_zero[i]), bool(pattern.n_zero[i]))
                eq = [2 * i + cp for cp in rows.accel_eq]
                eq += [st.eq_force0 + st.force_eq.index((i, a_t, a_n)) for a_t, a_n in rows.force_eq]
                geq = [(2 * i + cp) + (0 if sg > 0 else 2 * k) for cp, sg in rows.accel_geq]
                geq += [st.geq_force0 + st.force_geq.index((i, a_t, a_n)) for a_t, a_n in rows.force_geq]
                kin_eq = [2 * i + cp for cp in rows.accel_eq]
                kin_geq = [(2 * i + cp) + (0 if sg > 0 else 2 * k) for cp, sg in rows.accel_geq]
                opts.append((letter, eq, geq, kin_eq, kin_geq))
            per_contact.append(opts)
        self.options = per_contact
        self._prefix: PrefixPruning | None = None
        self._screen: TorqueScreen | None = None
        modes: list[str] = []
        eq_rows: list[list[int]] = []
        geq_rows: list[list[int]] = []
        kin_eqs: list[list[int]] = []
        kin_geqs: list[list[int]] = []
        fixed_eq = list(range(st.eq_block0, st.eq_dyn0)) + list(range(st.eq_dyn0, st.eq_dyn0 + st.n_q))
        fixed_geq = list(range(st.geq_block0, st.geq_null))
        for combo in itertools.product(*per_contact):
            modes.append("".join(o[0] for o in combo))
            eq_rows.append([r for o in combo for r in o[1]] + fixed_eq)
            geq_rows.append([r for o in combo for r in o[2]] + fixed_geq)
            kin_eqs.append([r for o in combo for r in o[3]])
            kin_geqs.append([r for o in combo for r in o[4]])
        self.modes = modes
        self.position = {m: i for i, m in enumerate(modes)}
        self.eq_rows = np.array(eq_rows, dtype=int)
        self.geq_rows = _pad(geq_rows, st.geq_null)
        self.kin_eq = _pad(kin_eqs, -1)
        self.kin_geq = _pad(kin_geqs, -1)
        self.geq_task = st.geq_task[self.geq_rows]
        self.geq_valid = self.geq_rows != st.geq_null
        self.basis: dict[str, np.ndarray] = {}
        # kinematic LP over (q̈, s): row indices into the per-step bank of ``kin_bank``
        N, n_q = len(modes), st.n_q
        ke = np.where(self.kin_eq >= 0, self.kin_eq, -1)
        kg = np.where(self.kin_geq >= 0, self.kin_geq, -1)
        null = 8 * k
        self.kin_rows = np.concatenate([np.where(ke >= 0, ke, null), np.where(ke >= 0, 2 * k + ke, null),
                                        np.where(kg >= 0, 4 * k + kg, null)], axis=1)
        nv = n_q + 1
        self.kin_cost = np.zeros((N, nv))
        self.kin_cost[:, -1] = -1.0
        self.kin_lo = np.full((N, nv), -KINEMATIC_BOUND)
        self.kin_hi = np.full((N, nv), KINEMATIC_BOUND)
        self.kin_hi[:, -1] = 1.0
        # s <= 1 is the enumeration's cap; s >= −bound is kept as a real bound: a claim resting on
        # it proves s* <= −bound or no point at all, either way the mode is pruned
        self.kin_art = np.ones((N, nv), dtype=bool)
        self.kin_art[:, -1] = False
        # the per-step bank of the kinematic LPs' rows (filled by ``kinematic``): J | 0, −J | 0,
        # −J | 1, J | 1 (2k rows each) and the padding row
        self.kin_bank = np.zeros((8 * k + 1, nv))
        self.kin_bank[4 * k:8 * k, -1] = 1.0
        self.kin_rhs = np.zeros(8 * k + 1)
        # pivot choices of (24), mirrored from the structure's cache (module doc)
        m = self.eq_rows.shape[1]
        self.piv_rows = np.zeros((N, m), dtype=int)
        self.piv_cols = np.zeros((N, st.n), dtype=int)
        self.piv_rank = np.zeros(N, dtype=int)
        self.piv_known = np.zeros(N, dtype=bool)
        self.piv_inv = np.zeros((N, st.n), dtype=int)
        # the rows and pivots of a set of modes gathered for ``responses``, by the set's index
        # bytes: the same candidates recur step after step (cleared when a pivot changes)
        self._gathered: dict[bytes, tuple] = {}

    def _set_pivots(self, index: list[int], pivs: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
        """Record the pivot choices ``pivs`` of the modes at ``index`` (positions in ``modes``) in
        the structure's cache and in this layout's arrays, one NumPy call per array."""
        i = np.asarray(index, dtype=int)
        for m, piv in zip(index, pivs):
            self.structure.pivots[self.modes[m]] = piv
        cols = np.array([piv[1] for piv in pivs], dtype=int)
        self.piv_rows[i] = np.take_along_axis(self.eq_rows[i], np.array([piv[0] for piv in pivs], dtype=int), axis=1)
        self.piv_cols[i] = cols
        self.piv_rank[i] = [piv[2] for piv in pivs]
        self.piv_inv[i] = np.argsort(cols, axis=1)
        self.piv_known[i] = True
        self._gathered.clear()

    # ------------------------------------------------------------------ kinematic test
    def kinematic(self, banks: Banks, counters: StepCounters | None = None, kernel: str = "auto",
                  prune: bool | None = None) -> np.ndarray:
        """The candidates that are kinematically feasible (Sec. III-F, footnote 5).

        Decided as ``acceleration_feasible`` decides them (module doc): ``kinematic_test`` with
        every candidate the batch leaves undecided resolved at once.

        Parameters
        ----------
        banks : Banks
            The row banks of the state.
        counters : StepCounters, optional
            As in ``kinematic_test``.
        kernel : str, optional
            ``"numpy"`` (the reference: rows from a signed bank, the NumPy simplex),
            ``"compiled"`` (``kinematic_rows_kernel``, the compiled simplex,
            ``kinematic_decide_kernel``) or ``"auto"`` (compiled when numba is installed).
        prune : bool, optional
            As in ``kinematic_test`` (the same decisions either way).

        Returns
        -------
        numpy.ndarray
            ``(N,)`` bool over ``modes``.
        """
        test = self.kinematic_test(banks, counters, kernel, prune)
        test.resolve(test.pending())
        return test.feasible

    def kinematic_test(self, banks: Banks, counters: StepCounters | None = None,
                       kernel: str = "auto", prune: bool | None = None, exclude=None,
                       subset: np.ndarray | None = None) -> "KinematicTest":
        """The first stage of ``kinematic``: footnote 5's strict-slack LPs of the candidates in one
        warm-started batch, pruned by prefixes for large layouts
        (``contactmodes.realtime.kinematic.kinematic_test``, which documents the stages, the
        arguments — the screen ``exclude`` and the ``subset`` — and the errors).

        Parameters
        ----------
        banks : Banks
            The row banks of the state.
        counters : StepCounters, optional
            Counted into (``kinematic_test``).
        kernel : str, optional
            ``"auto"``, ``"numpy"`` or ``"compiled"``.
        prune : bool, optional
            Prune by prefixes; ``None``: for large layouts.
        exclude : callable, optional
            A screen of prefixes (``contactmodes.realtime.torque_screen``).
        subset : numpy.ndarray, optional
            Test only these candidates (positions in ``modes``).

        Returns
        -------
        KinematicTest
            Its ``decided`` candidates are final; ``KinematicTest.resolve`` decides the others.

        Raises
        ------
        ValueError
            For an unknown ``kernel``.
        """
        return kinematic_test(self, banks, counters, kernel, prune, exclude, subset)

    @property
    def prefix_pruning(self) -> PrefixPruning:
        """The layout's ``contactmodes.realtime.prefix.PrefixPruning`` (built on first use by the
        kinematic test, ``contactmodes.realtime.kinematic``; it keeps its pruned prefixes' rows
        from step to step)."""
        if self._prefix is None:
            self._prefix = PrefixPruning(self)
        return self._prefix

    @property
    def screen(self) -> TorqueScreen:
        """The layout's ``contactmodes.realtime.torque_screen.TorqueScreen`` (built on first use;
        it keeps its groups' warm starts and its last exclusions from step to step)."""
        if self._screen is None:
            self._screen = TorqueScreen(self)
        return self._screen

    # ------------------------------------------------------------------ responses
    def responses(self, banks: Banks, index: np.ndarray, objective, counters: StepCounters | None = None,
                  kernel: str = "auto") -> Responses:
        """Responses (24)–(31) of the modes at positions ``index`` (module doc) through
        ``contactmodes.modes.response.batched_responses``, and a linear objective on each.

        Parameters
        ----------
        banks : Banks
            The row banks of the state (``Structure.banks``).
        index : numpy.ndarray
            ``(B,)`` int, positions in ``modes``.
        objective : numpy.ndarray
            ``(n_q + 2k + n_τ,)`` the coefficients of a linear objective ``J = c_q·q̈ + c_f·f +
            c_τ·τ`` over ``(q̈, f, τ)`` in the plan's nondimensional units (``f`` in the (t, n)
            per-contact order). Any objective of any system; the plan assumes nothing about it
            (the RHex max-thrust controller passes the unit vector of its pitch acceleration).
            ``Responses.unique`` tells, per mode, whether ``J`` is unique (does not depend on the
            ambiguity variables ``w``, III-G.2), ``Responses.grad`` and ``Responses.offset``
            give ``J = grad·τ + offset`` where it is.
        counters : StepCounters, optional
            ``responses`` += the modes computed (none for an empty ``index``), ``svd_responses``
            += those the SVD computed.
        kernel : str, optional
            ``"numpy"`` (the reference, ``contactmodes.modes._pivot_response``), ``"compiled"``
            (the same computation compiled) or ``"auto"`` (default: compiled when numba is
            installed).

        Returns
        -------
        Responses
            The batch, in the order of ``index``.

        Raises
        ------
        ValueError
            For an ``objective`` of the wrong size or an unknown ``kernel``.
        """
        st = self.structure
        n, nt, m = st.n, st.n_tau, self.eq_rows.shape[1]
        c = np.asarray(objective, dtype=float).reshape(-1)
        if c.shape != (n + nt,):
            raise ValueError(f"objective: expected {n + nt} coefficients on (q̈, f, τ), got shape {c.shape}")
        index = np.asarray(index, dtype=int)
        Bn = index.size
        s = max(m, n)
        if Bn == 0:
            z = np.zeros((0,))
            return Responses(np.zeros((0, n, nt)), np.zeros((0, n, s)), np.zeros((0, n)),
                             np.zeros((0, s), bool), np.zeros((0, nt, nt)), np.zeros((0, nt)),
                             np.zeros((0, nt), bool), z.astype(bool), z.astype(bool), z.astype(int), z.astype(bool),
                             index=index, grad=np.zeros((0, nt)), offset=z.copy())
        key = index.tobytes()
        gathered = self._gathered.get(key)
        if gathered is None:  # (an entry is only made once every pivot of its modes is known)
            known = self.piv_known[index]
            if not known.all():  # the structure's cached choices, the others chosen together
                todo = index[~known].tolist()
                pivs: list = [st.pivots.get(self.modes[i]) for i in todo]  # (None: not chosen yet)
                new = [a for a, piv in enumerate(pivs) if piv is None]
                if new:
                    chosen = pivot_choices(banks.A[self.eq_rows[[todo[a] for a in new]]], kernel=kernel)
                    for a, piv in zip(new, chosen):
                        pivs[a] = piv
                self._set_pivots(todo, pivs)
            gathered = (self.eq_rows[index], self.piv_rows[index], self.piv_cols[index], self.piv_rank[index],
                        self.piv_inv[index])
            if len(self._gathered) >= 16:  # bounded (a snake's entry is about 0.4 MB)
                self._gathered.clear()
            self._gathered[key] = gathered
        cx = c[:n]
        rows, prow, pcol, prank, pinv = gathered
        out = batched_responses(banks.A, banks.B, banks.b, rows, prow, pcol, prank, pinv, st.n_q, cx, kernel=kernel,
                                modes=_Names(self.modes, index))
        if out.repivoted:
            self._set_pivots([int(index[j]) for j in out.repivoted], list(out.repivoted.values()))
        if counters is not None:
            counters.responses += int(Bn)
            counters.svd_responses += len(out.repivoted)
        nz = c.nonzero()[0]
        i = int(nz[0]) if nz.size == 1 else -1
        if 0 <= i < n:  # one term on (q̈, f) (RHex's θ̈): its row, the same numbers, cheaper
            ci = float(c[i])
            grad, offset = out.P[:, i, :] * ci, out.r[:, i] * ci
        else:
            grad = np.einsum("a,bat->bt", cx, out.P) + c[n:]
            offset = np.einsum("a,ba->b", cx, out.r)
        return Responses(out.P, out.Q, out.r, out.wfree, out.C, out.d, out.cvalid, out.consistent, out.unique,
                         out.n_w, out.certified, out.repivoted, index=index, grad=grad, offset=offset)

    # ------------------------------------------------------------------ domains (33)
    def domains(self, banks: Banks, resp: Responses, kernel: str = "auto") -> Domains:
        """The substituted inequalities (33) of the modes of ``resp``, cancellation noise zeroed
        as ``substituted_rows`` does.

        Parameters
        ----------
        banks : Banks
            The row banks of the state.
        resp : Responses
            The modes' responses (``responses``).
        kernel : str, optional
            As in ``responses`` (the NumPy computation below is the reference).

        Returns
        -------
        Domains
            The rows over ``z = (τ, w)``, padded to one width.

        Raises
        ------
        ValueError
            For an unknown ``kernel``.
        """
        st = self.structure
        n = st.n
        rows = self.geq_rows[resp.index]
        if batchlp_kernel.kernel_choice(kernel) == "compiled":
            Bn, p = rows.shape
            A = np.empty((Bn, p, st.n_tau + resp.Q.shape[2]))
            b = np.empty((Bn, p))
            kernels.domains_kernel(banks.N, banks.e, rows, n, resp.P, resp.Q, resp.r, A, b)
            return Domains(A, b, self.geq_task[resp.index], self.geq_valid[resp.index], banks.unit[rows])
        N, e = banks.N[rows], banks.e[rows]
        Nx, Nt = N[:, :, :n], N[:, :, n:]
        nN = np.sqrt(np.sum(Nx ** 2, axis=2))[:, :, None]
        coef_tau = Nx @ resp.P + Nt
        Pn = np.sqrt(np.sum(resp.P ** 2, axis=1))[:, None, :]
        coef_tau[np.abs(coef_tau) <= tolerances.CANCEL_RTOL * (nN * Pn + np.abs(Nt))] = 0.0
        coef_w = Nx @ resp.Q
        Qn = np.sqrt(np.sum(resp.Q ** 2, axis=1))[:, None, :]
        coef_w[np.abs(coef_w) <= tolerances.CANCEL_RTOL * (nN * Qn)] = 0.0
        rhs = e - np.einsum("bpn,bn->bp", Nx, resp.r)
        rn = np.sqrt(np.sum(resp.r ** 2, axis=1))[:, None]
        rhs[np.abs(rhs) <= tolerances.CANCEL_RTOL * (np.abs(e) + nN[:, :, 0] * rn)] = 0.0
        return Domains(-np.concatenate([coef_tau, coef_w], axis=2), -rhs, self.geq_task[resp.index],
                       self.geq_valid[resp.index], banks.unit[rows])


def domain_lp_rows(resp: Responses, dom: Domains, sel: np.ndarray, lo, hi, task: bool = True,
                   kernel: str = "auto", width: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows of one LP per mode over the lifted domain ``D_c ∩ {lo <= τ <= hi}`` in ``z = (τ, w)``
    (no projection), in the form of ``polytopes.batchlp.simplex_batch``.

    ``G z <= h`` with ``G = [A; C; −C]``, ``h = [b; d; −d]``: the domain (33), its task rows
    replaced by ``0 <= 1`` when ``task`` is false, and the valid rows of (31) as two
    inequalities each; the box ``lo``, ``hi`` on τ and the artificial box ``|w| <= W_BOUND`` on
    the real ambiguity columns.

    Parameters
    ----------
    resp : Responses
        The modes' responses.
    dom : Domains
        Their domains (33).
    sel : array_like
        ``(K,)`` positions in ``resp``/``dom``.
    lo : array_like
        ``(n_τ,)`` lower torque bounds (nondimensional).
    hi : array_like
        ``(n_τ,)`` upper torque bounds.
    task : bool, optional
        Keep the task rows (default).
    kernel : str, optional
        As in ``Layout.responses`` (the NumPy computation below is the reference).
    width : int, optional
        ``v``, the number of ``w`` columns of the LPs (default ``s``, the padded width of
        ``resp``), at least the largest ``n_w`` of ``sel``; each mode's real ambiguity columns
        come first, in their order, the remaining ones are fixed at 0 (the padding columns of
        ``D_c`` are zero, so the LP is the same; a narrower ``v`` makes it smaller).

    Returns
    -------
    tuple
        ``(G (K, p + 2n_τ, n_τ + v), h (K, p + 2n_τ), lo (K, n_τ + v), hi (K, n_τ + v),
        artificial (K, n_τ + v))``.

    Raises
    ------
    ValueError
        For a ``width`` below a mode's ``n_w`` or above ``s``, or an unknown ``kernel``.
    """
    sel = np.asarray(sel, dtype=np.int64)
    K, p = sel.size, dom.A.shape[1]
    nt, s = resp.C.shape[1], resp.wfree.shape[1]
    v = s if width is None else int(width)
    wf = resp.wfree[sel]
    if v > s or v < int(wf.sum(axis=1).max(initial=0)):
        raise ValueError(f"width: must lie between the modes' largest n_w and {s}, got {v}")
    if batchlp_kernel.kernel_choice(kernel) == "compiled":
        G, h = np.empty((K, p + 2 * nt, nt + v)), np.empty((K, p + 2 * nt))
        lo_, hi_, art = np.empty((K, nt + v)), np.empty((K, nt + v)), np.empty((K, nt + v), dtype=bool)
        kernels.domain_lp_kernel(dom.A, dom.b, dom.task, resp.C, resp.d, resp.cvalid, resp.wfree, sel,
                                       np.asarray(lo, dtype=float), np.asarray(hi, dtype=float), bool(task),
                                       float(W_BOUND), G, h, lo_, hi_, art)
        return G, h, lo_, hi_, art
    A, b = dom.A[sel], dom.b[sel]
    if not task:
        drop = dom.task[sel]
        A = np.where(drop[:, :, None], 0.0, A)
        b = np.where(drop, 1.0, b)
    cols = np.argsort(~wf, axis=1, kind="stable")[:, :v]  # each mode's real w columns first
    used = np.take_along_axis(wf, cols, axis=1)
    Aw = np.where(used[:, None, :], np.take_along_axis(A[:, :, nt:], cols[:, None, :], axis=2), 0.0)
    cv = resp.cvalid[sel]
    Cm = resp.C[sel] * cv[:, :, None]
    dm = resp.d[sel] * cv
    G = np.zeros((K, p + 2 * nt, nt + v))
    G[:, :p, :nt] = A[:, :, :nt]
    G[:, :p, nt:] = Aw
    G[:, p:p + nt, :nt] = Cm
    G[:, p + nt:, :nt] = -Cm
    h = np.concatenate([b, dm, -dm], axis=1)
    lo_ = np.empty((K, nt + v))
    hi_ = np.empty((K, nt + v))
    lo_[:, :nt], hi_[:, :nt] = lo, hi
    lo_[:, nt:] = -W_BOUND * used
    hi_[:, nt:] = W_BOUND * used
    art = np.zeros((K, nt + v), dtype=bool)
    art[:, nt:] = used
    return G, h, lo_, hi_, art


def scaled_terms(M, h, S, J, Jdot_qdot, v_contact, v0, scales, blocks=(), kernel: str = "auto") -> ScaledTerms:
    """``contactmodes.model.scaling.scale_terms`` (the one rule, arguments and result the same) in
    one compiled call, for callers that scale one state per control step.

    The kernel (``scale_terms_kernel``) does the same operations elementwise, so it gives the
    same numbers (compared in ``tests/contactmodes/realtime/test_layout.py``).

    Parameters
    ----------
    M, h, S, J, Jdot_qdot, v_contact, v0 : numpy.ndarray
        The state's terms in user units, as for ``scale_terms``.
    scales : CharacteristicScales
        The system's scales.
    blocks : Sequence[tuple], optional
        ``(qdd, f, tau, rhs)`` of each constraint block.
    kernel : str, optional
        ``"numpy"`` calls ``scale_terms`` itself, ``"compiled"`` the kernel, ``"auto"`` (default)
        the kernel when numba is installed.

    Returns
    -------
    ScaledTerms
        The scaled terms.

    Raises
    ------
    ValueError
        For an unknown ``kernel``.
    """
    if batchlp_kernel.kernel_choice(kernel) == "numpy":
        return scale_terms(M, h, S, J, Jdot_qdot, v_contact, v0, scales, blocks)
    f = np.ascontiguousarray
    blocks = list(blocks)
    n_q, nt, k2 = M.shape[0], S.shape[1], J.shape[0]
    if not blocks:  # (empty rows: what the stacks below give)
        Bq, Bf, Bt, Br = np.zeros((0, n_q)), np.zeros((0, k2)), np.zeros((0, nt)), np.zeros(0)
    elif len(blocks) == 1:
        Bq, Bf, Bt, Br = (f(x, dtype=float) for x in blocks[0])
    else:
        Bq = f(np.vstack([b[0] for b in blocks] + [np.zeros((0, n_q))]), dtype=float)
        Bf = f(np.vstack([b[1] for b in blocks] + [np.zeros((0, k2))]), dtype=float)
        Bt = f(np.vstack([b[2] for b in blocks] + [np.zeros((0, nt))]), dtype=float)
        Br = f(np.concatenate([b[3] for b in blocks] + [np.zeros(0)]), dtype=float)
    A = scales.acceleration
    out = kernels.scale_terms_kernel(
        f(M, dtype=float), f(h, dtype=float), f(S, dtype=float), f(J, dtype=float), f(Jdot_qdot, dtype=float),
        f(v_contact, dtype=float), f(v0, dtype=float), float(scales.length), float(scales.mass), float(A),
        float(scales.force), float(scales.velocity), Bq, Bf, Bt, Br)
    s, g, u, Ms, hs, Ss, Js, cs, vs, v0s, q, fo, ta, rh, rho = out
    parts, rows, i = [], [], 0
    for b in blocks:
        r = len(b[3])
        parts.append((q[i:i + r], fo[i:i + r], ta[i:i + r], rh[i:i + r]))
        rows.append(rho[i:i + r])
        i += r
    return ScaledTerms(s, g, u, scales.force, A, scales.velocity, Ms, hs, Ss, Js, cs, vs, v0s, tuple(parts),
                       tuple(rows))


def terms_of(system) -> ScaledTerms:
    """The ``ScaledTerms`` of a ``ContactSystem``: the numbers its session decides on.

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any consistent units).

    Returns
    -------
    ScaledTerms
        The nondimensional terms (``contactmodes.model.scaling.scale_terms``).

    Raises
    ------
    ContactModelError
        For a system whose contact model is not the planar one (``require_planar``).
    """
    require_planar(system.contact_model, "real-time plan")
    return scale_terms(system.M, system.h, system.S, system.J, system.Jdot_qdot, system.v_contact, system.v0,
                       system.scales, [(c.qdd, c.f, c.tau, c.rhs) for c in system.constraints])


def _pad(lists, fill: int) -> np.ndarray:
    width = max((len(x) for x in lists), default=0)
    return np.array([x + [fill] * (width - len(x)) for x in lists], dtype=int).reshape(len(lists), width)


class _Names:
    """The names of the modes ``index`` of a layout, looked up only when asked (the SVD fallback's labels)."""

    def __init__(self, modes, index) -> None:
        self.modes, self.index = modes, index

    def __getitem__(self, j: int) -> str:
        return self.modes[int(self.index[j])]
