"""The compiled mechanism (``contactmodes.model._mechanism_kernel``) against the NumPy reference.

The reference is ``PlanarMechanism``'s NumPy path (itself tested against sympy Lagrange
equations and finite differences in ``test_mechanism.py``); the kernel must give its numbers
within ``contactmodes.tolerances.KERNEL_RTOL`` of each quantity's scale on random mechanisms
(floating and fixed bases, massless links, point masses, zero offsets, 0–6 contacts, up to
``MAX_COORDINATES`` coordinates) at random states, at rest (signed zeros included) and fast enough
for the scales' speeds to count, whatever BLAS kernel NumPy runs. The scales are computed here
from the module's formula (``_mechanism_kernel``, *Agreement*) on the reference's own points, not
by the module's function. The mechanism's own check must accept the kernel on every machine
(the examples under another OpenBLAS kernel, in a child process), refuse one off by more than the
bound or missing a term, and follow changes of the mechanism.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from contactmodes.model.mechanism import PlanarMechanism
from contactmodes.tolerances import KERNEL_RTOL

pytest.importorskip("numba")

from contactmodes.model import _mechanism_kernel  # noqa: E402

RNG = np.random.default_rng(20261126)


def _bits(x) -> bytes:
    return np.asarray(x, dtype=float).tobytes()


def _scales(mech: PlanarMechanism, qd: np.ndarray, points: np.ndarray) -> dict:
    """The scale of each quantity (``_mechanism_kernel``'s formula), from the mechanism's public
    parts and the reference's points."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    extent = max((float(np.hypot(*(a - b))) for a in pts for b in pts), default=0.0)
    far = max((float(np.hypot(*p)) for p in pts), default=0.0)
    angle = np.arange(mech.n_q) >= (2 if mech.base == "floating" else 0)  # x, y first on a floating base
    col = np.where(angle, extent, 1.0)
    omega = float(np.abs(qd[angle]).sum())
    accel = mech.n_q * omega ** 2 * extent
    parts = mech.parts()
    mass = sum(lk["mass"] for lk in parts.links) + sum(m for _, m, _ in parts.point_masses)
    inertia = sum(lk["inertia"] for lk in parts.links)
    return {"M": mass * np.outer(col, col) + inertia * np.outer(angle, angle),
            "h": mass * col * (accel + abs(mech.gravity)), "J": col, "Jdot_qdot": accel,
            "gaps": far + np.array([float(np.hypot(*c["surface_point"])) for c in parts.contacts]),
            "positions": far, "points": far, "jacobians": col, "extent": far}


def _assert_within(got, ref, scale, name: str) -> None:
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    assert got.shape == ref.shape, name
    assert np.all(np.isfinite(got)) and np.all(np.isfinite(ref)), name
    err = np.abs(got - ref)
    bound = KERNEL_RTOL * np.broadcast_to(scale, ref.shape)
    assert np.all(err <= bound), (name, float(np.max(err / np.where(bound > 0, bound, np.inf), initial=0.0)))


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


def _reference(mech: PlanarMechanism, q, qd) -> tuple:
    """The NumPy reference's ``(dynamics, scales, points (P, 2), jacobians (P, 2, n))``."""
    d, scales = mech._numpy_dynamics_and_scales(q, qd)
    states = mech._link_states(q, qd)
    pts, jac = mech._scale_points(states)
    return d, scales, np.array(pts).reshape(-1, 2), np.array(jac).reshape(-1, 2, mech.n_q)


@pytest.mark.parametrize("seed", range(6))
def test_kernel_gives_the_numpy_numbers_within_the_bound(seed):
    rng = np.random.default_rng(seed)
    for trial in range(25):
        mech = _random_mechanism(rng, fixed=trial % 3 == 0)
        assert 0 < mech.n_q <= _mechanism_kernel.MAX_COORDINATES
        form = mech._kernel_parts()
        assert form is not None
        assert mech._compiled_dynamics() is not None  # accepted, on whatever BLAS runs NumPy
        for q, qd in _states(rng, mech.n_q, 12):
            M, h, J, Jdq, gaps, positions, pts, jac, length = form.evaluate(q, qd)
            d, scales, ref_pts, ref_jac = _reference(mech, q, qd)
            sc = _scales(mech, qd, ref_pts)
            for name, got, ref in (("M", M, d.M), ("h", h, d.h), ("J", J, d.J), ("Jdot_qdot", Jdq, d.Jdot_qdot),
                                   ("gaps", gaps, d.gaps), ("positions", positions, d.positions),
                                   ("points", pts, ref_pts), ("jacobians", jac, ref_jac),
                                   ("extent", length, np.max(np.hypot(*(ref_pts[:, None] - ref_pts[None]).T),
                                                             initial=0.0))):
                _assert_within(got, ref, sc[name], name)
            d2, s2 = mech.dynamics_and_scales(q, qd)  # the checked kernel, through the public path
            for name in ("M", "h", "J", "Jdot_qdot", "gaps", "positions"):
                _assert_within(getattr(d2, name), getattr(d, name), sc[name], name)
            _assert_within(d2.v_contact, d.v_contact, sc["J"] @ np.abs(qd) * (1 + mech.n_q), "v_contact")
            # the scales: the extent to the bound, the time through v²/L (relative, a few ulps more)
            assert s2.mass == scales.mass
            assert abs(s2.length - scales.length) <= KERNEL_RTOL * sc["extent"]
            assert abs(s2.time - scales.time) <= 4 * KERNEL_RTOL * scales.time


def test_a_kernel_a_few_ulps_off_is_accepted_and_one_far_off_refused(monkeypatch):
    """The check is a bound, not identity: 4 ulps off in one entry of ``h`` passes; 1e-9 of the
    entry's scale (some 20 000 bounds) does not, nor does a kernel that drops gravity from ``h``
    (a missing term), nor one whose ``J`` has the wrong shape."""
    evaluate = _mechanism_kernel.CompiledDynamics.evaluate

    def patched(change):
        def off(self, q, qd):
            out = list(evaluate(self, q, qd))
            change(out)
            return tuple(out)
        return off

    def ulps(out):
        out[1] = out[1].copy()
        for _ in range(4):
            out[1][-1] = np.nextafter(out[1][-1], np.inf)

    def far(out):
        out[1] = out[1].copy()
        out[1][-1] += 1e-9 * max(1.0, abs(out[1][-1]))

    def transposed(out):
        out[2] = out[2].T.copy()

    mech = PlanarMechanism(base="floating")
    mech.add_link("body", mass=2.0, inertia=0.1)
    mech.add_link("leg", "body", "hip", joint_position=(0.2, 0.0), mass=0.3, com=(0.0, -0.1), inertia=0.01)
    mech.add_contact("toe", "leg", (0.0, -0.25), (0.0, -0.5), (0.0, 1.0), 0.5)  # J: 2 × 4
    monkeypatch.setattr(_mechanism_kernel.CompiledDynamics, "evaluate", patched(ulps))
    assert mech._compiled_dynamics() is not None
    for change in (far, transposed):
        mech._kernel_key = None  # check again (as after a change of the mechanism)
        monkeypatch.setattr(_mechanism_kernel.CompiledDynamics, "evaluate", patched(change))
        assert mech._compiled_dynamics() is None, change.__name__
        q, qd = RNG.normal(size=mech.n_q), RNG.normal(size=mech.n_q)
        d, _ = mech.dynamics_and_scales(q, qd)
        ref, _ = mech._numpy_dynamics_and_scales(q, qd)
        assert _bits(d.h) == _bits(ref.h) and _bits(d.J) == _bits(ref.J)  # NumPy serves the call
    monkeypatch.undo()
    assert mech.gravity > 0.0
    form = mech._kernel_parts()
    form.gravity = 0.0  # the kernel without gravity: a missing term
    assert not mech._kernel_agrees(form)
    assert mech._kernel_agrees(mech._kernel_parts())


def test_the_examples_run_compiled_under_another_blas_kernel():
    """The snake, the quadruped and the two-link brace (issue 39: they fell back to NumPy on an
    AMD CPU, whose OpenBLAS kernels round otherwise) run compiled under ``OPENBLAS_CORETYPE``
    values other than this machine's default, in child processes (the variable is read when
    OpenBLAS loads). ``Prescott`` (NumPy's OpenBLAS has no such core and takes its SSE-only
    ``Katmai`` kernels) runs on every x86-64 CPU; ``Haswell`` where AVX2 is (else OpenBLAS would
    fault: left out); other architectures skip."""
    import os
    import platform
    import subprocess
    import sys

    from _support.paths import ROOT

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("OpenBLAS's x86-64 kernels (OPENBLAS_CORETYPE) only")

    script = """
from contactmodes.system_file.loader import load_system_file
for f, lifted in (("snake/snake_chimney.toml", True), ("quadruped/quadruped.toml", True),
                  ("two_link_brace.toml", False), ("six_link_brace.toml", False)):
    print(f, load_system_file("examples/" + f, lifted_contacts=lifted).mechanism.compile_dynamics())
"""
    cores = ["Prescott"]
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            if " avx2" in fh.read():
                cores.append("Haswell")
    except OSError:
        pass
    for core in cores:
        env = dict(os.environ, OPENBLAS_CORETYPE=core)
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.split("\n")
        assert [ln.split()[-1] for ln in lines if ln] == ["True"] * 4, (core, out.stdout)


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
    d, ref = mech.dynamics_and_scales(q, qd)[0], mech._numpy_dynamics_and_scales(q, qd)[0]
    # h's scale m c (n Ω² L + g) with m = 1, c <= 1, n = 3, Ω = 2, L = |toe| = √0.05 (module doc)
    assert abs(d.h - ref.h).max() <= KERNEL_RTOL * (3 * 2.0 ** 2 * 0.05 ** 0.5 + 1.62)
    copy = pickle.loads(pickle.dumps(mech))  # another process checks again against its own NumPy
    assert copy._kernel_form is None and copy._compiled_dynamics() is not None


def test_larger_mechanisms_stay_on_numpy():
    mech = PlanarMechanism(base="floating")
    mech.add_link("l0", mass=1.0)
    for i in range(1, _mechanism_kernel.MAX_COORDINATES - 1):
        mech.add_link(f"l{i}", f"l{i - 1}", f"j{i}", joint_position=(0.1, 0.0), mass=0.1)
    assert mech.n_q == _mechanism_kernel.MAX_COORDINATES + 1
    assert mech._kernel_parts() is None and mech._compiled_dynamics() is None
