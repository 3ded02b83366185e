"""The generic controller at a touchdown state (``controllers.generic.touchdown``).

The rocking block of Johnson's thesis (Fig. 5.4) with a reaction wheel
(``examples/impact/rocking_block_wheel.toml``: w = 5 cm, h = 10 cm, m = 5 kg, a moment on θ)
pivots on its left corner while the right one lands at 20 cm/s (ω = −4 rad/s). Independent
references, in plain NumPy from the block's geometry (not the toolkit's equations):

* the impact: each set of sticking contacts solved as the KKT system
  ``[M −J_Kᵀ; J_K 0] [q̇⁺; P] = [M q̇⁻; 0]`` (thesis eq. 10), an outcome kept when its normal
  impulses are >= 0, inside the friction cone, and the released contacts leave (``v_n⁺ >= 0``);
* the pseudo-impulse threshold of the block at rest (``FF``): the pivot's normal impulse
  ``P_1n = ż (m (w² − h²)/2 − 2 I)/w²`` (thesis eq. 41 with its sign corrected,
  ``docs/impact.md``) plus ``δ_t f_1n`` with the static pivot force ``f_1n = m g/2 + τ/w`` must be
  >= 0: ``τ >= w (−P_1n/δ_t − m g/2)``;
* the post-impact torque: per-mode LPs over the unambiguous sets ``T*_c`` of an
  ``AnalysisSession`` of the mechanism's ``ContactSystem`` at ``(q, q̇⁺)`` (as
  ``test_generic_controller.py``), cut to the box.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import contactmodes as cm
from _support.generic_reference import reference_values
from _support.paths import EXAMPLES
from contactmodes.control.objective import LinearObjective
from contactmodes.system_file.loader import load_system_file
from controllers.generic import UnambiguousOptimalController

W, H, MASS, G = 0.05, 0.10, 5.0, 9.81
I_B = MASS * (W ** 2 + H ** 2) / 12
CORNERS = {"left": np.array([-W / 2, -H / 2]), "right": np.array([W / 2, -H / 2])}
MU = 1.0


@pytest.fixture(scope="module")
def wheel():
    return load_system_file(EXAMPLES / "impact" / "rocking_block_wheel.toml")


def _jacobian(theta: float, name: str) -> np.ndarray:
    """Rows (t, n) = (x, y) of the corner's velocity over (ẋ, ẏ, θ̇): v = v_c + ω × r."""
    c, s = math.cos(theta), math.sin(theta)
    r = np.array([[c, -s], [s, c]]) @ CORNERS[name]
    return np.array([[1.0, 0.0, -r[1]], [0.0, 1.0, r[0]]])


def _kkt(theta: float, qdot: np.ndarray, stick: list[str], normal_only: bool = False):
    """Plastic impact into the sticking set ``stick``: ``(q̇⁺, {name: (P_t, P_n)})``."""
    M = np.diag([MASS, MASS, I_B])
    rows = [(_jacobian(theta, n)[1:] if normal_only else _jacobian(theta, n)) for n in stick]
    J = np.vstack(rows) if rows else np.zeros((0, 3))
    m = J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((m, m))]])
    x = np.linalg.lstsq(K, np.concatenate([M @ qdot, np.zeros(m)]), rcond=None)[0]
    P, out, j = x[3:], {}, 0
    for n in stick:
        out[n] = (0.0, P[j]) if normal_only else (P[j], P[j + 1])
        j += 1 if normal_only else 2
    return x[:3], out


def _sticking_outcomes(theta, qdot, normal_only=False):
    """Every consistent sticking set (module doc), as outcome strings over (left, right)."""
    found = {}
    for stick in ([], ["left"], ["right"], ["left", "right"]):
        qp, P = _kkt(theta, qdot, stick, normal_only)
        ok = all(pn >= -1e-12 and abs(pt) <= MU * pn + 1e-12 for pt, pn in P.values())
        ok &= all((_jacobian(theta, n) @ qp)[1] >= -1e-12 for n in CORNERS if n not in stick)
        if ok:
            found["".join("F" if n in stick else "S" for n in CORNERS)] = (qp, P)
    return found


def _objective(sense="maximize"):
    return LinearObjective(np.array([0.0, 0.0, 1.0]), np.zeros(4), np.zeros(1), sense)


def _reference_best(loaded, q, qdot, objective, lo, hi):
    """The best objective over every feasible mode's ``T*_c ∩ [lo, hi]`` at ``(q, q̇)`` (module doc;
    ``_support.generic_reference``)."""
    values, _ = reference_values(loaded.mechanism.contact_system(q, qdot), objective, lo, hi)
    sign = objective.sign
    return sign * max((sign * v for v in values.values()), default=-math.inf)


