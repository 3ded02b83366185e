"""``contactmodes check FILE --snap [--write OUT]`` (issue 22, item 13): a state written with five
digits, which the loader rejects, is moved by the smallest change that puts every contact on its
surface; the written file loads, differs from the input only in the state's values, and its
contacts are on their surfaces by the mechanism's forward kinematics (not by the snap module).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import root

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from _support.paths import ROOT
from contactmodes.cli import main
from contactmodes.errors import ApproachingContactError, SystemFileError
from contactmodes.system_file.loader import load_system_file, system_geometry
from contactmodes.modes.enumeration import velocity_allowed
from contactmodes.tolerances import GAP_RTOL

EXAMPLES = ROOT / "examples"

# (example, exact text, the same written with five digits)
CASES = {
    "rhex_base_position": ("rhex_flip_start.toml", "x = 0.2375195293697055, y = 0.09265243206734299",
                           "x = 0.23752, y = 0.09265"),
    "table_base_position": ("table_two_legs.toml", "q = { x = 0.0, y = 0.5,", "q = { x = 0.0, y = 0.50001,"),
    "two_link_wall": ("two_link_brace.toml", "surface_point = [-0.08980256121069154, 0.0]",
                      "surface_point = [-0.08980, 0.0]"),
    "six_link_wall": ("six_link_brace.toml", "surface_point = [-0.2801286071159205, 0.0]",
                      "surface_point = [-0.28013, 0.0]"),
}


def _perturbed(tmp_path: Path, case: str, qdot: str | None = None) -> Path:
    name, exact, rounded = CASES[case]
    text = (EXAMPLES / name).read_text()
    assert text.count(exact) == 1
    text = text.replace(exact, rounded)
    if qdot is not None:
        assert text.count("qdot = {}") == 1
        text = text.replace("qdot = {}", qdot)
    path = tmp_path / f"{case}.toml"
    path.write_text(text)
    return path


def _weights(mechanism, length: float) -> np.ndarray:
    """Scaled coordinates ``w * q``: lengths (x, y of a floating base) in units of the robot's size,
    angles in radians."""
    w = np.ones(mechanism.n_q)
    if mechanism.base == "floating":
        w[:2] = 1.0 / length
    return w


def _along_surfaces(Jn: np.ndarray) -> np.ndarray:
    """A fixed velocity with rotations, projected onto ``J_n q̇ = 0``: no contact moves along its
    normal at the written state."""
    v = np.array([0.0, 0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])[: Jn.shape[1]]
    return v - np.linalg.pinv(Jn) @ (Jn @ v)


def _forward_gaps(path: Path) -> tuple[np.ndarray, float]:
    """Per contact ``n·(p − s)`` from the file's own numbers and the mechanism's forward kinematics
    (``point_position``), and the loader's tolerance ``GAP_RTOL · L``."""
    loaded = load_system_file(path)
    raw = tomllib.loads(path.read_text())
    gaps = []
    for c in raw["contacts"]:
        p = loaded.mechanism.point_position(loaded.q, c["link"], c["position"])
        n = np.array(c["surface_normal"], dtype=float)
        gaps.append(float(n @ (p - np.array(c["surface_point"], dtype=float)) / np.linalg.norm(n)))
    length = loaded.mechanism.characteristic_scales(loaded.q, loaded.qdot).length
    return np.array(gaps), GAP_RTOL * length


@pytest.mark.parametrize("case", sorted(CASES))
def test_snap_write_puts_every_contact_on_its_surface(tmp_path, capsys, case):
    path = _perturbed(tmp_path, case)
    with pytest.raises(SystemFileError, match="does not touch its surface"):
        load_system_file(path)
    before = system_geometry(path)
    input_bytes = path.read_bytes()
    out = tmp_path / "out.toml"

    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    text = capsys.readouterr().out
    assert "state.q." in text and "the loader accepts every contact" in text
    assert path.read_bytes() == input_bytes  # the input is never touched

    loaded = load_system_file(out)  # the loader accepts the snapped file
    gaps, tol = _forward_gaps(out)
    assert np.all(np.abs(gaps) <= tol)
    assert np.all(np.abs(gaps) <= 1e-12 * tol / GAP_RTOL)  # on the surfaces to rounding, not just within tolerance

    # the change is of the size of the perturbation (scaled: lengths in units of the robot's size)
    L = loaded.mechanism.characteristic_scales(loaded.q, loaded.qdot).length
    change = np.abs(_weights(loaded.mechanism, L) * (loaded.q - before.q)).max()
    worst = max(abs(c.gap) for c in before.contacts) / L
    assert 0.0 < change <= 10.0 * worst
    np.testing.assert_array_equal(loaded.qdot, before.qdot)  # at rest: q̇ is kept

    # only the values of the state's q keys changed; everything else is the input's text
    old_lines, new_lines = path.read_text().splitlines(), out.read_text().splitlines()
    assert len(old_lines) == len(new_lines)
    changed = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert changed and all(a.startswith("q = {") and b.startswith("q = {") for a, b in changed)
    raw_in, raw_out = tomllib.loads(path.read_text()), tomllib.loads(out.read_text())
    assert list(raw_out["state"]["q"]) == list(raw_in["state"]["q"])  # the same keys, in the same order
    raw_in["state"]["q"] = raw_out["state"]["q"] = None
    assert raw_in == raw_out


