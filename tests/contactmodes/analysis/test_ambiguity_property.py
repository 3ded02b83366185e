"""Property tests of the ambiguity sets against a direct LP oracle (tests/_support/oracle.py).

Random small systems (``_support.systems.random_system``: 1–2 contacts, 2–3 coordinates, 1–2 torques;
half of them with a singular mass matrix, so that ``w`` may move accelerations) with, depending on
the draw, no task row, ``f_n0 >= 0.5``, or a random ``geq``/``eq`` row over ``(q̈, f, τ)``. Torques are sampled uniformly and at Chebyshev centres of the ``T*_c`` pieces.

(a) The number of modes whose ``T_c`` (no task) holds τ equals the number of modes for which the
    oracle LP in ``(q̈, f)`` at that fixed τ has a solution; the oracle's own kinematic pruning
    (Table III + homogenized strict LP) gives the same mode list as ``untasked_domains``.
(b) If τ lies in ``T*_c`` (by a margin), the only mode with a solution at τ is ``c`` (mode ``c``
    with its task rows, every other kinematically feasible mode without them: Fig. 4 ordering),
    and the largest violation of each task row over the mode-``c`` solutions at τ — an LP below,
    maximizing ``rhs − a·z`` (both signs for ``eq``) over the physical constraints of ``c`` — is at
    most the negation margin (``NEGATION_RTOL``-relative, module doc of ``ambiguity``).
(c) Conversely, if τ lies in ``T_c`` but outside every ``T*_c`` piece (by a margin), the oracle
    finds the ambiguity: another mode has a solution at τ or some mode-``c`` solution violates a
    task row by more than LP noise.

Near-boundary samples are skipped: a torque within ``1e-6·scale`` of the boundary of a set it is
tested against (``t_margin``: signed distance to the facets, and an equality residual that is
neither clearly zero nor clearly not), or whose oracle slack ``σ*`` is within ``1e-6·scale`` of 0.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _support.oracle import all_modes, kinematically_ok, max_violation, oracle_slack, t_margin
from _support.systems import random_system
from contactmodes import tolerances
from contactmodes.analysis.ambiguity import task_rows, unambiguous, untasked_domains
from contactmodes.model.system import ContactSystem, LinearConstraint

TASKS = ("none", "fn0", "geq", "eq")
# derandomize: a fixed example sequence, so that the known crash below (about 1 draw in 350 of
# this family, test_known_crash_on_a_far_facet) cannot make CI flaky; widen by running with more
# examples locally.
SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def make_system(seed: int, k: int, n_tau: int, task: str, singular: bool = False) -> ContactSystem:
    """``random_system`` plus the chosen task row (coefficients from the same seed).

    ``singular``: replace ``M`` by a rank-deficient ``R Rᵀ`` (``R`` of size n_q × (n_q − 1)), a
    massless direction, so that in some modes the ambiguity variables ``w`` move accelerations and
    a task row on ``q̈`` can be violated within the mode.
    """
    rng = np.random.default_rng(seed)
    n_q = int(rng.integers(max(2, n_tau), 4))
    s = random_system(rng, n_q, n_tau, k)
    if singular:
        R = rng.normal(size=(n_q, n_q - 1))
        s = replace(s, M=R @ R.T)
    if task == "none":
        return s
    if task == "fn0":  # keep contact 0 loaded
        f = np.zeros((1, 2 * k))
        f[0, 1] = 1.0
        row = LinearConstraint("task", "geq", np.zeros((1, n_q)), f, np.zeros((1, n_tau)), [0.5], "fn0")
    else:
        row = LinearConstraint("task", task, rng.normal(size=(1, n_q)), rng.normal(size=(1, 2 * k)),
                               rng.normal(scale=0.3, size=(1, n_tau)), [rng.normal()], "random")
    return replace(s, constraints=(row,))


systems = st.builds(make_system, st.integers(0, 2**31 - 1), st.integers(1, 2), st.integers(1, 2),
                    st.sampled_from(TASKS), st.booleans())


def scale_of(s: ContactSystem, tau) -> float:
    return max(1.0, float(np.abs(tau).max()), float(np.abs(s.h).max()))


def classify(s: ContactSystem, mode: str, tau, task: bool):
    """True/False: does ``mode`` have a solution at τ (oracle LP); None when too close to call."""
    sigma = oracle_slack(s, mode, tau, task)
    if sigma is None:
        return False
    if np.isnan(sigma) or abs(sigma) <= 1e-6 * scale_of(s, tau):
        return None
    return bool(sigma > 0)


def near(T, tau, scale) -> bool:
    margin, eq_res = t_margin(T, tau)
    return abs(margin) < 1e-6 * scale or 1e-9 * scale < eq_res < 1e-5 * scale


def inside(T, tau, scale) -> bool:
    """τ in T by a margin (the caller has excluded the near-boundary case or checks it)."""
    margin, eq_res = t_margin(T, tau)
    return margin > 1e-6 * scale and eq_res <= 1e-9 * scale


def oracle_modes(s: ContactSystem) -> list[str]:
    return [m for m in all_modes(s.k) if kinematically_ok(s, m)]


def violation_tol(row, tau, xnorm) -> float:
    """The negation margin (NEGATION_RTOL, relative) bounded by the row's own magnitudes, plus LP noise."""
    size = max(1.0, abs(row.rhs), float(np.abs(row.tau @ tau)),
               float(np.linalg.norm(np.concatenate([row.qdd, row.f]))) * max(1.0, xnorm))
    return 10.0 * tolerances.NEGATION_RTOL * size


