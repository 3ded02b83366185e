"""Shared helpers of the RHex reproduction scripts in ``benchmarks/`` (not a library module).

* ``flip_job`` — one flip from a picklable job ``(controller, changes, duration, keep_pitch)``
  (``changes``: ``RHexParams`` fields), through
  ``controllers.rhex.run_flip``'s machinery; returns the result document (without the
  timeline) and, if asked, the pitch trajectory.
* ``run_jobs`` — runs jobs in order, serially or on ``workers`` processes
  (``concurrent.futures``), with one progress line per finished job on stderr; Ctrl-C cancels
  what is left and raises ``KeyboardInterrupt``.
* ``output_dir`` — the ``--out`` directory (created if missing), default a new temporary
  directory: the scripts never write into the source tree.
"""

from __future__ import annotations

import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from controllers.rhex import RHexParams, simulate_flip  # noqa: E402

__all__ = ["flip_job", "run_jobs", "output_dir", "fmt"]


def flip_job(job) -> dict:
    """``job = (controller, changes dict, duration s, keep_pitch bool)`` → ``{"doc": flip document
    without timeline, "times": [...], "pitch": [...]}`` (the last two only with ``keep_pitch``)."""
    controller, changes, duration, keep_pitch = job
    run = simulate_flip(RHexParams().with_(**changes), controller, duration)
    if run.result.outcome == "interrupted":
        raise KeyboardInterrupt
    out = {"doc": run.document(timeline=False)}
    if keep_pitch:
        out["times"] = run.result.times.tolist()
        out["pitch"] = run.result.pitch.tolist()
    return out


def _describe(job) -> str:
    controller, changes = job[0], job[1]
    return controller + " " + " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in changes.items())


def _summary(res) -> str:
    doc = res.get("doc") if isinstance(res, dict) else None
    if not doc:
        return "done"
    return f"flipped {doc['flip_time_s']:.3f} s" if doc["success"] else doc["outcome"]


def run_jobs(fn, jobs: list, workers: int = 1, describe=_describe, stream=None) -> list:
    """``[fn(job) for job in jobs]`` (in job order), on ``workers`` processes when > 1; a progress
    line per finished job on ``stream``. Ctrl-C cancels the rest and raises ``KeyboardInterrupt``."""
    stream = sys.stderr if stream is None else stream
    n = len(jobs)
    results: list = [None] * n
    t0 = time.perf_counter()

    def report(i: int, done: int) -> None:
        print(f"  [{done}/{n}] {describe(jobs[i])}: {_summary(results[i])} ({time.perf_counter() - t0:.0f} s)",
              file=stream, flush=True)

    if workers <= 1 or n <= 1:
        for i, job in enumerate(jobs):
            results[i] = fn(job)
            report(i, i + 1)
        return results
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        futures = {pool.submit(fn, job): i for i, job in enumerate(jobs)}
        for done, fut in enumerate(as_completed(futures), 1):
            i = futures[fut]
            results[i] = fut.result()
            report(i, done)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def output_dir(path: str | None, prefix: str) -> Path:
    """The output directory: ``path`` (created if missing) or a new temporary directory."""
    out = Path(path) if path else Path(tempfile.mkdtemp(prefix=prefix))
    out.mkdir(parents=True, exist_ok=True)
    return out


def fmt(value, spec: str = ".3f", none: str = "n/a") -> str:
    """``format(value, spec)``, or ``none`` for ``None``."""
    return none if value is None else format(value, spec)

