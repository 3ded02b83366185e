"""System files: load a planar contact system from TOML (schema: ``docs/system-file.md``).

A system file describes a ``PlanarMechanism`` (links, point masses,
contacts on straight environment lines, actuators), the state ``(q, q̇)`` at which it is analysed,
optional physical/task constraints (flipping paper, eqs. 11–18; bracing paper) and an optional
desired contact mode. ``load_system_file`` reads a file, ``parse_system`` the already parsed
table; both return a ``LoadedSystem`` holding the evaluated
``ContactSystem``.

Errors
------
Every problem with the file raises ``SystemFileError`` whose message
starts with the *key path* of the offending value, e.g.:

    contacts[2].mu: must be >= 0, got -0.3
    links[1].parent: unknown link 'foo'
    state.q: missing coordinate 'theta1'
    links[0].mas: unknown key
    examples/x.toml: invalid TOML: Expected '=' after a key in a key/value pair (at line 3, column 5)

Errors raised by the builder are re-raised as ``SystemFileError`` naming the key path once (a
builder's own name for the same item, such as ``contacts[tip].link``, gives way to the file's,
``contacts[0]``). The one exception is ``ApproachingContactError`` (a
state the rigid model without impacts cannot solve), which keeps its type so callers can tell it
apart; its message starts with ``state.qdot`` wherever it is raised (the analysis included).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np


try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.model.mechanism import PlanarMechanism
from contactmodes.modes.contact_conditions import validate_mode
from contactmodes.model.system import ContactSystem, Disturbance, LinearConstraint
from contactmodes.tolerances import GAP_RTOL
from contactmodes.model.urdf import PLANES, UrdfMechanism, load_urdf
from contactmodes.system_file.spatial_file import (LoadedSpatialSystem, is_spatial, parse_spatial_contents,
                                                   parse_spatial_system, spatial_gap_problems)
from contactmodes.system_file._fields import (DEFAULT_GRAVITY, SCHEMA, _array, _builder, _disturbance, _fail, _friction,
                                              _friction_box,
                                              _gap_problem, _inertial, _join, _keys, _name, _number, _outline,
                                              _point, _string, _table, _tables)

__all__ = [
    "ContactGeometry",
    "DEFAULT_GRAVITY",
    "DEFAULT_MIN_NORMAL_FORCE",
    "LoadedSystem",
    "PRESETS",
    "SCHEMA",
    "SystemFileContents",
    "SystemGeometry",
    "load_system_file",
    "parse_contents",
    "parse_geometry",
    "parse_system",
    "read_document",
    "system_geometry",
]


DEFAULT_MIN_NORMAL_FORCE = 5.0
"""Default threshold (N) of the ``min_normal_force`` preset: the flipping controller's body-contact
threshold (flipping paper, Sec. IV-B.2: "a manually chosen threshold"; our choice)."""

PRESETS = ("qdd_zero", "min_normal_force")
"""Names accepted by the ``preset`` key of a ``[[constraints]]`` entry."""

_TOP_KEYS = (
    "schema",
    "name",
    "description",
    "gravity",
    "desired_mode",
    "dimension",
    "mechanism",
    "links",
    "point_masses",
    "contacts",
    "actuators",
    "state",
    "constraints",
    "disturbance",
    "control",
)
_FLOATING_LINEAR = ("x", "y")


@dataclass(frozen=True)
class LoadedSystem:
    """A system file, loaded and evaluated at its state: the mechanism, the state and the model.

    Returned by ``load_system_file`` and ``parse_system``; not meant to be built by hand. The arrays
    are in the file's units (SI: m, rad, kg, s).

    Attributes
    ----------
    name : str
        The file's ``name`` (default: the file's stem, or ``"system"`` for a dict).
    mechanism : PlanarMechanism
        The ``contactmodes.model.mechanism.PlanarMechanism`` built from the file's links,
        joints, contacts and actuators.
    q : numpy.ndarray
        Configuration, shape ``(n_q,)``, in ``mechanism.coordinates`` order (m for positions,
        rad for angles).
    qdot : numpy.ndarray
        Velocity ``q̇``, shape ``(n_q,)`` (m/s, rad/s).
    system : ContactSystem
        The ``contactmodes.model.system.ContactSystem`` at ``(q, qdot)``, with the file's
        constraints in file order and its disturbance, if any.
    desired_mode : str or None
        The file's ``desired_mode`` (one letter of ``SFLR`` per contact), or ``None``.
    source : str
        The path the file was read from, or the ``source`` label given to ``parse_system``.
    raw : dict
        The parsed TOML table, unmodified.
    description : str
        The file's ``description`` (``""`` if absent).
    control : ControlSpec or None
        The file's ``[control]`` table (objective, limits, acceptable modes) as a
        ``contactmodes.control.spec.ControlSpec``, the defaults of ``contactmodes control``;
        ``None`` if absent.
    friction : FrictionBox or None
        The ``contactmodes.model.friction.FrictionBox`` of the contacts' ``mu`` when one of
        them is an interval ``[lo, hi]`` (read with ``mu_intervals=True``), else ``None``;
        ``system.mu`` is then each interval's midpoint (``docs/friction-intervals.md``).
    outlines : dict[str, numpy.ndarray]
        Link name → the link's ``outline`` ``(k, 2)`` (m, link frame): its shape for drawings
        (``contactmodes.output.robot``), for the links whose ``[[links]]`` entry gives one.

    See Also
    --------
    load_system_file : Read and validate a system file.
    contactmodes.load_system : The same, returning only the ``ContactSystem``.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-A: the system evaluated at the state is eq. (5) with the
    contact kinematics (3)–(4); the file format is ``docs/system-file.md``.

    Examples
    --------
    >>> from contactmodes.system_file.loader import load_system_file
    >>> loaded = load_system_file("examples/two_link_brace.toml")
    >>> loaded.name, loaded.desired_mode, loaded.mechanism.coordinates
    ('two_link_brace', 'FFF', ('x', 'y', 'theta', 'theta1'))
    >>> [round(float(v), 4) for v in loaded.q]        # m, m, rad, rad
    [0.0, 0.0, 2.3562, -1.5708]
    >>> loaded.system.contacts, loaded.system.mu.tolist()
    (('base', 'tip', 'joint'), [0.3, 0.3, 0.3])
    """

    name: str
    mechanism: PlanarMechanism
    q: np.ndarray
    qdot: np.ndarray
    system: ContactSystem
    desired_mode: str | None
    source: str
    raw: dict = field(repr=False)
    description: str = ""
    control: Any = field(default=None, repr=False)
    friction: Any = field(default=None, repr=False)
    outlines: dict = field(default_factory=dict, repr=False)


# ------------------------------------------------------------------------------------------------
# public API


def load_system_file(path: str | Path, mu_intervals: bool = False,
                     lifted_contacts: bool = False) -> LoadedSystem | LoadedSpatialSystem:
    """Read and validate a system file and evaluate its model at the file's state.

    The file is TOML (schema ``contactmodes.system/1``, ``docs/system-file.md``); a ``.json``
    file with the same schema is read as well. The toolkit's one reader of a system file: it
    returns everything the file says (mechanism, state, model, ``[control]``, friction
    intervals), which controllers and commands need; the front door's ``contactmodes.load_system``
    is ``load_system_file(path).system``, the model alone.

    Parameters
    ----------
    path : str or os.PathLike
        The system file; a relative path is relative to the current directory.
    mu_intervals : bool, optional
        Accept friction intervals ``mu = [lo, hi]`` (``parse_system``).
    lifted_contacts : bool, optional
        Accept contacts above their surface at the file's state (``parse_system``).

    Returns
    -------
    LoadedSystem or LoadedSpatialSystem
        The mechanism, the state ``(q, q̇)`` and the evaluated ``ContactSystem``
        (``LoadedSystem.system``), in the file's units; for a spatial file (``dimension = 3``,
        ``contactmodes.system_file.spatial_file``) a ``LoadedSpatialSystem``.

    Raises
    ------
    SystemFileError
        When the file is missing or unreadable (``"<file>: no such file"``), is not valid TOML or
        JSON (``"<file>: invalid TOML: …"``), or breaks the schema (the message starts with the
        key path, e.g. ``"contacts[2].mu: must be >= 0, got -0.3"``).
    ApproachingContactError
        When the builder rejects a contact that approaches at the file's state (it needs an
        impact law, not the instantaneous model).

    See Also
    --------
    contactmodes.load_system : The front door: the same file, only its ``ContactSystem``.
    parse_system : The same from an already parsed table.

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-A: the model built is eq. (5) with the contact kinematics
    (3)–(4), and the file's constraints are those of Sec. III-B (eqs. (11)–(18)).

    Examples
    --------
    >>> from contactmodes.system_file.loader import load_system_file
    >>> loaded = load_system_file("examples/five_link_climb.toml")
    >>> loaded.system.n_q, loaded.system.n_tau, loaded.system.k
    (4, 1, 3)
    >>> loaded.system.disturbance.coordinates
    ('x', 'y', 'theta', 'theta1')
    >>> load_system_file("examples/no_such_file.toml")
    Traceback (most recent call last):
    ...
    contactmodes.errors.SystemFileError: examples/no_such_file.toml: no such file
    """
    p = Path(path)
    return parse_system(read_document(p), source=str(p), mu_intervals=mu_intervals, lifted_contacts=lifted_contacts)


def read_document(p: Path) -> dict:
    """The parsed TOML (or JSON) table of the system file ``p``, not yet validated (``parse_system``
    validates it; ``contactmodes check`` and ``contactmodes.output.robot`` read a file the loader
    may refuse).

    Parameters
    ----------
    p : Path
        The system file: JSON when its suffix is ``.json`` (any case), TOML otherwise.

    Returns
    -------
    dict
        The document's top-level table.

    Raises
    ------
    SystemFileError
        The file is missing, a directory or unreadable, not UTF-8, not valid TOML/JSON, or its
        document is not a table (the message starts with the path).
    """
    try:
        blob = p.read_bytes()
    except FileNotFoundError:
        raise SystemFileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise SystemFileError(f"{p}: is a directory, not a system file") from None
    except OSError as exc:
        raise SystemFileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(blob.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SystemFileError(f"{p}: invalid JSON: {exc}") from None
    else:
        try:
            data = tomllib.loads(blob.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise SystemFileError(f"{p}: invalid TOML: not UTF-8 ({exc})") from None
        except tomllib.TOMLDecodeError as exc:
            raise SystemFileError(f"{p}: invalid TOML: {exc}") from None
    if not isinstance(data, dict):
        raise SystemFileError(f"{p}: the document must be a table")
    return data


def parse_system(data: Mapping[str, Any], source: str = "<dict>", mu_intervals: bool = False,
                 lifted_contacts: bool = False) -> LoadedSystem | LoadedSpatialSystem:
    """Validate a parsed system file and build its ``LoadedSystem``.

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document (as returned by ``tomllib.load``); schema in ``docs/system-file.md``.
    source : str, optional
        A label for ``LoadedSystem.source``; when it names a file, its stem is the
        default ``name``.
    mu_intervals : bool, optional
        Accept a contact's ``mu = [lo, hi]`` of positive width (``LoadedSystem.friction``; the
        system's ``mu`` is then the interval's midpoint). Without it such a file is refused
        (``"contacts[2].mu: an interval of friction coefficients is read by 'analyze', 'brace', 'plot' (PNG) and 'sweep analyze' only …"``),
        so that no command silently analyses one μ of the interval.
    lifted_contacts : bool, optional
        Accept a contact *above* its surface at the file's state (a foot in the air, a body edge
        that will touch down later); one below it (penetrating) is refused all the same. Only
        readers that leave a lifted contact out of each state's model may opt in: ``contactmodes
        simulate`` does (MuJoCo collides every contact; the generic controller leaves out the
        contacts whose gap exceeds its ``gap_tol``). ``LoadedSystem.system`` is then the model
        as if every contact touched, which no analysis should read.

    Returns
    -------
    LoadedSystem or LoadedSpatialSystem
        The model at the file's state (SI units, angles in radians) with the file's mechanism,
        state and control table; a ``LoadedSpatialSystem`` for a spatial file (``dimension = 3``,
        ``contactmodes.system_file.spatial_file.parse_spatial_system``, which reads ``mu``
        intervals and ``[disturbance]`` as here).

    Raises
    ------
    SystemFileError
        On any schema violation; the message starts with the key path
        (``"contacts[2].mu: must be >= 0, got -0.3"``).
    """
    if is_spatial(data):
        return parse_spatial_system(data, source, lifted_contacts=lifted_contacts, mu_intervals=mu_intervals)
    parsed = parse_contents(data, source)
    friction = _friction_box(parsed, mu_intervals)
    gaps = _builder("state.q", parsed.mechanism.contact_gaps, parsed.q)
    tol = _gap_tolerance(parsed)
    for i, gap in enumerate(gaps):
        problem = _gap_problem(parsed.contact_names[i], float(gap), tol)
        if problem is not None and not (lifted_contacts and gap > 0):
            raise _fail(f"contacts[{i}]", problem)
    system = _builder("state", parsed.mechanism.contact_system, parsed.q, parsed.qdot,
                      constraints=parsed.constraints, name=parsed.name, disturbance=parsed.disturbance)
    return LoadedSystem(
        name=parsed.name,
        mechanism=parsed.mechanism,
        q=parsed.q,
        qdot=parsed.qdot,
        system=system,
        desired_mode=parsed.desired_mode,
        source=source,
        raw=dict(data),
        description=parsed.description,
        control=parsed.control,
        outlines=parsed.outlines,
        friction=friction,
    )


def _gap_tolerance(parsed: "SystemFileContents") -> float:
    """Largest accepted gap: ``GAP_RTOL`` times the mechanism's characteristic length (the file's
    length unit)."""
    return GAP_RTOL * _builder("state", parsed.mechanism.characteristic_scales, parsed.q, parsed.qdot).length


@dataclass(frozen=True)
class SystemFileContents:
    """Everything a system file says, validated, before the contacts are checked to touch
    (``parse_contents``; ``parse_system`` goes on to check the gaps and build the ``ContactSystem``).
    The arrays are in the file's units.

    Attributes
    ----------
    name, description : str
        The file's ``name`` (default: the file's stem) and ``description``.
    mechanism : PlanarMechanism
        The mechanism of the file's links, joints, contacts and actuators (or its URDF).
    q, qdot : numpy.ndarray
        The state ``(q, q̇)``, each ``(n_q,)`` in ``mechanism.coordinates`` order.
    constraints : tuple[LinearConstraint, ...]
        The file's constraints, in file order.
    desired_mode : str or None
        The file's ``desired_mode``.
    disturbance : Disturbance or None
        The file's ``[disturbance]``.
    contact_names, contact_links : list[str]
        Per contact, its name and the link it is on.
    control : ControlSpec or None
        The file's ``[control]`` table (``LoadedSystem.control``).
    mu_intervals : tuple[tuple[float, float, bool], ...]
        Per contact ``(lo, hi, given_as_interval)`` (``lo = hi`` for a number).
    outlines : dict
        Link name → its ``outline`` ``(k, 2)`` (m, link frame), for the links that give one.
    """

    name: str
    description: str
    mechanism: PlanarMechanism
    q: np.ndarray
    qdot: np.ndarray
    constraints: tuple[LinearConstraint, ...]
    desired_mode: str | None
    disturbance: Disturbance | None
    contact_names: list[str]
    contact_links: list[str]
    control: Any = None
    mu_intervals: tuple[tuple[float, float, bool], ...] = ()
    outlines: dict = field(default_factory=dict)


def parse_contents(data: Mapping[str, Any], source: str) -> SystemFileContents:
    """Validate a parsed system file and build its mechanism, without checking that the contacts
    touch their surfaces (``parse_system`` does, then builds the model): for readers of a file the
    loader may refuse for a gap (``contactmodes check --snap``, ``contactmodes.output.robot``).

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document (``read_document``); schema in ``docs/system-file.md``.
    source : str
        A label for the messages; when it names a file, its stem is the default ``name``.

    Returns
    -------
    SystemFileContents
        Everything the file says, validated.

    Raises
    ------
    SystemFileError
        On any schema violation other than a gap; the message starts with the key path.
    """
    top = _table(data, "")
    if is_spatial(top):
        raise _fail("dimension", "a spatial file (dimension = 3): this reader (check --plot, the "
                                 "robot drawing) is planar")
    urdf = isinstance(top.get("mechanism"), Mapping) and "urdf" in top["mechanism"]
    _keys(top, "", _TOP_KEYS, required=("state",) if urdf else ("links", "state"))

    if "schema" in top:
        schema = _string(top["schema"], "schema")
        if schema != SCHEMA:
            raise _fail("schema", f"unsupported schema {schema!r} (this loader reads {SCHEMA!r})")
    if "name" in top:
        name = _string(top["name"], "name")
    else:
        name = Path(source).stem if source and not source.startswith("<") else "system"
    description = _string(top.get("description", ""), "description")
    gravity = _number(top.get("gravity", DEFAULT_GRAVITY), "gravity", minimum=0.0)

    # -- mechanism ------------------------------------------------------------------------------
    mech_table = _table(top.get("mechanism", {}), "mechanism")
    _keys(mech_table, "mechanism", ("base", "base_position", "urdf", "plane"))
    base = _string(mech_table.get("base", "floating"), "mechanism.base")
    if base not in ("floating", "fixed"):
        raise _fail("mechanism.base", f"must be \"floating\" or \"fixed\", got {base!r}")
    if "base_position" in mech_table:
        if base != "fixed":
            raise _fail("mechanism.base_position", 'only allowed with base = "fixed"')
        base_position = _point(mech_table["base_position"], "mechanism.base_position")
    else:
        base_position = (0.0, 0.0)
    if urdf:
        mech = _urdf_mechanism(top, mech_table, source, base, base_position, gravity, name)
    else:
        if "plane" in mech_table:
            raise _fail("mechanism.plane", "only allowed with mechanism.urdf")
        mech = _builder("mechanism", PlanarMechanism, base=base, gravity=gravity, base_position=base_position,
                        name=name)

    # -- links ----------------------------------------------------------------------------------
    links = _tables(top, "links")
    if not links and not urdf:
        raise _fail("links", "must list at least one link")
    link_names: list[str] = list(mech.urdf_links) if isinstance(mech, UrdfMechanism) else []
    coordinates: list[str] = list(mech.coordinates)
    outlines: dict[str, np.ndarray] = {}
    for i, link in enumerate(links):
        path = f"links[{i}]"
        _keys(link, path, ("name", "parent", "joint", "joint_position", "mass", "com", "inertia", "outline"),
              required=("name",))
        lname = _name(link["name"], f"{path}.name")
        if lname in link_names:
            raise _fail(f"{path}.name", f"duplicate link name {lname!r}")
        parent = None
        if i == 0:
            if "parent" in link:
                raise _fail(f"{path}.parent", "the first link is the root and has no parent")
            if "joint_position" in link:
                raise _fail(
                    f"{path}.joint_position",
                    "not allowed on the root link (a floating root is placed by state.q x, y, theta; "
                    "a fixed root by mechanism.base_position)",
                )
        else:
            if "parent" not in link:
                raise _fail(f"{path}.parent", "required key is missing (only the first link is the root: a system file "
                                              "describes one kinematic tree, no free object; docs/system-file.md, "
                                              "'Modelling scope')")
            parent = _string(link["parent"], f"{path}.parent")
            if parent not in link_names:
                later = any(isinstance(o, Mapping) and o.get("name") == parent for o in links[i + 1 :])
                hint = " (list parents before their children)" if later else ""
                raise _fail(f"{path}.parent", f"unknown link {parent!r}{hint}")
        joint = None
        needs_joint = i > 0 or base == "fixed"
        if "joint" in link:
            if not needs_joint:
                raise _fail(f"{path}.joint", "the root of a floating base has no joint (its pose is x, y, theta)")
            joint = _name(link["joint"], f"{path}.joint")
            if joint in coordinates:
                raise _fail(f"{path}.joint", f"coordinate name {joint!r} is already used")
            if joint.endswith("_deg"):
                raise _fail(f"{path}.joint", "a coordinate name must not end in '_deg' (reserved for degrees)")
        elif needs_joint:
            what = "the root of a fixed base needs the name of its angle coordinate" if i == 0 else "required key is missing"
            raise _fail(f"{path}.joint", what)
        kwargs = dict(
            name=lname,
            parent=parent,
            joint=joint,
            joint_position=_point(link.get("joint_position", [0.0, 0.0]), f"{path}.joint_position"),
            mass=_inertial(link.get("mass", 0.0), f"{path}.mass"),
            com=_point(link.get("com", [0.0, 0.0]), f"{path}.com"),
            inertia=_inertial(link.get("inertia", 0.0), f"{path}.inertia"),
        )
        _builder(path, mech.add_link, **kwargs)
        if "outline" in link:
            outlines[lname] = _outline(link["outline"], f"{path}.outline")
        link_names.append(lname)
        if joint is not None:
            coordinates.append(joint)

    # -- point masses ---------------------------------------------------------------------------
    for i, pm in enumerate(_tables(top, "point_masses")):
        path = f"point_masses[{i}]"
        _keys(pm, path, ("link", "mass", "position"), required=("link", "mass"))
        plink = _string(pm["link"], f"{path}.link")
        if plink not in link_names:
            raise _fail(f"{path}.link", f"unknown link {plink!r}")
        mass = _inertial(pm["mass"], f"{path}.mass")
        position = _point(pm.get("position", [0.0, 0.0]), f"{path}.position")
        _builder(path, mech.add_point_mass, plink, mass, position)

    # -- contacts -------------------------------------------------------------------------------
    contact_names: list[str] = []
    contact_links: list[str] = []
    mu_intervals: list[tuple[float, float, bool]] = []
    for i, c in enumerate(_tables(top, "contacts")):
        path = f"contacts[{i}]"
        _keys(
            c,
            path,
            ("name", "link", "position", "surface_point", "surface_normal", "mu", "v0"),
            required=("name", "link", "position", "surface_point", "surface_normal", "mu"),
        )
        cname = _name(c["name"], f"{path}.name")
        if cname in contact_names:
            raise _fail(f"{path}.name", f"duplicate contact name {cname!r}")
        clink = _string(c["link"], f"{path}.link")
        if clink not in link_names:
            raise _fail(f"{path}.link", f"unknown link {clink!r}")
        position = _point(c["position"], f"{path}.position")
        surface_point = _point(c["surface_point"], f"{path}.surface_point")
        normal = _point(c["surface_normal"], f"{path}.surface_normal")
        if math.hypot(*normal) == 0.0:
            raise _fail(f"{path}.surface_normal", "must be a non-zero vector")
        mu_lo, mu_hi = _friction(c["mu"], f"{path}.mu")
        mu_intervals.append((mu_lo, mu_hi, isinstance(c["mu"], (list, tuple))))
        mu = mu_lo if mu_lo == mu_hi else 0.5 * (mu_lo + mu_hi)  # the nominal μ (FrictionBox.nominal)
        v0 = _number(c.get("v0", 0.0), f"{path}.v0", minimum=0.0)
        _builder(path, mech.add_contact, cname, clink, position, surface_point, normal, mu, v0)
        contact_names.append(cname)
        contact_links.append(clink)

    # -- actuators ------------------------------------------------------------------------------
    actuator_names: list[str] = []
    for i, a in enumerate(_tables(top, "actuators")):
        path = f"actuators[{i}]"
        _keys(a, path, ("name", "coordinate"), required=("name", "coordinate"))
        aname = _name(a["name"], f"{path}.name")
        if aname in actuator_names:
            raise _fail(f"{path}.name", f"duplicate actuator name {aname!r}")
        coord = _string(a["coordinate"], f"{path}.coordinate")
        if coord not in coordinates:
            raise _fail(f"{path}.coordinate", f"unknown coordinate {coord!r} (have {', '.join(coordinates)})")
        _builder(path, mech.add_actuator, aname, coord)
        actuator_names.append(aname)

    coords = tuple(mech.coordinates)
    angular = {c for c in coords if not (base == "floating" and c in _FLOATING_LINEAR)}

    # -- state ----------------------------------------------------------------------------------
    state = _table(top["state"], "state")
    _keys(state, "state", ("q", "qdot"), required=("q",))
    q = _state_vector(state["q"], "state.q", coords, angular, required=True)
    qdot = _state_vector(state.get("qdot", {}), "state.qdot", coords, angular, required=False)

    # -- desired mode ---------------------------------------------------------------------------
    desired_mode = None
    if "desired_mode" in top:
        desired_mode = _string(top["desired_mode"], "desired_mode")
        try:  # the one mode validator, the one alphabet
            validate_mode(desired_mode, contact_names, "desired_mode")
        except ContactModelError as exc:
            raise SystemFileError(str(exc)) from None

    # -- constraints ----------------------------------------------------------------------------
    constraints = [
        _constraint(entry, f"constraints[{i}]", coords, contact_names, actuator_names)
        for i, entry in enumerate(_tables(top, "constraints"))
    ]

    disturbance = None
    if "disturbance" in top:
        disturbance = _disturbance(_table(top["disturbance"], "disturbance"), coords)

    control = None
    if "control" in top:  # the one-shot controller's defaults (docs/control.md)
        from contactmodes.control.spec import parse_control_table

        try:
            control = parse_control_table(top["control"], coords, contact_names, actuator_names)
        except ContactModelError as exc:
            raise SystemFileError(str(exc)) from None

    return SystemFileContents(name=name, description=description, mechanism=mech, q=q, qdot=qdot,
                   constraints=tuple(constraints), desired_mode=desired_mode, disturbance=disturbance,
                   contact_names=contact_names, contact_links=contact_links, control=control,
                   mu_intervals=tuple(mu_intervals), outlines=outlines)


def _urdf_mechanism(top: Mapping[str, Any], table: Mapping[str, Any], source: str, base: str,
                    base_position: tuple[float, float], gravity: float, name: str) -> PlanarMechanism:
    """The ``[mechanism] urdf = "PATH"`` hook: the robot read from a URDF file (``urdf``)."""
    for key in ("links", "point_masses"):
        if key in top:
            raise _fail(key, "not allowed with mechanism.urdf (the URDF file describes the links and masses)")
    rel = _string(table["urdf"], "mechanism.urdf")
    if not rel:
        raise _fail("mechanism.urdf", "must be a path to a URDF file")
    plane = _string(table.get("plane", "xz"), "mechanism.plane")
    if plane not in PLANES:
        raise _fail("mechanism.plane", f"must be one of {', '.join(map(repr, PLANES))}, got {plane!r}")
    here = Path(source).parent if source and not source.startswith("<") else Path()
    return _builder("mechanism.urdf", load_urdf, here / rel, plane=plane, base=base,
                    base_position=base_position, gravity=gravity, name=name)


# ------------------------------------------------------------------------------------------------
# contact geometry at the file's state (``contactmodes check``)


@dataclass(frozen=True)
class ContactGeometry:
    """Where one contact of a system file is at the file's state, and whether the loader accepts it.

    Attributes
    ----------
    name, link : str
        The contact's name and the link (as written in the file) carrying it.
    position : numpy.ndarray
        ``(d,)`` world position of the contact point (m); ``d`` is 2 (planar) or 3 (spatial).
    surface_point, surface_normal : numpy.ndarray
        ``(d,)`` the environment line (plane in 3-D): a point (m) and the unit outward
        normal ``n``; the planar tangent is ``t = (n_y, −n_x)``, the spatial frame ``(t1, t2, n)``
        ``contactmodes.model.spatial_frames.contact_frame``'s.
    gap : float
        Signed distance ``n·(p − s)`` (m) of the point from the line, positive in free space.
    velocity : numpy.ndarray
        ``(d,)`` the contact point's velocity in the contact frame (m/s): ``(v_t, v_n)``, or
        ``(v_t1, v_t2, v_n)`` in 3-D (``SystemGeometry.components``).
    approaching : bool
        ``v_n < −ε`` (the rule of ``contactmodes.modes.enumeration.check_not_approaching``): the
        analysis rejects the state (no impact model).
    problem : str or None
        The loader's message when it rejects this contact (a gap), else ``None``.
    """

    name: str
    link: str
    position: np.ndarray
    surface_point: np.ndarray
    surface_normal: np.ndarray
    gap: float
    velocity: np.ndarray
    approaching: bool
    problem: str | None


@dataclass(frozen=True)
class SystemGeometry:
    """The contacts of a system file at its state (``system_geometry``).

    Attributes
    ----------
    name, source : str
        As in ``LoadedSystem``.
    coordinates : tuple[str, ...]
        Generalized coordinate names.
    q, qdot : numpy.ndarray
        ``(n_q,)`` the state (SI).
    contacts : tuple[ContactGeometry, ...]
        One ``ContactGeometry`` per contact, in file order.
    dimension : int
        2 (planar) or 3 (spatial).
    components : tuple[str, ...]
        Names of a contact's velocity components: ``("t", "n")`` or ``("t1", "t2", "n")``.
    configuration : tuple[str, ...]
        Names of the entries of ``q`` when they differ from ``coordinates`` (a spatial
        mechanism's ``configuration_names``: a floating base's ``x, y, z, qw, qx, qy, qz``); ``()``
        when ``q`` is in ``coordinates`` order.
    """

    name: str
    source: str
    coordinates: tuple[str, ...]
    q: np.ndarray
    qdot: np.ndarray
    contacts: tuple[ContactGeometry, ...]
    dimension: int = 2
    components: tuple[str, ...] = ("t", "n")
    configuration: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        """Whether ``load_system_file`` accepts every contact (no gap problem)."""
        return all(c.problem is None for c in self.contacts)


def system_geometry(path: str | Path) -> SystemGeometry:
    """Contact positions, gaps and velocities of a system file at its state — also when the loader
    would reject the file because a contact does not touch its surface.

    Parameters
    ----------
    path : str or pathlib.Path
        The system file.

    Returns
    -------
    SystemGeometry
        Per contact: world position (m), gap (m), velocity in the contact frame (m/s) and the
        loader's verdict.

    Raises
    ------
    SystemFileError
        Any problem with the file other than a gap (as ``load_system_file``).
    """
    p = Path(path)
    return parse_geometry(read_document(p), source=str(p))


def parse_geometry(data: Mapping[str, Any], source: str = "<dict>") -> SystemGeometry:
    """``system_geometry`` for an already parsed table (see ``parse_system``).

    Parameters
    ----------
    data : Mapping[str, Any]
        The parsed document.
    source : str, optional
        A label (the file's path).

    Returns
    -------
    SystemGeometry
        As ``system_geometry``.

    Raises
    ------
    SystemFileError
        Any problem with the document other than a gap.
    """
    from contactmodes.modes.enumeration import zero_threshold

    if is_spatial(data):
        return _spatial_geometry(data, source)
    parsed = parse_contents(data, source)
    mech = parsed.mechanism
    dyn = _builder("state", mech.dynamics, parsed.q, parsed.qdot)
    eps = zero_threshold(_builder("state", mech.contact_system, parsed.q, parsed.qdot))
    table = _tables(data, "contacts")
    tol = _gap_tolerance(parsed)
    contacts = []
    for i, cname in enumerate(parsed.contact_names):
        normal = np.array(_point(table[i]["surface_normal"], ""), dtype=float)
        v = dyn.v_contact[2 * i : 2 * i + 2]
        contacts.append(ContactGeometry(
            name=cname,
            link=parsed.contact_links[i],
            position=dyn.positions[i].copy(),
            surface_point=np.array(_point(table[i]["surface_point"], ""), dtype=float),
            surface_normal=normal / math.hypot(*normal),
            gap=float(dyn.gaps[i]),
            velocity=v.copy(),
            approaching=bool(v[1] < -eps[i]),
            problem=_gap_problem(cname, float(dyn.gaps[i]), tol),
        ))
    return SystemGeometry(name=parsed.name, source=source, coordinates=tuple(mech.coordinates), q=parsed.q,
                          qdot=parsed.qdot, contacts=tuple(contacts))


def _spatial_geometry(data: Mapping[str, Any], source: str) -> SystemGeometry:
    """``parse_geometry`` of a spatial file: positions, gaps and velocities ``(v_t1, v_t2, v_n)``.

    A contact approaches when ``v_n < −ε`` with the planar rule's threshold
    (``contactmodes.modes.contact_conditions.classify_velocities``): ``ε = max(VELOCITY_RTOL ·
    max(V, max_j |ẋ_j|), v0)``, ``V = L / T`` the mechanism's characteristic velocity.
    """
    from contactmodes.tolerances import VELOCITY_RTOL

    parsed = parse_spatial_contents(data, source)
    mech = parsed.mechanism
    gaps, problems, _ = spatial_gap_problems(parsed)
    dyn, scales = _builder("state", mech.dynamics_and_scales, parsed.q, parsed.qdot)
    v = dyn.v_contact.reshape(-1, 3)
    scale = max(scales.velocity, float(np.abs(v).max(initial=0.0)))
    contacts = []
    for i, c in enumerate(mech.contacts):
        eps = max(VELOCITY_RTOL * scale, c.v0)
        contacts.append(ContactGeometry(
            name=c.name, link=c.link, position=dyn.positions[i].copy(), surface_point=c.surface_point.copy(),
            surface_normal=c.normal.copy(), gap=float(gaps[i]), velocity=v[i].copy(),
            approaching=bool(v[i, 2] < -eps), problem=problems[i]))
    return SystemGeometry(name=parsed.name, source=source, coordinates=tuple(mech.coordinates), q=parsed.q,
                          qdot=parsed.qdot, contacts=tuple(contacts), dimension=3, components=("t1", "t2", "n"),
                          configuration=tuple(mech.configuration_names))


# ------------------------------------------------------------------------------------------------
# state, disturbance and constraints




def _state_vector(
    value: Any, path: str, coords: Sequence[str], angular: set[str], required: bool
) -> np.ndarray:
    """A per-coordinate table → (n,) array; ``<coord>_deg`` keys (angles only) are converted."""
    table = _table(value, path)
    out: dict[str, float] = {}
    given_as: dict[str, str] = {}
    for key, raw in table.items():
        key_path = _join(path, str(key))
        if key in coords:
            coord, x = key, _number(raw, key_path)
        elif isinstance(key, str) and key.endswith("_deg") and key[:-4] in coords:
            coord = key[:-4]
            if coord not in angular:
                raise _fail(key_path, f"{coord!r} is a length, not an angle: give it in SI units under {coord!r}")
            x = math.radians(_number(raw, key_path))
        else:
            raise _fail(key_path, f"unknown coordinate {key!r} (have {', '.join(coords)})")
        if coord in out:
            raise _fail(key_path, f"coordinate {coord!r} is given twice ({given_as[coord]!r} and {key!r})")
        out[coord] = x
        given_as[coord] = key
    if required:
        for coord in coords:
            if coord not in out:
                raise _fail(path, f"missing coordinate {coord!r}")
    return np.array([out.get(c, 0.0) for c in coords], dtype=float)


def _row(value: Any, path: str, names: Sequence[str], what: str) -> np.ndarray:
    """One constraint row: a table over ``names`` (missing = 0) or an array of ``len(names)`` numbers."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise _fail(path, f"an array row needs {len(names)} numbers (one per {what}: {', '.join(names)}), got {len(value)}")
        return np.array([_number(x, f"{path}[{j}]") for j, x in enumerate(value)], dtype=float)
    table = _table(value, path)
    row = np.zeros(len(names))
    for key, x in table.items():
        if key not in names:
            raise _fail(_join(path, str(key)), f"unknown {what} {key!r} (have {', '.join(names) or 'none'})")
        row[list(names).index(key)] = _number(x, _join(path, str(key)))
    return row


def _force_row(value: Any, path: str, contacts: Sequence[str]) -> np.ndarray:
    """A row over contact-force components: keys ``"<c>.t"``/``"<c>.n"`` or nested ``{<c> = {t, n}}``."""
    names = [f"{c}.{part}" for c in contacts for part in ("t", "n")]
    if isinstance(value, (list, tuple)):
        return _row(value, path, names, "contact-force component")
    table = _table(value, path)
    flat: dict[str, Any] = {}
    for key, x in table.items():
        if key in contacts and isinstance(x, Mapping):
            for part, y in x.items():
                if part not in ("t", "n"):
                    raise _fail(_join(_join(path, key), str(part)), "unknown key (a contact's components are t and n)")
                flat[f"{key}.{part}"] = y
        else:
            flat[key] = x
    row = np.zeros(len(names))
    for key, x in flat.items():
        if key not in names:
            raise _fail(
                _join(path, str(key)),
                f"unknown contact-force component {key!r} (have {', '.join(names) or 'none'})",
            )
        row[names.index(key)] = _number(x, _join(path, str(key)))
    return row


def _constraint(
    entry: Mapping[str, Any], path: str, coords: Sequence[str], contacts: Sequence[str], actuators: Sequence[str]
) -> LinearConstraint:
    n_q, n_f, n_tau = len(coords), 2 * len(contacts), len(actuators)
    kind = _string(entry.get("kind", "task"), f"{path}.kind")
    if kind not in ("physical", "task"):
        raise _fail(f"{path}.kind", f'must be "physical" or "task", got {kind!r}')
    label = _string(entry["name"], f"{path}.name") if "name" in entry else None

    if "preset" in entry:
        preset = _string(entry["preset"], f"{path}.preset")
        if preset == "qdd_zero":
            _keys(entry, path, ("kind", "type", "name", "preset", "coordinates"))
            _preset_type(entry, path, "eq")
            if "coordinates" in entry:
                chosen = _array(entry["coordinates"], f"{path}.coordinates")
                if not chosen:
                    raise _fail(f"{path}.coordinates", "must list at least one coordinate")
                for j, c in enumerate(chosen):
                    if c not in coords:
                        raise _fail(f"{path}.coordinates[{j}]", f"unknown coordinate {c!r} (have {', '.join(coords)})")
                if len(set(chosen)) != len(chosen):
                    raise _fail(f"{path}.coordinates", f"coordinates must be unique, got {chosen}")
            else:
                chosen = list(coords)
            qdd = np.zeros((len(chosen), n_q))
            for r, c in enumerate(chosen):
                qdd[r, coords.index(c)] = 1.0
            default = "qdd = 0" if len(chosen) == n_q else f"qdd[{', '.join(chosen)}] = 0"
            return LinearConstraint(
                kind=kind, type="eq", qdd=qdd, f=np.zeros((len(chosen), n_f)), tau=np.zeros((len(chosen), n_tau)),
                rhs=np.zeros(len(chosen)), name=label if label is not None else default,
            )
        if preset == "min_normal_force":
            _keys(entry, path, ("kind", "type", "name", "preset", "contact", "value"), required=("contact",))
            _preset_type(entry, path, "geq")
            contact = _string(entry["contact"], f"{path}.contact")
            if contact not in contacts:
                raise _fail(f"{path}.contact", f"unknown contact {contact!r} (have {', '.join(contacts) or 'none'})")
            value = _number(entry.get("value", DEFAULT_MIN_NORMAL_FORCE), f"{path}.value")
            f = np.zeros((1, n_f))
            f[0, 2 * list(contacts).index(contact) + 1] = 1.0
            return LinearConstraint(
                kind=kind, type="geq", qdd=np.zeros((1, n_q)), f=f, tau=np.zeros((1, n_tau)),
                rhs=np.array([value]), name=label if label is not None else f"f_n({contact}) >= {value:g}",
            )
        raise _fail(f"{path}.preset", f"unknown preset {preset!r} (have {', '.join(PRESETS)})")

    _keys(entry, path, ("kind", "type", "name", "preset", "qdd", "f", "tau", "rhs"), required=("type", "rhs"))
    ctype = _string(entry["type"], f"{path}.type")
    if ctype not in ("eq", "geq"):
        raise _fail(f"{path}.type", f'must be "eq" or "geq", got {ctype!r}')
    rhs_list = _array(entry["rhs"], f"{path}.rhs")
    if not rhs_list:
        raise _fail(f"{path}.rhs", "must have at least one row")
    m = len(rhs_list)
    rhs = np.array([_number(x, f"{path}.rhs[{r}]") for r, x in enumerate(rhs_list)], dtype=float)

    def block(key: str, width: int, parse: Callable[[Any, str], np.ndarray]) -> np.ndarray:
        if key not in entry:
            return np.zeros((m, width))
        rows = _array(entry[key], f"{path}.{key}")
        if len(rows) != m:
            raise _fail(f"{path}.{key}", f"has {len(rows)} rows but rhs has {m}")
        return np.array([parse(row, f"{path}.{key}[{r}]") for r, row in enumerate(rows)], dtype=float).reshape(m, width)

    qdd = block("qdd", n_q, lambda v, p: _row(v, p, coords, "coordinate"))
    f = block("f", n_f, lambda v, p: _force_row(v, p, contacts))
    tau = block("tau", n_tau, lambda v, p: _row(v, p, actuators, "actuator"))
    if not (np.any(qdd) or np.any(f) or np.any(tau)):
        raise _fail(path, "all coefficients are zero: give at least one of qdd, f, tau")
    return LinearConstraint(kind=kind, type=ctype, qdd=qdd, f=f, tau=tau, rhs=rhs, name=label if label is not None else path)


def _preset_type(entry: Mapping[str, Any], path: str, expected: str) -> None:
    if "type" in entry:
        ctype = _string(entry["type"], f"{path}.type")
        if ctype != expected:
            raise _fail(f"{path}.type", f"preset {entry['preset']!r} is of type {expected!r}, got {ctype!r}")
