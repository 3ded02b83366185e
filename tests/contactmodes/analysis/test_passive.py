"""Passive systems (issue 25 item 5): no actuators, so each mode's ``T_c`` lives in ``R^0`` and a
mode is simply consistent (``T_c = {()}``) or not.

Closed forms, derived by hand (planar rigid body, ``t = (1, 0)``, ``n = (0, 1)`` on the floor):

* block at rest on two corners (mass m, half-width a = 0.1, half-height c = 0.05, mu = 0.5): only
  ``FF``. Moment balance about the centre of mass, ``-a f_n1 + a f_n2 + c (f_t1 + f_t2) = 0``
  with ``f_t1 + f_t2 = 0`` (no horizontal acceleration) gives ``f_n1 = f_n2 = m g / 2``; the
  one ambiguity variable is the squeeze ``f_t1 = -f_t2``, ``|f_t1| <= mu m g / 2``. A separating
  corner lets the block pivot about the other and sink the first (gravity's moment about the
  pivot), ``SS`` sinks both, and sliding from rest needs a tangential force against friction.
* the same block sliding at ``v > 0`` (contact velocities along ``+t``: letters ``S``/``R``):
  only ``RR``, ``x'' = -mu g``, ``f_n1 = m g (1 - mu c / a) / 2``, ``f_n2 = m g (1 + mu c / a) / 2``
  (moment balance with ``f_t = -mu f_n``). ``RS`` / ``SR``: the block pivots on the one corner and
  the other sinks (``y''`` of the free corner ``= -2 a theta''`` with ``theta''`` of the sign that
  sinks it).
* the block leaving the floor (``y' > 0``, both contacts lifting: only ``S`` per contact):
  ``SS``, consistent, ``q'' = (0, -g, 0)``.
* the Painlevé rod (uniform, m = 1, half-length l = 0.5, I = m l^2 / 3) on its lower end at
  ``theta = atan 2``, sliding in ``-x`` (mode ``L``, ``f_t = +mu N``): the end's normal acceleration
  is ``y''_P = -g + l sin(theta) w^2 + (N / m) B`` with ``B = 1 + 3 cos^2(theta) - 3 mu sin(theta)
  cos(theta) = (8 - 6 mu) / 5``. For ``mu < 4/3`` (B > 0) and ``w = 0``: only ``L``, ``N = m g / B``.
  For ``mu > 4/3`` and ``w = 0``: no mode (``L`` needs ``N < 0``, ``S`` sinks): inconsistent. For
  ``mu > 4/3`` and ``l sin(theta) w^2 > g`` (``w > 4.6836``): ``S`` and ``L`` both (ambiguous),
  ``N = m (l sin(theta) w^2 - g) / (-B)``.
"""

from __future__ import annotations

import math
import tomllib

import numpy as np
import pytest

import contactmodes as cm
from contactmodes.analysis.session import AnalysisSession, mode_domain
from contactmodes.schemas import validate
from contactmodes.system_file.loader import parse_system
from polytopes import Polytope

from _support.paths import EXAMPLES
from _support.units import rewrite

G = 9.81
BLOCK = EXAMPLES / "passive" / "block_resting.toml"
ROD = EXAMPLES / "passive" / "painleve_rod_passive.toml"
M_BLOCK, A, C, MU_BLOCK = 2.0, 0.1, 0.05, 0.5
THETA = math.atan(2.0)
L_HALF = 0.5


def doc(path, **state):
    """The file's document with ``state.q`` / ``state.qdot`` entries and top-level keys replaced."""
    with open(path, "rb") as f:
        d = tomllib.load(f)
    for key in ("q", "qdot"):
        d["state"][key].update(state.pop(key, {}))
    for c in d["contacts"]:
        c["mu"] = state.get("mu", c["mu"])
    return d


def analyze(d, **options):
    return cm.analyze(parse_system(d).system, **options)


def zero_tau():
    return np.zeros(0)


def test_block_at_rest_only_sticking():
    r = cm.analyze(BLOCK)
    assert r.system.n_tau == 0 and r.feasible_modes() == ["FF"]
    assert set(r.modes) >= {"FF", "SS", "FS", "SF"}
    ff = r.modes["FF"]
    assert ff.T.dim == 0 and not ff.T.is_empty() and ff.contains([]) and ff.box[0].shape == (0,)
    assert all(r.modes[m].T is None for m in r.modes if m != "FF")
    assert r.locate([]) == ["FF"]
    # the one ambiguity variable: the squeeze f_t1 = -f_t2 over |f_t| <= mu m g / 2, f_n = m g / 2
    assert ff.response.n_w == 1
    lo, hi = ff.D.bounding_box()
    ends = [ff.response.evaluate(zero_tau(), np.array([w]))[1] for w in (lo[0], hi[0])]
    for f in ends:
        np.testing.assert_allclose(f[[1, 3]], [M_BLOCK * G / 2] * 2, rtol=1e-9)
        np.testing.assert_allclose(f[0], -f[2], atol=1e-9)
    np.testing.assert_allclose(sorted(abs(f[0]) for f in ends), [MU_BLOCK * M_BLOCK * G / 2] * 2, rtol=1e-7)
    np.testing.assert_allclose(ff.response.evaluate(zero_tau(), np.array([hi[0]]))[0], 0.0, atol=1e-9)


