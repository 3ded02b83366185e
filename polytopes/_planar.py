"""Many polyhedra mapped onto the plane at once: a batched angular sweep of verified support LPs.

For each nonempty ``P_i = {x : A x <= b, C x = d}`` (``x`` in ``R^n``) and an affine map
``y = M x + g`` onto ``R^2`` this module computes the image ``Q_i = {M x + g : x in P_i}``, bounded
or not, with the LPs of every set solved together (``polytopes.batchlp.solve_stacked``, one
verified batch per round). It is the fast path of ``project`` for two outputs of thousands of sets
(``contactmodes.analysis.outputs``: every contact mode of a quadruped); a set it cannot certify is
returned as ``None`` and the caller projects it by ``polytopes.projection.project``.

Method (the support function ``h(a) = max {a·y : y in Q}``, sampled on the circle of directions):

1. **Lineality.** With ``N`` an orthonormal basis of the null space of ``[A; C]`` (the lineality
   space of ``P``, SVD with the rank rule of ``tolerances.RANK_RTOL`` and a gap of
   ``PLANAR_RANK_GAP`` between the kept and the dropped singular values), ``M N`` of rank 2 makes
   ``Q = R^2`` (``P`` is nonempty and contains ``x + N z`` for every ``z``): no LP.
2. **Sweep** (Bretl & Lall 2008's incremental hull, extended to unbounded sets). Three directions
   ``a`` at 120° first; each direction gets a *ray LP* ``max a·M r`` over ``{A r <= 0, C r = 0,
   |r|_inf <= 1}`` (bounded: real bounds). A value above ``PLANAR_RAY_RTOL · |Mᵀa|_1`` is a
   verified recession direction ``ρ = M r`` of ``Q`` with ``a·ρ > 0``: ``h(a) = +inf``. Otherwise a
   *support LP* ``max a·M x`` over ``P`` (``x`` in an artificial box ``BATCH_LP_BOUND ×
   data_scale``; an answer that leans on it is not accepted) gives a maximizer ``p = M x + g``.
   Between two consecutive directions (an *arc*, always narrower than 180°):

   * two maximizers ``p₁ = p₂``: ``h`` is linear on the arc (sublinearity), nothing between;
   * two maximizers ``p₁ ≠ p₂``, or a maximizer and a ray: the candidate edge (the segment, or the
     half-line from the maximizer along the ray) has an outward normal ``n`` inside the arc; one
     support LP along ``n``: ``h(n) <= n·p₁ + ε`` certifies the edge ``n·y <= h(n)`` and closes
     the arc, else the new point (or ray) is inserted and both halves stay open;
   * two rays ``ρ₁, ρ₂``: the arc is unbounded throughout when no direction on it has ``a·ρ₁ <= 0``
     and ``a·ρ₂ <= 0`` (two linear functions along the arc), with a margin of ``PLANAR_ANGLE_TOL``
     (the rounded rays ``±ℓ`` of a half-plane's boundary line leave one direction, the half-plane's
     normal, where both vanish: it must be queried, not skipped); else the middle of that sub-arc
     is queried.

   When every arc is closed the support function is known on the whole circle: ``Q`` is the
   intersection of the certified edges (``R^2`` when there is none). ``ε =
   tolerances.SUPPORT_HULL_TOL × max(1, |p|_inf)`` as in ``polytopes._support_projection``.
3. **Verification.** Every number used is a verified LP answer: each edge ``n·y <= h(n)`` is a
   support LP's optimum (primal and dual certificates checked by ``polytopes.batchlp``), so ``Q``
   lies in the result; each vertex is the image of a primal-verified point of ``P`` and each
   unbounded direction the image of a verified recession direction, so the result (the hull of
   those points plus the cone of those rays) lies in ``Q``. A set is refused (``None``, the
   caller's fallback) when an LP is undecided, a query direction falls outside its arc, the sweep
   needs more than ``PLANAR_MAX_ROUNDS`` rounds, or the points and rays found span less than the
   plane (``Q`` lower-dimensional: the general method gives its equalities).

The result's rows are unit vectors in the order of their normals' angles; it is the same set as
``project``'s (``tests/polytopes/test_planar.py``), not necessarily the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import lp as _lp
from . import tolerances as tol
from ._linalg import stacked_svd
from .batchlp import preferred_kernel, solve_stacked

if TYPE_CHECKING:  # pragma: no cover
    from .polytope import Polytope

__all__ = ["planar_projections"]

_START = 3
"""Directions of the first round, equally spaced (arcs of 120°: every arc narrower than 180°)."""


@dataclass
class _Entry:
    """A sampled direction ``a`` (unit) with its answer: ``point`` (``h(a)`` finite, a maximizer)
    or ``ray`` (``h(a) = +inf``, a recession direction with ``a·ray > 0``)."""

    a: np.ndarray
    point: np.ndarray | None = None
    ray: np.ndarray | None = None
    value: float = np.inf


@dataclass
class _Sweep:
    """The state of one set's sweep: its entries in counter-clockwise order of ``a`` and, per arc
    ``(entries[k], entries[k + 1])``, whether it is closed; the certified edges ``(n, h(n))``."""

    entries: list = field(default_factory=list)
    closed: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    failed: bool = False


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _unit(v: np.ndarray) -> np.ndarray:
    return v / float(np.hypot(v[0], v[1]))


def _inside(n: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> bool:
    """``n`` strictly inside the counter-clockwise arc from ``a1`` to ``a2`` (narrower than 180°)."""
    return _cross(a1, n) > tol.PLANAR_ANGLE_TOL and _cross(n, a2) > tol.PLANAR_ANGLE_TOL


def _near(n: np.ndarray, a: np.ndarray) -> bool:
    return abs(_cross(a, n)) <= tol.PLANAR_ANGLE_TOL and float(n @ a) > 0.0


def _eps(e: _Entry) -> float:
    return tol.SUPPORT_HULL_TOL * max(1.0, float(np.abs(e.point).max())) if e.point is not None else 0.0


def _lineality_universe(K: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Per set of the stack, whether ``M`` maps the lineality space (the null space of the rows
    ``K`` ``(S, m, n)``) onto the plane, with a clear gap in both rank decisions (module doc; an
    unclear case goes to the sweep). ``M`` ``(S, 2, n)``. One SVD per set (``stacked_svd``: the
    bits of its own SVD)."""
    S, m, n = K.shape
    out = np.zeros(S, dtype=bool)
    if m == 0:
        N = np.repeat(np.eye(n)[None], S, axis=0)
        rank = np.zeros(S, dtype=int)
    else:
        _, s, Vt = stacked_svd(K)
        cut = tol.RANK_RTOL * max(m, n) * np.maximum(1.0, s.max(axis=1))
        rank = (s > cut[:, None]).sum(axis=1)
        kept = s[np.arange(S), np.maximum(rank - 1, 0)]
        clear = (rank == 0) | (rank == s.shape[1]) | (kept >= tol.PLANAR_RANK_GAP * cut)
        N = np.swapaxes(Vt, 1, 2)
    for r in np.unique(rank):
        sel = np.flatnonzero(rank == r) if m == 0 else np.flatnonzero((rank == r) & clear)
        if n - r < 2 or not len(sel):
            continue
        MN = M[sel] @ N[sel][:, :, r:]
        sv = np.linalg.svd(MN, compute_uv=False)
        scale = tol.PLANAR_RANK_GAP * tol.RANK_RTOL * max(2, n) * np.maximum(1.0, np.abs(M[sel]).max(axis=(1, 2)))
        out[sel] = sv[:, -1] > scale
    return out


