"""An Inspect ``.eval`` archive whose member cannot be read is refused at that member: exit 2, one
line naming the archive, the member as a pointer and what was wrong, and no receipt written.

The archives are written by Python's zipfile (stored or deflate), then one field of the member's
central-directory entry is edited: the entry is what the reader trusts for the member's flags,
method, sizes and offset.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from factories import run_main

from driftproof.errors import ImportError_
from driftproof.importers._archive import Archive

_HEADER = json.dumps({"version": 2, "status": "success", "eval": {"task": "t"}}).encode()


def _entry(data: bytearray, name: bytes) -> int:
    """The offset of ``name``'s central-directory entry (signature ``PK\\x01\\x02``)."""
    at = 0
    while True:
        at = data.index(b"PK\x01\x02", at)
        length = int.from_bytes(data[at + 28 : at + 30], "little")
        if data[at + 46 : at + 46 + length] == name:
            return at
        at += 4


def _archive(path: Path, fault: str) -> Path:
    method = zipfile.ZIP_DEFLATED if fault == "corrupt" else zipfile.ZIP_STORED
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        z.writestr("header.json", _HEADER)
        z.writestr("samples/1_epoch_1.json", b'{"id": 1, "epoch": 1}')
    data = bytearray(buf.getvalue())
    at = _entry(data, b"header.json")
    if fault == "encrypted":
        data[at + 8] |= 0x1  # general purpose flag bit 0: encrypted
    elif fault == "method 12":
        data[at + 10 : at + 12] = (12).to_bytes(2, "little")  # bzip2
    elif fault == "truncated":
        data[at + 20 : at + 24] = (10**6).to_bytes(4, "little")  # compressed size past the end
    elif fault == "no local header":
        data[at + 42 : at + 46] = (5).to_bytes(4, "little")  # offset inside the first header
    elif fault == "corrupt":
        local = int.from_bytes(data[at + 42 : at + 46], "little")
        start = local + 30 + len(b"header.json")  # the deflate stream's first bytes
        data[start : start + 4] = b"\xff\xff\xff\xff"  # block type 3, which deflate has not
    path.write_bytes(bytes(data))
    return path


def _refused(log: Path, capsys) -> str:
    """``import inspect --with-skill log`` refused: exit 2, no traceback, no receipt; its stderr."""
    out = log.parent / "r.json"
    argv = ["import", "inspect", "--with-skill", str(log), "--skill-name", "s", "--out", str(out)]
    code, _, err = run_main(argv, capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    return err


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("encrypted", "the member is encrypted; expected a plain member"),
        (
            "method 12",
            "compression method 12 is not read; expected stored (0), deflate (8) or Zstandard (93)",
        ),
        ("truncated", "the member ends before its declared compressed size"),
        ("no local header", "the member's local header is missing or corrupt"),
        ("corrupt", "the member cannot be inflated: "),
    ],
)
def test_an_unreadable_member_is_refused_naming_the_archive_and_member(
    tmp_path: Path, capsys, fault: str, words: str
) -> None:
    log = _archive(tmp_path / "a.eval", fault)
    err = _refused(log, capsys)
    assert err.count("\n") == 1 and err.startswith(f"error: {log}, member header.json: {words}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.eval"]


def test_a_member_the_archive_does_not_list_is_refused_by_its_name(tmp_path: Path) -> None:
    log = _archive(tmp_path / "a.eval", "none")
    with pytest.raises(ImportError_) as caught:
        Archive(log).read("reductions.json")
    (problem,) = caught.value.problems
    assert (problem.file, problem.member, problem.pointer) == (str(log), "reductions.json", "")
    assert problem.message == "expected this member in the archive; found none"


def _log(path: Path, sample_id: object) -> Path:
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}
    header |= {"results": {"scores": [{"name": "match", "scorer": "match"}]}}
    sample = {"id": sample_id, "epoch": 1, "input": "q", "scores": {"match": {"value": "C"}}}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps(header))
        z.writestr("samples/1_epoch_1.json", json.dumps(sample))
    return path


@pytest.mark.parametrize(("sample_id", "found"), [(1.5, "the number 1.5"), (None, "null")])
def test_a_sample_id_that_is_no_integer_or_string_is_refused(
    tmp_path: Path, capsys, sample_id: object, found: str
) -> None:
    # found: the refusal did not say what the id was
    log = _log(tmp_path / "a.eval", sample_id)
    assert _refused(log, capsys) == (
        f"error: {log}, member samples/1_epoch_1.json: /id: expected the sample id (an integer "
        f"or a string), found {found}\n"
    )


@pytest.mark.parametrize("scorer", [":accuracy", "match:", ""])
def test_a_scorer_option_without_a_name_or_key_is_refused(
    tmp_path: Path, capsys, scorer: str
) -> None:
    log = _log(tmp_path / "a.eval", 1)
    out = tmp_path / "r.json"
    argv = ["import", "inspect", "--with-skill", str(log), "--skill-name", "s", "--out", str(out)]
    code, _, err = run_main([*argv, "--scorer", scorer], capsys)
    assert code == 2 and not out.exists()
    assert err.startswith("Usage: driftproof import inspect [OPTIONS]\n")
    assert err.splitlines()[-1] == f"error: --scorer {scorer!r}: expected NAME or NAME:KEY"


def test_a_problem_inside_a_member_names_the_member_then_the_place_in_it(
    tmp_path: Path, capsys
) -> None:
    # before: "a.eval: /samples~11_epoch_1.json/scores/match/value: …" (the member's name read
    # as a pointer token, "/" written "~1"), and "a.eval: /results/scores: …" for header.json's
    # scorers (no member named at all)
    log = tmp_path / "a.eval"
    header = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}
    header |= {"results": {"scores": [{"name": "match", "scorer": "match"}]}}
    sample = {"id": 1, "epoch": 1, "input": "q", "scores": {"match": {"value": 2}}}
    with zipfile.ZipFile(log, "w") as z:
        z.writestr("header.json", json.dumps(header))
        z.writestr("samples/1_epoch_1.json", json.dumps(sample))
    assert _refused(log, capsys) == (
        f"error: {log}, member samples/1_epoch_1.json: /scores/match/value: expected a score "
        "between 0 and 1 (Driftproof's scale), found 2.0\n"
    )
    out = tmp_path / "r.json"
    argv = ["import", "inspect", "--with-skill", str(log), "--skill-name", "s", "--out", str(out)]
    code, _, err = run_main([*argv, "--scorer", "exact"], capsys)
    assert code == 2 and err == (
        f"error: {log}, member header.json: /results/scores: expected a scorer named 'exact'; "
        'the log has "match"\n'
    )


def test_a_member_name_marked_utf8_that_is_not_is_refused_naming_the_archive(
    tmp_path: Path, capsys
) -> None:
    # before: "error: expected UTF-8 text, found an invalid byte at offset 9 (invalid start
    # byte)", naming no file
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("header.json", _HEADER)
        z.writestr("samples/1\u00e9_epoch_1.json", b"{}")  # written with flag bit 11 (UTF-8)
    data = buf.getvalue().replace("1\u00e9".encode(), b"1\xff\xfe")  # é is 2 bytes, as is ff fe
    log = tmp_path / "a.eval"
    log.write_bytes(data)
    assert _refused(log, capsys) == (
        f"error: {log}: expected each member's name in UTF-8, as the archive marks it; one holds "
        "an invalid byte at offset 9 of its name\n"
    )
