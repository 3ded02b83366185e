"""The one emptiness rule and the one affine-hull rule of ``polytopes``.

Every decision "is this set empty?" and "which inequalities hold with equality on the whole
set?" — by ``Polytope.is_empty``, ``chebyshev_center``,
``affine_hull``, ``implicit_equalities``,
``affine_dimension``, ``bounding_box``, ``reduce``,
projection and ``polytopes.regions`` — is read from the two objects computed here
(``Feasibility``, then ``Hull``), once per ``Polytope`` (they are cached
on the immutable object), so no two operations can disagree.

**Set-up.** The explicit equalities ``C x = d`` are replaced by an orthonormal parametrization
``x = x0 + N z`` (``equality_basis``; inconsistent equalities mean empty).
Each inequality is normalized by ``||a_i||`` (so its slack is a Euclidean distance and the rule is
invariant under positive row scaling) and written over ``z``: ``(a_i N / ||a_i||) z + s <=
(b_i - a_i x0) / ||a_i||``. A row whose coefficient over ``z`` vanishes (``||a_i N|| <=
COEF_ZERO_TOL ||a_i||``) is a constant and is decided in Python.

**Emptiness** (``feasibility``): the max-slack LP ``s* = max s`` over those rows, with ``s``
capped at ``scale`` (``scale = max(1, max_i |b_i|/||a_i||, max_j |d_j|/||c_j||)``, see
``data_scale``). The set is empty iff the equalities are inconsistent or
``s* < -eps`` with ``eps = FEASIBILITY_TOL * scale``.

**Affine hull** (``hull``): if ``s* > eps`` the set has an interior (relative to the explicit
equalities) and no inequality is an implicit equality. Otherwise the rows are *relaxed* by ``eps``
(so the LPs below are feasible by construction: the max-slack point satisfies them) and the
iterated slack LPs of Freund, Roundy & Todd (1985) decide each row: a row is an implicit
equality iff no point of the relaxed set gives it a slack above ``3 eps`` (``2 eps`` in the
original row; the margin over the ``2 eps`` that two opposite rows of an exact equality reach
once relaxed keeps float noise from splitting an equality). The hull is then ``x_h + N_h w``, ``N_h`` an orthonormal basis,
``x_h`` the least-norm (least-squares) point of the implicit equalities — a consistent
description by construction, never "empty"; ``x_h`` need not lie in the set, it only anchors the
hull's coordinates (kept small so that offsets ``b_i - a_i x_h`` lose no precision).

**Inner system** (``Hull`` fields ``V``, ``gamma``, ``relax``): the non-implicit rows written
over ``w``, normalized by ``||a_i||``. LP queries on a nonempty set (support, bounding box,
Chebyshev center, redundancy) run on ``V w <= gamma + relax``, with ``relax = eps`` when ``s* <=
eps`` (a thin or lower-dimensional set, whose raw LPs a solver may call infeasible) and ``0``
otherwise; the results are within ``eps`` of the exact ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import lp
from . import tolerances as tol
from ._linalg import data_scale, equality_basis, matvec, rank_tol, row_norms


@dataclass(frozen=True)
class Feasibility:
    """Result of the emptiness rule for ``{A x <= b, C x = d}`` (``A`` (m, n), ``C`` (p, n)).

    ``empty``: the decision. ``slack``: ``s*`` (normalized distance units; ``-inf`` when ``C x =
    d`` is inconsistent). ``point`` (n,): the max-slack point (``None`` if the equalities are
    inconsistent). ``eps``: the tolerance ``FEASIBILITY_TOL * scale``; ``scale`` the data scale.
    ``Q`` (r, n), ``q`` (r,), ``x0`` (n,), ``N`` (n, n - r): orthonormal description of ``C x = d``.
    ``U`` (m, n - r), ``beta`` (m,): the inequalities over ``z`` normalized by ``||a_i||``;
    ``const`` (m,) bool: rows constant over ``z`` (and zero rows of ``A``).
    """

    empty: bool
    slack: float
    point: np.ndarray | None
    eps: float
    scale: float
    Q: np.ndarray
    q: np.ndarray
    x0: np.ndarray
    N: np.ndarray
    U: np.ndarray
    beta: np.ndarray
    const: np.ndarray

    @property
    def thin(self) -> bool:
        """``s* <= eps``: possibly lower-dimensional; LPs use the relaxed system."""
        return not self.empty and self.slack <= self.eps


@dataclass(frozen=True)
class Hull:
    """The affine hull of a nonempty set and its inequalities over the hull's coordinates
    (``Polytope.inner_system``): the set is ``{x0 + N w : V w <= gamma}``.

    Attributes
    ----------
    implicit : numpy.ndarray
        Bool, shape ``(m,)``: the rows of ``A`` holding with equality on the whole set.
    Q : numpy.ndarray
        Orthonormal equalities ``Q x = q`` of the hull, shape ``(r, n)``.
    q : numpy.ndarray
        Their right-hand side, shape ``(r,)``.
    x0 : numpy.ndarray
        The least-norm point of the hull, shape ``(n,)``; not necessarily a point of the set
        (except when ``k = 0``).
    N : numpy.ndarray
        Orthonormal basis of the hull's direction space, shape ``(n, k)``, ``k`` the affine
        dimension.
    rows : numpy.ndarray
        Int, shape ``(m',)``: the rows of ``A`` kept in the inner system (the non-implicit ones).
    V : numpy.ndarray
        The inner system's matrix over ``w``, shape ``(m', k)``, rows divided by ``||a_i||`` (so
        ``||V_i|| <= 1``).
    gamma : numpy.ndarray
        Its right-hand side, shape ``(m',)``.
    relax : float
        What LP queries add to ``gamma``: ``FEASIBILITY_TOL * data_scale`` for a thin set (slack
        within the emptiness tolerance), else 0.
    """

    implicit: np.ndarray
    Q: np.ndarray
    q: np.ndarray
    x0: np.ndarray
    N: np.ndarray
    rows: np.ndarray
    V: np.ndarray
    gamma: np.ndarray
    relax: float

    @property
    def dimension(self) -> int:
        """The affine dimension ``k`` (columns of ``N``)."""
        return int(self.N.shape[1])


def problem_scale(A, b, C, d, norms=None) -> float:
    """``max(1, max_i |b_i|/||a_i||, max_j |d_j|/||c_j||)``: the scale of the data's offsets
    (``norms``: the row norms of ``A`` when known)."""
    return max(data_scale(A, b, norms), data_scale(C, d))


@dataclass(frozen=True)
class _SlackLP:
    """The max-slack LP of one set, before it is solved: ``max s`` s.t. ``U z + s <= beta`` over
    the live rows, ``s <= s_max`` (``G`` (m', k + 1) = ``[U_live, 1]``, ``h`` (m',))."""

    G: np.ndarray
    h: np.ndarray
    s_max: float


def _setup(A, b, C, d) -> tuple[Feasibility, _SlackLP | None]:
    """The emptiness rule up to its LP: the ``Feasibility`` when no LP is needed (then the
    second item is ``None``), else a template whose ``empty``/``slack``/``point`` are filled in by
    ``_decide`` from the LP's optimum."""
    m, n = A.shape
    nrm = row_norms(A)
    nz = nrm > 0
    s_ = nrm if nz.all() else np.where(nz, nrm, 1.0)
    scale = problem_scale(A, b, C, d, nrm)
    Q, q, x0, N, consistent = equality_basis(C, d, n)
    if C.shape[0]:
        U = (A @ N) / s_[:, None]
        beta = (b - matvec(A, x0)) / s_  # matvec: the stacked set-ups' bits on any BLAS
        const = ~nz | (row_norms(U) <= tol.COEF_ZERO_TOL)
    else:  # N = I, x0 = 0: the normalized rows themselves (unit norm, or zero)
        U = A / s_[:, None]
        beta = b / s_
        const = ~nz
    return _template(scale, Q, q, x0, N, consistent, U, beta, const)


def _template(scale, Q, q, x0, N, consistent, U, beta, const) -> tuple[Feasibility, _SlackLP | None]:
    """``_setup``'s result from the set's equality basis and rows over it (``U`` is changed
    in place: its constant rows are zeroed)."""
    eps = tol.FEASIBILITY_TOL * scale
    k = N.shape[1]
    any_const = bool(const.any())
    if any_const:
        U[const] = 0.0

    def result(empty, slack, point):
        return Feasibility(empty, slack, point, eps, scale, Q, q, x0, N, U, beta, const)

    if not consistent:
        return result(True, float("-inf"), None), None
    cap = scale
    s_const = float(beta[const].min(initial=cap)) if any_const else cap
    n_live = const.size - int(np.count_nonzero(const)) if any_const else const.size
    if k == 0 or n_live == 0:
        return result(s_const < -eps, min(s_const, cap), x0.copy()), None
    # max s  s.t.  U z + s <= beta (live rows),  s <= min(cap, constant rows)
    if any_const:
        live = ~const
        U_live, b_live = U[live], beta[live]
    else:
        U_live, b_live = U, beta
    G = np.empty((n_live, k + 1))
    G[:, :k] = U_live
    G[:, k] = 1.0
    return result(True, float("nan"), None), _SlackLP(G, b_live, min(cap, s_const))


SETUP_CHUNK = 512
"""``feasibility_many`` and ``empty_stacked`` set up at most this many sets of one shape
at a time (a cost knob: bounded memory)."""


@dataclass(frozen=True)
class _Stacked:
    """The set-up of ``S`` sets of one shape at once (``_stacked_setups``): the fields of
    ``Feasibility`` stacked, ``sel`` (S,) their positions in the caller's stack, ``N`` (S, n,
    k) with ``k`` common to the group (``None`` for sets without equalities: ``N = I``),
    ``consistent`` (S,) bool."""

    sel: np.ndarray
    scale: np.ndarray
    Q: np.ndarray
    q: np.ndarray
    x0: np.ndarray
    N: np.ndarray | None
    consistent: np.ndarray
    U: np.ndarray
    beta: np.ndarray
    const: np.ndarray

    @property
    def k(self) -> int:
        """The number of free directions ``k`` (columns of ``N``)."""
        return self.U.shape[2]

    def basis(self, j: int) -> np.ndarray:
        """``N`` (n, k) of the ``j``-th set (a fresh identity for sets without equalities)."""
        return np.eye(self.U.shape[2]) if self.N is None else self.N[j]


def _stacked_setups(A, b, C, d) -> tuple[np.ndarray, list[_Stacked]]:
    """``_setup`` of the ``G`` sets ``{A_g x <= b_g, C_g x = d_g}`` of one shape (``A`` (G, m,
    n), ``b`` (G, m), ``C`` (G, p, n), ``d`` (G, p), ``m >= 1``) up to ``_template``: stacked
    row norms, SVDs and products (each result the one ``_setup`` gives the set alone, bit for
    bit: the matrix–vector products by ``matvec`` in both, the matrix products and SVDs one
    LAPACK/BLAS call per matrix; ``tests/polytopes/test_polytopes_trust.py`` compares them). Returns the
    positions of the sets left to ``_setup`` itself (equalities with a zero row, or no nonzero
    row in ``A``) and one ``_Stacked`` per rank of the equalities."""
    n, p = A.shape[2], C.shape[1]
    nrm = np.sqrt(np.add.reduce(A * A, axis=2))  # row_norms, the same operations
    nz = nrm > 0
    s_ = np.where(nz, nrm, 1.0)
    if p:
        nC = np.sqrt(np.add.reduce(C * C, axis=2))
        zero_c = nC <= tol.COEF_ZERO_TOL * np.maximum(1.0, nC.max(axis=1))[:, None]
    else:
        zero_c = np.zeros((A.shape[0], 0), dtype=bool)
    ok = ~zero_c.any(axis=1) & ~(~nz).all(axis=1)  # the usual case: no zero rows in C, some in A
    single = np.flatnonzero(~ok)
    keep = np.flatnonzero(ok)
    if keep.size == 0:
        return single, []
    A, b, nrm, nz, s_ = A[keep], b[keep], nrm[keep], nz[keep], s_[keep]
    # data_scale of (A, b) with the rows' norms (its three cases), then of (C, d)
    ratio = np.abs(b) / s_
    scale = np.maximum(1.0, np.where(nz, ratio, -np.inf).max(axis=1))
    if not p:
        G = keep.size
        return single, [_Stacked(keep, scale, np.zeros((G, 0, n)), np.zeros((G, 0)), np.zeros((G, n)),
                                 None, np.ones(G, dtype=bool), A / s_[:, :, None],
                                 b / s_, ~nz)]
    C, d, nC = C[keep], d[keep], nC[keep]
    Cn, dn = C / nC[:, :, None], d / nC
    scale = np.maximum(scale, np.maximum(1.0, (np.abs(d) / nC).max(axis=1)))
    Uc, sc, Vt = np.linalg.svd(Cn, full_matrices=True)
    tol_r = tol.RANK_RTOL * max(p, n) * np.maximum(sc[:, 0], 1.0)
    ranks = (sc > tol_r[:, None]).sum(axis=1)
    scale_c = np.maximum(1.0, np.abs(dn).max(axis=1))
    out = []
    for r in np.unique(ranks):
        sel = np.flatnonzero(ranks == r)
        Q = Vt[sel, :r]
        # matrix-vector products by ``matvec`` as in ``equality_basis`` and ``_setup``: NumPy's
        # reduction, not BLAS, whose stacked and single routines round otherwise on some CPUs
        x0 = matvec(np.swapaxes(Q, 1, 2), matvec(np.swapaxes(Uc[sel][:, :, :r], 1, 2), dn[sel]) / sc[sel, :r])
        N = np.swapaxes(Vt[sel, r:], 1, 2)
        resid = matvec(Cn[sel], x0) - dn[sel]
        consistent = (np.abs(resid) <= (tol.FEASIBILITY_TOL * 10 * scale_c[sel])[:, None]).all(axis=1)
        q = matvec(Q, x0)
        U = (A[sel] @ N) / s_[sel][:, :, None]
        beta = (b[sel] - matvec(A[sel], x0)) / s_[sel]
        const = ~nz[sel] | (np.sqrt(np.add.reduce(U * U, axis=2)) <= tol.COEF_ZERO_TOL)
        out.append(_Stacked(keep[sel], scale[sel], Q, q, x0, N, consistent, U, beta, const))
    return single, out


def _shape_chunks(systems: Sequence[tuple[np.ndarray, ...]]) -> list[tuple[tuple[int, int, int], list[int]]]:
    """The positions of ``systems`` grouped by shape ``(m, n, p)``, in chunks of at most
    ``SETUP_CHUNK`` (bounded memory)."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, (A, _, C, _) in enumerate(systems):
        groups.setdefault((*A.shape, C.shape[0]), []).append(i)
    return [(key, ix[j:j + SETUP_CHUNK]) for key, ix in groups.items() for j in range(0, len(ix), SETUP_CHUNK)]


def _decide(template: Feasibility, zs: np.ndarray) -> Feasibility:
    """The rule's decision from an optimum ``zs = (z*, s*)`` of the max-slack LP."""
    t = template
    k = t.N.shape[1]
    s_star = float(zs[k])
    return Feasibility(s_star < -t.eps, s_star, t.x0 + t.N @ zs[:k], t.eps, t.scale, t.Q, t.q, t.x0, t.N, t.U,
                       t.beta, t.const)


def feasibility(A, b, C, d) -> Feasibility:
    """Apply the emptiness rule (module docstring) to ``{A x <= b, C x = d}``.

    Raises ``NumericalError`` only if the max-slack LP (feasible and bounded by
    construction) cannot be solved reliably by any solver.
    """
    template, slp = _setup(A, b, C, d)
    if slp is None:
        return template
    k = slp.G.shape[1] - 1
    c = np.zeros(k + 1)
    c[-1] = -1.0
    bounds = [(None, None)] * k + [(None, slp.s_max)]
    st, zs, _ = lp.solve(c, slp.G, slp.h, bounds=bounds, bounded=True)
    # the LP is feasible (s -> -inf) and bounded (s <= cap): only OPTIMAL survives verification
    return _decide(template, zs)


def is_empty(A, b, C, d) -> bool:
    """The emptiness rule of ``Polytope.is_empty`` applied to arrays, without building a
    ``Polytope`` (no copy, no validation, nothing cached).

    Parameters
    ----------
    A : numpy.ndarray
        Inequality matrix, shape ``(m, n)``.
    b : numpy.ndarray
        Inequality right-hand side, shape ``(m,)``.
    C : numpy.ndarray
        Equality matrix, shape ``(p, n)`` (``p`` may be 0).
    d : numpy.ndarray
        Equality right-hand side, shape ``(p,)``.

    Returns
    -------
    bool
        Whether ``{x : A x <= b, C x = d}`` is empty: the answer ``Polytope(A, b, C, d).is_empty()``
        gives.

    Raises
    ------
    NumericalError
        When the max-slack LP cannot be solved reliably by any solver.

    Examples
    --------
    >>> import numpy as np
    >>> from polytopes import is_empty
    >>> A, b = np.array([[1.0], [-1.0]]), np.array([1.0, -2.0])  # x <= 1 and x >= 2
    >>> is_empty(A, b, np.zeros((0, 1)), np.zeros(0))
    True
    """
    return feasibility(A, b, C, d).empty


def feasibility_many(systems: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
                     kernel: str = "numpy") -> list[Feasibility]:
    """``feasibility`` of every ``(A, b, C, d)`` of ``systems``: the same set-up and the same
    decision, with the max-slack LPs solved together by the verified batched dual simplex of
    ``polytopes.batchlp`` (``solve_batch``: every answer checked by the
    rules of ``polytopes.lp.solve_verified``, the undecided ones solved by it). The sets of one
    shape are set up together (``_stacked_setups``) and their LPs built stacked
    (``_slack_lps``); each result is the one the set gets alone, bit for bit
    (``tests/polytopes/test_polytopes_trust.py``).

    Sets of different sizes share a batch by padding to a size that depends on each LP's own size
    (``solve_padded``), so a set's answer does not depend on the others of
    the batch. Free variables get the artificial box ``BATCH_LP_BOUND`` times each set's
    data scale; an answer leaning on it is not accepted (it goes to the fallback without the box).
    ``kernel``: a ``polytopes.batchlp`` kernel; the default, NumPy, gives the same floats in
    every process (the compiled kernel's last bits differ, and whether it is loaded depends on
    what the process did before). Raises
    ``NumericalError`` when an LP cannot be solved reliably by any solver.
    """
    out: list = [None] * len(systems)
    chunks = _shape_chunks(systems)
    stacks = []
    for (m, n, p), idx in chunks:
        G = len(idx)
        stacks.append((np.array([systems[i][0] for i in idx]) if m else np.zeros((G, 0, n)),
                       np.array([systems[i][1] for i in idx]) if m else np.zeros((G, 0)),
                       np.array([systems[i][2] for i in idx]) if p else np.zeros((G, 0, n)),
                       np.array([systems[i][3] for i in idx]) if p else np.zeros((G, 0))))
    for (_, idx), results in zip(chunks, _decide_stacks(stacks, kernel, objects=True)):
        for i, f in zip(idx, results):
            out[i] = f
    return out


def empty_stacked(systems, kernel: str = "numpy") -> list[tuple[np.ndarray, np.ndarray]]:
    """The emptiness rule of ``Polytope.is_empty`` for many sets given as stacks of one shape
    each, without a ``Polytope`` or a Python loop per set.

    Stacks with the same ``(n, p)`` (and a nonzero row in every set) are joined (rows padded)
    and decided as ``Polytope.are_empty`` decides them (the same set-up and LPs); each decision
    and slack is the one the set gets alone (``tests/polytopes/test_polytopes_trust.py``).

    Parameters
    ----------
    systems : Sequence[tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]]
        Stacks ``(A, b, C, d)`` with shapes ``(G, m, n)``, ``(G, m)``, ``(G, p, n)``, ``(G, p)``:
        ``G`` sets ``{x : A_g x <= b_g, C_g x = d_g}`` each (``G``, ``m``, ``n``, ``p`` per stack).
    kernel : str, optional
        The ``polytopes.batchlp`` kernel of the max-slack LPs: ``"numpy"`` (default: the same
        floats in every process), ``"compiled"`` or ``"auto"``.

    Returns
    -------
    list of tuple of numpy.ndarray
        Per stack, ``(empty, slack)``: ``empty`` bool, shape ``(G,)``; ``slack`` the max-slack
        ``s*``, shape ``(G,)`` (``-inf`` for inconsistent equalities).

    Raises
    ------
    NumericalError
        When an LP cannot be solved reliably by any solver.

    Examples
    --------
    >>> import numpy as np
    >>> from polytopes import empty_stacked
    >>> A = np.array([[[1.0], [-1.0]], [[1.0], [-1.0]]])  # x <= b_0, -x <= b_1
    >>> b = np.array([[1.0, 0.0], [1.0, -2.0]])            # [0, 1], then x <= 1 and x >= 2
    >>> empty, slack = empty_stacked([(A, b, np.zeros((2, 0, 1)), np.zeros((2, 0)))])[0]
    >>> empty.tolist()
    [False, True]
    """
    shapes: dict[tuple, list[int]] = {}
    for t, (A, _, C, _) in enumerate(systems):
        # padding joins stacks whose sets all have a nonzero row (a set without one takes its data
        # scale from its right-hand sides, padded rows included: such stacks keep their own shape)
        paddable = bool(A.shape[1]) and bool((A != 0).any(axis=2).any(axis=1).all())
        shapes.setdefault((A.shape[2], C.shape[1]) if paddable else A.shape[1:] + (C.shape[1], "exact"), []).append(t)
    joined = []
    for members in shapes.values():
        m = max(systems[t][0].shape[1] for t in members)
        parts = []
        for t in members:
            A, b, C, d = systems[t]
            parts.append((*_pad_rows(A, b, C, d, m), C, d))
        joined.append(tuple(np.concatenate([P[i] for P in parts]) if len(parts) > 1 else np.asarray(parts[0][i])
                            for i in range(4)))
    out: list = [None] * len(systems)
    for members, (empty, slack) in zip(shapes.values(), _decide_stacks(joined, kernel, objects=False)):
        at = 0
        for t in members:
            G = systems[t][0].shape[0]
            out[t] = (empty[at:at + G], slack[at:at + G])
            at += G
    return out


def _pad_rows(A: np.ndarray, b: np.ndarray, C: np.ndarray, d: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Stacked sets (``A`` (G, m0, n), ``b`` (G, m0), ``C`` (G, p, n), ``d`` (G, p)) with rows ``0 . x
    <= cap`` appended to ``A, b`` up to ``m`` rows, ``cap`` at least each set's data scale
    (``problem_scale``, the cap on its slack): a zero row is a constant row of the emptiness
    rule, left out of the scale, and this one caps the slack no lower than it is capped anyway —
    the set-up of the other rows, the max-slack LP (where a constant row is a zero row) and so the
    decision and the slack are the set's own, bit for bit."""
    G, m0, n = A.shape
    if m0 == m:
        return A, b
    cap = np.ones(G)
    for M, v in ((A, b), (C, d)):  # max(1, |v_i| / ||M_i||) over the nonzero rows, and |v| itself
        if M.shape[1]:
            nrm = np.sqrt(np.add.reduce(M * M, axis=2))
            ratio = np.where(nrm > 0, np.abs(v) / np.where(nrm > 0, nrm, 1.0), 0.0)
            cap = np.maximum(cap, np.maximum(ratio.max(axis=1), np.abs(v).max(axis=1)))
    A_pad = np.zeros((G, m, n))
    A_pad[:, :m0] = A
    b_pad = np.repeat(cap[:, None], m, axis=1)
    b_pad[:, :m0] = b
    return A_pad, b_pad


def _decide_stacks(stacks, kernel: str, objects: bool) -> list:
    """The emptiness rule on stacks of one shape each (``(A, b, C, d)`` (G, m, n), (G, m), (G, p,
    n), (G, p)): per stack the list of ``Feasibility`` (``objects``) or ``(empty (G,), slack
    (G,))``. Chunks of ``SETUP_CHUNK`` sets are set up together (``_stacked_setups``; a chunk
    of one set, a set without rows, and the sets it leaves to ``_setup`` take ``_setup``);
    the sets ``_template`` decides without an LP are decided by it; the max-slack LPs of the
    others are built stacked (``_slack_lps``) and solved, with those of the ``_setup``
    sets, in verified batches, one per padded size (``polytopes.batchlp.solve_stacked``)."""
    from . import batchlp

    feas: list[list] = []
    decided: list[tuple[np.ndarray, np.ndarray]] = []
    alone: list[tuple[int, int, Feasibility, _SlackLP]] = []  # the _setup sets with an LP
    lps = []  # (stack, positions, the _Stacked, its sets, eps (S,)) and the stacked LPs

    def record(t: int, g: int, template: Feasibility, slp: _SlackLP | None) -> None:
        if slp is not None:
            alone.append((t, g, template, slp))
        elif objects:
            feas[t][g] = template
        else:
            decided[t][0][g], decided[t][1][g] = template.empty, template.slack

    for t, (A, b, C, d) in enumerate(stacks):
        G, m, n = A.shape
        feas.append([None] * G)
        decided.append((np.zeros(G, dtype=bool), np.full(G, np.nan)))
        for a0 in range(0, G, SETUP_CHUNK):
            z = np.arange(a0, min(G, a0 + SETUP_CHUNK))
            if m == 0 or z.size == 1:
                for g in z.tolist():
                    record(t, g, *_setup(A[g], b[g], C[g], d[g]))
                continue
            single, stacked = _stacked_setups(A[z], b[z], C[z], d[z])
            for g in z[single].tolist():
                record(t, g, *_setup(A[g], b[g], C[g], d[g]))
            for st in stacked:
                st.U[st.const] = 0.0  # as _template zeroes them, set by set
                k = st.k
                need_lp = st.consistent & ~st.const.all(axis=1) & (k > 0)
                for j in np.flatnonzero(~need_lp).tolist():  # decided by _template
                    record(t, int(z[st.sel[j]]), *_template_of(st, j))
                sets = np.flatnonzero(need_lp)
                if sets.size:
                    eps, problem = _slack_lps(st, sets)
                    lps.append(((t, z[st.sel[sets]], st, sets, eps), problem))
    # the stacked LPs and those of the _setup sets (stacks of one), in one call: one batch per size
    singles = [_slack_problem(tp, slp) for _, _, tp, slp in alone]
    solved = batchlp.solve_stacked([p for _, p in lps] + singles, fallback=True, kernel=kernel)
    if any(np.any(status != lp.OPTIMAL) for status, _, _ in solved):  # feasible and bounded by construction
        from .errors import NumericalError
        raise NumericalError("max-slack LP reported infeasible or unbounded")
    for ((t, pos, st, sets, eps), _), (_, x, _) in zip(lps, solved):
        s_star = x[:, st.k]
        if not objects:
            decided[t][0][pos] = s_star < -eps
            decided[t][1][pos] = s_star
            continue
        for g, j, zs in zip(pos.tolist(), sets.tolist(), x):
            feas[t][g] = _decide(_template_of(st, j)[0], zs)
    for (t, g, template, _), (_, x, _) in zip(alone, solved[len(lps):]):
        f = _decide(template, x[0])
        if objects:
            feas[t][g] = f
        else:
            decided[t][0][g], decided[t][1][g] = f.empty, f.slack
    return feas if objects else decided


def _template_of(st: _Stacked, j: int) -> tuple[Feasibility, _SlackLP | None]:
    """``_template`` of the ``j``-th set of ``st`` (its rows of ``U`` already zeroed where
    constant)."""
    return _template(float(st.scale[j]), st.Q[j], st.q[j], st.x0[j], st.basis(j), bool(st.consistent[j]), st.U[j],
                     st.beta[j], st.const[j])


def _slack_problem(t: Feasibility, slp: _SlackLP):
    """The max-slack LP of one set (``_setup``'s) as a stack of one for
    ``polytopes.batchlp.solve_stacked``: variables ``(z, s)``, max ``s``, ``z`` free (the
    artificial box), ``s <= s_max`` (real)."""
    c, lo, hi, art_lo, art_hi = _slack_bounds(np.array([t.scale]), np.array([slp.s_max]), slp.G.shape[1] - 1)
    return c, slp.G[None], slp.h[None], lo, hi, art_lo, art_hi


def _slack_bounds(scale: np.ndarray, s_max: np.ndarray, k: int) -> tuple[np.ndarray, ...]:
    """Cost and bounds of ``S`` max-slack LPs over ``(z, s)``, ``z`` (k,): ``(c, lo, hi, art_lo,
    art_hi)`` (each (S, k + 1)): ``max s``, ``z`` in the artificial box ``BATCH_LP_BOUND * scale``,
    ``s <= s_max`` real (its lower bound artificial)."""
    S = scale.size
    c = np.zeros((S, k + 1))
    c[:, k] = -1.0
    bound = tol.BATCH_LP_BOUND * scale
    lo = np.repeat(-bound[:, None], k + 1, axis=1)
    hi = np.repeat(bound[:, None], k + 1, axis=1)
    hi[:, k] = s_max
    art_hi = np.ones((S, k + 1), dtype=bool)
    art_hi[:, k] = False
    return c, lo, hi, np.ones((S, k + 1), dtype=bool), art_hi


def _slack_lps(st: _Stacked, sets: np.ndarray):
    """The max-slack LPs of ``_template`` for the sets ``sets`` of ``st`` (consistent, with a
    free direction and a live row), stacked for ``polytopes.batchlp.solve_stacked`` with the
    bounds of ``feasibility_many``: ``(eps (S,), (c, G, h, lo, hi, art_lo, art_hi))``. A
    constant row is not dropped but zeroed (``0 <= 0``, a padding row of
    ``polytopes.batchlp``, which never enters a basis), its offset capping ``s`` as in
    ``_template``."""
    S, k = sets.size, st.k
    scale = st.scale[sets]
    const = st.const[sets]
    live = ~const
    beta = st.beta[sets]
    s_max = np.minimum(scale, np.where(const, beta, np.inf).min(axis=1))
    # max s  s.t.  U z + s <= beta (live rows),  s <= s_max
    G = np.zeros((S, const.shape[1], k + 1))
    G[:, :, :k] = st.U[sets]
    G[const] = 0.0
    G[:, :, k] = live
    c, lo, hi, art_lo, art_hi = _slack_bounds(scale, s_max, k)
    return tol.FEASIBILITY_TOL * scale, (c, G, np.where(const, 0.0, beta), lo, hi, art_lo, art_hi)


def hull(A, b, C, d, feas: Feasibility) -> Hull:
    """Apply the affine-hull rule (module docstring) to a set that ``feas`` calls nonempty:
    ``hulls`` of one set.

    Never fails on such a set (the LPs are feasible by construction); raises
    ``NumericalError`` only if an LP cannot be solved reliably.
    """
    return hulls([(A, b, C, d, feas)])[0]


@dataclass
class _Implicit:
    """The implicit-equality search of one thin set in progress (``hulls``): ``implicit``,
    ``undecided`` (m,) bool, the relaxed offsets ``rb`` (m,) and the cap on the slacks."""

    implicit: np.ndarray
    undecided: np.ndarray
    rb: np.ndarray
    cap: float


def hulls(items: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Feasibility]],
          kernel: str = "numpy") -> list[Hull]:
    """``hull`` of each ``(A, b, C, d, feas)`` (sets ``feas`` calls nonempty), the slack LPs of
    the thin sets' implicit-equality rounds solved together, one verified batch per round
    (``polytopes.batchlp.solve_padded``, each LP padded by its own size, so a set's answer
    does not depend on the others; free variables in the artificial box ``BATCH_LP_BOUND`` times
    the set's data scale, an answer leaning on it solved again without it).

    ``kernel``: the ``polytopes.batchlp`` kernel of the rounds (default NumPy: the same floats in
    every process).

    Raises ``ValueError`` when a set is empty by ``feas``, and
    ``NumericalError`` only if an LP cannot be solved reliably.
    """
    from . import batchlp

    searches: dict[int, _Implicit] = {}
    implicit = []
    for i, (A, _, _, _, feas) in enumerate(items):
        if feas.empty:
            raise ValueError("hull() needs a set the emptiness rule calls nonempty")
        found = np.zeros(A.shape[0], dtype=bool)
        implicit.append(found)
        if feas.thin:
            eps, U, beta, const = feas.eps, feas.U, feas.beta, feas.const
            z_pt = feas.N.T @ (feas.point - feas.x0)
            found[const] = beta[const] <= eps
            found[const & (row_norms(A) == 0)] = False  # 0 <= b_i, b_i ~ 0: says nothing
            undecided = ~const & (beta - U @ z_pt <= 2 * eps)
            if undecided.any():
                searches[i] = _Implicit(found, undecided, beta + eps, max(feas.scale, 4 * eps))
    while searches:  # one round: every set's LP over its undecided rows, solved together
        order = list(searches)
        problems = []
        for i in order:
            problems.append(_implicit_lp(items[i][4], searches[i]))
        status, xs, _ = batchlp.solve_padded(problems, fallback=True, kernel=kernel)
        for i, st, zt in zip(order, status, xs):
            if st != lp.OPTIMAL or zt is None:  # feasible by construction: (z_pt, 0)
                from .errors import NumericalError
                raise NumericalError("implicit-equality LP reported infeasible on a set the "
                                     "emptiness rule calls nonempty")
            if _implicit_round(items[i][4], searches[i], zt):
                del searches[i]
    return [_hull_from(A, b, feas, found) for (A, b, _, _, feas), found in zip(items, implicit)]


