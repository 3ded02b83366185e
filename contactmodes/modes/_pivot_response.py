"""The batched pivot responses (24)–(31): the NumPy reference of
``contactmodes.modes.response.batched_responses`` (private; ``response_kernels`` compiles the
same computation one mode at a time).

For each mode a pivot choice (``r`` rows and columns of ``A``, ``choose_pivots``) is given; the
pivot block ``A₁₁`` is inverted (batched) and the response is ``x_C = A₁₁⁻¹(B_R τ + b_R − A₁₂ w)``,
``x_C̄ = w``, the remaining rows giving the admissible torques (31). The rank decision is
*certified* to be the one the SVD rule (``contactmodes._linalg.numerical_rank``) takes:
``σ_{r+1}(A) <= ‖Schur complement‖_F`` (a rank-``r`` matrix differs from ``A`` by it) and
``σ_r(A) >= σ_min(A₁₁) >= 1/‖A₁₁⁻¹‖_F`` (interlacing), compared with the SVD threshold computed
from bounds of ``σ_max``. The rank and consistency of (31) and the uniqueness of the objective
(III-G.2) are certified the same way, through the factor relating this (non-orthonormal)
null-space basis to the orthonormal one of ``response_from_equations`` (``‖(QᵀQ)^{-1/2}‖ <= 1``
because ``Q`` contains an identity block); when every singular value of the rows of (31) is at
rounding level (below ``1e-2 · CANCEL_RTOL`` times the smallest nonzero column norm of ``B``),
``response_from_equations`` cleans them all to zero, so their rank is certified to be 0 without
the relative rule (which compares noise with noise: statically indeterminate systems such as a
snake wedged by six contacts have hundreds of such modes). A mode whose certificate fails is reported
uncertified; the public entry computes it by the SVD.
"""

from __future__ import annotations

import numpy as np

from contactmodes import tolerances
from contactmodes._linalg import numerical_rank, numerical_ranks


