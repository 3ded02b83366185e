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

Presence (issue 39): every public function with arguments documents each of them, and what it
returns and raises. The rule, checked by ``signature_problems``:

* Checked: the public functions and methods above, ``__init__`` and ``__call__`` included; their
  arguments are all but the first ``self``/``cls`` of a method (not of a ``staticmethod``). Not
  checked: the other dunders (``__eq__``, ``__getitem__``, ``__getattr__``, ``__exit__``, ...),
  whose arguments Python's data model fixes; properties (``property``, ``cached_property``, their
  setters), which take no argument and whose summary says what they are; ``typing.overload``
  stubs.
* Docstring: every checked function has one, its own or inherited (overrides, below); an
  ``__init__`` without arguments needs none.
* Parameters: in a function with arguments, a numpydoc ``Parameters`` (or ``Other Parameters``)
  section names every argument, ``*args`` and ``**kwargs`` included (with or without their
  stars), and names nothing else (a function taking ``**kwargs`` may also name the keywords it
  reads). ``__init__``'s arguments are documented in the class docstring's ``Parameters``
  (numpydoc's place) or in ``__init__``'s own.
* Returns: a function with arguments whose own body (not a nested function's) returns a value
  other than ``None`` has a ``Returns`` section; one that yields has ``Yields``. (Without
  arguments the summary line says what comes back, as for a property.)
* Raises: any checked function whose own body raises one of the toolkit's exceptions (a class of
  the three packages derived from a built-in exception: ``PolytopeError``, ``NumericalError``,
  ``ContactModelError`` and its subclasses, ``InternalError``, ...) names it, or a base class of
  it, in ``Raises``. Errors that only propagate from a callee, and built-in exceptions, are not
  required (many functions document them anyway).
* Dataclasses and named tuples without an explicit ``__init__``: the generated ``__init__`` takes
  the fields, so every field it takes (not ``ClassVar``, not ``field(init=False)``, not
  ``_``-prefixed) is named in the class docstring's ``Attributes`` or ``Parameters``. Its other
  generated methods (``__eq__``, ``__repr__``, ...) are dunders, not checked.
* Overrides: a method without a docstring of its own inherits its documentation (``inspect.getdoc``
  does, ``help()`` shows it) from the same method of a base class of the three packages, found by
  the class names in ``bases``; that docstring must then document this method's arguments. Without
  such a base, a missing docstring is a problem.
"""

from __future__ import annotations

import ast
import builtins
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


# --- Presence: every argument, return value and toolkit error documented (module doc) ---

_PROPERTY = {"property", "cached_property", "functools.cached_property"}
_CHECKED_DUNDERS = {"__init__", "__call__"}


def sections(doc: str) -> dict[str, list[str]]:
    """The (cleaned) docstring's sections, lowercase heading -> its unindented lines (the entries)."""
    lines = inspect.cleandoc(doc).split("\n")
    out: dict[str, list[str]] = {}
    current = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if stripped and len(nxt) >= 3 and set(nxt) == {"-"}:
            current = stripped.lower()
            out.setdefault(current, [])
        elif current and stripped and set(stripped) != {"-"} and not line[0].isspace():
            out[current].append(stripped)
    return out


def entry_names(entries: list[str]) -> list[str]:
    """The names of ``name[, name] : type`` (or bare ``name``) entries, stars removed."""
    return [n.strip().lstrip("*") for e in entries for n in e.split(" : ")[0].split(",")]


def raised_names(entries: list[str]) -> set[str]:
    """The exception names of a ``Raises`` section's entries (``A``, ``A or B``, ``a.b.A``)."""
    names = set()
    for entry in entries:
        kind = entry.split(" : ")[-1] if " : " in entry else entry
        names |= {n.strip().split(".")[-1] for n in re.split(r",| or ", kind) if n.strip()}
    return names


def _class_index() -> dict[str, list[tuple[ast.ClassDef, str]]]:
    """Every class of the three packages (private modules too): name -> ``(node, file)``."""
    index: dict[str, list[tuple[ast.ClassDef, str]]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    index.setdefault(node.name, []).append((node, path.relative_to(ROOT).as_posix()))
    return index


def _base_names(node: ast.ClassDef) -> list[str]:
    return [ast.unparse(b).split("[")[0].split(".")[-1] for b in node.bases]


def toolkit_errors(index: dict) -> dict[str, set[str]]:
    """The toolkit's exceptions: class name -> the names of it and its ancestors."""

    def ancestors(name: str, seen: frozenset = frozenset()) -> set[str]:
        out = {name}
        for node, _ in index.get(name, []):
            for base in _base_names(node):
                if base not in seen:
                    out |= ancestors(base, seen | {name})
        return out

    def builtin_exception(name: str) -> bool:
        obj = getattr(builtins, name, None)
        return isinstance(obj, type) and issubclass(obj, BaseException)

    found = {name: ancestors(name) for name in index}
    return {name: anc for name, anc in found.items() if any(builtin_exception(a) for a in anc)}


def _own_nodes(fn: ast.AST):
    """The nodes of a function's body, not descending into nested functions, lambdas or classes."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _decorators(node: ast.AST) -> set[str]:
    return {ast.unparse(d).split("(")[0] for d in node.decorator_list}


def arguments(node: ast.FunctionDef, method: bool) -> list[str]:
    """The argument names a docstring documents: all of them, a method's first one excepted."""
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [a.vararg.arg] if a.vararg else []
    names += [a.kwarg.arg] if a.kwarg else []
    if method and "staticmethod" not in _decorators(node) and names:
        names = names[1:]
    return names


def _inherited_doc(cls: ast.ClassDef | None, name: str, index: dict, seen: set) -> str | None:
    """The docstring of method ``name`` in the nearest base class of ``cls`` that documents it."""
    for base in _base_names(cls) if cls is not None else []:
        for node, _ in index.get(base, []):
            if base in seen:
                continue
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    if (doc := ast.get_docstring(item)) is not None:
                        return doc
            if (doc := _inherited_doc(node, name, index, seen | {base})) is not None:
                return doc
    return None


def _dataclass_problems(name: str, node: ast.ClassDef) -> list[str]:
    decorators = _decorators(node)
    named_tuple = any(b in ("NamedTuple",) for b in _base_names(node))
    if not (decorators & {"dataclass", "dataclasses.dataclass"} or named_tuple):
        return []
    if any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body):
        return []
    fields = []
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(stmt.annotation) or stmt.target.id.startswith("_"):
            continue
        value = stmt.value
        if (isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field"
                and any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                        for k in value.keywords)):
            continue
        fields.append(stmt.target.id)
    secs = sections(ast.get_docstring(node) or "")
    documented = set(entry_names(secs.get("attributes", []) + secs.get("parameters", [])))
    missing = [f for f in fields if f not in documented]
    return [f"{name}: fields of the generated __init__ not in Attributes/Parameters: {missing}"] if missing else []


