"""Torque sets over a box of friction coefficients (issue 26), against independent references.

* **Per-μ LPs** (``slack``, ``tau_extent``): built here with scipy's ``linprog`` from the
  ``mode_equations`` of the system *at one μ* (``dataclasses.replace(system, mu=...)``), never from
  the code under test: at a fixed τ, ``max σ`` subject to ``A x = B τ + b`` and every normalized
  inequality ``>= σ`` (σ <= 1): τ is in ``T_c(μ)`` when ``σ* > δ``, out when ``σ* < −δ`` or
  infeasible. With τ free, ``max ±τ`` gives the ends of a one-torque ``T_c(μ)``.
* On random systems: ``T_c^∀ ⊆ T_c(μ) ⊆ T_c^∃`` for μ on a grid of the box, a torque feasible
  at every grid point is in ``T_c^∀`` and one feasible at some grid point is in ``T_c^∃``; with one
  torque the ends of ``T_c^∃`` / ``T_c^∀`` are the outermost / innermost ends over a fine grid
  (the union / the intersection in the limit), and the intersection over the grid is already
  reached at the vertices (the module's theorem, checked independently of it).
* Zero-width boxes give today's ``T_c`` (the session's) exactly.
* Closed forms derived by hand (below) for the two-link brace and Painlevé's rod.
* Units: a random system file rewritten in other units (``_support.units.rewrite``) gives the
  same sets with torques scaled by the torque unit.
* The loader: intervals, their one-line errors, and the refusal without ``mu_intervals``.

Two-link brace (``examples/two_link_brace.toml``), mode FFF, by hand. Links of length L, massless,
point masses m at the free end B = (0, 0), the joint J = (−a, a) and the tip T = (0, 2a),
a = L/√2. Walls: B and T on x = 0 with n = (−1, 0), t = (0, 1); J on x = −a with n = (1, 0),
t = (0, −1). At rest with q̈ = 0 (three fixed contacts over four coordinates), in units of mg:
x: n_J = n_B + n_T; y: t_B + t_T − t_J = 3; moment about B: 2 n_T + t_J − n_J + 1 = 0; link 2
about J: τ1 = −a m g (t_T + n_T − 1). The largest τ1 minimizes t_T + n_T: with t_B = μ n_B,
t_T = μ n_T and t_J = −μ n_J (all three cones active) the equations give n_B + n_T = 3/(2μ),
n_B − n_T = −1/2, so t_T + n_T = (1 + μ)(3 + μ)/(4μ) and

    T_FFF(μ) = (−∞, h(μ)],   h(μ) = −a m g (3 + μ²) / (4μ),

(−0.1926 N·m at μ = 0.3, the documented bound), increasing in μ for μ < √3. A sticking mode's cone
widens with μ, so over [lo, hi]: T^∀ = (−∞, h(lo)] and T^∃ = (−∞, h(hi)].

Painlevé's rod (``examples/painleve_rod.toml``; ``test_painleve.py`` for the derivation): mode L
needs ``f_n K(μ) = g + c cosθ M / I`` with ``K(μ) = 1.6 − 1.2 μ`` (zero at 4/3) and f_n >= 0;
with ``M* = −g I / (c cos θ)``: ``T_L(μ) = [M*, ∞)`` for μ < 4/3, ``{M*}`` at 4/3,
``(−∞, M*]`` above; ``T_S = (−∞, M*]`` for every μ. Over [lo, hi]: below 4/3 ``T^∃ = T^∀ = [M*,
∞)``; straddling 4/3 ``T^∃ = R``, ``T^∀ = {M*}``; above, both ``(−∞, M*]``. Robust sets: below
4/3 ``T*_S = (−∞, M*]`` and ``T*_L = [M*, ∞)`` (touching at M* only); otherwise both empty.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import differential_evolution, linprog, minimize_scalar

from _support.paths import EXAMPLES
from _support.systems import random_system
from _support.units import random_system as random_file, rewrite
from contactmodes.analysis.friction_interval import (MAX_SLIDING_INTERVALS, FrictionIntervalAnalysis,
                                                     forall_vertices)
from contactmodes.analysis.friction_robust import robust_unambiguous_over_friction
from contactmodes.analysis.robust import augmented_system, robust_unambiguous
from contactmodes.analysis.session import AnalysisSession
from contactmodes.errors import ContactModelError, SystemFileError
from contactmodes.model.friction import FrictionBox
from contactmodes.modes.constraints import mode_equations
from contactmodes.schemas import validate
from contactmodes.modes.enumeration import enumerate_modes
from contactmodes.model.system import LinearConstraint
from contactmodes.system_file.loader import load_system_file, parse_system

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

DELTA = 1e-6


# ------------------------------------------------------------------ independent per-μ LPs ----
def _rows(system, mode, mu, task):
    eqs = mode_equations(replace(system, mu=np.asarray(mu, dtype=float)), mode, task=task)
    n = eqs.n_q + eqs.n_f
    return eqs, n


def slack(system, mode, mu, tau, task=True):
    """σ* of the module doc at torque ``tau``, or ``None`` when the LP is infeasible."""
    eqs, n = _rows(system, mode, mu, task)
    tau = np.asarray(tau, dtype=float)
    Nx, Nt = eqs.N[:, :n], eqs.N[:, n:]
    norms = np.maximum(np.linalg.norm(eqs.N, axis=1), 1e-300)
    # variables (x, σ): −(N_x x)/‖row‖ + σ <= −(e − N_τ τ)/‖row‖
    A_ub = np.hstack([-Nx / norms[:, None], np.ones((Nx.shape[0], 1))])
    b_ub = -(eqs.e - Nt @ tau) / norms
    A_eq = np.hstack([eqs.A, np.zeros((eqs.A.shape[0], 1))])
    b_eq = eqs.B @ tau + eqs.b
    c = np.zeros(n + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=A_ub if A_ub.size else None, b_ub=b_ub if A_ub.size else None, A_eq=A_eq, b_eq=b_eq,
                  bounds=[(None, None)] * n + [(None, 1.0)], method="highs")
    return None if res.status == 2 else -res.fun


def tau_extent(system, mode, mu, task=True):
    """``(inf, sup)`` of a one-torque ``T_c(μ)`` (±inf when unbounded), ``None`` when empty."""
    eqs, n = _rows(system, mode, mu, task)
    # variables (x, τ): A x − B τ = b, −N [x; τ] <= −e
    A_eq = np.hstack([eqs.A, -eqs.B])
    out = []
    for sign in (1.0, -1.0):
        c = np.zeros(n + 1)
        c[-1] = sign
        res = linprog(c, A_ub=-eqs.N if eqs.N.size else None, b_ub=-eqs.e if eqs.N.size else None, A_eq=A_eq,
                      b_eq=eqs.b, bounds=[(None, None)] * (n + 1), method="highs")
        if res.status == 2:
            return None
        out.append(-sign * math.inf if res.status == 3 else float(res.x[-1]))
    return tuple(out)


def grid(box: FrictionBox, points: int) -> list[np.ndarray]:
    axes = [np.linspace(lo, hi, points) if hi > lo else np.array([lo]) for lo, hi in zip(box.lo, box.hi)]
    return [np.array(p) for p in itertools.product(*axes)]


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    k, n_tau = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    system = random_system(rng, int(rng.integers(max(2, n_tau), 4)), n_tau, k)
    lo = rng.uniform(0.1, 0.8, size=k)
    box = FrictionBox(lo, lo + rng.uniform(0.0, 0.7, size=k) * (rng.random(k) < 0.85))
    return system, box, rng


def _sets(fa, mode):
    return fa.exists(mode), fa.forall(mode)


# ------------------------------------------------------------------ random systems -----------
@pytest.mark.parametrize("seed", range(12))
def test_forall_within_every_grid_set_within_exists(seed):
    system, box, rng = random_case(seed)
    fa = FrictionIntervalAnalysis(system, box)
    mus = grid(box, 3)  # includes the vertices
    scale = max(1.0, float(np.abs(system.h).max()))
    checked = 0
    for mode in enumerate_modes(system).modes:
        E, A = _sets(fa, mode)
        taus = list(rng.uniform(-3 * scale, 3 * scale, size=(12, system.n_tau)))
        for P in (E, A):
            if P is not None:
                w = P.witness()
                if w is not None:
                    taus.append(w)
        for tau in taus:
            s = [slack(system, mode, mu, tau) for mu in mus]
            s = [-math.inf if v is None else v for v in s]
            if any(abs(v) < DELTA for v in s):
                continue  # too close to a boundary to call
            checked += 1
            if all(v > DELTA for v in s):  # feasible at every vertex: in T^∀ (the theorem's claim)
                assert A is not None and A.contains(tau), (mode, tau)
            if any(v > DELTA for v in s):
                assert E is not None and E.contains(tau), (mode, tau)
            if any(v < -DELTA for v in s) and A is not None:
                assert not A.contains(tau, tol=0.0) or _near_boundary(A, tau), (mode, tau)
            if all(v < -DELTA for v in s) and E is not None and E.contains(tau) and not _near_boundary(E, tau):
                # in T^∃ but no grid point works: the μ that works lies between grid points (T_c(μ) a
                # thin slab sweeping the plane as μ moves): search the box for it
                assert _best_slack(system, mode, box, tau) > -1e-4, (mode, tau)
    assert checked > 10


def _near_boundary(P, tau) -> bool:
    """``tau`` within 1e-7 (relative) of ``P``'s facets."""
    if P.A.shape[0] == 0:
        return True
    r = (P.b - P.A @ tau) / np.maximum(np.linalg.norm(P.A, axis=1), 1e-300)
    return bool(np.min(np.abs(r)) < 1e-7 * max(1.0, float(np.abs(tau).max())))


