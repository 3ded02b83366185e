"""Point location without building every mode (issue 40, item 6: ``--at`` among 10^4 modes):
``AnalysisSession.locate`` filters the modes by their unique solution at the torque
(``contactmodes.analysis.point_location.PointFilter``) and tests only the few left.

Oracle: the brute-force answer — every kinematically feasible mode's own membership test
(``ModeSolution.contains``) in a fresh session, no filter — at random torques, at torques on
facets of a ``T_c`` (the maximizer of a linear function over it: a boundary point, decided within
the containment tolerance) and on planar examples, a pushed spatial box and a Solo-12 with two
or three feet down. Solo-12 on four feet (10^4 modes) checks that the answer's modes contain the
torque and that no enumeration or mode-by-mode build happened.
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.point_location import PointFilter  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402
from contactmodes.model.spatial import SpatialMechanism  # noqa: E402

from _support.robots import BOX_URDF  # noqa: E402
from _support.robots import solo_on_feet

ROOT = Path(__file__).resolve().parents[3]
SOLO = ROOT / "examples" / "spatial" / "solo12_standing.toml"


def brute_force(system, tau, task: bool = True) -> list[str]:
    """Every kinematically feasible mode whose ``T_c`` contains ``tau`` (one membership test
    each, a fresh session)."""
    session = AnalysisSession(system)
    return [m for m in session.enumeration.modes
            if session.mode(m).feasible(task) and session.mode(m).contains(tau, task)]


def boundary_torques(system, n: int, seed: int) -> list[np.ndarray]:
    """Torques on the boundary of some ``T_c``: the maximizer of a random linear function."""
    session = AnalysisSession(system)
    rng = np.random.default_rng(seed)
    modes = [m for m in session.enumeration.modes if session.mode(m).feasible()]
    out = []
    for _ in range(20 * n):
        if len(out) == n:
            break
        sol = session.mode(modes[rng.integers(len(modes))])
        best = sol.maximize(rng.normal(size=system.n_tau))
        if best is not None and best[1] is not None and np.all(np.isfinite(best[1])):
            out.append(np.asarray(best[1], dtype=float))
    return out


def random_torques(system, n: int, seed: int) -> list[np.ndarray]:
    """Torques around the modes' Chebyshev centres (inside, near and between the sets)."""
    session = AnalysisSession(system)
    rng = np.random.default_rng(seed)
    centres = []
    for m in session.enumeration.modes[:40]:
        T = session.mode(m).T()
        if T is not None and not T.is_empty():
            centres.append(T.chebyshev_center().center)
    scale = np.asarray(session.scaling.tau, dtype=float) * np.ones(system.n_tau)
    return [centres[rng.integers(len(centres))] + 0.3 * scale * rng.normal(size=system.n_tau) for _ in range(n)]


def pushed_box(corners: int):
    """The example box on the floor on ``corners`` of its bottom corners, pushed by a force and
    a moment at its origin (six actuators on the base's coordinates)."""
    box = SpatialMechanism(BOX_URDF, base="floating", name="box")
    for i, (a, b) in enumerate([(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)][:corners]):
        box.add_contact(f"c{i}", "box", (a, b, -0.05), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.4 + 0.1 * i)
    for c in ("x", "y", "z", "wx", "wy", "wz"):
        box.add_actuator(f"u{c}", c)
    return box.contact_system(np.array([0.0, 0.0, 0.05, 1.0, 0.0, 0.0, 0.0]), np.zeros(6))


def solo_with_feet(feet: int, tmp_path):
    """Solo-12 standing with only its first ``feet`` feet as contacts (the rest not modelled)."""
    return cm.load_system(solo_on_feet(tmp_path, feet))


def assert_same(system, taus):
    session = AnalysisSession(system)
    for tau in taus:
        assert session.locate(tau) == brute_force(system, tau), tau.tolist()


@pytest.mark.parametrize("path", sorted(p for p in glob.glob(str(ROOT / "examples" / "*.toml"))))
def test_planar_examples_locate_as_brute_force(path):
    system = cm.load_system(path)
    if system.n_tau == 0:
        pytest.skip("passive")
    assert_same(system, random_torques(system, 6, 1) + boundary_torques(system, 4, 2))


def test_pushed_box_locates_as_brute_force():
    system = pushed_box(2)
    assert_same(system, random_torques(system, 12, 3) + boundary_torques(system, 6, 4))


def test_solo_on_two_feet_locates_as_brute_force(tmp_path):
    system = solo_with_feet(2, tmp_path)
    taus = random_torques(system, 8, 5) + boundary_torques(system, 4, 6)
    assert_same(system, taus)
    # a real test: the torques fall in several different modes
    assert len({tuple(AnalysisSession(system).locate(t)) for t in taus}) >= 3


def test_the_filter_keeps_every_mode_containing_the_torque_and_rules_out_most(tmp_path):
    system = solo_with_feet(3, tmp_path)
    session = AnalysisSession(system)
    filt = PointFilter(session, True)
    assert filt.available and filt.count() == 1000
    for tau in random_torques(system, 4, 7):
        t = session.scaling.tau_from_user(tau)
        kept = filt.candidates(t)
        inside = [m for m in session.enumeration.modes if session.mode(m).contains(tau)]
        assert set(inside) <= set(kept), tau.tolist()
        assert len(kept) <= 100  # a few per cent of the 1000 built, not all
        # the contact-by-contact solve of every mode decides as the per-mode inverses do
        idx = filt.table_iii_modes()
        assert np.array_equal(filt.keep_all(t), filt.keep(idx, t))


def test_solo_on_four_feet_locates_without_building_every_mode():
    system = cm.load_system(SOLO)
    session = AnalysisSession(system)
    rng = np.random.default_rng(8)
    scale = np.asarray(session.scaling.tau, dtype=float) * np.ones(system.n_tau)
    found = set()
    for _ in range(3):
        tau = 0.3 * scale * rng.normal(size=system.n_tau)
        modes = session.locate(tau)
        assert modes, tau.tolist()
        for m in modes:  # each answer is a mode containing the torque, by its own test in a fresh session
            assert AnalysisSession(system).mode(m).contains(tau)
        found.update(modes)
    assert session._enumeration is None  # no enumeration ...
    assert len(session._modes) <= 12  # ... and a handful of modes built, not 10^4
    assert len(found) >= 2


def test_cli_at_answers_as_brute_force_on_two_feet(tmp_path, capsys):
    from contactmodes.cli import main
    from contactmodes.output.text import format_at

    system = solo_with_feet(2, tmp_path)
    path = tmp_path / "solo_2.toml"
    answered = 0
    for tau in random_torques(system, 4, 9):
        expected = brute_force(system, tau)
        if not expected:
            continue
        answered += 1
        assert main(["analyze", str(path), "--at=" + ",".join(f"{v:.17g}" for v in tau)]) == 0
        assert capsys.readouterr().out == format_at(system.torques, (tau, expected)) + "\n"
    assert answered >= 2
