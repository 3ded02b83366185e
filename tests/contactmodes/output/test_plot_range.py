"""The default plotting range of ``contactmodes plot`` (``contactmodes.cli.plot``): the file's
``[control]`` torque limits when they bound the drawn torques (issue 39: a biped's sets drawn
over ±4000 N·m, hiding the desired mode, when its actuators give ±60 N·m).

Oracles: the limits by hand (±60 N·m widened by 15 % of their width, ±78 N·m); the slice point
checked inside ``T_FF`` by the independent per-mode LP (``_support.oracle.oracle_slack``) and
inside the limits; the desired mode's drawn region measured in the box.
"""

from __future__ import annotations

import numpy as np
import pytest

from _support.oracle import oracle_slack
from _support.paths import DATA, EXAMPLES

from contactmodes.cli import build_parser
from contactmodes.cli.plot import LIMIT_MARGIN, plot_data
from contactmodes.system_file.loader import load_system_file

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def biped(tmp_path_factory):
    """The shared biped case at rest (its file lands at 1 m/s: an approaching contact, which the
    analysis refuses without an impact law)."""
    text = (DATA / "cases" / "biped_land.toml").read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("biped") / "biped_rest.toml"
    path.write_text(text.replace("qdot = { x = 0.3, y = -1.0 }", "qdot = {}"), encoding="utf-8")
    return path


def _data(path, *extra):
    return plot_data(build_parser().parse_args(["plot", str(path), "--output", "x.png", *extra]))


def test_the_range_is_the_files_torque_limits(biped):
    data = _data(biped)
    assert LIMIT_MARGIN == 0.15
    np.testing.assert_allclose(data.box[0], [-78.0, -78.0])
    np.testing.assert_allclose(data.box[1], [78.0, 78.0])
    np.testing.assert_array_equal(data.limits[0], [-60.0, -60.0])
    np.testing.assert_array_equal(data.limits[1], [60.0, 60.0])
    assert "range: the file's [control] torque limits (dashed)" in data.caption


def test_the_slice_passes_through_the_desired_mode_within_the_limits(biped):
    """The held torques (hip_r, knee_r) are those of a point of ``T_FF`` within ±60 N·m: with the
    drawn ones, the slice point is inside ``T_FF`` by the oracle, and FF covers a good part of
    the box (it was a few pixels at ±4000 N·m)."""
    data = _data(biped)
    assert "within the torque limits" in " ".join(data.title.split())
    system = load_system_file(biped).system
    held = [float(v.split(" = ")[1].split()[0]) for v in data.title.split(":")[-1].split(",")]
    assert all(abs(v) <= 60.0 for v in held)
    ff = data.domains["FF"]
    from contactmodes.output.plot import _clip

    inside = _clip(ff, data.box)
    V = inside.vertices().vertices
    x, y = V[:, 0], V[:, 1]
    order = np.argsort(np.arctan2(y - y.mean(), x - x.mean()))
    area = 0.5 * abs(np.dot(x[order], np.roll(y[order], 1)) - np.dot(y[order], np.roll(x[order], 1)))
    assert area > 0.2 * 156.0 ** 2
    centre = np.asarray(ff.chebyshev_center().center)
    point = np.concatenate([centre, held])  # torque order: hip_l, knee_l, hip_r, knee_r
    assert oracle_slack(system, "FF", point) > 1e-6


def test_box_overrides_and_the_limits_stay_drawn(biped):
    data = _data(biped, "--box", "-10:10,-20:20")
    np.testing.assert_array_equal(data.box[0], [-10.0, -20.0])
    assert data.limits is not None and "range:" not in data.caption


def test_without_limits_the_range_follows_the_sets():
    """The two-link brace has no ``[control]`` table: the former rule (finite bounds of the sets
    widened by 25 %, an unbounded side one width more), no limit lines."""
    data = _data(EXAMPLES / "two_link_brace.toml")
    assert data.limits is None
    hi = 0.0   # the sets' finite ends: -0.1926 and 0 (FFF <= -0.1926, SSS >= 0, LLR [-0.1926, 0])
    lo = -0.19257
    width = max(hi - lo, 1.0)
    assert data.box[0][0] == pytest.approx(lo - 1.25 * width, abs=1e-3)
    assert data.box[1][0] == pytest.approx(hi + 1.25 * width, abs=1e-3)


def test_the_png_shows_the_limits_in_its_legend(biped, tmp_path):
    import matplotlib.pyplot as plt

    from contactmodes.output.plot import draw_domains

    fig = draw_domains(_data(biped))
    try:
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert "torque limits ([control])" in labels
        dashed = [l for l in fig.axes[0].get_lines() if l.get_linestyle() == "--"]
        assert len(dashed) == 4
    finally:
        plt.close(fig)
