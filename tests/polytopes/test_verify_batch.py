"""The projection check solves its LPs in verified batches (``polytopes.projection.verify_projection``)
and must decide exactly as the single-LP check it replaced. ``reference_verify`` below is that
check, copied from the code before the batches (one verified LP at a time through
``polytopes.lp``): on many random polytopes with their correct projections both accept; on
deliberately wrong "projections" (a facet shifted or dropped, a vertex moved, a bounded result of
an unbounded set, a full-dimensional result of a lower-dimensional set, a wrong equality) both
reject, naming the same first failed check. Correct projections are known independently: sets
built around a chosen projection (``{(y, z) : y in Q0, z - K y in a box, a half-space or 0}``
projects onto ``Q0``) and PPL's exact projection (rational arithmetic, never verified by the check
under test)."""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np
import pytest

from polytopes import NumericalError, Polytope, batchlp, lp, projection
from polytopes import tolerances as tol
from polytopes.projection import verify_projection


# ------------------------------------------------------- the reference: the single-LP check -----
def _ref_lift(u: np.ndarray, ks: list[int], n: int) -> np.ndarray:
    c = np.zeros(n)
    c[ks] = u
    return c


def _ref_close(a: float, b: float, scale: float) -> bool:
    """Equal within ``PROJECTION_CHECK_TOL`` relative to ``scale``; values beyond
    ``EFFECTIVELY_INFINITE * scale`` count as infinite (double arithmetic cannot tell them apart)."""
    big = tol.EFFECTIVELY_INFINITE * scale
    a = np.inf if a > big else (-np.inf if a < -big else a)
    b = np.inf if b > big else (-np.inf if b < -big else b)
    if np.isinf(a) or np.isinf(b):
        return a == b
    return abs(a - b) <= tol.PROJECTION_CHECK_TOL * max(scale, abs(a), abs(b))


def _ref_in_projection(P: Polytope, ks: list[int], y: np.ndarray, scale: float) -> bool:
    """Whether ``y`` (k,) lies within ``PROJECTION_CHECK_TOL`` of the projection of ``P``: one LP
    over ``P``'s affine-hull coordinates, ``min t  s.t.  V w <= gamma, |x0[ks] + N[ks] w - y| <= t``."""
    h = P._hull()
    assert h is not None  # callers pass non-empty sets
    k = h.N.shape[1]
    M = h.N[ks]
    r = y - h.x0[ks]
    if k == 0:
        return float(np.max(np.abs(r), initial=0.0)) <= tol.PROJECTION_CHECK_TOL * max(
            scale, float(np.max(np.abs(y), initial=0.0)))
    one = np.ones((len(ks), 1))
    A_ub = np.vstack([np.hstack([h.V, np.zeros((h.V.shape[0], 1))]),
                      np.hstack([M, -one]), np.hstack([-M, -one])])
    b_ub = np.concatenate([h.gamma + h.relax, r, -r])
    c = np.zeros(k + 1)
    c[-1] = 1.0
    st, _, fun = lp.solve(c, A_ub, b_ub, bounds=[(None, None)] * k + [(0.0, None)], bounded=True)
    return st == lp.OPTIMAL and fun <= tol.PROJECTION_CHECK_TOL * max(
        scale, float(np.max(np.abs(y), initial=0.0)))


def _ref_lifts_to_ray(P: Polytope, ks: list[int], r: np.ndarray) -> bool:
    """Whether the direction ``r`` (k,) is the projection of a recession direction of ``P``:
    ``V w <= 0, N[ks] w = r`` feasible (``r`` normalized to unit max-norm)."""
    h = P._hull()
    assert h is not None  # callers pass non-empty sets
    k = h.N.shape[1]
    r = r / max(float(np.max(np.abs(r))), 1e-300)
    if k == 0:
        return False
    M = h.N[ks]
    # min t  s.t.  V w <= 0, |M w - r| <= t, |w| <= big: a direction exists iff t* ~ 0
    one = np.ones((len(ks), 1))
    A_ub = np.vstack([np.hstack([h.V, np.zeros((h.V.shape[0], 1))]),
                      np.hstack([M, -one]), np.hstack([-M, -one])])
    b_ub = np.concatenate([np.zeros(h.V.shape[0]), r, -r])
    c = np.zeros(k + 1)
    c[-1] = 1.0
    bound = 1e6
    st, _, fun = lp.solve(c, A_ub, b_ub, bounds=[(-bound, bound)] * k + [(0.0, None)],
                          bounded=True)
    return st == lp.OPTIMAL and fun <= tol.PROJECTION_CHECK_TOL


