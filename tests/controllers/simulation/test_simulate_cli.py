"""``contactmodes simulate`` (controllers.simulation.cli): exit statuses, one-line errors,
nothing written on an error, ``--json`` against its schema, the pictures, and the ``sim`` extra's
message when MuJoCo is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from _support.without import run_without  # noqa: E402
from contactmodes.schemas import validate  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
BRACE = str(ROOT / "examples" / "two_link_brace.toml")

def _cli(*argv, blocked=(), cwd=ROOT):
    return run_without(blocked, "simulate", *argv, cwd=cwd)


def test_json_is_valid_and_matches_the_run():
    proc = _cli(BRACE, "--controller", "constant:-0.5", "--duration", "0.2", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    assert doc["schema"] == "contactmodes.simulation/1" and doc["engine"]["name"] == "mujoco"
    assert len(doc["t"]) == 20 and doc["t"][1] == pytest.approx(0.01)
    assert set(doc["q"]) == {"x", "y", "theta", "theta1"} and all(len(v) == 20 for v in doc["q"].values())
    assert doc["torque"] == {"tau1": [-0.5] * 20}
    assert doc["modes"] == {c: ["F"] * 20 for c in ("base", "tip", "joint")}
    assert doc["prediction"] is None  # a constant torque predicts nothing
    assert all(v["speed_m_s"] < 1e-4 for v in doc["creep"].values())
    assert doc["plant_difference"]["floored_links"] == ["link2"]


@pytest.mark.parametrize("argv, message", [
    (["--controller", "spin", "--duration", "1"], "--controller: expected one of control, zero, constant:TAU1,TAU2,..., got 'spin'"),
    (["--controller", "constant:1,2", "--duration", "1"], "--controller: constant: expected 1 value(s) (one per actuator: tau1), got 2"),
    (["--controller", "constant:x", "--duration", "1"], "--controller: constant: expected numbers TAU1,TAU2,..., got 'x'"),
    (["--controller", "zero", "--duration", "-1"], "--duration: must be a finite number > 0, got -1"),
    (["--controller", "zero", "--duration", "1", "--rate", "300"],
     "--rate: the control period 1/300 s must be a whole number of simulation steps of 0.0005 s (--dt), got 6.66667"),
    (["--controller", "control", "--duration", "1"], None),
])
def test_user_errors_are_one_line_exit_2_and_write_nothing(tmp_path, argv, message):
    out = tmp_path / "out.json"
    plot = tmp_path / "p.png"
    proc = _cli(BRACE, *argv, "--output", out, "--plot", plot)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactmodes: error: ")
    if message is not None:
        assert lines[0] == f"contactmodes: error: {message}"
    else:
        assert lines[0].startswith("contactmodes: error: --controller: control: ")
    assert not out.exists() and not plot.exists() and list(tmp_path.iterdir()) == []


def test_a_bad_file_names_its_field(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(BRACE).read_text().replace("mu = 0.3", "mu = -0.3", 1))
    proc = _cli(bad, "--controller", "zero", "--duration", "0.1")
    assert proc.returncode == 2
    assert proc.stderr.startswith("contactmodes: error: contacts[0].mu: ") and proc.stderr.count("\n") == 1


def test_without_mujoco_it_names_the_extra(tmp_path):
    out = tmp_path / "o.txt"
    proc = _cli(BRACE, "--controller", "zero", "--duration", "0.1", "--output", out, blocked=("mujoco",))
    assert proc.returncode == 2
    assert proc.stderr == "contactmodes: error: simulate: needs mujoco: pip install 'contactmodes[sim]'\n"
    assert not out.exists()


def test_pictures_and_output_are_written(tmp_path):
    pytest.importorskip("matplotlib", reason="the pictures are the 'plot' extra")
    plot, gif, out = tmp_path / "run.png", tmp_path / "run.gif", tmp_path / "summary.txt"
    proc = _cli(BRACE, "--controller", "zero", "--duration", "0.05", "--plot", plot, "--animate", gif,
                "--output", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")
    assert out.read_text().startswith("two_link_brace under zero: 5 control steps of 0.01 s")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.gif", "run.png", "summary.txt"]  # no temporaries


def test_ctrl_c_stops_with_one_line_and_writes_nothing(tmp_path):
    import signal
    import time

    out, plot = tmp_path / "o.json", tmp_path / "p.png"
    proc = subprocess.Popen([sys.executable, "-m", "contactmodes", "simulate", BRACE, "--controller", "zero",
                             "--duration", "1000", "--json", "--output", str(out), "--plot", str(plot)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4.0)  # past the imports: the loop is running
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "contactmodes: interrupted"
    assert stdout == "" and list(tmp_path.iterdir()) == []


def test_the_files_limits_clamp_the_torque(tmp_path):
    """[control.limits] tau1 = "-0.3:0.3": a held -0.5 N·m is applied as -0.3 (the motor's
    ctrlrange and the controller's clamp), still inside FFF's domain (tau1 <= -0.1926): it holds."""
    path = tmp_path / "limited.toml"
    path.write_text(Path(BRACE).read_text() + '\n[control.limits]\ntau1 = "-0.3:0.3"\n')
    proc = _cli(path, "--controller", "constant:-0.5", "--duration", "0.1", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["torque"]["tau1"] == [-0.3] * 10
    assert all(doc["modes"][c] == ["F"] * 10 for c in doc["contacts"])


def test_a_torque_beyond_mujocos_largest_control_is_refused_up_front(tmp_path):
    """MuJoCo discards a control beyond 1e10 (``mujoco.mjMAXVAL``) and applies zero: a constant one
    is bad input, named before the run; clamped by the file's limits it is what it becomes."""
    out = tmp_path / "o.json"
    proc = _cli(BRACE, "--controller", "constant:1e11", "--duration", "0.05", "--output", out, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == ("contactmodes: error: --controller: constant: tau1 = 1e+11 is beyond MuJoCo's largest "
                           "control (1e+10; MuJoCo would apply 0)\n")
    assert list(tmp_path.iterdir()) == []
    limited = tmp_path / "limited.toml"
    limited.write_text(Path(BRACE).read_text() + '\n[control.limits]\ntau1 = "-0.3:0.3"\n')
    proc = _cli(limited, "--controller", "constant:-1e11", "--duration", "0.05", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["torque"] == {"tau1": [-0.3] * 5}


def test_mujoco_warnings_mid_run_are_one_line_exit_1_and_write_nothing(tmp_path):
    """A controller whose torque MuJoCo discards (the file's limits allow 1e11 N·m, the objective
    takes it) and a disturbance that makes the plant diverge: MuJoCo's warning is the command's
    one line, exit 1, no output, no picture, and no ``MUJOCO_LOG.TXT`` in the current folder (it
    was discarded silently, exit 0, and logged there)."""
    path = tmp_path / "huge.toml"
    path.write_text(Path(BRACE).read_text() + '\n[control]\nminimize = "tau.tau1"\n\n[control.limits]\n'
                    'tau1 = "-1e11:1e11"\n')
    work = tmp_path / "work"
    work.mkdir()
    cases = [
        (["--controller", "control"], "a control that is NaN, infinite or beyond 1e10 (it was set to zero) before t = 0.01 s"),
        (["--controller", "zero", "--disturbance", "y=-1e13"], "bad accelerations: the simulation diverged"),
    ]
    for argv, meaning in cases:
        proc = _cli(path, *argv, "--duration", "0.1", "--json", "--output", work / "o.json", "--plot", work / "p.png",
                    cwd=work)
        assert proc.returncode == 1, proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"contactmodes: error: simulation: MuJoCo: {meaning}"), lines
        assert lines[0].endswith("; nothing written") and proc.stdout == ""
        assert list(work.iterdir()) == []


def test_the_step_count_is_checked_before_anything_is_allocated(tmp_path):
    proc = _cli(BRACE, "--controller", "zero", "--duration", "1e9", "--output", tmp_path / "o.txt")
    assert proc.returncode == 2
    assert proc.stderr == ("contactmodes: error: --duration: 1e+09 s at 100 Hz is 100000000000 control steps, more "
                           "than the limit of 100000 (give --max-steps 100000000000 to run it anyway)\n")
    assert list(tmp_path.iterdir()) == []
    proc = _cli(BRACE, "--controller", "zero", "--duration", "0.05", "--max-steps", "4")
    assert proc.returncode == 2 and "--duration: 0.05 s at 100 Hz is 5 control steps" in proc.stderr
    assert _cli(BRACE, "--controller", "zero", "--duration", "0.05", "--max-steps", "5").returncode == 0


STICK = """name = "stick"
gravity = 9.81

[mechanism]
base = "floating"

[[links]]
name = "stick"
mass = 1.0
inertia = 0.0833
com = [0.5, 0.0]

[[contacts]]
name = "end"
link = "stick"
position = [0.0, 0.0]
surface_point = [0.0, 0.0]
surface_normal = [0.0, 1.0]
mu = 2.0
v0 = 0.001

[state]
q = { x = 0.0, y = 0.0, theta_deg = 3.0 }
qdot = {}
"""


def test_a_link_below_the_floor_is_warned_about_and_recorded(tmp_path):
    """A 1 m stick resting on one end at 3° from the floor falls flat and, colliding only at its
    contact point, through the floor: its free end is 0.052 m above the floor at the start and is
    found below it (a warning, an entry of ``penetrations``, the exit status unchanged)."""
    path = tmp_path / "stick.toml"
    path.write_text(STICK)
    proc = _cli(path, "--controller", "zero", "--duration", "0.5", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    (entry,) = doc["penetrations"]
    assert entry["link"] == "stick" and entry["surface"] == ["end"] and 0 < entry["first_s"] < 0.5
    assert entry["depth_m"] > 1e-3
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactmodes: warning: simulate: link stick went ") and \
        "below the surface of contact(s) end" in lines[0]
    proc = _cli(path, "--controller", "zero", "--duration", "0.05", "--json")  # still above it after 0.05 s
    assert proc.returncode == 0 and proc.stderr == "" and json.loads(proc.stdout)["penetrations"] == []
