"""A stance's contact wrench as analysis outputs, against the contact wrench cone written by hand.

Solo-12 standing (every joint actuated, no limits): in ``FFFF`` every foot force in the friction
polygon is reached by some torque (each leg's 3×3 foot Jacobian is nonsingular), so ``Y_FFFF``
onto the net normal force ``F_z`` and the moment ``M_y`` about the centre of mass is the contact
wrench cone's projection: the wedge of the rays ``(1, s)`` with ``s = (p_z − c_z) u − (p_x − c_x)``
over the feet and the polygon's extent ``u ∈ [−h(−t1), h(t1)]`` along ``t1 = x`` (its support
function ``h``, from the polygon's vertices by hand). The centre of mass is Pinocchio's; the
outputs are the objective language's (``docs/spatial.md``, "A stance's contact wrench").
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import contactmodes as cm
from _support.paths import ROOT
from contactmodes.modes.spatial_contact import SpatialPointContact
from contactmodes.system_file.loader import load_system_file

pin = pytest.importorskip("pinocchio")

SOLO = ROOT / "examples" / "spatial" / "solo12_standing.toml"


def _support(sides: int, polygon: str, mu: float, direction: float) -> float:
    """The polygon's support in the in-plane direction at angle ``direction`` (rad from ``t1``),
    from its vertices: circumscribed, side ``j``'s normal at ``2πj/n`` at distance ``μ``, so the
    vertices lie between the sides, at ``2πj/n + π/n`` and radius ``μ/cos(π/n)``; inscribed, the
    vertices at ``2πj/n`` on the circle of radius ``μ`` (the first along ``t1``)."""
    if polygon == "circumscribed":
        angles = [2 * math.pi * j / sides + math.pi / sides for j in range(sides)]
        radius = mu / math.cos(math.pi / sides)
    else:
        angles = [2 * math.pi * j / sides for j in range(sides)]
        radius = mu
    return max(radius * math.cos(a - direction) for a in angles)


def _inside(Y, y: np.ndarray, tol: float) -> bool:
    return bool(np.all(Y.A @ y <= Y.b + tol * np.linalg.norm(Y.A, axis=1) * max(1.0, float(np.abs(y).max()))))


@pytest.mark.parametrize("sides, polygon", [(4, "circumscribed"), (3, "circumscribed"), (6, "inscribed")])
def test_the_stance_wrench_is_the_contact_wrench_cone(sides, polygon):
    solo = load_system_file(SOLO)
    mech = solo.mechanism
    system = mech.contact_system(solo.q, solo.qdot, contact_model=SpatialPointContact(sides, polygon))
    feet = mech.contact_positions(solo.q)
    model = mech.pinocchio_model
    c = pin.centerOfMass(model, model.createData(), mech.pinocchio_state(solo.q, solo.qdot)[0])
    mu = float(solo.mu[0])
    names = mech.contact_names
    Fz = " + ".join(f"f.{n}.n" for n in names)
    My = " + ".join(f"{float(p[2] - c[2])!r}*f.{n}.t1 + {float(c[0] - p[0])!r}*f.{n}.n" for n, p in zip(names, feet))
    Y = cm.analyze(system, modes=["FFFF"], outputs=[Fz, My], compute_overlaps=False).outputs["FFFF"].set
    assert Y is not None

    u_hi, u_lo = _support(sides, polygon, mu, 0.0), -_support(sides, polygon, mu, math.pi)
    slopes = [(p[2] - c[2]) * u - (p[0] - c[0]) for p in feet for u in (u_lo, u_hi)]
    s_min, s_max = min(slopes), max(slopes)
    assert s_min < 0.0 < s_max
    tol = 1e-7
    for s in (s_min, s_max):  # the wedge's edges are in Y, and Y ends there
        assert _inside(Y, np.array([1.0, s]), tol)
        assert _inside(Y, np.array([50.0, 50.0 * s]), tol)
    assert not _inside(Y, np.array([1.0, s_max + 1e-4]), tol)
    assert not _inside(Y, np.array([1.0, s_min - 1e-4]), tol)
    assert not _inside(Y, np.array([-1e-3, 0.0]), tol)  # no pulling on the floor
    assert _inside(Y, np.array([0.0, 0.0]), tol)


def test_another_stance_gives_its_own_wedge():
    """``FFSS`` (the hind feet lifting): only the front feet push, so the wedge is theirs."""
    solo = load_system_file(SOLO)
    mech = solo.mechanism
    feet = mech.contact_positions(solo.q)
    model = mech.pinocchio_model
    c = pin.centerOfMass(model, model.createData(), mech.pinocchio_state(solo.q, solo.qdot)[0])
    mu = float(solo.mu[0])
    names = mech.contact_names
    assert names[:2] == ("FL", "FR")
    Fz = " + ".join(f"f.{n}.n" for n in names)
    My = " + ".join(f"{float(p[2] - c[2])!r}*f.{n}.t1 + {float(c[0] - p[0])!r}*f.{n}.n" for n, p in zip(names, feet))
    Y = cm.analyze(solo.system, modes=["FFSS"], outputs=[Fz, My], compute_overlaps=False).outputs["FFSS"].set
    assert Y is not None
    slopes = [(p[2] - c[2]) * u - (p[0] - c[0]) for p in feet[:2] for u in (-mu, mu)]
    for s in (min(slopes), max(slopes)):
        assert _inside(Y, np.array([1.0, s]), 1e-7)
    assert not _inside(Y, np.array([1.0, max(slopes) + 1e-4]), 1e-7)
    assert not _inside(Y, np.array([1.0, min(slopes) - 1e-4]), 1e-7)
