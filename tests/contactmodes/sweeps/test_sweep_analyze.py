"""``sweep analyze`` against independent oracles (in this process, ``workers=0``).

* Two-link brace (bracing paper, set-up 1): the upper bound of ``T_FFF`` over the friction of all
  three contacts, against a static-equilibrium LP written here from hand kinematics.
* Painlevé rod: the inconsistent torques appear exactly when ``μ > 4/3`` while the end slides
  in ``−x``, never while it slides in ``+x``, and measure ``20 − M*`` in ``[−20, 20]`` with
  ``M* = −g√5/6`` (closed forms derived in the test docstrings).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from _support.paths import ROOT
import contactmodes
from contactmodes.cli import main
from contactmodes.sweeps import SweepError, run_sweep

BRACE = ROOT / "examples" / "two_link_brace.toml"
PAINLEVE = ROOT / "examples" / "painleve_rod.toml"
L, M_POINT, G = 0.127, 0.0849, 9.81  # two_link_brace.toml


def brace_geometry(params: dict) -> dict:
    """Symmetric brace at elbow angle θ1: θ = 90° − θ1/2, joint wall at x = L cos θ
    (as ``examples/sweep_brace_atlas.py``)."""
    theta = 90.0 - params["state.q.theta1_deg"] / 2.0
    return {"state.q.theta_deg": theta, "contacts.2.surface_point.0": L * math.cos(math.radians(theta))}


def static_tau_max(mu: float, theta1_deg: float) -> float:
    """sup of the elbow torque τ that an all-fixed (FFF) brace at rest can hold, by an LP.

    Kinematics by hand, q = (x, y, θ, θ1): base end p0 = (x, y), joint pj = p0 + L(cos θ, sin θ),
    tip pt = pj + L(cos(θ+θ1), sin(θ+θ1)); point masses m at all three. With all contacts fixed,
    the stacked contact Jacobian (6×4) has full column rank, so q̈ = 0 and the mode's equations
    are statics: e_θ1 τ + Σ_c J_cᵀ (f_t t_c + f_n n_c) − m g Σ_i ∂y_i/∂q = 0 with
    |f_t| <= μ f_n, f_n >= 0 (flipping paper Table I, mode F). Contacts: base (n = −x), tip
    (n = −x), joint (n = +x); t = (n_y, −n_x).
    """
    th = math.radians(90.0 - theta1_deg / 2.0)
    t1 = math.radians(theta1_deg)
    s, c, s2, c2 = math.sin(th), math.cos(th), math.sin(th + t1), math.cos(th + t1)
    J0 = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], float)
    Jj = np.array([[1, 0, -L * s, 0], [0, 1, L * c, 0]])
    Jt = np.array([[1, 0, -L * s - L * s2, -L * s2], [0, 1, L * c + L * c2, L * c2]])
    gravity = -M_POINT * G * (J0[1] + Jj[1] + Jt[1])
    frames = [(J0, (-1.0, 0.0)), (Jt, (-1.0, 0.0)), (Jj, (1.0, 0.0))]
    # unknowns z = (τ, f_t0, f_n0, f_t1, f_n1, f_t2, f_n2)
    A_eq = np.zeros((4, 7))
    A_eq[3, 0] = 1.0
    for i, (J, n) in enumerate(frames):
        n = np.array(n)
        t = np.array([n[1], -n[0]])
        A_eq[:, 1 + 2 * i] = J.T @ t
        A_eq[:, 2 + 2 * i] = J.T @ n
    A_ub = []
    for i in range(3):
        for sign in (1, -1):
            row = np.zeros(7)
            row[1 + 2 * i], row[2 + 2 * i] = sign, -mu
            A_ub.append(row)
    bounds = [(None, None)] + [(None, None), (0, None)] * 3
    res = linprog(-np.eye(7)[0], A_ub=np.array(A_ub), b_ub=np.zeros(6), A_eq=A_eq, b_eq=-gravity,
                  bounds=bounds, method="highs")
    if res.status == 3:
        return math.inf
    assert res.status == 0, res.message
    return float(res.x[0])


def test_brace_fff_upper_bound_matches_statics_and_grows_with_mu():
    """As μ grows every friction cone widens, so the set of (τ, f) satisfying the FFF statics
    only grows (the equations do not involve μ); T_FFF(μ) is nested and its upper bound moves
    monotonically towards zero (it is negative: the elbow must be driven to push the walls
    apart) and eventually to +∞ (wedging: any torque holds). Checked against the LP above at
    two elbow angles, the file's −90° and −120° (walls moved by ``derive``)."""
    mus = [0.1, 0.3, 0.6, 1.0]
    df = contactmodes.sweep("analyze", {"state.q.theta1_deg": [-90.0, -120.0], "contacts.*.mu": mus},
                            system=str(BRACE), modes=["FFF"], derive=brace_geometry, workers=0)
    assert df["ok"].all()
    for elbow, group in df.groupby("state.q.theta1_deg"):
        hi = group["FFF.T_hi.tau1"].to_numpy()
        expected = [static_tau_max(mu, elbow) for mu in group["contacts.*.mu"]]
        for got, want in zip(hi, expected):
            assert got == want if math.isinf(want) else got == pytest.approx(want, rel=1e-6, abs=1e-9)
        assert np.all(hi[1:] >= hi[:-1]), hi  # monotone in μ
        assert np.all(group["FFF.T_lo.tau1"] == -np.inf)
    assert np.isinf(df["FFF.T_hi.tau1"]).any() and np.isfinite(df["FFF.T_hi.tau1"]).any()


