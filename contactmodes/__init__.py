"""contactmodes: every solution of planar rigid-body models with Coulomb friction, per contact mode.

Pipeline (Greenfield, Saranli, Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body
Systems with Frictional Contact*, Sec. III): model → mode enumeration → SVD response → domain
``D_c`` over ``(τ, w)`` → torque domain ``T_c`` by projection → ambiguities.

The front door, in the system's units throughout:

    import contactmodes as cm
    system = cm.load_system("examples/two_link_brace.toml")   # a ContactSystem
    result = cm.analyze(system, unambiguous=True)             # or cm.analyze("file.toml", ...)
    result.modes["FFF"].T, result.modes["FFF"].box, result.locate([-0.5]), result.to_json()
    session = cm.AnalysisSession(system)                      # reuse across calls
    best = cm.control(system, maximize="qdd.theta1", limits={"tau1": "-3:3"})  # docs/control.md
    touchdown = cm.impact("examples/impact/rocking_block.toml", pseudo_impulse=0.03)  # docs/impact.md

The names below are imported on first use, so ``import contactmodes`` stays light (the CLI starts
without loading the LP layer it may not need): it loads neither NumPy nor ``polytopes``, so that
the ``contactmodes`` command's own start-up is under its Ctrl-C handling (``contactmodes.cli``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from contactmodes.errors import ApproachingContactError, ContactModelError, SystemFileError
from contactmodes import output as _output  # noqa: F401 - registers the results' views (contactmodes.views)

if TYPE_CHECKING:
    from pathlib import Path

    from contactmodes.model.system import ContactSystem, LinearConstraint

    from contactmodes.analysis.ambiguity import UnambiguousResult, inconsistent, unambiguous
    from contactmodes.analysis.analyze import AnalysisResult, ModeAnalysis, analyze
    from contactmodes.analysis.robust import RobustResult, robust_feasible_set, robust_unambiguous
    from contactmodes.analysis.session import AnalysisSession
    from contactmodes.control.optimal import ControlResult, control
    from contactmodes.impact.outcomes import impact
    from contactmodes.impact.result import ImpactResult
    from contactmodes.sweeps import sweep

__all__ = [
    "load_system",
    "analyze",
    "AnalysisResult",
    "ModeAnalysis",
    "AnalysisSession",
    "unambiguous",
    "inconsistent",
    "UnambiguousResult",
    "robust_unambiguous",
    "robust_feasible_set",
    "RobustResult",
    "sweep",
    "control",
    "ControlResult",
    "impact",
    "ImpactResult",
    "ApproachingContactError",
    "ContactModelError",
    "ContactSystem",
    "LinearConstraint",
    "SystemFileError",
]

#: name → module of the names imported on first use
_LAZY = {
    "analyze": "analysis.analyze", "AnalysisResult": "analysis.analyze", "ModeAnalysis": "analysis.analyze",
    "AnalysisSession": "analysis.session",
    "unambiguous": "analysis.ambiguity", "inconsistent": "analysis.ambiguity", "UnambiguousResult": "analysis.ambiguity",
    "robust_unambiguous": "analysis.robust", "robust_feasible_set": "analysis.robust", "RobustResult": "analysis.robust",
    "sweep": "sweeps",
    "control": "control.optimal", "ControlResult": "control.optimal",
    "impact": "impact", "ImpactResult": "impact.result",  # the callable sub-package (contactmodes/impact)
    "ContactSystem": "model.system", "LinearConstraint": "model.system",
}


def load_system(path: str | Path) -> ContactSystem:
    """The ``ContactSystem`` of a system file (TOML, or JSON with the same schema).

    Parameters
    ----------
    path : str or Path
        The file (``docs/system-file.md``): a mechanism, its state ``(q, q̇)`` and contacts,
        in any consistent units (SI unless the file says otherwise).

    Returns
    -------
    ContactSystem
        The instantaneous model at the file's state (eqs. 1–10 of the flipping paper evaluated):
        ``contactmodes.system_file.loader.load_system_file(path).system``. That reader (the only
        one) returns the whole file too — mechanism, state, ``[control]``, friction intervals —
        for controllers that simulate the mechanism.

    Raises
    ------
    SystemFileError
        The file is missing or unreadable, not valid TOML/JSON, or breaks the schema (the message
        starts with the key path, e.g. ``contacts[2].mu: must be >= 0, got -0.3``).
    ApproachingContactError
        A contact approaches its surface at the file's state.

    Examples
    --------
    >>> import contactmodes as cm
    >>> system = cm.load_system("examples/two_link_brace.toml")
    >>> system.n_tau, list(system.contacts)
    (1, ['base', 'tip', 'joint'])
    """
    from contactmodes.system_file.loader import load_system_file as load

    return load(path).system


def __getattr__(name: str) -> Any:
    """The front door's names (``_LAZY``), imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
