"""Domain ``D_c`` of a mode's response and its torque projection ``T_c`` (Sec. III-E).

Substituting ``[q̈; f] = P τ + Q w + r`` (``contactmodes.modes.response``) into the inequalities (32)
``N [q̈; f; τ] >= e`` with ``N = [N_x, N_τ]`` gives (33):

    (N_x P + N_τ) τ + (N_x Q) w >= e − N_x r

``D_c`` is this polytope over ``z = (τ, w)`` in the H-form of the conventions
(``A = −[N_x P + N_τ, N_x Q]``, ``b = N_x r − e``), with the admissible torque subspace (31) as the
equalities ``[tau_C, 0] z = tau_d``. ``T_c`` is its projection onto the τ coordinates.

The per-mode objects that compute and cache these live in ``contactmodes.analysis.session``; this module
holds the assembly (``domain_inequalities``), the user-facing ``ModeDomain`` and small
helpers on τ-polytopes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from polytopes import Polytope

from contactmodes import tolerances
from contactmodes._linalg import numerical_rank
from contactmodes.modes.response import BATCH, ModeResponse
from contactmodes.model.system import ContactSystem

__all__ = ["ModeDomain", "boxes_disjoint", "domain_from_response", "domain_inequalities", "independent_equalities",
           "independent_equalities_stacked", "intersect_domains", "substituted_rows"]


@dataclass
class ModeDomain:
    """Domain of one mode's response, in the user's units (a view of a session's mode object).

    Attributes
    ----------
    mode : str
        The mode string.
    response : ModeResponse
        The ``ModeResponse`` substituted (user units).
    D : Polytope
        ``D_c`` over ``(τ, w)`` (dimension ``n_τ + n_w``; τ in user units, ``w`` the nondimensional
        null-space coordinates), reduced when non-empty; when empty, the unreduced (33) system.
    T : Polytope or None
        ``T_c`` over τ (dimension ``n_τ``), or ``None`` when ``D`` is empty.
    feasible : bool
        ``D`` non-empty.
    w_varies : bool
        ``affine_dimension(D) > affine_dimension(T)`` — for a τ in the relative interior of
        ``T`` the set of admissible ``w`` has positive dimension (III-G.2).
    box : tuple[numpy.ndarray, numpy.ndarray] or None
        Bounding box ``(lo, hi)`` of ``T`` (each ``(n_τ,)``, ±inf where unbounded), ``None`` when
        infeasible.
    timing : dict[str, float]
        Seconds per stage: ``"response"``, ``"assemble"``, ``"reduce"``, ``"project"``.
    """

    mode: str
    response: ModeResponse = field(repr=False)
    D: Polytope = field(repr=False)
    T: Polytope | None = field(repr=False)
    feasible: bool
    w_varies: bool
    box: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    timing: dict[str, float] = field(default_factory=dict)

    @property
    def n_tau(self) -> int:
        return self.response.P_q.shape[1]

    @property
    def n_w(self) -> int:
        return self.response.n_w


def domain_inequalities(response: ModeResponse) -> tuple[np.ndarray, np.ndarray, bool]:
    """(33) as ``(A, b, trivially_infeasible)`` for ``A z <= b`` over ``z = (τ, w)``.

    Cancellation noise is zeroed (``CANCEL_RTOL`` relative to ``‖N_x row‖·‖P col‖ + |N_τ|`` etc.);
    rows that become ``0 <= b`` with ``b >= 0`` are dropped; a row ``0 <= b`` with ``b < 0`` makes
    the third item ``True``. See ``substituted_rows`` for the rows before dropping.

    Parameters
    ----------
    response : ModeResponse
        The mode's response (eqs. 26–31); the session passes nondimensional ones.

    Returns
    -------
    A : numpy.ndarray
        ``(p', n_τ + n_w)`` the rows kept, in the units of ``response``.
    b : numpy.ndarray
        ``(p',)``.
    trivially_infeasible : bool
        Some row reads ``0 <= b`` with ``b < 0``.
    """
    A, b = substituted_rows(response)
    zero = ~np.any(A != 0.0, axis=1)
    infeasible = bool(np.any(b[zero] < 0.0))
    keep = ~zero
    return A[keep], b[keep], infeasible


def substituted_rows(response: ModeResponse) -> tuple[np.ndarray, np.ndarray]:
    """Every inequality row of ``response.equations`` substituted into (33).

    Rows aligned with ``response.equations.N`` (zero rows kept); ``substituted_rows_many`` of one
    response.

    Parameters
    ----------
    response : ModeResponse
        The mode's response, in its units.

    Returns
    -------
    A : numpy.ndarray
        ``(p, n_τ + n_w)``: ``A z <= b`` over ``z = (τ, w)``.
    b : numpy.ndarray
        ``(p,)``.
    """
    return substituted_rows_many([response])[0]


def substituted_rows_many(responses: Sequence[ModeResponse]) -> list[tuple[np.ndarray, np.ndarray]]:
    """``substituted_rows`` of every response, those of the same shapes computed together
    (stacked products: each result the one its response gets alone, bit for bit on this NumPy).

    Cancellation noise is zeroed: ``CANCEL_RTOL`` relative to ``‖N_x row‖·‖P col‖ + |N_τ|`` for
    the τ-coefficients, ``‖N_x row‖·‖Q col‖`` for the w-coefficients and ``|e| + ‖N_x row‖·‖r‖``
    for the right-hand side.

    Parameters
    ----------
    responses : Sequence[ModeResponse]
        The modes' responses, each in its units.

    Returns
    -------
    list[tuple[numpy.ndarray, numpy.ndarray]]
        ``(A, b)`` per response, in order (``substituted_rows``).
    """
    out: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(responses)
    groups: dict[tuple, list[int]] = {}
    for i, resp in enumerate(responses):
        groups.setdefault((resp.equations.N.shape, resp.P_q.shape, resp.P_f.shape[0], resp.n_w), []).append(i)
    for idx in (ix[j:j + BATCH] for ix in groups.values() for j in range(0, len(ix), BATCH)):
        eqs0 = responses[idx[0]].equations
        n = eqs0.n_q + eqs0.n_f
        N = np.array([responses[i].equations.N for i in idx])
        e = np.array([responses[i].equations.e for i in idx])
        P = np.array([responses[i].P for i in idx])  # (G, n, n_tau)
        Q = np.array([responses[i].Q for i in idx])  # (G, n, n_w)
        r = np.array([responses[i].r for i in idx])  # (G, n)
        N_x, N_t = N[:, :, :n], N[:, :, n:]
        nN = np.sqrt(np.add.reduce(N_x * N_x, axis=2))[:, :, None]  # row norms (np.linalg.norm's operations)
        nP = np.sqrt(np.add.reduce(P * P, axis=1))[:, None, :]  # column norms
        nQ = np.sqrt(np.add.reduce(Q * Q, axis=1))[:, None, :]
        nr = np.array([float(np.sqrt(v @ v)) for v in r])  # vector norms (np.linalg.norm: a dot)
        coef_tau = N_x @ P + N_t
        coef_tau[np.abs(coef_tau) <= tolerances.CANCEL_RTOL * (nN * nP + np.abs(N_t))] = 0.0
        coef_w = N_x @ Q
        coef_w[np.abs(coef_w) <= tolerances.CANCEL_RTOL * (nN * nQ)] = 0.0
        rhs = e - (N_x @ r[:, :, None])[:, :, 0]
        rhs[np.abs(rhs) <= tolerances.CANCEL_RTOL * (np.abs(e) + nN[:, :, 0] * nr[:, None])] = 0.0
        A = -np.concatenate([coef_tau, coef_w], axis=2)
        for g, i in enumerate(idx):
            out[i] = (A[g], -rhs[g])
    return out  # type: ignore[return-value]


def domain_from_response(response: ModeResponse, method: str = "auto",
                         extra: tuple[np.ndarray, np.ndarray] | None = None) -> ModeDomain:
    """``D_c`` (33) and ``T_c`` of a given response, in that response's units.

    ``T_c`` is ``D_c`` projected onto τ (Sec. III-E, Fig. 2); its bounding box is computed too.

    Parameters
    ----------
    response : ModeResponse
        The mode's response.
    method : str, optional
        Projection method of ``polytopes.Polytope.project`` (``"auto"``, ``"exact"``, ...).
    extra : tuple[numpy.ndarray, numpy.ndarray], optional
        Extra rows ``A_x z <= b_x`` over ``z = (τ, w)``, shapes ``(m, n_τ + n_w)`` and ``(m,)``.

    Returns
    -------
    ModeDomain
        ``D``, ``T``, ``feasible``, ``w_varies``, ``box`` and the stage timings.

    Raises
    ------
    NumericalError
        When an LP or a projection cannot be verified (``polytopes``).
    """
    import time

    timing: dict[str, float] = {"response": 0.0}
    t0 = time.perf_counter()
    n_tau, n_w = response.P_q.shape[1], response.n_w
    dim = n_tau + n_w
    A, b, trivially = domain_inequalities(response)
    if extra is not None:
        A, b = np.vstack([A, extra[0]]), np.concatenate([b, extra[1]])
    if response.consistent:
        C = np.hstack([response.tau_C, np.zeros((response.tau_C.shape[0], n_w))])
        d = response.tau_d.copy()
    else:
        C, d = np.zeros((1, dim)), np.ones(1)
    raw = Polytope(A, b, C, d)
    timing["assemble"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if trivially or not response.consistent or raw.is_empty():
        timing["reduce"] = time.perf_counter() - t0
        timing["project"] = 0.0
        return ModeDomain(response.mode, response, raw, None, False, False, None, timing)
    D = raw.reduce()
    timing["reduce"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    T = D if n_w == 0 else D.project(list(range(n_tau)), method=method)
    w_varies = n_w > 0 and D.affine_dimension() > T.affine_dimension()
    timing["project"] = time.perf_counter() - t0
    return ModeDomain(response.mode, response, D, T, True, bool(w_varies), T.bounding_box(), timing)


def intersect_domains(P1: Polytope, P2: Polytope) -> Polytope | None:
    """``P1 ∩ P2`` with its equalities made independent first; ``None`` if they are inconsistent.

    Stacking the equalities of two lower-dimensional sets often gives an over-determined but
    consistent system, which LP solvers handle poorly; it is replaced by an orthonormal basis of
    its rows (SVD, ``numerical_rank``), or found inconsistent. Meant for
    nondimensional τ-polytopes (the consistency rule is relative to ``max(1, |d|)``).

    Parameters
    ----------
    P1, P2 : Polytope
        Sets of one dimension (nondimensional torques).

    Returns
    -------
    Polytope or None
        The intersection (not checked for emptiness); ``None`` when the stacked equalities are
        inconsistent.
    """
    eq = independent_equalities(np.vstack([P1.C, P2.C]), np.concatenate([P1.d, P2.d]))
    if eq is None:
        return None
    return Polytope(np.vstack([P1.A, P2.A]), np.concatenate([P1.b, P2.b]), *eq)


def independent_equalities(C: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``C x = d`` as an equivalent system with orthonormal, independent rows, or ``None``.

    SVD with ``numerical_rank``; ``None`` when the system is inconsistent (residual beyond
    ``CONSISTENCY_RTOL`` times ``max(1, |d|)``): the rule of ``intersect_domains``;
    ``independent_equalities_stacked`` of one system.

    Parameters
    ----------
    C : numpy.ndarray
        ``(p, n)``.
    d : numpy.ndarray
        ``(p,)``.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray] or None
        ``(C_r, d_r)`` of shapes ``(r, n)``, ``(r,)`` (``C``, ``d`` themselves when ``p = 0``).
    """
    if not C.shape[0]:
        return C, d
    for _, C_r, d_r in independent_equalities_stacked(C[None], d[None]):
        return C_r[0], d_r[0]
    return None


def independent_equalities_stacked(C: np.ndarray, d: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``independent_equalities`` of ``G`` systems of one shape, with one stacked SVD.

    LAPACK on each matrix and stacked products: each result the one of the system alone, bit for
    bit on this NumPy (``tests/contactmodes/analysis/test_domains.py`` compares them).

    Parameters
    ----------
    C : numpy.ndarray
        ``(G, p, n)``, ``p >= 1``.
    d : numpy.ndarray
        ``(G, p)``.

    Returns
    -------
    list[tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]]
        One entry ``(sel, C_r, d_r)`` per rank ``r``: ``sel`` ``(S,)`` the positions of the
        consistent systems of that rank, ``C_r`` ``(S, r, n)`` and ``d_r`` ``(S, r)`` their
        independent equalities. Inconsistent systems are in no entry.
    """
    U, s, Vt = np.linalg.svd(C, full_matrices=True)
    p, n = C.shape[1:]
    ranks = np.sum(s > tolerances.RANK_RTOL * max(p, n) * s[:, 0][:, None], axis=1)  # numerical_rank
    scale = np.maximum(1.0, np.abs(d).max(axis=1))
    out = []
    for r in np.unique(ranks).tolist():
        sel = np.flatnonzero(ranks == r)
        Ut = np.swapaxes(U[sel], 1, 2)  # (S, p, p): rows are the left singular vectors
        if r < p:
            resid = (Ut[:, r:] @ d[sel][:, :, None])[:, :, 0]
            sel = sel[np.abs(resid).max(axis=1) <= tolerances.CONSISTENCY_RTOL * scale[sel]]
            if not sel.size:
                continue
            Ut = np.swapaxes(U[sel], 1, 2)
        d_r = (Ut[:, :r] @ d[sel][:, :, None])[:, :, 0] / s[sel, :r]
        out.append((sel, Vt[sel, :r], d_r))
    return out


def boxes_disjoint(box_a, box_b) -> bool:
    """Whether two bounding boxes are separated by more than the consistency tolerance along an axis.

    Then the sets they bound cannot intersect. The box of the empty set (``lo = +inf``,
    ``hi = −inf``) is disjoint from everything. The gap is ``CONSISTENCY_RTOL`` times the largest
    finite bound (at least 1): meant for nondimensional torques.

    Parameters
    ----------
    box_a, box_b : tuple[numpy.ndarray, numpy.ndarray]
        ``(lo, hi)``, each ``(n,)``.

    Returns
    -------
    bool
        ``True`` when certainly disjoint.
    """
    (lo_a, hi_a), (lo_b, hi_b) = box_a, box_b
    if np.any(np.isposinf(lo_a)) or np.any(np.isposinf(lo_b)):
        return True
    finite = [v for v in (*lo_a, *hi_a, *lo_b, *hi_b) if np.isfinite(v)]
    gap = tolerances.CONSISTENCY_RTOL * max(1.0, max((abs(v) for v in finite), default=0.0))
    return bool(np.any(lo_a > hi_b + gap) or np.any(lo_b > hi_a + gap))
