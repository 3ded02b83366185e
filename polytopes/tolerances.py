"""Named numerical tolerances of ``polytopes``: the one place they live.

Every comparison in the package is made on *normalized* rows: an inequality ``a x <= b`` is first
divided by ``||a||_2`` so that its right-hand side is a signed distance. Absolute tolerances below
are then multiplied by the problem scale ``max(1, max_i |b_i| / ||a_i||)`` (see
``polytopes._linalg.data_scale``) so that a change of units does not change a decision.

``FEASIBILITY_TOL``
    The one emptiness rule (``polytopes._feasibility``): a set is empty when the largest common
    slack ``s`` of its normalized inequalities (``a_i x + s <= b_i``, ``C x = d``) is below
    ``-eps``, ``eps = FEASIBILITY_TOL * scale``; a row is an implicit equality when no point of the
    set relaxed by ``eps`` gives it a slack above ``eps``; LP queries on a set with ``s <= eps``
    run on the inner system relaxed by ``eps``.
``CONTAINMENT_TOL``
    Default slack for ``Polytope.contains``, ``Polytope.issubset``,
    ``Polytope.equals``: a normalized row may be violated by ``CONTAINMENT_TOL * scale``.
``REDUNDANCY_TOL``
    A normalized inequality is redundant when the maximum of ``a_i x`` over the other rows does
    not exceed ``b_i + REDUNDANCY_TOL * scale``.
``RANK_RTOL``
    Singular value ``s_i`` of an equality matrix counts as zero when
    ``s_i <= RANK_RTOL * max(shape) * s_max`` (NumPy's ``matrix_rank`` rule with a floor).
``COEF_ZERO_TOL``
    A coefficient of a row normalized to unit max-norm (or unit 2-norm) counts as zero below this
    (sign classification in Fourier–Motzkin, vanishing rows after projection on the affine hull,
    and the exact method's decisions, ``polytopes._exact_projection``: an eliminated part of a
    unit row below it is zero, and a row of the eliminated variables' recession cone is an
    implicit equality unless some direction of unit max-norm relaxes it by more than this).
``EXACT_CONE_RELAX``
    The exact method's recession-cone decision (``polytopes._exact_projection``,
    ``ppl_io.cone_implicit_rows``) relaxes every unit row of the cone by this much per unit of
    the direction: rounding (a few 1e-16 per entry of a unit row) then cannot block a direction
    that the model leaves free, and a row implicit in the model is relaxed by at most this times
    its positive dependence's ratio, far below ``COEF_ZERO_TOL``.
``DUPLICATE_DECIMALS``
    Normalized rows equal after rounding to this many decimals are duplicates (the one with the
    smaller right-hand side is kept).
``WITNESS_MARGIN``
    Relative margin by which a ray from an interior point must hit a hyperplane strictly first
    for that row to be certified irredundant without an LP.
``HIGHS_TOL``
    Primal and dual feasibility tolerances passed to HiGHS.
``LP_PRIMAL_TOL``
    Verification of an LP point (``polytopes.lp``): a unit-normalized row ``g_i x <= h_i`` may
    be violated by ``LP_PRIMAL_TOL * max(1, ||x||_inf, |h_i|)``; also the ray test
    (``G r <= LP_PRIMAL_TOL ||r||_inf``).
``LP_DUAL_TOL``
    Verification of a dual certificate: sign, stationarity and duality gap relative to the sizes
    of the terms; the Farkas and ray tests; agreement of two solvers' objective values.
``PROJECTION_CHECK_TOL``
    Verification of a projection (``polytopes.projection``): support functions of input and
    output must agree within ``PROJECTION_CHECK_TOL * max(scale, |h|)``, and output points
    must lie in the projection within that distance.
``EFFECTIVELY_INFINITE``
    In the projection check, a support value or facet offset beyond ``EFFECTIVELY_INFINITE *
    scale`` (``scale`` of the input) counts as infinite: features that far out are below double
    precision's resolution relative to the data (a float LP reports such a direction unbounded).
``PROJECTION_CHECK_DIRECTIONS``, ``PROJECTION_CHECK_DIRECTIONS_WITH_GENERATORS``
    Number of random directions (fixed seed) along which the supports are compared, in addition
    to every output facet normal: the first (plus the coordinate axes) when the output's
    generators could not all be checked against the projection, the second when they were (the
    generators then show the output inside the projection, and the directions only guard against
    a V-representation missing some).
``PROJECTION_CHECK_MAX_GENERATORS``
    At most this many output vertices / rays are checked for membership in the projection (all of
    them when there are fewer; else the ones found along the check directions).
``CDD_CANONICALIZE_MAX_ROWS``
    cddlib's ``matrix_canonicalize`` / ``matrix_redundancy_remove`` are never called on more rows
    than this (crash guard: large block-elimination outputs made cddlib abort, segfault or run for
    minutes); larger systems are reduced by the package's own LP path.
``BLOCK_ELIMINATION_MAX_ROWS``
    A block-elimination output with more rows than this is refused (budget error) rather than
    reduced by one LP per row; ``auto`` then moves to the next method.
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
``AUTO_FM_MAX_ELIMINATED``
    ``project(method="auto")`` tries Fourier–Motzkin (with LP pruning) first when at most this
    many variables are eliminated, else block elimination first (then the other, then vertex
    enumeration, then the exact method); every result is verified before it is returned.
``AUTO_SUPPORT_MIN_ELIMINATED``, ``SUPPORT_HULL_TOL``, ``SUPPORT_PROJECTION_MAX_LPS``
    ``project(method="auto")`` tries the support-LP projection (``polytopes._support_projection``:
    two LPs for one kept coordinate, an incremental hull of support points for two or three)
    first when at most three coordinates are kept and more than ``AUTO_SUPPORT_MIN_ELIMINATED``
    variables are eliminated (the elimination methods' cost grows with the eliminated variables,
    this one's with the facets of the result). A hull facet is final when the support LP along
    its normal exceeds its offset by at most ``SUPPORT_HULL_TOL * scale``; a projection needing
    more than ``SUPPORT_PROJECTION_MAX_LPS`` LPs is left to the elimination methods. The result
    is verified as every method's is.
``RAY_LP_BOUND``
    The bound ``|w| <= RAY_LP_BOUND`` on the hull coordinates of the LPs that check a ray of a
    projection lifts to a direction of the projected set (``verify_projection``; directions of
    unit max-norm): part of the LP, in the single and the batched path alike.
``BOX_RAYS_MAX_DIM``
    ``Polytope.bounding_box`` computes the recession cone's generators (one double description)
    to prove unbounded sides without LPs only for sets whose affine hull has at most this many
    dimensions; above, every side left undecided by a ray pool is one verified support LP (the
    same values: an unbounded LP answers ``inf``). The double description grows with the
    dimension: a box at rest on 64 contacts, a domain over 1 torque and 125 ambiguity variables,
    spent 0.3–1 s in it for two sides. Boxes whose support LPs go through the batched simplex
    (a ``kernel``) skip it at any dimension: an unbounded side's LP then yields a verified ray
    from its final basis, and on the 11-contact chain that was 35 % cheaper than the double
    descriptions (issue 28). A cost knob, not a tolerance.
``LP_SMALL_ROWS``, ``LP_SMALL_COLS``
    Linear programs up to this many rows and variables go to cddlib's dense simplex (no per-call
    set-up cost); larger ones to HiGHS (``polytopes.lp.solve``). A size rule, not a tolerance,
    kept here with the other numeric settings.
``BATCH_LP_BOUND``
    The artificial box ``|w_j| <= BATCH_LP_BOUND * scale`` put on the free variables of support
    LPs solved by the batched dual simplex (``Polytope.bounding_box`` with a ``kernel``,
    ``polytopes.batchlp``; the support and membership LPs of the projection check,
    ``polytopes.projection.verify_projection``); an answer leaning on it is not accepted (it
    goes to the single-LP path of ``polytopes.lp`` without the box). A cost knob, not a
    tolerance.
``CHECK_COST_PERTURBATION``
    The distance LPs of the projection check (``min t`` over ``(w, t)``: does a vertex of the
    result lie in the projection, does a ray lift), when solved by the batched dual simplex,
    carry the costs ``± CHECK_COST_PERTURBATION`` (fixed pseudo-random magnitudes in ``[0.5, 1]``)
    on ``w``: with zero costs on ``w`` the dual simplex cycles on their degenerate optima (a
    10-contact chain: a third of them undecided after 50 times its iteration limit). A
    perturbed optimum is used only as a *primal witness*: its verified feasible point with
    ``t`` within ``PROJECTION_CHECK_TOL`` proves the check; any other answer goes to the single
    unperturbed LP, so no check is failed on a perturbed answer. A cost knob, not a tolerance.
``DISTANCE_TOL``
    Verification of a nearest point (``Polytope.nearest_point``, ``polytopes._nearest``): the
    point may violate a normalized row of the set's inner system by ``DISTANCE_TOL * s``, and its
    distance may exceed the dual lower bound (from multipliers of the active rows) by
    ``DISTANCE_TOL * s``, ``s = max(scale, ‖x − x0‖)`` (the data scale, or the distance of the
    query point from the hull's anchor when larger). Rows within ``DISTANCE_TOL * s`` of the
    point count as active for the multipliers.
``PLANAR_RAY_RTOL``, ``PLANAR_ANGLE_TOL``, ``PLANAR_RANK_GAP``, ``PLANAR_MAX_ROUNDS``
    The batched sweep onto the plane (``polytopes._planar``): a ray LP ``max a·M r`` over the
    recession cone in the unit box counts as an unbounded direction when its value exceeds
    ``PLANAR_RAY_RTOL * |Mᵀa|_1`` (else the support LP decides, and one leaning on its artificial
    box refuses the set); a query direction must lie inside its arc by more than
    ``PLANAR_ANGLE_TOL`` (cross product of unit vectors), else it counts as the arc's end; a rank
    decision (the lineality space mapped onto the plane, the points found spanning the plane) needs
    a gap of ``PLANAR_RANK_GAP`` above its cut, else the set goes to the general method; a sweep
    of more than ``PLANAR_MAX_ROUNDS`` rounds refuses its set. Refusing is never wrong: the set is
    projected by ``polytopes.projection.project``.
"""

