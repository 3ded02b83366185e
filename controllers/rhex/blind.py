"""The "blind" model-based flipping controller (flipping paper, Sec. IV-A; Saranli et al. [30]).

Two fixed-mode rigid models (contacts body, toe1 (rear), toe2 (middle), toe3 (front); ground
tangent ``t = +x``, the robot's nose pointing ``+x``, so sliding forwards = ``R``, backwards = ``L``):

* ``M1 = "RRLL"``: front and middle toes slide backwards (``L``), body and rear toe slide forwards
  (``R``);
* ``M2 = "RFLL"``: rear toe stuck (``F``), body slides forwards, middle and front toes backwards.

At each control step the controller builds the rigid model (the closed-form terms of
``rigid_arrays``, nondimensionalized as every analysis is,
``StepModel`` without max-thrust's normal-velocity classification) and solves,
for the assumed mode only (no enumeration of other modes), the LP

    max_{τ, w}  θ̈ = (P_q τ + Q_q w + r_q)[θ]   s.t.  (τ, w) ∈ D_c  (eq. 33, with the task
                                                   constraint f_n(body) >= threshold),
                                                   lo <= τ <= hi   (motor limits at the hip speeds)

on the machinery of the max-thrust controller: the mode's response from a
``contactmodes.realtime.plan.Layout`` (certified pivoted solve, else the SVD) and the LP from
``polytopes.batchlp.solve_batch`` (a verified dual simplex warm-started from the previous
step's basis, ``polytopes.lp.solve_verified`` when its answer does not verify). If the LP is
infeasible (the assumed mode cannot be realized with the task constraint — the blind controller
cannot know), it falls back to the *elastic* LP ``max θ̈ − ρ Σ s`` with the inequality rows of
``D_c`` relaxed by slacks ``s >= 0`` (``ρ = 1e3`` per unit violation of a row in SI units, the
rows of ``contactmodes.analysis.domains.domain_inequalities`` of the SI system; solved in the
nondimensional variables with each slack weighted by its row's unit), i.e. the torque that
realizes the assumed model as nearly as possible. (Before this machinery both LPs went through
``scipy.optimize.linprog``, about 1.3 ms per call on the shared machine.)

Contacts left out of the rigid model (a toe more than ``params.toe_clearance`` above the ground)
drop their letter from the LP's mode; the logged and reported mode is that effective mode in the
4-letter form with ``S`` for the omitted toes (``expand_mode``), i.e. the model
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
(``stiction_time``), the one with the smallest delay
(``select_detector_threshold``, run by ``benchmarks/tune_blind_detector.py``;
result and band of thresholds in ``docs/rhex-reproduction.md``). It is then left alone at every
other friction.

The controller thrusts from t = 0 until the run ends (flip or failure); there is no pitch stop.
"""

from __future__ import annotations

import math
import time

import numpy as np

from contactmodes.realtime.plan import W_BOUND, StepCounters, Structure
from contactmodes.modes.contact_conditions import VelocityPattern
from contactmodes.realtime import kernels
from polytopes import batchlp, batchlp_kernel
from polytopes import lp

from .limits import torque_limits
from .params import RHexParams
from .rigid_model import CONTACT_NAMES, PITCH_INDEX, expand_mode
from .simulator import ControlOutput, leg_kinematics

__all__ = ["M1", "M2", "BlindController", "max_thrust_fixed_mode", "benchmark_lp"]

M1 = "RRLL"
"""Blind model 1: body and rear toe slide forwards, middle and front toes backwards."""
M2 = "RFLL"
"""Blind model 2: rear toe stuck, body forwards, middle and front toes backwards."""

ELASTIC_PENALTY = 1e3
SLACK_BOUND = 1e6
"""Artificial upper bound of the elastic slacks (nondimensional)."""


class _FixedModeEngine:
    """Structures and warm starts of the fixed-mode LP, kept across steps.

    ``structures`` one ``Structure`` per set of present
    contacts; ``warm`` the last optimal basis (1, 3 + s) of the LP of each ``(contacts, mode)``
    (the mode over those contacts; ``s`` the layout's padded ambiguity width, fixed by the
    contacts): keyed by value, not by object identity, so a basis is reused only for an LP of
    the same contacts and mode, hence of the same size."""

    def __init__(self) -> None:
        self.structures: dict[tuple, Structure] = {}
        self.warm: dict[tuple[tuple, str], np.ndarray] = {}

    def layout(self, step, mode: str):
        st = self.structures.get(step.contacts)
        if st is None:
            st = Structure(6, 3, step.contacts, step.arrays.mu, [("task", "geq", 1)])
            self.structures[step.contacts] = st
        pat = step.pattern
        return st, st.layout(VelocityPattern(pat.threshold, pat.t_zero, pat.n_zero, tuple(mode)))


