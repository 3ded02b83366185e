"""The JSON Schemas of ``contactmodes.schemas`` (issue 23, item 6): every document the CLI prints
validates against the schema of its ``"schema"`` tag — every example's ``analyze --json`` and its
variants, ``check`` (also rejected files and ``--snap``), ``brace`` (with and without a torque),
short ``flip`` runs of both controllers, ``sweep analyze`` (with a failed point) and ``sweep flip``
— and so do the outputs stored before the redesign (``tests/data/golden``) and the system files
of ``examples/`` and ``tests/data/cases``. The schemas are not vacuous: each rejects a document
with a key missing, an extra key, an Infinity, a bad mode string or another document's tag.
"""

from __future__ import annotations

import copy
import json
import math
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import jsonschema  # the dev extra's: a missing jsonschema fails here rather than skipping the checks
import referencing
import referencing.jsonschema
from _support.golden import ROOT, TIMING_KEYS

from contactmodes.schemas import DocumentError, names, schema, validate

EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.toml"))
GOLDEN = sorted((ROOT / "tests" / "data" / "golden").glob("*.json"))
SYSTEM_FILES = (sorted((ROOT / "examples").glob("*.toml")) + sorted((ROOT / "examples" / "friction").glob("*.toml"))
                + sorted((ROOT / "tests" / "data" / "cases").glob("*.toml")))
DOCUMENTS = ["contactmodes.analysis/1", "contactmodes.brace/1", "contactmodes.check/1", "contactmodes.control/1",
             "contactmodes.flip/1",
             "contactmodes.impact/1", "contactmodes.simulation/1", "contactmodes.sweep/1",
             "contactmodes.system/1"]

# the rhex example's base position written with five digits: the loader rejects it (a gap), check
# shows it and check --snap puts it back on the ground (as tests/contactmodes/system_file/test_snap.py)
RHEX_EXACT = "x = 0.2375195293697055, y = 0.09265243206734299"
RHEX_ROUNDED = "x = 0.23752, y = 0.09265"
NO_CONTACTS = """name = "free_rod"
[[links]]
name = "rod"
mass = 1.0
inertia = 0.1
[[actuators]]
name = "M"
coordinate = "theta"
[state]
q = { x = 0.0, y = 0.0, theta = 0.0 }
"""

