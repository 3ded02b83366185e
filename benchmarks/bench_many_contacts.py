"""Many contacts (issue 28 item 4): ``analyze --json`` of a box on k contacts and of the zig-zag
chain, in one process and on a local Dask cluster.

Systems (``tests/_support``): the box at rest on ``k`` evenly spaced floor contacts with a
reaction wheel (``boxes.box_on_contacts``; ``corner``: pushed into a corner, ``k // 2`` more
contacts on a wall) for ``k`` in ``--box-ks``; the zig-zag chain wedged between a floor and a
ceiling (``chains.zigzag_chain``) for ``k = --kmin … --kmax``. Each run is a fresh child process
that does what ``contactmodes analyze FILE --json`` does (``contactmodes.cli._analyze``: the
analysis with the default overlap limit, then the document and its ``json.dumps``), timing its
stages: ``enum`` (the enumeration, in the main process in both cases), ``modes`` (responses,
emptiness LPs; on the cluster also the boxes and every ``T_c``), ``pairs`` (the rest of
``analyze``: bounding boxes, the candidate sweep, overlap tests when there are at most 20 000
candidates) and ``json`` (the document streamed to a file as ``analyze --json`` streams it,
``AnalysisResult.iter_json``: in one process every feasible mode's ``T_c`` is computed here,
256 modes at a time, and released once written; the tables below up to 2026-11-26 morning were
taken with an earlier version of this script that computed every ``T_c`` first, ``proj``, and
built the document whole, so their MB overstate what the CLI uses). ``--workers N`` adds the same run on a ``LocalCluster`` of ``N`` worker processes
(``analyze --workers N``; ``wall`` includes starting the cluster, ``cpu`` is this process's plus
its finished children's, the workers'). Peak memory: the child's (``ru_maxrss``; on the cluster
also the largest worker's). Every cluster document is compared with the single-process one
(``tests/_support/golden.py``'s rule): ``same`` in the table.

Usage: ``python benchmarks/bench_many_contacts.py [--box-ks 8,16,32,64,128,256] [--no-corner]
[--kmin 2] [--kmax 10] [--workers 2] [--timeout 900]``. Prints a table (and the 64-core
estimate); writes nothing outside a temporary directory.

Measured on 2026-11-26 on the 2-core development machine shared with other sessions (load 3–7:
wall times are inflated and noisy; CPU seconds are the steadier measure; quote ratios of one run).
Boxes (``--box-ks 8,16,32,64,128,256 --kmax 0 --workers 0``; 10 or 12 modes survive the
enumeration whatever k, 3 are feasible, 2 candidate pairs; ``proj`` is 0 because the overlap
test has already projected them):

| system | 1 process: wall s | cpu s | MB | stages s |
|---|---|---|---|---|
| box 8 | 0.92 | 0.49 | 105 | enum 0.03 modes 0.00 pairs 0.03 json 0.00 |
| box 8 corner | 1.16 | 0.58 | 120 | enum 0.35 modes 0.02 pairs 0.02 json 0.00 |
| box 16 | 2.50 | 0.56 | 105 | enum 0.06 modes 0.02 pairs 0.03 json 0.01 |
| box 16 corner | 1.46 | 0.73 | 122 | enum 0.32 modes 0.04 pairs 0.07 json 0.01 |
| box 32 | 1.93 | 0.82 | 123 | enum 0.37 modes 0.32 pairs 0.05 json 0.02 |
| box 32 corner | 1.71 | 0.82 | 129 | enum 0.57 modes 0.04 pairs 0.14 json 0.01 |
| box 64 | 2.98 | 0.99 | 135 | enum 0.51 modes 0.53 pairs 0.26 json 0.04 |
| box 64 corner | 4.37 | 1.48 | 154 | enum 2.04 modes 0.31 pairs 0.14 json 0.02 |
| box 128 | 5.34 | 2.00 | 177 | enum 2.32 modes 0.86 pairs 0.91 json 0.06 |
| box 128 corner | 8.25 | 3.94 | 251 | enum 2.38 modes 1.40 pairs 3.06 json 0.04 |
| box 256 | 26.04 | 8.38 | 345 | enum 12.53 modes 4.85 pairs 7.14 json 0.16 |

Before this round (c07452f, the same machine the same morning, CLI ``analyze --json``, CPU s):
box 64 1.73, box 64 corner 6.32, box 128 10.54; box 256 did not finish in 12 CPU minutes under
cProfile. Where the box's time went and what changed: stacked 516 × 516 SVDs with OpenBLAS's
spinning threads on a busy machine (one BLAS thread now, ``contactmodes._blas``), the recession
cone's double description for the boxes of domains over ~2k ambiguity variables (skipped above
``BOX_RAYS_MAX_DIM``), the re-check of one-dimensional support projections (certified by
construction now). The rest at 256 contacts: the enumeration (256 levels of 28 prefix LPs of
~500 rows) and two HiGHS LPs on the all-sticking domain.

Chain (``--box-ks '' --kmin 2 --kmax 10 --workers 2``, k = 8–10 from a second run of
``--kmin 8``; the cluster run only from 500 modes on):

| system | 4^k / after vel. / after acc. / feasible | candidate pairs | 1 process: wall s | cpu s | MB | stages s | 2 workers: wall s | cpu s (all) | MB main / worker | stages s | speed-up | per worker | same |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| chain 2 | 16 / 16 / 10 / 6 | 5 | 0.99 | 0.49 | 105 | enum 0.00 modes 0.01 pairs 0.04 proj 0.00 json 0.00 | – | – | – | – | – | – | – |
| chain 3 | 64 / 64 / 24 / 11 | 36 | 0.97 | 0.54 | 106 | enum 0.00 modes 0.01 pairs 0.01 proj 0.06 json 0.01 | – | – | – | – | – | – | – |
| chain 4 | 256 / 256 / 56 / 37 | 412 | 1.27 | 0.66 | 109 | enum 0.02 modes 0.03 pairs 0.12 proj 0.08 json 0.01 | – | – | – | – | – | – | – |
| chain 5 | 1024 / 1024 / 128 / 81 | 2470 | 1.47 | 0.80 | 110 | enum 0.05 modes 0.05 pairs 0.47 proj 0.00 json 0.04 | – | – | – | – | – | – | – |
| chain 6 | 4096 / 4096 / 288 / 215 | 17017 | 3.25 | 1.63 | 124 | enum 0.10 modes 0.12 pairs 2.09 proj 0.00 json 0.09 | – | – | – | – | – | – | – |
| chain 7 | 16384 / 16384 / 640 / 491 | 97360 | 4.92 | 2.46 | 223 | enum 0.91 modes 0.33 pairs 0.37 proj 2.23 json 0.18 | 6.42 | 5.41 | 221 / 148 | cluster 2.09 enum 0.40 modes 2.62 pairs 0.01 json 0.10 | 0.77 | 0.38 | yes |
| chain 8 | 65536 / 65536 / 1408 / 1171 | 556578 | 5.94 | 5.34 | 282 | enum 0.53 modes 0.43 pairs 0.48 proj 3.68 json 0.33 | 10.71 | 10.78 | 270 / 194 | cluster 1.27 enum 0.56 modes 7.56 pairs 0.04 json 0.25 | 0.55 | 0.28 | yes |
| chain 9 | 262144 / 262144 / 3072 / 2595 | 2945246 | 14.83 | 14.23 | 434 | enum 0.81 modes 0.94 pairs 1.20 proj 10.70 json 0.67 | 25.88 | 27.99 | 399 / 298 | cluster 1.14 enum 2.44 modes 19.90 pairs 0.16 json 0.74 | 0.57 | 0.29 | yes |
| chain 10 | 1048576 / 1048576 / 6656 / 5937 | 15565987 | 47.58 | 45.57 | 824 | enum 1.21 modes 2.43 pairs 3.86 proj 37.45 json 1.66 | 86.61 | 84.91 | 720 / 426 | cluster 1.20 enum 3.00 modes 76.66 pairs 0.83 json 2.74 | 0.55 | 0.27 | yes |

Chain k = 8 ``analyze --json`` before this round (c07452f, CLI, the same run): 14.6 CPU s, now
8.0 (the ray checks of the projections' verification batched). On this machine the cluster is
*slower*: two workers share two cores with the main process and the other sessions' load, and
a worker's per-mode work costs more than the same work in one process (chain k = 9 on one
worker: 21 s against 12 s; chunk for chunk 1.3–1.5× plus about 2 s of start-up per worker
process — not yet explained: not serialization (4.6 MB per 256 modes, 20 ms), not Dask's
profiler, not the allocator's trim threshold). Every cluster document equals the single-process
one. A later check (2026-11-26, load 2): the chain-9 chunks of ``_solve_chunk`` on one warmed
worker (numba kernels loaded by ``client.run`` first) cost 10.2 CPU s against 8.8 s for the same
chunks in one process, so a worker's per-mode work is only about 1.16× dearer; the rest of the
gap is the workers' start-up and kernel loads and the main process's share (enumeration, the
overlap sweep, the document), which two workers on two cores compete with.

Estimate for a 64-core cluster, printed by the script from chain k = 10: 6.6 ms of parallel
work per mode (``modes`` + ``pairs`` + ``proj`` per mode after acceleration pruning); serial
stages grown by their measured factor per contact (enumeration ×1.5, JSON ×2.5):

| k | modes | parallel on 64 cores | serial (enum + json) | total | 1 core |
|---|---|---|---|---|---|
| 14 | 139 264 | 14 s | 70 s | ≈ 84 s | ≈ 985 s |
| 15 | 294 912 | 30 s | 167 s | ≈ 198 s | ≈ 2105 s |
| 16 | 622 592 | 64 s | 407 s | ≈ 471 s | ≈ 4499 s |

The estimate takes the worker overhead measured here as zero (×1.5 on the parallel part if it
is real on a dedicated machine) and keeps the enumeration serial, although its large levels now
go to the workers too (``ClusterDecide``); the JSON document is built and written in the main
process (not streamed), so at k = 16 it dominates.

After the box kernel, the threads and the streamed document (2026-11-26, idle machine, this
script streaming the document as the CLI does; ``--box-ks 64,256 --no-corner --kmin 9 --kmax 10
--workers 2``; the estimate from a second run with ``--workers 0``):

| system | 1 process: wall s | cpu s | MB | stages s | 2 workers: wall s | cpu s (all) | MB main / worker | speed-up | same |
|---|---|---|---|---|---|---|---|---|---|
| box 64 | 1.15 | 1.07 | 76 | enum 0.30 modes 0.28 pairs 0.08 json 0.02 | – | – | – | – | – |
| box 256 | 8.36 | 8.48 | 262 | enum 3.99 modes 1.76 pairs 2.29 json 0.07 | – | – | – | – | – |
| chain 9 | 9.68 | 9.78 | 306 | enum 1.57 modes 0.60 pairs 0.55 json 6.50 | 10.18 | 16.50 | 290 / 269 | 0.95 | yes |
| chain 10 | 26.02 | 27.05 | 487 | enum 1.51 modes 1.91 pairs 1.61 json 20.07 | 26.99 | 47.78 | 426 / 373 | 0.96 | yes |

(The child's import of the benchmark's helpers costs about 0.4 s: ``contactmodes analyze box64
--json`` alone takes 0.70 s.) The single process now uses both cores for its large batches
(``polytopes._threads``), so two workers on the same two cores gain nothing (0.95–0.96); the
``json`` stage is the ``T_c`` projections, computed while the document is written. The 64-core
estimate from chain k = 10: 3.32 ms of parallel work per mode, the enumeration grown by at least
the surviving modes' factor (×2.17 per contact; at k = 9–10 its ~1.5 s is mostly loading the
compiled kernel):

| k | modes | parallel on 64 cores | serial (enum) | total | 1 core |
|---|---|---|---|---|---|
| 14 | 139 264 | 7 s | 33 s | ≈ 40 s | ≈ 496 s |
| 15 | 294 912 | 15 s | 72 s | ≈ 87 s | ≈ 1051 s |
| 16 | 622 592 | 32 s | 156 s | ≈ 188 s | ≈ 2223 s |

The document is now streamed with ``--workers`` too, so the main process no longer builds it
whole; the enumeration's large levels go to the workers (``ClusterDecide``), so the serial column
is an upper bound.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "tests"))

from _support.boxes import box_on_contacts  # noqa: E402
from _support.chains import zigzag_chain  # noqa: E402
from _support.golden import compare  # noqa: E402
from _support.toml_writer import to_toml  # noqa: E402

CHILD = r"""
import json, resource, sys, time
t_start = time.perf_counter()
path, workers, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import contactmodes as cm
from contactmodes.analysis.analyze import analyze
from contactmodes.analysis.session import AnalysisSession
from contactmodes.cli import OVERLAP_LP_LIMIT
from contactmodes._blas import single_blas_thread
blas = single_blas_thread()  # as contactmodes analyze does (kept referenced: held to the end)
blas.__enter__()
t = {}
system = cm.load_system(path)
session = AnalysisSession(system)
ctx = None
if workers:
    from contactmodes.analysis.distributed import ClusterDecide, ClusterOverlaps
    from contactmodes.cli._cluster import analysis_client
    from contactmodes.modes.enumeration import enumerate_modes
    s = time.perf_counter()
    ctx = analysis_client(None, workers)
    client = ctx.__enter__()
    t["cluster"] = time.perf_counter() - s
    s = time.perf_counter()
    session = AnalysisSession(system, enumeration=enumerate_modes(system, decide=ClusterDecide(client)))
    t["enum"] = time.perf_counter() - s
