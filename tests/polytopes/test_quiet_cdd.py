"""cddlib's own messages (its criss-cross fallback writes ``max number 41000 of pivots performed by
the criss-cross method...`` to the C stderr, met on the pairwise ``--unambiguous`` path of Solo-12
on four feet) stay off the terminal: every call into cddlib runs with file descriptor 2 pointed at
``os.devnull`` (``polytopes._quiet``). A stand-in for each cddlib call writes to descriptor 2 the
way cddlib does (``os.write``, below Python's ``sys.stderr``), and ``capfd`` sees nothing; output
after the call reaches the terminal again."""

from __future__ import annotations

import os

import numpy as np

import polytopes._cdd_io as cdd_io
import polytopes.lp as lp

MESSAGE = b"max number 41000 of pivots performed by the criss-cross method.\n"


def _noisy(original):
    def call(*args, **kwargs):
        os.write(2, MESSAGE)
        return original(*args, **kwargs)
    return call


def test_cdd_lp_message_does_not_reach_the_terminal(capfd, monkeypatch):
    monkeypatch.setattr(lp.cdd, "linprog_solve", _noisy(lp.cdd.linprog_solve))
    G = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    h = np.array([1.0, 1.0, 0.0])
    claim = lp._solve_cdd(np.array([1.0, 1.0]), G, h, np.zeros((0, 2)), np.zeros(0))
    assert claim.status == lp.OPTIMAL
    assert abs(float(np.sum(claim.x))) < 1e-12  # min x + y subject to x + y >= 0: 0
    os.write(2, b"after\n")
    out, err = capfd.readouterr()
    assert "criss-cross" not in out + err
    assert err == "after\n"  # descriptor 2 restored


def test_cdd_canonicalize_and_redundancy_messages_do_not_reach_the_terminal(capfd, monkeypatch):
    monkeypatch.setattr(cdd_io.cdd, "matrix_canonicalize", _noisy(cdd_io.cdd.matrix_canonicalize))
    monkeypatch.setattr(cdd_io.cdd, "matrix_redundancy_remove", _noisy(cdd_io.cdd.matrix_redundancy_remove))
    A = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, 1.0]])
    b = np.array([1.0, 1.0, 0.0, 0.0, 5.0])  # the unit square; the last row is redundant
    C, d = np.zeros((0, 2)), np.zeros(0)
    assert sorted(cdd_io.irredundant_rows(A, b, C, d).tolist()) == [0, 1, 2, 3]
    A2, b2, _, _ = cdd_io.canonicalize(A, b, C, d)
    assert A2.shape[0] == 4
    out, err = capfd.readouterr()
    assert "criss-cross" not in out + err
