"""The robustness layer (issue 39): the examples' analyses again, on inputs a few ulps away and on
other BLAS kernels, compared with the reference run within the documented tolerances.

A *run* analyses one example (``facts``) by one projection method: the kinematically feasible
modes, and for each of them the rank case of its response, whether ``D_c`` is feasible, and
``T_c`` over the scaled torques. Runs vary

* the input: every float of the system file multiplied by ``1 + k·eps``, ``k`` drawn from
  ``-K_ULPS .. K_ULPS`` with a seed (``perturbed``): masses, lengths, the state, μ, the task's
  values;
* the BLAS kernel, in a child process (``OPENBLAS_CORETYPE`` must be set before OpenBLAS loads):
  ``other_cores`` picks cores this CPU runs other than the one OpenBLAS chose, with
  ``OPENBLAS_NUM_THREADS`` 1 or 2, and ``CONTACTMODES_THREADS=1`` (``child_facts``);
* the method: the default (``auto``) and ``exact``.

``disagreements`` compares a run with the reference (the unperturbed default run in this
process): the same kinematic modes, rank cases and feasibility; for each feasible mode the same
``T_c`` within ``SET_TOL`` (the projection check's ``PROJECTION_CHECK_TOL``): the same affine
dimension, the same boundedness and supports within the tolerance along the axes, random
directions and both sets' facet normals, and vertex sets within the tolerance of each other. A
decision that differs is accepted only where an independent oracle at the run's own state
(``_support.oracle``, Tables I–III written out directly) finds it on its tolerance boundary;
``oracle_disagreements`` checks each run's sets against that oracle at points inside and
outside them.

Run as a script it prints a child's facts as JSON::

    python tests/_support/robustness.py FILE [--seed S]
"""

from __future__ import annotations

import copy
import ctypes
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import highspy
import numpy as np
from scipy.optimize import linprog

if __name__ == "__main__":  # as a script: the repository and tests/ importable, as under pytest
    sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1])]

from _support.oracle import kinematically_ok, mode_rows, oracle_slack  # noqa: E402
from _support import spatial_oracle  # noqa: E402
from _support.paths import EXAMPLES, ROOT  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402
from contactmodes.errors import ApproachingContactError, SystemFileError  # noqa: E402
from contactmodes.system_file.loader import parse_system  # noqa: E402
from polytopes import Polytope, tolerances as ptol  # noqa: E402

METHODS = ("auto", "exact")
K_ULPS = 4
#: sets agree when their supports differ by at most this times ``max(scale, |h|)`` (the check
#: every default projection passes against its own input, ``polytopes.tolerances``)
SET_TOL = ptol.PROJECTION_CHECK_TOL
#: a decision (feasibility, a kinematic test) that differs between two runs is legitimate when
#: the oracle's slack at the run's state is within this times the state's scale of zero
DECISION_TOL = 1e-6
#: the OpenBLAS cores tried, each with the CPU flag it needs (Linux ``/proc/cpuinfo``): Haswell
#: first (the kernels of the AMD machine of issue 39), then the oldest (no AVX). NumPy's OpenBLAS
#: builds no Prescott core (``OPENBLAS_CORETYPE=Prescott`` runs its generic "Katmai" one), so
#: Nehalem stands for the SSE-only kernels.
CORES = (("Haswell", "avx2"), ("Nehalem", "sse4_2"), ("SandyBridge", "avx"), ("SkylakeX", "avx512f"))
N_DIRECTIONS = 6


# ------------------------------------------------------------------------------ the inputs ----
#: the largest example (kinematically feasible modes) the full layer runs
MAX_MODES = 1000


def example_files() -> list[Path]:
    """Every example system file the analysis reads (``analyze`` refuses the others: contacts
    approaching or lifted at the file's state, which ``impact`` and ``simulate`` read) with at
    most ``MAX_MODES`` kinematically feasible modes (Solo-12 standing has 10^4: its facts under
    every perturbation and kernel would take hours; issue 40's scale work covers it)."""
    out = []
    for path in sorted(EXAMPLES.rglob("*.toml")):
        try:
            n_modes = len(AnalysisSession(load(path)).enumeration.modes)
        except (SystemFileError, ApproachingContactError):
            continue
        if n_modes <= MAX_MODES:
            out.append(path)
    return out


def _perturb(value, rng):
    if isinstance(value, bool) or not isinstance(value, (float, dict, list)):
        return value
    if isinstance(value, float):
        return float(value * (1.0 + int(rng.integers(-K_ULPS, K_ULPS + 1)) * np.finfo(float).eps))
    if isinstance(value, dict):
        return {k: _perturb(v, rng) for k, v in value.items()}
    return [_perturb(v, rng) for v in value]


