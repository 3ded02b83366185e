"""The spatial point contact: a point on a link against a fixed plane, with a friction polygon.

The second contact type beside ``contactmodes.modes.contact_model.PlanarPointContact``, with the
same methods (``rows``, ``allowed``, ``relaxed_rows``) and attributes (``components``,
``letters``, ``kept_letters``, ``table_iii``). Its force and acceleration have three
*components* ``(t1, t2, n)`` (``contactmodes.model.spatial``: the contact frame with ``t2 = n ×
t1``, ``n`` out of the environment; the Jacobian rows of ``SpatialMechanism`` in that order).
Issue 40, items 1, 3 and 4 (its impact rows: *Impact* below).

Friction polygon
----------------
A contact at rest tangentially replaces Coulomb's circle ``|f_t| <= μ f_n`` by a polygon of
``n_f = sides`` sides (``3 <= n_f <= 20``, default 4) in the tangent plane:

    P = {f_t : n_j · f_t <= ρ μ f_n,  j = 0 … n_f − 1}

with side ``j``'s outward unit normal ``n_j = (cos θ_j, sin θ_j)`` in ``(t1, t2)`` components and

* ``polygon = "circumscribed"`` (the default): ``θ_j = 2πj/n_f``, ``ρ = 1`` — the sides tangent
  to the circle of radius ``μ f_n``, the first side's outward normal along ``t1``. The polygon
  holds the circle: it allows a friction force up to ``1/cos(π/n_f)`` times Coulomb's (at its
  vertices), a radial error ``max r − 1 = 1/cos(π/n_f) − 1`` (41.4 % at 4 sides, 8.2 % at 8,
  1.2 % at 20), ``→ 0`` as ``n_f → ∞``;
* ``polygon = "inscribed"``: ``θ_j = 2πj/n_f − π/n_f``, ``ρ = cos(π/n_f)`` — the vertices on
  the circle, one along ``t1``; the polygon lies inside the circle, touching it at its vertices
  (``min r = cos(π/n_f)``, at the sides' midpoints).

Vertex ``j`` is the corner between side ``j`` and side ``j + 1`` (mod ``n_f``), at angle ``θ_j
+ π/n_f`` and distance ``ρ μ f_n / cos(π/n_f)`` from the centre: for the inscribed polygon vertex
``0`` (between side ``0`` and side ``1``) is along ``t1``, as issue 40 asks. The
geometry, in units of ``μ f_n``: ``polygon_normals``, ``polygon_scale``, ``polygon_vertices`` and
the radial function ``polygon_radius`` (``r(ψ)``: the distance from the centre to the boundary
along the direction at angle ``ψ`` from ``t1``, divided by ``μ f_n``; ``r(ψ) = ρ / max_j cos(ψ −
θ_j)``).

Letters (one character per contact, as in the plane)
-----------------------------------------------------
* ``S`` separating: ``f = 0``; ``ẍ_n >= 0`` when the normal velocity is zero.
* ``F`` sticking: ``ẍ_t1 = ẍ_t2 = ẍ_n = 0``; the force in the polyhedral cone: ``ρ μ f_n −
  n_j · f_t >= 0`` for every side, and ``f_n >= 0`` (implied when ``μ > 0``, needed at ``μ = 0``).
* Side letters ``a, b, c, …`` (side ``j`` = the ``j``-th lowercase letter): slip onset with the
  force on side ``j``: ``n_j · f_t − ρ μ f_n = 0``, the other sides' rows ``>= 0``, ``f_n >= 0``;
  ``ẍ_n = 0``; the tangential acceleration ``a_t = −λ n_j`` with ``λ >= 0``: ``d_j · a_t = 0``
  with ``d_j = (−sin θ_j, cos θ_j)`` (the side's direction) and ``−n_j · a_t >= 0``. The force
  maximizes dissipation: every point of side ``j`` minimizes ``f_t · a_t`` over ``P``.
* Vertex letters from ``VERTEX_ALPHABET = "ABCEGHIJKMNOPQTUVWXYZ"`` (the capitals without ``D``,
  ``F``, ``L``, ``R``, ``S``; vertex ``j`` = its ``j``-th letter): slip onset with the force at
  vertex ``j``: both adjacent sides' rows hold with equality, the other sides' rows ``>= 0``,
  ``f_n >= 0``; ``ẍ_n = 0``; ``−a_t`` in the vertex's normal cone ``{λ_j n_j + λ_{j+1} n_{j+1} :
  λ >= 0}``. Without extra variables: in the plane, with ``x × y = x_1 y_2 − x_2 y_1`` and
  ``n_j × n_{j+1} = sin(2π/n_f) > 0``, ``x = λ_j n_j + λ_{j+1} n_{j+1}`` has ``λ_j = (x × n_{j+1})
  / sin(2π/n_f)`` and ``λ_{j+1} = (n_j × x) / sin(2π/n_f)``; ``n_j × x = d_j · x`` and ``x ×
  n_{j+1} = −d_{j+1} · x``, so the cone is ``{x : d_j · x >= 0, −d_{j+1} · x >= 0}`` and the rows
  on ``a_t = −x`` are ``−d_j · a_t >= 0`` and ``d_{j+1} · a_t >= 0``. The vertex minimizes
  ``f_t · a_t`` over ``P`` exactly for those ``a_t``.
* ``D`` already sliding (``|v_t| > v0``), under ``sliding = "exact"`` (the default): exact
  Coulomb friction against the slip direction ``v̂`` (a unit vector in ``(t1, t2)`` components,
  ``rows``'s ``slip``): ``f_t1 + μ v̂_1 f_n = 0``, ``f_t2 + μ v̂_2 f_n = 0``, ``f_n >= 0``;
  ``ẍ_n = 0``; no tangential acceleration row. Linear in ``f_n``, no polygon.

Sliding on the polygon (``sliding = "polygon"``)
------------------------------------------------
Issue 40, item 7 (as MuJoCo's pyramidal cone does): a sliding contact's friction is the
maximum-dissipation force of the *same* polygon ``P`` for its slip velocity ``v_t``, the
minimizers of ``f_t · v_t`` over ``P`` — the face of ``P`` whose outward normals contain ``−v_t``:

* generically a vertex: the vertex ``j`` with ``−v_t`` in the cone of ``n_j`` and ``n_{j+1}``,
  whose letter (``A B C E …``) then names the sliding contact's mode. Its force is the corner,
  ``ρ μ f_n / cos(π/n_f)`` long at angle ``θ_j + π/n_f`` (linear in ``f_n``, fully determined);
* when ``−v_t`` lies along a side's outward normal ``n_j`` — its component along the side's
  direction within the velocity threshold, ``|d_j · v_t| <= ε`` (the ``ε`` of Table III,
  ``max(v0, VELOCITY_RTOL · V)``, ``contactmodes.tolerances``: the rule that says a velocity
  component is zero) — the whole side ``j``, whose letter (``a b c …``) names the mode. Its force
  ``n_j · f_t = ρ μ f_n`` with the other sides' rows keeps one free coefficient along the side:
  an ambiguity variable of the mode (``w``, Sec. III-G), which the analysis projects out as any
  other. The side is one letter, not split into its two vertex letters: the law allows every
  point of the side, and two vertex letters would miss the forces between them.

These are the side and vertex letters with ``t_zero`` false, the rows they already have without
their tangential acceleration rows — as the planar ``L`` and ``R`` serve both slip onset and
sliding. ``D`` does not exist under ``"polygon"`` (it is not in ``letters``). A sliding contact
is allowed ``S`` and its one letter (``velocity_class``; ``slip_letter``, ``polygon_slip_letter``).

How the circle and the polygon differ at slip onset (``docs/spatial.md``): at rest, the slip
onset force for a tangential acceleration ``a_t`` is the polygon's maximum-dissipation force for
``a_t`` (a vertex, or a side along a side normal); once sliding in ``v̂ = a_t/|a_t|``, exact
Coulomb gives ``−μ f_n v̂``. For a generic ``v̂`` the onset force is a vertex, ``ρ/cos(π/n_f)``
times as long as Coulomb's (``1/cos(π/n_f)`` circumscribed, ``1`` inscribed) and turned from
``−v̂`` by the angle ``δ`` between ``−v̂`` and the vertex, ``0 <= δ < π/n_f``: a contact passing
from rest to sliding sees its friction jump by ``μ f_n (R² + 1 − 2 R cos δ)^½`` (``R = ρ/cos(π/n_f)``)
— ``1/cos(π/n_f) − 1`` radially when ``v̂`` points at a vertex (circumscribed), up to ``tan(π/n_f)``
(circumscribed) or ``2 sin(π/(2 n_f))`` (inscribed) as ``−v̂`` nears a side normal. Under
``"polygon"`` it does not jump.

The side and vertex cones of ``a_t`` cover the tangent plane (the vertex cones alone do, the side
directions are their common edges) and overlap only on those edges: every nonzero tangential
acceleration has a letter, and a generic one exactly one (a vertex letter) — the outcomes of
maximum dissipation on ``P``, so ambiguity and inconsistency analyses stay complete for the
linearized law.

Table III generalized (``allowed``): a separating normal velocity allows ``"S"``; normally at rest
and tangentially sliding (``|v_t| > v0``), ``"SD"`` (``"polygon"``: ``S`` and the one side or
vertex letter of the slip direction; ``allowed`` lists every letter a sliding contact may take);
at rest in both, ``"SF"``, the side letters and the vertex letters (``2 + 2 n_f`` letters).
``relaxed_rows`` is the planar one's: ``ẍ_n >= 0`` when normally at rest.

Rows along directions
---------------------
``ContactRows.accel_eq`` and ``accel_geq`` name single components (the planar rows and the
spatial ``F``, ``S``, ``D`` and the normal rows); the rows of the side and vertex letters along
in-plane directions are in ``ContactRows.accel_eq_dirs`` and ``accel_geq_dirs``: coefficient
vectors over the components, ``(c_t1, c_t2, c_n)`` with ``c · ẍ = 0`` resp. ``>= 0``. The planar
contact leaves them empty. Force rows are coefficient tuples with one coefficient per component,
``(c_t1, c_t2, c_n)``. Direction coefficients at multiples of a quarter turn are exact (``cos
(π/2)`` is ``0.0``, not ``6e-17``) and those symmetric about an octant equal, so the polygon's
symmetries hold bit for bit.

A side or vertex letter asked for with ``t_zero`` false (a sliding contact under ``"polygon"``)
has no tangential acceleration rows, as the planar ``L`` and ``R`` drop their sign row then.

Impact
------
A plastic impact (Johnson thesis Sec. 5.1.2, ``contactmodes.impact``) takes the same letters on
the post-impact contact velocity ``v⁺ = J q̇⁺`` and the impulse ``P`` (``impact_rows``): maximum
dissipation over the polygon, ``P_t ∈ argmin {p · v⁺_t : p ∈ μ P_n P}``, with every velocity row
present, since ``v⁺`` is the unknown (non-strict: outcomes on a boundary share one ``q̇⁺``).
``S`` released (``P = 0``, ``v⁺_n >= 0``), ``F`` sticks (``v⁺ = 0``, ``P`` in the polyhedral
cone), side ``j`` (``v⁺_n = 0``, ``P`` on side ``j``, ``v⁺_t = −λ n_j`` with ``λ >= 0``), vertex
``j`` (``v⁺_n = 0``, ``P`` at vertex ``j``, ``−v⁺_t`` in its normal cone): ``impact_letters``,
``2 + 2 n_f`` per contact in scope. ``D`` is no outcome: its rows need the slip direction, which
after the impact is an unknown; the polygon letters cover every direction. Every outcome loses
energy: ``P_t · v⁺_t = −λ ρ μ P_n <= 0`` on a side (``−(λ_j + λ_{j+1}) ρ μ P_n`` at a vertex).
A frictionless contact (``μ = 0``) is released or kept by its normal row (``normal_row_rows``:
``D``'s rows at ``μ = 0``), reported ``D`` when it slides after the impact, else ``F``
(``frictionless_letter``). The pseudo-impulse guard (``impact_guarded_letters``) is ``F``'s, as
in the plane.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_model import ContactRows, VelocityClass
from contactmodes.tolerances import SLIP_UNIT_ATOL

__all__ = [
    "POLYGONS",
    "SIDES_MAX",
    "SIDES_MIN",
    "SIDE_ALPHABET",
    "SLIDING",
    "VERTEX_ALPHABET",
    "SpatialPointContact",
    "polygon_normals",
    "polygon_radius",
    "polygon_scale",
    "polygon_slip_letter",
    "polygon_vertices",
    "spatial_point_contact",
]

SIDES_MIN, SIDES_MAX = 3, 20
"""The number of sides ``n_f`` accepted (``SIDES_MAX``: the vertex alphabet has 21 letters)."""
POLYGONS = ("circumscribed", "inscribed")
"""The polygon kinds, the default first."""
SLIDING = ("exact", "polygon")
"""The friction laws of a sliding contact, the default first: ``"exact"`` Coulomb (``D``) or the
polygon's maximum-dissipation force (the side and vertex letters)."""
SIDE_ALPHABET = "abcdefghijklmnopqrst"
"""Side letters: side ``j`` is ``SIDE_ALPHABET[j]``."""
VERTEX_ALPHABET = "ABCEGHIJKMNOPQTUVWXYZ"
"""Vertex letters: vertex ``j`` (between sides ``j`` and ``j + 1``) is ``VERTEX_ALPHABET[j]``;
no ``D``, ``F``, ``L``, ``R``, ``S``."""

