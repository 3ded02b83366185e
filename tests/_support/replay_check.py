"""A controller's answer at a recorded state against the answer recorded there (issue 39).

The records (``tests/data/generic_steps``, ``tests/data/flip_steps``) were written on one machine;
another BLAS kernel, another CPU or another thread count rounds the same operations otherwise, so
the answers are compared as the problem's conditioning allows, not bit for bit:

* **floats** (the torque, the predicted objective value): equal within ``float_rtol(κ) =
  CONDITION_FACTOR · κ · ε`` relative to ``max(1, |recorded|)`` (``‖τ‖∞`` for the torque; the
  records are in SI units with values of order one), where ``κ`` is the condition number of the
  chosen mode's equations at that state (``mode_condition``: the nonzero singular values' ratio
  of the mode's equality rows in ``(q̈, f)`` — dynamics and Tables I–II, written by
  ``_support.oracle.mode_rows`` — of the step's nondimensional system). The response, ``T_c``'s
  rows and the predicted value all come from solving those equations, so rounding differences of
  the data (the dynamics' own, ``KERNEL_RTOL`` of their scale, and the BLAS's) reach them
  amplified by about ``κ``; ``CONDITION_FACTOR`` covers the operations around them (the
  dynamics' hundreds of ulps, a vertex's active rows). Measured on five BLAS configurations
  (``OPENBLAS_CORETYPE`` Haswell, Prescott, SandyBridge, Nehalem with ``NUMBA_CPU_NAME=generic``,
  one thread): at most ``3 κ ε``.
* **decisions** (the mode, the status, the number of feasible modes): equal. Where the mode can
  legitimately flip — two modes whose optima tie within those tolerances — a different mode is
  checked by the independent reference at that state (``check_flip``: ``_support.generic_reference``,
  every projection and LP of its own): both modes' optima must tie within the reference's
  precision, and the replayed torque and value must be its mode's optimum. A different status is
  not a tie and fails.
"""

from __future__ import annotations

import math

import numpy as np

from _support.generic_reference import VALUE_RTOL, reference_values
from _support.oracle import mode_rows

CONDITION_FACTOR = 1e3
EPS = float(np.finfo(float).eps)


def mode_condition(scaled_system, mode: str | None) -> float:
    """``κ`` of ``mode``'s equality rows in ``(q̈, f)`` of a nondimensional system (module doc;
    1 without a mode): the ratio of the largest singular value to the smallest above
    ``1e-12`` of it (the rows of a mode with ambiguity, ``w``, are rank deficient)."""
    if mode is None:
        return 1.0
    eqA = mode_rows(scaled_system, mode, np.zeros(scaled_system.n_tau))[0]
    s = np.linalg.svd(eqA, compute_uv=False)
    s = s[s > 1e-12 * s[0]]
    return float(s[0] / s[-1])


def float_rtol(kappa: float) -> float:
    """The relative tolerance of a replayed float (module doc)."""
    return CONDITION_FACTOR * kappa * EPS


def close(got: float, want: float, rtol: float) -> bool:
    """``|got − want| <= rtol · max(1, |want|)``; two NaNs (no value) agree."""
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= rtol * max(1.0, abs(want))


def close_torques(got, want, rtol: float) -> bool:
    """``‖got − want‖∞ <= rtol · max(1, ‖want‖∞)``."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return got.shape == want.shape and float(np.abs(got - want).max(initial=0.0)) <= rtol * max(
        1.0, float(np.abs(want).max(initial=0.0)))


def _hex(v) -> float:
    return math.nan if v is None else float.fromhex(v)


def _floats(hexes) -> np.ndarray:
    return np.array([float.fromhex(x) for x in hexes])


def _step_and_box(controller, q, qdot):
    """The step model the controller's last call computed on and its torque box (after a
    touchdown: at ``q̇⁺``, in the outcome's box; ``UnambiguousOptimalController.solve``)."""
    from controllers.generic.touchdown import torque_box

    td = controller.last_touchdown
    lo, hi = controller.torque_limits(qdot)
    if td is None:
        return controller.step_model(q, qdot), lo, hi
    lo, hi = torque_box(td, lo, hi)
    return controller.step_model(q, td.qdot_plus), lo, hi