#: (id, argv after ``contactmodes`` — ``{rejected}``, ``{free}``, ``{out}`` filled in —, exit status)
COMMANDS: list[tuple[str, list[str], int]] = (
    [(f"analyze-{Path(e).stem}", ["analyze", f"examples/{e}", "--json"], 0) for e in EXAMPLES]
    + [
        ("analyze-unambiguous-box-at", ["analyze", "examples/painleve_rod.toml", "--json", "--unambiguous",
                                        "--inconsistency-box=-20:20", "--at=-5"], 0),
        ("analyze-unambiguous-two_link", ["analyze", "examples/two_link_brace.toml", "--json", "--unambiguous"], 0),
        ("analyze-at", ["analyze", "examples/two_link_brace.toml", "--json", "--at=-0.5"], 0),
        # mu = [1.0, 1.6]: the sets over the friction box (docs/friction-intervals.md)
        ("analyze-friction-interval", ["analyze", "examples/friction/painleve_rod_interval.toml", "--json",
                                       "--unambiguous"], 0),
        # FFS is pruned by the enumeration: kinematically_feasible false, its T_c shown all the same
        ("analyze-mode-pruned", ["analyze", "examples/two_link_brace.toml", "--json", "--mode", "FFF", "--mode", "FFS"], 0),
        ("analyze-no-task", ["analyze", "examples/table_two_legs.toml", "--json", "--no-task"], 0),
        ("analyze-no-contacts", ["analyze", "{free}", "--json"], 0),  # the one mode is ""
        ("check", ["check", "examples/two_link_brace.toml", "--json"], 0),
        ("check-rejected", ["check", "{rejected}", "--json"], 0),
        ("check-no-contacts", ["check", "{free}", "--json"], 0),
        ("check-snap-accepted", ["check", "examples/six_link_brace.toml", "--snap", "--json"], 0),
        ("check-snap-write", ["check", "{rejected}", "--snap", "--json", "--write", "{out}/snapped.toml"], 0),
        ("brace", ["brace", "examples/five_link_climb.toml", "--json"], 0),
        ("brace-no-torque", ["brace", "examples/five_link_climb.toml", "--json", "--objective", "least-effort",
                             "--margin", "100"], 1),
        ("simulate", ["simulate", "examples/two_link_brace.toml", "--controller", "constant:-0.5", "--duration", "0.1",
                      "--json"], 0),
        ("flip-blind", ["flip", "--controller", "blind", "--mu-toe", "0.6", "--duration", "0.05", "--json"], 1),
        ("flip-max-thrust", ["flip", "--controller", "max-thrust", "--mu-toe", "0.6", "--duration", "0.05", "--json"], 1),
        ("sweep-analyze", ["sweep", "analyze", "examples/two_link_brace.toml", "--vary", "contacts.*.mu=0.1,0.3",
                           "--mode", "FFF", "--mode", "FFS", "--unambiguous", "--inconsistency-box=-1:1", "--json"], 0),
        # qdot.y = -1: the rod's end approaches the ground, the point fails (ok false)
        ("sweep-analyze-failed-point", ["sweep", "analyze", "examples/painleve_rod.toml", "--vary", "state.qdot.y=-1,0",
                                        "--mode", "L", "--json"], 0),
        ("sweep-flip", ["sweep", "flip", "--vary", "mu_toe=0.6", "--vary", "controller=blind,max-thrust",
                        "--duration", "0.03", "--json"], 0),
        ("impact", ["impact", "examples/impact/rocking_block.toml", "--json"], 0),
        ("control", ["control", "examples/two_link_brace.toml", "--maximize", "qdd.theta1", "--limit", "tau1=-3:3",
                     "--modes", "tip=F|S", "--json"], 0),
        ("control-ambiguous", ["control", "examples/painleve_rod.toml", "--maximize", "qdd.y", "--limit", "M=-10:10",
                               "--json"], 1),
        ("control-unbounded", ["control", "examples/table_two_legs.toml", "--minimize", "qdd.x", "--json"], 1),
        # a spatial system: its prediction's forces have three components (t1, t2, n)
        ("control-spatial", ["control", "examples/spatial/arm_on_table.toml", "--json"], 0),
        # torque sets (the wheel's moment) and inconsistent outcomes
        ("impact-pseudo", ["impact", "examples/impact/rocking_block_wheel.toml", "--pseudo-impulse", "0.03", "--json"], 0),
        # a touchdown event (the optional touchdowns)
        ("simulate-drop", ["simulate", "examples/impact/block_drop.toml", "--controller", "zero", "--duration", "0.02",
                           "--json"], 0),
    ]
)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("schema_inputs")
    text = (ROOT / "examples" / "rhex_flip_start.toml").read_text()
    assert text.count(RHEX_EXACT) == 1
    rejected = d / "rhex_rounded.toml"
    rejected.write_text(text.replace(RHEX_EXACT, RHEX_ROUNDED))
    free = d / "free_rod.toml"
    free.write_text(NO_CONTACTS)
    out = d / "out"
    out.mkdir()
    return {"rejected": str(rejected), "free": str(free), "out": str(out)}


