"""The compiled batched dual simplex (``polytopes.batchlp_kernel``) against its references:
the NumPy kernel of ``polytopes.batchlp`` (same method, same verification rules), HiGHS through
``polytopes.lp.solve_verified`` (``solver="highs"``, without the artificial bounds) and the
verification rules of ``polytopes.lp`` applied in NumPy to the same claims.

LPs captured from whole RHex flips are compared in ``tests/controllers/rhex/test_rhex_realtime.py``."""

from __future__ import annotations

import numpy as np
import pytest

from polytopes import batchlp, batchlp_kernel, lp

pytestmark = pytest.mark.skipif(not batchlp_kernel.AVAILABLE, reason="numba is not installed")


def _random_batch(seed: int, B: int = 60, m: int = 10, n: int = 5, zero_rows: bool = True):
    """LPs of the controller's kind: a box (some bounds artificial), random rows (some all-zero,
    some scaled by 1e±3), about half of them feasible."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(B, n))
    c[rng.random((B, n)) < 0.15] = 0.0
    G = rng.normal(size=(B, m, n)) * 10.0 ** rng.integers(-3, 4, size=(B, m, 1))
    h = (rng.normal(size=(B, m)) + 0.4) * np.sqrt(np.sum(G * G, axis=2))
    if zero_rows:
        z = rng.random((B, m)) < 0.05
        G[z] = 0.0
        h[z] = np.where(rng.random(int(z.sum())) < 0.5, 1.0, -1.0)
    lo = -rng.uniform(0.5, 3.0, size=(B, n))
    hi = rng.uniform(0.5, 3.0, size=(B, n))
    art = np.zeros((B, n), dtype=bool)
    art[:, n - 2:] = True
    lo[art], hi[art] = -1e3, 1e3
    return c, G, h, lo, hi, art


@pytest.mark.parametrize("seed", range(6))
def test_compiled_equals_numpy_kernel(seed):
    c, G, h, lo, hi, art = _random_batch(seed)
    a = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="numpy")
    b = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="compiled")
    assert np.array_equal(a.status, b.status)
    opt = a.status == lp.OPTIMAL
    size = np.maximum(1.0, np.abs(a.fun[opt]))
    assert np.all(np.abs(a.fun[opt] - b.fun[opt]) <= 1e-9 * size)
    assert np.all(np.isnan(b.fun[~opt])) and np.all(np.isnan(b.x[~opt]))
    # warm starts: the final bases (a fixed point: no pivot), and garbage bases (rejected or used)
    for basis in (b.basis, np.random.default_rng(seed).integers(-2, G.shape[1] + 12, size=b.basis.shape)):
        wa = batchlp.simplex_batch(c, G, h, lo, hi, art, basis=basis, kernel="numpy")
        wb = batchlp.simplex_batch(c, G, h, lo, hi, art, basis=basis, kernel="compiled")
        assert np.array_equal(wa.status, wb.status)
        o = wa.status == lp.OPTIMAL
        assert np.all(np.abs(wa.fun[o] - wb.fun[o]) <= 1e-9 * np.maximum(1.0, np.abs(wa.fun[o])))
    again = batchlp.simplex_batch(c, G, h, lo, hi, art, basis=b.basis, kernel="compiled")
    assert again.iterations == 0 and np.array_equal(again.status, b.status)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_decisions_match_highs(seed):
    """Every LP the compiled kernel decides has HiGHS's status and optimal value (relative 1e-7
    of the terms), HiGHS solving the caller's LP (no artificial bounds)."""
    c, G, h, lo, hi, art = _random_batch(100 + seed)
    res = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="compiled")
    decided = np.flatnonzero(res.status != batchlp.UNDECIDED)
    assert decided.size >= 0.5 * c.shape[0]
    seen = set()
    for b in decided:
        bounds = [(None, None) if art[b, j] else (lo[b, j], hi[b, j]) for j in range(c.shape[1])]
        ref = lp.solve_verified(c[b], G[b], h[b], bounds=bounds, solver="highs")
        assert ref.status == res.status[b], b
        seen.add(int(ref.status))
        if ref.status == lp.OPTIMAL:
            size = max(1.0, abs(ref.fun), float(np.abs(c[b]).max()) * float(np.abs(ref.x).max()))
            assert abs(ref.fun - res.fun[b]) <= 1e-7 * size
    assert seen == {lp.OPTIMAL, lp.INFEASIBLE}
    full = batchlp.solve_batch(c, G, h, lo, hi, art, kernel="compiled")  # the fallback decides the rest
    assert not np.any(full.status == batchlp.UNDECIDED)


