"""SVD response of a mode (Sec. III-D): rank cases, hand-derived maps, null spaces, subspace (31)."""

from __future__ import annotations

import numpy as np
import pytest

from contactmodes.analysis.session import mode_domain
from contactmodes.modes.enumeration import all_modes
from contactmodes.modes.response import mode_equations, numerical_rank, solve_response
from contactmodes.model.system import ContactSystem, LinearConstraint

from _support.systems import G_, M_, MU, point_between_floor_and_ceiling, point_on_ground


def point_in_corner():
    """Floor (n = +y, t = +x) and a wall on the left (n = +x, t = (n_y, −n_x) = (0, −1))."""
    J = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [1.0, 0.0]])
    return ContactSystem(
        M=M_ * np.eye(2), h=[0.0, M_ * G_], S=np.eye(2), J=J, Jdot_qdot=np.zeros(4),
        v_contact=np.zeros(4), mu=[MU, MU], coordinates=["x", "y"], torques=["fx", "fy"],
        contacts=["floor", "wall"],
    )


def test_numerical_rank_rule():
    assert numerical_rank([3.0, 2.0, 1.0], (3, 3)) == 3
    assert numerical_rank([3.0, 2.0, 1e-14], (3, 3)) == 2
    assert numerical_rank([], (0, 3)) == 0
    assert numerical_rank([0.0, 0.0], (2, 2)) == 0


def test_equations_of_fixed_point():
    eqs = mode_equations(point_on_ground(), "F")
    # rows: accel t, accel n, dynamics x, dynamics y over (ẍ, ÿ, f_t, f_n)
    np.testing.assert_allclose(eqs.A, [[1, 0, 0, 0], [0, 1, 0, 0], [M_, 0, -1, 0], [0, M_, 0, -1]])
    np.testing.assert_allclose(eqs.B, [[0], [0], [1], [0]])
    np.testing.assert_allclose(eqs.b, [0, 0, 0, -M_ * G_])
    # friction cone + f_n >= 0 over (ẍ, ÿ, f_t, f_n, τ)
    np.testing.assert_allclose(eqs.N, [[0, 0, -1, MU, 0], [0, 0, 1, MU, 0], [0, 0, 0, 1, 0]])
    np.testing.assert_allclose(eqs.e, 0.0)


def test_equations_of_sliding_and_separating():
    eqs = mode_equations(point_on_ground(), "L")
    assert any(np.allclose(row, [0, 0, 1, -MU]) for row in eqs.A)          # f_t − μ f_n = 0
    assert any(np.allclose(row, [-1, 0, 0, 0, 0]) for row in eqs.N)       # −ẍ_t >= 0
    eqs = mode_equations(point_on_ground(), "R")
    assert any(np.allclose(row, [0, 0, 1, MU]) for row in eqs.A)
    assert any(np.allclose(row, [1, 0, 0, 0, 0]) for row in eqs.N)
    eqs = mode_equations(point_on_ground(), "S")
    np.testing.assert_allclose(eqs.N, [[0, 1, 0, 0, 0]])                  # ÿ >= 0
    # moving tangentially: no tangential acceleration inequality for R
    eqs = mode_equations(point_on_ground(v=(1.0, 0.0)), "R")
    np.testing.assert_allclose(eqs.N, [[0, 0, 0, 1, 0]])                  # only f_n >= 0


def test_fixed_point_response_hand_values():
    r = solve_response(point_on_ground(), "F")
    assert r.rank_case == 1 and r.n_w == 0 and r.consistent and r.tau_C.shape == (0, 1)
    qdd, f = r.evaluate([3.0])
    np.testing.assert_allclose(qdd, [0, 0], atol=1e-12)
    np.testing.assert_allclose(f, [-3.0, M_ * G_], atol=1e-12)


def test_sliding_point_response_hand_values():
    r = solve_response(point_on_ground(), "L")
    qdd, f = r.evaluate([-20.0])
    # f_n = mg, f_t = μ mg, m ẍ = τ + μ m g
    np.testing.assert_allclose(f, [MU * M_ * G_, M_ * G_], atol=1e-12)
    np.testing.assert_allclose(qdd, [(-20.0 + MU * M_ * G_) / M_, 0.0], atol=1e-12)


