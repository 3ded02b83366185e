"""Task equalities in the real-time controller (``controllers.generic.one_shot``): a system whose
task has a ``qdd_zero`` row is controlled (it was refused: "use AnalysisSession").

``tests/data/systems/torso_task.toml``: a 10 kg torso on two 0.8 m legs hinged at one hip, both
feet on the ground (``FF`` accepted), the torso's centre of mass 5 cm in front of the hip, the
task ``θ̈ = 0`` on the torso's angle, maximize the left hip torque within ``±5 N·m``. By hand:
with both feet fixed the hip is fixed, the legs cannot turn, and the torso turns about the hip
under the hip motors' reactions and its weight, ``I θ̈ = −τ_l − τ_r − m g c_x`` (``c_x`` the
centre of mass's horizontal offset from the hip in the world, ``0.05 cos θ − 0.3 sin θ`` m, at
rest), so ``θ̈ = 0`` is ``τ_l + τ_r = −m g c_x = −4.905 N·m`` and the largest ``τ_l`` within the box
is ``−4.905 + 5 = 0.095 N·m`` at ``τ_r = −5``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.oracle import max_violation
from _support.paths import DATA
from contactmodes.system_file.loader import load_system_file
from controllers.generic import TorqueBox, UnambiguousOptimalController

TORSO = DATA / "systems" / "torso_task.toml"
M_TORSO, G, CX, CY = 10.0, 9.81, 0.05, 0.3


@pytest.fixture(scope="module")
def torso():
    return load_system_file(TORSO)


def _controller(loaded, modes=None, margin=None):
    box = TorqueBox.from_limits(loaded.control.limits, loaded.system.torques)
    return UnambiguousOptimalController(loaded, loaded.control.objective, limits=box,
                                        modes=loaded.control.modes.accepts if modes is None else modes,
                                        margin=margin)


class _Row:
    """One task row as ``_support.oracle.max_violation`` reads it."""

    def __init__(self, block, r: int) -> None:
        self.qdd, self.f, self.tau, self.rhs, self.type = block.qdd[r], block.f[r], block.tau[r], block.rhs[r], block.type


def task_row(loaded) -> _Row:
    (block,) = [c for c in loaded.system.constraints if c.kind == "task"]
    assert block.type == "eq" and block.n_rows == 1
    return _Row(block, 0)


def test_the_file_has_a_task_equality_and_the_controller_takes_it(torso):
    """With margin 0 the supremum point itself (the hand calculation); with the default margin a
    torque on the task's line within the margin of it."""
    supremum = np.array([-M_TORSO * G * CX + 5.0, -5.0])  # the hand calculation (module doc)
    for margin in (0.0, None):
        ctrl = _controller(torso, margin=margin)
        assert ctrl.task_equalities
        tau = ctrl(torso.q, torso.qdot)
        assert ctrl.last.status == "optimal" and ctrl.last.mode == "FF" and not ctrl.errors
        assert ctrl.log[-1].path == "slow"
        assert tau.sum() == pytest.approx(-M_TORSO * G * CX, abs=1e-9)  # the task row holds exactly
        if margin == 0.0:
            assert tau == pytest.approx(supremum, abs=1e-9)
        else:
            assert 0.0 < ctrl.margin and np.linalg.norm(tau - supremum) <= ctrl.margin * (1 + 1e-9)
        assert ctrl.last.value == pytest.approx(tau[0], abs=1e-9)


def test_the_torque_meets_the_task_row_by_the_oracle(torso):
    """At tilted states with velocities, the torque's response in ``FF`` has ``θ̈ = 0`` over every
    solution of the mode (the independent per-mode LP of ``_support.oracle``), and the hand
    formula of the module doc at rest."""
    ctrl = _controller(torso)
    row = task_row(torso)
    rng = np.random.default_rng(7)
    for k in range(3):
        q = np.array(torso.q, dtype=float)
        theta = 0.1 * (k - 1)
        q[2] += theta
        q[3] -= theta  # the legs keep their absolute angles: the feet stay on the ground
        q[4] -= theta
        qdot = np.zeros(5)
        if k:
            qdot[2] = rng.uniform(-0.5, 0.5)
            qdot[3] = qdot[4] = -qdot[2]  # the torso turns about the fixed hip
        tau = ctrl(q, qdot)
        assert ctrl.last.status == "optimal" and ctrl.last.mode == "FF", (k, ctrl.last.status)
        system = torso.mechanism.contact_system(q, qdot, constraints=torso.system.constraints)
        worst, size = max_violation(system, "FF", tau, row)
        assert worst <= 1e-7 * max(1.0, size), (k, worst)
        cx = CX * math.cos(theta) - CY * math.sin(theta)
        assert tau.sum() == pytest.approx(-M_TORSO * G * cx, abs=1e-6)
        # the oracle can fail: the largest τ_l of the box in FF without the task violates it
        worst_corner, _ = max_violation(system, "FF", np.array([5.0, -5.0]), row)
        assert worst_corner > 1.0


def test_no_acceptable_mode_with_the_task_falls_back(torso):
    """Accepting only ``SS`` (both feet in the air: the torso falls, no torque keeps θ̈ = 0 and
    separates both feet at rest): no acceptable mode, the fallback's zero (the box holds 0)."""
    ctrl = _controller(torso, modes=["SS"])
    tau = ctrl(torso.q, torso.qdot)
    assert ctrl.last.status == "no_mode_zero" and not tau.any()
