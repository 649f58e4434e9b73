"""Suites are bounded like receipts, and every input error names its file (issue 33, item 7).

Each hostile suite gets one line on stderr, naming the file and the JSON pointer or the line and
column, exit 2, no traceback, from both ``suite check`` and ``run``; positions are counted by hand
from the text each test writes. A journal holding bytes that are not UTF-8 JSON is refused naming
it; a disk that fills while the transcripts are written leaves no ``.transcripts-*`` file and
names the file it could not write.
"""

from __future__ import annotations

import errno
import json
import os
import random

import pytest
from factories import run_main
from run_helpers import SUITE, run_args

from driftproof.receipt import read_receipt

NATIVE = '{"format":"driftproof-suite/1","cases":[{"id":"a","prompt":"p","rubric":"r",'
DIGITS = "1" * 5000
#: where that number starts: right after the native prefix and '"threshold":' (1-based column)
LONG_AT = len(NATIVE) + len('"threshold":') + 1


def _block_yaml(depth: int) -> str:
    """``a:`` nested ``depth`` mappings deep, two spaces a level: line k opens mapping k."""
    return "".join("  " * i + "a:\n" for i in range(depth)) + "  " * depth + "x\n"


HOSTILE = [
    # name, text, the one line after "error: <file>: "
    (
        "deep3k.json",
        '{"a":' * 3000 + "1" + "}" * 3000,
        "expected nesting of at most 64 levels",
    ),
    (
        "deep100k.json",
        "[" * 100_000 + "]" * 100_000,
        "expected nesting of at most 64 levels",
    ),
    # the 65th "[" (column 65) opens level 65
    (
        "deep3k.yaml",
        "[" * 3000 + "]" * 3000,
        "expected YAML: line 1 column 65: expected nesting of at most 64 levels",
    ),
    (
        "deep100k.yaml",
        "[" * 100_000 + "]" * 100_000,
        "expected YAML: line 1 column 65: expected nesting of at most 64 levels",
    ),
    # line 65 opens mapping 65, indented 128 spaces: column 129
    (
        "block3k.yaml",
        _block_yaml(3000),
        "expected YAML: line 65 column 129: expected nesting of at most 64 levels",
    ),
    # the number starts right after NATIVE + '"threshold":'
    (
        "long.json",
        NATIVE + '"threshold":' + DIGITS + "}]}",
        f"expected an integer of at most 4300 digits (one of 5000 digits at line 1 "
        f"column {LONG_AT})",
    ),
    (
        "long.yaml",
        "format: driftproof-suite/1\ncases:\n- id: a\n  prompt: p\n  rubric: r\n  threshold: "
        + DIGITS
        + "\n",
        "expected YAML: line 6 column 14: expected an integer of at most 4300 digits, "
        "found one of 5000 characters",
    ),
    (
        "dup.json",
        NATIVE.replace('"id":"a",', '"id":"a","id":"b",') + '"threshold":1}]}',
        '/cases/0: expected unique member names, found "id" twice',
    ),
    (
        "dup.yaml",
        "format: driftproof-suite/1\ncases:\n- id: a\n  id: b\n  prompt: p\n  rubric: r\n",
        "expected YAML: line 4 column 3: expected unique member names, found 'id' twice",
    ),
    (
        "case.json",
        json.dumps(
            {
                "format": "driftproof-suite/1",
                "cases": [
                    {"id": "Fix-429", "prompt": "p", "rubric": "r"},
                    {"id": "fix-429", "prompt": "p", "rubric": "r"},
                ],
            }
        ),
        "/cases/1/id: expected a unique case id; 'fix-429' is also at /cases/0 as 'Fix-429' (ids "
        "differ in letter case only)",
    ),
    (
        "alias.yaml",
        "a: &a [x, x]\nb: [*a, *a]\n",
        "expected YAML: line 2 column 5: expected every value written out; anchors and "
        "aliases are not read in a suite",
    ),
    # a number past 2**53 - 1 (16 digits of 9): the receipts' own bound, with its pointer
    (
        "big.json",
        NATIVE + '"threshold":9999999999999999}]}',
        "/cases/0/threshold: expected an integer within ±9007199254740991 (RFC 8785 seals no "
        "larger), found one of 16 digits",
    ),
]


@pytest.mark.parametrize(("name", "text", "line"), HOSTILE, ids=[h[0] for h in HOSTILE])
@pytest.mark.parametrize("command", ["suite check", "run"])
def test_a_hostile_suite_is_one_line_naming_the_file_and_place(
    command, name, text, line, tmp_path, skill_file, capsys
):
    f = tmp_path / name
    f.write_text(text)
    argv = (
        ["suite", "check", str(f)]
        if command == "suite check"
        else [*run_args(f, skill_file)[:7], "stub", "--out", str(tmp_path / "r.json")]
    )
    code, out, err = run_main(argv, capsys)
    assert (code, err) == (2, f"error: {f}: {line}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "SKILL.md"])


#: What a run that cannot write a file says after it, its finished draws kept.
RESUME = "run the same command again to resume once it can be written"


def _run(tmp_path, suite_file, skill_file, capsys, *extra):
    out = tmp_path / "r.json"
    argv = [*run_args(suite_file, skill_file)[:7], "stub", "--out", str(out), *extra]
    return out, run_main(argv, capsys)


def test_a_journal_of_random_bytes_is_refused_naming_it(tmp_path, suite_file, skill_file, capsys):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    journal = tmp_path / "r.json.journal"
    journal.write_bytes(random.Random(33).randbytes(200).replace(b"\n", b"\x80") + b"\n")
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys)
    want = "not a driftproof run journal; remove it to start afresh"
    assert (code, err) == (2, f"error: {journal}: {want}\n")
    assert not out.exists()


