"""Flip pictures and animation (flipping paper, Sec. IV-C, Figs. 10–15).

Metrics (pitch acceleration, Table V's two RMSE windows, rear-toe events, the mode timeline) live
in ``metrics``; this module only draws (matplotlib, Agg backend, headless).

* ``plot_run`` — Figs. 10/13/14: predicted vs simulated pitch acceleration above (our
  documented RMSE window shaded as a time span, the thrust phase outlined, flip time, model switch
  and simulated rear-toe stiction marked); below, one row per contact (body, toe1 rear, toe2, toe3
  front) with the simulated mode as a wide bar and the controller's mode as a thin bar under it,
  one colour per letter.
* ``plot_pitch`` — Fig. 15: pitch against time for several runs on one axis.
* ``animate`` — a GIF (matplotlib's ``PillowWriter``) of the body, hips, legs, toes and
  ground, each frame titled with the controller, the time and the pitch.
* ``plot_velocity_thresholds`` — Fig. 12: rigid-model toe velocities against the simulated
  ones, the fixed-contact intervals shaded and the derived thresholds drawn.
* ``plot_ratio_distribution``, ``plot_success_map``, ``plot_sweep`` — the
  reproduction's distributions (``benchmarks/``).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from contactmodes.extras import require

from .metrics import (landing_step, rmse_pitch_accel, rmse_pitch_accel_window, rmse_window, simulated_pitch_accel,
                      stiction_time, thrust_phase)
from .simulator import SimulationResult, body_corners, leg_kinematics

__all__ = [
    "plot_run",
    "plot_pitch",
    "animate",
    "clip_to_ground",
    "plot_velocity_thresholds",
    "plot_ratio_distribution",
    "plot_success_map",
    "plot_sweep",
]

LETTER_COLOURS = {"S": "#d0d0d0", "F": "#2ca02c", "L": "#1f77b4", "R": "#d62728"}
LETTER_MEANING = {"S": "S separating", "F": "F fixed", "L": "L sliding −x", "R": "R sliding +x"}
CONTACT_LABELS = ("body", "toe 1 (rear)", "toe 2 (middle)", "toe 3 (front)")


def _pyplot():
    require("matplotlib", "plot", "controllers.rhex.plots")
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


def plot_run(result: SimulationResult, path: str, title: str = "", switch_time: float | None = None) -> None:
    """Figs. 10/13/14 for one run, written as a PNG at ``path``.

    Above: controller prediction and simulated pitch acceleration (``simulated_pitch_accel``)
    against time; our documented RMSE window (``rmse_window``: from the second
    control step to the rear-face landing or the end of the thrust) shaded as a time span with its
    edges drawn, the thrust phase (Table V by the paper's definition; nearly the same times)
    outlined dashed, each with its times and RMSE in the legend, the flip time dashed and, when
    given, the blind controller's model switch ``switch_time`` (s) dotted beside the simulated
    rear-toe stiction (``stiction_time``). Below: per contact, the simulated mode
    (wide bar) and the controller's mode (thin bar under it).
    Raises ``ValueError`` for an empty run; I/O errors from matplotlib propagate.

    Parameters
    ----------
    result : SimulationResult
        The run.
    path : str
        The PNG file.
    title : str, optional
        The figure's title.
    switch_time : float, optional
        The blind controller's model switch (s).

    Raises
    ------
    ValueError
        For an empty run.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
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
        lab = f"thrust phase {times[0]:.3f}–{times[n_f]:.3f} s" + (
            f" (RMSE {rmse:.2f} rad/s², paper's definition)" if rmse is not None else "")
        # outlined only: the documented window, shaded below, spans nearly the same times
        ax.axvspan(times[0], times[n_f], fill=False, edgecolor="C1", ls="--", lw=1.2, label=lab)
    k0, k1 = rmse_window(result)
    window = rmse_pitch_accel_window(result)
    if window is not None:
        landing = landing_step(result)
        until = "rear-face landing" if landing is not None and landing == k1 else "end of thrust"
        ax.axvspan(times[k0], times[k1], facecolor=(0.12, 0.47, 0.71, 0.12), edgecolor="C0", lw=1.2,
                   label=f"documented RMSE window {times[k0]:.3f}–{times[k1]:.3f} s (2nd control step to "
                         f"{until}; RMSE {window:.2f} rad/s²)")
    if result.flip_time is not None:
        for a in (ax, axm):
            a.axvline(result.flip_time, color="k", ls="--", lw=0.8)
        ax.text(result.flip_time, 0.02, "flip ", transform=ax.get_xaxis_transform(), ha="right", va="bottom",
                fontsize=8)
    stick = stiction_time(result)
    if switch_time is not None:
        for a in (ax, axm):
            a.axvline(switch_time, color="C3", ls=":", lw=1.2)
        ax.text(switch_time, 0.10, " switch M1→M2", transform=ax.get_xaxis_transform(), color="C3", fontsize=8)
    if stick is not None:
        axm.axvline(stick, color="C2", ls=":", lw=1.2)
        axm.text(stick, 3.62, "rear toe sticks ", color="C2", fontsize=8, ha="right", va="bottom")
    ax.axhline(0.0, color="0.5", lw=0.6)
    ax.set_ylabel("pitch acceleration (rad/s²)")
    ax.legend(fontsize=8, loc="best")
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
    axm.set_ylim(-0.5, 3.95)
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

    Parameters
    ----------
    runs : Mapping[str, SimulationResult]
        Label → run.
    path : str
        The PNG file.
    styles : Mapping[str, Mapping], optional
        Label → matplotlib line keywords.
    title : str, optional
        The figure's title.

    Raises
    ------
    ValueError
        When ``runs`` is empty.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
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


def clip_to_ground(polygon) -> np.ndarray:
    """The part of a convex ``polygon`` (n, 2) (m) on or above the ground ``y = 0`` (Sutherland–
    Hodgman against one half-plane), (m, 2) with ``m`` possibly 0.

    The compliant body–ground contact is a penetration model (a compressed padded skin, Sec.
    IV-C.1): the body sinks a few millimetres into the ground (4.2 mm at rest). Drawing the part
    below the ground would show a resting body *inside* the floor; clipping draws the compressed
    pad flat on it.

    Parameters
    ----------
    polygon : array_like
        ``(n, 2)`` a convex polygon (m).

    Returns
    -------
    numpy.ndarray
        ``(m, 2)`` (m), ``m`` possibly 0.
    """
    pts = np.asarray(polygon, dtype=float)
    out = []
    n = len(pts)
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        if a[1] >= 0.0:
            out.append(a)
        if (a[1] >= 0.0) != (b[1] >= 0.0):
            s = a[1] / (a[1] - b[1])
            out.append(np.array([a[0] + s * (b[0] - a[0]), 0.0]))
    return np.array(out).reshape(-1, 2)


def animate(result: SimulationResult, path: str, title: str = "", max_frames: int = 80, fps: int = 20) -> None:
    """A GIF of the run at ``path``: body rectangle (clipped at the ground, ``clip_to_ground``),
    hips, legs (hip → toe), toes (coloured by their simulated contact letter), ground; each frame
    headed by ``title`` (e.g. the controller's name), the time and the pitch, and the simulated
    mode. At most ``max_frames`` frames evenly subsampled from ``result.states`` (N+1, 18), always
    including the first and the last, played at ``fps``. Needs ``result.params``.
    Raises ``ValueError`` for ``max_frames < 2`` or ``fps < 1``.

    Parameters
    ----------
    result : SimulationResult
        The run (with ``params``).
    path : str
        The GIF file.
    title : str, optional
        Heads every frame.
    max_frames : int, optional
        At most this many frames, ``>= 2``.
    fps : int, optional
        Frames per second, ``>= 1``.

    Raises
    ------
    ValueError
        For ``max_frames < 2`` or ``fps < 1``.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
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
    y0, y1 = -0.07, max(allp[:, 1].max() + 0.04, 0.3)
    width = 6.4
    fig, ax = plt.subplots(figsize=(width, (width - 1.0) * (y1 - y0) / (x1 - x0) + 1.2))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)", fontsize=11)
    ax.set_ylabel("y (m)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.locator_params(nbins=5)  # fewer tick labels: text dominates the per-frame drawing time
    ax.axhspan(y0, 0.0, color="0.85", zorder=0)
    ax.axhline(0.0, color="k", lw=1.2, zorder=1)
    body = Polygon(np.zeros((4, 2)), closed=True, facecolor="#9ecae1", edgecolor="#08519c", lw=1.5, zorder=2)
    ax.add_patch(body)
    legs = [ax.plot([], [], color="0.2", lw=2.0, zorder=3)[0] for _ in range(3)]
    (hips,) = ax.plot([], [], "o", color="#08519c", ms=5, zorder=4)
    toes = ax.scatter(np.zeros(3), np.zeros(3), s=45, zorder=5, edgecolors="k", linewidths=0.6)
    head = ax.set_title("", fontsize=13, loc="left")
    label = ax.text(0.02, 0.96, "", transform=ax.transAxes, fontsize=11, va="top", family="monospace")
    ax.text(0.5 * (x0 + x1), 0.5 * y0, "toe colour = contact: S grey, F green (stuck), L blue, R red",
            fontsize=10, ha="center", va="center")
    fig.tight_layout(rect=(0.0, 0.0, 1.0, 0.985))
    modes = list(result.sim_modes)
    lead = f"{title}   " if title else ""

    def draw(k):
        i = idx[k]
        st = states[i]
        body.set_xy(clip_to_ground(body_corners(st, p)))
        kin = leg_kinematics(st, p)
        toe = st[6:12].reshape(3, 2)
        for j, line in enumerate(legs):
            line.set_data([kin.hip[j, 0], toe[j, 0]], [kin.hip[j, 1], toe[j, 1]])
        hips.set_data(kin.hip[:, 0], kin.hip[:, 1])
        toes.set_offsets(toe)
        mode = modes[min(i, len(modes) - 1)] if modes else "????"
        toes.set_facecolors([LETTER_COLOURS.get(ch, "w") for ch in mode[1:]])
        head.set_text(f"{lead}t = {result.times[i]:.3f} s   pitch = {math.degrees(st[2]):5.1f}°")
        label.set_text(f"simulated mode {mode}\n(body, toe 1, toe 2, toe 3)")
        return [body, *legs, hips, toes, head, label]

    # one full draw per frame (FuncAnimation.save would draw each frame three times)
    writer = PillowWriter(fps=fps)
    try:
        with writer.saving(fig, path, dpi=100):
            for k in range(len(idx)):
                draw(k)
                writer.grab_frame()
    finally:
        plt.close(fig)


def plot_sweep(x, series: Mapping[str, Sequence], path: str, xlabel: str, ylabel: str, title: str = "",
               highlight: float | None = None, band: tuple[float, float] | None = None,
               hline: float | None = None, hline_label: str = "") -> None:
    """Line plot of several ``series`` (label → values, ``None`` = missing, drawn as a gap) against
    ``x`` (same length), PNG at ``path``; ``highlight`` a chosen x (dashed vertical line),
    ``band`` an x range shaded, ``hline`` a target y (dotted, labelled ``hline_label``).
    Raises ``ValueError`` on length mismatch or no series.

    Parameters
    ----------
    x : Sequence[float]
        The abscissae.
    series : Mapping[str, Sequence]
        Label → values (``None`` = missing), each as long as ``x``.
    path : str
        The PNG file.
    xlabel, ylabel : str
        The axis labels.
    title : str, optional
        The figure's title.
    highlight : float, optional
        A chosen ``x`` (dashed vertical line).
    band : tuple[float, float], optional
        An ``x`` range shaded.
    hline : float, optional
        A target ``y`` (dotted).
    hline_label : str, optional
        The label of ``hline``.

    Raises
    ------
    ValueError
        On length mismatch or no series.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    if not series:
        raise ValueError("plot_sweep: no series")
    x = np.asarray(x, dtype=float)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.3))
    if band is not None:
        ax.axvspan(band[0], band[1], color="C2", alpha=0.12, label="band")
    for i, (label, values) in enumerate(series.items()):
        y = np.array([np.nan if v is None else float(v) for v in values])
        if y.shape != x.shape:
            raise ValueError(f"plot_sweep: series {label!r} has {y.size} values for {x.size} x")
        ax.plot(x, y, "o-", ms=3.5, lw=1.3, color=f"C{i}", label=label)
    if hline is not None:
        ax.axhline(hline, color="k", ls=":", lw=1.0, label=hline_label or None)
    if highlight is not None:
        ax.axvline(highlight, color="k", ls="--", lw=0.9, label=f"chosen {highlight:g}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def plot_velocity_thresholds(times, predicted, simulated, letters, thresholds, path: str, title: str = "") -> None:
    """Fig. 12: per contact (body, toe 1–3), the rigid model's predicted tangential velocity and the
    simulated one against time, the steps where the simulated contact is fixed shaded
    (``fixed_steps``) and ``±thresholds`` dashed; each axis spans
    ``±max(4 v0, 0.15)`` m/s (larger speeds of sliding or swinging contacts are clipped). ``times`` (N,) s (the start of
    each control step), ``predicted``/``simulated`` (N, 4) m/s (NaN = contact left out),
    ``letters`` (N,) 4-letter simulated modes, ``thresholds`` (4,) m/s. PNG at ``path``.

    Parameters
    ----------
    times : array_like
        ``(N,)`` the start of each control step (s).
    predicted : array_like
        ``(N, 4)`` the rigid model's tangential velocities (m/s, NaN = contact left out).
    simulated : array_like
        ``(N, 4)`` the simulated ones (m/s).
    letters : Sequence[str]
        ``(N,)`` 4-letter simulated modes.
    thresholds : array_like
        ``(4,)`` (m/s).
    path : str
        The PNG file.
    title : str, optional
        The figure's title.

    Raises
    ------
    ValueError
        On mismatched shapes.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    from .calibration import fixed_steps

    t = np.asarray(times, dtype=float)
    pv = np.asarray(predicted, dtype=float)
    sv = np.asarray(simulated, dtype=float)
    if pv.shape != (t.size, 4) or sv.shape != pv.shape or len(letters) != t.size:
        raise ValueError("plot_velocity_thresholds: need times (N,), predicted/simulated (N, 4), letters (N,)")
    plt = _pyplot()
    fig, axes = plt.subplots(4, 1, figsize=(8, 8.2), sharex=True)
    dt = float(t[1] - t[0]) if t.size > 1 else 1e-3
    for i, ax in enumerate(axes):
        fixed = fixed_steps([m[i] for m in letters])
        for t0, w, letter in _letter_runs(np.append(t, t[-1] + dt), ["F" if f else "-" for f in fixed], 0):
            if letter == "F":
                ax.axvspan(t0, t0 + w, color="C2", alpha=0.15, lw=0)
        ax.plot(t, sv[:, i], color="k", lw=1.0, label="simulated")
        ax.plot(t, pv[:, i], color="C1", lw=1.3, label="rigid-model prediction")
        v0 = float(thresholds[i])
        for sgn in (1, -1):
            ax.axhline(sgn * v0, color="C3", ls="--", lw=0.9, label=f"±v0 = {v0:g} m/s" if sgn > 0 else None)
        # the thresholds are mm/s … cm/s; swinging toes reach m/s: the axis is clipped (Fig. 12 is
        # about the fixed intervals)
        lim = max(4.0 * v0, 0.15)
        ax.set_ylim(-lim, lim)
        ax.set_ylabel(f"{CONTACT_LABELS[i]}\n(m/s)", fontsize=9)
        ax.grid(alpha=0.3)
        if i == 0:
            ax.plot([], [], color="C2", alpha=0.3, lw=6, label="simulated contact fixed")
            ax.legend(fontsize=8, ncol=2, loc="lower right")
        else:
            ax.legend(fontsize=8, loc="upper right", handles=ax.get_lines()[2:3])
    axes[-1].set_xlabel("time (s)")
    fig.suptitle((title or "horizontal contact velocities: rigid model vs simulation (Fig. 12)")
                 + "\n(axes clipped; shaded: the simulated contact is fixed)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def plot_ratio_distribution(rows: Sequence[Mapping], path: str, paper_ratio: float | None = None,
                            title: str = "") -> None:
    """Flip-time ratio (max-thrust / blind) over the uncertain choices, PNG at ``path``.

    ``rows``: dicts with ``tau_limit`` (N·m), ``mu_body``, ``threshold`` (rad/s²) and ``ratio``
    (``None`` when either run failed). Left: heat map over torque × μ_b of the median ratio over the
    detector thresholds (annotated with median and range); right: every ratio against the torque,
    one colour per μ_b, the paper's value and parity (1) as lines. Raises ``ValueError`` without rows.

    Parameters
    ----------
    rows : Sequence[Mapping]
        One dict per run pair: ``tau_limit`` (N·m), ``mu_body``, ``threshold`` (rad/s²), ``ratio``.
    path : str
        The PNG file.
    paper_ratio : float, optional
        The paper's ratio (a line).
    title : str, optional
        The figure's title.

    Raises
    ------
    ValueError
        Without rows.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    if not rows:
        raise ValueError("plot_ratio_distribution: no rows")
    plt = _pyplot()
    taus = sorted({r["tau_limit"] for r in rows})
    mubs = sorted({r["mu_body"] for r in rows})
    grid = np.full((len(mubs), len(taus)), np.nan)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1.15, 1.0]})
    for i, mb in enumerate(mubs):
        for j, tau in enumerate(taus):
            vals = [r["ratio"] for r in rows if r["mu_body"] == mb and r["tau_limit"] == tau and r["ratio"] is not None]
            if vals:
                grid[i, j] = float(np.median(vals))
                txt = f"{np.median(vals):.3f}\n[{min(vals):.2f}, {max(vals):.2f}]"
            else:
                txt = "fail"
            ax.text(j, i, txt, ha="center", va="center", fontsize=8)
    vmax = max(0.15, float(np.nanmax(np.abs(grid - 1.0)))) if np.isfinite(grid).any() else 0.15
    im = ax.imshow(grid, origin="lower", cmap="RdBu", vmin=1 - vmax, vmax=1 + vmax, aspect="auto")
    ax.set_xticks(range(len(taus)), [f"{t:g}" for t in taus])
    ax.set_yticks(range(len(mubs)), [f"{m:g}" for m in mubs])
    ax.set_xlabel("effective torque limit τ_limit (N·m per planar leg)")
    ax.set_ylabel("body friction μ_b")
    ax.set_title("median over detector thresholds [min, max]", fontsize=9)
    fig.colorbar(im, ax=ax, label="flip time ratio max-thrust / blind (< 1: max-thrust faster)")
    for k, mb in enumerate(mubs):
        pts = [(r["tau_limit"], r["ratio"]) for r in rows if r["mu_body"] == mb and r["ratio"] is not None]
        if pts:
            xs, ys = zip(*pts)
            ax2.plot(xs, ys, "o", ms=4, alpha=0.75, color=f"C{k}", label=f"μ_b = {mb:g}")
    ax2.axhline(1.0, color="k", lw=0.8, label="parity")
    if paper_ratio is not None:
        ax2.axhline(paper_ratio, color="C3", ls="--", lw=1.0, label=f"paper ≈ {paper_ratio:g}")
    ax2.set_xlabel("effective torque limit τ_limit (N·m per planar leg)")
    ax2.set_ylabel("flip time ratio max-thrust / blind")
    ax2.set_title("every (torque, μ_b, detector threshold)", fontsize=9)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=8, loc="best")
    fig.suptitle(title or "flip-time ratio over the uncertain choices", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def plot_success_map(mu_values: Sequence[float], runs: Mapping[str, Sequence[Mapping]], path: str,
                     title: str = "") -> None:
    """Success map over the toe friction, PNG at ``path``: per controller (label → one dict per
    ``mu_values`` entry with ``success`` and ``flip_time_s``), the flip time of each successful run
    and a cross at the top for each failure. Raises ``ValueError`` on length mismatch.

    Parameters
    ----------
    mu_values : Sequence[float]
        The toe friction coefficients.
    runs : Mapping[str, Sequence[Mapping]]
        Controller label → one flip document (``success``, ``flip_time_s``) per ``mu_values`` entry.
    path : str
        The PNG file.
    title : str, optional
        The figure's title.

    Raises
    ------
    ValueError
        On length mismatch.
    MissingExtraError
        Without matplotlib (the ``plot`` extra).
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.3))
    mus = np.asarray(mu_values, dtype=float)
    top = max([d["flip_time_s"] for docs in runs.values() for d in docs if d["success"]] or [1.0]) * 1.12
    for k, (label, docs) in enumerate(runs.items()):
        if len(docs) != mus.size:
            raise ValueError(f"plot_success_map: {label!r} has {len(docs)} runs for {mus.size} frictions")
        ok = [(m, d["flip_time_s"]) for m, d in zip(mus, docs) if d["success"]]
        bad = [m for m, d in zip(mus, docs) if not d["success"]]
        style = {"ls": "--" if "max" in label else "-", "color": f"C{k}"}
        if ok:
            ax.plot(*zip(*ok), marker="o", ms=5, lw=1.3, label=f"{label}: flipped", **style)
        if bad:
            ax.plot(bad, [top * (1.0 + 0.03 * k)] * len(bad), "x", ms=9, mew=2, color=f"C{k}",
                    label=f"{label}: no flip")
    ax.set_xlabel("toe friction μ_t")
    ax.set_ylabel("flip time (s)")
    ax.set_title(title or "success map over toe friction", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
