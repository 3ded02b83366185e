"""Snap a state onto its contact surfaces: the smallest change of ``q`` that puts every contact point
on its surface line (a planar mechanism) or plane (a spatial one) (``contactmodes check FILE --snap``).

The loader accepts a contact only when its gap ``g_i(q) = n_i·(p_i(q) − s_i)`` is at most
``GAP_RTOL · L`` (``contactmodes.tolerances``, ``L`` the mechanism's characteristic length), so a
state written with five or six digits is rejected. ``snap_state`` finds the configuration
nearest to the written one on which every gap is zero:

    minimize ‖W (q − q₀)‖₂  subject to  g(q) = 0,

with ``W = diag(w)`` the weights of ``coordinate_weights``: ``1/L`` for a length coordinate
(``x``, ``y`` of a floating base) and ``1`` for an angle (rad). Coordinates mix metres and radians;
turning a link by ``δ`` rad moves the robot's points by up to about ``L·δ``, so a length change of
``L·δ`` counts as much as a rotation by ``δ`` (the change is measured in the robot's own size, and
does not depend on the unit of length of the file).

In 3-D (``contactmodes.model.spatial.SpatialMechanism``) the configuration holds a unit quaternion
and has one more entry than the velocity coordinates, so the change is measured and the steps are
taken in the velocity coordinates: ``q = displace(q₀, δ)`` (``SpatialMechanism.displace``: the
base moved by ``δ₀..₂`` and turned by the rotation vector ``δ₃..₅``, world axes; the joints moved
by the rest) and the problem is ``min ‖W δ‖`` subject to ``g(displace(q₀, δ)) = 0``, with weights
``1/L`` for the base position and prismatic joints (m) and ``1`` for the base rotation and the
revolute and continuous joints (rad).

Method
------
Gauss–Newton projection with the normal rows ``J_n = ∂g/∂q`` of the contact Jacobian
(``Dynamics.J <contactmodes.model.mechanism.Dynamics.J>``, each contact's last row: ``2i + 1`` in
the plane, ``3i + 2`` in 3-D, where ``∂g/∂δ`` at ``δ = 0`` is the same row). In scaled coordinates
``z = W q`` each step solves the linearized problem ``min ‖z + Δ − z₀‖`` subject to
``g(q) + J_n W⁻¹ Δ = 0``:

    Δ = d + A⁺ (−g − A d),   d = z₀ − z,   A = J_n W⁻¹,

(``A⁺`` the pseudo-inverse; the first step, at ``q₀``, is the minimum-norm Newton step
``−A⁺ g``). In 3-D, ``z`` is the accumulated displacement ``W δ`` and each step displaces the
current configuration (``displace(q, W⁻¹ Δ)``, so ``δ`` is the sum of the steps: to first order
the displacement from ``q₀``). A fixed point is a KKT point of the problem above: ``g = 0`` and ``W (q − q₀)`` in the
row space of ``J_n W⁻¹``. Steps are capped at ``MAX_STEP`` (scaled) and halved while they do
not reduce ``‖g‖``; the iteration stops when the gaps are at rounding level and the step is
negligible, or when no step reduces the gaps any more. Success: every ``|g_i| <=
SNAP_MARGIN · GAP_RTOL · L``; otherwise ``SnapError`` names the contact left farthest from its
surface (a surface out of the robot's reach, such as a wall farther away than a link is long).
A coordinate (a configuration entry) whose change is rounding noise (``_KEEP``) keeps its input
value exactly.

Velocities
----------
Moving ``q`` turns the contact normals' Jacobian rows, so the same ``q̇`` may give other normal
velocities ``v_n = J_n q̇``. When the snap changes some contact's ``v_n`` by more than the analysis's
zero threshold ``ε_i`` (``contactmodes.modes.enumeration.zero_threshold``), ``q̇`` gets the smallest change
(in the same weights ``W``) that gives every contact back its normal velocity at the input state:
``J_n(q) q̇' = J_n(q₀) q̇₀``. Otherwise — in particular for ``q̇ = 0`` — ``q̇`` is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError
from contactmodes.tolerances import GAP_RTOL, RANK_RTOL

__all__ = ["MAX_ITERATIONS", "MAX_STEP", "SNAP_MARGIN", "SnapError", "SnapResult", "coordinate_weights",
           "snap_state"]

MAX_ITERATIONS = 100
"""Largest number of Gauss–Newton steps."""

MAX_STEP = 0.25
"""Largest scaled step (rad, or lengths in units of ``L``) per iteration: keeps the iteration on the
branch of the written state (a knee does not flip over)."""

SNAP_MARGIN = 1e-3
"""Success: every gap is at most ``SNAP_MARGIN`` times the loader's tolerance ``GAP_RTOL · L``."""

