"""``contactmodes check``: contact positions, gaps and velocities against hand values; a file the
loader rejects for a gap is still shown, with the loader's own message."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.cli import main
from contactmodes.errors import SystemFileError
from contactmodes.system_file.loader import load_system_file, system_geometry

EXAMPLES = ROOT / "examples"
L = 0.127


def _moved_wall(tmp_path: Path) -> Path:
    """The two-link brace with the joint's wall at x = −0.1 instead of −L cos 45°."""
    text = (EXAMPLES / "two_link_brace.toml").read_text()
    path = tmp_path / "moved.toml"
    path.write_text(text.replace("surface_point = [-0.08980256121069154, 0.0]", "surface_point = [-0.1, 0.0]"))
    return path


def test_two_link_brace_positions_by_hand():
    geometry = system_geometry(EXAMPLES / "two_link_brace.toml")
    assert geometry.accepted and [c.name for c in geometry.contacts] == ["base", "tip", "joint"]
    s = math.sin(math.pi / 4)
    expected = {"base": (0.0, 0.0), "tip": (0.0, 2 * L * s), "joint": (-L * s, L * s)}
    for c in geometry.contacts:
        np.testing.assert_allclose(c.position, expected[c.name], atol=1e-15)
        assert abs(c.gap) < 1e-15 and c.problem is None and not c.approaching
        np.testing.assert_array_equal(c.velocity, [0.0, 0.0])


def test_rejected_gap_is_shown_with_the_loaders_message(tmp_path):
    path = _moved_wall(tmp_path)
    with pytest.raises(SystemFileError) as info:
        load_system_file(path)
    geometry = system_geometry(path)
    assert not geometry.accepted
    joint = geometry.contacts[2]
    # n = (1, 0), s = (−0.1, 0), p = (−L cos 45°, L sin 45°): gap = p_x + 0.1
    assert joint.gap == pytest.approx(0.1 - L * math.cos(math.pi / 4), rel=1e-12)
    assert str(info.value) == f"contacts[2]: {joint.problem}"
    assert geometry.contacts[0].problem is None and geometry.contacts[1].problem is None


def test_cli_text_and_json(tmp_path, capsys):
    path = _moved_wall(tmp_path)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "REJECTED" in out and "does not touch its surface" in out
    assert out.strip().splitlines()[-1].startswith("the loader rejects this file")
    # lines fit 100 columns, the file's path (as long as the test's temporary directory) aside
    assert max(len(line.replace(str(path), "FILE")) for line in out.splitlines() if not line.startswith("contacts[")) <= 100
    target = tmp_path / "check.json"
    assert main(["check", str(path), "--json", "--output", str(target)]) == 0
    doc = json.loads(target.read_text())
    assert doc["schema"] == "contactmodes.check/1" and doc["accepted"] is False
    assert doc["coordinates"] == ["x", "y", "theta", "theta1"]
    joint = doc["contacts"][2]
    assert joint["name"] == "joint" and joint["accepted"] is False and "gap" in joint["problem"]
    assert joint["surface_normal"] == [1.0, 0.0] and joint["velocity"] == {"t": 0.0, "n": 0.0}
    assert [c["accepted"] for c in doc["contacts"]] == [True, True, False]


def test_velocity_in_the_contact_frame_and_approaching(tmp_path, capsys):
    # Painlevé rod: end sliding at q̇ = (−1, 0, 0) on ground n = (0, 1), t = (n_y, −n_x) = (1, 0)
    geometry = system_geometry(EXAMPLES / "painleve_rod.toml")
    np.testing.assert_allclose(geometry.contacts[0].velocity, [-1.0, 0.0], atol=1e-15)
    assert not geometry.contacts[0].approaching
    # falling at 0.5 m/s while turning at 2 rad/s about the end's own frame origin: v_n = −0.5
    text = (EXAMPLES / "painleve_rod.toml").read_text().replace(
        "qdot = { x = -1.0, y = 0.0, theta = 0.0 }", "qdot = { x = 0.0, y = -0.5, theta = 2.0 }")
    path = tmp_path / "falling.toml"
    path.write_text(text)
    geometry = system_geometry(path)
    end = geometry.contacts[0]
    np.testing.assert_allclose(end.velocity, [0.0, -0.5], atol=1e-15)  # the end is the frame origin
    assert end.approaching and geometry.accepted  # the loader accepts it; the analysis does not
    assert main(["check", str(path)]) == 0
    assert "approaches its surface" in capsys.readouterr().out


def test_bad_file_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[state]\nq = {}\n[[links]]\nname = "a"\nmas = 1\n')
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "check", str(bad)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "links[0].mas: unknown key" in lines[0]
