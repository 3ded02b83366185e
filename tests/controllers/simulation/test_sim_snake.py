"""The snake wedged in a chimney (``examples/snake/snake_chimney.toml``, six contacts) on MuJoCo.

The file lives in its own folder: the tests that analyse every ``examples/*.toml`` in full would
take about 100 s more with its 170 feasible modes; ``test_the_file_loads_and_is_valid`` checks it
here.

Goal criterion (docs/examples.md): under the generic controller (``--controller control``: the
file's objective, modes ``["FFFFFF"]``, box ±0.5 N·m) every contact sticks on MuJoCo at every
control step and no contact point moves more than 10 µm along its wall over the run; without
torque the snake falls. Independent references: the toolkit's torque domain of ``FFFFFF``
(``contactmodes.analyze``) contains the applied torque and not ``τ = 0``, and the unheld snake
falls as a free body, ``y(t) = −g t²/2`` (its contacts separate at once: two walls that only push
cannot hold it up without friction loads).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")

import contactmodes as cm  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import build_plant  # noqa: E402
from controllers.simulation.modes import ModeThresholds  # noqa: E402
from controllers.simulation.registry import file_limits, make_controller  # noqa: E402

pytest.importorskip("controllers.generic")

ROOT = Path(__file__).resolve().parents[3]
SNAKE = ROOT / "examples" / "snake" / "snake_chimney.toml"
HOLD_DRIFT_M = 1e-5
G = 9.81


def _run(text: str, duration: float):
    loaded = load_system_file(SNAKE, lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    choice = make_controller(text, loaded, velocity_tol=ModeThresholds().slip_tol(plant))
    return simulate(plant, loaded.q, loaded.qdot, choice.controller, duration, 100.0)


def test_the_generic_controller_holds_the_snake_in_the_chimney():
    run = _run("control", 0.3)
    assert set(run.modes) == {"FFFFFF"}
    drift = np.abs(np.einsum("kij,ij->ki", run.position[1:] - run.position[:1], run.plant.tangents)).max()
    assert drift < HOLD_DRIFT_M, drift
    T = cm.analyze(SNAKE, modes=["FFFFFF"]).modes["FFFFFF"]
    assert all(T.contains(tau) for tau in run.torque)
    assert not T.contains(np.zeros(4))


def test_the_file_loads_and_is_valid():
    loaded = load_system_file(SNAKE)  # every contact touches: no lifted contacts needed
    assert loaded.mechanism.contact_names == ("tail", "joint1", "joint2", "joint3", "joint4", "head")
    assert loaded.system.M[1, 1] == pytest.approx(5 * 0.1)  # total mass: five links of 0.1 kg
    assert np.allclose(loaded.system.mu, 0.5)
    pytest.importorskip("jsonschema")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    from contactmodes.schemas import validate

    validate(tomllib.loads(SNAKE.read_text()), "contactmodes.system/1")


def test_without_torque_the_snake_falls_freely():
    run = _run("zero", 0.3)
    assert all(m == "SSSSSS" for m in run.modes[1:])
    t_end = run.times[-1] + run.control_dt
    fall = run.q[0, 1] - run.q[-1, 1]
    assert fall == pytest.approx(G * t_end ** 2 / 2, rel=0.05)
