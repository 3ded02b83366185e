"""The slow path's screen of the other modes (``controllers.generic.search._disjoint``): the
modes it certifies not to meet a candidate's ``K = T_c ∩ L`` are modes the exact LP
(``controllers.generic.exact.meets``) says do not meet it, and the slow path's answer with the
screen is the one without it, bit for bit (two computations in one run) — at the slow-path steps
of the recorded RHex and quadruped replays (``tests/data/generic_steps``; their answers as
recorded within the step's conditioning, ``_support.replay_check``); when an LP of the screen's
batch cannot be verified it certifies nothing. The candidate certificates (``controllers.generic.certify``) are switched off
here, so that these steps go through the slow path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import controllers.generic.exact as exact
import controllers.generic.search as search
from polytopes.errors import NumericalError
from _support.replay_check import check_replayed
from tests._support import record_generic_steps as rec

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _answer(got) -> tuple:
    """``slow_margin_point``'s ``(value, point, closure)`` as ``(value, tau, nudged, closure)``."""
    value, point, closure = got
    return value, None if point is None else point.tau, point is not None and point.distance > 0.0, closure


def _same(a, b) -> bool:
    va, ta, na, ca = _answer(a)
    vb, tb, nb, cb = _answer(b)
    same_tau = (ta is None and tb is None) or (ta is not None and tb is not None and np.array_equal(ta, tb))
    return same_tau and na == nb and repr(va) == repr(vb) and repr(ca) == repr(cb)


def _unverifiable(*args, **kwargs):
    raise NumericalError("no verified answer (test)")


@pytest.mark.parametrize("name, key, steps", [("rhex", "main", 4), ("quadruped", "up", 52)])
def test_screen_is_the_exact_meets(name, key, steps, monkeypatch):
    doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system(name)
    controller = rec.controllers(name, loaded, float.fromhex(doc["velocity_tol"]))["inner"][key]
    controller.margin = 0.0  # the recorded answers are the supremum points (no margin then)
    real = exact.slow_margin_point
    seen = {"pairs": 0, "certified": 0, "calls": 0}

    def checked(session, mode, others, lo, hi, counters, task, objective, disjoint=None, margin=0.0, units=None):
        assert disjoint is not None  # the search hands its screen to the slow path

        def screen(K):
            if not seen["calls"]:  # an LP the batch cannot verify: nothing certified
                with monkeypatch.context() as m:
                    m.setattr(search.batchlp, "solve_batch", _unverifiable)
                    assert disjoint(K) == set()
            got = disjoint(K)
            assert got <= set(others)
            for o in others:
                seen["pairs"] += 1
                if o in got:
                    seen["certified"] += 1
                    assert not exact.meets(session, K, o), (mode, o)
            return got

        with_screen = real(session, mode, others, lo, hi, counters, task, objective, disjoint=screen, margin=margin,
                           units=units)
        without = real(session, mode, others, lo, hi, counters, task, objective, margin=margin, units=units)
        assert _same(with_screen, without), (mode, with_screen, without)
        seen["calls"] += 1
        return with_screen

    monkeypatch.setattr(search, "slow_margin_point", checked)
    # the certificates settle these steps' candidates without the slow path (search module doc,
    # *Settled candidates*); without them the slow path runs, as when the steps were recorded
    monkeypatch.setattr(search, "settle", lambda *args, **kwargs: None)
    for call in doc["calls"][key][:steps]:
        q, qdot = rec.state(call)
        tau = controller(q, qdot)
        got = rec.answer(controller, tau)
        check_replayed(controller, q, qdot, got, {k: call[k] for k in got}, f"{name} {key}",
                       n_modes_at_most=controller.last.screened)
    assert seen["calls"] >= 2
    # most of the others do not meet K: the screen must certify a good part of them
    assert seen["certified"] >= seen["pairs"] // 2, seen