def test_corner_force_only_ambiguity():
    """Corner, floor F and wall R: q̈ = 0; null space f ∝ (f_t1, f_n1, f_t2, f_n2) = (−1, −μ, −μ, 1).

    Hand derivation: R at the wall: f_t2 = −μ f_n2; x-dynamics f_t1 + f_n2 = 0; y-dynamics
    f_n1 − f_t2 = 0 ⇒ with f_n2 = 1: f = (−1, −μ, −μ, 1). Redundant row ẍ_n2 = ẍ = ẍ_t1 ⇒ case 4.
    """
    r = solve_response(point_in_corner(), "FR")
    assert r.rank_case == 4 and r.n_w == 1
    assert not r.full_row_rank and not r.full_column_rank
    assert r.w_moves_forces and not r.w_moves_accelerations
    assert r.consistent and r.tau_C.shape[0] == 0  # the redundant row is homogeneous
    expected = np.array([0, 0, -1.0, -MU, -MU, 1.0])
    expected /= np.linalg.norm(expected)
    v = r.nullspace[:, 0]
    assert abs(abs(v @ expected) - 1.0) < 1e-10


def test_floor_and_ceiling_fixed_two_force_ambiguities():
    r = solve_response(point_between_floor_and_ceiling(), "FF")
    assert r.rank_case == 4 and r.n_w == 2
    assert r.w_moves_forces and not r.w_moves_accelerations


def test_sliding_between_floor_and_ceiling_moves_accelerations():
    # both sliding the same way: ẍ depends on f_n1 + f_n2, which is undetermined (ball bearing, Fig. 6)
    r = solve_response(point_between_floor_and_ceiling(), "LR")
    assert r.n_w == 1
    assert r.w_moves_accelerations and r.w_moves_forces


def test_case3_task_equality_restricts_torques():
    """Task ẍ = 0 while sliding L: τ + μ m g = 0 is the only admissible torque (case 3)."""
    task = LinearConstraint(kind="task", type="eq", qdd=[[1.0, 0.0]], f=[[0.0, 0.0]], tau=[[0.0]],
                            rhs=[0.0], name="xdd = 0")
    s = point_on_ground(constraints=[task])
    r = solve_response(s, "L")
    assert r.rank_case == 3 and r.n_w == 0 and r.consistent
    assert r.tau_C.shape == (1, 1)
    tau_star = r.tau_d[0] / r.tau_C[0, 0]
    assert tau_star == pytest.approx(-MU * M_ * G_, rel=1e-10)
    assert r.tau_admissible([-MU * M_ * G_]) and not r.tau_admissible([0.0])
    assert solve_response(s, "L", task=False).rank_case == 1


def test_inconsistent_mode_has_no_domain():
    """Task f_n = 0 while fixed: dynamics force f_n = m g whatever τ is ⇒ no τ admissible."""
    task = LinearConstraint(kind="task", type="eq", qdd=[[0.0, 0.0]], f=[[0.0, 1.0]], tau=[[0.0]],
                            rhs=[0.0])
    s = point_on_ground(constraints=[task])
    r = solve_response(s, "F")
    assert r.rank_case == 3 and not r.consistent
    dom = mode_domain(s, "F")
    assert not dom.feasible and dom.T is None
    assert mode_domain(s, "F", task=False).feasible


def random_system(rng, n_q, n_tau, k, at_rest=True):
    R = rng.normal(size=(n_q, n_q))
    v = np.zeros(2 * k) if at_rest else np.abs(rng.normal(size=2 * k))
    return ContactSystem(
        M=R @ R.T + 0.5 * np.eye(n_q), h=rng.normal(scale=5.0, size=n_q),
        S=rng.normal(size=(n_q, n_tau)), J=rng.normal(size=(2 * k, n_q)),
        Jdot_qdot=rng.normal(size=2 * k), v_contact=v, mu=rng.uniform(0.2, 1.2, size=k),
        coordinates=[f"q{i}" for i in range(n_q)], torques=[f"t{i}" for i in range(n_tau)],
        contacts=[f"c{i}" for i in range(k)],
    )


