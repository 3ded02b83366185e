"""A drawing of the robot at its state: links, joints, masses, contacts, surfaces, cones, velocities.

``contactmodes check FILE --plot robot.png`` and the page of ``plot --html`` draw it (matplotlib,
Agg), so that a sign or geometry mistake in a system file is seen at a glance:

* each link as its ``outline`` when the system file gives one (``[[links]] outline``: a polygon
  in the link frame, its real shape), else as the convex hull of every point the file gives on
  it (frame origin, child joints, contacts, point masses and centre of mass), light grey with a
  dark outline, a segment when they are collinear; the hull is all the file says of the shape (a
  box known by its two bottom corners and its centre is a triangle: give its ``outline``);
* the names of links and contacts placed so that no two overlap (``place_labels``): each label
  takes the first of its candidate places (a contact's beside its point, a link's along its
  shape) whose box meets no label placed before it, contacts first, else the least overlapping;
* revolute joints as white circles, a fixed base's pin as a black triangle;
* point masses as black dots (area proportional to mass), link centres of mass as ``⊕``;
* each contact's surface as a line through its ``surface_point`` along the tangent, hatched on
  the side away from free space (the side ``−n``);
* the friction cone at the contact point: the two edges ``n ± μ t`` (normalized), its inside
  shaded, so a wrong normal points the cone into the ground and a wrong ``μ`` shows its width;
* the contact point's velocity ``v_t t + v_n n`` (m/s) as an arrow, scaled so the longest is
  ``ARROW_FRACTION`` of the robot's size (the scale is in the legend), and the contact's name;
  a contact off its surface (rejected by the loader) in red with its gap.

Geometry comes from the parsed mechanism (``contactmodes.model.mechanism.PlanarMechanism``:
``link_pose``, ``point_position``, ``graph``) and the loader's contact geometry
(``contactmodes.system_file.loader.ContactGeometry``), all in SI units (m, m/s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

__all__ = ["RobotPicture", "LinkShape", "ContactShape", "Label", "robot_picture", "draw_robot", "draw_robot_file",
           "place_labels", "CONE_FRACTION", "ARROW_FRACTION"]

#: length of a friction cone's edges, as a fraction of the robot's size
CONE_FRACTION = 0.18
#: the longest velocity arrow, as a fraction of the robot's size
ARROW_FRACTION = 0.3
#: half length of a drawn surface line, as a fraction of the robot's size
SURFACE_FRACTION = 0.45
#: a contact is drawn in this colour when the loader rejects it (a gap)
REJECTED_COLOUR = "#d62728"
CONE_COLOUR = "#2ca02c"
ARROW_COLOUR = "#1f77b4"


@dataclass(frozen=True)
class LinkShape:
    """A link as drawn.

    Attributes
    ----------
    name : str
        The link's name.
    outline : numpy.ndarray
        ``(k, 2)`` (m, world): a closed polygon when ``k >= 3``, a segment when ``k == 2``, a point
        when ``k == 1``.
    centre : numpy.ndarray
        ``(2,)`` the outline's centroid (m, world), where its label goes.
    """

    name: str
    outline: np.ndarray
    centre: np.ndarray


@dataclass(frozen=True)
class ContactShape:
    """A contact as drawn (SI units, world frame).

    Attributes
    ----------
    name, link : str
        The contact's name and link.
    position : numpy.ndarray
        ``(2,)`` the contact point (m).
    surface_point, normal, tangent : numpy.ndarray
        ``(2,)`` the environment line: a point (m), the unit normal ``n`` into free space and the
        tangent ``t = (n_y, −n_x)``.
    mu : float
        Friction coefficient.
    velocity : numpy.ndarray
        ``(2,)`` ``(v_t, v_n)`` (m/s) in the contact frame.
    gap : float
        Signed distance ``n·(p − s)`` (m).
    accepted : bool
        Whether the loader accepts the contact (the gap within its tolerance).
    """

    name: str
    link: str
    position: np.ndarray
    surface_point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    mu: float
    velocity: np.ndarray
    gap: float
    accepted: bool

    @property
    def world_velocity(self) -> np.ndarray:
        """``(2,)`` the velocity in world coordinates, ``v_t t + v_n n`` (m/s)."""
        return self.velocity[0] * self.tangent + self.velocity[1] * self.normal

    def cone_edges(self) -> np.ndarray:
        """``(2, 2)`` unit directions of the friction cone's edges, ``(n − μ t)`` and ``(n + μ t)``
        normalized: the forces the surface can push with lie between them."""
        edges = np.array([self.normal - self.mu * self.tangent, self.normal + self.mu * self.tangent])
        return edges / np.linalg.norm(edges, axis=1, keepdims=True)


@dataclass
class RobotPicture:
    """What ``draw_robot`` draws (SI units, world frame).

    Attributes
    ----------
    name : str
        The system's name.
    links : list[LinkShape]
        One per link.
    joints : list[tuple[str, numpy.ndarray]]
        ``(joint coordinate, (2,) position)`` of every revolute joint between links.
    base_pin : numpy.ndarray or None
        ``(2,)`` the fixed base's joint, ``None`` for a floating base.
    masses : list[tuple[float, numpy.ndarray]]
        ``(mass kg, (2,) position)`` of every point mass.
    coms : list[tuple[float, numpy.ndarray]]
        ``(mass kg, (2,) position)`` of every link's centre of mass (links with mass only).
    contacts : list[ContactShape]
        One per contact, in file order.
    """

    name: str
    links: list[LinkShape] = field(default_factory=list)
    joints: list[tuple[str, np.ndarray]] = field(default_factory=list)
    base_pin: np.ndarray | None = None
    masses: list[tuple[float, np.ndarray]] = field(default_factory=list)
    coms: list[tuple[float, np.ndarray]] = field(default_factory=list)
    contacts: list[ContactShape] = field(default_factory=list)

    def points(self) -> np.ndarray:
        """``(k, 2)`` every drawn point (links, joints, masses, contacts)."""
        pts = [s.outline for s in self.links] + [p[None, :] for _, p in self.joints]
        pts += [p[None, :] for _, p in self.masses + self.coms] + [c.position[None, :] for c in self.contacts]
        if self.base_pin is not None:
            pts.append(self.base_pin[None, :])
        return np.vstack(pts) if pts else np.zeros((0, 2))

    def size(self) -> float:
        """The robot's size (m): the larger side of the box around its points (1 m when it is a point)."""
        P = self.points()
        if len(P) == 0:
            return 1.0
        extent = float(np.max(P.max(axis=0) - P.min(axis=0)))
        return extent if extent > 0 else 1.0


