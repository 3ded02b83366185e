"""The spatial robot at its state, in 3-D: one interactive plotly page (issue 41, item 4).

``contactmodes check FILE --plot OUT.html`` of a spatial system file (``dimension = 3``) draws,
at the file's state, in world axes (m, equal scales; drag to turn, scroll to zoom):

* the skeleton: each link as lines from its parent link's origin to the joint it hangs from and
  on to its own origin (``SpatialMechanism.link_frames``, Pinocchio's forward kinematics), and
  from its origin to each contact point it carries; the moving joints' origins as markers — all
  the robot file says of the links' shapes that the analysis reads (visual meshes are not read);
* each link's frame as three short axes (x red, y green, z blue, ``AXIS_FRACTION`` of the robot's
  size ``L``), so a wrong orientation is seen;
* the contact points as markers (red when the loader rejects the contact: a gap), their names
  beside them; hovering one gives its link, gap, velocity ``(v_t1, v_t2, v_n)``, ``μ`` and the
  loader's verdict;
* each contact's friction polygon of the file's ``[friction] sides`` and ``polygon`` as a pyramid
  with its apex at the contact point: its base the polygon of ``contactmodes.modes.spatial_contact``
  (``polygon_vertices``, in units of ``μ f_n``) at ``f_n = h = CONE_FRACTION · L`` along the
  normal, vertex ``j`` at ``p + h (n + μ (v_j1 t1 + v_j2 t2))`` in the contact frame ``(t1, t2,
  n)``: edges as lines, faces translucent — a wrong normal points it into the ground, a wrong ``μ``
  shows in its width, a wrong tangent turns it;
* each contact's plane as a small translucent square (half-side ``PLANE_FRACTION · L``, sides along
  ``t1`` and ``t2``) centred at the contact point's projection onto the plane.

``L`` is the mechanism's characteristic length (``SpatialMechanism.characteristic_scales``: the
largest distance between its joint origins, centres of mass and contact points). Every trace
carries ``meta = {"kind": …, "name": …}`` (``kind`` one of ``KINDS``) so scripts and tests find
them in the page (``document.querySelector('.plotly-graph-div').data``), as on the pages of
``plot --html`` (``contactmodes.output.html``).
"""

from __future__ import annotations

import html as _html
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from contactmodes.output.robot import CONE_COLOUR, REJECTED_COLOUR  # the planar drawing's colours

__all__ = ["SpatialPicture", "SpatialContactShape", "spatial_picture", "friction_pyramid", "figure_dict", "page", "spatial_page_file", "KINDS",
           "AXIS_FRACTION", "CONE_FRACTION", "PLANE_FRACTION"]

#: length of a link frame's axes, as a fraction of the robot's size ``L``
AXIS_FRACTION = 0.12
#: height of a friction pyramid (its ``f_n``), as a fraction of ``L``
CONE_FRACTION = 0.18
#: half-side of a contact plane's square, as a fraction of ``L``
PLANE_FRACTION = 0.15
#: the kinds of traces (``meta["kind"]``)
KINDS = ("link", "joint", "frame", "contact", "friction", "friction-face", "plane")
LINK_COLOUR = "#444444"
AXIS_COLOURS = ("#d62728", "#2ca02c", "#1f77b4")
CONTACT_COLOUR = "#000000"
PLANE_COLOUR = "#8c6d31"


@dataclass(frozen=True)
class SpatialContactShape:
    """A contact as drawn (m, world).

    Attributes
    ----------
    name, link : str
        The contact and its link.
    position : numpy.ndarray
        ``(3,)`` the contact point.
    frame : numpy.ndarray
        ``(3, 3)`` rows ``t1, t2, n`` (unit, world).
    surface_point : numpy.ndarray
        ``(3,)`` the contact point's projection onto its plane.
    pyramid : numpy.ndarray
        ``(n_f, 3)`` the friction pyramid's base vertices (apex: ``position``).
    square : numpy.ndarray
        ``(4, 3)`` the plane's square, corners in order.
    mu, gap : float
        Friction coefficient; signed gap ``n·(p − s)`` (m).
    velocity : numpy.ndarray
        ``(3,)`` ``(v_t1, v_t2, v_n)`` (m/s).
    problem : str or None
        The loader's message when it rejects the contact.
    """

    name: str
    link: str
    position: np.ndarray
    frame: np.ndarray
    surface_point: np.ndarray
    pyramid: np.ndarray
    square: np.ndarray
    mu: float
    gap: float
    velocity: np.ndarray
    problem: str | None