def reference_verify(P: Polytope, Q: Polytope, keep: Sequence[int]) -> str | None:
    """Check that ``Q`` is the projection of ``P`` onto ``keep``: the single-LP check as it was
    before the batches (module docstring of ``polytopes.projection``).

    Returns ``None`` when every check passes, else a sentence naming the first failed check.
    ``Q`` is expected in reduced form (unit rows). Raises
    ``NumericalError`` only if a check LP cannot be solved reliably.
    """
    ks = [int(k) for k in keep]
    n, k = P.dim, len(ks)
    if P.is_empty():
        return None if Q.is_empty() else "P is empty but the result is not"
    if Q.is_empty():
        return "P is nonempty but the result is empty"
    if Q.affine_dimension() > P.affine_dimension():
        return "the result has a larger affine dimension than P"
    scale = P._feas().scale
    for a, b in zip(Q.A, Q.b):
        hp = P.support(_ref_lift(a, ks, n))
        if not _ref_close(hp, float(b), scale):
            return f"facet {np.round(a, 6).tolist()} . y <= {b:.6g} is not supported by P (support {hp:.6g})"
    for c, dd in zip(Q.C, Q.d):
        lc = _ref_lift(c, ks, n)
        if not (_ref_close(P.support(lc), float(dd), scale) and _ref_close(-P.support(-lc), float(dd), scale)):
            return f"equality {np.round(c, 6).tolist()} . y = {dd:.6g} does not hold on P"
    try:
        G = Q.vertices()
    except (RuntimeError, ValueError, NumericalError):
        G = None  # cdd could not enumerate the result's generators: the support checks stand
    lim = tol.PROJECTION_CHECK_MAX_GENERATORS
    complete = G is not None and max(len(G.vertices), len(G.rays), len(G.lines)) <= lim
    # Q ⊆ proj(P) is shown by the generators of Q (when they are all checked); supports along a
    # few directions guard against a V-representation that misses some, many more without one
    rng = np.random.default_rng(12345)
    extra = tol.PROJECTION_CHECK_DIRECTIONS_WITH_GENERATORS if complete else tol.PROJECTION_CHECK_DIRECTIONS
    dirs = rng.standard_normal((extra, k))
    if not complete:
        dirs = np.vstack([np.eye(k), -np.eye(k), dirs])
    points = []
    for u in dirs:
        hq = Q.support(u)
        lu = _ref_lift(u, ks, n)
        hp, xp = P._inner_lp(lu)
        if not _ref_close(hq, hp, scale):
            return f"supports differ along {np.round(u, 4).tolist()}: result {hq:.6g}, P {hp:.6g}"
        if xp is not None:
            points.append(xp[ks])
    ball = P.chebyshev_center()
    points.append(ball.center[ks])
    for y in points:
        if not Q.contains(y, tol=tol.PROJECTION_CHECK_TOL):
            return f"the projection of a point of P, {np.round(y, 6).tolist()}, is not in the result"
    if G is not None:
        for v in G.vertices[:lim]:
            if not _ref_in_projection(P, ks, v, scale):
                return f"vertex {np.round(v, 6).tolist()} of the result is not in the projection of P"
        for r in G.rays[:lim]:
            if not _ref_lifts_to_ray(P, ks, r):
                return f"ray {np.round(r, 6).tolist()} of the result is not a direction of P"
        for line in G.lines[:lim]:
            if not (_ref_lifts_to_ray(P, ks, line) and _ref_lifts_to_ray(P, ks, -line)):
                return f"line {np.round(line, 6).tolist()} of the result is not a direction of P"
    return None