T1, T2, N = 0, 1, 2


def _check_sides(sides: Any) -> int:
    if isinstance(sides, bool) or not isinstance(sides, (int, np.integer)) or not SIDES_MIN <= sides <= SIDES_MAX:
        raise ContactModelError(f"friction.sides: must be an integer from {SIDES_MIN} to {SIDES_MAX}, got {sides!r}")
    return int(sides)


def _check_polygon(polygon: Any) -> str:
    if polygon not in POLYGONS:
        raise ContactModelError(f"friction.polygon: must be one of {', '.join(map(repr, POLYGONS))}, got {polygon!r}")
    return str(polygon)


def _check_sliding(sliding: Any) -> str:
    if not isinstance(sliding, str) or sliding not in SLIDING:
        raise ContactModelError(f"friction.sliding: must be one of {', '.join(map(repr, SLIDING))}, got {sliding!r}")
    return sliding


def _direction(k: int, m: int) -> tuple[float, float]:
    """``(cos, sin)`` of the angle ``2π k / m`` (integers, ``m > 0``), exact at quarter turns and
    symmetric about the octants: reduced to the first octant, then reflected and rotated exactly."""
    k %= m
    quadrant, rest = divmod(4 * k, m)  # angle = (quadrant + rest / m) quarter turns
    if 2 * rest == m:
        c = s = math.sqrt(0.5)
    elif 2 * rest < m:
        a = 0.5 * math.pi * rest / m
        c, s = (1.0, 0.0) if rest == 0 else (math.cos(a), math.sin(a))
    else:
        a = 0.5 * math.pi * (m - rest) / m
        c, s = math.sin(a), math.cos(a)
    for _ in range(quadrant):
        c, s = -s, c
    return c + 0.0, s + 0.0  # no negative zeros


