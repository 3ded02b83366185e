"""Reproduce the flipping paper's comparison (Sec. IV-C.4, Table V, Fig. 15): blind vs max-thrust.

Run: ``python benchmarks/reproduce_flip.py [--output-dir benchmarks/out] [--duration 2]``.

Runs both controllers (the max-thrust one only when ``controllers.rhex.max_thrust`` imports;
otherwise says so) at μ_t = 0.39 and 0.6 from the flat start, μ_body = 0.3 (``RHexParams``), and
prints

* our Table V beside the paper's: RMSE (rad/s²) of the controller's predicted minus the simulated
  pitch acceleration over the thrust phase (``controllers.rhex.plots.rmse_pitch_accel`` — our
  reading of the paper's ``t_f``), with the flip times, and as a diagnostic the same RMSE without
  the first control step (the compliant legs' start-up transient from the unloaded flat start);
* the flip-time ratio max-thrust / blind per friction (paper: the new controller is ≈ 8 % faster
  at μ_t = 0.6, ratio ≈ 0.92);
* the controller-step wall-time distribution (median, p90, max, ms) per run;

and writes Fig. 15 (pitch against time, every run; blind solid, max-thrust dashed) as
``fig15_pitch.png`` in the output directory (created if missing).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controllers.rhex.blind import BlindController  # noqa: E402
from controllers.rhex.params import RHexParams  # noqa: E402
from controllers.rhex.plots import plot_pitch, rmse_pitch_accel  # noqa: E402
from controllers.rhex.simulator import simulate  # noqa: E402

FRICTIONS = (0.39, 0.6)
PAPER_RMSE = {("blind", 0.39): 11.22, ("blind", 0.6): 11.56, ("max-thrust", 0.39): 6.65, ("max-thrust", 0.6): 6.68}
PAPER_RATIO_06 = 0.92  # "roughly 8 % quicker" (Fig. 15)


def controller_factories() -> dict:
    """name → factory(params); max-thrust only when its module imports (message otherwise)."""
    out = {"blind": BlindController}
    try:
        from controllers.rhex.max_thrust import MaxThrustController
    except ImportError as exc:
        print(f"max-thrust controller missing (controllers.rhex.max_thrust: {exc}); running blind only")
    else:
        out["max-thrust"] = MaxThrustController
    return out


def timed_run(factory, params: RHexParams, duration: float):
    """Simulate one run; returns (SimulationResult, controller step times in ms (N,))."""
    ctrl = factory(params)
    times: list[float] = []

    def timed(t, state, p=None):
        t0 = time.perf_counter()
        out = ctrl(t, state, p)
        times.append(time.perf_counter() - t0)
        return out

    return simulate(timed, params, duration=duration), np.array(times) * 1e3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=str(ROOT / "benchmarks" / "out"),
                        help="where fig15_pitch.png goes (default benchmarks/out/)")
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds per run (default 2)")
    args = parser.parse_args(argv)
    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    factories = controller_factories()
    runs, steps = {}, {}
    for mu in FRICTIONS:
        params = RHexParams().with_(mu_toe=mu)
        for name, factory in factories.items():
            runs[(name, mu)], steps[(name, mu)] = timed_run(factory, params, args.duration)
            print(f"ran {name} at mu_t={mu} ({runs[(name, mu)].wall_time:.1f} s wall)", file=sys.stderr, flush=True)

    print(f"Table V: RMSE of predicted vs simulated pitch acceleration over the thrust phase (rad/s²), "
          f"mu_body = {RHexParams().mu_body:g}")
    print()
    print("| controller | mu_t | flip time (s) | RMSE ours | RMSE paper | ours without step 0 |")
    print("|---|---|---|---|---|---|")
    fmt = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
    for (name, mu), res in runs.items():
        flip = f"{res.flip_time:.3f}" if res.success else f"no flip ({res.outcome})"
        print(f"| {name} | {mu} | {flip} | {fmt(rmse_pitch_accel(res))} | {PAPER_RMSE[(name, mu)]:.2f} | "
              f"{fmt(rmse_pitch_accel(res, skip=1))} |")
    print("(last column, a diagnostic: the first 1 ms step is the compliant legs' start-up transient,"
          " see controllers.rhex.plots.rmse_pitch_accel)")
    print()
    if "max-thrust" in factories:
        for mu in FRICTIONS:
            a, b = runs[("max-thrust", mu)], runs[("blind", mu)]
            if a.success and b.success:
                ratio = a.flip_time / b.flip_time
                paper = f"paper ≈ {PAPER_RATIO_06:.2f}" if mu == 0.6 else "paper: not reported"
                print(f"flip-time ratio max-thrust / blind at mu_t={mu}: {ratio:.3f} "
                      f"({(1 - ratio) * 100:+.1f} % faster; {paper})")
            else:
                print(f"flip-time ratio at mu_t={mu}: n/a (max-thrust {a.outcome}, blind {b.outcome})")
    else:
        print("flip-time ratio: n/a (max-thrust controller missing)")
    print()
    print("controller step wall time (ms):")
    print("| controller | mu_t | steps | median | p90 | max |")
    print("|---|---|---|---|---|---|")
    for (name, mu), st in steps.items():
        print(f"| {name} | {mu} | {st.size} | {np.median(st):.2f} | {np.percentile(st, 90):.2f} | {st.max():.1f} |")
    fig = out / "fig15_pitch.png"
    labels = {key: f"{key[0]}, μ_t={key[1]}" for key in runs}
    plot_pitch({labels[k]: r for k, r in runs.items()}, str(fig),
               styles={labels[k]: {"ls": "--" if k[0] == "max-thrust" else "-", "color": f"C{FRICTIONS.index(k[1])}"}
                       for k in runs},
               title="pitch during flipping (Fig. 15): blind solid, max-thrust dashed")
    print()
    print(f"Fig. 15: {fig}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
