"""Every public docstring of ``polytopes``, ``contactmodes`` and ``controllers`` is standard numpydoc
(issue 23, item 6), so that the documentation site renders it with griffe's own NumPy parser and no
project extension: cross-references are inline code (````name````), never Sphinx roles
(``:func:`name```), which Markdown would print as they are.

What the old house dialect did and numpydoc does not (each is a failure here):

* ``name : prose`` — a list entry whose text after ``" : "`` is a description, not a type (numpydoc:
  ``name : type``, the description indented below). Prose is the extension's old rule — text with
  spaces other than in ``a, b``, ``a | b``, ``a or b`` and a trailing ``, optional`` — or text with
  inline code, a trailing full stop, or a leading shape ``(n,)``. Checked in the sections
  Parameters, Other Parameters, Attributes, Returns, Yields, Raises, Warns, and at the top of a
  docstring outside any section (an attribute list without a heading).
* A paragraph after a list, inside its section (numpydoc: under ``Notes``).
* A section heading with a note, ``Attributes (``k`` contacts)`` (numpydoc: the plain heading, the
  note a sentence before it).
* A reST literal-block marker, a line ending in ``::``.
* A Sphinx cross-reference role (``:class:``, ``:func:``, ``:meth:``, ...).

Public: modules whose path has no ``_``-prefixed part, their classes and functions and the
methods of those classes whose names do not start with ``_`` (dunders included), read with
``ast`` (nothing is imported).
"""

from __future__ import annotations

import ast
import inspect
import logging
import re
from pathlib import Path

import pytest

from _support.paths import ROOT

PACKAGES = ("polytopes", "contactmodes", "controllers")

SECTION_NAMES = ("Parameters", "Other Parameters", "Attributes", "Methods", "Returns", "Yields", "Receives",
                 "Raises", "Warns", "Warnings", "See Also", "Notes", "References", "Examples")
