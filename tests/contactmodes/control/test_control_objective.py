"""The objective parser (``contactmodes.control.objective``): names, coefficients, and one-line
errors that name the field and the term."""

from __future__ import annotations

import numpy as np
import pytest

from contactmodes.control.objective import LinearObjective, objective_for, parse_objective
from contactmodes.errors import ContactModelError

COORDS = ["x", "y", "theta", "hip-1"]
CONTACTS = ["tip", "base-2"]
ACTUATORS = ["hip1", "hip2", "hip-1"]


def parse(text, sense="maximize"):
    return parse_objective(text, COORDS, CONTACTS, ACTUATORS, sense)


@pytest.mark.parametrize("text, qdd, force, tau, constant", [
    ("qdd.theta", [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0], 0),
    ("tau.hip1 - tau.hip2", [0, 0, 0, 0], [0, 0, 0, 0], [1, -1, 0], 0),
    ("2*f.tip.n + 0.5 * qdd.x", [0.5, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0], 0),
    ("f.tip.t", [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0], 0),
    ("-f.base-2.t/4 + f.base-2.n*3", [0, 0, 0, 0], [0, 0, -0.25, 3], [0, 0, 0], 0),
    ("tau.hip-1", [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1], 0),   # the actuator named 'hip-1'
    ("qdd.hip-1 - 1", [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0], -1),
    ("tau.hip1-tau.hip2", [0, 0, 0, 0], [0, 0, 0, 0], [1, -1, 0], 0),
    ("qdd.x + qdd.x - 3*(qdd.x - tau.hip2)", [-1, 0, 0, 0], [0, 0, 0, 0], [0, 3, 0], 0),
    ("1.5e-3*qdd.y + 2", [0, 1.5e-3, 0, 0], [0, 0, 0, 0], [0, 0, 0], 2),
    ("(qdd.x)*(2)", [2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], 0),
])
def test_coefficients(text, qdd, force, tau, constant):
    obj = parse(text)
    assert obj.qdd.tolist() == qdd and obj.force.tolist() == force and obj.tau.tolist() == tau
    assert obj.constant == constant and obj.text == text and obj.sense == "maximize"


def test_sense_and_value():
    obj = parse("qdd.x + 2*tau.hip2", "minimize")
    assert obj.sense == "minimize" and obj.sign == -1.0 and not obj.is_zero
    assert obj.value([1, 0, 0, 0], np.zeros(4), [0, 3, 0]) == 7.0


def test_linear_objective_is_frozen_and_validated():
    obj = LinearObjective(np.zeros(2), np.zeros(2), np.ones(1))
    with pytest.raises(Exception):
        obj.sense = "minimize"
    with pytest.raises(ValueError):
        obj.tau[0] = 2.0
    with pytest.raises(ContactModelError, match="sense"):
        LinearObjective(np.zeros(2), np.zeros(2), np.ones(1), sense="max")
    with pytest.raises(ContactModelError, match="tau"):
        LinearObjective(np.zeros(2), np.zeros(2), [np.nan])
    with pytest.raises(ContactModelError, match=r"^qdd: coefficients must be at most 1e\+60"):
        LinearObjective(np.array([0.0, -1e61]), np.zeros(2), np.ones(1))
    with pytest.raises(ContactModelError, match=r"^constant: must be finite and at most 1e\+60"):
        LinearObjective(np.zeros(2), np.zeros(2), np.ones(1), constant=1e300)


@pytest.mark.parametrize("text, message", [
    ("qdd.foo", "control.maximize: unknown name 'qdd.foo' (coordinates: x, y, theta, hip-1)"),
    ("tau.knee", "control.maximize: unknown name 'tau.knee' (actuators: hip1, hip2, hip-1)"),
    ("f.toe.n", "control.maximize: unknown name 'f.toe' (contacts: tip, base-2)"),
    ("f.tip.x", "control.maximize: unknown name 'f.tip.x' (a contact force is f.tip.t or f.tip.n)"),
    ("f.tip", "control.maximize: unknown name 'f.tip' (a contact force is f.tip.t or f.tip.n)"),
    ("v.x", "control.maximize: unknown name 'v.x' (names are qdd.<coordinate>"),
    ("qdd", "control.maximize: unknown name 'qdd' (names are"),
    ("tau.hip1*tau.hip2", "control.maximize: nonlinear term 'tau.hip1*tau.hip2'"),
    ("2*qdd.x * qdd.y + 1", "control.maximize: nonlinear term '2*qdd.x * qdd.y'"),
    ("qdd.x/qdd.y", "control.maximize: nonlinear term 'qdd.x/qdd.y'"),
    ("(qdd.x + 1)*(qdd.y - 1)", "control.maximize: nonlinear term '(qdd.x + 1)*(qdd.y - 1)'"),
    ("qdd.x**2", "control.maximize: unsupported operator"),
    ("qdd.x / 0", "control.maximize: division by zero"),
    ("", "control.maximize: empty objective"),
    ("qdd.x +", "control.maximize: incomplete expression"),
    ("(qdd.x", "control.maximize: missing ')'"),
    ("2qdd.x", "control.maximize: unexpected"),
    ("__import__('os')", "control.maximize: unknown name '__import__'"),
    ("qdd.x; tau.hip1", "control.maximize: unexpected"),
    ("1e308*qdd.x", "control.maximize: the coefficient 1e+308 of qdd.x exceeds 1e+60 in magnitude"),
    ("1e30*f.base-2.n*1e31", "control.maximize: the coefficient 1e+61 of f.base-2.n exceeds 1e+60"),
    ("tau.hip-1 - 1e61", "control.maximize: the constant -1e+61 exceeds 1e+60"),
    ("1e200*1e200*qdd.x", "control.maximize: a coefficient is not finite"),
])
def test_errors_name_the_field_and_the_term(text, message):
    with pytest.raises(ContactModelError) as info:
        parse(text)
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_where_names_the_field():
    with pytest.raises(ContactModelError, match=r"^--minimize: unknown name 'qdd.z'"):
        parse_objective("qdd.z", COORDS, CONTACTS, ACTUATORS, "minimize", where="--minimize")
    with pytest.raises(ContactModelError, match=r"^sense: must be one of maximize, minimize"):
        parse_objective("qdd.x", COORDS, CONTACTS, ACTUATORS, "max")
    with pytest.raises(ContactModelError, match=r"^control.maximize: must be a string"):
        parse_objective(3, COORDS, CONTACTS, ACTUATORS)


def test_names_of_a_system_file():
    import contactmodes as cm
    from _support.paths import EXAMPLES

    system = cm.load_system(EXAMPLES / "two_link_brace.toml")
    obj = objective_for(system, "qdd.theta1 + f.joint.n - tau.tau1")
    assert obj.qdd.tolist() == [0, 0, 0, 1]
    assert obj.force.tolist() == [0, 0, 0, 0, 0, 1]       # (t, n) of base, tip, joint
    assert obj.tau.tolist() == [-1]
