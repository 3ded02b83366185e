"""Domain ``D_c`` of a mode's response and its torque projection ``T_c`` (Sec. III-E).

Substituting ``[q̈; f] = P τ + Q w + r`` (:mod:`contactmodes.response`) into the inequalities (32)
``N [q̈; f; τ] >= e`` with ``N = [N_x, N_τ]`` gives (33):

    (N_x P + N_τ) τ + (N_x Q) w >= e − N_x r

``D_c`` is this polytope over ``z = (τ, w)`` in the H-form of ``docs/conventions.md``
(``A = −[N_x P + N_τ, N_x Q]``, ``b = N_x r − e``), with the admissible torque subspace (31) as the
equalities ``[tau_C, 0] z = tau_d``, reduced to a minimal representation. ``T_c`` is its projection
onto the τ coordinates (equalities kept).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from polytopes import Polytope

from . import tolerances
from .errors import ContactModelError
from .response import ModeResponse, numerical_rank, solve_response
from .system import ContactSystem


@dataclass
class ModeDomain:
    """Domain of one mode's response.

    Attributes
    ----------
    mode : the mode string.
    response : the :class:`~contactmodes.response.ModeResponse` substituted.
    D : ``D_c`` over ``(τ, w)`` (dimension ``n_τ + n_w``), reduced when non-empty; when empty, the
        unreduced (33) system (possibly with an infeasible equality ``0 = 1`` if (31) is inconsistent).
    T : ``T_c`` over τ (dimension ``n_τ``), or ``None`` when ``D`` is empty.
    feasible : ``D`` non-empty.
    w_varies : ``affine_dimension(D) > affine_dimension(T)`` — for a τ in the relative interior of
        ``T`` the set of admissible ``w`` has positive dimension (III-G.2). ``False`` if ``n_w = 0``
        or infeasible.
    timing : seconds per stage: ``"response"``, ``"assemble"``, ``"reduce"``, ``"project"``.
    """

    mode: str
    response: ModeResponse = field(repr=False)
    D: Polytope = field(repr=False)
    T: Polytope | None = field(repr=False)
    feasible: bool
    w_varies: bool
    timing: dict[str, float] = field(default_factory=dict)

    @property
    def n_tau(self) -> int:
        return self.response.P_q.shape[1]

    @cached_property
    def box(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Bounding box ``(lo, hi)`` of ``T`` (each (n_τ,), ±inf where unbounded; ``2 n_τ``
        LPs, computed once), ``None`` when infeasible."""
        return None if self.T is None else self.T.bounding_box()

    @property
    def n_w(self) -> int:
        return self.response.n_w


def domain_inequalities(response: ModeResponse) -> tuple[np.ndarray, np.ndarray, bool]:
    """(33) as ``(A, b, trivially_infeasible)`` for ``A z <= b`` over ``z = (τ, w)``.

    Cancellation noise is zeroed (``CANCEL_RTOL`` relative to ``‖N_x row‖·‖P col‖ + |N_τ|`` etc.); rows that
    become ``0 <= b`` with ``b >= 0`` are dropped; a row ``0 <= b`` with ``b < 0`` makes the third
    item ``True``.
    """
    eqs = response.equations
    n = eqs.n_q + eqs.n_f
    N_x, N_t = eqs.N[:, :n], eqs.N[:, n:]
    P, Q, r = response.P, response.Q, response.r
    # cancellation noise bound per entry: ‖N_x row i‖·‖Y col j‖ (+ the directly added term)
    nN = np.linalg.norm(N_x, axis=1)[:, None]
    coef_tau = N_x @ P + N_t
    coef_tau[np.abs(coef_tau) <= tolerances.CANCEL_RTOL * (nN * np.linalg.norm(P, axis=0)[None, :] + np.abs(N_t))] = 0.0
    coef_w = N_x @ Q
    coef_w[np.abs(coef_w) <= tolerances.CANCEL_RTOL * (nN * np.linalg.norm(Q, axis=0)[None, :])] = 0.0
    rhs = eqs.e - N_x @ r
    rhs[np.abs(rhs) <= tolerances.CANCEL_RTOL * (np.abs(eqs.e) + nN[:, 0] * np.linalg.norm(r))] = 0.0
    A = -np.hstack([coef_tau, coef_w])
    b = -rhs
    zero = ~np.any(A != 0.0, axis=1)
    infeasible = bool(np.any(b[zero] < 0.0))
    keep = ~zero
    return A[keep], b[keep], infeasible


