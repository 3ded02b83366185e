"""MuJoCo speed of the examples and the generic controller's step time in their closed loops.

Run: ``python benchmarks/bench_mujoco_examples.py [--scale S] [--out FILE] [--baseline REV]``.

Per example, on its MuJoCo plant (``controllers.simulation.model.build_plant``, ``dt = 5e-4 s``):

* **MuJoCo steps/s**: ``mj_step`` alone, 20000 steps from the file's state at zero control (the
  plant's physics without any controller or bookkeeping);
* **controller step time** (median, p99, max, ms): the wall time of each call of the
  controller over one closed-loop run at 100 Hz (``controllers.simulation.loop.simulate``), the
  first call apart (it compiles the kernels and builds the first structures: ``first``), and the
  run's wall time per simulated second.

The examples and their closed loops (``docs/examples.md``):

* ``brace``: the plant of ``examples/five_link_climb.toml`` under the held disturbance of a
  vertex of its box ``D`` (``x = −0.2, y = −3, θ = 0.25, θ1 = −0.25``), driven by the generic
  controller built from ``examples/two_link_brace.toml`` (the same brace without a disturbance:
  the controller does not take one) with ``minimize = "tau.tau1"``, modes ``["FFF"]``, box
  ``±1 N·m`` and ``v0 = 0.001 m/s`` on its contacts (``docs/simulate.md``: a soft plant's
  sticking contacts creep at µm/s); 1 s;
* ``quadruped``: ``examples/quadruped/quadruped.toml`` (lifted contacts read) under
  ``controllers.simulation.goal.GoalSwitch`` of two generic controllers, as
  ``examples/quadruped_selfright.py``; 2 s;
* ``snake``: ``examples/snake/snake_chimney.toml`` under ``--controller control``; 0.3 s;
* ``rhex``: ``examples/rhex_flip_start.toml`` (the rigid RHex from its system file, massless legs
  floored on the plant) under the generic controller maximizing ``qdd.theta`` within the RHex
  motors' box and torque–speed line (``RHexParams``' defaults ``tau_limit = 10.25 N·m``,
  ``omega_noload = 43.1 rad/s``); 0.5 s. The plant's floored massless legs spin up when unloaded
  (``docs/simulate.md``): the robot is mostly in the air (``SSSS``); the run is a timing case.

``--scale`` multiplies every run's duration (default 1). ``--baseline REV`` runs the same
benchmark with the code of git revision ``REV`` (extracted by ``git archive``, in a child process
outside the source tree) after this code, in the same session, and prints both and the ratios
before/now of the controller step times. Numbers depend on the machine and its
load. A table is printed; the JSON document is written to ``--out`` only when given (nothing else
is written).

Issue 24's targets (≤ 1 ms median, ≤ 3 ms max per controller step) on the shared 2-core
development machine, MuJoCo 4.0.0, scale 1, ``--baseline f6888c7`` (the code before issue 24's
step-time work), two runs in one session (load average 2.6–5 from other work), controller times
in ms (``first``: the first call, left out of the statistics). The MuJoCo steps/s column
measures the load each arm met (the same ``mj_step`` loop): compare ratios with it in mind.

Run 1 (the ``now`` arm under about 1.5–2× the load of the ``before`` arm):

=========  ======  ===========  =====  ======  =======  =======  =====  ==================
example    code    MuJoCo st/s  steps  median  p99      max      first  modes (most steps)
=========  ======  ===========  =====  ======  =======  =======  =====  ==================
brace      before  222 184      99     5.19    7.80     8.53     24     FFF 100
brace      now     145 367      99     1.38    9.07     9.35     23     FFF 100
quadruped  before  86 676       199    1.41    6.75     37.52    1689   SSSSSSLL 42
quadruped  now     56 600       199    2.39    9.99     100.16   2143   SSSSSSLL 42
snake      before  314 225      29     101.17  824.20   974.58   274    FFFFFF 30
snake      now     168 872      29     47.88   503.65   637.98   609    FFFFFF 30
rhex       before  212 066      49     0.90    99.49    101.06   527    SSSS 40
rhex       now     110 205      49     1.01    275.46   281.47   1213   SSSS 40
=========  ======  ===========  =====  ======  =======  =======  =====  ==================

Run 2 (the ``before`` arm under about 1.2–1.7× the load of the ``now`` arm):

=========  ======  ===========  =====  ======  =======  =======  =====  ==================
example    code    MuJoCo st/s  steps  median  p99      max      first  modes (most steps)
=========  ======  ===========  =====  ======  =======  =======  =====  ==================
brace      before  234 221      99     1.75    10.56    14.09    19     FFF 100
brace      now     402 926      99     1.27    2.91     3.92     11     FFF 100
quadruped  before  106 619      199    1.73    11.56    69.32    1947   SSSSSSLL 42
quadruped  now     127 552      199    1.60    3.70     39.75    1227   SSSSSSLL 42
snake      before  272 611      29     173.05  1271.15  1432.10  824    FFFFFF 30
snake      now     318 943      29     25.61   260.72   333.87   221    FFFFFF 30
rhex       before  125 684      49     1.00    177.18   193.05   998    SSSS 40
rhex       now     196 570      49     1.00    151.17   160.01   598    SSSS 40
=========  ======  ===========  =====  ======  =======  =======  =====  ==================

Ratios before/now of the median step: snake 2.1 and 6.8 (runs 1, 2), brace 3.8 and 1.4,
quadruped 0.6 and 1.1, rhex 0.9 and 1.0; every step's torque, mode, status and prediction is
the same as before (``tests/controllers/generic/test_generic_replay.py`` replays closed loops of
the snake, the quadruped and RHex recorded before the change, bit for bit). What changed:

* *Snake (the cause of its 284 ms).* Not the slow path (every step takes the fast path, one
  candidate: the file accepts ``FFFFFF`` only), not the layouts (one structure and one velocity
  pattern, all contacts at rest: 4096 candidates, built once): 150–250 of the ~850 feasible or
  pending modes per step failed the response certificate and were solved by the SVD and
  re-pivoted (75 % of the step). Their rows (31) are rounding noise only (statically
  indeterminate contacts), which the SVD response cleans to zero; the certificate compared
  noise with noise and refused. It now certifies rank 0 there
  (``contactmodes.modes._pivot_response``). What is left per step (about 25–50 ms): the 4096
  kinematic LPs (footnote 5; warm-started, no pivot, the verification of each, about half), the
  responses (about 850 modes), their domains and the point test of ``FFFFFF``'s maximizer
  against every other mode; the first steps after the start also choose the pivots of about
  1500 newly pending modes and resolve some pending modes with the exact LP (300–600 ms).
  **Targets not met** (two orders of magnitude off): the search's cost grows with the number of
  candidate modes (4^6), and its answer is defined over all of them. *Since* (not re-measured
  here: ``bench_generic_replay.py`` replays these loops without MuJoCo, old code against new,
  with CPU times): the kinematic test prunes the candidates by prefixes on certificates
  (``contactmodes.realtime.prefix``: about 410 prefix LPs and 512–624 leaf LPs instead of 4096,
  0–115 pending modes instead of 408–1583), CPU median 23–34 → 10–11 ms, max 310–420 → 36–62
  ms, the same answers; the targets are still not met.
* *Quadruped.* Median 1.4–2.4 ms under this load (about 0.9 ms replayed on a quieter machine),
  so at the target's edge; its largest steps are the slow path (1 step of 2 modes with
  projections, 35–200 ms) and the steps that meet a new contact set or velocity pattern (40 of
  200 build a layout; about 1–5 ms each). ``PlanarMechanism.dynamics_and_scales`` (one
  kinematics pass for ``M, h, J`` and the characteristic scales, the same numbers) saves about a
  quarter of the general mechanism's evaluation. **Max target not met** (slow path).
* *Brace.* Its 6.3 ms of the previous table were SVD fallbacks of the same kind as the snake's.
* *RHex from its system file (generic).* Median at the target (1.0 ms); its p99/max are the
  first steps after the start, which take the slow path (32–142 modes, 10–29 projections,
  100–550 ms): the exact answer's cost. **Max target not met.** RHex's own configuration
  (``MaxThrustController``: closed-form model, no slow path in the flips) meets the median and is
  measured by ``bench_flip_step.py`` / ``bench_step_replay.py``.

The numbers move by up to a factor of 3 with the load from run to run: compare within one run
and with the MuJoCo steps/s of each arm.

Run 3 (2026-11-26, a later session: ``--baseline 6545e40``, that session's final code; idle
machine, the MuJoCo steps/s of the two arms alike except the quadruped's), ms:

=========  ======  ===========  =====  ======  ======  ======  =====
example    code    MuJoCo st/s  steps  median  p99     max     first
=========  ======  ===========  =====  ======  ======  ======  =====
brace      now     447 576      99     1.24    1.99    2.76    7
brace      before  450 468      99     1.24    2.21    3.26    10
quadruped  now     117 004      199    1.40    2.31    27.58   146
quadruped  before  170 669      199    1.38    3.00    34.67   585
snake      now     352 899      29     9.81    24.52   28.30   100
snake      before  345 209      29     9.75    29.49   35.12   242
rhex       now     209 895      49     0.89    53.87   54.66   225
rhex       before  214 511      49     1.06    115.60  116.97  570
=========  ======  ===========  =====  ======  ======  ======  =====

Medians unchanged; maxima 1.2–2.1× lower and first steps 2.4–4× faster (the slow path's
screen of the other modes and its batched hulls, the pivots from LAPACK's ``geqp3``:
``bench_generic_replay.py``). Still not met: the snake's median (~10 ms) and every example's
max but the brace's. An earlier run the same morning, with LP batches of 512 or more shared
by threads, had the snake at 14.0 ms median: hand-offs of a fraction of a millisecond do not
pay, so only batches of 1024 LPs or more are shared now (``polytopes._threads``).

Run 4 (2026-11-26, the next session: ``--baseline 887a83f``, the previous session's final code;
idle machine, load average 0.2–0.4), ms:

=========  ======  ===========  =====  ======  ======  ======  =====
example    code    MuJoCo st/s  steps  median  p99     max     first
=========  ======  ===========  =====  ======  ======  ======  =====
brace      now     451 437      99     0.84    1.72    2.47    5
brace      before  453 022      99     1.14    1.82    2.54    6
quadruped  now     171 202      199    0.80    1.59    24.07   116
quadruped  before  171 300      199    1.25    2.08    24.54   117
snake      now     352 021      29     2.39    6.98    7.75    34
snake      before  353 590      29     8.88    21.63   24.59   193
rhex       now     213 078      49     0.62    53.59   54.87   218
rhex       before  218 050      49     0.94    56.14   57.39   141
=========  ======  ===========  =====  ======  ======  ======  =====

Two changes. (1) ``controllers.simulation.registry.GenericController`` computes the rigid
model's ``q̈`` (the loop's measurement of the controller's prediction, ``rigid_qdd``: the
mechanism's dynamics evaluated again) when the loop reads it, no longer inside the timed call:
0.3–0.5 ms of every example's step were that. (2) The snake's steps are *screened*
(``controllers.generic.search``, *Screened steps*; ``docs/realtime.md``): 3 modes checked instead
of 288. Every answer is the same (``test_generic_replay.py``). The medians of the brace, the
quadruped and RHex's file now meet the 1 ms target (an earlier run the same hour, with a host
taking the second vCPU at times, had the brace at 1.57 ms: compare within one run); the snake's
(2.4 ms) does not, nor does any maximum but the brace's (the slow path's steps and the snake's
first steps).

Run 5 (the same session, later): the screened snake's proofs carried from step to step
(``controllers.generic.search._screen_attempt``), the mechanism's rotations once per link, the scales
without the point speeds when a bound decides ``a = g``. Six runs of this code in a row (no
baseline; the host busy at times), median / p99 / max ms:

=========  ==========================================================================
example    six runs
=========  ==========================================================================
brace      1.00/2.51/2.99, 0.75/1.60/2.45, 0.77/1.62/2.38, 0.81/1.80/2.62, 0.87/2.29/2.46, 0.77/1.56/2.46
quadruped  0.99/2.97/25.6, 0.74/1.59/23.4, 0.74/1.91/23.5, 0.77/1.99/24.8, 0.81/1.80/24.9, 0.90/1.77/26.3
snake      1.22/2.72/2.82, 1.27/2.48/2.57, 1.20/2.29/2.32, 1.20/2.45/2.51, 1.28/2.50/2.58, 1.52/2.85/2.90
rhex       0.61/56.4/57.6, 0.60/61.5/69.1, 0.63/56.1/57.1, 0.55/54.1/55.1, 0.61/56.3/58.0, 0.60/54.2/55.0
=========  ==========================================================================

(one run with ``--baseline 887a83f`` just before: snake 12.8 → 1.53 ms median, 29.8 → 4.2 ms
max, under load). Met: the medians of the brace, the quadruped and RHex's file, and the brace's
and the snake's maxima. Not met: the snake's median (1.2–1.5 ms; its calls take about a third
more CPU time in the loop than replayed alone, ``bench_generic_replay.py``: 0.9–1.05 ms), and the
maxima of the quadruped (one slow-path step) and RHex's file (its first steps' slow path).

Run 6 (a later session): the mechanism's evaluation compiled (``PlanarMechanism.dynamics_and_scales``
in one numba call with the NumPy path's numbers bit for bit, ``contactmodes.model._mechanism_kernel``).
Five runs of this code in a row on a mostly quiet host (a fixed pure-Python loop took 12.8–14.6 ms
before each run, 21.8 ms once: the host busy during run 3), median / p99 / max ms:

=========  ==========================================================================
example    five runs
=========  ==========================================================================
brace      0.69/1.45/2.28, 0.63/1.36/2.14, 0.70/1.57/2.28, 0.97/1.38/2.24, 0.68/2.25/2.40
quadruped  0.50/1.31/23.6, 0.49/1.32/23.0, 0.50/1.55/23.5, 0.51/1.62/23.8, 0.49/1.18/23.0
snake      0.79/1.94/2.05, 0.82/1.91/1.98, 0.96/2.18/2.29, 1.06/2.01/2.02, 0.81/1.93/2.07
rhex       0.43/51.9/52.7, 0.64/51.0/52.3, 0.44/55.8/56.7, 0.49/57.4/57.7, 0.43/52.0/53.6
=========  ==========================================================================

Two runs with ``--baseline 07055ad`` (the previous code) in the same hour, the host busy at times,
median before → now: brace 1.04 → 0.79 and 0.92 → 0.72, quadruped 1.05 → 0.70 and 0.93 → 0.75,
RHex's file 0.65 → 0.47 and 0.94 → 0.54, the snake 1.05 → 1.12 and 1.49 → 1.30 (its arms met
different load: replayed without the plant, ``bench_generic_replay.py``, its CPU median went
0.88–0.96 → 0.66–0.70 ms). Met: every example's median (the snake's in 4 of 5 runs: 0.79–1.06 ms,
at the target's edge when the host is busy), the brace's and the snake's maxima. Not met: the
maxima of the quadruped (its one slow-path step, 23 ms) and RHex's file (its first steps' slow
path, 52–58 ms): the exact answer's projections and set differences, which this change does not
touch.

Run 7 (a later session): twin modes settled without the slow path (``controllers.generic.certify``;
the search's *Settled candidates*, *The tie rule*). One run with ``--baseline aecb311`` on a busy
host (probe loop 13–19 ms), median / p99 / max ms, before → now: brace 0.88/1.62/2.38 →
1.35/2.70/3.99, quadruped 0.83/1.90/39.3 → 1.02/2.59/3.78, snake 1.86/3.50/3.55 →
1.33/3.22/3.27, RHex's file 0.47/56.6/58.3 → 0.70/6.79/8.02 (the medians moved with the load:
the brace and the snake are not affected by the change). Then five runs of this code, the probe
loop 12.4, 22.2, 21.4, 13.0 and 20.5 ms before them:

=========  ==========================================================================
example    five runs
=========  ==========================================================================
brace      0.71/1.54/2.48, 1.50/2.99/4.40, 0.73/1.52/2.53, 0.84/2.24/2.56, 0.79/1.84/2.74
quadruped  0.62/1.67/1.98, 0.62/1.72/1.99, 0.77/2.62/2.74, 0.65/1.67/2.04, 0.64/1.54/2.05
snake      1.22/2.36/2.41, 0.97/2.17/2.26, 1.15/2.55/2.67, 1.13/2.26/2.30, 1.15/2.44/2.52
rhex       0.57/6.65/8.83, 0.52/4.82/6.33, 0.57/5.01/6.71, 0.95/5.11/6.60, 0.55/4.90/6.55
=========  ==========================================================================

A second ``--baseline aecb311`` run met heavy load in the new code's arm only (its MuJoCo steps
per second 35–40 % below the old arm's, every median about 2× the old one's): such a pair
says nothing; the CPU-time replays (``bench_generic_replay.py``) compare the codes without the
plant and its load. Met now: the quadruped's maximum (2.0–2.7 ms; 23–41 ms before). Not met: RHex's file's maximum
(6.3–8.8 ms, 52–62 before: its step 1 builds a new velocity pattern's layout and settles a tied
pair), and the snake's median in the loop (0.97–1.22 ms in these runs; replayed, its CPU median
is 0.65–0.68 ms against the old code's 0.70–0.76 in the same run).

Run 8 (a later session): pivot choices of a new layout computed together and compiled
(``contactmodes.modes.response.pivot_choices``), the tie rule's certificates fewest ``n_w`` first,
and the kept certificate counting dimensions (``controllers.generic.certify``; ``docs/realtime.md``,
*New layouts and settled twins made cheaper*). One run with ``--baseline 98af7a2``, median / p99 /
max ms, before → now: brace 0.91/2.04/2.83 → 0.78/1.82/2.32, quadruped 0.70/1.59/2.14 →
0.74/1.51/2.29, snake 1.22/2.26/2.31 → 1.17/3.16/3.27, RHex's file 0.59/4.86/6.43 →
0.59/1.94/2.36. Then four runs of this code, the probe loop 13.2, 14.5, 12.5 and 21.8 ms before
them:

=========  ============================================================
example    four runs
=========  ============================================================
brace      0.71/1.63/2.17, 0.83/1.81/2.35, 0.86/1.82/2.24, 1.54/1.97/2.40
quadruped  0.69/1.26/2.53, 0.63/1.58/3.61, 0.70/1.21/2.37, 0.63/1.15/2.15
snake      1.27/2.82/2.84, 1.10/2.16/2.21, 1.21/2.29/2.33, 1.29/2.36/2.37
rhex       0.57/2.30/2.66, 0.57/1.98/2.52, 0.63/2.11/2.60, 0.54/1.94/2.40
=========  ============================================================

Met now: RHex's file's maximum (2.36–2.66 ms in five runs; 2.10–2.45 ms in eight more closed
loops of RHex's file alone, each in its own process). The quadruped's max is 2.15–2.53 ms
in four runs and 3.61 ms in one; the snake's 2.2–2.8 ms in four and 3.27 ms in the paired run,
whose snake p99 (3.16) says the whole run was slowed. Not met: the snake's median (1.10–1.29 ms;
``docs/realtime.md`` on why the 29-step run's median is its steady steps' 75th percentile).

Run 9 (a later session): the snake's near-rest candidates decided by the definition's LP, the
prune certificates by one solve, the steady step's glue, and the loop's prediction compiled
(``docs/realtime.md``, *The snake's steps made cheaper*). Three runs with ``--baseline a8b5e3a``,
the probe loop 15.3, 13.1 and 20.9 ms before them, median / p99 / max ms, before → now:

=========  ============================================================================
example    three paired runs
=========  ============================================================================
brace      0.63/1.99/2.63 → 0.64/1.21/1.76, 0.68/1.90/2.88 → 0.60/1.19/1.48,
           0.63/1.84/2.60 → 0.64/1.31/1.38
quadruped  0.48/1.09/1.91 → 0.54/1.34/1.92, 0.50/1.34/2.03 → 0.46/0.99/1.95,
           0.56/1.09/2.06 → 0.55/1.07/2.06
snake      0.79/1.84/1.91 → 0.94/1.73/1.74, 0.88/1.86/1.88 → 0.80/1.61/1.66,
           1.00/2.05/2.08 → 0.85/1.83/1.83
rhex       0.44/1.66/2.02 → 0.42/1.66/2.10, 0.44/1.69/2.05 → 0.41/1.50/1.88,
           0.46/1.79/2.16 → 0.43/1.68/2.10
=========  ============================================================================

Six more pairs, each code's ``run()`` in its own process, alternated (probe loop 12–13 ms): the
snake's median 0.78–0.92 ms before and 0.69–0.82 now, p99 1.79–2.04 and 1.42–1.75, max 1.87–2.04
and 1.45–1.83. Met now: the snake's median, in all nine runs of this code (0.69–0.94 ms). In a
busier stretch of the same day, before the last two changes, both codes gave 0.92–1.21 ms.
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

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RAW_STEPS = 20000
RATE = 100.0
# the RHex motors' box and torque-speed line: RHexParams().tau_limit (N m) and .omega_noload (rad/s) of
# controllers.rhex.params, copied so that this benchmark does not import controllers.rhex
RHEX_TAU_LIMIT = 10.25
RHEX_OMEGA_NOLOAD = 43.1


def _stats(ms) -> dict:
    w = np.asarray(ms, dtype=float)
    if w.size == 0:
        return {"steps": 0}
    return {"steps": int(w.size), "median": float(np.median(w)), "p99": float(np.percentile(w, 99)),
            "max": float(w.max())}


class _Timed:
    """A controller whose calls are timed (ms); passes on the predictions the loop reads."""

    def __init__(self, inner) -> None:
        self.inner, self.ms = inner, []

    @property
    def predicted_qdd(self):
        return getattr(self.inner, "predicted_qdd", None)

    @property
    def predicted_mode(self):
        return getattr(self.inner, "predicted_mode", None)

    def __call__(self, q, qdot):
        t0 = time.perf_counter()
        tau = self.inner(q, qdot)
        self.ms.append((time.perf_counter() - t0) * 1e3)
        return tau


def _raw_steps_per_s(plant, q, qdot) -> float:
    import mujoco

    data = mujoco.MjData(plant.model)
    plant.set_state(data, q, qdot)
    mujoco.mj_forward(plant.model, data)
    t0 = time.perf_counter()
    for _ in range(RAW_STEPS):
        mujoco.mj_step(plant.model, data)
    return RAW_STEPS / (time.perf_counter() - t0)


def _brace():
    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import load_system_file, parse_system
    from controllers.generic import UnambiguousOptimalController
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import GenericController

    climb = load_system_file(EXAMPLES / "five_link_climb.toml")
    with open(EXAMPLES / "two_link_brace.toml", "rb") as f:
        table = tomllib.load(f)
    for contact in table["contacts"]:  # a soft plant's sticking contacts creep at um/s (docs/simulate.md)
        contact["v0"] = 0.001
    brace = parse_system(table, source=str(EXAMPLES / "two_link_brace.toml"))
    plant = build_plant(climb.mechanism, climb.q, climb.qdot, limits=np.array([[-1.0, 1.0]]))
    s = brace.system
    objective = LinearObjective(np.zeros(s.n_q), np.zeros(2 * s.k), np.ones(1), "minimize", "tau.tau1")
    inner = UnambiguousOptimalController(brace, objective, limits=(np.array([-1.0]), np.array([1.0])), modes=["FFF"],
                                         normal_velocity_tol=ModeThresholds().slip_tol(plant))
    delta = np.array([-0.2, -3.0, 0.25, -0.25])
    return plant, climb, GenericController(inner, brace), 1.0, climb.system.disturbance.E @ delta


def _quadruped():
    from contactmodes.system_file.loader import load_system_file
    from controllers.simulation.goal import GoalSwitch, goal_controllers
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import file_limits

    loaded = load_system_file(EXAMPLES / "quadruped" / "quadruped.toml", lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    up, down, i, drive_up = goal_controllers(loaded, ModeThresholds().slip_tol(plant))
    switch = GoalSwitch(up, down, i, 0.0, math.radians(10.0), math.sqrt(0.25 / 9.81), drive_up=drive_up)
    return plant, loaded, switch, 2.0, None


def _snake():
    from contactmodes.system_file.loader import load_system_file
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import file_limits, make_controller

    loaded = load_system_file(EXAMPLES / "snake" / "snake_chimney.toml", lifted_contacts=True)
    _, box = file_limits(loaded)
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    choice = make_controller("control", loaded, velocity_tol=ModeThresholds().slip_tol(plant))
    return plant, loaded, choice.controller, 0.3, None


def _rhex():
    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import load_system_file
    from controllers.generic import TorqueBox, UnambiguousOptimalController
    from controllers.simulation.model import build_plant
    from controllers.simulation.modes import ModeThresholds
    from controllers.simulation.registry import GenericController

    tau_limit, omega_noload = RHEX_TAU_LIMIT, RHEX_OMEGA_NOLOAD
    loaded = load_system_file(EXAMPLES / "rhex_flip_start.toml")
    s = loaded.system
    box = np.tile([-tau_limit, tau_limit], (s.n_tau, 1))
    plant = build_plant(loaded.mechanism, loaded.q, loaded.qdot, limits=box)
    theta = list(s.coordinates).index("theta")
    objective = LinearObjective(np.eye(s.n_q)[theta], np.zeros(2 * s.k), np.zeros(s.n_tau), "maximize", "qdd.theta")
    limits = TorqueBox(-tau_limit, tau_limit, tau_max=tau_limit, omega_0=omega_noload, n_tau=s.n_tau)
    inner = UnambiguousOptimalController(loaded, objective, limits, normal_velocity_tol=ModeThresholds().slip_tol(plant))
    return plant, loaded, GenericController(inner, loaded), 0.5, None


EXAMPLE_RUNS = {"brace": _brace, "quadruped": _quadruped, "snake": _snake, "rhex": _rhex}


def run(scale: float = 1.0, names=tuple(EXAMPLE_RUNS)) -> dict:
    """Per example: MuJoCo steps/s, the controller's step times and the run's wall time (module doc)."""
    from controllers.simulation.loop import simulate

    out = {}
    for name in names:
        plant, loaded, controller, duration, disturbance = EXAMPLE_RUNS[name]()
        steps_per_s = _raw_steps_per_s(plant, loaded.q, loaded.qdot)
        timed = _Timed(controller)
        t0 = time.perf_counter()
        result = simulate(plant, loaded.q, loaded.qdot, timed, duration * scale, RATE, disturbance=disturbance)
        wall = time.perf_counter() - t0
        simulated = len(result.modes) / RATE
        modes: dict[str, int] = {}
        for m in result.modes:
            modes[m] = modes.get(m, 0) + 1
        out[name] = {"mujoco_steps_per_s": steps_per_s, "controller_ms": _stats(timed.ms[1:]),
                     "first_call_ms": timed.ms[0],
                     "simulated_s": simulated, "wall_s_per_simulated_s": wall / simulated,
                     "modes": dict(sorted(modes.items(), key=lambda kv: -kv[1])[:3])}
    return out


def run_baseline(rev: str, scale: float) -> dict:
    """The ``examples`` of this benchmark run by the code of git revision ``rev`` (extracted by
    ``git archive`` into a temporary directory, run in a child process outside the source tree)."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        out = Path(tmp) / "baseline.json"
        env = dict(os.environ, PYTHONPATH=tmp)
        proc = subprocess.run([sys.executable, str(Path(tmp) / "benchmarks" / "bench_mujoco_examples.py"),
                               "--scale", repr(scale), "--out", str(out)], capture_output=True, text=True, env=env,
                              cwd=tmp, check=False)
        if proc.returncode:
            raise RuntimeError(f"baseline {rev} failed:\n{proc.stderr[-2000:]}")
        return json.loads(out.read_text(encoding="utf-8"))["examples"]


