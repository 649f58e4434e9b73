"""The GitHub Action's logic: diff a baseline receipt against a new one, decide, report.

Run by ``action.yml`` (which describes the inputs and outputs) as ``python -m driftproof.action``.
The inputs come through the environment, never through ``${{ }}`` inside ``run:``;
``--baseline``, ``--receipt``, ``--fail-on`` and ``--aa`` override ``DRIFTPROOF_BASELINE``,
``DRIFTPROOF_RECEIPT``, ``DRIFTPROOF_FAIL_ON`` (default ``regressed,not-measured``) and
``DRIFTPROOF_AA``. Outputs go to ``$GITHUB_OUTPUT``, the summary to ``$GITHUB_STEP_SUMMARY``.

The ``decision`` output is :func:`~driftproof.pages.comparison_decision.decide`'s. ``fail-on`` may
also name ``beyond-noise``: a regressed decision then fails the job only when the chance of at least
that many regressed cases with no true change, at the compared receipts' spreads and draws, is under
5% (:mod:`driftproof.stats.false_alarms`). ``not-measured`` (on by default) fails the job, whatever
the decision, when the new receipt measured nothing in an arm of a case the baseline receipt
measured in that arm, or does not hold the case (:mod:`driftproof.pages.unmeasured_cases`; an arm
the baseline did not measure does not count, nor a case only in the new receipt).
An A/A receipt (``run --aa``) is cited at the end of the summary and never changes the decision.

Exit status: 0 when the job passes (no decision alone passes unless fail-on names none); 1 when it
fails (by default: a case regressed, or one the new receipt did not measure); 2 when an input is
missing, a receipt cannot be read, fail-on is not understood, the A/A receipt is not one or not of
the same skill, suite and models, or the summary or outputs cannot be written or name a receipt
read (each problem said on stderr); 130 when stopped before a decision; 141 when stdout is closed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from driftproof import wording
from driftproof.errors import DriftproofError
from driftproof.outputs import append_github_output, append_text, same_path, stdout_gone
from driftproof.pages.badge import tested_how
from driftproof.pages.comparison import NO_COMMON_CASE, OTHER_JUDGE, Comparison, compare_receipts
from driftproof.pages.comparison_decision import (
    BEYOND_NOISE,
    DEFAULT_FAIL_ON,
    NOT_MEASURED,
    action_outputs,
    job_fails,
    job_line,
    parse_fail_on,
)
from driftproof.pages.unmeasured_cases import unmeasured_headline
from driftproof.pages.words import aa_line, count_of, lift_cover_words, own_lifts
from driftproof.receipt import Receipt, read_receipt
from driftproof.render.comparison import BANDS_LEGEND
from driftproof.render.cut_words import CutWords
from driftproof.render.escape import md_escape as md_escape
from driftproof.render.escape import shell_path, terminal_safe
from driftproof.render.summary_cases import MAX_NOTES, with_cases
from driftproof.stats.aa import aa_problem, aa_reading
from driftproof.stats.codes import VerdictCode
from driftproof.stats.lift import CommonLifts, common_lifts

#: Said on stderr when ``$GITHUB_STEP_SUMMARY`` names no file, ``{}`` the command the notes cite.
NO_SUMMARY = "no job summary was written (GITHUB_STEP_SUMMARY names no file); {} prints the same "
NO_SUMMARY += "comparison"
#: GitHub refuses a step summary over 1 MiB; stay well under it.
MAX_SUMMARY_BYTES = 1_000_000
_NO_VERDICT = (
    "A side gets no verdict (below TESTED, a smoke run, an import, "
    "aggregates only or not measured), so this comparison decides nothing:\n\n"
)
_UNDONE = "inconclusive: a move its lost draws could undo"  # an annotation's words


def _side_table(
    a: Receipt, b: Receipt, c: Comparison, outputs: dict[str, str], common: CommonLifts
) -> list[str]:
    """The two receipts side by side: name, skill, model, level, band source, lift."""

    def level(r: Receipt) -> str:
        smoke = f" ({wording.SMOKE_RUN}: preset {r.run.preset})" if r.is_smoke else ""
        return r.verification_level + smoke

    n = len(common.cases)
    both = " over the cases both measured" if n else " over each receipt's own cases"
    over = both if any(own_lifts(common)) else ""  # a lift not its own, or (n is 0) its own
    covers = [f"{n} of {count_of(t, 'case')}" for t in (common.a_total, common.b_total)]
    rows = [
        ("receipt", c.a_name, c.b_name),
        ("skill", a.skill.name, b.skill.name),
        ("model", a.run.model or "not recorded", b.run.model or "not recorded"),
        ("verification level", level(a), level(b)),
        ("band source", *c.band_names),  # as the comparison's columns and legend name it
        # the outputs' "-" is for programs; people read U+2212, as every figure here
        (
            f"lift{over} (with skill − baseline)",
            *(outputs[k].replace("-", wording.MINUS) for k in ("baseline-lift", "lift")),
        ),
        ("lift covers (cases both receipts measured)", *covers),
    ]
    out = ["| | earlier | later |\n", "|---|---|---|\n"]
    return out + [f"| {k} | {md_escape(x)} | {md_escape(y)} |\n" for k, x, y in rows] + ["\n"]


def _decision_lines(
    decision: str, c: Comparison, fail_on: Sequence[str], cut: CutWords
) -> list[str]:
    """The summary's title, the decision and whether the job fails, and why there is none."""
    line = job_line(decision, job_fails(c, fail_on), fail_on, c.unmeasured)
    fa, regressed = c.false_alarms, VerdictCode.REGRESSED
    if decision == regressed and regressed in fail_on and fa is not None and not fa.beyond_noise:
        how = 'put "beyond-noise" in fail-on in place of "regressed"'
        how = 'take "regressed" out of fail-on' if BEYOND_NOISE in fail_on else how
        line += (
            " Noise alone gives that many regressed cases at this suite's size (below); to fail "
            f"only beyond it, {how}."
        )
    lead, rest = line.split("; ", 1)
    gone = unmeasured_headline(c.unmeasured, ids=False)  # a count: never a case id
    title = ("no decision" if decision == "none" else decision) + (f" ({gone})" if gone else "")
    lines = [f"## Driftproof: {title}\n\n", f"**{md_escape(lead)}**; {md_escape(rest, 500)}\n\n"]
    # before the verdicts: each case's arms and commonest lost reason, as recorded
    shown = c.unmeasured[:MAX_NOTES]
    lines += [f"- {md_escape(u.case_id)}: {cut.md(u.case_id, u.words(), 500)}\n" for u in shown]
    more = len(c.unmeasured) - MAX_NOTES
    lines += [f"- … {more} more not shown.\n"] if more > 0 else []
    lines += ["\n"] if c.unmeasured else []
    if decision != "none":
        return lines
    if c.refusals in ((NO_COMMON_CASE,), (OTHER_JUDGE,)):  # both judged, not comparable
        return lines + [f"{c.refusals[0]}\n\n"]
    why = (f"- {cut.md('why no verdict', r, 500)}\n" for r in c.refusals)
    return lines + [_NO_VERDICT, *why, "\n"]


