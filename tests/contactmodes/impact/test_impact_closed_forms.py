"""Closed forms derived here for the rocking block (thesis Sec. 5.1.4, Fig. 5.4–5.5) and the point
sliding into a slope (Fig. 5.3), against ``contactmodes.impact``.

Rocking block (width w, height h, mass m, I = m (w² + h²)/12), level, pivoting about its left
corner at ω < 0 so that its centre of mass moves down at ż = −ω w/2 when the right corner lands:

* both corners stick (FF, q̇⁺ = 0): linear and angular momentum balance give the left corner's
  normal impulse P_1n = ż (m (w² − h²)/2 − 2 I)/w², negative when h² > w² − 4 I/m
  (printed eq. 41 has +2 I: see ``test_printed_eq_41_does_not_give_the_thesis_threshold``);
* the right corner sticks, the left is released (SF): angular momentum about the right corner is
  conserved, ω⁺/ω = (I + m (h² − w²)/4)/(I + m (h² + w²)/4) = (2h² − w²)/(2 (h² + w²)) for the
  uniform block, and the right corner's impulse needs μ >= 3 h w/(4 h² + w²);
* with the pseudo-impulse δ_t m g/2 on the left corner (the rest force of FF), the block comes to
  rest iff ż <= δ_t g w² m/(m (h² − w²) + 4 I): 6.31 cm/s for the thesis's block and δ_t = 0.03 s.

Slope θ, frictionless, point of mass m sliding at v: without pseudo-impulse it leaves the ground
and slides up at v cos θ (SR), slope impulse m v sin θ, energy loss ½ m v² sin² θ; keeping the
ground would need the ground impulse −m v cot θ < 0; with the pseudo-impulse δ_t m g on the ground
it stops (FF) iff v <= δ_t g tan θ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from contactmodes.impact.outcomes import impact, impact_of_system
from contactmodes.system_file.loader import parse_system

H, W, MASS, G = 0.10, 0.05, 5.0, 9.81
I_B = MASS * (W * W + H * H) / 12.0
DT = 0.03


def block(zdot: float, mu: float = 1.0, h: float = H, w: float = W, scale: float = 1.0, mass_scale: float = 1.0):
    """The rocking block's system file (dict), lengths × ``scale`` and masses × ``mass_scale``."""
    omega = -2.0 * zdot / w
    L, m = scale, mass_scale
    doc = {
        "name": "block", "gravity": G * L,
        "links": [{"name": "b", "mass": MASS * m, "inertia": MASS * (w * w + h * h) / 12.0 * m * L * L}],
        "contacts": [{"name": n, "link": "b", "position": [sx * w / 2 * L, -h / 2 * L], "surface_point": [0.0, 0.0],
                      "surface_normal": [0.0, 1.0], "mu": mu} for n, sx in (("left", -1), ("right", 1))],
        "state": {"q": {"x": 0.0, "y": h / 2 * L, "theta": 0.0},
                  "qdot": {"x": -omega * h / 2 * L, "y": omega * w / 2 * L, "theta": omega}},
    }
    return parse_system(doc)


def run(loaded, dt: float = 0.0):
    h_rest = loaded.mechanism.contact_system(loaded.q, np.zeros_like(loaded.qdot)).h
    return impact_of_system(loaded.system, loaded.qdot, pseudo_impulse=dt, h_rest=h_rest)


def p1n_both_stick(zdot, h=H, w=W, m=MASS, inertia=I_B):
    return zdot * (m * (w * w - h * h) / 2 - 2 * inertia) / (w * w)


def rest_threshold(dt=DT, h=H, w=W, m=MASS, inertia=I_B):
    return dt * G * w * w * m / (m * (h * h - w * w) + 4 * inertia)


def test_thesis_block_threshold_is_6_3_cm_per_s():
    assert rest_threshold() == pytest.approx(0.063, abs=0.0005)  # Fig. 5.5: "lower than 6.3 cm/s"


def test_printed_eq_41_does_not_give_the_thesis_threshold():
    """Printed (41) (+2 I) with (43) would put the threshold at 22 cm/s, not 6.3."""
    printed = lambda z: z * (2 * I_B + MASS * (W * W - H * H) / 2) / (W * W)  # noqa: E731
    threshold = DT * MASS * G / 2 / -printed(1.0)
    assert threshold == pytest.approx(0.2207, abs=1e-3)
    assert abs(threshold - 0.063) > 0.1


