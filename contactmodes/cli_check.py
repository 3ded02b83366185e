"""``contactmodes check FILE [--json] [--output PATH]``: where every contact is, and why it is rejected.

For each contact of a system file, at the file's state: the contact point's world position, its
signed gap ``n·(p − s)`` to its surface line (m, positive in free space), its velocity in the
contact frame ``(v_t, v_n)`` (m/s), whether it approaches its surface (``v_n < −ε``, which the
analysis rejects: no impact model) and whether the loader accepts it (its gap within the
loader's tolerance). The geometry is evaluated *before* the loader's gap check
(:func:`contactmodes.io.system_geometry`), so a file the loader rejects for a gap is still shown;
any other problem with the file is the usual one-line error, exit status 2.

Exit status 0 whenever the geometry could be evaluated; read ``accepted`` (JSON) or the last line
(text) for the loader's verdict. The JSON document (``--json``):

``schema``
    ``"contactmodes.check/1"``
``system``, ``source``
    the file's name and path
``coordinates``, ``q``, ``qdot``
    coordinate names and the state (SI: m, rad, m/s, rad/s)
``accepted``
    ``true`` iff the loader accepts every contact
``contacts``
    per contact, in file order: ``name``, ``link`` (as written in the file), ``position`` [x, y]
    (m, world), ``surface_point`` [x, y] (m), ``surface_normal`` [n_x, n_y] (unit), ``gap`` (m),
    ``velocity`` ``{"t": v_t, "n": v_n}`` (m/s), ``approaching`` (bool), ``accepted`` (bool),
    ``problem`` (the loader's message, or ``null``)
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .io import SystemGeometry

__all__ = ["SCHEMA", "add_parser", "run", "check_document", "format_check"]

SCHEMA = "contactmodes.check/1"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``check`` on the ``contactmodes`` subparsers (with its ``run``); returns the sub-parser."""
    p = sub.add_parser(
        "check", help="show each contact's position, gap and velocity at the file's state, and whether it is accepted",
        description="Contact geometry of a system file at its state: world position, signed gap to the surface, "
                    "velocity in the contact frame, and whether the loader accepts the contact.",
    )
    p.add_argument("file", help="system file (TOML, see docs/system-file.md)")
    p.add_argument("--json", action="store_true", help="print the contactmodes.check/1 JSON document")
    p.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> str:
    """The ``check`` command: text or JSON for ``args.file``; raises ``SystemFileError`` on a bad file."""
    from .io import system_geometry

    geometry = system_geometry(args.file)
    if args.json:
        return json.dumps(check_document(geometry), indent=2, allow_nan=False) + "\n"
    return format_check(geometry) + "\n"


def check_document(geometry: "SystemGeometry") -> dict:
    """The ``contactmodes.check/1`` JSON document (a dict) of ``geometry``."""
    return {
        "schema": SCHEMA,
        "system": geometry.name,
        "source": geometry.source,
        "coordinates": list(geometry.coordinates),
        "q": geometry.q.tolist(),
        "qdot": geometry.qdot.tolist(),
        "accepted": geometry.accepted,
        "contacts": [
            {
                "name": c.name,
                "link": c.link,
                "position": c.position.tolist(),
                "surface_point": c.surface_point.tolist(),
                "surface_normal": c.surface_normal.tolist(),
                "gap": c.gap,
                "velocity": {"t": float(c.velocity[0]), "n": float(c.velocity[1])},
                "approaching": c.approaching,
                "accepted": c.problem is None,
                "problem": c.problem,
            }
            for c in geometry.contacts
        ],
    }


def _num(x: float) -> str:
    return f"{x:.6g}" if x != 0.0 else "0"


def format_check(geometry: "SystemGeometry") -> str:
    """A table (under 100 columns for names up to 12 characters) and the loader's verdict."""
    lines = [f"system: {geometry.name}   source: {geometry.source}"]
    lines.append("state: " + ", ".join(f"{c} = {_num(v)}" for c, v in zip(geometry.coordinates, geometry.q)))
    if any(geometry.qdot):
        lines.append("velocity: " + ", ".join(f"{c} = {_num(v)}" for c, v in zip(geometry.coordinates, geometry.qdot)))
    if not geometry.contacts:
        lines.append("no contacts")
        return "\n".join(lines)
    rows = [("contact", "link", "position x, y (m)", "gap (m)", "v_t (m/s)", "v_n (m/s)", "loader")]
    for c in geometry.contacts:
        verdict = "accepted" if c.problem is None else "REJECTED"
        rows.append((c.name, c.link, f"{_num(c.position[0])}, {_num(c.position[1])}", _num(c.gap),
                     _num(float(c.velocity[0])), _num(float(c.velocity[1])), verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines.append("")
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    for i, c in enumerate(geometry.contacts):
        if c.problem is not None:
            lines.append(f"contacts[{i}]: {c.problem}")
        if c.approaching:
            lines.append(f"contacts[{i}]: contact {c.name!r} approaches its surface (v_n = {_num(float(c.velocity[1]))} "
                         "m/s < 0): the analysis has no solution at this state (no impact model)")
    verdict = ("the loader accepts every contact" if geometry.accepted
               else f"the loader rejects this file ({sum(c.problem is not None for c in geometry.contacts)} "
                    "contact(s) off their surfaces)")
    lines.append(verdict)
    return "\n".join(lines)
