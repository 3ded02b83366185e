"""Stage after modes and analysis: plastic impact outcomes at touchdown (Johnson thesis, Sec. 5.1.2–5.1.4).

Modules: ``scope`` (which contacts the impact concerns), ``equations`` (the conditions of one
outcome as ``ModeEquations``, pseudo-impulse included), ``outcomes`` (``impact``: every outcome
solved by the modes' response, domain and emptiness machinery on the nondimensional system) and
``result`` (``ImpactResult``, the ``contactmodes.impact/1`` document) and ``post`` (the analysis at
the state after each outcome, ``contactmodes analyze FILE --impact``).

This sub-package is also the front door's ``contactmodes.impact``: calling it,
``contactmodes.impact(system_or_path, pseudo_impulse=0.0, qdot=None, h_rest=None)``, calls
``contactmodes.impact.outcomes.impact`` (arguments, return value and errors there). The package
and the function share one name, so the package itself is callable: whether
``contactmodes.impact`` was reached as an attribute or imported as a package, it is this object.
"""

from __future__ import annotations

import sys
import types

__all__ = ["impact"]


class _CallablePackage(types.ModuleType):
    """The type of this package: a module that calls ``contactmodes.impact.outcomes.impact``."""

    def __call__(self, *args, **kwargs):
        from contactmodes.impact.outcomes import impact as run

        return run(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
impact = sys.modules[__name__]
"""This package, callable as ``contactmodes.impact.outcomes.impact`` (module docstring)."""
