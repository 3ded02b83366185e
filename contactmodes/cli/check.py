"""``contactmodes check FILE [--json] [--output PATH]``: where every contact is, and why it is rejected.

For each contact of a system file, at the file's state: the contact point's world position, its
signed gap ``n·(p − s)`` to its surface line (m, positive in free space), its velocity in the
contact frame ``(v_t, v_n)`` (m/s), whether it approaches its surface (``v_n < −ε``, which the
analysis rejects: no impact model) and whether the loader accepts it (its gap within the
loader's tolerance). The geometry is evaluated *before* the loader's gap check
(``contactmodes.system_file.loader.system_geometry``), so a file the loader rejects for a gap is still shown;
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
``dimension``
    2, or 3 for a spatial file (``dimension = 3``): then ``position``, ``surface_point`` and
    ``surface_normal`` have three entries ``[x, y, z]``, ``velocity`` is ``{"t1", "t2", "n"}``
    (the contact frame ``(t1, t2, n)``), ``coordinates`` names the velocity coordinates
    (``qdot``; a floating base's ``x, y, z, wx, wy, wz`` in world axes) and ``configuration``
    the entries of ``q`` (a floating base's ``x, y, z, qw, qx, qy, qz``, then the joints).
    ``--plot OUT.html`` draws a spatial file as an interactive 3-D page
    (``contactmodes.output.robot3d``; another suffix is one line, exit status 2); ``--snap`` moves a spatial state
    in its velocity coordinates and writes array keys (``base_position``, the orientation under the
    file's own key) back whole (``docs/system-file.md``, "Spatial files").

``--snap``: the state snapped onto the surfaces
------------------------------------------------
``contactmodes check FILE --snap`` shows the state changed by the smallest amount that puts every
contact on its surface (``contactmodes.system_file.snap.snap_state``: the minimum-norm change of ``q``,
lengths weighed against angles by the robot's size ``L``), the file's value and the snapped value
of each state key that changes (under the file's own keys: a ``_deg`` key in degrees), and then
the usual table at the snapped state. When the loader already accepts every contact the state is
left as written. When the snapped ``q`` would change a contact's normal velocity by more than the
analysis's zero threshold, ``q̇`` is adjusted too (the smallest change that gives every contact
back its input normal velocity) and both velocities are shown. A surface the robot cannot reach
is a one-line error naming the contact, exit status 2, nothing written. With ``--json`` the
document describes the snapped state and has a ``snap`` member: ``changed`` (bool), ``steps``,
``length`` (``L``, m), ``q_input``, ``qdot_input``, ``qdot_changed``, ``gaps_input`` (m),
``normal_velocity_input``, ``normal_velocity`` (m/s, per contact), ``keys`` (the new values of
the changed state keys, ``{"q": {key: value}, "qdot": {…}}``, in the file's units) and
``written`` (the ``--write`` path or ``null``).

``--snap --write OUT`` also writes OUT: the input file with only those state values replaced
(the text is edited in place, comments and layout kept; a JSON file is re-emitted), written
atomically (a temporary file in OUT's directory, loaded by the loader before it is renamed into
place) and never onto the input file (exit 2, nothing written; another existing OUT is
replaced, as with ``--output``). When nothing changes, OUT is a copy of the input.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from contactmodes import tolerances

if TYPE_CHECKING:  # pragma: no cover
    from contactmodes.system_file.loader import SystemGeometry
    from contactmodes.system_file.snap import SnapResult

__all__ = ["SCHEMA", "add_parser", "run", "check_document", "format_check"]

SCHEMA = "contactmodes.check/1"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``check`` on the ``contactmodes`` subparsers (with its ``run``); returns the sub-parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``contactmodes`` command's sub-parsers.

    Returns
    -------
    argparse.ArgumentParser
        The ``check`` parser (``run`` set as its default ``run``).
    """
    p = sub.add_parser(
        "check", help="show each contact's position, gap and velocity at the file's state, and whether it is accepted",
        description="Contact geometry of a system file at its state: world position, signed gap to the surface, "
                    "velocity in the contact frame, and whether the loader accepts the contact.",
    )
    p.add_argument("file", help="system file (TOML, see docs/system-file.md)")
    p.add_argument("--json", action="store_true", help="print the contactmodes.check/1 JSON document")
    p.add_argument("--output", metavar="PATH", help="write the output to PATH instead of stdout")
    p.add_argument("--snap", action="store_true",
                   help="show the state changed by the smallest amount that puts every contact on its surface")
    p.add_argument("--write", metavar="OUT",
                   help="with --snap: write OUT, the input file with only the snapped state values replaced "
                        "(never the input file itself)")
    p.add_argument("--plot", metavar="OUT", default=None,
                   help="also draw the robot at its state: a planar file as OUT.png (links, joints, masses, contacts "
                        "with their surfaces, friction cones and velocities: contactmodes.output.robot), a spatial "
                        "file as the interactive page OUT.html (links, frames, contacts with their friction "
                        "polygons and planes: contactmodes.output.robot3d); needs the plot extra")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> str:
    """The ``check`` command: text or JSON for ``args.file``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (``file``, ``json``, ``snap``, ``write``, ``plot``, ...).

    Returns
    -------
    str
        The output (text or the ``contactmodes.check/1`` JSON), newline-terminated.

    Raises
    ------
    SystemFileError
        On a bad file.
    SnapError
        On a surface ``--snap`` cannot reach.
    UserError
        On ``--write`` without ``--snap``, or a refused ``--write``/``--plot`` path.
    InternalError
        When the loader rejects the snapped state.
    """
    from contactmodes.system_file.loader import system_geometry

    if getattr(args, "plot", None) is not None:
        if _is_spatial_file(args.file):
            _plot_spatial(args.file, args.plot)
        else:
            _plot_robot(args.file, args.plot)
    if getattr(args, "snap", False):
        return _run_snap(args)
    if getattr(args, "write", None) is not None:
        from contactmodes._command_line import UserError

        raise UserError("--write: needs --snap (it writes the snapped state)")
    geometry = system_geometry(args.file)
    if args.json:
        return json.dumps(check_document(geometry), indent=2, allow_nan=False) + "\n"
    return format_check(geometry) + "\n"


