"""Human-readable tables of an analysis result (the CLI's default output), at most 100 columns wide.

One row per analysed contact mode: the mode string, the rank case of the stacked equality system
(24) (cases 1–4 of Sec. III-D), ``dim w`` (null-space dimension), ``w→q̈`` whether ``w`` moves
accelerations (III-G.2), whether the mode is feasible (non-empty ``D_c``), then

* up to three torques: the interval each torque ranges over in ``T_c`` (its bounding box:
  ``[lo, hi]``, ``<=hi`` or ``>=lo`` with one side unbounded, ``any``, or ``=v``), the number of
  facets (inequality rows of the minimal H-representation) and the affine dimension;
* more torques: the affine dimension, the facets, the Chebyshev centre (``centre``) and radius of
  ``T_c`` (user units) and its *finite* bounds only (``bounds``: ``tau1<=-0.19``; an unbounded
  side is omitted);

and the modes whose ``T_c`` overlaps this one (III-G.1; ``+N`` for the names that do not fit).

Numbers: at most 4 significant digits, in ``%g`` form with a compact exponent (``1.5e6``,
``-6.8e-12``); a bound that is zero within ``BOUND_ZERO_RTOL`` of
the torque's scale prints as ``0`` (``format_bound``). Widths are display columns (``w→q̈`` is
three), and a line is also at most ``WIDTH`` characters. When the columns do not fit, the
widest are narrowed: a number loses significant digits, never its exponent or sign
(``format_number``); a list (centre, finite bounds, intervals of ``T*_c``, overlapping modes)
is cut between two items with ``…`` (``+N`` for the overlaps); a mode string is never cut. The
overlaps column stays only when the other columns fit beside it with every number at 4
significant digits (a list may still be cut between items); else it is left out (with a note), and
only when even that is not enough are long headers cut to ``HEADER_CUT`` columns, then numbers
go down to 3, 2, 1 digit, and last the long headers are cut further (``_Cell`` levels). A
note under the table says when a cell was shortened.

With more than ``MAX_ROWS`` modes the table shows the first ones and says how to see the rest,
and shows for them only the bounds (from the bounding boxes the analysis already has: no domain is
projected for the table, which at thousands of modes would cost minutes; ``--mode MODE`` gives the
full columns). Overlapping pairs are listed in full while there are at most ``list_limit`` of them,
else summarized with the hint ``--overlaps``. A pair whose sets meet only on their boundaries
(``dim(T_c ∩ T_c') < min(dim T_c, dim T_c')``, ``OverlapPairs.boundary_only``: typically a common
facet, a friction cone's edge) is marked ``(boundary only)`` in the list, and the summary says how
many of the pairs are; with more than ``BOUNDARY_ONLY_MAX`` pairs they are not classified (it
would cost more than the analysis: one affine hull per pair) and the summary says so.

A system without actuators (a falling block, a robot with its motors off) has its torque sets in
``R^0``: a mode is simply consistent or not. Its table has the column ``consistent`` (``yes`` /
``no``: ``D_c`` nonempty over ``w``) in place of ``feasible`` and no torque, facet or dimension
column; ``T*_c`` becomes ``unambiguous`` (``yes`` when the mode is the only consistent one and its
task rows hold over all its solutions), overlaps are the other consistent modes, and a last line
gives the verdict: ``unique``, ``ambiguous`` (several consistent modes) or ``inconsistent`` (none:
Painlevé).
"""

from __future__ import annotations

import math
import unicodedata
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from contactmodes.tolerances import BOUND_ZERO_RTOL

__all__ = ["MAX_ROWS", "WIDTH", "format_at", "format_bound", "format_number", "format_table"]

#: Target width of every line of the table (display columns).
WIDTH = 100
#: Largest number of mode rows printed (the rest is summarized).
MAX_ROWS = 200
#: Largest number of overlapping pairs classified as boundary-only for the table (module doc).
BOUNDARY_ONLY_MAX = 2000
#: Significant digits of a number when there is room.
DIGITS = 4
#: A list (centre, finite bounds, intervals) drops items before its numbers go below this many
#: significant digits.
LIST_DIGITS = 3
#: A header longer than this (a long torque name's ``… bounds``) is cut to it, with ``…``, before
#: any number loses a digit.
HEADER_CUT = 12