FEASIBILITY_TOL: float = 1e-9
CONTAINMENT_TOL: float = 1e-7
REDUNDANCY_TOL: float = 1e-9
RANK_RTOL: float = 1e-10
COEF_ZERO_TOL: float = 1e-11
EXACT_CONE_RELAX: float = 1e-14
DUPLICATE_DECIMALS: int = 9
WITNESS_MARGIN: float = 1e-7
HIGHS_TOL: float = 1e-9
CHEBYSHEV_RADIUS_CAP: float = 1.0
DEFAULT_ROW_BUDGET: int = 20000
FM_LP_PRUNE_ROWS: int = 64
FM_PREFILTER_FACTOR: int = 20
AUTO_FM_MAX_ELIMINATED: int = 2
AUTO_SUPPORT_MIN_ELIMINATED: int = 8
SUPPORT_HULL_TOL: float = 1e-8
SUPPORT_PROJECTION_MAX_LPS: int = 2000
LP_PRIMAL_TOL: float = 1e-8
LP_DUAL_TOL: float = 1e-7
PROJECTION_CHECK_TOL: float = 1e-6
PROJECTION_CHECK_DIRECTIONS: int = 8
PROJECTION_CHECK_DIRECTIONS_WITH_GENERATORS: int = 2
EFFECTIVELY_INFINITE: float = 1e12
PROJECTION_CHECK_MAX_GENERATORS: int = 200
CDD_CANONICALIZE_MAX_ROWS: int = 400
BLOCK_ELIMINATION_MAX_ROWS: int = 4000
BOX_RAYS_MAX_DIM: int = 24
RAY_LP_BOUND: float = 1e6
LP_SMALL_ROWS: int = 400
LP_SMALL_COLS: int = 60
BATCH_LP_BOUND: float = 1e3
CHECK_COST_PERTURBATION: float = 1e-7
DISTANCE_TOL: float = 1e-9
PLANAR_RAY_RTOL: float = 1e-9
PLANAR_ANGLE_TOL: float = 1e-9
PLANAR_RANK_GAP: float = 1e3
PLANAR_MAX_ROUNDS: int = 40
