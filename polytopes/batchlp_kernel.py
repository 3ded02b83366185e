"""The compiled fast path of ``polytopes.batchlp``: the same dual simplex, one LP at a time.

``polytopes.batchlp.simplex_batch`` advances every LP of a batch with one NumPy operation per
pivot; for the dozens of LPs of a few variables a real-time controller solves per step, the NumPy
per-call overhead (a few µs per call, hundreds of calls) dominates the arithmetic. This module runs
the *same method* — rows divided by their norms, the box vertex (or a dual-feasible nonsingular
warm start) as the first basis, the most violated row entering, the dual ratio test with ties to
the lowest basis position, the Sherman–Morrison update of ``F_B^{-1}``, a Farkas certificate when
no ratio coefficient is positive — compiled by `numba <https://numba.pydata.org>`_ (``nopython``),
one LP after the other.

Every answer is verified in the same compiled loop by the rules of ``polytopes.lp``
(``primal_ok``, ``dual_ok``, ``farkas_ok``,
written out for one LP with the tolerances of ``polytopes.tolerances``), after recomputing the
point and the multipliers from the final basis by a fresh factorization (Gaussian elimination
with partial pivoting); certificates must not lean on an artificial bound
(``polytopes.batchlp.ART_TOL``) and are checked with those bounds' multipliers set to zero.
Anything that fails is ``UNDECIDED`` and goes to ``polytopes.lp.solve_verified`` through
``polytopes.batchlp.solve_batch``, exactly as for the NumPy path. The NumPy path stays the
reference: ``tests/polytopes/test_batchlp_kernel.py`` compares the two (and the verification rules
with ``polytopes.lp``'s) on LPs captured from whole RHex flips and on random LPs.

Compilation costs several seconds. It is paid once per machine and version, not per process:
the compiled code is cached on disk in the user's cache directory — ``CACHE_ROOT``,
``$CONTACTMODES_CACHE_DIR`` or ``$XDG_CACHE_HOME/contactmodes/numba`` (default
``~/.cache/contactmodes/numba``), or numba's own ``$NUMBA_CACHE_DIR`` when the user set one — never
next to the sources; when no such directory is writable nothing is cached and every process
compiles. numba checks a cached kernel only against the time stamp of the file that defines it,
not against the files whose functions it calls or whose constants it reads (here the tolerances);
so each kernel module caches into its own subdirectory named by a digest of every source it
depends on (``cache_dir_for``; ``CACHE_DIR`` for this module): a change to any of them
starts a fresh cache instead of loading stale machine code. ``compile_kernel`` pays it up
front (the RHex max-thrust controller calls it in its constructor). When numba cannot be imported, ``AVAILABLE`` is false and
``polytopes.batchlp`` uses the NumPy path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time

import numpy as np

from . import tolerances as tol


def _writable(path: str) -> str | None:
    """``path``, created, when a file can be written there; else ``None``."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return None
    return path


def _cache_root() -> str:
    """The user's cache directory of compiled kernels (module doc), not created."""
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("CONTACTMODES_CACHE_DIR")
        or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "contactmodes"), "numba")


CACHE_ROOT = _cache_root()
"""Root directory of the compiled-kernel caches (module doc); each kernel module caches into a
subdirectory of it named by ``cache_dir_for``."""