def _width(text: str) -> int:
    """Display columns of ``text``: a combining mark takes none, a wide (East Asian) character two."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def _cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` display columns, ending in ``…`` when cut (for names, never numbers)."""
    if _width(text) <= width:
        return text
    out, used = "", 0
    for c in text:
        w = _width(c)
        if used + w > width - 1:
            break
        out, used = out + c, used + w
    return out + "…"


def _g(v: float, digits: int) -> str:
    """``v`` in ``%g`` form with ``digits`` significant digits and a compact exponent
    (``1.5e6``, ``-6.8e-12``); ``-0`` prints as ``0``."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = f"{v:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return "0" if text == "-0" else text


def format_number(v: float, width: int | None = None, digits: int = DIGITS) -> str:
    """``v`` with at most ``digits`` significant digits (``%g`` form, compact exponent:
    ``1.235e6``, ``-6.769e-12``, ``0.1926``; ``-0`` as ``0``).

    With ``width``: the most significant digits (at least one) whose text fits ``width`` display
    columns. A number is never cut: digits are dropped (rounded), never its sign or its exponent,
    so ``-6.769e-12`` narrows to ``-6.8e-12`` and ``-7e-12``, not to ``-6.769e-1``; at one digit
    it is returned even when wider than ``width``.

    Parameters
    ----------
    v : float
        The number.
    width : int, optional
        Display columns to fit; ``None``: ``digits`` significant digits.
    digits : int, optional
        The most significant digits.

    Returns
    -------
    str
        The text.
    """
    return _most_digits_fitting(lambda p: _g(v, p), digits, width)


def _most_digits_fitting(render: Callable[[int], str], digits: int, width: int | None) -> str:
    """``render(p)`` with the most significant digits ``p <= digits`` (at least one) whose text
    fits ``width`` display columns (``digits`` when ``width`` is ``None``)."""
    text = render(digits)
    for p in range(digits - 1, 0, -1):
        if width is None or _width(text) <= width:
            break
        text = render(p)
    return text


def _zero(v: float, scale: float) -> float:
    """``v``, or ``0.0`` when it is zero within ``BOUND_ZERO_RTOL · scale`` (also for ``-0.0``)."""
    return 0.0 if math.isfinite(v) and abs(v) <= BOUND_ZERO_RTOL * scale else v


def _interval(lo: float, hi: float, scale: float | None) -> tuple[str, float, float]:
    """``(kind, lo, hi)`` of an interval after the display's zero rule (module doc of
    ``contactmodes.tolerances``, ``BOUND_ZERO_RTOL``): kind ``=`` (one value, in ``lo``),
    ``any``, ``<=``, ``>=`` or ``[]``."""
    lo, hi = float(lo), float(hi)
    ends = [abs(x) for x in (lo, hi) if math.isfinite(x)]
    s = max(ends + [0.0 if scale is None else float(scale)])
    if math.isfinite(lo) and math.isfinite(hi) and hi - lo <= BOUND_ZERO_RTOL * s:
        return "=", _zero(0.5 * (lo + hi), s), _zero(0.5 * (lo + hi), s)
    if not math.isfinite(lo) and not math.isfinite(hi):
        return "any", lo, hi
    if not math.isfinite(lo):
        return "<=", lo, _zero(hi, s)
    if not math.isfinite(hi):
        return ">=", _zero(lo, s), hi
    return "[]", _zero(lo, s), _zero(hi, s)


def _interval_text(iv: tuple[str, float, float], digits: int) -> str:
    kind, lo, hi = iv
    if kind == "=":
        return f"={_g(lo, digits)}"
    if kind == "any":
        return "any"
    if kind == "<=":
        return f"<={_g(hi, digits)}"
    if kind == ">=":
        return f">={_g(lo, digits)}"
    return f"[{_g(lo, digits)}, {_g(hi, digits)}]"


def format_bound(lo: float, hi: float, scale: float | None = None, width: int | None = None) -> str:
    """Format an interval ``[lo, hi]`` compactly: ``=v`` (a single value), ``<=hi`` / ``>=lo`` (one
    side unbounded), ``any`` (both), else ``[lo, hi]``.

    An end that is zero within ``BOUND_ZERO_RTOL · max(scale, |lo|, |hi|)`` (finite ends only;
    ``scale`` the torque's unit, e.g. ``AnalysisSession.scaling.tau[k]``, else only the interval's
    own ends count) prints as ``0``, and an interval narrower than that as ``=v``
    (``contactmodes.tolerances``): ``format_bound(-7e-16, 0.22) == "[0, 0.22]"``. With
    ``width``, both numbers get the most significant digits that fit (``format_number``).

    Parameters
    ----------
    lo, hi : float
        The interval's ends (``-inf``/``inf`` for none), e.g. N·m.
    scale : float, optional
        The torque's unit (its scaled problem's factor), below which an end counts as zero
        relative to it.
    width : int, optional
        Display columns the whole text should fit (digits are dropped from both numbers,
        never cut).

    Returns
    -------
    str
        ``=v``, ``<=hi``, ``>=lo``, ``any`` or ``[lo, hi]``.
    """
    iv = _interval(lo, hi, scale)
    return _most_digits_fitting(lambda p: _interval_text(iv, p), DIGITS, width)


def format_at(names: Sequence[str], at: Any) -> str:
    """The answer of ``analyze --at`` (``at``: the result's ``AtAnswer``, ``(tau, modes, tol,
    nearest)``): the modes whose ``T_c`` contains the torque (or lies within ``tol`` of it), and,
    when none does, the nearest mode with its Euclidean distance in the torques' units and the
    ``--at-tol`` that would accept it; lines of at most ``WIDTH`` columns (broken after commas).
    With no torque (a system without actuators, ``T_c`` in ``R^0``) the modes containing the one
    point ``()`` are the consistent ones.

    Parameters
    ----------
    names : Sequence[str]
        The ``n_τ`` torque names.
    at : AtAnswer or tuple
        ``(tau, modes, tol, nearest)`` (``contactmodes.analysis.analyze.AtAnswer``); a plain
        ``(tau, modes)`` is read with ``tol = 0`` and no nearest mode.

    Returns
    -------
    str
        The lines, without a final newline.
    """
    tau, modes = at[0], at[1]
    tol = float(at[2]) if len(at) > 2 else 0.0
    nearest = at[3] if len(at) > 3 else None
    if not len(names):
        return "\n".join(_wrap(f"consistent modes (no actuators: T_c contains the point ()): {', '.join(modes) or 'none'}"))
    point = ", ".join(f"{n}={float(v):.12g}" for n, v in zip(names, np.asarray(tau, dtype=float)))
    within = f" or lies within {tol:.6g} of it" if tol > 0 else ""
    lines = _wrap(f"modes whose T_c contains ({point}){within}: {', '.join(modes) or 'none'}")
    if nearest is not None:
        lines += _wrap(f"  nearest: {nearest.mode}, at distance {nearest.distance:.6g} (Euclidean, the torques' "
                       f"units; --at-tol {_round_up(nearest.distance)} accepts it)", indent="    ")
    return "\n".join(lines)


def _round_up(d: float) -> str:
    """``d`` (> 0) rounded *up* to 3 significant digits, so that the ``--at-tol`` suggested
    accepts the mode it names."""
    text = f"{d:.3g}"
    while float(text) < d:
        step = 10.0 ** (math.floor(math.log10(float(text))) - 2)
        text = f"{float(text) + step:.3g}"
    return text


def _wrap(text: str, sep: str = ", ", indent: str = "  ") -> list[str]:
    """``text`` broken after ``sep`` into lines of at most ``WIDTH`` columns (continuations
    indented by ``indent``)."""
    lines, parts = [], text.split(sep)
    line, tail = parts[0], _width(sep.rstrip())
    for j, part in enumerate(parts[1:], 2):
        # the line must keep room for the separator's end when more parts follow it
        if _width(line) + _width(sep) + _width(part) + (tail if j < len(parts) else 0) > WIDTH:
            lines.append(line + sep.rstrip())
            line = indent + part
        else:
            line += sep + part
    return lines + [line]


class _Cell:
    """A table cell as its texts from the most to the least preferred (e.g. 4, 3, 2, 1 significant
    digits; a list with fewer items): the layout shows the first that fits the column. Each text
    has a *level*, the layout's resort it belongs to (``_LEVELS``): 0 numbers with all their
    ``DIGITS`` significant digits (a list possibly cut between items) and whole headers, 1
    long headers cut to ``HEADER_CUT`` columns, 2 numbers with 3 digits, 3 with 2, 4 with 1,
    5 headers cut to 8 columns."""

    __slots__ = ("variants", "levels")

    def __init__(self, variants: Sequence[str], levels: Sequence[int] | None = None) -> None:
        self.variants = list(variants)
        self.levels = [0] * len(self.variants) if levels is None else list(levels)

    def natural(self) -> int:
        return _width(self.variants[0])

    def floor(self, level: int) -> int:
        return min(_width(v) for v, lv in zip(self.variants, self.levels) if lv <= level)

    def render(self, width: int) -> str:
        for v in self.variants:
            if _width(v) <= width:
                return v
        return min(self.variants, key=_width)


def _text(text: str) -> _Cell:
    return _Cell([text])


def _header(text: str) -> _Cell:
    """A column header: whole; cut with ``…`` to ``HEADER_CUT`` columns before numbers lose
    digits, and below that (down to 8 columns: the short headers, ``feasible`` and narrower, stay
    whole) only as the last resort."""
    widths = range(_width(text) - 1, 7, -1)
    levels = [1 if w >= HEADER_CUT else _LEVELS[-1] for w in widths]
    return _Cell([text] + [_cut(text, w) for w in widths], [0] + levels)


def _digits_cell(text: Callable[[int], str]) -> _Cell:
    """A cell of numbers ``text(digits)``: 4 significant digits down to 1."""
    return _Cell([text(p) for p in range(DIGITS, 0, -1)], [_digits_level(p) for p in range(DIGITS, 0, -1)])


def _digits_level(p: int) -> int:
    """The layout level (``_Cell``) of a number with ``p`` significant digits."""
    return 0 if p >= DIGITS else DIGITS - p + 1


def _list_cell(items: Sequence[Callable[[int], str]], sep: str = ", ", start: str = "", end: str = "",
               empty: str = "-") -> _Cell:
    """A list of numeric items ``item(digits)``: all items, then fewer with ``…`` after the last
    one shown, each at 4 then ``LIST_DIGITS`` significant digits; last, the first item at
    fewer digits."""
    if not items:
        return _text(empty)
    n = len(items)

    def text(k: int, p: int) -> str:
        return start + sep.join(item(p) for item in items[:k]) + (sep + "…" if k < n else "") + end

    high = [(k, p) for k in range(n, 0, -1) for p in range(DIGITS, LIST_DIGITS - 1, -1)]
    low = [(1, p) for p in range(LIST_DIGITS - 1, 0, -1)]
    return _Cell([text(k, p) for k, p in high + low], [_digits_level(p) for _, p in high + low])


class _NamesCell(_Cell):
    """Comma list of mode names; when cut, the first names that fit and ``+N`` for the others
    (``+N`` alone at the narrowest). Its texts are built for the width asked: a mode of a large
    system overlaps hundreds of others."""

    __slots__ = ("names",)

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        super().__init__([",".join(self.names)])

    def floor(self, level: int) -> int:
        return len(f"+{len(self.names)}")

    def render(self, width: int) -> str:
        text, n = self.variants[0], len(self.names)
        if _width(text) <= width:
            return text
        shown = ""
        for i, name in enumerate(self.names):
            cand = name if not shown else f"{shown},{name}"
            if _width(cand) + len(f",+{n - i - 1}") > width:
                break
            shown = cand
        return f"{shown},+{n - len(shown.split(','))}" if shown else f"+{n}"


def _names_cell(names: Sequence[str]) -> _Cell:
    return _NamesCell(names) if names else _text("-")


def _bound_cell(lo: float, hi: float, scale: float | None) -> _Cell:
    return _digits_cell(partial(_interval_text, _interval(lo, hi, scale)))


def _finite_text(name: str, iv: tuple[str, float, float], digits: int) -> str:
    """``tau1=v``, ``a<=tau1<=b``, ``tau1>=a`` or ``tau1<=b``."""
    kind, a, b = iv
    if kind == "=":
        return f"{name}={_g(a, digits)}"
    if kind == "[]":
        return f"{_g(a, digits)}<={name}<={_g(b, digits)}"
    return f"{name}>={_g(a, digits)}" if kind == ">=" else f"{name}<={_g(b, digits)}"


def _finite_items(names, lo, hi, scales) -> list[Callable[[int], str]]:
    """One item per torque with a finite bound (``_finite_text``)."""
    ivs = [(name, _interval(a, b, s)) for name, a, b, s in zip(names, lo, hi, scales)]
    return [partial(_finite_text, name, iv) for name, iv in ivs if iv[0] != "any"]


def _finite_cell(names, lo, hi, scales) -> _Cell:
    return _list_cell(_finite_items(names, lo, hi, scales), sep=" ", empty="unbounded")


def _pieces_items(pieces: list, scale: float | None) -> list[Callable[[int], str]]:
    items: list[Callable[[int], str]] = []
    for piece in pieces:
        lo, hi = piece.bounding_box()
        items.append(partial(_interval_text, _interval(lo[0], hi[0], scale)))
    return items


def _pieces_cell(pieces: list, scale: float | None) -> _Cell:
    """``T*_c`` in one cell: ``none``, the interval(s) for one torque (cut between intervals with
    ``…``), else the piece count (``1 piece``, ``3 pieces``)."""
    if not pieces:
        return _text("none")
    if pieces[0].dim == 1:
        return _list_cell(_pieces_items(pieces, scale), sep=" ∪ ")
    return _text(f"{len(pieces)} piece{'s' if len(pieces) > 1 else ''}")


#: Layout levels (``_Cell``), tried in turn until the table fits.
_LEVELS = (0, 1, 2, 3, 4, 5)


def _fit(rows: list[list[_Cell]], level: int) -> tuple[list[int], bool]:
    """Column widths so that a line fits ``WIDTH``, level by level up to ``level``
    (``_Cell``): at each level the column with the most room above its floor (the narrowest
    text of its cells, header included, at that level or below; the mode column's floor is its
    width) is narrowed first, so that a column goes below a level only when every column is at
    that level's floor. Returns the widths (each the width of its widest shown cell) and whether
    the line fits."""
    ncol = len(rows[0])
    widths = [max(r[i].natural() for r in rows) for i in range(ncol)]
    # a line is also at most WIDTH characters: a combining mark (the header's w→q̈) is one
    # character more than its columns; such a row's last cell may end before its column does
    marks = [(extra, r[-1].natural()) for r in rows
             if (extra := sum(max(len(v) - _width(v) for v in c.variants) for c in r)) > 0]

    def length(widths: list[int]) -> int:
        line = sum(widths) + 2 * (ncol - 1)
        return max([line] + [line - widths[-1] + min(widths[-1], last) + extra for extra, last in marks])

    fits = length(widths) <= WIDTH
    for lv in range(level + 1):
        if fits:
            break
        floors = [max(r[i].floor(lv) for r in rows) for i in range(ncol)]
        floors[0] = widths[0]  # the mode string is never cut
        while length(widths) > WIDTH:
            i = max(range(ncol), key=lambda j: widths[j] - floors[j])
            if widths[i] <= floors[i]:
                break
            widths[i] -= 1
        fits = length(widths) <= WIDTH
    widths = [_shown(rows, i, w) for i, w in enumerate(widths)]
    if fits:  # the columns narrower than allotted leave room: give it to the first that can use it
        for i in range(ncol):
            for w in range(widths[i] + WIDTH - length(widths), widths[i], -1):
                grown = widths[:i] + [_shown(rows, i, w)] + widths[i + 1:]
                if length(grown) <= WIDTH:
                    widths = grown
                    break
    return widths, fits


def _shown(rows: list[list[_Cell]], i: int, width: int) -> int:
    """The width column ``i`` takes when allotted ``width``: that of its widest text shown."""
    return max(_width(r[i].render(width)) for r in rows)


def _layout(rows: list[list[_Cell]], overlaps: bool) -> tuple[list[list[_Cell]], list[int], bool]:
    """The rows (without the overlaps column, the last, when it is left out), their widths and
    whether the overlaps column was left out (module doc)."""
    widths, fits = _fit(rows, _LEVELS[0])
    if fits:
        return rows, widths, False
    if overlaps:
        rows = [r[:-1] for r in rows]
    widths, _ = _fit(rows, _LEVELS[-1])
    return rows, widths, overlaps


def _render(rows: list[list[_Cell]], widths: list[int]) -> tuple[str, bool]:
    """Columns padded to ``widths`` and whether a cell shows less than its full text."""
    out, short = [], False
    for r in rows:
        texts = [c.render(w) for c, w in zip(r, widths)]
        short = short or any(t != c.variants[0] for t, c in zip(texts, r))
        out.append("  ".join(_pad(t, w) for t, w in zip(texts, widths)).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out), short


def _overlap_lines(overlaps: Any, list_limit: int | None) -> list[str]:
    """The overlapping pairs (a non-empty ``OverlapPairs``): listed, boundary-only ones marked,
    or, past ``list_limit``, their count with how many are boundary-only (module doc)."""
    n = len(overlaps)
    boundary = overlaps.boundary_only() if n <= BOUNDARY_ONLY_MAX else None
    unclassified = f"  (more than {BOUNDARY_ONLY_MAX} pairs: not classified as boundary-only or not)"
    if list_limit is not None and n > list_limit:
        involved = {m for pair in overlaps for m in pair}
        lines = [f"overlapping pairs (mode ambiguities T_c ∩ T_c'): {n} pairs among {len(involved)} modes;"]
        if boundary is None:
            lines.append(unclassified)
        else:
            lines += [f"  {len(boundary)} of them boundary-only (T_c ∩ T_c' of lower dimension than both sets:",
                      "  the two modes meet only on their boundaries);"]
        return lines + ["  give --overlaps to list them all (or --json)"]
    lines = ["overlapping pairs (mode ambiguities T_c ∩ T_c'"
             + ("; boundary only: of lower dimension than both sets):" if boundary else "):")]
    for a, b in sorted(overlaps):
        lines.append(f"  {a} ∩ {b}" + (" (boundary only)" if boundary and (a, b) in boundary else ""))
    return lines + ([unclassified] if boundary is None else [])


def format_table(result: Any, unambiguous: dict | None = None, inconsistent: list | None = None,
                 at: tuple | None = None, list_limit: int | None = 40) -> str:
    """Render an ``AnalysisResult`` as a plain-text table (module doc),
    every line at most ``WIDTH`` display columns.

    Parameters
    ----------
    result : AnalysisResult
        The object returned by ``contactmodes.analysis.analyze``.
    unambiguous : dict, optional
        Optional mode → ``UnambiguousResult``; adds the
        column ``T*_c`` (intervals for one torque, else the number of convex pieces: ``1 piece``,
        ``3 pieces``) and a list of ambiguity sources per mode.
    inconsistent : list, optional
        Optional list of polytopes (torques with no solution); adds a section.
    at : tuple, optional
        Optional ``AtAnswer`` (``(tau, modes, tol, nearest)``; ``(tau, modes)`` also accepted): a
        torque ``(n_τ,)`` and the modes whose ``T_c`` contains it; adds the answer of
        ``format_at`` at the end.
    list_limit : int or None, optional
        List the overlapping pairs in full up to this many (``None``: always).

    Returns
    -------
    str
        A header with the system and enumeration counts, the per-mode table, and the
        overlapping pairs ``T_c ∩ T_c'`` (mode ambiguities, Sec. III-G.1) or their summary.
    """
    system = result.system
    enum = result.enumeration
    names = list(system.torques)
    n_tau = len(names)
    session = getattr(result, "session", None)
    # the analysis's unit of each torque: the scale of the display's zero rule
    units = list(np.asarray(session.scaling.tau, dtype=float)) if session is not None else [None] * n_tau
    feasible = result.feasible_modes()
    passive = n_tau == 0  # torque sets in R^0: each mode consistent or not (module doc)
    out = [
        *_wrap(f"system: {system.name or '(unnamed)'}   coordinates: {', '.join(system.coordinates)}"),
        *_wrap(f"torques: {', '.join(names) or '(none)'}   contacts: {', '.join(system.contacts)}"),
        *_wrap(f"modes: {enum.total} total, {enum.after_velocity} after velocity pruning (Table III), "
               f"{enum.after_acceleration} after acceleration pruning (Sec. III-F)"),
        f"{'consistent' if passive else 'feasible'}: {len(feasible)} of the {len(result.modes)} analysed modes"
        + (" (no actuators: a mode is consistent or not)" if passive else ""),
        "",
    ]
    wide = n_tau > 3
    # a large analysis (rows summarized) shows what the analysis already has — each T_c's
    # bounding box — and projects no domain for the table
    boxes_only = len(result.modes) > MAX_ROWS
    header = ["mode", "case", "dim w", "w→q̈", "consistent" if passive else "feasible"]
    if boxes_only and not passive:
        header += ["finite bounds of T_c"] if wide else [f"{name} bounds" for name in names]
    elif not passive:
        header += ["dim T_c", "facets", "centre", "radius", "bounds"] if wide else \
            [f"{name} bounds" for name in names] + ["facets", "dim T_c"]
    if unambiguous is not None:
        header.append("unambiguous" if passive else "T*_c")
    header.append("overlaps")
    rows = [[_header(h) for h in header]]
    shown = list(result.modes.items())[:MAX_ROWS]
    if not boxes_only:  # every shown T_c, its first LPs in shared batches
        result.session.prime_T([m for m, item in shown if item.feasible], result.task, user_units=True)
    for mode, item in shown:
        resp = item.response
        row = [_text(mode), _text(str(resp.rank_case)), _text(str(resp.n_w)),
               _text("yes" if resp.w_moves_accelerations else "no")]
        if item.feasible:
            lo, hi = item.box
            # the scale of each torque's zero rule: its unit and the ends of its interval
            scales = [max([u or 0.0] + [abs(x) for x in (a, b) if math.isfinite(x)])
                      for u, a, b in zip(units, lo, hi)]
            row.append(_text("yes"))
        if passive:
            if not item.feasible:
                row.append(_text("no"))
        elif item.feasible and boxes_only:
            row += [_finite_cell(names, lo, hi, scales)] if wide else \
                [_bound_cell(a, b, u) for a, b, u in zip(lo, hi, units)]
        elif item.feasible:
            T = item.T
            if wide:
                ball = T.chebyshev_center()
                centre = [_zero(float(c), sc) for c, sc in zip(ball.center, scales)]
                row += [_text(str(T.affine_dimension())), _text(str(T.n_ineq)),
                        _list_cell([partial(_g, c) for c in centre], start="(", end=")"),
                        _digits_cell(partial(_g, float(ball.radius))),
                        _finite_cell(names, lo, hi, scales)]
            else:
                row += [_bound_cell(a, b, u) for a, b, u in zip(lo, hi, units)]
                row += [_text(str(T.n_ineq)), _text(str(T.affine_dimension()))]
        else:
            row.append(_text("no"))
            row += [_text("-")] * (len(header) - 5 - (unambiguous is not None) - 1)
        if unambiguous is not None:
            u = unambiguous.get(mode)
            if u is None:
                row.append(_text("-"))
            elif passive:
                row.append(_text("yes" if u.unambiguous else "no"))
            else:
                row.append(_pieces_cell(u.unambiguous, units[0]))
        if result.overlaps is None:
            row.append(_text("?" if item.feasible else ""))
        else:
            row.append(_names_cell(result.overlapping(mode)))
        rows.append(row)
    # the overlaps column, last, is left out (with a note: the pairs follow the table) rather
    # than a number shown with fewer than DIGITS digits
    rows, widths, dropped = _layout(rows, overlaps=True)
    table, short = _render(rows, widths)
    out.append(table)
    if short:
        out.append("(shortened to fit 100 columns: numbers to fewer digits, lists cut with …; --json is exact)")
    if dropped:
        if result.overlaps is None:
            follow = "see below"
        elif list_limit is None or len(result.overlaps) <= list_limit:
            follow = "the overlapping pairs follow"
        else:
            follow = "give --overlaps, or --json, for the pairs"
        out.append(f"(no room for the overlaps column in 100 columns: {follow})")
    if len(result.modes) > len(shown):
        out.append(f"… {len(result.modes) - len(shown)} more modes not shown (give --mode MODE, or --json for all)")
    if boxes_only:
        out.append(f"(over {MAX_ROWS} modes: bounds from each T_c's bounding box, no T_c projected for the table;")
        out.append(" give --mode MODE for facets, dimension and Chebyshev centre)")
    out.append("")
    if result.overlaps is None:
        if result.candidate_pairs is None:
            out.append("overlapping pairs: not computed")
        else:
            out.append(f"overlapping pairs: {result.candidate_pairs} candidate pairs (bounding boxes meet) not tested")
            out.append("  (overlaps column '?'); give --overlaps to test and list them all")
    elif not result.overlaps:
        out.append("overlapping pairs: none")
    else:
        out += _overlap_lines(result.overlaps, list_limit)
    if unambiguous:
        out.append("")
        out.append("ambiguity sources of T_c (other modes; task:<i> = task row i violated within the mode):")
        for mode, u in unambiguous.items():
            srcs = [s.source + (" (boundary only)" if s.boundary_only else "") for s in u.sources]
            out += _wrap(f"  {mode}: {', '.join(srcs) or 'none'}", indent="    ")
    if inconsistent is not None:
        out.append("")
        if passive:
            out.append(f"inconsistent (no mode has a solution): {'yes' if inconsistent else 'no'}")
        elif inconsistent:
            pieces = _pieces_cell(inconsistent, units[0] if n_tau == 1 else None).variants[0]
            out += _wrap(f"inconsistent torques (no mode has a solution): {pieces}", sep=" ∪ ")
        else:
            out.append("inconsistent torques (no mode has a solution): none in the box")
    if at is not None:
        out.append("")
        out.append(format_at(names, at))
    if passive:
        out.append("")
        out.append(_verdict(result, feasible))
    return "\n".join(out)


def _verdict(result: Any, feasible: Sequence[str]) -> str:
    """The last line of a passive system's table: ``unique``, ``ambiguous`` or ``inconsistent``
    among the analysed modes (``--mode`` may have left some out)."""
    some = "" if len(result.modes) == result.enumeration.after_acceleration else " among the analysed modes"
    if not feasible:
        return f"verdict: inconsistent{some} (no mode has a solution: Painlevé)"
    if len(feasible) == 1:
        return f"verdict: unique{some} (the one consistent mode is {feasible[0]})"
    return f"verdict: ambiguous{some} ({len(feasible)} consistent modes: {', '.join(feasible)})"
