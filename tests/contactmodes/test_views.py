"""``contactmodes.views``: results of the earlier stages show themselves through renderers the output
stage registers (the pipeline order of ``tests/test_architecture.py`` forbids ``analysis``,
``impact`` and ``sweeps`` importing ``output`` to do it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import contactmodes as cm
from contactmodes import views
from contactmodes.errors import InternalError
from contactmodes.output.impact_text import format_impact
from contactmodes.output.notebook import analysis_html, mode_html

from _support.paths import EXAMPLES, ROOT


def test_the_front_door_registers_every_view_of_output():
    assert views.registered() == [("analysis", "html"), ("impact", "text"), ("mode", "html"), ("sweep", "html")]


def test_a_result_renders_with_the_output_stage_renderer():
    result = cm.analyze(EXAMPLES / "two_link_brace.toml")
    assert result._repr_html_() == analysis_html(result)
    assert result.modes["FFF"]._repr_html_() == mode_html(result.modes["FFF"])
    touchdown = cm.impact(EXAMPLES / "impact" / "rocking_block.toml", pseudo_impulse=0.03)
    text = touchdown.format_text()
    assert text == format_impact(touchdown) and text.startswith("impact of rocking_block: approaching right")


def test_a_missing_renderer_is_the_toolkits_error():
    with pytest.raises(InternalError, match="no html view of a 'nothing' result"):
        views.render("nothing", "html", object())


def test_a_stage_imported_alone_finds_its_views_and_loads_output_only_when_shown():
    """A fresh interpreter that imports only ``contactmodes.analysis.analyze`` (Python runs the front
    door first, which registers the views) shows the result; ``contactmodes.output.notebook`` is
    loaded by the first ``_repr_html_``, not before."""
    code = ("import sys\n"
            "from contactmodes.analysis.analyze import analyze\n"
            "r = analyze(sys.argv[1])\n"
            "before = 'contactmodes.output.notebook' in sys.modules\n"
            "html = r._repr_html_()\n"
            "print(before, 'contactmodes.output.notebook' in sys.modules, '<table' in html)\n")
    out = subprocess.run([sys.executable, "-c", code, str(EXAMPLES / "two_link_brace.toml")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True", "True"]
