"""Output files of commands: checked before a long run, written all together after it.

Commands that compute for a while (``flip``, ``sweep``) check every output path first, so a bad
path fails at once (exit 2) rather than after the run, and write all their files only at the end
through :func:`write_all_atomic`, so that a failure or Ctrl-C while rendering leaves none of them
(each file goes through :func:`contactmodes.cli.write_atomic`).
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

__all__ = ["check_writable", "write_all_atomic"]


def check_writable(path: str | None, option: str, ext: str | None = None) -> None:
    """Raise :class:`~contactmodes.cli.UserError` naming ``option`` when ``path`` cannot be
    written: wrong extension (``ext`` such as ``".png"``, case-insensitive), missing or
    unwritable directory, or a directory at ``path``. ``None`` passes."""
    from .cli import UserError

    if path is None:
        return
    if ext is not None and not path.lower().endswith(ext):
        raise UserError(f"{option}: expected a {ext} file name, got {path!r}")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UserError(f"{option}: directory does not exist: {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UserError(f"{option}: cannot write {path}: directory is not writable")
    if os.path.isdir(path):
        raise UserError(f"{option}: cannot write {path}: is a directory")


def write_all_atomic(files: Sequence[tuple[str, Callable[[str], None], str]]) -> None:
    """Write ``files`` ``[(path, write(tmp_path), option), …]``: every file is rendered to its
    temporary name before any is renamed into place (nested
    :func:`~contactmodes.cli.write_atomic` calls), so a failure leaves none of them."""
    from .cli import write_atomic

    if not files:
        return
    (path, write, option), rest = files[0], files[1:]

    def write_then_rest(tmp: str) -> None:
        write(tmp)
        write_all_atomic(rest)

    write_atomic(path, write_then_rest, option=option)