def _best_slack(system, mode, box, tau) -> float:
    """``max σ*(μ)`` over the box (infeasible LPs count as −10), by differential evolution over
    the contacts of positive width (a search, not a proof: the caller allows a small gap)."""
    free = [i for i in range(box.k) if box.hi[i] > box.lo[i]]

    def minus(z):
        mu = box.lo.copy()
        mu[free] = z
        v = slack(system, mode, mu, tau)
        return 10.0 if v is None else -v

    res = differential_evolution(minus, [(box.lo[i], box.hi[i]) for i in free], seed=0, tol=1e-10,
                                 maxiter=60, popsize=8, polish=False)
    return -float(res.fun)


@pytest.mark.parametrize("seed", range(20, 32))
def test_one_torque_ends_are_the_union_and_the_intersection_of_the_grid(seed):
    """n_τ = 1: the ends of ``T^∃`` are the outermost ends over a fine grid of the box (the union
    in the limit), those of ``T^∀`` the innermost; the innermost over the grid are those over the
    vertices (LPs only, independent of the module)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 3))
    system = random_system(rng, int(rng.integers(2, 4)), 1, k)
    lo = rng.uniform(0.1, 0.8, size=k)
    box = FrictionBox(lo, lo + rng.uniform(0.05, 0.6, size=k))
    fa = FrictionIntervalAnalysis(system, box)
    scale = max(1.0, float(np.abs(system.h).max()))
    for mode in enumerate_modes(system).modes:
        fine = [tau_extent(system, mode, mu) for mu in grid(box, 21 if k == 1 else 9)]
        verts = [tau_extent(system, mode, mu) for mu in grid(box, 2)]
        E, A = _sets(fa, mode)
        if all(e is None for e in fine):  # the grid misses every μ that works: a search must find one
            if E is not None:
                assert _best_slack(system, mode, box, E.witness()) > -1e-4, mode
        else:
            lo_e, hi_e = E.bounding_box()
            lo_g = min(e[0] for e in fine if e is not None)
            hi_g = max(e[1] for e in fine if e is not None)
            # the grid's union is inside T^∃ and approaches it
            assert lo_e[0] <= lo_g + 1e-7 * scale and hi_e[0] >= hi_g - 1e-7 * scale
            assert _close(lo_e[0], lo_g, 0.05 * scale) and _close(hi_e[0], hi_g, 0.05 * scale), (mode, lo_e, lo_g, hi_e, hi_g)
        if any(e is None for e in fine):
            assert A is None
            continue
        lo_i, hi_i = max(e[0] for e in fine), min(e[1] for e in fine)
        lo_v, hi_v = max(e[0] for e in verts), min(e[1] for e in verts)
        assert _close(lo_i, lo_v, 1e-6 * scale) and _close(hi_i, hi_v, 1e-6 * scale)  # the vertices suffice
        if lo_v > hi_v + 1e-7 * scale:
            assert A is None
        elif lo_v < hi_v - 1e-7 * scale:
            lo_a, hi_a = A.bounding_box()
            assert _close(lo_a[0], lo_v, 1e-6 * scale) and _close(hi_a[0], hi_v, 1e-6 * scale), mode


def _close(a, b, tol):
    return (math.isinf(a) and a == b) or abs(a - b) <= tol


@pytest.mark.parametrize("seed", range(40, 46))
def test_zero_width_boxes_give_todays_sets(seed):
    rng = np.random.default_rng(seed)
    k, n_tau = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    system = random_system(rng, int(rng.integers(max(2, n_tau), 4)), n_tau, k)
    fa = FrictionIntervalAnalysis(system, FrictionBox.of(system))
    session = AnalysisSession(system)
    for mode in session.enumeration.modes:
        T = session.mode(mode).T(True)
        for P in _sets(fa, mode):
            if T is None or T.is_empty():
                assert P is None
            else:
                assert P is not None and P.equals(T), mode
        assert len(forall_vertices(FrictionBox.of(system), mode)) == 1


# ------------------------------------------------------------------ closed forms -------------
def _brace_h(mu):
    with open(EXAMPLES / "two_link_brace.toml", "rb") as fh:
        doc = tomllib.load(fh)
    L = doc["links"][1]["joint_position"][0]
    m = doc["point_masses"][0]["mass"]
    assert all(p["mass"] == m for p in doc["point_masses"])
    a = L / math.sqrt(2.0)
    return -a * m * doc["gravity"] * (3.0 + mu * mu) / (4.0 * mu)


def test_brace_hand_bound_is_the_documented_one():
    assert _brace_h(0.3) == pytest.approx(-0.1926, abs=5e-5)


@pytest.mark.parametrize("lo, hi", [(0.25, 0.35), (0.1, 0.9), (0.3, 0.3), (0.5, 0.8)])
def test_two_link_brace_fff_over_an_interval(lo, hi):
    brace = load_system_file(EXAMPLES / "two_link_brace.toml").system
    fa = FrictionIntervalAnalysis(brace, FrictionBox([lo] * 3, [hi] * 3))
    for P, mu in ((fa.forall("FFF"), lo), (fa.exists("FFF"), hi)):
        low, high = P.bounding_box()
        assert low[0] == -math.inf and high[0] == pytest.approx(_brace_h(mu), rel=1e-9)
    r = fa.unambiguous("FFF")
    assert r.contains([_brace_h(lo) - 0.01]) and not r.contains([_brace_h(lo) + 0.01])


def test_the_brace_file_with_intervals_gives_the_same_sets():
    loaded = load_system_file(EXAMPLES / "friction" / "two_link_brace_interval.toml", mu_intervals=True)
    assert loaded.friction.lo.tolist() == [0.25] * 3 and loaded.friction.hi.tolist() == [0.35] * 3
    assert loaded.system.mu.tolist() == pytest.approx([0.3] * 3)  # the nominal μ: the midpoint
    fa = FrictionIntervalAnalysis(loaded.system, loaded.friction)
    assert fa.forall("FFF").bounding_box()[1][0] == pytest.approx(_brace_h(0.25), rel=1e-9)
    assert fa.exists("FFF").bounding_box()[1][0] == pytest.approx(_brace_h(0.35), rel=1e-9)


ROD_M_STAR = -9.81 * math.sqrt(5.0) / 6.0


@pytest.mark.parametrize("lo, hi, exists_L, forall_L, star_S, star_L", [
    (0.5, 1.0, (ROD_M_STAR, math.inf), (ROD_M_STAR, math.inf), (-math.inf, ROD_M_STAR), (ROD_M_STAR, math.inf)),
    (1.0, 1.6, (-math.inf, math.inf), (ROD_M_STAR, ROD_M_STAR), None, None),
    (1.5, 2.0, (-math.inf, ROD_M_STAR), (-math.inf, ROD_M_STAR), None, None),
    (2.0, 2.0, (-math.inf, ROD_M_STAR), (-math.inf, ROD_M_STAR), None, None),
])
def test_painleve_rod_over_an_interval(lo, hi, exists_L, forall_L, star_S, star_L):
    rod = load_system_file(EXAMPLES / "painleve_rod.toml").system
    fa = FrictionIntervalAnalysis(rod, FrictionBox([lo], [hi]))
    for P, ends in ((fa.exists("L"), exists_L), (fa.forall("L"), forall_L),
                    (fa.exists("S"), (-math.inf, ROD_M_STAR)), (fa.forall("S"), (-math.inf, ROD_M_STAR))):
        low, high = P.bounding_box()
        assert (low[0], high[0]) == pytest.approx(ends, rel=1e-9)
    for mode, ends in (("S", star_S), ("L", star_L)):
        pieces = fa.unambiguous(mode).unambiguous
        if ends is None:
            assert pieces == []
        else:
            (piece,) = pieces
            assert tuple(v[0] for v in piece.bounding_box()) == pytest.approx(ends, rel=1e-9)


# ------------------------------------------------------------------ units --------------------
@pytest.mark.parametrize("seed", [3, 7, 11])
def test_sets_do_not_depend_on_units(seed):
    doc = random_file(seed)
    rng = np.random.default_rng(seed)
    for c in doc["contacts"]:
        lo = float(rng.uniform(0.1, 0.8))
        c["mu"] = [lo, lo + float(rng.uniform(0.0, 0.5))]
    other, torque = rewrite(doc, 1000.0, 1000.0)  # mm and g
    si = parse_system(doc, mu_intervals=True)
    mm = parse_system(other, mu_intervals=True)
    fa_si = FrictionIntervalAnalysis(si.system, si.friction)
    fa_mm = FrictionIntervalAnalysis(mm.system, mm.friction)
    modes = enumerate_modes(si.system).modes[:6]
    sample = np.random.default_rng(seed + 1).uniform(-20.0, 20.0, size=(15, si.system.n_tau))
    for mode in modes:
        if sum(c in "LR" for c in mode) > 3:
            continue
        for get in (FrictionIntervalAnalysis.exists, FrictionIntervalAnalysis.forall):
            P, Q = get(fa_si, mode), get(fa_mm, mode)
            assert (P is None) == (Q is None), mode
            if P is None:
                continue
            for tau in sample:
                if not _near_boundary(P, tau):
                    assert P.contains(tau) == Q.contains(tau * torque), (mode, tau)


# ------------------------------------------------------------------ input --------------------
def _rod_doc():
    with open(EXAMPLES / "painleve_rod.toml", "rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("mu, message", [
    ([0.5, 0.3], "contacts[0].mu: interval [0.5, 0.3] needs lo <= hi"),
    ([-0.1, 0.3], "contacts[0].mu[0]: must be >= 0, got -0.1"),
    ([0.1, 2e4], "contacts[0].mu[1]: must be <= 10000"),
    ([0.1, "x"], "contacts[0].mu[1]: must be a number, got string"),
    ([0.1, 0.2, 0.3], "contacts[0].mu: an interval must be two numbers [lo, hi], got 3"),
    ([0.1, float("nan")], "contacts[0].mu[1]: must be a finite number"),
])
def test_loader_errors_name_the_field(mu, message):
    doc = _rod_doc()
    doc["contacts"][0]["mu"] = mu
    with pytest.raises(SystemFileError) as err:
        parse_system(doc, mu_intervals=True)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_an_interval_is_refused_where_it_is_not_read():
    doc = _rod_doc()
    doc["contacts"][0]["mu"] = [1.0, 1.5]
    with pytest.raises(SystemFileError, match=r"^contacts\[0\]\.mu: an interval of friction coefficients "
                                              r"\[1, 1\.5\] is read by 'analyze', 'brace', 'plot' \(PNG\) and "
                                              r"'sweep analyze' only"):
        parse_system(doc)
    doc["contacts"][0]["mu"] = [1.5, 1.5]  # zero width: an exact μ, read everywhere
    loaded = parse_system(doc)
    assert loaded.system.mu.tolist() == [1.5] and loaded.friction.exact
    assert load_system_file(EXAMPLES / "painleve_rod.toml").friction is None


def test_friction_box_validation():
    with pytest.raises(ContactModelError, match=r"^mu\[1\] \(b\): interval \[0\.5, 0\.3\] needs lo <= hi$"):
        FrictionBox([0.1, 0.5], [0.2, 0.3], ("a", "b"))
    with pytest.raises(ContactModelError, match="has 2 intervals, the system 1 contacts"):
        FrictionIntervalAnalysis(load_system_file(EXAMPLES / "painleve_rod.toml").system, FrictionBox([0.1, 0.1], [0.2, 0.2]))


def test_too_many_sliding_intervals_is_a_one_line_refusal():
    k = MAX_SLIDING_INTERVALS + 1
    box = FrictionBox(np.full(k, 0.1), np.full(k, 0.2))
    with pytest.raises(ContactModelError, match=r"^mode L+: 11 sliding contacts with a friction interval"):
        forall_vertices(box, "L" * k)
    assert forall_vertices(box, "F" * k).tolist() == [[0.1] * k]
    assert len(forall_vertices(FrictionBox([0.1, 0.1, 0.3], [0.2, 0.2, 0.3]), "LRL")) == 4


@pytest.mark.parametrize("seed", range(60, 68))
def test_robust_torques_give_the_mode_and_nothing_else_at_every_grid_point(seed):
    """At the Chebyshev centre of each full-dimensional robust piece, for every μ of a grid of the
    box: mode ``c`` with its task row has a solution, no other kinematically feasible mode has one,
    and no solution of ``c`` violates the task row (per-μ LPs only)."""
    system, box, rng = random_case(seed)
    k, n_q, n_tau = system.k, system.n_q, system.n_tau
    f = np.zeros((1, 2 * k))
    f[0, 1] = 1.0  # keep contact 0 loaded: f_n0 >= 0.3
    task = LinearConstraint("task", "geq", np.zeros((1, n_q)), f, np.zeros((1, n_tau)), [0.3], "fn0")
    system = replace(system, constraints=(task,))
    fa = FrictionIntervalAnalysis(system, box)
    modes = enumerate_modes(system).modes
    tested = 0
    for mode in modes:
        for piece in fa.unambiguous(mode).unambiguous:
            if piece.affine_dimension() < n_tau:
                continue
            ball = piece.chebyshev_center()
            if ball.radius is None or not np.isfinite(ball.radius) or ball.radius < 1e-4:
                continue
            tau = ball.center
            for mu in grid(box, 3):
                own = slack(system, mode, mu, tau)
                assert own is not None and own > -DELTA, (mode, mu, tau)
                for other in modes:
                    if other != mode:
                        s = slack(system, other, mu, tau, task=False)
                        assert s is None or s < DELTA, (mode, other, mu, tau)
                # the task row cannot be violated: min f_n0 over the physical solutions is >= 0.3
                assert _min_fn0(system, mode, mu, tau) >= 0.3 - 1e-7, (mode, mu, tau)
            tested += 1
    if seed == 60:
        assert tested >= 1


def _min_fn0(system, mode, mu, tau):
    eqs, n = _rows(system, mode, mu, task=False)
    tau = np.asarray(tau, dtype=float)
    c = np.zeros(n)
    c[eqs.n_q + 1] = 1.0
    res = linprog(c, A_ub=-eqs.N[:, :n], b_ub=-(eqs.e - eqs.N[:, n:] @ tau), A_eq=eqs.A, b_eq=eqs.B @ tau + eqs.b,
                  bounds=[(None, None)] * n, method="highs")
    return -math.inf if res.status == 3 else float(res.fun)


# ------------------------------------------------------------------ with a disturbance -------
def test_brace_over_disturbance_and_friction_holds_at_every_vertex_and_grid_mu():
    """five_link_climb with every μ in [0.25, 0.35]: just inside the robust bound, FFF has a
    solution for every vertex of D and every μ of a grid; just outside, it fails for some vertex
    of D at μ = lo (per-μ LPs of the augmented system, δ as extra inputs)."""
    loaded = load_system_file(EXAMPLES / "friction" / "five_link_climb_interval.toml", mu_intervals=True)
    system, box = loaded.system, loaded.friction
    r = robust_unambiguous_over_friction(system, box, "FFF")
    (piece,) = r.robust_unambiguous
    bound = piece.bounding_box()[1][0]
    assert r.robust_feasible.bounding_box()[1][0] == pytest.approx(bound, rel=1e-9)
    aug = augmented_system(system)
    V = system.disturbance.set.vertices().vertices
    for mu in grid(box, 2) + [np.full(3, 0.3)]:
        for v in V:
            assert slack(aug, "FFF", mu, np.concatenate([[bound - 1e-3], v])) > DELTA
    worst = min(slack(aug, "FFF", box.lo, np.concatenate([[bound + 1e-3], v])) or -math.inf for v in V)
    assert worst < -DELTA
    exact = robust_unambiguous(replace(system, mu=box.lo), "FFF")  # every μ = lo: the sticking cones' worst
    assert exact.robust_feasible.bounding_box()[1][0] == pytest.approx(bound, rel=1e-9)


def test_zero_width_box_gives_the_exact_robust_sets():
    climber = load_system_file(EXAMPLES / "five_link_climb.toml").system
    a = robust_unambiguous(climber, "FFF")
    b = robust_unambiguous_over_friction(climber, FrictionBox.of(climber), "FFF")
    assert b.robust_feasible.equals(a.robust_feasible)
    assert len(a.robust_unambiguous) == len(b.robust_unambiguous) == 1
    assert b.robust_unambiguous[0].equals(a.robust_unambiguous[0])
    assert [s.source for s in a.sources] == [s.source for s in b.sources]


def test_brace_cli_reads_intervals_and_reports_the_box(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "brace",
                           str(EXAMPLES / "friction" / "five_link_climb_interval.toml"), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    assert doc["friction"] == {"lo": [0.25] * 3, "hi": [0.35] * 3}
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "plot",  # the interactive page: not over a box
                           str(EXAMPLES / "friction" / "five_link_climb_interval.toml"), "--html", str(tmp_path / "x.html")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and proc.stderr.strip().endswith("give one number here")
    assert "an interval of friction coefficients [0.25, 0.35] is read by 'analyze', 'brace', 'plot' (PNG) and 'sweep analyze' only" \
        in proc.stderr


# ------------------------------------------------------------------ near the boundaries ------
def _best_slack_1d(system, mode, box, i, tau) -> float:
    """``max σ*(μ_i)`` over ``[lo_i, hi_i]`` (the one sliding contact ``i``; the others at ``hi``,
    where their cones are widest): a grid of 101 points, then a bounded scalar search around the best."""
    def minus(x):
        mu = box.hi.copy()
        mu[i] = x
        v = slack(system, mode, mu, tau)
        return 10.0 if v is None else -v

    xs = np.linspace(box.lo[i], box.hi[i], 101)
    vals = [minus(x) for x in xs]
    j = int(np.argmin(vals))
    a, b = xs[max(j - 1, 0)], xs[min(j + 1, len(xs) - 1)]
    res = minimize_scalar(minus, bounds=(a, b), method="bounded", options={"xatol": 1e-12 * max(1.0, b)})
    return -min(float(res.fun), min(vals))


def _facet_points(P, eps_rel=1e-3):
    """Per facet of ``P`` (reduced, full-dimensional): a point in the facet's relative interior
    (its Chebyshev centre within the facet) moved by ``±eps`` along the outer normal:
    ``[(inside, outside), …]``."""
    from polytopes import Polytope

    P = P.reduce()
    out = []
    for j in range(P.A.shape[0]):
        a, b = P.A[j], P.b[j]
        rest = np.delete(np.arange(P.A.shape[0]), j)
        facet = Polytope(P.A[rest], P.b[rest], np.vstack([P.C, a[None, :]]), np.concatenate([P.d, [b]]))
        ball = facet.chebyshev_center()
        if ball.center is None:
            continue
        x = np.asarray(ball.center, dtype=float)
        u = a / np.linalg.norm(a)
        eps = eps_rel * max(1.0, float(np.abs(x).max()))
        out.append((x - eps * u, x + eps * u))
    return out


@pytest.mark.parametrize("seed", range(80, 85))
def test_torques_just_inside_and_outside_the_facets(seed):
    """Just inside a facet of ``T^∀`` every vertex μ works and just outside some vertex μ fails
    (the vertex theorem, by per-μ LPs); just inside a facet of ``T^∃`` some μ of the box works and
    just outside none does (a search over the box by differential evolution)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 3))
    system = random_system(rng, int(rng.integers(2, 4)), 2, k)
    lo = rng.uniform(0.1, 0.8, size=k)
    box = FrictionBox(lo, lo + rng.uniform(0.05, 0.6, size=k))
    fa = FrictionIntervalAnalysis(system, box)
    checked, searched = 0, 0
    for mode in enumerate_modes(system).modes:
        E, A = fa.exists(mode), fa.forall(mode)
        if A is not None and A.affine_dimension() == 2:
            vertices = forall_vertices(box, mode)
            for inside, outside in _facet_points(A):
                assert all((s := slack(system, mode, mu, inside)) is not None and s > -1e-9 for mu in vertices)
                outs = [slack(system, mode, mu, outside) for mu in vertices]
                assert any(v is None or v < 0.0 for v in outs), (mode, outside)
                checked += 1
        sliding = [i for i, c in enumerate(mode) if c in "LR"]
        if E is not None and E.affine_dimension() == 2 and len(sliding) == 1 and searched < 2:
            searched += 1  # a search per point: two modes per system, two facets each, keep it fast
            for inside, outside in _facet_points(E)[:2]:
                assert _best_slack_1d(system, mode, box, sliding[0], inside) > -1e-6, (mode, inside)
                assert _best_slack_1d(system, mode, box, sliding[0], outside) < 0.0, (mode, outside)
                checked += 1
    assert checked >= 1


