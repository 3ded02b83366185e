"""Hand-computed geometry and parameters of the six example system files (examples/*.toml)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.system_file.loader import load_system_file
from contactmodes.tolerances import GAP_RTOL

L = 0.127
M_POINT = 0.0849
G = 9.81


def load(name: str):
    return load_system_file(EXAMPLES / f"{name}.toml")


def total_weight(loaded) -> float:
    """Sum of the generalized gravity forces on y of a floating base = total mass × g."""
    return float(loaded.system.h[1]) / G


@pytest.mark.parametrize(
    "name", ["two_link_brace", "six_link_brace", "table_two_legs", "painleve_rod", "painleve_rod_mu05", "rhex_flip_start"]
)
def test_every_example_touches_its_surfaces(name):
    loaded = load(name)
    gaps = loaded.mechanism.contact_gaps(loaded.q)
    assert np.all(np.abs(gaps) <= GAP_RTOL * loaded.system.scales.length)
    assert np.all(np.abs(gaps) < 1e-12)


def test_two_link_brace_geometry():
    b = load("two_link_brace")
    q = b.q
    np.testing.assert_allclose(q, [0.0, 0.0, math.radians(135), math.radians(-90)], atol=1e-15)
    mech = b.mechanism
    joint = mech.point_position(q, "link1", (L, 0.0))
    tip = mech.point_position(q, "link2", (L, 0.0))
    c45 = math.sqrt(0.5)
    np.testing.assert_allclose(joint, [-L * c45, L * c45], atol=1e-15)
    np.testing.assert_allclose(tip, [0.0, 2 * L * c45], atol=1e-15)
    np.testing.assert_allclose(mech.point_position(q, "link2", (0.0, 0.0)), joint, atol=1e-15)
    # three point masses of 0.0849 kg, gravity along -y; massless links
    assert total_weight(b) == pytest.approx(3 * M_POINT)
    np.testing.assert_allclose(b.system.M[:2, :2], 3 * M_POINT * np.eye(2), atol=1e-15)
    assert np.all(b.system.mu == 0.3)
    # normals: base and tip -x, joint +x; contact frame rows (t, n) with t = (n_y, -n_x)
    J = b.system.J
    np.testing.assert_allclose(J[1, :2], [-1.0, 0.0])  # n of base = -x
    np.testing.assert_allclose(J[0, :2], [0.0, 1.0])  # t of base = (0, 1)
    np.testing.assert_allclose(J[5, :2], [1.0, 0.0])  # n of joint = +x
    np.testing.assert_allclose(J[4, :2], [0.0, -1.0])
    assert b.desired_mode == "FFF"
    assert b.system.S.tolist() == [[0.0], [0.0], [0.0], [1.0]]


def test_six_link_brace_geometry():
    b = load("six_link_brace")
    q = b.q
    degs = [160, -20, -20, -60, -20, -20]
    np.testing.assert_allclose(q[2:], np.radians(degs), atol=1e-15)
    absolute = np.cumsum(degs)
    assert absolute.tolist() == [160, 140, 120, 60, 40, 20]
    # cos160 + cos40 = 0 ... pairwise: cos(180 - a) = -cos(a), so the cos sum is 0 by hand
    mech = b.mechanism
    tip = mech.point_position(q, "link6", (L, 0.0))
    assert tip[0] == pytest.approx(0.0, abs=1e-15)
    y_hand = L * sum(math.sin(math.radians(a)) for a in absolute)
    assert tip[1] == pytest.approx(y_hand, abs=1e-15)
    joint3 = mech.point_position(q, "link4", (0.0, 0.0))
    x3 = L * (math.cos(math.radians(160)) + math.cos(math.radians(140)) + math.cos(math.radians(120)))
    assert joint3[0] == pytest.approx(x3, abs=1e-15)
    assert joint3[0] == pytest.approx(-0.28012860711592, abs=1e-13)
    # joint 3 is the leftmost point of the chain
    xs = [mech.point_position(q, f"link{i}", (0.0, 0.0))[0] for i in range(1, 7)] + [tip[0]]
    assert min(xs) == pytest.approx(x3, abs=1e-15)
    assert total_weight(b) == pytest.approx(7 * M_POINT)
    assert b.system.S.shape == (8, 5)
    (task,) = b.system.constraints
    assert task.kind == "task" and task.type == "eq"
    np.testing.assert_array_equal(task.qdd, np.eye(8))
    np.testing.assert_array_equal(task.rhs, np.zeros(8))
    assert b.desired_mode == "FFF"


def test_table_two_legs():
    t = load("table_two_legs")
    np.testing.assert_allclose(t.q, [0.0, 0.5, 0.0])
    mech = t.mechanism
    np.testing.assert_allclose(mech.point_position(t.q, "table", (-0.4, -0.5)), [-0.4, 0.0])
    np.testing.assert_allclose(mech.point_position(t.q, "table", (0.4, -0.5)), [0.4, 0.0])
    np.testing.assert_allclose(t.system.M, np.diag([2.0, 2.0, 0.1]))
    np.testing.assert_allclose(t.system.h, [0.0, 2.0 * G, 0.0])
    np.testing.assert_allclose(t.system.S, [[1.0], [0.0], [0.0]])
    assert np.all(t.system.mu == 0.5)
    # J^T (3 x 4) has rank 3: a one-dimensional null space = opposing tangential foot forces
    JT = t.system.J.T
    assert np.linalg.matrix_rank(JT) == 3
    null = np.array([1.0, 0.0, -1.0, 0.0])  # f_t(left) = -f_t(right)
    np.testing.assert_allclose(JT @ null, 0.0, atol=1e-15)


@pytest.mark.parametrize("name, mu", [("painleve_rod", 2.0), ("painleve_rod_mu05", 0.5)])
def test_painleve_rod(name, mu):
    r = load(name)
    theta = math.atan(2.0)
    np.testing.assert_allclose(r.q, [0.0, 0.0, theta], atol=0)
    np.testing.assert_allclose(r.qdot, [-1.0, 0.0, 0.0])
    assert r.system.mu.tolist() == [mu]
    com = r.mechanism.point_position(r.q, "rod", (0.5, 0.0))
    np.testing.assert_allclose(com, [0.5 / math.sqrt(5), 1.0 / math.sqrt(5)], atol=1e-15)
    # contact slides in -x = -t: v_t = -1, v_n = 0 (mode L)
    np.testing.assert_allclose(r.system.v_contact, [-1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(r.system.S, [[0.0], [0.0], [1.0]])
    # inertia about the lower end = m L^2/3; total mass 1 kg
    assert r.system.M[2, 2] == pytest.approx(1.0 / 3.0)
    assert r.system.M[0, 0] == pytest.approx(1.0)


def test_rhex_flip_start():
    r = load("rhex_flip_start")
    alpha = math.radians(10.0)
    c, s = math.cos(alpha), math.sin(alpha)
    mech = r.mechanism
    assert mech.coordinates == ("x", "y", "theta", "phi1", "phi2", "phi3")
    assert r.system.contacts == ("body", "toe1", "toe2", "toe3")
    np.testing.assert_allclose(mech.point_position(r.q, "body", (-0.25, -0.05)), [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(r.q[:3], [0.25 * c - 0.05 * s, 0.25 * s + 0.05 * c, alpha], atol=1e-15)
    for i, d in enumerate((-0.19, 0.015, 0.22)):
        hip = mech.point_position(r.q, f"leg{i + 1}", (0.0, 0.0))
        np.testing.assert_allclose(hip, r.q[:2] + d * np.array([c, s]), atol=1e-15)
        toe = mech.point_position(r.q, f"leg{i + 1}", (0.17, 0.0))
        assert toe[1] == pytest.approx(0.0, abs=1e-15)
        assert toe[0] < hip[0]  # down-and-back
        assert np.hypot(*(toe - hip)) == pytest.approx(0.17)
        beta = -math.pi + math.asin(hip[1] / 0.17)
        assert r.q[3 + i] == pytest.approx(beta - alpha, abs=1e-15)
    np.testing.assert_allclose(r.system.M, np.diag([8.5, 8.5, 0.144, 0.0, 0.0, 0.0]), atol=1e-15)
    np.testing.assert_allclose(r.system.h, [0.0, 8.5 * G, 0.0, 0.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.system.mu, [0.3, 0.6, 0.6, 0.6])
    np.testing.assert_allclose(r.system.v0, [0.001, 0.08, 0.001, 0.001])
    np.testing.assert_allclose(r.system.S, np.vstack([np.zeros((3, 3)), np.eye(3)]))
    np.testing.assert_array_equal(r.system.v_contact, np.zeros(8))
    (task,) = r.system.constraints
    assert task.kind == "task" and task.type == "geq"
    np.testing.assert_array_equal(task.f, [[0, 1, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(task.rhs, [5.0])
    # the front bottom corner is off the ground
    assert mech.point_position(r.q, "body", (0.25, -0.05))[1] > 0.05