class _Sets:
    """The LP data of the sets: per set ``G = [A; C; -C]``, ``h = [b; d; -d]`` and the map."""

    def __init__(self, polys: Sequence["Polytope"], maps: Sequence[np.ndarray], offsets: Sequence[np.ndarray]) -> None:
        self.G = [P.A if not P.n_eq else np.vstack([P.A, P.C, -P.C]) for P in polys]
        self.h = [P.b if not P.n_eq else np.concatenate([P.b, P.d, -P.d]) for P in polys]
        self.box = [tol.BATCH_LP_BOUND * P.data_scale for P in polys]
        self.M = [np.asarray(M, dtype=float) for M in maps]
        self.g = [np.asarray(g, dtype=float) for g in offsets]

    def solve(self, queries: list[tuple[int, np.ndarray]], ray: bool, kernel: str) -> list[tuple[int, np.ndarray | None, float]]:
        """The ray LPs (``ray``) or support LPs of ``queries`` ``(set, direction)``, stacked by
        shape: per query ``(status, x, max a·M x)`` (``x`` ``None`` unless optimal). A support LP
        the batch leaves undecided (its optimum leaning on the artificial box: a whole optimal
        half-line along an edge of ``Q``) goes to ``polytopes.lp.solve_verified`` without the box."""
        groups: dict[tuple[int, int], list[int]] = {}
        for q, (i, _) in enumerate(queries):
            groups.setdefault(self.G[i].shape, []).append(q)
        stacks, order = [], []
        for (m, n), qs in groups.items():
            S = len(qs)
            c = np.array([-(self.M[queries[q][0]].T @ queries[q][1]) for q in qs])
            G = np.array([self.G[queries[q][0]] for q in qs])
            if ray:
                h = np.zeros((S, m))
                lo, hi = -np.ones((S, n)), np.ones((S, n))
                art = np.zeros((S, n), dtype=bool)
            else:
                h = np.array([self.h[queries[q][0]] for q in qs])
                bound = np.array([self.box[queries[q][0]] for q in qs])
                lo, hi = -np.repeat(bound[:, None], n, axis=1), np.repeat(bound[:, None], n, axis=1)
                art = np.ones((S, n), dtype=bool)
            stacks.append((c, G, h, lo, hi, art, art.copy()))
            order.append(qs)
        out: list = [None] * len(queries)
        for qs, (status, x, fun) in zip(order, solve_stacked(stacks, fallback=not ray, kernel=kernel)):
            for j, q in enumerate(qs):
                ok = status[j] == _lp.OPTIMAL
                out[q] = (int(status[j]), x[j].copy() if ok else None, -float(fun[j]) if ok else np.nan)
        return out


