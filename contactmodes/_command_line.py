"""Pieces shared by every ``contactmodes`` subcommand (and by command plugins): the user-error type,
exit statuses, safe atomic output files and range parsing.

Below both ``contactmodes.cli`` and the library modules that check command-line values
(``contactmodes.sweeps``: its ``sweep`` command and the ``analyze`` kind's ``--inconsistency-box``),
so that neither imports the other back (the pipeline order, ``tests/test_architecture.py``).
Command plugins of other packages import these names from ``contactmodes.cli``, their interface.

The CLI contract: bad input → one line on stderr naming the field, exit status 2, nothing written;
the toolkit's own failure → ``contactmodes: internal error (please report): …``, exit status 70;
Ctrl-C → exit status 130, nothing written. An output path is checked before any work and refused
(exit 2) when it is the input file, an existing non-regular file (directory, FIFO, device) or in a
directory that does not exist; a symlink is followed (its target is written, the link kept).
Files are written atomically (a temporary file in the target's directory renamed into place).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from contactmodes.errors import ContactModelError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CommandOutput", "INTERNAL_ERROR", "INTERRUPTED", "NO_ANSWER", "USAGE_ERROR", "UserError",
           "check_output_path", "check_writable", "parse_box", "parse_floats", "write_all_atomic", "write_atomic"]

NO_ANSWER = 1
USAGE_ERROR = 2
INTERNAL_ERROR = 70
INTERRUPTED = 130


class UserError(ContactModelError):
    """A command-line mistake the user can fix (an option's value or combination); printed as
    one line, exit status 2, like every ``ContactModelError``."""


@dataclass(frozen=True)
class CommandOutput:
    """What a command returns when its exit status is not 0: ``text`` for stdout (or
    ``--output``; ``None`` for none) and ``status`` (e.g. ``NO_ANSWER``)."""

    text: str | None
    status: int = NO_ANSWER


def check_output_path(path: str, inputs: Sequence[str] = (), option: str = "--output") -> str:
    """The real path an output ``path`` will be written to (symlinks followed), or
    ``UserError`` naming ``option`` when it is one of ``inputs``, an existing non-regular
    file, or in a directory that does not exist."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        raise UserError(f"{option}: directory does not exist: {directory}")
    if os.path.exists(real):
        if not os.path.isfile(real):
            raise UserError(f"{option}: {path} exists and is not a regular file (a directory, FIFO or "
                            f"device); refusing to replace it")
        for inp in inputs:
            try:
                same = os.path.samefile(real, inp)
            except OSError:
                same = False
            if same:
                raise UserError(f"{option}: {path} is the input file {inp}; refusing to overwrite it")
    return real


def check_writable(path: str | None, option: str, ext: str | None = None, inputs: Sequence[str] = ()) -> None:
    """Check an output path before a long run (``flip``, ``sweep``, ``plot``): ``UserError``
    naming ``option`` on a wrong extension (``ext`` such as ``".png"``, case-insensitive), an
    unwritable directory, or any reason ``check_output_path`` gives. ``None`` passes."""
    if path is None:
        return
    if ext is not None and not path.lower().endswith(ext):
        raise UserError(f"{option}: expected a {ext} file name, got {path!r}")
    real = check_output_path(path, inputs, option)
    if not os.access(os.path.dirname(real), os.W_OK | os.X_OK):
        raise UserError(f"{option}: cannot write {path}: directory is not writable")


def write_all_atomic(files: Sequence[tuple[str, Callable[[str], None], str]], inputs: Sequence[str] = ()) -> None:
    """Write ``files`` ``[(path, write(tmp_path), option), …]``: every file is rendered to its
    temporary name before any is renamed into place (nested ``write_atomic`` calls), so a
    failure or Ctrl-C while rendering leaves none of them."""
    if not files:
        return
    (path, write, option), rest = files[0], files[1:]

    def write_then_rest(tmp: str) -> None:
        write(tmp)
        write_all_atomic(rest, inputs)

    write_atomic(path, write_then_rest, option=option, inputs=inputs)


def write_atomic(path: str, write: Callable[[str], None], option: str = "--output",
                 inputs: Sequence[str] = ()) -> None:
    """Create ``path`` through ``write(tmp_path)`` then rename it into place: nothing partial.

    The path is checked first (``check_output_path``; a symlink's target is written). Raises
    ``UserError`` naming ``option`` when the path is refused or cannot be written; any
    exception from ``write`` leaves no file behind.
    """
    real = check_output_path(path, inputs, option)
    directory = os.path.dirname(real)
    suffix = os.path.splitext(real)[1] or ".tmp"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".contactmodes-", suffix=suffix)
        os.close(fd)
    except OSError as exc:
        raise UserError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, real)
    except OSError as exc:
        raise UserError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def parse_floats(text: str, n: int | None, option: str) -> np.ndarray:
    """Comma-separated finite numbers (exactly ``n`` if given) → array; ``UserError``
    naming ``option`` otherwise. With ``n = 0`` (a system without actuators) the empty text is
    the one point of ``R^0`` (``--at=``)."""
    import numpy as np  # here: importing the CLI loads no NumPy (contactmodes.cli, start-up)
    if n == 0 and not text.strip():
        return np.zeros(0)
    try:
        values = np.array([float(v) for v in text.split(",")])
    except ValueError:
        raise UserError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not np.all(np.isfinite(values)):
        raise UserError(f"{option}: values must be finite, got {text!r}")
    if n == 0:
        raise UserError(f"{option}: the system has no actuators: give no value ({option}=), got {len(values)}")
    if n is not None and len(values) != n:
        raise UserError(f"{option}: expected {n} values (one per torque), got {len(values)}")
    return values


def parse_box(text: str, n: int, option: str) -> tuple[np.ndarray, np.ndarray]:
    """Parse ``LO:HI[,LO:HI...]`` with exactly ``n`` ranges into ``(lo, hi)``, each (n,) floats;
    ``UserError`` naming ``option`` on a malformed, non-finite or reversed range. With ``n = 0`` (a
    system without actuators) the empty text is the box of ``R^0``, its one point (``option=``)."""
    import numpy as np
    if n == 0:
        if text.strip():
            raise UserError(f"{option}: the system has no actuators: give no range ({option}=), got {text!r}")
        return np.zeros(0), np.zeros(0)
    parts = text.split(",")
    if len(parts) != n:
        raise UserError(f"{option}: expected {n} LO:HI ranges (one per torque), got {len(parts)}")
    lo, hi = np.zeros(n), np.zeros(n)
    for i, part in enumerate(parts):
        try:
            a, b = (float(v) for v in part.split(":"))
        except ValueError:
            raise UserError(f"{option}: range {i} must be LO:HI, got {part!r}") from None
        if not (math.isfinite(a) and math.isfinite(b) and a <= b):
            raise UserError(f"{option}: range {i} needs finite LO <= HI, got {part!r}")
        lo[i], hi[i] = a, b
    return lo, hi