def pivot_responses(Abank, Bbank, bbank, rowp, colp, rank, inv, m: int, n: int, cobj):
    """Certified responses of a batch of ``B`` modes (module doc), NumPy reference.

    ``Abank`` (E, n), ``Bbank`` (E, n_τ), ``bbank`` (E,) the equality banks; per mode ``rowp``
    (B, m) bank rows in pivot order, ``colp`` (B, n) column order, ``rank`` (B,), ``inv`` (B, n)
    the inverse column order; ``cobj`` (n,) the objective's coefficients on ``x = (q̈, f)``, unit 2-norm or zero
    (``cobjᵀ Q`` decides ``unique``).
    Returns ``(P, Q, r, wfree, C, d, cvalid, consistent, unique, n_w, ok)``, the arrays of
    ``contactmodes.modes.response.BatchedResponses`` (``ok`` the certificate)."""
    Bn = rowp.shape[0]
    nt = Bbank.shape[1]
    s = max(m, n)
    A = Abank[rowp[:, :, None], colp[:, None, :]]  # (B, m, n) permuted
    Bt, b = Bbank[rowp], bbank[rowp]
    if m < s:
        A = np.concatenate([A, np.zeros((Bn, s - m, n))], axis=1)
        Bt = np.concatenate([Bt, np.zeros((Bn, s - m, nt))], axis=1)
        b = np.concatenate([b, np.zeros((Bn, s - m))], axis=1)
    if n < s:
        A = np.concatenate([A, np.zeros((Bn, s, s - n))], axis=2)
    ar = np.arange(s)
    piv = ar[None, :] < rank[:, None]  # (B, s): pivot rows / columns come first
    pf = piv.astype(float)
    npf = 1.0 - pf
    eye = np.eye(s)
    K = A * (pf[:, :, None] * pf[:, None, :]) + eye * npf[:, None, :]
    Kinv = inverse(K)
    ok = np.all(np.isfinite(Kinv), axis=(1, 2))
    Kinv[~ok] = eye
    AR = A * pf[:, :, None]
    Q = eye * npf[:, None, :] - (Kinv @ AR) * npf[:, None, :]
    P = Kinv @ (Bt * pf[:, :, None])
    r = np.einsum("bij,bj->bi", Kinv, b * pf)
    # certificate of the rank decision (module doc): σ_{r+1} <= ‖A Q‖_F, σ_r >= 1/‖A₁₁⁻¹‖_F
    AQ = A @ Q
    sq = A * A
    fro2 = np.sum(sq, axis=(1, 2))
    colmax2 = np.max(np.sum(sq, axis=1), axis=1)
    thr = tolerances.RANK_RTOL * max(m, n)
    ok &= (np.sum(AQ * AQ, axis=(1, 2)) <= thr * thr * colmax2) & \
        (thr * thr * fro2 * np.sum(Kinv * Kinv, axis=(1, 2)) < 1.0)
    # admissible torques (31) from the non-pivot rows, certified against the SVD rule applied
    # by response_from_equations to the orthonormal left null space (module doc)
    cvalid = np.zeros((Bn, nt), dtype=bool)
    C = np.zeros((Bn, nt, nt))
    d = np.zeros((Bn, nt))
    consistent = np.ones(Bn, dtype=bool)
    red = np.flatnonzero(rank < m)
    if red.size:
        pr, npr = pf[red], npf[red]
        Ar = A[red]
        G = (Ar @ P[red] - Bt[red]) * npr[:, :, None]
        g = (b[red] - np.einsum("bij,bj->bi", Ar, r[red])) * npr
        W = ((Ar * pr[:, None, :]) @ Kinv[red]) * npr[:, :, None]
        ynorm = np.maximum(1.0, np.sqrt(np.sum(npr, axis=1) + np.sum(W * W, axis=(1, 2))))
        U2, s2, V2t = np.linalg.svd(G, full_matrices=False)  # (R, s, nt), (R, nt), (R, nt, nt)
        smax_hi = s2[:, 0]
        rk = rank[red]
        thr2 = (tolerances.RANK_RTOL * np.maximum(m - rk, nt))[:, None]  # the rule on C0: (m − rank, n_τ)
        bcol = np.sqrt(np.sum(Bt[red] ** 2, axis=1))
        bnorm = np.min(np.where(bcol > 0.0, bcol, np.inf), axis=1)
        bnorm = np.where(np.isfinite(bnorm), bnorm, 1.0)[:, None]
        # big: above the rule's threshold and far above the response's cancellation rule (entries
        # of C0 below CANCEL_RTOL·‖B col‖ are zeroed there); small: at rounding level
        # (when every singular value is at rounding level, the response cleans all of C0 to zero:
        # rank 0 whatever the relative rule says about noise against noise)
        lo_s = s2 / ynorm[:, None]
        gap = tolerances.PIVOT_CERT_GAP
        big = (lo_s > thr2 * smax_hi[:, None]) & (lo_s > gap * tolerances.CANCEL_RTOL * bnorm)
        noise = s2 <= tolerances.CANCEL_RTOL / gap * bnorm
        small = (s2 <= thr2 * (smax_hi / ynorm)[:, None]) & noise
        ok[red] &= np.all(big | small, axis=1) | np.all(noise, axis=1)
        r2 = np.sum(big, axis=1)
        proj = np.einsum("bji,bj->bi", U2, g)
        keep = np.arange(nt)[None, :] < r2[:, None]
        resid = np.sqrt(np.sum((g - np.einsum("bij,bj->bi", U2, proj * keep)) ** 2, axis=1))
        scale = np.maximum(1.0, np.maximum(np.max(np.abs(b[red]), axis=1), np.max(np.abs(Bt[red]), axis=(1, 2))))
        tolc = tolerances.CONSISTENCY_RTOL * scale
        cons = resid <= tolc
        incons = resid / (ynorm * np.sqrt(np.maximum(m - rk - r2, 1))) > tolc
        ok[red] &= cons | incons
        consistent[red] = cons
        cvalid[red] = keep
        C[red] = V2t * keep[:, :, None]
        d[red] = np.where(keep, proj / np.where(keep, s2, 1.0), 0.0)
    # back to the natural order of x = (q̈, f)
    bi = np.arange(Bn)[:, None]
    P = P[bi, inv]
    r = r[bi, inv]
    wfree = ~piv
    wfree[:, n:] = False
    Q = Q[bi, inv] * wfree[:, None, :]
    n_w = np.sum(wfree, axis=1)
    qn = np.sqrt(np.sum(np.einsum("a,bas->bs", cobj, Q) ** 2, axis=1))
    qfro = np.sqrt(np.sum(Q * Q, axis=(1, 2)))
    zero = qn <= tolerances.AMBIGUITY_ATOL
    moves = qn > tolerances.AMBIGUITY_ATOL * qfro * np.sqrt(np.maximum(n_w, 1))
    ok &= zero | moves
    return P, Q, r, wfree, C, d, cvalid, consistent & ok, zero, n_w, ok


def inverse(K: np.ndarray) -> np.ndarray:
    """Batched inverse; exactly singular entries come back as NaN."""
    try:
        return np.linalg.inv(K)
    except np.linalg.LinAlgError:
        out = np.full(K.shape, np.nan)
        good = np.abs(np.linalg.det(K)) > 0.0
        if np.any(good):
            out[good] = np.linalg.inv(K[good])
        return out


