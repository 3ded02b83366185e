"""MuJoCo's warnings as errors, and nothing written into the current folder.

MuJoCo answers a state or a control it cannot use with a *warning* and goes on: a control that
is NaN, infinite or larger than ``mujoco.mjMAXVAL`` (1e10) is set to zero ("Nan, Inf or huge
value in CTRL"), a bad position, velocity or acceleration resets the simulation to the model's
initial state, a full contact or constraint buffer drops contacts. Its default handler also
appends the text to ``MUJOCO_LOG.TXT`` in the current folder and prints it on the C library's
stdout (after a ``--json`` document). A closed loop that goes on after any of these reports a
run that did not happen (a box "stuck" under a discarded 1e11 N push), so:

* ``capture()`` installs a handler (``mujoco.set_mju_user_warning``) for the duration of a
  ``with`` block: every warning text is kept in a list and MuJoCo writes no log file and prints
  nothing; the previous handler is restored on exit;
* ``check(data, t)`` raises ``PlantFailure`` when any of ``data.warning``'s counters is set
  (every ``mujoco.mjtWarning`` but the visual-geometry buffer's, which only rendering uses),
  naming the warning, MuJoCo's text and the time.

``contactmodes simulate`` reports a ``PlantFailure`` with one line and exit status 1, nothing
written (``controllers.simulation.cli``); a control value beyond ``MAX_CONTROL`` that is known
before the run (``--controller constant:…``) is refused up front as bad input (exit 2).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

__all__ = ["PlantFailure", "capture", "check", "MAX_CONTROL", "WARNING_NAMES"]

MAX_CONTROL = 1e10
"""The largest control magnitude MuJoCo accepts (``mujoco.mjMAXVAL``; its ``mju_isBad``): a
larger one is discarded (set to zero) with a warning."""

WARNING_NAMES = {
    "mjWARN_INERTIA": "a body's inertia is invalid",
    "mjWARN_CONTACTFULL": "the contact buffer is full (contacts dropped)",
    "mjWARN_CNSTRFULL": "the constraint buffer is full (constraints dropped)",
    "mjWARN_BADQPOS": "bad positions: the simulation diverged (try a smaller --dt)",
    "mjWARN_BADQVEL": "bad velocities: the simulation diverged (try a smaller --dt)",
    "mjWARN_BADQACC": "bad accelerations: the simulation diverged (try a smaller --dt)",
    "mjWARN_BADCTRL": "a control that is NaN, infinite or beyond 1e10 (it was set to zero)",
}
"""The ``mujoco.mjtWarning`` counters ``check`` turns into errors, with what each means."""


class PlantFailure(Exception):
    """MuJoCo could not simulate the plant on (a warning during the run: module doc). Not a
    ``ContactModelError``: the input was valid; ``contactmodes simulate`` exits with 1."""


@contextlib.contextmanager
def capture() -> Iterator[list[str]]:
    """Within the block, MuJoCo's warnings go to the yielded list (texts, in order) instead of
    ``MUJOCO_LOG.TXT`` and stdout; the previous handler is restored afterwards."""
    import mujoco

    texts: list[str] = []
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda text: texts.append(str(text).strip()))
    try:
        yield texts
    finally:
        mujoco.set_mju_user_warning(previous)


def check(data: Any, t: float, texts: list[str] | None = None) -> None:
    """Raise ``PlantFailure`` when any counter of ``WARNING_NAMES`` in ``data.warning`` is set.

    Parameters
    ----------
    data : mujoco.MjData
        The simulation's data.
    t : float
        The time the warning is reported at (s): the end of the control period that raised it.
    texts : list[str], optional
        The captured warning texts (``capture``); the last one is quoted.

    Raises
    ------
    PlantFailure
        One line: ``simulation: MuJoCo: <meaning> before t = <t> s (<MuJoCo's text>)``.
    """
    import mujoco

    for name, meaning in WARNING_NAMES.items():
        if data.warning[int(getattr(mujoco.mjtWarning, name))].number > 0:
            said = f" ({texts[-1]})" if texts else ""
            raise PlantFailure(f"simulation: MuJoCo: {meaning} before t = {t:g} s{said}")