def _run(argv: list[str], status: int, inputs: dict[str, str]) -> dict:
    args = [a.format(**inputs) for a in argv]
    proc = subprocess.run([sys.executable, "-m", "contactmodes", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == status, f"contactmodes {' '.join(args)}: exit {proc.returncode}: {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def documents(inputs) -> dict[str, dict]:
    """Every document of ``COMMANDS``, run once."""
    return {name: _run(argv, status, inputs) for name, argv, status in COMMANDS}


# --------------------------------------------------------------------------------------------
# A validator built from the package's files alone (plain jsonschema and referencing): the files
# work without contactmodes.schemas.validate, and the tests can see every error.
# --------------------------------------------------------------------------------------------

def _files() -> dict[str, dict]:
    root = resources.files("contactmodes.schemas")
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in root.iterdir() if p.name.endswith(".schema.json")}


def _registry():
    spec = referencing.jsonschema.DRAFT202012
    return referencing.Registry().with_resources(
        (name, referencing.Resource.from_contents(contents, default_specification=spec))
        for name, contents in _files().items())


def _plain_errors(document: dict, name: str) -> list:
    file = name.replace("/", "-") + ".schema.json"
    validator = jsonschema.Draft202012Validator({"$ref": file}, registry=_registry())
    return list(validator.iter_errors(document))


# --------------------------------------------------------------------------------------------
# The documents validate
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [c[0] for c in COMMANDS])
def test_cli_document_is_valid(documents, name):
    doc = documents[name]
    validate(doc)
    assert not _plain_errors(doc, doc["schema"])


def test_the_variants_carry_what_they_add(documents):
    """The variants exercise the optional parts of the schemas (so their validation means something)."""
    full = documents["analyze-unambiguous-box-at"]
    assert {"inconsistency_box", "inconsistent", "at"} <= set(full)
    assert all({"unambiguous", "ambiguity_sources"} <= set(m) for m in full["modes"])
    interval = documents["analyze-friction-interval"]
    assert interval["friction"] == {"lo": [1.0], "hi": [1.6]}
    assert all({"torque_domain_exists", "torque_domain_forall", "unambiguous_robust",
                "ambiguity_sources_robust"} <= set(m) for m in interval["modes"])
    pruned = {m["mode"]: m for m in documents["analyze-mode-pruned"]["modes"]}
    assert pruned["FFS"]["kinematically_feasible"] is False
    assert [m["mode"] for m in documents["analyze-no-contacts"]["modes"]] == [""]
    assert documents["check-rejected"]["accepted"] is False
    snap = documents["check-snap-write"]["snap"]
    assert snap["changed"] and snap["written"].endswith("snapped.toml") and snap["keys"]["q"]
    assert documents["check-snap-accepted"]["snap"]["changed"] is False
    assert documents["brace-no-torque"]["status"] == "margin_infeasible"
    failed = documents["sweep-analyze-failed-point"]["points"]
    assert [p["ok"] for p in failed] == [False, True]
    assert documents["sweep-analyze"]["points"][0]["modes"]["FFS"]["feasible"] is False
    assert {p["controller"] for p in documents["sweep-flip"]["points"]} == {"blind", "max-thrust"}
    assert documents["simulate-drop"]["touchdowns"][0]["predicted"]["chosen"] == "FS"


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_stored_output_is_valid(path):
    """The outputs stored before the redesign; the stored flips lack exactly their timings
    (``tests/_support/golden.py`` leaves them out), which the schema requires."""
    doc = json.loads(path.read_text())
    if doc["schema"] != "contactmodes.flip/1":
        validate(doc)
        return
    errors = _plain_errors(doc, doc["schema"])
    assert errors and all(e.validator == "required" and not e.absolute_path for e in errors)
    missing = {key for e in errors for key in e.validator_value if key not in e.instance}
    assert missing == set(TIMING_KEYS)
    with pytest.raises(DocumentError, match="required property"):
        validate(doc)


