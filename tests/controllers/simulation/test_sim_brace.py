"""The two-link brace on MuJoCo does what the toolkit's modes say (controllers.simulation).

The toolkit (``contactmodes.analyze``, an independent model) locates a held torque in the torque
domains: τ = 0 is in no domain with a sticking contact (SSS and sliding modes only: the brace
falls), τ = −0.5 N·m only in FFF's (the brace holds). On MuJoCo the zero torque lets it fall as
the toolkit's modes say (after at most one control period in LLR, the free fall SSS: y = −g t²/2), and the held torque keeps
every contact sticking with the configuration within 1e-3 (m, rad) over 1 s, creeping down
the walls at under 1e-5 m/s.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

import contactmodes as cm  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import build_plant  # noqa: E402

BRACE = Path(__file__).resolve().parents[3] / "examples" / "two_link_brace.toml"


@pytest.fixture(scope="module")
def brace():
    loaded = load_system_file(BRACE)
    return loaded, build_plant(loaded.mechanism, loaded.q, loaded.qdot), cm.analyze(BRACE)


def test_zero_torque_falls_as_the_toolkit_says(brace):
    loaded, plant, result = brace
    toolkit_modes = set(result.locate([0.0]))
    assert toolkit_modes and not any("F" in m for m in toolkit_modes)  # no mode holds it
    run = simulate(plant, loaded.q, loaded.qdot, lambda q, qd: np.zeros(1), 0.3, 100.0)
    assert set(run.modes) <= toolkit_modes
    assert set(run.modes[1:]) == {"SSS"}  # the first period may touch (LLR, also in the set) as it lets go
    # SSS: no contact force, the free fall of the whole brace, y(t) = -g t^2 / 2
    t = 0.3
    assert run.q[-1, 1] - loaded.q[1] == pytest.approx(-0.5 * loaded.mechanism.gravity * t * t, rel=0.01)


def test_a_torque_in_fff_only_holds_the_brace(brace):
    loaded, plant, result = brace
    assert result.locate([-0.5]) == ["FFF"]
    run = simulate(plant, loaded.q, loaded.qdot, lambda q, qd: np.array([-0.5]), 1.0, 100.0)
    assert set(run.modes) == {"FFF"}
    assert np.abs(run.q - loaded.q).max() < 1e-3
    creep = abs(run.q[-1, 1] - run.q[50, 1]) / 0.5  # m/s down the walls over the last 0.5 s
    assert creep < 1e-5  # about 2e-6 m/s measured
    # the contacts press on their walls (f_n > 0) inside their friction cones
    f = run.force[-1]
    assert np.all(f[:, 1] > 0) and np.all(np.abs(f[:, 0]) <= 0.3 * f[:, 1] * (1 + 1e-6))
