"""Inspect AI importer, issue 14: each fault kind on a small log of our own making.

Single-arm logs, the same document for two arms, unscored samples (null, NaN, missing), an
object-valued scorer read with ``--scorer NAME:KEY``, scorers that only later samples use,
timestamps compared as instants, ``completed_at`` kept, Zstandard ``.eval`` members (zip
method 93), lone surrogates, and archives that lie about their members' sizes.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from typing import Any

import pytest
import zstandard
from interop_helpers import scores, sealed

from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers._archive import Archive
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.pages.sheet import sheet
from driftproof.pages.words import ARM_NOT_RECORDED
from driftproof.stats import suite_lift

POP_JSON = "2025-05-12T20-28-13-04-00_popularity.json"


def _header(**stats: str) -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "task": "t",
            "model": "m/x",
            "config": {"epochs": 2},
            "packages": {"inspect_ai": "0.3.130"},
        },
        "stats": stats or {"started_at": "2026-01-01T00:00:00+00:00"},
    }


def _s(sid: int, epoch: int, value: object, scorer: str = "match", **kw: object) -> dict[str, Any]:
    return {
        "id": sid,
        "epoch": epoch,
        "input": f"q{sid}",
        "scores": {scorer: {"value": value}},
        **kw,
    }


def _zip(
    path: Path, members: dict[str, bytes], *, method: int = 93, declared: int | None = None
) -> Path:
    """A zip archive written byte by byte (Python's zipfile cannot write method 93): each member
    compressed with ``method`` (93 Zstandard, 8 deflate), its size declared as ``declared`` when
    given (a lying archive) else as it is."""
    local, central = bytearray(), bytearray()
    for name, data in members.items():
        if method == 93:
            comp = zstandard.ZstdCompressor(level=3).compress(data)
        else:
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        crc, size = zlib.crc32(data), len(data) if declared is None else declared
        n = name.encode()
        offset = len(local)
        local += (
            struct.pack(
                "<4s5H3L2H", b"PK\x03\x04", 63, 0, method, 0, 0, crc, len(comp), size, len(n), 0
            )
            + n
            + comp
        )
        central += (
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                63,
                63,
                0,
                method,
                0,
                0,
                crc,
                len(comp),
                size,
                len(n),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + n
        )
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0
    )
    path.write_bytes(bytes(local + central + end))
    return path


def _eval(
    path: Path,
    samples: list[dict[str, Any]],
    header: dict[str, Any] | None = None,
    *,
    method: int = 93,
) -> Path:
    members = {"header.json": json.dumps(header or _header()).encode()}
    members.update(
        {
            f"samples/{s['id']}_epoch_{s['epoch']}.json": json.dumps(s, allow_nan=True).encode()
            for s in samples
        }
    )
    return _zip(path, members, method=method)


# ---------------------------------------------------------------- single-arm logs


@pytest.mark.parametrize("given", ["with_skill", "baseline"])
def test_one_log_alone_is_a_single_arm_import(tmp_path: Path, given: str) -> None:
    log = _eval(tmp_path / "a.eval", [_s(1, 1, "C"), _s(1, 2, "I")])
    r = sealed(import_inspect({given: log}, InspectOptions(skill_name="s")))
    other = "baseline" if given == "with_skill" else "with_skill"
    assert getattr(r.arms, other).recorded is False and getattr(r.arms, given).recorded is True
    assert getattr(r.cases[0].arms, other).draws == []
    assert scores(getattr(r.cases[0].arms, given)) == [1.0, 0.0]
    # never the 0.000 lift with a 0.000 to 0.000 interval that was never measured
    assert suite_lift(r) is None
    s = sheet(r)
    # said once, in the lift; the context panel's label names the arm, with nothing under it
    assert s.lift.startswith("n/a: single-arm source") and s.context.interval is None
    assert getattr(s.cases[0], other) == ARM_NOT_RECORDED


def test_the_cli_accepts_either_arm_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from factories import run_main

    log = _eval(tmp_path / "a.eval", [_s(1, 1, "C"), _s(1, 2, "I")])
    args = ["import", "inspect", "--skill-name", "s", "--out"]
    code, out, err = run_main([*args, str(tmp_path / "r"), "--baseline", str(log)], capsys)
    assert code == 0, err
    code, out, err = run_main([*args, str(tmp_path / "r2")], capsys)
    # said as click says a missing option, with the usage first, not at a file named <options>
    assert code == 2 and err.startswith("Usage: driftproof import inspect [OPTIONS]\n")
    assert err.splitlines()[-1] == (
        "error: Missing option '--with-skill' or '--baseline': one log per arm, either alone a "
        "single-arm import"
    )


def test_the_same_document_for_two_arms_is_refused_by_its_sha256(tmp_path: Path) -> None:
    a = _eval(tmp_path / "a.eval", [_s(1, 1, "C")])
    b = tmp_path / "copy-under-another-name.eval"
    shutil.copyfile(a, b)
    with pytest.raises(ImportError_) as exc:
        import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s"))
    import hashlib

    assert hashlib.sha256(a.read_bytes()).hexdigest() in str(exc.value)
    assert exc.value.problems[0].file == str(b)
    assert "given for the with skill arm and the baseline arm;" in str(exc.value)


# ---------------------------------------------------------------- unscored samples and scorers


def test_null_nan_and_missing_scores_are_unscored_lost_draws_never_zero(tmp_path: Path) -> None:
    a = _eval(
        tmp_path / "a.eval",
        [
            _s(1, 1, None),
            _s(1, 2, float("nan")),
            _s(2, 1, "C"),
            {"id": 2, "epoch": 2, "input": "q2", "scores": {"match": {"answer": "x"}}},
        ],
    )
    r = sealed(import_inspect({"with_skill": a}, InspectOptions(skill_name="s")))
    one, two = r.cases
    assert scores(one.arms.with_skill) == [None, None] and scores(two.arms.with_skill) == [
        1.0,
        None,
    ]
    lost = [d.lost for d in (*one.arms.with_skill.draws, two.arms.with_skill.draws[1])]
    assert all(
        x is not None and x.kind == "unscored" and x.reason.startswith("unscored: ") for x in lost
    )
    assert "null" in lost[0].reason and "nan" in lost[1].reason and "no value" in lost[2].reason


def test_object_valued_scorer_is_read_at_the_named_key(tmp_path: Path) -> None:
    a = _eval(
        tmp_path / "a.eval",
        [
            _s(1, 1, {"accuracy": 0.75, "f1": "C"}, "multi"),
            _s(1, 2, {"accuracy": None}, "multi"),
            _s(2, 1, {"f1": 1}, "multi"),
        ],
    )
    r = sealed(
        import_inspect({"with_skill": a}, InspectOptions(skill_name="s", scorer="multi:accuracy"))
    )
    assert scores(r.cases[0].arms.with_skill) == [0.75, None]
    assert r.cases[0].arms.with_skill.draws[1].lost.kind == "unscored"
    assert (
        r.cases[1].arms.with_skill.draws[0].lost.reason
        == "unscored: scorer 'multi' recorded no key 'accuracy'"
    )
    assert r.provenance.notes and "key 'accuracy'" in r.provenance.notes[0]
    r2 = sealed(
        import_inspect({"with_skill": a}, InspectOptions(skill_name="s", scorer="multi:f1"))
    )
    assert scores(r2.cases[0].arms.with_skill) == [1.0, None]


def test_object_value_without_a_key_names_the_pointer_and_the_keys(tmp_path: Path) -> None:
    a = _eval(tmp_path / "a.eval", [_s(1, 1, {"accuracy": 0.75, "f1": 1}, "multi")])
    with pytest.raises(ImportError_) as exc:
        import_inspect({"with_skill": a}, InspectOptions(skill_name="s", scorer="multi"))
    (p,) = exc.value.problems
    assert (p.file, p.member) == (str(a), "samples/1_epoch_1.json")
    assert p.pointer == "/scores/multi/value"
    assert "--scorer multi:KEY" in p.message and "['accuracy', 'f1']" in p.message


def test_scorers_are_read_from_every_sample_not_the_first(tmp_path: Path) -> None:
    first = _s(1, 1, "C", "a")
    later = {
        "id": 1,
        "epoch": 2,
        "input": "q1",
        "scores": {"a": {"value": "I"}, "b": {"value": "C"}},
    }
    log = _eval(tmp_path / "a.eval", [first, later])
    with pytest.raises(ImportError_, match='the log has "a", "b"$'):
        import_inspect({"with_skill": log}, InspectOptions(skill_name="s"))
    r = sealed(import_inspect({"with_skill": log}, InspectOptions(skill_name="s", scorer="b")))
    assert scores(r.cases[0].arms.with_skill) == [None, 1.0]


# ---------------------------------------------------------------- times, text


def test_start_and_finish_are_compared_as_instants_and_kept_with_their_offsets(
    tmp_path: Path,
) -> None:
    # 09:58:55-04:00 is 13:58:55Z, later than 13:30:00Z although its string sorts first
    a = _eval(
        tmp_path / "a.eval",
        [_s(1, 1, "C")],
        _header(started_at="2026-01-01T09:58:55-04:00", completed_at="2026-01-01T10:05:00-04:00"),
    )
    b = _eval(
        tmp_path / "b.eval",
        [_s(1, 1, "I")],
        _header(started_at="2026-01-01T13:30:00Z", completed_at="2026-01-01T14:01:00Z"),
    )
    r = sealed(import_inspect({"with_skill": a, "baseline": b}, InspectOptions(skill_name="s")))
    assert (r.run.started_at, r.run.started_at_offset) == ("2026-01-01T13:30:00Z", None)
    # completed_at is kept: the later finish is a's 10:05:00-04:00 = 14:05:00Z
    assert (r.run.finished_at, r.run.finished_at_offset) == ("2026-01-01T14:05:00Z", "-04:00")


def test_a_time_with_no_offset_is_refused_naming_its_pointer(tmp_path: Path) -> None:
    a = _eval(tmp_path / "a.eval", [_s(1, 1, "C")], _header(started_at="2026-01-01T09:58:55"))
    with pytest.raises(ImportError_) as exc:
        import_inspect({"with_skill": a}, InspectOptions(skill_name="s"))
    assert exc.value.problems[0].pointer == "/stats/started_at"


def test_real_log_start_is_stored_in_utc_with_its_offset(shared: Path) -> None:
    log = shared / "data/interop/inspect_ai" / POP_JSON
    raw = json.loads(log.read_text(encoding="utf-8"))
    assert raw["stats"]["started_at"].endswith("-04:00")  # as the file wrote it
    r = sealed(import_inspect({"with_skill": log}, InspectOptions(skill_name="pop")))
    assert r.run.started_at.endswith("Z") and r.run.started_at_offset == "-04:00"
    assert r.run.finished_at is not None and r.run.finished_at.endswith("Z")


def test_a_lone_surrogate_is_repaired_not_refused(tmp_path: Path) -> None:
    s = _s(1, 1, "C")
    text = json.dumps(s).replace('"q1"', '"q\\ud8001"')
    members = {
        "header.json": json.dumps(_header()).encode(),
        "samples/1_epoch_1.json": text.encode(),
    }
    log = _zip(tmp_path / "a.eval", members)
    items = get_importer("inspect")(log, skill_name="s")
    doc = items[0].body.to_json_dict()
    assert doc["cases"][0]["prompt"] == "q\ufffd1"
    assert doc["text_repairs"] == [{"pointer": "/cases/0/prompt", "replaced": 1}]


# ---------------------------------------------------------------- archives


@pytest.mark.parametrize("method", [93, 8])
def test_zstandard_and_deflate_members_are_read(tmp_path: Path, method: int) -> None:
    log = _eval(tmp_path / "a.eval", [_s(1, 1, "C"), _s(1, 2, 0.5)], method=method)
    r = sealed(import_inspect({"with_skill": log}, InspectOptions(skill_name="s")))
    assert scores(r.cases[0].arms.with_skill) == [1.0, 0.5]


def test_a_member_inflating_past_the_cap_is_refused_as_it_inflates(tmp_path: Path) -> None:
    arc = _zip(tmp_path / "bomb.eval", {"header.json": b"{" + b" " * 5000 + b"}"}, declared=10)
    with pytest.raises(ImportError_) as exc:
        Archive(arc, max_member_bytes=4096).read("header.json")
    (p,) = exc.value.problems
    assert (p.member, p.pointer) == ("header.json", "")
    assert "counted as inflated, not as declared" in p.message


def test_the_whole_archive_cap_counts_every_member(tmp_path: Path) -> None:
    arc = _zip(tmp_path / "a.eval", {"a": b"x" * 3000, "b": b"y" * 3000}, method=8)
    z = Archive(arc, max_member_bytes=4096, max_inflated_bytes=5000)
    assert z.read("a") == b"x" * 3000
    with pytest.raises(ImportError_, match="together"):
        z.read("b")


def test_the_member_count_is_capped_before_reading(tmp_path: Path) -> None:
    arc = _zip(tmp_path / "a.eval", {f"m{i}": b"" for i in range(5)})
    with pytest.raises(ImportError_, match="lists 5 members; at most 4"):
        Archive(arc, max_members=4)


def test_a_corrupt_member_is_refused_by_its_crc(tmp_path: Path) -> None:
    arc = _zip(tmp_path / "a.eval", {"header.json": b"{}"}, method=8)
    data = bytearray(arc.read_bytes())
    data[14] ^= 0xFF  # the CRC-32 in the local header (the central directory's is what is checked)
    crc_at = data.rindex(b"PK\x01\x02") + 16
    data[crc_at] ^= 0xFF
    arc.write_bytes(bytes(data))
    with pytest.raises(ImportError_, match="CRC-32"):
        Archive(arc).read("header.json")


_BOMB = textwrap.dedent("""
    import resource, sys, zlib, struct
    import zstandard
    from pathlib import Path
    from driftproof.errors import ImportError_
    from driftproof.importers.inspect_ai import InspectOptions, import_inspect
    path = Path(sys.argv[1])
    # header.json: 512 MiB of spaces inside a JSON object, declared as 10 bytes
    comp = bytearray()
    c = zstandard.ZstdCompressor(level=1).compressobj()
    chunk = b" " * (1 << 20)
    crc = 0
    comp += c.compress(b"{")
    crc = zlib.crc32(b"{", crc)
    for _ in range(512):
        comp += c.compress(chunk)
        crc = zlib.crc32(chunk, crc)
    comp += c.compress(b"}") + c.flush()
    crc = zlib.crc32(b"}", crc)
    n = b"header.json"
    local = struct.pack(
        "<4s5H3L2H", b"PK\\x03\\x04", 63, 0, 93, 0, 0, crc, len(comp), 10, len(n), 0
    ) + n + comp
    central = struct.pack(
        "<4s6H3L5H2L", b"PK\\x01\\x02", 63, 63, 0, 93, 0, 0, crc, len(comp), 10, len(n),
        0, 0, 0, 0, 0, 0,
    ) + n
    end = struct.pack("<4s4H2LH", b"PK\\x05\\x06", 0, 0, 1, 1, len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))
    del comp, local
    def peak_kb():
        # VmHWM: this process's own peak. ru_maxrss is not used: on Linux it keeps the peak of
        # the process that forked this one (the test runner), carried across exec.
        try:
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    before = peak_kb()
    try:
        import_inspect({"with_skill": path}, InspectOptions(skill_name="s"))
        print("NOT REFUSED")
    except ImportError_ as exc:
        print("REFUSED", exc)
    print("PEAK_KB", peak_kb(), before)
