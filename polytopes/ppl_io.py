"""The one boundary between NumPy arrays and pplpy (Parma Polyhedra Library, exact rationals).

pplpy is optional (``pip install 'contactmodes[exact]'``); importing ``polytopes`` never needs
it, and every function here raises ``PolytopeError`` with that instruction when it
is missing.

Conversion is exact: a float is a dyadic rational (``fractions.Fraction(x)`` is exact), and PPL
wants integer coefficients, so each row ``(a_i, b_i)`` is multiplied by the lcm of its
denominators (then divided by the gcd of its numerators). PPL writes a constraint as ``e.x + e0
>= 0`` (or ``== 0``); results come back as floats ``A x <= b``, ``C x = d`` with each row divided
by its largest coefficient before rounding (so no overflow on huge integers).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

import numpy as np

from .errors import PolytopeError

INSTALL_HINT = "method='exact' needs pplpy: install it with pip install 'contactmodes[exact]'"

_NOT_LOADED = object()
_ppl = _NOT_LOADED


def _load():
    """Import pplpy on first use, keeping the process's SIGINT handler: pplpy brings cysignals,
    whose handler replaces Python's and was seen to swallow Ctrl-C while a Dask client waits (the
    toolkit must stop cleanly on Ctrl-C). ``None`` when pplpy is not installed."""
    global _ppl
    if _ppl is _NOT_LOADED:
        import signal
        import threading

        main = threading.current_thread() is threading.main_thread()
        handler = signal.getsignal(signal.SIGINT) if main else None
        try:
            import ppl as module
        except ImportError:  # pragma: no cover - exercised only without pplpy
            module = None
        finally:
            if main and handler is not None:
                signal.signal(signal.SIGINT, handler)
        _ppl = module
    return _ppl


def available() -> bool:
    """Whether pplpy is importable."""
    return _load() is not None


def _require():
    ppl = _load()
    if ppl is None:
        raise PolytopeError(INSTALL_HINT)
    return ppl


def _int_row(a: np.ndarray, b: float) -> list[int]:
    fr = [Fraction(float(v)) for v in a] + [Fraction(float(b))]
    den = 1
    for f in fr:
        den = lcm(den, f.denominator)
    ints = [int(f * den) for f in fr]
    g = 0
    for v in ints:
        g = gcd(g, v)
    return [v // g for v in ints] if g > 1 else ints


def to_ppl(A, b, C, d, order=None):
    """The PPL polyhedron of ``{A x <= b, C x = d}``, each row scaled to coprime integers.

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows (floats, converted exactly).
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows (``p`` may be 0).
    d : numpy.ndarray
        ``(p,)`` their right-hand side.
    order : Sequence[int], optional
        ``(n,)`` a permutation: PPL variable ``k`` is column ``order[k]``. Default: the identity.

    Returns
    -------
    ppl.C_Polyhedron
        The closed polyhedron, in exact rationals.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    ppl = _require()
    n = A.shape[1]
    order = list(range(n)) if order is None else [int(j) for j in order]
    xs = [ppl.Variable(k) for k in range(n)]
    cs = ppl.Constraint_System()
    for M, v, eq in ((A, b, False), (C, d, True)):
        for a, bb in zip(M, v):
            ints = _int_row(a[order], bb)
            e = ppl.Linear_Expression(0)
            for k in range(n):
                if ints[k]:
                    e += ints[k] * xs[k]
            cs.insert(e == ints[-1] if eq else e <= ints[-1])
    P = ppl.C_Polyhedron(n, "universe")
    P.add_constraints(cs)
    return P