def _arc_query(sw: _Sweep, k: int) -> tuple[np.ndarray, float | None] | None:
    """The direction to query on the open arc ``k`` and the candidate edge's offset (``None`` for a
    probe between two rays); ``None`` when the arc closes without an LP (recorded on ``sw``)."""
    e1, e2 = sw.entries[k], sw.entries[(k + 1) % len(sw.entries)]
    a1, a2 = e1.a, e2.a
    if e1.point is not None and e2.point is not None:
        d = e2.point - e1.point
        if float(np.abs(d).max()) <= max(_eps(e1), _eps(e2)):
            sw.closed[k] = True
            return None
        n = _unit(np.array([d[1], -d[0]]))
        line = max(float(n @ e1.point), float(n @ e2.point))
    elif e1.point is not None:  # the half-line from p1 along the ray of e2
        n = _unit(np.array([e2.ray[1], -e2.ray[0]]))
        line = float(n @ e1.point)
    elif e2.point is not None:  # the half-line arriving at p2 along minus the ray of e1
        n = _unit(np.array([-e1.ray[1], e1.ray[0]]))
        line = float(n @ e2.point)
    else:
        f1 = (float(a1 @ e1.ray), float(a2 @ e1.ray))  # along a(t) = (1 - t) a1 + t a2: f1(0) > 0
        f2 = (float(a1 @ e2.ray), float(a2 @ e2.ray))  # f2(1) > 0
        if f1[1] > tol.PLANAR_ANGLE_TOL or f2[0] > tol.PLANAR_ANGLE_TOL:  # one ray rises on the whole arc
            sw.closed[k] = True
            return None
        t1 = f1[0] / (f1[0] - f1[1])  # f1 <= 0 on [t1, 1]
        t2 = f2[0] / (f2[0] - f2[1])  # f2 <= 0 on [0, t2]
        if t1 > t2 + tol.PLANAR_ANGLE_TOL:  # no direction of the arc has both <= 0, with a margin:
            sw.closed[k] = True  # rounded rays of one line (a half-plane's) meet at one direction
            return None
        t = min(max(0.5 * (t1 + t2), 0.0), 1.0)
        n = _unit((1.0 - t) * a1 + t * a2)
        if not _inside(n, a1, a2):
            sw.failed = True
            return None
        return n, None
    for a, e in ((a1, e1), (a2, e2)):  # the edge's normal is a sampled direction: certified by its LP
        if e.point is not None and _near(n, a):
            other = e2 if e is e1 else e1
            on = (other.point is not None and float(a @ other.point) >= e.value - max(_eps(e1), _eps(e2))) \
                or (other.ray is not None and float(a @ other.ray) <= tol.PLANAR_ANGLE_TOL)
            if on:
                sw.edges.append((a, e.value))
                sw.closed[k] = True
                return None
    if not _inside(n, a1, a2):
        sw.failed = True
        return None
    return n, line


