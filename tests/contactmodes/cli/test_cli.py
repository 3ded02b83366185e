"""The ``contactmodes analyze`` command: output forms and user errors (exit 2, nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from _support.paths import ROOT
from contactmodes.cli import main

EXAMPLES = ROOT / "examples"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "contactmodes", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_table_lists_each_feasible_mode_of_two_link_brace():
    proc = run("analyze", str(EXAMPLES / "two_link_brace.toml"))
    assert proc.returncode == 0, proc.stderr
    assert "FFF" in proc.stdout
    assert "after velocity pruning" in proc.stdout


def test_json_document_schema_and_polytope_semantics(tmp_path):
    out = tmp_path / "a.json"
    assert main(["analyze", str(EXAMPLES / "table_two_legs.toml"), "--json", "--output", str(out)]) == 0
    text = out.read_text()
    assert "Infinity" not in text and "NaN" not in text
    doc = json.loads(text)
    assert doc["schema"] == "contactmodes.analysis/1"
    system = doc["system"]
    n_q, n_tau, k = len(system["coordinates"]), len(system["torques"]), len(system["contacts"])
    assert np.array(system["M"]).shape == (n_q, n_q)
    assert np.array(system["J"]).shape == (2 * k, n_q)
    assert doc["enumeration"]["total"] == 4**k
    modes = {m["mode"]: m for m in doc["modes"]}
    # At rest on flat ground every mode survives velocity pruning; all-fixed is feasible with a
    # one-dimensional force-only ambiguity (flipping paper, Fig. 5).
    ff = modes["F" * k]
    assert ff["feasible"] and ff["n_w"] == 1 and ff["w_moves_accelerations"] is False
    poly = ff["torque_domain"]
    assert poly["dim"] == n_tau
    # tau = 0 (no push) keeps the table at rest: it must satisfy the H-representation.
    A, b = np.array(poly["A"]).reshape(-1, n_tau), np.array(poly["b"])
    assert np.all(A @ np.zeros(n_tau) <= b + 1e-9)
    for m in doc["modes"]:
        assert (m["torque_domain"] is None) == (not m["feasible"])
        for other in m["overlaps"]:
            assert m["mode"] in modes[other]["overlaps"]


def test_mode_option_restricts_analysis():
    proc = run("analyze", str(EXAMPLES / "two_link_brace.toml"), "--mode", "FFF", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [m["mode"] for m in doc["modes"]] == ["FFF"]


@pytest.mark.parametrize(
    "content, needle",
    [
        ("this is = not [toml", "invalid TOML"),
        ('name = "x"\n[mechanism]\nbase = "floating"\n', "links"),
    ],
)
def test_bad_file_one_line_exit_2_nothing_written(tmp_path, content, needle):
    bad = tmp_path / "bad.toml"
    bad.write_text(content)
    out = tmp_path / "out.json"
    proc = run("analyze", str(bad), "--json", "--output", str(out))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_negative_friction_names_the_field(tmp_path):
    text = (EXAMPLES / "two_link_brace.toml").read_text().replace("mu = 0.3", "mu = -0.3", 1)
    bad = tmp_path / "neg.toml"
    bad.write_text(text)
    proc = run("analyze", str(bad))
    assert proc.returncode == 2
    assert "mu" in proc.stderr and "contacts[" in proc.stderr


def test_unknown_mode_and_missing_file_exit_2(tmp_path):
    proc = run("analyze", str(EXAMPLES / "two_link_brace.toml"), "--mode", "FXQ")
    assert proc.returncode == 2 and "mode" in proc.stderr.lower()
    proc = run("analyze", str(tmp_path / "nope.toml"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_approaching_contact_is_an_error(tmp_path):
    text = (EXAMPLES / "painleve_rod.toml").read_text()
    lines = []
    for line in text.splitlines():
        if line.strip().startswith("qdot"):
            line = "qdot = { x = -1.0, y = -0.5 }"
        lines.append(line)
    bad = tmp_path / "approach.toml"
    bad.write_text("\n".join(lines) + "\n")
    proc = run("analyze", str(bad))
    assert proc.returncode == 2
    assert "approach" in proc.stderr.lower() or "normal velocity" in proc.stderr.lower()


# ---- issue 3: --unambiguous, --inconsistency-box, plot ------------------------------------------
# Independent values: the table example (a block on two legs pushed by Fx) sticks for
# |Fx| <= mu (m g) and slides otherwise (mu and m g read from the file): FF holds on
# [-mu m g, mu m g], LL on (-inf, -mu m g], RR on [mu m g, inf). The overlaps are single points, so
# every T*_c equals T_c (closure convention) and there is no inconsistency.


def _table_mu_mg():
    try:  # Python >= 3.11
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the tomli dependency
        import tomli as tomllib  # type: ignore[no-redef]

    with open(EXAMPLES / "table_two_legs.toml", "rb") as fh:
        doc = tomllib.load(fh)
    mass = sum(pm["mass"] for pm in doc.get("point_masses", [])) + sum(l.get("mass", 0.0) for l in doc["links"])
    mus = {c["mu"] for c in doc["contacts"]}
    assert len(mus) == 1
    return mus.pop(), mass * doc.get("gravity", 9.81)


def test_unambiguous_json_on_table_matches_coulomb_thresholds(tmp_path):
    mu, mg = _table_mu_mg()
    out = tmp_path / "u.json"
    assert main(["analyze", str(EXAMPLES / "table_two_legs.toml"), "--unambiguous", "--json",
                 "--inconsistency-box=-30:30", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    modes = {m["mode"]: m for m in doc["modes"] if m["feasible"]}
    assert set(modes) == {"FF", "LL", "RR"}

    def interval(poly):
        A, b = np.array(poly["A"]), np.array(poly["b"])
        hi = min((bi / a[0] for a, bi in zip(A, b) if a[0] > 0), default=np.inf)
        lo = max((bi / a[0] for a, bi in zip(A, b) if a[0] < 0), default=-np.inf)
        return lo, hi

    (ff,) = modes["FF"]["unambiguous"]
    assert np.allclose(interval(ff), (-mu * mg, mu * mg), atol=1e-6)
    (ll,) = modes["LL"]["unambiguous"]
    assert interval(ll)[1] == pytest.approx(-mu * mg, abs=1e-6) and interval(ll)[0] == -np.inf
    sources = {s["source"]: s for s in modes["FF"]["ambiguity_sources"]}
    assert set(sources) == {"LL", "RR"} and all(s["boundary_only"] for s in sources.values())
    assert doc["inconsistent"] == []


def test_inconsistency_box_on_painleve_rod_marks_the_gap(tmp_path):
    # mu = 2: S and L both hold for M <= M* and nothing for M > M* (test_painleve derives M*);
    # here only the structure: one inconsistent interval reaching the box's upper end.
    proc = run("analyze", str(EXAMPLES / "painleve_rod.toml"), "--json", "--inconsistency-box=-20:20")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    (piece,) = doc["inconsistent"]
    A, b = np.array(piece["A"]), np.array(piece["b"])
    assert max(bi / a[0] for a, bi in zip(A, b) if a[0] > 0) == pytest.approx(20.0)
    lower = max(bi / a[0] for a, bi in zip(A, b) if a[0] < 0)
    # the gap starts where the (common) upper end of the feasible domains lies
    tops = []
    for m in doc["modes"]:
        if m["feasible"]:
            TA, Tb = np.array(m["torque_domain"]["A"]), np.array(m["torque_domain"]["b"])
            tops.append(min(bi / a[0] for a, bi in zip(TA, Tb) if a[0] > 0))
    assert -20 < lower < 20 and lower == pytest.approx(max(tops), abs=1e-6)


@pytest.mark.parametrize("box", ["-1:1,2:3", "3:1", "a:b", "nan:1"])
def test_bad_inconsistency_box_exits_2(box):
    proc = run("analyze", str(EXAMPLES / "painleve_rod.toml"), f"--inconsistency-box={box}")
    assert proc.returncode == 2 and "--inconsistency-box" in proc.stderr and proc.stdout == ""


def test_plot_writes_a_png_and_bad_output_writes_nothing(tmp_path):
    out = tmp_path / "p.png"
    assert main(["plot", str(EXAMPLES / "painleve_rod_mu05.toml"), "--output", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    proc = run("plot", str(EXAMPLES / "painleve_rod.toml"), "--output", str(tmp_path / "nodir" / "p.png"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--output" in proc.stderr
    proc = run("plot", str(EXAMPLES / "painleve_rod.toml"), "--output", str(tmp_path / "p.jpg"))
    assert proc.returncode == 2 and not (tmp_path / "p.jpg").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["p.png"]


def test_internal_numerical_failure_exits_70_one_line_nothing_written(tmp_path, monkeypatch, capsys):
    """Every LP solver made to return an undecided status: polytopes.lp cannot verify any answer
    and raises NumericalError, which the CLI reports as an internal error (exit 70), not as the
    user's mistake (exit 2)."""
    from polytopes import lp

    def undecided(*args, **kwargs):
        return lp._Claim(None, "stub")
    monkeypatch.setattr(lp, "_solve_cdd", undecided)
    monkeypatch.setattr(lp, "_solve_highs", undecided)
    out = tmp_path / "out.json"
    status = main(["analyze", str(EXAMPLES / "two_link_brace.toml"), "--json", "--output", str(out)])
    err = capsys.readouterr().err
    assert status == 70
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("contactmodes: internal error (please report): ")
    assert "could not be solved reliably" in lines[0]
    assert not out.exists()


