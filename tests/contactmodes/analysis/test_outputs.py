"""``analyze(..., outputs=...)`` (issue 40, item 5) against a per-mode LP oracle written here.

The oracle is one ``linprog`` over ``(τ, q̈, f)`` with the rows of Tables I–II, the dynamics and
the constraint blocks (``_support.oracle.mode_rows``, written independently of ``contactmodes``; the
rows are affine in ``τ``, read off at ``τ = 0`` and the unit torques): no response, no null space,
no projection. For each feasible mode and output it gives ``min``/``max y_i``, which must equal the
projection's support in ``∓e_i``; each vertex of ``Y_c`` must be reachable (the LP with ``y`` fixed is
feasible) and a point pushed just outside each facet (or off each equality) must not be. For
``--unambiguous`` the same LP with ``τ`` restricted to a piece of ``T*_c``.
"""

from __future__ import annotations

import numpy as np
import pytest

from _support.control_oracle import linprog_max
from _support.oracle import mode_rows
from _support.paths import EXAMPLES

import contactmodes as cm
from contactmodes.errors import ContactModelError
from polytopes import Polytope

RTOL = 1e-6     # support values: LP accuracy (1e-9) times the data's conditioning, with margin
PUSH = 1e-3     # a point this far (relative to the output's scale) outside a facet is not reachable


def lifted(s, mode: str, task: bool = True):
    """``(A_eq, b_eq, A_ub, b_ub)`` over ``(τ, x)``, ``x = (q̈, f)``: the mode's solutions."""
    kinds = ("physical", "task") if task else ("physical",)
    n_tau = s.n_tau
    eqA, eqb0, geA, geb0 = mode_rows(s, mode, np.zeros(n_tau), kinds)
    E = np.zeros((len(eqb0), n_tau))
    G = np.zeros((len(geb0), n_tau))
    for k in range(n_tau):
        _, eqb, _, geb = mode_rows(s, mode, np.eye(n_tau)[k], kinds)
        E[:, k], G[:, k] = eqb - eqb0, geb - geb0
    # eqA x − E τ = eqb0 ; geb0 + G τ − geA x <= 0
    return np.hstack([-E, eqA]), eqb0, np.hstack([G, -geA]), -geb0


def out_rows(r, s) -> tuple[np.ndarray, np.ndarray]:
    """Each output as a row over ``(τ, q̈, f)`` and its constant, from the parsed expressions."""
    rows = [np.concatenate([e.tau, e.qdd, e.force]) for e in r.outputs.spec.expressions]
    return np.array(rows), np.array([e.constant for e in r.outputs.spec.expressions])


def lp(c, A_eq, b_eq, A_ub, b_ub, extra_eq=None, extra_ub=None):
    """``max c·z`` (``None`` infeasible, ``inf`` unbounded)."""
    if extra_eq is not None:
        A_eq, b_eq = np.vstack([A_eq, extra_eq[0]]), np.concatenate([b_eq, extra_eq[1]])
    if extra_ub is not None:
        A_ub, b_ub = np.vstack([A_ub, extra_ub[0]]), np.concatenate([b_ub, extra_ub[1]])
    return linprog_max(c, A_ub, b_ub, A_eq, b_eq, len(c))


def piece_rows(P, n_x: int):
    """A piece of ``T*_c`` (over τ) as rows over ``(τ, x)``."""
    z_a, z_c = np.zeros((P.n_ineq, n_x)), np.zeros((P.n_eq, n_x))
    return (np.hstack([P.C, z_c]), P.d), (np.hstack([P.A, z_a]), P.b)


def check_set(Y, rows, consts, A_eq, b_eq, A_ub, b_ub, eq=None, ub=None):
    """Supports in ±e_i, vertices reachable, points just outside not (module doc)."""
    n_out = len(consts)
    scale = np.ones(n_out)
    for i in range(n_out):
        for sign in (1.0, -1.0):
            want = lp(sign * rows[i], A_eq, b_eq, A_ub, b_ub, eq, ub)
            assert want is not None
            want = want + sign * consts[i] if np.isfinite(want) else want
            got = Y.support(sign * np.eye(n_out)[i])
            if not np.isfinite(want):
                assert got == np.inf, (i, sign, got)
            else:
                assert abs(got - want) <= RTOL * max(1.0, abs(want)), (i, sign, got, want)
                scale[i] = max(scale[i], abs(want))
    gens = Y.vertices()
    assert len(gens.vertices) >= 1

    def reachable(y) -> bool:
        fix = (rows, np.asarray(y) - consts)
        fix_eq = fix if eq is None else (np.vstack([eq[0], fix[0]]), np.concatenate([eq[1], fix[1]]))
        return lp(np.zeros(rows.shape[1]), A_eq, b_eq, A_ub, b_ub, fix_eq, ub) is not None

    for v in gens.vertices:
        assert reachable(v), v
        for a, b in zip(Y.A, Y.b):  # just outside each facet through v
            if abs(a @ v - b) <= 1e-7 * max(1.0, abs(b)):
                n = a / np.linalg.norm(a)
                assert not reachable(v + PUSH * scale * n), (v, a)
        for c in Y.C:  # off the affine hull, both sides
            n = c / np.linalg.norm(c)
            assert not reachable(v + PUSH * scale * n) and not reachable(v - PUSH * scale * n)


