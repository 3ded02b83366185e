"""MuJoCo models of spatial mechanisms: the robot file as MuJoCo itself reads it (URDF → MJCF).

``mujoco_model`` builds the MuJoCo model of a ``contactmodes.model.spatial.SpatialMechanism``
from the same robot file, read by **MuJoCo's own parser** (not from Pinocchio's model), so that
comparing the two checks the file's reading as well as the dynamics; ``mjcf`` writes it as MJCF
text. It is the plant of simulations (the sim extra, ``pip install 'contactmodes[sim]'``) and the
independent reference of the spatial dynamics' tests.

What is changed in a URDF before MuJoCo reads it
------------------------------------------------
* ``<visual>`` and ``<collision>`` elements are removed: MuJoCo cannot open ``package://`` mesh
  paths, and the contacts are the toolkit's points, not the robot's meshes.
* Joint ``<dynamics>`` (damping, friction) are removed: the toolkit's model has neither. Joint
  limits are kept (MuJoCo enforces them as constraints; they do not enter ``M`` or ``h``).
* Any ``<mujoco>`` element is replaced by ``<compiler fusestatic="true" balanceinertia="false"
  discardvisual="true"/>``: links on fixed joints are fused into the body they hang on (as
  Pinocchio merges them), inertias are never altered silently.
* A link whose own inertial MuJoCo does not take as it is — an inertia not positive definite or
  whose principal moments violate the triangle inequality ``A + B >= C`` (MuJoCo rejects it:
  Go1's and ANYmal's dummy ``base``, mass and every entry ``1e-6``), or a zero mass with a
  nonzero inertia (MuJoCo drops it when it fuses the link, Pinocchio adds it: Bolt's feet) —
  and that is attached by a fixed joint has its mass and inertia moved into that neighbour
  (parallel-axis theorem; the rigid body they form, the one both MuJoCo and Pinocchio simulate,
  is unchanged). Without a fixed neighbour MuJoCo's own error is reported.

Then, on the ``mujoco.MjSpec``: a ``freejoint`` on the root body for a floating base (an MJCF
that has one keeps it); a fixed base's root body placed at the mechanism's base pose; gravity
``(0, 0, −g)``; one ``site`` per contact, named as the contact, on the contact's link at its
position. An MJCF file is read as it is, with the same additions.

Coordinates (``MujocoCoordinates``)
-----------------------------------
MuJoCo's free joint has ``qpos = (p, quaternion (w, x, y, z))`` and ``qvel = (ṗ in world axes,
ω in the body frame)``; the toolkit's velocity has ``ω`` in world axes
(``contactmodes.model.spatial``). Joints are matched by name (MuJoCo's order can differ from
Pinocchio's); a continuous joint is a hinge whose ``qpos`` is the angle.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError
from contactmodes.extras import require
from contactmodes.model.spatial_frames import quaternion_matrix, rpy_matrix, unit_quaternion

if TYPE_CHECKING:  # pragma: no cover
    from contactmodes.model.spatial import SpatialMechanism

__all__ = ["MujocoCoordinates", "mjcf", "mujoco_model", "mujoco_spec", "mujoco_urdf"]

_COMPILER = {"fusestatic": "true", "balanceinertia": "false", "discardvisual": "true", "angle": "radian"}
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


# ------------------------------------------------------------------------------------------------
# the URDF as MuJoCo reads it


def _floats(text: str | None, size: int, default: float = 0.0) -> np.ndarray:
    if text is None:
        return np.full(size, default)
    values = [float(v) for v in text.split()]
    if len(values) != size:
        raise ValueError(f"expected {size} numbers, got {text!r}")
    return np.array(values)


def _origin(element: ET.Element | None) -> tuple[np.ndarray, np.ndarray]:
    """``(R, p)`` of an ``<origin xyz rpy>`` (identity when absent)."""
    origin = element.find("origin") if element is not None else None
    if origin is None:
        return np.eye(3), np.zeros(3)
    return rpy_matrix(_floats(origin.get("rpy"), 3)), _floats(origin.get("xyz"), 3)


def _inertial(link: ET.Element) -> tuple[float, np.ndarray, np.ndarray] | None:
    """``(mass, centre of mass (3,), inertia about it (3, 3))`` in the link's frame, or ``None``."""
    inertial = link.find("inertial")
    if inertial is None:
        return None
    mass_el, inertia_el = inertial.find("mass"), inertial.find("inertia")
    mass = float(mass_el.get("value", "0")) if mass_el is not None else 0.0
    v = {k: float(inertia_el.get(k, "0")) if inertia_el is not None else 0.0 for k in _INERTIA_KEYS}
    inertia = np.array([[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]], [v["ixz"], v["iyz"], v["izz"]]])
    R, p = _origin(inertial)
    return mass, p, R @ inertia @ R.T


