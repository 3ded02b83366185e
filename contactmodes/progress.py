"""Progress on stderr for long computations: a tqdm bar on a terminal, a periodic line otherwise.

The library is silent by default; the CLI passes a ``Progress`` to the analysis session. A
stage that ends within ``after`` seconds shows nothing. Off a terminal a stage also has a
heartbeat (a daemon thread, stopped when the stage closes): a stage whose items take long — the
last contacts of an enumeration, a chunk of projections — still prints its line once ``after``
seconds have passed and then every ``every`` seconds, not only when an item is done
(``every = 0`` asks for one line per update and has no heartbeat). Interruption (Ctrl-C) is not caught here:
the bar is closed by its context manager and the ``KeyboardInterrupt`` propagates to the caller.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

__all__ = ["NullStage", "Progress", "Stage"]


class NullStage:
    """A stage that reports nothing (the default)."""

    def update(self, n: int = 1, label: str = "") -> None:
        """Record ``n`` more items done (``label``: the current item).

        Parameters
        ----------
        n : int, optional
            Items done since the last update.
        label : str, optional
            The current item (shown beside the count).
        """

    def close(self) -> None:
        """End the stage."""

    def __enter__(self) -> "NullStage":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Stage(NullStage):
    """One stage of work: ``what`` with ``total`` items (``None`` if unknown).

    Parameters
    ----------
    owner : Progress
        The factory (its stream, ``after``, ``every`` and whether it is a terminal).
    what : str
        The stage's name, shown on its line.
    total : int or None
        The number of items, ``None`` if unknown.
    """

    def __init__(self, owner: "Progress", what: str, total: int | None) -> None:
        self.owner, self.what, self.total = owner, what, total
        self.done = 0
        self.start = self.last = time.monotonic()
        self.bar: Any = None
        self.label = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if not owner.tty and owner.every > 0:  # the heartbeat (module docstring; every = 0: a line per update)
            threading.Thread(target=self._heartbeat, name=f"progress: {what}", daemon=True).start()

    def _heartbeat(self) -> None:
        period = max(0.05, min(self.owner.every, 1.0))
        while not self._stop.wait(period):
            now = time.monotonic()
            if now - self.start >= self.owner.after and now - self.last >= self.owner.every:
                self._line(now)

    def _line(self, now: float) -> None:
        """Print the stage's line (off a terminal)."""
        with self._lock:
            if self._stop.is_set():
                return
            self.last = now
            of = f"/{self.total}" if self.total is not None else ""
            extra = f" ({self.label})" if self.label else ""
            print(f"contactmodes: {self.what} {self.done}{of}{extra}", file=self.owner.stream, flush=True)

    def update(self, n: int = 1, label: str = "") -> None:
        self.done += n
        self.label = label
        now = time.monotonic()
        if now - self.start < self.owner.after:
            return
        if self.owner.tty:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=self.total, desc=f"contactmodes: {self.what}", file=self.owner.stream,
                                initial=self.done - n, leave=False, dynamic_ncols=True)
            self.bar.update(n)
            if label:
                self.bar.set_postfix_str(label, refresh=False)
        elif now - self.last >= self.owner.every:
            self._line(now)

    def close(self) -> None:
        with self._lock:
            self._stop.set()
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Progress:
    """Factory of progress stages on ``stream`` (default stderr).

    ``stage(what, total)`` returns a context manager with ``update(n=1, label="")``.

    Parameters
    ----------
    after : float, optional
        Seconds of silence before anything is shown.
    every : float, optional
        Seconds between lines when ``stream`` is not a terminal (0: a line per update, no
        heartbeat).
    stream : IO[str], optional
        Where to write; default ``sys.stderr``.
    """

    def __init__(self, after: float = 1.0, every: float = 2.0, stream: IO[str] | None = None) -> None:
        self.after, self.every = after, every
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())

    def stage(self, what: str, total: int | None = None) -> Stage:
        """A new stage of work (a context manager: closed on leaving the block).

        Parameters
        ----------
        what : str
            The stage's name.
        total : int, optional
            The number of items, ``None`` if unknown.

        Returns
        -------
        Stage
            Its ``update(n, label)`` records progress.
        """
        return Stage(self, what, total)


def stage(progress: Progress | None, what: str, total: int | None = None) -> NullStage:
    """``progress.stage(what, total)``, or a ``NullStage`` when ``progress`` is ``None``.

    Parameters
    ----------
    progress : Progress or None
        The factory, or ``None`` for silence.
    what : str
        The stage's name.
    total : int, optional
        The number of items, ``None`` if unknown.

    Returns
    -------
    NullStage
        A ``Stage``, or a ``NullStage`` when ``progress`` is ``None``.
    """
    return NullStage() if progress is None else progress.stage(what, total)