def from_ppl(P) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The minimized constraints of a PPL polyhedron as float arrays (module docstring).

    Parameters
    ----------
    P : ppl.C_Polyhedron
        The polyhedron, of space dimension ``n``.

    Returns
    -------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows, each divided by its largest coefficient; ``0 x <= -1``
        (one row) for the empty polyhedron.
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows, scaled alike.
    d : numpy.ndarray
        ``(p,)`` their right-hand side.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    n = P.space_dimension()
    if P.is_empty():
        return np.zeros((1, n)), np.array([-1.0]), np.zeros((0, n)), np.zeros(0)
    A, b, C, d = [], [], [], []
    for c in P.minimized_constraints():
        coef = [int(c.coefficient(_require().Variable(k))) for k in range(n)]
        e0 = int(c.inhomogeneous_term())
        big = max(abs(v) for v in coef + [e0]) or 1
        a = np.array([float(Fraction(v, big)) for v in coef])
        c0 = float(Fraction(e0, big))
        if c.is_equality():  # a.x + e0 = 0
            C.append(a); d.append(-c0)
        else:  # a.x + e0 >= 0  ->  -a.x <= e0
            A.append(-a); b.append(c0)
    def arr(rows):
        return np.array(rows, dtype=float).reshape(len(rows), n) + 0.0
    return arr(A), np.array(b, dtype=float) + 0.0, arr(C), np.array(d, dtype=float) + 0.0


def generators_exact(A, b, C, d) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The generators of ``{A x <= b, C x = d}`` from PPL's minimized generator system.

    Exact, rounded once to floats (each ray and line divided by its largest coefficient first).

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows (floats, converted exactly).
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows (``p`` may be 0).
    d : numpy.ndarray
        ``(p,)`` their right-hand side.

    Returns
    -------
    vertices : numpy.ndarray
        ``(nv, n)`` the vertices (none for an empty set).
    rays : numpy.ndarray
        ``(nr, n)`` the extreme rays.
    lines : numpy.ndarray
        ``(nl, n)`` the lines.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    ppl = _require()
    P = to_ppl(A, b, C, d)
    n = A.shape[1]
    xs = [ppl.Variable(k) for k in range(n)]
    V: list[list[float]] = []
    R: list[list[float]] = []
    L: list[list[float]] = []
    for g in P.minimized_generators():
        coef = [int(g.coefficient(x)) for x in xs]
        if g.is_point() or g.is_closure_point():
            div = int(g.divisor())
            V.append([float(Fraction(v, div)) for v in coef])
        else:
            big = max(abs(v) for v in coef) or 1
            (L if g.is_line() else R).append([float(Fraction(v, big)) for v in coef])

    def arr(rows):
        return np.array(rows, dtype=float).reshape(len(rows), n) + 0.0
    return arr(V), arr(R), arr(L)


def project_exact(A, b, C, d, keep):
    """Exact projection of ``{A x <= b, C x = d}`` onto the columns ``keep`` (in that order).

    The polyhedron is built with the kept variables first and PPL removes the higher space
    dimensions (existential quantification).

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows (floats, converted exactly).
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows (``p`` may be 0).
    d : numpy.ndarray
        ``(p,)`` their right-hand side.
    keep : Sequence[int]
        The ``k`` kept columns, distinct indices into ``0 .. n - 1``, in the result's order.

    Returns
    -------
    tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]
        ``(A, b, C, d)`` of the projection's minimized constraints over ``k`` coordinates, as
        ``from_ppl`` returns them.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    n = A.shape[1]
    keep = [int(k) for k in keep]
    order = keep + [j for j in range(n) if j not in set(keep)]
    P = to_ppl(A, b, C, d, order)
    P.remove_higher_space_dimensions(len(keep))
    return from_ppl(P)


def project_interior(G, h, r: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Exact projection of ``{x : G x <= h}`` onto its first ``r`` coordinates, for an input meant
    to have an interior (the exact method's reduced system, ``polytopes._exact_projection``).

    Parameters
    ----------
    G : numpy.ndarray
        ``(m, n)`` the rows (floats, converted exactly).
    h : numpy.ndarray
        ``(m,)`` their right-hand side.
    r : int
        The number of leading coordinates kept, ``0 <= r <= n``.

    Returns
    -------
    tuple
        ``(F, g, dim_in, dim_out)``: the projection's minimized inequalities ``F y <= g`` (``(p, r)``,
        ``(p,)``, each row divided by its largest coefficient before the one rounding to floats),
        the input's exact affine dimension (``-1`` when empty) and the projection's. When the
        projection is not full-dimensional ``F, g`` are empty (the caller refuses such a result).
    """
    n = G.shape[1]
    P = to_ppl(G, h, np.zeros((0, n)), np.zeros(0))
    if P.is_empty():
        return np.zeros((0, r)), np.zeros(0), -1, -1
    dim_in = int(P.affine_dimension())
    P.remove_higher_space_dimensions(int(r))
    dim_out = int(P.affine_dimension())
    if dim_out < r:
        return np.zeros((0, r)), np.zeros(0), dim_in, dim_out
    F, g, _, _ = from_ppl(P)
    return F, g, dim_in, dim_out


