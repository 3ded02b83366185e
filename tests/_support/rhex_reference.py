"""The slow reference check of one max-thrust step (shared by the RHex controller tests).

``assert_matches_reference`` compares a ``MaxThrustResult``
with ``max_thrust_reference`` — ``unambiguous()`` for every
kinematically feasible mode with a unique θ̈, its pieces cut by the torque box, one LP per piece —
and, for the tolerances:

* values (θ̈, rad/s²): ``VALUE_RTOL · max(1, |θ̈*|)``; both sides are LP optima over the same
  polytopes (different routes: batched dual simplex on the lifted domain vs projections), so
  they agree to solver precision, 1e-6 relative leaves room for the projections' round-off;
* the mode: any mode whose reference value is within that tolerance of the best (ties);
* the torque: in the closure of the reference's ``T*_c ∩ L`` of that mode (``Polytope.contains``
  with ``TAU_TOL`` relative to the set's scale) and in its *optimal face* ``{τ : θ̈_c(τ) >=
  θ̈* − tol}``; when the maximizing face (slack ``1e-9`` relative: LP precision) is a point
  (width of every coordinate below ``TAU_TOL · max(1, |τ|)`` N·m, found by two LPs per torque),
  equal to it within that tolerance;
* the prediction: the reference response's ``θ̈_c`` at the torque, ``VALUE_RTOL`` relative;
* ``task_dropped`` steps: no unique-θ̈ mode has a non-empty ``D_c(task) ∩ L`` (one LP each in
  the session), and the comparison above runs with the task row dropped.
"""

from __future__ import annotations

import math

import numpy as np

from controllers.generic.search import default_step_margin
from controllers.rhex.max_thrust import MaxThrustResult, StepModel, max_thrust_reference
from controllers.rhex.rigid_model import PITCH_INDEX
from polytopes import Polytope

VALUE_RTOL = 1e-6
TAU_TOL = 1e-6
#: the parameters the max-thrust comparison states were written for (hardware torque line 16.2 N·m,
#: the paper's velocity thresholds): short runs with them (``tests/controllers/rhex/``)
LEGACY = {"tau_limit": 16.2, "v0": (0.001, 0.08, 0.001, 0.001)}


def _face_width(pieces, grad, offset, floor):
    """Per-torque (min, max) over the pieces' points with ``grad·τ + offset >= floor``."""
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for P in pieces:
        F = Polytope(np.vstack([P.A, -grad[None]]), np.concatenate([P.b, [offset - floor]]), P.C, P.d)
        if F.is_empty():
            continue
        b_lo, b_hi = F.bounding_box()
        lo, hi = np.minimum(lo, b_lo), np.maximum(hi, b_hi)
    return lo, hi


def assert_matches_reference(step: StepModel, lo, hi, res: MaxThrustResult, where: str = "",
                             margin: float | None = None) -> None:
    """Assert the module doc's agreement of ``res`` with the reference at ``step``; a torque the
    margin rule moved (``res.nudged``) predicts at most ``‖∂θ̈/∂τ‖ · margin`` less than the best
    (``margin`` the one ``res`` was computed with, N·m; default the step's own,
    ``controllers.generic.search.default_step_margin``, as ``max_thrust`` takes it)."""
    task = not res.status.startswith("task_dropped")
    if not task:
        ses = step.session
        sc = ses.scaling
        for m in ses.enumeration.modes:
            sol = ses.mode(m)
            nw = sol.response_scaled(True).n_w
            E = np.hstack([np.eye(3), np.zeros((3, nw))])
            extra = (np.vstack([E, -E]), np.concatenate([sc.tau_from_user(hi), -sc.tau_from_user(lo)]))
            assert sol.maximize_scaled(np.zeros(3), True, extra) is None, (where, m, "D_c(task) ∩ L non-empty")
    ref = max_thrust_reference(step, lo, hi, task=task)
    assert res.status in ("optimal", "task_dropped"), (where, res.status)
    best = ref.best
    tol = VALUE_RTOL * max(1.0, abs(best))
    assert math.isfinite(best), (where, ref.values)
    assert abs(res.closure_value - best) <= tol, (where, res.mode, res.closure_value, best)
    assert ref.values[res.mode] >= best - tol, (where, res.mode, ref.values)
    tau = np.asarray(res.tau, dtype=float)
    assert np.all(tau >= lo - 1e-9) and np.all(tau <= hi + 1e-9), (where, tau, lo, hi)
    resp = ref.response[res.mode]
    grad, offset = resp.P_q[PITCH_INDEX], float(resp.r_q[PITCH_INDEX])
    assert abs(res.value - (grad @ tau + offset)) <= tol, (where, res.value, grad @ tau + offset)
    pieces = ref.pieces[res.mode]
    assert any(P.contains(tau, TAU_TOL) for P in pieces), (where, res.mode, tau)
    if res.nudged:
        give = float(np.linalg.norm(grad)) * (default_step_margin(step) if margin is None else margin)
        assert best - give - tol <= res.value <= best + tol, (where, res.value, best, give)
    else:
        assert abs(res.value - best) <= tol
        f_lo, f_hi = _face_width(pieces, grad, offset, best - tol)
        scale = max(1.0, float(np.abs(tau).max()))
        assert np.all(tau >= f_lo - TAU_TOL * scale) and np.all(tau <= f_hi + TAU_TOL * scale), (where, tau, f_lo, f_hi)
        # the maximizing face itself (LP precision): a point means a unique maximizer, equal torques
        u_lo, u_hi = _face_width(pieces, grad, offset, best - 1e-9 * max(1.0, abs(best)))
        if np.all(u_hi - u_lo <= TAU_TOL * scale):
            assert np.all(np.abs(tau - 0.5 * (u_lo + u_hi)) <= TAU_TOL * scale), (where, tau, u_lo, u_hi)
