"""Unit tests of contactmodes.ambiguity on hand-built systems and the six-link brace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contactmodes.ambiguity import inconsistent, task_rows, unambiguous
from contactmodes.errors import ContactModelError
from contactmodes.io import load_system
from contactmodes.system import ContactSystem, LinearConstraint

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def massless_tail(task_type: str = "eq") -> ContactSystem:
    """q0: a unit mass pushed by τ and touching the ground below it (normal +q0); q1: a massless
    coordinate with nothing acting on it. Task: q̈1 = 0 (or q̈1 >= 0).

    By hand: in mode S (f = 0, at rest so q̈0 = τ >= 0 is required) q̈1 is anything — a null-space
    direction that moves accelerations. T_S (with the task) = [0, inf); for every such τ the same
    mode also admits q̈1 != 0, so the within-mode ambiguity covers T_S and T*_S is empty.
    """
    task = LinearConstraint("task", task_type, [[0.0, 1.0]], [[0.0, 0.0]], [[0.0]], [0.0], name="qdd1")
    return ContactSystem(
        M=np.diag([1.0, 0.0]), h=np.zeros(2), S=np.array([[1.0], [0.0]]),
        J=np.array([[0.0, 0.0], [1.0, 0.0]]), Jdot_qdot=np.zeros(2), v_contact=np.zeros(2),
        mu=np.array([0.5]), coordinates=("q0", "q1"), torques=("tau",), contacts=("c",),
        constraints=(task,), name="massless tail",
    )


def test_task_rows_and_their_negations():
    eq_rows = task_rows(massless_tail("eq"))
    (row,) = eq_rows
    assert row.label == "task:0" and row.type == "eq" and row.name == "qdd1"
    negs = row.negations()
    assert len(negs) == 2  # a·z <= b and −a·z <= −b
    assert np.allclose(negs[0][0], [0, 1, 0, 0]) and np.allclose(negs[1][0], [0, -1, 0, 0])
    (geq,) = task_rows(massless_tail("geq"))
    assert len(geq.negations()) == 1
    assert geq.violated(np.array([0.0, -1.0]), np.zeros(2), np.zeros(1))
    assert not geq.violated(np.array([0.0, 1.0]), np.zeros(2), np.zeros(1))


@pytest.mark.parametrize("task_type", ["eq", "geq"])
def test_null_space_in_accelerations_makes_the_mode_ambiguous_within(task_type):
    res = unambiguous(massless_tail(task_type), "S")
    lo, hi = res.feasible_set.bounding_box()
    assert lo[0] == pytest.approx(0.0) and hi[0] == np.inf
    # the flags describe D_c *with* the task: q̈1 = 0 pins w, q̈1 >= 0 leaves it free
    assert (res.w_varies and res.w_moves_accelerations) == (task_type == "geq")
    assert res.unambiguous == []
    assert [s.source for s in res.sources if s.kind == "task"] == ["task:0"]
    # without the within-mode check only the other modes matter: F holds for τ <= 0 only
    loose = unambiguous(massless_tail(task_type), "S", within_mode=False)
    (piece,) = loose.unambiguous
    assert piece.bounding_box()[0][0] == pytest.approx(0.0)


def test_six_link_brace_fff_is_unambiguous_somewhere():
    system = load_system(EXAMPLES / "six_link_brace.toml").system
    res = unambiguous(system, "FFF")
    assert not res.w_moves_accelerations  # three fixed contacts leave q̈ unique for each τ
    assert [s for s in res.sources if s.kind == "task"] == []  # so qdd = 0 cannot be violated
    assert res.unambiguous
    tau = res.unambiguous[0].chebyshev_center().center
    assert res.contains(tau) and res.feasible_set.contains(tau)
    # only measure-zero ambiguity sets may pass through the relative interior of T*_c
    touching = set(res.sources_at(tau))
    assert all(s.boundary_only for s in res.sources if s.source in touching)


@pytest.mark.parametrize("lo, hi", [([0.0, 1.0], [1.0, 2.0]), ([np.nan], [1.0]), ([2.0], [1.0]), ([0.0], [np.inf])])
def test_inconsistent_rejects_bad_boxes(lo, hi):
    system = load_system(EXAMPLES / "painleve_rod.toml").system
    with pytest.raises(ContactModelError, match="inconsistency box"):
        inconsistent(system, lo, hi)