def _mujoco_accepts(mass: float, inertia: np.ndarray) -> bool:
    """Whether MuJoCo takes a link's inertial as it is: a positive mass, a positive definite
    inertia with principal moments ``A + B >= C`` (it rejects the others, or drops the inertia of
    a massless link when it fuses it)."""
    eig = np.linalg.eigvalsh(inertia)
    return bool(mass > 0.0 and eig[0] > 0.0 and eig[0] + eig[1] >= eig[2])


def _write_inertial(link: ET.Element, mass: float, com: np.ndarray, inertia: np.ndarray) -> None:
    for old in link.findall("inertial"):
        link.remove(old)
    if mass == 0.0:
        return
    inertial = ET.SubElement(link, "inertial")
    ET.SubElement(inertial, "origin", xyz=" ".join(repr(float(x)) for x in com), rpy="0 0 0")
    ET.SubElement(inertial, "mass", value=repr(float(mass)))
    idx = {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2), "izz": (2, 2)}
    ET.SubElement(inertial, "inertia", {k: repr(float(inertia[i, j])) for k, (i, j) in idx.items()})


def _fold_into(neighbour: ET.Element, link: ET.Element, R: np.ndarray, p: np.ndarray) -> None:
    """Move ``link``'s inertial into ``neighbour``; ``(R, p)``: ``link``'s frame in ``neighbour``'s."""
    own = _inertial(link)
    assert own is not None
    m1, c1, I1 = own
    c1, I1 = R @ c1 + p, R @ I1 @ R.T
    other = _inertial(neighbour)
    m2, c2, I2 = other if other is not None else (0.0, np.zeros(3), np.zeros((3, 3)))
    m = m1 + m2
    if m == 0.0:
        _write_inertial(link, 0.0, c1, I1)
        return
    c = (m1 * c1 + m2 * c2) / m
    I = np.zeros((3, 3))
    for mi, ci, Ii in ((m1, c1, I1), (m2, c2, I2)):
        d = ci - c
        I += Ii + mi * (float(d @ d) * np.eye(3) - np.outer(d, d))
    _write_inertial(neighbour, m, c, 0.5 * (I + I.T))
    _write_inertial(link, 0.0, c1, I1)


def _fold_rejected_inertias(root: ET.Element) -> None:
    """Move each inertia MuJoCo would reject into a neighbour on a fixed joint (module docstring)."""
    links = {link.get("name"): link for link in root.findall("link")}
    joints = [(j, pe.get("link"), ce.get("link")) for j in root.findall("joint") if j.get("type") == "fixed"
              for pe, ce in [(j.find("parent"), j.find("child"))] if pe is not None and ce is not None]
    for name, link in links.items():
        own = _inertial(link)
        if own is None or _mujoco_accepts(own[0], own[2]):
            continue
        for joint, parent, child in joints:
            R, p = _origin(joint)  # the child's frame in the parent's
            if child == name and parent in links:
                _fold_into(links[parent], link, R, p)
                break
            if parent == name and child in links:
                _fold_into(links[child], link, R.T, -(R.T @ p))
                break


