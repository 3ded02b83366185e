"""The exact method (``method="exact"``, pplpy): the package's decisions in floating point, the
rest in rational arithmetic.

**What it is exact for.** A float set's projection (or reduction) depends on decisions that no
arithmetic can take from rounded data: whether the set is empty, which inequalities hold with
equality on all of it, what dimension its image has, which linear dependences among the
eliminated parts of its rows are real. Taken in rational arithmetic on the rounded numbers they
flip with the last bit: a pair of rows that is an equality in the model is an empty sliver or a
1e-16-thick slab, an equality tilted by 1e-16 mixes into the facets of the result (RHex's
``LLSS`` lost its bounds, issue 39), and rows whose eliminated parts are dependent in the model
but independent after rounding no longer combine, so the projection loses the facets they make
(RHex's ``FFSF``, issue 22). So the exact method takes each such decision by a rule with a
tolerance, on the scaled data, and computes everything between them exactly:

1. *Emptiness and affine hull*: the package's rules (``polytopes._feasibility``,
   ``FEASIBILITY_TOL``) on the set it is given, through ``Polytope.inner_system``:
   ``{x0 + N u : V u <= gamma + relax}`` over the hull's coordinates ``u`` (``relax = eps`` for a
   thin set, as every LP query of the package sees it). Callers give it the set the default
   method projects (the analysis: ``D_c`` reduced), so both take these decisions on one object.
2. *The projection's dimension* (``RANK_RTOL``, the rule of ``Polytope.projected_dimension``):
   the SVD ``N[keep] = W diag(s) Zᵀ`` and its numerical rank ``r``; over ``v = Zᵀ u`` the
   projection keeps ``v1 = v[:r]`` (``x[keep] = x0[keep] + W_r diag(s_r) v1``) and eliminates
   ``v2 = v[r:]``.
3. *The dependences among the eliminated parts* ``G2`` (the rows' parts over ``v2``, rows of
   unit norm; a part below ``COEF_ZERO_TOL`` is zero). By Farkas' lemma the rows that combine
   into facets of the projection are the implicit equalities of the recession cone
   ``K = {ρ : G2 ρ <= 0}``. They are decided with exact LPs (``ppl_io.cone_implicit_rows``) on
   ``K`` relaxed by ``EXACT_CONE_RELAX`` (so rounding cannot block a direction the model leaves
   free) with the threshold ``COEF_ZERO_TOL`` per unit of ``ρ``, and their parts are rewritten
   over their numerical row space (``RANK_RTOL``): a dependence the model has is exact again.
   The other rows keep their parts.
4. *Redundancy* within ``REDUNDANCY_TOL`` times the result's scale, as the default method's
   ``Polytope.reduce`` decides it (``ppl_io.redundant_within``, exact LPs): a facet that rounding
   tilts past a degenerate vertex by 1e-16 is not a facet.

In between, rational arithmetic (every float converted exactly, ``polytopes.ppl_io``): the
projection onto ``v1`` and its facets (PPL's minimized constraints: no equality, the set being
full-dimensional in ``v1``), rounded to floats once and mapped back with ``W`` and ``s``. Two exact
checks guard the decisions: the rows have an interior, and the implicit rows' rewritten parts
leave no direction free (else ``NumericalError``: the rounded rows do not fit the decisions).
So the result has decision 2's dimension, and its facets and boundedness are those of the
model's projection up to the decisions' tolerances; it is not verified again by LPs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import ppl_io
from . import tolerances as tol
from ._linalg import rank_tol, row_norms
from ._redundancy import inner_unit_system
from .errors import NumericalError

if TYPE_CHECKING:  # pragma: no cover
    from .polytope import Polytope


def exact_projection(P: "Polytope", keep: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The exact method's projection of the nonempty ``P`` onto the coordinates ``keep`` (module
    docstring), in the ``Polytope.reduce`` output form.

    Parameters
    ----------
    P : Polytope
        The set, of dimension ``n``, nonempty by the package's emptiness rule.
    keep : Sequence[int]
        The kept coordinates, ``k >= 1`` distinct indices into ``range(n)``, in the result's order
        (all of them, in order, for the exact ``Polytope.reduce``).

    Returns
    -------
    tuple
        ``(A, b, C, d)`` over ``R^k``: ``C`` ``(k - r, k)`` orthonormal rows of the projection's
        affine hull (``r`` its dimension), ``d`` ``(k - r,)``; ``A`` ``(p, k)`` unit rows
        orthogonal to them, the facets, and ``b`` ``(p,)``.

    Raises
    ------
    ValueError
        When ``P`` is empty by the emptiness rule.
    NumericalError
        When the rounded rows do not fit the decisions (rows without an interior, or implicit rows
        leaving an eliminated direction free): the exact method cannot answer.
    """
    ks = [int(j) for j in keep]
    h = P.inner_system()
    if h is None:
        raise ValueError("exact_projection needs a set the emptiness rule calls nonempty")
    M = h.N[ks, :]
    c = h.x0[ks]
    if h.dimension == 0:
        return _point(c)
    W, s, Zt = np.linalg.svd(M, full_matrices=True)
    r = int((s > rank_tol(s, M.shape)).sum())
    if r == 0:
        return _point(c)
    U, _, beta_r = inner_unit_system(h)
    G = U @ Zt.T  # the inner rows over v = Zᵀ u
    G2 = _eliminated_parts(G[:, r:])
    F, g, dim_in, dim_out = ppl_io.project_interior(np.hstack([G[:, :r], G2]), beta_r, r)
    if dim_in != G.shape[1] or dim_out != r:
        raise NumericalError(f"exact method: the set's rows have affine dimension {dim_in} in its "
                             f"affine hull of dimension {G.shape[1]}: the rounded rows do not fit "
                             f"the hull decision; use the default method")
    A = (F / s[:r]) @ W[:, :r].T  # F v1 <= g with v1 = diag(1/s_r) W_rᵀ (x[keep] - c)
    nrm = row_norms(A)
    A, b = A / nrm[:, None], (g + A @ c) / nrm
    C = W[:, r:].T.copy()
    d = C @ c
    if A.shape[0] > 1:  # decision 4: redundancy within REDUNDANCY_TOL, as the default's reduce
        scale = max(1.0, float(np.abs(b).max()), float(np.abs(d).max(initial=0.0)))
        keep_rows = ~ppl_io.redundant_within(F, g, tol.REDUNDANCY_TOL * scale * nrm)
        A, b = A[keep_rows], b[keep_rows]
    return A, b, C, d


