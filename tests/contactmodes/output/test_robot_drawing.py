"""The robot drawing of ``check --plot`` (``contactmodes.output.robot``): links drawn with the shape
the file gives (``[[links]] outline``), else the hull of every point it gives on the link; link
and contact names placed without overlapping (issue 39: a box drawn as a triangle, labels on top
of each other).

Oracles: the corners of the documented shapes by hand (the block's and RHex's body, from the
files' comments and states); the rendered boxes of the labels (matplotlib's text extents after
the final draw) compared pairwise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from _support.paths import DATA, EXAMPLES
from _support.toml_writer import to_toml

from contactmodes.errors import SystemFileError
from contactmodes.output.robot import draw_robot_file, robot_picture
from contactmodes.system_file.loader import load_system_file, parse_system

pytest.importorskip("matplotlib")

CROWDED = [EXAMPLES / "rhex_flip_start.toml", EXAMPLES / "quadruped" / "quadruped.toml",
           EXAMPLES / "snake" / "snake_chimney.toml", EXAMPLES / "six_link_brace.toml",
           DATA / "cases" / "gripper_squeeze.toml", EXAMPLES / "table_two_legs.toml"]


def _overlap(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


@pytest.mark.parametrize("path", CROWDED, ids=lambda p: p.stem)
def test_link_and_contact_names_do_not_overlap(path):
    import matplotlib.pyplot as plt

    loaded_names = set()
    fig = draw_robot_file(str(path))
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        texts = [t for t in ax.texts if t.get_text()]
        from contactmodes.system_file.loader import system_geometry

        geometry = system_geometry(path)
        loaded_names = {c.name for c in geometry.contacts}
        names = [t.get_text().split("\n")[0] for t in texts]
        assert loaded_names <= set(names)  # every contact is named (and the links besides)
        boxes = [t.get_window_extent(renderer) for t in texts]
        worst = max((_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), default=0.0)
        assert worst == 0.0, [(names[i], names[j]) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                              if _overlap(boxes[i], boxes[j]) > 0]
    finally:
        plt.close(fig)


def test_a_box_with_its_outline_is_drawn_as_its_rectangle():
    """``block_resting.toml``: a 0.2 × 0.1 m block at y = 0.05 (its centre), theta = 0; the file's
    points (two bottom corners, the centre) span only a triangle, its outline the rectangle."""
    loaded = load_system_file(EXAMPLES / "passive" / "block_resting.toml")
    pic = robot_picture(loaded.mechanism, loaded.q, loaded.qdot, outlines=loaded.outlines)
    (block,) = pic.links
    corners = {(round(x, 12), round(y, 12)) for x, y in block.outline}
    assert corners == {(-0.1, 0.0), (0.1, 0.0), (0.1, 0.1), (-0.1, 0.1)}
    assert block.centre == pytest.approx([0.0, 0.05], abs=1e-12)  # the area centroid
    # without the outline: the hull of the points the file gives (documented), a triangle here
    hull = robot_picture(loaded.mechanism, loaded.q, loaded.qdot).links[0].outline
    assert len(hull) == 3


def test_rhex_body_is_its_pitched_box():
    """RHex's body, 0.5 × 0.1 m, pitched 10° with its rear bottom corner at the origin (the file's
    comment): the four corners by hand."""
    loaded = load_system_file(EXAMPLES / "rhex_flip_start.toml")
    pic = robot_picture(loaded.mechanism, loaded.q, loaded.qdot, outlines=loaded.outlines)
    body = next(s for s in pic.links if s.name == "body")
    a = math.radians(10.0)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    centre = R @ np.array([0.25, 0.05])
    expected = [centre + R @ np.array(c) for c in ([-0.25, -0.05], [0.25, -0.05], [0.25, 0.05], [-0.25, 0.05])]
    np.testing.assert_allclose(body.outline, expected, atol=1e-9)
    np.testing.assert_allclose(body.outline[0], [0.0, 0.0], atol=1e-9)  # the rear bottom corner


def test_outline_errors_name_the_key():
    doc = {"links": [{"name": "box", "mass": 1.0, "inertia": 0.1, "outline": [[0.0, 0.0]]}],
           "state": {"q": {"x": 0.0, "y": 1.0, "theta": 0.0}}}
    with pytest.raises(SystemFileError, match=r"^links\[0\].outline: must list at least two points"):
        parse_system(doc)
    doc["links"][0]["outline"] = [[0.0, 0.0], [1.0]]
    with pytest.raises(SystemFileError, match=r"^links\[0\].outline\[1\]: must be an array of two numbers"):
        parse_system(doc)
    doc["links"][0]["outline"] = "square"
    with pytest.raises(SystemFileError, match=r"^links\[0\].outline: must be an array"):
        parse_system(doc)
    doc["links"][0]["outline"] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
    assert parse_system(doc).outlines["box"].shape == (3, 2)
    assert "outline" in to_toml(doc)
