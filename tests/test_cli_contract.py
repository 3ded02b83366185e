"""The CLI contract: no data loss on output, internal failures are not user errors, range checks
name the field, and no input makes the loader or the CLI print a traceback."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _support.toml_writer import to_toml
from contactmodes import cli
from contactmodes.cli import main


ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PAINLEVE = EXAMPLES / "painleve_rod.toml"

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


def one_line_error(capsys, needle: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert "Traceback" not in err[0]


# ------------------------------------------------------------------------------ --output -------
def test_output_onto_the_input_file_is_refused(tmp_path, capsys):
    src = tmp_path / "rod.toml"
    src.write_bytes(PAINLEVE.read_bytes())
    before = src.read_bytes()
    assert main(["analyze", str(src), "--output", str(src)]) == 2
    one_line_error(capsys, "is the input file")
    assert src.read_bytes() == before


def test_output_through_a_symlink_to_the_input_is_refused(tmp_path, capsys):
    src = tmp_path / "rod.toml"
    src.write_bytes(PAINLEVE.read_bytes())
    link = tmp_path / "out.json"
    link.symlink_to(src)
    assert main(["analyze", str(src), "--json", "--output", str(link)]) == 2
    one_line_error(capsys, "is the input file")
    assert src.read_bytes() == PAINLEVE.read_bytes() and link.is_symlink()


def test_output_symlink_is_followed_and_kept(tmp_path, capsys):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert main(["analyze", str(PAINLEVE), "--json", "--output", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().lstrip().startswith("{")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_output_onto_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "contactmodes", "analyze", str(PAINLEVE), "--output", str(fifo)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr
    assert fifo.exists() and not fifo.is_file()


def test_output_onto_a_directory_or_into_a_missing_one_is_refused(tmp_path, capsys):
    assert main(["analyze", str(PAINLEVE), "--output", str(tmp_path)]) == 2
    one_line_error(capsys, "not a regular file")
    assert main(["analyze", str(PAINLEVE), "--output", str(tmp_path / "no" / "x.txt")]) == 2
    one_line_error(capsys, "directory does not exist")


# ------------------------------------------------------------------- internal errors: 70 --------
def test_internal_failure_is_exit_70_without_traceback(monkeypatch, capsys):
    def broken(args):
        raise RuntimeError("an invariant does not hold")

    monkeypatch.setattr(cli, "_analyze", broken)
    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda command=None: _with_run(parser(), broken))
    assert main(["analyze", str(PAINLEVE)]) == 70
    err = capsys.readouterr().err
    assert err.startswith("contactmodes: internal error (please report): RuntimeError: an invariant does not hold")
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def _with_run(parser, run):
    for action in parser._subparsers._group_actions:  # the analyze subparser
        action.choices["analyze"].set_defaults(run=run)
    return parser


# ------------------------------------------------------------- Ctrl-C at start-up, full stdout ----
_INTERRUPT_AT = r"""
import sys

WHEN = sys.argv[1]


class _CtrlC:
    "Ctrl-C arriving while the module WHEN is imported (a finder first on sys.meta_path)."

    def find_spec(self, name, path=None, target=None):
        if name == WHEN:
            raise KeyboardInterrupt
        return None


sys.meta_path.insert(0, _CtrlC())
from contactmodes.cli import main  # what the console script runs

sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("module, argv", [
    ("numpy", ["analyze", str(PAINLEVE)]),  # the first heavy import: the toolkit's own modules
    ("controllers.simulation.cli", ["simulate", str(PAINLEVE), "--controller", "zero", "--duration", "0.01"]),
    ("controllers.bracing.cli", ["brace", str(PAINLEVE)]),  # the command plug-ins, loaded by the parser
    ("contactmodes.sweeps.cli", ["sweep", "--help"]),
])
def test_ctrl_c_during_start_up_is_one_line_exit_130(tmp_path, module, argv):
    """Ctrl-C while the command's modules load (simulated deterministically: the import of
    ``module`` raises ``KeyboardInterrupt``, as the signal does) is ``contactmodes: interrupted``,
    exit 130, no traceback, nothing written. It was a 19–67-line traceback: NumPy loaded with
    ``import contactmodes.cli``, and the plug-ins outside the command's handling."""
    proc = subprocess.run([sys.executable, "-c", _INTERRUPT_AT, module, *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "contactmodes: interrupted\n" and proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_importing_the_cli_loads_neither_numpy_nor_polytopes():
    """What the console script imports before ``main`` runs is outside its Ctrl-C handling: it is
    only the package's light modules."""
    code = ("import sys, contactmodes.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'polytopes', 'scipy')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [
    ["analyze", str(PAINLEVE)],
    ["analyze", str(PAINLEVE), "--json"],  # written as it is computed (a StreamedText)
    ["check", str(PAINLEVE)],
    ["control", str(PAINLEVE), "--maximize", "qdd.y", "--limit", "M=-10:10", "--json"],
])
def test_stdout_on_a_full_device_is_one_line_naming_stdout(argv):
    """``contactmodes ... > /dev/full``: one line naming stdout, exit 2 (as ``--output`` when its
    file cannot be written), not an internal error; nothing more at the interpreter's exit."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "contactmodes", *argv], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "contactmodes: error: stdout: cannot write the output: No space left on device\n"


# ----------------------------------------------------------------------------- range checks ----
def _write(tmp_path, doc: dict) -> Path:
    path = tmp_path / "sys.toml"
    path.write_text(to_toml(doc))
    return path


def _painleve() -> dict:
    return tomllib.loads(PAINLEVE.read_text())


@pytest.mark.parametrize("edit, field", [
    (lambda d: d["contacts"][0].__setitem__("mu", 1e9), "contacts[0].mu: must be <= 10000"),
    (lambda d: d["links"][0].__setitem__("mass", 1e308), "links[0].mass: magnitude must be <= 1e+60"),
    (lambda d: d["links"][0].__setitem__("inertia", 1e-300), "links[0].inertia: a nonzero mass or inertia"),
    (lambda d: d["links"][0].__setitem__("mass", float("nan")), "links[0].mass: must be a finite number"),
    (lambda d: d.__setitem__("gravity", float("inf")), "gravity: must be a finite number"),
    (lambda d: d["state"]["q"].__setitem__("x", 10**400), "state.q.x: magnitude must be <= 1e+60"),
])
def test_range_checks_name_the_field(tmp_path, capsys, edit, field):
    doc = _painleve()
    edit(doc)
    assert main(["analyze", str(_write(tmp_path, doc))]) == 2
    one_line_error(capsys, field)


def test_large_but_allowed_friction_gives_a_result(tmp_path, capsys):
    doc = _painleve()
    doc["contacts"][0]["mu"] = 1e4
    assert main(["analyze", str(_write(tmp_path, doc))]) == 0


# ------------------------------------------------------------------------- loader fuzzing ------
SAFE = settings(derandomize=True, max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
EXAMPLE_DOCS = {p.stem: tomllib.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.toml"))}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                    st.lists(st.floats(-1e3, 1e3), max_size=3))


def _paths(doc, prefix=()):
    """Every key path (tuple) into a nested document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def _mutate(doc, path, new, delete):
    d = copy.deepcopy(doc)
    parent = d
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return d


def _run_doc(tmp_path, capsys, doc) -> int:
    path = tmp_path / "fuzz.toml"
    try:
        path.write_text(to_toml(doc))
    except TypeError:
        return 0  # not representable as TOML (None): nothing to test
    rc = main(["analyze", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert rc in (0, 2), err  # 70 would be the toolkit's own failure on a user's file
    if rc == 2:
        assert len(err.strip().splitlines()) == 1, err
    return rc


@SAFE
@given(st.sampled_from(sorted(n for n in EXAMPLE_DOCS if n not in ("rhex_flip_start", "six_link_brace", "five_link_climb"))),
       st.data(), st.booleans(), scalars)
def test_mutated_examples_never_give_a_traceback(tmp_path_factory, capsys, name, data, delete, new):
    doc = EXAMPLE_DOCS[name]
    paths = list(_paths(doc))
    path = data.draw(st.sampled_from(paths))
    _run_doc(tmp_path_factory.mktemp("fuzz"), capsys, _mutate(doc, path, new, delete))


toml_docs = st.recursive(
    st.dictionaries(st.sampled_from(["name", "links", "state", "contacts", "mass", "q", "mu", "x", "gravity",
                                     "actuators", "constraints", "mechanism", "base"]), scalars, max_size=4),
    lambda children: st.dictionaries(st.sampled_from(["links", "state", "contacts", "mechanism", "q", "qdot",
                                                      "constraints", "disturbance"]),
                                     st.one_of(children, st.lists(children, max_size=2)), max_size=3),
    max_leaves=10)


@SAFE
@given(toml_docs)
def test_arbitrary_documents_never_give_a_traceback(tmp_path_factory, capsys, doc):
    _run_doc(tmp_path_factory.mktemp("fuzz"), capsys, doc)


# ------------------------------------------------- issue 22 item 10: each message names its field once
def _no_output(capsys, argv: list[str], out: Path, start: str) -> str:
    """Run the CLI with ``--output out``: exit 2, one line on stderr starting with ``start``, no
    traceback, nothing written. Returns that line."""
    assert main([*argv, "--output", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith(f"contactmodes: error: {start}"), lines[0]
    assert captured.out == "" and not out.exists()
    return lines[0]


def _listed(line: str) -> list[float]:
    """The values after ``valid:`` in a message (up to the ellipsis)."""
    text = line.split("valid: ", 1)[1].split("…", 1)[0]
    return [float(v) for v in text.replace(",", " ").split()]


@pytest.mark.parametrize("name, value", [("control_rate", "1e9"), ("control_rate", "3000"), ("sim_dt", "3e-4")])
def test_flip_period_message_names_the_field_and_its_valid_values(tmp_path, capsys, name, value):
    from controllers.rhex.params import RHexParams

    line = _no_output(capsys, ["flip", "--controller", "blind", "--mu-toe", "0.6", "--param", f"{name}={value}"],
                      tmp_path / "flip.json", f"--param {name}: ")
    assert line.count(f"--param {name}") == 1 and "1/1e+09" not in line
    with pytest.raises(ValueError):  # the value given is the one refused …
        RHexParams().with_(**{name: float(value)})
    valid = _listed(line)  # … and every value the message offers is accepted
    assert len(valid) >= 3 and len(set(valid)) == len(valid)
    for v in valid:
        assert getattr(RHexParams().with_(**{name: v}), name) == v


def test_flip_period_message_with_both_fields_set_uses_the_values_given(tmp_path, capsys):
    from controllers.rhex.params import RHexParams

    line = _no_output(capsys, ["flip", "--controller", "blind", "--mu-toe", "0.6", "--param", "control_rate=500",
                               "--param", "sim_dt=3e-4"], tmp_path / "flip.json", "--param control_rate: ")
    assert "sim_dt = 0.0003 s" in line and "RHexParams" not in line
    for v in _listed(line):
        RHexParams(sim_dt=3e-4, control_rate=v)


def _climb() -> dict:
    return tomllib.loads((EXAMPLES / "five_link_climb.toml").read_text())


@pytest.mark.parametrize("table, message", [
    ({"coordinates": ["x"], "A": [[1.0]], "b": [1.0]}, "disturbance: the disturbance set must be bounded"),
    ({"coordinates": ["x"], "A": [[1.0], [-1.0]], "b": [-1.0, 0.0]}, "disturbance: the disturbance set is empty"),
])
def test_disturbance_set_errors_name_the_table_once(tmp_path, capsys, table, message):
    doc = _climb()
    doc["disturbance"] = table
    line = _no_output(capsys, ["brace", str(_write(tmp_path, doc))], tmp_path / "b.json", message)
    assert line.count("disturbance:") == 1 and "disturbance.set" not in line


URDF_FIXED_BASE = """\
schema = "contactmodes.system/1"
name = "fixed_urdf"

[mechanism]
urdf = "two_link_brace.urdf"
base = "fixed"

[[contacts]]
name = "fingertip"
link = "link1"
position = [0.0, 0.0]
surface_point = [0.0, 0.0]
surface_normal = [-1.0, 0.0]
mu = 0.3

[[actuators]]
name = "tau1"
coordinate = "theta1"

[state]
q = { theta1 = 0.0 }
"""


def test_urdf_contact_link_error_names_the_file_key_once(tmp_path, capsys):
    # with a fixed base the URDF root link is the world: no contact may sit on it
    (tmp_path / "two_link_brace.urdf").write_bytes((EXAMPLES / "two_link_brace.urdf").read_bytes())
    path = tmp_path / "fixed.toml"
    path.write_text(URDF_FIXED_BASE)
    line = _no_output(capsys, ["analyze", str(path)], tmp_path / "out.txt", "contacts[0]: URDF link 'link1' is fixed")
    assert "contacts[fingertip]" not in line and line.count("contacts[") == 1


def test_approaching_contact_error_names_state_qdot(tmp_path, capsys):
    # Painlevé rod: the end (the frame origin) falling at 0.5 m/s onto the ground n = (0, 1)
    text = PAINLEVE.read_text().replace("qdot = { x = -1.0, y = 0.0, theta = 0.0 }", "qdot = { x = 0.0, y = -0.5 }")
    assert "y = -0.5" in text
    path = tmp_path / "falling.toml"
    path.write_text(text)
    line = _no_output(capsys, ["analyze", str(path)], tmp_path / "out.txt", "state.qdot: ")
    assert "approach" in line and "-0.5" in line and line.count("state.qdot") == 1
    assert tomllib.loads(text)["contacts"][0]["name"] in line