@pytest.mark.parametrize("seed", range(6))
def test_response_satisfies_equalities(seed):
    """(e): for random admissible τ and random w, A [q̈; f] = B τ + b, and A N(A) = 0."""
    rng = np.random.default_rng(seed)
    n_q, n_tau, k = int(rng.integers(2, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    s = random_system(rng, n_q, n_tau, k)
    for mode in all_modes(k):
        r = solve_response(s, mode)
        eqs = r.equations
        np.testing.assert_allclose(eqs.A @ r.nullspace, 0.0, atol=1e-9)
        if r.nullspace.size:
            np.testing.assert_allclose(r.nullspace.T @ r.nullspace, np.eye(r.n_w), atol=1e-9)
        assert r.rank_case == (1 if r.full_row_rank and r.full_column_rank else
                               2 if r.full_row_rank else 3 if r.full_column_rank else 4)
        if not r.consistent:
            continue
        for _ in range(3):
            tau = rng.normal(scale=10.0, size=n_tau)
            if r.tau_C.shape[0]:  # project onto the admissible subspace (31)
                tau0, *_ = np.linalg.lstsq(r.tau_C, r.tau_d, rcond=None)
                Z = np.linalg.svd(r.tau_C)[2][r.tau_C.shape[0]:].T
                tau = tau0 + Z @ (Z.T @ tau)
            assert r.tau_admissible(tau)
            w = rng.normal(scale=10.0, size=r.n_w)
            qdd, f = r.evaluate(tau, w)
            lhs = eqs.A @ np.concatenate([qdd, f])
            rhs = eqs.B @ tau + eqs.b
            np.testing.assert_allclose(lhs, rhs, atol=1e-8 * max(1.0, np.abs(rhs).max()))


def test_evaluate_shape_errors():
    r = solve_response(point_on_ground(), "F")
    with pytest.raises(ValueError):
        r.evaluate([1.0, 2.0])
    with pytest.raises(ValueError):
        r.evaluate([1.0], [1.0])


@pytest.mark.parametrize("seed", range(4))
def test_batched_responses_and_rows_are_each_modes_own(seed):
    """``responses_from_equations`` and ``substituted_rows_many`` on every mode of a random
    system at once (several shapes and ranks per batch) give, mode by mode, exactly what each
    mode gets alone; and the batched response satisfies the equalities (24)."""
    from contactmodes.analysis.domains import substituted_rows, substituted_rows_many
    from contactmodes.modes.response import responses_from_equations

    rng = np.random.default_rng(40 + seed)
    k = 2 + seed % 2
    s = random_system(rng, int(rng.integers(2, 5)), int(rng.integers(1, 4)), k)
    eqs = [mode_equations(s, m) for m in all_modes(k)]
    batch = responses_from_equations(eqs)
    assert len({(e.A.shape, r.rank) for e, r in zip(eqs, batch)}) > 1  # several groups (ranks)
    arrays = ("singular_values", "nullspace", "P_q", "Q_q", "r_q", "P_f", "Q_f", "r_f", "tau_C", "tau_d")
    flags = ("rank", "rank_case", "n_w", "consistent", "w_moves_accelerations", "w_moves_forces")
    for e, r, (A, b) in zip(eqs, batch, substituted_rows_many(batch)):
        alone = responses_from_equations([e])[0]
        assert all(getattr(r, f) == getattr(alone, f) for f in flags), e.mode
        assert all(np.array_equal(getattr(r, f), getattr(alone, f)) for f in arrays), e.mode
        A1, b1 = substituted_rows(alone)
        assert np.array_equal(A, A1) and np.array_equal(b, b1), e.mode
        np.testing.assert_allclose(e.A @ r.nullspace, 0.0, atol=1e-9)
        if r.consistent and r.tau_C.shape[0] == 0:  # τ = 0 is admissible: A r = b
            np.testing.assert_allclose(e.A @ r.r, e.b, atol=1e-8 * max(1.0, float(np.abs(e.b).max())))


def test_numerical_ranks_is_the_rank_rule_row_by_row():
    """``contactmodes._linalg.numerical_ranks`` (stacked) equals ``numerical_rank`` on each
    row, with zero rows, no singular values and values straddling the threshold; and both agree
    with ``np.linalg.matrix_rank`` on matrices of known rank."""
    from contactmodes import tolerances
    from contactmodes._linalg import numerical_rank, numerical_ranks

    rng = np.random.default_rng(7)
    for k in (0, 1, 3, 6):
        s = np.sort(np.abs(rng.standard_normal((300, k))) * 10.0 ** rng.integers(-14, 2, (300, k)), axis=1)[:, ::-1]
        s[::7] = 0.0
        if k > 1:  # exactly at and just above the threshold
            s[1::5, 1] = tolerances.RANK_RTOL * 9 * s[1::5, 0]
            s[2::5, 1] = np.nextafter(tolerances.RANK_RTOL * 9 * s[2::5, 0], np.inf)
        assert numerical_ranks(s, (7, 9)).tolist() == [numerical_rank(row, (7, 9)) for row in s]
    A = np.array([rng.standard_normal((6, r)) @ rng.standard_normal((r, 5)) for r in range(6)])
    s = np.linalg.svd(A, compute_uv=False)
    assert numerical_ranks(s, (6, 5)).tolist() == list(range(6)) == [np.linalg.matrix_rank(M) for M in A]
