"""``contactmodes simulate --controller control`` on a file whose task has a ``qdd_zero`` row
(``tests/data/systems/torso_task.toml``: a torso on two legs, ``θ̈ = 0`` on the torso's angle;
``tests/controllers/generic/test_one_shot.py`` derives its torque by hand). It was refused ("use
AnalysisSession"); now the closed loop runs, and at every control step the applied torque meets
the task row in the controller's mode: at the step's simulated state ``(q_k, q̇_k)`` the rigid
model's ``θ̈`` over every solution of the mode is zero (the independent per-mode LP of
``_support.oracle.max_violation``), to LP precision."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from _support.oracle import max_violation  # noqa: E402
from _support.paths import DATA  # noqa: E402
from _support.without import run_without  # noqa: E402
from contactmodes.schemas import validate  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

TORSO = DATA / "systems" / "torso_task.toml"


class _Row:
    """The file's one task row as ``max_violation`` reads it."""

    def __init__(self, block) -> None:
        self.qdd, self.f, self.tau, self.rhs, self.type = block.qdd[0], block.f[0], block.tau[0], block.rhs[0], "eq"


def test_the_closed_loop_keeps_the_task_row_at_every_step():
    proc = run_without((), "simulate", str(TORSO), "--controller", "control", "--duration", "0.1", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    assert doc["controller_status"] == ["optimal"] * 10
    loaded = load_system_file(TORSO)
    (block,) = [c for c in loaded.system.constraints if c.kind == "task"]
    assert block.type == "eq" and block.qdd[0].tolist() == [0, 0, 1, 0, 0]  # θ̈ = 0
    row = _Row(block)
    coords, acts = doc["coordinates"], doc["actuators"]
    for k in range(len(doc["t"])):
        q = np.array([doc["q"][c][k] for c in coords])
        qdot = np.array([doc["qdot"][c][k] for c in coords])
        tau = np.array([doc["torque"][a][k] for a in acts])
        mode = "".join(doc["modes"][c][k] for c in doc["contacts"])
        assert mode == "FF"  # the plant agrees with the accepted mode
        system = loaded.mechanism.contact_system(q, qdot, constraints=loaded.system.constraints)
        worst, size = max_violation(system, "FF", tau, row)
        assert -np.inf < worst <= 1e-7 * max(1.0, size), (k, worst)
    assert abs(doc["q_end"]["theta"]) < 1e-6  # the torso stays upright (rad)
