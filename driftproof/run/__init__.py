"""``driftproof run``: measure a skill for real and seal a receipt.

The package imports nothing on its own, so that a command reading one module (the endings
table for ``--help``) does not load the run machinery or a provider SDK. The run is
:func:`driftproof.run.engine.run_suite`; suites are read by :mod:`driftproof.run.suite`.
"""