# ------------------------------------------------------------------------------ the cases -------
def built_around(seed: int, kind: str):
    """``(P, keep, Q0)`` with ``P = {x : x[keep] = y in Q0, z = x[rest], z - K y in Z}``, whose
    projection onto ``keep`` is ``Q0`` by construction (every ``y`` of ``Q0`` has its ``z = K y``).
    ``Q0``: the hull of random integer points (``kind="unbounded_y"``: plus a ray); ``Z``: the box
    ``[-1, 1]^p`` (``"bounded"``, ``"unbounded_y"``), the orthant ``z - K y >= -1`` (``"unbounded_z"``:
    ``P`` unbounded, ``Q0`` bounded) or ``{0}`` (``"lowdim"``: ``z = K y``, equalities)."""
    rng = np.random.default_rng(seed)
    k, p = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    pts = rng.integers(-5, 6, size=(k + 2 + int(rng.integers(0, 5)), k)).astype(float)
    rays = rng.integers(-2, 3, size=(1, k)).astype(float) if kind == "unbounded_y" else None
    if rays is not None:
        rays[0, 0] += float(not np.any(rays))
    Q0 = Polytope.from_generators(pts, rays, dim=k).reduce()
    K = rng.integers(-2, 3, size=(p, k)).astype(float)
    # rows over (y, z): y in Q0; z - K y <= 1 and -(z - K y) <= 1 (or = 0)
    Ay = np.hstack([Q0.A, np.zeros((Q0.n_ineq, p))])
    Cy = np.hstack([Q0.C, np.zeros((Q0.n_eq, p))])
    up = np.hstack([-K, np.eye(p)])
    if kind == "lowdim":
        A, b = Ay, Q0.b
        C, d = np.vstack([Cy, up]), np.concatenate([Q0.d, np.zeros(p)])
    else:
        rows = [Ay, -up] if kind == "unbounded_z" else [Ay, up, -up]
        A = np.vstack(rows)
        b = np.concatenate([Q0.b] + [np.ones(p)] * (len(rows) - 1))
        C, d = Cy, Q0.d
    n = k + p
    perm = rng.permutation(n)  # x[perm[j]] = (y, z)[j]: keep = positions of y
    A2, C2 = np.zeros((A.shape[0], n)), np.zeros((C.shape[0], n))
    A2[:, perm], C2[:, perm] = A, C
    return Polytope(A2, b, C2, d), [int(j) for j in perm[:k]], Q0


def random_polytope(seed: int, kind: str):
    """A random polytope (integer data, origin inside) and coordinates to keep: ``"bounded"``,
    ``"unbounded"`` (a ray along ``x_0``) or ``"lowdim"`` (integer equalities through 0)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    m = int(rng.integers(n + 1, 3 * n + 3))
    A = rng.integers(-4, 5, size=(m, n)).astype(float)
    A = A[np.any(A != 0, axis=1)]
    b = rng.integers(1, 6, size=A.shape[0]).astype(float)
    C, d = np.zeros((0, n)), np.zeros(0)
    if kind == "unbounded":
        A, b = A[A[:, 0] <= 0], b[A[:, 0] <= 0]
    else:
        A, b = np.vstack([A, np.eye(n), -np.eye(n)]), np.concatenate([b, 6 * np.ones(2 * n)])
    if kind == "lowdim":
        C = rng.integers(-2, 3, size=(1, n)).astype(float)
        C[0, 0] += float(not np.any(C))
        d = np.zeros(1)
    keep = [int(j) for j in rng.permutation(n)[:int(rng.integers(1, n))]]
    return Polytope(A, b, C, d), keep


def correct_cases():
    """``(name, P, keep, Q)`` with ``Q`` the projection of ``P`` onto ``keep``, known without the
    check under test."""
    out = []
    for seed in range(30):
        for kind in ("bounded", "unbounded_y", "unbounded_z", "lowdim"):
            P, keep, Q0 = built_around(seed, kind)
            out.append((f"built-{kind}-{seed}", P, keep, Q0))
    return out


def exact_cases():
    """``(name, P, keep, Q)`` with ``Q`` PPL's exact projection (pplpy), rounded to floats once."""
    pytest.importorskip("ppl")
    out = []
    for seed in range(25):
        for kind in ("bounded", "unbounded", "lowdim"):
            P, keep = random_polytope(1000 + seed, kind)
            out.append((f"exact-{kind}-{seed}", P, keep, P.project(keep, method="exact")))
    return out


