"""The compiled kernels of ``contactmodes.realtime.plan``: one mode at a time.

The same computations as the NumPy references in ``contactmodes.realtime.plan`` (module doc
there): the substituted domains (33) with the cancellation rule of ``substituted_rows``, the
kinematic LPs' rows and decisions, the bound and point-test LPs' rows and the scaling of one
state, written as loops over the modes of a batch and compiled by numba (``nopython``), because
for the handful of modes of a control step the NumPy per-call overhead outweighs the arithmetic.
The responses (24)–(31) are not computed here: ``contactmodes.modes.response.batched_responses``
owns them (its compiled form is ``contactmodes.modes.response_kernels``), and
``compile_kernel`` compiles that kernel too.

Nothing is decided here that the NumPy paths do not decide. The NumPy paths stay the reference
(``kernel="numpy"``); ``tests/contactmodes/realtime/test_layout.py`` compares the two on the modes
of whole RHex flips and on random mechanisms.

Compilation costs a few seconds once per machine and version (the on-disk cache of
``polytopes.batchlp_kernel``, in the user's cache directory); ``compile_kernel`` pays it
up front (the RHex controllers call it in their constructors). Without numba (the optional
``compiled`` extra), ``AVAILABLE`` is false and the NumPy paths serve every call.
"""

from __future__ import annotations

import time

import numpy as np

from polytopes import batchlp_kernel

from contactmodes import tolerances
from contactmodes.modes import response_kernels

AVAILABLE = batchlp_kernel.AVAILABLE
__all__ = ["AVAILABLE", "CACHE_DIR", "compile_kernel", "domain_lp_kernel", "domains_kernel", "kinematic_decide_kernel",
           "kinematic_rows_kernel", "point_test_kernel", "prefix_certify_kernel", "scale_terms_kernel"]

_CANCEL = float(tolerances.CANCEL_RTOL)
_compiled = None


CACHE_DIR = batchlp_kernel.cache_dir_for(__file__, tolerances.__file__, batchlp_kernel.__file__,
                                         batchlp_kernel.tol.__file__) if AVAILABLE else None
"""Directory of this module's compiled-kernel cache: named by its sources, the tolerances it
compiles in and ``polytopes.batchlp_kernel``, whose functions it calls
(``polytopes.batchlp_kernel.cache_dir_for``), or ``None`` (no cache)."""


_jit = batchlp_kernel.jit_cached(CACHE_DIR)


@_jit
def domains_kernel(Nbank, ebank, rows, n, P, Q, r, A_out, b_out):  # pragma: no cover - compiled
    """The substituted inequalities (33) ``A z <= b`` of ``domains``, one mode at a time.

    The same rule as the NumPy path, cancellation noise zeroed as ``substituted_rows`` does; every
    number nondimensional (``z = (τ', w)``).

    Parameters
    ----------
    Nbank : numpy.ndarray
        ``(E, n + n_τ)`` the inequality bank (32).
    ebank : numpy.ndarray
        ``(E,)`` its right-hand sides.
    rows : numpy.ndarray
        ``(B, p)`` int, each mode's bank rows.
    n : int
        ``n_q + 2k``.
    P : numpy.ndarray
        ``(B, n, n_τ)`` the responses' τ-coefficients.
    Q : numpy.ndarray
        ``(B, n, s)`` their w-coefficients.
    r : numpy.ndarray
        ``(B, n)`` their constant parts.
    A_out : numpy.ndarray
        ``(B, p, n_τ + s)``, written.
    b_out : numpy.ndarray
        ``(B, p)``, written.
    """
    Bn, p = rows.shape
    nt = P.shape[2]
    s = Q.shape[2]
    Pn = np.zeros(nt)
    Qn = np.zeros(s)
    for j in range(Bn):
        for c in range(nt):
            acc = 0.0
            for a in range(n):
                acc += P[j, a, c] * P[j, a, c]
            Pn[c] = np.sqrt(acc)
        for c in range(s):
            acc = 0.0
            for a in range(n):
                acc += Q[j, a, c] * Q[j, a, c]
            Qn[c] = np.sqrt(acc)
        rn = 0.0
        for a in range(n):
            rn += r[j, a] * r[j, a]
        rn = np.sqrt(rn)
        for i in range(p):
            e = rows[j, i]
            nN = 0.0
            for a in range(n):
                nN += Nbank[e, a] * Nbank[e, a]
            nN = np.sqrt(nN)
            for c in range(nt):
                acc = 0.0
                for a in range(n):
                    acc += Nbank[e, a] * P[j, a, c]
                Nt = Nbank[e, n + c]
                acc += Nt
                A_out[j, i, c] = 0.0 if abs(acc) <= _CANCEL * (nN * Pn[c] + abs(Nt)) else -acc
            for c in range(s):
                if Qn[c] == 0.0:  # a zero column (not a free w): the rule below gives 0.0, skip the sum
                    A_out[j, i, nt + c] = 0.0
                    continue
                acc = 0.0
                for a in range(n):
                    acc += Nbank[e, a] * Q[j, a, c]
                A_out[j, i, nt + c] = 0.0 if abs(acc) <= _CANCEL * (nN * Qn[c]) else -acc
            acc = 0.0
            for a in range(n):
                acc += Nbank[e, a] * r[j, a]
            rhs = ebank[e] - acc
            b_out[j, i] = 0.0 if abs(rhs) <= _CANCEL * (abs(ebank[e]) + nN * rn) else -rhs


