"""Sealing a run: the receipt built as the model from the journal, and the transcripts file."""

from __future__ import annotations

import glob
import hashlib
import json
import os
import statistics
import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from driftproof.errors import BoundsError
from driftproof.outputs import open_mode
from driftproof.receipt import (
    Case,
    CaseArm,
    CaseArms,
    Draw,
    Generation,
    ReceiptBody,
    TextRepair,
    _bounds,
    build_receipt,
    cut_label,
    sha256_text,
)
from driftproof.run import judge as J
from driftproof.run.config import REASON_MAX, construction, judge_usd, kept_on_disk_error, now
from driftproof.run.drawer import Drawer
from driftproof.run.journal import Journal
from driftproof.run.jsonl import named
from driftproof.run.providers.base import Provider
from driftproof.run.suite import Suite, SuiteCase
from driftproof.tokens import SKILL_REACHED_SHARE
from driftproof.wording import ARMS, OFFLINE

#: ``judge.price`` members, in the order of a price tuple.
_PRICES = ("input", "output", "cache_read", "cache_write")


def price_doc(price: tuple[float, ...] | None, tier: str | None = None) -> dict[str, Any] | None:
    """``judge.price`` from (input, output[, cache read, cache write]) USD per million tokens.

    ``tier`` is ``batch`` for ``--batch``; a cache price that is ``None`` is left out.
    """
    if price is None:
        return None
    doc = {f"{n}_usd_per_mtok": p for n, p in zip(_PRICES, price, strict=False) if p is not None}
    return doc if tier is None else {**doc, "tier": tier}


def judge_doc(
    judge: Provider, model: str, max_tokens: int, price: tuple[float, ...] | None, tier: str | None
) -> dict[str, Any]:
    """The receipt's ``judge``: the fixed judge's model, lane, template, scale and price.

    ``max_tokens`` is a judge call's output budget; ``price`` and ``tier`` as :func:`price_doc`.
    """
    template_sha256, template_version = J.template_identity()
    return {
        "model": model,
        "provider": judge.name,
        "surface": judge.surface,
        "service": judge.service,
        "sampling": judge.sampling(max_tokens),
        "template_sha256": template_sha256,
        "scale": {"worst": J.SCALE[0], "best": J.SCALE[1], "step": J.SCALE[2]},
        "price": price_doc(price, tier),
        "channel": judge.channel,
        "template_version": template_version,
        "max_output_tokens": max_tokens,
    }


#: A draw's repaired text → where its repair is recorded, under the draw.
_REPAIRED = {"refusal": "refusal/text", "reasoning": "reasoning/sha256"}


def draw_repairs(rec: dict[str, Any], at: str) -> list[TextRepair]:
    """The text repairs noted in one draw's record ``rec``, pointing under its pointer ``at``."""
    out = []
    for fix in rec.get("repairs") or ():
        field_ = _REPAIRED.get(fix["field"], fix["field"])
        if field_ == "answer" and rec["draw"]["answer"] is None:
            field_ = "answer_sha256"  # the answer is not kept; its hash is of the repaired text
        elif field_.startswith("judge_reply/"):
            field_ = f"judge_samples/{field_.split('/', 1)[1]}/reply_sha256"
        out.append(TextRepair(pointer=f"{at}/{field_}", replaced=fix["replaced"]))
    return out


#: The usage members of a draw's judge replies, summed by :func:`judge_overhead`.
_USAGE = ("input", "output", "cache_read", "cache_creation", "reasoning")


