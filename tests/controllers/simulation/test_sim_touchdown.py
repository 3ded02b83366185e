"""Touchdown events of the MuJoCo loop against plastic impact (``controllers.simulation.touchdown``).

The thesis' block (w = 5 cm, h = 10 cm, m = 5 kg, μ = 1) dropped at 0.5 m/s on its left corner
(``examples/impact/block_drop.toml``) and flat (both corners at once), default contact settings.
The prediction is checked against an independent KKT solve of the plastic impact
(``[M −J_Kᵀ; J_K 0] [q̇⁺; P] = [M q̇⁻; 0]``, thesis eq. 10, plain NumPy from the geometry).

MuJoCo's soft contact is not perfectly plastic. Measured (default step 0.5 ms, critical damping):
its velocity change is the plastic one times ``1 + e`` with a restitution ``e`` ≈ 0.08 (0.04–0.12
over steps 0.1–1 ms and damping ratios 1–4), the direction of the change matching within 0.1 %
of its size once the window's gravity (``g · after_s``) is removed. Hence the tolerances: the
observed velocity within ``E_MAX`` = 0.15 of the velocity change from the plastic ``q̇⁺``, and
within 1 % once scaled by the ``1 + e`` measured at the landing contact.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from _support.paths import EXAMPLES  # noqa: E402
from contactmodes.system_file.loader import load_system_file, parse_system  # noqa: E402
from controllers.simulation.loop import simulate  # noqa: E402
from controllers.simulation.model import ContactSettings, build_plant  # noqa: E402
from controllers.simulation.touchdown import AFTER_S, TouchdownDetector, touchdown_entries  # noqa: E402

W, H, MASS, G = 0.05, 0.10, 5.0, 9.81
I_B = MASS * (W ** 2 + H ** 2) / 12
CORNERS = {"left": np.array([-W / 2, -H / 2]), "right": np.array([W / 2, -H / 2])}
E_MAX = 0.15


def _jacobian(theta, name):
    c, s = math.cos(theta), math.sin(theta)
    r = np.array([[c, -s], [s, c]]) @ CORNERS[name]
    return np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])


def _plastic(theta, qdot, stick):
    M = np.diag([MASS, MASS, I_B])
    J = np.vstack([_jacobian(theta, n) for n in stick])
    m = J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((m, m))]])
    x = np.linalg.lstsq(K, np.concatenate([M @ qdot, np.zeros(m)]), rcond=None)[0]
    return x[:3], x[3:]


def _run(loaded, duration):
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, settings=ContactSettings())
    run = simulate(plant, loaded.q, loaded.qdot, lambda q, qd: np.zeros(0), duration, 100.0)
    return plant, run, touchdown_entries(run.touchdowns, loaded, plant)


def _vec(d):
    return np.array([d["x"], d["y"], d["theta"]])


def test_corner_drop_predicted_and_observed():
    loaded = load_system_file(EXAMPLES / "impact" / "block_drop.toml", lifted_contacts=True)
    plant, run, events = _run(loaded, 0.02)
    first = events[0]
    assert first["contact"] == "left" and first["observed"] is not None
    dt = plant.model.opt.timestep
    # free fall until the corner's gap is within the margin: semi-implicit Euler, v = v0 + g t
    assert first["vn_before_m_s"] == pytest.approx(-(0.5 + G * first["t_s"]), rel=1e-9)
    assert first["t_s"] == pytest.approx(0.004, abs=2 * dt)  # 2 mm at about 0.52 m/s
    q_m, qd_m = _vec(first["q_before"]), _vec(first["qdot_before"])
    qp, P = _plastic(q_m[2], qd_m, ["left"])
    assert P[1] > 0 and abs(P[0]) < P[1]  # sticks (μ = 1); the right corner is 15 mm up
    pred = first["predicted"]
    assert pred["chosen"] == "FS" and pred["consistent_modes"] == ["FS"] and pred["error"] is None
    np.testing.assert_allclose(_vec(pred["outcomes"][0]["qdot_plus"]), qp, rtol=1e-9, atol=1e-12)
    # MuJoCo's velocity after_s later, without the window's gravity
    obs = _vec(first["observed"]["qdot"]) - np.array([0.0, -G * first["observed"]["after_s"], 0.0])
    change = np.linalg.norm(qp - qd_m)
    assert np.linalg.norm(obs - qp) <= E_MAX * change
    J = _jacobian(q_m[2], "left")
    e = (J @ obs)[1] / -(J @ qd_m)[1]  # the corner's restitution
    assert 0.0 <= e <= E_MAX
    np.testing.assert_allclose(obs, qd_m + (1 + e) * (qp - qd_m), atol=0.01 * change)
    assert first["observed"]["vn_m_s"] > 0  # with e > 0 the corner bounces off (observed S)


def test_flat_drop_stops_both_corners():
    src = (EXAMPLES / "impact" / "block_drop.toml").read_text()
    import tomllib

    doc = tomllib.loads(src)
    doc["state"] = {"q": {"x": 0.0, "y": H / 2 + 0.002, "theta": 0.0}, "qdot": {"x": 0.0, "y": -0.5, "theta": 0.0}}
    loaded = parse_system(doc, lifted_contacts=True)
    plant, run, events = _run(loaded, 0.01)
    first = [e for e in events if e["t_s"] == events[0]["t_s"]]
    assert sorted(e["contact"] for e in first) == ["left", "right"]  # one event per contact, one state
    qd_m = _vec(first[0]["qdot_before"])
    qp, _ = _plastic(0.0, qd_m, ["left", "right"])
    np.testing.assert_allclose(qp, 0.0, atol=1e-12)
    for e in first:
        assert e["predicted"]["chosen"] == "FF"
        assert "FF" in e["predicted"]["consistent_modes"]
        obs = _vec(e["observed"]["qdot"]) - np.array([0.0, -G * e["observed"]["after_s"], 0.0])
        assert np.linalg.norm(obs - qp) <= E_MAX * np.linalg.norm(qd_m)


def test_micro_hops_are_not_touchdowns():
    loaded = load_system_file(EXAMPLES / "impact" / "block_drop.toml", lifted_contacts=True)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, settings=ContactSettings())
    det = TouchdownDetector(plant)
    dt = plant.model.opt.timestep
    q, qd = np.zeros(3), np.zeros(3)
    v = np.array([[0.0, -0.1], [0.0, 0.0]])
    load, free = np.array([[0.0, 40.0], [0.0, 0.0]]), np.zeros((2, 2))
    pattern = [free] * 5 + [load] * 2 + [free] + [load] * 20  # lands, hops for one step, lands again
    for j, f in enumerate(pattern):
        det.update(j * dt, q, qd, f, v, qd)
    (ev,) = det.finished()
    assert ev.t == pytest.approx(5 * dt) and ev.contact == 0 and ev.qdot_after is not None
    assert ev.after_s == pytest.approx(AFTER_S)
