"""The Painlevé rods of the examples, derived by hand and compared with the toolkit's sets.

Set-up (read from the TOML files with ``tomllib`` and checked below, never from the toolkit's
matrices): a uniform rod of mass m, length ℓ, central inertia I stands on its lower end E on the
ground y = 0 (normal n = (0, 1), tangent t = (n_y, −n_x) = (1, 0)) at angle θ from +x. The
generalized coordinates are (x, y, θ) with (x, y) = E (the root of the floating base), the centre
of mass G at distance c = ℓ/2 from E along the rod. The only actuator is a pure moment M on θ.

Velocities (from ``[state].qdot``): the contact point is the root, so v_E = (ẋ, ẏ) = (−1, 0):
v_t = t·v_E = −1 < 0 (sliding towards −t), v_n = n·v_E = 0 (touching, not separating). Table III
of the flipping paper then allows S (separate) and the sliding mode in the direction of motion,
L (f_t = +μ f_n, the friction opposing the motion); F needs v_t = 0 and R needs v_t > 0. Both
survive the acceleration pruning of Sec. III-F: S only needs a_n > 0 (reachable, ÿ is free
kinematically) and L only a_n = 0 (no tangential sign condition while sliding).

Newton–Euler with ω = θ̇ = 0 (no centripetal terms), r = E − G = −c (cos θ, sin θ):

  Newton        m a_G = (f_t, f_n − m g)
  Euler         I α = M + r × f = M − c cos θ f_n + c sin θ f_t
  kinematics    a_E = a_G + α k × (E − G) = a_G + α c (sin θ, −cos θ)

* S (f = 0): α = M/I, a_En = −g − c cos θ M / I must be >= 0  ⇔  M <= M* = −g I / (c cos θ).
* L (f_t = μ f_n, a_En = 0):
      (f_n − m g)/m − c cos θ (M − c cos θ f_n + c sin θ μ f_n)/I = 0
      ⇔  f_n K = g + c cos θ M / I,    K = 1/m + c² cos θ (cos θ − μ sin θ) / I,
  and f_n >= 0 gives M >= M* when K > 0, M <= M* when K < 0 (the right-hand side is >= 0 exactly
  for M >= M*).

With ℓ = 1, c = 1/2, m = 1, I = 1/12, tan θ = 2 (cos θ = 1/√5, sin θ = 2/√5):
c² cos² θ / I = 0.6, c² sin θ cos θ / I = 1.2, so K = 1.6 − 1.2 μ, zero at μ_P = 4/3, and
M* = −g I / (c cos θ) = −9.81 · √5 / 6 ≈ −3.656 N·m.

* μ = 2 (K = −0.8 < 0, Painlevé): S and L both exist for every M <= M* — the model is ambiguous
  there (T*_S = T*_L = ∅, each mode the other's ambiguity source on (−∞, M*]) — and neither exists
  for M > M*: inconsistent; within the box [−20, 20] the inconsistent set is [M*, 20].
* μ = 0.5 (K = 1 > 0): S on (−∞, M*], L on [M*, ∞): exactly one mode everywhere, the two sets
  touch at M* only (a boundary-only source), nothing is inconsistent.
"""

from __future__ import annotations

import math
try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the tomli dependency
    import tomli as tomllib  # type: ignore[no-redef]

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.analysis.ambiguity import inconsistent, unambiguous, untasked_domains
from contactmodes.analysis.session import mode_domain
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file
from contactmodes.modes.enumeration import enumerate_modes
from polytopes import union_contains

RODS = ["painleve_rod.toml", "painleve_rod_mu05.toml"]
BOX = (-20.0, 20.0)


# ----------------------------------------------------------------------------- by hand --------
def hand(name: str) -> dict:
    """The rod's numbers from the TOML file and everything derived from them by hand."""
    with open(EXAMPLES / name, "rb") as fh:
        doc = tomllib.load(fh)
    (rod,) = doc["links"]
    (contact,) = doc["contacts"]
    (act,) = doc["actuators"]
    q, qd = doc["state"]["q"], doc["state"]["qdot"]
    # the derivation's assumptions, checked on the file itself
    assert doc["mechanism"]["base"] == "floating" and act["coordinate"] == "theta"
    assert contact["position"] == [0.0, 0.0]          # the contact point E is the root
    assert rod["com"][1] == 0.0 and rod["com"][0] > 0  # G on the rod's axis, c from E
    assert contact["surface_normal"] == [0.0, 1.0]     # the ground, n = +y
    assert (q["x"], q["y"]) == tuple(contact["surface_point"])  # E touches the ground
    m, inertia, c = rod["mass"], rod["inertia"], rod["com"][0]
    theta, mu, g = q["theta"], contact["mu"], doc["gravity"]
    assert qd["theta"] == 0.0  # ω = 0: no centripetal terms
    n = np.array(contact["surface_normal"], dtype=float)
    t = np.array([n[1], -n[0]])
    v_e = np.array([qd["x"], qd["y"]])  # E is the root: v_E = (ẋ, ẏ)
    v_t, v_n = float(t @ v_e), float(n @ v_e)
    # Table III: v_n = 0 (normally at rest); v_t < 0 → S, L; v_t > 0 → S, R; v_t = 0 → all four
    assert v_n == 0.0
    modes = {"S", "L"} if v_t < 0 else {"S", "R"} if v_t > 0 else {"F", "S", "L", "R"}
    cth, sth = math.cos(theta), math.sin(theta)
    m_star = -g * inertia / (c * cth)
    K = 1.0 / m + c * c * cth * (cth - mu * sth) / inertia
    mu_p = (1.0 / m + c * c * cth * cth / inertia) / (c * c * sth * cth / inertia)  # K = 0
    return dict(m=m, I=inertia, c=c, theta=theta, mu=mu, g=g, v_t=v_t, modes=modes,
                m_star=m_star, K=K, mu_p=mu_p)