def _angles(sides: int, polygon: str) -> list[tuple[int, int]]:
    """Side ``j``'s normal angle as ``(k, m)`` with ``θ_j = 2π k / m``, ``m = 4 n_f`` (so that
    ``θ_j + π/n_f``, a vertex's angle, is ``(k + 2, m)``)."""
    first = 0 if polygon == "circumscribed" else -2
    return [(4 * j + first, 4 * sides) for j in range(sides)]


def polygon_scale(sides: int, polygon: str = "circumscribed") -> float:
    """The friction polygon's side distance ``ρ`` (module docstring), in units of ``μ f_n``.

    Parameters
    ----------
    sides : int
        ``n_f``, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` or ``"inscribed"``.

    Returns
    -------
    float
        ``1`` (circumscribed) or ``cos(π/n_f)`` (inscribed).

    Raises
    ------
    ContactModelError
        For ``sides`` or ``polygon`` outside their ranges (``"friction.sides: …"``,
        ``"friction.polygon: …"``).
    """
    n, kind = _check_sides(sides), _check_polygon(polygon)
    return 1.0 if kind == "circumscribed" else math.cos(math.pi / n)


def polygon_normals(sides: int, polygon: str = "circumscribed") -> np.ndarray:
    """The friction polygon's outward unit side normals ``n_j`` (module docstring).

    Parameters
    ----------
    sides : int
        ``n_f``, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` (``θ_j = 2πj/n_f``) or ``"inscribed"`` (``θ_j = 2πj/n_f − π/n_f``).

    Returns
    -------
    numpy.ndarray
        ``(n_f, 2)`` row ``j`` is ``(cos θ_j, sin θ_j)`` in ``(t1, t2)`` components.

    Raises
    ------
    ContactModelError
        For ``sides`` or ``polygon`` outside their ranges.
    """
    n, kind = _check_sides(sides), _check_polygon(polygon)
    return np.array([_direction(k, m) for k, m in _angles(n, kind)])


