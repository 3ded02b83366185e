"""The kinematic test of some candidates only (``Layout.kinematic_test``'s ``subset`` and
``exclude``, which the generic controller's screened steps use): each decision it takes is the
whole test's, the screen's letters are left out and nothing else is, and such a test refuses to
be an enumeration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests._support import record_generic_steps as rec

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _snake_steps(indices):
    doc = json.loads((DATA / "snake.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system("snake")
    ctl = rec.controllers("snake", loaded, float.fromhex(doc["velocity_tol"]))["inner"]["main"]
    calls = doc["calls"]["main"]
    for i in indices:
        q, qd = rec.state(calls[i])
        tau = ctl(q, qd)
        step = ctl.step_model(q, qd)
        st = ctl.engine.structure(step)
        yield ctl, step, st.layout(step.pattern), st.banks(step.terms), tau


def _whole(layout, banks) -> np.ndarray:
    test = layout.kinematic_test(banks)
    test.resolve(test.pending())
    return test.feasible


@pytest.mark.parametrize("index", [0, 4, 20])
def test_subset_decisions_are_the_whole_tests(index):
    for _, _, layout, banks, _ in _snake_steps([index]):
        whole = _whole(layout, banks)
        rng = np.random.default_rng(index)
        subset = np.concatenate([rng.choice(whole.nonzero()[0], 5, replace=False),
                                 rng.choice((~whole).nonzero()[0], 5, replace=False)])
        part = layout.kinematic_test(banks, subset=subset)
        assert part.partial
        assert np.array_equal(part.resolve(subset), whole[subset])
        others = np.setdiff1d(np.arange(len(layout.modes)), subset)
        assert not part.feasible[others].any() and part.decided[others].all()
        with pytest.raises(ValueError, match="not the state's enumeration"):
            part.enumeration()


def test_screened_test_leaves_out_the_excluded_letters_only():
    for ctl, step, layout, banks, tau in _snake_steps([0, 20]):
        whole = _whole(layout, banks)
        screen = layout.screen
        tau_s = np.asarray(tau) / step.terms.tau
        keep = screen.positions(ctl.last.mode)
        bad = screen.excluded(banks, tau_s, keep=keep)
        test = layout.kinematic_test(banks, exclude=screen.excluder(banks, tau_s, keep=keep))
        kept = (test.feasible | ~test.decided).nonzero()[0]
        test.resolve(kept)
        letters = [[o[0] for o in opts] for opts in layout.options]
        has_bad = np.array([any(bad[i][letters[i].index(ch)] for i, ch in enumerate(m)) for m in layout.modes])
        # every feasible mode without an excluded letter is kept, with the whole test's decision
        assert np.array_equal(test.feasible, whole & ~has_bad)
        assert has_bad.any() and (whole & ~has_bad).sum() < whole.sum()


def test_screened_prefix_search_reuses_its_prunes_only_when_they_are_proved_again():
    """The prefix search of a screened step keeps its prunes; at the next state with the same
    screen each is proved again by its old basis (``certified_slack``), and when one is not
    (bases spoiled here) the search runs again: either way the same candidates."""
    steps = list(_snake_steps([10, 20]))
    for ctl, step, layout, banks, tau in steps:
        screen = layout.screen
        tau_s = np.asarray(tau) / step.terms.tau
        exclude = screen.excluder(banks, tau_s, keep=screen.positions(ctl.last.mode))
        pruning = layout._prefix
        first = layout.kinematic_test(banks, exclude=exclude)
        key, record, leaves = pruning._screened
        assert key == exclude.key and record
        again = layout.kinematic_test(banks, exclude=exclude)  # reused: the same record object
        assert pruning._screened[1] is record
        for rows, bases in record:
            bases[:] = 0  # a basis of one row repeated: singular, no certificate
        third = layout.kinematic_test(banks, exclude=exclude)  # searched again
        assert pruning._screened[1] is not record
        for test in (again, third):
            assert np.array_equal(test.feasible, first.feasible) and np.array_equal(test.decided, first.decided)


def test_few_pending_candidates_take_the_definitions_lp_with_the_same_decisions():
    """Near rest (the snake's steps 1–8) fewer than ``SMALL_LEVEL`` undecided candidates go straight
    to the definition's LP (``KinematicTest.resolve``): resolved one at a time they get the
    decisions of the whole test's resolve (all at once: the unit-box solves first) and of
    ``acceleration_feasible`` on the step's system in user units."""
    from contactmodes.modes.enumeration import SMALL_LEVEL, acceleration_feasible

    routes = 0
    for _, step, layout, banks, _ in _snake_steps([1, 4, 8]):
        together = layout.kinematic_test(banks)
        pend = together.pending()
        assert pend.size >= SMALL_LEVEL  # the unit-box route is taken for these
        want = together.resolve(pend)
        alone = layout.kinematic_test(banks)
        got = np.array([alone.resolve([i])[0] for i in pend.tolist()])
        assert np.array_equal(got, want)
        oracle = [acceleration_feasible(step.system, layout.modes[i]) for i in pend.tolist()]
        assert np.array_equal(want, oracle)
        routes += pend.size
    assert routes