def cone_implicit_rows(G, relax: float, threshold: float) -> np.ndarray:
    """The rows of the cone ``{ρ : G ρ <= 0}`` that hold with equality on it, up to tolerances:
    row ``i`` is *not* implicit when some ``ρ`` with ``|ρ|_∞ <= 1`` and ``G ρ <= relax`` (every
    row relaxed, so that rounding in the data cannot block a direction of the model) has
    ``G_i ρ < relax - threshold``. Decided by the slack rounds of Freund, Roundy & Todd (1985)
    with exact linear programs (PPL's ``MIP_Problem``, the floats converted exactly): each round
    maximizes the sum of the slacks ``t_i`` of the undecided rows, ``G ρ + t <= relax``,
    ``0 <= t <= 1``; the rows with ``t_i > threshold`` at the optimum are not implicit, and when
    none is, every undecided row is (each alone then reaches at most ``m · threshold``).

    Parameters
    ----------
    G : numpy.ndarray
        ``(m, e)`` the rows.
    relax : float
        The relaxation of every row (in the units of ``G``'s rows, per unit of ``ρ``).
    threshold : float
        The slack above which a row is not implicit (same units), larger than ``relax``.

    Returns
    -------
    numpy.ndarray
        ``(m,)`` bool, the implicit rows.

    Raises
    ------
    PolytopeError
        Without pplpy, or when an exact LP reaches no optimum (it is feasible and bounded by
        construction).
    """
    ppl = _require()
    m, e = G.shape
    implicit = np.zeros(m, dtype=bool)
    undecided = np.ones(m, dtype=bool)
    thr = Fraction(float(threshold))
    while undecided.any():
        idx = np.flatnonzero(undecided)
        slot = {int(i): e + j for j, i in enumerate(idx)}
        n = e + idx.size
        xs = [ppl.Variable(k) for k in range(n)]

        def constraint(a, bound):
            ints = _int_row(a, bound)
            expr = ppl.Linear_Expression(0)
            for k in range(n):
                if ints[k]:
                    expr += ints[k] * xs[k]
            return expr <= ints[-1]

        cs = ppl.Constraint_System()
        for i in range(m):  # G_i ρ (+ t_i) <= relax, t in the float row's units
            a = np.zeros(n)
            a[:e] = G[i]
            if i in slot:
                a[slot[i]] = 1.0
            cs.insert(constraint(a, relax))
        for k in range(n):
            unit = np.zeros(n)
            unit[k] = 1.0
            cs.insert(constraint(unit, 1.0))  # ρ_k <= 1, t_i <= 1
            cs.insert(constraint(-unit, 1.0 if k < e else 0.0))  # ρ_k >= -1, t_i >= 0
        objective = ppl.Linear_Expression(0)
        for k in range(e, n):
            objective += xs[k]
        mip = ppl.MIP_Problem(n, cs, objective, "maximization")
        if mip.solve()["status"] != "optimized":  # feasible (ρ = 0, t = relax) and bounded
            raise PolytopeError("an exact LP of the eliminated cone reached no optimum")
        point = mip.optimizing_point()
        div = int(point.divisor())
        loose = [i for i, k in slot.items() if Fraction(int(point.coefficient(xs[k])), div) > thr]
        if not loose:
            implicit[idx] = True
            break
        undecided[loose] = False
    return implicit


