"""The package graph (issue 23): imports go one way, ``polytopes`` ← ``contactmodes`` ←
``controllers``, and no module imports itself back through others — function-level imports
included (only ``if TYPE_CHECKING:`` blocks, which never run, are left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("polytopes", "contactmodes", "controllers")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


def import_graph() -> nx.DiGraph:
    """module → module it imports (at any depth of its code), over the three packages."""
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    G = nx.DiGraph()
    G.add_nodes_from(modules)
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in _runtime_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                root = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                    if node.level else (node.module or "")
                targets = [f"{root}.{a.name}" if f"{root}.{a.name}" in modules else root for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            G.add_edges_from((name, t) for t in targets if t in modules and t != name)
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
    anywhere in the imported module's path is private: ``contactmodes.cli._common``,
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
