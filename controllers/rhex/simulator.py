"""Compliant planar RHex simulator (flipping paper, Sec. IV-C.1, Fig. 8, Table IV).

Model
-----
* Rigid body (mass ``m``, pitch inertia ``I``, rectangle ``2d × 2h``), pose ``(x, y, θ)`` of its
  centre of mass, gravity ``params.gravity_vector``.
* Three massless legs, radial spring–dampers (``k_l``, ``d_l``, rest length ``l``) from the hip
  (body frame ``(d_i, 0)``) to a toe point mass ``m_t``. The hip torque ``τ_i`` acts on the leg;
  the massless leg transmits it as a tangential force ``τ_i / r_i`` on the toe (``r_i`` the
  current leg length, direction ``u⊥ = (−u_y, u_x)``, ``u`` the unit hip→toe vector), with the
  equal and opposite force on the body at the hip and the reaction moment ``−τ_i`` on the body.
* Toe–ground (``y = 0``): rigid unilateral contact with Coulomb friction ``mu_toe``. Because a toe
  is a point mass the single-contact Coulomb problem is well posed (no Painlevé paradox). It is
  solved exactly per time step at the velocity level (Moreau/Stewart–Trinkle time stepping): the
  contact impulse ``P = (P_t, P_n)`` satisfies ``P_n >= 0``, ``|P_t| <= μ P_n``, complementarity
  with the end-of-step normal gap, and maximal dissipation. Stiction is exact: a sticking toe's
  tangential velocity is set to exactly zero, so a toe pushed below ``μ f_n`` does not creep
  (no regularized/viscous friction law).
* Body–ground: penetration force at the four body corners (the lowest point of a rectangle on flat
  ground is always a corner), normal ``F_n = max(0, −k_b y_c − d_b ẏ_c)`` while ``y_c < 0`` (never
  pulling), horizontal force pure Coulomb ``|F_t| <= mu_body F_n``, again exact stick/slip at the
  velocity level (impulses ``|P_t| <= μ F_n dt`` chosen to stop the corner if possible;
  projected Gauss–Seidel over the penetrating corners).

Numerics: fixed-step semi-implicit (symplectic) Euler with step ``params.sim_dt`` (default
1e-4 s, ten steps per 1 kHz control period). The stiff leg damper on the light toe
(``d_l/m_t = 10⁴ s⁻¹``) is integrated implicitly (closed form, it acts along ``u`` only); the rest
is explicit (``ω dt <= 0.1`` for every remaining mode with the Table IV numbers).
Convergence is tested (``tests/controllers/rhex/test_rhex_sim.py``: halving ``dt`` changes the state after 0.1 s
of full thrust by < 1 mm / 5 mrad).

State vector (18,), SI units (``STATE_LAYOUT``):

    [x, y, θ, ẋ, ẏ, θ̇,  toe1_x, toe1_y, toe2_x, toe2_y, toe3_x, toe3_y,
     toe1_ẋ, toe1_ẏ, toe2_ẋ, toe2_ẏ, toe3_ẋ, toe3_ẏ]

Contact modes reported per control step (4 letters: body = rear bottom corner, toe1..3), letters per
``docs/conventions.md`` with the ground tangent ``t = (1, 0)``: ``S`` no force, ``F`` stuck (the
friction impulse inside the cone), ``R`` sliding towards ``+x``, ``L`` towards ``−x``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .limits import torque_limits
from .params import RHexParams

__all__ = [
    "STATE_LAYOUT",
    "ControlOutput",
    "LegKinematics",
    "SimulationResult",
    "StepInfo",
    "body_corners",
    "energy",
    "initial_state",
    "leg_kinematics",
    "simulate",
    "step",
    "toe_contact_impulse",
]

STATE_LAYOUT = (
    "x", "y", "theta", "vx", "vy", "omega",
    "toe1_x", "toe1_y", "toe2_x", "toe2_y", "toe3_x", "toe3_y",
    "toe1_vx", "toe1_vy", "toe2_vx", "toe2_vy", "toe3_vx", "toe3_vy",
)
N_STATE = len(STATE_LAYOUT)

_CORNERS = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))  # × (d, h); index 0 = rear bottom


@dataclass(frozen=True)
class ControlOutput:
    """What a controller returns.

    Attributes
    ----------
    torque : numpy.ndarray
        ``(3,)`` hip torques (N·m).
    mode : str or None
        The contact mode it assumed or chose (4 letters body/toe1/toe2/toe3), or ``None``.
    predicted_pitch_acc : float or None
        Its predicted pitch acceleration θ̈ (rad/s²), or ``None``.
    """

    torque: np.ndarray
    mode: Optional[str] = None
    predicted_pitch_acc: Optional[float] = None


@dataclass(frozen=True)
class LegKinematics:
    """Leg geometry at a state; all arrays have first dimension 3 (rear, middle, front).

    Attributes
    ----------
    hip : numpy.ndarray
        ``(3, 2)`` world hip positions (m).
    hip_vel : numpy.ndarray
        ``(3, 2)`` hip velocities (m/s).
    r : numpy.ndarray
        ``(3,)`` leg lengths (m).
    rdot : numpy.ndarray
        ``(3,)`` leg length rates (m/s).
    beta : numpy.ndarray
        ``(3,)`` absolute leg angles (rad, from ``+x``, counter-clockwise).
    phi : numpy.ndarray
        ``(3,)`` hip angles relative to the body, ``β − θ`` wrapped to ``(−π, π]`` (rad).
    phidot : numpy.ndarray
        ``(3,)`` hip speeds ``β̇ − θ̇`` (rad/s).
    """

    hip: np.ndarray
    hip_vel: np.ndarray
    r: np.ndarray
    rdot: np.ndarray
    beta: np.ndarray
    phi: np.ndarray
    phidot: np.ndarray


@dataclass
class StepInfo:
    """Per-step contact information.

    Attributes
    ----------
    modes : str
        4 letters (body = rear bottom corner, toe1..3).
    toe_normal_impulse : numpy.ndarray
        ``(3,)`` (N·s).
    corner_normal_force : numpy.ndarray
        ``(4,)`` (N), corners as ``body_corners``.
    body_normal_force : float
        Their total (N).
    """

    modes: str
    toe_normal_impulse: np.ndarray
    corner_normal_force: np.ndarray
    body_normal_force: float


@dataclass
class SimulationResult:
    """Output of ``simulate``; ``N`` control steps.

    Attributes
    ----------
    times : numpy.ndarray
        ``(N+1,)`` (s).
    states : numpy.ndarray
        ``(N+1, 18)`` (``STATE_LAYOUT``, SI).
    torques : numpy.ndarray
        ``(N, 3)`` applied hip torques (N·m, after motor saturation).
    commanded : numpy.ndarray
        ``(N, 3)`` the controller's torques before saturation (N·m).
    sim_modes : list
        ``(N,)`` simulated contact modes (4 letters, body/toe1/toe2/toe3) over each step.
    controller_modes : list
        ``(N,)`` the controller's modes (``None`` allowed).
    predicted_pitch_acc : numpy.ndarray
        ``(N,)`` the controller's predictions (rad/s², NaN when ``None``).
    pitch_acc : numpy.ndarray
        ``(N,)`` simulated mean pitch acceleration over each control period (rad/s²).
    outcome : str
        ``"flipped"``, ``"fell_back"``, ``"timeout"`` or ``"interrupted"``.
    success : bool
        ``outcome == "flipped"``.
    flip_time : float or None
        When the pitch reached 90° with positive pitch rate (s), else ``None``.
    wall_time : float
        Wall time of the run (s).
    params : RHexParams
        The parameters as run.
    """

    times: np.ndarray
    states: np.ndarray
    torques: np.ndarray
    commanded: np.ndarray
    sim_modes: list
    controller_modes: list
    predicted_pitch_acc: np.ndarray
    pitch_acc: np.ndarray
    outcome: str
    success: bool
    flip_time: Optional[float]
    wall_time: float
    params: RHexParams = field(repr=False, default=None)

    @property
    def pitch(self) -> np.ndarray:
        """(N+1,) body pitch θ (rad)."""
        return self.states[:, 2]


# ------------------------------------------------------------------------------------- kinematics


def body_corners(state, params: RHexParams) -> np.ndarray:
    """(4, 2) world positions (m) of the body corners: rear-bottom, front-bottom, front-top, rear-top.

    Parameters
    ----------
    state : numpy.ndarray
        ``(18,)`` (``STATE_LAYOUT``, SI).
    params : RHexParams
        The body's half sizes ``d``, ``h``.

    Returns
    -------
    numpy.ndarray
        ``(4, 2)`` (m).
    """
    x, y, th = state[0], state[1], state[2]
    c, s = math.cos(th), math.sin(th)
    out = np.empty((4, 2))
    for k, (a, b) in enumerate(_CORNERS):
        bx, by = a * params.d, b * params.h
        out[k] = (x + c * bx - s * by, y + s * bx + c * by)
    return out


def leg_kinematics(state, params: RHexParams) -> LegKinematics:
    """Leg geometry and hip speeds (``LegKinematics``) at ``state`` (18,).

    Parameters
    ----------
    state : array_like
        ``(18,)`` (``STATE_LAYOUT``, SI).
    params : RHexParams
        The hips' positions.

    Returns
    -------
    LegKinematics
        SI units.

    Raises
    ------
    ValueError
        When ``state`` is not of shape ``(18,)``.
    """
    state = np.asarray(state, dtype=float)
    if state.shape != (N_STATE,):
        raise ValueError(f"state: expected shape ({N_STATE},), got {state.shape}")
    # per control step, so few NumPy calls: the arithmetic on Python floats, in the order of the
    # componentwise formulas (the same numbers); hypot, arctan2 and exp stay NumPy's
    x, y, th, vx, vy, om = state[:6].tolist()
    c, s = math.cos(th), math.sin(th)
    tv = state[6:18].tolist()  # toes (x, y), then their velocities
    hip, hip_vel, rows = [], [], []
    for i, di in enumerate(params.hips):
        hx, hy, omd = x + di * c, y + di * s, om * di
        hvx, hvy = vx - omd * s, vy + omd * c
        hip.append((hx, hy))
        hip_vel.append((hvx, hvy))
        rows.append((tv[2 * i] - hx, tv[2 * i + 1] - hy, tv[6 + 2 * i] - hvx, tv[7 + 2 * i] - hvy))
    er = np.array(rows)  # (3, 4): e = toe − hip, rel = toe velocity − hip velocity
    ex, ey = er[:, 0], er[:, 1]
    r = np.hypot(ex, ey)
    beta = np.arctan2(ey, ex)
    z = np.exp(1j * (beta - th))
    phi = np.arctan2(z.imag, z.real)  # np.angle(z): β − θ wrapped
    rdot, phidot = [], []
    for (e_x, e_y, rel_x, rel_y), ri in zip(rows, r.tolist()):
        rdot.append((e_x * rel_x + e_y * rel_y + 0.0) / ri)  # e·rel / r (+ 0.0: a zero sum is +0, as np.sum's)
        phidot.append((e_x * rel_y - e_y * rel_x) / (ri * ri) - om)  # β̇ − θ̇
    return LegKinematics(np.array(hip), np.array(hip_vel), r, np.array(rdot), beta, phi, np.array(phidot))


def energy(state, params: RHexParams) -> float:
    """Total mechanical energy (J): kinetic + gravitational (``params.gravity_vector``) + leg
    springs + body penetration springs.

    Parameters
    ----------
    state : array_like
        ``(18,)`` (``STATE_LAYOUT``, SI).
    params : RHexParams
        Masses, springs, gravity.

    Returns
    -------
    float
        Energy (J).
    """
    st = np.asarray(state, dtype=float)
    gv = params.gravity_vector
    ke = 0.5 * params.m * (st[3] ** 2 + st[4] ** 2) + 0.5 * params.I * st[5] ** 2
    ke += 0.5 * params.m_t * float(np.sum(st[12:18] ** 2))
    pe = -params.m * (gv[0] * st[0] + gv[1] * st[1])
    toes = st[6:12].reshape(3, 2)
    pe += -params.m_t * float(np.sum(toes @ gv))
    lk = leg_kinematics(st, params)
    pe += 0.5 * params.k_l * float(np.sum((lk.r - params.l) ** 2))
    pen = np.minimum(body_corners(st, params)[:, 1], 0.0)
    pe += 0.5 * params.k_b * float(np.sum(pen**2))
    return float(ke + pe)


def initial_state(params: RHexParams | None = None, legs: str = "forward") -> np.ndarray:
    """Static equilibrium at the start of a flip, (18,).

    The body lies flat (θ = 0) on its two bottom corners, sunk by the penetration
    ``δ = m g_n / (2 k_b)`` that carries its weight (about 4.2 mm); every toe rests on the ground at
    rest leg length ``l`` (no leg force, the toes' weight carried by the ground), so with zero
    torque nothing moves: an exact equilibrium, no settling run needed.

    ``legs="forward"`` (default): toes ahead of (``+x`` of) their hips, legs pointing down and
    forward; thrusting with negative (clockwise) hip torques sweeps the toes down and back, which
    lifts the nose with the body sliding forward and the front toes backward — the sliding
    directions of the paper's blind models (Sec. IV-A). ``legs="back"``: toes behind the hips, as
    in ``examples/rhex_flip_start.toml`` (there with the body already pitched 10°).

    Parameters
    ----------
    params : RHexParams, optional
        Default ``RHexParams()``.
    legs : str, optional
        ``"forward"`` or ``"back"``.

    Returns
    -------
    numpy.ndarray
        ``(18,)`` (``STATE_LAYOUT``, SI).

    Raises
    ------
    ValueError
        For legs too short to reach the ground, or an unknown ``legs``.
    """
    p = params or RHexParams()
    gn = -p.gravity_vector[1]
    delta = p.m * gn / (2.0 * p.k_b)
    st = np.zeros(N_STATE)
    st[1] = p.h - delta
    hy = st[1]
    if hy >= p.l:
        raise ValueError("initial_state: legs too short to reach the ground")
    reach = math.sqrt(p.l**2 - hy**2)
    sign = {"forward": 1.0, "back": -1.0}.get(legs)
    if sign is None:
        raise ValueError(f"legs: must be 'forward' or 'back', got {legs!r}")
    for i, di in enumerate(p.hips):
        st[6 + 2 * i] = di + sign * reach
        st[7 + 2 * i] = 0.0
    return st


# ------------------------------------------------------------------------------------- contact


def toe_contact_impulse(v_free, u, m_t: float, c_damp: float, target_n: float, mu: float):
    """Exact single-point Coulomb contact impulse for one toe step.

    The toe's end-of-step velocity is ``v⁺ = v_free + W P`` with the (anisotropic, because the leg
    damper is implicit) inverse mass ``W = (I − c u uᵀ)/m_t``, ``c_damp = c = dt·d_l/(m_t + dt·d_l)``.
    Solves: ``P_n >= 0``, ``v⁺_n >= target_n`` with complementarity, and Coulomb
    ``|P_t| <= μ P_n``, stick (``v⁺_t = 0``) when inside the cone, else sliding with
    ``P_t = −sign(v⁺_t) μ P_n``. Returns ``(v⁺ (2,), P (2,), letter)`` with letter ``S``/``F``/``L``/``R``.

    Parameters
    ----------
    v_free : array_like
        ``(2,)`` the toe's end-of-step velocity without contact (m/s).
    u : array_like
        ``(2,)`` the unit hip→toe vector.
    m_t : float
        Toe mass (kg).
    c_damp : float
        ``dt·d_l/(m_t + dt·d_l)`` (dimensionless).
    target_n : float
        The end-of-step normal velocity that closes the gap (m/s).
    mu : float
        Toe friction coefficient.

    Returns
    -------
    v_plus : numpy.ndarray
        ``(2,)`` end-of-step velocity (m/s).
    P : numpy.ndarray
        ``(2,)`` contact impulse ``(P_t, P_n)`` (N·s).
    letter : str
        ``"S"``, ``"F"``, ``"L"`` or ``"R"``.
    """
    vfx, vfy = float(v_free[0]), float(v_free[1])
    ux, uy = float(u[0]), float(u[1])
    if vfy >= target_n:
        return np.array([vfx, vfy]), np.zeros(2), "S"
    inv_m = 1.0 / m_t
    W = np.array([[1.0 - c_damp * ux * ux, -c_damp * ux * uy], [-c_damp * ux * uy, 1.0 - c_damp * uy * uy]]) * inv_m
    # stick
    dv = np.array([-vfx, target_n - vfy])
    P = np.linalg.solve(W, dv)
    if P[1] >= 0.0 and abs(P[0]) <= mu * P[1] * (1.0 + 1e-12):
        return np.array([0.0, target_n]), P, "F"
    best = None
    for s in (1.0, -1.0):  # s = sign of the sliding velocity v⁺_t
        dirv = np.array([-s * mu, 1.0])
        wd = W @ dirv
        if wd[1] <= 0.0:
            continue
        pn = (target_n - vfy) / wd[1]
        if pn < 0.0:
            continue
        vt = vfx + wd[0] * pn
        cand = (np.array([vt, target_n]), pn * dirv, "R" if s > 0 else "L")
        if s * vt >= -1e-12:
            return cand
        if best is None:
            best = cand
    if best is None:  # cannot happen for positive-definite W; keep the toe out of the ground
        pn = (target_n - vfy) / W[1, 1]
        return np.array([vfx + W[0, 1] * pn, target_n]), np.array([0.0, pn]), "F"
    return best


def step(state, tau, params: RHexParams, dt: float | None = None, info: bool = False):
    """Advance ``state`` (18,) by one time step ``dt`` (default ``params.sim_dt``) under hip
    torques ``tau`` (3,) (N·m, applied as given). Returns the new state, and with ``info=True`` also
    a ``StepInfo``. See the module docstring for the scheme.

    Parameters
    ----------
    state : numpy.ndarray
        ``(18,)`` (``STATE_LAYOUT``, SI).
    tau : array_like
        ``(3,)`` hip torques (N·m).
    params : RHexParams
        The model's parameters.
    dt : float, optional
        Time step (s).
    info : bool, optional
        Also return a ``StepInfo``.

    Returns
    -------
    numpy.ndarray or tuple[numpy.ndarray, StepInfo]
        The new state ``(18,)``, and with ``info`` the step's contact information.
    """
    p = params
    dt = p.sim_dt if dt is None else dt
    st = state
    x, y, th, vx, vy, om = (float(v) for v in st[:6])
    gx, gy = (float(v) for v in p.gravity_vector)
    c, s = math.cos(th), math.sin(th)
    m_t, k_l, d_l, l0 = p.m_t, p.k_l, p.d_l, p.l
    cd = dt * d_l / (m_t + dt * d_l)
    new = np.empty(N_STATE)
    Fx, Fy, Mz = p.m * gx, p.m * gy, 0.0
    letters = []
    toe_pn = np.zeros(3)
    for i, di in enumerate(p.hips):
        hx, hy = x + di * c, y + di * s
        hvx, hvy = vx - om * di * s, vy + om * di * c
        px, py = float(st[6 + 2 * i]), float(st[7 + 2 * i])
        tvx, tvy = float(st[12 + 2 * i]), float(st[13 + 2 * i])
        ex, ey = px - hx, py - hy
        r = math.hypot(ex, ey)
        ux, uy = ex / r, ey / r
        upx, upy = -uy, ux
        ti = float(tau[i])
        fs = -k_l * (r - l0)
        uvh = ux * hvx + uy * hvy
        bx = m_t * tvx + dt * ((fs + d_l * uvh) * ux + ti / r * upx + m_t * gx)
        by = m_t * tvy + dt * ((fs + d_l * uvh) * uy + ti / r * upy + m_t * gy)
        ub = ux * bx + uy * by
        vfx, vfy = (bx - cd * ux * ub) / m_t, (by - cd * uy * ub) / m_t
        target = -py / dt
        if py + dt * vfy >= 0.0:
            v1x, v1y, letter = vfx, vfy, "S"
        else:
            v1, P, letter = toe_contact_impulse((vfx, vfy), (ux, uy), m_t, cd, target, p.mu_toe)
            v1x, v1y = float(v1[0]), float(v1[1])
            toe_pn[i] = P[1]
        letters.append(letter)
        # leg force on the toe with the end-of-step (implicit) damper velocity
        fr = fs - d_l * (ux * (v1x - hvx) + uy * (v1y - hvy))
        flx, fly = fr * ux + ti / r * upx, fr * uy + ti / r * upy
        Fx -= flx
        Fy -= fly
        Mz += (hx - x) * (-fly) - (hy - y) * (-flx) - ti
        new[12 + 2 * i], new[13 + 2 * i] = v1x, v1y
        new[6 + 2 * i], new[7 + 2 * i] = px + dt * v1x, py + dt * v1y
    # body–ground penetration
    corner_fn = np.zeros(4)
    rr = []
    for k, (a, b) in enumerate(_CORNERS):
        bx_, by_ = a * p.d, b * p.h
        rx, ry = c * bx_ - s * by_, s * bx_ + c * by_
        cy = y + ry
        if cy < 0.0:
            vcy = vy + om * rx
            fn = max(0.0, -p.k_b * cy - p.d_b * vcy)
            if fn > 0.0:
                corner_fn[k] = fn
                Fy += fn
                Mz += rx * fn
                rr.append((k, rx, ry, fn))
    vx1, vy1, om1 = vx + dt * Fx / p.m, vy + dt * Fy / p.m, om + dt * Mz / p.I
    # Coulomb friction at the penetrating corners, projected Gauss–Seidel
    acc = {k: 0.0 for k, *_ in rr}
    if rr:
        for _ in range(6 if len(rr) > 1 else 1):
            for k, rx, ry, fn in rr:
                vt = vx1 - om1 * ry
                winv = 1.0 / p.m + ry * ry / p.I
                bound = p.mu_body * fn * dt
                newP = min(bound, max(-bound, acc[k] - vt / winv))
                dP = newP - acc[k]
                acc[k] = newP
                vx1 += dP / p.m
                om1 += -ry * dP / p.I
    new[0], new[1], new[2] = x + dt * vx1, y + dt * vy1, th + dt * om1
    new[3], new[4], new[5] = vx1, vy1, om1
    if not info:
        return new
    # body letter from the rear bottom corner (the rigid model's body contact)
    if corner_fn[0] <= 0.0:
        bl = "S"
    else:
        bound = p.mu_body * corner_fn[0] * dt
        ry0 = s * (-p.d) + c * (-p.h)
        vt0 = vx1 - om1 * ry0
        if abs(acc[0]) < bound * (1.0 - 1e-9) or abs(vt0) < 1e-9:
            bl = "F"
        else:
            bl = "R" if vt0 > 0 else "L"
    return new, StepInfo(bl + "".join(letters), toe_pn, corner_fn, float(corner_fn.sum()))


# ------------------------------------------------------------------------------------- driver


def _hip_speeds(state, params):
    return leg_kinematics(state, params).phidot


def simulate(
    controller: Callable,
    params: RHexParams | None = None,
    duration: float = 2.0,
    initial_state: np.ndarray | None = None,
    progress: Callable[[float], None] | None = None,
    progress_every: float = 0.1,
    stop_on_outcome: bool = True,
    saturate: bool = True,
) -> SimulationResult:
    """Run the compliant model under ``controller`` at ``params.control_rate`` (zero-order hold).

    ``controller(t, state, params) -> ControlOutput`` (a bare (3,) array is accepted as the torque).
    Torques are saturated at the motor limit (``torque_limits`` at the
    hip speeds at the start of the period) when ``saturate``. ``progress(t)`` is called every
    ``progress_every`` s of simulated time. Ctrl-C ends the run cleanly (outcome ``"interrupted"``).

    Outcome: ``"flipped"`` when the pitch reaches 90° with positive pitch rate; ``"fell_back"``
    when, after lifting (pitch above 2°), the pitch returns to <= 0; else ``"timeout"`` at
    ``duration``. With ``stop_on_outcome`` the run stops at the first outcome.
    Raises ``ValueError`` for a bad initial state or duration.

    Parameters
    ----------
    controller : Callable
        ``controller(t, state, params) -> ControlOutput`` (a bare ``(3,)`` array is accepted as the
        torque, N·m).
    params : RHexParams, optional
        Default ``RHexParams()``.
    duration : float, optional
        Simulated time (s), ``> 0``.
    initial_state : numpy.ndarray, optional
        ``(18,)``; default ``initial_state(params)``.
    progress : Callable[[float], None], optional
        Called with the simulated time (s).
    progress_every : float, optional
        Seconds of simulated time between calls of ``progress``.
    stop_on_outcome : bool, optional
        Stop at the first outcome.
    saturate : bool, optional
        Clip the torques at the motor limit.

    Returns
    -------
    SimulationResult
        The run.

    Raises
    ------
    ValueError
        For a bad initial state or duration, or a non-finite controller torque.
    FloatingPointError
        When the simulation diverges.
    """
    p = params or RHexParams()
    if not (duration > 0):
        raise ValueError(f"duration: must be positive, got {duration}")
    st = _init(p) if initial_state is None else np.array(initial_state, dtype=float)
    if st.shape != (N_STATE,) or not np.all(np.isfinite(st)):
        raise ValueError(f"initial_state: expected a finite ({N_STATE},) array")
    Tc = p.control_period
    nsub = int(round(Tc / p.sim_dt))
    n_steps = int(round(duration / Tc))
    times, states = [0.0], [st.copy()]
    torques, commanded, modes, cmodes, pred, pacc = [], [], [], [], [], []
    outcome, flip_time = "timeout", None
    lifted = False
    next_progress = progress_every
    wall0 = time.perf_counter()
    try:
        for j in range(n_steps):
            t = j * Tc
            out = controller(t, st.copy(), p)
            if not isinstance(out, ControlOutput):
                out = ControlOutput(np.asarray(out, dtype=float))
            cmd = np.asarray(out.torque, dtype=float).reshape(3)
            if not np.all(np.isfinite(cmd)):
                raise ValueError(f"controller returned non-finite torque {cmd} at t={t:g}")
            tau = cmd
            if saturate:
                lo, hi = torque_limits(_hip_speeds(st, p), p)
                tau = np.clip(cmd, lo, hi)
            om0 = st[5]
            for k in range(nsub):
                if k == nsub - 1:
                    st, inf = step(st, tau, p, info=True)
                else:
                    st = step(st, tau, p)
            if not np.all(np.isfinite(st)):
                raise FloatingPointError(f"simulation diverged at t={t + Tc:g}")
            times.append((j + 1) * Tc)
            states.append(st.copy())
            torques.append(tau)
            commanded.append(cmd)
            modes.append(inf.modes)
            cmodes.append(out.mode)
            pred.append(np.nan if out.predicted_pitch_acc is None else float(out.predicted_pitch_acc))
            pacc.append((st[5] - om0) / Tc)
            if st[2] > math.radians(2.0):
                lifted = True
            if flip_time is None and st[2] >= math.pi / 2 and st[5] > 0:
                flip_time = (j + 1) * Tc
                outcome = "flipped"
                if stop_on_outcome:
                    break
            if outcome == "timeout" and lifted and st[2] <= 0.0:
                outcome = "fell_back"
                if stop_on_outcome:
                    break
            if progress is not None and (j + 1) * Tc >= next_progress - 1e-12:
                progress((j + 1) * Tc)
                next_progress += progress_every
    except KeyboardInterrupt:
        outcome = "interrupted"
    return SimulationResult(
        times=np.array(times),
        states=np.array(states),
        torques=np.array(torques).reshape(-1, 3),
        commanded=np.array(commanded).reshape(-1, 3),
        sim_modes=modes,
        controller_modes=cmodes,
        predicted_pitch_acc=np.array(pred),
        pitch_acc=np.array(pacc),
        outcome=outcome,
        success=outcome == "flipped",
        flip_time=flip_time,
        wall_time=time.perf_counter() - wall0,
        params=p,
    )


_init = initial_state
