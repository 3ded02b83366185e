"""``sweep analyze`` over files that name a robot file: a spatial system (``dimension = 3``) and
a planar ``mechanism.urdf`` file (issue 40, item 4).

The robot file is relative to the system file, so every point must be loaded from the system
file's directory whatever the current directory is. Oracles:

* a point equals the single analysis of the file with that value (``cm.analyze`` of the edited
  table, loaded from the file's own path);
* the pushed box (``examples/spatial/box_pushed.toml``: aligned circumscribed squares) sticks iff
  ``|τ| <= μ m g`` (closed form: ``tests/contactmodes/analysis/test_spatial_robust_friction.py``),
  so its ``FFFF`` bounds are ``±μ m g`` at each point; over its friction box ``[0.4, 0.6]`` the
  "for some μ" bound is ``0.6 m g`` and the "for every μ" bound ``0.4 m g``.
"""

from __future__ import annotations

import copy
import os

import pytest

from _support.paths import ROOT
import contactmodes as cm
from contactmodes.sweeps import run_sweep
from contactmodes.system_file.loader import load_system_file, parse_system

PUSHED = ROOT / "examples" / "spatial" / "box_pushed.toml"
BRACE_URDF = ROOT / "examples" / "two_link_brace_urdf.toml"
MASS = 1.2


def _single(path, edit) -> cm.AnalysisResult:
    doc = copy.deepcopy(load_system_file(path, mu_intervals=True).raw)
    edit(doc)
    return cm.analyze(parse_system(doc, str(path), mu_intervals=True).system)


@pytest.fixture
def elsewhere(tmp_path):
    """Run from a directory that holds no robot file (the file's own directory must be used)."""
    here = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(here)


def test_spatial_sweep_over_mu_and_gravity_matches_single_analyses(elsewhere):
    """Vary the upper end of every contact's μ interval and gravity: the plain bounds are at the
    nominal μ = (0.4 + hi)/2, the "for some μ" ones at ``hi``."""
    pytest.importorskip("pinocchio")
    res = run_sweep("analyze", {"contacts.*.mu.1": [0.6, 0.8], "gravity": [9.81, 3.71]}, system=PUSHED,
                    modes=["FFFF"], workers=0)
    assert [p["ok"] for p in res.points] == [True] * 4, [p["error"] for p in res.points]
    for p in res.points:
        hi, g = p["params"]["contacts.*.mu.1"], p["params"]["gravity"]
        mu = (0.4 + hi) / 2
        (lo, up), = p["modes"]["FFFF"]["bounding_box"]
        assert (lo, up) == pytest.approx((-mu * MASS * g, mu * MASS * g), rel=1e-9)
        assert p["modes"]["FFFF"]["exists_box"][0] == pytest.approx([-hi * MASS * g, hi * MASS * g], rel=1e-9)

        def edit(doc, hi=hi, g=g):
            doc["gravity"] = g
            for c in doc["contacts"]:
                c["mu"][1] = hi

        single = _single(PUSHED, edit)
        assert p["feasible_modes"] == single.feasible_modes()
        low, high = single.modes["FFFF"].T.bounding_box()
        assert (lo, up) == pytest.approx((low[0], high[0]), rel=1e-12)


def test_spatial_sweep_with_a_friction_box(elsewhere):
    pytest.importorskip("pinocchio")
    res = run_sweep("analyze", {"gravity": [9.81, 1.62]}, system=PUSHED, modes=["FFFF"], workers=0)
    for p in res.points:
        g = p["params"]["gravity"]
        entry = p["modes"]["FFFF"]
        assert entry["exists_box"][0] == pytest.approx([-0.6 * MASS * g, 0.6 * MASS * g], rel=1e-9)
        assert entry["forall_box"][0] == pytest.approx([-0.4 * MASS * g, 0.4 * MASS * g], rel=1e-9)


def test_planar_urdf_sweep_loads_the_robot_next_to_the_file(elsewhere):
    pytest.importorskip("yourdfpy")
    res = run_sweep("analyze", {"contacts.*.mu": [0.2, 0.4]}, system=BRACE_URDF, modes=["FFF"], workers=0)
    assert [p["ok"] for p in res.points] == [True, True], [p["error"] for p in res.points]
    for p in res.points:
        mu = p["params"]["contacts.*.mu"]

        def edit(doc, mu=mu):
            for c in doc["contacts"]:
                c["mu"] = mu

        single = _single(BRACE_URDF, edit)
        low, high = single.modes["FFF"].T.bounding_box()
        (lo, hi), = p["modes"]["FFF"]["bounding_box"]      # null: an unbounded end
        assert lo is None and low[0] == -float("inf")
        assert hi == pytest.approx(high[0], rel=1e-12)
