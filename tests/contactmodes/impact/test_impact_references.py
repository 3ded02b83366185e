"""Impact outcomes against independent references on random systems (issue 25, item 6).

* frictionless: exactly one consistent outcome, its q̇⁺ the minimizer of ½ (v − q̇⁻)ᵀ M (v − q̇⁻)
  subject to J_n v >= 0 (a QP solved by cvxpy);
* with friction: the set of outcome velocities equals the set of solution velocities of the planar
  impact LCP (normal and two-sided tangential complementarity), found by enumerating every
  complementary basis with a residual check;
* energy never increases, and ``energy_loss`` is E⁻ − E⁺ computed here from q̇⁺;
* units: the same system in mm and g gives the same outcomes and the same q̇⁺ mapped back;
* massless coordinate: the answer is the limit of the ε-regularized QP.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from contactmodes.impact.outcomes import impact
from contactmodes.model.system import CharacteristicScales, ContactSystem


def random_impact(seed: int, k: int, n_q: int, mu=None, massless: bool = False):
    """A random system with ``k`` contacts each approaching (v_n < 0) or touching (v_n = 0),
    its pre-impact velocity and the friction coefficients."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n_q, n_q))
    M = R @ R.T + 0.5 * np.eye(n_q)
    if massless:  # last coordinate massless: its row and column of M zero
        M[-1, :] = 0.0
        M[:, -1] = 0.0
    J = rng.normal(size=(2 * k, n_q))
    v = rng.normal(size=2 * k)
    vn = -rng.uniform(0.2, 2.0, size=k)
    vn[rng.random(k) < 0.3] = 0.0
    vn[0] = -rng.uniform(0.5, 2.0)  # at least one approaching
    v[1::2] = vn
    qdot = np.linalg.lstsq(J, v, rcond=None)[0]
    null = np.linalg.svd(J)[2][2 * k:]
    if null.shape[0]:
        qdot = qdot + null.T @ rng.normal(size=null.shape[0])
    mu = rng.uniform(0.2, 1.5, size=k) if mu is None else np.full(k, float(mu))
    system = ContactSystem(M=M, h=rng.normal(size=n_q), S=rng.normal(size=(n_q, 1)), J=J, Jdot_qdot=np.zeros(2 * k),
                           v_contact=J @ qdot, mu=mu, coordinates=[f"q{i}" for i in range(n_q)], torques=["u"],
                           contacts=[f"c{i}" for i in range(k)], name=f"impact{seed}")
    return system, qdot


def distinct(vectors, tol):
    out = []
    for v in vectors:
        if not any(np.allclose(v, u, atol=tol, rtol=0.0) for u in out):
            out.append(v)
    return out


def same_sets(a, b, tol):
    a, b = distinct(a, tol), distinct(b, tol)
    return len(a) == len(b) and all(any(np.allclose(x, y, atol=tol, rtol=0.0) for y in b) for x in a)


# ------------------------------------------------------------------------------------------ QP
def qp_velocity(M, Jn, qdot):
    import cvxpy as cp

    v = cp.Variable(len(qdot))
    L = np.linalg.cholesky(M + 1e-300 * np.eye(len(qdot)))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L.T @ (v - qdot))), [Jn @ v >= 0])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert prob.status == "optimal"
    return np.asarray(v.value)


@pytest.mark.parametrize("seed", range(12))
def test_frictionless_outcome_is_the_qp_minimizer(seed):
    k = 1 + seed % 3
    system, qdot = random_impact(seed, k, n_q=2 * k + 1 + seed % 2, mu=0.0)
    result = impact(system, qdot=qdot)
    modes = result.consistent_modes
    assert len(modes) == 1, modes
    out = result.outcome(modes[0])
    v = qp_velocity(system.M, system.J[1::2], qdot)
    assert np.allclose(out.qdot_plus, v, atol=1e-6 * max(1.0, np.abs(qdot).max()))
    # the letters say what the QP's solution does at each contact
    vn = system.J[1::2] @ v
    for i, letter in enumerate(modes[0]):
        if letter == "S":
            assert vn[i] >= -1e-7
        else:
            assert abs(vn[i]) <= 1e-6


