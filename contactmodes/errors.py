"""Exceptions raised by ``contactmodes``: one tree, split into the user's and the toolkit's.

* ``ContactModelError`` (a ``ValueError``): the user can fix it — an invalid model, file,
  state, option or environment. Every such error derives from it (``SystemFileError``,
  ``ApproachingContactError``, the sweeps' ``SweepError``, ``check --snap``'s ``SnapError``
  and ``TomlEditError``, the CLI's ``UserError``, a missing extra's ``MissingExtraError``); the
  message names the field. The CLI prints it as one line and exits 2 — and so it does for a
  ``polytopes.PolytopeError``, the geometry package's own user error (bad polytope data).
* ``InternalError`` (a ``RuntimeError``), with ``polytopes.NumericalError``: the
  toolkit's own failure, never the user's mistake; the CLI says ``internal error (please
  report)`` and exits 70, as for any other unexpected exception.
"""

from __future__ import annotations


class ContactModelError(ValueError):
    """Invalid model, file or state. The message names the offending field or key path."""


class SystemFileError(ContactModelError):
    """A system file (TOML) is malformed or fails validation; the message starts with the key path."""


class ApproachingContactError(ContactModelError):
    """A contact's normal velocity is negative beyond tolerance: the rigid model without an impact
    law has no solution at this state (flipping paper, Sec. III-B, last paragraph).

    Like every input error, the message names the field at fault: the state's velocity
    ``FIELD`` (``state.qdot`` of a system file), whatever raised it — the analysis finds the
    approaching contact on a ``ContactSystem``, which no longer knows
    its file.

    Parameters
    ----------
    message : object, optional
        The message; prefixed with ``"state.qdot: "`` unless it starts with it.
    """

    FIELD = "state.qdot"

    def __init__(self, message: object = "") -> None:
        text = str(message)
        super().__init__(text if text.startswith(f"{self.FIELD}:") else f"{self.FIELD}: {text}")


class InternalError(RuntimeError):
    """A failure of the toolkit itself (a numerical routine that could not decide, an invariant
    that does not hold) — never the user's mistake. The CLI reports it as
    ``internal error (please report)`` with exit status 70."""