def perturbed(doc: dict, seed: int | None) -> dict:
    """``doc`` with every float multiplied by ``1 + k·eps`` (``k`` uniform in ``-K_ULPS ..
    K_ULPS``, drawn in document order from ``seed``); ``doc`` itself when ``seed`` is ``None``."""
    if seed is None:
        return doc
    return _perturb(copy.deepcopy(doc), np.random.default_rng(seed))


def load(path: Path, seed: int | None = None):
    """The ``ContactSystem`` of the example ``path`` (``mu`` intervals at their midpoint),
    perturbed by ``seed``."""
    doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    return parse_system(perturbed(doc, seed), source=str(path), mu_intervals=True).system


# ------------------------------------------------------------------------------ one run -------
def facts(system, method: str) -> dict:
    """One run (module docstring) as plain data: ``{"kinematic": [...], "modes": {mode:
    {"rank_case", "feasible", "T": [A, b, C, d] or None}}}``, ``T`` over the scaled torques."""
    session = AnalysisSession(system, method=method)
    kin = sorted(session.enumeration.modes)
    modes = {}
    for mode in kin:
        sol = session.mode(mode)
        feasible = bool(sol.feasible())
        T = sol.T_scaled() if feasible and system.n_tau else None
        modes[mode] = {"rank_case": int(sol.response_scaled().rank_case), "feasible": feasible,
                       "T": None if T is None else [T.A.tolist(), T.b.tolist(), T.C.tolist(), T.d.tolist()]}
    return {"kinematic": kin, "modes": modes}


def polytope(T) -> Polytope | None:
    return None if T is None else Polytope(*[np.asarray(x, dtype=float) for x in T])


# ------------------------------------------------------------------------------ BLAS cores ----
def corename() -> str | None:
    """The core OpenBLAS runs in this process (``openblas_get_corename`` of the library NumPy
    loaded), ``None`` without OpenBLAS."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", fh.read())))
    except OSError:
        return None
    for path in paths:
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename64_",
                     "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode().strip()
    return None


def other_cores() -> list[str]:
    """OpenBLAS cores this CPU can run (its flags in ``/proc/cpuinfo``) other than the one
    OpenBLAS picks here, in ``CORES`` order; empty off x86 Linux."""
    try:
        flags = set(re.findall(r"^flags\s*:\s*(.*)$", Path("/proc/cpuinfo").read_text(), re.M)[0].split())
    except (OSError, IndexError):
        return []
    here = (corename() or "").lower()
    return [core for core, flag in CORES if flag in flags and core.lower() != here]


def child_facts(path: Path, seed: int | None, env: dict[str, str]) -> dict:
    """``{"core": name, method: facts}`` of ``path`` (perturbed by ``seed``) computed in a child
    process with ``env`` added to this one's."""
    cmd = [sys.executable, str(Path(__file__).resolve()), str(path)] + ([] if seed is None else ["--seed", str(seed)])
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env}, cwd=ROOT, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


# ------------------------------------------------------------------------------ comparison ----
class _Supports:
    """``max u·x`` over ``{A x <= b, C x = d}`` (nonempty) by HiGHS directly, one model re-solved
    for each direction; ``inf`` when unbounded."""

    def __init__(self, P: Polytope):
        inf = highspy.kHighsInf
        n, M = P.dim, np.vstack([P.A, P.C])
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n, M.shape[0]
        lp.col_cost_ = np.zeros(n)
        lp.col_lower_, lp.col_upper_ = np.full(n, -inf), np.full(n, inf)
        lp.row_lower_ = np.concatenate([np.full(P.n_ineq, -inf), P.d])
        lp.row_upper_ = np.concatenate([P.b, P.d])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.arange(0, M.size + 1, max(n, 1), dtype=np.int32)[: M.shape[0] + 1]
        lp.a_matrix_.index_ = np.tile(np.arange(n, dtype=np.int32), M.shape[0])
        lp.a_matrix_.value_ = M.ravel()
        lp.sense_ = highspy.ObjSense.kMaximize
        self.n = n
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("presolve", "off")
        self.h.passModel(lp)

    def __call__(self, u: np.ndarray) -> float:
        self.h.changeColsCost(self.n, np.arange(self.n, dtype=np.int32), np.asarray(u, dtype=float))
        for presolve in ("off", "on"):  # a warm start may end "unknown": once more from scratch
            self.h.setOptionValue("presolve", presolve)
            self.h.run()
            status = self.h.getModelStatus()
            if status in (highspy.HighsModelStatus.kUnbounded, highspy.HighsModelStatus.kUnboundedOrInfeasible):
                return np.inf  # (the set is nonempty)
            if status == highspy.HighsModelStatus.kOptimal:
                return float(self.h.getInfo().objective_function_value)
            self.h.clearSolver()
        raise AssertionError(f"HiGHS: {self.h.modelStatusToString(status)} along {u.tolist()}")


