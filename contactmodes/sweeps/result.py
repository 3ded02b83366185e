"""The result of a sweep: the ``contactmodes.sweep/1`` document and the table (pandas).

JSON document (``--json``; ``docs/sweeps.md``):

    {"schema": "contactmodes.sweep/1", "kind": "analyze" | "flip" | …,
     "vary": {KEY: [values]}, "scheduler": "serial" | "local" | ADDRESS, "workers": N,
     …inputs of the kind (e.g. "system", "modes", "torques")…,
     "points": [{"params": {KEY: value}, "ok": true | false, "error": null | "Type: message",
                 …the kind's fields (absent when ok is false)…}]}

No NaN or Infinity appears: ``null`` stands for an unbounded end, an infinite measure, or "not
applicable" (each field's doc says which).

Table (``SweepResult.to_frame``, ``--output``): one row per point in grid order; the varied
keys, ``ok``, ``error``, then the kind's columns — NaN where not applicable (or the point
failed), ±inf where unbounded. CSV writes them as ``nan``/``inf``/``-inf`` (pandas reads them
back); JSON records (``.json``) write every non-finite value as ``null``; parquet keeps them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from contactmodes import views
from contactmodes.sweeps.grid import Grid, SweepError
from contactmodes.sweeps.kinds import Prepared

__all__ = ["SCHEMA", "SweepResult", "TABLE_FORMATS", "check_table_path"]

SCHEMA = "contactmodes.sweep/1"
TABLE_FORMATS = (".csv", ".json", ".parquet")


def check_table_path(path: str) -> str:
    """The format of a table file name, checked before anything runs.

    Parameters
    ----------
    path : str
        The ``--output`` path.

    Returns
    -------
    str
        ``".csv"``, ``".json"`` or ``".parquet"``.

    Raises
    ------
    SweepError
        On another extension or a parquet file without pyarrow.
    """
    import importlib.util
    import os

    ext = os.path.splitext(path)[1].lower()
    if ext not in TABLE_FORMATS:
        raise SweepError(f"--output: expected a .csv, .json or .parquet file name, got {path!r}")
    if ext == ".parquet" and importlib.util.find_spec("pyarrow") is None:
        raise SweepError("--output: writing .parquet needs pyarrow, which is not installed "
                         "(pip install 'contactmodes[parquet]'), or choose .csv or .json")
    return ext


@dataclass
class SweepResult:
    """A finished sweep.

    Attributes
    ----------
    kind : str
        The kind's name.
    grid : Grid
        The ``Grid``.
    prepared : Prepared
        The kind's ``Prepared`` (columns, panels, inputs).
    points : list[dict]
        Point documents in grid order (module doc).
    scheduler : str
        ``"serial"``, ``"local"`` or the scheduler address.
    workers : int
        How many ran it.
    """

    kind: str
    grid: Grid
    prepared: Prepared
    points: list[dict]
    scheduler: str
    workers: int

    def __repr__(self) -> str:
        return (f"SweepResult(kind={self.kind!r}, keys={list(self.grid.keys)}, points={len(self.points)}, "
                f"failed={self.n_failed})")

    def _repr_html_(self) -> str:
        """Jupyter's view: the header and the table's first rows (``contactmodes.output.notebook.sweep_html``,
        reached through ``contactmodes.views``)."""
        return views.render("sweep", "html", self)

    @property
    def n_failed(self) -> int:
        """Points whose evaluation raised."""
        return sum(not p["ok"] for p in self.points)

    def to_json(self) -> dict:
        """The ``contactmodes.sweep/1`` document (module doc)."""
        doc: dict[str, Any] = {"schema": SCHEMA, "kind": self.kind, "vary": self.grid.to_json(),
                               "scheduler": self.scheduler, "workers": self.workers}
        doc.update(self.prepared.header)
        doc["points"] = self.points
        return doc

    def dumps(self) -> str:
        """``to_json`` as indented JSON text (no NaN/Infinity) with a final newline."""
        return json.dumps(self.to_json(), indent=2, allow_nan=False) + "\n"

    def to_frame(self):
        """The table as a ``pandas.DataFrame`` (module doc); ``df.attrs`` holds the document's
        header (``schema``, ``kind``, ``vary``, ``scheduler``, ``workers`` and the kind's inputs).
        Raises ``MissingExtraError`` without pandas (the ``sweep`` extra)."""
        from contactmodes.extras import require

        require("pandas", "sweep", "to_frame")
        import pandas as pd

        rows = []
        for p in self.points:
            row = dict(p["params"])
            row["ok"], row["error"] = p["ok"], p["error"]
            if p["ok"]:
                row.update(self.prepared.row(p))
            rows.append(row)
        df = pd.DataFrame(rows)
        columns = list(self.grid.keys) + ["ok", "error"]
        df = df[columns + [c for c in df.columns if c not in columns]]
        header = self.to_json()
        header.pop("points")
        df.attrs.update(header)
        return df

    def write_table(self, path: str) -> None:
        """Write ``to_frame`` to ``path`` in the format its extension names (module doc).

        Parameters
        ----------
        path : str
            A ``.csv``, ``.json`` or ``.parquet`` file.

        Raises
        ------
        SweepError
            As ``check_table_path``.
        """
        ext = check_table_path(path)
        df = self.to_frame()
        if ext == ".csv":
            df.to_csv(path, index=False)
        elif ext == ".parquet":
            df.attrs.clear()  # pyarrow stores attrs as metadata; keep the file plain
            df.to_parquet(path, index=False)
        else:
            records = [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict(orient="records")]
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(records, fh, indent=2, allow_nan=False)
                fh.write("\n")


def _json_value(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
