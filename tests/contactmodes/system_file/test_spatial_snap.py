"""``contactmodes check FILE --snap`` on spatial files (``dimension = 3``), and the pieces it uses:
``SpatialMechanism.displace``, ``quaternion_rpy`` and array values in ``edit_numbers``.

Oracles: hand geometry (a box lifted off its slope comes back along the slope's normal, by the
closed-form minimum-norm translation; a tilted box on a floor is flat exactly when roll and pitch
are zero and its centre is half its height up), the corners' positions by hand from
``rpy_matrix``, the file's own state as a feasible point no snap may be farther from, and
Pinocchio's contact Jacobian for the retraction's first order.
"""

from __future__ import annotations

import json
import math
import tomllib

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.cli import main
from contactmodes.model.spatial_frames import quaternion_rpy, rpy_matrix, rpy_quaternion
from contactmodes.schemas import validate
from contactmodes.system_file.loader import load_system_file
from contactmodes.system_file.tomledit import TomlEditError, edit_numbers

pytest.importorskip("pinocchio")

SPATIAL = ROOT / "examples" / "spatial"
SLOPE = SPATIAL / "box_on_slope.toml"
SOLO = SPATIAL / "solo12_standing.toml"
ROUNDING = 1e-13 * 0.5
"""The snap's convergence test: gaps at rounding level, ``1e-13 · L`` (``snap._ROUNDING``; the box's
``L`` = 0.5 m): far below the loader's ``GAP_RTOL · L``."""
CORNERS = np.array([(0.2, 0.15, -0.05), (0.2, -0.15, -0.05), (-0.2, 0.15, -0.05), (-0.2, -0.15, -0.05)])


def _copy(tmp_path, source, replace=(), name="system.toml"):
    """``source`` with the robot path made absolute and the text replacements made (each once)."""
    text = source.read_text()
    for old, new in replace:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    robot = "box.urdf" if "box.urdf" in text else "solo12.urdf"
    text = text.replace(f'"{robot}"', json.dumps(str(SPATIAL / robot)), 1)
    path = tmp_path / name
    path.write_text(text)
    return path


def _snap_json(capsys, path, *extra):
    assert main(["check", str(path), "--snap", "--json", *extra]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)  # contactmodes.check/1: array-valued state keys
    return doc


def test_a_box_lifted_off_its_slope_comes_back_along_the_normal(tmp_path, capsys):
    """Lifted by ``h`` along ``z``, every corner's gap is ``h n_z``; with the corners symmetric about
    the box's centre the minimum-norm change is the translation ``−h n_z n`` (no rotation)."""
    h = 2e-5
    written = [-0.015811388300841896, 0.0, 0.04743416490252569]
    lifted = [written[0], written[1], written[2] + h]
    path = _copy(tmp_path, SLOPE, [(json.dumps(written).replace('"', ""), json.dumps(lifted))])
    doc = _snap_json(capsys, path)
    n = np.array([-1.0, 0.0, 3.0]) / math.sqrt(10.0)
    expected = np.array(lifted) - h * n[2] * n
    new = np.array(doc["snap"]["keys"]["q"]["base_position"])
    np.testing.assert_allclose(new, expected, rtol=0, atol=1e-15)
    assert set(doc["snap"]["keys"]["q"]) == {"base_position"}  # the orientation is kept as written
    np.testing.assert_allclose(doc["snap"]["gaps_input"], [h * n[2]] * 4, rtol=1e-9)
    assert doc["accepted"] and max(abs(c["gap"]) for c in doc["contacts"]) < ROUNDING
    assert doc["snap"]["length"] == pytest.approx(0.5)  # the box's diagonal, 2·sqrt(0.2² + 0.15²)


def test_a_tilted_box_on_the_floor_is_put_flat_and_rpy_degrees_are_written_back(tmp_path, capsys):
    """Written with roll 0.4°, pitch −0.3°, yaw 30°: flat on the floor means roll = pitch = 0 and the
    centre 0.05 m up (hand geometry); the rest moves only to second order in the tilt."""
    tilt = (0.4, -0.3)
    text = f"""
schema = "contactmodes.system/1"
name = "tilted_box"
dimension = 3
[mechanism]
urdf = {json.dumps(str(SPATIAL / "box.urdf"))}
base = "floating"
[state]
# written by hand: a comment the snap keeps
q = {{ base_position = [0.1, -0.2, 0.0505], base_rpy_deg = [{tilt[0]}, {tilt[1]}, 30.0] }}
"""
    for i, (x, y, z) in enumerate(CORNERS):
        text += (f'[[contacts]]\nname = "c{i + 1}"\nlink = "box"\nposition = [{x}, {y}, {z}]\n'
                 "surface_point = [0.0, 0.0, 0.0]\nsurface_normal = [0.0, 0.0, 1.0]\nmu = 0.5\n")
    path = tmp_path / "tilted.toml"
    path.write_text(text)
    out = tmp_path / "flat.toml"
    doc = _snap_json(capsys, path, "--write", str(out))
    rpy = np.array(doc["snap"]["keys"]["q"]["base_rpy_deg"])
    position = np.array(doc["snap"]["keys"]["q"]["base_position"])
    second_order = math.radians(max(map(abs, tilt))) ** 2
    assert abs(rpy[0]) < 1e-12 and abs(rpy[1]) < 1e-12
    assert abs(math.radians(rpy[2] - 30.0)) < second_order
    assert abs(position[2] - 0.05) < ROUNDING
    assert np.abs(position[:2] - [0.1, -0.2]).max() < 0.5 * second_order
    corners = position + CORNERS @ rpy_matrix(np.radians(rpy)).T  # hand geometry at the written state
    assert np.abs(corners[:, 2]).max() < ROUNDING
    written = out.read_text()
    assert "# written by hand: a comment the snap keeps" in written
    assert tomllib.loads(written)["state"]["q"]["base_rpy_deg"] == list(rpy)
    loaded = load_system_file(out)
    np.testing.assert_allclose(loaded.mechanism.contact_gaps(loaded.q), 0.0, atol=ROUNDING)


