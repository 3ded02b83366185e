"""Robust bracing of a snake robot between walls (Greenfield, Rizzi, Choset, ICRA 2005; bracing.md).

Public API: :class:`BracingController`, :class:`BracingResult` (:mod:`.controller`). The robust
sets themselves are computed by :mod:`contactmodes.robust`; the climbing demo's disturbance model
lives in :mod:`.climb`.
"""

from .controller import DEFAULT_TORQUE_BOUND, OBJECTIVES, BracingController, BracingResult

__all__ = ["BracingController", "BracingResult", "DEFAULT_TORQUE_BOUND", "OBJECTIVES"]