def _reading_lines(a: Receipt, b: Receipt, c: Comparison, common: CommonLifts) -> list[str]:
    """What the lifts cover, the comparison's headline and sentences (``diff``'s), the legends."""
    lines = []
    n = len(common.cases)
    if n and not (a.is_smoke or b.is_smoke) and (common.a_cases != n or common.b_cases != n):
        cover = md_escape(lift_cover_words(common), 500)
        lines.append(
            f"Both lifts are taken {cover}; a case one receipt did not "
            "measure in both arms is left out of both.\n\n"
        )
    if not c.refusals and c.rows:  # with no case compared the headline would claim a reading
        lines.append(f"{md_escape(c.headline, 2000)}\n\n{md_escape(c.summary, 500)}\n\n")
        if c.underpowered_sentence:
            reason = md_escape(c.underpowered_reason or "", 500)  # a clause, without its period
            lines.append(
                f"**{md_escape(c.underpowered_sentence)}** {reason[:1].upper()}{reason[1:]}.\n\n"
            )
        if c.false_alarms is not None:
            lines.append(f"{md_escape(c.false_alarms.sentence(), 1000)}\n\n")
    for sentence in (c.not_like_for_like, *c.notes):  # notes: diff's, e.g. different skills
        lines += [f"{md_escape(sentence, 500)}\n\n"] if sentence else []
    lines += [f"{BANDS_LEGEND}\n\n"] if c.rows or c.context_rows else []
    lines += [f"- {md_escape(line, 500)}\n" for line in c.legend]
    return lines + (["\n"] if c.legend else [])


def summary_markdown(
    a: Receipt,
    b: Receipt,
    c: Comparison,
    *,
    fail_on: Sequence[str] = DEFAULT_FAIL_ON,
    max_bytes: int = MAX_SUMMARY_BYTES,
) -> str:
    """The job summary in GitHub-flavoured Markdown, under ``max_bytes`` UTF-8 bytes.

    The decision (after a reading below TESTED, how to get a TESTED receipt, as ``diff`` says
    it), both receipts, the comparison's sentences, then a per-case table (at most
    :data:`MAX_ROWS` rows) cut with an "N more cases not shown" note. A refusal, a case not
    measured or a case's lost draws cut short in place says so and is whole in a fold at the end
    (:mod:`driftproof.render.cut_words`).
    """
    outputs = action_outputs(a, b, c)
    common = common_lifts(a, b)
    cut = CutWords()
    head = _decision_lines(outputs["decision"], c, fail_on, cut)
    head += [f"{how}\n\n"] if (how := tested_how(a, b)) else []
    head += _side_table(a, b, c, outputs, common) + _reading_lines(a, b, c, common)
    return with_cases("".join(head), c, max_bytes, cut)