def _outline(points: np.ndarray) -> np.ndarray:
    """The convex hull of ``points`` ``(k, 2)`` in order; the extreme pair when collinear."""
    from contactmodes.output.shapes import extreme_pair

    P = np.unique(np.round(points, 12), axis=0)
    if len(P) <= 2:
        return P
    span = float(np.max(P.max(axis=0) - P.min(axis=0)))
    centred = P - P.mean(axis=0)
    if np.linalg.svd(centred, compute_uv=False)[-1] <= 1e-9 * max(span, 1e-12) * np.sqrt(len(P)):
        return extreme_pair(P)
    from scipy.spatial import ConvexHull

    return P[ConvexHull(P).vertices]


def _centroid(polygon: np.ndarray) -> np.ndarray:
    """The area centroid of a polygon ``(k, 2)`` (the mean of its points when it has no area)."""
    if len(polygon) < 3:
        return polygon.mean(axis=0)
    x, y = polygon[:, 0], polygon[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2.0
    if abs(area) <= 1e-12 * max(1.0, float(np.ptp(polygon)) ** 2):
        return polygon.mean(axis=0)
    return np.array([((x + xn) * cross).sum(), ((y + yn) * cross).sum()]) / (6.0 * area)


def robot_picture(mechanism, q, qdot, contacts: Sequence | None = None, name: str = "",
                  outlines: dict | None = None) -> RobotPicture:
    """The ``RobotPicture`` of ``mechanism`` at ``(q, qdot)`` (each ``(n_q,)``, SI).

    Parameters
    ----------
    mechanism : PlanarMechanism
        The parsed mechanism.
    q, qdot : array_like
        ``(n_q,)`` the state (m, rad; m/s, rad/s).
    contacts : Sequence[ContactGeometry], optional
        The loader's contact geometry (``contactmodes.system_file.loader.system_geometry``);
        default: computed from the mechanism (every contact accepted).
    name : str, optional
        The title.
    outlines : dict[str, numpy.ndarray], optional
        Link name → its outline ``(k, 2)`` in the link frame (m; ``LoadedSystem.outlines``),
        drawn instead of the hull of the link's points.

    Returns
    -------
    RobotPicture
    """
    q = np.asarray(q, dtype=float)
    qdot = np.asarray(qdot, dtype=float)
    graph = mechanism.graph
    stored = list(getattr(mechanism, "_contacts", []))  # the mechanism's contacts (mu, link, local point)
    point_masses = list(getattr(mechanism, "_point_masses", []))
    if contacts is None:
        dyn = mechanism.dynamics(q, qdot)
        contacts = [_Geometry(c.name, c.link, dyn.positions[i], c.surface_point, c.normal, dyn.v_contact[2 * i:2 * i + 2],
                              float(dyn.gaps[i])) for i, c in enumerate(stored)]
    pic = RobotPicture(name=name or mechanism.name)
    members: dict[str, list[np.ndarray]] = {link: [mechanism.link_pose(q, link)[:2]] for link in mechanism.links}
    for parent, child, data in graph.edges(data=True):
        p = mechanism.point_position(q, parent, data["joint_position"])
        members[parent].append(p)
        members[child].append(p)
        pic.joints.append((data["joint"], p))
    for link, m, pos in point_masses:
        p = mechanism.point_position(q, link, pos)
        members[link].append(p)
        pic.masses.append((float(m), p))
    for link, data in graph.nodes(data=True):
        if data.get("mass", 0.0) > 0:
            p = mechanism.point_position(q, link, data["com"])
            members[link].append(p)
            pic.coms.append((float(data["mass"]), p))
    mus = {c.name: float(c.mu) for c in stored}
    for c in contacts:
        members.setdefault(c.link, []).append(np.asarray(c.position, dtype=float))
        n = np.asarray(c.surface_normal if hasattr(c, "surface_normal") else c.normal, dtype=float)
        n = n / np.linalg.norm(n)
        pic.contacts.append(ContactShape(
            name=c.name, link=c.link, position=np.asarray(c.position, dtype=float),
            surface_point=np.asarray(c.surface_point, dtype=float), normal=n, tangent=np.array([n[1], -n[0]]),
            mu=mus.get(c.name, 0.0), velocity=np.asarray(c.velocity, dtype=float), gap=float(c.gap),
            accepted=getattr(c, "problem", None) is None))
    for link, pts in members.items():
        given = (outlines or {}).get(link)
        if given is not None:
            shape = np.array([mechanism.point_position(q, link, tuple(p)) for p in np.asarray(given, dtype=float)])
            pic.links.append(LinkShape(link, shape, _centroid(shape)))
            continue
        P = np.vstack(pts)
        pic.links.append(LinkShape(link, _outline(P), P.mean(axis=0)))
    if mechanism.base == "fixed":
        pic.base_pin = np.asarray(mechanism.base_position, dtype=float)
    return pic


@dataclass(frozen=True)
class _Geometry:
    """Contact geometry computed from the mechanism alone (when the loader's is not given)."""

    name: str
    link: str
    position: np.ndarray
    surface_point: np.ndarray
    surface_normal: np.ndarray
    velocity: np.ndarray
    gap: float


def draw_robot(pic: RobotPicture, title: str | None = None):
    """Draw ``pic`` on a new matplotlib figure (Agg) and return it; equal axes in metres.

    Parameters
    ----------
    pic : RobotPicture
        The robot at its state.
    title : str, optional
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (the caller saves or closes it).

    Raises
    ------
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.extras import require

    require("matplotlib", "plot", "draw_robot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon

    L = pic.size()
    speeds = [float(np.linalg.norm(c.world_velocity)) for c in pic.contacts]
    vmax = max(speeds, default=0.0)
    scale = ARROW_FRACTION * L / vmax if vmax > 0 else 0.0
    P = np.vstack([pic.points()] + [np.vstack([c.position + c.cone_edges() * CONE_FRACTION * L,
                                                c.position + scale * c.world_velocity]) for c in pic.contacts])
    lo, hi = P.min(axis=0), P.max(axis=0)
    pad = 0.12 * L
    lo, hi = lo - pad, hi + pad
    aspect = (hi[1] - lo[1]) / (hi[0] - lo[0])
    fig, ax = plt.subplots(figsize=(8.0, float(np.clip(4.6 * aspect + 1.4, 3.2, 8.5))), layout="constrained")
    # surfaces first (under everything), hatched on the solid side
    for c in pic.contacts:
        a = c.surface_point + np.dot(c.position - c.surface_point, c.tangent) * c.tangent  # foot of the contact point
        half = SURFACE_FRACTION * L
        ends = np.array([a - half * c.tangent, a + half * c.tangent])
        solid = np.vstack([ends, ends[::-1] - 0.06 * L * c.normal])
        ax.add_patch(Polygon(solid, closed=True, facecolor="none", edgecolor="0.55", hatch="///", linewidth=0))
        ax.plot(ends[:, 0], ends[:, 1], color="0.3", linewidth=1.5, zorder=1)
    for s in pic.links:
        if len(s.outline) >= 3:
            ax.add_patch(Polygon(s.outline, closed=True, facecolor="0.85", edgecolor="0.2", linewidth=2, zorder=2))
        elif len(s.outline) == 2:
            ax.plot(s.outline[:, 0], s.outline[:, 1], color="0.2", linewidth=5, solid_capstyle="round", zorder=2)
    for name, p in pic.joints:
        ax.plot(*p, marker="o", markersize=9, markerfacecolor="white", markeredgecolor="black", zorder=4)
    if pic.base_pin is not None:
        ax.plot(*pic.base_pin, marker="^", markersize=12, color="black", zorder=4)
    total = sum(m for m, _ in pic.masses + pic.coms) or 1.0
    for m, p in pic.masses:
        ax.plot(*p, marker="o", markersize=4 + 10 * np.sqrt(m / total), color="black", zorder=5)
    for m, p in pic.coms:
        ax.plot(*p, marker="$\\oplus$", markersize=11, color="black", zorder=5)
    for c in pic.contacts:
        colour = "black" if c.accepted else REJECTED_COLOUR
        edges = c.cone_edges() * CONE_FRACTION * L
        cone = np.vstack([c.position, c.position + edges[0], c.position + edges[1]])
        ax.add_patch(Polygon(cone, closed=True, facecolor=CONE_COLOUR, alpha=0.25, edgecolor="none", zorder=3))
        for e in edges:
            ax.plot([c.position[0], c.position[0] + e[0]], [c.position[1], c.position[1] + e[1]], color=CONE_COLOUR,
                    linewidth=1.2, zorder=3)
        v = c.world_velocity
        if scale > 0 and np.linalg.norm(v) > 0:
            tip = c.position + scale * v
            ax.annotate("", xy=(float(tip[0]), float(tip[1])), xytext=(float(c.position[0]), float(c.position[1])),
                        zorder=6, arrowprops={"arrowstyle": "-|>", "color": ARROW_COLOUR, "linewidth": 2})
        ax.plot(*c.position, marker="o", markersize=7, color=colour, zorder=6)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.grid(True, color="0.92")
    handles = [Line2D([], [], color="0.2", linewidth=5, label="link"),
               Line2D([], [], marker="o", color="white", markeredgecolor="black", linestyle="", label="joint"),
               Line2D([], [], marker="o", color="black", linestyle="", label="point mass"),
               Line2D([], [], color=CONE_COLOUR, linewidth=1.2, label="friction cone (n ± μ t), μ:"),
               Line2D([], [], color="0.3", linewidth=1.5, label="surface (hatched: solid side)")]
    mus = sorted({c.mu for c in pic.contacts})
    for i, mu in enumerate(mus):  # under the cone entry: the contacts of each friction coefficient
        names = ", ".join(c.name for c in pic.contacts if c.mu == mu)
        handles.insert(4 + i, Line2D([], [], color="none", label=f"   {mu:g}: {names}"))
    if scale > 0:
        handles.append(Line2D([], [], color=ARROW_COLOUR, linewidth=2,
                              label=f"contact velocity\n(longest: {vmax:.3g} m/s)"))
    else:
        handles.append(Line2D([], [], color="none", label="all contact velocities zero"))
    if pic.coms:
        handles.insert(3, Line2D([], [], marker="$\\oplus$", color="black", linestyle="", label="link centre of mass"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    import textwrap

    ax.set_title(textwrap.fill(title if title is not None else f"{pic.name} at its state", 70), fontsize=9)
    marks = [p for _, p in pic.joints] + [c.position for c in pic.contacts] + [p for _, p in pic.masses + pic.coms]
    if pic.base_pin is not None:
        marks.append(pic.base_pin)
    place_labels(fig, ax, _contact_labels(pic) + _link_labels(pic), marks)  # last: the layout is final
    return fig


@dataclass(frozen=True)
class Label:
    """A name to place (``place_labels``).

    Attributes
    ----------
    text : str
        The text.
    places : list
        The candidate places in order of preference: ``(anchor (2,) in data units, offset (2,) in
        points, ha, va)``.
    style : dict
        matplotlib ``annotate`` keywords (colour, size, box).
    """

    text: str
    places: list
    style: dict = field(default_factory=dict)


#: a label's cost of overlapping another label, per pixel², against 1 for overlapping a marker
LABEL_OVERLAP_WEIGHT = 100.0
#: half size (points) of the square a point marker (joint, contact, mass) keeps free of labels
MARK_HALF_SIZE = 5.0


def _side(offset: np.ndarray) -> tuple[str, str]:
    """``(ha, va)`` that put a label on the side of its anchor that ``offset`` points to."""
    ha = "center" if abs(offset[0]) < 1e-9 else ("right" if offset[0] < 0 else "left")
    va = "center" if abs(offset[1]) < 1e-9 else ("top" if offset[1] < 0 else "bottom")
    return ha, va


def _contact_labels(pic: RobotPicture) -> list[Label]:
    """Each contact's name (and a rejected one's gap) beside its point on the free side of its
    surface: first along ``−t`` (the former place), then along ``+t``, then further out."""
    out = []
    for c in pic.contacts:
        colour = "black" if c.accepted else REJECTED_COLOUR
        text = c.name + ("" if c.accepted else f"\ngap {c.gap:.3g} m: rejected")
        offsets = [8 * c.normal - 14 * c.tangent, 8 * c.normal + 14 * c.tangent, 22 * c.normal - 14 * c.tangent,
                   22 * c.normal + 14 * c.tangent, 30 * c.normal, 44 * c.normal - 14 * c.tangent,
                   44 * c.normal + 14 * c.tangent]
        places = [(c.position, o, *_side(o)) for o in offsets]
        out.append(Label(text, places, {"fontsize": 8, "color": colour, "zorder": 7,
                                        "bbox": {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8}}))
    return out


def _link_labels(pic: RobotPicture) -> list[Label]:
    """Each link's name: a segment's along it (its middle first, then towards either end, above
    then below), a polygon's at its centroid, then between the centroid and each corner."""
    out = []
    for shape in pic.links:
        P = shape.outline
        if len(P) == 2:
            anchors = [P[0] + f * (P[1] - P[0]) for f in (0.5, 0.35, 0.65, 0.2, 0.8)]
        else:
            anchors = [shape.centre] + [0.5 * (shape.centre + v) for v in P]
        offsets = [np.array([0.0, 8.0]), np.array([0.0, -8.0])] if len(P) <= 2 else [np.zeros(2), np.array([0.0, 8.0])]
        places = [(a, o, *_side(o)) for a in anchors for o in offsets]
        out.append(Label(shape.name, places, {"fontsize": 8, "color": "0.15", "zorder": 6,
                                              "bbox": {"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.7}}))
    return out


def place_labels(fig, ax, labels: Sequence[Label], marks: Sequence[np.ndarray] = ()) -> list:
    """Annotate ``labels`` on ``ax`` so that no two overlap where the candidates allow it.

    In order, each label takes the first of its candidate places whose box (as rendered) meets
    no label placed before it nor a point marker of ``marks`` (data units); when every place
    meets something, the one of least cost (overlap with labels, per pixel², weighs
    ``LABEL_OVERLAP_WEIGHT`` times overlap with markers). The figure is drawn once first, so
    that the layout and the axes' aspect are final.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (its layout final but for the labels).
    ax : matplotlib.axes.Axes
        The axes to annotate (data units: m).
    labels : Sequence[Label]
        The labels, in order of priority.
    marks : Sequence[numpy.ndarray], optional
        ``(2,)`` points (data units) whose markers labels should not cover.

    Returns
    -------
    list
        The ``matplotlib.text.Annotation`` of each label, in order.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    scale = fig.dpi / 72.0
    mark_boxes = [(*(to_px(np.asarray(m, dtype=float)) - MARK_HALF_SIZE * scale),
                   *(to_px(np.asarray(m, dtype=float)) + MARK_HALF_SIZE * scale)) for m in marks]
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for label in labels:
        best = None
        for anchor, offset, ha, va in label.places:
            artist = ax.annotate(label.text, (float(anchor[0]), float(anchor[1])), textcoords="offset points",
                                 xytext=(float(offset[0]), float(offset[1])), ha=ha, va=va, **label.style)
            e = artist.get_window_extent(renderer)
            box = (e.x0, e.y0, e.x1, e.y1)
            cost = LABEL_OVERLAP_WEIGHT * sum(_overlap(box, b) for b in placed) + sum(_overlap(box, b) for b in mark_boxes)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, artist, box)
            else:
                artist.remove()
            if cost == 0.0:
                break
        if best is not None:
            placed.append(best[2])
            out.append(best[1])
    return out


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Area (pixel²) common to the boxes ``(x0, y0, x1, y1)`` ``a`` and ``b``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def draw_robot_file(path: str, title: str | None = None):
    """``draw_robot`` of a system file at its state.

    Also when the loader rejects a contact's gap: the contact is drawn in red.

    Parameters
    ----------
    path : str
        The system file.
    title : str, optional
        The figure's title; default the system's name and its ``q``.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    SystemFileError
        On any problem of the file other than a contact's gap.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from contactmodes.system_file.loader import parse_contents, read_document, parse_geometry
    from pathlib import Path

    data = read_document(Path(path))
    parsed = parse_contents(data, str(path))
    geometry = parse_geometry(data, str(path))
    pic = robot_picture(parsed.mechanism, parsed.q, parsed.qdot, geometry.contacts, name=parsed.name,
                        outlines=parsed.outlines)
    if title is None:
        state = ", ".join(f"{c} = {v:.4g}" for c, v in zip(parsed.mechanism.coordinates, parsed.q))
        title = f"{parsed.name} at q: {state}"
    return draw_robot(pic, title)