def _is_spatial_file(source: str) -> bool:
    """Whether ``source`` is a spatial file (``dimension = 3``); a bad file is its usual one-line error."""
    from contactmodes.system_file.loader import read_document
    from contactmodes.system_file.spatial_file import is_spatial

    return is_spatial(read_document(Path(source)))


def _plot_spatial(source: str, path: str) -> None:
    """``check --plot OUT.html`` of a spatial file: the interactive 3-D page of the robot at its state
    (``contactmodes.output.robot3d``), written atomically. A 3-D robot is drawn only as a page (it is
    turned to be seen): another suffix gets one line naming ``.html``."""
    from contactmodes.extras import require
    from contactmodes._command_line import UserError, check_output_path, write_atomic

    require("plotly", "plot", "check --plot")
    if not path.lower().endswith((".html", ".htm")):
        raise UserError(f"--plot: a spatial file (dimension = 3) is drawn as an interactive page: give a .html "
                        f"file name, got {path!r}")
    check_output_path(path, [source], "--plot")
    from contactmodes.output.robot3d import page, spatial_page_file

    text = page(spatial_page_file(source))

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    write_atomic(path, write, option="--plot", inputs=[source])


def _plot_robot(source: str, path: str) -> None:
    """``check --plot PNG``: the robot at the file's state (``contactmodes.output.robot``), written atomically."""
    from contactmodes.extras import require
    from contactmodes._command_line import UserError, check_output_path, write_atomic

    require("matplotlib", "plot", "check --plot")
    if not path.lower().endswith(".png"):
        raise UserError(f"--plot: expected a .png file name, got {path!r}")
    check_output_path(path, [source], "--plot")
    from contactmodes.output.robot import draw_robot_file

    fig = draw_robot_file(source)
    try:
        write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png", bbox_inches="tight"), option="--plot", inputs=[source])
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def _run_snap(args: argparse.Namespace) -> str:
    """``check --snap [--write OUT]``: snap the file's state, verify it with the loader, show (and write) it."""
    from contactmodes._command_line import UserError, check_output_path
    from contactmodes.errors import InternalError, SystemFileError
    from contactmodes.system_file.loader import parse_contents, read_document, parse_geometry, parse_system
    from contactmodes.system_file.snap import snap_state
    from contactmodes.system_file.spatial_file import is_spatial, parse_spatial_contents

    source = str(args.file)
    out = args.write
    if args.output is not None:  # checked before OUT is written
        check_output_path(args.output, [source])
    if out is not None:
        check_output_path(out, [source], "--write")
        if _is_json(out) != _is_json(source):
            kind = "a .json file" if _is_json(source) else "a TOML file (not .json)"
            raise UserError(f"--write: {out} must be {kind}, like the input {source}")
        if args.output is not None and os.path.realpath(args.output) == os.path.realpath(out):
            raise UserError(f"--output: {args.output} is also the --write file")
    data = read_document(Path(source))
    before = parse_geometry(data, source)
    spatial = is_spatial(data)
    parsed = parse_spatial_contents(data, source) if spatial else parse_contents(data, source)
    if before.accepted:
        result = None
        q, qdot = parsed.q, parsed.qdot
    else:
        result = snap_state(parsed.mechanism, parsed.q, parsed.qdot)
        q, qdot = result.q, result.qdot
    if spatial:
        changes = _spatial_state_changes(data, parsed.mechanism, parsed.q, q, parsed.qdot, qdot)
    else:
        changes = _state_changes(data, parsed.mechanism.coordinates, parsed.q, q, parsed.qdot, qdot)
    snapped = copy.deepcopy(data)
    for path, value in changes.items():
        snapped["state"].setdefault(path[1], {})[path[2]] = value  # a file may omit state.qdot
    try:
        parse_system(snapped, source)  # the loader's own check
        geometry = parse_geometry(snapped, source)
    except SystemFileError as exc:
        raise InternalError(f"check --snap: the loader rejects the snapped state: {exc}") from exc
    if out is not None:
        _write_snapped(source, out, data, snapped, changes, q, qdot)
    if args.json:
        doc = check_document(geometry)
        doc["snap"] = {
            "changed": bool(changes),
            "steps": 0 if result is None else result.iterations,
            "length": None if result is None else result.length,
            "q_input": parsed.q.tolist(),
            "qdot_input": parsed.qdot.tolist(),
            "qdot_changed": bool(result is not None and result.qdot_changed),
            "gaps_input": [c.gap for c in before.contacts],
            "normal_velocity_input": [float(c.velocity[-1]) for c in before.contacts],
            "normal_velocity": [float(c.velocity[-1]) for c in geometry.contacts],
            "keys": {part: {p[2]: v for p, v in changes.items() if p[1] == part} for part in ("q", "qdot")},
            "written": out,
        }
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    return _format_snap(data, geometry, result, changes, out) + "\n"


