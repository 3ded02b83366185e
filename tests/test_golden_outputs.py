"""The CLI's outputs equal those stored before the package redesign (issue 23), within the
documented float noise (``tests/_support/golden.py``): every example's ``analyze --json``,
``--unambiguous`` on six examples, ``brace``, both controllers' ``flip --json`` (timings left out)
and three ``plot`` PNGs."""

from __future__ import annotations

import json

import pytest

from _support.golden import COMMANDS, ROOT, compare, compare_png, run

GOLDEN = ROOT / "tests" / "data" / "golden"


@pytest.mark.slow
@pytest.mark.parametrize("name, argv, kind", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_output_equals_the_stored_one(tmp_path, name, argv, kind):
    got = run(argv, kind, tmp_path / f"{name}.png")
    if kind == "png":
        reason = compare_png(got, (GOLDEN / f"{name}.png").read_bytes())
        assert reason is None, f"{name}: {reason}"
    else:
        diffs = compare(got, json.loads((GOLDEN / f"{name}.json").read_text()))
        assert not diffs, f"{name}: {len(diffs)} differences, first: {diffs[:5]}"


def test_compare_finds_a_changed_answer():
    """The comparison is not blind: a flipped boolean, a moved facet, a dropped row and a changed
    mode list are each reported; float noise within the tolerance is not."""
    want = json.loads((GOLDEN / "analyze-two_link_brace.json").read_text())
    assert compare(want, want) == []
    noisy = json.loads(json.dumps(want))
    b = noisy["modes"][0]["torque_domain"]["b"]
    b[0] = b[0] * (1 + 1e-12)
    assert compare(noisy, want) == []
    for change in ("feasible", "facet", "row", "modes"):
        bad = json.loads(json.dumps(want))
        m = bad["modes"][0]
        if change == "feasible":
            m["feasible"] = not m["feasible"]
        elif change == "facet":
            m["torque_domain"]["b"][0] += 1e-6
        elif change == "row":
            m["torque_domain"]["A"].pop()
        else:
            bad["modes"].pop()
        assert compare(bad, want), change


def test_compare_png_finds_a_different_picture():
    a = (GOLDEN / "plot-two_link_brace.png").read_bytes()
    assert compare_png(a, a) is None
    assert compare_png(a, (GOLDEN / "plot-painleve_rod.png").read_bytes()) is not None
