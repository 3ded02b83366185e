"""One analysis spread over a Dask cluster (issue 28): the per-mode work and the overlap
candidate blocks of an ``AnalysisSession`` computed by workers, the answers those of one process.

``prime_on_client(client, session, modes, task)`` sends the modes in chunks (``CHUNK_MODES``) to
the cluster's workers; each chunk is solved by an ``AnalysisSession`` of the same system on a
worker (one per worker thread and call, ``_worker_session``) — given the main session's
enumeration, so nothing is enumerated twice — exactly as the
main session solves its modes: the responses and their emptiness LPs together
(``AnalysisSession.feasible_modes``), the bounding boxes of the feasible ones
(``AnalysisSession.candidate_pairs_within``'s priming, from the domains as in one process),
then, with ``project``, their torque domains ``T_c`` (``AnalysisSession.prime_T``) and whether
``w`` varies. The main session accepts each mode's results as its own (``ModeSolution.provide``:
the values the mode's own methods give), so ``cm.analyze`` and ``to_json`` find them computed.

``ClusterDecide`` decides the enumeration's large levels (``enumerate_modes``'s ``decide``) in
chunks of prefixes on the workers: the subtrees below them are the next level's work.

``ClusterOverlaps`` is the session's overlap executor (``AnalysisSession.executor``): the
candidate pairs of ``AnalysisSession.overlapping_pairs`` are decided ``OVERLAP_BLOCK`` pairs per
task, each block by a worker's session that holds the ``T_c`` of the block's modes (computed
on the cluster before, so every pair is decided on two torque domains as one process decides a
pair of computed ``T_c``: a witness point, a certified separating facet, or one LP); the pairs
come back in the order of the candidates.

Every decision is one of the package's verified rules on the same sets; what may differ from a
single process is the order in which LPs of a batch are grouped, i.e. floats within the
documented noise of ``tests/_support/golden.py`` (``tests/contactmodes/analysis/test_distributed.py``
compares the ``analyze --json`` documents). Ctrl-C: the caller's (``contactmodes.cli._cluster``)
— the futures are cancelled when the client closes.
"""

from __future__ import annotations

import math
import threading
import uuid
from typing import Any, Sequence

from contactmodes.analysis.session import AnalysisSession
from contactmodes.progress import stage

__all__ = ["CHUNK_MODES", "CHUNK_MODES_MIN", "CHUNK_PREFIXES", "OVERLAP_BLOCK", "TASKS_PER_WORKER", "ClusterDecide",
           "ClusterOverlaps", "prime_on_client"]

CHUNK_MODES = 256
"""At most this many modes per task of ``prime_on_client``, and fewer so that each worker gets
at least ``TASKS_PER_WORKER`` tasks, but not below ``CHUNK_MODES_MIN`` (cost knobs: the stacked
SVDs and LP batches of a chunk amortize their set-up, as ``AnalysisSession.prime_T``'s chunks of
``PRIME_CHUNK``; smaller chunks balance the workers and move the progress line)."""
CHUNK_MODES_MIN = 32
TASKS_PER_WORKER = 4

_LOCAL = threading.local()
"""A worker thread's session of the current call (``_worker_session``)."""

OVERLAP_BLOCK = 4096
"""Candidate pairs per task of ``ClusterOverlaps`` (a cost knob)."""

CHUNK_PREFIXES = 2048
"""Prefixes per task of ``ClusterDecide`` (a cost knob: one batched LP chunk's worth of the
enumeration's ``LEAF_BATCH`` and more)."""


def _worker_session(token: str, system, enumeration, method: str) -> AnalysisSession:
    """This worker thread's session for the call ``token``: one per call, kept across its chunks
    (its equation banks and recession-ray pool serve every chunk), its modes dropped between
    chunks (their results went back)."""
    if getattr(_LOCAL, "token", None) != token:
        _LOCAL.token, _LOCAL.session = token, AnalysisSession(system, method=method, enumeration=enumeration)
    session = _LOCAL.session
    session.forget_modes()
    return session


def _chunk_size(n: int, workers: int) -> int:
    """Modes per task for ``n`` modes on ``workers`` workers (``CHUNK_MODES``)."""
    return max(CHUNK_MODES_MIN, min(CHUNK_MODES, math.ceil(n / max(1, TASKS_PER_WORKER * workers))))


def _solve_chunk(token: str, system, enumeration, method: str, task: bool, modes: list[str], project: bool
                 ) -> list[dict]:
    """A worker's results for ``modes``: per mode ``{"mode", "response", "feasible", "box", "T",
    "w_varies"}`` (``T``/``w_varies`` only with ``project``; ``box``/``T`` for feasible modes)."""
    session = _worker_session(token, system, enumeration, method)
    feasible = session.feasible_modes(task, modes)
    session.prime_boxes(feasible, task)  # as candidate_pairs_within primes them: from the domains
    if project:
        session.prime_T(feasible, task)
    out = []
    for m in modes:
        sol = session.mode(m)
        entry: dict[str, Any] = {"mode": m, "response": sol.response_scaled(task), "feasible": sol.feasible(task)}
        if entry["feasible"]:
            entry["box"] = sol.box_scaled(task)
            if project:
                entry["T"] = sol.T_scaled(task)
                entry["w_varies"] = sol.w_varies(task)
        out.append(entry)
    return out


