"""``polytopes._box_kernel``: the compiled sides of a bounding box (issue 28), against two
independent decisions of the same boxes:

* the NumPy steps it replaces (``Polytope._unbounded_axes`` with the pool, the batched support
  LPs of ``_batched_support`` by the compiled simplex, the rays of ``_rays_from_bases``): the same
  boxes bit for bit on every domain of the 7-contact chain (the support LPs are the same LPs);
* one cddlib LP per side, no pool, no batch (``kernel=None``): the same unbounded sides and the
  same finite sides to LP accuracy;

and a pool of directions that are no rays of a bounded set proves none of its sides.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

import contactmodes.analysis.session as session_module
from polytopes import Polytope, RayPool, _box_kernel

from _support.chains import zigzag_chain
from _support.toml_writer import to_toml

pytestmark = pytest.mark.skipif(not _box_kernel.AVAILABLE, reason="numba not installed")


@pytest.fixture(scope="module")
def chain_boxes_input():
    """The scaled domains ``D_c`` of the 7-contact chain's feasible modes and the torque count."""
    import contactmodes as cm

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "chain.toml")
        with open(path, "w") as fh:
            fh.write(to_toml(zigzag_chain(7)))
        s = session_module.AnalysisSession(cm.load_system(path))
        polys = [s.mode(m)._D_or_raw(True) for m in s.feasible_modes()]
    assert len(polys) >= 100
    return polys, s.scaled.n_tau


def _boxes(polys, n, kernel):
    pool = RayPool(n)
    return [P.bounding_box(coords=range(n), pool=pool if P.dim == n else None, kernel=kernel) for P in polys]


def test_compiled_sides_equal_the_numpy_steps_bit_for_bit(chain_boxes_input, monkeypatch):
    polys, n = chain_boxes_input
    fresh = [Polytope(P.A, P.b, P.C, P.d) for P in polys]
    got = _boxes(fresh, n, "compiled")
    assert all(P._compiled_sides("compiled") for P in fresh)  # the kernel served them
    monkeypatch.setattr(Polytope, "_compiled_sides", lambda self, kernel: False)
    want = _boxes([Polytope(P.A, P.b, P.C, P.d) for P in polys], n, "compiled")
    n_inf = n_fin = 0
    for (lo, hi), (lo_w, hi_w) in zip(got, want):
        for a, b in ((lo, lo_w), (hi, hi_w)):
            assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))
            n_inf += int(np.isinf(a).sum())
            n_fin += int(np.isfinite(a).sum())
    assert n_inf > 100 and n_fin > 100  # both kinds of sides were decided


def test_compiled_sides_equal_single_lp_boxes(chain_boxes_input):
    polys, n = chain_boxes_input
    got = _boxes([Polytope(P.A, P.b, P.C, P.d) for P in polys], n, "compiled")
    for P, (lo, hi) in zip(polys[::5], got[::5]):
        lo_r, hi_r = Polytope(P.A, P.b, P.C, P.d).bounding_box(coords=range(n))
        for a, b in ((lo, lo_r), (hi, hi_r)):
            assert np.array_equal(np.isinf(a), np.isinf(b))
            fin = np.isfinite(b)
            assert np.allclose(a[fin], b[fin], rtol=1e-7, atol=1e-7)


def test_pooled_directions_that_are_no_rays_prove_nothing():
    rng = np.random.default_rng(3)
    n = 4
    A = np.vstack([rng.standard_normal((10, n)), np.eye(n), -np.eye(n)])
    P = Polytope(A, np.concatenate([rng.uniform(1, 2, 10), np.full(2 * n, 2.0)]))
    pool = RayPool(n)
    pool.add(rng.standard_normal((200, n)))
    pool.add(np.vstack([np.eye(n), -np.eye(n)]))  # along every side, but each leaves the set
    lo, hi = P.bounding_box(pool=pool, kernel="compiled")
    lo_r, hi_r = P.bounding_box()
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
    assert np.allclose(lo, lo_r, atol=1e-9) and np.allclose(hi, hi_r, atol=1e-9)
