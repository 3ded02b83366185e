"""Change numbers in a TOML document's text and keep everything else as written (comments, layout,
the spelling of every other number): ``contactmodes check FILE --snap --write OUT``.

Method: a small lexer lists the bare tokens outside strings and comments (numbers, booleans, keys,
dates). The token holding the value of a key path is the one whose replacement by a marker number
changes that key's value when the text is parsed again (``tomllib``). A key to add goes after a
located key of the same table (``, k = v`` in an inline table, a new line in a ``[table]``), into
an empty inline table ``{}``, or into a new ``[table]`` at the end. Every candidate edit is parsed
and kept only if it gives exactly the expected document, so the text is never guessed at: when no
candidate does, ``TomlEditError`` is raised and nothing is returned.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Mapping, Sequence, Union

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from contactmodes.errors import ContactModelError

__all__ = ["TomlEditError", "edit_numbers", "float_literal"]

KeyPath = tuple[str, ...]
Value = Union[float, list[float], tuple[float, ...]]

_MARKER = 7.3786976294838206e-297
_BARE_KEY = re.compile(r"^[A-Za-z0-9_\-]+$")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-.:")


class TomlEditError(ContactModelError):
    """The text could not be edited to give the expected document (the message says which key)."""


def float_literal(value: float) -> str:
    """A TOML float literal that reads back as exactly ``value`` (finite): Python's shortest repr.

    Parameters
    ----------
    value : float
        A finite number.

    Returns
    -------
    str
        Its literal.
    """
    return repr(float(value))


def edit_numbers(text: str, changes: Mapping[KeyPath, Value]) -> str:
    """``text`` with the number (or array of numbers) at each key path of ``changes`` replaced (or
    the key added).

    Parameters
    ----------
    text : str
        A TOML document.
    changes : Mapping[tuple[str, ...], float or Sequence[float]]
        Key path (``("state", "q", "theta_deg")``) → new value: a finite float, or a list of
        finite floats (``("state", "q", "base_position")`` → ``[x, y, z]``: each entry of an
        existing array of as many numbers is replaced in place; a missing key is added as an
        array). The parent of each path must be a table of the document; an existing value must
        be a number (an array of numbers for a list).

    Returns
    -------
    str
        The edited text: it parses to the document of ``text`` with exactly these values set.

    Raises
    ------
    TomlEditError
        ``text`` is not TOML, a path's value is not a number (not an array of as many numbers),
        or no edit gives the expected document (the message names the key path).
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"not a TOML document: {exc}") from None
    for path, value in changes.items():
        old = _get(doc, path)
        if old is None:
            continue
        if isinstance(value, (list, tuple)):
            if not isinstance(old, list) or len(old) != len(value) or not all(map(_is_number, old)):
                raise TomlEditError(f"{_dotted(path)}: not an array of {len(value)} numbers")
        elif not _is_number(old):
            raise TomlEditError(f"{_dotted(path)}: not a number")
    expected = _with(doc, list(changes), changes)

    words = _words(text)
    spans: dict[tuple[str | int, ...], tuple[int, int]] = {}
    numbers: dict[tuple[str | int, ...], float] = {}
    for path, value in changes.items():
        old = _get(doc, path)
        if old is None:
            continue
        if isinstance(value, (list, tuple)):  # an array's unchanged entries keep their spelling
            entries = [(path + (i,), float(v)) for i, v in enumerate(value) if float(v) != old[i]]
        else:
            entries = [(path, float(value))]
        for where, number in entries:
            spans[where] = _locate(text, words, where, _get(doc, where))
            numbers[where] = number
    edited = text
    for where, (start, end) in sorted(spans.items(), key=lambda item: -item[1][0]):
        edited = edited[:start] + float_literal(numbers[where]) + edited[end:]

    missing = [path for path in changes if _get(doc, path) is None]
    for table in dict.fromkeys(path[:-1] for path in missing):
        keys = [path for path in missing if path[:-1] == table]
        target = _with(_parse(edited), keys, changes)
        edited = _add_keys(edited, doc, table, keys, changes, target)
    if _parse(edited) != expected:
        raise TomlEditError("the edited text does not give the expected document")
    return edited


