"""The five-link climber's disturbance on its brace (bracing.md set-up 3), against Newton–Euler.

Independent oracle: the chain's kinematics are written here from the definition of the
coordinates (absolute link angle ``φ_k = θ + θ1 + … + θ_{k−1}``, joint ``k`` at ``Σ L (cos φ, sin φ)``),
not through ``contactmodes.model.mechanism``. The free section's masses (joints 3 and 4, tip of link 5)
need the forces ``m (a_i + g ŷ)``; by d'Alembert they load the brace with
``F_i = −m (a_i + g ŷ)`` at ``p_i``. The generalized force of ``F_i`` on coordinate ``q_j`` is
``F_i · ∂p_i/∂q_j``: ``x``, ``y`` translate every point (the components of ``Σ F_i``); ``θ`` rotates
the whole chain about the base point ``(x, y)`` (``∂p/∂θ = ẑ × (p − p_base)``: the z-moment of
``F_i`` about the base); ``θ1`` rotates links 2–5 about joint 1 (the z-moment about joint 1).
"""

from __future__ import annotations

import runpy

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.system_file.loader import load_system_file
from controllers.bracing.climb import (
    BRACE_Q, D_BOX, DURATION, GRAVITY, L, MASS, Q_END, Q_START, X_LEFT, brace_mechanism, chain_mechanism,
    chain_points, disturbance, disturbance_along, disturbance_box, five_link_mechanism, inside_box,
    plot_disturbance, stays_inside_D, trajectory,
)

EXAMPLES = ROOT / "examples"
# bracing.md, set-up 3, typed in here (not imported) so that D_BOX is checked against the text
D_TEXT = (np.array([-0.2, -3.0, -0.05, -0.25]), np.array([0.1, -2.3, 0.25, 0.0]))
TIMES = [0.0, 0.13, 0.37, 0.6, 0.81, 1.05, DURATION]


def _cross(r, f):
    return r[..., 0] * f[..., 1] - r[..., 1] * f[..., 0]


def kinematics(q, qd, qdd):
    """Positions, velocities, accelerations (6, 2) of the six mass points from ``(q, q̇, q̈)`` (7,)."""
    phi = q[2] + np.concatenate([[0.0], np.cumsum(q[3:])])
    dphi = qd[2] + np.concatenate([[0.0], np.cumsum(qd[3:])])
    ddphi = qdd[2] + np.concatenate([[0.0], np.cumsum(qdd[3:])])
    u = np.stack([np.cos(phi), np.sin(phi)], axis=1)
    perp = np.stack([-np.sin(phi), np.cos(phi)], axis=1)
    pos = np.vstack([q[:2], q[:2] + L * np.cumsum(u, axis=0)])
    vel = np.vstack([qd[:2], qd[:2] + L * np.cumsum(dphi[:, None] * perp, axis=0)])
    acc_links = L * (ddphi[:, None] * perp - (dphi**2)[:, None] * u)
    acc = np.vstack([qdd[:2], qdd[:2] + np.cumsum(acc_links, axis=0)])
    return pos, vel, acc


def newton_euler(pos, acc):
    """τ_d (4,) from the positions and accelerations (6, 2) of the six mass points."""
    F = -MASS * (acc[3:] + np.array([0.0, GRAVITY]))  # joints 3, 4 and the tip of link 5
    base, joint1 = pos[0], pos[1]
    return np.array([F[:, 0].sum(), F[:, 1].sum(), _cross(pos[3:] - base, F).sum(), _cross(pos[3:] - joint1, F).sum()])


def oracle(t):
    pos, _, acc = kinematics(*trajectory(t))
    return newton_euler(pos, acc)


# ---------------------------------------------------------------------------- the oracle


@pytest.mark.parametrize("t", TIMES)
def test_disturbance_matches_newton_euler(t):
    expected = oracle(t)
    got = disturbance(t)
    assert got.shape == (4,)
    assert np.max(np.abs(got - expected)) <= 1e-9 * np.linalg.norm(expected)


def test_dynamic_part_is_not_negligible():
    # the oracle comparison would be weak if the motion were quasi-static
    static = [newton_euler(kinematics(*trajectory(t))[0], np.zeros((6, 2))) for t in TIMES]
    dyn = np.array([oracle(t) for t in TIMES]) - np.array(static)
    assert np.abs(dyn[:, :2]).max() > 0.03  # N
    assert np.abs(dyn[:, 2:]).max() > 0.005  # N·m


