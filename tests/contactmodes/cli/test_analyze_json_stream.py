"""``analyze --json`` writes its document as it is produced (issue 28, item 3):
``AnalysisResult.iter_json`` gives, chunk by chunk of modes, exactly the text of ``json.dumps`` of
``AnalysisResult.to_json`` (the library's dict, kept), releasing each written mode's sets on
request; the CLI spools it to a temporary file, so a failed or interrupted run writes nothing."""

from __future__ import annotations

import json
import os

import pytest

import contactmodes.analysis.analyze as analyze_module
import contactmodes.analysis.session as session_module
from _support.chains import zigzag_chain
from _support.paths import EXAMPLES
from _support.toml_writer import to_toml
from contactmodes.analysis.analyze import analyze
from contactmodes.cli import main


def dumps(result) -> str:
    """What ``analyze --json`` printed before it streamed: the whole document, then ``json.dumps``."""
    return json.dumps(result.to_json(), indent=2, allow_nan=False)


@pytest.fixture
def chain5(tmp_path) -> str:
    path = tmp_path / "chain5.toml"
    path.write_text(to_toml(zigzag_chain(5)))
    return str(path)


CASES = {
    "brace, every option": (str(EXAMPLES / "two_link_brace.toml"),
                            dict(unambiguous=True, inconsistency_box=([-3.0], [3.0]), at=[-0.5])),
    "painleve, no task": (str(EXAMPLES / "painleve_rod.toml"), dict(task=False)),
    "friction interval": (str(EXAMPLES / "friction" / "painleve_rod_interval.toml"),
                          dict(unambiguous=True, inconsistency_box=([-20.0], [20.0]))),
    "table, two modes": (str(EXAMPLES / "table_two_legs.toml"), dict(modes=["FF", "SS"])),
    "no mode": (str(EXAMPLES / "two_link_brace.toml"), dict(modes=[])),
}


@pytest.mark.parametrize("release", [False, True], ids=["kept", "released"])
@pytest.mark.parametrize("case", list(CASES))
def test_streamed_text_is_json_dumps_of_the_document(case, release):
    path, kwargs = CASES[case]
    want = dumps(analyze(path, **kwargs))
    result = analyze(path, **kwargs)
    assert "".join(result.iter_json(release=release)) == want
    assert "".join(result.iter_json()) == want  # again, from the computed (or released) sets


def test_chain_in_several_chunks_releases_each_written_mode(chain5, monkeypatch):
    """Chunks of 7 feasible modes (infeasible modes between them): the same text, written in one
    piece per chunk, and once written each mode keeps only its flags and box — its sets
    computed again on demand are the same."""
    monkeypatch.setattr(session_module, "PRIME_CHUNK", 7)
    reference = analyze(chain5, compute_overlaps=False)  # no T_c computed before the document
    want = dumps(reference)
    result = analyze(chain5, compute_overlaps=False)
    n_feasible = len(result.feasible_modes())
    assert len(result.modes) > n_feasible > 3 * 7
    seen, pieces = [], result.iter_json(release=True)
    for piece in pieces:
        seen.append(piece)
        if len(seen) == 2:  # the first chunk is written: its modes are released, the next not computed
            first = result.feasible_modes()[0]
            assert set(k[0] for k in result.modes[first].solution._cache) <= {"feasible", "box", "w_varies"}
            assert not result.modes[result.feasible_modes()[-1]].solution.has_T()
    assert "".join(seen) == want
    assert len(seen) == -(-n_feasible // 7) + 3  # the head, one piece per chunk, the rest, the tail
    kinds = {k[0] for m in result.modes.values() for k in m.solution._cache}
    assert kinds <= {"feasible", "box", "w_varies"}
    assert len(result.session._user_sets) == 0
    for m in result.feasible_modes()[::9]:
        assert result.modes[m].T.equals(reference.modes[m].T)


def test_cli_json_is_the_document_on_stdout_and_in_output(chain5, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(session_module, "PRIME_CHUNK", 7)
    want = dumps(analyze(chain5)) + "\n"
    assert main(["analyze", chain5, "--json"]) == 0
    assert capsys.readouterr().out == want
    out = tmp_path / "a.json"
    assert main(["analyze", chain5, "--json", "--output", str(out)]) == 0
    assert capsys.readouterr().out == "" and out.read_text() == want


@pytest.mark.parametrize("error, status", [(KeyboardInterrupt, 130), (RuntimeError, 70), (OSError, 70)],
                         ids=["ctrl-c", "internal", "oserror"])
def test_a_run_stopped_mid_document_writes_nothing(chain5, tmp_path, capsys, monkeypatch, error, status):
    """Stopped after two chunks were written to the temporary file: ``--output``'s file keeps
    its old content, no temporary file is left, nothing reaches stdout (exit 130 on Ctrl-C, 70 on
    the toolkit's failure — an ``OSError`` while computing is not the output's "cannot write")."""
    monkeypatch.setattr(session_module, "PRIME_CHUNK", 7)
    entry = analyze_module.AnalysisResult._mode_json
    calls = []

    def failing(self, m, include_overlaps):
        calls.append(m)
        if len(calls) > 2 * 7 + 3:
            raise error("stopped mid-document")
        return entry(self, m, include_overlaps)

    monkeypatch.setattr(analyze_module.AnalysisResult, "_mode_json", failing)
    out = tmp_path / "out" / "a.json"
    out.parent.mkdir()
    out.write_text("the user's file\n")
    assert main(["analyze", chain5, "--json", "--output", str(out)]) == status
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "cannot write" not in captured.err
    assert os.listdir(out.parent) == ["a.json"] and out.read_text() == "the user's file\n"
    calls.clear()
    assert main(["analyze", chain5, "--json"]) == status
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
