"""The child process of the benchmarks that time one tree of the code against another: a script
run with ``PYTHONPATH`` set to the tree, from the temporary directory (not the source tree: ``''``
leads ``sys.path``), whose last stdout line is a JSON object with the results and the
``__file__`` of the package it imported (``bench_flip_step``, ``bench_step_replay``,
``bench_generic_replay``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def run_tree(tree: str, child: str, *args: str, coretype: str | None = None) -> dict:
    """The results of the script ``child`` (``python -c``, ``args`` after it) on the code at
    ``tree``, without their ``__file__``; with ``coretype``, under that OpenBLAS kernel
    (``OPENBLAS_CORETYPE``, read when OpenBLAS loads: another CPU's rounding and speed). Raises
    ``RuntimeError`` if the child fails or imported another tree (the code measured must be the
    code asked for)."""
    env = dict(os.environ, PYTHONPATH=tree)
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    proc = subprocess.run([sys.executable, "-c", child, *args], capture_output=True, text=True, env=env,
                          check=False, cwd=tempfile.gettempdir())
    if proc.returncode:
        raise RuntimeError(f"benchmark child failed for {tree}:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    where = out.pop("__file__")
    if not where.startswith(tree):
        raise RuntimeError(f"benchmark child imported {where}, not the tree at {tree}")
    return out
