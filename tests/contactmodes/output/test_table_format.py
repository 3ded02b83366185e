"""The text table of ``contactmodes analyze`` (issue 22, items 7, 8 and ``--at`` of 9).

* Numbers: a bound that is solver noise around 0 prints as ``0`` (relative to the torque's scale,
  not an absolute threshold), and a number narrowed to fit keeps its exponent (fewer digits,
  never a cut).
* Layout: every line of every example's table, with and without ``--unambiguous``, fits 100
  display columns, and ``…`` only ever ends a list (never a number or a word).
* ``analyze --at``: the answer is the whole output; ``--table`` adds the table before it.

The expected values come from elsewhere: the bounds from LPs (scipy's HiGHS) on the
``contactmodes.analysis/1`` JSON H-representation, the display width from ``unicodedata``, and
the column spans from the dashes under the header.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from _support.paths import ROOT
from contactmodes.cli import main
from contactmodes.output.text import format_bound, format_number

EXAMPLES = ROOT / "examples"
RHEX = str(EXAMPLES / "rhex_flip_start.toml")
TWO_LINK = str(EXAMPLES / "two_link_brace.toml")
SIX_LINK = str(EXAMPLES / "six_link_brace.toml")
ALL_EXAMPLES = sorted(str(p) for p in EXAMPLES.glob("*.toml"))

NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|-?inf"


def columns(line: str) -> int:
    """Terminal columns of ``line``: combining marks take none, East Asian wide characters two."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in line)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """Header names and mode → cells of the table in ``text``, split at the spans of the dashes
    line under the header (the header itself is split by words: it may hold a combining mark)."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("mode  "))
    spans = [m.span() for m in re.finditer(r"-+", lines[i + 1])]
    names = re.split(r"  +", lines[i].strip())
    assert len(names) == len(spans), lines[i]
    rows = {}
    for line in lines[i + 2:]:
        if not line or line.startswith(("(", "…")):
            break
        cells = [line[a:(spans[j + 1][0] if j + 1 < len(spans) else None)].strip()
                 for j, (a, _) in enumerate(spans)]
        rows[cells[0]] = cells
    return names, rows