def test_unambiguous_measure_is_the_clipped_length_and_null_when_unbounded():
    """T*_FFF is a half-line (−∞, h] at these μ: its measure in the box [−1, 1] is the clipped
    length clip(h, −1, 1) + 1; without a box it is infinite (JSON null, table +inf)."""
    boxed = run_sweep("analyze", {"contacts.*.mu": [0.05, 0.3]}, system=BRACE, unambiguous=True,
                      inconsistency_box="-1:1", workers=0)
    for p in boxed.points:
        (lo, hi), = p["modes"]["FFF"]["unambiguous_box"]
        assert lo is None and hi < 0
        assert p["modes"]["FFF"]["unambiguous_measure"] == pytest.approx(min(max(hi, -1.0), 1.0) + 1.0, abs=1e-9)
    assert boxed.points[0]["modes"]["FFF"]["unambiguous_measure"] == pytest.approx(0.0, abs=1e-12)  # h < −1
    free = run_sweep("analyze", {"contacts.*.mu": [0.3]}, system=BRACE, unambiguous=True, workers=0)
    assert free.points[0]["modes"]["FFF"]["unambiguous_measure"] is None
    assert "inconsistent_measure" not in free.points[0]
    assert free.to_frame()["FFF.unambiguous_measure"].iloc[0] == math.inf
    assert "Infinity" not in free.dumps() and "NaN" not in free.dumps()


def test_painleve_inconsistency_appears_above_four_thirds_when_sliding_backwards():
    """Uniform rod (m = 1, ℓ = L/2 = 0.5, I = m L²/12), lower end on the ground at θ = atan 2.
    Free flight (S) needs a non-negative normal acceleration of the end: −g − ℓ cos θ M/I >= 0,
    i.e. M <= M* = −g I/(ℓ cos θ) = −g√5/6. Sliding with friction f_t = ±μ N the end's normal
    acceleration is N(1 + 3cos²θ ∓ 3μ sin θ cos θ)/m − g − ℓ cos θ M/I; for the end sliding in −x
    (``qdot.x < 0``, friction +x, mode L) the coefficient vanishes at μ = (1 + 3cos²θ)/(3 sin θ
    cos θ) = 4/3. Below it, L takes M >= M* and S the rest: no torque is inconsistent. Above,
    N >= 0 needs M <= M* too and every M > M* has no solution: measure 20 − M* in [−20, 20].
    Sliding in +x the coefficient 1 + 3cos²θ + 3μ sin θ cos θ > 0: never inconsistent."""
    m_star = -G * math.sqrt(5.0) / 6.0
    mus = [0.5, 1.0, 1.25, 1.45, 2.0, 3.0]
    res = run_sweep("analyze", {"contacts.0.mu": mus, "state.qdot.x": [-1.0, 1.0]}, system=PAINLEVE,
                    modes=["L", "R"], inconsistency_box="-20:20", workers=0)
    assert all(p["ok"] for p in res.points)
    for p in res.points:
        mu, v = p["params"]["contacts.0.mu"], p["params"]["state.qdot.x"]
        expected = 20.0 - m_star if (v < 0 and mu > 4.0 / 3.0) else 0.0
        assert p["inconsistent_measure"] == pytest.approx(expected, abs=1e-6), (mu, v)
        sliding = "L" if v < 0 else "R"
        assert sliding in p["feasible_modes"] and p["modes"][sliding]["feasible"]
        other = "R" if v < 0 else "L"  # sliding the other way is pruned by the velocity (Table III)
        assert p["modes"][other] == {"feasible": False, "kinematically_feasible": False, "bounding_box": None}


