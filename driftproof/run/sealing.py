"""Sealing a run: the receipt document assembled from the journal, the transcripts file and
the checked atomic write (split from :mod:`.engine`).

Economics (method, "What grading cost"): ``judge_overhead`` sums the usage the judge's
answered samples reported, at the judge price frozen in the receipt; draws none of whose
samples reported usage are counted in ``judged_draws_missing_usage``.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from driftproof.receipt import (
    Receipt,
    receipt_doc,
    sha256_text,
    validate_document,
    write_checked_receipt,
)
from driftproof.run import judge as J
from driftproof.run.config import ARMS, RunConfig, construction, judge_usd, now
from driftproof.run.journal import Journal, journal_path
from driftproof.run.providers.base import Provider
from driftproof.run.suite import Suite, SuiteCase

__all__ = [
    "answers",
    "file_sha256",
    "price_doc",
    "receipt_document",
    "write_receipt",
    "write_transcripts",
]


def price_doc(price: tuple[float, ...] | None, tier: str | None = None) -> dict[str, Any] | None:
    if price is None:
        return None
    doc: dict[str, Any] = {"input_usd_per_mtok": price[0], "output_usd_per_mtok": price[1]}
    if tier is not None:  # ``batch`` for ``--batch`` (issue 17)
        doc["tier"] = tier
    if len(price) > 2 and price[2] is not None:
        doc["cache_read_usd_per_mtok"] = price[2]
    if len(price) > 3 and price[3] is not None:
        doc["cache_write_usd_per_mtok"] = price[3]
    return doc


def receipt_document(
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
) -> dict[str, Any]:
    """The run's receipt from its journal, built in one call of the typed builder
    (:func:`~driftproof.receipt.receipt_doc`: the model checks every member where it is built)
    and returned as plain data, the model not kept: holding the model of a 100,000-call run
    while it is sealed took the batch benchmark from 494 to 599 MB (budget 500 MB, issue 17).
    ``batch`` is ``run.batch`` of a run through the batch APIs; ``transcripts`` is
    ``run.transcripts`` of the kept-transcripts file (v0.15).

    Raises:
        pydantic.ValidationError: a member the model refuses, named by its path.
    """
    case_docs, counts = [], set()
    inputs: dict[str, list[int]] = {a: [] for a in systems}
    counted = missing = tin = tout = tcr = tcc = treason = 0
    repairs: list[dict[str, Any]] = []
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (cid, a, _), r in journal.draws.items():
        by_cell.setdefault((cid, a), []).append(r)
    for ci, c in enumerate(cases):
        arms = {}
        for arm in systems:
            recs = sorted(by_cell.get((c.id, arm), []), key=lambda r: r["index"])
            draws = [r["draw"] for r in recs]
            for di, r in enumerate(recs):
                for fix in r.get("repairs") or ():
                    field_ = fix["field"]
                    if field_ == "answer" and draws[di]["answer"] is None:
                        # the answer is not kept; its hash is of the repaired text
                        field_ = "answer_sha256"
                    if field_.startswith("judge_reply/"):
                        field_ = f"judge_samples/{field_.split('/', 1)[1]}/reply_sha256"
                    elif field_ == "refusal":
                        field_ = "refusal/text"
                    elif field_ == "reasoning":  # kept by its length and hash only
                        field_ = "reasoning/sha256"
                    repairs.append(
                        {
                            "pointer": f"/cases/{ci}/arms/{arm}/draws/{di}/{field_}",
                            "replaced": fix["replaced"],
                        }
                    )
            counts.add(len(draws))
            inputs[arm] += [
                d["tokens"]["input"]
                for d in draws
                if d["tokens"] is not None
                and d["tokens"]["counted_by"] == "provider"
                and d["tokens"]["input"] is not None
            ]
            measured = [d["score"] for d in draws if d["score"] is not None]
            arms[arm] = {
                "draws": draws,
                "generation": {"sd": statistics.stdev(measured)} if len(measured) >= 2 else None,
            }
            for r in recs:
                u = r.get("judge_usage")
                if u is None:
                    continue
                if u["reported"]:
                    counted, tin, tout = counted + 1, tin + u["input"], tout + u["output"]
                    tcr += u.get("cache_read", 0)
                    tcc += u.get("cache_creation", 0)
                    treason += u.get("reasoning", 0)
                else:
                    missing += 1
        case_docs.append(
            {
                "id": c.id,
                "prompt": c.prompt,
                "prompt_sha256": sha256_text(c.prompt),
                "rubric_sha256": J.rubric_sha256(c),
                "threshold": c.threshold,
                "arms": arms,
            }
        )
    price = cfg.judge_price
    usd = judge_usd(price, tin, tout, tcr, tcc)
    overhead = {
        "input_tokens": tin,
        "output_tokens": tout,
        "judged_draws_counted": counted,
        "judged_draws_missing_usage": missing,
        "usd": None if usd is None else round(usd, 10),
        "cache_read_input_tokens": tcr,
        "cache_creation_input_tokens": tcc,
        "reasoning_output_tokens": treason,
    }
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
    return receipt_doc(
        level="UNVERIFIED" if unverified else "TESTED",
        skill_name=skill_name,
        skill_text=skill_text,
        cases=case_docs,
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
        judge_overhead=overhead,
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


def write_receipt(doc: dict[str, Any], out: Path, *, replace: bool = True) -> Receipt:
    """Seal the receipt and validate it once in memory (issue 19), then write it atomically.
    With ``replace`` false the move into place never replaces a file that appeared at ``out``
    while the run went on (issue 16); whatever was there and the journal are kept."""
    if replace:
        return write_checked_receipt(doc, out)
    from driftproof.errors import RefusalError
    from driftproof.receipt._seal import atomic_write, sealed_bytes

    sealed, data = sealed_bytes(doc, out)
    receipt = validate_document(sealed, str(out))
    tmp = out.with_name(f".{out.name}.unchecked")
    try:
        atomic_write(tmp, data)
    except OSError as exc:  # a full disk: name the receipt, not its temporary name
        raise OSError(exc.errno, exc.strerror or str(exc), str(out)) from exc
    try:
        os.link(tmp, out)  # atomic: fails when out exists, never replaces it
    except FileExistsError:
        raise RefusalError(
            f"--out {out} appeared while the run went on; it was not replaced. The finished draws "
            f"are kept in {journal_path(out)}: run the same command with --force to write "
            "the receipt over it, or move that file away"
        ) from None
    except OSError:  # a file system without hard links: the check and the move are two steps
        if out.exists():
            raise RefusalError(
                f"--out {out} appeared while the run went on; it was not replaced"
            ) from None
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return receipt


def file_sha256(path: Path) -> str:
    import hashlib

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
