"""One rendering layer for the command line's text and Markdown output.

The CLI modules compute nothing and lay out nothing: a command reads its input, asks the
library for a page model of plain strings (:func:`driftproof.pages.sheet.sheet`, a
:class:`~driftproof.pages.comparison.Comparison`, …) and hands it to a printer here.

- :mod:`driftproof.render.escape`: untrusted text made safe for a terminal or for Markdown.
- :mod:`driftproof.render.layout`: labelled facts and tables, as text and as Markdown.
- :mod:`driftproof.render.sheet`: ``driftproof view``'s receipt sheet and lift breakdown.
- :mod:`driftproof.render.comparison`: ``driftproof diff``'s comparison, text and Markdown.
- :mod:`driftproof.render.diff`: the lift breakdowns ``diff --lift-breakdown`` adds after it.
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
