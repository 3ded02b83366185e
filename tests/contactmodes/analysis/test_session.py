"""The analysis session: output-sensitive enumeration against the 4^k loop, session results against
an unscaled per-mode computation, point location against per-mode LPs, and "one enumeration, one
domain per mode" for ``plot`` and ``--unambiguous``."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from _support.chains import zigzag_chain
from _support.oracle import kinematically_ok, oracle_slack
from _support.paths import EXAMPLES as EXAMPLES_DIR
from _support.systems import random_system
from contactmodes.modes import enumeration as modes_module
from contactmodes.modes import response as response_module
from contactmodes.analysis import session as session_module
from contactmodes.analysis.analyze import analyze
from contactmodes.cli import main
from contactmodes.analysis.domains import domain_from_response
from contactmodes.system_file.loader import load_system_file, parse_system
from contactmodes.modes.enumeration import acceleration_feasible, all_modes, enumerate_modes, velocity_allowed
from contactmodes.modes.response import mode_equations, response_from_equations
from contactmodes.analysis.session import AnalysisSession

EXAMPLES = sorted(glob.glob(os.path.join(EXAMPLES_DIR, "*.toml")))


def reference_enumeration(system) -> list[str]:
    """The 4^k loop kept as the reference: every mode Table III allows, tested one by one."""
    allowed = velocity_allowed(system)
    return [m for m in all_modes(system.k)
            if all(c in allowed[i] for i, c in enumerate(m)) and acceleration_feasible(system, m)]


@pytest.mark.parametrize("k", [*range(1, 7), pytest.param(7, marks=pytest.mark.slow)])  # 7: the 4^7-mode loop
def test_chain_enumeration_matches_the_loop_and_the_closed_form(k):
    s = parse_system(zigzag_chain(k)).system
    en = enumerate_modes(s)
    assert en.after_velocity == 4 ** k  # all at rest: Table III prunes nothing
    assert en.after_acceleration == (k + 3) * 2 ** (k - 1)  # the count measured in the issue
    if k <= 7:
        assert en.modes == reference_enumeration(s)
    # output-sensitive: fewer LPs than candidates once the search runs (up to DIRECT_CANDIDATES
    # candidates, k <= 4 here, every whole mode is decided in one batch instead)
    assert en.lps < 4 ** k or 4 ** k <= modes_module.DIRECT_CANDIDATES


@pytest.mark.parametrize("seed", range(12))
def test_random_enumeration_matches_the_loop_and_an_independent_oracle(seed):
    rng = np.random.default_rng(500 + seed)
    k = 1 + seed % 4
    s = random_system(rng, int(rng.integers(2, 5)), 1, k)
    # give some contacts a velocity so Table III prunes too (no approaching contact)
    v = np.zeros(2 * k)
    for i in range(k):
        if rng.random() < 0.4:
            v[2 * i] = rng.choice([-1.0, 1.0])
        if rng.random() < 0.2:
            v[2 * i + 1] = 0.5
    from dataclasses import replace

    s = replace(s, v_contact=v)
    en = enumerate_modes(s)
    assert en.modes == reference_enumeration(s)
    assert en.modes == [m for m in all_modes(k) if kinematically_ok(s, m)]


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_session_equals_the_unscaled_per_mode_computation(path):
    """Session (nondimensional decisions, lazy, cached) vs the response and domain computed
    directly in the file's units, mode by mode (the pre-session pipeline)."""
    s = load_system_file(path).system
    res = analyze(s, compute_overlaps=False)
    for m, a in res.modes.items():
        direct = domain_from_response(response_from_equations(mode_equations(s, m)))
        assert a.feasible == direct.feasible, m
        assert a.response.rank_case == direct.response.rank_case and a.response.n_w == direct.response.n_w
        if a.feasible:
            assert a.T.equals(direct.T, tol=1e-6), m
            lo, hi = a.box
            dlo, dhi = direct.T.bounding_box()
            np.testing.assert_allclose(lo, dlo, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(hi, dhi, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("seed", range(6))
def test_point_location_against_per_mode_lps(seed):
    rng = np.random.default_rng(900 + seed)
    k = 1 + seed % 2
    s = random_system(rng, int(rng.integers(2, 4)), int(rng.integers(1, 3)), k)
    session = AnalysisSession(s)
    checked = 0
    for tau in rng.uniform(-15, 15, size=(10, s.n_tau)):
        found = set(session.locate(tau, task=False))
        for m in session.enumeration.modes:
            sigma = oracle_slack(s, m, tau, task=False)
            scale = max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))
            if sigma is not None and (np.isnan(sigma) or abs(sigma) <= 1e-6 * scale):
                continue
            assert (m in found) == (sigma is not None and sigma > 0), (m, tau, sigma)
            checked += 1
    assert checked > 20


