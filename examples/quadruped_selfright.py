"""A quadruped on its back rolls itself upright on MuJoCo under the generic controller.

``examples/quadruped/quadruped.toml`` (with ``quadruped.urdf`` beside it, read in the robot's
frontal plane) asks the generic controller to maximize the body's roll acceleration ``qdd.theta``. A fixed
objective knows no goal, so this script drives the robot with
``controllers.simulation.goal.GoalSwitch``: the file's objective until the roll angle is first
within 10° of upright, then, at every control step, the generic controller maximizing or
minimizing ``qdd.theta`` by the sign of ``−e − T_d θ̇`` (``e`` the wrapped roll error). The
braking time ``T_d = √(l/g) = 0.16 s`` is the time scale of a leg-length pendulum (``l = 0.25 m``).

Prints when the goal was first reached, the roll angle and rate at the end and the last modes;
``--fixed`` runs the file's objective alone for comparison (the robot rolls past upright and on).
Usage::

    python examples/quadruped_selfright.py [--duration 2] [--fixed] [--plot PNG] [--animate GIF]

Needs the ``sim`` extra (MuJoCo: ``pip install 'contactmodes[sim]'``), and ``plot`` for pictures.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from contactmodes.system_file.loader import load_system_file
from controllers.simulation.goal import GoalSwitch, goal_controllers
from controllers.simulation.loop import SimulationRun, simulate
from controllers.simulation.model import build_plant
from controllers.simulation.modes import ModeThresholds
from controllers.simulation.registry import file_limits

QUADRUPED = Path(__file__).resolve().parent / "quadruped" / "quadruped.toml"
GOAL_TOLERANCE = math.radians(10.0)  # "upright": the roll angle within 10 deg of 0 (mod 360 deg)
LEG = 0.25  # m, the legs' length (quadruped.urdf)
T_D = math.sqrt(LEG / 9.81)  # s, braking time of the hold phase: a leg-length pendulum's time scale


def run(duration: float = 2.0, fixed: bool = False, rate: float = 100.0,
        path: Path = QUADRUPED) -> tuple[SimulationRun, GoalSwitch | None, int]:
    """Simulate the quadruped; returns the run, the ``GoalSwitch`` (``None`` with ``fixed``) and
    the index of ``theta`` in ``q``."""
    loaded = load_system_file(path, lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    up, down, index, drive_up = goal_controllers(loaded, ModeThresholds().slip_tol(plant))
    switch = None if fixed else GoalSwitch(up, down, index, 0.0, GOAL_TOLERANCE, T_D, drive_up=drive_up)
    controller = (up if drive_up else down) if fixed else switch
    return simulate(plant, loaded.q, loaded.qdot, controller, duration, rate), switch, index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds (default 2)")
    parser.add_argument("--fixed", action="store_true", help="the file's objective alone, without the goal")
    parser.add_argument("--plot", metavar="PNG", help="write q(t), the torques and the modes")
    parser.add_argument("--animate", metavar="GIF", help="write an animation of the robot")
    args = parser.parse_args()
    result, switch, i = run(args.duration, args.fixed)
    theta = np.degrees([math.remainder(v, 2 * math.pi) for v in result.q[:, i]])
    if switch is not None:
        reached = "never" if switch.reached_at is None else f"at t = {result.times[switch.reached_at]:.2f} s"
        print(f"goal (roll within 10 deg of upright) first reached {reached}")
    print(f"roll angle at the end {theta[-1]:+.2f} deg (mod 360), roll rate {result.qdot[-1, i]:+.3f} rad/s, "
          f"turned {math.degrees(result.q[-1, i] - result.q[0, i]):+.0f} deg in all; "
          f"last modes {', '.join(result.modes[-3:])} ({', '.join(result.plant.contacts)})")
    title = f"quadruped, {'maximize qdd.theta' if args.fixed else 'GoalSwitch to upright'}"
    if args.plot:
        from controllers.simulation.plots import plot_run

        plot_run(result, args.plot, title)
    if args.animate:
        from controllers.simulation.plots import animate

        animate(result, args.animate, title)


if __name__ == "__main__":
    main()