def test_block_sliding_decelerates_by_mu_g():
    r = analyze(doc(BLOCK, qdot={"x": 0.5}))
    assert sorted(r.modes) == ["RR", "RS", "SR", "SS"] and r.feasible_modes() == ["RR"]
    qdd, f = r.modes["RR"].response.evaluate(zero_tau())
    np.testing.assert_allclose(qdd, [-MU_BLOCK * G, 0.0, 0.0], atol=1e-9)
    n1, n2 = M_BLOCK * G * (1 - MU_BLOCK * C / A) / 2, M_BLOCK * G * (1 + MU_BLOCK * C / A) / 2
    np.testing.assert_allclose(f, [-MU_BLOCK * n1, n1, -MU_BLOCK * n2, n2], rtol=1e-9)


def test_block_leaving_the_floor_only_separates():
    r = analyze(doc(BLOCK, qdot={"y": 1.0}))
    assert list(r.modes) == ["SS"] and r.feasible_modes() == ["SS"]
    np.testing.assert_allclose(r.modes["SS"].response.evaluate(zero_tau())[0], [0.0, -G, 0.0], atol=1e-12)


@pytest.mark.parametrize("mu", [0.5, 1.0, 1.3, 1.37, 1.5, 2.0])
def test_painleve_rod_at_rest_in_angle(mu):
    r = analyze(doc(ROD, mu=mu), inconsistency_box=(np.zeros(0), np.zeros(0)), unambiguous=True)
    assert sorted(r.modes) == ["L", "S"]
    B = (8 - 6 * mu) / 5
    if mu < 4 / 3:
        assert r.feasible_modes() == ["L"] and r.inconsistent == []
        assert [not P.is_empty() for P in r.unambiguous["L"].unambiguous] == [True]  # the only one
        f = r.modes["L"].response.evaluate(zero_tau())[1]
        np.testing.assert_allclose(f, [mu * G / B, G / B], rtol=1e-9)
    else:
        assert r.feasible_modes() == [] and len(r.inconsistent) == 1
        P = r.inconsistent[0]
        assert P.dim == 0 and not P.is_empty()  # the one point of R^0: no solution at all


@pytest.mark.parametrize("w, ambiguous", [(4.6, False), (4.8, True), (6.0, True)])
def test_painleve_rod_spinning(w, ambiguous):
    r = analyze(doc(ROD, qdot={"theta": w}), unambiguous=True, inconsistency_box=(np.zeros(0), np.zeros(0)))
    if not ambiguous:  # l sin(theta) w^2 < g: still inconsistent
        assert r.feasible_modes() == [] and len(r.inconsistent) == 1
        return
    assert sorted(r.feasible_modes()) == ["L", "S"] and r.inconsistent == []
    assert sorted(map(sorted, r.overlaps)) == [["L", "S"]]
    assert r.unambiguous["S"].unambiguous == [] and r.unambiguous["L"].unambiguous == []
    assert [s.source for s in r.unambiguous["S"].sources] == ["L"]
    B = (8 - 6 * 2.0) / 5
    N = (L_HALF * math.sin(THETA) * w * w - G) / -B
    np.testing.assert_allclose(r.modes["L"].response.evaluate(zero_tau())[1], [2.0 * N, N], rtol=1e-9)


def test_units_invariance_mm_g():
    si = doc(BLOCK, qdot={"x": 0.5})
    mmg, _ = rewrite(si, 1000.0, 1000.0)  # lengths in mm, masses in g, gravity 9810 mm/s^2
    r1, r2 = analyze(si), analyze(mmg)
    assert r1.feasible_modes() == r2.feasible_modes() == ["RR"]
    np.testing.assert_allclose(r2.modes["RR"].response.evaluate(zero_tau())[0], [-MU_BLOCK * G * 1000.0, 0, 0],
                               atol=1e-6)
    rest, _ = rewrite(doc(BLOCK), 1000.0, 1000.0)
    assert analyze(rest).feasible_modes() == ["FF"]


def test_session_and_json():
    system = parse_system(doc(BLOCK)).system
    session = AnalysisSession(system)  # no refusal any more
    assert session.locate(np.zeros(0)) == ["FF"]
    assert mode_domain(system, "FF").T.dim == 0
    r = cm.analyze(system, at=[], unambiguous=True, inconsistency_box=([], []))
    out = r.to_json()
    validate(out)
    assert out["at"] == {"tau": [], "modes": ["FF"], "tol": 0.0, "nearest": None}
    domains = {m["mode"]: m["torque_domain"] for m in out["modes"]}
    assert domains["FF"]["dim"] == 0 and Polytope.from_json(domains["FF"]).equals(Polytope.universe(0))
    assert all(v is None for m, v in domains.items() if m != "FF")
    rod = cm.analyze(ROD, inconsistency_box=([], [])).to_json()
    validate(rod)
    assert [Polytope.from_json(p).is_empty() for p in rod["inconsistent"]] == [False]


def test_notebook_view_has_no_picture():
    html = cm.analyze(BLOCK, unambiguous=True)._repr_html_()
    assert "FF" in html and "<img" not in html  # T_c in R^0: nothing to draw
