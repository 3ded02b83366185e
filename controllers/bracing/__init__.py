"""Robust bracing of a snake robot between walls (Greenfield, Rizzi, Choset, ICRA 2005; bracing.md).

Public API: ``BracingController``, ``BracingResult`` (``controller``). The robust
sets themselves are computed by ``contactmodes.robust_unambiguous`` (the front door); the climbing demo's disturbance model
lives in ``climb``.
"""

__all__ = ["BracingController", "BracingResult", "DEFAULT_TORQUE_BOUND", "OBJECTIVES"]


def __getattr__(name: str):
    """The public names, imported on first use (the controller needs cvxpy; the ``brace`` command
    plugin imports this package at every ``contactmodes`` start-up, so it stays light)."""
    if name in __all__:
        from . import controller

        return getattr(controller, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
