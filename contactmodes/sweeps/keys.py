"""Dotted key paths into a nested document (a parsed system file, a parameter table).

A key is a dotted path: ``contacts.0.mu``, ``links.1.mass``, ``state.q.theta1_deg``, ``gravity``.
Components address tables by name and arrays by index (``contacts[0].mu`` is accepted as a
synonym of ``contacts.0.mu``, the form the loader uses in its messages); ``*`` stands for every
entry of an array or table (``contacts.*.mu``). A key *expands* to one or more concrete paths,
each a tuple of ``str`` (table keys) and ``int`` (array indices).

Every intermediate component must exist. The last one must exist too, unless ``create=True``
and its parent is a table: then the key is added (``contacts.0.v0`` in a file that leaves ``v0``
at its default) and the consumer (the system-file loader) decides whether it is allowed. A key
naming a table or an array rather than a value is refused.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Mapping

from contactmodes.sweeps.grid import SweepError

__all__ = ["expand_key", "apply_overrides", "key_paths", "path_text"]

Path = tuple
_BRACKET_RE = re.compile(r"\[(\d+|\*)\]")


def _components(key: str) -> list[str]:
    text = _BRACKET_RE.sub(r".\1", key.strip())
    parts = text.split(".")
    if not text or any(p == "" for p in parts):
        raise SweepError(f"{key}: malformed key (expected a dotted path such as contacts.0.mu)")
    return parts


def path_text(path: Path) -> str:
    """``("contacts", 0, "mu")`` → ``"contacts.0.mu"``.

    Parameters
    ----------
    path : tuple[str or int, ...]
        A concrete path.

    Returns
    -------
    str
        Its dotted text.
    """
    return ".".join(str(c) for c in path)


def _kind(node: Any) -> str:
    return "a table" if isinstance(node, Mapping) else "an array" if isinstance(node, list) else "a value"


def expand_key(doc: Mapping, key: str, create: bool = False) -> list[Path]:
    """The concrete paths ``key`` names in ``doc`` (module doc), in document order.

    Parameters
    ----------
    doc : Mapping
        The document.
    key : str
        A dotted key (``contacts.*.mu``, ``contacts[0].mu``).
    create : bool, optional
        Allow a missing last component whose parent is a table (the key is then added).

    Returns
    -------
    list[tuple[str or int, ...]]
        The paths.

    Raises
    ------
    SweepError
        (message starts with ``key``) when a component does not exist, an index is out of range,
        ``*`` matches nothing, or the key names a table or an array.
    """
    comps = _components(key)
    out: list[Path] = []

    def walk(node: Any, i: int, prefix: Path) -> None:
        where = path_text(prefix) or "the document"
        if i == len(comps):
            if isinstance(node, (Mapping, list)):
                raise SweepError(f"{key}: {where} is {_kind(node)}, not a value; vary one of its entries")
            out.append(prefix)
            return
        comp, last = comps[i], i == len(comps) - 1
        if isinstance(node, list):
            if comp == "*":
                if not node:
                    raise SweepError(f"{key}: * matches nothing ({where} is an empty array)")
                for j, child in enumerate(node):
                    walk(child, i + 1, prefix + (j,))
                return
            if not comp.isdigit():
                raise SweepError(f"{key}: {where} is an array; expected an index or *, got {comp!r}")
            j = int(comp)
            if j >= len(node):
                raise SweepError(f"{key}: index {j} out of range ({where} has {len(node)} entries)")
            walk(node[j], i + 1, prefix + (j,))
        elif isinstance(node, Mapping):
            if comp == "*":
                if not node:
                    raise SweepError(f"{key}: * matches nothing ({where} is an empty table)")
                for name, child in node.items():
                    walk(child, i + 1, prefix + (name,))
                return
            if comp in node:
                walk(node[comp], i + 1, prefix + (comp,))
            elif last and create:
                out.append(prefix + (comp,))
            else:
                have = ", ".join(map(str, node)) or "nothing"
                raise SweepError(f"{key}: no key {comp!r} in {where} (it has: {have})")
        else:
            raise SweepError(f"{key}: {where} is a value, not a table or an array")

    walk(doc, 0, ())
    return out


def key_paths(doc: Mapping, keys, create: bool = False) -> dict[str, list[Path]]:
    """``{key: expand_key(doc, key)}`` for every key.

    Parameters
    ----------
    doc : Mapping
        The document.
    keys : Iterable[str]
        Dotted keys.
    create : bool, optional
        As ``expand_key``.

    Returns
    -------
    dict[str, list[tuple[str or int, ...]]]
        Key → its paths.

    Raises
    ------
    SweepError
        As ``expand_key``, or when two keys reach the same path (``contacts.*.mu`` and
        ``contacts.0.mu``).
    """
    owner: dict[Path, str] = {}
    out: dict[str, list[Path]] = {}
    for key in keys:
        out[key] = expand_key(doc, key, create)
        for p in out[key]:
            if p in owner:
                raise SweepError(f"{key}: sets {path_text(p)}, which {owner[p]} already sets")
            owner[p] = key
    return out


def apply_overrides(doc: Mapping, paths: Mapping[str, list[Path]], params: Mapping[str, Any]) -> dict:
    """A deep copy of ``doc`` with every path of each key set to ``params[key]``.

    Parameters
    ----------
    doc : Mapping
        The document (not modified).
    paths : Mapping[str, list[tuple[str or int, ...]]]
        Key → its paths (``key_paths``).
    params : Mapping[str, Any]
        Key → value.

    Returns
    -------
    dict
        The new document.
    """
    new = copy.deepcopy(dict(doc))
    for key, value in params.items():
        for path in paths[key]:
            node = new
            for comp in path[:-1]:
                node = node[comp]
            node[path[-1]] = value
    return new
