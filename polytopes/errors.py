"""Exceptions of :mod:`polytopes`."""

from __future__ import annotations


class PolytopeError(ValueError):
    """Invalid polytope data or an operation undefined for the given set.

    The message names the offending field (e.g. ``"b: expected shape (3,), got (2,)"``).
    """


class ProjectionBudgetError(PolytopeError):
    """A projection would exceed its row budget (``max_rows``); the message names a better method."""
