"""The five-link climber's disturbance on its brace (bracing paper; bracing.md, set-up 3).

Source: A. Greenfield, A. A. Rizzi, H. Choset, *Dynamic Ambiguities in Frictional Rigid-body
Systems with Application to Climbing via Bracing* (ICRA 2005): "Robust brace immobilization" and
"Climbing via bracing", set-ups 1 and 3.

Model
-----
A five-link snake between the walls ``x = 0`` (normal ``−x``) and ``x = X_LEFT = −L cos 45°``
(normal ``+x``). Every link has length ``L = 0.127 m`` and is massless; point masses
``m = 0.0849 kg`` sit at the free end of link 1, at every joint and at the tip of link 5 (6
masses); gravity ``g = 9.81 m/s²`` along ``−y``. Coordinates ``q = (x, y, θ, θ1, θ2, θ3, θ4)``:
``(x, y)`` the free end of link 1 (m), ``θ`` the angle of link 1 from ``+x`` (rad), ``θi`` the
relative angle of joint ``i`` (between links ``i`` and ``i + 1``, rad, counter-clockwise positive).
Every joint is actuated (``tau1 … tau4``). The brace is links 1–2 held still at
``q_b = BRACE_Q = (0, 0, 135°, −90°)`` with the three contacts of ``examples/two_link_brace.toml``
(``base``: free end of link 1 on ``x = 0``; ``tip``: tip of link 2 on ``x = 0``; ``joint``: joint 1
on ``x = X_LEFT``; ``mu = 0.3``). Links 3–5 (the free section, ``θ2, θ3, θ4``) touch nothing.

Disturbance
-----------
With ``q̇_b = 0``, ``q̈_b = 0`` the brace rows of the full model read
``M_bb q̈_b + h_bb = τ_b + τ_d + J_bᵀ f`` with (bracing.md)

    τ_d = −(M_bf q̈_f + C_bf q̇_f + g_bf)
        = h_brace(q_b) − [M(q) q̈ + h(q, q̇)]_{x, y, θ, θ1}

where ``M``, ``h`` are the full five-link model's and ``h_brace(q_b)`` is the gravity vector of the
brace-only model (``brace_mechanism``). **Mass split:** the brace-only model carries the
first three masses — free end of link 1, joint 1 and joint 2 (joint 2 is the tip of link 2, so its
mass belongs to the brace); the free section's masses are the other three: joint 3, joint 4 and
the tip of link 5 (``3 m g = 2.498 N``). ``τ_d`` enters with the **same sign as the torques**
(CONVENTIONS; ``contactmodes.model.system.Disturbance``). Coordinates are relative, so the joint-2
actuator ``tau2`` is a generalized force on ``θ2`` only and does not appear in the brace rows; its
reaction on link 2 is contained in ``τ_d`` through the free section's inertial and gravity terms.
Equivalently (Newton–Euler, the test's oracle): the free masses push on the chain with
``F_i = −m (a_i + g ŷ)``; the ``x``, ``y`` components of ``τ_d`` are ``Σ F_i``, the ``θ``
component is their z-moment about the base point ``(x, y)``, the ``θ1`` component their z-moment
about joint 1.

Trajectory (our choice)
-----------------------
The absolute angles ``φ3, φ4, φ5`` of links 3–5 (rad from ``+x``) move from ``PHI_START =
(130°, 55°, 125°)`` — folded in a zig-zag just above the brace, joint 3 near the left wall, tip
``2.40 L`` above joint 2 — to ``PHI_END = (100°, 85°, 95°)`` — stretched up the channel, tip
``2.98 L`` above joint 2 — along the minimum-jerk quintic ``s(τ) = 10τ³ − 15τ⁴ + 6τ⁵``,
``τ = t / DURATION``, ``DURATION = 1.2 s``: ``φ(t) = φ_start + s (φ_end − φ_start)``. The joint
angles ``θ2 = φ3 − 45°``, ``θ3 = φ4 − φ3``, ``θ4 = φ5 − φ4`` are affine in ``φ``, so this is the
same quintic in ``(θ2, θ3, θ4)`` between ``Q_START`` and ``Q_END``; velocity and acceleration are
zero at both ends. Outside ``[0, DURATION]`` the chain rests at the nearer end. Along the way the
free joints stay strictly between the walls (``x ∈ [−0.0816, −0.0088] m`` against
``X_LEFT = −0.0898 m``), above joint 2, and the tip rises monotonically by ``0.58 L = 7.3 cm``.

Result (201 samples): ``τ_d`` ranges over ``[−0.037, 0.043] × [−2.573, −2.444] ×
[0.031, 0.158] × [−0.188, −0.076]`` (N, N, N·m, N·m), inside bracing.md's
``D = [−0.2, 0.1] × [−3.0, −2.3] × [−0.05, 0.25] × [−0.25, 0]`` (see ``stays_inside_D``).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from contactmodes.model.mechanism import PlanarMechanism

__all__ = [
    "L", "MASS", "GRAVITY", "MU", "X_LEFT", "DURATION", "BRACE_Q", "BRACE_COORDINATES",
    "PHI_START", "PHI_END", "Q_START", "Q_END", "D_BOX",
    "chain_mechanism", "five_link_mechanism", "brace_mechanism", "chain_points",
    "absolute_angles", "trajectory", "disturbance", "disturbance_along", "disturbance_box",
    "inside_box", "stays_inside_D", "plot_disturbance",
]

L = 0.127
"""Link length (m)."""
MASS = 0.0849
"""Each point mass (kg)."""
GRAVITY = 9.81
"""Gravity (m/s², along −y)."""
MU = 0.3
"""Friction coefficient at every contact."""
X_LEFT = -L * math.cos(math.radians(45.0))
"""The left wall ``x = −L cos 45°`` (m; normal ``+x``). The right wall is ``x = 0`` (normal ``−x``)."""
DURATION = 1.2
"""Duration ``T`` of the free section's motion (s)."""
BRACE_Q = np.array([0.0, 0.0, math.radians(135.0), math.radians(-90.0)])
"""Brace configuration ``q_b = (x, y, θ, θ1)`` (m, m, rad, rad), held with zero velocity."""
BRACE_COORDINATES = ("x", "y", "theta", "theta1")
"""Names of the brace coordinates, the components of ``τ_d``."""
PHI_START = np.radians([130.0, 55.0, 125.0])
"""Absolute angles (3,) of links 3–5 at ``t = 0`` (rad from +x): folded zig-zag."""
PHI_END = np.radians([100.0, 85.0, 95.0])
"""Absolute angles (3,) of links 3–5 at ``t = DURATION`` (rad): stretched upward."""
D_BOX = (np.array([-0.2, -3.0, -0.05, -0.25]), np.array([0.1, -2.3, 0.25, 0.0]))
"""bracing.md's disturbance box ``D`` on ``(x, y, θ, θ1)``: ``(lo, hi)``, (4,) each (N, N, N·m, N·m)."""