def test_front_door_document_is_valid():
    """``contactmodes.analyze(...).to_json()``, also in the forms the CLI does not print: without
    overlaps (``candidate_pairs`` and every ``overlaps`` null) and over the overlap limit
    (``overlaps`` null, ``candidate_pairs`` counted), ``unambiguous`` for some modes only."""
    import contactmodes as cm

    path = ROOT / "examples" / "two_link_brace.toml"
    full = cm.analyze(path, unambiguous=["FFF"], inconsistency_box=([-1.0], [1.0]), at=[-0.5]).to_json()
    validate(full)
    assert {"inconsistent", "at"} <= set(full) and all("unambiguous" in m for m in full["modes"])
    bare = cm.analyze(path, compute_overlaps=False).to_json()
    validate(bare)
    assert bare["candidate_pairs"] is None and all(m["overlaps"] is None for m in bare["modes"])
    limited = cm.analyze(path, overlap_limit=0).to_json()
    validate(limited)
    assert limited["candidate_pairs"] > 0 and all(m["overlaps"] is None for m in limited["modes"])


def test_run_flip_without_timeline_is_valid():
    """``controllers.rhex.run_flip(..., timeline=False)``, the Python form of ``flip --json``."""
    from controllers.rhex import RHexParams, run_flip

    doc = run_flip(RHexParams(mu_toe=0.39), "blind", duration=0.02, timeline=False)
    assert "mode_timeline" not in doc
    validate(doc)


@pytest.mark.parametrize("path", SYSTEM_FILES, ids=[f"{p.parent.name}/{p.name}" for p in SYSTEM_FILES])
def test_system_file_is_valid(path):
    validate(tomllib.loads(path.read_text()), "contactmodes.system/1")


# --------------------------------------------------------------------------------------------
# The schemas reject broken documents
# --------------------------------------------------------------------------------------------

def _first_feasible(doc: dict) -> int:
    return next(i for i, m in enumerate(doc["modes"]) if m["feasible"])


def _pop(obj: dict, key: str) -> None:
    del obj[key]