def mujoco_urdf(path: str | Path) -> str:
    """The URDF text MuJoCo reads for ``path`` (the changes of the module docstring).

    Parameters
    ----------
    path : str or pathlib.Path
        A URDF file.

    Returns
    -------
    str
        The URDF document, with a ``<mujoco><compiler …/></mujoco>`` element.

    Raises
    ------
    ContactModelError
        The file cannot be read or is not well-formed URDF XML (one line naming the file).
    """
    p = Path(path)
    try:
        root = ET.parse(p).getroot()
    except (ET.ParseError, OSError) as exc:
        raise ContactModelError(f"{p.name}: cannot read the URDF: {exc}") from None
    if root.tag != "robot":
        raise ContactModelError(f"{p.name}: not a URDF file: the root element is <{root.tag}>")
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
    for joint in root.findall("joint"):
        for element in joint.findall("dynamics"):
            joint.remove(element)
    for element in root.findall("mujoco"):
        root.remove(element)
    try:
        _fold_rejected_inertias(root)
    except ValueError as exc:
        raise ContactModelError(f"{p.name}: a malformed <origin> or <inertial>: {exc}") from None
    ET.SubElement(ET.SubElement(root, "mujoco"), "compiler", _COMPILER)
    return ET.tostring(root, encoding="unicode")


# ------------------------------------------------------------------------------------------------
# the MuJoCo model


def _has_free_joint(body) -> bool:
    import mujoco

    return any(j.type == mujoco.mjtJoint.mjJNT_FREE for j in body.joints)


def mujoco_spec(mechanism: "SpatialMechanism"):
    """The ``mujoco.MjSpec`` of a mechanism (module docstring), not compiled.

    Parameters
    ----------
    mechanism : SpatialMechanism
        The mechanism: its robot file, base, gravity and contacts.

    Returns
    -------
    mujoco.MjSpec
        The specification; ``compile()`` gives the ``MjModel`` (``mujoco_model`` does and checks).

    Raises
    ------
    ContactModelError
        MuJoCo cannot read the file (one line naming it); ``MissingExtraError`` without MuJoCo.
    """
    require("mujoco", "sim", "MuJoCo model")
    import mujoco

    path = mechanism.path
    try:
        if mechanism.file_type == "urdf":
            spec = mujoco.MjSpec.from_string(mujoco_urdf(path))
        else:
            spec = mujoco.MjSpec.from_file(str(path))
    except ValueError as exc:
        raise ContactModelError(f"{path.name}: MuJoCo cannot read it: {_first_line(exc)}") from None
    root = spec.worldbody.first_body()
    if root is None:
        raise ContactModelError(f"{path.name}: MuJoCo finds no body in it")
    if mechanism.floating:
        if not _has_free_joint(root):
            root.add_freejoint()
    else:
        root.pos = np.array(mechanism.base_position)
        root.quat = _matrix_quaternion(mechanism.base_rotation)
    spec.option.gravity = np.array([0.0, 0.0, -mechanism.gravity])
    for c in mechanism.contacts:
        body = spec.body(c.link)
        if body is None:
            raise ContactModelError(f"contacts[{c.name}].link: MuJoCo's model of {path.name} has no body {c.link!r}")
        body.add_site(name=c.name, pos=np.array(c.position))
    return spec


def _first_line(exc: Exception) -> str:
    text = " ".join(str(exc).split("\n")[:2]).strip()
    return text.removeprefix("Error:").strip() or type(exc).__name__


def _matrix_quaternion(R: np.ndarray) -> np.ndarray:
    """Unit quaternion ``(w, x, y, z)`` of a rotation matrix (Shepperd's method)."""
    tr = float(np.trace(R))
    if tr > 0.0:
        s = 2.0 * math.sqrt(tr + 1.0)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(max(1.0 + R[i, i] - R[j, j] - R[k, k], 0.0))
        q = [0.0] * 4
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    return unit_quaternion(q)


