"""Robot files of spatial mechanisms: a URDF (or an MJCF) read by Pinocchio and checked.

``load_robot`` turns a robot file into a Pinocchio ``Model`` ready for
``contactmodes.model.spatial.SpatialMechanism``, with the joints and links named as in the file.
Pinocchio (``pip install 'contactmodes[spatial]'``, PyPI ``pin``) is the field's standard
rigid-body library; the toolkit does not write 3-D dynamics itself.

Rules
-----
* File type by suffix: ``.urdf`` is read by Pinocchio's URDF parser (urdfdom), ``.xml`` and
  ``.mjcf`` by its MJCF parser — one robot (one body tree in ``<worldbody>``), no ``<frame>``
  elements, no ``<equality>`` constraints, and every joint read (Pinocchio's reader skips what
  it does not know: checked after it ran, one line naming the joint). The XML is checked to be
  well formed first; a file the parser rejects is one line naming the file and the parser's own
  first error (urdfdom writes its errors to the C-level ``stderr``: captured while it runs,
  never shown).
* ``base = "floating"``: Pinocchio's free-flyer joint (``JointModelFreeFlyer``) is the root joint
  (for an MJCF whose root body has a ``freejoint``, that joint), and its placement is set to the
  identity, so that the base coordinates are the world pose of the root link's frame (MuJoCo's
  ``freejoint`` semantics; an MJCF body's ``pos``/``quat`` is only its initial pose).
  ``base = "fixed"``: the root link is welded to the world at ``base_position`` and
  ``base_quaternion`` (default: the world frame); the joints and frames that hang on it are
  placed accordingly. An MJCF with a ``freejoint`` needs ``base = "floating"``.
* Joints: ``revolute``, ``continuous`` (Pinocchio's unbounded revolute joint: two configuration
  numbers ``(cos θ, sin θ)``, one velocity; the toolkit's coordinate is the angle ``θ``),
  ``prismatic`` and ``fixed`` (merged by Pinocchio into the moving body they hang on; their links
  remain frames that contacts may name). Any other joint (URDF ``floating`` or ``planar``, MJCF
  ``ball`` or a second ``free`` joint) and URDF ``<mimic>`` joints are refused, one line naming
  the joint. Joint limits, damping, friction, transmissions, visual and collision geometry are
  neither read nor checked.
* Coordinates are Pinocchio's joint order (a depth-first traversal of the tree from the root
  link, not necessarily the file's order). A joint name must not be a base coordinate
  (``x, y, z, wx, wy, wz``), one of the state table's base keys, or end in ``_deg`` (reserved
  for degrees).
* Inertias: every moving body's inertia (a joint's body with the links fixed to it, as
  Pinocchio merges them) must have a finite mass ``>= 0`` and a symmetric positive semi-definite
  rotational inertia about its centre of mass (``contactmodes.tolerances.INERTIA_RTOL``); the
  error names the joint. A single link's inertia may be degenerate (Go1's and ANYmal's dummy
  base links): only the rigid bodies the dynamics uses are checked.
* Gravity acts along ``−z`` of the world with the given magnitude.
"""

from __future__ import annotations

import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from numpy.typing import ArrayLike

from contactmodes import tolerances
from contactmodes.errors import ContactModelError
from contactmodes.extras import require
from contactmodes.model.spatial_frames import finite_vector, quaternion_matrix

__all__ = ["BASE_COORDINATES", "JOINT_KINDS", "RESERVED_STATE_KEYS", "RobotJoint", "RobotModel", "load_robot"]

BASE_TYPES = ("floating", "fixed")
BASE_COORDINATES = ("x", "y", "z", "wx", "wy", "wz")
"""Names of a floating base's six velocity coordinates: the linear velocity of the root link's
frame origin and the angular velocity of the root link, both in world axes."""
RESERVED_STATE_KEYS = ("base_position", "base_quaternion", "base_rpy", "base_rpy_deg", "base_linear",
                       "base_angular", "base_angular_deg")
