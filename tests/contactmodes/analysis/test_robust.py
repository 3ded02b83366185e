"""Robust feasible / unambiguous sets under a disturbance box, and the bracing controller.

Independent references: (1) re-solving the nominal model with the disturbance moved into ``h``
(``h - E δ``) at every vertex and at random points of ``D`` — a second route to the same sets;
(2) hand-derived shifts for the Painlevé rods, where the disturbance acts on the same coordinate
as the actuator moment, so a disturbance ``δ`` is exactly a torque offset; (3) the closed-form
Chebyshev center of an interval inside the torque bound.
"""

from __future__ import annotations

import json
try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the tomli dependency
    import tomli as tomllib  # type: ignore[no-redef]
from dataclasses import replace

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.cli import main
from contactmodes.analysis.session import mode_domain
from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.system_file.loader import load_system_file, parse_system
from contactmodes.analysis.robust import augmented_system, robust_feasible_set, robust_unambiguous
from controllers.bracing import BracingController

BOX_LO = np.array([-0.2, -3.0, -0.05, -0.25])  # bracing.md, set-up 3
BOX_HI = np.array([0.1, -2.3, 0.25, 0.0])


def _shifted(system, delta):
    """The nominal system with a fixed disturbance δ: ``M q̈ + (h − E δ) = S τ + Jᵀ f``."""
    return replace(system, h=system.h - system.disturbance.E @ delta, disturbance=None)


def _upper_end(T):
    lo, hi = T.bounding_box()
    return float(lo[0]), float(hi[0])


@pytest.fixture(scope="module")
def climber():
    return load_system_file(EXAMPLES / "five_link_climb.toml").system


def test_climber_file_is_the_two_link_brace_plus_box(climber):
    brace = load_system_file(EXAMPLES / "two_link_brace.toml").system
    assert np.allclose(climber.M, brace.M) and np.allclose(climber.J, brace.J) and np.allclose(climber.h, brace.h)
    d = climber.disturbance
    assert d.coordinates == ("x", "y", "theta", "theta1")
    lo, hi = d.set.bounding_box()
    assert np.allclose(lo, BOX_LO) and np.allclose(hi, BOX_HI)


def test_robust_feasible_set_is_the_worst_vertex_of_the_nominal_sets(climber):
    T, V = robust_feasible_set(climber, "FFF")
    assert len(V) == 16
    ends = [_upper_end(mode_domain(_shifted(climber, v), "FFF").T)[1] for v in V]
    lo, hi = _upper_end(T)
    assert lo == -np.inf and hi == pytest.approx(min(ends), abs=1e-9)
    # heavier load than nominal: the brace has to push harder than without the free section
    assert hi < _upper_end(mode_domain(load_system_file(EXAMPLES / "two_link_brace.toml").system, "FFF").T)[1]


def test_robust_torque_works_for_random_disturbances_and_fails_just_outside(climber):
    T, _ = robust_feasible_set(climber, "FFF")
    hi = _upper_end(T)[1]
    rng = np.random.default_rng(3)
    for delta in rng.uniform(BOX_LO, BOX_HI, size=(25, 4)):
        assert mode_domain(_shifted(climber, delta), "FFF").T.contains(np.array([hi]))
    # just above the robust bound some vertex of D breaks the brace
    outside = np.array([hi + 1e-3])
    _, V = robust_feasible_set(climber, "FFF")
    assert any(not mode_domain(_shifted(climber, v), "FFF").T.contains(outside) for v in V)


def test_augmented_system_appends_disturbance_inputs(climber):
    aug = augmented_system(climber)
    assert aug.torques == ("tau1", "d:x", "d:y", "d:theta", "d:theta1")
    assert np.allclose(aug.S[:, 1:], np.eye(4)) and aug.disturbance is None
    with pytest.raises(ContactModelError, match="disturbance"):
        augmented_system(load_system_file(EXAMPLES / "two_link_brace.toml").system)


def _rod_with_moment_disturbance(name: str, half_width: float):
    with open(EXAMPLES / name, "rb") as fh:
        doc = tomllib.load(fh)
    doc["disturbance"] = {"coordinates": ["theta"], "lower": [-half_width], "upper": [half_width]}
    return parse_system(doc, source=name).system


