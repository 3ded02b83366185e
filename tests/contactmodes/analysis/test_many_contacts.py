"""Statically indeterminate contacts (issue 28): a box at rest on many floor contacts with a
reaction wheel. Its all-sticking domain has about 2k ambiguity variables projected onto one
torque, which ``auto`` now gives to the support-LP projection.

Closed form for the all-``F`` mode: with the box still, the wheel's equation gives ``I_w φ̈ = τ``
and the whole system's angular momentum balance about the centre of mass ``Σ (x_i f_n,i +
(H/2) f_t,i) = I_w φ̈ = τ``; with ``Σ f_t = 0``, ``Σ f_n = m g`` (m box plus wheel) and
``f_n >= 0`` at ``x_i ∈ [-W/2, W/2]`` (zero tangential forces satisfy the cones):
``T_FF…F = [-(W/2) m g, (W/2) m g]``.
"""

from __future__ import annotations

import pytest

import contactmodes as cm

from _support.boxes import BOX_MASS, WHEEL_MASS, WIDTH, box_on_contacts
from _support.toml_writer import to_toml


def _analyze(tmp_path, k: int, **kw):
    path = tmp_path / f"box_{k}.toml"
    path.write_text(to_toml(box_on_contacts(k)))
    return cm.analyze(path, **kw)


@pytest.mark.parametrize("k", [3, 32])
def test_all_sticking_domain_is_the_closed_form(tmp_path, k):
    result = _analyze(tmp_path, k)
    bound = WIDTH / 2 * (BOX_MASS + WHEEL_MASS) * 9.81
    T = result.modes["F" * k].T
    lo, hi = T.bounding_box()
    assert (float(lo[0]), float(hi[0])) == pytest.approx((-bound, bound), rel=1e-9)


def test_support_projection_agrees_with_block_elimination(tmp_path):
    k = 12
    path = tmp_path / f"box_{k}.toml"
    path.write_text(to_toml(box_on_contacts(k)))
    system = cm.load_system(path)
    auto = cm.AnalysisSession(system)
    other = cm.AnalysisSession(system, method="block_elimination")
    modes = auto.feasible_modes()
    assert modes == other.feasible_modes()
    for mode in modes:
        assert auto.mode(mode).T().equals(other.mode(mode).T()), mode
