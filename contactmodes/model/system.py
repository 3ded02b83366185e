"""The instantaneous contact model of a planar system at one state ``(q, q̇)``.

``ContactSystem`` holds everything the analysis needs, already evaluated at the state:

    M(q) q̈ + h(q, q̇) = S τ + J(q)^T f                                  (flipping paper, eq. 5)

with ``h = C(q, q̇) q̇ + g(q)``, the contact Jacobian ``J`` in contact frames with rows
``(t_1, n_1, …, t_k, n_k)`` (``docs/conventions.md``), ``J̇ q̇`` for the contact accelerations
``ẍ = J q̈ + J̇ q̇`` (eq. 4), contact velocities ``ẋ = J q̇`` (eq. 3), friction coefficients, and
the physical and task constraints (eqs. 11–18) as ``LinearConstraint`` blocks over
``(q̈, f, τ)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes.errors import ContactModelError
from contactmodes import tolerances
from contactmodes.modes.contact_model import PLANAR_POINT
from contactmodes.tolerances import MU_MAX

if TYPE_CHECKING:  # pragma: no cover
    from contactmodes.model.scaling import Scaling

CONSTRAINT_KINDS = ("physical", "task")
CONSTRAINT_TYPES = ("eq", "geq")


def _array(value, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Return ``value`` as a read-only float64 array of ``shape``; raise naming ``name``."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ContactModelError(f"{name}: not a numeric array ({exc})") from None
    if arr.size == 0 and 0 in shape:
        arr = arr.reshape(shape)
    if arr.shape != shape:
        raise ContactModelError(f"{name}: expected shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ContactModelError(f"{name}: contains NaN or infinite values")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class LinearConstraint:
    """Linear constraint rows ``qdd·q̈ + f·f + tau·τ (= or >=) rhs`` (flipping paper, eqs. 11–18).

    Parameters
    ----------
    kind : str
        ``"physical"`` (always holds, eqs. 11–14) or ``"task"`` (desired behaviour, eqs. 15–18).
    type : str
        ``"eq"`` or ``"geq"``.
    qdd : numpy.ndarray
        ``(m, n_q)`` coefficients of the generalized accelerations (SI units of the coordinates).
    f : numpy.ndarray
        ``(m, n_f)`` coefficients of the contact forces, in the system's contact-vector order
        (planar: ``(f_t1, f_n1, …)``).
    tau : numpy.ndarray
        ``(m, n_τ)`` coefficients of the actuator torques.
    rhs : numpy.ndarray
        ``(m,)`` right-hand side.
    name : str, optional
        Optional label used in reports (e.g. ``"qdd = 0"``).

    Notes
    -----
    The paper's ``A q̈ = B τ + b`` is ``qdd = A, tau = -B, rhs = b``; ``N q̈ >= E τ + e`` is
    ``qdd = N, tau = -E, rhs = e``. Shapes are checked by ``ContactSystem``.
    """

    kind: str
    type: str
    qdd: np.ndarray
    f: np.ndarray
    tau: np.ndarray
    rhs: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            raise ContactModelError(f"constraint kind: must be one of {CONSTRAINT_KINDS}, got {self.kind!r}")
        if self.type not in CONSTRAINT_TYPES:
            raise ContactModelError(f"constraint type: must be one of {CONSTRAINT_TYPES}, got {self.type!r}")
        rhs = np.atleast_1d(np.array(self.rhs, dtype=float))
        m = rhs.shape[0]
        for attr in ("qdd", "f", "tau"):
            arr = np.array(getattr(self, attr), dtype=float)
            if arr.ndim == 1:
                arr = arr.reshape(m, -1) if m else arr.reshape(0, 0)
            object.__setattr__(self, attr, arr)
        object.__setattr__(self, "rhs", rhs)

    @property
    def n_rows(self) -> int:
        """Number of constraint rows ``m``."""
        return int(self.rhs.shape[0])

    def validated(self, n_q: int, n_f: int, n_tau: int, where: str) -> "LinearConstraint":
        """Return a copy with read-only float64 arrays of checked shapes; errors name ``where``.

        Parameters
        ----------
        n_q : int
            Number of generalized coordinates: the columns of ``qdd``.
        n_f : int
            Number of contact-force components ``n_f`` (``2k`` planar): the columns of ``f``.
        n_tau : int
            Number of actuator inputs: the columns of ``tau``.
        where : str
            The block's name in messages, e.g. ``"constraints[2]"`` (``ContactSystem`` passes its
            index).

        Returns
        -------
        LinearConstraint
            The same rows (kind, type and name kept) with ``qdd`` ``(m, n_q)``, ``f`` ``(m, n_f)``,
            ``tau`` ``(m, n_tau)`` and ``rhs`` ``(m,)`` read-only.

        Raises
        ------
        ContactModelError
            When an array is not numeric, has another shape or holds NaN or infinite values (the
            message names ``where`` and the field, e.g. ``"constraints[0].tau: expected shape
            (1, 2), got (1, 3)"``).
        """
        m = self.n_rows
        return LinearConstraint(
            kind=self.kind,
            type=self.type,
            qdd=_array(self.qdd, f"{where}.qdd", (m, n_q)),
            f=_array(self.f, f"{where}.f", (m, n_f)),
            tau=_array(self.tau, f"{where}.tau", (m, n_tau)),
            rhs=_array(self.rhs, f"{where}.rhs", (m,)),
            name=self.name,
        )

    def to_json(self) -> dict:
        """JSON form of the issue-2 schema: ``{"kind", "type", "qdd", "f", "tau", "rhs"}``."""
        return {
            "kind": self.kind,
            "type": self.type,
            "name": self.name,
            "qdd": self.qdd.tolist(),
            "f": self.f.tolist(),
            "tau": self.tau.tolist(),
            "rhs": self.rhs.tolist(),
        }


@dataclass(frozen=True)
class Disturbance:
    """A bounded disturbance generalized force ``τ_d = E δ``, ``δ ∈ D`` (bracing paper).

    It enters the equations of motion on the right-hand side with the same sign as the actuator
    torques (docs/conventions.md): ``M q̈ + h = S τ + E δ + Jᵀ f``.

    Parameters
    ----------
    coordinates : tuple[str, ...]
        Names of the ``n_d`` generalized coordinates the disturbance acts on.
    E : numpy.ndarray
        ``(n_q, n_d)`` map from ``δ`` to generalized forces (columns are unit vectors of those
        coordinates when built from a system file).
    set : Polytope
        The disturbance set ``D`` over ``δ`` (dimension ``n_d``): non-empty and bounded.

    Raises
    ------
    ContactModelError
        When ``D`` is empty, unbounded or of the wrong dimension (message names ``disturbance``).
    """

    coordinates: tuple[str, ...]
    E: np.ndarray
    set: Polytope

    def __post_init__(self) -> None:
        n_d = len(self.coordinates)
        object.__setattr__(self, "coordinates", tuple(str(c) for c in self.coordinates))
        E = np.array(self.E, dtype=float)
        if E.ndim != 2 or E.shape[1] != n_d:
            raise ContactModelError(f"disturbance.E: expected {n_d} columns, got shape {E.shape}")
        object.__setattr__(self, "E", _array(E, "disturbance.E", E.shape))
        if not isinstance(self.set, Polytope) or self.set.dim != n_d:
            raise ContactModelError(f"disturbance.set: expected a Polytope of dimension {n_d}")
        if self.set.is_empty():
            raise ContactModelError("disturbance.set: the disturbance set is empty")
        lo, hi = self.set.bounding_box()
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            raise ContactModelError("disturbance.set: the disturbance set must be bounded")

    @property
    def n_d(self) -> int:
        """Number of disturbance components."""
        return len(self.coordinates)

    def to_json(self) -> dict:
        """``{"coordinates", "E", "set": polytope}``."""
        return {"coordinates": list(self.coordinates), "E": self.E.tolist(), "set": self.set.to_json()}


@dataclass(frozen=True)
class CharacteristicScales:
    """Characteristic length, mass and time of a system, in the units its numbers are written in.

    They fix the units in which ``contactmodes.model.scaling`` nondimensionalizes the system before
    any rank, emptiness or boundary decision (so that the decisions do not depend on whether the
    system is written in metres or millimetres). ``PlanarMechanism.contact_system
    <contactmodes.model.mechanism.PlanarMechanism.contact_system>`` derives them from the mechanism
    itself (``from_mechanism_data``).

    Attributes
    ----------
    length : float
        Characteristic length ``L`` (> 0; m in SI).
    mass : float
        Characteristic mass ``m`` (> 0; kg in SI).
    time : float
        Characteristic time ``T`` (> 0; s in SI).
    nondimensional : bool
        The system's numbers are already nondimensional (the scaled system of
        ``nondimensionalize``): its scaling is the identity.

    Raises
    ------
    ContactModelError
        When a value is not a finite positive number (the message names it).
    """

    length: float = 1.0
    mass: float = 1.0
    time: float = 1.0
    nondimensional: bool = False

    def __post_init__(self) -> None:
        for name in ("length", "mass", "time"):
            value = getattr(self, name)
            try:
                x = float(value)
            except (TypeError, ValueError):
                raise ContactModelError(f"scales.{name}: must be a number, got {value!r}") from None
            if not (math.isfinite(x) and x > 0.0):
                raise ContactModelError(f"scales.{name}: must be finite and > 0, got {value!r}")
            object.__setattr__(self, name, x)

    @property
    def acceleration(self) -> float:
        """``L / T²``."""
        return self.length / self.time ** 2

    @property
    def velocity(self) -> float:
        """``L / T``."""
        return self.length / self.time

    @property
    def force(self) -> float:
        """``m L / T²``."""
        return self.mass * self.acceleration

    @property
    def torque(self) -> float:
        """``m L² / T²`` (force × length): the system's characteristic torque, the unit of a
        massless coordinate's actuator in ``contactmodes.model.scaling`` and the scale of the
        controllers' default margin (``contactmodes.tolerances.MARGIN_RTOL``)."""
        return self.force * self.length

    @classmethod
    def from_mechanism_data(cls, points: np.ndarray, total_mass: float, gravity: float,
                            speeds: np.ndarray) -> "CharacteristicScales":
        """Scales of a mechanism at a state, equivariant under any change of units.

        ``L`` is the largest distance between two of the mechanism's points (1 if they coincide),
        ``m`` the total mass (1 for a massless mechanism), and ``T = sqrt(L / a)`` with the
        characteristic acceleration ``a = max(g, v²/L)``, ``v`` the largest point speed (``T = 1``
        when ``a = 0``: no gravity and at rest, where time does not enter).

        Parameters
        ----------
        points : numpy.ndarray
            ``(P, 2)`` the mechanism's points at the state (joints, centres of mass, point masses,
            contact points), m in SI.
        total_mass : float
            Total mass of the mechanism (kg in SI); a value that is not finite and > 0 counts as 1.
        gravity : float
            Magnitude ``g`` of the gravitational acceleration (m/s² in SI, ``>= 0``).
        speeds : numpy.ndarray
            ``(P,)`` the speeds of the points (m/s in SI); only the largest magnitude is used.

        Returns
        -------
        CharacteristicScales
            ``(L, m, T)`` as above, in the units of the arguments.
        """
        return cls.from_extent(cls.extent(points), total_mass, gravity, float(np.max(np.abs(speeds), initial=0.0)))

    @staticmethod
    def extent(points: np.ndarray) -> float:
        """The largest distance between two of the points: ``from_mechanism_data``'s ``L`` before
        the rule for coincident points.

        Parameters
        ----------
        points : numpy.ndarray
            ``(P, 2)`` planar points (m in SI); any array of ``2P`` numbers is read as ``P`` rows.

        Returns
        -------
        float
            The largest pairwise Euclidean distance (units of ``points``); 0 for fewer than two
            points.
        """
        pts = np.asarray(points, dtype=float).reshape(-1, 2)
        length = 0.0
        if len(pts) > 1:
            diff = pts[:, None, :] - pts[None, :, :]
            length = float(np.sqrt((diff ** 2).sum(axis=2)).max())
        return length

    @classmethod
    def from_extent(cls, length: float, total_mass: float, gravity: float, max_speed: float) -> "CharacteristicScales":
        """``from_mechanism_data`` from its two reductions of the points.

        For callers that reduce their few points themselves (the RHex controller, every control
        step); the result equals ``from_mechanism_data`` on the same points and speeds.

        Parameters
        ----------
        length : float
            The largest distance between two points (m in SI; a value that is not finite and > 0
            counts as 1, as for coincident points).
        total_mass : float
            Total mass (kg in SI); a value that is not finite and > 0 counts as 1.
        gravity : float
            Magnitude ``g`` of the gravitational acceleration (m/s² in SI, ``>= 0``).
        max_speed : float
            The largest point speed (m/s in SI; NaN when a speed is NaN, which then drops out of
            the acceleration: ``a = g``).

        Returns
        -------
        CharacteristicScales
            ``L = length``, ``m = total_mass`` and ``T = sqrt(L / max(g, v²/L))`` (1 when that is
            not finite and > 0).
        """
        length = length if length > 0.0 and math.isfinite(length) else 1.0
        mass = float(total_mass) if total_mass > 0.0 and math.isfinite(total_mass) else 1.0
        v = float(max_speed)
        accel = max(float(gravity), v * v / length)
        time = math.sqrt(length / accel) if accel > 0.0 and math.isfinite(accel) else 1.0
        if not (math.isfinite(time) and time > 0.0):
            time = 1.0
        return cls(length, mass, time)