def _implicit_lp(feas: Feasibility, s: _Implicit):
    """One round's LP of a thin set (Freund, Roundy & Todd): variables ``(z, t_idx)``, ``max sum
    t`` s.t. ``U z + T t <= beta + eps`` over the live rows, ``0 <= t <= cap``, ``z`` free (the
    artificial box); as a ``polytopes.batchlp.solve_padded`` problem."""
    U, const = feas.U, feas.const
    k = U.shape[1]
    idx = np.flatnonzero(s.undecided)
    live = np.flatnonzero(~const)
    kk = idx.size
    T = np.zeros((live.size, kk))
    T[np.searchsorted(live, idx), np.arange(kk)] = 1.0
    G = np.hstack([U[live], T])
    c = np.concatenate([np.zeros(k), -np.ones(kk)])
    bound = tol.BATCH_LP_BOUND * feas.scale
    lo = np.concatenate([np.full(k, -bound), np.zeros(kk)])
    hi = np.concatenate([np.full(k, bound), np.full(kk, s.cap)])
    art = np.concatenate([np.ones(k, dtype=bool), np.zeros(kk, dtype=bool)])
    return c, G, s.rb[live], lo, hi, art, art


def _implicit_round(feas: Feasibility, s: _Implicit, zt: np.ndarray) -> bool:
    """Apply a round's optimum ``zt = (z, t)``: rows given a slack above ``3 eps`` are not
    implicit; when none is, every undecided row is. Returns whether the search is over."""
    k = feas.U.shape[1]
    idx = np.flatnonzero(s.undecided)
    z_new = zt[:k]
    decided = (s.rb[idx] - feas.U[idx] @ z_new) > 3 * feas.eps
    if not np.any(decided):
        s.implicit[idx] = True
        return True
    s.undecided[idx[decided]] = False
    return not s.undecided.any()