def _print_table(examples: dict, code: str) -> None:
    for name, r in examples.items():
        st = r["controller_ms"]
        print(f"{name:10s} {code:9s} {r['mujoco_steps_per_s']:12.0f} {st['steps']:6d} {st['median']:8.2f} "
              f"{st['p99']:8.2f} {st['max']:8.2f} {r['first_call_ms']:8.0f} {r['wall_s_per_simulated_s']:13.2f}  "
              + ", ".join(f"{m} {n}" for m, n in r["modes"].items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every run's duration (default 1)")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON document to this file")
    ap.add_argument("--baseline", default="", help="git revision of the previous code, run in the same session "
                    "after this code (default: none)")
    args = ap.parse_args(argv)
    if not (math.isfinite(args.scale) and args.scale > 0):
        ap.error("--scale: must be a finite number > 0")
    import mujoco

    doc = {"schema": "contactmodes.bench-mujoco-examples/1", "mujoco": mujoco.__version__, "scale": args.scale,
           "dt_s": 5e-4, "rate_hz": RATE, "examples": run(args.scale)}
    if args.baseline:
        doc["baseline"] = {"rev": args.baseline, "examples": run_baseline(args.baseline, args.scale)}
    print(f"{'example':10s} {'code':9s} {'MuJoCo st/s':>12s} {'steps':>6s} {'median':>8s} {'p99':>8s} {'max':>8s} "
          f"{'first':>8s} {'wall s/sim s':>13s}  modes (top 3)")
    _print_table(doc["examples"], "now")
    if args.baseline:
        before = doc["baseline"]["examples"]
        _print_table(before, "before")
        for name, r in doc["examples"].items():
            if name not in before:
                continue
            b, n = before[name]["controller_ms"], r["controller_ms"]
            print(f"{name:10s} {'ratio':9s} {'':12s} {'':6s} "
                  + " ".join(f"{b[k] / n[k]:8.2f}" for k in ("median", "p99", "max"))
                  + "  (before/now)")
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
