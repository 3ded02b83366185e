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

from contactmodes import cli
from contactmodes.cli import main

from test_io import to_toml

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
