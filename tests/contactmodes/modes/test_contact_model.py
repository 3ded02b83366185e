"""The planar point contact (``contactmodes.modes.contact_model``): its rows against Tables I–II and
III of the flipping paper written out here, its impact rows (Johnson thesis Sec. 5.1.2), and the
one-implementation property: the analysis's constraints, the impact's equations and the closed
loop's prediction read their per-contact rows from it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_model import PLANAR_POINT

MU = 0.7


def table(letter, mu, t_zero, n_zero):
    """Tables I–II (eqs. 7–10), written from the paper: (accel_eq, accel_geq, force_eq, force_geq)
    as sets of (component, sign) / (a_t, a_n) with components t = 0, n = 1."""
    if letter == "F":
        return {0, 1}, set(), set(), {(-1.0, mu), (1.0, mu), (0.0, 1.0)}
    if letter == "S":
        return set(), ({(1, 1.0)} if n_zero else set()), {(1.0, 0.0), (0.0, 1.0)}, set()
    sign = -1.0 if letter == "L" else 1.0  # L slides towards -t: f_t = +mu f_n, -a_t >= 0
    return {1}, ({(0, sign)} if t_zero else set()), {(1.0, sign * mu)}, {(0.0, 1.0)}


@pytest.mark.parametrize("letter, t_zero, n_zero", list(itertools.product("FSLR", (False, True), (False, True))))
def test_rows_are_tables_i_and_ii(letter, t_zero, n_zero):
    r = PLANAR_POINT.rows(letter, MU, t_zero, n_zero)
    got = set(r.accel_eq), set(r.accel_geq), set(r.force_eq), set(r.force_geq)
    assert got == table(letter, MU, t_zero, n_zero)


def test_components_letters_and_table_iii():
    assert PLANAR_POINT.components == ("t", "n") and PLANAR_POINT.letters == "FSLR"
    assert PLANAR_POINT.kept_letters == "FLR"
    # Table III: a separating contact only S; sliding towards +t: S, R; towards -t: S, L; at rest all
    assert [PLANAR_POINT.allowed(False, s) for s in (-1, 0, 1)] == ["S"] * 3
    assert [PLANAR_POINT.allowed(True, s) for s in (-1, 0, 1)] == ["SL", "FSLR", "SR"]
    with pytest.raises(ContactModelError, match="mode letter"):
        PLANAR_POINT.rows("N", MU, True, True)


def test_impact_rows():
    """In scope every velocity row is present; a separating contact is S without one; a kept
    frictionless contact, and the release test's alternative, is the normal row alone: J_n v = 0,
    P_t = 0, P_n >= 0 (Table II's L at μ = 0 with the sliding direction free)."""
    for letter in "FSLR":
        assert PLANAR_POINT.impact_rows(letter, MU, True) == PLANAR_POINT.rows(letter, MU, True, True)
    out = PLANAR_POINT.impact_rows("S", MU, False)
    assert out.accel_geq == () and set(out.force_eq) == {(1.0, 0.0), (0.0, 1.0)}
    with pytest.raises(ContactModelError):
        PLANAR_POINT.impact_rows("F", MU, False)
    normal = PLANAR_POINT.normal_row_rows()
    assert normal.accel_eq == (1,) and normal.accel_geq == ()
    assert [tuple(map(abs, r)) for r in normal.force_eq] == [(1.0, 0.0)] and normal.force_geq == ((0.0, 1.0),)
    for letter in "FLR":
        assert PLANAR_POINT.impact_rows(letter, 0.0, True) == normal


def test_the_pipeline_reads_its_rows_from_the_model(monkeypatch):
    """Replacing the model's row function changes the analysis's equations (which the closed loop's
    prediction solves, ``contactmodes.modes.response.mode_qdd``) and the impact's equations alike
    (one implementation): with every letter's force inequalities dropped, the sticking mode of the
    point on the ground has no friction cone in either."""
    from contactmodes.impact.equations import ImpactData, outcome_equations
    from contactmodes.modes import contact_model
    from contactmodes.modes.constraints import mode_equations
    from _support.systems import point_on_ground

    original = contact_model._rows

    def no_cone(letter, mu, t_zero, n_zero):
        r = original(letter, mu, t_zero, n_zero)
        return contact_model.ContactRows(r.accel_eq, r.accel_geq, r.force_eq, ())

    system = point_on_ground()
    data = ImpactData(M=system.M, J=system.J, S=system.S, h_rest=None, qdot_minus=np.array([0.0, -1.0]),
                      mu=system.mu, in_scope=np.array([True]), touching=np.array([False]), contacts=system.contacts)
    before = (mode_equations(system, "F").N.shape[0], outcome_equations(data, "F").N.shape[0])
    monkeypatch.setattr(contact_model, "_rows", no_cone)
    after = (mode_equations(system, "F").N.shape[0], outcome_equations(data, "F").N.shape[0])
    assert before == (3, 3) and after == (0, 0)
