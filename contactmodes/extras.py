"""Optional dependencies ("extras" of ``pyproject.toml``): one line naming the extra when one is missing.

The base install (``pip install contactmodes``) runs ``contactmodes analyze``, ``check`` and
``brace``; these need an extra (``pip install 'contactmodes[EXTRA]'``):

============  ============================  ===================================================
extra         packages                      needed by
============  ============================  ===================================================
``sweep``     dask[distributed], pandas     ``contactmodes sweep``, ``contactmodes.sweep``
``parquet``   pyarrow                       ``sweep --output X.parquet``
``plot``      matplotlib, plotly            ``contactmodes plot`` (plotly: ``--html``), ``--plot``, ``--animate``
``urdf``      yourdfpy, lxml                a system file whose mechanism is a URDF file
``compiled``  numba                         the compiled kernels (the NumPy kernels without it)
``exact``     pplpy                         ``--method exact``
``sim``       mujoco                        ``contactmodes simulate`` (``controllers.simulation``)
``spatial``   pin (imported as pinocchio)   a spatial mechanism from a URDF or MJCF (``contactmodes.model.spatial``)
============  ============================  ===================================================

Code that needs an optional package calls ``require`` where it starts (before any work, so
that nothing runs and nothing is written), then imports the package in the function that uses
it: ``import contactmodes`` never imports an optional package.
"""

from __future__ import annotations

import importlib.util

from contactmodes.errors import ContactModelError

__all__ = ["MissingExtraError", "install_hint", "require"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'contactmodes[EXTRA]'``.

    Parameters
    ----------
    extra : str
        The extra's name (``"plot"``, ``"urdf"``, ...).

    Returns
    -------
    str
        The command.
    """
    return f"pip install 'contactmodes[{extra}]'"


class MissingExtraError(ContactModelError, ImportError):
    """An optional package is not installed — an error of the user's environment, not of the
    toolkit: the CLI prints the one-line message and exits 2 (a ``ContactModelError``), and
    ``except ImportError`` catches it too. Message: ``WHAT: needs MODULE: pip install
    'contactmodes[EXTRA]'``; ``name`` is the module, ``extra`` the extra.

    Parameters
    ----------
    module : str
        The missing module (``name``).
    extra : str
        The extra that installs it (``extra``).
    what : str
        What needs it (the message's first word, e.g. an option or a command).
    """

    def __init__(self, module: str, extra: str, what: str) -> None:
        super().__init__(f"{what}: needs {module}: {install_hint(extra)}")
        self.name = module
        self.extra = extra


def require(module: str, extra: str, what: str) -> None:
    """Raise ``MissingExtraError`` (``WHAT: needs MODULE: pip install 'contactmodes[EXTRA]'``)
    unless ``module`` can be imported. Only looks the module up (``importlib.util.find_spec``,
    which imports the parents of a dotted name); the caller imports it where it is used, so that a
    broken installation still shows its own error there.

    Parameters
    ----------
    module : str
        The module (a dotted name is looked up with its parents).
    extra : str
        The extra that installs it.
    what : str
        What needs it, for the message.

    Raises
    ------
    MissingExtraError
        When ``module`` cannot be found.
    """
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent missing, or blocked (None in sys.modules)
        found = False
    if not found:
        raise MissingExtraError(module, extra, what)
