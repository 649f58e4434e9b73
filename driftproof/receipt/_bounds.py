"""Limits checked before a receipt is parsed (issue: receipts you can trust, bounds).

Sizes are in bytes; lengths in characters; counts in items. A receipt over
:data:`BREAKDOWN_MAX_BYTES` keeps its sheet and diff; only the lift breakdown
reads unavailable, naming the limit (method, "Lift by case").
"""

from __future__ import annotations

from typing import Final

#: Largest receipt file a reader parses at all.
RECEIPT_MAX_BYTES: Final[int] = 256 * 1024 * 1024
#: Largest receipt for which the lift breakdown is computed.
BREAKDOWN_MAX_BYTES: Final[int] = 64 * 1024 * 1024
#: Deepest JSON nesting accepted (a receipt needs about 8 levels).
MAX_DEPTH: Final[int] = 64
#: At most this many problems are reported for one file (bounded diagnostics).
MAX_PROBLEMS: Final[int] = 20
#: Longest excerpt of an offending value quoted in a message.
MAX_QUOTE: Final[int] = 80