@_jit
def scale_terms_kernel(M, h, S, J, c, v, v0, length, mass, accel, force, velocity, Bq, Bf, Bt, Br
                       ):  # pragma: no cover - compiled
    """The rule of ``contactmodes.model.scaling.scale_terms``, elementwise in the same operation order.

    For ``contactmodes.realtime.plan.scaled_terms``: the state's terms in the system's units in,
    the nondimensional terms out.

    Parameters
    ----------
    M : numpy.ndarray
        ``(n_q, n_q)`` inertia matrix.
    h : numpy.ndarray
        ``(n_q,)`` bias forces.
    S : numpy.ndarray
        ``(n_q, n_τ)`` actuator map.
    J : numpy.ndarray
        ``(2k, n_q)`` contact Jacobian.
    c : numpy.ndarray
        ``(2k,)`` ``J̇ q̇``.
    v : numpy.ndarray
        ``(2k,)`` contact velocities.
    v0 : numpy.ndarray
        ``(k,)`` velocity thresholds.
    length, mass : float
        The characteristic length ``L`` and mass ``m``.
    accel, force, velocity : float
        The derived scales ``A``, ``F``, ``V``.
    Bq : numpy.ndarray
        ``(R, n_q)`` the constraint rows of every block stacked: ``q̈`` coefficients.
    Bf : numpy.ndarray
        ``(R, 2k)`` their ``f`` coefficients.
    Bt : numpy.ndarray
        ``(R, n_τ)`` their ``τ`` coefficients.
    Br : numpy.ndarray
        ``(R,)`` their right-hand sides.

    Returns
    -------
    tuple
        ``(s, g, u, M', h', S', J', J̇q̇', v', v0', Bq', Bf', Bt', Br', ρ)``: the unit factors, the
        scaled terms and the rows' divisors (``ScaledTerms``' meaning).
    """
    n_q, nt = S.shape
    k2 = J.shape[0]
    P = force * accel
    s = np.empty(n_q)
    g = np.empty(n_q)
    for j in range(n_q):
        acc = 0.0
        for i in range(k2):
            acc += J[i, j] ** 2
        e = M[j, j] + mass * acc
        if not e > 0.0:
            e = mass * length * length
        s[j] = np.sqrt(P / e)
        g[j] = P / s[j]
    u = np.empty(nt)
    for q in range(nt):
        best = np.inf
        any_nz = False
        for j in range(n_q):
            a = abs(S[j, q])
            if a != 0.0:
                any_nz = True
                best = min(best, g[j] / a)
        u[q] = best if any_nz else 1.0
    X = np.empty((n_q, n_q))
    for i in range(n_q):
        for j in range(n_q):
            X[i, j] = M[i, j] * s[j] / g[i]
    Ms = np.empty((n_q, n_q))
    for i in range(n_q):
        for j in range(n_q):
            Ms[i, j] = 0.5 * (X[i, j] + X[j, i])
    hs = np.empty(n_q)
    Ss = np.empty((n_q, nt))
    for j in range(n_q):
        hs[j] = h[j] / g[j]
        for q in range(nt):
            Ss[j, q] = S[j, q] * u[q] / g[j]
    Js = np.empty((k2, n_q))
    cs = np.empty(k2)
    vs = np.empty(k2)
    for i in range(k2):
        for j in range(n_q):
            Js[i, j] = J[i, j] * s[j] / accel
        cs[i] = c[i] / accel
        vs[i] = v[i] / velocity
    v0s = np.empty(v0.shape[0])
    for i in range(v0.shape[0]):
        v0s[i] = v0[i] / velocity
    R = Br.shape[0]
    Bq_out = np.empty((R, n_q))
    Bf_out = np.empty((R, k2))
    Bt_out = np.empty((R, nt))
    Br_out = np.empty(R)
    rho = np.empty(R)
    for r in range(R):
        mag = 0.0
        for j in range(n_q):
            Bq_out[r, j] = Bq[r, j] * s[j]
            mag = max(mag, abs(Bq_out[r, j]))
        for j in range(k2):
            Bf_out[r, j] = Bf[r, j] * force
            mag = max(mag, abs(Bf_out[r, j]))
        for j in range(nt):
            Bt_out[r, j] = Bt[r, j] * u[j]
            mag = max(mag, abs(Bt_out[r, j]))
        rho[r] = mag if mag > 0.0 else max(abs(Br[r]), 1.0)
        for j in range(n_q):
            Bq_out[r, j] /= rho[r]
        for j in range(k2):
            Bf_out[r, j] /= rho[r]
        for j in range(nt):
            Bt_out[r, j] /= rho[r]
        Br_out[r] = Br[r] / rho[r]
    return s, g, u, Ms, hs, Ss, Js, cs, vs, v0s, Bq_out, Bf_out, Bt_out, Br_out, rho


