"""Printers of the page models (:mod:`driftproof.pages`) as text, Markdown and JSON.

Printers lay out the page models' strings; they compute nothing.
"""
