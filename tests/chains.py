"""Kept for ``benchmarks/bench_chain.py`` only, which puts ``tests/`` on ``sys.path`` and imports
``chains``: the chain is ``tests/_support/chains.py``. Remove this file once the benchmark imports
``from _support.chains import zigzag_chain``. Test modules import ``_support.chains``."""

from _support.chains import zigzag_chain  # noqa: F401
