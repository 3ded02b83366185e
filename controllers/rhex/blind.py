"""The "blind" model-based flipping controller (flipping paper, Sec. IV-A; Saranli et al. [30]).

Two fixed-mode rigid models (contacts body, toe1 (rear), toe2 (middle), toe3 (front); ground
tangent ``t = +x``, the robot's nose pointing ``+x``, so sliding forwards = ``R``, backwards = ``L``):

* ``M1 = "RRLL"``: front and middle toes slide backwards (``L``), body and rear toe slide forwards
  (``R``);
* ``M2 = "RFLL"``: rear toe stuck (``F``), body slides forwards, middle and front toes backwards.

At each control step the controller builds the rigid model (:func:`~.rigid_model.rigid_model`) and
solves, for the assumed mode only (no enumeration of other modes), the LP

    max_{τ, w}  θ̈ = (P_q τ + Q_q w + r_q)[θ]   s.t.  (τ, w) ∈ D_c  (eq. 33, with the task
                                                   constraint f_n(body) >= threshold),
                                                   lo <= τ <= hi   (motor limits at the hip speeds)

with SciPy HiGHS (measured with ``benchmark_lp`` at the flip start on the shared 2-core box:
1.4 ms per control step *including* the SVD response, against 4.5 ms for the LP alone through cvxpy,
whose problem construction dominates). If the LP is infeasible (the
assumed mode cannot be realized with the task constraint — the blind controller cannot know), it
falls back to the *elastic* LP ``max θ̈ − ρ Σ s`` with the inequality rows of ``D_c`` relaxed by
slacks ``s >= 0`` (``ρ = 1e3`` per unit violation), i.e. the torque that realizes the assumed model
as nearly as possible.

Contacts left out of the rigid model (a toe more than ``params.toe_clearance`` above the ground)
drop their letter from the LP's mode; the logged and reported mode is that effective mode in the
4-letter form with ``S`` for the omitted toes (:func:`~.rigid_model.expand_mode`), i.e. the model
that produced the prediction.

Model switch M1 → M2 (once, then left alone): a stiction detector on the measured pitch
acceleration. The measured θ̈ (finite difference of the pitch rate over a control period) is
low-pass filtered (first order, ``params.detector_filter_tau`` = 5 ms); when it exceeds the M1
model's prediction by more than ``params.detector_threshold`` for ``params.detector_hold``
consecutive steps (after ``params.detector_arm_time``), the rear toe is declared stuck.

Tuning: the paper tuned the detector on linoleum (μ_t = 0.39), where it "yields relatively accurate
timing for the switching of models" (Sec. IV-C.2). We tune the threshold once, for that criterion
only, at μ_t = 0.39 with every other parameter at its default: among the thresholds whose switch
comes no earlier than the simulated rear-toe stiction of the same run
(:func:`~.metrics.stiction_time`), the one with the smallest delay
(:func:`~.calibration.select_detector_threshold`, run by ``benchmarks/tune_blind_detector.py``;
result and band of thresholds in ``docs/rhex-reproduction.md``). It is then left alone at every
other friction.

The controller thrusts from t = 0 until the run ends (flip or failure); there is no pitch stop.
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy.optimize import linprog

from contactmodes.domains import domain_inequalities
from contactmodes.response import solve_response

from .limits import torque_limits
from .params import RHexParams
from .rigid_model import PITCH_INDEX, expand_mode, rigid_model
from .simulator import ControlOutput, leg_kinematics

__all__ = ["M1", "M2", "BlindController", "max_thrust_fixed_mode", "benchmark_lp"]

M1 = "RRLL"
"""Blind model 1: body and rear toe slide forwards, middle and front toes backwards."""
M2 = "RFLL"
"""Blind model 2: rear toe stuck, body forwards, middle and front toes backwards."""

ELASTIC_PENALTY = 1e3


def max_thrust_fixed_mode(model, mode4: str, lo, hi):
    """Maximal-θ̈ torque under one assumed mode (the LP of the module docstring).

    ``model`` a :class:`~.rigid_model.RigidModel`; ``mode4`` a 4-letter mode (body, toe1..3);
    ``lo``, ``hi`` (3,) torque bounds (N·m). Returns ``(tau (3,), predicted θ̈ (rad/s²), status)``
    with status ``"optimal"``, ``"elastic"`` (LP infeasible, elastic fallback) or ``"inconsistent"``
    (no torque satisfies the mode's equalities (31); ``tau = 0``, prediction NaN).
    """
    letters = dict(zip(("body", "toe1", "toe2", "toe3"), mode4))
    mode = "".join(letters[c] for c in model.contacts)
    resp = solve_response(model.system, mode, task=True)
    n_tau, n_w = 3, resp.n_w
    if not resp.consistent:
        return np.zeros(3), float("nan"), "inconsistent"
    A, b, trivially_infeasible = domain_inequalities(resp)
    c = -np.concatenate([resp.P_q[PITCH_INDEX], resp.Q_q[PITCH_INDEX]])
    C = np.hstack([resp.tau_C, np.zeros((resp.tau_C.shape[0], n_w))]) if resp.tau_C.shape[0] else None
    d = resp.tau_d if C is not None else None
    bounds = [(lo[i], hi[i]) for i in range(n_tau)] + [(None, None)] * n_w
    status = "optimal"
    res = None
    if not trivially_infeasible:
        res = linprog(c, A_ub=A if A.shape[0] else None, b_ub=b if A.shape[0] else None,
                      A_eq=C, b_eq=d, bounds=bounds, method="highs")
    if res is None or res.status != 0:
        status = "elastic"
        m = A.shape[0]
        A_el = np.hstack([A, -np.eye(m)])
        c_el = np.concatenate([c, ELASTIC_PENALTY * np.ones(m)])
        C_el = np.hstack([C, np.zeros((C.shape[0], m))]) if C is not None else None
        res = linprog(c_el, A_ub=A_el, b_ub=b, A_eq=C_el, b_eq=d,
                      bounds=bounds + [(0, None)] * m, method="highs")
        if res.status != 0:
            return np.zeros(3), float("nan"), "inconsistent"
    z = res.x[: n_tau + n_w]
    tau = z[:n_tau]
    acc = float(resp.P_q[PITCH_INDEX] @ tau + resp.Q_q[PITCH_INDEX] @ z[n_tau:] + resp.r_q[PITCH_INDEX])
    return tau, acc, status


class BlindController:
    """Blind flipping controller; ``controller(t, state, params) -> ControlOutput``.

    Parameters
    ----------
    params : the robot (friction coefficients are the controller's model of the ground) and the
        detector settings ``detector_threshold`` (rad/s², on filtered measured minus predicted
        θ̈), ``detector_filter_tau`` (s), ``detector_hold`` (consecutive steps above threshold),
        ``detector_arm_time`` (s, the detector is ignored before: the start-up transient of the
        compliant legs). See the module docstring for the tuning.
    threshold, filter_tau, hold, arm_time : optional overrides of those four fields.

    Attributes after a run: ``switch_time`` (s or ``None``), ``log`` list of
    ``(t, mode, predicted θ̈, status)``. Create a new instance (or call :meth:`reset`) per run.
    """

    def __init__(self, params: RHexParams | None = None, threshold: float | None = None,
                 filter_tau: float | None = None, hold: int | None = None, arm_time: float | None = None) -> None:
        self.params = params or RHexParams()
        pick = lambda value, default: default if value is None else value  # noqa: E731
        self.threshold = float(pick(threshold, self.params.detector_threshold))
        self.filter_tau = float(pick(filter_tau, self.params.detector_filter_tau))
        self.hold = int(pick(hold, self.params.detector_hold))
        self.arm_time = float(pick(arm_time, self.params.detector_arm_time))
        self.reset()

    def reset(self) -> None:
        """Back to model M1, detector cleared."""
        self.mode = M1
        self.switch_time = None
        self._prev = None  # (t, pitch rate)
        self._filtered = None
        self._last_pred = None
        self._count = 0
        self.log = []

    def _detect(self, t: float, omega: float) -> None:
        if self._prev is not None and t > self._prev[0]:
            dt = t - self._prev[0]
            acc = (omega - self._prev[1]) / dt
            a = dt / (self.filter_tau + dt)
            self._filtered = acc if self._filtered is None else self._filtered + a * (acc - self._filtered)
            if (self.mode == M1 and t >= self.arm_time and self._last_pred is not None
                    and np.isfinite(self._last_pred)):
                if self._filtered - self._last_pred > self.threshold:
                    self._count += 1
                else:
                    self._count = 0
                if self._count >= self.hold:
                    self.mode = M2
                    self.switch_time = t
        self._prev = (t, omega)

    def __call__(self, t: float, state, params: RHexParams | None = None) -> ControlOutput:
        p = params or self.params
        st = np.asarray(state, dtype=float)
        self._detect(t, float(st[5]))
        model = rigid_model(st, self.params, task=True)
        lo, hi = torque_limits(leg_kinematics(st, p).phidot, p)
        tau, acc, status = max_thrust_fixed_mode(model, self.mode, lo, hi)
        tau = np.clip(tau, lo, hi)  # LP round-off
        self._last_pred = acc
        letters = dict(zip(("body", "toe1", "toe2", "toe3"), self.mode))
        mode = expand_mode("".join(letters[c] for c in model.contacts), model.contacts)
        self.log.append((t, mode, acc, status))
        return ControlOutput(tau, mode, None if not math.isfinite(acc) else acc)


def benchmark_lp(state, params: RHexParams | None = None, repeat: int = 20) -> dict:
    """Seconds per solve of the M1 LP at ``state``: ``{"highs": s, "cvxpy": s}`` (cvxpy optional)."""
    p = params or RHexParams()
    model = rigid_model(state, p)
    lo, hi = torque_limits(leg_kinematics(state, p).phidot, p)
    t0 = time.perf_counter()
    for _ in range(repeat):
        max_thrust_fixed_mode(model, M1, lo, hi)
    out = {"highs": (time.perf_counter() - t0) / repeat}
    try:
        import cvxpy as cp
    except ImportError:  # pragma: no cover
        return out
    resp = solve_response(model.system, "".join(dict(zip(("body", "toe1", "toe2", "toe3"), M1))[c] for c in model.contacts))
    A, b, _ = domain_inequalities(resp)
    t0 = time.perf_counter()
    for _ in range(repeat):
        z = cp.Variable(3 + resp.n_w)
        obj = cp.Maximize(np.concatenate([resp.P_q[PITCH_INDEX], resp.Q_q[PITCH_INDEX]]) @ z)
        cons = [A @ z <= b, z[:3] >= lo, z[:3] <= hi]
        cp.Problem(obj, cons).solve(solver=cp.HIGHS if "HIGHS" in cp.installed_solvers() else None)
    out["cvxpy"] = (time.perf_counter() - t0) / repeat
    return out
