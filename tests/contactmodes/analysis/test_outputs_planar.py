"""Outputs onto two coordinates of many modes (``contactmodes.analysis.outputs.planar_outputs``,
the batched sweep) are the sets of the per-mode projection (``mode_outputs``) on spatial systems:
the box on its slope and Solo-12 standing on two of its feet (its 100 modes)."""

from __future__ import annotations


import numpy as np
import pytest

from _support.paths import EXAMPLES
from _support.robots import solo_on_feet

import contactmodes as cm
from contactmodes.analysis.outputs import mode_outputs, output_spec, planar_outputs
from contactmodes.analysis.session import AnalysisSession

pytest.importorskip("pinocchio")


def two_feet(tmp_path):
    """Solo-12 standing on its FL and HR feet only (the example file with two contacts)."""
    return cm.load_system(solo_on_feet(tmp_path, ("FL", "HR")))


def compare(system, outputs: str) -> int:
    s = AnalysisSession(system)
    feasible = s.feasible_modes(True)
    spec = output_spec(system, outputs)
    fast = planar_outputs(s, feasible, spec)
    for m, o in fast.items():
        ref = mode_outputs(s.mode(m), spec)
        assert o.set.equals(ref.set), m
        assert np.array_equal(o.determined, ref.determined)
    return len(fast)


@pytest.mark.parametrize("outputs", ["qdd.z, qdd.wy", "qdd.x, f.FL.n + f.HR.n", "tau.FL_HFE, qdd.z"])
def test_two_feet_of_solo_sweep_equals_the_per_mode_projection(tmp_path, outputs):
    system = two_feet(tmp_path)
    assert compare(system, outputs) >= 90  # nearly every one of the 100 modes certified by the sweep


def test_box_on_slope_and_the_front_door_agree():
    path = EXAMPLES / "spatial" / "box_on_slope.toml"
    compare(cm.load_system(path), "qdd.x, qdd.z")
    r = cm.analyze(path, outputs="qdd.x, qdd.z", compute_overlaps=False)
    s = AnalysisSession(cm.load_system(path))
    for m, o in r.outputs.items():
        ref = mode_outputs(s.mode(m), output_spec(s.system, "qdd.x, qdd.z"))
        assert (o.set is None) == (ref.set is None) and (o.set is None or o.set.equals(ref.set))


def test_the_front_door_caps_the_overlap_lps_as_the_command_line_does(tmp_path):
    """``cm.analyze`` with its defaults on Solo-12 standing on three feet (10^3 modes, some 5·10^5
    candidate pairs): counted, not tested (before: every pair's LP, minutes without progress)."""
    from contactmodes.analysis.analyze import OVERLAP_LIMIT
    from contactmodes.cli import OVERLAP_LP_LIMIT

    assert OVERLAP_LIMIT == OVERLAP_LP_LIMIT
    system = two_feet(tmp_path)  # two feet: 4950 pairs at most, under the limit: tested
    r2 = cm.analyze(system)
    assert r2.overlaps is not None
    text = (EXAMPLES / "spatial" / "solo12_standing.toml").read_text(encoding="utf-8")
    text = text.replace('urdf = "solo12.urdf"', f'urdf = "{(EXAMPLES / "spatial" / "solo12.urdf").as_posix()}"')
    head, *contacts = text.split("[[contacts]]")
    last = contacts[-1]
    state = last[last.index("[state.q]"):]
    contacts[-1] = last[:last.index("[state.q]")]
    path = tmp_path / "solo_three_feet.toml"
    path.write_text(head + "".join("[[contacts]]" + c for c in contacts[:3]) + state, encoding="utf-8")
    r3 = cm.analyze(path)
    assert r3.overlaps is None and r3.candidate_pairs > OVERLAP_LIMIT
