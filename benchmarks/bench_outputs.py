"""Timing of every mode's ``T_c`` and its projection onto two outputs at scale (issue 40, item 6).

Run: ``python benchmarks/bench_outputs.py [--feet 1,2,3,4] [--sides 4] [--sample N]``. For Solo-12
standing (``examples/spatial/solo12_standing.toml``) on the first ``k`` of its feet (a copy of the
file with fewer contacts) and friction polygons of ``n_f`` sides, one row per ``(k, n_f)``:

* ``modes``: the enumeration's count and the kinematically feasible ones (Table III / III-F);
  ``feasible``: modes with a nonempty ``D_c`` (= ``T_c`` here: at rest ``w = 0``);
* ``T_c s``: responses and emptiness of every ``D_c`` (``AnalysisSession.feasible_modes``, the
  stacked SVDs and one verified LP batch);
* ``sweep s``: every feasible mode's set of outputs ``qdd.z, qdd.wy`` by the batched sweep
  (``contactmodes.analysis.outputs.planar_outputs``) and how many it certified;
* ``per-mode s``: the previous path (``mode_outputs``, one projection per mode) on ``N`` modes
  drawn at random (seed 0), scaled to all feasible modes, and the ratio ``per-mode / sweep`` —
  both measured in the same run. The sets are compared (``Polytope.equals``) on the sample.

Numbers are machine dependent (this 2-core machine is shared): quote the ratios.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.outputs import mode_outputs, output_spec, planar_outputs  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402

EXAMPLE = ROOT / "examples" / "spatial" / "solo12_standing.toml"
OUTPUTS = "qdd.z, qdd.wy"


def solo(feet: int, sides: int, folder: Path) -> Path:
    """The example with its first ``feet`` contacts and ``sides`` polygon sides (a copy)."""
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace('urdf = "solo12.urdf"', f'urdf = "{(EXAMPLE.parent / "solo12.urdf").as_posix()}"')
    text = text.replace("sides = 4", f"sides = {sides}")
    head, *contacts = text.split("[[contacts]]")
    last = contacts[-1]
    state = last[last.index("[state.q]"):]
    contacts[-1] = last[:last.index("[state.q]")]
    path = folder / f"solo_{feet}_{sides}.toml"
    path.write_text(head + "".join("[[contacts]]" + c for c in contacts[:feet]) + state, encoding="utf-8")
    return path


def row(path: Path, sample: int) -> dict:
    system = cm.load_system(path)
    s = AnalysisSession(system)
    t0 = time.perf_counter()
    en = s.enumeration
    feasible = s.feasible_modes(True)
    t_T = time.perf_counter() - t0
    spec = output_spec(system, OUTPUTS)
    t0 = time.perf_counter()
    fast = planar_outputs(s, feasible, spec)
    t_sweep = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    picked = list(rng.choice(feasible, min(sample, len(feasible)), replace=False))
    t0 = time.perf_counter()
    slow = {m: mode_outputs(s.mode(m), spec) for m in picked}
    t_slow = (time.perf_counter() - t0) * len(feasible) / max(1, len(picked))
    same = all(fast[m].set.equals(slow[m].set) for m in picked if m in fast)
    return dict(total=en.total, kin=en.after_acceleration, feasible=len(feasible), t_T=t_T, t_sweep=t_sweep,
                certified=len(fast), t_slow=t_slow, same=same)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--feet", default="1,2,3,4")
    ap.add_argument("--sides", default="4")
    ap.add_argument("--sample", type=int, default=100)
    args = ap.parse_args(argv)
    print(f"{'feet':>4} {'n_f':>3} {'modes':>7} {'kin.':>7} {'feasible':>8} {'T_c s':>7} {'sweep s':>8} "
          f"{'certified':>9} {'per-mode s':>10} {'ratio':>6} same")
    with tempfile.TemporaryDirectory() as tmp:
        for sides in (int(v) for v in args.sides.split(",")):
            for feet in (int(v) for v in args.feet.split(",")):
                r = row(solo(feet, sides, Path(tmp)), args.sample)
                print(f"{feet:>4} {sides:>3} {r['total']:>7} {r['kin']:>7} {r['feasible']:>8} {r['t_T']:>7.2f} "
                      f"{r['t_sweep']:>8.2f} {r['certified']:>9} {r['t_slow']:>10.1f} "
                      f"{r['t_slow'] / max(r['t_sweep'], 1e-9):>6.0f} {r['same']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
