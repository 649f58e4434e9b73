"""Sealing a run: the receipt built from the journal as the model, the transcripts file, and
the write (sealed once, validated once, atomic).

Economics (method, "What grading cost"): ``judge_overhead`` sums the usage the judge's
answered samples reported, at the judge price frozen in the receipt; draws none of whose
samples reported usage are counted in ``judged_draws_missing_usage``.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from driftproof.errors import RefusalError
from driftproof.receipt import (
    Case,
    CaseArm,
    CaseArms,
    Draw,
    Generation,
    Receipt,
    ReceiptBody,
    TextRepair,
    build_receipt,
    sha256_text,
)
from driftproof.receipt import write_receipt as write_sealed
from driftproof.run import judge as J
from driftproof.run.config import ARMS, RunConfig, construction, judge_usd, now
from driftproof.run.journal import Journal, journal_path
from driftproof.run.providers.base import Provider
from driftproof.run.suite import Suite, SuiteCase

__all__ = [
    "answers",
    "file_sha256",
    "price_doc",
    "receipt_body",
    "write_receipt",
    "write_transcripts",
]


def price_doc(price: tuple[float, ...] | None, tier: str | None = None) -> dict[str, Any] | None:
    if price is None:
        return None
    doc: dict[str, Any] = {"input_usd_per_mtok": price[0], "output_usd_per_mtok": price[1]}
    if tier is not None:  # ``batch`` for ``--batch``
        doc["tier"] = tier
    if len(price) > 2 and price[2] is not None:
        doc["cache_read_usd_per_mtok"] = price[2]
    if len(price) > 3 and price[3] is not None:
        doc["cache_write_usd_per_mtok"] = price[3]
    return doc


#: A draw's repaired text → where its repair is recorded, under the draw.
_REPAIRED = {"refusal": "refusal/text", "reasoning": "reasoning/sha256"}


def _repairs(recs: list[dict[str, Any]], at: str) -> list[TextRepair]:
    """The text repairs of one arm's journal records, each pointing into the receipt at ``at``."""
    out = []
    for di, r in enumerate(recs):
        for fix in r.get("repairs") or ():
            field_ = _REPAIRED.get(fix["field"], fix["field"])
            if field_ == "answer" and r["draw"]["answer"] is None:
                field_ = "answer_sha256"  # the answer is not kept; its hash is of the repaired text
            elif field_.startswith("judge_reply/"):
                field_ = f"judge_samples/{field_.split('/', 1)[1]}/reply_sha256"
            out.append(TextRepair(pointer=f"{at}/draws/{di}/{field_}", replaced=fix["replaced"]))
    return out


def _overhead(records: list[dict[str, Any]], price: tuple[float, ...] | None) -> dict[str, Any]:
    """``economics.judge_overhead``: the judge usage the records report, at the frozen price."""
    got: Counter[str] = Counter()
    for u in (r["judge_usage"] for r in records if r.get("judge_usage") is not None):
        if not u["reported"]:
            got["missing"] += 1
            continue
        got.update(counted=1, input=u["input"], output=u["output"])
        got.update({k: u.get(k, 0) for k in ("cache_read", "cache_creation", "reasoning")})
    usd = judge_usd(price, got["input"], got["output"], got["cache_read"], got["cache_creation"])
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


def _arm(recs: list[dict[str, Any]]) -> CaseArm:
    draws = [Draw.model_validate(r["draw"]) for r in recs]
    measured = [d.score for d in draws if d.score is not None]
    sd = Generation(sd=statistics.stdev(measured)) if len(measured) >= 2 else None
    return CaseArm(draws=draws, generation=sd)