def _finish(sw: _Sweep) -> tuple[np.ndarray, np.ndarray] | None:
    """The certified edges as ``(A, b)`` (unit rows, by angle, duplicates merged), or ``None`` when
    the points and rays found span less than the plane."""
    pts = [e.point for e in sw.entries if e.point is not None]
    rays = [e.ray for e in sw.entries if e.ray is not None]
    span = np.array(([p - pts[0] for p in pts[1:]] if pts else []) + rays).reshape(-1, 2)
    scale = max([1.0] + [float(np.abs(p).max()) for p in pts])
    if len(span) < 2:
        return None
    # the plane is spanned when some vector has a component across the longest one (the second
    # singular value is within a factor sqrt(len(span)) of the largest such component)
    norms = np.hypot(span[:, 0], span[:, 1])
    u = span[int(np.argmax(norms))] / max(float(norms.max()), np.finfo(float).tiny)
    across = float(np.abs(span[:, 0] * u[1] - span[:, 1] * u[0]).max())
    if across <= tol.SUPPORT_HULL_TOL * scale * tol.PLANAR_RANK_GAP * np.sqrt(len(span)):
        return None
    rows: dict[tuple[float, float], tuple[np.ndarray, float]] = {}
    for n, beta in sw.edges:
        key = tuple(np.round(n, tol.DUPLICATE_DECIMALS))
        if key not in rows or beta > rows[key][1]:
            rows[key] = (n, beta)
    ordered = sorted(rows.values(), key=lambda nb: float(np.arctan2(nb[0][1], nb[0][0])))
    A = np.array([n for n, _ in ordered], dtype=float).reshape(len(ordered), 2)
    return A, np.array([beta for _, beta in ordered], dtype=float)


