"""The compiled form of ``PlanarMechanism.dynamics_and_scales`` (``contactmodes.model.mechanism``):
the same quantities in one call, equal to the NumPy reference's within ``KERNEL_RTOL``.

A control step evaluates its mechanism once (``controllers.generic.step.MechanismStep``); in
NumPy that is some 150 calls on 2-vectors and 2 × n blocks (about a quarter of a millisecond for
the 6-contact snake, a third of its step). This kernel does the same arithmetic in loops compiled
by numba (``nopython``, no fast math), in the same order.

The products are written with an explicit fused multiply–add (``_fma``, LLVM's
``llvm.fma.f64``: one rounding, whatever the CPU), in the order of one OpenBLAS build's small
products (measured on NumPy's wheels): so the kernel's numbers do not depend on the CPU or the
BLAS, and on that build they are NumPy's bit for bit. NumPy's own numbers change with the BLAS
kernel (``OPENBLAS_CORETYPE``, another CPU) in the last bits:

* ``R @ r`` (2 × 2 by 2) and, for the columns ``j < 4·⌊n/4⌋``, ``u @ Jp`` and ``Jpᵀ @ v`` (2 by
  2 × n): ``fma(x₀, y₀, fma(x₁, y₁, 0))``; the last ``n mod 4`` columns and the 2-vector dot
  products: ``fma(x₁, y₁, fma(x₀, y₀, 0))``;
* ``Jpᵀ @ Jp`` (symmetric rank-2 update): ``fma(J₁ᵢ, J₁ⱼ, fma(J₀ᵢ, J₀ⱼ, 0))``;
* ``J_ω @ q̇`` (length n): ``s = 0; s = fma(aᵢ, bᵢ, s)`` in order;
* ``ω**2``: the C library's ``pow`` (CPython's, not ``ω·ω``); elementwise NumPy operations as
  written.

Agreement
---------
The mechanism checks the kernel against the NumPy reference before it uses it
(``PlanarMechanism._compiled_dynamics``), at rest and at a few seeded random states, by
``agrees``: every output must differ from the reference's by at most
``contactmodes.tolerances.KERNEL_RTOL`` times its quantity's scale (``reference_scales``), the
magnitude the rounding of both paths is relative to. With ``L`` the points' extent (the largest
distance between two of the mechanism's points: frame origins, centres of mass, point masses,
contacts), ``P`` the largest distance of a point from the world origin, ``cⱼ`` the size of a
Jacobian column (``L`` for an angle coordinate, whose column is a lever arm no longer than ``L``;
1 for the floating base's ``x``, ``y``), ``Ω = Σ |q̇ⱼ|`` over the angle coordinates (every link's
angular speed is at most ``Ω``), ``A = n Ω² L`` (a bound on a point's acceleration at ``q̈ = 0``:
at most ``n`` links' ``ω² r`` on its chain), ``m`` the total mass and ``I`` the total central
inertia:

* ``M``: ``m cᵢ cⱼ + I aᵢ aⱼ`` (``a`` the angle coordinates' indicator);
* ``h``: ``m cᵢ (A + |g|)``;
* ``J`` and the points' Jacobians: ``cⱼ``; ``J̇q̇``: ``A``;
* gaps: ``P + |sᵢ|`` (``sᵢ`` the contact line's point); positions, points, extent: ``P``.

A NaN must be a NaN in both. A kernel that drops or garbles a term is off by a sizeable fraction
of the scale, far beyond the bound (``tests/contactmodes/model/test_mechanism_kernel.py`` compares
the two on random mechanisms and states, and checks that a kernel off by more is refused). The
sign of a zero is not compared: no decision reads it, and NumPy's own differs between BLAS
kernels.

The orders above hold for ``n <= MAX_COORDINATES`` (larger mechanisms stay on NumPy). numba is
optional (the ``compiled`` extra): without it ``AVAILABLE`` is false and the NumPy path serves
every call.
"""

from __future__ import annotations

import math

import numpy as np

from contactmodes.tolerances import KERNEL_RTOL
from polytopes import batchlp_kernel