# ------------------------------------------------------------------------------------------ LCP
def lcp_velocities(M, J, mu, qdot, tol=1e-9):
    """Post-impact velocities of every solution of the planar impact LCP, by enumeration of the
    complementary bases. Unknowns per contact z = (P_n, β_a, β_b, λ) >= 0 with P_t = β_a − β_b;
    complementary slacks (v_n⁺, λ + v_t⁺, λ − v_t⁺, μ P_n − β_a − β_b) >= 0, v⁺ = J q̇⁻ + W P."""
    k = len(mu)
    Minv = np.linalg.inv(M)
    W = J @ Minv @ J.T
    v0 = J @ qdot
    n = 4 * k
    # P (2k) = E z
    E = np.zeros((2 * k, n))
    for i in range(k):
        E[2 * i, 4 * i + 1], E[2 * i, 4 * i + 2] = 1.0, -1.0
        E[2 * i + 1, 4 * i] = 1.0
    # slacks s = G z + g
    G = np.zeros((n, n))
    g = np.zeros(n)
    WE = W @ E
    for i in range(k):
        G[4 * i] = WE[2 * i + 1]
        g[4 * i] = v0[2 * i + 1]
        G[4 * i + 1] = WE[2 * i]
        G[4 * i + 1, 4 * i + 3] += 1.0
        g[4 * i + 1] = v0[2 * i]
        G[4 * i + 2] = -WE[2 * i]
        G[4 * i + 2, 4 * i + 3] += 1.0
        g[4 * i + 2] = -v0[2 * i]
        G[4 * i + 3, 4 * i], G[4 * i + 3, 4 * i + 1], G[4 * i + 3, 4 * i + 2] = mu[i], -1.0, -1.0
    found = []
    for basis in itertools.product((0, 1), repeat=n):  # 0: z_j = 0, 1: s_j = 0
        A = np.zeros((n, n))
        b = np.zeros(n)
        for j, which in enumerate(basis):
            if which == 0:
                A[j, j] = 1.0
            else:
                A[j], b[j] = G[j], -g[j]
        if np.linalg.matrix_rank(A) < n:
            continue
        z = np.linalg.solve(A, b)
        s = G @ z + g
        if z.min() < -tol or s.min() < -tol or np.abs(A @ z - b).max() > tol:
            continue
        found.append(qdot + Minv @ J.T @ (E @ z))
    return found


@pytest.mark.parametrize("seed", range(10))
def test_frictional_outcomes_are_the_lcp_solutions(seed):
    k = 1 + seed % 2 if seed < 8 else 3
    system, qdot = random_impact(100 + seed, k, n_q=2 * k + seed % 2)
    result = impact(system, qdot=qdot)
    ours = [o.qdot_plus for o in result.outcomes if o.consistent]
    assert all(o.qdot_plus_set is None for o in result.outcomes)  # W positive definite: unique per outcome
    ref = lcp_velocities(system.M, system.J, system.mu, qdot)
    assert ref, "the LCP has a solution"
    assert same_sets(ours, ref, 1e-6 * max(1.0, np.abs(qdot).max())), (result.consistent_modes, ours, ref)


# ------------------------------------------------------------------------------------------ energy
@pytest.mark.parametrize("seed", range(8))
def test_energy_never_increases(seed):
    k = 1 + seed % 3
    system, qdot = random_impact(200 + seed, k, n_q=2 * k + 1)
    result = impact(system, qdot=qdot)
    E0 = 0.5 * qdot @ system.M @ qdot
    for o in result.outcomes:
        if not o.consistent:
            continue
        E1 = 0.5 * o.qdot_plus @ system.M @ o.qdot_plus
        assert E1 <= E0 + 1e-9 * E0
        assert o.energy_loss >= 0.0
        assert o.energy_loss == pytest.approx(E0 - E1, abs=1e-7 * E0)