def test_degrees_are_written_back_in_degrees(tmp_path, capsys):
    path = _perturbed(tmp_path, "two_link_wall")
    out = tmp_path / "out.toml"
    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    capsys.readouterr()
    q = tomllib.loads(out.read_text())["state"]["q"]
    assert set(q) == {"x", "y", "theta_deg", "theta1_deg"}
    # −0.0898 against −L cos 45° = −0.08980256: a turn of a few thousandths of a degree
    assert q["theta_deg"] != 135.0 and abs(q["theta_deg"] - 135.0) < 0.01
    assert q["theta1_deg"] != -90.0 and abs(q["theta1_deg"] + 90.0) < 0.01
    loaded = load_system_file(out)
    assert loaded.q[2] == pytest.approx(math.radians(q["theta_deg"]), rel=1e-15)


def test_snap_is_the_minimum_norm_change(tmp_path, capsys):
    """The snapped q is the nearest point of {q : every gap = 0} in the scaled norm: an
    independent solve of the problem's first-order (KKT) conditions ``z − z₀ = ∇g(z)ᵀ λ``,
    ``g(z) = 0`` (MINPACK's ``hybr`` from ``z₀``, the gaps' Jacobian by central differences, its
    status and residual checked) finds the same point. The change is ~1e-5 of the robot's size,
    far inside the gaps' curvature radius, so that stationary point is the minimum. (An SLSQP
    oracle stopped here at its iteration limit under another BLAS kernel: its stopping test on
    an objective of ~1e-10 depends on rounding.)"""
    path = _perturbed(tmp_path, "six_link_wall")
    out = tmp_path / "out.toml"
    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    capsys.readouterr()
    before = system_geometry(path)
    loaded = load_system_file(out)
    mech = loaded.mechanism
    L = mech.characteristic_scales(before.q, before.qdot).length
    w = _weights(mech, L)
    z0 = w * before.q
    n = z0.size

    def gaps(z):
        return mech.contact_gaps(z / w) / L

    def gaps_jacobian(z, h=1e-6):  # truncation ~h² · curvature: 1e-12, times λ ~ 1e-5
        return np.array([(gaps(z + h * e) - gaps(z - h * e)) / (2 * h) for e in np.eye(n)]).T

    def kkt(v):
        z, lam = v[:n], v[n:]
        return np.concatenate([z - z0 - gaps_jacobian(z).T @ lam, gaps(z)])

    m = gaps(z0).size
    best = root(kkt, np.concatenate([z0, np.zeros(m)]), method="hybr", options={"xtol": 1e-14})
    assert best.success, best.message
    assert np.abs(kkt(best.x)).max() < 1e-12 and np.abs(gaps(best.x[:n])).max() < 1e-12
    assert 1e-6 < np.abs(best.x[:n] - z0).max() < 1e-4  # the rounding to five digits moved it
    np.testing.assert_allclose(w * loaded.q, best.x[:n], rtol=0.0, atol=1e-8)  # the change is ~1e-5