@dataclass(frozen=True)
class ContactSystem:
    """Instantaneous contact model at one state ``(q, q̇)``: ``M q̈ + h = S τ + Jᵀ f``.

    Everything the analysis needs, already evaluated at the state, in any consistent units (SI
    when built from a system file: m, rad, kg, s; torques in N·m for revolute joints and N for
    prismatic ones). Below ``n_q`` is the number of coordinates, ``n_τ`` of actuators, ``k`` of
    contacts and ``c`` the number of force components of one contact (``n_components``, from the
    system's ``contact_model``: 2 for the planar point contact, 3 for the spatial one); contact
    quantities are in contact frames, ``c`` rows per contact in the model's ``components`` order:
    ``(t_1, n_1, …, t_k, n_k)`` in the plane (``docs/conventions.md``), ``(t1_1, t2_1, n_1, …)``
    in space (``docs/spatial.md``), ``n_f = c k`` rows in all. The arrays are validated and
    stored as read-only float64 copies.

    Parameters
    ----------
    M : array_like
        Inertia matrix ``M(q)``, shape ``(n_q, n_q)``: symmetric positive semi-definite (singular
        allowed, for massless links), kg and kg·m².
    h : array_like
        ``C(q, q̇) q̇ + g(q)``, shape ``(n_q,)``: Coriolis, centrifugal and gravity terms, N and N·m.
    S : array_like
        Actuator map, shape ``(n_q, n_τ)``: the generalized force of the torques is ``S τ``.
    J : array_like
        Contact Jacobian ``J(q)``, shape ``(n_f, n_q)``, the model's component rows per contact
        (planar: ``(t_i, n_i)``).
    Jdot_qdot : array_like
        ``J̇ q̇``, shape ``(n_f,)`` (m/s²): contact accelerations are ``ẍ = J q̈ + J̇ q̇``.
    v_contact : array_like
        Contact velocities ``ẋ = J q̇``, shape ``(n_f,)``, m/s.
    mu : array_like
        Friction coefficients, shape ``(k,)``, ``0 <= mu <= contactmodes.tolerances.MU_MAX``.
    coordinates : Sequence[str]
        Names of the ``n_q`` generalized coordinates, unique.
    torques : Sequence[str]
        Names of the ``n_τ`` actuator inputs, unique.
    contacts : Sequence[str]
        Names of the ``k`` point contacts, unique.
    v0 : array_like, optional
        Velocity thresholds, shape ``(k,)``, m/s, ``>= 0``: a contact slower than its threshold
        may stick (flipping paper, Sec. IV-C.3). Default zeros.
    constraints : Sequence[LinearConstraint], optional
        Physical (eqs. 11–14) and task (eqs. 15–18) constraint blocks over ``(q̈, f, τ)``.
        Default none.
    name : str, optional
        A label for reports.
    disturbance : Disturbance, optional
        Bounded disturbance generalized force ``τ_d = E δ`` for the robust analysis
        (``contactmodes.analysis.robust``). The nominal analysis (``analyze``, ``unambiguous``)
        ignores it, that is, takes ``τ_d = 0``.
    scales : CharacteristicScales, optional
        Length, mass and time scales in the units of the arrays, used to nondimensionalize the
        system once before any decision is taken. Default: all 1 (the numbers are taken to be in
        characteristic units). Systems from a mechanism or a system file carry the mechanism's
        own scales.
    contact_model : object, optional
        The contact model every contact of the system shares (issue 40: one model per system):
        an object with the interface of ``contactmodes.modes.contact_model.PlanarPointContact``
        (``components``, ``letters``, ``kept_letters``, ``rows``, ``velocity_class``,
        ``relaxed_rows``). Default ``PLANAR_POINT``; ``SpatialMechanism.contact_system``
        passes a ``contactmodes.modes.spatial_contact.SpatialPointContact``.

    Raises
    ------
    ContactModelError
        On a wrong shape, a non-finite value, a negative ``mu`` or ``v0`` (or ``mu`` above
        ``MU_MAX``), a non-symmetric ``M``, duplicate names, a disturbance map with the wrong
        number of rows, ``scales`` of the wrong type, or a ``contact_model`` without
        ``components`` and ``letters``; the message names the field
        (``"mu[0] (foot): must be >= 0, got -0.5"``).

    See Also
    --------
    contactmodes.load_system : The system of a system file.
    contactmodes.analyze : Every contact mode's torque set ``T_c`` of a system.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-A (the equations of motion, eq. (5), and the contact
    kinematics, eqs. (3)–(4)), Sec. III-B (the physical and task constraints, eqs. (11)–(18)) and
    Sec. IV-C.3 (velocity thresholds).
    Greenfield, Rizzi & Choset, *Dynamic Ambiguities in Frictional Rigid-body Systems with
    Application to Climbing via Bracing* (the disturbance set of robust bracing).

    Examples
    --------
    A 1 kg block on the ground, pushed horizontally (coordinates ``(x, y)`` in m, the push in N),
    friction coefficient 0.5:

    >>> import numpy as np
    >>> import contactmodes as cm
    >>> block = cm.ContactSystem(
    ...     M=np.eye(2), h=[0.0, 9.81], S=[[1.0], [0.0]], J=np.eye(2), Jdot_qdot=[0.0, 0.0],
    ...     v_contact=[0.0, 0.0], mu=[0.5], coordinates=("x", "y"), torques=("push",),
    ...     contacts=("foot",), name="block")
    >>> block.n_q, block.n_tau, block.k
    (2, 1, 1)
    >>> result = cm.analyze(block)
    >>> result.feasible_modes()
    ['F', 'L', 'R']
    >>> lo, hi = result.modes["F"].box          # N: it sticks while |push| <= mu m g
    >>> round(float(lo[0]), 6), round(float(hi[0]), 6)
    (-4.905, 4.905)

    A system file gives the same object:

    >>> brace = cm.load_system("examples/two_link_brace.toml")
    >>> brace.coordinates, brace.torques, brace.J.shape
    (('x', 'y', 'theta', 'theta1'), ('tau1',), (6, 4))
    """

    M: np.ndarray
    h: np.ndarray
    S: np.ndarray
    J: np.ndarray
    Jdot_qdot: np.ndarray
    v_contact: np.ndarray
    mu: np.ndarray
    coordinates: tuple[str, ...]
    torques: tuple[str, ...]
    contacts: tuple[str, ...]
    v0: np.ndarray | None = None
    constraints: tuple[LinearConstraint, ...] = field(default_factory=tuple)
    name: str = ""
    disturbance: Disturbance | None = None
    scales: CharacteristicScales | None = None
    contact_model: Any = PLANAR_POINT

    def __post_init__(self) -> None:
        n_q, n_tau, k = len(self.coordinates), len(self.torques), len(self.contacts)
        model = self.contact_model
        components = getattr(model, "components", None)
        if (not isinstance(components, tuple) or not components or not all(isinstance(c, str) for c in components)
                or not isinstance(getattr(model, "letters", None), str) or not callable(getattr(model, "rows", None))
                or not isinstance(getattr(model, "kept_letters", None), str)
                or not callable(getattr(model, "velocity_class", None))
                or not callable(getattr(model, "relaxed_rows", None))):
            raise ContactModelError(f"contact_model: expected a contact model (components, letters, kept_letters, "
                                    f"rows, velocity_class, relaxed_rows), got {type(model).__name__}")
        n_f = len(components) * k
        for label, names in (("coordinates", self.coordinates), ("torques", self.torques), ("contacts", self.contacts)):
            names = tuple(str(n) for n in names)
            if len(set(names)) != len(names):
                raise ContactModelError(f"{label}: names must be unique, got {list(names)}")
            object.__setattr__(self, label, names)
        set_ = lambda attr, shape: object.__setattr__(self, attr, _array(getattr(self, attr), attr, shape))  # noqa: E731
        set_("M", (n_q, n_q))
        set_("h", (n_q,))
        set_("S", (n_q, n_tau))
        set_("J", (n_f, n_q))
        set_("Jdot_qdot", (n_f,))
        set_("v_contact", (n_f,))
        set_("mu", (k,))
        if self.v0 is None:
            object.__setattr__(self, "v0", np.zeros(k))
        set_("v0", (k,))
        if self.scales is None:
            object.__setattr__(self, "scales", CharacteristicScales())
        elif not isinstance(self.scales, CharacteristicScales):
            raise ContactModelError(f"scales: expected CharacteristicScales, got {type(self.scales).__name__}")
        scale = float(np.abs(self.M).max(initial=0.0))  # relative: no unit-dependent floor
        if not np.allclose(self.M, self.M.T, rtol=0.0, atol=tolerances.SYMMETRY_RTOL * scale):
            raise ContactModelError("M: inertia matrix must be symmetric")
        for i in range(k):
            if self.mu[i] < 0:
                raise ContactModelError(f"mu[{i}] ({self.contacts[i]}): must be >= 0, got {self.mu[i]}")
            if self.mu[i] > MU_MAX:
                raise ContactModelError(
                    f"mu[{i}] ({self.contacts[i]}): must be <= {MU_MAX:g} (contactmodes.tolerances.MU_MAX; "
                    f"larger friction coefficients make the friction cone numerically meaningless), "
                    f"got {self.mu[i]:g}")
            if self.v0[i] < 0:
                raise ContactModelError(f"v0[{i}] ({self.contacts[i]}): must be >= 0, got {self.v0[i]}")
        checked = tuple(
            c.validated(n_q, n_f, n_tau, f"constraints[{i}]") for i, c in enumerate(self.constraints)
        )
        object.__setattr__(self, "constraints", checked)
        if self.disturbance is not None and self.disturbance.E.shape[0] != n_q:
            raise ContactModelError(
                f"disturbance.E: expected {n_q} rows (one per coordinate), got {self.disturbance.E.shape[0]}"
            )

    @cached_property
    def scaling(self) -> "Scaling":
        """The nondimensionalization of this system (``contactmodes.model.scaling.nondimensionalize``),
        computed once. ``system.scaling.system`` is the scaled system every decision is taken on
        (whose own scaling is the identity)."""
        from contactmodes.model.scaling import identity_scaling, nondimensionalize

        assert self.scales is not None  # __post_init__ always sets it
        return identity_scaling(self) if self.scales.nondimensional else nondimensionalize(self)

    @property
    def n_q(self) -> int:
        """Number of generalized coordinates."""
        return len(self.coordinates)

    @property
    def n_tau(self) -> int:
        """Number of actuator inputs."""
        return len(self.torques)

    @property
    def k(self) -> int:
        """Number of point contacts."""
        return len(self.contacts)

    @property
    def n_components(self) -> int:
        """Number of force components of one contact: ``len(contact_model.components)``."""
        return len(self.contact_model.components)

    @property
    def n_f(self) -> int:
        """Number of contact-force components of the system: ``n_components · k``."""
        return self.n_components * self.k

    def constraints_of(self, kinds: Sequence[str]) -> tuple[LinearConstraint, ...]:
        """The constraint blocks whose kind is in ``kinds``.

        Parameters
        ----------
        kinds : Sequence[str]
            Kinds to keep, from ``CONSTRAINT_KINDS`` (e.g. ``("physical",)``); an unknown kind
            selects nothing.

        Returns
        -------
        tuple[LinearConstraint, ...]
            The matching blocks, in the order of ``constraints``.
        """
        return tuple(c for c in self.constraints if c.kind in kinds)

    def to_json(self) -> dict:
        """The ``"system"`` object of the ``contactmodes.analysis/1`` JSON schema.

        A system whose contact model is not the planar one adds ``"components"`` (the model's
        component names, the order of the rows of ``J`` per contact) and ``"letters"`` (its
        mode letters); a planar system's object is unchanged (no such keys: ``(t, n)`` and
        ``FSLR`` are implied).
        """
        out = self._json_fields()
        if self.contact_model is not PLANAR_POINT:
            out["components"] = list(self.contact_model.components)
            out["letters"] = str(self.contact_model.letters)
        return out

    def _json_fields(self) -> dict:
        """``to_json``'s fields common to every contact model."""
        return {
            "name": self.name,
            "coordinates": list(self.coordinates),
            "torques": list(self.torques),
            "contacts": list(self.contacts),
            "M": self.M.tolist(),
            "h": self.h.tolist(),
            "S": self.S.tolist(),
            "J": self.J.tolist(),
            "Jdot_qdot": self.Jdot_qdot.tolist(),
            "v_contact": self.v_contact.tolist(),
            "mu": self.mu.tolist(),
            "v0": self.v0.tolist(),
            "constraints": [c.to_json() for c in self.constraints],
            "disturbance": None if self.disturbance is None else self.disturbance.to_json(),
            "scales": {"length": self.scales.length, "mass": self.scales.mass, "time": self.scales.time},
        }
