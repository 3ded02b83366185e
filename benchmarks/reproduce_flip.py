"""Reproduce the flipping paper's comparison (Table V, Fig. 15): blind vs max-thrust at μ_t = 0.39, 0.6.

Run: ``python benchmarks/reproduce_flip.py [--output-dir benchmarks/out]``. Prints our Table V
(RMSE of predicted vs simulated pitch acceleration over the thrust phase, rad/s²) beside the
paper's, the flip times and the max-thrust/blind flip-time ratio (paper: new ≈ 8 % faster at
μ_t = 0.6), and the controller-step wall-time distribution; writes Fig. 15 (pitch against time,
all four runs) as ``fig15_pitch.png`` in the output directory.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controllers.rhex import BlindController, MaxThrustController, RHexParams, simulate  # noqa: E402
from controllers.rhex.plots import plot_pitch, rmse_pitch_accel  # noqa: E402

PAPER_RMSE = {("blind", 0.39): 11.22, ("blind", 0.6): 11.56, ("max-thrust", 0.39): 6.65, ("max-thrust", 0.6): 6.68}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", default=str(ROOT / "benchmarks" / "out"))
    args = parser.parse_args()
    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, steps = {}, {}
    for mu in (0.39, 0.6):
        params = RHexParams().with_(mu_toe=mu)
        for name, ctrl in (("blind", BlindController(params)), ("max-thrust", MaxThrustController(params))):
            times: list[float] = []

            def timed(t, state, p=None, ctrl=ctrl, times=times):
                t0 = time.perf_counter()
                o = ctrl(t, state, p)
                times.append(time.perf_counter() - t0)
                return o

            runs[(name, mu)] = simulate(timed, params, duration=2.0)
            steps[(name, mu)] = np.array(times) * 1e3
            print(f"ran {name} at mu_t={mu}", file=sys.stderr)
    print("| controller | mu_t | flip time s | RMSE rad/s² (ours) | RMSE (paper) | step ms median / p90 / max |")
    print("|---|---|---|---|---|---|")
    for (name, mu), res in runs.items():
        rmse = rmse_pitch_accel(res.predicted_pitch_acc, res.pitch_acc)
        st = steps[(name, mu)]
        flip = f"{res.flip_time:.3f}" if res.success else f"no flip ({res.outcome})"
        print(f"| {name} | {mu} | {flip} | {rmse:.2f} | {PAPER_RMSE[(name, mu)]:.2f} | "
              f"{np.median(st):.2f} / {np.percentile(st, 90):.2f} / {st.max():.1f} |")
    for mu in (0.39, 0.6):
        a, b = runs[("max-thrust", mu)], runs[("blind", mu)]
        if a.success and b.success:
            print(f"flip-time ratio max-thrust / blind at mu_t={mu}: {a.flip_time / b.flip_time:.3f} "
                  f"(paper at 0.6: about 0.92; target <= 0.95)")
    plot_pitch({f"{n}, μ_t={mu}": r for (n, mu), r in runs.items()}, str(out / "fig15_pitch.png"))
    print(f"Fig. 15: {out / 'fig15_pitch.png'}")


if __name__ == "__main__":
    main()
