"""The plastic impact of spatial systems (issue 40, items 1 and 4): ``cm.impact`` reads the rows of
the system's contact model (``SpatialPointContact``: letters ``S``, ``F``, sides ``a..``,
vertices ``A B C E ..`` on the post-impact velocity and the impulse).

The oracles are written here, independently of the code under test:

* closed forms: the box (``examples/spatial/box.urdf``, 0.4 × 0.3 × 0.1 m, 1.2 kg) landing flat on
  its four corners stops (``q̇⁺ = 0``) iff the tangential impulse needed, ``m |v_t|``, fits the
  friction square, ``μ m |v_z| r(ψ)`` (``r(ψ) = 1 / max(|cos ψ|, |sin ψ|)``, the circumscribed
  square's radial function, written by hand), and otherwise slides without turning at ``v_t + μ
  |v_z| p`` with ``p`` the point of the square whose normal cone holds ``−v⁺_t``; a box landing on
  one corner changes its velocity by ``K P`` with ``K = I/m − [r]× I_w⁻¹ [r]×`` (Newton–Euler by
  hand, no Pinocchio);
* a per-outcome LP (SciPy/HiGHS): the rows of every letter written out below (``_impact_rows``)
  from the maximum-dissipation rule, with the impulse balance ``M (q̇⁺ − q̇⁻) = Jᵀ P``;
* the rocking block of the thesis (``examples/impact/rocking_block.toml``) written in 3-D gives the
  planar outcomes and velocities, with and without pseudo-impulse;
* the same impact in millimetres and grams.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import linprog

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.errors import ContactModelError  # noqa: E402
from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.system import CharacteristicScales, ContactSystem  # noqa: E402
from contactmodes.modes.spatial_contact import SpatialPointContact  # noqa: E402

from _support.paths import EXAMPLES, ROOT  # noqa: E402
from _support.robots import BOX_URDF  # noqa: E402

MASS = 1.2
INERTIA = np.diag([0.01, 0.017, 0.025])  # the URDF's, kg m²
HALF = np.array([0.2, 0.15, 0.05])
CORNERS = {"c1": (0.2, 0.15), "c2": (-0.2, 0.15), "c3": (-0.2, -0.15), "c4": (0.2, -0.15)}
SQUARE_IMPACT = "SFabcdABCE"
SLACK_BAND = 1e-7


def _rotation(rpy) -> np.ndarray:
    r, p, y = rpy
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


def _quaternion(R: np.ndarray) -> np.ndarray:
    w = math.sqrt(max(0.0, 1.0 + np.trace(R))) / 2.0
    return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])


def box_system(qdot, rpy=(0.0, 0.0, 0.0), names=("c1", "c2", "c3", "c4"), mu=0.5) -> ContactSystem:
    """The example box, turned by ``rpy``, its listed bottom corners on the floor ``z = 0`` (the
    first of them at the origin), ``t1 = x``; ``qdot`` its world linear and angular velocity."""
    R = _rotation(rpy)
    first = np.array([*CORNERS[names[0]], -0.05])
    centre = -R @ first
    box = SpatialMechanism(BOX_URDF, base="floating", name="box")
    for name in names:
        corner = np.array([*CORNERS[name], -0.05])
        point = centre + R @ corner
        box.add_contact(name, "box", tuple(corner), (point[0], point[1], 0.0), (0.0, 0.0, 1.0), mu,
                        tangent=(1.0, 0.0, 0.0))
    q = np.concatenate([centre, _quaternion(R)])
    return box.contact_system(q, np.asarray(qdot, dtype=float))


def _consistent(result):
    return {o.mode: o for o in result.outcomes if o.consistent}


# ----------------------------------------------------------------------------- the model's rows


def test_impact_rows_are_the_letters_rows_with_every_velocity_row():
    """In scope, every letter's impact rows are its acceleration rows at rest (the post-impact
    velocity is the unknown); out of scope only S, without velocity row; D is no outcome; a
    frictionless contact keeps by its normal row alone and is named after its speed."""
    model = SpatialPointContact(4)
    assert model.impact_letters(True, False) == SQUARE_IMPACT
    assert (model.impact_letters(False, False), model.impact_letters(True, True)) == ("S", "SF")
    for letter in SQUARE_IMPACT:
        assert model.impact_rows(letter, 0.5, True) == model.rows(letter, 0.5, True, True)
    # side c (outward normal −t1): P_t1 = −μ P_n, v⁺_t2 = 0, v⁺_t1 >= 0
    side = model.impact_rows("c", 0.5, True)
    assert side.force_eq == ((-1.0, 0.0, -0.5),) and side.accel_eq == (2,)
    assert side.accel_eq_dirs == ((0.0, -1.0, 0.0),) and side.accel_geq_dirs == ((1.0, 0.0, 0.0),)
    out = model.impact_rows("S", 0.5, False)
    assert out.accel_geq == () and set(out.force_eq) == {(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)}
    with pytest.raises(ContactModelError, match="^impact letter: .*got 'D'$"):
        model.impact_rows("D", 0.5, True)
    with pytest.raises(ContactModelError, match="^impact letter: a separating contact is 'S', got 'F'$"):
        model.impact_rows("F", 0.5, False)
    normal = model.normal_row_rows()
    assert (normal.accel_eq, normal.force_eq, normal.force_geq) == (
        (2,), ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), ((0.0, 0.0, 1.0),))
    assert all(model.impact_rows(c, 0.0, True) == normal for c in "FaA")
    assert model.frictionless_letter((0.3, 0.4, 0.0), 0.49) == "D"
    assert model.frictionless_letter((0.3, 0.4, 0.0), 0.5) == "F"
    assert model.impact_guarded_letters == "F"


# ----------------------------------------------------------------------------- closed forms


def _radius(psi: float) -> float:
    """The circumscribed square's radial function (sides normal to ±t1, ±t2), by hand."""
    return 1.0 / max(abs(math.cos(psi)), abs(math.sin(psi)))


