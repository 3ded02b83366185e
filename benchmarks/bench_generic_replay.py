"""Step times of the generic controller on recorded closed loops, without MuJoCo, old code against new.

Run: ``python benchmarks/bench_generic_replay.py [--baseline REV] [--rounds R] [--evict MB]
[--coretype KERNEL]``.

The closed loops of ``bench_mujoco_examples.py`` (issue 24's targets: the snake, the quadruped,
the generic controller on RHex's system file) were recorded by
``tests/_support/record_generic_steps.py`` into ``tests/data/generic_steps/`` (every state the
controllers were called at). Here each code — this tree, and ``--baseline REV`` extracted by
``git archive`` — runs in a child process outside the source tree, builds the controllers as the
loops did (``record_generic_steps.controllers``, read from *this* tree, so the baseline needs only
the packages' public API) and calls them at the recorded states in the recorded order: the same
work in both codes, without the plant's cost and its load on the timings. Per run: median, p99
and max of the wall time per call (ms) with the first call apart (``first``: it builds the first
structures), and the same statistics of the process's CPU time per call (``cpu med``, ``cpu
p99``, ``cpu max``: on the loaded shared machine the wall time includes waiting for a core). The
codes are run in turn, ``--rounds`` times (default 2); every round is printed. ``--evict MB``
writes that much other data between two calls (outside the timings), evicting the caches as a
plant's simulation steps do between two control steps (default 0: calls back to back).
``--coretype Haswell`` runs every code a second time under that OpenBLAS kernel (column
``blas``): another CPU's rounding and speed, which the step's fast paths must not depend on.

**Another CPU's BLAS** (issue 39: the compiled mechanism accepted within ``KERNEL_RTOL`` instead
of bit for bit; ``docs/realtime.md``), ``--baseline 02736cf --rounds 2 --coretype Haswell`` on a
loaded host (load average 12–14 on 2 cores: the wall p99 and max were waits), CPU ms median, the
two rounds:

=========  ===========  ============  ============
run        code         default BLAS  ``Haswell``
=========  ===========  ============  ============
snake      ``02736cf``  0.79, 0.70    1.01, 0.99
snake      now          0.72, 0.77    0.70, 0.62
quadruped  ``02736cf``  0.39, 0.35    0.60, 0.56
quadruped  now          0.38, 0.39    0.38, 0.37
rhex file  ``02736cf``  0.35, 0.33    0.34, 0.34
rhex file  now          0.35, 0.36    0.36, 0.35
=========  ===========  ============  ============

The old code ran the snake's and the quadruped's mechanism on NumPy under ``Haswell`` (its
kernel check asked for identical bits): 1.3–1.6× the median. Now the kernel is the same speed on
both (ratio Haswell / default 0.8–1.0).

**Screened steps** (``controllers.generic.search._screened``, ``contactmodes.realtime.torque_screen``;
``docs/realtime.md``), ``--baseline 887a83f --rounds 2`` on an idle machine (load average
0.3–0.4), CPU ms, the two rounds:

=========  ===========  ============  ============  ============  ===========
run        code         CPU median    CPU p99       CPU max       first (wall)
=========  ===========  ============  ============  ============  ===========
snake      ``887a83f``  8.31, 9.91    23.1, 23.9    26.0, 26.9    71, 70
snake      now          2.04, 2.03    7.14, 7.45    8.04, 8.30    36, 36
quadruped  ``887a83f``  0.77, 0.72    1.70, 1.58    28.5, 23.9    119, 110
quadruped  now          0.72, 0.72    1.77, 1.86    23.5, 25.2    117, 117
rhex file  ``887a83f``  0.61, 0.56    57.5, 54.3    58.7, 55.4    187, 141
rhex file  now          0.60, 0.60    55.1, 56.0    56.3, 57.2    142, 140
=========  ===========  ============  ============  ============  ===========

The snake's steps are all screened (3 modes checked at rest instead of 288; its p99 and max are
steps 1–8 after the start, whose degenerate near-rest kinematic LPs leave 20–30 kept modes
pending); the quadruped and RHex's file are never screened (no mode filter, or too few
candidates) and unchanged. Every answer is the same.

Then the screen's exclusions and the kinematic prefixes' prunes carried from step to step (each
proved again from its old LP basis, ``_screen_attempt``), the mechanism's rotations once per link and
the scales without the point speeds when a bound decides ``a = g``: ``--baseline 887a83f
--rounds 3``, a busy host (the baseline's own snake median moved 10.3–16.1), CPU ms, the three
rounds:

=========  ===========  ==================  ==================  ==================
run        code         CPU median          CPU p99             CPU max
=========  ===========  ==================  ==================  ==================
snake      ``887a83f``  12.2, 10.3, 16.1    28.4, 24.6, 36.7    29.3, 27.5, 40.7
snake      now          0.93, 1.05, 0.88    2.66, 2.84, 2.36    2.85, 2.90, 2.51
quadruped  ``887a83f``  0.74, 0.72, 1.30    1.85, 1.61, 2.49    24.5, 23.8, 44.6
quadruped  now          0.72, 1.06, 0.94    2.09, 2.46, 2.14    35.6, 27.4, 31.9
rhex file  ``887a83f``  0.62, 0.58, 0.66    73.1, 70.9, 61.3    84.3, 73.7, 62.1
rhex file  now          0.71, 0.83, 0.55    73.5, 62.3, 57.0    77.9, 63.8, 58.9
=========  ===========  ==================  ==================  ==================

The quadruped's and RHex's rows move with the host's load only (the same work).

**Twin modes settled** (``controllers.generic.certify``; the search's *Settled candidates* and
*The tie rule*; the certificates' hulls by the compiled batch kernel), ``--baseline aecb311
--rounds 2`` on a busy host (probe loop 16–21 ms), CPU ms, the two rounds:

=========  ===========  ============  ============  ============
run        code         CPU median    CPU p99       CPU max
=========  ===========  ============  ============  ============
snake      ``aecb311``  0.70, 0.76    2.08, 1.88    2.19, 2.00
snake      now          0.68, 0.65    1.98, 2.08    2.08, 2.12
quadruped  ``aecb311``  0.39, 0.39    1.90, 1.14    22.9, 22.7
quadruped  now          0.42, 0.40    1.73, 1.16    2.07, 1.34
rhex file  ``aecb311``  0.36, 0.37    54.6, 53.2    55.5, 53.8
rhex file  now          0.42, 0.36    4.67, 4.48    6.20, 5.99
=========  ===========  ============  ============  ============

The slow-path steps of the quadruped (its first and its goal switch, ``SS``/``RS``) and of
RHex's file (steps 0–3 and 5, ``LSF``/``LLF``) are settled without projections; RHex's file's
worst step is now step 1 (a new velocity pattern's layout, then one settled pair).

**New layouts and settled twins made cheaper** (pivot choices together and compiled,
``contactmodes.modes.response.pivot_choices``; the tie rule's certificates fewest ``n_w`` first;
the kept certificate counting dimensions, ``dim K`` from one LP; ``docs/realtime.md``),
``--baseline 98af7a2 --rounds 2`` on a quiet host (probe loop 12–14 ms), CPU ms, the two rounds:

=========  ===========  ============  ============  ============
run        code         CPU median    CPU p99       CPU max
=========  ===========  ============  ============  ============
snake      ``98af7a2``  0.70, 0.67    2.35, 2.22    2.53, 2.27
snake      now          0.71, 0.69    2.15, 2.31    2.34, 2.56
quadruped  ``98af7a2``  0.40, 0.41    1.21, 1.53    1.31, 3.62
quadruped  now          0.41, 0.41    1.47, 1.02    1.61, 2.35
rhex file  ``98af7a2``  0.37, 0.41    4.68, 4.97    6.31, 6.67
rhex file  now          0.37, 0.38    1.67, 1.78    2.17, 2.28
=========  ===========  ============  ============  ============

RHex's file's step 1 (a new contact set: 32 modes' pivots, then one settled pair) 6.3 → 2.2 ms;
its steps 2, 3 and 5 (one settled pair each) 2.8 → 1.1 ms. The same answers.

**The snake's steps made cheaper** (a few undecided candidates by the definition's LP, the prune
certificates by one solve, the steady step's glue; ``docs/realtime.md``), ``--baseline a8b5e3a``,
``--rounds 2`` then ``--rounds 3`` on a quiet host, the snake's CPU ms, the five rounds:

=========  ===========  ==============================  ==============================  ==============================
run        code         CPU median                      CPU p99                         CPU max
=========  ===========  ==============================  ==============================  ==============================
snake      ``a8b5e3a``  0.66, 0.66, 0.72, 0.67, 0.66    1.98, 2.09, 2.04, 2.02, 1.96    2.14, 2.26, 2.17, 2.19, 2.06
snake      now          0.78, 0.61, 0.60, 0.61, 0.82    1.91, 1.63, 1.66, 1.62, 1.75    1.99, 1.77, 1.79, 1.78, 1.80
=========  ===========  ==============================  ==============================  ==============================

Two of the new code's rounds were slowed (medians 0.78 and 0.82; the other three 0.60–0.61);
the snake's near-rest steps 1–8, 1.4–1.5 ms before, are 1.1 ms. The quadruped and RHex's file
are unchanged (CPU medians 0.37–0.40 and 0.36–0.37 in both codes, the first two rounds).

**The mechanism compiled** (``contactmodes.model._mechanism_kernel``: ``PlanarMechanism.dynamics_and_scales``
in one numba call, the NumPy path's numbers bit for bit; ``docs/realtime.md``): ``--baseline
07055ad --rounds 3`` on a quiet host (a fixed pure-Python loop took 13.6–14.0 ms before and after,
against 20–22 ms in the busy hour before), CPU ms, the three rounds:

=========  ===========  ==================  ==================  ==================
run        code         CPU median          CPU p99             CPU max
=========  ===========  ==================  ==================  ==================
snake      ``07055ad``  0.96, 0.88, 0.93    2.32, 2.16, 2.33    2.49, 2.27, 2.46
snake      now          0.68, 0.66, 0.70    2.17, 1.96, 2.11    2.37, 2.12, 2.29
quadruped  ``07055ad``  0.65, 0.63, 0.65    1.41, 1.37, 1.51    23.8, 23.3, 24.2
quadruped  now          0.39, 0.67, 0.40    1.15, 1.96, 1.27    23.5, 38.5, 23.6
rhex file  ``07055ad``  0.54, 0.50, 0.57    57.1, 53.2, 56.3    58.1, 54.9, 57.5
rhex file  now          0.36, 0.35, 0.37    56.7, 54.2, 55.5    57.4, 55.0, 56.7
=========  ===========  ==================  ==================  ==================

Every example's median drops by 0.2–0.3 ms (the quadruped's round 1 met a burst of load); the
maxima are the slow path's steps (projections and set differences), which the mechanism does
not touch. The same answers (``test_generic_replay.py``).

**The slow path and the pivots** (issue 24 item 1: ``regions.difference`` deciding the hulls of
a split's sets together, 7478e1f; the slow path screening the other modes with one batched
verified LP before their exact ``meets`` LPs, ``MEETS_MARGIN``, 8cb80e0, and deciding the hulls
of its intersections together, 40521c7, 0bac8a2; ``choose_pivots`` on LAPACK's ``geqp3`` directly,
d291d9f), measured apart from the other work of the same hour: ``6545e40`` against
``6545e40`` with these commits applied (both trees extracted to /tmp and run by this script's
child, ``run_tree``), three rounds, load average 3.5–3.8 on the 2 cores from other work (round 0
of the new code was disturbed: snake 14.8 ms median); CPU ms, the three rounds (first: wall):

=========  ===========  =================  =================  =================  ==============
run        code         CPU median         CPU p99            CPU max            first (wall)
=========  ===========  =================  =================  =================  ==============
snake      ``6545e40``  10.9, 10.7, 10.3   32.5, 35.5, 32.0   38.4, 41.7, 37.9   109, 103, 100
snake      new          14.8, 11.0, 9.81   36.7, 27.1, 23.5   41.4, 30.3, 26.4   107, 76, 91
quadruped  ``6545e40``  0.74, 0.78, 0.73   2.38, 2.59, 2.12   34.7, 35.5, 33.5   723, 645, 561
quadruped  new          0.78, 0.71, 0.72   2.02, 1.64, 1.55   25.0, 24.1, 24.0   152, 113, 115
rhex file  ``6545e40``  0.62, 0.55, 0.56   133, 116, 107      144, 117, 112      808, 578, 535
rhex file  new          1.22, 0.55, 0.55   81.6, 55.3, 54.4   93.3, 55.6, 56.9   443, 149, 151
=========  ===========  =================  =================  =================  ==============

Every answer is the same (``tests/controllers/generic/test_generic_replay.py``; the screen against
the exact LPs: ``test_slow_path_screen.py``). The medians are the fast path's, unchanged (the
snake's differ by the load); the maxima are the slow-path steps (quadruped's step 51, RHex's file
steps 1–3 and 5) and the snake's step 1 (105 modes given pivots). What is left there is the
exact rule's own work, and no certificate with a margin can take its decisions: at the
quadruped's step 51 ``K`` of ``SS`` and ``T_c'`` of ``RS`` differ by 4e-16 (one facet; the
other five are the same rows), so whether ``T*_c`` is empty is the emptiness rule's decision on
slivers; at RHex's file steps 1–3 ``K`` of ``LSF`` is a segment covered by ``T_c'`` of ``LRF``
and ``LLF``, which meet at one point (0.67336863270029 of the way along it, both), and ``LLF``'s
answer is the LP over its projected ``K`` (nothing removed), bit for bit. Per RHex slow step
about 25 ms are the five ``T_c'`` projections with their checks and 10 ms the two ``K``
projections; per quadruped step 51 about 5 ms the two ``K`` and 13 ms ``difference``. Issue 24's
targets (≤ 1 ms median, ≤ 3 ms max) are still not met by these maxima, nor by the snake's median.

**Prefix pruning of the kinematic test** (``contactmodes.realtime.prefix``, 5c4278a–7f23a6c,
``docs/realtime.md``), ``--baseline 64c8119 --rounds 3`` on a clean checkout of 7f23a6c, load
average 4.9–5.1 on the 2 cores from other work during the run; ms, the three rounds, CPU time
first (the comparable number under this load), then wall:

=========  ===========  =================  =================  =================  ==============
run        code         CPU median         CPU p99            CPU max            first (wall)
=========  ===========  =================  =================  =================  ==============
snake      ``64c8119``  23.1, 34.2, 23.6   247, 332, 260      307, 424, 334      350, 495, 205
snake      now          10.7, 9.9, 10.4    51.9, 30.7, 34.1   61.6, 36.2, 40.1   266, 100, 150
quadruped  ``64c8119``  0.84, 0.96, 0.73   2.47, 2.85, 2.21   37.4, 40.3, 33.9   1895, 1549, 1497
quadruped  now          0.81, 0.74, 0.81   2.53, 3.18, 2.32   39.1, 33.3, 36.4   964, 612, 1152
rhex file  ``64c8119``  0.61, 0.57, 0.62   115, 119, 110      116, 119, 110      820, 987, 818
rhex file  now          0.62, 0.60, 0.66   122, 118, 122      124, 126, 126      1225, 523, 894
=========  ===========  =================  =================  =================  ==============

A second run on a quieter machine (load average 1.1–1.5), ``--baseline 64c8119 --rounds 2`` on
a clean checkout of a4a3d23 (the same code), CPU ms, the two rounds (wall within 1 % of CPU):

=========  ===========  ============  ============  ============  ===========
run        code         CPU median    CPU p99       CPU max       first (wall)
=========  ===========  ============  ============  ============  ===========
snake      ``64c8119``  25.1, 22.6    241, 280      310, 362      229, 210
snake      now          9.9, 10.2     34.4, 33.8    41.3, 37.0    103, 98
quadruped  ``64c8119``  0.70, 0.76    2.09, 2.97    33.3, 34.5    1079, 1255
quadruped  now          0.74, 0.73    1.96, 2.36    33.7, 36.0    595, 872
rhex file  ``64c8119``  0.78, 0.60    107, 111      111, 114      607, 550
rhex file  now          0.57, 0.55    109, 117      114, 117      531, 547
=========  ===========  ============  ============  ============  ===========

Wall medians in the first run's rounds: snake 35.1, 51.4, 34.6 → 16.3, 10.0, 14.2; quadruped 0.87,
0.96, 0.73 → 0.82, 0.75, 0.81; RHex's file 0.62, 0.58, 0.63 → 0.63, 0.60, 0.67. Ratios
before/now of the CPU median: snake 2.2–3.4 (2.2–2.5 on the quieter machine), of the CPU max:
snake 5.0–11.7 (7.5–9.8; its largest steps were the first ones after the start, 1500 newly
pending modes given pivots and responses); quadruped and RHex's file about 1 (their layouts
have at most 256 candidates, except the quadruped's first, at rest on six contacts: 4096,
which its first call now prunes; that call costs about half). RHex's own configuration
(``bench_step_replay.py --baseline 64c8119 --replays 3 --rounds 2``, same session): 358 / 361
→ 353 / 352 µs CPU median per step (μ_t 0.39 / 0.6; its layouts are not pruned, its domains
are cheaper). Every answer is the same (``tests/controllers/generic/test_generic_replay.py``). What is left of the snake's step (CPU,
about 10 ms): the prefix LPs (about 410) and the surviving leaves' LPs (512–624) about 4 ms, the
responses (24)–(31) of the 288 feasible modes about 2.5 ms, their domains 1 ms, the point test
of ``FFFFFF``'s maximizer against the other 287 modes about 1 ms, the state's model and the
rest about 1.5 ms. **Targets still not met** for the snake (≤ 1 ms median, ≤ 3 ms max); the
quadruped's and RHex's file's max are their slow-path steps (the quadruped's step 51: modes
``SS`` and ``RS`` of two present contacts with the same ``T_c`` up to rounding, both examined
by projection and ``polytopes.difference``, about 33 ms).

The previous measurement (the session before; its ``now`` is an ancestor of ``64c8119``), on
the shared 2-core machine (load average 3.5–4 from other work), ``--baseline f6888c7 --rounds
2`` (issue 24), ms, the two rounds, wall time:

=========  ===========  ===========  ============  ============  =========
run        code         median       p99           max           first
=========  ===========  ===========  ============  ============  =========
snake      ``f6888c7``  88.7, 88.6   462, 491      515, 555      257, 261
snake      now          21.8, 30.2   211, 216      268, 272      199, 198
quadruped  ``f6888c7``  0.84, 0.86   2.06, 3.51    33.6, 49.0    995, 1033
quadruped  now          0.73, 0.70   2.93, 5.27    33.3, 33.6    911, 974
rhex file  ``f6888c7``  0.61, 0.64   97.4, 113     101, 124      568, 510
rhex file  now          0.55, 0.55   107, 97.9     120, 98.0     541, 521
=========  ===========  ===========  ============  ============  =========

Median ratios before/now: snake 2.9–4.1, quadruped 1.15–1.23, RHex's file 1.11–1.16, every
answer the same (``tests/controllers/generic/test_generic_replay.py``). Against issue 24's
targets (≤ 1 ms median, ≤ 3 ms max): the quadruped and RHex's file meet the median, not the
max (the quadruped's largest steps are its slow-path step and new layouts, RHex's file's the
slow path of its first steps after the start, 32–142 modes with projections); the snake meets
neither (``bench_mujoco_examples.py`` says why).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _child, beside this script

import _child  # noqa: E402
RUNS = ("snake", "quadruped", "rhex")

CHILD = r"""
import importlib.util, json, sys, time
import numpy as np
spec = importlib.util.spec_from_file_location("record_generic_steps", sys.argv[1])
rec = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rec)
import controllers.generic as cg
out = {"__file__": cg.__file__}
evict = np.ones(int(float(sys.argv[3]) * 1e6) // 8) if float(sys.argv[3]) > 0 else None
for name in sys.argv[4:]:
    doc = json.loads(open(f"{sys.argv[2]}/{name}.json", encoding="utf-8").read())
    loaded = rec.loaded_system(name)
    built = rec.controllers(name, loaded, float.fromhex(doc["velocity_tol"]))
    ms, cpu = [], []
    for key, calls in doc["calls"].items():
        c = built["inner"][key]
        for call in calls:
            q, qd = rec.state(call)
            if evict is not None:  # other data written between two calls (--evict)
                evict += 1.0
            t0, c0 = time.perf_counter(), time.process_time()
            c(q, qd)
            cpu.append((time.process_time() - c0) * 1e3)
            ms.append((time.perf_counter() - t0) * 1e3)
    w, u = np.array(ms[1:]), np.array(cpu[1:])
    out[name] = {"steps": int(w.size), "median": float(np.median(w)), "p99": float(np.percentile(w, 99)),
                 "max": float(w.max()), "first": ms[0], "cpu_median": float(np.median(u)),
                 "cpu_p99": float(np.percentile(u, 99)), "cpu_max": float(u.max())}
print(json.dumps(out))
"""


def run_tree(tree: str, evict_mb: float = 0.0, coretype: str | None = None) -> dict:
    """The child's results for the code at ``tree`` (``_child.run_tree``), ``evict_mb`` MB of other
    data written between two calls (``--evict``), under the OpenBLAS kernel ``coretype`` (default
    the machine's own)."""
    return _child.run_tree(tree, CHILD, str(ROOT / "tests" / "_support" / "record_generic_steps.py"),
                           str(ROOT / "tests" / "data" / "generic_steps"), repr(float(evict_mb)), *RUNS,
                           coretype=coretype)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="", help="git revision of the previous code (default: none)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds over the codes (default 2)")
    ap.add_argument("--evict", type=float, default=0.0,
                    help="MB of other data written between two calls, to evict the caches as a plant's "
                         "simulation steps do (default 0: calls back to back)")
    ap.add_argument("--coretype", default="",
                    help="also run every code under this OpenBLAS kernel (OPENBLAS_CORETYPE, e.g. Haswell: "
                         "another CPU's; a child process each) and print both (default: the machine's only)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds: must be at least 1")
    if not (0.0 <= args.evict <= 4096.0):
        ap.error(f"--evict: must lie in 0..4096 MB, got {args.evict:g}")
    kernels = [None] + ([args.coretype] if args.coretype else [])
    print(f"{'round':5s} {'code':10s} {'blas':11s} {'run':10s} {'steps':>5s} {'median':>8s} {'p99':>8s} {'max':>8s}"
          f" {'first':>8s} {'cpu med':>8s} {'cpu p99':>8s} {'cpu max':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        if args.baseline:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline], capture_output=True,
                                     check=True)
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            trees[args.baseline] = tmp
        trees["now"] = str(ROOT)
        for rnd in range(args.rounds):
            for code, tree in trees.items():
                for kernel in kernels:
                    for name, r in run_tree(tree, args.evict, kernel).items():
                        print(f"{rnd:5d} {code:10s} {kernel or 'default':11s} {name:10s} {r['steps']:5d} "
                              f"{r['median']:8.2f} {r['p99']:8.2f} {r['max']:8.2f} {r['first']:8.1f} "
                              f"{r['cpu_median']:8.2f} {r['cpu_p99']:8.2f} {r['cpu_max']:8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
