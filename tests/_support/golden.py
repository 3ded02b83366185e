"""Outputs stored before the package redesign (issue 23), and how to compare with them.

``tests/data/golden/`` holds what the CLI printed or wrote, before the redesign moved any code, for
every command of ``COMMANDS``: every example's ``analyze --json``; ``--unambiguous`` on the
examples with one or two torques and on RHex; ``brace --json`` on the climber; ``flip --json`` of
both controllers at μ_t = 0.6 (the timings left out: they are the machine's, not the model's); and
``plot`` PNGs. ``tests/test_golden_outputs.py`` runs the same commands and compares.

Comparison (``compare``): the same keys, lists of the same lengths, equal strings, booleans
and integers, and floats equal within ``RTOL`` of the document's own scale (the largest magnitude
among the floats of the same key path, at least 1): the *documented float noise* a refactor may
introduce (a summation reordered) but no change of answer can hide in. PNGs: the same size and at
most ``PNG_PIXEL_FRACTION`` of the pixels differing by more than ``PNG_LEVEL`` (of 255).

Polytopes (a dict with ``A``, ``b`` and optionally ``C``, ``d``: ``{x : A x <= b, C x = d}``)
are compared as *sets*, not row by row: the order of their rows and the basis of their equalities
follow the rounding of the BLAS that computed them (another ``OPENBLAS_CORETYPE`` lists
RHex's ``FFFF`` facets in another order, and gives the six-link brace's equalities in another
orthonormal basis). Two polytopes are equal when (``compare_polytopes``)

* their inequality rows ``[A | b]`` match as a multiset, each entry within ``RTOL`` of its key
  path's scale, and their equalities span the same affine set: every row of one ``[C | d]`` is
  within ``RTOL`` (of the scale of ``C`` and ``d``) of its projection on the other's rows, with
  as many rows; or else
* each contains the other, checked by independent LPs (SciPy's ``linprog``, HiGHS with
  feasibility tolerances ``LP_FEASIBILITY``): every row of one, maximized over the other, is at
  most its bound plus ``LP_RTOL · max(1, |β|, ‖a‖₁ ‖x*‖∞)`` (the scale of the terms of
  ``a·x − β`` at the maximizer ``x*``), both ways of each equality; or both are empty.

A list whose items are all polytopes (the pieces of an unambiguous set, of an ambiguity source)
is compared as a multiset of such sets. The other keys of a polytope (``dim``) as any key.

Regenerate (only when an output is meant to change, saying why in the commit)::

    python tests/_support/golden.py --out tests/data/golden
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
#: the examples that existed when the outputs were stored (f25fc73); examples added since have no
#: pre-redesign output to equal (their own tests check them)
EXAMPLES = ["five_link_climb.toml", "painleve_rod.toml", "painleve_rod_mu05.toml", "rhex_flip_start.toml",
            "six_link_brace.toml", "table_two_legs.toml", "two_link_brace.toml", "two_link_brace_urdf.toml"]
RTOL = 1e-9
#: polytopes compared by containment: a bound may move by this fraction of its terms' scale
LP_RTOL = 1e-8
#: HiGHS's primal and dual feasibility tolerances for those LPs (its default 1e-7 is above LP_RTOL)
LP_FEASIBILITY = 1e-10
PNG_PIXEL_FRACTION = 1e-3
PNG_LEVEL = 8
#: keys of ``flip --json`` that are measurements of the machine, not results of the model
TIMING_KEYS = ("step_ms", "step_cpu_ms", "median_step_ms")

#: (name, argv after ``contactmodes``, kind): kind "json" (stdout), "png" (the file at {out})
COMMANDS: list[tuple[str, list[str], str]] = (
    [(f"analyze-{Path(e).stem}", ["analyze", f"examples/{e}", "--json"], "json") for e in EXAMPLES]
    + [(f"unambiguous-{Path(e).stem}", ["analyze", f"examples/{e}", "--json", "--unambiguous"], "json")
       for e in ("two_link_brace.toml", "six_link_brace.toml", "painleve_rod.toml", "painleve_rod_mu05.toml",
                 "table_two_legs.toml", "rhex_flip_start.toml")]
    + [("brace-five_link_climb", ["brace", "examples/five_link_climb.toml", "--json"], "json")]
    + [(f"flip-{c}", ["flip", "--controller", c, "--mu-toe", "0.6", "--json"], "json")
       for c in ("blind", "max-thrust")]
    + [(f"plot-{Path(e).stem}", ["plot", f"examples/{e}", "--output", "{out}"], "png")
       for e in ("two_link_brace.toml", "painleve_rod.toml", "rhex_flip_start.toml")]
)


def run(argv: list[str], kind: str, out_png: Path) -> object:
    """Run ``contactmodes argv`` from the repository root: the JSON document (timings dropped) or
    the PNG's bytes."""
    args = [a.replace("{out}", str(out_png)) for a in argv]
    proc = subprocess.run([sys.executable, "-m", "contactmodes", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"contactmodes {' '.join(args)}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    if kind == "png":
        return out_png.read_bytes()
    doc = json.loads(proc.stdout)
    for key in TIMING_KEYS:
        doc.pop(key, None)
    return doc


def _scales(doc, path="", out=None) -> dict[str, float]:
    """The largest float magnitude under each key path (list indices collapsed)."""
    out = {} if out is None else out
    if isinstance(doc, dict):
        for k, v in doc.items():
            _scales(v, f"{path}.{k}", out)
    elif isinstance(doc, list):
        for v in doc:
            _scales(v, f"{path}[]", out)
    elif isinstance(doc, float) and math.isfinite(doc):
        out[path] = max(out.get(path, 1.0), abs(doc))
    return out


def _is_polytope(x) -> bool:
    return isinstance(x, dict) and {"A", "b"} <= set(x)


def _rows(rows, rhs) -> np.ndarray:
    """``[M | r]`` as an ``(m, n + 1)`` array (``(0, 0)`` when there are no rows)."""
    m = len(rhs)
    if m == 0:
        return np.zeros((0, 0))
    return np.column_stack([np.asarray(rows, dtype=float).reshape(m, -1), np.asarray(rhs, dtype=float)])


def _rows_match(got: np.ndarray, want: np.ndarray, tol: np.ndarray) -> bool:
    """Whether the rows of ``got`` and ``want`` match as multisets, entrywise within ``tol``."""
    if got.shape != want.shape:
        return False
    free = list(range(len(got)))
    for row in want:
        hit = next((i for i in free if np.all(np.abs(got[i] - row) <= tol)), None)
        if hit is None:
            return False
        free.remove(hit)
    return True


def _same_span(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    """Whether the rows of ``got`` and ``want`` span the same space, within ``tol`` per row."""
    if got.shape != want.shape:
        return False
    if got.size == 0:
        return True
    for a, b in ((got, want), (want, got)):
        basis = np.linalg.qr(b.T)[0]
        if np.any(np.abs(a.T - basis @ (basis.T @ a.T)) > tol):
            return False
    return True


def _polytope(x: dict, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    A, C = _rows(x["A"], x["b"]), _rows(x.get("C", []), x.get("d", []))
    A = A if A.size else np.zeros((0, n + 1))
    C = C if C.size else np.zeros((0, n + 1))
    return A[:, :-1], A[:, -1], C[:, :-1], C[:, -1]


def _contained(p, q) -> str | None:
    """``None`` when the set ``p`` lies in ``q`` (``compare_polytopes``' LPs), ``"empty"`` when ``p``
    is empty, else the reason it does not."""
    from scipy.optimize import linprog

    A, b, C, d = p
    options = {"primal_feasibility_tolerance": LP_FEASIBILITY, "dual_feasibility_tolerance": LP_FEASIBILITY}
    n = A.shape[1]
    rows = [(a, beta, 1.0) for a, beta in zip(*q[:2])]
    rows += [(s * c, s * delta, s) for c, delta in zip(*q[2:]) for s in (1.0, -1.0)]
    for a, beta, _ in rows:
        res = linprog(-a, A_ub=A if len(A) else None, b_ub=b if len(A) else None, A_eq=C if len(C) else None,
                      b_eq=d if len(C) else None, bounds=[(None, None)] * n, method="highs", options=options)
        if res.status == 2:
            return "empty"
        if res.status == 3:
            return f"unbounded along {a.tolist()}"
        if res.status != 0:
            return f"LP failed ({res.message})"
        top = -float(res.fun)
        tol = LP_RTOL * max(1.0, abs(beta), float(np.abs(a).sum() * np.abs(res.x).max(initial=0.0)))
        if top > beta + tol:
            return f"a point with {a.tolist()}·x = {top!r} > {beta!r}"
    return None


def compare_polytopes(got: dict, want: dict, tol_a: float, tol_b: float, tol_c: float, tol_d: float) -> str | None:
    """``None`` when two polytopes are the same set (module docstring), else the reason.

    ``tol_a``, ``tol_b``, ``tol_c``, ``tol_d``: the entrywise tolerances of ``A``, ``b``, ``C``,
    ``d`` for the row match (``RTOL`` times their key paths' scales)."""
    widths = [np.asarray(x[k], dtype=float).reshape(len(x[k2]), -1).shape[1] for x in (got, want)
              for k, k2 in (("A", "b"), ("C", "d")) if len(x.get(k2, []))]
    if not widths:
        return None  # both the whole space (no rows), whatever its dimension
    n = max(widths)
    if len(set(widths)) > 1:
        return f"dimension {sorted(set(widths))}"
    pg, pw = _polytope(got, n), _polytope(want, n)
    ineq_g, ineq_w = np.column_stack(pg[:2]), np.column_stack(pw[:2])
    eq_g, eq_w = np.column_stack(pg[2:]), np.column_stack(pw[2:])
    tol_row = np.r_[np.full(n, tol_a), tol_b]
    if _rows_match(ineq_g, ineq_w, tol_row) and _same_span(eq_g, eq_w, max(tol_c, tol_d)):
        return None
    one, other = _contained(pg, pw), _contained(pw, pg)
    if one == other == "empty":
        return None
    if one is None and other is None:
        return None
    return f"not the same set: got ⊄ stored: {one}; stored ⊄ got: {other}"


def compare(got, want) -> list[str]:
    """Differences between two JSON documents (empty when they agree; module docstring)."""
    scales = _scales(want)
    diffs: list[str] = []

    def polytope_reason(a, b, key) -> str | None:
        tols = [RTOL * scales.get(f"{key}.{k}", 1.0) for k in ("A[][]", "b[]", "C[][]", "d[]")]
        return compare_polytopes(a, b, *tols)

    def walk(a, b, path, key):
        if isinstance(b, dict):
            if not isinstance(a, dict) or set(a) != set(b):
                diffs.append(f"{path}: keys {sorted(a) if isinstance(a, dict) else type(a).__name__} != {sorted(b)}")
                return
            if _is_polytope(b):
                reason = polytope_reason(a, b, key)
                if reason is not None:
                    diffs.append(f"{path}: {reason}")
                for k in b:
                    if k not in ("A", "b", "C", "d"):
                        walk(a[k], b[k], f"{path}.{k}", f"{key}.{k}")
                return
            for k in b:
                walk(a[k], b[k], f"{path}.{k}", f"{key}.{k}")
        elif isinstance(b, list):
            if not isinstance(a, list) or len(a) != len(b):
                diffs.append(f"{path}: length {len(a) if isinstance(a, list) else a!r} != {len(b)}")
                return
            if b and all(_is_polytope(y) for y in b) and all(_is_polytope(x) for x in a):
                free = list(range(len(a)))
                for j, y in enumerate(b):  # the pieces as a multiset of sets
                    hit = next((i for i in free if polytope_reason(a[i], y, f"{key}[]") is None
                                and not _other_keys_differ(a[i], y, scales, f"{key}[]")), None)
                    if hit is None:
                        walk(a[j], y, f"{path}[{j}]", f"{key}[]")  # report the one at the same place
                        continue
                    free.remove(hit)
                return
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, f"{path}[{i}]", f"{key}[]")
        elif isinstance(b, float) and not isinstance(a, bool) and isinstance(a, (int, float)):
            if not math.isclose(a, b, rel_tol=0.0, abs_tol=RTOL * scales.get(key, 1.0)):
                diffs.append(f"{path}: {a!r} != {b!r}")
        elif a != b:
            diffs.append(f"{path}: {a!r} != {b!r}")

    walk(got, want, "", "")
    return diffs


def _other_keys_differ(a: dict, b: dict, scales: dict, key: str) -> bool:
    """Whether two polytopes' keys other than their rows differ (``compare``'s rule)."""
    if set(a) != set(b):
        return True
    rest = lambda x: {k: v for k, v in x.items() if k not in ("A", "b", "C", "d")}  # noqa: E731
    return bool(compare(rest(a), rest(b))) if rest(b) else False


def compare_png(got: bytes, want: bytes) -> str | None:
    """``None`` when two PNGs agree (module docstring), else the reason."""
    import io

    import numpy as np
    from matplotlib import image

    a, b = image.imread(io.BytesIO(got)), image.imread(io.BytesIO(want))
    if a.shape != b.shape:
        return f"size {a.shape} != {b.shape}"
    differ = (np.abs(a - b) * 255 > PNG_LEVEL).any(axis=-1) if a.ndim == 3 else np.abs(a - b) * 255 > PNG_LEVEL
    frac = float(differ.mean())
    return None if frac <= PNG_PIXEL_FRACTION else f"{frac:.2%} of the pixels differ"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=Path, help="directory for the stored outputs")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, cmd, kind in COMMANDS:
        target = args.out / (f"{name}.png" if kind == "png" else f"{name}.json")
        result = run(cmd, kind, target)
        if kind == "json":
            target.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