# (document, breakage, what the error names); every breakage leaves the tag, so the document's
# own schema is the one that must reject it
BREAKAGES = {
    "analyze-two_link_brace": [
        ("missing key", lambda d: _pop(d["modes"][_first_feasible(d)]["torque_domain"], "C"), "torque_domain"),
        ("missing top key", lambda d: _pop(d, "candidate_pairs"), "candidate_pairs"),
        ("Infinity", lambda d: d["modes"][_first_feasible(d)]["torque_domain"]["b"].__setitem__(0, math.inf), "b[0]"),
        ("bad mode", lambda d: d["modes"][0].__setitem__("mode", "FXF"), "modes[0].mode"),
        ("bad overlap mode", lambda d: d["modes"][0].__setitem__("overlaps", ["fff"]), "overlaps"),
        ("extra key", lambda d: d["modes"][0].__setitem__("timing", {}), "modes[0]"),
        ("infeasible with a domain", lambda d: d["modes"][_first_feasible(d)].__setitem__("feasible", False),
         "torque_domain"),
        ("string number", lambda d: d["system"]["h"].__setitem__(0, "9.81"), "h[0]"),
        ("bad rank case", lambda d: d["modes"][0].__setitem__("rank_case", 0), "rank_case"),
    ],
    "analyze-unambiguous-box-at": [
        ("half of --unambiguous", lambda d: _pop(d["modes"][0], "unambiguous"), "modes[0]"),
        ("half of --inconsistency-box", lambda d: _pop(d, "inconsistent"), "inconsistent"),
        ("bad source", lambda d: d["modes"][0]["ambiguity_sources"][0].__setitem__("source", "task-1"), "source"),
        ("empty ambiguity set", lambda d: d["modes"][0]["ambiguity_sources"][0].__setitem__("set", []), "set"),
        ("polytope without dim", lambda d: _pop(d["inconsistent"][0], "dim"), "inconsistent[0]"),
    ],
    "brace": [
        ("missing key", lambda d: _pop(d, "robust_feasible"), "robust_feasible"),
        ("no torque though optimal", lambda d: d.__setitem__("torque", None), "torque"),
        ("CLI spelling of the objective", lambda d: d.__setitem__("objective", "max-margin"), "objective"),
        ("-Infinity", lambda d: d["robust_feasible"]["b"].__setitem__(0, -math.inf), "robust_feasible.b[0]"),
        ("bad mode", lambda d: d.__setitem__("mode", "FF F"), "mode"),
    ],
    "brace-no-torque": [
        ("a torque without one", lambda d: d.__setitem__("torque", [0.0]), "torque"),
        ("unknown status", lambda d: d.__setitem__("status", "infeasible"), "status"),
    ],
    "check": [
        ("missing key", lambda d: _pop(d["contacts"][0], "gap"), "contacts[0]"),
        ("rejected without a reason", lambda d: d["contacts"][0].__setitem__("accepted", False), "contacts[0]"),
        ("NaN", lambda d: d["contacts"][0].__setitem__("gap", math.nan), "contacts[0].gap"),
        ("3-D point", lambda d: d["contacts"][0]["position"].append(0.0), "position"),
    ],
    "check-snap-write": [
        ("changed without keys", lambda d: d["snap"]["keys"].__setitem__("q", {}), "snap"),
        ("missing key", lambda d: _pop(d["snap"], "written"), "snap"),
    ],
    "flip-max-thrust": [
        ("missing key", lambda d: _pop(d, "outcome"), "outcome"),
        ("extra key", lambda d: d.__setitem__("schema_version", 1), "schema_version"),
        ("Infinity", lambda d: d.__setitem__("rmse_pitch_accel", math.inf), "rmse_pitch_accel"),
        ("bad timeline mode", lambda d: d["mode_timeline"][0].__setitem__("simulated", "RFL"), "simulated"),
        ("success without a flip", lambda d: d.__setitem__("success", True), "outcome"),
        ("blind status from max-thrust", lambda d: d["controller_status"].__setitem__("elastic", 1), "controller_status"),
        ("timings without steps", lambda d: d["step_ms"].__setitem__("steps", 0), "step_ms"),
    ],
    "simulate": [
        ("missing key", lambda d: _pop(d, "plant_difference"), "plant_difference"),
        ("bad mode letter", lambda d: d["modes"]["tip"].__setitem__(0, "X"), "modes.tip[0]"),
        ("NaN in a series", lambda d: d["q"]["x"].__setitem__(0, math.nan), "x[0]"),
        ("another engine", lambda d: d["engine"].__setitem__("name", "bullet"), "engine.name"),
        ("creep without its time", lambda d: _pop(d["creep"]["tip"], "sticking_s"), "creep.tip"),
    ],
    "simulate-drop": [
        ("touchdown without its prediction", lambda d: _pop(d["touchdowns"][0], "predicted"), "touchdowns[0]"),
    ],
    "sweep-analyze": [
        ("missing header", lambda d: _pop(d, "torques"), "torques"),
        ("bad mode key", lambda d: d["points"][0]["modes"].__setitem__("F?F", d["points"][0]["modes"]["FFF"]), "modes"),
        ("Infinity for an unbounded end", lambda d: d["points"][0]["modes"]["FFF"]["bounding_box"][0].__setitem__(0, -math.inf),
         "bounding_box[0][0]"),
        ("extra point key", lambda d: d["points"][0].__setitem__("n_modes", 9), "points[0]"),
        ("serial with workers", lambda d: d.__setitem__("workers", 2), "workers"),
    ],
    "sweep-analyze-failed-point": [
        ("failed point with fields", lambda d: d["points"][0].__setitem__("modes", {}), "points[0]"),
        ("failed point without error", lambda d: d["points"][0].__setitem__("error", None), "points[0].error"),
    ],
    "impact-pseudo": [
        ("bad mode", lambda d: d["outcomes"][0].__setitem__("mode", "FX"), "outcomes[0].mode"),
        ("missing key", lambda d: _pop(d["outcomes"][0], "energy_loss"), "outcomes[0]"),
        ("inconsistent with a velocity", lambda d: next(o for o in d["outcomes"] if not o["consistent"])
         .__setitem__("qdot_plus", [0.0, 0.0, 0.0]), "qdot_plus"),
        ("negative energy loss", lambda d: d["outcomes"][0].__setitem__("energy_loss", -1.0), "energy_loss"),
        ("torque set without dim", lambda d: _pop(d["outcomes"][0]["torque_set"][0], "dim"), "torque_set"),
    ],
    "control": [
        ("missing key", lambda d: _pop(d, "allowed"), "$"),
        ("bad status", lambda d: d.__setitem__("status", "done"), "status"),
        ("bad alternative mode", lambda d: d["alternatives"][0].__setitem__("mode", "FXF"), "alternatives[0].mode"),
        ("extra alternative key", lambda d: d["alternatives"][0].__setitem__("value", 1.0), "alternatives[0]"),
    ],
    "sweep-flip": [
        ("point with a flip/1 field it drops", lambda d: d["points"][0].__setitem__("step_ms", {}), "points[0]"),
        ("point missing a field", lambda d: _pop(d["points"][1], "flip_time_s"), "points[1]"),
    ],
}
BREAKAGE_CASES = [(doc, label, mutate, where) for doc, cases in BREAKAGES.items() for label, mutate, where in cases]


