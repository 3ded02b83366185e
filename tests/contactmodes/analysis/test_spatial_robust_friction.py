"""Robust sets under a ``[disturbance]`` and friction intervals on spatial systems (issue 40, item 4).

Every expected value is derived here, independently of the code under test:

* **Closed forms for a box on a plane** (the box of ``examples/spatial/box.urdf``, 1.2 kg, on its
  four bottom corners). The contact forces of a sticking box sum to the force that balances the
  applied ones; with every contact's friction in ``μ f_n P`` (``P`` the polygon of apothem or
  circumradius 1) their sum lies in ``μ (Σ f_n) P`` (a Minkowski sum of copies of one convex
  set), and conversely the distribution proportional to the normal forces puts each in its own
  polygon. With ``r(θ)`` the radial function of ``P`` in the contact frame ``(t1, t2)``:

  - level floor, horizontal push ``τ`` along world x: ``FFFF`` holds iff
    ``−μ m g r(−φ) <= τ <= μ m g r(π − φ)`` (``φ`` the angle of ``t1`` from world x; the friction
    force is ``−τ e_x``);
  - slope of angle ``α`` (passive): ``FFFF`` is consistent iff ``tan α <= μ r(θ)``, ``θ`` the
    angle of the up-slope direction in ``(t1, t2)`` (friction holds the box against gravity);
  - slip onset at side ``a`` (its outward normal is ``t1``: the friction force ``μ f_n t1``), push
    along ``−t1``: ``τ <= −μ m g``; at vertex ``A`` of the inscribed polygon (on ``t1``) the same.

  ``r`` is written here from the polygon's definition (issue 40: circumscribed, side normals at
  ``2πj/n`` with apothem 1; inscribed, vertices at ``2πj/n`` on the unit circle).
  Over a box ``[lo, hi]`` of μ the sticking sets widen with μ, the slip-onset sets shift with it:
  "for every μ" is the sticking set at ``lo`` and the slip-onset set at ``hi``, "for some μ" the
  other way round (the endpoints by hand).
* **An LP oracle for the robust feasible set** ``T'_FFFF``: a torque is in it iff, at every
  vertex ``δ`` of the disturbance box, ``∃ q̈, f``: ``M q̈ + h = S τ + E δ + Jᵀ f``, every
  contact's acceleration zero and its force in the polygon cone (rows written here from the
  polygon's definition); one SciPy/HiGHS LP per torque and vertex, its largest common slack
  deciding (torques within ``SLACK_BAND`` of a boundary are not compared).
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from polytopes import Polytope

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.friction_interval import FrictionIntervalAnalysis  # noqa: E402
from contactmodes.analysis.friction_robust import robust_unambiguous_over_friction  # noqa: E402
from contactmodes.analysis.robust import robust_feasible_set, robust_unambiguous  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

from _support.robots import BOX_URDF  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PUSHED = ROOT / "examples" / "spatial" / "box_pushed.toml"
MASS, G = 1.2, 9.81
CORNERS = [(0.2, 0.15), (0.2, -0.15), (-0.2, 0.15), (-0.2, -0.15)]
SLACK_BAND = 1e-6
"""Oracle slacks within this band of 0 are boundary torques (to rounding; the numbers are O(1)–O(10) N)."""


# ----------------------------------------------------------------------------- the hand-written polygon
def side_normals(sides: int, polygon: str) -> tuple[np.ndarray, float]:
    """Outward side normals ``(n, 2)`` in ``(t1, t2)`` and the apothem (unit μ f_n) of the polygon."""
    if polygon == "circumscribed":
        angles = 2 * np.pi * np.arange(sides) / sides
        return np.column_stack([np.cos(angles), np.sin(angles)]), 1.0
    angles = np.pi / sides + 2 * np.pi * np.arange(sides) / sides
    return np.column_stack([np.cos(angles), np.sin(angles)]), math.cos(math.pi / sides)


def radial(theta: float, sides: int, polygon: str) -> float:
    """The polygon's radial function: the distance from its centre to its boundary along ``θ``."""
    normals, apothem = side_normals(sides, polygon)
    return apothem / float(np.max(normals @ np.array([math.cos(theta), math.sin(theta)])))


# ----------------------------------------------------------------------------- the files
def _contact_tables(normal, tangent, mu) -> str:
    normal, tangent = [float(v) for v in normal], [float(v) for v in tangent]
    mu = [float(m) for m in mu] if isinstance(mu, (list, tuple)) else float(mu)
    out = []
    for k, (x, y) in enumerate(CORNERS, start=1):
        out.append(f"""
[[contacts]]
name = "c{k}"
link = "box"
position = [{x}, {y}, -0.05]
surface_point = [0.0, 0.0, 0.0]
surface_normal = [{normal[0]!r}, {normal[1]!r}, {normal[2]!r}]
tangent = [{tangent[0]!r}, {tangent[1]!r}, {tangent[2]!r}]
mu = {mu!r}
""")
    return "".join(out)


