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

ROOT = Path(__file__).resolve().parents[2]
#: the examples that existed when the outputs were stored (f25fc73); examples added since have no
#: pre-redesign output to equal (their own tests check them)
EXAMPLES = ["five_link_climb.toml", "painleve_rod.toml", "painleve_rod_mu05.toml", "rhex_flip_start.toml",
            "six_link_brace.toml", "table_two_legs.toml", "two_link_brace.toml", "two_link_brace_urdf.toml"]
RTOL = 1e-9
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


def compare(got, want) -> list[str]:
    """Differences between two JSON documents (empty when they agree; module docstring)."""
    scales = _scales(want)
    diffs: list[str] = []

    def walk(a, b, path, key):
        if isinstance(b, dict):
            if not isinstance(a, dict) or set(a) != set(b):
                diffs.append(f"{path}: keys {sorted(a) if isinstance(a, dict) else type(a).__name__} != {sorted(b)}")
                return
            for k in b:
                walk(a[k], b[k], f"{path}.{k}", f"{key}.{k}")
        elif isinstance(b, list):
            if not isinstance(a, list) or len(a) != len(b):
                diffs.append(f"{path}: length {len(a) if isinstance(a, list) else a!r} != {len(b)}")
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