"""Keys of the state tables (``contactmodes.model.spatial_state``) that no joint may be named."""
JOINT_KINDS = ("revolute", "continuous", "prismatic")
"""Moving joints a spatial mechanism accepts (``fixed`` joints are merged, not coordinates)."""

_KINDS = {
    "JointModelRX": "revolute", "JointModelRY": "revolute", "JointModelRZ": "revolute",
    "JointModelRevoluteUnaligned": "revolute",
    "JointModelRUBX": "continuous", "JointModelRUBY": "continuous", "JointModelRUBZ": "continuous",
    "JointModelRevoluteUnboundedUnaligned": "continuous",
    "JointModelPX": "prismatic", "JointModelPY": "prismatic", "JointModelPZ": "prismatic",
    "JointModelPrismaticUnaligned": "prismatic",
}
"""Pinocchio joint models → the joint kind they implement."""
_REFUSED = {"JointModelFreeFlyer": "floating (free)", "JointModelSpherical": "ball (spherical)",
            "JointModelSphericalZYX": "ball (spherical)", "JointModelPlanar": "planar",
            "JointModelTranslation": "translation", "JointModelMimic": "mimic", "JointModelHelical": "helical",
            "JointModelUniversal": "universal", "JointModelComposite": "composite"}
_URDF_REFUSED = ("floating", "planar")
_SUFFIXES = {".urdf": "urdf", ".xml": "mjcf", ".mjcf": "mjcf"}


@dataclass(frozen=True)
class RobotJoint:
    """A moving joint of a spatial mechanism (Pinocchio's order).

    Attributes
    ----------
    name : str
        The joint's name in the robot file (its coordinate name).
    kind : str
        ``"revolute"``, ``"continuous"`` or ``"prismatic"``.
    index : int
        Pinocchio's joint index (``model.joints[index]``).
    idx_q : int
        Its first entry in Pinocchio's configuration vector (a continuous joint has two:
        ``cos θ`` at ``idx_q``, ``sin θ`` at ``idx_q + 1``).
    idx_v : int
        Its entry in Pinocchio's velocity vector.
    """

    name: str
    kind: str
    index: int
    idx_q: int
    idx_v: int


@dataclass(frozen=True)
class RobotModel:
    """A checked robot file (``load_robot``).

    Attributes
    ----------
    model : pinocchio.Model
        Pinocchio's model, gravity ``(0, 0, −g)`` set, the base placed (module docstring).
    path : pathlib.Path
        The robot file.
    file_type : str
        ``"urdf"`` or ``"mjcf"``.
    base : str
        ``"floating"`` or ``"fixed"``.
    joints : tuple[RobotJoint, ...]
        The moving joints in Pinocchio's order (the free-flyer excluded).
    links : tuple[str, ...]
        Every link (URDF) or body (MJCF) name, in Pinocchio's frame order; a contact names one.
    base_position : numpy.ndarray
        ``(3,)`` world position (m) of a fixed base's root link frame (zeros for a floating base).
    base_rotation : numpy.ndarray
        ``(3, 3)`` its orientation (world ← root link; identity for a floating base).
    """

    model: Any
    path: Path
    file_type: str
    base: str
    joints: tuple[RobotJoint, ...]
    links: tuple[str, ...]
    base_position: np.ndarray
    base_rotation: np.ndarray


def _fail(path: Path, message: str) -> ContactModelError:
    return ContactModelError(f"{path.name}: {message}")


@contextmanager
def _c_stderr_captured() -> Iterator[list[str]]:
    """The process's file descriptor 2 sent to a temporary file while the block runs; its text is
    appended to the yielded list when the block ends (urdfdom reports through ``stderr``)."""
    lines: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            lines.extend(tmp.read().decode("utf-8", "replace").splitlines())


