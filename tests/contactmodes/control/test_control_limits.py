"""Limits, acceptable modes and the ``[control]`` table of a system file
(``contactmodes.control.limits``, ``.selection``, ``.spec`` and the loader)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.paths import EXAMPLES

import contactmodes as cm
from contactmodes.control.limits import TorqueLimit, actuator_speeds, limit_polytope, parse_limit, parse_limits
from contactmodes.control.selection import ModeSelection, parse_modes, parse_modes_text
from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.schemas import validate

BRACE = EXAMPLES / "two_link_brace.toml"


# ---------------------------------------------------------------------------------------- limits

@pytest.mark.parametrize("value, lo, hi", [
    ("-2:3", -2.0, 3.0), (":5", -math.inf, 5.0), ("-2:", -2.0, math.inf), (" -1.5 : 1e1 ", -1.5, 10.0),
    ([1, 2], 1.0, 2.0), ({"hi": 4}, -math.inf, 4.0), ("0:0", 0.0, 0.0), (TorqueLimit(-1, 1), -1.0, 1.0),
])
def test_parse_limit(value, lo, hi):
    limit = parse_limit(value, "control.limits.a")
    assert (limit.lo, limit.hi, limit.tau_max, limit.omega_0) == (lo, hi, None, None)


@pytest.mark.parametrize("value, message", [
    ("3:1", "control.limits.a: needs LO <= HI, got 3:1"),
    ("a:b", "control.limits.a: expected LO:HI"),
    ("1:2:3", "control.limits.a: expected LO:HI"),
    ("inf:2", "control.limits.a: ends must be finite"),
    ([1], "control.limits.a: expected [lo, hi]"),
    (["1", 2], "control.limits.a[0]: must be a number"),
    ({"lo": 1, "top": 2}, "control.limits.a.top: unknown key (allowed: lo, hi, tau_max, omega_0)"),
    ({"tau_max": 2}, "control.limits.a: tau_max and omega_0 go together"),
    ({"tau_max": -2, "omega_0": 3}, "control.limits.a: tau_max must be finite and > 0"),
    ("0:1e61", "control.limits.a: 1e+61 exceeds 1e+60 in magnitude"),
    ([-1e300, 0], "control.limits.a: -1e+300 exceeds 1e+60 in magnitude"),
    ({"tau_max": 1, "omega_0": 1e61}, "control.limits.a: omega_0 1e+61 exceeds 1e+60"),
    (True, "control.limits.a: expected \"LO:HI\""),
])
def test_parse_limit_errors(value, message):
    with pytest.raises(ContactModelError) as info:
        parse_limit(value, "control.limits.a")
    assert str(info.value).startswith(message)


def test_parse_limits_names_the_actuator():
    assert set(parse_limits({"b": "0:1"}, ["a", "b"])) == {"b"}
    with pytest.raises(ContactModelError, match=r"^control.limits.c: unknown actuator \(actuators: a, b\)"):
        parse_limits({"c": "0:1"}, ["a", "b"])


def test_limit_polytope_box_and_torque_speed_line():
    """Hand-computed: the line |τ| <= 4 (1 − |ω|/10) at ω = −2.5 caps |τ| at 3; the box [−5, 2]
    of the same actuator leaves [−3, 2]; the second actuator has ``:1``; the third none."""
    limits = {"a": TorqueLimit(-5, 2, tau_max=4, omega_0=10), "b": parse_limit(":1", "b")}
    L = limit_polytope(limits, ["a", "b", "c"], np.array([-2.5, 100.0, 0.0]))
    assert L.dim == 3
    lo, hi = L.bounding_box()
    assert lo.tolist() == [-3.0, -math.inf, -math.inf] and hi.tolist() == [2.0, 1.0, math.inf]
    # at or beyond the no-load speed the line leaves only τ = 0
    L0 = limit_polytope({"a": TorqueLimit(tau_max=4, omega_0=10)}, ["a"], np.array([12.0]))
    assert L0.bounding_box()[0].tolist() == [0.0] and L0.bounding_box()[1].tolist() == [0.0]
    with pytest.raises(ContactModelError, match="needs the state's velocity"):
        limit_polytope({"a": TorqueLimit(tau_max=4, omega_0=10)}, ["a"], None)


def test_actuator_speeds_are_the_driven_coordinates_velocities():
    S = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert actuator_speeds(S, [5.0, -2.0, 3.0]).tolist() == [-2.0, 3.0]


def test_torque_speed_line_in_control():
    """At θ̇1 = 2 rad/s the line 2 (1 − 2/4) caps |τ1| at 1 N·m, so the best θ̈1 (increasing in
    τ1 in the separating mode, as the box [−3, 3] shows) is at τ1 = 1."""
    system = cm.load_system(BRACE)
    line = {"lo": -3, "hi": 3, "tau_max": 2, "omega_0": 4}
    r = cm.control(system, maximize="qdd.theta1", limits={"tau1": line}, qdot=[0, 0, 0, 2.0])
    free = cm.control(system, maximize="qdd.theta1", limits={"tau1": "-3:3"})
    assert free.torque.tolist() == pytest.approx([3.0], abs=1e-12) and r.mode == free.mode
    assert r.torque.tolist() == pytest.approx([1.0], abs=1e-12)
    with pytest.raises(ContactModelError, match="torque–speed line needs the state's velocity"):
        cm.control(system, maximize="qdd.theta1", limits={"tau1": line})


# ------------------------------------------------------------------------------------------ modes

def test_mode_selection_forms():
    contacts = ["base", "tip", "joint"]
    assert parse_modes(None, contacts) == ModeSelection() == parse_modes("all", contacts)
    listed = parse_modes(["FFF", "SSS"], contacts)
    assert listed.accepts("FFF") and not listed.accepts("FFS")
    per = parse_modes({"tip": "F|S", "joint": "*"}, contacts)
    assert per.letters == ("FSLR", "FS", "FSLR")
    assert per.accepts("LSR") and not per.accepts("LLR")
    assert parse_modes_text("tip=F|S, joint=*", contacts) == per
    assert parse_modes_text("FFF,SSS", contacts) == listed
    assert parse_modes_text("all", contacts) == ModeSelection()


@pytest.mark.parametrize("value, message", [
    ({"toe": "F"}, "control.modes.toe: unknown contact (contacts: base, tip, joint)"),
    ({"tip": "F|X"}, "control.modes.tip: 'X' is not a contact mode letter"),
    ({"tip": "FS"}, "control.modes.tip: 'FS' is not a contact mode letter"),
    ([], "control.modes: the list of modes is empty"),
    (["FF"], "control.modes[0]: 'FF' is not a contact mode"),
    ("some", "control.modes: expected \"all\""),
])
def test_mode_selection_errors(value, message):
    with pytest.raises(ContactModelError) as info:
        parse_modes(value, ["base", "tip", "joint"])
    assert str(info.value).startswith(message)


def test_only_acceptable_modes_are_chosen():
    best = cm.control(BRACE, maximize="qdd.theta1", limits={"tau1": "-3:3"})
    assert best.mode == "SSS"
    only = cm.control(BRACE, maximize="qdd.theta1", limits={"tau1": "-3:3"}, modes=["FFF", "FFS"])
    assert only.mode == "FFF" and [a.mode for a in only.alternatives] == ["FFF", "FFS"]
    assert only.alternatives[1].status == "kinematically_infeasible"
    tip_fixed = cm.control(BRACE, maximize="qdd.theta1", limits={"tau1": "-3:3"}, modes={"tip": "F"})
    assert tip_fixed.alternatives and all(a.mode[1] == "F" for a in tip_fixed.alternatives)
    # a mode left out still counts as an alternative the model may predict: FFF's set is the same
    assert tip_fixed.mode == "FFF" and tip_fixed.torque.tolist() == pytest.approx(only.torque.tolist(), abs=1e-12)


# ---------------------------------------------------------------------------- the [control] table

CONTROL_TABLE = """
[control]
minimize = "tau.tau1"
modes = ["FFF", "SSS"]

