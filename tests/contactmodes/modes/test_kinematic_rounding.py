"""Kinematic feasibility (Sec. III-F, footnote 5) where equality rows are dependent and their
right-hand sides inconsistent only by rounding: the batched LPs decide as the definition does.

The enumeration (``enumerate_modes``) and the real-time layouts' kinematic test
(``contactmodes.realtime``) solve the strict-slack LPs in batches
(``polytopes.batchlp.simplex_batch``); the definition (``acceleration_feasible``,
``strict_slack_of_rows``) eliminates the equalities by an SVD and accepts them when consistent up
to ``FEASIBILITY_RTOL``. A Farkas certificate of an infeasibility smaller than that (rows
dependent up to rounding near rest) used to drop modes the definition and the independent oracle
(``_support.oracle.kinematically_ok``, HiGHS) accept: the two-finger gripper of
``tests/data/cases/gripper_squeeze.toml`` with the wrist velocity MuJoCo's plant left (1e-4 rad/s)
lost ``FFFF``, ``FFFL``, ``FFLF`` and ``FFLL`` (its eight equality rows of rank 5 are inconsistent
by 2e-11 in the scaled units), and the closed loop had no acceptable mode at 6 of its 30 steps.

The gripper's tangential rows of its two palm contacts are bitwise equal (two points of one link
at one height on the block's top), and their ``J̇q̇`` differ by the centripetal terms of the wrist's
rotation: the batch's Farkas certificate combines those two rows exactly.

Random systems (``_support.systems.random_system``'s family) get Jacobians with exact
dependencies (a duplicated contact; a *twin*, one contact's tangential row repeated, as the
palm's; a rigid chain ``J = A B`` with small integer factors; more rows than coordinates at full
column rank, as the gripper), ``J̇q̇ = J w`` of the size of
``|q̇|²`` plus ``δ`` along a left null vector of ``J`` and contact velocities far below their
thresholds. With ``δ`` below the definition's tolerance (``2e-10`` on rows scaled by ``2^-6``,
above the simplex's own precision on the normalized rows) the definition takes ``δ`` as 0; with
``δ = 1e-3`` as an inconsistency. So the expected modes are the oracle's at the *exact* data
(integer products, dependencies exact, ``δ`` replaced by 0 when it is below the tolerance): there
every strict slack is exactly 0 or a nonzero rational far from the margin, so the decision is
clear, and it is the one the definition takes on the same data perturbed by a few ulps. The
enumeration, ``acceleration_feasible`` and the layouts (NumPy and compiled kernels, with and
without prefix pruning) must all give exactly those modes on the perturbed data. Run as well with
``OPENBLAS_CORETYPE=Haswell`` (another BLAS kernel).
"""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from _support.oracle import all_modes, kinematically_ok, table_iii_ok
from _support.paths import ROOT
from _support.systems import random_system
from contactmodes.model.system import ContactSystem
from contactmodes.modes.contact_conditions import classify_arrays
from contactmodes.modes.enumeration import acceleration_feasible, enumerate_modes
from contactmodes.realtime.plan import Structure, terms_of
from contactmodes.system_file.loader import parse_system
from polytopes import batchlp_kernel

KERNELS = ["numpy"] + (["compiled"] if batchlp_kernel.AVAILABLE else [])
GRIPPER = ROOT / "tests" / "data" / "cases" / "gripper_squeeze.toml"
SMALL_DELTA, LARGE_DELTA = 2e-10, 1e-3
ROW_SCALE = 2.0 ** -6  # exact: the scaled rows keep their dependencies


def _layout_modes(system: ContactSystem, kernel: str, prune: bool | None) -> list[str]:
    """The kinematically feasible candidates of the system's real-time layout: the first batch
    (``kinematic_test``, pruned by prefixes or not) with every pending candidate resolved."""
    terms = terms_of(system)
    structure = Structure.of(system)
    pattern = classify_arrays(terms.v_contact, terms.v0, 1.0, system.contacts)
    layout = structure.layout(pattern)
    banks = structure.banks(terms)
    test = layout.kinematic_test(banks, kernel=kernel, prune=prune)
    test.resolve(test.pending())
    assert test.decided.all()
    whole = layout.kinematic(banks, kernel=kernel)
    assert np.array_equal(whole, test.feasible)
    return [layout.modes[i] for i in np.flatnonzero(test.feasible)]


def _all_deciders(system: ContactSystem) -> dict[str, list[str]]:
    """Every decider's kinematically feasible modes, in product order."""
    out = {"enumerate_modes": list(enumerate_modes(system).modes),
           "acceleration_feasible": [m for m in all_modes(system.k) if _definition(system, m)]}
    for kernel in KERNELS:
        for prune in (False, True):
            out[f"layout {kernel} prune={prune}"] = _layout_modes(system, kernel, prune)
    return out


def _definition(system: ContactSystem, mode: str) -> bool:
    """Footnote 5's definition (``acceleration_feasible``) for a mode Table III allows."""
    return table_iii_ok(system, mode) and acceleration_feasible(system, mode)


# ------------------------------------------------------------------------------ the gripper


def _gripper(qdot: str) -> ContactSystem:
    """The gripper's case at its file's state with the velocities ``qdot`` (TOML inline table body)."""
    text = GRIPPER.read_text().replace("qdot = {}", "qdot = { %s }" % qdot)
    assert "qdot = { " in text
    return parse_system(tomllib.loads(text), source=str(GRIPPER)).system


STEP_1 = ("wrist = -0.00011022593427571512, l1 = 0.001034625493274714, l2 = -0.0020926173969403198, "
          "r1 = -0.0003731703674280871, r2 = 0.0011223076816918008")
"""The velocities MuJoCo's plant left after the closed loop's first control step (``simulate
--controller control --json``, ``qdot`` at ``t = 0.01``), with which the loop found no mode."""