# ------------------------------------------------------------------ the picture --------------
@pytest.mark.parametrize("lo, hi, inconsistent", [(0.5, 1.0, None), (1.5, 2.0, (ROD_M_STAR, 20.0))])
def test_plot_sets_over_the_box(lo, hi, inconsistent):
    """What ``plot`` draws for the rod (module doc's closed forms): ``T^∃`` per mode, the robust
    sets outlined, and the moments of [−20, 20] with no solution for any μ."""
    from contactmodes.output.friction_sets import gather_over_friction

    rod = load_system_file(EXAMPLES / "painleve_rod.toml").system
    domains, star, bad = gather_over_friction(rod, FrictionBox([lo], [hi]),
                                              lambda d: (list(d), np.array([-20.0]), np.array([20.0])))
    assert sorted(domains) == ["L", "S"]
    assert tuple(v[0] for v in domains["S"].bounding_box()) == pytest.approx((-math.inf, ROD_M_STAR))
    if inconsistent is None:
        assert bad == [] and [len(star[m]) for m in "SL"] == [1, 1]
    else:
        (piece,) = bad
        assert tuple(v[0] for v in piece.bounding_box()) == pytest.approx(inconsistent, rel=1e-9)
        assert star == {"S": [], "L": []}


def test_plot_cli_draws_a_file_with_intervals(tmp_path):
    out = tmp_path / "rod.png"
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "plot",
                           str(EXAMPLES / "friction" / "painleve_rod_interval.toml"), "--output", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 1000


