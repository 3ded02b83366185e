"""Pure-geometry H-polytopes: ``{x : A x <= b, C x = d}`` (possibly unbounded, lower-dimensional
or empty), with verified LPs (cddlib fast path, HiGHS), pycddlib for conversions and pplpy
(optional, exact rationals) for reduction and projection.

Trust model: every LP answer is verified (``polytopes.lp``); emptiness and affine hulls come
from one rule (``polytopes._feasibility``), computed once per polytope; every projection is
verified before it is returned (``polytopes.projection``); cddlib never sees inputs known to
crash it (``polytopes._cdd_io``, the one boundary with pycddlib). The empty set is a normal value
everywhere.

Public names: ``Polytope``, ``Generators``, ``ChebyshevBall``, ``NearestPoint``
(``Polytope.nearest_point``), ``Hull`` (``Polytope.inner_system``),
``PolytopeError`` (the caller's mistake), ``NumericalError`` (the package's own failure;
not a ``ValueError``), ``ProjectionBudgetError``, ``fourier_motzkin``,
``project``, ``project_many``, ``RayPool`` (recession-ray hints for bounding boxes), ``tolerances``;
regions (unions of convex pieces): ``difference``, ``union_contains``, ``union_is_empty``,
``union_bounding_box``, ``union_volume``, ``simplify``; ``planar_projections`` (many sets' images in
the plane at once, ``polytopes._planar``); the emptiness rule on arrays:
``is_empty``, ``empty_stacked``; ``normalize_rows``; ``stacked_svd`` (stacked SVDs shared by
threads, ``polytopes._threads``) and ``in_threads`` (``polytopes._threads.run``: a loop over
independent items cut into slices that threads run).

Public and private modules (issue 23). A module is public when code outside ``polytopes`` has a
reason to import it as a whole: ``polytope``, ``projection``, ``regions``, ``errors``,
``tolerances``, ``lp`` (the verified LP and its certificate checks), ``batchlp`` (the batched
dual simplex), ``batchlp_kernel`` (its compiled kernel: other packages' numba kernels call its
compiled functions and share its cache, and importing it loads numba, so its names cannot be
re-exported here) and ``ppl_io`` (whether the optional exact method is installed, ``available``
and ``INSTALL_HINT``). Every other module is ``_``-private: ``_feasibility``, ``_redundancy``,
``_linalg``, ``_cdd_io``, ``_raypool``, ``_box_kernel`` (the compiled sides of a bounding
box), ``_threads`` (large batches shared by threads); nothing outside ``polytopes`` imports them. When another
package needs one function of a private module, that function is exported here, documented, rather
than the module made public (``is_empty``, ``empty_stacked``, ``normalize_rows``, ``Hull``,
``RayPool``, ``stacked_svd``, ``in_threads``, ``planar_projections``). Inside the package no module other than ``polytope`` reads a private attribute of a
``Polytope``: what the projection check needs is ``Polytope``'s public ``inner_system``,
``data_scale``, ``maximize`` and ``support_lps`` (``tests/test_architecture.py`` checks both rules
with ``ast``).
"""

from . import tolerances
from ._feasibility import Hull, empty_stacked, is_empty
from ._linalg import normalize_rows, stacked_svd
from ._planar import planar_projections
from ._threads import run as in_threads
from ._raypool import RayPool
from .errors import NumericalError, PolytopeError, ProjectionBudgetError
from .polytope import ChebyshevBall, Generators, NearestPoint, Polytope
from .projection import fourier_motzkin, project, project_many
from .regions import (difference, simplify, union_bounding_box, union_contains, union_is_empty,
                      union_volume)

__all__ = ["Polytope", "Generators", "ChebyshevBall", "NearestPoint", "Hull", "PolytopeError", "NumericalError",
           "ProjectionBudgetError", "RayPool",
           "fourier_motzkin", "project", "project_many", "tolerances", "difference", "simplify",
           "union_bounding_box", "union_contains", "union_is_empty", "union_volume",
           "is_empty", "empty_stacked", "normalize_rows", "stacked_svd", "in_threads", "planar_projections"]
