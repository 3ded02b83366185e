"""Unit tests of contactmodes.analysis.ambiguity on hand-built systems and the six-link brace.

Every expected value is derived by hand in the test's docstring, or by a direct LP
(``tests/_support/oracle.py``: ``oracle_slack``, ``max_violation``).
"""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.analysis.ambiguity import inconsistent, task_rows, unambiguous, untasked_domains
from contactmodes.progress import Progress
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file
from contactmodes.modes.enumeration import enumerate_modes
from contactmodes.model.system import ContactSystem, LinearConstraint
from _support.systems import G_, M_, MU, point_between_floor_and_ceiling
from polytopes import union_contains
from polytopes.regions import union_bounding_box
from _support.oracle import all_modes, kinematically_ok, max_violation, oracle_slack



# ------------------------------------------------------------------------ task rows -----------
def massless_tail(task_type: str = "eq") -> ContactSystem:
    """q0: a unit mass pushed by τ and touching the ground below it (normal +q0, the tangential
    Jacobian row is zero); q1: a massless coordinate with nothing acting on it. Task: q̈1 = 0
    (or q̈1 >= 0).

    By hand: in mode S (f = 0, at rest so q̈0 = τ >= 0 is required) q̈1 is anything — a null-space
    direction that moves accelerations. T_S (with the task) = [0, inf); for every such τ the same
    mode also admits q̈1 != 0 (either sign), so the within-mode ambiguity covers T_S and T*_S is
    empty. F: q̈0 = 0, f_n = −τ >= 0, so T_F = (−inf, 0]; L and R need a strictly negative /
    positive tangential acceleration, which is identically 0: pruned. T_S ∩ T_F = {0} only.
    """
    task = LinearConstraint("task", task_type, [[0.0, 1.0]], [[0.0, 0.0]], [[0.0]], [0.0], name="qdd1")
    return ContactSystem(
        M=np.diag([1.0, 0.0]), h=np.zeros(2), S=np.array([[1.0], [0.0]]),
        J=np.array([[0.0, 0.0], [1.0, 0.0]]), Jdot_qdot=np.zeros(2), v_contact=np.zeros(2),
        mu=np.array([0.5]), coordinates=("q0", "q1"), torques=("tau",), contacts=("c",),
        constraints=(task,), name="massless tail",
    )


def test_task_rows_and_their_negations():
    (row,) = task_rows(massless_tail("eq"))
    assert row.index == 0 and row.label == "task:0" and row.type == "eq" and row.name == "qdd1"
    assert np.allclose(row.qdd, [0, 1]) and np.allclose(row.f, [0, 0]) and np.allclose(row.tau, [0])
    assert row.rhs == 0.0
    negs = row.negations()  # q̈1 = 0 negates into q̈1 <= 0 and −q̈1 <= 0 (the margin comes later)
    assert len(negs) == 2
    (a0, t0, b0), (a1, t1, b1) = negs
    assert np.allclose(a0, [0, 1, 0, 0]) and np.allclose(t0, [0]) and b0 == 0.0
    assert np.allclose(a1, [0, -1, 0, 0]) and np.allclose(t1, [0]) and b1 == 0.0
    assert row.violated(np.array([0.0, 1e-3]), np.zeros(2), np.zeros(1))
    assert not row.violated(np.array([0.0, 1e-3]), np.zeros(2), np.zeros(1), tol=1e-2)
    (geq,) = task_rows(massless_tail("geq"))
    (neg,) = geq.negations()  # q̈1 >= 0 negates into q̈1 <= 0
    assert np.allclose(neg[0], [0, 1, 0, 0]) and neg[2] == 0.0
    assert geq.violated(np.array([0.0, -1.0]), np.zeros(2), np.zeros(1))
    assert not geq.violated(np.array([0.0, 1.0]), np.zeros(2), np.zeros(1))