def _parse(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _literal(value: Value) -> str:
    """The TOML literal of a number or an array of numbers."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(float_literal(v) for v in value) + "]"
    return float_literal(value)


def _get(doc: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` (a string indexes a table, an int an array), or ``None``."""
    for key in path:
        if isinstance(key, int):
            if not isinstance(doc, list) or not 0 <= key < len(doc):
                return None
        elif not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def _with(doc: dict | None, paths: Sequence[KeyPath], changes: Mapping[KeyPath, Value]) -> dict:
    """A copy of ``doc`` with the values of ``paths`` set (missing tables created)."""
    out = copy.deepcopy(doc) if doc is not None else {}
    for path in paths:
        table = out
        for i, key in enumerate(path[:-1]):
            table = table.setdefault(key, {})
            if not isinstance(table, dict):
                raise TomlEditError(f"{_dotted(path[: i + 1])}: not a table")
        value = changes[path]
        table[path[-1]] = [float(v) for v in value] if isinstance(value, (list, tuple)) else float(value)
    return out


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name)


def _dotted(path: Sequence[str | int]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else ("." if i else "") + _key(k)
                   for i, k in enumerate(path)) or "(document)"


def _words(text: str) -> list[tuple[int, int]]:
    """Spans of the bare tokens of ``text`` outside strings and comments."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i : i + 3]
            i += 3
            while i < n and not text.startswith(quote, i):
                i += 2 if quote == '"""' and text[i] == "\\" else 1
            i += 3
            while i < n and text[i] == quote[0]:  # up to two quotes may close the content
                i += 1
        elif ch in "\"'":
            i += 1
            while i < n and text[i] != ch and text[i] != "\n":
                i += 2 if ch == '"' and text[i] == "\\" else 1
            i += 1
        elif ch in _WORD_CHARS:
            start = i
            while i < n and text[i] in _WORD_CHARS:
                i += 1
            spans.append((start, i))
        else:
            i += 1
    return spans


def _number(token: str) -> float | None:
    t = token.replace("_", "")
    try:
        if t.lstrip("+-")[:2] in ("0x", "0o", "0b"):
            return float(int(t, 0))
        return float(t)
    except ValueError:
        return None


def _locate(text: str, words: Sequence[tuple[int, int]], path: Sequence[str | int], value: Any) -> tuple[int, int]:
    """The span of the token holding ``path``'s value ``value`` (a number)."""
    marker = _MARKER if value != _MARKER else 2 * _MARKER
    for start, end in words:
        if _number(text[start:end]) != value:
            continue
        probe = _parse(text[:start] + float_literal(marker) + text[end:])
        if probe is not None and _get(probe, path) == marker:
            return start, end
    raise TomlEditError(f"{_dotted(path)}: cannot find its value in the text")


def _add_keys(text: str, doc: dict, table: KeyPath, keys: Sequence[KeyPath], changes: Mapping[KeyPath, Value],
              target: dict) -> str:
    """``text`` with the keys ``keys`` (all in ``table``) added; verified to parse to ``target``."""
    pairs = [f"{_key(path[-1])} = {_literal(changes[path])}" for path in keys]
    candidates = []
    words = _words(text)
    present = _get(doc, table)
    siblings = [k for k, v in present.items() if isinstance(v, (int, float)) and not isinstance(v, bool)] \
        if isinstance(present, dict) else []
    edited_doc = _parse(text)
    for key in reversed(siblings):  # after the last key of the table that can be found
        try:
            start, end = _locate(text, words, table + (key,), _get(edited_doc, table + (key,)))
        except TomlEditError:
            continue
        candidates.append(text[:end] + "".join(f", {p}" for p in pairs) + text[end:])  # inline table
        eol = text.find("\n", end)
        eol = len(text) if eol < 0 else eol + 1
        head = text[:eol] if text[:eol].endswith("\n") or not text[:eol] else text[:eol] + "\n"
        written = re.match(r"[ \t]*(.+?)[ \t]*=", text[text.rfind("\n", 0, start) + 1 : start])
        prefixes = [""]  # a [table] line; or the dotted prefix of the sibling's key (``qdot.x = …``)
        if written is not None and "." in written.group(1):
            prefixes.append(written.group(1).rsplit(".", 1)[0] + ".")
        for prefix in prefixes:
            candidates.append(head + "".join(f"{prefix}{p}\n" for p in pairs) + text[eol:])
    for match in re.finditer(r"\{[ \t]*\}", text):  # an empty inline table (one inside a string fails the check)
        candidates.append(text[: match.start()] + "{ " + ", ".join(pairs) + " }" + text[match.end():])
    tail = text if text.endswith("\n") or not text else text + "\n"
    candidates.append(tail + f"\n[{_dotted(table)}]\n" + "".join(f"{p}\n" for p in pairs))
    for candidate in candidates:
        if _parse(candidate) == target:
            return candidate
    raise TomlEditError(f"{_dotted(table)}: cannot add {', '.join(_key(p[-1]) for p in keys)} to the text")
