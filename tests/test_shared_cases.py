"""Regression tests on the reproducers of the trustworthy-engine issue (``tests/data/cases/``).

The expected answers come from outside the toolkit: torques certified by an exact rational
certificate (``tests/data/cases/README.md``) and the independent per-mode LP oracle of
``tests/_support/oracle.py`` (Tables I–III and footnote 5 written again, in ``(q̈, f)``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from _support.oracle import kinematically_ok, oracle_slack
from contactmodes.analysis.analyze import analyze
from contactmodes.cli import main
from contactmodes.system_file.loader import load_system_file


CASES = Path(__file__).resolve().parent / "data" / "cases"

M014_TAU = np.array([-20.26221745193848, -0.8667660227765833, -79.33784047919421])


def run_json(capsys, *args) -> dict:
    assert main(["analyze", *args, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_m037_unambiguous_rsf_gives_a_result(capsys):
    doc = run_json(capsys, str(CASES / "m037.toml"), "--unambiguous", "--mode", "RSF")
    (entry,) = doc["modes"]
    assert entry["mode"] == "RSF" and "unambiguous" in entry


@pytest.mark.parametrize("name, mode", [("smubig606", "FFF"), ("smixed300", "FS")])
def test_lp_status_cases_give_a_result_that_agrees_with_the_oracle(capsys, name, mode):
    path = CASES / f"{name}.toml"
    doc = run_json(capsys, str(path), "--mode", mode)
    assert [m["mode"] for m in doc["modes"]] == [mode]
    s = load_system_file(path).system
    res = analyze(s, modes=[mode], compute_overlaps=False)
    a = res.modes[mode]
    assert a.kinematically_feasible == kinematically_ok(s, mode)
    rng = np.random.default_rng(606)
    checked = 0
    for tau in rng.uniform(-5e4, 5e4, size=(30, s.n_tau)):
        sigma = oracle_slack(s, mode, tau)
        scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
        if sigma is not None and (np.isnan(sigma) or abs(sigma) <= 1e-6 * scale):
            continue
        expected = sigma is not None and sigma > 0
        assert (a.T is not None and bool(a.T.contains(tau))) == expected, (tau, sigma)
        checked += 1
    assert checked >= 20


def test_ssmall100_ss_is_feasible_at_the_certified_moment():
    loaded = load_system_file(CASES / "ssmall100.toml")
    s = loaded.system
    res = analyze(s, compute_overlaps=False)
    M = 0.013563110554468915
    assert "SS" in res.feasible_modes()
    assert res.modes["SS"].T.contains([M])
    assert "SS" in res.locate([M])
    # the certificate's normal contact accelerations at that moment (f = 0 in mode SS)
    qdd, f = res.modes["SS"].response.evaluate([M])
    assert np.allclose(f, 0.0)
    xdd = s.J @ qdd + s.Jdot_qdot
    assert xdd[1] == pytest.approx(467.5, rel=1e-3) and xdd[3] == pytest.approx(250.1, rel=1e-3)


@pytest.mark.parametrize("name, factor", [("m014", 1.0), ("m014_L1000_M1", 1e6)])
def test_m014_ff_contains_the_certified_torque_in_both_units(name, factor):
    res = analyze(load_system_file(CASES / f"{name}.toml").system, modes=["FF"], compute_overlaps=False)
    ff = res.modes["FF"]
    assert ff.feasible
    assert ff.T.contains(M014_TAU * factor)


def test_m014_same_torque_domains_in_si_and_millimetres():
    si = analyze(load_system_file(CASES / "m014.toml").system, compute_overlaps=False)
    mm = analyze(load_system_file(CASES / "m014_L1000_M1.toml").system, compute_overlaps=False)
    assert si.enumeration.modes == mm.enumeration.modes
    assert si.feasible_modes() == mm.feasible_modes()
    from polytopes import Polytope

    for m in si.feasible_modes():
        T = mm.modes[m].T
        back = Polytope(T.A * 1e6, T.b, T.C * 1e6, T.d)  # τ_mm = 1e6 τ_SI
        assert back.equals(si.modes[m].T, tol=1e-6), m


BIG718_TAU = np.array([-24.28698114786781, -0.9114362956647523, -45.095361075456324])


def test_big718_analyzes_and_rrlr_is_the_oracles_set(capsys):
    """big718 (a ``qdd_zero`` task forces every sliding acceleration of RRLR to zero, so its
    acceleration rows are constant on ``C τ = d`` up to rounding): the whole analysis exits 0 and
    RRLR's ``T_c`` is the oracle's set. Before, the affine-hull rule renormalized those
    rounding-level rows into unit equalities, pinned ``T_c`` to a line through noise (two
    opposite rows, empty) and the analysis died (exit 70).

    The expected set is the independent oracle's (``_support.oracle.oracle_slack``, a per-mode LP in
    ``(q̈, f)`` from the system's own matrices): the certified torque is in ``T_c``; every vertex of
    ``T_c`` is feasible for the oracle; points just outside each facet, within ``T_c``'s hull, are
    not; the bounding box is the one the shared case's README gives (4 digits). (That README calls
    the set a segment; the oracle and an exact projection of the mode's own constraints give a
    triangle with the same bounding box: the box's two corners and ``τ ≈ (−18.26, −0.900,
    −34.02)``.)"""
    assert main(["analyze", str(CASES / "big718.toml")]) == 0, capsys.readouterr().err
    capsys.readouterr()
    doc = run_json(capsys, str(CASES / "big718.toml"), "--mode", "RRLR")
    (entry,) = doc["modes"]
    assert entry["feasible"]
    s = load_system_file(CASES / "big718.toml").system
    T = analyze(s, modes=["RRLR"], compute_overlaps=False).modes["RRLR"].T
    assert T.contains(BIG718_TAU)
    lo, hi = T.bounding_box()
    np.testing.assert_allclose(lo, [-24.287, -0.9114, -45.095], atol=1e-3)
    np.testing.assert_allclose(hi, [-14.165, -0.8431, -24.481], atol=1e-3)
    scale = float(np.abs(BIG718_TAU).max())
    V = T.vertices().vertices
    assert len(V) >= 2
    for v in V:
        sigma = oracle_slack(s, "RRLR", v)
        assert sigma is not None and sigma >= -1e-7 * scale, (v, sigma)
    centre = V.mean(axis=0)
    N = np.linalg.svd(T.C)[2][T.C.shape[0]:].T if T.n_eq else np.eye(3)
    for a, b in zip(T.A, T.b):
        u = N @ (N.T @ a)  # the facet's outward normal within the hull
        if np.linalg.norm(u) < 1e-9 * np.linalg.norm(a):
            continue
        u /= np.linalg.norm(u)
        out = centre + ((b - a @ centre) / (a @ u) + 1e-3 * scale) * u
        sigma = oracle_slack(s, "RRLR", out)
        assert sigma is None or sigma < 0, (out, sigma)
