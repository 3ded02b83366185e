"""The pages of ``contactmodes plot --html`` in a real browser (Debian's chromium, Playwright).

Each page loads offline (file:// URL, every other request aborted) with no console error, holds
one trace per feasible mode (counted from ``cm.analyze`` independently of the page), answers a
mouse drag (the 3-D camera moves) and a legend click (the trace becomes ``legendonly``), and its
screenshot is not blank. Marked ``browser`` (select with ``-m browser``); skipped with the reason
where chromium or playwright is missing, failed instead in CI. About 25 s on the 2-core machine.
The 3-D pages of spatial robots (``check FILE --plot OUT.html``) load offline without console
errors and hold their traces (contacts, friction pyramids, planes, links, frames, joints), the
box's contact points where hand geometry puts them; about 20 s more.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import contactmodes as cm
from contactmodes.cli import main

from _support.browser import browser, open_page, require_browser

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
#: page name → (system file, extra options, drawn torques)
PAGES = {
    "painleve_1d": ("painleve_rod.toml", [], 1),
    "rhex_2d_slider": ("rhex_flip_start.toml", ["--torques", "0,1", "--mode", "FFFF"], 2),
    "rhex_3d": ("rhex_flip_start.toml", ["--mode", "FFFF"], 3),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    require_browser()
    out = tmp_path_factory.mktemp("pages")
    paths = {}
    for name, (file, options, _) in PAGES.items():
        path = out / f"{name}.html"
        assert main(["plot", str(EXAMPLES / file), "--html", str(path), *options]) == 0
        paths[name] = path
    return paths


@pytest.fixture(scope="module")
def chromium():
    require_browser()
    with browser() as b:
        yield b


def _mode_traces(loaded) -> list[dict]:
    return [t for t in loaded.traces() if t["meta"] and t["meta"]["kind"] == "mode" and t["meta"]["slice"] == 0]


def _loads_with_one_trace_per_feasible_mode(loaded, name: str) -> list[str]:
    """The checks every page passes; returns the feasible modes (from ``cm.analyze``)."""
    assert loaded.errors == []
    assert loaded.blocked == []  # self-contained: nothing asked of the network
    feasible = cm.analyze(EXAMPLES / PAGES[name][0]).feasible_modes()
    first = _mode_traces(loaded)
    assert [t["meta"]["mode"] for t in first] == feasible
    assert all(t["visible"] is True for t in first)
    kinds = {t["type"] for t in first}
    assert kinds <= ({"mesh3d", "scatter3d"} if PAGES[name][2] == 3 else {"scatter"})
    assert loaded.screenshot_variance() > 100.0  # not blank
    return feasible


def _legend_click_hides(loaded, mode: str) -> None:
    page = loaded.page
    entry = page.locator(".legend .traces").filter(has_text=mode).first
    entry.locator(".legendtoggle").click(force=True)
    page.wait_for_timeout(900)  # plotly waits out its double-click delay before it toggles
    visible = {t["meta"]["mode"]: t["visible"] for t in _mode_traces(loaded)}
    assert visible.pop(mode) == "legendonly"
    assert all(v is True for v in visible.values())


def test_1d_page(pages, chromium):
    loaded = open_page(chromium, pages["painleve_1d"])
    try:
        feasible = _loads_with_one_trace_per_feasible_mode(loaded, "painleve_1d")
        kinds = {t["meta"]["kind"] for t in loaded.traces() if t["meta"]}
        assert {"overlap", "inconsistent"} <= kinds  # Painlevé: ambiguous and inconsistent torques
        _legend_click_hides(loaded, feasible[0])
        assert loaded.errors == []
    finally:
        loaded.page.close()


def test_2d_page_with_a_slider(pages, chromium):
    loaded = open_page(chromium, pages["rhex_2d_slider"])
    try:
        _loads_with_one_trace_per_feasible_mode(loaded, "rhex_2d_slider")
        page = loaded.page
        page.locator(".slider-container .slider-rail-touch-rect").first.click(position={"x": 5, "y": 5})
        page.wait_for_timeout(400)
        shown = {t["meta"]["slice"] for t in loaded.traces() if t["visible"] is True and t["meta"]}
        assert len(shown) == 1 and shown != {0}  # the first step: another slice, alone
        assert loaded.errors == []
    finally:
        loaded.page.close()


def test_3d_page_rotates_on_a_drag_and_hides_on_a_legend_click(pages, chromium):
    loaded = open_page(chromium, pages["rhex_3d"], width=900, height=650)  # software WebGL: fewer pixels
    try:
        feasible = _loads_with_one_trace_per_feasible_mode(loaded, "rhex_3d")
        assert "mesh3d" in {t["type"] for t in _mode_traces(loaded)}  # full-dimensional sets as hulls
        page = loaded.page
        camera = ("() => JSON.stringify((document.querySelector('.plotly-graph-div').layout.scene.camera || {}).eye"
                  " || null)")
        live = "() => document.querySelector('.plotly-graph-div')._fullLayout.scene._scene.getCamera().eye"
        before, live_before = page.evaluate(camera), page.evaluate(live)
        figure = page.locator(".plotly-graph-div").first.bounding_box()
        size = page.evaluate("() => document.querySelector('.plotly-graph-div')._fullLayout._size")
        x = figure["x"] + size["l"] + size["w"] / 2  # the middle of the scene
        y = figure["y"] + size["t"] + size["h"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 150, y + 40, steps=3)  # each step re-renders the scene
        page.mouse.up()
        page.wait_for_timeout(400)
        after, live_after = page.evaluate(camera), page.evaluate(live)
        assert after is not None and after != before  # written to layout.scene.camera
        assert abs(live_after["x"] - live_before["x"]) + abs(live_after["z"] - live_before["z"]) > 0.1
        _legend_click_hides(loaded, feasible[0])
        assert loaded.errors == []
    finally:
        loaded.page.close()


def test_sweep_page_loads_offline_and_shows_one_panel(chromium, tmp_path):
    out = tmp_path / "sweep.html"
    assert main(["sweep", "analyze", str(EXAMPLES / "painleve_rod.toml"), "--vary", "contacts.0.mu=0.25:3:4",
                 "--vary", "state.qdot.x=-2:2:3", "--html", str(out), "--workers", "0"]) == 0
    loaded = open_page(chromium, out)
    try:
        assert loaded.errors == [] and loaded.blocked == []
        traces = loaded.traces()
        assert traces and all(t["type"] == "heatmap" for t in traces)
        assert sum(t["visible"] is True for t in traces) == 2  # one panel: its heat map and its overlay
        assert loaded.screenshot_variance() > 100.0
    finally:
        loaded.page.close()


@pytest.mark.parametrize("file, contacts, joints", [("box_on_slope", 4, 0), ("solo12_standing", 4, 12)])
def test_spatial_robot_page_loads_offline_and_shows_its_traces(chromium, tmp_path, file, contacts, joints):
    pytest.importorskip("pinocchio")
    out = tmp_path / f"{file}.html"
    assert main(["check", str(EXAMPLES / "spatial" / f"{file}.toml"), "--plot", str(out)]) == 0
    loaded = open_page(chromium, out, width=900, height=650)  # software WebGL: fewer pixels
    try:
        assert loaded.errors == [] and loaded.blocked == []
        traces = loaded.traces()
        kinds = [t["meta"]["kind"] for t in traces]
        assert kinds.count("contact") == kinds.count("friction") == kinds.count("plane") == contacts
        assert kinds.count("link") == 1 and kinds.count("frame") == 3 and kinds.count("joint") == (1 if joints else 0)
        assert all(t["visible"] is True for t in traces)
        shown = loaded.page.evaluate(  # what the page drew: the joints' markers, the contact points
            "() => document.querySelector('.plotly-graph-div')._fullData.filter(t => t.meta && "
            "(t.meta.kind === 'joint' || t.meta.kind === 'contact')).map(t => [t.meta.kind, t.x.length])")
        assert sum(n for k, n in shown if k == "joint") == joints
        assert sum(n for k, n in shown if k == "contact") == contacts
        if file == "box_on_slope":  # the corners in the page, by hand: centre + R_y(−atan(1/3)) corner
            r10 = np.sqrt(10.0)
            R = np.array([[3 / r10, 0, -1 / r10], [0, 1, 0], [1 / r10, 0, 3 / r10]])
            centre = 0.05 * np.array([-1.0, 0.0, 3.0]) / r10
            corners = [centre + R @ np.array(c) for c in
                       [(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)]]
            points = loaded.page.evaluate(
                "() => document.querySelector('.plotly-graph-div').data.filter(t => t.meta.kind === 'contact')"
                ".map(t => [t.x[0], t.y[0], t.z[0]])")
            assert np.allclose(points, corners, rtol=0, atol=1e-12)
        assert loaded.screenshot_variance() > 100.0  # not blank
    finally:
        loaded.page.close()
