"""Torque-domain pictures: what is drawn where (read back from the matplotlib artists).

Colour distances are computed with colour-science's CIEDE2000 (an implementation independent of
ours, checked on a published test pair); geometry is compared with hand-made sets.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from _support.paths import EXAMPLES
from contactmodes.analysis.analyze import analyze
from contactmodes.cli import build_parser
from contactmodes.cli.plot import plot_data
from contactmodes.system_file.loader import load_system_file
from contactmodes.model.mechanism import PlanarMechanism
from contactmodes.output.plot import (
    CUES, FILL_ALPHA, INCONSISTENT_ALPHA, INCONSISTENT_COLOUR, PALETTE, POINT_SIZE, SEGMENT_WIDTH, PlotData,
    draw_domains, mode_style, slice_domain, torque_units,
)
from _support.systems import point_between_floor_and_ceiling
from polytopes import Polytope


#: requirements on the palette (the numbers of the module docstring of contactmodes.output.plot)
MIN_PAIR_DE = 10.0      # any two modes with the same cue, solid and as fills
MIN_RED_DE = 35.0       # a mode colour and the inconsistency red, solid
MIN_RED_FILL_DE = 22.0  # a mode's fill and the red shading, as drawn on white


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _lab(rgb):
    colour = pytest.importorskip("colour")
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(np.asarray(rgb, dtype=float)))


def _de(a, b):
    import colour

    return colour.delta_E(a, b, method="CIE 2000")


def _on_white(rgb, alpha):
    return alpha * np.asarray(rgb, dtype=float)[..., :3] + (1.0 - alpha)


def _rgb(c):
    from matplotlib.colors import to_rgb

    return np.array(to_rgb(c))


def _square(x, y, side=1.0):
    return Polytope.box([x, y], [x + side, y + side])


def _segment(p, q):
    """The segment from p to q (2-D), as an H-polytope with one equality."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    d = q - p
    n = np.array([-d[1], d[0]])
    A = np.vstack([d, -d])
    return Polytope(A, np.array([d @ q, -(d @ p)]), n[None, :], np.array([n @ p]))


def _point(p):
    return Polytope(np.zeros((0, 2)), np.zeros(0), np.eye(2), np.asarray(p, float))


def _args(*argv):
    return build_parser().parse_args(["plot", *argv, "--output", "unused.png"])


# ---- colours ---------------------------------------------------------------------------------------


def test_ciede2000_oracle_reproduces_a_published_pair():
    # Sharma, Wu & Dalal (2005), test data pair 1: ΔE00 = 2.0425
    pytest.importorskip("colour")
    assert _de(np.array([50.0, 2.6772, -79.7751]), np.array([50.0, 0.0, -82.7485])) == pytest.approx(2.0425, abs=1e-4)


@pytest.mark.parametrize("n_modes", [40, 20 * len(CUES)])
def test_mode_styles_are_distinct_for_many_modes(n_modes):
    styles = [mode_style(i) for i in range(n_modes)]
    assert len({(s.colour, s.hatch, s.marker) for s in styles}) == n_modes
    solid = _lab(np.array([_rgb(s.colour) for s in styles]))
    fill = _lab(_on_white(np.array([_rgb(s.colour) for s in styles]), FILL_ALPHA))
    worst = np.inf
    for i, j in itertools.combinations(range(n_modes), 2):
        if styles[i].hatch == styles[j].hatch and styles[i].marker == styles[j].marker:
            worst = min(worst, _de(solid[i], solid[j]), _de(fill[i], fill[j]))
    assert worst >= MIN_PAIR_DE


def test_no_mode_colour_is_close_to_the_inconsistency_red():
    red = _rgb(INCONSISTENT_COLOUR)
    palette = np.array([_rgb(c) for c in PALETTE])
    assert np.min(_de(_lab(palette), _lab(red))) >= MIN_RED_DE
    shading = _lab(_on_white(red, INCONSISTENT_ALPHA))
    assert np.min(_de(_lab(_on_white(palette, FILL_ALPHA)), shading)) >= MIN_RED_FILL_DE
    lightness = _lab(palette)[:, 0]
    assert np.all((lightness >= 30) & (lightness <= 72))  # lines show on white, unlike black outlines


