"""Refusals of regrade inputs that cannot be held to the original, one sentence each.

Method, "Receipts are an open format": kept answers, revised tasks and kept transcripts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from driftproof._json import open_file
from driftproof.receipt import Receipt, _bounds, sha256_text
from driftproof.run.suite import Suite
from driftproof.wording import ARM_WORDS


def draw_words(case_id: str, arm: str, index: int) -> str:
    """A draw as a refusal names it: case, arm in words, draw number as the sheet shows it."""
    return f"case {case_id}, {ARM_WORDS[arm]}, draw {index}"


def input_refusals(original: Receipt, revised: Suite) -> list[str]:
    """Why the kept answers or revised tasks cannot be held to ``original`` (empty: they can)."""
    reasons: list[str] = []
    total_chars = 0
    for case in original.cases:
        for name, arm in case.arms.named():
            for d in arm.draws:
                where = draw_words(case.id, name, d.index)
                if d.lost is not None:
                    continue
                if d.answer is None:
                    why = "the original kept no answer (run with --keep-transcripts to regrade)"
                    return [*reasons, f"{where}: {why}"]
                if len(d.answer) > _bounds.ANSWER_MAX_CHARS:
                    return [*reasons, f"{where}: answer over {_bounds.ANSWER_MAX_CHARS} characters"]
                total_chars += len(d.answer)
                if d.answer_sha256 is not None and sha256_text(d.answer) != d.answer_sha256:
                    reasons.append(f"{where}: the answer does not match its sealed hash")
    if total_chars > _bounds.ANSWERS_ARCHIVE_MAX_BYTES:
        reasons.append(
            f"the answers total {total_chars} characters; "
            f"the limit is {_bounds.ANSWERS_ARCHIVE_MAX_BYTES}"
        )
    by_id = {c.id: c for c in revised.cases}
    for case in original.cases:
        rc = by_id.get(case.id)
        if rc is None:
            reasons.append(f"the revised tasks have no case {case.id!r}")
        elif case.prompt_sha256 is not None and sha256_text(rc.prompt) != case.prompt_sha256:
            reasons.append(
                f"case {case.id}: the revised task's prompt differs from the original's; "
                "a new prompt needs a new run"
            )
        elif case.prompt_sha256 is None:
            reasons.append(
                f"case {case.id}: the original records no prompt hash, "
                "so the revised task cannot be held to it"
            )
    extra = sorted(set(by_id) - {c.id for c in original.cases})
    if extra:
        reasons.append(
            f"the revised tasks add cases the original never answered: {', '.join(extra[:5])}"
        )
    return reasons


def transcripts_refusals(original: Receipt, original_path: Path) -> list[str]:
    """Why the kept transcripts beside the original are not the file it sealed (absent: none)."""
    kept = getattr(original.run, "transcripts", None)
    if kept is None:
        return []
    path = original_path.with_name(kept.file)
    if not path.is_file():
        return []
    if path.stat().st_size > _bounds.ANSWERS_ARCHIVE_MAX_BYTES:
        return [
            f"the kept transcripts {path.name} are over {_bounds.ANSWERS_ARCHIVE_MAX_BYTES} bytes"
        ]
    with open_file(path) as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    if digest != kept.sha256:
        return [
            f"the kept transcripts {path.name} changed after the original sealed them "
            f"(sha256 {digest[:12]}…, sealed {kept.sha256[:12]}…)"
        ]
    return []
