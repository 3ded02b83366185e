"""The five-link climber's disturbance on its brace (bracing paper; bracing.md, set-up 3).

A five-link snake between the walls ``x = 0`` (normal ``−x``) and ``x = −L cos 45°`` (normal
``+x``): links 1–2 form the brace of set-up 1, held still at ``q_b = (0, 0, 135°, −90°)``; links
3–5 (the free section, joint angles ``θ2, θ3, θ4``) move upward without touching anything. Every
link has length ``L``, point masses ``m`` sit at the free end of link 1 and at every joint and the
tip (6 masses), links are massless, gravity ``g`` along ``−y``.

The free section acts on the brace through the brace rows of the full equations of motion
(bracing.md):

    τ_d = h_b^brace(q_b) − [M(q) q̈ + h(q, q̇)]_brace rows,      q̈_b = 0, q̇_b = 0,

where ``h_b^brace`` is the brace-only model (links 1–2 and their three masses — the mass at joint 2
is the tip of link 2 and belongs to the brace) and ``M``, ``h`` are the full five-link model's. The
sign is that of the torques: ``M_bb q̈_b + h_bb = τ_b + τ_d + Jᵀ f``. The joint-2 actuator acts on
``θ2`` only (relative coordinates) and so does not appear in the brace rows.

Trajectory (our choice, documented): the absolute link angles ``φ3, φ4, φ5`` of links 3–5 move
from ``(115°, 70°, 110°)`` (a zig-zag inside the channel) to ``(100°, 84°, 96°)`` (stretched up
the channel) along a minimum-jerk quintic ``s(τ) = 10τ³ − 15τ⁴ + 6τ⁵``, ``τ = t / T``, over
``T = DURATION = 1.5 s``; the joint angles are ``θ2 = φ3 − φ2``, ``θ3 = φ4 − φ3``, ``θ4 = φ5 − φ4``
with ``φ2 = 45°``. The tip rises from 2.79 L to 2.97 L above joint 2 and the free joints stay
strictly between the walls (tested).
"""

from __future__ import annotations

import math

import numpy as np

from contactmodes.mechanism import PlanarMechanism

__all__ = [
    "L", "MASS", "GRAVITY", "DURATION", "BRACE_Q", "PHI_START", "PHI_END", "D_BOX",
    "chain_mechanism", "absolute_angles", "trajectory", "disturbance", "disturbance_along",
    "disturbance_box", "inside_box", "plot_disturbance",
]

L = 0.127
"""Link length (m)."""
MASS = 0.0849
"""Each point mass (kg)."""
GRAVITY = 9.81
"""Gravity (m/s², along −y)."""
DURATION = 1.5
"""Duration of the free section's motion (s)."""
BRACE_Q = np.array([0.0, 0.0, math.radians(135.0), math.radians(-90.0)])
"""Brace configuration ``(x, y, θ, θ1)`` (m, m, rad, rad)."""
PHI_START = np.radians([115.0, 70.0, 110.0])
"""Absolute angles of links 3–5 at ``t = 0`` (rad from +x)."""
PHI_END = np.radians([100.0, 84.0, 96.0])
"""Absolute angles of links 3–5 at ``t = DURATION`` (rad)."""
D_BOX = (np.array([-0.2, -3.0, -0.05, -0.25]), np.array([0.1, -2.3, 0.25, 0.0]))
"""bracing.md's disturbance box on ``(x, y, θ, θ1)`` (N, N, N·m, N·m)."""

_PHI2 = BRACE_Q[2] + BRACE_Q[3]  # absolute angle of link 2 (45°)


def chain_mechanism(n_links: int) -> PlanarMechanism:
    """An ``n_links`` chain of set-up 3 (floating base at the free end of link 1; joints
    ``theta1 … theta{n−1}``; ``n + 1`` point masses; no contacts, no actuators)."""
    if n_links < 1:
        raise ValueError(f"n_links: must be >= 1, got {n_links}")
    mech = PlanarMechanism(base="floating", gravity=GRAVITY, name=f"{n_links}-link chain")
    mech.add_link("link1")
    mech.add_point_mass("link1", MASS, (0.0, 0.0))
    mech.add_point_mass("link1", MASS, (L, 0.0))
    for i in range(2, n_links + 1):
        mech.add_link(f"link{i}", parent=f"link{i - 1}", joint=f"theta{i - 1}", joint_position=(L, 0.0))
        mech.add_point_mass(f"link{i}", MASS, (L, 0.0))
    return mech