def planar_projections(polys: Sequence["Polytope"], maps: Sequence[np.ndarray],
                       offsets: Sequence[np.ndarray] | None = None) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """The images ``{M_i x + g_i : x in P_i}`` in the plane of many nonempty sets (module doc).

    Parameters
    ----------
    polys : Sequence[Polytope]
        ``N`` nonempty sets, set ``i`` of dimension ``n_i`` (the caller has decided emptiness).
    maps : Sequence[numpy.ndarray]
        ``N`` matrices ``M_i`` of shape ``(2, n_i)``.
    offsets : Sequence[numpy.ndarray], optional
        ``N`` vectors ``g_i`` ``(2,)``; default zero.

    Returns
    -------
    list[tuple[numpy.ndarray, numpy.ndarray] or None]
        Per set ``(A, b)``, ``A`` ``(r, 2)`` unit rows by angle and ``b`` ``(r,)``, with ``Q_i =
        {y : A y <= b}`` (``r = 0``: the plane), or ``None`` when the sweep did not certify the set
        (an undecided LP, a degenerate step, a lower-dimensional ``Q_i``): project it otherwise.

    Raises
    ------
    ValueError
        When the lengths differ or a map is not ``(2, n_i)``.

    References
    ----------
    T. Bretl and S. Lall, "Testing static equilibrium for legged robots", IEEE Trans. Robotics
    24(4), 2008 (the incremental projection; here extended to unbounded sets by recession rays).
    """
    N = len(polys)
    if offsets is None:
        offsets = [np.zeros(2)] * N
    if len(maps) != N or len(offsets) != N:
        raise ValueError(f"maps, offsets: expected {N} of each, got {len(maps)} and {len(offsets)}")
    for P, M in zip(polys, maps):
        if np.shape(M) != (2, P.dim):
            raise ValueError(f"maps: expected shape (2, {P.dim}), got {np.shape(M)}")
    sets = _Sets(polys, maps, offsets)
    out: list = [None] * N
    sweeps: dict[int, _Sweep] = {}
    groups: dict[tuple[int, int], list[int]] = {}
    for i, P in enumerate(polys):
        groups.setdefault((P.n_ineq + P.n_eq, P.dim), []).append(i)
    universe = np.zeros(N, dtype=bool)
    for idx in groups.values():
        K = np.array([np.vstack([polys[i].A, polys[i].C]) for i in idx])
        universe[idx] = _lineality_universe(K, np.array([sets.M[i] for i in idx]))
    for i in range(N):
        if universe[i]:
            out[i] = (np.zeros((0, 2)), np.zeros(0))
        else:
            sweeps[i] = _Sweep()
    kernel = preferred_kernel(_START * len(sweeps))  # by the problem's size, once
    angles = 2.0 * np.pi * np.arange(_START) / _START
    pending: list[tuple[int, np.ndarray, int, float | None]] = [
        (i, np.array([np.cos(t), np.sin(t)]), -1, None) for i in sweeps for t in angles]
    for _ in range(tol.PLANAR_MAX_ROUNDS):
        if not pending:
            break
        answers = _answer(sets, [(i, a) for i, a, _, _ in pending], kernel)
        _insert(sweeps, pending, answers)
        pending = []
        for i, sw in sweeps.items():
            if sw.failed:
                continue
            for k in range(len(sw.entries)):
                if not sw.closed[k]:
                    q = _arc_query(sw, k)
                    if sw.failed:
                        break
                    if q is not None:
                        pending.append((i, q[0], k, q[1]))
    for i, sw in sweeps.items():
        if not sw.failed and sw.entries and all(sw.closed):
            out[i] = _finish(sw)
    return out


def _answer(sets: _Sets, queries: list[tuple[int, np.ndarray]], kernel: str) -> list[_Entry | None]:
    """Each query's entry (a ray, or a maximizer's image and its value), ``None`` when undecided."""
    rays = sets.solve(queries, True, kernel)
    entries: list[_Entry | None] = [None] * len(queries)
    support = []
    for q, ((i, a), (status, r, val)) in enumerate(zip(queries, rays)):
        if r is None:
            continue
        if val > tol.PLANAR_RAY_RTOL * float(np.abs(sets.M[i].T @ a).sum()):
            rho = sets.M[i] @ r
            entries[q] = _Entry(a, ray=_unit(rho))
        else:
            support.append(q)
    if support:
        found = sets.solve([queries[q] for q in support], False, kernel)
        for q, (status, x, val) in zip(support, found):
            if x is not None:
                i, a = queries[q]
                p = sets.M[i] @ x + sets.g[i]
                entries[q] = _Entry(a, point=p, value=float(a @ p))
    return entries


def _insert(sweeps: dict[int, _Sweep], pending: list, answers: list[_Entry | None]) -> None:
    """Put each answer into its sweep: the first round's in order, later ones after their arc
    (closing both halves when the answer certifies the candidate edge)."""
    by_set: dict[int, list[tuple[int, float | None, _Entry | None]]] = {}
    for (i, _a, k, line), e in zip(pending, answers):
        by_set.setdefault(i, []).append((k, line, e))
    for i, items in by_set.items():
        sw = sweeps[i]
        if any(e is None for _, _, e in items):
            sw.failed = True
            continue
        if items[0][0] == -1:  # the first round: every arc open
            sw.entries = [e for _, _, e in items]
            sw.closed = [False] * len(items)
            continue
        new_at: dict[int, tuple[float | None, _Entry]] = {k: (line, e) for k, line, e in items if e is not None}
        entries, closed = [], []
        for k, e_k in enumerate(sw.entries):
            entries.append(e_k)
            if k not in new_at:
                closed.append(sw.closed[k])
                continue
            line, e = new_at[k]
            edge = line is not None and e.point is not None and e.value <= line + max(_eps(e), _eps(e_k))
            if edge:
                sw.edges.append((e.a, e.value))
            entries.append(e)
            closed += [edge, edge]
        sw.entries, sw.closed = entries, closed