def _claims(seed: int, B: int = 80):
    """Random bases with claimed statuses, over normalized rows ``F`` (the bound rows included)."""
    rng = np.random.default_rng(seed)
    c, G, h, lo, hi, art = _random_batch(seed, B=B, zero_rows=False)
    m, n = G.shape[1], G.shape[2]
    Gn = G / np.sqrt(np.sum(G * G, axis=2))[:, :, None]
    hn = h / np.sqrt(np.sum(G * G, axis=2))
    eye = np.broadcast_to(np.eye(n), (B, n, n))
    F = np.concatenate([Gn, eye, -eye], axis=1)
    f = np.concatenate([hn, hi, -lo], axis=1)
    A = np.zeros((B, m + 2 * n), dtype=bool)
    A[:, m:m + n], A[:, m + n:] = art, art
    # half of the claims come from the solver (mostly right), half are random (mostly wrong)
    res = batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="numpy", max_iter=200)
    basis = res.basis.copy()
    status = np.where(res.status == batchlp.UNDECIDED, lp.OPTIMAL, res.status)
    enter = np.full(B, -1)
    for b in range(B):
        if status[b] == lp.INFEASIBLE:  # the row the solver would enter: the most violated one
            x = np.linalg.solve(F[b, basis[b]], f[b, basis[b]])
            enter[b] = int(np.argmax((F[b] @ x - f[b]) / np.maximum(np.maximum(1.0, np.abs(x).max()), np.abs(f[b]))))
    wrong = rng.random(B) < 0.5
    for b in np.flatnonzero(wrong):
        basis[b] = rng.choice(m + 2 * n, size=n, replace=False)
        status[b] = lp.OPTIMAL if rng.random() < 0.6 else lp.INFEASIBLE
        enter[b] = int(rng.integers(0, m + 2 * n))
    return c, F, f, A, n, status, basis, enter


@pytest.mark.parametrize("seed", range(4))
def test_compiled_verification_equals_lp_rules(seed):
    """The compiled check accepts exactly the claims the NumPy verification (``batchlp._verify``:
    ``polytopes.lp.primal_ok``, ``dual_ok``, ``farkas_ok``)
    accepts, and rejects wrong claims."""
    c, F, f, A, n, status, basis, enter = _claims(seed)
    ref = batchlp._verify(c, F, f, A, n, status.copy(), basis, enter, 0)
    got = np.empty(c.shape[0], dtype=int)
    x = np.full((c.shape[0], n), np.nan)
    for b in range(c.shape[0]):
        got[b] = batchlp_kernel.verify_kernel(c[b], F[b], f[b], A[b], int(status[b]), basis[b].astype(np.int64),
                                              int(enter[b]), x[b])
    accepted = ref.status != batchlp.UNDECIDED
    assert np.array_equal(got, ref.status)
    assert 0 < accepted.sum() < c.shape[0]  # both outcomes occur
    o = ref.status == lp.OPTIMAL
    assert np.allclose(x[o], ref.x[o], rtol=1e-10, atol=1e-12)


def test_kernel_choice_is_validated():
    c, G, h, lo, hi, art = _random_batch(0, B=2)
    with pytest.raises(ValueError, match="kernel"):
        batchlp.simplex_batch(c, G, h, lo, hi, art, kernel="fortran")


