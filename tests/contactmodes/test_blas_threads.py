"""``contactmodes._blas.single_blas_thread`` (issue 28): one OpenBLAS thread inside, the previous
setting restored after, and the same linear algebra within rounding."""

from __future__ import annotations

import numpy as np
import pytest

from contactmodes import _blas


def _threads() -> list[int]:
    out = []
    for lib, name in _blas._libraries():
        prefix, suffix = name.split("|")
        out.append(int(getattr(lib, f"{prefix}_get_num_threads{suffix}")()))
    return out


def test_one_thread_inside_and_the_setting_restored():
    before = _threads()
    if not before:
        pytest.skip("no OpenBLAS mapped into this process")
    with _blas.single_blas_thread():
        assert _threads() == [1] * len(before)
    assert _threads() == before


def test_an_svd_inside_equals_one_outside_within_rounding():
    A = np.random.default_rng(3).standard_normal((300, 300))
    s_out = np.linalg.svd(A, compute_uv=False)
    with _blas.single_blas_thread():
        s_in = np.linalg.svd(A, compute_uv=False)
    np.testing.assert_allclose(s_in, s_out, rtol=1e-12, atol=1e-12 * s_out[0])
