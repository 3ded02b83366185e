"""Pure-geometry H-polytopes: ``{x : A x <= b, C x = d}`` (possibly unbounded, lower-dimensional
or empty), with verified LPs (cddlib fast path, HiGHS), pycddlib for conversions and pplpy
(optional, exact rationals) for reduction and projection.

Trust model: every LP answer is verified (``polytopes.lp``); emptiness and affine hulls come
from one rule (``polytopes.feasibility``), computed once per polytope; every projection is
verified before it is returned (``polytopes.projection``); cddlib never sees inputs known to
crash it (``polytopes.cdd_io``). The empty set is a normal value everywhere.

Public names: ``Polytope``, ``Generators``, ``ChebyshevBall``,
``PolytopeError`` (the caller's mistake), ``NumericalError`` (the package's own failure;
not a ``ValueError``), ``ProjectionBudgetError``, ``fourier_motzkin``,
``project``, ``project_many``, ``RayPool`` (recession-ray hints for bounding boxes), ``tolerances``; regions (unions of convex pieces): ``difference``,
``union_contains``, ``union_is_empty``, ``union_bounding_box``, ``union_volume``,
``simplify``.
"""

from . import tolerances
from .errors import NumericalError, PolytopeError, ProjectionBudgetError
from .polytope import ChebyshevBall, Generators, Polytope
from .projection import fourier_motzkin, project, project_many
from .raypool import RayPool
from .regions import (difference, simplify, union_bounding_box, union_contains, union_is_empty,
                      union_volume)

__all__ = ["Polytope", "Generators", "ChebyshevBall", "PolytopeError", "NumericalError",
           "ProjectionBudgetError", "RayPool",
           "fourier_motzkin", "project", "project_many", "tolerances", "difference", "simplify",
           "union_bounding_box", "union_contains", "union_is_empty", "union_volume"]
