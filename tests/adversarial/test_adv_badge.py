"""Adversarial: ``driftproof badge`` output paths (the receipt itself, collisions, unwritable
places)
and untrusted text in the badge files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import case, make_receipt
from factories import run_main as run
from receipt_docs import seal_document

HOSTILE = '"><script>alert(1)</script>'


def receipt_file(tmp_path: Path, name: str = "demo.json", **changes: Any) -> Path:
    doc = make_receipt([case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32])])
    for key, value in changes.items():
        doc["skill" if key == "skill_name" else "run"][
            "name" if key == "skill_name" else "model"
        ] = value
    path = tmp_path / name
    path.write_text(json.dumps(seal_document(doc)), encoding="utf-8")
    return path


def test_out_beside_the_receipt_does_not_overwrite_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof badge receipts/x.json --out receipts` replaced the receipt x.json with
    # the shields.io endpoint JSON (same name), exit 0.
    src = receipt_file(tmp_path)
    before = src.read_bytes()
    code, _, err = run(["badge", str(src), "--out", str(tmp_path)], capsys)
    assert code == 2
    assert "would overwrite the receipt" in err
    assert src.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json"]


def test_output_through_a_symlink_to_the_receipt_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = receipt_file(tmp_path)
    before = src.read_bytes()
    (tmp_path / "link.json").symlink_to(src)
    code, _, err = run(["badge", str(src), "--json", str(tmp_path / "link.json")], capsys)
    assert code == 2 and "would overwrite the receipt" in err
    assert src.read_bytes() == before


def test_two_outputs_on_one_path_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `--json b --svg b` exited 0 having written only the SVG under the name meant for
    # the JSON.
    src = receipt_file(tmp_path)
    target = tmp_path / "b.out"
    code, _, err = run(["badge", str(src), "--json", str(target), "--svg", str(target)], capsys)
    assert code == 2 and "named for two outputs" in err
    assert not target.exists()


def test_unwritable_output_writes_no_file_and_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: an SVG path in a place that cannot be written ended in a FileNotFoundError traceback
    # after the JSON had already been written.
    src = receipt_file(tmp_path)
    import driftproof.outputs as outputs  # the writer badge's files go through

    real = outputs.tempfile.mkstemp

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if str(kwargs.get("prefix", "")).startswith(".b.svg"):
            raise PermissionError(13, "Permission denied")
        return real(*args, **kwargs)

    monkeypatch.setattr(outputs.tempfile, "mkstemp", mkstemp)
    out = tmp_path / "new" / "dir"
    code, _, err = run(
        ["badge", str(src), "--json", str(out / "b.json"), "--svg", str(out / "b.svg")], capsys
    )
    assert code == 2, err
    assert "Traceback" not in err
    assert f"{out / 'b.svg'}: cannot write: Permission denied" in err
    assert not (tmp_path / "new").exists()  # neither file, nor the directories made for them


def test_github_output_that_is_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    src = receipt_file(tmp_path)
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path))
    code, _, err = run(["badge", str(src), "--github-output"], capsys)
    assert code == 2 and "names a directory" in err


def test_badge_files_escape_hostile_skill_and_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = receipt_file(tmp_path, skill_name="s" + HOSTILE, model="m" + HOSTILE)
    out = tmp_path / "badges"
    code, _, err = run(["badge", str(src), "--out", str(out)], capsys)
    assert code == 0, err
    svg = (out / "demo.svg").read_text(encoding="utf-8")
    assert "<script" not in svg
    details = json.loads((out / "demo.details.json").read_text(encoding="utf-8"))
    assert details["skill"] == "s" + HOSTILE  # JSON keeps the text as data, escaped by its syntax


def test_an_existing_badge_file_is_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `badge --json b.json` replaced a b.json already there, where run, regrade, import
    # and export refuse without --force. b.svg is not there: neither file is written.
    src, old, svg = receipt_file(tmp_path), tmp_path / "b.json", tmp_path / "b.svg"
    old.write_text("mine")
    argv = ["badge", str(src), "--json", str(old), "--svg", str(svg)]
    code, out, err = run(argv, capsys)
    assert (code, out, old.read_text(), svg.exists()) == (2, "", "mine", False)
    assert err == (
        f"error: --json/--svg/--details: 1 file already exists and was not replaced: {old}; "
        "choose other paths, or give --force to replace it\n"
    )
    assert run([*argv, "--force"], capsys)[0] == 0
    assert json.loads(old.read_text())["label"] == "driftproof" and svg.exists()
    out = tmp_path / "out"
    assert run(["badge", str(src), "--out-dir", str(out)], capsys)[0] == 0
    for p in out.iterdir():  # the same bytes again are no conflict (a killed badge's rerun)
        p.write_text("mine")
    code, _, err = run(["badge", str(src), "--out-dir", str(out)], capsys)
    named = ", ".join(str(out / f"demo{x}") for x in (".json", ".details.json", ".svg"))
    assert (code, err) == (
        2,
        f"error: --out-dir: 3 files already exist and were not replaced: {named}; choose "
        "another folder, or give --force to replace them\n",
    )


def test_a_file_name_with_terminal_escapes_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `driftproof badge $'t\e]0;x\a.json' --out-dir b` printed "wrote b/t", ESC ] 0 ; x
    # BEL ".svg" raw: the terminal took it as a command (here: set the window title).
    src = receipt_file(tmp_path, name="t\x1b]0;x\x07.json")
    # Such a name is now refused for --out-dir (it would name three badge files); the refusal
    # quotes it escaped, and no badge file is written.
    code, said, err = run(["badge", str(src), "--out-dir", str(tmp_path / "b")], capsys)
    assert (code, said) == (2, ""), err
    assert "\x1b" not in err and "\x07" not in err
    assert f"{tmp_path}/t\\x1b]0;x\\x07.json: the receipt's file name holds a character" in err
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())