AVAILABLE = batchlp_kernel.AVAILABLE
MAX_COORDINATES = 11
"""The largest number of coordinates for which the products' orders above were measured."""

OUTPUTS = ("M", "h", "J", "Jdot_qdot", "gaps", "positions", "points", "jacobians", "extent")
"""The names of ``CompiledDynamics.evaluate``'s outputs, in its order."""

CACHE_DIR = batchlp_kernel.cache_dir_for(__file__, batchlp_kernel.__file__) if AVAILABLE else None
"""Directory of this module's compiled-kernel cache (``polytopes.batchlp_kernel.cache_dir_for``
of its sources), or ``None``."""

_jit = batchlp_kernel.jit_cached(CACHE_DIR)


def _fused_multiply_add():
    """numba's ``_fma(a, b, c)``: ``a·b + c`` rounded once (LLVM's ``llvm.fma.f64``); ``None``
    without numba (the kernels are then never called)."""
    if not AVAILABLE:
        return None
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def fma(typingctx, a, b, c):  # pragma: no cover - compiled
        sig = types.float64(types.float64, types.float64, types.float64)

        def codegen(context, builder, signature, args):
            dbl = ir.DoubleType()
            fn = builder.module.declare_intrinsic("llvm.fma", [dbl], ir.FunctionType(dbl, [dbl, dbl, dbl]))
            return builder.call(fn, args)

        return sig, codegen

    return fma


_fma = _fused_multiply_add()


@_jit
def _point(R, org, Jo, Ja, om, ao, link, x, y, two, p, Jp, a):  # pragma: no cover - compiled
    """``PlanarMechanism._point`` of the point ``(x, y)`` of ``link``: writes ``p`` (2,), ``Jp``
    (2, n), ``a`` (2,)."""
    n = Jp.shape[1]
    r0 = _fma(R[link, 0, 0], x, _fma(R[link, 0, 1], y, 0.0))
    r1 = _fma(R[link, 1, 0], x, _fma(R[link, 1, 1], y, 0.0))
    p[0] = org[link, 0] + r0
    p[1] = org[link, 1] + r1
    for j in range(n):
        Jp[0, j] = Jo[link, 0, j] + (-r1) * Ja[link, j]
        Jp[1, j] = Jo[link, 1, j] + r0 * Ja[link, j]
    w2 = om[link] ** two[0]
    a[0] = ao[link, 0] - w2 * r0
    a[1] = ao[link, 1] - w2 * r1


