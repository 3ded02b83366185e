"""Rigid planar RHex model for the controllers (flipping paper, Sec. IV-B.1, Fig. 7, eqs. 35–36).

:func:`rigid_system` builds, from a compliant-simulator state, the instantaneous
:class:`~contactmodes.system.ContactSystem` of the rigid model with
:class:`~contactmodes.mechanism.PlanarMechanism` (rebuilt at every control step):

* floating body ``(x, y, θ)`` (mass ``m``, inertia ``I``, frame at the centre of mass);
* three massless rigid legs as zero-mass coordinates ``φ_1..φ_3`` relative to the body (view 2 of
  ``shared/reference/massless-limbs.md``): their rows of ``M q̈ + h = S τ + Jᵀ f`` are all zero on
  the left, i.e. exactly the leg moment balance (36) ``(D_φ x)ᵀ f = τ``;
* contacts, in this order: ``body`` (rear bottom corner, body frame ``(−d, −h)``, ``mu_body``),
  ``toe1``, ``toe2``, ``toe3`` (``mu_toe``), ground normal ``+y``, tangent ``+x``;
  velocity thresholds ``params.v0``;
* actuators ``tau1..tau3`` on ``phi1..phi3``;
* task constraint (if ``task``): ``f_n(body) >= params.min_body_normal_force`` (Sec. IV-B.2).

Rigid leg geometry (our choice, documented): each rigid leg is the compliant leg *as it is now*:
hip angle ``φ_i`` and length ``r_i`` are the measured hip→toe vector (so the rigid toe is exactly the
simulated toe). The ground line of each contact is placed through the measured contact point
(``surface_point = (0, y_contact)``), so every contact's gap is exactly zero even though the
compliant toe/body sits a fraction of a millimetre off ``y = 0`` (the body corner sinks a few mm
into the penalty ground). This keeps the instantaneous kinematics ``J``, ``J̇ q̇`` of the real
configuration instead of a projected one.

Contacts kept: the body corner always (the flip keeps it on the ground); a toe only while it is
within ``params.toe_clearance`` (5 mm) of the ground. A toe above that is left out, so the mode
strings then have fewer letters: :attr:`RigidModel.contacts` lists the contacts present, and
:func:`expand_mode` maps a model mode to the 4-letter form with ``S`` for omitted toes.

Velocities: body ``(ẋ, ẏ, θ̇)`` as simulated; ``φ̇_i`` is the hip speed of the compliant leg
(rotation rate of the hip→toe vector relative to the body). The leg's radial rate ``ṙ_i`` has no
rigid counterpart; the rigid toe velocity therefore differs from the simulated one by ``ṙ_i u_i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactmodes.mechanism import PlanarMechanism
from contactmodes.system import ContactSystem, LinearConstraint

from .params import RHexParams
from .simulator import body_corners, leg_kinematics

__all__ = ["RigidModel", "rigid_model", "rigid_system", "expand_mode", "CONTACT_NAMES", "PITCH_INDEX"]

CONTACT_NAMES = ("body", "toe1", "toe2", "toe3")
"""All rigid-model contacts, in order."""
PITCH_INDEX = 2
"""Index of θ in the rigid model's coordinates ``(x, y, theta, phi1, phi2, phi3)``."""


@dataclass(frozen=True)
class RigidModel:
    """A rigid model at one state: ``system`` (:class:`ContactSystem`), ``contacts`` the contact
    names present (subset of :data:`CONTACT_NAMES`, in order), ``q`` (6,) and ``qdot`` (6,)."""

    system: ContactSystem
    contacts: tuple
    q: np.ndarray
    qdot: np.ndarray
    mechanism: PlanarMechanism


def expand_mode(mode: str, contacts) -> str:
    """4-letter mode (body, toe1, toe2, toe3) from a mode over ``contacts``; omitted toes get ``S``."""
    letters = dict(zip(contacts, mode))
    return "".join(letters.get(c, "S") for c in CONTACT_NAMES)


def rigid_model(state, params: RHexParams, task: bool = True) -> RigidModel:
    """Build the rigid model at simulator ``state`` (18,); see the module docstring.

    Raises ``ValueError`` for a bad state; contactmodes errors propagate.
    """
    p = params
    st = np.asarray(state, dtype=float)
    lk = leg_kinematics(st, p)
    th = float(st[2])
    mech = PlanarMechanism(base="floating", gravity=p.gravity, name="rhex_rigid")
    if p.slope != 0.0:
        raise ValueError("rigid_system: a tilted-gravity (slope) model is not supported by PlanarMechanism")
    mech.add_link("body", mass=p.m, inertia=p.I)
    for i, di in enumerate(p.hips):
        mech.add_link(f"leg{i + 1}", parent="body", joint=f"phi{i + 1}", joint_position=(di, 0.0))
    corner = body_corners(st, p)[0]
    mech.add_contact("body", "body", (-p.d, -p.h), (0.0, float(corner[1])), (0.0, 1.0), p.mu_body, p.v0[0])
    present = ["body"]
    toes = st[6:12].reshape(3, 2)
    for i in range(3):
        if toes[i, 1] <= p.toe_clearance:
            mech.add_contact(f"toe{i + 1}", f"leg{i + 1}", (float(lk.r[i]), 0.0), (0.0, float(toes[i, 1])),
                             (0.0, 1.0), p.mu_toe, p.v0[i + 1])
            present.append(f"toe{i + 1}")
    for i in range(3):
        mech.add_actuator(f"tau{i + 1}", f"phi{i + 1}")
    q = np.array([st[0], st[1], th, *lk.phi])
    qdot = np.array([st[3], st[4], st[5], *lk.phidot])
    cons = []
    if task:
        k = len(present)
        f = np.zeros((1, 2 * k))
        f[0, 1] = 1.0
        cons.append(LinearConstraint(kind="task", type="geq", qdd=np.zeros((1, 6)), f=f, tau=np.zeros((1, 3)),
                                     rhs=np.array([p.min_body_normal_force]),
                                     name=f"f_n(body) >= {p.min_body_normal_force:g}"))
    system = mech.contact_system(q, qdot, constraints=cons)
    return RigidModel(system, tuple(present), q, qdot, mech)


def rigid_system(state, params: RHexParams, task: bool = True) -> ContactSystem:
    """The rigid model's :class:`ContactSystem` at ``state`` (see :func:`rigid_model`)."""
    return rigid_model(state, params, task).system
