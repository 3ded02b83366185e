"""The test suite's own layout (tests/README.md): no test module imports another (shared helpers
live in ``tests/_support/``), and test module names are unique across the folders (pytest's
default "prepend" import mode imports each test module by its bare name)."""

from __future__ import annotations

import ast
from collections import defaultdict

from _support.paths import TESTS

MODULES = sorted(TESTS.rglob("test_*.py"))
HELPERS = sorted((TESTS / "_support").rglob("*.py")) + [TESTS / "conftest.py"]


def imported_test_modules(path) -> list[str]:
    """``line: name`` of every import of a ``test_*`` module in ``path`` (function-level imports
    included), whether absolute (``import test_x``, ``from test_x import y``, ``from pkg.test_x
    import y``), relative, or a ``from . import test_x``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [alias.name for alias in node.names if not node.module]
        for name in names:
            if any(part.startswith("test_") for part in name.split(".")):
                found.append(f"{node.lineno}: {name}")
    return found


def test_the_walk_finds_the_test_modules():
    assert len(MODULES) > 40 and TESTS / "test_layout_of_tests.py" in MODULES
    assert any(p.parent != TESTS for p in MODULES)


def test_no_test_module_imports_another():
    bad = {str(p.relative_to(TESTS)): hits for p in MODULES + HELPERS if (hits := imported_test_modules(p))}
    assert not bad, f"test modules imported (move the helper into tests/_support/): {bad}"


def test_the_check_sees_every_form_of_import(tmp_path):
    f = tmp_path / "test_probe.py"
    f.write_text("import test_a\nfrom test_b import x\nfrom .test_c import y\nfrom . import test_d\n"
                 "def g():\n    from tests.test_e import z\nimport numpy\nfrom _support.oracle import t_margin\n")
    assert sorted(h.split(": ")[1] for h in imported_test_modules(f)) == [
        "test_a", "test_b", "test_c", "test_d", "tests.test_e"]


def test_test_module_names_are_unique_across_folders():
    where = defaultdict(list)
    for p in MODULES:
        where[p.name].append(str(p.relative_to(TESTS)))
    assert not {n: ps for n, ps in where.items() if len(ps) > 1}
