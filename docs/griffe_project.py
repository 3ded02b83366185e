"""Griffe extension for the documentation site: reads the project's docstring dialect as NumPy style.

The project's docstrings are NumPy-style with three habits that griffe's NumPy parser reads
differently, and Sphinx roles that Markdown does not know:

* ``name : what it is`` — a parameter whose description starts on the name's line (often with
  its shape first: ``q : (n_q,) configuration``). NumPy style reserves that place for a *type*,
  so a line whose text after ``" : "`` is prose (it contains spaces other than in ``a, b``,
  ``a | b`` or ``a or b``) is rewritten as ``name`` with the text as the indented description.
* A paragraph after a parameter list (``The paper's A q̈ = B τ + b is …``) would be read as more
  parameters; a paragraph that does not start like a parameter gets a ``Notes`` heading.
* A section heading with a note, ``Attributes (``n`` coordinates, SI units)``, is not a NumPy
  section name: the note becomes a paragraph before the plain heading.
* A reST literal-block marker (a line ending in ``::``) ends in one colon.
* Sphinx roles ``:class:`~a.b.C``` (and ``:func:``, ``:meth:``, ``:mod:``, ``:attr:``, ``:data:``,
  ``:exc:``, ``:obj:``) become inline code ``C`` (the last dotted part with ``~``, as in Sphinx).

Only the text given to the renderer changes; the sources are untouched. Loaded by ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")
_ITEM_SECTIONS = {"parameters", "other parameters", "attributes"}
_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_][\w, *]*)(?: : (.*))?$")
_TYPE_JOINERS = re.compile(r", | \| | or ")
_NOTED_HEADING = re.compile(r"^(Parameters|Other Parameters|Attributes|Returns|Raises)\s*\((.+)\)\s*$")


def _role(match: re.Match) -> str:
    tilde, target = match.groups()
    name = target.split(".")[-1] if tilde else target.lstrip(".")
    return f"``{name}``"


def _is_type(text: str) -> bool:
    return " " not in _TYPE_JOINERS.sub(",", text.strip())


def rewrite(text: str) -> str:
    """The docstring ``text`` in plain NumPy style with Markdown-safe references."""
    text = _ROLE.sub(_role, text)
    text = re.sub(r"(?<=\S)::$", ":", text, flags=re.MULTILINE)
    lines = text.split("\n")
    out: list[str] = []
    section = None
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt.strip() and set(nxt.strip()) == {"-"}:
            noted = _NOTED_HEADING.match(line.strip())
            if noted:
                heading, note = noted.groups()
                out += [note[0].upper() + note[1:] + ".", ""]
                line = heading
                lines[i + 1] = "-" * len(heading)
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
            if rest is not None and not _is_type(rest):
                out += [name, "    " + rest]
                continue
        out.append(line)
    return "\n".join(out)


class ProjectDocstrings(griffe.Extension):
    """Rewrite every docstring with :func:`rewrite` before it is parsed."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
