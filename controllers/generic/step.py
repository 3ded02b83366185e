"""One state of a system file's mechanism as the real-time controller sees it.

``MechanismStep`` evaluates the mechanism's closed-form dynamics and contact kinematics at
``(q, q̇)`` (``contactmodes.model.mechanism.PlanarMechanism.dynamics``: ``M``, ``h``, ``J``,
``J̇q̇``, eqs. (3)–(5) of the flipping paper), nondimensionalizes them by the rule of every
analysis session (``contactmodes.realtime.plan.scaled_terms``, the same numbers as
``contactmodes.model.scaling.scale_terms``) with the system's constraint rows, and classifies the
contact velocities (Table III) — the *step* of ``controllers.generic.search``. A contact whose
gap (``PlanarMechanism.contact_gaps``: the signed distance of the contact point from its line)
exceeds ``gap_tol`` is left out of the step (its force is zero; labelled ``S``), as RHex's
controller leaves lifted toes out; the others are present (persistent contacts; a separating one
is ``S``). Optionally (an explicit opt-in), normal velocities at most ``normal_velocity_tol`` are
set to 0 first (as the RHex controller does for its compliant simulator's scattered velocities), or
only those within ``±touching_tol`` (a soft plant's touching contacts); an approaching contact
left raises ``ApproachingContactError``, which the controller answers with the impact law
(``controllers.generic.touchdown``).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from contactmodes.errors import ContactModelError
from contactmodes.model.scaling import ScaledTerms, scaled_system_fields
from contactmodes.model.system import ContactSystem
from contactmodes.modes.contact_conditions import VelocityPattern, classify_arrays
from contactmodes.realtime.plan import scaled_terms
from contactmodes.tolerances import GAP_RTOL

__all__ = ["MechanismStep", "check_constraints", "classified_velocities"]

_PAIR = np.array([0, 1])


def classified_velocities(v_contact, normal_velocity_tol: float | None,
                          touching_tol: float | None = None) -> np.ndarray:
    """Contact velocities with the normal components that count as touching set to 0.

    Every normal component ``<= normal_velocity_tol`` set to 0, or with ``touching_tol``, every
    normal component of magnitude ``<= touching_tol`` (an approaching one faster than it is kept);
    none changed for ``None``.

    Parameters
    ----------
    v_contact : array_like
        ``(2k,)`` contact velocities ``(v_t, v_n)`` per contact.
    normal_velocity_tol : float or None
        Same units as ``v_contact``.
    touching_tol : float, optional
        Same units as ``v_contact``.

    Returns
    -------
    numpy.ndarray
        ``(2k,)``, same units.
    """
    v = np.asarray(v_contact, dtype=float).reshape(-1)
    if normal_velocity_tol is None and touching_tol is None:
        return v
    tol = -math.inf if normal_velocity_tol is None else max(0.0, float(normal_velocity_tol))
    band = -math.inf if touching_tol is None else max(0.0, float(touching_tol))
    out = v.tolist()  # a few contacts: Python floats
    for i in range(1, len(out), 2):
        if (out[i] <= tol or abs(out[i]) <= band) and abs(out[i]) > 0.0:
            out[i] = 0.0
    return np.array(out)


class MechanismStep:
    """The state ``(q, q̇)`` of a mechanism with constant constraint rows (module doc).

    Parameters
    ----------
    mechanism : PlanarMechanism
        ``contactmodes.model.mechanism.PlanarMechanism`` (of a system file:
        ``LoadedSystem.mechanism``).
    template : ContactSystem
        The system at any state (``LoadedSystem.system``): its constant parts are used — the
        constraint blocks (constant rows), friction coefficients ``mu``, thresholds ``v0`` and
        names.
    q : numpy.ndarray
        ``(n_q,)`` configuration, the mechanism's units.
    qdot : numpy.ndarray
        ``(n_q,)`` velocity.
    normal_velocity_tol : float, optional
        Normal contact velocities ``<=`` this are set to 0 (velocity units; default none).
    touching_tol : float, optional
        Normal contact velocities within ``±`` this are set to 0 (velocity units; default none):
        a soft plant's touching contacts; faster approaching ones still raise.
    blocks : tuple, optional
        The ``Structure`` block specification of the constraints (computed when not given).
    gap_tol : float, optional
        Contacts with a gap above this (length units) are left out; default
        ``contactmodes.tolerances.GAP_RTOL`` times the mechanism's characteristic length (the
        system file's own test), ``inf`` keeps every contact.

    Raises
    ------
    ContactModelError
        From the mechanism for a wrong ``q``/``qdot``; ``ApproachingContactError`` for an
        approaching contact (no impact law).

    Notes
    -----
    Attributes: ``n_q``, ``n_tau``, ``all_contacts`` (the system's), ``contacts`` (the present
    ones), ``contact_index`` (their positions in ``all_contacts``), ``mu``, ``v0``, ``J``,
    ``Jdot_qdot`` (present contacts), ``constraints`` (their force columns on the present
    contacts), ``blocks``, ``dynamics`` (the mechanism's ``Dynamics``), ``scales``, ``S``,
    ``v_contact`` (classified), ``terms`` (``ScaledTerms``), ``pattern`` (``VelocityPattern``, on
    the scaled velocities), and on first use ``scaled_system`` (nondimensional, the slow path's)
    and ``system`` (user units, for references).
    """

    def __init__(self, mechanism, template: ContactSystem, q, qdot, normal_velocity_tol: float | None = None,
                 blocks: tuple | None = None, gap_tol: float | None = None,
                 touching_tol: float | None = None) -> None:
        self.mechanism = mechanism
        self.template = template
        self.constraints = tuple(template.constraints)
        self.q = np.asarray(q, dtype=float)
        self.qdot = np.asarray(qdot, dtype=float)
        d, self.scales = mechanism.dynamics_and_scales(q, qdot)  # one kinematics pass for both
        self.dynamics = d
        self.S = mechanism.actuator_matrix()
        self.n_q, self.n_tau = self.S.shape
        tol = GAP_RTOL * self.scales.length if gap_tol is None else float(gap_tol)
        keep = np.flatnonzero(~(d.gaps > tol))
        self.all_contacts = tuple(template.contacts)
        self.contact_index = keep
        self.contacts = tuple(self.all_contacts[i] for i in keep)
        rows = (2 * keep[:, None] + _PAIR).reshape(-1)  # each present contact's (t, n) rows
        self.mu = template.mu[keep]
        self.v0 = np.asarray(template.v0, dtype=float)[keep]
        self.J, self.Jdot_qdot = d.J[rows], d.Jdot_qdot[rows]
        if keep.size != len(self.all_contacts):  # the constraint rows on the present contacts' forces
            self.constraints = tuple(replace(c, f=c.f[:, rows]) for c in self.constraints)
        self.blocks = tuple(blocks) if blocks is not None else tuple((c.kind, c.type, c.n_rows)
                                                                       for c in self.constraints)
        self.v_contact = classified_velocities(d.v_contact[rows], normal_velocity_tol, touching_tol)
        self.terms: ScaledTerms = scaled_terms(d.M, d.h, self.S, self.J, self.Jdot_qdot, self.v_contact, self.v0,
                                               self.scales, [(c.qdd, c.f, c.tau, c.rhs) for c in self.constraints])
        self.pattern: VelocityPattern = classify_arrays(self.terms.v_contact, self.terms.v0, 1.0, self.contacts)
        self._scaled_system: ContactSystem | None = None
        self._system: ContactSystem | None = None

    def label(self, mode: str) -> str:
        """``mode`` over the present contacts as a mode over all of the system's contacts.

        Parameters
        ----------
        mode : str
            One letter per present contact (``contacts``).

        Returns
        -------
        str
            One letter per contact of the system (``S`` for the contacts left out).
        """
        letters = dict(zip(self.contacts, mode))
        return "".join(letters.get(c, "S") for c in self.all_contacts)

    @property
    def scaled_system(self) -> ContactSystem:
        """The nondimensional ``ContactSystem`` of the step, built once from ``terms``
        (``contactmodes.model.scaling.scaled_system_fields``): the numbers a session of
        ``system`` decides on, without nondimensionalizing again."""
        if self._scaled_system is None:
            m = self.template
            fields = scaled_system_fields(self.terms, self.constraints, self.scales)
            self._scaled_system = ContactSystem(mu=self.mu, coordinates=m.coordinates, torques=m.torques,
                                                contacts=self.contacts, name=m.name, **fields)
        return self._scaled_system

    @property
    def system(self) -> ContactSystem:
        """The ``ContactSystem`` of the step in user units (classified velocities)."""
        if self._system is None:
            m, d = self.template, self.dynamics
            self._system = ContactSystem(M=d.M, h=d.h, S=self.S, J=self.J, Jdot_qdot=self.Jdot_qdot,
                                         v_contact=self.v_contact, mu=self.mu, coordinates=m.coordinates,
                                         torques=m.torques, contacts=self.contacts, v0=self.v0,
                                         constraints=self.constraints, name=m.name, scales=self.scales)
        return self._system


def check_constraints(constraints) -> tuple:
    """The ``Structure`` block specification of ``constraints``.

    Parameters
    ----------
    constraints : Sequence[LinearConstraint]
        The system's constraint blocks.

    Returns
    -------
    tuple
        ``(kind, type, rows)`` per block.

    Raises
    ------
    ContactModelError
        One line naming ``constraints``, for task equalities, which the real-time plans do not
        support.
    """
    blocks = tuple((c.kind, c.type, c.n_rows) for c in constraints)
    if any(kd == "task" and tp == "eq" for kd, tp, _ in blocks):
        raise ContactModelError("constraints: task equalities are not supported by the real-time controller "
                                "(their response differs with and without the task); use AnalysisSession")
    return blocks