for _a in (BRACE_Q, PHI_START, PHI_END, *D_BOX):
    _a.setflags(write=False)

_PHI2 = float(BRACE_Q[2] + BRACE_Q[3])  # absolute angle of link 2 (45°)


def _joint_angles(phi: np.ndarray) -> np.ndarray:
    """Relative joint angles ``(θ2, θ3, θ4)`` from the absolute angles of links 3–5."""
    return phi - np.concatenate([[_PHI2], phi[:-1]])


Q_START = np.concatenate([BRACE_Q, _joint_angles(PHI_START)])
"""Full configuration (7,) at ``t = 0`` (m, m, rad…)."""
Q_END = np.concatenate([BRACE_Q, _joint_angles(PHI_END)])
"""Full configuration (7,) at ``t = DURATION``."""
Q_START.setflags(write=False)
Q_END.setflags(write=False)


# --------------------------------------------------------------------------------------------
# models


def chain_mechanism(n_links: int, contacts: bool = True) -> PlanarMechanism:
    """An ``n_links`` chain of bracing.md's set-ups (``PlanarMechanism``, floating base).

    Links ``link1 … link{n}`` of length ``L``, massless; ``n + 1`` point masses ``MASS``
    (free end of link 1, each joint, tip of link ``n``); gravity ``GRAVITY``; coordinates
    ``(x, y, theta, theta1 … theta{n−1})`` (``(x, y)`` the free end of link 1); every joint actuated
    (``tau1 … tau{n−1}`` on ``theta1 …``). With ``contacts`` (requires ``n_links >= 2``) the brace's
    three contacts of ``examples/two_link_brace.toml``, in that order: ``base`` (free end of
    link 1, wall ``x = 0``, normal ``−x``), ``tip`` (tip of link 2, same wall), ``joint`` (joint 1,
    wall ``x = X_LEFT``, normal ``+x``), ``mu = MU``.

    Parameters
    ----------
    n_links : int
        Number of links, ``>= 1`` (``>= 2`` with ``contacts``).
    contacts : bool, optional
        Add the brace's three contacts.

    Returns
    -------
    PlanarMechanism
        SI units.

    Raises
    ------
    ValueError
        ``n_links < 1``, or ``contacts`` with ``n_links < 2``.
    """
    if isinstance(n_links, bool) or not isinstance(n_links, (int, np.integer)) or n_links < 1:
        raise ValueError(f"n_links: must be an integer >= 1, got {n_links!r}")
    if contacts and n_links < 2:
        raise ValueError(f"contacts: the brace contacts need links 1-2, got n_links = {n_links}")
    mech = PlanarMechanism(base="floating", gravity=GRAVITY, name=f"{n_links}_link_chain")
    mech.add_link("link1")
    mech.add_point_mass("link1", MASS, (0.0, 0.0))
    mech.add_point_mass("link1", MASS, (L, 0.0))
    for i in range(2, n_links + 1):
        mech.add_link(f"link{i}", parent=f"link{i - 1}", joint=f"theta{i - 1}", joint_position=(L, 0.0))
        mech.add_point_mass(f"link{i}", MASS, (L, 0.0))
    if contacts:
        mech.add_contact("base", "link1", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0), MU)
        mech.add_contact("tip", "link2", (L, 0.0), (0.0, 0.0), (-1.0, 0.0), MU)
        mech.add_contact("joint", "link2", (0.0, 0.0), (X_LEFT, 0.0), (1.0, 0.0), MU)
    for i in range(1, n_links):
        mech.add_actuator(f"tau{i}", f"theta{i}")
    return mech


