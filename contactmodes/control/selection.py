"""Which contact modes the one-shot controller may choose (the acceptable modes).

Three forms, in the system file (``[control] modes``), in Python (``modes=``) and on the command
line (``--modes``):

* ``"all"`` (the default): every kinematically feasible mode;
* a list of mode strings, ``["FFF", "FFS"]`` (CLI: ``--modes FFF,FFS``): exactly those;
* per contact, the letters it may take, ``{tip = "F|S", base = "F"}`` (CLI:
  ``--modes tip=F|S,base=F``): a contact not named may take any letter; ``"*"`` is any letter.

A mode outside the selection is never chosen, but it still counts as an alternative the model
may predict: ``T*_c`` removes the torque sets of *every* kinematically feasible mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from contactmodes.errors import ContactModelError
from contactmodes.modes.contact_conditions import MODE_LETTERS, validate_mode

__all__ = ["ModeSelection", "parse_modes", "parse_modes_text"]


@dataclass(frozen=True)
class ModeSelection:
    """The acceptable modes: ``modes`` (a tuple of mode strings) or ``letters`` (per contact, the
    allowed letters), or neither (every mode).

    Attributes
    ----------
    modes : tuple[str, ...] or None
        The listed modes, ``None`` unless given as a list.
    letters : tuple[str, ...] or None
        Per contact in system order, the allowed letters (e.g. ``"FS"``), ``None`` unless given
        per contact.
    """

    modes: tuple[str, ...] | None = None
    letters: tuple[str, ...] | None = None

    def accepts(self, mode: str) -> bool:
        """Whether ``mode`` is acceptable.

        Parameters
        ----------
        mode : str
            A mode string of the system.

        Returns
        -------
        bool
            Listed, or every letter allowed for its contact, or no selection at all.
        """
        if self.modes is not None:
            return mode in self.modes
        if self.letters is not None:
            return all(c in allowed for c, allowed in zip(mode, self.letters))
        return True

    def to_json(self) -> Any:
        """``"all"``, ``{"list": [modes]}`` or ``{"per_contact": [letters of contact 1, …]}``."""
        if self.modes is not None:
            return {"list": list(self.modes)}
        if self.letters is not None:
            return {"per_contact": list(self.letters)}
        return "all"


def _letters(text: Any, where: str, alphabet: str = MODE_LETTERS) -> str:
    """The letters of ``"F|S"`` (or ``"*"``: every letter of ``alphabet``) as one string."""
    if not isinstance(text, str) or not text.strip():
        raise ContactModelError(f"{where}: expected letters of '{alphabet}' separated by '|', got {text!r}")
    if text.strip() == "*":
        return alphabet
    out = ""
    for part in text.split("|"):
        part = part.strip()
        if len(part) != 1 or part not in alphabet:
            raise ContactModelError(f"{where}: {part!r} is not a contact mode letter (one of "
                                    f"{', '.join(alphabet)}, separated by '|', or '*')")
        out += part
    return out


def parse_modes(value: Any, contacts: Sequence[str], where: str = "control.modes",
                letters: str = MODE_LETTERS) -> ModeSelection:
    """A ``ModeSelection`` from ``"all"``, a list of mode strings or a mapping contact → letters
    (module doc); a ``ModeSelection`` or ``None`` (all) pass through.

    Parameters
    ----------
    value : str or Sequence[str] or Mapping[str, str] or ModeSelection or None
        The selection as written in a file or given in Python.
    contacts : Sequence[str]
        The ``k`` contact names, in system order.
    where : str, optional
        The field named in error messages.
    letters : str, optional
        The contact model's letters (``ContactSystem.contact_model.letters``: ``"FSLR"`` planar,
        the default; ``"SFabcdABCED"`` for the spatial square); ``"*"`` means all of them.

    Returns
    -------
    ModeSelection
        The acceptable modes.

    Raises
    ------
    ContactModelError
        One line naming ``where`` (``where[i]`` for a bad mode string, ``where.<contact>`` for an
        unknown contact or letter), or an empty list.
    """
    if value is None or isinstance(value, ModeSelection):
        return value or ModeSelection()
    if isinstance(value, str):
        if value == "all":
            return ModeSelection()
        raise ContactModelError(f"{where}: expected \"all\", a list of modes or a table contact = letters, "
                                f"got {value!r}")
    if isinstance(value, Mapping):
        per_contact = [letters] * len(contacts)
        for name, allowed in value.items():
            if name not in contacts:
                raise ContactModelError(f"{where}.{name}: unknown contact (contacts: {', '.join(contacts)})")
            per_contact[list(contacts).index(name)] = _letters(allowed, f"{where}.{name}", letters)
        return ModeSelection(letters=tuple(per_contact))
    if isinstance(value, (list, tuple)):
        if not value:
            raise ContactModelError(f"{where}: the list of modes is empty")
        return ModeSelection(modes=tuple(validate_mode(m, contacts, f"{where}[{i}]", letters)
                                         for i, m in enumerate(value)))
    raise ContactModelError(f"{where}: expected \"all\", a list of modes or a table contact = letters, got {value!r}")


def parse_modes_text(text: str, contacts: Sequence[str], where: str = "--modes",
                     letters: str = MODE_LETTERS) -> ModeSelection:
    """The command-line form: ``all``, ``FFF,FFS`` or ``tip=F|S,base=F`` (module doc).

    Parameters
    ----------
    text : str
        The option's value.
    contacts : Sequence[str]
        The ``k`` contact names, in system order.
    where : str, optional
        The field named in error messages.
    letters : str, optional
        The contact model's letters (``parse_modes``).

    Returns
    -------
    ModeSelection
        The acceptable modes.

    Raises
    ------
    ContactModelError
        As ``parse_modes``, naming ``where`` (``--modes``).
    """
    text = text.strip()
    if text == "all":
        return ModeSelection()
    parts = [p.strip() for p in text.split(",")]
    if any("=" in p for p in parts):
        table = {}
        for p in parts:
            name, sep, allowed = p.partition("=")
            if not sep:
                raise ContactModelError(f"{where}: expected CONTACT=LETTERS[,CONTACT=LETTERS...], got {text!r}")
            table[name.strip()] = allowed
        return parse_modes(table, contacts, where, letters)
    return parse_modes(parts, contacts, where, letters)