def test_polytope_error_from_input_is_a_user_error_exit_2(tmp_path, monkeypatch, capsys):
    """A ``polytopes.PolytopeError`` (the geometry package's user error: bad polytope data)
    reaching the CLI is reported as the user's mistake: one line, exit 2, nothing written — not
    as an internal error (issue 23: it exited 70)."""
    from polytopes import PolytopeError

    import contactmodes.analysis.analyze as analysis_module

    def bad(*args, **kwargs):
        raise PolytopeError("b: expected shape (3,), got (2,)")

    monkeypatch.setattr(analysis_module, "analyze", bad)
    out = tmp_path / "out.json"
    assert main(["analyze", "examples/two_link_brace.toml", "--json", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "b: expected shape" in err and "internal" not in err
    assert not out.exists()


def test_error_tree_has_one_user_root():
    """Every user-facing exception class of contactmodes derives from ContactModelError."""
    from contactmodes.cli import UserError
    from contactmodes.errors import ContactModelError
    from contactmodes.system_file.snap import SnapError
    from contactmodes.sweeps.grid import SweepError
    from contactmodes.extras import MissingExtraError
    from contactmodes.schemas import DocumentError
    from contactmodes.system_file.tomledit import TomlEditError

    for cls in (UserError, SnapError, SweepError, TomlEditError, MissingExtraError, DocumentError):
        assert issubclass(cls, ContactModelError), cls
