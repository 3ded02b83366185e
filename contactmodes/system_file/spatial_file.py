"""Spatial system files (``dimension = 3``): a robot from its URDF or MJCF with point contacts on planes.

A system file (schema ``contactmodes.system/1``, ``docs/system-file.md``, section "Spatial files")
whose top-level ``dimension`` is 3 describes a ``contactmodes.model.spatial.SpatialMechanism``:

``[mechanism]``
    ``urdf = "PATH"`` or ``mjcf = "PATH"`` (exactly one; relative to the system file), ``base``
    ``"floating"`` (default) or ``"fixed"``; a fixed base's pose ``base_position`` ``[x, y, z]``
    (m, default the origin) and one of ``base_quaternion`` ``[w, x, y, z]``, ``base_rpy``,
    ``base_rpy_deg`` (default the identity).
``gravity``
    Magnitude (m/s², default 9.81) of gravity along ``−z``.
``[friction]``
    The polygon of contacts at rest: ``sides`` (``n_f``, 3 to 20, default 4) and ``polygon``
    (``"circumscribed"``, default, or ``"inscribed"``); the friction of sliding contacts,
    ``sliding``: ``"exact"`` (default, Coulomb's ``−μ f_n v̂``, letter ``D``) or ``"polygon"``
    (the same polygon's maximum-dissipation force, its side or vertex letter) —
    ``contactmodes.modes.spatial_contact``; one contact model per system.
``[[contacts]]``
    ``name``, ``link`` (a link of the robot file), ``position`` ``[x, y, z]`` (m, the link's
    frame), ``surface_point`` and ``surface_normal`` (the plane, world, normal out of the
    environment), optional ``tangent`` (the polygon's reference direction ``t1``, projected into
    the plane; default ``contactmodes.model.spatial_frames.contact_frame``'s), ``mu`` (a number,
    or an interval ``[lo, hi]`` read by the commands that read planar intervals:
    ``docs/friction-intervals.md``; the mechanism's μ is then the midpoint) and optional ``v0``
    (m/s, default 0).
``[[actuators]]``
    ``name`` and ``coordinate`` (a joint, or a floating base's ``x, y, z, wx, wy, wz``). **When
    the key is absent every joint is actuated**, one actuator per joint named by it, in the
    mechanism's joint order; ``actuators = []`` makes the robot passive.
``[state]``
    ``q`` and ``qdot`` tables read by ``contactmodes.model.spatial_state.state_vectors``
    (``base_position``, ``base_quaternion | base_rpy | base_rpy_deg``, joints by name, ``_deg``
    keys in degrees; ``base_linear``, ``base_angular`` in world axes).
``[disturbance]``
    As in a planar file (``coordinates`` plus ``lower``/``upper`` or ``A``/``b``), the
    coordinates named as the velocity coordinates: a floating base's ``x, y, z`` (a force in N
    along that world axis, applied at the base frame's origin) and ``wx, wy, wz`` (a moment in
    N·m about that world axis), joints by name (N·m or N). These are the generalized forces dual
    to the velocity coordinates (``contactmodes.model.spatial``), so ``E`` has one unit column
    per named coordinate, as in the plane.
``[control]``
    The one-shot controller's defaults, as in a planar file (``contactmodes.control.spec``,
    ``docs/control.md``), with the spatial names: ``f.<contact>.t1``, ``.t2``, ``.n`` in the
    objective, the polygon's letters in ``modes``.

Spatial files are in SI units: the robot file fixes them (URDF and MJCF lengths are metres). The
planar file's ``links``, ``point_masses``, ``constraints`` and ``desired_mode`` are not read in
a spatial file yet and are refused with one line naming the key.

Every problem raises ``SystemFileError`` whose message starts with the key path (``contacts[1].link:
unknown link 'lid' (the robot's links: box)``); nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from contactmodes import tolerances
from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.model.spatial_frames import rpy_quaternion, unit_quaternion
from contactmodes.system_file import _fields as L  # the planar reader's validators: one set of messages

__all__ = [
    "DEFAULT_POLYGON",
    "DEFAULT_SIDES",
    "DEFAULT_SLIDING",
    "LoadedSpatialSystem",
    "SPATIAL_TOP_KEYS",
    "SpatialContents",
    "is_spatial",
    "parse_spatial_contents",
    "parse_spatial_system",
    "spatial_gap_problems",
]

SPATIAL_TOP_KEYS = ("schema", "name", "description", "dimension", "gravity", "mechanism", "friction", "contacts",
                    "actuators", "state", "disturbance", "control")
"""Top-level keys of a spatial file."""
_NOT_YET = ("links", "point_masses", "constraints", "desired_mode")
_MECHANISM_KEYS = ("urdf", "mjcf", "base", "base_position", "base_quaternion", "base_rpy", "base_rpy_deg")
_ORIENTATIONS = ("base_quaternion", "base_rpy", "base_rpy_deg")
_CONTACT_KEYS = ("name", "link", "position", "surface_point", "surface_normal", "tangent", "mu", "v0")
_CONTACT_REQUIRED = ("name", "link", "position", "surface_point", "surface_normal", "mu")
DEFAULT_SIDES = 4
"""``[friction] sides`` when absent (issue 40)."""
DEFAULT_POLYGON = "circumscribed"
"""``[friction] polygon`` when absent (issue 40)."""
DEFAULT_SLIDING = "exact"
"""``[friction] sliding`` when absent (issue 40, item 7): exact Coulomb friction when sliding."""


def is_spatial(data: Mapping[str, Any]) -> bool:
    """Whether a parsed system file is spatial (its ``dimension`` is 3).

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document.

    Returns
    -------
    bool
        ``True`` for ``dimension = 3``, ``False`` for 2 or absent.

    Raises
    ------
    SystemFileError
        ``dimension`` other than 2 or 3 (``"dimension: must be 2 or 3, got …"``).
    """
    if not isinstance(data, Mapping) or "dimension" not in data:
        return False
    d = data["dimension"]
    if isinstance(d, bool) or d not in (2, 3) or isinstance(d, float) and not d.is_integer():
        raise SystemFileError(f"dimension: must be 2 or 3 (the default, a planar file), got {d!r}")
    return int(d) == 3


@dataclass(frozen=True)
class SpatialContents:
    """Everything a spatial file says, validated, before the contacts are checked to touch their
    planes (``parse_spatial_contents``).

    Attributes
    ----------
    name, description, source : str
        The file's ``name`` (default: its stem), ``description`` and path.
    mechanism : SpatialMechanism
        The robot with the file's contacts (with their ``mu``, ``v0``) and actuators.
    q : numpy.ndarray
        ``(len(mechanism.configuration_names),)`` configuration (m, rad; base quaternion
        ``(w, x, y, z)``).
    qdot : numpy.ndarray
        ``(mechanism.n_v,)`` velocity (m/s, rad/s; base velocities in world axes).
    sides : int
        ``n_f``, the friction polygon's sides.
    polygon : str
        ``"circumscribed"`` or ``"inscribed"``.
    sliding : str
        ``"exact"`` or ``"polygon"``: the friction of sliding contacts.
    mu_intervals : list[tuple[float, float, bool]]
        Per contact ``(lo, hi, given as an interval)`` of ``mu`` (``lo = hi`` for a number).
    disturbance : Disturbance or None
        ``[disturbance]`` over the mechanism's velocity coordinates.
    control : ControlSpec or None
        The ``[control]`` table, ``None`` when absent.
    """

    name: str
    description: str
    source: str
    mechanism: Any
    q: np.ndarray
    qdot: np.ndarray
    sides: int
    polygon: str
    sliding: str = DEFAULT_SLIDING
    mu_intervals: list = field(default_factory=list)
    disturbance: Any = None
    control: Any = None

    @property
    def contact_names(self) -> tuple[str, ...]:
        """The contacts' names, file order."""
        return tuple(self.mechanism.contact_names)


