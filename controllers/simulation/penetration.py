"""Links below a contact surface on the MuJoCo plant: watched and reported, not collided.

The plant collides only the listed contact points, each with its own line
(``controllers.simulation.model``): a collapsing robot's links pass through the floor without a
force. The plant keeps that (colliding whole links would add contacts the analysed model does
not have, and change every recorded run); instead ``PenetrationWatch`` reports when a link goes
below a surface, so that such a run is not mistaken for the robot's:

* the *surfaces* are the contacts' lines, each line once (contacts whose normals and offsets
  ``n·p`` agree within ``SAME_LINE_RTOL``, relative to 1 and to the characteristic length ``L``),
  named by their contacts; a line is infinite, as the plant's plane is;
* a link's *points* are those its drawing uses (``controllers.simulation.plots``): its frame
  origin, its children's joints, its contact points, its point masses and its centre of mass;
* a point *penetrates* a surface when it lies more than ``PENETRATION_RTOL · L`` below the line
  (signed distance ``n·(x − p) < −PENETRATION_RTOL · L``), read at the start of every control
  step and at the end. Watched are only the points that started on the free side (distance at
  least ``−PENETRATION_RTOL · L`` at ``t = 0``: a gripper's palm lies below the lines of a block's
  sides it is not touching) and not the contact points of that surface's own contacts (MuJoCo
  collides them; their soft contact sinks by micrometres).

``contactmodes simulate`` prints a warning on stderr per penetrating link and surface and
records them in ``--json`` (``penetrations``); the exit status stays 0 (the run itself is valid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Plant, mechanism_parts

__all__ = ["Penetration", "PenetrationWatch", "describe", "PENETRATION_RTOL", "SAME_LINE_RTOL"]

PENETRATION_RTOL = 1e-3
"""Depth below a surface, relative to the characteristic length ``L``, beyond which a link's
point is reported (1 mm for a 1 m robot: ten times the contact spheres' radius, far beyond a
soft contact's sinking)."""

SAME_LINE_RTOL = 1e-9
"""Two contacts' lines are one surface when their unit normals differ by at most this and their
offsets ``n·p`` by at most this times ``L``."""


@dataclass
class Penetration:
    """One link below one surface during a run.

    Attributes
    ----------
    link : str
        The link.
    surface : tuple[str, ...]
        The contacts whose line the surface is.
    first_s : float
        The first time a point of the link was found below it (s).
    depth_m : float
        The largest depth found (m, > 0).
    """

    link: str
    surface: tuple[str, ...]
    first_s: float
    depth_m: float

    def to_json(self) -> dict:
        """One entry of the ``penetrations`` of ``contactmodes.simulation/1``."""
        return {"link": self.link, "surface": list(self.surface), "first_s": self.first_s, "depth_m": self.depth_m}

    def message(self) -> str:
        """The warning line (without the program's prefix): ``describe`` of the entry."""
        return "simulate: " + describe(self.to_json())


def describe(entry: dict) -> str:
    """One line on a ``penetrations`` entry of ``contactmodes.simulation/1`` (the summary's and,
    after ``simulate:``, the warning's).

    Parameters
    ----------
    entry : dict
        A ``penetrations`` entry (``link``, ``surface``, ``first_s``, ``depth_m``).

    Returns
    -------
    str
        The line (no newline).
    """
    return (f"link {entry['link']} went {entry['depth_m']:.3g} m below the surface of contact(s) "
            f"{', '.join(entry['surface'])} (first at t = {entry['first_s']:.4g} s): the plant collides only the "
            f"contact points, its links pass through")


def _surfaces(parts, L: float) -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]], np.ndarray]:
    """``(normals (s, 2), offsets (s,), names, surface of each contact (k,))``."""
    normals: list[np.ndarray] = []
    offsets: list[float] = []
    names: list[list[str]] = []
    of = np.zeros(len(parts.contacts), dtype=int)
    for i, c in enumerate(parts.contacts):
        n = np.asarray(c["normal"], float)
        off = float(n @ np.asarray(c["surface_point"], float))
        for j, (m, o) in enumerate(zip(normals, offsets)):
            if np.abs(m - n).max() <= SAME_LINE_RTOL and abs(o - off) <= SAME_LINE_RTOL * L:
                names[j].append(c["name"])
                of[i] = j
                break
        else:
            of[i] = len(normals)
            normals.append(n)
            offsets.append(off)
            names.append([c["name"]])
    return (np.array(normals, float).reshape(-1, 2), np.array(offsets, float), [tuple(n) for n in names], of)