@dataclass(frozen=True)
class MujocoCoordinates:
    """Where the toolkit's coordinates sit in MuJoCo's ``qpos`` and ``qvel`` (module docstring).

    Attributes
    ----------
    nq : int
        MuJoCo's ``model.nq``.
    nv : int
        MuJoCo's ``model.nv``.
    floating : bool
        Whether the mechanism's base is floating.
    free_qpos : int
        The free joint's first ``qpos`` entry (``-1`` for a fixed base).
    free_dof : int
        The free joint's first ``qvel`` entry (``-1`` for a fixed base).
    joint_qpos : numpy.ndarray
        ``(n_joints,)`` each joint's ``qpos`` entry, in the mechanism's joint order.
    joint_dof : numpy.ndarray
        ``(n_joints,)`` each joint's ``qvel`` entry.
    sites : dict[str, int]
        Contact name → MuJoCo site id.
    """

    nq: int
    nv: int
    floating: bool
    free_qpos: int
    free_dof: int
    joint_qpos: np.ndarray
    joint_dof: np.ndarray
    sites: dict

    def _base(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        quat = unit_quaternion(q[3:7], "q[3:7] (the base quaternion qw, qx, qy, qz)")
        return quat, quaternion_matrix(quat)

    def qpos(self, q: ArrayLike, qpos0: ArrayLike | None = None) -> np.ndarray:
        """MuJoCo's ``qpos`` of the toolkit's configuration ``q``.

        Parameters
        ----------
        q : array_like
            The mechanism's configuration (``configuration_names``).
        qpos0 : array_like, optional
            ``(nq,)`` values of MuJoCo's other entries (default zeros).

        Returns
        -------
        numpy.ndarray
            ``(nq,)``.
        """
        q_ = np.asarray(q, dtype=float)
        out = np.zeros(self.nq) if qpos0 is None else np.array(qpos0, dtype=float)
        offset = 0
        if self.floating:
            out[self.free_qpos:self.free_qpos + 3] = q_[:3]
            out[self.free_qpos + 3:self.free_qpos + 7] = self._base(q_)[0]
            offset = 7
        out[self.joint_qpos] = q_[offset:]
        return out

    def velocity_matrix(self, q: ArrayLike) -> np.ndarray:
        """``V`` (nv, n_v) with ``qvel = V q̇``: identity on the base's linear velocity and the
        joints, ``Rᵀ`` on the angular velocity (world → body frame); zero rows for MuJoCo's other
        degrees of freedom.

        Parameters
        ----------
        q : array_like
            The mechanism's configuration.

        Returns
        -------
        numpy.ndarray
            ``(nv, n_v)``.
        """
        q_ = np.asarray(q, dtype=float)
        n_joints = len(self.joint_dof)
        offset = 6 if self.floating else 0
        V = np.zeros((self.nv, offset + n_joints))
        if self.floating:
            R = self._base(q_)[1]
            V[self.free_dof:self.free_dof + 3, :3] = np.eye(3)
            V[self.free_dof + 3:self.free_dof + 6, 3:6] = R.T
        V[self.joint_dof, offset + np.arange(n_joints)] = 1.0
        return V

    def qvel(self, q: ArrayLike, qdot: ArrayLike) -> np.ndarray:
        """MuJoCo's ``qvel`` (nv,) of the toolkit's ``(q, q̇)``: ``velocity_matrix(q) @ q̇``.

        Parameters
        ----------
        q : array_like
            The mechanism's configuration (m, rad; base quaternion ``(w, x, y, z)``).
        qdot : array_like
            ``(n_v,)`` the toolkit's velocity (base angular velocity in world axes).

        Returns
        -------
        numpy.ndarray
            ``(nv,)`` MuJoCo's velocity (base angular velocity in the body frame).
        """
        return self.velocity_matrix(q) @ np.asarray(qdot, dtype=float)

    def state(self, qpos: ArrayLike, qvel: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """The toolkit's ``(q, q̇)`` of MuJoCo's ``(qpos, qvel)`` (the inverse of ``qpos``, ``qvel``).

        Parameters
        ----------
        qpos : array_like
            ``(nq,)``.
        qvel : array_like
            ``(nv,)``.

        Returns
        -------
        q : numpy.ndarray
            The configuration (base quaternion ``(w, x, y, z)``).
        qdot : numpy.ndarray
            ``(n_v,)`` the velocity (base angular velocity in world axes).
        """
        qp, qv = np.asarray(qpos, dtype=float), np.asarray(qvel, dtype=float)
        joints_q, joints_v = qp[self.joint_qpos], qv[self.joint_dof]
        if not self.floating:
            return joints_q, joints_v
        a, b = self.free_qpos, self.free_dof
        quat = qp[a + 3:a + 7]
        R = quaternion_matrix(quat)
        q = np.concatenate([qp[a:a + 3], quat, joints_q])
        qdot = np.concatenate([qv[b:b + 3], R @ qv[b + 3:b + 6], joints_v])
        return q, qdot


def mujoco_model(mechanism: "SpatialMechanism") -> tuple[Any, MujocoCoordinates]:
    """The compiled MuJoCo model of a mechanism and where its coordinates sit.

    Parameters
    ----------
    mechanism : SpatialMechanism
        The mechanism.

    Returns
    -------
    model : mujoco.MjModel
        The compiled model (``mujoco_spec``).
    coordinates : MujocoCoordinates
        The map between the toolkit's ``(q, q̇)`` and MuJoCo's ``(qpos, qvel)``.

    Raises
    ------
    ContactModelError
        MuJoCo cannot read or compile the model (one line with MuJoCo's reason), or lacks one of
        the mechanism's joints; ``MissingExtraError`` without MuJoCo.
    """
    require("mujoco", "sim", "MuJoCo model")
    import mujoco

    spec = mujoco_spec(mechanism)
    path = mechanism.path
    try:
        model = spec.compile()
    except ValueError as exc:
        raise ContactModelError(f"{path.name}: MuJoCo cannot build the model: {_first_line(exc)}") from None
    free_qpos = free_dof = -1
    if mechanism.floating:
        root_body = spec.worldbody.first_body().name
        body_id = model.body(root_body).id
        free = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE
                and model.jnt_bodyid[j] == body_id]
        if not free:  # pragma: no cover - mujoco_spec adds it
            raise ContactModelError(f"{path.name}: MuJoCo's model has no free joint on the root body")
        free_qpos, free_dof = int(model.jnt_qposadr[free[0]]), int(model.jnt_dofadr[free[0]])
    qpos_idx, dof_idx = [], []
    for name in mechanism.joints:
        try:
            joint = model.joint(name)
        except KeyError:
            raise ContactModelError(f"{path.name}: MuJoCo's model has no joint {name!r}") from None
        qpos_idx.append(int(joint.qposadr[0]))
        dof_idx.append(int(joint.dofadr[0]))
    sites = {c.name: int(model.site(c.name).id) for c in mechanism.contacts}
    coords = MujocoCoordinates(int(model.nq), int(model.nv), mechanism.floating, free_qpos, free_dof,
                               np.array(qpos_idx, dtype=int), np.array(dof_idx, dtype=int), sites)
    return model, coords


def mjcf(mechanism: "SpatialMechanism") -> str:
    """The mechanism's MuJoCo model as MJCF text (``mujoco_spec`` compiled, then written).

    Parameters
    ----------
    mechanism : SpatialMechanism
        The mechanism.

    Returns
    -------
    str
        An MJCF document (MuJoCo's own writer): MuJoCo reads it back to the same model up to
        the writer's 6 significant digits — for reading, drawing and sharing; the exact plant
        is ``mujoco_model``'s.

    Raises
    ------
    ContactModelError
        As ``mujoco_model``.
    """
    spec = mujoco_spec(mechanism)
    try:
        spec.compile()
    except ValueError as exc:
        raise ContactModelError(f"{mechanism.path.name}: MuJoCo cannot build the model: {_first_line(exc)}") from None
    return spec.to_xml()
