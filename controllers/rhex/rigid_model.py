"""Rigid planar RHex model for the controllers (flipping paper, Sec. IV-B.1, Fig. 7, eqs. 35–36).

``rigid_system`` builds, from a compliant-simulator state, the instantaneous
``ContactSystem`` of the rigid model with
``PlanarMechanism`` (rebuilt at every control step):

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
strings then have fewer letters: ``RigidModel.contacts`` lists the contacts present, and
``expand_mode`` maps a model mode to the 4-letter form with ``S`` for omitted toes.

Velocities: body ``(ẋ, ẏ, θ̇)`` as simulated; ``φ̇_i`` is the hip speed of the compliant leg
(rotation rate of the hip→toe vector relative to the body). The leg's radial rate ``ṙ_i`` has no
rigid counterpart; the rigid toe velocity therefore differs from the simulated one by ``ṙ_i u_i``.

Two constructions of the same model
-----------------------------------
``rigid_model`` builds it with the generic ``PlanarMechanism``
(the reference; about 0.5 ms). ``rigid_arrays`` evaluates the same terms in closed form for
this tree — body plus three massless legs, coordinates ``q = (x, y, θ, φ_1, φ_2, φ_3)``:

* ``M = diag(m, m, I, 0, 0, 0)`` (massless legs), ``h = (0, m g, 0, 0, 0, 0)`` (the body frame is
  at its centre of mass, so ``C(q, q̇) q̇ = 0``);
* body corner ``p = (x, y) + R(θ) c``, ``c = (−d, −h)``: ``∂p/∂(x, y, θ) = [I₂, R(θ) c⊥]``
  (``v⊥ = (−v_y, v_x)``), ``J̇q̇ = −θ̇² R(θ) c``;
* toe ``i``: hip ``o_i = (x, y) + R(θ)(d_i, 0)``, toe ``p_i = o_i + r_i (cos β_i, sin β_i)`` with
  ``β_i = θ + φ_i``: ``∂p_i/∂(x, y, θ, φ_i) = [I₂, (o_i − (x, y))⊥ + (p_i − o_i)⊥, (p_i − o_i)⊥]``,
  ``J̇q̇ = −θ̇² (o_i − (x, y)) − (θ̇ + φ̇_i)² (p_i − o_i)``;
* rows in the contact frame ``(t, n) = ((1, 0), (0, 1))`` are the x and y components;
* characteristic scales by ``from_mechanism_data``
  on the points the mechanism uses (body centre, hips, contact points).

``analytic_model`` packs them into the same ``RigidModel`` (without the mechanism); the
controllers use it, ``tests/controllers/rhex/test_rhex_model.py`` checks it against ``rigid_model`` to 1e-12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from contactmodes.model.mechanism import PlanarMechanism
from contactmodes.model.system import CharacteristicScales, ContactSystem, LinearConstraint

from .params import RHexParams
from .simulator import LegKinematics, body_corners, leg_kinematics

__all__ = ["RigidArrays", "RigidModel", "analytic_model", "rigid_arrays", "rigid_model", "rigid_system", "expand_mode",
           "task_constraint", "CONTACT_NAMES", "COORDINATES", "TORQUES", "PITCH_INDEX"]

CONTACT_NAMES = ("body", "toe1", "toe2", "toe3")
"""All rigid-model contacts, in order."""
PITCH_INDEX = 2
"""Index of θ in the rigid model's coordinates ``(x, y, theta, phi1, phi2, phi3)``."""
COORDINATES = ("x", "y", "theta", "phi1", "phi2", "phi3")
"""The rigid model's generalized coordinates."""
TORQUES = ("tau1", "tau2", "tau3")
"""The rigid model's actuators (hip torques on ``phi1..phi3``)."""


@dataclass(frozen=True)
class RigidModel:
    """A rigid model at one state.

    Attributes
    ----------
    system : ContactSystem
        The model (SI units; coordinates ``COORDINATES``, torques ``TORQUES``).
    contacts : tuple
        The contact names present (subset of ``CONTACT_NAMES``, in order).
    q : numpy.ndarray
        ``(6,)`` configuration ``(x, y, θ, φ_1, φ_2, φ_3)`` (m, rad).
    qdot : numpy.ndarray
        ``(6,)`` velocity (m/s, rad/s).
    mechanism : PlanarMechanism or None
        The mechanism it was built with (``rigid_model``), ``None`` from ``analytic_model``.
    """

    system: ContactSystem
    contacts: tuple
    q: np.ndarray
    qdot: np.ndarray
    mechanism: PlanarMechanism | None = None


def expand_mode(mode: str, contacts) -> str:
    """4-letter mode (body, toe1, toe2, toe3) from a mode over ``contacts``; omitted toes get ``S``.

    Parameters
    ----------
    mode : str
        One letter per present contact.
    contacts : Sequence[str]
        The present contacts (``RigidModel.contacts``).

    Returns
    -------
    str
        Four letters.
    """
    letters = dict(zip(contacts, mode))
    return "".join(letters.get(c, "S") for c in CONTACT_NAMES)


