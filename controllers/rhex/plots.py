"""Flip metrics, pictures and animation (flipping paper, Sec. IV-C, Figs. 10/13/14/15, Table V).

Metrics
-------
* :func:`simulated_pitch_accel` — the simulated pitch acceleration, computed from the recorded
  trajectory as the finite difference of the pitch rate at the control rate,
  ``a_k = (θ̇(t_{k+1}) − θ̇(t_k)) / (t_{k+1} − t_k)``: the *exact mean* pitch acceleration over
  control period ``k``. No further filter: the mean over the 1 ms hold is already a box filter
  matched to the controller's zero-order hold, and the compliant simulator's θ̇ is smooth at that
  scale (its fastest body mode is ≈ 7 Hz); a wider filter would smear the model switches that
  Figs. 10–14 are meant to show.
* :func:`thrust_phase` / :func:`rmse_pitch_accel` — Table V. The paper defines
  ``RMSE = ((1/t_f) ∫_0^{t_f} (α̈̂(t) − α̈(t))² dt)^{1/2}`` (Sec. IV-C.4) without saying what
  ``t_f`` is. **Our reading:** ``t_f`` is the end of the *thrust phase* — the end of the last
  control step at which the controller thrusts and therefore predicts (``predicted_pitch_acc``
  finite; both controllers stop, and stop predicting, at ``params.thrust_stop_pitch``). After it
  the controllers command zero torque and make no prediction, so there is nothing to compare.
  With the controller's zero-order hold the prediction ``α̈̂`` is constant over each control
  period, and we compare it with the simulated mean over that period, so the integral is the
  duration-weighted sum over the thrust steps (the plain mean for the fixed control rate). A step
  inside the thrust phase without a prediction (none occur with our controllers) is left out of
  both the integral and ``t_f``.
* :func:`mode_timeline` — the run as segments of constant (simulated mode, controller mode).

Pictures (matplotlib, Agg backend, headless)
--------------------------------------------
* :func:`plot_run` — Figs. 10/13/14: predicted vs simulated pitch acceleration above (thrust
  phase shaded, flip time marked); below, one row per contact (body, toe1 rear, toe2, toe3 front)
  with the simulated mode as a wide bar and the controller's assumed mode as a thin bar under it,
  one colour per letter.
* :func:`plot_pitch` — Fig. 15: pitch against time for several runs on one axis.
* :func:`animate` — a GIF (matplotlib's ``PillowWriter``) of the body, hips, legs, toes and
  ground, at most ``max_frames`` evenly subsampled frames.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from .simulator import SimulationResult, body_corners, leg_kinematics

__all__ = [
    "simulated_pitch_accel",
    "thrust_phase",
    "rmse_pitch_accel",
    "rmse_weighted",
    "mode_timeline",
    "plot_run",
    "plot_pitch",
    "animate",
]

LETTER_COLOURS = {"S": "#d0d0d0", "F": "#2ca02c", "L": "#1f77b4", "R": "#d62728"}
LETTER_MEANING = {"S": "S separating", "F": "F fixed", "L": "L sliding −x", "R": "R sliding +x"}
CONTACT_LABELS = ("body", "toe 1 (rear)", "toe 2 (middle)", "toe 3 (front)")
TIME_DECIMALS = 6  # mode-timeline times are rounded to 1 µs (the control grid is 1 ms)


def simulated_pitch_accel(result: SimulationResult) -> np.ndarray:
    """(N,) simulated pitch acceleration (rad/s²) per control step, from the recorded trajectory.

    ``(θ̇_{k+1} − θ̇_k) / (t_{k+1} − t_k)`` with ``θ̇ = result.states[:, 5]`` (N+1,) and
    ``result.times`` (N+1,) s: the exact mean over each control period (module docstring).
    Raises ``ValueError`` when ``times`` and ``states`` do not match or ``times`` does not increase.
    """
    times = np.asarray(result.times, dtype=float)
    omega = np.asarray(result.states, dtype=float)[:, 5]
    if times.shape != omega.shape:
        raise ValueError(f"result: times {times.shape} and states {omega.shape} rows differ")
    dt = np.diff(times)
    if np.any(dt <= 0):
        raise ValueError("result.times: must be strictly increasing")
    return np.diff(omega) / dt


def thrust_phase(result: SimulationResult) -> int:
    """Number ``n_f`` of control steps in the thrust phase: steps ``0 … n_f − 1``, ending at the
    last step with a finite ``predicted_pitch_acc`` (0 when there is none); ``t_f =
    result.times[n_f]`` (s). Our reading of the paper's ``t_f`` (Sec. IV-C.4, module docstring)."""
    pred = np.asarray(result.predicted_pitch_acc, dtype=float)
    idx = np.nonzero(np.isfinite(pred))[0]
    return int(idx[-1]) + 1 if idx.size else 0


