"""Region difference and unions of convex pieces (polytopes.regions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polytopes import (Polytope, PolytopeError, difference, simplify, union_bounding_box,
                       union_contains, union_is_empty, union_volume)


def box(lo, hi) -> Polytope:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    n = lo.size
    return Polytope(np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -lo]))


def test_interval_minus_middle_gives_two_pieces():
    pieces = difference(box([0], [10]), box([3], [4]))
    assert len(pieces) == 2
    los = sorted(p.bounding_box()[0][0] for p in pieces)
    his = sorted(p.bounding_box()[1][0] for p in pieces)
    assert los == pytest.approx([0, 4]) and his == pytest.approx([3, 10])
    assert union_volume(pieces) == pytest.approx(9.0)


def test_square_minus_two_boxes_area_by_hand():
    P = box([0, 0], [4, 4])
    Qs = [box([1, 1], [2, 2]), box([3, -1], [5, 5])]  # area removed: 1 + 1*4
    pieces = difference(P, Qs)
    assert union_volume(pieces) == pytest.approx(16 - 1 - 4)
    assert union_contains(pieces, np.array([0.5, 0.5]))
    assert not union_contains(pieces, np.array([1.5, 1.5]))
    assert not union_contains(pieces, np.array([3.5, 2.0]))
    lo, hi = union_bounding_box(pieces)
    assert lo == pytest.approx([0, 0]) and hi == pytest.approx([3, 4])


def test_difference_covering_everything_is_empty():
    assert difference(box([0, 0], [1, 1]), box([-1, -1], [2, 2])) == []
    assert union_is_empty([])
    with pytest.raises(PolytopeError):
        union_bounding_box([])


def test_measure_zero_removal_keeps_p_whole():
    P = box([0, 0], [1, 1])
    segment = Polytope(np.array([[0.0, 1.0], [0.0, -1.0]]), np.array([1.0, 0.0]),
                       np.array([[1.0, 0.0]]), np.array([0.5]))  # x = 0.5, a measure-zero cut
    pieces = difference(P, segment)
    assert len(pieces) == 1 and pieces[0].equals(P)


def test_lower_dimensional_p_is_cut_within_its_affine_hull():
    # P: the segment y = x, 0 <= x <= 4 in the plane; Q: the box [1, 2]^2 cuts out x in [1, 2].
    P = Polytope(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([4.0, 0.0]),
                 np.array([[1.0, -1.0]]), np.array([0.0]))
    pieces = difference(P, box([1, 1], [2, 2]))
    assert len(pieces) == 2
    spans = sorted((p.bounding_box()[0][0], p.bounding_box()[1][0]) for p in pieces)
    assert spans[0] == pytest.approx((0, 1)) and spans[1] == pytest.approx((2, 4))
    assert all(p.affine_dimension() == 1 for p in pieces)
    assert union_volume(pieces) == 0.0  # measure in the plane


def test_unbounded_p():
    P = Polytope(np.array([[-1.0]]), np.array([0.0]))  # x >= 0
    pieces = difference(P, box([1], [2]))
    assert len(pieces) == 2
    assert union_volume(pieces) == np.inf
    assert union_contains(pieces, np.array([100.0])) and not union_contains(pieces, np.array([1.5]))


def test_simplify_merges_a_split_box():
    pieces = [box([0, 0], [1, 1]), box([1, 0], [2, 1]), box([5, 5], [6, 6])]
    merged = simplify(pieces)
    assert len(merged) == 2
    assert any(p.equals(box([0, 0], [2, 1])) for p in merged)


def test_dimension_mismatch():
    with pytest.raises(PolytopeError):
        difference(box([0], [1]), box([0, 0], [1, 1]))


boxes_2d = st.tuples(
    st.floats(-3, 2), st.floats(-3, 2), st.floats(0.2, 3), st.floats(0.2, 3)
).map(lambda t: box([t[0], t[1]], [t[0] + t[2], t[1] + t[3]]))


@settings(max_examples=25, deadline=None)
@given(qs=st.lists(boxes_2d, min_size=1, max_size=3), seed=st.integers(0, 10_000))
def test_membership_property(qs, seed):
    """x in difference iff x in P and in none of the Q (points away from all boundaries)."""
    P = Polytope(np.array([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]), np.array([4.0, 2.0, 2.0]))
    pieces = difference(P, qs)
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-3, 6, size=(60, 2))
    everything = [P] + list(qs)
    for x in pts:
        margins = [np.min((s.b - s.A @ x) / np.linalg.norm(s.A, axis=1)) for s in everything]
        if min(abs(m) for m in margins) < 1e-6:
            continue
        expected = P.contains(x) and not any(q.contains(x) for q in qs)
        assert union_contains(pieces, x) == expected
    # interiors pairwise disjoint: every pairwise intersection is at most a segment
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            assert pieces[i].intersect(pieces[j]).affine_dimension() < 2
    assert union_volume(pieces) <= union_volume([P]) + 1e-9


def _split_one_at_a_time(R, Q, dim):
    """The split as it was before the hulls were batched: each set's dimension decided alone."""
    out, inside = [], R
    for a, b in zip(Q.A, Q.b):
        piece = R.__class__(np.vstack([inside.A, -a[None]]), np.append(inside.b, -b), inside.C, inside.d)
        if piece.affine_dimension() == dim:
            out.append(piece.reduce())
        inside = R.__class__(np.vstack([inside.A, a[None]]), np.append(inside.b, b), inside.C, inside.d)
        if inside.affine_dimension() < dim:
            break
    return out


