"""Named numerical tolerances of :mod:`polytopes`: the one place they live.

Every comparison in the package is made on *normalized* rows: an inequality ``a x <= b`` is first
divided by ``||a||_2`` so that its right-hand side is a signed distance. Absolute tolerances below
are then multiplied by the problem scale ``max(1, max_i |b_i| / ||a_i||)`` (see
:func:`polytopes.linalg.data_scale`) so that a change of units does not change a decision.

``FEASIBILITY_TOL``
    A set is empty when the largest common slack ``s`` of its normalized inequalities
    (``a_i x + s <= b_i``, ``C x = d``) is below ``-FEASIBILITY_TOL * scale``.
``CONTAINMENT_TOL``
    Default slack for :meth:`Polytope.contains`, :meth:`Polytope.issubset`,
    :meth:`Polytope.equals`: a normalized row may be violated by ``CONTAINMENT_TOL * scale``.
``REDUNDANCY_TOL``
    A normalized inequality is redundant when the maximum of ``a_i x`` over the other rows does
    not exceed ``b_i + REDUNDANCY_TOL * scale``.
``IMPLICIT_EQ_TOL``
    A normalized inequality is an implicit equality when no point of the set gives it a slack
    above ``IMPLICIT_EQ_TOL * scale``.
``RANK_RTOL``
    Singular value ``s_i`` of an equality matrix counts as zero when
    ``s_i <= RANK_RTOL * max(shape) * s_max`` (NumPy's ``matrix_rank`` rule with a floor).
``COEF_ZERO_TOL``
    A coefficient of a row normalized to unit max-norm (or unit 2-norm) counts as zero below this
    (sign classification in Fourier–Motzkin, vanishing rows after projection on the affine hull).
``DUPLICATE_DECIMALS``
    Normalized rows equal after rounding to this many decimals are duplicates (the one with the
    smaller right-hand side is kept).
``WITNESS_MARGIN``
    Relative margin by which a ray from an interior point must hit a hyperplane strictly first
    for that row to be certified irredundant without an LP.
``HIGHS_TOL``
    Primal and dual feasibility tolerances passed to HiGHS.
``CHEBYSHEV_RADIUS_CAP``
    When the inscribed-ball radius is unbounded, a ball of radius ``CHEBYSHEV_RADIUS_CAP * scale``
    is inscribed instead to obtain an interior point; the reported radius is ``inf``.
``DEFAULT_ROW_BUDGET``
    Largest number of rows a projection may hold at any intermediate step (``max_rows``).
``FM_LP_PRUNE_ROWS``
    Fourier–Motzkin runs an LP redundancy removal on an intermediate system once it holds more
    rows than this (cheap duplicate and Chernikov/Imbert pruning always run).
``FM_PREFILTER_FACTOR``
    Fourier–Motzkin gives up (budget error) when the pairs surviving the cheap Imbert pre-filter
    exceed ``FM_PREFILTER_FACTOR * max_rows`` (memory guard before forming the rows).
``AUTO_FM_MAX_ELIMINATED``, ``AUTO_VERTEX_MAX_DIM``
    ``project(method="auto")`` uses Fourier–Motzkin when at most ``AUTO_FM_MAX_ELIMINATED``
    variables are eliminated, else vertex enumeration when the ambient dimension is at most
    ``AUTO_VERTEX_MAX_DIM``, else cdd block elimination.
``LP_SMALL_ROWS``, ``LP_SMALL_COLS``
    Linear programs up to this many rows and variables go to cddlib's dense simplex (no per-call
    set-up cost); larger ones to HiGHS (:func:`polytopes.lp.solve`). A size rule, not a tolerance,
    kept here with the other numeric settings.
"""

FEASIBILITY_TOL: float = 1e-9
CONTAINMENT_TOL: float = 1e-7
REDUNDANCY_TOL: float = 1e-9
IMPLICIT_EQ_TOL: float = 1e-9
RANK_RTOL: float = 1e-10
COEF_ZERO_TOL: float = 1e-11
DUPLICATE_DECIMALS: int = 9
WITNESS_MARGIN: float = 1e-7
HIGHS_TOL: float = 1e-9
CHEBYSHEV_RADIUS_CAP: float = 1.0
DEFAULT_ROW_BUDGET: int = 20000
FM_LP_PRUNE_ROWS: int = 64
FM_PREFILTER_FACTOR: int = 20
AUTO_FM_MAX_ELIMINATED: int = 2
AUTO_VERTEX_MAX_DIM: int = 8
LP_SMALL_ROWS: int = 400
LP_SMALL_COLS: int = 60
