"""The compiled sides of one bounding box: pooled rays, batched support LPs, rays from bases.

``Polytope.bounding_box`` with the compiled kernel decides the sides of a box in three steps
(its docstring): recession rays from a ``RayPool``, then the support LPs of the sides left, solved
by the verified dual simplex of ``polytopes.batchlp_kernel`` inside the artificial box
``|w| <= BATCH_LP_BOUND · scale``, then, for a side whose LP leans on that box, the direction its
final basis moves along as the box grows (``Polytope._rays_from_bases``). For the tens of
thousands of small boxes of a many-contact analysis, NumPy's per-call overhead in those steps
cost more than the LPs; ``box_sides`` runs the same steps for one box in one compiled call:

* a ray proves a side by the rule of ``polytopes.lp.rays_ok`` (rows of the inner system
  normalized; ``V r <= LP_PRIMAL_TOL`` and ``cost . r < -LP_DUAL_TOL · max(1, |cost|_inf)`` for
  ``r`` scaled to unit max-norm);
* each remaining side is one LP of ``simplex_kernel`` with the very arrays ``_batched_support``
  passes (the same answer, bit for bit: the kernel solves its LPs one at a time);
* a ray read off a leaning basis (the solve ``F_B r = e`` by ``batchlp_kernel.invert``) must pass
  the same ray rule; it then also proves every later side it points along, so fewer LPs.

No value is decided here that the NumPy steps would decide otherwise: a support value is the
kernel's verified optimum, an unbounded side has a verified ray, and every side left undecided
(NaN) goes to the single-LP path of ``polytopes.lp`` as before. Without numba ``AVAILABLE`` is
false and ``Polytope.bounding_box`` keeps the NumPy steps.
"""

from __future__ import annotations

import numpy as np

from . import batchlp_kernel
from . import tolerances as tol

AVAILABLE = batchlp_kernel.AVAILABLE
CACHE_DIR = batchlp_kernel.cache_dir_for(__file__, tol.__file__, batchlp_kernel.__file__) if AVAILABLE else None
"""Directory of this module's compiled-kernel cache (``polytopes.batchlp_kernel.cache_dir_for``
of this file, the tolerances and the simplex it calls)."""

_PRIMAL_TOL = float(tol.LP_PRIMAL_TOL)
_DUAL_TOL = float(tol.LP_DUAL_TOL)
_OPTIMAL = 0

_jit = batchlp_kernel.jit_cached(CACHE_DIR)


@_jit
def _size(r):  # pragma: no cover - compiled
    """``max |r_j|`` (0 when ``r`` has a non-finite entry: no ray)."""
    nr = 0.0
    for j in range(r.shape[0]):
        if not np.isfinite(r[j]):
            return 0.0
        nr = max(nr, abs(r[j]))
    return nr


@_jit
def _improves(r, cost):  # pragma: no cover - compiled
    """``lp.rays_ok``'s cost rule: ``cost . r < -LP_DUAL_TOL · max(1, |cost|_inf)`` for ``r``
    scaled to unit max-norm (False for a zero or non-finite ``r``)."""
    nr = _size(r)
    if not nr > 0.0:
        return False
    cmax = 0.0
    cr = 0.0
    for j in range(r.shape[0]):
        cmax = max(cmax, abs(cost[j]))
        cr += cost[j] * (r[j] / nr)
    return cr < -_DUAL_TOL * max(1.0, cmax)


@_jit
def _recedes(Vn, r):  # pragma: no cover - compiled
    """``lp.rays_ok``'s row rule: ``Vn r <= LP_PRIMAL_TOL`` for ``r`` scaled to unit max-norm
    (``Vn`` (m, d) rows of unit norm or zero)."""
    nr = _size(r)
    if not nr > 0.0:
        return False
    for i in range(Vn.shape[0]):
        s = 0.0
        for j in range(r.shape[0]):
            s += Vn[i, j] * (r[j] / nr)
        if s > _PRIMAL_TOL:
            return False
    return True


@_jit
def _proves(Vn, r, cost):  # pragma: no cover - compiled
    """Whether ``r`` (d,) is a verified direction of unboundedness of ``min cost.w`` over
    ``Vn w <= g`` (any ``g``): ``lp.rays_ok``'s rule."""
    return _improves(r, cost) and _recedes(Vn, r)


