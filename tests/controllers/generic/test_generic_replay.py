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
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests._support import record_generic_steps as rec

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _replay(name: str, screen: bool = True) -> None:
    doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system(name)
    built = rec.controllers(name, loaded, float.fromhex(doc["velocity_tol"]))
    assert set(built["inner"]) == set(doc["calls"])
    for key, calls in doc["calls"].items():
        controller = built["inner"][key]
        controller.screen = screen
        assert calls, key
        for i, call in enumerate(calls):
            q = np.array([float.fromhex(x) for x in call["q"]])
            qdot = np.array([float.fromhex(x) for x in call["qdot"]])
            tau = controller(q, qdot)
            got = rec.answer(controller, tau)
            want = {k: call[k] for k in got}
            if controller.last.screened:
                assert got["n_modes"] <= want["n_modes"], f"{name} {key} call {i}"
                got["n_modes"] = want["n_modes"]
            assert got == want, f"{name} {key} call {i}: {got} != {want} ({controller.errors})"


@pytest.mark.parametrize("name", ["quadruped", "rhex", "snake"])
def test_replay(name):
    """(The snake's replay took about 15 s before its SVD fallbacks were certified away, 3–5 s
    now, about 1 s screened.)"""
    _replay(name)


def test_replay_of_the_snake_unscreened():
    """The whole search at every step: every answer as recorded, the number of modes included."""
    _replay("snake", screen=False)


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