def signature_problems(rel: str, source: str | None = None, index: dict | None = None) -> list[str]:
    """What the public functions of file ``rel`` (or of ``source``) leave undocumented (module doc)."""
    index = _CLASSES if index is None else index
    errors = _ERRORS if index is _CLASSES else toolkit_errors(index)
    tree = ast.parse(source if source is not None else (ROOT / rel).read_text(encoding="utf-8"))
    defs = list(_defs(tree.body, ""))
    classes = {name: node for name, node in defs if isinstance(node, ast.ClassDef)}
    found: list[str] = []
    for name, node in defs:
        if isinstance(node, ast.ClassDef):
            found += _dataclass_problems(name, node)
            continue
        short = name.rsplit(".", 1)[-1]
        decorators = _decorators(node)
        cls = classes.get(name.rsplit(".", 1)[0]) if "." in name else None
        if ((short.startswith("__") and short not in _CHECKED_DUNDERS) or decorators & _PROPERTY
                or any(d.endswith((".setter", ".deleter")) for d in decorators)
                or decorators & {"overload", "typing.overload"}):
            continue
        args = arguments(node, cls is not None)
        doc = ast.get_docstring(node)
        if doc is None and cls is not None:
            doc = _inherited_doc(cls, short, index, set())
        if short == "__init__":
            doc = "\n\n".join(d for d in (doc, ast.get_docstring(cls) if cls else None) if d) or None
            if doc is None and not args:
                continue
        if doc is None:
            found.append(f"{name}: no docstring")
            continue
        secs = sections(doc)
        if args:
            documented = entry_names(secs.get("parameters", []) + secs.get("other parameters", []))
            if "parameters" not in secs and "other parameters" not in secs:
                found.append(f"{name}: no Parameters section (arguments {args})")
            else:
                if missing := [a for a in args if a not in documented]:
                    found.append(f"{name}: arguments not in Parameters: {missing}")
                if not node.args.kwarg and (extra := [d for d in documented if d not in args]):
                    found.append(f"{name}: Parameters name what is not an argument: {extra}")
        own = list(_own_nodes(node))
        generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own)
        returns = any(isinstance(n, ast.Return) and n.value is not None
                      and not (isinstance(n.value, ast.Constant) and n.value.value is None) for n in own)
        if args and short != "__init__" and returns and not generator and "returns" not in secs:
            found.append(f"{name}: returns a value, no Returns section")
        if args and generator and "yields" not in secs:
            found.append(f"{name}: yields, no Yields section")
        listed = raised_names(secs.get("raises", []))
        for n in own:
            if isinstance(n, ast.Raise) and n.exc is not None:
                exc = ast.unparse(n.exc.func if isinstance(n.exc, ast.Call) else n.exc).split(".")[-1]
                if exc in errors and not (errors[exc] & listed):
                    found.append(f"{name}: raises {exc}, not in Raises")
    return sorted(set(found), key=found.index)