def judge_overhead(
    recs: list[dict[str, Any]], price: tuple[float | None, ...] | None
) -> dict[str, Any]:
    """``economics.judge_overhead``: the judge usage the records report, at the frozen price.

    Each of ``recs``' ``judge_usage`` is a draw's :class:`~driftproof.run.grading.Usage` document
    (none: the draw was not graded); ``price`` is in USD per million tokens (input, output[,
    cache read, cache write]). A draw whose usage would take a sum past what a receipt can seal
    (D-12: 2**53 - 1) is missing usage, as an unreported one is; the largest are left out first.
    """
    got: Counter[str] = Counter()
    used = [r["judge_usage"] for r in recs if r.get("judge_usage") is not None]
    for u in sorted(used, key=lambda u: max(u.get(k, 0) for k in _USAGE)):
        if not u["reported"] or any(
            got[k] + u.get(k, 0) > _bounds.JSON_SAFE_INTEGER for k in _USAGE
        ):
            got["missing"] += 1
            continue
        got.update(counted=1, **{k: u.get(k, 0) for k in _USAGE})
    usd = judge_usd(price, got)
    return {
        "input_tokens": got["input"],
        "output_tokens": got["output"],
        "judged_draws_counted": got["counted"],
        "judged_draws_missing_usage": got["missing"],
        "usd": None if usd is None else round(usd, 10),
        "cache_read_input_tokens": got["cache_read"],
        "cache_creation_input_tokens": got["cache_creation"],
        "reasoning_output_tokens": got["reasoning"],
    }


def case_arm(draws: list[Draw]) -> CaseArm:
    """An arm of ``draws`` with its recorded spread (D-2, D-8).

    The spread is the sample sd of the measured draw scores, as a reader recomputes it (D-18);
    ``None`` under two measured draws.
    """
    measured = [d.score for d in draws if d.score is not None]
    sd = Generation(sd=statistics.stdev(measured)) if len(measured) >= 2 else None
    return CaseArm(draws=draws, generation=sd)


def _arm(recs: list[dict[str, Any]]) -> CaseArm:
    return case_arm([Draw.model_validate(r["draw"]) for r in recs])


def _unreached(arms: dict[str, CaseArm], skill_tokens: int) -> list[str | None]:
    """Why each with-skill draw of a case cannot have seen the skill, else ``None`` (D-14).

    On an API lane the arms' requests differ by the system prompt alone, so each with-skill
    draw's reported input must exceed the other arm's median by :data:`SKILL_REACHED_SHARE` of
    the skill's ``skill_tokens`` (o200k_base) at least; a draw, or both other arms, reporting none
    is not compared. The other arm is the control when it reported an input (both carry a system
    message, so a chat template's default system prompt, put in only without one, is in neither),
    else the baseline: a control none of whose draws reported its input compares nothing.
    """
    draws = arms["with_skill"].draws
    other, against = "baseline", _median_input(arms["baseline"].draws)
    if "control" in arms and (control := _median_input(arms["control"].draws)) is not None:
        other, against = "control", control
    if against is None:
        return [None] * len(draws)
    advice = "the control, which tells the two apart, reported no input"
    template = (
        "; so does a chat template that adds its own system prompt to a request without one: "
    )
    template += advice if "control" in arms else "run with a control then"
    why = (
        f"input tokens and the {other}'s median {against:,g}, fewer than "
        f"{SKILL_REACHED_SHARE:.0%} of the skill's own {skill_tokens:,} o200k_base tokens apart "
        "(a server that leaves the system message out does this, or one that counts only the "
        f"prompt tokens it did not take from its cache{template if other == 'baseline' else ''})"
    )
    head = "a reported input without room for the skill: this draw reported"
    return [
        None
        if (n := _input(d)) is None or n - against >= SKILL_REACHED_SHARE * skill_tokens
        else f"{head} {n:,} {why}"
        for d in draws
    ]


def _dropped(rec: dict[str, Any], why: str | None) -> dict[str, Any]:
    """A with-skill journal record as a lost draw (``prompt_dropped``) for ``why``, if not lost."""
    draw = rec["draw"]
    if why is None or draw["lost"] is not None:
        return rec
    lost = {"reason": why[:REASON_MAX], "kind": "prompt_dropped"}
    return {**rec, "draw": {**draw, "score": None, "lost": lost}}


