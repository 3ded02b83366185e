"""``polytopes._threads``: a large batch shared by threads gives every problem the answer it
gets alone, bit for bit — the compiled simplex against the same batch in one thread, the
stacked SVD against each matrix's own SVD — and the slices cover the batch exactly once."""

from __future__ import annotations

import numpy as np
import pytest

from polytopes import _threads, batchlp, stacked_svd


@pytest.mark.parametrize("n, threads", [(0, 2), (5, 2), (511, 2), (512, 2), (1000, 3), (100000, 8)])
def test_slices_cover_the_batch_once(n, threads, monkeypatch):
    monkeypatch.setattr(_threads, "THREADS", threads)
    parts = _threads.slices(n)
    covered = np.concatenate([np.arange(n)[z] for z in parts]) if parts else np.zeros(0)
    assert np.array_equal(covered, np.arange(n))
    assert len(parts) <= threads
    assert len(parts) == 1 or all(z.stop - z.start >= _threads.MIN_PER_THREAD for z in parts)


def _random_lps(B: int, m: int = 12, n: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((B, m, n))
    h = rng.uniform(-0.5, 2.0, (B, m))  # some infeasible, most not
    c = rng.standard_normal((B, n))
    box = np.full((B, n), 1e3)
    return c, G, h, -box, box, np.ones((B, n), dtype=bool)


@pytest.mark.skipif(not batchlp.available(), reason="numba not installed")
def test_threaded_compiled_batch_equals_one_thread(monkeypatch):
    args = _random_lps(3000)
    monkeypatch.setattr(_threads, "THREADS", 1)
    one = batchlp.simplex_batch(*args, kernel="compiled")
    monkeypatch.setattr(_threads, "THREADS", 3)
    assert len(_threads.slices(3000)) == 3
    three = batchlp.simplex_batch(*args, kernel="compiled")
    assert np.array_equal(one.status, three.status)
    assert np.array_equal(one.basis, three.basis)
    assert np.array_equal(one.x, three.x, equal_nan=True)
    assert np.array_equal(one.fun, three.fun, equal_nan=True)
    assert one.iterations == three.iterations
    assert len(set(one.status.tolist())) >= 2  # optimal and infeasible LPs both met


def test_stacked_svd_equals_each_matrix_svd(monkeypatch):
    monkeypatch.setattr(_threads, "THREADS", 2)
    A = np.random.default_rng(1).standard_normal((700, 9, 13))
    assert len(_threads.slices(len(A), _threads.MIN_PER_THREAD // 4)) == 2
    U, s, Vt = stacked_svd(A)
    for i in (0, 349, 350, 699):  # both slices, at their ends
        Ui, si, Vti = np.linalg.svd(A[i], full_matrices=True)
        assert np.array_equal(U[i], Ui) and np.array_equal(s[i], si) and np.array_equal(Vt[i], Vti)
