"""One analysis on a Dask cluster (issue 28 item 3): the per-mode work and the overlap blocks on
workers give the single-process answers (compared with ``tests/_support/golden.py``'s rule),
and ``analyze --workers`` without the ``sweep`` extra is the one-line extras error (exit 2)."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

import contactmodes as cm
from contactmodes.analysis import distributed
from contactmodes.analysis.session import AnalysisSession
from contactmodes.cli import main
from contactmodes.progress import Progress

from _support.chains import zigzag_chain
from _support.golden import compare
from _support.toml_writer import to_toml

ROOT = Path(__file__).resolve().parents[3]

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    from contactmodes.cli._cluster import analysis_client

    with analysis_client(None, 2, processes=False) as c:  # two worker threads: quick to start
        yield c


def _on_cluster(client, system, monkeypatch, **kw):
    # small chunks and blocks: several tasks per stage even on small systems
    monkeypatch.setattr(distributed, "CHUNK_MODES", 16)
    monkeypatch.setattr(distributed, "CHUNK_MODES_MIN", 16)
    monkeypatch.setattr(distributed, "OVERLAP_BLOCK", 200)
    session = AnalysisSession(cm.load_system(system) if isinstance(system, (str, Path)) else system,
                              progress=kw.pop("progress", None))
    session.executor = distributed.ClusterOverlaps(client)
    session.executor.prime(session, None, True, project=True)
    return cm.analyze(session.system, session=session, **kw)


@pytest.mark.parametrize("name, overlaps", [("chain6", False), ("chain5", True), ("rhex_flip_start.toml", True)])
def test_cluster_analysis_equals_the_single_process_one(tmp_path, client, monkeypatch, name, overlaps):
    """Every mode's T_c (chain k = 6: 215 feasible modes) and, on the smaller chain and RHex, every
    overlapping pair (chain k = 5: 1551 candidate pairs in 8 blocks)."""
    if name.startswith("chain"):
        path = tmp_path / f"{name}.toml"
        path.write_text(to_toml(zigzag_chain(int(name[5:]))))
    else:
        path = ROOT / "examples" / name
    system = cm.load_system(path)
    single = cm.analyze(system, compute_overlaps=overlaps, overlap_limit=None).to_json()
    spread = _on_cluster(client, system, monkeypatch, compute_overlaps=overlaps, overlap_limit=None).to_json()
    assert compare(spread, single) == []
    assert sum(m["feasible"] for m in single["modes"]) > 20
    if overlaps:  # the overlap blocks were exercised
        assert any(m["overlaps"] for m in single["modes"])


def test_cluster_progress_reports_its_stages(tmp_path, client, monkeypatch):
    path = tmp_path / "chain5.toml"
    path.write_text(to_toml(zigzag_chain(5)))
    stream = io.StringIO()  # not a terminal: periodic lines
    _on_cluster(client, cm.load_system(path), monkeypatch, overlap_limit=None,
                progress=Progress(after=0.0, every=0.0, stream=stream))
    lines = stream.getvalue().splitlines()
    assert any(ln.startswith("contactmodes: modes on 2 workers") for ln in lines)
    assert any(ln.startswith("contactmodes: overlaps on the cluster") for ln in lines)


def test_workers_without_the_sweep_extra_is_a_one_line_error(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    code = main(["analyze", str(ROOT / "examples" / "two_link_brace.toml"), "--workers", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["contactmodes: error: analyze --workers/--scheduler: needs distributed: "
                   "pip install 'contactmodes[sweep]'"]


@pytest.mark.parametrize("argv, field", [(["--workers", "0"], "--workers"),
                                         (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers")])
def test_bad_cluster_options_are_user_errors(capsys, argv, field):
    code = main(["analyze", str(ROOT / "examples" / "two_link_brace.toml"), *argv])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"contactmodes: error: {field}")


def test_cli_json_on_a_local_cluster_equals_the_single_process_one(capsys):
    path = str(ROOT / "examples" / "six_link_brace.toml")
    assert main(["analyze", path, "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert main(["analyze", path, "--json", "--workers", "2"]) == 0
    assert compare(json.loads(capsys.readouterr().out), single) == []


def test_enumeration_on_the_cluster_equals_the_single_process_one(tmp_path, client, monkeypatch):
    """Chain k = 7: its last levels (hundreds of prefixes) in chunks of 64 on the workers."""
    from contactmodes.modes.enumeration import enumerate_modes

    monkeypatch.setattr(distributed, "CHUNK_PREFIXES", 64)
    path = tmp_path / "chain7.toml"
    path.write_text(to_toml(zigzag_chain(7)))
    system = cm.load_system(path)
    here = enumerate_modes(system)
    decide = distributed.ClusterDecide(client)
    there = enumerate_modes(system, decide=decide)
    assert decide._search is not None  # some level went to the workers
    assert there.to_json() == here.to_json()
    assert len(here.modes) == (7 + 3) * 2 ** 6  # the chain's count, (k + 3) 2^(k - 1)
