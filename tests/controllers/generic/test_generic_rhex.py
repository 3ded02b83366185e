"""The RHex max-thrust controller is the generic controller configured for RHex: at every step of
the two reference flips (μ_t = 0.39 and 0.6, the defaults, 1 s at most) it commands the torques,
modes, predictions and statuses recorded from the controller *before* it became the generic one
(``tests/data/flip_steps/``, written by ``tests/_support/record_flip_steps.py`` on that code),
bit for bit; and it is an ``UnambiguousOptimalController``'s base with RHex's objective."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from _support.paths import DATA
from _support.record_flip_steps import FLIPS, record
from controllers.generic.controller import OptimalControllerBase
from controllers.rhex.max_thrust import PITCH_OBJECTIVE, MaxThrustController
from controllers.rhex.rigid_model import PITCH_INDEX


def test_max_thrust_is_the_generic_controller_with_the_pitch_objective():
    assert issubclass(MaxThrustController, OptimalControllerBase)
    assert PITCH_OBJECTIVE.sense == "maximize" and PITCH_OBJECTIVE.qdd.tolist() == np.eye(6)[PITCH_INDEX].tolist()
    assert not PITCH_OBJECTIVE.force.any() and not PITCH_OBJECTIVE.tau.any()


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(FLIPS))
def test_every_step_of_the_reference_flips_is_the_recorded_one(stem):
    stored = json.loads((DATA / "flip_steps" / f"{stem}.json").read_text(encoding="utf-8"))
    now = record(FLIPS[stem])
    assert now["outcome"] == stored["outcome"] and len(now["steps"]) == len(stored["steps"])
    for k, (a, b) in enumerate(zip(now["steps"], stored["steps"])):
        assert (a["t"], a["mode"], a["status"]) == (b["t"], b["mode"], b["status"]), k
        assert a["tau"] == b["tau"], (k, [float.fromhex(x) for x in a["tau"]], [float.fromhex(x) for x in b["tau"]])
        assert a["predicted"] == b["predicted"], k
    assert any(s["status"] == "task_dropped" for s in stored["steps"])  # both statuses are compared
    assert all(s["predicted"] is None or math.isfinite(float.fromhex(s["predicted"])) for s in stored["steps"])
