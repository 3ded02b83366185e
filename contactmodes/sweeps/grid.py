"""The grid of a parameter sweep: value specs and their Cartesian product.

A *spec* gives the values of one varied key:

``LO:HI:N``
    ``N >= 2`` evenly spaced numbers from ``LO`` to ``HI``, both ends included
    (``numpy.linspace``), each rounded to 12 significant digits so that ``0:1:11`` gives
    ``0.3`` and not ``0.30000000000000004`` (the values are what a person would type).
``a,b,c``
    the listed values in order (one value alone is a one-point list). A token that reads as an
    integer is an ``int``, one that reads as a finite float a ``float``, anything else a string
    (``blind,max-thrust``).

Several keys make the Cartesian product, the **last key varying fastest** (``itertools.product``
order); that order is the order of the points in every output.

Size guard: ``parse_vary`` with ``max_points`` counts the points from the specs alone
(``LO:HI:N`` gives ``N`` without generating the values) and refuses a larger grid before any value
is made, so that ``0:1:100000000`` is a one-line error, not minutes of memory allocation.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from contactmodes.errors import ContactModelError

__all__ = ["SweepError", "Grid", "parse_spec", "parse_vary", "check_size", "MAX_POINTS"]

_INT_RE = re.compile(r"^[+-]?\d+$")
SIGNIFICANT_DIGITS = 12
"""Significant digits kept of ``LO:HI:N`` values (rounding away ``linspace`` noise)."""
MAX_POINTS = 100_000
"""Default largest grid a sweep runs (``--max-points``, ``max_points``): at the measured 3–5 ms
per point to check an ``analyze`` point and 15 ms–7 s to run one, a larger grid is hours to
weeks of work, more likely a typo than a plan; raise the limit to run it anyway."""


class SweepError(ContactModelError):
    """A sweep cannot start: bad spec, bad key, or a grid point the model rejects.

    The message is one line naming the varied key (the CLI prints it and exits with status 2)."""


def _token(text: str, key: str) -> int | float | str:
    tok = text.strip()
    if not tok:
        raise SweepError(f"{key}: empty value in the list")
    if _INT_RE.match(tok):
        return int(tok)
    try:
        x = float(tok)
    except ValueError:
        return tok
    if not math.isfinite(x):
        raise SweepError(f"{key}: values must be finite, got {tok!r}")
    return x


def _number(text: str, what: str, key: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise SweepError(f"{key}: {what} must be a number, got {text.strip()!r} (spec LO:HI:N or a,b,c)") from None
    if not math.isfinite(x):
        raise SweepError(f"{key}: {what} must be finite, got {text.strip()!r}")
    return x


def parse_spec(spec: str, key: str = "value") -> list:
    """The values of ``spec`` (module doc).

    Parameters
    ----------
    spec : str
        ``"LO:HI:N"`` (``N >= 2`` evenly spaced numbers) or ``"a,b,c"`` (numbers or strings).
    key : str, optional
        The key named in errors.

    Returns
    -------
    list
        The values (floats or strings), each once.

    Raises
    ------
    SweepError
        Naming ``key`` when ``spec`` is malformed, a value is not finite, or a value is listed
        twice.

    Examples
    --------
    >>> parse_spec("0.1:0.5:5")
    [0.1, 0.2, 0.3, 0.4, 0.5]
    >>> parse_spec("blind,max-thrust")
    ['blind', 'max-thrust']
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SweepError(f"{key}: empty spec (expected LO:HI:N or a,b,c)")
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise SweepError(f"{key}: expected LO:HI:N, got {spec!r}")
        lo = _number(parts[0], "LO", key)
        hi = _number(parts[1], "HI", key)
        n_text = parts[2].strip()
        if not _INT_RE.match(n_text) or int(n_text) < 2:
            raise SweepError(f"{key}: N must be an integer >= 2 in LO:HI:N, got {n_text!r} (for one value write it alone)")
        if lo == hi:
            raise SweepError(f"{key}: LO and HI are equal in {spec!r} (for one value write it alone)")
        values: list[Any] = [float(f"{v:.{SIGNIFICANT_DIGITS}g}") for v in np.linspace(lo, hi, int(n_text))]
    else:
        values = [_token(t, key) for t in spec.split(",")]
    return _checked(values, key)


