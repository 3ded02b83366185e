"""Timing of the unambiguous sets T*_c (issue 3): every feasible mode of every example.

Run: ``python benchmarks/bench_unambiguous.py [--repeat N]``. Per example: the shared
``untasked_domains`` (every kinematically feasible mode's ``T_c`` without task constraints,
computed once), then ``unambiguous`` for each feasible mode reusing it; the split by stage
(``feasible``, ``across``, ``within``, ``difference``) is summed over modes. The peer, measured
in the same run, is ``analyze()`` of the same example (the issue-2 pipeline: every ``T_c`` and
their pairwise overlaps), so the ratio says what the ambiguity analysis costs on top of it.
Medians over ``N`` repeats (ms); numbers are machine dependent: quote the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contactmodes.ambiguity import unambiguous, untasked_domains  # noqa: E402
from contactmodes.analysis import analyze  # noqa: E402
from contactmodes.io import load_system  # noqa: E402

STAGES = ("feasible", "across", "within", "difference")


def run_once(system) -> tuple[float, float, dict[str, float], int]:
    """(total ms, shared-domains ms, per-stage ms summed over modes, number of feasible modes)."""
    t0 = time.perf_counter()
    others = untasked_domains(system)
    shared = time.perf_counter() - t0
    stages = dict.fromkeys(STAGES, 0.0)
    n = 0
    for mode, dom in others.items():
        res = unambiguous(system, mode, others=others)
        if not res.feasible:
            continue
        n += 1
        for k in STAGES:
            stages[k] += res.timing.get(k, 0.0) * 1e3
    return (time.perf_counter() - t0) * 1e3, shared * 1e3, stages, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    header = (["example", "modes (kin. feasible)", "feasible", "shared T_c' ms"] + [f"{s} ms" for s in STAGES]
              + ["total ms", "per feasible mode ms", "analyze() ms (peer)", "total / analyze"])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for path in sorted((ROOT / "examples").glob("*.toml")):
        system = load_system(path).system
        runs = [run_once(system) for _ in range(args.repeat)]
        total = statistics.median(r[0] for r in runs)
        shared = statistics.median(r[1] for r in runs)
        stages = {k: statistics.median(r[2][k] for r in runs) for k in STAGES}
        n = runs[0][3]
        peer_times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = analyze(system)
            peer_times.append((time.perf_counter() - t0) * 1e3)
        peer = statistics.median(peer_times)
        print(f"| {path.stem} | {len(result.enumeration.modes)} | {n} | {shared:.1f} | "
              + " | ".join(f"{stages[k]:.1f}" for k in STAGES)
              + f" | {total:.1f} | {total / max(n, 1):.1f} | {peer:.1f} | {total / peer:.2f} |")
        print(f"timed {path.stem}", file=sys.stderr)


if __name__ == "__main__":
    main()