def test_locate_rejects_a_bad_torque():
    s = load_system_file(os.path.join(EXAMPLES_DIR, "two_link_brace.toml")).system
    with pytest.raises(Exception, match="tau: expected 1 finite"):
        AnalysisSession(s).locate([1.0, 2.0])


@pytest.fixture
def counters(monkeypatch):
    counts = {"enumerate": 0, "response": 0}
    real_enum, real_resp = modes_module.enumerate_modes, response_module.response_from_equations

    def enum(*a, **kw):
        counts["enumerate"] += 1
        return real_enum(*a, **kw)

    def resp(*a, **kw):
        counts["response"] += 1
        return real_resp(*a, **kw)

    monkeypatch.setattr(session_module, "enumerate_modes", enum)
    monkeypatch.setattr(session_module, "response_from_equations", resp)
    return counts


def test_unambiguous_cli_enumerates_once_and_solves_each_mode_once(counters, capsys):
    path = os.path.join(EXAMPLES_DIR, "two_link_brace.toml")
    assert main(["analyze", path, "--unambiguous", "--inconsistency-box=-1:1"]) == 0
    n_modes = len(load_system_file(path).system and enumerate_modes(load_system_file(path).system).modes)
    assert counters["enumerate"] == 1
    assert counters["response"] <= n_modes


def test_plot_enumerates_once_and_solves_each_mode_once(counters, tmp_path):
    path = os.path.join(EXAMPLES_DIR, "painleve_rod.toml")
    assert main(["plot", path, "--output", str(tmp_path / "p.png")]) == 0
    assert counters["enumerate"] == 1
    assert counters["response"] <= len(enumerate_modes(load_system_file(path).system).modes)


def test_overlaps_stored_as_pairs_and_summarized_when_many(capsys):
    s = parse_system(zigzag_chain(4)).system
    res = analyze(s)
    assert all(isinstance(p, tuple) and len(p) == 2 for p in res.overlaps)
    assert len(res.overlaps) > 40
    # each listed pair really intersects (an independent LP on the user-unit sets)
    from polytopes import Polytope

    for a, b in list(res.overlaps)[:25]:
        Ta, Tb = res.modes[a].T, res.modes[b].T
        assert not Polytope(np.vstack([Ta.A, Tb.A]), np.concatenate([Ta.b, Tb.b])).is_empty()
    from contactmodes.output.text import format_table

    text = format_table(res)
    assert "give --overlaps to list them all" in text and len(max(text.splitlines(), key=len)) <= 100
    full = format_table(res, list_limit=None)
    assert sum(line.startswith("  ") and " ∩ " in line for line in full.splitlines()) == len(res.overlaps)


