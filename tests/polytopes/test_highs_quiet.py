"""HiGHS's banner never reaches stdout, and stdout survives threads building their HiGHS instances at
once (``polytopes.lp._highs_instance`` points fd 1 at ``os.devnull`` around the constructor).

A stand-in for ``highspy.Highs`` that writes its banner to fd 1 after a pause makes the overlap
certain: the second thread starts while the first is inside. Without the lock the second saved
``os.devnull`` as "stdout" and restored it last (the process's later output lost), and the first
restored the terminal while the second was printing (the banner shown)."""

from __future__ import annotations

import os
import subprocess
import sys

from _support.paths import ROOT

SCRIPT = r"""
import os, threading, time
import highspy

class Slow:
    def __init__(self):
        time.sleep(0.3)
        os.write(1, b"BANNER\n")
    def setOptionValue(self, *args):
        pass

highspy.Highs = Slow
from polytopes import lp
threads = []
for _ in range(3):
    t = threading.Thread(target=lp._highs_instance)
    t.start()
    threads.append(t)
    time.sleep(0.1)
for t in threads:
    t.join()
os.write(1, b"after\n")
"""


def test_threads_building_highs_leave_stdout_alone():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "after\n"
