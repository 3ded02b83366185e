"""Robot files of the spatial tests and benchmarks: the URDFs of ``tests/data/spatial``, the
example box of ``examples/spatial``, and those of
example-robot-data (real robots, through its Python package ``example_robot_data``, PyPI
``example-robot-data-loaders``, a dev dependency).

``erd_urdf(name)`` gives the path of a robot's URDF without building Pinocchio's model and its
meshes (which ``example_robot_data.load`` does, a second per robot).
"""

from __future__ import annotations

import math
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


#: the two-link brace's walls (``examples/two_link_brace.toml``): name, link, point on the link
#: (planar, m), a point of the wall and its normal (planar x–z)
BRACE_WALLS = (("base", "link1", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)),
               ("tip", "link2_tip", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)),
               ("joint", "link2", (0.0, 0.0), (-0.127 * math.cos(math.pi / 4), 0.0), (1.0, 0.0)))


def brace_in_space(mu: float = 0.3):
    """The two-link brace (``examples/two_link_brace.urdf``, every joint axis along ``−y``) between
    its walls at ``θ = 3π/4``, ``θ1 = −π/2``, at rest, read once as a planar mechanism
    (``load_urdf``, plane ``x–z``) and once as a spatial one (Pinocchio, floating base, ``t1`` the
    planar tangent ``n × (−y)``, ``t2 = +y``): ``(planar ContactSystem, spatial ContactSystem)``,
    both with the actuator ``tau1`` on ``theta1`` (axis ``−y``: the URDF angle is the planar one)."""
    import numpy as np

    from contactmodes.model.spatial import SpatialMechanism
    from contactmodes.model.urdf import load_urdf

    path = EXAMPLES / "two_link_brace.urdf"
    planar = load_urdf(path, plane="xz", base="floating")
    spatial = SpatialMechanism(path, base="floating")
    for name, link, (a, b), point, normal in BRACE_WALLS:
        planar.add_contact(name, link, (a, b), point, normal, mu)
        n3 = np.array([normal[0], 0.0, normal[1]])
        spatial.add_contact(name, link, (a, 0.0, b), (point[0], 0.0, point[1]), n3, mu,
                            tangent=np.cross(n3, [0.0, -1.0, 0.0]))
    planar.add_actuator("tau1", "theta1")
    spatial.add_actuator("tau1", "theta1")
    theta, theta1 = 3 * math.pi / 4, -math.pi / 2
    half = -theta / 2.0  # the planar angle θ (about −y) is a rotation by −θ about +y
    q = np.array([0.0, 0.0, 0.0, math.cos(half), 0.0, math.sin(half), 0.0, theta1])
    assert np.abs(spatial.contact_gaps(q)).max() < 1e-12
    return (planar.contact_system(np.array([0.0, 0.0, theta, theta1]), np.zeros(4)),
            spatial.contact_system(q, np.zeros(6 + 1)))


def solo_on_feet(folder: Path, feet: int | tuple[str, ...]) -> Path:
    """``examples/spatial/solo12_standing.toml`` with only some feet as contacts, written into
    ``folder`` (its URDF named by absolute path): the first ``feet`` contacts, or those named.

    Parameters
    ----------
    folder : pathlib.Path
        Where to write the copy (a test's ``tmp_path``).
    feet : int or tuple[str, ...]
        How many of the file's contacts to keep (file order), or their names.

    Returns
    -------
    pathlib.Path
        The written system file.
    """
    solo = EXAMPLES / "spatial" / "solo12_standing.toml"
    text = solo.read_text(encoding="utf-8")
    text = text.replace('urdf = "solo12.urdf"', f'urdf = "{(solo.parent / "solo12.urdf").as_posix()}"')
    head, *contacts = text.split("[[contacts]]")
    last = contacts[-1]
    state = last[last.index("[state.q]"):]
    contacts[-1] = last[:last.index("[state.q]")]
    if isinstance(feet, int):
        kept, label = contacts[:feet], str(feet)
    else:
        kept = [c for c in contacts if any(f'name = "{name}"' in c for name in feet)]
        label = "_".join(feet)
    path = folder / f"solo_{label}.toml"
    path.write_text(head + "".join("[[contacts]]" + c for c in kept) + state, encoding="utf-8")
    return path
