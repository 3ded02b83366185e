"""Torque-domain pictures: what is drawn where (read back from the matplotlib artists)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contactmodes.analysis import analyze
from contactmodes.io import load_system
from contactmodes.plot import PlotData, draw_domains, slice_domain
from hand_systems import point_between_floor_and_ceiling
from polytopes import Polytope

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _rectangles(ax):
    from matplotlib.patches import Rectangle

    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_one_torque_bars_match_the_table_domains():
    system = load_system(EXAMPLES / "table_two_legs.toml").system
    result = analyze(system, compute_overlaps=False)
    domains = {m: result.modes[m].T for m in result.feasible_modes()}
    box = (np.array([-20.0]), np.array([20.0]))
    fig = draw_domains(PlotData(["Fx"], domains, {}, [], box, "table"))
    ax = fig.axes[0]
    filled = [r for r in _rectangles(ax) if r.get_fill()]
    spans = sorted((round(r.get_x(), 6), round(r.get_x() + r.get_width(), 6)) for r in filled)
    # hand values (mu m g = 9.81): LL = [-20, -9.81], FF = [-9.81, 9.81], RR = [9.81, 20] after clipping
    assert spans == [(-20.0, -9.81), (-9.81, 9.81), (9.81, 20.0)]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(domains)


def test_two_torques_polygons_and_inconsistent_shading(tmp_path):
    system = point_between_floor_and_ceiling()
    result = analyze(system, compute_overlaps=False)
    domains = {m: result.modes[m].T for m in result.feasible_modes()}
    box = (np.array([-30.0, -30.0]), np.array([30.0, 30.0]))
    hole = Polytope(np.vstack([np.eye(2), -np.eye(2)]), np.array([1.0, 1.0, 1.0, 1.0]))
    fig = draw_domains(PlotData(["fx", "fy"], domains, {}, [hole], box, "point"))
    out = tmp_path / "p.png"
    fig.savefig(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax = fig.axes[0]
    assert ax.get_xlim() == (-30.0, 30.0)
    reds = [p for p in ax.patches if p.get_facecolor()[0] == 1.0 and p.get_facecolor()[1] == 0.0]
    assert reds, "the inconsistent piece must be shaded"


def test_slice_through_a_point():
    # T = unit cube in 3-D; the slice at z = 0.5 onto (x, y) is the unit square.
    cube = Polytope(np.vstack([np.eye(3), -np.eye(3)]), np.array([1, 1, 1, 0, 0, 0.0]))
    square = slice_domain(cube, [0, 1], np.array([0.0, 0.0, 0.5]))
    assert square.equals(Polytope(np.vstack([np.eye(2), -np.eye(2)]), np.array([1, 1, 0, 0.0])))
    assert slice_domain(cube, [0, 1], np.array([0.0, 0.0, 2.0])) is None
