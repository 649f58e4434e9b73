"""The GitHub Action's logic: diff a baseline receipt against a new one, decide, report.

Run by ``action.yml`` as ``python -m driftproof.action``; the inputs come through the
environment (never through ``${{ }}`` inside ``run:``)::

    DRIFTPROOF_BASELINE   path of the earlier (baseline) receipt          required
    DRIFTPROOF_RECEIPT    path of the new receipt                         required
    DRIFTPROOF_FAIL_ON    comma-separated decisions that fail the job     default "regressed"
    DRIFTPROOF_AA         path of an A/A calibration receipt to cite      optional
    GITHUB_OUTPUT         file the outputs are appended to                set by GitHub
    GITHUB_STEP_SUMMARY   file the Markdown summary is appended to        set by GitHub

``--baseline``/``--receipt``/``--fail-on``/``--aa`` on the command line override the environment.
An A/A receipt (``run --aa``) is cited at the end of the summary: how many changes noise alone
calls at its spreads; it never changes the decision, and a receipt that is not one is an error.

Decision (output ``decision``), from :func:`driftproof.pages.comparison.compare_receipts`:

- ``none``: a side gets no verdict (below TESTED, a smoke run whatever its level, aggregates
  only, no judge, not measured: no case with a measured score in both arms, D-17); the summary
  says so and why (method, "A smoke run gives no verdict").
- ``regressed``: a case regressed under the rule.
- ``improved``: a case improved and none regressed.
- ``UNDERPOWERED``: no case separated and one is underpowered; the summary prints the draws
  per arm that would have been needed, or that no draw count reaches the floor.
- ``inconclusive``: a case separated on its measured draws but not at every score its lost
  draws could have had (D-9), and none of the above.
- ``no separation detected``: otherwise.

A comparison in which no case is in both receipts (every case id changed) decides nothing
either: its decision is ``none`` and the summary names the cases found in one receipt only.

Other outputs: ``lift`` (the new receipt's suite lift with its sign, ``n/a`` for a smoke run on
either side or where the receipt has no lift), ``baseline-lift`` (the same for the baseline);
both are taken over the same cases only, those both receipts measured in both arms, and the
summary says how many (:func:`driftproof.stats.lift.common_lifts`), so a case one side lost
never makes the lift look as if it moved;
``regressed-cases`` (a JSON array of case ids), ``draws-needed`` (empty unless UNDERPOWERED with
a count).

``fail-on`` may also name ``beyond-noise``: the job then fails on a regressed decision only when
the number of regressed cases is beyond what noise alone gives, that is when the chance of at
least that many regressed cases with every case's true mean unchanged, at these spreads and
draws, is under 5% (:mod:`driftproof.stats.false_alarms`). The default stays ``regressed``:
any regressed case fails. The summary gives the expected number and that chance whichever is chosen.

Exit status: 0 when the decision is not in ``fail-on`` (nor beyond noise under
``beyond-noise``); 1 when it is (by default: a case regressed); 2 when an input is missing or
a receipt cannot be read (bad JSON, schema, seal), with the problems in the summary and on
stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from driftproof import wording
from driftproof.pages.badge import format_lift
from driftproof.stats.codes import Status, VerdictCode
from driftproof.stats.verdict import verdict_words

if TYPE_CHECKING:
    from driftproof.pages.comparison import Comparison
    from driftproof.receipt import Receipt
    from driftproof.stats import Band, CaseVerdict

__all__ = [
    "BEYOND_NOISE",
    "DECISIONS",
    "MAX_SUMMARY_BYTES",
    "action_outputs",
    "append_github_output",
    "decide",
    "job_fails",
    "main",
    "md_escape",
    "summary_markdown",
]

#: Every value the ``decision`` output can take.
DECISIONS: tuple[str, ...] = (
    "none",
    VerdictCode.REGRESSED,
    VerdictCode.IMPROVED,
    Status.UNDERPOWERED,
    VerdictCode.INCONCLUSIVE,
    Status.NO_SEPARATION,
)
#: The ``fail-on`` word for "fail on regressed cases only beyond what noise alone gives".
BEYOND_NOISE = "beyond-noise"
#: GitHub refuses a step summary over 1 MiB (SITE-NOTES 4.2); stay well under it.
MAX_SUMMARY_BYTES = 1_000_000
#: Per-case rows shown before the "N more" note, whatever their size.
MAX_ROWS = 500
#: Inline Markdown and HTML syntax; cells and lines never start a block, so these suffice.
_MD_SPECIAL = set("\\`*_[]|<>~&")


def md_escape(text: object, limit: int = 200) -> str:
    """Untrusted text as inert inline GitHub-flavoured Markdown: one line, inline syntax
    (emphasis, code, links, table pipes, HTML ``<``/``>``, entities) backslash-escaped, cut to
    ``limit`` characters with an ellipsis. For table cells and text after a list marker."""
    s = " ".join(str(text).split())
    if len(s) > limit:
        s = s[:limit] + "…"
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in s)


def decide(c: Comparison) -> str:
    """The Action's decision for a comparison (see the module docstring)."""
    if c.refusals or not c.rows:
        return "none"
    verdicts = {v.verdict for v in c.rows}
    if c.regressed or VerdictCode.REGRESSED in verdicts:
        return VerdictCode.REGRESSED
    if VerdictCode.IMPROVED in verdicts:
        return VerdictCode.IMPROVED
    if c.underpowered_sentence is not None:
        return Status.UNDERPOWERED
    if VerdictCode.INCONCLUSIVE in verdicts:
        return VerdictCode.INCONCLUSIVE
    return Status.NO_SEPARATION


