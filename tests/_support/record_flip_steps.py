"""Record every step of the two reference max-thrust flips (μ_t = 0.39 and 0.6, the defaults,
1 s at most, as ``tests/controllers/rhex/test_rhex_realtime.py`` runs them): per step the time
(s), the commanded torque (N·m), the 4-letter mode, the predicted θ̈ (rad/s²) and the status.

Run once on the code before the generic controller replaced ``MaxThrustController``'s own search
(commit of issue 24 item 3), before the margin (``contactmodes.control.margin``): the torques are
the supremum points, which ``margin=0`` returns (no recorded step was nudged off one);
``tests/controllers/generic/test_generic_rhex.py`` compares the controller of today with these
files. Writes only where told::

    python tests/_support/record_flip_steps.py --out tests/data/flip_steps
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

#: the two reference flips: file stem -> toe friction
FLIPS = {"max_thrust_mu039": 0.39, "max_thrust_mu060": 0.6}
DURATION = 1.0


def record(mu_toe: float, margin: float = 0.0, shadow=None, calls: list | None = None) -> dict:
    """The per-step record of one flip (module doc) as a JSON-ready dict, under a
    ``MaxThrustController`` with ``margin`` (N·m; 0, the recorded controller's). ``shadow``
    (optional): a callable ``shadow(t, state, params)`` called at every step after the controller,
    at the same state (its answer is not applied). ``calls``, when given, receives per control
    step ``(state (18,), controller.last, params)``: what a test needs to examine the step at its
    state (the record itself is unchanged)."""
    from controllers.rhex import RHexParams, simulate
    from controllers.rhex.max_thrust import MaxThrustController

    p = RHexParams(mu_toe=mu_toe)
    c = MaxThrustController(p, margin=margin)

    def loop(t, state, params=None):
        out = c(t, state, params)
        if calls is not None:
            calls.append((np.array(state, dtype=float), c.last, p))
        if shadow is not None:
            shadow(t, state, params)
        return out

    r = simulate(loop if (shadow is not None or calls is not None) else c, p, duration=DURATION)
    steps = []
    for rec, tau in zip(c.log, r.commanded):
        steps.append({"t": float(rec.t), "tau": [float(x).hex() for x in tau], "mode": rec.mode,
                      "predicted": None if not math.isfinite(rec.predicted) else float(rec.predicted).hex(),
                      "status": rec.status})
    return {"schema": "contactmodes.test.flip-steps/1", "mu_toe": mu_toe, "duration": DURATION,
            "outcome": r.outcome, "steps": steps}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="folder to write the JSON files into")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for stem, mu in FLIPS.items():
        doc = record(mu)
        (args.out / f"{stem}.json").write_text(json.dumps(doc, indent=0) + "\n", encoding="utf-8")
        print(f"{stem}: {len(doc['steps'])} steps, {doc['outcome']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