ONE_AT_A_TIME = ("--concurrency", "1")


def _first_draw(recs: list[dict]) -> dict:
    d = recs[1]["draw"]
    assert (d["arm"], d["index"]) == ("with_skill", 0)
    return d


DAMAGED_JOURNALS = [
    # name, what is done to the kept journal's records, the message after "error: <journal>: "
    (
        "score 5",
        lambda recs: _first_draw(recs)["draw"].__setitem__("score", 5),
        "a draw record's member /draw/draw/score at line {n} is not of its kind (expected less "
        "than or equal to 1, found 5)",
    ),
    (
        "score NaN",
        lambda recs: _first_draw(recs)["draw"].__setitem__("score", float("nan")),
        "a draw record's member /draw/draw/score at line {n} is not of its kind (expected less "
        "than or equal to 1, found nan)",
    ),
    (
        "judge samples a word",
        lambda recs: _first_draw(recs)["draw"].__setitem__("judge_samples", "x"),
        "a draw record's member /draw/draw/judge_samples at line {n} is not of its kind "
        "(expected a valid list, found 'x')",
    ),
    (
        "no started_at",
        lambda recs: recs[0].pop("started_at"),
        "the header's member /started_at at line 1 is missing",
    ),
    (
        "started_at a number",
        lambda recs: recs[0].__setitem__("started_at", 5),
        "the header's member /started_at at line 1 is not of its kind (expected a valid string, "
        "found 5)",
    ),
    (
        # draws as people number them, from 1 (index 10**6 is draw 1000001, index 2 draw 3)
        "index past the draws",
        lambda recs: _first_draw(recs).__setitem__("index", 10**6),
        "the draw record at line {n} (case 'commit-429', with-skill arm, draw 1000001) is no draw "
        "this run makes",
    ),
    (
        "index not the draw's",
        lambda recs: _first_draw(recs).__setitem__("index", 2),
        "the draw record at line {n} (case 'commit-429', with-skill arm, draw 3) is no draw this "
        "run makes",
    ),
]


@pytest.mark.parametrize(
    ("name", "tamper", "want"), DAMAGED_JOURNALS, ids=[d[0] for d in DAMAGED_JOURNALS]
)
def test_a_damaged_journal_is_refused_naming_it_and_the_line(
    name, tamper, want, tmp_path, suite_file, skill_file, capsys, monkeypatch
):
    # Found: resuming raised pydantic's ValidationError (score 5), AttributeError in stdev
    # (NaN), KeyError (no started_at) or named the receipt (index 10**6): a traceback, exit 1
    from driftproof.run.journal import Journal

    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    with monkeypatch.context() as m:  # the journal kept, as a kill just before the seal leaves it
        m.setattr(Journal, "remove", lambda self: os.close(self.fd))
        out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys, *ONE_AT_A_TIME)
    assert code == 0, err
    out.unlink()
    journal = tmp_path / "r.json.journal"
    recs = [json.loads(x) for x in journal.read_text().splitlines()]
    tamper(recs)
    journal.write_text("".join(json.dumps(r) + "\n" for r in recs))
    kept = journal.read_bytes()
    n = 2  # the header, then the first draw: with_skill's draw 0 (one draw at a time)
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys, *ONE_AT_A_TIME)
    assert (code, err) == (2, f"error: {journal}: {want.format(n=n)}; the journal is damaged\n")
    assert journal.read_bytes() == kept and not out.exists()


@pytest.mark.parametrize("left", [b"", b'{"journal": "driftproof-jour'])
def test_an_empty_journal_left_by_a_kill_before_its_header_starts_afresh(
    tmp_path, suite_file, skill_file, capsys, left
):
    # Found: a kill between creating the journal and writing its header (or while writing it)
    # left 0 bytes or a torn header, and the same command again was refused ("not a driftproof
    # run journal; remove it"); no draw can stand before a whole header
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    journal = tmp_path / "r.json.journal"
    journal.write_bytes(left)
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys)
    assert code == 0, err
    r = read_receipt(out)
    assert [len(getattr(r.cases[0].arms, a).draws) for a in ("with_skill", "baseline")] == [3, 3]
    assert not journal.exists()  # written from its header on, and removed once sealed


