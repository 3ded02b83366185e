"""Named numerical tolerances of ``contactmodes``: the one place they live.

All are *relative*: each use site scales them by a norm of the data it tests, so that changing
units (say, mm instead of m) does not change a decision.

``RANK_RTOL``
    Relative rank tolerance for the SVD of the stacked equality system (24): a singular value
    ``s_i`` counts as zero when ``s_i <= RANK_RTOL * max(shape) * s_max`` (NumPy's ``matrix_rank``
    rule with a floor; see ``contactmodes.modes.response.numerical_rank``).
``VELOCITY_RTOL``
    A contact velocity component counts as zero for Table III pruning when its magnitude is at most
    ``max(VELOCITY_RTOL * max(1, max_j |ẋ_j|), v0_i)`` — ``ẋ = J q̇`` is the vector of all contact
    velocities (``q̇`` itself is not part of ``ContactSystem``) and
    ``v0_i`` the per-contact threshold of Sec. IV-C.3 (see ``contactmodes.modes.enumeration.zero_threshold``).
    A normal velocity below minus that bound is an approaching contact: error. The same bound
    ``ε`` decides whether a sliding spatial contact's slip velocity lies along a side normal of its
    friction polygon (``sliding = "polygon"``, ``contactmodes.modes.spatial_contact
    .polygon_slip_letter``): its component along that side, ``|d_j · v_t|``, at most ``ε``.
``GAP_RTOL``
    Largest distance between a contact point and its surface still accepted as touching, relative
    to the mechanism's characteristic length (its largest distance between two points,
    ``CharacteristicScales``): a 1 m robot may be off by 1 µm.
``FEASIBILITY_RTOL``
    Residual allowed, relative to the row norm, when a linear program is judged feasible.
``KINEMATIC_BAND_RTOL``
    The batched strict-slack LPs (``polytopes.batchlp.simplex_batch``) of the kinematic test
    (the enumeration's search, ``contactmodes.modes.enumeration``; the real-time layouts'
    kinematic test and prefixes, ``contactmodes.realtime.kinematic`` and ``prefix``) decide a
    candidate only farther than this from the definition's own decision
    (``strict_slack_of_rows``: equalities eliminated by an SVD, consistent up to
    ``FEASIBILITY_RTOL``): a verified optimum ``s`` when ``|s − margin| > KINEMATIC_BAND_RTOL ·
    max(1, ‖x‖∞)``; an infeasibility when its Farkas certificate proves the LP's rows (in the
    scaled system's units, the units in which the definition measures its equalities' residual),
    each relaxed by ``KINEMATIC_BAND_RTOL`` times the certificate's data scale ``max(1, mean |h_i|
    of its rows)``, still infeasible (``simplex_batch``'s ``infeasible_tol``). Anything else goes
    to the definition's LP, so that equalities inconsistent only by rounding (rows dependent up
    to rounding near rest: a gripper's four sticking contacts with a wrist velocity of 1e-4 rad/s,
    inconsistent by 2e-11) are decided as the definition decides them. Ten times
    ``FEASIBILITY_RTOL``.
``STRICT_MARGIN``
    Slack an acceleration inequality of modes S, L, R must be able to exceed to count as strict
    in the kinematic (acceleration) pruning of Sec. III-F, footnote 5; relative to
    ``max(1, max|J|, max|J̇q̇|)``. The slack is capped at 1, so a strictly feasible homogeneous
    system always reaches the cap.
``CANCEL_RTOL``
    Entries of a substituted constraint matrix (eq. 33) or of the admissible-torque equalities (31)
    whose magnitude is at most ``CANCEL_RTOL`` times the magnitude of the terms that produced them
    (``‖N_x row i‖·‖P col j‖ + |N_τ ij|`` and the like) are cancellation noise and set to exactly zero.
``PIVOT_CERT_GAP``
    The batched pivot response's certificate (``contactmodes.modes._pivot_response`` and its
    compiled copy) counts a singular value of the reduced task block as rank only above
    ``PIVOT_CERT_GAP · CANCEL_RTOL · ‖B col‖`` and as rounding noise only below
    ``CANCEL_RTOL · ‖B col‖ / PIVOT_CERT_GAP``: a band of ``PIVOT_CERT_GAP²`` around the
    response's cancellation rule in which it refuses (the SVD response decides), so a value the
    two rules could judge differently never gets the fast answer.
``SYMMETRY_RTOL``
    A user's inertia matrix ``M`` is symmetric when ``|M − Mᵀ| <= SYMMETRY_RTOL · max|M|``
    entrywise (``ContactSystem``; relative, so any units).
``ROUNDTRIP_RTOL``
    ``check --write`` accepts the file it wrote when its state reads back equal to the snapped one
    within ``ROUNDTRIP_RTOL · max(1, max|q|)`` (and the same for ``q̇``): the decimal text's rounding.
``DISPLAY_ZERO_RTOL``
    Plots label an interval end as ``0``, and treat an end as on an axis edge, within
    ``DISPLAY_ZERO_RTOL`` of the axis span (numerical noise such as −7e-16).
``CONSISTENCY_RTOL``
    The admissible-torque equalities (31) are inconsistent (no τ at all) when a left-null-space
    residual exceeds ``CONSISTENCY_RTOL · max(1, max|B|, max|b|)``; a τ satisfies them when
    ``max|tau_C τ − tau_d| <= CONSISTENCY_RTOL · max(1, max|τ|, max|tau_d|)``.
``AMBIGUITY_ATOL``
    A block of the orthonormal null-space basis ``N(A)`` (III-G.2) counts as non-zero — the
    ambiguity variables ``w`` move accelerations (or forces) — when its largest entry exceeds this.
``NEGATION_RTOL``
    Margin of a negated task constraint (within-mode ambiguity, ``contactmodes.analysis.ambiguity``):
    ``a·z < b`` is represented by ``a·z <= b − δ`` with ``δ = NEGATION_RTOL · max(‖a‖, |b|)``,
    so that a violation below solver noise is not reported as an ambiguity.
``BOUND_ZERO_RTOL``
    Display only (the text table, ``contactmodes.output.text``): a bound of torque ``k`` — an end
    of its interval in ``T_c``, a coordinate of a Chebyshev centre — is shown as ``0`` when its
    magnitude is at most ``BOUND_ZERO_RTOL · max(u_k, |lo_k|, |hi_k|)``, with ``u_k`` the
    analysis's unit of torque ``k`` (``contactmodes.model.scaling.Scaling.tau``) and ``lo_k``,
    ``hi_k`` the finite ends of the same interval; an interval narrower than that bound is shown
    as a single value ``=v``. The bounds come from LPs solved in the scaled units to about
    ``FEASIBILITY_RTOL``, so smaller values are solver noise (``-6.8e-12`` for a bound of
    ``0`` next to ``3.13``), not data. Without a unit (``format_bound`` called alone) the scale is
    the interval's own largest finite end.

``MARGIN_RTOL``
    The controllers' default *margin* (``contactmodes.control.margin``): ``MARGIN_RTOL`` times
    the system's characteristic torque ``m L² / T²`` (``CharacteristicScales.torque``: mass,
    length and time of ``contactmodes.model.scaling``), in the system's torque units. The margin
    is how far (Euclidean, torque units) the returned torque may lie from the supremum point of
    the winning piece of ``T*_c ∩ L``, so that it can lie inside it; a 1 m, 8 kg robot under
    gravity gets about 0.04 N·m. Not a tolerance of a decision: a size, kept here beside the others.
``MARGIN_CLEARANCE``
    The clearance the margin aims at, as a fraction of the margin: the returned torque's ball of
    radius ``MARGIN_CLEARANCE · margin`` (within the set's affine hull) stays inside ``T_c`` and
    outside every removed set, when a point within the margin of the supremum point has one
    (else half the largest such radius there). A half leaves the other half for the objective.
``LIMIT_ROW_RTOL``
    A row of a projected set is the limit polytope's own row (not tightened by the margin: the
    actuator applies the limit exactly) when both, divided by their Euclidean norms, agree
    coefficient by coefficient and in the right-hand side within ``LIMIT_ROW_RTOL · max(1, |b|)``;
    a row the rule misses is tightened, which only costs objective within the margin.

``TIE_RTOL``
    One-shot controller (``contactmodes.control.optimal``): two modes' optima ``a``, ``b`` of an
    objective are tied when ``|a − b| <= TIE_RTOL · max(|a|, |b|, u)``, ``u`` the objective's size
    for unit nondimensional quantities; the first tied mode in analysis order wins, so that the
    choice does not follow rounding noise (or units).

``LOCATE_BOX_RTOL``
    ``AnalysisSession.locate``: a torque (nondimensional) more than ``LOCATE_BOX_RTOL · max(1,
    ‖τ‖_∞)`` outside a mode's bounding box is not in ``T_c`` and skips that mode's LP (a filter
    only: every torque it lets through is decided by the mode's own membership LP).
``LOCATE_REGULAR_RTOL``
    ``AnalysisSession.locate``'s filter (``contactmodes.analysis.point_location.PointFilter``)
    solves a mode's equalities at the torque itself only when each matrix it inverts (the mode's
    stacked letter rows, or one contact's rows on what the previous contacts left free) has
    ``s_min > LOCATE_REGULAR_RTOL · s_max``; every other mode (ambiguity variables, or merely
    ill-conditioned) is kept for the mode's own membership test. With a condition number below
    ``1e8`` the solution and its slope are accurate to far better than the filter's margin
    (``SCREEN_MARGIN``); being stricter only costs time.
``OVERLAP_APEX_RTOL``, ``OVERLAP_APERTURE``
    ``unambiguous``'s screen (``PointFilter.interior_overlaps``): a point ``p`` is taken as on a
    normalized row (nondimensional torques) when its slack there is at most ``OVERLAP_APEX_RTOL ·
    max(1, ‖p‖_∞)`` (rounding of a least-squares point of exact cones: 1e-17 measured on Solo-12;
    a slack of that size moves a row by a slab of that width). Another mode is screened out when
    the cone of both sets' rows through ``p`` admits no point ``z`` with unit slack on every row
    and ``|z|_∞ <= 1 / OVERLAP_APERTURE``: every ball inside ``T_c ∩ T_c'`` then has a radius below
    ``OVERLAP_APERTURE`` times its distance from ``p`` (a sliver of relative width 1e-6, far
    above the LP tolerances, ``polytopes.tolerances.LP_PRIMAL_TOL``), and removes nothing from
    ``T*_c`` (docs/spatial.md, "Scale").
``DISTANCE_TIE_RTOL``
    ``AnalysisSession.nearest``: two modes' distances to a torque (user units) are tied when they
    differ by at most ``DISTANCE_TIE_RTOL`` times the larger; the first tied mode in analysis
    order is the nearest, so the answer does not follow rounding noise. Each distance is verified
    to ``polytopes.tolerances.DISTANCE_TOL`` of its own scale (``Polytope.nearest_point``).
``SEPARATION_RESID_RTOL``, ``SEPARATION_ACTIVE_FACTOR``
    Overlap screening (``contactmodes.analysis.session``): a separating facet's duality
    certificate is accepted when the least-squares residual of ``A_Jᵀ y + Cᵀ z = −d`` (unit ``d``)
    is at most ``SEPARATION_RESID_RTOL``; the rows ``J`` are those within
    ``SEPARATION_ACTIVE_FACTOR`` emptiness tolerances of the vertex (a wider ``J`` can only help
    the fit; the certificate's bound is then checked against the margin).
``MEETS_MARGIN``
    Generic controller's slow path (``controllers.generic.exact.slow_optimum``): another mode's
    ``T_c'`` is taken as not meeting the candidate's ``K = T_c ∩ L`` without its exact LP
    (``controllers.generic.exact.meets``) when one batched, verified max-slack LP over the
    layout's lifted domains shows every ``(τ, w')`` violating a row of ``K`` or of ``D_c'``
    (normalized) by more than ``MEETS_MARGIN · max(1, ‖lo‖_∞, ‖hi‖_∞)`` (nondimensional torque
    box): far beyond the LP tolerances (``polytopes.tolerances.LP_PRIMAL_TOL``) and the rounding
    between the layout's and the session's domains, so the exact LP could not find a point.
    Anything less certain goes to the exact LP.
``SCREEN_MARGIN``
    Generic controller's screened step (``contactmodes.realtime.torque_screen``): a prefix of
    contact letters is taken as admitting no solution at the candidate's torque ``τ°`` (every
    mode below it has ``τ° ∉ T_c'``) when one verified max-slack LP over ``(q̈, f)`` shows every
    point violating a row of the prefix's relaxation (normalized) by more than ``SCREEN_MARGIN ·
    max(1, ‖τ°‖_∞)`` (nondimensional). A hundred times the fast point test's ``POINT_TOL``
    (``controllers.generic.search``), which tests the same membership on the domains' rows: a
    mode the screen leaves out is one that test finds ``τ°`` far outside of, so a screened step
    takes the fast path's answer (compared step by step with the unscreened search in
    ``tests/controllers/generic/test_screened_search.py``). Anything less certain survives the
    screen.
``KERNEL_RTOL``
    A compiled kernel's numbers (``contactmodes.model._mechanism_kernel``) are accepted when each
    differs from the NumPy reference's by at most ``KERNEL_RTOL`` times the scale of its quantity
    (the magnitude the rounding is relative to, built from the mechanism's extent, masses and
    speeds: ``_mechanism_kernel.reference_scales``). 256 ulps: both paths round each of a few
    dozen operations along a chain of at most ``MAX_COORDINATES`` links once, so they differ by a
    few ulps of that scale (at most 2 measured on every OpenBLAS kernel of the development
    machine); a kernel with a wrong or missing term is off by far more. The compiled form is
    exact to the same order as NumPy's own result on another BLAS, so its use does not depend on
    the machine rounding like the one the kernel was written on.

``SLIP_UNIT_ATOL``
    A spatial contact's slip direction ``v̂`` (``contactmodes.modes.spatial_contact``, mode ``D``)
    is a unit vector when ``| ‖v̂‖ − 1 | <= SLIP_UNIT_ATOL`` (dimensionless): ``v_t / ‖v_t‖``
    computed in double precision is within a few ulps; anything farther is a caller's error.

Range limits (inputs outside them are rejected with an error naming the field)
---------------------------------------------------------------------------------
``MU_MAX``
    Largest friction coefficient accepted. Beyond it the friction-cone rows ``μ f_n ± f_t >= 0``
    hold ``f_t`` to a relative precision below the LP tolerances, so the sets would be
    meaningless; a contact that cannot slip at all is better modelled by a large but finite μ.
``MAGNITUDE_MAX``
    Largest magnitude accepted for any number of a system file (masses, inertias, lengths,
    velocities, gravity, constraint coefficients): the dynamics multiply up to five such numbers
    (``m · r · r · ω · ω``), which then stay finite in double precision.

URDF input
----------
``PLANE_ATOL``
    URDF input (``contactmodes.model.urdf``): a joint axis counts as normal to the chosen plane, and
    a link frame as parallel to it, when the sine of the angle between the unit axis and the plane
    normal is at most this (dimensionless, so unit-free). ``1e-5`` accepts angles written to five
    decimals (``rpy="1.5708 0 0"`` is 3.7e-6 from π/2).
``INERTIA_RTOL``
    URDF input: a link's 3 × 3 inertia matrix counts as positive semi-definite when its smallest
    eigenvalue is at least ``−INERTIA_RTOL`` times its largest eigenvalue magnitude.
``KINEMATIC_BOUND``
    Artificial bound on the nondimensional ``|q̈'|`` of the batched kinematic-slack LPs (the
    enumeration's search, ``contactmodes.modes.enumeration``, and the real-time layouts,
    ``contactmodes.realtime.plan.KINEMATIC_BOUND``); an answer leaning on it is not accepted (it goes
    to the exact LP). A size, not a tolerance, kept here so both share it.
``OUTPUT_SPREAD_ATOL``
    Outputs (``contactmodes.analysis.outputs``): a torque determines an output when the largest
    difference of that output between two of the mode's solutions at one torque (its *spread*, an
    LP on the scaled output ``y_i / s_i`` of unit scale) is at most this; LP noise is about
    ``FEASIBILITY_RTOL``, so ``1e-7`` leaves a margin of a hundred.
"""