def test_block_rocks_onto_the_landing_corner():
    zdot = 0.05
    result = run(block(zdot))
    assert result.consistent_modes == ["SF"]  # left released, right (landing) corner sticks
    out = result.outcome("SF")
    omega = -2 * zdot / W
    ratio = (2 * H * H - W * W) / (2 * (H * H + W * W))
    assert ratio == pytest.approx(0.7)
    assert out.qdot_plus[2] == pytest.approx(ratio * omega, rel=1e-9)
    # rotation about the right corner, at (w/2, -h/2) from the centre of mass: v = ω⁺ × (-w/2, h/2)
    wp = ratio * omega
    assert out.qdot_plus[:2] == pytest.approx([-wp * H / 2, -wp * W / 2], rel=1e-9)
    E0 = 0.5 * MASS * (omega * W / 2) ** 2 * (1 + (H / W) ** 2) + 0.5 * I_B * omega ** 2
    E1 = 0.5 * (I_B + MASS * (H * H + W * W) / 4) * wp ** 2
    assert out.energy_loss == pytest.approx(E0 - E1, rel=1e-9)
    # the FF impulse at the pivot is negative: the block cannot stop
    assert p1n_both_stick(zdot) < 0 and H * H > W * W - 4 * I_B / MASS


def test_friction_needed_for_the_landing_corner_to_stick():
    mu_min = 3 * H * W / (4 * H * H + W * W)
    assert mu_min == pytest.approx(0.3529, abs=1e-4)
    assert "SF" in run(block(0.05, mu=mu_min * 1.01)).consistent_modes
    below = run(block(0.05, mu=mu_min * 0.99)).consistent_modes
    assert "SF" not in below and below  # it slides instead


@pytest.mark.parametrize("factor, rests", [(0.98, True), (1.02, False)])
def test_pseudo_impulse_threshold(factor, rests):
    zdot = rest_threshold() * factor
    modes = run(block(zdot), DT).consistent_modes
    if rests:
        assert "FF" in modes and "SF" not in modes
        assert all(m[1] == "F" and m[0] != "S" for m in modes)  # left kept (F, or L/R at zero speed)
    else:
        assert modes == ["SF"]
    assert run(block(zdot)).consistent_modes == ["SF"]  # without the pseudo-impulse, always


def test_block_in_millimetres_and_grams():
    a = run(block(0.05))
    b = run(block(0.05, scale=1000.0, mass_scale=1000.0))
    assert a.consistent_modes == b.consistent_modes == ["SF"]
    qa, qb = a.outcome("SF").qdot_plus, b.outcome("SF").qdot_plus
    assert qb[:2] / 1000.0 == pytest.approx(qa[:2], rel=1e-9) and qb[2] == pytest.approx(qa[2], rel=1e-9)
    assert b.outcome("SF").impulse / 1e6 == pytest.approx(a.outcome("SF").impulse, rel=1e-9, abs=1e-12)
    zdot = rest_threshold() * 0.98
    assert run(block(zdot, scale=1000.0, mass_scale=1000.0), DT).consistent_modes == run(block(zdot), DT).consistent_modes


SLOPE_DOC = "examples/impact/slope.toml"


@pytest.mark.parametrize("theta_deg, v", [(30.0, 0.1), (60.0, 0.4), (15.0, 2.0)])
def test_slope_without_pseudo_impulse(theta_deg, v):
    loaded = slope(theta_deg, v)
    result = run(loaded)
    assert result.consistent_modes == ["SR"]
    out = result.outcome("SR")
    th = math.radians(theta_deg)
    assert out.qdot_plus[:2] == pytest.approx([v * math.cos(th) ** 2, v * math.cos(th) * math.sin(th)], rel=1e-9)
    assert out.impulse[3] == pytest.approx(v * math.sin(th), rel=1e-9)  # m = 1
    assert out.energy_loss == pytest.approx(0.5 * v * v * math.sin(th) ** 2, rel=1e-9)


@pytest.mark.parametrize("factor, mode", [(0.98, "FF"), (1.02, "SR")])
def test_slope_pseudo_impulse_threshold(factor, mode):
    th = math.radians(30.0)
    v = DT * G * math.tan(th) * factor
    assert run(slope(30.0, v), DT).consistent_modes == [mode]


def slope(theta_deg: float, v: float):
    th = math.radians(theta_deg)
    doc = {"name": "slope", "links": [{"name": "p", "mass": 1.0, "inertia": 1e-3}],
           "contacts": [{"name": "ground", "link": "p", "position": [0, 0], "surface_point": [0, 0],
                         "surface_normal": [0.0, 1.0], "mu": 0.0},
                        {"name": "slope", "link": "p", "position": [0, 0], "surface_point": [0, 0],
                         "surface_normal": [-math.sin(th), math.cos(th)], "mu": 0.0}],
           "state": {"q": {"x": 0.0, "y": 0.0, "theta": 0.0}, "qdot": {"x": v}}}
    return parse_system(doc)


