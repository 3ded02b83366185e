"""Sliding contacts on the friction polygon (``sliding = "polygon"``, issue 40, item 7) and how
the sliding circle and the at-rest polygon differ at slip onset (``docs/spatial.md``).

The oracles are written here:

* the polygon from its definition (side normals at ``2πj/n_f``, shifted by ``−π/n_f`` when
  inscribed; vertices by intersecting adjacent side lines), the maximum-dissipation force for a
  slip velocity ``v`` as the minimizer of ``f_t · v`` over it by brute force over the vertices
  and by ``scipy.optimize.linprog``;
* the slip-onset jump's size from elementary geometry: a vertex ``R = ρ/cos(π/n_f)`` from the
  centre against Coulomb's unit force turned by ``δ``: ``|jump|² = R² + 1 − 2 R cos δ``, with
  ``δ < π/n_f``; at a vertex direction ``R − 1`` (``1/cos(π/n_f) − 1`` circumscribed), as ``−v̂``
  nears a side normal ``tan(π/n_f)`` (circumscribed) or ``2 sin(π/(2 n_f))`` (inscribed);
* the box sliding on the floor (Pinocchio): with every corner at the vertex ``V`` of the slip
  direction, Newton's law for the box gives the base acceleration ``μ g V`` (``V`` in units of
  ``μ f_n``, the total normal force ``m g``), no angular acceleration; with exact Coulomb
  ``−μ g v̂``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

from contactmodes.errors import ContactModelError
from contactmodes.modes.spatial_contact import SpatialPointContact, polygon_slip_letter

MU = 0.5
KINDS = ("circumscribed", "inscribed")
SIDE_LETTERS = "abcdefghijklmnopqrst"
VERTEX_LETTERS = "ABCEGHIJKMNOPQTUVWXYZ"  # docs/spatial.md: vertex j = the j-th


def polygon(sides, kind):
    """Side normals ``(n_f, 2)``, side distance ``ρ`` and vertices ``(n_f, 2)`` (units ``μ f_n``)."""
    offset = 0.0 if kind == "circumscribed" else -math.pi / sides
    theta = 2 * math.pi * np.arange(sides) / sides + offset
    normals = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    rho = 1.0 if kind == "circumscribed" else math.cos(math.pi / sides)
    vertices = np.array([np.linalg.solve(np.stack([normals[j], normals[(j + 1) % sides]]), [rho, rho])
                         for j in range(sides)])
    return normals, rho, vertices


def unique_force(rows):
    """The tangential force ``(f_t1, f_t2)`` at ``f_n = 1`` of a letter whose equalities fix it."""
    A = np.array([list(r) for r in rows.force_eq] + [[0.0, 0.0, 1.0]])
    b = np.zeros(len(A))
    b[-1] = 1.0
    assert np.linalg.matrix_rank(A) == 3
    f = np.linalg.lstsq(A, b, rcond=None)[0]
    assert all(np.dot(r, f) >= -1e-12 for r in rows.force_geq)
    return f[:2]


def force_range(rows, direction):
    """``min`` and ``max`` of ``direction · f_t`` over a letter's force rows at ``f_n = 1``."""
    A_eq = [list(r) for r in rows.force_eq] + [[0.0, 0.0, 1.0]]
    b_eq = [0.0] * len(rows.force_eq) + [1.0]
    A_ub = [[-x for x in r] for r in rows.force_geq]
    out = []
    for sense in (1.0, -1.0):
        res = linprog(sense * np.array([direction[0], direction[1], 0.0]), A_ub=A_ub, b_ub=[0.0] * len(A_ub),
                      A_eq=A_eq, b_eq=b_eq, bounds=[(None, None)] * 3, method="highs")
        assert res.status == 0
        out.append(sense * res.fun)
    return out[0], out[1]


# ----------------------------------------------------------------------------- the option


