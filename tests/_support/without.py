"""Run the CLI (or just import the packages) in a subprocess whose import system refuses some
packages — an install without an extra, simulated: a finder first on ``sys.meta_path`` raises
``ModuleNotFoundError`` for the blocked top-level names (``tests/test_extras.py``,
``tests/controllers/simulation/test_simulate_cli.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Iterable

ROOT = Path(__file__).resolve().parents[2]

_RUN = r"""
import sys

BLOCKED = set(filter(None, sys.argv[1].split(",")))


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
if sys.argv[2] == "--import":
    import contactmodes, controllers, polytopes  # noqa: E401
    print(",".join(sorted(m for m in sys.modules if m.partition(".")[0] in set(sys.argv[3].split(",")))))
    sys.exit(0)
from contactmodes.cli import main

sys.exit(main(sys.argv[2:]))
"""


def run_without(blocked: Iterable[str], *argv, cwd: Path | str = ROOT,
                timeout: float = 300) -> subprocess.CompletedProcess:
    """``contactmodes *argv`` (text captured) with the top-level packages ``blocked`` not
    importable; ``argv`` starting with ``"--import"`` imports the three packages instead and prints
    which modules of the packages named in ``argv[1]`` (comma-separated) got loaded."""
    return subprocess.run([sys.executable, "-c", _RUN, ",".join(blocked), *map(str, argv)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
