"""Output: the text table, the pictures, the interactive pages and the notebook views.

Importing this package registers the views of the earlier stages' results with
``contactmodes.views`` (the front door imports it): each renderer imports its module when first
called, so the registration costs nothing at ``import contactmodes``.
"""

from __future__ import annotations

from typing import Any

from contactmodes import views


def _analysis_html(result: Any) -> str:
    from contactmodes.output.notebook import analysis_html

    return analysis_html(result)


def _mode_html(result: Any) -> str:
    from contactmodes.output.notebook import mode_html

    return mode_html(result)


def _sweep_html(result: Any) -> str:
    from contactmodes.output.notebook import sweep_html

    return sweep_html(result)


def _impact_text(result: Any) -> str:
    from contactmodes.output.impact_text import format_impact

    return format_impact(result)


views.register("analysis", "html", _analysis_html)
views.register("mode", "html", _mode_html)
views.register("sweep", "html", _sweep_html)
views.register("impact", "text", _impact_text)
