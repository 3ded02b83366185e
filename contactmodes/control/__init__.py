"""One-shot optimal control at a state: the torque, within limits, that optimizes a linear objective
while guaranteeing its contact mode (the unambiguous sets ``T*_c`` of the analysis).

``objective`` parses the objective, ``limits`` builds the torque limits and the acceptable modes,
``optimal`` solves the problem, ``margin`` places the torque within a margin of the supremum point
inside its set (the rule the real-time controllers share; ``contactmodes.control`` is after
``contactmodes.analysis`` in the pipeline; ``docs/control.md``).
"""

import sys
import types


class _CallablePackage(types.ModuleType):
    """This package, callable as ``contactmodes.control.optimal.control``: the front door's
    ``contactmodes.control(...)`` resolves to the package once the package has been imported
    (the import system sets the parent's attribute), so calling it must still work."""

    def __call__(self, *args, **kwargs):
        from contactmodes.control.optimal import control

        return control(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
