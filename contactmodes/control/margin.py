"""The controllers' margin: a torque near the supremum that lies inside the unambiguous set.

``T*_c ∩ L`` (flipping paper eq. (34), cut to the limits) is not closed, and the maximizer ``τ°``
of a linear objective over the closure of one of its pieces lies on the piece's boundary: on a
removed (ambiguous) set, on a friction-cone edge or at zero contact force, where the smallest
deviation of the plant from the model changes the mode. The controllers (the one-shot
``contactmodes.control`` and the real-time ``controllers.generic``) therefore return a torque a
little inside instead, chosen by a **margin** ``δ`` given in the system's torque units
(``margin=``, ``--margin``, the ``[control]`` table's ``margin``; default ``MARGIN_RTOL`` times the
system's characteristic torque ``m L² / T²``, ``default_margin``). Distances are Euclidean over
the actuators in torque units; an actuator that applies a force (on a floating base's ``x`` or
``y``, ``PlanarMechanism.linear_coordinates``) counts its force times the characteristic length
``L`` (``actuator_lengths``), so that the rule does not depend on the units (a bare
``ContactSystem`` does not say which inputs are forces: all count as torques).

1. **Within the margin of the supremum.** The returned torque ``τ`` satisfies ``‖τ − τ°‖₂ <= δ``
   (Euclidean, torque units), so its objective is within ``‖g‖₂ δ`` of the supremum (``g`` the
   objective's gradient in torque). It lies in the limits ``L`` (a limit is not moved away from:
   the actuator applies it exactly).
2. **Clear of every mode boundary.** The ball of radius ``ρ`` around ``τ``, within the set's
   affine hull, lies inside ``T_c`` and outside every removed set (its piece's rows other than
   the limits' are met with slack ``ρ ‖a_i‖``): a deviation of the plant worth less than ``ρ`` of
   torque does not change the mode. ``ρ = MARGIN_CLEARANCE · δ`` (a half) when a point within
   the margin of ``τ°`` has it, else half the largest clearance any point there has (a piece
   thinner than the margin: toward its middle).
3. **The best such point**: the largest objective among the points of 1 with the clearance of 2
   (one LP; two more when the target clearance is out of reach). When ``τ°`` itself has the
   clearance (it lies on the limits only), it is returned unchanged: a move below
   ``FEASIBILITY_RTOL`` of the margin is the LP's noise and snapped to zero.

The points within the margin are taken as ``τ° + N y`` with ``N`` an orthonormal basis of the
set's affine hull (torque units) and ``|y_k| <= δ / √d``, ``d`` its dimension (a cube inside the
ball of radius ``δ``). Every decision (the hull, the rows) is taken on the session's scaled
problem (``contactmodes.model.scaling``); only the metric is the user's, through the actuator
units ``u`` (torque = ``u`` × scaled torque). ``δ = 0`` returns ``τ°`` itself: the supremum point,
not robust. A set that is a single point returns it (nothing to move along; no clearance is
defined). When an LP cannot find any clearance (numerical trouble only: the relative interior of
a non-empty convex set comes arbitrarily close to each of its points), the torque is moved toward
the piece's Chebyshev centre (``piece_margin_point``), by the margin or half-way, whichever is
shorter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from polytopes import Polytope, lp
from polytopes.errors import NumericalError

from contactmodes import tolerances
from contactmodes.errors import ContactModelError

__all__ = ["MarginPoint", "actuator_lengths", "default_margin", "equality_directions", "limit_row_mask",
           "margin_point", "piece_margin_point", "user_directions", "verified_lp"]


@dataclass(frozen=True)
class MarginPoint:
    """The torque the margin rule returns (module doc).

    Attributes
    ----------
    tau : numpy.ndarray
        ``(n_τ,)`` the torque, **scaled** (user torque = unit × ``tau``).
    clearance : float
        ``ρ`` (torque units): the radius of the ball around ``tau``, within the set's affine hull,
        certified inside ``T_c`` and outside the removed sets; ``inf`` for a single-point set,
        ``0`` for margin 0.
    distance : float
        ``‖τ − τ°‖₂`` (torque units), at most the margin.
    rule : str
        ``"target"`` (the clearance ``MARGIN_CLEARANCE · δ``), ``"half"`` (half the largest
        within the margin), ``"centre"`` (toward the Chebyshev centre, the fallback),
        ``"point"`` (a single-point set) or ``"none"`` (margin 0).
    """

    tau: np.ndarray
    clearance: float
    distance: float
    rule: str


def default_margin(scales) -> float:
    """``MARGIN_RTOL`` × the characteristic torque ``m L² / T²`` of ``scales``, in the system's
    torque units: the margin ``δ`` when none is given (module doc).

    Parameters
    ----------
    scales : CharacteristicScales
        The system's characteristic scales (``contactmodes.model.system.CharacteristicScales``);
        its ``torque`` (N·m) is read.

    Returns
    -------
    float
        The default margin ``δ`` (N·m).
    """
    return tolerances.MARGIN_RTOL * float(scales.torque)


def actuator_lengths(S: np.ndarray, coordinates, linear, length: float) -> np.ndarray:
    """The factor turning each actuator's input into torque units: ``L`` for a force, 1 for a
    torque (module doc).

    Parameters
    ----------
    S : numpy.ndarray
        ``(n_q, n_τ)`` the actuation matrix (generalized force = ``S τ``).
    coordinates : Sequence[str]
        The ``n_q`` coordinate names, naming the rows of ``S``.
    linear : Iterable[str]
        The coordinates that are lengths (a floating base's ``x``, ``y``:
        ``PlanarMechanism.linear_coordinates``); empty for a bare ``ContactSystem``.
    length : float
        The characteristic length ``L`` (m).

    Returns
    -------
    numpy.ndarray
        ``(n_τ,)`` ``length`` for an actuator whose column of ``S`` acts on ``linear``
        coordinates only (a force, N → N·m), 1.0 for the others (and for a zero column).
    """
    S = np.asarray(S, dtype=float)
    is_linear = np.array([c in set(linear) for c in coordinates], dtype=bool)
    out = np.ones(S.shape[1])
    for k in range(S.shape[1]):
        rows = S[:, k] != 0.0
        if rows.any() and is_linear[rows].all():
            out[k] = float(length)
    return out




def user_directions(N_scaled: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """An orthonormal basis, in torque units, of the directions spanned by a scaled basis.

    Parameters
    ----------
    N_scaled : numpy.ndarray
        ``(n_τ, d)`` a basis of directions over the scaled torque (nondimensional), of full
        column rank (``Polytope.inner_system``'s ``N``).
    unit : numpy.ndarray
        ``(n_τ,)`` the actuator units ``u`` (torque = ``u`` × scaled torque).

    Returns
    -------
    numpy.ndarray
        ``(n_τ, d)`` orthonormal columns (torque units) spanning ``diag(u) N_scaled``'s range;
        ``(n_τ, 0)`` when ``d = 0``.
    """
    if N_scaled.shape[1] == 0:
        return np.zeros((N_scaled.shape[0], 0))
    Q, _ = np.linalg.qr(np.asarray(unit, dtype=float)[:, None] * N_scaled)
    return Q


def equality_directions(C: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Orthonormal basis (torque units) of the directions ``{τ' : C τ' = 0}`` of the scaled torque.

    Parameters
    ----------
    C : numpy.ndarray
        ``(p, n_τ)`` over the scaled torque, orthonormal rows of full rank (the response's
        admissible-torque equalities, flipping paper eq. (31), whose rank the response decided).
    unit : numpy.ndarray
        ``(n_τ,)`` the actuator units ``u`` (torque = ``u`` × scaled torque).

    Returns
    -------
    numpy.ndarray
        ``(n_τ, n_τ − p)`` orthonormal columns in torque units; the identity when ``p = 0``.
    """
    n = C.shape[1]
    if C.shape[0] == 0:  # every direction: the unit vectors are orthonormal in torque units too
        return np.eye(n)
    # in torque units the subspace is {v : (C / u) v = 0}: C / u has C's rank (the columns scaled)
    _, _, Vt = np.linalg.svd(C / np.asarray(unit, dtype=float)[None, :], full_matrices=True)
    return Vt[C.shape[0]:].T


def limit_row_mask(A: np.ndarray, b: np.ndarray, A_L: np.ndarray, b_L: np.ndarray) -> np.ndarray:
    """Which rows of a set are rows of the torque limits (held, not kept clear of: module doc).

    Rows are compared divided by their Euclidean norms, within ``LIMIT_ROW_RTOL``
    (``contactmodes.tolerances``); a zero row matches nothing.

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n_τ)`` the set's rows ``A τ <= b`` over the scaled torque.
    b : numpy.ndarray
        ``(m,)`` their right-hand sides.
    A_L : numpy.ndarray
        ``(m_L, n_τ)`` the limits' rows ``A_L τ <= b_L`` over the scaled torque.
    b_L : numpy.ndarray
        ``(m_L,)`` their right-hand sides.

    Returns
    -------
    numpy.ndarray
        ``(m,)`` bool: True for a row of ``A`` equal to some row of the limits.
    """
    m = A.shape[0]
    if m == 0 or A_L.shape[0] == 0:
        return np.zeros(m, dtype=bool)
    na, nl = np.linalg.norm(A, axis=1), np.linalg.norm(A_L, axis=1)
    ok_a, ok_l = na > 0.0, nl > 0.0
    An, bn = A / np.where(ok_a, na, 1.0)[:, None], b / np.where(ok_a, na, 1.0)
    Ln, ln = A_L / np.where(ok_l, nl, 1.0)[:, None], b_L / np.where(ok_l, nl, 1.0)
    tol = tolerances.LIMIT_ROW_RTOL
    same_dir = np.abs(An[:, None, :] - Ln[None, :, :]).max(axis=2) <= tol
    same_rhs = np.abs(bn[:, None] - ln[None, :]) <= tol * np.maximum(1.0, np.abs(ln))[None, :]
    return (same_dir & same_rhs & ok_a[:, None] & ok_l[None, :]).any(axis=1)


def verified_lp(c, G, h, lo, hi, artificial):
    """One LP ``min c·x`` s.t. ``G x <= h``, ``lo <= x <= hi`` (the bounds flagged ``artificial``
    left out) by ``polytopes.lp.solve`` (verified). The margin rule's default solver; the
    real-time search passes its batched one (the same contract).

    Parameters
    ----------
    c : numpy.ndarray
        ``(n,)`` the cost (nondimensional: the scaled problem's).
    G : numpy.ndarray
        ``(m, n)`` the inequality rows.
    h : numpy.ndarray
        ``(m,)`` their right-hand sides.
    lo, hi : numpy.ndarray
        ``(n,)`` the variables' bounds.
    artificial : numpy.ndarray
        ``(n,)`` bool: the bounds not part of the problem (left free).

    Returns
    -------
    numpy.ndarray or None
        ``(n,)`` the optimal ``x``; ``None`` when the LP is not optimal or no solver's answer is
        verified (``NumericalError``): the margin rule then falls back.
    """
    bounds = [(None if a else float(l), None if a else float(u)) for l, u, a in zip(lo, hi, artificial)]
    try:
        st, x, _ = lp.solve(c, G, h, None, None, bounds, bounded=True)  # y and r are boxed, w not in c
    except NumericalError:
        return None
    return x if st == lp.OPTIMAL else None


def margin_point(A: np.ndarray, b: np.ndarray, tight: np.ndarray, tau0: np.ndarray, grad: np.ndarray,
                 unit: np.ndarray, directions: np.ndarray, margin: float, solve=verified_lp,
                 w_bound: float = 1e3) -> MarginPoint | None:
    """The margin rule (module doc) on a set given by inequality rows over ``(τ', w)``.

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n_τ + n_w)`` rows over the scaled torque ``τ'`` and ``n_w >= 0`` further variables
        ``w`` (a mode's ambiguity variables: the set is then the projection, and the clearance
        certified is that of a point whose ``w`` is fixed, a sufficient condition).
    b : numpy.ndarray
        ``(m,)`` their right-hand sides.
    tight : numpy.ndarray
        ``(m,)`` bool: the rows to keep clear of (``T_c``'s and the removed sets'); the others
        (the limits) are only held.
    tau0 : numpy.ndarray
        ``(n_τ,)`` the supremum point ``τ°``, scaled; it meets the rows (to LP tolerance).
    grad : numpy.ndarray
        ``(n_τ,)`` the objective's gradient over ``τ'``, to maximize.
    unit : numpy.ndarray
        ``(n_τ,)`` the actuator units ``u`` (torque = ``u τ'``).
    directions : numpy.ndarray
        ``(n_τ, d)`` orthonormal basis (torque units) of the set's affine hull's directions:
        the rows' equalities hold along them.
    margin : float
        ``δ`` (torque units, >= 0).
    solve : callable, optional
        ``solve(c, G, h, lo, hi, artificial) -> x or None`` for ``min c·x`` s.t. ``G x <= h``,
        ``lo <= x <= hi``, the bounds flagged ``artificial`` not part of the problem (an answer
        leaning on one must be solved without it): ``verified_lp`` (default) or a batched one.
    w_bound : float, optional
        The artificial bound on ``|w|`` handed to ``solve`` (``w`` is free).

    Returns
    -------
    MarginPoint or None
        ``None`` when no point within the margin has any clearance (numerical trouble: the caller
        falls back).
    """
    tau0 = np.asarray(tau0, dtype=float)
    n_tau, d = tau0.size, directions.shape[1]
    if margin == 0.0:
        return MarginPoint(tau0.copy(), 0.0, 0.0, "none")
    if d == 0:
        return MarginPoint(tau0.copy(), math.inf, 0.0, "point")
    M = directions / np.asarray(unit, dtype=float)[:, None]  # user displacement y -> scaled torque
    Ay = A[:, :n_tau] @ M
    G = np.hstack([Ay, A[:, n_tau:]])
    n_w = G.shape[1] - d
    kappa = np.where(tight, np.sqrt(np.einsum("ij,ij->i", Ay, Ay)), 0.0)  # row change per unit of user distance
    rhs = b - A[:, :n_tau] @ tau0
    h = margin / math.sqrt(d)
    target = tolerances.MARGIN_CLEARANCE * margin
    c = np.concatenate([-(grad @ M), np.zeros(n_w)])
    lo = np.concatenate([np.full(d, -h), np.full(n_w, -w_bound)])
    hi = np.concatenate([np.full(d, h), np.full(n_w, w_bound)])
    art = np.concatenate([np.zeros(d, dtype=bool), np.ones(n_w, dtype=bool)])
    x = solve(c, G, rhs - target * kappa, lo, hi, art)
    rule, rho = "target", target
    if x is None:  # the target is out of reach within the margin: the largest clearance, then half of it
        cr = np.zeros(d + n_w + 1)
        cr[-1] = -1.0
        xr = solve(cr, np.hstack([G, kappa[:, None]]), rhs, np.append(lo, 0.0), np.append(hi, target),
                   np.append(art, False))
        if xr is None or not xr[-1] > tolerances.FEASIBILITY_RTOL * margin:
            return None
        rule, rho = "half", 0.5 * float(xr[-1])
        x = solve(c, G, rhs - rho * kappa, lo, hi, art)
        if x is None:  # pragma: no cover - xr's own point meets these rows with slack
            return None
    y = np.minimum(np.maximum(x[:d], -h), h)
    y[np.abs(y) <= tolerances.FEASIBILITY_RTOL * h] = 0.0  # LP noise around τ° itself (a degenerate optimum)
    return MarginPoint(tau0 + M @ y if y.any() else tau0.copy(), rho, float(np.linalg.norm(y)), rule)


def piece_margin_point(piece: Polytope, tau0: np.ndarray, grad: np.ndarray, unit: np.ndarray,
                       limits: tuple[np.ndarray, np.ndarray], margin: float) -> MarginPoint:
    """The margin rule (module doc) on one piece of ``T*_c ∩ L`` (a polytope over the scaled
    torque, closed), its rows equal to a limit row (``limit_row_mask``) held, the others kept clear of.

    Parameters
    ----------
    piece : Polytope
        The piece (scaled torques), non-empty.
    tau0 : numpy.ndarray
        ``(n_τ,)`` its maximizer of ``grad`` (scaled).
    grad : numpy.ndarray
        ``(n_τ,)`` the objective's gradient over the scaled torque, to maximize.
    unit : numpy.ndarray
        ``(n_τ,)`` the actuator units.
    limits : tuple[numpy.ndarray, numpy.ndarray]
        ``(A_L (m_L, n_τ), b_L (m_L,))`` the limits' rows over the scaled torque.
    margin : float
        ``δ`` (torque units, >= 0).

    Returns
    -------
    MarginPoint
        Over the piece's affine hull (``Polytope.inner_system``); when the LPs find no clearance,
        ``τ°`` moved toward the piece's Chebyshev centre by ``min(δ, ‖centre − τ°‖ / 2)``, its
        clearance the radius that segment certifies.
    """
    tau0 = np.asarray(tau0, dtype=float)
    if margin == 0.0:
        return MarginPoint(tau0.copy(), 0.0, 0.0, "none")
    hull = piece.inner_system()
    if hull is None:  # pragma: no cover - the piece holds its own maximizer
        return MarginPoint(tau0.copy(), 0.0, 0.0, "none")
    N = user_directions(hull.N, unit)
    A, b = piece.A[hull.rows], piece.b[hull.rows]  # the implicit equalities hold along the hull
    tight = ~limit_row_mask(A, b, *limits)
    got = margin_point(A, b, tight, tau0, grad, unit, N, margin)
    if got is not None:
        return got
    ball = piece.chebyshev_center()
    step = np.asarray(unit, dtype=float) * (ball.center - tau0)
    length = float(np.linalg.norm(step))
    if not (ball.radius > 0.0 and length > 0.0):
        return MarginPoint(tau0.copy(), 0.0, 0.0, "none")
    t = min(0.5, margin / length)
    radius = ball.radius if math.isfinite(ball.radius) else length
    return MarginPoint(tau0 + t * (ball.center - tau0), t * radius * float(np.min(unit)), t * length, "centre")
