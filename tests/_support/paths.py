"""Paths of the repository, the same from every folder of ``tests/`` (a test module's own
``Path(__file__).parents[...]`` changes with its depth)."""

from __future__ import annotations

from pathlib import Path

#: the ``tests/`` folder
TESTS = Path(__file__).resolve().parents[1]
#: the repository's root (CI runs ``python -m pytest`` from here)
ROOT = TESTS.parent
#: the example system files
EXAMPLES = ROOT / "examples"
#: the tests' own data: ``cases/`` (shared reproducers), ``golden/`` (stored outputs)
DATA = TESTS / "data"
