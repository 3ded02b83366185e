"""Keep cddlib's own messages off the terminal.

cddlib (floating-point, inside pycddlib) writes diagnostics straight to the C ``stderr`` (file
descriptor 2), e.g. ``max number 41000 of pivots performed by the criss-cross method. Most
likely due to the floating-point arithmetics error.`` when its LP fallback gives up (met on the
pairwise ``--unambiguous`` path of Solo-12 on four feet, issue 40). The failure itself reaches
the caller as the LP's status or an exception, and every answer is verified anyway
(``polytopes.lp``), so the message is only noise in a user's terminal. ``quiet_c_stderr`` points
descriptor 2 at ``os.devnull`` around one call into cddlib: pycddlib holds the GIL during the
call, so no Python-level write of another thread is lost; a lock keeps two threads' saves and
restores from interleaving. Without a usable descriptor 2 the call runs as it is.
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["quiet_c_stderr"]

_FD2_LOCK = threading.RLock()


@contextmanager
def quiet_c_stderr() -> Iterator[None]:
    """Point file descriptor 2 at ``os.devnull`` for the ``with`` block, then restore it.

    Yields
    ------
    None
    """
    with _FD2_LOCK:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):  # no usable fd 2: run as it is
            yield
            return
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 2)
            finally:
                os.close(devnull)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
