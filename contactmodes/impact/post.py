"""The analysis after an impact: for each consistent outcome, the instantaneous model at the
post-impact state ``(q, q̇⁺)`` analysed as any state (flipping paper, Sec. III), grouped by outcome
(``contactmodes analyze FILE --impact``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contactmodes.impact.outcomes import impact
from contactmodes.impact.result import ImpactResult

__all__ = ["PostImpact", "analyze_after_impact"]


@dataclass
class PostImpact:
    """The impact at a file's state and the analysis after each consistent outcome.

    Attributes
    ----------
    impact : ImpactResult
        Every outcome of the impact (``contactmodes.impact.outcomes.impact``).
    analyses : dict[str, AnalysisResult]
        Per consistent outcome's mode, the ``contactmodes.analysis.analyze.AnalysisResult`` at
        ``(q, q̇⁺)`` (``q̇⁺`` the outcome's reported velocity: one point of its set when the
        outcome leaves it ambiguous), in the file's units.
    """

    impact: ImpactResult
    analyses: dict

    def to_json(self) -> dict:
        """The ``contactmodes.impact/1`` document with each consistent outcome's analysis
        (``contactmodes.analysis/1``) under ``post_impact``."""
        doc = self.impact.to_json()
        for entry in doc["outcomes"]:
            result = self.analyses.get(entry["mode"]) if entry["consistent"] else None
            entry["post_impact"] = None if result is None else result.to_json()
        return doc


def analyze_after_impact(path: str | Path, pseudo_impulse: float = 0.0, **options) -> PostImpact:
    """The impact at the system file ``path``'s state and, for each consistent outcome, the
    analysis at ``(q, q̇⁺)``.

    Parameters
    ----------
    path : str or Path
        A system file whose state has an approaching contact (``docs/system-file.md``), planar
        or spatial (``dimension = 3``: the analyses keep the file's contact model).
    pseudo_impulse : float, optional
        ``δ_t`` (s) of the impact (``contactmodes.impact.outcomes.impact``).
    **options
        Passed to ``contactmodes.analysis.analyze.analyze`` (``modes``, ``task``, ``method``,
        ``unambiguous``, ``overlap_limit``, ``progress``, …).

    Returns
    -------
    PostImpact
        The impact and the analyses, keyed by outcome mode.

    Raises
    ------
    ContactModelError
        A bad file. (A system without actuators is analysed as any other: each post-impact mode
        is then consistent or not, its ``T_c`` in ``R^0``.)
    """
    from contactmodes.analysis.analyze import analyze
    from contactmodes.system_file.loader import load_system_file

    loaded = load_system_file(path)
    system = loaded.system
    result = impact(path, pseudo_impulse=pseudo_impulse)
    analyses = {}
    # a spatial file's mechanism takes the file's contact model (its friction polygon); a planar one has one
    model = getattr(loaded, "contact_model", None)
    same_model = {} if model is None else {"contact_model": model}
    for outcome in result.outcomes:
        if not outcome.consistent or outcome.qdot_plus is None:
            continue
        after = loaded.mechanism.contact_system(loaded.q, outcome.qdot_plus, constraints=system.constraints,
                                                name=system.name, disturbance=system.disturbance, **same_model)
        analyses[outcome.mode] = analyze(after, **options)
    return PostImpact(result, analyses)
