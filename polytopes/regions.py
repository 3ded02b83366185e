"""Unions of convex polytopes and region differences ``P − (Q_1 ∪ … ∪ Q_m)``.

A *region* is a plain list of ``Polytope`` pieces (CONVENTIONS: "a union of convex
polytopes is a list of such polytopes"). The functions here take and return such lists.

Boundary convention
-------------------
Pieces are **closed** and the difference is computed *relative to the affine hull of P*: the
result is the closure of the set difference, as a list of pieces of the same affine dimension as
``P`` whose relative interiors are pairwise disjoint. Consequences, stated once:

* a ``Q`` whose intersection with ``P`` has lower dimension than ``P`` removes nothing (it has
  measure zero within ``P``);
* points on the boundary of a removed ``Q`` belong to the result (closure), so membership tests of
  the difference are meaningful away from boundaries, which is how the tests sample them.

Algorithm: the classical region difference (e.g. Baotić, *Optimal control of piecewise affine
systems — a multi-parametric approach*, ETH 2005, Alg. 3.1 "regiondiff"): split each piece along
the facets of each ``Q`` in turn, ``R ∩ {a_1 x >= b_1}``, ``R ∩ {a_1 x <= b_1, a_2 x >= b_2}``, …,
keeping the pieces of full relative dimension.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .errors import NumericalError, PolytopeError
from .polytope import Polytope

__all__ = [
    "difference",
    "union_bounding_box",
    "union_contains",
    "union_is_empty",
    "union_volume",
    "simplify",
]


SPLIT_CHUNK = 8
"""``difference`` splits a piece along this many facets of a removed set at a time, their sets'
affine hulls computed in one batch (``_split``)."""


def _as_list(Q: Polytope | Iterable[Polytope]) -> list[Polytope]:
    return [Q] if isinstance(Q, Polytope) else list(Q)


def _halfspace(P: Polytope, a: np.ndarray, b: float) -> Polytope:
    """``P ∩ {a·x <= b}``."""
    return P.intersect(Polytope(a.reshape(1, -1), np.array([b])))


def _split(R: Polytope, Q: Polytope, dim: int) -> list[Polytope]:
    """Pieces of ``R − Q`` (closures) of affine dimension ``dim``.

    The sets the loop asks the dimension of (the piece beyond each facet of ``Q`` and what is
    left inside it) are built ``SPLIT_CHUNK`` facets ahead and their hulls computed together
    (``Polytope.prepare_hulls``): the same sets and the same decisions as one at a time (the loop
    stops at the same facet; at most ``SPLIT_CHUNK - 1`` facets' sets are prepared beyond it)."""
    out: list[Polytope] = []
    inside = R
    rows = list(zip(Q.A, Q.b))
    for start in range(0, len(rows), SPLIT_CHUNK):
        chunk = []  # (piece beyond the facet, what is left inside it)
        ins = inside
        for a, b in rows[start:start + SPLIT_CHUNK]:
            piece = _halfspace(ins, -a, -b)
            ins = _halfspace(ins, a, b)
            chunk.append((piece, ins))
        Polytope.prepare_hulls([P for pair in chunk for P in pair])
        for piece, ins in chunk:
            if piece.affine_dimension() == dim:
                out.append(piece.reduce())
            inside = ins
            if inside.affine_dimension() < dim:
                return out
    return out


def difference(P: Polytope, Q: Polytope | Sequence[Polytope]) -> list[Polytope]:
    """Region difference ``P − ∪ Q_i`` as a list of convex polytopes (closures; see module doc).

    Parameters
    ----------
    P : Polytope
        Polytope of dimension n (may be lower-dimensional, unbounded or empty).
    Q : Polytope or Sequence[Polytope]
        A Polytope or a sequence of Polytopes, all of dimension n.

    Returns
    -------
    list[Polytope]
        Pieces of the same affine dimension as ``P``, relative interiors pairwise
        disjoint, whose union is the closure of ``P`` minus the ``Q_i``. ``[]`` when nothing is left.

    Raises
    ------
    PolytopeError
        On a dimension mismatch.
    """
    Qs = _as_list(Q)
    for i, q in enumerate(Qs):
        if q.dim != P.dim:
            raise PolytopeError(f"Q[{i}]: dimension {q.dim} does not match P's {P.dim}")
    dim = P.affine_dimension()
    if dim < 0:
        return []
    pieces = [P.reduce()]
    for q in Qs:
        overlap = P.intersect(q)
        if overlap.affine_dimension() < dim:
            continue  # measure zero within P: removes nothing under the closure convention
        # On aff(P) the equalities of q are implied (the overlap has full relative dimension),
        # so only q's inequalities split the pieces.
        qr = q.reduce()
        new: list[Polytope] = []
        for R in pieces:
            if R.intersect(qr).affine_dimension() < dim:
                new.append(R)
            else:
                new.extend(_split(R, qr, dim))
        pieces = new
        if not pieces:
            break
    return pieces


def union_contains(pieces: Sequence[Polytope], x: np.ndarray, tol: float | None = None) -> bool:
    """Whether the point ``x`` (n,) lies in any piece.

    Parameters
    ----------
    pieces : Sequence[Polytope]
        The union's pieces, all of dimension ``n``.
    x : numpy.ndarray
        Shape ``(n,)``: one point.
    tol : float, optional
        Relative tolerance of ``Polytope.contains`` (default ``tolerances.CONTAINMENT_TOL``).

    Returns
    -------
    bool
        ``False`` for an empty list.
    """
    return any(p.contains(x, tol) for p in pieces)


def union_is_empty(pieces: Sequence[Polytope]) -> bool:
    """Whether every piece is empty (an empty list is empty).

    Parameters
    ----------
    pieces : Sequence[Polytope]
        The union's pieces.

    Returns
    -------
    bool
        Whether the union is empty (by ``Polytope.is_empty``, the package's emptiness rule).
    """
    return all(p.is_empty() for p in pieces)


def union_bounding_box(pieces: Sequence[Polytope]) -> tuple[np.ndarray, np.ndarray]:
    """Smallest box ``(lo, hi)`` (each (n,), ±inf where unbounded) containing every piece.

    Parameters
    ----------
    pieces : Sequence[Polytope]
        The union's pieces, all of dimension ``n``.

    Returns
    -------
    lo, hi : numpy.ndarray
        Shape ``(n,)`` each, ``-inf``/``inf`` where unbounded.

    Raises
    ------
    PolytopeError
        If the union is empty.
    """
    boxes = [p.bounding_box() for p in pieces if not p.is_empty()]
    if not boxes:
        raise PolytopeError("pieces: the union is empty and has no bounding box")
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    return lo, hi


def _volume(p: Polytope) -> float:
    """Lebesgue measure of one piece in its ambient dimension (1-D, 2-D exact; 3-D via qhull)."""
    if p.is_empty() or p.affine_dimension() < p.dim:
        return 0.0
    gens = p.vertices()
    if len(gens.rays) or len(gens.lines):
        return float("inf")
    V = gens.vertices
    if p.dim == 1:
        return float(V.max() - V.min())
    if p.dim == 2:
        c = V.mean(axis=0)
        order = np.argsort(np.arctan2(V[:, 1] - c[1], V[:, 0] - c[0]))
        x, y = V[order, 0], V[order, 1]
        return float(0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    from scipy.spatial import ConvexHull

    return float(ConvexHull(V).volume)


def union_volume(pieces: Sequence[Polytope]) -> float:
    """Volume of a union of pieces with pairwise disjoint interiors (as ``difference`` returns).

    Exact in 1-D (length) and 2-D (shoelace area of the vertex polygon); 3-D and up through
    ``scipy.spatial.ConvexHull``. Lower-dimensional pieces have volume 0; an unbounded
    full-dimensional piece has volume ``inf``.

    Parameters
    ----------
    pieces : Sequence[Polytope]
        Pieces with pairwise disjoint interiors, all of dimension ``n``.

    Returns
    -------
    float
        The ``n``-dimensional volume (in the coordinates' units to the power ``n``).

    Raises
    ------
    NumericalError
        When a piece's vertices cannot be computed reliably (``Polytope.vertices``).
    """
    return float(sum(_volume(p) for p in pieces))


def _convex_union(a: Polytope, b: Polytope) -> Polytope | None:
    """The convex hull of ``a ∪ b`` if it equals the union, else ``None`` (also when cddlib's
    floating-point double description gives up: merging is only a simplification)."""
    try:
        ga, gb = a.vertices(), b.vertices()
        hull = Polytope.from_generators(
            np.vstack([ga.vertices, gb.vertices]),
            rays=np.vstack([ga.rays, gb.rays]),
            lines=np.vstack([ga.lines, gb.lines]),
            dim=a.dim,
        )
    except (RuntimeError, NumericalError):
        return None
    return hull.reduce() if not difference(hull, [a, b]) else None


def simplify(pieces: Sequence[Polytope]) -> list[Polytope]:
    """Greedily merge pairs of pieces whose union is convex (the hull minus both is empty).

    Cheap: pairwise, repeated until no pair merges; not guaranteed to reach the fewest pieces.
    Empty pieces are dropped.

    Parameters
    ----------
    pieces : Sequence[Polytope]
        The pieces of a union (e.g. from ``difference``).

    Returns
    -------
    list[Polytope]
        The same union in at most as many pieces; merged pieces are reduced.
    """
    work = [p for p in pieces if not p.is_empty()]
    merged = True
    while merged and len(work) > 1:
        merged = False
        for i in range(len(work)):
            for j in range(i + 1, len(work)):
                hull = _convex_union(work[i], work[j])
                if hull is not None:
                    work = [p for k, p in enumerate(work) if k not in (i, j)] + [hull]
                    merged = True
                    break
            if merged:
                break
    return work
