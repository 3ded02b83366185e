"""pplpy (through cysignals) replaces the process's SIGINT handler when imported; the toolkit must
keep Python's, or Ctrl-C is swallowed while a Dask client waits (seen in ``sweep``)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest


def test_importing_polytopes_and_using_exact_keeps_the_sigint_handler():
    code = (
        "import signal\n"
        "before = signal.getsignal(signal.SIGINT)\n"
        "import polytopes\n"
        "from polytopes import Polytope, ppl_io\n"
        "ok = ppl_io.available()\n"
        "if ok:\n"
        "    Polytope([[1.0], [-1.0]], [1.0, 1.0]).reduce(method='exact')\n"
        "print(ok, signal.getsignal(signal.SIGINT) is before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    available, same = out.stdout.split()
    if available != "True":
        pytest.skip("pplpy not installed")
    assert same == "True"