class SetView:
    """A ``T_c`` of a run (``[A, b, C, d]``) with its supports (HiGHS) and vertices (cdd) computed
    once: a reference set is compared with many runs."""

    def __init__(self, T):
        self.raw = T
        self.P = polytope(T)
        self._h: dict[bytes, float] = {}
        self._lp: _Supports | None = None
        self._dim: int | None = None
        self._V: np.ndarray | None = None

    def support(self, u: np.ndarray) -> float:
        key = u.tobytes()
        if key not in self._h:
            if self._lp is None:
                self._lp = _Supports(self.P)
            self._h[key] = self._lp(u)
        return self._h[key]

    @property
    def dimension(self) -> int:
        if self._dim is None:
            self._dim = self.P.affine_dimension()
        return self._dim

    @property
    def vertices(self) -> np.ndarray:
        if self._V is None:
            self._V = self.P.vertices().vertices
        return self._V


def set_disagreement(P: SetView, Q: SetView) -> str | None:
    """Why ``P`` and ``Q`` (nonempty, same dimension) are not the same set within ``SET_TOL``, or
    ``None``: affine dimension, boundedness and supports along the axes, ``N_DIRECTIONS`` random
    directions (a fixed seed) and both sets' facet normals; then each vertex of one within the
    tolerance of a vertex of the other. Identical representations are the same set."""
    if P.raw == Q.raw:
        return None
    n = P.P.dim
    if P.dimension != Q.dimension:
        return f"affine dimension {P.dimension} vs {Q.dimension}"
    rng = np.random.default_rng(0)
    dirs = np.vstack([np.eye(n), -np.eye(n), rng.normal(size=(N_DIRECTIONS, n)), P.P.A, Q.P.A])
    hp = np.array([P.support(u) for u in dirs])
    hq = np.array([Q.support(u) for u in dirs])
    finite = np.concatenate([hp[np.isfinite(hp)], hq[np.isfinite(hq)]])
    scale = max(1.0, float(np.abs(finite).max(initial=0.0)))
    far = ptol.EFFECTIVELY_INFINITE * scale
    for u, a, b in zip(dirs, hp, hq):
        a, b = (np.inf if x > far else x for x in (a, b))
        if np.isinf(a) or np.isinf(b):
            if a != b:
                return f"boundedness along {np.round(u, 4).tolist()}: {a} vs {b}"
        elif abs(a - b) > SET_TOL * max(scale, abs(a)):
            return f"support along {np.round(u, 4).tolist()}: {a!r} vs {b!r}"
    Vp, Vq = P.vertices, Q.vertices
    if len(Vp) and len(Vq):
        dist = np.abs(Vp[:, None, :] - Vq[None, :, :]).max(axis=2)
        worst = max(dist.min(axis=1).max(), dist.min(axis=0).max())
        if worst > SET_TOL * scale:
            return f"vertex sets {worst:.3g} apart"
    elif len(Vp) != len(Vq):
        return f"{len(Vp)} vs {len(Vq)} vertices"
    return None


def _spatial(system) -> bool:
    """Whether ``system``'s contacts have three components (``_support.spatial_oracle``'s rows,
    the circumscribed square, in place of ``_support.oracle``'s planar Tables I–III)."""
    return tuple(system.contact_model.components) == ("t1", "t2", "n")


def _kinematically_ok(system, mode: str) -> bool:
    """The oracle's kinematic feasibility of ``mode`` (planar or spatial rows)."""
    if _spatial(system):
        return spatial_oracle.oracle_kinematic(system, mode) > 0.0
    return kinematically_ok(system, mode)


def _torque_slack(system, mode: str, tau) -> float | None:
    """The oracle's slack of ``mode`` at ``tau`` (planar: ``oracle_slack``; spatial:
    ``spatial_oracle.oracle_torque_slack``, ``-inf`` outside)."""
    if _spatial(system):
        return spatial_oracle.oracle_torque_slack(system, mode, tau)
    return oracle_slack(system, mode, tau)


