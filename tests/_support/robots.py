"""Robot files of the spatial tests and benchmarks: the URDFs of ``tests/data/spatial``, the
example box of ``examples/spatial``, and those of
example-robot-data (real robots, through its Python package ``example_robot_data``, PyPI
``example-robot-data-loaders``, a dev dependency).

``erd_urdf(name)`` gives the path of a robot's URDF without building Pinocchio's model and its
meshes (which ``example_robot_data.load`` does, a second per robot).
"""

from __future__ import annotations

import os
from pathlib import Path

from _support.paths import DATA, EXAMPLES

#: the tests' own robot files
SPATIAL = DATA / "spatial"
#: the example box (0.4 m x 0.3 m x 0.1 m, 1.2 kg), a user-facing robot file
BOX_URDF = EXAMPLES / "spatial" / "box.urdf"

#: example-robot-data robots the spatial tests use: a quadruped (Solo-12), one with a dummy base
#: link of degenerate inertia (Go1), a biped (Bolt), a humanoid (G1, 29 joints), a fixed-base
#: double pendulum with continuous joints
ERD_ROBOTS = ("solo12", "go1", "bolt", "g1", "double_pendulum_continuous")


def erd_urdf(name: str) -> Path:
    """The URDF of example-robot-data's robot ``name`` (``ImportError`` without the package)."""
    from example_robot_data.robots_loader import ROBOTS
    from example_robot_data.utils import getModelPath

    loader = ROBOTS[name]
    sub = os.path.join(loader.path, loader.urdf_subpath, loader.urdf_filename)
    return Path(getModelPath(sub)) / sub