def _point(c: np.ndarray) -> tuple[np.ndarray, ...]:
    """The one point ``c`` (k,) in the ``Polytope.reduce`` output form."""
    k = c.shape[0]
    return np.zeros((0, k)), np.zeros(0), np.eye(k), c.copy()


def _eliminated_parts(G2: np.ndarray) -> np.ndarray:
    """Decision 3 of the module docstring: the eliminated parts ``G2`` (m, e) of unit rows with
    the parts below ``COEF_ZERO_TOL`` zero and the implicit rows of ``{ρ : G2 ρ <= 0}`` written
    over their numerical row space, in coordinates ``(Y, Y⊥)`` of the eliminated space (the
    implicit rows zero on ``Y⊥``): ``(m, e)``. Checked exactly: the implicit rows' parts leave
    no direction of ``Y`` free."""
    m, e = G2.shape
    if e == 0 or m == 0:
        return G2
    G2 = G2.copy()
    G2[row_norms(G2) <= tol.COEF_ZERO_TOL] = 0.0  # (rows of unit norm: relative to each row)
    implicit = ppl_io.cone_implicit_rows(G2, tol.EXACT_CONE_RELAX, tol.COEF_ZERO_TOL)
    if not implicit.any():
        return G2
    _, sv, Vt = np.linalg.svd(G2[implicit], full_matrices=True)
    rho = int((sv > rank_tol(sv, G2[implicit].shape)).sum())
    out = G2 @ Vt.T  # over (y, y⊥): Vt[:rho] spans the implicit rows' numerical row space
    out[np.ix_(implicit, np.arange(rho, e))] = 0.0
    if rho and ppl_io.cone_dimension(out[implicit][:, :rho]) != 0:
        raise NumericalError("exact method: the implicit rows of the eliminated variables' cone "
                             "leave a direction free in exact arithmetic (ill-conditioned input); "
                             "use the default method")
    return out
