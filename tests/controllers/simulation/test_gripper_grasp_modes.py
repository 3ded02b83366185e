"""The gripper's closed loop keeps its grasp mode at the velocities MuJoCo's plant leaves.

``contactmodes simulate tests/data/cases/gripper_squeeze.toml --controller control`` (maximize
the fingertips' normal forces, only ``FFFF`` accepted): after the first control step the plant
leaves a wrist velocity of about 1e-4 rad/s, at which the four sticking contacts' eight
acceleration equalities (rank 5) are inconsistent by 2e-11 in the scaled units. The batched
kinematic LPs took that rounding-sized inconsistency as a proof that ``FFFF`` is infeasible, so
the loop had no acceptable mode at its second and third steps (``no_mode_held``) while the
definition (``acceleration_feasible``) and the independent oracle
(``_support.oracle.kinematically_ok``) accept ``FFFF`` there. Now every step is ``optimal``, and at
every recorded state the enumeration's modes are the oracle's and include ``FFFF``.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from _support.oracle import all_modes, kinematically_ok  # noqa: E402
from _support.paths import DATA  # noqa: E402
from _support.without import run_without  # noqa: E402
from contactmodes.modes.enumeration import enumerate_modes  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

GRIPPER = DATA / "cases" / "gripper_squeeze.toml"


def test_every_step_has_the_grasp_mode():
    proc = run_without((), "simulate", str(GRIPPER), "--controller", "control", "--duration", "0.03", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["controller_status"] == ["optimal"] * 3
    assert all(m == "F" for c in doc["contacts"] for m in doc["modes"][c])
    mechanism = load_system_file(GRIPPER).mechanism
    for step in range(1, 3):  # the states the plant left (step 0 is the file's, at rest)
        q = [doc["q"][c][step] for c in doc["coordinates"]]
        qdot = [doc["qdot"][c][step] for c in doc["coordinates"]]
        assert abs(qdot[0]) > 1e-5  # the plant's wrist velocity
        s = mechanism.contact_system(q, qdot)  # (the plant's contacts sink by about 1e-7 m: no gap check)
        expected = [m for m in all_modes(s.k) if kinematically_ok(s, m)]
        assert "FFFF" in expected
        assert list(enumerate_modes(s).modes) == expected, step
