"""Every script under ``benchmarks/`` and ``examples/`` is valid Python.

Not all of them run in the tests (some need MuJoCo or minutes of CPU), and their long module
docstrings hold the measured tables, which are edited by hand: a slip there (text left outside the
docstring) must fail here, not when a user runs the script. Each file is compiled, not run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for d in ("benchmarks", "examples") for p in (ROOT / d).rglob("*.py"))


def test_there_are_scripts():
    assert len(SCRIPTS) >= 5


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_compiles(path):
    compile(path.read_text(encoding="utf-8"), str(path), "exec")
