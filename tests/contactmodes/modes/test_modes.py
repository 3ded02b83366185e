"""Mode enumeration (Sec. III-F, Table III, footnote 5) on hand-built systems with hand answers."""

from __future__ import annotations

import numpy as np
import pytest

from contactmodes.errors import ApproachingContactError, ContactModelError
from contactmodes.modes.enumeration import (
    acceleration_feasible,
    acceleration_rows,
    all_modes,
    enumerate_modes,
    velocity_allowed,
)
from contactmodes.model.system import ContactSystem

from _support.systems import G_, M_, MU, point_between_floor_and_ceiling, point_on_ground


def test_at_rest_all_modes_survive():
    s = point_on_ground()
    assert velocity_allowed(s) == ["FSLR"]
    en = enumerate_modes(s)
    assert (en.total, en.after_velocity, en.after_acceleration) == (4, 4, 4)
    assert en.modes == ["F", "S", "L", "R"]
    assert en.graph.number_of_edges() == 6  # all single-contact modes differ at one contact
    js = en.to_json()
    assert js["total"] == 4 and js["after_velocity"] == 4 and js["after_acceleration"] == 4


@pytest.mark.parametrize("vt,expected", [(1.0, "SR"), (-1.0, "SL"), (0.0, "FSLR")])
def test_table_iii_tangential(vt, expected):
    assert velocity_allowed(point_on_ground(v=(vt, 0.0))) == [expected]


def test_moving_right_keeps_s_and_r():
    en = enumerate_modes(point_on_ground(v=(1.0, 0.0)))
    assert en.after_velocity == 2
    assert en.modes == ["S", "R"]
    assert en.graph.has_edge("S", "R")


def test_separating_velocity_only_s():
    s = point_on_ground(v=(0.3, 0.2))
    assert velocity_allowed(s) == ["S"]
    # S with v_n > 0 imposes no acceleration constraint at all
    E, e, G, g = acceleration_rows(s, "S")
    assert E.shape == (0, 2) and G.shape == (0, 2)
    assert enumerate_modes(s).modes == ["S"]


def test_sliding_with_velocity_has_no_tangential_acceleration_row():
    s = point_on_ground(v=(-1.0, 0.0))
    E, e, G, g = acceleration_rows(s, "L")
    np.testing.assert_allclose(E, [[0.0, 1.0]])
    assert G.shape[0] == 0
    E, e, G, g = acceleration_rows(point_on_ground(), "L")
    np.testing.assert_allclose(G, [[-1.0, 0.0]])  # −ẍ_t >= 0


def test_approaching_contact_raises_naming_contact():
    with pytest.raises(ApproachingContactError, match="ground"):
        velocity_allowed(point_on_ground(v=(0.0, -0.1)))
    with pytest.raises(ApproachingContactError, match="ground"):
        enumerate_modes(point_on_ground(v=(0.0, -0.1)))


def test_v0_threshold_disables_pruning():
    # |v_t| < v0: nothing pruned; |v_n| < v0: normal counts as zero (no error, not S-only)
    assert velocity_allowed(point_on_ground(v=(0.05, 0.0), v0=[0.1])) == ["FSLR"]
    assert velocity_allowed(point_on_ground(v=(0.05, -0.05), v0=[0.1])) == ["FSLR"]
    assert velocity_allowed(point_on_ground(v=(0.0, 0.05), v0=[0.1])) == ["FSLR"]
    assert velocity_allowed(point_on_ground(v=(0.5, 0.0), v0=[0.1])) == ["SR"]
    with pytest.raises(ApproachingContactError):
        velocity_allowed(point_on_ground(v=(0.0, -0.5), v0=[0.1]))


def test_tiny_velocities_count_as_zero():
    assert velocity_allowed(point_on_ground(v=(1e-14, -1e-14))) == ["FSLR"]


