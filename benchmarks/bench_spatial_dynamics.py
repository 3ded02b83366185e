"""One dynamics evaluation of a spatial mechanism (``contactmodes.model.spatial``): ``M``, ``h``,
``J``, ``J̇q̇`` of a robot standing on its feet, against the Pinocchio calls it makes and MuJoCo.

Run: ``python benchmarks/bench_spatial_dynamics.py [--robot solo12] [--repeat 7] [--number 2000]``
(writes nothing; prints a table). Needs the ``spatial`` and ``sim`` extras and
example-robot-data-loaders (dev). The robot stands in its SRDF reference posture ("standing")
with a point contact at each foot frame on the plane under its lowest foot, at a random velocity.

Rows (median over ``--repeat`` runs of ``--number`` calls, µs per call, and the ratio to the sum
of the Pinocchio calls):

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

Measured on the 2-core development machine (shared with other jobs, so times are noisy),
``--robot solo12 --repeat 7 --number 2000``, Pinocchio 4.1.0, MuJoCo 4.0.1:

evaluation                        µs/call   x pinocchio
-------------------------------------------------------
SpatialMechanism.dynamics          132.52          3.83
dynamics_and_scales                218.87          6.33
pinocchio calls                     34.58          1.00
  crba                               4.64          0.13
  rnea                               5.93          0.17
  forwardKinematics                  3.68          0.11
  computeJointJacobians              0.89          0.03
  updateFramePlacements              1.32          0.04
  getFrameJacobian                   1.40          0.04
  getFrameClassicalAcceleration      1.28          0.04
mujoco (forward, fullM, jacs)       39.97          1.16

(``getFrameJacobian`` and ``getFrameClassicalAcceleration``: per call, 4 contacts each.) The
wrapper's overhead over the Pinocchio calls is Python: input checks, NumPy copies of small
arrays, the 6-column coordinate change and the per-contact rows; the scales add the ~40 points'
positions and speeds and their pairwise distances.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
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


def median_us(fn, repeat: int, number: int) -> float:
    return 1e6 * statistics.median(timeit.repeat(fn, repeat=repeat, number=number)) / number


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
    print(f"\n{'evaluation':<32}{'µs/call':>9}{'x pinocchio':>14}\n{'-' * 55}")
    for name, us in rows:
        print(f"{name:<32}{us:>9.2f}{us / base:>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