@_jit
def kinematic_rows_kernel(J, c, kin_rows, strict_margin, G_out, h_out):  # pragma: no cover - compiled
    """The kinematic LPs' rows of ``kinematic`` (its NumPy path builds the same from a signed bank).

    Parameters
    ----------
    J : numpy.ndarray
        ``(2k, n_q)`` the nondimensional contact Jacobian.
    c : numpy.ndarray
        ``(2k,)`` ``J̇ q̇`` (nondimensional).
    kin_rows : numpy.ndarray
        ``(N, r)`` int, indices into the bank ``[J | 0; −J | 0; −J | 1; J | 1; 0 | 0]`` (blocks of
        ``2k`` rows, right-hand sides ``−c, c, c, −c``, then the padding row ``0 <= 0``).
    strict_margin : float
        ``tolerances.STRICT_MARGIN``.
    G_out : numpy.ndarray
        ``(N, r, n_q + 1)``, written.
    h_out : numpy.ndarray
        ``(N, r)``, written.

    Returns
    -------
    float
        The margin ``strict_margin · max(1, max|J|, max|c|)``.
    """
    k2, n_q = J.shape
    big = 1.0
    for i in range(k2):
        big = max(big, abs(c[i]))
        for j in range(n_q):
            big = max(big, abs(J[i, j]))
    N, r = kin_rows.shape
    for b in range(N):
        for i in range(r):
            e = kin_rows[b, i]
            if e >= 4 * k2:
                for j in range(n_q + 1):
                    G_out[b, i, j] = 0.0
                h_out[b, i] = 0.0
                continue
            blk = e // k2
            comp = e - blk * k2
            sign = 1.0 if (blk == 0 or blk == 3) else -1.0
            for j in range(n_q):
                G_out[b, i, j] = sign * J[comp, j]
            G_out[b, i, n_q] = 0.0 if blk < 2 else 1.0
            h_out[b, i] = -sign * c[comp]
    return strict_margin * big