def test_examples_give_the_documented_outcomes():
    assert impact("examples/impact/rocking_block.toml").consistent_modes == ["SF"]
    assert "FF" in impact("examples/impact/rocking_block.toml", pseudo_impulse=DT).consistent_modes
    assert impact(SLOPE_DOC).consistent_modes == ["SR"]
    assert impact(SLOPE_DOC, pseudo_impulse=DT).consistent_modes == ["FF"]


def test_reaction_wheel_torque_sets():
    """examples/impact/rocking_block_wheel.toml (ż = 10 cm/s, above the passive 6.3 cm/s): with
    both corners held at rest, moment balance about the centre of mass with the tangential forces
    summing to zero gives the pivot's rest force f_1n = m g/2 + τ/w for a wheel moment τ, so the
    block comes to rest (FF) iff P_1n + δ_t f_1n >= 0, i.e. τ >= w (−P_1n/δ_t − m g/2) = 0.718 N·m,
    and rocks (SF) for the other moments (the release test of the left corner is the same
    inequality reversed: kept by its normal row only, the block is at rest as in FF)."""
    zdot = 0.1
    tau_star = W * (-p1n_both_stick(zdot) / DT - MASS * G / 2)
    assert tau_star == pytest.approx(0.7182, abs=1e-4)
    result = impact("examples/impact/rocking_block_wheel.toml", pseudo_impulse=DT)
    ff, sf = result.outcome("FF"), result.outcome("SF")
    for tau, rests in ((tau_star * 1.01, True), (tau_star * 0.99, False), (-5.0, False), (5.0, True)):
        assert any(T.contains([tau]) for T in ff.torque_set) is rests
        assert any(T.contains([tau]) for T in sf.torque_set) is not rests
    assert impact("examples/impact/rocking_block_wheel.toml").consistent_modes == ["SF"]  # no δ_t: always rocks


@pytest.mark.parametrize("factor", [0.9, 0.98, 1.02, 1.5, 2.0])
def test_eq_42_corrected_decides_whether_the_block_stops(factor):
    """Corrected eq. (42): the pivot's impulse is negative iff h² > w² − 4 I/m, i.e. h > w/√2 for a
    uniform block; below, the block stops (FF, and the pivot cannot be released: rocking onto the
    landing corner would drive the pivot into the ground, ω⁺/ω < 0), above it rocks (SF). The
    printed (42), h² > w² + 4 I/m, i.e. h > √2 w, puts the switch at twice that height: the blocks
    with factor 1.02 and 1.5 rock although the printed condition says they stop."""
    h = W / math.sqrt(2.0) * factor
    result = run(block(0.05, h=h))
    modes = result.consistent_modes
    inertia = MASS * (W * W + h * h) / 12.0
    breaks = h * h > W * W - 4 * inertia / MASS
    assert breaks == (factor > 1.0)
    if breaks:
        assert modes == ["SF"]
    else:  # at rest; LF, RF: the same rest with the pivot's impulse on its cone's edge
        assert "FF" in modes and set(modes) <= {"FF", "LF", "RF"}
        assert all(np.allclose(result.outcome(m).qdot_plus, 0.0, atol=1e-12) for m in modes)
    assert (h * h > W * W + 4 * inertia / MASS) == (factor > 2.0)  # the printed condition


def test_painleve_rod_can_stop_impulsively():
    """examples/painleve_rod.toml (m = 1 kg, L = 1 m, θ = atan 2, end sliding at 1 m/s in −x): an
    impulse at the end that stops it conserves the angular momentum about the end,
    m (r × v) = (I + m |r|²) ω⁺ with r = (L/2)(cos θ, sin θ), v = (−1, 0): ω⁺ = 0.4472/(1/3);
    the impulse m (ω⁺ × r − v) = (0.4, 0.3) needs μ >= 4/3: consistent at μ = 2 (besides sliding
    on), not at μ = 0.5."""
    th = math.atan(2.0)
    r = 0.5 * np.array([math.cos(th), math.sin(th)])
    v = np.array([-1.0, 0.0])
    omega = (r[0] * v[1] - r[1] * v[0]) / (1.0 / 12.0 + r @ r)
    P = omega * np.array([-r[1], r[0]]) - v
    assert P == pytest.approx([0.4, 0.3]) and abs(P[0]) / P[1] == pytest.approx(4.0 / 3.0)
    result = impact("examples/painleve_rod.toml")
    assert set(result.consistent_modes) == {"F", "S", "L"}
    out = result.outcome("F")
    assert out.qdot_plus == pytest.approx([0.0, 0.0, omega], abs=1e-12)
    assert out.impulse == pytest.approx(P)
    assert impact("examples/painleve_rod_mu05.toml").consistent_modes == ["S", "L"]  # no stop at μ = 0.5
