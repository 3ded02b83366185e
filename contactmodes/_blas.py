"""One BLAS thread for the duration of a command (issue 28).

The analysis parallelizes over modes (``analyze --workers``: one thread per worker process, and
Dask starts its workers with one BLAS thread); inside a process its matrices are small, except
the equalities of statically indeterminate contacts (a box on 256 contacts: ten 516 × 516 SVDs).
OpenBLAS's own threads there *spin* waiting for each other, and on a machine whose cores are
busy with other work that costs far more than it saves: the ten SVDs took 4.4 s with two threads
on the loaded 2-core development machine, 0.65 s with one. ``single_blas_thread`` sets the
OpenBLAS libraries loaded in this process to one thread and restores their setting on exit.

The libraries are found where they are mapped into the process (``/proc/self/maps``, Linux) and
driven through their ``openblas_set_num_threads`` entry points (with or without the
``scipy_`` prefix and ``64_`` suffix of NumPy's wheels), as ``threadpoolctl`` does; where none
is found (another BLAS, another platform) nothing changes. A single-threaded OpenBLAS may round
differently from a multi-threaded one in the last bits of large products: the answers agree
within the documented float noise (``tests/_support/golden.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import re
from typing import Iterator

__all__ = ["single_blas_thread"]

_PREFIXES = ("scipy_openblas", "openblas")
_SUFFIXES = ("64_", "")


def _libraries() -> list[tuple[ctypes.CDLL, str]]:
    """``(library, symbol prefix+suffix)`` of each OpenBLAS mapped into this process."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", fh.read())))
    except OSError:
        return []
    out = []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                if hasattr(lib, f"{prefix}_get_num_threads{suffix}") and hasattr(lib, f"{prefix}_set_num_threads{suffix}"):
                    out.append((lib, f"{prefix}|{suffix}"))
                    break
            else:
                continue
            break
    return out


@contextlib.contextmanager
def single_blas_thread() -> Iterator[None]:
    """Run the block with every loaded OpenBLAS on one thread (module docstring)."""
    saved = []
    for lib, name in _libraries():
        prefix, suffix = name.split("|")
        get = getattr(lib, f"{prefix}_get_num_threads{suffix}")
        put = getattr(lib, f"{prefix}_set_num_threads{suffix}")
        get.restype = ctypes.c_int
        saved.append((put, int(get())))
        put(ctypes.c_int(1))
    try:
        yield
    finally:
        for put, n in saved:
            put(ctypes.c_int(n))