def _write_outputs(summary: str, outputs: dict[str, str], errors: Sequence[str] = ()) -> list[str]:
    """Append the outputs, then the summary, to GitHub's files; one line per file not written.

    Outputs not written make the step exit 2, so the summary then lists ``errors`` (the step's
    other problems) and that one instead of ``summary`` (which may say the job passes); a
    summary not written sets the outputs again (a later value wins), decision ``error``.
    """
    problems: list[str] = []
    for variable, what in (
        ("GITHUB_OUTPUT", "the outputs"),
        ("GITHUB_STEP_SUMMARY", "the job summary"),
    ):
        path = os.environ.get(variable)
        try:
            if path and variable == "GITHUB_OUTPUT":
                append_github_output(Path(path), outputs)
            elif path:
                text = _error_summary([*errors, *problems]) if problems else summary
                append_text(Path(path), text)
        except OSError as exc:
            problems.append(f"{path}: cannot append {what} ({variable}): {exc.strerror or exc}")
    out = os.environ.get("GITHUB_OUTPUT")
    if out and problems and not problems[0].startswith(f"{out}: cannot append the outputs"):
        # outputs written, summary not: an error sets decision error and no other (action.yml)
        with contextlib.suppress(OSError):
            append_github_output(Path(out), {**dict.fromkeys(outputs, ""), "decision": "error"})
    return problems


def _appended_inputs(args: argparse.Namespace) -> list[str]:
    """A GitHub file to append to that is a receipt read: one line each, before any write."""
    inputs = {"baseline": args.baseline, "new": args.receipt, "A/A": args.aa}
    return [
        f"{path}: {variable} names the {name} receipt read; appending to it would change that "
        "receipt, so nothing was written"
        for variable in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
        if (path := os.environ.get(variable))
        for name, given in inputs.items()
        if given and same_path(Path(path), Path(given))
    ]


