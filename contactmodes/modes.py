"""Enumeration of kinematically feasible contact modes (flipping paper, Sec. III-F).

A system mode is a string with one letter per contact, in contact order, from ``"FSLR"``
(``docs/conventions.md``): ``S`` separating, ``F`` fixed, ``L`` sliding in ``−t``, ``R`` sliding
in ``+t``.

Two eliminations are applied:

* **Local, by velocity** (Table III, :func:`velocity_allowed`). With the per-contact zero
  threshold ``ε_i = max(VELOCITY_RTOL · max(1, max_j |ẋ_j|), v0_i)`` (:func:`zero_threshold`):

  - ``v_n < −ε_i``: approaching contact — :class:`~contactmodes.errors.ApproachingContactError`;
  - ``v_n > ε_i``: ``S`` only;
  - ``|v_n| <= ε_i`` and ``v_t > ε_i``: ``S, R``; ``v_t < −ε_i``: ``S, L``;
  - ``|v_n| <= ε_i`` and ``|v_t| <= ε_i``: ``F, S, L, R``.

  The same threshold ``ε_i`` (which includes ``v0_i``) decides "zero" for the normal *and* the
  tangential component, so with ``v0_i > 0`` a contact whose velocity is within ``v0_i`` of zero
  is never pruned (Sec. IV-C.3), and a normal velocity must be below ``−v0_i`` to be an error.
  The same classification (:func:`velocity_is_zero`) decides, everywhere in the package, which
  acceleration constraints of Tables I–II apply.

* **Global, by acceleration** (:func:`acceleration_feasible`): an LP in ``q̈`` alone on the
  contact-acceleration rows ``ẍ = J q̈ + J̇ q̇`` of eqs. (7) and (9), the inequalities of ``S``,
  ``L``, ``R`` taken *strict* (footnote 5: the zero-acceleration case belongs to ``F``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from polytopes import lp

from . import tolerances
from .errors import ApproachingContactError, ContactModelError
from .system import ContactSystem

MODE_LETTERS = "FSLR"
"""Per-contact mode letters, in the fixed enumeration order."""


def zero_threshold(system: ContactSystem) -> np.ndarray:
    """Per-contact threshold ``ε_i`` below which a contact velocity component counts as zero.

    ``ε_i = max(VELOCITY_RTOL · max(1, max_j |ẋ_j|), v0_i)``, shape ``(k,)``.
    """
    v = np.asarray(system.v_contact, dtype=float)
    scale = max(1.0, float(np.abs(v).max(initial=0.0)))
    return np.maximum(tolerances.VELOCITY_RTOL * scale, np.asarray(system.v0, dtype=float))


def velocity_is_zero(system: ContactSystem) -> tuple[np.ndarray, np.ndarray]:
    """Boolean arrays ``(tangential_zero, normal_zero)``, each ``(k,)``: ``|v| <= ε_i``."""
    eps = zero_threshold(system)
    v = np.asarray(system.v_contact, dtype=float).reshape(-1, 2)
    return np.abs(v[:, 0]) <= eps, np.abs(v[:, 1]) <= eps


def check_not_approaching(system: ContactSystem) -> None:
    """Raise :class:`ApproachingContactError` naming the first contact with ``v_n < −ε_i``."""
    eps = zero_threshold(system)
    v = np.asarray(system.v_contact, dtype=float).reshape(-1, 2)
    for i in range(system.k):
        if v[i, 1] < -eps[i]:
            raise ApproachingContactError(
                f"contact {i} ({system.contacts[i]}): approaching, normal velocity {v[i, 1]:g} m/s < "
                f"-{eps[i]:g}; the rigid model without an impact law has no solution at this state"
            )


def velocity_allowed(system: ContactSystem) -> list[str]:
    """Per contact, the letters allowed by Table III, in ``"FSLR"`` order (e.g. ``"SR"``).

    Raises :class:`ApproachingContactError` for an approaching contact (see the module docstring
    for the exact rule).
    """
    check_not_approaching(system)
    eps = zero_threshold(system)
    v = np.asarray(system.v_contact, dtype=float).reshape(-1, 2)
    allowed: list[str] = []
    for i in range(system.k):
        vt, vn = v[i]
        if vn > eps[i]:
            allowed.append("S")
        elif vt > eps[i]:
            allowed.append("SR")
        elif vt < -eps[i]:
            allowed.append("SL")
        else:
            allowed.append("FSLR")
    return allowed


def validate_mode(system: ContactSystem, mode: str, where: str = "mode") -> str:
    """Return ``mode`` if it is a string of ``k`` letters from ``"SLRF"``; else raise naming ``where``."""
    if not isinstance(mode, str) or len(mode) != system.k or any(c not in MODE_LETTERS for c in mode):
        raise ContactModelError(
            f"{where}: {mode!r} is not a contact mode: expected {system.k} letters from 'SLRF' "
            f"(one per contact {list(system.contacts)})"
        )
    return mode


def acceleration_rows(system: ContactSystem, mode: str):
    """The contact-acceleration constraints of a mode as ``(E, e, G, g)``.

    Equalities ``E q̈ = e`` (eq. 7: ``F`` rows ``t`` and ``n``; ``L``/``R`` row ``n``) and
    inequalities ``G q̈ >= g`` (eq. 9: ``S`` with ``v_n ≈ 0``: ``ẍ_n >= 0``; ``L`` with ``v_t ≈ 0``:
    ``−ẍ_t >= 0``; ``R`` with ``v_t ≈ 0``: ``ẍ_t >= 0``), where ``ẍ = J q̈ + J̇ q̇``.
    """
    validate_mode(system, mode)
    J, c = system.J, system.Jdot_qdot
    t_zero, n_zero = velocity_is_zero(system)
    E, e, G, g = [], [], [], []
    for i, letter in enumerate(mode):
        it, in_ = 2 * i, 2 * i + 1
        if letter == "F":
            E += [J[it], J[in_]]
            e += [-c[it], -c[in_]]
        elif letter in "LR":
            E.append(J[in_])
            e.append(-c[in_])
            if t_zero[i]:
                sign = -1.0 if letter == "L" else 1.0
                G.append(sign * J[it])
                g.append(-sign * c[it])
        elif letter == "S" and n_zero[i]:
            G.append(J[in_])
            g.append(-c[in_])
    n_q = system.n_q
    as_mat = lambda rows: np.array(rows, dtype=float).reshape(len(rows), n_q)  # noqa: E731
    return as_mat(E), np.array(e, dtype=float), as_mat(G), np.array(g, dtype=float)


def strict_slack(system: ContactSystem, mode: str) -> float:
    """Largest ``s <= 1`` with ``E q̈ = e`` and ``G q̈ − g >= s`` (componentwise); ``-inf`` if none.

    Returns ``1.0`` when there are no inequality rows and the equalities are consistent. The
    equalities are eliminated first (least squares + null space, which is robust to redundant rows);
    the remaining LP is solved by :func:`polytopes.lp.solve`.
    """
    E, e, G, g = acceleration_rows(system, mode)
    n_q = system.n_q
    scale = max(1.0, float(np.abs(system.J).max(initial=0.0)), float(np.abs(system.Jdot_qdot).max(initial=0.0)))
    if E.shape[0]:
        q0, *_ = np.linalg.lstsq(E, e, rcond=None)
        resid = float(np.abs(E @ q0 - e).max())
        if resid > tolerances.FEASIBILITY_RTOL * scale * max(1.0, float(np.abs(q0).max(initial=0.0))):
            return -np.inf
        _, sv, Vt = np.linalg.svd(E)
        from .response import numerical_rank  # local import: response imports this module

        r = numerical_rank(sv, E.shape)
        Z = Vt[r:].T
    else:
        q0 = np.zeros(n_q)
        Z = np.eye(n_q)
    if G.shape[0] == 0:
        return 1.0
    base = G @ q0 - g
    GZ = G @ Z
    if Z.shape[1] == 0:
        return float(min(1.0, base.min()))
    n_y = Z.shape[1]
    # variables (y, s): maximize s s.t. -GZ y + s <= base, s <= 1
    cost = np.zeros(n_y + 1)
    cost[-1] = -1.0
    A_ub = np.hstack([-GZ, np.ones((G.shape[0], 1))])
    bounds = [(None, None)] * n_y + [(None, 1.0)]
    status, _, fun = lp.solve(cost, A_ub, base, bounds=bounds)
    if status != lp.OPTIMAL:  # pragma: no cover - bounded (s <= 1) and feasible (s -> -inf) by construction
        raise RuntimeError(f"acceleration LP failed for mode {mode!r} (status {status})")
    return float(-fun)


def acceleration_feasible(system: ContactSystem, mode: str) -> bool:
    """Kinematic feasibility of ``mode`` (Sec. III-F with footnote 5).

    ``True`` iff some ``q̈`` satisfies the equalities of eq. (7) and the inequalities of eq. (9)
    *strictly*: the maximal common slack ``s`` (capped at 1) exceeds
    ``STRICT_MARGIN · max(1, max|J|, max|J̇q̇|)``. Only contacts whose velocity is zero in the
    relevant direction (:func:`velocity_is_zero`) contribute inequality rows; the equalities of
    ``F`` (both rows) and ``L``/``R`` (normal row) are imposed whatever the velocity (a mode that
    Table III excludes is never passed here by :func:`enumerate_modes`).
    """
    scale = max(1.0, float(np.abs(system.J).max(initial=0.0)), float(np.abs(system.Jdot_qdot).max(initial=0.0)))
    return strict_slack(system, mode) > tolerances.STRICT_MARGIN * scale


@dataclass
class Enumeration:
    """Result of :func:`enumerate_modes`.

    Attributes
    ----------
    total : ``4**k``.
    after_velocity : number of modes allowed by Table III.
    after_acceleration : number of those that are also kinematically feasible (footnote 5).
    modes : the surviving modes, in product order over ``"FSLR"`` (first contact slowest).
    graph : :class:`networkx.Graph` on ``modes``; an edge joins two modes differing at exactly
        one contact.
    allowed : per contact, the Table III letters (``velocity_allowed``).
    """

    total: int
    after_velocity: int
    after_acceleration: int
    modes: list[str]
    graph: nx.Graph = field(repr=False)
    allowed: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """``{"total", "after_velocity", "after_acceleration", "modes", "allowed"}``."""
        return {
            "total": self.total,
            "after_velocity": self.after_velocity,
            "after_acceleration": self.after_acceleration,
            "modes": list(self.modes),
            "allowed": list(self.allowed),
        }


def all_modes(k: int) -> list[str]:
    """All ``4**k`` modes in product order over ``"FSLR"``."""
    return ["".join(p) for p in itertools.product(MODE_LETTERS, repeat=k)]


def mode_graph(modes: list[str]) -> nx.Graph:
    """Graph on ``modes`` with an edge between modes that differ at exactly one contact."""
    graph = nx.Graph()
    graph.add_nodes_from(modes)
    present = set(modes)
    for a in modes:  # neighbours by one-letter substitution: O(n k) instead of O(n² k)
        for i, letter in enumerate(a):
            for other in MODE_LETTERS:
                b = a[:i] + other + a[i + 1:]
                if other != letter and b in present:
                    graph.add_edge(a, b)
    return graph


def enumerate_modes(system: ContactSystem) -> Enumeration:
    """Kinematically feasible contact modes ``M_p`` of ``system`` (Sec. III-F).

    Iterates only over the product of the Table III letters (never materializes ``4**k`` when
    velocities restrict), then keeps the modes passing :func:`acceleration_feasible`.
    """
    allowed = velocity_allowed(system)
    after_velocity = 1
    for letters in allowed:
        after_velocity *= len(letters)
    surviving = [
        "".join(p) for p in itertools.product(*allowed) if acceleration_feasible(system, "".join(p))
    ]
    return Enumeration(
        total=4 ** system.k,
        after_velocity=after_velocity,
        after_acceleration=len(surviving),
        modes=surviving,
        graph=mode_graph(surviving),
        allowed=allowed,
    )
