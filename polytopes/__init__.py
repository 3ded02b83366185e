"""Pure-geometry H-polytopes: ``{x : A x <= b, C x = d}`` (possibly unbounded, lower-dimensional
or empty), with HiGHS LPs and pycddlib for conversions, reduction and projection.

Public names: :class:`Polytope`, :class:`Generators`, :class:`ChebyshevBall`,
:class:`PolytopeError`, :class:`ProjectionBudgetError`, :func:`fourier_motzkin`,
:func:`project`, :mod:`tolerances`; regions (unions of convex pieces): :func:`difference`,
:func:`union_contains`, :func:`union_is_empty`, :func:`union_bounding_box`, :func:`union_volume`,
:func:`simplify`.
"""

from . import tolerances
from .errors import NumericalError, PolytopeError, ProjectionBudgetError
from .polytope import ChebyshevBall, Generators, Polytope
from .projection import fourier_motzkin, project
from .regions import (difference, simplify, union_bounding_box, union_contains, union_is_empty,
                      union_volume)

__all__ = ["Polytope", "Generators", "ChebyshevBall", "PolytopeError", "ProjectionBudgetError",
           "fourier_motzkin", "project", "tolerances", "difference", "simplify",
           "union_bounding_box", "union_contains", "union_is_empty", "union_volume"]
