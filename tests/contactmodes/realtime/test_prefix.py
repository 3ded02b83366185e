"""The prefix pruning of the real-time kinematic test (``contactmodes.realtime.prefix``) against
every candidate's own strict-slack LP.

Independent oracle: ``contactmodes.modes.enumeration.strict_slack_of_rows`` (the definition's LP,
footnote 5: equalities eliminated by an SVD, one verified LP) on each candidate's own rows, and
``acceleration_feasible`` on the system. Checked on random mechanisms (``_support.units``), on
random Jacobians at rest (``J̇q̇ = 0``: every strict slack is 0 or capped at 1, the degenerate
case of a wedged robot) and near rest, and along the snake wedged in its chimney
(``examples/snake/snake_chimney.toml``, 4096 candidates) at its recorded states, perturbed, with
one layout carried from state to state (the prefix LPs' warm starts): every candidate the
pruning leaves out is infeasible by the oracle, and the pruned test's decisions — the feasible
modes, and the modes the first batch already knows to be feasible (``n_modes``) — are those of
the unpruned test.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from _support.units import random_system
from contactmodes import tolerances
from contactmodes.modes.contact_conditions import VelocityPattern, classify_arrays
from contactmodes.modes.enumeration import acceleration_feasible, strict_slack_of_rows
from contactmodes.realtime.plan import StepCounters, Structure, terms_of
from contactmodes.realtime.prefix import PREFIX_MIN_CANDIDATES, PrefixPruning
from contactmodes.system_file.loader import parse_system
from polytopes import lp

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


class _Banks:
    """The two bank entries the kinematic test reads."""

    def __init__(self, J, c) -> None:
        self.J, self.c = J, c


def _margin(J, c) -> float:
    return tolerances.STRICT_MARGIN * max(1.0, float(np.abs(J).max()), float(np.abs(c).max()))


def _oracle(lay, J, c) -> np.ndarray:
    """(N,) bool: each candidate's strict slack above the margin, by ``strict_slack_of_rows`` on its
    own rows (the rows ``KinematicTest.resolve`` hands to the exact LP)."""
    SJ, sc = np.vstack([J, -J]), np.concatenate([-c, c])
    z = np.zeros((0, J.shape[1]))
    out = np.empty(len(lay.modes), dtype=bool)
    for i in range(len(lay.modes)):
        e, g = lay.kin_eq[i][lay.kin_eq[i] >= 0], lay.kin_geq[i][lay.kin_geq[i] >= 0]
        out[i] = strict_slack_of_rows(SJ[e], sc[e], SJ[g], sc[g], z, np.zeros(0)) > _margin(J, c)
    return out


def _boxed_slack(lay, J, c, i) -> float:
    """The strict slack of candidate ``i`` over ``|q̈'| <= KINEMATIC_BOUND`` (a real bound), by
    ``polytopes.lp.solve`` (cddlib/HiGHS): what the pruning certifies."""
    SJ, sc = np.vstack([J, -J]), np.concatenate([-c, c])
    e, g = lay.kin_eq[i][lay.kin_eq[i] >= 0], lay.kin_geq[i][lay.kin_geq[i] >= 0]
    n_q = J.shape[1]
    cost = np.zeros(n_q + 1)
    cost[-1] = -1.0
    A = np.hstack([-SJ[g], np.ones((g.size, 1))])  # s - G q̈ <= -g
    E = np.hstack([SJ[e], np.zeros((e.size, 1))])
    bound = tolerances.KINEMATIC_BOUND
    st, x, fun = lp.solve(cost, A if g.size else None, -sc[g] if g.size else None, E if e.size else None,
                          sc[e] if e.size else None, bounds=[(-bound, bound)] * n_q + [(-bound, 1.0)])
    return -np.inf if st == lp.INFEASIBLE else -fun


def _check(lay, fresh, banks, kernel, definition: bool = True) -> tuple[int, int]:
    """Compare the pruned and unpruned tests and the oracle at one state; returns (candidates, N).

    With ``definition``: every left-out candidate is infeasible by the oracle, and the pruned
    test's decisions are the unpruned test's and the oracle's. Without (rows dependent up to
    rounding), a left-out candidate may be feasible by the oracle, and by the unpruned test's last,
    exact LP, only through directions of singular value 1e-15 (``|q̈'|`` of order 1e15): its strict
    slack in the box ``|q̈'| <= KINEMATIC_BOUND``, where the pruning certifies, is at most the
    margin (``_boxed_slack``); every other decision is the unpruned test's. In both cases the
    modes the first batch knows feasible are the same."""
    J, c = banks.J, banks.c
    margin = _margin(J, c)
    cand = lay._prefix.candidates(J, c, margin, kernel) if lay._prefix else np.arange(len(lay.modes))
    want = _oracle(lay, J, c)
    left_out = np.setdiff1d(np.arange(len(lay.modes)), cand)
    bad = left_out[want[left_out]]
    if definition:
        assert not bad.size, [lay.modes[i] for i in bad]
    for i in bad:
        assert _boxed_slack(lay, J, c, i) <= margin, lay.modes[i]
    counters = StepCounters()
    test = lay.kinematic_test(banks, counters, kernel=kernel, prune=True)
    full = fresh.kinematic_test(banks, kernel=kernel, prune=False)
    # the modes the first batch knows feasible are the same (the controllers' n_modes)
    assert np.array_equal(test.feasible & test.decided, full.feasible & full.decided)
    assert set(test.pending()) <= set(full.pending())
    test.resolve(test.pending())
    full.resolve(full.pending())
    differ = np.flatnonzero(test.feasible != full.feasible)
    if definition:
        assert not differ.size and np.array_equal(test.feasible, want)
    # without: only left-out candidates that the unpruned test's exact LP finds feasible beyond the box
    assert np.isin(differ, left_out).all() and not test.feasible[differ].any()
    for i in differ:
        assert _boxed_slack(lay, J, c, i) <= margin, lay.modes[i]
    return cand.size, len(lay.modes)


@pytest.mark.parametrize("seed", range(40))
def test_random_mechanisms(seed):
    """Random mechanisms with 2–5 contacts (at rest or moving), pruning forced on every layout:
    the definition's feasible modes (``acceleration_feasible``), both kernels."""
    doc = random_system(seed)
    system = parse_system(doc).system
    if system.k < 2 or any(c.kind == "task" and c.type == "eq" for c in system.constraints):
        pytest.skip("one contact, or task equalities (not supported by the layouts)")
    terms = terms_of(system)
    st = Structure.of(system)
    pattern = classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts)
    banks = st.banks(terms)
    want = [acceleration_feasible(system, m) for m in st.layout(pattern).modes]
    for kernel in ("compiled", "numpy"):
        lay, fresh = Structure.of(system).layout(pattern), Structure.of(system).layout(pattern)
        lay._prefix = PrefixPruning(lay)
        _check(lay, fresh, banks, kernel)
        assert list(lay.kinematic(banks, kernel=kernel, prune=True)) == want