def _error_summary(lines: list[str]) -> str:
    """The summary of a step that ends in an error (exit 2): each problem, escaped."""
    return "## Driftproof: error\n\n" + "".join(f"- {md_escape(x, 1000)}\n" for x in lines)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, each option defaulting to its environment variable."""
    exits = __doc__[__doc__.index("Exit status:") :]  # the docstring's last paragraph
    p = argparse.ArgumentParser("python -m driftproof.action", None, __doc__.split("\n")[0], exits)
    said = {
        "baseline": "the earlier receipt",
        "receipt": "the new receipt",
        "fail-on": "comma-separated decisions that fail the job, as the Action's fail-on",
        "aa": "an A/A calibration receipt, cited beside the verdicts",
    }
    for name, what in said.items():  # a blank fail-on: DEFAULT_FAIL_ON
        env = "DRIFTPROOF_" + name.upper().replace("-", "_")
        blank = f"; blank: {','.join(DEFAULT_FAIL_ON)}" if name == "fail-on" else ""
        help_ = f"{what} (default ${env}{blank})"
        p.add_argument(f"--{name}", default=os.environ.get(env, ""), help=help_)
    return p.parse_args(argv)


def _read_inputs(args: argparse.Namespace) -> tuple[list[Receipt], list[str]]:
    """The receipts named (baseline, new, then the A/A one if any) and every problem at once.

    An A/A receipt of another skill, suite, answering model or judge than the compared receipts'
    is a problem.
    """
    read: list[Receipt] = []
    problems: list[str] = []
    named = [("baseline", args.baseline), ("receipt", args.receipt), ("aa", args.aa)]
    for name, path in named if args.aa else named[:2]:
        try:
            read.append(read_receipt(path))
        except DriftproofError as exc:
            problems += [f"input {name}: {line}" for line in exc.lines()]
    aa = None
    if not problems and args.aa:
        aa = aa_problem(args.aa, read[2], ((args.baseline, read[0]), (args.receipt, read[1])))
    return read, problems + ([aa] if aa else [])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the Action's step; the exit status (module docstring), 130 on SIGINT, no traceback."""
    try:
        return _main(_arguments(argv))
    except KeyboardInterrupt:
        print("error: interrupted before a decision; no output was written", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout's reader gone: the outputs and summary stand as written
        return stdout_gone()


def _errors(lines: list[str]) -> int:
    """Each problem on one stderr line (one starting ``::`` is a workflow command); status 2."""
    for line in lines:
        print(f"error: {terminal_safe(line)}", file=sys.stderr)
    return 2


def workflow_command(name: str, message: str, **properties: str) -> str:
    """``::name key=value,…::message``, escaped as GitHub's runner decodes a workflow command.

    In the message and each value ``%``, CR and LF become ``%25``, ``%0D`` and ``%0A``; in a
    value ``:`` and ``,`` also become ``%3A`` and ``%2C``.
    """

    def escaped(text: str, specials: str = "") -> str:
        for ch in "%\r\n" + specials:  # "%" first: the escapes hold one
            text = text.replace(ch, f"%{ord(ch):02X}")
        return text

    values = ",".join(f"{k}={escaped(v, ':,')}" for k, v in properties.items())
    return f"::{f'{name} {values}' if values else name}::{escaped(message)}"


def _annotate(level: str, text: str) -> None:
    """``text`` at ``level`` (``warning``, ``error``) for the person reading the step.

    A workflow command on stdout when GitHub Actions runs it (``GITHUB_ACTIONS`` is ``true``),
    else a plain ``warning: ...`` or ``error: ...`` line on stderr.
    """
    if os.environ.get("GITHUB_ACTIONS") == "true":
        print(workflow_command(level, text, title="Driftproof"))
    else:
        print(f"{level}: {text}", file=sys.stderr)


def _main(args: argparse.Namespace) -> int:
    if clash := _appended_inputs(args):  # nothing written: the error summary would land there
        return _errors(clash)
    problems: list[str] = []  # every one at once, in the summary
    try:
        fail_on = parse_fail_on(args.fail_on)
    except ValueError as exc:
        problems.append(str(exc))
    missing = [n for n, v in (("baseline", args.baseline), ("receipt", args.receipt)) if not v]
    where = "input {}" if os.environ.get("GITHUB_ACTIONS") == "true" else "--{} FILE"
    problems += [f"{where.format(n)} is required: the path of a receipt" for n in missing]
    read, unread = _read_inputs(args) if not missing else ([], [])
    if problems := problems + unread:  # in the summary (decision ``error``) and on stderr
        return _errors(
            problems + _write_outputs(_error_summary(problems), {"decision": "error"}, problems)
        )
    a, b = read[:2]
    names = {"a_name": Path(args.baseline).name, "b_name": Path(args.receipt).name}
    if names["a_name"] == names["b_name"]:  # one name twice would not say which is which
        names = {"a_name": args.baseline, "b_name": args.receipt}
    c = compare_receipts(a, b, **names, false_alarms=True)
    outputs = action_outputs(a, b, c)
    summary = summary_markdown(a, b, c, fail_on=fail_on)
    if args.aa:  # cited beside the verdicts, never a decision
        summary += f"\n{md_escape(aa_line(Path(args.aa).name, aa_reading(read[2])), 2000)}\n"
    if unwritten := _write_outputs(summary, outputs):
        return _errors(unwritten)
    see = "see the job summary"
    if not os.environ.get("GITHUB_STEP_SUMMARY"):  # another CI, or tried locally
        named = [shell_path(args.baseline), shell_path(args.receipt)]
        named += ["--aa", shell_path(args.aa)] if args.aa else []
        see = "see " + terminal_safe(" ".join(["driftproof", "diff", *named]))
        print(f"driftproof: {NO_SUMMARY.format(see[4:])}", file=sys.stderr)
    decision = outputs["decision"]
    # Only fixed words and counts reach stdout: a case id printed there could be read as a
    # workflow command. Annotations: a case unmeasured, regressed or inconclusive; no decision.
    print(f"driftproof: decision {decision}; lift {outputs['lift']}")
    level = "error" if (fails := job_fails(c, fail_on)) else "warning"
    if gone := unmeasured_headline(c.unmeasured, ids=False):
        kind = "error" if NOT_MEASURED in fail_on else "warning"
        _annotate(kind, f"{gone}; {see}")
    if decision in (VerdictCode.REGRESSED, VerdictCode.INCONCLUSIVE):
        n = sum(v.verdict == decision for v in c.rows)
        said = _UNDONE if decision == VerdictCode.INCONCLUSIVE else decision
        _annotate(level, f"{count_of(n, 'case')} {said}; {see}")
    elif decision == "none":
        line = job_line(decision, fails, fail_on, c.unmeasured)  # counts only, never ids
        _annotate(level, f"{line} {see[0].upper()}{see[1:]}.")
    return 1 if fails else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
