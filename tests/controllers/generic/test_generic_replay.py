"""The generic controller's answers at every step of recorded MuJoCo closed loops.

``tests/data/generic_steps/*.json`` were written by ``tests/_support/record_generic_steps.py`` on
the code before issue 24's step-time work (item 1): the snake in its chimney (six contacts), the
quadruped's goal switch (two controllers) and the generic controller on RHex's system file. Fresh
controllers, built as the closed loops built them, are called at the recorded states in the
recorded order (they keep layouts and warm starts across calls) and must give the recorded mode,
status and number of feasible modes, and the recorded torque and predicted value within the
tolerance of the step's conditioning, at every call (``_support.replay_check``: the records were
written on one machine, the replay runs on any; a mode that flips must be a tie by the
independent reference at that state). A screened step (``controllers.generic.search``, *Screened
steps*: the snake's) counts only the modes its screen kept, so there the number is at most the
recorded one; with ``screen=False`` it is the recorded one too. No MuJoCo is needed.

The recordings predate the margin (``contactmodes.control.margin``): they are the supremum points,
which the controllers return with ``margin = 0`` (no recorded answer was nudged off one). With
their default margins (``test_replay_with_the_margin``) the controllers move the recorded torques
by at most the margin — RHex's file 0.034 N·m at most (margin 0.048, 5 of 50 calls moved), the
quadruped's 0.013 (0.052; 3 of 200), the snake's none (every answer on its limits' corners) —
and keep every recorded mode, status and supremum (within the step's conditioning).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from _support.replay_check import check_replayed, close, float_rtol, mode_condition
from tests._support import record_generic_steps as rec
from tests._support.control_oracle import guaranteed_mode
from tests._support.oracle import all_modes, kinematically_ok

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


#: a settled step's torque is the bound LP's maximizer, the recorded one the projected ``K``'s:
#: another route to the same optimum, equal to 1e-9 relative (at least; ``check_replayed``)
SETTLED_RTOL = 1e-9


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
            assert not controller.errors, (where, controller.errors)
            settled = bool(controller.last.settled)
            n_settled += settled
            check_replayed(controller, q, qdot, got, want, where, n_modes_at_most=settled or controller.last.screened,
                           rtol_floor=SETTLED_RTOL if settled else 0.0)
    return n_settled


@pytest.mark.parametrize("name, settled", [("quadruped", 2), ("rhex", 5), ("snake", 0)])
def test_replay(name, settled):
    """(The snake's replay took about 15 s before its SVD fallbacks were certified away, 3–5 s
    now, about 1 s screened.) The steps that went through the slow path when recorded (the
    quadruped's first and its goal switch, RHex's first six but one) are settled by the
    certificates now, to the slow path's answers (``SETTLED_RTOL``)."""
    assert _replay(name) == settled


@pytest.mark.parametrize("name", ["quadruped", "rhex"])
def test_replay_without_certificates(name, monkeypatch):
    """With the certificates off, the slow path runs where it ran when recorded: every answer as
    recorded (within the step's conditioning) — the certificates and the tie rule are the only
    change."""
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
                # the supremum is the recorded one within the step's conditioning (module doc)
                rtol = max(1e-9, float_rtol(mode_condition(controller.step_model(q, qdot).scaled_system, res.mode)))
                assert close(res.closure_value, v, rtol), (where, res.closure_value, v, rtol)
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


def test_a_flipped_mode_is_checked_by_the_reference():
    """``check_replayed``'s oracle for a mode that differs from the record: at RHex's second
    recorded state the modes ``LRF`` and ``LFF`` tie (their optima, −0.011012 rad/s², agree to
    5e-15; not the controller's choice, ``LLF``), so a replay choosing one where the record has the
    other passes, with either's value; ``LLF`` against ``LRF`` is no tie, and a different status is
    never one."""
    from _support.replay_check import check_flip

    doc = json.loads((DATA / "rhex.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system("rhex")
    controller = rec.controllers("rhex", loaded, float.fromhex(doc["velocity_tol"]))["inner"]["main"]
    for call in doc["calls"]["main"][:2]:
        q, qdot = rec.state(call)
        controller(q, qdot)
    step = controller.step_model(q, qdot)
    lo, hi = controller.torque_limits(qdot)
    tau = [float(x).hex() for x in 0.5 * (lo + hi)]

    def answer(mode, value, status="optimal"):
        return {"tau": tau, "mode4": step.label(mode), "status": status, "value": float(value).hex(), "n_modes": 32}

    tie = -0.0110123007387
    check_flip(controller, q, qdot, answer("LFF", tie), answer("LRF", tie), "tie")
    with pytest.raises(AssertionError, match="not a tie"):
        check_flip(controller, q, qdot, answer("LLF", 3.4972498218), answer("LRF", tie), "no tie")
    with pytest.raises(AssertionError, match="status"):
        check_flip(controller, q, qdot, answer("LFF", tie), answer("LRF", tie, "task_dropped"), "status")
    with pytest.raises(AssertionError):  # the tie's value, not another
        check_flip(controller, q, qdot, answer("LFF", 0.5), answer("LRF", tie), "value")