# ------------------------------------------------------------------ the front door -----------
def test_analyze_of_an_interval_file_reports_both_sets_and_the_robust_ones():
    """``cm.analyze`` on the rod with μ ∈ [1.0, 1.6] (straddling 4/3, module doc): the plain fields
    are those of the nominal μ = 1.3 (below 4/3: S and L meet at M* only), the box's sets are
    ``T_L^∃ = R``, ``T_L^∀ = {M*}``, and nothing is robustly unambiguous."""
    import contactmodes as cm

    r = cm.analyze(EXAMPLES / "friction" / "painleve_rod_interval.toml", unambiguous=True)
    assert r.system.mu.tolist() == [1.3]
    assert r.modes["L"].box[0][0] == pytest.approx(ROD_M_STAR) and r.modes["L"].box[1][0] == math.inf
    doc = r.to_json()
    assert doc["friction"] == {"lo": [1.0], "hi": [1.6]}
    entry = {m["mode"]: m for m in doc["modes"]}
    assert entry["L"]["torque_domain_exists"] == {"A": [], "b": [], "C": [], "d": [], "dim": 1}
    (c,), (d,) = entry["L"]["torque_domain_forall"]["C"], entry["L"]["torque_domain_forall"]["d"]
    assert d / c[0] == pytest.approx(ROD_M_STAR, rel=1e-9)
    assert entry["S"]["unambiguous_robust"] == [] and entry["L"]["unambiguous_robust"] == []
    assert [s["source"] for s in entry["S"]["ambiguity_sources_robust"]] == ["L"]
    assert len(entry["S"]["unambiguous"]) == 1  # at the nominal μ, S is unambiguous below M*
    plain = cm.analyze(EXAMPLES / "painleve_rod.toml").to_json()
    assert "friction" not in plain and all("torque_domain_exists" not in m for m in plain["modes"])


