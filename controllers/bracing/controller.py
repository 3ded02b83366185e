"""Bracing controller: a brace torque in the robustly unambiguous set (bracing paper; bracing.md).

:class:`BracingController` computes, for a system with a disturbance set, the robustly
unambiguous set ``T'*_c`` of the desired mode (:func:`contactmodes.robust.robust_unambiguous`)
and picks one torque in it:

* ``objective="max_margin"`` (default): the torque with the largest Euclidean distance (N·m) to
  the boundary of its convex piece, within the piece's affine hull — the Chebyshev center
  (Boyd & Vandenberghe, *Convex Optimization*, §8.5.1) of each piece intersected with the torque
  bound box ``|τ_j| <= torque_bound_j``, best piece taken. Pieces of ``T'*_c`` share boundaries
  only where the region difference split them, so the margin to the piece is a lower bound on
  the margin to the whole set (pieces are first merged by :func:`polytopes.simplify` where their
  union is convex).
* ``objective="least_effort"``: the torque of least Euclidean norm whose distance to the piece
  boundary is at least ``margin`` (and inside the torque bound box).

Both are solved with cvxpy (one small LP/QP per piece; the sets are computed once per call).

The torque bound: actuators have limits and ``T'*_c`` is often unbounded (pressing harder keeps
a brace fixed), so the Chebyshev problem needs a box. Default :data:`DEFAULT_TORQUE_BOUND` =
1 N·m per joint, the order of a hobby-servo stall torque at the bracing paper's robot scale (our
choice; pass ``torque_bound`` for a real robot).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.robust import RobustResult, robust_unambiguous
from contactmodes.system import ContactSystem
from polytopes import Polytope, simplify

__all__ = ["BracingController", "BracingResult", "DEFAULT_TORQUE_BOUND", "OBJECTIVES"]

DEFAULT_TORQUE_BOUND = 1.0
"""Default per-joint torque bound (N·m) when the caller gives none (module doc)."""

OBJECTIVES = ("max_margin", "least_effort")


@dataclass
class BracingResult:
    """What :meth:`BracingController.solve` returns (SciPy ``OptimizeResult`` style).

    Attributes
    ----------
    success : a torque was found.
    status : ``"optimal"``, ``"empty"`` (``T'*_c`` has no piece inside the torque bound box),
        or ``"margin_infeasible"`` (least effort: no piece admits the requested margin).
    message : one line explaining ``status``.
    mode : the desired mode.
    torque : (n_τ,) the chosen torque (N·m), ``None`` unless ``success``.
    margin : distance (N·m) from ``torque`` to the boundary of its piece of ``T'*_c`` intersected
        with the torque bound box, ``None`` unless ``success``.
    piece : index of the chosen piece in ``pieces``.
    pieces : the convex pieces searched (``T'*_c`` after :func:`polytopes.simplify`).
    robust : the :class:`~contactmodes.robust.RobustResult` they came from.
    """

    success: bool
    status: str
    message: str
    mode: str
    torque: np.ndarray | None
    margin: float | None
    piece: int | None
    pieces: list[Polytope] = field(repr=False)
    robust: RobustResult = field(repr=False)


def _bound_vector(torque_bound, n: int) -> np.ndarray:
    bound = np.broadcast_to(np.asarray(torque_bound, dtype=float), (n,)).copy() if np.ndim(torque_bound) == 0 \
        else np.asarray(torque_bound, dtype=float).reshape(-1)
    if bound.shape != (n,):
        raise ContactModelError(f"torque_bound: expected a number or {n} numbers, got shape {bound.shape}")
    if not np.all(np.isfinite(bound)) or np.any(bound <= 0):
        raise ContactModelError("torque_bound: must be finite and > 0")
    return bound


def _hull_rows(P: Polytope, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows of ``P ∩ box`` and their norms measured within the affine hull ``{C τ = d}``.

    Returns ``(A, b, C, d, norms)``; a row's norm is that of its component orthogonal to the rows
    of ``C`` (the distance a unit step inside the hull moves it), so the Chebyshev radius is the
    in-hull one.
    """
    n = P.dim
    A = np.vstack([P.A, np.eye(n), -np.eye(n)])
    b = np.concatenate([P.b, bound, bound])
    C, d = P.C, P.d
    if C.shape[0]:
        Qc, _ = np.linalg.qr(C.T)
        proj = A - (A @ Qc) @ Qc.T
    else:
        proj = A
    return A, b, C, d, np.linalg.norm(proj, axis=1)


class BracingController:
    """Pick a brace torque that robustly produces the desired mode (module doc).

    Parameters
    ----------
    objective : ``"max_margin"`` or ``"least_effort"``.
    margin : required distance to the boundary (N·m) for ``least_effort`` (``>= 0``).
    torque_bound : per-joint bound ``|τ_j| <= torque_bound_j`` (N·m), a number or (n_τ,);
        default :data:`DEFAULT_TORQUE_BOUND`.
    within_mode : count task-row violations inside the desired mode as ambiguities.

    Raises
    ------
    ContactModelError
        On an unknown objective, a negative margin, or a non-positive torque bound.
    """

    def __init__(self, objective: str = "max_margin", margin: float = 0.0,
                 torque_bound: float | Sequence[float] = DEFAULT_TORQUE_BOUND, within_mode: bool = True) -> None:
        if objective not in OBJECTIVES:
            raise ContactModelError(f"objective: must be one of {OBJECTIVES}, got {objective!r}")
        if not np.isfinite(margin) or margin < 0:
            raise ContactModelError(f"margin: must be finite and >= 0, got {margin}")
        self.objective = objective
        self.margin = float(margin)
        self.torque_bound = torque_bound
        self.within_mode = within_mode

    def solve(self, system: ContactSystem, mode: str, robust: RobustResult | None = None) -> BracingResult:
        """Robust sets of ``mode`` for ``system`` (with its disturbance) and the chosen torque.

        ``robust`` may be passed to reuse sets already computed for the same system and mode.

        Raises
        ------
        ContactModelError
            When the system has no disturbance, ``mode`` is invalid, or the torque bound has the
            wrong shape.
        """
        bound = _bound_vector(self.torque_bound, system.n_tau)
        if robust is None:
            robust = robust_unambiguous(system, mode, within_mode=self.within_mode)
        pieces = simplify(robust.robust_unambiguous) if len(robust.robust_unambiguous) > 1 else list(robust.robust_unambiguous)
        best = None
        for i, P in enumerate(pieces):
            sol = self._solve_piece(P, bound)
            if sol is None:
                continue
            tau, radius, cost = sol
            if best is None or cost < best[3]:
                best = (i, tau, radius, cost)
        if best is None:
            if not pieces:
                status, msg = "empty", f"mode {mode}: the robustly unambiguous set is empty"
            elif self.objective == "least_effort":
                status, msg = "margin_infeasible", f"mode {mode}: no piece admits margin {self.margin:g} N·m within the torque bound"
            else:
                status, msg = "empty", f"mode {mode}: the robustly unambiguous set does not meet the torque bound box"
            return BracingResult(False, status, msg, mode, None, None, None, pieces, robust)
        i, tau, radius, _ = best
        return BracingResult(True, "optimal", f"mode {mode}: {self.objective} torque found", mode, tau,
                             float(radius), i, pieces, robust)

    def _solve_piece(self, P: Polytope, bound: np.ndarray):
        """``(τ, in-hull margin, cost)`` for one piece, or ``None`` if infeasible."""
        import cvxpy as cp

        A, b, C, d, norms = _hull_rows(P, bound)
        n = P.dim
        tau = cp.Variable(n)
        cons = []
        if C.shape[0]:
            cons.append(C @ tau == d)
        if self.objective == "max_margin":
            r = cp.Variable()
            cons += [A @ tau + r * norms <= b, r >= 0]
            prob = cp.Problem(cp.Maximize(r), cons)
        else:
            cons.append(A @ tau + self.margin * norms <= b)
            prob = cp.Problem(cp.Minimize(cp.sum_squares(tau)), cons)
        prob.solve()
        if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or tau.value is None:
            return None
        t = np.asarray(tau.value, dtype=float)
        slack = (b - A @ t) / np.where(norms > 0, norms, np.inf)
        radius = float(max(0.0, np.min(slack[norms > 0]))) if np.any(norms > 0) else 0.0
        cost = -radius if self.objective == "max_margin" else float(t @ t)
        return t, radius, cost
