"""A minimal TOML writer for the test documents (top-level scalars/tables, arrays of tables):
system files built as dicts in the tests, written for the loader and the CLI."""

from __future__ import annotations

import json
import math


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        if isinstance(v, float) and math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(v)


def to_toml(doc: dict) -> str:
    lines = []
    for k, v in doc.items():
        if not isinstance(v, (dict, list)) or (isinstance(v, list) and not all(isinstance(x, dict) for x in v)) or (
            isinstance(v, list) and not v
        ):
            lines.append(f"{k} = {_value(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{k}]")
            lines += [f"{json.dumps(kk)} = {_value(x)}" for kk, x in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{k}]]")
                lines += [f"{json.dumps(kk)} = {_value(x)}" for kk, x in item.items()]
    return "\n".join(lines) + "\n"