def _width(Q: Polytope, a: np.ndarray) -> float:
    """``h_Q(a) + h_Q(-a)`` (``inf`` when unbounded either way)."""
    return Q.support(a) + Q.support(-a)


def wrong_results(Q: Polytope, rng: np.random.Generator):
    """``(name, Q')`` for a correct projection ``Q`` (nonempty, reduced): sets that differ from
    ``Q`` by construction — up to three facets (irredundant: ``Q`` is reduced) each shifted out,
    shifted in (by a tenth of the width along its normal, at most 1), dropped and made an equality
    (the result is then that facet, a face of ``Q``); a vertex (an exposed point) moved away from
    the vertices' mean, so out of ``Q``; an equality moved. Some may be empty (callers skip
    those)."""
    out = []
    for i in rng.permutation(Q.n_ineq)[:3]:
        a = Q.A[i]
        w = _width(Q, a)
        delta = 0.1 * min(w, 10.0) if np.isfinite(w) and w > 0 else 0.5
        for sign, what in ((1.0, "out"), (-1.0, "in")):
            if sign < 0 and not (np.isfinite(w) and w > 0):
                continue  # shifted in past a thin or unbounded width: not surely another set
            b = Q.b.copy()
            b[i] += sign * delta
            out.append((f"facet {i} shifted {what}", Polytope(Q.A, b, Q.C, Q.d).reduce()))
        keep = np.arange(Q.n_ineq) != i
        out.append((f"facet {i} dropped", Polytope(Q.A[keep], Q.b[keep], Q.C, Q.d).reduce()))
        out.append((f"facet {i} as an equality", Polytope(Q.A[keep], Q.b[keep], np.vstack([Q.C, a]),
                                                          np.append(Q.d, Q.b[i])).reduce()))
    G = Q.vertices()
    if len(G.vertices) >= 2:
        j = int(rng.integers(len(G.vertices)))
        V = G.vertices.copy()
        V[j] += 0.5 * (V[j] - V.mean(axis=0))
        moved = Polytope.from_generators(V, G.rays, G.lines, dim=Q.dim).reduce()
        out.append((f"vertex {j} moved", moved))
    for i in range(Q.n_eq):
        d = Q.d.copy()
        d[i] += 0.5
        out.append((f"equality {i} shifted", Polytope(Q.A, Q.b, Q.C, d).reduce()))
    return out


def kind_of(message: str | None) -> str | None:
    """The failed check named by a message, without its numbers (``"facet"``, ``"supports differ
    along"``, ...)."""
    return None if message is None else re.split(r"[\[\d-]", message, maxsplit=1)[0].strip()


# ------------------------------------------------------------------------------ the tests -------
@pytest.mark.parametrize("source", ["built", "exact"])
def test_correct_projections_pass_both(source):
    cases = correct_cases() if source == "built" else exact_cases()
    for name, P, keep, Q in cases:
        assert reference_verify(P, Q, keep) is None, name
        assert verify_projection(P, Q, keep) is None, name


@pytest.mark.parametrize("source", ["built", "exact"])
def test_wrong_projections_fail_both_at_the_same_check(source):
    cases = correct_cases() if source == "built" else exact_cases()
    rng = np.random.default_rng(7)
    n_wrong = 0
    for name, P, keep, Q in cases:
        if Q.is_empty():
            continue
        for what, W in wrong_results(Q, rng):
            if W.is_empty():
                continue  # moved an equality or a facet past the set's other side
            ref, new = reference_verify(P, W, keep), verify_projection(P, W, keep)
            assert ref is not None and new is not None, (name, what, ref, new)
            assert kind_of(new) == kind_of(ref), (name, what, ref, new)
            n_wrong += 1
    assert n_wrong > 100


