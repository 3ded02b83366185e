"""The five-link climber's disturbance on its brace, against Newton–Euler on the point masses.

Independent oracle: the free section's masses (joints 3 and 4, tip of link 5) need the forces
``m (a_i + g ŷ)``; by d'Alembert they load the chain with ``F_i = −m (a_i + g ŷ)`` at ``p_i``. The
generalized force of ``F_i`` on a coordinate is ``F_i · ∂p_i/∂q``: ``x``, ``y`` translate every
point (components of ``Σ F_i``); ``θ`` rotates the whole chain about the base point, ``θ1`` links
2–5 about joint 1 (z-moments of ``F_i`` about those points). Positions and accelerations are
computed here from the absolute link angles, not through the mechanism module.
"""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import numpy as np
import pytest

from controllers.bracing.climb import (
    BRACE_Q, D_BOX, DURATION, GRAVITY, L, MASS, absolute_angles, disturbance, disturbance_along,
    disturbance_box, inside_box, trajectory,
)

ROOT = Path(__file__).resolve().parents[1]
PHI1, PHI2 = math.radians(135.0), math.radians(45.0)
BASE = np.zeros(2)
JOINT1 = L * np.array([math.cos(PHI1), math.sin(PHI1)])
JOINT2 = JOINT1 + L * np.array([math.cos(PHI2), math.sin(PHI2)])
X_LEFT = -L * math.cos(math.radians(45.0))


def free_masses(t):
    """Positions and accelerations (3, 2) of the masses at joint 3, joint 4 and the tip of link 5."""
    phi, dphi, ddphi = absolute_angles(t)
    pos, acc = [], []
    p, a = JOINT2.copy(), np.zeros(2)
    for f, df, ddf in zip(phi, dphi, ddphi):
        u = np.array([math.cos(f), math.sin(f)])
        perp = np.array([-math.sin(f), math.cos(f)])
        p = p + L * u
        a = a + L * (ddf * perp - df * df * u)
        pos.append(p.copy())
        acc.append(a.copy())
    return np.array(pos), np.array(acc)


def newton_euler(t):
    pos, acc = free_masses(t)
    F = -MASS * (acc + np.array([0.0, GRAVITY]))
    cross = lambda r, f: r[..., 0] * f[..., 1] - r[..., 1] * f[..., 0]  # noqa: E731
    return np.array([F[:, 0].sum(), F[:, 1].sum(), cross(pos - BASE, F).sum(), cross(pos - JOINT1, F).sum()])


@pytest.mark.parametrize("t", [0.0, 0.2, 0.55, 0.75, 1.1, DURATION])
def test_disturbance_matches_newton_euler(t):
    expected = newton_euler(t)
    assert np.allclose(disturbance(t), expected, rtol=1e-9, atol=1e-12)


def test_static_disturbance_is_the_weight_of_the_free_section():
    # at the ends the quintic has zero velocity and acceleration: only gravity
    for t in (0.0, DURATION):
        q, qd, qdd = trajectory(t)
        assert np.allclose(qd, 0) and np.allclose(qdd, 0)
        pos, _ = free_masses(t)
        w = MASS * GRAVITY
        expected = [0.0, -3 * w, -w * (pos[:, 0] - BASE[0]).sum(), -w * (pos[:, 0] - JOINT1[0]).sum()]
        assert np.allclose(disturbance(t), expected, atol=1e-12)
    assert disturbance(0.0)[1] == pytest.approx(-3 * 0.0849 * 9.81)


def test_trajectory_stays_between_the_walls_and_rises():
    heights = []
    for t in np.linspace(0.0, DURATION, 61):
        q, _, _ = trajectory(t)
        assert np.allclose(q[:4], BRACE_Q)
        pos, _ = free_masses(t)
        assert np.all(pos[:, 0] < 0.0) and np.all(pos[:, 0] > X_LEFT)
        heights.append(pos[-1, 1])
    assert heights[-1] > heights[0] + 0.1 * L
    assert np.all(np.diff(heights) >= -1e-12)


def test_disturbance_stays_in_the_box_of_bracing_md():
    tau_d = disturbance_along(np.linspace(0.0, DURATION, 76))
    assert inside_box(tau_d, D_BOX)
    lo, hi = disturbance_box(tau_d, margin=0.1)
    assert np.all(lo < tau_d.min(axis=0)) and np.all(hi > tau_d.max(axis=0))


def test_demo_script_runs_and_plots(tmp_path, capsys):
    out = tmp_path / "climb.png"
    demo = runpy.run_path(str(ROOT / "examples" / "climb_demo.py"))
    assert demo["main"](["--output", str(out), "--samples", "31"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = capsys.readouterr().out
    assert "inside bracing.md's D: True" in text
    res = demo["run"](str(out), samples=31)["results"]
    # a smaller disturbance box admits more torques: the trajectory's robust bound is above D's
    top = {k: r.robust.robust_feasible.bounding_box()[1][0] for k, r in res.items()}
    assert top["trajectory box"] > top["D of bracing.md"]
    assert all(r.success for r in res.values())