def test_the_box_landing_flat_slides_on_side_c_as_the_closed_form_says():
    """``examples/spatial/box_flat_landing.toml``: v⁻ = (0.3, 0.2, −0.5) m/s, μ = 0.5. The
    impulse needed to stop, m (−0.3, −0.2), exceeds μ m 0.5 r(ψ) = 0.3 m · 1.20: no sticking.
    Sliding on every corner with one force point p (units μ P_n): v⁺_t = v⁻_t + μ |v_z| p with
    −v⁺_t in p's normal cone: p = (−1, −0.8) on side c (normal −t1) gives v⁺_t = (0.05, 0) ✓.
    Every consistent outcome has that velocity, no rotation, and loses ½ m (|v⁻|² − |v⁺|²)."""
    result = cm.impact(EXAMPLES / "spatial" / "box_flat_landing.toml")
    vt, vz, mu = np.array([0.3, 0.2]), 0.5, 0.5
    assert np.linalg.norm(vt) > mu * vz * _radius(math.atan2(-0.2, -0.3))
    found = _consistent(result)
    assert "FFFF" not in found and "cccc" in found
    assert result.outcome("FFFF").consistent is False
    want = np.array([0.05, 0.0, 0.0, 0.0, 0.0, 0.0])
    for mode, o in found.items():
        assert set(mode) <= set("cBCS"), mode  # side c or its two end vertices, or released
        np.testing.assert_allclose(o.qdot_plus, want, atol=1e-9, err_msg=mode)
        assert o.energy_loss == pytest.approx(0.5 * MASS * (0.3 ** 2 + 0.2 ** 2 + 0.5 ** 2 - 0.05 ** 2), rel=1e-9)
        P = o.impulse.reshape(4, 3)
        np.testing.assert_allclose(P.sum(axis=0), MASS * (want[:3] - [0.3, 0.2, -0.5]), atol=1e-9)
    assert result.distinct_velocities() == 1
    assert "cccc: q̇⁺ [x=0.05, y=0, z=0, wx=0, wy=0, wz=0]" in result.format_text()


@pytest.mark.parametrize("psi, factor", [
    (math.radians(200.0), 0.95),
    pytest.param(math.radians(200.0), 1.05, marks=pytest.mark.slow),  # 10^4 outcomes each: a few s
    pytest.param(math.radians(30.0), 0.95, marks=pytest.mark.slow),
])
def test_the_box_landing_flat_sticks_iff_the_impulse_fits_the_square(psi, factor):
    """Four corners, v⁻_t = s (cos ψ, sin ψ), v_z = −0.5, μ = 0.5: all four stick (the box
    stops: four corners at rest fix the body) iff s <= μ 0.5 r(ψ + π) (the needed impulse's
    direction); the centre of pressure c v_t / v_z stays inside the rectangle, so nothing else
    binds. Above, FFFF is inconsistent and every outcome slides."""
    s = factor * 0.5 * 0.5 * _radius(psi + math.pi)
    v = [s * math.cos(psi), s * math.sin(psi), -0.5, 0.0, 0.0, 0.0]
    result = cm.impact(box_system(v), qdot=v)
    found = _consistent(result)
    assert ("FFFF" in found) == (factor < 1.0)
    assert found
    for mode, o in found.items():
        if factor < 1.0:
            np.testing.assert_allclose(o.qdot_plus, np.zeros(6), atol=1e-9, err_msg=mode)
        else:
            assert abs(o.qdot_plus[2]) < 1e-9 and np.linalg.norm(o.qdot_plus[:2]) > 1e-3