else:
    s = time.perf_counter(); session.enumeration; t["enum"] = time.perf_counter() - s
s = time.perf_counter()
if workers:
    session.executor = ClusterOverlaps(client)
    session.executor.prime(session, None, True, project=True)
else:
    session.feasible_modes(True)
t["modes"] = time.perf_counter() - s
s = time.perf_counter(); result = analyze(system, session=session, overlap_limit=OVERLAP_LP_LIMIT)
t["pairs"] = time.perf_counter() - s
if ctx is not None:
    ctx.__exit__(None, None, None)
s = time.perf_counter()
with open(out, "w") as fh:  # streamed as analyze --json streams it: each T_c computed, written, released
    for piece in result.iter_json(release=True):
        fh.write(piece)
    fh.write("\n")
t["json"] = time.perf_counter() - s
self_, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out) as fh:
    doc = json.load(fh)
e = doc["enumeration"]
print("BENCH " + json.dumps({"wall": time.perf_counter() - t_start, "cpu": self_.ru_utime + self_.ru_stime,
      "cpu_children": kids.ru_utime + kids.ru_stime, "mb": self_.ru_maxrss / 1024, "mb_children": kids.ru_maxrss / 1024,
      "stages": t, "total": e["total"], "velocity": e["after_velocity"], "accel": e["after_acceleration"],
      "feasible": sum(m["feasible"] for m in doc["modes"]), "pairs": doc["candidate_pairs"],
      "where": cm.__file__}), file=sys.__stderr__)
