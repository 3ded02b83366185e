"""``contactmodes simulate --goal COORD=VALUE[:TOL] [--brake T_D]`` (controllers.simulation.cli):
the command line's goal is the ``GoalSwitch`` a script composes by hand (the quadruped example,
``examples/quadruped_selfright.py``: the same trajectory to the last bit and the same first time the
goal is reached), its ``goal`` entry validates against the schema, and bad goals are one-line
errors naming the option."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("yourdfpy")

from contactmodes.cli import main  # noqa: E402
from contactmodes.schemas import validate  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402
from controllers.simulation.goal import GoalSwitch, goal_controllers  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import build_plant  # noqa: E402
from controllers.simulation.modes import ModeThresholds  # noqa: E402
from controllers.simulation.registry import file_limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
QUADRUPED = str(ROOT / "examples" / "quadruped" / "quadruped.toml")
BRACE = str(ROOT / "examples" / "two_link_brace.toml")
UPRIGHT = math.radians(10.0)
T_D = math.sqrt(0.25 / 9.81)  # the example's braking time (docs/examples.md)


def _by_hand(duration: float):
    """The example's composition: two generic controllers and a ``GoalSwitch`` built in Python."""
    loaded = load_system_file(QUADRUPED, lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    up, down, index, drive_up = goal_controllers(loaded, ModeThresholds().slip_tol(plant))
    switch = GoalSwitch(up, down, index, 0.0, UPRIGHT, T_D, drive_up=drive_up)
    return simulate(plant, loaded.q, loaded.qdot, switch, duration, 100.0), switch, index


def test_goal_on_the_command_line_is_the_scripted_goal_switch(capsys):
    run, switch, index = _by_hand(1.0)
    assert main(["simulate", QUADRUPED, "--controller", "control", "--goal", f"theta=0:{UPRIGHT!r}",
                 "--brake", repr(T_D), "--duration", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    theta = np.array(doc["q"]["theta"])
    assert np.array_equal(theta, run.q[:len(theta), index])
    assert switch.reached_at is not None
    assert doc["goal"] == {"coordinate": "theta", "value": 0.0, "tolerance": UPRIGHT, "brake_s": T_D,
                           "reached_s": float(run.times[switch.reached_at])}


def test_goal_defaults_tolerance_and_brake_from_the_system(capsys):
    """Without ``:TOL`` and ``--brake``: 0.1 rad for an angle and the system's characteristic time."""
    loaded = load_system_file(QUADRUPED, lifted_contacts=True)
    assert main(["simulate", QUADRUPED, "--controller", "control", "--goal", "theta=0", "--duration", "0.05",
                 "--json"]) == 0
    goal = json.loads(capsys.readouterr().out)["goal"]
    assert goal["tolerance"] == 0.1 and goal["brake_s"] == loaded.system.scales.time


@pytest.mark.parametrize("argv, start", [
    (["--controller", "zero", "--goal", "theta=0"], "--goal: needs --controller control"),
    (["--controller", "control", "--goal", "phi=0"], "--goal: unknown coordinate 'phi'"),
    (["--controller", "control", "--goal", "x=0"], "--goal: the file's objective drives qdd.theta"),
    (["--controller", "control", "--goal", "theta=0:-1"], "--goal: theta: the tolerance must be"),
    (["--controller", "control", "--goal", "theta"], "--goal: expected COORD=VALUE[:TOL]"),
    (["--controller", "control", "--goal", "theta=0", "--brake", "-1"], "--brake: must be"),
    (["--controller", "control", "--brake", "0.2"], "--brake: only with --goal"),
])
def test_bad_goals_are_one_line_errors(capsys, argv, start):
    assert main(["simulate", QUADRUPED, *argv, "--duration", "0.05"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert captured.out == "" and len(err) == 1 and err[0].startswith(f"contactmodes: error: {start}"), err