def box_of(poly: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounding box of a JSON H-polytope by 2n LPs (HiGHS); ±inf on unbounded sides."""
    A = np.array(poly["A"], dtype=float).reshape(-1, n)
    b = np.array(poly["b"], dtype=float)
    C = np.array(poly.get("C") or np.zeros((0, n)), dtype=float).reshape(-1, n)
    d = np.array(poly.get("d") or [], dtype=float)
    lo, hi = np.empty(n), np.empty(n)
    for k in range(n):
        for sign, out in ((1.0, lo), (-1.0, hi)):
            c = np.zeros(n)
            c[k] = sign
            res = linprog(c, A_ub=A if len(b) else None, b_ub=b if len(b) else None,
                          A_eq=C if len(d) else None, b_eq=d if len(d) else None,
                          bounds=[(None, None)] * n, method="highs")
            assert res.status in (0, 3), res.message
            out[k] = sign * res.fun if res.status == 0 else -sign * math.inf
    return lo, hi


def parse_bound(cell: str) -> tuple[float, float]:
    """``[a, b]``, ``=v``, ``<=v``, ``>=v``, ``any`` → (lo, hi)."""
    if cell == "any":
        return -math.inf, math.inf
    if m := re.fullmatch(rf"\[({NUMBER}), ({NUMBER})\]", cell):
        return float(m[1]), float(m[2])
    if m := re.fullmatch(rf"=({NUMBER})", cell):
        return float(m[1]), float(m[1])
    if m := re.fullmatch(rf"<=({NUMBER})", cell):
        return -math.inf, float(m[1])
    if m := re.fullmatch(rf">=({NUMBER})", cell):
        return float(m[1]), math.inf
    raise AssertionError(f"not a bound cell: {cell!r}")


# ---- the number formatter ----------------------------------------------------------------------


def test_a_narrowed_number_keeps_its_exponent_and_sign():
    v = -6.769268957873556e-12
    assert format_number(v) == "-6.769e-12"
    assert format_number(v, width=9) == "-6.77e-12"
    assert format_number(v, width=8) == "-6.8e-12"
    assert format_number(v, width=3) == "-7e-12"  # one digit at least: wider than asked, never cut
    assert format_number(1.2345e6, width=5) == "1.2e6"
    assert format_number(-0.0) == "0"


@pytest.mark.parametrize("exponent", [-300, -15, -12, -5, -1, 0, 3, 7, 15, 300])
def test_narrowed_numbers_read_back_as_the_number(exponent):
    """Every width from 1 to 12: the text fits whenever its one-digit form does, and reads back
    as the number to within rounding to the digits shown (at worst one digit: 1/3 relative)."""
    rng = np.random.default_rng(exponent + 400)
    for mantissa in rng.uniform(1.0, 10.0, 20) * rng.choice([-1.0, 1.0], 20):
        v = float(mantissa) * 10.0**exponent
        one_digit = len(format_number(v, width=1))
        for width in range(1, 13):
            text = format_number(v, width=width)
            assert len(text) <= max(width, one_digit), (v, width, text)
            back = float(text)
            assert math.copysign(1.0, back) == math.copysign(1.0, v), (v, text)
            assert abs(back - v) <= abs(v) / 3 + 1e-300, (v, width, text)
            digits = len(re.sub(r"\D", "", text.split("e")[0]).lstrip("0"))
            assert abs(back - v) <= 0.5 * 10.0 ** (1 - digits) * abs(v) * (1 + 1e-9), (v, text)


# ---- the zero rule -----------------------------------------------------------------------------


@pytest.mark.parametrize("unit", [1e-15, 1e-6, 1.0, 1e6, 1e15])
def test_noise_next_to_a_bound_shows_0_in_any_unit(unit):
    """A lower bound of -7e-16 next to 0.22 is 0 — and so in every unit (the rule is relative):
    while a small set in small units keeps its values."""
    assert format_bound(-7e-16 * unit, 0.22 * unit) == f"[0, {format_number(0.22 * unit)}]"
    assert format_bound(0.22 * unit, 7e-16 * unit + 0.22 * unit) == f"={format_number(0.22 * unit)}"
    lo, hi = parse_bound(format_bound(0.2 * unit, 0.4 * unit))
    assert lo == pytest.approx(0.2 * unit) and hi == pytest.approx(0.4 * unit)
    lo, hi = parse_bound(format_bound(-0.4 * unit, 3e-12 * unit))
    assert lo == pytest.approx(-0.4 * unit) and hi == 0.0
    # a single value that is noise around 0 needs the torque's unit to be seen as 0
    assert format_bound(-3e-12 * unit, 2e-12 * unit, scale=14.2 * unit) == "=0"
    assert format_bound(-3e-12 * unit, math.inf, scale=unit) == ">=0"
    assert format_bound(-3e-6 * unit, math.inf, scale=unit) == f">={format_number(-3e-6 * unit)}"


def check_bound_cells(rows: dict, columns_of: list[int], modes: dict, rel: float) -> int:
    """Every bound cell of the feasible modes against the JSON set's box (LPs): ``0`` only for a
    bound within 1e-7 of the box's scale, an infinite side as such, a number within ``rel``."""
    checked = 0
    for mode, cells in rows.items():
        if not modes[mode]["feasible"]:
            continue
        lo, hi = box_of(modes[mode]["torque_domain"], len(columns_of))
        ends = np.concatenate([lo, hi])
        scale = max(1.0, *np.abs(ends[np.isfinite(ends)]))
        for k, col in enumerate(columns_of):
            shown = parse_bound(cells[col])
            for s, t in zip(shown, (lo[k], hi[k])):
                if math.isinf(t):
                    assert s == t, (mode, k, shown, lo[k], hi[k])
                elif s == 0.0:
                    assert abs(t) <= 1e-7 * scale, (mode, k, shown, lo[k], hi[k])
                else:
                    assert abs(s - t) <= rel * abs(t), (mode, k, shown, lo[k], hi[k])
                checked += 1
    return checked


def test_rhex_table_shows_solver_noise_as_0_and_every_bound_as_the_lps_give_it(capsys):
    """FFSF's τ1 lower bound is -6.8e-12 (LP noise, i.e. 0): the cell starts with "[0". Every
    bound cell of the table agrees with LPs on the JSON H-representation to the 4 digits shown
    (the table has room for them once the overlaps column is left out)."""
    status, text, _ = run(capsys, "analyze", RHEX)
    assert status == 0
    names, rows = table(text)
    assert rows["FFSF"][names.index("tau1 bounds")].startswith("[0,")
    assert "(no room for the overlaps column" in text
    status, doc, _ = run(capsys, "analyze", RHEX, "--json")
    modes = {m["mode"]: m for m in json.loads(doc)["modes"]}
    cols = [names.index(f"tau{k} bounds") for k in (1, 2, 3)]
    assert check_bound_cells(rows, cols, modes, rel=5e-4) >= 6 * 40


def test_long_torque_names_cut_their_headers_not_the_lines(capsys, tmp_path):
    """RHex with 17-character torque names: the headers ``… bounds`` (24 columns each) do not fit
    three abreast; the lines still fit 100 columns, the numbers are still whole and right."""
    text = Path(RHEX).read_text()
    renamed = re.sub(r'name = "tau([123])"', r'name = "rear_hip_torque_\1"', text)
    assert renamed.count("rear_hip_torque_") == 3
    path = tmp_path / "rhex_long_names.toml"
    path.write_text(renamed)
    status, doc, _ = run(capsys, "analyze", str(path), "--json")
    modes = {m["mode"]: m for m in json.loads(doc)["modes"]}
    for extra in ((), ("--unambiguous",)):
        status, out, err = run(capsys, "analyze", str(path), *extra)
        assert status == 0, err
        assert max(max(columns(line), len(line)) for line in out.splitlines()) <= 100
        names, rows = table(out)
        cols = [i for i, name in enumerate(names) if name.startswith("rear_hip_t")]
        assert len(cols) == 3 and "feasible" in names
        assert check_bound_cells(rows, cols, modes, rel=0.05) >= 6 * 40


# ---- the layout: 100 columns, nothing cut inside a number or a word --------------------------------


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda p: Path(p).stem)
@pytest.mark.parametrize("extra", [(), ("--unambiguous",)], ids=["table", "unambiguous"])
def test_every_line_fits_100_columns_and_only_lists_are_cut(capsys, example, extra):
    status, text, err = run(capsys, "analyze", example, *extra)
    assert status == 0, err
    for line in text.splitlines():  # on a terminal, and counted in characters
        assert columns(line) <= 100 and len(line) <= 100, (columns(line), line)
    names, rows = table(text)
    for cells in rows.values():
        for name, cell in zip(names, cells):
            # "…" ends a list after a separator ("(-1.23, …)", "tau1<=-0.1361 …", "[0, 1] ∪ …"),
            # never a number ("-6.769e-1…") nor a word ("1 p…")
            for m in re.finditer("…", cell):
                assert cell[:m.start()].endswith((", ", " ")), (name, cell)
            if name == "T*_c":
                assert re.fullmatch(r"-|none|1 piece|[2-9]\d* pieces|.*([\]\d]|any)( ∪ …)?", cell), cell
            if name.endswith(" bounds") and cell != "-":
                parse_bound(cell)  # raises on anything but a whole bound