def _accept(session: AnalysisSession, entry: dict, task: bool) -> None:
    """Give the main session's mode a worker's results (``_solve_chunk``)."""
    sol = session.mode(entry["mode"])
    sol.provide("response", task, entry["response"])
    sol.provide("feasible", task, entry["feasible"])
    for kind in ("box", "T", "w_varies"):
        if kind in entry:
            sol.provide(kind, task, entry[kind])


def _gather(client, futures, on_result, bar) -> None:
    """Wait for ``futures`` in completion order, ``on_result(index, value)`` each; on any error
    or Ctrl-C the outstanding ones are cancelled and the exception re-raised."""
    from dask.distributed import as_completed

    index = {f.key: i for i, f in enumerate(futures)}
    try:
        for fut in as_completed(futures):
            on_result(index[fut.key], fut.result())
            bar(index[fut.key])
    except BaseException:
        client.cancel(futures, force=True)
        raise


def prime_on_client(client, session: AnalysisSession, modes: Sequence[str] | None = None, task: bool = True,
                    project: bool = True) -> None:
    """Solve ``modes`` of ``session`` on the cluster of ``client`` (module docstring).

    Returns when every mode's results are in the session. Modes already solved there are not
    sent.

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster's client.
    session : AnalysisSession
        The main session (it receives the results).
    modes : Sequence[str], optional
        The modes; ``None``: the kinematically feasible ones.
    task : bool, optional
        Solve with the task constraints.
    project : bool, optional
        Also compute the feasible modes' ``T_c`` (and whether ``w`` varies).

    Raises
    ------
    ContactModelError
        For a mode that is not a mode of the system.
    """
    names = [s.mode for s in session.modes(modes) if not s.has("feasible", task)]
    if not names:
        return
    enumeration = session.enumeration
    [system] = client.scatter([session.system], broadcast=True, hash=False)
    size = _chunk_size(len(names), len(client.nthreads()))
    chunks = [names[i:i + size] for i in range(0, len(names), size)]
    token = uuid.uuid4().hex
    futures = [client.submit(_solve_chunk, token, system, enumeration, session.method, task, chunk, project,
                             pure=False) for chunk in chunks]
    with stage(session.progress, f"modes on {len(client.nthreads())} workers", len(names)) as st:
        def accept(i: int, entries: list[dict]) -> None:
            for entry in entries:
                _accept(session, entry, task)

        _gather(client, futures, accept, lambda i: st.update(len(chunks[i]), chunks[i][-1]))


def _decide_prefixes(search, prefixes: list[str], warm: dict) -> tuple[list[str], dict, int]:
    """A worker's ``search.decide(prefixes, warm)`` and the LPs it solved."""
    before = search.lps
    kept, bases = search.decide(prefixes, warm)
    return kept, bases, search.lps - before


class ClusterDecide:
    """The enumeration's level decisions on the cluster of ``client`` (``enumerate_modes``'s
    ``decide``): a level of at least ``2 * CHUNK_PREFIXES`` prefixes is decided in chunks of
    ``CHUNK_PREFIXES`` by workers (each prefix's subtree below it is the next level's), the
    kept prefixes and their warm-start bases joined in the level's order; smaller levels here.
    A prefix's decision is its own verified LP (or the definition's), whoever solves it.

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster's client.
    """

    def __init__(self, client) -> None:
        self.client = client
        self._search = None
        self._scattered = None

    def __call__(self, search, prefixes: list[str], bases: dict) -> tuple[list[str], dict]:
        """Decide one level's ``prefixes`` (``enumerate_modes``'s ``decide``).

        Parameters
        ----------
        search : object
            The enumeration's search (``contactmodes.modes.enumeration``'s level-by-level search on the
            nondimensional system); sent to every worker once.
        prefixes : list[str]
            The level's prefixes, all of one length, in product order.
        bases : dict
            Prefix → final simplex basis of the previous level (warm starts).

        Returns
        -------
        kept : list[str]
            The prefixes that may have a surviving completion, in the level's order.
        bases : dict
            Their final simplex bases.
        """
        if len(prefixes) < 2 * CHUNK_PREFIXES:
            return search.decide(prefixes, bases)
        if self._search is not search:  # the search's fixed data, to every worker once
            [self._scattered] = self.client.scatter([search], broadcast=True, hash=False)
            self._search = search
        chunks = [prefixes[i:i + CHUNK_PREFIXES] for i in range(0, len(prefixes), CHUNK_PREFIXES)]
        futures = [self.client.submit(_decide_prefixes, self._scattered, chunk,
                                      {p[:-1]: bases[p[:-1]] for p in chunk if p[:-1] in bases}, pure=False)
                   for chunk in chunks]
        results: list = [None] * len(chunks)

        def keep(i: int, value) -> None:
            results[i] = value

        _gather(self.client, futures, keep, lambda i: None)
        kept: list[str] = []
        new: dict = {}
        for chunk_kept, chunk_bases, lps in results:
            kept += chunk_kept
            new.update(chunk_bases)
            search.lps += lps
        return kept, new


