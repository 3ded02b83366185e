"""The package graph (issue 23): imports go one way, ``polytopes`` ← ``contactmodes`` ←
``controllers``, inside ``contactmodes`` in the pipeline's order (``PIPELINE``), and no module
imports itself back through others — function-level imports included (only ``if TYPE_CHECKING:``
blocks, which never run, are left out), and the imports by name at run time too:
``importlib.import_module("literal")`` (relative ones resolved against ``__package__`` or
``__name__``) and ``__import__("literal")``; the one dynamic import whose name is not a literal,
the front door's ``_LAZY`` table, is read as the edges it makes. Entry points are plug-ins, not
edges: their targets must live in a package above the one that reads the group
(``test_entry_points_plug_in_from_above``)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import networkx as nx

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("polytopes", "contactmodes", "controllers")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _runtime_nodes(tree: ast.AST):
    """Every node outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _package_of(name: str, path: Path) -> str:
    """The package a module's relative imports start from (``__package__``)."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def dynamic_import(node: ast.AST, name: str, path: Path) -> str | None | bool:
    """For a call ``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``:
    the absolute module name it imports, or ``None`` when its name is not a literal (or a relative
    literal whose package is not ``__package__``, ``__name__`` or a literal). ``False``: not such
    a call."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    callee = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    if callee not in ("import_module", "__import__") or not node.args:
        return False
    first = node.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    target = first.value
    if callee == "__import__" or not target.startswith("."):
        return target
    pkg_arg = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "package"), None)
    if isinstance(pkg_arg, ast.Constant) and isinstance(pkg_arg.value, str):
        package = pkg_arg.value
    elif isinstance(pkg_arg, ast.Name) and pkg_arg.id == "__package__":
        package = _package_of(name, path)
    elif isinstance(pkg_arg, ast.Name) and pkg_arg.id == "__name__":
        package = name
    else:
        return None
    return importlib.util.resolve_name(target, package)


def imported_names(name: str, path: Path, modules) -> list[tuple[str, str]]:
    """``(target module, full name imported)`` of every import a module makes at run time
    (module doc): ``from a.b import c`` gives ``("a.b.c", "a.b.c")`` when ``a.b.c`` is a module,
    else ``("a.b", "a.b.c")``; dynamic imports give their module twice."""
    base = _package_of(name, path).split(".")
    out: list[tuple[str, str]] = []
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            root = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            out += [(f"{root}.{a.name}" if f"{root}.{a.name}" in modules else root, f"{root}.{a.name}")
                    for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, a.name) for a in node.names]
        else:
            target = dynamic_import(node, name, path)
            if isinstance(target, str):
                out.append((target, target))
    return out


def unresolved_dynamic_imports() -> list[str]:
    """``module:line`` of every dynamic import whose module the checker cannot name."""
    out = []
    for name, path in _modules().items():
        for node in _runtime_nodes(ast.parse(path.read_text())):
            if dynamic_import(node, name, path) is None:
                out.append(f"{name}:{node.lineno}")
    return sorted(out)


def front_door_lazy_imports() -> list[str]:
    """The modules the front door imports on first use of a name (its ``_LAZY`` table)."""
    tree = ast.parse((ROOT / "contactmodes" / "__init__.py").read_text())
    table = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in n.targets))
    return sorted({f"contactmodes.{m}" for m in ast.literal_eval(table).values()})


def import_graph() -> nx.DiGraph:
    """module → module it imports (at any depth of its code, module doc), over the three packages."""
    modules = _modules()
    G = nx.DiGraph()
    G.add_nodes_from(modules)
    for name, path in modules.items():
        G.add_edges_from((name, t) for t, _ in imported_names(name, path, modules) if t in modules and t != name)
    G.add_edges_from(("contactmodes", t) for t in front_door_lazy_imports())
    return G


def test_no_import_cycles():
    G = import_graph()
    assert G.number_of_edges() > 100  # the graph is really built
    cycles = [sorted(c) for c in nx.strongly_connected_components(G) if len(c) > 1]
    assert cycles == [], f"import cycles: {cycles}"


def test_imports_go_one_way_between_packages():
    G = import_graph()
    rank = {pkg: i for i, pkg in enumerate(PACKAGES)}
    upward = [(a, b) for a, b in G.edges if rank[b.split(".")[0]] > rank[a.split(".")[0]]]
    assert upward == []