def polygon_vertices(sides: int, polygon: str = "circumscribed") -> np.ndarray:
    """The friction polygon's vertices, in units of ``μ f_n`` (module docstring).

    Parameters
    ----------
    sides : int
        ``n_f``, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` or ``"inscribed"``.

    Returns
    -------
    numpy.ndarray
        ``(n_f, 2)`` row ``j`` is vertex ``j``, the corner between sides ``j`` and ``j + 1`` (mod
        ``n_f``): at angle ``θ_j + π/n_f``, distance ``ρ / cos(π/n_f)`` (``1/cos(π/n_f)``
        circumscribed, ``1`` inscribed).

    Raises
    ------
    ContactModelError
        For ``sides`` or ``polygon`` outside their ranges.
    """
    n, kind = _check_sides(sides), _check_polygon(polygon)
    radius = polygon_scale(n, kind) / math.cos(math.pi / n)
    corners = [(k + 2, m) for k, m in _angles(n, kind)]  # θ_j + π/n_f
    return radius * np.array([_direction(k, m) for k, m in corners])


def polygon_radius(psi: ArrayLike, sides: int, polygon: str = "circumscribed") -> np.ndarray:
    """The friction polygon's radial function ``r(ψ)`` (module docstring).

    The distance from the centre to the polygon's boundary along the direction ``(cos ψ, sin ψ)``
    of the tangent plane, divided by ``μ f_n``: ``r(ψ) = ρ / max_j cos(ψ − θ_j)``. The circle is
    ``r = 1``; the circumscribed polygon has ``1 <= r <= 1/cos(π/n_f)``, the inscribed one
    ``cos(π/n_f) <= r <= 1``.

    Parameters
    ----------
    psi : array_like
        Angles (rad) from ``t1`` towards ``t2``, any shape.
    sides : int
        ``n_f``, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` or ``"inscribed"``.

    Returns
    -------
    numpy.ndarray
        ``r`` with the shape of ``psi`` (dimensionless).

    Raises
    ------
    ContactModelError
        For ``sides`` or ``polygon`` outside their ranges, or a ``psi`` that is not finite.
    """
    try:
        angles = np.asarray(psi, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"psi: not a numeric array: {psi!r}") from None
    if not np.isfinite(angles).all():
        raise ContactModelError("psi: contains NaN or infinite values")
    normals = polygon_normals(sides, polygon)
    u = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    return polygon_scale(sides, polygon) / (u @ normals.T).max(axis=-1)


def polygon_slip_letter(v_t: ArrayLike, eps: float, sides: int, polygon: str = "circumscribed") -> str:
    """The letter of the polygon's maximum-dissipation force for a slip velocity (``sliding =
    "polygon"``, module docstring).

    The face of the polygon ``P`` minimizing ``f_t · v_t``: with ``j`` the side whose outward
    normal ``n_j`` is nearest ``−v_t`` (the largest ``−n_j · v_t``, the first on a tie), the side
    ``j`` itself when ``|d_j · v_t| <= eps`` (``−v_t`` along ``n_j``: the whole side minimizes),
    else the vertex between ``n_j`` and the neighbour on ``−v_t``'s side: vertex ``j`` (sides ``j``,
    ``j + 1``) when ``d_j · (−v_t) > 0``, else vertex ``j − 1``.

    Parameters
    ----------
    v_t : array_like
        ``(2,)`` the slip velocity ``(v_t1, v_t2)`` (any units, nonzero beyond ``eps``).
    eps : float
        The velocity threshold of Table III in the same units (``>= 0``; ``velocity_class``'s
        ``ε = max(v0, VELOCITY_RTOL · V)``): a component along a side's direction at most ``eps``
        counts as zero.
    sides : int
        ``n_f``, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` or ``"inscribed"``.

    Returns
    -------
    str
        A side letter (``SIDE_ALPHABET``) or a vertex letter (``VERTEX_ALPHABET``).

    Raises
    ------
    ContactModelError
        For ``sides`` or ``polygon`` outside their ranges, or a ``v_t`` that is not a finite
        2-vector longer than ``eps`` (``"slip: …"``).
    """
    n, kind = _check_sides(sides), _check_polygon(polygon)
    try:
        v = np.asarray(v_t, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"slip: must be a slip velocity (v_t1, v_t2), got {v_t!r}") from None
    if v.shape != (2,) or not np.isfinite(v).all() or math.hypot(*v.tolist()) <= eps:
        raise ContactModelError(f"slip: must be a finite slip velocity (v_t1, v_t2) longer than {eps:g}, "
                                f"got {np.asarray(v_t).tolist()!r}")
    u1, u2 = -float(v[0]), -float(v[1])
    normals = [_direction(k, m) for k, m in _angles(n, kind)]
    j = max(range(n), key=lambda i: normals[i][0] * u1 + normals[i][1] * u2)
    c, s = normals[j]
    along = -s * u1 + c * u2  # d_j · (−v_t)
    if abs(along) <= eps:
        return SIDE_ALPHABET[j]
    return VERTEX_ALPHABET[j if along > 0 else (j - 1) % n]


