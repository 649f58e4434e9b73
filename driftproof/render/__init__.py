"""Printers of the page models (:mod:`driftproof.pages`) as text, Markdown and JSON.

Printers lay out the page models' strings; they compute nothing.
"""

from __future__ import annotations

from driftproof.render.escape import md_html, md_text, terminal_safe
from driftproof.render.layout import md_table, text_table

__all__ = [
    "md_html",
    "md_table",
    "md_text",
    "terminal_safe",
    "text_table",
]
