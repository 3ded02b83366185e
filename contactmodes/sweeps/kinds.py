"""Sweep kinds: what one grid point computes, and how kinds are registered.

A *kind* (``analyze`` here, ``flip`` in ``controllers.rhex.sweep``) turns a validated
``Grid`` into a ``Prepared`` sweep: a picklable function
evaluating one point on a Dask worker, the table columns of a point and the panels worth
plotting. The engine (``engine``), the outputs and the CLI are shared by every kind.

Registration
------------
``analyze`` is built in. Packages layered above ``contactmodes`` add kinds through the
entry-point group ``contactmodes.sweep_kinds`` (so that ``contactmodes`` never imports them):
the entry point names an instance of a ``SweepKind`` subclass, e.g. in ``pyproject.toml``:

    [project.entry-points."contactmodes.sweep_kinds"]
    flip = "controllers.rhex.sweep:KIND"

The entry point's name must equal ``KIND.name``; it becomes ``contactmodes sweep NAME`` and
``contactmodes.sweep(NAME, ...)``. Its module must be cheap to import (the CLI imports it to
build ``--help``): import heavy dependencies inside the methods.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable

from contactmodes.sweeps.grid import Grid, SweepError

__all__ = ["KIND_GROUP", "Panel", "Prepared", "SweepKind"]

KIND_GROUP = "contactmodes.sweep_kinds"


@dataclass(frozen=True)
class Panel:
    """One plotted result column.

    Attributes
    ----------
    column : str
        The table column.
    title : str
        The panel's title.
    unit : str
        The value's unit (``""`` if none).
    where : str or None
        A boolean column: the value is drawn only at points where it is true (``n/a`` elsewhere;
        e.g. a flip's prediction error only for runs that flipped).
    """

    column: str
    title: str
    unit: str = ""
    where: str | None = None


@dataclass
class Prepared:
    """A validated sweep, ready to run.

    Attributes
    ----------
    evaluate : Callable[[dict], dict]
        Picklable ``evaluate(params) -> dict``: the result fields of one point (JSON
        values only: no NaN or infinity; ``None`` where unbounded or not applicable). Raising
        marks that point failed (the engine records ``"Type: message"``).
    row : Callable[[dict], dict]
        ``row(point) -> dict`` the table columns (scalars; NaN where not applicable, ±inf
        where unbounded) of one point document (``params``, ``ok``, ``error`` and the fields
        ``evaluate`` returned); the engine adds the varied keys, ``ok`` and ``error``.
    panels : list[Panel]
        The result columns worth plotting, in order.
    labels : dict[str, str]
        Varied key → axis label with its unit.
    header : dict[str, Any]
        Extra top-level fields of the ``contactmodes.sweep/1`` document (inputs such as
        the system file, the modes, the torque names).
    """

    evaluate: Callable[[dict], dict]
    row: Callable[[dict], dict]
    panels: list[Panel] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    header: dict[str, Any] = field(default_factory=dict)


class SweepKind(ABC):
    """One kind of sweep (module doc). Subclasses set ``name`` and ``help``, and may set
    ``in_process_points``.

    ``prepare`` may accept a keyword ``progress``: a stage of ``contactmodes.progress``
    (``update()`` once per point checked), which the engine passes when the signature has it."""

    name: str = ""
    help: str = ""
    in_process_points: int = 2
    """Without ``workers`` or ``scheduler``, a sweep of at most this many points runs in this
    process: starting a ``LocalCluster`` (processes, then each worker importing the toolkit)
    takes 3–20 s, more than a few points take here (measured: ``docs/sweeps.md``)."""

    @abstractmethod
    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the kind's own options to its ``contactmodes sweep NAME`` parser.

        Parameters
        ----------
        parser : argparse.ArgumentParser
            The kind's ``contactmodes sweep NAME`` parser.
        """

    @abstractmethod
    def options_from_args(self, args: argparse.Namespace) -> dict:
        """The keyword options of ``prepare`` from the parsed CLI arguments.

        Parameters
        ----------
        args : argparse.Namespace
            The parsed CLI arguments.

        Returns
        -------
        dict
            Keyword options of ``prepare``.
        """

    @abstractmethod
    def prepare(self, grid: Grid, **options) -> Prepared:
        """Validate every point of ``grid`` with ``options`` and return the runnable sweep.

        Parameters
        ----------
        grid : Grid
            The validated grid.
        **options : object
            The kind's options (a subclass names its own).

        Returns
        -------
        Prepared
            The evaluator, the table row, the panels, the labels and the header.

        Raises
        ------
        SweepError
            One line naming the key, on a bad key, a bad option or any point the model rejects —
            before anything runs.
        """