def _min_jerk(t: float) -> tuple[float, float, float]:
    """``s, ṡ, s̈`` of the quintic at time ``t`` (clamped to ``[0, DURATION]``)."""
    tau = min(max(t / DURATION, 0.0), 1.0)
    s = 10 * tau**3 - 15 * tau**4 + 6 * tau**5
    ds = (30 * tau**2 - 60 * tau**3 + 30 * tau**4) / DURATION
    dds = (60 * tau - 180 * tau**2 + 120 * tau**3) / DURATION**2
    return s, ds, dds


def absolute_angles(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Absolute angles of links 3–5 and their first two derivatives at ``t`` (each (3,), rad…)."""
    s, ds, dds = _min_jerk(t)
    span = PHI_END - PHI_START
    return PHI_START + s * span, ds * span, dds * span


def trajectory(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(q, q̇, q̈)`` of the five-link chain at ``t`` (each (7,): x, y, θ, θ1…θ4; SI)."""
    phi, dphi, ddphi = absolute_angles(t)
    prev = np.concatenate([[_PHI2], phi[:-1]])
    rel = phi - prev
    drel = dphi - np.concatenate([[0.0], dphi[:-1]])
    ddrel = ddphi - np.concatenate([[0.0], ddphi[:-1]])
    q = np.concatenate([BRACE_Q, rel])
    return q, np.concatenate([np.zeros(4), drel]), np.concatenate([np.zeros(4), ddrel])


_FULL = chain_mechanism(5)
_BRACE = chain_mechanism(2)
_H_BRACE = _BRACE.dynamics(BRACE_Q, np.zeros(4)).h


def disturbance(t: float) -> np.ndarray:
    """``τ_d`` (4,) on ``(x, y, θ, θ1)`` at time ``t`` (N, N, N·m, N·m); module doc."""
    q, qd, qdd = trajectory(t)
    dyn = _FULL.dynamics(q, qd)
    return _H_BRACE - (dyn.M @ qdd + dyn.h)[:4]


def disturbance_along(times) -> np.ndarray:
    """``τ_d`` at each time: (len(times), 4)."""
    return np.array([disturbance(float(t)) for t in np.asarray(times, dtype=float).reshape(-1)])


def disturbance_box(tau_d: np.ndarray, margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Componentwise bounds of ``tau_d`` (n, 4), widened by ``margin`` × their width on each side."""
    tau_d = np.asarray(tau_d, dtype=float)
    lo, hi = tau_d.min(axis=0), tau_d.max(axis=0)
    pad = margin * (hi - lo)
    return lo - pad, hi + pad


def inside_box(tau_d: np.ndarray, box: tuple[np.ndarray, np.ndarray] = D_BOX) -> bool:
    """Whether every row of ``tau_d`` (n, 4) lies in ``box`` (default bracing.md's ``D``)."""
    lo, hi = box
    return bool(np.all(tau_d >= lo) and np.all(tau_d <= hi))


def plot_disturbance(times, tau_d: np.ndarray, box, path: str, reference=D_BOX) -> None:
    """Four stacked panels of ``τ_d`` components against time with ``box`` (the trajectory's
    bound) and ``reference`` (bracing.md's ``D``) as horizontal lines; writes a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = ["τ_d,x (N)", "τ_d,y (N)", "τ_d,θ (N·m)", "τ_d,θ1 (N·m)"]
    fig, axes = plt.subplots(4, 1, figsize=(7, 8), sharex=True)
    for k, ax in enumerate(axes):
        ax.plot(times, tau_d[:, k], color="C0", lw=1.8, label="τ_d along the trajectory")
        for v in (box[0][k], box[1][k]):
            ax.axhline(v, color="C1", ls="--", lw=1.2)
        for v in (reference[0][k], reference[1][k]):
            ax.axhline(v, color="k", ls=":", lw=1.2)
        ax.set_ylabel(labels[k])
        span = max(reference[1][k], box[1][k]) - min(reference[0][k], box[0][k])
        ax.set_ylim(min(reference[0][k], box[0][k]) - 0.1 * span, max(reference[1][k], box[1][k]) + 0.1 * span)
    axes[0].plot([], [], color="C1", ls="--", label="trajectory box")
    axes[0].plot([], [], color="k", ls=":", label="D of bracing.md")
    axes[0].legend(fontsize=8, loc="lower right", ncol=3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Five-link climber: disturbance of the free section on the brace")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
