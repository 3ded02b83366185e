"""CLI details (issue 13, item 4): negative ranges and points as option values in every
subcommand, and ``brace``'s exit status 1 when there is no bracing torque."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from contactmodes.cli import build_parser, main
from contactmodes.system_file.loader import load_system_file
from contactmodes.analysis.robust import robust_feasible_set

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PAINLEVE = str(EXAMPLES / "painleve_rod.toml")
RHEX = str(EXAMPLES / "rhex_flip_start.toml")
CLIMB = str(EXAMPLES / "five_link_climb.toml")


# ---- negative values --------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, field, value", [
    (["analyze", PAINLEVE, "--inconsistency-box", "-20:20"], "inconsistency_box", "-20:20"),
    (["analyze", PAINLEVE, "--inconsistency-box", "-20:-3"], "inconsistency_box", "-20:-3"),
    (["plot", RHEX, "--output", "p.png", "--box", "-2:6,-2:8"], "box", "-2:6,-2:8"),
    (["plot", RHEX, "--output", "p.png", "--at", "-1,2"], "at", "-1,2"),
    (["plot", RHEX, "--output", "p.png", "--at", "-.5"], "at", "-.5"),
    (["plot", RHEX, "--output", "p.png", "--at", "-1e-3,2,3"], "at", "-1e-3,2,3"),
    (["plot", RHEX, "--at", "-1,2", "--output", "p.png"], "at", "-1,2"),
])
def test_values_starting_with_minus_follow_their_option_with_a_space(argv, field, value):
    args = build_parser().parse_args(argv)
    assert getattr(args, field) == value
    spelled_with_equals = build_parser().parse_args(_with_equals(argv, value))
    assert getattr(spelled_with_equals, field) == value


def _with_equals(argv, value):
    i = argv.index(value)
    return argv[:i - 1] + [f"{argv[i - 1]}={value}"] + argv[i + 1:]


def test_every_subcommand_reads_negative_values_the_same_way():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, type(parser._subparsers._group_actions[0]))]
    assert {"analyze", "plot", "brace"} <= set(sub.choices)
    for name, subparser in sub.choices.items():  # plugins' parsers included
        assert type(subparser) is type(parser), name
    # a positional that starts with '-' and a digit is a value too
    assert parser.parse_args(["analyze", "-3.toml"]).file == "-3.toml"


def test_unknown_options_are_still_rejected(capsys):
    for argv in (["analyze", PAINLEVE, "--bogus"], ["analyze", PAINLEVE, "-x"],
                 ["plot", RHEX, "--output", "p.png", "--at"]):
        with pytest.raises(SystemExit) as exc:
            build_parser().parse_args(argv)
        assert exc.value.code == 2
    capsys.readouterr()


def test_negative_inconsistency_box_gives_the_same_answer_as_with_equals(capsys):
    assert main(["analyze", PAINLEVE, "--json", "--inconsistency-box", "-20:20"]) == 0
    spaced = json.loads(capsys.readouterr().out)
    assert main(["analyze", PAINLEVE, "--json", "--inconsistency-box=-20:20"]) == 0
    equals = json.loads(capsys.readouterr().out)
    assert spaced == equals
    assert spaced["inconsistency_box"] == {"lo": [-20.0], "hi": [20.0]}


def test_plot_with_negative_box_and_point(tmp_path):
    from contactmodes.cli.plot import plot_data

    args = build_parser().parse_args(["plot", RHEX, "--output", str(tmp_path / "p.png"),
                                      "--torques", "tau1,tau2", "--box", "-2:6,-2:8", "--at", "-1,2,6"])
    data = plot_data(args)
    assert np.array_equal(data.box[0], [-2.0, -2.0]) and np.array_equal(data.box[1], [6.0, 8.0])
    assert "tau3 = 6 N·m" in data.title
    out = tmp_path / "p1.png"
    assert main(["plot", PAINLEVE, "--output", str(out), "--box", "-8:-1"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---- brace: exit status 1 when there is no bracing torque ----------------------------------------
# Oracle: the climber's robust feasible set in mode FFF is (-inf, hi] with hi < 0 (computed below
# from the disturbance vertices). A bracing torque within |tau| <= B exists only if -B <= hi, so a
# bound B below -hi leaves no torque and a bound above it leaves one.


@pytest.fixture(scope="module")
def robust_top():
    T, _ = robust_feasible_set(load_system_file(CLIMB).system, "FFF")
    lo, hi = T.bounding_box()
    assert lo[0] == -np.inf and hi[0] < 0
    return float(hi[0])


def test_brace_without_a_torque_exits_1_with_its_usual_table(robust_top):
    bound = 0.9 * -robust_top
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "brace", CLIMB, "--torque-bound", f"{bound:.6g}"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "robust feasible set T'_c" in proc.stdout and "no torque:" in proc.stdout
    assert proc.stderr == ""


def test_brace_json_without_a_torque_exits_1_and_with_one_exits_0(tmp_path, robust_top):
    out = tmp_path / "none.json"
    assert main(["brace", CLIMB, "--json", "--torque-bound", f"{0.9 * -robust_top:.6g}", "--output", str(out)]) == 1
    doc = json.loads(out.read_text())
    assert doc["status"] == "empty" and doc["torque"] is None
    out = tmp_path / "one.json"
    bound = 1.1 * -robust_top
    assert main(["brace", CLIMB, "--json", "--torque-bound", f"{bound:.6g}", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["status"] == "optimal" and -bound - 1e-6 <= doc["torque"][0] <= robust_top + 1e-6


def test_brace_margin_larger_than_the_bound_box_exits_1(capsys):
    # least effort with margin 100 N·m inside |tau| <= 1 N·m: no ball that large fits in the box
    assert main(["brace", CLIMB, "--objective", "least-effort", "--margin", "100"]) == 1
    out = capsys.readouterr().out
    assert "no torque:" in out and "margin" in out


def test_brace_help_documents_the_exit_status(capsys):
    with pytest.raises(SystemExit):
        main(["brace", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit status" in text and "1 there is no bracing torque" in text
