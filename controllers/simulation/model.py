"""A MuJoCo model of any loaded planar system: the simulated plant of ``contactmodes simulate``.

``build_plant(mechanism, q, qdot)`` writes an MJCF string from a parsed
``contactmodes.model.mechanism.PlanarMechanism`` (a TOML file's or a URDF file's: both reach this
module as the same object) and compiles it with ``mujoco.MjModel.from_xml_string``.

Mapping
-------
* The plane is MuJoCo's ``x``–``y`` plane, gravity ``(0, −g, 0)``, every hinge about ``+z``: an
  angle is counter-clockwise positive as in ``docs/conventions.md``, and every toolkit coordinate
  is one MuJoCo joint of the same name, with the same value (``Plant.qpos_index``).
* Floating base: the root body carries ``slide`` ``x`` (axis ``+x``), ``slide`` ``y`` (``+y``) and
  ``hinge`` ``theta`` (``+z``), in this order, so its frame origin is ``(x, y)`` and its angle
  ``theta``. Fixed base: the root body at ``base_position`` with one ``hinge`` (the absolute angle).
  Each other link is a child body at its ``joint_position`` with one ``hinge`` at its origin.
* Inertia: a body's mass, centre of mass and central inertia are the link's together with its
  point masses (parallel-axis theorem), then the floor below (``InertiaFloor``); the diagonal
  inertia is ``(I, I, I)`` (only ``I_zz`` acts in the plane; equal entries satisfy MuJoCo's
  triangle inequality).
* Contacts: a sphere of radius ``r`` centred at each contact point, paired (``<contact><pair>``:
  no other geometry collides) with its own ``plane`` geom along the contact's line, moved by
  ``r`` into the environment so that MuJoCo's distance equals the toolkit's gap; the pair has the
  contact's μ in both tangent directions, ``condim="3"`` and the solver's elliptic cones.
* Actuators: one ``motor`` (gear 1) per actuator on its coordinate's joint: a unit generalized
  force, as the toolkit's ``S``; ``ctrlrange`` the torque limits when given.

Mass and inertia floor
----------------------
MuJoCo rejects a moving body without mass or inertia, and a massless link (the RHex legs, the
two-link brace's links without their point masses) has a zero row of ``M``. The simulated plant
therefore differs from the analysed one by (``InertiaFloor``): every body's mass raised to at
least ``m_min = mass_rel · m_total``, its central inertia to at least ``I_min = m_min · (rog_rel ·
L)²`` (``L`` the mechanism's characteristic length, ``PlanarMechanism.characteristic_scales``), and
an armature ``I_min`` on the hinge of every body whose own mass or inertia was floored. A raised
mass keeps the body's centre of mass (at the link's ``com`` when it had no mass). The plant is
exactly the toolkit mechanism ``Plant.floored`` plus the armature, so
``M_sim = M_floored + diag(armature)``; ``Plant.difference`` states the change of ``M`` (and
of ``h``) at the initial state.

Contact settings
----------------
MuJoCo's contacts are soft: with its defaults (``solref = (0.02, 1)``, ``solimp = (0.9, 0.95,
0.001)``, ``impratio = 1``) a sticking point creeps: about 1 mm/s for a 1.5 kg block under a
tangential load of half ``μ f_n``, and the two-link brace slides down its walls
(``tests/controllers/simulation/test_sim_contacts.py``). ``ContactSettings`` holds a sticking
contact: the normal rows' time constant at its floor ``2 dt``, ``solimp = (0.99, 0.999, 0.001)``
and ``impratio = 1000`` (friction rows 1000 times harder than the normal one; elliptic cones
only). That brings the creep down to about 4e-7 m/s for that block and 2e-6 m/s for the brace held at
τ = −0.5 N·m (``dt = 5e-4 s``; ``noslip_iterations`` did not help). Hard friction rows with a
short time constant make a *sliding* contact lift off, though: MuJoCo's convex model projects the
friction rows' large reference force onto the cone, which raises the normal force with the slip
speed, and the block hops along at centimetres; the friction rows therefore get their own, longer
time constant (``solreffriction``, ``friction_timeconst = 0.1 s``), under which a sliding block
follows the rigid ``ẍ = (F − μ m g) / m`` within 1 % (micro-hops of a few µm remain: the mode
letters use the forces averaged over a control period, ``controllers.simulation.modes``).
MuJoCo produces no contact force at exactly zero distance: a margin ``margin_rel · L`` (1e-6 L)
makes a contact on its line (gap 0) active from the first step; the margin is also the
constraint's zero, so it pushes a contact at gap 0 with about ``k · margin`` (k ≈ 1/timeconst²),
about 0.2 m/s² here, for as long as the contact does not load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence
from xml.sax.saxutils import quoteattr

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError
from contactmodes.model.mechanism import MechanismParts, PlanarMechanism

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

__all__ = ["ContactSettings", "InertiaFloor", "Plant", "PlantDifference", "build_plant", "mechanism_parts",
           "MechanismParts"]

_UNBOUNDED = 1e30  # the ctrlrange end written for an infinite limit


@dataclass(frozen=True)
class ContactSettings:
    """MuJoCo solver and contact settings of the simulated plant (module docstring, "Contact settings").

    Attributes
    ----------
    timestep : float
        Simulation step ``dt`` (s).
    timeconst : float or None
        ``solref`` time constant (s); ``None``: ``2 · timestep``, the smallest MuJoCo accepts.
    dampratio : float
        ``solref`` damping ratio (1: critical).
    solimp : tuple[float, ...]
        ``(d0, dwidth, width)``: impedance at zero and at ``width`` (m) penetration.
    impratio : float
        Ratio of the friction rows' impedance to the normal row's (elliptic cones).
    friction_timeconst : float
        ``solreffriction`` time constant (s) of the friction rows (damping ratio 1).
    margin_rel : float
        Contact margin as a fraction of the characteristic length ``L``.
    radius_rel : float
        Radius of the contact spheres as a fraction of ``L``.
    """

    timestep: float = 5e-4
    timeconst: float | None = None
    dampratio: float = 1.0
    solimp: tuple[float, float, float] = (0.99, 0.999, 0.001)
    impratio: float = 1000.0
    friction_timeconst: float = 0.1
    margin_rel: float = 1e-6
    radius_rel: float = 1e-4

    def solref(self) -> tuple[float, float]:
        """``(timeconst, dampratio)`` with the default time constant resolved (s, 1)."""
        tc = 2.0 * self.timestep if self.timeconst is None else self.timeconst
        return (tc, self.dampratio)

    def check(self) -> None:
        """``ContactModelError`` naming the field on a non-positive or non-finite setting.

        Raises
        ------
        ContactModelError
            Naming the field (``--dt`` for the time step).
        """
        for name in ("timestep", "dampratio", "impratio", "friction_timeconst", "margin_rel", "radius_rel"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ContactModelError(f"{'--dt' if name == 'timestep' else name}: must be a finite number > 0, "
                                        f"got {v}")
        if self.timeconst is not None and not (math.isfinite(self.timeconst) and self.timeconst > 0):
            raise ContactModelError(f"timeconst: must be a finite number > 0, got {self.timeconst}")


@dataclass(frozen=True)
class InertiaFloor:
    """The mass and inertia floor of the simulated plant (module docstring).

    Attributes
    ----------
    mass_rel : float
        ``m_min / m_total``.
    rog_rel : float
        Radius of gyration of the floor, as a fraction of ``L``: ``I_min = m_min (rog_rel L)²``.
    """

    mass_rel: float = 1e-4
    rog_rel: float = 0.1


def mechanism_parts(mechanism: PlanarMechanism) -> MechanismParts:
    """The links, point masses, contacts and actuators of ``mechanism``: ``mechanism.parts()``
    (``contactmodes.model.mechanism.MechanismParts``; a URDF mechanism stores them in
    mechanism-link frames too, so both inputs read the same).

    Parameters
    ----------
    mechanism : PlanarMechanism
        A planar mechanism (of a system file, or read from a URDF).

    Returns
    -------
    MechanismParts
        Its parts in mechanism-link frames (SI).
    """
    return mechanism.parts()


@dataclass(frozen=True)
class PlantDifference:
    """How the simulated plant differs from the analysed one at the initial state.

    Attributes
    ----------
    M_rel : float
        ``‖M_sim − M‖_F / ‖M‖_F`` with ``M_sim = M_floored + diag(armature)``.
    M_abs : float
        ``max |M_sim − M|`` (SI units of ``M``).
    h_rel : float or None
        ``‖h_sim − h‖ / ‖h‖`` (0 when both vanish, ``None`` when only ``h`` does).
    floored_links : list[str]
        The links whose mass or inertia was raised.
    mass_floor : float
        ``m_min`` (kg).
    inertia_floor : float
        ``I_min`` (kg·m²), also the armature of a floored link's hinge.
    """

    M_rel: float
    M_abs: float
    h_rel: float | None
    floored_links: list[str]
    mass_floor: float
    inertia_floor: float

    def to_json(self) -> dict:
        """The ``plant_difference`` entry of ``contactmodes.simulation/1``."""
        return {"M_rel": self.M_rel, "M_abs": self.M_abs, "h_rel": self.h_rel,
                "floored_links": list(self.floored_links), "mass_floor_kg": self.mass_floor,
                "inertia_floor_kgm2": self.inertia_floor}


@dataclass(frozen=True)
class Plant:
    """A compiled MuJoCo model of a mechanism, with the maps between the two.

    Attributes
    ----------
    model : mujoco.MjModel
        The compiled model.
    xml : str
        Its MJCF text.
    mechanism : PlanarMechanism
        The analysed mechanism it was built from.
    floored : PlanarMechanism
        The same mechanism with point masses merged into their links and the floor applied:
        the simulated plant as a toolkit model (without the armature).
    armature : numpy.ndarray
        ``(n_q,)`` armature per coordinate (kg·m²; 0 on the floating base).
    coordinates : tuple[str, ...]
        Toolkit coordinates, ``n_q`` of them.
    qpos_index : numpy.ndarray
        ``(n_q,)`` int: MuJoCo ``qpos`` (= ``qvel``, every joint has one degree of freedom)
        address of each coordinate.
    actuators : tuple[str, ...]
        Toolkit actuators, in order.
    ctrl_index : numpy.ndarray
        ``(n_τ,)`` int: MuJoCo actuator id of each actuator.
    contacts : tuple[str, ...]
        Toolkit contacts, in order.
    sphere_geoms, plane_geoms : numpy.ndarray
        ``(k,)`` int geom ids of each contact's sphere and plane.
    normals, tangents : numpy.ndarray
        ``(k, 2)`` contact frames ``n_i``, ``t_i`` (world).
    mu : numpy.ndarray
        ``(k,)`` friction coefficients.
    length : float
        Characteristic length ``L`` (m).
    total_mass : float
        ``m_total`` (kg) of the analysed mechanism.
    settings : ContactSettings
        The contact settings used.
    difference : PlantDifference
        The plant difference at the initial state.
    limits : numpy.ndarray or None
        ``(n_τ, 2)`` torque limits (user units) written as ``ctrlrange``, or ``None``.
    """

    model: Any
    xml: str
    mechanism: PlanarMechanism
    floored: PlanarMechanism
    armature: np.ndarray
    coordinates: tuple[str, ...]
    qpos_index: np.ndarray
    actuators: tuple[str, ...]
    ctrl_index: np.ndarray
    contacts: tuple[str, ...]
    sphere_geoms: np.ndarray
    plane_geoms: np.ndarray
    normals: np.ndarray
    tangents: np.ndarray
    mu: np.ndarray
    length: float
    total_mass: float
    settings: ContactSettings
    difference: PlantDifference
    limits: np.ndarray | None = field(default=None)

    def set_state(self, data: "mujoco.MjData", q: np.ndarray, qdot: np.ndarray) -> None:
        """Write toolkit ``q``, ``q̇`` (each (n_q,), SI) into ``data`` (then ``mj_forward`` it).

        Parameters
        ----------
        data : mujoco.MjData
            The plant's data.
        q : numpy.ndarray
            ``(n_q,)`` configuration (m, rad).
        qdot : numpy.ndarray
            ``(n_q,)`` velocity (m/s, rad/s).
        """
        data.qpos[self.qpos_index] = q
        data.qvel[self.qpos_index] = qdot

    def state(self, data: "mujoco.MjData") -> tuple[np.ndarray, np.ndarray]:
        """Toolkit ``(q, q̇)`` (each (n_q,), SI) read from ``data``.

        Parameters
        ----------
        data : mujoco.MjData
            The plant's data.

        Returns
        -------
        q, qdot : numpy.ndarray
            ``(n_q,)`` each (SI), copies.
        """
        return data.qpos[self.qpos_index].copy(), data.qvel[self.qpos_index].copy()


def _body_inertial(link: dict, pms: Sequence[tuple[str, float, np.ndarray]]) -> tuple[float, np.ndarray, float]:
    """Mass (kg), centre of mass (2,) (m, link frame) and central inertia (kg·m²) of a link with
    its point masses."""
    items = [(link["mass"], link["com"])] + [(m, p) for _, m, p in pms]
    mass = sum(m for m, _ in items)
    if mass <= 0.0:
        return 0.0, link["com"].copy(), link["inertia"]
    com = sum(m * p for m, p in items) / mass
    inertia = link["inertia"] + sum(m * float((p - com) @ (p - com)) for m, p in items)
    return float(mass), np.asarray(com, float), float(inertia)


def _num(x: float) -> str:
    return repr(float(x))


def _vec(*xs: float) -> str:
    return " ".join(_num(x) for x in xs)


def build_plant(mechanism: PlanarMechanism, q: ArrayLike, qdot: ArrayLike,
                settings: ContactSettings | None = None, floor: InertiaFloor | None = None,
                limits: np.ndarray | None = None) -> Plant:
    """Build and compile the MuJoCo model of ``mechanism`` (module docstring).

    Parameters
    ----------
    mechanism : PlanarMechanism
        The analysed mechanism (``LoadedSystem.mechanism``).
    q, qdot : array_like
        ``(n_q,)`` initial state (SI): fixes the characteristic length and the plant difference.
    settings : ContactSettings, optional
        Solver and contact settings (default ``ContactSettings()``).
    floor : InertiaFloor, optional
        Mass and inertia floor (default ``InertiaFloor()``).
    limits : numpy.ndarray, optional
        ``(n_τ, 2)`` lower and upper limit per actuator (user units: N·m or N; ``±inf`` for none),
        written as ``ctrlrange`` (MuJoCo clamps the control to it); ``None``: unlimited.

    Returns
    -------
    Plant
        The compiled model and its maps.

    Raises
    ------
    ContactModelError
        A mechanism without mass, bad settings or limits, or MuJoCo refusing the model.
    """
    import mujoco

    settings = ContactSettings() if settings is None else settings
    settings.check()
    floor = InertiaFloor() if floor is None else floor
    parts = mechanism_parts(mechanism)
    q_ = np.asarray(q, float)
    qd_ = np.asarray(qdot, float)
    scales = mechanism.characteristic_scales(q_, qd_)
    L = float(scales.length) if math.isfinite(scales.length) and scales.length > 0 else 1.0
    m_total = sum(l["mass"] for l in parts.links) + sum(m for _, m, _ in parts.point_masses)
    if m_total <= 0:
        raise ContactModelError("links: the mechanism has no mass; nothing to simulate")
    m_min = floor.mass_rel * m_total
    I_min = m_min * (floor.rog_rel * L) ** 2
    n_tau = len(parts.actuators)
    if limits is not None:
        limits = np.asarray(limits, float)
        if limits.shape != (n_tau, 2) or np.any(np.isnan(limits)) or np.any(limits[:, 0] > limits[:, 1]):
            raise ContactModelError(f"limits: expected ({n_tau}, 2) rows lo <= hi, got {limits.tolist()}")

    floored = PlanarMechanism(base=mechanism.base, gravity=mechanism.gravity,
                              base_position=mechanism.base_position, name=mechanism.name)
    bodies: dict[str, tuple[float, np.ndarray, float]] = {}
    floored_links: list[str] = []
    armature = np.zeros(mechanism.n_q)
    for link in parts.links:
        own = [pm for pm in parts.point_masses if pm[0] == link["name"]]
        mass, com, inertia = _body_inertial(link, own)
        if mass < m_min or inertia < I_min:
            floored_links.append(link["name"])
            if link["joint"] is not None:
                armature[mechanism.coordinate_index(link["joint"])] = I_min
        mass, inertia = max(mass, m_min), max(inertia, I_min)
        bodies[link["name"]] = (mass, com, inertia)
        floored.add_link(link["name"], parent=link["parent"], joint=link["joint"],
                         joint_position=link["joint_position"], mass=mass, com=com, inertia=inertia)
    for c in parts.contacts:
        floored.add_contact(c["name"], c["link"], c["position"], c["surface_point"], c["normal"], c["mu"], c["v0"])
    for name, coord in parts.actuators:
        floored.add_actuator(name, coord)

    radius = settings.radius_rel * L
    margin = settings.margin_rel * L
    solref = _vec(*settings.solref())
    solimp = _vec(*settings.solimp)
    children: dict[str | None, list[dict]] = {}
    for link in parts.links:
        children.setdefault(link["parent"], []).append(link)
    contacts_on: dict[str, list[int]] = {}
    for i, c in enumerate(parts.contacts):
        contacts_on.setdefault(c["link"], []).append(i)

    def body_xml(link: dict, indent: str) -> list[str]:
        mass, com, inertia = bodies[link["name"]]
        if link["parent"] is None:
            pos = (0.0, 0.0) if mechanism.base == "floating" else tuple(mechanism.base_position)
        else:
            pos = tuple(link["joint_position"])
        out = [f"{indent}<body name={quoteattr('link:' + link['name'])} pos={quoteattr(_vec(pos[0], pos[1], 0.0))}>"]
        inner = indent + "  "
        if link["parent"] is None and mechanism.base == "floating":
            for name, kind, axis in (("x", "slide", "1 0 0"), ("y", "slide", "0 1 0"), ("theta", "hinge", "0 0 1")):
                out.append(f"{inner}<joint name={quoteattr(name)} type=\"{kind}\" axis=\"{axis}\" "
                           f"limited=\"false\" armature=\"0\" damping=\"0\"/>")
        else:
            arm = armature[mechanism.coordinate_index(link["joint"])]
            out.append(f"{inner}<joint name={quoteattr(link['joint'])} type=\"hinge\" axis=\"0 0 1\" pos=\"0 0 0\" "
                       f"limited=\"false\" armature={quoteattr(_num(arm))} damping=\"0\"/>")
        out.append(f"{inner}<inertial pos={quoteattr(_vec(com[0], com[1], 0.0))} mass={quoteattr(_num(mass))} "
                   f"diaginertia={quoteattr(_vec(inertia, inertia, inertia))}/>")
        for i in contacts_on.get(link["name"], []):
            p = parts.contacts[i]["position"]
            out.append(f"{inner}<geom name=\"contact:{i}\" type=\"sphere\" size={quoteattr(_num(radius))} "
                       f"pos={quoteattr(_vec(p[0], p[1], 0.0))} contype=\"0\" conaffinity=\"0\" rgba=\"1 0 0 1\"/>")
        for child in children.get(link["name"], []):
            out.extend(body_xml(child, inner))
        out.append(f"{indent}</body>")
        return out

    lines = ["<mujoco model=\"contactmodes\">",
             "  <compiler angle=\"radian\" inertiafromgeom=\"false\" autolimits=\"true\"/>",
             f"  <option timestep={quoteattr(_num(settings.timestep))} gravity={quoteattr(_vec(0.0, -mechanism.gravity, 0.0))} "
             f"cone=\"elliptic\" impratio={quoteattr(_num(settings.impratio))} integrator=\"Euler\"/>",
             "  <worldbody>"]
    for i, c in enumerate(parts.contacts):
        s = c["surface_point"] - radius * c["normal"]  # the sphere's centre is the toolkit's point
        n = c["normal"]
        lines.append(f"    <geom name=\"line:{i}\" type=\"plane\" size=\"0 0 1\" pos={quoteattr(_vec(s[0], s[1], 0.0))} "
                     f"zaxis={quoteattr(_vec(n[0], n[1], 0.0))} contype=\"0\" conaffinity=\"0\"/>")
    root = children[None][0]
    lines.extend(body_xml(root, "    "))
    lines.append("  </worldbody>")
    if parts.contacts:
        lines.append("  <contact>")
        for i, c in enumerate(parts.contacts):
            mu = c["mu"]
            lines.append(f"    <pair geom1=\"line:{i}\" geom2=\"contact:{i}\" condim=\"3\" "
                         f"friction={quoteattr(_vec(mu, mu, 0.0, 0.0, 0.0))} solref={quoteattr(solref)} "
                         f"solreffriction={quoteattr(_vec(settings.friction_timeconst, 1.0))} "
                         f"solimp={quoteattr(solimp)} margin={quoteattr(_num(margin))}/>")
        lines.append("  </contact>")
    if parts.actuators:
        lines.append("  <actuator>")
        for j, (name, coord) in enumerate(parts.actuators):
            rng = ""
            if limits is not None and np.any(np.isfinite(limits[j])):  # an infinite end: beyond any torque
                lo, hi = np.clip(limits[j], -_UNBOUNDED, _UNBOUNDED)
                rng = f" ctrllimited=\"true\" ctrlrange={quoteattr(_vec(lo, hi))}"
            lines.append(f"    <motor name={quoteattr(name)} joint={quoteattr(coord)} gear=\"1\"{rng}/>")
        lines.append("  </actuator>")
    lines.append("</mujoco>")
    xml = "\n".join(lines) + "\n"
    try:
        model = mujoco.MjModel.from_xml_string(xml)
    except ValueError as exc:
        raise ContactModelError(f"simulation model: MuJoCo refused the model: {exc}") from None

    coords = mechanism.coordinates
    qpos_index = np.array([model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, c)] for c in coords],
                          dtype=int)
    dof_index = np.array([model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, c)] for c in coords],
                         dtype=int)
    if not np.array_equal(qpos_index, dof_index):  # pragma: no cover - slide/hinge joints only
        raise AssertionError("qpos and qvel addresses differ")
    ctrl_index = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a) for a, _ in parts.actuators],
                          dtype=int)
    k = len(parts.contacts)
    spheres = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, f"contact:{i}") for i in range(k)], dtype=int)
    planes = np.array([mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, f"line:{i}") for i in range(k)], dtype=int)

    d0 = mechanism.dynamics(q_, qd_)
    d1 = floored.dynamics(q_, qd_)
    M_sim = d1.M + np.diag(armature)
    nM = float(np.linalg.norm(d0.M))
    dM = float(np.linalg.norm(M_sim - d0.M))
    nh = float(np.linalg.norm(d0.h))
    dh = float(np.linalg.norm(d1.h - d0.h))
    difference = PlantDifference(M_rel=dM / nM if nM > 0 else 0.0, M_abs=float(np.abs(M_sim - d0.M).max(initial=0.0)),
                                 h_rel=dh / nh if nh > 0 else (0.0 if dh == 0 else None),
                                 floored_links=floored_links, mass_floor=m_min, inertia_floor=I_min)
    return Plant(model=model, xml=xml, mechanism=mechanism, floored=floored, armature=armature, coordinates=coords,
                 qpos_index=qpos_index, actuators=tuple(a for a, _ in parts.actuators), ctrl_index=ctrl_index,
                 contacts=tuple(c["name"] for c in parts.contacts), sphere_geoms=spheres, plane_geoms=planes,
                 normals=np.array([c["normal"] for c in parts.contacts]).reshape(k, 2),
                 tangents=np.array([c["tangent"] for c in parts.contacts]).reshape(k, 2),
                 mu=np.array([c["mu"] for c in parts.contacts]), length=L, total_mass=m_total,
                 settings=settings, difference=difference, limits=limits)