def pushed_file(tmp_path: Path, *, sides=4, polygon="circumscribed", phi=0.0, mu=(0.4, 0.6),
                disturbance: str = "", actuators=("x",)) -> Path:
    """The box on the level floor, pushed along the coordinates ``actuators``; ``t1`` at angle ``phi``."""
    acts = "".join(f'\n[[actuators]]\nname = "u{c}"\ncoordinate = "{c}"\n' for c in actuators)
    text = f"""schema = "contactmodes.system/1"
name = "pushed"
dimension = 3
gravity = {G}

[mechanism]
urdf = "{BOX_URDF.as_posix()}"

[friction]
sides = {sides}
polygon = "{polygon}"
{_contact_tables((0.0, 0.0, 1.0), (math.cos(phi), math.sin(phi), 0.0), mu)}
{acts}
{disturbance}
[state]
q = {{ base_position = [0.0, 0.0, 0.05], base_quaternion = [1.0, 0.0, 0.0, 0.0] }}
"""
    path = tmp_path / f"pushed_{sides}_{polygon}_{phi:.3f}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def slope_frame(alpha: float, psi: float):
    """Normal of a plane of slope ``α`` rising along ``(cos ψ, sin ψ)`` and the box's quaternion."""
    n = np.array([-math.sin(alpha) * math.cos(psi), -math.sin(alpha) * math.sin(psi), math.cos(alpha)])
    axis = np.array([math.sin(psi), -math.cos(psi), 0.0])  # e_z × n / sin α
    quat = np.concatenate([[math.cos(alpha / 2)], math.sin(alpha / 2) * axis])
    return n, quat


def slope_file(tmp_path: Path, alpha: float, psi: float, mu, *, sides=4, polygon="circumscribed",
               tangent=(1.0, 0.0, 0.0), disturbance: str = "") -> Path:
    """The passive box at rest on a plane of slope ``α`` rising along ``ψ`` through the origin."""
    n, quat = slope_frame(alpha, psi)
    centre = [float(v) for v in 0.05 * n]
    quat = [float(v) for v in quat]
    text = f"""schema = "contactmodes.system/1"
dimension = 3
gravity = {G}
actuators = []

[mechanism]
urdf = "{BOX_URDF.as_posix()}"

[friction]
sides = {sides}
polygon = "{polygon}"
{_contact_tables(n, tangent, mu)}
{disturbance}
[state]
q = {{ base_position = [{centre[0]!r}, {centre[1]!r}, {centre[2]!r}], base_quaternion = [{quat[0]!r}, {quat[1]!r}, {quat[2]!r}, {quat[3]!r}] }}
"""
    path = tmp_path / f"slope_{alpha:.4f}_{psi:.4f}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def upslope_angle(alpha: float, psi: float, tangent=(1.0, 0.0, 0.0)) -> float:
    """Angle in ``(t1, t2)`` of the up-slope direction: ``t1`` the tangent projected into the
    plane, ``t2 = n × t1`` (the documented contact frame)."""
    n, _ = slope_frame(alpha, psi)
    t = np.asarray(tangent, dtype=float)
    t1 = t - (t @ n) * n
    t1 /= np.linalg.norm(t1)
    t2 = np.cross(n, t1)
    up = np.array([math.cos(psi) * math.cos(alpha), math.sin(psi) * math.cos(alpha), math.sin(alpha)])
    return math.atan2(float(up @ t2), float(up @ t1))


# ----------------------------------------------------------------------------- friction intervals
@pytest.mark.parametrize("sides, polygon, phi", [(4, "circumscribed", 0.0), (4, "inscribed", 0.0),
                                                 (5, "circumscribed", 0.4), (3, "inscribed", -1.0),
                                                 (6, "inscribed", 0.0)])
def test_pushed_box_sticking_interval_endpoints(tmp_path, sides, polygon, phi):
    lo, hi = 0.4, 0.6
    loaded = load_system_file(pushed_file(tmp_path, sides=sides, polygon=polygon, phi=phi, mu=(lo, hi)),
                              mu_intervals=True)
    fa = FrictionIntervalAnalysis(loaded.system, loaded.friction)
    for mu, T in ((lo, fa.forall("FFFF")), (hi, fa.exists("FFFF"))):
        low, high = T.bounding_box()
        assert low[0] == pytest.approx(-mu * MASS * G * radial(-phi, sides, polygon), rel=1e-9)
        assert high[0] == pytest.approx(mu * MASS * G * radial(math.pi - phi, sides, polygon), rel=1e-9)
    # the plain fields are the exact-mu analysis at the midpoint
    assert loaded.system.mu.tolist() == [0.5] * 4


