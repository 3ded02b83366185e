"""Step times of the generic unambiguous optimal controller against its RHex configuration.

Run: ``python benchmarks/bench_generic_controller.py [--mu 0.6] [--repeat N] [--out FILE]``.

In one process and one run:

1. **RHex configuration.** A whole max-thrust flip (``simulate``, 1 s, ends at the flip) with
   ``MaxThrustController`` (``controllers.rhex.max_thrust``: the generic search configured with
   RHex's objective, task, motor box, rigid model and velocity classification); its step wall
   times (ms) over the steps it computed (the precomputed at-rest start left out).
2. **Generic controller.** ``controllers.generic.UnambiguousOptimalController`` built from the
   system file ``examples/rhex_flip_start.toml`` (the same rigid RHex as a ``PlanarMechanism``;
   contacts more than ``toe_clearance`` above the ground left out, as RHex leaves lifted toes
   out; the torque box ``±τ_limit`` with the motors' torque–speed line at the hip speeds, normal
   velocities ``<= normal_velocity_tol`` set to 0)
   with the objective "maximize θ̈", driven through the flip's states (``q``, ``q̇`` of the rigid
   model at each control step) in order, so that its structures, layouts and warm starts are
   reused as in a run; its step wall times (ms) and statuses.

For both: median, p90, p99, max (ms) of each repeat's steps pooled over ``--repeat`` repeats,
the construction time and the compile time of the kernels (paid once per process). The generic
controller evaluates a mechanism in general form at every step (``PlanarMechanism.dynamics``,
``characteristic_scales``) where RHex uses its closed-form model, and its contact points are the
file's (the body's rear corner, the toes as leg ends) where RHex picks the lowest body corner:
the problems are close, not identical (statuses and modes are printed), and the comparison is
of the general path's cost. Numbers depend on the machine and its load. A summary is
printed; the JSON document is written to ``--out`` only when given (nothing else is written).

Issue 24, ``--mu 0.6 --repeat 3`` on the shared 2-core machine (load average 3.5–4 from other
work), the code before the round (``f6888c7``, extracted by ``git archive`` and run with its own
tree on ``PYTHONPATH``) and this code back to back, wall ms per step (1578 / 1581 steps):

=====================  ===========  ======  =====  =====  =====
controller             code         median  p90    p99    max
=====================  ===========  ======  =====  =====  =====
RHex configuration     ``f6888c7``  0.394   0.755  4.89   9.07
RHex configuration     now          0.389   0.728  5.01   6.42
generic, RHex's file   ``f6888c7``  0.716   4.74   5.44   61.4
generic, RHex's file   now          0.631   1.48   6.11   89.7
=====================  ===========  ======  =====  =====  =====

Median ratio before/now: 1.01 (RHex configuration; its per-step CPU cost is measured without
the load's noise by ``bench_step_replay.py``: 1.05–1.06) and 1.13 (generic on the file:
``PlanarMechanism.dynamics_and_scales``, the gathered pivots). The p90–max move with the load
(an earlier run of this code: 0.368 / 0.621 / 1.16 / 3.10 and 0.610 / 0.833 / 3.03 / 38.6 ms);
the generic controller's max is its first step, which builds the 136-mode layout of the at-rest
start (the RHex configuration precomputes it in its constructor). The same statuses and modes
in both codes.

A later session, the mechanism's evaluation compiled (``contactmodes.model._mechanism_kernel``,
the same numbers), ``--mu 0.6 --repeat 3`` on a quiet host, wall ms per step: RHex configuration
median 0.399, p90 0.632, p99 1.04, max 1.90 (unchanged code: within its 1 ms / 3 ms); generic on
RHex's file median 0.444, p90 0.631, p99 0.952, max 27.4 (its first step, as above). The same
statuses (1443 ``optimal``, 138 ``task_dropped``; 1572 steps in the RHex configuration's mode).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_FILE = ROOT / "examples" / "rhex_flip_start.toml"


def _stats(ms) -> dict:
    w = np.asarray(ms, dtype=float)
    if w.size == 0:
        return {"steps": 0}
    return {"steps": int(w.size), "median": float(np.median(w)), "p90": float(np.percentile(w, 90)),
            "p99": float(np.percentile(w, 99)), "max": float(w.max())}


def run(mu: float, repeat: int) -> dict:
    """Both controllers' step times (module doc) at toe friction ``mu``."""
    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import load_system_file
    from controllers.generic import TorqueBox, UnambiguousOptimalController
    from controllers.rhex import RHexParams, simulate
    from controllers.rhex.max_thrust import MaxThrustController
    from controllers.rhex.rigid_model import rigid_arrays

    p = RHexParams(mu_toe=mu)
    loaded = load_system_file(SYSTEM_FILE)
    s = loaded.system
    theta = list(s.coordinates).index("theta")
    objective = LinearObjective(np.eye(s.n_q)[theta], np.zeros(2 * s.k), np.zeros(s.n_tau), "maximize", "qdd.theta")
    limits = TorqueBox(-p.tau_limit, p.tau_limit, tau_max=p.tau_limit, omega_0=p.omega_noload, n_tau=s.n_tau)
    rhex_ms, gen_ms, statuses, out = [], [], {}, {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        rc = MaxThrustController(p)
        out.setdefault("rhex_build_s", time.perf_counter() - t0 - rc.compile_seconds)
        out.setdefault("rhex_compile_s", rc.compile_seconds)
        r = simulate(rc, p, duration=1.0)
        rhex_ms += [rec.wall_time * 1e3 for rec in rc.log if rec.path != "precomputed"]
        states = [(ra.q, ra.qdot) for ra in (rigid_arrays(x, p) for x in r.states[:len(rc.log)])]
        t0 = time.perf_counter()
        gc = UnambiguousOptimalController(loaded, objective, limits, normal_velocity_tol=p.normal_velocity_tol,
                                          gap_tol=p.toe_clearance)
        out.setdefault("generic_build_s", time.perf_counter() - t0 - gc.compile_seconds)
        for q, qd in states:
            gc(q, qd)
        gen_ms += gc.step_ms.tolist()
        same = sum(a.mode == b.mode for a, b in zip(rc.log, gc.log))
        out["same_mode_steps"] = out.get("same_mode_steps", 0) + same
        for k, v in gc.counts.items():
            statuses[k] = statuses.get(k, 0) + v
        out.setdefault("generic_errors", gc.errors[:3])
    out.update({"mu_toe": mu, "repeat": repeat, "rhex_max_thrust_ms": _stats(rhex_ms),
                "generic_rhex_file_ms": _stats(gen_ms), "generic_statuses": statuses})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mu", type=float, default=0.6, help="toe friction of the flip (default 0.6)")
    ap.add_argument("--repeat", type=int, default=1, help="repeats of the flip (default 1)")
    ap.add_argument("--out", type=Path, default=None, help="write the JSON document to this file")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat: must be at least 1")
    doc = {"schema": "contactmodes.bench-generic-controller/1", **run(args.mu, args.repeat)}
    for key in ("rhex_max_thrust_ms", "generic_rhex_file_ms"):
        st = doc[key]
        if st.get("steps"):
            print(f"{key:22s} steps {st['steps']:5d}  median {st['median']:7.3f}  p90 {st['p90']:7.3f}  "
                  f"p99 {st['p99']:7.3f}  max {st['max']:7.3f} ms")
    print(f"generic statuses: {doc['generic_statuses']}; steps with the RHex configuration's mode: "
          f"{doc['same_mode_steps']}")
    if doc["generic_errors"]:
        print(f"generic errors (first): {doc['generic_errors']}", file=sys.stderr)
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
