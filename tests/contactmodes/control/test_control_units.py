"""The controller's answer does not depend on units: the same file in millimetres and grams gives
the same mode, the torque mapped back, the objective in its own unit and the same statuses."""

from __future__ import annotations

import copy
import json
import tomllib

import numpy as np
import pytest

from _support.paths import EXAMPLES

import contactmodes as cm

LAM, MU = 1e3, 1e3  # mm, g


def _scaled(doc: dict, lam: float, mu: float) -> dict:
    """The file with lengths × ``lam`` and masses × ``mu`` (time and angles unchanged), written
    out by hand: link masses, inertias (× μλ²), centres, joint positions, point masses, contact
    points, gravity, and the linear coordinates of the state."""
    d = copy.deepcopy(doc)
    for link in d.get("links", []):
        if "mass" in link:
            link["mass"] *= mu
        if "inertia" in link:
            link["inertia"] *= mu * lam * lam
        for key in ("com", "joint_position"):
            if key in link:
                link[key] = [c * lam for c in link[key]]
    for pm in d.get("point_masses", []):
        pm["mass"] *= mu
        pm["position"] = [c * lam for c in pm["position"]]
    for c in d.get("contacts", []):
        c["position"] = [x * lam for x in c["position"]]
        c["surface_point"] = [x * lam for x in c["surface_point"]]
    d["gravity"] = d.get("gravity", 9.81) * lam
    for key in ("q", "qdot"):
        for lin in ("x", "y"):
            if lin in d["state"].get(key, {}):
                d["state"][key][lin] *= lam
    assert "constraints" not in d  # the cases below have none (their rows would need units too)
    return d


#: (example, sense, objective, actuator, limit, torque unit factor, objective unit factor)
CASES = [
    ("two_link_brace.toml", "maximize", "qdd.theta1", "tau1", (-3.0, 3.0), MU * LAM * LAM, 1.0),
    ("two_link_brace.toml", "minimize", "tau.tau1", "tau1", (-3.0, 3.0), MU * LAM * LAM, MU * LAM * LAM),
    ("two_link_brace.toml", "maximize", "f.base.n", "tau1", (-3.0, 3.0), MU * LAM * LAM, MU * LAM),
    ("table_two_legs.toml", "maximize", "qdd.x", "Fx", (-50.0, 50.0), MU * LAM, LAM),
    ("table_two_legs.toml", "maximize", "f.left.n", "Fx", (-50.0, 50.0), MU * LAM, MU * LAM),
]


@pytest.mark.parametrize("example, sense, text, actuator, limit, u_tau, u_obj", CASES,
                         ids=[f"{c[0].split('.')[0]}-{c[2]}" for c in CASES])
def test_millimetres_and_grams(tmp_path, example, sense, text, actuator, limit, u_tau, u_obj):
    doc = tomllib.loads((EXAMPLES / example).read_text())
    path = tmp_path / f"{example.split('.')[0]}_mm_g.json"
    path.write_text(json.dumps(_scaled(doc, LAM, MU)))
    si = cm.control(EXAMPLES / example, **{sense: text}, limits={actuator: f"{limit[0]}:{limit[1]}"})
    mm = cm.control(path, **{sense: text}, limits={actuator: f"{limit[0] * u_tau}:{limit[1] * u_tau}"})
    assert si.status == mm.status == "optimal"
    assert (mm.mode, mm.unambiguous) == (si.mode, si.unambiguous)
    assert mm.torque / u_tau == pytest.approx(si.torque, rel=1e-9, abs=1e-9 * abs(limit[1]))
    assert mm.objective / u_obj == pytest.approx(si.objective, rel=1e-9, abs=1e-9)
    assert [(a.mode, a.status) for a in mm.alternatives] == [(a.mode, a.status) for a in si.alternatives]
    # the angular accelerations are unit-free, the linear ones × λ
    for name, value in si.prediction["qdd"].items():
        other = mm.prediction["qdd"][name]
        factor = LAM if name in ("x", "y") else 1.0
        assert (value is None) == (other is None)
        if value is not None:
            assert other / factor == pytest.approx(value, rel=1e-9, abs=1e-9 * max(1.0, np.abs(
                [v for v in si.prediction["qdd"].values() if v is not None]).max()))