def test_the_option_and_its_letters():
    exact, poly = SpatialPointContact(4), SpatialPointContact(4, "circumscribed", "polygon")
    assert exact == SpatialPointContact(4, "circumscribed", "exact") and exact.sliding == "exact"
    assert exact.letters == "SFabcdABCED" and poly.letters == "SFabcdABCE"
    # exact: a sliding contact is S or D, with the slip direction for D's rows
    cls = exact.velocity_class((0.3, 0.4, 0.0), 1e-9)
    assert cls.allowed == "SD" and cls.row_args == (False, True, (0.6, 0.8))
    # polygon: S and the letter of the slip direction; v̂ = (0.6, 0.8): −v̂ at 233° lies between
    # the side normals −t1 (c, 180°) and −t2 (d, 270°): the vertex C at 225°
    cls = poly.velocity_class((0.3, 0.4, 0.0), 1e-9)
    assert cls.allowed == "SC" and cls.row_args == (False, True, (0.6, 0.8))
    assert poly.velocity_class((0.3, 0.4, 0.2), 1e-9).allowed == "S"  # separating
    assert poly.velocity_class((0.0, 0.0, 0.0), 1e-9).allowed == "SFabcdABCE"  # at rest: unchanged
    with pytest.raises(ContactModelError, match=r"^mode letter: expected one of 'SFabcdABCE', got 'D'$"):
        poly.rows("D", MU, False, True, slip=(0.6, 0.8))


@pytest.mark.parametrize("call", [
    lambda: SpatialPointContact(4, "circumscribed", "pyramid"),
    lambda: SpatialPointContact(4, "circumscribed", None),
    lambda: SpatialPointContact(sliding="Polygon"),
])
def test_a_bad_option_names_the_field(call):
    with pytest.raises(ContactModelError) as err:
        call()
    text = str(err.value)
    assert text.startswith("friction.sliding: must be one of 'exact', 'polygon', got ") and "\n" not in text


@pytest.mark.parametrize("sides, kind", [(3, "circumscribed"), (4, "circumscribed"), (4, "inscribed"),
                                         (5, "inscribed"), (8, "circumscribed"), (20, "inscribed")])
def test_a_sliding_contact_takes_the_maximum_dissipation_vertex(sides, kind):
    """For random slip velocities the letter's force (``t_zero`` false) is the one minimizer of
    ``f_t · v`` over the polygon, a vertex: found here by brute force over the vertices and by
    an LP."""
    model = SpatialPointContact(sides, kind, "polygon")
    normals, rho, vertices = polygon(sides, kind)
    rng = np.random.default_rng(7 + sides)
    for _ in range(40):
        v = rng.normal(size=2) * 10 ** rng.uniform(-3, 2)
        eps = 1e-9 * np.linalg.norm(v)
        cls = model.velocity_class((v[0], v[1], 0.0), eps)
        letter = cls.allowed[1]
        j = int(np.argmin(vertices @ v))  # brute force: the vertex minimizing f_t · v
        assert cls.allowed == "S" + VERTEX_LETTERS[j]
        f = unique_force(model.rows(letter, MU, *cls.row_args))
        np.testing.assert_allclose(f, MU * vertices[j], atol=1e-12)
        lp = linprog(v, A_ub=normals, b_ub=np.full(sides, rho * MU), bounds=[(None, None)] * 2, method="highs")
        assert abs(lp.fun - f @ v) <= 1e-9 * MU * np.linalg.norm(v)
        rows = model.rows(letter, MU, *cls.row_args)  # sliding: no tangential acceleration row
        assert rows.accel_eq == (2,) and rows.accel_eq_dirs == () and rows.accel_geq_dirs == ()


@pytest.mark.parametrize("sides, kind", [(3, "inscribed"), (4, "circumscribed"), (6, "inscribed"),
                                         (8, "circumscribed")])