@pytest.mark.parametrize("k", [4, 5])
def test_candidate_pairs_and_their_count_against_all_pairs(k):
    """The box sweep (and its count, which builds no list) against the all-pairs loop over the
    same boxes: a pair is a candidate exactly when the boxes meet on every axis (within the gap)."""
    s = parse_system(zigzag_chain(k)).system
    sess = AnalysisSession(s)
    feas = sess.feasible_modes()
    cands = sess.candidate_pairs(feas)
    assert sess.count_candidate_pairs(feas) == len(cands)
    boxes = {m: sess.mode(m).box_scaled() for m in feas}
    finite = np.abs(np.concatenate([np.concatenate([b[0][np.isfinite(b[0])], b[1][np.isfinite(b[1])]])
                                    for b in boxes.values()]))
    gap = 1e-8 * max(1.0, float(finite.max(initial=0.0)))
    brute = [(a, b) for i, a in enumerate(feas) for b in feas[i + 1:]
             if np.all(boxes[b][0] <= boxes[a][1] + gap) and np.all(boxes[a][0] <= boxes[b][1] + gap)]
    assert sorted(cands) == sorted(brute)
    assert 0 < len(cands) < len(feas) * (len(feas) - 1) // 2 or len(feas) < 3


@pytest.mark.parametrize("path", EXAMPLES + ["chain4"], ids=[os.path.basename(p) for p in EXAMPLES] + ["chain4"])
def test_overlapping_pairs_against_all_pairs_of_projected_domains(path):
    """The session's overlaps (boxes in one batch, witnesses, certified separations, lifted
    domains ``(τ', w_a, w_b)`` for modes with ambiguity variables — never projected — decided in
    one batch) against every pair of feasible modes intersected as projected ``T_c``, computed
    directly in the file's units (the pre-session pipeline: one projection per mode, one LP per
    pair)."""
    from contactmodes.analysis.domains import intersect_domains

    s = parse_system(zigzag_chain(4)).system if path == "chain4" else load_system_file(path).system
    res = analyze(s)
    if path == "chain4":  # modes with ambiguity variables, some decided on lifted domains
        assert any(res.session.mode(m).response_scaled().n_w for m in res.feasible_modes())
    direct = {m: domain_from_response(response_from_equations(mode_equations(s, m))) for m in res.modes}
    feas = [m for m in res.modes if direct[m].feasible]
    assert feas == res.feasible_modes()
    brute = set()
    for i, a in enumerate(feas):
        for b in feas[i + 1:]:
            inter = intersect_domains(direct[a].T, direct[b].T)
            if inter is not None and not inter.is_empty():
                brute.add(frozenset((a, b)))
    assert {frozenset(p) for p in res.overlaps} == brute


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "rhex" in p] + ["chain4"])
def test_lifted_pairs_decided_together_as_one_by_one(path):
    """The lifted domains of many pairs decided together (``AnalysisSession._lifted_nonempty``:
    rows, independent equalities and max-slack LPs stacked by shape) take the decision the
    emptiness rule takes on each pair's own rows (``AnalysisSession._lifted_pair``, then
    ``polytopes._feasibility.feasibility_many``), on every candidate pair of feasible modes."""
    from polytopes._feasibility import feasibility_many

    s = parse_system(zigzag_chain(4)).system if path == "chain4" else load_system_file(path).system
    session = AnalysisSession(s)
    feas = session.feasible_modes()
    pairs = session.candidate_pairs(feas)
    assert any(session.mode(m).response_scaled().n_w for m in feas) and len(pairs) > 20
    together = session._lifted_nonempty(pairs, True)
    rows = [session._lifted_pair(a, b, True) for a, b in pairs]
    one = feasibility_many([r for r in rows if r is not None])
    it = iter(one)
    alone = [r is not None and not next(it).empty for r in rows]
    assert together.tolist() == alone
    assert 0 < sum(alone) < len(alone)


