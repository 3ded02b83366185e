"""The contact mode of each toolkit contact, read from a MuJoCo step.

Forces: for each contact pair (the contact's line, geom 1, and its sphere, geom 2) MuJoCo's
``mj_contactForce`` gives ``(f_normal, f_t1, f_t2)`` in the contact frame, whose rows
(``data.contact.frame``) are the normal (from geom 1 to geom 2: the line's outward normal
``n_i``) and two tangents, the first one possibly out of the plane. The world force on the robot
is ``frameᵀ f``; its projections on ``t_i`` and ``n_i`` are the toolkit's ``(f_t, f_n)``
(``docs/conventions.md``), the out-of-plane rest is dropped (it has no work to do: no degree of
freedom moves out of the plane). A pair with no MuJoCo contact has zero force.

Velocities: the sphere centre's linear velocity (``mj_objectVelocity``, world frame), projected on
``(t_i, n_i)``.

The control loop reads every MuJoCo step of a control period and takes the letters of the
period's *mean* force and velocity (``controllers.simulation.loop``): a sliding MuJoCo contact
does not press steadily, it makes micro-hops of a few µm, so that the force of one MuJoCo step
is often zero while its mean over the period is the sliding contact's.

Letters (thresholds relative to the mechanism, ``ModeThresholds``):

* ``S`` — ``f_n <= force_rel · m_total · g`` (no force to speak of: separating, or touching
  without load);
* otherwise ``R`` when ``v_t > slip_rel · sqrt(g L)`` (sliding towards ``+t``), ``L`` when
  ``v_t < −slip_rel · sqrt(g L)`` (towards ``−t``), else ``F``.

With the default settings (``controllers.simulation.model.ContactSettings``) a sticking point
creeps at 1e-6 m/s or less, three orders of magnitude under the slip threshold of a 0.1–1 m
robot (1e-3 to 3e-3 m/s); the friction force itself is not tested against ``μ f_n`` (a soft contact
sliding slowly may not reach it exactly), it is reported beside the letter (``ContactReading``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

    from .model import Plant

__all__ = ["ContactReading", "ModeThresholds", "mode_letters", "read_contacts"]


@dataclass(frozen=True)
class ModeThresholds:
    """Thresholds of the mode letters (module docstring).

    Attributes
    ----------
    force_rel : float
        Normal force below which a contact is ``S``, as a fraction of the weight ``m_total g``.
    slip_rel : float
        Tangential speed above which a loaded contact slides, as a fraction of ``sqrt(g L)``.
    """

    force_rel: float = 1e-3
    slip_rel: float = 1e-3

    def force_tol(self, plant: "Plant") -> float:
        """The normal force threshold (N).

        Parameters
        ----------
        plant : Plant
            The plant (its total mass and gravity).

        Returns
        -------
        float
            ``force_rel · m_total · g`` (N).
        """
        return self.force_rel * plant.total_mass * plant.mechanism.gravity

    def slip_tol(self, plant: "Plant") -> float:
        """The tangential speed threshold (m/s).

        Parameters
        ----------
        plant : Plant
            The plant (its gravity and length ``L``).

        Returns
        -------
        float
            ``slip_rel · sqrt(g L)`` (m/s; ``g = 9.81`` when the plant has no gravity).
        """
        g = plant.mechanism.gravity if plant.mechanism.gravity > 0 else 9.81
        return self.slip_rel * math.sqrt(g * plant.length)


@dataclass(frozen=True)
class ContactReading:
    """Forces, velocities and letters of every toolkit contact at one MuJoCo step.

    Attributes
    ----------
    force : numpy.ndarray
        ``(k, 2)`` ``(f_t, f_n)`` on the robot (N).
    velocity : numpy.ndarray
        ``(k, 2)`` ``(v_t, v_n)`` of the contact points (m/s).
    position : numpy.ndarray
        ``(k, 2)`` world positions of the contact points (sphere centres, m).
    mode : str
        One letter ``S``/``F``/``L``/``R`` per contact.
    """

    force: np.ndarray
    velocity: np.ndarray
    position: np.ndarray
    mode: str


def read_contacts(plant: "Plant", data: "mujoco.MjData", thresholds: ModeThresholds | None = None) -> ContactReading:
    """Read every toolkit contact from ``data`` after ``mj_forward`` or ``mj_step`` (the forces
    and velocities of the forward pass the step began with).

    Parameters
    ----------
    plant : Plant
        The plant ``data`` belongs to.
    data : mujoco.MjData
        The MuJoCo data.
    thresholds : ModeThresholds, optional
        Default ``ModeThresholds()``.

    Returns
    -------
    ContactReading
        Forces, velocities, positions and the mode string.
    """
    import mujoco

    th = ModeThresholds() if thresholds is None else thresholds
    model = plant.model
    k = len(plant.contacts)
    force = np.zeros((k, 2))
    velocity = np.zeros((k, 2))
    which = {int(g): i for i, g in enumerate(plant.plane_geoms)}
    res = np.zeros(6)
    for j in range(data.ncon):
        con = data.contact[j]
        i = which.get(int(con.geom1))
        if i is None or int(con.geom2) != int(plant.sphere_geoms[i]):
            continue
        mujoco.mj_contactForce(model, data, j, res)
        world = np.asarray(con.frame, float).reshape(3, 3).T @ res[:3]
        force[i] += (plant.tangents[i] @ world[:2], plant.normals[i] @ world[:2])
    vel = np.zeros(6)
    position = np.zeros((k, 2))
    for i, g in enumerate(plant.sphere_geoms):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_GEOM, int(g), vel, 0)
        velocity[i] = (plant.tangents[i] @ vel[3:5], plant.normals[i] @ vel[3:5])
        position[i] = data.geom_xpos[g][:2]
    return ContactReading(force=force, velocity=velocity, position=position,
                          mode=mode_letters(plant, force, velocity, th))


def mode_letters(plant: "Plant", force: np.ndarray, velocity: np.ndarray,
                 thresholds: ModeThresholds | None = None) -> str:
    """The mode string of contact forces and point velocities, by the rule of the module docstring.

    Parameters
    ----------
    plant : Plant
        The plant (the thresholds' scales).
    force : numpy.ndarray
        ``(k, 2)`` ``(f_t, f_n)`` on the robot (N).
    velocity : numpy.ndarray
        ``(k, 2)`` ``(v_t, v_n)`` of the contact points (m/s).
    thresholds : ModeThresholds, optional
        Default ``ModeThresholds()``.

    Returns
    -------
    str
        One letter ``S``/``F``/``L``/``R`` per contact.
    """
    th = ModeThresholds() if thresholds is None else thresholds
    f_tol, v_tol = th.force_tol(plant), th.slip_tol(plant)
    letters = []
    for i in range(len(force)):
        if force[i, 1] <= f_tol:
            letters.append("S")
        elif velocity[i, 0] > v_tol:
            letters.append("R")
        elif velocity[i, 0] < -v_tol:
            letters.append("L")
        else:
            letters.append("F")
    return "".join(letters)
