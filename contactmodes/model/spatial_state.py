"""The state of a spatial mechanism from named tables (a system file's ``[state]``).

``state_vectors`` reads ``q`` and ``qdot`` tables into the configuration and velocity arrays of
``contactmodes.model.spatial.SpatialMechanism`` (its ``configuration_names`` and
``coordinates``). Keys (SI units; angles in rad, or in degrees under a key ending in ``_deg``, as
in the planar system file):

``q`` (every key required for a floating base, every joint always)
    ``base_position`` ``[x, y, z]`` (m, world) — the root link frame's origin; the orientation as
    one of ``base_quaternion`` ``[w, x, y, z]`` (normalized; norm 0 is an error), ``base_rpy``
    ``[roll, pitch, yaw]`` (rad) or ``base_rpy_deg`` (degrees), roll–pitch–yaw as URDF's
    ``rpy``: ``R = Rz(yaw) Ry(pitch) Rx(roll)`` (``contactmodes.model.spatial_frames``); then
    each joint by name (``JOINT`` in rad or m, ``JOINT_deg`` in degrees for revolute and
    continuous joints).
``qdot`` (every key optional, 0 when absent)
    ``base_linear`` ``[ẋ, ẏ, ż]`` (m/s) — the root link origin's velocity — and ``base_angular``
    ``[ωx, ωy, ωz]`` (rad/s; ``base_angular_deg`` in deg/s), **both in world axes**; each joint
    by name (``JOINT_deg`` in deg/s).

A fixed base takes no ``base_*`` key (its pose is the mechanism's). Errors are one line naming
the key path (``state.q.base_quaternion: …``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.model.spatial_frames import rpy_quaternion, unit_quaternion

if TYPE_CHECKING:  # pragma: no cover
    from contactmodes.model.spatial import SpatialMechanism

__all__ = ["state_vectors"]

_ORIENTATIONS = ("base_quaternion", "base_rpy", "base_rpy_deg")


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ContactModelError(f"{path}: must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ContactModelError(f"{path}: must be a finite number, got {x}")
    return x


def _numbers(value: Any, path: str, size: int) -> np.ndarray:
    if not isinstance(value, (list, tuple)) or len(value) != size:
        raise ContactModelError(f"{path}: must be an array of {size} numbers, got {value!r}")
    return np.array([_number(v, f"{path}[{i}]") for i, v in enumerate(value)])


def _table(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ContactModelError(f"{path}: must be a table, got {value!r}")
    return value


def _joint_values(mech: "SpatialMechanism", table: Mapping[str, Any], path: str, base_keys: tuple[str, ...],
                  required: bool) -> dict[str, float]:
    """The joint entries of a ``q`` or ``qdot`` table (``base_keys`` left to the caller)."""
    joints = mech.joints
    out: dict[str, float] = {}
    given_as: dict[str, str] = {}
    for key, raw in table.items():
        key_path = f"{path}.{key}"
        if key in base_keys:
            continue
        if not isinstance(key, str):
            raise ContactModelError(f"{key_path}: unknown key {key!r}")
        if key in joints:
            joint, x = key, _number(raw, key_path)
        elif key.endswith("_deg") and key[:-4] in joints:
            joint = key[:-4]
            if mech.joint_kind(joint) == "prismatic":
                raise ContactModelError(f"{key_path}: {joint!r} is a prismatic joint (a length): give it in SI "
                                        f"units under {joint!r}")
            x = math.radians(_number(raw, key_path))
        elif key.startswith("base_") and not mech.floating:
            raise ContactModelError(f"{key_path}: the base is fixed: its pose is the mechanism's, not the state's")
        elif key.startswith("base_"):
            raise ContactModelError(f"{key_path}: unknown key (base keys: {', '.join(base_keys)})")
        else:
            raise ContactModelError(f"{key_path}: unknown joint {key!r} (the robot's joints: {', '.join(joints)})")
        if joint in out:
            raise ContactModelError(f"{key_path}: joint {joint!r} is given twice ({given_as[joint]!r} and {key!r})")
        out[joint] = x
        given_as[joint] = key
    if required:
        for joint in joints:
            if joint not in out:
                raise ContactModelError(f"{path}: missing joint {joint!r}")
    return out


def _base_orientation(table: Mapping[str, Any], path: str) -> np.ndarray:
    given = [k for k in _ORIENTATIONS if k in table]
    if len(given) != 1:
        what = "is missing" if not given else f"is given {len(given)} times ({', '.join(given)})"
        raise ContactModelError(f"{path}: the base orientation {what}: give one of {', '.join(_ORIENTATIONS)}")
    key = given[0]
    key_path = f"{path}.{key}"
    if key == "base_quaternion":
        return unit_quaternion(_numbers(table[key], key_path, 4), key_path)
    rpy = _numbers(table[key], key_path, 3)
    return rpy_quaternion(np.radians(rpy) if key.endswith("_deg") else rpy, key_path)


def state_vectors(mechanism: "SpatialMechanism", q: Mapping[str, Any], qdot: Mapping[str, Any] | None = None,
                  path: str = "state") -> tuple[np.ndarray, np.ndarray]:
    """The configuration and velocity arrays of named ``q`` and ``qdot`` tables (module docstring).

    Parameters
    ----------
    mechanism : SpatialMechanism
        The mechanism (its joints, their kinds and its base).
    q : Mapping
        The configuration table.
    qdot : Mapping, optional
        The velocity table (absent: at rest).
    path : str, optional
        Key path of the tables in error messages (``"state"``: ``state.q.…``, ``state.qdot.…``).

    Returns
    -------
    q : numpy.ndarray
        ``(len(mechanism.configuration_names),)``: base position, unit quaternion ``(w, x, y, z)``
        (floating base), then the joints (rad, m).
    qdot : numpy.ndarray
        ``(mechanism.n_v,)``: base linear and angular velocity in world axes (floating base),
        then the joints (rad/s, m/s).

    Raises
    ------
    ContactModelError
        One line naming the key: a missing or unknown key, a joint the robot lacks, a number that
        is not finite, a quaternion of norm 0, two orientations, degrees for a prismatic joint,
        ``base_*`` keys for a fixed base.
    """
    q_path, qd_path = f"{path}.q", f"{path}.qdot"
    q_table = _table(q, q_path)
    qd_table = _table({} if qdot is None else qdot, qd_path)
    q_base_keys = ("base_position",) + _ORIENTATIONS if mechanism.floating else ()
    qd_base_keys = ("base_linear", "base_angular", "base_angular_deg") if mechanism.floating else ()
    joints_q = _joint_values(mechanism, q_table, q_path, q_base_keys, required=True)
    joints_v = _joint_values(mechanism, qd_table, qd_path, qd_base_keys, required=False)
    q_joints = np.array([joints_q[j] for j in mechanism.joints], dtype=float)
    v_joints = np.array([joints_v.get(j, 0.0) for j in mechanism.joints], dtype=float)
    if not mechanism.floating:
        return q_joints, v_joints
    if "base_position" not in q_table:
        raise ContactModelError(f"{q_path}.base_position: required key is missing (the floating base's position)")
    position = _numbers(q_table["base_position"], f"{q_path}.base_position", 3)
    quaternion = _base_orientation(q_table, q_path)
    linear = _numbers(qd_table["base_linear"], f"{qd_path}.base_linear", 3) if "base_linear" in qd_table \
        else np.zeros(3)
    if "base_angular" in qd_table and "base_angular_deg" in qd_table:
        raise ContactModelError(f"{qd_path}.base_angular_deg: the angular velocity is given twice "
                                f"(base_angular and base_angular_deg)")
    if "base_angular_deg" in qd_table:
        angular = np.radians(_numbers(qd_table["base_angular_deg"], f"{qd_path}.base_angular_deg", 3))
    elif "base_angular" in qd_table:
        angular = _numbers(qd_table["base_angular"], f"{qd_path}.base_angular", 3)
    else:
        angular = np.zeros(3)
    return (np.concatenate([position, quaternion, q_joints]),
            np.concatenate([linear, angular, v_joints]))