@dataclass(frozen=True)
class LoadedSpatialSystem:
    """A spatial system file, loaded at its state (``load_system_file`` of a ``dimension = 3`` file).

    The attributes a ``LoadedSystem`` shares with it keep their meaning; the arrays are SI.

    Attributes
    ----------
    name, description, source : str
        As in ``LoadedSystem``.
    mechanism : SpatialMechanism
        The robot with the file's contacts and actuators (``contactmodes.model.spatial``).
    q : numpy.ndarray
        ``(len(mechanism.configuration_names),)`` configuration: a floating base's position (m)
        and unit quaternion ``(w, x, y, z)``, then the joints (rad, m).
    qdot : numpy.ndarray
        ``(mechanism.n_v,)`` velocity: a floating base's linear and angular velocity in world
        axes (m/s, rad/s), then the joints.
    sides : int
        ``[friction] sides``, the polygon's ``n_f``.
    polygon : str
        ``[friction] polygon``.
    sliding : str
        ``[friction] sliding``: ``"exact"`` or ``"polygon"``.
    mu, v0 : numpy.ndarray
        ``(k,)`` per contact, file order: friction coefficient (the midpoint of an interval) and
        velocity threshold (m/s).
    raw : dict
        The parsed document, unmodified.
    disturbance : Disturbance or None
        ``[disturbance]`` (module doc), given to ``system``.
    friction : FrictionBox or None
        The contacts' friction box when a contact's ``mu`` is an interval (``parse_system`` with
        ``mu_intervals``), as the planar ``LoadedSystem.friction``.
    control : ControlSpec or None
        The ``[control]`` table (``contactmodes.control.spec``), ``None`` when absent.
    desired_mode : None
        Not read in spatial files yet (the planar ``LoadedSystem``'s fields).
    outlines : dict
        Empty: link outlines are drawn for planar files only.
    dimension : int
        3.

    See Also
    --------
    contactmodes.modes.spatial_contact.SpatialPointContact : ``contact_model``.
    """

    name: str
    mechanism: Any
    q: np.ndarray
    qdot: np.ndarray
    sides: int
    polygon: str
    mu: np.ndarray
    v0: np.ndarray
    source: str
    raw: dict = field(repr=False)
    description: str = ""
    desired_mode: None = None
    control: Any = field(default=None, repr=False)
    friction: Any = field(default=None, repr=False)
    disturbance: Any = field(default=None, repr=False)
    outlines: dict = field(default_factory=dict, repr=False)
    dimension: int = 3
    sliding: str = DEFAULT_SLIDING

    @property
    def contact_model(self):
        """The system's one contact model: ``SpatialPointContact(sides, polygon, sliding)``."""
        from contactmodes.modes.spatial_contact import SpatialPointContact

        return SpatialPointContact(self.sides, self.polygon, self.sliding)

    @cached_property
    def system(self):
        """The ``ContactSystem`` at ``(q, qdot)`` (SI units) with the file's contact model
        (``SpatialMechanism.contact_system``; built on first access, then kept, as the planar
        ``LoadedSystem.system`` is built once)."""
        return self.mechanism.contact_system(self.q, self.qdot, contact_model=self.contact_model, name=self.name,
                                             disturbance=self.disturbance)