@dataclass(frozen=True)
class SpatialPicture:
    """What the 3-D view draws (``spatial_picture``), SI units, world frame.

    Attributes
    ----------
    name : str
        The system's name.
    length : float
        The robot's size ``L`` (m) the marks are scaled by.
    bones : tuple[tuple[str, numpy.ndarray, numpy.ndarray], ...]
        ``(link, start (3,), end (3,))`` segments of the skeleton (zero-length ones left out).
    joints : tuple[tuple[str, numpy.ndarray], ...]
        The moving joints' names and origins.
    frames : tuple[tuple[str, numpy.ndarray, numpy.ndarray], ...]
        ``(link, origin (3,), rotation (3, 3))`` per link (columns: the link's axes).
    contacts : tuple[SpatialContactShape, ...]
        File order.
    sides : int
        The friction polygon's ``n_f``.
    polygon : str
        ``"circumscribed"`` or ``"inscribed"``.
    state : str
        The configuration, one line (for the title).
    """

    name: str
    length: float
    bones: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    joints: tuple[tuple[str, np.ndarray], ...]
    frames: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    contacts: tuple[SpatialContactShape, ...]
    sides: int
    polygon: str
    state: str


def friction_pyramid(position: np.ndarray, frame: np.ndarray, mu: float, height: float, sides: int,
                     polygon: str) -> np.ndarray:
    """The base vertices of a contact's friction pyramid (module docstring).

    Parameters
    ----------
    position : numpy.ndarray
        ``(3,)`` the apex, the contact point (m, world).
    frame : numpy.ndarray
        ``(3, 3)`` rows ``t1, t2, n`` (unit, world).
    mu : float
        Friction coefficient.
    height : float
        ``f_n`` drawn (m along ``n``).
    sides : int
        ``n_f``.
    polygon : str
        ``"circumscribed"`` or ``"inscribed"``.

    Returns
    -------
    numpy.ndarray
        ``(n_f, 3)``: vertex ``j`` at ``p + h (n + μ (v_j1 t1 + v_j2 t2))``, ``v_j`` the
        polygon's vertex ``j`` (``polygon_vertices``, units of ``μ f_n``).
    """
    from contactmodes.modes.spatial_contact import polygon_vertices

    v = polygon_vertices(sides, polygon)
    return position + height * (frame[2] + mu * (v[:, :1] * frame[0] + v[:, 1:2] * frame[1]))


def spatial_picture(parsed: Any, geometry: Any) -> SpatialPicture:
    """The picture of a parsed spatial file at its state.

    Parameters
    ----------
    parsed : contactmodes.system_file.spatial_file.SpatialContents
        The file's mechanism, state and friction settings.
    geometry : contactmodes.system_file.loader.SystemGeometry
        Its contacts' positions, gaps, velocities and the loader's verdicts (``parse_geometry``).

    Returns
    -------
    SpatialPicture
        Positions in m, world frame.

    Raises
    ------
    ContactModelError
        A state the mechanism cannot evaluate.
    """
    mech = parsed.mechanism
    q = parsed.q
    length = float(mech.characteristic_scales(q, parsed.qdot).length)
    links = mech.link_frames(q)
    origin = {f.name: f.origin for f in links}
    moving = set(mech.joints)
    bones: list[tuple[str, np.ndarray, np.ndarray]] = []
    joints: list[tuple[str, np.ndarray]] = []
    for f in links:
        if f.parent is not None:
            bones += [(f.name, origin[f.parent], f.joint_origin), (f.name, f.joint_origin, f.origin)]
        if f.joint in moving:
            joints.append((str(f.joint), f.joint_origin))
    positions = mech.contact_positions(q)
    for c, p in zip(mech.contacts, positions):
        bones.append((c.link, origin[c.link], p))
    bones = [b for b in bones if float(np.linalg.norm(b[2] - b[1])) > 0.0]
    shapes = []
    h = CONE_FRACTION * length
    s = PLANE_FRACTION * length
    for c, g, p in zip(mech.contacts, geometry.contacts, positions):
        t1, t2, n = c.frame
        foot = p - float(n @ (p - c.surface_point)) * n
        square = np.array([foot + s * (a * t1 + b * t2) for a, b in ((1, 1), (-1, 1), (-1, -1), (1, -1))])
        shapes.append(SpatialContactShape(
            name=c.name, link=c.link, position=p, frame=np.array(c.frame), surface_point=foot,
            pyramid=friction_pyramid(p, c.frame, c.mu, h, parsed.sides, parsed.polygon), square=square,
            mu=c.mu, gap=g.gap, velocity=np.array(g.velocity), problem=g.problem))
    state = ", ".join(f"{k} = {v:.4g}" for k, v in zip(mech.configuration_names, q))
    return SpatialPicture(name=parsed.name, length=length, bones=tuple(bones), joints=tuple(joints),
                          frames=tuple((f.name, f.origin, f.rotation) for f in links), contacts=tuple(shapes),
                          sides=parsed.sides, polygon=parsed.polygon, state=state)


