"""contactmodes: every solution of planar rigid-body models with Coulomb friction, per contact mode.

Pipeline (Greenfield, Saranli, Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body
Systems with Frictional Contact*, Sec. III): model → mode enumeration → SVD response → domain
``D_c`` over ``(τ, w)`` → torque domain ``T_c`` by projection → ambiguities.
"""

from .errors import ApproachingContactError, ContactModelError, SystemFileError
from .system import ContactSystem, LinearConstraint

__all__ = [
    "ApproachingContactError",
    "ContactModelError",
    "ContactSystem",
    "LinearConstraint",
    "SystemFileError",
]
