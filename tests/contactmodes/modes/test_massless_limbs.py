"""Massless legs as zero-mass coordinates (docs/system-file.md, "Massless limbs") on the RHex example.

Two independent checks:
* hand closed form: body pivoting about its fixed rear corner with every toe off the ground
  (mode ``FSSS``) — a compound pendulum, α̈ = −m g r_x / (I + m |r|²);
* the ε-limit: legs given mass ε (inertia 0.007 ε) are solved with the ordinary ``M⁻¹`` formulae
  of the note, ``λ = −Λ (A M⁻¹ (S τ − h) + Ȧ q̇)``, ``q̈ = M⁻¹ (S τ − h + Aᵀ λ)``, and the body
  accelerations must converge to the massless SVD answer as ε → 0.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.analysis.session import mode_domain
from contactmodes.system_file.loader import load_system_file, parse_system
from contactmodes.modes.response import solve_response

EXAMPLE = EXAMPLES / "rhex_flip_start.toml"
G = 9.81


@pytest.fixture(scope="module")
def loaded():
    return load_system_file(EXAMPLE)


def _variant(loaded, leg_mass: float = 0.0):
    """The example with the rear corner's friction raised to 10 (so that it can hold the pivot)
    and, optionally, legs of mass ``leg_mass`` and inertia ``0.007 * leg_mass``."""
    raw = copy.deepcopy(loaded.raw)
    raw["contacts"][0]["mu"] = 10.0
    for link in raw["links"]:
        if link.get("parent") is not None and leg_mass > 0:
            link["mass"] = leg_mass
            link["inertia"] = 0.007 * leg_mass
            link["com"] = [0.085, 0.0]
    return parse_system(raw).system


def _pendulum_about_corner(loaded):
    system = loaded.system
    m, inertia = system.M[0, 0], system.M[2, 2]
    x, y, alpha = loaded.q[:3]
    corner = np.array([0.0, 0.0])  # the example puts the rear corner at the origin
    r = np.array([x, y]) - corner
    alpha_dd = -m * G * r[0] / (inertia + m * r @ r)
    # com acceleration of a body rotating about a fixed point at rest: a = alpha_dd * (-r_y, r_x)
    return np.array([-alpha_dd * r[1], alpha_dd * r[0], alpha_dd])


def test_pivot_on_corner_matches_compound_pendulum(loaded):
    system = _variant(loaded)
    resp = solve_response(system, "FSSS", task=False)
    qdd, f = resp.evaluate(np.zeros(3))
    np.testing.assert_allclose(qdd[:3], _pendulum_about_corner(loaded), rtol=1e-8, atol=1e-10)
    # the three free legs are undetermined: a null space that moves only their angles
    assert resp.n_w == 3 and resp.w_moves_accelerations
    assert np.allclose(resp.Q_q[:3], 0.0, atol=1e-10)
    # a massless leg with its toe off the ground cannot carry a hip torque: T_c = {0}
    dom = mode_domain(system, "FSSS", task=False)
    assert dom.feasible
    assert dom.T.affine_dimension() == 0
    assert dom.T.contains(np.zeros(3))
    assert not dom.T.contains(np.array([0.1, 0.0, 0.0]))


def _eps_solution(system, tau):
    """Ordinary M⁻¹ solution with the rear corner fixed (rows t, n of contact 0), toes free."""
    A = system.J[0:2]
    Adot_qdot = system.Jdot_qdot[0:2]
    Minv = np.linalg.inv(system.M)
    rhs = system.S @ tau - system.h
    Lam = np.linalg.inv(A @ Minv @ A.T)
    lam = -Lam @ (A @ Minv @ rhs + Adot_qdot)
    return Minv @ (rhs + A.T @ lam), lam


def test_leg_mass_to_zero_converges_to_massless_answer(loaded):
    tau = np.zeros(3)
    massless_qdd, massless_f = solve_response(_variant(loaded), "FSSS", task=False).evaluate(tau)
    errors = []
    for eps in (1e-2, 1e-4, 1e-6):
        system = _variant(loaded, leg_mass=eps)
        qdd, lam = _eps_solution(system, tau)
        errors.append(np.abs(qdd[:3] - massless_qdd[:3]).max())
        np.testing.assert_allclose(lam, massless_f[0:2], rtol=1e-2 if eps > 1e-3 else 1e-4, atol=1e-3)
    assert errors[-1] < 1e-4
    assert errors[0] > errors[1] > errors[2]
