"""System-file loader (contactmodes.system_file.loader): round trips of the examples and every error path."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from _support.paths import EXAMPLES
from _support.toml_writer import to_toml
from contactmodes.errors import SystemFileError
from contactmodes.system_file.loader import LoadedSystem, load_system_file, parse_system


BASE = {
    "name": "two_link",
    "gravity": 9.81,
    "desired_mode": "FFF",
    "mechanism": {"base": "floating"},
    "links": [
        {"name": "link1"},
        {"name": "link2", "parent": "link1", "joint": "theta1", "joint_position": [0.127, 0.0]},
    ],
    "point_masses": [
        {"link": "link1", "mass": 0.0849, "position": [0.0, 0.0]},
        {"link": "link1", "mass": 0.0849, "position": [0.127, 0.0]},
        {"link": "link2", "mass": 0.0849, "position": [0.127, 0.0]},
    ],
    "contacts": [
        {"name": "p1", "link": "link1", "position": [0.0, 0.0], "surface_point": [0.0, 0.0],
         "surface_normal": [-1.0, 0.0], "mu": 0.3},
        {"name": "p2", "link": "link2", "position": [0.127, 0.0], "surface_point": [0.0, 0.0],
         "surface_normal": [-1.0, 0.0], "mu": 0.3},
        {"name": "p3", "link": "link2", "position": [0.0, 0.0], "surface_point": [-0.08980256121069154, 0.0],
         "surface_normal": [1.0, 0.0], "mu": 0.3, "v0": 0.01},
    ],
    "actuators": [{"name": "tau1", "coordinate": "theta1"}],
    "state": {"q": {"x": 0.0, "y": 0.0, "theta_deg": 135.0, "theta1_deg": -90.0}, "qdot": {}},
}


def base() -> dict:
    return copy.deepcopy(BASE)


def load_doc(tmp_path, doc: dict) -> LoadedSystem:
    path = tmp_path / "system.toml"
    path.write_text(to_toml(doc), encoding="utf-8")
    return load_system_file(path)


def expect_error(tmp_path, doc: dict, prefix: str, *fragments: str) -> str:
    with pytest.raises(SystemFileError) as info:
        load_doc(tmp_path, doc)
    message = str(info.value)
    assert message.startswith(prefix), message
    for fragment in fragments:
        assert fragment in message, message
    return message


# ------------------------------------------------------------------------------------------------
# round trips


EXPECTED = {
    "two_link_brace": (("x", "y", "theta", "theta1"), ("base", "tip", "joint"), [0.3] * 3, 3 * 0.0849, "FFF"),
    "two_link_brace_urdf": (("x", "y", "theta", "theta1"), ("base", "tip", "joint"), [0.3] * 3, 3 * 0.0849, "FFF"),
    "five_link_climb": (("x", "y", "theta", "theta1"), ("base", "tip", "joint"), [0.3] * 3, 3 * 0.0849, "FFF"),
    "six_link_brace": (
        ("x", "y", "theta", "theta1", "theta2", "theta3", "theta4", "theta5"),
        ("base", "tip", "joint3"), [0.3] * 3, 7 * 0.0849, "FFF",
    ),
    "table_two_legs": (("x", "y", "theta"), ("left", "right"), [0.5, 0.5], 2.0, "FF"),
    "ball_bearing": (("x", "y", "theta"), ("right", "top", "left", "bottom"), [0.3] * 4, 0.5, None),
    "painleve_rod": (("x", "y", "theta"), ("end",), [2.0], 1.0, None),
    "painleve_rod_mu05": (("x", "y", "theta"), ("end",), [0.5], 1.0, None),
    "rhex_flip_start": (
        ("x", "y", "theta", "phi1", "phi2", "phi3"), ("body", "toe1", "toe2", "toe3"), [0.3, 0.6, 0.6, 0.6], 8.5, None,
    ),
}


def test_every_example_is_tested():
    assert sorted(p.stem for p in EXAMPLES.glob("*.toml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_round_trip(name):
    coords, contacts, mu, mass, mode = EXPECTED[name]
    loaded = load_system_file(EXAMPLES / f"{name}.toml")
    assert isinstance(loaded, LoadedSystem)
    assert loaded.name == name == loaded.system.name
    assert loaded.source == str(EXAMPLES / f"{name}.toml")
    assert loaded.raw["name"] == name
    assert loaded.description
    assert loaded.mechanism.coordinates == coords == loaded.system.coordinates
    assert loaded.system.contacts == contacts == loaded.mechanism.contact_names
    assert loaded.system.torques == loaded.mechanism.actuators
    np.testing.assert_allclose(loaded.system.mu, mu)
    assert loaded.q.shape == loaded.qdot.shape == (len(coords),)
    # total mass: the y-row of a floating base's inertia matrix
    assert loaded.system.M[1, 1] == pytest.approx(mass)
    assert loaded.desired_mode == mode
    # parse_system on the raw table gives the same system (a URDF path is relative to the file)
    uses_urdf = "urdf" in loaded.raw.get("mechanism", {})
    again = parse_system(loaded.raw, source=loaded.source if uses_urdf else "<dict>")
    np.testing.assert_array_equal(again.system.M, loaded.system.M)
    np.testing.assert_array_equal(again.system.J, loaded.system.J)
    np.testing.assert_array_equal(again.q, loaded.q)


def test_base_document_and_defaults(tmp_path):
    loaded = load_doc(tmp_path, base())
    np.testing.assert_allclose(loaded.q, [0, 0, math.radians(135), -math.pi / 2])
    np.testing.assert_array_equal(loaded.qdot, np.zeros(4))
    np.testing.assert_allclose(loaded.system.v0, [0.0, 0.0, 0.01])
    assert loaded.system.constraints == ()
    doc = base()
    del doc["name"], doc["gravity"], doc["mechanism"], doc["desired_mode"]
    loaded = load_doc(tmp_path, doc)
    assert loaded.name == "system"  # file stem
    assert loaded.mechanism.gravity == 9.81 and loaded.mechanism.base == "floating"
    assert loaded.desired_mode is None
    assert parse_system(doc).name == "system"


def test_qdot_degrees_and_partial(tmp_path):
    doc = base()
    doc["state"]["qdot"] = {"theta1_deg": 90.0}
    loaded = load_doc(tmp_path, doc)
    np.testing.assert_allclose(loaded.qdot, [0, 0, 0, math.pi / 2])


def test_fixed_base(tmp_path):
    doc = base()
    doc["mechanism"] = {"base": "fixed", "base_position": [1.0, 2.0]}
    doc["links"][0]["joint"] = "q0"
    doc["contacts"] = []
    doc["desired_mode"] = ""
    doc["state"]["q"] = {"q0": 0.0, "theta1": 0.5}
    loaded = load_doc(tmp_path, doc)
    assert loaded.mechanism.coordinates == ("q0", "theta1")
    np.testing.assert_allclose(loaded.mechanism.point_position(loaded.q, "link1", (0.0, 0.0)), [1.0, 2.0])


def test_explicit_constraints_rows(tmp_path):
    doc = base()
    doc["constraints"] = [
        {"kind": "task", "type": "geq", "name": "push", "qdd": [{"x": 1.0}, [0.0, 1.0, 0.0, 0.0]],
         "f": [{"p1.n": 2.0, "p3.t": -1.0}, {"p2": {"n": 1.0}}], "tau": [{"tau1": 3.0}, {}], "rhs": [0.5, -1]},
        {"type": "eq", "tau": [[1.0]], "rhs": [0.0]},
        {"preset": "qdd_zero", "coordinates": ["theta", "theta1"]},
        {"preset": "min_normal_force", "contact": "p2"},
        {"kind": "physical", "preset": "min_normal_force", "contact": "p3", "value": 1.5, "name": "keep p3"},
    ]
    c = load_doc(tmp_path, doc).system.constraints
    assert [x.name for x in c] == ["push", "constraints[1]", "qdd[theta, theta1] = 0", "f_n(p2) >= 5", "keep p3"]
    assert [x.type for x in c] == ["geq", "eq", "eq", "geq", "geq"]
    assert [x.kind for x in c] == ["task", "task", "task", "task", "physical"]
    np.testing.assert_array_equal(c[0].qdd, [[1, 0, 0, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(c[0].f, [[0, 2, 0, 0, -1, 0], [0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(c[0].tau, [[3], [0]])
    np.testing.assert_array_equal(c[0].rhs, [0.5, -1])
    np.testing.assert_array_equal(c[2].qdd, [[0, 0, 1, 0], [0, 0, 0, 1]])
    np.testing.assert_array_equal(c[3].f, [[0, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(c[3].rhs, [5.0])
    np.testing.assert_array_equal(c[4].rhs, [1.5])


def test_dotted_toml_keys_in_force_rows(tmp_path):
    text = to_toml(base()) + '[[constraints]]\ntype = "geq"\nf = [{ p1.n = 1.0, p1.t = 0.3 }]\nrhs = [0.0]\n'
    path = tmp_path / "dotted.toml"
    path.write_text(text)
    (c,) = load_system_file(path).system.constraints
    np.testing.assert_array_equal(c.f, [[0.3, 1.0, 0, 0, 0, 0]])


# ------------------------------------------------------------------------------------------------
# error paths: SystemFileError whose message starts with the key path


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(SystemFileError, match=r"nope\.toml: no such file"):
        load_system_file(missing)


def test_invalid_toml(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\nlinks = [\n[state\n')
    with pytest.raises(SystemFileError) as info:
        load_system_file(path)
    assert str(info.value).startswith(f"{path}: invalid TOML: ")


def test_not_a_table():
    with pytest.raises(SystemFileError, match="must be a table"):
        parse_system([1, 2])  # type: ignore[arg-type]


def mutate(path_and_value):
    doc = base()
    keys, value = path_and_value
    target = doc
    for k in keys[:-1]:
        target = target[k]
    if value is DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return doc


DELETE = object()

ERROR_CASES = [
    ((("contacts", 2, "mu"), -0.3), "contacts[2].mu: must be >= 0, got -0.3"),
    ((("contacts", 0, "mu"), float("nan")), "contacts[0].mu: must be a finite number"),
    ((("contacts", 0, "mu"), "0.3"), "contacts[0].mu: must be a number, got string"),
    ((("contacts", 0, "mu"), True), "contacts[0].mu: must be a number, got boolean"),
    ((("contacts", 1, "v0"), -1.0), "contacts[1].v0: must be >= 0"),
    ((("contacts", 1, "link"), "foo"), "contacts[1].link: unknown link 'foo'"),
    ((("contacts", 1, "name"), "p1"), "contacts[1].name: duplicate contact name 'p1'"),
    ((("contacts", 1, "name"), "p.1"), "contacts[1].name: must be a non-empty name"),
    ((("contacts", 1, "surface_normal"), [0.0, 0.0]), "contacts[1].surface_normal: must be a non-zero vector"),
    ((("contacts", 1, "position"), [0.0]), "contacts[1].position: must be an array of two numbers"),
    ((("contacts", 1, "position"), [0.0, float("inf")]), "contacts[1].position[1]: must be a finite number"),
    ((("contacts", 1, "mu"), DELETE), "contacts[1].mu: required key is missing"),
    ((("contacts", 2, "frction"), 0.1), "contacts[2].frction: unknown key"),
    ((("links", 1, "parent"), "foo"), "links[1].parent: unknown link 'foo'"),
    ((("links", 1, "parent"), DELETE), "links[1].parent: required key is missing"),
    ((("links", 0, "mas"), 1.0), "links[0].mas: unknown key"),
    ((("links", 0, "mass"), -1.0), "links[0].mass: must be >= 0"),
    ((("links", 0, "inertia"), [1.0]), "links[0].inertia: must be a number, got array"),
    ((("links", 0, "com"), "origin"), "links[0].com: must be an array of two numbers"),
    ((("links", 0, "parent"), "link2"), "links[0].parent: the first link is the root"),
    ((("links", 0, "joint"), "j0"), "links[0].joint: the root of a floating base has no joint"),
    ((("links", 0, "joint_position"), [1.0, 0.0]), "links[0].joint_position: not allowed on the root link"),
    ((("links", 1, "joint"), DELETE), "links[1].joint: required key is missing"),
    ((("links", 1, "joint"), "theta"), "links[1].joint: coordinate name 'theta' is already used"),
    ((("links", 1, "joint"), "a_deg"), "links[1].joint: a coordinate name must not end in '_deg'"),
    ((("links", 1, "name"), "link1"), "links[1].name: duplicate link name 'link1'"),
    ((("links",), []), "links: must list at least one link"),
    ((("links",), DELETE), "links: required key is missing"),
    ((("links",), {"name": "a"}), "links: must be an array, got table"),
    ((("links", 1), "link2"), "links[1]: must be a table, got string"),
    ((("point_masses", 1, "mass"), -0.1), "point_masses[1].mass: must be >= 0"),
    ((("point_masses", 1, "link"), "foo"), "point_masses[1].link: unknown link 'foo'"),
    ((("point_masses", 1, "mass"), DELETE), "point_masses[1].mass: required key is missing"),
    ((("actuators", 0, "coordinate"), "phi"), "actuators[0].coordinate: unknown coordinate 'phi'"),
    ((("actuators", 0, "torque"), 1.0), "actuators[0].torque: unknown key"),
    ((("mechanism", "base"), "floaty"), "mechanism.base: must be \"floating\" or \"fixed\""),
    ((("mechanism", "base_position"), [0.0, 0.0]), "mechanism.base_position: only allowed with base = \"fixed\""),
    ((("gravity",), -9.81), "gravity: must be >= 0"),
    ((("gravity",), "9.81"), "gravity: must be a number"),
    ((("name",), 3), "name: must be a string"),
    ((("schema",), "contactmodes.system/9"), "schema: unsupported schema"),
    ((("bogus",), 1), "bogus: unknown key"),
    ((("desired_mode",), "FF"), "desired_mode: 'FF' is not a contact mode: expected 3 letters from 'FSLR'"),
    ((("desired_mode",), "FFX"), "desired_mode: 'FFX' is not a contact mode: expected 3 letters from 'FSLR'"),
    ((("state", "q", "theta1_deg"), DELETE), "state.q: missing coordinate 'theta1'"),
    ((("state", "q", "phi"), 0.0), "state.q.phi: unknown coordinate 'phi'"),
    ((("state", "q", "theta1"), 0.0), "state.q.theta1: coordinate 'theta1' is given twice"),
    ((("state", "q", "x"), DELETE), "state.q: missing coordinate 'x'"),
    ((("state", "q", "y_deg"), 0.0), "state.q.y_deg: 'y' is a length, not an angle"),
    ((("state", "q", "theta_deg"), float("nan")), "state.q.theta_deg: must be a finite number"),
    ((("state", "qdot", "x"), "fast"), "state.qdot.x: must be a number"),
    ((("state", "qdot"), [0.0]), "state.qdot: must be a table, got array"),
    ((("state", "q"), DELETE), "state.q: required key is missing"),
    ((("state",), DELETE), "state: required key is missing"),
    ((("state", "qd"), {}), "state.qd: unknown key"),
    # a contact not touching its surface
    ((("contacts", 2, "surface_point"), [-0.1, 0.0]), "contacts[2]: contact 'p3' does not touch its surface"),
    ((("state", "q", "theta_deg"), 130.0), "contacts[1]: contact 'p2' does not touch its surface"),
]


@pytest.mark.parametrize("change, prefix", ERROR_CASES, ids=[p.split(":")[0] + "|" + p[-12:] for _, p in ERROR_CASES])
def test_error_paths(tmp_path, change, prefix):
    expect_error(tmp_path, mutate(change), prefix)


CONSTRAINT_ERRORS = [
    ({"preset": "qdd_zero", "coordinates": ["phi"]}, "constraints[0].coordinates[0]: unknown coordinate 'phi'"),
    ({"preset": "qdd_zero", "coordinates": []}, "constraints[0].coordinates: must list at least one"),
    ({"preset": "qdd_zero", "type": "geq"}, "constraints[0].type: preset 'qdd_zero' is of type 'eq'"),
    ({"preset": "qdd_zero", "contact": "p1"}, "constraints[0].contact: unknown key"),
    ({"preset": "min_normal_force"}, "constraints[0].contact: required key is missing"),
    ({"preset": "min_normal_force", "contact": "body"}, "constraints[0].contact: unknown contact 'body'"),
    ({"preset": "min_normal_force", "contact": "p1", "value": float("nan")}, "constraints[0].value: must be a finite"),
    ({"preset": "massless_balance", "coordinate": "theta1"}, "constraints[0].preset: unknown preset 'massless_balance'"),
    ({"kind": "wish", "preset": "qdd_zero"}, "constraints[0].kind: must be \"physical\" or \"task\""),
    ({"type": "leq", "rhs": [0.0], "tau": [[1.0]]}, "constraints[0].type: must be \"eq\" or \"geq\""),
    ({"type": "eq", "tau": [[1.0]]}, "constraints[0].rhs: required key is missing"),
    ({"rhs": [0.0], "tau": [[1.0]]}, "constraints[0].type: required key is missing"),
    ({"type": "eq", "rhs": [], "tau": []}, "constraints[0].rhs: must have at least one row"),
    ({"type": "eq", "rhs": [0.0, 1.0], "tau": [[1.0]]}, "constraints[0].tau: has 1 rows but rhs has 2"),
    ({"type": "eq", "rhs": [0.0], "tau": [[1.0, 2.0]]}, "constraints[0].tau[0]: an array row needs 1 numbers"),
    ({"type": "eq", "rhs": [0.0], "qdd": [{"z": 1.0}]}, "constraints[0].qdd[0].z: unknown coordinate 'z'"),
    ({"type": "eq", "rhs": [0.0], "f": [{"p1.x": 1.0}]}, 'constraints[0].f[0]."p1.x": unknown contact-force component'),
    ({"type": "eq", "rhs": [0.0], "f": [{"p9.n": 1.0}]}, 'constraints[0].f[0]."p9.n": unknown contact-force component'),
    ({"type": "eq", "rhs": [0.0], "f": [{"p1": {"z": 1.0}}]}, "constraints[0].f[0].p1.z: unknown key"),
    ({"type": "eq", "rhs": [0.0], "tau": [{"tau1": float("inf")}]}, "constraints[0].tau[0].tau1: must be a finite"),
    ({"type": "eq", "rhs": [0.0]}, "constraints[0]: all coefficients are zero"),
    ({"type": "eq", "rhs": [0.0], "tau": [[1.0]], "weight": 2}, "constraints[0].weight: unknown key"),
]


@pytest.mark.parametrize("entry, prefix", CONSTRAINT_ERRORS, ids=[p[:40] for _, p in CONSTRAINT_ERRORS])
def test_constraint_errors(tmp_path, entry, prefix):
    doc = base()
    doc["constraints"] = [entry]
    expect_error(tmp_path, doc, prefix)


def test_builder_errors_are_prefixed(monkeypatch, tmp_path):
    """A ContactModelError raised inside the builder comes back as SystemFileError with the key path,
    named once: the builder's own name of a field of the item (``contacts[p2].mu``) gives way to the
    file's (``contacts[0]``); a message about another field gets the key path as prefix."""
    from contactmodes.model import mechanism
    from contactmodes.errors import ContactModelError

    def broken(self, *args, **kwargs):
        raise ContactModelError("contacts[p2].mu: something the loader did not check")

    monkeypatch.setattr(mechanism.PlanarMechanism, "add_contact", broken)
    message = expect_error(tmp_path, base(), "contacts[0]: something the loader did not check")
    assert "p2" not in message and message.count("contacts[") == 1

    def other(self, *args, **kwargs):
        raise ContactModelError("surface: something else")

    monkeypatch.setattr(mechanism.PlanarMechanism, "add_contact", other)
    expect_error(tmp_path, base(), "contacts[0]: surface: something else")