@_jit
def kinematic_decide_kernel(status, x, fun, margin, band_rtol, out, decided):  # pragma: no cover - compiled
    """The decisions of ``kinematic`` from the batched answers of its strict-slack LPs.

    The rule of the NumPy path (Sec. III-F, footnote 5; ``contactmodes.tolerances``,
    ``KINEMATIC_BAND_RTOL``): an optimum ``s = −fun`` decides when ``|s − margin| > band_rtol ·
    max(1, ‖x‖∞)`` (feasible when ``s > margin``), an infeasibility certificate decides
    infeasible, anything else is undecided. Every number nondimensional.

    Parameters
    ----------
    status : numpy.ndarray
        ``(N,)`` int, ``polytopes.batchlp.simplex_batch``'s statuses (``0`` optimal, ``2``
        infeasible, anything else undecided).
    x : numpy.ndarray
        ``(N, n_q + 1)`` the LPs' solutions ``(q̈, s)``.
    fun : numpy.ndarray
        ``(N,)`` the optimal costs ``−s``.
    margin : float
        The strict-slack margin (``kinematic_rows_kernel``'s return value).
    band_rtol : float
        ``tolerances.KINEMATIC_BAND_RTOL``: the relative half-width of the undecided band.
    out : numpy.ndarray
        ``(N,)`` bool, written: kinematically feasible (false when undecided).
    decided : numpy.ndarray
        ``(N,)`` bool, written: the decision in ``out`` is final.
    """
    for b in range(status.size):
        out[b] = False
        decided[b] = False
        if status[b] == 0:
            s = -fun[b]
            size = 1.0
            for j in range(x.shape[1]):
                size = max(size, abs(x[b, j]))
            decided[b] = abs(s - margin) > band_rtol * size
            out[b] = s > margin
        elif status[b] == 2:
            decided[b] = True


@_jit
def prefix_certify_kernel(G, h, basis, cost, lo, hi, n_art, zbound, margin, out):  # pragma: no cover - compiled
    """The prune certificates of ``contactmodes.realtime.prefix.PrefixPruning.certified``.

    The same rule, one LP at a time: whether ``y⁺·f + ‖r‖₁ · zbound`` plus the rounding allowance is
    at most ``margin``.

    Parameters
    ----------
    G : numpy.ndarray
        ``(K, m, n)`` the rows ``G z <= h``.
    h : numpy.ndarray
        ``(K, m)``.
    basis : numpy.ndarray
        ``(K, n)`` the final bases (rows ``< m``, then the upper and the lower bounds).
    cost : numpy.ndarray
        ``(n,)`` the cost.
    lo, hi : numpy.ndarray
        ``(n,)`` the bounds.
    n_art : int
        The leading variables whose bounds are artificial (their multipliers go to the residual).
    zbound : float
        The box ``‖z‖∞ <= zbound`` the bound holds on.
    margin : float
        The strict-slack margin.
    out : numpy.ndarray
        ``(K,)`` bool, written: certified.
    """
    K, m, n = G.shape
    M = m + 2 * n
    F = np.zeros((M, n))
    f = np.empty(M)
    FBt = np.empty((n, n))
    yB = np.empty(n)
    y = np.zeros(M)
    eps = np.finfo(np.float64).eps
    for j in range(n):
        F[m + j, j] = 1.0
        F[m + n + j, j] = -1.0
        f[m + j] = hi[j]
        f[m + n + j] = -lo[j]
    for k in range(K):
        out[k] = False
        for i in range(m):
            acc = 0.0
            for j in range(n):
                acc += G[k, i, j] * G[k, i, j]
            nrm = np.sqrt(acc)
            if nrm > 0.0:
                for j in range(n):
                    F[i, j] = G[k, i, j] / nrm
                f[i] = h[k, i] / nrm
            else:
                for j in range(n):
                    F[i, j] = 0.0
                f[i] = h[k, i]
        for i in range(n):
            for j in range(n):
                FBt[j, i] = F[basis[k, i], j]
            yB[i] = -cost[i]
        if not batchlp_kernel.solve_in_place(FBt, yB):  # y_B = −F_B^{-T} c
            continue
        for i in range(M):
            y[i] = 0.0
        for i in range(n):  # negative parts dropped
            y[basis[k, i]] = max(yB[i], 0.0)
        for j in range(n_art):
            y[m + j] = 0.0
            y[m + n + j] = 0.0
        terms = 0.0
        absterms = 0.0
        ysum = 0.0
        for i in range(M):
            terms += y[i] * f[i]
            absterms += abs(y[i] * f[i])
            ysum += y[i]
        rsum = 0.0
        for j in range(n):
            acc = cost[j]
            for i in range(M):
                acc += F[i, j] * y[i]
            rsum += abs(acc)
        bound = terms + rsum * zbound
        rounding = 4.0 * eps * (M + n) * (absterms + n * ysum * zbound + 1.0)
        out[k] = np.isfinite(bound) and bound + rounding <= margin


