"""A planar robot embedded in 3-D: the spatial dynamics (Pinocchio) equals the planar model's
(contactmodes.model.urdf reading the same URDF in its ``"xz"`` plane: its own analytic dynamics).

The robot moves in the world ``x–z`` plane (every moving joint axis along ``±y``). The planar
coordinates ``(x, y, θ, joints)`` map to the spatial velocity by ``v_s = Eᵀ v_p``: planar ``x`` is
``x``, planar ``y`` is ``z``, ``θ`` (counter-clockwise about the plane normal ``−y``) is ``−wy``, a
joint whose axis is ``−y`` is the URDF value, ``+y`` its negative (read from the file here). Then
``M_p = E M_s Eᵀ``, ``h_p = E h_s``, the planar contact rows ``(t, n)`` are the spatial ``(t1, n)``
rows times ``Eᵀ`` with ``t1 = n × (−y)`` (the planar ``t``), the ``t2 = +y`` rows vanish on
in-plane motion, and ``J̇q̇``, gaps, positions agree. The characteristic scales agree when the
points coincide (no offsets along ``y``: the two-link brace).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from _support.paths import EXAMPLES
from _support.robots import SPATIAL

pytest.importorskip("pinocchio")
pytest.importorskip("yourdfpy")

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.urdf import load_urdf  # noqa: E402

ATOL = 1e-12


def _signs(path) -> dict[str, int]:
    """Planar coordinate sign of each moving URDF joint: +1 for axis −y, −1 for +y."""
    out = {}
    for joint in ET.parse(path).getroot().findall("joint"):
        if joint.get("type") in ("revolute", "continuous"):
            axis = [float(v) for v in joint.find("axis").get("xyz").split()]
            assert axis[0] == 0.0 and axis[2] == 0.0 and abs(axis[1]) == 1.0
            out[joint.get("name")] = -int(axis[1])
    return out


def _embedding(planar, spatial, signs) -> np.ndarray:
    """``E`` (n_p, n_s) with ``v_p = E v_s`` on in-plane motion (module docstring)."""
    E = np.zeros((planar.n_q, spatial.n_v))
    col = {name: i for i, name in enumerate(spatial.coordinates)}
    for i, name in enumerate(planar.coordinates):
        if name == "x":
            E[i, col["x"]] = 1.0
        elif name == "y":
            E[i, col["z"]] = 1.0
        elif name == "theta":
            E[i, col["wy"]] = -1.0
        else:
            E[i, col[name]] = signs[name]
    return E


def _spatial_state(spatial, E, qp, vp):
    """The spatial ``(q, q̇)`` of the planar ``(q_p, v_p)``: base rotated by ``−θ`` about ``y``."""
    x, z, theta = qp[:3]
    half = -theta / 2.0
    q = np.zeros(len(spatial.configuration_names))
    q[:7] = (x, 0.0, z, math.cos(half), 0.0, math.sin(half), 0.0)
    joint_part = E[3:, 6:]  # planar joint = sign × spatial joint
    q[7:] = joint_part.T @ qp[3:]
    return q, E.T @ vp


def _pair(path, contacts):
    planar = load_urdf(path, plane="xz", base="floating")
    spatial = SpatialMechanism(path, base="floating")
    for i, (link, (a, b), point, normal) in enumerate(contacts):
        planar.add_contact(f"c{i}", link, (a, b), point, normal, 0.5)
        n3 = np.array([normal[0], 0.0, normal[1]])
        spatial.add_contact(f"c{i}", link, (a, 0.0, b), (point[0], 0.0, point[1]), n3, 0.5,
                            tangent=np.cross(n3, [0.0, -1.0, 0.0]))
    return planar, spatial


WALKER = (SPATIAL / "planar_walker.urdf",
          [("foot", (0.05, -0.01), (0.0, -0.6), (0.0, 1.0)), ("arm", (0.3, 0.0), (0.5, 0.0), (-0.6, 0.8)),
           ("body", (-0.1, 0.05), (0.0, 0.0), (1.0, 0.0)), ("thigh", (0.0, -0.1), (0.2, 0.1), (0.3, -1.0))])
BRACE = (EXAMPLES / "two_link_brace.urdf",
         [("link1", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)), ("link2_tip", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)),
          ("link2", (0.0, 0.0), (-0.0898, 0.0), (1.0, 0.0))])


@pytest.mark.parametrize("robot", [WALKER, BRACE], ids=["walker", "two_link_brace"])
def test_planar_robot_in_space_has_the_planar_dynamics(robot):
    path, contacts = robot
    planar, spatial = _pair(path, contacts)
    E = _embedding(planar, spatial, _signs(path))
    rng = np.random.default_rng(12)
    for _ in range(5):
        qp = rng.normal(size=planar.n_q)
        vp = rng.normal(scale=2.0, size=planar.n_q)
        q, qdot = _spatial_state(spatial, E, qp, vp)
        p, s = planar.dynamics(qp, vp), spatial.dynamics(q, qdot)
        np.testing.assert_allclose(E @ s.M @ E.T, p.M, rtol=0, atol=ATOL * np.abs(p.M).max())
        np.testing.assert_allclose(E @ s.h, p.h, rtol=0, atol=ATOL * np.abs(p.h).max())
        rows_t1, rows_t2, rows_n = s.J[0::3], s.J[1::3], s.J[2::3]
        np.testing.assert_allclose(rows_t1 @ E.T, p.J[0::2], rtol=0, atol=ATOL * np.abs(p.J).max())
        np.testing.assert_allclose(rows_n @ E.T, p.J[1::2], rtol=0, atol=ATOL * np.abs(p.J).max())
        np.testing.assert_allclose(rows_t2 @ E.T, 0.0, rtol=0, atol=ATOL * np.abs(p.J).max())
        np.testing.assert_allclose(s.Jdot_qdot[0::3], p.Jdot_qdot[0::2], rtol=0, atol=ATOL * np.abs(p.Jdot_qdot).max())
        np.testing.assert_allclose(s.Jdot_qdot[2::3], p.Jdot_qdot[1::2], rtol=0, atol=ATOL * np.abs(p.Jdot_qdot).max())
        np.testing.assert_allclose(s.Jdot_qdot[1::3], 0.0, rtol=0, atol=ATOL * np.abs(p.Jdot_qdot).max())
        np.testing.assert_allclose(s.v_contact[1::3], 0.0, rtol=0, atol=ATOL * np.abs(p.v_contact).max())
        np.testing.assert_allclose(s.gaps, p.gaps, rtol=0, atol=ATOL)
        np.testing.assert_allclose(s.positions[:, [0, 2]], p.positions, rtol=0, atol=ATOL)


def test_planar_robot_in_space_has_the_planar_scales():
    """The two-link brace's points (joints, centres of mass, contacts) lie in the plane: the same
    length, mass and time as the planar model's, at rest and at speed."""
    path, contacts = BRACE
    planar, spatial = _pair(path, contacts)
    E = _embedding(planar, spatial, _signs(path))
    rng = np.random.default_rng(13)
    for speed in (0.0, 0.1, 30.0):
        qp = rng.normal(size=planar.n_q)
        vp = rng.normal(scale=speed, size=planar.n_q)
        a = planar.characteristic_scales(qp, vp)
        d, b = spatial.dynamics_and_scales(*_spatial_state(spatial, E, qp, vp))
        assert b == spatial.characteristic_scales(*_spatial_state(spatial, E, qp, vp))
        for name in ("length", "mass", "time"):
            assert getattr(b, name) == pytest.approx(getattr(a, name), rel=1e-12), name
