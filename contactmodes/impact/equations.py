"""The linear conditions of one impact outcome as ``ModeEquations`` (thesis Sec. 5.1.2–5.1.4).

Plastic impact (thesis eq. 10 and Lemma 5.3)
--------------------------------------------
Over an impact the configuration ``q`` is fixed and the velocity jumps from ``q̇⁻`` to ``q̇⁺``.
Integrating ``M q̈ + h = S τ + Jᵀ f`` over a vanishing interval leaves only the impulsive terms:

    M (q̇⁺ − q̇⁻) = Jᵀ P,        P = (P_1, …, P_k)  (N·s in SI)

(``P_i`` the contact's components in its model's order: planar ``(P_t, P_n)``, spatial ``(P_t1,
P_t2, P_n)``)
— the continuous-time response (flipping paper eq. 24) with ``q̈ → q̇⁺``, ``f → P``,
``S τ − h → M q̇⁻`` and ``J̇ q̇ → 0``. Each contact's outcome letter adds the rows of Tables I–II
with the *velocity* ``J q̇⁺`` in place of the acceleration and every velocity row present (the
post-impact velocity is the unknown): the system's contact model's ``impact_rows``
(``ImpactData.model``; ``contactmodes.modes.contact_model.PLANAR_POINT`` in the plane), the same
table as the modes'. Nothing here knows how many components a contact has. The planar letters:

* ``F``: ``J_t q̇⁺ = 0``, ``J_n q̇⁺ = 0``; ``μ P_n ∓ P_t >= 0``, ``P_n >= 0`` (thesis eq. 28);
* ``L``: ``J_n q̇⁺ = 0``, ``P_t = μ P_n``, ``P_n >= 0``, ``−J_t q̇⁺ >= 0`` (non-strict);
* ``R``: ``J_n q̇⁺ = 0``, ``P_t = −μ P_n``, ``P_n >= 0``, ``J_t q̇⁺ >= 0``;
* ``S``: ``P = 0``, ``J_n q̇⁺ >= 0`` (thesis eq. 31, non-strict);

and the spatial point contact's (``contactmodes.modes.spatial_contact``, its *Impact*) ``S``,
``F``, the side letters (``P`` on a side of the friction polygon, ``v⁺_t`` along the side's
inward normal) and the vertex letters (``P`` at a vertex, ``−v⁺_t`` in its normal cone): the
same maximum-dissipation rows as its acceleration letters, direction rows included.

A separating contact (outside the scope) is ``S`` with ``P = 0`` and no velocity row; a kept
frictionless contact has the normal row alone (``J_n q̇⁺ = 0``, ``P_t = 0``, ``P_n >= 0``: the
model's ``normal_row_rows``). Solving these equalities by SVD
(``contactmodes.modes.response.response_from_equations``) gives ``q̇⁺`` and ``P`` affine in the
ambiguity variables ``w`` — singular ``M`` (massless links) included, exactly as for modes (the
block matrix of thesis eq. 2 is never inverted).

Energy. With ``Δ = q̇⁺ − q̇⁻`` and ``M Δ = Jᵀ P``, the kinetic energy lost is

    ½ q̇⁻ᵀ M q̇⁻ − ½ q̇⁺ᵀ M q̇⁺ = ½ Δᵀ M Δ − (J q̇⁺)ᵀ P,

and ``(J q̇⁺)ᵀ P`` vanishes on a sticking, a released and a frictionless contact and is
``v_t⁺ P_t = −μ P_n |v_t⁺|`` on a sliding one (spatial: ``−λ ρ μ P_n`` on a side, ``−(λ_j +
λ_{j+1}) ρ μ P_n`` at a vertex): every outcome whose sliding contacts have ``P_n >= 0`` loses
energy.

Pseudo-impulse (thesis Sec. 5.1.4, eqs. 38–40), derived here
-----------------------------------------------------------
Let the impact last a short time ``δ_t``. Besides the impulse ``P`` the contacts then transmit the
impulse of the non-impulsive forces, ``∫ f dt ≈ δ_t f``, where ``f`` is the contact force that
holds the *kept* contacts of the outcome during that interval. To first order in the impact speed
(velocity products ``C q̇ q̇`` and ``J̇ q̇`` are of second order, and are not defined across the
jump) ``f`` is the continuous-time contact force of the outcome's mode at rest:

    M q̈ − Jᵀ f = S τ − h(q, 0),   J_row q̈ = 0 (kept rows),   force rows of the letters,

that is the thesis's ``P_δ = A_J^† (Υ − N̄) δ_t`` (eq. 39) with the centripetal terms dropped
(eq. 39 keeps ``C̄ q̇⁻`` and drops ``Ȧ q̇``, which depends on the coordinates chosen; at rest
both vanish). ``f`` is affine in the torques, so each outcome's consistency becomes a torque set;
the torques act during ``δ_t`` and are limited to the *torque box* ``lo <= τ <= hi`` when one is
given (rows of the inequalities). The pseudo-impulse is "not directly applied to the system …
instead used as an extra guard condition" (thesis, before eq. 40): ``q̇⁺`` and ``P`` are those of
the plastic impact whatever ``δ_t`` and ``τ``; the guards are

* a *sticking* contact (``F``, and a kept frictionless contact: the model's
  ``impact_guarded_letters``, a per-contact property) needs its cone rows for ``P``
  **or** for ``P + δ_t f`` ("the pseudo-impulse should not break contacts that would otherwise
  persist"); each choice per such contact is one *variant*, and the outcome's torque set is the
  union of the variants' projections. Its post-impact velocity is zero (or, frictionless, its
  impulse has no tangential part): a negative ``P_n`` there does no work, and the impulse the
  contact transmits over ``δ_t``, ``P + δ_t f``, is inside its cone;
* a *sliding* contact with friction (``L``, ``R``) keeps its rows on ``P`` alone (``P_n >= 0``).
  The thesis has no such contact (its Assumption 5.9: a sliding contact has no kinetic
  friction); with Coulomb friction on the instantaneous impulse, ``P_t = ±μ P_n`` with ``P_n < 0``
  would push the contact along its sliding and add ``μ |P_n| |v_t⁺|`` of kinetic energy that no
  force supplies (``q̇⁺`` does not depend on the torques): a landing biped would leave with its
  feet sliding at 31 m/s and 36 times its kinetic energy (``/work/shared/cases/biped_land.toml``);
* a touching contact released (``S``; it existed before the impact) needs, besides
  ``J_n q̇⁺ >= 0``, the impulse-only release test of eq. (29) with the pseudo-impulse:
  ``P_K,n + δ_t f_K,n <= 0`` where ``K`` is the outcome with this contact kept by its normal row
  only (``normal_row_rows``, for ``q̇_K`` and ``P_K`` and likewise for ``f_K``; the row is that
  contact's ``normal_row_rows().force_geq`` reversed). At ``δ_t = 0``
  the test is implied by ``J_n q̇⁺ >= 0`` (thesis Theorem 5.6), so it is only added for
  ``δ_t > 0``.

So with a pseudo-impulse, as without, every consistent outcome loses kinetic energy (the
identity above), at every torque of its set; the torques decide only which contacts persist.

Checked on the rocking block of thesis Fig. 5.4 (``tests/contactmodes/impact``): the impulse
at the pivot corner when the other corner lands with both sticking is
``P_1n = ż (m (w² − h²)/2 − 2 I)/w²`` (``ż`` the centre of mass's downward speed) — the printed
eq. (41) has ``+2 I``, and eqs. (42), (44) inherit the sign — and with ``δ_t f_1n = δ_t m g/2``
the block comes to rest below ``ż = δ_t m g w² / (m (h² − w²) + 4 I)`` = 6.31 cm/s for
``h = 10 cm``, ``w = 5 cm``, ``δ_t = 0.03 s``: the 6.3 cm/s of Fig. 5.5.

Variables and blocks
--------------------
``x = [q̇⁺; P]`` (``δ_t = 0``), then ``[a; f]`` (the pseudo block, only in a variant that imposes
some cone on ``P + δ_t f``: a variant that reads no ``f`` does not depend on the torques, even
where the continuous-time problem admits only some of them, eq. 31 of the flipping paper — a
massless leg in the air, say) and, per released touching contact, ``[q̇_K; P_K; a_K; f_K]``.
``ModeEquations.n_q`` is ``n_q`` (``q̇⁺`` first) and ``n_f`` the rest; ``n_τ`` is 0 at
``δ_t = 0`` (the impact does not depend on the torques).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from contactmodes.modes.constraints import ModeEquations
from contactmodes.modes.contact_model import PLANAR_POINT, ContactRows

__all__ = ["ImpactData", "guarded_contacts", "kept_contacts", "outcome_equations", "outcome_rows", "released_touching"]


@dataclass(frozen=True)
class ImpactData:
    """The arrays of one impact, in one system of units (the nondimensional one in practice).

    ``n_q`` coordinates, ``n_τ`` inputs, ``k`` contacts.

    Attributes
    ----------
    M : numpy.ndarray
        ``(n_q, n_q)`` inertia matrix (positive semi-definite).
    J : numpy.ndarray
        ``(c k, n_q)`` contact Jacobian, ``c = len(model.components)`` rows per contact in the
        model's order (planar ``(t_i, n_i)``, spatial ``(t1_i, t2_i, n_i)``).
    S : numpy.ndarray
        ``(n_q, n_τ)`` actuator map.
    h_rest : numpy.ndarray or None
        ``(n_q,)`` ``h(q, 0)``: the generalized gravity force (needed for the pseudo-impulse only).
    qdot_minus : numpy.ndarray
        ``(n_q,)`` pre-impact velocity ``q̇⁻``.
    mu : numpy.ndarray
        ``(k,)`` friction coefficients.
    in_scope : numpy.ndarray
        ``(k,)`` bool: contacts in the impact's scope (``contactmodes.impact.scope``).
    touching : numpy.ndarray
        ``(k,)`` bool: contacts in scope that existed before the impact.
    contacts : tuple[str, ...]
        Contact names (row labels).
    tau_lo, tau_hi : numpy.ndarray or None
        ``(n_τ,)`` the torque box of the pseudo-impulse (``-inf``/``inf`` for an open end), or
        ``None`` for none (every torque).
    torques : tuple[str, ...]
        Torque names (row labels); empty without actuators.
    model : object
        The contact model every contact shares (``ContactSystem.contact_model``; default the
        planar point contact): its components and impact rows.
    """

    M: np.ndarray
    J: np.ndarray
    S: np.ndarray
    h_rest: np.ndarray | None
    qdot_minus: np.ndarray
    mu: np.ndarray
    in_scope: np.ndarray
    touching: np.ndarray
    contacts: tuple[str, ...]
    tau_lo: np.ndarray | None = None
    tau_hi: np.ndarray | None = None
    torques: tuple[str, ...] = ()
    model: Any = PLANAR_POINT

    @property
    def n_q(self) -> int:
        return int(self.M.shape[0])

    @property
    def k(self) -> int:
        return len(self.contacts)

    @property
    def n_tau(self) -> int:
        return int(self.S.shape[1])

    @property
    def c(self) -> int:
        """Components per contact (``len(model.components)``)."""
        return len(self.model.components)


def kept_contacts(outcome: str, model: Any = PLANAR_POINT) -> list[int]:
    """Indices of the contacts ``outcome`` keeps (the model's ``kept_letters``: planar ``F``,
    ``L``, ``R``).

    Parameters
    ----------
    outcome : str
        The outcome, one letter per contact.
    model : object, optional
        The contact model (default the planar point contact).

    Returns
    -------
    list[int]
        Contact indices, in order.
    """
    return [i for i, c in enumerate(outcome) if c in model.kept_letters]


def guarded_contacts(outcome: str, model: Any = PLANAR_POINT) -> list[int]:
    """Indices of the contacts whose cone rows may hold for ``P + δ_t f`` instead of ``P`` (the
    pseudo-impulse's guard, eq. 40): the sticking ones (the model's ``impact_guarded_letters``,
    ``F``; a kept frictionless contact is enumerated as ``F``), whose impulse does no work (module
    docstring). Sliding contacts (planar ``L``, ``R``; spatial side and vertex letters) keep
    their rows on ``P``.

    Parameters
    ----------
    outcome : str
        The outcome, one letter per contact.
    model : object, optional
        The contact model (default the planar point contact).

    Returns
    -------
    list[int]
        Contact indices, in order.
    """
    return [i for i, c in enumerate(outcome) if c in model.impact_guarded_letters]


def released_touching(data: ImpactData, outcome: str) -> list[int]:
    """Indices of the touching contacts ``outcome`` releases (their eq. 29 test, ``δ_t > 0``).

    Parameters
    ----------
    data : ImpactData
        The impact's arrays (its ``touching`` flags).
    outcome : str
        The outcome, one letter per contact.

    Returns
    -------
    list[int]
        Contact indices, in order.
    """
    return [i for i, c in enumerate(outcome) if c == "S" and bool(data.touching[i])]


class _Rows:
    """Rows accumulated over the full variable vector ``x`` (length ``n``) and ``τ``."""

    def __init__(self, n: int, n_tau: int) -> None:
        self.n, self.n_tau = n, n_tau
        self.A: list[np.ndarray] = []
        self.B: list[np.ndarray] = []
        self.b: list[float] = []
        self.eq_labels: list[str] = []
        self.N: list[np.ndarray] = []
        self.e: list[float] = []
        self.ineq_labels: list[str] = []

    def eq(self, coef: dict[int, np.ndarray], rhs: float, label: str, tau: np.ndarray | None = None) -> None:
        row = np.zeros(self.n)
        for off, c in coef.items():
            row[off:off + len(c)] += c
        self.A.append(row)
        self.B.append(np.zeros(self.n_tau) if tau is None else tau)
        self.b.append(float(rhs))
        self.eq_labels.append(label)

    def geq(self, coef: dict[int, np.ndarray], rhs: float, label: str) -> None:
        row = np.zeros(self.n + self.n_tau)
        for off, c in coef.items():
            row[off:off + len(c)] += c
        self.N.append(row)
        self.e.append(float(rhs))
        self.ineq_labels.append(label)


def outcome_rows(data: ImpactData, outcome: str) -> list[ContactRows]:
    """Per contact, the rows of its letter in ``outcome`` (``data.model.impact_rows``: every
    velocity row in scope, none outside it, the normal row alone for a kept frictionless
    contact).

    Parameters
    ----------
    data : ImpactData
        The impact's arrays (its ``mu`` and ``in_scope``).
    outcome : str
        The outcome, one letter per contact.

    Returns
    -------
    list[ContactRows]
        One per contact, in contact order.

    Raises
    ------
    ContactModelError
        For a letter that is not one of the model's impact letters, or a letter other than ``S``
        on a contact out of scope.
    """
    model = data.model
    return [model.impact_rows(c, float(data.mu[i]), bool(data.in_scope[i])) for i, c in enumerate(outcome)]


def _combination(coef, names, symbol: str = "") -> str:
    """A row's label ``1 t + -0.5 n`` (coefficients by component name, ``symbol`` prefixed to
    each name: ``1 v_t1 + 0 v_t2 + 0 v_n``)."""
    return " + ".join(f"{a:g} {symbol}{name}" for a, name in zip(coef, names))


def _equality_block(rows: _Rows, data: ImpactData, contact_rows: list[ContactRows], v: int, p: int, tag: str,
                    continuous: bool) -> None:
    """Equalities of one block: the contacts' rows ``contact_rows`` on the velocity-like unknowns
    at offset ``v`` and the impulse-like ones at ``p``, then the impulse balance (``continuous``
    false: ``M v − Jᵀ P = M q̇⁻``) or the rest dynamics (true: ``M a − Jᵀ f = S τ − h(q, 0)``)."""
    J, n_q, nc = data.J, data.n_q, data.c
    what = ("accel", "force") if continuous else ("velocity", "impulse")
    comp = data.model.components
    for i, r in enumerate(contact_rows):
        Ji = J[nc * i:nc * i + nc]
        for c in r.accel_eq:
            rows.eq({v: J[nc * i + c]}, 0.0, f"{tag}{what[0]} {comp[c]} {data.contacts[i]}")
        for a in r.accel_eq_dirs:
            rows.eq({v: np.asarray(a, dtype=float) @ Ji}, 0.0,
                    f"{tag}{what[0]} ({_combination(a, comp, what[0][0] + '_')} = 0) {data.contacts[i]}")
        for a in r.force_eq:
            rows.eq({p + nc * i: np.asarray(a, dtype=float)}, 0.0,
                    f"{tag}{what[1]} {data.contacts[i]} ({_combination(a, comp)} = 0)")
    for j in range(n_q):
        if continuous:
            assert data.h_rest is not None
            rows.eq({v: data.M[j], p: -J[:, j]}, -data.h_rest[j], f"{tag}dynamics at rest {j}", tau=data.S[j])
        else:
            rows.eq({v: data.M[j], p: -J[:, j]}, float(data.M[j] @ data.qdot_minus), f"{tag}impulse balance {j}")


def outcome_equations(data: ImpactData, outcome: str, delta: float = 0.0,
                      pseudo: tuple[bool, ...] = ()) -> ModeEquations:
    """The ``ModeEquations`` of ``outcome`` (module docstring), in the units of ``data``.

    Parameters
    ----------
    data : ImpactData
        The impact's arrays (``n_q`` coordinates, ``k`` contacts, ``n_τ`` inputs).
    outcome : str
        One of the model's impact letters per contact (planar ``"FSLR"``); ``"S"`` for every
        contact out of scope.
    delta : float, optional
        The pseudo-impulse duration ``δ_t`` (time units of ``data``), ``>= 0``. At 0 the
        equations have no torque column (``n_τ = 0``); above, they carry the torque box of
        ``data`` (if any) as inequality rows.
    pseudo : tuple[bool, ...], optional
        Per guarded contact (``guarded_contacts`` order: the sticking ones), whether its cone
        rows are imposed on ``P + δ_t f`` (the variant) instead of ``P``. Default: none. Ignored
        at ``δ_t = 0``.

    Returns
    -------
    ModeEquations
        ``A x = B τ + b`` and ``N [x; τ] >= e`` with ``x = [q̇⁺; P; …]`` (module docstring);
        ``n_q = n_q``, ``n_f = len(x) − n_q``.

    Raises
    ------
    ValueError
        When ``pseudo`` does not have one flag per guarded contact, or ``δ_t > 0`` without
        ``data.h_rest``.
    """
    n_q, k, nc, model = data.n_q, data.k, data.c, data.model
    width = n_q + nc * k
    guarded = guarded_contacts(outcome, model)
    with_pseudo = delta > 0.0
    if with_pseudo:
        if data.h_rest is None:
            raise ValueError("a pseudo-impulse needs h(q, 0) (ImpactData.h_rest)")
        pseudo = tuple(pseudo) if pseudo else (False,) * len(guarded)
        if len(pseudo) != len(guarded):
            raise ValueError(f"pseudo: expected {len(guarded)} flags (one per sticking contact), got {len(pseudo)}")
    released = released_touching(data, outcome) if with_pseudo else []
    block = with_pseudo and any(pseudo)  # the pseudo block [a; f] only where a guard reads f
    n_blocks = 1 + int(block) + 2 * len(released)
    n = n_blocks * width
    n_tau = data.n_tau if with_pseudo else 0
    rows = _Rows(n, n_tau)
    letter_rows = outcome_rows(data, outcome)
    _equality_block(rows, data, letter_rows, 0, n_q, "", continuous=False)
    f0 = width
    if block:
        _equality_block(rows, data, letter_rows, f0, f0 + n_q, "pseudo ", continuous=True)
    alt = []
    for r, i in enumerate(released):
        base = (1 + int(block) + 2 * r) * width
        kept_rows = letter_rows[:i] + [model.normal_row_rows()] + letter_rows[i + 1:]
        tag = f"kept {data.contacts[i]}: "
        _equality_block(rows, data, kept_rows, base, base + n_q, tag, continuous=False)
        _equality_block(rows, data, kept_rows, base + width, base + width + n_q, tag + "pseudo ", continuous=True)
        alt.append((i, base))
    # inequalities: velocity rows, then the cone rows (variant), then the eq. 29 release tests, the box
    J, comp = data.J, model.components
    for i, contact_rows in enumerate(letter_rows):
        for c, sign in contact_rows.accel_geq:
            rows.geq({0: sign * J[nc * i + c]}, 0.0, f"velocity {comp[c]} {data.contacts[i]} {'>=' if sign > 0 else '<='} 0")
        for a in contact_rows.accel_geq_dirs:
            rows.geq({0: np.asarray(a, dtype=float) @ J[nc * i:nc * i + nc]}, 0.0,
                     f"velocity ({_combination(a, comp, 'v_')} >= 0) {data.contacts[i]}")
    flags = dict(zip(guarded, pseudo)) if with_pseudo else {}
    for i in kept_contacts(outcome, model):
        use = block and flags.get(i, False)
        for a in letter_rows[i].force_geq:
            coef = {n_q + nc * i: np.asarray(a, dtype=float)}
            if use:
                coef[f0 + n_q + nc * i] = delta * np.asarray(a, dtype=float)
            rows.geq(coef, 0.0, f"impulse {data.contacts[i]} ({_combination(a, comp)}{' + δ_t f' if use else ''} >= 0)")
    for i, base in alt:  # eq. 29: the normal row's impulse row reversed, on P_K + δ_t f_K
        for row in model.normal_row_rows().force_geq:
            a_n = np.asarray(row, dtype=float)
            coef = {base + n_q + nc * i: -a_n, base + width + n_q + nc * i: -delta * a_n}
            rows.geq(coef, 0.0, f"release {data.contacts[i]} (P_K,n + δ_t f_K,n <= 0)")
    if with_pseudo and data.tau_lo is not None and data.tau_hi is not None:
        for j in range(n_tau):
            unit = np.zeros(n_tau)
            unit[j] = 1.0
            name = data.torques[j] if j < len(data.torques) else str(j)
            if np.isfinite(data.tau_lo[j]):
                rows.geq({n: unit}, float(data.tau_lo[j]), f"torque box {name} >= lo")
            if np.isfinite(data.tau_hi[j]):
                rows.geq({n: -unit}, -float(data.tau_hi[j]), f"torque box {name} <= hi")

    def mat(x, w):
        return np.array(x, dtype=float).reshape(len(x), w)

    return ModeEquations(mode=outcome, A=mat(rows.A, n), B=mat(rows.B, n_tau), b=np.array(rows.b, dtype=float),
                         eq_labels=rows.eq_labels, N=mat(rows.N, n + n_tau), e=np.array(rows.e, dtype=float),
                         ineq_labels=rows.ineq_labels, n_q=n_q, n_f=n - n_q, n_tau=n_tau,
                         ineq_task=np.zeros(len(rows.N), dtype=bool))
