"""JSON Schemas (draft 2020-12) of the JSON documents contactmodes reads and writes.

One file per document, named after its ``"schema"`` tag with the ``/`` written as ``-``:
``contactmodes.analysis/1`` is ``contactmodes.analysis-1.schema.json``. The documents:

* ``contactmodes.analysis/1`` — ``contactmodes analyze FILE --json``
* ``contactmodes.check/1`` — ``contactmodes check FILE --json`` (and ``--snap``)
* ``contactmodes.brace/1`` — ``contactmodes brace FILE --json``
* ``contactmodes.flip/1`` — ``contactmodes flip --json``, ``controllers.rhex.run_flip``
* ``contactmodes.sweep/1`` — ``contactmodes sweep KIND --json`` (``analyze`` and ``flip`` points
  checked field by field; another kind's points only for ``params``, ``ok``, ``error``)
* ``contactmodes.system/1`` — the system file (an *input*; its ``schema`` key is optional, so
  name it: ``validate(table, "contactmodes.system/1")``). It checks the structure, types and
  ranges of ``docs/system-file.md``; the loader checks more (names that refer to each other,
  row lengths, contacts on their surfaces).

Shared definitions live in ``polytope.schema.json`` (the H-representation ``{"A", "b", "C", "d",
"dim"}``) and ``common.schema.json`` (finite numbers, vectors, matrices, mode strings, ambiguity
sources, disturbances); the document schemas refer to them by relative ``$ref``, resolved against
this directory (here through a ``referencing.Registry``; a file-based validator resolves
them from the files' own directory).

Infinity and NaN are not JSON: ``validate`` rejects them wherever they are (Python's
``json.loads`` would read ``Infinity``), and the schemas bound every number by the largest
double, so that another jsonschema validator rejects ±Infinity too.

>>> from contactmodes.schemas import validate
>>> validate({"schema": "contactmodes.analysis/1"})
Traceback (most recent call last):
contactmodes.schemas.DocumentError: contactmodes.analysis/1: $: 'system' is a required property (4 more)

``validate`` needs ``jsonschema`` (a test-time dependency: ``pip install jsonschema``, in the
``dev`` extra); ``schema`` and ``names`` do not.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from importlib import resources
from typing import Any, Iterator

from contactmodes.errors import ContactModelError

__all__ = ["DocumentError", "names", "schema", "validate"]

_SUFFIX = ".schema.json"
_MESSAGE_MAX = 240
_INSTALL_HINT = "contactmodes.schemas.validate needs jsonschema>=4.18 (pip install jsonschema)"


class DocumentError(ContactModelError):
    """A document that its schema rejects.

    Parameters
    ----------
    message : str
        The one-line message.
    path : str, optional
        Where in the document (``$.modes[2].mode``); stored as ``path``.
    name : str, optional
        The schema's document name; stored as ``name``.
    """

    def __init__(self, message: str, path: str = "$", name: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.name = name


def _file_of(name: str) -> str:
    """``contactmodes.analysis/1`` or ``contactmodes.analysis-1`` or ``polytope`` → file name."""
    stem = name.replace("/", "-")
    if stem.endswith(_SUFFIX):
        stem = stem[: -len(_SUFFIX)]
    return stem + _SUFFIX


@functools.lru_cache(maxsize=None)
def _files() -> dict[str, str]:
    """Every schema file of this package: ``{file name: text}``."""
    root = resources.files(__name__)
    return {entry.name: entry.read_text(encoding="utf-8") for entry in root.iterdir()
            if entry.name.endswith(_SUFFIX)}


@functools.lru_cache(maxsize=None)
def _loaded(file: str) -> dict:
    try:
        text = _files()[file]
    except KeyError:
        raise KeyError(f"no JSON schema {file!r} in contactmodes.schemas (documents: {', '.join(names())}; "
                       f"shared: polytope, common)") from None
    return json.loads(text)


def names() -> list[str]:
    """The document names that have a schema (``contactmodes.analysis/1``, …), sorted."""
    out = []
    for file in _files():
        stem, _, version = file[: -len(_SUFFIX)].rpartition("-")
        if stem and version.isdigit():
            out.append(f"{stem}/{version}")
    return sorted(out)


def schema(name: str) -> dict:
    """The JSON Schema (a fresh dict) of a document or of a shared file.

    Parameters
    ----------
    name : str
        A document name (``"contactmodes.analysis/1"``, or ``"contactmodes.analysis-1"``), or a
        shared file (``"polytope"``, ``"common"``).

    Returns
    -------
    dict
        The schema (a copy: change it freely).

    Raises
    ------
    KeyError
        Naming the known schemas, for an unknown ``name``.
    """
    return copy.deepcopy(_loaded(_file_of(name)))


def _jsonschema():
    """The jsonschema module, imported on first use; ImportError with the install command."""
    try:
        import jsonschema
        import referencing
        import referencing.jsonschema  # noqa: F401
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None
    return jsonschema


@functools.lru_cache(maxsize=None)
def _registry():
    """Every schema file as a resource under its file name (the relative ``$ref`` targets)."""
    jsonschema = _jsonschema()
    import referencing
    import referencing.jsonschema

    spec = referencing.jsonschema.DRAFT202012
    for file in _files():  # the schemas themselves are valid draft 2020-12 schemas
        jsonschema.Draft202012Validator.check_schema(_loaded(file))
    return referencing.Registry().with_resources(
        (file, referencing.Resource.from_contents(_loaded(file), default_specification=spec)) for file in _files())


@functools.lru_cache(maxsize=None)
def _validator(file: str):
    jsonschema = _jsonschema()
    return jsonschema.Draft202012Validator({"$ref": file}, registry=_registry())


def _key(path: str, key: Any) -> str:
    return f"{path}.{key}" if isinstance(key, str) and key.isidentifier() else f"{path}[{key!r}]"


def _non_finite(value: Any, path: str = "$") -> Iterator[tuple[str, float]]:
    """``(path, value)`` of the float values that are not JSON numbers (±Infinity, NaN)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _non_finite(v, _key(path, k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _non_finite(v, f"{path}[{i}]")


def _path(error) -> str:
    out = "$"
    for part in error.absolute_path:
        out = f"{out}[{part}]" if isinstance(part, int) else _key(out, part)
    return out


def validate(document: Any, name: str | None = None) -> None:
    """Check ``document`` (parsed JSON: dicts, lists, str, int, float, bool, None) against the
    schema of ``name``, by default of its own ``"schema"`` tag.

    Parameters
    ----------
    document : Any
        Parsed JSON.
    name : str, optional
        The schema's document name (or ``"polytope"``); default the document's ``"schema"`` tag.

    Raises
    ------
    DocumentError
        When the document is not valid: the message names the schema, the path of the violation
        (``$.modes[3].mode``; the most relevant one, ``jsonschema.exceptions.best_match``, when
        there are several) and what is wrong; a non-finite float (Infinity, NaN) is reported first.
    KeyError
        When ``name`` is neither a document of ``names`` nor ``"polytope"`` (an unknown
        ``"schema"`` tag of the document is a DocumentError).
    ImportError
        When jsonschema is not installed (the message says ``pip install jsonschema``).
    """
    if name is None:
        tag = document.get("schema") if isinstance(document, dict) else None
        if not isinstance(tag, str):
            raise DocumentError('$.schema: the document has no "schema" tag; pass the schema name', "$.schema")
        if tag not in names():
            raise DocumentError(f"$.schema: no JSON schema for {tag!r} (known: {', '.join(names())})", "$.schema")
        name = tag
    file = _file_of(name)
    if name not in names() and file != _file_of("polytope"):  # common.schema.json is definitions only
        raise KeyError(f"no JSON schema {name!r} in contactmodes.schemas (documents: {', '.join(names())}; "
                       "shared: polytope)")
    validator = _validator(file)
    for path, value in _non_finite(document):
        text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise DocumentError(f"{name}: {path}: {text} is not a JSON number "
                            "(Infinity and NaN never appear; docs/conventions.md)", path, name)
    errors = list(validator.iter_errors(document))
    if errors:
        from jsonschema.exceptions import best_match

        error = best_match(errors)
        path = _path(error)
        message = error.message
        if len(message) > _MESSAGE_MAX:  # jsonschema quotes the whole offending value
            message = f"{message[:_MESSAGE_MAX // 2]} … {message[-_MESSAGE_MAX // 2:]}"
        more = f" ({len(errors) - 1} more)" if len(errors) > 1 else ""
        raise DocumentError(f"{name}: {path}: {message}{more}", path, name)

