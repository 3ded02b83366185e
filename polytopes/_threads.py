"""The threads that share a large batch of independent problems (compiled LPs, stacked SVDs).

The compiled kernels (``polytopes.batchlp_kernel``, numba ``nogil``) and NumPy's stacked LAPACK
calls release the GIL, and each problem of a batch is solved on its own (the compiled simplex one
LP after the other, LAPACK one matrix after the other): a batch cut into slices along its first
axis and solved by several threads gives every problem the answer it gets alone, bit for bit,
in less wall time. Small batches (a control step's) stay in the calling thread.

``THREADS`` is the number of threads: ``$CONTACTMODES_THREADS`` when set (``1`` turns the
threads off), else the CPUs this process may run on, at most ``MAX_THREADS``. Processes that
already run side by side (the workers of a Dask cluster) set it to 1.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

T = TypeVar("T")

MAX_THREADS = 8
"""The most threads used by default (more cores than this are left to other work)."""
MIN_PER_THREAD = 512
"""A thread gets at least this many problems of a batch (below, the hand-off costs more than it
saves); a batch of fewer than ``2 * MIN_PER_THREAD`` runs in the calling thread. With 256 the
6-contact snake's control steps (a few hundred kinematic LPs of ~3.5 µs per call) took 14.4 ms
instead of 10.5 ms (``benchmarks/bench_generic_replay.py``): hand-offs of a fraction of a
millisecond do not pay; the analyses' batches of 1024 LPs (the emptiness and enumeration chunks)
still do."""


def _default_threads() -> int:
    env = os.environ.get("CONTACTMODES_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cpus))


THREADS = _default_threads()
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def slices(n: int, min_per: int = MIN_PER_THREAD) -> list[slice]:
    """Cut ``range(n)`` into at most ``THREADS`` contiguous slices of at least ``min_per`` items
    each (one slice, ``slice(0, n)``, when it is too small to share)."""
    parts = max(1, min(THREADS, n // max(1, min_per)))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [slice(bounds[i], bounds[i + 1]) for i in range(parts)]


def run(fn: Callable[[slice], T], n: int, min_per: int = MIN_PER_THREAD) -> list[T]:
    """``[fn(s) for s in slices(n, min_per)]``, the slices run by the threads (the calling thread
    alone when there is one slice). ``fn`` must write only to its own slice."""
    global _pool
    parts = slices(n, min_per)
    if len(parts) == 1:
        return [fn(parts[0])]
    with _pool_lock:  # one pool per process, whichever thread asks first (its tasks never submit)
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="contactmodes")
    return list(_pool.map(fn, parts))