def test_six_link_brace_unambiguous_reads_as_documented(capsys):
    """The 5-torque table with T*_c (item 8's reproducer): FFF's T*_c is one convex piece, shown
    whole; every shown finite bound and centre coordinate is a number of the JSON set."""
    status, text, _ = run(capsys, "analyze", SIX_LINK, "--unambiguous")
    assert status == 0
    names, rows = table(text)
    assert names[:5] == ["mode", "case", "dim w", "w→q̈", "feasible"]
    assert rows["FFF"][names.index("T*_c")] == "1 piece"
    assert max(columns(line) for line in text.splitlines()) <= 100
    status, doc, _ = run(capsys, "analyze", SIX_LINK, "--unambiguous", "--json")
    modes = {m["mode"]: m for m in json.loads(doc)["modes"]}
    assert len(modes["FFF"]["unambiguous"]) == 1
    for mode, cells in rows.items():
        if not modes[mode]["feasible"]:
            continue
        lo, hi = box_of(modes[mode]["torque_domain"], 5)
        for m in re.finditer(rf"(?:({NUMBER})<=)?tau(\d)(<=|>=|=)({NUMBER})", cells[names.index("bounds")]):
            k = int(m[2]) - 1
            value = float(m[4])
            expect = {"<=": hi[k], ">=": lo[k], "=": lo[k]}[m[3]]
            assert value == pytest.approx(expect, rel=0.051, abs=1e-9), (mode, m[0])
            if m[1] is not None:
                assert float(m[1]) == pytest.approx(lo[k], rel=0.051, abs=1e-9), (mode, m[0])