def _unit_slip(slip: Any) -> tuple[float, float]:
    try:
        v = np.asarray(slip, dtype=float)
    except (TypeError, ValueError):
        raise ContactModelError(f"slip: must be a unit 2-vector (t1, t2), got {slip!r}") from None
    if v.shape != (2,) or not np.isfinite(v).all() or abs(math.hypot(*v.tolist()) - 1.0) > SLIP_UNIT_ATOL:
        raise ContactModelError(f"slip: must be a unit 2-vector (t1, t2), got {np.asarray(slip).tolist()!r}")
    return float(v[0]), float(v[1])


def _clean(rows: tuple[tuple[float, ...], ...]) -> tuple[tuple[float, ...], ...]:
    """The rows with negative zeros made positive (``−0.0 + 0.0 = 0.0``)."""
    return tuple(tuple(x + 0.0 for x in row) for row in rows)


@lru_cache(maxsize=4096)
def _rows(sides: int, polygon: str, letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
    """``SpatialPointContact.rows`` for every letter but ``D``, once per argument tuple."""
    r = _letter_rows(sides, polygon, letter, mu, t_zero, n_zero)
    return ContactRows(r.accel_eq, r.accel_geq, _clean(r.force_eq), _clean(r.force_geq),
                       _clean(r.accel_eq_dirs), _clean(r.accel_geq_dirs))


def _letter_rows(sides: int, polygon: str, letter: str, mu: float, t_zero: bool, n_zero: bool) -> ContactRows:
    """``_rows`` before ``_clean``."""
    normals = [_direction(k, m) for k, m in _angles(sides, polygon)]
    rho_mu = polygon_scale(sides, polygon) * mu
    cone = [(-c, -s, rho_mu) for c, s in normals]  # ρ μ f_n − n_j · f_t >= 0
    f_n = (0.0, 0.0, 1.0)
    if letter == "S":
        return ContactRows((), ((N, 1.0),) if n_zero else (), ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), f_n), ())
    if letter == "F":
        return ContactRows((T1, T2, N), (), (), tuple(cone) + (f_n,))
    if letter in SIDE_ALPHABET[:sides]:
        j = SIDE_ALPHABET.index(letter)
        c, s = normals[j]
        rest = tuple(row for i, row in enumerate(cone) if i != j) + (f_n,)
        eq_dirs, geq_dirs = (((-s, c, 0.0),), ((-c, -s, 0.0),)) if t_zero else ((), ())  # d_j·a = 0, −n_j·a >= 0
        return ContactRows((N,), (), ((c, s, -rho_mu),), rest, eq_dirs, geq_dirs)
    j = VERTEX_ALPHABET.index(letter)
    k = (j + 1) % sides
    (c0, s0), (c1, s1) = normals[j], normals[k]
    rest = tuple(row for i, row in enumerate(cone) if i not in (j, k)) + (f_n,)
    normal_cone = ((s0, -c0, 0.0), (-s1, c1, 0.0)) if t_zero else ()  # −d_j·a >= 0, d_{j+1}·a >= 0
    return ContactRows((N,), (), ((c0, s0, -rho_mu), (c1, s1, -rho_mu)), rest, (), normal_cone)


