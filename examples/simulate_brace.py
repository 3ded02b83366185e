"""The two-link brace on MuJoCo: does it do what the toolkit's torque domains say?

For held torques τ on ``examples/two_link_brace.toml`` the script asks the toolkit which modes'
torque domains contain τ (``contactmodes.analyze(...).locate``), runs the torque in closed loop
on the MuJoCo plant (``controllers.simulation``) for ``--duration`` seconds and prints, per
torque, the modes MuJoCo read (share of control steps), how far the brace moved and how fast its
sticking contacts crept. τ = 0 lies in no domain with a sticking contact (the brace falls),
τ = −0.5 N·m in FFF's alone (it holds). Usage::

    python examples/simulate_brace.py [--duration 1] [--tau 0 --tau -0.5 ...]

Needs the ``sim`` extra (MuJoCo: ``pip install 'contactmodes[sim]'``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

import contactmodes as cm
from contactmodes.system_file.loader import load_system_file
from controllers.simulation.document import creep
from controllers.simulation.loop import simulate
from controllers.simulation.model import build_plant

BRACE = Path(__file__).resolve().parent / "two_link_brace.toml"


def run(taus: list[float], duration: float = 1.0) -> list[dict]:
    """Per torque: the toolkit's modes containing it, MuJoCo's mode shares, the largest change of
    ``q`` (m, rad) and the largest creep speed (m/s, ``None`` when nothing sticks)."""
    loaded = load_system_file(BRACE)
    result = cm.analyze(BRACE)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot)
    rows = []
    for tau in taus:
        held = np.array([tau])
        run_ = simulate(plant, loaded.q, loaded.qdot, lambda q, qd: held, duration, 100.0)
        shares = {m: n / len(run_.modes) for m, n in Counter(run_.modes).most_common()}
        speeds = [c["speed_m_s"] for c in creep(run_).values() if c is not None]
        rows.append({"tau": tau, "toolkit": sorted(result.locate(held)), "mujoco": shares,
                     "moved": float(np.abs(run_.q - loaded.q).max()), "creep": max(speeds) if speeds else None})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=1.0, help="simulated seconds per torque (default 1)")
    parser.add_argument("--tau", type=float, action="append", default=None,
                        help="held torque tau1 (N·m); repeatable (default: 0 and -0.5)")
    args = parser.parse_args()
    for row in run(args.tau or [0.0, -0.5], args.duration):
        mujoco = ", ".join(f"{m} {100 * s:.0f} %" for m, s in row["mujoco"].items())
        crept = "no sticking contact" if row["creep"] is None else f"creep {row['creep']:.1e} m/s"
        print(f"tau1 = {row['tau']:+.3g} N·m: toolkit {', '.join(row['toolkit']) or 'no mode'}; "
              f"MuJoCo {mujoco}; q moved up to {row['moved']:.3g}; {crept}")


if __name__ == "__main__":
    main()
