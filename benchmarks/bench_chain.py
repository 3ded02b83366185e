"""Scaling of ``contactmodes analyze`` with the number of contacts: the zig-zag chain at rest.

The k-link chain wedged between a floor and a ceiling (``tests/_support/chains.py``: links 0.127 m,
0.0849 kg, inertia m·L²/12, 40° zig-zag, μ = 0.5, one actuator per joint, k contacts, all at
rest — every one of the 4^k modes passes velocity pruning; (k+3)·2^(k−1) survive acceleration
pruning). For each k the system file is written to a temporary directory and analysed by the CLI
in a fresh process (CPU seconds and peak resident memory of that process):

* ``default``: ``contactmodes analyze FILE`` (text; overlaps tested only up to the default
  candidate limit, rows beyond 200 summarized);
* ``--overlaps``: every candidate pair tested and listed (up to ``--overlaps-max-k``);
* ``baseline``: the previous code (``--baseline REV``, default the commit before this round,
  extracted with ``git archive`` into a temporary directory) on the same file, every pair tested
  (the code before this round always did; a later revision is given ``--overlaps``), compared with
  ``--overlaps``, up to ``--baseline-max-k`` (the pre-round code grows 6–7× per contact).

Usage: ``python benchmarks/bench_chain.py [--kmax 12] [--overlaps-max-k 8] [--baseline 4728fe8]
[--baseline-max-k 7] [--json-max-k 10] [--timeout 900] [--coretype Haswell]`` (``--json-max-k``:
also ``analyze FILE --json``, this code's and the baseline's, up to that k; ``--coretype``: this
code's default and ``--json`` runs again under that OpenBLAS kernel, another CPU's rounding and
speed, in columns of their own). Prints a table; writes nothing outside a temporary directory.

Measured on 2026-11-25 on the 2-core development machine (CPU seconds and peak MB of one CLI
process; ``python benchmarks/bench_chain.py --kmax 10 --overlaps-max-k 8 --baseline fe41059
--baseline-max-k 8``, ``baseline`` = the previous session's final code, given ``--overlaps``; k = 11
and 12 from an earlier run of the same day with ``--overlaps-max-k 1 --baseline-max-k 1``):

| k | modes after accel. | default s | MB | candidate pairs | --overlaps s | MB | pairs | baseline s |
|---|---|---|---|---|---|---|---|---|
| 4 | 56 | 0.41 | 47 | 279 (tested) | 0.43 | 47 | 279 | 0.43 |
| 5 | 128 | 0.68 | 47 | 1551 (tested) | 0.67 | 47 | 1551 | 0.66 |
| 6 | 288 | 1.60 | 60 | 10009 (tested) | 1.69 | 62 | 10009 | 1.89 |
| 7 | 640 | 1.51 | 188 | 97360 | 7.16 | 262 | 55106 | 17.3 |
| 8 | 1408 | 1.86 | 219 | 556578 | 45.9 | 520 | 308733 | 43.9 |
| 9 | 3072 | 3.46 | 293 | 2945246 | – | – | – | – |
| 10 | 6656 | 7.47 | 480 | 15565987 | – | – | – | – |
| 11 | 14336 | 22.0 | 915 | 72965889 | – | – | – | – |
| 12 | 30720 | 62.4 | 2006 | 359448786 | – | – | – | – |

The issue's targets: k = 8 with overlaps ≤ 120 s and ≤ 4 GB (46 s, 0.5 GB), k = 10 by default
≤ 30 s and ≤ 4 GB (7.5 s, 0.5 GB): met. At k = 8 the overlaps are decided where this session
changed nothing (1171 of the 1408 modes have more than ``LIFTED_PAIRS_MAX`` partners and are
projected): the same 44 s as fe41059 when run alone, one after the other, with byte-identical
``--overlaps --json`` outputs (``cmp``; also at k = 6 and 7). On 2026-11-23 (a slower machine,
older code) the same table read 5.16 s at k = 8, 21.8 s at k = 10 by default and 94.9 s at k = 8
with ``--overlaps``; the code before this round (4728fe8) took 34 s at k = 7 (every pair tested)
and failed at k = 8. Where the default k = 10 run's time goes: the response and substituted rows
of each of the 6656 modes and their emptiness set-up, the bounding boxes (most unbounded sides
proven by the session's recession-ray pool, the bounded ones by the compiled batched simplex), the
enumeration (of which about 1 s loads the compiled kernel), the box sweep counting 15.6 million
candidate pairs.
Machines and loads differ: quote the ratios.

Issue 28's chain targets, measured on 2026-11-26 (this code at 40b6e7d against dcf4e96, the
previous session's final code, extracted by ``git archive``; one after the other, load average
1.2–1.5 from one other process; ``/usr/bin/time`` on ``contactmodes analyze``; outputs
byte-identical, ``cmp``):

| run | this code: wall s | CPU s | peak MB | dcf4e96: wall s | CPU s | peak MB | target |
|---|---|---|---|---|---|---|---|
| chain 10 ``--json`` | 27.5 | 27.5 | 495 | 47.1 | 46.9 | 844 | ≤ 30 s, ≤ 2 GB: met |
| chain 12 default (text) | 53.1 | 53.3 | 2053 | 64.3 | 64.3 | 2055 | ≤ 30 s: not met |

Where the chain-10 ``--json`` time went: the projections' verification (17 s of 42 in a profile)
— the check LPs now go to the compiled kernel, their distance LPs carry perturbed costs (the dual
simplex cycled on a third of them: each then a single cddlib LP), and check directions along
which both sets are unbounded are settled by verified rays; the document is streamed
(``AnalysisResult.iter_json``: 844 → 495 MB). What is left at k = 12: the 28 003 bounding
boxes of the overlap sweep (about half the time: some 400 000 support LPs, one compiled batch per
mode, the recession cone's double description for 6 800 of them), the enumeration (7 s), the
batched responses (stacked SVDs, 5 s) and the emptiness batch (now compiled). Halving the boxes
needs warm starts across modes or fewer sides per box, not tuning.

Later the same day (``python benchmarks/bench_chain.py --kmin 8 --kmax 12 --overlaps-max-k 1
--baseline '' --json-max-k 10``, idle machine, 2 cores; CPU s counts both threads):

| k | after accel. | default CPU s | wall s | MB | --json CPU s | wall s | MB |
|---|---|---|---|---|---|---|---|
| 8 | 1408 | 2.33 | 1.93 | 217 | 4.64 | 4.26 | 236 |
| 9 | 3072 | 3.36 | 2.67 | 286 | 10.10 | 9.20 | 306 |
| 10 | 6656 | 6.23 | 4.78 | 466 | 26.93 | 24.65 | 487 |
| 11 | 14336 | 14.71 | 10.81 | 917 | – | – | – |
| 12 | 30720 | 33.81 | 24.58 | 1997 | – | – | – |

Chain 12 by default against 6545e40 (the code before these changes, ``git archive``, run just
before on the same idle machine): 55.2 s wall → 24.4–25.8 s over three runs (30.05 s, before the boxes were threaded, with
``CONTACTMODES_THREADS=1``); chain 10 ``--json`` 25.0 → 22.7–24.7 s, 0.5 GB; outputs
byte-identical (``cmp``). What changed, in order of effect: a box side whose batched support LP
leans on its artificial box is proven unbounded by the ray of its final basis (no recession LP, no
double description); the sides of one box are decided in one compiled call
(``polytopes._box_kernel``: NumPy's per-call overhead had cost more than the LPs); large LP
batches, the stacked SVDs and the boxes of many modes are shared by threads
(``polytopes._threads``; every LP, matrix and box is solved on its own, so the answers are one
thread's); the sweep past its list limit only counts. Chain 12 time now: enumeration ~6 s,
responses ~7 s (stacked SVDs 5 s of CPU), emptiness ~3 s, boxes ~7 s, the sweep counting 359
million candidate pairs ~3 s.

Under another CPU's BLAS (issue 39; ``--kmin 10 --kmax 12 --overlaps-max-k 1 --baseline ''
--json-max-k 10 --coretype Haswell``, a loaded host: CPU s of the CLI process): k = 10 default
4.97 / 4.94 s (default kernel / ``Haswell``), ``--json`` 23.88 / 23.91 s; k = 11 12.49 / 12.29 s;
k = 12 29.78 / 28.89 s: the same work (ratio 0.97–1.00). Before ``polytopes._redundancy``'s loop
fix the k = 10 ``--json`` run never ended under ``Haswell`` (a redundancy removal looping on a
far LP vertex; ``docs/realtime.md``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "tests"))

from _support.chains import zigzag_chain  # noqa: E402
from _support.toml_writer import to_toml  # noqa: E402

CHILD = r"""
import resource, sys, time, runpy
t0, w0 = time.process_time(), time.perf_counter()
sys.argv = ["contactmodes"] + sys.argv[1:]
code = 0
try:
    from contactmodes.cli import main
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
out = sys.stdout
sys.stdout = sys.__stderr__
import contactmodes
print(f"BENCH {time.process_time() - t0:.3f} {time.perf_counter() - w0:.3f} "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {code} {contactmodes.__file__}", file=sys.stderr)
"""


def run(pythonpath: str, args: list[str], timeout: float,
        coretype: str | None = None) -> tuple[float | None, float | None, str, str]:
    """``contactmodes ARGS`` in a child on the tree ``pythonpath`` (with ``coretype``: under that
    OpenBLAS kernel, ``OPENBLAS_CORETYPE``): ``(cpu s, peak MB, status, stdout)`` (``None`` s and
    MB with the failure as status); the child's wall seconds are kept in ``LAST_WALL``."""
    env = dict(os.environ, PYTHONPATH=pythonpath)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, env=env,
                              timeout=timeout, cwd=tempfile.gettempdir())  # not the source tree: '' leads sys.path
    except subprocess.TimeoutExpired:
        return None, None, f"timeout {timeout:.0f} s", ""
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("BENCH ")]
    if not line:
        return None, None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed", proc.stdout
    _, cpu, wall, mb, code, where = line[-1].split(maxsplit=5)
    LAST_WALL[0] = float(wall)
    if not where.startswith(pythonpath):  # the code measured must be the code asked for
        raise RuntimeError(f"benchmark child imported {where}, not the tree at {pythonpath}")
    status = "ok" if code in ("0", "None") else f"exit {code}: " + (proc.stderr.strip().splitlines()[0] if proc.stderr else "")
    return float(cpu), float(mb), status, proc.stdout