def five_link_mechanism() -> PlanarMechanism:
    """The five-link climber of bracing.md set-up 3 (``chain_mechanism`` with 5 links, 6
    masses, the brace's three contacts, actuators ``tau1 … tau4``); coordinates
    ``(x, y, theta, theta1, theta2, theta3, theta4)``."""
    return chain_mechanism(5)


def brace_mechanism() -> PlanarMechanism:
    """The two-link brace of bracing.md set-up 1 (3 masses: free end of link 1, joint 1, tip of
    link 2 = joint 2 of the climber; three contacts; actuator ``tau1``); the same model as
    ``examples/two_link_brace.toml``."""
    return chain_mechanism(2)


_FULL = five_link_mechanism()
_BRACE = brace_mechanism()
_H_BRACE = _BRACE.dynamics(BRACE_Q, np.zeros(4)).h  # gravity only: q̇_b = 0
_H_BRACE.setflags(write=False)


def chain_points(q: Sequence[float]) -> np.ndarray:
    """World positions of the six mass points of the five-link chain at ``q``.

    Free end of link 1, joints 1–4, tip of link 5.

    Parameters
    ----------
    q : Sequence[float]
        ``(7,)`` configuration ``(x, y, θ, θ1, θ2, θ3, θ4)`` (m, rad).

    Returns
    -------
    numpy.ndarray
        ``(6, 2)`` (m).

    Raises
    ------
    ContactModelError
        On a wrong shape or non-finite ``q``.
    """
    pts = [_FULL.point_position(q, "link1", (0.0, 0.0))]
    pts += [_FULL.point_position(q, f"link{i}", (L, 0.0)) for i in range(1, 6)]
    return np.array(pts)


