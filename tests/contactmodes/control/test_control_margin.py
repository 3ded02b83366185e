"""The controllers' margin (``contactmodes.control.margin``; issue 39, "the controller gives away
objective"): the torque returned lies within the margin of the supremum point, robustly inside its
unambiguous set, with one objective reported for it.

Independent references: the supremum and the sets' ends from ``_support.control_oracle``'s LPs
over ``(τ, q̈, f)`` (Tables I–II written out, no projection), the guarantee from its ``(q̈, f)``
membership oracle (``guaranteed_mode``: strictly inside the mode's ``T_c``, outside every other
kinematically feasible mode's), the objective from the torque by hand.
"""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest

from _support.control_oracle import guaranteed_mode, torque_extreme
from _support.oracle import all_modes, kinematically_ok
from _support.paths import DATA, EXAMPLES

import contactmodes as cm
from contactmodes.cli import main
from contactmodes.control.objective import objective_for
from contactmodes.control.report import format_control
from contactmodes.schemas import validate
from contactmodes.system_file.loader import load_system_file
from controllers.generic import UnambiguousOptimalController

CASE919 = DATA / "cases" / "control919.toml"
OBJECTIVE = "2.0*tau.u0 + tau.u1 + tau.u2"
C919 = np.array([2.0, 1.0, 1.0])  # the objective's coefficients (τ only)
LO919, HI919 = np.array([0.0, 0.0, -4.76787]), np.array([85.2508, 69.8089, 207.374])
LIMITS919 = {"u0": "0.0:85.2508", "u1": "0.0:69.8089", "u2": "-4.76787:207.374"}
TABLE = EXAMPLES / "table_two_legs.toml"


@pytest.fixture(scope="module")
def case919():
    """control919 (a random two-contact system; ``tests/data/cases/README.md``)."""
    return CASE919


def _kinematic(s):
    return [m for m in all_modes(s.k) if kinematically_ok(s, m)]


def _supremum_919(s) -> float:
    """``min u2`` over ``T*_FF ∩ L`` by the oracle: ``FF`` holds ``u0 = u1 = 0`` and the whole
    ``u2`` range of the box, ``LR`` (its only overlap) the bottom of it; the rest is ``FF``'s alone."""
    e = np.eye(3)
    for k in (0, 1):
        assert torque_extreme(s, "FF", e[k], LO919, HI919) == pytest.approx(0.0, abs=1e-12)
        assert torque_extreme(s, "FF", -e[k], LO919, HI919) == pytest.approx(0.0, abs=1e-12)
    assert -torque_extreme(s, "FF", -e[2], LO919, HI919) == pytest.approx(LO919[2], abs=1e-9)
    assert torque_extreme(s, "FF", e[2], LO919, HI919) == pytest.approx(HI919[2], abs=1e-9)
    assert -torque_extreme(s, "LR", -e[2], LO919, HI919) == pytest.approx(LO919[2], abs=1e-9)
    top_lr = torque_extreme(s, "LR", e[2], LO919, HI919)
    others = [m for m in _kinematic(s) if m not in ("FF", "LR")]
    assert all(torque_extreme(s, m, e[2], LO919, HI919) is None for m in others)  # no other mode in the box
    return top_lr


def test_control919_returns_a_torque_within_the_margin_of_the_supremum(case919):
    """Today's code returned ``u2 = −3.612``: 1.06 N·m above the supremum ``−4.6726`` (1 % of a piece
    running to the limit 207), with ``u2 = −4.5557`` guaranteed too."""
    s = cm.load_system(case919)
    sup = _supremum_919(s)
    assert sup == pytest.approx(-4.67258, abs=1e-5)
    r = cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919)
    assert (r.status, r.mode, r.unambiguous) == ("optimal", "FF", True)
    assert r.margin == pytest.approx(1e-3 * s.scales.mass * s.scales.length ** 2 / s.scales.time ** 2, rel=1e-12)
    assert r.torque[:2].tolist() == [0.0, 0.0]
    assert sup < r.torque[2] <= sup + r.margin  # inside, within the margin of the supremum point
    assert r.supremum == pytest.approx(sup, abs=1e-9)
    assert r.objective == pytest.approx(float(C919 @ r.torque), abs=1e-12)
    assert 0.0 < r.objective - r.supremum <= float(np.linalg.norm(C919)) * r.margin
    # robustly unambiguous: the oracle finds FF guaranteed at the torque and across its clearance
    kin = _kinematic(s)
    assert r.clearance == pytest.approx(r.margin / 2, rel=1e-9)
    for shift in (-0.99, 0.0, 0.99):
        assert guaranteed_mode(s, r.torque + shift * r.clearance * np.eye(3)[2], kin) == "FF", shift