def _overlap_block(system, enumeration, method: str, task: bool, sets: dict, block: list[tuple[str, str]]
                   ) -> list[tuple[str, str]]:
    """A worker's overlapping pairs of ``block`` (in its order), ``sets`` the ``T_c`` (scaled) of
    the block's modes."""
    session = AnalysisSession(system, method=method, enumeration=enumeration)
    for m, T in sets.items():
        sol = session.mode(m)
        sol.provide("feasible", task, True)
        sol.provide("T", task, T)
    order = {m: i for i, m in enumerate(enumeration.modes)}
    modes = sorted(sets, key=lambda m: order.get(m, len(order)))
    return session.overlapping_pairs(modes, task, candidates=block)


class ClusterOverlaps:
    """The overlap executor of a session (``AnalysisSession.executor``) on the cluster of
    ``client``: ``overlapping_pairs`` decided in blocks (module docstring).

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster's client.
    """

    def __init__(self, client) -> None:
        self.client = client

    def prime(self, session: AnalysisSession, modes: Sequence[str] | None = None, task: bool = True,
              project: bool = True) -> None:
        """``prime_on_client`` on this executor's client.

        Parameters
        ----------
        session : AnalysisSession
            The main session.
        modes : Sequence[str], optional
            The modes; ``None``: the kinematically feasible ones.
        task : bool, optional
            Solve with the task constraints.
        project : bool, optional
            Also compute their ``T_c``.
        """
        prime_on_client(self.client, session, modes, task, project)

    def overlapping_pairs(self, session: AnalysisSession, modes: Sequence[str], task: bool,
                          cands: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """``session.overlapping_pairs(modes, task, cands)`` decided on the cluster, in the order
        of ``cands``; the ``T_c`` of the candidates' modes are computed on the cluster first.

        Parameters
        ----------
        session : AnalysisSession
            The main session.
        modes : Sequence[str]
            The modes of the pairs, in analysis order.
        task : bool
            Decide on the ``T_c`` with the task constraints.
        cands : list[tuple[str, str]]
            The candidate pairs.

        Returns
        -------
        list[tuple[str, str]]
            The overlapping pairs, in the order of ``cands``.
        """
        involved = sorted({m for pair in cands for m in pair})
        todo = [m for m in involved if not session.mode(m).has_T(task)]
        if todo:  # their T_c, on the cluster
            self._project(session, todo, task)
        [system] = self.client.scatter([session.system], broadcast=True, hash=False)
        enumeration = session.enumeration
        blocks = [cands[i:i + OVERLAP_BLOCK] for i in range(0, len(cands), OVERLAP_BLOCK)]
        futures = []
        for block in blocks:
            sets = {m: session.mode(m).T_scaled(task) for m in {m for pair in block for m in pair}}
            futures.append(self.client.submit(_overlap_block, system, enumeration, session.method, task, sets, block,
                                              pure=False))
        results: list[list[tuple[str, str]]] = [[] for _ in blocks]
        with stage(session.progress, "overlaps on the cluster", len(cands)) as st:
            def keep(i: int, pairs: list) -> None:
                results[i] = [tuple(p) for p in pairs]

            _gather(self.client, futures, keep, lambda i: st.update(len(blocks[i])))
        return [p for block in results for p in block]  # type: ignore[misc]

    def _project(self, session: AnalysisSession, modes: list[str], task: bool) -> None:
        """The ``T_c`` (and ``w_varies``) of feasible ``modes`` already solved without them."""
        [system] = self.client.scatter([session.system], broadcast=True, hash=False)
        size = _chunk_size(len(modes), len(self.client.nthreads()))
        chunks = [modes[i:i + size] for i in range(0, len(modes), size)]
        token = uuid.uuid4().hex
        futures = [self.client.submit(_solve_chunk, token, system, session.enumeration, session.method, task, chunk,
                                      True, pure=False) for chunk in chunks]
        with stage(session.progress, "projections on the cluster", len(modes)) as st:
            def accept(i: int, entries: list[dict]) -> None:
                for entry in entries:
                    _accept(session, entry, task)

            _gather(self.client, futures, accept, lambda i: st.update(len(chunks[i]), chunks[i][-1]))
