"""The immutable H-polytope ``{x : A x <= b, C x = d}`` (conventions: ``docs/conventions.md``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from . import _cdd_io, _feasibility, _redundancy, lp, ppl_io
from . import tolerances as _tol
from .errors import NumericalError, PolytopeError
from ._exact_projection import exact_projection
from ._linalg import data_scale, normalize_rows, rank_tol, row_norms
from ._raypool import RayPool


@dataclass(frozen=True)
class ChebyshevBall:
    """Largest ball inside a set, within its affine hull (``Polytope.chebyshev_center``).

    Attributes
    ----------
    center : numpy.ndarray
        Shape ``(n,)``: the centre (NaN for the empty set), in the set's coordinates.
    radius : float
        The radius: ``inf`` when unbounded, 0 for a single point, ``-inf`` for the empty set.
    """

    center: np.ndarray
    radius: float


@dataclass(frozen=True)
class NearestPoint:
    """The point of a set nearest to a query point (``Polytope.nearest_point``).

    Attributes
    ----------
    point : numpy.ndarray
        Shape ``(n,)``: the nearest point of the set, in the set's coordinates (read-only).
    distance : float
        The Euclidean distance in the metric asked for (weighted or not); 0 inside the set.
    """

    point: np.ndarray
    distance: float


@dataclass(frozen=True)
class Generators:
    """V-representation ``conv(vertices) + cone(rays) + span(lines)``.

    All three arrays are empty for the empty set.

    Attributes
    ----------
    vertices : numpy.ndarray
        Shape ``(nv, n)``: the vertices (points of the set).
    rays : numpy.ndarray
        Shape ``(nr, n)``: directions of the recession cone that are not lines.
    lines : numpy.ndarray
        Shape ``(nl, n)``: directions of the lineality space.
    """

    vertices: np.ndarray
    rays: np.ndarray
    lines: np.ndarray


def _frozen(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=float, copy=True)
    x.setflags(write=False)
    return x


def _as_array(name: str, value: Any, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise PolytopeError(f"{name}: not numeric ({exc})") from None
    if ndim == 2 and arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 0)
    if arr.ndim != ndim:
        raise PolytopeError(f"{name}: expected a {ndim}-D array, got {arr.ndim}-D shape {arr.shape}")
    if not np.isfinite(arr).all():
        if np.isnan(arr).any():
            raise PolytopeError(f"{name}: contains NaN")
        raise PolytopeError(f"{name}: contains infinite values")
    return arr



def _side_directions(n: int, ks: Sequence[int]) -> np.ndarray:
    """The directions of a box's sides over the coordinates ``ks`` (k,) of ``R^n``: ``(2k, n)``,
    ``+e_k`` for the upper sides, then ``-e_k`` for the lower ones."""
    k = len(ks)
    E = np.zeros((2 * k, n))
    E[np.arange(k), ks] = 1.0
    E[k + np.arange(k), ks] = -1.0
    return E

class Polytope:
    """Convex polyhedron ``{x in R^n : A x <= b, C x = d}`` in H-representation.

    The set may be unbounded, lower-dimensional or empty. It is immutable: ``A``, ``b``, ``C``
    and ``d`` are read-only float64 copies of the arguments, and the answers of its linear
    programs (emptiness, affine hull, Chebyshev ball, boxes) are computed once and cached. The
    package knows nothing of units: the coordinates are whatever the caller's are (the
    contact-mode analysis gives its torque sets in the system's units, N·m for a revolute joint).

    Parameters
    ----------
    A : array_like
        Inequality matrix, shape ``(m, n)``; ``m = 0`` rows is allowed (give shape ``(0, n)``).
        Finite numbers only.
    b : array_like
        Inequality right-hand side, shape ``(m,)``.
    C : array_like, optional
        Equality matrix, shape ``(p, n)``. Default: no equality rows.
    d : array_like, optional
        Equality right-hand side, shape ``(p,)``. Default: no equality rows.

    Raises
    ------
    PolytopeError
        When an argument is not numeric, has the wrong number of dimensions, a shape that does
        not match the others, a NaN or an infinite value; the message starts with the
        argument's name (``"b: expected shape (3,), got (2,)"``).

    See Also
    --------
    polytopes.project : Projection onto coordinates (the torque set ``T_c`` from ``D_c``).
    Polytope.box : The axis-aligned box ``{x : lo <= x <= hi}``.
    Polytope.from_generators : The set ``conv(vertices) + cone(rays) + span(lines)``.

    Notes
    -----
    Emptiness, the affine hull and every support value are decided by verified linear programs
    relative to the data's own scale (``polytopes._feasibility``, ``polytopes.tolerances``), so a
    set written in millimetres and the same set in metres get the same answers.

    Dimension ``n = 0`` is a legal value (give ``A`` shape ``(m, 0)``): ``R^0`` has one point,
    the empty tuple, so a set in it is either ``{()}`` or empty. Its rows read ``0 <= b_i`` and
    ``0 = d_i`` and the package's one emptiness rule decides them (a zero row carries no scale,
    so the data scale is 1 and the tolerance ``FEASIBILITY_TOL``). Every query answers: ``contains`` (points of shape ``(0,)`` or ``(N,
    0)``), ``bounding_box`` (two arrays of shape ``(0,)``), ``chebyshev_center`` (centre of shape
    ``(0,)``, radius 0, or ``-inf`` when empty), ``vertices`` (one vertex of shape ``(0,)``, or
    none), ``affine_dimension`` (0 or -1), ``equals``/``issubset``, ``intersect``,
    ``polytopes.regions.difference``, ``reduce`` (``universe(0)`` or ``empty(0)``),
    ``to_json``/``from_json`` (``"dim": 0``), and ``project`` onto no coordinate (``keep=[]``)
    maps any set to ``universe(0)`` or ``empty(0)`` by its emptiness. (The contact-mode analysis
    of a system without actuators gives its torque sets ``T_c`` in ``R^0``.)

    References
    ----------
    Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body Systems
    with Frictional Contact*: the domain ``D_c`` of a mode is the polytope of eq. (33) over
    ``(τ, w)``, reduced by one support LP per row (Sec. III-E), and the torque set
    ``T_c`` its projection onto ``τ`` (Sec. III-E, Fig. 2).

    Examples
    --------
    The triangle ``x <= 1``, ``y <= 1``, ``x + y >= 0``:

    >>> from polytopes import Polytope
    >>> P = Polytope([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], [1.0, 1.0, 0.0])
    >>> P
    Polytope(dim=2, n_ineq=3, n_eq=0)
    >>> bool(P.contains([0.5, 0.0])), P.contains([[0.5, 0.0], [2.0, 0.0]]).tolist()
    (True, [True, False])
    >>> float(P.support([1.0, 1.0])), P.argmax([1.0, 1.0]).tolist()
    (2.0, [1.0, 1.0])
    >>> lo, hi = P.bounding_box()
    >>> [round(float(v), 9) for v in lo], [round(float(v), 9) for v in hi]
    ([-1.0, -1.0], [1.0, 1.0])
    >>> P.vertices().vertices.tolist()
    [[1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]

    An equality row makes the set lower-dimensional (here the segment ``y = 0.5``,
    ``-1 <= x <= 1``):

    >>> S = Polytope([[1.0, 0.0], [-1.0, 0.0]], [1.0, 1.0], C=[[0.0, 1.0]], d=[0.5])
    >>> S.affine_dimension(), S.is_empty()
    (1, False)
    >>> Polytope([[1.0, 0.0]], [1.0, 2.0])
    Traceback (most recent call last):
    ...
    polytopes.errors.PolytopeError: b: expected shape (1,), got (2,)
    """

    __slots__ = ("_A", "_b", "_C", "_d", "_cache")

    def __init__(self, A: Any, b: Any, C: Any = None, d: Any = None) -> None:
        A_ = _as_array("A", A, 2)
        b_ = _as_array("b", b, 1)
        if A_.shape == (0, 0) and C is not None:
            C_probe = np.asarray(C, dtype=float)
            if C_probe.ndim == 2:
                A_ = A_.reshape(0, C_probe.shape[1])
        n = A_.shape[1]
        if b_.shape != (A_.shape[0],):
            raise PolytopeError(f"b: expected shape ({A_.shape[0]},), got {b_.shape}")
        C_ = np.zeros((0, n)) if C is None else _as_array("C", C, 2)
        if C_.shape == (0, 0):
            C_ = C_.reshape(0, n)
        d_ = np.zeros(0) if d is None else _as_array("d", d, 1)
        if C_.shape[1] != n:
            raise PolytopeError(f"C: expected {n} columns, got shape {C_.shape}")
        if d_.shape != (C_.shape[0],):
            raise PolytopeError(f"d: expected shape ({C_.shape[0]},), got {d_.shape}")
        object.__setattr__(self, "_A", _frozen(A_))
        object.__setattr__(self, "_b", _frozen(b_))
        object.__setattr__(self, "_C", _frozen(C_))
        object.__setattr__(self, "_d", _frozen(d_))
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, name, value):
        raise AttributeError("Polytope is immutable")

    def __reduce__(self):
        return (Polytope, (self._A, self._b, self._C, self._d))

    def __repr__(self) -> str:
        return f"Polytope(dim={self.dim}, n_ineq={self.n_ineq}, n_eq={self.n_eq})"

    def _repr_html_(self) -> str:
        """Jupyter's view: a table of the sizes, emptiness, affine dimension, bounding box and
        Chebyshev centre (LPs, answered once and cached; numbers to four significant digits)."""
        import html

        def num(v: float) -> str:
            return ("∞" if v > 0 else "−∞") if np.isinf(v) else f"{float(v) + 0.0:.4g}"  # no "-0"

        head = f"Polytope in R^{self.dim}: {self.n_ineq} inequalities, {self.n_eq} equalities"
        if self.is_empty():
            return f"<p>{html.escape(head)}: <b>empty</b></p>"
        lo, hi = self.bounding_box()
        ball = self.chebyshev_center()
        rows = "".join(f"<tr><td>x{k}</td><td>{num(lo[k])}</td><td>{num(hi[k])}</td><td>{num(ball.center[k])}</td></tr>"
                       for k in range(min(self.dim, 40)))
        more = f"<tr><td colspan='4'>… {self.dim - 40} more coordinates</td></tr>" if self.dim > 40 else ""
        return (f"<p>{html.escape(head)}; affine dimension {self.affine_dimension()}, Chebyshev radius "
                f"{num(ball.radius)}</p><table><tr><th>coordinate</th><th>lo</th><th>hi</th>"
                f"<th>Chebyshev centre</th></tr>{rows}{more}</table>")

    # ----- attributes ---------------------------------------------------------------------
    A = property(lambda self: self._A, doc="Inequality matrix (m, n).")
    b = property(lambda self: self._b, doc="Inequality right-hand side (m,).")
    C = property(lambda self: self._C, doc="Equality matrix (p, n).")
    d = property(lambda self: self._d, doc="Equality right-hand side (p,).")

    @property
    def dim(self) -> int:
        """Ambient dimension ``n``."""
        return self._A.shape[1]

    @property
    def n_ineq(self) -> int:
        return self._A.shape[0]

    @property
    def n_eq(self) -> int:
        return self._C.shape[0]

    def _h(self):
        return self._A, self._b, self._C, self._d

    # ----- constructors -------------------------------------------------------------------
    @classmethod
    def universe(cls, n: int) -> "Polytope":
        """All of ``R^n`` (no rows).

        Parameters
        ----------
        n : int
            The ambient dimension, ``n >= 0``.

        Returns
        -------
        Polytope
            The set with no inequality and no equality row.
        """
        return cls(np.zeros((0, int(n))), np.zeros(0))

    @classmethod
    def box(cls, lo: Any, hi: Any) -> "Polytope":
        """The box ``{x : lo <= x <= hi}``.

        Parameters
        ----------
        lo : array_like
            Lower bounds, shape ``(n,)``, finite.
        hi : array_like
            Upper bounds, shape ``(n,)``, finite, ``lo <= hi`` componentwise.

        Returns
        -------
        Polytope
            The box, ``2n`` inequality rows.

        Raises
        ------
        PolytopeError
            On a shape mismatch, a NaN or infinite bound, or ``lo > hi``; the message names
            ``lo``/``hi``.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> B = Polytope.box([-1.0, 0.0], [1.0, 2.0])
        >>> B, bool(B.contains([0.0, 2.0]))
        (Polytope(dim=2, n_ineq=4, n_eq=0), True)
        """
        lo = np.asarray(lo, dtype=float).reshape(-1)
        hi = np.asarray(hi, dtype=float).reshape(-1)
        if lo.shape != hi.shape:
            raise PolytopeError(f"lo, hi: shapes differ ({lo.shape} vs {hi.shape})")
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            raise PolytopeError("lo, hi: box bounds must be finite")
        if np.any(lo > hi):
            raise PolytopeError(f"lo: must be <= hi componentwise (index {int(np.argmax(lo > hi))})")
        n = lo.shape[0]
        return cls(np.vstack([np.eye(n), -np.eye(n)]), np.concatenate([hi, -lo]))

    @classmethod
    def empty(cls, n: int) -> "Polytope":
        """The canonical empty set of ``R^n``: ``0 x <= -1``.

        Parameters
        ----------
        n : int
            The ambient dimension, ``n >= 0``.

        Returns
        -------
        Polytope
            The empty set, one inequality row.
        """
        return cls(*_redundancy.canonical_empty(int(n)))

    @classmethod
    def from_cdd(cls, mat) -> "Polytope":
        """From a pycddlib matrix.

        Parameters
        ----------
        mat : cdd.Matrix
            An H-representation (rows ``[b, -A]``, ``lin_set`` the equalities), or a
            V-representation, converted with cdd's double description first. Trivially true zero
            rows are dropped.

        Returns
        -------
        Polytope
            The set the matrix describes.

        Raises
        ------
        PolytopeError
            When an H-matrix has no row and therefore no dimension.
        """
        import cdd
        if mat.rep_type == cdd.RepType.GENERATOR:
            from ._quiet import quiet_c_stderr
            with quiet_c_stderr():
                poly = cdd.polyhedron_from_matrix(mat)
            mat = cdd.copy_inequalities(poly)
        return cls(*_cdd_io.h_from_cdd(mat))

    @classmethod
    def from_generators(cls, vertices: Any, rays: Any = None, lines: Any = None,
                        dim: int | None = None) -> "Polytope":
        """``conv(vertices) + cone(rays) + span(lines)`` converted with cdd.

        No vertices (and no rays or lines) gives the empty set of ``R^dim``. Zero rays and lines
        are ignored.

        Parameters
        ----------
        vertices : array_like
            Shape ``(nv, n)``: the points whose convex hull is taken; ``nv = 0`` for the empty set.
        rays : array_like, optional
            Shape ``(nr, n)``: directions of the recession cone. Default: none.
        lines : array_like, optional
            Shape ``(nl, n)``: directions of the lineality space. Default: none.
        dim : int, optional
            The ambient dimension ``n``; needed when no generator has a row to infer it from.

        Returns
        -------
        Polytope
            The set, in H-representation.

        Raises
        ------
        PolytopeError
            When an array is not numeric, not 2-D or not finite, the generators' dimensions
            disagree (or with ``dim``) or are unknown, or rays or lines are given without a vertex.
        """
        if dim is not None and int(dim) == 0 and np.ndim(vertices) == 2 and np.shape(vertices)[1] == 0:
            return cls.universe(0) if np.shape(vertices)[0] else cls.empty(0)  # R^0: one point
        arrs = {}
        for name, v in (("vertices", vertices), ("rays", rays), ("lines", lines)):
            if v is None:
                arrs[name] = None
                continue
            a = _as_array(name, v, 2) if np.size(v) else np.zeros((0, 0))
            arrs[name] = a
        ns = {a.shape[1] for a in arrs.values() if a is not None and a.shape[0]}
        if dim is not None:
            ns.add(int(dim))
        if len(ns) != 1:
            raise PolytopeError(f"dim: cannot infer one dimension from the generators (got {sorted(ns)})")
        n = ns.pop()

        def fix(a):
            return np.zeros((0, n)) if a is None or a.shape[0] == 0 else a
        V, R, L = fix(arrs["vertices"]), fix(arrs["rays"]), fix(arrs["lines"])
        R = R[np.max(np.abs(R), axis=1) > 0] if R.shape[0] else R
        L = L[np.max(np.abs(L), axis=1) > 0] if L.shape[0] else L
        if V.shape[0] == 0:
            if R.shape[0] or L.shape[0]:
                raise PolytopeError("vertices: at least one vertex is needed with rays or lines")
            return cls.empty(n)
        return cls(*_cdd_io.h_from_generators(V, R, L))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Polytope":
        """From the JSON object ``to_json`` writes.

        Parameters
        ----------
        data : Mapping[str, Any]
            ``{"A": [[..]], "b": [..], "C": [[..]], "d": [..], "dim": n}``: ``C``, ``d`` optional;
            ``dim`` needed only when ``A`` and ``C`` have no rows, and for ``"dim": 0``, whose rows
            are empty lists (``{"A": [[]], "b": [-1.0], "dim": 0}`` is ``empty(0)``).

        Returns
        -------
        Polytope
            The set.

        Raises
        ------
        PolytopeError
            When ``data`` is not a mapping, lacks ``A`` or ``b``, has empty rows without ``dim``,
            a ``dim`` that does not match ``A``, or arrays the constructor refuses (the field named).
        """
        if not isinstance(data, Mapping):
            raise PolytopeError("json: expected an object")
        if "A" not in data or "b" not in data:
            raise PolytopeError("json: keys 'A' and 'b' are required")
        n = data.get("dim")

        def mat(name, v):
            a = np.asarray(v if v is not None else [], dtype=float)
            if a.size == 0:
                if n is None:
                    raise PolytopeError(f"{name}: empty; give 'dim'")
                rows = a.shape[0] if a.ndim == 2 and int(n) == 0 else 0  # R^0: rows of no entry
                return np.zeros((rows, int(n)))
            return a
        A = mat("A", data["A"])
        if n is not None and A.ndim == 2 and A.shape[1] != int(n):
            raise PolytopeError(f"dim: {n} does not match A with {A.shape[1]} columns")
        C = mat("C", data.get("C"))
        if A.shape[0] == 0 and C.shape[0] and n is None:
            A = np.zeros((0, C.shape[1]))
        P = cls(A, data["b"] if np.size(data["b"]) else np.zeros(0), C,
                data.get("d") if data.get("d") is not None and np.size(data.get("d")) else np.zeros(0))
        if n is not None and int(n) != P.dim:
            raise PolytopeError(f"dim: {n} does not match A with {P.dim} columns")
        return P

    # ----- conversions --------------------------------------------------------------------
    def to_cdd(self):
        """pycddlib H-matrix (rows ``[b, -A]``, equalities in ``lin_set``)."""
        return _cdd_io.h_to_cdd(*self._h())

    def to_json(self) -> dict:
        """``{"A", "b", "C", "d", "dim"}`` with plain Python floats and lists."""
        return {"A": self._A.tolist(), "b": self._b.tolist(), "C": self._C.tolist(),
                "d": self._d.tolist(), "dim": int(self.dim)}

    # ----- the one emptiness / affine-hull rule (cached) ------------------------------------
    def _feas(self) -> _feasibility.Feasibility:
        f = self._cache.get("feas")
        if f is None:
            f = _feasibility.feasibility(*self._h())
            self._cache["feas"] = f
        return f

    def _hull(self) -> _feasibility.Hull | None:
        """Affine hull and inner system (``None`` for the empty set)."""
        if "hull" not in self._cache:
            f = self._feas()
            self._cache["hull"] = None if f.empty else _feasibility.hull(*self._h(), f)
        return self._cache["hull"]

    @staticmethod
    def _prime_hulls(polys: Sequence["Polytope"], kernel: str = "numpy") -> None:
        """Compute the missing hulls of the non-empty ``polys`` (``_hull``) together: their
        implicit-equality LPs in one batch per round (``polytopes._feasibility.hulls``, by
        ``kernel``). A single one by the NumPy kernel is left to ``_hull``: the same LPs."""
        todo = [P for P in polys if "hull" not in P._cache and not P.is_empty()]
        if len(todo) > 1 or (todo and kernel != "numpy"):
            for P, h in zip(todo, _feasibility.hulls([(*P._h(), P._feas()) for P in todo], kernel=kernel)):
                P._cache["hull"] = h

    def _inner_lp(self, direction: np.ndarray):
        """``max direction.x`` over the (nonempty) set through its inner system; returns
        ``(value, x)`` with ``x`` ``None`` when unbounded."""
        value, x, _ = self._inner_lps(np.asarray(direction, dtype=float)[None, :])[0]
        return value, x

    def _inner_lps(self, directions: np.ndarray) -> list[tuple[float, np.ndarray | None, np.ndarray | None]]:
        """``max d.x`` over the (nonempty) set for each row ``d`` of ``directions`` (k, n), through
        its inner system (``lp.solve_many``: one normalization, one cddlib matrix); returns
        ``(value, x, ray)`` per direction: ``x`` (n,) a maximizer, ``None`` when unbounded; ``ray``
        (n,) the verified direction of unboundedness when the solver gave one, else ``None``."""
        h = self._hull()
        D = np.atleast_2d(np.asarray(directions, dtype=float))
        cw = D @ h.N
        base = D @ h.x0
        if h.N.shape[1] == 0:
            return [(float(v), h.x0.copy(), None) for v in base]
        if h.V.shape[0] == 0:
            return [(float(v), h.x0.copy(), None) if not np.any(c) else (float("inf"), None, None)
                    for v, c in zip(base, cw)]
        # the emptiness rule's max-slack point, in hull coordinates, is feasible (checked by lp)
        w0 = h.N.T @ (self._feas().point - h.x0)
        out: list[tuple[float, np.ndarray | None, np.ndarray | None]] = []
        for res, v in zip(lp.solve_many(-cw, h.V, h.gamma + h.relax, feasible_point=w0), base):
            if res.status == lp.UNBOUNDED:
                out.append((float("inf"), None, None if res.ray is None else h.N @ res.ray))
            elif res.status != lp.OPTIMAL:  # the inner system contains the hull point
                raise NumericalError("support LP reported infeasible on a set the emptiness rule "
                                     "calls nonempty")
            else:
                out.append((float(v) - float(res.fun), h.x0 + h.N @ res.x, None))
        return out

    def _batched_support(self, directions: np.ndarray, kernel: str) -> tuple[np.ndarray, list[np.ndarray]]:
        """``max d.x`` for the rows ``d`` of ``directions`` (k, n) by the batched, verified dual
        simplex of ``polytopes.batchlp`` on the inner system, inside the artificial box of
        ``BATCH_LP_BOUND``: ``(values (k,), rays)``, a value NaN where the batch certifies no
        answer (nonempty set) and ``inf`` where the final basis of such an LP yields a verified
        direction of unboundedness (``_rays_from_bases``; its direction ``N r`` (n,) in
        ``rays``)."""
        from . import batchlp

        h = self._hull()
        cw = -(directions @ h.N)
        B, k = cw.shape
        out = np.full(B, np.nan)
        if k == 0 or h.V.shape[0] == 0:
            return out, []
        bound = _tol.BATCH_LP_BOUND * self._feas().scale
        box = np.full((B, k), bound)
        res = batchlp.simplex_batch(cw, np.broadcast_to(h.V, (B, *h.V.shape)),
                                    np.broadcast_to(h.gamma + h.relax, (B, h.V.shape[0])), -box, box,
                                    artificial=np.ones((B, k), dtype=bool), kernel=kernel)
        ok = res.status == lp.OPTIMAL
        out[ok] = (directions @ h.x0)[ok] - res.fun[ok]
        rays: list[np.ndarray] = []
        open_ = np.flatnonzero(~ok)
        if open_.size:
            proven, W = self._rays_from_bases(cw[open_], res.basis[open_])
            out[open_[proven]] = np.inf
            rays = [h.N @ w for w in W[proven]]
        return out, rays

    def _rays_from_bases(self, cw: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Directions of unboundedness read off the final bases of support LPs ``min cw.w`` that
        leaned on their artificial box ``|w_j| <= s`` (``_batched_support``): with the basis
        fixed, the vertex moves with ``s`` along ``r = F_B^{-1} e``, ``e`` 1 on the basis's
        bound rows (``±w_j <= s``) and 0 on its rows of ``V``; an ``r`` counts only when it
        passes the ray check of ``polytopes.lp.rays_ok`` (``V r <= 0``, ``cw.r < 0``), as an
        unbounded single LP's ray. ``cw`` (B, k) costs, ``basis`` (B, k) row indices as in
        ``polytopes.batchlp.BatchResult`` (rows of ``V``, then the upper and the lower bounds).
        Returns the mask (B,) of LPs proven unbounded and the rays (B, k) (rows meaningful
        where proven)."""
        h = self._hull()
        m, k = h.V.shape
        B = len(cw)
        V = h.V / np.maximum(row_norms(h.V), 1e-300)[:, None]
        F = np.vstack([V, np.eye(k), -np.eye(k)])
        basis = np.clip(basis, 0, m + 2 * k - 1)
        FB = F[basis]  # (B, k, k)
        e = (basis >= m).astype(float)
        W = np.zeros((B, k))
        proven = np.zeros(B, dtype=bool)
        usable = np.flatnonzero(e.any(axis=1))  # a basis of rows of V alone: a finite vertex
        if usable.size:
            try:
                W[usable] = np.linalg.solve(FB[usable], e[usable][:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:  # a singular basis (the batch did not verify it): one by one
                for b in usable:
                    try:
                        W[b] = np.linalg.solve(FB[b], e[b])
                    except np.linalg.LinAlgError:
                        W[b] = np.nan  # no ray: rays_ok refuses it
            proven[usable] = np.diagonal(lp.rays_ok(cw[usable], W[usable], V, np.zeros((0, k))))
        return proven, W

    # ----- the LP data of the set (what the projection check reads) ------------------------
    @property
    def data_scale(self) -> float:
        """The scale of the data's offsets, ``max(1, max_i |b_i| / ||a_i||, max_j |d_j| / ||c_j||)``
        over the nonzero rows (float, at least 1): the scale the tolerances of
        ``polytopes.tolerances`` are relative to (``FEASIBILITY_TOL * data_scale`` is the
        emptiness rule's tolerance). No LP; computed once.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> Polytope.box([0.0], [4.0]).data_scale, Polytope.box([0.0], [0.5]).data_scale
        (4.0, 1.0)
        """
        f = self._cache.get("feas")
        if f is not None:  # the emptiness rule's own (the same number)
            return f.scale
        s = self._cache.get("scale")
        if s is None:
            s = _feasibility.problem_scale(*self._h())
            self._cache["scale"] = s
        return s

    def inner_system(self) -> _feasibility.Hull | None:
        """The affine hull of the set and its inequalities over the hull's coordinates, by the
        package's affine-hull rule; computed once and cached (shared with ``affine_hull``,
        ``implicit_equalities``, ``chebyshev_center`` and every support LP).

        The set is ``{x0 + N w : V w <= gamma}`` (``Hull``'s fields); LPs over it run on
        ``V w <= gamma + relax``. The arrays are the cache's own: read them, do not modify them.

        Returns
        -------
        Hull or None
            ``None`` for the empty set.

        Examples
        --------
        The segment ``y = 0.5``, ``-1 <= x <= 1`` has one hull coordinate and two inner rows:

        >>> from polytopes import Polytope
        >>> S = Polytope([[1.0, 0.0], [-1.0, 0.0]], [1.0, 1.0], C=[[0.0, 1.0]], d=[0.5])
        >>> h = S.inner_system()
        >>> h.dimension, h.V.shape, Polytope.empty(2).inner_system() is None
        (1, (2, 1), True)
        """
        return self._hull()

    def maximize(self, direction: Any) -> tuple[float, np.ndarray | None]:
        """The support value ``max direction · x`` over the set and a maximizer, from one
        verified LP (``support`` and ``argmax`` in one call).

        Parameters
        ----------
        direction : array_like
            The direction, shape ``(n,)``.

        Returns
        -------
        value : float
            The maximum; ``inf`` if unbounded, ``-inf`` for the empty set.
        x : numpy.ndarray or None
            A maximizer, shape ``(n,)``; ``None`` when the maximum is unbounded or the set empty.

        Raises
        ------
        PolytopeError
            When ``direction`` does not have shape ``(n,)``.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> value, x = Polytope.box([0.0, 0.0], [1.0, 2.0]).maximize([0.0, 1.0])
        >>> float(value), float(x[1])
        (2.0, 2.0)
        """
        direction = np.asarray(direction, dtype=float)
        if direction.shape != (self.dim,):
            raise PolytopeError(f"direction: expected shape ({self.dim},), got {direction.shape}")
        if self.is_empty():
            return float("-inf"), None
        return self._inner_lp(direction)

    def support_lps(self, directions: Any) -> tuple[np.ndarray, ...]:
        """The support LPs of the (nonempty) set along many directions, as one stack of
        ``polytopes.batchlp.solve_stacked``.

        For each row ``d`` of ``directions`` the LP ``min -(d N) · w  s.t.  V w <= gamma + relax``
        over the inner system (``inner_system``), ``w`` in the artificial box ``|w| <=
        BATCH_LP_BOUND * data_scale`` (``polytopes.tolerances``). Where the batch certifies an
        optimum ``fun`` with ``w`` not on that box, the support is ``d · x0 - fun`` and ``x0 + N w``
        a maximizer.

        Parameters
        ----------
        directions : array_like
            The directions, shape ``(B, n)``.

        Returns
        -------
        c : numpy.ndarray
            The costs ``-(d N)``, shape ``(B, k)`` (``k`` the affine dimension).
        G : numpy.ndarray
            The inner rows ``V``, shape ``(B, m, k)`` (``m`` the inner rows; a read-only
            broadcast view).
        h : numpy.ndarray
            ``gamma + relax``, shape ``(B, m)`` (a read-only broadcast view).
        lo, hi : numpy.ndarray
            The artificial box, shape ``(B, k)`` each.
        art_lo, art_hi : numpy.ndarray
            Bool, shape ``(B, k)`` each: every bound is artificial.

        Raises
        ------
        PolytopeError
            When ``directions`` does not have shape ``(B, n)`` or the set is empty.
        """
        D = np.asarray(directions, dtype=float)
        if D.ndim != 2 or D.shape[1] != self.dim:
            raise PolytopeError(f"directions: expected shape (B, {self.dim}), got {D.shape}")
        if self.is_empty():
            raise PolytopeError("directions: the empty set has no support LPs")
        return self._support_lps(D)

    # ----- queries ------------------------------------------------------------------------
    def is_empty(self) -> bool:
        """True for the empty set: the package's one emptiness rule (max-slack LP over normalized
        rows, ``tolerances.FEASIBILITY_TOL`` times the data scale; see
        ``polytopes._feasibility``), computed once and cached."""
        return self._feas().empty

    @staticmethod
    def are_empty(polytopes: Sequence["Polytope"], kernel: str = "numpy") -> np.ndarray:
        """``is_empty`` of every polytope of the sequence, their LPs solved together.

        The max-slack LPs of those not yet decided are solved in batches
        (``polytopes._feasibility.feasibility_many``: the same rule, the same verification, a
        batched solver); each result is cached on its polytope as ``is_empty`` would cache it.

        Parameters
        ----------
        polytopes : Sequence[Polytope]
            The ``N`` sets, of any dimensions.
        kernel : str
            The ``polytopes.batchlp`` kernel: ``"numpy"`` (the default: the same floats in every
            process), ``"compiled"`` or ``"auto"``.

        Returns
        -------
        numpy.ndarray
            Shape ``(N,)``, bool: True where the set is empty.
        """
        todo = [P for P in polytopes if "feas" not in P._cache]
        for P, f in zip(todo, _feasibility.feasibility_many([P._h() for P in todo], kernel=kernel)):
            P._cache["feas"] = f
        return np.array([P._feas().empty for P in polytopes], dtype=bool)

    @staticmethod
    def prepare_many(polytopes: Sequence["Polytope"], kernel: str = "numpy") -> None:
        """Decide the emptiness and the affine hull of every polytope of the sequence, their LPs
        solved together.

        ``are_empty``, then ``polytopes._feasibility.hulls``: the same rules, each result cached
        on its polytope as ``is_empty`` and ``affine_hull`` would cache it. Worth it before many
        queries on many small sets (projections, supports, boxes).

        Parameters
        ----------
        polytopes : Sequence[Polytope]
            The sets, of any dimensions.
        kernel : str
            The ``polytopes.batchlp`` kernel of those LPs: ``"numpy"`` (the default: the same
            floats in every process), ``"compiled"``, or ``"auto"`` (the compiled one when numba
            is installed).
        """
        Polytope.are_empty(polytopes, kernel=kernel)
        Polytope._prime_hulls(polytopes, kernel=kernel)

    @staticmethod
    def prepare_hulls(polytopes: Sequence["Polytope"]) -> None:
        """Decide the emptiness of every polytope alone, then their affine hulls together.

        The emptiness by ``is_empty`` (its own LP, the floats it gets alone), then the thin sets'
        implicit-equality LPs in one batch per round (``polytopes._feasibility.hulls``: each hull
        the one it gets alone, bit for bit), cached on each. For callers whose later floats must
        not depend on what else is prepared with a set (``regions.difference``, callers'
        slow paths); ``prepare_many`` batches the emptiness LPs too.

        Parameters
        ----------
        polytopes : Sequence[Polytope]
            The sets, of any dimensions.
        """
        for P in polytopes:
            P.is_empty()
        Polytope._prime_hulls(polytopes)

    def witness(self) -> np.ndarray | None:
        """A point (n,) of the set by the emptiness rule: its max-slack point (within
        ``FEASIBILITY_TOL`` times the data scale of every row; inside when the set has an
        interior), ``None`` for the empty set. No LP beyond ``is_empty``'s (cached)."""
        f = self._feas()
        return None if f.empty or f.point is None else f.point.copy()

    def contains(self, x: Any, tol: float | None = None):
        """Whether the point ``x`` lies in the set (or, for a stack of points, each of them).

        Parameters
        ----------
        x : array_like
            A point, shape ``(n,)``, or ``N`` points, shape ``(N, n)``.
        tol : float, optional
            Relative tolerance: a normalized row may be violated by
            ``tol * max(1, ||x||_inf, scale)`` (default ``polytopes.tolerances.CONTAINMENT_TOL``).

        Returns
        -------
        bool or numpy.ndarray
            ``bool`` for one point, a bool array of shape ``(N,)`` for ``N`` points.

        Raises
        ------
        PolytopeError
            When ``x`` has neither shape ``(n,)`` nor ``(N, n)``.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> B = Polytope.box([0.0], [1.0])
        >>> B.contains([0.5]), B.contains([[0.5], [1.5]]).tolist()
        (True, [True, False])
        """
        t = _tol.CONTAINMENT_TOL if tol is None else float(tol)
        X = np.asarray(x, dtype=float)
        single = X.ndim == 1
        X = np.atleast_2d(X)
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise PolytopeError(f"x: expected shape ({self.dim},) or (N, {self.dim}), got {np.shape(x)}")
        if self.dim == 0:  # R^0 has one point: in the set iff the set is not empty
            ok = np.full(X.shape[0], not self.is_empty())
            return bool(ok[0]) if single else ok
        An, bn, _ = normalize_rows(self._A, self._b)
        Cn, dn, _ = normalize_rows(self._C, self._d)
        lim = t * np.maximum(max(1.0, data_scale(self._A, self._b)), np.max(np.abs(X), axis=1))
        ok = np.all(X @ An.T - bn[None, :] <= lim[:, None], axis=1)
        ok &= np.all(np.abs(X @ Cn.T - dn[None, :]) <= lim[:, None], axis=1)
        return bool(ok[0]) if single else ok

    def support(self, direction: Any) -> float:
        """The support value ``max direction · x`` over the set.

        One verified LP over the affine hull's coordinates, within ``FEASIBILITY_TOL * scale``
        of the exact value for thin sets.

        Parameters
        ----------
        direction : array_like
            The direction, shape ``(n,)``.

        Returns
        -------
        float
            The maximum; ``inf`` if unbounded, ``-inf`` for the empty set (the supremum over no
            points).

        Raises
        ------
        PolytopeError
            When ``direction`` does not have shape ``(n,)``.

        References
        ----------
        Greenfield, Saranli & Rizzi, *Solving Models of Controlled Dynamic Planar Rigid-Body
        Systems with Frictional Contact*, Sec. III-E (the test for supporting hyperplanes of
        ``D_c``): a row ``a · x <= b`` touches a nonempty set exactly when ``support(a) = b``.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> B = Polytope.box([0.0, 0.0], [1.0, 2.0])
        >>> float(B.support([1.0, 1.0])), float(Polytope.universe(2).support([1.0, 0.0]))
        (3.0, inf)
        """
        direction = np.asarray(direction, dtype=float)
        if direction.shape != (self.dim,):
            raise PolytopeError(f"direction: expected shape ({self.dim},), got {direction.shape}")
        if self.is_empty():
            return float("-inf")
        return self._inner_lp(direction)[0]

    def argmax(self, direction: Any) -> np.ndarray | None:
        """A maximizer of ``direction · x`` over the set, from one verified LP.

        Parameters
        ----------
        direction : array_like
            The direction, shape ``(n,)``.

        Returns
        -------
        numpy.ndarray or None
            A maximizer, shape ``(n,)``; ``None`` if the set is empty or the maximum is unbounded.

        Raises
        ------
        PolytopeError
            When ``direction`` does not have shape ``(n,)``.
        """
        direction = np.asarray(direction, dtype=float)
        if direction.shape != (self.dim,):
            raise PolytopeError(f"direction: expected shape ({self.dim},), got {direction.shape}")
        if self.is_empty():
            return None
        return self._inner_lp(direction)[1]

    def bounding_box(self, coords: Sequence[int] | None = None, pool: RayPool | None = None,
                     kernel: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Tightest axis-aligned box ``(lo, hi)`` of the set, or of its projection onto ``coords``
        (no projection computed).

        Unbounded sides are found first from recession rays: a side is declared unbounded only for
        a ray (or line) that passes the ray check of ``polytopes.lp`` on the inner system
        (``V r <= 0``, positive along the axis); every other side is one verified support LP (a
        ray missed or wrong costs that LP, never a wrong bound). The rays are the generators of
        the recession cone (one double description) or, with a ``RayPool``
        of the same dimension, first the pooled rays of related sets: the double description runs
        only when they leave more than half of the sides undecided; its rays, and those of the
        support LPs found unbounded, join the pool (the double description only for sets of at most
        ``BOX_RAYS_MAX_DIM`` dimensions, ``polytopes.tolerances``). The support LPs of one box share one
        normalization and cddlib matrix (``polytopes.lp.solve_many``); with ``kernel``
        (``"auto"``, ``"compiled"`` or ``"numpy"``, ``polytopes.batchlp``) they are first solved
        together by the verified batched dual simplex in the box ``|w| <= BATCH_LP_BOUND · scale``
        of ``polytopes.tolerances``; a side whose LP leans on that box is proven unbounded by
        the direction its final basis moves along as the box grows, when that direction passes
        the ray check (``_rays_from_bases``; it joins the pool), and only the sides still
        undecided go to ``solve_many``. Worth it for callers that
        compute many boxes in one process (the compiled kernel's first call loads numba).

        The empty set gives ``lo = +inf``, ``hi = -inf`` componentwise (the infimum and supremum
        over no points), so ``lo > hi`` marks it and a union's box is still the componentwise
        min/max of its members' boxes.

        Parameters
        ----------
        coords : Sequence[int], optional
            The ``k`` coordinates (indices into ``0 .. dim - 1``) of the box. Default: all ``n``.
        pool : RayPool, optional
            Recession directions of related sets, tried first and extended with the rays found;
            ignored unless of the set's dimension. Default: none.
        kernel : str, optional
            ``"auto"``, ``"compiled"`` or ``"numpy"``: solve the support LPs together by
            ``polytopes.batchlp`` first. Default ``None``: single verified LPs only.

        Returns
        -------
        lo : numpy.ndarray
            Shape ``(k,)``: the lower sides, ``-inf`` where unbounded.
        hi : numpy.ndarray
            Shape ``(k,)``: the upper sides, ``inf`` where unbounded.

        Raises
        ------
        PolytopeError
            On an index of ``coords`` outside ``0 .. dim - 1``.
        """
        ks = list(range(self.dim)) if coords is None else [int(k) for k in coords]
        if any(k < 0 or k >= self.dim for k in ks):
            raise PolytopeError(f"coords: expected indices in 0..{self.dim - 1}, got {ks}")
        return self._box(ks, pool, kernel)

    def _box(self, ks: list[int], pool: RayPool | None, kernel: str | None,
             known: tuple[np.ndarray, np.ndarray] | None = None, proven: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``bounding_box`` over the coordinates ``ks``; ``known = (lo, hi)`` (k,) each: sides
        already decided (a verified LP, or ``±inf`` proven by a ray; NaN where not); ``proven``:
        the rays have been tried already (the NaN sides need LPs)."""
        k = len(ks)
        if self.is_empty():
            return np.full(k, np.inf), np.full(k, -np.inf)
        if known is None and kernel is not None and self._compiled_sides(kernel):
            return self._compiled_box(ks, pool)
        hi, lo = np.full(k, np.inf), np.full(k, -np.inf)
        if known is not None:
            lo_k, hi_k = known
            if not (np.isnan(lo_k).any() or np.isnan(hi_k).any()):
                return lo_k.copy(), hi_k.copy()
            if proven:
                up = down = np.zeros(k, dtype=bool)
            else:
                up, down = self._unbounded_axes(ks, pool, describe=kernel is None)
                up &= np.isnan(hi_k)
                down &= np.isnan(lo_k)
            hi[~np.isnan(hi_k)] = hi_k[~np.isnan(hi_k)]
            lo[~np.isnan(lo_k)] = lo_k[~np.isnan(lo_k)]
            done_hi, done_lo = ~np.isnan(hi_k), ~np.isnan(lo_k)
        else:
            up, down = self._unbounded_axes(ks, pool, describe=kernel is None)
            done_hi = done_lo = np.zeros(k, dtype=bool)
        sides = ([(i, 1.0) for i in range(k) if not (up[i] or done_hi[i])]
                 + [(i, -1.0) for i in range(k) if not (down[i] or done_lo[i])])
        if not sides:
            return lo, hi
        E = np.zeros((len(sides), self.dim))
        E[np.arange(len(sides)), [ks[i] for i, _ in sides]] = [sg for _, sg in sides]
        values = np.full(len(sides), np.nan)
        rays: list[np.ndarray] = []
        if kernel is not None:
            values, rays = self._batched_support(E, kernel)  # unbounded sides: rays from the bases
        self._settle_sides(E, values, rays, pool)
        for (i, sg), value in zip(sides, values.tolist()):
            if sg > 0:
                hi[i] = value
            else:
                lo[i] = -value
        return lo, hi

    def _settle_sides(self, E: np.ndarray, values: np.ndarray, rays: list[np.ndarray],
                      pool: RayPool | None) -> None:
        """The end of a box: the supports along the rows of ``E`` (S, n) still NaN in ``values``
        (S,) by single verified LPs (``_inner_lps``), written into ``values``; the rays found
        (theirs added to ``rays``, (n,) each) join ``pool`` when it is of the set's dimension."""
        todo = np.flatnonzero(np.isnan(values))
        if todo.size:
            for t, (value, _, ray) in zip(todo, self._inner_lps(E[todo])):
                values[t] = value
                if ray is not None:
                    rays.append(ray)
        if rays and pool is not None and pool.dim == self.dim:
            pool.add(np.array(rays))

    def _compiled_sides(self, kernel: str) -> bool:
        """Whether the box's sides go through ``polytopes._box_kernel`` (``kernel`` resolves to
        the compiled one, and the nonempty set has free directions and inequalities)."""
        from . import _box_kernel, batchlp_kernel

        if not _box_kernel.AVAILABLE or batchlp_kernel.kernel_choice(kernel) != "compiled":
            return False
        h = self._hull()
        return h.N.shape[1] > 0 and h.V.shape[0] > 0

    def _compiled_box(self, ks: list[int], pool: RayPool | None) -> tuple[np.ndarray, np.ndarray]:
        """``_box`` by ``polytopes._box_kernel.box_sides`` (pooled rays, the support LPs as
        ``_batched_support`` forms them, rays from leaning bases, in one compiled call), the
        sides it leaves to single verified LPs (``_inner_lps``); the rays found join ``pool``."""
        from . import _box_kernel

        h = self._hull()
        k, d = len(ks), h.N.shape[1]
        E = _side_directions(self.dim, ks)
        R = pool.rays @ h.N if pool is not None and pool.dim == self.dim and len(pool) else np.zeros((0, d))
        values, W = np.empty(2 * k), np.empty((2 * k, d))
        n_rays = _box_kernel.box_sides(np.ascontiguousarray(h.V), h.gamma + h.relax, -(E @ h.N), E @ h.x0,
                                       _tol.BATCH_LP_BOUND * self._feas().scale, np.ascontiguousarray(R),
                                       np.ones(2 * k, dtype=np.bool_), values, W)
        self._settle_sides(E, values, [h.N @ w for w in W[:n_rays]], pool)
        return -values[k:], values[:k].copy()

    @staticmethod
    def bounding_boxes(polytopes: Sequence["Polytope"], coords: Sequence[int] | None = None,
                       kernel: str = "numpy", pool: RayPool | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """``bounding_box`` of every polytope of the sequence over the same ``coords``.

        The support LPs of *all* sides of all boxes are solved first in one batch by the verified
        dual simplex of ``polytopes.batchlp``, inside the artificial box ``|w| <= BATCH_LP_BOUND ·
        scale`` of each set. A side the batch does not certify (unbounded, or leaning on that
        box) is decided as ``bounding_box`` decides it (recession rays, with ``pool`` for sets of
        its dimension, then ``solve_many``). Worth it for many small sets whose boxes are mostly
        bounded: a batch costs a few pivots per side.

        Parameters
        ----------
        polytopes : Sequence[Polytope]
            The ``N`` sets.
        coords : Sequence[int], optional
            The ``k`` coordinates of every box, indices valid for each set. Default: all of each
            set's coordinates.
        kernel : str
            The ``polytopes.batchlp`` kernel: ``"numpy"`` (the default: the same floats in every
            process), ``"compiled"`` or ``"auto"``.
        pool : RayPool, optional
            Recession directions, used for (and extended by) the sets of its dimension.

        Returns
        -------
        list[tuple[numpy.ndarray, numpy.ndarray]]
            ``N`` pairs ``(lo, hi)``, as ``bounding_box`` returns them.

        Raises
        ------
        PolytopeError
            On an index of ``coords`` outside ``0 .. dim - 1`` of a set.
        """
        from . import batchlp

        polys = list(polytopes)
        out: list[tuple[np.ndarray, np.ndarray] | None] = [None] * len(polys)
        Polytope._prime_hulls(polys)
        jobs = []  # (index, ks, hull, directions of the sides left to LPs, proven up, proven down)
        for i, P in enumerate(polys):
            ks = list(range(P.dim)) if coords is None else [int(c) for c in coords]
            if any(c < 0 or c >= P.dim for c in ks):
                raise PolytopeError(f"coords: expected indices in 0..{P.dim - 1}, got {ks}")
            own_pool = pool if pool is not None and pool.dim == P.dim else None
            h = None if P.is_empty() else P._hull()
            if h is None or h.N.shape[1] == 0 or h.V.shape[0] == 0:
                out[i] = P._box(ks, own_pool, None)
                continue
            k = len(ks)
            if own_pool is not None:  # rays first, as bounding_box: fewer LPs
                up, down = P._unbounded_axes(ks, own_pool)
            else:
                up = down = np.zeros(k, dtype=bool)
            E = _side_directions(P.dim, ks)
            jobs.append((i, ks, h, E[np.concatenate([~up, ~down])], up, down))
        solved = batchlp.solve_stacked([polys[i]._support_lps(E) for i, _, _, E, _, _ in jobs], fallback=False,
                                       kernel=kernel)
        for (i, ks, h, E, up, down), (status, _, fun) in zip(jobs, solved):
            k = len(ks)
            v = np.full(2 * k, np.nan)
            v[np.concatenate([~up, ~down])] = np.where(status == lp.OPTIMAL, E @ h.x0 - fun, np.nan)
            v[:k][up] = np.inf
            v[k:][down] = np.inf
            P = polys[i]
            own_pool = pool if pool is not None and pool.dim == P.dim else None
            out[i] = P._box(ks, own_pool, None, known=(-v[k:], v[:k]), proven=own_pool is not None)
        return out  # type: ignore[return-value]

    def _support_lps(self, D: np.ndarray) -> tuple[np.ndarray, ...]:
        """The support LPs ``max d.x`` of the (nonempty) set along the rows ``d`` of ``D`` (B, n)
        over its inner system, ``min -(d N).w  s.t.  V w <= gamma + relax``, ``w`` in the
        artificial box ``|w| <= BATCH_LP_BOUND * scale``: a stack of
        ``polytopes.batchlp.solve_stacked`` (``c`` (B, k), ``G`` (B, m, k), ...). The support is
        ``d.x0 - fun`` (``x0`` the hull's point)."""
        h = self._hull()
        assert h is not None  # callers pass non-empty sets
        B, (m, kw) = len(D), h.V.shape
        box = np.full((B, kw), _tol.BATCH_LP_BOUND * self._feas().scale)
        art = np.ones((B, kw), dtype=bool)
        return (-(D @ h.N), np.broadcast_to(h.V, (B, m, kw)), np.broadcast_to(h.gamma + h.relax, (B, m)),
                -box, box, art, art)

    def _unbounded_axes(self, ks: list[int], pool: RayPool | None = None, describe: bool = True
                        ) -> tuple[np.ndarray, np.ndarray]:
        """(k,) bool each: coordinates ``ks`` proven unbounded above / below by a verified
        recession direction (nonempty set), from ``pool`` and, with ``describe``, the double
        description of the recession cone (``bounding_box``); all ``False`` where neither proves
        a side. Without ``describe`` (a box whose support LPs are batched) the LPs decide the
        sides the pool leaves: an unbounded one by the ray of its final basis
        (``_rays_from_bases``), cheaper than the double description on the chains' domains."""
        h = self._hull()
        up = np.zeros(len(ks), dtype=bool)
        down = np.zeros(len(ks), dtype=bool)
        dim = h.N.shape[1]
        if dim == 0:
            return up, down
        Nk = h.N[ks]
        if h.V.shape[0] == 0:
            free = np.any(Nk != 0.0, axis=1)
            return free, free.copy()
        empty = np.zeros((0, dim))

        def prove(R):  # costs -e_k (unbounded above) and +e_k (below) in one check
            ok = np.any(lp.rays_ok(np.vstack([-Nk, Nk]), R, h.V, empty), axis=1)
            up[:] |= ok[:len(ks)]
            down[:] |= ok[len(ks):]

        pooled = pool is not None and pool.dim == self.dim
        if pooled and len(pool):
            prove(pool.rays @ h.N)  # the pooled directions, in the hull's coordinates
            if np.count_nonzero(~up) + np.count_nonzero(~down) <= len(ks):
                return up, down
        if not describe or dim > _tol.BOX_RAYS_MAX_DIM:  # the DD costs more than the LPs it saves
            return up, down
        try:
            _, rays, lines = _cdd_io.generators(h.V, np.zeros(h.V.shape[0]), np.zeros((0, dim)), np.zeros(0))
        except (RuntimeError, ValueError):  # cddlib's float DD gave up: the LPs decide the other sides
            return up, down
        R = np.vstack([rays, lines, -lines])
        if len(R):
            prove(R)
            if pooled:
                pool.add(R @ h.N.T)
        return up, down

    def implicit_equalities(self) -> np.ndarray:
        """Indices of inequality rows holding with equality on the whole set (the affine-hull
        rule of ``polytopes._feasibility``). For the empty set every row (vacuously)."""
        h = self._hull()
        if h is None:
            return np.arange(self.n_ineq)
        return np.flatnonzero(h.implicit)

    def affine_hull(self) -> tuple[np.ndarray, np.ndarray]:
        """Minimal equalities ``(C, d)`` of the affine hull: orthonormal rows, (r, n) and (r,).

        For the empty set returns the inconsistent system ``0 x = 1`` (shape (1, n))."""
        h = self._hull()
        if h is None:
            return np.zeros((1, self.dim)), np.ones(1)
        return h.Q.copy(), h.q.copy()

    def affine_dimension(self) -> int:
        """Dimension of the affine hull; ``-1`` for the empty set."""
        h = self._hull()
        return -1 if h is None else h.dimension

    def projected_dimension(self, keep: Sequence[int]) -> int:
        """Affine dimension of the projection onto the coordinates ``keep``, without projecting.

        The affine hull of a projection is the projection of the affine hull, so this is the
        rank of the hull's direction basis restricted to ``keep`` (``(len(keep), k)``, singular
        values against ``RANK_RTOL`` as every rank decision of the package); ``-1`` for the
        empty set. Equal to ``self.project(keep).affine_dimension()`` up to those tolerances.

        Parameters
        ----------
        keep : Sequence[int]
            The kept coordinates (indices into ``0 .. dim - 1``).

        Returns
        -------
        int
            The dimension, ``-1`` .. ``len(keep)``.

        Raises
        ------
        PolytopeError
            On an index outside ``0 .. dim - 1``.
        """
        ks = [int(k) for k in keep]
        if any(k < 0 or k >= self.dim for k in ks):
            raise PolytopeError(f"keep: indices must lie in 0..{self.dim - 1}, got {ks}")
        h = self._hull()
        if h is None:
            return -1
        Nk = h.N[ks, :]
        if Nk.size == 0:
            return 0
        sv = np.linalg.svd(Nk, compute_uv=False)
        return int((sv > rank_tol(sv, Nk.shape)).sum())

    def chebyshev_center(self) -> ChebyshevBall:
        """Center and radius of the largest ball inside the set *within its affine hull*.

        A single point has radius 0. When the radius is unbounded the reported radius is
        ``inf`` and the center is the center of an inscribed ball of radius
        ``CHEBYSHEV_RADIUS_CAP * scale``. The empty set gives ``ChebyshevBall(center=[nan]*n,
        radius=-inf)`` (no center; ``radius < 0`` marks it). For a thin set the ball is computed
        on the inner system relaxed by ``FEASIBILITY_TOL * scale`` (radius within that of exact).

        Returns
        -------
        ChebyshevBall
            The centre ``(n,)`` and the radius, in the set's coordinates.

        Raises
        ------
        NumericalError
            When the Chebyshev LP reports infeasible on a set the emptiness rule calls nonempty.
        """
        h = self._hull()
        if h is None:
            return ChebyshevBall(np.full(self.dim, np.nan), float("-inf"))
        if h.dimension == 0:
            return ChebyshevBall(h.x0.copy(), 0.0)
        if h.V.shape[0] == 0:
            return ChebyshevBall(h.x0.copy(), float("inf"))
        g = h.gamma + h.relax
        z, r = lp.chebyshev(h.V, g)
        if np.isinf(r):
            z, _ = lp.chebyshev(h.V, g, cap=_tol.CHEBYSHEV_RADIUS_CAP * self._feas().scale)
        if z is None:  # feasible by construction (the hull point, radius 0)
            raise NumericalError("Chebyshev LP reported infeasible on a set the emptiness rule "
                                 "calls nonempty")
        return ChebyshevBall(h.x0 + h.N @ z, float(r))

    def nearest_point(self, x: Any, weights: Any = None) -> NearestPoint:
        """The point of the set nearest to ``x`` and its distance, verified.

        The distance is ``min ‖W (y − x)‖₂`` over the set, ``W = diag(weights)`` (the identity by
        default): a least-distance program on the inner system of the set (of the set with its
        coordinates scaled by ``weights``), solved by Lawson & Hanson's NNLS reduction, HiGHS's
        QP solver when that answer fails its check; each answer is checked against a dual lower
        bound (``polytopes._nearest``, ``DISTANCE_TOL``). Like every LP query, it runs on the
        inner system relaxed by the emptiness tolerance for a thin or lower-dimensional set
        (``inner_system``), so the distance is that of the set within ``FEASIBILITY_TOL`` times
        its scale. A point of the set has distance 0 within that tolerance.

        Parameters
        ----------
        x : array_like
            The query point, shape ``(n,)``, finite.
        weights : array_like, optional
            Positive finite weights, shape ``(n,)``, of the coordinates in the distance (the
            units in which a coordinate's difference is measured).

        Returns
        -------
        NearestPoint
            ``point`` (n,) in the set's coordinates and ``distance``.

        Raises
        ------
        PolytopeError
            For the empty set, a point or weights of the wrong shape, not finite, or weights
            that are not positive.
        NumericalError
            When no method gives a verified answer.

        Examples
        --------
        >>> from polytopes import Polytope
        >>> square = Polytope.box([0.0, 0.0], [1.0, 1.0])
        >>> near = square.nearest_point([3.0, 5.0])
        >>> near.point.round(12).tolist(), round(near.distance ** 2, 12)
        ([1.0, 1.0], 20.0)
        >>> round(square.nearest_point([3.0, 0.5], weights=[2.0, 1.0]).distance, 12)
        4.0
        """
        from . import _nearest

        x = np.asarray(x, dtype=float)
        if x.shape != (self.dim,) or not np.all(np.isfinite(x)):
            raise PolytopeError(f"x: expected a finite point of shape ({self.dim},), got {x.shape}")
        P = self
        if weights is not None:
            w = np.asarray(weights, dtype=float)
            if w.shape != (self.dim,) or not np.all(np.isfinite(w)) or not np.all(w > 0):
                raise PolytopeError(f"weights: expected {self.dim} positive finite numbers, got {weights!r}")
            P, x = Polytope(self._A / w, self._b, self._C / w, self._d), x * w
        h = P._hull()
        if h is None:
            raise PolytopeError("nearest_point called on an empty set")
        w0 = h.N.T @ (x - h.x0)
        across = (x - h.x0) - h.N @ w0
        size = max(P.data_scale, float(np.linalg.norm(x - h.x0)))
        z, _ = _nearest.least_distance(h.V, h.gamma + h.relax - h.V @ w0, size)
        point = h.x0 + h.N @ (w0 + z)
        distance = float(np.hypot(np.linalg.norm(across), np.linalg.norm(z)))
        if weights is not None:
            point = point / w
        return NearestPoint(_frozen(point), distance)

    def vertices(self) -> Generators:
        """Generators by cdd's double description method (empty arrays for the empty set).

        Computed on the inner system over the affine hull (unit rows, no equalities, no zero
        rows), mapped back: vertices ``x0 + N w``, rays ``N r``, lines ``N l`` plus none for the
        hull (its lines are those of the inner system). Floating-point double description: a
        claim, not a certificate (see ``polytopes.project``, which verifies its uses). When
        cddlib gives up ("numerical inconsistency"), PPL's exact generators are used if pplpy is
        installed.

        Returns
        -------
        Generators
            The vertices, rays and lines, each of shape ``(·, n)``.

        Raises
        ------
        NumericalError
            When cddlib gives up and pplpy is not installed.
        """
        n = self.dim
        h = self._hull()
        if h is None:
            z = np.zeros((0, n))
            return Generators(z, z.copy(), z.copy())
        k = h.dimension
        if k == 0:
            return Generators(h.x0[None, :].copy(), np.zeros((0, n)), np.zeros((0, n)))
        from ._redundancy import inner_unit_system
        U, beta, beta_r = inner_unit_system(h)
        try:
            V, R, L = _cdd_io.generators(U, beta_r, np.zeros((0, k)), np.zeros(0))
        except RuntimeError as exc:  # cddlib's floating-point double description gave up
            if not ppl_io.available():
                raise NumericalError(f"vertex enumeration failed in cddlib ({exc}); installing "
                                     "pplpy (contactmodes[exact]) enables the exact fallback") from exc
            V, R, L = ppl_io.generators_exact(U, beta_r, np.zeros((0, k)), np.zeros(0))
        if V.shape[0] == 0:  # cdd lost the vertex of a nonempty set: use the hull point
            V = np.zeros((1, k))
        return Generators(h.x0[None, :] + V @ h.N.T, R @ h.N.T, L @ h.N.T)

    # ----- set operations -----------------------------------------------------------------
    def intersect(self, other: "Polytope") -> "Polytope":
        """Intersection of two sets: their rows stacked (not reduced).

        Parameters
        ----------
        other : Polytope
            A set of the same dimension.

        Returns
        -------
        Polytope
            ``self ∩ other``.

        Raises
        ------
        PolytopeError
            When ``other`` is not a ``Polytope`` or its dimension differs.
        """
        if not isinstance(other, Polytope):
            raise PolytopeError("other: expected a Polytope")
        if other.dim != self.dim:
            raise PolytopeError(f"other: dimension {other.dim} does not match {self.dim}")
        return Polytope(np.vstack([self._A, other.A]), np.concatenate([self._b, other.b]),
                        np.vstack([self._C, other.C]), np.concatenate([self._d, other.d]))

    def issubset(self, other: "Polytope", tol: float | None = None) -> bool:
        """Whether ``self ⊆ other``, by one support LP per row of ``other`` (two per equality).

        Parameters
        ----------
        other : Polytope
            A set of the same dimension.
        tol : float, optional
            Relative tolerance: a row of ``other`` (normalized) may be exceeded by ``tol`` times
            the larger data scale of the two sets. Default ``tolerances.CONTAINMENT_TOL``.

        Returns
        -------
        bool
            True when every row of ``other`` holds on ``self`` within the tolerance (always for an
            empty ``self``).

        Raises
        ------
        PolytopeError
            When ``other`` is not a ``Polytope`` or its dimension differs.
        """
        if not isinstance(other, Polytope):
            raise PolytopeError("other: expected a Polytope")
        if other.dim != self.dim:
            raise PolytopeError(f"other: dimension {other.dim} does not match {self.dim}")
        t = _tol.CONTAINMENT_TOL if tol is None else float(tol)
        if self.is_empty():
            return True
        if other.is_empty():
            return False
        scale = max(self._feas().scale, other._feas().scale)
        An, bn, nrm = normalize_rows(other.A, other.b)
        for a, bi, nr in zip(An, bn, nrm):
            if nr == 0:
                continue  # other nonempty, so 0 <= b_i holds
            if self.support(a) > bi + t * scale:
                return False
        Cn, dn, nrm = normalize_rows(other.C, other.d)
        for c, di, nr in zip(Cn, dn, nrm):
            if nr == 0:
                continue
            if self.support(c) > di + t * scale or -self.support(-c) < di - t * scale:
                return False
        return True

    def equals(self, other: "Polytope", tol: float | None = None) -> bool:
        """Whether the two sets are equal: mutual containment (``issubset`` both ways).

        Parameters
        ----------
        other : Polytope
            A set of the same dimension.
        tol : float, optional
            Relative tolerance of ``issubset``. Default ``tolerances.CONTAINMENT_TOL``.

        Returns
        -------
        bool
            True when each contains the other within the tolerance (both empty: True).

        Raises
        ------
        PolytopeError
            When ``other`` is not a ``Polytope`` or its dimension differs.
        """
        return self.issubset(other, tol) and other.issubset(self, tol)

    def reduce(self, method: str = "cdd") -> "Polytope":
        """Minimal H-representation of the same set.

        Redundant inequalities removed, implicit equalities moved to ``C, d``, duplicates merged,
        equalities made independent; output rows are unit vectors (equalities orthonormal,
        inequalities orthogonal to the equalities). Emptiness and implicit equalities follow the
        package's one rule (``polytopes._feasibility``); redundancy is decided on rows made
        unit vectors first, so scaling a row by any positive number changes nothing.

        The empty set gives ``Polytope.empty(n)``. The result is cached per method.

        Parameters
        ----------
        method : str
            ``"cdd"`` (cddlib's redundancy removal, verified, falling back to ``"lp"``), ``"lp"``
            (verified LPs, ``polytopes._redundancy``) or ``"exact"`` (emptiness and affine hull
            by the package's rule, then PPL's minimized constraints of the inner system in
            rational arithmetic, ``polytopes._exact_projection``; needs pplpy,
            ``pip install 'contactmodes[exact]'``).

        Returns
        -------
        Polytope
            The same set in a minimal H-representation.

        Raises
        ------
        PolytopeError
            On an unknown ``method``, or ``"exact"`` without pplpy.
        """
        if method not in ("cdd", "lp", "exact"):
            raise PolytopeError(f"method: expected 'cdd', 'lp' or 'exact', got {method!r}")
        key = ("reduce", method)
        if key in self._cache:
            return self._cache[key]
        if method == "exact" and not ppl_io.available():
            raise PolytopeError(ppl_io.INSTALL_HINT)
        if self.is_empty():
            out = Polytope.empty(self.dim)
        elif self.dim == 0:  # R^0: the one point, no row needed
            out = Polytope.universe(0)
        elif method == "exact":  # the package's decisions, then PPL (polytopes._exact_projection)
            out = Polytope(*exact_projection(self, range(self.dim)))
        else:
            out = Polytope(*_redundancy.reduce(*self._h(), method=method, feas=self._feas(),
                                              hl=self._hull()))
        self._cache[key] = out
        return out

    def project(self, keep: Sequence[int], method: str = "auto",
                max_rows: int | None = None) -> "Polytope":
        """Projection onto the coordinates ``keep`` (in that order), reduced.

        ``polytopes.projection.project`` (its methods and errors).

        Parameters
        ----------
        keep : Sequence[int]
            The kept coordinates (indices into ``0 .. dim - 1``, in the result's order).
        method : str
            ``"auto"`` (default), ``"support"``, ``"fourier_motzkin"``, ``"block_elimination"``,
            ``"vertex"`` or ``"exact"`` (``polytopes.projection.project``).
        max_rows : int, optional
            Row budget of an intermediate representation (default
            ``tolerances.DEFAULT_ROW_BUDGET``).

        Returns
        -------
        Polytope
            The projection, in ``R^len(keep)``, in a minimal H-representation.
        """
        from .projection import project
        return project(self, keep, method, max_rows)

    @staticmethod
    def project_many(polytopes: Sequence["Polytope"], keep: Sequence[int], method: str = "auto",
                     max_rows: int | None = None) -> list["Polytope"]:
        """``project`` of every polytope of the sequence onto ``keep``, their LPs solved together
        where they can be (``polytopes.projection.project_many``: the same results).

        Parameters
        ----------
        polytopes : Sequence[Polytope]
            The sets, all of one dimension.
        keep : Sequence[int]
            The kept coordinates, as ``project``.
        method : str
            As ``project``.
        max_rows : int, optional
            As ``project``.

        Returns
        -------
        list[Polytope]
            The projections, in the order of ``polytopes``.
        """
        from .projection import project_many
        return project_many(polytopes, keep, method, max_rows)

