"""``contactmodes.modes.response.batched_responses``, the one response computation for many modes.

Against the SVD response (``response_from_equations``, the definition of Sec. III-D) of the same
rows, on every Table III candidate of the examples: the certified modes without ambiguity have
the SVD's ``P`` and ``r``, every mode the SVD's consistency, ``n_w`` and rank of (31); a mode whose
certificate fails is the SVD's response bit for bit and gets the SVD-rule pivots; and without
numba (the optional ``compiled`` extra, blocked in a subprocess) the NumPy path answers.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.modes import _pivot_response, response_kernels
from contactmodes.modes.constraints import ModeEquations
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.modes.response import batched_responses, pivot_choice, pivot_choices, response_from_equations
from contactmodes.realtime.plan import Structure, terms_of
from contactmodes.system_file.loader import load_system_file

EXAMPLES = ["two_link_brace", "painleve_rod", "table_two_legs", "rhex_flip_start"]  # no task equalities


def _batch(name):
    system = load_system_file(ROOT / "examples" / f"{name}.toml").system
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    rows = lay.eq_rows
    piv = [pivot_choice(banks.A[r]) for r in rows]
    prow = np.array([r[p[0]] for r, p in zip(rows, piv)])
    pcol = np.array([p[1] for p in piv])
    rank = np.array([p[2] for p in piv])
    return system, banks, rows, (prow, pcol, rank, np.argsort(pcol, axis=1)), lay.modes


def _first(banks):
    """The objective ``q̈_0`` (a unit vector over ``x = (q̈, f)``)."""
    return np.eye(banks.A.shape[1])[0]


def _svd(banks, rows, n_q, mode=""):
    A = banks.A[rows]
    n, nt = A.shape[1], banks.B.shape[1]
    return response_from_equations(ModeEquations(mode, A, banks.B[rows], banks.b[rows], [], np.zeros((0, n + nt)),
                                                 np.zeros(0), [], n_q, n - n_q, nt))


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_batched_responses_are_the_svd_responses(name, kernel):
    system, banks, rows, piv, modes = _batch(name)
    out = batched_responses(banks.A, banks.B, banks.b, rows, *piv, system.n_q, _first(banks), kernel=kernel, modes=modes)
    assert out.P.shape[0] == len(modes)
    for j in range(len(modes)):
        ref = _svd(banks, rows[j], system.n_q)
        assert (bool(out.consistent[j]), int(out.n_w[j])) == (ref.consistent, ref.n_w), modes[j]
        if not ref.consistent:
            continue
        assert int(out.cvalid[j].sum()) == ref.tau_C.shape[0], modes[j]
        assert bool(out.unique[j]) == (not (ref.n_w and np.abs(ref.Q[0]).max() > 1e-9)), modes[j]
        if ref.n_w == 0:
            scale = max(1.0, float(np.abs(ref.P).max()), float(np.abs(ref.r).max()))
            assert np.allclose(out.P[j], ref.P, atol=1e-9 * scale) and np.allclose(out.r[j], ref.r, atol=1e-9 * scale)


def test_a_refused_certificate_gives_the_svd_response_bit_for_bit(monkeypatch):
    system, banks, rows, piv, modes = _batch("table_two_legs")
    real = _pivot_response.pivot_responses

    def refusing(*args):
        out = real(*args)
        out[-1][:] = False
        return out

    monkeypatch.setattr(_pivot_response, "pivot_responses", refusing)
    out = batched_responses(banks.A, banks.B, banks.b, rows, *piv, system.n_q, _first(banks), kernel="numpy", modes=modes)
    assert not out.certified.any() and sorted(out.repivoted) == list(range(len(modes)))
    for j in range(len(modes)):
        ref = _svd(banks, rows[j], system.n_q, modes[j])
        nw, p = ref.n_w, ref.tau_C.shape[0]
        assert np.array_equal(out.P[j], ref.P) and np.array_equal(out.r[j], ref.r)
        assert np.array_equal(out.Q[j][:, :nw], ref.Q) and not out.Q[j][:, nw:].any()
        assert np.array_equal(out.C[j][:p], ref.tau_C) and np.array_equal(out.d[j][:p], ref.tau_d)
        assert out.consistent[j] == ref.consistent and out.n_w[j] == nw
        r0, c0, k0 = out.repivoted[j]
        r1, c1, k1 = pivot_choice(banks.A[rows[j]])
        assert np.array_equal(r0, r1) and np.array_equal(c0, c1) and k0 == k1


def test_unknown_kernel_is_one_line():
    system, banks, rows, piv, modes = _batch("painleve_rod")
    with pytest.raises(ValueError, match="^kernel: must be"):
        batched_responses(banks.A, banks.B, banks.b, rows, *piv, system.n_q, _first(banks), kernel="gpu")


_NO_NUMBA = r"""
import sys


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "numba":
            raise ModuleNotFoundError("No module named 'numba'", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
import numpy as np
from contactmodes.modes import response_kernels
from contactmodes.modes.response import batched_responses, pivot_choice, pivot_choices
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.realtime.plan import Structure, terms_of
from contactmodes.system_file.loader import load_system_file

assert not response_kernels.AVAILABLE
system = load_system_file("examples/two_link_brace.toml").system
terms = terms_of(system)
st = Structure.of(system)
lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
banks = st.banks(terms)
piv = [pivot_choice(banks.A[r]) for r in lay.eq_rows]
both = pivot_choices(banks.A[lay.eq_rows])  # "auto" without numba: the NumPy path
assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and x[2] == y[2] for x, y in zip(piv, both))
prow = np.array([r[p[0]] for r, p in zip(lay.eq_rows, piv)])
pcol = np.array([p[1] for p in piv])
args = (banks.A, banks.B, banks.b, lay.eq_rows, prow, pcol, np.array([p[2] for p in piv]), np.argsort(pcol, axis=1),
        system.n_q, np.eye(banks.A.shape[1])[0])
