"""Spatial mechanisms: a robot from a URDF (or MJCF) with point contacts on planes, its dynamics
from Pinocchio, in the toolkit's coordinates.

``SpatialMechanism`` is the 3-D counterpart of ``contactmodes.model.mechanism.PlanarMechanism``:
at a state ``(q, q̇)`` it evaluates the terms of

    M(q) q̈ + h(q, q̇) = S τ + J(q)ᵀ f,        ẍ_c = J q̈ + J̇ q̇

(flipping paper, eqs. 3–5; Featherstone, *Rigid Body Dynamics Algorithms*, 2008, for the
algorithms: Pinocchio's CRBA gives ``M``, its RNEA ``h``, its frame Jacobians and classical
accelerations the contact terms) and the characteristic scales of
``contactmodes.model.scaling``. The robot file is read by ``contactmodes.model.spatial_robot``
(its rules: joints, base, inertias); orientations and contact frames follow
``contactmodes.model.spatial_frames``.

Coordinates
-----------
Velocity coordinates (``coordinates``, ``n_v`` of them; the ``n_q`` of a ``ContactSystem``):

* a floating base: ``x, y, z`` — the linear velocity of the root link's frame origin — and
  ``wx, wy, wz`` — the root link's angular velocity — **both in world axes**; then
* the joints, named as in the file, in Pinocchio's order: revolute and continuous joints in
  rad/s, prismatic joints in m/s.

Configuration (``configuration_names``): a floating base's position ``x, y, z`` (m, world) and
orientation quaternion ``qw, qx, qy, qz`` (scalar first, normalized on use), then one number per
joint — a continuous joint's angle too (Pinocchio stores ``(cos θ, sin θ)``). A fixed base has no
base coordinates (its placement is the mechanism's). ``contactmodes.model.spatial_state`` reads
both from named tables (``base_rpy``, degrees under ``_deg`` keys).

World-frame base velocities
---------------------------
Pinocchio's free-flyer velocity is in the **base** frame: ``v_pin = T(q) v`` with
``T = diag(Rᵀ, Rᵀ, I)`` (``R`` the base orientation, world ← base). The toolkit's terms are
converted once, here: with ``Ṫ v = (−Rᵀ (ω × ṗ), 0, 0)`` (``Ṙᵀ = −Rᵀ [ω]×``, ``ω × ω = 0``)
and ``a₀ = Ṫ v``, Pinocchio's acceleration is ``v̇_pin = T q̈ + a₀``, so

* ``M = Tᵀ M_pin T``,
* ``h = Tᵀ (M_pin a₀ + h_pin) = Tᵀ RNEA(q, v_pin, a₀)`` (one RNEA call),
* ``J = J_pin T`` (the contact point's linear Jacobian in world axes, ``LOCAL_WORLD_ALIGNED``,
  then the contact-frame rows),
* ``J̇ q̇ = J̇_pin v_pin + J_pin a₀``: Pinocchio's *classical* acceleration of the contact point
  (``getFrameClassicalAcceleration``, ``LOCAL_WORLD_ALIGNED``) after forward kinematics at
  ``(q, v_pin, a₀)`` — the point's acceleration ``p̈`` at ``q̈ = 0``. Not the spatial acceleration
  (whose linear part misses ``ω × v``): the normal row must be the gap's second derivative
  ``d²/dt² n·(p − s) = n·p̈``.

``T`` is orthogonal, so power is preserved: the generalized force dual to ``(ṗ, ω)`` is the
world force at the root link's origin and the world moment; ``S τ`` and ``Jᵀ f`` keep their
meaning. A fixed base has ``T = I``.

Contacts
--------
A point fixed on a link (position in the link's URDF frame) touching a plane (a world point and
normal), with ``mu`` and ``v0`` as in the plane; its frame ``(t1, t2, n)`` and the per-contact
component order ``(t1, t2, n)`` are ``spatial_frames.contact_frame``'s. ``J`` has rows
``(t1ᵀ, t2ᵀ, nᵀ) ∂p/∂q`` per contact, ``3k`` in all; gaps are ``n·(p − s)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError, InternalError
from contactmodes.model.mechanism import Dynamics
from contactmodes.model.spatial_frames import contact_frame, unit_quaternion, unit_quaternion_matrix
from contactmodes.model.spatial_robot import BASE_COORDINATES, RobotJoint, RobotModel, load_robot
from contactmodes.model.system import CharacteristicScales, ContactSystem, Disturbance, LinearConstraint
from contactmodes.modes.spatial_contact import SpatialPointContact
from contactmodes.tolerances import MU_MAX

__all__ = ["LinkFrame", "SpatialContact", "SpatialMechanism"]

CONFIGURATION_BASE = ("x", "y", "z", "qw", "qx", "qy", "qz")
"""Names of a floating base's configuration entries (position, quaternion ``(w, x, y, z)``)."""