_ROUNDING = 1e-13
"""Gaps (relative to ``L``) and scaled steps at or below this are rounding noise: converged."""

_KEEP = 1e-14
"""A scaled change of ``q`` at or below this (of ``q̇``: this times ``max(1, |w·q̇|)``) is noise of
the least-squares steps, not a correction: the coordinate keeps its input value, as written in the
file (the gaps move by ``O(_KEEP · L)``, far below the loader's tolerance)."""


class SnapError(ContactModelError):
    """No state near the given one puts every contact on its surface; the message names the contact
    (``"contacts[2]: contact 'joint' cannot be put on its surface …"``)."""


@dataclass(frozen=True)
class SnapResult:
    """A state snapped onto its contact surfaces (``snap_state``); ``n`` configuration entries,
    ``n_v`` velocity coordinates (``n_v = n`` in the plane), ``k`` contacts.

    Attributes
    ----------
    q, qdot : numpy.ndarray
        ``(n,)`` and ``(n_v,)`` the snapped state (SI: m, rad, m/s, rad/s).
    q_input, qdot_input : numpy.ndarray
        ``(n,)`` and ``(n_v,)`` the given state.
    gaps, gaps_input : numpy.ndarray
        ``(k,)`` contact gaps ``n_i·(p_i − s_i)`` (m) at ``q`` and at ``q_input``.
    normal_velocity, normal_velocity_input : numpy.ndarray
        ``(k,)`` ``v_n = J_n q̇`` (m/s) at the snapped and the
        given state.
    normal_velocity_unadjusted : numpy.ndarray
        ``(k,)`` ``J_n(q) q̇_input`` (m/s): what the snapped ``q`` would give
        with the input velocity.
    qdot_changed : bool
        Whether ``qdot`` was changed to keep the input normal velocities.
    length : float
        The length ``L`` (m) that weighs lengths against angles.
    weights : numpy.ndarray
        ``(n_v,)`` the weights ``w`` of ``coordinate_weights`` (1/m or 1).
    iterations : int
        Gauss–Newton steps taken (0 when nothing had to move).
    scaled_change : float
        ``‖W δ‖₂``: the size of the change (rad, or lengths in units of ``L``); in the plane
        ``δ = q − q_input``, in 3-D the sum of the steps in the velocity coordinates.
    """

    q: np.ndarray
    qdot: np.ndarray
    q_input: np.ndarray
    qdot_input: np.ndarray
    gaps: np.ndarray
    gaps_input: np.ndarray
    normal_velocity: np.ndarray
    normal_velocity_input: np.ndarray
    normal_velocity_unadjusted: np.ndarray
    qdot_changed: bool
    length: float
    weights: np.ndarray
    iterations: int
    scaled_change: float


def _spatial(mechanism: Any) -> bool:
    """A spatial mechanism (``SpatialMechanism``: a configuration apart from its velocity coordinates)."""
    return hasattr(mechanism, "configuration_names")


def coordinate_weights(mechanism: Any, length: float) -> np.ndarray:
    """Weights ``w`` of the scaled velocity coordinates ``w_j δ_j``.

    ``1/length`` for a length — ``x``, ``y`` of a planar floating base; ``x``, ``y``, ``z`` of a
    spatial one and its prismatic joints (m) — and ``1`` for an angle (rad).

    Parameters
    ----------
    mechanism : PlanarMechanism or SpatialMechanism
        The mechanism (its base and coordinates).
    length : float
        The length ``L`` (m) weighing lengths against angles.

    Returns
    -------
    numpy.ndarray
        ``(n_v,)`` in ``mechanism.coordinates`` order (1/m or 1).
    """
    if not _spatial(mechanism):
        w = np.ones(mechanism.n_q)
        if mechanism.base == "floating":
            w[:2] = 1.0 / length
        return w
    base = np.array([1.0 / length] * 3 + [1.0] * 3) if mechanism.floating else np.zeros(0)
    joints = np.array([1.0 / length if mechanism.joint_kind(j) == "prismatic" else 1.0 for j in mechanism.joints])
    return np.concatenate([base, joints])


