"""End-to-end check: T_c membership against a direct LP in (q̈, f) for every one of the 4^k modes.

The oracle (``tests/_support/oracle.py``) is written from Tables I–III and footnote 5 of the
flipping paper, independently of ``contactmodes.modes.enumeration`` / ``response`` / ``domains``: for a
torque τ and a mode c it solves

    max σ  s.t.  M q̈ − Jᵀ f = S τ − h,  the mode's equalities (Tables I–II, eq-constraints),
                 every inequality row (normalized) >= σ,  σ <= 1

and calls τ a member when σ* > δ, a non-member when σ* < −δ or the LP is infeasible, and skips τ
otherwise. Kinematic pruning is decided by its own Table III rule and by a homogenized strict LP
(exists q̈ with the equalities and the strict inequalities of S/L/R ⇔ exists (q̈, t) with
E q̈ + c_E t = 0, G q̈ + c_G t >= 1, t >= 1). Pruned modes have an empty T_c.
"""

from __future__ import annotations

import glob
import os
import zlib

import numpy as np
import pytest

from _support.oracle import all_modes, kinematically_ok, oracle_slack, t_margin
from _support.paths import EXAMPLES as EXAMPLES_DIR
from _support.systems import random_system
from polytopes import PolytopeError
from contactmodes.analysis.analyze import analyze
from contactmodes.model.system import ContactSystem

EXAMPLES = sorted(glob.glob(os.path.join(EXAMPLES_DIR, "*.toml")))


# -------------------------------------------------------------------------- comparison --------
def check(s: ContactSystem, result, modes, taus, stats):
    task = result.task
    surviving = set(result.enumeration.modes)
    for mode in modes:
        kin = kinematically_ok(s, mode)
        assert kin == (mode in surviving), f"{s.name} mode {mode}: oracle pruning {kin}"
        if not kin:
            stats["pruned"] += 1
            continue
        a = result.modes[mode]
        for tau in taus:
            scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
            delta = 1e-6 * scale
            if a.T is not None:
                margin, eq_res = t_margin(a.T, tau)
                if abs(margin) < delta or 1e-9 * scale < eq_res < 1e-5 * scale:
                    stats["skipped"] += 1
                    continue
            sigma = oracle_slack(s, mode, tau, task)
            if sigma is not None and (np.isnan(sigma) or abs(sigma) <= delta):
                stats["skipped"] += 1
                continue
            expected = sigma is not None and sigma > 0
            got = a.T is not None and bool(a.T.contains(tau))
            assert got == expected, (
                f"{s.name or 'random'} mode {mode} tau={tau}: T_c says {got}, oracle σ*={sigma}"
            )
            stats["checked"] += 1
            stats["members"] += int(expected)


def clipped_bbox(T, clip=50.0):
    """T's bounding box clipped to ±clip; the whole clip box if the LPs fail.

    (HiGHS with presolve has been seen to report an unbounded support LP as infeasible; sampling
    only needs a box, so this does not weaken the membership check itself.)
    """
    try:
        lo, hi = T.bounding_box()
    except PolytopeError:
        lo, hi = np.full(T.dim, -np.inf), np.full(T.dim, np.inf)
    return np.clip(lo, -clip, clip), np.clip(hi, -clip, clip)


def interior_samples(result, rng, n_per_mode=1, clip=50.0):
    """Per feasible mode: its Chebyshev center and a point of its (clipped) bounding box."""
    out = {}
    for m, a in result.modes.items():
        if a.T is None:
            continue
        pts = [np.clip(a.T.chebyshev_center().center, -clip, clip)]
        lo, hi = clipped_bbox(a.T, clip)
        pad = 0.1 * (hi - lo) + 1e-3
        for _ in range(n_per_mode):
            pts.append(rng.uniform(lo - pad, hi + pad))
        out[m] = pts
    return out


@pytest.mark.parametrize("seed", range(10))
def test_random_systems_against_oracle(seed):
    rng = np.random.default_rng(1000 + seed)
    k = 1 + seed % 2
    n_q = int(rng.integers(2, 4))
    n_tau = int(rng.integers(1, n_q + 1))
    s = random_system(rng, n_q, n_tau, k)
    res = analyze(s, compute_overlaps=False)
    stats = dict(checked=0, skipped=0, pruned=0, members=0)
    taus = [rng.uniform(-15.0, 15.0, size=n_tau) for _ in range(12)]
    check(s, res, all_modes(k), taus, stats)
    for m, pts in interior_samples(res, rng).items():
        check(s, res, [m], pts, stats)
    assert stats["checked"] >= 0.8 * (stats["checked"] + stats["skipped"])
    assert stats["checked"] > 0


def test_random_systems_exercise_ambiguity():
    """The random family above includes modes with n_w > 0 and with several feasible modes."""
    rng = np.random.default_rng(7)
    s = random_system(rng, 2, 2, 2)
    res = analyze(s)
    assert any(a.response.n_w > 0 for a in res.modes.values())


def _load_system():
    try:
        from contactmodes.system_file.loader import load_system_file
    except ImportError:  # pragma: no cover - module written in parallel
        pytest.skip("contactmodes.system_file.loader not importable yet")
    return load_system_file


@pytest.mark.parametrize("task", [True, False], ids=["task", "notask"])
@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_examples_against_oracle(path, task):
    load_system_file = _load_system()
    s = load_system_file(path).system
    if not task and not s.constraints_of(("task",)):
        pytest.skip("no task constraints: same as the task=True case")
    res = analyze(s, task=task, compute_overlaps=False)
    rng = np.random.default_rng(zlib.crc32(os.path.basename(path).encode()))  # the same torques every run
    feasible = [a.T for a in res.modes.values() if a.T is not None]
    stats = dict(checked=0, skipped=0, pruned=0, members=0)
    if feasible:
        boxes = [clipped_bbox(T) for T in feasible]
        lo = np.min([bx[0] for bx in boxes], axis=0)
        hi = np.max([bx[1] for bx in boxes], axis=0)
        pad = 0.2 * (hi - lo) + 1.0
        taus = [rng.uniform(lo - pad, hi + pad) for _ in range(6)]
    else:
        taus = [rng.uniform(-50, 50, size=s.n_tau) for _ in range(6)]
    check(s, res, all_modes(s.k), taus, stats)
    for m, pts in interior_samples(res, rng).items():
        check(s, res, [m], pts, stats)
    assert stats["checked"] > 0
