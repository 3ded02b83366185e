"""Sticking and sliding on the MuJoCo plant against closed forms (controllers.simulation).

A block of mass m on two point contacts on the floor (μ = 0.5), pushed horizontally at its centre
of mass (an actuator on ``x``):

* below the friction limit (F = μ m g / 2) the rigid model says it sticks: q̈ = 0, the contact
  forces sum to (−F, m g). Bounds: the drift over 1 s below 1e-5 m, the creep over the last 0.8 s
  below 2e-6 m/s (the soft friction rows: about 4e-7 m/s measured with our settings, 8e-4 m/s with MuJoCo's
  defaults).
* above it (F = 1.6 μ m g) both contacts slide towards +x (letter R: t = (n_y, −n_x) = +x) and
  ẍ = (F − μ m g) / m; the mean acceleration over [0.2, 1] s matches within 2 %.
"""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from contactmodes.system_file.loader import parse_system  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import ContactSettings, build_plant  # noqa: E402

M, MU, G = 1.5, 0.5, 9.81


def _block(com_height: float = 0.05):
    return parse_system({
        "name": "block",
        "links": [{"name": "b", "mass": M, "inertia": 0.01, "com": [0.0, com_height]}],
        "contacts": [{"name": "left", "link": "b", "position": [-0.1, 0.0], "surface_point": [0, 0],
                      "surface_normal": [0, 1], "mu": MU},
                     {"name": "right", "link": "b", "position": [0.1, 0.0], "surface_point": [0, 0],
                      "surface_normal": [0, 1], "mu": MU}],
        "actuators": [{"name": "F", "coordinate": "x"}],
        "state": {"q": {"x": 0.0, "y": 0.0, "theta": 0.0}},
    })


def _run(force: float, duration: float = 1.0, settings=None):
    loaded = _block()
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, settings=settings)
    return simulate(plant, loaded.q, loaded.qdot, lambda q, qd: np.array([force]), duration, 100.0)


def test_a_push_below_the_friction_limit_sticks():
    F = 0.5 * MU * M * G
    run = _run(F)
    assert set(run.modes) == {"FF"}
    assert abs(run.q[-1, 0] - run.q[0, 0]) < 1e-5
    assert np.abs(run.q[-1, 1:] - run.q[0, 1:]).max() < 1e-4  # no hop, no tilt
    total = run.force[-1].sum(axis=0)  # (f_t, f_n) summed over the two contacts
    assert total[0] == pytest.approx(-F, rel=1e-2)
    assert total[1] == pytest.approx(M * G, rel=1e-2)
    # steady creep after the first 0.2 s: well under the slip threshold
    late = (run.q[-1, 0] - run.q[20, 0]) / 0.8
    assert abs(late) < 2e-6


def test_mujoco_defaults_creep_more_than_ours():
    """The reason for our settings (model docstring): MuJoCo's default solref, solimp and impratio
    let the same sticking block creep at least ten times faster."""
    F = 0.5 * MU * M * G
    ours = _run(F)
    defaults = _run(F, settings=ContactSettings(timeconst=0.02, solimp=(0.9, 0.95, 0.001), impratio=1.0,
                                                friction_timeconst=0.02))
    drift = lambda r: abs(r.q[-1, 0] - r.q[20, 0])  # noqa: E731
    assert drift(defaults) > 10 * drift(ours)


@pytest.mark.parametrize("sign, letter", [(1.0, "R"), (-1.0, "L")])
def test_a_push_above_the_friction_limit_slides_at_the_rigid_rate(sign, letter):
    F = 1.6 * MU * M * G
    run = _run(sign * F)
    expected = sign * (F - MU * M * G) / M
    k0, k1 = 20, len(run.modes)  # [0.2, 1] s
    mean = (run.qdot[k1, 0] - run.qdot[k0, 0]) / ((k1 - k0) * run.control_dt)
    assert mean == pytest.approx(expected, rel=0.02)
    assert all(m == letter * 2 for m in run.modes[k0:])
    assert np.abs(run.q[k0:, 1]).max() < 1e-3  # it slides on the floor, it does not hop
    # the friction force is at the cone's edge: f_t = ∓ μ f_n
    total = run.force[-1].sum(axis=0)
    assert total[0] == pytest.approx(-sign * MU * total[1], rel=1e-2)
