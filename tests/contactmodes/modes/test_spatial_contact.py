"""The spatial point contact (``contactmodes.modes.spatial_contact``) against oracles written here.

* Geometry: the polygon's normals from their definition, its vertices by intersecting adjacent
  side lines (``np.linalg.solve``), its radial function against a ray cast on the polygon's edges;
  the circumscribed polygon's radial error ``1/cos(π/n_f) − 1`` for every ``n_f``; the inscribed
  polygon inside the circle, touching it at its vertices.
* Maximum dissipation by brute force: for random tangential accelerations the letters' rows admit
  exactly one letter, and its force rows hold the minimizers of ``f_t · a_t`` over the polygon
  found by ``scipy.optimize.linprog``; along a side's normal the side letter and both adjacent
  vertex letters admit it, each with minimizing forces only.
* Closed forms (issue 40) on the example box (Pinocchio): on a plane tilted by ``α`` the box sticks
  (every contact ``F``, the LP over ``(q̈, f)`` built here from the rows) iff ``tan α <= μ r(ψ)``
  with ``ψ`` the uphill direction in the contact frame and ``r`` the ray-cast radius; sliding on a
  horizontal plane (``D`` with the slip direction) it decelerates at exactly ``μ g``.
* Bad input: one line naming the field.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_model import PLANAR_POINT, ContactRows
from contactmodes.modes.spatial_contact import (
    SpatialPointContact,
    polygon_normals,
    polygon_radius,
    polygon_vertices,
    spatial_point_contact,
)

MU = 0.7
KINDS = ("circumscribed", "inscribed")


# ----------------------------------------------------------------------------- the oracles


def normals_of(sides, kind):
    """Side normals and side distance from the definition (issue 40, the lead's decisions)."""
    offset = 0.0 if kind == "circumscribed" else -math.pi / sides
    theta = 2 * math.pi * np.arange(sides) / sides + offset
    rho = 1.0 if kind == "circumscribed" else math.cos(math.pi / sides)
    return np.stack([np.cos(theta), np.sin(theta)], axis=1), rho


def vertices_of(sides, kind):
    """Vertex j = the intersection of side lines j and j + 1: n · v = ρ for both."""
    nrm, rho = normals_of(sides, kind)
    return np.array([np.linalg.solve(np.stack([nrm[j], nrm[(j + 1) % sides]]), [rho, rho]) for j in range(sides)])


def ray_radius(psi, sides, kind):
    """The distance from the centre to the polygon's boundary along ``psi``: the ray cast on the
    edges between the vertices (edge j from vertex j − 1 to vertex j), solved per edge."""
    v = vertices_of(sides, kind)
    u = np.array([math.cos(psi), math.sin(psi)])
    hits = []
    for j in range(sides):
        a, b = v[j - 1], v[j]
        m = np.stack([u, a - b], axis=1)
        if abs(np.linalg.det(m)) < 1e-12:  # the ray parallel to the edge: it meets the neighbours
            continue
        t, s = np.linalg.solve(m, a)  # t u = a + s (b − a)
        if t > 0 and -1e-12 <= s <= 1 + 1e-12:
            hits.append(t)
    assert hits
    return min(hits)


def admits(rows, a, tol):
    """Whether the acceleration ``a`` (3,) satisfies the rows' acceleration part (``tol``: slack
    allowed, negative for strictness)."""
    return (all(abs(a[c]) <= max(tol, 0.0) for c in rows.accel_eq)
            and all(abs(np.dot(d, a)) <= max(tol, 0.0) for d in rows.accel_eq_dirs)
            and all(s * a[c] >= -tol for c, s in rows.accel_geq)
            and all(np.dot(d, a) >= -tol for d in rows.accel_geq_dirs))


def force_extreme(rows, a_t, mu, sense):
    """``sense`` (+1 max, −1 min) of ``f_t · a_t`` over the letter's force rows with ``f_n = 1``."""
    A_eq = [list(r) for r in rows.force_eq] + [[0.0, 0.0, 1.0]]
    b_eq = [0.0] * len(rows.force_eq) + [1.0]
    A_ub = [[-x for x in r] for r in rows.force_geq] or None
    b_ub = [0.0] * len(rows.force_geq) or None
    res = linprog(-sense * np.array([a_t[0], a_t[1], 0.0]), A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                  bounds=[(None, None)] * 3, method="highs")
    assert res.status == 0, res.message
    return float(np.dot(res.x[:2], a_t)), res.x


def polygon_min(a_t, sides, kind, mu):
    """``min f_t · a_t`` over the polygon ``n_j · f_t <= ρ μ`` (``f_n = 1``) and its minimizer."""
    nrm, rho = normals_of(sides, kind)
    res = linprog(a_t, A_ub=nrm, b_ub=np.full(sides, rho * mu), bounds=[(None, None)] * 2, method="highs")
    assert res.status == 0
    return float(res.fun), res.x


# ----------------------------------------------------------------------------- geometry


@pytest.mark.parametrize("sides, kind", list(itertools.product(range(3, 21), KINDS)))
def test_polygon_geometry(sides, kind):
    nrm, rho = normals_of(sides, kind)
    np.testing.assert_allclose(polygon_normals(sides, kind), nrm, atol=4e-15)  # np.cos(3π/2) is 1.07e-15 off 0
    np.testing.assert_allclose(polygon_vertices(sides, kind), vertices_of(sides, kind), atol=1e-14)
    psi = np.linspace(-math.pi, math.pi, 181)
    expected = [ray_radius(p, sides, kind) for p in psi]
    np.testing.assert_allclose(polygon_radius(psi, sides, kind), expected, rtol=1e-13)
    c = SpatialPointContact(sides, kind)
    np.testing.assert_allclose(c.radius(psi), expected, rtol=1e-13)
    np.testing.assert_allclose(c.scale, rho, rtol=1e-15)
    if kind == "inscribed":  # inside the circle, touching it at the vertices, one along t1
        assert max(expected) <= 1 + 1e-13
        np.testing.assert_allclose(np.linalg.norm(vertices_of(sides, kind), axis=1), 1.0, rtol=1e-14)
        np.testing.assert_allclose(vertices_of(sides, kind)[0], [1.0, 0.0], atol=1e-14)
        np.testing.assert_allclose(min(expected), math.cos(math.pi / sides), rtol=1e-3)
    else:  # outside the circle, touching it at the sides' midpoints, the first along t1
        assert min(expected) >= 1 - 1e-13
        np.testing.assert_allclose(ray_radius(0.0, sides, kind), 1.0, rtol=1e-14)


def test_circumscribed_radial_error():
    """``max r − 1 = 1/cos(π/n_f) − 1``: at the vertices (ray cast), nowhere larger on a fine
    grid, decreasing to 0 with ``n_f``."""
    errors = []
    for sides in range(3, 21):
        err = 1 / math.cos(math.pi / sides) - 1
        corners = 2 * math.pi * np.arange(sides) / sides + math.pi / sides
        corner = max(ray_radius(p, sides, "circumscribed") for p in corners)
        np.testing.assert_allclose(corner - 1, err, rtol=1e-12)
        grid = polygon_radius(np.linspace(0, 2 * math.pi, 4001), sides, "circumscribed")
        assert grid.max() - 1 <= err * (1 + 1e-12)
        errors.append(err)
    assert all(b < a for a, b in zip(errors, errors[1:]))
    assert errors[0] == pytest.approx(1.0) and errors[-1] < 0.0125  # triangle: twice; 20 sides: 1.2 %


# ----------------------------------------------------------------------------- letters and rows


def test_letters_and_table_iii():
    for sides in (3, 4, 8, 20):
        c = spatial_point_contact(sides)
        assert c.components == ("t1", "t2", "n")
        sides_l = "abcdefghijklmnopqrst"[:sides]
        vert_l = "ABCEGHIJKMNOPQTUVWXYZ"[:sides]
        assert c.letters == "SF" + sides_l + vert_l + "D" and len(set(c.letters)) == len(c.letters)
        assert c.kept_letters == c.letters.replace("S", "")
        assert not set(c.letters) & set("LR") and "D" not in vert_l + sides_l
        assert c.allowed(False, True) == c.allowed(False, False) == "S"
        assert c.allowed(True, False) == "SD"
        assert c.allowed(True, True) == "SF" + sides_l + vert_l and len(c.allowed(True, True)) == 2 + 2 * sides
        assert c.relaxed_rows("SD", True) == ((2, 1.0),) and c.relaxed_rows("S", False) == ()
        assert c.relaxed_rows("", True) == ()
    assert SpatialPointContact() == spatial_point_contact(4, "circumscribed")


def test_planar_rows_unchanged():
    """The planar rows keep their two-coefficient tuples and have no direction rows."""
    r = PLANAR_POINT.rows("L", MU, True, True)
    assert r == ContactRows((1,), ((0, -1.0),), ((1.0, -MU),), ((0.0, 1.0),))
    assert r.accel_eq_dirs == () and r.accel_geq_dirs == ()


@pytest.mark.parametrize("sides, kind", [(4, "circumscribed"), (4, "inscribed"), (3, "inscribed"),
                                         (8, "circumscribed")])
def test_rows_by_letter(sides, kind):
    """Each letter's rows, read as sets: F is the cone; a side letter has its side with equality;
    a vertex letter both adjacent sides; D the exact Coulomb force; S zero force."""
    c = spatial_point_contact(sides, kind)
    nrm, rho = normals_of(sides, kind)
    cone = [np.array([-n[0], -n[1], rho * MU]) for n in nrm]
    fn = np.array([0.0, 0.0, 1.0])

    def same(rows, expected):
        assert len(rows) == len(expected)
        for e in expected:
            assert any(np.allclose(r, e, atol=1e-15) for r in rows), (e, rows)
        assert all(len(r) == 3 for r in rows)

    s = c.rows("S", MU, True, True)
    same(s.force_eq, np.eye(3))
    assert s.accel_geq == ((2, 1.0),) and c.rows("S", MU, True, False).accel_geq == ()
    f = c.rows("F", MU, True, True)
    assert f.accel_eq == (0, 1, 2) and f.force_eq == ()
    same(f.force_geq, cone + [fn])
    for j in range(sides):
        r = c.rows("abcdefghijklmnopqrst"[j], MU, True, True)
        assert r.accel_eq == (2,) and r.accel_geq == ()
        same(r.force_eq, [-cone[j]])
        same(r.force_geq, [x for i, x in enumerate(cone) if i != j] + [fn])
        v = c.rows("ABCEGHIJKMNOPQTUVWXYZ"[j], MU, True, True)
        k = (j + 1) % sides
        same(v.force_eq, [-cone[j], -cone[k]])
        same(v.force_geq, [x for i, x in enumerate(cone) if i not in (j, k)] + [fn])
        # t_zero false: no tangential acceleration rows
        assert c.rows("ABCEGHIJKMNOPQTUVWXYZ"[j], MU, False, True).accel_geq_dirs == ()
        moving = c.rows("abcdefghijklmnopqrst"[j], MU, False, True)
        assert moving.accel_eq_dirs == () and moving.accel_geq_dirs == ()
    slip = np.array([math.cos(2.0), math.sin(2.0)])
    d = c.rows("D", MU, False, True, slip=slip)
    assert d.accel_eq == (2,) and d.accel_geq == () and d.accel_eq_dirs == () == d.accel_geq_dirs
    same(d.force_eq, [[1.0, 0.0, MU * slip[0]], [0.0, 1.0, MU * slip[1]]])
    same(d.force_geq, [fn])
    # the D force: f_t = −μ f_n v̂ solves its equalities (and nothing else with f_n = 1 does)
    A = np.array(d.force_eq + ((0.0, 0.0, 1.0),))
    np.testing.assert_allclose(np.linalg.solve(A, [0, 0, 1]), [-MU * slip[0], -MU * slip[1], 1.0], rtol=1e-15)


# ----------------------------------------------------------------------------- maximum dissipation


@pytest.mark.parametrize("sides, kind", [(3, "circumscribed"), (3, "inscribed"), (4, "circumscribed"),
                                         (4, "inscribed"), (5, "circumscribed"), (8, "inscribed"),
                                         (20, "circumscribed")])
def test_letters_partition_slip_directions_with_maximum_dissipation(sides, kind):
    c = spatial_point_contact(sides, kind)
    rng = np.random.default_rng(40 + sides)
    at_rest = c.allowed(True, True).replace("S", "")  # the letters keeping the contact (S separates)
    for _ in range(60):
        a_t = rng.normal(size=2) * 10 ** rng.uniform(-2, 2)
        a = np.array([a_t[0], a_t[1], 0.0])
        scale = 1e-9 * np.linalg.norm(a_t)
        loose = [L for L in at_rest if admits(c.rows(L, MU, True, True), a, scale)]
        strict = [L for L in at_rest if admits(c.rows(L, MU, True, True), a, -scale)]
        assert len(loose) == 1 and loose == strict, (a_t, loose)  # a generic direction: one letter
        assert loose[0] in c.vertex_letters
        best, x = polygon_min(a_t, sides, kind, MU)
        rows = c.rows(loose[0], MU, True, True)
        hi, _ = force_extreme(rows, a_t, MU, +1)
        lo, _ = force_extreme(rows, a_t, MU, -1)
        tol = 1e-9 * MU * np.linalg.norm(a_t)
        assert abs(hi - best) <= tol and abs(lo - best) <= tol  # every force of the letter minimizes
        f = np.array([x[0], x[1], 1.0])  # and the minimizer satisfies its rows
        assert all(abs(np.dot(r, f)) <= tol for r in rows.force_eq)
        assert all(np.dot(r, f) >= -tol for r in rows.force_geq)
    nrm, _ = normals_of(sides, kind)
    for j in range(sides):  # along −n_j: the side letter and both adjacent vertices, all minimizing
        a_t = -2.5 * nrm[j]
        a = np.array([a_t[0], a_t[1], 0.0])
        got = {L for L in at_rest if admits(c.rows(L, MU, True, True), a, 1e-12)}
        assert got == {c.side_letters[j], c.vertex_letters[j], c.vertex_letters[j - 1]}
        best, _ = polygon_min(a_t, sides, kind, MU)
        for L in got:
            rows = c.rows(L, MU, True, True)
            for sense in (1, -1):
                assert abs(force_extreme(rows, a_t, MU, sense)[0] - best) <= 1e-9
        # a tangential acceleration off −n_j is refused by the side letter's direction rows
        off = -2.5 * nrm[j] + 0.1 * np.array([-nrm[j][1], nrm[j][0]])
        assert not admits(c.rows(c.side_letters[j], MU, True, True), np.append(off, 0.0), 1e-12)
        assert not admits(c.rows(c.side_letters[j], MU, True, True), np.append(-a_t, 0.0), 1e-12)
    assert not admits(c.rows("F", MU, True, True), np.array([1e-3, 0.0, 0.0]), 1e-12)


# ----------------------------------------------------------------------------- the box (Pinocchio)

CORNERS = [(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)]
G = 9.81
MU_BOX = 0.5


def box_on_plane(alpha, psi):
    """The example box resting on four corners on the plane through the origin whose normal is
    ``ez`` tilted by ``alpha`` towards ``(cos ψ, sin ψ, 0)`` (the downhill direction), its frame the
    world's rotated by ``alpha`` about ``(−sin ψ, cos ψ, 0)``; contact frames ``t1 = R ex``,
    ``t2 = R ey``. Returns the mechanism, its dynamics at rest and ``R``."""
    pytest.importorskip("pinocchio")
    from _support.robots import BOX_URDF

    from contactmodes.model.spatial import SpatialMechanism

    axis = np.array([-math.sin(psi), math.cos(psi), 0.0])
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    R = np.eye(3) + math.sin(alpha) * K + (1 - math.cos(alpha)) * K @ K
    n = R[:, 2]
    box = SpatialMechanism(BOX_URDF, base="floating", gravity=G)
    for i, corner in enumerate(CORNERS):
        box.add_contact(f"c{i + 1}", "box", position=corner, surface_point=(0, 0, 0), surface_normal=n,
                        mu=MU_BOX, tangent=R[:, 0])
    quat = np.concatenate([[math.cos(alpha / 2)], math.sin(alpha / 2) * axis])
    q = np.concatenate([0.05 * n, quat])
    d = box.dynamics(q, np.zeros(6))
    assert np.abs(d.gaps).max() < 1e-12
    for c in box.contacts:
        np.testing.assert_allclose(c.frame, R.T, atol=1e-12)
    return box, d, R


def mode_lp(d, rows_per_contact):
    """Feasibility of ``M q̈ + h = Jᵀ f`` with every contact's rows (components ``t1, t2, n``), by
    ``linprog`` over ``x = (q̈, f)``; returns the result."""
    nv, k = d.M.shape[0], len(rows_per_contact)
    nx = nv + 3 * k
    eq, beq, ub, bub = [], [], [], []
    top = np.hstack([d.M, -d.J.T])
    eq.extend(top)
    beq.extend(-d.h)
    for i, r in enumerate(rows_per_contact):
        Ji, ci = d.J[3 * i:3 * i + 3], d.Jdot_qdot[3 * i:3 * i + 3]

        def accel(coef):
            return np.concatenate([np.asarray(coef) @ Ji, np.zeros(3 * k)]), -float(np.dot(coef, ci))

        def force(coef):
            row = np.zeros(nx)
            row[nv + 3 * i:nv + 3 * i + 3] = coef
            return row

        unit = np.eye(3)
        for c in r.accel_eq:
            a, b = accel(unit[c])
            eq.append(a), beq.append(b)
        for coef in r.accel_eq_dirs:
            a, b = accel(coef)
            eq.append(a), beq.append(b)
        for c, sign in r.accel_geq:
            a, b = accel(sign * unit[c])
            ub.append(-a), bub.append(-b)
        for coef in r.accel_geq_dirs:
            a, b = accel(coef)
            ub.append(-a), bub.append(-b)
        for coef in r.force_eq:
            eq.append(force(coef)), beq.append(0.0)
        for coef in r.force_geq:
            ub.append(-force(coef)), bub.append(0.0)
    return linprog(np.zeros(nx), A_ub=np.array(ub) if ub else None, b_ub=bub or None, A_eq=np.array(eq),
                   b_eq=beq, bounds=[(None, None)] * nx, method="highs")


@pytest.mark.parametrize("sides, kind", list(itertools.product((4, 8), KINDS)))
def test_box_on_a_tilted_plane_sticks_iff_tan_alpha_within_mu_r(sides, kind):
    c = spatial_point_contact(sides, kind)
    for psi in (0.0, 0.4, 1.0, 2.2, 3.9, 5.5):
        # the uphill direction in the contact frame, from the plane's geometry (any alpha > 0)
        _, _, R = box_on_plane(0.3, psi)
        g = np.array([0.0, 0.0, -1.0])
        n = R[:, 2]
        uphill = -(g - np.dot(g, n) * n)
        psi_f = math.atan2(np.dot(uphill, R[:, 1]), np.dot(uphill, R[:, 0]))
        limit = math.atan(MU_BOX * ray_radius(psi_f, sides, kind))
        for factor, sticks in ((0.999, True), (1.001, False)):
            _, d, _ = box_on_plane(limit * factor, psi)
            res = mode_lp(d, [c.rows("F", MU_BOX, True, True)] * 4)
            assert res.status == (0 if sticks else 2), (psi, factor, res.message)


@pytest.mark.parametrize("direction", [0.0, 0.7, 2.0, -2.6])
def test_sliding_block_decelerates_at_mu_g(direction):
    """Mode D on all four corners with the slip direction v̂ (horizontal floor, t1 = x, t2 = y):
    the base's linear acceleration is −μ g v̂, its angular acceleration zero, whatever the
    statically indeterminate normal forces."""
    pytest.importorskip("pinocchio")
    from _support.robots import BOX_URDF

    from contactmodes.model.spatial import SpatialMechanism
    from contactmodes.model.spatial_state import state_vectors

    c = spatial_point_contact()
    box = SpatialMechanism(BOX_URDF, base="floating", gravity=G)
    for i, corner in enumerate(CORNERS):
        box.add_contact(f"c{i + 1}", "box", position=corner, surface_point=(0, 0, 0), surface_normal=(0, 0, 1),
                        mu=MU_BOX)
    slip = np.array([math.cos(direction), math.sin(direction)])
    q, qdot = state_vectors(box, {"base_position": [0.0, 0.0, 0.05], "base_rpy_deg": [0.0, 0.0, 30.0]},
                            {"base_linear": [0.4 * slip[0], 0.4 * slip[1], 0.0]})
    d = box.dynamics(q, qdot)
    for contact in box.contacts:
        np.testing.assert_allclose(contact.frame, np.eye(3), atol=1e-15)
    rows = [c.rows("D", MU_BOX, False, True, slip=slip)] * 4
    res = mode_lp(d, rows)
    assert res.status == 0  # consistent, with f_n >= 0
    expected = np.array([-MU_BOX * G * slip[0], -MU_BOX * G * slip[1], 0.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(res.x[:6], expected, atol=1e-9 * G)
    # the equalities alone fix q̈: their null space has no q̈ part
    eq = [np.hstack([d.M, -d.J.T])]
    for i, r in enumerate(rows):
        blk = np.zeros((3, 18))
        blk[2, :6] = d.J[3 * i + 2]
        blk[0, 6 + 3 * i:9 + 3 * i], blk[1, 6 + 3 * i:9 + 3 * i] = r.force_eq
        eq.append(blk)
    A = np.vstack(eq)
    _, s, Vt = np.linalg.svd(A)
    null = Vt[np.sum(s > 1e-10 * s[0]):]
    assert np.abs(null[:, :6]).max() < 1e-10


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("call, field", [
    (lambda: SpatialPointContact(2), "friction.sides"),
    (lambda: SpatialPointContact(21), "friction.sides"),
    (lambda: SpatialPointContact(4.0), "friction.sides"),
    (lambda: SpatialPointContact(True), "friction.sides"),
    (lambda: spatial_point_contact(4, "square"), "friction.polygon"),
    (lambda: polygon_radius([0.0, float("nan")], 4), "psi"),
    (lambda: spatial_point_contact().rows("R", MU, True, True), "mode letter"),
    (lambda: spatial_point_contact().rows("e", MU, True, True), "mode letter"),
    (lambda: spatial_point_contact().rows("FA", MU, True, True), "mode letter"),
    (lambda: spatial_point_contact().rows("D", MU, False, True), "slip"),
    (lambda: spatial_point_contact().rows("D", MU, False, True, slip=(1.0, 1.0)), "slip"),
    (lambda: spatial_point_contact().rows("D", MU, False, True, slip=(0.6, 0.8, 0.0)), "slip"),
    (lambda: spatial_point_contact().rows("D", MU, False, True, slip=(float("nan"), 1.0)), "slip"),
    (lambda: spatial_point_contact().rows("F", MU, True, True, slip="x"), "slip"),
])
def test_bad_input_one_line_naming_the_field(call, field):
    with pytest.raises(ContactModelError) as err:
        call()
    assert str(err.value).startswith(f"{field}: ") and "\n" not in str(err.value)
