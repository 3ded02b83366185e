"""Climbing via bracing: the brace's robust torque while the free section reaches upward.

Computes the disturbance τ_d of the five-link climber's free section (links 3–5) on its brace
(links 1–2) along the documented trajectory of ``controllers.bracing.climb``, bounds it by a
box (10 % margin), and runs the bracing controller for that box and for bracing.md's box ``D``
(``examples/five_link_climb.toml``). Writes the plot of the disturbance components with both
boxes. Usage::

    python examples/climb_demo.py [--output climb_disturbance.png] [--samples 151]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from contactmodes.system_file.loader import load_system_file
from contactmodes.model.system import Disturbance
from controllers.bracing import BracingController
from controllers.bracing.climb import D_BOX, DURATION, disturbance_along, disturbance_box, inside_box, plot_disturbance
from polytopes import Polytope

HERE = Path(__file__).resolve().parent


def run(output: str, samples: int = 151, margin: float = 0.1) -> dict:
    """Run the demo; returns the numbers it prints (for the test)."""
    times = np.linspace(0.0, DURATION, samples)
    tau_d = disturbance_along(times)
    box = disturbance_box(tau_d, margin)
    brace = load_system_file(HERE / "five_link_climb.toml").system
    controller = BracingController("max_margin")
    results = {}
    for label, (lo, hi) in (("trajectory box", box), ("D of bracing.md", D_BOX)):
        dist = Disturbance(brace.disturbance.coordinates, brace.disturbance.E, Polytope.box(lo, hi))
        results[label] = controller.solve(replace(brace, disturbance=dist), "FFF")
    plot_disturbance(times, tau_d, box, output)
    return dict(times=times, tau_d=tau_d, box=box, inside_D=inside_box(tau_d), results=results)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="climb_disturbance.png")
    parser.add_argument("--samples", type=int, default=151)
    args = parser.parse_args(argv)
    out = run(args.output, args.samples)
    lo, hi = out["box"]
    print(f"tau_d over {out['times'][-1]:.2f} s ({len(out['times'])} samples), components x, y, theta, theta1:")
    print(f"  min {np.array2string(out['tau_d'].min(axis=0), precision=4)}")
    print(f"  max {np.array2string(out['tau_d'].max(axis=0), precision=4)}")
    print(f"  inside bracing.md's D: {out['inside_D']}")
    for label, res in out["results"].items():
        T = res.robust.robust_feasible
        top = T.bounding_box()[1][0] if not T.is_empty() else float("nan")
        if res.success:
            print(f"{label}: robust FFF for tau1 <= {top:.4f} N·m; torque {res.torque[0]:.4f} N·m, margin {res.margin:.4f} N·m")
        else:
            print(f"{label}: {res.message}")
    print(f"plot: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