def _segments(pairs: Sequence[tuple[np.ndarray, np.ndarray]]) -> dict[str, list]:
    """``x, y, z`` lists of segments separated by ``None`` (plotly's gaps)."""
    xyz: dict[str, list] = {"x": [], "y": [], "z": []}
    for a, b in pairs:
        for i, k in enumerate("xyz"):
            xyz[k] += [float(a[i]), float(b[i]), None]
    return xyz


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _contact_hover(c: SpatialContactShape) -> str:
    v = ", ".join(_fmt(float(x)) for x in c.velocity)
    verdict = "accepted" if c.problem is None else "REJECTED: " + c.problem
    return (f"<b>{_html.escape(c.name)}</b> on {_html.escape(c.link)}<br>position ("
            + ", ".join(_fmt(float(x)) for x in c.position) + f") m<br>gap {_fmt(c.gap)} m<br>"
            f"(v_t1, v_t2, v_n) = ({v}) m/s<br>μ = {_fmt(c.mu)}<br>{_html.escape(verdict)}")


def figure_dict(pic: SpatialPicture) -> dict[str, Any]:
    """The plotly figure (a dict: ``data``, ``layout``) of ``pic``.

    Parameters
    ----------
    pic : SpatialPicture
        What to draw.

    Returns
    -------
    dict
        ``{"data": [...], "layout": {...}}``; each trace has ``meta = {"kind", "name"}``. The
        friction pyramid of a contact is a ``scatter3d`` of its edges (``kind = "friction"``:
        apex → vertex ``j`` for each ``j``, then the polygon closed) and a translucent
        ``mesh3d`` of its faces (``"friction-face"``); a plane is a ``mesh3d`` of its square.
    """
    data: list[dict[str, Any]] = []
    data.append({"type": "scatter3d", "mode": "lines", "name": "links", "legendgroup": "links",
                 "line": {"color": LINK_COLOUR, "width": 6}, "hoverinfo": "skip",
                 "meta": {"kind": "link", "name": "links"}, **_segments([(a, b) for _, a, b in pic.bones])})
    if pic.joints:
        pts = np.array([p for _, p in pic.joints])
        data.append({"type": "scatter3d", "mode": "markers", "name": "joints", "legendgroup": "joints",
                     "x": pts[:, 0].tolist(), "y": pts[:, 1].tolist(), "z": pts[:, 2].tolist(),
                     "text": [n for n, _ in pic.joints], "hovertemplate": "joint %{text}<extra></extra>",
                     "marker": {"size": 4, "color": "white", "line": {"color": LINK_COLOUR, "width": 2}},
                     "meta": {"kind": "joint", "name": "joints"}})
    a = AXIS_FRACTION * pic.length
    for i, axis in enumerate("xyz"):
        data.append({"type": "scatter3d", "mode": "lines", "name": "link frames", "legendgroup": "frames",
                     "showlegend": i == 0, "line": {"color": AXIS_COLOURS[i], "width": 4}, "hoverinfo": "skip",
                     "meta": {"kind": "frame", "name": axis},
                     **_segments([(o, o + a * R[:, i]) for _, o, R in pic.frames])})
    for c in pic.contacts:
        colour = CONTACT_COLOUR if c.problem is None else REJECTED_COLOUR
        data.append({"type": "scatter3d", "mode": "markers+text", "name": "contacts", "legendgroup": "contacts",
                     "showlegend": c is pic.contacts[0],
                     "x": [float(c.position[0])], "y": [float(c.position[1])], "z": [float(c.position[2])],
                     "text": [c.name], "textposition": "top center", "marker": {"size": 5, "color": colour},
                     "hovertemplate": _contact_hover(c) + "<extra></extra>", "meta": {"kind": "contact", "name": c.name}})
        edges = [(c.position, v) for v in c.pyramid]
        ring = np.vstack([c.pyramid, c.pyramid[:1]])
        xyz = _segments(edges)
        for k, col in zip("xyz", ring.T):
            xyz[k] += [float(x) for x in col]
        data.append({"type": "scatter3d", "mode": "lines", "name": "friction polygons", "legendgroup": "friction",
                     "showlegend": c is pic.contacts[0], "line": {"color": CONE_COLOUR, "width": 3},
                     "hoverinfo": "skip", "meta": {"kind": "friction", "name": c.name}, **xyz})
        verts = np.vstack([c.position[None, :], c.pyramid])
        nf = len(c.pyramid)
        i_, j_, k_ = [0] * nf, [1 + j for j in range(nf)], [1 + (j + 1) % nf for j in range(nf)]
        data.append({"type": "mesh3d", "name": "friction polygons", "legendgroup": "friction", "showlegend": False,
                     "x": verts[:, 0].tolist(), "y": verts[:, 1].tolist(), "z": verts[:, 2].tolist(),
                     "i": i_, "j": j_, "k": k_, "color": CONE_COLOUR, "opacity": 0.2, "hoverinfo": "skip",
                     "meta": {"kind": "friction-face", "name": c.name}})
        sq = c.square
        data.append({"type": "mesh3d", "name": "contact planes", "legendgroup": "planes",
                     "showlegend": c is pic.contacts[0],
                     "x": sq[:, 0].tolist(), "y": sq[:, 1].tolist(), "z": sq[:, 2].tolist(),
                     "i": [0, 0], "j": [1, 2], "k": [2, 3], "color": PLANE_COLOUR, "opacity": 0.3,
                     "hoverinfo": "skip", "meta": {"kind": "plane", "name": c.name}})
    style: dict[str, Any] = {"showbackground": False, "zeroline": False}
    layout: dict[str, Any] = {
        "title": {"text": f"{_html.escape(pic.name)} at its state"},
        "scene": {"aspectmode": "data",
                  **{f"{a}axis": {"title": {"text": f"{a} (m)"}, **style} for a in "xyz"}},
        "legend": {"itemsizing": "constant"},
        "margin": {"l": 0, "r": 0, "t": 40, "b": 0},
        "height": 700,
    }
    return {"data": data, "layout": layout}