def test_task_rows_number_rows_across_blocks_and_skip_physical_ones():
    """Two task blocks (2 rows, then 1) and a physical block: labels task:0..2 in file order,
    coefficients and right-hand sides as written, τ coefficients kept."""
    phys = LinearConstraint("physical", "geq", [[1.0, 0.0]], [[0.0, 0.0]], [[0.0]], [-100.0], name="p")
    a = LinearConstraint("task", "geq", [[1.0, 0.0], [0.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]], [[0.0], [3.0]],
                         [1.0, -2.0], name="a")
    b = LinearConstraint("task", "eq", [[0.0, 0.0]], [[0.0, 1.0]], [[-1.0]], [4.0], name="b")
    s = replace(massless_tail(), constraints=(phys, a, b))
    rows = task_rows(s)
    assert [(r.index, r.label, r.name, r.type) for r in rows] == [
        (0, "task:0", "a", "geq"), (1, "task:1", "a", "geq"), (2, "task:2", "b", "eq")]
    assert [r.rhs for r in rows] == [1.0, -2.0, 4.0]
    assert np.allclose(rows[1].qdd, [0, 2]) and np.allclose(rows[1].tau, [3])
    assert [len(r.negations()) for r in rows] == [1, 1, 2]
    a_x, a_tau, rhs = rows[2].negations()[1]  # −(f_n − τ) <= −4
    assert np.allclose(a_x, [0, 0, 0, -1]) and np.allclose(a_tau, [1]) and rhs == -4.0
    # violated: 2 q̈1 + 3 τ >= −2 fails at q̈1 = −2, τ = 0.5 (value −2.5)
    assert rows[1].violated(np.array([0.0, -2.0]), np.zeros(2), np.array([0.5]))
    assert not rows[1].violated(np.array([0.0, -2.0]), np.zeros(2), np.array([1.0]))


# --------------------------------------------------------------- within-mode ambiguity --------
@pytest.mark.parametrize("task_type", ["eq", "geq"])
def test_null_space_in_accelerations_makes_the_mode_ambiguous_within(task_type):
    s = massless_tail(task_type)
    assert sorted(enumerate_modes(s).modes) == ["F", "S"]
    res = unambiguous(s, "S")
    lo, hi = res.feasible_set.bounding_box()
    assert lo[0] == pytest.approx(0.0) and hi[0] == np.inf
    # the flags describe D_c *with* the task: q̈1 = 0 pins w, q̈1 >= 0 leaves it free
    assert (res.w_varies and res.w_moves_accelerations) == (task_type == "geq")
    assert res.unambiguous == []
    by_source = {src.source: src for src in res.sources}
    assert set(by_source) == {"F", "task:0"}
    assert by_source["F"].boundary_only  # T_S ∩ T_F = {0}
    within = by_source["task:0"]
    assert within.kind == "task" and not within.boundary_only
    assert len(within.set) == (2 if task_type == "eq" else 1)  # q̈1 < 0 (and q̈1 > 0 for eq)
    for piece in within.set:  # each negation is reachable for every τ of T_S
        lo, hi = piece.bounding_box()
        assert lo[0] == pytest.approx(0.0, abs=1e-9) and hi[0] == np.inf
    # without the within-mode check only F matters, and it touches T_S at 0 only
    loose = unambiguous(s, "S", within_mode=False)
    (piece,) = loose.unambiguous
    lo, hi = piece.bounding_box()
    assert lo[0] == pytest.approx(0.0) and hi[0] == np.inf
    # second method: the direct LP finds a q̈1 violation at τ = 3 (inside T_S)
    (row,) = task_rows(s)
    assert max_violation(s, "S", np.array([3.0]), row)[0] == np.inf


def squeeze(rhs: float = 1.0, scale: float = 1.0) -> ContactSystem:
    """``hand_systems.point_between_floor_and_ceiling`` with the task "ceiling force f_n2 >= rhs",
    written as ``scale · f_n2 >= scale · rhs`` (the same set for every ``scale > 0``)."""
    s = point_between_floor_and_ceiling()
    task = LinearConstraint("task", "geq", np.zeros((1, 2)), [[0.0, 0.0, 0.0, scale]], np.zeros((1, 2)),
                            [scale * rhs], name="ceiling load")
    return replace(s, constraints=(task,))


