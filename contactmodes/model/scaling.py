"""Nondimensionalization of a contact system: the one place the rule lives.

Every rank, emptiness, redundancy, containment and boundary decision of ``contactmodes`` is
taken on the *scaled* system built here (``system.scaling.system``); results are mapped back to
the user's units by exact diagonal maps. A system written in millimetres and grams therefore gives
the same modes and the same sets (mapped back) as the same system in metres and kilograms.

Rule
----
Let ``(L, m, T)`` be the system's ``CharacteristicScales`` (a mechanism
supplies its size, total mass and ``sqrt(L/a)`` with ``a`` its characteristic acceleration), and
``A = L/T²``, ``F = m A``, ``V = L/T``. Then, with primes for scaled quantities:

* contact forces ``f = F f'``, contact accelerations ``ẍ = A ẍ'``, contact velocities (and the
  thresholds ``v0``) ``v = V v'``;
* coordinate ``j``: its *effective inertia* ``e_j = M_jj + m Σ_i J_ij²`` (``m L²`` if that is 0:
  a massless coordinate without contact), ``q̈_j = s_j q̈'_j`` with ``s_j = sqrt(F A / e_j)``,
  and its dynamics row (generalized force) is divided by ``g_j = F A / s_j``. Then the scaled
  inertia matrix ``M'_jl = M_jl s_j s_l / (F A)`` is symmetric with ``|M'_jl| <= 1``, and the
  scaled contact Jacobian ``J'_ij = J_ij s_j / A`` (``|J'_ij| <= 1``) is the same matrix in the
  contact kinematics (eq. 4) and, transposed, in the dynamics (eq. 5), because ``g_j s_j = F A``;
* actuator ``k``: ``τ_k = u_k τ'_k`` with ``u_k = min_j g_j / |S_jk|`` over the coordinates it
  drives (so ``|S'_jk| <= 1``); a disturbance component (bracing) likewise from ``E``;
* constraint row ``r`` (eqs. 11–18): divided by the largest magnitude of its coefficients in the
  scaled variables.

Under a change of units every factor changes by exactly the unit's own factor, so the scaled
system — and with it every decision — is the same up to floating-point rounding (the factors are
not rounded to powers of two on purpose: that would make two unit systems differ by up to a factor
two per row or column instead of by one rounding error).

Why per coordinate: a physically tiny but not massless link has a tiny ``M_jj``; scaled by its own
effective inertia its column is of order one, so it cannot produce a fictitious null space, while
a declared massless coordinate keeps its exact zeros in ``M`` (its effective inertia comes from its
contacts only). Massless and small are separated by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from contactmodes.errors import InternalError
from polytopes import Polytope

__all__ = ["ScaledTerms", "Scaling", "UserSets", "identity_scaling", "nondimensional_scales", "nondimensionalize",
           "scale_terms", "scaled_system_fields"]

if TYPE_CHECKING:  # the scaled system is built from the given one's own types: no import cycle
    from contactmodes.model.system import CharacteristicScales, ContactSystem


@dataclass(frozen=True)
class Scaling:
    """Diagonal scalings between a system and its nondimensional form (module docstring).

    User value = factor × scaled value.

    Attributes
    ----------
    scales : CharacteristicScales
        The ``CharacteristicScales`` used.
    qdd : numpy.ndarray
        ``(n_q,)`` ``s_j``: unit of each generalized acceleration.
    generalized_force : numpy.ndarray
        ``(n_q,)`` ``g_j``: unit of each dynamics row (generalized force).
    force : float
        ``F``: unit of every contact-force component.
    acceleration : float
        ``A``: unit of every contact acceleration.
    velocity : float
        ``V``: unit of contact velocities and of the thresholds ``v0``.
    tau : numpy.ndarray
        ``(n_τ,)`` ``u_k``: unit of each actuator input.
    disturbance : numpy.ndarray
        ``(n_d,)`` unit of each disturbance component (empty without a disturbance).
    rows : tuple[numpy.ndarray, ...]
        Per constraint block of the system, the ``(m,)`` divisors of its rows.
    system : ContactSystem
        The scaled ``ContactSystem`` (its own ``scaling`` is the
        identity).
    """

    scales: CharacteristicScales
    qdd: np.ndarray
    generalized_force: np.ndarray
    force: float
    acceleration: float
    velocity: float
    tau: np.ndarray
    disturbance: np.ndarray
    rows: tuple[np.ndarray, ...]
    system: ContactSystem

    # ---------------------------------------------------------------- variables
    @property
    def x(self) -> np.ndarray:
        """(n_q + n_f,) units of ``[q̈; f]`` (``n_f = n_components · k``: every force component
        has the unit ``force``)."""
        return np.concatenate([self.qdd, np.full(self.system.n_f, self.force)])

    def tau_to_user(self, tau_scaled) -> np.ndarray:
        """Torques from scaled (nondimensional) to user units: ``τ = u ∘ τ'``.

        Parameters
        ----------
        tau_scaled : array_like
            Shape ``(..., n_τ)``: scaled torques.

        Returns
        -------
        numpy.ndarray
            Shape ``(..., n_τ)``: in the system's units.
        """
        return np.asarray(tau_scaled, dtype=float) * self.tau

    def tau_from_user(self, tau) -> np.ndarray:
        """Torques from user to scaled (nondimensional) units: ``τ' = τ / u``.

        Parameters
        ----------
        tau : array_like
            Shape ``(..., n_τ)``: torques in the system's units.

        Returns
        -------
        numpy.ndarray
            Shape ``(..., n_τ)``: nondimensional.
        """
        return np.asarray(tau, dtype=float) / self.tau

    def disturbance_from_user(self, delta) -> np.ndarray:
        """Disturbance components from user to scaled (nondimensional) units.

        Parameters
        ----------
        delta : array_like
            Shape ``(..., n_d)``: disturbance components in the system's units.

        Returns
        -------
        numpy.ndarray
            Shape ``(..., n_d)``: nondimensional.
        """
        return np.asarray(delta, dtype=float) / self.disturbance

    def polytope_to_user(self, P: Polytope, n_extra: int = 0) -> Polytope:
        """A polytope over ``(τ', z)`` as a polytope over ``(τ, z)`` in user units.

        ``z`` (``n_extra`` trailing coordinates, e.g. the ambiguity variables ``w``) is left as it is. A
        new object (its LP caches cold); an analysis converts through its ``UserSets``
        (``contactmodes.analysis.session.AnalysisSession.to_user``), once per scaled object.

        Parameters
        ----------
        P : Polytope
            Over ``n_τ + n_extra`` coordinates, the torques nondimensional.
        n_extra : int, optional
            Number of trailing coordinates that are not torques.

        Returns
        -------
        Polytope
            The same set with the torque coordinates in the system's units.
        """
        d = np.concatenate([self.tau, np.ones(n_extra)])
        return Polytope(P.A / d, P.b, P.C / d, P.d)

    def polytope_from_user(self, P: Polytope, n_extra: int = 0) -> Polytope:
        """Inverse of ``polytope_to_user``: a polytope over ``(τ, z)`` in user units as one over ``(τ', z)``.

        Parameters
        ----------
        P : Polytope
            Over ``n_τ + n_extra`` coordinates, the torques in the system's units.
        n_extra : int, optional
            Number of trailing coordinates that are not torques.

        Returns
        -------
        Polytope
            The same set with the torque coordinates nondimensional.
        """
        d = np.concatenate([self.tau, np.ones(n_extra)])
        return Polytope(P.A * d, P.b, P.C * d, P.d)

    @property
    def is_identity(self) -> bool:
        """Whether every factor is 1 (the scaling of an already scaled system)."""
        return bool(np.all(self.qdd == 1.0) and np.all(self.tau == 1.0) and self.force == 1.0
                    and self.acceleration == 1.0 and self.velocity == 1.0
                    and np.all(self.generalized_force == 1.0)
                    and all(np.all(r == 1.0) for r in self.rows) and np.all(self.disturbance == 1.0))


class UserSets:
    """The user-unit copies of one analysis's scaled polytopes: each scaled object is converted
    once (``Scaling.polytope_to_user``) and the same copy — with its emptiness, hull and LP
    caches — is returned on every later call.

    A set over ``(τ', z)`` keeps its trailing ``z`` (e.g. the ambiguity variables ``w``) as they
    are: ``z`` is what its dimension has beyond the ``n_τ`` torques of ``scaling``. Keyed by the
    object's identity (a ``Polytope`` is immutable and has no weak references):
    the scaled object is kept alive with its copy, so its ``id`` cannot be reused meanwhile.

    Parameters
    ----------
    scaling : Scaling
        The analysis's scaling (its torque units ``u``).
    """

    def __init__(self, scaling: Scaling) -> None:
        self.scaling = scaling
        self._copies: dict[int, tuple[Polytope, Polytope]] = {}

    def __call__(self, P: Polytope) -> Polytope:
        """The user-unit copy of the scaled ``P``, converted on the first call and kept.

        Parameters
        ----------
        P : Polytope
            A scaled set over ``(τ', z)``: at least ``n_τ`` coordinates.

        Returns
        -------
        Polytope
            The same copy on every call for the same object.

        Raises
        ------
        InternalError
            When ``P`` has fewer coordinates than the scaling has torques.
        """
        entry = self._copies.get(id(P))
        if entry is None:
            n_extra = P.dim - len(self.scaling.tau)
            if n_extra < 0:
                raise InternalError(f"a set over {P.dim} coordinates is not over the {len(self.scaling.tau)} "
                                    f"torques (and trailing variables) of this scaling")
            entry = self._copies[id(P)] = (P, self.scaling.polytope_to_user(P, n_extra))
        return entry[1]

    def forget(self, P: Polytope) -> None:
        """Drop the copy of the scaled ``P`` (if any): a later call converts it again.

        Parameters
        ----------
        P : Polytope
            The scaled set whose copy is dropped.
        """
        entry = self._copies.get(id(P))
        if entry is not None and entry[0] is P:
            del self._copies[id(P)]

    def __len__(self) -> int:
        """How many scaled objects were converted."""
        return len(self._copies)


def identity_scaling(system: ContactSystem) -> Scaling:
    """The identity ``Scaling`` of an already nondimensional ``system``.

    Parameters
    ----------
    system : ContactSystem
        A nondimensional system (its ``scales`` set).

    Returns
    -------
    Scaling
        Every factor 1, ``system`` as the scaled system.
    """
    n_d = 0 if system.disturbance is None else system.disturbance.n_d
    assert system.scales is not None
    return Scaling(system.scales, np.ones(system.n_q), np.ones(system.n_q), 1.0, 1.0, 1.0,
                   np.ones(system.n_tau), np.ones(n_d),
                   tuple(np.ones(c.n_rows) for c in system.constraints), system)


def _input_units(B: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Unit of each input column of ``B`` (n_q, p): ``min_j g_j / |B_jk|`` over its nonzero rows
    (the largest unit keeping ``|B'_jk| <= 1``); 1 for an all-zero column."""
    aB = np.abs(B)
    nz = aB != 0.0
    ratio = np.where(nz, g[:, None] / np.where(nz, aB, 1.0), np.inf)  # few NumPy calls: a per-step cost
    out = ratio.min(axis=0, initial=np.inf)
    return np.where(nz.any(axis=0), out, 1.0)


class ScaledTerms(NamedTuple):
    """The scaled arrays and unit factors of one state (module docstring).

    What ``nondimensionalize`` packs into a scaled ``ContactSystem``, as plain arrays for callers
    that evaluate many states of one structure (the real-time layouts of
    ``contactmodes.realtime.plan``). User value = factor × scaled value.

    Attributes
    ----------
    qdd : numpy.ndarray
        ``(n_q,)`` ``s_j``: unit of each generalized acceleration.
    generalized_force : numpy.ndarray
        ``(n_q,)`` ``g_j``: unit of each dynamics row.
    tau : numpy.ndarray
        ``(n_τ,)`` ``u_k``: unit of each actuator input.
    force : float
        ``F``: unit of every contact-force component.
    acceleration : float
        ``A``: unit of every contact acceleration.
    velocity : float
        ``V``: unit of contact velocities and of ``v0``.
    M : numpy.ndarray
        ``(n_q, n_q)`` scaled inertia matrix (symmetric, ``|M'_jl| <= 1``).
    h : numpy.ndarray
        ``(n_q,)`` scaled bias forces ``h / g``.
    S : numpy.ndarray
        ``(n_q, n_τ)`` scaled actuation matrix.
    J : numpy.ndarray
        ``(n_f, n_q)`` scaled contact Jacobian, the contact model's component rows per contact.
    Jdot_qdot : numpy.ndarray
        ``(n_f,)`` scaled ``J̇ q̇``.
    v_contact : numpy.ndarray
        ``(n_f,)`` scaled contact velocities.
    v0 : numpy.ndarray
        ``(k,)`` scaled velocity thresholds.
    blocks : tuple
        Per constraint block, its scaled rows ``(qdd, f, tau, rhs)``.
    rows : tuple
        Per constraint block, the ``(m,)`` divisors of its rows.
    """

    qdd: np.ndarray
    generalized_force: np.ndarray
    tau: np.ndarray
    force: float
    acceleration: float
    velocity: float
    M: np.ndarray
    h: np.ndarray
    S: np.ndarray
    J: np.ndarray
    Jdot_qdot: np.ndarray
    v_contact: np.ndarray
    v0: np.ndarray
    blocks: tuple
    rows: tuple


def scale_terms(M, h, S, J, Jdot_qdot, v_contact, v0, scales: CharacteristicScales, blocks=()) -> ScaledTerms:
    """The rule of the module docstring on plain arrays.

    The one implementation of the rule: ``nondimensionalize`` calls it.

    Parameters
    ----------
    M : numpy.ndarray
        ``(n_q, n_q)`` inertia matrix, the system's units.
    h : numpy.ndarray
        ``(n_q,)`` bias forces ``C q̇ + g``.
    S : numpy.ndarray
        ``(n_q, n_τ)`` actuation matrix.
    J : numpy.ndarray
        ``(n_f, n_q)`` contact Jacobian, the contact model's component rows per contact
        (planar ``(t_i, n_i)``, eq. 3); every row is scaled alike, so any number of components.
    Jdot_qdot : numpy.ndarray
        ``(n_f,)`` ``J̇ q̇`` (eq. 4).
    v_contact : numpy.ndarray
        ``(n_f,)`` contact velocities ``J q̇``.
    v0 : array_like
        ``(k,)`` velocity thresholds.
    scales : CharacteristicScales
        The system's ``(L, m, T)`` (and the derived ``A``, ``F``, ``V``).
    blocks : Sequence[tuple], optional
        Constraint rows ``(qdd, f, tau, rhs)`` of shapes ``(r, n_q)``, ``(r, n_f)``, ``(r, n_τ)``,
        ``(r,)`` (eqs. 11–18).

    Returns
    -------
    ScaledTerms
        The scaled arrays and the unit factors.
    """
    L, m = scales.length, scales.mass
    A, F, V = scales.acceleration, scales.force, scales.velocity
    P = F * A
    e = np.diag(M) + m * np.sum(J ** 2, axis=0)
    e = np.where(e > 0.0, e, m * L * L)
    s = np.sqrt(P / e)
    g = P / s
    u = _input_units(S, g)

    Ms = M * s[None, :] / g[:, None]
    Ms = 0.5 * (Ms + Ms.T)
    rows = []
    out = []
    for qdd, f, tau, rhs in blocks:
        qdd = qdd * s[None, :]
        f = f * F
        tau = tau * u[None, :]
        mag = np.abs(np.concatenate((qdd, f, tau), axis=1)).max(axis=1, initial=0.0)
        rho = np.where(mag > 0.0, mag, np.maximum(np.abs(rhs), 1.0))
        rows.append(rho)
        out.append((qdd / rho[:, None], f / rho[:, None], tau / rho[:, None], rhs / rho))
    return ScaledTerms(s, g, u, F, A, V, Ms, h / g, S * u[None, :] / g[:, None], J * s[None, :] / A,
                       Jdot_qdot / A, v_contact / V, np.asarray(v0, dtype=float) / V, tuple(out), tuple(rows))


def nondimensional_scales(scales: CharacteristicScales) -> CharacteristicScales:
    """The characteristic scales of the scaled form of a system with ``scales``: length, mass and
    time 1, marked ``nondimensional`` (so the scaled system's own ``scaling`` is the identity,
    ``identity_scaling``).

    Parameters
    ----------
    scales : CharacteristicScales
        The system's scales.

    Returns
    -------
    CharacteristicScales
        A copy with length, mass and time 1 and ``nondimensional`` set.
    """
    return replace(scales, length=1.0, mass=1.0, time=1.0, nondimensional=True)


def scaled_system_fields(terms: ScaledTerms, constraints, scales: CharacteristicScales) -> dict:
    """The fields of the scaled ``ContactSystem`` that the scaled terms of a state determine.

    ``nondimensionalize`` builds its scaled system from them; a caller that already holds a state's
    ``ScaledTerms`` (computed by ``scale_terms``, the one rule, from the arrays of a system with these
    ``constraints`` and ``scales``) builds the same scaled system —
    ``ContactSystem(**fields, mu=…, coordinates=…, torques=…, contacts=…, name=…)`` — without building
    and nondimensionalizing the user-unit system first; an ``AnalysisSession`` of it decides on the
    same numbers (e.g. the slow path of a real-time controller whose layouts scaled the state
    already).

    Parameters
    ----------
    terms : ScaledTerms
        The scaled terms of the state.
    constraints : Sequence[LinearConstraint]
        The system's constraint blocks, in order (one per ``terms.blocks``).
    scales : CharacteristicScales
        The system's scales.

    Returns
    -------
    dict
        Keyword arguments ``M``, ``h``, ``S``, ``J``, ``Jdot_qdot``, ``v_contact``, ``v0``
        (``terms``' scaled arrays), ``constraints`` (the blocks with ``terms.blocks``' scaled rows)
        and ``scales`` (``nondimensional_scales`` of ``scales``).

    Raises
    ------
    ValueError
        When ``constraints`` and ``terms.blocks`` differ in number.
    """
    constraints = tuple(constraints)
    if len(constraints) != len(terms.blocks):
        raise ValueError(f"constraints: {len(constraints)} blocks for the {len(terms.blocks)} of the scaled terms")
    blocks = tuple(replace(c, qdd=q, f=f, tau=tau, rhs=rhs) for c, (q, f, tau, rhs) in zip(constraints, terms.blocks))
    return {"M": terms.M, "h": terms.h, "S": terms.S, "J": terms.J, "Jdot_qdot": terms.Jdot_qdot,
            "v_contact": terms.v_contact, "v0": terms.v0, "constraints": blocks, "scales": nondimensional_scales(scales)}


def nondimensionalize(system: ContactSystem) -> Scaling:
    """The ``Scaling`` of ``system`` (module docstring) with the scaled system.

    The scaled system has characteristic scales 1 and its own ``scaling`` set to the identity
    (``scaled_system_fields``).

    Parameters
    ----------
    system : ContactSystem
        ``n_q`` coordinates, ``n_τ`` inputs, ``k`` contacts, in any consistent units.

    Returns
    -------
    Scaling
        The factors and the scaled system (``Scaling.system``).
    """
    sc = system.scales
    assert sc is not None  # ContactSystem.__post_init__ always sets it
    t = scale_terms(system.M, system.h, system.S, system.J, system.Jdot_qdot, system.v_contact, system.v0, sc,
                    [(c.qdd, c.f, c.tau, c.rhs) for c in system.constraints])
    s, g, u, F, A, V = t.qdd, t.generalized_force, t.tau, t.force, t.acceleration, t.velocity
    rows = list(t.rows)

    dist = None
    ud = np.zeros(0)
    if system.disturbance is not None:
        D = system.disturbance
        ud = _input_units(D.E, g)
        Es = D.E * ud[None, :] / g[:, None]
        dset = Polytope(D.set.A * ud, D.set.b, D.set.C * ud, D.set.d)
        dist = replace(D, E=Es, set=dset)

    scaled = replace(system, **scaled_system_fields(t, system.constraints, sc), disturbance=dist)
    return Scaling(sc, s, g, F, A, V, u, ud, tuple(rows), scaled)
