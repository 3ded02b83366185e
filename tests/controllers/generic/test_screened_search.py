"""The screened search (``controllers.generic.search._screened``, ``contactmodes.realtime.torque_screen``).

* Its answers are the whole search's: a controller that screens and one that does not
  (``screen=False``) give the same torque, mode, status and value, bit for bit, at every
  recorded state of the snake's closed loop (``tests/data/generic_steps/snake.json``) and at
  perturbed states; the steps are screened.
* What the screen leaves out is right: at the controller's torques and at random torques of the
  box, every mode with a letter the screen excludes has no solution at that torque in the
  independent per-mode LP (``_support.oracle.oracle_slack``, Tables I–II written out in
  ``(q̈, f)``), and the screen does exclude some letters and keeps others.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from _support.oracle import oracle_slack
from tests._support import record_generic_steps as rec

DATA = Path(__file__).resolve().parents[2] / "data" / "generic_steps"


def _snake():
    doc = json.loads((DATA / "snake.json").read_text(encoding="utf-8"))
    loaded = rec.loaded_system("snake")
    states = [rec.state(c) for c in doc["calls"]["main"]]
    return doc, loaded, states


def _controller(doc, loaded, screen: bool):
    inner = rec.controllers("snake", loaded, float.fromhex(doc["velocity_tol"]))["inner"]["main"]
    inner.screen = screen
    return inner


def test_screened_answers_are_the_whole_search():
    doc, loaded, states = _snake()
    rng = np.random.default_rng(7)
    perturbed = [(q + rng.normal(scale=2e-5, size=q.size), qd + rng.normal(scale=2e-5, size=qd.size))
                 for q, qd in states[::3]]
    screened, whole = _controller(doc, loaded, True), _controller(doc, loaded, False)
    n_screened = 0
    for q, qd in states + perturbed:
        a, b = screened(q, qd), whole(q, qd)
        ra, rb = screened.last, whole.last
        assert np.array_equal(a, b), (a, b)
        assert (ra.mode4, ra.status, repr(ra.value)) == (rb.mode4, rb.status, repr(rb.value))
        assert not rb.screened
        if ra.screened:
            n_screened += 1
            assert ra.n_modes <= rb.n_modes  # the screen's kept modes only
    assert n_screened >= len(states)  # every recorded step, at least, is screened


def test_excluded_letters_admit_no_solution_in_the_oracle():
    doc, loaded, states = _snake()
    ctl = _controller(doc, loaded, True)
    rng = np.random.default_rng(3)
    checked = kept = excluded_groups = 0
    for q, qd in (states[0], states[15], states[29]):
        tau_star = ctl(q, qd)
        step = ctl.step_model(q, qd)
        st = ctl.engine.structure(step)
        layout = st.layout(step.pattern)
        banks = st.banks(step.terms)
        system = step.system  # user units, the oracle's input
        lo, hi = ctl.torque_limits(qd)
        for tau in [tau_star] + [rng.uniform(lo, hi) for _ in range(2)]:
            bad = layout.screen.excluded(banks, np.asarray(tau) / step.terms.tau)
            again = layout.screen.excluded(banks, np.asarray(tau) / step.terms.tau)  # old bases' certificates
            assert layout.screen._last[2] == 1  # the certificates' path was taken, and agrees
            assert all(np.array_equal(a, b) for a, b in zip(bad, again))
            own = layout.screen.positions(ctl.last.mode)
            kept_own = layout.screen.excluded(banks, np.asarray(tau) / step.terms.tau, keep=own)
            for i, (b, b_own) in enumerate(zip(bad, kept_own)):  # keep: those letters untested, the rest alike
                assert not b_own[own[i]]
                assert np.array_equal(np.delete(b, own[i]), np.delete(b_own, own[i]))
            letters = [[o[0] for o in opts] for opts in layout.options]
            out = [{letters[i][j] for j in np.flatnonzero(b)} for i, b in enumerate(bad)]
            excluded_groups += sum(len(x) for x in out)
            kept += sum(len(letters[i]) - len(out[i]) for i in range(len(out)))
            modes = ["".join(m) for m in itertools.product(*letters)
                     if any(m[i] in out[i] for i in range(len(out)))]
            for m in rng.choice(modes, size=min(120, len(modes)), replace=False) if modes else []:
                sigma = oracle_slack(system, str(m), np.asarray(tau, dtype=float), task=False)
                assert sigma is None or sigma < -1e-7, (m, tau, sigma)
                checked += 1
    assert checked >= 300 and excluded_groups > 0 and kept > 0


def test_screened_answers_on_a_wedged_chain():
    """A second system: the 5-link zig-zag chain wedged between floor and ceiling
    (``_support.chains``, 1024 candidates at rest, 128 feasible), sticking only, torques in a
    ±0.3 N·m box, at rest and at small random velocities: the screened and the whole search give
    the same answers. Each joint's torque alone, maximized or minimized, has its maximizer in a
    kept mode's ``T_c'`` too (an end of the chain may lift: ``SFFFF``), so those steps fall back to
    the whole search; the squeezing objectives ``−u1 + u2 − u3 + u4`` and ``−u1 + u2 + u3 + u4``
    are screened at rest (8 and 14 modes kept)."""
    from _support.chains import zigzag_chain

    from contactmodes.control.objective import LinearObjective
    from contactmodes.system_file.loader import parse_system
    from controllers.generic import UnambiguousOptimalController

    loaded = parse_system(zigzag_chain(5))
    s = loaded.system
    rng = np.random.default_rng(11)
    objectives = [(sign * np.eye(s.n_tau)[j], False) for j in range(s.n_tau) for sign in (1.0, -1.0)]
    objectives += [(np.array([-1.0, 1.0, -1.0, 1.0]), True), (np.array([-1.0, 1.0, 1.0, 1.0]), True)]
    box = (np.full(s.n_tau, -0.3), np.full(s.n_tau, 0.3))
    for c, squeezing in objectives:
        objective = LinearObjective(np.zeros(s.n_q), np.zeros(2 * s.k), c, "maximize", "tau")
        a, b = (UnambiguousOptimalController(loaded, objective, box, modes=["FFFFF"], screen=flag,
                                             normal_velocity_tol=1e-6) for flag in (True, False))
        for i, qd in enumerate([np.zeros(s.n_q)] + [rng.normal(scale=1e-7, size=s.n_q) for _ in range(2)]):
            ta, tb = a(loaded.q, qd), b(loaded.q, qd)
            assert np.array_equal(ta, tb)
            assert (a.last.mode4, a.last.status, repr(a.last.value)) == (b.last.mode4, b.last.status, repr(b.last.value))
            if i == 0:  # at rest
                assert a.last.screened == squeezing
                assert b.last.n_modes == 128 and (a.last.n_modes < 128 or not squeezing)