def test_every_dynamic_import_is_seen():
    """Every ``import_module``/``__import__`` names its module as a literal, except the front
    door's ``getattr(import_module(f".{module}", __name__), name)``, whose modules are the values
    of its ``_LAZY`` table (read as edges by ``import_graph``)."""
    assert [m.partition(":")[0] for m in unresolved_dynamic_imports()] == ["contactmodes"]
    G = import_graph()
    assert G.has_edge("contactmodes", "contactmodes.analysis.analyze") and G.has_edge("contactmodes", "contactmodes.sweeps")
    assert G.has_edge("controllers.rhex.sweep", "controllers.rhex.max_thrust")  # import_module(".max_thrust", __package__)


def test_entry_points_plug_in_from_above():
    """An entry point of ``pyproject.toml`` is found by its group's reader at run time, so it is not
    an edge of the graph: its module must exist and live in a package layered above the group's
    (``contactmodes.commands`` → ``controllers``): a target in the reader's own package would be an
    import the graph cannot see. The console script's target exists."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    modules = _modules()
    rank = {pkg: i for i, pkg in enumerate(PACKAGES)}
    groups = project["entry-points"]
    assert {"contactmodes.commands", "contactmodes.sweep_kinds"} <= set(groups)
    wrong = [f"{group}: {name} = {value}" for group, eps in groups.items() for name, value in eps.items()
             if value.partition(":")[0] not in modules
             or rank[value.split(".")[0]] <= rank[group.split(".")[0]]]
    assert wrong == []
    assert all(v.partition(":")[0] in modules for v in project["scripts"].values())


# ----- the pipeline inside ``contactmodes`` (README: "the pipeline of Sec. III, one sub-package per
# stage") ---------------------------------------------------------------------------------------------

PIPELINE = (
    ("errors", "tolerances"),
    ("extras", "progress", "views", "schemas", "_blas", "_dask", "_linalg", "_command_line"),
    ("modes.contact_model", "modes.spatial_contact"),
    ("model",),
    ("modes",),
    ("control.objective", "control.limits", "control.selection", "control.spec"),
    ("system_file",),
    ("analysis", "realtime"),
    ("control", "impact"),
    ("output",),
    ("sweeps",),
    ("cli",),
    ("", "__main__"),
)
"""The stages of ``contactmodes``, first to last; each entry a module or sub-package of
``contactmodes`` (the longest entry naming a module decides its stage; ``""``: the front door,
``contactmodes/__init__.py``). A module imports only from its own entry or from an earlier stage;
the entries of one stage are parallel and import each other only inside one sub-package.

* The foundation: the two error families and the tolerances, then what every stage may use
  (optional extras, progress, the results' views, the JSON Schemas, BLAS threads, the Dask
  cluster, linear algebra, the command-line helpers the ``sweep`` kinds share with ``cli``).
* The contact models (``modes.contact_model``, ``modes.spatial_contact``: each contact type's
  components, letters and rows, Tables I–III) come before ``model``: a ``ContactSystem`` carries its
  contact model and checks its arrays against the model's components (issue 40).
* ``model`` → ``modes`` → ``system_file``: the loader checks a file's ``desired_mode`` and its
  contacts' velocities against the modes' tables (Tables I and III), so it comes after them.
* The controller's question — objective, limits, acceptable modes (``control.spec`` and the three
  modules it parses with) — is what a file's ``[control]`` table says: it sits below the loader,
  as the model's ``LinearConstraint`` and ``Disturbance`` (the analysis's questions) do; the rest
  of ``control`` (the optimum over ``T*_c``) comes after ``analysis``.
* ``realtime`` (per-pattern plans for controllers) uses ``modes`` only, beside ``analysis``.
* Results of ``analysis``, ``impact`` and ``sweeps`` show themselves through ``views``, whose
  renderers ``output`` registers (the front door imports ``output``).