def test_parent_listed_after_child(tmp_path):
    doc = base()
    doc["links"].append({"name": "link3", "parent": "link2", "joint": "theta2", "joint_position": [0.127, 0.0]})
    doc["links"][1], doc["links"][2] = doc["links"][2], doc["links"][1]
    doc["links"][1]["parent"] = "link2"
    expect_error(tmp_path, doc, "links[1].parent: unknown link 'link2' (list parents before their children)")


def test_a_free_object_is_refused_naming_the_modelling_scope(tmp_path):
    """A gripper's user adds the held object as a second root (a free body): refused, and the
    message names the scope the docs state (one kinematic tree, contacts against world lines)."""
    from _support.paths import ROOT

    doc = base()
    doc["links"].append({"name": "object", "mass": 0.1, "inertia": 1e-4})
    message = expect_error(tmp_path, doc, "links[2].parent: required key is missing",
                           "one kinematic tree", "no free object", "'Modelling scope'")
    assert "docs/system-file.md" in message
    page = (ROOT / "docs" / "system-file.md").read_text(encoding="utf-8")
    scope = page.split("## Modelling scope", 1)[1].split("\n## ", 1)[0]
    for claim in ("One planar kinematic tree", "Point contacts on links against fixed world lines",
                  "No free object", "gripper"):
        assert claim in scope
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("## ", 1)[0]
    assert "docs/system-file.md#modelling-scope" in readme and "gripper" in readme