CASES = [("two_link_brace.toml", "qdd.x, f.base.n, tau.tau1", None),
         ("two_link_brace.toml", "qdd.theta - 2*qdd.theta1, f.tip.t + f.tip.n", {"tau1": -1.0}),
         ("rhex_flip_start.toml", "qdd.x, qdd.theta", None),
         ("rhex_flip_start.toml", "qdd.y + 0.5*f.toe1.n, tau.tau2", {"tau1": 1.0}),
         ("rhex_flip_start.toml", "qdd.x, f.toe2.n", {"tau3": 3.0}),  # FFFF: 2 of its 3 pieces miss tau3 = 3
         ("painleve_rod.toml", ["qdd.theta", "f.end.t - f.end.n"], None)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def analysed(request):
    name, outputs, fix = request.param
    return cm.analyze(EXAMPLES / name, compute_overlaps=False, outputs=outputs, fix=fix, unambiguous=True)


def test_output_sets_match_the_oracle(analysed):
    check_result(analysed)


def test_a_piece_without_a_solution_at_the_fixed_torques_is_none():
    r = cm.analyze(EXAMPLES / "rhex_flip_start.toml", modes=["FFFF"], compute_overlaps=False,
                   outputs="qdd.x", fix={"tau3": 3.0}, unambiguous=True)
    lo = [P.bounding_box()[0][2] for P in r.unambiguous["FFFF"].unambiguous]
    assert [p is None for p in r.outputs["FFFF"].unambiguous] == [v > 3.0 for v in lo]
    assert None in r.outputs["FFFF"].unambiguous and r.outputs["FFFF"].unambiguous[0] is not None


def test_snake_modes_where_cdd_block_elimination_fails():
    """SSFFSL: cddlib's block elimination returns no matrix on its lifted polytope (the projection
    falls back, tests/polytopes/test_block_elimination_failure.py); LSSSFF: its result fails
    verification. Both answers against the oracle."""
    r = cm.analyze(EXAMPLES / "snake" / "snake_chimney.toml", modes=["SSFFSL", "LSSSFF", "LRLSFF"],
                   compute_overlaps=False, outputs="qdd.x, qdd.theta", unambiguous=True)
    assert all(r.outputs[m].set is not None for m in ("SSFFSL", "LSSSFF"))
    check_result(r)


def test_chain_projected_by_the_support_method():
    """The 10-link zig-zag chain (``_support.chains``): 9 torques and, all contacts sticking, 9
    ambiguity variables, so ``project(method="auto")`` tries the support-LP method first on the raw
    ``D_c`` (``polytopes.projection.support_first``); both modes against the oracle."""
    from _support.chains import zigzag_chain
    from contactmodes.system_file.loader import parse_system
    from polytopes.projection import support_first

    s = parse_system(zigzag_chain(10)).system
    r = cm.analyze(s, modes=["F" * 10, "S" * 10], compute_overlaps=False, outputs="qdd.x, qdd.theta - qdd.q1")
    n_w = r.modes["F" * 10].response.n_w
    assert support_first(s.n_tau + n_w, 2) and r.outputs["F" * 10].set is not None
    check_result(r)


def check_result(r):
    """Every mode of ``r.outputs`` (and its pieces of ``T*_c``) against the oracle."""
    s = r.system
    rows, consts = out_rows(r, s)
    fixed = r.outputs.spec.fixed
    n_x = s.n_q + len(r.outputs.spec.expressions[0].force)
    fix_eq = None
    if fixed:
        C = np.zeros((len(fixed), s.n_tau + n_x))
        for j, k in enumerate(sorted(fixed)):
            C[j, k] = 1.0
        fix_eq = (C, np.array([fixed[k] for k in sorted(fixed)]))
    checked = 0
    for m, o in r.outputs.items():
        A_eq, b_eq, A_ub, b_ub = lifted(s, m)
        has = lp(np.zeros(s.n_tau + n_x), A_eq, b_eq, A_ub, b_ub, fix_eq) is not None
        assert (o.set is not None) == has, m
        if o.set is None:
            continue
        checked += 1
        check_set(o.set, rows, consts, A_eq, b_eq, A_ub, b_ub, fix_eq)
        for P, Yp in _pieces(r, m, s, n_x, A_eq, b_eq, A_ub, b_ub, fix_eq):
            peq, pub = piece_rows(P, n_x)
            eq = peq if fix_eq is None else (np.vstack([peq[0], fix_eq[0]]), np.concatenate([peq[1], fix_eq[1]]))
            check_set(Yp, rows, consts, A_eq, b_eq, A_ub, b_ub, eq, pub)
    assert checked >= 1


def _pieces(r, m, s, n_x, A_eq, b_eq, A_ub, b_ub, fix_eq):
    """``(piece, its output set)`` for the pieces of ``T*_c`` where the oracle finds a solution (at
    the fixed torques); the others must be reported ``None``."""
    if r.unambiguous is None:  # not asked for: no pieces
        assert r.outputs[m].unambiguous is None
        return []
    pieces, sets = r.unambiguous[m].unambiguous, r.outputs[m].unambiguous
    assert len(sets) == len(pieces), m
    out = []
    for P, Yp in zip(pieces, sets):
        peq, pub = piece_rows(P, n_x)
        eq = peq if fix_eq is None else (np.vstack([peq[0], fix_eq[0]]), np.concatenate([peq[1], fix_eq[1]]))
        has = lp(np.zeros(s.n_tau + n_x), A_eq, b_eq, A_ub, b_ub, eq, pub) is not None
        assert has == (Yp is not None), m
        if has:
            out.append((P, Yp))
    return out


def test_spread_is_the_largest_difference_at_one_torque():
    """The brace's FFF is statically indeterminate: its base normal force is not fixed by the torque
    (unbounded spread) while qdd.x is (0). A second oracle: the LP over two solutions at one torque."""
    r = cm.analyze(EXAMPLES / "two_link_brace.toml", modes=["FFF", "LLR"], compute_overlaps=False,
                   outputs="qdd.x, f.base.n")
    s = r.system
    rows, _ = out_rows(r, s)
    for m in ("FFF", "LLR"):
        A_eq, b_eq, A_ub, b_ub = lifted(s, m)
        nt, nz = s.n_tau, A_eq.shape[1]
        n_x = nz - nt
        # (τ, x1, x2): two solutions at one τ
        Z = np.zeros
        E2 = np.vstack([np.hstack([A_eq[:, :nt], A_eq[:, nt:], Z((len(b_eq), n_x))]),
                        np.hstack([A_eq[:, :nt], Z((len(b_eq), n_x)), A_eq[:, nt:]])])
        U2 = np.vstack([np.hstack([A_ub[:, :nt], A_ub[:, nt:], Z((len(b_ub), n_x))]),
                        np.hstack([A_ub[:, :nt], Z((len(b_ub), n_x)), A_ub[:, nt:]])])
        for i in range(2):
            c = np.concatenate([Z(nt), rows[i, nt:], -rows[i, nt:]])
            want = lp(c, E2, np.concatenate([b_eq, b_eq]), U2, np.concatenate([b_ub, b_ub]))
            got = r.outputs[m].spread[i]
            assert (got == np.inf) if want == np.inf else abs(got - want) <= RTOL * max(1.0, abs(want)), (m, i)
            assert bool(r.outputs[m].determined[i]) == (want <= 1e-9), (m, i)
    assert r.outputs["FFF"].spread[1] == np.inf and not r.outputs["FFF"].determined[1]


@pytest.mark.parametrize("outputs, fix, field", [
    ("qdd.nope", None, "outputs"), ("qdd.x, ", None, "outputs"), ("tau.tau1*tau.tau1", None, "outputs"),
    ("3", None, "outputs"), ("qdd.x, qdd.x", None, "outputs"), (["qdd.x", 3], None, "outputs"),
    ("qdd.x", "tau.nope=1", "fix"), ("qdd.x", "tau1=1", "fix"), ("qdd.x", {"tau1": "a"}, "fix"),
    ("qdd.x", {"tau1": float("inf")}, "fix"), ("qdd.x", "tau.tau1=1, tau.tau1=2", "fix"), (None, {"tau1": 1.0}, "fix")])
def test_bad_outputs_name_the_field(outputs, fix, field):
    with pytest.raises(ContactModelError) as info:
        cm.analyze(EXAMPLES / "two_link_brace.toml", modes=["FFF"], compute_overlaps=False, outputs=outputs, fix=fix)
    assert str(info.value).startswith(f"{field}:") and "\n" not in str(info.value)


@pytest.mark.parametrize("seed", [3, 11])
def test_same_output_sets_in_other_units(seed):
    """A random system in SI and rewritten in mm and g (``_support.units``): ``qdd.x`` scales by 1e3,
    a force by 1e6 (g·mm/s²), a torque by 1e9; the output sets map onto each other."""
    from _support.units import random_system, rewrite
    from contactmodes.system_file.loader import parse_system

    doc = random_system(seed)
    other, torque = rewrite(doc, 1e3, 1e3)
    si, mm = parse_system(doc).system, parse_system(other).system
    text = f"qdd.x, f.{si.contacts[0]}.n + f.{si.contacts[0]}.t, tau.{si.torques[0]}"
    factor = np.array([1e3, 1e6, torque])
    a = cm.analyze(si, compute_overlaps=False, outputs=text)
    b = cm.analyze(mm, compute_overlaps=False, outputs=text)
    assert list(a.outputs) == list(b.outputs) and any(o.set is not None for o in a.outputs.values())
    for m, o in a.outputs.items():
        ob = b.outputs[m]
        assert (o.set is None) == (ob.set is None), m
        if o.set is not None:
            back = Polytope(ob.set.A * factor, ob.set.b, ob.set.C * factor, ob.set.d)
            assert back.equals(o.set, tol=1e-6), m
            assert list(o.determined) == list(ob.determined), m