# ------------------------------------------------------------------------------------------------
# parsing


def _in_file(i: int, name: str, exc: ContactModelError) -> SystemFileError:
    """A ``SpatialMechanism`` message naming ``contacts[NAME]``/``actuators[NAME]`` in the file's
    terms (``contacts[i]``)."""
    text = str(exc)
    for table in ("contacts", "actuators"):
        prefix = f"{table}[{name}]"
        if text.startswith(prefix):
            return SystemFileError(f"{table}[{i}]{text[len(prefix):]}")
    return SystemFileError(text)


def _vec3(value: Any, path: str) -> np.ndarray:
    items = L._array(value, path)
    if len(items) != 3:
        raise SystemFileError(f"{path}: must be an array of three numbers [x, y, z], got {value!r}")
    return np.array([L._number(v, f"{path}[{j}]") for j, v in enumerate(items)], dtype=float)


def _fixed_pose(table: Mapping[str, Any], base: str) -> tuple[np.ndarray, np.ndarray]:
    """``(base_position, base_quaternion)`` of ``[mechanism]`` (only for a fixed base)."""
    given = [k for k in ("base_position",) + _ORIENTATIONS if k in table]
    if given and base != "fixed":
        raise SystemFileError(f"mechanism.{given[0]}: only allowed with base = \"fixed\" (a floating base's pose "
                              "is state.q's)")
    position = _vec3(table["base_position"], "mechanism.base_position") if "base_position" in table else np.zeros(3)
    orientations = [k for k in _ORIENTATIONS if k in table]
    if len(orientations) > 1:
        raise SystemFileError(f"mechanism.{orientations[1]}: the base orientation is given twice "
                              f"({', '.join(orientations)})")
    quaternion = np.array([1.0, 0.0, 0.0, 0.0])
    try:
        if "base_quaternion" in table:
            items = L._array(table["base_quaternion"], "mechanism.base_quaternion")
            if len(items) != 4:
                raise SystemFileError(f"mechanism.base_quaternion: must be an array of four numbers [w, x, y, z], "
                                      f"got {items!r}")
            quaternion = unit_quaternion([L._number(v, f"mechanism.base_quaternion[{j}]") for j, v in enumerate(items)],
                                         "mechanism.base_quaternion")
        elif orientations:
            key = orientations[0]
            rpy = _vec3(table[key], f"mechanism.{key}")
            quaternion = rpy_quaternion(np.radians(rpy) if key.endswith("_deg") else rpy, f"mechanism.{key}")
    except SystemFileError:
        raise
    except ContactModelError as exc:
        raise SystemFileError(str(exc)) from None
    return position, quaternion


