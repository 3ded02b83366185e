"""The generic controller's answers at every step of recorded MuJoCo closed loops, bit for bit.

``tests/data/generic_steps/*.json`` were written by ``tests/_support/record_generic_steps.py`` on
the code before issue 24's step-time work (item 1): the snake in its chimney (six contacts), the
quadruped's goal switch (two controllers) and the generic controller on RHex's system file. Fresh
controllers, built as the closed loops built them, are called at the recorded states in the
recorded order (they keep layouts and warm starts across calls) and must give the recorded torque,
mode, status, predicted value and number of feasible modes at every call. A screened step
(``controllers.generic.search``, *Screened steps*: the snake's) counts only the modes its screen
kept, so there the number is at most the recorded one; with ``screen=False`` it is the recorded
one too. No MuJoCo is needed.

The recordings predate the margin (``contactmodes.control.margin``): they are the supremum points,
which the controllers return with ``margin = 0`` (no recorded answer was nudged off one). With
their default margins (``test_replay_with_the_margin``) the controllers move the recorded torques
by at most the margin — RHex's file 0.034 N·m at most (margin 0.048, 5 of 50 calls moved), the
quadruped's 0.013 (0.052; 3 of 200), the snake's none (every answer on its limits' corners) —
and keep every recorded mode, status and supremum.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests._support import record_generic_steps as rec
from tests._support.control_oracle import guaranteed_mode
from tests._support.oracle import all_modes, kinematically_ok

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _settled_answer(got: dict, want: dict, where: str) -> None:
    """A step whose candidates were settled without the slow path (``OptimalResult.settled``)
    against the slow path's recorded answer: the same mode and status, the same value to 1e-9
    (relative), the same torque to 1e-9 (relative to the largest component; the kept torque
    is the bound LP's maximizer, the recorded one the projected ``K``'s), at most the recorded
    number of feasible modes (the slow path decided every pending mode; a settled step only
    those it needed)."""
    assert (got["mode4"], got["status"]) == (want["mode4"], want["status"]), where
    assert got["n_modes"] <= want["n_modes"], where
    g, w = float.fromhex(got["value"]), float.fromhex(want["value"])
    assert abs(g - w) <= 1e-9 * max(1.0, abs(w)), (where, g, w)
    tg, tw = rec.floats(got["tau"]), rec.floats(want["tau"])
    assert np.abs(tg - tw).max() <= 1e-9 * max(1.0, np.abs(tw).max()), (where, tg, tw)


def _replay(name: str, screen: bool = True, certificates: bool = True) -> int:
    """Replay ``name``; returns the number of steps settled without the slow path."""
    doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system(name)
    built = rec.controllers(name, loaded, float.fromhex(doc["velocity_tol"]))
    assert set(built["inner"]) == set(doc["calls"])
    n_settled = 0
    for key, calls in doc["calls"].items():
        controller = built["inner"][key]
        controller.screen = screen
        controller.margin = 0.0  # recorded before the margin: the supremum points (none was nudged)
        assert calls, key
        for i, call in enumerate(calls):
            q, qdot = rec.state(call)
            tau = controller(q, qdot)
            got = rec.answer(controller, tau)
            want = {k: call[k] for k in got}
            where = f"{name} {key} call {i}"
            assert certificates or not controller.last.settled, where
            if controller.last.settled:
                n_settled += 1
                _settled_answer(got, want, where)
                continue
            if controller.last.screened:
                assert got["n_modes"] <= want["n_modes"], where
                got["n_modes"] = want["n_modes"]
            assert got == want, f"{where}: {got} != {want} ({controller.errors})"
    return n_settled


@pytest.mark.parametrize("name, settled", [("quadruped", 2), ("rhex", 5), ("snake", 0)])
def test_replay(name, settled):
    """(The snake's replay took about 15 s before its SVD fallbacks were certified away, 3–5 s
    now, about 1 s screened.) The steps that went through the slow path when recorded (the
    quadruped's first and its goal switch, RHex's first six but one) are settled by the
    certificates now, to the slow path's answers (``_settled_answer``)."""
    assert _replay(name) == settled


@pytest.mark.parametrize("name", ["quadruped", "rhex"])
def test_replay_without_certificates(name, monkeypatch):
    """With the certificates off, the slow path runs where it ran when recorded: every answer
    bit for bit — the certificates and the tie rule are the only change."""
    import controllers.generic.search as search

    monkeypatch.setattr(search, "settle", lambda *args, **kwargs: None)
    _replay(name, certificates=False)


def test_replay_of_the_snake_unscreened():
    """The whole search at every step: every answer as recorded, the number of modes included."""
    _replay("snake", screen=False)


@pytest.mark.parametrize("name, moved", [("quadruped", 3), ("rhex", 5), ("snake", 0)])
def test_replay_with_the_margin(name, moved):
    """The controllers with their default margins at the recorded states: the recorded mode and
    status (where a mode flips, a tie: the oracle finds the new mode guaranteed at the new torque),
    the recorded value as the supremum (``closure_value``), the value at the torque at most that,
    and the torque within the margin of the recorded one (in the margin's metric; module doc)."""
    doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system(name)
    built = rec.controllers(name, loaded, float.fromhex(doc["velocity_tol"]))
    n_moved = 0
    for key, calls in doc["calls"].items():
        controller = built["inner"][key]
        assert controller.margin == pytest.approx(1e-3 * loaded.system.scales.torque, rel=1e-12)
        for i, call in enumerate(calls):
            q, qdot = rec.state(call)
            tau = controller(q, qdot)
            res, where = controller.last, f"{name} {key} call {i}"
            assert res.status == call["status"], where
            if res.mode4 != call["mode4"]:
                step = controller.step_model(q, qdot)
                kinematic = [m for m in all_modes(step.system.k) if kinematically_ok(step.system, m)]
                assert guaranteed_mode(step.system, tau, kinematic) == res.mode, where
            want = rec.floats(call["tau"])
            dist = float(np.linalg.norm((tau - want) * controller.lengths))
            assert dist <= controller.margin * (1 + 1e-9) + 1e-9 * max(1.0, float(np.abs(want).max())), where
            n_moved += dist > 1e-9 * max(1.0, float(np.abs(want).max()))
            if call["value"] is not None:
                v = float.fromhex(call["value"])
                sign = controller.objective.sign
                assert res.closure_value == pytest.approx(v, abs=1e-9 * max(1.0, abs(v))), where
                assert sign * res.value <= sign * res.closure_value + 1e-9 * max(1.0, abs(v)), where
    assert (n_moved > 0) == (moved > 0), n_moved  # the count itself may differ by a step on another machine


def test_records_cover_the_runs():
    """Each record has the run's number of control steps and states of the right size."""
    for name, duration in rec.RUNS.items():
        doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        n_q = rec.loaded_system(name).system.n_q
        calls = [c for v in doc["calls"].values() for c in v]
        assert len(calls) == round(duration * doc["rate_hz"])
        assert all(len(c["q"]) == len(c["qdot"]) == n_q for c in calls)
        assert all(c["status"] != "error" for c in calls)
        assert math.isfinite(float.fromhex(doc["velocity_tol"]))