@_jit
def domain_lp_kernel(A, b, task, C, d, cvalid, wfree, sel, lo, hi, keep_task, w_bound,
                     G_out, h_out, lo_out, hi_out, art_out):  # pragma: no cover - compiled
    """The rows of ``contactmodes.realtime.plan.domain_lp_rows``, one mode at a time.

    Each mode's real ambiguity columns first, in order, the other ``v − n_w`` fixed at 0; every
    number nondimensional.

    Parameters
    ----------
    A : numpy.ndarray
        ``(B, p, n_τ + s)`` the domains (33).
    b : numpy.ndarray
        ``(B, p)``.
    task : numpy.ndarray
        ``(B, p)`` bool, the task rows.
    C : numpy.ndarray
        ``(B, n_τ, n_τ)`` the admissible torques (31).
    d : numpy.ndarray
        ``(B, n_τ)``.
    cvalid : numpy.ndarray
        ``(B, n_τ)`` bool, the real rows of ``C``, ``d``.
    wfree : numpy.ndarray
        ``(B, s)`` bool, the real ambiguity columns.
    sel : numpy.ndarray
        ``(K,)`` int, the modes.
    lo, hi : numpy.ndarray
        ``(n_τ,)`` the torque box.
    keep_task : bool
        Whether task rows stay (else they become ``0 <= 1``).
    w_bound : float
        The artificial bound ``|w| <= w_bound``.
    G_out : numpy.ndarray
        ``(K, p + 2 n_τ, n_τ + v)``, written.
    h_out : numpy.ndarray
        ``(K, p + 2 n_τ)``, written.
    lo_out, hi_out : numpy.ndarray
        ``(K, n_τ + v)``, written.
    art_out : numpy.ndarray
        ``(K, n_τ + v)`` bool, written: the artificial bounds.
    """
    K = sel.size
    p = A.shape[1]
    nt = C.shape[1]
    s = A.shape[2] - nt
    nv = G_out.shape[2]
    for k in range(K):
        j = sel[k]
        for i in range(p + 2 * nt):
            for c in range(nv):
                G_out[k, i, c] = 0.0
        for c in range(nv):
            lo_out[k, c] = lo[c] if c < nt else 0.0
            hi_out[k, c] = hi[c] if c < nt else 0.0
            art_out[k, c] = False
        for i in range(p):
            drop = task[j, i] and not keep_task
            if not drop:
                for c in range(nt):
                    G_out[k, i, c] = A[j, i, c]
            h_out[k, i] = 1.0 if drop else b[j, i]
        slot = nt
        for c in range(s):
            if wfree[j, c]:
                for i in range(p):
                    if not (task[j, i] and not keep_task):
                        G_out[k, i, slot] = A[j, i, nt + c]
                lo_out[k, slot] = -w_bound
                hi_out[k, slot] = w_bound
                art_out[k, slot] = True
                slot += 1
        for i in range(nt):
            v = cvalid[j, i]
            for c in range(nt):
                x = C[j, i, c] if v else 0.0
                G_out[k, p + i, c] = x
                G_out[k, p + nt + i, c] = -x
            dv = d[j, i] if v else 0.0
            h_out[k, p + i] = dv
            h_out[k, p + nt + i] = -dv