def mode_domain(system: ContactSystem, mode: str, task: bool = True, method: str = "auto",
                response: ModeResponse | None = None,
                extra: tuple[np.ndarray, np.ndarray] | None = None) -> ModeDomain:
    """Compute ``D_c`` and ``T_c`` of ``mode`` (Sec. III-E); ``method`` is passed to ``project``.

    Raises :class:`~contactmodes.errors.ContactModelError` for a system without actuators.
    A precomputed ``response`` (for the same ``task``) may be passed to avoid recomputation.
    ``extra = (A_x, b_x)``, (m, n_τ + n_w) and (m,), appends rows ``A_x z <= b_x`` over
    ``z = (τ, w)`` of that response (used for negated task constraints, :mod:`contactmodes.ambiguity`).
    """
    if system.n_tau == 0:
        raise ContactModelError(
            "torques: the system has no actuators; torque domains T_c need at least one "
            "(polytopes has no 0-dimensional sets)"
        )
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    if response is None:
        response = solve_response(system, mode, task=task)
    timing["response"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    n_tau, n_w = response.P_q.shape[1], response.n_w
    dim = n_tau + n_w
    A, b, trivially_infeasible = domain_inequalities(response)
    if extra is not None:
        A, b = np.vstack([A, extra[0]]), np.concatenate([b, extra[1]])
    if response.consistent:
        C = np.hstack([response.tau_C, np.zeros((response.tau_C.shape[0], n_w))])
        d = response.tau_d.copy()
    else:
        C, d = np.zeros((1, dim)), np.ones(1)  # 0 = 1: no τ admits a solution
    raw = Polytope(A, b, C, d)
    timing["assemble"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    empty = trivially_infeasible or not response.consistent or raw.is_empty()
    if empty:
        timing["reduce"] = time.perf_counter() - t0
        timing["project"] = 0.0
        return ModeDomain(mode, response, raw, None, False, False, timing)
    D = raw.reduce()
    timing["reduce"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    if n_w == 0:
        T = D
        w_varies = False
    else:
        T = D.project(list(range(n_tau)), method=method)
        w_varies = D.affine_dimension() > T.affine_dimension()
    timing["project"] = time.perf_counter() - t0
    return ModeDomain(mode, response, D, T, True, bool(w_varies), timing)


def intersect_domains(P1: Polytope, P2: Polytope) -> Polytope | None:
    """``P1 ∩ P2`` with its equalities made independent first; ``None`` if they are inconsistent.

    Stacking the equalities of two lower-dimensional sets often gives an over-determined but
    consistent system, which LP solvers handle poorly; it is replaced by an orthonormal basis of
    its rows (SVD, :func:`~contactmodes.response.numerical_rank`), or found inconsistent.
    """
    A = np.vstack([P1.A, P2.A])
    b = np.concatenate([P1.b, P2.b])
    C = np.vstack([P1.C, P2.C])
    d = np.concatenate([P1.d, P2.d])
    if C.shape[0]:
        U, s, Vt = np.linalg.svd(C, full_matrices=True)
        r = numerical_rank(s, C.shape)
        resid = U[:, r:].T @ d
        scale = max(1.0, float(np.abs(d).max(initial=0.0)))
        if resid.size and float(np.abs(resid).max()) > tolerances.CONSISTENCY_RTOL * scale:
            return None
        C, d = Vt[:r], (U[:, :r].T @ d) / s[:r]
    return Polytope(A, b, C, d)


def boxes_disjoint(box_a, box_b) -> bool:
    """Whether two bounding boxes ``(lo, hi)`` are separated by more than the consistency
    tolerance along some axis (then the sets they bound cannot intersect)."""
    (lo_a, hi_a), (lo_b, hi_b) = box_a, box_b
    finite = [v for v in (*lo_a, *hi_a, *lo_b, *hi_b) if np.isfinite(v)]
    gap = tolerances.CONSISTENCY_RTOL * max(1.0, max((abs(v) for v in finite), default=0.0))
    return bool(np.any(lo_a > hi_b + gap) or np.any(lo_b > hi_a + gap))