@pytest.mark.parametrize("qdot", ["wrist = 1e-4", "wrist = -1e-4", STEP_1])
def test_gripper_keeps_the_grasp_modes(qdot):
    s = _gripper(qdot)
    expected = [m for m in all_modes(s.k) if kinematically_ok(s, m)]
    assert {"FFFF", "FFFL", "FFLF", "FFLL"} <= set(expected)  # the oracle accepts the grasp
    definition = [m for m in all_modes(s.k) if _definition(s, m)]
    assert definition == expected
    assert list(enumerate_modes(s).modes) == expected
    for kernel in KERNELS:
        for prune in (False, True):
            assert _layout_modes(s, kernel, prune) == expected, (kernel, prune)


# ------------------------------------------------------------------------- random systems


def _jacobian(rng, kind: str, k: int, n_q: int):
    """``(build, u)``: ``build(perturb)`` the Jacobian (2k, n_q) from integer factors, each factor
    passed through ``perturb`` first (identity: exact dependencies), and ``u`` (2k,) a left null
    vector of the exact one (``uᵀ J = 0``, ``max |u_i| = 1``). Duplicated rows stay bitwise
    equal under a perturbation, as a mechanism computes one point twice. The rows of the contacts
    in ``u``'s support and of some others are scaled by ``ROW_SCALE`` (short rows, as the
    gripper's palm: a residual below the definition's tolerance is then a normalized inconsistency
    above the simplex's precision)."""
    ints = lambda *shape: rng.integers(-3, 4, size=shape).astype(float)  # noqa: E731
    u = np.zeros(2 * k)
    if kind in ("duplicate", "twin"):
        # duplicate: the last contact repeats contact 0 (two contacts at one point); twin: only its
        # tangential row does (two points of one link at one height on a floor, as the gripper's palm)
        base = ints(2 * k, n_q)
        u[0], u[-2] = 1.0, -1.0

        def factors(perturb):
            J = perturb(base)
            J[-2] = J[0]
            if kind == "duplicate":
                J[-1] = J[1]
            return J
    elif kind == "chain":  # a rigid chain: rank r < n_q, the last row the sum of the first two
        A, B = ints(2 * k, n_q - 1), ints(n_q - 1, n_q)
        A[-1] = A[0] + A[1]
        u[0], u[1], u[-1] = 1.0, 1.0, -1.0
        factors = lambda perturb: A @ perturb(B)  # noqa: E731
    else:  # "grasp": full column rank, more rows than coordinates (the gripper's kind)
        A, B = ints(2 * k, n_q), np.eye(n_q) + np.triu(ints(n_q, n_q), 1)
        A[-1] = A[0] - A[2]
        u[0], u[2], u[-1] = 1.0, -1.0, -1.0
        factors = lambda perturb: A @ perturb(B)  # noqa: E731
    scaled = (rng.random(k) < 0.5) | np.any(u.reshape(k, 2) != 0.0, axis=1)  # the dependent rows short
    rows = np.repeat(np.where(scaled, ROW_SCALE, 1.0), 2)
    u = u / rows  # (u / rows)ᵀ (rows J) = uᵀ J = 0, exactly
    assert np.all(u @ (factors(lambda a: a) * rows[:, None]) == 0.0)
    return (lambda perturb: factors(perturb) * rows[:, None]), u / np.abs(u).max()


def _case(seed: int, kind: str, delta: float):
    """``(exact, perturbed)`` systems of one random case (module doc)."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 6)) if kind != "grasp" else 4
    n_q = {"duplicate": 2 * k - 2, "twin": 2 * k - 1, "chain": 4, "grasp": 5}[kind]
    base = random_system(rng, n_q, 2, k)
    build, u = _jacobian(rng, kind, k, n_q)
    J = build(lambda a: a)
    w = rng.integers(-4, 5, size=n_q) * 2.0 ** -14  # J̇q̇ of the size of |q̇|² for |q̇| ~ 1e-2
    c_exact = J @ w
    v0 = np.full(k, 1e-3)
    v = rng.uniform(-1e-6, 1e-6, size=2 * k)  # far below v0: every component counts as zero
    keep = dict(M=base.M, h=base.h, S=base.S, mu=base.mu, coordinates=base.coordinates, torques=base.torques,
                contacts=base.contacts, v0=v0, name=f"{kind}-{seed}")
    exact = ContactSystem(J=J, Jdot_qdot=c_exact + (delta * u if delta >= LARGE_DELTA else 0.0),
                          v_contact=np.zeros(2 * k), **keep)
    ulps = lambda a: a * (1.0 + rng.integers(-4, 5, size=a.shape) * np.finfo(float).eps)  # noqa: E731
    perturbed = ContactSystem(J=build(ulps), Jdot_qdot=ulps(c_exact + delta * u), v_contact=v, **keep)
    return exact, perturbed


CASES = [(seed, kind, delta) for kind in ("duplicate", "twin", "chain", "grasp")
         for seed, delta in ((0, 0.0), (0, SMALL_DELTA), (1, SMALL_DELTA), (0, LARGE_DELTA))]
"""Each kind exact, inconsistent below the tolerance (two draws: the case the batch got wrong) and
beyond it; about 1–3 s each."""


@pytest.mark.parametrize("seed,kind,delta", CASES)
def test_rounding_inconsistency_is_decided_as_the_definition_decides(seed, kind, delta):
    exact, s = _case(seed, kind, delta)
    expected = [m for m in all_modes(s.k) if kinematically_ok(exact, m)]
    got = _all_deciders(s)
    for name, modes in got.items():
        assert modes == expected, (name, sorted(set(expected) - set(modes)), sorted(set(modes) - set(expected)))