def test_oracle_accelerations_by_finite_differences():
    # the trajectory's q̇, q̈ are the derivatives of its q, and the analytic point accelerations
    # agree with second differences of the positions: the oracle does not depend on either
    h = 1e-4
    for t in (0.21, 0.6, 0.97):
        (qm, _, _), (q0, qd, qdd), (qp, _, _) = trajectory(t - h), trajectory(t), trajectory(t + h)
        assert np.allclose((qp - qm) / (2 * h), qd, atol=1e-6)
        assert np.allclose((qp - 2 * q0 + qm) / h**2, qdd, atol=1e-4)
        pm, p0, pp = (kinematics(q, np.zeros(7), np.zeros(7))[0] for q in (qm, q0, qp))
        acc_fd = (pp - 2 * p0 + pm) / h**2
        _, vel, acc = kinematics(q0, qd, qdd)
        assert np.allclose((pp - pm) / (2 * h), vel, atol=1e-7)
        assert np.allclose(acc_fd, acc, atol=2e-5)
        assert np.allclose(newton_euler(p0, acc_fd), disturbance(t), rtol=0, atol=1e-6)


def test_kinematics_agree_with_the_mechanism():
    for t in (0.0, 0.5, DURATION):
        q = trajectory(t)[0]
        assert np.allclose(chain_points(q), kinematics(q, np.zeros(7), np.zeros(7))[0], atol=1e-14)


@pytest.mark.parametrize("t", [-0.5, 0.0, DURATION, DURATION + 1.0])
def test_static_disturbance_is_the_weight_of_the_free_section(t):
    # at the ends (and held beyond them) the quintic has zero velocity and acceleration: gravity only
    q, qd, qdd = trajectory(t)
    assert np.all(qd == 0) and np.all(qdd == 0)
    assert np.allclose(q, Q_START if t <= 0 else Q_END)
    pos = kinematics(q, qd, qdd)[0]
    w = MASS * GRAVITY
    x_free = pos[3:, 0]
    expected = [0.0, -3 * w, -w * (x_free - pos[0, 0]).sum(), -w * (x_free - pos[1, 0]).sum()]
    assert np.allclose(disturbance(t), expected, rtol=1e-12, atol=1e-14)
    assert disturbance(t)[1] == pytest.approx(-3 * 0.0849 * 9.81, rel=1e-12)  # −2.4985 N


# ---------------------------------------------------------------------------- models


def test_brace_mechanism_is_the_two_link_brace_example():
    ref = load_system_file(EXAMPLES / "two_link_brace.toml").system
    mine = brace_mechanism().contact_system(BRACE_Q, np.zeros(4))
    assert mine.coordinates == ref.coordinates == ("x", "y", "theta", "theta1")
    assert mine.contacts == ref.contacts and mine.torques == ref.torques
    for name in ("M", "h", "J", "S", "Jdot_qdot", "mu"):
        assert np.allclose(getattr(mine, name), getattr(ref, name), atol=1e-15), name
    assert np.allclose(brace_mechanism().contact_gaps(BRACE_Q), 0.0, atol=1e-15)


def test_five_link_mechanism():
    mech = five_link_mechanism()
    assert mech.coordinates == ("x", "y", "theta", "theta1", "theta2", "theta3", "theta4")
    assert mech.actuators == ("tau1", "tau2", "tau3", "tau4")
    assert np.array_equal(mech.actuator_matrix(), np.vstack([np.zeros((3, 4)), np.eye(4)]))
    assert mech.contact_names == ("base", "tip", "joint")
    q = Q_START
    d = mech.dynamics(q, np.zeros(7))
    assert d.M[0, 0] == pytest.approx(6 * MASS) and d.h[1] == pytest.approx(6 * MASS * GRAVITY)
    assert np.allclose(d.gaps, 0.0, atol=1e-15)
    brace = brace_mechanism().dynamics(BRACE_Q, np.zeros(4))
    assert np.allclose(d.J[:, :4], brace.J, atol=1e-15) and np.all(d.J[:, 4:] == 0)
    with pytest.raises(ValueError, match="n_links"):
        chain_mechanism(0)
    with pytest.raises(ValueError, match="contacts"):
        chain_mechanism(1)
    assert chain_mechanism(1, contacts=False).n_q == 3


# ---------------------------------------------------------------------------- geometry


def test_trajectory_stays_between_the_walls_and_rises():
    heights = []
    for t in np.linspace(0.0, DURATION, 121):
        q, _, _ = trajectory(t)
        assert q.shape == (7,) and np.array_equal(q[:4], BRACE_Q)
        pos = kinematics(q, np.zeros(7), np.zeros(7))[0]
        # points along links 3-5 (joint 2 itself is the brace's contact on x = 0)
        s = np.linspace(0.0, 1.0, 11)[:, None, None]
        pts = (pos[2:5] + s * (pos[3:6] - pos[2:5])).reshape(-1, 2)[3:]
        assert np.all(pts[:, 0] < -1e-3) and np.all(pts[:, 0] > X_LEFT + 1e-3)
        assert np.all(pts[:, 1] > pos[2, 1])  # above joint 2: clear of the brace's links
        heights.append(pos[-1, 1])
    assert heights[-1] > heights[0] + 0.5 * L
    assert np.all(np.diff(heights) >= -1e-12)


