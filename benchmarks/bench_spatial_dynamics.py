"""One dynamics evaluation of a spatial mechanism (``contactmodes.model.spatial``): ``M``, ``h``,
``J``, ``J̇q̇`` of a robot standing on its feet, against the Pinocchio calls it makes and MuJoCo.

Run: ``python benchmarks/bench_spatial_dynamics.py [--robot solo12] [--repeat 7] [--number 2000]``
(writes nothing; prints a table). Needs the ``spatial`` and ``sim`` extras and
example-robot-data-loaders (dev). The robot stands in its SRDF reference posture ("standing")
with a point contact at each foot frame on the plane under its lowest foot, at a random velocity.

Rows (median over ``--repeat`` runs of ``--number`` calls, µs per call: wall clock and process
time, and the process time's ratio to the sum of the Pinocchio calls):

* ``SpatialMechanism.dynamics``: the whole evaluation — state conversion (quaternion, continuous
  joints, world-frame base velocity), the Pinocchio calls, the coordinate change and the contact
  rows;
* ``dynamics_and_scales``: the same and the characteristic scales;
* ``pinocchio calls``: ``crba``, ``rnea``, ``forwardKinematics``, ``computeJointJacobians``,
  ``updateFramePlacements`` and per contact ``getFrameJacobian`` and
  ``getFrameClassicalAcceleration`` on prepared arrays — the floor of any Python wrapper;
* each of those calls alone (the issue's study measured 2–5 µs per Pinocchio call);
* ``mujoco`` for comparison: ``mj_forward``, ``mj_fullM`` and per contact ``mj_jacSite`` and
  ``mj_jacDot``.

Measured on the 2-core development machine shared with other jobs (load average 10–12 during the
run, so the wall clock counts long waits for a core; the process time is the cost),
``--robot solo12 --repeat 7 --number 2000``, Pinocchio 4.1.0, MuJoCo 4.0.1:

evaluation                        wall µs   cpu µs  x pinocchio (cpu)
---------------------------------------------------------------------
SpatialMechanism.dynamics          171.66    65.38               7.78
dynamics_and_scales                372.03   148.47              17.66
pinocchio calls                     20.40     8.41               1.00
  crba                               3.41     1.38               0.16
  rnea                               5.04     1.86               0.22
  forwardKinematics                  1.21     1.22               0.14
  computeJointJacobians              0.37     0.36               0.04
  updateFramePlacements              0.37     0.37               0.04
  getFrameJacobian                   0.34     0.34               0.04
  getFrameClassicalAcceleration      0.32     0.31               0.04
mujoco (forward, fullM, jacs)       29.04    10.21               1.22

(``getFrameJacobian`` and ``getFrameClassicalAcceleration``: one call; the evaluation makes 4 of
each.) Pinocchio's share is about 8 µs of the 65: the rest is Python — input checks, small NumPy
copies, the 6-column coordinate change and the per-contact rows. The scales add about 80 µs: the
~40 points' positions read one joint at a time from Pinocchio and their pairwise distances (the
speeds are skipped when a bound keeps them below gravity's scale, as here).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from _support.robots import erd_urdf  # noqa: E402

from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.model.spatial_mjcf import mujoco_model  # noqa: E402

FEET = {"solo12": ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"), "go1": ("FL_foot", "FR_foot", "RL_foot", "RR_foot"),
        "anymal": ("LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"), "bolt": ("FL_FOOT", "FR_FOOT")}


def standing(robot: str):
    """The mechanism with a contact per foot and its standing state ``(q, q̇)``."""
    import pinocchio as pin
    from example_robot_data.robots_loader import ROBOTS

    loader = ROBOTS[robot]
    srdf = os.path.join(os.path.dirname(os.path.dirname(str(erd_urdf(robot)))), loader.srdf_subpath,
                        loader.srdf_filename)
    mech = SpatialMechanism(erd_urdf(robot), base="floating")
    model = pin.buildModelFromUrdf(str(erd_urdf(robot)), pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, srdf, False)
    q_pin = model.referenceConfigurations[loader.ref_posture]
    q = np.concatenate([q_pin[:3], [q_pin[6]], q_pin[3:6], q_pin[7:]])  # quaternion (x, y, z, w) -> (w, x, y, z)
    rng = np.random.default_rng(0)
    qdot = rng.normal(scale=0.3, size=mech.n_v)
    for foot in FEET[robot]:
        mech.add_contact(foot, foot, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.7)
    ground = float(mech.dynamics(q, qdot).positions[:, 2].min())
    feet = list(mech.contacts)
    mech = SpatialMechanism(erd_urdf(robot), base="floating")
    for c in feet:
        mech.add_contact(c.name, c.link, c.position, (0.0, 0.0, ground), (0.0, 0.0, 1.0), 0.7)
    mech.actuate_joints()
    return mech, q, qdot


def pinocchio_calls(mech: SpatialMechanism, q, qdot) -> dict:
    """The Pinocchio calls of one evaluation, each a zero-argument function, on prepared arrays."""
    import pinocchio as pin

    model = mech.pinocchio_model
    data = model.createData()
    q_pin, v_pin, a0, _ = mech.pinocchio_state(q, qdot)
    frames = [model.getFrameId(f"contactmodes/contact/{c.name}") for c in mech.contacts]
    lwa = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    pin.forwardKinematics(model, data, q_pin, v_pin, a0)
    pin.computeJointJacobians(model, data)
    pin.updateFramePlacements(model, data)
    calls = {
        "crba": lambda: pin.crba(model, data, q_pin),
        "rnea": lambda: pin.rnea(model, data, q_pin, v_pin, a0),
        "forwardKinematics": lambda: pin.forwardKinematics(model, data, q_pin, v_pin, a0),
        "computeJointJacobians": lambda: pin.computeJointJacobians(model, data),
        "updateFramePlacements": lambda: pin.updateFramePlacements(model, data),
        "getFrameJacobian": lambda: pin.getFrameJacobian(model, data, frames[0], lwa),
        "getFrameClassicalAcceleration": lambda: pin.getFrameClassicalAcceleration(model, data, frames[0], lwa),
    }

    def everything():
        pin.crba(model, data, q_pin)
        pin.rnea(model, data, q_pin, v_pin, a0)
        pin.forwardKinematics(model, data, q_pin, v_pin, a0)
        pin.computeJointJacobians(model, data)
        pin.updateFramePlacements(model, data)
        for f in frames:
            pin.getFrameJacobian(model, data, f, lwa)
            pin.getFrameClassicalAcceleration(model, data, f, lwa)

    return {"all": everything, **calls}


def mujoco_call(mech: SpatialMechanism, q, qdot):
    import mujoco

    model, coords = mujoco_model(mech)
    data = mujoco.MjData(model)
    data.qpos[:] = coords.qpos(q)
    data.qvel[:] = coords.qvel(q, qdot)
    M = np.zeros((model.nv, model.nv))
    jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    sites = list(coords.sites.values())

    def run():
        mujoco.mj_forward(model, data)
        mujoco.mj_fullM(model, data, M)
        for s in sites:
            mujoco.mj_jacSite(model, data, jacp, jacr, s)
            mujoco.mj_jacDot(model, data, jacp, jacr, data.site_xpos[s], model.site_bodyid[s])

    return run


def median_us(fn, repeat: int, number: int) -> tuple[float, float]:
    """Median wall-clock and process (CPU) time per call, µs: on a shared machine the wall clock
    counts the waits for a core, the process time does not."""
    wall = statistics.median(timeit.repeat(fn, repeat=repeat, number=number))
    cpu = statistics.median(timeit.repeat(fn, repeat=repeat, number=number, timer=time.process_time))
    return 1e6 * wall / number, 1e6 * cpu / number


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="solo12", choices=sorted(FEET))
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args(argv)
    mech, q, qdot = standing(args.robot)
    d = mech.dynamics(q, qdot)
    print(f"{args.robot}: n_v = {mech.n_v}, {len(mech.contacts)} contacts, gaps {np.round(d.gaps, 6).tolist()} m")
    calls = pinocchio_calls(mech, q, qdot)
    base = median_us(calls.pop("all"), args.repeat, args.number)
    rows = [("SpatialMechanism.dynamics", median_us(lambda: mech.dynamics(q, qdot), args.repeat, args.number)),
            ("dynamics_and_scales", median_us(lambda: mech.dynamics_and_scales(q, qdot), args.repeat, args.number)),
            ("pinocchio calls", base)]
    rows += [(f"  {name}", median_us(fn, args.repeat, args.number)) for name, fn in calls.items()]
    rows.append(("mujoco (forward, fullM, jacs)", median_us(mujoco_call(mech, q, qdot), args.repeat, args.number)))
    print(f"\n{'evaluation':<32}{'wall µs':>9}{'cpu µs':>9}{'x pinocchio (cpu)':>19}\n{'-' * 69}")
    for name, (wall, cpu) in rows:
        print(f"{name:<32}{wall:>9.2f}{cpu:>9.2f}{cpu / base[1]:>19.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
