"""Timing of every mode's ``T_c`` and its projection onto two outputs at scale (issue 40, item 6).

Run: ``python benchmarks/bench_outputs.py [--feet 1,2,3,4] [--sides 4] [--sample N]``. For Solo-12
standing (``examples/spatial/solo12_standing.toml``) on the first ``k`` of its feet (a copy of the
file with fewer contacts) and friction polygons of ``n_f`` sides, one row per ``(k, n_f)``:

* ``modes``: the enumeration's count and the kinematically feasible ones (Table III / III-F);
  ``feasible``: modes with a nonempty ``D_c`` (= ``T_c`` here: at rest ``w = 0``);
* ``T_c s``: responses and emptiness of every ``D_c`` (``AnalysisSession.feasible_modes``, the
  stacked SVDs and one verified LP batch);
* ``sweep s``: every feasible mode's set of outputs ``qdd.z, qdd.wy`` by the batched sweep
  (``contactmodes.analysis.outputs.planar_outputs``) and how many it certified;
* ``--biped left,right``: Talos (``example-robot-data``, 30 actuated joints, knees bent) at rest
  on the four corners of each sole instead (``feet`` counts contacts);
* ``per-mode s``: the previous path (``mode_outputs``, one projection per mode) on ``N`` modes
  drawn at random (seed 0), scaled to all feasible modes, and the ratio ``per-mode / sweep`` —
  both measured in the same run. The sets are compared (``Polytope.equals``) on the sample.

Numbers are machine dependent (this 2-core machine is shared): quote the ratios.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import contactmodes as cm  # noqa: E402
from contactmodes.analysis.outputs import mode_outputs, output_spec, planar_outputs  # noqa: E402
from contactmodes.analysis.session import AnalysisSession  # noqa: E402

EXAMPLE = ROOT / "examples" / "spatial" / "solo12_standing.toml"
OUTPUTS = "qdd.z, qdd.wy"
HALF_SITTING = {"leg_{s}_3_joint": -0.411354, "leg_{s}_4_joint": 0.859395, "leg_{s}_5_joint": -0.448041}
"""Talos's knees bent (its "half-sitting" leg angles, rad): nonsingular leg Jacobians."""
SOLE_HEIGHT = 1.01927218
"""The base height (m) that puts both soles on the floor at those angles (Pinocchio's forward
kinematics of ``talos_reduced.urdf``; the soles are then level)."""
SOLE_CORNERS = ((0.1, 0.065), (0.1, -0.065), (-0.1, 0.065), (-0.1, -0.065))
"""Four corner contacts per sole (m, in the sole link's frame): Talos's sole is about 0.2 x 0.13 m."""


