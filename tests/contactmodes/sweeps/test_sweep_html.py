"""``contactmodes sweep … --html``: the sweep's maps as an interactive page (contactmodes.sweeps.html).

The heat map's cells are compared with the sweep's own table (``SweepResult.to_frame``): finite
values on the colour scale, infinite and n/a cells in the overlay layer, one panel visible at a
time through the drop-down; the CLI writes the page and refuses a wrong name before running.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from contactmodes.cli import main
from contactmodes.sweeps import run_sweep
from contactmodes.sweeps.html import sweep_figure

ROOT = Path(__file__).resolve().parents[3]
ROD = str(ROOT / "examples" / "painleve_rod.toml")


def test_heat_map_cells_are_the_table_values_and_the_menu_shows_one_panel_at_a_time():
    result = run_sweep("analyze", {"contacts.0.mu": "0.25:3:4", "state.qdot.x": "-2:2:3"}, system=ROD,
                       modes=["L"], unambiguous=True, inconsistency_box="-20:20", workers=0)
    fig = sweep_figure(result)
    df = result.to_frame()
    panels = [p for p in result.prepared.panels if p.column in df.columns]
    shown = {t["meta"]["column"] for t in fig["data"]}
    assert shown and shown <= {p.column for p in panels}
    for column in shown:
        heat, overlay = [t for t in fig["data"] if t["meta"]["column"] == column]
        values = np.array([float(v) if v is not None else np.nan for v in df[column]], dtype=float)
        grid = values.reshape(4, 3).T  # (y, x): x = mu varies slowest in grid order
        for j in range(3):
            for i in range(4):
                v, cell, mark = grid[j, i], heat["z"][j][i], overlay["z"][j][i]
                if np.isfinite(v):
                    assert cell == v and mark is None
                else:
                    assert cell is None and mark == (2.0 if v == np.inf else 0.0 if v == -np.inf else 1.0)
    assert sum(t["visible"] for t in fig["data"]) == 2  # the first panel's heat map and overlay
    if len(shown) > 1:
        buttons = fig["layout"]["updatemenus"][0]["buttons"]
        assert all(sum(b["args"][0]["visible"]) == 2 for b in buttons)


def test_sweep_html_writes_a_page_and_refuses_a_wrong_name(tmp_path):
    out = tmp_path / "rod.html"
    assert main(["sweep", "analyze", ROD, "--vary", "contacts.0.mu=0.5:2:3", "--html", str(out), "--workers", "0"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<script src=" not in text and "heatmap" not in text.split("<script")[0]
    assert main(["sweep", "analyze", ROD, "--vary", "contacts.0.mu=0.5:2:3", "--html", str(tmp_path / "x.png"),
                 "--workers", "0"]) == 2
    assert not (tmp_path / "x.png").exists()
