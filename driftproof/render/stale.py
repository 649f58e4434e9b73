"""``driftproof stale``'s report as text; every line made terminal-safe."""

from __future__ import annotations

from driftproof.pages.stale import StaleReport
from driftproof.render.escape import terminal_safe
from driftproof.wording import ARM_WORDS


def stale_text(report: StaleReport) -> str:
    """``arm: status (reasons)`` per arm in words, a blank line, a line per finding; no newline."""
    lines = [
        f"{ARM_WORDS[a.arm]}: {a.status}" + (f" ({'; '.join(a.reasons)})" if a.reasons else "")
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