""")


def test_a_lying_size_archive_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    """Issue 14, "Done when": a lying-size archive is refused with peak memory under 200 MB,
    measured in a subprocess (its own peak resident set, VmHWM, kilobytes)."""
    res = subprocess.run(
        [sys.executable, "-c", _BOMB, str(tmp_path / "bomb.eval")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.splitlines()
    assert (
        lines[0].startswith("REFUSED")
        and "bomb.eval, member header.json: " in lines[0]
        and "counted as inflated" in lines[0]
    )
    peak_kb = int(lines[1].split()[1])
    assert peak_kb < 200 * 1024, f"peak resident memory {peak_kb} kB"


def test_a_member_that_is_not_json_is_named_by_the_archive_and_its_pointer(tmp_path: Path) -> None:
    members = {
        "header.json": json.dumps(_header()).encode(),
        "samples/1_epoch_1.json": b"{not json",
    }
    log = _zip(tmp_path / "a.eval", members)
    with pytest.raises(ImportError_) as exc:
        import_inspect({"with_skill": log}, InspectOptions(skill_name="s"))
    (p,) = exc.value.problems
    assert (
        p.file == str(log)
        and (p.member, p.pointer) == ("samples/1_epoch_1.json", "")
        and p.message.startswith("expected JSON")
    )