@pytest.mark.parametrize("polygon, letter", [("circumscribed", "a"), ("inscribed", "A")])
def test_slip_onset_interval_sets(tmp_path, polygon, letter):
    """Side ``a`` (circumscribed; μ in one equality) and vertex ``A`` (inscribed; two equalities):
    the force is ``μ_i f_n t1`` at each contact, so the box at slip onset towards ``−x`` needs
    ``τ <= −Σ μ_i f_n,i`` with ``Σ f_n,i = m g``: over the box, "for some μ" is exactly
    ``τ <= −lo m g`` (reached at ``μ = lo``), and "for every μ" lies within ``τ <= −hi m g``.
    With independent intervals the box also holds unequal μ_i, under which the box yaws, so ``T^∀``
    is checked as the theorem states it against the exact-μ analysis (``cm.analyze``, itself
    checked against an LP in test_spatial_analysis.py): equal to the intersection over the box's
    vertices, inside ``T_c(μ)`` and ``T^∃`` at random μ of the box."""
    lo, hi = 0.4, 0.6
    loaded = load_system_file(pushed_file(tmp_path, polygon=polygon, mu=(lo, hi)), mu_intervals=True)
    system = loaded.system
    fa = FrictionIntervalAnalysis(system, loaded.friction)
    mode = letter * 4
    exists, forall = fa.exists(mode), fa.forall(mode)
    assert exists.bounding_box()[0][0] == -np.inf
    assert exists.bounding_box()[1][0] == pytest.approx(-lo * MASS * G, rel=1e-9)
    top = forall.bounding_box()[1][0]
    assert top <= -hi * MASS * G * (1 - 1e-9)

    def upper(mu):
        T = cm.analyze(replace(system, mu=np.asarray(mu, dtype=float)), modes=[mode]).modes[mode].T
        low, high = T.bounding_box()
        assert low[0] == -np.inf
        return high[0]

    corners = [upper(np.where(np.array(bits) == 1, hi, lo)) for bits in itertools.product((0, 1), repeat=4)]
    assert top == pytest.approx(min(corners), rel=1e-9)
    rng = np.random.default_rng(7)
    for mu in rng.uniform(lo, hi, size=(3, 4)):
        assert top <= upper(mu) * (1 - 1e-9) + 1e-9 and upper(mu) <= exists.bounding_box()[1][0] + 1e-9
    robust = fa.unambiguous("FFFF")
    assert len(robust.unambiguous) == 1
    low, high = robust.unambiguous[0].bounding_box()
    assert high[0] == pytest.approx(lo * MASS * G * radial(math.pi, 4, polygon), rel=1e-9)


@pytest.mark.parametrize("alpha, psi, sides, polygon", [(math.atan(0.3), 0.7, 4, "circumscribed"),
                                                        (math.atan(0.25), -2.0, 6, "inscribed")])
def test_slope_sticks_iff_mu_reaches_tan_alpha_over_r(tmp_path, alpha, psi, sides, polygon):
    """Passive box on a slope tilted by ``α`` towards ``ψ``: ``FFFF`` is consistent for every μ of
    the box iff ``lo >= tan α / r(θ)``, for some μ iff ``hi >= tan α / r(θ)``."""
    star = math.tan(alpha) / radial(upslope_angle(alpha, psi), sides, polygon)
    cases = [((0.95 * star, 0.99 * star), False, False), ((0.99 * star, 1.05 * star), True, False),
             ((1.01 * star, 1.2 * star), True, True)]
    for (lo, hi), some, every in cases:
        loaded = load_system_file(slope_file(tmp_path, alpha, psi, [lo, hi], sides=sides, polygon=polygon),
                                  mu_intervals=True)
        fa = FrictionIntervalAnalysis(loaded.system, loaded.friction)
        assert (fa.exists("FFFF") is not None, fa.forall("FFFF") is not None) == (some, every), (lo, hi, star)