def page(pic: SpatialPicture) -> str:
    """The whole HTML page (text): the figure with plotly's JavaScript inline (opens offline) and a
    caption stating the state, the friction polygon and the scales.

    Parameters
    ----------
    pic : SpatialPicture
        What to draw.

    Returns
    -------
    str
        A complete HTML document.

    Raises
    ------
    MissingExtraError
        Without plotly (the ``plot`` extra).
    """
    from contactmodes.extras import require

    require("plotly", "plot", "check --plot")
    import plotly.graph_objects as go

    fig = go.Figure(figure_dict(pic))
    body = fig.to_html(full_html=False, include_plotlyjs=True, div_id="robot-3d",
                       config={"displaylogo": False, "responsive": True})
    notes = [
        f"State: {pic.state}.",
        f"Friction polygons: {pic.sides} sides, {pic.polygon}, drawn as pyramids of height "
        f"{_fmt(CONE_FRACTION * pic.length)} m (f_n) along each normal; frames' axes "
        f"{_fmt(AXIS_FRACTION * pic.length)} m (x red, y green, z blue); the robot's size L = {_fmt(pic.length)} m.",
    ]
    rejected = [c.name for c in pic.contacts if c.problem is not None]
    if rejected:
        notes.append("Rejected by the loader (off their planes, in red): " + ", ".join(rejected) + ".")
    parts = [f"<h1>{_html.escape(pic.name)}</h1>", body] + [f"<p class='caption'>{_html.escape(t)}</p>" for t in notes]
    return ("<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
            f"<title>{_html.escape(pic.name)}: the robot at its state</title>\n"
            "<style>body{font-family:sans-serif;margin:1em 2em} .caption{color:#444;font-size:90%}</style>\n"
            "</head>\n<body>\n" + "\n".join(parts) + "\n</body>\n</html>\n")


def spatial_page_file(path: str | Path) -> SpatialPicture:
    """``spatial_picture`` of a spatial system file at its state (also when the loader rejects a
    contact's gap: that contact is drawn in red).

    Parameters
    ----------
    path : str or pathlib.Path
        The system file (``dimension = 3``).

    Returns
    -------
    SpatialPicture
        What ``page`` draws.

    Raises
    ------
    SystemFileError
        On any problem of the file other than a contact's gap.
    """
    from contactmodes.system_file.loader import parse_geometry, read_document
    from contactmodes.system_file.spatial_file import parse_spatial_contents

    data = read_document(Path(path))
    parsed = parse_spatial_contents(data, str(path))
    return spatial_picture(parsed, parse_geometry(data, str(path)))