# ------------------------------------------------------------------------------------------ units
def in_other_units(system: ContactSystem, qdot, lam: float, mass: float, linear):
    """The same system with lengths × lam and masses × mass; ``linear`` (n_q,) bool marks the
    coordinates that are lengths (the others are angles). Returns the system, its q̇⁻ and the
    per-coordinate factors c (q_new = c q)."""
    c = np.where(linear, lam, 1.0)
    energy = mass * lam * lam
    M = system.M * energy / np.outer(c, c)
    h = system.h * energy / c
    J = system.J * lam / c[None, :]
    S = system.S * energy / c[:, None]
    scales = CharacteristicScales(system.scales.length * lam, system.scales.mass * mass, system.scales.time)
    other = ContactSystem(M=M, h=h, S=S, J=J, Jdot_qdot=system.Jdot_qdot * lam, v_contact=system.v_contact * lam,
                          mu=system.mu, coordinates=system.coordinates, torques=system.torques,
                          contacts=system.contacts, scales=scales, name=system.name)
    return other, qdot * c, c


@pytest.mark.parametrize("seed", range(5))
def test_units_do_not_change_the_outcomes(seed):
    k = 1 + seed % 3
    system, qdot = random_impact(300 + seed, k, n_q=2 * k + 1)
    linear = np.arange(system.n_q) % 2 == 0
    other, qdot2, c = in_other_units(system, qdot, 1000.0, 1000.0, linear)
    a = impact(system, qdot=qdot)
    b = impact(other, qdot=qdot2)
    assert a.consistent_modes == b.consistent_modes
    for mode in a.consistent_modes:
        oa, ob = a.outcome(mode), b.outcome(mode)
        assert np.allclose(ob.qdot_plus / c, oa.qdot_plus, atol=1e-9 * np.abs(qdot).max())
        assert ob.energy_loss == pytest.approx(oa.energy_loss * 1e9, rel=1e-7, abs=1e-12)


# ------------------------------------------------------------------------------------------ massless
@pytest.mark.parametrize("seed", range(4))
def test_massless_coordinate_is_the_limit_of_small_masses(seed):
    """Frictionless, the last coordinate massless but in the contact Jacobian: q̇⁺'s massive part
    is the limit of the QP with inertia ε on it, whatever the outcome (a massless limb can always
    separate, thesis Sec. 5.1.3: several outcomes may be consistent, with one massive motion)."""
    k = 1 + seed % 2
    system, qdot = random_impact(400 + seed, k, n_q=2 * k + 1, mu=0.0, massless=True)
    result = impact(system, qdot=qdot)
    modes = result.consistent_modes
    assert modes
    refs = []
    for eps in (1e-4, 1e-6):
        refs.append(qp_velocity(system.M + eps * np.diag([0.0] * (system.n_q - 1) + [1.0]), system.J[1::2], qdot))
    assert np.allclose(refs[0][:-1], refs[1][:-1], atol=1e-3)  # converging
    for mode in modes:
        out = result.outcome(mode)
        assert np.allclose(out.qdot_plus[:-1], refs[1][:-1], atol=1e-4 * max(1.0, np.abs(qdot).max()))
        if out.qdot_plus_set is not None:  # the ambiguity moves the massless coordinate only
            assert np.abs(out.qdot_plus_set[1][:-1]).max() <= 1e-9


# ------------------------------------------------------------------------------------------ pseudo-impulse
@pytest.mark.parametrize("seed", range(6))
def test_a_vanishing_pseudo_impulse_changes_nothing_at_bounded_torques(seed):
    """δ_t → 0: at a bounded torque (τ = 0) the outcomes consistent with the pseudo-impulse are
    those without it (the eq. 29 release test is then implied by J_n q̇⁺ >= 0, thesis Theorem 5.6)."""
    k = 1 + seed % 3
    system, qdot = random_impact(500 + seed, k, n_q=2 * k + 1)
    plain = impact(system, qdot=qdot).consistent_modes
    h_rest = np.random.default_rng(seed).normal(size=system.n_q)
    tiny = impact(system, qdot=qdot, pseudo_impulse=1e-9, h_rest=h_rest)
    at_zero = [o.mode for o in tiny.outcomes if o.consistent and any(T.contains([0.0]) for T in o.torque_set)]
    assert at_zero == plain
