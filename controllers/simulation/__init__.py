"""Closed-loop simulation of any system file on MuJoCo (``contactmodes simulate``).

* ``controllers.simulation.model`` — the MuJoCo model of a loaded mechanism (``build_plant``),
  its mass and inertia floor and contact settings;
* ``controllers.simulation.modes`` — the contact mode of each toolkit contact read from MuJoCo;
* ``controllers.simulation.loop`` — the control loop (``simulate``);
* ``controllers.simulation.registry`` — the controllers the command offers (``zero``,
  ``constant:…``, ``control``);
* ``controllers.simulation.document`` — the ``contactmodes.simulation/1`` document;
* ``controllers.simulation.plots`` — the figure and the animation;
* ``controllers.simulation.cli`` — the command.

MuJoCo is the ``sim`` extra (``pip install 'contactmodes[sim]'``); importing this package does not
import it.
"""

__all__: list[str] = []