@_jit
def point_test_kernel(A, b, valid, task, C, d, cvalid, wfree, feasible, others, tau, point_tol, w_bound, slack_cap,
                      state, tol_out, G_out, h_out, lo_out, hi_out, art_out):  # pragma: no cover - compiled
    """Whether ``tau`` lies in ``T_c`` (untasked) of each mode ``others`` up to ``point_tol``.

    The row checks of the max-thrust controller's point test (``controllers.generic.search``, its
    NumPy reference), one mode at a time; every number nondimensional. Domain rows are divided by
    their norms; the tolerance is ``point_tol · max(1, ‖τ‖∞, max|b_normalized|)``. A mode whose rows
    ``w`` enters is not decided by the rows: its max-slack LP over ``(w, t)`` is written (minimize
    ``t`` with ``A_w w − t <= rhs`` on the untasked valid rows, others ``0 <= 1``,
    ``|w| <= w_bound`` (artificial) on the real ambiguity columns, others fixed at 0,
    ``−1 <= t <= slack_cap``); ``tau`` is inside when its optimum is ``<= tol_out``.

    Parameters
    ----------
    A : numpy.ndarray
        ``(B, p, n_τ + s)`` the domains (33).
    b : numpy.ndarray
        ``(B, p)``.
    valid : numpy.ndarray
        ``(B, p)`` bool, the real rows.
    task : numpy.ndarray
        ``(B, p)`` bool, the task rows (skipped).
    C : numpy.ndarray
        ``(B, n_τ, n_τ)`` the admissible torques (31).
    d : numpy.ndarray
        ``(B, n_τ)``.
    cvalid : numpy.ndarray
        ``(B, n_τ)`` bool.
    wfree : numpy.ndarray
        ``(B, s)`` bool, the real ambiguity columns.
    feasible : numpy.ndarray
        ``(B,)`` bool, the modes' feasibility.
    others : numpy.ndarray
        ``(K,)`` int, the modes tested.
    tau : numpy.ndarray
        ``(n_τ,)`` the torque (nondimensional).
    point_tol : float
        The relative tolerance.
    w_bound : float
        The artificial bound on ``w``.
    slack_cap : float
        The upper bound of ``t``.
    state : numpy.ndarray
        ``(K,)`` int, written: 0 outside, 1 inside (decided by the rows), 2 not decided (LP written).
    tol_out : numpy.ndarray
        ``(K,)``, written: the absolute tolerance.
    G_out : numpy.ndarray
        ``(K, p, s + 1)``, written.
    h_out : numpy.ndarray
        ``(K, p)``, written.
    lo_out, hi_out : numpy.ndarray
        ``(K, s + 1)``, written.
    art_out : numpy.ndarray
        ``(K, s + 1)`` bool, written.
    """
    K = others.size
    p = A.shape[1]
    nz = A.shape[2]
    nt = C.shape[1]
    s = nz - nt
    tmax = 1.0
    for c in range(nt):
        tmax = max(tmax, abs(tau[c]))
    nrm = np.empty(p)
    for k in range(K):
        j = others[k]
        state[k] = 0
        tol_out[k] = np.nan
        if not feasible[j]:
            continue
        bscale = 0.0
        for i in range(p):
            if valid[j, i] and not task[j, i]:
                acc = 0.0
                for c in range(nz):
                    acc += A[j, i, c] * A[j, i, c]
                acc = np.sqrt(acc)
                nrm[i] = acc if acc > 0.0 else 1.0
                bscale = max(bscale, abs(b[j, i] / nrm[i]))
        tol = point_tol * max(tmax, bscale)
        tol_out[k] = tol
        inside = True
        for i in range(nt):
            if cvalid[j, i]:
                acc = 0.0
                for c in range(nt):
                    acc += C[j, i, c] * tau[c]
                if not abs(acc - d[j, i]) <= tol:
                    inside = False
        if not inside:
            continue
        uses_w = False
        for c in range(s):
            if wfree[j, c]:
                for i in range(p):
                    if valid[j, i] and not task[j, i] and A[j, i, nt + c] != 0.0:
                        uses_w = True
        for i in range(p):
            keep = valid[j, i] and not task[j, i]
            rhs = 1.0
            if keep:
                acc = 0.0
                for c in range(nt):
                    acc += (A[j, i, c] / nrm[i]) * tau[c]
                rhs = b[j, i] / nrm[i] - acc
            if uses_w:
                for c in range(s):
                    G_out[k, i, c] = A[j, i, nt + c] / nrm[i] if keep else 0.0
                G_out[k, i, s] = -1.0 if keep else 0.0
                h_out[k, i] = rhs if keep else 1.0
            elif not rhs >= -tol:
                inside = False
        if uses_w:
            state[k] = 2
            for c in range(s):
                f = wfree[j, c]
                lo_out[k, c] = -w_bound if f else 0.0
                hi_out[k, c] = w_bound if f else 0.0
                art_out[k, c] = f
            lo_out[k, s] = -1.0
            hi_out[k, s] = slack_cap
            art_out[k, s] = False
        elif inside:
            state[k] = 1


