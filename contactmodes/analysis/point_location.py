"""Point location among many modes without building them (issue 40, item 6 "Scale").

A robot standing on four feet with the spatial contact's ``2 + 2 n_f`` letters at rest has
``10^4`` modes (``n_f = 4``), each ``T_c`` full-dimensional with no ambiguity variable. Testing a
torque against every ``T_c`` (``AnalysisSession.locate`` before: each mode's response, ``D_c`` and
box) took 16 s for Solo-12. ``PointFilter`` instead evaluates every mode *at the torque*:

* The rows every mode shares (the dynamics, eq. 5, and the equality constraint blocks;
  ``EquationBank.mode_independent_rows``), ``A x = B τ' + b`` over ``x = (q̈, f)``
  (nondimensional), are solved once: ``x = x0(τ') + Z y`` with ``x0 = A⁺ (B τ' + b)`` and ``Z``
  an orthonormal basis of ``A``'s null space (``A`` of full row rank, else no filter).
* Each contact's letter adds its equalities (Tables I–II, eqs. 7–8:
  ``EquationBank.contact_letter_rows``), ``E_iℓ (x0 + Z y) = e_iℓ``. When every letter of
  contact ``i`` has the same number ``p_i`` of them and ``Σ p_i = dim y`` (the planar and the
  spatial point contacts: two and three per letter, every mode square), a mode's equalities are
  the square system ``K_c y = r_c(τ')``. For every mode Table III allows they are solved contact
  by contact, all prefixes at once (``PointFilter.keep_all``: a prefix keeps its solution and an
  orthonormal basis of what it leaves free; the next contact's letters each need a small SVD, the
  last one a ``p × p`` inverse: for Solo-12 10 + 100 + 1000 SVDs and 10^4 3×3 inverses); for a
  list of modes (``keep``) each ``K_c`` is inverted in one batch.
* A mode with a matrix to invert that is not well conditioned (``s_min <= LOCATE_REGULAR_RTOL ·
  s_max``, ``contactmodes.tolerances``; a mode with ambiguity variables or inconsistent
  equalities among them) is kept, for the exact test. Otherwise its solution at ``τ'`` is the one
  point ``x_c(τ')``, affine in ``τ'`` with the slope ``dx_c/dτ'`` computed alongside, and every
  inequality row ``a·(x, τ') >= β`` of the mode (eqs. 9–10, the ``geq`` blocks) substituted there
  is the row ``α·τ' >= β'`` of ``D_c`` (eq. 33) with ``α = a_x dx_c/dτ' + a_τ``: its violation over
  ``‖α‖`` is the torque's distance outside that half-space.

**What is proved.** A mode whose equalities have one solution at each torque has ``T_c =
{τ' : every substituted row holds}`` (``D_c`` has no ``w``), and ``T_c`` lies inside each row's
half-space; a torque farther than ``SCREEN_MARGIN · max(1, ‖τ'‖_∞)`` (``contactmodes.tolerances``)
outside one of them is outside ``T_c`` by more than five orders of magnitude beyond the
containment tolerance of ``polytopes`` (``FEASIBILITY_TOL``, relative), so the filter drops the
mode: a torque on a facet of ``T_c`` within that tolerance is never dropped. (Most modes are
dropped on an upper bound of ``‖α‖``, ``‖a_x dx0/dτ' + a_τ‖ + ‖a_x Z‖ ‖dy/dτ'‖_F``, which can only
make the distance larger than it is; the others' ``‖α‖`` are computed.) Every mode kept — those
that pass and those not well conditioned — is decided by the session's own test
(``AnalysisSession.locate``'s box filter and ``contains_scaled``), so the answer is the
brute-force answer with a few modes built instead of all.

A search over contacts with relaxed rows (each unassigned contact keeping the rows common to its
letters, as the enumeration does) was measured first and prunes nothing here: at a fixed torque
an unassigned foot's free tangential acceleration and friction force absorb the others' rows, so
no prefix of fewer than three Solo-12 feet is ruled out (1 + 10 + 100 + 1000 + 880 LPs, 4 s).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from contactmodes import tolerances
from contactmodes._blas import single_blas_thread
from contactmodes.modes.contact_conditions import classify_velocities

__all__ = ["PointFilter", "FILTER_CHUNK"]

OVERLAP_LPS_CHUNK = 1024
"""Modes per verified batch of ``PointFilter.interior_overlaps`` (``polytopes.batchlp``'s own
chunk size: bounded memory)."""

_Solutions = tuple[np.ndarray, np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]
"""Modes' ``y`` (n, d), a bound of ``‖dy/dτ'‖_F`` (n,), regularity (n,) and ``slopes(rows)``."""

FILTER_CHUNK = 4096
"""Modes per batch of ``PointFilter.candidates`` (bounded memory: a chunk's ``(modes, d, d)``
systems and their SVDs)."""


class PointFilter:
    """The filter of the module docstring for one session's nondimensional system.

    Parameters
    ----------
    session : AnalysisSession
        The session (its scaled system and equation banks).
    task : bool
        With the system's task rows (the session's ``D_c`` with tasks) or without.

    Attributes
    ----------
    available : bool
        Whether the shared equalities have full row rank and every contact's letters add the same
        number of equalities, summing to ``dim y`` (else every mode is a candidate).
    allowed : tuple[str, ...]
        Per contact, the letters Table III allows.
    """

    def __init__(self, session, task: bool) -> None:
        scaled = session.scaled
        self.k, self.n_tau = scaled.k, scaled.n_tau
        bank = session.equation_bank(task)
        self.allowed = tuple(classify_velocities(scaled, check_approaching=False).allowed)
        A, B, b, N, e, is_task = bank.mode_independent_rows()
        keep = np.ones(len(e), dtype=bool) if task else ~is_task
        self.available = False
        n_x = A.shape[1]
        U, s, Vt = np.linalg.svd(A)
        rank = int(np.sum(s > tolerances.RANK_RTOL * max(A.shape) * (s[0] if s.size else 0.0)))
        if rank < A.shape[0] or not self.k:
            return
        pinv = Vt[:rank].T @ (U[:, :rank].T / s[:rank, None])
        self._x0 = (pinv @ B, pinv @ b)  # x0(τ) = P0 τ + p0
        Z = Vt[rank:].T  # (n_x, d)
        d = Z.shape[1]
        self._Z = Z
        self._fixed_geq = self._normalized(N[keep], e[keep])
        self._eq: list[list[tuple]] = []  # per contact, per allowed letter: (E, e) reduced
        self._geq: list[list[tuple]] = []
        p = []
        for i in range(self.k):
            eqs, geqs, counts = [], [], set()
            for letter in self.allowed[i]:
                E, ev, G, gv = bank.contact_letter_rows(i, letter)
                counts.add(E.shape[0])
                eqs.append((E, ev))
                geqs.append(self._normalized(G, gv))
            if len(counts) != 1:
                return
            p.append(counts.pop())
            self._eq.append(eqs)
            self._geq.append(geqs)
        if sum(p) != d:
            return
        self._p = p
        self.n_x, self.d = n_x, d
        # per contact: the letters' reduced rows E Z (letters, p_i, d), E (letters, p_i, n_x), e, and their Frobenius norms
        self._EZ = [np.stack([E @ Z for E, _ in eqs]) for eqs in self._eq]
        self._E = [np.stack([E for E, _ in eqs]) for eqs in self._eq]
        self._e = [np.stack([ev for _, ev in eqs]) for eqs in self._eq]
        width = [max(G.shape[0] for G, _ in geqs) for geqs in self._geq]
        self._G = []
        self._g = []
        for geqs, w in zip(self._geq, width):  # padded with 0 >= 0
            Gs = np.zeros((len(geqs), w, n_x + self.n_tau))
            gs = np.zeros((len(geqs), w))
            for j, (G, g) in enumerate(geqs):
                Gs[j, :G.shape[0]] = G
                gs[j, :G.shape[0]] = g
            self._G.append(Gs)
            self._g.append(gs)
        self.available = True

    @staticmethod
    def _normalized(G: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows ``G z >= g`` divided by their Euclidean norms (all-zero rows kept as they are)."""
        nrm = np.linalg.norm(G, axis=1)
        nrm = np.where(nrm > 0.0, nrm, 1.0)
        return G / nrm[:, None], g / nrm

    def table_iii_modes(self) -> np.ndarray:
        """Every mode Table III allows, in product order (first contact slowest).

        Returns
        -------
        numpy.ndarray
            ``(N, k)`` int: letter indices into ``allowed``.
        """
        grids = np.meshgrid(*[np.arange(len(a)) for a in self.allowed], indexing="ij")
        return np.stack([g.reshape(-1) for g in grids], axis=1) if self.k else np.zeros((1, 0), dtype=int)

    def count(self) -> int:
        """The number of modes Table III allows.

        Returns
        -------
        int
            ``Π_i |allowed_i|``.
        """
        out = 1
        for a in self.allowed:
            out *= len(a)
        return out

    def indices(self, modes) -> np.ndarray:
        """Mode strings as letter indices into ``allowed``.

        Parameters
        ----------
        modes : Sequence[str]
            Mode strings whose every letter Table III allows.

        Returns
        -------
        numpy.ndarray
            ``(N, k)`` int.
        """
        pos = [{c: j for j, c in enumerate(a)} for a in self.allowed]
        return np.array([[pos[i][c] for i, c in enumerate(m)] for m in modes], dtype=int).reshape(len(modes), self.k)

    def names(self, idx: np.ndarray) -> list[str]:
        """Letter indices as mode strings.

        Parameters
        ----------
        idx : numpy.ndarray
            ``(N, k)`` int, indices into ``allowed``.

        Returns
        -------
        list[str]
            ``N`` mode strings.
        """
        return ["".join(self.allowed[i][j] for i, j in enumerate(row)) for row in idx.tolist()]

    def keep(self, idx: np.ndarray, tau_scaled: np.ndarray) -> np.ndarray:
        """Which modes ``idx`` (``(N, k)`` letter indices) the filter cannot rule out at ``τ'``:
        ``(N,)`` bool (module doc; every mode when not ``available``).

        Parameters
        ----------
        idx : numpy.ndarray
            ``(N, k)`` int, each row a mode's letters as indices into ``allowed``.
        tau_scaled : numpy.ndarray
            ``(n_τ,)`` the torque τ' (nondimensional).

        Returns
        -------
        numpy.ndarray
            ``(N,)`` bool.
        """
        if not self.available or len(idx) == 0:
            return np.ones(len(idx), dtype=bool)
        t = np.asarray(tau_scaled, dtype=float).reshape(self.n_tau)
        out = np.empty(len(idx), dtype=bool)
        with single_blas_thread():  # small matrices: BLAS threads only spin (contactmodes._blas)
            for lo in range(0, len(idx), FILTER_CHUNK):
                sl = idx[lo:lo + FILTER_CHUNK]
                y, bound, regular, slopes = self._solve_modes(sl, t)
                out[lo:lo + len(sl)] = self._check(sl, y, bound, regular, slopes, t)
        return out

    def keep_all(self, tau_scaled: np.ndarray) -> np.ndarray:
        """``keep`` of every mode Table III allows (``table_iii_modes``), their equalities solved
        contact by contact for all prefixes at once (``_solve_tree``).

        Parameters
        ----------
        tau_scaled : numpy.ndarray
            ``(n_τ,)`` the torque τ' (nondimensional).

        Returns
        -------
        numpy.ndarray
            ``(N,)`` bool, in product order.
        """
        idx = self.table_iii_modes()
        if not self.available:
            return np.ones(len(idx), dtype=bool)
        t = np.asarray(tau_scaled, dtype=float).reshape(self.n_tau)
        with single_blas_thread():  # small matrices: BLAS threads only spin (contactmodes._blas)
            y, bound, regular, slopes = self._solve_tree(t)
            return self._check(idx, y, bound, regular, slopes, t)

    def _reduced_rhs(self, t: np.ndarray):
        """``x0(τ')``, and per contact the letters' reduced right-hand sides ``e − E x0``
        (letters, p_i) and their slopes ``−E P0`` (letters, p_i, n_τ)."""
        P0, p0 = self._x0
        x0 = P0 @ t + p0
        return x0, [e - E @ x0 for E, e in zip(self._E, self._e)], [-(E @ P0) for E in self._E]

    def _solve_modes(self, sl: np.ndarray, t: np.ndarray) -> _Solutions:
        """Each mode's ``y`` (n, d), ``dy/dτ'`` (n, d, n_τ) and regularity (n,): one batched
        inverse of the stacked ``K_c``."""
        _, rhs, drhs = self._reduced_rhs(t)
        K = np.concatenate([self._EZ[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d, d)
        r = np.concatenate([rhs[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d)
        dr = np.concatenate([drhs[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d, n_τ)
        Kinv, regular = _inverse(K)
        dy = Kinv @ dr
        return (Kinv @ r[:, :, None])[:, :, 0], np.sqrt(np.einsum("ndt,ndt->n", dy, dy)), regular, lambda rows: dy[rows]

    def _solve_tree(self, t: np.ndarray) -> _Solutions:
        """``_solve_modes`` for every mode of ``table_iii_modes``, contact by contact: the prefixes
        of contacts ``0 … j`` keep their minimum-norm solution ``y_p``, its slope and an orthonormal
        basis ``N_p`` of what is left free; contact ``j + 1``'s letter rows ``R`` then ask
        ``(R N_p) u = r − R y_p`` (an SVD per prefix and letter; at the last contact a square
        inverse). Each step's matrix must be regular by the rank rule (``_inverse``, ``_regular``)."""
        _, rhs, drhs = self._reduced_rhs(t)
        d = self.d
        Y = np.zeros((1, d, 1 + self.n_tau))  # per prefix: y and its slope dy/dτ' side by side
        N = np.eye(d)[None]
        regular = np.ones(1, dtype=bool)
        for i in range(self.k):
            R = self._EZ[i]  # (L, p, d)
            last = i == self.k - 1
            L, p = R.shape[0], R.shape[1]
            P, m = N.shape[0], N.shape[2]
            A = np.einsum("lpd,ndm->nlpm", R, N).reshape(P * L, p, m)
            scale = np.tile(np.sqrt(np.einsum("lpd,lpd->l", R, R)), P)  # ‖R‖_F of each (prefix, letter)
            if last:  # the last contact: square; y alone here, the slopes on demand (``slopes``)
                B = (rhs[i][None] - np.einsum("lpd,nd->nlp", R, Y[:, :, 0])).reshape(P * L, p)
                Ainv, reg = _inverse(A, scale)
                u = _bmm(Ainv, B[:, :, None])[:, :, 0]
                y = (Y[:, None, :, 0] + _bmm(N[:, None], u.reshape(P, L, m, 1))[..., 0]).reshape(P * L, d)
                regular = np.repeat(regular, L) & reg
                break
            RHS = np.concatenate([rhs[i][:, :, None], drhs[i]], axis=2)  # (L, p, 1 + n_τ)
            B = (RHS[None] - np.einsum("lpd,ndc->nlpc", R, Y)).reshape(P * L, p, -1)
            Us, sv, Vt = np.linalg.svd(A)  # (n, p, p), (n, p), (n, m, m)
            reg = _regular(sv, scale)
            sinv = np.where(reg[:, None], 1.0 / np.where(sv > 0, sv, 1.0), 0.0)
            V = np.transpose(Vt, (0, 2, 1))
            U = _bmm(_bmm(V[:, :, :p], np.transpose(Us, (0, 2, 1)) * sinv[:, :, None]), B)  # A⁺ B
            Y = (Y[:, None] + _bmm(N[:, None], U.reshape(P, L, m, -1))).reshape(P * L, d, -1)
            N = _bmm(N[:, None], V[:, :, p:].reshape(P, L, m, m - p)).reshape(P * L, d, m - p)
            regular = np.repeat(regular, L) & reg
        # the leaves' slopes dy = dy_p + N_p Ainv (dr − R dy_p): bounded here, computed on demand
        dyp, dr = Y[:, :, 1:], drhs[self.k - 1]
        Rn = np.sqrt(np.einsum("lpd,lpd->l", R, R))
        drn = np.sqrt(np.einsum("lpt,lpt->l", dr, dr))
        dypn = np.sqrt(np.einsum("ndt,ndt->n", dyp, dyp))
        ainvn = np.sqrt(np.einsum("nij,nij->n", Ainv, Ainv))
        bound = np.repeat(dypn, L) + ainvn * (np.tile(drn, P) + np.tile(Rn, P) * np.repeat(dypn, L))

        def slopes(rows: np.ndarray) -> np.ndarray:
            pre, let = rows // L, rows % L
            rhs_t = dr[let] - _bmm(R[let], dyp[pre])  # (r, p, n_τ)
            return dyp[pre] + _bmm(N[pre], _bmm(Ainv[rows], rhs_t))

        return y, bound, regular, slopes

    def _check(self, sl: np.ndarray, y: np.ndarray, dyf: np.ndarray, regular: np.ndarray, slopes,
               t: np.ndarray) -> np.ndarray:
        """The modes ``sl`` kept, given their ``y`` (n, d), an upper bound ``dyf`` (n,) of
        ``‖dy/dτ'‖_F``, their regularity and ``slopes(rows)`` giving ``dy/dτ'`` (r, d, n_τ) of
        some: every inequality row's violation ``c − H y`` at ``x0 + Z y``, over the norm of its
        slope ``S + H dy`` in τ' (the row of ``D_c``), at most the margin. Modes are first ruled
        out by an upper bound of the slope's norm (``‖S‖ + ‖H‖ dyf``, certain), the slopes of the
        others computed."""
        x0, _, _ = self._reduced_rhs(t)
        P0 = self._x0[0]
        nx, n = self.n_x, len(sl)
        margin = tolerances.SCREEN_MARGIN * max(1.0, float(np.abs(t).max(initial=0.0)))
        Z = self._Z

        def parts(G, g):  # rows G [x; τ] >= g at x = x0 + Z y: violation c − H y, slope S + H dy
            return (g - G[..., :nx] @ x0 - G[..., nx:] @ t, G[..., :nx] @ P0 + G[..., nx:], G[..., :nx] @ Z)

        blocks: list[tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]] = []
        c, S, H = parts(*self._fixed_geq)
        if len(c):
            blocks.append((np.broadcast_to(c, (n, len(c))) - y @ H.T, None, S, H))
        for i, (G, g) in enumerate(zip(self._G, self._g)):
            c, S, H = parts(G, g)  # (L, w), (L, w, n_τ), (L, w, d)
            L, w = c.shape
            if w == 0:
                continue
            letter = sl[:, i]
            viol = np.empty((n, w))
            for j in range(L):  # each letter's rows on the modes with that letter (memory n × w)
                rows = np.flatnonzero(letter == j)
                viol[rows] = c[j][None] - y[rows] @ H[j].T
            blocks.append((viol, letter, S, H))
        out = ~regular
        alive = regular.copy()
        for viol, li, S, H in blocks:  # certain drops first
            sn = np.linalg.norm(S, axis=-1)
            hn = np.linalg.norm(H, axis=-1)
            if li is not None:
                sn, hn = sn[li], hn[li]
            upper = sn + hn * dyf[:, None]
            alive &= ~np.any(viol > margin * np.maximum(upper, 1.0), axis=1)  # dist >= viol / max(upper, 1)
        rest = np.flatnonzero(alive)
        if rest.size:
            dy = slopes(rest)
            dist = np.full(rest.size, -np.inf)
            for viol, li, S, H in blocks:
                if li is None:
                    slope = S[None] + H[None] @ dy
                else:
                    slope = S[li[rest]] + H[li[rest]] @ dy
                sn = np.linalg.norm(slope, axis=2)
                sn = np.where(sn > tolerances.RANK_RTOL, sn, 1.0)  # a row constant in τ': its own violation
                dist = np.maximum(dist, np.max(viol[rest] / sn, axis=1, initial=-np.inf))
            out[rest] = dist <= margin
        return out

    def candidates(self, tau_scaled: np.ndarray, modes=None) -> list[str]:
        """The modes the filter cannot rule out at ``τ'`` (a superset of those whose ``T_c``
        contains it), in the order given.

        Parameters
        ----------
        tau_scaled : numpy.ndarray
            ``(n_τ,)`` the torque τ' (nondimensional).
        modes : Sequence[str], optional
            The modes to filter (each allowed by Table III); default every mode Table III allows,
            in product order.

        Returns
        -------
        list[str]
            The modes kept.
        """
        if modes is None:
            idx = self.table_iii_modes()
            return self.names(idx[self.keep_all(tau_scaled)])
        names = list(modes)
        ok = [all(c in a for c, a in zip(m, self.allowed)) for m in names]
        idx = self.indices([m for m, o in zip(names, ok) if o])
        kept = self.keep(idx, tau_scaled)
        it = iter(kept.tolist())  # a mode Table III excludes is kept (the exact test decides it)
        return [m for m, o in zip(names, ok) if not o or next(it)]


    def interior_overlaps(self, T, modes=None) -> list[str]:
        """The modes whose ``T_c`` (without task rows when the filter has none) the filter cannot
        rule out meeting the torque polytope ``T`` in a full-dimensional set, in the order given.

        The test works at a point ``p`` of ``T`` through which ``T``'s rows pass (the least-squares
        point of all its rows, accepted when every normalized row holds there within
        ``OVERLAP_APEX_RTOL · max(1, ‖p‖_∞)``, ``contactmodes.tolerances``: the apex ``τ*`` of a
        system at rest, where every ``T_c`` is a cone). A mode with one solution per torque (module
        doc) has ``T_c = {τ' : α_r·τ' >= v_r}``, its substituted rows (eq. 33). When ``p`` is in
        ``T_c`` (within the same tolerance), ``T_c ∩ T`` lies in ``p + K`` with ``K`` the cone of
        the rows of both sets through ``p`` (a convex set lies in its tangent cone at any of its
        points; a row through ``p`` within the tolerance counts as through it). One LP per mode:
        is ``{z : â·z <= −1 for every row of K (normalized), |z|_∞ <= 1 / OVERLAP_APERTURE}``
        empty? The LPs are solved in verified batches (``polytopes.batchlp.solve_stacked``, real
        bounds, no one-by-one fallback; the cost ``Σ z`` is arbitrary: with a zero cost every
        basis is dual degenerate and most LPs were left undecided). A verified *infeasible* answer drops the mode: then no
        ball of radius ``ρ`` lies in ``K`` within ∞-distance ``ρ / OVERLAP_APERTURE`` of its apex,
        so every ball inside ``T_c ∩ T`` has a radius below ``OVERLAP_APERTURE`` times its distance
        from ``p``: ``T_c ∩ T`` has no interior up to that relative tolerance. A mode is also
        dropped when a row of ``T_c`` with ``α = 0`` is violated by more than the tolerance
        (``T_c`` empty). Every other mode
        is kept (a feasible or undecided LP, ``p`` outside ``T_c``, a mode not well conditioned, a
        mode Table III excludes); without such a ``p`` every mode is kept.

        Parameters
        ----------
        T : polytopes.Polytope
            A polytope over the nondimensional torques τ' (``n_τ`` dimensions); with equality
            rows, or of affine dimension below ``n_τ`` (a ball of ``R^{n_τ}`` is then the wrong
            test), every mode is kept.
        modes : Sequence[str], optional
            The modes to filter; default every mode Table III allows, in product order.

        Returns
        -------
        list[str]
            The modes kept.
        """
        from polytopes import PolytopeError
        from polytopes import lp as _lp
        from polytopes.batchlp import preferred_kernel, solve_stacked

        names = self.names(self.table_iii_modes()) if modes is None else list(modes)
        if not self.available or T.n_eq or not T.n_ineq:
            return names
        try:
            full = T.affine_dimension() == T.dim
        except (ValueError, PolytopeError):  # an emptiness/rank decision at the edge: no screen
            full = False
        if not full:
            return names  # a lower-dimensional T: interiors relative to its affine hull, not tested here
        tn = np.linalg.norm(T.A, axis=1)
        live = tn > 0
        TA, Tb = T.A[live] / tn[live, None], T.b[live] / tn[live]
        p = np.linalg.lstsq(TA, Tb, rcond=None)[0]
        tol = tolerances.OVERLAP_APEX_RTOL * max(1.0, float(np.abs(p).max(initial=0.0)))
        resT = Tb - TA @ p
        if not np.all(resT >= -tol):
            return names
        TK = TA[resT <= tol]
        ok = [all(c in a for c, a in zip(m, self.allowed)) for m in names]
        idx = self.indices([m for m, o in zip(names, ok) if o])
        n = self.n_tau
        bound = 1.0 / tolerances.OVERLAP_APERTURE
        kept = np.ones(len(idx), dtype=bool)
        with single_blas_thread():
            for lo in range(0, len(idx), OVERLAP_LPS_CHUNK):
                sl = idx[lo:lo + OVERLAP_LPS_CHUNK]
                y, _, regular, slopes = self._solve_modes(sl, p)
                rows = np.flatnonzero(regular)
                if not len(rows):
                    continue
                alpha, viol = self._substituted(sl[rows], y[rows], slopes(rows), p)  # rows α·(τ' − p) >= v
                an = np.linalg.norm(alpha, axis=2)
                const = an <= tolerances.RANK_RTOL
                empty = np.any(const & (viol > tol), axis=1)  # a row "0 >= v > 0": T_c empty
                scale = np.where(const, 1.0, an)
                res = -viol / scale  # the normalized row's slack at p
                inside = ~np.any(~const & (res < -tol), axis=1)
                kept[lo + rows[empty]] = False
                use = inside & ~empty
                rows, alpha, scale, active = rows[use], alpha[use], scale[use], (~const & (res <= tol))[use]
                S = len(rows)
                if not S:
                    continue
                Gc = np.where(active[:, :, None], -alpha / scale[:, :, None], 0.0)
                hc = np.where(active, -1.0, 0.0)
                G = np.concatenate([Gc, np.broadcast_to(TK, (S,) + TK.shape)], axis=1)
                h = np.concatenate([hc, np.full((S, len(TK)), -1.0)], axis=1)
                box = np.full((S, n), bound)
                art = np.zeros((S, n), dtype=bool)
                ((status, _, _),) = solve_stacked([(np.ones((S, n)), G, h, -box, box, art, art.copy())],
                                                  fallback=False, kernel=preferred_kernel(S))
                kept[lo + rows[status == _lp.INFEASIBLE]] = False
        it = iter(kept.tolist())  # a mode Table III excludes is kept
        return [m for m, o in zip(names, ok) if not o or next(it)]

    def _substituted(self, sl: np.ndarray, y: np.ndarray, dy: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every inequality row of the modes ``sl`` substituted at their solutions: slopes ``α``
        (n, w, n_τ) and violations ``v`` (n, w) at ``t`` (the row reads ``α·(τ' − t) >= v``);
        padding rows have ``α = 0``, ``v = 0``."""
        x0, _, _ = self._reduced_rhs(t)
        P0, nx, n = self._x0[0], self.n_x, len(sl)
        parts = []
        Gf, gf = self._fixed_geq
        if len(gf):
            parts.append((np.broadcast_to(Gf, (n,) + Gf.shape), np.broadcast_to(gf, (n, len(gf)))))
        parts += [(G[sl[:, i]], g[sl[:, i]]) for i, (G, g) in enumerate(zip(self._G, self._g))]
        alphas, viols = [], []
        x = x0[None] + y @ self._Z.T  # (n, n_x)
        for G, g in parts:
            Gx, Gt = G[..., :nx], G[..., nx:]
            viols.append(g - np.einsum("nwx,nx->nw", Gx, x) - Gt @ t)
            alphas.append(Gx @ (P0[None] + self._Z[None] @ dy) + Gt)
        return np.concatenate(alphas, axis=1), np.concatenate(viols, axis=1)


def _bmm(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` for stacks of small matrices (``(..., i, k)`` and ``(..., k, j)``, broadcast) as
    ``k`` broadcast products: faster than ``matmul``'s per-matrix calls for ``10^4`` tiny ones."""
    out = A[..., :, 0, None] * B[..., None, 0, :]
    for j in range(1, A.shape[-1]):
        out = out + A[..., :, j, None] * B[..., None, j, :]
    return out


def _regular(sv: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Which matrices, by their singular values ``sv`` (n, p) in decreasing order, are regular by
    the filter's rule: ``s_min > LOCATE_REGULAR_RTOL · scale`` (``contactmodes.tolerances``),
    ``scale`` (n,) the Frobenius norm of the rows they come from (their own ``s_max`` or more: rows
    that the earlier contacts' rows almost span leave a matrix that is small as a whole)."""
    return sv[:, -1] > tolerances.LOCATE_REGULAR_RTOL * scale


def _inverse(K: np.ndarray, scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Inverses of square matrices ``K`` (n, p, p) and which are regular (``_regular``; ``scale``
    default ``‖K‖_F``): a batched inverse, regular where ``1/‖K⁻¹‖_F > LOCATE_REGULAR_RTOL ·
    scale`` (``s_min >= 1/‖K⁻¹‖_F``: a near-singular ``K``, inverted, has a huge inverse), else by
    the singular values; the inverse of a singular one is 0."""
    if scale is None:
        scale = np.sqrt(np.einsum("nij,nij->n", K, K))
    try:
        Kinv = np.linalg.inv(K)
        kif = np.sqrt(np.einsum("nij,nij->n", Kinv, Kinv))
        regular = np.isfinite(kif) & (1.0 / np.where(kif > 0, kif, np.inf) > tolerances.LOCATE_REGULAR_RTOL * scale)
    except np.linalg.LinAlgError:  # an exactly singular one: by the singular values
        U, sv, Vt = np.linalg.svd(K)
        regular = _regular(sv, scale)
        Kinv = np.transpose(Vt, (0, 2, 1)) @ (np.transpose(U, (0, 2, 1)) / np.where(sv > 0, sv, 1.0)[:, :, None])
    return np.where(regular[:, None, None], Kinv, 0.0), regular
