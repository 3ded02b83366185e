"""Parameters of the planar RHex flipping model (flipping paper, Sec. IV, Table IV).

One frozen dataclass, ``RHexParams``, shared by the compliant simulator
(``controllers.rhex.simulator``), the rigid model (``controllers.rhex.rigid_model``), the
torque limits (``controllers.rhex.limits``) and the controllers. SI units throughout.
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
    """Every setting of a planar RHex flip: robot, ground, torque limits, controllers, simulator.

    One ``RHexParams`` (plus the controller's name) fixes a run of
    ``controllers.rhex.run_flip``; vary a field with ``with_``. SI units throughout. Values the
    paper does not give are marked *our choice* or *calibrated* (``docs/rhex-reproduction.md``).
    The model is the paper's Fig. 7/8 with the numbers of Table IV.

    Parameters
    ----------
    d : float, optional
        Half body length, m (Table IV).
    h : float, optional
        Half body height, m (Table IV).
    m : float, optional
        Body mass, kg (Table IV).
    I : float, optional
        Body pitch inertia, kg·m² (Table IV).
    hips : tuple[float, float, float], optional
        Hip positions ``(d1, d2, d3)`` on the body midline, m, body frame, rear to front
        (Table IV).
    l : float, optional
        Leg rest length, m (Table IV).
    m_t : float, optional
        Toe point mass, kg (compliant simulator only, Sec. IV-C.1, Table IV).
    k_b : float, optional
        Body–ground penetration stiffness, N/m (compliant simulator only).
    d_b : float, optional
        Body–ground penetration damping, N·s/m (compliant simulator only).
    k_l : float, optional
        Radial leg stiffness, N/m (compliant simulator only).
    d_l : float, optional
        Radial leg damping, N·s/m (compliant simulator only).
    mu_toe : float, optional
        Toe–ground friction coefficient (0.39 "linoleum" and 0.6 "asphalt" in the paper;
        default 0.6).
    mu_body : float, optional
        Body–ground friction coefficient: **our choice 0.3** (the paper gives no value; swept
        0.1–0.6 by ``benchmarks/reproduce_flip.py``).
    gravity : float, optional
        Magnitude of gravity, m/s².
    slope : float, optional
        Ground slope, rad: tilts gravity to model a ground rising towards +x, gravity
        ``= g·(−sin slope, −cos slope)``; 0 for flat ground.
    v0 : tuple[float, float, float, float], optional
        Velocity thresholds, m/s, per rigid-model contact ``(body, toe1, toe2, toe3)``, each
        ``>= 0``. Re-derived with the paper's Fig. 12 procedure (Sec. IV-C.3) on our simulator
        by ``benchmarks/velocity_thresholds.py`` (``controllers.rhex.calibration``): the largest
        rigid-model toe speed over the intervals where the simulated contact is fixed, in blind
        flips at μ_t = 0.39 and 0.6, rounded up; never below 1 mm/s (the paper's smallest
        value; the body corner, a rigid body in both models, has exactly zero predicted speed
        while it sticks). The paper's values were v1 = 0.08, v2 = v3 = 0.001.
    tau_stall : float, optional
        Hardware torque bound, N·m per planar leg: 2 × 8.1 = 16.2 (one planar leg = two motors
        at their achievable current-limited stall torque; Johnson thesis Table 2.2, Research
        RHex drive).
    tau_limit : float, optional
        Effective torque limit a flip sees, N·m per planar leg, ``<= tau_stall``:
        **calibrated** by ``benchmarks/calibrate_torque.py`` against the time course the paper
        describes (never against Table V or the flip-time ratio). The hip torque bound is
        ``|τ| <= tau_limit·max(0, 1 − |ω|/omega_noload)``, ω the hip speed (leg angular velocity
        relative to the body): the motors' torque–speed line scaled by the transmission factor
        ``tau_limit / tau_stall`` (``controllers.rhex.limits``).
    omega_noload : float, optional
        No-load hip speed, rad/s: 43.1 (412 rpm).
    min_body_normal_force : float, optional
        Task constraint ``f_n(body) >= this`` in the rigid model, N (Sec. IV-B.2, "a manually
        chosen threshold"): our choice 5 N, as in the example file.
    control_rate : float, optional
        Controller rate, Hz: 1000 (zero-order hold).
    toe_clearance : float, optional
        A toe more than this above the ground is left out of the rigid model's contacts, m (our
        choice 5 mm).
    normal_velocity_tol : float, optional
        Max-thrust's classification of normal contact velocities, m/s
        (``controllers.rhex.max_thrust``, *Velocity classification*): ``v_n <= this`` counts as
        persistent contact; our choice 0.03 from the measured scatter of the compliant contacts.
        An explicit setting of RHex's (the generic controller's default is the impact law,
        ``controllers.generic.touchdown``), kept for the recorded reference flips.
    detector_threshold : float, optional
        Blind controller's rear-toe stiction detector (``controllers.rhex.blind``), rad/s²:
        switch M1 → M2 when the filtered measured minus the predicted pitch acceleration exceeds
        this. **Tuned once** at μ_t = 0.39 for detection accuracy (the paper's criterion: no
        switch before the simulated rear-toe stiction, smallest delay after it) by
        ``benchmarks/tune_blind_detector.py``, then left alone.
    detector_filter_tau : float, optional
        Time constant of the detector's filter, s (our choice).
    detector_hold : int, optional
        Consecutive control steps over the threshold before the switch, ``>= 1`` (our choice).
    detector_arm_time : float, optional
        Time before which the detector does not switch, s (our choice).
    sim_dt : float, optional
        Fixed time step of the simulator's time-stepping scheme, s (1e-4; must divide the
        control period; convergence is tested at dt/2).

    Raises
    ------
    ValueError
        For an invalid value, naming the field (``"RHexParams.mu_toe: must be >= 0 and finite,
        got -1"``): a non-positive size, mass, stiffness, rate or time step, a negative damping,
        friction coefficient or threshold, ``tau_limit > tau_stall``, a ``hips`` or ``v0`` of
        the wrong length, or a control period that is not a whole number of simulator steps.

    See Also
    --------
    controllers.rhex.run_flip : One flip with these parameters.

    Notes
    -----
    There is no pitch stop: both controllers thrust from t = 0 until the flip completes (the
    pitch reaches 90° with positive pitch rate) or fails (``docs/rhex-reproduction.md``).

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. IV: the rigid model (Sec. IV-B.1, eqs. (35)–(36)), the
    maximal-thrust controller and its task constraint (Sec. IV-B.2), the compliant simulator
    and Table IV (Sec. IV-C.1), the velocity thresholds (Sec. IV-C.3, Fig. 12).
    Johnson, *Self-Manipulation and Dynamic Transitions for a Legged Robot*, Table 2.2 (the
    motor and gearbox data behind ``tau_stall`` and ``omega_noload``).

    Examples
    --------
    >>> from controllers.rhex import RHexParams
    >>> params = RHexParams()
    >>> params.mu_toe, params.tau_limit, params.control_period        # -, N·m, s
    (0.6, 10.25, 0.001)
    >>> linoleum = params.with_(mu_toe=0.39)
    >>> linoleum.mu_toe, linoleum.to_dict()["hips"]
    (0.39, [-0.19, 0.015, 0.22])
    >>> params.with_(mu=0.3)
    Traceback (most recent call last):
    ...
    ValueError: RHexParams.mu: no such parameter
    >>> RHexParams(tau_limit=20.0)
    Traceback (most recent call last):
    ...
    ValueError: RHexParams.tau_limit: must be <= tau_stall (the hardware bound, 16.2 N·m), got 20.0
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
        """A copy with ``changes`` (``dataclasses.replace``).

        Parameters
        ----------
        **changes : object
            Field name → new value (the fields' units, SI).

        Returns
        -------
        RHexParams
            The copy, validated.

        Raises
        ------
        ValueError
            Naming an unknown field (``RHexParams.<name>: no such parameter``) or an invalid value.
        """
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
