"""``contactmodes analyze FILE --outputs ...`` (issue 40, item 5): the text section, the JSON
document (validated against its schema, its sets those of the front door) and one-line errors.
The sets' values are checked against an LP oracle in ``tests/contactmodes/analysis/test_outputs.py``."""

from __future__ import annotations

import json

import pytest

from _support.paths import EXAMPLES

import contactmodes as cm
from contactmodes.cli import main
from contactmodes.schemas import validate
from polytopes import Polytope

BRACE = str(EXAMPLES / "two_link_brace.toml")
OUTPUTS = "qdd.x, f.base.n"


def test_text_section_has_one_row_per_feasible_mode(capsys):
    assert main(["analyze", BRACE, "--outputs", OUTPUTS, "--unambiguous"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    start = lines.index("outputs: qdd.x, f.base.n")
    header = lines[start + 1].split()
    assert header[:5] == ["mode", "dim", "Y", "facets", "qdd.x"] and "Y*_c" in header
    rows = [ln.split()[0] for ln in lines[start + 3:] if ln.strip()]
    r = cm.analyze(BRACE, compute_overlaps=False)
    assert rows == r.feasible_modes()
    fff = next(ln for ln in lines[start + 3:] if ln.startswith("FFF"))
    assert "no: w moves f.base.n" in fff      # the brace is statically indeterminate


def test_fixed_torques_are_named_in_the_header(capsys):
    assert main(["analyze", BRACE, "--outputs", OUTPUTS, "--fix", "tau.tau1=-1"]) == 0
    text = capsys.readouterr().out
    assert "outputs: qdd.x, f.base.n   torques fixed: tau.tau1 = -1" in text
    block = text[text.index("outputs: qdd.x"):].splitlines()
    assert [ln.split()[0] for ln in block[3:] if ln.strip()] == ["FFF"]  # only FFF holds at tau1 = -1


def test_json_validates_and_carries_the_front_doors_sets(tmp_path):
    out = tmp_path / "doc.json"
    assert main(["analyze", BRACE, "--outputs", OUTPUTS, "--unambiguous", "--json", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    validate(doc)
    assert doc["outputs"] == {"expressions": ["qdd.x", "f.base.n"], "fixed": {}}
    r = cm.analyze(BRACE, outputs=OUTPUTS, unambiguous=True)
    for entry in doc["modes"]:
        o = r.outputs[entry["mode"]]
        got = entry["outputs"]
        assert (got["set"] is None) == (o.set is None) == (not entry["feasible"])
        if o.set is not None:
            assert Polytope.from_json(got["set"]).equals(o.set)
            assert len(got["unambiguous"]) == len(o.unambiguous)
            assert got["determined"] == [bool(v) for v in o.determined]


@pytest.mark.parametrize("args, field", [
    (["--outputs", "qdd.x, qdd.nope"], "--outputs"),
    (["--outputs", "tau.tau1 * qdd.x"], "--outputs"),
    (["--outputs", ""], "--outputs"),
    (["--outputs", "qdd.x", "--fix", "tau.tau9=1"], "--fix"),
    (["--fix", "tau.tau1=1"], "--fix"),
    (["--outputs", "qdd.x", "--at", "-1"], "--outputs"),
    (["--outputs", "qdd.x", "--impact"], "--outputs"),
])
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, capsys, args, field):
    out = tmp_path / "never.json"
    assert main(["analyze", BRACE, *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"contactmodes: error: {field}:") and "\n" not in err
    assert not out.exists()
