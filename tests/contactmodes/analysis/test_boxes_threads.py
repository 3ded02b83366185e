"""``AnalysisSession._boxes``: the bounding boxes of many modes shared by threads, each with its own
ray pool, equal bit for bit those computed in one thread (a box's values do not depend on which
rays proved its unbounded sides), on the 7-contact chain (640 modes: the compiled box kernel)."""

from __future__ import annotations

import os
import tempfile
import threading

import numpy as np
import pytest

import contactmodes as cm
import contactmodes.analysis.session as session_module
from polytopes import _threads, batchlp

from _support.chains import zigzag_chain
from _support.toml_writer import to_toml


def _session():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "chain.toml")
        with open(path, "w") as fh:
            fh.write(to_toml(zigzag_chain(7)))
        return session_module.AnalysisSession(cm.load_system(path))


@pytest.mark.skipif(not batchlp.available(), reason="numba not installed")
def test_threaded_boxes_equal_one_thread(monkeypatch):
    one = _session()
    feasible = one.feasible_modes()
    assert one.box_kernel == "compiled" and len(feasible) > 400
    monkeypatch.setattr(_threads, "THREADS", 1)
    want = one._boxes(feasible, True)

    monkeypatch.setattr(_threads, "THREADS", 3)
    monkeypatch.setattr(session_module, "BOX_MODES_PER_THREAD", 64)
    many = _session()
    many.feasible_modes()
    seen = set()
    box_scaled = session_module.ModeSolution.box_scaled

    def spy(self, task=True):
        seen.add(threading.get_ident())
        return box_scaled(self, task)

    monkeypatch.setattr(session_module.ModeSolution, "box_scaled", spy)
    got = many._boxes(feasible, True)
    assert len(seen) >= 2  # the slices ran on more than one thread (the pool's, at least two)
    assert len({key[1] for key in many._pools}) >= 2  # each with its own ray pool
    for (lo, hi), (lo_w, hi_w) in zip(got, want):
        for a, b in ((lo, lo_w), (hi, hi_w)):
            assert np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b))
