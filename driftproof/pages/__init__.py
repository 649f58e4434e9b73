"""Page models: pure functions from receipt models to frozen display values.

One module per thing a person reads: ``sheet`` (with ``sheet_model``, ``sheet_tables``,
``sheet_facts`` and ``source``, the figures a source printed itself), ``comparison``,
``results``, ``badge``, ``stale``, ``plan``, ``cross_family``; ``words`` holds the formats and
words they share. Every number comes from :mod:`driftproof.stats`; ``render/`` and ``site/``
print these models. Pages never import render, site, cli, run or importers.
"""
