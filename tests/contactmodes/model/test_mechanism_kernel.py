"""The compiled mechanism (``contactmodes.model._mechanism_kernel``) against the NumPy reference.

The reference is ``PlanarMechanism``'s NumPy path (itself tested against sympy Lagrange
equations and finite differences in ``test_mechanism.py``); the kernel must give its numbers bit
for bit — signed zeros included — on random mechanisms (floating and fixed bases, massless
links, point masses, zero offsets, 0–6 contacts, up to ``MAX_COORDINATES`` coordinates) at
random states, at rest and fast enough for the scales' speeds to count. The mechanism's own
check must refuse a kernel that differs in one bit, and follow changes of the mechanism.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from contactmodes.model.mechanism import PlanarMechanism

pytest.importorskip("numba")

from contactmodes.model import _mechanism_kernel  # noqa: E402

RNG = np.random.default_rng(20261126)


def _bits(x) -> bytes:
    return np.asarray(x, dtype=float).tobytes()


def _random_mechanism(rng, fixed: bool) -> PlanarMechanism:
    m = PlanarMechanism(base="fixed" if fixed else "floating", gravity=float(rng.choice([9.81, 0.0, 1.62])),
                        base_position=rng.normal(0.0, 1.0, 2))
    # a fixed root has one coordinate per link, a floating one three plus one per further link
    most = _mechanism_kernel.MAX_COORDINATES if fixed else _mechanism_kernel.MAX_COORDINATES - 2
    names: list[str] = []
    for i in range(int(rng.integers(1, most + 1))):
        kw = dict(mass=float(rng.choice([0.0, rng.uniform(0.01, 5.0)])),
                  com=rng.normal(0.0, 0.3, 2) * float(rng.choice([0.0, 1.0])),
                  inertia=float(rng.choice([0.0, rng.uniform(0.0, 1.0)])))
        if not names:
            m.add_link("l0", None, "j0" if fixed else None, **kw)
        else:
            m.add_link(f"l{i}", names[int(rng.integers(0, len(names)))], f"j{i}",
                       joint_position=rng.normal(0.0, 0.5, 2) * float(rng.choice([0.0, 1.0, 1.0])), **kw)
        names.append(f"l{i}")
    for _ in range(int(rng.integers(0, 3))):
        m.add_point_mass(names[int(rng.integers(0, len(names)))], float(rng.choice([0.0, 0.5])),
                         rng.normal(0.0, 0.2, 2))
    for c in range(int(rng.integers(0, 7))):
        normal = rng.normal(0.0, 1.0, 2) if rng.random() < 0.5 else np.array([0.0, 1.0])
        m.add_contact(f"c{c}", names[int(rng.integers(0, len(names)))], rng.normal(0.0, 0.3, 2),
                      rng.normal(0.0, 1.0, 2), normal, 0.5)
    return m


def _states(rng, n: int, count: int):
    for t in range(count):
        q = rng.normal(0.0, 2.0, n)
        qd = rng.normal(0.0, (0.0, 1e-3, 1.0, 100.0)[t % 4], n)
        if t % 5 == 0:
            qd[rng.random(n) < 0.5] = -0.0
        if t % 6 == 0:
            q[rng.random(n) < 0.5] = -0.0
        yield q, qd


@pytest.mark.parametrize("seed", range(6))
def test_kernel_gives_the_numpy_numbers_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    for trial in range(25):
        mech = _random_mechanism(rng, fixed=trial % 3 == 0)
        assert 0 < mech.n_q <= _mechanism_kernel.MAX_COORDINATES
        form = mech._kernel_parts()
        assert form is not None
        for q, qd in _states(rng, mech.n_q, 12):
            M, h, J, Jdq, gaps, positions, pts, jac, length = form.evaluate(q, qd)
            d, scales = mech._numpy_dynamics_and_scales(q, qd)
            for got, ref in ((M, d.M), (h, d.h), (J, d.J), (Jdq, d.Jdot_qdot), (gaps, d.gaps),
                             (positions, d.positions)):
                assert got.shape == ref.shape and _bits(got) == _bits(ref)
            d2, s2 = mech.dynamics_and_scales(q, qd)  # the checked kernel, through the public path
            assert mech._compiled_dynamics() is not None
            for name in ("M", "h", "J", "Jdot_qdot", "v_contact", "gaps", "positions"):
                assert _bits(getattr(d2, name)) == _bits(getattr(d, name)), name
            assert _bits([s2.length, s2.mass, s2.time]) == _bits([scales.length, scales.mass, scales.time])


def test_a_kernel_one_bit_off_is_refused(monkeypatch):
    mech = _random_mechanism(np.random.default_rng(3), fixed=False)
    evaluate = _mechanism_kernel.CompiledDynamics.evaluate

    def off(self, q, qd):
        out = list(evaluate(self, q, qd))
        out[1] = out[1].copy()
        out[1][-1] = np.nextafter(out[1][-1], np.inf)  # h, last entry, one ulp up
        return tuple(out)

    monkeypatch.setattr(_mechanism_kernel.CompiledDynamics, "evaluate", off)
    assert mech._compiled_dynamics() is None
    q, qd = RNG.normal(size=mech.n_q), RNG.normal(size=mech.n_q)
    d, _ = mech.dynamics_and_scales(q, qd)
    ref, _ = mech._numpy_dynamics_and_scales(q, qd)
    assert _bits(d.h) == _bits(ref.h)


def test_the_check_follows_the_mechanism():
    mech = PlanarMechanism(base="floating")
    mech.add_link("body", mass=1.0, inertia=0.1)
    first = mech._compiled_dynamics()
    assert first is not None and first.c_link.size == 0
    mech.add_contact("toe", "body", (0.1, -0.2), (0.0, 0.0), (0.0, 1.0), 0.5)
    second = mech._compiled_dynamics()
    assert second is not first and second.c_link.size == 1
    q, qd = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.4, 2.0])
    assert mech.dynamics_and_scales(q, qd)[0].J.shape == (2, 3)
    mech.gravity = 1.62  # a public attribute the kernel compiles in: checked again
    third = mech._compiled_dynamics()
    assert third is not second and third.gravity == 1.62
    assert _bits(mech.dynamics_and_scales(q, qd)[0].h) == _bits(mech._numpy_dynamics_and_scales(q, qd)[0].h)
    copy = pickle.loads(pickle.dumps(mech))  # another process checks again against its own NumPy
    assert copy._kernel_form is None and copy._compiled_dynamics() is not None


def test_larger_mechanisms_stay_on_numpy():
    mech = PlanarMechanism(base="floating")
    mech.add_link("l0", mass=1.0)
    for i in range(1, _mechanism_kernel.MAX_COORDINATES - 1):
        mech.add_link(f"l{i}", f"l{i - 1}", f"j{i}", joint_position=(0.1, 0.0), mass=0.1)
    assert mech.n_q == _mechanism_kernel.MAX_COORDINATES + 1
    assert mech._kernel_parts() is None and mech._compiled_dynamics() is None