def _robot_path(table: Mapping[str, Any], source: str) -> Path:
    """The robot file of ``[mechanism]`` (``urdf`` or ``mjcf``), relative to the system file."""
    kinds = [k for k in ("urdf", "mjcf") if k in table]
    if len(kinds) != 1:
        raise SystemFileError("mechanism.urdf: required key is missing (a spatial file names its robot: urdf = "
                              "\"PATH\" or mjcf = \"PATH\")" if not kinds else
                              "mechanism.mjcf: give one of urdf and mjcf, not both")
    key = kinds[0]
    rel = L._string(table[key], f"mechanism.{key}")
    suffixes = (".urdf",) if key == "urdf" else (".xml", ".mjcf")
    if Path(rel).suffix.lower() not in suffixes:
        raise SystemFileError(f"mechanism.{key}: expected a {' or '.join(suffixes)} file, got {rel!r}")
    here = Path(source).parent if source and not source.startswith("<") else Path()
    path = here / rel
    if not path.is_file():
        raise SystemFileError(f"mechanism.{key}: no such file {str(path)!r}")
    return path


def _friction_settings(top: Mapping[str, Any]) -> tuple[int, str, str]:
    """``(sides, polygon, sliding)`` of ``[friction]``, validated by the spatial contact model's
    own rules."""
    from contactmodes.modes.spatial_contact import POLYGONS, SIDES_MAX, SIDES_MIN, SLIDING

    table = L._table(top.get("friction", {}), "friction")
    L._keys(table, "friction", ("sides", "polygon", "sliding"))
    sides = table.get("sides", DEFAULT_SIDES)
    if isinstance(sides, bool) or not isinstance(sides, int) or not SIDES_MIN <= sides <= SIDES_MAX:
        raise SystemFileError(f"friction.sides: must be an integer from {SIDES_MIN} to {SIDES_MAX}, got {sides!r}")
    polygon = L._choice(table.get("polygon", DEFAULT_POLYGON), "friction.polygon", POLYGONS)
    sliding = L._choice(table.get("sliding", DEFAULT_SLIDING), "friction.sliding", SLIDING)
    return int(sides), polygon, sliding


def _contacts(mech, top: Mapping[str, Any]) -> list[tuple[float, float, bool]]:
    """Add ``[[contacts]]`` to ``mech`` in file order (μ: an interval's midpoint, as
    ``FrictionBox.nominal``); their ``(lo, hi, given as an interval)``."""
    intervals = []
    for i, c in enumerate(L._tables(top, "contacts")):
        path = f"contacts[{i}]"
        L._keys(c, path, _CONTACT_KEYS, required=_CONTACT_REQUIRED)
        cname = L._name(c["name"], f"{path}.name")
        link = L._string(c["link"], f"{path}.link")
        position = _vec3(c["position"], f"{path}.position")
        surface_point = _vec3(c["surface_point"], f"{path}.surface_point")
        normal = _vec3(c["surface_normal"], f"{path}.surface_normal")
        if not normal.any():
            raise SystemFileError(f"{path}.surface_normal: must be a non-zero vector")
        tangent = _vec3(c["tangent"], f"{path}.tangent") if "tangent" in c else None
        lo, hi = L._friction(c["mu"], f"{path}.mu")
        intervals.append((lo, hi, isinstance(c["mu"], (list, tuple))))
        mu = lo if lo == hi else 0.5 * (lo + hi)
        v0 = L._number(c.get("v0", 0.0), f"{path}.v0", minimum=0.0)
        try:
            mech.add_contact(cname, link, position, surface_point, normal, mu, v0, tangent=tangent)
        except ContactModelError as exc:
            raise _in_file(i, cname, exc) from None
    return intervals


