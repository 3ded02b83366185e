"""The 3-D view of a spatial robot (``check FILE --plot OUT.html``, ``contactmodes.output.robot3d``).

The figure's trace coordinates are checked against geometry built without the toolkit: the box
on its slope by hand (its pitch ``R_y(−atan(1/3))``, its corners, the contact frame ``t1 = (3, 0,
1)/√10``, ``t2 = (0, 1, 0)``, ``n = (−1, 0, 3)/√10`` and the polygon's vertices from ``μ`` and
the polygon's angles), Solo-12's feet and joints against Pinocchio's forward kinematics called
directly on the URDF. The CLI: the page written atomically, a ``.png`` or the input file refused
in one line (exit 2, nothing written), a rejected contact drawn red, no plotly named in one line.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from _support.paths import ROOT
from _support.without import run_without
from contactmodes.cli import main

pytest.importorskip("pinocchio")
pytest.importorskip("plotly")

SPATIAL = ROOT / "examples" / "spatial"
BOX = SPATIAL / "box_on_slope.toml"
SOLO = SPATIAL / "solo12_standing.toml"
CORNERS = [(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)]
S10 = math.sqrt(10.0)
#: the box's pitch about y, R_y(−atan(1/3)): cos = 3/√10, sin = −1/√10
R_BOX = np.array([[3 / S10, 0.0, -1 / S10], [0.0, 1.0, 0.0], [1 / S10, 0.0, 3 / S10]])
CENTRE = 0.05 * np.array([-1.0, 0.0, 3.0]) / S10
T1, T2, N = np.array([3.0, 0.0, 1.0]) / S10, np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 3.0]) / S10
DIAGONAL = 0.5  # the box's size L: its bottom corners' largest distance, √(0.4² + 0.3²)


def _figure(path):
    from contactmodes.output.robot3d import figure_dict, spatial_page_file

    return figure_dict(spatial_page_file(path))


def _traces(fig, kind):
    return [t for t in fig["data"] if t["meta"]["kind"] == kind]


def _segments(trace):
    """The ``(start, end)`` pairs of a lines trace (``None`` separates them)."""
    pts, out = [], []
    for x, y, z in zip(trace["x"], trace["y"], trace["z"]):
        if x is None:
            out.append((np.array(pts[0]), np.array(pts[1])))
            pts = []
        else:
            pts.append((x, y, z))
    return out, pts  # the segments and what follows the last separator


def _match(found, expected, atol=1e-12):
    """Every expected point or pair has one found equal (order-free)."""
    assert len(found) == len(expected)
    left = list(found)
    for e in expected:
        i = next((i for i, f in enumerate(left) if np.allclose(np.ravel(f), np.ravel(e), rtol=0, atol=atol)), None)
        assert i is not None, (e, left)
        left.pop(i)


def _box_file(tmp_path, sides, polygon, mu=0.5):
    text = BOX.read_text().replace('urdf = "box.urdf"', f'urdf = "{(SPATIAL / "box.urdf").as_posix()}"')
    text = text.replace("sides = 4", f"sides = {sides}").replace('polygon = "circumscribed"', f'polygon = "{polygon}"')
    text = text.replace("mu = 0.5", f"mu = {mu}")
    path = tmp_path / f"box_{sides}_{polygon}.toml"
    path.write_text(text)
    return path


def test_box_on_slope_corners_links_and_frame_by_hand():
    fig = _figure(BOX)
    corners = [CENTRE + R_BOX @ np.array(c) for c in CORNERS]
    for c in corners:
        assert float(N @ c) == pytest.approx(0.0, abs=1e-15)  # on the plane through the origin: hand check
    contacts = _traces(fig, "contact")
    assert [t["meta"]["name"] for t in contacts] == ["c1", "c2", "c3", "c4"]
    for t, c in zip(contacts, corners):
        assert np.allclose([t["x"][0], t["y"][0], t["z"][0]], c, rtol=0, atol=1e-12)
        assert t["marker"]["color"] == "#000000"  # accepted
    # one link, no joints: the skeleton is the centre to each corner
    (links,) = _traces(fig, "link")
    segs, rest = _segments(links)
    assert rest == []
    _match(segs, [(CENTRE, c) for c in corners])
    assert _traces(fig, "joint") == []
    # the box's frame: its axes are R's columns, AXIS_FRACTION of the diagonal long
    from contactmodes.output.robot3d import AXIS_FRACTION

    frames = _traces(fig, "frame")
    assert [t["meta"]["name"] for t in frames] == ["x", "y", "z"]
    for i, t in enumerate(frames):
        (seg,), _ = _segments(t)
        assert np.allclose(seg[0], CENTRE, rtol=0, atol=1e-12)
        assert np.allclose(seg[1], CENTRE + AXIS_FRACTION * DIAGONAL * R_BOX[:, i], rtol=0, atol=1e-12)


@pytest.mark.parametrize("sides, polygon, mu, vertices", [
    # circumscribed square: sides' normals along ±t1, ±t2, vertices at 45° + 90° j, distance √2 (units μ f_n)
    (4, "circumscribed", 0.5, [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]),
    # inscribed triangle: vertex 0 along t1 on the circle, then every 120°
    (3, "inscribed", 0.3, [(1.0, 0.0), (-0.5, math.sqrt(3) / 2), (-0.5, -math.sqrt(3) / 2)]),
])
def test_box_friction_pyramids_and_planes_by_hand(tmp_path, sides, polygon, mu, vertices):
    from contactmodes.output.robot3d import CONE_FRACTION, PLANE_FRACTION

    fig = _figure(_box_file(tmp_path, sides, polygon, mu))
    h, s = CONE_FRACTION * DIAGONAL, PLANE_FRACTION * DIAGONAL
    corners = [CENTRE + R_BOX @ np.array(c) for c in CORNERS]
    pyramids = _traces(fig, "friction")
    faces = _traces(fig, "friction-face")
    planes = _traces(fig, "plane")
    assert len(pyramids) == len(faces) == len(planes) == 4
    for p, pyr, face, plane in zip(corners, pyramids, faces, planes):
        base = [p + h * (N + mu * (a * T1 + b * T2)) for a, b in vertices]
        edges, ring = _segments(pyr)
        assert len(edges) == sides
        for (start, end), v in zip(edges, base):  # apex → vertex j, in the polygon's order
            assert np.allclose(start, p, rtol=0, atol=1e-12) and np.allclose(end, v, rtol=0, atol=1e-12)
        assert np.allclose(ring, base + base[:1], rtol=0, atol=1e-12)  # the polygon, closed
        for v in base:  # the edges make the angle atan(μ |v_j|) with the normal
            e = (v - p) / np.linalg.norm(v - p)
            radius = math.hypot(*vertices[0])
            assert math.degrees(math.acos(float(e @ N))) == pytest.approx(math.degrees(math.atan(mu * radius)))
        xyz = np.array([face["x"], face["y"], face["z"]]).T
        assert np.allclose(xyz, [p] + base, rtol=0, atol=1e-12)
        assert sorted(zip(face["i"], face["j"], face["k"])) == sorted(
            (0, 1 + j, 1 + (j + 1) % sides) for j in range(sides))
        square = np.array([plane["x"], plane["y"], plane["z"]]).T
        _match(list(square), [p + s * (a * T1 + b * T2) for a in (1, -1) for b in (1, -1)])
        assert np.allclose(square @ N, 0.0, atol=1e-15)  # in the plane


def test_solo12_feet_and_joints_against_pinocchio():
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(SPATIAL / "solo12.urdf"), pin.JointModelFreeFlyer())
    data = model.createData()
    deg = math.radians
    angles = {"FL_HFE": deg(45), "FL_KFE": deg(-90), "FR_HFE": deg(45), "FR_KFE": deg(-90),
              "HL_HFE": deg(-45), "HL_KFE": deg(90), "HR_HFE": deg(-45), "HR_KFE": deg(90)}  # the file's state
    q = pin.neutral(model)
    q[:3] = (0.0, 0.0, 0.16 * math.sqrt(2))
    q[3:7] = (0.0, 0.0, 0.0, 1.0)  # Pinocchio's (x, y, z, w)
    for name, value in angles.items():
        q[model.joints[model.getJointId(name)].idx_q] = value
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    fig = _figure(SOLO)
    for t in _traces(fig, "contact"):
        foot = data.oMf[model.getFrameId(f"{t['meta']['name']}_FOOT")].translation
        assert np.allclose([t["x"][0], t["y"][0], t["z"][0]], foot, rtol=0, atol=1e-12)
        assert t["z"][0] == pytest.approx(0.0, abs=1e-12)  # standing on the ground
    (joints,) = _traces(fig, "joint")
    assert sorted(joints["text"]) == sorted(model.names[1:][1:])  # the 12 moving joints, not the free flyer
    for name, x, y, z in zip(joints["text"], joints["x"], joints["y"], joints["z"]):
        assert np.allclose([x, y, z], data.oMi[model.getJointId(name)].translation, rtol=0, atol=1e-12)
    # the skeleton: each leg base → HAA → HFE → KFE → foot; every joint and foot is an end of a segment
    (links,) = _traces(fig, "link")
    segs, _ = _segments(links)
    ends = [e for s in segs for e in s]
    for j in range(2, model.njoints):
        assert any(np.allclose(e, data.oMi[j].translation, atol=1e-12) for e in ends)
    base = data.oMi[1].translation
    for leg in ("FL", "FR", "HL", "HR"):
        assert any(np.allclose(a, base, atol=1e-12) and np.allclose(b, data.oMi[model.getJointId(f"{leg}_HAA")].translation,
                                                                     atol=1e-12) for a, b in segs)
        lower = data.oMi[model.getJointId(f"{leg}_KFE")].translation
        foot = data.oMf[model.getFrameId(f"{leg}_FOOT")].translation
        assert any(np.allclose(a, lower, atol=1e-12) and np.allclose(b, foot, atol=1e-12) for a, b in segs)
    links_in_model = sum(f.type == pin.FrameType.BODY for f in model.frames)  # 17: base, 4 x (shoulder, legs, foot)
    assert links_in_model == 17
    for t in _traces(fig, "frame"):
        assert len(_segments(t)[0]) == links_in_model  # one axis per link frame


def test_check_plot_writes_the_page_and_refuses_png_and_the_input(tmp_path, capsys):
    out = tmp_path / "box.html"
    assert main(["check", str(BOX), "--plot", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "box_on_slope" in text and "Plotly.newPlot" in text
    assert "circumscribed" in text  # the caption names the polygon
    assert os.listdir(tmp_path) == ["box.html"]  # nothing else left behind
    capsys.readouterr()
    png = tmp_path / "box.png"
    assert main(["check", str(BOX), "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--plot: a spatial file (dimension = 3) is drawn as an interactive page: " \
                                     "give a .html file name" in err, err
    assert not png.exists()
    copy = tmp_path / "box.toml"
    copy.write_text(BOX.read_text().replace('urdf = "box.urdf"', f'urdf = "{(SPATIAL / "box.urdf").as_posix()}"'))
    before = copy.read_bytes()
    link = tmp_path / "onto_input.html"
    link.symlink_to(copy)
    assert main(["check", str(copy), "--plot", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is the input file" in err, err
    assert copy.read_bytes() == before


def test_a_rejected_contact_is_drawn_red_and_named_in_the_caption(tmp_path):
    path = tmp_path / "lifted.toml"
    text = BOX.read_text().replace('urdf = "box.urdf"', f'urdf = "{(SPATIAL / "box.urdf").as_posix()}"')
    marker = 'name = "c3"'
    head, tail = text.split(marker)
    tail = tail.replace("surface_point = [0.0, 0.0, 0.0]", "surface_point = [0.0, 0.0, -0.01]", 1)  # c3 above its plane
    path.write_text(head + marker + tail)
    fig = _figure(path)
    colours = {t["meta"]["name"]: t["marker"]["color"] for t in _traces(fig, "contact")}
    assert colours == {"c1": "#000000", "c2": "#000000", "c3": "#d62728", "c4": "#000000"}
    out = tmp_path / "lifted.html"
    assert main(["check", str(path), "--plot", str(out)]) == 0
    assert "Rejected by the loader (off their planes, in red): c3." in out.read_text(encoding="utf-8")


def test_check_plot_of_a_spatial_file_without_plotly_names_the_extra(tmp_path):
    out = tmp_path / "box.html"
    proc = run_without(["plotly"], "check", BOX, "--plot", out, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "contactmodes: error: check --plot: needs plotly: pip install 'contactmodes[plot]'\n"
    assert not out.exists()
