"""Pictures of a simulated run: ``plot_run`` (q(t), torques, modes) and ``animate`` (a GIF).

Both write to the path they are given (the CLI passes a temporary name, ``write_atomic``);
matplotlib (the ``plot`` extra) with the Agg backend, the GIF through pillow.
"""

from __future__ import annotations

import numpy as np

from .loop import SimulationRun

__all__ = ["plot_run", "animate", "MODE_COLOURS"]

MODE_COLOURS = {"S": "#d9d9d9", "F": "#1b9e77", "L": "#d95f02", "R": "#7570b3"}
"""Colour of each mode letter in the timeline."""

_MAX_FRAMES = 120


def plot_run(run: SimulationRun, path: str, title: str = "") -> None:
    """Three panels against time: ``q`` per coordinate (m or rad), the applied torques and the
    mode letter of each contact (colours ``MODE_COLOURS``); written as PNG to ``path``.

    Parameters
    ----------
    run : SimulationRun
        The recorded run.
    path : str
        The PNG file.
    title : str, optional
        The figure's title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    plant = run.plant
    t_state = np.append(run.times, run.times[-1] + run.control_dt)
    fig, axes = plt.subplots(3, 1, figsize=(8, 7.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 2, max(1, len(plant.contacts)) * 0.45 + 0.6]})
    for j, c in enumerate(plant.coordinates):
        axes[0].plot(t_state, run.q[:, j], label=c)
    axes[0].set_ylabel("q (m, rad)")
    axes[0].legend(loc="best", fontsize="small", ncol=2)
    for j, a in enumerate(plant.actuators):
        axes[1].step(run.times, run.torque[:, j], where="post", label=a)
    axes[1].set_ylabel("torque (N·m, N)")
    if plant.actuators:
        axes[1].legend(loc="best", fontsize="small")
    ax = axes[2]
    for i, c in enumerate(plant.contacts):
        for k, m in enumerate(run.modes):
            ax.barh(i, run.control_dt, left=run.times[k], color=MODE_COLOURS[m[i]], height=0.8, linewidth=0)
    ax.set_yticks(range(len(plant.contacts)), list(plant.contacts))
    ax.set_ylim(-0.6, len(plant.contacts) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("t (s)")
    ax.set_ylabel("mode")
    ax.legend(handles=[Patch(color=v, label=k) for k, v in MODE_COLOURS.items()], loc="upper right",
              fontsize="small", ncol=4)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def _segments(run: SimulationRun, q: np.ndarray) -> list[np.ndarray]:
    """Line segments ``(2, 2)`` of the links at ``q``: from each link's frame origin to its
    children's joints, its contact points and its point masses."""
    from .model import mechanism_parts

    mech = run.plant.mechanism
    parts = mechanism_parts(mech)
    features: dict[str, list[np.ndarray]] = {l["name"]: [l["com"]] for l in parts.links}
    for l in parts.links:
        if l["parent"] is not None:
            features[l["parent"]].append(l["joint_position"])
    for c in parts.contacts:
        features[c["link"]].append(c["position"])
    for link, _, p in parts.point_masses:
        features[link].append(p)
    segs = []
    for link, pts in features.items():
        origin = mech.link_pose(q, link)[:2]
        for p in pts:
            segs.append(np.array([origin, mech.point_position(q, link, p)]))
    return segs


def animate(run: SimulationRun, path: str, title: str = "") -> None:
    """A GIF of the robot (links as segments, contact points coloured by their mode letter, the
    environment lines in grey), at most 120 frames, real time; written to ``path``.

    Parameters
    ----------
    run : SimulationRun
        The recorded run.
    path : str
        The GIF file.
    title : str, optional
        Heads every frame.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter
    from matplotlib.collections import LineCollection

    from .model import mechanism_parts

    plant = run.plant
    N = len(run.modes)
    frames = np.unique(np.linspace(0, N - 1, min(N, _MAX_FRAMES)).round().astype(int))
    all_segs = [_segments(run, run.q[k]) for k in frames]
    pts = np.concatenate([np.concatenate(s) for s in all_segs]) if all_segs and all_segs[0] else np.zeros((1, 2))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    lo, hi = lo - 0.15 * span, hi + 0.15 * span
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.set_aspect("equal")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    far = 10 * span
    for c in mechanism_parts(plant.mechanism).contacts:
        s, t = c["surface_point"], c["tangent"]
        ax.plot([s[0] - far * t[0], s[0] + far * t[0]], [s[1] - far * t[1], s[1] + far * t[1]], color="0.6", lw=2)
    lines = LineCollection([], colors="k", linewidths=2.5)
    ax.add_collection(lines)
    dots = ax.scatter(np.zeros(len(plant.contacts)), np.zeros(len(plant.contacts)), s=30, zorder=3)
    label = ax.set_title(title)

    def draw(i: int):
        k = frames[i]
        lines.set_segments(all_segs[i])
        if plant.contacts:
            dots.set_offsets(run.position[k])
            dots.set_color([MODE_COLOURS[m] for m in run.modes[k]])
        label.set_text(f"{title}  t = {run.times[k]:.2f} s  {run.modes[k]}".strip())
        return lines, dots, label

    fps = max(1, min(30, int(round(len(frames) / max(run.times[-1] + run.control_dt, 1e-9)))))
    anim = FuncAnimation(fig, draw, frames=len(frames), blit=False)
    anim.save(path, writer=PillowWriter(fps=fps))
    plt.close(fig)
