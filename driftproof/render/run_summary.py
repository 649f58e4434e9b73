"""What ``driftproof run`` prints when it has written a receipt (D-7, D-14, D-16).

``--quick`` answers are untrusted: plain :class:`rich.text.Text`, never markup.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from driftproof.pages.receipt_tables import verdict_line
from driftproof.pages.sheet import AA_NO_LIFT, lift_coverage
from driftproof.pages.sheet_facts import reading_facts
from driftproof.pages.words import (
    UNKNOWN,
    arm_words,
    case_direction,
    case_heads,
    count_of,
    format_lift,
    format_per_1k,
    lost_kind_words,
)
from driftproof.receipt import Receipt, read_receipt
from driftproof.render.console import TextConsole
from driftproof.render.escape import shell_path, terminal_safe
from driftproof.stats import (
    Band,
    arm_band,
    band_source_of,
    lost_causes,
    mean_delta,
    receipt_reading,
    suite_lift,
    value_per_1k,
)
from driftproof.stats.unmeasured import not_measured
from driftproof.wording import NOT_MEASURED, OFFLINE, dollars

#: Causes named in a run summary's line of top lost reasons.
TOP_CAUSES = 3


def _arm(band: Band) -> str:
    """An arm's band and counts: ``0.573 ± 0.041 (4 draws, 1 lost)``."""
    spread = f" ± {band.sd:.3f}" if band.sd is not None else ""
    lost = f", {band.lost} lost" if band.lost else ""
    mean = "n/a" if band.mean is None else f"{band.mean:.3f}"
    return f"{mean}{spread} ({count_of(band.drawn, 'draw')}{lost})"


def _lost_by_kind(r: Any) -> str | None:
    """``lost draws by kind: with skill refusal 2, …; baseline none``, or ``None`` (none lost).

    Each arm is named as the case table heads it (an A/A calibration's two runs).
    """
    parts, any_lost, named = [], False, arm_words(r)
    for arm in r.arm_names:
        kinds = Counter(
            lost_kind_words(d.lost.kind) if d.lost.kind else "unclassed"
            for c in r.cases
            if (spec := getattr(c.arms, arm, None)) is not None
            for d in spec.draws
            if d.lost is not None
        )
        any_lost = any_lost or bool(kinds)
        body = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"
        parts.append(f"{named[arm]} {body}")
    return "lost draws by kind: " + "; ".join(parts) if any_lost else None


def top_lost_line(r: Receipt) -> str | None:
    """``top lost reasons: <cause> (n); …``, commonest first, or ``None`` (none lost)."""
    causes = lost_causes(r)
    if not causes:
        return None
    more = len(causes) - TOP_CAUSES
    return (
        "top lost reasons: "
        + "; ".join(f"{c.cause} ({c.draws})" for c in causes[:TOP_CAUSES])
        + (f"; and {more} other reason{'s' if more != 1 else ''}" if more > 0 else "")
    )


def _text(value: str) -> Text:
    """Untrusted text (names, ids, reasons, paths) for the terminal: shown, never obeyed."""
    return Text(terminal_safe(value))


def _answer(value: str) -> Text:
    """An answer for the terminal, its line breaks kept and every other control shown."""
    return Text("\n".join(terminal_safe(line) for line in value.split("\n")))


def _grading_cost(r: Receipt) -> str | None:
    """The grading cost line: tokens and cost, or that no model graded (simulated, stub)."""
    jo = r.economics.judge_overhead
    if jo is None:
        return None
    tokens = f"{jo.input_tokens:,} in, {jo.output_tokens:,} out tokens"
    offline = r.judge.provider if r.judge is not None else None
    if offline in OFFLINE:
        said = (
            f"come to {tokens}, as counted here" if jo.judged_draws_counted else "are not counted"
        )
        return (
            f"no grading cost: no model graded (the {offline} judge's prompts and replies {said})"
        )
    usd = UNKNOWN if jo.usd is None else dollars(jo.usd, 4)
    missing = jo.judged_draws_missing_usage
    unreported = (
        f"; {count_of(missing, 'more draw')} judged with no token counts from the judge"
        if missing
        else ""
    )
    return (
        f"grading cost {usd} ({tokens} over {count_of(jo.judged_draws_counted, 'judged draw')}"
        f"{unreported})"
    )