def receipt_body(
    suite: Suite,
    cases: list[SuiteCase],
    systems: dict[str, str | None],
    skill_text: str,
    skill_name: str,
    cfg: RunConfig,
    provider: Provider,
    judge_doc: dict[str, Any],
    journal: Journal,
    attempts: int,
    harness_version: str | None,
    stopped: str | None,
    batch: dict[str, Any] | None = None,
    transcripts: dict[str, Any] | None = None,
) -> ReceiptBody:
    """The run's receipt, built as the model from its journal.

    Args:
        batch: ``run.batch`` of a run through the batch APIs.
        transcripts: ``run.transcripts`` of the kept-transcripts file.

    Raises:
        pydantic.ValidationError: a member the model refuses, named by its path.
    """
    counts: set[int] = set()
    inputs: dict[str, list[int]] = {a: [] for a in systems}
    visited: list[dict[str, Any]] = []
    repairs: list[TextRepair] = []
    built: list[Case] = []
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (cid, a, _), r in journal.draws.items():
        by_cell.setdefault((cid, a), []).append(r)
    for ci, c in enumerate(cases):
        arms = {}
        for arm in systems:
            recs = sorted(by_cell.get((c.id, arm), []), key=lambda r: r["index"])
            repairs += _repairs(recs, f"/cases/{ci}/arms/{arm}")
            arms[arm] = _arm(recs)
            counts.add(len(recs))
            inputs[arm] += [
                d.tokens.input
                for d in arms[arm].draws
                if d.tokens is not None
                and d.tokens.counted_by == "provider"
                and d.tokens.input is not None
            ]
            visited += recs
        built.append(
            Case(
                id=c.id,
                prompt=c.prompt,
                prompt_sha256=sha256_text(c.prompt),
                rubric_sha256=J.rubric_sha256(c),
                threshold=c.threshold,
                arms=CaseArms(**arms),
            )
        )
    arm_specs = {
        a: {
            "label": a,
            "instruction": systems[a] if a == "control" else None,
            "system_prompt_sha256": sha256_text(s) if s is not None else None,
            "service": provider.service,
            "construction": construction(a, cfg.control, cfg.aa),
            "input_tokens_median": statistics.median(inputs[a]) if inputs[a] else None,
        }
        for a, s in systems.items()
    }
    offline = ("stub", "simulated")
    unverified = (
        provider.name in offline
        or judge_doc["provider"] in offline
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
        suite_name=suite.name[:200],
        suite_sha256=suite.sha256,
        judge=judge_doc,
        arms=arm_specs,
        band_source="generation",
        judge_overhead=_overhead(visited, cfg.judge_price),
        run_members={
            "max_output_tokens": cfg.max_tokens if provider.sends_budget else None,
            "truncation": cfg.truncation,
            "retry": cfg.policy().doc(),
            "language": cfg.language,
            "aa": True if cfg.aa else None,
            "quality_margin": cfg.margin,
            "batch": batch,
            "transcripts": transcripts,
            "budget_param": getattr(provider, "budget_param", None)
            if getattr(provider, "api", None) == "chat"
            else None,
        },
        text_repairs=repairs[:100000] if repairs else None,
    )


def write_receipt(body: ReceiptBody, out: Path, *, replace: bool = True) -> Receipt:
    """Seal the run's receipt, validate it once and write it atomically.

    With ``replace`` false a file that appeared at ``out`` while the run went on is never
    replaced; whatever was there and the journal are kept.

    Raises:
        RefusalError: ``replace`` is false and ``out`` exists.
        ReceiptError: the receipt fails a check (:func:`driftproof.receipt.write_receipt`).
    """
    try:
        return write_sealed(body, out, replace=replace)
    except FileExistsError:
        raise RefusalError(
            f"--out {out} appeared while the run went on; it was not replaced. The finished draws "
            f"are kept in {journal_path(out)}: run the same command with --force to write "
            "the receipt over it, or move that file away"
        ) from None


def file_sha256(path: Path) -> str:
    """Lowercase hex sha256 of the file at ``path``, read 1 MiB at a time."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_transcripts(out: Path, journal: Journal) -> Path:
    """``--keep-transcripts``: every answer with the judge's replies and the raw output, one JSON
    line per draw, beside the receipt, which seals the file's sha256 in ``run.transcripts``."""
    path = out.with_name(out.name + ".transcripts.jsonl")
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".transcripts-")
    try:
        _write_lines(fd, journal)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)  # a full disk leaves nothing behind
        if isinstance(exc, OSError):  # naming the file the user would look for
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    return path


def _write_lines(fd: int, journal: Journal) -> None:
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        for (cid, arm, idx), rec in sorted(journal.draws.items()):
            f.write(
                json.dumps(
                    {
                        "case": cid,
                        "arm": arm,
                        "index": idx,
                        "answer": rec["draw"]["answer"],
                        "answer_sha256": rec["draw"]["answer_sha256"],
                        **(rec.get("transcript") or {}),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        f.flush()
        os.fsync(f.fileno())


def answers(journal: Journal, case_id: str) -> dict[str, dict[str, str | None]]:
    out: dict[str, dict[str, str | None]] = {}
    order = {a: i for i, a in enumerate(ARMS)}
    for (cid, arm, idx), rec in sorted(
        journal.draws.items(), key=lambda kv: (order[kv[0][1]], kv[0][2])
    ):
        if cid == case_id:
            out.setdefault(arm, {})[str(idx)] = rec.get("shown_answer")
    return out