def rmse_weighted(predicted, simulated, durations) -> float | None:
    """``(Σ w_k (p_k − a_k)² / Σ w_k)^{1/2}`` over the steps where both are finite.

    ``predicted``, ``simulated``, ``durations`` (N,) — rad/s², rad/s², s (the weights ``w_k``).
    The integral of the paper's RMSE for piecewise-constant signals. ``None`` when no step
    qualifies. Raises ``ValueError`` on shape mismatch or a negative duration.
    """
    p = np.asarray(predicted, dtype=float)
    a = np.asarray(simulated, dtype=float)
    w = np.asarray(durations, dtype=float)
    if not (p.shape == a.shape == w.shape) or p.ndim != 1:
        raise ValueError(f"predicted, simulated, durations: need equal (N,) shapes, got {p.shape}, {a.shape}, {w.shape}")
    if np.any(w < 0):
        raise ValueError("durations: must be >= 0")
    mask = np.isfinite(p) & np.isfinite(a) & (w > 0)
    if not np.any(mask):
        return None
    return float(math.sqrt(np.sum(w[mask] * (p[mask] - a[mask]) ** 2) / np.sum(w[mask])))


def rmse_pitch_accel(result: SimulationResult, skip: int = 0) -> float | None:
    """Table V's RMSE (rad/s²) of predicted minus simulated pitch acceleration over the thrust
    phase (flipping paper, Sec. IV-C.4; our reading of ``t_f`` in the module docstring).

    Uses ``result.times`` (N+1,), ``result.states`` (N+1, 18) and ``result.predicted_pitch_acc``
    (N,) only (any object with these attributes works). ``skip`` (diagnostic, default 0 = the
    paper's definition): leave the first ``skip`` control steps out of the window — from the flat
    start the compliant legs carry no load, and the first 1 ms step's simulated θ̈ overshoots
    every rigid prediction by ≈ 100 rad/s², which alone makes up about half of the mean square.
    ``None`` when no step is left. Raises ``ValueError`` on inconsistent shapes or ``skip < 0``.
    """
    if skip < 0:
        raise ValueError(f"skip: must be >= 0, got {skip}")
    sim = simulated_pitch_accel(result)
    pred = np.asarray(result.predicted_pitch_acc, dtype=float)
    if pred.shape != sim.shape:
        raise ValueError(f"result.predicted_pitch_acc: expected shape {sim.shape}, got {pred.shape}")
    n_f = thrust_phase(result)
    dt = np.diff(np.asarray(result.times, dtype=float))
    return rmse_weighted(pred[skip:n_f], sim[skip:n_f], dt[skip:n_f])


def mode_timeline(result: SimulationResult) -> list[dict]:
    """The run as a list of segments ``{"t0", "t1", "simulated", "controller"}``.

    Consecutive control steps with the same simulated mode (4 letters body/toe1/toe2/toe3, as
    :func:`~.simulator.simulate` records it over each step) and the same controller mode (4
    letters, or ``None`` when the controller assumed none, e.g. after the thrust phase) are merged;
    ``t0``/``t1`` (s, rounded to 1 µs) are the start of the first and the end of the last step,
    so segments tile ``[0, result.times[-1]]`` without gaps.
    """
    out: list[dict] = []
    times = np.asarray(result.times, dtype=float)
    for i, (sim, ctl) in enumerate(zip(result.sim_modes, result.controller_modes)):
        t0, t1 = round(float(times[i]), TIME_DECIMALS), round(float(times[i + 1]), TIME_DECIMALS)
        if out and out[-1]["simulated"] == sim and out[-1]["controller"] == ctl:
            out[-1]["t1"] = t1
        else:
            out.append({"t0": t0, "t1": t1, "simulated": sim, "controller": ctl})
    return out


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _letter_runs(times: np.ndarray, modes: Sequence, row: int):
    """Maximal runs ``(t0, width, letter)`` of contact ``row``'s letter (``None`` mode → skipped)."""
    runs, start, cur = [], None, None
    for i in range(len(modes) + 1):
        letter = None if i == len(modes) or modes[i] is None else modes[i][row]
        if letter != cur:
            if cur is not None:
                runs.append((times[start], times[i] - times[start], cur))
            start, cur = i, letter
    return runs


