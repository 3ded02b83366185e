"""Sweep grids and keys, and the ``contactmodes sweep`` command's contract: user errors are one
line naming the key, exit 2, nothing run or written; Ctrl-C exits 130 writing nothing; a bug
exits 70 with ``internal error (please report)``. All in this process (``--workers 0``)."""

from __future__ import annotations

import json

import pytest

from _support.paths import ROOT
from contactmodes.cli import main
from contactmodes.sweeps import SweepError, parse_spec, parse_vary
from contactmodes.sweeps.keys import apply_overrides, expand_key, key_paths

BRACE = str(ROOT / "examples" / "two_link_brace.toml")


# ---------------------------------------------------------------------------------------- grids


def test_range_spec_is_linspace_with_ends_and_clean_decimals():
    assert parse_spec("0:1:11") == [i / 10 for i in range(11)]  # 0.3, not 0.30000000000000004
    assert parse_spec("-2:2:5") == [-2.0, -1.0, 0.0, 1.0, 2.0]
    assert parse_spec("1:0:3") == [1.0, 0.5, 0.0]  # descending is allowed


def test_list_spec_types_and_order():
    assert parse_spec("3,1,2") == [3, 1, 2] and all(isinstance(v, int) for v in parse_spec("3,1,2"))
    assert parse_spec("0.5, 1e-3") == [0.5, 0.001]
    assert parse_spec("blind,max-thrust") == ["blind", "max-thrust"]
    assert parse_spec("7") == [7]


@pytest.mark.parametrize("spec, words", [
    ("", "empty spec"), ("0:1", "expected LO:HI:N"), ("0:1:1", "N must be an integer >= 2"),
    ("0:1:x", "N must be"), ("a:1:3", "LO must be a number"), ("0:inf:3", "HI must be finite"),
    ("1:1:3", "LO and HI are equal"), ("1,,2", "empty value"), ("1,nan", "finite"),
    ("0.1,0.1", "listed twice"), ("0:1:2:3", "expected LO:HI:N"),
])
def test_bad_specs_name_the_key(spec, words):
    with pytest.raises(SweepError, match=words) as info:
        parse_spec(spec, "contacts.0.mu")
    assert str(info.value).startswith("contacts.0.mu: ")


def test_cartesian_product_last_key_fastest():
    grid = parse_vary(["a=1,2", "b=x,y,z"])
    assert len(grid) == 6
    assert grid.points() == [{"a": a, "b": b} for a in (1, 2) for b in "xyz"]
    assert grid.to_json() == {"a": [1, 2], "b": ["x", "y", "z"]}
    assert parse_vary({"a": [0.5, 2]}).points() == [{"a": 0.5}, {"a": 2}]
    with pytest.raises(SweepError, match="a: varied twice"):
        parse_vary(["a=1", "a=2"])
    with pytest.raises(SweepError, match="expected KEY=SPEC"):
        parse_vary(["a"])
    with pytest.raises(SweepError, match="values must be numbers or strings"):
        parse_vary({"a": [True]})


# ------------------------------------------------------------------------------------------ keys

DOC = {"gravity": 9.81, "contacts": [{"mu": 0.3}, {"mu": 0.4, "v0": 0.0}],
       "state": {"q": {"x": 0.0, "theta_deg": 10.0}, "qdot": {}}}


def test_keys_expand_indices_stars_brackets_and_tables():
    assert expand_key(DOC, "gravity") == [("gravity",)]
    assert expand_key(DOC, "contacts.1.mu") == [("contacts", 1, "mu")]
    assert expand_key(DOC, "contacts[1].mu") == [("contacts", 1, "mu")]
    assert expand_key(DOC, "contacts.*.mu") == [("contacts", 0, "mu"), ("contacts", 1, "mu")]
    assert expand_key(DOC, "state.q.*") == [("state", "q", "x"), ("state", "q", "theta_deg")]
    # a missing last key is created only on request (the loader then judges it)
    assert expand_key(DOC, "contacts.0.v0", create=True) == [("contacts", 0, "v0")]


@pytest.mark.parametrize("key, words", [
    ("contacts.2.mu", "index 2 out of range (contacts has 2 entries)"),
    ("contacts.0.v0", "no key 'v0' in contacts.0"),
    ("contacts.x.mu", "contacts is an array; expected an index or *"),
    ("contacts.0", "contacts.0 is a table, not a value"),
    ("state.qdot.*", "* matches nothing"),
    ("gravity.x", "gravity is a value"),
    ("links.0.mass", "no key 'links'"),
    ("contacts..mu", "malformed key"),
])
def test_key_errors_name_the_key(key, words):
    with pytest.raises(SweepError) as info:
        expand_key(DOC, key)
    assert str(info.value).startswith(f"{key}: ") and words in str(info.value)


def test_overrides_copy_and_overlaps_are_refused():
    paths = key_paths(DOC, ["contacts.*.mu", "gravity"])
    new = apply_overrides(DOC, paths, {"contacts.*.mu": 1.5, "gravity": 1.0})
    assert [c["mu"] for c in new["contacts"]] == [1.5, 1.5] and new["gravity"] == 1.0
    assert [c["mu"] for c in DOC["contacts"]] == [0.3, 0.4]  # the base is untouched
    with pytest.raises(SweepError, match="sets contacts.0.mu, which contacts.\\*.mu already sets"):
        key_paths(DOC, ["contacts.*.mu", "contacts.0.mu"])