NAMED_SECTIONS = {"parameters", "other parameters", "attributes"}  # entries ``name[, name] : type``
TYPED_SECTIONS = {"returns", "yields", "receives", "raises", "warns"}  # entries ``type`` or ``name : type``
_NOTED_HEADING = re.compile(r"^(%s)\b\s*\S" % "|".join(SECTION_NAMES))
_ENTRY = re.compile(r"^(.+?) : (.*)$")
_NAMES = re.compile(r"^\*{0,2}[A-Za-z_]\w*(?:, \*{0,2}[A-Za-z_]\w*)*$")
_TOP_ENTRY = re.compile(r"^[A-Za-z_]\w*(?:, [A-Za-z_]\w*)* : (.*)$")
_LITERAL_MARKER = re.compile(r"\S::\s*$")
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`")


def is_prose(text: str) -> bool:
    """Whether the text after ``" : "`` of a list entry is a description rather than a type."""
    t = re.sub(r",\s*optional$", "", text.strip())
    return (" " in re.sub(r", | \| | or ", ",", t) or "`" in t or t.endswith(".") or t.startswith("("))


def is_type(text: str) -> bool:
    return bool(text.strip()) and not is_prose(text)


def problems(doc: str) -> list[str]:
    """The dialect habits in the (cleaned) docstring ``doc``, one message per offending line."""
    lines = inspect.cleandoc(doc).split("\n")
    found: list[str] = []
    section = None
    paragraph = False  # inside a paragraph already reported
    for i, line in enumerate(lines):
        stripped = line.strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if stripped and len(nxt) >= 3 and set(nxt) == {"-"}:  # a heading
            section = stripped.lower()
            if stripped not in SECTION_NAMES and (noted := _NOTED_HEADING.match(stripped)):
                found.append(f"heading with a note (make the note a sentence before the heading): {stripped!r}")
                section = noted.group(1).lower()
            continue
        if stripped and set(stripped) == {"-"}:
            continue
        if _LITERAL_MARKER.search(line):
            found.append(f"reST literal marker '::' (end the line with one colon): {stripped!r}")
        if _ROLE.search(line):
            found.append(f"Sphinx role (write ``name`` as inline code): {stripped!r}")
        if not stripped:
            paragraph = False
        if not stripped or line[0].isspace() or paragraph:
            continue
        entry = _ENTRY.match(stripped)
        if section in NAMED_SECTIONS or section in TYPED_SECTIONS:
            if entry and is_prose(entry.group(2)):
                found.append(f"'name : prose' in {section} (want 'name : type', the description below): {stripped!r}")
            elif not entry and not (_NAMES.match(stripped) if section in NAMED_SECTIONS else is_type(stripped)):
                found.append(f"paragraph inside the {section} list (put it under a 'Notes' heading): {stripped!r}")
                paragraph = True
        elif section != "see also":
            top = _TOP_ENTRY.match(stripped)
            if top and is_prose(top.group(1)):
                found.append(f"'name : prose' outside a section (an Attributes/Parameters list?): {stripped!r}")
    return found


def _defs(body: list[ast.stmt], prefix: str):
    """Public classes and functions of a statement list (inside ``if``/``try`` blocks too), methods
    of public classes included, as ``(qualified name, node)``."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            dunder = node.name.startswith("__") and node.name.endswith("__")
            if node.name.startswith("_") and not dunder:
                continue
            yield prefix + node.name, node
            if isinstance(node, ast.ClassDef):
                yield from _defs(node.body, prefix + node.name + ".")
        elif isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, node.orelse, getattr(node, "finalbody", []),
                          *[h.body for h in getattr(node, "handlers", [])]):
                yield from _defs(block, prefix)


def public_files() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                  if not any(part.startswith("_") and part != "__init__.py" for part in p.relative_to(ROOT).parts))


def public_docstrings(rel: str) -> list[tuple[str, int, str]]:
    """``(where, line, docstring)`` of the module and its public classes, functions and methods."""
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"), filename=rel)
    out = []
    if (doc := ast.get_docstring(tree, clean=False)) is not None:
        out.append(("<module>", 1, doc))
    for name, node in _defs(tree.body, ""):
        if (doc := ast.get_docstring(node, clean=False)) is not None:
            out.append((name, node.body[0].lineno, doc))
    return out


FILES = public_files()


def test_the_walk_finds_the_public_docstrings():
    assert len(FILES) > 50 and "contactmodes/analysis/analyze.py" in FILES
    assert not any("/_" in f.replace("/__init__.py", "") for f in FILES)  # no private module
    names = {name for name, _, _ in public_docstrings("contactmodes/analysis/analyze.py")}
    assert {"<module>", "analyze", "AnalysisResult", "ModeAnalysis"} <= names
    assert not any(n.split(".")[-1].startswith("_") and not n.endswith("__") for n in names)
    assert sum(len(public_docstrings(f)) for f in FILES) > 500


@pytest.mark.parametrize("rel", FILES)
def test_public_docstrings_are_numpydoc(rel):
    bad = [f"{rel}:{line} {where}: {msg}" for where, line, doc in public_docstrings(rel) for msg in problems(doc)]
    assert not bad, "\n".join(bad)


def test_a_sphinx_role_is_a_problem():
    assert problems("Summary, see :func:`polytopes.project`.") and not problems("Summary, see ``project``.")


def test_the_site_needs_no_docstring_extension():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "extensions:" not in config.split("mkdocstrings:")[1].split("\n  - ")[0]
    assert not (ROOT / "docs" / "griffe_project.py").exists()


def test_the_check_sees_every_habit():
    dialect = '''Summary.

    Attributes (``k`` contacts)
    ----------
    threshold : (k,) velocity thresholds.
    mode : ``c``.
    t_zero, n_zero : numpy.ndarray
        Flags.

    Parameters
    ----------
    q : the configuration.
    kind : ``"eq"`` or ``"geq"``.

    The paper's ``A q̈ = B τ + b`` is ``qdd = A``.

    Returns
    -------
    list[Polytope] : the pieces.
    str
        A table::

            a  b

    Raises
    ------
    ValueError : on a bad box.
    '''
    kinds = [re.match(r"heading with a note|'name : prose' in \w+|paragraph inside|reST literal", m).group()
             for m in problems(dialect)]
    assert kinds == ["heading with a note", "'name : prose' in attributes", "'name : prose' in attributes",
                     "'name : prose' in parameters", "'name : prose' in parameters", "paragraph inside",
                     "'name : prose' in returns", "reST literal", "'name : prose' in raises"]
    assert problems("Summary.\n\n    domains : mode → ``T_c``.\n    box : tuple\n") == [
        "'name : prose' outside a section (an Attributes/Parameters list?): 'domains : mode → ``T_c``.'"]
    clean = '''Summary with a set ``{x : A x <= b}``.

    Attributes
    ----------
    threshold : numpy.ndarray
        ``(k,)`` velocity thresholds (m/s).
    t_zero, n_zero : numpy.ndarray or None
        Flags.
    box : tuple[numpy.ndarray, numpy.ndarray], optional
        ``(lo, hi)``.

    Notes
    -----
    The paper's ``A q̈ = B τ + b`` is ``qdd = A``:

        a  b

    Returns
    -------
    bool or numpy.ndarray
        The answer.
    pieces : list[Polytope]
        The pieces.

    Raises
    ------
    PolytopeError
        On a dimension mismatch.

    See Also
    --------
    analyze : The function that returns it.
    '''
    assert problems(clean) == []


def test_griffes_numpy_parser_reads_them_without_a_warning():
    """The site's parser as the site runs it (no extension): no
    "Could not parse line", no "does not appear in the function signature", no missing type."""
    griffe = pytest.importorskip("griffe")
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    def members(obj):
        for name, member in obj.members.items():
            if member.is_alias or (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))):
                continue
            yield member
            if member.is_class or member.is_module:
                yield from members(member)

    logger = logging.getLogger("griffe")
    handler, level = Collect(level=logging.WARNING), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    parsed = 0
    try:
        for pkg in PACKAGES:
            root = griffe.load(pkg, search_paths=[str(ROOT)], allow_inspection=False)
            for obj in [root, *members(root)]:
                path = obj.filepath
                if obj.docstring is None or isinstance(path, list):
                    continue
                obj.docstring.parse("numpy")
                parsed += 1
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert parsed > 500
    assert not messages, "\n".join(messages)
