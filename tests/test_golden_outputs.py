"""The CLI's outputs equal those stored before the package redesign (issue 23), within the
documented float noise (``tests/_support/golden.py``): every example's ``analyze --json``,
``--unambiguous`` on six examples, ``brace``, both controllers' ``flip --json`` (timings left out)
and three ``plot`` PNGs."""

from __future__ import annotations

import json

import numpy as np
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


def _polytopes(doc, out=None) -> list[dict]:
    out = [] if out is None else out
    if isinstance(doc, dict):
        if {"A", "b"} <= set(doc):
            out.append(doc)
        for v in doc.values():
            _polytopes(v, out)
    elif isinstance(doc, list):
        for v in doc:
            _polytopes(v, out)
    return out


def test_compare_takes_polytopes_as_sets():
    """Another BLAS kernel lists a polytope's facets in another order and gives its equalities in
    another basis (issue 39: RHex's ``FFFF``, the six-link brace): the same sets. Here every
    stored polytope of RHex's ``--unambiguous`` output gets its inequality rows reversed and its
    equalities ``[C | d]`` rotated by a random orthogonal matrix, every list of pieces is
    reversed, and one set gets a redundant row (a facet's copy moved outwards): no difference.
    The facets moved out by 1e-6, a changed equality and a piece replaced by another are found."""
    want = json.loads((GOLDEN / "unambiguous-rhex_flip_start.json").read_text())
    same = json.loads(json.dumps(want))
    rng = np.random.default_rng(39)
    polys = _polytopes(same)
    assert len(polys) > 100 and any(len(p.get("d", [])) > 1 for p in polys)
    for p in polys:
        p["A"], p["b"] = p["A"][::-1], p["b"][::-1]
        if len(p.get("d", [])) > 1:
            q = np.linalg.qr(rng.normal(size=(len(p["d"]), len(p["d"]))))[0]
            p["C"], p["d"] = (q @ np.array(p["C"])).tolist(), (q @ np.array(p["d"])).tolist()
    for m in same["modes"]:
        m["unambiguous"].reverse()
        for src in m["ambiguity_sources"]:
            src["set"].reverse()
    target = next(p for p in polys if len(p["b"]) > 2)
    target["A"].append(list(target["A"][0]))
    target["b"].append(target["b"][0] + 0.5)
    assert compare(same, want) == []  # the old row-by-row comparison reported thousands

    moved = json.loads(json.dumps(want))
    p = next(p for p in _polytopes(moved) if len(p["b"]) > 2)
    p["b"] = [beta + 1e-6 for beta in p["b"]]  # every facet out (one alone may be redundant)
    assert any("not the same set" in d for d in compare(moved, want))
    changed = json.loads(json.dumps(want))
    p = next(p for p in _polytopes(changed) if len(p.get("d", [])) > 0)
    p["d"][0] += 1e-6
    assert any("not the same set" in d for d in compare(changed, want))
    swapped = json.loads(json.dumps(want))
    mode = next(m for m in swapped["modes"] if len(m["unambiguous"]) > 1)
    mode["unambiguous"][1] = mode["unambiguous"][0]
    assert compare(swapped, want)


def test_compare_png_finds_a_different_picture():
    a = (GOLDEN / "plot-two_link_brace.png").read_bytes()
    assert compare_png(a, a) is None
    assert compare_png(a, (GOLDEN / "plot-painleve_rod.png").read_bytes()) is not None