@pytest.mark.parametrize("doc_name, label, mutate, where", BREAKAGE_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in BREAKAGE_CASES])
def test_broken_document_is_rejected(documents, doc_name, label, mutate, where):
    doc = copy.deepcopy(documents[doc_name])
    validate(doc)  # valid before
    mutate(doc)
    with pytest.raises(DocumentError) as info:
        validate(doc)
    assert where in str(info.value), str(info.value)
    assert info.value.name == doc["schema"] and info.value.path.startswith("$")
    assert str(info.value).startswith(f"{doc['schema']}: {info.value.path}: ")


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_the_schemas_alone_reject_infinity(documents, value):
    """Without ``validate``'s own scan for non-finite floats: the schema bounds every number."""
    for name in ("analyze-two_link_brace", "check", "flip-blind", "brace", "sweep-analyze"):
        doc = copy.deepcopy(documents[name])
        target = {"analyze-two_link_brace": lambda d: d["system"]["h"],
                  "check": lambda d: d["q"],
                  "flip-blind": lambda d: d["params"]["v0"],
                  "brace": lambda d: d["torque_bound"],
                  "sweep-analyze": lambda d: d["inconsistency_box"]["lo"]}[name](doc)
        target[0] = value
        assert _plain_errors(doc, doc["schema"]), name


@pytest.mark.parametrize("name", DOCUMENTS[:-1])
def test_wrong_tag_and_empty_document_are_rejected(documents, name):
    """A document under another document's tag, and ``{}``, are rejected by each schema."""
    other = documents["check"] if name != "contactmodes.check/1" else documents["brace"]
    with pytest.raises(DocumentError, match=r"\$"):
        validate(other, name)
    with pytest.raises(DocumentError, match="required property"):
        validate({}, name)
    mine = next(d for d in documents.values() if d["schema"] == name)
    retagged = dict(mine, schema=other["schema"])
    with pytest.raises(DocumentError):
        validate(retagged)  # the other document's schema rejects this one's content
    with pytest.raises(DocumentError, match=r"\$\.schema"):
        validate(dict(mine, schema=name.replace("/1", "/2")))  # no such version


