"""The linear constraints of one contact mode (flipping paper, Sec. III-D: eqs. 24 and 32).

``EquationBank`` holds, once per system, the rows (7)–(10) of every contact and letter (from
the one mode table, ``contact_rows``, under the system's Table III
classification) and the mode-independent rows (constraint blocks, dynamics); a mode's
``ModeEquations`` are then stacked from it without rebuilding a row. ``mode_equations``
is the one-off form.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactmodes.modes.contact_conditions import classify_velocities, validate_mode
from contactmodes.model.system import ContactSystem

__all__ = ["EquationBank", "ModeEquations", "mode_equations"]


def _stack(pieces, width: int) -> np.ndarray:
    """The rows ``pieces`` as a ``(len(pieces), width)`` float array (``(0, width)`` when empty)."""
    return np.array(pieces, dtype=float).reshape(len(pieces), width)


@dataclass
class ModeEquations:
    """The linear constraints of one mode (eqs. 24 and 32). ``n = n_q + n_f``, ``n_f = n_components · k`` (planar ``2k``).

    Attributes
    ----------
    mode : str
        The mode string.
    A : numpy.ndarray
        ``(m, n)`` coefficients of ``[q̈; f]`` in the equalities ``A [q̈; f] = B τ + b``.
    B : numpy.ndarray
        ``(m, n_τ)``: the matrix ``B`` of the equalities.
    b : numpy.ndarray
        ``(m,)``: the right-hand side ``b`` of the equalities.
    eq_labels : list[str]
        ``(m,)`` human-readable row labels (e.g. ``"accel t c0"``, ``"dynamics q1"``).
    N : numpy.ndarray
        ``(p, n + n_τ)`` coefficients of ``[q̈; f; τ]`` in the inequalities ``N [q̈; f; τ] >= e``.
    e : numpy.ndarray
        ``(p,)``: the right-hand side ``e`` of the inequalities.
    ineq_labels : list[str]
        ``(p,)`` row labels.
    ineq_task : numpy.ndarray
        ``(p,)`` bool: the row is a task constraint (eqs. 17–18).
    n_q, n_f, n_tau : int
        Block sizes (``n_f = n_components · k``, planar ``2k``).
    """

    mode: str
    A: np.ndarray
    B: np.ndarray
    b: np.ndarray
    eq_labels: list[str]
    N: np.ndarray
    e: np.ndarray
    ineq_labels: list[str]
    n_q: int
    n_f: int
    n_tau: int
    ineq_task: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def mode_equations(system: ContactSystem, mode: str, task: bool = True,
                   task_geq: bool | None = None) -> ModeEquations:
    """Assemble the equalities (24) and inequalities (32) of ``mode`` in the system's units.

    Every contact's rows are its contact model's (``system.contact_model.rows`` under the
    velocity pattern); the planar ones are listed below. Equalities, in this row order:

    1. acceleration (eq. 7), per contact: ``J_row q̈ = −(J̇q̇)_row`` (``F``: rows ``t``, ``n``;
       ``L``/``R``: row ``n``), then its direction rows ``(Σ_c a_c J_c) q̈ = −Σ_c a_c (J̇q̇)_c``
       (``accel_eq_dirs``: the spatial side letters);
    2. forces (eq. 8): ``S``: ``f_t = 0``, ``f_n = 0``; ``L``: ``f_t − μ f_n = 0``;
       ``R``: ``f_t + μ f_n = 0``;
    3. ``"eq"`` constraint blocks, physical then (if ``task``) task, in system order:
       ``[qdd, f] x = −tau τ + rhs``;
    4. dynamics (eq. 5): ``M q̈ − Jᵀ f = S τ − h``.

    Inequalities ``N [q̈; f; τ] >= e`` (not strict):

    1. acceleration (eq. 9), only where the velocity is zero (Table III classification):
       ``S``: ``ẍ_n >= 0``; ``L``: ``−ẍ_t >= 0``; ``R``: ``ẍ_t >= 0``; then the direction rows
       ``Σ_c a_c ẍ_c >= 0`` (``accel_geq_dirs``: the spatial side and vertex letters);
    2. forces (eq. 10 and Table I): ``F``: ``μ f_n − f_t >= 0``, ``μ f_n + f_t >= 0``,
       ``f_n >= 0``; ``L``, ``R``: ``f_n >= 0``;
    3. ``"geq"`` constraint blocks, physical then task: ``[qdd, f, tau] >= rhs``.

    ``task_geq`` (default: ``task``) includes the task ``"geq"`` rows independently of the task
    ``"eq"`` rows; ``ineq_task`` marks them (the session keeps one domain with a task mask).

    Parameters
    ----------
    system : ContactSystem
        The system at its state (any consistent units; the analysis passes the scaled,
        nondimensional system of ``contactmodes.model.scaling``).
    mode : str
        One letter of the contact model's ``letters`` per contact (planar ``"FSLR"``).
    task : bool, optional
        Include the task ``"eq"`` blocks (eqs. 15–16).
    task_geq : bool, optional
        Include the task ``"geq"`` blocks (eqs. 17–18); ``None``: as ``task``.

    Returns
    -------
    ModeEquations
        ``A``, ``B``, ``b`` (eq. 24) and ``N``, ``e`` (eq. 32), in the units of ``system``.

    Raises
    ------
    ContactModelError
        When ``mode`` is not a mode of the system (``validate_mode``).
    """
    validate_mode(mode, system.contacts, letters=system.contact_model.letters)
    return EquationBank(system, task, task_geq, letters=mode).equations(mode)


class EquationBank:
    """The rows of ``mode_equations`` for every contact and letter of ``system``, built once;
    ``equations`` stacks a mode's ``ModeEquations`` from them (same rows, same order,
    same labels). Arguments as ``mode_equations``; ``letters`` (one mode string), when given,
    builds only that letter's rows per contact (a one-off mode: ``equations`` then serves that
    mode only).

    Parameters
    ----------
    system : ContactSystem
        The system at its state (the analysis passes the scaled, nondimensional one).
    task : bool, optional
        Include the task ``"eq"`` blocks (eqs. 15–16).
    task_geq : bool, optional
        Include the task ``"geq"`` blocks (eqs. 17–18); ``None``: as ``task``.
    letters : str, optional
        One mode string: build only its letter's rows per contact; ``None``: every letter.

    Raises
    ------
    ContactModelError
        For a letter not in the contact model's ``letters`` in ``letters`` (or one whose rows the
        model cannot build at this state, e.g. the spatial ``D`` at a contact at rest); a mode
        given later to ``equations`` raises the same when one of its letters is first built.
    """

    def __init__(self, system: ContactSystem, task: bool = True, task_geq: bool | None = None,
                 letters: str | None = None) -> None:
        task_geq = task if task_geq is None else task_geq
        self.system = system
        n_q, n_tau = system.n_q, system.n_tau
        self.n_q, self.n_tau, self.n_f = n_q, n_tau, system.n_f
        n = n_q + system.n_f
        J = system.J
        self._pattern = classify_velocities(system, check_approaching=False)
        # per contact and letter, built on first use (``_letter``):
        # (A_acc, b_acc, lab_acc), (A_f, lab_f), (N_acc, e_acc, lab), (N_f, lab)
        self._contact: list[dict[str, tuple]] = [{} for _ in range(system.k)]
        if letters is not None:
            for i, letter in enumerate(letters):
                self._letter(i, letter)
        blocks = [(blk, blk.kind == "task") for kind in ("physical", "task") for blk in system.constraints
                  if blk.kind == kind]
        A_rows, B_rows, b_rows, eq_labels = [], [], [], []
        for blk, is_task in blocks:  # 3. equality blocks (11), (12), (15), (16)
            if blk.type == "eq" and (task or not is_task):
                for j in range(blk.n_rows):
                    A_rows.append(np.concatenate([blk.qdd[j], blk.f[j]]))
                    B_rows.append(-blk.tau[j])
                    b_rows.append(blk.rhs[j])
                    eq_labels.append(f"{blk.kind} {blk.name or 'eq'} [{j}]")
        for j in range(n_q):  # 4. dynamics (5)
            A_rows.append(np.concatenate([system.M[j], -J[:, j]]))
            B_rows.append(system.S[j])
            b_rows.append(-system.h[j])
            eq_labels.append(f"dynamics {system.coordinates[j]}")
        self._fixed_eq = (_stack(A_rows, n), _stack(B_rows, n_tau), np.array(b_rows, dtype=float), eq_labels)
        N_rows, e_rows, ineq_labels, ineq_task = [], [], [], []
        for blk, is_task in blocks:  # 3. inequality blocks (13), (14), (17), (18)
            if blk.type == "geq" and (task_geq or not is_task):
                for j in range(blk.n_rows):
                    N_rows.append(np.concatenate([blk.qdd[j], blk.f[j], blk.tau[j]]))
                    e_rows.append(blk.rhs[j])
                    ineq_labels.append(f"{blk.kind} {blk.name or 'geq'} [{j}]")
                    ineq_task.append(is_task)
        self._fixed_geq = (_stack(N_rows, n + n_tau), np.array(e_rows, dtype=float), ineq_labels,
                           np.array(ineq_task, dtype=bool))

    def _letter(self, i: int, letter: str) -> tuple:
        """The rows of contact ``i`` in ``letter`` (the model's ``rows`` under the velocity
        pattern), built once: equalities on ``[q̈; f]`` and inequalities on ``[q̈; f; τ]``.

        Component rows (``accel_eq``, ``accel_geq``) take row ``c`` of the contact's block of
        ``J`` and ``J̇ q̇``; direction rows (``accel_eq_dirs``, ``accel_geq_dirs``) the
        combination ``Σ_c a_c`` of the block's rows, after the component rows of their kind.
        """
        per = self._contact[i]
        if letter in per:
            return per[letter]
        system = self.system
        model, nc, n_q, n_tau = system.contact_model, system.n_components, self.n_q, self.n_tau
        n = n_q + self.n_f
        lo = nc * i
        Jb, cb = system.J[lo:lo + nc], system.Jdot_qdot[lo:lo + nc]
        name = system.contacts[i]
        comp = model.components
        r = model.rows(letter, float(system.mu[i]), *self._pattern.args(i))

        def force(coeffs) -> np.ndarray:
            v = np.zeros(n)
            v[n_q + lo:n_q + lo + nc] = coeffs
            return v

        rows = _stack

        def dot(d, block):
            return np.asarray(d, dtype=float) @ block

        def expr(d, sym):
            return " + ".join(f"{a:g} {sym}_{cn}" for a, cn in zip(d, comp))

        zf, zft = np.zeros(self.n_f), np.zeros(self.n_f + n_tau)
        acc = ([np.concatenate([Jb[cpt], zf]) for cpt in r.accel_eq]
               + [np.concatenate([dot(d, Jb), zf]) for d in r.accel_eq_dirs])
        b_acc = [-cb[cpt] for cpt in r.accel_eq] + [-dot(d, cb) for d in r.accel_eq_dirs]
        gacc = ([np.concatenate([sign * Jb[cpt], zft]) for cpt, sign in r.accel_geq]
                + [np.concatenate([dot(d, Jb), zft]) for d in r.accel_geq_dirs])
        e_acc = [-sign * cb[cpt] for cpt, sign in r.accel_geq] + [-dot(d, cb) for d in r.accel_geq_dirs]
        per[letter] = (
            rows(acc, n), np.array(b_acc, dtype=float),
            [f"accel {comp[cpt]} {name}" for cpt in r.accel_eq] + [f"accel ({expr(d, 'a')} = 0) {name}"
                                                                   for d in r.accel_eq_dirs],
            rows([force(a) for a in r.force_eq], n), [f"force {name} ({expr(a, 'f')} = 0)" for a in r.force_eq],
            rows(gacc, n + n_tau), np.array(e_acc, dtype=float),
            [f"accel {comp[cpt]} {name} {'>=' if sign > 0 else '<='} 0" for cpt, sign in r.accel_geq]
            + [f"accel ({expr(d, 'a')} >= 0) {name}" for d in r.accel_geq_dirs],
            rows([np.concatenate([force(a), np.zeros(n_tau)]) for a in r.force_geq], n + n_tau),
            [f"force {name} ({expr(a, 'f')} >= 0)" for a in r.force_geq],
        )
        return per[letter]

    def contact_letter_rows(self, i: int, letter: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Contact ``i``'s rows in ``letter`` as they enter ``equations``: equalities ``E [q̈; f] =
        e`` (its acceleration rows, eq. 7, then its force rows, eq. 8) and inequalities ``G [q̈; f;
        τ] >= g`` (acceleration, eq. 9, then force, eq. 10), built once.

        Parameters
        ----------
        i : int
            The contact's index.
        letter : str
            One of the contact model's letters.

        Returns
        -------
        tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]
            ``E`` ``(p, n)``, ``e`` ``(p,)``, ``G`` ``(r, n + n_τ)``, ``g`` ``(r,)`` with ``n = n_q + n_f``.

        Raises
        ------
        ContactModelError
            As ``equations`` for a letter the model cannot build at this state.
        """
        r = self._letter(i, letter)
        E = np.vstack([r[0], r[3]])
        e = np.concatenate([r[1], np.zeros(r[3].shape[0])])
        G = np.vstack([r[5], r[8]])
        g = np.concatenate([r[6], np.zeros(r[8].shape[0])])
        return E, e, G, g

    def mode_independent_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The rows every mode shares (constraint blocks and the dynamics, eq. 5): equalities
        ``A [q̈; f] = B τ + b`` and inequalities ``N [q̈; f; τ] >= e`` with their task mask.

        Returns
        -------
        tuple[numpy.ndarray, ...]
            ``A`` ``(m, n)``, ``B`` ``(m, n_τ)``, ``b`` ``(m,)``, ``N`` ``(p, n + n_τ)``, ``e``
            ``(p,)``, ``task`` ``(p,)`` bool (the row is a task constraint, eqs. 17–18).
        """
        A, B, b, _ = self._fixed_eq
        N, e, _, task = self._fixed_geq
        return A, B, b, N, e, task

    def equations(self, mode: str) -> ModeEquations:
        """The ``ModeEquations`` of ``mode`` (a valid mode of the system; not re-validated).

        Parameters
        ----------
        mode : str
            One letter per contact; with ``letters`` given to the bank, that mode only.

        Returns
        -------
        ModeEquations
            The same rows, order and labels as ``mode_equations``.
        """
        per = [self._letter(i, letter) for i, letter in enumerate(mode)]
        A_f, B_f, b_f, lab_f = self._fixed_eq
        N_f, e_f, glab_f, task_f = self._fixed_geq
        A_c = [p[0] for p in per] + [p[3] for p in per]
        m_c = sum(a.shape[0] for a in A_c)
        A = np.concatenate(A_c + [A_f])
        B = np.concatenate([np.zeros((m_c, self.n_tau)), B_f])
        b = np.concatenate([p[1] for p in per] + [np.zeros(m_c - sum(len(p[1]) for p in per)), b_f])
        N_c = [p[5] for p in per] + [p[8] for p in per]
        p_c = sum(x.shape[0] for x in N_c)
        N = np.concatenate(N_c + [N_f])
        e = np.concatenate([p[6] for p in per] + [np.zeros(p_c - sum(len(p[6]) for p in per)), e_f])
        eq_labels = [s for p in per for s in p[2]] + [s for p in per for s in p[4]] + lab_f
        ineq_labels = [s for p in per for s in p[7]] + [s for p in per for s in p[9]] + glab_f
        return ModeEquations(mode=mode, A=A, B=B, b=b, eq_labels=eq_labels, N=N, e=e,
                             ineq_labels=ineq_labels, n_q=self.n_q, n_f=self.n_f, n_tau=self.n_tau,
                             ineq_task=np.concatenate([np.zeros(p_c, dtype=bool), task_f]))