class PenetrationWatch:
    """Watches a run for links below a contact surface (module doc).

    Parameters
    ----------
    plant : Plant
        The simulated plant.
    data : mujoco.MjData
        Its data at the initial state, kinematics computed (``mj_kinematics`` or ``mj_forward``):
        which points start on the free side.
    """

    def __init__(self, plant: Plant, data) -> None:
        import mujoco

        parts = mechanism_parts(plant.mechanism)
        L = plant.length
        self.tol = PENETRATION_RTOL * L
        self.normals, self.offsets, self.names, surface_of = _surfaces(parts, L)
        local: list[np.ndarray] = []
        link_of: list[str] = []
        contact_of: list[int] = []  # the contact a point is (-1: none)
        for link in parts.links:
            pts = [np.zeros(2), np.asarray(link["com"], float)]
            pts += [np.asarray(l["joint_position"], float) for l in parts.links if l["parent"] == link["name"]]
            pts += [np.asarray(p, float) for name, _, p in parts.point_masses if name == link["name"]]
            local += pts
            link_of += [link["name"]] * len(pts)
            contact_of += [-1] * len(pts)
        for i, c in enumerate(parts.contacts):
            local.append(np.asarray(c["position"], float))
            link_of.append(c["link"])
            contact_of.append(i)
        self.local = np.array(local, float).reshape(-1, 2)
        self.link_of = link_of
        self.body = np.array([mujoco.mj_name2id(plant.model, mujoco.mjtObj.mjOBJ_BODY, f"link:{name}")
                              for name in link_of], dtype=int)
        own = np.zeros((len(local), len(self.names)), dtype=bool)
        for p, i in enumerate(contact_of):
            if i >= 0:
                own[p, surface_of[i]] = True
        self.watched = ~own & (self.distances(data) >= -self.tol) if len(self.names) else own
        self.found: dict[tuple[str, int], Penetration] = {}

    def distances(self, data) -> np.ndarray:
        """``(points, surfaces)`` signed distances (m) of the watched links' points above each
        surface at ``data``'s kinematics.

        Parameters
        ----------
        data : mujoco.MjData
            The plant's data after ``mj_forward`` or a step.

        Returns
        -------
        numpy.ndarray
            ``(points, surfaces)`` (m, positive above).
        """
        R = data.xmat[self.body].reshape(-1, 3, 3)[:, :2, :2]
        world = data.xpos[self.body, :2] + np.einsum("pij,pj->pi", R, self.local)
        return world @ self.normals.T - self.offsets

    def update(self, t: float, data) -> None:
        """Read the points at ``data``'s kinematics (time ``t``, s) and record the penetrations.

        Parameters
        ----------
        t : float
            The time (s).
        data : mujoco.MjData
            The plant's data at ``t``.
        """
        if not self.watched.any():
            return
        depth = -self.distances(data)
        hit = self.watched & (depth > self.tol)
        for p, s in zip(*np.nonzero(hit)):
            key = (self.link_of[p], int(s))
            d = float(depth[p, s])
            e = self.found.get(key)
            if e is None:
                self.found[key] = Penetration(self.link_of[p], self.names[s], float(t), d)
            elif d > e.depth_m:
                e.depth_m = d

    def finished(self) -> list[Penetration]:
        """The penetrations found, in order of their first time (then link, surface)."""
        return sorted(self.found.values(), key=lambda e: (e.first_s, e.link, e.surface))
