"""Re-derive the max-thrust controller's velocity thresholds v0 with the paper's Fig. 12 procedure.

Run: ``python benchmarks/velocity_thresholds.py [--out DIR] [--duration S]``.

Procedure (flipping paper Sec. IV-C.3, Fig. 12): "we consider intervals wherein the contact is
fixed in simulation and identify the range of model predictions for velocities", over a typical
flipping run with the blind controller. Here: blind flips at μ_t = 0.39 and 0.6 (the paper's two
surfaces; every other parameter at its ``RHexParams`` default: calibrated torque limit, tuned
detector); at the start of each control step the rigid model (``rigid_model`` at the simulated
state: ``J q̇`` with the compliant legs' hip speeds, no radial leg rate) predicts the tangential
velocity of the body corner and of each toe; over the steps inside a fixed interval of that
contact in the simulation (``controllers.rhex.calibration.fixed_steps``), the largest predicted
speed, rounded up to two significant digits and never below 1 mm/s, is the threshold
(``controllers.rhex.calibration.velocity_thresholds``). The result goes into
``RHexParams.v0`` by hand. The paper's values: v1 = 0.08 m/s (rear toe), v2 = v3 = 0.001 m/s.

Prints the table per contact and run, writes ``fig12_mu039.png`` and ``fig12_mu060.png`` (Fig. 12:
predicted against simulated toe velocities, the fixed intervals shaded, ±v0 dashed) and
``velocity_thresholds.json`` into ``--out`` (default a new temporary directory). About 20 s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rhex_runs import fmt, output_dir  # noqa: E402

from controllers.rhex import RHexParams, simulate_flip  # noqa: E402
from controllers.rhex.calibration import (predicted_contact_velocities, simulated_contact_velocities,  # noqa: E402
                                          velocity_thresholds)
from controllers.rhex.plots import plot_velocity_thresholds  # noqa: E402
from controllers.rhex.rigid_model import CONTACT_NAMES  # noqa: E402

FRICTIONS = (0.39, 0.6)
PAPER_V0 = (None, 0.08, 0.001, 0.001)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temporary directory)")
    parser.add_argument("--duration", type=float, default=1.0, help="simulated seconds per run (default 1)")
    args = parser.parse_args(argv)
    out = output_dir(args.out, "rhex-v0-")
    runs = {}
    try:
        for mu in FRICTIONS:
            run = simulate_flip(RHexParams(mu_toe=mu), "blind", args.duration)
            if run.result.outcome == "interrupted":
                raise KeyboardInterrupt
            res = run.result
            runs[mu] = (res, predicted_contact_velocities(res), simulated_contact_velocities(res))
            print(f"  blind at mu_t={mu}: {res.outcome} {fmt(res.flip_time)} s", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    per_run = {mu: velocity_thresholds(pv, list(r.sim_modes)) for mu, (r, pv, _) in runs.items()}
    joint = velocity_thresholds([pv for _, pv, _ in runs.values()], [list(r.sim_modes) for r, _, _ in runs.values()])
    current = RHexParams().v0
    print("Velocity thresholds by the Fig. 12 procedure (blind flips; largest rigid-model speed while the "
          "simulated contact is fixed)")
    print()
    print("| contact | " + " | ".join(f"max speed mu_t={mu} (m/s) [steps]" for mu in FRICTIONS)
          + " | v0 derived (m/s) | v0 in RHexParams | paper |")
    print("|---|" + "---|" * len(FRICTIONS) + "---|---|---|")
    for i, name in enumerate(CONTACT_NAMES):
        cells = [f"{fmt(per_run[mu][i]['max_speed'], '.4f')} [{per_run[mu][i]['n_fixed']}]" for mu in FRICTIONS]
        print(f"| {name} | " + " | ".join(cells) + f" | {joint[i]['threshold']:g} | {current[i]:g} | "
              f"{fmt(PAPER_V0[i], 'g', 'not given')} |")
    derived = tuple(d["threshold"] for d in joint)
    same = all(abs(a - b) <= 1e-12 for a, b in zip(derived, current))
    print()
    print(f"derived v0 = {derived}; RHexParams().v0 = {current}: {'the same' if same else 'DIFFERENT'}")
    for mu, (res, pv, sv) in runs.items():
        name = f"fig12_mu{int(round(mu * 100)):03d}.png"
        plot_velocity_thresholds(res.times[:-1], pv, sv, res.sim_modes, derived, str(out / name),
                                 title=f"Fig. 12: contact velocities, blind flip at μ_t = {mu} "
                                       f"(rigid model vs simulation)")
        print(f"wrote {out / name}")
    doc = {"frictions": list(FRICTIONS), "contacts": list(CONTACT_NAMES), "per_run": {str(k): v for k, v in per_run.items()},
           "derived": list(derived), "current": list(current)}
    (out / "velocity_thresholds.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out / 'velocity_thresholds.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