def test_along_a_side_normal_the_whole_side_within_the_velocity_threshold(sides, kind):
    """``−v`` along side ``j``'s outward normal: the side letter, whose forces are the whole side
    (one free coefficient, from vertex ``j − 1`` to vertex ``j``) — as long as ``v``'s component
    along the side is within the threshold ``ε``; beyond it, the vertex on ``−v``'s side (``−v``
    turned counter-clockwise from ``n_j``: vertex ``j``, between sides ``j`` and ``j + 1``)."""
    model = SpatialPointContact(sides, kind, "polygon")
    normals, rho, vertices = polygon(sides, kind)
    for j in range(sides):
        n, d = normals[j], np.array([-normals[j][1], normals[j][0]])
        speed, eps = 0.8, 1e-6
        for offset, expected in ((0.0, SIDE_LETTERS[j]), (0.5 * eps, SIDE_LETTERS[j]), (-0.5 * eps, SIDE_LETTERS[j]),
                                 (-2 * eps, VERTEX_LETTERS[j]), (2 * eps, VERTEX_LETTERS[(j - 1) % sides])):
            v = -speed * n + offset * d
            assert model.velocity_class((v[0], v[1], 0.0), eps).allowed == "S" + expected, (j, offset)
            assert polygon_slip_letter(v, eps, sides, kind) == expected
        rows = model.rows(SIDE_LETTERS[j], MU, False, True, slip=tuple(-n))
        lo, hi = force_range(rows, d)  # along the side: from vertex j − 1 to vertex j
        assert lo == pytest.approx(MU * vertices[j - 1] @ d, abs=1e-9) and hi == pytest.approx(MU * vertices[j] @ d, abs=1e-9)
        lo, hi = force_range(rows, n)  # across it: on the side, ρ μ from the centre
        assert lo == pytest.approx(rho * MU, abs=1e-9) and hi == pytest.approx(rho * MU, abs=1e-9)


def test_the_slip_letter_refuses_a_velocity_at_rest():
    with pytest.raises(ContactModelError, match=r"^slip: "):
        polygon_slip_letter((1e-10, 0.0), 1e-9, 4)
    with pytest.raises(ContactModelError, match=r"^slip: "):
        polygon_slip_letter((float("nan"), 1.0), 1e-9, 4)


# ----------------------------------------------------------------------------- slip onset


@pytest.mark.parametrize("sides", [3, 4, 6, 8, 12, 20])
@pytest.mark.parametrize("kind", KINDS)
def test_circle_and_polygon_differ_at_slip_onset_as_documented(sides, kind):
    """At rest, slip onset with the tangential acceleration along ``v̂`` takes the vertex letter
    whose rows admit it (``t_zero``), its force a polygon vertex; once sliding along ``v̂`` exact
    Coulomb gives ``−μ f_n v̂``. Over a dense fan of directions the two differ by the documented
    amounts; under ``"polygon"`` the sliding force equals the onset force (no jump)."""
    exact = SpatialPointContact(sides, kind)
    poly = SpatialPointContact(sides, kind, "polygon")
    _, rho, vertices = polygon(sides, kind)
    R = rho / math.cos(math.pi / sides)
    half = math.pi / sides
    at_rest = exact.vertex_letters
    angles, jumps, ratios = [], [], []
    for psi in np.linspace(0.0, 2 * math.pi, 2000, endpoint=False) + 1e-4:
        v_hat = np.array([math.cos(psi), math.sin(psi)])
        a = np.array([v_hat[0], v_hat[1], 0.0])  # slip onset: the contact starts moving along v̂
        admitted = [L for L in at_rest if all(np.dot(r, a) > 0 for r in exact.rows(L, MU, True, True).accel_geq_dirs)]
        assert len(admitted) == 1
        onset = unique_force(exact.rows(admitted[0], MU, True, True))
        j = int(np.argmin(vertices @ v_hat))  # the hand oracle: the vertex against v̂
        np.testing.assert_allclose(onset, MU * vertices[j], atol=1e-12)
        coulomb = unique_force(exact.rows("D", MU, False, True, slip=v_hat))
        np.testing.assert_allclose(coulomb, -MU * v_hat, atol=1e-15)
        sliding = unique_force(poly.rows(poly.velocity_class(a, 1e-9).allowed[1], MU, False, True, slip=v_hat))
        np.testing.assert_array_equal(sliding, onset)  # the polygon for sliding too: no jump
        delta = math.acos(min(1.0, float(onset @ coulomb) / (np.linalg.norm(onset) * np.linalg.norm(coulomb))))
        angles.append(delta)
        ratios.append(np.linalg.norm(onset) / np.linalg.norm(coulomb))
        jump = np.linalg.norm(onset - coulomb) / MU
        assert jump == pytest.approx(math.sqrt(R * R + 1 - 2 * R * math.cos(delta)), abs=1e-9)
        jumps.append(jump)
    angles, ratios, jumps = np.array(angles), np.array(ratios), np.array(jumps)
    np.testing.assert_allclose(ratios, R, rtol=1e-12)  # a vertex: R times Coulomb's force
    assert angles.max() < half and angles.max() > 0.99 * half  # the angle: up to π/n_f
    assert angles.min() < 0.01 * half  # ... and nearly 0 where v̂ points at a vertex
    sup = math.tan(half) if kind == "circumscribed" else 2 * math.sin(half / 2)
    assert jumps.max() < sup and jumps.max() > 0.99 * sup
    for V in vertices:  # v̂ pointing away from a vertex: the jump is radial, R − 1
        v_hat = -V / np.linalg.norm(V)
        letter = poly.velocity_class((v_hat[0], v_hat[1], 0.0), 1e-9).allowed[1]
        jump = np.linalg.norm(unique_force(poly.rows(letter, MU, False, True, slip=v_hat)) + MU * v_hat) / MU
        radial = 1 / math.cos(math.pi / sides) - 1 if kind == "circumscribed" else 0.0
        assert jump == pytest.approx(radial, abs=1e-12)


