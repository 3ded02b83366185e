"""Timing of ``--unambiguous`` with the interior-overlap screen (issue 40, item 6(b)).

Run: ``python benchmarks/bench_unambiguous_screen.py [--repeat N] [--pairwise-four]``.

What is timed (interpreter start and the Pinocchio import excluded, a fresh ``AnalysisSession``
each time, so the enumeration and every domain built are included):

* **three feet**: Solo-12 with its first three feet as contacts (``examples/spatial/
  solo12_standing.toml`` cut to three ``[[contacts]]``; ``10^3`` modes), ``unambiguous(·, "FFF")``
  screened (``screen=True``: ``PointFilter.interior_overlaps``, then the pairwise path on the modes
  left) and the previous pairwise path (``screen=False``: every mode's ``T_c`` intersected with
  ``T_FFF``) in the same run; their ``T*_c`` are compared as sets (``polytopes.difference`` both
  ways, nothing of full dimension left) and the ratio ``pairwise / screened`` is printed;
* **four feet**: Solo-12 on four feet (``10^4`` modes), ``unambiguous(·, "FFFF")`` by the default
  path (which screens), the screen alone, and the command ``contactmodes analyze
  examples/spatial/solo12_standing.toml --unambiguous --mode FFFF`` (wall time of the process);
  with ``--pairwise-four`` also the previous path on four feet once (minutes).

Medians over ``N`` repeats (s); numbers are machine dependent: quote the ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.ambiguity import unambiguous  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402
from bench_outputs import solo  # noqa: E402  (a sibling script, as benchmarks import _child)
from polytopes import difference  # noqa: E402

SOLO = ROOT / "examples" / "spatial" / "solo12_standing.toml"


def solo_with_feet(feet: int, folder: Path):
    """Solo-12 standing with only its first ``feet`` feet as contacts (``bench_outputs.solo``)."""
    return cm.load_system(solo(feet, 4, folder))


def timed(system, mode: str, screen: bool | None):
    t0 = time.perf_counter()
    res = unambiguous(AnalysisSession(system), mode, screen=screen)
    return res, time.perf_counter() - t0


def same_set(P, Q, dim: int) -> bool:
    thin = lambda pieces: all(p.is_empty() or p.affine_dimension() < dim for p in pieces)  # noqa: E731
    return all(thin(difference(p, Q)) for p in P) and all(thin(difference(q, P)) for q in Q)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pairwise-four", action="store_true")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        three = solo_with_feet(3, Path(tmp))
    screened, pairwise = [], []
    for _ in range(args.repeat):
        on, t_on = timed(three, "FFF", True)
        off, t_off = timed(three, "FFF", False)
        screened.append(t_on)
        pairwise.append(t_off)
    same = same_set(on.scaled_pieces, off.scaled_pieces, three.n_tau)
    a, b = statistics.median(screened), statistics.median(pairwise)
    print(f"three feet (1000 modes) FFF: screened {a:.2f} s ({len(on.sources)} sources), pairwise {b:.2f} s "
          f"({len(off.sources)} sources), ratio {b / a:.1f}, same T*_c: {same}")
    four = cm.load_system(SOLO)
    runs = [timed(four, "FFFF", None) for _ in range(args.repeat)]
    res = runs[-1][0]
    ses = AnalysisSession(four)
    ses.enumeration  # noqa: B018 (the screen alone, after the enumeration and T_FFFF)
    T = ses.mode("FFFF").T_scaled(True)
    t0 = time.perf_counter()
    kept = ses.point_filter(False).interior_overlaps(T, list(ses.enumeration.modes))
    t_screen = time.perf_counter() - t0
    print(f"four feet (10^4 modes) FFFF: unambiguous {statistics.median(t for _, t in runs):.2f} s "
          f"(screen alone {t_screen:.2f} s, {len(kept)} kept), {len(res.unambiguous)} piece(s), "
          f"{len(res.sources)} sources")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    walls = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "contactmodes", "analyze", str(SOLO), "--unambiguous", "--mode", "FFFF"],
                       check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - t0)
    print(f"command 'contactmodes analyze solo12_standing.toml --unambiguous --mode FFFF': "
          f"{statistics.median(walls):.2f} s wall (median of {args.repeat})")
    if args.pairwise_four:
        off4, t4 = timed(four, "FFFF", False)
        print(f"four feet pairwise: {t4:.1f} s ({len(off4.sources)} sources), same T*_c: "
              f"{same_set(res.scaled_pieces, off4.scaled_pieces, four.n_tau)}")


if __name__ == "__main__":
    main()