def _many_modes(n):
    """n unit squares in a row of a grid, named M00, M01, …"""
    return {f"M{i:02d}": _square(2.0 * (i % 9), 2.0 * (i // 9)) for i in range(n)}


def test_forty_five_drawn_modes_are_told_apart_and_the_legend_is_outside():
    from matplotlib.patches import Polygon

    domains = _many_modes(45)
    box = (np.array([-1.0, -1.0]), np.array([18.0, 10.0]))
    fig = draw_domains(PlotData(["a", "b"], domains, {}, [], box, "many"))
    ax = fig.axes[0]
    fills = [p for p in ax.patches if isinstance(p, Polygon) and p.get_fill()]
    assert len(fills) == 45
    looks = [(tuple(np.round(p.get_facecolor(), 6)), p.get_hatch() or "") for p in fills]
    assert len(set(looks)) == 45
    drawn = _lab(np.array([_on_white(np.array(f), f[3]) for (f, _) in looks]))
    for i, j in itertools.combinations(range(45), 2):
        if looks[i][1] == looks[j][1]:
            assert _de(drawn[i], drawn[j]) >= MIN_PAIR_DE
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()][:45] == list(domains)
    _assert_legend_outside(fig, ax)


def _assert_legend_outside(fig, ax):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    lb = ax.get_legend().get_window_extent(renderer)
    axb = ax.get_window_extent(renderer)
    assert lb.x0 >= axb.x1, "the legend must not cover the data area"
    assert lb.x1 <= fig.bbox.x1 + 1 and lb.y0 >= fig.bbox.y0 - 1, "the legend must fit in the figure"


# ---- units, titles, slices -------------------------------------------------------------------------


def test_torque_units_follow_the_actuated_coordinate():
    assert torque_units(load_system_file(EXAMPLES / "table_two_legs.toml").mechanism) == {"Fx": "N"}
    assert torque_units(load_system_file(EXAMPLES / "painleve_rod.toml").mechanism) == {"M": "N·m"}
    assert torque_units(load_system_file(EXAMPLES / "rhex_flip_start.toml").mechanism) == {
        "tau1": "N·m", "tau2": "N·m", "tau3": "N·m"}
    floating = PlanarMechanism(base="floating")
    floating.add_link("body", mass=1.0, inertia=0.1)
    floating.add_link("arm", parent="body", joint="q", joint_position=(1.0, 0.0), mass=1.0, inertia=0.1)
    for name, coordinate in [("fx", "x"), ("fy", "y"), ("moment", "theta"), ("tq", "q")]:
        floating.add_actuator(name, coordinate)
    assert torque_units(floating) == {"fx": "N", "fy": "N", "moment": "N·m", "tq": "N·m"}
    # a fixed base's root coordinate is a revolute joint, whatever its name
    fixed = PlanarMechanism(base="fixed")
    fixed.add_link("root", joint="x", mass=1.0, inertia=0.1)
    fixed.add_actuator("t", "x")
    assert torque_units(fixed) == {"t": "N·m"}


def test_axis_labels_carry_units():
    data = plot_data(_args(str(EXAMPLES / "table_two_legs.toml")))
    fig = draw_domains(data)
    assert fig.axes[0].get_xlabel() == "Fx (N)"
    data = plot_data(_args(str(EXAMPLES / "rhex_flip_start.toml"), "--torques", "tau1,tau3"))
    ax = draw_domains(data).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("tau1 (N·m)", "tau3 (N·m)")


def test_title_states_the_default_slice_through_the_chebyshev_centre():
    path = EXAMPLES / "rhex_flip_start.toml"
    data = plot_data(_args(str(path)))
    assert "slice through the Chebyshev centre of T_FFFF" in data.title
    value = float(re.search(r"tau3 = (\S+) N·m", data.title).group(1))
    T = analyze(load_system_file(path).system, modes=["FFFF"], compute_overlaps=False).modes["FFFF"].T
    lo, hi = T.bounding_box()
    assert lo[2] < value < hi[2]  # strictly inside the set's range of tau3: the slice meets its middle
    assert data.domains["FFFF"].affine_dimension() == 2
    # the stated value (4 digits) slices T_FFFF like the exact point does
    stated = slice_domain(T, [0, 1], np.array([0.0, 0.0, value]))
    assert stated.affine_dimension() == 2
    a, b = stated.bounding_box(), data.domains["FFFF"].bounding_box()
    assert np.allclose(a, b, rtol=0, atol=2e-3 * (hi[:2] - lo[:2]).max())


def test_title_states_an_explicit_slice_and_at_takes_held_or_all_values():
    path = str(EXAMPLES / "rhex_flip_start.toml")
    held = plot_data(_args(path, "--at", "6"))
    full = plot_data(_args(path, "--at", "-7,99,6"))  # the drawn torques' values are not used
    assert "slice at --at: tau3 = 6 N·m" in held.title
    assert list(held.domains) == list(full.domains) and held.domains
    for m in held.domains:
        assert held.domains[m].equals(full.domains[m])
    # independent check of one slice: membership of grid points against the 3-D set itself
    T = analyze(load_system_file(path).system, modes=["FFFF"], compute_overlaps=False).modes["FFFF"].T
    S = held.domains["FFFF"]
    lo, hi = S.bounding_box()
    for u in np.linspace(lo[0] - 0.3, hi[0] + 0.3, 9) + 0.0137:
        for v in np.linspace(lo[1] - 0.3, hi[1] + 0.3, 9) + 0.0071:
            assert bool(S.contains(np.array([u, v]))) == bool(T.contains(np.array([u, v, 6.0])))
    two = plot_data(_args(str(EXAMPLES / "table_two_legs.toml")))
    assert "slice" not in two.title


def test_lone_at_value_on_a_fully_drawn_system_is_a_user_error():
    from contactmodes.errors import ContactModelError

    with pytest.raises(ContactModelError, match="--at"):
        plot_data(_args(str(EXAMPLES / "table_two_legs.toml"), "--at", "1"))
    with pytest.raises(ContactModelError, match="--at: expected 3 values"):
        plot_data(_args(str(EXAMPLES / "rhex_flip_start.toml"), "--at", "1,2"))


# ---- lower-dimensional sets ------------------------------------------------------------------------


def _lines(ax):
    return [ln for ln in ax.get_lines() if len(ln.get_xdata())]


def test_segments_and_points_are_drawn_thick_and_coincident_ones_all_show():
    domains = {
        "AREA": _square(0.0, 0.0, 2.0),
        "SEG": _segment((3.0, 0.0), (3.0, 4.0)),
        "DOT": _point((5.0, 5.0)),
        "TWIN1": _segment((-1.0, -1.0), (4.0, -1.0)),
        "TWIN2": _segment((-1.0, -1.0), (4.0, -1.0)),
    }
    box = (np.array([-2.0, -2.0]), np.array([6.0, 6.0]))
    fig = draw_domains(PlotData(["a", "b"], domains, {}, [], box, "low"))
    ax = fig.axes[0]
    colour = {m: mode_style(i).colour for i, m in enumerate(domains)}
    from matplotlib.colors import to_hex

    def thick(mode):
        return [ln for ln in _lines(ax) if to_hex(ln.get_color()) == colour[mode] and ln.get_linestyle() != "None"]

    seg = thick("SEG")
    assert len(seg) == 1 and seg[0].get_linewidth() >= SEGMENT_WIDTH >= 4
    ends = sorted(zip(seg[0].get_xdata(), seg[0].get_ydata()))
    assert np.allclose(ends, [(3.0, 0.0), (3.0, 4.0)])
    dots = [ln for ln in _lines(ax) if to_hex(ln.get_color()) == colour["DOT"]]
    assert len(dots) == 1 and dots[0].get_marker() not in ("None", "", None)
    assert dots[0].get_markersize() >= POINT_SIZE >= 8
    assert np.allclose([dots[0].get_xdata()[0], dots[0].get_ydata()[0]], [5.0, 5.0])
    t1, t2 = thick("TWIN1"), thick("TWIN2")
    assert len(t1) == len(t2) == 1
    _assert_legend_outside(fig, ax)
    # the same segment twice: both colours must show along it in the rendered image
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255.0
    xs = np.linspace(-0.8, 3.8, 200)
    pixels = ax.transData.transform(np.column_stack([xs, np.full_like(xs, -1.0)]))
    rows = (image.shape[0] - pixels[:, 1]).astype(int)
    seen = image[rows, pixels[:, 0].astype(int)]
    for mode in ("TWIN1", "TWIN2"):
        share = np.mean(np.all(np.abs(seen - _rgb(colour[mode])) < 0.06, axis=1))
        assert share > 0.25, f"{mode} covers only {share:.0%} of the shared segment"


def test_a_point_in_a_one_torque_picture_gets_a_marker_and_bars_are_thick():
    line = {"BAR": Polytope(np.array([[1.0], [-1.0]]), np.array([3.0, 1.0])),
            "PT": Polytope(np.zeros((0, 1)), np.zeros(0), np.ones((1, 1)), np.array([2.0]))}
    fig = draw_domains(PlotData(["f"], line, {}, [], (np.array([-5.0]), np.array([5.0])), "1-D", units=["N"]))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "f (N)"
    markers = [ln for ln in _lines(ax) if ln.get_marker() not in ("None", "", None)]
    assert len(markers) == 1 and markers[0].get_xdata()[0] == pytest.approx(2.0)
    assert markers[0].get_markersize() >= 8
    bar = [r for r in _rectangles(ax) if r.get_fill()]
    assert len(bar) == 1 and (bar[0].get_x(), bar[0].get_width()) == pytest.approx((-1.0, 4.0))
    assert bar[0].get_height() >= 0.5  # half a row at least
    _assert_legend_outside(fig, ax)


def test_six_link_brace_default_slice_draws_the_segment_visibly():
    data = plot_data(_args(str(EXAMPLES / "six_link_brace.toml")))
    assert data.domains["FFF"].affine_dimension() == 1  # FFF with q̈ = 0: a segment in this slice
    fig = draw_domains(data)
    from matplotlib.colors import to_hex

    fff = data.styles()["FFF"].colour
    lines = [ln for ln in _lines(fig.axes[0]) if to_hex(ln.get_color()) == fff and ln.get_linestyle() != "None"]
    assert lines and lines[0].get_linewidth() >= 4
    lo, hi = data.domains["FFF"].bounding_box()
    xs, ys = lines[0].get_xdata(), lines[0].get_ydata()
    assert np.allclose(sorted(xs), [lo[0], hi[0]]) and np.allclose(sorted(ys), [lo[1], hi[1]])


# ---- 1-D pictures: unbounded sides and the values of the ends ---------------------------------------


def _display(ax, xy, coords):
    """``xy`` given in an annotation's ``coords`` ("data", "axes fraction" or a Transform), in pixels."""
    from matplotlib.transforms import Transform

    tr = {"data": ax.transData, "axes fraction": ax.transAxes}.get(coords) if isinstance(coords, str) else coords
    assert isinstance(tr, Transform), f"unexpected annotation coordinates {coords!r}"
    return tr.transform(np.asarray(xy, dtype=float))


def _arrows_and_labels(fig, ax):
    """(arrows, labels) read back from the artists: arrows as (row, side, head_px, tail_px) with
    side "low"/"high" by the axis edge the head touches (None: at neither), labels as
    (row, value, anchor_x) for every text artist that is not an arrow, the value parsed."""
    from matplotlib.text import Annotation

    fig.canvas.draw()
    rows = [t.get_text() for t in ax.get_yticklabels()]
    left, right = ax.transAxes.transform([(0.0, 0.0), (1.0, 0.0)])[:, 0]
    row_of = {round(float(ax.transData.transform((0.0, r))[1]), 1): rows[r] for r in range(len(rows))}
    arrows, labels = [], []
    for t in ax.texts:
        if isinstance(t, Annotation) and t.arrow_patch is not None:
            head = _display(ax, t.xy, t.xycoords)
            tail = _display(ax, t.xyann, t.anncoords)
            side = "low" if abs(head[0] - left) < 1.0 else "high" if abs(head[0] - right) < 1.0 else None
            arrows.append((row_of[round(float(head[1]), 1)], side, head, tail))
        else:
            assert isinstance(t, Annotation), "a 1-D label must be anchored at the end it names"
            anchor = _display(ax, t.xy, t.xycoords)
            labels.append((row_of[round(float(anchor[1]), 1)], float(t.get_text().replace("\u2212", "-")),
                           float(ax.transData.inverted().transform(anchor)[0])))
    return arrows, labels


def _ends_from_json(path: Path) -> dict[str, tuple[float, float]]:
    """Each feasible mode's interval (lo, hi) (±inf when unbounded), straight from the analysis
    JSON's H-representation of a 1-torque ``T_c``: ``a x <= b`` rows and ``c x = d`` rows."""
    import json

    ends = {}
    for m in json.loads(path.read_text())["modes"]:
        if not m["feasible"]:
            continue
        P = m["torque_domain"]
        lo, hi = -np.inf, np.inf
        for (a,), b in zip(P["A"], P["b"]):
            if a > 0:
                hi = min(hi, b / a)
            elif a < 0:
                lo = max(lo, b / a)
        for (c,), d in zip(P["C"], P["d"]):
            lo, hi = max(lo, d / c), min(hi, d / c)
        ends[m["mode"]] = (lo, hi)
    return ends


def test_two_link_brace_plot_arrows_its_unbounded_sides_and_labels_its_thresholds(tmp_path):
    from contactmodes.cli import main

    out = tmp_path / "a.json"
    assert main(["analyze", str(EXAMPLES / "two_link_brace.toml"), "--json", "--output", str(out)]) == 0
    ends = _ends_from_json(out)
    assert ends["FFF"][0] == -np.inf and ends["FFF"][1] == pytest.approx(-0.1926, abs=5e-5)  # the table's "<=-0.1926"
    assert ends["SSS"] == (pytest.approx(0.0, abs=1e-12), np.inf)
    data = plot_data(_args(str(EXAMPLES / "two_link_brace.toml")))  # what `contactmodes plot` draws
    fig = draw_domains(data)
    ax = fig.axes[0]
    arrows, labels = _arrows_and_labels(fig, ax)
    unbounded = {(m, side) for m, (lo, hi) in ends.items() for side, v in (("low", lo), ("high", hi))
                 if not np.isfinite(v)}
    assert unbounded == {("FFF", "low"), ("SSS", "high")}
    assert sorted((m, side) for m, side, _, _ in arrows) == sorted(unbounded)  # one arrow each, nowhere else
    for m, side, head, tail in arrows:  # the head at the edge, pointing out of the axes
        assert (tail[0] > head[0]) if side == "low" else (tail[0] < head[0])
        assert abs(tail[1] - head[1]) < 0.5  # horizontal, along the mode's row
    # every finite end labelled once on its row, at the end, with its value to three digits
    expected = sorted((m, v) for m, (lo, hi) in ends.items() for v in sorted({lo, hi}) if np.isfinite(v))
    assert len(labels) == len(expected)
    got = sorted((m, value, x) for m, value, x in labels)
    for (m, v), (gm, value, x) in zip(expected, got):
        assert gm == m
        assert value == pytest.approx(v, rel=5e-3, abs=1e-9)
        assert x == pytest.approx(v, abs=1e-9)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("\u22120.193") == 2 and "0.193" not in texts  # FFF's upper and LLR's lower end
    assert any("unbounded" in t.get_text() and "∞" in t.get_text() for t in ax.get_legend().get_texts())


def test_one_torque_ends_past_a_narrow_box_get_an_arrow_and_their_value_at_its_tail():
    one_side = Polytope(np.array([[1.0]]), np.array([-1.0]))             # x <= -1, unbounded below
    wide = Polytope(np.array([[1.0], [-1.0]]), np.array([8.0, 3.0]))     # [-3, 8]: past both edges of the box
    inside = Polytope(np.array([[1.0], [-1.0]]), np.array([2.5, -0.5]))  # [0.5, 2.5]
    box = (np.array([-2.0]), np.array([4.0]))
    fig = draw_domains(PlotData(["f"], {"A": one_side, "B": wide, "C": inside}, {}, [], box, "narrow box"))
    ax = fig.axes[0]
    arrows, labels = _arrows_and_labels(fig, ax)
    assert sorted((m, side) for m, side, _, _ in arrows) == [("A", "low"), ("B", "high"), ("B", "low")]
    # A's -1 beside its end; B's ends -3 and 8, outside the box, at the tails of its arrows; C's both ends
    assert sorted((m, v) for m, v, _ in labels) == [("A", -1.0), ("B", -3.0), ("B", 8.0), ("C", 0.5), ("C", 2.5)]
    tails = {side: tail for m, side, _, tail in arrows if m == "B"}
    for m, v, x in labels:
        if m == "B":  # anchored at the tail of the arrow on its side, inside the axes
            side = "low" if v < 0 else "high"
            assert x == pytest.approx(float(ax.transData.inverted().transform(tails[side])[0]), abs=1e-9)
            assert box[0][0] < x < box[1][0]
        else:
            assert x == pytest.approx(v)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("past the axis edge" in t and "∞" in t for t in legend)


# ---- earlier behaviour -----------------------------------------------------------------------------


def _rectangles(ax):
    from matplotlib.patches import Rectangle

    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_one_torque_bars_match_the_table_domains():
    system = load_system_file(EXAMPLES / "table_two_legs.toml").system
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


def test_overlapping_inconsistent_pieces_are_shaded_once():
    from matplotlib.patches import PathPatch

    pieces1 = [Polytope(np.array([[1.0], [-1.0]]), np.array([1.0, 3.0])),   # [-3, 1]
               Polytope(np.array([[1.0], [-1.0]]), np.array([2.0, 0.0]))]   # [0, 2]
    mode = {"X": Polytope(np.array([[1.0], [-1.0]]), np.array([4.0, -3.0]))}  # [3, 4]
    ax = draw_domains(PlotData(["f"], mode, {}, pieces1, (np.array([-5.0]), np.array([5.0])))).axes[0]
    spans = [p for p in ax.patches if p.get_facecolor()[:3] == (1.0, 0.0, 0.0)]
    assert len(spans) == 1
    xs = spans[0].get_patch_transform().transform(spans[0].get_path().vertices)[:, 0]
    assert (xs.min(), xs.max()) == pytest.approx((-3.0, 2.0))
    squares = [_square(0, 0, 2), _square(1, 1, 2)]
    ax = draw_domains(PlotData(["a", "b"], {}, {}, squares, (np.array([-1.0, -1.0]), np.array([4.0, 4.0])))).axes[0]
    shades = [p for p in ax.patches if isinstance(p, PathPatch)]
    assert len(shades) == 1 and shades[0].get_alpha() == INCONSISTENT_ALPHA


def test_slice_through_a_point():
    # T = unit cube in 3-D; the slice at z = 0.5 onto (x, y) is the unit square.
    cube = Polytope(np.vstack([np.eye(3), -np.eye(3)]), np.array([1, 1, 1, 0, 0, 0.0]))
    square = slice_domain(cube, [0, 1], np.array([0.0, 0.0, 0.5]))
    assert square.equals(Polytope(np.vstack([np.eye(2), -np.eye(2)]), np.array([1, 1, 0, 0.0])))
    assert slice_domain(cube, [0, 1], np.array([0.0, 0.0, 2.0])) is None
