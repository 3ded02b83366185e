"""``contactmodes impact``: exit statuses 0/1/2, one-line errors, nothing written on error, the
JSON document, ``--output``, and the approaching-contact error of ``analyze`` pointing here."""

from __future__ import annotations

import json

import pytest

from contactmodes.cli import main
from contactmodes.schemas import validate

BLOCK = "examples/impact/rocking_block.toml"
WHEEL = "examples/impact/rocking_block_wheel.toml"


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_text_and_json(capsys):
    status, out, err = run(["impact", BLOCK], capsys)
    assert status == 0 and not err
    assert "SF:" in out and "one outcome" in out
    status, out, _ = run(["impact", BLOCK, "--json", "--pseudo-impulse", "0.03"], capsys)
    doc = json.loads(out)
    validate(doc)
    assert status == 0 and doc["pseudo_impulse"] == 0.03 and "FF" in doc["consistent_modes"]
    assert doc["scope"] == {"approaching": ["right"], "touching": ["left"], "separating": []}


def test_limit_gives_the_torque_box_of_the_pseudo_impulse(capsys):
    """The block with its reaction wheel comes to rest (``FF``) for a wheel moment of at least
    0.718 N·m (``test_impact_closed_forms.test_reaction_wheel_torque_sets``): within −1:1 N·m both
    ``FF`` (from 0.718) and ``SF`` (up to 0.718) are reachable, within −1:0.5 only ``SF``; the torque
    sets are cut to the box and the document records it."""
    status, out, _ = run(["impact", WHEEL, "--pseudo-impulse", "0.03", "--limit", "wheel=-1:1", "--json"], capsys)
    doc = json.loads(out)
    validate(doc)
    assert status == 0 and doc["torque_box"] == {"lo": [-1.0], "hi": [1.0]}
    assert doc["consistent_modes"] == ["FF", "SF"]
    ff = next(o for o in doc["outcomes"] if o["mode"] == "FF")
    assert ff["pseudo_kept"] == ["left"] and 0.718 <= ff["torque"][0] <= 1.0
    assert ff["impulse"][0]["n"] >= 0.0 > ff["plastic_impulse"][0]["n"]  # P_1n < 0, P + δ_t f >= 0
    status, out, _ = run(["impact", WHEEL, "--pseudo-impulse", "0.03", "--limit", "wheel=-1:0.5"], capsys)
    assert status == 0 and "one outcome" in out and "SF:" in out and "FF:" not in out
    assert "torques wheel -1:0.5" in out


def test_output_file(tmp_path, capsys):
    target = tmp_path / "impact.json"
    status, out, _ = run(["impact", BLOCK, "--json", "--output", str(target)], capsys)
    assert status == 0 and out == ""
    assert json.loads(target.read_text())["consistent_modes"] == ["SF"]


@pytest.mark.parametrize("argv, field", [
    (["impact", "examples/impact/no_such.toml"], "no such file"),
    (["impact", BLOCK, "--pseudo-impulse", "-0.1"], "--pseudo-impulse"),
    (["impact", BLOCK, "--pseudo-impulse", "soon"], "--pseudo-impulse"),
    (["impact", BLOCK, "--pseudo-impulse", "inf"], "--pseudo-impulse"),
    (["impact", WHEEL, "--limit", "wheel=-1:1"], "--limit"),  # a box without a pseudo-impulse
    (["impact", WHEEL, "--pseudo-impulse", "0.03", "--limit", "wheel=1"], "--limit wheel"),
    (["impact", WHEEL, "--pseudo-impulse", "0.03", "--limit", "wheel=2:1"], "--limit wheel"),
    (["impact", WHEEL, "--pseudo-impulse", "0.03", "--limit", "hub=-1:1"], "--limit"),
])
def test_user_errors_exit_2_with_one_line(argv, field, tmp_path, capsys):
    target = tmp_path / "never.json"
    status, out, err = run(argv + ["--output", str(target)], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("contactmodes: error: ") and field in err
    assert not target.exists()


def test_output_into_a_missing_directory_is_refused(tmp_path, capsys):
    status, _, err = run(["impact", BLOCK, "--output", str(tmp_path / "nope" / "x.json")], capsys)
    assert status == 2 and "--output" in err and err.count("\n") == 1


def test_no_consistent_outcome_exits_1(monkeypatch, tmp_path, capsys):
    """Impact-inconsistent (no outcome) is the command's "no" answer: status 1, output still
    written. A plastic impact with positive mass always has an outcome (the LCP has a solution),
    so the empty result is substituted."""
    import contactmodes.impact.outcomes as outcomes

    class Empty:
        consistent_modes: list = []

        def format_text(self):
            return "impact-inconsistent: no outcome"

    monkeypatch.setattr(outcomes, "impact", lambda *a, **k: Empty())
    target = tmp_path / "out.txt"
    status, _, err = run(["impact", BLOCK, "--output", str(target)], capsys)
    assert status == 1 and not err and "no outcome" in target.read_text()


def test_analyze_points_to_impact(tmp_path, capsys):
    text = open("examples/painleve_rod.toml").read().replace("y = 0.0, theta = 0.0 }\n", "y = -1.0, theta = 0.0 }\n")
    path = tmp_path / "landing.toml"
    path.write_text(text)
    status, _, err = run(["analyze", str(path)], capsys)
    assert status == 2 and "approaching" in err and "contactmodes impact" in err and err.count("\n") == 1
    status, out, _ = run(["impact", str(path)], capsys)
    assert status == 0 and "one outcome" in out


def test_analyze_after_the_impact(capsys):
    """``analyze --impact``: the outcomes, then the analysis at the post-impact state of each; the
    block rocking onto its right corner has that corner touching and the left one separating."""
    status, out, _ = run(["analyze", "examples/impact/rocking_block_wheel.toml", "--impact", "--json"], capsys)
    doc = json.loads(out)
    validate(doc)
    assert status == 0 and doc["consistent_modes"] == ["SF"]
    entry = next(o for o in doc["outcomes"] if o["mode"] == "SF")
    post = entry["post_impact"]
    assert post["schema"] == "contactmodes.analysis/1"
    assert {m["mode"] for m in post["modes"]} <= {"SF", "SS", "SL", "SR"}  # left separating: S only
    assert all(o["post_impact"] is None for o in doc["outcomes"] if not o["consistent"])
    status, out, _ = run(["analyze", "examples/impact/rocking_block_wheel.toml", "--impact"], capsys)
    assert status == 0 and "=== after outcome SF ===" in out


@pytest.mark.parametrize("argv, field", [
    (["analyze", "examples/impact/rocking_block_wheel.toml", "--impact", "--at", "1"], "--at"),
])
def test_analyze_impact_errors(argv, field, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and out == "" and field in err and err.count("\n") == 1
