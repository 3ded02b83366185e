"""controllers: controllers built on the torque sets of ``contactmodes``.

* ``controllers.bracing`` — robust bracing of a snake robot between walls (Greenfield, Rizzi,
  Choset, ICRA 2005): ``BracingController``
  and the climbing demo's disturbance model.
* ``controllers.generic`` — the unambiguous optimal controller of any planar system loaded from
  a system file (``UnambiguousOptimalController``: a linear objective over ``q̈``, contact forces
  and ``τ`` maximized on the unambiguous torque sets ``T*_c`` of every mode, at control rate).
* ``controllers.rhex`` — RHex self-righting (flipping paper, Sec. IV): compliant simulator,
  rigid model, torque limits, the blind and maximal-thrust controllers (the latter the generic
  controller configured for RHex).

Subpackages are imported on demand (``import controllers.rhex``); this package itself exports
nothing.
"""

__all__: list[str] = []
