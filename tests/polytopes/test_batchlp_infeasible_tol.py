"""``polytopes.batchlp.simplex_batch``'s ``infeasible_tol``: a Farkas certificate decides an
infeasibility only when it proves the caller's rows, each relaxed by the tolerance times the
certificate's data scale, still infeasible; a smaller infeasibility is ``UNDECIDED``.

Checked against a hand calculation (two opposite rows of norm ``ν`` inconsistent by ``δ``: relaxed
by ``ε`` each they meet exactly when ``ε >= ν δ / 2``), against HiGHS's least uniform relaxation
``ε*`` of random LPs made infeasible by rounding-sized amounts (no LP with ``ε* <=`` the tolerance
is decided infeasible), and between the NumPy and the compiled kernel. Without the tolerance every
answer is the one of the plain call.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from polytopes import batchlp, batchlp_kernel, lp

KERNELS = ["numpy"] + (["compiled"] if batchlp_kernel.AVAILABLE else [])
TOL = 1e-8


def _two_rows(nu: float, delta: float):
    """``ν x <= 0`` and ``−ν x <= −ν δ`` with ``|x| <= 10`` (real bounds), one LP, minimize ``x``."""
    c = np.array([[1.0]])
    G = np.array([[[nu], [-nu]]])
    h = np.array([[0.0, -nu * delta]])
    return c, G, h, np.array([[-10.0]]), np.array([[10.0]])


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("nu", [1e-3, 1.0, 10.0])
def test_two_inconsistent_rows(kernel, nu):
    # each row relaxed by eps: x <= eps / nu and x >= delta - eps / nu, infeasible iff eps < nu delta / 2;
    # the data scale max(1, mean |h|) is 1 for these deltas, so the rule decides iff nu delta / 2 > TOL
    # (a larger nu would put delta below the simplex's own precision on the normalized rows, 1e-10)
    for ratio, decided in ((3.0, True), (1 / 3, False)):
        delta = 2 * ratio * TOL / nu
        c, G, h, lo, hi = _two_rows(nu, delta)
        plain = batchlp.simplex_batch(c, G, h, lo, hi, kernel=kernel)
        assert plain.status[0] == lp.INFEASIBLE
        res = batchlp.simplex_batch(c, G, h, lo, hi, kernel=kernel, infeasible_tol=TOL)
        assert res.status[0] == (lp.INFEASIBLE if decided else batchlp.UNDECIDED), (nu, ratio)


def _barely_infeasible(seed: int, B: int = 40, n: int = 4):
    """LPs with pairs of opposite rows (equalities as two rows, scaled by ``10^±2``) around a
    point, some pairs inconsistent by ``10^U(−13, −5)`` times their norm, and a few other rows."""
    rng = np.random.default_rng(seed)
    pairs, extra = 3, 3
    x0 = rng.normal(size=(B, n))
    A = rng.normal(size=(B, pairs, n)) * 10.0 ** rng.uniform(-2, 2, size=(B, pairs, 1))
    nrm = np.linalg.norm(A, axis=2)
    gap = np.where(rng.random((B, pairs)) < 0.5, 10.0 ** rng.uniform(-13, -5, size=(B, pairs)), 0.0) * nrm
    e = np.einsum("bpn,bn->bp", A, x0)
    R = rng.normal(size=(B, extra, n))
    r = np.einsum("bpn,bn->bp", R, x0) + rng.uniform(0.0, 1.0, size=(B, extra))
    G = np.concatenate([A, -A, R], axis=1)
    h = np.concatenate([e, -e - gap, r], axis=1)  # A x <= e and A x >= e + gap
    c = rng.normal(size=(B, n))
    lo, hi = np.full((B, n), -50.0), np.full((B, n), 50.0)
    return c, G, h, lo, hi


def _least_relaxation(G, h, lo, hi) -> float:
    """HiGHS: the least ``ε`` with ``G x <= h + ε`` (every row, the caller's units) in the box."""
    m, n = G.shape
    A = np.hstack([G, -np.ones((m, 1))])
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=A, b_ub=h, bounds=list(zip(lo, hi)) + [(None, None)],
                  method="highs", options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(res.fun)


@pytest.mark.parametrize("seed", range(4))
def test_no_infeasibility_within_the_tolerance_is_decided(seed):
    c, G, h, lo, hi = _barely_infeasible(seed)
    eps = np.array([_least_relaxation(G[b], h[b], lo[b], hi[b]) for b in range(G.shape[0])])
    answers, plains = {}, {}
    for kernel in KERNELS:
        plain = batchlp.simplex_batch(c, G, h, lo, hi, kernel=kernel)
        res = batchlp.simplex_batch(c, G, h, lo, hi, kernel=kernel, infeasible_tol=TOL)
        inf = res.status == lp.INFEASIBLE
        # decided infeasible: the rows relaxed by TOL (times a scale >= 1) are still infeasible
        assert np.all(eps[inf] > TOL), eps[inf].min(initial=np.inf)
        # a clear infeasibility (100 times the tolerance, data of scale about 1) is still decided
        clear = (plain.status == lp.INFEASIBLE) & (eps > 100 * TOL * np.maximum(1.0, np.abs(h).max(axis=1)))
        assert np.all(inf[clear])
        # the tolerance touches infeasibility claims only
        same = plain.status != lp.INFEASIBLE
        assert np.array_equal(res.status[same], plain.status[same])
        assert np.array_equal(res.x[same], plain.x[same], equal_nan=True)
        assert np.all(res.status[~same] != lp.OPTIMAL)
        answers[kernel], plains[kernel] = res.status, plain.status
    if len(KERNELS) == 2:  # the kernels take the same decisions where their plain verifications agree
        agree = plains["numpy"] == plains["compiled"]  # (they may not, on barely infeasible LPs: rounding)
        assert np.array_equal(answers["numpy"][agree], answers["compiled"][agree])
    assert np.any(eps > 100 * TOL) and np.any((eps > 0) & (eps <= TOL))  # both kinds occur


@pytest.mark.parametrize("kernel", KERNELS)
def test_trivially_infeasible_zero_row(kernel):
    # a zero row 0 <= h < 0 of the caller: infeasible by |h| whatever the relaxation below it
    c = np.zeros((2, 2))
    G = np.zeros((2, 1, 2))
    h = np.array([[-1.0], [-1e-12]])
    lo, hi = np.full((2, 2), -1.0), np.full((2, 2), 1.0)
    res = batchlp.simplex_batch(c, G, h, lo, hi, kernel=kernel, infeasible_tol=TOL)
    assert res.status.tolist() == [lp.INFEASIBLE, batchlp.UNDECIDED]
