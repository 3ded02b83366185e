"""The three projection methods agree as sets on every example's mode domains ``D_c``.

The oracle for each ``T_c`` is independent of all three methods: the support function of the
projection in a direction ``u`` equals ``max u·τ`` over ``D_c`` itself (one LP in ``(τ, w)``),
compared with the support of each method's result.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from contactmodes.analysis import analyze
from contactmodes.io import load_system

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))
METHODS = ("fourier_motzkin", "block_elimination", "vertex")


def _support(P, direction):
    """max direction·x over P by HiGHS directly (inf if unbounded)."""
    res = linprog(-direction, A_ub=P.A if P.n_ineq else None, b_ub=P.b if P.n_ineq else None,
                  A_eq=P.C if P.n_eq else None, b_eq=P.d if P.n_eq else None,
                  bounds=(None, None), method="highs", options={"presolve": False})
    if res.status == 3:
        return np.inf
    assert res.status == 0, res.message
    return -res.fun


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_projection_methods_agree_on_example_domains(path):
    system = load_system(path).system
    result = analyze(system, compute_overlaps=False)
    n_tau = system.n_tau
    rng = np.random.default_rng(7)
    directions = np.vstack([np.eye(n_tau), -np.eye(n_tau), rng.normal(size=(4, n_tau))])
    checked = 0
    for mode, item in result.modes.items():
        if not item.feasible or item.response.n_w == 0:
            continue
        D = item.D
        projections = {m: D.project(list(range(n_tau)), method=m) for m in METHODS}
        for m in METHODS[1:]:
            assert projections[m].equals(projections[METHODS[0]]), f"{path.stem} {mode}: {m} differs"
        for u in directions:
            full = np.concatenate([u, np.zeros(D.dim - n_tau)])
            expected = _support(D, full)
            for m, T in projections.items():
                got = _support(T, u)
                if np.isinf(expected):
                    assert np.isinf(got), f"{path.stem} {mode} {m}"
                else:
                    assert got == pytest.approx(expected, rel=1e-6, abs=1e-7), f"{path.stem} {mode} {m}"
        checked += 1
        if checked >= 8:
            break
