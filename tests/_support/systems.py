"""Small contact systems shared by the stage tests (answers derived in each test).

Hand-built: a point mass ``M_`` on the floor ``y = 0`` (``t = +x``, ``n = +y``) with a horizontal
force actuator, and the same point touching both the floor and a ceiling. Random:
``random_system``, the family the LP oracle (``_support.oracle``) is checked on.
"""

from __future__ import annotations

import numpy as np

from contactmodes.model.system import ContactSystem

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


def random_system(rng, n_q, n_tau, k):
    R = rng.normal(size=(n_q, n_q))
    return ContactSystem(
        M=R @ R.T + 0.5 * np.eye(n_q), h=rng.normal(scale=5.0, size=n_q),
        S=rng.normal(size=(n_q, n_tau)), J=rng.normal(size=(2 * k, n_q)), Jdot_qdot=np.zeros(2 * k),
        v_contact=np.zeros(2 * k), mu=rng.uniform(0.2, 1.2, size=k),
        coordinates=[f"q{i}" for i in range(n_q)], torques=[f"t{i}" for i in range(n_tau)],
        contacts=[f"c{i}" for i in range(k)], name=f"random",
    )