def test_control919_reports_one_objective(case919, capsys):
    """The text's ``objective`` line, the table's ``objective`` column and the JSON's ``objective``
    are the objective at the torque shown; the supremum is labelled as such beside them."""
    r = cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919)
    assert main(["control", str(case919), f"--minimize={OBJECTIVE}", *[f"--limit={k}={v}" for k, v in LIMITS919.items()],
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["objective"] == r.objective == doc["alternatives"][0]["objective"]
    assert doc["supremum"] == r.supremum == doc["alternatives"][0]["supremum"]
    assert doc["margin"] == r.margin and doc["clearance"] == r.clearance == doc["alternatives"][0]["clearance"]
    assert doc["alternatives"][0]["distance"] <= doc["margin"] and doc["alternatives"][0]["nudged"]
    lines = format_control(r).splitlines()
    obj_line = next(ln for ln in lines if ln.startswith("objective:"))
    assert obj_line.startswith(f"objective: {r.objective:.6g}   (supremum {r.supremum:.6g}; margin {r.margin:.6g}")
    header = lines.index("") + 1
    assert lines[header].split()[:5] == ["mode", "status", "objective", "supremum", "allowed"]
    row = lines[header + 1].split()
    assert row[:4] == ["FF", "optimal", f"{r.objective:.6g}", f"{r.supremum:.6g}"]
    assert f"u2={r.torque[2]:.6g}" in lines[header + 1]


def test_margin_zero_is_the_supremum_point_and_an_explicit_margin_is_used(case919):
    s = cm.load_system(case919)
    sup = _supremum_919(s)
    r0 = cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919, margin=0.0)
    assert r0.torque[2] == pytest.approx(sup, abs=1e-9) and r0.objective == pytest.approx(r0.supremum, abs=1e-12)
    assert r0.alternatives[0].nudged is False and r0.clearance == 0.0
    r1 = cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919, margin=0.5)
    assert r1.margin == 0.5 and sup < r1.torque[2] <= sup + 0.5
    assert r1.torque[2] == pytest.approx(sup + 0.25, abs=1e-9)  # half the margin's clearance, the best objective
    with pytest.raises(cm.ContactModelError, match=r"^margin: expected a finite torque >= 0"):
        cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919, margin=-1.0)


def test_the_control_table_carries_the_margin(case919, tmp_path):
    path = tmp_path / "with_margin.toml"
    path.write_text(case919.read_text() + f'\n[control]\nminimize = "{OBJECTIVE}"\nmargin = 0.5\n'
                    + "[control.limits]\n" + "".join(f'{k} = "{v}"\n' for k, v in LIMITS919.items()))
    validate(tomllib.loads(path.read_text()), "contactmodes.system/1")
    r = cm.control(path)
    assert r.margin == 0.5 and r.torque[2] == pytest.approx(cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919,
                                                                       margin=0.5).torque[2], abs=1e-12)
    assert cm.control(path, margin=0.1).margin == 0.1  # the argument replaces the file's


def test_the_margin_is_in_the_users_units(case919, tmp_path):
    """control919 in millimetres (masses in kg): torques × 10⁶. The default margin scales with the
    system's torque scale, so the torque is the same ×10⁶; an explicit margin is in the file's units."""
    from _support.units import rewrite

    doc = tomllib.loads(case919.read_text())
    mm, factor = rewrite(doc, 1e3, 1.0)
    assert factor == 1e6
    path = tmp_path / "control919_mm.json"
    path.write_text(json.dumps(mm))
    mm_limits = {k: f"{LO919[i] * factor}:{HI919[i] * factor}" for i, k in enumerate(LIMITS919)}
    for margin_si in (None, 0.5):
        si = cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919, margin=margin_si)
        got = cm.control(path, minimize=OBJECTIVE, limits=mm_limits,
                         margin=None if margin_si is None else margin_si * factor)
        assert got.margin == pytest.approx(si.margin * factor, rel=1e-9)
        assert got.torque / factor == pytest.approx(si.torque, rel=1e-9, abs=1e-9 * HI919.max())
        assert got.clearance == pytest.approx(si.clearance * factor, rel=1e-9)