def test_padding_changes_no_answer():
    """``batchlp.solve_padded`` on LPs of different sizes (several chunks) gives, LP by LP,
    exactly the answer it gives the LP alone (bit for bit: the padding depends on the LP's own
    size), the NumPy kernel's answer on the unpadded LP within rounding, and HiGHS's status and
    value."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(3)
    problems = []
    for _ in range(40):
        n = int(rng.integers(1, 6))
        m = int(rng.integers(1, 9))
        G = rng.standard_normal((m, n))
        h = rng.uniform(-0.5, 1.0, m)
        c = rng.standard_normal(n)
        lo, hi = np.full(n, -5.0), np.full(n, 5.0)
        real = rng.random(n) < 0.3  # some bounds are the caller's, the others artificial
        problems.append((c, G, h, lo, hi, ~real, ~real))
    status, xs, fun = batchlp.solve_padded(problems, fallback=False, chunk=16)
    assert 0 < np.count_nonzero(status == lp.OPTIMAL) and np.count_nonzero(status == lp.INFEASIBLE) > 0
    for (c, G, h, lo, hi, al, ah), st, x, f in zip(problems, status, xs, fun):
        one = batchlp.simplex_batch(c[None], G[None], h[None], lo[None], hi[None], artificial=(al[None], ah[None]),
                                    kernel="numpy")
        alone = batchlp.solve_padded([(c, G, h, lo, hi, al, ah)], fallback=False)
        assert st == one.status[0] == alone[0][0]
        bounds = [(None if al[j] else lo[j], None if ah[j] else hi[j]) for j in range(len(c))]
        ref = linprog(c, A_ub=G, b_ub=h, bounds=bounds, method="highs")
        if st == lp.OPTIMAL:
            assert np.array_equal(x, alone[1][0]) and f == alone[2][0]
            np.testing.assert_allclose(x, one.x[0], rtol=1e-12, atol=1e-12)
            assert ref.status == 0 and f == pytest.approx(ref.fun, abs=1e-8)
        elif st == lp.INFEASIBLE:
            assert ref.status == 2


# --------------------------------------------------------------------------- the on-disk cache
@pytest.mark.skipif(not batchlp_kernel.AVAILABLE, reason="numba is not installed")
def test_cache_directory_follows_every_source(tmp_path, monkeypatch):
    """A kernel's cache directory is named by the contents of all its sources: changing any one
    (a called function's module, a tolerance) moves it; the same contents find it again."""
    monkeypatch.setattr(batchlp_kernel, "CACHE_ROOT", str(tmp_path / "root"))
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("X = 1\n")
    b.write_text("TOL = 1e-9\n")
    first = batchlp_kernel.cache_dir_for(str(a), str(b))
    assert first is not None and first.startswith(str(tmp_path / "root")) and (tmp_path / "root").is_dir()
    assert batchlp_kernel.cache_dir_for(str(a), str(b)) == first
    b.write_text("TOL = 1e-8\n")  # only the dependency changed (same length, as a same-second edit)
    second = batchlp_kernel.cache_dir_for(str(a), str(b))
    assert second != first
    b.write_text("TOL = 1e-9\n")
    assert batchlp_kernel.cache_dir_for(str(a), str(b)) == first


@pytest.mark.skipif(not batchlp_kernel.AVAILABLE, reason="numba is not installed")
def test_kernels_cache_into_their_own_directories():
    """Each kernel module's functions cache into the directory of its own sources (which, for
    the layout kernels, include the batched-LP kernel they call), and importing them leaves
    numba's global cache setting as the user had it."""
    import os

    from contactmodes.realtime import kernels as layout_kernel

    if batchlp_kernel.CACHE_DIR is None:
        pytest.skip("no writable cache directory")
    expected = batchlp_kernel.cache_dir_for(batchlp_kernel.__file__, batchlp_kernel.tol.__file__)
    assert batchlp_kernel.CACHE_DIR == expected
    assert batchlp_kernel.simplex_kernel._cache._cache_path.startswith(expected + os.sep)
    from contactmodes import tolerances as ctol

    layout_dir = batchlp_kernel.cache_dir_for(layout_kernel.__file__, ctol.__file__, batchlp_kernel.__file__,
                                              batchlp_kernel.tol.__file__)
    assert layout_kernel.CACHE_DIR == layout_dir != expected
    assert layout_kernel.domains_kernel._cache._cache_path.startswith(layout_dir + os.sep)
    assert batchlp_kernel.numba.config.CACHE_DIR != expected


def test_kernel_constants_are_the_batch_constants():
    """The compiled kernel's plain-float copies of the batch simplex's constants (numba compiles
    module floats in) equal the NumPy path's, so both paths apply the same rules."""
    assert batchlp_kernel._ENTER_TOL == batchlp.ENTER_TOL
    assert batchlp_kernel._PIVOT_TOL == batchlp.PIVOT_TOL
    assert batchlp_kernel._ART_TOL == batchlp.ART_TOL
    assert batchlp_kernel._PRIMAL_TOL == lp.tol.LP_PRIMAL_TOL and batchlp_kernel._DUAL_TOL == lp.tol.LP_DUAL_TOL


def test_kernel_choice_does_not_depend_on_the_process_history():
    """``preferred_kernel`` picks by the number of LPs only: running the compiled kernel first
    (as a controller does) must not switch later small batches to it (the kernels' last bits
    differ, so an analysis would depend on what its process ran before)."""
    small, large = 8, batchlp.COMPILED_MIN_LPS
    before = (batchlp.preferred_kernel(small), batchlp.preferred_kernel(large))
    assert before[0] == "numpy"
    assert before[1] == ("compiled" if batchlp.available() else "numpy")
    if batchlp.available():
        c = np.array([[-1.0, 0.0]])
        G, h = np.array([[[1.0, 1.0]]]), np.array([[1.0]])
        res = batchlp.simplex_batch(c, G, h, np.full((1, 2), -2.0), np.full((1, 2), 2.0), kernel="compiled")
        assert res.status[0] == lp.OPTIMAL  # max x0 s.t. x0 + x1 <= 1 in the box: x = (2, -1)
        assert np.allclose(res.x[0], [2.0, -1.0])
    assert (batchlp.preferred_kernel(small), batchlp.preferred_kernel(large)) == before


def test_stacked_lps_get_their_padded_answers():
    """``batchlp.solve_stacked`` (stacks of one size, several sizes sharing a padded size, in
    chunks) gives each LP exactly the answer ``batchlp.solve_padded`` gives it."""
    rng = np.random.default_rng(4)
    stacks, flat = [], []
    for m, n, S in [(5, 3, 30), (7, 4, 20), (6, 2, 25), (12, 5, 10), (3, 3, 1)]:
        G = rng.standard_normal((S, m, n))
        h = rng.uniform(-0.5, 1.0, (S, m))
        c = rng.standard_normal((S, n))
        lo, hi = np.full((S, n), -5.0), np.full((S, n), 5.0)
        art = rng.random((S, n)) < 0.7
        stacks.append((c, G, h, lo, hi, art, art))
        flat += [(c[i], G[i], h[i], lo[i], hi[i], art[i], art[i]) for i in range(S)]
    got = batchlp.solve_stacked(stacks, fallback=True, chunk=16)
    status, xs, fun = batchlp.solve_padded(flat, fallback=True, chunk=16)
    at = 0
    for (st, x, f), S in zip(got, [s[1].shape[0] for s in stacks]):
        assert st.tolist() == status[at:at + S].tolist()
        assert np.array_equal(f, fun[at:at + S], equal_nan=True)
        for i in range(S):
            ref = xs[at + i]
            assert np.all(np.isnan(x[i])) if ref is None else np.array_equal(x[i], ref)
        at += S
    assert 0 < np.count_nonzero(status == lp.OPTIMAL) < len(flat)


@pytest.mark.skipif(not batchlp_kernel.AVAILABLE, reason="numba not installed")
def test_solve_in_place_against_lapack():
    """``batchlp_kernel.solve_in_place`` (a basis's dual solve ``F_Bᵀ y_B = −c``) against LAPACK's solve on
    random, badly scaled and permuted systems; False for an exactly singular one (a zero pivot), as
    ``batchlp_kernel.invert``."""
    rng = np.random.default_rng(5)
    for n in (1, 3, 8, 20):
        for _ in range(20):
            a = rng.normal(size=(n, n)) * 10.0 ** rng.uniform(-3, 3, size=(n, 1))
            a = a[rng.permutation(n)]
            x = rng.normal(size=n)
            want = np.linalg.solve(a, x)
            aa, xx = a.copy(), x.copy()
            assert batchlp_kernel.solve_in_place(aa, xx)
            assert np.allclose(xx, want, rtol=1e-8, atol=1e-10 * np.abs(want).max())
    a = rng.normal(size=(4, 4))
    a[:, 2] = 0.0  # a zero column: an exactly zero pivot
    assert not batchlp_kernel.solve_in_place(a, np.ones(4))
    assert not batchlp_kernel.solve_in_place(np.array([[1e308, 1.0], [1.0, 1e-308]]), np.array([1e308, 1.0]))
