"""The candidate certificates of the generic search (``controllers.generic.certify``; the search
module doc, *Settled candidates* and *The tie rule*) against the exact slow path.

At the recorded closed-loop states where they settle a step (RHex's file: the twins
``LSF``/``LLF``; the quadruped's first step and its goal switch, ``SS``/``RS``), every verdict is
checked by ``controllers.generic.exact.slow_optimum`` on the step's ``AnalysisSession`` (the
projections and region difference of eq. (34)): ``kept`` — the slow path's value over the closure
is the bound ``β`` and its maximizer is not nudged (no removed set holds it); ``empty`` — the
slow path finds ``T*_c ∩ L`` empty. The answers at those steps against the recorded slow-path
answers: ``test_generic_replay``; against RHex's independent reference:
``tests/controllers/rhex/test_rhex_max_thrust.py::test_slow_path_matches_reference``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import controllers.generic.certify as certify
import controllers.generic.search as search
from controllers.generic.exact import slow_optimum
from _support.replay_check import check_replayed
from tests._support import record_generic_steps as rec

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _states(name: str, key: str, steps):
    doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    calls = doc["calls"][key]
    for i in steps:
        yield i, rec.state(calls[i]), float.fromhex(doc["velocity_tol"])


@pytest.mark.parametrize("name, key, steps", [("rhex", "main", (0, 1, 2, 3, 5)), ("quadruped", "up", (0, 51))])
def test_verdicts_are_the_slow_paths(name, key, steps, monkeypatch):
    loaded = rec.loaded_system(name)
    seen = []
    real = certify.settle

    def spy(resp, dom, j, holders, known, lo, hi, task):
        way = real(resp, dom, j, holders, known, lo, hi, task)
        seen.append((j, way, task, lo, hi))
        return way

    monkeypatch.setattr(search, "settle", spy)
    real_search = search._search
    checked = {"kept": 0, "empty": 0}

    def search_and_check(md, step, lo, hi, task, force_slow, *margin):
        seen.clear()
        out = real_search(md, step, lo, hi, task, force_slow, *margin)
        bounds = {j: b for j, b, _ in out[1]}
        for j, way, t, lo_, hi_ in seen:
            if way is None:
                continue
            session = md.session(step)
            others = [md.names[o] for o in md.others(j)]
            val, tau, nudged, closure = slow_optimum(session, md.names[j], others, lo_, hi_, search.SearchCounters(), t,
                                                     md.objective)
            if way == certify.EMPTY:
                assert val == -math.inf, (md.names[j], val)
            else:
                beta = bounds[j]
                assert abs(closure - beta) <= 1e-9 * max(1.0, abs(beta)), (md.names[j], closure, beta)
                assert not nudged, md.names[j]
            checked[way] += 1
        return out

    monkeypatch.setattr(search, "_search", search_and_check)
    for i, (q, qdot), vtol in _states(name, key, steps):
        ctrl = rec.controllers(name, loaded, vtol)["inner"][key]
        ctrl(q, qdot)
        assert ctrl.last.settled, (name, i)
    assert checked["kept"] >= 1
    if name == "quadruped":
        assert checked["empty"] >= 1


def test_an_unverifiable_certificate_leaves_the_step_to_the_slow_path(monkeypatch):
    """When an LP of a certificate cannot be verified (``NumericalError`` from the batch or the
    hulls), ``settle`` gives no verdict and the slow path answers: RHex's file's first steps as
    recorded (within the step's conditioning, ``_support.replay_check``), through the slow path."""
    from polytopes import Polytope
    from polytopes.errors import NumericalError

    def unverifiable(*args, **kwargs):
        raise NumericalError("no verified answer (test)")

    real = certify.settle

    def settle_unverifiable(*args):  # the LPs fail inside the certificates only
        with monkeypatch.context() as m:
            m.setattr(certify.batchlp, "solve_batch", unverifiable)
            m.setattr(Polytope, "prepare_many", staticmethod(unverifiable))
            return real(*args)

    monkeypatch.setattr(search, "settle", settle_unverifiable)
    doc = json.loads((DATA / "rhex.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system("rhex")
    ctrl = rec.controllers("rhex", loaded, float.fromhex(doc["velocity_tol"]))["inner"]["main"]
    ctrl.margin = 0.0  # the recorded answers are the supremum points (no margin then)
    n_slow = 0
    for i, call in enumerate(doc["calls"]["main"][:4]):
        q, qdot = rec.state(call)
        tau = ctrl(q, qdot)
        assert not ctrl.errors and not ctrl.last.settled
        n_slow += ctrl.last.n_slow > 0
        got = rec.answer(ctrl, tau)
        check_replayed(ctrl, q, qdot, got, {k: call[k] for k in got}, f"rhex call {i}",
                       n_modes_at_most=ctrl.last.screened)
    assert n_slow >= 3


def test_the_dimension_count_agrees_with_the_lifted_intersections(monkeypatch):
    """``settle``'s count (``dim(K ∩ T_c') <= n_τ − p``, ``p`` the holder's equalities (31))
    against the lifted intersection it spares: at RHex's settled states, every holder the count
    settles has ``dim proj(K ∩ T_c')`` (``Polytope.projected_dimension`` of the lifted pair, the
    certificate's other way) at most its count and below ``dim K``; and the count settles them all
    there (the shortcut is exercised). ``dim K`` itself from ``_interior`` (one LP) against the
    hull's: equal wherever ``_interior`` claims it, and a box pinned in one torque is never
    called interior."""
    from polytopes import Polytope

    real = certify.settle
    counted = 0
    interior: list[int] = []

    def spy(resp, dom, j, holders, known, lo, hi, task):
        nonlocal counted
        way = real(resp, dom, j, holders, known, lo, hi, task)
        nt = len(lo)
        K = certify.lifted_domain(resp, dom, j, lo, hi, task, box=True)
        dim = K.projected_dimension(range(nt))
        if certify._interior(K, certify._lp_rows(resp, dom, j, lo, hi, task)):  # its claim, against the hull's
            assert dim == nt - int(resp.cvalid[j].sum()) and not K._feas().thin
            interior.append(j)
        lo_thin = np.array(lo, dtype=float)
        lo_thin[0] = hi[0]  # the box pinned in one torque: K thin (or empty)
        rows_thin = certify._lp_rows(resp, dom, j, lo_thin, hi, task)
        K_thin = certify.lifted_domain(resp, dom, j, lo_thin, hi, task, box=True, rows=rows_thin)
        assert not certify._interior(K_thin, rows_thin)
        for o in holders.tolist():
            cap = nt - int(resp.cvalid[o].sum())
            if cap >= dim:
                continue
            T = certify.lifted_domain(resp, dom, o, lo, hi, False, box=False)
            pair = certify._pad(K, 0, T.dim - nt, nt).intersect(certify._pad(T, K.dim - nt, 0, nt))
            Polytope.prepare_many([pair])
            assert pair.projected_dimension(range(nt)) <= cap < dim
            counted += 1
        return way

    monkeypatch.setattr(search, "settle", spy)
    for i, (q, qdot), vtol in _states("rhex", "main", (0, 1, 2, 3, 5)):
        ctrl = rec.controllers("rhex", rec.loaded_system("rhex"), vtol)["inner"]["main"]
        ctrl(q, qdot)
        assert certify.KEPT in ctrl.last.settled.values(), i
    assert counted >= 5 and len(interior) >= 5
