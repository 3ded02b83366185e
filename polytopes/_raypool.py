"""Recession directions shared between related polyhedra, as *hints* for bounding boxes.

The domains of one analysis (many contact modes of one system) share most of their rows, and so
most of the extreme rays of their recession cones. ``polytopes.Polytope.bounding_box`` finds
the unbounded sides of a box from recession rays; with a ``RayPool`` it first tries the rays
met on earlier sets and runs the double description of the recession cone only when the pool
leaves more than half of the sides undecided (the rays it then finds join the pool). A pooled ray
proves a side unbounded only after the ray check of ``polytopes.lp`` on the set itself
(``G r <= 0`` on its inner system, positive along the axis), so a pool can cost time, never a
wrong bound.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RayPool"]

DECIMALS = 9
"""Rays equal after normalization to unit max-norm and rounding to this many decimals are one."""


class RayPool:
    """A bounded, deduplicated collection of directions in ``R^dim``, most recent first.

    Parameters: ``dim`` the ambient dimension; ``capacity`` the most rays kept (the oldest are
    dropped first). Not thread-safe (one pool per analysis)."""

    def __init__(self, dim: int, capacity: int = 2048) -> None:
        self.dim = int(dim)
        self.capacity = int(capacity)
        self._rays = np.zeros((0, self.dim))
        self._keys: list[bytes] = []

    def __len__(self) -> int:
        return len(self._rays)

    @property
    def rays(self) -> np.ndarray:
        """(r, dim) the pooled directions, unit max-norm (read-only view)."""
        view = self._rays.view()
        view.setflags(write=False)
        return view

    def add(self, R: np.ndarray) -> None:
        """Add the non-zero, finite rows of ``R`` (r, dim) not already pooled."""
        R = np.asarray(R, dtype=float).reshape(-1, self.dim)
        size = np.max(np.abs(R), axis=1, initial=0.0)
        keep = np.all(np.isfinite(R), axis=1) & (size > 0.0)
        if not np.any(keep):
            return
        Rn = R[keep] / size[keep, None]
        rounded = np.round(Rn, DECIMALS) + 0.0  # + 0.0: one key for -0.0 and 0.0
        have = set(self._keys)
        new_rows, new_keys = [], []
        for row, key in zip(Rn, (r.tobytes() for r in rounded)):
            if key not in have:
                have.add(key)
                new_rows.append(row)
                new_keys.append(key)
        if not new_rows:
            return
        self._rays = np.vstack([np.array(new_rows), self._rays])[: self.capacity]
        self._keys = (new_keys + self._keys)[: self.capacity]