@_jit
def _add_mass(M, h, m, Jp, a, gravity):  # pragma: no cover - compiled
    """``M += m (Jpᵀ Jp)``, ``h += m (Jpᵀ (a + (0, g)))`` as ``_dynamics``'s ``add_mass``."""
    n = Jp.shape[1]
    n4 = (n // 4) * 4
    v0 = a[0] + 0.0
    v1 = a[1] + gravity
    for i in range(n):
        for j in range(n):
            M[i, j] = M[i, j] + m * _fma(Jp[1, i], Jp[1, j], _fma(Jp[0, i], Jp[0, j], 0.0))
        if i < n4:
            t = _fma(Jp[0, i], v0, _fma(Jp[1, i], v1, 0.0))
        else:
            t = _fma(Jp[1, i], v1, _fma(Jp[0, i], v0, 0.0))
        h[i] = h[i] + m * t


@_jit
def _row(u, Jp, out):  # pragma: no cover - compiled
    """``out = u @ Jp`` for ``u`` (2,), ``Jp`` (2, n)."""
    n = Jp.shape[1]
    n4 = (n // 4) * 4
    for j in range(n):
        if j < n4:
            out[j] = _fma(u[0], Jp[0, j], _fma(u[1], Jp[1, j], 0.0))
        else:
            out[j] = _fma(u[1], Jp[1, j], _fma(u[0], Jp[0, j], 0.0))


@_jit
def dynamics_kernel(parent, joint, jpos, lmass, com, inertia, pm_link, pm_mass, pm_pos, c_link, c_pos, c_surf,
                    c_normal, c_tangent, floating, base_pos, gravity, two, q, qd,
                    M, h, J, Jdq, gaps, positions, pts, jac):  # pragma: no cover - compiled
    """``PlanarMechanism._dynamics`` and the points of ``_scales`` in one pass (module doc).

    The mechanism's parts (``CompiledDynamics``): per link (topological order) ``parent`` (L,)
    (-1 for the root), ``joint`` (L,) coordinate index, ``jpos`` (L, 2), ``lmass`` (L,), ``com``
    (L, 2), ``inertia`` (L,); per point mass ``pm_link``, ``pm_mass``, ``pm_pos``; per contact
    ``c_link``, ``c_pos``, ``c_surf``, ``c_normal``, ``c_tangent``; ``floating``, ``base_pos``,
    ``gravity``, ``two`` ((1,) holding 2.0: the exponent of ``ω**2``, read at run time so that
    the compiler calls ``pow``). Writes ``M`` (n, n), ``h`` (n,), ``J`` (2k, n), ``Jdq`` (2k,),
    ``gaps`` (k,), ``positions`` (k, 2), ``pts`` (P, 2) and ``jac`` (P, 2, n), the points of the
    scales in ``_scales``' order; returns their extent (``CharacteristicScales.extent``)."""
    L = parent.shape[0]
    n = q.shape[0]
    ang = np.empty(L)
    org = np.zeros((L, 2))
    Jo = np.zeros((L, 2, n))
    Ja = np.zeros((L, n))
    om = np.empty(L)
    ao = np.zeros((L, 2))
    R = np.empty((L, 2, 2))
    for link in range(L):
        p = parent[link]
        if p < 0:
            if floating:
                org[link, 0] = q[0]
                org[link, 1] = q[1]
                ang[link] = q[2]
                Jo[link, 0, 0] = 1.0
                Jo[link, 1, 1] = 1.0
                Ja[link, 2] = 1.0
            else:
                org[link, 0] = base_pos[0]
                org[link, 1] = base_pos[1]
                ang[link] = q[0]
                Ja[link, 0] = 1.0
        else:  # the frame origin: the parent's point at the joint position
            _point(R, org, Jo, Ja, om, ao, p, jpos[link, 0], jpos[link, 1], two, org[link], Jo[link], ao[link])
            i = joint[link]
            ang[link] = ang[p] + q[i]
            for j in range(n):
                Ja[link, j] = Ja[p, j]
            Ja[link, i] += 1.0
        s = 0.0
        for j in range(n):
            s = _fma(Ja[link, j], qd[j], s)
        om[link] = s
        c = math.cos(ang[link])
        sn = math.sin(ang[link])
        R[link, 0, 0] = c
        R[link, 0, 1] = -sn
        R[link, 1, 0] = sn
        R[link, 1, 1] = c

    for i in range(n):
        h[i] = 0.0
        for j in range(n):
            M[i, j] = 0.0
    a = np.empty(2)
    k = 0
    for link in range(L):
        pts[k, 0] = org[link, 0]
        pts[k, 1] = org[link, 1]
        for j in range(n):
            jac[k, 0, j] = Jo[link, 0, j]
            jac[k, 1, j] = Jo[link, 1, j]
        k += 1
        _point(R, org, Jo, Ja, om, ao, link, com[link, 0], com[link, 1], two, pts[k], jac[k], a)
        if lmass[link] != 0.0:
            _add_mass(M, h, lmass[link], jac[k], a, gravity)
        k += 1
        if inertia[link] != 0.0:
            for i in range(n):
                for j in range(n):
                    M[i, j] = M[i, j] + inertia[link] * (Ja[link, i] * Ja[link, j])
    for e in range(pm_link.shape[0]):
        _point(R, org, Jo, Ja, om, ao, pm_link[e], pm_pos[e, 0], pm_pos[e, 1], two, pts[k], jac[k], a)
        if pm_mass[e] != 0.0:
            _add_mass(M, h, pm_mass[e], jac[k], a, gravity)
        k += 1
    Mc = M.copy()
    for i in range(n):
        for j in range(n):
            M[i, j] = 0.5 * (Mc[i, j] + Mc[j, i])
    for e in range(c_link.shape[0]):
        Jp = jac[k]
        _point(R, org, Jo, Ja, om, ao, c_link[e], c_pos[e, 0], c_pos[e, 1], two, pts[k], Jp, a)
        _row(c_tangent[e], Jp, J[2 * e])
        _row(c_normal[e], Jp, J[2 * e + 1])
        t, nv = c_tangent[e], c_normal[e]
        Jdq[2 * e] = _fma(t[1], a[1], _fma(t[0], a[0], 0.0))
        Jdq[2 * e + 1] = _fma(nv[1], a[1], _fma(nv[0], a[0], 0.0))
        d0 = pts[k, 0] - c_surf[e, 0]
        d1 = pts[k, 1] - c_surf[e, 1]
        gaps[e] = _fma(nv[1], d1, _fma(nv[0], d0, 0.0))
        positions[e, 0] = pts[k, 0]
        positions[e, 1] = pts[k, 1]
        k += 1

    P = pts.shape[0]
    length = 0.0
    if P > 1:
        for i in range(P):
            for j in range(P):
                d0 = pts[i, 0] - pts[j, 0]
                d1 = pts[i, 1] - pts[j, 1]
                v = math.sqrt(d0 * d0 + d1 * d1)
                if v != v:
                    return v
                if v > length:
                    length = v
    return length


class CompiledDynamics:
    """A mechanism's parts as the arrays of ``dynamics_kernel`` (made by
    ``PlanarMechanism._compiled_dynamics``; rebuilt when the mechanism changes).

    Parameters
    ----------
    links : list
        ``(parent index or -1, joint coordinate index or -1, joint_position (2,), mass, com (2,),
        inertia)`` per link in topological order.
    point_masses : list
        ``(link index, mass, position (2,))``.
    contacts : list
        ``(link index, position (2,), surface_point (2,), normal (2,), tangent (2,))``.
    floating : bool
        Floating root (else fixed at ``base_position``).
    base_position : numpy.ndarray
        ``(2,)``.
    gravity : float
        ``g`` (m/s²).
    n_q : int
        Number of coordinates.
    """

    def __init__(self, links: list, point_masses: list, contacts: list, floating: bool, base_position: np.ndarray,
                 gravity: float, n_q: int) -> None:
        f64, i64 = np.float64, np.int64
        self.parent = np.array([lk[0] for lk in links], dtype=i64)
        self.joint = np.array([lk[1] for lk in links], dtype=i64)
        self.jpos = np.array([lk[2] for lk in links], dtype=f64).reshape(-1, 2)
        self.lmass = np.array([lk[3] for lk in links], dtype=f64)
        self.com = np.array([lk[4] for lk in links], dtype=f64).reshape(-1, 2)
        self.inertia = np.array([lk[5] for lk in links], dtype=f64)
        self.pm_link = np.array([pm[0] for pm in point_masses], dtype=i64)
        self.pm_mass = np.array([pm[1] for pm in point_masses], dtype=f64)
        self.pm_pos = np.array([pm[2] for pm in point_masses], dtype=f64).reshape(-1, 2)
        self.c_link = np.array([c[0] for c in contacts], dtype=i64)
        self.c_pos, self.c_surf, self.c_normal, self.c_tangent = (
            np.array([c[i] for c in contacts], dtype=f64).reshape(-1, 2) for i in (1, 2, 3, 4))
        self.floating = bool(floating)
        self.base_position = np.array(base_position, dtype=f64)
        self.gravity = float(gravity)
        self.n_q = int(n_q)
        self._two = np.array([2.0])
        self.n_points = 2 * len(links) + len(point_masses) + len(contacts)

    def evaluate(self, q: np.ndarray, qd: np.ndarray) -> tuple:
        """``(M (n, n), h (n,), J (2k, n), Jdot_qdot (2k,), gaps (k,), positions (k, 2), points
        (P, 2), jacobians (P, 2, n), extent)`` at ``(q, q̇)`` (float64 arrays of length n)."""
        n, k = self.n_q, self.c_link.shape[0]
        M, h = np.empty((n, n)), np.empty(n)
        J, Jdq = np.empty((2 * k, n)), np.empty(2 * k)
        gaps, positions = np.empty(k), np.empty((k, 2))
        pts, jac = np.empty((self.n_points, 2)), np.empty((self.n_points, 2, n))
        length = dynamics_kernel(self.parent, self.joint, self.jpos, self.lmass, self.com, self.inertia, self.pm_link,
                                 self.pm_mass, self.pm_pos, self.c_link, self.c_pos, self.c_surf, self.c_normal,
                                 self.c_tangent, self.floating, self.base_position, self.gravity, self._two, q, qd,
                                 M, h, J, Jdq, gaps, positions, pts, jac)
        return M, h, J, Jdq, gaps, positions, pts, jac, float(length)


def reference_scales(form: CompiledDynamics, qd: np.ndarray, points: np.ndarray) -> tuple:
    """The scale of each output of ``form.evaluate`` at the velocity ``qd`` (module doc, *Agreement*).

    Parameters
    ----------
    form : CompiledDynamics
        The mechanism's parts (masses, inertias, contact lines, base type).
    qd : numpy.ndarray
        ``(n,)`` the velocity ``q̇`` (SI).
    points : numpy.ndarray
        ``(P, 2)`` the NumPy reference's points of the scales (m; ``PlanarMechanism._scale_points``).

    Returns
    -------
    tuple
        One non-negative array per output (``OUTPUTS``' order), broadcastable to its shape, in its
        units: ``M`` (n, n), ``h`` (n,), ``J`` (n,) per column, ``J̇q̇`` scalar, gaps (k,),
        positions, points and extent scalar, the Jacobians (n,) per column.
    """
    n = form.n_q
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    diff = pts[:, None, :] - pts[None, :, :]
    extent = float(np.sqrt((diff ** 2).sum(axis=2)).max()) if len(pts) > 1 else 0.0
    far = float(np.sqrt((pts ** 2).sum(axis=1)).max()) if len(pts) else 0.0
    angle = np.ones(n, dtype=bool)
    if form.floating:
        angle[:2] = False
    col = np.where(angle, extent, 1.0)
    omega = float(np.abs(np.asarray(qd, dtype=float)[angle]).sum())
    accel = n * omega * omega * extent
    mass = float(form.lmass.sum() + form.pm_mass.sum())
    inertia = float(form.inertia.sum())
    a = angle.astype(float)
    m_scale = mass * np.outer(col, col) + inertia * np.outer(a, a)
    h_scale = mass * col * (accel + abs(form.gravity))
    surf = np.sqrt((form.c_surf ** 2).sum(axis=1))
    return (m_scale, h_scale, col, np.float64(accel), far + surf, np.float64(far), np.float64(far), col,
            np.float64(far))


def agrees(form: CompiledDynamics, qd: np.ndarray, got: tuple, ref: tuple) -> bool:
    """Whether the kernel's outputs ``got`` equal the NumPy reference's ``ref`` within the bound.

    Parameters
    ----------
    form : CompiledDynamics
        The kernel's parts.
    qd : numpy.ndarray
        ``(n,)`` the velocity both were evaluated at.
    got, ref : tuple
        ``form.evaluate``'s outputs and the reference's, in ``OUTPUTS``' order.

    Returns
    -------
    bool
        Every output has the reference's shape, a NaN where it has one, and differs from it by at
        most ``KERNEL_RTOL`` times its scale (``reference_scales`` of the reference's points).
    """
    for g, r, scale in zip(got, ref, reference_scales(form, qd, ref[6])):
        g, r = np.asarray(g, dtype=float), np.asarray(r, dtype=float)
        if g.shape != r.shape:
            return False
        nan = np.isnan(r)
        if not np.array_equal(np.isnan(g), nan):
            return False
        if np.any(np.abs(g - r)[~nan] > (KERNEL_RTOL * np.broadcast_to(scale, r.shape))[~nan]):
            return False
    return True
