"""Tune the blind controller's rear-toe stiction detector once, for detection accuracy at μ_t = 0.39.

Run: ``python benchmarks/tune_blind_detector.py [--out DIR] [--thresholds LO:HI:STEP] [--workers N]``.

Criterion (flipping paper Sec. IV-C.2: the detector was tuned on linoleum, μ_t = 0.39, and "hence
yields relatively accurate timing for the switching of models"): for each threshold a blind flip at
μ_t = 0.39 (every other parameter at its ``RHexParams`` default, including the calibrated torque
limit) gives its model-switch time and its own simulated rear-toe stiction
(``controllers.rhex.metrics.stiction_time``); a threshold is admissible when the switch comes
no earlier than the stiction, and the chosen one has the smallest delay (ties: the middle of the
tied thresholds; ``controllers.rhex.calibration.select_detector_threshold``). The band is every
threshold switching 0–30 ms after the stiction. The result goes into
``RHexParams.detector_threshold`` by hand and is then left alone (never re-tuned per friction).

Prints the table (threshold, switch, stiction, delay, outcome, flip time) and the band, the same
at μ_t = 0.6 for the chosen threshold, and writes ``detector_tuning.json`` and
``detector_tuning.png`` (switch and stiction times against the threshold) into ``--out`` (default a
new temporary directory). About 1–2 minutes with the default grid.
"""

from __future__ import annotations

import argparse
import json
import sys

from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rhex_runs import flip_job, fmt, output_dir, run_jobs  # noqa: E402

from controllers.rhex.calibration import DETECTOR_BAND_S, select_detector_threshold  # noqa: E402
from controllers.rhex.plots import plot_sweep  # noqa: E402

MU_TUNE = 0.39
DURATION = 1.0


def parse_grid(text: str) -> list[float]:
    lo, hi, step = (float(v) for v in text.split(":"))
    if not (step > 0 and hi >= lo):
        raise ValueError(f"--thresholds: need LO:HI:STEP with STEP > 0 and HI >= LO, got {text!r}")
    return [round(v, 6) for v in np.arange(lo, hi + step / 2, step)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temporary directory)")
    parser.add_argument("--thresholds", default="0:60:2", help="threshold grid LO:HI:STEP in rad/s² (default 0:60:2)")
    parser.add_argument("--duration", type=float, default=DURATION, help="simulated seconds per run (default 1)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    try:
        grid = parse_grid(args.thresholds)
    except ValueError as exc:
        parser.error(str(exc))
    out = output_dir(args.out, "rhex-detector-")
    try:
        jobs = [("blind", {"mu_toe": MU_TUNE, "detector_threshold": th}, args.duration, False) for th in grid]
        docs = [r["doc"] for r in run_jobs(flip_job, jobs, args.workers)]
        best, band, table = select_detector_threshold(
            [(th, d["switch_time_s"], d["stiction_time_s"]) for th, d in zip(grid, docs)])
        check = None
        if best is not None:
            check = [r["doc"] for r in run_jobs(flip_job, [("blind", {"mu_toe": mu, "detector_threshold": best},
                                                              args.duration, False) for mu in (0.39, 0.6)])]
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    print(f"Blind detector tuning at mu_t = {MU_TUNE} (tau_limit = {docs[0]['tau_limit_nm']:g} N·m, "
          f"mu_body = {docs[0]['mu_body']:g})")
    print()
    print("| threshold (rad/s²) | switch (s) | simulated stiction (s) | delay (ms) | outcome | flip (s) |")
    print("|---|---|---|---|---|---|")
    for row, d in zip(table, docs):
        delay = fmt(None if row["delay_s"] is None else 1e3 * row["delay_s"], "+.0f")
        print(f"| {row['threshold']:g} | {fmt(row['switch_s'])} | {fmt(row['stiction_s'])} | {delay} | "
              f"{d['outcome']} | {fmt(d['flip_time_s'])} |")
    print()
    band_txt = "none" if not band else f"{min(band):g} … {max(band):g} rad/s² ({len(band)} of {len(grid)} grid values)"
    print(f"band (switch 0–{DETECTOR_BAND_S * 1e3:.0f} ms after the simulated stiction): {band_txt}")
    print(f"chosen threshold: {fmt(best, 'g', 'none admissible')} rad/s²")
    if check:
        for d in check:
            print(f"  at mu_t = {d['mu_toe']}: switch {fmt(d['switch_time_s'])} s, simulated stiction "
                  f"{fmt(d['stiction_time_s'])} s, {d['outcome']} {fmt(d['flip_time_s'])}")
    doc = {"mu_toe": MU_TUNE, "grid": grid, "table": table, "band": band, "best": best,
           "band_delay_s": DETECTOR_BAND_S, "check": check}
    (out / "detector_tuning.json").write_text(json.dumps(doc, indent=2) + "\n")
    plot_sweep(grid, {"model switch": [r["switch_s"] for r in table],
                      "simulated rear-toe stiction": [r["stiction_s"] for r in table]},
               str(out / "detector_tuning.png"), xlabel="detector threshold (rad/s²)", ylabel="time (s)",
               title=f"blind detector at μ_t = {MU_TUNE}: switch vs simulated stiction", highlight=best,
               band=(min(band), max(band)) if band else None)
    print(f"\nwrote {out / 'detector_tuning.json'} and {out / 'detector_tuning.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