def _rest_pattern(k: int) -> VelocityPattern:
    return VelocityPattern(np.ones(k), np.ones(k, dtype=bool), np.ones(k, dtype=bool), ("FSLR",) * k)


@pytest.mark.parametrize("seed", range(8))
def test_random_jacobians_at_and_near_rest(seed):
    """Random Jacobians of 5 contacts over 4–7 coordinates (1024 candidates, pruned by default),
    ``J̇q̇`` zero (degenerate: slacks 0 or 1), tiny or of order one, along a sequence of nearby
    states on one layout (warm starts carried): pruned = unpruned = the definition."""
    rng = np.random.default_rng(seed)
    k, n_q = 5, int(rng.integers(4, 8))
    st = Structure(n_q, 1, [f"c{i}" for i in range(k)], rng.uniform(0.2, 1.2, k))
    lay = st.layout(_rest_pattern(k))
    assert len(lay.modes) > PREFIX_MIN_CANDIDATES
    fresh = Structure(n_q, 1, st.contacts, st.mu).layout(_rest_pattern(k))  # unpruned, the same history
    J0 = rng.normal(size=(2 * k, n_q))
    pruned = []
    for t, scale in enumerate((0.0, 1e-9, 1e-3, 1.0, 0.0)):
        J = J0 + 1e-3 * t * rng.normal(size=J0.shape)
        banks = _Banks(J, scale * rng.normal(size=2 * k))
        cand, N = _check(lay, fresh, banks, "compiled")
        pruned.append(N - cand)
    assert max(pruned) > 0  # the pruning did prune