def plot_run(result: SimulationResult, path: str, title: str = "") -> None:
    """Figs. 10/13/14 for one run, written as a PNG at ``path``.

    Above: controller prediction and simulated pitch acceleration (:func:`simulated_pitch_accel`)
    against time, the thrust phase (the RMSE window) shaded and the flip time dashed. Below: per
    contact, the simulated mode (wide bar) and the controller's mode (thin bar under it).
    Raises ``ValueError`` for an empty run; I/O errors from matplotlib propagate.
    """
    n = len(result.sim_modes)
    if n == 0:
        raise ValueError("plot_run: the run has no control steps")
    plt = _pyplot()
    from matplotlib.patches import Patch

    times = np.asarray(result.times, dtype=float)
    sim = simulated_pitch_accel(result)
    n_f = thrust_phase(result)
    rmse = rmse_pitch_accel(result)
    fig, (ax, axm) = plt.subplots(2, 1, figsize=(8.5, 6.4), sharex=True,
                                  gridspec_kw={"height_ratios": [2.0, 1.3]})
    # step plots: each value holds over its control period
    ax.step(times, np.append(sim, sim[-1]), where="post", color="k", lw=1.0,
            label=r"simulated $\ddot\theta$ (mean over each control period)")
    pred = np.asarray(result.predicted_pitch_acc, dtype=float)
    ax.step(times, np.append(pred, pred[-1]), where="post", color="C1", lw=1.6,
            label=r"predicted $\ddot\theta$ (controller model)")
    if n_f:
        lab = "thrust phase" + (f" (RMSE {rmse:.2f} rad/s²)" if rmse is not None else "")
        ax.axvspan(times[0], times[n_f], color="C1", alpha=0.08, label=lab)
    if result.flip_time is not None:
        for a in (ax, axm):
            a.axvline(result.flip_time, color="k", ls="--", lw=0.8)
        ax.text(result.flip_time, 0.02, "flip ", transform=ax.get_xaxis_transform(), ha="right", va="bottom",
                fontsize=8)
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.set_ylabel("pitch acceleration (rad/s²)")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    for row in range(4):
        y = 3 - row
        for t0, w, letter in _letter_runs(times, result.sim_modes, row):
            axm.broken_barh([(t0, w)], (y - 0.05, 0.45), facecolors=LETTER_COLOURS.get(letter, "w"))
        for t0, w, letter in _letter_runs(times, result.controller_modes, row):
            axm.broken_barh([(t0, w)], (y - 0.35, 0.22), facecolors=LETTER_COLOURS.get(letter, "w"),
                            edgecolor="k", linewidth=0.3)
    axm.set_yticks(range(4))
    axm.set_yticklabels(CONTACT_LABELS[::-1])
    axm.set_ylim(-0.5, 3.55)
    axm.set_xlim(times[0], times[-1])
    axm.set_xlabel("time (s)")
    axm.set_title("contact modes: simulated (wide bar) / controller (thin bar)", fontsize=9)
    axm.legend(handles=[Patch(facecolor=c, edgecolor="k", linewidth=0.3, label=LETTER_MEANING[k])
                        for k, c in LETTER_COLOURS.items()],
               ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), frameon=False)
    fig.suptitle(title or "flip: predicted vs simulated pitch acceleration; contact modes")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def plot_pitch(runs: Mapping[str, SimulationResult], path: str,
               styles: Mapping[str, Mapping] | None = None, title: str = "") -> None:
    """Fig. 15: pitch (deg) against time (s) for each labelled run, PNG at ``path``.

    ``runs``: label → result (``result.times`` (N+1,), ``result.pitch`` (N+1,) rad); each run's
    flip time is marked with a dot. ``styles``: optional label → matplotlib line keyword
    arguments, e.g. ``{"ls": "--", "color": "C1"}`` (the paper: blind solid, new controller
    dashed). Raises ``ValueError`` when ``runs`` is empty.
    """
    if not runs:
        raise ValueError("plot_pitch: no runs")
    plt = _pyplot()
    styles = styles or {}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, res in runs.items():
        kw = {"lw": 1.5, **dict(styles.get(label, {}))}
        flip = f", flip {res.flip_time:.3f} s" if res.flip_time is not None else f", {res.outcome}"
        (line,) = ax.plot(res.times, np.degrees(res.pitch), label=label + flip, **kw)
        if res.flip_time is not None:
            ax.plot([res.flip_time], [90.0], "o", color=line.get_color(), ms=4)
    ax.axhline(90.0, color="k", ls=":", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("pitch (deg)")
    ax.set_title(title or "pitch during flipping (Fig. 15)", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def animate(result: SimulationResult, path: str, max_frames: int = 80, fps: int = 20) -> None:
    """A GIF of the run at ``path``: body rectangle, hips, legs (hip → toe), toes (coloured by
    their simulated contact letter), ground line; at most ``max_frames`` frames evenly subsampled
    from ``result.states`` (N+1, 18), played at ``fps``. Needs ``result.params``.
    Raises ``ValueError`` for ``max_frames < 2`` or ``fps < 1``."""
    if max_frames < 2 or fps < 1:
        raise ValueError(f"animate: need max_frames >= 2 and fps >= 1, got {max_frames}, {fps}")
    plt = _pyplot()
    from matplotlib.animation import PillowWriter
    from matplotlib.patches import Polygon

    p = result.params
    states = np.asarray(result.states, dtype=float)
    n_pts = len(result.times)
    idx = np.unique(np.linspace(0, n_pts - 1, min(max_frames, n_pts)).round().astype(int))
    # extent over the whole run: body corners and toes
    pts = [body_corners(states[i], p) for i in idx] + [states[i, 6:12].reshape(3, 2) for i in idx]
    allp = np.vstack(pts)
    x0, x1 = allp[:, 0].min() - 0.05, allp[:, 0].max() + 0.05
    y1 = max(allp[:, 1].max() + 0.05, 0.3)
    fig, ax = plt.subplots(figsize=(5.5, 5.0 * (y1 + 0.06) / (x1 - x0) + 0.8))
    ax.set_xlim(x0, x1)
    ax.set_ylim(-0.06, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.locator_params(nbins=5)  # fewer tick labels: text dominates the per-frame drawing time
    ax.axhspan(-0.06, 0.0, color="0.85", zorder=0)
    ax.axhline(0.0, color="k", lw=1.2, zorder=1)
    body = Polygon(np.zeros((4, 2)), closed=True, facecolor="#9ecae1", edgecolor="#08519c", lw=1.5, zorder=2)
    ax.add_patch(body)
    legs = [ax.plot([], [], color="0.2", lw=2.0, zorder=3)[0] for _ in range(3)]
    (hips,) = ax.plot([], [], "o", color="#08519c", ms=4, zorder=4)
    toes = ax.scatter(np.zeros(3), np.zeros(3), s=30, zorder=5, edgecolors="k", linewidths=0.5)
    label = ax.text(0.02, 0.97, "", transform=ax.transAxes, fontsize=8, va="top", family="monospace")
    ax.text(0.5 * (x0 + x1), -0.03, "toe colour = contact letter: S grey, F green, L blue, R red", fontsize=7,
            ha="center", va="center")
    fig.tight_layout()
    modes = list(result.sim_modes)

    def draw(k):
        i = idx[k]
        st = states[i]
        body.set_xy(body_corners(st, p))
        kin = leg_kinematics(st, p)
        toe = st[6:12].reshape(3, 2)
        for j, line in enumerate(legs):
            line.set_data([kin.hip[j, 0], toe[j, 0]], [kin.hip[j, 1], toe[j, 1]])
        hips.set_data(kin.hip[:, 0], kin.hip[:, 1])
        toes.set_offsets(toe)
        mode = modes[min(i, len(modes) - 1)] if modes else "????"
        toes.set_facecolors([LETTER_COLOURS.get(ch, "w") for ch in mode[1:]])
        label.set_text(f"t = {result.times[i]:.3f} s  pitch = {math.degrees(st[2]):5.1f}°\n"
                       f"simulated mode {mode} (body, toes 1-3)")
        return [body, *legs, hips, toes, label]

    # one full draw per frame (FuncAnimation.save would draw each frame three times)
    writer = PillowWriter(fps=fps)
    try:
        with writer.saving(fig, path, dpi=80):
            for k in range(len(idx)):
                draw(k)
                writer.grab_frame()
    finally:
        plt.close(fig)