# ---- analyze --at ------------------------------------------------------------------------------


def holders(doc: dict, tau: np.ndarray) -> tuple[list[str], float]:
    """Modes whose JSON ``T_c`` holds ``tau`` (largest violation <= 1e-9) and the smallest
    distance of any verdict from the 1e-9 threshold (so a boundary case can be told apart)."""
    inside, margin = [], math.inf
    n = len(tau)
    for m in doc["modes"]:
        poly = m["torque_domain"]
        if poly is None:
            continue
        A = np.array(poly["A"], dtype=float).reshape(-1, n)
        viol = [0.0] if not len(A) else list(A @ tau - np.array(poly["b"], dtype=float))
        if poly.get("C"):
            viol += list(np.abs(np.array(poly["C"], dtype=float).reshape(-1, n) @ tau - np.array(poly["d"])))
        worst = max(viol)
        margin = min(margin, abs(worst))
        if worst <= 1e-9:
            inside.append(m["mode"])
    return inside, margin


@pytest.mark.parametrize("example, point", [(TWO_LINK, "-0.5"), (TWO_LINK, "0.25"), (RHEX, "1.5,2,4")],
                         ids=["two_link_FFF", "two_link_SSS", "rhex"])
def test_at_prints_only_the_answer(capsys, example, point):
    status, json_text, _ = run(capsys, "analyze", example, "--json")
    doc = json.loads(json_text)
    tau = np.array([float(v) for v in point.split(",")])
    expect, margin = holders(doc, tau)
    assert margin > 1e-6, "the test point must not lie on a boundary"
    names = doc["system"]["torques"]
    status, text, err = run(capsys, "analyze", example, f"--at={point}")
    assert status == 0, err
    coords = ", ".join(f"{n}={v:g}" for n, v in zip(names, tau))
    assert text == f"modes whose T_c contains ({coords}): {', '.join(expect) or 'none'}\n"


def test_at_with_table_prints_the_table_then_the_answer(capsys):
    status, text, _ = run(capsys, "analyze", TWO_LINK, "--at=-0.5", "--table")
    assert status == 0
    lines = text.splitlines()
    assert lines[-1] == "modes whose T_c contains (tau1=-0.5): FFF"
    assert any(line.startswith("mode  case") for line in lines)
    assert "overlapping pairs" in text


def test_at_refuses_table_only_options_without_table(capsys):
    status, text, err = run(capsys, "analyze", TWO_LINK, "--at=-0.5", "--unambiguous")
    assert status == 2 and text == ""
    assert len(err.strip().splitlines()) == 1 and "--table" in err
    status, text, _ = run(capsys, "analyze", TWO_LINK, "--at=-0.5", "--unambiguous", "--table")
    assert status == 0 and "T*_c" in text and text.rstrip().endswith("(tau1=-0.5): FFF")