def test_the_slip_onset_table_is_the_formulas():
    """``docs/spatial.md``'s table of the slip-onset jump: each row's numbers are the formulas'."""
    import re

    from _support.paths import ROOT

    text = (ROOT / "docs" / "spatial.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([\d.]+) % \| ([\d.]+)° \| ([\d.]+) μ f_n \| ([\d.]+) μ f_n \|$", text, flags=re.M)
    assert [int(r[0]) for r in rows] == [3, 4, 6, 8, 12, 20]
    for n, radial, angle, circ, insc in rows:
        h = math.pi / int(n)
        assert float(radial) == pytest.approx(100 * (1 / math.cos(h) - 1), abs=0.05)
        assert float(angle) == pytest.approx(math.degrees(h), abs=0.05)
        assert float(circ) == pytest.approx(math.tan(h), abs=5e-4)
        assert float(insc) == pytest.approx(2 * math.sin(h / 2), abs=5e-4)
    # and the convergence sentence beside the polygon's definition
    sentence = re.search(r"\(100 % at 3 sides, ([\d.]+) % at 4, ([\d.]+) % at 8, ([\d.]+) % at 20\)", text)
    for value, n in zip(sentence.groups(), (4, 8, 20)):
        assert float(value) == pytest.approx(100 * (1 / math.cos(math.pi / n) - 1), abs=0.05)


# ----------------------------------------------------------------------------- the sliding box

CORNERS = [(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)]
G = 9.81


def sliding_box(psi, model):
    """The example box on the floor sliding at 0.4 m/s along ``ψ`` (yawed 30°, contact frames the
    world's), its ``ContactSystem`` under ``model``."""
    pytest.importorskip("pinocchio")
    from _support.robots import BOX_URDF

    from contactmodes.model.spatial import SpatialMechanism
    from contactmodes.model.spatial_state import state_vectors

    box = SpatialMechanism(BOX_URDF, base="floating", gravity=G)
    for i, corner in enumerate(CORNERS):
        box.add_contact(f"c{i + 1}", "box", position=corner, surface_point=(0, 0, 0), surface_normal=(0, 0, 1), mu=MU)
    q, qdot = state_vectors(box, {"base_position": [0.0, 0.0, 0.05], "base_rpy_deg": [0.0, 0.0, 30.0]},
                            {"base_linear": [0.4 * math.cos(psi), 0.4 * math.sin(psi), 0.0]})
    for contact in box.contacts:
        np.testing.assert_allclose(contact.frame, np.eye(3), atol=1e-15)
    return box.contact_system(q, qdot, contact_model=model)


@pytest.mark.parametrize("sides, kind, psi", [(4, "circumscribed", 0.3), (4, "circumscribed", 2.0),
                                              (4, "inscribed", -2.6), (6, "circumscribed", 1.0),
                                              (8, "inscribed", 0.7)])