def max_thrust_fixed_mode(step, mode4: str, lo, hi, engine: _FixedModeEngine | None = None,
                          counters: StepCounters | None = None):
    """Maximal-θ̈ torque under one assumed mode (the LP of the module docstring).

    The LP runs on the step's nondimensional terms; the torque and prediction are returned in SI.

    Parameters
    ----------
    step : StepModel
        The state's rigid model (built with ``classify=False``).
    mode4 : str
        A 4-letter mode (body, toe1..3).
    lo, hi : array_like
        ``(3,)`` torque bounds (N·m).
    engine : _FixedModeEngine, optional
        The structures and warm starts kept across steps.
    counters : StepCounters, optional
        The response counted by the layout (``responses``, ``svd_responses``), the LPs (one, two
        with the elastic fallback) in ``lps``, those the exact solvers decided in
        ``fallback_lps``.

    Returns
    -------
    tau : numpy.ndarray
        ``(3,)`` hip torques (N·m).
    pitch_acc : float
        The predicted θ̈ (rad/s²); NaN when inconsistent.
    status : str
        ``"optimal"``, ``"elastic"`` (LP infeasible, elastic fallback) or ``"inconsistent"`` (no
        torque satisfies the mode's equalities (31); ``tau = 0``).
    """
    engine = engine or _FixedModeEngine()
    counters = StepCounters() if counters is None else counters
    letters = dict(zip(CONTACT_NAMES, mode4))
    mode = "".join(letters[c] for c in step.contacts)
    st, layout = engine.layout(step, mode)
    banks = st.banks(step.terms)
    resp = layout.responses(banks, np.array([0]), st.objective(qdd=np.eye(6)[PITCH_INDEX]), counters)
    if not resp.consistent[0]:
        return np.zeros(3), float("nan"), "inconsistent"
    dom = layout.domains(banks, resp)
    u, s_theta = step.terms.tau, float(step.terms.qdd[PITCH_INDEX])
    lo_s, hi_s = np.asarray(lo, dtype=float) / u, np.asarray(hi, dtype=float) / u
    sw = resp.Q.shape[2]
    n = 3 + sw
    A, b = dom.A[0], dom.b[0]
    C = np.hstack([resp.C[0], np.zeros((3, sw))]) * resp.cvalid[0][:, None]
    d = resp.d[0] * resp.cvalid[0]
    obj = np.concatenate([resp.P[0, PITCH_INDEX], resp.Q[0, PITCH_INDEX]])
    wf = resp.wfree[0]
    lo_z = np.concatenate([lo_s, np.where(wf, -W_BOUND, 0.0)])
    hi_z = np.concatenate([hi_s, np.where(wf, W_BOUND, 0.0)])
    art = np.concatenate([np.zeros(3, bool), wf])
    G = np.vstack([A, C, -C])
    h = np.concatenate([b, d, -d])
    key = (step.contacts, mode)
    res = batchlp.solve_batch(-obj[None], G[None], h[None], lo_z[None], hi_z[None], art[None],
                              engine.warm.get(key, np.full((1, n), -1)))
    engine.warm[key] = res.basis
    counters.lps += 1
    counters.fallback_lps += res.n_fallback
    status = "optimal"
    z = res.x[0]
    if res.status[0] != lp.OPTIMAL:
        status = "elastic"
        p = A.shape[0]
        valid = dom.valid[0]
        # an SI row is unit × the nondimensional one: its SI slack is unit × this slack, and the SI
        # objective −θ̈ + ρ Σ s_SI divided by the unit of θ̈ reads −θ̈' + ρ Σ (unit / s_θ) s'
        Ge = np.vstack([np.hstack([A, -np.diag(valid.astype(float))]),
                        np.hstack([np.vstack([C, -C]), np.zeros((6, p))])])
        he = np.concatenate([b, d, -d])
        ce = np.concatenate([-obj, ELASTIC_PENALTY * valid * dom.unit[0] / s_theta])
        lo_e = np.concatenate([lo_z, np.zeros(p)])
        hi_e = np.concatenate([hi_z, np.where(valid, SLACK_BOUND, 0.0)])
        art_e = (np.concatenate([art, np.zeros(p, bool)])[None], np.concatenate([art, valid])[None])
        el = batchlp.solve_batch(ce[None], Ge[None], he[None], lo_e[None], hi_e[None], art_e)
        counters.lps += 1
        counters.fallback_lps += el.n_fallback
        if el.status[0] != lp.OPTIMAL:
            return np.zeros(3), float("nan"), "inconsistent"
        z = el.x[0, :n]
    tau = z[:3] * u
    acc = float(obj @ z[:n] + resp.r[0, PITCH_INDEX]) * s_theta
    return tau, acc, status