def _is_json(path: str) -> bool:
    return Path(path).suffix.lower() == ".json"


def _state_key(table: Any, coordinate: str, q_table: Any) -> str:
    """The key of ``coordinate`` in a state table as the file writes it (``theta`` or ``theta_deg``);
    for a key the table lacks, the spelling of ``q_table``."""
    for t in (table, q_table):
        if isinstance(t, dict):
            if coordinate in t:
                return coordinate
            if f"{coordinate}_deg" in t:
                return f"{coordinate}_deg"
    return coordinate


def _state_changes(data: dict, coordinates: tuple[str, ...], q0: np.ndarray, q: np.ndarray, qdot0: np.ndarray,
                   qdot: np.ndarray) -> dict[tuple[str, str, str], float]:
    """``{("state", "q"|"qdot", key): new value in the file's unit}`` for every coordinate that changed."""
    state = data["state"]
    changes: dict[tuple[str, str, str], float] = {}
    for part, old, new in (("q", q0, q), ("qdot", qdot0, qdot)):
        table = state.get(part, {})
        for j, c in enumerate(coordinates):
            if new[j] == old[j]:
                continue
            key = _state_key(table, c, state["q"])
            changes[("state", part, key)] = math.degrees(new[j]) if key.endswith("_deg") else float(new[j])
    return changes