def test_trajectory_rejects_non_finite_time():
    for bad in (float("nan"), float("inf"), "soon"):
        with pytest.raises(ValueError, match="t"):
            trajectory(bad)


# ---------------------------------------------------------------------------- boxes


def test_d_box_is_bracing_md_and_the_example_file():
    assert all(np.array_equal(a, b) for a, b in zip(D_BOX, D_TEXT))
    dist = load_system_file(EXAMPLES / "five_link_climb.toml").system.disturbance
    lo, hi = dist.set.bounding_box()
    assert np.allclose(lo, D_TEXT[0]) and np.allclose(hi, D_TEXT[1])


def test_disturbance_box_and_inside_D():
    times = np.linspace(0.0, DURATION, 61)
    tau_d = disturbance_along(times)
    assert tau_d.shape == (61, 4)
    lo, hi = disturbance_box(times)
    assert np.array_equal(lo, tau_d.min(axis=0)) and np.array_equal(hi, tau_d.max(axis=0))
    lo2, hi2 = disturbance_box(times, margin=0.1)
    assert np.allclose(lo2, lo - 0.1 * (hi - lo)) and np.allclose(hi2, hi + 0.1 * (hi - lo))
    assert all(np.array_equal(a, b) for a, b in zip(disturbance_box(tau_d, margin=0.1), (lo2, hi2)))
    # the chosen trajectory keeps τ_d inside bracing.md's D, with its 10 % margin too
    assert inside_box(tau_d, D_TEXT) and stays_inside_D()
    assert np.all(lo2 >= D_TEXT[0]) and np.all(hi2 <= D_TEXT[1])
    assert not stays_inside_D(times, (lo + 0.01, hi))
    assert not inside_box(tau_d, (lo, hi - 1e-3))
    for bad in (-0.1, float("nan")):
        with pytest.raises(ValueError, match="margin"):
            disturbance_box(times, margin=bad)
    for bad in ([], [0.0, float("nan")], np.zeros((3, 3))):
        with pytest.raises(ValueError, match="times"):
            disturbance_box(bad)


def test_plot_disturbance(tmp_path):
    times = np.linspace(0.0, DURATION, 41)
    tau_d = disturbance_along(times)
    out = tmp_path / "climb.png"
    plot_disturbance(times, tau_d, disturbance_box(tau_d, 0.1), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="tau_d"):
        plot_disturbance(times, tau_d[:-1], D_BOX, tmp_path / "bad.png")


def test_demo_script_runs_and_plots(tmp_path, capsys):
    out = tmp_path / "climb.png"
    demo = runpy.run_path(str(EXAMPLES / "climb_demo.py"))
    assert demo["main"](["--output", str(out), "--samples", "31"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = capsys.readouterr().out
    assert "inside bracing.md's D: True" in text
    res = demo["run"](str(out), samples=31)["results"]
    # a smaller disturbance box admits more torques: the trajectory's robust bound is above D's
    top = {k: r.robust.robust_feasible.bounding_box()[1][0] for k, r in res.items()}
    assert top["trajectory box"] > top["D of bracing.md"]
    assert all(r.success for r in res.values())


def test_sign_convention_brace_rows_with_tau_d_on_the_torque_side():
    # M_bb q̈_b + h_bb = S_b τ + τ_d + J_bᵀ f (q̈_b = 0) holds exactly when the full model's brace rows
    # M q̈ + h = S τ + Jᵀ f do, for any torques and contact forces (tau2…tau4 act on θ2…θ4 only)
    rng = np.random.default_rng(3)
    full, brace = five_link_mechanism(), brace_mechanism()
    Sb = brace.actuator_matrix()
    hb = brace.dynamics(BRACE_Q, np.zeros(4)).h
    for t in (0.3, 0.8):
        q, qd, qdd = trajectory(t)
        d = full.dynamics(q, qd)
        tau, f = rng.normal(size=4), rng.normal(size=6)
        full_residual = (d.M @ qdd + d.h - full.actuator_matrix() @ tau - d.J.T @ f)[:4]
        brace_residual = hb - Sb @ tau[:1] - disturbance(t) - d.J[:, :4].T @ f
        assert np.allclose(brace_residual, full_residual, atol=1e-12)
