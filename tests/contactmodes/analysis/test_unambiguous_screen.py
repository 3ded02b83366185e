"""``unambiguous(..., screen=True)`` (``PointFilter.interior_overlaps``, issue 40 item 6(b)) gives
the same ``T*_c`` as the pairwise path (``screen=False``: every mode meeting ``T_c`` intersected
with it), compared as sets by ``polytopes.difference`` both ways, and the same full-dimensional
sources; it only leaves out boundary-only sources. Cases: Solo-12 on two and three feet (contact
subsets of ``examples/spatial/solo12_standing.toml``) and the planar examples (the box on its
slope has no actuators: no ``T*_c``). On four feet (``10^4`` modes, the pairwise path takes
minutes) the default path screens, and sampled modes are checked by ``polytopes``' own Chebyshev
LP.
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

import contactmodes as cm
from _support.robots import solo_on_feet
from contactmodes.analysis.ambiguity import unambiguous
from contactmodes.analysis.session import AnalysisSession
from contactmodes.tolerances import OVERLAP_APERTURE
from polytopes import difference

ROOT = Path(__file__).resolve().parents[3]


def _thin(pieces, dim: int) -> bool:
    """Every piece empty or of affine dimension below ``dim``."""
    return all(p.is_empty() or p.affine_dimension() < dim for p in pieces)


def same_union(P: list, Q: list, dim: int) -> bool:
    """``∪P`` and ``∪Q`` equal up to sets of dimension below ``dim`` (differences both ways)."""
    return (all(_thin(difference(p, Q), dim) for p in P)
            and all(_thin(difference(q, P), dim) for q in Q))


def inscribed_radius(P, Q) -> float:
    """The largest ball (radius at most 1) inside ``P ∩ Q``: HiGHS on the Chebyshev LP (SciPy),
    independent of the batch simplex the screen uses; 0 when the intersection is empty."""
    G = np.vstack([P.A, Q.A])
    h = np.concatenate([P.b, Q.b])
    nrm = np.linalg.norm(G, axis=1)
    G, h = G[nrm > 0] / nrm[nrm > 0, None], h[nrm > 0] / nrm[nrm > 0]
    n = G.shape[1]
    res = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[G, np.ones(len(G))], b_ub=h,
                  bounds=[(None, None)] * n + [(0.0, 1.0)], method="highs")
    return 0.0 if res.status == 2 else -float(res.fun)


def interior(result) -> set[str]:
    return {s.source for s in result.sources if s.kind == "mode" and not s.boundary_only}


def compare(system, modes) -> tuple[int, int]:
    """Assert screened == pairwise for each mode; the numbers of sources (screened, pairwise)."""
    n_on = n_off = 0
    for mode in modes:
        on = unambiguous(AnalysisSession(system), mode, screen=True)
        off = unambiguous(AnalysisSession(system), mode, screen=False)
        assert on.feasible == off.feasible, mode
        if not off.feasible:
            continue
        dim = system.n_tau
        assert same_union(on.scaled_pieces, off.scaled_pieces, dim), mode
        assert interior(on) <= interior(off), mode
        ses = AnalysisSession(system)
        T_c = ses.mode(mode).T_scaled(True)
        for other in interior(off) - interior(on):
            # the pairwise path called it full-dimensional by its rank tolerance: a sliver, whose
            # largest inscribed ball (polytopes' Chebyshev LP, not the batch) is below the screen's
            assert inscribed_radius(T_c, ses.mode(other).T_scaled(False)) <= OVERLAP_APERTURE, (mode, other)
        assert {s.source for s in on.sources} <= {s.source for s in off.sources}, mode
        n_on += len(on.sources)
        n_off += len(off.sources)
    return n_on, n_off


def solo_with_feet(feet: int, tmp_path):
    """Solo-12 standing with only its first ``feet`` feet as contacts (the rest not modelled)."""
    return cm.load_system(solo_on_feet(tmp_path, feet))


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "examples" / "*.toml"))))
def test_planar_examples_screen_as_pairwise(path):
    system = cm.load_system(path)
    if not system.n_tau:
        pytest.skip("no actuators")
    compare(system, AnalysisSession(system).enumeration.modes[:6])


def test_solo_on_two_feet_screens_as_pairwise(tmp_path):
    pytest.importorskip("pinocchio")
    system = solo_with_feet(2, tmp_path)
    n_on, n_off = compare(system, ["FF", "FS", "aF", "AB", "SS"])
    assert n_on < n_off  # the screen left boundary-only sources out: it did something


@pytest.mark.slow
def test_solo_on_three_feet_screens_as_pairwise(tmp_path):
    pytest.importorskip("pinocchio")
    system = solo_with_feet(3, tmp_path)
    n_on, n_off = compare(system, ["FFF"])
    assert n_on < n_off


def test_solo_on_four_feet_screens_by_default_and_removes_nothing():
    pytest.importorskip("pinocchio")
    system = cm.load_system(ROOT / "examples" / "spatial" / "solo12_standing.toml")
    ses = AnalysisSession(system)
    res = unambiguous(ses, "FFFF")
    assert "screen" in res.timing  # the default path screened the 10^4 modes
    T_c = ses.mode("FFFF").T_scaled(True)
    assert same_union(res.scaled_pieces, [T_c], system.n_tau)  # nothing removed: T*_FFFF = T_FFFF
    assert [s.source for s in res.sources] == []
    # an independent look at a sample of the modes left out: T_c ∩ T_c' holds no ball
    rng = np.random.default_rng(0)
    modes = list(ses.enumeration.modes)
    for k in rng.choice(len(modes), 100, replace=False):
        if modes[k] == "FFFF":
            continue
        assert inscribed_radius(T_c, ses.mode(modes[k]).T_scaled(False)) <= OVERLAP_APERTURE, modes[k]
