"""Atlas of the two-link brace (bracing paper, set-up 1): where mode ``FFF`` holds, and how large
its unambiguous set ``T*_FFF`` is, over the friction coefficient of all three contacts and the
elbow angle.

Run::

    python examples/sweep_brace_atlas.py --out DIR [--mu 0.125:1:8] [--elbow=-150:-30:9] [--workers N]

writes ``DIR/brace_atlas.csv`` (one row per point) and ``DIR/brace_atlas.png`` (heat maps) and
prints the table. ``--workers 0`` runs in this process; default: a Dask ``LocalCluster`` on every core.

Geometry. ``examples/two_link_brace.toml`` is the brace at the elbow angle ``theta1 = −90°``
between walls ``x = 0`` (base and tip) and ``x = −L cos 45°`` (joint). Another elbow angle keeps
the brace symmetric and touching: the tip stays on ``x = 0`` iff
``cos θ + cos(θ + θ1) = 0``, i.e. ``θ = 90° − θ1/2``, and the joint's wall moves to
``x = L cos θ``. A plain ``--vary`` cannot move the wall with the angle, so this example uses the
Python API's ``derive`` hook (``brace_geometry``); the sweep itself is
``contactmodes.sweep("analyze", ...)``.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = ROOT / "examples" / "two_link_brace.toml"
L = 0.127  # m, link length in two_link_brace.toml
BOX = "-1:1"  # N·m: the elbow torques the robust set is measured in


def brace_geometry(params: dict) -> dict:
    """The keys that follow the elbow angle ``state.q.theta1_deg`` (module doc): the base angle
    ``θ = 90° − θ1/2`` and the joint's wall ``x = L cos θ`` (m)."""
    theta = 90.0 - params["state.q.theta1_deg"] / 2.0
    return {"state.q.theta_deg": theta, "contacts.2.surface_point.0": L * math.cos(math.radians(theta))}


def atlas(mu: str = "0.125:1:8", elbow: str = "-150:-30:9", workers: int | None = None, progress=None):
    """The sweep's ``SweepResult`` (``FFF`` with ``T*`` in ``BOX``)."""
    from contactmodes.sweeps import run_sweep

    return run_sweep("analyze", {"contacts.*.mu": mu, "state.q.theta1_deg": elbow}, system=SYSTEM,
                     modes=["FFF"], unambiguous=True, inconsistency_box=BOX, derive=brace_geometry,
                     workers=workers, progress=progress, announce=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temporary directory)")
    parser.add_argument("--mu", default="0.125:1:8", help="SPEC of contacts.*.mu (default 0.125:1:8)")
    parser.add_argument("--elbow", default="-150:-30:9", help="SPEC of the elbow angle theta1 in degrees")
    parser.add_argument("--workers", type=int, default=None, help="local Dask workers (0: this process)")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="brace-atlas-"))
    out.mkdir(parents=True, exist_ok=True)
    from contactmodes.sweeps.plot import plot_sweep

    result = atlas(args.mu, args.elbow, args.workers)
    result.write_table(str(out / "brace_atlas.csv"))
    plot_sweep(result, str(out / "brace_atlas.png"),
               title="Two-link brace: mode FFF over μ (all contacts) and the elbow angle θ1")
    cols = ["contacts.*.mu", "state.q.theta1_deg", "FFF.T_hi.tau1", "FFF.unambiguous_hi.tau1",
            "FFF.unambiguous_measure"]
    print(result.to_frame()[cols].to_string(index=False))
    print(f"wrote {out / 'brace_atlas.csv'} and {out / 'brace_atlas.png'}")
    return 0


if __name__ == "__main__":  # Dask's worker processes re-import this file: keep the run behind the guard
    sys.exit(main())