def summary_title(r: Receipt) -> str:
    """The summary table's title: ``<skill> on <model> (<level>)``.

    ", not measured" follows the level when no case has a measured score in both arms (D-17).
    """
    nothing = f", {NOT_MEASURED}" if not_measured(r, band_source_of(r)) is not None else ""
    way = f"; {case_direction(r)}" if r.run.aa else ""  # an A/A's difference has no usual way
    return f"{r.skill.name} on {r.run.model} ({r.verification_level}{nothing}){way}"


#: The width off a terminal: wide enough that no line of the summary wraps.
_FULL_WIDTH = 100_000


def print_result(result: Any, console: Console | None = None, width: int | None = None) -> None:
    """Print the run's summary from the receipt as read back (schema and seal checked).

    Args:
        result: the run's result (its receipt, or the path to read it from).
        console: where to print; standard output when omitted.
        width: the terminal's width in characters, or ``None`` off a terminal, where each line
            is laid out in full (as ``view`` and ``diff`` are), not wrapped at 80.
    """
    console = console or TextConsole(width=width or _FULL_WIDTH)
    r = result.receipt if result.receipt is not None else read_receipt(result.receipt_path)
    has_control = r.arms.control is not None
    t = Table(title=_text(summary_title(r)))
    cols = ["case", *case_heads(r)] + (["control", "skill − control"] if has_control else [])
    for col in cols:
        t.add_column(col)
    src = band_source_of(r)  # the sheet's bands: view and the site print these figures too
    for c in r.cases:
        w, b = arm_band(c.arms.with_skill, src), arm_band(c.arms.baseline, src)
        row: list[Text | str] = [_text(c.id), _arm(w), _arm(b), format_lift(mean_delta(b, w))]
        if has_control and c.arms.control is not None:
            k = arm_band(c.arms.control, src)
            row += [_arm(k), format_lift(mean_delta(k, w))]
        t.add_row(*row)
    console.print(t)
    lift = suite_lift(r)
    n = r.run.endpoint_attempts
    requests = f"requests made {n:,}, retries included" if n else "no request made to a model"
    sk = r.skill.tokens
    size = "skill tokens not recorded"
    if sk is not None:  # not the o200k_base count a lost draw's reason may quote
        size = f"skill {count_of(sk, 'token')} at four characters a token"
    per_1k = format_per_1k(value_per_1k(lift, sk), lift)
    suite = (
        f"suite lift {format_lift(lift)}{lift_coverage(r) if lift is not None else ''}; per 1,000 "
        f"skill tokens {per_1k} ({size}); {requests}"
    )
    if r.run.aa:  # both arms ran with the skill, as view's sheet says
        suite = f"suite lift n/a: {AA_NO_LIFT}; {requests}"
    lines = [x for x in (_lost_by_kind(r), top_lost_line(r), suite, _grading_cost(r)) if x]
    lines.append(verdict_line(reading_facts(receipt_reading(r))))  # as view and the site say it
    if result.stopped:
        lines.append(f"stopped: {result.stopped}")
    for line in lines:
        console.print(_text(line))
    if result.quick_answers:
        side = Table(title=_text(f"{r.cases[0].id}: answers side by side"), show_lines=True)
        arms = list(result.quick_answers)
        for a in arms:
            side.add_column(arm_words(r)[a])
        for i in range(max(len(v) for v in result.quick_answers.values())):
            side.add_row(*[_answer(result.quick_answers[a].get(str(i)) or "") for a in arms])
        console.print(side)
    if result.transcripts_path:  # a path on one line, to copy whole (never wrapped)
        console.print(_text(f"transcripts: {result.transcripts_path}"), soft_wrap=True)
    console.print(_text(f"receipt: {result.receipt_path}"), soft_wrap=True)
    shown = shell_path(result.receipt_path)  # commands to copy: one line, as the path's
    then = f"driftproof view {shown} to read it; "
    if r.is_smoke:  # a diff of a smoke run always reads no verdict: say what gives one
        then += "a --quick run is a smoke test, so a diff of it gives no verdict: a full run "
        then += "(without --quick) gives a receipt to compare"
    elif r.run.aa:  # diff refuses an A/A receipt as a side: it is cited beside a comparison
        then += f"driftproof plan {shown} for the draws per arm a gate needs; driftproof diff "
        then += f"A.json B.json --aa {shown} to cite it beside a comparison"
    else:
        then += f"driftproof diff EARLIER.json {shown} to compare it with an earlier receipt"
    console.print(_text(f"next: {then}"), soft_wrap=True)