_CLASSES = _class_index()
_ERRORS = toolkit_errors(_CLASSES)


@pytest.mark.parametrize("rel", FILES)
def test_public_functions_document_their_arguments(rel):
    bad = [f"{rel}: {msg}" for msg in signature_problems(rel)]
    assert not bad, "\n".join(bad)


def test_the_toolkit_errors_are_found():
    assert {"PolytopeError", "NumericalError", "ContactModelError", "InternalError", "SystemFileError",
            "UserError", "SweepError"} <= set(_ERRORS)
    assert {"ContactModelError", "ValueError"} <= _ERRORS["SystemFileError"]
    assert "Polytope" not in _ERRORS and "AnalysisSession" not in _ERRORS


def test_the_presence_check_sees_every_gap():
    source = '''
from dataclasses import dataclass, field
from typing import ClassVar

from contactmodes.errors import SystemFileError


def undocumented(q, qdot):
    """Summary only."""
    return q


def incomplete(q, *args, tol=0.0, **options):
    """Summary.

    Parameters
    ----------
    q : numpy.ndarray
        Shape ``(n_q,)``.
    args : tuple
        More.
    qdot : numpy.ndarray
        Not an argument.
    """
    raise SystemFileError("q: bad")


def documented(q, qdot=None):
    """Summary.

    Parameters
    ----------
    q, qdot : numpy.ndarray
        Shape ``(n_q,)``.

    Returns
    -------
    numpy.ndarray
        ``q``.

    Raises
    ------
    ContactModelError
        A base class of what is raised.
    """
    if qdot is None:
        raise SystemFileError("qdot: missing")

    def nested(x):
        return x
    return q


def generator(n):
    """Summary.

    Parameters
    ----------
    n : int
        Count.
    """
    yield n


def no_arguments():
    """What it returns."""
    return 1


class Base:
    def step(self, t):
        """Summary.

        Parameters
        ----------
        t : float
            Time (s).
        """

    def other(self, t):
        """Summary.

        Parameters
        ----------
        t : float
            Time (s).
        """


class Controller(Base):
    """A controller.

    Parameters
    ----------
    gain : float
        Gain.
    """

    def __init__(self, gain):
        self.gain = gain

    def __call__(self, q):
        """No sections."""

    def __eq__(self, other):
        return True

    @property
    def value(self):
        """The value."""
        return 1

    def step(self, t):
        pass

    def other(self, s):
        pass

    def _private(self, x):
        pass


class Lonely:
    """A class without a documented base."""

    def act(self, x):
        return x

    @staticmethod
    def helper(a):
        """Static: its first argument is one.

        Parameters
        ----------
        a : int
            A number.
        """


def check():
    """What it checks."""
    raise SystemFileError("state: bad")


@dataclass
class Record:
    """A record.

    Attributes
    ----------
    a : float
        Documented.
    """

    a: float
    b: float
    c: ClassVar[int] = 0
    d: list = field(init=False)
    _e: int = 0
'''
    index = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            index.setdefault(node.name, []).append((node, "x.py"))
    index.update({k: v for k, v in _CLASSES.items() if k in ("SystemFileError", "ContactModelError")})
    assert signature_problems("x.py", source, index) == [
        "undocumented: no Parameters section (arguments ['q', 'qdot'])",
        "undocumented: returns a value, no Returns section",
        "incomplete: arguments not in Parameters: ['tol', 'options']",
        "incomplete: raises SystemFileError, not in Raises",
        "generator: yields, no Yields section",
        "Controller.__call__: no Parameters section (arguments ['q'])",
        "Controller.other: arguments not in Parameters: ['s']",
        "Controller.other: Parameters name what is not an argument: ['t']",
        "Lonely.act: no docstring",
        "check: raises SystemFileError, not in Raises",
        "Record: fields of the generated __init__ not in Attributes/Parameters: ['b']",
    ]
