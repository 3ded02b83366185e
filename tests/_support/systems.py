"""Small hand-built contact systems shared by the stage tests (answers derived in each test).

A point mass ``M_`` on the floor ``y = 0`` (``t = +x``, ``n = +y``) with a horizontal force
actuator, and the same point touching both the floor and a ceiling.
"""

from __future__ import annotations

import numpy as np

from contactmodes.system import ContactSystem

M_, G_, MU = 2.0, 9.81, 0.5


def point_on_ground(v=(0.0, 0.0), v0=None, mu=MU, constraints=()):
    """Point mass (x, y) on the floor y = 0: t = +x, n = +y; horizontal force actuator ``fx``."""
    return ContactSystem(
        M=M_ * np.eye(2), h=[0.0, M_ * G_], S=[[1.0], [0.0]], J=np.eye(2), Jdot_qdot=[0.0, 0.0],
        v_contact=list(v), mu=[mu], coordinates=["x", "y"], torques=["fx"], contacts=["ground"],
        v0=v0, constraints=tuple(constraints),
    )


def point_between_floor_and_ceiling():
    """Point touching the floor (n = +y, t = +x) and the ceiling (n = −y, t = (n_y, −n_x) = −x)."""
    J = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    return ContactSystem(
        M=M_ * np.eye(2), h=[0.0, M_ * G_], S=np.eye(2), J=J, Jdot_qdot=np.zeros(4),
        v_contact=np.zeros(4), mu=[MU, MU], coordinates=["x", "y"], torques=["fx", "fy"],
        contacts=["floor", "ceiling"],
    )