@pytest.mark.parametrize("sense", ["maximize", "minimize"])
def test_touchdown_follows_the_impact_and_optimizes_after_it(wheel, sense):
    theta = float(wheel.q[2])
    independent = _sticking_outcomes(theta, wheel.qdot)
    assert list(independent) == ["SF"]  # both stuck needs a negative pivot impulse; one corner can't stop it
    qp_ref, P_ref = independent["SF"]
    pt, pn = P_ref["right"]
    assert abs(pt) < MU * pn  # strictly inside the cone: no sliding outcome of the landing corner
    lo, hi = np.array([-1.0]), np.array([1.0])
    ctrl = UnambiguousOptimalController(wheel, _objective(sense), limits=(lo, hi))
    tau = ctrl(wheel.q, wheel.qdot)
    assert not ctrl.errors, ctrl.errors
    rec = ctrl.log[-1]
    assert (rec.touchdown, rec.touchdown_status, rec.status) == ("SF", "impact", "optimal")
    (index, td), = ctrl.touchdowns
    assert index == 0 and td.consistent == ("SF",) and td.approaching == ("right",)
    np.testing.assert_allclose(td.qdot_plus, qp_ref, rtol=1e-9, atol=1e-12)
    # the left corner leaves after the impact: only modes S· remain, the optimum over them
    best = _reference_best(wheel, wheel.q, td.qdot_plus, _objective(sense), lo, hi)
    assert math.isfinite(best)
    assert abs(rec.predicted - best) <= 1e-6 * max(1.0, abs(best))
    assert rec.mode[0] == "S"
    assert np.all(tau >= lo - 1e-9) and np.all(tau <= hi + 1e-9)


def test_pseudo_impulse_brings_the_block_to_rest_with_a_reachable_moment(wheel):
    dt = 0.03
    zdot = -float(wheel.qdot[1])  # the centre of mass moves down at 10 cm/s
    p1n = zdot * (MASS * (W ** 2 - H ** 2) / 2 - 2 * I_B) / W ** 2
    assert p1n < 0
    tau_min = W * (-p1n / dt - MASS * G / 2)  # 0.718 N·m
    lo, hi = np.array([-1.0]), np.array([1.0])
    ctrl = UnambiguousOptimalController(wheel, _objective(), limits=(lo, hi), pseudo_impulse=dt)
    tau = ctrl(wheel.q, wheel.qdot)
    assert not ctrl.errors, ctrl.errors
    td = ctrl.last_touchdown
    # FF keeps both contacts (rule 2); SF keeps one; FL/FR/RR need more than the box allows
    assert td.outcome == "FF" and "SF" in td.consistent and "FL" not in td.consistent
    np.testing.assert_allclose(td.qdot_plus, 0.0, atol=1e-12)
    assert tau_min - 1e-6 <= tau[0] <= hi[0] + 1e-9  # inside the outcome's torque set
    assert td.torque_in_set is True
    best = _reference_best(wheel, wheel.q, td.qdot_plus, _objective(), [tau_min], hi)
    assert abs(ctrl.log[-1].predicted - best) <= 1e-6 * max(1.0, abs(best))


def test_no_consistent_outcome_falls_back_to_frictionless(wheel, monkeypatch):
    real = cm.impact

    def no_frictional_outcome(system, **kwargs):  # every outcome inconsistent while there is friction
        result = real(system, **kwargs)
        if np.any(np.asarray(system.mu) > 0):
            for o in result.outcomes:
                o.consistent = False
        return result

    monkeypatch.setattr(cm, "impact", no_frictional_outcome)
    ctrl = UnambiguousOptimalController(wheel, _objective(), limits=([-1.0], [1.0]))
    ctrl(wheel.q, wheel.qdot)
    assert not ctrl.errors, ctrl.errors
    td = ctrl.last_touchdown
    assert ctrl.log[-1].touchdown_status == "frictionless" == td.status
    independent = _sticking_outcomes(float(wheel.q[2]), wheel.qdot, normal_only=True)
    assert set(independent) == {"SF"}  # the landing corner kept by its normal row, the pivot released
    np.testing.assert_allclose(td.qdot_plus, independent["SF"][0], rtol=1e-9, atol=1e-12)
    assert td.outcome[0] == "S" and td.outcome[1] in "FLR"


def test_the_velocity_tolerances_are_explicit_opt_ins(wheel):
    ctrl = UnambiguousOptimalController(wheel, _objective(), limits=([-1.0], [1.0]), normal_velocity_tol=0.5)
    ctrl(wheel.q, wheel.qdot)
    assert ctrl.log[-1].touchdown is None and not ctrl.touchdowns  # the old zeroing: no impact
    band = UnambiguousOptimalController(wheel, _objective(), limits=([-1.0], [1.0]), touching_velocity_tol=0.5)
    band(wheel.q, wheel.qdot)  # the landing corner's -0.2 m/s within the band: touching, no impact
    assert band.log[-1].touchdown is None and not band.errors
    narrow = UnambiguousOptimalController(wheel, _objective(), limits=([-1.0], [1.0]), touching_velocity_tol=0.01)
    narrow(wheel.q, wheel.qdot)  # approaching faster than the band: the impact
    assert narrow.log[-1].touchdown == "SF" and not narrow.errors
    plain = UnambiguousOptimalController(wheel, _objective(), limits=([-1.0], [1.0]))
    qdot = np.array([0.2, 0.1, -4.0])  # the right corner at rest, the left one leaving: no touchdown
    plain(wheel.q, qdot)
    assert plain.log[-1].touchdown is None and plain.last_touchdown is None and not plain.errors