def cache_dir_for(*sources: str) -> str | None:
    """The cache directory of kernels compiled from the Python files ``sources``.

    The subdirectory of ``CACHE_ROOT`` named by the SHA-256 of the files' contents (in order) and
    of the numba version, created. Any change to one of the files gives another directory, so a
    kernel never loads machine code compiled from other sources (module doc).

    Parameters
    ----------
    *sources : str
        Paths of the Python files the kernels are compiled from (the kernel module itself and
        every module whose functions or constants it compiles in).

    Returns
    -------
    str or None
        The directory, or ``None`` when it is not writable (then nothing is cached).

    Raises
    ------
    OSError
        When a file of ``sources`` cannot be read.
    """
    h = hashlib.sha256(getattr(numba, "__version__", "none").encode())
    for path in sources:
        with open(path, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return _writable(os.path.join(CACHE_ROOT, h.hexdigest()[:16]))


@contextlib.contextmanager
def caching_into(path: str | None):
    """Within the block, numba functions decorated with ``cache=True`` cache into ``path``.

    numba reads ``numba.config.CACHE_DIR`` when a function is decorated; the user's setting is
    restored afterwards. Does nothing when numba is missing or ``path`` is ``None``.

    Parameters
    ----------
    path : str or None
        The cache directory (``cache_dir_for``), or ``None``: leave numba's setting alone.

    Yields
    ------
    None
        Control to the block, with the cache directory set.
    """
    if not AVAILABLE or path is None:
        yield
        return
    before = numba.config.CACHE_DIR  # type: ignore[attr-defined]
    numba.config.CACHE_DIR = path  # type: ignore[attr-defined]
    try:
        yield
    finally:
        numba.config.CACHE_DIR = before  # type: ignore[attr-defined]


try:  # numba is a dependency (pyproject.toml); without it the NumPy path serves every call
    import numba

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only on installs without numba
    numba = None  # type: ignore[assignment]
    AVAILABLE = False

CACHE_DIR = cache_dir_for(__file__, tol.__file__) if AVAILABLE else None
"""Directory of this module's compiled-kernel cache (module doc: its sources and the tolerances
it compiles in), or ``None`` (no cache)."""

__all__ = ["AVAILABLE", "CACHE_DIR", "CACHE_ROOT", "cache_dir_for", "caching_into", "compile_kernel", "invert",
           "jit_cached", "kernel_choice", "simplex_kernel", "solve_in_place", "verify_kernel"]

# the constants of polytopes.batchlp and polytopes.tolerances, as plain floats for the compiler
_ENTER_TOL = 1e-10
_PIVOT_TOL = 1e-9
_ART_TOL = 1e-12
_PRIMAL_TOL = float(tol.LP_PRIMAL_TOL)
_DUAL_TOL = float(tol.LP_DUAL_TOL)
_UNDECIDED, _OPTIMAL, _INFEASIBLE = -1, 0, 2

_compiled = None
COMPILE_SECONDS = float("nan")
"""Wall time (s) the last ``compile_kernel`` spent compiling (NaN before)."""


def kernel_choice(kernel: str) -> str:
    """The implementation a ``kernel`` argument of the compiled kernels' callers asks for.

    Parameters
    ----------
    kernel : str
        ``"auto"``, ``"numpy"`` or ``"compiled"``, as passed to a caller here or in
        ``contactmodes``.

    Returns
    -------
    str
        ``"compiled"`` for ``"compiled"``, and for ``"auto"`` when numba is installed; else
        ``"numpy"`` (the reference).

    Raises
    ------
    ValueError
        For a ``kernel`` other than ``"auto"``, ``"numpy"``, ``"compiled"``.
    """
    if kernel not in ("auto", "numpy", "compiled"):
        raise ValueError(f"kernel: must be 'auto', 'numpy' or 'compiled', got {kernel!r}")
    return "compiled" if kernel == "compiled" or (kernel == "auto" and AVAILABLE) else "numpy"


def jit_cached(cache_dir: str | None):
    """The decorator of every compiled kernel of the package and of ``contactmodes``.

    Parameters
    ----------
    cache_dir : str or None
        Where the compiled code is cached: ``cache_dir_for`` of the kernel module's sources;
        ``None``: no cache (every process compiles).

    Returns
    -------
    callable
        A decorator: numba's ``njit`` (no GIL, no fast math, NumPy's error model) caching into
        ``cache_dir``; without numba, one returning the function itself (the NumPy paths serve
        every call).
    """

    def jit(fn):
        if not AVAILABLE:
            return fn
        with caching_into(cache_dir):
            return numba.njit(cache=cache_dir is not None, nogil=True, fastmath=False, error_model="numpy")(fn)

    return jit


_jit = jit_cached(CACHE_DIR)


@_jit
def _pivot_row(a, k):  # pragma: no cover - compiled
    """Partial pivoting's choice in column ``k`` of ``a`` (n × n): the row ``p >= k`` of the largest
    ``|a[p, k]|`` (the first of equals) and that magnitude."""
    p = k
    best = abs(a[k, k])
    for i in range(k + 1, a.shape[0]):
        if abs(a[i, k]) > best:
            best = abs(a[i, k])
            p = i
    return p, best


@_jit
def invert(FB, out):  # pragma: no cover - compiled
    """``out = FB^{-1}`` by Gauss–Jordan elimination with partial pivoting.

    Parameters
    ----------
    FB : numpy.ndarray
        Shape ``(n, n)``: the matrix (a basis's rows ``F_B``), left unchanged.
    out : numpy.ndarray
        Shape ``(n, n)``: overwritten with the inverse (meaningless when the result is False).

    Returns
    -------
    bool
        False when a pivot is exactly zero or the result is not finite, else True.
    """
    n = FB.shape[0]
    a = FB.copy()
    for i in range(n):
        for j in range(n):
            out[i, j] = 1.0 if i == j else 0.0
    for k in range(n):
        p, best = _pivot_row(a, k)
        if best == 0.0:
            return False
        if p != k:
            for j in range(n):
                t = a[k, j]
                a[k, j] = a[p, j]
                a[p, j] = t
                t = out[k, j]
                out[k, j] = out[p, j]
                out[p, j] = t
        piv = a[k, k]
        for j in range(n):
            a[k, j] /= piv
            out[k, j] /= piv
        for i in range(n):
            if i != k:
                fac = a[i, k]
                if fac != 0.0:
                    for j in range(n):
                        a[i, j] -= fac * a[k, j]
                        out[i, j] -= fac * out[k, j]
    for i in range(n):
        for j in range(n):
            if not np.isfinite(out[i, j]):
                return False
    return True


@_jit
def solve_in_place(a, x):  # pragma: no cover - compiled
    """``x = a^{-1} x`` by Gaussian elimination with partial pivoting.

    ``invert``'s rule without forming the inverse: one right-hand side at a sixth of the work.

    Parameters
    ----------
    a : numpy.ndarray
        Shape ``(n, n)``: the matrix, overwritten by its elimination.
    x : numpy.ndarray
        Shape ``(n,)``: the right-hand side, overwritten with the solution.

    Returns
    -------
    bool
        False when a pivot is exactly zero or the result is not finite, else True.
    """
    n = a.shape[0]
    for k in range(n):
        p, best = _pivot_row(a, k)
        if best == 0.0:
            return False
        if p != k:
            for j in range(k, n):
                t = a[k, j]
                a[k, j] = a[p, j]
                a[p, j] = t
            t = x[k]
            x[k] = x[p]
            x[p] = t
        piv = a[k, k]
        for i in range(k + 1, n):
            fac = a[i, k] / piv
            if fac != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= fac * a[k, j]
                x[i] -= fac * x[k]
    for i in range(n - 1, -1, -1):
        acc = x[i]
        for j in range(i + 1, n):
            acc -= a[i, j] * x[j]
        x[i] = acc / a[i, i]
        if not np.isfinite(x[i]):
            return False
    return True


@_jit
def _build(c, G, h, lo, hi, F, f, norms):  # pragma: no cover - compiled
    """Normalized rows of ``G`` and the bound rows into ``F`` (M, n), ``f`` (M,), the norms of
    ``G``'s rows into ``norms`` (M,) (1 for a zero row; the bound rows' are left alone); returns the first zero row
    with a negative right-hand side (−1 if none)."""
    m, n = G.shape
    bad = -1
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += G[i, j] * G[i, j]
        nrm = np.sqrt(s)
        if nrm == 0.0:
            for j in range(n):
                F[i, j] = 0.0
            f[i] = h[i]
            norms[i] = 1.0
            if h[i] < 0.0 and bad < 0:
                bad = i
        else:
            for j in range(n):
                F[i, j] = G[i, j] / nrm
            f[i] = h[i] / nrm
            norms[i] = nrm
    for j in range(n):
        for k in range(n):
            F[m + j, k] = 1.0 if j == k else 0.0
            F[m + n + j, k] = -1.0 if j == k else 0.0
        f[m + j] = hi[j]
        f[m + n + j] = -lo[j]
    return bad


@_jit
def _duals(Binv, c, y):  # pragma: no cover - compiled
    """``y = −F_B^{-T} c`` (the basic multipliers)."""
    n = c.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += Binv[j, i] * c[j]
        y[i] = -s


@_jit
def _primal(Binv, f, basis, x):  # pragma: no cover - compiled
    """``x = F_B^{-1} f_B``."""
    n = x.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += Binv[i, j] * f[basis[j]]
        x[i] = s


@_jit
def _leans(y, art):  # pragma: no cover - compiled
    """Whether the multipliers ``y`` (M,) lean on an artificial bound (``art`` (M,)) beyond
    ``polytopes.batchlp.ART_TOL`` of their 1-norm; otherwise those multipliers are set to 0
    (the certificate then proves the caller's LP)."""
    l1 = 0.0
    for i in range(y.shape[0]):
        l1 += abs(y[i])
    for i in range(y.shape[0]):
        if art[i]:
            if abs(y[i]) > _ART_TOL * l1:
                return True
            y[i] = 0.0
    return False


@_jit
def verify_kernel(c, F, f, art, status, basis, enter, x_out, infeasible_tol=0.0, nrm=None):  # pragma: no cover
    """Verify one LP's claim (module doc), the point and multipliers recomputed from ``basis``.

    The rules of ``polytopes.lp.primal_ok``, ``dual_ok`` and ``farkas_ok`` for one LP without
    equalities, the certificate not leaning on an artificial row.

    Parameters
    ----------
    c : numpy.ndarray
        Shape ``(n,)``: the costs.
    F : numpy.ndarray
        Shape ``(M, n)``: the rows, of unit norm or zero, the ``2n`` bound rows included
        (``M = m + 2n``).
    f : numpy.ndarray
        Shape ``(M,)``: their right-hand sides.
    art : numpy.ndarray
        Shape ``(M,)``, bool: the artificial rows.
    status : int
        The claim: optimal (0) or infeasible (2), as ``polytopes.lp``.
    basis : numpy.ndarray
        Shape ``(n,)``, int: the final basis (row indices into ``F``).
    enter : int
        The Farkas row of an infeasibility claim (the entering row without a positive ratio
        coefficient); unused for an optimum.
    x_out : numpy.ndarray
        Shape ``(n,)``: the verified optimal point is written here (untouched otherwise).
    infeasible_tol : float
        The tolerance beyond which a Farkas certificate must prove the infeasibility
        (``polytopes.batchlp._beyond``); 0: any verified certificate.
    nrm : numpy.ndarray or None
        Shape ``(M,)``: the norms of the caller's rows (1 for bound and zero rows); ``None``: all 1.

    Returns
    -------
    int
        The verified status: ``status``, or ``UNDECIDED`` (−1) when the claim fails.
    """
    M, n = F.shape
    FB = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            FB[i, j] = F[basis[i], j]
    Binv = np.empty((n, n))
    if not invert(FB, Binv):
        return _UNDECIDED
    y = np.zeros(M)
    if status == _OPTIMAL:
        x = np.empty(n)
        _primal(Binv, f, basis, x)
        yB = np.empty(n)
        _duals(Binv, c, yB)
        for i in range(n):
            y[basis[i]] = yB[i]
        if _leans(y, art):
            return _UNDECIDED
        # primal_ok (no equalities)
        size = 1.0
        for j in range(n):
            if not np.isfinite(x[j]):
                return _UNDECIDED
            size = max(size, abs(x[j]))
        for i in range(M):
            s = 0.0
            for j in range(n):
                s += F[i, j] * x[j]
            if s - f[i] > _PRIMAL_TOL * max(size, abs(f[i])):
                return _UNDECIDED
        # dual_ok
        cmax = 0.0
        for j in range(n):
            cmax = max(cmax, abs(c[j]))
        ysum = 0.0
        for i in range(M):
            if not np.isfinite(y[i]):
                return _UNDECIDED
            ysum += abs(y[i])
        mag = max(cmax + ysum, 1e-300)
        for i in range(M):
            if y[i] < -_DUAL_TOL * mag:
                return _UNDECIDED
        for j in range(n):
            s = c[j]
            for i in range(M):
                s += F[i, j] * y[i]
            if abs(s) > _DUAL_TOL * mag:
                return _UNDECIDED
        primal = 0.0
        xmax = 0.0
        for j in range(n):
            primal += c[j] * x[j]
            xmax = max(xmax, abs(x[j]))
        dual = 0.0
        hy = 0.0
        for i in range(M):
            dual -= f[i] * y[i]
            hy += abs(f[i]) * abs(y[i])
        gap_size = abs(primal) + hy + mag * max(1.0, xmax)
        if not abs(primal - dual) <= _DUAL_TOL * gap_size:
            return _UNDECIDED
        for j in range(n):
            x_out[j] = x[j]
        return _OPTIMAL
    # infeasible: y_r = 1, y_B = −α with F_r = α F_B (farkas_ok, no equalities)
    r = max(enter, 0)
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += F[r, j] * Binv[j, i]
        y[basis[i]] = -s
    y[r] += 1.0
    if _leans(y, art):
        return _UNDECIDED
    mag = 0.0
    for i in range(M):
        if not np.isfinite(y[i]):
            return _UNDECIDED
        mag += abs(y[i])
    if not mag > 0.0:
        return _UNDECIDED
    for i in range(M):
        if y[i] < -_DUAL_TOL * mag:
            return _UNDECIDED
    g = 0.0
    hy = 0.0
    R = 1.0
    inv = 0.0
    for i in range(M):
        yi = max(y[i], 0.0) / mag
        g += f[i] * yi
        hy += abs(f[i]) * yi
        R = max(R, abs(f[i]))
        inv += yi if nrm is None else yi / nrm[i]
    if not g < -_DUAL_TOL * hy:
        return _UNDECIDED
    if infeasible_tol > 0.0 and not -g > infeasible_tol * max(inv, hy):
        return _UNDECIDED
    rho = 0.0
    for j in range(n):
        s = 0.0
        for i in range(M):
            s += F[i, j] * (max(y[i], 0.0) / mag)
        rho += abs(s)
    if not rho * R <= _DUAL_TOL * abs(g):
        return _UNDECIDED
    return _INFEASIBLE


@_jit
def simplex_kernel(c, G, h, lo, hi, art, basis_in, warm, limit, status, x_out, fun, basis_out,
                   infeasible_tol=0.0):  # pragma: no cover
    """Solve and verify every LP of the batch (module doc), one after the other.

    The compiled ``polytopes.batchlp.simplex_batch``: each LP is
    ``minimize c.x  s.t.  G x <= h,  lo <= x <= hi``; the answers are written into the output
    arrays.

    Parameters
    ----------
    c : numpy.ndarray
        Shape ``(B, n)``: the costs.
    G : numpy.ndarray
        Shape ``(B, m, n)``: the inequality rows (any scale: normalized here).
    h : numpy.ndarray
        Shape ``(B, m)``: their right-hand sides.
    lo : numpy.ndarray
        Shape ``(B, n)``: finite lower bounds.
    hi : numpy.ndarray
        Shape ``(B, n)``: finite upper bounds.
    art : numpy.ndarray
        Shape ``(B, m + 2n)``, bool: the artificial rows (rows ``m + j`` the upper, ``m + n + j``
        the lower bounds).
    basis_in : numpy.ndarray
        Shape ``(B, n)``, int: warm starts (rows as ``polytopes.batchlp.BatchResult.basis``).
    warm : bool
        Whether to try ``basis_in`` (kept where nonsingular and dual feasible).
    limit : int
        The pivot limit per LP.
    status : numpy.ndarray
        Shape ``(B,)``, int: written, the verified statuses (``UNDECIDED`` −1 where none).
    x_out : numpy.ndarray
        Shape ``(B, n)``: written, the optimal points (NaN unless optimal).
    fun : numpy.ndarray
        Shape ``(B,)``: written, ``c.x`` at the optimum (NaN unless optimal).
    basis_out : numpy.ndarray
        Shape ``(B, n)``, int: written, the final bases.
    infeasible_tol : float
        As in ``polytopes.batchlp.simplex_batch``.

    Returns
    -------
    int
        The largest number of pivots over the batch.
    """
    Bn, m, n = G.shape
    M = m + 2 * n
    F = np.empty((M, n))
    f = np.empty(M)
    nrm = np.ones(M)  # the caller's row norms (1 for the bound rows and zero rows)
    Binv = np.empty((n, n))
    FB = np.empty((n, n))
    y = np.empty(n)
    x = np.empty(n)
    alpha = np.empty(n)
    basis = np.empty(n, dtype=np.int64)
    iters = 0
    for b in range(Bn):
        for j in range(n):
            x_out[b, j] = np.nan
        bad = _build(c[b], G[b], h[b], lo[b], hi[b], F, f, nrm)
        for j in range(n):
            basis[j] = m + j if c[b, j] <= 0.0 else m + n + j
        good = False  # a usable warm start: then Binv already holds its inverse
        if warm:
            for j in range(n):
                if basis_in[b, j] >= 0 and basis_in[b, j] < M:
                    basis[j] = basis_in[b, j]
            for i in range(n):
                for j in range(n):
                    FB[i, j] = F[basis[i], j]
            good = invert(FB, Binv)
            if good:
                _duals(Binv, c[b], y)
                mag = 0.0
                for i in range(n):
                    mag += abs(y[i])
                mag = max(mag, 1e-300)
                for i in range(n):
                    if not (np.isfinite(y[i]) and y[i] >= -_ENTER_TOL * mag):
                        good = False
            if not good:
                for j in range(n):
                    basis[j] = m + j if c[b, j] <= 0.0 else m + n + j
        if not good:  # the inverse of the start basis (±I for the default one)
            for i in range(n):
                for j in range(n):
                    FB[i, j] = F[basis[i], j]
        st = _UNDECIDED
        enter = -1
        if bad >= 0:
            st = _INFEASIBLE
            enter = bad
        elif good or invert(FB, Binv):
            _duals(Binv, c[b], y)
            for i in range(n):
                y[i] = max(y[i], 0.0)
            it = 0
            while it <= limit:
                _primal(Binv, f, basis, x)
                size = 1.0
                for j in range(n):
                    size = max(size, abs(x[j]))
                r = 0
                worst = -np.inf
                for i in range(M):
                    s = 0.0
                    for j in range(n):
                        s += F[i, j] * x[j]
                    sc = (s - f[i]) / max(size, abs(f[i]))
                    if sc > worst:
                        worst = sc
                        r = i
                if worst <= _ENTER_TOL:
                    st = _OPTIMAL
                    break
                if it == limit:
                    break
                for i in range(n):
                    s = 0.0
                    for j in range(n):
                        s += F[r, j] * Binv[j, i]
                    alpha[i] = s
                leave = -1
                t = np.inf
                for i in range(n):
                    if alpha[i] > _PIVOT_TOL:
                        q = y[i] / alpha[i]
                        if q < t:
                            t = q
                            leave = i
                if leave < 0:
                    st = _INFEASIBLE
                    enter = r
                    break
                for i in range(n):
                    y[i] = max(y[i] - t * alpha[i], 0.0)
                y[leave] = t
                al = alpha[leave]
                alpha[leave] -= 1.0
                for i in range(n):
                    col = Binv[i, leave] / al
                    for j in range(n):
                        Binv[i, j] -= col * alpha[j]
                basis[leave] = r
                it += 1
            iters = max(iters, it)
        for j in range(n):
            basis_out[b, j] = basis[j]
        if st != _UNDECIDED:
            st = verify_kernel(c[b], F, f, art[b], st, basis, enter, x_out[b], infeasible_tol, nrm)
        status[b] = st
        v = np.nan
        if st == _OPTIMAL:
            v = 0.0
            for j in range(n):
                v += c[b, j] * x_out[b, j]
        fun[b] = v
    return iters


def compile_kernel() -> float:
    """Compile the kernel now (once per process) by solving two tiny LPs; returns the seconds
    spent (0 when already compiled or numba is missing)."""
    global _compiled, COMPILE_SECONDS
    if not AVAILABLE or _compiled is not None:
        return 0.0
    t0 = time.perf_counter()
    c = np.array([[-1.0, 0.0], [1.0, 1.0]])
    G = np.array([[[1.0, 1.0]], [[-1.0, -1.0]]])
    h = np.array([[1.0], [-3.0]])
    lo, hi = np.full((2, 2), -2.0), np.full((2, 2), 1.0)
    art = np.zeros((2, 5), dtype=np.bool_)
    status = np.empty(2, dtype=np.int64)
    x = np.empty((2, 2))
    basis = np.full((2, 2), -1, dtype=np.int64)
    fun = np.empty(2)
    simplex_kernel(c, G, h, lo, hi, art, basis.copy(), False, 20, status, x, fun, basis)
    simplex_kernel(c, G, h, lo, hi, art, basis.copy(), True, 20, status, x, fun, basis)
    _compiled = True
    COMPILE_SECONDS = time.perf_counter() - t0
    return COMPILE_SECONDS
