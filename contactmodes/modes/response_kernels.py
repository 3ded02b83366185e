"""The compiled form of ``contactmodes.modes._pivot_response.pivot_responses``: one mode at a time
(and of its pivot choice, ``pivots_kernel``: LAPACK's ``dgeqp3`` called from the compiled loop,
the rank proved from the QR factor where it can be, the SVD rule's otherwise).

The same computation as the NumPy reference (its module doc: responses (24)–(31) through each
mode's pivot block, the rank decision *certified* to be the SVD rule's, the rank and consistency
of (31) and the objective's uniqueness certified the same way), written as loops over the modes
of a batch and compiled by numba (``nopython``), because for the handful of modes of a control
step the NumPy per-call overhead outweighs the arithmetic. Nothing is decided here that the NumPy
path does not decide: a mode whose certificate fails is reported uncertified and
``contactmodes.modes.response.batched_responses`` computes it by the SVD, exactly as on the NumPy
path (``tests/contactmodes/realtime/test_layout.py`` compares the two).

numba is optional (the ``compiled`` extra): without it ``AVAILABLE`` is false, the function below
is plain Python and ``batched_responses`` uses the NumPy reference. Compilation costs a few
seconds once per machine and version (the on-disk cache of ``polytopes.batchlp_kernel`` in
``CACHE_DIR``); ``compile_kernel`` pays it up front.

A public module of ``modes``: ``contactmodes.realtime.kernels`` compiles it and warms it up
(``compile_kernel``, ``warm_up``) together with its own kernels.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np

from polytopes import batchlp_kernel

from contactmodes import tolerances

AVAILABLE = batchlp_kernel.AVAILABLE

_RANK = float(tolerances.RANK_RTOL)
_CANCEL = float(tolerances.CANCEL_RTOL)
_GAP = float(tolerances.PIVOT_CERT_GAP)
_CONS = float(tolerances.CONSISTENCY_RTOL)
_AMB = float(tolerances.AMBIGUITY_ATOL)
_compiled = None

CACHE_DIR = batchlp_kernel.cache_dir_for(__file__, tolerances.__file__, batchlp_kernel.__file__,
                                         batchlp_kernel.tol.__file__) if AVAILABLE else None
"""Directory of this module's compiled-kernel cache (``polytopes.batchlp_kernel.cache_dir_for``
of its sources, the tolerances it compiles in and the batched-LP kernel it calls), or ``None``."""


_jit = batchlp_kernel.jit_cached(CACHE_DIR)


@_jit
def responses_kernel(Abank, Bbank, bbank, rowp, colp, rank, inv, m, n, cobj,
                     P_out, Q_out, r_out, wfree, C_out, d_out, cvalid, consistent, unique, n_w, ok):  # pragma: no cover
    """Certified responses of a batch of ``B`` modes (module doc), written in place.

    The arrays are those of ``contactmodes.modes.response.BatchedResponses``; every number is
    nondimensional (the scaled problem of ``contactmodes.model.scaling``). ``n = n_q + 2k``,
    ``s = max(m, n)``.

    Parameters
    ----------
    Abank : numpy.ndarray
        ``(E, n)`` the equality bank's coefficients of ``x = (q̈, f)`` (eq. 24).
    Bbank : numpy.ndarray
        ``(E, n_τ)`` its τ-coefficients.
    bbank : numpy.ndarray
        ``(E,)`` its constants.
    rowp : numpy.ndarray
        ``(B, m)`` int, each mode's bank rows in pivot order.
    colp : numpy.ndarray
        ``(B, n)`` int, each mode's column order.
    rank : numpy.ndarray
        ``(B,)`` int, each mode's rank (its pivot choice).
    inv : numpy.ndarray
        ``(B, n)`` int, the inverse permutations of ``colp``.
    m : int
        Rows per mode.
    n : int
        Unknowns ``n_q + 2k``.
    cobj : numpy.ndarray
        ``(n,)`` the objective's coefficients on ``x``, unit 2-norm or zero (``cobjᵀ Q`` decides
        ``unique``).
    P_out : numpy.ndarray
        ``(B, n, n_τ)``, written: τ-coefficients of ``x``.
    Q_out : numpy.ndarray
        ``(B, n, s)``, written: w-coefficients (pivot coordinates).
    r_out : numpy.ndarray
        ``(B, n)``, written: constant part.
    wfree : numpy.ndarray
        ``(B, s)`` bool, written: the real ambiguity columns.
    C_out : numpy.ndarray
        ``(B, n_τ, n_τ)``, written: admissible torques (31) ``C τ = d``.
    d_out : numpy.ndarray
        ``(B, n_τ)``, written.
    cvalid : numpy.ndarray
        ``(B, n_τ)`` bool, written: the real rows of ``C``, ``d``.
    consistent : numpy.ndarray
        ``(B,)`` bool, written: some τ satisfies (31).
    unique : numpy.ndarray
        ``(B,)`` bool, written: the objective does not depend on ``w``.
    n_w : numpy.ndarray
        ``(B,)`` int, written: number of ambiguity variables.
    ok : numpy.ndarray
        ``(B,)`` bool, written: the certificate held (else the caller computes the mode by the
        SVD).
    """
    Bn = rowp.shape[0]
    nt = Bbank.shape[1]
    s = max(m, n)
    thr = _RANK * max(m, n)
    A = np.zeros((s, s))
    Bt = np.zeros((s, nt))
    bb = np.zeros(s)
    K = np.zeros((s, s))
    Kinv = np.zeros((s, s))
    Q = np.zeros((s, s))
    P = np.zeros((s, nt))
    r = np.zeros(s)
    G = np.zeros((s, nt))
    g = np.zeros(s)
    for j in range(Bn):
        rk = rank[j]
        A[:, :] = 0.0
        Bt[:, :] = 0.0
        bb[:] = 0.0
        for a in range(m):
            e = rowp[j, a]
            for c in range(n):
                A[a, c] = Abank[e, colp[j, c]]
            for c in range(nt):
                Bt[a, c] = Bbank[e, c]
            bb[a] = bbank[e]
        K[:, :] = 0.0
        for a in range(s):
            if a < rk:
                for c in range(rk):
                    K[a, c] = A[a, c]
            else:
                K[a, a] = 1.0
        good = batchlp_kernel.invert(K, Kinv)
        if not good:
            Kinv[:, :] = 0.0
            for a in range(s):
                Kinv[a, a] = 1.0
        # Q = diag(npf) − (Kinv @ AR)·npf, P = Kinv @ (Bt·pf), r = Kinv @ (b·pf); Kinv is block
        # diagonal (A₁₁⁻¹ and the identity), so its rows >= rk only copy
        for a in range(s):
            for c in range(s):
                if c < rk:
                    Q[a, c] = 0.0
                elif a >= rk:
                    Q[a, c] = 1.0 if a == c else 0.0
                else:
                    acc = 0.0
                    for l in range(rk):
                        acc += Kinv[a, l] * A[l, c]
                    Q[a, c] = -acc
            for c in range(nt):
                acc = 0.0
                for l in range(rk):
                    acc += Kinv[a, l] * Bt[l, c]
                P[a, c] = acc
            acc = 0.0
            for l in range(rk):
                acc += Kinv[a, l] * bb[l]
            r[a] = acc
        # certificate of the rank decision: σ_{r+1} <= ‖A Q‖_F, σ_r >= 1/‖A₁₁⁻¹‖_F
        aq2 = 0.0
        for a in range(m):  # rows >= m of A are padding zeros, columns < rk of Q zero
            for c in range(rk, s):
                acc = 0.0
                for l in range(s):
                    acc += A[a, l] * Q[l, c]
                aq2 += acc * acc
        fro2 = 0.0
        colmax2 = 0.0
        for c in range(s):
            col = 0.0
            for a in range(s):
                col += A[a, c] * A[a, c]
            fro2 += col
            colmax2 = max(colmax2, col)
        kinv2 = 0.0
        for a in range(s):
            for c in range(s):
                kinv2 += Kinv[a, c] * Kinv[a, c]
        okj = good and (aq2 <= thr * thr * colmax2) and (thr * thr * fro2 * kinv2 < 1.0)
        # admissible torques (31) from the non-pivot rows, certified against the SVD rule
        for c in range(nt):
            cvalid[j, c] = False
            d_out[j, c] = 0.0
            for c2 in range(nt):
                C_out[j, c, c2] = 0.0
        cons = True
        if rk < m:
            wsum = 0.0
            for a in range(s):
                if a < rk:
                    for c in range(nt):
                        G[a, c] = 0.0
                    g[a] = 0.0
                    continue
                for c in range(nt):  # rows >= rk of P and r are zero, columns >= rk of Kinv's top rows
                    acc = 0.0
                    for l in range(rk):
                        acc += A[a, l] * P[l, c]
                    G[a, c] = acc - Bt[a, c]
                acc = 0.0
                for l in range(rk):
                    acc += A[a, l] * r[l]
                g[a] = bb[a] - acc
                for c in range(rk):
                    acc = 0.0
                    for l in range(rk):
                        acc += A[a, l] * Kinv[l, c]
                    wsum += acc * acc
            ynorm = max(1.0, np.sqrt((s - rk) + wsum))
            U2, s2, V2t = np.linalg.svd(G, full_matrices=False)
            smax = s2[0]
            thr2 = _RANK * max(m - rk, nt)
            bnorm = np.inf
            for c in range(nt):
                col = 0.0
                for a in range(s):
                    col += Bt[a, c] * Bt[a, c]
                col = np.sqrt(col)
                if col > 0.0:
                    bnorm = min(bnorm, col)
            if not np.isfinite(bnorm):
                bnorm = 1.0
            r2 = 0
            undecided = False  # a singular value neither big nor small
            noise = True  # every singular value at rounding level: C0 cleaned to zero, rank 0
            for c in range(nt):
                lo_s = s2[c] / ynorm
                big = (lo_s > thr2 * smax) and (lo_s > _GAP * _CANCEL * bnorm)
                small_abs = s2[c] <= _CANCEL / _GAP * bnorm
                small = (s2[c] <= thr2 * (smax / ynorm)) and small_abs
                if not small_abs:
                    noise = False
                if not (big or small):
                    undecided = True
                if big:
                    r2 += 1
            if undecided and not noise:
                okj = False
            res2 = 0.0
            for a in range(s):
                acc = g[a]
                for c in range(r2):
                    pc = 0.0
                    for l in range(s):
                        pc += U2[l, c] * g[l]
                    acc -= U2[a, c] * pc
                res2 += acc * acc
            resid = np.sqrt(res2)
            scale = 1.0
            for a in range(s):
                scale = max(scale, abs(bb[a]))
                for c in range(nt):
                    scale = max(scale, abs(Bt[a, c]))
            tolc = _CONS * scale
            cons = resid <= tolc
            incons = resid / (ynorm * np.sqrt(max(m - rk - r2, 1))) > tolc
            if not (cons or incons):
                okj = False
            for c in range(r2):
                pc = 0.0
                for l in range(s):
                    pc += U2[l, c] * g[l]
                cvalid[j, c] = True
                d_out[j, c] = pc / s2[c]
                for c2 in range(nt):
                    C_out[j, c, c2] = V2t[c, c2]
        # back to the natural order of x = (q̈, f)
        nw = 0
        for c in range(s):
            wfree[j, c] = c >= rk and c < n
            if wfree[j, c]:
                nw += 1
        qfro2 = 0.0
        for a in range(n):
            ia = inv[j, a]
            for c in range(nt):
                P_out[j, a, c] = P[ia, c]
            r_out[j, a] = r[ia]
            for c in range(s):
                v = Q[ia, c] if wfree[j, c] else 0.0
                Q_out[j, a, c] = v
                qfro2 += v * v
        nw_first = rk
        qn2 = 0.0
        for c in range(nw_first, s):  # columns < rank are zero
            acc = 0.0
            for a in range(n):
                if cobj[a] != 0.0:  # the objective's terms only (a zero term adds a signed zero)
                    acc += cobj[a] * Q_out[j, a, c]
            qn2 += acc * acc
        qn = np.sqrt(qn2)
        zero = qn <= _AMB
        moves = qn > _AMB * np.sqrt(qfro2) * np.sqrt(max(nw, 1))
        if not (zero or moves):
            okj = False
        n_w[j] = nw
        unique[j] = zero
        consistent[j] = cons and okj
        ok[j] = okj


_LAPACK: list = []  # [(dgeqp3,) or None] once asked for (``lapack``)


def lapack():
    """LAPACK's ``dgeqp3`` (pivoted QR) from ``scipy.linalg.cython_lapack`` as a ctypes function
    (the library SciPy's ``geqp3`` wrapper calls), in a 1-tuple, for ``pivots_kernel``, which takes
    it as an argument (a function pointer compiled in would keep numba from caching the kernel);
    ``None`` without numba or when SciPy does not export it (then ``pivot_choices`` takes the NumPy
    path)."""
    if not _LAPACK:
        try:
            import ctypes

            from numba.extending import get_cython_function_address

            i_p, d_p = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)
            _LAPACK.append((ctypes.CFUNCTYPE(None, i_p, i_p, d_p, i_p, i_p, d_p, d_p, i_p, i_p)(
                get_cython_function_address("scipy.linalg.cython_lapack", "dgeqp3")),))
        except (ImportError, AttributeError, ValueError):  # no numba, or no dgeqp3 in this SciPy
            _LAPACK.append(None)
    return _LAPACK[0]


@_jit
def _geqp3(geqp3, a, jpvt, tau, work, lwork, iv):  # pragma: no cover
    """LAPACK ``dgeqp3`` on the Fortran-ordered ``a`` (m, n), in place (``jpvt`` (n,) int32 zeroed
    by the caller: every column free); ``lwork = -1`` queries the workspace into ``work[0]``.
    Returns LAPACK's ``info``."""
    iv[0] = a.shape[0]
    iv[1] = a.shape[1]
    iv[2] = max(a.shape[0], 1)
    iv[3] = lwork
    iv[4] = 0
    geqp3(iv[0:].ctypes, iv[1:].ctypes, a.ctypes, iv[2:].ctypes, jpvt.ctypes, tau.ctypes, work.ctypes,
          iv[3:].ctypes, iv[4:].ctypes)
    return iv[4]


@_jit
def _lwork(geqp3, m, n, iv):  # pragma: no cover
    """``dgeqp3``'s optimal workspace for an (m, n) matrix (its query; SciPy's wrapper asks the same)."""
    a = np.zeros((n, m)).T
    work = np.zeros(1)
    _geqp3(geqp3, a, np.zeros(n, np.int32), np.zeros(max(min(m, n), 1)), work, -1, iv)
    return max(int(work[0]), 1)


@_jit
def pivots_kernel(geqp3, As, thr, gap, rows_out, cols_out, rank_out, certified):  # pragma: no cover
    """``contactmodes.modes._pivot_response.choose_pivots`` of each matrix where its rank is certified.

    Per matrix one ``dgeqp3`` (the same call as ``_qr_pivots``), the rank ``r`` guessed from ``R``'s
    diagonal (the leading run above ``thr·|R₀₀|``) and proved to be the SVD rule's by
    ``σ_{r+1} <= ‖R₂₂‖_F <= thr·σ_max / gap`` and ``σ_r >= 1/‖R₁₁⁻¹‖_F > gap·thr·‖A‖_F``
    (``|R₀₀|``, the largest column norm, ``<= σ_max <= ‖A‖_F``; the margin ``gap`` dwarfs the
    rounding of ``R`` and of an SVD), then the second ``dgeqp3`` for the rows. An uncertified matrix
    is left to the caller (the SVD rule).

    Parameters
    ----------
    geqp3 : ctypes.CFUNCTYPE
        LAPACK's ``dgeqp3`` (``lapack()[0]``).
    As : numpy.ndarray
        ``(B, m, n)`` the nondimensional equality matrices (24).
    thr : float
        The rank threshold ``RANK_RTOL · max(m, n)``.
    gap : float
        The certificate's margin (``tolerances.PIVOT_CERT_GAP``).
    rows_out : numpy.ndarray
        ``(B, m)`` int64, written: the row order.
    cols_out : numpy.ndarray
        ``(B, n)`` int64, written: the column order.
    rank_out : numpy.ndarray
        ``(B,)`` int64, written: the rank.
    certified : numpy.ndarray
        ``(B,)`` bool, written: the rank was proved.
    """
    Bn, m, n = As.shape
    k = min(m, n)
    iv = np.zeros(5, np.int32)
    a = np.zeros((n, m)).T  # Fortran order, as SciPy's wrapper copies its argument
    jp = np.zeros(n, np.int32)
    tau = np.zeros(max(k, 1))
    work = np.zeros(_lwork(geqp3, m, n, iv))
    lw2 = np.zeros(k + 1, np.int64)  # the row pivoting's workspace per rank (queried when needed)
    jp2 = np.zeros(m, np.int32)
    tau2 = np.zeros(max(k, 1))
    R11 = np.zeros((k, k))
    for b in range(Bn):
        A = As[b]
        certified[b] = False
        a[:, :] = A
        jp[:] = 0
        if _geqp3(geqp3, a, jp, tau, work, work.shape[0], iv) != 0:
            continue
        r00 = abs(a[0, 0]) if k > 0 else 0.0
        r = 0
        while r < k and abs(a[r, r]) > thr * r00:
            r += 1
        s22 = 0.0
        for i in range(r, k):
            for j in range(i, n):
                s22 += a[i, j] * a[i, j]
        ok = gap * np.sqrt(s22) <= thr * r00
        if ok and r > 0:
            fro = 0.0
            for i in range(m):
                for j in range(n):
                    fro += A[i, j] * A[i, j]
            # ‖R₁₁⁻¹‖_F by back substitution, column by column (R₁₁ upper triangular)
            ninv = 0.0
            for c in range(r):
                for i in range(r - 1, -1, -1):
                    v = 1.0 if i == c else 0.0
                    for j in range(i + 1, r):
                        v -= a[i, j] * R11[j, c]
                    R11[i, c] = v / a[i, i]
                    ninv += R11[i, c] * R11[i, c]
            ok = np.isfinite(ninv) and gap * thr * np.sqrt(fro) * np.sqrt(ninv) < 1.0
        if not ok:
            continue
        cols = jp - 1
        cols[:r] = np.sort(cols[:r])
        cols[r:] = np.sort(cols[r:])
        if r > 0:
            if lw2[r] == 0:
                lw2[r] = _lwork(geqp3, r, m, iv)
            a2 = np.zeros((m, r)).T
            for i in range(r):
                for j in range(m):
                    a2[i, j] = A[j, cols[i]]
            w2 = np.zeros(lw2[r])
            jp2[:] = 0
            if _geqp3(geqp3, a2, jp2, tau2, w2, w2.shape[0], iv) != 0:
                continue
            top = np.sort(jp2[:r] - 1)
            chosen = np.zeros(m, np.bool_)
            for i in range(r):
                rows_out[b, i] = top[i]
                chosen[top[i]] = True
            p = r
            for i in range(m):
                if not chosen[i]:
                    rows_out[b, p] = i
                    p += 1
        else:
            for i in range(m):
                rows_out[b, i] = i
        for j in range(n):
            cols_out[b, j] = cols[j]
        rank_out[b] = r
        certified[b] = True


def warm_up() -> SimpleNamespace:
    """The two-mode example the compile functions warm the kernels up on (this module's and
    ``contactmodes.realtime.kernels``'): ``m = 4`` rows, ``n = 3`` unknowns, ``nt = 2`` torques,
    ``B = 2`` modes, ``s = max(m, n)``; the banks ``Abank`` (m, n), ``Bbank`` (m, nt), ``bbank``
    (m,); the pivots ``rowp`` (B, m), ``colp`` (B, n); ``out``, the eleven output arrays of
    ``responses_kernel`` in its order."""
    m, n, nt, B = 4, 3, 2, 2
    s = max(m, n)
    out = (np.zeros((B, n, nt)), np.zeros((B, n, s)), np.zeros((B, n)), np.zeros((B, s), np.bool_),
           np.zeros((B, nt, nt)), np.zeros((B, nt)), np.zeros((B, nt), np.bool_), np.zeros(B, np.bool_),
           np.zeros(B, np.bool_), np.zeros(B, np.int64), np.zeros(B, np.bool_))
    return SimpleNamespace(m=m, n=n, nt=nt, B=B, s=s, out=out,
                           Abank=np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                           Bbank=np.ones((m, nt)), bbank=np.ones(m), rowp=np.tile(np.arange(m), (B, 1)),
                           colp=np.tile(np.arange(n), (B, 1)))


def compile_kernel() -> float:
    """Compile ``responses_kernel`` and ``pivots_kernel`` now (once per process) on a two-mode example (``warm_up``);
    returns the seconds spent (0 when already compiled or numba is missing)."""
    global _compiled
    if not AVAILABLE or _compiled is not None:
        return 0.0
    t0 = time.perf_counter()
    w = warm_up()
    responses_kernel(w.Abank, w.Bbank, w.bbank, w.rowp, w.colp, np.array([3, 2]), w.colp.copy(), w.m, w.n,
                     np.eye(w.n)[0], *w.out)
    if lapack() is not None:
        pivots_kernel(lapack()[0], np.stack([w.Abank, w.Abank]), 1e-10, 1e2, np.zeros((2, w.m), np.int64),
                      np.zeros((2, w.n), np.int64), np.zeros(2, np.int64), np.zeros(2, np.bool_))
    _compiled = True
    return time.perf_counter() - t0
