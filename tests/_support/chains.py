"""The k-link zig-zag chain wedged between a floor and a ceiling (analysis-session issue).

Links 0.127 m, 0.0849 kg, inertia m·L²/12, a 40° zig-zag, μ = 0.5, one actuator per joint, all at
rest; contacts at the far end of every link, alternately on the ceiling and on the floor (the
first vertex is free). Used by the enumeration tests and ``benchmarks/bench_chain.py``.
"""

from __future__ import annotations

import math


def zigzag_chain(k: int, length: float = 0.127, mass: float = 0.0849, angle_deg: float = 40.0,
                 mu: float = 0.5) -> dict:
    """System-file document (dict) of the ``k``-link chain (``k >= 1`` links and contacts)."""
    a = math.radians(angle_deg)
    links = []
    for i in range(k):
        link = {"name": f"l{i}", "mass": mass, "inertia": mass * length ** 2 / 12, "com": [length / 2, 0.0]}
        if i:
            link.update(parent=f"l{i - 1}", joint=f"q{i}", joint_position=[length, 0.0])
        links.append(link)
    height = length * math.sin(a)
    q = {"x": 0.0, "y": 0.0, "theta_deg": angle_deg}
    q.update({f"q{i}_deg": (-2 * angle_deg if i % 2 else 2 * angle_deg) for i in range(1, k)})
    contacts = []
    for v in range(1, k + 1):
        floor = v % 2 == 0
        contacts.append({"name": f"c{v}", "link": f"l{v - 1}", "position": [length, 0.0],
                         "surface_point": [0.0, 0.0 if floor else height],
                         "surface_normal": [0.0, 1.0] if floor else [0.0, -1.0], "mu": mu})
    return {"name": f"zigzag_chain_{k}", "links": links, "contacts": contacts,
            "actuators": [{"name": f"u{i}", "coordinate": f"q{i}"} for i in range(1, k)],
            "state": {"q": q}}