def test_footnote5_strict_inequalities_floor_and_ceiling():
    """Hand table: floor gives ẍ_t1 = ẍ, ẍ_n1 = ÿ; ceiling ẍ_t2 = −ẍ, ẍ_n2 = −ÿ.

    S at either contact needs ÿ ≠ 0 strictly, which contradicts every mode of the other contact
    (S needs the opposite sign, F/L/R need ÿ = 0). F fixes ẍ = 0, so only FF among F-pairs;
    L at the floor (ẍ < 0) matches R at the ceiling (−ẍ > 0), and R/L symmetrically.
    With non-strict inequalities SF, FS, LF, ... would all wrongly survive (ÿ = 0, ẍ = 0).
    """
    s = point_between_floor_and_ceiling()
    en = enumerate_modes(s)
    assert (en.total, en.after_velocity) == (16, 16)
    assert en.modes == ["FF", "LR", "RL"]
    assert en.after_acceleration == 3
    assert en.graph.number_of_edges() == 0
    for mode in ("SF", "FS", "SS", "LF", "FL", "LL", "RR", "SL"):
        assert not acceleration_feasible(s, mode), mode
    for mode in ("FF", "LR", "RL"):
        assert acceleration_feasible(s, mode), mode


def test_footnote5_single_point_all_modes():
    s = point_on_ground()
    for mode in "FSLR":
        assert acceleration_feasible(s, mode)


def test_jdot_qdot_shifts_strict_rows():
    # ẍ_n = ÿ + c with c = +1: S needs ÿ > −1, F needs ÿ = −1: both feasible; with a second contact
    # fixing ÿ = 0 (a physical-like duplicate row with c = 0) S becomes feasible (0 + 1 > 0)
    J = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    s = ContactSystem(
        M=np.eye(2), h=[0.0, 9.81], S=np.eye(2), J=J, Jdot_qdot=[0.0, 1.0, 0.0, 0.0],
        v_contact=np.zeros(4), mu=[0.5, 0.5], coordinates=["x", "y"], torques=["a", "b"],
        contacts=["c1", "c2"],
    )
    assert acceleration_feasible(s, "SF")       # ÿ = 0 (c2 fixed) gives ẍ_n1 = 1 > 0
    assert not acceleration_feasible(s, "FF")   # ÿ = −1 and ÿ = 0 contradict
    assert not acceleration_feasible(s, "FS")   # ÿ = −1 and ẍ_n2 = ÿ > 0 contradict


def test_no_materialization_with_many_separating_contacts():
    k = 12
    rng = np.random.default_rng(0)
    J = rng.normal(size=(2 * k, 2))
    v = np.tile([0.0, 1.0], k)
    s = ContactSystem(
        M=np.eye(2), h=[0.0, 9.81], S=np.eye(2), J=J, Jdot_qdot=np.zeros(2 * k), v_contact=v,
        mu=np.full(k, 0.5), coordinates=["x", "y"], torques=["a", "b"],
        contacts=[f"c{i}" for i in range(k)],
    )
    en = enumerate_modes(s)
    assert en.total == 4 ** k
    assert en.after_velocity == 1 and en.modes == ["S" * k]


def test_invalid_mode_rejected():
    s = point_on_ground()
    for bad in ("X", "FF", "", "f"):
        with pytest.raises(ContactModelError, match="mode"):
            acceleration_feasible(s, bad)


def test_all_modes_order():
    assert all_modes(1) == ["F", "S", "L", "R"]
    assert all_modes(2)[:5] == ["FF", "FS", "FL", "FR", "SF"]


def test_enumeration_progress_is_one_stage_step_per_contact():
    """The enumeration reports through the one progress protocol (a ``Progress`` stage, as every
    long stage does): one line per contact assigned, ``k`` of ``k`` at the end."""
    import io

    from _support.chains import zigzag_chain
    from contactmodes.progress import Progress
    from contactmodes.system_file.loader import parse_system

    system = parse_system(zigzag_chain(5)).system
    shown = io.StringIO()
    enum = enumerate_modes(system, progress=Progress(after=0.0, every=0.0, stream=shown))
    lines = shown.getvalue().splitlines()
    assert [ln.split(" (")[0] for ln in lines] == [f"contactmodes: enumerating modes {i}/5" for i in range(1, 6)]
    assert lines[-1].endswith(f"{len(enum.modes)} prefixes)")