* ``sweeps`` runs analyses and draws them; ``cli`` registers the ``sweep`` command; the front door
  and ``python -m contactmodes`` come last."""


def pipeline_stage(module: str) -> tuple[int, str]:
    """``(stage, entry)`` of a ``contactmodes`` module (``PIPELINE``); ``KeyError`` if undeclared."""
    rest = module.split(".", 1)[1] if "." in module else ""
    best = None
    for stage, entries in enumerate(PIPELINE):
        for entry in entries:
            if rest == entry or (entry and rest.startswith(entry + ".")):
                if best is None or len(entry) > len(best[1]):
                    best = (stage, entry)
    if best is None:
        raise KeyError(f"{module}: declare its stage in PIPELINE")
    return best


def pipeline_violations(edges) -> list[str]:
    """The edges ``(a, b)`` between ``contactmodes`` modules that go against ``PIPELINE``."""
    out = []
    for a, b in edges:
        if not (a.split(".")[0] == b.split(".")[0] == "contactmodes"):
            continue
        (sa, ea), (sb, eb) = pipeline_stage(a), pipeline_stage(b)
        if ea == eb or sb < sa or (sb == sa and ea.split(".")[0] == eb.split(".")[0]):
            continue
        out.append(f"{a} ({ea or 'front door'}) -> {b} ({eb})")
    return sorted(out)


def test_every_module_of_contactmodes_has_a_stage():
    unknown = []
    for name in _modules():
        if name.split(".")[0] == "contactmodes":
            try:
                pipeline_stage(name)
            except KeyError as exc:
                unknown.append(str(exc))
    assert unknown == []


def test_contactmodes_imports_follow_the_pipeline():
    """No import from a later stage into an earlier one, nor between the parallel sub-packages of
    one stage (``PIPELINE``) — function-level and dynamic imports included."""
    G = import_graph()
    assert pipeline_violations(G.edges) == []


def test_the_pipeline_check_sees_imports_against_the_order():
    assert pipeline_violations([("contactmodes.analysis.analyze", "contactmodes.output.notebook"),
                                ("contactmodes.system_file.loader", "contactmodes.control.optimal"),
                                ("contactmodes.control.optimal", "contactmodes.impact.result"),
                                ("contactmodes.sweeps.cli", "contactmodes.cli"),
                                ("contactmodes.output.text", "contactmodes.output.plot"),
                                ("contactmodes.control.spec", "contactmodes.control.limits"),
                                ("contactmodes.control.optimal", "contactmodes.control.spec"),
                                ("contactmodes.system_file.loader", "contactmodes.control.spec")]) == [
        "contactmodes.analysis.analyze (analysis) -> contactmodes.output.notebook (output)",
        "contactmodes.control.optimal (control) -> contactmodes.impact.result (impact)",
        "contactmodes.sweeps.cli (sweeps) -> contactmodes.cli (cli)",
        "contactmodes.system_file.loader (system_file) -> contactmodes.control.optimal (control)"]
    assert pipeline_stage("contactmodes") == (len(PIPELINE) - 1, "")
    assert pipeline_stage("contactmodes.control.spec")[0] < pipeline_stage("contactmodes.system_file.loader")[0] \
        < pipeline_stage("contactmodes.control.optimal")[0]


# ----- private names stay in their sub-package ---------------------------------------------------------

def _is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def private_owner(full: str, modules) -> str | None:
    """The package a private dotted name belongs to: the package holding its first ``_``-part
    (``contactmodes.cli._cluster`` → ``contactmodes.cli``; ``contactmodes.system_file.loader._parse``
    → ``contactmodes.system_file``, the package of the module defining it); ``None`` if public."""
    parts = full.split(".")
    i = next((i for i, part in enumerate(parts) if _is_private(part)), None)
    if i is None:
        return None
    owner = ".".join(parts[:i])
    if owner in modules and modules[owner].name != "__init__.py":  # a module's private name
        owner = owner.rpartition(".")[0]
    return owner


def _module_aliases(tree: ast.AST, name: str, path: Path, modules) -> dict[str, str]:
    """Local name → module, for the names a module binds to modules (``import a.b as c``,
    ``from a import b`` with ``a.b`` a module)."""
    base = _package_of(name, path).split(".")
    out = {}
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in modules:
                    out[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            root = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            for a in node.names:
                if f"{root}.{a.name}" in modules:
                    out[a.asname or a.name] = f"{root}.{a.name}"
    return out


def private_imports() -> list[str]:
    """``importer: name`` of every private name a module imports (or reads from an imported
    module, ``alias._name``) from outside the package that owns it (``private_owner``)."""
    modules = _modules()
    out = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        names = [full for _, full in imported_names(name, path, modules)]
        aliases = _module_aliases(tree, name, path, modules)
        names += [f"{aliases[n.value.id]}.{n.attr}" for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases]
        for full in names:
            owner = private_owner(full, modules)
            if owner is not None and owner.split(".")[0] in PACKAGES and not (name == owner or name.startswith(owner + ".")):
                out.append(f"{name}: {full}")
    return sorted(set(out))


def test_no_module_imports_a_private_name_of_another_sub_package():
    """A ``_``-name is its sub-package's (or, for ``contactmodes._linalg`` and the like, its
    package's): shared across sub-packages it gets a public name (the loader's ``read_document``,
    ``parse_contents``; ``system_file.tomledit``; ``modes.response_kernels``; ``SearchCounters``)."""
    assert private_imports() == []


def _private_members(tree: ast.AST) -> set[str]:
    """The private members of a module's classes: ``_``-methods and class attributes,
    ``self._x`` assigned in their methods, ``__slots__`` entries."""
    names: set[str] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
                if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets) \
                        and isinstance(node.value, (ast.Tuple, ast.List)):
                    names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
        for node in ast.walk(cls):
            target = node.target if isinstance(node, ast.AnnAssign) else None
            for t in ([target] if target is not None else node.targets if isinstance(node, ast.Assign) else []):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.add(t.attr)
    return {n for n in names if _is_private(n)}


def foreign_private_reads() -> dict[str, list[str]]:
    """Per module, its reads ``X._name`` (as ``private_attribute_reads``: ``X`` not ``self``/``cls``)
    of a private member that no class of the module defines but a class of another module of the
    three packages does (``X`` a module bound by an import: ``private_imports``'s business)."""
    modules = _modules()
    trees = {name: ast.parse(path.read_text()) for name, path in modules.items()}
    members = {name: _private_members(tree) for name, tree in trees.items()}
    everywhere = set().union(*members.values())
    out = {}
    for name, tree in trees.items():
        skip = {"self", "cls"} | set(_module_aliases(tree, name, modules[name], modules))
        foreign = everywhere - members[name]
        reads = sorted(f"{n.lineno}: {ast.unparse(n)}" for n in ast.walk(tree)
                       if isinstance(n, ast.Attribute) and n.attr in foreign
                       and not (isinstance(n.value, ast.Name) and n.value.id in skip))
        if reads:
            out[name] = reads
    return out


def test_no_module_reads_a_private_member_of_another_modules_class():
    """An object's private state is its class's: other modules go through public names (the
    session's ``has``/``provide``/``prime_boxes``/``forget_modes`` for ``analysis.distributed``;
    ``Layout.prefix_pruning``/``kin_bank``/``kin_rhs`` and ``PrefixPruning.certified`` for
    ``realtime.kinematic``)."""
    assert foreign_private_reads() == {}


def test_the_privacy_checks_see_private_names(tmp_path):
    modules = _modules()
    assert private_owner("contactmodes.system_file.loader._parse", modules) == "contactmodes.system_file"
    assert private_owner("contactmodes.modes._response_kernels", {}) == "contactmodes.modes"
    assert private_owner("contactmodes._linalg", modules) == "contactmodes"
    assert private_owner("contactmodes.cli.main", modules) is None
    tree = ast.parse("class A:\n    __slots__ = ('_s',)\n    def _m(self):\n        self._x = 1\n"
                     "    _c: int = 0\n")
    assert _private_members(tree) == {"_s", "_m", "_x", "_c"}
    src = tmp_path / "m.py"
    src.write_text("import importlib\nimportlib.import_module('a.b')\n__import__('c')\n"
                   "importlib.import_module('.d', __package__)\nimportlib.import_module(name)\n")
    calls = [dynamic_import(n, "p.m", src) for n in ast.walk(ast.parse(src.read_text()))]
    assert [c for c in calls if c is not False] == ["a.b", "c", "p.d", None]


def test_the_checker_sees_function_level_imports(tmp_path):
    """A cycle made only of function-level imports is found (the checker is not blind)."""
    src = ast.parse("def f():\n    from .b import g\n")
    assert any(isinstance(n, ast.ImportFrom) for n in _runtime_nodes(src))
    guarded = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import g\n")
    assert not any(isinstance(n, ast.ImportFrom) and n.module == "b" for n in _runtime_nodes(guarded))


# ----- the privacy of ``polytopes`` (issue 23: "private modules ``_``-prefixed"; the review's
# "``projection`` reads 14 private members of ``Polytope``") ---------------------------------------

POLYTOPES_PUBLIC = {"polytope", "projection", "regions", "errors", "tolerances", "lp", "batchlp",
                    "batchlp_kernel", "ppl_io"}
"""The public modules of ``polytopes`` (the rule is in ``polytopes/__init__.py``'s docstring);
every other module is ``_``-private."""


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def private_attribute_reads(tree: ast.AST, names: set[str] | None = None) -> list[str]:
    """Attribute accesses ``X._name`` (``_name`` not a dunder; with ``names``, only those names)
    on anything but the plain names ``self`` and ``cls``: ``P._hull()``, ``module._helper``,
    ``f()._cache`` all count. A simple, conservative rule: it needs no type inference, and in the
    modules it applies to an object's own private state is reached only through ``self``/``cls``."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or _is_dunder(node.attr):
            continue
        if names is not None and node.attr not in names:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def polytope_private_members() -> set[str]:
    """The private members of ``Polytope`` (its ``_``-methods and slots), read from its class."""
    tree = ast.parse((ROOT / "polytopes" / "polytope.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Polytope")
    names = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and not _is_dunder(node.name):
            names.add(node.name)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return names


def test_every_module_of_polytopes_is_public_by_name_or_private():
    for path in (ROOT / "polytopes").glob("*.py"):
        name = path.stem
        assert name == "__init__" or name.startswith("_") or name in POLYTOPES_PUBLIC, \
            f"polytopes/{path.name}: make it _-private or list it (and say why) as public"
    assert all((ROOT / "polytopes" / f"{m}.py").exists() for m in POLYTOPES_PUBLIC)


def test_no_polytopes_module_but_polytope_reads_a_private_attribute():
    """Outside ``polytopes/polytope.py`` no module of ``polytopes`` reads ``X._name`` of another
    object (``Polytope``'s private state in particular: the projection check goes through
    ``inner_system``, ``data_scale``, ``maximize`` and ``support_lps``), nor a private name of
    another module (``_redundancy.dedup``, not ``redundancy._dedup``)."""
    found = {path.name: reads for path in (ROOT / "polytopes").glob("*.py") if path.name != "polytope.py"
             for reads in [private_attribute_reads(ast.parse(path.read_text()))] if reads}
    assert found == {}


def test_no_other_package_reads_a_private_member_of_a_polytope():
    names = polytope_private_members()
    assert {"_A", "_cache", "_hull", "_feas", "_support_lps", "_inner_lp"} <= names
    found = {str(path.relative_to(ROOT)): reads for pkg in PACKAGES[1:] for path in (ROOT / pkg).rglob("*.py")
             for reads in [private_attribute_reads(ast.parse(path.read_text()), names)] if reads}
    assert found == {}


def test_private_modules_of_polytopes_are_imported_only_by_polytopes():
    G = import_graph()
    private = [(a, b) for a, b in G.edges if b.startswith("polytopes.") and b.split(".")[1].startswith("_")
               and not a.startswith("polytopes")]
    assert G.has_node("polytopes._feasibility") and private == []
    names_from_package = []  # ``from polytopes import _x`` (the graph records it as an edge to ``polytopes._x``)
    for pkg in PACKAGES[1:]:
        for path in (ROOT / pkg).rglob("*.py"):
            for node in _runtime_nodes(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module == "polytopes":
                    names_from_package += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert names_from_package == []


def test_controllers_import_no_private_module_of_contactmodes():
    """``controllers`` builds on ``contactmodes``' public modules only (a name starting with ``_``
    anywhere in the imported module's path is private: ``contactmodes._command_line``,
    ``contactmodes.modes._pivot_response``)."""
    G = import_graph()
    private = [(a, b) for a, b in G.edges if a.startswith("controllers") and b.startswith("contactmodes")
               and any(part.startswith("_") for part in b.split(".")[1:])]
    assert G.has_edge("controllers.rhex.cli", "contactmodes.cli") and private == []


def test_polytope_imports_projection_and_not_back():
    """The review's ``polytope`` ↔ ``projection``: ``Polytope.project`` imports ``projection`` (at
    call time), ``projection`` never imports ``polytope`` at run time (it builds results of its
    input's class)."""
    G = import_graph()
    assert G.has_edge("polytopes.polytope", "polytopes.projection")
    assert not nx.has_path(G, "polytopes.projection", "polytopes.polytope")


def test_the_privacy_check_sees_private_reads():
    src = ast.parse("def f(P, self):\n    self._a\n    P._hull()\n    _redundancy._dedup(1)\n    P.__class__\n")
    assert private_attribute_reads(src) == ["3: P._hull", "4: _redundancy._dedup"]
    assert private_attribute_reads(src, {"_hull"}) == ["3: P._hull"]
