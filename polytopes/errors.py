"""Exceptions of ``polytopes``.

Two families, kept apart on purpose: ``PolytopeError`` (a ``ValueError``) is the caller's
mistake — bad data or an operation undefined for the given input — and a command-line tool may
report it as a user error; ``NumericalError`` is the package's own failure (no solver or
method produced an answer that survived verification) and must be reported as an internal error.
"""

from __future__ import annotations


class PolytopeError(ValueError):
    """Invalid polytope data or an operation undefined for the given set.

    The message names the offending field (e.g. ``"b: expected shape (3,), got (2,)"``).
    """


class ProjectionBudgetError(PolytopeError):
    """A projection would exceed its row budget (``max_rows``); the message names a better method."""


class NumericalError(Exception):
    """Internal numerical failure: no LP solver or projection method gave an answer that passed
    verification (residual, certificate or support-function checks).

    Deliberately *not* a ``PolytopeError``/``ValueError``: it says nothing about the input
    being wrong. Callers with an exit-status contract (``contactmodes`` CLI) report it as an
    internal error (exit 70).
    """
