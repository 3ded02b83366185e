"""Two examples from the papers, checked against what the papers state and independent oracles
(``docs/examples.md``, "Two checks against the papers"); and ``--at`` with a distance
(``AnalysisSession.locate(..., tol)``, ``nearest``, ``analyze --at-tol``).

* The bracing paper's six-link brace (set-up 2) and its sample torque
  ``τ = (−0.15, −0.58, −1.20, −0.70, −0.30)`` N·m, printed to two digits: ``T_FFF`` has two
  equalities (the task ``q̈ = 0`` on 8 coordinates leaves a 3-dimensional set in ``R^5``), so the
  rounded torque lies in no ``T_c``; the nearest mode is ``FFF`` at a distance below the
  rounding's bound ``0.005·√5``, and the nearest torque of ``T_FFF`` rounds back to the printed
  one and lies in ``T*_FFF`` (the paper's claim: a torque that immobilizes the brace for sure).
  Distances against ``_support.oracle.distance_to_T``: ``min ‖τ − τ0‖`` over ``(τ, q̈, f)`` with
  the mode's rows written from Tables I–II, solved by cvxpy (no projection, no ``polytopes``).
* The flipping paper's ball bearing (Fig. 6, Sec. III-G.2), ``examples/ball_bearing.toml``: in
  the all-sliding mode ``A`` is rank-deficient, the normal forces are unknown (ambiguity
  variables ``w``), and so are the ball's rotational acceleration and the reaction forces. Against
  the hand solution of the file's header (``I θ̈ = M − r μ Σ f_n``, ``T_RRRR = [r μ m g (1 + μ) /
  (1 + μ²), ∞)``) and the ranges of ``θ̈``, ``ẍ``, ``ÿ`` and a normal force over the mode's
  solutions at a fixed moment (``_support.control_oracle.objective_range``, an LP in ``(q̈, f)``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from _support.control_oracle import objective_range
from _support.oracle import distance_to_T
from _support.paths import EXAMPLES

from contactmodes.analysis.analyze import analyze
from contactmodes.cli import main
from contactmodes.errors import ContactModelError
from contactmodes.schemas import validate
from contactmodes.system_file.loader import load_system_file
from polytopes import union_contains

SIX = EXAMPLES / "six_link_brace.toml"
SAMPLE = np.array([-0.15, -0.58, -1.20, -0.70, -0.30])  # N·m, the paper's two digits
ROUNDING = 0.005 * math.sqrt(5)  # the farthest a torque printed to two digits can be from its value
BALL = EXAMPLES / "ball_bearing.toml"


@pytest.fixture(scope="module")
def six():
    return analyze(str(SIX), unambiguous=["FFF"], at=SAMPLE)


def test_the_rounded_sample_torque_lies_in_no_set(six):
    """It misses ``T_FFF``'s two equality rows by far more than their tolerance (each row's
    distance, up to 1.2e-3 N·m here, is a lower bound on the distance to the set), so membership
    says none, as before."""
    T = six.modes["FFF"].T
    assert T.n_eq == 2 and T.affine_dimension() == 3
    residual = np.abs(T.C @ SAMPLE - T.d) / np.linalg.norm(T.C, axis=1)
    assert 1e-4 < residual.max() <= six.at.nearest.distance
    assert six.at.modes == [] and six.locate(SAMPLE) == []


def test_the_nearest_mode_is_fff_within_the_rounding(six):
    near = six.at.nearest
    assert near is not None and near.mode == "FFF"
    system = six.system
    d_oracle, tau_oracle = distance_to_T(system, "FFF", SAMPLE)
    assert near.distance == pytest.approx(d_oracle, rel=1e-6)
    np.testing.assert_allclose(near.torque, tau_oracle, atol=1e-6)
    assert 0 < near.distance < ROUNDING
    # the nearest torque of T_FFF is the paper's, printed to two digits
    np.testing.assert_array_equal(np.round(near.torque, 2), SAMPLE)
    # ... and in T*_FFF: it immobilizes the brace for sure (the paper's claim)
    assert union_contains(six.unambiguous["FFF"].unambiguous, near.torque)
    # every other feasible mode is farther (oracle distances)
    for mode in six.feasible_modes():
        if mode != "FFF":
            d, _ = distance_to_T(system, mode, SAMPLE)
            assert d > near.distance * (1 + 1e-6), mode
            assert six.session.distance(SAMPLE, mode) == pytest.approx(d, rel=1e-6, abs=1e-9)


def test_tol_accepts_exactly_the_modes_within_it(six):
    d = six.at.nearest.distance
    assert six.locate(SAMPLE, tol=d * 1.001) == ["FFF"]
    assert six.locate(SAMPLE, tol=d * 0.999) == []
    within = six.locate(SAMPLE, tol=ROUNDING)
    expected = [m for m in six.feasible_modes() if distance_to_T(six.system, m, SAMPLE)[0] <= ROUNDING]
    assert within == expected and "FFF" in within
    with pytest.raises(ContactModelError, match="tol"):
        six.locate(SAMPLE, tol=-1.0)
    with pytest.raises(ContactModelError, match="tol"):
        six.locate(SAMPLE, tol=math.nan)


def test_a_torque_inside_a_set_has_no_nearest_and_distance_zero():
    r = analyze(str(EXAMPLES / "two_link_brace.toml"), at=[-0.5])
    assert r.at.modes == ["FFF"] and r.at.nearest is None and r.at.tol == 0.0
    assert r.session.distance([-0.5], "FFF") == 0.0
    near = r.nearest([-0.5])
    assert near.mode == "FFF" and near.distance == 0.0
    # the two-link brace's FFF is tau1 <= -0.1926: from +1 the distance is 1 + 0.1926 in N·m
    lo, hi = r.modes["FFF"].box
    assert r.session.distance([1.0], "FFF") == pytest.approx(1.0 - hi[0], rel=1e-9)


def test_cli_at_reports_the_nearest_mode_and_accepts_at_tol(capsys):
    args = ["analyze", str(SIX), "--at=" + ",".join(f"{v:g}" for v in SAMPLE)]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(": none")
    assert out[1].startswith("  nearest: FFF, at distance 0.00201938 (Euclidean, the torques' units;")
    assert "--at-tol 0.00202 accepts it" in out[1]
    assert main(args + ["--at-tol", "0.00202"]) == 0
    text = capsys.readouterr().out
    assert "or lies within 0.00202 of it: FFF" in " ".join(text.split())
    assert main(args + ["--at-tol", "0.00202", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["at"]["modes"] == ["FFF"] and doc["at"]["tol"] == 0.00202 and doc["at"]["nearest"] is None
    assert main(args + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["at"]["nearest"]["mode"] == "FFF" and 0.002 < doc["at"]["nearest"]["distance"] < 0.00202


@pytest.mark.parametrize("extra, start", [
    (["--at-tol", "0.1"], "--at-tol: needs --at"),
    (["--at=-0.15,-0.58,-1.2,-0.7,-0.3", "--at-tol=-1"], "--at-tol: expected a distance >= 0"),
    (["--at=-0.15,-0.58,-1.2,-0.7,-0.3", "--at-tol", "inf"], "--at-tol: values must be finite"),
    (["--at=-0.15,-0.58,-1.2,-0.7,-0.3", "--at-tol", "1,2"], "--at-tol: expected 1 values"),
])
def test_cli_at_tol_errors_are_one_line(capsys, extra, start):
    assert main(["analyze", str(SIX), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"contactmodes: error: {start}"), err


# ------------------------------------------------------------------------------- ball bearing

def _ball_numbers():
    raw = load_system_file(BALL).raw
    link = raw["links"][0]
    r = abs(raw["contacts"][0]["position"][0])
    mu = raw["contacts"][0]["mu"]
    return link["mass"], link["inertia"], r, mu, raw["gravity"]


def test_ball_bearing_all_sliding_mode_has_the_papers_coupled_ambiguity():
    """Rank deficiency of ``A`` (rank case 4, two ambiguity variables: the two squeezes), and ``w``
    moves both the accelerations and the reaction forces (the paper's Fig. 6 reading)."""
    r = analyze(str(BALL), modes=["RRRR", "FFFF"])
    rrrr = r.modes["RRRR"]
    assert rrrr.feasible and rrrr.kinematically_feasible
    resp = rrrr.response
    assert resp.rank_case == 4 and resp.n_w == 2
    assert resp.w_moves_accelerations and resp.w_moves_forces
    # T_RRRR = [r mu m g (1 + mu) / (1 + mu^2), inf) (the file's hand solution)
    m, inertia, rad, mu, g = _ball_numbers()
    m_star = rad * mu * m * g * (1 + mu) / (1 + mu ** 2)
    lo, hi = rrrr.box
    assert lo[0] == pytest.approx(m_star, rel=1e-9) and hi[0] == math.inf
    assert rrrr.contains([m_star * 1.01]) and not rrrr.contains([m_star * 0.99])


@pytest.mark.parametrize("moment", [0.1, 0.2, 1.0])  # N·m, all above M* = 0.08775
def test_ball_bearing_acceleration_and_forces_are_not_unique(moment):
    """Over RRRR's solutions at a fixed moment (an LP in (q̈, f), not the toolkit's response):
    θ̈ fills ``[0, (M − M*)/I]``, the centre does not move, the normal forces range over the
    squeezes that θ̈ >= 0 allows."""
    system = load_system_file(BALL).system
    m, inertia, rad, mu, g = _ball_numbers()
    m_star = rad * mu * m * g * (1 + mu) / (1 + mu ** 2)
    n_x = system.n_q + 2 * system.k
    unit = np.eye(n_x)
    lo, hi = objective_range(system, "RRRR", [moment], unit[2])       # theta''
    assert lo == pytest.approx(0.0, abs=1e-9)
    assert hi == pytest.approx((moment - m_star) / inertia, rel=1e-9)
    for k in (0, 1):                                                  # x'', y''
        lo_k, hi_k = objective_range(system, "RRRR", [moment], unit[k])
        assert lo_k == pytest.approx(0.0, abs=1e-9) and hi_k == pytest.approx(0.0, abs=1e-9)
    # the normal forces: their sum fills [m g (1 + mu)/(1 + mu^2), M/(r mu)] (theta'' from its top
    # to 0), the right wall's [0, (M/(r mu) - m g (1 + mu)/(1 + mu^2))/2] (the other squeeze at 0)
    normals = np.zeros(n_x)
    normals[system.n_q + 1::2] = 1.0
    total0 = m * g * (1 + mu) / (1 + mu ** 2)
    lo_s, hi_s = objective_range(system, "RRRR", [moment], normals)
    assert lo_s == pytest.approx(total0, rel=1e-9) and hi_s == pytest.approx(moment / (rad * mu), rel=1e-9)
    lo_n, hi_n = objective_range(system, "RRRR", [moment], unit[system.n_q + 1])  # f_n of "right"
    assert lo_n == pytest.approx(0.0, abs=1e-9)
    assert hi_n == pytest.approx((moment / (rad * mu) - total0) / 2, rel=1e-9)
    # the toolkit agrees: its T_RRRR contains the moment, and theta'' over w spans the same interval
    r = analyze(system, modes=["RRRR"])
    assert r.modes["RRRR"].contains([moment])


def test_ball_bearing_spinning_is_outside_the_point_contact_model(tmp_path):
    """The documented scope: spinning at ω, each contact point (a material point of the ball)
    accelerates off its wall by ω² r, so the all-sliding mode is kinematically infeasible."""
    text = BALL.read_text(encoding="utf-8").replace("qdot = {}", "qdot = { theta = 10.0 }")
    path = tmp_path / "spinning.toml"
    path.write_text(text, encoding="utf-8")
    r = analyze(str(path), modes=["RRRR"])
    assert not r.modes["RRRR"].kinematically_feasible
