"""The system file's fields: the one set of validators and messages of the planar and spatial
readers (``loader``, ``spatial_file``). Every validator raises ``SystemFileError("<key path>: <what>")``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from polytopes import Polytope

from contactmodes.errors import ApproachingContactError, ContactModelError, SystemFileError
from contactmodes.model.system import Disturbance
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


def _numbers(value: Any, path: str, size: int | None = None) -> np.ndarray:
    items = _array(value, path)
    if size is not None and len(items) != size:
        raise _fail(path, f"expected {size} numbers, got {len(items)}")
    return np.array([_number(v, f"{path}[{i}]") for i, v in enumerate(items)], dtype=float)


def _disturbance(table: Mapping[str, Any], coords: Sequence[str]) -> Disturbance:
    """The ``[disturbance]`` table: ``coordinates`` plus either ``lower``/``upper`` (a box) or
    ``A``/``b`` (``A δ <= b``); components in the generalized-force units of their coordinates.

    ``coords`` are the system's velocity coordinates (``n_q``): a planar file's ``x, y, theta``
    and joints, a spatial file's ``x, y, z, wx, wy, wz`` and joints; ``E`` has one unit column
    per named coordinate. Shared by the planar and the spatial reader (one set of messages)."""
    _keys(table, "disturbance", ("coordinates", "lower", "upper", "A", "b"), required=("coordinates",))
    names = [_string(c, f"disturbance.coordinates[{i}]") for i, c in enumerate(_array(table["coordinates"], "disturbance.coordinates"))]
    if not names:
        raise _fail("disturbance.coordinates", "must name at least one coordinate")
    for i, c in enumerate(names):
        if c not in coords:
            raise _fail(f"disturbance.coordinates[{i}]", f"unknown coordinate {c!r} (have {', '.join(coords)})")
    if len(set(names)) != len(names):
        raise _fail("disturbance.coordinates", "coordinates must be distinct")
    n_d = len(names)
    box = "lower" in table or "upper" in table
    hrep = "A" in table or "b" in table
    if box == hrep:
        raise _fail("disturbance", "give either lower and upper (a box) or A and b (A delta <= b)")
    if box:
        for key in ("lower", "upper"):
            if key not in table:
                raise _fail(f"disturbance.{key}", "required key is missing (a box needs lower and upper)")
        lo = _numbers(table["lower"], "disturbance.lower", n_d)
        hi = _numbers(table["upper"], "disturbance.upper", n_d)
        for i in range(n_d):
            if lo[i] > hi[i]:
                raise _fail(f"disturbance.lower[{i}]", f"must be <= upper[{i}], got {lo[i]} > {hi[i]}")
        dset = Polytope.box(lo, hi)
    else:
        for key in ("A", "b"):
            if key not in table:
                raise _fail(f"disturbance.{key}", "required key is missing (an H-polytope needs A and b)")
        rows = _array(table["A"], "disturbance.A")
        A = np.array([_numbers(r, f"disturbance.A[{i}]", n_d) for i, r in enumerate(rows)]).reshape(len(rows), n_d)
        b = _numbers(table["b"], "disturbance.b", len(rows))
        dset = Polytope(A, b)
    E = np.zeros((len(coords), n_d))
    for j, c in enumerate(names):
        E[list(coords).index(c), j] = 1.0
    return _builder("disturbance", Disturbance, tuple(names), E, dset)


def _friction_box(parsed: Any, accept: bool):
    """The file's ``FrictionBox`` when a contact gives ``mu`` as an interval (else ``None``);
    refuses an interval of positive width unless ``accept`` (``parse_system``).

    ``parsed`` has ``mu_intervals`` (``(lo, hi, given_as_interval)`` per contact) and
    ``contact_names``: the planar ``SystemFileContents`` or the spatial ``SpatialContents``."""
    from contactmodes.model.friction import FrictionBox

    for i, (lo, hi, _) in enumerate(parsed.mu_intervals):
        if lo < hi and not accept:
            raise _fail(f"contacts[{i}].mu", f"an interval of friction coefficients [{lo:g}, {hi:g}] is read by "
                                             f"'analyze', 'brace', 'plot' (PNG) and 'sweep analyze' only (docs/friction-intervals.md); "
                                             f"give one number here")
    if not any(given for _, _, given in parsed.mu_intervals):
        return None
    return FrictionBox(np.array([lo for lo, _, _ in parsed.mu_intervals], dtype=float),
                       np.array([hi for _, hi, _ in parsed.mu_intervals], dtype=float),
                       tuple(parsed.contact_names))
