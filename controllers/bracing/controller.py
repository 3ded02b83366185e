"""Bracing controller: a brace torque in the robustly unambiguous set (bracing paper; bracing.md).

``BracingController`` computes, for a system with a disturbance set, the robustly
unambiguous set ``T'*_c`` of the desired mode (``contactmodes.robust_unambiguous``)
and picks one torque in it:

* ``objective="max_margin"`` (default): the torque with the largest Euclidean distance (N·m) to
  the boundary of its convex piece, within the piece's affine hull — the Chebyshev center
  (Boyd & Vandenberghe, *Convex Optimization*, §8.5.1) of each piece intersected with the torque
  bound box ``|τ_j| <= torque_bound_j``, best piece taken. Pieces of ``T'*_c`` share boundaries
  only where the region difference split them, so the margin to the piece is a lower bound on
  the margin to the whole set (pieces are first merged by ``polytopes.simplify`` where their
  union is convex).
* ``objective="least_effort"``: the torque of least Euclidean norm whose distance to the piece
  boundary is at least ``margin`` (and inside the torque bound box).

The Chebyshev ball is ``polytopes.Polytope.chebyshev_center`` (verified LPs, emptiness and
affine hull by the one rule of ``Polytope.is_empty``, decided relative to the data's own
scale); the least-effort torque is one small QP per piece (cvxpy) in scaled variables; the sets
are computed once per call. The margin reported is measured afterwards, on the returned torque,
to the boundary of ``piece ∩ box`` within its affine hull.

The torque bound: actuators have limits and ``T'*_c`` is often unbounded (pressing harder keeps
a brace fixed), so the Chebyshev problem needs a box. Default ``DEFAULT_TORQUE_BOUND`` =
1 N·m per joint, the order of a hobby-servo stall torque at the bracing paper's robot scale (our
choice; pass ``torque_bound`` for a real robot).

Large torque bounds: any bound up to ``MAGNITUDE_MAX`` (1e60 N·m, the largest magnitude the
toolkit accepts for an input number, ``contactmodes.tolerances``) gives the right answer; a
larger one is refused with an error naming that range (the answer for an unbounded piece has the
bound's size, and near the largest double, 1.8e308, the LPs' arithmetic overflows). Decisions (does a piece meet the box, is
the margin achievable) are taken by the polytopes package relative to the scale of the problem
it is given, so a box of 1e10 N·m around a piece of size 1 N·m would make that scale 1e10 and
its tolerances swamp the piece. The box is therefore first clipped at ``BOX_CLIP_FACTOR``
times the piece's own size (its largest finite bounding-box coordinate and facet distance from
the origin): exact for the coordinates in which the piece is bounded (it never reaches the
clipped sides); for a coordinate in which it is unbounded the clipped answer is kept only when
doubling the clipped box does not enlarge the ball (more than ``CONTAINMENT_TOL`` of
``polytopes.tolerances`` times its size) — the radius is concave in the box size, so no larger
box does either. Otherwise the ball grows with the box (an unbounded piece such as ``τ <=
−0.6`` N·m: the centre is near ``−bound/2``) and it is computed in the user's box, where the
answer itself has the box's size. Least effort first finds a torque with the margin in the
smallest of the boxes ``BOX_CLIP_FACTOR · max(size, margin) · 2^k`` (up to the user's) that has
one, then clips the QP's box at ``BOX_CLIP_FACTOR`` times that torque's norm plus the margin (the
least-norm torque is no longer), so its answer does not depend on a bound that is not active.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from contactmodes import ContactModelError, ContactSystem, RobustResult, robust_unambiguous
from contactmodes.modes.contact_model import require_planar
from contactmodes.tolerances import MAGNITUDE_MAX
from polytopes import NumericalError, Polytope, simplify
from polytopes.tolerances import COEF_ZERO_TOL, CONTAINMENT_TOL

__all__ = ["BracingController", "BracingResult", "DEFAULT_TORQUE_BOUND", "OBJECTIVES"]

DEFAULT_TORQUE_BOUND = 1.0
"""Default per-joint torque bound (N·m) when the caller gives none (module doc)."""

BOX_CLIP_FACTOR = 4.0
"""The torque bound box is clipped at this multiple of a piece's own size before the Chebyshev
and least-effort problems are solved (module doc, *Large torque bounds*). A size, not a
tolerance: any value above 1 gives the same answers; 4 leaves the clipped sides well clear of
the piece for the LP."""

OBJECTIVES = ("max_margin", "least_effort")


@dataclass
class BracingResult:
    """What ``BracingController.solve`` returns (SciPy ``OptimizeResult`` style).

    Attributes
    ----------
    success : bool
        A torque was found.
    status : str
        ``"optimal"``, ``"empty"`` (``T'*_c`` has no piece inside the torque bound box),
        or ``"margin_infeasible"`` (least effort: no piece admits the requested margin).
    message : str
        One line explaining ``status``.
    mode : str
        The desired mode.
    torque : numpy.ndarray or None
        ``(n_τ,)`` the chosen torque (N·m), ``None`` unless ``success``.
    margin : float or None
        Distance (N·m) from ``torque`` to the boundary of its piece of ``T'*_c`` intersected
        with the torque bound box, ``None`` unless ``success``.
    piece : int or None
        Index of the chosen piece in ``pieces``.
    pieces : list[Polytope]
        The convex pieces searched (``T'*_c`` after ``polytopes.simplify``).
    robust : RobustResult
        The ``RobustResult`` they came from.
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
    if not np.all(np.isfinite(bound)) or np.any(bound <= 0) or np.any(bound > MAGNITUDE_MAX):
        raise ContactModelError(f"torque_bound: must be > 0 and <= {MAGNITUDE_MAX:g} N·m "
                                f"(contactmodes.tolerances.MAGNITUDE_MAX), got {_bound_text(torque_bound)}")
    return bound


def _bound_text(torque_bound) -> str:
    return ", ".join(f"{v:g}" for v in np.atleast_1d(np.asarray(torque_bound, dtype=float)))


def _boxed(P: Polytope, bound: np.ndarray) -> Polytope:
    """``P ∩ {|τ_j| <= bound_j}``."""
    return P.intersect(Polytope.box(-bound, bound))


def _piece_size(P: Polytope) -> tuple[float, np.ndarray]:
    """``(R, unbounded)``: the piece's own size ``R`` (N·m) — its largest finite bounding-box
    coordinate and its largest facet distance from the origin (``|b_i|/||a_i||``,
    ``|d_i|/||c_i||``), 0 only for a cone with its apex at the origin — and (n,) bool, the
    coordinates in which it is unbounded."""
    lo, hi = P.bounding_box()
    ends = np.abs(np.concatenate([lo, hi]))
    sizes = [ends[np.isfinite(ends)]]
    for M, v in ((P.A, P.b), (P.C, P.d)):
        norms = np.linalg.norm(M, axis=1)
        sizes.append(np.abs(v[norms > 0]) / norms[norms > 0])
    return float(np.max(np.concatenate(sizes), initial=0.0)), ~(np.isfinite(lo) & np.isfinite(hi))


def _ball(P: Polytope, bound: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Chebyshev centre and radius of ``P ∩ box`` within its affine hull, ``None`` when empty
    (``polytopes.Polytope.chebyshev_center``: scaled decisions, verified LPs)."""
    ball = _boxed(P, bound).chebyshev_center()
    if not ball.radius >= 0:  # -inf: empty by the polytopes emptiness rule
        return None
    return ball.center, float(ball.radius)


def _max_margin_ball(P: Polytope, bound: np.ndarray, R: float,
                     unbounded: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The Chebyshev ball of ``P ∩ {|τ_j| <= bound_j}``, ``None`` when they do not meet.

    Decided in a box at the piece's own scale whenever the user's box cannot matter (module doc,
    *Large torque bounds*): the box is first clipped at ``BOX_CLIP_FACTOR`` times the piece's size
    ``R`` (``_piece_size``; ``unbounded``: the coordinates in which the piece is unbounded).
    Clipping a coordinate in which the piece is bounded changes nothing (the piece lies within
    ``R`` of the origin there). When a coordinate in which it is unbounded was clipped, the ball is computed in the clipped box and in the box twice as
    large: the radius is a concave nondecreasing function of that size, so if doubling the box
    gains no more than ``CONTAINMENT_TOL`` times its size, no larger box gains more than that
    fraction of the user's bound, and the clipped ball is kept; otherwise (the radius grows with
    the box, or the piece misses the clipped box) the ball is computed in the user's box.
    """
    clip = np.minimum(bound, BOX_CLIP_FACTOR * R)
    if R == 0.0 or np.array_equal(clip, bound):
        return _ball(P, bound)
    if not np.any(unbounded & (clip < bound)):
        return _ball(P, clip)  # the same set: only sides the piece never reaches were moved in
    near = _ball(P, clip)
    if near is not None:
        far = _ball(P, np.minimum(bound, 2.0 * clip))
        if far is not None and far[1] <= near[1] + CONTAINMENT_TOL * float(np.max(clip)):
            return near
    return _ball(P, bound)


def _hull_rows(P: Polytope, bound: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rows of ``P ∩ box`` that bound it within the piece's affine hull, and their in-hull norms.

    Returns ``(H, h, A, b, norms)``: the piece's orthonormal hull equalities ``H τ = h``
    (``polytopes.Polytope.affine_hull`` of ``P`` alone, implicit equalities included, decided
    at the piece's own scale) and the rows ``A τ <= b`` of ``P`` and of the box whose component
    orthogonal to the rows of ``H`` is not zero (``COEF_ZERO_TOL`` relative to the row), with the
    norm of that component (the distance a unit step inside the hull moves the row), so that
    distances to the boundary are the in-hull ones.
    """
    H, h = P.affine_hull()
    n = P.dim
    A = np.vstack([P.A, np.eye(n), -np.eye(n)])
    b = np.concatenate([P.b, bound, bound])
    proj = A - (A @ H.T) @ H if H.shape[0] else A
    norms = np.linalg.norm(proj, axis=1)
    live = norms > COEF_ZERO_TOL * np.linalg.norm(A, axis=1)
    return H, h, A[live], b[live], norms[live]


def _margin(P: Polytope, bound: np.ndarray, tau: np.ndarray) -> float:
    """Distance (N·m) from ``tau`` to the boundary of ``P ∩ box`` within the piece's affine hull
    (0 for a single point); ``NumericalError`` when ``tau`` is not in ``P ∩ box``
    (``polytopes.Polytope.contains``, its tolerance)."""
    if not (P.contains(tau) and np.all(np.abs(tau) <= bound * (1.0 + CONTAINMENT_TOL))):
        raise NumericalError("bracing: the chosen torque is not in its piece of T'*_c within the torque bound")
    _, _, A, b, norms = _hull_rows(P, bound)
    if not norms.size:
        return 0.0
    return float(max(0.0, np.min((b - A @ tau) / norms)))


class BracingController:
    """Pick a brace torque that robustly produces the desired mode under a disturbance set.

    ``solve`` computes the robustly unambiguous set ``T'*_c`` of the desired mode (the torques
    for which, for every disturbance of the system's set ``D``, the mode is feasible and no
    other mode or task violation is possible; ``contactmodes.analysis.robust``) and picks one
    torque in it by ``objective``, inside the torque bound box ``|τ_j| <= torque_bound_j``. The
    module docstring describes the optimization problems and the box clipping.

    Parameters
    ----------
    objective : str, optional
        ``"max_margin"`` (default): the Chebyshev center of a convex piece of ``T'*_c`` (within
        the torque bound box), the torque farthest from the piece's boundary; or
        ``"least_effort"``: the torque of least Euclidean norm at distance at least ``margin``
        from the boundary.
    margin : float, optional
        Required distance to the boundary for ``"least_effort"``, N·m, finite and ``>= 0``
        (default 0).
    torque_bound : float or array_like, optional
        Per-joint bound ``|τ_j| <= torque_bound_j``, N·m: one number for every joint or shape
        ``(n_τ,)``; each in ``(0, MAGNITUDE_MAX]``. Default ``DEFAULT_TORQUE_BOUND`` (1 N·m).
        Checked by ``solve``, which knows ``n_τ``.
    within_mode : bool, optional
        Count task-row violations inside the desired mode as ambiguities (default ``True``; the
        bracing paper's within-mode ambiguity).

    Raises
    ------
    ContactModelError
        On an unknown ``objective`` or a negative or non-finite ``margin``. A torque bound that
        is not positive, exceeds ``MAGNITUDE_MAX`` or has the wrong shape is reported by
        ``solve``.

    See Also
    --------
    contactmodes.robust_unambiguous : The set the torque is chosen in.
    BracingResult : What ``solve`` returns.

    References
    ----------
    Greenfield, Rizzi & Choset, *Dynamic Ambiguities in Frictional Rigid-body Systems with
    Application to Climbing via Bracing* (ICRA 2005): the robustly unambiguous set of a brace
    under a bounded disturbance and the bracing controller that chooses a torque in it
    (worked example: ``docs/examples/bracing.md``).
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*, Sec. III-G (the unambiguous set ``T*_c``, eq. (34)).
    Boyd & Vandenberghe, *Convex Optimization*, Sec. 8.5.1 (the Chebyshev center).

    Examples
    --------
    The two-link brace of the five-link climber (bracing paper, set-up 3) under the free
    section's disturbance box; desired mode ``FFF`` (all three contacts fixed):

    >>> from contactmodes.system_file.loader import load_system_file
    >>> from controllers.bracing.controller import BracingController
    >>> climber = load_system_file("examples/five_link_climb.toml")
    >>> result = BracingController().solve(climber.system, climber.desired_mode)
    >>> result.success, result.status, len(result.pieces)
    (True, 'optimal', 1)
    >>> round(float(result.torque[0]), 3), round(result.margin, 3)     # N·m
    (-0.806, 0.194)
    >>> BracingController(objective="fastest")
    Traceback (most recent call last):
    ...
    contactmodes.errors.ContactModelError: objective: must be one of ('max_margin', 'least_effort'), got 'fastest'
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

        Parameters
        ----------
        system : ContactSystem
            The system at its state, with a ``disturbance`` (the set ``D``).
        mode : str
            The desired mode, one letter of ``FSLR`` per contact.
        robust : RobustResult, optional
            Sets already computed by ``robust_unambiguous`` for the same system and mode, to
            reuse.

        Returns
        -------
        BracingResult
            ``success`` and ``status`` (``"optimal"``, ``"empty"`` or ``"margin_infeasible"``),
            the torque (shape ``(n_τ,)``, N·m) and its margin (N·m) on success, and the pieces
            searched.

        Raises
        ------
        ContactModelError
            When the system has no disturbance, ``mode`` is invalid, the torque bound has the
            wrong shape or is not in ``(0, MAGNITUDE_MAX]``, or the system's contact model is not
            the planar one (``"bracing controller: planar contact systems only for now (issue
            40)"``).

        Examples
        --------
        >>> from contactmodes.system_file.loader import load_system_file
        >>> climber = load_system_file("examples/five_link_climb.toml")
        >>> result = BracingController("least_effort", margin=0.05).solve(climber.system, "FFF")
        >>> round(float(result.torque[0]), 3), round(result.margin, 3)     # N·m
        (-0.662, 0.05)
        """
        require_planar(system.contact_model, "bracing controller")
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
        """``(τ, in-hull margin, cost)`` for one piece, or ``None`` if no torque of it qualifies."""
        R, unbounded = _piece_size(P)
        if self.objective == "max_margin":
            ball = _max_margin_ball(P, bound, R, unbounded)
            if ball is None:
                return None
            tau = ball[0]
            margin = _margin(P, bound, tau)  # in the piece's own hull: 0 where the box only touches it
        else:
            found = _margin_point(P, bound, R, self.margin)
            if found is None:
                return None
            center, radius = found
            tau = _least_effort(P, bound, center, min(self.margin, radius))
            margin = _margin(P, bound, tau)
        cost = -margin if self.objective == "max_margin" else float(tau @ tau)
        return tau, margin, cost


def _margin_point(P: Polytope, bound: np.ndarray, R: float,
                  margin: float) -> tuple[np.ndarray, float] | None:
    """A torque of ``P ∩ box`` at in-hull distance ``>= margin`` from its boundary and that distance,
    or ``None`` when there is none.

    The Chebyshev centre of ``P`` in the boxes ``min(bound, BOX_CLIP_FACTOR · max(R, margin) · 2^k)``,
    ``k = 0, 1, …`` up to the user's box, the first with the margin (to ``CONTAINMENT_TOL`` of the
    sizes involved) taken: a point no larger than it has to be, so that the least-effort QP is set
    up at the scale of its answer (a box of 1e10 N·m does not make it 1e10)."""
    t = BOX_CLIP_FACTOR * max(R, margin)
    while True:
        box = np.minimum(bound, t) if t > 0 else bound
        ball = _ball(P, box)
        if ball is not None:
            radius = _margin(P, bound, ball[0])
            if radius + CONTAINMENT_TOL * max(float(np.max(np.abs(ball[0]))), margin, R) >= margin:
                return ball[0], radius
        if np.array_equal(box, bound):
            return None
        t *= 2.0


def _least_effort(P: Polytope, bound: np.ndarray, center: np.ndarray, margin: float) -> np.ndarray:
    """The least-norm ``τ`` of ``P ∩ box`` at in-hull distance ``>= margin`` from its boundary,
    given ``center``, a point at that distance (``_margin_point``).

    The least-norm point is no longer than ``center``, so the box is first clipped at
    ``BOX_CLIP_FACTOR · (||center|| + margin)`` (the clipped sides are inactive at the optimum,
    which is therefore unchanged), and the QP is solved with cvxpy in ``u = τ / s``, ``s`` the
    largest side of that box (unit rows, right-hand sides at most 1: the solver's tolerances are
    relative to the answer's own size), by Clarabel."""
    import cvxpy as cp

    size = float(np.linalg.norm(center)) + margin
    if size == 0.0:
        return np.zeros(P.dim)  # the origin has the margin: nothing is shorter
    clip = np.minimum(bound, BOX_CLIP_FACTOR * size)
    H, h, A, b, norms = _hull_rows(P, clip)
    s = float(np.max(clip))
    rows = np.linalg.norm(A, axis=1)
    u = cp.Variable(P.dim)
    cons = [(A / rows[:, None]) @ u <= (b - margin * norms) / (rows * s)] if A.shape[0] else []
    if H.shape[0]:
        cons.append(H @ u == h / s)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(u)), cons)
    prob.solve(solver=cp.CLARABEL)  # interior point to about 1e-8; silent (OSQP prints to stdout)
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or u.value is None:
        raise NumericalError(f"bracing: the least-effort QP reported {prob.status} on a piece whose "
                             "Chebyshev radius admits the margin")
    return s * np.asarray(u.value, dtype=float)
