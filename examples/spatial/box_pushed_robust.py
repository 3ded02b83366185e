"""Robust sets of a spatial system under its ``[disturbance]`` (docs/system-file.md, "[disturbance]").

Run::

    python examples/spatial/box_pushed_robust.py [SYSTEM.toml] [--mode MODE]

For ``examples/spatial/box_pushed.toml`` (default): the box on the floor pushed along world x by
``push``, an unknown side force ``δ ∈ [−1, 1]`` N along world y, ``μ ∈ [0.4, 0.6]``. Prints the
robust feasible set ``T'_c`` (the torques that give the mode for every ``δ``) and the robustly
unambiguous set ``T'*_c`` at the nominal μ (the interval's midpoint) and over the whole friction
box (``contactmodes.analysis.robust``, ``contactmodes.analysis.friction_robust``). With the
file's inscribed squares (a vertex on x) the contacts' friction sums to ``|F_x| + |F_y| <= μ m g``,
so the box sticks for every ``δ`` iff ``|push| <= μ m g − 1``: 4.886 N at μ = 0.5, 3.709 N for
every μ of the box. (The ``brace`` command, which also picks a bracing torque, is a controller
and reads planar files only for now.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from contactmodes.analysis.friction_robust import robust_unambiguous_over_friction
from contactmodes.analysis.robust import robust_unambiguous
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file

HERE = Path(__file__).resolve().parent


def _sets(label: str, result, torques) -> None:
    def describe(P):
        lo, hi = P.bounding_box()
        return ", ".join(f"{t} [{a:.4g}, {b:.4g}]" for t, a, b in zip(torques, lo, hi))

    feasible = "empty" if result.robust_feasible.is_empty() else describe(result.robust_feasible)
    pieces = "; ".join(describe(P) for P in result.robust_unambiguous) or "empty"
    print(f"{label}: T'_{result.mode} {feasible}; T'*_{result.mode} {pieces}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("system", nargs="?", default=str(HERE / "box_pushed.toml"))
    parser.add_argument("--mode", default="FFFF")
    args = parser.parse_args(argv)
    try:
        loaded = load_system_file(args.system, mu_intervals=True)
        system = loaded.system
        if system.disturbance is None:
            raise ContactModelError("disturbance: the file has no [disturbance] table")
        d = system.disturbance
        print(f"disturbance on {', '.join(d.coordinates)}: {len(d.set.vertices().vertices)} vertices")
        _sets(f"mu {', '.join(f'{m:g}' for m in system.mu)}", robust_unambiguous(system, args.mode), system.torques)
        if loaded.friction is not None:
            box = loaded.friction
            _sets("every mu of the box", robust_unambiguous_over_friction(system, box, args.mode), system.torques)
    except ContactModelError as exc:
        print(f"box_pushed_robust: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