def _mode_slack(system, mode: str) -> float | None:
    """``max σ`` over ``(τ, q̈, f)`` of the oracle's rows of ``mode`` (``oracle_slack`` with τ free):
    positive when the mode has a torque with slack, about 0 on the feasibility boundary,
    ``None`` when its equalities have no solution at all (and for a spatial system, whose
    feasibility flips are then all reported)."""
    if _spatial(system):
        return None
    n_tau = system.n_tau
    eqA, eqb0, geA, geb0 = mode_rows(system, mode, np.zeros(n_tau))
    cols = [mode_rows(system, mode, e) for e in np.eye(n_tau)]  # the rows are affine in τ
    Eb = np.column_stack([c[1] - eqb0 for c in cols]) if n_tau else np.zeros((len(eqb0), 0))
    Gb = np.column_stack([c[3] - geb0 for c in cols]) if n_tau else np.zeros((len(geb0), 0))
    nrm = np.linalg.norm(np.hstack([geA, Gb]), axis=1)
    nrm[nrm == 0] = 1.0
    nx = eqA.shape[1]
    # variables (x, τ, σ): eqA x − Eb τ = eqb0; −geA x + Gb τ + σ·nrm <= −geb0; σ <= 1; |τ| <= 1e6
    A_eq = np.hstack([eqA, -Eb, np.zeros((len(eqb0), 1))])
    A_ub = np.hstack([-geA, Gb, nrm[:, None]])
    cost = np.zeros(nx + n_tau + 1)
    cost[-1] = -1.0
    res = linprog(cost, A_ub=A_ub if len(geb0) else None, b_ub=-geb0 if len(geb0) else None, A_eq=A_eq,
                  b_eq=eqb0, bounds=[(None, None)] * nx + [(-1e6, 1e6)] * n_tau + [(None, 1.0)], method="highs")
    return None if res.status == 2 else float(-res.fun)


def _view(mode_facts: dict) -> SetView:
    """The ``SetView`` of a mode's ``T`` kept in its facts (a reference's, reused by every run)."""
    if "view" not in mode_facts:
        mode_facts["view"] = SetView(mode_facts["T"])
    return mode_facts["view"]


def disagreements(ref: dict, run: dict, system, label: str) -> list[str]:
    """What ``run`` (of ``system``, the run's own state) decides or computes otherwise than
    ``ref`` (module docstring), each a line starting with ``label``; decisions the oracle finds
    on their tolerance boundary at the run's state are not listed."""
    out = []
    scale = max(1.0, float(np.abs(system.h).max()))
    for mode in sorted(set(ref["kinematic"]) ^ set(run["kinematic"])):
        if _kinematically_ok(system, mode) != (mode in run["kinematic"]):
            out.append(f"{label} {mode}: kinematic feasibility {mode in ref['kinematic']} vs "
                       f"{mode in run['kinematic']}, the oracle says {not (mode in run['kinematic'])}")
    for mode in sorted(set(ref["kinematic"]) & set(run["kinematic"])):
        a, b = ref["modes"][mode], run["modes"][mode]
        if a["rank_case"] != b["rank_case"]:
            out.append(f"{label} {mode}: rank case {a['rank_case']} vs {b['rank_case']}")
        if a["feasible"] != b["feasible"]:
            sigma = _mode_slack(system, mode)
            if sigma is None or abs(sigma) > DECISION_TOL * scale:
                out.append(f"{label} {mode}: feasible {a['feasible']} vs {b['feasible']}, the oracle's "
                           f"slack {sigma}")
            continue
        if a["T"] is not None and b["T"] is not None:
            why = set_disagreement(_view(a), SetView(b["T"]))
            if why is not None:
                out.append(f"{label} {mode}: T_c differs: {why}")
    return out


def oracle_disagreements(run: dict, system, label: str, rng: np.random.Generator) -> list[str]:
    """``T_c`` of each feasible mode of ``run`` against the oracle at ``system`` (the run's state):
    a point deep inside (its Chebyshev center) and one outside each of up to two facets (moved
    past the facet by a tenth of the ball's radius, at least 1e-3 of the scale) must get the
    oracle's answer, unless the oracle's slack is within its tolerance of zero."""
    out = []
    tau_unit = AnalysisSession(system).scaling.tau
    scale = max(1.0, float(np.abs(system.h).max()))
    for mode, m in run["modes"].items():
        T = polytope(m["T"])
        if T is None:
            continue
        ball = T.chebyshev_center()
        points = [(ball.center, True)]
        step = max(0.1 * min(ball.radius, 1.0), 1e-3)
        for i in rng.permutation(T.n_ineq)[:2]:
            a = T.A[i] / np.linalg.norm(T.A[i])
            x = ball.center + a * ((T.b[i] - T.A[i] @ ball.center) / np.linalg.norm(T.A[i]) + step)
            points.append((x, False))
        for x, inside in points:
            sigma = _torque_slack(system, mode, x * tau_unit)
            if sigma is not None and (np.isnan(sigma) or abs(sigma) <= DECISION_TOL * scale):
                continue
            if (sigma is not None and sigma > 0) != inside:
                out.append(f"{label} {mode}: τ' = {np.round(x, 6).tolist()} {'in' if inside else 'outside'} "
                           f"T_c, the oracle's slack {sigma}")
    return out


def main(argv=None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="a child's facts as JSON (tests/_support/robustness.py)")
    ap.add_argument("file")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    system = load(Path(args.file), args.seed)
    doc = {"core": corename(), **{m: facts(system, m) for m in METHODS}}
    json.dump(doc, sys.stdout)


if __name__ == "__main__":
    main()