def job_fails(c: Comparison, fail_on: Sequence[str]) -> bool:
    """Whether the job fails: the decision is in ``fail_on``, or ``fail_on`` names
    :data:`BEYOND_NOISE`, the decision is regressed and the count is beyond noise."""
    decision = decide(c)
    if decision in fail_on:
        return True
    fa = c.false_alarms
    return (
        BEYOND_NOISE in fail_on
        and decision == VerdictCode.REGRESSED
        and fa is not None
        and fa.beyond_noise
    )


def _lift_text(lift: float | None, either_smoke: bool) -> str:
    """A side's lift for the Action: ``n/a`` for a smoke run (method) or where there is none."""
    return format_lift(None if either_smoke else lift)


def action_outputs(a: Receipt, b: Receipt, c: Comparison) -> dict[str, str]:
    """The Action's outputs (``decision``, ``lift``, ``baseline-lift``, ``regressed-cases``,
    ``draws-needed``) for baseline ``a``, new receipt ``b`` and their comparison ``c``."""
    decision = decide(c)
    smoke = a.is_smoke or b.is_smoke
    regressed = [v.case_id for v in c.rows if v.verdict == VerdictCode.REGRESSED]
    needed = c.draws_needed if decision == Status.UNDERPOWERED else None
    from driftproof.stats.lift import common_lifts

    common = common_lifts(a, b)  # the same cases on both sides (issue 16)
    lift_a, lift_b = common.a, common.b
    if not common.cases:
        # no case in common: a side's own lift is shown only when the other side has none,
        # so two lifts over different cases are never printed side by side
        from driftproof.stats import suite_lift

        own_a, own_b = suite_lift(a), suite_lift(b)
        if own_a is None or own_b is None:
            lift_a, lift_b = own_a, own_b
    return {
        "decision": decision,
        "lift": _lift_text(lift_b, smoke),
        "baseline-lift": _lift_text(lift_a, smoke),
        "regressed-cases": json.dumps(regressed, ensure_ascii=True),
        "draws-needed": "" if needed is None else str(needed),
    }


def _band(b: Band) -> str:
    if b.mean is None:
        text = "no measured draw"
    elif b.sd is None:
        text = f"{b.mean:.3f} (no spread)"
    else:
        text = f"{b.mean:.3f} ± {b.sd:.3f}"
    counts = f"n={b.n}"
    if b.lost:
        counts += f" of {b.drawn}, {b.lost} lost"
    return f"{text} ({counts})"


