"""The nearest point of a polytope to a given point (Euclidean), verified.

Works on the set's inner system (``Polytope.inner_system``: ``{x0 + N w : V w <= g}`` with
``N`` orthonormal, ``g = gamma + relax``): the query point ``x`` splits into its part in the
hull's directions, ``w0 = Nᵀ (x − x0)``, and the rest ``p = (x − x0) − N w0``, orthogonal to
the hull, so

    dist(x, P)² = ‖p‖² + min { ‖z‖² : V z <= g − V w0 }      (z = w − w0).

The second term is a *least-distance program*, solved by Lawson & Hanson's reduction to one
non-negative least-squares problem (*Solving Least Squares Problems*, 1974, ch. 23, algorithm
LDP; ``scipy.optimize.nnls``): with ``G = −V``, ``h = V w0 − g`` (so ``G z >= h``), the
residual ``r = E u − e`` of ``u = argmin_{u >= 0} ‖E u − e‖``, ``E = [Gᵀ; hᵀ]``, gives
``z = −r[:k] / r[k]``.

Verification (``DISTANCE_TOL``): ``z`` satisfies the rows within the tolerance, and its norm
exceeds the dual lower bound ``max(0, λᵀh) / ‖Gᵀλ‖`` (weak duality, for any ``λ >= 0``) by at
most the tolerance, ``λ`` the non-negative least-squares multipliers of the active rows
(``‖V_Jᵀ λ + z‖`` minimal: the KKT condition ``z = −Vᵀ λ``). A candidate that fails goes to the
second method, HiGHS's QP solver on the same problem, verified the same way; if that fails too,
``NumericalError``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

from . import tolerances as _tol
from .errors import NumericalError


def least_distance(V: np.ndarray, s: np.ndarray, size: float) -> tuple[np.ndarray, float]:
    """``z`` of least norm with ``V z <= s`` (V (m, k), s (m,); the set is non-empty within the
    emptiness rule's tolerance), verified (module doc); returns ``(z, lower)`` with ``lower`` the
    certified lower bound on ``‖z*‖``. ``size``: the scale of the verification's tolerance.

    Raises ``NumericalError`` when neither method gives a verified answer."""
    k = V.shape[1]
    if V.shape[0] == 0 or k == 0 or bool(np.all(s >= 0.0)):
        return np.zeros(k), 0.0
    tries = []
    for method in (_ldp_nnls, _qp_highs):
        z = method(V, s)
        if z is None:
            tries.append(f"{method.__name__}: no answer")
            continue
        lower, problem = _verify(V, s, z, size)
        if problem is None:
            return z, lower
        tries.append(f"{method.__name__}: {problem}")
    raise NumericalError("nearest point could not be computed reliably (" + "; ".join(tries) + ")")


def _ldp_nnls(V: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """Lawson & Hanson's LDP through one NNLS (module doc); ``None`` when it reports no point."""
    G, h = -V, -s
    E = np.vstack([G.T, h[None, :]])
    e = np.zeros(E.shape[0])
    e[-1] = 1.0
    try:
        u, _ = nnls(E, e, maxiter=50 * max(E.shape))
    except RuntimeError:  # iteration limit
        return None
    r = E @ u - e
    if not abs(r[-1]) > 0.0 or not np.all(np.isfinite(r)):
        return None
    return -r[:-1] / r[-1]


def _qp_highs(V: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """``min ½‖z‖²`` s.t. ``V z <= s`` by HiGHS's QP solver; ``None`` unless optimal."""
    import highspy
    from scipy.sparse import csc_matrix, csr_matrix

    from .lp import _highs_instance

    m, k = V.shape
    h = _highs_instance()
    h.clearModel()
    inf = highspy.kHighsInf
    h.addVars(k, np.full(k, -inf), np.full(k, inf))
    R = csr_matrix(V)
    h.addRows(m, np.full(m, -inf), s, R.nnz, R.indptr[:-1].astype(np.int32), R.indices.astype(np.int32), R.data)
    Q = csc_matrix(np.eye(k))
    h.passHessian(k, Q.nnz, highspy.HessianFormat.kTriangular, Q.indptr.astype(np.int32),
                  Q.indices.astype(np.int32), Q.data)
    try:
        h.run()
        ok = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        z = np.asarray(h.getSolution().col_value, dtype=float) if ok else None
    finally:
        h.clearModel()  # the shared instance goes back to LPs without the Hessian
    return z


def _verify(V: np.ndarray, s: np.ndarray, z: np.ndarray, size: float) -> tuple[float, str | None]:
    """``(lower bound, None)`` when ``z`` is a verified least-norm point of ``V z <= s``, else
    ``(0, what failed)`` (module doc)."""
    if not np.all(np.isfinite(z)):
        return 0.0, "not finite"
    tol = _tol.DISTANCE_TOL * max(size, float(np.linalg.norm(z)))
    slack = s - V @ z
    if float(slack.min()) < -tol:
        return 0.0, f"a row violated by {-float(slack.min()):.3g}"
    norm = float(np.linalg.norm(z))
    if norm <= tol:
        return 0.0, None
    active = slack <= tol
    VJ, sJ = V[active], s[active]
    if not VJ.shape[0]:
        return 0.0, f"no active row at distance {norm:.3g}"
    try:
        lam, _ = nnls(VJ.T, -z, maxiter=50 * max(VJ.shape))
    except RuntimeError:  # iteration limit
        return 0.0, "no multipliers of the active rows"
    g = VJ.T @ lam
    gn = float(np.linalg.norm(g))
    lower = max(0.0, float(-lam @ sJ)) / gn if gn > 0 else 0.0
    if norm - lower > tol:
        return 0.0, f"distance {norm:.12g} above its dual bound {lower:.12g}"
    return min(lower, norm), None