def test_snap_keeps_the_normal_velocities(tmp_path, capsys):
    """A velocity along the surfaces at the written state would approach a wall at the snapped q;
    the snapped file has q̇ changed (smallest change) so no contact approaches, keys in their own
    units (deg/s under ``_deg``)."""
    path = _perturbed(tmp_path, "six_link_wall")
    geometry = system_geometry(path)
    mech = load_system_file(EXAMPLES / "six_link_brace.toml").mechanism
    Jn = mech.dynamics(geometry.q, np.zeros(mech.n_q)).J[1::2]
    qd = _along_surfaces(Jn)  # every contact's normal velocity is 0 at the written state
    assert abs(qd[0]) < 1e-12 and np.abs(qd[2:]).min() > 1e-2
    parts = [f"{c}_deg = {math.degrees(v)!r}" if c in ("theta1", "theta5") else f"{c} = {float(v)!r}"
             for c, v in zip(mech.coordinates, qd) if c != "x"]
    path = _perturbed(tmp_path, "six_link_wall", qdot="qdot = { " + ", ".join(parts) + " }")
    out = tmp_path / "out.toml"

    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    text = capsys.readouterr().out
    assert "state.qdot is adjusted" in text and "changes normal velocities" in text
    loaded = load_system_file(out)
    qdot_in = system_geometry(path).qdot
    # with the written q̇ the snapped q would make a contact approach its wall: the analysis would fail
    with pytest.raises(ApproachingContactError):
        velocity_allowed(loaded.mechanism.contact_system(loaded.q, qdot_in))
    velocity_allowed(loaded.system)  # with the snapped q̇ it does not
    np.testing.assert_allclose(loaded.system.v_contact[1::2], 0.0, atol=1e-12)
    assert np.abs(loaded.qdot - qdot_in).max() < 1e-4  # a small change
    raw = tomllib.loads(out.read_text())["state"]["qdot"]
    assert {"theta1_deg", "theta5_deg", "theta2"} <= set(raw)
    assert raw["theta5_deg"] == pytest.approx(math.degrees(loaded.qdot[7]), rel=1e-15)
    assert np.all(np.abs(_forward_gaps(out)[0]) <= _forward_gaps(out)[1])


