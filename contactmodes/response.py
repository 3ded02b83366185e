"""Mode-specific dynamic response by SVD (flipping paper, Sec. III-D, eqs. 24–31).

For a contact mode ``c`` the unknowns are ``x = [q̈; f]`` (length ``n = n_q + 2k``). The equality
constraints of the mode are stacked into (24)/(25), ``A x = B τ + b``, and the inequalities into
(32), ``N [q̈; f; τ] >= e`` (see :func:`mode_equations`). :func:`solve_response` solves (25) by the
SVD ``A = U Σ Vᵀ``:

    x = A⁺ (B τ + b) + N(A) w,          valid for τ with  U_⊥ᵀ (B τ + b) = 0        (27)–(31)

where ``N(A)`` is an orthonormal null-space basis (columns), ``w ∈ R^{n_w}`` the ambiguity
variables and ``U_⊥`` the left null space; the latter condition is the admissible torque subspace
(31), stored as ``tau_C τ = tau_d``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import tolerances
from .modes import validate_mode, velocity_is_zero
from .system import ContactSystem


def numerical_rank(singular_values, shape: tuple[int, int]) -> int:
    """Numerical rank of a matrix of ``shape`` from its singular values.

    Rule: ``rank = #{ s_i > RANK_RTOL · max(shape) · s_max }`` (NumPy's ``matrix_rank`` rule with
    the machine epsilon replaced by :data:`~contactmodes.tolerances.RANK_RTOL`); ``0`` when there
    are no singular values or all are zero.
    """
    s = np.asarray(singular_values, dtype=float)
    if s.size == 0 or float(s.max()) <= 0.0:
        return 0
    return int(np.sum(s > tolerances.RANK_RTOL * max(shape) * float(s.max())))


@dataclass
class ModeEquations:
    """The linear constraints of one mode (eqs. 24 and 32). ``n = n_q + 2k``.

    Attributes
    ----------
    mode : the mode string.
    A : (m, n) coefficients of ``[q̈; f]`` in the equalities ``A [q̈; f] = B τ + b``.
    B : (m, n_τ).
    b : (m,).
    eq_labels : (m,) human-readable row labels (e.g. ``"accel t c0"``, ``"dynamics q1"``).
    N : (p, n + n_τ) coefficients of ``[q̈; f; τ]`` in the inequalities ``N [q̈; f; τ] >= e``.
    e : (p,).
    ineq_labels : (p,) row labels.
    n_q, n_f, n_tau : block sizes (``n_f = 2k``).
    """

    mode: str
    A: np.ndarray
    B: np.ndarray
    b: np.ndarray
    eq_labels: list[str]
    N: np.ndarray
    e: np.ndarray
    ineq_labels: list[str]
    n_q: int
    n_f: int
    n_tau: int


def mode_equations(system: ContactSystem, mode: str, task: bool = True) -> ModeEquations:
    """Assemble the equalities (24) and inequalities (32) of ``mode``.

    Equalities, in this row order:

    1. acceleration (eq. 7), per contact: ``F`` rows ``t`` and ``n``, ``L``/``R`` row ``n``:
       ``J_row q̈ = −(J̇q̇)_row``;
    2. forces (eq. 8): ``S``: ``f_t = 0``, ``f_n = 0``; ``L``: ``f_t − μ f_n = 0``;
       ``R``: ``f_t + μ f_n = 0``;
    3. ``"eq"`` constraint blocks, physical then (if ``task``) task, in system order:
       ``[qdd, f] x = −tau τ + rhs``;
    4. dynamics (eq. 5): ``M q̈ − Jᵀ f = S τ − h``.

    Inequalities ``N [q̈; f; τ] >= e`` (not strict):

    1. acceleration (eq. 9), only where the velocity is zero (:func:`~contactmodes.modes.velocity_is_zero`):
       ``S`` with ``v_n ≈ 0``: ``ẍ_n >= 0``; ``L`` with ``v_t ≈ 0``: ``−ẍ_t >= 0``; ``R`` with
       ``v_t ≈ 0``: ``ẍ_t >= 0``; with ``ẍ = J q̈ + J̇ q̇``;
    2. forces (eq. 10 and Table I): ``F``: ``μ f_n − f_t >= 0``, ``μ f_n + f_t >= 0``,
       ``f_n >= 0`` (the last is implied when ``μ > 0`` but needed when ``μ = 0``); ``L``, ``R``:
       ``f_n >= 0``;
    3. ``"geq"`` constraint blocks (physical, then task if ``task``): ``[qdd, f, tau] >= rhs``.
    """
    validate_mode(system, mode)
    n_q, n_tau, k = system.n_q, system.n_tau, system.k
    n_f = 2 * k
    n = n_q + n_f
    J, c, mu = system.J, system.Jdot_qdot, system.mu
    t_zero, n_zero = velocity_is_zero(system)
    names = system.contacts

    A_rows, B_rows, b_rows, eq_labels = [], [], [], []
    N_rows, e_rows, ineq_labels = [], [], []

    def unit(j: int, size: int) -> np.ndarray:
        u = np.zeros(size)
        u[j] = 1.0
        return u

    def eq(a_q, a_f, btau, rhs, label):
        A_rows.append(np.concatenate([a_q, a_f]))
        B_rows.append(btau)
        b_rows.append(rhs)
        eq_labels.append(label)

    def geq(n_qv, n_fv, n_tauv, rhs, label):
        N_rows.append(np.concatenate([n_qv, n_fv, n_tauv]))
        e_rows.append(rhs)
        ineq_labels.append(label)

    zf, zq, zt = np.zeros(n_f), np.zeros(n_q), np.zeros(n_tau)
    # 1. acceleration equalities (7)
    for i, letter in enumerate(mode):
        it, in_ = 2 * i, 2 * i + 1
        if letter == "F":
            eq(J[it], zf, zt, -c[it], f"accel t {names[i]}")
        if letter in "FLR":
            eq(J[in_], zf, zt, -c[in_], f"accel n {names[i]}")
    # 2. force equalities (8)
    for i, letter in enumerate(mode):
        it, in_ = 2 * i, 2 * i + 1
        if letter == "S":
            eq(zq, unit(it, n_f), zt, 0.0, f"force t {names[i]} = 0")
            eq(zq, unit(in_, n_f), zt, 0.0, f"force n {names[i]} = 0")
        elif letter == "L":
            eq(zq, unit(it, n_f) - mu[i] * unit(in_, n_f), zt, 0.0, f"force t {names[i]} = mu f_n")
        elif letter == "R":
            eq(zq, unit(it, n_f) + mu[i] * unit(in_, n_f), zt, 0.0, f"force t {names[i]} = -mu f_n")
    kinds = ("physical", "task") if task else ("physical",)
    blocks = [blk for kind in kinds for blk in system.constraints if blk.kind == kind]
    # 3. equality constraint blocks (11), (12), (15), (16)
    for blk in blocks:
        if blk.type != "eq":
            continue
        for r in range(blk.n_rows):
            eq(blk.qdd[r], blk.f[r], -blk.tau[r], blk.rhs[r], f"{blk.kind} {blk.name or 'eq'} [{r}]")
    # 4. dynamics (5)
    for j in range(n_q):
        eq(system.M[j], -J[:, j], system.S[j], -system.h[j], f"dynamics {system.coordinates[j]}")

    # inequalities: 1. accelerations (9)
    for i, letter in enumerate(mode):
        it, in_ = 2 * i, 2 * i + 1
        if letter == "S" and n_zero[i]:
            geq(J[in_], zf, zt, -c[in_], f"accel n {names[i]} >= 0")
        elif letter == "L" and t_zero[i]:
            geq(-J[it], zf, zt, c[it], f"accel t {names[i]} <= 0")
        elif letter == "R" and t_zero[i]:
            geq(J[it], zf, zt, -c[it], f"accel t {names[i]} >= 0")
    # 2. forces (10)
    for i, letter in enumerate(mode):
        it, in_ = 2 * i, 2 * i + 1
        if letter == "F":
            geq(zq, mu[i] * unit(in_, n_f) - unit(it, n_f), zt, 0.0, f"friction {names[i]} +")
            geq(zq, mu[i] * unit(in_, n_f) + unit(it, n_f), zt, 0.0, f"friction {names[i]} -")
        if letter in "FLR":
            geq(zq, unit(in_, n_f), zt, 0.0, f"force n {names[i]} >= 0")
    # 3. inequality constraint blocks (13), (14), (17), (18)
    for blk in blocks:
        if blk.type != "geq":
            continue
        for r in range(blk.n_rows):
            geq(blk.qdd[r], blk.f[r], blk.tau[r], blk.rhs[r], f"{blk.kind} {blk.name or 'geq'} [{r}]")

    mat = lambda rows, width: np.array(rows, dtype=float).reshape(len(rows), width)  # noqa: E731
    return ModeEquations(
        mode=mode,
        A=mat(A_rows, n),
        B=mat(B_rows, n_tau),
        b=np.array(b_rows, dtype=float),
        eq_labels=eq_labels,
        N=mat(N_rows, n + n_tau),
        e=np.array(e_rows, dtype=float),
        ineq_labels=ineq_labels,
        n_q=n_q,
        n_f=n_f,
        n_tau=n_tau,
    )


def _clean(values: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """Zero the entries of ``values`` that are cancellation noise relative to ``magnitude``."""
    out = np.array(values, dtype=float, copy=True)
    out[np.abs(out) <= tolerances.CANCEL_RTOL * magnitude] = 0.0
    return out


@dataclass
class ModeResponse:
    """Affine response of one mode (eqs. 26–31). ``n = n_q + 2k``, ``m`` equality rows.

    Attributes
    ----------
    mode : the mode string.
    equations : the :class:`ModeEquations` it was computed from.
    singular_values : (min(m, n),) singular values of ``A``, descending.
    rank : numerical rank of ``A`` (:func:`numerical_rank`).
    full_row_rank, full_column_rank : ``rank == m``, ``rank == n``.
    rank_case : 1 (f.r.r. and f.c.r.), 2 (f.r.r. only), 3 (f.c.r. only), 4 (neither).
    A_pinv : (n, m) pseudo-inverse ``A⁺``.
    nullspace : (n, n_w) orthonormal basis ``N(A)`` (columns).
    n_w : number of ambiguity variables ``n − rank``.
    P_q, Q_q, r_q : (n_q, n_τ), (n_q, n_w), (n_q,): ``q̈ = P_q τ + Q_q w + r_q``.
    P_f, Q_f, r_f : (2k, n_τ), (2k, n_w), (2k,): ``f = P_f τ + Q_f w + r_f``.
    tau_C, tau_d : (p, n_τ), (p,): admissible torque subspace (31) ``tau_C τ = tau_d``; ``p = 0``
        when every τ is admissible. Rows are orthonormal (a reduced form of ``U_⊥ᵀ (B τ + b) = 0``).
    consistent : ``False`` if no τ satisfies (31) (then the mode has no solution at all).
    w_moves_accelerations : ``max |Q_q| > AMBIGUITY_ATOL`` (III-G.2: ambiguity in ``q̈``).
    w_moves_forces : ``max |Q_f| > AMBIGUITY_ATOL``.
    """

    mode: str
    equations: ModeEquations = field(repr=False)
    singular_values: np.ndarray
    rank: int
    full_row_rank: bool
    full_column_rank: bool
    rank_case: int
    A_pinv: np.ndarray = field(repr=False)
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
        """(n, n_τ) ``A⁺ B`` — the τ-coefficients of ``[q̈; f]``."""
        return np.vstack([self.P_q, self.P_f])

    @property
    def Q(self) -> np.ndarray:
        """(n, n_w) ``N(A)`` after noise cleaning — the w-coefficients of ``[q̈; f]``."""
        return np.vstack([self.Q_q, self.Q_f])

    @property
    def r(self) -> np.ndarray:
        """(n,) ``A⁺ b``."""
        return np.concatenate([self.r_q, self.r_f])

    def tau_admissible(self, tau, tol: float | None = None) -> bool:
        """Whether ``tau`` satisfies (31) up to ``tol`` (default ``CONSISTENCY_RTOL·max(1,|τ|,|tau_d|)``)."""
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

        Meaningful when ``tau`` satisfies (31) (:meth:`tau_admissible`); otherwise this is the
        least-squares solution of (25).
        """
        tau = np.asarray(tau, dtype=float).reshape(-1)
        w = np.zeros(self.n_w) if w is None else np.asarray(w, dtype=float).reshape(-1)
        if tau.shape != (self.P_q.shape[1],):
            raise ValueError(f"tau: expected shape ({self.P_q.shape[1]},), got {tau.shape}")
        if w.shape != (self.n_w,):
            raise ValueError(f"w: expected shape ({self.n_w},), got {w.shape}")
        return self.P_q @ tau + self.Q_q @ w + self.r_q, self.P_f @ tau + self.Q_f @ w + self.r_f