def test_spatial_interval_refused_where_intervals_are_not_read(tmp_path):
    path = pushed_file(tmp_path)
    with pytest.raises(cm.ContactModelError, match=r"^contacts\[0\]\.mu: an interval of friction coefficients"):
        load_system_file(path)
    bad = path.read_text().replace("mu = [0.4, 0.6]", "mu = [0.6, 0.4]", 1)
    path.write_text(bad)
    with pytest.raises(cm.ContactModelError, match=r"^contacts\[0\]\.mu: interval \[0\.6, 0\.4\] needs lo <= hi"):
        load_system_file(path, mu_intervals=True)


def test_analyze_cli_reports_the_box_on_a_spatial_file():
    out = subprocess.run([sys.executable, "-m", "contactmodes", "analyze", str(PUSHED), "--mode", "FFFF",
                          "--unambiguous", "--json"], capture_output=True, text=True, check=True, cwd=ROOT)
    doc = json.loads(out.stdout)
    from contactmodes.schemas import validate

    validate(doc)
    assert doc["friction"] == {"lo": [0.4] * 4, "hi": [0.6] * 4}
    (mode,) = doc["modes"]
    forall = Polytope.from_json(mode["torque_domain_forall"]).bounding_box()
    assert forall[1][0] == pytest.approx(0.4 * MASS * G, rel=1e-9)


# ----------------------------------------------------------------------------- robust sets
def _fffF_slack(system, tau: np.ndarray, delta: np.ndarray, sides: int, polygon: str) -> float:
    """The LP oracle: the largest common slack ``s`` of the polygon rows and ``f_n >= 0`` with
    ``M q̈ + h = S τ + E δ + Jᵀ f`` and every contact acceleration zero (``J q̈ = −J̇q̇``);
    ``s >= 0`` iff ``FFFF`` has a solution at ``(τ, δ)``."""
    normals, apothem = side_normals(sides, polygon)
    mu = system.mu
    n_q, k = system.n_q, system.k
    n = n_q + 3 * k + 1  # q̈, f (t1, t2, n per contact), s
    A_eq = np.zeros((n_q + 3 * k, n))
    A_eq[:n_q, :n_q] = system.M
    A_eq[:n_q, n_q:n_q + 3 * k] = -system.J.T
    b_eq = np.concatenate([system.S @ tau + system.disturbance.E @ delta - system.h, -system.Jdot_qdot])
    A_eq[n_q:, :n_q] = system.J
    rows = []
    for i in range(k):
        t1, t2, fn = n_q + 3 * i, n_q + 3 * i + 1, n_q + 3 * i + 2
        for nj in normals:                       # apothem μ f_n − n_j · f_t >= s
            r = np.zeros(n)
            r[t1], r[t2], r[fn], r[-1] = nj[0], nj[1], -apothem * mu[i], 1.0
            rows.append(r)
        r = np.zeros(n)
        r[fn], r[-1] = -1.0, 1.0                 # f_n >= s
        rows.append(r)
    c = np.zeros(n)
    c[-1] = -1.0
    bounds = [(None, None)] * (n - 1) + [(None, 1.0)]
    res = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)), A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                  method="highs")
    return -np.inf if res.status == 2 else float(res.x[-1])


@pytest.mark.parametrize("polygon", ["circumscribed", "inscribed"])
def test_robust_feasible_set_against_lp_oracle(tmp_path, polygon):
    """A push ``x`` and a yaw moment ``wz`` against a side force ``y`` and a yaw disturbance ``wz``
    (a box ``D``): ``T'_FFFF`` is exactly the torques the LP accepts at every vertex of ``D``."""
    dist = '[disturbance]\ncoordinates = ["y", "wz"]\nlower = [-1.0, -0.2]\nupper = [1.5, 0.1]\n'
    path = pushed_file(tmp_path, polygon=polygon, mu=0.5, disturbance=dist, actuators=("x", "wz"))
    system = cm.load_system(path)
    assert system.disturbance.coordinates == ("y", "wz")
    T, V = robust_feasible_set(system, "FFFF")
    assert np.allclose(sorted(map(tuple, V.tolist())), [(-1.0, -0.2), (-1.0, 0.1), (1.5, -0.2), (1.5, 0.1)],
                       rtol=0, atol=1e-12)
    rng = np.random.default_rng(40)
    low, high = T.bounding_box()
    compared = inside = 0
    for tau in rng.uniform([-8.0, -1.5], [8.0, 1.5], size=(150, 2)):
        slack = min(_fffF_slack(system, tau, v, 4, polygon) for v in V)
        if abs(slack) < SLACK_BAND:
            continue
        compared += 1
        inside += slack > 0
        assert T.contains(tau) == (slack > 0), (tau, slack)
    assert compared >= 140 and 10 <= inside <= compared - 10
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))


