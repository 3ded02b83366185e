"""A rigid box at rest on ``k`` contacts spread evenly along its bottom edge, with a reaction
wheel (issue 28's statically indeterminate case; ``benchmarks/bench_many_contacts.py``).

Box 0.4 m × 0.2 m, 2 kg, uniform inertia; a wheel of 0.2 kg and 0.001 kg·m² on a revolute joint
``phi`` at the box's centre, driven by the one actuator ``wheel``; floor ``y = 0``, μ = 0.5; the
box's centre at ``(0, 0.1)``, level, at rest. ``corner=True`` adds a wall ``x = -0.2`` touching
the box's left side at ``k // 2`` evenly spread contacts (a box pushed into a corner).
"""

from __future__ import annotations

WIDTH, HEIGHT, BOX_MASS, WHEEL_MASS = 0.4, 0.2, 2.0, 0.2


def box_on_contacts(k: int, corner: bool = False, mu: float = 0.5) -> dict:
    """System-file document (dict) of the box on ``k >= 2`` floor contacts."""
    links = [{"name": "box", "mass": BOX_MASS, "inertia": BOX_MASS * (WIDTH ** 2 + HEIGHT ** 2) / 12,
              "com": [0.0, 0.0]},
             {"name": "wheel", "parent": "box", "joint": "phi", "joint_position": [0.0, 0.0],
              "mass": WHEEL_MASS, "inertia": 0.001, "com": [0.0, 0.0]}]
    contacts = [{"name": f"c{i}", "link": "box", "position": [-WIDTH / 2 + WIDTH * i / (k - 1), -HEIGHT / 2],
                 "surface_point": [0.0, 0.0], "surface_normal": [0.0, 1.0], "mu": mu} for i in range(k)]
    if corner:
        n = max(2, k // 2)
        contacts += [{"name": f"w{i}", "link": "box", "position": [-WIDTH / 2, -HEIGHT / 2 + HEIGHT * (i + 1) / n],
                      "surface_point": [-WIDTH / 2, 0.0], "surface_normal": [1.0, 0.0], "mu": mu} for i in range(n)]
    return {"schema": "contactmodes.system/1", "name": f"box_{k}{'_corner' if corner else ''}", "gravity": 9.81,
            "links": links, "contacts": contacts, "actuators": [{"name": "wheel", "coordinate": "phi"}],
            "state": {"q": {"x": 0.0, "y": HEIGHT / 2, "theta": 0.0, "phi": 0.0}}}