class BlindController:
    """Blind flipping controller; ``controller(t, state, params) -> ControlOutput``.

    Parameters
    ----------
    params : RHexParams, optional
        The robot (friction coefficients are the controller's model of the ground) and the
        detector settings ``detector_threshold`` (rad/s², on filtered measured minus predicted
        θ̈), ``detector_filter_tau`` (s), ``detector_hold`` (consecutive steps above threshold),
        ``detector_arm_time`` (s, the detector is ignored before: the start-up transient of the
        compliant legs). See the module docstring for the tuning.
    threshold : float, optional
        Optional override of ``detector_threshold``.
    filter_tau : float, optional
        Optional override of ``detector_filter_tau``.
    hold : int, optional
        Optional override of ``detector_hold``.
    arm_time : float, optional
        Optional override of ``detector_arm_time``.

    Attributes
    ----------
    switch_time : float or None
        After a run: the switch time (s), or ``None``.
    log : list[tuple]
        After a run: list of ``(t, mode, predicted θ̈, status)``, one per step.
    compile_seconds : float
        The time the constructor spent compiling the LP and response kernels
        (``polytopes.batchlp_kernel``, ``contactmodes.realtime.kernels``; 0 when an earlier
        controller of the process did).

    Notes
    -----
    Create a new instance (or call ``reset``) per run.
    """

    def __init__(self, params: RHexParams | None = None, threshold: float | None = None,
                 filter_tau: float | None = None, hold: int | None = None, arm_time: float | None = None) -> None:
        self.params = params or RHexParams()
        pick = lambda value, default: default if value is None else value  # noqa: E731
        self.threshold = float(pick(threshold, self.params.detector_threshold))
        self.filter_tau = float(pick(filter_tau, self.params.detector_filter_tau))
        self.hold = int(pick(hold, self.params.detector_hold))
        self.arm_time = float(pick(arm_time, self.params.detector_arm_time))
        # the compiled kernels (LPs, responses), once per process, outside the timed steps (0 s if already done)
        self.compile_seconds = batchlp_kernel.compile_kernel() + kernels.compile_kernel()
        self.reset()

    def reset(self) -> None:
        """Back to model M1, detector cleared (the structures and warm starts are kept)."""
        self.engine = getattr(self, "engine", None) or _FixedModeEngine()
        self.paths = {"fast": 0, "fallback": 0, "lp_fallbacks": 0, "svd_fallbacks": 0}
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
        """One control step: the detector, then the maximal-θ̈ torque under the current model.

        Parameters
        ----------
        t : float
            Time (s).
        state : array_like
            ``(18,)`` the measured state (``controllers.rhex.simulator.STATE_LAYOUT``, SI).
        params : RHexParams, optional
            The plant's parameters for the torque limits; default the controller's.

        Returns
        -------
        ControlOutput
            The torque (N·m, clipped to the limits), the model's mode (``expand_mode``) and the
            predicted θ̈ (rad/s², ``None`` when inconsistent).
        """
        p = params or self.params
        st = np.asarray(state, dtype=float)
        from .max_thrust import StepModel

        self._detect(t, float(st[5]))
        step = StepModel(st, self.params, classify=False)
        lo, hi = torque_limits(leg_kinematics(st, p).phidot, p)
        counters = StepCounters()
        tau, acc, status = max_thrust_fixed_mode(step, self.mode, lo, hi, self.engine, counters)
        tau = np.clip(tau, lo, hi)  # LP round-off
        self._last_pred = acc
        self.paths["fallback" if counters.fallbacks else "fast"] += 1
        self.paths["lp_fallbacks"] += counters.fallback_lps
        self.paths["svd_fallbacks"] += counters.svd_responses
        letters = dict(zip(CONTACT_NAMES, self.mode))
        mode = expand_mode("".join(letters[c] for c in step.contacts), step.contacts)
        self.log.append((t, mode, acc, status))
        return ControlOutput(tau, mode, None if not math.isfinite(acc) else acc)


def benchmark_lp(state, params: RHexParams | None = None, repeat: int = 20) -> dict:
    """Seconds per fixed-mode step (model, response and verified LP) of M1 at ``state``.

    The LP path of ``max_thrust_fixed_mode``.

    Parameters
    ----------
    state : array_like
        ``(18,)`` (``controllers.rhex.simulator.STATE_LAYOUT``, SI).
    params : RHexParams, optional
        Default ``RHexParams()``.
    repeat : int, optional
        Number of timed steps.

    Returns
    -------
    dict
        ``{"batch": seconds per step}``.
    """
    from .max_thrust import StepModel

    p = params or RHexParams()
    lo, hi = torque_limits(leg_kinematics(state, p).phidot, p)
    engine = _FixedModeEngine()
    t0 = time.perf_counter()
    for _ in range(repeat):
        max_thrust_fixed_mode(StepModel(state, p, classify=False), M1, lo, hi, engine)
    return {"batch": (time.perf_counter() - t0) / repeat}
