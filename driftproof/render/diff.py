"""``driftproof diff``'s output around the comparison: the lift breakdowns it adds after it
(``--lift-breakdown``; method, "Lift by case")."""

from __future__ import annotations

import json
from collections.abc import Sequence

from driftproof.render.sheet import Format, breakdown_document
from driftproof.view import BreakdownView

__all__ = ["with_breakdowns"]


def with_breakdowns(
    output: str, fmt: Format, breakdowns: Sequence[tuple[str, BreakdownView]]
) -> str:
    """``output`` (a diff in ``fmt``) followed by one lift breakdown per ``(name, view)``.

    Text and Markdown: each breakdown, titled "Lift breakdown of NAME", after a blank line.
    JSON: the same document with a ``lift_breakdowns`` list added (same key order and layout
    as the diff's own JSON).

    Raises:
        json.JSONDecodeError: ``fmt`` is ``json`` and ``output`` is not a JSON document.
    """
    docs = [breakdown_document(bv, name=name, fmt=fmt) for name, bv in breakdowns]
    if fmt == "json":
        doc = json.loads(output)
        doc["lift_breakdowns"] = [json.loads(d) for d in docs]
        return json.dumps(doc, sort_keys=True, ensure_ascii=False, allow_nan=False, indent=2) + "\n"
    return "\n\n".join([output.rstrip("\n"), *(d.rstrip("\n") for d in docs)]) + "\n"