def _row(v: CaseVerdict) -> str:
    delta = format_lift(v.delta)
    if v.verdict == VerdictCode.UNDERPOWERED:
        needed = (
            wording.NO_DRAW_COUNT_REACHES
            if v.no_draw_count
            else (str(v.draws_needed) if v.draws_needed is not None else "")
        )
    else:
        needed = ""
    cells = [
        md_escape(v.case_id),
        md_escape(verdict_words(v.verdict)),
        md_escape(_band(v.a)),
        md_escape(_band(v.b)),
        md_escape(delta),
        md_escape(needed),
    ]
    return "| " + " | ".join(cells) + " |\n"


def _side_table(
    a: Receipt, b: Receipt, a_name: str, b_name: str, outputs: dict[str, str]
) -> list[str]:
    def level(r: Receipt) -> str:
        return r.verification_level + (
            f" ({wording.SMOKE_RUN}: preset {r.run.preset})" if r.is_smoke else ""
        )

    rows = [
        ("receipt", a_name, b_name),
        ("skill", a.skill.name, b.skill.name),
        ("model", a.run.model or "unknown", b.run.model or "unknown"),
        ("verification level", level(a), level(b)),
        ("band source", a.band_source or "unknown", b.band_source or "unknown"),
        ("lift (with skill − baseline)", outputs["baseline-lift"], outputs["lift"]),
    ]
    from driftproof.stats.lift import common_lifts

    common = common_lifts(a, b)
    n = len(common.cases)
    rows.append(
        (
            "lift covers (cases both receipts measured)",
            f"{n} of {common.a_total} cases",
            f"{n} of {common.b_total} cases",
        )
    )
    out = ["| | baseline | new |\n", "|---|---|---|\n"]
    out += [f"| {k} | {md_escape(x)} | {md_escape(y)} |\n" for k, x, y in rows]
    return out