_LWORK: dict[tuple, int] = {}
"""``geqp3``'s optimal workspace per ``(shape, dtype)``, from its workspace query (which reads only
the sizes): asked once per shape, so each pivoting is one LAPACK call with the same ``lwork``."""


def _geqp3_pivots(geqp3, a: np.ndarray) -> np.ndarray:
    """The column permutation (0-based) of ``geqp3`` (a SciPy LAPACK wrapper) on the finite,
    non-empty 2-D ``a``, with the workspace its query gives (``_LWORK``)."""
    key = (a.shape, a.dtype.char)
    lwork = _LWORK.get(key)
    if lwork is None:
        work = geqp3(a, lwork=-1, overwrite_a=False)
        lwork = _LWORK[key] = int(work[-2][0].real)
    ret = geqp3(a, lwork=lwork, overwrite_a=False)
    if ret[-1] < 0:
        raise ValueError(f"illegal value in {-ret[-1]}th argument of internal geqp3")
    return ret[1] - 1


def _qr_pivots(a: np.ndarray) -> np.ndarray:
    """The column permutation of the pivoted QR of ``a`` (0-based): the one
    ``scipy.linalg.qr(a, pivoting=True)`` returns, from the same LAPACK call (``geqp3`` on the same
    array, with the workspace its query gives, as SciPy's ``safecall`` does) without SciPy's
    wrapper and without forming ``Q`` (the wrapper and ``Q`` were most of ``choose_pivots``' time:
    on the snake's 19 × 19 equation banks 180 → 80 µs per call, CPU)."""
    from scipy.linalg import get_lapack_funcs, qr

    a1 = np.asarray_chkfinite(a)  # qr's check: non-finite entries raise ValueError
    if a1.ndim != 2 or a1.size == 0:
        return qr(a1, mode="r", pivoting=True)[1]
    geqp3, = get_lapack_funcs(("geqp3",), (a1,))
    return _geqp3_pivots(geqp3, a1)


def choose_pivots(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Row order, column order and rank of ``A`` (m, n): the SVD rank rule, then pivoted QR for
    ``rank`` independent columns and, among them, ``rank`` independent rows (first in each order)."""
    r = numerical_rank(np.linalg.svd(A, compute_uv=False), A.shape)
    return _orders(A, r, _qr_pivots(A), _qr_pivots)


def choose_pivots_many(As: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """``choose_pivots`` of each matrix of the stack ``As`` (B, m, n), the same integers: one
    batched SVD for the ranks (LAPACK on each matrix, as one call on it computes), and each
    pivoted QR one ``geqp3`` call with the workspace of its shape queried once (``_LWORK``):
    about 65 → 30 µs per matrix on RHex's equation banks (CPU). Non-finite entries raise
    ``ValueError``, as ``choose_pivots`` does."""
    As = np.asarray(As, dtype=float)
    if As.ndim != 3:
        raise ValueError(f"expected a stack of matrices (B, m, n), got shape {As.shape}")
    B, m, n = As.shape
    if B == 0 or m == 0 or n == 0:
        return [choose_pivots(A) for A in As]
    if not np.isfinite(As).all():
        raise ValueError("array must not contain infs or NaNs")
    from scipy.linalg import get_lapack_funcs

    geqp3, = get_lapack_funcs(("geqp3",), (As[0],))
    ranks = numerical_ranks(np.linalg.svd(As, compute_uv=False), (m, n)).tolist()
    return [_orders(A, r, _geqp3_pivots(geqp3, A), lambda a: _geqp3_pivots(geqp3, a)) for A, r in zip(As, ranks)]


def _orders(A: np.ndarray, r: int, cp: np.ndarray, pivots) -> tuple[np.ndarray, np.ndarray, int]:
    """``choose_pivots``' orders from the rank ``r`` and the column pivoting ``cp`` of ``A``;
    ``pivots`` the column pivoting of another matrix (``_qr_pivots`` or its batched twin)."""
    m = A.shape[0]
    cp_l = cp.tolist()  # (lists: these orders are of a few tens of integers)
    cols = sorted(cp_l[:r]) + sorted(cp_l[r:])
    if r:
        top = sorted(pivots(A[:, cols[:r]].T).tolist()[:r])
        chosen = set(top)
        rows = top + [i for i in range(m) if i not in chosen]  # the others in increasing order
    else:
        rows = list(range(m))
    return np.array(rows, dtype=int), np.array(cols, dtype=int), int(r)