def _checked(values: Sequence, key: str) -> list:
    out = []
    seen: set = set()  # a list lookup here made 10^5 values take minutes
    for v in values:
        if isinstance(v, (np.integer, np.floating)):
            v = v.item()
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise SweepError(f"{key}: values must be numbers or strings, got {v!r}")
        if isinstance(v, float) and not math.isfinite(v):
            raise SweepError(f"{key}: values must be finite, got {v!r}")
        if v in seen:
            raise SweepError(f"{key}: value {v!r} is listed twice")
        seen.add(v)
        out.append(v)
    if not out:
        raise SweepError(f"{key}: no values")
    return out


@dataclass(frozen=True)
class Grid:
    """Varied keys and their values; iterating gives the points in product order.

    Attributes
    ----------
    keys : tuple[str, ...]
        The varied keys, in the order given (the last varies fastest).
    values : tuple[tuple, ...]
        One list of values per key.
    """

    keys: tuple[str, ...]
    values: tuple[tuple, ...]

    def __len__(self) -> int:
        return math.prod(len(v) for v in self.values)

    def __iter__(self) -> Iterator[dict]:
        for combo in itertools.product(*self.values):
            yield dict(zip(self.keys, combo))

    def points(self) -> list[dict]:
        """Every point as ``{key: value}``, in product order."""
        return list(self)

    def to_json(self) -> dict:
        """``{key: [values]}`` (the ``vary`` field of ``contactmodes.sweep/1``)."""
        return {k: list(v) for k, v in zip(self.keys, self.values)}


def _spec_size(spec: Any) -> int | None:
    """Number of values ``spec`` gives, without making them; ``None`` when it is malformed
    (``parse_spec`` then says why)."""
    if not isinstance(spec, str):
        try:
            return len(spec)
        except TypeError:
            return None
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) == 3 and _INT_RE.match(parts[2].strip()):
            return int(parts[2].strip())
        return None
    return spec.count(",") + 1


def check_size(n: int, max_points: int | None, option: str = "max_points") -> None:
    """Refuse a grid of more than ``max_points`` points.

    Parameters
    ----------
    n : int
        The grid's size.
    max_points : int or None
        The limit (``None``: no limit).
    option : str, optional
        The option or keyword named in the message (``--max-points``).

    Raises
    ------
    SweepError
        Naming ``option`` when ``n > max_points``.
    """
    if max_points is not None and n > max_points:
        raise SweepError(f"{option}: the grid has {n} points, more than the limit of {max_points} "
                         f"(give {option}{' ' if option.startswith('-') else '='}{n} to run it anyway)")


def parse_vary(vary: Mapping[str, Any] | Sequence[str] | Grid, max_points: int | None = None,
               option: str = "max_points") -> Grid:
    """Build a ``Grid`` from ``{key: spec-or-values}`` or from CLI items ``"KEY=SPEC"``.

    A ``Grid`` is returned as it is, after the size check. A value may be a spec string (module doc)
    or a sequence of numbers/strings.

    Parameters
    ----------
    vary : Mapping[str, Any] or Sequence[str] or Grid
        The varied keys and their values.
    max_points : int, optional
        Refuse a grid of more points (counted before any value is made); ``None``: no limit.
    option : str, optional
        The option named in the size message (e.g. ``--max-points``).

    Returns
    -------
    Grid
        Keys in the given order (the last one fastest).

    Raises
    ------
    SweepError
        On a malformed item, no key, an empty key, a key given twice, a bad spec, or too many
        points.
    """
    if isinstance(vary, Grid):
        check_size(len(vary), max_points, option)
        return vary
    pairs: list[tuple[str, Any]] = []
    if isinstance(vary, Mapping):
        pairs = [(str(k), v) for k, v in vary.items()]
    else:
        for item in vary:
            key, sep, spec = str(item).partition("=")
            if not sep:
                raise SweepError(f"--vary: expected KEY=SPEC, got {item!r}")
            pairs.append((key.strip(), spec))
    if not pairs:
        raise SweepError("vary: give at least one KEY=SPEC")
    # a lower bound of the size (a malformed spec, counted as 1, is an error below anyway)
    check_size(math.prod(_spec_size(spec) or 1 for _, spec in pairs), max_points, option)
    keys, values = [], []
    for key, spec in pairs:
        if not key:
            raise SweepError(f"vary: empty key in {key}={spec!r}")
        if key in keys:
            raise SweepError(f"{key}: varied twice")
        vals = parse_spec(spec, key) if isinstance(spec, str) else _checked(list(spec), key)
        keys.append(key)
        values.append(tuple(vals))
    grid = Grid(tuple(keys), tuple(values))
    check_size(len(grid), max_points, option)  # a values iterable without len() was counted as 1
    return grid
