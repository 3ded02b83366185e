"""Named numerical tolerances of :mod:`contactmodes`: the one place they live.

All are *relative*: each use site scales them by a norm of the data it tests, so that changing
units (say, mm instead of m) does not change a decision.

``RANK_RTOL``
    Relative rank tolerance for the SVD of the stacked equality system (24): a singular value
    ``s_i`` counts as zero when ``s_i <= RANK_RTOL * max(shape) * s_max`` (NumPy's ``matrix_rank``
    rule with a floor; see :func:`contactmodes.response.numerical_rank`).
``VELOCITY_RTOL``
    A contact velocity component counts as zero for Table III pruning when its magnitude is below
    ``VELOCITY_RTOL * max(1, |J| * |qdot|)`` (and below the per-contact threshold ``v0`` when one is
    given, Sec. IV-C.3). A normal velocity below minus that bound is an approaching contact: error.
``GAP_ATOL``
    Largest distance (m) between a contact point and its surface still accepted as touching.
``FEASIBILITY_RTOL``
    Residual allowed, relative to the row norm, when a linear program is judged feasible.
``STRICT_MARGIN``
    Slack an acceleration inequality of modes S, L, R must be able to exceed to count as strict
    in the kinematic (acceleration) pruning of Sec. III-F, footnote 5; relative to ``|J|``.
"""

RANK_RTOL: float = 1e-10
VELOCITY_RTOL: float = 1e-9
GAP_ATOL: float = 1e-6
FEASIBILITY_RTOL: float = 1e-9
STRICT_MARGIN: float = 1e-7
