"""The one place where sweeps call the analysis pipeline (``contactmodes`` and ``polytopes``).

Everything a grid point of ``contactmodes sweep analyze`` needs from the toolkit goes through the
functions below, so that a change of the pipeline's public API (e.g. a per-system analysis
session object) is absorbed here:

* ``load_document`` — ``contactmodes.system_file.loader.load_system_file`` / ``parse_system``
  (the base file, validated; its parsed TOML table);
* ``build_system`` — ``parse_system`` of a point's table;
* ``check_modes`` — ``contactmodes.modes.enumeration.validate_mode``;
* ``torque_names`` — ``contactmodes.model.system.ContactSystem.torques``;
* ``analyze_point`` — one ``contactmodes.analysis.session.AnalysisSession`` per point, through
  which ``contactmodes.analysis.analyze``, ``unambiguous`` and
  ``inconsistent`` share every mode's domain;
  ``polytopes.union_bounding_box``, ``polytopes.union_volume``.

Sources: flipping paper Sec. III (``T_c``, eqs. 32–35; ambiguity III-G) and the bracing paper
(``T*_c``), as implemented in ``contactmodes.analysis.analyze`` and ``contactmodes.analysis.ambiguity``.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from polytopes import Polytope, union_bounding_box, union_volume

__all__ = ["load_document", "build_system", "build_loaded", "origin", "check_modes", "torque_names", "analyze_point", "box_json",
           "measure"]


def load_document(system: str | Path | Mapping[str, Any]) -> tuple[dict, str]:
    """The validated base system as ``(parsed table, source label)``.

    Parameters
    ----------
    system : str or pathlib.Path or Mapping[str, Any]
        A system-file path (TOML, or JSON with the same schema) or an already parsed table.

    Returns
    -------
    table : dict
        A deep copy of the parsed table (the sweep's points override keys in copies of it).
    source : str
        The path, or the system's name for a table.

    Raises
    ------
    SystemFileError
        When the base itself is invalid (or ``ApproachingContactError``).
    """
    from contactmodes.system_file.loader import load_system_file, parse_system

    if isinstance(system, Mapping):
        loaded = parse_system(system, mu_intervals=True)
        return copy.deepcopy(dict(system)), loaded.name
    loaded = load_system_file(system, mu_intervals=True)  # mu = [lo, hi]: docs/friction-intervals.md
    return copy.deepcopy(dict(loaded.raw)), str(system)


def build_system(doc: Mapping[str, Any], source: str = "<dict>"):
    """The ``ContactSystem`` of a parsed system table (at its state).

    Parameters
    ----------
    doc : Mapping[str, Any]
        A parsed system table (a grid point's copy).
    source : str, optional
        The base file's path (``origin``): files the table names (``mechanism.urdf``, a spatial
        file's robot) resolve from its directory; ``"<dict>"``: from the current directory.

    Returns
    -------
    ContactSystem
        SI units.

    Raises
    ------
    ContactModelError
        Naming the key path when the loader rejects the table.
    """
    return build_loaded(doc, source).system


def build_loaded(doc: Mapping[str, Any], source: str = "<dict>"):
    """The ``LoadedSystem`` of a parsed system table (friction intervals accepted: its ``friction``).

    Parameters
    ----------
    doc : Mapping[str, Any]
        A parsed system table.
    source : str, optional
        As ``build_system``.

    Returns
    -------
    LoadedSystem
        The model, the mechanism and the file's tables.

    Raises
    ------
    ContactModelError
        As ``build_system``.
    """
    from contactmodes.system_file.loader import parse_system

    return parse_system(doc, source, mu_intervals=True)


def origin(system: str | Path | Mapping[str, Any]) -> str:
    """Where the files a sweep's system table names are found: the base file's absolute path
    (its directory holds ``mechanism.urdf`` and a spatial file's robot, as when the file is
    loaded directly), or ``"<dict>"`` (the current directory) for a table given as a mapping.

    The path is absolute so that worker processes started in another directory find the files;
    workers on other machines need them at the same path.

    Parameters
    ----------
    system : str or pathlib.Path or Mapping[str, Any]
        The sweep's ``system`` option.

    Returns
    -------
    str
        An absolute path or ``"<dict>"``.
    """
    if isinstance(system, Mapping):
        return "<dict>"
    return str(Path(system).resolve())


def check_modes(system, modes: Sequence[str]) -> list[str]:
    """``modes`` validated against ``system`` (one letter of ``FSLR`` per contact).

    Parameters
    ----------
    system : ContactSystem
        The base system.
    modes : Sequence[str]
        Mode strings.

    Returns
    -------
    list[str]
        The modes.

    Raises
    ------
    ContactModelError
        Naming ``--mode`` for a string that is not a mode of ``system``.
    """
    from contactmodes.modes.contact_conditions import validate_mode

    return [validate_mode(m, system.contacts, "--mode", system.contact_model.letters) for m in modes]


def torque_names(system) -> list[str]:
    """The actuator (torque) names of ``system``, in the order of τ.

    Parameters
    ----------
    system : ContactSystem
        The system.

    Returns
    -------
    list[str]
        ``n_τ`` names.
    """
    return list(system.torques)


def _end(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def box_json(lo: np.ndarray, hi: np.ndarray) -> list[list[float | None]]:
    """``[[lo, hi] per torque]`` with ``None`` for an unbounded end (JSON has no infinity).

    Parameters
    ----------
    lo, hi : numpy.ndarray
        ``(n_τ,)`` the bounds (the system's units, ``±inf`` for none).

    Returns
    -------
    list[list[float or None]]
        ``n_τ`` pairs.
    """
    return [[_end(a), _end(b)] for a, b in zip(lo, hi)]


def measure(pieces: Sequence[Polytope], box: tuple[np.ndarray, np.ndarray] | None) -> float | None:
    """Lebesgue measure (length, area, volume in the ``n_τ`` torques) of a union of pieces with
    disjoint interiors, within ``box`` ``(lo, hi)`` if given; ``None`` when infinite (an
    unbounded full-dimensional piece and no box). Lower-dimensional pieces measure 0.

    Parameters
    ----------
    pieces : Sequence[Polytope]
        Over the ``n_τ`` torques (the system's units).
    box : tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)``, each ``(n_τ,)``, to clip to.

    Returns
    -------
    float or None
        In the torques' units to the power ``n_τ`` (N·m for one revolute torque, (N·m)² for two...).
    """
    if box is not None:
        clip = Polytope.box(*box)
        pieces = [p.intersect(clip) for p in pieces]
    value = union_volume([p for p in pieces if not p.is_empty()])
    return float(value) if math.isfinite(value) else None


def analyze_point(system, modes: Sequence[str], want_unambiguous: bool,
                  box: tuple[np.ndarray, np.ndarray] | None, friction=None) -> dict:
    """The ``analyze`` fields of one grid point (``contactmodes.sweep/1``, ``docs/sweeps.md``).

    Parameters
    ----------
    system : ContactSystem
        The ``ContactSystem`` at the point.
    modes : Sequence[str]
        The modes to report (validated by ``check_modes``).
    want_unambiguous : bool
        Also compute ``T*_c`` of each reported mode (its bounding box and measure).
    box : tuple[numpy.ndarray, numpy.ndarray] or None
        ``(lo, hi)``, each ``(n_τ,)``, the inconsistency box: the measure of the torques with no
        solution in it, and the box the ``T*_c`` measures are taken in; ``None`` for neither.
    friction : FrictionBox, optional
        The point's friction box (``mu = [lo, hi]``, ``docs/friction-intervals.md``): each mode
        also gets ``exists_box`` and ``forall_box`` (of ``T_c^∃``, ``T_c^∀``) and, with
        ``want_unambiguous``, ``robust_unambiguous_box`` and ``robust_unambiguous_measure``; the
        other fields are at the nominal μ (each interval's midpoint).

    Returns
    -------
    dict
        ``feasible_modes`` (every kinematically feasible mode with a non-empty domain, task
        constraints applied, analysis order), ``overlapping_pairs`` (pairs of those whose ``T_c``
        intersect, touching included), ``modes`` ``{mode: {feasible, kinematically_feasible,
        bounding_box[, unambiguous_box, unambiguous_measure]}}`` and with ``box``
        ``inconsistent_measure``. A mode is ``feasible`` when it may occur: it survives the
        enumeration (``kinematically_feasible``) and its ``T_c`` is non-empty — exactly when it
        is in ``feasible_modes``; ``bounding_box`` is that ``T_c``'s. Boxes are ``[[lo, hi] per torque]`` (N·m or N), ``None``
        ends where unbounded and ``None`` for an empty set; measures are ``None`` when infinite.
    """
    from contactmodes.analysis.analyze import analyze

    result = analyze(system, friction=friction)
    entries: dict[str, dict] = {}
    for m in modes:
        a = result.modes.get(m)  # None: pruned by the enumeration (Table III / Sec. III-F)
        feasible = a is not None and a.feasible
        entry: dict[str, Any] = {
            "feasible": bool(feasible),
            "kinematically_feasible": a is not None,
            "bounding_box": box_json(*a.box) if feasible and a is not None else None,
        }
        if want_unambiguous:
            pieces: list[Polytope] = []
            if feasible:
                u = result.unambiguous_for([m])[m]
                pieces = [p for p in u.unambiguous if not p.is_empty()]
            entry["unambiguous_box"] = box_json(*union_bounding_box(pieces)) if pieces else None
            entry["unambiguous_measure"] = measure(pieces, box)
        if result.friction is not None:
            entry.update(_friction_entry(result.friction, m, want_unambiguous, box))
        entries[m] = entry
    out: dict[str, Any] = {
        "feasible_modes": list(result.feasible_modes()),
        "overlapping_pairs": None if result.overlaps is None else len(result.overlaps),
        "modes": entries,
    }
    if box is not None:
        out["inconsistent_measure"] = measure(result.inconsistent_in(box[0], box[1]), None)
    return out


def _friction_entry(fa, mode: str, want_unambiguous: bool, box) -> dict:
    """A mode's fields over the friction box (``analyze_point``): the bounding boxes of
    ``T_c^∃`` and ``T_c^∀`` (``None`` when empty) and, with ``want_unambiguous``, the bounding
    box and measure of the robust ``T*_c`` (``contactmodes.analysis.friction_interval``)."""
    E, A = fa.exists(mode), fa.forall(mode)
    out: dict[str, Any] = {"exists_box": None if E is None else box_json(*E.bounding_box()),
                           "forall_box": None if A is None else box_json(*A.bounding_box())}
    if want_unambiguous:
        pieces = [p for p in fa.unambiguous(mode).unambiguous if not p.is_empty()]
        out["robust_unambiguous_box"] = box_json(*union_bounding_box(pieces)) if pieces else None
        out["robust_unambiguous_measure"] = measure(pieces, box)
    return out