a, b = batched_responses(*args), batched_responses(*args, kernel="numpy")
assert all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("P", "Q", "r", "C", "d", "certified", "unique"))
print("ok", len(lay.modes))
"""


def test_without_numba_the_numpy_path_answers():
    proc = subprocess.run([sys.executable, "-c", _NO_NUMBA], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok ")


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_general_objective_is_unique_as_the_svd_decides(name):
    """Objectives over ``x = (q̈, f)``: random ones (moved by ``w`` wherever ``n_w > 0``) and ones
    orthogonal to the SVD's null space of a mode (unique there), decided as the SVD rule decides
    (``max |ĉᵀ N(A)| <= AMBIGUITY_ATOL``, ``ĉ`` the unit objective), in any positive scale."""
    system, banks, rows, piv, modes = _batch(name)
    rng = np.random.default_rng(7)
    n = banks.A.shape[1]
    for j in range(len(modes)):
        ref = _svd(banks, rows[j], system.n_q)
        if not ref.consistent or ref.n_w == 0:
            continue
        g = rng.normal(size=n)
        orth = g - ref.Q @ (ref.Q.T @ g)
        for c, unique in ((g, False), (orth, True)):
            assert (np.abs(c @ ref.Q).max() / np.linalg.norm(c) <= 1e-9) == unique
            sub = (rows[j:j + 1], *(p[j:j + 1] for p in piv))
            for scale in (1.0, 1e-6, 1e6):
                out = batched_responses(banks.A, banks.B, banks.b, *sub, system.n_q, scale * c, kernel="numpy")
                assert bool(out.unique[0]) == unique, (modes[j], scale)


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
def test_rounding_level_admissible_rows_are_certified_rank_zero(kernel):
    """The snake wedged by six contacts (statically indeterminate): many modes' rows (31) are
    rounding noise only, which the SVD response cleans to zero (rank 0). The certificate now
    takes that decision itself (before, hundreds of modes per step went to the SVD): every
    candidate is certified, with the SVD's decisions."""
    system = load_system_file(ROOT / "examples" / "snake" / "snake_chimney.toml").system
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    sel = np.arange(0, len(lay.modes), 7)  # a stride of the 4096 candidates: every letter at every contact
    rows = lay.eq_rows[sel]
    piv = [pivot_choice(banks.A[r]) for r in rows]
    prow = np.array([r[p[0]] for r, p in zip(rows, piv)])
    pcol = np.array([p[1] for p in piv])
    rank = np.array([p[2] for p in piv])
    out = batched_responses(banks.A, banks.B, banks.b, rows, prow, pcol, rank, np.argsort(pcol, axis=1),
                            system.n_q, _first(banks), kernel=kernel)
    noise_only = 0
    for j in range(sel.size):
        ref = _svd(banks, rows[j], system.n_q)
        m = rows.shape[1]
        if ref.rank < m and ref.tau_C.shape[0] == 0:
            noise_only += 1
        assert (bool(out.consistent[j]), int(out.n_w[j])) == (ref.consistent, ref.n_w), lay.modes[sel[j]]
        if ref.consistent:
            assert int(out.cvalid[j].sum()) == ref.tau_C.shape[0], lay.modes[sel[j]]
            assert bool(out.unique[j]) == (not (ref.n_w and np.abs(ref.Q[0]).max() > 1e-9)), lay.modes[sel[j]]
    assert out.certified.all()
    assert noise_only >= 50  # the case is exercised: rows (31) present, none of them kept by the SVD