def test_solo_with_bent_joints_is_snapped_no_farther_than_the_written_stance(tmp_path, capsys):
    """Every joint of Solo-12 bent by up to 0.6°: the written stance is a state with every foot on
    the floor, at scaled distance ‖Δjoints‖ (rad) from the bent one; the snap finds a state at least
    as near (to second order), with every foot on the floor (Pinocchio's kinematics, reloaded)."""
    data = tomllib.loads(SOLO.read_text())
    joints = [k for k in data["state"]["q"] if not k.startswith("base_")]
    rng = np.random.default_rng(7)
    bends = rng.uniform(-0.6, 0.6, len(joints))
    replace = []
    for key, bend in zip(joints, bends):
        value = data["state"]["q"][key]
        old = f"{key} = {value!r}"
        assert SOLO.read_text().count(old) == 1, old
        new_value = float(value + (bend if key.endswith("_deg") else math.radians(bend)))
        replace.append((old, f"{key} = {new_value!r}"))
    path = _copy(tmp_path, SOLO, replace)
    out = tmp_path / "snapped.toml"
    doc = _snap_json(capsys, path, "--write", str(out))
    assert max(abs(g) for g in doc["snap"]["gaps_input"]) > 1e-4  # the bends lifted or sank the feet
    assert doc["accepted"] and max(abs(c["gap"]) for c in doc["contacts"]) < ROUNDING
    bent = np.radians(bends)
    first = load_system_file(out)
    before = load_system_file(SOLO)
    from contactmodes.system_file.snap import snap_state
    from contactmodes.system_file.spatial_file import parse_spatial_contents

    parsed = parse_spatial_contents(tomllib.loads(path.read_text()), str(path))
    result = snap_state(parsed.mechanism, parsed.q, parsed.qdot)
    assert result.scaled_change <= float(np.linalg.norm(bent)) * (1.0 + 1e-3)
    np.testing.assert_allclose(first.q, result.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(first.mechanism.contact_gaps(first.q), 0.0, atol=ROUNDING)
    assert before.q.shape == first.q.shape
    written = tomllib.loads(out.read_text())["state"]["q"]
    assert all(k in written for k in joints) and "base_quaternion" in written


def test_a_quaternion_file_is_written_back_as_a_quaternion(tmp_path, capsys):
    """The slope example turned 1° about the world x axis: the snap turns it back (roll = 0 on a
    slope rising along x) and writes ``base_quaternion``; the text keeps its comments."""
    loaded = load_system_file(SLOPE)
    q = loaded.mechanism.displace(loaded.q, np.array([0.0, 0.0, 0.0, math.radians(1.0), 0.0, 0.0]))
    old = "base_rpy = [0.0, -0.3217505543966422, 0.0]"
    new = "base_quaternion = " + json.dumps([float(x) for x in q[3:7]])
    path = _copy(tmp_path, SLOPE, [(old, new)])
    out = tmp_path / "out.toml"
    doc = _snap_json(capsys, path, "--write", str(out))
    quaternion = np.array(doc["snap"]["keys"]["q"]["base_quaternion"])
    R = rpy_matrix(quaternion_rpy(quaternion))
    n = np.array([-1.0, 0.0, 3.0]) / math.sqrt(10.0)
    np.testing.assert_allclose(R[:, 2], n, atol=1e-12)  # the bottom face on the slope
    assert abs(float(np.linalg.norm(quaternion)) - 1.0) < 1e-15
    assert "# out of the environment (normalized by the loader)" in out.read_text()


def test_an_unreachable_plane_is_one_line_and_nothing_is_written(tmp_path, capsys):
    """c1's plane moved 5 m up (parallel planes 4.7 m apart): a 0.5 m box cannot touch both."""
    path = _copy(tmp_path, SLOPE, [("surface_point = [0.0, 0.0, 0.0]      # the plane touched, in the world",
                                    "surface_point = [0.0, 0.0, 5.0]")])
    out = tmp_path / "out.toml"
    assert main(["check", str(path), "--snap", "--write", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "contacts[0]: contact 'c1' cannot be put on its surface" in err, err
    assert not out.exists()


# ------------------------------------------------------------------------------------------------
# the pieces


def test_displace_moves_points_by_the_contact_jacobian_to_first_order():
    """``displace(q, ε v)`` moves each contact point by ``ε J v + O(ε²)`` (Pinocchio's Jacobian)."""
    loaded = load_system_file(SOLO)
    mech = loaded.mechanism
    rng = np.random.default_rng(3)
    v = rng.normal(size=mech.n_v)
    J = mech.dynamics(loaded.q, np.zeros(mech.n_v)).J
    normals = J[2::3]
    errors = []
    for eps in (1e-3, 1e-4):
        moved = mech.contact_gaps(mech.displace(loaded.q, eps * v)) - mech.contact_gaps(loaded.q)
        errors.append(float(np.abs(moved - eps * normals @ v).max()))
    assert errors[1] < errors[0] / 50  # second order: a tenth of ε, a hundredth of the error
    q = mech.displace(loaded.q, v)
    assert abs(float(np.linalg.norm(q[3:7])) - 1.0) < 1e-15
    np.testing.assert_array_equal(q[7:], loaded.q[7:] + v[6:])


def test_displace_turns_the_base_by_the_rotation_vector_in_world_axes():
    loaded = load_system_file(SLOPE)
    turn = np.array([0.3, -0.2, 0.5])
    q = loaded.mechanism.displace(loaded.q, np.concatenate([[0.1, 0.2, 0.3], turn]))
    angle = float(np.linalg.norm(turn))
    k = turn / angle
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    Rturn = np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K  # Rodrigues
    R0 = rpy_matrix([0.0, -0.3217505543966422, 0.0])
    np.testing.assert_allclose(rpy_matrix(quaternion_rpy(q[3:7])), Rturn @ R0, atol=1e-15)
    np.testing.assert_allclose(q[:3], loaded.q[:3] + [0.1, 0.2, 0.3], atol=1e-17)


@pytest.mark.parametrize("seed", range(4))
def test_quaternion_rpy_inverts_rpy_quaternion_and_stays_near_the_written_angles(seed):
    rng = np.random.default_rng(seed)
    for _ in range(500):
        rpy = rng.uniform(-7.0, 7.0, 3)
        np.testing.assert_allclose(quaternion_rpy(rpy_quaternion(rpy), near=rpy), rpy, atol=1e-9)
        principal = quaternion_rpy(rpy_quaternion(rpy))
        assert abs(principal[1]) <= math.pi / 2 and abs(principal[0]) <= math.pi and abs(principal[2]) <= math.pi
        np.testing.assert_allclose(rpy_matrix(principal), rpy_matrix(rpy), atol=1e-14)


@pytest.mark.parametrize("offset", [0.0, 1e-9, -1e-12, 1e-16])
def test_quaternion_rpy_reproduces_the_rotation_near_gimbal_lock(offset):
    rng = np.random.default_rng(11)
    for _ in range(200):
        rpy = np.array([rng.uniform(-3, 3), rng.choice([-1.0, 1.0]) * math.pi / 2 + offset, rng.uniform(-3, 3)])
        out = quaternion_rpy(rpy_quaternion(rpy), near=rpy)
        np.testing.assert_allclose(rpy_matrix(out), rpy_matrix(rpy), atol=1e-14)


def test_edit_numbers_changes_arrays_in_place_and_adds_missing_array_keys():
    text = "# keep\n[state.q]\nbase_position = [0.0, 1e-3, 2]   # m\nknee = 0.5\n\n[state.qdot]\nknee = 0.0\n"
    edited = edit_numbers(text, {("state", "q", "base_position"): [0.25, 1e-3, -2.5],
                                 ("state", "qdot", "base_linear"): [1.0, 0.0, 0.0]})
    doc = tomllib.loads(edited)
    assert doc["state"]["q"] == {"base_position": [0.25, 1e-3, -2.5], "knee": 0.5}
    assert doc["state"]["qdot"] == {"knee": 0.0, "base_linear": [1.0, 0.0, 0.0]}
    assert "# keep" in edited and "1e-3" in edited and "# m" in edited  # untouched entries keep their spelling
    with pytest.raises(TomlEditError, match=r"state\.q\.base_position: not an array of 4 numbers"):
        edit_numbers(text, {("state", "q", "base_position"): [1.0, 0.0, 0.0, 0.0]})
    with pytest.raises(TomlEditError, match=r"state\.q\.knee: not an array of 3 numbers"):
        edit_numbers(text, {("state", "q", "knee"): [1.0, 0.0, 0.0]})