[control.limits]
tau1 = "-2:2"
"""


def _with_table(tmp_path, table: str):
    path = tmp_path / "brace_control.toml"
    path.write_text(BRACE.read_text() + table)
    return path


def test_the_file_gives_defaults_and_arguments_override(tmp_path):
    from contactmodes.system_file.loader import load_system_file

    path = _with_table(tmp_path, CONTROL_TABLE)
    loaded = load_system_file(path)
    assert loaded.control.objective.sense == "minimize" and loaded.control.objective.tau.tolist() == [1.0]
    assert loaded.control.limits["tau1"] == TorqueLimit(-2.0, 2.0)
    assert loaded.control.modes.modes == ("FFF", "SSS")
    r = cm.control(path)
    assert (r.mode, r.objective_spec.text) == ("FFF", "tau.tau1") and r.torque.tolist() == pytest.approx([-2.0], abs=1e-12)
    over = cm.control(path, maximize="tau.tau1", limits={"tau1": "-1:1"}, modes="all")
    assert over.objective_spec.sense == "maximize" and over.torque.tolist() == pytest.approx([1.0], abs=1e-12)
    import tomllib

    validate(tomllib.loads(path.read_text()), "contactmodes.system/1")


@pytest.mark.parametrize("table, message", [
    ('[control]\nmaximize = "qdd.foo"\n', "control.maximize: unknown name 'qdd.foo' (coordinates: x, y, theta, theta1)"),
    ('[control]\nminimize = "tau.tau1*tau.tau1"\n', "control.minimize: nonlinear term 'tau.tau1*tau.tau1'"),
    ('[control]\nmaximize = "tau.tau1"\nminimize = "tau.tau1"\n', "control.minimize: give maximize or minimize"),
    ('[control]\nobjective = "tau.tau1"\n', "control.objective: unknown key (allowed: maximize, minimize, limits, modes, margin)"),
    ('[control]\nmaximize = "tau.tau1"\nmargin = -0.5\n', "control.margin: expected a finite torque >= 0 (system units), got -0.5"),
    ('[control]\nmaximize = "tau.tau1"\nmargin = "big"\n', "control.margin: expected a torque >= 0 (system units), got 'big'"),
    ('[control]\nmaximize = "tau.tau1"\nmargin = true\n', "control.margin: expected a finite torque >= 0"),
    ('[control.limits]\nknee = "0:1"\n', "control.limits.knee: unknown actuator (actuators: tau1)"),
    ('[control.limits]\ntau1 = "1:0"\n', "control.limits.tau1: needs LO <= HI"),
    ('[control]\nmodes = { toe = "F" }\n', "control.modes.toe: unknown contact"),
])
def test_table_errors_name_the_key(tmp_path, table, message):
    from contactmodes.system_file.loader import load_system_file

    with pytest.raises(SystemFileError) as info:
        load_system_file(_with_table(tmp_path, table))
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_no_objective_anywhere():
    with pytest.raises(ContactModelError, match=r"^control.maximize: no objective"):
        cm.control(BRACE)
    with pytest.raises(ContactModelError, match=r"^control.minimize: give maximize or minimize, not both"):
        cm.control(BRACE, maximize="tau.tau1", minimize="tau.tau1")


def test_task_dropped_is_the_search_without_the_task(tmp_path):
    """RHex's body must keep 500 N on the ground: no torque of the ±5 N·m box does it in any
    mode, so the search runs without the task row — the answer of ``task=False`` on the
    original file (whose only task row is that one)."""
    rhex = EXAMPLES / "rhex_flip_start.toml"
    text = rhex.read_text()
    assert text.count("value = 5.0") == 1
    path = tmp_path / "rhex_500N.toml"
    path.write_text(text.replace("value = 5.0", "value = 500.0"))
    box = {k: "-5:5" for k in ("tau1", "tau2", "tau3")}
    dropped = cm.control(path, maximize="qdd.theta", limits=box)
    untasked = cm.control(rhex, maximize="qdd.theta", limits=box, task=False)
    assert dropped.status == "task_dropped" and dropped.task is False and untasked.status == "optimal"
    assert dropped.mode == untasked.mode and dropped.unambiguous
    assert dropped.torque.tolist() == pytest.approx(untasked.torque.tolist(), abs=1e-9)
    assert dropped.supremum == pytest.approx(untasked.supremum, abs=1e-9)


def test_a_files_torque_speed_line_uses_its_state(tmp_path):
    """The brace file is at rest (ω = 0): its line caps |τ1| at tau_max = 2 N·m, inside the box
    [−3, 3]; θ̈1 grows with τ1 in the separating mode, so the best torque is 2."""
    path = _with_table(tmp_path, '[control]\nmaximize = "qdd.theta1"\n\n[control.limits]\n'
                                 'tau1 = { lo = -3, hi = 3, tau_max = 2, omega_0 = 4 }\n')
    r = cm.control(path)
    assert r.status == "optimal" and r.torque.tolist() == pytest.approx([2.0], abs=1e-12)
    assert r.to_json()["problem"]["limits"]["tau1"] == {"lo": -3.0, "hi": 3.0, "tau_max": 2.0, "omega_0": 4.0}