def test_prime_T_gives_the_domains_computed_one_by_one():
    """``AnalysisSession.prime_T`` (emptiness and hulls of all domains decided together first)
    gives every mode the ``T_c`` a fresh session computes for it alone — the same H-representation,
    in the solver's units and in the user's — and the same affine dimension and box."""
    path = [p for p in EXAMPLES if "rhex" in p][0]
    s = load_system_file(path).system
    primed, alone = AnalysisSession(s), AnalysisSession(s)
    feas = primed.feasible_modes()
    assert len(feas) >= session_module.PREPARE_MIN
    primed.prime_T(feas, user_units=True)
    assert all(primed.mode(m).has_T(True) for m in feas)
    for m in feas:
        for P, Q in ((primed.mode(m).T_scaled(), alone.mode(m).T_scaled()), (primed.mode(m).T(), alone.mode(m).T())):
            assert all(np.array_equal(getattr(P, f), getattr(Q, f)) for f in "AbCd")
            assert P.affine_dimension() == Q.affine_dimension()
            np.testing.assert_allclose(P.bounding_box(), Q.bounding_box(), rtol=1e-9, atol=1e-12)


def _oracle_threshold(system, mode: str, lo: float, hi: float) -> float:
    """The one-torque threshold where the independent oracle's slack changes sign (bisection)."""
    inside = lambda t: (s := oracle_slack(system, mode, np.array([t]))) is not None and s >= 0  # noqa: E731
    assert inside(lo) != inside(hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if inside(mid) == inside(lo):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def test_mode_methods_speak_user_units_on_two_link_brace():
    """``session.mode(m).box()``, ``.T()``, ``.contains()``, ``.maximize()`` and ``.D()`` are in
    the system's units (issue 22: ``box()`` gave −0.5256 where the bound is −0.1926 N·m and
    ``contains([-0.5])`` was False while ``locate([-0.5])`` found FFF). The FFF bound is the
    independent oracle's threshold; the scaled forms are the user ones divided by the unit."""
    system = load_system_file("examples/two_link_brace.toml").system
    session = AnalysisSession(system)
    fff = session.mode("FFF")
    threshold = _oracle_threshold(system, "FFF", -1.0, 0.0)
    lo, hi = fff.box()
    assert lo[0] == -np.inf and hi[0] == pytest.approx(threshold, abs=1e-7)
    assert fff.contains([threshold - 0.01]) and not fff.contains([threshold + 0.01])
    assert "FFF" in session.locate([-0.5])
    assert set(session.locate([-0.5])) == {m for m in session.feasible_modes() if session.mode(m).contains([-0.5])}
    value, tau = fff.maximize([1.0])
    assert value == pytest.approx(threshold, abs=1e-7) and tau[0] == pytest.approx(threshold, abs=1e-7)
    assert fff.T().contains(np.array([-0.5])) and not fff.T().contains(np.array([0.0]))
    D = fff.D()
    assert D.dim == 1 + fff.response().n_w
    assert D.project([0]).equals(fff.T(), tol=1e-6)
    u = session.scaling.tau
    assert fff.box_scaled()[1][0] * u[0] == pytest.approx(hi[0])
    with pytest.raises(Exception, match="tau: expected 1 finite values"):
        fff.contains([1.0, 2.0])


@pytest.mark.parametrize("seed", [3, 11])
def test_mode_methods_are_unit_invariant(seed):
    """The same random system in SI and in mm and g: box, contains and maximize of every feasible
    mode map back by the torque unit (×1e9)."""
    from _support.units import random_system as units_system
    from _support.units import rewrite

    doc = units_system(seed)
    other, factor = rewrite(doc, 1e3, 1e3)
    a, b = AnalysisSession(parse_system(doc).system), AnalysisSession(parse_system(other).system)
    modes = a.feasible_modes()
    assert modes == b.feasible_modes() and modes
    rng = np.random.default_rng(seed)
    for m in modes[:6]:
        (lo_a, hi_a), (lo_b, hi_b) = a.mode(m).box(), b.mode(m).box()
        for x, y in ((lo_a, lo_b), (hi_a, hi_b)):
            fin = np.isfinite(x)
            assert (fin == np.isfinite(y)).all()
            np.testing.assert_allclose(y[fin], x[fin] * factor, rtol=1e-6, atol=1e-6 * factor)
        c = rng.normal(size=len(lo_a))
        ra, rb = a.mode(m).maximize(c), b.mode(m).maximize(c / factor)
        assert ra is not None and rb is not None
        if np.isfinite(ra[0]):
            assert rb[0] == pytest.approx(ra[0], rel=1e-6, abs=1e-6 * max(1.0, abs(ra[0])))
            assert b.mode(m).contains(ra[1] * factor)
        else:
            assert not np.isfinite(rb[0])


@pytest.mark.parametrize("name", ["two_link_brace", "painleve_rod", "table_two_legs", "rhex_flip_start"])
def test_a_given_enumeration_is_used_and_a_nondimensional_system_analysed_as_it_is(name, monkeypatch):
    """``AnalysisSession(system, enumeration=…)`` takes the given modes as the kinematically
    feasible ones without enumerating; here they are a real-time layout's kinematic decisions
    (``contactmodes.realtime.plan.KinematicTest.enumeration``), equal to the session's own
    enumeration (modes, counts, Table III letters). A session of the nondimensional system
    (``system.scaling.system``) with that enumeration is analysed as it is (identity scaling)
    and decides every mode as the session of the system in its units does: the same
    feasibility, responses and ``T_c`` in scaled units, bit for bit."""
    from contactmodes.modes.contact_conditions import classify_arrays
    from contactmodes.realtime.plan import Structure, terms_of

    system = load_system_file(os.path.join(EXAMPLES_DIR, f"{name}.toml")).system
    plain = AnalysisSession(system)
    terms = terms_of(system)
    pattern = classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts)
    layout = Structure.of(system).layout(pattern)
    test = layout.kinematic_test(Structure.of(system).banks(terms))
    if test.pending().size:
        with pytest.raises(ValueError, match="not decided"):
            test.enumeration(pattern)
        test.resolve(test.pending())
    given = test.enumeration(pattern)
    theirs = plain.enumeration
    assert (given.modes, given.total, given.after_velocity, given.after_acceleration, given.allowed) == \
        (theirs.modes, theirs.total, theirs.after_velocity, theirs.after_acceleration, theirs.allowed)
    monkeypatch.setattr(session_module, "enumerate_modes", lambda *a, **k: pytest.fail("enumerated again"))
    for ses in (AnalysisSession(system, enumeration=given), AnalysisSession(system.scaling.system, enumeration=given)):
        assert ses.enumeration is given
        assert ses.modes() == [ses.mode(m) for m in given.modes]
        assert ses.system is system or (ses.scaling.is_identity and ses.scaled is system.scaling.system)
        for m in given.modes:
            a, b = ses.mode(m), plain.mode(m)
            assert a.kinematically_feasible and a.feasible(False) == b.feasible(False), m
            ra, rb = a.response_scaled(False), b.response_scaled(False)
            assert ra.P.tobytes() == rb.P.tobytes() and ra.Q.tobytes() == rb.Q.tobytes(), m
            Ta, Tb = a.T_scaled(False), b.T_scaled(False)
            assert (Ta is None) == (Tb is None), m
            if Ta is not None:
                assert all(getattr(Ta, f).tobytes() == getattr(Tb, f).tobytes() for f in "AbCd"), m


def test_a_given_enumeration_must_name_modes_of_the_system():
    system = load_system_file(os.path.join(EXAMPLES_DIR, "two_link_brace.toml")).system
    en = enumerate_modes(system)
    from dataclasses import replace

    from contactmodes.errors import ContactModelError

    with pytest.raises(ContactModelError, match=r"enumeration.modes\[1\]: 'FX' is not a contact mode"):
        AnalysisSession(system, enumeration=replace(en, modes=[en.modes[0], "FX"]))
    with pytest.raises(ContactModelError, match=r"enumeration.modes\[1\]: mode .* appears twice"):
        AnalysisSession(system, enumeration=replace(en, modes=[en.modes[0], en.modes[0]]))
