"""Driftproof: measure what an LLM skill (a SKILL.md file) adds to a model.

The public packages are :mod:`driftproof.receipt` (the sealed receipt format),
:mod:`driftproof.stats` (the verdict rule, bands and lift, as pure functions),
:mod:`driftproof.importers` (other tools' result files turned into receipts) and
:mod:`driftproof.site` (the static site). The command line is :mod:`driftproof.cli`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
