"""What ``driftproof diff`` adds after the comparison: lift breakdowns and the A/A it cites."""

from __future__ import annotations

import json
from collections.abc import Sequence

from driftproof.pages.sheet_facts import BreakdownView
from driftproof.pages.tables import json_text
from driftproof.pages.words import aa_line
from driftproof.render.escape import md_html, terminal_safe
from driftproof.render.sheet import Format, breakdown_document
from driftproof.stats.aa import AAReading


def with_breakdowns(
    output: str, fmt: Format, breakdowns: Sequence[tuple[str, BreakdownView]]
) -> str:
    """``output`` (a diff in ``fmt``) followed by one lift breakdown per ``(name, view)``.

    JSON: the same document with a ``lift_breakdowns`` list added.

    Raises:
        json.JSONDecodeError: ``fmt`` is ``json`` and ``output`` is not a JSON document.
    """
    docs = [breakdown_document(bv, name=name, fmt=fmt) for name, bv in breakdowns]
    if fmt == "json":
        return json_text(json.loads(output) | {"lift_breakdowns": [json.loads(d) for d in docs]})
    return "\n\n".join([output.rstrip("\n"), *(d.rstrip("\n") for d in docs)]) + "\n"


def with_aa(output: str, fmt: Format, name: str, aa: AAReading) -> str:
    """``output`` (a diff in ``fmt``) with the A/A calibration ``name`` cited after it, as context.

    JSON: an ``aa`` object added (the sentence and its figures).

    Raises:
        json.JSONDecodeError: ``fmt`` is ``json`` and ``output`` is not a JSON document.
    """
    line = aa_line(name, aa)
    if fmt == "json":
        figures = {
            "file": name,
            "sentence": line,
            "cases": len(aa.cases),
            "observed_false_calls": aa.observed,
            "expected_false_calls": aa.expected,
            "chance_of_at_least_one": aa.at_least_one,
            "smallest_effect_median": aa.smallest_median,
            "smallest_effect_largest": aa.smallest_max,
        }
        return json_text(json.loads(output) | {"aa": figures})
    shown = md_html(line) if fmt == "markdown" else terminal_safe(line)
    return f"{output.rstrip(chr(10))}\n\n{shown}\n"