MU_MAX: float = 1e4
MAGNITUDE_MAX: float = 1e60

RANK_RTOL: float = 1e-10
VELOCITY_RTOL: float = 1e-9
GAP_RTOL: float = 1e-6
FEASIBILITY_RTOL: float = 1e-9
STRICT_MARGIN: float = 1e-7
KINEMATIC_BAND_RTOL: float = FEASIBILITY_RTOL * 10
CANCEL_RTOL: float = 1e-10
PIVOT_CERT_GAP: float = 1e2
SYMMETRY_RTOL: float = 1e-9
ROUNDTRIP_RTOL: float = 1e-12
DISPLAY_ZERO_RTOL: float = 1e-9
KINEMATIC_BOUND: float = 1e3
CONSISTENCY_RTOL: float = 1e-8
AMBIGUITY_ATOL: float = 1e-8
NEGATION_RTOL: float = 1e-6
BOUND_ZERO_RTOL: float = 1e-9
PLANE_ATOL: float = 1e-5
INERTIA_RTOL: float = 1e-6
MARGIN_RTOL: float = 1e-3
MARGIN_CLEARANCE: float = 0.5
LIMIT_ROW_RTOL: float = 1e-9
TIE_RTOL: float = 1e-9
LOCATE_BOX_RTOL: float = 1e-7
LOCATE_REGULAR_RTOL: float = 1e-8
SEPARATION_RESID_RTOL: float = 1e-9
SEPARATION_ACTIVE_FACTOR: float = 1e3
MEETS_MARGIN: float = 1e-6
SCREEN_MARGIN: float = 1e-4
OVERLAP_APEX_RTOL: float = 1e-9
OVERLAP_APERTURE: float = 1e-6
DISTANCE_TIE_RTOL: float = 1e-9
KERNEL_RTOL: float = 256 * 2.0 ** -52
SLIP_UNIT_ATOL: float = 1e-9
OUTPUT_SPREAD_ATOL: float = 1e-7