def talos(feet: str, sides: int, folder: Path) -> Path | None:
    """Talos (``example-robot-data``'s ``talos_reduced.urdf``: 32 joints, every one actuated) standing
    at rest on the corners of its soles (``feet``: ``"left"``, or ``"left,right"`` for the biped's
    eight contacts); ``None`` when example-robot-data is not installed."""
    try:
        from example_robot_data.robots_loader import getModelPath
    except ImportError:
        return None
    source = Path(getModelPath("talos_data/robots/talos_reduced.urdf")) / "talos_data" / "robots" / "talos_reduced.urdf"
    # the grippers' mimic joints (not supported) are fixed: 30 joints remain (legs, torso, arms, head)
    text = re.sub(r"<mimic[^>]*/>", "", source.read_text(encoding="utf-8"))
    text = re.sub(r'(<joint\s+name="gripper_[^"]*"\s+type=")[a-z]+"', r'\1fixed"', text)
    urdf = folder / "talos_reduced_fixed_grippers.urdf"
    urdf.write_text(text, encoding="utf-8")
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(urdf))
    lines = ['schema = "contactmodes.system/1"', f'name = "talos_{feet.replace(",", "_")}"', "dimension = 3", "",
             "[mechanism]", f'urdf = "{urdf.as_posix()}"', 'base = "floating"', "",
             "[friction]", f"sides = {sides}", 'polygon = "circumscribed"', ""]
    for side in feet.split(","):
        for k, (x, y) in enumerate(SOLE_CORNERS):
            lines += ["[[contacts]]", f'name = "{side[0].upper()}{k}"', f'link = "{side}_sole_link"',
                      f"position = [{x}, {y}, 0.0]", "surface_point = [0.0, 0.0, 0.0]",
                      "surface_normal = [0.0, 0.0, 1.0]", "mu = 0.8", ""]
    lines += ["[state.q]", f"base_position = [0.0, 0.0, {SOLE_HEIGHT}]", "base_quaternion = [1.0, 0.0, 0.0, 0.0]"]
    bent = {k.format(s=s): v for k, v in HALF_SITTING.items() for s in ("left", "right")}
    for name in list(model.names)[1:]:
        lines.append(f"{name} = {bent.get(name, 0.0)}")
    path = folder / f"talos_{feet.replace(',', '_')}_{sides}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def solo(feet: int, sides: int, folder: Path) -> Path:
    """The example with its first ``feet`` contacts and ``sides`` polygon sides (a copy)."""
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace('urdf = "solo12.urdf"', f'urdf = "{(EXAMPLE.parent / "solo12.urdf").as_posix()}"')
    text = text.replace("sides = 4", f"sides = {sides}")
    head, *contacts = text.split("[[contacts]]")
    last = contacts[-1]
    state = last[last.index("[state.q]"):]
    contacts[-1] = last[:last.index("[state.q]")]
    path = folder / f"solo_{feet}_{sides}.toml"
    path.write_text(head + "".join("[[contacts]]" + c for c in contacts[:feet]) + state, encoding="utf-8")
    return path


def row(path: Path, sample: int) -> dict:
    system = cm.load_system(path)
    s = AnalysisSession(system)
    t0 = time.perf_counter()
    en = s.enumeration
    feasible = s.feasible_modes(True)
    t_T = time.perf_counter() - t0
    spec = output_spec(system, OUTPUTS)
    t0 = time.perf_counter()
    fast = planar_outputs(s, feasible, spec)
    t_sweep = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    picked = list(rng.choice(feasible, min(sample, len(feasible)), replace=False))
    t0 = time.perf_counter()
    slow = {m: mode_outputs(s.mode(m), spec) for m in picked}
    t_slow = (time.perf_counter() - t0) * len(feasible) / max(1, len(picked))
    same = all(fast[m].set.equals(slow[m].set) for m in picked if m in fast)
    return dict(total=en.total, kin=en.after_acceleration, feasible=len(feasible), t_T=t_T, t_sweep=t_sweep,
                certified=len(fast), t_slow=t_slow, same=same)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--feet", default="1,2,3,4")
    ap.add_argument("--sides", default="4")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--biped", default=None, metavar="FEET",
                    help="instead, Talos on the corners of these soles ('left' or 'left,right')")
    args = ap.parse_args(argv)
    print(f"{'feet':>4} {'n_f':>3} {'modes':>7} {'kin.':>7} {'feasible':>8} {'T_c s':>7} {'sweep s':>8} "
          f"{'certified':>9} {'per-mode s':>10} {'ratio':>6} same")
    with tempfile.TemporaryDirectory() as tmp:
        for sides in (int(v) for v in args.sides.split(",")):
            for feet in (int(v) for v in args.feet.split(",")) if args.biped is None else [4 * len(args.biped.split(","))]:
                path = solo(feet, sides, Path(tmp)) if args.biped is None else talos(args.biped, sides, Path(tmp))
                if path is None:
                    print("example-robot-data is not installed")
                    return 1
                r = row(path, args.sample)
                print(f"{feet:>4} {sides:>3} {r['total']:>7} {r['kin']:>7} {r['feasible']:>8} {r['t_T']:>7.2f} "
                      f"{r['t_sweep']:>8.2f} {r['certified']:>9} {r['t_slow']:>10.1f} "
                      f"{r['t_slow'] / max(r['t_sweep'], 1e-9):>6.0f} {r['same']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
