"""``driftproof stale``'s report as text; every line made terminal-safe."""

from __future__ import annotations

from driftproof.pages.stale import NOT_SUPPLIED, StaleReport
from driftproof.render.escape import fit_text, terminal_safe
from driftproof.wording import AA_ARM_WORDS, ARM_WORDS

#: The ``stale`` option giving today's value of each field (none for a case's prompt or rubric:
#: given per case only with --suite, so a case's missing value is a case today's suite lacks).
_OPTIONS = {
    "model": "--model",
    "service": "--base-url",
    "judge service": "--judge-base-url",
    "harness": "--harness",
    "harness version": "--harness-version or --harness-binary",
    "capture mode": "--capture",
    "skill": "--skill",
    "judge": "--judge-model",
    "judge prompt template": "--judge-template",
    "suite": "--suite",
}


def stale_text(report: StaleReport, width: int | None = None) -> str:
    """``arm: status (reasons)`` per arm, then a line per finding; no newline at the end.

    Between them: the fields the receipt does not record, what a simulated or stub receipt is,
    then a blank line. ``width``: the terminal's width in characters, each longer line wrapped to
    it, or ``None`` (not a terminal).
    """
    words = AA_ARM_WORDS if report.aa else ARM_WORDS  # an A/A's arms are its two runs
    lines = [
        f"{words[a.arm]}: {a.status}" + (f" ({'; '.join(a.reasons)})" if a.reasons else "")
        for a in report.arms
    ]
    if never := [f.field for f in report.findings if f.recorded is None]:
        named = ", ".join(never[:-1]) + " and " * (len(never) > 1) + never[-1]
        them = "them" if len(never) > 1 else "it"
        lines.append(
            f"The receipt does not record its {named}: nothing given today confirms {them}."
        )
    if report.simulated:
        lines.append(
            "The receipt is simulated: its answers or scores were drawn at random, so even "
            "where it still stands it measures nothing and gets no verdict."
        )
    if report.stub:
        lines.append(
            "The receipt ran on the offline stub for its answers, its grades or both: the "
            "stub's are fixed stand-ins, not a model's, so even where it still stands it "
            "measures no model."
        )
    lines.append("")
    for f in report.findings:
        tag = "advisory" if f.advisory else f.effect
        option = _OPTIONS.get(f.field)
        give = f" (give {option})" if f.recorded is not None and option else ""
        today = f"not supplied{give}" if f.today is None else f.today  # unrecorded: no option helps
        if f.recorded is not None and f.recorded == f.today:  # a value alike is printed once
            stands = tag == "still stands" and f.note == "unchanged"
            why = "the receipt still stands on this" if stands else f"{tag}: {f.note}"
            lines.append(f"- {f.field}: unchanged ({today}): {why}")
        elif f.recorded is None:  # named in the line under the arms; here only beside today's
            if f.today is not None:
                lines.append(f"- {f.field}: {f.note} (today {f.today}) -> {tag}")
        else:  # not supplied: the arms' lines above say so once; the option is named here
            why = "" if f.note == NOT_SUPPLIED else f": {f.note}"
            lines.append(f"- {f.field}: recorded {f.recorded}, today {today} -> {tag}{why}")
    return fit_text("\n".join(terminal_safe(line) for line in lines), width)
