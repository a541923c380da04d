"""The stored run format: what a run folder under data/runs/ holds and how it is read.

Measuring writes runs; analysis and rendering read them through this package alone, so
they never import the harness (``make lint`` checks it). It holds the names, units and
thresholds a stored row is written with, the manifest's versions (``manifest``), and the
readers of stored raw outputs that the analysis needs. It imports nothing of
``measure``, ``analyse`` or ``render``; what it holds shapes rows, so it is part of the
run-reuse key (benchbook.measure.reuse).
"""