@dataclass(frozen=True)
class SpatialContact:
    """A point contact of a ``SpatialMechanism`` (``SpatialMechanism.contacts``).

    Attributes
    ----------
    name : str
        Unique contact name.
    link : str
        The link (URDF) or body (MJCF) carrying the point.
    position : numpy.ndarray
        ``(3,)`` the point in the link's frame (m).
    surface_point : numpy.ndarray
        ``(3,)`` a point of the plane touched (world, m).
    frame : numpy.ndarray
        ``(3, 3)`` rows ``t1, t2, n`` (world unit vectors; ``n`` out of the environment).
    mu : float
        Friction coefficient.
    v0 : float
        Velocity threshold (m/s) of the flipping paper's Sec. IV-C.3.
    """

    name: str
    link: str
    position: np.ndarray
    surface_point: np.ndarray
    frame: np.ndarray
    mu: float
    v0: float

    @property
    def normal(self) -> np.ndarray:
        """``(3,)`` the plane's unit normal ``n`` (world)."""
        return self.frame[2]


@dataclass(frozen=True)
class LinkFrame:
    """Where a link is at a configuration (``SpatialMechanism.link_frames``), world frame, m.

    Attributes
    ----------
    name : str
        The link (URDF) or body (MJCF).
    parent : str or None
        The link it hangs from (``None`` for the root link: a floating base's, or a fixed base's
        welded to the world).
    joint : str or None
        The joint between ``parent`` and this link (a moving joint or a fixed one, as the robot
        file names it; ``None`` for the root link).
    joint_origin : numpy.ndarray
        ``(3,)`` the joint's origin (m, world); the link's origin for the root link.
    origin : numpy.ndarray
        ``(3,)`` the link frame's origin (m, world).
    rotation : numpy.ndarray
        ``(3, 3)`` the link frame's orientation (world ← link): its columns are the link's axes.
    """

    name: str
    parent: str | None
    joint: str | None
    joint_origin: np.ndarray
    origin: np.ndarray
    rotation: np.ndarray