def _same(p, q) -> bool:
    return all(np.array_equal(x, y) for x, y in ((p.A, q.A), (p.b, q.b), (p.C, q.C), (p.d, q.d)))


@pytest.mark.parametrize("seed", range(6))
def test_batched_split_is_the_one_at_a_time_split(seed, monkeypatch):
    """``difference`` decides the dimensions of a split's sets with their hulls computed together
    (``regions._split``, ``SPLIT_CHUNK`` facets at a time): the same pieces, bit for bit, as
    deciding each set alone — on random boxes and polygons, on removed sets equal to ``P`` up to
    rounding (slivers), on lower-dimensional ``P``, with chunks of 1, 3 and the default."""
    from polytopes import regions

    rng = np.random.default_rng(seed)
    n = 2 + seed % 3
    cases = []
    for _ in range(4):
        A = rng.standard_normal((n + 4, n))
        P = Polytope(A, np.abs(rng.standard_normal(n + 4)) + 0.5)
        Q = Polytope(A + 1e-15 * rng.standard_normal(A.shape), P.b * (1 + 1e-15))  # P up to rounding
        Q2 = Polytope(rng.standard_normal((n + 3, n)), np.abs(rng.standard_normal(n + 3)) + 0.2)
        cases += [(P, [Q]), (P, [Q2]), (P, [Q2, Q])]
    flat = Polytope(np.vstack([np.eye(n), -np.eye(n)]), np.ones(2 * n), np.eye(n)[:1], np.zeros(1))
    cases.append((flat, [Polytope(np.vstack([np.eye(n), -np.eye(n)]), 0.5 * np.ones(2 * n))]))
    from polytopes import _feasibility

    real_hulls, sizes = _feasibility.hulls, []

    def hulls(items, **kwargs):
        sizes.append(len(items))
        return real_hulls(items, **kwargs)

    monkeypatch.setattr(_feasibility, "hulls", hulls)
    n_pieces = 0
    for P, Qs in cases:
        with monkeypatch.context() as m:
            m.setattr(regions, "_split", _split_one_at_a_time)
            want = difference(Polytope(P.A, P.b, P.C, P.d), [Polytope(q.A, q.b, q.C, q.d) for q in Qs])
        for chunk in (1, 3, regions.SPLIT_CHUNK):
            monkeypatch.setattr(regions, "SPLIT_CHUNK", chunk)
            got = difference(Polytope(P.A, P.b, P.C, P.d), [Polytope(q.A, q.b, q.C, q.d) for q in Qs])
            assert len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
        n_pieces += len(want)
    assert n_pieces > 0
    assert max(sizes) > 2  # the split's hulls were decided together
