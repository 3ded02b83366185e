"""Metamorphic test: the same system written in other units gives the same answers.

Random planar mechanisms (floating base, 1–3 more links, some massless, 1–5 contacts, at rest or
moving, with and without task rows) are written as system files in SI and then rewritten by hand
in millimetres, kilometres, grams and tonnes (lengths × λ, masses × μ; inertias × μλ², gravity ×
λ, a task row's coefficients divided by its variables' unit factors). The analysis must give the
same enumeration, the same feasible modes and the same torque domains ``T_c`` once torques are
mapped back (τ in N·m scales by μλ²). The reference is the SI answer of the same code: the
property tested is the invariance itself (issue: "answers do not depend on units"); the SI answers
are checked against independent oracles elsewhere (``test_oracle.py``, ``test_shared_cases.py``).
The random systems and the rewrite: ``tests/_support/units.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _support.units import random_system, rewrite
from contactmodes.analysis.analyze import analyze
from contactmodes.errors import ApproachingContactError
from contactmodes.system_file.loader import parse_system
from polytopes import Polytope

UNITS = {"mm": (1e3, 1.0), "km": (1e-3, 1.0), "g": (1.0, 1e3), "t": (1.0, 1e-3), "mm_g": (1e3, 1e3)}
SETTINGS = settings(derandomize=True, max_examples=14, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def torque_domains(doc: dict):
    res = analyze(parse_system(doc).system, compute_overlaps=False)
    return res, {m: res.modes[m].T for m in res.feasible_modes()}


@SETTINGS
@given(st.integers(0, 2**31 - 1), st.sampled_from(sorted(UNITS)))
def test_same_answers_in_other_units(seed, unit):
    doc = random_system(seed)
    try:
        ref, T_ref = torque_domains(doc)
    except ApproachingContactError:  # pragma: no cover - normals are flipped above
        pytest.skip("approaching contact")
    lam, mu = UNITS[unit]
    other, torque = rewrite(doc, lam, mu)
    res, T = torque_domains(other)
    assert res.enumeration.allowed == ref.enumeration.allowed
    assert res.enumeration.modes == ref.enumeration.modes
    assert list(T) == list(T_ref)
    for m, P in T.items():
        back = Polytope(P.A * torque, P.b, P.C * torque, P.d)  # τ_unit = torque · τ_SI
        assert back.equals(T_ref[m], tol=1e-6), (unit, m)


def test_rewrite_keeps_the_dynamics():
    """The hand rewrite is right: M, h, J in mm/g are the SI ones times their unit factors."""
    doc = random_system(3)
    si = parse_system(doc).system
    other, _ = rewrite(doc, 1e3, 1e3)
    mm = parse_system(other).system
    lin = np.array([c in ("x", "y") for c in si.coordinates])
    fq = np.where(lin, 1e3, 1.0)               # q̈ unit factor per coordinate
    gf = np.where(lin, 1e3 * 1e3, 1e3 * 1e6)   # generalized force: N -> g·mm/s², N·m -> g·mm²/s²
    np.testing.assert_allclose(mm.M, si.M * gf[:, None] / fq[None, :], rtol=1e-9, atol=1e-12 * np.abs(mm.M).max())
    np.testing.assert_allclose(mm.h, si.h * gf, rtol=1e-9, atol=1e-9 * np.abs(mm.h).max())
    np.testing.assert_allclose(mm.J, si.J * 1e3 / fq[None, :], rtol=1e-9, atol=1e-12)