def test_fixed_root_needs_joint(tmp_path):
    doc = base()
    doc["mechanism"] = {"base": "fixed"}
    expect_error(tmp_path, doc, "links[0].joint: the root of a fixed base needs")


def test_json_file(tmp_path):
    path = tmp_path / "system.json"
    path.write_text(json.dumps(BASE))
    assert load_system_file(path).mechanism.coordinates == ("x", "y", "theta", "theta1")
    path.write_text("{")
    with pytest.raises(SystemFileError, match="invalid JSON"):
        load_system_file(path)


def test_lifted_contacts_are_read_only_on_request(tmp_path):
    """``lifted_contacts=True`` (``contactmodes simulate``) accepts a contact above its surface, never
    one below it. p3's surface has normal +x through x = -0.0898 m, the point itself; moving the
    surface to x = -0.1 leaves the point 0.0102 m above it, to x = -0.08 0.0098 m inside it."""
    lifted = mutate((("contacts", 2, "surface_point"), [-0.1, 0.0]))
    expect_error(tmp_path, lifted, "contacts[2]: contact 'p3' does not touch its surface")
    path = tmp_path / "lifted.toml"
    path.write_text(to_toml(lifted), encoding="utf-8")
    loaded = load_system_file(path, lifted_contacts=True)
    gap = loaded.mechanism.contact_gaps(loaded.q)[2]
    assert gap == pytest.approx(0.1 - 0.08980256121069154, abs=1e-12)
    inside = mutate((("contacts", 2, "surface_point"), [-0.08, 0.0]))
    path.write_text(to_toml(inside), encoding="utf-8")
    with pytest.raises(SystemFileError, match=r"^contacts\[2\]: contact 'p3' does not touch its surface"):
        load_system_file(path, lifted_contacts=True)