@pytest.mark.parametrize("name", ["painleve_rod_mu05.toml", "painleve_rod.toml"])
def test_painleve_disturbance_on_the_actuated_coordinate_is_a_torque_offset(name):
    # The actuator moment M and the disturbance both act on theta: (M, δ) behaves like M + δ.
    # Hence T'_c = {M : M + δ ∈ T_c for all |δ| <= 1} (T_c shrunk by 1 on each finite side) and
    # the robust ambiguity set of c' is {M : M + δ ∈ T_c' for some δ} (T_c' grown by 1).
    rod = _rod_with_moment_disturbance(name, 1.0)
    nominal = {m: mode_domain(replace(rod, disturbance=None), m).T for m in ("S", "L")}
    for mode, other in (("S", "L"), ("L", "S")):
        lo, hi = _upper_end(nominal[mode])
        res = robust_unambiguous(rod, mode)
        rlo, rhi = _upper_end(res.robust_feasible)
        assert rlo == pytest.approx(lo + 1.0 if np.isfinite(lo) else lo)
        assert rhi == pytest.approx(hi - 1.0 if np.isfinite(hi) else hi)
        olo, ohi = _upper_end(nominal[other])
        grown = (olo - 1.0, ohi + 1.0)
        # the robustly unambiguous set is T'_c minus the grown interval of the other mode
        expect_empty = grown[0] <= rlo + 1e-9 and grown[1] >= rhi - 1e-9
        assert (res.robust_unambiguous == []) == expect_empty
        if not expect_empty:
            (piece,) = res.robust_unambiguous
            assert np.allclose(_upper_end(piece), (rlo, rhi))


def test_bracing_controller_max_margin_is_the_interval_center(climber):
    T, _ = robust_feasible_set(climber, "FFF")
    hi = _upper_end(T)[1]
    res = BracingController("max_margin", torque_bound=1.0).solve(climber, "FFF")
    assert res.success and res.status == "optimal"
    # [−1, hi] is the robust set inside the bound: center and half-width
    assert res.torque[0] == pytest.approx((-1.0 + hi) / 2, abs=1e-5)
    assert res.margin == pytest.approx((hi + 1.0) / 2, abs=1e-5)


def test_bracing_controller_least_effort_keeps_the_margin_or_says_why(climber):
    hi = _upper_end(robust_feasible_set(climber, "FFF")[0])[1]
    res = BracingController("least_effort", margin=0.1, torque_bound=1.0).solve(climber, "FFF")
    assert res.success and res.torque[0] == pytest.approx(hi - 0.1, abs=1e-5)
    bad = BracingController("least_effort", margin=5.0, torque_bound=1.0).solve(climber, "FFF")
    assert not bad.success and bad.status == "margin_infeasible" and bad.torque is None


def test_bracing_controller_reports_an_empty_set():
    rod = _rod_with_moment_disturbance("painleve_rod.toml", 1.0)  # μ = 2: S robustly ambiguous
    res = BracingController().solve(rod, "S")
    assert not res.success and res.status == "empty" and "empty" in res.message


@pytest.mark.parametrize("kwargs", [dict(objective="fast"), dict(margin=-1.0), dict(margin=float("nan"))])
def test_bracing_controller_rejects_bad_parameters(kwargs):
    with pytest.raises(ContactModelError):
        BracingController(**kwargs)


def test_bad_disturbance_tables_name_the_field():
    with open(EXAMPLES / "five_link_climb.toml", "rb") as fh:
        doc = tomllib.load(fh)
    cases = [
        ({"coordinates": ["x"], "lower": [1.0], "upper": [0.0]}, "disturbance.lower"),
        ({"coordinates": ["nope"], "lower": [0.0], "upper": [1.0]}, "disturbance.coordinates"),
        ({"coordinates": ["x"], "lower": [0.0]}, "disturbance.upper"),
        ({"coordinates": ["x"], "A": [[1.0]], "b": [1.0]}, "disturbance: the disturbance set must be bounded"),
        ({"coordinates": ["x"], "lower": [0.0], "upper": [1.0], "A": [[1.0]], "b": [1.0]}, "disturbance"),
    ]
    for table, field in cases:
        doc["disturbance"] = table
        with pytest.raises(SystemFileError, match=field.replace(".", r"\.")):
            parse_system(doc)


def test_brace_cli_json(tmp_path, climber):
    out = tmp_path / "b.json"
    assert main(["brace", str(EXAMPLES / "five_link_climb.toml"), "--json", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["schema"] == "contactmodes.brace/1" and doc["mode"] == "FFF" and doc["status"] == "optimal"
    hi = _upper_end(robust_feasible_set(climber, "FFF")[0])[1]
    A, b = np.array(doc["robust_feasible"]["A"]), np.array(doc["robust_feasible"]["b"])
    assert np.all(A @ np.array([hi - 1e-6]) <= b) and np.any(A @ np.array([hi + 1e-3]) > b)
    assert doc["torque"][0] == pytest.approx((hi - 1.0) / 2, abs=1e-5)


def test_brace_cli_without_disturbance_exits_2(tmp_path):
    out = tmp_path / "b.json"
    assert main(["brace", str(EXAMPLES / "two_link_brace.toml"), "--output", str(out)]) == 2
    assert not out.exists()
