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
  the square system ``K_c y = r_c(τ')``, stacked per mode from per-letter blocks and solved for
  all modes at once (a batched SVD).
* A mode whose ``K_c`` is numerically singular (``s_min <= RANK_RTOL · dim y · s_max``, the
  response's rank rule, ``contactmodes.tolerances``) has ambiguity variables or inconsistent
  equalities: it is kept, for the exact test. Otherwise its solution at ``τ'`` is the one point
  ``x_c``, and its inequalities (eqs. 9–10 and the ``geq`` blocks) are evaluated there, each row
  normalized over ``(x, τ')``.

**What is proved.** A mode with a non-singular ``K_c`` has, at ``τ'``, exactly one solution
``x_c`` of its equalities, and ``τ' ∈ T_c`` iff ``x_c`` satisfies its inequalities. ``x_c``
depends on ``τ'`` with a slope of at most ``κ_c = max(1, ‖A⁺B‖) · (1 + ‖E_c‖_F / s_min(K_c))``,
so a torque within ``δ`` of ``T_c`` has ``x_c`` within ``κ_c δ`` of satisfying them. The filter
drops a mode only when a row is violated by more than ``SCREEN_MARGIN · max(1, ‖τ'‖_∞) · κ_c``
(``contactmodes.tolerances``): five orders of magnitude beyond the containment tolerance of
``polytopes`` (``FEASIBILITY_TOL``), so a torque on a facet of ``T_c`` within that tolerance is
never dropped. Every mode kept — those that pass and those with a singular ``K_c`` — is decided
by the session's own test (``AnalysisSession.locate``'s box filter and ``contains_scaled``), so
the answer is the brute-force answer with a few modes built instead of all.

A search over contacts with relaxed rows (each unassigned contact keeping the rows common to its
letters, as the enumeration does) was measured first and prunes nothing here: at a fixed torque
an unassigned foot's free tangential acceleration and friction force absorb the others' rows, so
no prefix of fewer than three Solo-12 feet is ruled out (1 + 10 + 100 + 1000 + 880 LPs, 4 s).
"""

from __future__ import annotations

import numpy as np

from contactmodes import tolerances
from contactmodes.modes.contact_conditions import classify_velocities

__all__ = ["PointFilter", "FILTER_CHUNK"]

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
        out = np.ones(len(idx), dtype=bool)
        if not self.available or len(idx) == 0:
            return out
        t = np.asarray(tau_scaled, dtype=float).reshape(self.n_tau)
        P0, p0 = self._x0
        x0 = P0 @ t + p0
        margin = tolerances.SCREEN_MARGIN * max(1.0, float(np.abs(t).max(initial=0.0)))
        nx = self.n_x
        Z = self._Z

        def parts(G, g):  # rows G [x; τ] >= g at x = x0 + Z y: violation c − H y, slope S + H dy
            return (g - G[..., :nx] @ x0 - G[..., nx:] @ t, G[..., :nx] @ P0 + G[..., nx:], G[..., :nx] @ Z)

        shared = parts(*self._fixed_geq)
        per_letter = [parts(G, g) for G, g in zip(self._G, self._g)]
        rhs = [e - E @ x0 for E, e in zip(self._E, self._e)]  # per contact: (letters, p_i)
        drhs = [-(E @ P0) for E in self._E]  # (letters, p_i, n_τ)
        eye = np.eye(self.d)
        for lo in range(0, len(idx), FILTER_CHUNK):
            sl = idx[lo:lo + FILTER_CHUNK]
            n = len(sl)
            K = np.concatenate([self._EZ[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d, d)
            r = np.concatenate([rhs[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d)
            dr = np.concatenate([drhs[i][sl[:, i]] for i in range(self.k)], axis=1)  # (n, d, n_τ)
            try:
                Kinv = np.linalg.solve(K, np.broadcast_to(eye, K.shape))
                # s_min >= 1/‖K⁻¹‖_F and s_max <= ‖K‖_F: a mode is regular by the response's rank
                # rule when this bound says so (a near-singular K, computed, has a huge inverse)
                kf = np.sqrt(np.einsum("nij,nij->n", K, K))
                kif = np.sqrt(np.einsum("nij,nij->n", Kinv, Kinv))
                regular = np.isfinite(kif) & (1.0 / np.where(kif > 0, kif, np.inf) > tolerances.RANK_RTOL * self.d * kf)
            except np.linalg.LinAlgError:  # an exactly singular one: the chunk's singular values
                U, sv, Vt = np.linalg.svd(K)
                regular = sv[:, -1] > tolerances.RANK_RTOL * self.d * sv[:, 0]
                Kinv = np.transpose(Vt, (0, 2, 1)) @ (np.transpose(U, (0, 2, 1)) / np.where(sv > 0, sv, 1.0)[:, :, None])
            Kinv = np.where(regular[:, None, None], Kinv, 0.0)
            y = (Kinv @ r[:, :, None])[:, :, 0]  # (n, d)
            dy = Kinv @ dr  # (n, d, n_τ)
            # every inequality row at the mode's solution x0 + Z y: its violation c − H y over its
            # slope S + H dy in τ' (the row of D_c), H = G_x Z per letter
            dist = np.full(n, -np.inf)
            for i, (c, S, H) in [(-1, shared)] + list(enumerate(per_letter)):
                if c.shape[-1] == 0:
                    continue
                if i < 0:  # the shared rows
                    viol = c[None, :] - y @ H.T
                    slope = S[None] + H[None] @ dy
                else:
                    c_, S_, H_ = c[sl[:, i]], S[sl[:, i]], H[sl[:, i]]
                    viol = c_ - (H_ @ y[:, :, None])[:, :, 0]
                    slope = S_ + H_ @ dy
                sn = np.linalg.norm(slope, axis=2)
                sn = np.where(sn > tolerances.RANK_RTOL, sn, 1.0)  # a row constant in τ': its own violation
                dist = np.maximum(dist, np.max(viol / sn, axis=1))
            out[lo:lo + n] = ~regular | (dist <= margin)
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
            names = None
        else:
            names = list(modes)
            ok = [all(c in a for c, a in zip(m, self.allowed)) for m in names]
            idx = self.indices([m for m, o in zip(names, ok) if o])
        kept = self.keep(idx, tau_scaled)
        if names is None:
            return self.names(idx[kept])
        it = iter(kept.tolist())  # a mode Table III excludes is kept (the exact test decides it)
        return [m for m, o in zip(names, ok) if not o or next(it)]