def check_flip(controller, q, qdot, got: dict, want: dict, where: str) -> None:
    """A replayed step whose mode differs from the recorded one (same status): assert that the
    flip is a tie (module doc) by the reference at the state.

    Parameters
    ----------
    controller : UnambiguousOptimalController
        The replaying controller, just called at ``(q, qdot)``.
    q, qdot : numpy.ndarray
        The recorded state.
    got, want : dict
        ``record_generic_steps.answer`` of the replay and the record.
    where : str
        For the messages.
    """
    from contactmodes.control.objective import LinearObjective

    assert got["status"] == want["status"], (where, "a different status is not a tie", got, want)
    assert got["status"] in ("optimal", "task_dropped"), (where, got, want)
    step, lo, hi = _step_and_box(controller, q, qdot)
    present = list(step.contact_index)
    modes = ["".join(m[i] for i in present) for m in (got["mode4"], want["mode4"])]
    assert all(step.label(m) == m4 for m, m4 in zip(modes, (got["mode4"], want["mode4"]))), (where, "lifted")
    obj = controller.objective
    rows = [r for i in present for r in (2 * i, 2 * i + 1)]
    sub = LinearObjective(obj.qdd, obj.force[rows], obj.tau, obj.sense)
    values, _ = reference_values(step.system, sub, lo, hi, modes=modes, task=got["status"] == "optimal")
    assert set(values) == set(modes), (where, values)
    a, b = values[modes[0]], values[modes[1]]
    tol = VALUE_RTOL * max(1.0, abs(a), abs(b))
    assert abs(a - b) <= tol, (where, "not a tie", values)
    assert abs(_hex(got["value"]) - a) <= tol and abs(_hex(want["value"]) - b) <= tol, (where, got, want, values)
    tau = _floats(got["tau"])
    assert np.all(tau >= lo - tol) and np.all(tau <= hi + tol), (where, tau, lo, hi)


def check_replayed(controller, q, qdot, got: dict, want: dict, where: str, n_modes_at_most: bool = False,
                   rtol_floor: float = 0.0) -> None:
    """Assert the replayed answer ``got`` agrees with the recorded ``want`` (module doc).

    Parameters
    ----------
    controller : UnambiguousOptimalController
        The replaying controller, just called at ``(q, qdot)`` (its ``last`` is ``got``'s step).
    q, qdot : numpy.ndarray
        The recorded state.
    got, want : dict
        ``record_generic_steps.answer`` of the replay and the record (floats as ``float.hex``).
    where : str
        For the messages.
    n_modes_at_most : bool, optional
        The replay counts at most the recorded number of feasible modes (a screened or settled
        step: ``test_generic_replay``), else exactly as many.
    rtol_floor : float, optional
        A relative tolerance the floats get at least (a settled step: the bound LP's maximizer
        against the projected ``K``'s, another route to the same optimum).
    """
    if n_modes_at_most:
        assert got["n_modes"] <= want["n_modes"], (where, got["n_modes"], want["n_modes"])
    else:
        assert got["n_modes"] == want["n_modes"], (where, got["n_modes"], want["n_modes"])
    if (got["mode4"], got["status"]) != (want["mode4"], want["status"]):
        check_flip(controller, q, qdot, got, want, where)
        return
    step = _step_and_box(controller, q, qdot)[0]
    rtol = max(rtol_floor, float_rtol(mode_condition(step.scaled_system, controller.last.mode)))
    assert close(_hex(got["value"]), _hex(want["value"]), rtol), (where, got["value"], want["value"], rtol)
    assert close_torques(_floats(got["tau"]), _floats(want["tau"]), rtol), (where, got["tau"], want["tau"], rtol)