# -------------------------------------------------------------------------------- (a) ---------
@SETTINGS
@given(systems, st.integers(0, 2**31 - 1))
def test_domain_count_equals_oracle_count(s, seed):
    doms = untasked_domains(s)
    modes = oracle_modes(s)
    assert set(modes) == set(doms)
    rng = np.random.default_rng(seed)
    for tau in rng.uniform(-15.0, 15.0, size=(6, s.n_tau)):
        scale = scale_of(s, tau)
        if any(d.feasible and near(d.T, tau, scale) for d in doms.values()):
            continue
        oracle = [classify(s, m, tau, task=False) for m in modes]
        if None in oracle:
            continue
        ours = sum(bool(d.feasible and d.T.contains(tau)) for d in doms.values())
        assert ours == sum(oracle), f"tau {tau}: T_c count {ours}, oracle {oracle}"


# -------------------------------------------------------------------------- (b) and (c) ---------
def check_unambiguous(s: ContactSystem, rng) -> dict[str, int]:
    """Properties (b) and (c) on one system; counts of the samples actually checked."""
    others = untasked_domains(s)
    modes = oracle_modes(s)
    rows = task_rows(s)
    counts = dict(b=0, b_task=0, c=0, c_within=0)
    for mode in modes:
        res = unambiguous(s, mode, others=others)
        if not res.feasible:
            continue
        samples = [np.clip(p.chebyshev_center().center, -30, 30) for p in res.unambiguous]
        samples += [np.clip(p.chebyshev_center().center, -30, 30) for src in res.sources for p in src.set]
        samples += list(rng.uniform(-15.0, 15.0, size=(3, s.n_tau)))
        for tau in samples:
            scale = scale_of(s, tau)
            if near(res.feasible_set, tau, scale) or any(near(p, tau, scale) for p in res.unambiguous):
                continue
            in_star = any(inside(p, tau, scale) for p in res.unambiguous)
            if not in_star and not inside(res.feasible_set, tau, scale):
                continue
            oracle = {m: classify(s, m, tau, task=(m == mode)) for m in modes}
            if None in oracle.values():
                continue
            with_solution = [m for m, ok in oracle.items() if ok]
            violations = [(row, *max_violation(s, mode, tau, row)) for row in rows]
            if in_star:  # (b)
                assert with_solution == [mode], f"{mode} tau {tau}: solutions in {with_solution}"
                for row, v, xnorm in violations:
                    assert v <= violation_tol(row, tau, xnorm), f"{mode} tau {tau} {row.label}: violation {v}"
                counts["b"] += 1
                counts["b_task"] += bool(rows)
            else:  # (c): in T_c, outside T*_c — the oracle must see why
                other = any(m != mode for m in with_solution)
                violated = any(v > 1e-9 * max(1.0, xnorm) for _, v, xnorm in violations)
                assert oracle[mode], f"{mode} tau {tau}: in T_c but the oracle finds no solution"
                assert other or violated, f"{mode} tau {tau}: outside T*_c yet unambiguous to the oracle"
                counts["c"] += 1
                counts["c_within"] += violated and not other
    return counts


@SETTINGS
@given(systems, st.integers(0, 2**31 - 1))
def test_unambiguous_torques_have_one_solution_mode_and_no_task_violation(s, seed):
    check_unambiguous(s, np.random.default_rng(seed))


def test_the_random_family_reaches_every_case():
    """Guard against vacuous properties: fixed draws reach (b) with and without task rows, (c),
    and (c) through a within-mode violation alone (no other mode at τ)."""
    total = dict(b=0, b_task=0, c=0, c_within=0)
    for seed in range(24):
        s = make_system(seed, 1 + seed % 2, 1 + (seed // 2) % 2, TASKS[seed % 4], singular=seed % 3 == 0)
        for key, n in check_unambiguous(s, np.random.default_rng(seed)).items():
            total[key] += n
    assert total["b"] >= 5 and total["b_task"] >= 2 and total["c"] >= 5 and total["c_within"] >= 1, total


@pytest.mark.parametrize("args, mode", [((261579875, 1, 2, "eq", True), "R"),
                                        ((1726963809, 2, 2, "eq", False), "SS")])
def test_known_crash_on_a_far_facet(args, mode):
    s = make_system(*args)
    res = unambiguous(s, mode, others=untasked_domains(s))
    assert "task:0" not in {src.source for src in res.sources}
