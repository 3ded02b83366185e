"""The quadruped of ``examples/quadruped/quadruped.toml`` (URDF, frontal plane) rights itself on
MuJoCo.

Goal criterion (docs/examples.md): starting on its back (roll angle 180°), the roll angle is first
within 10° of upright (0 mod 360°) before t = 1 s, stays within 10° over the last 0.5 s of a 2 s
run, and the robot then rests on its belly: both bottom edges of the body within 5 mm of the
ground. The quantities are read from MuJoCo's state and the body's geometry of the URDF (the
edges at ``(±0.10, −0.05)`` m in the body frame), not from the controller; along the whole run no
body edge sinks more than 2 mm into the floor.

``controllers.simulation.goal.GoalSwitch`` is also tested on its own with stub controllers.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("yourdfpy")

from contactmodes.errors import ContactModelError  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402
from controllers.simulation.goal import GoalSwitch, goal_controllers  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import build_plant  # noqa: E402
from controllers.simulation.modes import ModeThresholds  # noqa: E402
from controllers.simulation.registry import file_limits  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
QUADRUPED = ROOT / "examples" / "quadruped" / "quadruped.toml"
UPRIGHT = math.radians(10.0)
T_D = math.sqrt(0.25 / 9.81)  # the example's braking time: a leg-length pendulum (docs/examples.md)
HALF_WIDTH, HALF_HEIGHT = 0.10, 0.05  # m, the body's cross-section (quadruped.urdf)


def _run(duration: float, fixed: bool = False):
    loaded = load_system_file(QUADRUPED, lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    up, down, i, drive_up = goal_controllers(loaded, ModeThresholds().slip_tol(plant))
    assert loaded.mechanism.coordinates[i] == "theta" and drive_up  # the file maximizes qdd.theta
    controller = up if fixed else GoalSwitch(up, down, i, 0.0, UPRIGHT, T_D)
    return simulate(plant, loaded.q, loaded.qdot, controller, duration, 100.0), i


def _edge_heights(q: np.ndarray) -> np.ndarray:
    """``(N, 4)`` heights (m) of the body's edges: bottom left/right, top left/right."""
    y, th = q[:, 1], q[:, 2]
    out = [y + bx * np.sin(th) + by * np.cos(th)
           for bx, by in ((HALF_WIDTH, -HALF_HEIGHT), (-HALF_WIDTH, -HALF_HEIGHT),
                          (HALF_WIDTH, HALF_HEIGHT), (-HALF_WIDTH, HALF_HEIGHT))]
    return np.stack(out, axis=1)


def test_the_quadruped_rolls_upright_and_rests_on_its_belly():
    run, i = _run(2.0)
    roll = np.array([math.remainder(v, 2 * math.pi) for v in run.q[:, i]])
    t = np.r_[run.times, run.times[-1] + run.control_dt]
    assert abs(abs(roll[0]) - math.pi) < 1e-9  # on its back
    first = int(np.argmax(np.abs(roll) <= UPRIGHT))
    assert abs(roll[first]) <= UPRIGHT and t[first] < 1.0
    assert np.all(np.abs(roll[t >= 1.5]) <= UPRIGHT)
    edges = _edge_heights(run.q)
    assert np.all(np.abs(edges[-1, :2]) < 5e-3), edges[-1]  # both bottom edges on the ground
    assert edges.min() > -2e-3  # never through the floor


@pytest.mark.slow
def test_without_a_goal_the_objective_rolls_it_past_upright():
    """The file's objective alone (maximize qdd.theta at every step) does not stop at upright."""
    run, i = _run(2.0, fixed=True)
    assert run.q[-1, i] - run.q[0, i] > math.pi + UPRIGHT


class _Stub:
    def __init__(self, value: float) -> None:
        self.value, self.calls = value, 0
        self.predicted_mode = f"m{value:g}"
        self.predicted_qdd = None

    def __call__(self, q, qdot):
        self.calls += 1
        return np.array([self.value])


def test_goal_switch_drives_then_holds_by_the_pd_sign():
    up, down = _Stub(1.0), _Stub(-1.0)
    g = GoalSwitch(up, down, 0, 0.0, math.radians(10), 0.5)
    assert g(np.array([math.pi]), np.array([0.0]))[0] == 1.0 and g.phase == ["drive"]
    assert g.predicted_mode == "m1"
    assert g(np.array([2 * math.pi - 0.5]), np.array([3.0]))[0] == 1.0  # 28.6 deg short: still driving
    # within 10 deg (5.7 deg short), moving at 3 rad/s: -e - T_d qdot = 0.1 - 1.5 < 0 -> brake
    assert g(np.array([2 * math.pi - 0.1]), np.array([3.0]))[0] == -1.0 and g.reached_at == 2
    assert g.predicted_mode == "m-1"
    # 0.3 rad past, at rest: -e = -0.3 < 0 -> down; 0.3 rad short (hold phase continues) -> up
    assert g(np.array([0.3]), np.array([0.0]))[0] == -1.0
    assert g(np.array([-0.3]), np.array([0.0]))[0] == 1.0
    assert g.phase == ["drive", "drive", "hold", "hold", "hold"]
    assert g.error(4 * math.pi + 0.2) == pytest.approx(0.2)
    lin = GoalSwitch(up, down, 0, 1.0, 0.1, 0.0, angle=False, drive_up=False)
    assert lin(np.array([5.0]), np.array([0.0]))[0] == -1.0 and lin.error(5.0) == 4.0
    with pytest.raises(ContactModelError, match="tolerance"):
        GoalSwitch(up, down, 0, 0.0, 0.0, 0.1)


def test_the_file_is_a_valid_system_file():
    """``tests/test_schemas.py`` validates ``examples/*.toml``; this file lives in its own folder
    (``analyze`` refuses it: two contacts are lifted at its state)."""
    pytest.importorskip("jsonschema")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    from contactmodes.schemas import validate

    validate(tomllib.loads(QUADRUPED.read_text()), "contactmodes.system/1")


def test_goal_controllers_need_a_single_acceleration_objective(tmp_path):
    text = QUADRUPED.read_text().replace('maximize = "qdd.theta"', 'maximize = "qdd.theta + tau.fl"')
    urdf = (QUADRUPED.parent / "quadruped.urdf").as_posix()
    text = text.replace('urdf = "quadruped.urdf"', f'urdf = "{urdf}"')
    path = tmp_path / "q.toml"
    path.write_text(text)
    with pytest.raises(ContactModelError, match="one coordinate's acceleration"):
        goal_controllers(load_system_file(path, lifted_contacts=True))