def test_robust_unambiguous_closed_form_inscribed_square(tmp_path):
    """Inscribed square (vertex on ``t1 = x``): friction sums to ``|F_x| + |F_y| <= μ m g``, so
    ``FFFF`` holds for every side force ``|δ| <= d`` iff ``|τ| <= μ m g − d``; the circumscribed
    square separates x and y: ``|τ| <= μ m g`` whatever ``δ``. Over the friction box the bound
    takes ``μ = lo``."""
    dist = '[disturbance]\ncoordinates = ["y"]\nlower = [-1.0]\nupper = [1.0]\n'
    for polygon, d in (("inscribed", 1.0), ("circumscribed", 0.0)):
        loaded = load_system_file(pushed_file(tmp_path, polygon=polygon, disturbance=dist), mu_intervals=True)
        r = robust_unambiguous(loaded.system, "FFFF")            # at the nominal mu = 0.5
        assert r.robust_feasible.bounding_box()[1][0] == pytest.approx(0.5 * MASS * G - d, rel=1e-9)
        assert len(r.robust_unambiguous) == 1
        low, high = r.robust_unambiguous[0].bounding_box()
        assert (low[0], high[0]) == pytest.approx((-(0.5 * MASS * G - d), 0.5 * MASS * G - d), rel=1e-9)
        rb = robust_unambiguous_over_friction(loaded.system, loaded.friction, "FFFF")
        low, high = rb.robust_feasible.bounding_box()
        assert (low[0], high[0]) == pytest.approx((-(0.4 * MASS * G - d), 0.4 * MASS * G - d), rel=1e-9)


def test_passive_slope_robust_under_a_downhill_force(tmp_path):
    """Passive box on a slope rising along x: a force ``δ`` along world x at its centre. It sticks
    for every ``δ`` of ``[d_lo, d_hi]`` iff the tangential load ``|m g sin α − δ cos α|`` stays
    within ``μ (m g cos α + δ sin α) r`` at both ends (circumscribed square, ``t1`` up-slope: r = 1)."""
    alpha, mu = math.atan(0.2), 0.5

    def sticks(delta):
        return abs(MASS * G * math.sin(alpha) - delta * math.cos(alpha)) <= mu * (
            MASS * G * math.cos(alpha) + delta * math.sin(alpha))

    for lo, hi in ((-1.0, 2.0), (-3.0, 0.0), (0.0, 9.0)):
        dist = f'[disturbance]\ncoordinates = ["x"]\nlower = [{lo}]\nupper = [{hi}]\n'
        system = cm.load_system(slope_file(tmp_path, alpha, 0.0, mu, disturbance=dist))
        T, _ = robust_feasible_set(system, "FFFF")
        assert T.dim == 0
        assert (not T.is_empty()) == (sticks(lo) and sticks(hi)), (lo, hi)


def test_spatial_disturbance_errors_name_the_field(tmp_path):
    path = pushed_file(tmp_path, mu=0.5, disturbance='[disturbance]\ncoordinates = ["theta"]\nlower = [0]\nupper = [1]\n')
    with pytest.raises(cm.ContactModelError, match=r"^disturbance\.coordinates\[0\]: unknown coordinate 'theta'"):
        cm.load_system(path)


# ----------------------------------------------------------------------------- passive, end to end
def test_passive_spatial_analyze_end_to_end():
    """``examples/spatial/box_on_slope.toml`` (no actuators; tan α = 1/3 < μ r = 0.5, the
    up-slope direction on a side normal of the square, r = 1): sticking is the one consistent
    mode — a slip-onset mode has friction ``μ m g cos α`` up the slope, more than ``m g sin α``,
    so the box would accelerate up the slope against its slip. Text and JSON (valid against
    the schema): ``T_FFFF = {()}``, unique, nothing inconsistent."""
    from contactmodes.schemas import validate

    path = ROOT / "examples" / "spatial" / "box_on_slope.toml"
    run = [sys.executable, "-m", "contactmodes", "analyze", str(path), "--unambiguous", "--inconsistency-box="]
    doc = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, check=True, cwd=ROOT).stdout)
    validate(doc)
    assert doc["system"]["torques"] == [] and doc["inconsistent"] == []
    assert [m["mode"] for m in doc["modes"] if m["feasible"]] == ["FFFF"]
    (fffF,) = [m for m in doc["modes"] if m["mode"] == "FFFF"]
    assert fffF["torque_domain"] == {"A": [], "b": [], "C": [], "d": [], "dim": 0}
    assert fffF["unambiguous"] == [{"A": [], "b": [], "C": [], "d": [], "dim": 0}]
    text = subprocess.run(run, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "verdict: unique (the one consistent mode is FFFF)" in text