def test_write_onto_the_input_is_refused(tmp_path, capsys):
    path = _perturbed(tmp_path, "rhex_base_position")
    input_bytes = path.read_bytes()
    link = tmp_path / "link.toml"
    link.symlink_to(path)
    for target in (path, link):
        assert main(["check", str(path), "--snap", "--write", str(target)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--write" in err[0] and "input file" in err[0]
    assert path.read_bytes() == input_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.toml", "rhex_base_position.toml"]


def test_unreachable_surface_is_one_line_naming_the_contact(tmp_path):
    text = (EXAMPLES / "two_link_brace.toml").read_text()
    path = tmp_path / "far.toml"  # the joint's wall 0.3 m from the other wall: the links are 0.127 m long
    path.write_text(text.replace("surface_point = [-0.08980256121069154, 0.0]", "surface_point = [-0.3, 0.0]"))
    out = tmp_path / "out.toml"
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "check", str(path), "--snap", "--write", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("contactmodes: error: contacts[2]: contact 'joint' cannot be put on its surface")
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["far.toml"]


def test_a_file_the_loader_accepts_is_left_as_written(tmp_path, capsys):
    source = EXAMPLES / "two_link_brace.toml"
    out = tmp_path / "out.toml"
    assert main(["check", str(source), "--snap", "--write", str(out)]) == 0
    text = capsys.readouterr().out
    assert "left as written" in text and "the loader accepts every contact" in text
    assert out.read_bytes() == source.read_bytes()
    assert main(["check", str(source), "--snap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["accepted"] is True and doc["snap"]["changed"] is False and doc["snap"]["keys"] == {"q": {}, "qdot": {}}


def test_json_document_and_json_input(tmp_path, capsys):
    path = _perturbed(tmp_path, "rhex_base_position")
    assert main(["check", str(path), "--snap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "contactmodes.check/1" and doc["accepted"] is True
    snap = doc["snap"]
    assert snap["changed"] is True and snap["written"] is None and snap["qdot_changed"] is False
    assert max(abs(g) for g in snap["gaps_input"]) > 1e-6 and max(abs(c["gap"]) for c in doc["contacts"]) < 1e-12
    assert set(snap["keys"]["q"]) <= {"y", "theta_deg", "phi1", "phi2", "phi3"} and "theta_deg" in snap["keys"]["q"]

    as_json = tmp_path / "rhex.json"
    as_json.write_text(json.dumps(tomllib.loads(path.read_text())))
    out = tmp_path / "out.json"
    assert main(["check", str(as_json), "--snap", "--write", str(out)]) == 0
    capsys.readouterr()
    assert load_system_file(out).q.tolist() == pytest.approx(doc["q"], rel=0.0, abs=1e-15)
    assert main(["check", str(as_json), "--snap", "--write", str(tmp_path / "out.toml")]) == 2
    assert "--write" in capsys.readouterr().err and not (tmp_path / "out.toml").exists()


def test_write_needs_snap(tmp_path, capsys):
    out = tmp_path / "out.toml"
    assert main(["check", str(EXAMPLES / "two_link_brace.toml"), "--write", str(out)]) == 2
    assert "--write: needs --snap" in capsys.readouterr().err and not out.exists()


def test_state_written_as_tables_keeps_comments_and_layout(tmp_path, capsys):
    """``[state.q]`` / ``[state.qdot]`` tables, comments and a description quoting a state: only the
    numbers of the snapped keys change, a missing q̇ key is added to its table."""
    text = (EXAMPLES / "six_link_brace.toml").read_text()
    text = text.replace('surface_point = [-0.2801286071159205, 0.0]', 'surface_point = [-0.28013, 0.0]')
    start = text.index("[state]")
    end = text.index("\n", text.index("qdot = {}", start))
    state = ("[state.q]   # where the brace stands\nx = 0.0\ny = 0.0\ntheta_deg = 160.0  # first link\n"
             "theta1_deg = -20.0\ntheta2_deg = -20.0\ntheta3_deg = -60.0\ntheta4_deg = -20.0\n"
             "theta5_deg = -20.0\n\n[state.qdot]\n")
    path = tmp_path / "tables.toml"
    path.write_text('description = """a state: q = { theta_deg = 160.0 } # not a comment"""\n'
                    + text[text.index("\n", text.index("description")) + 1 : start] + state + text[end + 1 :])
    mech = load_system_file(EXAMPLES / "six_link_brace.toml").mechanism
    qd = _along_surfaces(mech.dynamics(system_geometry(path).q, np.zeros(mech.n_q)).J[1::2])
    path.write_text(path.read_text().replace("[state.qdot]\n", "[state.qdot]\n" + "".join(
        f"{c} = {float(v)!r}  # rad/s\n" for c, v in zip(mech.coordinates, qd) if c not in ("x", "theta4"))))
    with pytest.raises(SystemFileError):
        load_system_file(path)
    out = tmp_path / "out.toml"
    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    capsys.readouterr()
    loaded = load_system_file(out)
    assert np.all(np.abs(_forward_gaps(out)[0]) <= _forward_gaps(out)[1])
    v_n = [float(c.velocity[1]) for c in system_geometry(path).contacts]  # theta4 = 0: not all zero
    assert max(map(abs, v_n)) > 1e-3
    np.testing.assert_allclose(loaded.system.v_contact[1::2], v_n, rtol=0.0, atol=1e-12)
    new = out.read_text()
    assert new.startswith('description = """a state: q = { theta_deg = 160.0 } # not a comment"""\n')
    assert "[state.q]   # where the brace stands\n" in new and "  # first link\n" in new
    assert new.count("  # rad/s\n") == 6
    raw = tomllib.loads(new)["state"]
    assert raw["q"]["theta_deg"] != 160.0 and "theta4_deg" in raw["qdot"]  # the spelling of state.q
    old = tomllib.loads(path.read_text())
    del old["state"], raw
    new_doc = tomllib.loads(new)
    del new_doc["state"]
    assert new_doc == old


def test_the_issues_fixed_base_reproducer(tmp_path, capsys):
    """Issue 22: ``base_position = 0.17320`` against 0.1732051 (= 0.2 sin 60°): a fixed-base link of
    0.2 m at −60° whose tip is on the ground. The base position is not a state value: the snap
    turns the link (in degrees, as written) instead."""
    path = tmp_path / "arm.toml"
    path.write_text(
        '[mechanism]\nbase = "fixed"\nbase_position = [0.0, 0.17320]   # 0.2 sin 60 deg, five digits\n\n'
        '[[links]]\nname = "arm"\njoint = "phi"\nmass = 1.0\ncom = [0.1, 0.0]\ninertia = 0.003\n\n'
        '[[contacts]]\nname = "tip"\nlink = "arm"\nposition = [0.2, 0.0]\nsurface_point = [0.0, 0.0]\n'
        'surface_normal = [0.0, 1.0]\nmu = 0.5\n\n'
        '[[actuators]]\nname = "tau"\ncoordinate = "phi"\n\n'
        '[state]\nq = { phi_deg = -60.0 }\n')
    with pytest.raises(SystemFileError, match="contact 'tip' does not touch its surface"):
        load_system_file(path)
    out = tmp_path / "out.toml"
    assert main(["check", str(path), "--snap", "--write", str(out)]) == 0
    assert "state.q.phi_deg" in capsys.readouterr().out
    phi = tomllib.loads(out.read_text())["state"]["q"]["phi_deg"]
    # the tip on y = 0: 0.17320 + 0.2 sin(phi) = 0
    assert phi == pytest.approx(math.degrees(math.asin(-0.17320 / 0.2)), abs=1e-12)
    assert 1e-3 < abs(phi + 60.0) < 1e-2  # 5e-6 m at 0.1 m lever: 5e-5 rad = 0.003 deg
    gaps, tol = _forward_gaps(out)
    assert abs(gaps[0]) <= tol
    assert "base_position = [0.0, 0.17320]   # 0.2 sin 60 deg, five digits" in out.read_text()