def _scalar(value: Any, field: str, minimum: float | None = None, maximum: float | None = None) -> float:
    if isinstance(value, bool):
        raise ContactModelError(f"{field}: must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ContactModelError(f"{field}: must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ContactModelError(f"{field}: must be finite, got {x}")
    if minimum is not None and x < minimum:
        raise ContactModelError(f"{field}: must be >= {minimum:g}, got {x:g}")
    if maximum is not None and x > maximum:
        raise ContactModelError(f"{field}: must be <= {maximum:g}, got {x:g}")
    return x


def _vector(value: ArrayLike, field: str, size: int) -> np.ndarray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"{field}: not a numeric array: {value!r}") from None
    if arr.shape != (size,):
        raise ContactModelError(f"{field}: expected shape ({size},), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ContactModelError(f"{field}: contains NaN or infinite values")
    arr.setflags(write=False)
    return arr


def _name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise ContactModelError(f"{field}: must be a non-empty string, got {value!r}")
    return value


class SpatialMechanism:
    """A robot read from a URDF or MJCF file, with point contacts and actuators (module docstring).

    Parameters
    ----------
    path : str or pathlib.Path
        The robot file: ``.urdf``, or ``.xml``/``.mjcf`` for MJCF
        (``contactmodes.model.spatial_robot``).
    base : str, optional
        ``"floating"`` (the root link's pose is part of the state) or ``"fixed"`` (the root link
        is welded to the world).
    gravity : float, optional
        Magnitude ``g`` (m/s²) of gravity ``(0, 0, −g)``.
    base_position : array_like, optional
        ``(3,)`` world position (m) of a fixed base's root link frame.
    base_quaternion : array_like, optional
        ``(4,)`` orientation ``(w, x, y, z)`` of a fixed base's root link.
    name : str, optional
        A label.

    Raises
    ------
    ContactModelError
        As ``contactmodes.model.spatial_robot.load_robot`` (one line naming the field, the file or
        the joint), or a ``name`` that is not a string; ``MissingExtraError`` (``"spatial
        mechanism: needs pinocchio: pip install 'contactmodes[spatial]'"``) without Pinocchio.
    InternalError
        When Pinocchio's model does not lay the velocities out as expected (base first, then the
        joints in order): a toolkit failure.

    Notes
    -----
    Source: Pinocchio (Carpentier et al., 2019) implementing Featherstone's algorithms (CRBA, RNEA,
    frame Jacobians); the conversion to world-frame base velocities is derived in the module
    docstring.
    """

    def __init__(
        self,
        path: str | Path,
        base: str = "floating",
        gravity: float = 9.81,
        base_position: ArrayLike = (0.0, 0.0, 0.0),
        base_quaternion: ArrayLike = (1.0, 0.0, 0.0, 0.0),
        name: str = "",
    ) -> None:
        if not isinstance(name, str):
            raise ContactModelError(f"name: must be a string, got {name!r}")
        self.name: str = name
        self._robot: RobotModel = load_robot(path, base, gravity, base_position, base_quaternion)
        import pinocchio  # load_robot required it

        self._pin = pinocchio
        self.gravity: float = -float(self._robot.model.gravity.linear[2])
        self._contacts: list[SpatialContact] = []
        self._frame_ids: list[int] = []
        self._actuators: list[tuple[str, str]] = []
        self._data = None  # Pinocchio's workspace, made again when a contact frame is added
        joints = self._robot.joints
        self._joint_names = tuple(j.name for j in joints)
        base_v = BASE_COORDINATES if self.floating else ()
        self._coordinates = base_v + self._joint_names
        self._configuration_names = (CONFIGURATION_BASE if self.floating else ()) + self._joint_names
        offset = 7 if self.floating else 0
        voffset = 6 if self.floating else 0
        plain = [j for j in joints if j.kind != "continuous"]
        cont = [j for j in joints if j.kind == "continuous"]
        index = {j.name: i for i, j in enumerate(joints)}
        self._plain_user = np.array([offset + index[j.name] for j in plain], dtype=int)
        self._plain_pin = np.array([j.idx_q for j in plain], dtype=int)
        self._cont_user = np.array([offset + index[j.name] for j in cont], dtype=int)
        self._cont_pin = np.array([j.idx_q for j in cont], dtype=int)
        if any(j.idx_v != voffset + i for i, j in enumerate(joints)):  # pragma: no cover - Pinocchio's layout
            raise InternalError(f"{self.path.name}: unexpected velocity layout of Pinocchio's model")
        self._moving = list(range(1, self._robot.model.njoints))
        self._prismatic = np.array([j.kind == "prismatic" for j in joints], dtype=bool)
        self._total_mass = float(sum(self._robot.model.inertias[i].mass for i in self._moving))

    def __getstate__(self) -> dict:
        """The mechanism without the Pinocchio module and workspace: a copy sent to another
        process (a Dask worker) makes them again there."""
        state = self.__dict__.copy()
        state["_pin"], state["_data"] = None, None
        return state

    def __setstate__(self, state: dict) -> None:
        import pinocchio

        self.__dict__.update(state)
        self._pin = pinocchio

    # ---------------------------------------------------------------- structure

    @property
    def path(self) -> Path:
        """The robot file."""
        return self._robot.path

    @property
    def file_type(self) -> str:
        """``"urdf"`` or ``"mjcf"``."""
        return self._robot.file_type

    @property
    def base(self) -> str:
        """``"floating"`` or ``"fixed"``."""
        return self._robot.base

    @property
    def floating(self) -> bool:
        """Whether the base is floating."""
        return self._robot.base == "floating"

    @property
    def base_position(self) -> np.ndarray:
        """``(3,)`` a fixed base's root link position (m, world); zeros for a floating base."""
        return self._robot.base_position.copy()

    @property
    def base_rotation(self) -> np.ndarray:
        """``(3, 3)`` a fixed base's root link orientation (world ← link); identity if floating."""
        return self._robot.base_rotation.copy()

    @property
    def coordinates(self) -> tuple[str, ...]:
        """Velocity coordinate names (``n_v``): ``x, y, z, wx, wy, wz`` for a floating base, then
        the joints in Pinocchio's order."""
        return self._coordinates

    @property
    def linear_coordinates(self) -> tuple[str, ...]:
        """The velocity coordinates that are lengths (m/s): a floating base's ``x, y, z`` and the
        prismatic joints; an actuator on one of them applies a force (N), on the others (angles)
        a torque (N·m). The controllers' margin counts a force times the characteristic length
        (``contactmodes.control.margin.actuator_lengths``), as ``PlanarMechanism.linear_coordinates``."""
        joints = self._coordinates[len(self._coordinates) - len(self._prismatic):]
        base = ("x", "y", "z") if self.base == "floating" else ()
        return base + tuple(j for j, p in zip(joints, self._prismatic) if p)

    @property
    def n_v(self) -> int:
        """Number of velocity coordinates (a ``ContactSystem``'s ``n_q``)."""
        return len(self._coordinates)

    @property
    def configuration_names(self) -> tuple[str, ...]:
        """Configuration entry names: ``x, y, z, qw, qx, qy, qz`` for a floating base, then one
        per joint."""
        return self._configuration_names

    @property
    def joints(self) -> tuple[str, ...]:
        """Joint names in Pinocchio's order (the joint coordinates)."""
        return self._joint_names

    def joint_kind(self, joint: str) -> str:
        """The kind of joint ``joint``.

        Parameters
        ----------
        joint : str
            A joint name of the robot file.

        Returns
        -------
        str
            ``"revolute"``, ``"continuous"`` or ``"prismatic"``.

        Raises
        ------
        ContactModelError
            For a joint the robot does not have (the message lists its joints).
        """
        for j in self._robot.joints:
            if j.name == joint:
                return j.kind
        raise ContactModelError(f"joint: unknown joint {joint!r} (the robot's joints: {', '.join(self._joint_names)})")

    @property
    def robot_joints(self) -> tuple[RobotJoint, ...]:
        """The joints with their kinds and Pinocchio indices."""
        return self._robot.joints

    @property
    def links(self) -> tuple[str, ...]:
        """Link (URDF) or body (MJCF) names a contact may name."""
        return self._robot.links

    @property
    def total_mass(self) -> float:
        """Mass (kg) of the moving bodies (a fixed base's root link and the links welded to it
        excluded)."""
        return self._total_mass

    @property
    def pinocchio_model(self):
        """Pinocchio's ``Model`` (with a frame per contact): read it, do not change it."""
        return self._robot.model

    # ---------------------------------------------------------------- contacts and actuators

    def add_contact(
        self,
        name: str,
        link: str,
        position: ArrayLike,
        surface_point: ArrayLike,
        surface_normal: ArrayLike,
        mu: float,
        v0: float = 0.0,
        tangent: ArrayLike | None = None,
    ) -> None:
        """Add a point contact, in insertion order.

        Parameters
        ----------
        name : str
            Unique contact name.
        link : str
            The link (URDF) or body (MJCF) carrying the point.
        position : array_like
            ``(3,)`` the point in the link's frame (m).
        surface_point : array_like
            ``(3,)`` a point of the plane touched (world, m).
        surface_normal : array_like
            ``(3,)`` the plane's normal out of the environment (world; normalized here).
        mu : float
            Friction coefficient, in ``[0, MU_MAX]`` (``contactmodes.tolerances``).
        v0 : float, optional
            Velocity threshold (m/s, ``>= 0``) of the flipping paper's Sec. IV-C.3.
        tangent : array_like, optional
            ``(3,)`` the reference direction ``t1`` in the plane (world); default and rules in
            ``contactmodes.model.spatial_frames``.

        Raises
        ------
        ContactModelError
            Duplicate name, a link the robot lacks, bad numbers, a zero normal, a tangent within
            45° of the normal; the message names the field (``"contacts[c1].link: unknown link
            'foot' …"``).
        """
        _name(name, "contacts[].name")
        where = f"contacts[{name}]"
        if any(c.name == name for c in self._contacts):
            raise ContactModelError(f"{where}.name: duplicate contact name {name!r}")
        if not isinstance(link, str) or link not in self._robot.links:
            shown = ", ".join(self._robot.links[:12]) + (", …" if len(self._robot.links) > 12 else "")
            raise ContactModelError(f"{where}.link: unknown link {link!r} (the robot's links: {shown})")
        pos = _vector(position, f"{where}.position", 3)
        sp = _vector(surface_point, f"{where}.surface_point", 3)
        frame = contact_frame(surface_normal, tangent, where)
        frame.setflags(write=False)
        mu_ = _scalar(mu, f"{where}.mu", 0.0, MU_MAX)
        v0_ = _scalar(v0, f"{where}.v0", 0.0)
        pin = self._pin
        model = self._robot.model
        body_id = model.getFrameId(link, pin.FrameType.BODY)
        body = model.frames[body_id]
        placement = body.placement * pin.SE3(np.eye(3), np.array(pos))
        frame_id = model.addFrame(pin.Frame(f"contactmodes/contact/{name}", body.parentJoint, body_id, placement,
                                            pin.FrameType.OP_FRAME))
        self._contacts.append(SpatialContact(name, link, pos, sp, frame, mu_, v0_))
        self._frame_ids.append(int(frame_id))
        self._data = None

    def add_actuator(self, name: str, coordinate: str) -> None:
        """Add an actuator: a unit generalized force on ``coordinate`` (a column of ``S``).

        On a joint, a joint torque (N·m) or force (N, prismatic); on a floating base's ``x, y, z``
        a world force (N) at the root link's origin, on ``wx, wy, wz`` a world moment (N·m).

        Parameters
        ----------
        name : str
            Unique actuator name (a column of ``S``).
        coordinate : str
            A velocity coordinate (``coordinates``): a joint, or ``x``, ``y``, ``z``, ``wx``, ``wy``,
            ``wz`` of a floating base.

        Raises
        ------
        ContactModelError
            Duplicate actuator name or unknown coordinate.
        """
        _name(name, "actuators[].name")
        where = f"actuators[{name}]"
        if any(a == name for a, _ in self._actuators):
            raise ContactModelError(f"{where}.name: duplicate actuator name {name!r}")
        if coordinate not in self._coordinates:
            raise ContactModelError(f"{where}.coordinate: unknown coordinate {coordinate!r} "
                                    f"(have {', '.join(self._coordinates)})")
        self._actuators.append((name, coordinate))

    def actuate_joints(self, joints: Sequence[str] | None = None) -> None:
        """Add one actuator per joint, named by the joint (every joint by default, in order).

        Parameters
        ----------
        joints : Sequence[str], optional
            The joints to actuate, in this order; ``None``: every joint in Pinocchio's order.

        Raises
        ------
        ContactModelError
            As ``add_actuator``.
        """
        for joint in self._joint_names if joints is None else joints:
            if joint not in self._joint_names:
                raise ContactModelError(f"actuators[{joint}].coordinate: unknown joint {joint!r} "
                                        f"(have {', '.join(self._joint_names)})")
            self.add_actuator(joint, joint)

    @property
    def contacts(self) -> tuple[SpatialContact, ...]:
        """The contacts in order."""
        return tuple(self._contacts)

    @property
    def contact_names(self) -> tuple[str, ...]:
        """Contact names in order."""
        return tuple(c.name for c in self._contacts)

    @property
    def actuators(self) -> tuple[str, ...]:
        """Actuator names in order (the columns of ``S``)."""
        return tuple(a for a, _ in self._actuators)

    def actuator_matrix(self) -> np.ndarray:
        """``S`` (n_v, n_τ): column ``j`` is the unit vector of actuator ``j``'s coordinate."""
        S = np.zeros((self.n_v, len(self._actuators)))
        for j, (_, coord) in enumerate(self._actuators):
            S[self._coordinates.index(coord), j] = 1.0
        return S

    # ---------------------------------------------------------------- state

    def displace(self, q: ArrayLike, dq: ArrayLike) -> np.ndarray:
        """The configuration ``q`` moved by ``dq`` given in the velocity coordinates (a retraction).

        A floating base's position moves by ``dq[0:3]`` (m, world axes) and its orientation turns
        by the rotation vector ``dq[3:6]`` (rad, world axes): ``R' = exp([dq₃..₅]×) R``, the unit
        quaternion ``q' = (cos(θ/2), sin(θ/2) u) ⊗ q`` with ``θ u = dq[3:6]``; each joint
        coordinate moves by its entry (rad, m; a continuous joint's angle too). To first order,
        ``displace(q, ε q̇)`` is where the state ``(q, q̇)`` is after a time ``ε``: the step of
        ``contactmodes.system_file.snap.snap_state``'s Gauss–Newton iteration in 3-D.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; quaternion ``(w, x, y, z)``).
        dq : array_like
            ``(n_v,)`` displacement in the velocity coordinates (m, rad; base in world axes).

        Returns
        -------
        numpy.ndarray
            ``(len(configuration_names),)`` the displaced configuration (unit quaternion).

        Raises
        ------
        ContactModelError
            Wrong shapes, non-finite numbers, a base quaternion of norm 0.
        """
        x = _vector(q, "q", len(self._configuration_names)).copy()
        d = _vector(dq, "dq", self.n_v)
        if not self.floating:
            return x + d
        x[:3] += d[:3]
        w0, x0, y0, z0 = unit_quaternion(x[3:7], "q[3:7] (the base quaternion qw, qx, qy, qz)").tolist()
        theta = math.sqrt(float(d[3] ** 2 + d[4] ** 2 + d[5] ** 2))
        half = 0.5 * theta
        s = math.sin(half) / theta if theta > 0.0 else 0.5
        w1, x1, y1, z1 = math.cos(half), s * d[3], s * d[4], s * d[5]
        x[3:7] = (w1 * w0 - x1 * x0 - y1 * y0 - z1 * z0,  # Hamilton product (w1, v1) ⊗ (w0, v0)
                  w1 * x0 + x1 * w0 + y1 * z0 - z1 * y0,
                  w1 * y0 - x1 * z0 + y1 * w0 + z1 * x0,
                  w1 * z0 + x1 * y0 - y1 * x0 + z1 * w0)
        x[3:7] /= np.linalg.norm(x[3:7])
        x[7:] += d[6:]
        return x


    def pinocchio_state(self, q: ArrayLike, qdot: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Pinocchio's ``(q_pin, v_pin)`` of the toolkit's ``(q, q̇)``, with ``a₀ = Ṫ q̇`` and ``T``
        (module docstring).

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` velocity (m/s, rad/s; base velocities in world axes).

        Returns
        -------
        q_pin : numpy.ndarray
            ``(model.nq,)`` Pinocchio's configuration (quaternion ``(x, y, z, w)``, unit;
            continuous joints as ``(cos θ, sin θ)``).
        v_pin : numpy.ndarray
            ``(n_v,)`` Pinocchio's velocity (base twist in the base frame).
        a0 : numpy.ndarray
            ``(n_v,)`` ``Ṫ q̇``: Pinocchio's acceleration at ``q̈ = 0``.
        R : numpy.ndarray
            ``(3, 3)`` the base orientation (world ← base; identity for a fixed base).

        Raises
        ------
        ContactModelError
            Wrong shapes, non-finite numbers, a base quaternion of norm 0.
        """
        q_ = _vector(q, "q", len(self._configuration_names))
        v = _vector(qdot, "qdot", self.n_v)
        model = self._robot.model
        q_pin = np.empty(model.nq)
        q_pin[self._plain_pin] = q_[self._plain_user]
        if len(self._cont_pin):
            angles = q_[self._cont_user]
            q_pin[self._cont_pin] = np.cos(angles)
            q_pin[self._cont_pin + 1] = np.sin(angles)
        v_pin = np.array(v)
        a0 = np.zeros(self.n_v)
        R = np.eye(3)
        if self.floating:
            qw, qx, qy, qz = q_[3:7].tolist()
            norm = math.hypot(qw, qx, qy, qz)
            if not norm > 0.0:
                raise ContactModelError(f"q[3:7] (the base quaternion qw, qx, qy, qz): a quaternion (w, x, y, z) "
                                        f"must have a nonzero norm, got {[qw, qx, qy, qz]}")
            w, x, y, z = qw / norm, qx / norm, qy / norm, qz / norm
            R = unit_quaternion_matrix(w, x, y, z)
            q_pin[:3] = q_[:3]
            q_pin[3:7] = (x, y, z, w)
            Rt = R.T
            v_pin[:3] = Rt @ v[:3]
            v_pin[3:6] = Rt @ v[3:6]
            (px, py, pz), (wx, wy, wz) = v[:3].tolist(), v[3:6].tolist()
            a0[:3] = Rt @ [wz * py - wy * pz, wx * pz - wz * px, wy * px - wx * py]  # −Rᵀ (ω × ṗ)
        return q_pin, v_pin, a0, R

    # ---------------------------------------------------------------- dynamics

    def _workspace(self):
        """Pinocchio's ``Data`` and the contacts' stacked frames, made again after ``add_contact``."""
        if self._data is None:
            k = len(self._contacts)
            self._data = self._robot.model.createData()
            self._frames = np.array([c.frame for c in self._contacts]).reshape(k, 3, 3)
            self._points = np.array([c.surface_point for c in self._contacts]).reshape(k, 3)
            self._levers = np.array([self._robot.model.inertias[i].lever for i in self._moving]).reshape(-1, 3)
            n = self.n_v
            self._lower = np.tril_indices(n, -1)
            self._jlin = np.zeros((3 * k, n))
        return self._data

    def _evaluate(self, q: ArrayLike, qdot: ArrayLike, with_dynamics: bool = True):
        """Pinocchio's kinematics (and ``M``, ``h``) at the state in the toolkit's coordinates:
        ``(dynamics or None, data, positions (k, 3), J (3k, n_v), q̇)``."""
        pin = self._pin
        model, data = self._robot.model, self._workspace()
        q_pin, v_pin, a0, R = self.pinocchio_state(q, qdot)
        v = np.array(qdot, dtype=float)
        k = len(self._contacts)
        M = h = None
        if with_dynamics:
            M = np.array(pin.crba(model, data, q_pin))
            M[self._lower] = M.T[self._lower]  # CRBA fills the upper triangle
            h = np.array(pin.rnea(model, data, q_pin, v_pin, a0))
            if self.floating:  # M = Tᵀ M_pin T, h = Tᵀ RNEA(q, v_pin, a₀), T = diag(Rᵀ, Rᵀ, I)
                B = np.zeros((6, 6))
                B[:3, :3] = R
                B[3:, 3:] = R
                M[:6] = B @ M[:6]
                M[:, :6] = M[:, :6] @ B.T
                h[:6] = B @ h[:6]
                M = 0.5 * (M + M.T)  # the rotations' rounding: keep M exactly symmetric
        pin.forwardKinematics(model, data, q_pin, v_pin, a0)
        pin.computeJointJacobians(model, data)
        pin.updateFramePlacements(model, data)
        Jlin = self._jlin
        n = self.n_v
        acc = np.empty((k, 3))
        positions = np.empty((k, 3))
        lwa = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
        for i, fid in enumerate(self._frame_ids):
            # (6, n_v); Pinocchio's bindings return a (6,) array when n_v = 1
            Jlin[3 * i:3 * i + 3] = np.reshape(pin.getFrameJacobian(model, data, fid, lwa), (6, n))[:3]
            acc[i] = pin.getFrameClassicalAcceleration(model, data, fid, lwa).linear
            positions[i] = data.oMf[fid].translation
        if self.floating:  # J = J_pin T
            Jlin[:, 0:3] = Jlin[:, 0:3] @ R.T
            Jlin[:, 3:6] = Jlin[:, 3:6] @ R.T
        frames = self._frames
        J = np.matmul(frames, Jlin.reshape(k, 3, n)).reshape(3 * k, n)  # per contact: rows (t1, t2, n)
        d = None
        if with_dynamics:
            assert M is not None and h is not None  # computed above with the dynamics
            Jdq = np.matmul(frames, acc[:, :, None]).reshape(3 * k)
            gaps = (frames[:, 2] * (positions - self._points)).sum(axis=1)
            d = Dynamics(M=M, h=h, J=J, Jdot_qdot=Jdq, v_contact=J @ v, gaps=gaps, positions=positions)
        return d, data, positions, J, v

    def dynamics(self, q: ArrayLike, qdot: ArrayLike) -> Dynamics:
        """Dynamics and contact kinematics at ``(q, q̇)`` (module docstring).

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (SI; base quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` velocity (SI; base velocities in world axes).

        Returns
        -------
        Dynamics
            ``M`` (n_v, n_v), ``h`` (n_v,), ``J`` (3k, n_v), ``Jdot_qdot`` (3k,), ``v_contact``
            (3k,), ``gaps`` (k,), ``positions`` (k, 3).

        Raises
        ------
        ContactModelError
            Wrong shapes, non-finite numbers, a base quaternion of norm 0 (the message names
            ``q`` or ``qdot``).
        """
        d, *_ = self._evaluate(q, qdot)
        return d

    def link_frames(self, q: ArrayLike) -> tuple[LinkFrame, ...]:
        """Every link's frame and the joint it hangs from, at ``q`` (Pinocchio's forward kinematics).

        A link's ``parent`` is the nearest link up Pinocchio's frame tree (the body frame before
        the joint frame, moving or fixed, that carries it), so the pairs ``(parent.origin,
        joint_origin)`` and ``(joint_origin, origin)`` are the robot's skeleton.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).

        Returns
        -------
        tuple[LinkFrame, ...]
            One per link of ``links``, in that order (positions in m, world).

        Raises
        ------
        ContactModelError
            As ``dynamics``.
        """
        _, data, _, _, _ = self._evaluate(q, np.zeros(self.n_v), with_dynamics=False)  # frame placements
        pin, model = self._pin, self._robot.model
        body = pin.FrameType.BODY
        out = []
        for name in self._robot.links:
            fid = model.getFrameId(name, body)
            placement = data.oMf[fid]
            joint, joint_origin, parent = None, placement.translation, None
            f = model.frames[fid].parentFrame
            while f != 0:  # up to the universe
                frame = model.frames[f]
                if frame.type == body:
                    parent = frame.name
                    break
                if joint is None:
                    joint, joint_origin = frame.name, data.oMf[f].translation
                f = frame.parentFrame
            if parent is None:  # the root link: its joint is the free flyer or the weld to the world
                joint, joint_origin = None, placement.translation
            out.append(LinkFrame(name=name, parent=parent, joint=joint, joint_origin=np.array(joint_origin),
                                 origin=np.array(placement.translation), rotation=np.array(placement.rotation)))
        return tuple(out)

    def contact_positions(self, q: ArrayLike) -> np.ndarray:
        """``(k, 3)`` the contact points' world positions (m) at ``q``, contact order.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).

        Returns
        -------
        numpy.ndarray
            ``(k, 3)`` positions (m, world).

        Raises
        ------
        ContactModelError
            As ``dynamics``.
        """
        _, _, positions, _, _ = self._evaluate(q, np.zeros(self.n_v), with_dynamics=False)
        return positions.copy()

    def contact_gaps(self, q: ArrayLike) -> np.ndarray:
        """``(k,)`` signed distances (m) of the contact points from their planes at ``q``.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).

        Returns
        -------
        numpy.ndarray
            ``(k,)`` the gaps ``n·(p − s)`` (m), contact order.

        Raises
        ------
        ContactModelError
            As ``dynamics``.
        """
        _, _, positions, _, _ = self._evaluate(q, np.zeros(self.n_v), with_dynamics=False)
        return np.einsum("ki,ki->k", self._frames[:, 2], positions - self._points)

    def characteristic_scales(self, q: ArrayLike, qdot: ArrayLike) -> CharacteristicScales:
        """Characteristic length, mass and time at ``(q, q̇)`` for ``contactmodes.model.scaling``.

        The planar rule (``PlanarMechanism.characteristic_scales``) on the spatial points: ``L``
        the largest distance between two of the points — the moving joints' origins (a fixed
        base: its root link's origin too), the moving bodies' centres of mass and the contact
        points —; ``m`` the total mass of the moving bodies (``total_mass``); ``T = sqrt(L / a)``
        with ``a = max(g, v²/L)``, ``v`` the largest speed of those points
        (``CharacteristicScales.from_extent``). Under a change of units each scale changes by the
        unit's factor. The speeds are computed only when they can change ``a``: when the bound
        ``v <= |ṗ| + L (|ω| + Σ|q̇_revolute|) + Σ|q̇_prismatic|`` (``ṗ``, ``ω`` a floating base's)
        already gives ``v²/L < g``, ``a = g`` as they would give.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` velocity (m/s, rad/s; base velocities in world axes).

        Returns
        -------
        CharacteristicScales
            Length (m), mass (kg) and time (s) of the mechanism at the state.

        Raises
        ------
        ContactModelError
            As ``dynamics``.
        """
        _, data, positions, J, v = self._evaluate(q, qdot, with_dynamics=False)
        return self._scales(data, positions, J, v)

    def dynamics_and_scales(self, q: ArrayLike, qdot: ArrayLike) -> tuple[Dynamics, CharacteristicScales]:
        """``(dynamics(q, qdot), characteristic_scales(q, qdot))`` from one evaluation.

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` velocity (m/s, rad/s; base velocities in world axes).

        Returns
        -------
        dynamics : Dynamics
            As ``dynamics``.
        scales : CharacteristicScales
            As ``characteristic_scales``.

        Raises
        ------
        ContactModelError
            As ``dynamics``.
        """
        d, data, positions, J, v = self._evaluate(q, qdot)
        return d, self._scales(data, positions, J, v)

    def contact_system(
        self,
        q: ArrayLike,
        qdot: ArrayLike,
        contact_model: Any = None,
        constraints: Sequence[LinearConstraint] = (),
        name: str | None = None,
        disturbance: Disturbance | None = None,
    ) -> ContactSystem:
        """The ``ContactSystem`` at ``(q, q̇)`` (flipping paper, eqs. 3–5), in SI units, with a
        spatial contact model.

        As ``PlanarMechanism.contact_system``: ``M``, ``h``, ``J``, ``J̇ q̇`` and the contact
        velocities from ``dynamics`` (three rows ``(t1, t2, n)`` per contact), ``S`` is
        ``actuator_matrix``, ``mu`` and ``v0`` come from the contacts (``SpatialContact.mu``,
        ``SpatialContact.v0``), the scales are ``characteristic_scales(q, qdot)`` (one
        evaluation, ``dynamics_and_scales``); names are ``coordinates``, ``actuators`` and
        ``contact_names``. Gaps are not checked here (see ``contact_gaps``).

        Parameters
        ----------
        q : array_like
            ``(len(configuration_names),)`` configuration (m, rad; base quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` velocity (m/s, rad/s; base velocities in world axes).
        contact_model : object, optional
            The contact model every contact shares (issue 40: one model per system), with
            components ``("t1", "t2", "n")``; default ``SpatialPointContact(4, "circumscribed")``
            (``contactmodes.modes.spatial_contact``).
        constraints : Sequence[LinearConstraint], optional
            Physical and task blocks over ``(q̈, f, τ)`` (``f``: ``3k`` columns), passed through.
        name : str, optional
            The system's label; default (``None``) the mechanism's ``name``.
        disturbance : Disturbance, optional
            Bounded disturbance generalized force for the robust analysis, passed through.

        Returns
        -------
        ContactSystem
            The mechanism's model at the state; ``J`` ``(3k, n_v)``, ``Jdot_qdot`` and
            ``v_contact`` ``(3k,)``.

        Raises
        ------
        ContactModelError
            As ``dynamics``; a ``contact_model`` whose components are not ``("t1", "t2", "n")``
            (``"contact_model: …"``); from ``ContactSystem`` validation of the constraints.
        """
        model = SpatialPointContact(4, "circumscribed") if contact_model is None else contact_model
        if tuple(getattr(model, "components", ())) != ("t1", "t2", "n"):
            raise ContactModelError(f"contact_model: a spatial mechanism's contacts have components (t1, t2, n), "
                                    f"got {getattr(model, 'components', None)!r}")
        d, scales = self.dynamics_and_scales(q, qdot)
        return ContactSystem(
            M=d.M,
            h=d.h,
            S=self.actuator_matrix(),
            J=d.J,
            Jdot_qdot=d.Jdot_qdot,
            v_contact=d.v_contact,
            mu=np.array([c.mu for c in self._contacts], dtype=float),
            coordinates=self.coordinates,
            torques=self.actuators,
            contacts=self.contact_names,
            v0=np.array([c.v0 for c in self._contacts], dtype=float),
            constraints=tuple(constraints),
            name=self.name if name is None else name,
            disturbance=disturbance,
            scales=scales,
            contact_model=model,
        )

    def _scales(self, data, positions: np.ndarray, J: np.ndarray, v: np.ndarray) -> CharacteristicScales:
        """``characteristic_scales`` from Pinocchio's kinematics ``data`` (forward kinematics at
        the state) and the contact rows."""
        moving = self._moving
        origins = np.array([data.oMi[i].translation for i in moving]).reshape(-1, 3)
        rotations = np.array([data.oMi[i].rotation for i in moving]).reshape(-1, 3, 3)
        coms = origins + np.einsum("bij,bj->bi", rotations, self._levers)
        parts = [origins, coms, positions]
        if not self.floating:
            parts.append(self._robot.base_position[None, :])
        pts = np.concatenate(parts)
        diff = pts[:, None, :] - pts[None, :, :]
        length = float(np.sqrt(np.einsum("abi,abi->ab", diff, diff)).max()) if len(pts) > 1 else 0.0
        if self._speeds_below_gravity(length, v):
            return CharacteristicScales.from_extent(length, self._total_mass, self.gravity, 0.0)
        lin = np.array([data.v[i].linear for i in moving]).reshape(-1, 3)
        ang = np.array([data.v[i].angular for i in moving]).reshape(-1, 3)
        lev = self._levers
        com_v = lin + np.stack([ang[:, 1] * lev[:, 2] - ang[:, 2] * lev[:, 1],
                                ang[:, 2] * lev[:, 0] - ang[:, 0] * lev[:, 2],
                                ang[:, 0] * lev[:, 1] - ang[:, 1] * lev[:, 0]], axis=1)
        speeds = np.concatenate([np.sqrt(np.einsum("bi,bi->b", lin, lin)), np.sqrt(np.einsum("bi,bi->b", com_v, com_v)),
                                 np.sqrt(np.einsum("ki,ki->k", *(2 * [(J @ v).reshape(-1, 3)])))])
        return CharacteristicScales.from_extent(length, self._total_mass, self.gravity,
                                                float(np.max(speeds, initial=0.0)))

    def _speeds_below_gravity(self, length: float, v: np.ndarray) -> bool:
        """Whether every point speed ``u`` of the scales has ``u²/L < g`` for sure, by the bound of
        ``characteristic_scales`` with a relative allowance for rounding; ``L`` as
        ``CharacteristicScales.from_extent`` takes it (1 when not positive)."""
        g = float(self.gravity)
        if not g > 0.0:
            return False
        eff = length if length > 0.0 and math.isfinite(length) else 1.0
        offset = 6 if self.floating else 0
        joints = np.abs(v[offset:])
        turn = float(joints[~self._prismatic].sum())
        slide = float(joints[self._prismatic].sum())
        trans = 0.0
        if self.floating:
            trans = math.sqrt(float(v[:3] @ v[:3]))
            turn += math.sqrt(float(v[3:6] @ v[3:6]))
        bound = (trans + max(length, 0.0) * turn + slide) * (1.0 + 1e-9)
        return bound * bound / eff < g * (1.0 - 1e-9)