def test_unbounded_set_with_a_bounded_result_fails_both():
    """``P`` unbounded along its kept coordinates (``Q0`` has a ray); the "projection" is ``Q0``
    cut by a box: bounded, wrong."""
    n_cases = 0
    for seed in range(20):
        P, keep, Q0 = built_around(seed, "unbounded_y")
        k = len(keep)
        box = Polytope(np.vstack([np.eye(k), -np.eye(k)]), 20.0 * np.ones(2 * k))
        W = Q0.intersect(box).reduce()
        lo, hi = W.bounding_box()
        assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
        ref, new = reference_verify(P, W, keep), verify_projection(P, W, keep)
        assert ref is not None and new is not None, (seed, ref, new)
        assert kind_of(new) == kind_of(ref), (seed, ref, new)
        n_cases += 1
    assert n_cases == 20


def test_lower_dimensional_set_fails_both():
    """``P`` lower-dimensional in its kept coordinates too (``y`` on a hyperplane ``c.y = 0``
    through an interior point of ``Q0``); "projections": ``Q0`` itself (a larger affine
    dimension) and the true projection with its equality moved off ``P``."""
    n_cases = 0
    for seed in range(20):
        P0, keep, Q0 = built_around(seed, "bounded")
        if Q0.affine_dimension() < 2:
            continue
        rng = np.random.default_rng(seed)
        c = rng.integers(-2, 3, size=len(keep)).astype(float)
        c[0] += float(not np.any(c))
        y0 = Q0.chebyshev_center().center
        row = np.zeros(P0.dim)
        row[keep] = c
        P = Polytope(P0.A, P0.b, np.vstack([P0.C, row]), np.append(P0.d, c @ y0))
        true = Polytope(Q0.A, Q0.b, np.vstack([Q0.C, c]), np.append(Q0.d, c @ y0)).reduce()
        assert reference_verify(P, true, keep) is None and verify_projection(P, true, keep) is None
        moved = Polytope(true.A, true.b, true.C, true.d + 0.25).reduce()
        for W in (Q0, moved):
            if W.is_empty():
                continue
            ref, new = reference_verify(P, W, keep), verify_projection(P, W, keep)
            assert ref is not None and new is not None, (seed, ref, new)
            assert kind_of(new) == kind_of(ref), (seed, ref, new)
            n_cases += 1
    assert n_cases >= 20


def _undecided_batches(monkeypatch):
    """Every batched LP reported undecided: the check must then decide as the single-LP path."""
    def nothing_certified(stacks, fallback=True, kernel="numpy", chunk=batchlp.PADDED_CHUNK):
        return [(np.full(st[1].shape[0], batchlp.UNDECIDED), np.full(st[1].shape[::2], np.nan),
                 np.full(st[1].shape[0], np.nan)) for st in stacks]
    monkeypatch.setattr(batchlp, "solve_stacked", nothing_certified)


def test_without_certified_batch_answers_the_single_lp_path_decides(monkeypatch):
    _undecided_batches(monkeypatch)
    rng = np.random.default_rng(3)
    for name, P, keep, Q in correct_cases()[::4]:
        assert verify_projection(P, Q, keep) is None, name
        for what, W in wrong_results(Q, rng)[:3]:
            if W.is_empty():
                continue
            assert verify_projection(P, W, keep) == reference_verify(P, W, keep), (name, what)


def test_bounded_sets_need_no_single_support_or_membership_lp(monkeypatch):
    """The batch certifies every support and membership LP of a bounded set's check (none left
    to ``Polytope._inner_lp`` or ``_in_projection``), however few they are."""
    monkeypatch.setattr(projection, "CHECK_BATCH_MIN_LPS", 0)
    calls = []
    inner, member = Polytope._inner_lp, projection._in_projection
    monkeypatch.setattr(Polytope, "_inner_lp", lambda self, u: calls.append("support") or inner(self, u))
    monkeypatch.setattr(projection, "_in_projection", lambda *a: calls.append("member") or member(*a))
    for name, P, keep, Q in correct_cases():
        if name.startswith("built-bounded") or name.startswith("built-lowdim"):
            assert verify_projection(P, Q, keep) is None, name
    assert calls == []


