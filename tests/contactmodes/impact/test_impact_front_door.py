"""``contactmodes.impact``: the callable sub-package, its arguments and errors, the scope rule
(separating contacts keep ``S`` and carry nothing) and the passive systems it accepts."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import contactmodes as cm
from contactmodes.errors import ContactModelError
from contactmodes.model.system import ContactSystem
from contactmodes.system_file.loader import load_system_file

BLOCK = "examples/impact/rocking_block.toml"


def test_the_front_door_is_callable_however_it_was_reached():
    importlib.import_module("contactmodes.impact.outcomes")  # the package imported as a package
    assert callable(cm.impact)
    a = cm.impact(BLOCK)
    from contactmodes.impact.outcomes import impact

    b = impact(BLOCK)
    assert a.consistent_modes == b.consistent_modes == ["SF"]
    assert np.array_equal(a.outcome("SF").qdot_plus, b.outcome("SF").qdot_plus)


def test_a_system_needs_its_velocity():
    loaded = load_system_file(BLOCK)
    with pytest.raises(ContactModelError, match="qdot"):
        cm.impact(loaded.system)
    with pytest.raises(ContactModelError, match="qdot"):
        cm.impact(loaded.system, qdot=np.zeros(3))  # not J q̇ of the system
    with pytest.raises(ContactModelError, match="qdot"):
        cm.impact(loaded.system, qdot=[1.0, 2.0])
    with pytest.raises(ContactModelError, match="h_rest"):
        cm.impact(loaded.system, qdot=loaded.qdot, pseudo_impulse=0.03)
    with pytest.raises(ContactModelError, match="pseudo_impulse"):
        cm.impact(BLOCK, pseudo_impulse=-1.0)
    with pytest.raises(ContactModelError, match="system"):
        cm.impact(42)
    result = cm.impact(loaded.system, qdot=loaded.qdot)
    assert result.consistent_modes == ["SF"] and result.source is None
    assert result.system.n_tau == 0  # passive: accepted


def test_separating_contacts_are_out_of_scope():
    """A point mass (x, y) landing on the floor (n = +y) while leaving a wall (n = +x) at speed:
    the wall keeps S with no impulse and no condition; the floor sticks (μ = 1 > |v_x/v_y|)."""
    J = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [1.0, 0.0]])  # floor (t = +x), wall (t = −y)
    qdot = np.array([0.5, -1.0])
    system = ContactSystem(M=2.0 * np.eye(2), h=[0.0, 19.62], S=np.zeros((2, 0)), J=J, Jdot_qdot=np.zeros(4),
                           v_contact=J @ qdot, mu=[1.0, 1.0], coordinates=["x", "y"], torques=[],
                           contacts=["floor", "wall"])
    result = cm.impact(system, qdot=qdot)
    assert [o.mode for o in result.outcomes] == ["FS", "SS", "LS", "RS"]
    assert result.consistent_modes == ["FS"]
    out = result.outcome("FS")
    assert np.allclose(out.qdot_plus, 0.0) and np.allclose(out.impulse, [-1.0, 2.0, 0.0, 0.0])
    assert result.to_json()["scope"] == {"approaching": ["floor"], "touching": [], "separating": ["wall"]}
    # friction too small to stop the sliding: it slides towards +t (R), P_t = −μ P_n
    low = ContactSystem(M=2.0 * np.eye(2), h=[0.0, 19.62], S=np.zeros((2, 0)), J=J, Jdot_qdot=np.zeros(4),
                        v_contact=J @ qdot, mu=[0.25, 1.0], coordinates=["x", "y"], torques=[],
                        contacts=["floor", "wall"])
    slid = cm.impact(low, qdot=qdot)
    assert slid.consistent_modes == ["RS"]
    assert np.allclose(slid.outcome("RS").qdot_plus, [0.5 - 0.25 * 1.0, 0.0])  # Δv_x = −μ Δv_y


def test_an_ambiguous_velocity_is_an_affine_set():
    """A point mass (x, y) with a massless arm (angle φ) whose tip lands on a frictionless floor:
    the tip stops the mass vertically, and φ̇⁺ is not determined (the arm has no inertia), so the
    outcome's velocity is an affine set; every point of it keeps the tip on the floor (checked at
    the set's witness and Chebyshev centre), and the document validates."""
    from contactmodes.schemas import validate

    # coordinates (x, y, φ), tip = (x + L cos φ, y + L sin φ) at φ = −90°: tip velocity
    # (ẋ + L φ̇, ẏ) → tangential row (1, 0, L), normal row (0, 1, 0) for the floor.
    L = 0.5
    J = np.array([[1.0, 0.0, L], [0.0, 1.0, 0.0]])
    qdot = np.array([0.3, -1.0, 0.0])
    system = ContactSystem(M=np.diag([2.0, 2.0, 0.0]), h=[0.0, 19.62, 0.0], S=[[0.0], [0.0], [1.0]], J=J,
                           Jdot_qdot=np.zeros(2), v_contact=J @ qdot, mu=[0.0], coordinates=["x", "y", "phi"],
                           torques=["hip"], contacts=["tip"])
    result = cm.impact(system, qdot=qdot)
    doc = result.to_json()
    validate(doc)
    assert result.consistent_modes  # the point mass is stopped vertically through the massless arm
    for mode in result.consistent_modes:
        out = result.outcome(mode)
        assert out.qdot_plus[1] == pytest.approx(0.0, abs=1e-12) and out.qdot_plus[0] == pytest.approx(0.3)
        assert out.qdot_plus_set is not None  # φ̇⁺ is not determined: the arm has no inertia
        offset, directions, W = out.qdot_plus_set
        assert np.abs(directions[:2]).max() <= 1e-12  # the ambiguity moves φ̇ only
        for w in (W.witness(), W.chebyshev_center().center):
            v = J @ (offset + directions @ w)
            assert v[1] == pytest.approx(0.0, abs=1e-9)  # kept by its normal row
            if mode == "R":
                assert v[0] >= -1e-9
            elif mode == "L":
                assert v[0] <= 1e-9