def _parser_error(lines: list[str]) -> str:
    """The first error line urdfdom wrote (``"Error:   Joint [j] is of type …"``), without its
    prefix; empty when it wrote none."""
    for line in lines:
        text = line.strip()
        if text.startswith("Error:"):
            return text[len("Error:"):].strip()
    return ""


def _read_xml(path: Path, file_type: str) -> ET.Element:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise _fail(path, f"invalid XML: {exc}") from None
    except OSError as exc:
        raise _fail(path, f"cannot read: {exc.strerror or exc}") from None
    expected = "robot" if file_type == "urdf" else "mujoco"
    if root.tag != expected:
        raise _fail(path, f"not a{'' if file_type == 'urdf' else 'n'} {file_type.upper()} file: the root element is "
                          f"<{root.tag}>, not <{expected}>")
    return root


def _check_urdf_joints(path: Path, root: ET.Element) -> None:
    """URDF joints the rules refuse, named before Pinocchio reads the file."""
    for joint in root.iter("joint"):
        if joint.find("parent") is None:  # a <joint> inside <transmission> is not a kinematic joint
            continue
        name, kind = joint.get("name", "?"), joint.get("type", "?")
        if kind in _URDF_REFUSED:
            raise _fail(path, f"joint {name!r}: {kind} joints are not supported (revolute, continuous, prismatic, "
                              f"fixed; a floating base is base = \"floating\")")
        if joint.find("mimic") is not None:
            raise _fail(path, f"joint {name!r}: mimic joints are not supported")


def _check_mjcf(path: Path, root: ET.Element) -> None:
    """MJCF features Pinocchio's reader does not take: ``<frame>`` elements (it fails or
    misplaces the bodies inside) and more than one body tree in ``<worldbody>`` (it reads the
    first only)."""
    world = root.find("worldbody")
    if world is None or world.find("body") is None:
        raise _fail(path, "the MJCF has no <worldbody> with a <body>")
    if root.find("equality") is not None:
        raise _fail(path, "<equality> constraints (closed loops, welds) are not supported")
    if next(world.iter("frame"), None) is not None:
        raise _fail(path, "<frame> elements are not read by Pinocchio's MJCF reader (write the bodies' pos/quat, "
                          "or use the URDF)")
    if len(world.findall("body")) > 1:
        names = ", ".join(repr(b.get("name", "?")) for b in world.findall("body"))
        raise _fail(path, f"<worldbody> holds several body trees ({names}): Pinocchio's MJCF reader reads the first "
                          f"only (one robot per file)")


def _check_mjcf_joints(path: Path, root: ET.Element, model, added_root: bool) -> None:
    """Every joint of the MJCF is in Pinocchio's model (its reader skips what it does not know)."""
    world = root.find("worldbody")
    elements = [] if world is None else list(world.iter("joint")) + list(world.iter("freejoint"))
    have = {str(n) for n in model.names}
    missing = [j.get("name") for j in elements if j.get("name") and j.get("name") not in have]
    expected = len(elements) + (1 if added_root else 0)
    if missing or model.njoints - 1 != expected:
        what = f"joint {missing[0]!r}" if missing else f"{len(elements)} joints"
        raise _fail(path, f"Pinocchio's MJCF reader did not read {what} of the file (read "
                          f"{model.njoints - 1 - (1 if added_root else 0)}): use a URDF")


def _mjcf_has_free_root(root: ET.Element) -> bool:
    world = root.find("worldbody")
    body = world.find("body") if world is not None else None
    return body is not None and (body.find("freejoint") is not None
                                 or any(j.get("type") == "free" for j in body.findall("joint")))