def hand_S(h: dict, M: float) -> tuple[np.ndarray, float]:
    """Mode S at moment M: (q̈ = (ẍ_E, ÿ_E, θ̈), a_En); a solution iff a_En >= 0."""
    alpha = M / h["I"]
    a_g = np.array([0.0, -h["g"]])
    a_e = a_g + alpha * h["c"] * np.array([math.sin(h["theta"]), -math.cos(h["theta"])])
    return np.array([a_e[0], a_e[1], alpha]), float(a_e[1])


def hand_L(h: dict, M: float) -> tuple[np.ndarray, np.ndarray]:
    """Mode L at moment M: (q̈, f = (f_t, f_n)); a solution iff f_n >= 0."""
    c, cth, sth, mu = h["c"], math.cos(h["theta"]), math.sin(h["theta"]), h["mu"]
    f_n = (h["g"] + c * cth * M / h["I"]) / h["K"]
    f_t = mu * f_n
    alpha = (M - c * cth * f_n + c * sth * f_t) / h["I"]
    a_g = np.array([f_t / h["m"], f_n / h["m"] - h["g"]])
    a_e = a_g + alpha * c * np.array([sth, -cth])
    return np.array([a_e[0], a_e[1], alpha]), np.array([f_t, f_n])


def hand_modes(h: dict, M: float) -> set[str]:
    """The modes with a solution at moment M (by the two closed forms above)."""
    out = set()
    if hand_S(h, M)[1] >= 0:
        out.add("S")
    if hand_L(h, M)[1][1] >= 0:
        out.add("L")
    return out


def hand_intervals(h: dict) -> dict[str, tuple[float, float]]:
    """Each mode's torque set as an interval, from the signs worked out in the module doc."""
    S = (-math.inf, h["m_star"])
    L = (-math.inf, h["m_star"]) if h["K"] < 0 else (h["m_star"], math.inf)
    return {"S": S, "L": L}


def sweep(h: dict) -> np.ndarray:
    """Moments across the box, away from the threshold M* (where both sets have their boundary)."""
    Ms = np.concatenate([np.linspace(*BOX, 81), h["m_star"] + np.array([-0.5, -1e-3, 1e-3, 0.5])])
    return Ms[np.abs(Ms - h["m_star"]) > 1e-4]


def interval(T) -> tuple[float, float]:
    lo, hi = T.bounding_box()
    return float(lo[0]), float(hi[0])


def approx_interval(got, expected):
    return all((math.isinf(e) and g == e) or (math.isfinite(g) and g == pytest.approx(e, rel=1e-9, abs=1e-12))
               for g, e in zip(got, expected))


# ------------------------------------------------------------------------------- tests --------
def test_the_hand_numbers():
    """The closed forms of the module doc on the files' numbers."""
    for name, mu, K in (("painleve_rod.toml", 2.0, -0.8), ("painleve_rod_mu05.toml", 0.5, 1.0)):
        h = hand(name)
        assert h["mu"] == mu and h["K"] == pytest.approx(K) and h["mu_p"] == pytest.approx(4.0 / 3.0)
        assert h["m_star"] == pytest.approx(-9.81 * math.sqrt(5.0) / 6.0)
        assert (h["K"] < 0) == (h["mu"] > h["mu_p"])  # Painlevé regime ⇔ μ above μ_P


@pytest.mark.parametrize("name", RODS)
def test_only_S_and_L_survive_enumeration(name):
    h = hand(name)
    assert h["v_t"] < 0 and h["modes"] == {"S", "L"}
    system = load_system_file(EXAMPLES / name).system
    assert np.allclose(system.v_contact, [h["v_t"], 0.0])
    assert set(enumerate_modes(system).modes) == h["modes"]


@pytest.mark.parametrize("name", RODS)
def test_mode_torque_sets_match_the_hand_thresholds(name):
    h = hand(name)
    system = load_system_file(EXAMPLES / name).system
    for mode, expected in hand_intervals(h).items():
        dom = mode_domain(system, mode)
        assert dom.feasible and dom.n_w == 0  # 5 unknowns (q̈, f_t, f_n), 5 independent equalities
        assert approx_interval(interval(dom.T), expected), (mode, interval(dom.T), expected)


