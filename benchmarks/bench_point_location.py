"""Timing of ``--at`` point location among many modes (issue 40, item 6 "Scale").

Run: ``python benchmarks/bench_point_location.py [--repeat N] [--torques K] [FILE]`` (default
``examples/spatial/solo12_standing.toml``: Solo-12 standing on four feet, ``n_f = 4``, 10^4 modes).

What is timed, on a loaded system (interpreter start and the Pinocchio import excluded):

* **locate**: ``AnalysisSession(system).locate(τ)`` in a fresh session — the point-location query
  itself (``contactmodes.analysis.point_location.PointFilter`` over every mode Table III allows,
  then the session's own test on the modes left, and their kinematic feasibility);
* **filter**: the ``PointFilter`` part alone (its set-up and one ``candidates`` call);
* **previous** (the peer, same run, once): the previous path, every kinematically feasible
  mode's own test (the enumeration, each mode's response, ``D_c`` and membership LP; what
  ``locate`` did before), on the first torque only; it also checks that both answers agree.

``K`` random torques (``0.3 ×`` the analysis's torque unit, normal, seed 0); medians over ``N``
repeats (ms). Numbers are machine dependent: quote the ratio ``previous / locate``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.point_location import PointFilter  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402


def previous(system, tau) -> tuple[list[str], float]:
    """The brute-force answer (every kinematically feasible mode's membership test) and its ms."""
    t0 = time.perf_counter()
    session = AnalysisSession(system)
    found = [m for m in session.enumeration.modes if session.mode(m).feasible() and session.mode(m).contains(tau)]
    return found, (time.perf_counter() - t0) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "examples" / "spatial" / "solo12_standing.toml"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--torques", type=int, default=5)
    args = ap.parse_args()
    system = cm.load_system(args.file)
    unit = np.asarray(system.scaling.tau, dtype=float) * np.ones(system.n_tau)
    rng = np.random.default_rng(0)
    taus = [0.3 * unit * rng.normal(size=system.n_tau) for _ in range(args.torques)]
    locate_ms, filter_ms, answers = [], [], []
    for _ in range(args.repeat):
        for tau in taus:
            t0 = time.perf_counter()
            answers.append(AnalysisSession(system).locate(tau))
            locate_ms.append((time.perf_counter() - t0) * 1e3)
            t0 = time.perf_counter()
            session = AnalysisSession(system)
            PointFilter(session, True).candidates(session.scaling.tau_from_user(tau))
            filter_ms.append((time.perf_counter() - t0) * 1e3)
    count = PointFilter(AnalysisSession(system), True).count()
    found, prev_ms = previous(system, taus[0])
    assert found == answers[0], (found, answers[0])
    loc = statistics.median(locate_ms)
    print(f"{Path(args.file).name}: {count} modes allowed by Table III, {system.n_tau} torques")
    print(f"  locate  median {loc:8.1f} ms  (max {max(locate_ms):.1f}; {len(locate_ms)} queries)")
    print(f"  filter  median {statistics.median(filter_ms):8.1f} ms")
    print(f"  previous        {prev_ms:8.1f} ms  (one query; same answer {found})")
    print(f"  previous / locate = {prev_ms / loc:.0f}")


if __name__ == "__main__":
    main()