def _spatial_state_changes(data: dict, mechanism: Any, q0: np.ndarray, q: np.ndarray, qdot0: np.ndarray,
                           qdot: np.ndarray) -> dict[tuple[str, str, str], Any]:
    """``{("state", "q"|"qdot", key): new value}`` of a spatial file, in the file's keys and units:
    an array key (``base_position``, the orientation as written — ``base_quaternion``,
    ``base_rpy`` or ``base_rpy_deg``, the angles kept near the written ones —, ``base_linear``,
    ``base_angular[_deg]``) with its whole new array when an entry changed, a joint's number
    (``JOINT`` or ``JOINT_deg``) when it changed."""
    from contactmodes.model.spatial_frames import quaternion_rpy

    state = data["state"]
    q_table = state.get("q", {})
    qd_table = state.get("qdot", {}) if isinstance(state.get("qdot"), dict) else {}
    changes: dict[tuple[str, str, str], Any] = {}
    joints = mechanism.joints
    if mechanism.floating:
        if np.any(q[:3] != q0[:3]):
            changes[("state", "q", "base_position")] = [float(x) for x in q[:3]]
        if np.any(q[3:7] != q0[3:7]):
            key = next(k for k in ("base_quaternion", "base_rpy", "base_rpy_deg") if k in q_table)
            if key == "base_quaternion":
                value = q[3:7]
            else:
                written = np.array(q_table[key], dtype=float)
                near = np.radians(written) if key.endswith("_deg") else written
                rpy = quaternion_rpy(q[3:7], near=near)
                value = np.degrees(rpy) if key.endswith("_deg") else rpy
            changes[("state", "q", key)] = [float(x) for x in value]
        if np.any(qdot[:3] != qdot0[:3]):
            changes[("state", "qdot", "base_linear")] = [float(x) for x in qdot[:3]]
        if np.any(qdot[3:6] != qdot0[3:6]):
            key = "base_angular_deg" if "base_angular_deg" in qd_table else "base_angular"
            w = qdot[3:6]
            changes[("state", "qdot", key)] = [float(x) for x in (np.degrees(w) if key.endswith("_deg") else w)]
    qo, vo = (7, 6) if mechanism.floating else (0, 0)
    for part, old, new, offset in (("q", q0, q, qo), ("qdot", qdot0, qdot, vo)):
        table = q_table if part == "q" else qd_table
        for j, joint in enumerate(joints):
            if new[offset + j] == old[offset + j]:
                continue
            key = _state_key(table, joint, q_table)
            number = float(new[offset + j])
            changes[("state", part, key)] = math.degrees(number) if key.endswith("_deg") else number
    return changes


def _same_configuration(written: np.ndarray, q: np.ndarray, floating: bool) -> np.ndarray:
    """``q`` with a floating base's quaternion given the sign of ``written``'s (``q`` and ``−q`` are one
    orientation; an orientation written as roll–pitch–yaw loads with ``w >= 0``)."""
    if floating and len(q) == len(written) and float(np.dot(written[3:7], q[3:7])) < 0.0:
        q = q.copy()
        q[3:7] *= -1.0
    return q


def _write_snapped(source: str, out: str, data: dict, snapped: dict, changes: dict, q: np.ndarray,
                   qdot: np.ndarray) -> None:
    """Write OUT: the input text with only ``changes`` made, loaded by the loader before it replaces OUT."""
    from contactmodes._command_line import UserError, write_atomic
    from contactmodes.errors import ContactModelError
    from contactmodes.system_file.loader import load_system_file
    from contactmodes.system_file.tomledit import TomlEditError, edit_numbers

    text = Path(source).read_bytes().decode("utf-8")
    if not changes:
        new_text = text
    elif _is_json(source):
        new_text = json.dumps(snapped, indent=2, ensure_ascii=False) + "\n"
    else:
        try:
            new_text = edit_numbers(text, changes)
        except TomlEditError as exc:
            raise UserError(f"--write: cannot edit the text of {source}: {exc}") from None

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(new_text)
        try:
            written = load_system_file(tmp)  # relative paths (mechanism.urdf) resolve from OUT's directory
        except ContactModelError as exc:
            raise UserError(f"--write: {out} would not load: {exc}") from None
        rt = tolerances.ROUNDTRIP_RTOL
        floating = getattr(written, "dimension", 2) == 3 and bool(getattr(written.mechanism, "floating", False))
        q_ = _same_configuration(written.q, q, floating)
        if not (np.allclose(written.q, q_, rtol=0.0, atol=rt * max(1.0, float(np.abs(q).max())))
                and np.allclose(written.qdot, qdot, rtol=0.0, atol=rt * max(1.0, float(np.abs(qdot).max())))):
            raise UserError(f"--write: {out} would not hold the snapped state")

    write_atomic(out, write, option="--write", inputs=[source])


