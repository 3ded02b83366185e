"""``contactmodes analyze`` of systems without actuators (issue 25 item 5): the table says which
modes are consistent and gives the verdict; ``--at=`` and ``--inconsistency-box=`` take the one
point of ``R^0``; a value there is a one-line error naming the option (exit 2); ``--json``
validates with ``torque_domain`` of ``dim`` 0; ``plot`` refuses in one line; ``analyze --impact``
of a passive block analyses each outcome. The verdicts are those derived by hand in
``tests/contactmodes/analysis/test_passive.py``."""

from __future__ import annotations

import json

import pytest

from contactmodes.cli import main
from contactmodes.schemas import validate

BLOCK = "examples/passive/block_resting.toml"
ROD = "examples/passive/painleve_rod_passive.toml"


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def rows(out):
    """``mode -> consistent`` cell of the table."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("mode "))
    col = lines[head].split().index("consistent") - 1  # "dim w" is one header of two words
    table = {}
    for line in lines[head + 2:]:
        if not line.strip():
            break
        cells = line.split()
        table[cells[0]] = cells[col]
    return table


def test_block_table(capsys):
    status, out, err = run(["analyze", BLOCK], capsys)
    assert status == 0 and not err
    assert "torques: (none)" in out and "need at least one" not in out
    table = rows(out)
    assert table.pop("FF") == "yes" and set(table.values()) == {"no"}
    assert out.rstrip().endswith("verdict: unique (the one consistent mode is FF)")
    assert "facets" not in out and "bounds" not in out


def test_rod_inconsistent_and_ambiguous(capsys, tmp_path):
    status, out, _ = run(["analyze", ROD, "--inconsistency-box=", "--unambiguous"], capsys)
    assert status == 0 and rows(out) == {"S": "no", "L": "no"}
    assert "inconsistent (no mode has a solution): yes" in out and "verdict: inconsistent" in out
    spinning = tmp_path / "rod.toml"
    spinning.write_text(open(ROD).read().replace("theta = 0.0 }", "theta = 6.0 }"))
    status, out, _ = run(["analyze", str(spinning), "--unambiguous", "--overlaps"], capsys)
    assert status == 0 and rows(out) == {"S": "yes", "L": "yes"}
    assert "S ∩ L" in out and "verdict: ambiguous (2 consistent modes: S, L)" in out


def test_at_and_json(capsys):
    status, out, _ = run(["analyze", BLOCK, "--at="], capsys)
    assert status == 0 and out.strip() == "consistent modes (no actuators: T_c contains the point ()): FF"
    status, out, _ = run(["analyze", BLOCK, "--json", "--at=", "--inconsistency-box=", "--unambiguous"], capsys)
    doc = json.loads(out)
    validate(doc)
    assert status == 0 and doc["system"]["torques"] == [] and doc["at"] == {"tau": [], "modes": ["FF"], "tol": 0.0, "nearest": None}
    assert doc["inconsistent"] == [] and doc["inconsistency_box"] == {"lo": [], "hi": []}
    by_mode = {m["mode"]: m for m in doc["modes"]}
    assert by_mode["FF"]["feasible"] and by_mode["FF"]["torque_domain"]["dim"] == 0
    assert all(not m["feasible"] and m["torque_domain"] is None for k, m in by_mode.items() if k != "FF")


@pytest.mark.parametrize("argv, field", [
    (["analyze", BLOCK, "--at", "1"], "--at"),
    (["analyze", BLOCK, "--inconsistency-box", "-1:1"], "--inconsistency-box"),
    (["plot", BLOCK, "--output", "never.png"], "torques"),
    (["plot", BLOCK, "--html", "never.html"], "--html"),
])
def test_one_line_errors(argv, field, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and out == "" and field in err and "no actuators" in err and err.count("\n") == 1


def test_analyze_impact_of_a_passive_block(capsys):
    status, out, err = run(["analyze", "examples/impact/rocking_block.toml", "--impact"], capsys)
    assert status == 0 and not err
    assert "=== after outcome SF ===" in out and "\nverdict: " in out
    # after the impact (q' = (0.07, 0.035, -1.4)) the left corner lifts at (0, 0.07): S only
    assert set(rows(out.split("=== after outcome SF ===")[1])) <= {"SS", "SF", "SL", "SR"}


def test_friction_interval_section(capsys, tmp_path):
    # at rest FF holds for every mu >= 0 (the squeeze w = 0 needs no friction): consistent over the box
    box = tmp_path / "block.toml"
    box.write_text(open(BLOCK).read().replace("mu = 0.5", "mu = [0.4, 0.6]"))
    status, out, _ = run(["analyze", str(box), "--unambiguous"], capsys)
    assert status == 0 and "FF: some mu consistent; every mu consistent; T*_c robust consistent" in out
