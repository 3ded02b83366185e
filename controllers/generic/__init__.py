"""Generic real-time controllers for any planar system with rigid Coulomb contacts.

``UnambiguousOptimalController(system, objective, limits, modes=None, margin=None)`` maximizes or
minimizes a linear objective over ``q̈``, the contact forces and ``τ`` on the unambiguous torque
sets ``T*_c`` of every contact mode (flipping paper Sec. IV-B.2, eq. (34)), at control rate
(``controller``), returning a torque within the margin of the supremum point, inside its set
(``contactmodes.control.margin``);
the search itself is ``search.optimize``, the state ``step.MechanismStep``, the limits
``limits.TorqueBox``, a touchdown state (an approaching contact) ``touchdown`` (the plastic
impact first, then the step at the post-impact state). The objective type is ``contactmodes.control.objective.LinearObjective``.
The RHex max-thrust controller is this controller configured for RHex
(``controllers.rhex.max_thrust``).
"""

from contactmodes.control.objective import LinearObjective

from .controller import PATHS, STATUSES, StepRecord, UnambiguousOptimalController, step_ms_stats
from .limits import TorqueBox
from .search import Engine, ObjectivePlan, OptimalResult, optimize, plan_objective
from .step import MechanismStep

__all__ = ["LinearObjective", "UnambiguousOptimalController", "StepRecord", "PATHS", "STATUSES", "step_ms_stats",
           "TorqueBox", "Engine", "ObjectivePlan", "OptimalResult", "optimize", "plan_objective", "MechanismStep"]
