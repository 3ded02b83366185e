"""Mode-specific dynamic response (flipping paper, Sec. III-D, eqs. 24–31): by SVD, and batched.

For a contact mode ``c`` the unknowns are ``x = [q̈; f]`` (length ``n = n_q + n_f``, ``n_f =
n_components · k`` the contact-force components of the system's contact model: ``2k`` planar,
``3k`` spatial). The equality constraints of the mode are stacked into (24)/(25), ``A x = B τ +
b``, and the inequalities into (32), ``N [q̈; f; τ] >= e`` (``mode_equations``, rows from the
contact model's ``rows``). The SVD ``A = U Σ Vᵀ`` gives

    x = A⁺ (B τ + b) + N(A) w,          valid for τ with  U_⊥ᵀ (B τ + b) = 0        (27)–(31)

with ``N(A)`` an orthonormal null-space basis, ``w ∈ R^{n_w}`` the ambiguity variables and the
admissible torque subspace (31) stored as ``tau_C τ = tau_d``.

Many modes at once: ``batched_responses`` computes the same responses for a batch of modes
sharing one bank of rows, through each mode's pivot block instead of an SVD, certified to take the
SVD's decisions and falling back to ``response_from_equations`` where a certificate fails (the
real-time plans, ``contactmodes.realtime.plan``, call it every control step). Its NumPy reference
is ``contactmodes.modes._pivot_response``, its compiled form (numba, the optional ``compiled``
extra) ``contactmodes.modes.response_kernels``.

Units: ``solve_response`` takes every rank and consistency decision on the nondimensionalized
system (``contactmodes.model.scaling``) and maps the result back; ``w`` are the null-space coordinates
*of the nondimensional problem* (so ``N(A)`` is orthonormal there, not in user units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from polytopes import stacked_svd

from contactmodes import tolerances
from contactmodes._linalg import numerical_rank, numerical_ranks
from contactmodes.errors import ContactModelError
from contactmodes.modes.constraints import ModeEquations, mode_equations
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.model.system import ContactSystem
from contactmodes.modes import _pivot_response

__all__ = ["BatchedResponses", "ModeEquations", "ModeResponse", "batched_responses", "mode_equations", "mode_qdd",
           "numerical_rank", "pivot_choice", "pivot_choices", "responses_from_equations", "solve_response"]


BATCH = 256
"""``responses_from_equations`` stacks at most this many modes at once (a cost knob: the
stacked SVD's arrays are about ``BATCH · (m² + n²)`` floats)."""


def _clean(values: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """Zero the entries of ``values`` that are cancellation noise relative to ``magnitude``."""
    out = np.asarray(values, dtype=float)  # callers pass fresh products: cleaned in place
    out[np.abs(out) <= tolerances.CANCEL_RTOL * magnitude] = 0.0
    return out


@dataclass
class ModeResponse:
    """Affine response of one mode (eqs. 26–31). ``n = n_q + n_f``, ``m`` equality rows.

    Attributes
    ----------
    mode : str
        The mode string.
    equations : ModeEquations
        The ``ModeEquations`` (in the units of this response).
    singular_values : numpy.ndarray
        ``(min(m, n),)`` singular values of the nondimensional ``A``, descending.
    rank : int
        Numerical rank of ``A`` (``numerical_rank``, nondimensional).
    full_row_rank, full_column_rank : bool
        ``rank == m``, ``rank == n`` respectively.
    rank_case : int
        1 (f.r.r. and f.c.r.), 2 (f.r.r. only), 3 (f.c.r. only), 4 (neither).
    nullspace : numpy.ndarray
        ``(n, n_w)`` the ``w``-coefficients of ``[q̈; f]`` (columns span ``N(A)``; orthonormal
        in the nondimensional variables, ``contactmodes.model.scaling``).
    n_w : int
        Number of ambiguity variables ``n − rank``.
    P_q, Q_q, r_q : numpy.ndarray
        Shapes ``(n_q, n_τ)``, ``(n_q, n_w)``, ``(n_q,)``: ``q̈ = P_q τ + Q_q w + r_q``.
    P_f, Q_f, r_f : numpy.ndarray
        Shapes ``(n_f, n_τ)``, ``(n_f, n_w)``, ``(n_f,)``: ``f = P_f τ + Q_f w + r_f``.
    tau_C, tau_d : numpy.ndarray
        Shapes ``(p, n_τ)``, ``(p,)``: admissible torque subspace (31) ``tau_C τ = tau_d``; ``p = 0``
        when every τ is admissible.
    consistent : bool
        ``False`` if no τ satisfies (31) (then the mode has no solution at all).
    w_moves_accelerations : bool
        ``w`` changes ``q̈`` (III-G.2): ``max |Q_q'| > AMBIGUITY_ATOL`` with
        ``Q_q'`` the nondimensional, orthonormal block.
    w_moves_forces : bool
        Likewise for ``f``.
    """

    mode: str
    equations: ModeEquations = field(repr=False)
    singular_values: np.ndarray
    rank: int
    full_row_rank: bool
    full_column_rank: bool
    rank_case: int
    nullspace: np.ndarray = field(repr=False)
    n_w: int
    P_q: np.ndarray = field(repr=False)
    Q_q: np.ndarray = field(repr=False)
    r_q: np.ndarray = field(repr=False)
    P_f: np.ndarray = field(repr=False)
    Q_f: np.ndarray = field(repr=False)
    r_f: np.ndarray = field(repr=False)
    tau_C: np.ndarray
    tau_d: np.ndarray
    consistent: bool
    w_moves_accelerations: bool
    w_moves_forces: bool

    @property
    def P(self) -> np.ndarray:
        """(n, n_τ) the τ-coefficients of ``[q̈; f]``."""
        return np.vstack([self.P_q, self.P_f])

    @property
    def Q(self) -> np.ndarray:
        """(n, n_w) the w-coefficients of ``[q̈; f]``."""
        return np.vstack([self.Q_q, self.Q_f])

    @property
    def r(self) -> np.ndarray:
        """(n,) the constant part of ``[q̈; f]``."""
        return np.concatenate([self.r_q, self.r_f])

    def tau_admissible(self, tau, tol: float | None = None) -> bool:
        """Whether ``tau`` satisfies the admissible torque equalities (31), ``tau_C τ = tau_d``.

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` torques, in the units of this response (nondimensional for the session's scaled
            responses, the system's units after ``in_units``).
        tol : float, optional
            Largest admissible ``|tau_C τ − tau_d|`` (same units); default
            ``CONSISTENCY_RTOL · max(1, max|τ|, max|tau_d|)``.

        Returns
        -------
        bool
            ``False`` for an inconsistent mode; ``True`` when every τ is admissible.
        """
        tau = np.asarray(tau, dtype=float)
        if not self.consistent:
            return False
        if self.tau_C.shape[0] == 0:
            return True
        if tol is None:
            tol = tolerances.CONSISTENCY_RTOL * max(1.0, float(np.abs(tau).max(initial=0.0)),
                                                    float(np.abs(self.tau_d).max(initial=0.0)))
        return bool(np.abs(self.tau_C @ tau - self.tau_d).max() <= tol)

    def evaluate(self, tau, w=None) -> tuple[np.ndarray, np.ndarray]:
        """``(q̈, f)`` of the response (eqs. 26–29) for torques ``tau`` and ambiguity variables ``w``.

        Meaningful when ``tau`` satisfies (31) (``tau_admissible``); otherwise this is the least-squares
        solution of the nondimensional (25).

        Parameters
        ----------
        tau : array_like
            ``(n_τ,)`` torques, in the units of this response.
        w : array_like, optional
            ``(n_w,)`` ambiguity variables (nondimensional null-space coordinates); default 0.

        Returns
        -------
        qdd : numpy.ndarray
            ``(n_q,)`` generalized accelerations.
        f : numpy.ndarray
            ``(n_f,)`` contact forces, the contact model's components per contact (planar ``(f_t, f_n)``).

        Raises
        ------
        ValueError
            On a wrong shape of ``tau`` or ``w``.
        """
        tau = np.asarray(tau, dtype=float).reshape(-1)
        w = np.zeros(self.n_w) if w is None else np.asarray(w, dtype=float).reshape(-1)
        if tau.shape != (self.P_q.shape[1],):
            raise ValueError(f"tau: expected shape ({self.P_q.shape[1]},), got {tau.shape}")
        if w.shape != (self.n_w,):
            raise ValueError(f"w: expected shape ({self.n_w},), got {w.shape}")
        return self.P_q @ tau + self.Q_q @ w + self.r_q, self.P_f @ tau + self.Q_f @ w + self.r_f

    def in_units(self, scaling, equations: ModeEquations) -> "ModeResponse":
        """This response (computed on ``scaling.system``) in the user's units.

        ``[q̈; f]`` scaled by ``scaling.x``, τ by ``scaling.tau``; ``w`` unchanged.

        Parameters
        ----------
        scaling : Scaling
            The system's ``contactmodes.model.scaling.Scaling``.
        equations : ModeEquations
            The mode's equations in the user's units (stored on the result).

        Returns
        -------
        ModeResponse
            A new response in the system's units.
        """
        dx, du = scaling.x, scaling.tau
        n_q = self.P_q.shape[0]
        P = dx[:, None] * self.P / du[None, :]
        Q = dx[:, None] * self.Q
        r = dx * self.r
        return ModeResponse(
            mode=self.mode, equations=equations, singular_values=self.singular_values, rank=self.rank,
            full_row_rank=self.full_row_rank, full_column_rank=self.full_column_rank,
            rank_case=self.rank_case, nullspace=Q, n_w=self.n_w,
            P_q=P[:n_q], Q_q=Q[:n_q], r_q=r[:n_q], P_f=P[n_q:], Q_f=Q[n_q:], r_f=r[n_q:],
            tau_C=self.tau_C / du[None, :], tau_d=self.tau_d.copy(), consistent=self.consistent,
            w_moves_accelerations=self.w_moves_accelerations, w_moves_forces=self.w_moves_forces)


def response_from_equations(eqs: ModeEquations) -> ModeResponse:
    """Solve the equalities (25) of ``eqs`` by SVD (Sec. III-D) *in the units of* ``eqs``.

    The building block of ``solve_response`` and of the analysis session, which call it on
    nondimensionalized systems only (so that its relative rank and consistency rules are
    unit-invariant). ``responses_from_equations`` of one mode.

    Parameters
    ----------
    eqs : ModeEquations
        The mode's equations (normally of the nondimensional system).

    Returns
    -------
    ModeResponse
        The response (eqs. 26–31) in the units of ``eqs``.
    """
    return responses_from_equations([eqs])[0]


def responses_from_equations(eqs_list: Sequence[ModeEquations]) -> list[ModeResponse]:
    """``response_from_equations`` of every mode of ``eqs_list``, the modes with equalities of
    the same shape (and then the same rank) solved together: one stacked SVD (LAPACK on each
    matrix, as for one mode) and stacked products, so each response is the one the mode gets alone,
    bit for bit on this NumPy (``tests/contactmodes/modes/test_response.py`` compares them).

    Rank rule ``numerical_rank``; the noise in a product ``X Y`` is
    bounded by ``eps·‖X row‖·‖Y col‖`` (Cauchy–Schwarz; ``‖A⁺‖₂ = 1/s_r``) and cleaned to zero
    below ``CANCEL_RTOL`` times that bound; the admissible torque subspace (31) ``U_⊥ᵀ (B τ + b) =
    0`` is made orthonormal by a second SVD, and ``consistent`` is ``False`` when its residual
    exceeds ``CONSISTENCY_RTOL`` times the data's scale.

    Parameters
    ----------
    eqs_list : Sequence[ModeEquations]
        The modes' equations (normally of the nondimensional system).

    Returns
    -------
    list[ModeResponse]
        One response per entry, in order, in the units of the equations.
    """
    out: list[ModeResponse | None] = [None] * len(eqs_list)
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, eqs in enumerate(eqs_list):
        groups.setdefault((*eqs.A.shape, eqs.B.shape[1]), []).append(i)
    chunks = [(key, idx[j:j + BATCH]) for key, idx in groups.items() for j in range(0, len(idx), BATCH)]
    for (m, n, _), idx in chunks:  # bounded memory: at most BATCH modes' arrays at a time
        A = np.array([eqs_list[i].A for i in idx])
        U, s, Vt = stacked_svd(A)  # LAPACK per matrix, large stacks shared by threads
        ranks: dict[int, list[int]] = {}
        for g, r in enumerate(numerical_ranks(s, (m, n)).tolist()):
            ranks.setdefault(r, []).append(g)
        for r, pos in ranks.items():
            sub = [eqs_list[idx[g]] for g in pos]
            for g, resp in zip(pos, _same_rank(sub, U[pos], s[pos], Vt[pos], r)):
                out[idx[g]] = resp
    return out  # type: ignore[return-value]


def _same_rank(eqs_list: list[ModeEquations], U: np.ndarray, s: np.ndarray, Vt: np.ndarray,
               r: int) -> list[ModeResponse]:
    """The responses (24)–(31) of modes whose ``A`` (G stacked, (m, n) each) share their shape and
    rank ``r``, from their SVDs ``U`` (G, m, m), ``s`` (G, min(m, n)), ``Vt`` (G, n, n)."""
    G = len(eqs_list)
    m, n = eqs_list[0].A.shape
    n_q, n_tau = eqs_list[0].n_q, eqs_list[0].n_tau
    B = np.array([e.B for e in eqs_list])
    b = np.array([e.b for e in eqs_list])
    T = lambda X: np.swapaxes(X, 1, 2)  # noqa: E731
    A_pinv = (T(Vt[:, :r]) / s[:, None, :r]) @ T(U[:, :, :r])  # (G, n, m)
    null = T(Vt[:, r:])  # (G, n, n_w)
    frr, fcr = r == m, r == n
    rank_case = 1 if (frr and fcr) else 2 if frr else 3 if fcr else 4

    # Noise in a product X Y is bounded by eps·‖X row‖·‖Y col‖ (Cauchy–Schwarz); ‖A⁺‖₂ = 1/s_r.
    pinv_norm = 1.0 / s[:, r - 1] if r else np.zeros(G)
    nB = np.sqrt(np.einsum("gij,gij->gj", B, B))[:, None, :]  # column norms of B, and the norm of b
    nb = np.array([float(np.sqrt(v @ v)) for v in b])
    P = _clean(A_pinv @ B, pinv_norm[:, None, None] * nB)
    rvec = _clean((A_pinv @ b[:, :, None])[:, :, 0], (pinv_norm * nb)[:, None])
    Q = null.copy()
    Q[np.abs(Q) <= tolerances.CANCEL_RTOL] = 0.0

    # admissible torque subspace (31): U_perp^T (B tau + b) = 0 (U_perp has orthonormal columns)
    U_perp = U[:, :, r:]
    C0 = _clean(T(U_perp) @ B, nB)
    d0 = -_clean((T(U_perp) @ b[:, :, None])[:, :, 0], nb[:, None])
    if C0.shape[1] and C0.size:
        U2, s2, V2t = np.linalg.svd(C0, full_matrices=True)
    out = []
    amb = tolerances.AMBIGUITY_ATOL  # does w move the accelerations, the forces (per mode)
    moves_q = (np.abs(Q[:, :n_q]).max(axis=(1, 2), initial=0.0) > amb).tolist()
    moves_f = (np.abs(Q[:, n_q:]).max(axis=(1, 2), initial=0.0) > amb).tolist()
    data_scale = np.maximum(np.maximum(1.0, np.abs(b).max(axis=1, initial=0.0)),
                            np.abs(B).max(axis=(1, 2), initial=0.0)).tolist()
    for g, eqs in enumerate(eqs_list):
        consistent = True
        tau_C = np.zeros((0, n_tau))
        tau_d = np.zeros(0)
        if C0.shape[1]:
            if C0.size:
                U2g, s2g, V2tg = U2[g], s2[g], V2t[g]
            else:
                U2g, s2g, V2tg = np.eye(C0.shape[1]), np.zeros(0), np.eye(n_tau)
            r2 = numerical_rank(s2g, C0.shape[1:]) if s2g.size else 0
            resid = U2g[:, r2:].T @ d0[g]
            if resid.size and float(np.abs(resid).max()) > tolerances.CONSISTENCY_RTOL * data_scale[g]:
                consistent = False
            if r2:
                tau_C = V2tg[:r2].copy()
                tau_d = (U2g[:, :r2].T @ d0[g]) / s2g[:r2]
                tau_C[np.abs(tau_C) <= tolerances.CANCEL_RTOL] = 0.0
        Q_q, Q_f = Q[g, :n_q], Q[g, n_q:]
        out.append(ModeResponse(
            mode=eqs.mode, equations=eqs, singular_values=s[g], rank=r, full_row_rank=frr,
            full_column_rank=fcr, rank_case=rank_case, nullspace=null[g], n_w=n - r,
            P_q=P[g, :n_q], Q_q=Q_q, r_q=rvec[g, :n_q], P_f=P[g, n_q:], Q_f=Q_f, r_f=rvec[g, n_q:],
            tau_C=tau_C, tau_d=tau_d, consistent=consistent,
            w_moves_accelerations=moves_q[g], w_moves_forces=moves_f[g],
        ))
    return out


@dataclass
class BatchedResponses:
    """The responses (24)–(31) of ``B`` modes computed together (``batched_responses``),
    nondimensional, ``n = n_q + n_f``, ``s = max(m, n)`` padded ambiguity columns.

    ``[q̈; f] = P τ + Q w + r`` with ``w`` the *pivot* ambiguity coordinates (the free columns of
    each mode's pivoting, not the orthonormal null-space coordinates of ``ModeResponse``: the
    torque sets, accelerations and forces are the same, the ``w``-coordinates are not, except
    for the modes the SVD computed, whose first ``n_w`` columns are ``ModeResponse.Q``).

    Attributes
    ----------
    P : numpy.ndarray
        ``(B, n, n_τ)`` τ-coefficients of ``[q̈; f]``.
    Q : numpy.ndarray
        ``(B, n, s)`` w-coefficients (zero outside the real ambiguity columns).
    r : numpy.ndarray
        ``(B, n)`` constant part of ``[q̈; f]``.
    wfree : numpy.ndarray
        ``(B, s)`` bool, the real ambiguity columns of each mode.
    C : numpy.ndarray
        ``(B, n_τ, n_τ)`` admissible torques (31) ``C τ = d``, on the rows marked by ``cvalid``.
    d : numpy.ndarray
        ``(B, n_τ)`` right-hand sides of (31).
    cvalid : numpy.ndarray
        ``(B, n_τ)`` bool, the real rows of ``C``, ``d``.
    consistent : numpy.ndarray
        ``(B,)`` bool, some τ satisfies (31).
    unique : numpy.ndarray
        ``(B,)`` bool, ``cᵀ Q = 0`` for the objective ``c`` of ``batched_responses``: the objective
        does not depend on ``w`` (III-G.2).
    n_w : numpy.ndarray
        ``(B,)`` int, number of ambiguity variables.
    certified : numpy.ndarray
        ``(B,)`` bool, computed by the certified pivot path; the others by the SVD.
    repivoted : dict
        ``{position: (rows, columns, rank)}``: for every mode the SVD computed, the pivot choice
        (``pivot_choice``) of its equalities at the current numbers (positions in the batch; row
        indices local to the mode's rows), for the caller to use at the next call.
    """

    P: np.ndarray
    Q: np.ndarray
    r: np.ndarray
    wfree: np.ndarray
    C: np.ndarray
    d: np.ndarray
    cvalid: np.ndarray
    consistent: np.ndarray
    unique: np.ndarray
    n_w: np.ndarray
    certified: np.ndarray
    repivoted: dict = field(default_factory=dict)


def pivot_choice(A) -> tuple[np.ndarray, np.ndarray, int]:
    """The pivot choice ``batched_responses`` expects for a mode's equalities ``A`` (m, n).

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the nondimensional equality matrix (24) of one mode.

    Returns
    -------
    tuple
        ``(rows (m,), columns (n,), rank)``: the SVD rank rule (``numerical_rank``), then pivoted
        QR for ``rank`` independent columns and, among them, ``rank`` independent rows, first in
        each order.
    """
    return _pivot_response.choose_pivots(np.asarray(A, dtype=float))


def pivot_choices(As, kernel: str = "auto") -> list[tuple[np.ndarray, np.ndarray, int]]:
    """``pivot_choice`` of each matrix of a stack, the same integers, computed together.

    Parameters
    ----------
    As : numpy.ndarray
        ``(B, m, n)`` the nondimensional equality matrices (24) of ``B`` modes with the same number
        of rows (a layout's modes).
    kernel : str, optional
        ``"numpy"`` (``contactmodes.modes._pivot_response.choose_pivots_many``: one batched SVD for
        the ranks, one ``geqp3`` call per pivoted QR), ``"compiled"``
        (``contactmodes.modes.response_kernels.pivots_kernel``: the same LAPACK calls in a
        compiled loop, the rank proved from the QR's ``R`` without an SVD, the matrices it cannot
        prove by the NumPy path) or ``"auto"`` (default: compiled when numba is installed).

    Returns
    -------
    list
        ``B`` tuples ``(rows (m,), columns (n,), rank)``, each the one ``pivot_choice`` gives
        for its matrix.

    Raises
    ------
    ValueError
        For a stack that is not 3-D or has a non-finite entry, or an unknown ``kernel``.
    """
    As = np.asarray(As, dtype=float)
    compiled = _compiled_kernels(kernel)
    routines = None if compiled is None else compiled.lapack()
    if routines is None or As.ndim != 3 or 0 in As.shape or not np.isfinite(As).all():
        return _pivot_response.choose_pivots_many(As)  # (its errors for a wrong or non-finite stack)
    Bn, m, n = As.shape
    rows, cols = np.empty((Bn, m), np.int64), np.empty((Bn, n), np.int64)
    rank, ok = np.empty(Bn, np.int64), np.empty(Bn, np.bool_)
    compiled.pivots_kernel(routines[0], np.ascontiguousarray(As), tolerances.RANK_RTOL * max(m, n),
                           tolerances.PIVOT_CERT_GAP, rows, cols, rank, ok)
    out = [(rows[i], cols[i], int(rank[i])) for i in range(Bn)]
    for i in (~ok).nonzero()[0].tolist():  # the rank not proved from R: the SVD rule
        out[i] = _pivot_response.choose_pivots(As[i])
    return out


_kernels = None  # contactmodes.modes.response_kernels once imported (it imports numba, about 0.5 s)


def _compiled_kernels(kernel: str):
    """``contactmodes.modes.response_kernels`` when ``kernel`` resolves to the compiled one
    (``polytopes.batchlp_kernel.kernel_choice``), else ``None``: numba is imported only by the
    calls that use it (an analysis of a few modes never does). Raises ``ValueError`` for an
    unknown ``kernel``."""
    global _kernels
    if kernel == "numpy":
        return None
    if _kernels is None:
        from contactmodes.modes import response_kernels

        _kernels = response_kernels
    return _kernels if _kernels.batchlp_kernel.kernel_choice(kernel) == "compiled" else None


def batched_responses(A, B, b, rows, pivot_rows, pivot_cols, pivot_rank, pivot_inv, n_q: int, objective, *,
                      kernel: str = "auto", modes=None) -> BatchedResponses:
    """The response (24)–(31) for many modes at once; falls back to ``response_from_equations``
    (SVD) where a certificate fails.

    The modes share one bank of nondimensional equality rows ``A x = B τ + b`` (``x = (q̈, f)``);
    each mode is given by its rows of the bank and a pivot choice (``pivot_choice``, typically
    cached across calls). Per mode the pivot block ``A₁₁`` is inverted and ``x_C = A₁₁⁻¹(B_R τ +
    b_R − A₁₂ w)``, ``x_C̄ = w``; the rank decision, the rank and consistency of (31) and the
    uniqueness of the objective are *certified* to be the ones the SVD rule of
    ``response_from_equations`` takes (``contactmodes.modes._pivot_response``). Where a
    certificate fails, that mode is computed by ``response_from_equations`` on the same rows (in
    their given order) and its pivots re-chosen (``BatchedResponses.repivoted``). Decisions are
    taken on the given (nondimensional) numbers.

    Parameters
    ----------
    A : numpy.ndarray
        ``(E, n)`` equality bank, ``n = n_q + n_f``.
    B : numpy.ndarray
        ``(E, n_τ)`` its τ-coefficients.
    b : numpy.ndarray
        ``(E,)`` its constants.
    rows : numpy.ndarray
        ``(N, m)`` int, each mode's bank rows in their natural order (the SVD fallback's).
    pivot_rows : numpy.ndarray
        ``(N, m)`` int, each mode's bank rows in pivot order (``rows[pivot_choice(...)[0]]``).
    pivot_cols : numpy.ndarray
        ``(N, n)`` int, each mode's column order.
    pivot_rank : numpy.ndarray
        ``(N,)`` int, each mode's rank.
    pivot_inv : numpy.ndarray
        ``(N, n)`` int, the inverse permutations of ``pivot_cols``.
    n_q : int
        Number of generalized coordinates.
    objective : numpy.ndarray
        ``(n,)`` the coefficients ``c`` of a linear objective ``cᵀ x`` over ``x = (q̈, f)`` (a
        τ-term never depends on ``w``): ``BatchedResponses.unique`` tells whether ``cᵀ x`` is
        the same for every ``w`` (III-G.2: ``cᵀ Q = 0``, decided on ``c / ‖c‖₂`` with the SVD
        rule ``max |cᵀ N(A)| <= AMBIGUITY_ATOL`` on the orthonormal null space, certified on the
        pivot basis). A unit vector asks whether one component is unique (the RHex pitch
        acceleration); zero makes every mode unique.
    kernel : str, optional
        ``"numpy"`` (the reference), ``"compiled"`` (``contactmodes.modes.response_kernels``,
        the same computation compiled by numba) or ``"auto"`` (default: compiled when numba, the
        optional ``compiled`` extra, is installed; the NumPy path otherwise).
    modes : Sequence[str], optional
        The modes' names, indexable by position in the batch (labels of the SVD fallback's
        ``ModeEquations`` only).

    Returns
    -------
    BatchedResponses
        The ``N`` responses in the given order.

    Raises
    ------
    ValueError
        For an unknown ``kernel``.
    """
    rows = np.asarray(rows, dtype=int)
    Bn, m = rows.shape
    n, nt = A.shape[1], B.shape[1]
    cobj = np.asarray(objective, dtype=float).reshape(-1)
    norm = float(np.sqrt(cobj @ cobj)) if cobj.shape == (n,) else math.nan
    if not math.isfinite(norm):  # a wrong size, or a NaN or infinite coefficient
        raise ValueError(f"objective: expected {n} finite coefficients on (q̈, f), got shape {cobj.shape}")
    cobj = np.ascontiguousarray(cobj / norm if norm > 0.0 else cobj)
    s = max(m, n)
    if Bn == 0:
        z = np.zeros((0,))
        return BatchedResponses(np.zeros((0, n, nt)), np.zeros((0, n, s)), np.zeros((0, n)), np.zeros((0, s), bool),
                                np.zeros((0, nt, nt)), np.zeros((0, nt)), np.zeros((0, nt), bool), z.astype(bool),
                                z.astype(bool), z.astype(int), z.astype(bool))
    compiled = _compiled_kernels(kernel)
    if compiled is not None:
        out = BatchedResponses(np.empty((Bn, n, nt)), np.empty((Bn, n, s)), np.empty((Bn, n)),
                               np.empty((Bn, s), bool), np.empty((Bn, nt, nt)), np.empty((Bn, nt)),
                               np.empty((Bn, nt), bool), np.empty(Bn, bool), np.empty(Bn, bool),
                               np.empty(Bn, np.int64), np.empty(Bn, bool))
        compiled.responses_kernel(A, B, b, pivot_rows, pivot_cols, pivot_rank, pivot_inv, m, n, cobj,
                                           out.P, out.Q, out.r, out.wfree, out.C, out.d, out.cvalid,
                                           out.consistent, out.unique, out.n_w, out.certified)
    else:
        out = BatchedResponses(*_pivot_response.pivot_responses(A, B, b, pivot_rows, pivot_cols, pivot_rank,
                                                                 pivot_inv, m, n, cobj))
    for j in (~out.certified).nonzero()[0].tolist():
        _svd_entry(out, j, A, B, b, rows[j], n_q, cobj, "" if modes is None else modes[j])
    return out


def _svd_entry(out: BatchedResponses, j: int, Abank, Bbank, bbank, rows, n_q: int, cobj: np.ndarray,
               mode: str) -> None:
    """Fill entry ``j`` of ``out`` from the SVD response of the bank rows ``rows`` and re-choose
    its pivots (``batched_responses``)."""
    A = Abank[rows]
    n, nt = A.shape[1], Bbank.shape[1]
    eqs = ModeEquations(mode, A, Bbank[rows], bbank[rows], [], np.zeros((0, n + nt)), np.zeros(0), [], n_q, n - n_q,
                        nt)
    resp: ModeResponse = response_from_equations(eqs)
    out.repivoted[j] = _pivot_response.choose_pivots(A)
    out.P[j] = resp.P
    out.r[j] = resp.r
    out.Q[j] = 0.0
    out.Q[j, :, :resp.n_w] = resp.Q
    out.wfree[j] = False
    out.wfree[j, :resp.n_w] = True
    out.n_w[j] = resp.n_w
    out.C[j] = 0.0
    out.d[j] = 0.0
    out.cvalid[j] = False
    p = resp.tau_C.shape[0]
    out.C[j, :p] = resp.tau_C
    out.d[j, :p] = resp.tau_d
    out.cvalid[j, :p] = True
    out.consistent[j] = resp.consistent
    out.unique[j] = not (resp.n_w and np.abs(cobj @ resp.Q).max() > tolerances.AMBIGUITY_ATOL)
    out.certified[j] = False


def solve_response(system: ContactSystem, mode: str, task: bool = True) -> ModeResponse:
    """The response of ``mode`` (Sec. III-D, eqs. 24–31) in the user's units.

    Every decision is taken on the nondimensionalized system (``contactmodes.model.scaling``); see
    ``ModeResponse``.

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any consistent units).
    mode : str
        One letter of ``"FSLR"`` per contact.
    task : bool, optional
        Include the task constraints (eqs. 15–18).

    Returns
    -------
    ModeResponse
        In the system's units (``w`` the nondimensional null-space coordinates).

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of ``system``.
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    sc = system.scaling
    scaled = response_from_equations(mode_equations(sc.system, mode, task=task))
    if sc.is_identity:
        return scaled
    return scaled.in_units(sc, mode_equations(system, mode, task=task))


def mode_qdd(system: ContactSystem, mode: str, tau, task: bool = False) -> np.ndarray | None:
    """The acceleration ``q̈`` of ``mode`` under the torques ``tau`` when the mode's equalities fix
    it (Sec. III-D): the response (24)–(31) of the nondimensional system evaluated at ``tau``.

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any units).
    mode : str
        One letter of ``"FSLR"`` per contact.
    tau : array_like
        ``(n_τ,)`` the torques (the system's units).
    task : bool, optional
        Include the task equalities (eqs. 15–16); default ``False`` (the physical model only).

    Returns
    -------
    numpy.ndarray or None
        ``(n_q,)`` ``q̈`` in the system's units; ``None`` when ``tau`` violates the admissible
        torque equalities (31) (the mode has no solution at ``tau``:
        ``ModeResponse.tau_admissible``) or the ambiguity variables move ``q̈``
        (``w_moves_accelerations``, III-G.2). The forces may still be ambiguous (two sticking
        contacts of one body). Every decision is taken on the nondimensional system.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of ``system`` or ``tau`` has the wrong shape.
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    t = np.asarray(tau, dtype=float).reshape(-1)
    if t.shape != (system.n_tau,):
        raise ContactModelError(f"tau: expected {system.n_tau} values (one per actuator), got shape {t.shape}")
    sc = system.scaling
    scaled = response_from_equations(mode_equations(sc.system, mode, task=task))
    t_s = sc.tau_from_user(t)
    if scaled.w_moves_accelerations or not scaled.tau_admissible(t_s):
        return None
    return (scaled.P_q @ t_s + scaled.r_q) * sc.qdd
