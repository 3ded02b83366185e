"""Flip metrics, pictures and animation (flipping paper, Sec. IV-C, Figs. 10/13/14/15).

* :func:`rmse_pitch_accel` — the comparison metric of Table V: root mean square of the
  controller's predicted pitch acceleration minus the simulated one, over the *thrust phase*
  (our reading of Sec. IV-C: the control steps where the controller thrusts and makes a
  prediction, i.e. ``predicted_pitch_acc`` finite; the simulated value is the mean pitch
  acceleration over that control period, as :func:`~.simulator.simulate` records it).
* :func:`mode_timeline` — the run as segments of constant (simulated mode, controller mode).
* :func:`plot_run` — Figs. 10/13/14: predicted vs simulated pitch acceleration above, the
  simulated contact mode of the body and each toe below (one row each, one colour per letter).
* :func:`plot_pitch` — Fig. 15: pitch against time for several runs.
* :func:`animate` — a GIF of the body, legs, toes and ground (matplotlib's Pillow writer).

Matplotlib with the Agg backend (headless).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .simulator import SimulationResult, body_corners, leg_kinematics

__all__ = ["rmse_pitch_accel", "mode_timeline", "plot_run", "plot_pitch", "animate"]

LETTER_COLOURS = {"S": "#d9d9d9", "F": "#2ca02c", "L": "#1f77b4", "R": "#d62728"}
CONTACT_LABELS = ("body", "toe1 (rear)", "toe2", "toe3 (front)")


def rmse_pitch_accel(predicted: np.ndarray, simulated: np.ndarray) -> float | None:
    """RMS of ``predicted − simulated`` (rad/s²) over the steps with a finite prediction.

    ``predicted``, ``simulated``: (N,) per control step. ``None`` when no step has a prediction.
    """
    predicted = np.asarray(predicted, dtype=float)
    simulated = np.asarray(simulated, dtype=float)
    if predicted.shape != simulated.shape:
        raise ValueError(f"predicted, simulated: shapes differ ({predicted.shape} vs {simulated.shape})")
    mask = np.isfinite(predicted) & np.isfinite(simulated)
    if not np.any(mask):
        return None
    return float(np.sqrt(np.mean((predicted[mask] - simulated[mask]) ** 2)))


def mode_timeline(result: SimulationResult) -> list[dict]:
    """Segments ``{"t0", "t1", "simulated", "controller"}`` (s, s, 4 letters, mode or ``None``)
    of consecutive control steps with the same simulated and controller modes."""
    out: list[dict] = []
    for i, (sim, ctl) in enumerate(zip(result.sim_modes, result.controller_modes)):
        t0, t1 = float(result.times[i]), float(result.times[i + 1])
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


def plot_run(result: SimulationResult, path: str, title: str = "") -> None:
    """Figs. 10/13/14 for one run, written as a PNG at ``path``."""
    plt = _pyplot()
    from matplotlib.patches import Patch

    n = len(result.sim_modes)
    t = result.times[:n]
    fig, (ax, axm) = plt.subplots(2, 1, figsize=(8, 6), sharex=True, gridspec_kw={"height_ratios": [2.2, 1]})
    ax.plot(t, result.pitch_acc, color="k", lw=1.0, label="simulated θ̈")
    ax.plot(t, result.predicted_pitch_acc, color="C1", lw=1.4, label="predicted θ̈ (controller)")
    ax.set_ylabel("pitch acceleration (rad/s²)")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    for row in range(4):
        seg_start = 0
        for i in range(1, n + 1):
            if i == n or result.sim_modes[i][row] != result.sim_modes[seg_start][row]:
                letter = result.sim_modes[seg_start][row]
                axm.broken_barh([(t[seg_start], result.times[i] - t[seg_start])], (3 - row - 0.4, 0.8),
                                facecolors=LETTER_COLOURS.get(letter, "w"))
                seg_start = i
    axm.set_yticks(range(4))
    axm.set_yticklabels(CONTACT_LABELS[::-1])
    axm.set_xlabel("time (s)")
    axm.legend(handles=[Patch(color=c, label=k) for k, c in LETTER_COLOURS.items()], ncol=4, fontsize=8,
               loc="upper center", bbox_to_anchor=(0.5, -0.35), frameon=False)
    fig.suptitle(title or "flip: predicted vs simulated pitch acceleration; simulated contact modes")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def plot_pitch(runs: Mapping[str, SimulationResult], path: str) -> None:
    """Fig. 15: pitch (deg) against time for each labelled run; PNG at ``path``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, res in runs.items():
        ax.plot(res.times, np.degrees(res.pitch), label=label)
    ax.axhline(90.0, color="k", ls=":", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("pitch (deg)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def animate(result: SimulationResult, path: str, max_frames: int = 80, fps: int = 20) -> None:
    """A GIF of the run (at most ``max_frames`` frames, evenly subsampled) at ``path``."""
    plt = _pyplot()
    from matplotlib.animation import FuncAnimation, PillowWriter

    p = result.params
    idx = np.unique(np.linspace(0, len(result.times) - 1, min(max_frames, len(result.times))).astype(int))
    fig, ax = plt.subplots(figsize=(5, 4))
    xs = result.states[:, 0]
    ax.set_xlim(xs.min() - 0.45, xs.max() + 0.45)
    ax.set_ylim(-0.05, 0.6)
    ax.set_aspect("equal")
    ax.axhline(0.0, color="k", lw=1.5)
    (body,) = ax.plot([], [], color="C0", lw=2)
    legs = [ax.plot([], [], color="C1", lw=1.5)[0] for _ in range(3)]
    (toes,) = ax.plot([], [], "o", color="C3", ms=4)
    label = ax.text(0.02, 0.95, "", transform=ax.transAxes, fontsize=8, va="top")

    def draw(k):
        st = result.states[idx[k]]
        c = body_corners(st, p)
        body.set_data(np.append(c[:, 0], c[0, 0]), np.append(c[:, 1], c[0, 1]))
        kin = leg_kinematics(st, p)
        toe = st[6:12].reshape(3, 2)
        for i, line in enumerate(legs):
            line.set_data([kin.hip[i, 0], toe[i, 0]], [kin.hip[i, 1], toe[i, 1]])
        toes.set_data(toe[:, 0], toe[:, 1])
        label.set_text(f"t = {result.times[idx[k]]:.3f} s   pitch = {np.degrees(st[2]):.0f}°")
        return [body, *legs, toes, label]

    anim = FuncAnimation(fig, draw, frames=len(idx), blit=False)
    anim.save(path, writer=PillowWriter(fps=fps))
    plt.close(fig)