# ------------------------------------------------------------------------------- CLI contract


@pytest.mark.parametrize("args, message", [
    (["--vary", "contacts.*.mu=-0.1:0.5:3"], "contacts.*.mu=-0.1: contacts[0].mu: must be >= 0, got -0.1"),
    (["--vary", "contacts.5.mu=1"], "contacts.5.mu: index 5 out of range"),
    (["--vary", "links.1.mas=1"], "links.1.mas=1: links[1].mas: unknown key"),
    (["--vary", "state.q.theta1_deg=-100,-90"], "at state.q.theta1_deg=-100: contacts[1]: contact 'tip' does not touch"),
    (["--vary", "contacts.*.mu=0.1:0.5"], "contacts.*.mu: expected LO:HI:N"),
    (["--vary", "contacts.0.mu=1", "--mode", "FFX"], "--mode: 'FFX' is not a contact mode"),
    (["--vary", "contacts.0.mu=1", "--output", "t.txt"], "--output: expected a .csv, .json or .parquet"),
    (["--vary", "contacts.0.mu=1", "--vary", "gravity=1", "--vary", "contacts.1.mu=1", "--plot", "p.png"],
     "--plot: draws one varied key (lines) or two (heat map), got 3"),
    (["--vary", "contacts.0.mu=1", "--inconsistency-box", "1:0"], "--inconsistency-box: range 0 needs finite LO <= HI"),
    (["--vary", "contacts.0.mu=1", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"],
     "--workers: not used with --scheduler"),
    (["--vary", "contacts.0.mu=1", "--plot", "nodir/p.png"], "--plot: directory does not exist"),
])
def test_user_errors_are_one_line_exit_2_nothing_written(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    ran = []
    monkeypatch.setattr("contactmodes.sweeps.adapter.analyze_point", lambda *a: ran.append(a))
    assert main(["sweep", "analyze", BRACE, "--workers", "0", *[a for a in args if a != "--workers"]]
                if "--scheduler" not in args else ["sweep", "analyze", BRACE, *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("contactmodes: error: ") and message in err, err
    assert not ran and list(tmp_path.iterdir()) == []


def test_parquet_without_pyarrow_is_a_clear_user_error(tmp_path, monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    out = tmp_path / "t.parquet"
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.0.mu=1", "--workers", "0", "--output", str(out)]) == 2
    assert "writing .parquet needs pyarrow" in capsys.readouterr().err and not out.exists()


def test_ctrl_c_writes_nothing_and_exits_130(tmp_path, monkeypatch, capsys):
    calls = []

    def interrupted(*args):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return {"feasible_modes": [], "overlapping_pairs": 0, "modes": {"FFF": {
            "feasible": False, "kinematically_feasible": True, "bounding_box": None}}}

    monkeypatch.setattr("contactmodes.sweeps.adapter.analyze_point", interrupted)
    out, png = tmp_path / "t.csv", tmp_path / "p.png"
    code = main(["sweep", "analyze", BRACE, "--vary", "contacts.*.mu=0.1,0.2,0.3", "--workers", "0",
                 "--output", str(out), "--plot", str(png)])
    assert code == 130 and len(calls) == 2
    assert list(tmp_path.iterdir()) == []
    assert "interrupted" in capsys.readouterr().err


def test_internal_failure_exits_70_and_writes_nothing(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("plot exploded")

    monkeypatch.setattr("contactmodes.sweeps.plot.plot_sweep", broken)
    out, png = tmp_path / "t.csv", tmp_path / "p.png"
    with pytest.raises(SystemExit) as info:
        main(["sweep", "analyze", BRACE, "--vary", "contacts.*.mu=0.3", "--workers", "0",
              "--output", str(out), "--plot", str(png)])
    assert info.value.code == 70
    err = capsys.readouterr().err
    assert err.splitlines() == ["contactmodes: sweep: 1 point in this process",  # announced before it ran
                                "contactmodes: internal error (please report): RuntimeError: plot exploded"]
    assert list(tmp_path.iterdir()) == []


def test_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch, capsys):
    import contactmodes.sweeps.adapter as adapter

    real = adapter.analyze_point

    def flaky(system, *args):
        if abs(system.mu[0] - 0.2) < 1e-12:
            raise ValueError("solver gave up")
        return real(system, *args)

    monkeypatch.setattr(adapter, "analyze_point", flaky)
    out = tmp_path / "t.json"
    assert main(["sweep", "analyze", BRACE, "--vary", "contacts.*.mu=0.1,0.2,0.3", "--workers", "0",
                 "--json", "--output", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["ok"] for p in doc["points"]] == [True, False, True]
    assert doc["points"][1] == {"params": {"contacts.*.mu": 0.2}, "ok": False, "error": "ValueError: solver gave up"}
    rows = json.loads(out.read_text())
    assert [r["ok"] for r in rows] == [True, False, True]
    assert rows[1]["error"] == "ValueError: solver gave up" and rows[1]["FFF.T_hi.tau1"] is None