def _configuration_weights(mechanism: Any, w: np.ndarray) -> np.ndarray:
    """The weights of the configuration entries, for ``_keep_unmoved``: ``w`` in the plane; in 3-D
    the base position's, ``1`` for the quaternion's four entries, then the joints'."""
    if not _spatial(mechanism) or not mechanism.floating:
        return w
    return np.concatenate([w[:3], np.ones(4), w[6:]])


def _displace(mechanism: Any, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """``q`` moved by ``dq`` (velocity coordinates): ``q + dq`` in the plane,
    ``SpatialMechanism.displace`` in 3-D."""
    return mechanism.displace(q, dq) if _spatial(mechanism) else q + dq


def _normal_rows(J: np.ndarray, k: int) -> np.ndarray:
    """``(k, n_v)`` the normal rows of a contact Jacobian: each contact's last row."""
    return J[J.shape[0] // k - 1::J.shape[0] // k] if k else J[:0]


def snap_state(mechanism: Any, q: ArrayLike, qdot: ArrayLike | None = None,
               length: float | None = None) -> SnapResult:
    """The state nearest to ``(q, qdot)`` with every contact on its surface (module docstring).

    Parameters
    ----------
    mechanism : PlanarMechanism or SpatialMechanism
        The mechanism, with its contacts.
    q : array_like
        ``(n,)`` configuration (m, rad), in ``mechanism.coordinates`` order (3-D:
        ``mechanism.configuration_names``, base quaternion ``(w, x, y, z)``).
    qdot : array_like, optional
        ``(n_v,)`` velocity (m/s, rad/s; 3-D: base velocities in world axes); zeros if ``None``.
    length : float, optional
        The length ``L`` (m) weighing lengths against angles, and the unit of the success
        test; default: the mechanism's characteristic length at ``(q, qdot)``
        (``characteristic_scales``), the loader's.

    Returns
    -------
    SnapResult
        ``q`` with every ``|gap| <= SNAP_MARGIN · GAP_RTOL · L`` (usually at rounding level),
        ``qdot`` as given unless a normal velocity had to be restored.

    Raises
    ------
    SnapError
        The iteration ends with a contact farther than ``SNAP_MARGIN · GAP_RTOL · L`` from its
        surface; the message names it (and any other contact left off its surface).
    ContactModelError
        ``q`` or ``qdot`` of the wrong shape or not finite, or a mechanism without links.

    Examples
    --------
    >>> from contactmodes.system_file.loader import load_system_file
    >>> box = load_system_file("examples/spatial/box_on_slope.toml")
    >>> q = box.q.copy(); q[2] += 1e-5                  # lifted by 0.01 mm
    >>> r = snap_state(box.mechanism, q, box.qdot)
    >>> bool(abs(r.gaps).max() < 1e-12), bool(abs(r.q - box.q).max() < 1e-12)
    (True, True)
    """
    n_v = len(mechanism.coordinates)
    q0 = np.array(q, dtype=float)
    qd0 = np.zeros(n_v) if qdot is None else np.array(qdot, dtype=float)
    d0 = mechanism.dynamics(q0, qd0)  # validates shapes and values
    if length is None:
        length = mechanism.characteristic_scales(q0, qd0).length
    L = float(length)
    w = coordinate_weights(mechanism, L)
    k = len(mechanism.contact_names)
    vn0 = _normal_rows(d0.v_contact[:, None], k)[:, 0].copy()
    target = SNAP_MARGIN * GAP_RTOL * L

    def gaps_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = mechanism.dynamics(x, np.zeros(n_v))
        return d.gaps, _normal_rows(d.J, k)

    x = q0.copy()
    z = np.zeros(n_v)  # the scaled displacement W δ from q0
    g, Jn = d0.gaps.copy(), _normal_rows(d0.J, k)
    iterations = 0
    while g.size and iterations < MAX_ITERATIONS:
        A = Jn / w / L  # (k, n_v): gap change (in L) per scaled coordinate
        r = g / L
        dist = -z
        step = dist + np.linalg.pinv(A, rcond=RANK_RTOL) @ (-r - A @ dist)
        size = float(np.abs(step).max())
        if size > MAX_STEP:
            step *= MAX_STEP / size
            size = MAX_STEP
        if float(np.abs(r).max()) <= _ROUNDING and size <= _ROUNDING * max(1.0, float(np.abs(z).max())):
            break
        merit = float(np.linalg.norm(g))
        alpha, accepted = 1.0, False
        while alpha >= 1e-10:
            x_try = _displace(mechanism, x, alpha * step / w)
            g_try, J_try = gaps_rows(x_try)
            merit_try = float(np.linalg.norm(g_try))
            if float(np.abs(g_try).max()) <= _ROUNDING * L or merit_try <= (1.0 - 1e-4 * alpha) * merit:
                accepted = True
                break
            alpha *= 0.5
        if not accepted:
            break  # no step reduces the gaps: converged to rounding, or stuck off a surface
        x, g, Jn, z = x_try, g_try, J_try, z + alpha * step
        iterations += 1

    if iterations:
        x = _keep_unmoved(q0, x, _configuration_weights(mechanism, w), 1.0)
        g = mechanism.contact_gaps(x)
    names = mechanism.contact_names
    off = [i for i in range(len(g)) if abs(float(g[i])) > target]
    if off:
        worst = max(off, key=lambda i: abs(float(g[i])))
        others = [names[i] for i in off if i != worst]
        also = f" (also left off: {', '.join(map(repr, others))})" if others else ""
        raise SnapError(
            f"contacts[{worst}]: contact {names[worst]!r} cannot be put on its surface by changing state.q: "
            f"the nearest state found leaves a gap of {float(g[worst]):.3g} (tolerance "
            f"{GAP_RTOL * L:.3g}, in the file's length unit) after {iterations} Gauss-Newton steps; "
            f"is the surface within the robot's reach?{also}")

    qd = qd0
    end = mechanism.dynamics(x, qd0)
    vn = _normal_rows(end.v_contact[:, None], k)[:, 0]
    unadjusted = vn.copy()
    changed = False
    if vn.size and np.any(np.abs(vn - vn0) > _zero_threshold(mechanism, x, qd0)):
        B = _normal_rows(end.J, k) / w
        qd = qd0 + (np.linalg.pinv(B, rcond=RANK_RTOL) @ (vn0 - vn)) / w
        qd = _keep_unmoved(qd0, qd, w, float(np.abs(w * qd0).max()))
        vn = _normal_rows(mechanism.dynamics(x, qd).v_contact[:, None], k)[:, 0]
        changed = True
    return SnapResult(q=x, qdot=qd, q_input=q0, qdot_input=qd0, gaps=g, gaps_input=d0.gaps.copy(),
                      normal_velocity=vn.copy(), normal_velocity_input=vn0,
                      normal_velocity_unadjusted=unadjusted, qdot_changed=changed, length=L,
                      weights=w, iterations=iterations, scaled_change=float(np.linalg.norm(z)))


def _keep_unmoved(before: np.ndarray, after: np.ndarray, w: np.ndarray, scale: float) -> np.ndarray:
    """``after`` with the entries that moved by rounding noise only (``|w_j Δ_j| <= _KEEP · max(1,
    scale)``) set back to ``before``: a coordinate the correction does not need keeps the value
    written in the file."""
    keep = np.abs(w * (after - before)) <= _KEEP * max(1.0, scale)
    return np.where(keep, before, after)


def _zero_threshold(mechanism: Any, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
    """The analysis's per-contact zero threshold ``ε_i`` (m/s) at ``(q, qdot)``."""
    from contactmodes.modes.enumeration import zero_threshold

    return zero_threshold(mechanism.contact_system(q, qdot))
