"""Impact with a pseudo-impulse and actuators against an oracle written here from the thesis's
equations (issue 39, item 4): which outcomes are admitted, at which torques, with which impulses
and energy.

The model (Johnson thesis Sec. 5.1.2–5.1.4, Tables I–II of the flipping paper; the decisions are
``contactmodes.impact.equations``'s), per outcome, one letter per contact:

* plastic impact (eq. 10): ``M (v − q̇⁻) = Jᵀ P`` with each letter's rows on ``(J v, P)``
  (``F``: ``J v = 0``; ``S``: ``P = 0``; ``L``/``R``: ``J_n v = 0``, ``P_t = ±μ P_n``);
* rest force (eq. 39 without velocity terms): ``M a − Jᵀ f = S τ − h(q, 0)`` with the same
  letters on ``(J a, f)``;
* guards: every velocity sign row on ``v`` (``S``: ``v_n >= 0``; ``L``: ``v_t <= 0``; ``R``:
  ``v_t >= 0``); a sliding contact: ``P_n >= 0``; a sticking contact: its friction cone for ``P``
  *or* for ``P + δ_t f`` (eq. 40); a released touching contact: ``P_K,n + δ_t f_K,n <= 0`` with
  ``K`` the outcome keeping it by its normal row (eq. 29);
* the torques in their box.

The oracle solves the square systems by dense LU (generic random systems: ``M`` positive
definite, ``2k < n_q``) and decides each choice of guards by one max-slack LP over ``τ`` (HiGHS
through SciPy), independently of the toolkit's response, domains and polytopes. Every admitted
outcome loses kinetic energy: ``E⁻ − E⁺ = ½ Δᵀ M Δ + Σ μ P_n |v_t|`` over the sliding contacts.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from contactmodes.cli import main
from contactmodes.impact.outcomes import impact
from contactmodes.model.system import ContactSystem
from contactmodes.system_file.loader import load_system_file

BIPED = Path(__file__).resolve().parents[2] / "data" / "cases" / "biped_land.toml"
MARGIN = 1e-7
"""An oracle decision closer than this (normalized slack) to its boundary is not compared."""


# ------------------------------------------------------------------------------ the oracle
def letter_system(M, J, mu, letters):
    """The square matrix of ``M x − Jᵀ y = rhs`` with the letters' rows on ``(J x, y)`` (``N``: kept
    by the normal row alone, ``J_n x = 0``, ``y_t = 0``), unknowns ``[x; y]``; the rhs rows come
    last."""
    n, k = M.shape[0], len(letters)
    rows = []
    for i, c in enumerate(letters):
        t, nn = np.zeros(n + 2 * k), np.zeros(n + 2 * k)
        if c == "F":
            t[:n], nn[:n] = J[2 * i], J[2 * i + 1]
        elif c == "S":
            t[n + 2 * i], nn[n + 2 * i + 1] = 1.0, 1.0
        else:
            nn[:n] = J[2 * i + 1]
            t[n + 2 * i] = 1.0
            t[n + 2 * i + 1] = {"L": -mu[i], "R": mu[i], "N": 0.0}[c]
        rows += [t, nn]
    top = np.hstack([M, -J.T])
    return np.vstack(rows + [top])


def solve(M, J, mu, letters, rhs):
    """``[x; y]`` (columns of ``rhs`` (n_q, c)) or ``None`` when the system is singular."""
    A = letter_system(M, J, mu, letters)
    if np.linalg.cond(A) > 1e10:
        return None
    B = np.vstack([np.zeros((2 * len(letters), rhs.shape[1])), rhs])
    return np.linalg.solve(A, B)


def oracle(system: ContactSystem, qdot, h_rest, dt, lo, hi, touching):
    """``{outcome: (decision, v, P, F0, Ft)}`` over every outcome, ``decision`` True (admitted),
    False (excluded) or None (within MARGIN of its boundary); ``P + δ_t (F0 + Ft τ)`` is the
    impulse over δ_t of a sticking contact kept by the pseudo-impulse."""
    M, J, S, mu = system.M, system.J, system.S, system.mu
    n, k, nt = system.n_q, system.k, system.n_tau
    rest_rhs = np.hstack([-h_rest[:, None], S])
    out = {}
    for letters in map("".join, itertools.product("FSLR", repeat=k)):
        x = solve(M, J, mu, letters, (M @ qdot)[:, None])
        y = solve(M, J, mu, letters, rest_rhs)
        if x is None or y is None:
            out[letters] = (None, None, None, None, None)
            continue
        v, P = x[:n, 0], x[n:, 0]
        f0, Ft = y[n:, 0], y[n:, 1:]
        const = []  # rows c >= 0 that do not depend on τ
        vel = J @ v
        for i, c in enumerate(letters):
            if c == "S":
                const.append(vel[2 * i + 1])
            if c == "L":
                const += [-vel[2 * i], P[2 * i + 1]]
            if c == "R":
                const += [vel[2 * i], P[2 * i + 1]]
        affine = []  # rows (c, g): c + g τ >= 0 for every choice
        for i, c in enumerate(letters):
            if c == "S" and touching[i]:
                K = letters[:i] + "N" + letters[i + 1:]
                xk, yk = solve(M, J, mu, K, (M @ qdot)[:, None]), solve(M, J, mu, K, rest_rhs)
                if xk is None or yk is None:
                    out[letters] = (None, None, None, None, None)
                    break
                j = n + 2 * i + 1
                affine.append((-(xk[j, 0] + dt * yk[j, 0]), -dt * yk[j, 1:]))
        else:
            sticking = [i for i, c in enumerate(letters) if c == "F"]
            decisions = []
            for choice in itertools.product((False, True), repeat=len(sticking)):
                rows = list(affine) + [(c, np.zeros(nt)) for c in const]
                for i, pseudo in zip(sticking, choice):
                    for a_t, a_n in ((-1.0, mu[i]), (1.0, mu[i]), (0.0, 1.0)):
                        a = np.array([a_t, a_n])
                        c0 = a @ P[2 * i:2 * i + 2] + (dt * a @ f0[2 * i:2 * i + 2] if pseudo else 0.0)
                        g = dt * a @ Ft[2 * i:2 * i + 2] if pseudo else np.zeros(nt)
                        rows.append((c0, g))
                decisions.append(max_slack(rows, lo, hi))
            best = max(decisions)
            decision = True if best > MARGIN else False if best < -MARGIN else None
            out[letters] = (decision, v, P, f0, Ft)
    return out


def max_slack(rows, lo, hi):
    """max σ <= 1 with every row ``(c + g τ) / max(1, |g|) >= σ`` and ``lo <= τ <= hi`` (``lo``
    ``None``: every τ)."""
    nt = len(rows[0][1])
    A, b = [], []
    for c, g in rows:
        s = max(1.0, float(np.abs(g).max(initial=0.0)))
        A.append(np.concatenate([-g / s, [1.0]]))
        b.append(c / s)
    box = [(None, None)] * nt if lo is None else [(a, z) for a, z in zip(lo, hi)]
    res = linprog(np.concatenate([np.zeros(nt), [-1.0]]), A_ub=np.array(A).reshape(-1, nt + 1), b_ub=np.array(b),
                  bounds=box + [(None, 1.0)], method="highs")
    assert res.status == 0, res.message
    return -res.fun


def random_touchdown(seed):
    """A random system (``M`` positive definite, ``2k < n_q``, two actuators), some contacts touching
    and at least one approaching, its pre-impact velocity, ``h(q, 0)`` and a torque box."""
    rng = np.random.default_rng(seed)
    k = 2 + seed % 2
    n = 2 * k + 1 + seed % 2
    R = rng.normal(size=(n, n))
    M = R @ R.T + 0.5 * np.eye(n)
    J = rng.normal(size=(2 * k, n))
    v = rng.normal(size=2 * k)
    vn = -rng.uniform(0.2, 1.5, size=k)
    vn[rng.random(k) < 0.5] = 0.0
    vn[0] = -rng.uniform(0.5, 1.5)
    v[1::2] = vn
    qdot = np.linalg.lstsq(J, v, rcond=None)[0]
    qdot = qdot + np.linalg.svd(J)[2][2 * k:].T @ rng.normal(size=n - 2 * k)
    system = ContactSystem(M=M, h=rng.normal(size=n), S=rng.normal(size=(n, 2)), J=J, Jdot_qdot=np.zeros(2 * k),
                           v_contact=J @ qdot, mu=rng.uniform(0.3, 1.2, size=k),
                           coordinates=[f"q{i}" for i in range(n)], torques=["u0", "u1"],
                           contacts=[f"c{i}" for i in range(k)], name=f"touchdown{seed}")
    h_rest = rng.normal(scale=4.0, size=n)
    bound = rng.uniform(1.0, 6.0, size=2)
    return system, qdot, h_rest, (-bound, bound), vn == 0.0


# ------------------------------------------------------------------------------ random systems
@pytest.mark.parametrize("boxed", [True, False])
@pytest.mark.parametrize("seed", range(24))
def test_admitted_outcomes_are_the_oracles_and_lose_energy(seed, boxed):
    """With the torque box and without (every torque): the outcomes admitted are the oracle's,
    with its ``q̇⁺`` and plastic impulse; each loses energy, reported by its definition; its
    reported torque is in the box and in its torque set; its reported impulses are ``P``, plus
    ``δ_t f`` at that torque on the contacts kept by the pseudo-impulse, with normal components
    ``>= 0``."""
    system, qdot, h_rest, box, touching = random_touchdown(seed)
    dt = 0.2
    kw = {"torque_box": box} if boxed else {}
    result = impact(system, qdot=qdot, pseudo_impulse=dt, h_rest=h_rest, **kw)
    assert list(result.scope.touching) == list(touching)
    if not boxed:
        box = (None, None)
    ref = oracle(system, qdot, h_rest, dt, box[0], box[1], touching)
    ours = set(result.consistent_modes)
    E0 = 0.5 * qdot @ system.M @ qdot
    for mode, (decision, v, P, f0, Ft) in ref.items():
        if decision is not None:
            assert (mode in ours) is decision, (mode, decision, sorted(ours))
        if mode not in ours:
            continue
        out = result.outcome(mode)
        np.testing.assert_allclose(out.qdot_plus, v, atol=1e-8 * max(1.0, np.abs(qdot).max()))
        np.testing.assert_allclose(out.plastic_impulse, P, atol=1e-8 * max(1.0, np.abs(P).max()))
        E1 = 0.5 * v @ system.M @ v
        assert E1 <= E0 * (1 + 1e-9)
        assert out.energy_loss == pytest.approx(E0 - E1, rel=1e-7, abs=1e-9 * E0)
        tau = out.torque
        if boxed:
            assert np.all(tau >= box[0] - 1e-9) and np.all(tau <= box[1] + 1e-9)
        assert any(T.contains(tau, 1e-7) for T in out.torque_set)
        expected = P.copy()
        for name in out.pseudo_kept:
            i = system.contacts.index(name)
            assert mode[i] == "F"  # only a sticking contact is kept by the pseudo-impulse
            expected[2 * i:2 * i + 2] += dt * (f0[2 * i:2 * i + 2] + Ft[2 * i:2 * i + 2] @ tau)
        np.testing.assert_allclose(out.impulse, expected, atol=1e-7 * max(1.0, np.abs(expected).max()))
        assert out.impulse[1::2].min() >= -1e-9 * max(1.0, np.abs(out.impulse).max())


def test_the_random_family_exercises_the_guards():
    """The seeds above include outcomes kept only by the pseudo-impulse, outcomes whose sliding
    contact has a negative plastic normal impulse that ``P + δ_t f`` would cover (the rule that
    gained energy), and outcomes whose torque set is cut by the box."""
    kept, pulled, cut = 0, 0, 0
    for seed in range(24):
        system, qdot, h_rest, box, touching = random_touchdown(seed)
        result = impact(system, qdot=qdot, pseudo_impulse=0.2, h_rest=h_rest, torque_box=box)
        kept += sum(bool(o.pseudo_kept) for o in result.outcomes if o.consistent)
        free = impact(system, qdot=qdot, pseudo_impulse=0.2, h_rest=h_rest)
        cut += len(set(free.consistent_modes) - set(result.consistent_modes))
        for mode, (decision, v, P, f0, Ft) in oracle(system, qdot, h_rest, 0.2, box[0], box[1], touching).items():
            if v is not None and any(c in "LR" and P[2 * i + 1] < -1e-6 for i, c in enumerate(mode)):
                pulled += 1
    assert kept >= 3 and pulled >= 3 and cut >= 1, (kept, pulled, cut)


# ------------------------------------------------------------------------------ the landing biped
# issue 39 item 4 (tests/data/cases/biped_land.toml: 20 kg torso, four actuators of ±60 N·m in its
# [control.limits], landing at (0.3, −1) m/s on both feet): an independent KKT solve gives
ISSUE_QDOT_PLUS = [0.3436, -0.3886, 0.1091, 1.506, -4.029, 3.456, -8.216]
ISSUE_IMPULSES = [0.762, 5.382, 5.701, 15.679]
ISSUE_LOSS = 9.561


def biped_kkt():
    """``(q̇⁻, M, q̇⁺, P)`` of both feet sticking: ``[M −Jᵀ; J 0] [q̇⁺; P] = [M q̇⁻; 0]``."""
    loaded = load_system_file(BIPED)
    s = loaded.system
    n, m = s.n_q, 2 * s.k
    K = np.block([[s.M, -s.J.T], [s.J, np.zeros((m, m))]])
    x = np.linalg.solve(K, np.concatenate([s.M @ loaded.qdot, np.zeros(m)]))
    return loaded.qdot, s.M, x[:n], x[n:]


def impact_json(capsys, *args):
    code = main(["impact", str(BIPED), *args, "--json"])
    doc = json.loads(capsys.readouterr().out)
    return code, doc


@pytest.mark.parametrize("args", [(), ("--pseudo-impulse", "0.03")])
def test_biped_lands_on_both_feet_as_the_kkt_solve(capsys, args):
    """Without a pseudo-impulse and with one (0.03 s, the file's ±60 N·m box): the one outcome is
    ``FF``, its ``q̇⁺`` and impulses the KKT solve's (and the issue's at its printed digits), its
    energy loss ½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺ = 9.561 J. With the pseudo-impulse the feet stick for
    every torque in the box (their plastic impulses are inside their cones)."""
    qdot, M, v, P = biped_kkt()
    np.testing.assert_allclose(v, ISSUE_QDOT_PLUS, atol=6e-4)
    np.testing.assert_allclose(P, ISSUE_IMPULSES, atol=6e-4)
    code, doc = impact_json(capsys, *args)
    assert code == 0
    assert doc["consistent_modes"] == ["FF"]
    (ff,) = [o for o in doc["outcomes"] if o["consistent"]]
    np.testing.assert_allclose(ff["qdot_plus"], v, rtol=1e-9, atol=1e-12)
    got = [x for imp in ff["impulse"] for x in (imp["t"], imp["n"])]
    np.testing.assert_allclose(got, P, rtol=1e-9, atol=1e-12)
    loss = 0.5 * qdot @ M @ qdot - 0.5 * v @ M @ v
    assert ff["energy_loss"] == pytest.approx(loss, rel=1e-9)
    assert loss == pytest.approx(ISSUE_LOSS, abs=6e-4)
    if args:
        assert doc["torque_box"] == {"lo": [-60.0] * 4, "hi": [60.0] * 4}
        (T,) = ff["torque_set"]
        A, b = np.array(T["A"]).reshape(-1, 4), np.array(T["b"])
        corners = np.array(list(itertools.product((-60.0, 60.0), repeat=4)))
        assert np.all(corners @ A.T <= b + 1e-9 * np.abs(A).sum(axis=1) * 60.0)  # the whole box
        assert ff["pseudo_kept"] == []


def test_biped_outcomes_of_sliding_feet_pulled_by_the_ground_are_not_admitted(capsys):
    """``FL``, ``LF`` and ``LL`` (one or both feet sliding) have a plastic normal impulse below zero
    at a sliding foot (−6.72, −26.6, −44.7 N·s), so their friction impulse pushes the foot along its
    sliding and the kinetic energy rises from 18.0 J to 24.8, 206 and 646 J (the oracle's solves,
    the issue's numbers). The ±60 N·m box would let ``P + δ_t f`` cover those impulses (the guard
    the toolkit used to apply to sliding contacts), but the actuators do not enter ``q̇⁺``: no
    energy comes from them. No outcome is admitted with a negative normal impulse or a gain."""
    loaded = load_system_file(BIPED)
    s = loaded.system
    rest = loaded.mechanism.contact_system(loaded.q, np.zeros_like(loaded.qdot))
    E0 = 0.5 * loaded.qdot @ s.M @ loaded.qdot
    assert E0 == pytest.approx(18.0, abs=0.05)
    box = (np.full(4, -60.0), np.full(4, 60.0))
    ref = oracle(s, loaded.qdot, rest.h, 0.03, box[0], box[1], np.zeros(2, dtype=bool))
    for mode, gained, pn in (("FL", 24.8, -6.72), ("LF", 206.0, -26.6), ("LL", 646.0, -44.7)):
        decision, v, P, f0, Ft = ref[mode]
        assert decision is False
        assert 0.5 * v @ s.M @ v == pytest.approx(gained, rel=2e-3)
        assert P[1::2].min() == pytest.approx(pn, abs=0.06)
        sliding = [i for i, c in enumerate(mode) if c == "L"]
        assert min(P[2 * i + 1] for i in sliding) < 0
        # with P + δ_t f in place of P (the former guard) some torque in the box covers them:
        rows = [(float(a @ P[2 * i:2 * i + 2] + 0.03 * a @ f0[2 * i:2 * i + 2]), 0.03 * a @ Ft[2 * i:2 * i + 2])
                for i in range(2) for a in (np.array([0.0, 1.0]),)]
        assert max_slack(rows, *box) > 0
    code, doc = impact_json(capsys, "--pseudo-impulse", "0.03")
    for o in doc["outcomes"]:
        if o["consistent"]:
            v = np.array(o["qdot_plus"])
            assert o["energy_loss"] == pytest.approx(E0 - 0.5 * v @ s.M @ v, rel=1e-9)
            assert min(imp["n"] for imp in o["impulse"]) >= 0.0