def _cases(
    cases: list[SuiteCase], arms: list[str], journal: Journal, skill_tokens: int | None = None
) -> tuple[list[Case], list[TextRepair], list[dict[str, Any]]]:
    """The receipt's cases from the journal, their text repairs, and the records read.

    ``skill_tokens`` (an API lane whose baseline gets no skill): a with-skill draw whose reported
    input does not exceed the other arm's by the skill is lost (:func:`_unreached`).
    """
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (cid, a, _), r in journal.draws.items():
        by_cell.setdefault((cid, a), []).append(r)
    built: list[Case] = []
    repairs: list[TextRepair] = []
    visited: list[dict[str, Any]] = []
    for ci, c in enumerate(cases):
        cells = {a: sorted(by_cell.get((c.id, a), []), key=lambda r: r["index"]) for a in arms}
        case_arms = {a: _arm(recs) for a, recs in cells.items()}
        if skill_tokens is not None:
            whys = _unreached(case_arms, skill_tokens)
            case_arms["with_skill"] = _arm(list(map(_dropped, cells["with_skill"], whys)))
        for a, recs in cells.items():
            for di, r in enumerate(recs):
                repairs += draw_repairs(r, f"/cases/{ci}/arms/{a}/draws/{di}")
            visited += recs
        prompt_sha256, rubric_sha256 = J.case_sha256s(c)
        built.append(
            Case(
                id=c.id,
                prompt=c.prompt,
                prompt_sha256=prompt_sha256,
                rubric_sha256=rubric_sha256,
                threshold=c.threshold,
                arms=CaseArms(**case_arms),
            )
        )
    return built, repairs, visited


def _input(d: Draw) -> int | None:
    """The provider-counted input tokens of ``d``; None if unreported."""
    return d.tokens.input if d.tokens is not None and d.tokens.counted_by == "provider" else None


def _median_input(draws: Iterable[Draw]) -> float | None:
    """The median of the provider-counted input tokens of ``draws``; None without any."""
    inputs = [n for d in draws if (n := _input(d)) is not None]
    return statistics.median(inputs) if inputs else None


def _arm_specs(drawer: Drawer, built: list[Case]) -> dict[str, dict[str, Any]]:
    """The receipt's ``arms``: each arm's system prompt, service, construction, median input."""
    cfg, provider = drawer.cfg, drawer.provider
    return {
        a: {
            "label": a,
            "instruction": s if a == "control" else None,
            "system_prompt_sha256": sha256_text(s) if s is not None else None,
            "service": provider.service,
            "construction": construction(a, cfg.control, cfg.aa),
            "input_tokens_median": _median_input(
                d for c in built for d in getattr(c.arms, a).draws
            ),
        }
        for a, s in drawer.systems.items()
    }


def receipt_body(
    suite: Suite,
    drawer: Drawer,
    skill_text: str,
    skill_name: str,
    judge_doc: dict[str, Any],
    attempts: int,
    harness_version: str | None,
    stopped: str | None,
    batch: dict[str, Any] | None,
    transcripts: dict[str, Any] | None,
) -> ReceiptBody:
    """The run's receipt as the model, built from the journal of ``drawer``'s draws.

    ``stopped`` is ``None`` when the run finished; ``batch`` and ``transcripts`` are members of
    ``run``. The receipt is TESTED, or UNVERIFIED for an offline lane or judge, ``--quick`` or a
    stopped run.

    Raises:
        pydantic.ValidationError: a member the model refuses, named by its path.
    """
    systems, cfg, provider = drawer.systems, drawer.cfg, drawer.provider
    chat = getattr(provider, "api", None) == "chat"
    journal = drawer.journal
    compared = provider.surface == "api" and systems["baseline"] is None
    reach = drawer.skill_tokens if compared else None
    built, repairs, visited = _cases(list(drawer.cases.values()), list(systems), journal, reach)
    counts = {len(getattr(c.arms, a).draws) for c in built for a in systems}
    unverified = (
        provider.name in OFFLINE
        or judge_doc["provider"] in OFFLINE
        or cfg.quick
        or stopped is not None
    )
    return build_receipt(
        level="UNVERIFIED" if unverified else "TESTED",
        skill_name=skill_name,
        skill_text=skill_text,
        cases=built,
        model=cfg.model,
        provider=provider.name,
        surface=provider.surface,
        harness={"name": provider.harness_name, "version": harness_version}
        if provider.harness_name
        else None,
        capture=provider.capture,
        preset="quick" if cfg.quick else None,
        started_at=journal.started_at,
        finished_at=now(),
        generations_per_arm=counts.pop() if len(counts) == 1 else None,
        judge_samples_per_generation=cfg.judge_samples,
        endpoint_attempts=attempts,
        suite_name=cut_label(suite.name),
        suite_sha256=suite.sha256,
        judge=judge_doc,
        arms=_arm_specs(drawer, built),
        band_source="generation",
        judge_overhead=judge_overhead(visited, cfg.judge_price),
        run_members={
            "max_output_tokens": cfg.max_tokens if provider.sends_budget else None,
            "truncation": cfg.truncation,
            "retry": cfg.policy().doc(),
            "language": cfg.language,
            "aa": True if cfg.aa else None,
            "quality_margin": cfg.margin,
            "budget_param": getattr(provider, "budget_param", None) if chat else None,
            "batch": batch,
            "transcripts": transcripts,
        },
        text_repairs=repairs[:100000] if repairs else None,
    )


