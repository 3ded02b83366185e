"""Scaling happens once on the way out (issue 23): every scaled polytope of an analysis is
converted to the user's units at most once (``AnalysisSession.to_user``), so each user-unit
set is one object with warm LP caches. ``Scaling.polytope_to_user`` is wrapped by a counter that
keeps every argument alive, so that an ``id`` is never reused during a run."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

import contactmodes as cm
from _support.paths import EXAMPLES
from contactmodes.analysis.robust import robust_unambiguous
from contactmodes.errors import InternalError
from contactmodes.model.scaling import Scaling
from contactmodes.system_file.loader import load_system_file
from polytopes import Polytope


@pytest.fixture
def conversions(monkeypatch):
    """A ``Counter`` of ``Scaling.polytope_to_user`` calls per scaled object's ``id`` (the
    objects kept alive in the fixture)."""
    counts: Counter[int] = Counter()
    alive = []
    original = Scaling.polytope_to_user

    def counting(self, P, n_extra=0):
        alive.append(P)
        counts[id(P)] += 1
        return original(self, P, n_extra)

    monkeypatch.setattr(Scaling, "polytope_to_user", counting)
    return counts


def _twice(counts: Counter[int]) -> list[int]:
    return sorted(c for c in counts.values() if c > 1)


def test_rhex_unambiguous_converts_each_scaled_set_once(conversions):
    result = cm.analyze(os.path.join(EXAMPLES, "rhex_flip_start.toml"), unambiguous=True)
    result.to_json()
    result.to_json()  # a second document converts nothing new
    assert conversions, "the analysis converted nothing: the counter is not on the conversion path"
    twice = _twice(conversions)
    assert twice == [], f"{len(twice)} of {len(conversions)} scaled sets converted more than once"
    n = len(conversions)
    # the user-unit sets are the same objects wherever they appear
    for m, u in result.unambiguous.items():
        a = result.modes[m]
        assert u.feasible_set is a.T is a.domain.T
        if a.response.n_w == 0:  # D_c is T_c: one set, one user-unit object
            assert a.D is a.T
    result.unambiguous_for(result.feasible_modes())  # already there: nothing recomputed or converted
    assert len(conversions) == n and _twice(conversions) == []


def test_painleve_unambiguous_and_inconsistent_convert_once(conversions):
    result = cm.analyze(os.path.join(EXAMPLES, "painleve_rod.toml"), unambiguous=True,
                        inconsistency_box=([-5.0], [5.0]))
    result.to_json()
    assert result.inconsistent and _twice(conversions) == []


def test_overlap_sets_are_converted_once_per_pair(conversions):
    result = cm.analyze(os.path.join(EXAMPLES, "two_link_brace.toml"))
    assert result.overlaps
    for key in result.overlaps:
        assert result.overlaps[key] is result.overlaps[key]
    assert result.overlaps == dict(result.overlaps)
    assert _twice(conversions) == []


def test_robust_sets_are_converted_once(conversions):
    system = load_system_file(os.path.join(EXAMPLES, "five_link_climb.toml")).system
    res = robust_unambiguous(system, "FFF")
    assert not res.robust_feasible.is_empty()
    assert conversions and _twice(conversions) == []


def test_user_sets_keep_trailing_variables_and_return_one_object():
    from contactmodes.model.scaling import UserSets

    system = load_system_file(os.path.join(EXAMPLES, "rhex_flip_start.toml")).system
    sc = system.scaling
    n = system.n_tau
    P = Polytope.box(-np.ones(n + 2), np.ones(n + 2))  # over (τ', w1, w2)
    sets = UserSets(sc)
    U = sets(P)
    assert sets(P) is U and len(sets) == 1
    assert U.equals(sc.polytope_to_user(P, 2))
    assert np.allclose(U.bounding_box()[1], np.concatenate([sc.tau, np.ones(2)]))
    with pytest.raises(InternalError, match="not over the"):  # fewer coordinates than torques: our bug, not the user's
        sets(Polytope.box(-np.ones(n - 1), np.ones(n - 1)))
