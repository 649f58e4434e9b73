"""``driftproof stale``'s report as text: one line per arm, then every finding.

The recorded values are the receipt's untrusted text: every line passes through
:func:`~driftproof.render.escape.terminal_safe`, so no escape sequence reaches the terminal.
"""

from __future__ import annotations

from driftproof.pages.stale import StaleReport
from driftproof.render.escape import terminal_safe

__all__ = ["stale_text"]


def stale_text(report: StaleReport) -> str:
    """The stale report as plain text, with no trailing newline.

    ``arm: status (reasons)`` per arm, a blank line, then
    ``- field: recorded …, today … -> effect: note`` per finding.
    """
    lines = [
        f"{a.arm}: {a.status}" + (f" ({'; '.join(a.reasons)})" if a.reasons else "")
        for a in report.arms
    ]
    lines.append("")
    for f in report.findings:
        tag = "advisory" if f.advisory else f.effect
        lines.append(
            f"- {f.field}: recorded {f.recorded or 'unknown'}, "
            f"today {f.today or 'not supplied'} -> {tag}: {f.note}"
        )
    return "\n".join(terminal_safe(line) for line in lines)