def redundant_within(F, g, slack) -> np.ndarray:
    """The rows of ``{y : F y <= g}`` that are redundant up to ``slack``, removed one at a time:
    row ``j`` is dropped when ``max F_j y`` over the rows still kept (``j`` left out) is at most
    ``g_j + slack_j``, or the others are infeasible. Exact LPs (PPL's ``MIP_Problem``, the floats
    converted exactly).

    Parameters
    ----------
    F : numpy.ndarray
        ``(p, r)`` the rows.
    g : numpy.ndarray
        ``(p,)`` their right-hand side.
    slack : numpy.ndarray
        ``(p,)`` the tolerance of each row, in its units (``>= 0``).

    Returns
    -------
    numpy.ndarray
        ``(p,)`` bool, the rows removed.
    """
    ppl = _require()
    p, r = F.shape
    xs = [ppl.Variable(k) for k in range(r)]
    ints = [_int_row(F[i], g[i]) for i in range(p)]

    def expression(row):
        expr = ppl.Linear_Expression(0)
        for k in range(r):
            if row[k]:
                expr += row[k] * xs[k]
        return expr

    removed = np.zeros(p, dtype=bool)
    for j in range(p):
        cs = ppl.Constraint_System()
        for i in range(p):
            if i != j and not removed[i]:
                cs.insert(expression(ints[i]) <= ints[i][-1])
        target = _int_row(F[j], float(g[j] + slack[j]))  # one positive scale on both sides
        mip = ppl.MIP_Problem(r, cs, expression(target), "maximization")
        status = mip.solve()["status"]
        if status == "unfeasible":
            removed[j] = True
        elif status == "optimized":
            value = mip.optimal_value()
            removed[j] = Fraction(int(value.numerator), int(value.denominator)) <= target[-1]
    return removed


def cone_dimension(G) -> int:
    """The exact dimension of the cone ``{y : G y <= 0}``.

    Parameters
    ----------
    G : numpy.ndarray
        ``(m, n)`` the rows (floats, converted exactly).

    Returns
    -------
    int
        The cone's affine dimension, ``0 .. n``; 0 when the cone is the origin alone.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    n = G.shape[1]
    return int(to_ppl(G, np.zeros(G.shape[0]), np.zeros((0, n)), np.zeros(0)).affine_dimension())


def exact_facts(A, b, C, d) -> dict:
    """Emptiness, affine dimension and boundedness of ``{A x <= b, C x = d}``, decided exactly.

    The test and benchmark oracle of the float rules.

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows (floats, converted exactly).
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows (``p`` may be 0).
    d : numpy.ndarray
        ``(p,)`` their right-hand side.

    Returns
    -------
    dict
        ``{"empty": bool, "affine_dimension": int, "bounded": bool}``; PPL gives the empty set
        dimension 0 (read ``"empty"`` first).

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    P = to_ppl(A, b, C, d)
    return {"empty": bool(P.is_empty()), "affine_dimension": int(P.affine_dimension()),
            "bounded": bool(P.is_bounded())}


def polyhedron_support(P, direction) -> float:
    """``max direction.y`` over a PPL polyhedron in exact arithmetic, rounded to float at the end.

    Parameters
    ----------
    P : ppl.C_Polyhedron
        The polyhedron, of space dimension ``n``.
    direction : array_like
        ``(n,)`` the direction (floats, converted exactly).

    Returns
    -------
    float
        The support value: ``inf`` when unbounded, ``-inf`` when ``P`` is empty.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    ppl = _require()
    if P.is_empty():
        return float("-inf")
    fr = [Fraction(float(v)) for v in np.asarray(direction, dtype=float)]
    den = 1
    for f in fr:
        den = lcm(den, f.denominator)
    e = ppl.Linear_Expression(0)
    for k, f in enumerate(fr):
        if f:
            e += int(f * den) * ppl.Variable(k)
    res = P.maximize(e)
    if not res["bounded"]:
        return float("inf")
    return float(Fraction(int(res["sup_n"]), int(res["sup_d"])) / den)


def support_exact(A, b, C, d, direction) -> float:
    """``max direction.x`` over ``{A x <= b, C x = d}`` in exact arithmetic (``polyhedron_support``).

    Parameters
    ----------
    A : numpy.ndarray
        ``(m, n)`` the inequality rows (floats, converted exactly).
    b : numpy.ndarray
        ``(m,)`` their right-hand side.
    C : numpy.ndarray
        ``(p, n)`` the equality rows (``p`` may be 0).
    d : numpy.ndarray
        ``(p,)`` their right-hand side.
    direction : array_like
        ``(n,)`` the direction (floats, converted exactly).

    Returns
    -------
    float
        The support value: ``inf`` when unbounded, ``-inf`` when the set is empty.

    Raises
    ------
    PolytopeError
        Without pplpy (``INSTALL_HINT``).
    """
    return polyhedron_support(to_ppl(A, b, C, d), direction)
