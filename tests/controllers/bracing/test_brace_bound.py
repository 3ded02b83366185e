"""The bracing controller under large torque bounds (issue 22, item 2).

``contactmodes brace examples/five_link_climb.toml --torque-bound 1e10`` used to answer "no
torque" (exit 1) although one exists: the Chebyshev LP mixed box rows of size 1e10 with a piece of
size 1 and was decided with absolute solver tolerances. Expected values are derived here without
the controller:

* the five-link climber's robustly unambiguous set is the half-line ``τ <= hi`` (its one
  ambiguity source touches it at the boundary only), ``hi`` the smallest upper end of the nominal
  ``T_FFF`` over the 16 vertices of the file's disturbance box, each re-solved with the disturbance
  moved into ``h`` (as in ``test_robust.py``). Inside ``|τ| <= B`` it is ``[−B, hi]``: centre
  ``(hi − B)/2``, margin ``(hi + B)/2``; least effort with margin ``m``: ``hi − m`` for every
  ``B`` with room for it;
* hand-made pieces whose answer does not depend on the bound once the bound is beyond their
  extent: an interval and a thin strip that is unbounded along its length.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.analysis.session import mode_domain
from contactmodes.modes.contact_model import PLANAR_POINT
from contactmodes.system_file.loader import load_system_file
from contactmodes.analysis.robust import RobustResult
from controllers.bracing import BracingController
from polytopes import Polytope

CLIMB = ROOT / "examples" / "five_link_climb.toml"
LARGE = [1e4, 1e8, 1e10, 1e15, 1e60]


@pytest.fixture(scope="module")
def climber():
    return load_system_file(CLIMB).system


@pytest.fixture(scope="module")
def hi(climber):
    """Upper end of the climber's robust set, vertex by vertex of the disturbance box."""
    lo_d, hi_d = climber.disturbance.set.bounding_box()
    ends = []
    for corner in itertools.product(*zip(lo_d, hi_d)):
        shifted = replace(climber, h=climber.h - climber.disturbance.E @ np.array(corner), disturbance=None)
        T = mode_domain(shifted, "FFF").T
        lo, up = T.bounding_box()
        assert lo[0] == -np.inf and np.isfinite(up[0])
        ends.append(float(up[0]))
    assert len(ends) == 16
    return min(ends)


def _brace(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "contactmodes", "brace", str(CLIMB), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("bound", [1e10, 1e15])
def test_cli_finds_the_torque_for_a_large_bound(bound, hi):
    proc = _brace("--torque-bound", f"{bound:g}", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["status"] == "optimal" and doc["torque_bound"] == [bound]
    assert doc["torque"][0] == pytest.approx((hi - bound) / 2, rel=1e-12)
    assert doc["margin"] == pytest.approx((hi + bound) / 2, rel=1e-12)


@pytest.mark.parametrize("bound", [1.0] + LARGE)
def test_max_margin_is_the_centre_of_the_boxed_half_line(climber, hi, bound):
    res = BracingController("max_margin", torque_bound=bound).solve(climber, "FFF")
    assert res.success and res.status == "optimal"
    # every bound: the centre of [−B, hi] to a few ulps of the bound and of hi
    tol = 1e-12 * bound + 1e-9
    assert abs(res.torque[0] - (hi - bound) / 2) <= tol
    assert abs(res.margin - (hi + bound) / 2) <= tol


def test_least_effort_does_not_depend_on_an_inactive_bound(climber, hi):
    torques = {}
    for bound in LARGE:
        res = BracingController("least_effort", margin=0.3, torque_bound=bound).solve(climber, "FFF")
        assert res.success, (bound, res.message)
        assert res.torque[0] == pytest.approx(hi - 0.3, abs=1e-6)
        assert res.margin == pytest.approx(0.3, abs=1e-6)
        torques[bound] = res.torque[0]
    assert max(torques.values()) - min(torques.values()) <= 1e-6


def _solve_pieces(pieces, bound, **kwargs):
    """The controller on given pieces of ``T'*_c`` (``solve`` reads only ``n_tau`` of the system
    when the robust sets are passed)."""
    n = pieces[0].dim
    robust = RobustResult("F", Polytope.universe(n), list(pieces), [], np.zeros((0, 1)))
    return BracingController(torque_bound=bound, **kwargs).solve(SimpleNamespace(n_tau=n, contact_model=PLANAR_POINT), "F", robust=robust)


@pytest.mark.parametrize("bound", [1.0] + LARGE)
def test_a_bounded_piece_gives_the_same_answer_for_every_bound_beyond_it(bound):
    piece = Polytope(np.array([[1.0], [-1.0]]), np.array([0.6, -0.5]))  # 0.5 <= τ <= 0.6
    res = _solve_pieces([piece], bound)
    assert res.success
    assert res.torque[0] == pytest.approx(0.55, abs=1e-12) and res.margin == pytest.approx(0.05, abs=1e-12)
    effort = _solve_pieces([piece], bound, objective="least_effort", margin=0.02)
    assert effort.success and effort.torque[0] == pytest.approx(0.52, abs=1e-7)


@pytest.mark.parametrize("bound", [1.0] + LARGE)
def test_a_thin_unbounded_strip_keeps_its_width_as_margin(bound):
    # 0 <= τ2 <= 0.01, τ1 <= τ2: 0.01 wide, unbounded towards τ1 → −∞. Inside |τ| <= B (B >= 1)
    # the largest disc has radius 0.005 (the width), centred on τ2 = 0.005, for every B.
    strip = Polytope(np.array([[0.0, 1.0], [0.0, -1.0], [1.0, -1.0]]), np.array([0.01, 0.0, 0.0]))
    res = _solve_pieces([strip], bound)
    assert res.success
    assert res.margin == pytest.approx(0.005, abs=1e-12)
    assert res.torque[1] == pytest.approx(0.005, abs=1e-12)
    assert -bound + 0.005 - 1e-12 <= res.torque[0] <= 0.005 - 0.005 * np.sqrt(2) + 1e-12  # clear of τ1 = τ2
    # the margin reported is the distance of the torque to the strip's and the box's sides
    t = res.torque
    assert res.margin == pytest.approx(min(0.01 - t[1], t[1], (t[1] - t[0]) / np.sqrt(2),
                                           bound - abs(t[0]), bound - abs(t[1])), abs=1e-12)


def test_a_bound_beyond_the_supported_range_is_one_line_exit_2(tmp_path):
    out = tmp_path / "b.json"
    proc = _brace("--torque-bound", "1e61", "--output", str(out))
    assert proc.returncode == 2 and not out.exists() and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith("contactmodes: error: --torque-bound:") and "1e+60" in lines[0]
    with pytest.raises(ValueError, match="torque_bound.*1e\\+60"):
        BracingController(torque_bound=1e61).solve(load_system_file(CLIMB).system, "FFF")


def test_least_effort_prints_nothing_when_the_least_norm_torque_is_inside(capfd):
    # −1 <= τ <= 1 with margin 0.1: τ = 0 is the answer and no constraint is active (the QP
    # solver used before printed "Polishing not needed …" on stdout, into `brace --json`)
    piece = Polytope(np.array([[1.0], [-1.0]]), np.array([1.0, 1.0]))
    res = _solve_pieces([piece], 10.0, objective="least_effort", margin=0.1)
    assert res.success and abs(res.torque[0]) <= 1e-7 and res.margin == pytest.approx(1.0, abs=1e-7)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