def _corner_hand(v_minus, rpy, corner, mu, letter):
    """One corner's impact by Newton–Euler: ``Δv_c = K P``, ``K = I/m − [r]× I_w⁻¹ [r]×``;
    ``F`` frictionless-kept (``P = P_n e_z``) or side ``c`` (``P = P_n (−μ, μ s, 1)``,
    ``v⁺_t2 = 0``). Returns (q̇⁺, P, s)."""
    R = _rotation(rpy)
    r = R @ np.array([*corner, -0.05])
    Iw_inv = R @ np.linalg.inv(INERTIA) @ R.T
    cross = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
    K = np.eye(3) / MASS - cross @ Iw_inv @ cross
    v_lin, w = np.asarray(v_minus[:3], float), np.asarray(v_minus[3:], float)
    vc = v_lin + np.cross(w, r)
    if letter == "D":
        Pn = -vc[2] / K[2, 2]
        P, s = np.array([0.0, 0.0, Pn]), None
    else:  # P = Pn (−μ, 0, 1) + (Pn s μ) e_2: two unknowns (Pn, u = Pn s), v⁺_n = v⁺_t2 = 0
        base, side = K @ np.array([-mu, 0.0, 1.0]), K @ np.array([0.0, mu, 0.0])
        Pn, u = np.linalg.solve(np.array([[base[2], side[2]], [base[1], side[1]]]), -vc[[2, 1]])
        P, s = np.array([-mu * Pn, mu * u, Pn]), u / Pn
    return np.concatenate([v_lin + P / MASS, w + Iw_inv @ np.cross(r, P)]), P, s


