"""Figures of ``docs/friction-intervals.md``: torque sets when μ is known only to an interval.

Run::

    python examples/friction/friction_intervals_figures.py --output DIR

writes

* ``DIR/friction_interval_brace.png``: the two-link brace (``examples/two_link_brace.toml``,
  mode FFF) with every μ in ``[0.3 − w/2, 0.3 + w/2]``: the bound of ``T_FFF^∀`` (the brace holds
  for every μ of the box; it is also the robust ``T*_FFF``) and of ``T_FFF^∃`` (for some μ) as
  the width ``w`` grows; the exact-μ bound at 0.3 is where they meet; and the bound of the
  ``brace`` command's robust set for the five-link climber (``examples/five_link_climb.toml``:
  for every disturbance of its box D and every μ);
* ``DIR/friction_interval_painleve.png``: Painlevé's rod (``examples/painleve_rod.toml``) with μ
  in ``[lo, lo + 0.2]``: the robust sets ``T*_S`` and ``T*_L`` (segments over the moment ``M``) as
  the interval slides across the Painlevé value 4/3 — they vanish as soon as the interval
  reaches it;

and prints the numbers. Everything through ``contactmodes.analysis.friction_interval``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from contactmodes import load_system
from contactmodes.analysis.friction_interval import FrictionIntervalAnalysis
from contactmodes.analysis.friction_robust import robust_unambiguous_over_friction
from contactmodes.model.friction import FrictionBox

ROOT = Path(__file__).resolve().parents[2]
M_RANGE = (-10.0, 5.0)  # N·m: the moments drawn for the rod


def brace_bounds(widths):
    """Per width ``w``: (bound of T^∀, bound of T^∃) of the brace's FFF (N·m), μ ∈ 0.3 ± w/2."""
    brace = load_system(ROOT / "examples" / "two_link_brace.toml")
    out = []
    for w in widths:
        box = FrictionBox([0.3 - w / 2] * 3, [0.3 + w / 2] * 3)
        fa = FrictionIntervalAnalysis(brace, box)
        out.append((fa.forall("FFF").bounding_box()[1][0], fa.exists("FFF").bounding_box()[1][0]))
    return np.array(out)


def climber_bounds(widths):
    """Per width ``w``: the bound of the climber's robust ``T'*_FFF`` (N·m), μ ∈ 0.3 ± w/2, every δ ∈ D."""
    climber = load_system(ROOT / "examples" / "five_link_climb.toml")
    out = []
    for w in widths:
        r = robust_unambiguous_over_friction(climber, FrictionBox([0.3 - w / 2] * 3, [0.3 + w / 2] * 3), "FFF")
        out.append(max(p.bounding_box()[1][0] for p in r.robust_unambiguous) if r.robust_unambiguous else np.nan)
    return np.array(out)


def rod_robust(los, width=0.2):
    """Per lower end: the robust pieces of S and L as (lo, hi) moment intervals clipped to ``M_RANGE``."""
    rod = load_system(ROOT / "examples" / "painleve_rod.toml")
    out = []
    for lo in los:
        fa = FrictionIntervalAnalysis(rod, FrictionBox([lo], [lo + width]))
        row = {}
        for mode in "SL":
            row[mode] = [tuple(float(np.clip(v[0], *M_RANGE)) for v in p.bounding_box())
                         for p in fa.unambiguous(mode).unambiguous]
        out.append(row)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="directory for the two PNG files")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)

    widths = np.linspace(0.0, 0.4, 17)
    b = brace_bounds(widths)
    c = climber_bounds(widths)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot(widths, b[:, 0], "o-", label=r"two-link brace, $T^\forall_{FFF}$ = robust $T^*_{FFF}$: $\tau_1 \leq$ this")
    ax.plot(widths, b[:, 1], "s--", label=r"two-link brace, $T^\exists_{FFF}$: $\tau_1 \leq$ this")
    ax.plot(widths, c, "^-", color="tab:green",
            label=r"five-link climber, robust $T'^*_{FFF}$ under D (brace): $\tau_1 \leq$ this")
    ax.axhline(b[0, 0], color="gray", lw=0.8)
    ax.set_xlabel(r"width $w$ of every interval $\mu \in [0.3 - w/2,\ 0.3 + w/2]$")
    ax.set_ylabel(r"bound on the elbow torque $\tau_1$ (N·m)")
    ax.set_title("Bracing (mode FFF) with every μ known to an interval")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "friction_interval_brace.png", dpi=110)
    plt.close(fig)
    print("width  forall-bound  exists-bound  climber-robust (N·m)")
    for w, (a, e), r in zip(widths, b, c):
        print(f"{w:5.3f}  {a:12.5f}  {e:12.5f}  {r:14.5f}")

    los = np.linspace(0.6, 1.6, 11)
    rows = rod_robust(los)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for lo, row in zip(los, rows):
        for mode, color, dy in (("S", "tab:blue", -0.012), ("L", "tab:orange", 0.012)):
            for a, c in row[mode]:
                ax.plot([a, c], [lo + dy, lo + dy], color=color, lw=4, solid_capstyle="butt")
    ax.plot([], [], color="tab:blue", lw=4, label=r"robust $T^*_S$ (separates for every μ)")
    ax.plot([], [], color="tab:orange", lw=4, label=r"robust $T^*_L$ (slides for every μ)")
    ax.axvline(-9.81 * math.sqrt(5.0) / 6.0, color="gray", lw=0.8)
    ax.axhspan(4.0 / 3.0 - 0.2, los[-1] + 0.05, color="red", alpha=0.08,
               label="interval reaches 4/3: no robust set")
    ax.set_xlim(*M_RANGE)
    ax.set_ylim(los[0] - 0.05, los[-1] + 0.05)
    ax.set_xlabel("moment M (N·m)")
    ax.set_ylabel(r"lower end of $\mu \in [lo,\ lo + 0.2]$")
    ax.set_title("Painlevé's rod: robust sets vanish once the interval reaches 4/3")
    ax.legend(fontsize=8, loc="upper right", framealpha=0.95)
    fig.tight_layout()
    fig.savefig(out / "friction_interval_painleve.png", dpi=110)
    plt.close(fig)
    print("lo    robust S            robust L (N·m, clipped to the plot)")
    for lo, row in zip(los, rows):
        print(f"{lo:4.2f}  {row['S']!s:18}  {row['L']!s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
