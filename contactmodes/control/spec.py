"""The ``[control]`` table of a system file: the controller's defaults (``docs/control.md``), e.g.

    [control]
    maximize = "qdd.theta"          # or minimize = "..." (one of the two)
    modes = {tip = "F|S"}           # or ["FFF", "FFS"], or "all" (default)
    margin = 0.01                   # torque units (contactmodes.control.margin; default relative)

    [control.limits]                # per actuator; missing = unbounded
    tau1 = "-2:2"                   # or [-2, 2], or {lo, hi, tau_max, omega_0}

Every key is optional; ``contactmodes.control`` and ``contactmodes control`` take the file's
values as defaults and their own arguments as overrides (an objective given replaces the file's,
a limit given replaces that actuator's, ``modes`` given replaces the file's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from contactmodes.control.limits import TorqueLimit, parse_limits
from contactmodes.control.objective import LinearObjective, parse_objective
from contactmodes.control.selection import ModeSelection, parse_modes
from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_conditions import MODE_LETTERS

__all__ = ["ControlSpec", "CONTROL_KEYS", "check_margin", "parse_control_table"]

#: Keys of the ``[control]`` table.
CONTROL_KEYS = ("maximize", "minimize", "limits", "modes", "margin")


def check_margin(value, where: str = "margin") -> float:
    """``value`` as a margin (torque units): a finite number ``>= 0``.

    Parameters
    ----------
    value : object
        The margin as given (a number, or the text of ``--margin``); a bool is refused.
    where : str, optional
        The option or key path that error messages start with.

    Returns
    -------
    float
        The margin (system torque units: N·m, N for a prismatic actuator).

    Raises
    ------
    ContactModelError
        One line naming ``where`` for anything else (a string that is no number, NaN, inf, < 0).
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ContactModelError(f"{where}: expected a torque >= 0 (system units), got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or x < 0.0:
        raise ContactModelError(f"{where}: expected a finite torque >= 0 (system units), got {value!r}")
    return x


@dataclass(frozen=True)
class ControlSpec:
    """What the controller is asked: objective, limits and acceptable modes (system units).

    Attributes
    ----------
    objective : LinearObjective or None
        The objective, ``None`` when not given.
    limits : dict[str, TorqueLimit]
        Actuator name → limit (an actuator not named is unbounded).
    modes : ModeSelection
        The acceptable modes (``contactmodes.control.selection``).
    margin : float or None
        The margin (system torque units, ``contactmodes.control.margin``); ``None``: the default,
        ``MARGIN_RTOL`` times the system's characteristic torque.
    """

    objective: LinearObjective | None = None
    limits: dict[str, TorqueLimit] = field(default_factory=dict)
    modes: ModeSelection = field(default_factory=ModeSelection)
    margin: float | None = None

    def overridden(self, objective: LinearObjective | None = None, limits: Mapping[str, TorqueLimit] | None = None,
                   modes: ModeSelection | None = None, margin: float | None = None) -> "ControlSpec":
        """This spec with the given parts replaced (limits merged per actuator).

        Parameters
        ----------
        objective : LinearObjective or None, optional
            The new objective; ``None`` keeps this spec's.
        limits : Mapping[str, TorqueLimit] or None, optional
            Actuator name → limit, replacing this spec's limit of each actuator named (the others
            are kept).
        modes : ModeSelection or None, optional
            The new acceptable modes; ``None`` keeps this spec's.
        margin : float or None, optional
            The new margin (system torque units); ``None`` keeps this spec's.

        Returns
        -------
        ControlSpec
            A new spec (this one is frozen and unchanged).
        """
        return replace(self, objective=objective or self.objective,
                       limits={**self.limits, **(limits or {})},
                       modes=self.modes if modes is None else modes,
                       margin=self.margin if margin is None else margin)


def parse_control_table(table: Any, coordinates: Sequence[str], contacts: Sequence[str],
                        actuators: Sequence[str], where: str = "control", components: Sequence[str] = ("t", "n"),
                        letters: str = MODE_LETTERS) -> ControlSpec:
    """The ``ControlSpec`` of a ``[control]`` table (module doc), names checked.

    Parameters
    ----------
    table : object
        The ``[control]`` table as read from TOML (a mapping; anything else is an error).
    coordinates : Sequence[str]
        The system's generalized coordinate names (for ``qdd.NAME`` in the objective).
    contacts : Sequence[str]
        The contact names, in contact order (for the objective and ``modes``).
    actuators : Sequence[str]
        The actuator names (for the objective and ``limits``).
    where : str, optional
        The key path that error messages start with.
    components : Sequence[str], optional
        The contact model's force components (``f.<contact>.<component>`` in the objective;
        default the planar ``("t", "n")``, spatial ``("t1", "t2", "n")``).
    letters : str, optional
        The contact model's mode letters (for ``modes``; default the planar ``"FSLR"``).

    Returns
    -------
    ControlSpec
        The objective, limits, modes and margin in system units (``None``/default for a key not
        given).

    Raises
    ------
    ContactModelError
        One line starting with the key path (``control.maximize: unknown name 'qdd.foo' (...)``,
        ``control.limits.hip: ...``, ``control.modes[0]: ...``, ``control.margin: ...``); both
        ``maximize`` and ``minimize``, or an unknown key.
    """
    if not isinstance(table, Mapping):
        raise ContactModelError(f"{where}: must be a table, got {table!r}")
    for key in table:
        if key not in CONTROL_KEYS:
            raise ContactModelError(f"{where}.{key}: unknown key (allowed: {', '.join(CONTROL_KEYS)})")
    if "maximize" in table and "minimize" in table:
        raise ContactModelError(f"{where}.minimize: give maximize or minimize, not both")
    objective = None
    for sense in ("maximize", "minimize"):
        if sense in table:
            objective = parse_objective(table[sense], coordinates, contacts, actuators, sense, f"{where}.{sense}",
                                        components)
    limits = parse_limits(table.get("limits", {}), actuators, f"{where}.limits")
    modes = parse_modes(table.get("modes"), contacts, f"{where}.modes", letters)
    margin = check_margin(table["margin"], f"{where}.margin") if "margin" in table else None
    return ControlSpec(objective, limits, modes, margin)