def test_force_null_space_leaves_a_partly_unambiguous_set():
    """Point of mass m between floor (n = +y, t = +x) and ceiling (n = −y, t = −x), forces (fx, fy),
    task f_n2 >= 1 (the ceiling keeps pressing), μ the same at both contacts.

    Accelerations at the contacts: a_n1 = ÿ, a_n2 = −ÿ, a_t1 = ẍ, a_t2 = −ẍ. S anywhere needs
    a strictly positive normal acceleration while the other contact's is ≤ 0 ... 0: pruned; F at one
    contact forces ẍ = 0, so the other is F too; L at the floor (ẍ < 0) means R at the ceiling.
    Kinematically feasible: FF, LR, RL.

    FF (q̈ = 0): f_t1 − f_t2 = −fx, f_n1 − f_n2 = m g − fy, |f_ti| <= μ f_ni: a squeeze
    f_n2 >= max(0, fy − m g) and a shear split, so w (2-D) moves forces only. With the task,
    f_n2 large always works: T_FF = R². LR: 2 ẍ = fx + μ (f_n1 + f_n2) <= 0 with the least
    f_n1 + f_n2 = |m g − fy|: T_LR = {fx <= −μ |m g − fy|}; RL mirrored: T_RL = {fx >= μ |m g − fy|}.
    Within (f_n2 <= 1 − δ): possible iff fy − m g <= 1 and |fx| <= μ (2 + m g − fy).
    Hence T*_FF = {fy >= m g + 1, |fx| <= μ (fy − m g)} — one truncated cone: only pushing into
    the ceiling by more than 1 N guarantees a ceiling force of at least 1 N.
    """
    s = squeeze()
    mg = M_ * G_
    assert sorted(enumerate_modes(s).modes) == ["FF", "LR", "RL"]
    assert sorted(m for m in all_modes(2) if kinematically_ok(s, m)) == ["FF", "LR", "RL"]
    res = unambiguous(s, "FF")
    assert res.w_varies and res.w_moves_forces and not res.w_moves_accelerations
    lo, hi = res.feasible_set.bounding_box()
    assert np.all(lo == -np.inf) and np.all(hi == np.inf)
    by_source = {src.source: src for src in res.sources}
    assert set(by_source) == {"LR", "RL", "task:0"}
    assert not any(src.boundary_only for src in res.sources)
    (within,) = by_source["task:0"].set
    assert within.bounding_box()[1][1] == pytest.approx(mg + 1.0, abs=1e-4)
    lo, hi = union_bounding_box(res.unambiguous)
    assert lo[1] == pytest.approx(mg + 1.0, abs=1e-4) and hi[1] == np.inf
    assert lo[0] == -np.inf and hi[0] == np.inf
    for fx in np.linspace(-6.0, 6.0, 13):
        for fy in np.linspace(mg - 8.0, mg + 14.0, 23):
            expected = fy >= mg + 1.0 and abs(fx) <= MU * (fy - mg)
            dist = min(abs(fy - mg - 1.0), abs(abs(fx) - MU * (fy - mg)) / np.hypot(1.0, MU))
            if dist < 1e-3:
                continue
            assert res.contains([fx, fy]) == expected, (fx, fy)
    # the direct LP agrees: at fx = 0 the least ceiling load is max(0, fy − m g), so the largest
    # violation of f_n2 >= 1 is 1 − max(0, fy − m g) — negative inside T*_FF, positive below the cut
    (row,) = task_rows(s)
    for dy in (-2.0, 0.5, 3.0):
        v, _ = max_violation(s, "FF", np.array([0.0, mg + dy]), row)
        assert v == pytest.approx(1.0 - max(0.0, dy))


def squeeze_star_ok(res) -> bool:
    """T_FF = R² and T*_FF = {fy >= m g + 1, |fx| <= μ (fy − m g)} (the hand result above)."""
    mg = M_ * G_
    lo, hi = res.feasible_set.bounding_box()
    if not (np.all(lo == -np.inf) and np.all(hi == np.inf)) or not res.unambiguous:
        return False
    lo, hi = union_bounding_box(res.unambiguous)
    return bool(abs(lo[1] - (mg + 1.0)) < 1e-4 and hi[1] == np.inf and lo[0] == -np.inf and hi[0] == np.inf)


@pytest.mark.parametrize("scale", [1e3, 1e-3, 1e-6])
def test_squeeze_is_unchanged_by_the_units_of_the_task_row(scale):
    """``s·f_n2 >= s`` is the same constraint for every ``s > 0`` (tolerances are documented as
    relative): the hand result of the squeeze test holds for moderate ``s``."""
    assert squeeze_star_ok(unambiguous(squeeze(scale=scale), "FF"))


def test_squeeze_with_a_task_row_in_tiny_units():
    """Was a strict xfail: with the task written as 1e-8·f_n2 >= 1e-8, T_FF came out as
    fy <= m g + 1 instead of R² (Polytope.reduce on a row scaled by 1e-8). Task rows are now
    divided by their largest coefficient in the nondimensional variables (contactmodes.model.scaling),
    so the written scale of a row cannot matter."""
    assert squeeze_star_ok(unambiguous(squeeze(scale=1e-8), "FF"))


def test_within_mode_source_survives_a_tiny_row_scale():
    res = unambiguous(squeeze(scale=1e-11), "FF")
    assert "task:0" in {src.source for src in res.sources}
    assert not res.contains([0.0, M_ * G_ + 0.5])


