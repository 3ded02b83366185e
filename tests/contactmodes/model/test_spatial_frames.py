"""Orientation and contact-frame conventions (contactmodes.model.spatial_frames) against SciPy's
rotations and hand-derived frames."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from contactmodes.errors import ContactModelError
from contactmodes.model.spatial_frames import (MAX_TANGENT_COSINE, contact_frame, quaternion_matrix, rpy_matrix,
                                               rpy_quaternion, unit_quaternion)


def test_quaternions_are_scalar_first_and_normalized():
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.normal(size=4) * rng.uniform(0.01, 100.0)
        expected = Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()  # SciPy: scalar last
        np.testing.assert_allclose(quaternion_matrix(q), expected, atol=1e-14)
        np.testing.assert_allclose(quaternion_matrix(-q), expected, atol=1e-14)
        assert np.linalg.norm(unit_quaternion(q)) == pytest.approx(1.0, abs=1e-15)
    # a quarter turn about z written without normalizing: x goes to y
    np.testing.assert_allclose(quaternion_matrix([1.0, 0.0, 0.0, 1.0]) @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("bad, message", [([0.0, 0.0, 0.0, 0.0], "nonzero norm"), ([1.0, 0.0, 0.0], "4 numbers"),
                                          ([1.0, math.nan, 0.0, 0.0], "NaN")])
def test_bad_quaternions_name_the_field(bad, message):
    with pytest.raises(ContactModelError, match=rf"^base_quaternion: .*{message}") as info:
        quaternion_matrix(bad, "base_quaternion")
    assert "\n" not in str(info.value)


def test_rpy_is_urdfs_extrinsic_xyz():
    """``R = Rz(yaw) Ry(pitch) Rx(roll)``: SciPy's extrinsic ``"xyz"`` (lower case) and intrinsic
    ``"ZYX"`` with the angles reversed."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        rpy = rng.uniform(-math.pi, math.pi, size=3)
        R = rpy_matrix(rpy)
        np.testing.assert_allclose(R, Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)
        np.testing.assert_allclose(R, Rotation.from_euler("ZYX", rpy[::-1]).as_matrix(), atol=1e-14)
        q = rpy_quaternion(rpy)
        np.testing.assert_allclose(quaternion_matrix(q), R, atol=1e-14)
        assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-15) and q[0] >= 0.0
    # a pure pitch of 90 degrees sends x to -z
    np.testing.assert_allclose(rpy_matrix([0.0, math.pi / 2, 0.0]) @ [1.0, 0.0, 0.0], [0.0, 0.0, -1.0], atol=1e-15)


def _check_frame(F, n):
    np.testing.assert_allclose(F @ F.T, np.eye(3), atol=1e-15)
    assert np.linalg.det(F) == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(F[2], np.asarray(n) / np.linalg.norm(n), atol=1e-15)
    np.testing.assert_allclose(np.cross(F[2], F[0]), F[1], atol=1e-15)


@pytest.mark.parametrize("normal, t1", [
    ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0)),                       # floor: t1 = x, t2 = y
    ((0.0, 0.0, 2.0), (1.0, 0.0, 0.0)),                       # normalized
    ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),                       # wall facing +x: x is normal, t1 = y
    ((-1.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
    ((math.sin(0.3), 0.0, math.cos(0.3)), (math.cos(0.3), 0.0, -math.sin(0.3))),   # slope about y: down the slope
    ((0.0, 0.0, -1.0), (1.0, 0.0, 0.0)),                      # ceiling: t1 = x, t2 = -y
])
def test_default_tangent(normal, t1):
    F = contact_frame(normal)
    _check_frame(F, normal)
    np.testing.assert_allclose(F[0], t1, atol=1e-15)


def test_default_tangent_switches_at_45_degrees_across_x():
    for angle, axis in ((math.pi / 4 - 1e-9, 0), (math.pi / 4 + 1e-9, 1)):
        n = (math.sin(angle), 0.0, math.cos(angle))
        F = contact_frame(n)
        _check_frame(F, n)
        assert abs(F[0][axis]) >= MAX_TANGENT_COSINE - 1e-12  # the chosen axis, projected: at least 1/sqrt(2)
    rng = np.random.default_rng(3)
    for _ in range(200):  # every normal: orthonormal, right-handed, t1 from x (or y) with length >= 1/sqrt(2)
        n = rng.normal(size=3)
        F = contact_frame(n)
        _check_frame(F, n)
        u = n / np.linalg.norm(n)
        axis = np.eye(3)[0] if abs(u[0]) <= MAX_TANGENT_COSINE else np.eye(3)[1]
        projected = axis - (axis @ u) * u
        np.testing.assert_allclose(F[0], projected / np.linalg.norm(projected), atol=1e-14)


def test_given_tangent_is_projected_into_the_plane():
    n = (0.0, math.sin(0.2), math.cos(0.2))
    F = contact_frame(n, tangent=(0.0, 1.0, 0.0))  # not in the plane: projected (up the slope)
    _check_frame(F, n)
    np.testing.assert_allclose(F[0], (0.0, math.cos(0.2), -math.sin(0.2)), atol=1e-15)
    np.testing.assert_allclose(F[1], (-1.0, 0.0, 0.0), atol=1e-15)


@pytest.mark.parametrize("normal, tangent, field, message", [
    ((0.0, 0.0, 0.0), None, "surface_normal", "nonzero"),
    ((0.0, 0.0, 1.0), (0.0, 0.0, 0.0), "tangent", "nonzero"),
    ((0.0, 0.0, 1.0), (0.1, 0.0, 1.0), "tangent", "45 degrees"),
    ((0.0, 0.0, 1.0), (1.0, 0.0), "tangent", "3 numbers"),
    ((0.0, math.inf, 1.0), None, "surface_normal", "NaN or infinite"),
])
def test_bad_frames_name_the_field(normal, tangent, field, message):
    with pytest.raises(ContactModelError, match=rf"^contacts\[c1\]\.{field}: .*{message}"):
        contact_frame(normal, tangent, "contacts[c1]")
