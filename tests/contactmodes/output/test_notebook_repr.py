"""How results look in Jupyter: ``_repr_html_`` and the short ``__repr__`` of the analysis result,
a mode, a ``Polytope`` and a sweep result (contactmodes.output.notebook).

The tables are read back with the standard library's HTML parser and compared with the objects'
own numbers (``box``, ``chebyshev_center``, the sweep's documents): the view must show what the
object holds, rounded to four significant digits, ``−∞``/``∞`` for unbounded ends.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import numpy as np

import contactmodes as cm
from polytopes import Polytope

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


class _Cells(HTMLParser):
    """Rows of every table (lists of cell texts) and the images' sources."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.images: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(dict(attrs)["src"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _cells(text: str) -> _Cells:
    parser = _Cells()
    parser.feed(text)
    return parser


def _shown(v: float) -> str:
    return ("∞" if v > 0 else "−∞") if np.isinf(v) else f"{float(v):.4g}"


def test_analysis_result_table_lists_every_mode_with_its_box_and_a_picture():
    r = cm.analyze(EXAMPLES / "painleve_rod.toml", unambiguous=True, inconsistency_box=([-20.0], [20.0]))
    assert repr(r) == "AnalysisResult(system='painleve_rod', modes=2, feasible=2, overlaps=1)"
    view = _cells(r._repr_html_())
    header, *rows = view.rows
    assert header == ["mode", "feasible", "dim T_c", "M lo", "M hi", "overlaps with"]
    assert [row[0] for row in rows] == list(r.modes)
    for row in rows:
        lo, hi = r.modes[row[0]].box
        assert row[3:5] == [_shown(lo[0]), _shown(hi[0])]
        assert row[5] == ", ".join(r.overlapping(row[0]))
    assert len(view.images) == 1 and view.images[0].startswith("data:image/png;base64,")


def test_mode_view_shows_bounds_and_chebyshev_centre():
    r = cm.analyze(EXAMPLES / "rhex_flip_start.toml", modes=["FFFF"], compute_overlaps=False)
    mode = r.modes["FFFF"]
    header, *rows = _cells(mode._repr_html_()).rows
    assert header == ["torque", "lo", "hi", "Chebyshev centre"]
    lo, hi = mode.box
    centre = mode.T.chebyshev_center().center
    assert rows == [[name, _shown(lo[k]), _shown(hi[k]), _shown(centre[k])]
                    for k, name in enumerate(r.system.torques)]
    assert repr(mode) == "ModeAnalysis(mode='FFFF', feasible=True)"


def test_polytope_view_is_a_table_of_its_box_and_says_when_empty():
    square = Polytope.box([0.0, -1.0], [2.0, 1.0])
    view = _cells(square._repr_html_())
    assert view.rows[1:] == [["x0", "0", "2", "1"], ["x1", "-1", "1", "0"]]
    assert "affine dimension 2" in square._repr_html_()
    assert "empty" in Polytope.empty(2)._repr_html_()
    assert repr(square) == "Polytope(dim=2, n_ineq=4, n_eq=0)"


def test_sweep_result_view_has_one_row_per_point():
    from contactmodes.sweeps import run_sweep

    result = run_sweep("analyze", {"contacts.*.mu": "0.2:0.4:3"}, system=str(EXAMPLES / "two_link_brace.toml"),
                       modes=["FFF"], workers=0)
    assert repr(result) == "SweepResult(kind='analyze', keys=['contacts.*.mu'], points=3, failed=0)"
    header, *rows = _cells(result._repr_html_()).rows
    assert header[:3] == ["contacts.*.mu", "ok", "error"]
    assert [row[0] for row in rows] == [_shown(p["params"]["contacts.*.mu"]) for p in result.points]
