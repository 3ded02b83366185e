"""Projection methods of ``polytopes`` against pycddlib and pplpy called directly.

Run: ``python benchmarks/bench_projection.py [--random N] [--repeat R]`` (writes nothing; prints a
table). Inputs: (a) the mode domains ``D_c`` of ``examples/*.toml`` (every kinematically feasible
mode with ``n_w > 0``, projected onto the first ``n_tau`` coordinates), (b) ``N`` random
polytopes (bounded, unbounded, lower-dimensional; n = 4..8, 1..4 eliminated coordinates).
Columns: median time per projection (ms), ratio to pycddlib-direct (block elimination +
``matrix_canonicalize``), and wrong answers (checked against pplpy's exact projection: supports
along both results' facet normals and random directions, emptiness, affine dimension; a method
that refuses with an error counts as "refused", not wrong).

Measured on the 2-core development machine (shared with other jobs, so times are noisy),
``--repeat 1``, part (a) only (part (b) did not finish within the session):

(a) example mode domains D_c -> T_c (37 projections)

method              median ms  x pycddlib  wrong  refused
---------------------------------------------------------
fourier_motzkin         27.77       96.49      2        0
block_elimination       27.43       96.11      2        0
vertex                  28.66       98.21      2        0
auto                    26.82       91.33      2        0
exact                    2.77        9.95      1        0
pycddlib                 0.28        1.00    n/a        -
pplpy                    0.81        2.94    n/a        -

The 2 "wrong" of every method are rhex_flip_start FFSF and FSFF: same emptiness and affine
dimension as PPL, a support value differs (not yet investigated; likely vertices beyond double
resolution, cf. smubig606). ``exact``'s 1 is the checker's own float comparison.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import cdd  # noqa: E402

from polytopes import NumericalError, Polytope, PolytopeError, ppl_io  # noqa: E402

METHODS = ("fourier_motzkin", "block_elimination", "vertex", "auto", "exact")
BIG = 1e12


def example_domains():
    from contactmodes.analysis.session import mode_domain
    from contactmodes.system_file.loader import load_system_file
    import itertools

    from contactmodes.modes.enumeration import acceleration_feasible, velocity_allowed

    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*.toml"))):
        try:
            system = load_system_file(path).system
        except Exception:  # noqa: BLE001 - an example this benchmark cannot load is skipped
            continue
        if system.n_tau == 0:
            continue
        try:
            candidates = ["".join(t) for t in itertools.product(*velocity_allowed(system))]
        except Exception:  # noqa: BLE001 - e.g. an approaching contact
            continue
        for mode in [m for m in candidates if acceleration_feasible(system, m)]:
            try:
                dom = mode_domain(system, mode)
            except Exception:  # noqa: BLE001
                continue
            if dom.feasible and dom.n_w > 0:
                out.append((f"{os.path.basename(path)}:{mode}", dom.D, list(range(dom.n_tau))))
    return out


def random_cases(count: int):
    rng = np.random.default_rng(7)
    out = []
    for i in range(count):
        n = int(rng.integers(4, 9))
        m = int(rng.integers(n + 2, 3 * n + 4))
        A = rng.standard_normal((m, n))
        b = rng.uniform(0.5, 2.0, m)
        kind = i % 3
        if kind == 1:
            A, b = A[A[:, 0] <= 0], b[A[:, 0] <= 0]
        C, d = np.zeros((0, n)), np.zeros(0)
        if kind == 2:
            C, d = rng.standard_normal((1, n)), np.zeros(1)
        k_el = int(rng.integers(1, min(4, n - 1) + 1))
        out.append((f"random{i}", Polytope(A, b, C, d), list(range(n - k_el))))
    return out


def cdd_direct(P, keep):
    rows = np.vstack([np.hstack([P.b[:, None], -P.A]), np.hstack([P.d[:, None], -P.C]),
                      np.eye(1, P.dim + 1)])
    mat = cdd.matrix_from_array(rows, rep_type=cdd.RepType.INEQUALITY,
                                lin_set=set(range(P.n_ineq, P.n_ineq + P.n_eq)))
    out = cdd.block_elimination(mat, {j + 1 for j in range(P.dim) if j not in keep})
    if len(out.array) > 400:
        return None  # pycddlib crashes or stalls canonicalizing large outputs: not timed
    cdd.matrix_canonicalize(out)
    return out


def ppl_direct(P, keep):
    return ppl_io.project_exact(P.A, P.b, P.C, P.d, keep)


def exact_support(E, u) -> float:
    """max u.y over the PPL polyhedron E (exact), as a float."""
    return ppl_io.polyhedron_support(E, u)


def wrong(Q, P, keep) -> bool:
    order = keep + [j for j in range(P.dim) if j not in keep]
    E = ppl_io.to_ppl(P.A, P.b, P.C, P.d, order)
    E.remove_higher_space_dimensions(len(keep))
    if Q.is_empty() != E.is_empty():
        return True
    if E.is_empty():
        return False
    if Q.affine_dimension() != E.affine_dimension():
        return True
    rays = []
    import ppl
    for g in E.minimized_generators():
        if g.is_ray() or g.is_line():
            r = np.array([float(g.coefficient(ppl.Variable(j))) for j in range(len(keep))])
            rays.append(r / np.linalg.norm(r))
    scale = max(1.0, float(np.max(np.abs(P.b) / np.maximum(np.linalg.norm(P.A, axis=1), 1e-300),
                                  initial=1.0)))
    Ae, _, _, _ = ppl_io.from_ppl(E)
    dirs = [*Q.A, *Ae, *np.random.default_rng(1).standard_normal((6, len(keep)))]
    for u in dirs:
        u = u / np.linalg.norm(u)
        hq, he = Q.support(u), exact_support(E, u)
        hq = np.inf if hq > BIG * scale else hq
        he = np.inf if he > BIG * scale else he
        if np.isinf(hq) or np.isinf(he):
            if hq != he and not any(abs(u @ r) <= 1e-9 for r in rays):
                return True
        elif abs(hq - he) > 1e-6 * max(scale, abs(he)):
            return True
    return False


def timed(fn, repeat):
    ts = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), out


def run(cases, repeat):
    times = {m: [] for m in (*METHODS, "pycddlib", "pplpy")}
    bad = {m: 0 for m in METHODS}
    refused = {m: 0 for m in METHODS}
    ratios = {m: [] for m in (*METHODS, "pplpy")}
    for name, P, keep in cases:
        t_cdd, out = timed(lambda: cdd_direct(P, keep), repeat)
        if out is not None:
            times["pycddlib"].append(t_cdd)
        t_ppl, _ = timed(lambda: ppl_direct(P, keep), repeat)
        times["pplpy"].append(t_ppl)
        if out is not None:
            ratios["pplpy"].append(t_ppl / t_cdd)
        for m in METHODS:
            try:  # a fresh Polytope per run: no cached hull or reduction
                t, Q = timed(lambda: Polytope(P.A, P.b, P.C, P.d).project(keep, method=m), repeat)
            except (NumericalError, PolytopeError):
                refused[m] += 1
                continue
            times[m].append(t)
            if out is not None:
                ratios[m].append(t / t_cdd)
            if wrong(Q, P, keep):
                bad[m] += 1
    return times, ratios, bad, refused


def table(title, times, ratios, bad, refused, n):
    lines = [f"{title} ({n} projections)", "",
             f"{'method':<18} {'median ms':>10} {'x pycddlib':>11} {'wrong':>6} {'refused':>8}",
             "-" * 57]
    for m in (*METHODS, "pycddlib", "pplpy"):
        t = times[m]
        med = f"{1e3 * statistics.median(t):10.2f}" if t else f"{'-':>10}"
        r = ratios.get(m)
        rat = f"{statistics.median(r):11.2f}" if r else f"{'1.00' if m == 'pycddlib' else '-':>11}"
        w = f"{bad[m]:6d}" if m in bad else f"{'n/a':>6}"
        f = f"{refused[m]:8d}" if m in refused else f"{'-':>8}"
        lines.append(f"{m:<18} {med} {rat} {w} {f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--random", type=int, default=40, help="number of random polytopes")
    ap.add_argument("--repeat", type=int, default=1, help="timing repetitions (best of)")
    args = ap.parse_args(argv)
    if not ppl_io.available():
        print("bench_projection needs pplpy: pip install 'contactmodes[exact]'", file=sys.stderr)
        return 2
    try:
        for title, cases in (("(a) example mode domains D_c -> T_c", example_domains()),
                             ("(b) random polytopes", random_cases(args.random))):
            print(table(title, *run(cases, args.repeat), len(cases)))
            print()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
