"""Pure-geometry H-polytopes: ``{x : A x <= b, C x = d}`` (possibly unbounded, lower-dimensional
or empty), with HiGHS LPs and pycddlib for conversions, reduction and projection.

Public names: :class:`Polytope`, :class:`Generators`, :class:`ChebyshevBall`,
:class:`PolytopeError`, :class:`ProjectionBudgetError`, :func:`fourier_motzkin`,
:func:`project`, :mod:`tolerances`.
"""

from . import tolerances
from .errors import PolytopeError, ProjectionBudgetError
from .polytope import ChebyshevBall, Generators, Polytope
from .projection import fourier_motzkin, project

__all__ = ["Polytope", "Generators", "ChebyshevBall", "PolytopeError", "ProjectionBudgetError",
           "fourier_motzkin", "project", "tolerances"]
