"""A held disturbance on MuJoCo (``contactmodes simulate --disturbance``): the two-link brace of
``examples/five_link_climb.toml`` at its robust bracing torque holds under every vertex of the
file's disturbance box ``D`` and fails beyond the disturbance the toolkit's analysis allows.

Independent quantities: the bracing torque and the bound come from the toolkit's analysis of the
rigid model (``BracingController``, and ``T_FFF`` of the augmented system with ``δ`` as extra
inputs, ``contactmodes.analysis.robust.augmented_system``), never from the simulator; the
simulator's answer is read from its own contact forces and positions.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.robust import augmented_system, robust_feasible_set  # noqa: E402
from contactmodes.cli import main  # noqa: E402
from contactmodes.cli import UserError  # noqa: E402
from controllers.bracing import BracingController  # noqa: E402
from controllers.simulation.cli import parse_disturbance  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import build_plant  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CLIMB = ROOT / "examples" / "five_link_climb.toml"
HOLD_DRIFT_M = 1e-4  # a held brace: every contact point moves less than this along its wall over the run
FAIL_DROP_M = 0.05  # a failed brace: the base slides down more than this


@pytest.fixture(scope="module")
def brace():
    system = cm.load_system(CLIMB)
    tau = BracingController().solve(system, "FFF").torque
    T_robust, vertices = robust_feasible_set(system, "FFF")
    assert T_robust.contains(tau)  # the torque holds for every δ in D by the rigid model
    T_aug = cm.analyze(augmented_system(system), modes=["FFF"]).modes["FFF"]
    return system, tau, vertices, T_aug


def _run(system, tau, delta, duration=0.3):
    """MuJoCo run under the held torque and ``τ_d = E δ``; returns the run."""
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(CLIMB)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot)
    tau_d = system.disturbance.E @ np.asarray(delta, float)
    return simulate(plant, loaded.q, loaded.qdot, lambda q, qd: tau, duration, 100.0, disturbance=tau_d)


def _y_bound(tau, T_aug, coord: int = 1) -> float:
    """The most negative δ_y (others 0) for which ``(τ, δ) ∈ T_FFF``: bisection on the rigid model."""
    def holds(y):
        d = np.zeros(4)
        d[coord] = y
        return T_aug.contains(np.r_[tau, d])
    lo, hi = -50.0, -2.3
    assert holds(hi) and not holds(lo)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return hi


def test_the_brace_holds_under_every_vertex_of_D(brace):
    system, tau, vertices, _ = brace
    assert len(vertices) == 16
    lo, hi = system.disturbance.set.bounding_box()
    for v in itertools.product(*zip(lo, hi)):
        run = _run(system, tau, v)
        assert set(run.modes) == {"FFF"}, (v, set(run.modes))
        drift = np.abs(np.einsum("kij,ij->ki", run.position[1:] - run.position[:1], run.plant.tangents)).max()
        assert drift < HOLD_DRIFT_M, (v, drift)


def test_beyond_the_bound_it_fails_and_just_inside_it_holds(brace):
    system, tau, _, T_aug = brace
    y_star = _y_bound(tau, T_aug)  # about -4.85 N for the torque -0.806 N·m
    assert y_star < system.disturbance.set.bounding_box()[0][1]  # beyond D's own box
    inside = _run(system, tau, [0.0, 0.95 * y_star, 0.0, 0.0])
    assert set(inside.modes) == {"FFF"}
    assert abs(inside.q[-1, 1] - inside.q[0, 1]) < HOLD_DRIFT_M
    outside = _run(system, tau, [0.0, 1.05 * y_star, 0.0, 0.0])
    assert "FFF" not in outside.modes[1:]
    assert outside.q[0, 1] - outside.q[-1, 1] > FAIL_DROP_M


def test_parse_disturbance():
    coords = ("x", "y", "theta")
    assert parse_disturbance(None, coords) is None
    assert parse_disturbance("y=-3, theta=0.5", coords).tolist() == [0.0, -3.0, 0.5]
    for text, match in (("z=1", "unknown coordinate 'z'"), ("y=1,y=2", "given twice"), ("y", "expected COORD=VALUE"),
                        ("y=a", "y: expected a number"), ("y=inf", "must be finite")):
        with pytest.raises(UserError, match=match):
            parse_disturbance(text, coords)


def test_the_document_records_the_disturbance(capsys):
    code = main(["simulate", str(CLIMB), "--controller", "constant:-0.806", "--duration", "0.05",
                 "--disturbance", "y=-3,theta1=-0.25", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["disturbance"] == {"x": 0.0, "y": -3.0, "theta": 0.0, "theta1": -0.25}
    pytest.importorskip("jsonschema")
    from contactmodes.schemas import validate

    validate(doc)
    assert main(["simulate", str(CLIMB), "--controller", "zero", "--duration", "0.05", "--disturbance", "q=1"]) == 2
    assert "--disturbance: unknown coordinate 'q'" in capsys.readouterr().err