def summary_markdown(
    a: Receipt,
    b: Receipt,
    c: Comparison,
    *,
    fail_on: Sequence[str] = (VerdictCode.REGRESSED,),
    max_bytes: int = MAX_SUMMARY_BYTES,
    max_rows: int = MAX_ROWS,
) -> str:
    """The job summary: decision, both receipts, the comparison's sentences, a per-case table cut
    with an "N more cases not shown" note so the whole stays under ``max_bytes`` UTF-8 bytes."""
    outputs = action_outputs(a, b, c)
    decision = outputs["decision"]
    head: list[str] = [f"## Driftproof: {'no decision' if decision == 'none' else decision}\n\n"]
    if decision == "none" and not c.rows and c.unmatched:
        head.append(
            "**No decision.** No case is in both receipts, so nothing was compared "
            "(the cases found in one receipt only are listed below).\n\n"
        )
    elif decision == "none" and c.refusals:
        head.append(
            "**No decision.** A side gets no verdict (below TESTED, a smoke run, an import, "
            "aggregates only or not measured), so this comparison "
            "decides nothing:\n\n"
        )
        head += [f"- {md_escape(r, 500)}\n" for r in c.refusals]
        head.append("\n")
    elif decision == "none":
        head.append(
            "**No decision.** No case is in both receipts, so nothing was compared "
            "(the cases found in one receipt only are listed below).\n\n"
        )
    else:
        fails = job_fails(c, fail_on)
        head.append(
            f"**Decision: {md_escape(decision)}**; the job "
            f"{'fails' if fails else 'passes'} (fail-on: {md_escape(', '.join(fail_on))}).\n\n"
        )
    head += _side_table(a, b, c.a_name, c.b_name, outputs)
    head.append("\n")
    from driftproof.stats.lift import common_lifts

    common = common_lifts(a, b)
    if not (a.is_smoke or b.is_smoke) and (
        common.a_cases != len(common.cases) or common.b_cases != len(common.cases)
    ):
        head.append(
            f"Both lifts are taken {md_escape(common.words(), 500)}; "
            "a case one receipt did not measure "
            "in both arms is left out of both.\n\n"
        )
    if not c.refusals and c.rows:  # with no case compared the headline would claim a reading
        head.append(f"{md_escape(c.headline, 2000)}\n\n{md_escape(c.summary, 500)}\n\n")
        if c.underpowered_sentence:
            head.append(
                f"**{md_escape(c.underpowered_sentence)}** "
                f"{md_escape(c.underpowered_reason or '', 500)}\n\n"
            )
        if c.false_alarms is not None:
            head.append(f"{md_escape(c.false_alarms.sentence(), 1000)}\n\n")
    if c.not_like_for_like:
        head.append(f"{md_escape(c.not_like_for_like, 500)}\n\n")
    head += [f"- {md_escape(line, 500)}\n" for line in c.legend]
    if c.legend:
        head.append("\n")
    notes: list[str] = []
    for v in c.rows:
        if v.lost_detail:
            notes.append(f"- {md_escape(v.case_id)}: {md_escape(v.lost_detail, 500)}\n")
    if c.unmatched:
        notes.append(f"- not compared: {md_escape(', '.join(c.unmatched), 1000)}\n")
    text = "".join(head)
    if c.rows:
        text += (
            "| case | verdict | baseline band | new band | Δ | draws needed per arm |\n"
            "|---|---|---|---|---|---|\n"
        )
    reserve = 200 + sum(len(n.encode()) for n in notes[:50])
    size = len(text.encode())
    shown = 0
    parts = [text]
    for v in c.rows[:max_rows]:
        row = _row(v)
        if size + len(row.encode()) + reserve > max_bytes:
            break
        parts.append(row)
        size += len(row.encode())
        shown += 1
    more = len(c.rows) - shown
    if more:
        parts.append(f"\n… {more} more {'case' if more == 1 else 'cases'} not shown.\n")
    if notes:
        parts.append("\n" + "".join(notes[:50]))
        if len(notes) > 50:
            parts.append(f"- … {len(notes) - 50} more notes not shown.\n")
    return "".join(parts)


def append_github_output(path: Path, outputs: dict[str, str]) -> None:
    """Append each output to a ``$GITHUB_OUTPUT`` file as a ``name<<delimiter`` block, with a
    random delimiter, so no value can end its block early or set another output."""
    blocks = []
    for name, value in outputs.items():
        delim = f"driftproof_{uuid.uuid4().hex}"
        blocks.append(f"{name}<<{delim}\n{value}\n{delim}\n")
    with path.open("a", encoding="utf-8") as fh:
        fh.write("".join(blocks))


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)


def _parse_fail_on(value: str) -> list[str]:
    """The decisions that fail the job. Empty or blank means the default (``regressed``); a
    list with no decision in it (``","``) is refused rather than read as "never fail"."""
    if not value.strip():
        return [VerdictCode.REGRESSED]
    choices = (*DECISIONS, BEYOND_NOISE)
    items = [x.strip() for x in value.split(",") if x.strip()]
    if not items:
        raise ValueError(
            f"fail-on: {value!r} names no decision; expected any of {', '.join(choices)}"
        )
    unknown = [x for x in items if x not in choices]
    if unknown:
        raise ValueError(
            f"fail-on: unknown decision {unknown[0]!r}; expected any of {', '.join(choices)}"
        )
    return items