def solve_response(system: ContactSystem, mode: str, task: bool = True) -> ModeResponse:
    """Solve the equalities (25) of ``mode`` by SVD (Sec. III-D); see :class:`ModeResponse`."""
    eqs = mode_equations(system, mode, task=task)
    A, B, b = eqs.A, eqs.B, eqs.b
    m, n = A.shape
    n_q, n_tau = eqs.n_q, eqs.n_tau
    U, s, Vt = np.linalg.svd(A, full_matrices=True)
    r = numerical_rank(s, A.shape)
    A_pinv = (Vt[:r].T / s[:r]) @ U[:, :r].T
    null = Vt[r:].T  # (n, n_w)
    frr, fcr = r == m, r == n
    rank_case = 1 if (frr and fcr) else 2 if frr else 3 if fcr else 4

    # Noise in a product X Y is bounded by eps·‖X row‖·‖Y col‖ (Cauchy–Schwarz); ‖A⁺‖₂ = 1/s_r.
    pinv_norm = 1.0 / s[r - 1] if r else 0.0
    P = _clean(A_pinv @ B, pinv_norm * np.linalg.norm(B, axis=0)[None, :])
    rvec = _clean(A_pinv @ b, pinv_norm * np.linalg.norm(b))
    Q = null.copy()
    Q[np.abs(Q) <= tolerances.CANCEL_RTOL] = 0.0

    # admissible torque subspace (31): U_perp^T (B tau + b) = 0 (U_perp has orthonormal columns)
    U_perp = U[:, r:]
    C0 = _clean(U_perp.T @ B, np.linalg.norm(B, axis=0)[None, :])
    d0 = -_clean(U_perp.T @ b, np.linalg.norm(b))
    consistent = True
    tau_C = np.zeros((0, n_tau))
    tau_d = np.zeros(0)
    if C0.shape[0]:
        U2, s2, V2t = np.linalg.svd(C0, full_matrices=True) if C0.size else (np.eye(C0.shape[0]), np.zeros(0), np.eye(n_tau))
        r2 = numerical_rank(s2, C0.shape) if s2.size else 0
        # scale for the inconsistency test: magnitude of the terms of b that were combined
        scale = max(1.0, float(np.abs(b).max(initial=0.0)), float(np.abs(B).max(initial=0.0)))
        resid = U2[:, r2:].T @ d0
        if resid.size and float(np.abs(resid).max()) > tolerances.CONSISTENCY_RTOL * scale:
            consistent = False
        if r2:
            tau_C = V2t[:r2].copy()
            tau_d = (U2[:, :r2].T @ d0) / s2[:r2]
            tau_C[np.abs(tau_C) <= tolerances.CANCEL_RTOL] = 0.0

    amb = tolerances.AMBIGUITY_ATOL
    Q_q, Q_f = Q[:n_q], Q[n_q:]
    return ModeResponse(
        mode=mode,
        equations=eqs,
        singular_values=s,
        rank=r,
        full_row_rank=frr,
        full_column_rank=fcr,
        rank_case=rank_case,
        A_pinv=A_pinv,
        nullspace=null,
        n_w=n - r,
        P_q=P[:n_q],
        Q_q=Q_q,
        r_q=rvec[:n_q],
        P_f=P[n_q:],
        Q_f=Q_f,
        r_f=rvec[n_q:],
        tau_C=tau_C,
        tau_d=tau_d,
        consistent=consistent,
        w_moves_accelerations=bool(Q_q.size and np.abs(Q_q).max() > amb),
        w_moves_forces=bool(Q_f.size and np.abs(Q_f).max() > amb),
    )