# ------------------------------------------------------------------------- six-link -----------
def test_six_link_brace_fff_is_unambiguous_somewhere():
    """FFF + q̈ = 0 on the six-link brace.

    Independent facts: M is positive definite (seven point masses pin every coordinate) and the
    six contact rows of J are independent, so [M −Jᵀ; J 0] is invertible: every τ gives one
    (q̈, f) in FFF — no w, nothing a task row could be violated by within the mode. With q̈ = 0
    the dynamics read h = S τ + Jᵀ f: 8 equations in 11 unknowns (τ, f), [S Jᵀ] of rank 8 and
    Jᵀ injective, so T_FFF lies in a 3-dimensional affine set of the 5 torques.
    """
    s = load_system_file(EXAMPLES / "six_link_brace.toml").system
    assert np.linalg.eigvalsh(s.M).min() > 0 and np.linalg.matrix_rank(s.J) == 6
    assert np.linalg.matrix_rank(np.hstack([s.S, s.J.T])) == 8
    res = unambiguous(s, "FFF")
    assert not res.w_moves_accelerations and not res.w_varies
    assert [src for src in res.sources if src.kind == "task"] == []
    assert res.feasible_set.affine_dimension() == 11 - 8
    assert res.unambiguous
    for piece in res.unambiguous:
        tau = piece.chebyshev_center().center
        assert res.contains(tau) and res.feasible_set.contains(tau)
        # direct check: f from h − S τ = Jᵀ f (least squares, exact here) inside the friction cones
        f, *_ = np.linalg.lstsq(s.J.T, s.h - s.S @ tau, rcond=None)
        assert np.allclose(s.J.T @ f, s.h - s.S @ tau, atol=1e-8 * max(1.0, np.abs(s.h).max()))
        ft, fn = f[0::2], f[1::2]
        assert np.all(fn > 0) and np.all(np.abs(ft) < s.mu * fn)
        # direct LP at τ: FFF (with q̈ = 0) has a solution, no other kinematically feasible mode does
        for m in all_modes(3):
            if not kinematically_ok(s, m):
                continue
            sigma = oracle_slack(s, m, tau, task=(m == "FFF"))
            if m == "FFF":
                assert sigma is not None and sigma > 1e-6
            else:
                assert sigma is None or sigma < -1e-6, (m, sigma)
        # and no FFF solution at τ violates a row of q̈ = 0
        for row in task_rows(s):
            v, _ = max_violation(s, "FFF", tau, row)
            assert v <= 1e-8, (row.label, v)


# ---------------------------------------------------------------------- inconsistent ----------
@pytest.mark.parametrize("lo, hi", [
    ([0.0, 1.0], [1.0, 2.0]),      # two ranges for one torque
    ([0.0], [1.0, 2.0]),           # hi of the wrong length
    ([], []),                      # none at all
    ([np.nan], [1.0]),
    ([0.0], [np.nan]),
    ([2.0], [1.0]),                # lo > hi
    ([0.0], [np.inf]),
    ([-np.inf], [0.0]),
])
def test_inconsistent_rejects_bad_boxes(lo, hi):
    system = load_system_file(EXAMPLES / "painleve_rod.toml").system
    with pytest.raises(ContactModelError, match="inconsistency box"):
        inconsistent(system, lo, hi)


def test_inconsistent_accepts_a_degenerate_box_and_precomputed_domains():
    """lo = hi is a slice (here a single moment). The Painlevé rod with μ = 2 has no solution for
    M above M* = −g I /(c cos θ) ≈ −3.656 N·m (tests/contactmodes/analysis/test_painleve.py): the point
    M = 0 is inconsistent, M = −10 is not (both S and L exist there)."""
    system = load_system_file(EXAMPLES / "painleve_rod.toml").system
    doms = untasked_domains(system)
    (gap,) = inconsistent(system, [0.0], [0.0], domains=doms)
    assert union_contains([gap], np.array([0.0]))
    assert inconsistent(system, [-10.0], [-10.0], domains=doms) == []
    shown = io.StringIO()
    inconsistent(system, [-1.0], [1.0], progress=Progress(after=0.0, every=0.0, stream=shown))
    lines = shown.getvalue().splitlines()
    assert [ln.split(" (")[0] for ln in lines] == ["contactmodes: inconsistent torques 1/2",
                                                   "contactmodes: inconsistent torques 2/2"]
    assert {ln.split(" (")[1].rstrip(")") for ln in lines} == {"S", "L"}


def test_inconsistent_names_the_offending_length():
    system = load_system_file(EXAMPLES / "painleve_rod.toml").system
    with pytest.raises(ContactModelError, match=r"inconsistency box: .*got 2"):
        inconsistent(system, [0.0], [1.0, 2.0])