def rigid_model(state, params: RHexParams, task: bool = True) -> RigidModel:
    """Build the rigid model at simulator ``state``; see the module docstring.

    Parameters
    ----------
    state : array_like
        ``(18,)`` (``controllers.rhex.simulator.STATE_LAYOUT``, SI).
    params : RHexParams
        The robot and the ground.
    task : bool, optional
        Add the task row ``f_n(body) >= min_body_normal_force`` (eq. 17/18, Sec. IV-B.2).

    Returns
    -------
    RigidModel
        SI units, with its mechanism.

    Raises
    ------
    ValueError
        For a bad state, or a tilted-gravity model (``params.slope != 0``); contactmodes errors
        propagate.
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
    cons = [task_constraint(len(present), p)] if task else []
    system = mech.contact_system(q, qdot, constraints=cons)
    return RigidModel(system, tuple(present), q, qdot, mech)


def task_constraint(k: int, params: RHexParams) -> LinearConstraint:
    """The task row ``f_n(body) >= params.min_body_normal_force`` (N).

    Parameters
    ----------
    k : int
        The model's number of contacts (the body corner first).
    params : RHexParams
        Its ``min_body_normal_force`` (N).

    Returns
    -------
    LinearConstraint
        A ``"task"`` ``"geq"`` block of one row over ``(q̈, f, τ)``.
    """
    f = np.zeros((1, 2 * k))
    f[0, 1] = 1.0
    return LinearConstraint(kind="task", type="geq", qdd=np.zeros((1, 6)), f=f, tau=np.zeros((1, 3)),
                            rhs=np.array([params.min_body_normal_force]),
                            name=f"f_n(body) >= {params.min_body_normal_force:g}")


@dataclass(frozen=True)
class RigidArrays:
    """The rigid model's terms at one state in closed form (module doc), SI units.

    Attributes
    ----------
    contacts : tuple
        Names present (subset of ``CONTACT_NAMES``, ``k`` of them).
    q : numpy.ndarray
        ``(6,)`` (m, rad).
    qdot : numpy.ndarray
        ``(6,)`` (m/s, rad/s).
    M : numpy.ndarray
        ``(6, 6)`` ``diag(m, m, I, 0, 0, 0)`` (kg, kg·m²).
    h : numpy.ndarray
        ``(6,)`` (N, N·m).
    J : numpy.ndarray
        ``(2k, 6)`` rows ``(t, n)`` per contact.
    Jdot_qdot : numpy.ndarray
        ``(2k,)`` (m/s²).
    v_contact : numpy.ndarray
        ``(2k,)`` ``J q̇`` (m/s).
    mu : numpy.ndarray
        ``(k,)`` friction coefficients.
    v0 : numpy.ndarray
        ``(k,)`` velocity thresholds (m/s).
    scales : CharacteristicScales
        The mechanism's scales.
    """

    contacts: tuple
    q: np.ndarray
    qdot: np.ndarray
    M: np.ndarray
    h: np.ndarray
    J: np.ndarray
    Jdot_qdot: np.ndarray
    v_contact: np.ndarray
    mu: np.ndarray
    v0: np.ndarray
    scales: CharacteristicScales


def rigid_arrays(state, params: RHexParams, kinematics: LegKinematics | None = None) -> RigidArrays:
    """Closed-form rigid model (module doc) at simulator ``state``.

    The same numbers as ``rigid_model``'s mechanism, in a few microseconds' worth of arithmetic.

    Parameters
    ----------
    state : array_like
        ``(18,)`` (``controllers.rhex.simulator.STATE_LAYOUT``, SI).
    params : RHexParams
        The robot and the ground.
    kinematics : LegKinematics, optional
        ``leg_kinematics`` of ``state`` when the caller has it already.

    Returns
    -------
    RigidArrays
        SI units.

    Raises
    ------
    ValueError
        For a bad state or a tilted-gravity model (``params.slope != 0``).
    """
    p = params
    if p.slope != 0.0:
        raise ValueError("rigid_system: a tilted-gravity (slope) model is not supported by PlanarMechanism")
    st = np.asarray(state, dtype=float)
    lk = leg_kinematics(st, p) if kinematics is None else kinematics
    # per control step: Python floats and lists (the same numbers as the NumPy forms, fewer calls)
    x, y, th, vx, vy, om = st[:6].tolist()
    c, s = math.cos(th), math.sin(th)
    phi, phidot, r = lk.phi.tolist(), lk.phidot.tolist(), lk.r.tolist()
    present = ["body"]
    toes = [i for i in range(3) if st[7 + 2 * i] <= p.toe_clearance]
    present += [CONTACT_NAMES[i + 1] for i in toes]
    k = len(present)
    J = np.zeros((2 * k, 6))
    a = np.zeros(2 * k)
    # body corner: c_w = R(θ)(−d, −h)
    cx, cy = -c * p.d + s * p.h, -s * p.d - c * p.h
    J[0, 0] = J[1, 1] = 1.0
    J[0, 2], J[1, 2] = -cy, cx
    a[0], a[1] = -om * om * cx, -om * om * cy
    points = [(x, y), (x + cx, y + cy)]
    speeds = [math.hypot(vx, vy), math.hypot(vx - om * cy, vy + om * cx)]
    mu = [p.mu_body]
    v0 = [p.v0[0]]
    hips = []
    for i, di in enumerate(p.hips):
        ox, oy = c * di, s * di
        hips.append((ox, oy))
        points.append((x + ox, y + oy))
        speeds.append(math.hypot(vx - om * oy, vy + om * ox))
    for row, i in enumerate(toes, start=1):
        ox, oy = hips[i]
        beta = th + phi[i]
        ex, ey = r[i] * math.cos(beta), r[i] * math.sin(beta)
        w = om + phidot[i]
        j = 2 * row
        J[j, 0] = J[j + 1, 1] = 1.0
        J[j, 2], J[j + 1, 2] = -(oy + ey), ox + ex
        J[j, 3 + i], J[j + 1, 3 + i] = -ey, ex
        a[j] = -om * om * ox - w * w * ex
        a[j + 1] = -om * om * oy - w * w * ey
        points.append((x + ox + ex, y + oy + ey))
        speeds.append(math.hypot(vx - om * oy - w * ey, vy + om * ox + w * ex))
        mu.append(p.mu_toe)
        v0.append(p.v0[i + 1])
    q = np.array([x, y, th, *phi])
    qdot = np.array([vx, vy, om, *phidot])
    M = np.zeros((6, 6))  # diag(m, m, I, 0, 0, 0)
    M[0, 0] = M[1, 1] = p.m
    M[2, 2] = p.I
    h = np.array([0.0, p.m * p.gravity, 0.0, 0.0, 0.0, 0.0])
    # the mechanism lists each link's frame origin and centre of mass: body (twice the centre), legs
    # (twice the hip) — duplicates do not change the largest distance
    scales = CharacteristicScales.from_extent(_largest_distance(points), p.m, p.gravity, _largest(speeds))
    return RigidArrays(tuple(present), q, qdot, M, h, J, a, J @ qdot, np.array(mu), np.array(v0), scales)


def _largest_distance(points: list) -> float:
    """The largest distance between two of ``points`` (a list of ``(x, y)``), as
    ``from_mechanism_data`` computes it: the square
    root (correctly rounded, hence monotone) of the largest ``dx·dx + dy·dy``; NaN if a coordinate is."""
    d2 = [(px - qx) * (px - qx) + (py - qy) * (py - qy)
          for i, (px, py) in enumerate(points) for qx, qy in points[i + 1:]]
    return math.sqrt(_largest(d2)) if d2 else 0.0


def _largest(values: list) -> float:
    """``max`` of non-negative floats, NaN when one is NaN (as NumPy's maximum; Python's ``max``
    is order-dependent with NaN)."""
    total = sum(values)  # NaN exactly when a value is NaN (no inf − inf among non-negative values)
    return max(values) if total == total else math.nan


def analytic_model(state, params: RHexParams, task: bool = True) -> RigidModel:
    """``rigid_model`` from the closed-form terms of ``rigid_arrays`` (``mechanism`` is ``None``).

    The same ``ContactSystem`` to rounding.

    Parameters
    ----------
    state : array_like
        ``(18,)`` (SI).
    params : RHexParams
        The robot and the ground.
    task : bool, optional
        Add the task row (``task_constraint``).

    Returns
    -------
    RigidModel
        SI units.

    Raises
    ------
    ValueError
        As ``rigid_arrays``.
    """
    ra = rigid_arrays(state, params)
    cons = (task_constraint(len(ra.contacts), params),) if task else ()
    system = ContactSystem(M=ra.M, h=ra.h, S=np.vstack([np.zeros((3, 3)), np.eye(3)]), J=ra.J,
                           Jdot_qdot=ra.Jdot_qdot, v_contact=ra.v_contact, mu=ra.mu, coordinates=COORDINATES,
                           torques=TORQUES, contacts=ra.contacts, v0=ra.v0, constraints=cons, name="rhex_rigid",
                           scales=ra.scales)
    return RigidModel(system, ra.contacts, ra.q, ra.qdot, None)


def rigid_system(state, params: RHexParams, task: bool = True) -> ContactSystem:
    """The rigid model's ``ContactSystem`` at ``state`` (see ``rigid_model``).

    Parameters
    ----------
    state : array_like
        ``(18,)`` (SI).
    params : RHexParams
        The robot and the ground.
    task : bool, optional
        Add the task row.

    Returns
    -------
    ContactSystem
        SI units.

    Raises
    ------
    ValueError
        As ``rigid_model``.
    """
    return rigid_model(state, params, task).system
