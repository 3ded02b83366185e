"""Shared test configuration (tests/README.md: what goes where).

* ``tests/`` on ``sys.path``, so that every test module, in any sub-folder, imports the shared
  helpers as ``from _support.oracle import ...`` (pytest's default "prepend" import mode only puts
  the test module's own folder there). Test modules never import each other: helpers live in
  ``tests/_support/`` (checked by ``tests/test_layout_of_tests.py``).
* The ``slow`` marker (also declared in pyproject.toml): whole RHex flips, large chains, the
  documentation's commands, the stored outputs. CI runs everything; skip them with
  ``python -m pytest -m "not slow"``.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


def pytest_configure(config):
    """Register ``slow`` unless pyproject.toml's ``markers`` already does (a run with another
    configuration file, or none, still knows it)."""
    if not any(line.split(":")[0].strip() == "slow" for line in config.getini("markers")):
        config.addinivalue_line("markers", "slow: whole RHex flips, large chains, the docs' commands, the stored "
                                           "outputs (skip with -m \"not slow\"; CI runs them)")