def test_the_box_landing_on_a_corner_matches_newton_euler():
    """``examples/spatial/box_corner_landing.toml`` (roll 0.2, pitch −0.3, corner (−0.2, −0.15,
    −0.05), v⁻ = (0.3, 0.1, −0.5), μ = 0.5): the one outcome is side ``c`` — its hand solution
    has the force on the side (|s| <= 1), the corner sliding along +t1 (v⁺_t1 > 0) — and the
    velocity and impulse are Newton–Euler's. Frictionless, the corner is kept by its normal row
    and, sliding on, reported ``D``."""
    rpy, corner, v = (0.2, -0.3, 0.0), CORNERS["c3"], [0.3, 0.1, -0.5, 0.0, 0.0, 0.0]
    result = cm.impact(EXAMPLES / "spatial" / "box_corner_landing.toml")
    assert result.consistent_modes == ["c"]
    qd, P, s = _corner_hand(v, rpy, corner, 0.5, "c")
    R = _rotation(rpy)
    v_corner = qd[:3] + np.cross(qd[3:], R @ np.array([*corner, -0.05]))
    assert abs(s) < 1.0 and v_corner[0] > 1e-3 and abs(v_corner[1]) < 1e-12 and abs(v_corner[2]) < 1e-12
    o = result.outcome("c")
    np.testing.assert_allclose(o.qdot_plus, qd, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(o.impulse, P, rtol=1e-9, atol=1e-12)
    frictionless = box_system(v, rpy, names=("c3",), mu=0.0)
    result0 = cm.impact(frictionless, qdot=v)
    assert result0.consistent_modes == ["D"]
    qd0, P0, _ = _corner_hand(v, rpy, corner, 0.0, "D")
    np.testing.assert_allclose(result0.outcome("D").qdot_plus, qd0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(result0.outcome("D").impulse, P0, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- the per-outcome LP


def _impact_rows(letter: str, mu: float):
    """The rows of one contact in ``letter`` for the circumscribed square at ``t1 = x``, over its
    post-impact velocity ``v = (v1, v2, vn)`` and impulse ``P = (P1, P2, Pn)``, by the
    maximum-dissipation rule (module docstring): ``(eq, geq)`` lists of ``(cv, cp)`` pairs,
    ``cv·v + cp·P = 0`` and ``>= 0``."""
    z = (0.0, 0.0, 0.0)
    V = lambda *c: (c, z)  # noqa: E731
    Pr = lambda *c: (z, c)  # noqa: E731
    cone = [Pr(-1, 0, mu), Pr(0, -1, mu), Pr(1, 0, mu), Pr(0, 1, mu)]  # μ P_n ∓ P_1, μ P_n ∓ P_2 >= 0
    if letter == "S":
        return [Pr(1, 0, 0), Pr(0, 1, 0), Pr(0, 0, 1)], [V(0, 0, 1)]
    if letter == "F":
        return [V(1, 0, 0), V(0, 1, 0), V(0, 0, 1)], cone + [Pr(0, 0, 1)]
    sides = {"a": (1, 0), "b": (0, 1), "c": (-1, 0), "d": (0, -1)}
    if letter in sides:  # P on the side, v_t = −λ n_j
        c, s = sides[letter]
        j = "abcd".index(letter)
        return ([V(0, 0, 1), Pr(c, s, -mu), V(-s, c, 0)],
                [V(-c, -s, 0)] + [r for i, r in enumerate(cone) if i != j] + [Pr(0, 0, 1)])
    s1, s2 = {"A": (1, 1), "B": (-1, 1), "C": (-1, -1), "E": (1, -1)}[letter]  # P at the corner
    return [V(0, 0, 1), Pr(1, 0, -s1 * mu), Pr(0, 1, -s2 * mu)], [V(-s1, 0, 0), V(0, -s2, 0), Pr(0, 0, 1)]


def oracle_slack(system: ContactSystem, qdot, outcome: str) -> float:
    """The largest common slack (capped at 1) of ``outcome``'s inequalities under its equalities
    and ``M (q̇⁺ − q̇⁻) = Jᵀ P``: ``> 0`` consistent with room, ``< 0`` (or ``-inf``) not."""
    n, k = system.n_q, system.k
    width = n + 3 * k
    E, e, G = [np.hstack([system.M, -system.J.T])], list(system.M @ np.asarray(qdot, float)), []
    E = [row for row in E[0]]
    for i, letter in enumerate(outcome):
        Ji = system.J[3 * i:3 * i + 3]
        eq, geq = _impact_rows(letter, float(system.mu[i]))
        for target, rows in ((E, eq), (G, geq)):
            for cv, cp in rows:
                x = np.zeros(width)
                x[:n] = np.asarray(cv, float) @ Ji
                x[n + 3 * i:n + 3 * i + 3] = cp
                target.append(x)
                if target is E:
                    e.append(0.0)
    A_eq, b_eq, rows = np.array(E), np.array(e), np.array(G).reshape(-1, width)
    cost = np.zeros(width + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=np.hstack([-rows, np.ones((rows.shape[0], 1))]), b_ub=np.zeros(rows.shape[0]),
                  A_eq=np.hstack([A_eq, np.zeros((A_eq.shape[0], 1))]), b_eq=b_eq,
                  bounds=[(None, None)] * width + [(None, 1.0)], method="highs")
    if res.status == 2:
        return -math.inf
    assert res.status == 0, res.message
    return -res.fun


@pytest.mark.parametrize("rpy, names, v", [
    ((0.2, -0.3, 0.0), ("c3",), [0.3, 0.1, -0.5, 0.0, 0.0, 0.0]),              # one corner
    ((0.25, 0.0, 0.0), ("c3", "c4"), [0.2, -0.1, -0.4, 0.5, 0.3, -0.4]),      # an edge: two corners
    ((0.25, 0.0, 0.0), ("c3", "c4"), [0.05, 0.02, -0.4, 0.1, 0.0, 0.05]),     # an edge, slowly sideways
])
def test_every_outcome_is_consistent_as_the_per_letter_lp_says(rpy, names, v):
    system = box_system(v, rpy, names)
    result = cm.impact(system, qdot=v)
    assert [o.mode for o in result.outcomes] == ["".join(p) for p in itertools.product(SQUARE_IMPACT, repeat=len(names))]
    compared = {True: 0, False: 0}
    for o in result.outcomes:
        slack = oracle_slack(system, v, o.mode)
        if abs(slack) <= SLACK_BAND:
            continue
        assert o.consistent == (slack > 0), (o.mode, slack)
        compared[slack > 0] += 1
    assert compared[True] >= 1 and compared[False] >= len(result.outcomes) // 2, compared


# ----------------------------------------------------------------------------- the plane in 3-D

BLOCK_URDF = """<?xml version="1.0"?>
<robot name="block">
  <link name="block">
    <inertial><origin xyz="0 0 0"/><mass value="5.0"/>
      <inertia ixx="0.004333333333333333" ixy="0" ixz="0" iyy="0.005208333333333333" iyz="0"
               izz="0.0012083333333333333"/></inertial>
  </link>
</robot>
"""


def test_the_rocking_block_in_space_has_the_planar_outcomes(tmp_path):
    """The thesis's rocking block (``examples/impact/rocking_block.toml``: 5 cm × 10 cm, 5 kg,
    I = 0.0052083 kg m²) in the plane x–z of a 3-D world (a 2 cm thick box, iyy = I; planar θ about
    −y; t1 = x, the planar t): the planar letters map to F → F, L → a (P_t1 = μ P_n), R → c,
    S → S; the spatial outcomes with in-plane letters are consistent exactly when the planar ones
    are, and every consistent spatial outcome moves in the plane with a planar outcome's q̇⁺.
    With the pseudo-impulse (0.03 s) the block comes to rest, FF, as in the plane."""
    path = tmp_path / "block.urdf"
    path.write_text(BLOCK_URDF)
    block = SpatialMechanism(path, base="floating", name="block")
    for name, x in (("left", -0.025), ("right", 0.025)):
        block.add_contact(name, "block", (x, 0.0, -0.05), (x, 0.0, 0.0), (0.0, 0.0, 1.0), 1.0, tangent=(1.0, 0.0, 0.0))
    q = np.array([0.0, 0.0, 0.05, 1.0, 0.0, 0.0, 0.0])
    v = np.array([0.1, 0.0, -0.05, 0.0, 2.0, 0.0])  # planar (ẋ, ẏ, θ̇) = (0.1, −0.05, −2)
    spatial = block.contact_system(q, v)
    planar = cm.impact(EXAMPLES / "impact" / "rocking_block.toml")
    result = cm.impact(spatial, qdot=v)
    to_3d = lambda qd: np.array([qd[0], 0.0, qd[1], 0.0, -qd[2], 0.0])  # noqa: E731
    letter = {"F": "F", "L": "a", "R": "c", "S": "S"}
    planar_ok = {o.mode: o for o in planar.outcomes if o.consistent}
    assert list(planar_ok) == ["SF"]
    for o in planar.outcomes:
        assert result.outcome("".join(letter[c] for c in o.mode)).consistent == o.consistent, o.mode
    velocities = [to_3d(o.qdot_plus) for o in planar_ok.values()]
    for o in result.outcomes:
        if o.consistent:
            assert any(np.allclose(o.qdot_plus, w, atol=1e-9) for w in velocities), (o.mode, o.qdot_plus)
    np.testing.assert_allclose(result.outcome("SF").qdot_plus, to_3d(planar_ok["SF"].qdot_plus), atol=1e-12)
    # the pseudo-impulse: h(q, 0) of the block at rest; FF in the plane and in space
    h_rest = block.contact_system(q, np.zeros(6)).h
    planar_p = cm.impact(EXAMPLES / "impact" / "rocking_block.toml", pseudo_impulse=0.03)
    spatial_p = cm.impact(spatial, qdot=v, pseudo_impulse=0.03, h_rest=h_rest)
    assert planar_p.consistent_modes == ["FF"] and "FF" in spatial_p.consistent_modes
    for o in planar_p.outcomes:
        assert spatial_p.outcome("".join(letter[c] for c in o.mode)).consistent == o.consistent, o.mode
    np.testing.assert_allclose(spatial_p.outcome("FF").qdot_plus, np.zeros(6), atol=1e-12)


# ----------------------------------------------------------------------------- units


def test_the_corner_landing_in_millimetres_and_grams_has_the_same_outcomes():
    """q_new = D q (linear coordinates in mm, angles in rad): M_new = 1e9 D⁻¹ M D⁻¹ (g mm²), h
    likewise, J_new = 1e3 J D⁻¹; impulses in g mm/s (×1e6)."""
    v = [0.2, -0.1, -0.4, 0.5, 0.3, -0.4]
    si = box_system(v, (0.25, 0.0, 0.0), ("c3", "c4"))
    D = np.diag([1e3, 1e3, 1e3, 1.0, 1.0, 1.0])
    Di = np.linalg.inv(D)
    mm = ContactSystem(M=1e9 * Di @ si.M @ Di, h=1e9 * Di @ si.h, S=si.S, J=1e3 * si.J @ Di,
                       Jdot_qdot=1e3 * si.Jdot_qdot, v_contact=1e3 * si.v_contact, mu=si.mu,
                       coordinates=si.coordinates, torques=si.torques, contacts=si.contacts, v0=1e3 * si.v0,
                       scales=CharacteristicScales(si.scales.length * 1e3, si.scales.mass * 1e3, si.scales.time),
                       contact_model=si.contact_model)
    a, b = cm.impact(si, qdot=v), cm.impact(mm, qdot=D @ v)
    assert a.consistent_modes == b.consistent_modes and len(a.consistent_modes) >= 1
    for mode in a.consistent_modes:
        x, y = a.outcome(mode), b.outcome(mode)
        np.testing.assert_allclose(D @ x.qdot_plus, y.qdot_plus, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(1e9 * x.energy_loss, y.energy_loss, rtol=1e-7)
        if not x.impulse_ambiguous:
            np.testing.assert_allclose(1e6 * x.impulse, y.impulse, rtol=1e-7, atol=1e-6)


# ----------------------------------------------------------------------------- front doors


def test_spatial_impact_json_validates_and_the_cli_prints_the_components(tmp_path):
    from contactmodes.schemas import DocumentError, validate

    path = EXAMPLES / "spatial" / "box_corner_landing.toml"
    doc = json.loads(json.dumps(cm.impact(path).to_json()))
    validate(doc, "contactmodes.impact/1")
    assert doc["components"] == ["t1", "t2", "n"] and doc["letters"] == "SFabcdABCED"
    assert doc["consistent_modes"] == ["c"] and set(doc["outcomes"][4]["impulse"][0]) == {"contact", "t1", "t2", "n"}
    bad = json.loads(json.dumps(doc))
    bad["outcomes"][4]["impulse"] = [{"contact": "corner", "t": 0.0, "n": 1.0}]
    with pytest.raises(DocumentError):
        validate(bad, "contactmodes.impact/1")
    planar = json.loads(json.dumps(cm.impact(EXAMPLES / "impact" / "rocking_block.toml").to_json()))
    assert "letters" not in planar and "components" not in planar
    planar["consistent_modes"] = ["Sc"]  # a spatial letter in a planar document
    with pytest.raises(DocumentError, match="consistent_modes"):
        validate(planar, "contactmodes.impact/1")
    cli = [sys.executable, "-m", "contactmodes"]
    text = subprocess.run([*cli, "impact", str(path)], capture_output=True, text=True, cwd=ROOT)
    assert text.returncode == 0, text.stderr
    assert "impulse (t1, t2, n) [corner=(" in text.stdout and "\n  c: q̇⁺ [x=" in text.stdout
    out = tmp_path / "after.json"
    run = subprocess.run([*cli, "analyze", str(path), "--impact", "--json", "--output", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    after = json.loads(out.read_text())
    validate(after, "contactmodes.impact/1")
    post = after["outcomes"][4]["post_impact"]
    assert post["system"]["letters"] == "SFabcdABCED"
    # after the impact the corner slides on (D) or leaves (S): Table III of the post-impact state
    assert post["enumeration"]["allowed"] == ["SD"]


def test_a_model_without_impact_rows_is_refused_in_one_line():
    v = [0.3, 0.1, -0.5, 0.0, 0.0, 0.0]
    system = box_system(v, (0.2, -0.3, 0.0), ("c3",))
    bare = ContactSystem(M=system.M, h=system.h, S=system.S, J=system.J, Jdot_qdot=system.Jdot_qdot,
                              v_contact=system.v_contact, mu=system.mu, coordinates=system.coordinates,
                              torques=system.torques, contacts=system.contacts, contact_model=_Bare())
    with pytest.raises(ContactModelError, match=r"^impact: the contact model _Bare has no impact rows \(missing "):
        cm.impact(bare, qdot=v)


class _Bare:
    """A spatial model with the analysis's members only (no impact law)."""

    components = ("t1", "t2", "n")
    letters = "SF"
    kept_letters = "F"

    def rows(self, *args):
        return SpatialPointContact(4).rows(*args)

    def velocity_class(self, v, eps):
        return SpatialPointContact(4).velocity_class(v, eps)

    def relaxed_rows(self, allowed, n_zero):
        return SpatialPointContact(4).relaxed_rows(allowed, n_zero)
