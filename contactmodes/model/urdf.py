"""URDF input: a planar robot described in URDF as a ``PlanarMechanism``.

The file is parsed strictly by lxml (malformed XML is an error, never "recovered"), checked for
the values the URDF specification requires, and read by **yourdfpy** (a maintained URDF parser;
install it with ``pip install "contactmodes[urdf]"``). The robot is then viewed in one plane of the
URDF root link's frame: ``plane = "xz"`` (default), ``"xy"`` or ``"yz"``. The planar coordinates
``(u, v)`` are the two named URDF axes, the plane normal is ``n = u × v`` (``"xz"``: ``−y``,
``"xy"``: ``+z``, ``"yz"``: ``+x``), so that angles about ``n`` are counter-clockwise in the
plane, and gravity acts along ``−v`` (``−z`` for ``"xz"`` and ``"yz"``, as in URDF worlds).

Conversion rules (schema: ``docs/system-file.md``, section *URDF input*)
-----------------------------------------------------------------------
* The *zero configuration* (every joint value 0, the root frame at the world origin) fixes the
  geometry. Offsets along ``n`` (joint origins, centres of mass) do not enter planar dynamics and
  are dropped.
* ``revolute`` and ``continuous`` joints whose axis, expressed in the root frame, is ``±n`` (to
  ``PLANE_ATOL``) become planar revolute joints, named as in the URDF.
  The coordinate is the **counter-clockwise** angle in the plane: the URDF joint value when the
  axis points along ``+n``, its negative when it points along ``−n`` (the sign follows the axis).
  Joint limits, dynamics, transmissions, visuals and collisions are neither read nor validated.
* ``fixed`` joints merge their child into the parent: masses add, centres of mass combine, planar
  inertias add with the parallel-axis theorem; contacts may still name the merged link.
* ``prismatic``, ``floating`` and ``planar`` joints and ``<mimic>`` joints are errors naming the
  joint (``PlanarMechanism`` has revolute joints only; a floating base is
  ``mechanism.base = "floating"``).
* A link's planar inertia is its inertia about the plane normal through its centre of mass:
  ``I_n = n_cᵀ I n_c`` with ``n_c`` the normal expressed in the ``<inertial>`` frame (its
  ``<origin rpy>`` rotates the inertia tensor). A link without ``<inertial>`` is massless. A mass
  that is negative or non-finite, or an inertia tensor that is not symmetric positive
  semi-definite (``INERTIA_RTOL``), is an error naming the link.
* ``base = "floating"``: the root link's frame pose is ``(x, y, theta)``. ``base = "fixed"``: the
  root link, with everything merged into it, is the world, its frame origin at ``base_position``;
  exactly one revolute joint may leave it (the pivot of ``PlanarMechanism``'s fixed base).
* Mechanism links are named after the URDF link that starts each rigid body (the root, or the
  child of a revolute joint). Their frames sit at the joint and are parallel to the root frame in
  the zero configuration; contacts and point masses name *any* URDF link and give positions
  ``(a, b)`` meaning the point ``a·u + b·v`` of that link's own URDF frame, which must be parallel
  to the plane (its third axis along ``±n``).
* Coordinates: base coordinates first, then the revolute joints in URDF file order (a joint
  whose parent link is created by a later joint waits for it).

Errors are ``ContactModelError`` with one line naming the file and the
joint or link (``"robot.urdf: joint 'slider': prismatic joints are not supported …"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from contactmodes import tolerances
from contactmodes.errors import ContactModelError
from contactmodes.model.mechanism import FLOATING_COORDINATES, PlanarMechanism

__all__ = ["PLANES", "UrdfMechanism", "load_urdf"]

PLANES: dict[str, tuple[int, int]] = {"xz": (0, 2), "xy": (0, 1), "yz": (1, 2)}
"""Plane name → indices ``(u, v)`` of the URDF axes that become the planar ``x`` and ``y``."""

MOVING_JOINTS = ("revolute", "continuous")
URDF_JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def plane_normal(plane: str) -> np.ndarray:
    """Unit normal ``n = u × v`` of ``plane`` in the URDF root frame.

    Parameters
    ----------
    plane : str
        ``"xz"``, ``"xy"`` or ``"yz"`` (``PLANES``).

    Returns
    -------
    numpy.ndarray
        ``(3,)``: ``−y`` for ``"xz"``, ``+z`` for ``"xy"``, ``+x`` for ``"yz"``.

    Raises
    ------
    ContactModelError
        For an unknown plane name.
    """
    if plane not in PLANES:
        raise ContactModelError(f"plane: must be one of {', '.join(PLANES)}, got {plane!r}")
    u, v = (np.eye(3)[i] for i in PLANES[plane])
    return np.cross(u, v)


def _fmt(v: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.6g}" for x in np.asarray(v, dtype=float)) + ")"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


@dataclass(frozen=True)
class _Frame:
    """Zero-configuration placement of one URDF link frame in the root frame."""

    body: str | None  # mechanism link carrying it; None: the world (root of a fixed base)
    rotation: np.ndarray  # (3, 3) link frame → root frame
    origin: np.ndarray  # (3,) link frame origin in the root frame (m)


class UrdfMechanism(PlanarMechanism):
    """A ``PlanarMechanism`` built from a URDF by ``load_urdf``.

    Its links are the rigid bodies of the URDF (see the module docstring); ``add_contact``,
    ``add_point_mass`` and ``point_position`` also accept any URDF link, with a position
    ``(a, b)`` (m) in that link's own frame (the point ``a·u + b·v``). ``link_pose`` and the
    other inherited methods take mechanism links (``links``), whose frames sit at their joints
    parallel to the root frame in the zero configuration.

    Parameters
    ----------
    base : str
        ``"floating"`` or ``"fixed"`` (``PlanarMechanism``).
    gravity : float
        ``g`` (m/s²) of gravity ``(0, −g)`` in the plane.
    base_position : array_like
        ``(2,)`` world position (m) of a fixed base's pivot.
    name : str
        The mechanism's label.
    plane : str
        ``"xz"``, ``"xy"`` or ``"yz"``.
    source : str
        The URDF file it is read from (for messages).

    Raises
    ------
    ContactModelError
        As ``PlanarMechanism``, or an unknown ``plane``.

    Attributes
    ----------
    plane : str
        The plane name (``"xz"``, ``"xy"`` or ``"yz"``).
    source : str
        The URDF file it was read from.
    """

    def __init__(self, base: str, gravity: float, base_position: ArrayLike, name: str,
                 plane: str, source: str) -> None:
        super().__init__(base=base, gravity=gravity, base_position=base_position, name=name)
        self.plane: str = plane
        self.source: str = source
        self._normal = plane_normal(plane)
        self._frames: dict[str, _Frame] = {}
        self._body_origins: dict[str, np.ndarray] = {}
        self.joint_signs: dict[str, int] = {}
        """Revolute joint → ``+1`` if its axis points along ``+n`` (coordinate = URDF joint value),
        ``−1`` along ``−n`` (coordinate = −URDF joint value)."""

    @property
    def urdf_links(self) -> tuple[str, ...]:
        """Every URDF link name, in file order (merged links included)."""
        return tuple(self._frames)

    def body_of(self, link: str) -> str | None:
        """The mechanism link carrying URDF link ``link``.

        Parameters
        ----------
        link : str
            A URDF link name (merged links included).

        Returns
        -------
        str or None
            The mechanism link, or ``None`` for the world of a fixed base.

        Raises
        ------
        ContactModelError
            For a link the URDF does not have.
        """
        if link not in self._frames:
            raise ContactModelError(f"link: unknown URDF link {link!r}")
        return self._frames[link].body

    def locate(self, link: str, position: ArrayLike, field: str = "link") -> tuple[str, np.ndarray]:
        """Map a position in URDF link ``link``'s frame to ``(mechanism link, position in its frame)``.

        Parameters
        ----------
        link : str
            A URDF link name.
        position : array_like
            ``(2,)`` ``(a, b)`` (m): the point ``a·u + b·v`` of the link's own frame.
        field : str, optional
            The key path that starts every error message.

        Returns
        -------
        body : str
            The mechanism link carrying the point.
        position : numpy.ndarray
            ``(2,)`` the point in that link's frame (m).

        Raises
        ------
        ContactModelError
            Unknown link, a link fixed to the world (fixed base), a link frame not parallel to the
            plane, or a malformed position; the message starts with ``field``.
        """
        frame = self._frames.get(link)
        if frame is None:
            raise ContactModelError(f"{field}: unknown URDF link {link!r}")
        if frame.body is None:
            raise ContactModelError(
                f"{field}: URDF link {link!r} is fixed to the world (mechanism.base = \"fixed\"); "
                "contacts and masses must be on moving links"
            )
        try:
            pos = np.array(position, dtype=float)
        except (TypeError, ValueError):
            raise ContactModelError(f"{field}: position must be two numbers, got {position!r}") from None
        if pos.shape != (2,) or not np.all(np.isfinite(pos)):
            raise ContactModelError(f"{field}: position must be two finite numbers, got {position!r}")
        iu, iv = PLANES[self.plane]
        iw = 3 - iu - iv
        w_axis = frame.rotation[:, iw]
        if np.linalg.norm(np.cross(w_axis, self._normal)) > tolerances.PLANE_ATOL:
            raise ContactModelError(
                f"{field}: the frame of URDF link {link!r} is not parallel to the {self.plane} plane "
                f"(its {'xyz'[iw]} axis is {_fmt(w_axis)} in the root frame), so a planar position in it "
                "is undefined; put the contact on a link whose frame is parallel to the plane"
            )
        local = np.zeros(3)
        local[iu], local[iv] = pos
        offset = frame.rotation @ local + frame.origin - self._body_origins[frame.body]
        return frame.body, np.array([offset[iu], offset[iv]])

    def add_contact(self, name: str, link: str, position: ArrayLike, surface_point: ArrayLike,
                    surface_normal: ArrayLike, mu: float, v0: float = 0.0) -> None:
        """``PlanarMechanism.add_contact`` on a URDF link, ``position`` in that link's frame.

        Parameters
        ----------
        name : str
            Unique contact name.
        link : str
            The URDF link carrying the contact point.
        position : array_like
            ``(2,)`` the point in that link's frame (m, ``locate``).
        surface_point : array_like
            ``(2,)`` a point of the environment line (world, m).
        surface_normal : array_like
            ``(2,)`` outward normal of the line (world; normalized).
        mu : float
            Friction coefficient, ``>= 0``.
        v0 : float, optional
            Velocity threshold (m/s, ``>= 0``) of the flipping paper's Sec. IV-C.3.

        Raises
        ------
        ContactModelError
            As ``locate`` and ``PlanarMechanism.add_contact``.
        """
        body, pos = self.locate(link, position, f"contacts[{name}].link")
        super().add_contact(name, body, pos, surface_point, surface_normal, mu, v0)

    def add_point_mass(self, link: str, mass: float, position: ArrayLike = (0.0, 0.0)) -> None:
        """``PlanarMechanism.add_point_mass`` on a URDF link, ``position`` in that link's frame.

        Parameters
        ----------
        link : str
            The URDF link carrying the mass.
        mass : float
            Mass (kg, ``>= 0``).
        position : array_like, optional
            ``(2,)`` the point in that link's frame (m, ``locate``).

        Raises
        ------
        ContactModelError
            As ``locate`` and ``PlanarMechanism.add_point_mass``.
        """
        body, pos = self.locate(link, position, "point_masses[].link")
        super().add_point_mass(body, mass, pos)

    def point_position(self, q: ArrayLike, link: str, position: ArrayLike) -> np.ndarray:
        """World position (2,) (m) at ``q`` of the point ``position`` (2,) of URDF link ``link``.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` configuration (m, rad).
        link : str
            A URDF link name.
        position : array_like
            ``(2,)`` the point in that link's frame (m).

        Returns
        -------
        numpy.ndarray
            ``(2,)`` world position (m).

        Raises
        ------
        ContactModelError
            As ``locate`` and ``PlanarMechanism.point_position``.
        """
        body, pos = self.locate(link, position)
        return super().point_position(q, body, pos)


# ------------------------------------------------------------------------------------------------
# reading


def _read_robot(path: Path) -> Any:
    """Strict XML parse, the checks yourdfpy leaves out, then yourdfpy; returns its ``Robot``."""
    if not path.exists():
        raise ContactModelError(f"{path}: no such file")
    if path.is_dir():
        raise ContactModelError(f"{path}: is a directory, not a URDF file")
    from contactmodes.extras import require

    require("yourdfpy", "urdf", "URDF input")
    require("lxml", "urdf", "URDF input")
    import yourdfpy
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    try:
        root = etree.parse(str(path), parser).getroot()
    except etree.XMLSyntaxError as exc:
        raise ContactModelError(f"{path}: invalid XML: {_one_line(exc)}") from None
    except OSError as exc:
        raise ContactModelError(f"{path}: cannot read: {_one_line(exc)}") from None
    if root.tag != "robot":
        raise ContactModelError(f"{path}: not a URDF: the root element is <{root.tag}>, expected <robot>")
    _check_required(root, path)
    try:
        model = yourdfpy.URDF.load(
            str(path), build_scene_graph=False, build_collision_scene_graph=False,
            load_meshes=False, load_collision_meshes=False,
        )
    except Exception as exc:  # the parser's failure on content it cannot read (bad numbers, …)
        raise ContactModelError(f"{path}: malformed URDF: {_one_line(exc)}") from None
    return model.robot


def _check_required(root: Any, path: Path) -> None:
    """Required attributes that yourdfpy would otherwise default or crash on."""
    if root.get("name") is None:
        raise ContactModelError(f"{path}: <robot> needs a name attribute")
    for kind in ("link", "joint"):
        for element in root.findall(kind):
            if element.get("name") is None:
                raise ContactModelError(f"{path}: a <{kind}> (line {element.sourceline}) needs a name attribute")
    for joint in root.findall("joint"):
        for end in ("parent", "child"):
            sub = joint.find(end)
            if sub is None or sub.get("link") is None:
                raise ContactModelError(f"{path}: joint {joint.get('name')!r}: needs <{end} link=\"…\"/>")
    for link in root.findall("link"):
        inertial = link.find("inertial")
        if inertial is None:
            continue
        where = f"{path}: link {link.get('name')!r}: <inertial>"
        mass = inertial.find("mass")
        if mass is None or mass.get("value") is None:
            raise ContactModelError(f"{where} needs <mass value=\"…\"/>")
        inertia = inertial.find("inertia")
        if inertia is None:
            raise ContactModelError(f"{where} needs <inertia ixx=… ixy=… ixz=… iyy=… iyz=… izz=…/>")
        missing = [k for k in _INERTIA_KEYS if inertia.get(k) is None]
        if missing:
            raise ContactModelError(f"{where}: <inertia> misses {', '.join(missing)}")


# ------------------------------------------------------------------------------------------------
# conversion


def load_urdf(
    path: str | Path,
    plane: str = "xz",
    base: str = "floating",
    base_position: ArrayLike = (0.0, 0.0),
    gravity: float = 9.81,
    name: str = "",
) -> UrdfMechanism:
    """Read a URDF file and convert it into a planar mechanism (rules in the module docstring).

    Parameters
    ----------
    path : str or Path
        The URDF file.
    plane : str, optional
        ``"xz"`` (default), ``"xy"`` or ``"yz"``: the plane of the URDF root frame the robot
        moves in.
    base : str, optional
        ``"floating"`` (the root link's pose ``x, y, theta`` are coordinates) or ``"fixed"``
        (the root link is the world).
    base_position : array_like, optional
        ``(2,)`` world position (m) of the root link's frame origin for a fixed base.
    gravity : float, optional
        ``g`` (m/s²) of gravity ``(0, −g)`` in the plane (along ``−v``).
    name : str, optional
        The mechanism's label.

    Returns
    -------
    UrdfMechanism
        Links, joints and inertias; no contacts or actuators (the system file adds them).

    Raises
    ------
    ContactModelError
        One line naming the file and the offending joint or link: missing file, invalid XML, a
        malformed or invalid URDF, a joint or inertial that is not planar-compatible, a base that
        does not fit the tree, or yourdfpy not installed.
    """
    p = Path(path)
    normal = plane_normal(plane)
    if base not in ("floating", "fixed"):
        raise ContactModelError(f"base: must be \"floating\" or \"fixed\", got {base!r}")
    robot = _read_robot(p)
    try:
        return _convert(robot, p, plane, normal, base, base_position, gravity, name)
    except ContactModelError as exc:
        raise ContactModelError(f"{p}: {exc}") from None


def _tree(robot: Any) -> tuple[str, list[Any]]:
    """The root link and the joints in file order with parents first; errors if not one tree."""
    names = [link.name for link in robot.links]
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise ContactModelError(f"link {n!r}: duplicate link name")
        seen.add(n)
    child_of: dict[str, str] = {}
    joint_names: set[str] = set()
    for j in robot.joints:
        if j.name in joint_names:
            raise ContactModelError(f"joint {j.name!r}: duplicate joint name")
        joint_names.add(j.name)
        for end, link in (("parent", j.parent), ("child", j.child)):
            if link not in seen:
                raise ContactModelError(f"joint {j.name!r}: unknown {end} link {link!r}")
        if j.child in child_of:
            raise ContactModelError(
                f"joint {j.name!r}: link {j.child!r} is already the child of joint {child_of[j.child]!r} "
                "(a URDF is a tree)"
            )
        child_of[j.child] = j.name
    roots = [n for n in names if n not in child_of]
    if len(roots) != 1:
        what = "no root link (the joints form a cycle)" if not roots else f"several root links ({', '.join(roots)})"
        raise ContactModelError(f"{what}: a URDF must be a single tree")
    reached = {roots[0]}
    pending = list(robot.joints)
    ordered: list[Any] = []
    while pending:
        ready = next((j for j in pending if j.parent in reached), None)
        if ready is None:
            raise ContactModelError(f"link {pending[0].child!r}: not connected to the root link {roots[0]!r}")
        ordered.append(ready)
        reached.add(ready.child)
        pending.remove(ready)
    return roots[0], ordered


def _matrix(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    arr = np.eye(shape[0]) if value is None else np.asarray(value, dtype=float)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ContactModelError(f"{what}: expected {'×'.join(map(str, shape))} finite numbers")
    return arr


def _planar_inertial(link: Any, T: np.ndarray, normal: np.ndarray) -> tuple[float, np.ndarray, float] | None:
    """``(mass, centre of mass (3,) in the root frame, inertia about n at the centre of mass)``."""
    inertial = link.inertial
    if inertial is None:
        return None
    where = f"link {link.name!r}: <inertial>"
    mass = float(inertial.mass)
    if not (math.isfinite(mass) and mass >= 0.0):
        raise ContactModelError(f"{where} mass must be a finite number >= 0, got {mass:g}")
    inertia = _matrix(inertial.inertia, (3, 3), f"{where} <inertia>")
    eig = np.linalg.eigvalsh(inertia)
    if eig[0] < -tolerances.INERTIA_RTOL * max(float(np.abs(eig).max()), np.finfo(float).tiny):
        raise ContactModelError(
            f"{where} <inertia> is not positive semi-definite (eigenvalues {_fmt(eig)} kg·m²)"
        )
    Tc = T @ _matrix(inertial.origin, (4, 4), f"{where} <origin>")
    n_local = Tc[:3, :3].T @ normal
    return mass, Tc[:3, 3], float(n_local @ inertia @ n_local)


def _combine(parts: list[tuple[float, np.ndarray, float]]) -> tuple[float, np.ndarray, float]:
    """Mass, centre of mass (2,) and planar inertia about it of rigidly joined parts
    ``(m, c (2,), I)`` (parallel-axis theorem)."""
    mass = float(sum(m for m, _, _ in parts))
    if mass == 0.0:
        return 0.0, np.zeros(2), float(sum(i for _, _, i in parts))
    com = np.sum([m * c for m, c, _ in parts], axis=0) / mass
    inertia = float(sum(i + m * float((c - com) @ (c - com)) for m, c, i in parts))
    return mass, com, inertia


def _convert(robot: Any, path: Path, plane: str, normal: np.ndarray, base: str,
             base_position: ArrayLike, gravity: float, name: str) -> UrdfMechanism:
    iu, iv = PLANES[plane]
    root, joints = _tree(robot)

    def planar(x: np.ndarray) -> np.ndarray:
        return np.array([x[iu], x[iv]])

    # zero-configuration frames and the rigid body (mechanism link) of every URDF link
    T: dict[str, np.ndarray] = {root: np.eye(4)}
    body: dict[str, str | None] = {root: None if base == "fixed" else root}
    moving: list[Any] = []
    for j in joints:
        origin = _matrix(j.origin, (4, 4), f"joint {j.name!r}: <origin>")
        T[j.child] = T[j.parent] @ origin
        if j.mimic is not None:
            raise ContactModelError(f"joint {j.name!r}: <mimic> joints are not supported")
        if j.type == "fixed":
            body[j.child] = body[j.parent]
        elif j.type in MOVING_JOINTS:
            axis = _matrix(j.axis, (3,), f"joint {j.name!r}: <axis xyz>")
            if not np.linalg.norm(axis) > 0.0:
                raise ContactModelError(f"joint {j.name!r}: <axis xyz> must be non-zero")
            world = T[j.child][:3, :3] @ (axis / np.linalg.norm(axis))
            if np.linalg.norm(np.cross(world, normal)) > tolerances.PLANE_ATOL:
                raise ContactModelError(
                    f"joint {j.name!r}: axis {_fmt(axis)} is not normal to the {plane} plane (in the root frame "
                    f"it is {_fmt(world)}, the plane normal is ±{_fmt(normal)})"
                )
            if base == "floating" and j.name in FLOATING_COORDINATES:
                raise ContactModelError(f"joint {j.name!r}: the name is a floating-base coordinate (x, y, theta)")
            if j.name.endswith("_deg"):
                raise ContactModelError(f"joint {j.name!r}: a coordinate name must not end in '_deg'")
            body[j.child] = j.child
            moving.append((j, 1 if world @ normal > 0 else -1))
        elif j.type == "prismatic":
            raise ContactModelError(
                f"joint {j.name!r}: prismatic joints are not supported (planar mechanisms have revolute "
                "joints only); make it fixed"
            )
        elif j.type in URDF_JOINT_TYPES:
            raise ContactModelError(
                f"joint {j.name!r}: type {j.type!r} is not planar-compatible (a floating base is "
                'mechanism.base = "floating")'
            )
        else:
            raise ContactModelError(
                f"joint {j.name!r}: unknown joint type {j.type!r} (URDF has {', '.join(URDF_JOINT_TYPES)})"
            )

    # the fixed base's pivot: the one revolute joint leaving the world
    base_xy = np.asarray(base_position, dtype=float)
    if base == "fixed":
        pivots = [j for j, _ in moving if body[j.parent] is None]
        if len(pivots) != 1:
            found = ", ".join(repr(j.name) for j in pivots) or "none"
            raise ContactModelError(
                f'mechanism.base = "fixed": exactly one revolute joint must leave the root link {root!r} '
                f"(and the links fixed to it), found {found}"
            )
        base_xy = base_xy + planar(T[pivots[0].child][:3, 3])

    # inertial parts per body, in the root frame
    parts: dict[str, list[tuple[float, np.ndarray, float]]] = {}
    for link in robot.links:
        b = body[link.name]
        part = _planar_inertial(link, T[link.name], normal)
        if b is not None and part is not None:
            mass, com3, inertia = part
            parts.setdefault(b, []).append((mass, planar(com3 - T[b][:3, 3]), inertia))

    mech = UrdfMechanism(base, gravity, base_xy, name, plane, str(path))
    bodies = ([root] if base == "floating" else []) + [j.child for j, _ in moving]
    joint_of = {j.child: j for j, _ in moving}
    mech.joint_signs.update({j.name: sign for j, sign in moving})
    for b in bodies:
        mass, com, inertia = _combine(parts.get(b, []))
        j = joint_of.get(b)
        parent = None if j is None else body[j.parent]
        offset = np.zeros(2) if parent is None else planar(T[b][:3, 3] - T[parent][:3, 3])
        mech.add_link(b, parent=parent, joint=None if j is None else j.name, joint_position=offset,
                      mass=mass, com=com, inertia=inertia)
        mech._body_origins[b] = T[b][:3, 3]
    for link in robot.links:
        mech._frames[link.name] = _Frame(body[link.name], T[link.name][:3, :3], T[link.name][:3, 3])
    return mech
