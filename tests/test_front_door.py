"""The front door (issue 23): ``contactmodes.load_system``, ``contactmodes.analyze`` and the one
result object, in the system's units; its docstring examples run as doctests."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import numpy as np
import pytest

import contactmodes as cm
from contactmodes.errors import ContactModelError
from contactmodes.system_file.loader import load_system_file as load_file

ROOT = Path(__file__).resolve().parents[1]
TWO_LINK = ROOT / "examples" / "two_link_brace.toml"
ROD = ROOT / "examples" / "painleve_rod.toml"


@pytest.mark.parametrize("module", [
    "contactmodes", "contactmodes.analysis.analyze", "contactmodes.analysis.session",
    "polytopes.polytope", "polytopes.projection", "contactmodes.model.system",
    "contactmodes.system_file.loader", "controllers.bracing.controller", "controllers.rhex.api",
    "controllers.rhex.params",
])
def test_docstring_examples_run(module, monkeypatch):
    monkeypatch.chdir(ROOT)
    failed, attempted = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0


def test_every_public_name_resolves():
    for name in cm.__all__:
        assert getattr(cm, name) is not None, name


def test_one_load_system_and_one_reader_of_the_whole_file():
    """Issue 39: ``contactmodes.load_system`` (the model) and the loader's ``load_system`` (the
    whole file) had one name and two return types. Now ``load_system`` is the front door's only,
    and the one reader of the file is ``load_system_file``, whose ``system`` it returns."""
    import re

    from contactmodes.system_file import loader

    defs = [str(p.relative_to(ROOT)) for pkg in ("polytopes", "contactmodes", "controllers")
            for p in sorted((ROOT / pkg).rglob("*.py")) if re.search(r"^\s*def load_system\(", p.read_text(), re.M)]
    assert defs == ["contactmodes/__init__.py"] and not hasattr(loader, "load_system")
    system, loaded = cm.load_system(TWO_LINK), load_file(TWO_LINK)
    assert isinstance(system, cm.ContactSystem) and isinstance(loaded, loader.LoadedSystem)
    assert loaded.mechanism.coordinates == system.coordinates and system.contacts == loaded.system.contacts
    np.testing.assert_array_equal(system.M, loaded.system.M)
    np.testing.assert_array_equal(system.J, loaded.system.J)


def test_a_path_a_loaded_file_and_a_system_give_the_same_analysis():
    system = cm.load_system(TWO_LINK)
    results = [cm.analyze(TWO_LINK), cm.analyze(str(TWO_LINK)), cm.analyze(load_file(TWO_LINK)), cm.analyze(system)]
    modes = [r.feasible_modes() for r in results]
    assert all(m == modes[0] for m in modes) and "FFF" in modes[0]
    for r in results[1:]:
        assert r.modes["FFF"].T.equals(results[0].modes["FFF"].T)


def test_a_session_of_another_system_is_refused():
    rod, brace = cm.load_system(ROD), cm.load_system(TWO_LINK)
    with pytest.raises(ContactModelError, match="session"):
        cm.analyze(rod, session=cm.AnalysisSession(brace))
    session = cm.AnalysisSession(rod)
    assert cm.analyze(rod, session=session).session is session


def test_one_result_with_every_part_in_user_units():
    """``unambiguous``, ``inconsistency_box`` and ``at`` fill the result, consistently with the
    per-mode sets: the located modes are those whose ``T_c`` contains the torque, every piece of
    ``T*_c`` lies in ``T_c``, the inconsistent torques lie in no ``T_c`` (checked at points), and
    ``to_frame`` repeats the boxes."""
    rod = cm.load_system(ROD)
    tau = np.array([-5.0])
    r = cm.analyze(rod, unambiguous=True, inconsistency_box=([-20.0], [20.0]), at=tau)
    feasible = r.feasible_modes()
    assert set(r.unambiguous) == set(feasible)
    assert r.at is not None and r.at[1] == [m for m in feasible if r.modes[m].contains(tau)]
    for m in feasible:
        for piece in r.unambiguous[m].unambiguous:
            c = piece.chebyshev_center().center
            assert r.modes[m].contains(c)
    assert r.inconsistent, "the Painlevé rod has inconsistent torques in [-20, 20]"
    for piece in r.inconsistent:
        c = piece.chebyshev_center().center
        assert not any(r.modes[m].contains(c) for m in feasible)
    doc = r.to_json()
    assert {"unambiguous", "ambiguity_sources"} <= set(doc["modes"][0]) and doc["at"]["modes"] == r.at[1]
    frame = r.to_frame()
    assert list(frame["mode"]) == list(r.modes)
    for _, row in frame.iterrows():
        if row["feasible"]:
            lo, hi = r.modes[row["mode"]].box
            assert row["M_lo"] == lo[0] and row["M_hi"] == hi[0]
    best = r.modes[feasible[0]].maximize([1.0])
    assert best is not None and r.modes[feasible[0]].contains(best[1])


def test_unambiguous_for_a_subset_of_modes():
    r = cm.analyze(TWO_LINK, unambiguous=["FFF"])
    assert list(r.unambiguous) == ["FFF"]
    assert list(r.unambiguous_for(["SSS"])) == ["SSS"] and set(r.unambiguous) == {"FFF", "SSS"}