"""


def run(path: str, workers: int, out: str, timeout: float) -> dict | str:
    """The child's measurements, or the reason it gave none."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, path, str(workers), out], capture_output=True, text=True,
                              env=env, timeout=timeout, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return f"timeout {timeout:.0f} s"
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")]
    if not lines:
        return (proc.stderr.strip().splitlines() or ["failed"])[-1][:80]
    m = json.loads(lines[-1][6:])
    if not m["where"].startswith(str(ROOT)):
        raise RuntimeError(f"benchmark child imported {m['where']}, not {ROOT}")
    return m


def _stages(m: dict) -> str:
    return " ".join(f"{k} {v:.2f}" for k, v in m["stages"].items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--box-ks", default="8,16,32,64,128,256", help="comma-separated k of the box ('' for none)")
    ap.add_argument("--no-corner", action="store_true", help="no box in a corner")
    ap.add_argument("--kmin", type=int, default=2)
    ap.add_argument("--kmax", type=int, default=10, help="largest chain k (0: no chain)")
    ap.add_argument("--workers", type=int, default=2, help="also on a LocalCluster of this many workers (0: not)")
    ap.add_argument("--cluster-min-modes", type=int, default=500,
                    help="the cluster run only for systems with at least this many modes after acceleration")
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args()
    systems = []
    for k in [int(x) for x in args.box_ks.split(",") if x.strip()]:
        systems.append((f"box {k}", box_on_contacts(k)))
        if not args.no_corner:
            systems.append((f"box {k} corner", box_on_contacts(k, corner=True)))
    systems += [(f"chain {k}", zigzag_chain(k)) for k in range(args.kmin, args.kmax + 1) if args.kmax]
    print(f"| system | 4^k / after vel. / after acc. / feasible | candidate pairs | 1 process: wall s | cpu s | MB "
          f"| stages s | {args.workers} workers: wall s | cpu s (all) | MB main / worker | stages s | speed-up "
          f"| per worker | same |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    chain_costs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, doc in systems:
            path = os.path.join(tmp, name.replace(" ", "_") + ".toml")
            Path(path).write_text(to_toml(doc))
            one = run(path, 0, os.path.join(tmp, "one.json"), args.timeout)
            if isinstance(one, str):
                print(f"| {name} | – | – | {one} | | | | | | | | | | |", flush=True)
                continue
            big = lambda n: str(n) if n < 10 ** 9 else f"4^{round(math.log(n, 4))}"  # noqa: E731
            row = [name, f"{big(one['total'])} / {big(one['velocity'])} / {one['accel']} / {one['feasible']}",
                   str(one["pairs"]),
                   f"{one['wall']:.2f}", f"{one['cpu']:.2f}", f"{one['mb']:.0f}", _stages(one)]
            if name.startswith("chain"):
                chain_costs.append((int(name.split()[1]), one))
            if args.workers and one["accel"] >= args.cluster_min_modes:
                many = run(path, args.workers, os.path.join(tmp, "many.json"), args.timeout)
                if isinstance(many, str):
                    row += [many, "", "", "", "", "", ""]
                else:
                    same = compare(json.loads(Path(tmp, "many.json").read_text()),
                                   json.loads(Path(tmp, "one.json").read_text())) == []
                    speed = one["wall"] / many["wall"]
                    row += [f"{many['wall']:.2f}", f"{many['cpu'] + many['cpu_children']:.2f}",
                            f"{many['mb']:.0f} / {many['mb_children']:.0f}", _stages(many), f"{speed:.2f}",
                            f"{speed / args.workers:.2f}", "yes" if same else "NO"]
            else:
                row += ["–"] * 7
            print("| " + " | ".join(row) + " |", flush=True)
    if chain_costs:
        estimate(chain_costs)


def estimate(costs: list[tuple[int, dict]], cores: int = 64) -> None:
    """The 64-core estimate at k = 14–16 from the largest chain measured: per-mode cost of the
    parallel stages (``modes``, the boxes, taken as all of ``pairs`` — an upper bound — and
    ``json``, nearly all of it the ``T_c`` projections computed while the document is written;
    its writing, a few per cent, is counted as parallel too), the serial stage ``enum`` grown by
    its measured factor per contact (at least the surviving modes' factor), the modes after
    acceleration pruning ``(k+3)·2^(k−1)`` (the
    chain's count)."""
    k0, m = costs[-1]
    st = m["stages"]
    per_mode = (st["modes"] + st["pairs"] + st["json"]) / max(1, m["accel"])
    grow = {}
    if len(costs) >= 2:
        k1, m1 = costs[-2]
        for key in ("enum",):
            # at least the growth of the surviving modes (the enumeration is output-sensitive; at
            # small k its time is mostly loading the compiled kernel, which does not grow)
            floor = ((k0 + 3) * 2 ** (k0 - 1) / ((k1 + 3) * 2 ** (k1 - 1))) ** (1.0 / (k0 - k1))
            grow[key] = max(floor, (st[key] / max(1e-3, m1["stages"][key])) ** (1.0 / (k0 - k1)))
    print(f"\nestimate on {cores} cores from chain k = {k0}: {per_mode * 1e3:.2f} ms per mode (parallel stages), "
          f"serial growth per contact: " + ", ".join(f"{k} ×{v:.2f}" for k, v in grow.items()))
    for k in (14, 15, 16):
        n = (k + 3) * 2 ** (k - 1)
        serial = st["enum"] * grow.get("enum", 2.2) ** (k - k0)
        print(f"  k = {k}: {n} modes: parallel {n * per_mode / cores:.0f} s + serial {serial:.0f} s "
              f"≈ {n * per_mode / cores + serial:.0f} s (1 core: {n * per_mode + serial:.0f} s)")


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"\n(benchmark wall time {time.time() - started:.0f} s)", file=sys.stderr)
