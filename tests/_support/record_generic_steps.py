"""Record every step of short MuJoCo closed loops of the generic controller, for replay without MuJoCo.

The closed loops of ``benchmarks/bench_mujoco_examples.py`` (issue 24's step-time targets):
``snake`` (``examples/snake/snake_chimney.toml`` under its ``[control]`` controller, six contacts),
``quadruped`` (``examples/quadruped/quadruped.toml`` under the goal switch of its two generic
controllers) and ``rhex`` (the generic controller maximizing ``qdd.theta`` on
``examples/rhex_flip_start.toml``). Per generic controller (``"main"``; ``"up"``/``"down"`` for
the quadruped's two) and per call: the state given to it (``q``, ``qdot``) and its answer — the
torque, the chosen mode over all contacts (``mode4``), the status, the predicted objective value,
the number of feasible modes — every float as ``float.hex`` (bit for bit). Written on the code
before the step-time work of issue 24 (item 1); ``tests/controllers/generic/test_generic_replay.py``
builds fresh controllers with ``controllers`` (below) and requires the same answers at every
recorded state, in the recorded order (the controllers keep warm starts and layouts across
calls). The plant's slip threshold, which the controllers take as ``normal_velocity_tol``, is
recorded too, so the replay needs no MuJoCo. Writes only where told::

    python tests/_support/record_generic_steps.py --out tests/data/generic_steps
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RATE = 100.0
#: the recorded closed loops: name -> simulated seconds (the benchmark's durations)
RUNS = {"snake": 0.3, "quadruped": 2.0, "rhex": 0.5}
#: the RHex motors' box and torque-speed line (``benchmarks/bench_mujoco_examples.py``'s copy)
RHEX_TAU_LIMIT = 10.25
RHEX_OMEGA_NOLOAD = 43.1


def loaded_system(name: str):
    """The ``LoadedSystem`` of the run ``name`` (as the benchmark loads it)."""
    from contactmodes.system_file.loader import load_system_file

    if name == "snake":
        return load_system_file(EXAMPLES / "snake" / "snake_chimney.toml", lifted_contacts=True)
    if name == "quadruped":
        return load_system_file(EXAMPLES / "quadruped" / "quadruped.toml", lifted_contacts=True)
    if name == "rhex":
        return load_system_file(EXAMPLES / "rhex_flip_start.toml")
    raise ValueError(f"unknown run {name!r}")


def controllers(name: str, loaded, velocity_tol: float) -> dict:
    """The generic controllers of the run ``name`` as the benchmark builds them, without MuJoCo.

    Parameters
    ----------
    name : str
        One of ``RUNS``.
    loaded : LoadedSystem
        ``loaded_system(name)``.
    velocity_tol : float
        The plant's slip threshold (``ModeThresholds().slip_tol(plant)``, recorded).

    Returns
    -------
    dict
        ``{"loop": callable, "inner": {key: UnambiguousOptimalController}, "wrappers": {key:
        GenericController}}``: ``loop`` the controller the closed loop calls, ``inner`` the generic
        controllers inside it, ``wrappers`` the objects holding them (``.inner``).
    """
    if name == "snake":
        from controllers.simulation.registry import make_controller

        loop = make_controller("control", loaded, velocity_tol=velocity_tol).controller
        gc = loop  # LimitedController(GenericController(UnambiguousOptimalController))
        while not hasattr(gc.inner, "engine"):
            gc = gc.inner
        return {"loop": loop, "inner": {"main": gc.inner}, "wrappers": {"main": gc}}
    if name == "quadruped":
        from controllers.simulation.goal import GoalSwitch, goal_controllers

        up, down, i, drive_up = goal_controllers(loaded, velocity_tol)
        switch = GoalSwitch(up, down, i, 0.0, math.radians(10.0), math.sqrt(0.25 / 9.81), drive_up=drive_up)
        return {"loop": switch, "inner": {"up": up.inner, "down": down.inner}, "wrappers": {"up": up, "down": down}}
    if name == "rhex":
        from contactmodes.control.objective import LinearObjective
        from controllers.generic import TorqueBox, UnambiguousOptimalController
        from controllers.simulation.registry import GenericController

        s = loaded.system
        theta = list(s.coordinates).index("theta")
        objective = LinearObjective(np.eye(s.n_q)[theta], np.zeros(2 * s.k), np.zeros(s.n_tau), "maximize",
                                    "qdd.theta")
        limits = TorqueBox(-RHEX_TAU_LIMIT, RHEX_TAU_LIMIT, tau_max=RHEX_TAU_LIMIT, omega_0=RHEX_OMEGA_NOLOAD,
                           n_tau=s.n_tau)
        inner = UnambiguousOptimalController(loaded, objective, limits, normal_velocity_tol=velocity_tol)
        gc = GenericController(inner, loaded)
        return {"loop": gc, "inner": {"main": inner}, "wrappers": {"main": gc}}
    raise ValueError(f"unknown run {name!r}")


def answer(controller, tau) -> dict:
    """One call's answer (module doc) from the controller's ``last`` result and the torque."""
    last = controller.last
    hexf = lambda v: None if v is None or not math.isfinite(v) else float(v).hex()  # noqa: E731
    return {"tau": [float(x).hex() for x in np.asarray(tau, dtype=float)], "mode4": last.mode4,
            "status": last.status, "value": hexf(last.value), "n_modes": int(last.n_modes)}


def floats(hexes) -> np.ndarray:
    """The floats of a recorded list of ``float.hex`` strings, bit for bit."""
    return np.array([float.fromhex(x) for x in hexes])


def state(call: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(q, qdot)`` of one recorded call (the inverse of ``_Recorder``'s writing)."""
    return floats(call["q"]), floats(call["qdot"])


class _Recorder:
    """Forwards calls to a generic controller and records each state and answer."""

    def __init__(self, inner, calls: list) -> None:
        self._inner, self._calls = inner, calls

    def __getattr__(self, attr):
        return getattr(self._inner, attr)

    def __call__(self, q, qdot):
        tau = self._inner(q, qdot)
        self._calls.append({"q": [float(x).hex() for x in np.asarray(q, dtype=float)],
                            "qdot": [float(x).hex() for x in np.asarray(qdot, dtype=float)],
                            **answer(self._inner, tau)})
        return tau


def record(name: str) -> dict:
    """The JSON-ready record of the closed loop ``name`` (module doc)."""
    import mujoco

    from controllers.simulation.loop import simulate
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import file_limits

    loaded = loaded_system(name)
    if name == "rhex":
        box = np.tile([-RHEX_TAU_LIMIT, RHEX_TAU_LIMIT], (loaded.system.n_tau, 1))
    else:
        _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    tol = ModeThresholds().slip_tol(plant)
    built = controllers(name, loaded, tol)
    calls: dict[str, list] = {key: [] for key in built["inner"]}
    for key, wrapper in built["wrappers"].items():
        wrapper.inner = _Recorder(wrapper.inner, calls[key])
    simulate(plant, loaded.q, loaded.qdot, built["loop"], RUNS[name], RATE)
    return {"schema": "contactmodes.test.generic-steps/1", "run": name, "duration": RUNS[name], "rate_hz": RATE,
            "mujoco": mujoco.__version__, "velocity_tol": float(tol).hex(), "calls": calls}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="folder to write the JSON files into")
    ap.add_argument("runs", nargs="*", default=list(RUNS), help=f"runs to record (default all: {', '.join(RUNS)})")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.runs:
        doc = record(name)
        (args.out / f"{name}.json").write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
        print(f"{name}: " + ", ".join(f"{k} {len(v)} calls" for k, v in doc["calls"].items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
