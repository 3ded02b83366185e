"""Timing of the unambiguous sets T*_c (issue 3): every feasible mode of every example.

Run: ``python benchmarks/bench_unambiguous.py [--repeat N] [--no-uncached]``. Per example:

* the shared ``untasked_domains`` (every kinematically feasible mode's ``T_c`` without task
  constraints, computed once), then ``unambiguous`` for each kinematically feasible mode reusing
  it (``others=``); infeasible modes return after their own domain and are counted in the total;
* the split of the ``unambiguous`` calls by the result's ``timing`` keys (``feasible``,
  ``across``, ``within``, ``difference``), summed over modes, and the median and largest
  per-mode wall time over the feasible modes;
* two peers measured in the same run: ``analyze()`` of the same example (the issue-2 pipeline:
  every ``T_c`` and their pairwise overlaps), so ``total / analyze`` says what the ambiguity
  analysis costs on top of it; and the same ``unambiguous`` calls *without* the shared cache
  (each call computes every other mode's domain itself), so ``uncached / total`` is what sharing
  ``others`` saves.

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

from contactmodes.analysis.ambiguity import unambiguous, untasked_domains  # noqa: E402
from contactmodes.analysis.analyze import analyze  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

STAGES = ("feasible", "across", "within", "difference")


def run_once(system) -> dict:
    """One pass: shared domains, then ``unambiguous`` per kinematically feasible mode."""
    t0 = time.perf_counter()
    others = untasked_domains(system)
    shared = (time.perf_counter() - t0) * 1e3
    stages = dict.fromkeys(STAGES, 0.0)
    per_mode = []
    for mode in others:
        t1 = time.perf_counter()
        res = unambiguous(system, mode, others=others)
        dt = (time.perf_counter() - t1) * 1e3
        for k in STAGES:
            stages[k] += res.timing.get(k, 0.0) * 1e3
        if res.feasible:
            per_mode.append(dt)
    total = (time.perf_counter() - t0) * 1e3
    return dict(total=total, shared=shared, stages=stages, per_mode=per_mode, n_kin=len(others))


def run_uncached(system, modes) -> float:
    """The same calls without ``others``: each computes the other modes' domains itself (ms)."""
    t0 = time.perf_counter()
    for mode in modes:
        unambiguous(system, mode)
    return (time.perf_counter() - t0) * 1e3


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-uncached", action="store_true", help="skip the uncached peer (slow on RHex)")
    args = parser.parse_args()
    header = (["example", "kin. feasible modes", "feasible modes", "shared T_c' ms"]
              + [f"{s} ms" for s in STAGES]
              + ["total ms", "per mode median ms", "per mode max ms", "analyze() ms", "total / analyze"]
              + ([] if args.no_uncached else ["uncached ms", "uncached / total"]))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for path in sorted((ROOT / "examples").glob("*.toml")):
        system = load_system_file(path).system
        run_once(system)  # warm-up (imports, caches)
        runs = [run_once(system) for _ in range(args.repeat)]
        total = statistics.median(r["total"] for r in runs)
        shared = statistics.median(r["shared"] for r in runs)
        stages = {k: statistics.median(r["stages"][k] for r in runs) for k in STAGES}
        per_mode = [statistics.median(ts) for ts in zip(*(r["per_mode"] for r in runs))]
        n_feasible = len(per_mode)
        peer = median_ms(lambda: analyze(system), args.repeat)
        cells = [path.stem, str(runs[0]["n_kin"]), str(n_feasible), f"{shared:.1f}"]
        cells += [f"{stages[k]:.1f}" for k in STAGES]
        cells += [f"{total:.1f}", f"{statistics.median(per_mode):.2f}" if per_mode else "-",
                  f"{max(per_mode):.2f}" if per_mode else "-", f"{peer:.1f}", f"{total / peer:.2f}"]
        if not args.no_uncached:
            modes = list(untasked_domains(system))
            uncached = median_ms(lambda: run_uncached(system, modes), max(1, args.repeat // 3))
            cells += [f"{uncached:.1f}", f"{uncached / total:.1f}"]
        print("| " + " | ".join(cells) + " |", flush=True)
        print(f"timed {path.stem}", file=sys.stderr)


if __name__ == "__main__":
    main()
