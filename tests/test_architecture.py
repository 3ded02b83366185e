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