@dataclass(frozen=True)
class SpatialPointContact:
    """The spatial point contact's components, letters and rows (module docstring).

    Parameters
    ----------
    sides : int, optional
        ``n_f``, the friction polygon's number of sides, from 3 to 20.
    polygon : str, optional
        ``"circumscribed"`` (sides tangent to the circle ``μ f_n``, the first side's outward
        normal along ``t1``) or ``"inscribed"`` (vertices on the circle, one along ``t1``).
    sliding : str, optional
        The friction of a sliding contact: ``"exact"`` (default) Coulomb's ``−μ f_n v̂``, letter
        ``D``; ``"polygon"`` the polygon's maximum-dissipation force for the slip direction, the
        side or vertex letter of that face (module docstring; issue 40, item 7).

    Attributes
    ----------
    components : tuple[str, str, str]
        ``("t1", "t2", "n")``: the order of a contact's entries in every contact vector.
    letters : str
        ``"SF"``, the side letters, the vertex letters, ``"D"`` (``sliding = "exact"`` only): every
        letter, in enumeration order.
    kept_letters : str
        The letters that keep the contact (all but ``S``).
    table_iii : dict
        Table III generalized, as data: ``(n_zero, t_zero) -> letters`` (``allowed``).

    Raises
    ------
    ContactModelError
        For ``sides`` outside 3..20, an unknown ``polygon`` or ``sliding``
        (``"friction.sides: …"``, ``"friction.polygon: …"``, ``"friction.sliding: …"``).
    """

    sides: int = 4
    polygon: str = "circumscribed"
    sliding: str = "exact"

    components = ("t1", "t2", "n")

    def __post_init__(self) -> None:
        _check_sides(self.sides)
        _check_polygon(self.polygon)
        _check_sliding(self.sliding)
        object.__setattr__(self, "sides", int(self.sides))

    @property
    def side_letters(self) -> str:
        """The side letters, side ``j`` first-to-last (``"abcd"`` for four sides)."""
        return SIDE_ALPHABET[: self.sides]

    @property
    def vertex_letters(self) -> str:
        """The vertex letters, vertex ``j`` (between sides ``j`` and ``j + 1``) first-to-last."""
        return VERTEX_ALPHABET[: self.sides]

    @property
    def letters(self) -> str:
        """Every letter in enumeration order: ``"SF"``, sides, vertices, then ``"D"`` under
        ``sliding = "exact"`` (under ``"polygon"`` a sliding contact takes a side or vertex
        letter)."""
        return "SF" + self.side_letters + self.vertex_letters + ("D" if self.sliding == "exact" else "")

    @property
    def kept_letters(self) -> str:
        """The letters that keep the contact: all but ``S``."""
        return self.letters[1:]

    @property
    def table_iii(self) -> dict[tuple[bool, bool], str]:
        """Table III generalized: ``(n_zero, t_zero) -> letters`` (``allowed``); sliding under
        ``"polygon"``, every letter a sliding contact may take (``velocity_class`` keeps ``S`` and
        the one of its slip direction)."""
        faces = self.side_letters + self.vertex_letters
        sliding = "SD" if self.sliding == "exact" else "S" + faces
        return {(False, False): "S", (False, True): "S", (True, False): sliding, (True, True): "SF" + faces}

    @property
    def normals(self) -> np.ndarray:
        """``(n_f, 2)`` the polygon's outward side normals (``polygon_normals``)."""
        return polygon_normals(self.sides, self.polygon)

    @property
    def scale(self) -> float:
        """The polygon's side distance ``ρ`` (``polygon_scale``)."""
        return polygon_scale(self.sides, self.polygon)

    @property
    def vertices(self) -> np.ndarray:
        """``(n_f, 2)`` the polygon's vertices in units of ``μ f_n`` (``polygon_vertices``)."""
        return polygon_vertices(self.sides, self.polygon)

    def radius(self, psi: ArrayLike) -> np.ndarray:
        """The polygon's radial function ``r(ψ)`` (``polygon_radius``).

        Parameters
        ----------
        psi : array_like
            Angles (rad) from ``t1`` towards ``t2``.

        Returns
        -------
        numpy.ndarray
            ``r(ψ)``, the shape of ``psi``.

        Raises
        ------
        ContactModelError
            For a ``psi`` that is not finite.
        """
        return polygon_radius(psi, self.sides, self.polygon)

    def slip_letter(self, v_t: ArrayLike, eps: float) -> str:
        """The side or vertex letter of the polygon's maximum-dissipation force for the slip
        velocity ``v_t`` (``polygon_slip_letter``; the sliding letter under ``"polygon"``).

        Parameters
        ----------
        v_t : array_like
            ``(2,)`` the slip velocity ``(v_t1, v_t2)``, longer than ``eps``.
        eps : float
            The velocity threshold of Table III, the same units.

        Returns
        -------
        str
            The side letter when ``−v_t`` is along that side's outward normal within ``eps``,
            else the vertex letter whose normal cone holds ``−v_t``.

        Raises
        ------
        ContactModelError
            For a ``v_t`` that is not a finite 2-vector longer than ``eps``.
        """
        return polygon_slip_letter(v_t, eps, self.sides, self.polygon)

    def rows(self, letter: str, mu: float, t_zero: bool, n_zero: bool, slip: ArrayLike | None = None) -> ContactRows:
        """The rows of one contact in mode ``letter`` (module docstring; issue 40, item 3).

        Parameters
        ----------
        letter : str
            One of ``letters``.
        mu : float
            The contact's friction coefficient (``>= 0``, checked where the contact is read).
        t_zero, n_zero : bool
            Whether the contact's tangential speed / normal velocity counts as zero (Table III):
            the normal sign row of ``S`` applies only when ``n_zero``, the tangential rows of the
            side and vertex letters only when ``t_zero``.
        slip : array_like, optional
            ``(2,)`` the unit slip direction ``v̂ = v_t / |v_t|`` in ``(t1, t2)`` components:
            needed by ``D``, checked when given to another letter, unused by it.

        Returns
        -------
        ContactRows
            Components ``0, 1, 2`` = ``t1, t2, n``; force rows ``(c_t1, c_t2, c_n)``; tangential
            acceleration rows of the side and vertex letters in ``accel_eq_dirs`` and
            ``accel_geq_dirs``. ``S``: ``f = 0``; ``ẍ_n >= 0`` if ``n_zero``. ``F``: ``ẍ = 0``;
            every side's row ``ρ μ f_n − n_j · f_t >= 0`` and ``f_n >= 0``. Side ``j``: ``ẍ_n =
            0``; ``n_j · f_t − ρ μ f_n = 0``, the other sides' rows and ``f_n >= 0``; ``d_j · ẍ_t
            = 0`` and ``−n_j · ẍ_t >= 0`` if ``t_zero``. Vertex ``j``: ``ẍ_n = 0``; sides ``j``
            and ``j + 1`` with equality, the others' rows and ``f_n >= 0``; ``−d_j · ẍ_t >= 0``
            and ``d_{j+1} · ẍ_t >= 0`` if ``t_zero``. ``D`` (``sliding = "exact"``): ``ẍ_n =
            0``; ``f_t1 + μ v̂_1 f_n = 0``, ``f_t2 + μ v̂_2 f_n = 0``, ``f_n >= 0``. A sliding
            contact under ``"polygon"`` has its side or vertex letter's rows with ``t_zero``
            false.

        Raises
        ------
        ContactModelError
            For a letter not in ``letters`` (``"mode letter: …"``), ``D`` without ``slip``, or a
            ``slip`` that is not a unit 2-vector within ``SLIP_UNIT_ATOL``
            (``contactmodes.tolerances``; ``"slip: …"``).
        """
        if not isinstance(letter, str) or len(letter) != 1 or letter not in self.letters:
            raise ContactModelError(f"mode letter: expected one of '{self.letters}', got {letter!r}")
        v = None if slip is None else _unit_slip(slip)
        if letter != "D":
            return _rows(self.sides, self.polygon, letter, float(mu), bool(t_zero), bool(n_zero))
        if v is None:
            raise ContactModelError("slip: mode 'D' needs the unit slip direction (t1, t2), got None")
        mu = float(mu)
        return ContactRows((N,), (), _clean(((1.0, 0.0, mu * v[0]), (0.0, 1.0, mu * v[1]))), ((0.0, 0.0, 1.0),))

    def allowed(self, n_zero: bool, t_zero: bool) -> str:
        """The letters Table III (generalized) allows a contact, in ``letters`` order.

        The planar ``allowed`` takes the tangential velocity's sign; here the direction of a
        sliding contact goes to ``rows`` (``slip``) and only whether it slides matters.

        Parameters
        ----------
        n_zero : bool
            The normal velocity counts as zero (else the contact separates: ``"S"``).
        t_zero : bool
            The tangential speed ``|v_t|`` is within its threshold ``v0``.

        Returns
        -------
        str
            ``"S"``; ``"SD"`` (normally at rest, sliding; under ``"polygon"`` ``"S"`` with every
            side and vertex letter, of which ``velocity_class`` keeps the slip direction's); or
            ``"SF"`` with the side and vertex letters (at rest, ``2 + 2 n_f`` letters).
        """
        return self.table_iii[(bool(n_zero), bool(t_zero))]

    def velocity_class(self, v: ArrayLike, eps: float) -> VelocityClass:
        """Table III (generalized) for one contact: its allowed letters and ``rows`` arguments.

        Parameters
        ----------
        v : array_like
            ``(v_t1, v_t2, v_n)``: the contact's velocity components (the system's units).
        eps : float
            The threshold ``ε`` (same units, ``>= 0``; ``classify_arrays`` of
            ``contactmodes.modes.contact_conditions`` takes ``max(v0, VELOCITY_RTOL · V)``).

        Returns
        -------
        VelocityClass
            ``n_zero = |v_n| <= ε``; ``t_zero = |v_t| <= ε`` with ``|v_t| = hypot(v_t1, v_t2)``
            (the tangential *speed*: the threshold is a disk, not a square, so it does not depend
            on the orientation of ``t1``); ``allowed = allowed(n_zero, t_zero)``, except a sliding
            contact (``n_zero``, not ``t_zero``) under ``sliding = "polygon"``: ``"S"`` and
            ``slip_letter(v_t, eps)``; ``normal = v_n``; ``row_args = (t_zero, n_zero, slip)``
            with ``slip = v_t / |v_t|`` when ``t_zero`` is false (the direction ``D``'s friction
            opposes), else ``None``.
        """
        vt1, vt2, vn = (float(x) for x in np.asarray(v, dtype=float).reshape(3))
        speed = math.hypot(vt1, vt2)
        t_zero, n_zero = speed <= eps, abs(vn) <= eps
        slip = None if t_zero else (vt1 / speed, vt2 / speed)
        allowed = self.table_iii[(n_zero, t_zero)]
        if n_zero and not t_zero and self.sliding == "polygon":
            allowed = "S" + self.slip_letter((vt1, vt2), eps)
        return VelocityClass(allowed, t_zero, n_zero, vn, (t_zero, n_zero, slip))

    def relaxed_rows(self, allowed: str, n_zero: bool) -> tuple[tuple[int, float], ...]:
        """Acceleration rows common to every letter in ``allowed`` for a contact (non-strict).

        As ``PlanarPointContact.relaxed_rows``: with a zero normal velocity every letter has
        ``ẍ_n >= 0`` (``S``: inequality; the others: equality); otherwise only ``S`` is allowed
        and nothing is common.

        Parameters
        ----------
        allowed : str
            The letters Table III allows the contact; empty: none.
        n_zero : bool
            Whether its normal velocity counts as zero.

        Returns
        -------
        tuple[tuple[int, float], ...]
            ``((2, 1.0),)`` (``ẍ_n >= 0``) when ``n_zero`` and ``allowed`` is not empty, else ``()``.
        """
        return ((N, 1.0),) if n_zero and allowed else ()

    # ---------------------------------------------------------------- impact (Johnson thesis Sec. 5.1.2)

    def impact_letters(self, in_scope: bool, frictionless: bool) -> str:
        """The outcome letters an impact enumerates for one contact (module docstring, *Impact*).

        Parameters
        ----------
        in_scope : bool
            The contact approaches or touches (``contactmodes.impact.scope``).
        frictionless : bool
            Its ``μ`` is 0: the polygon is a point and every kept letter has the same rows (the
            normal row, ``normal_row_rows``), so ``F`` stands for all of them and the outcome is
            renamed after the post-impact velocity (``frictionless_letter``).

        Returns
        -------
        str
            ``"S"`` out of scope; ``"SF"`` frictionless; else ``"SF"``, the side letters and the
            vertex letters (``2 + 2 n_f``; not ``D``: the post-impact slip direction is unknown).
        """
        if not in_scope:
            return "S"
        return "SF" if frictionless else self.table_iii[(True, True)]

    impact_guarded_letters = "F"
    """The letters whose cone rows a pseudo-impulse may impose on ``P + δ_t f`` instead of ``P``
    (``contactmodes.impact.equations``): ``F``, whose post-impact velocity is zero. The side and
    vertex letters slide after the impact and keep their rows on ``P``."""

    def impact_rows(self, letter: str, mu: float, in_scope: bool) -> ContactRows:
        """The rows of one contact in an impact outcome (module docstring, *Impact*): the
        letter's rows on the post-impact velocity ``J q̇⁺`` and the impulse ``P``, every velocity
        row present (the post-impact velocity is the unknown).

        Parameters
        ----------
        letter : str
            One of ``impact_letters(True, False)`` (``S``, ``F``, a side or vertex letter).
        mu : float
            The contact's friction coefficient (``>= 0``).
        in_scope : bool
            The contact approaches or touches; a separating contact takes ``S`` with no velocity
            row.

        Returns
        -------
        ContactRows
            ``rows(letter, mu, True, True)`` in scope (side ``j``: ``v⁺_n = 0``, ``P`` on side
            ``j``, ``d_j · v⁺_t = 0`` and ``−n_j · v⁺_t >= 0``; vertex ``j``: ``P`` at the vertex,
            ``−v⁺_t`` in its normal cone; ``F``: ``v⁺ = 0``, ``P`` in the polyhedral cone; ``S``:
            ``P = 0``, ``v⁺_n >= 0``), ``rows("S", mu, False, False)`` out of scope; a kept
            frictionless contact (``μ = 0``) has ``normal_row_rows()``.

        Raises
        ------
        ContactModelError
            For ``D`` or a letter not in ``letters`` (``"impact letter: …"``), or a letter other
            than ``S`` out of scope.
        """
        if not isinstance(letter, str) or len(letter) != 1 or letter not in self.impact_letters(True, False):
            raise ContactModelError(f"impact letter: expected one of '{self.impact_letters(True, False)}' (an "
                                    f"impact's outcome has no 'D': the slip direction after it is unknown), "
                                    f"got {letter!r}")
        if not in_scope:
            if letter != "S":
                raise ContactModelError(f"impact letter: a separating contact is 'S', got {letter!r}")
            return self.rows("S", mu, False, False)
        if float(mu) == 0.0 and letter in self.kept_letters:
            return self.normal_row_rows()
        return self.rows(letter, mu, True, True)

    def normal_row_rows(self) -> ContactRows:
        """A contact kept by its normal row alone: ``v_n = 0``, ``P_t1 = P_t2 = 0``, ``P_n >= 0``,
        the tangential motion free — ``D``'s rows at ``μ = 0`` (a frictionless kept contact; the
        impact's release test of thesis eq. 29, ``contactmodes.impact.equations``).

        Returns
        -------
        ContactRows
            ``accel_eq = (2,)``, ``force_eq = ((1, 0, 0), (0, 1, 0))``, ``force_geq = ((0, 0, 1),)``.
        """
        return self.rows("D", 0.0, False, True, slip=(1.0, 0.0))

    def frictionless_letter(self, v: ArrayLike, eps: float) -> str:
        """The letter a kept frictionless contact (enumerated ``F``) is reported under, after its
        post-impact velocity.

        Parameters
        ----------
        v : array_like
            ``(v_t1, v_t2, v_n)``: the contact's post-impact velocity (the system's units).
        eps : float
            Its Table III threshold (same units).

        Returns
        -------
        str
            ``"D"`` (sliding, the letter ``velocity_class`` then allows with ``S``) when the
            tangential speed ``hypot(v_t1, v_t2)`` exceeds ``ε``, else ``"F"``.
        """
        vt1, vt2 = (float(x) for x in np.asarray(v, dtype=float).reshape(3)[:2])
        return "D" if math.hypot(vt1, vt2) > eps else "F"


def spatial_point_contact(sides: int = 4, polygon: str = "circumscribed", sliding: str = "exact") -> SpatialPointContact:
    """The spatial point contact with a friction polygon of ``sides`` sides (module docstring).

    Parameters
    ----------
    sides : int, optional
        ``n_f``, from 3 to 20 (default 4).
    polygon : str, optional
        ``"circumscribed"`` (default) or ``"inscribed"``.
    sliding : str, optional
        A sliding contact's friction: ``"exact"`` (default, ``D``) or ``"polygon"``.

    Returns
    -------
    SpatialPointContact
        The contact model (immutable, hashable).

    Raises
    ------
    ContactModelError
        For ``sides``, ``polygon`` or ``sliding`` outside their ranges (``"friction.sides: …"``,
        ``"friction.polygon: …"``, ``"friction.sliding: …"``).
    """
    return SpatialPointContact(sides, polygon, sliding)
