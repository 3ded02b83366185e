"""The rigid model's ``q̈`` for a torque and a contact mode (the prediction a closed loop is judged by).

At a state ``(q, q̇)`` the toolkit's dynamics (``PlanarMechanism.dynamics_and_scales``: ``M``,
``h``, ``J``, ``J̇q̇``, flipping paper eqs. (3)–(5)) with the mode's equalities of Tables I–II
(the contact model's rows, ``contactmodes.modes.contact_model``) and ``M q̈ − Jᵀ f = S τ − h``,
solved by the modes' response (``contactmodes.modes.response.mode_qdd``: the SVD response
(24)–(31) of the nondimensional system, the analysis's rank, consistency and ambiguity rules).
``q̈`` is returned when it is unique (no ambiguity variable moves it; the forces may still be
ambiguous, as the table's in ``FF``) and the torque admits a solution in the mode; otherwise
``None``. The file's constraint blocks are not part of this model.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from contactmodes.model.mechanism import PlanarMechanism
from contactmodes.model.system import ContactSystem
from contactmodes.modes.response import mode_qdd

__all__ = ["rigid_qdd"]


def rigid_qdd(mechanism: PlanarMechanism, q: ArrayLike, qdot: ArrayLike, tau: ArrayLike, mode: str,
              mu: ArrayLike) -> np.ndarray | None:
    """``q̈`` ``(n_q,)`` of the rigid model in ``mode`` under ``tau`` at ``(q, q̇)`` (module docstring).

    Parameters
    ----------
    mechanism : PlanarMechanism
        The analysed mechanism.
    q, qdot : array_like
        ``(n_q,)`` state (SI).
    tau : array_like
        ``(n_τ,)`` actuator torques (the file's units).
    mode : str
        One letter ``S``/``F``/``L``/``R`` per contact.
    mu : array_like
        ``(k,)`` friction coefficients.

    Returns
    -------
    numpy.ndarray or None
        ``(n_q,)`` (m/s², rad/s²), ``None`` when ``q̈`` is not unique in that mode or ``tau``
        admits no solution in it.

    Raises
    ------
    ContactModelError
        For a state or torque of the wrong shape, or a mode that is not one letter per contact.
    """
    # (dynamics(q, qdot), compiled where checked to agree within KERNEL_RTOL: a closed loop predicts every control
    # step, between two controller calls)
    d, scales = mechanism.dynamics_and_scales(q, qdot)
    system = ContactSystem(M=d.M, h=d.h, S=mechanism.actuator_matrix(), J=d.J, Jdot_qdot=d.Jdot_qdot,
                           v_contact=d.v_contact, mu=np.asarray(mu, dtype=float), coordinates=mechanism.coordinates,
                           torques=mechanism.actuators, contacts=mechanism.contact_names, scales=scales)
    return mode_qdd(system, mode, tau)