def test_a_record_line_of_random_bytes_is_refused_naming_the_file_and_line(tmp_path) -> None:
    from driftproof.errors import RefusalError
    from driftproof.run.journal import Journal

    p = tmp_path / "r.json.journal"
    j = Journal(p, {"run": 1}, started_at="2026-01-01T00:00:00Z", harness_version=None)
    j.attempt()
    j.close()
    noise = random.Random(33).randbytes(200).replace(b"\n", b"\x80")
    first_bad = next(i for i in range(len(noise)) if noise[i] >= 0x80 and _bad_utf8_at(noise, i))
    with p.open("ab") as f:
        f.write(noise + b"\n")
    with pytest.raises(RefusalError) as ei:
        Journal(p, {"run": 1}, started_at="2026-01-02T00:00:00Z", harness_version=None)
    assert str(ei.value) == (
        f"{p}: line 3 is not JSON (an invalid UTF-8 byte at offset {first_bad}); the journal is "
        "damaged"
    )
    p.write_bytes(p.read_bytes().rsplit(b"\n", 2)[0] + b"\n5\n")  # JSON, but not a record
    with pytest.raises(RefusalError, match=r"line 3 is not a record \(a JSON object\)"):
        Journal(p, {"run": 1}, started_at="2026-01-02T00:00:00Z", harness_version=None)


def _bad_utf8_at(data: bytes, i: int) -> bool:
    """Whether ``data`` is valid UTF-8 up to byte ``i`` and not through it (by the codec)."""
    try:
        data[:i].decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        data[: i + 4].decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start == i
    return False


def test_a_disk_that_fills_while_transcripts_are_written_leaves_nothing_behind(
    tmp_path, suite_file, skill_file, capsys, monkeypatch
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    fsync = os.fsync

    def full(fd: int) -> None:  # ENOSPC for the transcripts' temporary file only
        if ".transcripts-" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys, "--keep-transcripts")
    kept = f"6 finished draws are kept in {out}.journal: {RESUME}"  # 2 arms x 3 draws
    assert (code, err) == (
        2,
        f"error: {out}.transcripts.jsonl: No space left on device; {kept}\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "SKILL.md",
        "r.json.journal",
        "suite.json",
    ]


def test_the_transcripts_file_a_killed_run_left_is_removed_when_the_run_ends(
    tmp_path, suite_file, skill_file, capsys
):
    # a run killed while it wrote --keep-transcripts' file left its temporary copy for good
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    (tmp_path / ".r.json.transcripts-k1ll3d").write_text('{"case": "c1"')  # cut short
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys, "--keep-transcripts")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "SKILL.md",
        "r.json",
        "r.json.transcripts.jsonl",
        "suite.json",
    ]


def test_a_disk_that_fills_under_the_journal_names_it(
    tmp_path, suite_file, skill_file, capsys, monkeypatch
):
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    write = os.write

    def full(fd: int, data: bytes) -> int:  # the journal's draw lines do not fit
        if b'{"draw":' in data and os.readlink(f"/proc/self/fd/{fd}").endswith(".journal"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write(fd, data)

    monkeypatch.setattr(os, "write", full)
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys)
    kept = f"0 finished draws are kept in {out}.journal: {RESUME}"
    assert (code, err) == (2, f"error: {out}.journal: No space left on device; {kept}\n")
    assert not out.exists()


def test_every_draw_after_a_full_disk_names_the_journal_alike(tmp_path, monkeypatch):
    # the draws in flight when the disk fills meet the failure one after another: whichever
    # reaches the user must name the journal and the disk's own words (a later one read
    # "(input or output): …: the journal could not be written ([Errno 28] …)")
    from driftproof.cli import _edge_line
    from driftproof.run.journal import Journal

    p = tmp_path / "r.json.journal"
    j = Journal(p, {"run": 1}, started_at="2026-01-01T00:00:00Z", harness_version=None)

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    lines = []
    for i in range(2):
        with pytest.raises(OSError) as caught:
            j.draw({"case": "c1", "arm": "baseline", "index": i})
        lines.append(_edge_line(caught.value))
    assert lines == [f"{p}: No space left on device"] * 2


def test_a_disk_that_fills_under_the_receipt_names_it_and_leaves_nothing(
    tmp_path, suite_file, skill_file, capsys, monkeypatch
):
    from driftproof.receipt import _write

    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    fdopen = os.fdopen

    class Full:  # the receipt's temporary file: its bytes do not fit
        def __init__(self, fd: int) -> None:
            self.fh = fdopen(fd, "wb")

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # os.fdopen is one function: inputs read through it (open_file) keep the real one
    monkeypatch.setattr(
        _write.os, "fdopen", lambda fd, mode: Full(fd) if "w" in mode else fdopen(fd, mode)
    )
    out, (code, _, err) = _run(tmp_path, suite_file, skill_file, capsys)
    kept = f"6 finished draws are kept in {out}.journal: {RESUME}"
    assert (code, err) == (2, f"error: {out}: No space left on device; {kept}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "SKILL.md",
        "r.json.journal",
        "suite.json",
    ]
