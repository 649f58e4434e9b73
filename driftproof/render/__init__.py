"""Printers of the page models (:mod:`driftproof.pages`) as text, Markdown and JSON.

A command reads its input, asks :mod:`driftproof.pages` for a page model of plain strings and
hands it to a printer here; printers lay out, they compute nothing.

- :mod:`driftproof.render.escape`: untrusted text made safe for a terminal or for Markdown.
- :mod:`driftproof.render.layout`: labelled facts and tables, as text and as Markdown.
- :mod:`driftproof.render.sheet`: ``driftproof view``'s receipt sheet and lift breakdown.
- :mod:`driftproof.render.comparison`: ``driftproof diff``'s comparison, text, Markdown, JSON.
- :mod:`driftproof.render.diff`: what ``diff --lift-breakdown`` and ``diff --aa`` add after it.
- :mod:`driftproof.render.cross_family`: a cross-family reading as Markdown.
- :mod:`driftproof.render.stale`, :mod:`driftproof.render.plan`: ``stale`` and ``plan`` as text.
"""

from __future__ import annotations

from driftproof.render.escape import md_html, md_text, terminal_safe
from driftproof.render.layout import md_facts, md_table, text_facts, text_table

__all__ = [
    "md_facts",
    "md_html",
    "md_table",
    "md_text",
    "terminal_safe",
    "text_facts",
    "text_table",
]
