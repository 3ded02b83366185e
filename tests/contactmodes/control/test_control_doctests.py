"""The docstring examples of ``contactmodes.control`` run as doctests."""

from __future__ import annotations

import doctest
import importlib

import pytest

from _support.paths import ROOT


@pytest.mark.parametrize("module", ["contactmodes.control.objective", "contactmodes.control.optimal"])
def test_docstring_examples_run(module, monkeypatch):
    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