def test_json_document_and_table_agree(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["sweep", "analyze", str(PAINLEVE), "--vary", "contacts.0.mu=1,2", "--mode", "L",
                 "--unambiguous", "--inconsistency-box=-20:20", "--workers", "0", "--json",
                 "--output", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "contactmodes.sweep/1" and doc["kind"] == "analyze"
    assert doc["vary"] == {"contacts.0.mu": [1, 2]} and doc["scheduler"] == "serial" and doc["workers"] == 0
    assert doc["torques"] == ["M"] and doc["modes"] == ["L"]
    import pandas as pd

    df = pd.read_csv(out)
    assert list(df["contacts.0.mu"]) == [1, 2]
    for (_, row), p in zip(df.iterrows(), doc["points"]):
        (lo, hi), = p["modes"]["L"]["bounding_box"]
        assert row["L.T_lo.M"] == (-math.inf if lo is None else pytest.approx(lo))
        assert row["L.T_hi.M"] == (math.inf if hi is None else pytest.approx(hi))
        assert row["inconsistent_measure"] == pytest.approx(p["inconsistent_measure"])
        assert row["feasible_modes"] == " ".join(p["feasible_modes"])


def test_plots_line_and_heat_map(tmp_path):
    from contactmodes.sweeps.plot import plot_sweep

    line = run_sweep("analyze", {"contacts.0.mu": [0.5, 2.0]}, system=PAINLEVE, modes=["L"],
                     inconsistency_box="-20:20", workers=0)
    heat = run_sweep("analyze", {"contacts.0.mu": [0.5, 2.0], "state.qdot.x": [-1.0, 1.0]}, system=PAINLEVE,
                     modes=["L"], workers=0)
    for res, name in ((line, "line.png"), (heat, "heat.png")):
        plot_sweep(res, str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SweepError, match="two"):
        plot_sweep(run_sweep("analyze", {"contacts.0.mu": [1], "state.qdot.x": [-1.0], "gravity": [9.81]},
                             system=PAINLEVE, workers=0), str(tmp_path / "x.png"))


def test_derive_errors():
    with pytest.raises(SweepError, match="state.q.theta1_deg: both varied and derived"):
        run_sweep("analyze", {"state.q.theta1_deg": [-90.0]}, system=BRACE, workers=0,
                  derive=lambda p: {"state.q.theta1_deg": 1.0})
    with pytest.raises(SweepError, match=r"contacts.2.surface_point.0=0.0: contacts\[2\]"):
        run_sweep("analyze", {"state.q.theta1_deg": [-90.0]}, system=BRACE, workers=0,
                  derive=lambda p: {"contacts.2.surface_point.0": 0.0})


def test_brace_atlas_example_script(tmp_path):
    """``examples/sweep_brace_atlas.py`` on a 2 × 2 grid in this process: files written where told,
    and the wedging the atlas shows (T_FFF unbounded above at μ = 0.9, θ1 = −120°; bounded at −90°)."""
    import subprocess
    import sys

    import pandas as pd

    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "sweep_brace_atlas.py"), "--out", str(tmp_path),
                           "--mu", "0.3,0.9", "--elbow=-120,-90", "--workers", "0"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["brace_atlas.csv", "brace_atlas.png"]
    df = pd.read_csv(tmp_path / "brace_atlas.csv").set_index(["contacts.*.mu", "state.q.theta1_deg"])
    hi = df["FFF.T_hi.tau1"]
    assert hi[(0.9, -120)] == math.inf and math.isfinite(hi[(0.9, -90)]) and math.isfinite(hi[(0.3, -120)])
    for mu, elbow in df.index:
        assert hi[(mu, elbow)] == pytest.approx(static_tau_max(mu, elbow), rel=1e-6) or hi[(mu, elbow)] == math.inf
