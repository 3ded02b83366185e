"""The system file's fields: the one set of validators and messages of the planar and spatial
readers (``loader``, ``spatial_file``). Every validator raises ``SystemFileError("<key path>: <what>")``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from contactmodes.errors import ApproachingContactError, ContactModelError, SystemFileError
from contactmodes.tolerances import MAGNITUDE_MAX, MU_MAX

SCHEMA = "contactmodes.system/1"
"""Value accepted for the optional top-level ``schema`` key."""

DEFAULT_GRAVITY = 9.81
"""Default magnitude ``g`` (m/s²) of gravity ``(0, −g)`` (``docs/conventions.md``)."""

_NAME_RE = re.compile(r"^[A-Za-z0-9_\-]+$")
_BARE_KEY_RE = _NAME_RE

# ------------------------------------------------------------------------------------------------
# small validators; every one raises SystemFileError("<path>: <what>")


def _fail(path: str, message: str) -> SystemFileError:
    return SystemFileError(f"{path}: {message}" if path else message)


def _join(path: str, key: str) -> str:
    key_text = key if _BARE_KEY_RE.match(key) else json.dumps(key)
    return f"{path}.{key_text}" if path else key_text


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "table"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _table(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(path, f"must be a table, got {_type_name(value)} {value!r}")
    return value


def _keys(table: Mapping[str, Any], path: str, allowed: Sequence[str], required: Sequence[str] = ()) -> None:
    for key in table:
        if key not in allowed:
            raise _fail(_join(path, str(key)), f"unknown key (allowed: {', '.join(allowed)})")
    for key in required:
        if key not in table:
            raise _fail(_join(path, key), "required key is missing")


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _fail(path, f"must be a string, got {_type_name(value)} {value!r}")
    return value


def _choice(value: Any, path: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (strings): ``"<path>: must be one of 'a', 'b', got …"``."""
    text = _string(value, path)
    if text not in choices:
        raise _fail(path, f"must be one of {', '.join(map(repr, choices))}, got {text!r}")
    return text


def _name(value: Any, path: str) -> str:
    text = _string(value, path)
    if not _NAME_RE.match(text):
        raise _fail(path, f"must be a non-empty name of letters, digits, '_' or '-', got {text!r}")
    return text


def _number(value: Any, path: str, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(path, f"must be a number, got {_type_name(value)} {value!r}")
    try:
        x = float(value)
    except OverflowError:  # an integer beyond double precision
        raise _fail(path, f"magnitude must be <= {MAGNITUDE_MAX:g}, got {value}") from None
    if not math.isfinite(x):
        raise _fail(path, f"must be a finite number, got {x}")
    if abs(x) > MAGNITUDE_MAX:
        raise _fail(path, f"magnitude must be <= {MAGNITUDE_MAX:g} (contactmodes.tolerances.MAGNITUDE_MAX: "
                          f"larger numbers overflow the dynamics), got {x:g}")
    if minimum is not None and x < minimum:
        raise _fail(path, f"must be >= {minimum:g}, got {x:g}")
    return x


def _mu(value: Any, path: str) -> float:
    """One friction coefficient: a number in ``[0, MU_MAX]``."""
    mu = _number(value, path, minimum=0.0)
    if mu > MU_MAX:
        raise _fail(path, f"must be <= {MU_MAX:g} (contactmodes.tolerances.MU_MAX: beyond it the "
                          f"friction cone is numerically meaningless), got {mu:g}")
    return mu


def _friction(value: Any, path: str) -> tuple[float, float]:
    """A contact's ``mu``: a number (``(μ, μ)``) or an interval ``[lo, hi]`` with
    ``0 <= lo <= hi <= MU_MAX`` (issue 26, ``docs/friction-intervals.md``)."""
    if not isinstance(value, (list, tuple)):
        mu = _mu(value, path)
        return mu, mu
    if len(value) != 2:
        raise _fail(path, f"an interval must be two numbers [lo, hi], got {len(value)}")
    lo, hi = _mu(value[0], f"{path}[0]"), _mu(value[1], f"{path}[1]")
    if lo > hi:
        raise _fail(path, f"interval [{lo:g}, {hi:g}] needs lo <= hi")
    return lo, hi


def _inertial(value: Any, path: str) -> float:
    """A mass or an inertia: 0 (massless) or in ``[1/MAGNITUDE_MAX, MAGNITUDE_MAX]``."""
    x = _number(value, path, minimum=0.0)
    if 0.0 < x < 1.0 / MAGNITUDE_MAX:
        raise _fail(path, f"a nonzero mass or inertia must be >= {1.0 / MAGNITUDE_MAX:g} (use 0 for a massless "
                          f"link), got {x:g}")
    return x


def _point(value: Any, path: str) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise _fail(path, f"must be an array of two numbers [x, y], got {value!r}")
    return (_number(value[0], f"{path}[0]"), _number(value[1], f"{path}[1]"))


def _outline(value: Any, path: str) -> np.ndarray:
    """A link's ``outline``: at least two points ``[x, y]`` (m, link frame) → ``(k, 2)``."""
    points = _array(value, path)
    if len(points) < 2:
        raise _fail(path, f"must list at least two points [x, y] (a polygon, or a segment), got {len(points)}")
    return np.array([_point(pt, f"{path}[{i}]") for i, pt in enumerate(points)], dtype=float)


def _array(value: Any, path: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise _fail(path, f"must be an array, got {_type_name(value)} {value!r}")
    return list(value)


def _tables(data: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """The array of tables ``data[key]`` (``[]`` if absent), each checked to be a table."""
    items = _array(data.get(key, []), key)
    return [_table(item, f"{key}[{i}]") for i, item in enumerate(items)]




_FIELD_RE = re.compile(r"([A-Za-z_]\w*)(?:\[[^\]]*\])?(?:\.\w+|\[[^\]]*\])*")


def _in_file_terms(path: str, message: str) -> str:
    """A builder's ``message`` naming its field once, with the file's key path ``path``.

    Builders name what they check in their own terms (``contacts[tip].link``,
    ``disturbance.set``), which are not the file's keys. When the message starts with a field of
    the same table or array as ``path``, ``path`` replaces that field (``contacts[0]: …``,
    ``disturbance: …``); any other message is prefixed by ``path``.
    """
    head, sep, rest = message.partition(": ")
    m = _FIELD_RE.fullmatch(head) if sep else None
    root = _FIELD_RE.match(path)
    if m and root and m.group(1) == root.group(1):
        return f"{path}: {rest}"
    return f"{path}: {message}" if path else message


def _builder(path: str, fn: Callable, *args, **kwargs):
    """Call a builder method; re-raise its ContactModelError as SystemFileError naming the field
    once, with the file's key path ``path`` (``_in_file_terms``)."""
    try:
        return fn(*args, **kwargs)
    except SystemFileError:
        raise
    except ApproachingContactError:
        raise  # keeps its type; its message names its field, state.qdot, already
    except ContactModelError as exc:
        raise SystemFileError(_in_file_terms(path, str(exc))) from exc




def _gap_problem(contact: str, gap: float, tol: float) -> str | None:
    """Why the loader rejects a contact at signed distance ``gap`` from its surface (the file's
    length unit), or ``None`` when ``|gap| <= tol`` (``_gap_tolerance``)."""
    if abs(gap) <= tol:
        return None
    return (f"contact {contact!r} does not touch its surface at state.q: gap {gap:.6g} "
            f"(tolerance GAP_RTOL × the mechanism's size = {tol:.3g}, in the file's length unit)")