def _build(pin, path: Path, file_type: str, floating: bool, free_root: bool):
    """Pinocchio's model of the file (``root joint`` a free-flyer when ``floating`` and the file
    has none); ``ContactModelError`` with the parser's first error when it refuses the file."""
    args: tuple = ()
    if floating and not free_root:
        args = (pin.JointModelFreeFlyer(),)
    with _c_stderr_captured() as lines:
        try:
            if file_type == "urdf":
                model = pin.buildModelFromUrdf(str(path), *args)
            elif args and hasattr(pin, "buildModelAndLegacyConstraintsFromMJCF"):  # Pinocchio 4: (model, constraints)
                model = pin.buildModelAndLegacyConstraintsFromMJCF(str(path), *args)[0]
            else:
                model = pin.buildModelFromMJCF(str(path), *args)
            error = None
        except (ValueError, RuntimeError, IndexError, KeyError) as exc:  # the parsers' exceptions
            model, error = None, str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if model is None:
        detail = _parser_error(lines) or error
        raise _fail(path, f"not a valid {file_type.upper()} model: {detail}")
    return model


def _check_joints(path: Path, model, floating: bool) -> tuple[RobotJoint, ...]:
    joints = []
    first = 2 if floating else 1
    if floating and model.joints[1].shortname() != "JointModelFreeFlyer":  # pragma: no cover - Pinocchio's job
        raise _fail(path, "the floating base is not Pinocchio's free-flyer joint")
    for i in range(first, model.njoints):
        jm = model.joints[i]
        name, short = str(model.names[i]), jm.shortname()
        kind = _KINDS.get(short)
        if kind is None:
            what = _REFUSED.get(short, short)
            raise _fail(path, f"joint {name!r}: {what} joints are not supported "
                              f"(revolute, continuous, prismatic, fixed)")
        if name in BASE_COORDINATES or name in RESERVED_STATE_KEYS:
            raise _fail(path, f"joint {name!r}: the name is reserved for the base (rename the joint)")
        if name.endswith("_deg"):
            raise _fail(path, f"joint {name!r}: a joint name must not end in '_deg' (reserved for degrees)")
        joints.append(RobotJoint(name, kind, i, int(jm.idx_q), int(jm.idx_v)))
    return tuple(joints)


def _check_inertias(path: Path, model, joints: tuple[RobotJoint, ...], floating: bool) -> None:
    names = {j.index: j.name for j in joints}
    if floating:
        names[1] = "root_joint (the floating base)"
    for i in range(1, model.njoints):
        inertia = model.inertias[i]
        mass = float(inertia.mass)
        I = np.array(inertia.inertia, dtype=float)
        where = f"the body moved by joint {names[i]!r}"
        if not (np.isfinite(mass) and mass >= 0.0 and np.isfinite(I).all() and np.isfinite(inertia.lever).all()):
            raise _fail(path, f"{where}: its mass must be finite and >= 0 and its inertia finite (mass {mass:g} kg)")
        eig = np.linalg.eigvalsh(0.5 * (I + I.T))
        if eig[0] < -tolerances.INERTIA_RTOL * max(float(np.abs(eig).max()), np.finfo(float).tiny):
            raise _fail(path, f"{where}: its inertia is not positive semi-definite (eigenvalues "
                              f"{', '.join(f'{e:.6g}' for e in eig)} kg·m²)")


def _place_fixed_base(pin, model, position: np.ndarray, rotation: np.ndarray) -> None:
    """Weld the root link at ``(position, rotation)``: every joint and frame hanging on the world
    (Pinocchio's joint 0, which a fixed root link is merged into) is moved by that placement."""
    X = pin.SE3(rotation, position)
    for i in range(1, model.njoints):
        if model.parents[i] == 0:
            model.jointPlacements[i] = X * model.jointPlacements[i]
    for f in range(1, model.nframes):  # frame 0 is the world itself ("universe")
        if model.frames[f].parentJoint == 0:
            model.frames[f].placement = X * model.frames[f].placement