def _format_snap(data: dict, geometry: "SystemGeometry", result: "SnapResult | None", changes: dict,
                 out: str | None) -> str:
    """The text of ``check --snap``: what changed, then ``format_check`` at the snapped state."""
    lines = []
    if result is None:
        lines.append("snap: the loader accepts every contact already: the state is left as written")
    else:
        lines.append(f"snap: the smallest change of state.q that puts every contact on its surface "
                     f"({result.iterations} Gauss-Newton steps;")
        lines.append(f"  lengths weighed against angles by the robot's size L = {_num(result.length)} m: "
                     f"|W dq| = {result.scaled_change:.3g})")
        rows = [("key", "file value", "snapped value", "change")]
        for (_, part, key), value in changes.items():
            old = data["state"].get(part, {}).get(key)
            if old is None:
                old = [0.0] * len(value) if isinstance(value, list) else 0.0
            rows.append((f"state.{part}.{key}", _value_text(old), _value_text(value), _change_text(old, value)))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for i, row in enumerate(rows):
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
            if i == 0:
                lines.append("  " + "  ".join("-" * w for w in widths))
        if result.qdot_changed:
            moved = [f"{c.name} {_num(float(a))} -> {_num(float(b))}"
                     for c, a, b in zip(geometry.contacts, result.normal_velocity_input,
                                        result.normal_velocity_unadjusted) if a != b]
            lines.append("the snapped q changes normal velocities (m/s) with the same qdot: " + "; ".join(moved))
            lines.append("state.qdot is adjusted (smallest change) so every contact keeps its input normal velocity")
        elif any(result.qdot_input):
            lines.append("state.qdot is kept: no normal velocity changes beyond the analysis's zero threshold")
    if out is not None:
        lines.append(f"written: {out}" + (" (a copy of the input: nothing to change)" if not changes
                                          else " (the input with only these state values changed)"))
    lines.append("")
    lines.append(format_check(geometry))
    return "\n".join(lines)


def _value_text(value: Any) -> str:
    """A state value at full precision: a number, or an array ``[a, b, c]``."""
    if isinstance(value, list):
        return "[" + ", ".join(repr(float(v)) for v in value) + "]"
    return repr(float(value))


def _change_text(old: Any, new: Any) -> str:
    """The change of a state value (3 digits): a number, or an array of changes."""
    if isinstance(new, list):
        return "[" + ", ".join(f"{float(b) - float(a):+.3g}" for a, b in zip(old, new)) + "]"
    return f"{float(new) - float(old):+.3g}"


def check_document(geometry: "SystemGeometry") -> dict:
    """The ``contactmodes.check/1`` JSON document (a dict) of ``geometry``.

    Parameters
    ----------
    geometry : SystemGeometry
        The file's contact geometry at its state (``system_geometry``), SI units.

    Returns
    -------
    dict
        JSON-ready.
    """
    doc = {
        "schema": SCHEMA,
        "system": geometry.name,
        "source": geometry.source,
        "dimension": geometry.dimension,
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
                "velocity": {k: float(v) for k, v in zip(geometry.components, c.velocity)},
                "approaching": c.approaching,
                "accepted": c.problem is None,
                "problem": c.problem,
            }
            for c in geometry.contacts
        ],
    }
    if geometry.configuration:
        doc["configuration"] = list(geometry.configuration)
    return doc


def _num(x: float) -> str:
    return f"{x:.6g}" if x != 0.0 else "0"


def format_check(geometry: "SystemGeometry") -> str:
    """A table (under 100 columns for names up to 12 characters) and the loader's verdict.

    Parameters
    ----------
    geometry : SystemGeometry
        The file's contact geometry at its state.

    Returns
    -------
    str
        Lines of text, no trailing newline.
    """
    lines = [f"system: {geometry.name}   source: {geometry.source}"]
    names = geometry.configuration or geometry.coordinates
    lines.append("state: " + ", ".join(f"{c} = {_num(v)}" for c, v in zip(names, geometry.q)))
    if any(geometry.qdot):
        lines.append("velocity: " + ", ".join(f"{c} = {_num(v)}" for c, v in zip(geometry.coordinates, geometry.qdot)))
    if not geometry.contacts:
        lines.append("no contacts")
        return "\n".join(lines)
    axes = ", ".join("xyz"[: len(geometry.components)])
    rows = [("contact", "link", f"position {axes} (m)", "gap (m)")
            + tuple(f"v_{k} (m/s)" for k in geometry.components) + ("loader",)]
    for c in geometry.contacts:
        verdict = "accepted" if c.problem is None else "REJECTED"
        rows.append((c.name, c.link, ", ".join(_num(float(x)) for x in c.position), _num(c.gap))
                    + tuple(_num(float(v)) for v in c.velocity) + (verdict,))
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
            lines.append(f"contacts[{i}]: contact {c.name!r} approaches its surface (v_n = {_num(float(c.velocity[-1]))} "
                         "m/s < 0): analyze has no solution at this state; contactmodes impact FILE gives its impact outcomes")
    verdict = ("the loader accepts every contact" if geometry.accepted
               else f"the loader rejects this file ({sum(c.problem is not None for c in geometry.contacts)} "
                    "contact(s) off their surfaces)")
    lines.append(verdict)
    return "\n".join(lines)