def _single_distance(P: Polytope, ks: list[int], y: np.ndarray) -> float:
    """The optimal ``t`` of the reference's membership LP (``_ref_in_projection``), one LP."""
    h = P._hull()
    k = h.N.shape[1]
    M, r, one = h.N[ks], y - h.x0[ks], np.ones((len(ks), 1))
    A_ub = np.vstack([np.hstack([h.V, np.zeros((h.V.shape[0], 1))]),
                      np.hstack([M, -one]), np.hstack([-M, -one])])
    c = np.zeros(k + 1)
    c[-1] = 1.0
    st, _, fun = lp.solve(c, A_ub, np.concatenate([h.gamma + h.relax, r, -r]),
                          bounds=[(None, None)] * k + [(0.0, None)], bounded=True)
    assert st == lp.OPTIMAL
    return float(fun)


def test_batched_answers_are_those_of_single_lps():
    """Each answer the batch certifies is the single LP's: support values of ``P`` and ``Q``
    (relative ``1e-7``) with a maximizer in the set attaining it, and the distances of ``Q``'s
    vertices to the projection; for bounded sets it certifies every one."""
    rng = np.random.default_rng(11)
    n_checked = 0
    for name, P, keep, Q in correct_cases()[::2]:
        dirs = rng.standard_normal((4, len(keep)))
        lifted = np.zeros((len(dirs), P.dim))
        lifted[:, keep] = dirs
        Y = Q.vertices().vertices
        stacks = projection._check_stacks(P, Q, keep, lifted, dirs, Y)
        answers = dict(zip(stacks, batchlp.solve_stacked(list(stacks.values()), fallback=False, kernel="numpy")))
        sp, sq, dist = projection._check_answers(P, Q, lifted, dirs, Y, answers)
        bounded = name.startswith("built-bounded")
        for S, D, got in ((P, lifted, sp), (Q, dirs, sq)):
            for i, d in enumerate(D):
                if np.isnan(got.value[i]):
                    assert not bounded, name
                    continue
                want = S._inner_lp(d)[0]
                x = got.points[i]
                assert got.value[i] == pytest.approx(want, rel=1e-7, abs=1e-7 * S._feas().scale), name
                assert x is not None and S.contains(x, tol=1e-7), name
                assert d @ x == pytest.approx(want, rel=1e-7, abs=1e-7 * S._feas().scale), name
                n_checked += 1
        for y, t in zip(Y, dist):
            if np.isnan(t):
                assert not bounded, name
                continue
            assert t == pytest.approx(_single_distance(P, keep, y), abs=1e-7 * P._feas().scale), name
            n_checked += 1
    assert n_checked > 500


def test_a_set_beyond_the_artificial_box_is_decided_by_the_single_lps():
    """The triangle ``(0, 0), (1, 0), (1, 1e5)`` (data scale 1) reaches ``z = 1e5``, far beyond the
    batch's box ``|w| <= BATCH_LP_BOUND * scale``: the answers leaning on the box are not taken,
    the single LPs decide, and the check accepts the projection ``[0, 1e5]`` onto ``z`` (and
    rejects ``[0, 1e3]``, the box's answer) as the reference does."""
    P = Polytope([[0.0, -1.0], [1.0, 0.0], [-1e5, 1.0]], [0.0, 1.0, 0.0])
    assert P._feas().scale == 1.0 and tol.BATCH_LP_BOUND < 1e5
    Q = Polytope([[1.0], [-1.0]], [1e5, 0.0])
    assert reference_verify(P, Q, [1]) is None
    assert verify_projection(P, Q, [1]) is None
    short = Polytope([[1.0], [-1.0]], [tol.BATCH_LP_BOUND, 0.0])
    ref, new = reference_verify(P, short, [1]), verify_projection(P, short, [1])
    assert ref is not None and new is not None and kind_of(new) == kind_of(ref)