def load_robot(
    path: str | Path,
    base: str = "floating",
    gravity: float = 9.81,
    base_position: ArrayLike = (0.0, 0.0, 0.0),
    base_quaternion: ArrayLike = (1.0, 0.0, 0.0, 0.0),
) -> RobotModel:
    """Read and check a robot file (rules in the module docstring).

    Parameters
    ----------
    path : str or pathlib.Path
        A URDF (``.urdf``) or MJCF (``.xml``, ``.mjcf``) file.
    base : str, optional
        ``"floating"`` (a free-flyer root joint) or ``"fixed"`` (the root link welded to the world).
    gravity : float, optional
        Magnitude ``g`` (m/s²) of gravity ``(0, 0, −g)``.
    base_position : array_like, optional
        ``(3,)`` world position (m) of a fixed base's root link frame; must be zero for a floating
        base (its pose is the state's).
    base_quaternion : array_like, optional
        ``(4,)`` its orientation ``(w, x, y, z)`` (normalized); must be the identity for a floating
        base.

    Returns
    -------
    RobotModel
        The checked model.

    Raises
    ------
    ContactModelError
        One line naming the field, the file or the joint: an unknown base, a missing file or an
        unknown suffix, invalid XML, a file the parser rejects, a refused joint or joint name, an
        invalid inertia, a base pose given for a floating base, a fixed base without a moving
        joint. ``MissingExtraError`` (a
        ``ContactModelError``) without Pinocchio.
    """
    if base not in BASE_TYPES:
        raise ContactModelError(f"base: must be one of {', '.join(BASE_TYPES)}, got {base!r}")
    floating = base == "floating"
    try:
        g = float(gravity)
    except (TypeError, ValueError):
        raise ContactModelError(f"gravity: must be a number, got {gravity!r}") from None
    if not np.isfinite(g):
        raise ContactModelError(f"gravity: must be finite, got {g}")
    position = finite_vector(base_position, "base_position", 3)
    quaternion = finite_vector(base_quaternion, "base_quaternion", 4)
    rotation = quaternion_matrix(quaternion, "base_quaternion")
    if floating and (position.any() or not np.array_equal(rotation, np.eye(3))):
        raise ContactModelError("base_position: a floating base's pose is part of the state (state.q), not of "
                                "the mechanism")
    p = Path(path)
    file_type = _SUFFIXES.get(p.suffix.lower())
    if file_type is None:
        raise ContactModelError(f"path: unknown robot file type {p.suffix!r} (.urdf, or .xml/.mjcf for MJCF)")
    if not p.is_file():
        raise ContactModelError(f"path: no such file {str(p)!r}")
    root = _read_xml(p, file_type)
    free_root = False
    if file_type == "urdf":
        _check_urdf_joints(p, root)
    else:
        _check_mjcf(p, root)
        free_root = _mjcf_has_free_root(root)
        if free_root and not floating:
            raise _fail(p, "the root body has a free joint: use base = \"floating\"")

    require("pinocchio", "spatial", "spatial mechanism")
    import pinocchio as pin

    model = _build(pin, p, file_type, floating, free_root)
    if file_type == "mjcf":
        _check_mjcf_joints(p, root, model, floating and not free_root)
    joints = _check_joints(p, model, floating)
    if not floating and not joints:  # nothing moves (and Pinocchio's frame Jacobians crash on such a model)
        raise ContactModelError(f"base: {p.name} has no moving joint: a fixed base cannot move (use base = "
                                f"\"floating\")")
    _check_inertias(p, model, joints, floating)
    if floating:
        model.jointPlacements[1] = pin.SE3.Identity()
    else:
        _place_fixed_base(pin, model, position, rotation)
    model.gravity = pin.Motion(np.array([0.0, 0.0, -g, 0.0, 0.0, 0.0]))
    links = tuple(str(f.name) for f in model.frames if f.type == pin.FrameType.BODY)
    if len(set(links)) != len(links):
        raise _fail(p, "two links (bodies) share a name")
    return RobotModel(model, p, file_type, base, joints, links, position, rotation)
