"""Parameters of the planar RHex flipping model (flipping paper, Sec. IV, Table IV).

One frozen dataclass, :class:`RHexParams`, shared by the compliant simulator
(:mod:`controllers.rhex.simulator`), the rigid model (:mod:`controllers.rhex.rigid_model`), the
torque limits (:mod:`controllers.rhex.limits`) and the controllers. SI units throughout.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields, replace

import numpy as np

__all__ = ["RHexParams"]


def _real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class RHexParams:
    """Planar RHex (flipping paper, Fig. 7/8 and Table IV; ``docs/rhex-reproduction.md``).

    Every setting of a flip lives here, so one ``RHexParams`` (plus the controller's name) fixes a
    run of :func:`controllers.rhex.run_flip`; vary a field with :meth:`with_`. Values the paper
    does not give are marked *our choice* or *calibrated* (``docs/rhex-reproduction.md``).

    Geometry and inertia (Table IV)
        ``d`` half body length (m), ``h`` half body height (m), ``m`` body mass (kg), ``I`` body
        pitch inertia (kg·m²), ``hips`` = (d1, d2, d3) hip positions on the body midline (m, body
        frame, rear → front), ``l`` leg rest length (m).
    Compliant simulator only (Sec. IV-C.1, Table IV)
        ``m_t`` toe point mass (kg), ``k_b``/``d_b`` body–ground penetration stiffness (N/m) and
        damping (N·s/m), ``k_l``/``d_l`` radial leg stiffness (N/m) and damping (N·s/m).
    Friction
        ``mu_toe`` toe–ground (0.39 "linoleum", 0.6 "asphalt" in the paper; default 0.6),
        ``mu_body`` body–ground: **our choice 0.3** (the paper gives no value; swept 0.1–0.6 by
        ``benchmarks/reproduce_flip.py``).
    ``gravity`` (m/s²): magnitude of gravity. ``slope`` (rad): tilts gravity to model a ground
        rising towards +x (gravity = g·(−sin slope, −cos slope)); 0 for flat ground.
    Velocity thresholds ``v0`` (m/s), per rigid-model contact (body, toe1, toe2, toe3)
        Re-derived with the paper's Fig. 12 procedure (Sec. IV-C.3) on our simulator by
        ``benchmarks/velocity_thresholds.py`` (:func:`~.calibration.velocity_thresholds`): the
        largest rigid-model toe speed over the intervals where the simulated contact is fixed, in
        blind flips at μ_t = 0.39 and 0.6, rounded up; never below 1 mm/s (the paper's smallest
        value; the body corner, a rigid body in both models, has exactly zero predicted speed
        while it sticks). The paper's values were v1 = 0.08, v2 = v3 = 0.001.
    Torque limits (``rhex.md``; Johnson thesis Table 2.2, Research RHex drive)
        ``tau_stall`` = 2 × 8.1 = 16.2 N·m per planar leg: the *hardware bound* (one planar leg =
        two motors at their achievable current-limited stall torque), with ``omega_noload`` =
        43.1 rad/s (412 rpm). ``tau_limit`` (N·m per planar leg): the *effective* limit a flip
        sees, **calibrated** by ``benchmarks/calibrate_torque.py`` against the time course the
        paper describes (procedure and target in that script and ``docs/rhex-reproduction.md``;
        never against Table V or the flip-time ratio); ``tau_limit <= tau_stall``. The hip torque
        bound is ``|τ| <= tau_limit·max(0, 1 − |ω|/omega_noload)`` with ω the hip speed (leg
        angular velocity relative to the body): the motors' torque–speed line scaled by the
        transmission factor ``tau_limit / tau_stall`` (:mod:`~.limits`).
    Task / controller settings
        ``min_body_normal_force`` (N): task constraint f_n(body) >= this in the rigid model
        (Sec. IV-B.2, "a manually chosen threshold"): our choice 5 N, as in the example file.
        ``control_rate`` (Hz): 1000 (zero-order hold).
        ``toe_clearance`` (m): a toe more than this above the ground is left out of the rigid
        model's contacts (our choice 5 mm).
        ``normal_velocity_tol`` (m/s): max-thrust's classification of normal contact velocities
        (:mod:`~.max_thrust`, *Velocity classification*): ``v_n <= this`` counts as persistent
        contact; our choice 0.03 from the measured scatter of the compliant contacts.
        There is no pitch stop: both controllers thrust from t = 0 until the flip completes (the
        pitch reaches 90° with positive pitch rate) or fails (``docs/rhex-reproduction.md``).
    Blind controller's rear-toe stiction detector (:class:`~.blind.BlindController`)
        ``detector_threshold`` (rad/s²): switch M1 → M2 when the filtered measured minus the
        predicted pitch acceleration exceeds this for ``detector_hold`` consecutive control steps
        after ``detector_arm_time`` (s), filter time constant ``detector_filter_tau`` (s).
        The threshold is **tuned once** at μ_t = 0.39 for detection accuracy (the paper's
        criterion: no switch before the simulated rear-toe stiction, smallest delay after it) by
        ``benchmarks/tune_blind_detector.py``, then left alone; the other three are our choices.
    Simulator numerics
        ``sim_dt`` (s): fixed time step of the simulator's time-stepping scheme (1e-4; must divide
        the control period; convergence is tested at dt/2).

    Raises ``ValueError`` naming the field for an invalid value.
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
    v0: tuple[float, float, float, float] = (0.001, 0.09, 0.024, 0.022)
    tau_stall: float = 16.2
    tau_limit: float = 10.25
    omega_noload: float = 43.1
    min_body_normal_force: float = 5.0
    control_rate: float = 1000.0
    toe_clearance: float = 0.005
    normal_velocity_tol: float = 0.03
    detector_threshold: float = 12.0
    detector_filter_tau: float = 0.005
    detector_hold: int = 3
    detector_arm_time: float = 0.02
    sim_dt: float = 1e-4

    def __post_init__(self) -> None:
        for name in ("d", "h", "m", "I", "l", "m_t", "k_b", "k_l", "gravity", "tau_stall", "tau_limit",
                     "omega_noload", "control_rate", "sim_dt", "detector_filter_tau"):
            value = getattr(self, name)
            if not (_real(value) and value > 0 and math.isfinite(value)):
                raise ValueError(f"RHexParams.{name}: must be positive and finite, got {value!r}")
        for name in ("d_b", "d_l", "mu_toe", "mu_body", "min_body_normal_force", "toe_clearance",
                     "normal_velocity_tol", "detector_arm_time"):
            value = getattr(self, name)
            if not (_real(value) and value >= 0 and math.isfinite(value)):
                raise ValueError(f"RHexParams.{name}: must be >= 0 and finite, got {value!r}")
        for name in ("slope", "detector_threshold"):
            if not (_real(getattr(self, name)) and math.isfinite(getattr(self, name))):
                raise ValueError(f"RHexParams.{name}: must be finite, got {getattr(self, name)!r}")
        if not (isinstance(self.detector_hold, numbers.Integral) and not isinstance(self.detector_hold, bool)
                and self.detector_hold >= 1):
            raise ValueError(f"RHexParams.detector_hold: must be an integer >= 1, got {self.detector_hold!r}")
        if self.tau_limit > self.tau_stall:
            raise ValueError(f"RHexParams.tau_limit: must be <= tau_stall (the hardware bound, "
                             f"{self.tau_stall:g} N·m), got {self.tau_limit!r}")
        if len(self.hips) != 3:
            raise ValueError(f"RHexParams.hips: needs 3 entries (rear, middle, front), got {len(self.hips)}")
        if len(self.v0) != 4 or not all(math.isfinite(v) and v >= 0 for v in self.v0):
            raise ValueError(f"RHexParams.v0: needs 4 finite entries >= 0 (body, toe1, toe2, toe3), got {self.v0!r}")
        steps = (1.0 / self.control_rate) / self.sim_dt
        if abs(steps - round(steps)) > 1e-6 or round(steps) < 1:
            raise ValueError(self._period_problem())

    def _period_problem(self) -> str:
        """The message for a control period that is not a whole number of simulator steps: it
        names ``control_rate`` (or ``sim_dt`` when only that one differs from its default) and
        lists the values that work with the other one."""
        cls = type(self)
        if self.sim_dt != cls.sim_dt and self.control_rate == cls.control_rate:
            valid = ", ".join(f"{1.0 / (k * self.control_rate):.10g}" for k in range(1, 5))
            return (f"RHexParams.sim_dt: must divide the control period 1/control_rate = {1.0 / self.control_rate:g} s "
                    f"(valid: {valid}, … s: the period over k = 1, 2, 3, …), got {self.sim_dt:g} s")
        valid = ", ".join(f"{1.0 / (k * self.sim_dt):.10g}" for k in range(1, 5))
        return (f"RHexParams.control_rate: must make the control period 1/control_rate a whole multiple of "
                f"sim_dt = {self.sim_dt:g} s (valid: {valid}, … Hz: 1/(k·sim_dt) for k = 1, 2, 3, …), "
                f"got {self.control_rate:g} Hz")

    @property
    def control_period(self) -> float:
        """Control period (s)."""
        return 1.0 / self.control_rate

    @property
    def gravity_vector(self) -> np.ndarray:
        """(2,) gravity acceleration (m/s²) in the world frame, tilted by ``slope``."""
        return self.gravity * np.array([-np.sin(self.slope), -np.cos(self.slope)])

    def with_(self, **changes) -> "RHexParams":
        """A copy with ``changes`` (``dataclasses.replace``). Raises ``ValueError`` naming an
        unknown field (``RHexParams.<name>: no such parameter``) or an invalid value."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise ValueError(f"RHexParams.{unknown[0]}: no such parameter")
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """Every field as plain JSON-ready Python values (tuples become lists)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.name] = [float(x) for x in v] if isinstance(v, tuple) else v
        return out
