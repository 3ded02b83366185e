"""The closed loop does not give up silently (``contactmodes simulate --controller control``): every
control step's controller status is in the document (``controller_status``), the steps without
an acceptable mode are counted in the summary and warned about on stderr, the command exits with 1
when there were any, and such a step applies the controller's fallback torque, not zero
(``controllers.generic.controller``, *Fallback*).

* The two-finger gripper of ``tests/data/cases/gripper_squeeze.toml`` (``FFFF`` accepted,
  maximize the fingertips' normal forces): it lost its grasp under the zero torque of the steps
  without an acceptable mode. Whatever the controller's statuses, the document records one per
  step, the exit status and the warning follow them, a step without an acceptable mode holds the
  previous step's torque, and the fingertips never separate.
* The two-link brace accepting only ``FFS`` (base and tip sticking, the joint contact leaving),
  which is never kinematically feasible here (the independent oracle,
  ``_support.oracle.kinematically_ok``: with two sticking contacts the brace cannot move, the
  third contact cannot accelerate away): every step has no acceptable mode and nothing to hold,
  so it applies the point of the limits nearest zero, 0.5 N·m of ``0.5:1``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("mujoco", reason="MuJoCo is the 'sim' extra: pip install 'contactmodes[sim]'")

from _support.oracle import kinematically_ok  # noqa: E402
from _support.paths import DATA, EXAMPLES  # noqa: E402
from _support.without import run_without  # noqa: E402
from contactmodes.schemas import validate  # noqa: E402
from contactmodes.system_file.loader import load_system_file  # noqa: E402

GRIPPER = DATA / "cases" / "gripper_squeeze.toml"
FALLBACK = ("no_mode", "error")
WARNING = re.compile(r"^contactmodes: warning: simulate: no acceptable mode at (\d+) of (\d+) control steps ")


def _run(path, *argv, cwd=None):
    return run_without((), "simulate", str(path), "--controller", "control", *argv, **({"cwd": cwd} if cwd else {}))


def test_the_gripper_keeps_its_grasp_and_every_status_is_recorded():
    proc = _run(GRIPPER, "--duration", "0.3", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    validate(doc)
    statuses = doc["controller_status"]
    assert isinstance(statuses, list) and len(statuses) == len(doc["t"]) == 30
    fallback = [k for k, st in enumerate(statuses) if st.startswith(FALLBACK)]
    assert statuses[0] == "optimal"
    torque = list(zip(*doc["torque"].values()))
    for k in fallback:  # held, never zero
        assert statuses[k] == "no_mode_held" and torque[k] == torque[k - 1], (k, statuses[k])
    assert all(any(abs(v) > 0.1 for v in tau) for tau in torque)
    warnings = [line for line in proc.stderr.splitlines() if WARNING.match(line)]
    if fallback:
        assert proc.returncode == 1 and len(warnings) == 1
        assert WARNING.match(warnings[0]).groups() == (str(len(fallback)), "30")
    else:
        assert proc.returncode == 0 and not warnings
    assert all(m == "F" for c in ("tip_l", "tip_r") for m in doc["modes"][c]), doc["modes"]  # the grasp holds
    assert doc["penetrations"] == []  # the palm lies inside the block's side lines from the start: not watched


@pytest.fixture
def never_feasible(tmp_path) -> Path:
    text = (EXAMPLES / "two_link_brace.toml").read_text()
    path = tmp_path / "brace_ffs.toml"
    path.write_text(text + '\n[control]\nminimize = "tau.tau1"\nmodes = ["FFS"]\n\n[control.limits]\ntau1 = "0.5:1"\n')
    loaded = load_system_file(path)
    assert not kinematically_ok(loaded.system, "FFS")
    return path


def test_steps_without_an_acceptable_mode_are_counted_warned_and_exit_1(never_feasible, tmp_path):
    out = tmp_path / "run.json"
    proc = _run(never_feasible, "--duration", "0.05", "--json", "--output", out)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and WARNING.match(lines[0]).groups() == ("5", "5"), lines
    assert "first at t = 0 s" in lines[0] and "no_mode_zero 5" in lines[0]
    doc = json.loads(out.read_text())  # the run is written: it completed
    validate(doc)
    assert doc["controller_status"] == ["no_mode_zero"] * 5
    assert doc["torque"] == {"tau1": [0.5] * 5}  # the limits' point nearest zero, not zero
    proc = _run(never_feasible, "--duration", "0.05")
    assert proc.returncode == 1
    summary = proc.stdout.splitlines()
    assert "controller: no_mode_zero 5" in summary
    assert any(line.startswith("no acceptable mode at 5 of 5 control steps (first at t = 0 s)") for line in summary)


def test_a_controller_without_statuses_records_none_and_warns_of_nothing():
    proc = run_without((), "simulate", str(EXAMPLES / "two_link_brace.toml"), "--controller", "zero",
                       "--duration", "0.05", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["controller_status"] is None
