"""Planar examples embedded in 3-D give the planar ``T_c`` under the default and the exact
projection method (issue 40, Tests: "Planar examples embedded in 3-D ... give the planar T_c under
the default and the exact method").

The two-link brace (``examples/two_link_brace.urdf``, every joint axis along ``−y``) between its
walls, read once as a planar mechanism (``load_urdf``, plane ``x–z``) and once as a spatial one,
actuated at its joint (``tau1``) and at its base by a world force along ``x`` (``fx``) and along the
planar ``y`` = world ``z`` (``fz``): the same three generalized forces in both models. With ``t1``
the planar tangent (``n × (−y)``) the circumscribed square's sides along ``±t1`` are the planar
friction rows, and a planar mode has a spatial counterpart letter by letter: ``F → F``, ``S → S``,
``L → a`` (force on the side of normal ``+t1``: ``f_t1 = μ f_n``, ``−ẍ_t1 >= 0``, ``ẍ_t2 = 0``),
``R → c`` (normal ``−t1``). Out of the plane the three contact points are not collinear, so those
letters' ``ẍ_t2 = 0`` hold the out-of-plane motion and, with no out-of-plane load, give ``f_t2 =
0``: the spatial ``T_c`` must equal the planar one. The comparison is by support functions in
random directions (HiGHS LPs on each polytope), between two computations of one run, for every
kinematically feasible planar mode.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("pinocchio")

import contactmodes as cm  # noqa: E402
from contactmodes.model.spatial import SpatialMechanism  # noqa: E402
from contactmodes.modes.response import solve_response  # noqa: E402

from _support.paths import EXAMPLES  # noqa: E402

COUNTERPART = str.maketrans({"F": "F", "S": "S", "L": "a", "R": "c"})


@pytest.fixture(scope="module")
def brace_pair():
    from contactmodes.model.urdf import load_urdf

    path = EXAMPLES / "two_link_brace.urdf"
    walls = [("base", "link1", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)),
             ("tip", "link2_tip", (0.0, 0.0), (0.0, 0.0), (-1.0, 0.0)),
             ("joint", "link2", (0.0, 0.0), (-0.127 * math.cos(math.pi / 4), 0.0), (1.0, 0.0))]
    planar = load_urdf(path, plane="xz", base="floating")
    spatial = SpatialMechanism(path, base="floating")
    for name, link, (a, b), point, normal in walls:
        planar.add_contact(name, link, (a, b), point, normal, 0.3)
        n3 = np.array([normal[0], 0.0, normal[1]])
        spatial.add_contact(name, link, (a, 0.0, b), (point[0], 0.0, point[1]), n3, 0.3,
                            tangent=np.cross(n3, [0.0, -1.0, 0.0]))
    for name, p_coord, s_coord in (("tau1", "theta1", "theta1"), ("fx", "x", "x"), ("fz", "y", "z")):
        planar.add_actuator(name, p_coord)
        spatial.add_actuator(name, s_coord)
    theta, theta1 = 3 * math.pi / 4, -math.pi / 2
    p_sys = planar.contact_system(np.array([0.0, 0.0, theta, theta1]), np.zeros(4))
    half = -theta / 2.0  # the planar angle θ (about −y) is a rotation by −θ about +y
    q = np.array([0.0, 0.0, 0.0, math.cos(half), 0.0, math.sin(half), 0.0, theta1])
    s_sys = spatial.contact_system(q, np.zeros(6 + 1))
    assert np.abs(spatial.contact_gaps(q)).max() < 1e-12
    assert p_sys.torques == s_sys.torques == ("tau1", "fx", "fz")
    return p_sys, s_sys


def _same_set(P, Q, rng, n_dirs=40):
    """Equal dimension and equal support functions in random directions (``inf`` matched)."""
    assert P.is_empty() == Q.is_empty()
    if P.is_empty():
        return
    assert P.affine_dimension() == Q.affine_dimension()
    for d in rng.normal(size=(n_dirs, P.dim)):
        a, b = P.support(d), Q.support(d)
        if math.isinf(a) or math.isinf(b):
            assert a == b, (d, a, b)
        else:
            assert b == pytest.approx(a, rel=1e-7, abs=1e-7 * max(1.0, abs(a))), (d, a, b)


@pytest.mark.parametrize("method", ["auto", "exact"])
def test_the_brace_in_space_gives_every_planar_torque_set(brace_pair, method):
    if method == "exact":
        pytest.importorskip("ppl")
    p_sys, s_sys = brace_pair
    planar = cm.analyze(p_sys, method=method, compute_overlaps=False)
    modes = planar.feasible_modes()
    assert "FFF" in modes and len(modes) >= 5  # a fair sample of the planar modes, sliding ones too
    assert any(set(m) & set("LR") for m in modes)
    spatial_modes = [m.translate(COUNTERPART) for m in modes]
    # the sticking sets are projections (ambiguity variables: the brace is statically indeterminate)
    assert solve_response(s_sys, "FFF").n_w > 0 and solve_response(p_sys, "FFF").n_w > 0
    spatial = cm.analyze(s_sys, method=method, compute_overlaps=False)
    # the enumeration (footnote 5) too: its modes over the letters F, S, a, c are the planar ones
    assert sorted(m for m in spatial.feasible_modes() if set(m) <= set("FSac")) == sorted(spatial_modes)
    rng = np.random.default_rng(40)
    for m, s in zip(modes, spatial_modes):
        assert spatial.modes[s].feasible, (m, s)
        _same_set(planar.modes[m].T, spatial.modes[s].T, rng)


def test_the_brace_in_space_gives_the_same_sets_by_both_methods(brace_pair):
    """The exact projection (pplpy) and the default agree on the spatial brace, on modes the
    enumeration drops too (``FFa``, ``aFF``, ``cFS``: not kinematically feasible, as their planar
    counterparts ``FFL``, ``LFF``, ``RFS`` are not)."""
    pytest.importorskip("ppl")
    _, s_sys = brace_pair
    modes = ["FFF", "FSF", "SFF", "FFa", "aFF", "cFS"]
    auto = cm.analyze(s_sys, modes=modes, compute_overlaps=False)
    exact = cm.analyze(s_sys, modes=modes, method="exact", compute_overlaps=False)
    rng = np.random.default_rng(41)
    for m in modes:
        assert auto.modes[m].feasible == exact.modes[m].feasible
        if auto.modes[m].feasible:
            _same_set(auto.modes[m].T, exact.modes[m].T, rng)