@pytest.mark.parametrize("name", RODS)
def test_responses_match_newton_euler(name):
    """The toolkit's affine response at a few moments inside each mode equals the closed forms."""
    h = hand(name)
    system = load_system_file(EXAMPLES / name).system
    resp = {m: mode_domain(system, m).response for m in ("S", "L")}
    for M in (-10.0, h["m_star"] - 1.0, h["m_star"] + 1.0, 5.0):
        qdd, f = resp["S"].evaluate([M])
        assert np.allclose(qdd, hand_S(h, M)[0]) and np.allclose(f, 0.0)
        qdd, f = resp["L"].evaluate([M])
        qdd_h, f_h = hand_L(h, M)
        assert np.allclose(qdd, qdd_h) and np.allclose(f, f_h)


@pytest.mark.parametrize("name", RODS)
def test_sweep_of_moments(name):
    """For every M of a sweep: the modes whose T_c holds M, T*_c membership, the sources at M and
    inconsistency all follow from the hand set of modes with a solution at M."""
    h = hand(name)
    system = load_system_file(EXAMPLES / name).system
    doms = untasked_domains(system)
    res = {m: unambiguous(system, m, others=doms) for m in doms}
    gaps = inconsistent(system, [BOX[0]], [BOX[1]], domains=doms)
    n_amb = n_inc = 0
    for M in sweep(h):
        tau = np.array([M])
        expected = hand_modes(h, M)
        assert {m for m, d in doms.items() if d.T.contains(tau)} == expected, M
        for m, r in res.items():
            assert r.contains(tau) == (expected == {m}), (m, M)
            if m in expected:
                assert set(r.sources_at(tau)) == expected - {m}, (m, M)
        if BOX[0] <= M <= BOX[1]:
            assert union_contains(gaps, tau) == (not expected), M
        n_amb += len(expected) == 2
        n_inc += not expected
    # the sweep saw what the doc says it should
    assert (n_amb > 0 and n_inc > 0) if h["K"] < 0 else (n_amb == 0 and n_inc == 0)


def test_mu_2_is_ambiguous_below_and_inconsistent_above_the_threshold():
    h = hand("painleve_rod.toml")
    assert h["K"] < 0
    system = load_system_file(EXAMPLES / "painleve_rod.toml").system
    below = (-math.inf, h["m_star"])
    for mode, other in (("S", "L"), ("L", "S")):
        res = unambiguous(system, mode)
        assert res.feasible and approx_interval(interval(res.feasible_set), below)
        assert res.unambiguous == []  # every feasible torque admits both modes
        (src,) = res.sources
        assert src.source == other and src.kind == "mode" and not src.boundary_only
        (piece,) = src.set
        assert approx_interval(interval(piece), below)
        assert not (res.w_varies or res.w_moves_accelerations or res.w_moves_forces)  # n_w = 0
    (gap,) = inconsistent(system, [BOX[0]], [BOX[1]])
    assert approx_interval(interval(gap), (h["m_star"], BOX[1]))
    # a box entirely below M* is consistent; one entirely above is one inconsistent piece
    assert inconsistent(system, [-20.0], [h["m_star"] - 1.0]) == []
    (gap,) = inconsistent(system, [0.0], [1.0])
    assert approx_interval(interval(gap), (0.0, 1.0))


def test_mu_05_is_unambiguous_and_consistent():
    h = hand("painleve_rod_mu05.toml")
    assert h["K"] > 0
    system = load_system_file(EXAMPLES / "painleve_rod_mu05.toml").system
    expect = hand_intervals(h)
    for mode, other in (("S", "L"), ("L", "S")):
        res = unambiguous(system, mode)
        (piece,) = res.unambiguous
        assert approx_interval(interval(piece), expect[mode])
        (src,) = res.sources  # the two sets touch at M* only
        assert src.source == other and src.boundary_only
        (point,) = src.set
        assert approx_interval(interval(point), (h["m_star"], h["m_star"]))
    assert inconsistent(system, [BOX[0]], [BOX[1]]) == []


@pytest.mark.parametrize("mode", ["F", "R"])
def test_a_mode_pruned_by_table_iii_is_never_guaranteed(mode):
    """F needs v_t = 0 and R needs v_t > 0; here v_t = −1 (module doc), so neither can occur and no
    torque can guarantee it — in particular none of the inconsistent moments above M*."""
    h = hand("painleve_rod.toml")
    assert mode not in h["modes"]
    system = load_system_file(EXAMPLES / "painleve_rod.toml").system
    try:
        res = unambiguous(system, mode)
    except ContactModelError:
        return
    assert res.unambiguous == []
    assert not res.contains([0.0])  # M = 0 > M*: inconsistent by the hand derivation
