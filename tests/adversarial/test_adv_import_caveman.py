"""Adversarial: ``driftproof import caveman`` on hostile snapshots, and the import writer.

Each refusal must name the snapshot (not a receipt that was never written), the snapshot's own
JSON pointer and what was expected; exit status 2; no traceback; nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import run_main as run

from driftproof.errors import ImportError_
from driftproof.importers import write_imported
from driftproof.importers.caveman import CavemanOptions, import_caveman


def snapshot() -> dict[str, Any]:
    return {
        "metadata": {
            "generated_at": "2026-04-08T22:01:24+00:00",
            "claude_cli_version": "2.1.97 (Claude Code)",
            "model": "claude-opus-4-6",
            "n_prompts": 2,
            "terse_prefix": "Answer concisely.",
        },
        "prompts": ["Why is the sky blue?", "What is DNS?"],
        "arms": {
            "__baseline__": ["long answer one", "long answer two"],
            "__terse__": ["short one", "short two"],
            "caveman": ["sky blue. light scatter.", "dns name to ip."],
        },
    }


def lay_out(tmp_path: Path, text: str) -> tuple[Path, Path]:
    snap = tmp_path / "results.json"
    snap.write_text(text, encoding="utf-8")
    skill = tmp_path / "skills" / "caveman"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("Talk like caveman.\n", encoding="utf-8")
    return snap, tmp_path / "skills"


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


# (label, raw snapshot text, pointer, words expected in the message)
_LONE = json.dumps(snapshot()).replace("Why is the sky blue?", "Why\\ud800")
_DUP = json.dumps(snapshot()).replace('"arms": {', '"arms": {"caveman": ["a", "b"], ', 1)
CASES = [
    # Found: a member given twice was imported silently, one of the two lists lost.
    ("duplicate arm", _DUP, "", 'found "caveman" twice'),
    # Found: these were refused naming "caveman-caveman.json: /run/started_at" (a receipt never
    # written) instead of the snapshot's own place.
    (
        "generated_at not a date",
        json.dumps(_set(snapshot(), ("metadata", "generated_at"), "<script>")),
        "/metadata/generated_at",
        "RFC 3339",
    ),
    (
        "model too long",
        json.dumps(_set(snapshot(), ("metadata", "model"), "m" * 201)),
        "/metadata/model",
        "at most 200 characters",
    ),
    # Found: a model recorded as a number was read as "not recorded" (D-13 keeps malformed and
    # unrecorded apart).
    (
        "model is a number",
        json.dumps(_set(snapshot(), ("metadata", "model"), 5)),
        "/metadata/model",
        "found a number",
    ),
]


@pytest.mark.parametrize(("label", "text", "pointer", "words"), CASES, ids=[c[0] for c in CASES])
def test_hostile_snapshot_is_refused_at_its_own_pointer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    label: str,
    text: str,
    pointer: str,
    words: str,
) -> None:
    snap, skills = lay_out(tmp_path, text)
    out = tmp_path / "out"
    code, _, err = run(
        ["import", "caveman", str(snap), "--skills", str(skills), "--out", str(out)], capsys
    )
    assert code == 2, err
    assert "Traceback" not in err
    assert err.startswith(f"error: {snap}: {pointer + ': ' if pointer else ''}"), err
    assert words in err
    assert not out.exists()


def test_device_reporting_size_zero_is_not_read_without_end(tmp_path: Path) -> None:
    # Found: the size check used stat(), which says 0 for /dev/zero; the read then never ended.
    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(ImportError_) as info:
        import_caveman(zero, CavemanOptions(skills_dir=tmp_path))
    assert "over 33554432 bytes" in str(info.value)


def test_write_imported_writes_nothing_when_the_directory_cannot_take_them(tmp_path: Path) -> None:
    # Found: `--out` under a file (or any OSError while writing) ended in a traceback, and a
    # failure on the second receipt left the first one written.
    snap_doc = snapshot()
    snap_doc["arms"]["other"] = list(snap_doc["arms"]["caveman"])
    snap, skills = lay_out(tmp_path, json.dumps(snap_doc))
    (skills / "other").mkdir()
    (skills / "other" / "SKILL.md").write_text("Other skill.\n", encoding="utf-8")
    items = import_caveman(snap, CavemanOptions(skills_dir=skills))
    assert len(items) == 2
    out = tmp_path / "receipts"
    out.mkdir()
    (out / items[1].filename).mkdir()  # the second target is a directory: its rename fails
    with pytest.raises(ImportError_) as info:
        write_imported(items, out, source=str(snap))
    assert "nothing was written" in str(info.value)
    assert sorted(p.name for p in out.iterdir()) == [
        items[1].filename
    ]  # only what was there before

    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(ImportError_):
        write_imported(items, blocker / "sub", source=str(snap))
    assert blocker.read_text(encoding="utf-8") == "x"


def test_write_imported_leaves_no_new_directory_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap, skills = lay_out(tmp_path, json.dumps(snapshot()))
    items = import_caveman(snap, CavemanOptions(skills_dir=skills))
    import driftproof.importers as importers

    def full_disk(*args: Any, **kwargs: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(importers, "write_receipt", full_disk)
    out = tmp_path / "new" / "receipts"
    with pytest.raises(ImportError_) as info:
        write_imported(items, out, source=str(snap))
    assert "No space left on device" in str(info.value)
    assert not (tmp_path / "new").exists()


def test_lone_surrogate_in_a_prompt_is_repaired_and_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: a lone surrogate escape crashed the import with UnicodeEncodeError (exit 1, traceback).
    # Issue 14: it becomes U+FFFD and the receipt records where (text_repairs).
    snap, skills = lay_out(tmp_path, _LONE)
    out = tmp_path / "out"
    code, _, err = run(
        ["import", "caveman", str(snap), "--skills", str(skills), "--out", str(out)], capsys
    )
    assert code == 0, err
    doc = json.loads(next(out.glob("*.json")).read_text(encoding="utf-8"))
    assert doc["cases"][0]["prompt"] == "Why\ufffd"
    assert doc["text_repairs"] == [{"pointer": "/cases/0/prompt", "replaced": 1}]


def test_a_prompt_too_long_to_copy_is_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 14: a big field keeps its hash and length (bounded_text); the text is not copied.
    snap, skills = lay_out(tmp_path, json.dumps(_set(snapshot(), ("prompts", 1), "p" * 262_145)))
    out = tmp_path / "out"
    code, _, err = run(
        ["import", "caveman", str(snap), "--skills", str(skills), "--out", str(out)], capsys
    )
    assert code == 0, err
    doc = json.loads(next(out.glob("*.json")).read_text(encoding="utf-8"))
    import hashlib

    digest = hashlib.sha256(b"p" * 262_145).hexdigest()
    assert doc["cases"][1]["prompt"] is None and doc["cases"][1]["prompt_sha256"] == digest
    assert doc["bounded_text"] == [
        {"pointer": "/cases/1/prompt", "sha256": digest, "chars": 262_145}
    ]