@_jit
def box_sides(V, g, costs, base, bound, pool, todo, values, rays):  # pragma: no cover - compiled
    """Decide the sides of one box (module doc).

    ``V`` (m, d), ``g`` (m,): the inner system ``V w <= g`` (``gamma + relax``) of the set;
    ``costs`` (S, d), ``base`` (S,): side ``s`` is ``base_s - min costs_s . w`` (for the
    direction ``e``, ``costs = -(e N)`` and ``base = e . x0`` with the hull's ``N`` and ``x0``, as
    ``_batched_support`` forms them); ``bound`` the artificial box; ``pool`` (P, d) pooled
    directions in hull coordinates; ``todo`` (S,) bool: the sides to decide. Writes ``values``
    (S,): the support, ``inf`` for a side proven unbounded, NaN where undecided (and for sides
    not in ``todo``); ``rays`` (S, d): the directions read off bases, in hull coordinates.
    Returns how many rays."""
    m, d = V.shape
    S = costs.shape[0]
    Vn = np.zeros((m, d))
    for i in range(m):
        s = 0.0
        for j in range(d):
            s += V[i, j] * V[i, j]
        nrm = max(np.sqrt(s), 1e-300)
        for j in range(d):
            Vn[i, j] = V[i, j] / nrm
    for s in range(S):
        values[s] = np.nan
    left = 0
    for s in range(S):
        if todo[s]:
            left += 1
    hit = np.zeros(S, dtype=np.bool_)
    for p in range(pool.shape[0]):  # the cost rule first (cheap), the rows once per ray
        if left == 0:
            break
        any_hit = False
        for s in range(S):
            hit[s] = todo[s] and np.isnan(values[s]) and _improves(pool[p], costs[s])
            any_hit = any_hit or hit[s]
        if any_hit and _recedes(Vn, pool[p]):
            for s in range(S):
                if hit[s]:
                    values[s] = np.inf
                    left -= 1
    # one LP at a time, with the arrays Polytope._batched_support passes
    c1 = np.empty((1, d))
    G1 = np.empty((1, m, d))
    h1 = np.empty((1, m))
    lo1 = np.full((1, d), -bound)
    hi1 = np.full((1, d), bound)
    art = np.zeros((1, m + 2 * d), dtype=np.bool_)
    for j in range(m, m + 2 * d):
        art[0, j] = True
    basis_in = np.empty((1, d), dtype=np.int64)
    status = np.empty(1, dtype=np.int64)
    x = np.empty((1, d))
    fun = np.empty(1)
    basis = np.empty((1, d), dtype=np.int64)
    for i in range(m):
        h1[0, i] = g[i]
        for j in range(d):
            G1[0, i, j] = V[i, j]
    limit = 4 * (m + 2 * d)
    FB = np.empty((d, d))
    Binv = np.empty((d, d))
    r = np.empty(d)
    n_rays = 0
    for s in range(S):
        if not todo[s] or not np.isnan(values[s]):
            continue
        proven = False
        for q in range(n_rays):  # a ray of an earlier side of this box
            if _proves(Vn, rays[q], costs[s]):
                proven = True
                break
        if proven:
            values[s] = np.inf
            continue
        for j in range(d):
            c1[0, j] = costs[s, j]
        batchlp_kernel.simplex_kernel(c1, G1, h1, lo1, hi1, art, basis_in, False, limit, status, x, fun, basis)
        if status[0] == _OPTIMAL:
            values[s] = base[s] - fun[0]
            continue
        leaning = False
        for i in range(d):
            b = min(max(basis[0, i], 0), m + 2 * d - 1)
            if b >= m:
                leaning = True
            for j in range(d):
                if b < m:
                    FB[i, j] = Vn[b, j]
                elif b < m + d:
                    FB[i, j] = 1.0 if j == b - m else 0.0
                else:
                    FB[i, j] = -1.0 if j == b - m - d else 0.0
        if not leaning or not batchlp_kernel.invert(FB, Binv):
            continue
        for i in range(d):
            acc = 0.0
            for j in range(d):
                if basis[0, j] >= m:
                    acc += Binv[i, j]
            r[i] = acc
        if _proves(Vn, r, costs[s]):
            values[s] = np.inf
            for j in range(d):
                rays[n_rays, j] = r[j]
            n_rays += 1
    return n_rays
