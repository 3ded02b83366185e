"""The traces of the interactive page (contactmodes.output.html) and the robot drawing
(contactmodes.output.robot), against independent geometry; the CLI's --html and check --plot.

Oracles: a 2-D slice's polygon from the H-representation of ``T_c`` with the held torques
substituted, by brute-force pairwise line intersection; a 1-D interval's ends from the bounding
box of ``T_c`` clipped to the plotting box; the number of mode traces from ``cm.analyze``; the
robot's points from the system file's own numbers (the two-link brace's documented geometry).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import contactmodes as cm
from _support.without import run_without
from contactmodes.cli import main
from contactmodes.output.html import SetView, Slice, figure_dict, mode_hover

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def _polygon_oracle(T, axes, point, lo, hi) -> np.ndarray:
    """Vertices of {A τ <= b, C τ = d} ∩ box in the drawn torques ``axes`` with the others held at
    ``point``: the equalities and held torques substituted, then pairwise line intersections."""
    n = T.dim
    held = [k for k in range(n) if k not in axes]
    A = T.A[:, axes]
    b = T.b - T.A[:, held] @ point[held]
    rows = [A, np.eye(2), -np.eye(2)]
    rhs = [b, hi, -lo]
    if T.C.shape[0]:
        C, d = T.C[:, axes], T.d - T.C[:, held] @ point[held]
        rows += [C, -C]
        rhs += [d, -d]
    A, b = np.vstack(rows), np.concatenate(rhs)
    scale = np.linalg.norm(A, axis=1)
    keep = scale > 1e-12
    A, b = A[keep] / scale[keep, None], b[keep] / scale[keep]
    found = []
    for i, j in itertools.combinations(range(len(A)), 2):
        M = A[[i, j]]
        if abs(np.linalg.det(M)) < 1e-10:
            continue
        x = np.linalg.solve(M, b[[i, j]])
        if np.all(A @ x <= b + 1e-7 * (1 + np.abs(b))):
            found.append(x)
    return np.array(found)


def test_2d_slice_polygons_are_the_h_representation_vertices():
    r = cm.analyze(EXAMPLES / "rhex_flip_start.toml", compute_overlaps=False)
    domains = {m: r.modes[m].T for m in r.feasible_modes()}
    point = np.asarray(domains["FFFF"].chebyshev_center().center, dtype=float)
    lo, hi = np.array([-1.0, -1.5]), np.array([4.0, 6.0])
    view = SetView("rhex", r.system.torques, ["N·m"] * 3, [0, 1], domains, (lo, hi), slices=[Slice(point)])
    fig = figure_dict(view)
    modes = [t for t in fig["data"] if t["meta"]["kind"] == "mode"]
    assert [t["meta"]["mode"] for t in modes] == list(domains)  # one trace per feasible mode
    checked = 0
    for t in modes:
        xs = [v for v in t["x"] if v is not None]
        if not xs:
            continue
        drawn = np.column_stack([xs, [v for v in t["y"] if v is not None]])
        V = _polygon_oracle(domains[t["meta"]["mode"]], [0, 1], point, lo, hi)
        assert len(V), t["name"]
        for p in drawn:  # every drawn point is a vertex of the oracle polygon
            assert np.min(np.linalg.norm(V - p, axis=1)) < 1e-6 * (1 + np.abs(p).max()), t["name"]
        if t.get("fill") == "toself":  # a full polygon: the oracle's vertices are all drawn
            for v in V:
                assert np.min(np.linalg.norm(drawn - v, axis=1)) < 1e-6 * (1 + np.abs(v).max()), t["name"]
        checked += 1
    assert checked >= 3
    assert fig["layout"]["xaxis"]["title"]["text"] == "tau1 (N·m)"
    assert fig["layout"]["yaxis"]["title"]["text"] == "tau2 (N·m)"


def test_1d_bars_end_at_the_interval_ends_and_hover_states_bounds_and_centre():
    r = cm.analyze(EXAMPLES / "painleve_rod.toml", unambiguous=True, inconsistency_box=([-20.0], [20.0]))
    domains = {m: r.modes[m].T for m in r.feasible_modes()}
    lo, hi = np.array([-20.0]), np.array([20.0])
    view = SetView("rod", ["M"], ["N·m"], [0], domains, (lo, hi), overlaps=dict(r.overlaps.items()),
                   inconsistent=r.inconsistent, unambiguous={m: r.unambiguous[m].unambiguous for m in domains})
    fig = figure_dict(view)
    for t in fig["data"]:
        if t["meta"]["kind"] != "mode":
            continue
        box_lo, box_hi = domains[t["meta"]["mode"]].bounding_box()
        xs = [v for v in t["x"] if v is not None]
        assert min(xs) == pytest.approx(max(box_lo[0], -20.0), abs=1e-6)
        assert max(xs) == pytest.approx(min(box_hi[0], 20.0), abs=1e-6)
    bad = [t for t in fig["data"] if t["meta"]["kind"] == "inconsistent"]
    assert len(bad) == 1 and min(v for v in bad[0]["x"] if v is not None) == pytest.approx(-3.656, abs=1e-3)
    groups = {t["meta"]["kind"]: t["legendgroup"] for t in fig["data"]}
    assert groups["overlap"] == "overlaps" and groups["inconsistent"] == "inconsistent"
    hover = mode_hover("S", domains["S"], ["M"], ["N·m"])
    assert "mode S" in hover and "dim T_c = 1" in hover and "−∞, -3.656] N·m" in hover
    assert "Chebyshev centre" in hover
    assert fig["layout"]["xaxis"]["title"]["text"] == "M (N·m)"


def test_plot_html_writes_a_self_contained_page_and_refuses_bad_paths(tmp_path):
    page = tmp_path / "rod.html"
    assert main(["plot", str(EXAMPLES / "painleve_rod.toml"), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<script src=" not in text and "<link " not in text  # the JavaScript is inline (the browser
    # tests load the page with the network blocked)
    assert "data:image/png;base64," in text  # the robot drawing
    source = tmp_path / "copy.toml"
    source.write_text((EXAMPLES / "painleve_rod.toml").read_text())
    before = source.read_bytes()
    assert main(["plot", str(source), "--html", str(source)]) == 2  # never the input file
    assert source.read_bytes() == before
    assert main(["plot", str(source), "--html", str(tmp_path / "x.txt")]) == 2
    assert main(["plot", str(source)]) == 2  # neither --output nor --html
    assert main(["plot", str(source), "--html", str(tmp_path / "y.html"), "--torques", "0,1,2,3"]) == 2
    assert not (tmp_path / "x.txt").exists() and not (tmp_path / "y.html").exists()


def test_plot_html_without_plotly_names_the_extra(tmp_path):
    out = tmp_path / "p.html"
    proc = run_without(["plotly"], "plot", EXAMPLES / "painleve_rod.toml", "--html", out, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "contactmodes: error: plot --html: needs plotly: pip install 'contactmodes[plot]'\n"
    assert not out.exists()


def test_robot_picture_has_the_documented_geometry_of_the_two_link_brace():
    from contactmodes.output.robot import robot_picture
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(EXAMPLES / "two_link_brace.toml")
    pic = robot_picture(loaded.mechanism, loaded.q, loaded.qdot)
    L = 0.127  # the file's comment: free end (0, 0), joint (-L cos45, L sin45), tip (0, 2 L sin45)
    expected = {"base": (0.0, 0.0), "joint": (-L * np.cos(np.pi / 4), L * np.sin(np.pi / 4)),
                "tip": (0.0, 2 * L * np.sin(np.pi / 4))}
    for c in pic.contacts:
        assert c.position == pytest.approx(expected[c.name], abs=1e-12)
        assert c.mu == pytest.approx(0.3)
        # the cone's edges make the angle atan(mu) with the normal, on both sides
        for e in c.cone_edges():
            assert np.degrees(np.arccos(np.clip(e @ c.normal, -1, 1))) == pytest.approx(np.degrees(np.arctan(0.3)))
    assert [name for name, _ in pic.joints] == ["theta1"]
    assert pic.joints[0][1] == pytest.approx(expected["joint"], abs=1e-12)
    assert len(pic.masses) == 3
    assert {s.name for s in pic.links} == {"link1", "link2"}


def test_check_plot_writes_a_png_of_the_robot_and_refuses_the_input(tmp_path):
    from PIL import Image

    out = tmp_path / "robot.png"
    assert main(["check", str(EXAMPLES / "rhex_flip_start.toml"), "--plot", str(out)]) == 0
    img = np.asarray(Image.open(out).convert("L"), dtype=float)
    assert img.shape[0] > 200 and img.var() > 100.0  # a drawing, not a blank image
    assert main(["check", str(EXAMPLES / "rhex_flip_start.toml"), "--plot", str(tmp_path / "r.jpg")]) == 2
    assert not (tmp_path / "r.jpg").exists()


def test_each_slider_step_shows_exactly_the_traces_of_its_slice():
    r = cm.analyze(EXAMPLES / "rhex_flip_start.toml", modes=["FFFF", "FFSF", "FSFF", "LLLL"], compute_overlaps=False)
    domains = {m: r.modes[m].T for m in r.feasible_modes()}
    base = np.asarray(domains["FFFF"].chebyshev_center().center, dtype=float)
    slices = [Slice(base)]
    for v in (0.0, 10.0, 20.0):
        p = base.copy()
        p[2] = v
        slices.append(Slice(p, 2, v))
    view = SetView("rhex", r.system.torques, ["N·m"] * 3, [0, 1], domains,
                   (np.array([-1.0, -1.5]), np.array([4.0, 6.0])), slices=slices)
    fig = figure_dict(view)
    (slider,) = fig["layout"]["sliders"]
    values = sorted([base[2], 0.0, 10.0, 20.0])
    assert [s["label"] for s in slider["steps"]] == [f"{v:.3g}" for v in values]
    assert slider["steps"][slider["active"]]["label"] == f"{base[2]:.3g}"  # starts at the default slice
    by_value = {0.0: 1, 10.0: 2, 20.0: 3, float(base[2]): 0}
    for step, value in zip(slider["steps"], values):
        visible = step["args"][0]["visible"]
        expected = [t["meta"]["slice"] == by_value[float(value)] for t in fig["data"]]
        assert [bool(v) for v in visible] == expected
        # every slice has one trace per feasible mode
        assert sum(1 for t, v in zip(fig["data"], visible) if v and t["meta"]["kind"] == "mode") == len(domains)
    assert "tau3 (N·m)" in slider["currentvalue"]["prefix"]