def _write_outputs(
    summary_path: str | None, summary: str, output_path: str | None, outputs: dict[str, str]
) -> list[str]:
    """Append the summary and the outputs; the problems, one line each, when a file cannot be
    written (a directory, a missing folder, a read-only file)."""
    problems = []
    if summary_path:
        try:
            _append(summary_path, summary)
        except OSError as exc:
            problems.append(
                f"{summary_path}: cannot append the job summary (GITHUB_STEP_SUMMARY): "
                f"{exc.strerror or exc}"
            )
    if output_path:
        try:
            append_github_output(Path(output_path), outputs)
        except OSError as exc:
            problems.append(
                f"{output_path}: cannot append the outputs (GITHUB_OUTPUT): {exc.strerror or exc}"
            )
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """Run the Action's step; returns the exit status (see the module docstring), 130 when the
    job is cancelled (SIGINT) before the outputs are written: one line, no traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("error: interrupted before a decision; no output was written", file=sys.stderr)
        return 130


def _main(argv: Sequence[str] | None) -> int:
    from driftproof.errors import DriftproofError
    from driftproof.pages.comparison import compare_receipts
    from driftproof.pages.words import aa_line
    from driftproof.receipt import read_receipt
    from driftproof.stats.aa import aa_reading

    p = argparse.ArgumentParser(
        prog="python -m driftproof.action", description=__doc__.splitlines()[0]
    )
    p.add_argument("--baseline", default=os.environ.get("DRIFTPROOF_BASELINE", ""))
    p.add_argument("--receipt", default=os.environ.get("DRIFTPROOF_RECEIPT", ""))
    p.add_argument(
        "--fail-on", default=os.environ.get("DRIFTPROOF_FAIL_ON", "") or VerdictCode.REGRESSED
    )
    p.add_argument("--aa", default=os.environ.get("DRIFTPROOF_AA", ""))
    args = p.parse_args(argv)
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    output_path = os.environ.get("GITHUB_OUTPUT")

    def fail(lines: list[str]) -> int:
        summary = "## Driftproof: error\n\n" + "".join(f"- {md_escape(x, 1000)}\n" for x in lines)
        for line in lines + _write_outputs(
            summary_path, summary, output_path, {"decision": "error"}
        ):
            print(f"error: {line}", file=sys.stderr)
        return 2

    try:
        fail_on = _parse_fail_on(args.fail_on)
    except ValueError as exc:
        return fail([str(exc)])
    missing = [n for n, v in (("baseline", args.baseline), ("receipt", args.receipt)) if not v]
    if missing:
        return fail([f"input {n} is required: the path of a receipt" for n in missing])
    read: list[Receipt] = []
    problems: list[str] = []
    paths = [args.baseline, args.receipt] + ([args.aa] if args.aa else [])
    for path in paths:  # all read, so every problem is reported at once
        try:
            read.append(read_receipt(path))
        except DriftproofError as exc:
            problems += exc.lines()
    if not problems and args.aa and not read[2].run.aa:
        problems.append(f"{args.aa}: /run/aa: expected an A/A calibration (run --aa)")
    if problems:
        return fail(problems)
    a, b = read[:2]
    c = compare_receipts(
        a, b, a_name=Path(args.baseline).name, b_name=Path(args.receipt).name, false_alarms=True
    )
    outputs = action_outputs(a, b, c)
    summary = summary_markdown(a, b, c, fail_on=fail_on)
    if args.aa:  # cited beside the verdicts, never a decision (issue 37, item 4)
        summary += f"\n{md_escape(aa_line(Path(args.aa).name, aa_reading(read[2])), 2000)}\n"
    unwritten = _write_outputs(summary_path, summary, output_path, outputs)
    if unwritten:
        for line in unwritten:
            print(f"error: {line}", file=sys.stderr)
        return 2
    decision = outputs["decision"]
    # Only fixed words and counts reach stdout: a case id printed there could be read as a
    # workflow command. One annotation when a case regressed; the rest is in the summary.
    print(f"driftproof: decision {decision}; lift {outputs['lift']}")
    fails = job_fails(c, fail_on)
    if decision == VerdictCode.REGRESSED:
        n = len(json.loads(outputs["regressed-cases"]))
        print(
            f"::{'error' if fails else 'warning'} title=Driftproof::{n} "
            f"{'case' if n == 1 else 'cases'} regressed; see the job summary"
        )
    return 1 if fails else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
