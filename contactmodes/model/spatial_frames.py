"""Orientations and contact frames of spatial mechanisms: the conventions, in one place.

Pure NumPy (no Pinocchio): what a system file, a state table and the dynamics
(``contactmodes.model.spatial``) agree on.

Orientation
-----------
* A rotation matrix ``R`` maps body-frame coordinates to world coordinates: a point ``r`` of the
  base frame is at ``p + R r`` in the world (``p`` the frame's origin).
* Quaternions are ``(w, x, y, z)``, scalar first (as MuJoCo and the system file write them;
  Pinocchio stores ``(x, y, z, w)``: ``contactmodes.model.spatial`` converts, nowhere else). Any
  finite quaternion of nonzero norm is accepted and normalized (``q`` and ``−q`` are the same
  rotation); norm 0 is an error naming the field.
* Roll–pitch–yaw ``(r, p, y)`` (rad) is URDF's ``rpy`` (and ROS ``tf``'s):
  ``R = Rz(y) · Ry(p) · Rx(r)`` — roll about the world ``x`` axis, then pitch about the world ``y``
  axis, then yaw about the world ``z`` axis (extrinsic X–Y–Z; the same rotation as intrinsic
  Z–Y′–X″: yaw, then pitch about the new ``y``, then roll about the newest ``x``).

Contact frame
-------------
A point contact touches a plane with unit normal ``n`` pointing **out of the environment**. Its
frame is the right-handed orthonormal triple ``(t1, t2, n)`` with ``t1`` a reference direction in
the plane and ``t2 = n × t1``; every per-contact vector (positions, velocities, accelerations,
forces, Jacobian rows) is ordered ``(t1, t2, n)``, contacts in order:
``f = (f_t1,1, f_t2,1, f_n,1, …)``. It generalizes the planar ``(t, n)`` with ``t = (n_y, −n_x)``
(``docs/conventions.md``): a planar robot moving in the world ``x–z`` plane (the planar frame's
``y`` is the world ``z``) has ``t1 = n × e`` with ``e = −y`` the plane's normal (the planar ``t``),
and ``t2 = +y`` out of the plane.

``t1`` is, unless given, the world ``x`` axis projected into the plane — or the world ``y`` axis
projected, when ``x`` is within 45° of the normal (``|n·x| > 1/√2``, a plane steeper than 45°
across ``x``): a horizontal floor has ``t1 = x``, ``t2 = y``; a slope tilted about ``y`` keeps
``t1`` down/up the slope up to 45°. Either projection has length at least ``1/√2``, so ``t1`` is
well conditioned. A given ``tangent`` must make an angle of at least 45° with the normal
(``|t̂·n| <= 1/√2``, the same bound) and is projected into the plane and normalized.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError

__all__ = ["MAX_TANGENT_COSINE", "contact_frame", "finite_vector", "quaternion_matrix", "quaternion_rpy", "rpy_matrix",
           "rpy_quaternion", "unit_quaternion", "unit_quaternion_matrix"]

MAX_TANGENT_COSINE = 1.0 / math.sqrt(2.0)
"""Largest ``|cos|`` of the angle between a contact's tangent direction and its normal: a given
``tangent`` closer to the normal is refused, and the default ``t1`` switches from the world ``x``
to the world ``y`` axis beyond it (module docstring). A rule of the convention, not a rounding
tolerance: either projection into the plane keeps at least ``1/√2`` of its length."""


def finite_vector(value: ArrayLike, field: str, size: int = 3) -> np.ndarray:
    """``value`` as a float array of shape ``(size,)`` with finite entries.

    Parameters
    ----------
    value : array_like
        The numbers given for ``field``.
    field : str
        The field named in the error message.
    size : int, optional
        The number of entries expected (default 3).

    Returns
    -------
    numpy.ndarray
        ``(size,)`` a new float array.

    Raises
    ------
    ContactModelError
        One line naming ``field``: not numeric, another shape, or a NaN or infinite entry.
    """
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"{field}: not a numeric array: {value!r}") from None
    if arr.shape != (size,):
        raise ContactModelError(f"{field}: expected {size} numbers, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ContactModelError(f"{field}: contains NaN or infinite values")
    return arr


def unit_quaternion(quaternion: ArrayLike, field: str = "quaternion") -> np.ndarray:
    """The quaternion ``(w, x, y, z)`` normalized (module docstring).

    Parameters
    ----------
    quaternion : array_like
        ``(4,)`` ``(w, x, y, z)``, any finite nonzero norm.
    field : str, optional
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``(4,)`` unit quaternion ``(w, x, y, z)``.

    Raises
    ------
    ContactModelError
        Not four finite numbers, or norm 0 (``"FIELD: must have a nonzero norm …"``).
    """
    q = finite_vector(quaternion, field, 4)
    norm = math.hypot(*q.tolist())  # no overflow or underflow of the squares
    if not norm > 0.0:
        raise ContactModelError(f"{field}: a quaternion (w, x, y, z) must have a nonzero norm, got {q.tolist()}")
    return q / norm


def quaternion_matrix(quaternion: ArrayLike, field: str = "quaternion") -> np.ndarray:
    """Rotation matrix (world ← body) of a quaternion ``(w, x, y, z)`` (normalized first).

    Parameters
    ----------
    quaternion : array_like
        ``(4,)`` ``(w, x, y, z)``, any finite nonzero norm.
    field : str, optional
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``(3, 3)`` rotation matrix.

    Raises
    ------
    ContactModelError
        As ``unit_quaternion``.
    """
    return unit_quaternion_matrix(*unit_quaternion(quaternion, field))


def unit_quaternion_matrix(w: float, x: float, y: float, z: float) -> np.ndarray:
    """Rotation matrix (world ← body) of a quaternion ``(w, x, y, z)`` already of unit norm (not
    checked: ``quaternion_matrix`` checks and normalizes).

    Parameters
    ----------
    w, x, y, z : float
        The unit quaternion's components, scalar first.

    Returns
    -------
    numpy.ndarray
        ``(3, 3)`` rotation matrix.
    """
    return np.array([
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
    ])


def rpy_matrix(rpy: ArrayLike, field: str = "rpy") -> np.ndarray:
    """Rotation matrix ``Rz(y) Ry(p) Rx(r)`` of roll–pitch–yaw angles (URDF's ``rpy``).

    Parameters
    ----------
    rpy : array_like
        ``(3,)`` roll, pitch, yaw (rad).
    field : str, optional
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``(3, 3)`` rotation matrix (world ← body).

    Raises
    ------
    ContactModelError
        Not three finite numbers.
    """
    r, p, y = finite_vector(rpy, field)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def rpy_quaternion(rpy: ArrayLike, field: str = "rpy") -> np.ndarray:
    """Unit quaternion ``(w, x, y, z)`` of roll–pitch–yaw angles: ``±q_z(y) ⊗ q_y(p) ⊗ q_x(r)``, the
    rotation of ``rpy_matrix``, the sign chosen so that ``w >= 0``.

    Parameters
    ----------
    rpy : array_like
        ``(3,)`` roll, pitch, yaw (rad).
    field : str, optional
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``(4,)`` unit quaternion ``(w, x, y, z)``.

    Raises
    ------
    ContactModelError
        Not three finite numbers.
    """
    r, p, y = finite_vector(rpy, field) * 0.5
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    q = np.array([
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ])
    return -q if q[0] < 0.0 else q


def quaternion_rpy(quaternion: ArrayLike, near: ArrayLike | None = None, field: str = "quaternion") -> np.ndarray:
    """Roll–pitch–yaw angles of a quaternion: the inverse of ``rpy_quaternion``.

    Of the two angle triples of a rotation, ``(r, p, y)`` and ``(r + π, π − p, y + π)``, and their
    shifts by whole turns, the one nearest ``near`` is returned (each angle within ``π`` of
    ``near``'s), so that a file's written angles (a yaw of 370°) change only by the rotation's
    change; without ``near``, pitch in ``[−π/2, π/2]`` and roll, yaw in ``(−π, π]``. Yaw is read
    first, then roll and pitch from ``Rz(yaw)ᵀ R = Ry(pitch) Rx(roll)``, so the angles reproduce the
    rotation to rounding even near pitch ``±π/2``, where roll and yaw are ill-determined; at gimbal
    lock (pitch ``±π/2`` to rounding) yaw takes ``near``'s value (or 0) and roll the rest.

    Parameters
    ----------
    quaternion : array_like
        ``(4,)`` ``(w, x, y, z)``, any finite nonzero norm.
    near : array_like, optional
        ``(3,)`` roll, pitch, yaw (rad) to stay near.
    field : str, optional
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``(3,)`` roll, pitch, yaw (rad) with ``rpy_matrix(rpy) = quaternion_matrix(quaternion)``.

    Raises
    ------
    ContactModelError
        Not four finite numbers, or norm 0.
    """
    R = quaternion_matrix(quaternion, field)
    ref = np.zeros(3) if near is None else finite_vector(near, "near")
    cos_pitch = math.hypot(float(R[0, 0]), float(R[1, 0]))
    locked = cos_pitch <= 8.0 * np.finfo(float).eps
    yaw = float(ref[2]) if locked else math.atan2(float(R[1, 0]), float(R[0, 0]))
    c, s = math.cos(yaw), math.sin(yaw)
    row0 = c * R[0] + s * R[1]  # Rz(yaw)ᵀ R = Ry(pitch) Rx(roll): rows (cp, sp sr, sp cr), (0, cr, −sr)
    row1 = c * R[1] - s * R[0]
    roll = math.atan2(-float(row1[2]), float(row1[1]))
    pitch = math.atan2(-float(R[2, 0]), float(row0[0]))
    candidates = [np.array([roll, pitch, yaw])]
    if near is None:
        return candidates[0]
    if not locked:
        candidates.append(np.array([roll + math.pi, math.pi - pitch, yaw + math.pi]))
    shifted = [c + 2.0 * math.pi * np.round((ref - c) / (2.0 * math.pi)) for c in candidates]
    return min(shifted, key=lambda c: float(np.abs(c - ref).max()))


def contact_frame(normal: ArrayLike, tangent: ArrayLike | None = None, field: str = "contact") -> np.ndarray:
    """The contact frame ``(t1, t2, n)`` of a plane (module docstring).

    Parameters
    ----------
    normal : array_like
        ``(3,)`` the plane's normal out of the environment (world; normalized here).
    tangent : array_like, optional
        ``(3,)`` the reference direction ``t1`` (world), projected into the plane and normalized;
        at least 45° from the normal. Default: the world ``x`` axis projected into the plane, or
        the world ``y`` axis when ``|n·x| > 1/√2``.
    field : str, optional
        Prefix of error messages (``"FIELD.surface_normal: …"``, ``"FIELD.tangent: …"``).

    Returns
    -------
    numpy.ndarray
        ``(3, 3)``: rows ``t1``, ``t2 = n × t1``, ``n``; an orthonormal, right-handed frame
        (``det = +1``), world coordinates.

    Raises
    ------
    ContactModelError
        A normal or tangent that is not three finite numbers, a zero normal or tangent, or a
        tangent within 45° of the normal.
    """
    nv = finite_vector(normal, f"{field}.surface_normal")
    norm = float(np.linalg.norm(nv))
    if not norm > 0.0:
        raise ContactModelError(f"{field}.surface_normal: must be a nonzero vector, got {nv.tolist()}")
    n = nv / norm
    if tangent is None:
        axis = np.array([1.0, 0.0, 0.0]) if abs(n[0]) <= MAX_TANGENT_COSINE else np.array([0.0, 1.0, 0.0])
    else:
        tv = finite_vector(tangent, f"{field}.tangent")
        tnorm = float(np.linalg.norm(tv))
        if not tnorm > 0.0:
            raise ContactModelError(f"{field}.tangent: must be a nonzero vector, got {tv.tolist()}")
        axis = tv / tnorm
        if abs(float(axis @ n)) > MAX_TANGENT_COSINE:
            raise ContactModelError(f"{field}.tangent: must make an angle of at least 45 degrees with the "
                                    f"surface normal (it is projected into the plane), got {tv.tolist()}")
    t1 = axis - (axis @ n) * n
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    t2 /= np.linalg.norm(t2)  # unit up to rounding already; keeps the frame orthonormal to the last bit
    return np.array([t1, t2, n])
