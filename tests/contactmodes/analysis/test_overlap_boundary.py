"""Boundary-only overlapping pairs (``AnalysisSession.boundary_only_pairs``,
``OverlapPairs.boundary_only``) and the table's count of them (issue 39: "120 overlapping pairs"
for a gripper whose pairs all meet only on common facets).

Oracles: for two full-dimensional sets, ``T_a ∩ T_b`` is full-dimensional iff the max-slack LP
over both sets' normalized rows has a positive optimum (SciPy's HiGHS on the user-unit rows, not
the toolkit's emptiness rule); for every pair, the ``boundary_only`` flags of the ambiguity
sources that ``--unambiguous`` computes from both modes (``contactmodes.analysis.ambiguity``:
another code path to the same definition, on a system without task constraints).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from _support.paths import DATA, EXAMPLES

from contactmodes.analysis.analyze import analyze
from contactmodes.cli import main
from contactmodes.system_file.loader import load_system_file

GRIPPER = DATA / "cases" / "gripper_squeeze.toml"


def interior_slack(sets) -> float:
    """``max s`` with every normalized row of every set holding with slack ``s`` (``s <= 1``)
    over τ; for full-dimensional sets without equalities (SciPy HiGHS)."""
    A = np.vstack([T.A / np.linalg.norm(T.A, axis=1)[:, None] for T in sets])
    b = np.concatenate([T.b / np.linalg.norm(T.A, axis=1) for T in sets])
    n = A.shape[1]
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.hstack([A, np.ones((len(A), 1))]), b_ub=b,
                  bounds=[(None, None)] * n + [(None, 1.0)], method="highs")
    assert res.status == 0, res.message
    return -res.fun


def test_every_pair_of_the_gripper_meets_only_on_a_boundary():
    """All 16 feasible modes of the gripper are 5-dimensional cones of torques; each pair shares
    at most a facet (a fingertip's friction edge, a normal force at zero), so no two have a common
    interior point: the oracle's max-slack is zero for all 120 pairs."""
    r = analyze(str(GRIPPER))
    assert len(r.overlaps) == 120
    assert all(r.modes[m].T.affine_dimension() == 5 and r.modes[m].T.n_eq == 0 for m in r.feasible_modes())
    slacks = [interior_slack([r.modes[a].T, r.modes[b].T]) for a, b in r.overlaps]
    scale = max(1.0, max(float(np.abs(r.modes[m].T.b).max()) for m in r.feasible_modes()))
    assert max(slacks) <= 1e-7 * scale
    assert r.overlaps.boundary_only() == set(r.overlaps)


@pytest.mark.parametrize("path", [EXAMPLES / "rhex_flip_start.toml", EXAMPLES / "two_link_brace.toml",
                                  EXAMPLES / "table_two_legs.toml"])
def test_boundary_only_agrees_with_the_oracles(path):
    """Full-dimensional pairs against the max-slack oracle; every pair against the ambiguity
    sources' flags of both modes (task constraints dropped on both sides, as the sources are)."""
    r = analyze(str(path), task=False)
    boundary = r.overlaps.boundary_only()
    assert boundary <= set(r.overlaps)
    n = r.system.n_tau
    full = [m for m in r.feasible_modes() if r.modes[m].T.affine_dimension() == n and r.modes[m].T.n_eq == 0]
    sources = {m: {s.source: s.boundary_only for s in u.sources if s.kind == "mode"}
               for m, u in r.unambiguous_for(r.feasible_modes()).items()}
    checked = 0
    for a, b in r.overlaps:
        assert ((a, b) in boundary) == (sources[a][b] and sources[b][a]), (a, b)
        if a in full and b in full:
            scale = max(1.0, float(np.abs(r.modes[a].T.b).max()), float(np.abs(r.modes[b].T.b).max()))
            slack = interior_slack([r.modes[a].T, r.modes[b].T])
            assert ((a, b) in boundary) == (slack <= 1e-7 * scale), (a, b, slack)
            checked += 1
    assert checked or path.stem == "two_link_brace"
    # the property is a count the table reports; RHex has both kinds
    if path.stem == "rhex_flip_start":
        assert 0 < len(boundary) < len(r.overlaps)


def test_the_table_counts_the_boundary_only_pairs(capsys):
    assert main(["analyze", str(GRIPPER)]) == 0
    out = capsys.readouterr().out
    assert "120 pairs among 16 modes;" in out
    assert "  120 of them boundary-only (T_c ∩ T_c' of lower dimension than both sets:" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_the_list_marks_the_boundary_only_pairs(capsys):
    """The two-link brace: ``FFF ∩ LLR`` is the point τ1 = −0.193 between two intervals (the
    README's reading), ``SSS ∩ SSR`` the point 0 that is all of ``T_SSR``: only the first is
    boundary-only."""
    assert main(["analyze", str(EXAMPLES / "two_link_brace.toml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  FFF ∩ LLR (boundary only)" in lines
    assert "  SSS ∩ SSR" in lines
    loaded = load_system_file(EXAMPLES / "two_link_brace.toml")
    r = analyze(loaded)
    assert r.modes["SSR"].T.affine_dimension() == 0 and r.modes["FFF"].T.affine_dimension() == 1