def test_the_real_time_controller_keeps_the_same_margin(case919):
    """``UnambiguousOptimalController`` at the file's state: the one-shot controller's supremum,
    a torque within its margin of the supremum point that the oracle finds guaranteed (before: the
    slow path's 1 % nudge, ``u2 = −3.61``)."""
    loaded = load_system_file(case919)
    s = loaded.system
    obj = objective_for(s, OBJECTIVE, "minimize")
    ctrl = UnambiguousOptimalController(loaded, obj, limits=(LO919, HI919))
    tau = ctrl(loaded.q, loaded.qdot)
    res = ctrl.last
    sup = _supremum_919(s)
    assert res.status == "optimal" and res.mode == "FF" and not ctrl.errors
    assert ctrl.margin == pytest.approx(cm.control(case919, minimize=OBJECTIVE, limits=LIMITS919).margin, rel=1e-12)
    assert res.closure_value == pytest.approx(sup, abs=1e-9)
    assert sup < tau[2] <= sup + ctrl.margin and np.abs(tau[:2]).max() <= 1e-12
    assert res.value == pytest.approx(float(C919 @ tau), abs=1e-9)
    assert guaranteed_mode(s, tau, _kinematic(s)) == "FF"
    ctrl0 = UnambiguousOptimalController(loaded, obj, limits=(LO919, HI919), margin=0.0)
    assert ctrl0(loaded.q, loaded.qdot)[2] == pytest.approx(sup, abs=1e-9)
    with pytest.raises(cm.ContactModelError, match=r"^margin: "):
        UnambiguousOptimalController(loaded, obj, limits=(LO919, HI919), margin=float("nan"))


def test_an_optimum_on_a_friction_cone_edge_is_kept_inside():
    """The two-legged table pushed as hard as both feet stick (mode ``FF``): the supremum
    ``Fx = μ m g`` puts both feet on their friction cones' edges, where ``FF`` touches the sliding
    modes (a shared face: nothing removed). Before, the torque was that edge (the oracle could not
    call it ``FF``); now it lies inside by the clearance. ``Fx`` is a force (the table's ``x``): its
    share of the margin counts times the characteristic length ``L``."""
    s = cm.load_system(TABLE)
    kin = _kinematic(s)
    lo, hi = np.array([-50.0]), np.array([50.0])
    edge = torque_extreme(s, "FF", [1.0], lo, hi)
    assert edge == pytest.approx(0.5 * 2.0 * 9.81, abs=1e-9)  # μ m g, by hand
    assert guaranteed_mode(s, [edge], kin) is None  # on the edge: not robust
    L = s.scales.length
    r = cm.control(TABLE, maximize="tau.Fx", limits={"Fx": "-50:50"}, modes=["FF"])
    assert (r.status, r.mode) == ("optimal", "FF") and r.supremum == pytest.approx(edge, abs=1e-9)
    assert edge - r.margin / L <= r.torque[0] < edge
    assert r.clearance == pytest.approx(r.margin / 2, rel=1e-9)
    assert r.torque[0] == pytest.approx(edge - r.clearance / L, rel=1e-9)
    for shift in (-0.99, 0.0, 0.99):
        assert guaranteed_mode(s, r.torque + shift * r.clearance / L, kin) == "FF", shift
    loaded = load_system_file(TABLE)
    ctrl = UnambiguousOptimalController(loaded, objective_for(s, "tau.Fx", "maximize"), limits=(lo, hi), modes=["FF"])
    tau = ctrl(loaded.q, loaded.qdot)
    assert ctrl.last.mode == "FF" and ctrl.last.closure_value == pytest.approx(edge, abs=1e-9)
    assert tau[0] == pytest.approx(r.torque[0], rel=1e-9)
    assert ctrl.lengths.tolist() == [L] and guaranteed_mode(s, tau, kin) == "FF"


def test_simulate_takes_the_tables_margin(tmp_path):
    """``simulate --controller control`` builds its controller from the ``[control]`` table: the
    table's margin with it (``controllers.simulation.registry.make_controller``; no MuJoCo)."""
    from controllers.simulation.registry import make_controller

    path = tmp_path / "with_margin.toml"
    path.write_text(CASE919.read_text() + f'\n[control]\nminimize = "{OBJECTIVE}"\nmargin = 0.25\n'
                    + "[control.limits]\n" + "".join(f'{k} = "{v}"\n' for k, v in LIMITS919.items()))
    gc = make_controller("control", load_system_file(path)).controller
    while not hasattr(gc, "engine"):
        gc = gc.inner
    assert isinstance(gc, UnambiguousOptimalController) and gc.margin == 0.25