def test_system_schema_rejects_what_the_docs_call_errors():
    """docs/system-file.md's error examples (those a schema can see) and the key rules."""
    base = tomllib.loads((ROOT / "examples" / "two_link_brace.toml").read_text())
    cases = [
        (lambda d: d["links"][0].__setitem__("mas", 1.0), "$.links[0]"),
        (lambda d: d["contacts"][2].__setitem__("mu", -0.3), "$.contacts[2].mu"),
        (lambda d: d.__setitem__("desired_mode", "FXF"), "$.desired_mode"),
        (lambda d: d["contacts"][0].__setitem__("surface_normal", [0, 0.0]), "$.contacts[0].surface_normal"),
        (lambda d: d["links"][1].__setitem__("joint", "theta1_deg"), "$.links[1].joint"),
        (lambda d: d.__setitem__("mechanism", {"base": "floating", "base_position": [0.0, 0.0]}), "$.mechanism.base"),
        (lambda d: d.setdefault("constraints", []).append({"preset": "min_normal_force"}), "$.constraints[0]"),
        (lambda d: d.setdefault("constraints", []).append({"type": "eq", "rhs": [0.0]}), "$.constraints[0]"),
        (lambda d: d.__setitem__("disturbance", {"coordinates": ["x"], "lower": [0.0], "upper": [1.0], "b": [1.0]}),
         "$.disturbance"),
        (lambda d: d.__setitem__("gravity", math.inf), "$.gravity"),
        (lambda d: d.pop("state"), "$"),
    ]
    validate(base, "contactmodes.system/1")
    for mutate, where in cases:
        doc = copy.deepcopy(base)
        mutate(doc)
        with pytest.raises(DocumentError) as info:
            validate(doc, "contactmodes.system/1")
        assert info.value.path == where, str(info.value)


# --------------------------------------------------------------------------------------------
# The files and the loader
# --------------------------------------------------------------------------------------------

def test_every_document_named_in_the_code_has_a_schema():
    """Every ``"contactmodes.X/N"`` string of the packages' code has its file (a new document
    needs one), and every schema file is a document the code names."""
    tags = set()
    for package in ("contactmodes", "controllers"):
        for path in (ROOT / package).rglob("*.py"):
            tags.update(re.findall(r'"(contactmodes\.[a-z_]+/\d+)"', path.read_text(encoding="utf-8")))
    assert tags == set(DOCUMENTS)
    assert names() == DOCUMENTS


def test_schema_files_are_valid_and_every_reference_resolves():
    registry = _registry()
    for name, contents in _files().items():
        jsonschema.Draft202012Validator.check_schema(contents)
        refs = []

        def walk(node):
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    refs.append(node["$ref"])
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(contents)
        resolver = registry.resolver(base_uri=name)
        for ref in refs:
            resolver.lookup(ref)  # raises on a dangling reference
    assert {"polytope.schema.json", "common.schema.json"} <= set(_files())


def test_schema_is_a_fresh_copy_and_unknown_names_are_key_errors():
    s = schema("contactmodes.analysis/1")
    assert s["properties"]["schema"] == {"const": "contactmodes.analysis/1"}
    s["properties"].clear()
    assert schema("contactmodes.analysis/1")["properties"]["schema"] == {"const": "contactmodes.analysis/1"}
    assert schema("polytope")["required"] == ["A", "b", "C", "d", "dim"]
    with pytest.raises(KeyError, match="contactmodes.analysis/1"):
        schema("contactmodes.analyse/1")
    with pytest.raises(KeyError):
        validate({"schema": "contactmodes.analysis/1"}, "nope/1")
    with pytest.raises(DocumentError, match="no \"schema\" tag"):
        validate({"modes": []})


def test_the_package_data_ships_every_schema_file():
    """pyproject's package-data for ``contactmodes`` covers every schema file (wheel contents)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["contactmodes"]
    files = sorted(p.relative_to(ROOT / "contactmodes").as_posix() for p in (ROOT / "contactmodes" / "schemas").glob("*.json"))
    assert files and all(any(Path(f).match(p) for p in patterns) for f in files), (patterns, files)


def test_validate_without_jsonschema_names_the_install_command():
    code = ("import sys; sys.modules['jsonschema'] = None\n"
            "from contactmodes.schemas import validate, schema\n"
            "assert schema('contactmodes.flip/1')['title'] == 'contactmodes.flip/1'\n"
            "try:\n    validate({'schema': 'contactmodes.flip/1'})\n"
            "except ImportError as exc:\n    print(exc)\nelse:\n    raise SystemExit('no ImportError')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    message = proc.stdout.strip()
    assert "pip install jsonschema" in message and "\n" not in message
