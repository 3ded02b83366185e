"""Mode-specific dynamic response by SVD (flipping paper, Sec. III-D, eqs. 24–31).

For a contact mode ``c`` the unknowns are ``x = [q̈; f]`` (length ``n = n_q + 2k``). The equality
constraints of the mode are stacked into (24)/(25), ``A x = B τ + b``, and the inequalities into
(32), ``N [q̈; f; τ] >= e`` (``mode_equations``, rows from
``contact_rows``). The SVD ``A = U Σ Vᵀ`` gives

    x = A⁺ (B τ + b) + N(A) w,          valid for τ with  U_⊥ᵀ (B τ + b) = 0        (27)–(31)

with ``N(A)`` an orthonormal null-space basis, ``w ∈ R^{n_w}`` the ambiguity variables and the
admissible torque subspace (31) stored as ``tau_C τ = tau_d``.

Units: ``solve_response`` takes every rank and consistency decision on the nondimensionalized
system (``contactmodes.model.scaling``) and maps the result back; ``w`` are the null-space coordinates
*of the nondimensional problem* (so ``N(A)`` is orthonormal there, not in user units).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from contactmodes import tolerances
from contactmodes._linalg import numerical_rank, numerical_ranks
from contactmodes.modes.constraints import ModeEquations, mode_equations
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.model.system import ContactSystem

__all__ = ["ModeEquations", "ModeResponse", "mode_equations", "numerical_rank", "responses_from_equations",
           "solve_response"]


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
    """Affine response of one mode (eqs. 26–31). ``n = n_q + 2k``, ``m`` equality rows.

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
        Shapes ``(2k, n_τ)``, ``(2k, n_w)``, ``(2k,)``: ``f = P_f τ + Q_f w + r_f``.
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
        """Whether ``tau`` (n_τ,) satisfies (31): ``|tau_C τ − tau_d|`` at most ``tol`` (default
        ``CONSISTENCY_RTOL · max(1, max|τ|, max|tau_d|)`` in the units of this response)."""
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
        """``(q̈, f)`` for torques ``tau`` (n_τ,) and ambiguity variables ``w`` (n_w,; default 0).

        Meaningful when ``tau`` satisfies (31) (``tau_admissible``); otherwise this is the
        least-squares solution of the nondimensional (25). Raises ``ValueError`` on wrong shapes.
        """
        tau = np.asarray(tau, dtype=float).reshape(-1)
        w = np.zeros(self.n_w) if w is None else np.asarray(w, dtype=float).reshape(-1)
        if tau.shape != (self.P_q.shape[1],):
            raise ValueError(f"tau: expected shape ({self.P_q.shape[1]},), got {tau.shape}")
        if w.shape != (self.n_w,):
            raise ValueError(f"w: expected shape ({self.n_w},), got {w.shape}")
        return self.P_q @ tau + self.Q_q @ w + self.r_q, self.P_f @ tau + self.Q_f @ w + self.r_f

    def in_units(self, scaling, equations: ModeEquations) -> "ModeResponse":
        """This response (computed on ``scaling.system``) in the user's units: ``[q̈; f]`` scaled by
        ``scaling.x``, τ by ``scaling.tau``; ``w`` unchanged; ``equations`` are the user's."""
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
    """
    out: list[ModeResponse | None] = [None] * len(eqs_list)
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, eqs in enumerate(eqs_list):
        groups.setdefault((*eqs.A.shape, eqs.B.shape[1]), []).append(i)
    chunks = [(key, idx[j:j + BATCH]) for key, idx in groups.items() for j in range(0, len(idx), BATCH)]
    for (m, n, _), idx in chunks:  # bounded memory: at most BATCH modes' arrays at a time
        A = np.array([eqs_list[i].A for i in idx])
        U, s, Vt = np.linalg.svd(A, full_matrices=True)
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


def solve_response(system: ContactSystem, mode: str, task: bool = True) -> ModeResponse:
    """The response of ``mode`` (Sec. III-D, eqs. 24–31) in the user's units, every decision taken
    on the nondimensionalized system (``contactmodes.model.scaling``); see ``ModeResponse``.

    Raises ``ContactModelError`` when ``mode`` is not a mode of
    ``system``.
    """
    validate_mode(mode, system.contacts)
    sc = system.scaling
    scaled = response_from_equations(mode_equations(sc.system, mode, task=task))
    if sc.is_identity:
        return scaled
    return scaled.in_units(sc, mode_equations(system, mode, task=task))
