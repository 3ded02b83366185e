"""``contactmodes control``: exit statuses 0/1/2/70, one-line errors naming the option or key,
nothing written on error, ``--output`` atomic, the JSON document and the text table."""

from __future__ import annotations

import json

import pytest

from _support.paths import EXAMPLES

from contactmodes.cli import main
from contactmodes.schemas import validate

BRACE = str(EXAMPLES / "two_link_brace.toml")
ROD = str(EXAMPLES / "painleve_rod.toml")
TABLE = str(EXAMPLES / "table_two_legs.toml")


def one_line_error(capsys, start: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"contactmodes: error: {start}"), err


def test_optimal_exit_0_and_json(capsys):
    assert main(["control", BRACE, "--maximize", "qdd.theta1", "--limit", "tau1=-3:3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["schema"] == "contactmodes.control/1" and doc["status"] == "optimal" and doc["unambiguous"]
    assert doc["actuators"] == ["tau1"] and len(doc["torque"]) == 1 and doc["mode"] == doc["alternatives"][0]["mode"]
    assert doc["problem"]["limits"] == {"tau1": {"lo": -3.0, "hi": 3.0, "tau_max": None, "omega_0": None}}
    assert len(doc["prediction"]["qdd"]) == 4 and len(doc["prediction"]["f"]) == 6


def test_text_table(capsys):
    assert main(["control", BRACE, "--minimize", "tau.tau1", "--limit", "tau1=-3:3", "--modes", "FFF,SSS"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("minimize tau.tau1") and lines[1].startswith("status: optimal")
    assert "torque: tau1=-3   mode FFF" in out
    rows = [ln.split()[0] for ln in lines[lines.index("") + 2:]]
    assert rows == ["FFF", "SSS"]


@pytest.mark.parametrize("argv, status, doc_status", [
    # Painlevé: every torque of the box is ambiguous (S and L overlap, eq. (34) leaves nothing)
    (["control", ROD, "--maximize", "qdd.y", "--limit", "M=-10:10", "--json"], 1, "ambiguous"),
    # no limit on the push: qdd.x unbounded below while sliding
    (["control", TABLE, "--minimize", "qdd.x", "--json"], 1, "unbounded"),
    # FFF alone, a box where FFF has no torque (it needs tau1 <= -0.1926)
    (["control", BRACE, "--maximize", "tau.tau1", "--limit", "tau1=0:1", "--modes", "FFF", "--json"], 1,
     "infeasible"),
    # the table's FF splits its tangential forces ambiguously (Fig. 5): f.left.t is not unique there
    (["control", TABLE, "--maximize", "f.left.t", "--limit", "Fx=-1:1", "--modes", "FF", "--json"], 1,
     "ambiguous_objective"),
])
def test_no_guaranteed_torque_exits_1(capsys, argv, status, doc_status):
    assert main(argv) == status
    doc = json.loads(capsys.readouterr().out)
    validate(doc)
    assert doc["status"] == doc_status and doc["unambiguous"] is False


@pytest.mark.parametrize("argv, start", [
    (["control", BRACE, "--maximize", "qdd.foo"], "--maximize: unknown name 'qdd.foo' (coordinates: x, y, theta, theta1)"),
    (["control", BRACE, "--minimize", "tau.tau1*qdd.x"], "--minimize: nonlinear term 'tau.tau1*qdd.x'"),
    (["control", BRACE, "--maximize", "qdd.x", "--minimize", "qdd.x"], "--minimize: give --maximize or --minimize"),
    (["control", BRACE], "--maximize: no objective"),
    (["control", BRACE, "--maximize", "qdd.x", "--limit", "knee=0:1"], "--limit: unknown actuator 'knee' (actuators: tau1)"),
    (["control", BRACE, "--maximize", "qdd.x", "--limit", "tau1"], "--limit: expected ACT=LO:HI"),
    (["control", BRACE, "--maximize", "qdd.x", "--limit", "tau1=2:1"], "--limit tau1: needs LO <= HI"),
    (["control", BRACE, "--maximize", "qdd.x", "--limit", "tau1=0:1", "--limit", "tau1=0:2"], "--limit: actuator 'tau1' given twice"),
    (["control", BRACE, "--maximize", "qdd.x", "--modes", "FF"], "--modes[0]: 'FF' is not a contact mode"),
    (["control", BRACE, "--maximize", "qdd.x", "--modes", "toe=F"], "--modes.toe: unknown contact"),
    (["control", "examples/no_such_file.toml", "--maximize", "qdd.x"], "examples/no_such_file.toml: no such file"),
    (["control", BRACE, "--maximize", "qdd.x", "--margin=-1"], "--margin: expected a finite torque >= 0 (system units), got '-1'"),
    (["control", BRACE, "--maximize", "qdd.x", "--margin", "nan"], "--margin: expected a finite torque >= 0"),
    (["control", BRACE, "--maximize", "qdd.x", "--margin", "inf"], "--margin: expected a finite torque >= 0"),
    (["control", BRACE, "--maximize", "qdd.x", "--margin", "0.1 N.m"], "--margin: expected a torque >= 0 (system units), got '0.1 N.m'"),
])
def test_user_errors_exit_2_with_one_line(capsys, tmp_path, argv, start):
    out = tmp_path / "out.json"
    assert main(argv + ["--output", str(out)]) == 2
    one_line_error(capsys, start)
    assert not out.exists()


@pytest.mark.parametrize("argv, start", [
    (["--maximize", "1e308*qdd.x"], "--maximize: the coefficient 1e+308 of qdd.x exceeds 1e+60 in magnitude"),
    (["--minimize", "tau.tau1 - 2e61*f.tip.n"], "--minimize: the coefficient -2e+61 of f.tip.n exceeds 1e+60"),
    (["--maximize", "qdd.x + 1e300"], "--maximize: the constant 1e+300 exceeds 1e+60"),
    (["--maximize", "qdd.x", "--limit", "tau1=1e308:"], "--limit tau1: 1e+308 exceeds 1e+60 in magnitude"),
    (["--maximize", "qdd.x", "--limit", "tau1=-1e308:1e308"], "--limit tau1: -1e+308 exceeds 1e+60 in magnitude"),
    (["--maximize", "qdd.x", "--limit", "tau1={tau_max=1e308, omega_0=1}"], "--limit tau1: tau_max 1e+308 exceeds"),
])
def test_numbers_that_overflow_the_scaled_problem_name_their_option(capsys, tmp_path, argv, start):
    """Before: SciPy's ``costs, A_ub, b_ub: contain NaN or infinite values`` (the scaled objective
    or limit overflowed); now one line naming the option and the bound, exit 2, nothing written."""
    out = tmp_path / "out.json"
    assert main(["control", BRACE, *argv, "--output", str(out)]) == 2
    one_line_error(capsys, start)
    assert not out.exists()


def test_an_objective_at_the_magnitude_bound_has_the_optimum_of_its_unit_multiple(capsys):
    """A coefficient of exactly ``MAGNITUDE_MAX`` is accepted, and scaling an objective does not
    move its optimizer: the torque of ``1e60*qdd.theta1`` is that of ``qdd.theta1``."""
    docs = []
    for objective in ("qdd.theta1", "1e60*qdd.theta1"):
        assert main(["control", BRACE, "--maximize", objective, "--limit", "tau1=-3:3", "--json"]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    assert docs[0]["status"] == docs[1]["status"] == "optimal"
    assert docs[0]["torque"] == docs[1]["torque"] and docs[0]["mode"] == docs[1]["mode"]


def test_file_table_numbers_beyond_the_bound_name_their_key(capsys, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(open(BRACE).read() + '\n[control]\nmaximize = "1e308*qdd.x"\n')
    assert main(["control", str(path)]) == 2
    one_line_error(capsys, "control.maximize: the coefficient 1e+308 of qdd.x exceeds")
    path.write_text(open(BRACE).read() + '\n[control]\nmaximize = "qdd.x"\n[control.limits]\ntau1 = [0.0, 1e300]\n')
    assert main(["control", str(path)]) == 2
    one_line_error(capsys, "control.limits.tau1: 1e+300 exceeds 1e+60")


def test_file_table_errors_exit_2(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(open(BRACE).read() + '\n[control]\nmaximize = "qdd.nope"\n')
    assert main(["control", str(path)]) == 2
    one_line_error(capsys, "control.maximize: unknown name 'qdd.nope'")


def test_output_is_written_atomically_and_never_over_the_input(capsys, tmp_path):
    out = tmp_path / "c.json"
    assert main(["control", BRACE, "--maximize", "qdd.theta1", "--limit", "tau1=-3:3", "--json",
                 "--output", str(out)]) == 0
    assert capsys.readouterr().out == "" and json.loads(out.read_text())["status"] == "optimal"
    src = tmp_path / "brace.toml"
    src.write_text(open(BRACE).read())
    assert main(["control", str(src), "--maximize", "qdd.theta1", "--output", str(src)]) == 2
    one_line_error(capsys, "--output:")
    assert src.read_text() == open(BRACE).read()
    # a "no" answer is still written (exit 1), as brace does
    no = tmp_path / "no.json"
    assert main(["control", ROD, "--maximize", "qdd.y", "--limit", "M=-1:1", "--json", "--output", str(no)]) == 1
    assert json.loads(no.read_text())["schema"] == "contactmodes.control/1"


def test_internal_error_exits_70(capsys, monkeypatch):
    import contactmodes.control.optimal as optimal

    def boom(*args, **kwargs):
        raise RuntimeError("solver exploded")

    monkeypatch.setattr(optimal, "mode_optimum", boom)
    assert main(["control", BRACE, "--maximize", "qdd.theta1"]) == 70
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("contactmodes: internal error (please report): RuntimeError")


def test_limit_as_an_inline_table_gives_the_torque_speed_line(capsys):
    """``--limit 'ACT={...}'`` takes the ``[control.limits]`` keys: at the brace's state (at rest,
    ``ω = 0``) the line ``|τ| <= τ_max (1 − |ω|/ω_0)`` is the box ``±τ_max`` (closed form), so the
    answer is that of ``--limit tau1=-2:2``, and the document reports the line's numbers."""
    table = "{lo = -3, hi = 3, tau_max = 2, omega_0 = 10}"
    assert main(["control", BRACE, "--maximize", "qdd.theta1", "--limit", f"tau1={table}", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["problem"]["limits"] == {"tau1": {"lo": -3.0, "hi": 3.0, "tau_max": 2.0, "omega_0": 10.0}}
    assert main(["control", BRACE, "--maximize", "qdd.theta1", "--limit", "tau1=-2:2", "--json"]) == 0
    box = json.loads(capsys.readouterr().out)
    assert doc["torque"] == box["torque"] and doc["mode"] == box["mode"] and abs(doc["torque"][0]) <= 2.0


@pytest.mark.parametrize("value, start", [
    ("tau1={lo = -3, hi = }", "--limit tau1: expected LO:HI or a TOML inline table"),
    ("tau1={lo = -3, foo = 2}", "--limit tau1.foo: unknown key"),
    ("tau1={tau_max = 'x'}", "--limit tau1.tau_max"),
])
def test_bad_inline_limit_is_one_line(capsys, value, start):
    assert main(["control", BRACE, "--maximize", "qdd.theta1", "--limit", value]) == 2
    one_line_error(capsys, start)