def _actuators(mech, top: Mapping[str, Any]) -> None:
    """``[[actuators]]`` (name, coordinate), or every joint when the key is absent."""
    if "actuators" not in top:
        mech.actuate_joints()
        return
    for i, a in enumerate(L._tables(top, "actuators")):
        path = f"actuators[{i}]"
        L._keys(a, path, ("name", "coordinate"), required=("name", "coordinate"))
        aname = L._name(a["name"], f"{path}.name")
        coord = L._string(a["coordinate"], f"{path}.coordinate")
        try:
            mech.add_actuator(aname, coord)
        except ContactModelError as exc:
            raise _in_file(i, aname, exc) from None


def parse_spatial_contents(data: Mapping[str, Any], source: str) -> SpatialContents:
    """Validate a spatial file and build its mechanism and state, without the gap check.

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document (``dimension = 3``; module docstring).
    source : str
        The file's path (relative robot files resolve from its directory), or a label starting
        with ``<`` (then relative to the current directory).

    Returns
    -------
    SpatialContents
        The mechanism, the state and the friction settings.

    Raises
    ------
    SystemFileError
        One line naming the key: unknown or missing keys, a robot file that is missing or refused,
        an unknown link or joint, a quaternion of norm 0, a bad number; ``MissingExtraError``
        without Pinocchio.
    """
    from contactmodes.model.spatial import SpatialMechanism
    from contactmodes.model.spatial_state import state_vectors

    top = L._table(data, "")
    for key in _NOT_YET:
        if key in top:
            raise SystemFileError(f"{key}: not read in spatial files (dimension = 3) yet")
    L._keys(top, "", SPATIAL_TOP_KEYS, required=("mechanism", "state"))
    if "schema" in top and L._string(top["schema"], "schema") != L.SCHEMA:
        raise SystemFileError(f"schema: unsupported schema {top['schema']!r} (this loader reads {L.SCHEMA!r})")
    name = L._string(top["name"], "name") if "name" in top else (
        Path(source).stem if source and not source.startswith("<") else "system")
    description = L._string(top.get("description", ""), "description")
    gravity = L._number(top.get("gravity", L.DEFAULT_GRAVITY), "gravity", minimum=0.0)
    sides, polygon, sliding = _friction_settings(top)

    table = L._table(top["mechanism"], "mechanism")
    L._keys(table, "mechanism", _MECHANISM_KEYS)
    base = L._string(table.get("base", "floating"), "mechanism.base")
    if base not in ("floating", "fixed"):
        raise SystemFileError(f"mechanism.base: must be \"floating\" or \"fixed\", got {base!r}")
    position, quaternion = _fixed_pose(table, base)
    robot = _robot_path(table, source)
    key = "urdf" if "urdf" in table else "mjcf"
    try:
        mech = SpatialMechanism(robot, base=base, gravity=gravity, base_position=position,
                                base_quaternion=quaternion, name=name)
    except ContactModelError as exc:
        text = str(exc)
        if text.startswith(("base:", "base_position:", "base_quaternion:")):
            text = f"mechanism.{text}"
        elif not text.startswith(str(robot)):
            text = f"mechanism.{key}: {text}"
        raise SystemFileError(text) from None
    intervals = _contacts(mech, top)
    _actuators(mech, top)
    disturbance = None
    if "disturbance" in top:
        disturbance = L._disturbance(L._table(top["disturbance"], "disturbance"), mech.coordinates)

    state = L._table(top["state"], "state")
    L._keys(state, "state", ("q", "qdot"), required=("q",))
    try:
        q, qdot = state_vectors(mech, state["q"], state.get("qdot", {}), path="state")
    except ContactModelError as exc:
        raise SystemFileError(str(exc)) from None
    control = _control(top, mech, sides, polygon, sliding)
    return SpatialContents(name=name, description=description, source=source, mechanism=mech, q=q, qdot=qdot,
                           sides=sides, polygon=polygon, sliding=sliding, mu_intervals=intervals,
                           disturbance=disturbance, control=control)


