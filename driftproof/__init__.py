"""Driftproof: measure what an LLM skill (a SKILL.md file) adds to a model.

Its packages and their layers are drawn in ARCHITECTURE.md.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