@pytest.mark.parametrize("seed", [0, 4, 6, 7])  # (seeds whose Farkas or ill-conditioned prunes failed before)
def test_rank_deficient_jacobians_near_rest(seed):
    """The wedged case that showed why infeasibility certificates do not prune: 6 contacts whose
    12 Jacobian rows span fewer than ``n_q`` directions up to rounding, ``J̇q̇`` at rounding level
    (the equalities of several sticking contacts are dependent; a verified Farkas certificate of
    a prefix would say "infeasible" where the definition's SVD elimination finds slack 1). The
    leaves' own LPs and the definition may disagree on such rows (rank decisions at rounding
    level, with or without pruning): compared here are the left-out candidates with both, and the
    pruned test with the unpruned one."""
    rng = np.random.default_rng(100 + seed)
    k, n_q = 6, 7
    r = int(rng.integers(4, 7))
    st = Structure(n_q, 1, [f"c{i}" for i in range(k)], rng.uniform(0.2, 1.2, k))
    base = rng.normal(size=(2 * k, r)) @ rng.normal(size=(r, n_q))
    for t, scale in enumerate((1e-9, 1e-12, 0.0)):
        J = base + 1e-15 * rng.normal(size=base.shape) + 1e-6 * t * rng.normal(size=base.shape)
        # fresh layouts (no warm starts): on such rows the batch's decisions depend on the
        # simplex's path, with or without pruning; cold, the candidates' LPs are the same
        lay, fresh = (Structure(n_q, 1, st.contacts, st.mu).layout(_rest_pattern(k)) for _ in range(2))
        lay._prefix = PrefixPruning(lay)
        _check(lay, fresh, _Banks(J, scale * rng.normal(size=2 * k)), "compiled", definition=False)


def test_snake_states():
    """The snake wedged in its chimney (six contacts, 4096 candidates) at recorded closed-loop states
    and at perturbed copies of them, one layout carried from state to state (and an unpruned one along
    the same states): at rest (all 4096 candidates) the pruning leaves out more than three
    quarters of them and never a feasible one."""
    from tests._support import record_generic_steps as rec

    doc = json.loads((DATA / "snake.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system("snake")
    ctrl = rec.controllers("snake", loaded, float.fromhex(doc["velocity_tol"]))["inner"]["main"]
    calls = doc["calls"]["main"]
    rng = np.random.default_rng(7)
    lay = fresh = None
    sizes = []
    for i in (0, 1, 5, 12, 29):
        q, qd = rec.state(calls[i])
        for qq, qqd in ((q, qd), (q + 1e-5 * rng.normal(size=q.size), qd * rng.uniform(0.5, 1.5))):
            step = ctrl.step_model(qq, qqd)
            st = Structure(step.n_q, step.n_tau, step.contacts, step.mu, step.blocks)
            if lay is None or lay.pattern.key != step.pattern.key:  # both carried as a controller's
                lay = st.layout(step.pattern)
                fresh = Structure(step.n_q, step.n_tau, step.contacts, step.mu, step.blocks).layout(step.pattern)
            banks = st.banks(step.terms)
            if lay._prefix is None:
                lay._prefix = PrefixPruning(lay)
            cand, N = _check(lay, fresh, banks, "compiled")
            sizes.append((N, cand))
    at_rest = [cand for N, cand in sizes if N == 4096]
    assert len(at_rest) >= 5 and max(at_rest) < 4096 // 4, sizes


@pytest.mark.parametrize("rank", [7, 5])
def test_certificate_kernels_agree(rank):
    """The prune certificate (``PrefixPruning.certified``) compiled and in NumPy: the same
    decisions on every level-3 prefix LP of random Jacobians (full rank, and of rank 5 with
    rounding noise, where some verified optima are not certified), and a certified prefix has
    the oracle's slack at most the margin."""
    from polytopes import batchlp

    rng = np.random.default_rng(rank)
    k, n_q = 6, 7
    st = Structure(n_q, 1, [f"c{i}" for i in range(k)], rng.uniform(0.2, 1.2, k))
    pp = PrefixPruning(st.layout(_rest_pattern(k)))
    J = rng.normal(size=(2 * k, rank)) @ rng.normal(size=(rank, n_q)) + 1e-15 * rng.normal(size=(2 * k, n_q))
    c = 1e-9 * rng.normal(size=2 * k)
    margin = _margin(J, c)
    F, f = pp._bank(J, c, margin)
    ids = np.arange(64)
    rows = pp._rows(3, ids)
    G, h = F[rows], f[rows]
    K, nv = ids.size, n_q + 1
    lo, hi = np.tile(pp._lo, (K, 1)), np.tile(pp._hi, (K, 1))
    res = batchlp.simplex_batch(np.tile(pp._cost, (K, 1)), G, h, lo, hi, np.tile(pp._art, (K, 1)), kernel="compiled")
    a = pp.certified(G, h, res.basis, margin, "compiled")
    b = pp.certified(G, h, res.basis, margin, "numpy")
    assert np.array_equal(a, b) and a.any()
    for i in np.flatnonzero(a):  # a certified prefix: no point of its rows in the box beats the margin
        A = np.vstack([G[i], np.eye(nv), -np.eye(nv)])
        bb = np.concatenate([h[i], pp._hi, -pp._lo])
        st_, x, fun = lp.solve(pp._cost, A, bb)
        assert st_ == lp.INFEASIBLE or -fun <= margin
