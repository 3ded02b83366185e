"""The registry of sweep kinds: the built-in ``analyze`` (``analyze_kind``) and those of the
``contactmodes.sweep_kinds`` entry points (``KIND_GROUP``). Apart
from ``kinds`` (the base classes), so that a kind's module imports the base classes and the
registry imports the kinds, never the other way round."""

from __future__ import annotations

from contactmodes.sweeps.analyze_kind import KIND as ANALYZE
from contactmodes.sweeps.grid import SweepError
from contactmodes.sweeps.kinds import KIND_GROUP, SweepKind

__all__ = ["available_kinds", "get_kind"]


def available_kinds() -> dict[str, SweepKind]:
    """Every sweep kind: the built-in ``analyze`` and the ``contactmodes.sweep_kinds`` entry points."""
    from importlib.metadata import entry_points

    kinds: dict[str, SweepKind] = {ANALYZE.name: ANALYZE}
    for ep in sorted(entry_points(group=KIND_GROUP), key=lambda e: e.name):
        if ep.name in kinds:
            continue
        kind = ep.load()
        if not isinstance(kind, SweepKind) or kind.name != ep.name:
            raise TypeError(f"entry point {ep.name} = {ep.value}: expected a SweepKind named {ep.name!r}")
        kinds[ep.name] = kind
    return kinds


def get_kind(name: str) -> SweepKind:
    """The kind called ``name``.

    Parameters
    ----------
    name : str
        A kind's name (``"analyze"``, ``"flip"``, ...).

    Returns
    -------
    SweepKind
        The registered instance.

    Raises
    ------
    SweepError
        Listing the available kinds, for an unknown ``name``.
    """
    kinds = available_kinds()
    if name not in kinds:
        raise SweepError(f"kind: unknown sweep kind {name!r} (available: {', '.join(kinds)})")
    return kinds[name]
