"""Parameters of the planar RHex flipping model (flipping paper, Sec. IV, Table IV).

One frozen dataclass, :class:`RHexParams`, shared by the compliant simulator
(:mod:`controllers.rhex.simulator`), the rigid model (:mod:`controllers.rhex.rigid_model`), the
torque limits (:mod:`controllers.rhex.limits`) and the controllers. SI units throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["RHexParams"]


@dataclass(frozen=True)
class RHexParams:
    """Planar RHex (flipping paper, Fig. 7/8 and Table IV; ``shared/reference/rhex.md``).

    Geometry and inertia (Table IV)
        ``d`` half body length (m), ``h`` half body height (m), ``m`` body mass (kg), ``I`` body
        pitch inertia (kg·m²), ``hips`` = (d1, d2, d3) hip positions on the body midline (m, body
        frame, rear → front), ``l`` leg rest length (m).
    Compliant simulator only (Sec. IV-C.1, Table IV)
        ``m_t`` toe point mass (kg), ``k_b``/``d_b`` body–ground penetration stiffness (N/m) and
        damping (N·s/m), ``k_l``/``d_l`` radial leg stiffness (N/m) and damping (N·s/m).
    Friction
        ``mu_toe`` toe–ground (0.39 "linoleum", 0.6 "asphalt" in the paper; default 0.6),
        ``mu_body`` body–ground: **our choice 0.3** (the paper gives no value; same as
        ``examples/rhex_flip_start.toml``).
    ``gravity`` (m/s²): magnitude of gravity. ``slope`` (rad): tilts gravity to model a ground
        rising towards +x (gravity = g·(−sin slope, −cos slope)); 0 for flat ground.
    Velocity thresholds ``v0`` (m/s), per rigid-model contact (body, toe1, toe2, toe3): the paper's
        v1 = 0.08 (rear toe), v2 = v3 = 0.001 (Sec. IV-C.3); body 0.001 (our choice).
    Torque limits (``rhex.md``; Johnson thesis Table 2.2, Research RHex drive)
        ``tau_stall`` = 2 × 8.1 = 16.2 N·m per planar leg (one planar leg = two motors, achievable
        current-limited stall torque), ``omega_noload`` = 43.1 rad/s (412 rpm); limit
        ``|τ| <= tau_stall·max(0, 1 − |ω|/omega_noload)`` with ω the hip speed (leg angular velocity
        relative to the body).
    Task / controller settings
        ``min_body_normal_force`` (N): task constraint f_n(body) >= this in the rigid model
        (Sec. IV-B.2, "a manually chosen threshold"): our choice 5 N, as in the example file.
        ``thrust_stop_pitch`` (rad): controllers stop thrusting (zero torque) once the pitch
        exceeds this: our choice 60° — by then the rear-corner pivot has carried the body past
        most of the thrust geometry (the front and middle legs have left the ground).
        ``control_rate`` (Hz): 1000 (zero-order hold).
        ``toe_clearance`` (m): a toe more than this above the ground is left out of the rigid
        model's contacts (our choice 5 mm).
    Simulator numerics
        ``sim_dt`` (s): fixed time step of the simulator's time-stepping scheme (1e-4; must divide
        the control period; convergence is tested at dt/2).
    """

    d: float = 0.25
    h: float = 0.05
    m: float = 8.5
    I: float = 0.144
    hips: tuple[float, float, float] = (-0.19, 0.015, 0.22)
    l: float = 0.17
    m_t: float = 0.05
    k_b: float = 1e4
    d_b: float = 2000.0
    k_l: float = 5000.0
    d_l: float = 500.0
    mu_toe: float = 0.6
    mu_body: float = 0.3
    gravity: float = 9.81
    slope: float = 0.0
    v0: tuple[float, float, float, float] = (0.001, 0.08, 0.001, 0.001)
    tau_stall: float = 16.2
    omega_noload: float = 43.1
    min_body_normal_force: float = 5.0
    thrust_stop_pitch: float = float(np.deg2rad(60.0))
    control_rate: float = 1000.0
    toe_clearance: float = 0.005
    sim_dt: float = 1e-4

    def __post_init__(self) -> None:
        for name in ("d", "h", "m", "I", "l", "m_t", "k_b", "k_l", "gravity", "tau_stall",
                     "omega_noload", "control_rate", "sim_dt"):
            if not (getattr(self, name) > 0 and np.isfinite(getattr(self, name))):
                raise ValueError(f"RHexParams.{name}: must be positive and finite, got {getattr(self, name)!r}")
        for name in ("d_b", "d_l", "mu_toe", "mu_body", "min_body_normal_force", "toe_clearance"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"RHexParams.{name}: must be >= 0, got {getattr(self, name)!r}")
        if len(self.hips) != 3 or len(self.v0) != 4:
            raise ValueError("RHexParams: hips needs 3 entries, v0 needs 4 (body, toe1, toe2, toe3)")
        steps = (1.0 / self.control_rate) / self.sim_dt
        if abs(steps - round(steps)) > 1e-6 or round(steps) < 1:
            raise ValueError(f"RHexParams.sim_dt: must divide the control period 1/{self.control_rate:g} s")

    @property
    def control_period(self) -> float:
        """Control period (s)."""
        return 1.0 / self.control_rate

    @property
    def gravity_vector(self) -> np.ndarray:
        """(2,) gravity acceleration (m/s²) in the world frame, tilted by ``slope``."""
        return self.gravity * np.array([-np.sin(self.slope), -np.cos(self.slope)])

    def with_(self, **changes) -> "RHexParams":
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return replace(self, **changes)
