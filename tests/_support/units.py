"""Random SI system files and their hand rewrite in other units (shared by the unit, layout and
session tests).

``random_system``: a random planar mechanism (floating base, 1–3 more links, some massless,
1–5 contacts, at rest or moving, with and without task rows) as an SI system file (dict) whose
contacts touch their lines and none approaches. ``rewrite``: the same system in units where
lengths are × λ and masses × μ (inertias × μλ², gravity × λ, a task row's coefficients divided by
its variables' unit factors), and the factor of a torque (μλ²).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from contactmodes.system_file.loader import parse_system


def random_system(seed: int) -> dict:
    """A random SI system file (dict) whose contacts touch their lines and none approaches."""
    rng = np.random.default_rng(seed)
    n_links = int(rng.integers(1, 4))
    links = [{"name": "l0", "mass": float(rng.uniform(0.5, 5.0)), "inertia": float(rng.uniform(0.01, 0.5)),
              "com": rng.uniform(-0.2, 0.2, 2).tolist()}]
    for i in range(1, n_links + 1):
        massless = rng.random() < 0.25
        links.append({"name": f"l{i}", "parent": f"l{int(rng.integers(0, i))}", "joint": f"j{i}",
                      "joint_position": rng.uniform(-0.6, 0.6, 2).tolist(),
                      "mass": 0.0 if massless else float(rng.uniform(0.05, 2.0)),
                      "inertia": 0.0 if massless else float(rng.uniform(1e-4, 0.1)),
                      "com": rng.uniform(-0.3, 0.3, 2).tolist()})
    q = {"x": float(rng.uniform(-1, 1)), "y": float(rng.uniform(-1, 1)), "theta": float(rng.uniform(-3, 3))}
    q.update({f"j{i}": float(rng.uniform(-2.5, 2.5)) for i in range(1, n_links + 1)})
    moving = rng.random() < 0.4
    qdot = {c: float(rng.normal(scale=0.5)) if moving else 0.0 for c in q}
    doc = {"name": f"random{seed}", "links": links, "state": {"q": q, "qdot": qdot},
           "actuators": [{"name": f"u{i}", "coordinate": f"j{i}"} for i in range(1, n_links + 1)]}
    loaded = parse_system(doc)
    mech, qv, qd = loaded.mechanism, loaded.q, loaded.qdot
    k = int(rng.integers(1, 5 if n_links < 3 else 6))
    contacts = []
    for c in range(k):
        link = f"l{int(rng.integers(0, n_links + 1))}"
        pos = rng.uniform(-0.4, 0.4, 2)
        p = mech.point_position(qv, link, pos)
        ang = rng.uniform(0, 2 * math.pi)
        normal = np.array([math.cos(ang), math.sin(ang)])
        contacts.append({"name": f"c{c}", "link": link, "position": pos.tolist(), "surface_point": p.tolist(),
                         "surface_normal": normal.tolist(), "mu": float(rng.uniform(0.1, 1.5))})
    doc["contacts"] = contacts
    # flip the normal of any approaching contact (its line still passes through the point)
    v = parse_system(doc).mechanism.dynamics(qv, qd).v_contact.reshape(-1, 2) if moving else np.zeros((k, 2))
    for c in range(k):
        if v[c, 1] < 0:
            contacts[c]["surface_normal"] = [-x for x in contacts[c]["surface_normal"]]
    tasks = int(rng.integers(0, 3))
    cons = []
    if tasks >= 1:
        cons.append({"preset": "min_normal_force", "contact": "c0", "value": float(rng.uniform(0.1, 2.0))})
    if tasks >= 2:
        cons.append({"type": "geq", "qdd": [{"theta": 1.0, "x": float(rng.uniform(-1, 1))}],
                     "rhs": [float(rng.uniform(-5, 5))]})
    if cons:
        doc["constraints"] = cons
    return doc


def rewrite(doc: dict, lam: float, mu: float) -> dict:
    """The same system in units where lengths are × ``lam`` and masses × ``mu`` (time unchanged)."""
    d = copy.deepcopy(doc)
    for link in d["links"]:
        link["mass"] *= mu
        link["inertia"] *= mu * lam * lam
        link["com"] = [c * lam for c in link["com"]]
        if "joint_position" in link:
            link["joint_position"] = [c * lam for c in link["joint_position"]]
    for c in d.get("contacts", []):
        c["position"] = [x * lam for x in c["position"]]
        c["surface_point"] = [x * lam for x in c["surface_point"]]
    d["gravity"] = 9.81 * lam
    for key in ("q", "qdot"):
        for lin in ("x", "y"):
            d["state"][key][lin] *= lam
    force, torque = mu * lam, mu * lam * lam
    for c in d.get("constraints", []):
        if c.get("preset") == "min_normal_force":
            c["value"] *= force
        else:  # a·q̈ >= rhs: divide each coefficient by its variable's unit factor
            for row in c["qdd"]:
                for coord in row:
                    if coord in ("x", "y"):
                        row[coord] /= lam
    return d, torque
