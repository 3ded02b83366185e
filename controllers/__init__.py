"""controllers: controllers built on the torque sets of :mod:`contactmodes`.

Planned (see the project's issues): robust bracing of a snake robot between walls
(Greenfield, Rizzi, Choset, ICRA 2005) and maximal-thrust self-righting of RHex (flipping paper,
Sec. IV-B.2) with a compliant simulator (Sec. IV-C.1). This package is a documented skeleton until
those land: it defines no public names yet, so nothing here can be mistaken for a working
controller.
"""

__all__: list[str] = []
