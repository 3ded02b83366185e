"""How results show themselves — Jupyter's HTML, the text reports — without importing the stage
that draws them.

The pipeline runs one way (``model`` → ``modes`` → ``system_file`` → ``analysis`` → ``control``
and ``impact`` → ``output`` → ``cli``; ``tests/test_architecture.py`` declares and checks it),
yet an ``AnalysisResult`` shows the tables and pictures of ``contactmodes.output`` in a notebook
(``_repr_html_``), and ``ImpactResult.format_text`` writes its intervals as the analysis table
does. So a result asks this module, below every stage, for the renderer of its kind and format,
and ``contactmodes.output`` registers its renderers here when it is imported. The front door
(``contactmodes/__init__.py``) imports ``contactmodes.output``, and Python runs the front door
before any module of the package, so a result of any ``contactmodes`` import finds them; the
renderers import their modules only when called (``import contactmodes`` stays light).

Kinds and formats registered by ``contactmodes.output``: ``("analysis", "html")`` and
``("mode", "html")`` (``contactmodes.output.notebook``: ``AnalysisResult``, ``ModeAnalysis``),
``("sweep", "html")`` (``SweepResult``), ``("impact", "text")``
(``contactmodes.output.impact_text``: ``ImpactResult.format_text``).
"""

from __future__ import annotations

from typing import Any, Callable

from contactmodes.errors import InternalError

__all__ = ["register", "render", "registered"]

_RENDERERS: dict[tuple[str, str], Callable[[Any], str]] = {}


def register(kind: str, fmt: str, renderer: Callable[[Any], str]) -> None:
    """Make ``renderer`` the view of the results of ``kind`` in ``fmt`` (a later registration of
    the same pair replaces it).

    Parameters
    ----------
    kind : str
        The result's kind: ``"analysis"``, ``"mode"``, ``"sweep"``, ``"impact"``.
    fmt : str
        ``"html"`` (Jupyter's ``_repr_html_``) or ``"text"``.
    renderer : Callable[[Any], str]
        Called with the result; returns the view.
    """
    _RENDERERS[(kind, fmt)] = renderer


def registered() -> list[tuple[str, str]]:
    """The ``(kind, fmt)`` pairs with a renderer, sorted."""
    return sorted(_RENDERERS)


def render(kind: str, fmt: str, result: Any) -> str:
    """The view of ``result`` (a result of ``kind``) in ``fmt``.

    Parameters
    ----------
    kind : str
        As in ``register``.
    fmt : str
        As in ``register``.
    result : Any
        The result to show.

    Returns
    -------
    str
        What the registered renderer returns.

    Raises
    ------
    InternalError
        No renderer of ``(kind, fmt)`` is registered (``contactmodes.output`` registers them
        all when the package is imported: a missing one is the toolkit's bug).
    """
    renderer = _RENDERERS.get((kind, fmt))
    if renderer is None:
        raise InternalError(f"no {fmt} view of a {kind!r} result is registered (contactmodes.output registers them)")
    return renderer(result)
