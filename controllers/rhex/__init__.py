"""Planar RHex self-righting (flipping paper, Sec. IV): parameters, compliant simulator, rigid
model, torque limits, the blind and the maximal-thrust controllers, metrics and the reproduction's
calibration procedures (``docs/rhex-reproduction.md``).

Public API
----------
``run_flip(params, controller, duration=2.0, *, timeline=True, progress=None, initial_state=None)
-> dict`` — one flip, its ``contactmodes.flip/1`` document (``api``; ``simulate_flip`` returns
the ``FlipRun`` with the full trajectory); ``RHexParams`` (``params``, every setting of a
flip); ``simulate``, ``initial_state``, ``ControlOutput``,
``SimulationResult``, ``leg_kinematics``, ``energy``, ``STATE_LAYOUT`` (``simulator``);
``rigid_model``, ``rigid_system``, ``expand_mode`` (``rigid_model``); ``torque_limits``,
``torque_limit_polytope`` (``limits``); ``BlindController``, ``M1``, ``M2``,
``max_thrust_fixed_mode`` (``blind``); ``MaxThrustController`` (``max_thrust``).
"""

from .api import CONTROLLERS, FlipRun, run_flip, simulate_flip
from .blind import M1, M2, BlindController, max_thrust_fixed_mode
from .max_thrust import MaxThrustController
from .limits import torque_bound, torque_limit_polytope, torque_limits
from .params import RHexParams
from .rigid_model import RigidModel, expand_mode, rigid_model, rigid_system
from .simulator import (
    STATE_LAYOUT,
    ControlOutput,
    LegKinematics,
    SimulationResult,
    energy,
    initial_state,
    leg_kinematics,
    simulate,
)

__all__ = [
    "CONTROLLERS", "FlipRun", "run_flip", "simulate_flip",
    "M1", "M2", "BlindController", "max_thrust_fixed_mode", "MaxThrustController",
    "torque_bound", "torque_limit_polytope", "torque_limits",
    "RHexParams",
    "RigidModel", "expand_mode", "rigid_model", "rigid_system",
    "STATE_LAYOUT", "ControlOutput", "LegKinematics", "SimulationResult", "energy", "initial_state",
    "leg_kinematics", "simulate",
]
