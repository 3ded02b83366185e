"""``docs/contact-types.md`` ("Adding a contact type"): its Python block runs from the repository
root and prints the output the page shows after it.

The page's output block was written by hand from the rules of ``SpatialPointContact`` (the
circumscribed square, ``θ_j = jπ/2``, ``ρ = 1``, ``μ = 0.5``: side ``a``'s force row
``f_t1 − μ f_n = 0`` and direction rows ``ẍ_t2 = 0``, ``−ẍ_t1 >= 0``; vertex ``A`` at the corner
``(μ, μ) f_n`` with ``−ẍ_t2 >= 0``, ``−ẍ_t1 >= 0``; a slip velocity ``(0.3, 0.4)`` has the unit
direction ``(0.6, 0.8)`` and ``D``'s rows ``f_t + μ v̂ f_n = 0``), not printed by the code."""

from __future__ import annotations

import re
import subprocess
import sys

from _support.paths import ROOT

PAGE = ROOT / "docs" / "contact-types.md"


def _blocks(text: str) -> tuple[str, str]:
    """The page's one Python block and the ``text`` block that follows it."""
    found = re.findall(r"```python\n(.*?)```\s*\n(?:[^`\n][^\n]*\n|\n)*?```text\n(.*?)```", text, flags=re.S)
    assert len(found) == 1, "expected one python block followed by its text output block"
    assert len(re.findall(r"```python\n", text)) == 1
    return found[0]


def test_the_contact_types_page_example_prints_what_the_page_says():
    code, expected = _blocks(PAGE.read_text(encoding="utf-8"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == expected.splitlines()


def test_the_page_is_in_the_navigation_next_to_spatial():
    nav = [line.strip() for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()]
    i = nav.index("- Spatial mechanisms: spatial.md")
    assert nav[i + 1] == "- Adding a contact type: contact-types.md"
