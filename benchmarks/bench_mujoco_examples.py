"""MuJoCo speed of the examples and the generic controller's step time in their closed loops.

Run: ``python benchmarks/bench_mujoco_examples.py [--scale S] [--out FILE]``.

Per example, on its MuJoCo plant (``controllers.simulation.model.build_plant``, ``dt = 5e-4 s``):

* **MuJoCo steps/s**: ``mj_step`` alone, 20000 steps from the file's state at zero control (the
  plant's physics without any controller or bookkeeping);
* **controller step time** (median, p99, max, ms): the wall time of each call of the
  controller over one closed-loop run at 100 Hz (``controllers.simulation.loop.simulate``), the
  first call apart (it compiles the kernels and builds the first structures: ``first``), and the
  run's wall time per simulated second.

The examples and their closed loops (``docs/examples.md``):

* ``brace``: the plant of ``examples/five_link_climb.toml`` under the held disturbance of a
  vertex of its box ``D`` (``x = −0.2, y = −3, θ = 0.25, θ1 = −0.25``), driven by the generic
  controller built from ``examples/two_link_brace.toml`` (the same brace without a disturbance:
  the controller does not take one) with ``minimize = "tau.tau1"``, modes ``["FFF"]``, box
  ``±1 N·m`` and ``v0 = 0.001 m/s`` on its contacts (``docs/simulate.md``: a soft plant's
  sticking contacts creep at µm/s); 1 s;
* ``quadruped``: ``examples/quadruped/quadruped.toml`` (lifted contacts read) under
  ``controllers.simulation.goal.GoalSwitch`` of two generic controllers, as
  ``examples/quadruped_selfright.py``; 2 s;
* ``snake``: ``examples/snake/snake_chimney.toml`` under ``--controller control``; 0.3 s;
* ``rhex``: ``examples/rhex_flip_start.toml`` (the rigid RHex from its system file, massless legs
  floored on the plant) under the generic controller maximizing ``qdd.theta`` within the RHex
  motors' box and torque–speed line (``RHexParams``' defaults ``tau_limit = 10.25 N·m``,
  ``omega_noload = 43.1 rad/s``); 0.5 s. The plant's floored massless legs spin up when unloaded
  (``docs/simulate.md``): the robot is mostly in the air (``SSSS``); the run is a timing case.

``--scale`` multiplies every run's duration (default 1). Numbers depend on the machine and its
load. A table is printed; the JSON document is written to ``--out`` only when given (nothing else
is written).

Measured on the shared 2-core development machine (load average 4.6–4.8 from other work),
MuJoCo 4.0.0, scale 1, controller times in ms (``first`` the first call):

=========  ===========  =====  ======  =======  =======  =====  ============  ==================
example    MuJoCo st/s  steps  median  p99      max      first  wall s/sim s  modes (most steps)
=========  ===========  =====  ======  =======  =======  =====  ============  ==================
brace      195 591      99     6.33    14.77    24.63    37     0.91          FFF 100
quadruped  67 121       199    2.44    24.32    81.76    2941   2.39          SSSSSSLL 47
snake      151 626      29     284.14  1501.13  1681.26  910    49.30         FFFFFF 30
rhex       108 763      49     1.84    323.84   329.74   1535   5.75          SSSS 40
=========  ===========  =====  ======  =======  =======  =====  ============  ==================

Over four runs in one session the numbers moved by up to a factor of 3 with the load (e.g. the
brace's MuJoCo steps/s 164 426–448 162, the snake's median step 134–284 ms): compare within one
run. The first call pays the kernels' compilation (numba) and the first structures. The snake's
steps are slow: all six contacts touch, and every one of its 288 kinematically feasible modes (of
4096) counts for ambiguity; the quadruped and RHex spend most steps with few contacts touching
(lifted contacts leave the step's model).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RAW_STEPS = 20000
RATE = 100.0
# the RHex motors' box and torque-speed line: RHexParams().tau_limit (N m) and .omega_noload (rad/s) of
# controllers.rhex.params, copied so that this benchmark does not import controllers.rhex
RHEX_TAU_LIMIT = 10.25
RHEX_OMEGA_NOLOAD = 43.1


def _stats(ms) -> dict:
    w = np.asarray(ms, dtype=float)
    if w.size == 0:
        return {"steps": 0}
    return {"steps": int(w.size), "median": float(np.median(w)), "p99": float(np.percentile(w, 99)),
            "max": float(w.max())}


class _Timed:
    """A controller whose calls are timed (ms); passes on the predictions the loop reads."""

    def __init__(self, inner) -> None:
        self.inner, self.ms = inner, []

    @property
    def predicted_qdd(self):
        return getattr(self.inner, "predicted_qdd", None)

    @property
    def predicted_mode(self):
        return getattr(self.inner, "predicted_mode", None)

    def __call__(self, q, qdot):
        t0 = time.perf_counter()
        tau = self.inner(q, qdot)
        self.ms.append((time.perf_counter() - t0) * 1e3)
        return tau


def _raw_steps_per_s(plant, q, qdot) -> float:
    import mujoco

    data = mujoco.MjData(plant.model)
    plant.set_state(data, q, qdot)
    mujoco.mj_forward(plant.model, data)
    t0 = time.perf_counter()
    for _ in range(RAW_STEPS):
        mujoco.mj_step(plant.model, data)
    return RAW_STEPS / (time.perf_counter() - t0)


def _brace():
    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import load_system, parse_system
    from controllers.generic import UnambiguousOptimalController
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import GenericController

    climb = load_system(EXAMPLES / "five_link_climb.toml")
    with open(EXAMPLES / "two_link_brace.toml", "rb") as f:
        table = tomllib.load(f)
    for contact in table["contacts"]:  # a soft plant's sticking contacts creep at um/s (docs/simulate.md)
        contact["v0"] = 0.001
    brace = parse_system(table, source=str(EXAMPLES / "two_link_brace.toml"))
    plant = build_plant(climb.mechanism, climb.q, climb.qdot, limits=np.array([[-1.0, 1.0]]))
    s = brace.system
    objective = LinearObjective(np.zeros(s.n_q), np.zeros(2 * s.k), np.ones(1), "minimize", "tau.tau1")
    inner = UnambiguousOptimalController(brace, objective, limits=(np.array([-1.0]), np.array([1.0])), modes=["FFF"],
                                         normal_velocity_tol=ModeThresholds().slip_tol(plant))
    delta = np.array([-0.2, -3.0, 0.25, -0.25])
    return plant, climb, GenericController(inner, brace), 1.0, climb.system.disturbance.E @ delta


def _quadruped():
    from contactmodes.system_file.loader import load_system
    from controllers.simulation.goal import GoalSwitch, goal_controllers
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import file_limits

    loaded = load_system(EXAMPLES / "quadruped" / "quadruped.toml", lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    up, down, i, drive_up = goal_controllers(loaded, ModeThresholds().slip_tol(plant))
    switch = GoalSwitch(up, down, i, 0.0, math.radians(10.0), math.sqrt(0.25 / 9.81), drive_up=drive_up)
    return plant, loaded, switch, 2.0, None


def _snake():
    from contactmodes.system_file.loader import load_system
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import file_limits, make_controller

    loaded = load_system(EXAMPLES / "snake" / "snake_chimney.toml", lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    choice = make_controller("control", loaded, velocity_tol=ModeThresholds().slip_tol(plant))
    return plant, loaded, choice.controller, 0.3, None


def _rhex():
    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import load_system
    from controllers.generic import TorqueBox, UnambiguousOptimalController
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import GenericController

    tau_limit, omega_noload = RHEX_TAU_LIMIT, RHEX_OMEGA_NOLOAD
    loaded = load_system(EXAMPLES / "rhex_flip_start.toml")
    s = loaded.system
    box = np.tile([-tau_limit, tau_limit], (s.n_tau, 1))
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    theta = list(s.coordinates).index("theta")
    objective = LinearObjective(np.eye(s.n_q)[theta], np.zeros(2 * s.k), np.zeros(s.n_tau), "maximize", "qdd.theta")
    limits = TorqueBox(-tau_limit, tau_limit, tau_max=tau_limit, omega_0=omega_noload, n_tau=s.n_tau)
    inner = UnambiguousOptimalController(loaded, objective, limits, normal_velocity_tol=ModeThresholds().slip_tol(plant))
    return plant, loaded, GenericController(inner, loaded), 0.5, None


EXAMPLE_RUNS = {"brace": _brace, "quadruped": _quadruped, "snake": _snake, "rhex": _rhex}


def run(scale: float = 1.0, names=tuple(EXAMPLE_RUNS)) -> dict:
    """Per example: MuJoCo steps/s, the controller's step times and the run's wall time (module doc)."""
    from controllers.simulation.loop import simulate

    out = {}
    for name in names:
        plant, loaded, controller, duration, disturbance = EXAMPLE_RUNS[name]()
        steps_per_s = _raw_steps_per_s(plant, loaded.q, loaded.qdot)
        timed = _Timed(controller)
        t0 = time.perf_counter()
        result = simulate(plant, loaded.q, loaded.qdot, timed, duration * scale, RATE, disturbance=disturbance)
        wall = time.perf_counter() - t0
        simulated = len(result.modes) / RATE
        modes: dict[str, int] = {}
        for m in result.modes:
            modes[m] = modes.get(m, 0) + 1
        out[name] = {"mujoco_steps_per_s": steps_per_s, "controller_ms": _stats(timed.ms[1:]),
                     "first_call_ms": timed.ms[0],
                     "simulated_s": simulated, "wall_s_per_simulated_s": wall / simulated,
                     "modes": dict(sorted(modes.items(), key=lambda kv: -kv[1])[:3])}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every run's duration (default 1)")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON document to this file")
    args = ap.parse_args(argv)
    if not (math.isfinite(args.scale) and args.scale > 0):
        ap.error("--scale: must be a finite number > 0")
    import mujoco

    doc = {"schema": "contactmodes.bench-mujoco-examples/1", "mujoco": mujoco.__version__, "scale": args.scale,
           "dt_s": 5e-4, "rate_hz": RATE, "examples": run(args.scale)}
    print(f"{'example':10s} {'MuJoCo st/s':>12s} {'steps':>6s} {'median':>8s} {'p99':>8s} {'max':>8s} "
          f"{'first':>8s} {'wall s/sim s':>13s}  modes (top 3)")
    for name, r in doc["examples"].items():
        st = r["controller_ms"]
        print(f"{name:10s} {r['mujoco_steps_per_s']:12.0f} {st['steps']:6d} {st['median']:8.2f} {st['p99']:8.2f} "
              f"{st['max']:8.2f} {r['first_call_ms']:8.0f} {r['wall_s_per_simulated_s']:13.2f}  "
              + ", ".join(f"{m} {n}" for m, n in r["modes"].items()))
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