def test_robust_sets_lie_in_the_nominal_unambiguous_sets():
    """The nominal μ is in the box, so ``T*_c`` over the box is inside the exact ``T*_c`` at it."""
    import contactmodes as cm

    for seed in range(90, 94):
        system, box, rng = random_case(seed)
        nominal = replace(system, mu=box.nominal())
        r = cm.analyze(nominal, unambiguous=True, friction=box)
        for mode, robust in r.robust.items():
            exact = r.unambiguous[mode]
            for piece in robust.unambiguous:
                ball = piece.chebyshev_center()
                if ball.center is not None and ball.radius is not None and ball.radius > 1e-6:
                    assert exact.contains(ball.center), (seed, mode)


def test_sweep_reports_the_sets_over_the_box():
    """``sweep analyze`` of the brace with every μ in [0.25, 0.35], gravity varied: the bounds of
    ``T^∀``/``T^∃`` are the hand bound at lo/hi, proportional to g (module doc)."""
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "sweep", "analyze",
                           str(EXAMPLES / "friction" / "two_link_brace_interval.toml"), "--vary", "gravity=9.81,19.62",
                           "--unambiguous", "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    for point in doc["points"]:
        scale = point["params"]["gravity"] / 9.81
        e = point["modes"]["FFF"]
        assert e["forall_box"][0] == [None, pytest.approx(scale * _brace_h(0.25), rel=1e-9)]
        assert e["exists_box"][0] == [None, pytest.approx(scale * _brace_h(0.35), rel=1e-9)]
        assert e["robust_unambiguous_box"] == e["forall_box"]
        assert e["bounding_box"][0][1] == pytest.approx(scale * _brace_h(0.3), rel=1e-9)  # the nominal μ