def compile_kernel() -> float:
    """Compile the kernels now (once per process) on a two-mode example, the responses' kernel
    (``contactmodes.modes.response_kernels``) included; returns the seconds spent (0 when already
    compiled or numba is missing)."""
    global _compiled
    if not AVAILABLE or _compiled is not None:
        return 0.0
    t0 = time.perf_counter()
    response_kernels.compile_kernel()
    w = response_kernels.warm_up()
    m, n, nt, B, s = w.m, w.n, w.nt, w.B, w.s
    args = w.out
    domains_kernel(np.hstack([w.Abank, w.Bbank]), w.bbank, w.rowp, n, args[0], args[1], args[2],
                   np.zeros((B, m, nt + s)), np.zeros((B, m)))
    K, p, nz = 2, m, nt + s
    A, b, task = np.zeros((B, p, nz)), np.zeros((B, p)), np.zeros((B, p), np.bool_)
    domain_lp_kernel(A, b, task, args[4], args[5], args[6], args[3], np.arange(K), np.zeros(nt), np.ones(nt), True,
                     1.0, np.zeros((K, p + 2 * nt, nz)), np.zeros((K, p + 2 * nt)), np.zeros((K, nz)),
                     np.zeros((K, nz)), np.zeros((K, nz), np.bool_))
    point_test_kernel(A, b, ~task, task, args[4], args[5], args[6], args[3], np.ones(B, np.bool_), np.arange(K),
                      np.zeros(nt), 1e-6, 1.0, 1.0, np.zeros(K, np.int64), np.zeros(K), np.zeros((K, p, s + 1)),
                      np.zeros((K, p)), np.zeros((K, s + 1)), np.zeros((K, s + 1)), np.zeros((K, s + 1), np.bool_))
    kin = np.array([[0, 5, 12], [2, 9, 16]])
    Gk, hk = np.zeros((2, 3, n + 1)), np.zeros((2, 3))
    kinematic_rows_kernel(np.ones((2, n)), np.ones(2), kin, 1e-7, Gk, hk)
    kinematic_decide_kernel(np.array([0, 2]), np.zeros((2, n + 1)), np.zeros(2), 1e-7, 1e-8, np.zeros(2, np.bool_),
                            np.zeros(2, np.bool_))
    prefix_certify_kernel(Gk, hk, np.array([[3, 4, 5, 6], [3, 4, 5, 6]]), np.array([0.0, 0.0, 0.0, -1.0]),
                          -np.ones(n + 1), np.ones(n + 1), n, 1.0, 1e-7, np.zeros(2, np.bool_))
    scale_terms_kernel(np.eye(n), np.ones(n), np.ones((n, nt)), np.ones((2, n)), np.ones(2), np.ones(2), np.ones(1),
                       1.0, 1.0, 1.0, 1.0, 1.0, np.ones((1, n)), np.ones((1, 2)), np.ones((1, nt)), np.ones(1))
    _compiled = True
    return time.perf_counter() - t0
