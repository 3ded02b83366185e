"""Griffe extension for the documentation site: Sphinx cross-reference roles as inline code.

The project's docstrings are standard numpydoc (``name : type`` with the description indented
below it, ``Notes`` for prose after a list, plain section headings, no reST ``::`` markers;
``tests/test_docstrings.py`` checks it), which griffe's NumPy parser reads as it is. What Markdown
does not know are the Sphinx roles numpydoc allows for cross-references: ``:class:`~a.b.C```
(and ``:func:``, ``:meth:``, ``:mod:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:``, with or
without ``py:``) become inline code ``C`` (the last dotted part with ``~``, as in Sphinx; a
leading ``.`` is dropped).

Transitional: the files in ``_PENDING`` are being converted in a separate change and still use
the old house dialect (``name : prose`` on one line, a paragraph after a parameter list). Their
docstrings alone go through ``_dialect`` first, which reads that dialect as NumPy style. Remove a
file from ``_PENDING`` (and from ``PENDING`` in ``tests/test_docstrings.py``) when it is
converted, and ``_dialect`` with the last one.

Only the text given to the renderer changes; the sources are untouched. Loaded by ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")

_PENDING = frozenset(())
_ITEM_SECTIONS = {"parameters", "other parameters", "attributes"}
_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_][\w, *]*)(?: : (.*))?$")
_TYPE_JOINERS = re.compile(r", | \| | or ")


def _role(match: re.Match) -> str:
    tilde, target = match.groups()
    name = target.split(".")[-1] if tilde else target.lstrip(".")
    return f"``{name}``"


def rewrite(text: str) -> str:
    """The docstring ``text`` with every Sphinx role replaced by inline code."""
    return _ROLE.sub(_role, text)


def _pending(obj: griffe.Object) -> bool:
    path = obj.filepath  # a list for a namespace package
    return not isinstance(path, list) and Path(path).as_posix().endswith(tuple(_PENDING))


def _dialect(text: str) -> str:
    """The old house dialect of a ``_PENDING`` file read as NumPy style: ``name : prose`` (text
    after ``" : "`` with spaces other than in ``a, b``, ``a | b``, ``a or b``) becomes ``name``
    with the text as the indented description; a paragraph after a parameter list gets a
    ``Notes`` heading."""
    lines = text.split("\n")
    out: list[str] = []
    section = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt.strip() and set(nxt.strip()) == {"-"}:
            section = line.strip().lower()
            out.append(line)
            continue
        if section in _ITEM_SECTIONS and line and not line.startswith(" ") and not set(line.strip()) <= {"-"}:
            match = _ITEM.match(line)
            blank_before = not out or not out[-1].strip()
            if match is None or (blank_before and match.group(2) is None and " " in line.strip()):
                if blank_before:  # prose after the list: its own section
                    out += ["Notes", "-----"]
                    section = "notes"
                out.append(line)
                continue
            name, rest = match.groups()
            if rest is not None and " " in _TYPE_JOINERS.sub(",", rest.strip()):
                out += [name, "    " + rest]
                continue
        out.append(line)
    return "\n".join(out)


class ProjectDocstrings(griffe.Extension):
    """Rewrite every docstring with :func:`rewrite` before it is parsed (``_PENDING`` files:
    with ``_dialect`` first)."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            text = obj.docstring.value
            if _pending(obj):
                text = _dialect(text)
            obj.docstring.value = rewrite(text)