LAST_WALL = [float("nan")]
"""The wall seconds of the last child ``run`` measured (its own clock, start-up included)."""


def counts(stdout: str) -> tuple[str, str]:
    """(modes after acceleration pruning, overlapping pairs or candidates) from the text output."""
    acc, pairs = "-", "-"
    import re

    m = re.search(r"(\d+) after acceleration pruning", stdout)  # the line may be wrapped before it
    if m:
        acc = m.group(1)
    for ln in stdout.splitlines():
        if ln.startswith("overlapping pairs"):
            if "candidate pairs" in ln:
                pairs = ln.split(":")[1].split()[0] + " cand."
            elif "pairs among" in ln:
                pairs = ln.split(":")[1].split()[0]
            elif "none" in ln:
                pairs = "0"
            else:
                pairs = str(sum(1 for x in stdout.splitlines() if x.startswith("  ") and " ∩ " in x))
    return acc, pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kmin", type=int, default=2)
    ap.add_argument("--kmax", type=int, default=12)
    ap.add_argument("--overlaps-max-k", type=int, default=8)
    ap.add_argument("--baseline", default="4728fe8", help="git revision of the previous code ('' to skip)")
    ap.add_argument("--baseline-max-k", type=int, default=7)
    ap.add_argument("--json-max-k", type=int, default=0,
                    help="also time 'analyze FILE --json' (CPU s, wall s, MB) up to this k, and the baseline's")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--coretype", default="",
                    help="also time this code's default and --json runs under this OpenBLAS kernel "
                         "(OPENBLAS_CORETYPE, e.g. Haswell: another CPU's), in columns of their own")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = None
        if args.baseline:
            base = os.path.join(tmp, "baseline")
            os.mkdir(base)
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", base], input=archive.stdout, check=True)
            # a baseline with --overlaps (this round's code) is asked for every pair, as "--overlaps" is
            cli = Path(base, "contactmodes", "cli.py")  # a package since the redesign
            cli = cli if cli.exists() else Path(base, "contactmodes", "cli", "__init__.py")
            base_args = ["--overlaps"] if '"--overlaps"' in cli.read_text() else []
        other = args.coretype
        extra = f" {other} default s | wall s | {other} --json s | wall s |" if other else ""
        print("| k | 4^k | after accel. | default s | wall s | MB | pairs (default) | --overlaps s | MB | pairs | "
              "baseline s | baseline / --overlaps | --json s | wall s | MB | baseline --json s | wall s | MB |" + extra)
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + "---|" * (4 if other else 0))
        for k in range(args.kmin, args.kmax + 1):
            path = os.path.join(tmp, f"chain{k}.toml")
            Path(path).write_text(to_toml(zigzag_chain(k)))
            cpu, mb, status, out = run(str(ROOT), ["analyze", path], args.timeout)
            acc, pairs = counts(out)
            row = [str(k), str(4 ** k), acc, f"{cpu:.2f}" if cpu is not None else status,
                   f"{LAST_WALL[0]:.2f}" if cpu is not None else "-", f"{mb:.0f}" if mb else "-", pairs]
            cpu2 = None
            if k <= args.overlaps_max_k:
                cpu2, mb2, status2, out2 = run(str(ROOT), ["analyze", path, "--overlaps"], args.timeout)
                row += [f"{cpu2:.2f}" if cpu2 is not None else status2, f"{mb2:.0f}" if mb2 else "-", counts(out2)[1]]
            else:
                row += ["-", "-", "-"]
            if base is not None and k <= args.baseline_max_k:
                cpu3, _, status3, _ = run(base, ["analyze", path, *base_args], args.timeout)
                same_work = cpu2 if cpu2 is not None else cpu  # the previous code always tested every pair
                ratio = f"{cpu3 / same_work:.1f}" if cpu3 is not None and same_work else "-"
                row += [f"{cpu3:.2f}" if cpu3 is not None else status3, ratio]
            else:
                row += ["-", "-"]
            for tree in (str(ROOT), base):
                if k > args.json_max_k or tree is None:
                    row += ["-", "-", "-"]
                    continue
                cpu4, mb4, status4, _ = run(tree, ["analyze", path, "--json"], args.timeout)
                row += [f"{cpu4:.2f}", f"{LAST_WALL[0]:.2f}", f"{mb4:.0f}"] if cpu4 is not None else [status4, "-", "-"]
            if other:  # this code under the other BLAS kernel: the default run, then --json
                for extra_args, upto in (([], args.kmax), (["--json"], args.json_max_k)):
                    if k > upto:
                        row += ["-", "-"]
                        continue
                    cpu5, _, status5, _ = run(str(ROOT), ["analyze", path, *extra_args], args.timeout, other)
                    row += [f"{cpu5:.2f}", f"{LAST_WALL[0]:.2f}"] if cpu5 is not None else [status5, "-"]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