def _control(top: Mapping[str, Any], mech, sides: int, polygon: str, sliding: str):
    """The ``[control]`` table's ``ControlSpec`` with the mechanism's names, the spatial
    components and the polygon's letters (``None`` without the table)."""
    if "control" not in top:
        return None
    from contactmodes.control.spec import parse_control_table
    from contactmodes.modes.spatial_contact import SpatialPointContact

    model = SpatialPointContact(sides, polygon, sliding)
    try:
        return parse_control_table(top["control"], mech.coordinates, mech.contact_names, mech.actuators,
                                   components=model.components, letters=model.letters)
    except ContactModelError as exc:
        raise SystemFileError(str(exc)) from None


def spatial_gap_problems(parsed: SpatialContents) -> tuple[np.ndarray, list[str | None], float]:
    """Each contact's gap and the loader's verdict on it (the planar loader's rule and message).

    Parameters
    ----------
    parsed : SpatialContents
        The validated file.

    Returns
    -------
    gaps : numpy.ndarray
        ``(k,)`` signed distances ``n·(p − s)`` (m).
    problems : list[str | None]
        Per contact, why the loader refuses it, or ``None``.
    tolerance : float
        ``GAP_RTOL`` times the mechanism's characteristic length (m).

    Raises
    ------
    SystemFileError
        A state the mechanism cannot evaluate (named ``state…``).
    """
    try:
        gaps = parsed.mechanism.contact_gaps(parsed.q)
        tol = tolerances.GAP_RTOL * parsed.mechanism.characteristic_scales(parsed.q, parsed.qdot).length
    except ContactModelError as exc:
        raise SystemFileError(L._in_file_terms("state", str(exc))) from None
    names = parsed.mechanism.contact_names
    return gaps, [L._gap_problem(names[i], float(g), tol) for i, g in enumerate(gaps)], tol


def parse_spatial_system(data: Mapping[str, Any], source: str = "<dict>",
                         lifted_contacts: bool = False, mu_intervals: bool = False) -> LoadedSpatialSystem:
    """Validate a spatial file, check that its contacts touch their planes, and load it.

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document (``dimension = 3``).
    source : str, optional
        The file's path or a label.
    lifted_contacts : bool, optional
        Accept contacts above their planes (``parse_system``).
    mu_intervals : bool, optional
        Accept a contact's ``mu = [lo, hi]`` of positive width (``LoadedSpatialSystem.friction``;
        otherwise the planar loader's one-line refusal naming the contact).

    Returns
    -------
    LoadedSpatialSystem
        The mechanism, the state, the friction settings and per-contact ``mu``, ``v0``.

    Raises
    ------
    SystemFileError
        As ``parse_spatial_contents``, or ``contacts[i]: contact 'c1' does not touch its surface
        at state.q: gap …`` for a contact off its plane beyond ``GAP_RTOL`` times the robot's
        size.
    """
    parsed = parse_spatial_contents(data, source)
    friction = L._friction_box(parsed, mu_intervals)
    gaps, problems, _ = spatial_gap_problems(parsed)
    for i, problem in enumerate(problems):
        if problem is not None and not (lifted_contacts and gaps[i] > 0):
            raise SystemFileError(f"contacts[{i}]: {problem}")
    contacts = parsed.mechanism.contacts
    return LoadedSpatialSystem(
        name=parsed.name, mechanism=parsed.mechanism, q=parsed.q, qdot=parsed.qdot, sides=parsed.sides,
        polygon=parsed.polygon, sliding=parsed.sliding, mu=np.array([c.mu for c in contacts], dtype=float),
        v0=np.array([c.v0 for c in contacts], dtype=float), source=source, raw=dict(data),
        description=parsed.description, friction=friction, disturbance=parsed.disturbance,
        control=parsed.control)