def _hull_from(A, b, feas: Feasibility, implicit: np.ndarray) -> Hull:
    """The ``Hull`` of a set from its implicit rows: the null space of those rows (SVD), its
    least-norm point and the inner system over the rest."""
    n = A.shape[1]
    U, beta, const, eps = feas.U, feas.beta, feas.const, feas.eps
    k = feas.N.shape[1]
    # hull over z: null space of the implicit rows
    Ui = U[implicit & ~const]
    Wz = np.eye(k)
    z_h = np.zeros(k)  # hull point: the least-norm point of the hull (x0 + N z_h), not the LP
    # point, which may lie far away (s* is capped at ``scale``): offsets b - a.x_h stay accurate
    if Ui.shape[0] and k:
        # The implicit rows as the emptiness rule weighs them: normalized by ||a_i|| (not by
        # their norm over z). A direction of z along which they change by at most
        # FEASIBILITY_TOL per unit (at most eps over the data scale) is one the emptiness rule
        # cannot see them restrict: it stays in the hull. (Renormalizing each row over z made
        # a row that is constant on C x = d up to rounding — an acceleration forced to zero by a
        # task, big718 — a unit equality pinning the hull to a line through rounding noise.)
        bi = beta[implicit & ~const]
        Uu, s, Vt = np.linalg.svd(Ui, full_matrices=True)
        r = int(np.sum(s > max(rank_tol(s, Ui.shape), tol.FEASIBILITY_TOL)))
        Wz = Vt[r:].T
        # least-norm least-squares point of the implicit equalities (rank r)
        z_h = Vt[:r].T @ ((Uu[:, :r].T @ bi) / s[:r])
    N_h = feas.N @ Wz
    x_h = feas.x0 + feas.N @ z_h
    if N_h.shape[1] < n:
        _, _, Vt = np.linalg.svd(N_h.T, full_matrices=True) if N_h.shape[1] else (None, None, np.eye(n))
        Q_h = Vt[N_h.shape[1]:]
    else:
        Q_h = np.zeros((0, n))
    # inner system over w
    rows = np.flatnonzero(~implicit & ~const)
    nrm = row_norms(A[rows])
    V = (A[rows] @ N_h) / nrm[:, None] if rows.size else np.zeros((0, N_h.shape[1]))
    gamma = (b[rows] - A[rows] @ x_h) / nrm if rows.size else np.zeros(0)
    nonzero = row_norms(V) > tol.COEF_ZERO_TOL
    rows, V, gamma = rows[nonzero], V[nonzero], gamma[nonzero]
    return Hull(implicit, Q_h, Q_h @ x_h, x_h, N_h, rows, V, gamma, eps if feas.thin else 0.0)