# --------------------------------------------------------------------------------------------
# trajectory


def _time(t) -> float:
    try:
        t_ = float(t)
    except (TypeError, ValueError):
        raise ValueError(f"t: must be a real number (s), got {t!r}") from None
    if not math.isfinite(t_):
        raise ValueError(f"t: must be finite, got {t_}")
    return t_


def _min_jerk(t: float) -> tuple[float, float, float]:
    """``s, ṡ, s̈`` (1, 1/s, 1/s²) of the quintic at ``t`` (clamped to ``[0, DURATION]``)."""
    if t <= 0.0 or t >= DURATION:
        return (0.0 if t <= 0.0 else 1.0), 0.0, 0.0
    tau = t / DURATION
    s = 10 * tau**3 - 15 * tau**4 + 6 * tau**5
    ds = (30 * tau**2 - 60 * tau**3 + 30 * tau**4) / DURATION
    dds = (60 * tau - 180 * tau**2 + 120 * tau**3) / DURATION**2
    return s, ds, dds


def absolute_angles(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Absolute angles of links 3–5 and their first two time derivatives at ``t``.

    Module doc for the trajectory.

    Parameters
    ----------
    t : float
        Time (s).

    Returns
    -------
    phi : numpy.ndarray
        ``(3,)`` (rad from ``+x``).
    dphi : numpy.ndarray
        ``(3,)`` (rad/s).
    ddphi : numpy.ndarray
        ``(3,)`` (rad/s²).

    Raises
    ------
    ValueError
        For a non-finite ``t``.
    """
    s, ds, dds = _min_jerk(_time(t))
    span = PHI_END - PHI_START
    return PHI_START + s * span, ds * span, dds * span


def trajectory(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(q, q̇, q̈)`` of the five-link chain at time ``t``.

    Order ``(x, y, θ, θ1, θ2, θ3, θ4)``, SI (m, rad, and their derivatives). The brace part is
    ``BRACE_Q`` with zero velocity and acceleration; ``(θ2, θ3, θ4)`` follow the minimum-jerk quintic
    of the module doc from ``Q_START`` (``t <= 0``) to ``Q_END`` (``t >= DURATION``).

    Parameters
    ----------
    t : float
        Time (s).

    Returns
    -------
    q, qdot, qddot : numpy.ndarray
        ``(7,)`` each (m, rad; m/s, rad/s; m/s², rad/s²).

    Raises
    ------
    ValueError
        For a non-finite ``t``.
    """
    phi, dphi, ddphi = absolute_angles(t)
    q = np.concatenate([BRACE_Q, _joint_angles(phi)])
    qd = np.concatenate([np.zeros(4), dphi - np.concatenate([[0.0], dphi[:-1]])])
    qdd = np.concatenate([np.zeros(4), ddphi - np.concatenate([[0.0], ddphi[:-1]])])
    return q, qd, qdd


# --------------------------------------------------------------------------------------------
# disturbance


def disturbance(t: float) -> np.ndarray:
    """``τ_d`` on ``(x, y, θ, θ1)`` at time ``t``.

    ``τ_d = h_brace(q_b) − [M(q) q̈ + h(q, q̇)]_{brace rows}`` along ``trajectory`` (module doc:
    sign, mass split).

    Parameters
    ----------
    t : float
        Time (s).

    Returns
    -------
    numpy.ndarray
        ``(4,)`` (N, N, N·m, N·m).

    Raises
    ------
    ValueError
        For a non-finite ``t``.
    """
    q, qd, qdd = trajectory(t)
    dyn = _FULL.dynamics(q, qd)
    return _H_BRACE - (dyn.M @ qdd + dyn.h)[:4]


def _times(times) -> np.ndarray:
    try:
        ts = np.asarray(times, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"times: must be a 1-D array of real numbers (s), got {times!r}") from None
    if ts.ndim != 1 or ts.size == 0:
        raise ValueError(f"times: must be a non-empty 1-D array, got shape {ts.shape}")
    if not np.all(np.isfinite(ts)):
        raise ValueError("times: contains NaN or infinite values")
    return ts


def disturbance_along(times) -> np.ndarray:
    """``τ_d`` at each of ``times``.

    Parameters
    ----------
    times : array_like
        ``(n,)`` times (s).

    Returns
    -------
    numpy.ndarray
        ``(n, 4)`` (N, N, N·m, N·m).

    Raises
    ------
    ValueError
        If ``times`` is not a non-empty 1-D finite array.
    """
    return np.array([disturbance(t) for t in _times(times)])


def disturbance_box(times, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Componentwise bounds ``(lo, hi)``, (4,) each, of ``τ_d`` over the trajectory.

    Parameters
    ----------
    times : array_like
        ``(n,)`` sample times (s), evaluated with ``disturbance_along``; or an already computed
        ``τ_d`` array of shape ``(n, 4)``.
    margin : float, optional
        Relative widening, ``>= 0``: each component's interval ``[lo, hi]`` is extended by
        ``margin · (hi − lo)`` on both sides (``0.1`` adds 10 % of the range at each end), to cover
        the samples' under-estimate of the extremes and model error.

    Returns
    -------
    lo, hi : numpy.ndarray
        ``(4,)`` each (N, N, N·m, N·m).

    Raises
    ------
    ValueError
        Bad ``times`` (see ``disturbance_along``), a 2-D array not of shape (n, 4), or a
        negative or non-finite ``margin``.
    """
    if not (isinstance(margin, (int, float, np.floating, np.integer)) and math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin: must be a finite number >= 0, got {margin!r}")
    arr = np.asarray(times, dtype=float)
    if arr.ndim == 2:
        if arr.shape[1] != 4 or arr.shape[0] == 0 or not np.all(np.isfinite(arr)):
            raise ValueError(f"times: a τ_d array must be finite of shape (n, 4), got {arr.shape}")
        tau_d = arr
    else:
        tau_d = disturbance_along(arr)
    lo, hi = tau_d.min(axis=0), tau_d.max(axis=0)
    pad = margin * (hi - lo)
    return lo - pad, hi + pad


def inside_box(tau_d: np.ndarray, box: tuple[np.ndarray, np.ndarray] = D_BOX) -> bool:
    """Whether every row of ``tau_d`` lies in ``box``, bounds included.

    Parameters
    ----------
    tau_d : numpy.ndarray
        ``(n, 4)`` or ``(4,)`` (N, N, N·m, N·m).
    box : tuple[numpy.ndarray, numpy.ndarray], optional
        ``(lo, hi)``, ``(4,)`` each; default bracing.md's ``D``.

    Returns
    -------
    bool
        All rows inside.
    """
    lo, hi = (np.asarray(b, dtype=float) for b in box)
    tau_d = np.atleast_2d(np.asarray(tau_d, dtype=float))
    return bool(np.all(tau_d >= lo) and np.all(tau_d <= hi))


def stays_inside_D(times=None, box: tuple[np.ndarray, np.ndarray] = D_BOX) -> bool:
    """Whether the trajectory's ``τ_d`` stays inside ``box`` at every sample of ``times``.

    With the module's trajectory it does (module doc for the bounds).

    Parameters
    ----------
    times : array_like, optional
        ``(n,)`` times (s); default 201 samples over ``[0, DURATION]``.
    box : tuple[numpy.ndarray, numpy.ndarray], optional
        ``(lo, hi)``, ``(4,)`` each; default bracing.md's ``D``.

    Returns
    -------
    bool
        All samples inside.

    Raises
    ------
    ValueError
        On bad ``times``.
    """
    ts = np.linspace(0.0, DURATION, 201) if times is None else times
    return inside_box(disturbance_along(ts), box)


# --------------------------------------------------------------------------------------------
# picture


def plot_disturbance(times, tau_d: np.ndarray, box, path, reference=D_BOX) -> None:
    """Write a PNG: four stacked panels of the ``τ_d`` components (x, y, θ, θ1) against time.

    With ``box`` (the trajectory's bound, dashed) and ``reference`` (bracing.md's ``D``, dotted) as
    horizontal lines. Agg backend.

    Parameters
    ----------
    times : array_like
        ``(n,)`` times (s).
    tau_d : numpy.ndarray
        ``(n, 4)`` (N, N, N·m, N·m).
    box : tuple[numpy.ndarray, numpy.ndarray]
        ``(lo, hi)``, ``(4,)`` each: the trajectory's bound.
    path : str or os.PathLike
        The PNG file.
    reference : tuple[numpy.ndarray, numpy.ndarray], optional
        ``(lo, hi)``, ``(4,)`` each; default bracing.md's ``D``.

    Raises
    ------
    ValueError
        On mismatched shapes or bad ``times``.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require

    require("matplotlib", "plot", "plot_disturbance")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ts = _times(times)
    tau_d = np.asarray(tau_d, dtype=float)
    if tau_d.shape != (ts.size, 4):
        raise ValueError(f"tau_d: expected shape ({ts.size}, 4), got {tau_d.shape}")
    boxes = [(np.asarray(b[0], dtype=float), np.asarray(b[1], dtype=float)) for b in (box, reference)]
    for lo, hi in boxes:
        if lo.shape != (4,) or hi.shape != (4,):
            raise ValueError("box, reference: (lo, hi) must be (4,) each")

    labels = ["$\\tau_{d,x}$ (N)", "$\\tau_{d,y}$ (N)", "$\\tau_{d,\\theta}$ (N·m)", "$\\tau_{d,\\theta_1}$ (N·m)"]
    fig, axes = plt.subplots(4, 1, figsize=(7.5, 9), sharex=True)
    for k, ax in enumerate(axes):
        ax.plot(ts, tau_d[:, k], color="C0", lw=1.8)
        (blo, bhi), (rlo, rhi) = boxes
        for v in (blo[k], bhi[k]):
            ax.axhline(v, color="C1", ls="--", lw=1.2)
        for v in (rlo[k], rhi[k]):
            ax.axhline(v, color="k", ls=":", lw=1.4)
        bottom, top = min(rlo[k], blo[k]), max(rhi[k], bhi[k])
        pad = 0.08 * (top - bottom) if top > bottom else 0.1
        ax.set_ylim(bottom - pad, top + pad)
        ax.set_ylabel(labels[k])
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(ts.min(), ts.max())
    handles = [
        plt.Line2D([], [], color="C0", lw=1.8, label="$\\tau_d$ along the trajectory"),
        plt.Line2D([], [], color="C1", ls="--", lw=1.2, label="trajectory box"),
        plt.Line2D([], [], color="k", ls=":", lw=1.4, label="D of bracing.md"),
    ]
    fig.legend(handles=handles, loc="upper center", ncol=3, fontsize=9, bbox_to_anchor=(0.5, 0.965), frameon=False)
    fig.suptitle("Five-link climber: disturbance of the free section (links 3–5) on the brace")
    fig.tight_layout(rect=(0, 0, 1, 0.955))
    fig.savefig(path, dpi=110)
    plt.close(fig)