def test_few_check_lps_go_one_by_one_with_the_same_verdicts(monkeypatch):
    """Below ``CHECK_BATCH_MIN_LPS`` the checks' LPs are not batched (no batch call) and every
    verdict is the batched one's, on correct and wrong projections."""
    cases = correct_cases()[:40]
    batched = [verify_projection(P, Q, keep) for _, P, keep, Q in cases]
    wrong = [(P, Polytope(Q.A, Q.b - 0.1 * (1 + np.abs(Q.b)), Q.C, Q.d), keep) for _, P, keep, Q in cases
             if Q.n_ineq]
    wrong_batched = [verify_projection(P, Q, keep) for P, Q, keep in wrong]
    calls = []
    solve = batchlp.solve_stacked
    monkeypatch.setattr(batchlp, "solve_stacked", lambda *a, **k: calls.append(1) or solve(*a, **k))
    monkeypatch.setattr(projection, "CHECK_BATCH_MIN_LPS", 10 ** 9)
    assert [verify_projection(P, Q, keep) for _, P, keep, Q in cases] == batched
    assert [verify_projection(P, Q, keep) for P, Q, keep in wrong] == wrong_batched
    assert calls == [] and all(r is None for r in batched) and sum(r is not None for r in wrong_batched) > 10


def test_project_many_gives_each_sets_projection(monkeypatch):
    """``polytopes.projection.project_many`` (the sets' emptiness, hulls and checks decided
    together) returns, set by set, exactly what ``project`` returns for the set alone — on
    sets of different dimensions projected onto the same coordinates, an empty one among them, with
    each explicit method and ``auto`` — each result also the projection known by construction; and
    a first result that fails its check, or a joint check that raises, is done again by
    ``project``."""
    from polytopes.projection import project, project_many

    groups: dict[tuple, list] = {}
    for name, P, keep, Q0 in correct_cases():
        groups.setdefault(tuple(keep), []).append((P, Q0))
    n_sets = 0
    for keep, items in groups.items():
        if len(items) < 3:
            continue
        Ps = [P for P, _ in items]
        Ps.append(Polytope(np.vstack([np.eye(Ps[0].dim), -np.eye(Ps[0].dim)]), -np.ones(2 * Ps[0].dim)))  # empty
        for method in ("auto", "fourier_motzkin", "block_elimination"):
            many = project_many(Ps, list(keep), method=method)
            for P, Q in zip(Ps, many):
                alone = project(P, list(keep), method=method)
                assert all(np.array_equal(getattr(Q, f), getattr(alone, f)) for f in "AbCd"), method
            for (P, Q0), Q in zip(items, many):
                assert verify_projection(P, Q, list(keep)) is None and Q.is_empty() == Q0.is_empty()
            assert many[-1].is_empty()
            n_sets += len(Ps)
    assert n_sets > 150
    # a first result that fails its check: project() is asked again (here: the same sets)
    calls = []
    real, check = projection.project, projection.verify_projections
    monkeypatch.setattr(projection, "verify_projections",  # project_many's joint check fails
                        lambda pairs, keep: ["forced"] * len(pairs) if len(pairs) > 1 else check(pairs, keep))
    monkeypatch.setattr(projection, "project", lambda *a, **k: calls.append(1) or real(*a, **k))
    keep, items = next((k, v) for k, v in groups.items() if len(v) >= 3)
    Ps = [P for P, _ in items]
    again = project_many(Ps, list(keep))
    assert len(calls) == len(Ps)
    for P, Q in zip(Ps, again):
        alone = real(P, list(keep))
        assert all(np.array_equal(getattr(Q, f), getattr(alone, f)) for f in "AbCd")

    def failing(pairs, keep):  # the joint check cannot solve an LP: every set goes to project()
        if len(pairs) > 1:
            raise NumericalError("no solver could verify an LP")
        return check(pairs, keep)

    monkeypatch.setattr(projection, "verify_projections", failing)
    calls.clear()
    again = project_many(Ps, list(keep))
    assert len(calls) == len(Ps)
    assert all(np.array_equal(Q.A, real(P, list(keep)).A) for P, Q in zip(Ps, again))
