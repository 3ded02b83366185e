"""Tests of ``contactmodes.model.mechanism`` against independent derivations.

Reference values come from sympy Lagrange equations, finite differences of independently coded
energies/kinematics, and hand-derived closed forms — never from output of the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from contactmodes.errors import ContactModelError
from contactmodes.model.mechanism import Dynamics, PlanarMechanism
from contactmodes.model.system import ContactSystem, LinearConstraint

G = 9.81
RNG = np.random.default_rng(20240611)


# ------------------------------------------------------------------------------- fixtures

# floating body + two-link chain: (name, parent, joint, joint_position, mass, com, inertia)
FLOAT_LINKS = [
    ("body", None, None, (0.0, 0.0), 2.0, (0.1, -0.05), 0.3),
    ("upper", "body", "q1", (0.4, 0.1), 0.7, (0.25, 0.02), 0.04),
    ("lower", "upper", "q2", (0.5, 0.0), 0.0, (0.0, 0.0), 0.0),  # mass only via point masses
]
FLOAT_POINT_MASSES = [("body", 0.5, (-0.3, 0.2)), ("lower", 0.3, (0.35, -0.04)), ("lower", 0.2, (0.1, 0.0))]
FLOAT_CONTACT = ("toe", "lower", (0.45, 0.03), (0.2, -0.1), (0.3, 1.0))  # name, link, pos, s, n


def floating_chain() -> PlanarMechanism:
    mech = PlanarMechanism(base="floating", gravity=G, name="chain")
    for name, parent, joint, jp, m, com, inertia in FLOAT_LINKS:
        mech.add_link(name, parent=parent, joint=joint, joint_position=jp, mass=m, com=com, inertia=inertia)
    for link, m, pos in FLOAT_POINT_MASSES:
        mech.add_point_mass(link, m, pos)
    name, link, pos, s, n = FLOAT_CONTACT
    mech.add_contact(name, link, pos, s, n, mu=0.6, v0=0.01)
    mech.add_contact("heel", "body", (-0.2, -0.1), (0.0, 0.0), (0.0, 2.0), mu=0.4)
    mech.add_actuator("hip", "q1")
    mech.add_actuator("knee", "q2")
    return mech


def sympy_floating_reference():
    """Lambdified M(q), h(q, qd), toe position/Jacobian/J̇q̇ from sympy Lagrange equations."""
    x, y, th, q1, q2 = sp.symbols("x y theta q1 q2")
    xd, yd, thd, q1d, q2d = sp.symbols("xd yd thd q1d q2d")
    q = [x, y, th, q1, q2]
    qd = [xd, yd, thd, q1d, q2d]

    def R(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])

    def vec(v):
        return sp.Matrix([sp.nsimplify(v[0]), sp.nsimplify(v[1])])

    # frames written out by hand
    ang = {"body": th, "upper": th + q1, "lower": th + q1 + q2}
    org = {"body": sp.Matrix([x, y])}
    org["upper"] = org["body"] + R(ang["body"]) * vec(FLOAT_LINKS[1][3])
    org["lower"] = org["upper"] + R(ang["upper"]) * vec(FLOAT_LINKS[2][3])

    def point(link, pos):
        return org[link] + R(ang[link]) * vec(pos)

    def time_derivative(expr):
        return sum((sp.diff(expr, qi) * qdi for qi, qdi in zip(q, qd)), sp.S(0))

    T = sp.S(0)
    V = sp.S(0)
    masses = [(name, m, com) for name, _, _, _, m, com, _ in FLOAT_LINKS] + list(FLOAT_POINT_MASSES)
    for link, m, pos in masses:
        p = point(link, pos)
        v = p.applyfunc(time_derivative)
        T += sp.Rational(1, 2) * sp.nsimplify(m) * (v.T * v)[0]
        V += sp.nsimplify(m) * sp.nsimplify(G) * p[1]
    for name, _, _, _, _, _, inertia in FLOAT_LINKS:
        w = time_derivative(ang[name])
        T += sp.Rational(1, 2) * sp.nsimplify(inertia) * w**2

    Mq = sp.hessian(T, qd)
    dTdqd = [sp.diff(T, v) for v in qd]
    h = sp.Matrix(
        [sum((sp.diff(dTdqd[i], q[j]) * qd[j] for j in range(5)), sp.S(0)) - sp.diff(T, q[i]) + sp.diff(V, q[i])
         for i in range(5)]
    )
    toe = point(FLOAT_CONTACT[1], FLOAT_CONTACT[2])
    Jtoe = toe.jacobian(q)
    acc0 = (Jtoe * sp.Matrix(qd)).applyfunc(time_derivative)  # J̇ q̇ (q̈ = 0)
    f = lambda e: sp.lambdify([q, qd], e, "numpy")  # noqa: E731
    return f(Mq), f(h), f(toe), f(Jtoe), f(acc0)


def contact_frame(normal):
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    return np.array([n[1], -n[0]]), n


# ------------------------------------------------------------------------------- sympy Lagrange


def test_floating_chain_matches_sympy_lagrange():
    mech = floating_chain()
    assert mech.coordinates == ("x", "y", "theta", "q1", "q2")
    M_ref, h_ref, toe_ref, Jtoe_ref, acc_ref = sympy_floating_reference()
    t, n = contact_frame(FLOAT_CONTACT[4])
    for _ in range(6):
        q = RNG.uniform(-2, 2, 5)
        qd = RNG.uniform(-3, 3, 5)
        d = mech.dynamics(q, qd)
        assert isinstance(d, Dynamics)
        np.testing.assert_allclose(d.M, np.array(M_ref(q, qd), float), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(d.h, np.array(h_ref(q, qd), float).ravel(), rtol=1e-11, atol=1e-11)
        p = np.array(toe_ref(q, qd), float).ravel()
        Jp = np.array(Jtoe_ref(q, qd), float)
        a0 = np.array(acc_ref(q, qd), float).ravel()
        np.testing.assert_allclose(d.positions[0], p, atol=1e-13)
        np.testing.assert_allclose(d.J[0], t @ Jp, atol=1e-12)
        np.testing.assert_allclose(d.J[1], n @ Jp, atol=1e-12)
        np.testing.assert_allclose(d.Jdot_qdot[:2], [t @ a0, n @ a0], atol=1e-11)
        np.testing.assert_allclose(d.v_contact, d.J @ qd, atol=1e-12)
        np.testing.assert_allclose(d.gaps[0], n @ (p - np.array(FLOAT_CONTACT[3])), atol=1e-13)


# ------------------------------------------------------------------------------- finite differences

# fixed-base three-link arm, hand-coded independent forward kinematics
ARM = [  # joint_position (parent frame), mass, com, inertia
    ((0.0, 0.0), 1.5, (0.3, 0.05), 0.02),
    ((0.6, 0.0), 1.0, (0.2, -0.03), 0.015),
    ((0.45, 0.05), 0.4, (0.1, 0.0), 0.005),
]
ARM_BASE = np.array([0.3, -0.2])
ARM_TIP = np.array([0.25, 0.02])


def arm() -> PlanarMechanism:
    mech = PlanarMechanism(base="fixed", gravity=G, base_position=ARM_BASE)
    parent = None
    for i, (jp, m, com, inertia) in enumerate(ARM):
        mech.add_link(f"l{i}", parent=parent, joint=f"j{i}", joint_position=jp, mass=m, com=com, inertia=inertia)
        parent = f"l{i}"
    mech.add_point_mass("l2", 0.25, ARM_TIP)
    mech.add_contact("tip", "l2", ARM_TIP, (1.0, 0.0), (-1.0, 0.5), mu=0.5)
    mech.add_contact("elbow", "l1", (0.0, 0.0), (0.0, 0.0), (0.2, -1.0), mu=1.0)
    return mech


def arm_points(q):
    """Independent FK: list of (mass, inertia, position, absolute angle) plus tip and elbow."""
    R = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])  # noqa: E731
    origin, angle, parent_angle = ARM_BASE.copy(), 0.0, 0.0
    elems = []
    origins = []
    for i, (jp, m, com, inertia) in enumerate(ARM):
        if i > 0:
            origin = origin + R(parent_angle) @ np.array(jp)
        angle = q[i] if i == 0 else parent_angle + q[i]
        origins.append(origin)
        elems.append((m, inertia, origin + R(angle) @ np.array(com), angle))
        parent_angle = angle
    tip = origin + R(angle) @ ARM_TIP
    elems.append((0.25, 0.0, tip, angle))
    return elems, tip, origins[1]


def arm_energy(q, qd, eps=1e-6):
    """T (velocities by central differences of the independent FK) and V."""
    plus, _, _ = arm_points(q + eps * qd)
    minus, _, _ = arm_points(q - eps * qd)
    here, _, _ = arm_points(q)
    T = 0.0
    for (m, inertia, pp, ap), (_, _, pm, am) in zip(plus, minus):
        v = (pp - pm) / (2 * eps)
        w = (ap - am) / (2 * eps)
        T += 0.5 * m * v @ v + 0.5 * inertia * w * w
    V = sum(m * G * p[1] for m, _, p, _ in here)
    return T, V


def test_fixed_arm_inertia_is_hessian_of_kinetic_energy_and_h_from_christoffel():
    mech = arm()
    n = 3
    for _ in range(3):
        q = RNG.uniform(-np.pi, np.pi, n)
        qd = RNG.uniform(-2, 2, n)
        d = mech.dynamics(q, qd)
        # T = qd^T M qd / 2 is quadratic in qd: M_ij = (T(e_i + e_j) - T(e_i - e_j)) / 2 (polarization)
        E = np.eye(n)
        T = lambda v: arm_energy(q, v)[0]  # noqa: E731
        H = np.array([[(T(E[i] + E[j]) - T(E[i] - E[j])) / 2.0 for j in range(n)] for i in range(n)])
        np.testing.assert_allclose(d.M, H, atol=1e-7)
        # Christoffel symbols from dM/dq (central differences of the code's M: consistency)
        eps = 1e-6
        dM = np.array(
            [(mech.dynamics(q + eps * E[k], qd).M - mech.dynamics(q - eps * E[k], qd).M) / (2 * eps) for k in range(n)]
        )  # dM[k] = ∂M/∂q_k
        c = np.array(
            [sum((dM[k, i, j] - 0.5 * dM[i, j, k]) * qd[j] * qd[k] for j in range(n) for k in range(n)) for i in range(n)]
        )
        # gravity: gradient of the independent V
        g = np.array([(arm_energy(q + eps * E[i], qd)[1] - arm_energy(q - eps * E[i], qd)[1]) / (2 * eps) for i in range(n)])
        np.testing.assert_allclose(d.h, c + g, atol=1e-6)
        # h at zero velocity is pure gravity
        np.testing.assert_allclose(mech.dynamics(q, np.zeros(n)).h, g, atol=1e-6)


def test_contact_jacobian_and_jdot_qdot_by_finite_differences():
    for mech, n in ((arm(), 3), (floating_chain(), 5)):
        frames = [contact_frame(c.normal) for c in mech._contacts]
        for _ in range(3):
            q = RNG.uniform(-2, 2, n)
            qd = RNG.uniform(-2, 2, n)
            d = mech.dynamics(q, qd)
            eps = 1e-6
            E = np.eye(n)
            dP = np.array(
                [(mech.dynamics(q + eps * E[j], qd).positions - mech.dynamics(q - eps * E[j], qd).positions) / (2 * eps)
                 for j in range(n)]
            )  # (n, k, 2)
            J_fd = np.vstack([np.vstack([t @ dP[:, i, :].T, nn @ dP[:, i, :].T]) for i, (t, nn) in enumerate(frames)])
            np.testing.assert_allclose(d.J, J_fd, atol=1e-8)
            Jdot = (mech.dynamics(q + eps * qd, qd).J - mech.dynamics(q - eps * qd, qd).J) / (2 * eps)
            np.testing.assert_allclose(d.Jdot_qdot, Jdot @ qd, atol=1e-7)


def test_arm_tip_position_against_independent_fk():
    mech = arm()
    q = np.array([0.3, -1.1, 0.7])
    _, tip, elbow = arm_points(q)
    d = mech.dynamics(q, np.zeros(3))
    np.testing.assert_allclose(d.positions, [tip, elbow], atol=1e-14)
    np.testing.assert_allclose(mech.point_position(q, "l2", ARM_TIP), tip, atol=1e-14)
    pose = mech.link_pose(q, "l2")
    np.testing.assert_allclose(pose[2], q.sum())
    t, n = contact_frame((-1.0, 0.5))
    np.testing.assert_allclose(mech.contact_gaps(q)[0], n @ (tip - [1.0, 0.0]), atol=1e-14)


# ------------------------------------------------------------------------------- hand examples


@pytest.mark.parametrize("theta", [0.0, 0.4, math.pi / 2, 2.5, -1.0])
def test_single_pendulum_by_hand(theta):
    m, l = 1.7, 0.8
    mech = PlanarMechanism(base="fixed", gravity=G, base_position=(1.0, 2.0))
    mech.add_link("rod", joint="th", mass=m, com=(l, 0.0))
    mech.add_contact("bob", "rod", (l, 0.0), (0.0, 0.0), (0.0, 1.0), mu=0.3)
    mech.add_actuator("motor", "th")
    w = 1.3
    d = mech.dynamics([theta], [w])
    np.testing.assert_allclose(d.M, [[m * l * l]])
    np.testing.assert_allclose(d.h, [m * G * l * math.cos(theta)], atol=1e-12)  # no Coriolis for 1 DOF
    # bob at (1 + l cos, 2 + l sin); ground normal (0,1), tangent (1,0)
    np.testing.assert_allclose(d.positions[0], [1 + l * math.cos(theta), 2 + l * math.sin(theta)])
    np.testing.assert_allclose(d.J, [[-l * math.sin(theta)], [l * math.cos(theta)]], atol=1e-15)
    np.testing.assert_allclose(d.Jdot_qdot, [-l * w * w * math.cos(theta), -l * w * w * math.sin(theta)], atol=1e-12)
    np.testing.assert_allclose(d.gaps, [2 + l * math.sin(theta)])


def test_pendulum_with_inertia_and_floating_body_by_hand():
    # fixed pendulum with central inertia: M = I + m l^2
    mech = PlanarMechanism(base="fixed")
    mech.add_link("rod", joint="th", mass=2.0, com=(0.5, 0.0), inertia=0.1)
    np.testing.assert_allclose(mech.dynamics([0.2], [0.0]).M, [[0.1 + 2.0 * 0.25]])
    # free body with com at the frame origin: M = diag(m, m, I), h = (0, m g, 0)
    body = PlanarMechanism(base="floating", gravity=3.0)
    body.add_link("b", mass=4.0, inertia=0.5)
    d = body.dynamics([1.0, 2.0, 0.3], [0.5, -0.2, 2.0])
    np.testing.assert_allclose(d.M, np.diag([4.0, 4.0, 0.5]))
    np.testing.assert_allclose(d.h, [0.0, 12.0, 0.0])
    assert d.J.shape == (0, 3) and d.gaps.shape == (0,) and d.positions.shape == (0, 2)


def test_massless_leg_gives_singular_inertia_but_full_contact_jacobian():
    mech = PlanarMechanism(base="floating")
    mech.add_link("body", mass=3.0, inertia=0.2)
    mech.add_link("leg", parent="body", joint="phi", joint_position=(0.2, -0.05))
    mech.add_contact("toe", "leg", (0.15, 0.0), (0.0, -1.0), (0.0, 1.0), mu=0.8)
    mech.add_actuator("hip", "phi")
    q = np.array([0.1, -0.7, 0.3, -1.4])
    qd = np.array([0.2, 0.1, -0.5, 1.0])
    d = mech.dynamics(q, qd)
    np.testing.assert_allclose(d.M, np.diag([3.0, 3.0, 0.2, 0.0]))
    np.testing.assert_array_equal(d.M[3], 0.0)
    np.testing.assert_array_equal(d.M[:, 3], 0.0)
    assert np.linalg.matrix_rank(d.M) == 3
    np.testing.assert_allclose(d.h, [0.0, 3.0 * 9.81, 0.0, 0.0])
    # toe lever arm 0.15 on an absolute leg angle 0.3 - 1.4; d toe / d phi = 0.15 * perp(dir)
    a = q[2] + q[3]
    dtoe_dphi = 0.15 * np.array([-math.sin(a), math.cos(a)])
    np.testing.assert_allclose(d.J[:, 3], dtoe_dphi, atol=1e-15)  # t = (1, 0), n = (0, 1)
    assert np.all(np.abs(d.J[:, 3]) > 1e-3)
    sys_ = mech.contact_system(q, qd)
    assert sys_.coordinates == ("x", "y", "theta", "phi")
    np.testing.assert_array_equal(sys_.S, [[0.0], [0.0], [0.0], [1.0]])


def test_contact_system_fields():
    mech = floating_chain()
    q = RNG.uniform(-1, 1, 5)
    qd = RNG.uniform(-1, 1, 5)
    con = LinearConstraint("task", "eq", qdd=np.eye(5)[:1], f=np.zeros((1, 4)), tau=np.zeros((1, 2)), rhs=[0.0])
    s = mech.contact_system(q, qd, constraints=[con])
    assert isinstance(s, ContactSystem)
    assert s.name == "chain" and mech.contact_system(q, qd, name="other").name == "other"
    assert s.torques == ("hip", "knee") == mech.actuators
    assert s.contacts == ("toe", "heel") == mech.contact_names
    np.testing.assert_array_equal(s.S, np.eye(5)[:, 3:])
    np.testing.assert_array_equal(s.mu, [0.6, 0.4])
    np.testing.assert_array_equal(s.v0, [0.01, 0.0])
    assert len(s.constraints) == 1
    d = mech.dynamics(q, qd)
    np.testing.assert_array_equal(s.M, d.M)
    np.testing.assert_array_equal(s.J, d.J)
    # normals were normalized: heel normal (0, 2) -> (0, 1), tangent (1, 0)
    np.testing.assert_allclose(mech.contact_gaps(q)[1], d.positions[1, 1])


def test_graph_and_actuators_on_base_coordinates():
    mech = floating_chain()
    mech.add_actuator("thrust", "y")
    g = mech.graph
    assert set(g.nodes) == {"body", "upper", "lower"}
    assert g.edges["body", "upper"]["joint"] == "q1"
    assert g.edges["upper", "lower"]["joint"] == "q2"
    np.testing.assert_array_equal(g.edges["body", "upper"]["joint_position"], [0.4, 0.1])
    np.testing.assert_array_equal(mech.actuator_matrix()[:, 2], [0, 1, 0, 0, 0])


# ------------------------------------------------------------------------------- errors


def err(match):
    return pytest.raises(ContactModelError, match=match)


def test_errors_name_the_field():
    mech = PlanarMechanism()
    with err(r"links\[body\]\.mass: must be >= 0"):
        mech.add_link("body", mass=-1.0)
    with err(r"links\[body\]\.inertia"):
        mech.add_link("body", inertia=float("nan"))
    with err(r"links: no root link"):
        mech.dynamics([0, 0, 0], [0, 0, 0])
    mech.add_link("body", mass=1.0)
    with err(r"links\[link2\]\.parent: unknown link 'foo'"):
        mech.add_link("link2", parent="foo", joint="a")
    with err(r"links\[body\]\.name: duplicate"):
        mech.add_link("body", parent="body", joint="b")
    with err(r"links\[other\]\.parent: a root link"):
        mech.add_link("other")
    with err(r"links\[leg\]\.joint"):
        mech.add_link("leg", parent="body")
    with err(r"links\[leg\]\.joint: duplicate coordinate name 'theta'"):
        mech.add_link("leg", parent="body", joint="theta")
    with err(r"links\[leg\]\.com"):
        mech.add_link("leg", parent="body", joint="a", com=(0.0, float("inf")))
    mech.add_link("leg", parent="body", joint="a")
    with err(r"contacts\[c1\]\.surface_normal: must be non-zero"):
        mech.add_contact("c1", "leg", (0, 0), (0, 0), (0.0, 0.0), mu=0.5)
    with err(r"contacts\[c1\]\.mu: must be >= 0"):
        mech.add_contact("c1", "leg", (0, 0), (0, 0), (0.0, 1.0), mu=-0.5)
    with err(r"contacts\[c1\]\.v0: must be >= 0"):
        mech.add_contact("c1", "leg", (0, 0), (0, 0), (0.0, 1.0), mu=0.5, v0=-1)
    with err(r"contacts\[c1\]\.link: unknown link 'nope'"):
        mech.add_contact("c1", "nope", (0, 0), (0, 0), (0.0, 1.0), mu=0.5)
    mech.add_contact("c1", "leg", (0, 0), (0, 0), (0.0, 1.0), mu=0.5)
    with err(r"contacts\[c1\]\.name: duplicate"):
        mech.add_contact("c1", "leg", (0, 0), (0, 0), (0.0, 1.0), mu=0.5)
    with err(r"point_masses\[0\]\.mass: must be >= 0"):
        mech.add_point_mass("leg", -0.1)
    with err(r"point_masses\[0\]\.link: unknown link"):
        mech.add_point_mass("arm", 0.1)
    with err(r"actuators\[m\]\.coordinate: unknown coordinate 'zz'"):
        mech.add_actuator("m", "zz")
    mech.add_actuator("m", "a")
    with err(r"actuators\[m\]\.name: duplicate"):
        mech.add_actuator("m", "x")
    with err(r"q: expected shape \(4,\), got \(3,\)"):
        mech.dynamics([0.0, 0.0, 0.0], [0.0] * 4)
    with err(r"qdot: expected shape \(4,\), got \(5,\)"):
        mech.dynamics([0.0] * 4, [0.0] * 5)
    with err(r"q: contains NaN"):
        mech.contact_gaps([0.0, float("nan"), 0.0, 0.0])
    with err(r"link: unknown link"):
        mech.link_pose([0.0] * 4, "foo")


def test_base_errors():
    with err(r"base: must be one of"):
        PlanarMechanism(base="hovering")
    with err(r"gravity"):
        PlanarMechanism(gravity=float("nan"))
    fixed = PlanarMechanism(base="fixed")
    with err(r"links\[r\]\.joint"):
        fixed.add_link("r")
    with err(r"links\[r\]\.joint_position"):
        fixed.add_link("r", joint="j", joint_position=(1.0, 0.0))
    floating = PlanarMechanism()
    with err(r"links\[r\]\.joint: the root of a floating base"):
        floating.add_link("r", joint="j")


def test_parts_give_back_what_was_added_as_copies():
    mech = floating_chain()
    parts = mech.parts()
    assert [(l["name"], l["parent"], l["joint"]) for l in parts.links] == [(n, p, j) for n, p, j, *_ in FLOAT_LINKS]
    for l, (_, _, _, jp, m, com, inertia) in zip(parts.links, FLOAT_LINKS):
        assert np.allclose(l["joint_position"], jp) and l["mass"] == m and np.allclose(l["com"], com)
        assert l["inertia"] == inertia
    assert [(l, m, tuple(p)) for l, m, p in parts.point_masses] == FLOAT_POINT_MASSES
    c, heel = parts.contacts
    assert (heel["name"], heel["mu"], heel["v0"]) == ("heel", 0.4, 0.0) and np.allclose(heel["normal"], [0, 1])
    assert c["mu"] == 0.6 and c["v0"] == 0.01
    name, link, pos, s, n = FLOAT_CONTACT
    n_unit = np.array(n) / np.hypot(*n)
    assert (c["name"], c["link"]) == (name, link) and np.allclose(c["position"], pos)
    assert np.allclose(c["surface_point"], s) and np.allclose(c["normal"], n_unit)
    assert np.allclose(c["tangent"], [n_unit[1], -n_unit[0]])  # t = (n_y, -n_x), docs/conventions.md
    assert parts.actuators == [("hip", "q1"), ("knee", "q2")]
    parts.links[0]["com"][0] = 99.0  # a copy: the mechanism is unchanged
    assert mech.parts().links[0]["com"][0] == FLOAT_LINKS[0][5][0]


@pytest.mark.parametrize("path", ["snake/snake_chimney.toml", "quadruped/quadruped.toml", "rhex_flip_start.toml",
                                  "five_link_climb.toml", "two_link_brace.toml"])
def test_dynamics_and_scales_are_the_two_calls_bit_for_bit(path):
    """``dynamics_and_scales``'s NumPy path (one kinematics pass, shared points) gives exactly
    ``dynamics`` and ``characteristic_scales`` at random states (point masses, floating and fixed
    bases): the same operations in one run. The public call, compiled where numba is installed,
    gives them within ``KERNEL_RTOL`` of their scales (``_mechanism_kernel``, *Agreement*; exactly
    where NumPy's BLAS rounds as the kernel does)."""
    from pathlib import Path

    from contactmodes.system_file.loader import load_system_file
    from contactmodes.tolerances import KERNEL_RTOL

    loaded = load_system_file(Path(__file__).resolve().parents[3] / "examples" / path,
                         lifted_contacts=path.startswith(("snake", "quadruped")))
    mech = loaded.mechanism
    form = mech._kernel_parts()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = np.asarray(loaded.q, dtype=float) + rng.normal(scale=0.2, size=mech.n_q)
        qdot = rng.normal(size=mech.n_q)
        d0, s0 = mech.dynamics(q, qdot), mech.characteristic_scales(q, qdot)
        dn, sn = mech._numpy_dynamics_and_scales(q, qdot)
        d, s = mech.dynamics_and_scales(q, qdot)
        fields = ("M", "h", "J", "Jdot_qdot", "v_contact", "gaps", "positions")
        for field in fields:
            a, b = getattr(dn, field), getattr(d0, field)
            assert a.shape == b.shape and a.tobytes() == b.tobytes(), field
        assert (sn.length, sn.mass, sn.time) == (s0.length, s0.mass, s0.time)
        if form is None:  # no numba: the public call is the NumPy path
            assert all(getattr(d, f).tobytes() == getattr(d0, f).tobytes() for f in fields)
            continue
        from contactmodes.model import _mechanism_kernel

        states = mech._link_states(q, qdot)
        pts = np.array(mech._scale_points(states)[0]).reshape(-1, 2)
        M_s, h_s, J_s, a_s, gap_s, far, _, _, _ = _mechanism_kernel.reference_scales(form, qdot, pts)
        for field, scale in (("M", M_s), ("h", h_s), ("J", J_s), ("Jdot_qdot", a_s), ("gaps", gap_s),
                             ("positions", far), ("v_contact", (J_s * (1 + mech.n_q)) @ np.abs(qdot))):
            a, b = getattr(d, field), getattr(d0, field)
            assert a.shape == b.shape and np.all(np.abs(a - b) <= KERNEL_RTOL * np.broadcast_to(scale, b.shape)), field
        assert s.mass == s0.mass and abs(s.length - s0.length) <= KERNEL_RTOL * far
        assert abs(s.time - s0.time) <= 4 * KERNEL_RTOL * s0.time


@pytest.mark.parametrize("path", ["snake/snake_chimney.toml", "rhex_flip_start.toml", "two_link_brace.toml"])
def test_characteristic_time_without_the_speeds_when_they_are_below_gravity(path):
    """``characteristic_scales`` skips the point speeds when a bound proves ``v²/L < g``; its time
    is the one of ``from_extent`` with the largest point speed found independently (central
    differences of the points' positions along ``q̇``: frame origins, centres of mass, contacts),
    slow (the shortcut) and fast (the speeds computed) alike, and ``√(L/g)`` when slow."""
    from pathlib import Path

    from contactmodes.model.system import CharacteristicScales
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(Path(__file__).resolve().parents[3] / "examples" / path,
                         lifted_contacts=path.startswith("snake"))
    mech = loaded.mechanism
    parts = mech.parts()
    rng = np.random.default_rng(3)

    def points(q):
        pts = []
        for link in parts.links:
            pts.append(mech.point_position(q, link["name"], [0.0, 0.0]))
            pts.append(mech.point_position(q, link["name"], link["com"]))
        pts += [mech.point_position(q, c["link"], c["position"]) for c in parts.contacts]
        return np.array(pts)

    slow = 0
    for speed in (1e-4, 1e-2, 1.0, 30.0):
        q = np.asarray(loaded.q, dtype=float) + rng.normal(scale=0.1, size=mech.n_q)
        qdot = rng.normal(scale=speed, size=mech.n_q)
        eps = 1e-6 / max(1.0, float(np.abs(qdot).max()))
        v = np.linalg.norm(points(q + eps * qdot) - points(q - eps * qdot), axis=1) / (2 * eps)
        s = mech.characteristic_scales(q, qdot)
        ref = CharacteristicScales.from_extent(s.length, s.mass, mech.gravity, float(v.max()))
        assert s.time == pytest.approx(ref.time, rel=1e-6)
        if v.max() ** 2 / s.length < 0.5 * mech.gravity:
            slow += 1
            assert s.time == pytest.approx(np.sqrt(s.length / mech.gravity), rel=1e-15)
    assert slow >= 1
