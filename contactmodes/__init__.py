"""contactmodes: every solution of planar rigid-body models with Coulomb friction, per contact mode.

Pipeline (Greenfield, Saranli, Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body
Systems with Frictional Contact*, Sec. III): model → mode enumeration → SVD response → domain
``D_c`` over ``(τ, w)`` → torque domain ``T_c`` by projection → ambiguities.
"""

from .errors import ApproachingContactError, ContactModelError, SystemFileError
from .system import ContactSystem, LinearConstraint

__all__ = [
    "sweep",
    "ApproachingContactError",
    "ContactModelError",
    "ContactSystem",
    "LinearConstraint",
    "SystemFileError",
]


def __getattr__(name: str):
    """``contactmodes.sweep`` (:func:`contactmodes.sweeps.sweep`), imported on first use so that
    ``import contactmodes`` does not load pandas and Dask."""
    if name == "sweep":
        from .sweeps import sweep

        return sweep
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