def test_a_block_sliding_on_the_polygon_decelerates_along_its_vertex(sides, kind, psi):
    """``sliding = "polygon"``: every corner takes the vertex ``V`` of the slip direction, and the
    box accelerates at ``μ g V`` (``|V| = ρ/cos(π/n_f) = r`` along the vertex, not ``−v̂``);
    the default (exact) decelerates at ``μ g`` along ``−v̂``."""
    import contactmodes as cm
    from contactmodes.modes.response import mode_qdd

    _, _, vertices = polygon(sides, kind)
    v_hat = np.array([math.cos(psi), math.sin(psi)])
    j = int(np.argmin(vertices @ v_hat))
    V = vertices[j]
    assert abs(V[1] * v_hat[0] - V[0] * v_hat[1]) > 0.05 * np.linalg.norm(V)  # v̂ not along a vertex: directions differ
    poly = sliding_box(psi, SpatialPointContact(sides, kind, "polygon"))
    mode = VERTEX_LETTERS[j] * 4
    assert cm.analyze(poly).feasible_modes() == [mode]
    qdd = mode_qdd(poly, mode, [])
    np.testing.assert_allclose(qdd, [MU * G * V[0], MU * G * V[1], 0.0, 0.0, 0.0, 0.0], atol=1e-9 * G)
    r = (1.0 if kind == "circumscribed" else math.cos(math.pi / sides)) / math.cos(math.pi / sides)
    assert np.linalg.norm(qdd[:2]) == pytest.approx(MU * G * r, rel=1e-9)

    for model in (None, SpatialPointContact(sides, kind), SpatialPointContact(sides, kind, "exact")):
        exact = sliding_box(psi, model)
        assert cm.analyze(exact).feasible_modes() == ["DDDD"]
        np.testing.assert_allclose(mode_qdd(exact, "DDDD", []), [-MU * G * v_hat[0], -MU * G * v_hat[1], 0, 0, 0, 0],
                                   atol=1e-9 * G)


def test_a_block_sliding_along_a_side_normal_has_its_lateral_friction_free():
    """The circumscribed square, sliding along ``+t1``: the side ``c`` (normal ``−t1``) on every
    corner; the friction along ``−t1`` is ``μ m g``, the lateral one anywhere in ``[−μ, μ] m g``:
    an ambiguity variable moving the lateral acceleration (the LP here: ``ẍ`` fixed at ``−μ g``,
    ``ÿ`` from ``−μ g`` to ``μ g``)."""
    import contactmodes as cm
    from contactmodes.modes.response import mode_qdd, solve_response

    system = sliding_box(0.0, SpatialPointContact(4, "circumscribed", "polygon"))
    assert cm.analyze(system).feasible_modes() == ["cccc"]
    assert solve_response(system, "cccc").w_moves_accelerations and mode_qdd(system, "cccc", []) is None
    # the oracle: M q̈ + h = Jᵀ f, ẍ_n = 0, f_t1 = −μ f_n, |f_t2| <= μ f_n, f_n >= 0 at every corner
    n_v, k = system.n_q, system.k
    eq, beq, ub = [np.hstack([system.M, -system.J.T])], [-system.h], []
    for i in range(k):
        row = np.zeros(n_v + 3 * k)
        row[:n_v] = system.J[3 * i + 2]
        eq.append(row[None]), beq.append([-system.Jdot_qdot[3 * i + 2]])
        row = np.zeros(n_v + 3 * k)
        row[n_v + 3 * i], row[n_v + 3 * i + 2] = 1.0, MU  # f_t1 + μ f_n = 0
        eq.append(row[None]), beq.append([0.0])
        for s in (1.0, -1.0):  # s f_t2 − μ f_n <= 0
            row = np.zeros(n_v + 3 * k)
            row[n_v + 3 * i + 1], row[n_v + 3 * i + 2] = s, -MU
            ub.append(row)
        row = np.zeros(n_v + 3 * k)
        row[n_v + 3 * i + 2] = -1.0
        ub.append(row)
    A_eq, b_eq = np.vstack(eq), np.concatenate(beq)
    for coord, lo, hi in ((0, -MU * G, -MU * G), (1, -MU * G, MU * G)):
        c = np.zeros(n_v + 3 * k)
        c[coord] = 1.0
        got = [s * linprog(s * c, A_ub=np.array(ub), b_ub=np.zeros(len(ub)), A_eq=A_eq, b_eq=b_eq,
                           bounds=[(None, None)] * len(c), method="highs").fun for s in (1.0, -1.0)]
        assert got == pytest.approx([lo, hi], abs=1e-9 * G)
