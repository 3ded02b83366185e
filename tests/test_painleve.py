"""The Painlevé rods of the examples, derived by hand and compared with the toolkit's sets.

A uniform rod (mass m, length ℓ, inertia I about its centre) stands on its lower end E on the
ground (normal +y, tangent t = +x), at angle θ, sliding with ẋ_E = −1 (along −t), θ̇ = 0, under a
pure moment M (the actuator). With c = ℓ/2 and ω = 0:

  Newton        m a_G = (f_t, f_n − m g)
  Euler         I α = M + r × f,   r = E − G = −c (cos θ, sin θ)
                    = M − c cos θ f_n + c sin θ f_t
  kinematics    a_E = a_G + α (c sin θ, −c cos θ)      (ω = 0)

Table III with v_t < 0: only S (separate) and L (keep sliding towards −t) survive.

* S: f = 0, a_En = −g − c cos θ M / I >= 0   ⇔   M <= M* = −g I / (c cos θ).
* L: f_t = μ f_n, a_En = 0:  f_n K = g + c cos θ M / I  with
  K = 1/m + c² cos θ (cos θ − μ sin θ) / I;  f_n >= 0 gives M <= M* if K < 0, M >= M* if K > 0.

For tan θ = 2, c = 1/2, ℓ = 1, m = 1, I = 1/12: K = 1 + 3 (1 − 2 μ) = 4 − 6 μ, so μ = 2 (K < 0)
gives S and L both on M <= M* (ambiguous there, no solution above: inconsistent), and μ = 0.5
(K = 1 > 0) gives S on M <= M*, L on M >= M* (unambiguous, touching only at M*).
The numbers are read from the TOML files; nothing below comes from the toolkit's matrices.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from contactmodes.ambiguity import inconsistent, unambiguous
from contactmodes.domains import mode_domain
from contactmodes.io import load_system
from contactmodes.modes import enumerate_modes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def hand(name: str) -> dict:
    with open(EXAMPLES / name, "rb") as fh:
        doc = tomllib.load(fh)
    (rod,) = doc["links"]
    m, inertia = rod["mass"], rod["inertia"]
    c = rod["com"][0]  # centre of mass at c from the lower end, along the rod
    theta = doc["state"]["q"]["theta"]
    mu = doc["contacts"][0]["mu"]
    g = doc["gravity"]
    m_star = -g * inertia / (c * math.cos(theta))
    K = 1.0 / m + c * c * math.cos(theta) * (math.cos(theta) - mu * math.sin(theta)) / inertia
    return dict(m_star=m_star, K=K, mu=mu)


def interval(T):
    lo, hi = T.bounding_box()
    return float(lo[0]), float(hi[0])


@pytest.mark.parametrize("name", ["painleve_rod.toml", "painleve_rod_mu05.toml"])
def test_only_S_and_L_survive_enumeration(name):
    system = load_system(EXAMPLES / name).system
    assert sorted(enumerate_modes(system).modes) == ["L", "S"]


@pytest.mark.parametrize("name", ["painleve_rod.toml", "painleve_rod_mu05.toml"])
def test_mode_torque_sets_match_the_hand_thresholds(name):
    h = hand(name)
    system = load_system(EXAMPLES / name).system
    s_lo, s_hi = interval(mode_domain(system, "S").T)
    assert s_lo == -math.inf and s_hi == pytest.approx(h["m_star"], rel=1e-9)
    l_lo, l_hi = interval(mode_domain(system, "L").T)
    if h["K"] < 0:
        assert l_lo == -math.inf and l_hi == pytest.approx(h["m_star"], rel=1e-9)
    else:
        assert l_lo == pytest.approx(h["m_star"], rel=1e-9) and l_hi == math.inf


def test_mu_2_is_ambiguous_below_and_inconsistent_above_the_threshold():
    h = hand("painleve_rod.toml")
    assert h["K"] < 0 and h["mu"] == 2.0
    system = load_system(EXAMPLES / "painleve_rod.toml").system
    for mode, other in (("S", "L"), ("L", "S")):
        res = unambiguous(system, mode)
        assert res.unambiguous == []  # every feasible torque admits both modes
        (src,) = res.sources
        assert src.source == other and not src.boundary_only
        assert interval(src.set[0])[1] == pytest.approx(h["m_star"], rel=1e-9)
    (gap,) = inconsistent(system, [-20.0], [20.0])
    lo, hi = interval(gap)
    assert lo == pytest.approx(h["m_star"], rel=1e-9) and hi == pytest.approx(20.0)


def test_mu_05_is_unambiguous_and_consistent():
    h = hand("painleve_rod_mu05.toml")
    assert h["K"] > 0
    system = load_system(EXAMPLES / "painleve_rod_mu05.toml").system
    expect = {"S": (-math.inf, h["m_star"]), "L": (h["m_star"], math.inf)}
    for mode, other in (("S", "L"), ("L", "S")):
        res = unambiguous(system, mode)
        (piece,) = res.unambiguous
        assert np.allclose(interval(piece), expect[mode], rtol=1e-9)
        (src,) = res.sources  # the two sets touch at M* only
        assert src.source == other and src.boundary_only
        assert np.allclose(interval(src.set[0]), (h["m_star"], h["m_star"]), rtol=1e-9)
    assert inconsistent(system, [-20.0], [20.0]) == []