def transcripts_file(receipt: Path) -> Path:
    """Where ``--keep-transcripts`` keeps the replies of the receipt written to ``receipt``."""
    return receipt.with_name(receipt.name + ".transcripts.jsonl")


def write_transcripts(out: Path, journal: Journal) -> tuple[Path, dict[str, Any]]:
    """Write ``--keep-transcripts``'s file beside the receipt, one JSON line per draw.

    Returns its path and the receipt's ``run.transcripts`` (name, sha256, draws), which the seal
    covers. On failure nothing is left behind and the journal is closed (every draw kept); the
    temporary file a killed run left beside the receipt is removed first.

    Raises:
        BoundsError: more draws than an answers archive may hold
            (``_bounds.ANSWERS_ARCHIVE_MAX_ENTRIES``, as a regrade refuses it).
        OSError: the file cannot be written; the error names it and the journal kept
            (:func:`~driftproof.run.config.kept_on_disk_error`).
    """
    path = transcripts_file(out)
    if (n := len(journal.draws)) > (most := _bounds.ANSWERS_ARCHIVE_MAX_ENTRIES):
        journal.close()
        raise BoundsError.at(
            path, "", f"expected at most {most:,} answers (one per draw), found {n:,}"
        )
    prefix = f".{out.name}.transcripts-"  # this receipt's own: a killed run's is removed here
    for left in out.parent.glob(glob.escape(prefix) + "*"):
        left.unlink(missing_ok=True)
    digest, tmp = hashlib.sha256(), ""
    try:
        fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=prefix)
        open_mode(fd)
        with os.fdopen(fd, "wb") as f:
            for (cid, arm, idx), rec in sorted(journal.draws.items()):
                draw = rec["draw"]
                line = {"case": cid, "arm": arm, "index": idx, "answer": draw["answer"]}
                line |= {"answer_sha256": draw["answer_sha256"], **(rec.get("transcript") or {})}
                data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
                f.write(data)
                digest.update(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp:  # a full disk leaves nothing behind
            Path(tmp).unlink(missing_ok=True)
        journal.close()
        if isinstance(exc, OSError):  # naming the file the user would look for
            kept = len(journal.draws)
            raise kept_on_disk_error(named(exc, path), kept, journal.path) from exc
        raise
    return path, {"file": path.name, "sha256": digest.hexdigest(), "draws": len(journal.draws)}


def answers(journal: Journal, case_id: str) -> dict[str, dict[str, str | None]]:
    """``--quick``'s answers of case ``case_id``: ``{arm: {draw index: answer}}``."""
    out: dict[str, dict[str, str | None]] = {}
    order = {a: i for i, a in enumerate(ARMS)}
    for (cid, arm, idx), rec in sorted(
        journal.draws.items(), key=lambda kv: (order[kv[0][1]], kv[0][2])
    ):
        if cid == case_id:
            out.setdefault(arm, {})[str(idx)] = rec.get("shown_answer")
    return out