def _pivots_by_scipy_qr(A):
    """``choose_pivots`` as it was written before (SciPy's ``qr`` wrapper, ``setdiff1d``): the oracle."""
    from scipy.linalg import qr

    from contactmodes._linalg import numerical_rank

    m, n = A.shape
    r = numerical_rank(np.linalg.svd(A, compute_uv=False), A.shape)
    _, _, cp = qr(A, mode="economic", pivoting=True)
    cols = np.concatenate([np.sort(cp[:r]), np.sort(cp[r:])])
    rows = np.arange(m)
    if r:
        _, _, rp = qr(A[:, cols[:r]].T, mode="economic", pivoting=True)
        rows = np.concatenate([np.sort(rp[:r]), np.setdiff1d(np.arange(m), rp[:r])])
    return rows.astype(int), cols.astype(int), int(r)


def test_choose_pivots_is_scipys_pivoted_qr():
    """``choose_pivots`` calls LAPACK's ``geqp3`` directly (``_qr_pivots``): the same rows, columns
    and rank as through ``scipy.linalg.qr`` — on random matrices of every rank, with zero,
    repeated and integer columns (ties in the pivoting), with rounding-level noise, and on the
    snake's equation banks (every candidate of its layout at rest, 4096 modes); and the batched
    ``pivot_choices`` gives the same integers on the same matrices stacked by shape."""
    rng = np.random.default_rng(7)
    mats = []
    for _ in range(1500):
        m, n = int(rng.integers(1, 25)), int(rng.integers(1, 25))
        k = int(rng.integers(0, min(m, n) + 1))
        A = rng.standard_normal((m, k)) @ rng.standard_normal((k, n))
        if rng.random() < 0.3:
            A[:, rng.integers(0, n)] = 0.0
        if rng.random() < 0.3:
            A = np.round(A)
        if rng.random() < 0.3 and n > 1:
            A[:, 1] = A[:, 0]
        if rng.random() < 0.2:
            A = A + 1e-14 * rng.standard_normal(A.shape)
        mats.append(A)
    system = load_system_file(ROOT / "examples" / "snake" / "snake_chimney.toml").system
    terms = terms_of(system)
    st = Structure.of(system)
    lay = st.layout(classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts))
    banks = st.banks(terms)
    mats += [banks.A[r] for r in lay.eq_rows]
    assert len(mats) > 1500 + 1000
    with pytest.raises(ValueError):
        _pivot_response.choose_pivots(np.array([[1.0, np.nan]]))
    for A in mats:
        got, want = _pivot_response.choose_pivots(A), _pivots_by_scipy_qr(A)
        assert got[2] == want[2]
        for g, w in zip(got[:2], want[:2]):
            assert g.dtype == w.dtype and np.array_equal(g, w)
    # the batched twins (``pivot_choices``, NumPy and compiled): the same integers, stacked by shape
    stacks: dict = {}
    for A in mats:
        stacks.setdefault(A.shape, []).append(A)
    assert max(len(v) for v in stacks.values()) > 1000  # the snake's banks: one big stack
    kernels = ["numpy"] + (["compiled"] if response_kernels.AVAILABLE else [])
    for kernel in kernels:
        for group in stacks.values():
            for A, got in zip(group, pivot_choices(np.stack(group), kernel=kernel)):
                want = _pivots_by_scipy_qr(A)
                assert got[2] == want[2]
                for g, w in zip(got[:2], want[:2]):
                    assert g.dtype == w.dtype and np.array_equal(g, w)
    if response_kernels.AVAILABLE:  # the compiled kernel proves most ranks itself (the rest: the SVD)
        assert response_kernels.lapack() is not None  # SciPy exports dgeqp3: the compiled path is the one tested
        proved = 0
        for group in stacks.values():
            G = np.stack(group)
            B, m, n = G.shape
            ok = np.zeros(B, dtype=bool)
            response_kernels.pivots_kernel(response_kernels.lapack()[0], G, 1e-10 * max(m, n), 1e2,
                                            np.zeros((B, m), np.int64), np.zeros((B, n), np.int64),
                                            np.zeros(B, np.int64), ok)
            proved += int(ok.sum())
        assert proved >= 0.9 * len(mats)
    with pytest.raises(ValueError):
        pivot_choices(np.array([[[1.0, np.inf]]]))
    with pytest.raises(ValueError):
        pivot_choices(np.zeros((2, 2)))
    assert pivot_choices(np.zeros((0, 3, 3))) == []


def test_pivot_choices_without_scipys_dgeqp3(monkeypatch):
    """When SciPy's ``cython_lapack`` does not give ``dgeqp3`` (``response_kernels.lapack()`` is
    ``None``), ``pivot_choices`` takes the NumPy path: the same integers as ``pivot_choice``."""
    monkeypatch.setattr(response_kernels, "_LAPACK", [None])

    def not_called(*args):
        raise AssertionError("pivots_kernel called without dgeqp3")

    monkeypatch.setattr(response_kernels, "pivots_kernel", not_called)
    rng = np.random.default_rng(11)
    As = rng.standard_normal((6, 5, 3)) @ rng.standard_normal((6, 3, 7))  # rank 3 of 5 × 7
    for A, got in zip(As, pivot_choices(As)):
        want = pivot_choice(A)
        assert got[2] == want[2] == 3
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
