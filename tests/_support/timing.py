"""``deadline``: a test block that must finish within some seconds (SIGALRM, main thread only)."""

from __future__ import annotations

import contextlib
import signal


@contextlib.contextmanager
def deadline(seconds: int):
    """Raise TimeoutError in this thread if the block runs longer than ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
