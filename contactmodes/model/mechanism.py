"""Planar kinematic trees with analytic rigid-body dynamics and point contacts.

``PlanarMechanism`` builds a tree of rigid links joined by revolute joints, with either a
*floating* root (pose ``(x, y, theta)`` as the first three generalized coordinates) or a *fixed*
root (pinned to the world by a revolute joint). Point contacts fixed on links touch straight
environment lines. At a state ``(q, q̇)`` it evaluates, analytically (no finite differences), the
terms of the Lagrangian equations of motion (flipping paper, eq. 5):

    M(q) q̈ + C(q, q̇) q̇ + g(q) = S τ + J(q)^T f

and the contact kinematics ``ẋ = J q̇`` (eq. 3), ``ẍ = J q̈ + J̇ q̇`` (eq. 4) in contact frames
``(t_i, n_i)`` (``docs/conventions.md``), and packs them into a
``contactmodes.model.system.ContactSystem``.

Method
------
Every mass element (a link's centre of mass with mass ``m`` and central inertia ``I``, or a point
mass) has world position ``p(q)``, translational Jacobian ``J_p = ∂p/∂q`` (2 × n) and angular
Jacobian ``J_ω`` (1 × n; the absolute angle of a link is the sum of the base angle and the relative
joint angles on its path, so ``J_ω`` is a constant 0/1 row). Then

* ``M = Σ m J_pᵀ J_p + I J_ωᵀ J_ω``,
* ``C q̇ = Σ m J_pᵀ (J̇_p q̇)`` where ``J̇_p q̇`` is the acceleration of the point at ``q̈ = 0``,
  accumulated along the chain as ``−ω_j² R(φ_j) r_j`` per link ``j`` (the rotational part vanishes
  in the plane because ``J_ω`` is constant),
* ``g = Σ m J_pᵀ (0, g)`` for gravity ``(0, −g)`` (``V = Σ m g p_y``).

Generalized coordinates are ordered base coordinates first, then joint coordinates in the order
the links were added. Parents must be added before their children.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from contactmodes.model._mechanism_kernel import CompiledDynamics

from contactmodes.errors import ContactModelError
from contactmodes.model.system import CharacteristicScales, ContactSystem, Disturbance, LinearConstraint

__all__ = ["Dynamics", "MechanismParts", "PlanarMechanism"]

BASE_TYPES = ("floating", "fixed")
FLOATING_COORDINATES = ("x", "y", "theta")


# --------------------------------------------------------------------------------------------
# validation helpers


def _name(value, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise ContactModelError(f"{field}: must be a non-empty string, got {value!r}")
    return value


def _scalar(value, field: str, minimum: float | None = None) -> float:
    if isinstance(value, bool):
        raise ContactModelError(f"{field}: must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ContactModelError(f"{field}: must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ContactModelError(f"{field}: must be finite, got {x}")
    if minimum is not None and x < minimum:
        raise ContactModelError(f"{field}: must be >= {minimum:g}, got {x}")
    return x


def _vector(value, field: str, size: int) -> np.ndarray:
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"{field}: not a numeric array: {value!r}") from None
    if arr.shape != (size,):
        raise ContactModelError(f"{field}: expected shape ({size},), got {arr.shape}")
    if not math.isfinite(float(arr.sum())) and not np.isfinite(arr).all():  # (a finite sum: all finite)
        raise ContactModelError(f"{field}: contains NaN or infinite values")
    arr.setflags(write=False)
    return arr


def _rot(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _perp(v: np.ndarray) -> np.ndarray:
    """``v`` rotated by +90°: ``d/dφ (R(φ) r) = perp(R(φ) r)``."""
    return np.array([-v[1], v[0]])


# --------------------------------------------------------------------------------------------
# data


@dataclass(frozen=True)
class _Link:
    name: str
    parent: str | None
    joint: str | None
    joint_position: np.ndarray
    mass: float
    com: np.ndarray
    inertia: float


@dataclass(frozen=True)
class _Contact:
    name: str
    link: str
    position: np.ndarray
    surface_point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    mu: float
    v0: float


@dataclass(frozen=True)
class _LinkState:
    """Kinematics of one link frame at ``(q, q̇)``; ``n`` = number of coordinates."""

    angle: float  # absolute angle φ (rad)
    origin: np.ndarray  # (2,) world position of the frame origin (m)
    J_origin: np.ndarray  # (2, n) ∂origin/∂q
    J_angle: np.ndarray  # (n,) ∂φ/∂q (constant 0/1 entries)
    omega: float  # φ̇ (rad/s)
    a_origin: np.ndarray  # (2,) origin acceleration at q̈ = 0 (m/s²)
    R: np.ndarray  # (2, 2) the frame's rotation ``_rot(angle)``, computed once per link and state


@dataclass(frozen=True)
class Dynamics:
    """Dynamics and contact kinematics of a mechanism at ``(q, q̇)``: a ``PlanarMechanism``
    (analytic) or a ``contactmodes.model.spatial.SpatialMechanism`` (Pinocchio).

    ``n`` velocity coordinates, ``k`` contacts, ``c`` force components per contact (2 in the
    plane, rows ``(t_i, n_i)``; 3 in space, rows ``(t1_i, t2_i, n_i)``); SI units of the
    coordinates (a spatial floating base: world-frame linear and angular velocity).

    Attributes
    ----------
    M : numpy.ndarray
        ``(n, n)`` symmetric positive semi-definite inertia matrix (singular with massless links).
    h : numpy.ndarray
        ``(n,)``: ``C(q, q̇) q̇ + g(q)``.
    J : numpy.ndarray
        ``(c k, n)`` contact Jacobian, the rows of each contact's components along ``∂p_i/∂q``.
    Jdot_qdot : numpy.ndarray
        ``(c k,)`` ``J̇ q̇``: contact-point accelerations at ``q̈ = 0`` in contact frames (m/s²).
    v_contact : numpy.ndarray
        ``(c k,)`` ``J q̇``: contact-point velocities in contact frames (m/s).
    gaps : numpy.ndarray
        ``(k,)`` signed distances ``n_i·(p_i − s_i)`` of the contact points from their lines
        (planes in space) (m).
    positions : numpy.ndarray
        ``(k, 2)`` (``(k, 3)`` in space) world positions of the contact points (m).
    """

    M: np.ndarray
    h: np.ndarray
    J: np.ndarray
    Jdot_qdot: np.ndarray
    v_contact: np.ndarray
    gaps: np.ndarray
    positions: np.ndarray


@dataclass(frozen=True)
class MechanismParts:
    """What a ``PlanarMechanism`` is made of (``PlanarMechanism.parts``): new copies, SI units,
    positions in the frame of the link they belong to.

    Attributes
    ----------
    links : list[dict]
        Per link in insertion order: ``name``, ``parent`` (``None`` for the root), ``joint``
        (coordinate name or ``None`` for a floating root), ``joint_position`` (2,) m (parent frame),
        ``mass`` kg, ``com`` (2,) m, ``inertia`` kg·m² (central).
    point_masses : list[tuple]
        ``(link, mass kg, position (2,) m)`` in insertion order.
    contacts : list[dict]
        Per contact in order: ``name``, ``link``, ``position`` (2,) m, ``surface_point`` (2,) m
        (world), ``normal`` (2,) and ``tangent`` (2,) (world unit vectors), ``mu``, ``v0`` (m/s).
    actuators : list[tuple]
        ``(name, coordinate)`` in order (the columns of ``S``).
    """

    links: list[dict]
    point_masses: list[tuple[str, float, np.ndarray]]
    contacts: list[dict]
    actuators: list[tuple[str, str]]


# --------------------------------------------------------------------------------------------


class PlanarMechanism:
    """A planar tree of rigid links with revolute joints, point masses, contacts and actuators.

    Parameters
    ----------
    base : str, optional
        ``"floating"`` — the root link's frame pose ``(x, y, theta)`` (m, m, rad, world) are the
        first three generalized coordinates, named ``"x"``, ``"y"``, ``"theta"``; or ``"fixed"`` —
        the root link is pinned to the world by a revolute joint at ``base_position`` and its
        absolute angle (rad, from +x, counter-clockwise) is the first coordinate, named by the root
        link's ``joint`` argument.
    gravity : float, optional
        Magnitude ``g`` (m/s²) of the gravity field ``(0, −g)``.
    base_position : array_like, optional
        ``(2,)`` world position (m) of the fixed base joint; unused for a floating base.
    name : str, optional
        A label passed on to ``ContactSystem``.

    Raises
    ------
    ContactModelError
        On an unknown base type or non-finite numbers; the message names the field.

    Notes
    -----
    Source: Lagrangian dynamics ``M q̈ + C q̇ + g = S τ + Jᵀ f`` of the flipping paper, eq. (5).
    """

    def __init__(
        self,
        base: str = "floating",
        gravity: float = 9.81,
        base_position: ArrayLike = (0.0, 0.0),
        name: str = "",
    ) -> None:
        if base not in BASE_TYPES:
            raise ContactModelError(f"base: must be one of {BASE_TYPES}, got {base!r}")
        self.base: str = base
        self.gravity: float = _scalar(gravity, "gravity")
        self.base_position: np.ndarray = _vector(base_position, "base_position", 2)
        if not isinstance(name, str):
            raise ContactModelError(f"name: must be a string, got {name!r}")
        self.name: str = name
        self._links: dict[str, _Link] = {}
        self._root: str | None = None
        self._coordinates: list[str] = list(FLOATING_COORDINATES) if base == "floating" else []
        self._point_masses: list[tuple[str, float, np.ndarray]] = []
        self._contacts: list[_Contact] = []
        self._actuators: list[tuple[str, str]] = []
        self._kernel_key: tuple | None = None  # what _compiled_dynamics last checked (None: the parts changed)
        self._kernel_form: CompiledDynamics | None = None

    def __getstate__(self) -> dict:
        """The mechanism without its checked compiled form (``_compiled_dynamics``): a copy sent
        to another process (a Dask worker) checks it again against that machine's NumPy."""
        state = self.__dict__.copy()
        state["_kernel_key"], state["_kernel_form"] = None, None
        return state

    # ---------------------------------------------------------------- building

    def add_link(
        self,
        name: str,
        parent: str | None = None,
        joint: str | None = None,
        joint_position: ArrayLike = (0.0, 0.0),
        mass: float = 0.0,
        com: ArrayLike = (0.0, 0.0),
        inertia: float = 0.0,
    ) -> None:
        """Add a rigid link.

        Parameters
        ----------
        name : str
            Unique link name.
        parent : str, optional
            ``None`` for the root link (exactly one, added first); otherwise an already added
            link. The child is attached by a revolute joint at ``joint_position`` ``(2,)`` (m, in the
            parent's link frame); the child's frame origin is at the joint.
        joint : str, optional
            Name of the joint coordinate: the child's angle relative to the parent (rad,
            counter-clockwise positive). Required for every non-root link and for the root of a
            fixed base (its absolute angle); must be ``None`` for the root of a floating base.
        joint_position : array_like, optional
            See ``parent``; must be ``(0, 0)`` for the root (the base places it).
        mass : float, optional
            Mass in kg, ``>= 0`` (zero allowed: massless link).
        com : array_like, optional
            ``(2,)`` centre of mass in the link frame (m).
        inertia : float, optional
            Moment of inertia in kg·m², ``>= 0``, about the centre of mass.

        Raises
        ------
        ContactModelError
            Duplicate link or coordinate name, unknown parent, a second root, a missing or
            superfluous joint name, negative mass or inertia, non-finite numbers. The message names
            the field, e.g. ``"links[leg].parent: unknown link 'foo'"``.
        """
        where = f"links[{name}]"
        _name(name, "links[].name")
        if name in self._links:
            raise ContactModelError(f"{where}.name: duplicate link name {name!r}")
        jp = _vector(joint_position, f"{where}.joint_position", 2)
        mass_ = _scalar(mass, f"{where}.mass", 0.0)
        com_ = _vector(com, f"{where}.com", 2)
        inertia_ = _scalar(inertia, f"{where}.inertia", 0.0)
        if parent is None:
            if self._root is not None:
                raise ContactModelError(
                    f"{where}.parent: a root link ({self._root!r}) already exists; give a parent"
                )
            if np.any(jp != 0.0):
                raise ContactModelError(
                    f"{where}.joint_position: the root link's frame is placed by the base; must be (0, 0)"
                )
            if self.base == "floating":
                if joint is not None:
                    raise ContactModelError(
                        f"{where}.joint: the root of a floating base has no joint (its pose is x, y, theta)"
                    )
            else:
                _name(joint, f"{where}.joint")
        else:
            if parent not in self._links:
                raise ContactModelError(f"{where}.parent: unknown link {parent!r}")
            _name(joint, f"{where}.joint")
        if joint is not None and joint in self._coordinates:
            raise ContactModelError(f"{where}.joint: duplicate coordinate name {joint!r}")

        link = _Link(name, parent, joint, jp, mass_, com_, inertia_)
        self._links[name] = link
        self._kernel_key = None
        if joint is not None:
            self._coordinates.append(joint)
        if parent is None:
            self._root = name

    def add_point_mass(self, link: str, mass: float, position: ArrayLike = (0.0, 0.0)) -> None:
        """Add a point mass to a link (it enters ``M`` and ``h`` like a centre of mass without
        rotational inertia).

        Parameters
        ----------
        link : str
            An already added link carrying the mass.
        mass : float
            Mass in kg, ``>= 0``.
        position : array_like, optional
            ``(2,)`` position of the mass in the link frame (m); default the frame origin.

        Raises
        ------
        ContactModelError
            Unknown link, negative or non-finite mass, bad position; the message names the field,
            e.g. ``"point_masses[0].mass: must be >= 0, got -1.0"``.
        """
        where = f"point_masses[{len(self._point_masses)}]"
        if link not in self._links:
            raise ContactModelError(f"{where}.link: unknown link {link!r}")
        m = _scalar(mass, f"{where}.mass", 0.0)
        pos = _vector(position, f"{where}.position", 2)
        self._point_masses.append((link, m, pos))
        self._kernel_key = None

    def add_contact(
        self,
        name: str,
        link: str,
        position: ArrayLike,
        surface_point: ArrayLike,
        surface_normal: ArrayLike,
        mu: float,
        v0: float = 0.0,
    ) -> None:
        """Add a point contact, in insertion order.

        Parameters
        ----------
        name : str
            Unique contact name.
        link : str
            The link carrying the contact point.
        position : array_like
            ``(2,)`` contact point in the link frame (m).
        surface_point : array_like
            ``(2,)`` a point of the straight environment line (world, m).
        surface_normal : array_like
            ``(2,)`` outward normal of the line (world; normalized here). The tangent is
            ``t = (n_y, −n_x)``.
        mu : float
            Friction coefficient, ``>= 0``.
        v0 : float, optional
            Velocity threshold (m/s, ``>= 0``) of the flipping paper's Sec. IV-C.3.

        Raises
        ------
        ContactModelError
            Duplicate name, unknown link, zero or non-finite normal, negative ``mu`` or ``v0``.
        """
        where = f"contacts[{name}]"
        _name(name, "contacts[].name")
        if any(c.name == name for c in self._contacts):
            raise ContactModelError(f"{where}.name: duplicate contact name {name!r}")
        if link not in self._links:
            raise ContactModelError(f"{where}.link: unknown link {link!r}")
        pos = _vector(position, f"{where}.position", 2)
        sp = _vector(surface_point, f"{where}.surface_point", 2)
        normal = _vector(surface_normal, f"{where}.surface_normal", 2)
        norm = float(np.hypot(normal[0], normal[1]))
        if norm == 0.0 or norm < 1e-12 * max(1.0, float(np.abs(normal).max())):
            raise ContactModelError(f"{where}.surface_normal: must be non-zero")
        n = normal / norm
        t = np.array([n[1], -n[0]])
        n.setflags(write=False)
        t.setflags(write=False)
        mu_ = _scalar(mu, f"{where}.mu", 0.0)
        v0_ = _scalar(v0, f"{where}.v0", 0.0)
        self._contacts.append(_Contact(name, link, pos, sp, n, t, mu_, v0_))
        self._kernel_key = None

    def add_actuator(self, name: str, coordinate: str) -> None:
        """Add an actuator: a unit generalized force on ``coordinate`` (a new column of ``S``).

        For a joint coordinate this is a joint torque (N·m); on ``x``/``y`` of a floating base a
        world force (N) on the root frame origin, on ``theta`` a moment (N·m).

        Parameters
        ----------
        name : str
            Unique actuator name (the name of its entry of ``τ``).
        coordinate : str
            The generalized coordinate it drives, one of ``coordinates``.

        Raises
        ------
        ContactModelError
            Empty or duplicate actuator name, or unknown coordinate (the message names the field
            and lists the known coordinates).
        """
        where = f"actuators[{name}]"
        _name(name, "actuators[].name")
        if any(a == name for a, _ in self._actuators):
            raise ContactModelError(f"{where}.name: duplicate actuator name {name!r}")
        if coordinate not in self._coordinates:
            raise ContactModelError(
                f"{where}.coordinate: unknown coordinate {coordinate!r} (have {list(self._coordinates)})"
            )
        self._actuators.append((name, coordinate))

    # ---------------------------------------------------------------- introspection

    @property
    def coordinates(self) -> tuple[str, ...]:
        """Generalized coordinate names: base coordinates, then joints in link insertion order."""
        return tuple(self._coordinates)

    @property
    def linear_coordinates(self) -> tuple[str, ...]:
        """The coordinates that are lengths (m): a floating base's ``x`` and ``y``; every other
        coordinate is an angle (rad), so an actuator on one of these applies a force (N), on the
        others a torque (N·m)."""
        return FLOATING_COORDINATES[:2] if self.base == "floating" else ()

    @property
    def n_q(self) -> int:
        """Number of generalized coordinates."""
        return len(self._coordinates)

    def coordinate_index(self, coordinate: str) -> int:
        """Index of a generalized coordinate in ``coordinates``.

        Parameters
        ----------
        coordinate : str
            A coordinate name (``"x"``, ``"y"``, ``"theta"`` of a floating base, or a joint name).

        Returns
        -------
        int
            Its position in ``q`` (and row of ``M``, ``h``, ``S``).

        Raises
        ------
        ContactModelError
            When no coordinate has that name.
        """
        try:
            return self._coordinates.index(coordinate)
        except ValueError:
            raise ContactModelError(f"coordinate: unknown coordinate {coordinate!r}") from None

    @property
    def actuators(self) -> tuple[str, ...]:
        """Actuator names in insertion order (the columns of ``S``)."""
        return tuple(a for a, _ in self._actuators)

    @property
    def contact_names(self) -> tuple[str, ...]:
        """Contact names in insertion order."""
        return tuple(c.name for c in self._contacts)

    @property
    def links(self) -> tuple[str, ...]:
        """Link names in insertion order (a topological order of the tree)."""
        return tuple(self._links)

    @property
    def graph(self) -> "nx.DiGraph":
        """The tree as a new ``networkx.DiGraph``: nodes are links (``mass``, ``com``,
        ``inertia``), edges parent → child carry ``joint`` (coordinate name) and
        ``joint_position`` (parent frame)."""
        import networkx as nx

        graph = nx.DiGraph()
        for link in self._links.values():
            graph.add_node(link.name, mass=link.mass, com=link.com, inertia=link.inertia)
            if link.parent is not None:
                graph.add_edge(link.parent, link.name, joint=link.joint, joint_position=link.joint_position)
        return graph

    def parts(self) -> MechanismParts:
        """The links, point masses, contacts and actuators as plain data (``MechanismParts``).

        Returns
        -------
        MechanismParts
            New lists and arrays (changing them does not change the mechanism); what a caller
            needs to rebuild the mechanism elsewhere (a simulator's model, a drawing).
        """
        links = [dict(name=l.name, parent=l.parent, joint=l.joint, joint_position=np.array(l.joint_position, float),
                      mass=float(l.mass), com=np.array(l.com, float), inertia=float(l.inertia))
                 for l in self._links.values()]
        pms = [(link, float(m), np.array(p, float)) for link, m, p in self._point_masses]
        contacts = [dict(name=c.name, link=c.link, position=np.array(c.position, float),
                         surface_point=np.array(c.surface_point, float), normal=np.array(c.normal, float),
                         tangent=np.array(c.tangent, float), mu=float(c.mu), v0=float(c.v0))
                    for c in self._contacts]
        return MechanismParts(links, pms, contacts, list(self._actuators))

    def actuator_matrix(self) -> np.ndarray:
        """``S`` (n_q, n_τ): column ``j`` is the unit vector of actuator ``j``'s coordinate."""
        S = np.zeros((self.n_q, len(self._actuators)))
        for j, (_, coord) in enumerate(self._actuators):
            S[self._coordinates.index(coord), j] = 1.0
        return S

    # ---------------------------------------------------------------- kinematics

    def _check_ready(self) -> None:
        if self._root is None:
            raise ContactModelError("links: no root link (add a link with parent=None)")

    def _state(self, value, field: str) -> np.ndarray:
        return _vector(value, field, self.n_q)

    def _link_states(self, q: np.ndarray, qdot: np.ndarray) -> dict[str, _LinkState]:
        """Recursive kinematics of every link frame (links are stored in topological order)."""
        n = self.n_q
        states: dict[str, _LinkState] = {}
        for link in self._links.values():
            if link.parent is None:
                J_angle = np.zeros(n)
                J_origin = np.zeros((2, n))
                if self.base == "floating":
                    origin = np.array(q[:2], dtype=float)
                    angle = float(q[2])
                    J_origin[0, 0] = J_origin[1, 1] = 1.0
                    J_angle[2] = 1.0
                else:
                    origin = np.array(self.base_position, dtype=float)
                    angle = float(q[0])
                    J_angle[0] = 1.0
                a_origin = np.zeros(2)
            else:
                ps = states[link.parent]
                r = ps.R @ link.joint_position
                origin = ps.origin + r
                J_origin = ps.J_origin + _perp(r)[:, None] * ps.J_angle  # np.outer, the same products
                a_origin = ps.a_origin - ps.omega**2 * r
                assert link.joint is not None  # every non-root link has a joint (add_link)
                i = self._coordinates.index(link.joint)
                angle = ps.angle + float(q[i])
                J_angle = ps.J_angle.copy()
                J_angle[i] += 1.0
            omega = float(J_angle @ qdot)
            states[link.name] = _LinkState(angle, origin, J_origin, J_angle, omega, a_origin, _rot(angle))
        return states

    @staticmethod
    def _point(ls: _LinkState, position: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """World position (2,), Jacobian (2, n) and acceleration at q̈ = 0 (2,) of a link point."""
        r = ls.R @ position
        p = ls.origin + r
        Jp = ls.J_origin + _perp(r)[:, None] * ls.J_angle  # np.outer, the same products
        a0 = ls.a_origin - ls.omega**2 * r
        return p, Jp, a0

    def _check_link(self, link: str, field: str = "link") -> None:
        if link not in self._links:
            raise ContactModelError(f"{field}: unknown link {link!r}")

    def link_pose(self, q: ArrayLike, link: str) -> np.ndarray:
        """World pose of a link's frame at a configuration.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        link : str
            The link's name.

        Returns
        -------
        numpy.ndarray
            ``(3,)`` the frame's pose ``(x, y, angle)`` (m, m, rad; angle from +x,
            counter-clockwise).

        Raises
        ------
        ContactModelError
            No root link, a wrong ``q`` shape, non-finite ``q`` or an unknown link.
        """
        self._check_ready()
        self._check_link(link)
        q_ = self._state(q, "q")
        ls = self._link_states(q_, np.zeros(self.n_q))[link]
        return np.array([ls.origin[0], ls.origin[1], ls.angle])

    def point_position(self, q: ArrayLike, link: str, position: ArrayLike) -> np.ndarray:
        """World position of a point fixed on a link, at a configuration.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        link : str
            The link carrying the point.
        position : array_like
            ``(2,)`` the point in the link frame (m).

        Returns
        -------
        numpy.ndarray
            ``(2,)`` the point's world position (m).

        Raises
        ------
        ContactModelError
            No root link, a wrong shape, a non-finite value or an unknown link.
        """
        self._check_ready()
        self._check_link(link)
        q_ = self._state(q, "q")
        pos = _vector(position, "position", 2)
        ls = self._link_states(q_, np.zeros(self.n_q))[link]
        return self._point(ls, pos)[0]

    def contact_gaps(self, q: ArrayLike) -> np.ndarray:
        """Signed gaps of the contact points from their environment lines at a configuration.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).

        Returns
        -------
        numpy.ndarray
            ``(k,)`` gaps ``n_i·(p_i − s_i)`` (m), contact order: positive in free space, negative
            in penetration.

        Raises
        ------
        ContactModelError
            No root link, a wrong ``q`` shape or non-finite ``q``.
        """
        self._check_ready()
        q_ = self._state(q, "q")
        states = self._link_states(q_, np.zeros(self.n_q))
        return np.array(
            [c.normal @ (self._point(states[c.link], c.position)[0] - c.surface_point) for c in self._contacts]
        )

    # ---------------------------------------------------------------- dynamics

    def dynamics(self, q: ArrayLike, qdot: ArrayLike) -> Dynamics:
        """Analytic dynamics and contact kinematics at ``(q, q̇)``, in SI units.

        Source: flipping paper, eqs. (3)–(5); see the module docstring for the method.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        qdot : array_like
            ``(n_q,)`` generalized velocities ``q̇`` (m/s, rad/s).

        Returns
        -------
        Dynamics
            ``M`` (n, n), ``h = C q̇ + g`` (n,), ``J`` (2k, n), ``Jdot_qdot`` (2k,),
            ``v_contact = J q̇`` (2k,), ``gaps`` (k,), ``positions`` (k, 2).

        Raises
        ------
        ContactModelError
            No root link; ``q`` or ``qdot`` of the wrong shape or non-finite (``"q: expected
            shape (4,), got (3,)"``).
        """
        self._check_ready()
        q_ = self._state(q, "q")
        qd = self._state(qdot, "qdot")
        return self._dynamics(self._link_states(q_, qd), qd)

    def dynamics_and_scales(self, q: ArrayLike, qdot: ArrayLike) -> tuple[Dynamics, CharacteristicScales]:
        """``(dynamics(q, qdot), characteristic_scales(q, qdot))`` computed on one evaluation of
        the link kinematics (the points both use — centres of mass, point masses, contact
        points — are evaluated once). The control step's evaluation
        (``controllers.generic.step.MechanismStep``): with numba installed it runs compiled
        (``contactmodes.model._mechanism_kernel``, about 30 µs instead of 220 µs for the
        6-contact snake) once a check on a few states has shown the compiled form gives the NumPy
        reference's numbers within ``contactmodes.tolerances.KERNEL_RTOL`` of their scales
        (``_compiled_dynamics``; on NumPy the same numbers as ``dynamics`` and
        ``characteristic_scales`` bit for bit); ``dynamics`` and ``contact_system`` stay on
        NumPy (commands do not load numba for one evaluation).

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        qdot : array_like
            ``(n_q,)`` generalized velocities ``q̇`` (m/s, rad/s).

        Returns
        -------
        tuple[Dynamics, CharacteristicScales]
            ``dynamics(q, qdot)`` and ``characteristic_scales(q, qdot)``.

        Raises
        ------
        ContactModelError
            No root link; ``q`` or ``qdot`` of the wrong shape or non-finite (``"q: expected
            shape (4,), got (3,)"``).
        """
        self._check_ready()
        q_ = self._state(q, "q")
        qd = self._state(qdot, "qdot")
        form = self._compiled_dynamics()
        if form is not None:
            M, h, J, Jdq, gaps, positions, _, jac, length = form.evaluate(q_, qd)
            d = Dynamics(M=M, h=h, J=J, Jdot_qdot=Jdq, v_contact=J @ qd, gaps=gaps, positions=positions)
            return d, self._scales_from(length, jac, qd)
        return self._numpy_dynamics_and_scales(q_, qd)

    def compile_dynamics(self) -> bool:
        """Compile and check the compiled form of ``dynamics_and_scales`` now (outside a timed
        control step; otherwise its first call does it).

        Returns
        -------
        bool
            Whether ``dynamics_and_scales`` runs compiled: numba is installed, the mechanism has
            at most ``contactmodes.model._mechanism_kernel.MAX_COORDINATES`` coordinates, and the
            compiled form gave the NumPy reference's numbers within ``KERNEL_RTOL`` of their
            scales (``_compiled_dynamics``), which holds on any BLAS.

        Raises
        ------
        ContactModelError
            When the mechanism has no root link.
        """
        self._check_ready()
        return self._compiled_dynamics() is not None

    def _numpy_dynamics_and_scales(self, q_: np.ndarray, qd: np.ndarray) -> tuple[Dynamics, CharacteristicScales]:
        """``dynamics_and_scales`` by the NumPy reference (validated ``q_``, ``qd``)."""
        states = self._link_states(q_, qd)
        points: dict = {}
        d = self._dynamics(states, qd, points)
        return d, self._scales(states, qd, points)

    def _compiled_dynamics(self) -> CompiledDynamics | None:
        """The compiled form of ``dynamics_and_scales`` (``contactmodes.model._mechanism_kernel``)
        when it gives the NumPy reference's numbers within ``KERNEL_RTOL``, else ``None``.

        It is built from the mechanism's parts and checked once (again after any ``add_*`` or a
        change of ``base``, ``gravity`` or ``base_position``): at rest (``+0`` and ``-0``
        velocities) and at four seeded random states, every output of both paths — ``M``, ``h``,
        ``J``, ``J̇q̇``, gaps, positions, the scales' points, Jacobians and extent — must agree
        within ``contactmodes.tolerances.KERNEL_RTOL`` times its scale
        (``_mechanism_kernel.agrees``; on the OpenBLAS build the kernel copies they are the same
        bits, on another BLAS a few ulps apart). Without numba, above
        ``_mechanism_kernel.MAX_COORDINATES`` coordinates, or when an output is off by more (a
        wrong kernel), NumPy serves every call."""
        key = (self.base, self.gravity, float(self.base_position[0]), float(self.base_position[1]))
        if self._kernel_key == key:
            return self._kernel_form
        form = self._kernel_parts()
        if form is not None and not self._kernel_agrees(form):
            form = None
        self._kernel_key, self._kernel_form = key, form
        return form

    def _kernel_parts(self) -> CompiledDynamics | None:
        """The mechanism's parts as a ``CompiledDynamics`` (not checked), or ``None`` without
        numba, a root, or above ``_mechanism_kernel.MAX_COORDINATES`` coordinates."""
        from contactmodes.model import _mechanism_kernel  # numba: the control step's, not every command's

        n = self.n_q
        if not (_mechanism_kernel.AVAILABLE and 0 < n <= _mechanism_kernel.MAX_COORDINATES and self._root is not None):
            return None
        names = list(self._links)
        links = [(names.index(lk.parent) if lk.parent is not None else -1,
                  self._coordinates.index(lk.joint) if lk.joint is not None else -1,
                  lk.joint_position, lk.mass, lk.com, lk.inertia) for lk in self._links.values()]
        return _mechanism_kernel.CompiledDynamics(
            links, [(names.index(lk), m, pos) for lk, m, pos in self._point_masses],
            [(names.index(c.link), c.position, c.surface_point, c.normal, c.tangent) for c in self._contacts],
            self.base == "floating", self.base_position, self.gravity, n)

    def _kernel_agrees(self, form: CompiledDynamics) -> bool:
        """Whether ``form`` gives the NumPy reference's numbers within ``KERNEL_RTOL`` of their
        scales (``_mechanism_kernel.agrees``) at the states of ``_compiled_dynamics``."""
        from contactmodes.model import _mechanism_kernel

        n = self.n_q
        rng = np.random.default_rng(20261126)
        states = [(np.zeros(n), np.zeros(n)), (np.full(n, -0.0), np.full(n, -0.0))]
        states += [(rng.normal(0.0, 1.5, n), rng.normal(0.0, 4.0, n)) for _ in range(4)]
        for q_, qd in states:
            got = form.evaluate(q_, qd)
            link_states = self._link_states(q_, qd)
            known: dict = {}
            d = self._dynamics(link_states, qd, known)
            ref_pts, ref_jac = self._scale_points(link_states, known)
            ref = (d.M, d.h, d.J, d.Jdot_qdot, d.gaps, d.positions, np.array(ref_pts).reshape(-1, 2),
                   np.array(ref_jac).reshape(-1, 2, n), CharacteristicScales.extent(np.array(ref_pts)))
            if not _mechanism_kernel.agrees(form, qd, got, ref):
                return False
        return True

    def _dynamics(self, states: dict[str, _LinkState], qd: np.ndarray, points: dict | None = None) -> Dynamics:
        """``dynamics`` from the link states; ``points`` (if given) receives ``(p, Jp)`` of every
        point evaluated, keyed as ``_scales`` reads them."""
        n, k = self.n_q, len(self._contacts)

        M = np.zeros((n, n))
        h = np.zeros(n)
        up = np.array([0.0, self.gravity])

        def add_mass(ls: _LinkState, m: float, position: np.ndarray, key) -> None:
            nonlocal M, h
            if m == 0.0:
                return
            p, Jp, a0 = self._point(ls, position)
            if points is not None:
                points[key] = (p, Jp)
            M += m * (Jp.T @ Jp)
            h += m * (Jp.T @ (a0 + up))

        for link in self._links.values():
            ls = states[link.name]
            add_mass(ls, link.mass, link.com, ("com", link.name))
            if link.inertia != 0.0:
                M += link.inertia * (ls.J_angle[:, None] * ls.J_angle)  # np.outer, the same products
        for j, (link_name, m, pos) in enumerate(self._point_masses):
            add_mass(states[link_name], m, pos, ("mass", j))
        M = 0.5 * (M + M.T)

        J = np.zeros((2 * k, n))
        Jdot_qdot = np.zeros(2 * k)
        gaps = np.zeros(k)
        positions = np.zeros((k, 2))
        for i, c in enumerate(self._contacts):
            p, Jp, a0 = self._point(states[c.link], c.position)
            if points is not None:
                points[("contact", i)] = (p, Jp)
            J[2 * i] = c.tangent @ Jp
            J[2 * i + 1] = c.normal @ Jp
            Jdot_qdot[2 * i] = c.tangent @ a0
            Jdot_qdot[2 * i + 1] = c.normal @ a0
            gaps[i] = c.normal @ (p - c.surface_point)
            positions[i] = p
        return Dynamics(M=M, h=h, J=J, Jdot_qdot=Jdot_qdot, v_contact=J @ qd, gaps=gaps, positions=positions)

    def characteristic_scales(self, q: ArrayLike, qdot: ArrayLike) -> CharacteristicScales:
        """Characteristic length, mass and time of the mechanism at ``(q, q̇)``.

        ``L``: largest distance between two of its points (link frame origins — the joints —,
        centres of mass, point masses, contact points); ``m``: total mass; ``T = sqrt(L / a)``
        with ``a = max(g, v²/L)``, ``v`` the largest speed of those points
        (``CharacteristicScales.from_mechanism_data
        <contactmodes.model.system.CharacteristicScales.from_mechanism_data>``). They fix the units in
        which ``contactmodes.model.scaling`` takes every numerical decision. The point speeds are
        computed only when they can change ``a``: when a bound on them already gives ``v²/L < g``
        (``_speeds_below_gravity``), ``a = g`` as they would give.

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        qdot : array_like
            ``(n_q,)`` generalized velocities ``q̇`` (m/s, rad/s).

        Returns
        -------
        CharacteristicScales
            ``(L, m, T)`` in SI units (m, kg, s).

        Raises
        ------
        ContactModelError
            No root link; ``q`` or ``qdot`` of the wrong shape or non-finite (``"q: expected
            shape (4,), got (3,)"``).
        """
        self._check_ready()
        q_ = self._state(q, "q")
        qd = self._state(qdot, "qdot")
        return self._scales(self._link_states(q_, qd), qd)

    def _scales(self, states: dict[str, _LinkState], qd: np.ndarray, known: dict | None = None
                ) -> CharacteristicScales:
        """``characteristic_scales`` from the link states; ``known`` the ``(p, Jp)`` of points
        ``_dynamics`` evaluated (the same numbers as ``_point`` gives again).

        The point speeds enter only through ``a = max(g, v²/L)``: when a bound on every speed
        already gives ``v²/L < g`` (slow motion, ``_speeds_below_gravity``), they are not
        computed and ``a = g``, the value they would give."""
        points, jacobians = self._scale_points(states, known)
        return self._scales_from(CharacteristicScales.extent(np.array(points)), jacobians, qd)

    def _scale_points(self, states: dict[str, _LinkState], known: dict | None = None) -> tuple[list, list]:
        """The points of the scales and their Jacobians ``(points [(2,)], jacobians [(2, n)])``:
        per link its frame origin and centre of mass, then the point masses, then the contacts;
        ``known`` as in ``_scales``."""
        points, jacobians = [], []

        def add(ls: _LinkState, position: np.ndarray | None, key=None) -> None:
            pj = known.get(key) if known is not None and key is not None else None
            if pj is None:  # the frame origin itself (position None): the point r = 0 of _point
                pj = (ls.origin, ls.J_origin) if position is None else self._point(ls, position)[:2]
            points.append(pj[0])
            jacobians.append(pj[1])

        for link in self._links.values():
            ls = states[link.name]
            add(ls, None)
            add(ls, link.com, ("com", link.name))
        for j, (link_name, _, pos) in enumerate(self._point_masses):
            add(states[link_name], pos, ("mass", j))
        for i, c in enumerate(self._contacts):
            add(states[c.link], c.position, ("contact", i))
        return points, jacobians

    def _scales_from(self, length: float, jacobians, qd: np.ndarray) -> CharacteristicScales:
        """The scales from the points' extent ``length`` and Jacobians (``_scale_points``' order,
        a list or a ``(P, 2, n)`` array): the speeds enter only when ``_speeds_below_gravity``
        cannot rule them out."""
        total = 0.0
        for link in self._links.values():
            total += link.mass
        for _, m, _ in self._point_masses:
            total += m
        if self._speeds_below_gravity(length, qd):
            return CharacteristicScales.from_extent(length, total, self.gravity, 0.0)
        speeds = []
        for Jp in jacobians:
            v = Jp @ qd
            speeds.append(math.sqrt(v.dot(v)))  # np.linalg.norm of a vector, the same operations
        return CharacteristicScales.from_extent(length, total, self.gravity, float(np.max(np.abs(speeds), initial=0.0)))

    def _speeds_below_gravity(self, length: float, qd: np.ndarray) -> bool:
        """Whether every point speed ``v`` of the scales satisfies ``v²/L < g`` for sure: ``v <=
        |(ẋ, ẏ)| + L · Σ|q̇_θ|`` (a point moves with the base origin plus, per angle coordinate
        of its chain, ``q̇ᵢ`` times its distance to that joint, at most ``L``, the largest distance
        between two of the points, joints included), with a relative allowance for rounding.
        ``L`` as ``CharacteristicScales.from_extent`` takes it (1 when not positive)."""
        g = float(self.gravity)
        if not g > 0.0:
            return False
        eff = length if length > 0.0 and math.isfinite(length) else 1.0
        floating = self.base == "floating"
        trans = math.hypot(float(qd[0]), float(qd[1])) if floating else 0.0
        turn = float(np.abs(qd[2:] if floating else qd).sum())
        vb = (trans + max(length, 0.0) * turn) * (1.0 + 1e-9)
        return vb * vb / eff < g * (1.0 - 1e-9)

    def contact_system(
        self,
        q: ArrayLike,
        qdot: ArrayLike,
        constraints: Sequence[LinearConstraint] = (),
        name: str | None = None,
        disturbance: Disturbance | None = None,
    ) -> ContactSystem:
        """The ``ContactSystem`` at ``(q, q̇)`` (flipping paper, eqs. 3–5), in SI units.

        ``S`` is ``actuator_matrix``, ``mu`` and ``v0`` come from the contacts, the scales are
        ``characteristic_scales(q, qdot)``. Gaps are not checked here (see ``contact_gaps``).

        Parameters
        ----------
        q : array_like
            ``(n_q,)`` generalized coordinates in ``coordinates`` order (m for a floating base's
            ``x``, ``y``; rad for the angles).
        qdot : array_like
            ``(n_q,)`` generalized velocities ``q̇`` (m/s, rad/s).
        constraints : Sequence[LinearConstraint], optional
            Physical (eqs. 11–14) and task (eqs. 15–18) blocks over ``(q̈, f, τ)``, passed through
            (validated by ``ContactSystem``). Default none.
        name : str, optional
            The system's label; default (``None``) the mechanism's ``name``.
        disturbance : Disturbance, optional
            Bounded disturbance generalized force for the robust analysis, passed through.

        Returns
        -------
        ContactSystem
            The mechanism's model at the state, in ``coordinates``, ``actuators`` and
            ``contact_names`` order.

        Raises
        ------
        ContactModelError
            As ``dynamics``, or from ``ContactSystem`` validation of the constraints.
        """
        self._check_ready()  # the NumPy path: the same numbers as the kernel's, without loading numba
        d, scales = self._numpy_dynamics_and_scales(self._state(q, "q"), self._state(qdot, "qdot"))
        return ContactSystem(
            M=d.M,
            h=d.h,
            S=self.actuator_matrix(),
            J=d.J,
            Jdot_qdot=d.Jdot_qdot,
            v_contact=d.v_contact,
            mu=np.array([c.mu for c in self._contacts]),
            coordinates=self.coordinates,
            torques=self.actuators,
            contacts=self.contact_names,
            v0=np.array([c.v0 for c in self._contacts]),
            constraints=tuple(constraints),
            name=self.name if name is None else name,
            disturbance=disturbance,
            scales=scales,
        )
