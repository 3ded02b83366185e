"""Timing tables for the analysis pipeline and the projection methods.

Run: ``python benchmarks/bench_analyze.py [--repeat N]``. Prints medians (ms) over ``N`` repeats,
measured in this one process, and ratios against a peer measured in the same run:

1. ``analyze`` on every example (full pipeline: enumeration, response, domain, projection,
   overlaps), against the issue's targets (two-link ≤ 10 ms, six-link ≤ 100 ms, RHex start ≤ 50 ms).
2. Projection of every feasible mode's ``D_c`` onto τ with each of our methods, against pycddlib's
   ``block_elimination`` called directly on the same matrix (the peer), and tulip-control's
   ``polytope.projection`` when it is installed.
3. The same on random polytopes (bounded, in R^6, projected onto R^2 and R^3).

Numbers are machine dependent: quote the ratios.
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

import cdd  # noqa: E402

from contactmodes.analysis import analyze  # noqa: E402
from contactmodes.io import load_system  # noqa: E402
from polytopes import Polytope  # noqa: E402

TARGETS_MS = {"two_link_brace": 10.0, "six_link_brace": 100.0, "rhex_flip_start": 50.0}
METHODS = ("fourier_motzkin", "block_elimination", "vertex", "auto")


def median_ms(fn, repeat: int) -> float:
    """Median wall time of ``fn()`` in milliseconds over ``repeat`` calls (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cdd_direct_projection(P: Polytope, keep: list[int]):
    """The peer: pycddlib's block elimination on the raw ``[b, -A]`` matrix followed by cdd's
    canonicalization (so both sides return a minimal H-representation), no wrapper logic."""
    rows = np.hstack([P.b[:, None], -P.A])
    eq = np.hstack([P.d[:, None], -P.C])
    mat = cdd.matrix_from_array(np.vstack([rows, eq]).tolist(), rep_type=cdd.RepType.INEQUALITY,
                                lin_set=set(range(len(rows), len(rows) + len(eq))))
    drop = {j + 1 for j in range(P.dim) if j not in keep}
    out = cdd.block_elimination(mat, drop)
    cdd.matrix_canonicalize(out)  # minimal H-representation, as our methods return
    return out


def tulip_projection():
    try:
        import polytope as tulip  # type: ignore
    except ImportError:
        return None

    def run(P: Polytope, keep: list[int]):
        return tulip.projection(tulip.Polytope(P.A, P.b), [k + 1 for k in keep])

    return run


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n## {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def random_polytope(rng: np.random.Generator, n: int, m: int) -> Polytope:
    """A bounded polytope: ``m`` random half-spaces tangent-ish to the unit sphere plus a box."""
    A = rng.normal(size=(m, n))
    A /= np.linalg.norm(A, axis=1, keepdims=True)
    b = 1.0 + 0.2 * rng.random(m)
    box = np.vstack([np.eye(n), -np.eye(n)])
    return Polytope(np.vstack([A, box]), np.concatenate([b, 3.0 * np.ones(2 * n)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    repeat = args.repeat

    examples = sorted((ROOT / "examples").glob("*.toml"))
    rows = []
    domains: list[tuple[str, str, Polytope, int]] = []
    for path in examples:
        loaded = load_system(path)
        ms = median_ms(lambda: analyze(loaded.system), repeat)
        result = analyze(loaded.system)
        n_feasible = len(result.feasible_modes())
        target = TARGETS_MS.get(path.stem)
        ratio = f"{ms / target:.2f}" if target else "-"
        rows.append([path.stem, str(len(result.modes)), str(n_feasible), f"{ms:.1f}",
                     f"{target:.0f}" if target else "-", ratio])
        for mode, item in result.modes.items():
            if item.feasible and item.response.n_w > 0:
                domains.append((path.stem, mode, item.D, loaded.system.n_tau))
        print(f"analyzed {path.stem}", file=sys.stderr)
    table("analyze() per example (median ms)", ["example", "modes", "feasible", "median ms", "target ms",
                                                "ratio to target"], rows)

    tulip = tulip_projection()
    header = ["D_c", "rows", "dim"] + [f"{m} ms" for m in METHODS] + ["cdd direct ms", "FM / cdd", "auto / cdd"]
    if tulip:
        header.append("tulip ms")
    rows = []
    for i, (name, mode, D, n_tau) in enumerate(domains[:12]):
        keep = list(range(n_tau))
        times = {m: median_ms(lambda m=m: D.project(keep, method=m), repeat) for m in METHODS}
        peer = median_ms(lambda: cdd_direct_projection(D, keep), repeat)
        row = [f"{name}:{mode}", str(D.n_ineq + D.n_eq), str(D.dim)] + [f"{times[m]:.2f}" for m in METHODS]
        row += [f"{peer:.2f}", f"{times['fourier_motzkin'] / peer:.2f}", f"{times['auto'] / peer:.2f}"]
        if tulip:
            try:
                row.append(f"{median_ms(lambda: tulip(D, keep), repeat):.2f}")
            except Exception as exc:  # tulip fails on lower-dimensional/unbounded input
                row.append(f"fails ({type(exc).__name__})")
        rows.append(row)
        print(f"projected {name}:{mode} ({i + 1})", file=sys.stderr)
    table("Projection of the examples' D_c onto τ (median ms)", header, rows)

    rng = np.random.default_rng(0)
    rows = []
    for n, m, k in [(6, 12, 2), (6, 20, 3), (5, 30, 2)]:
        P = random_polytope(rng, n, m)
        keep = list(range(k))
        times = {meth: median_ms(lambda meth=meth: P.project(keep, method=meth), repeat) for meth in METHODS}
        peer = median_ms(lambda: cdd_direct_projection(P, keep), repeat)
        row = [f"random n={n} m={m} -> {k}", str(P.n_ineq), str(n)] + [f"{times[x]:.2f}" for x in METHODS]
        row += [f"{peer:.2f}", f"{times['fourier_motzkin'] / peer:.2f}", f"{times['auto'] / peer:.2f}"]
        if tulip:
            row.append(f"{median_ms(lambda: tulip(P, keep), repeat):.2f}")
        rows.append(row)
        print(f"projected random n={n} m={m}", file=sys.stderr)
    table("Projection of random bounded polytopes (median ms)", header, rows)


if __name__ == "__main__":
    main()
