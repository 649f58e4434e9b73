"""Fault kinds common to every importer (issue 14, item 1): invalid Unicode made valid and
recorded, big fields bounded (hash and length kept, text not copied), and errors that name the
source file, never a receipt that was never written. Inputs are small files of our own making."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from driftproof.errors import ImportError_
from driftproof.importers import Imported, get_importer, write_imported
from driftproof.importers._common import parse_json_bytes
from driftproof.importers._declared import case_entry
from driftproof.importers._text import Repair, _bound, _repairs_at, repair_text
from driftproof.receipt import Skill, build_receipt, read_receipt


def _promptfoo(prompt: str, outputs: tuple[str, str] = ("x", "y")) -> dict[str, Any]:
    rows = [
        {
            "provider": {"id": p, "label": p},
            "prompt": {"raw": prompt, "label": "q"},
            "vars": {},
            "response": {"output": out},
            "score": score,
            "success": bool(score),
            "testCase": {"description": "t"},
        }
        for p, out, score in (("a", outputs[0], 1), ("b", outputs[1], 0))
    ]
    return {
        "evalId": "e",
        "results": {
            "version": 3,
            "timestamp": "2025-10-01T20:08:11.168Z",
            "prompts": [],
            "results": rows,
        },
    }


def _import(src: Path, out: Path) -> Any:
    items = get_importer("promptfoo")(
        src, arms={"with_skill": "a", "baseline": "b"}, skill_name="s"
    )
    (path,) = write_imported(items, out, source=str(src))
    return read_receipt(path)


def test_repair_text_counts_each_replaced_code_point() -> None:
    assert repair_text("a\ud800b\udfffc") == ("a\ufffdb\ufffdc", 2)
    assert repair_text("plain é") == ("plain é", 0)


def test_a_prompt_over_the_schema_limit_is_bounded_not_refused(tmp_path: Path) -> None:
    # found: a 1.5 MB prompt refused the whole promptfoo import, naming a receipt never written
    prompt = "P" * 1_500_000
    src = tmp_path / "export.json"
    src.write_text(json.dumps(_promptfoo(prompt)), encoding="utf-8")
    r = _import(src, tmp_path / "out")
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    assert r.cases[0].prompt is None
    assert r.cases[0].prompt_sha256 == digest  # the hash of the whole prompt is kept
    assert [(b.pointer, b.sha256, b.chars) for b in r.bounded_text or []] == [
        ("/cases/0/prompt", digest, 1_500_000)
    ]
    assert (
        src.stat().st_size
        > 1_500_000
        > (tmp_path / "out").joinpath(next((tmp_path / "out").iterdir()).name).stat().st_size
    )


def test_an_answer_over_the_schema_limit_is_bounded(tmp_path: Path) -> None:
    answer = "A" * (1_048_576 + 1)
    src = tmp_path / "export.json"
    src.write_text(json.dumps(_promptfoo("q", (answer, "y"))), encoding="utf-8")
    r = _import(src, tmp_path / "out")
    d = r.cases[0].arms.with_skill.draws[0]
    digest = hashlib.sha256(answer.encode("utf-8")).hexdigest()
    assert d.answer is None and d.answer_sha256 == digest
    assert [(b.pointer, b.chars) for b in r.bounded_text or []] == [
        ("/cases/0/arms/with_skill/draws/0/answer", 1_048_577)
    ]


def test_bytes_that_are_not_utf8_inside_a_string_become_u_fffd(tmp_path: Path) -> None:
    src = tmp_path / "export.json"
    raw = json.dumps(_promptfoo("QQQ", ("ans-WITH", "y"))).encode("utf-8")
    src.write_bytes(raw.replace(b"ans-WITH", b"ans-\xff\xfeH"))  # two bytes no UTF-8 text holds
    r = _import(src, tmp_path / "out")
    assert r.cases[0].arms.with_skill.draws[0].answer == "ans-\ufffd\ufffdH"
    assert [(t.pointer, t.replaced) for t in r.text_repairs or []] == [
        ("/cases/0/arms/with_skill/draws/0/answer", 2)
    ]


def test_a_repaired_string_the_receipt_does_not_keep_lists_no_repair(tmp_path: Path) -> None:
    src = tmp_path / "export.json"
    doc = _promptfoo("QQQ") | {"config": {"description": "cfg-MARK"}}  # not read into a receipt
    src.write_bytes(json.dumps(doc).encode("utf-8").replace(b"cfg-MARK", b"cfg-\xffK"))
    assert _import(src, tmp_path / "out").text_repairs is None


def test_a_byte_that_is_not_utf8_outside_a_string_is_refused_naming_the_source(
    tmp_path: Path,
) -> None:
    src = tmp_path / "export.json"
    src.write_bytes(b'{"results": \xff}')
    with pytest.raises(ImportError_) as exc:
        get_importer("promptfoo")(src, arms={"with_skill": "a", "baseline": "b"}, skill_name="s")
    assert str(exc.value) == f"{src}: expected UTF-8 JSON, found an invalid byte at offset 12"


@pytest.mark.parametrize(
    "raw",
    [b'{"a": [1, {"ok": 2, "int\xffval": 3}]}', b'{"a": [1, {"ok": 2, "int\\udcffval": 3}]}'],
)
def test_a_member_name_that_is_not_valid_unicode_is_refused_at_its_place(raw: bytes) -> None:
    # repaired, "int\ufffdval" is no name an importer knows: skill-eval-harness left such an
    # "interval" out, its source's interval unknown, and no repair was recorded
    with pytest.raises(ImportError_) as exc:
        parse_json_bytes(raw, "f.json", [])
    assert str(exc.value).startswith("f.json: /a/1/int\ufffdval: expected a member name in UTF-8")


def test_a_repaired_string_is_found_where_the_receipt_holds_it() -> None:
    repairs: list[Repair] = []
    parse_json_bytes(b'{"a": "x\\ud800y", "b": "keep \\ufffd as it was"}', "f.json", repairs)
    doc = {
        "cases": [{"prompt": "x\ufffdy", "arms": {}}],
        "other": "keep \ufffd as it was",
        "reason": "source error: x\ufffdy (cut)",
    }
    found = [t.model_dump() for t in _repairs_at(doc, repairs)]
    # a U+FFFD the source itself wrote is not a repair
    assert found == [
        {"pointer": "/cases/0/prompt", "replaced": 1},
        {"pointer": "/reason", "replaced": 1},
    ]


def _body(prompt: str) -> Any:
    case = case_entry("c", prompt, {"with_skill": [], "baseline": []})
    return build_receipt(level="DECLARED", skill_name="s", skill_text=None, cases=[case])


def test_bounding_is_idempotent() -> None:
    doc = _bound(_bound(_body("p" * 262_145)))
    assert (
        len(doc.bounded_text) == 1
        and doc.cases[0].prompt is None
        and doc.cases[0].prompt_sha256 == hashlib.sha256(b"p" * 262_145).hexdigest()
    )


def test_an_invalid_conversion_names_the_source_never_the_receipt(tmp_path: Path) -> None:
    # found: the error named a receipt file that was never written
    body = _body("q")  # a skill name longer than the receipt schema allows
    body = body.model_copy(update={"skill": Skill(name="s" * 201, sha256=None, tokens=None)})
    bad = Imported("promptfoo-s-12345678.json", body)
    with pytest.raises(ImportError_) as exc:
        write_imported([bad], tmp_path / "out", source="export.json")
    text = "\n".join(exc.value.lines())
    assert text.startswith("export.json: ") and "promptfoo-s-12345678.json" not in text
    assert "nothing was written" in text
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_a_time_whose_utc_leaves_the_years_1_to_9999_is_refused_by_name(stamp: str) -> None:
    from driftproof.importers._common import Where, parse_instant, utc_instant

    for read in (parse_instant, utc_instant):
        with pytest.raises(ImportError_) as exc:
            read(stamp, Where(Path("log.json")) / "stats" / "started_at")
        assert "log.json" in str(exc.value) and "/stats/started_at" in str(exc.value)
        assert f"within the years 1 to 9999 in UTC, found {stamp!r}" in str(exc.value)


def test_a_time_before_the_year_1000_keeps_four_year_digits(tmp_path: Path) -> None:
    # found: 0999-11-02T10:00:00+02:00 became "999-11-02T08:00:00Z", which no receipt holds:
    # the import stopped with a traceback instead of writing the receipt
    from test_dotnet_skills import _vally

    from driftproof.importers._common import Where, parse_instant, utc_instant, utc_text

    at = Where(Path("log.json")) / "started_at"
    assert utc_instant("0999-11-02T10:00:00.25+02:00", at) == ("0999-11-02T08:00:00.25Z", "+02:00")
    moment, _ = parse_instant("0999-11-02T10:00:00.5+02:00", at)
    assert utc_text(moment) == "0999-11-02T08:00:00.500000Z"
    source = tmp_path / "results.json"
    source.write_text(json.dumps({**_vally(), "timestamp": "0999-11-02T10:00:00+02:00"}))
    (path,) = write_imported(get_importer("vally")(source), tmp_path / "out")
    assert read_receipt(path).run.finished_at == "0999-11-02T08:00:00Z"


def test_a_zip_the_reader_cannot_handle_is_refused_not_raised(tmp_path: Path) -> None:
    import zipfile

    from driftproof.importers._archive import Archive

    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", "{}")
    data = bytearray(path.read_bytes())
    data[data.index(b"PK\x01\x02") + 6] = 134  # "made by" version 13.4: zipfile refuses it
    path.write_bytes(bytes(data))
    with pytest.raises(ImportError_) as exc:
        Archive(path)
    assert "log.eval" in str(exc.value) and "expected a zip archive" in str(exc.value)


def test_a_skill_md_over_the_cap_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof import _json
    from driftproof.importers import _common

    monkeypatch.setattr(_json, "SKILL_MD_MAX_BYTES", 10)
    skill = tmp_path / "SKILL.md"
    skill.write_text("x" * 11, encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        _common.read_skill_md(skill)
    assert "SKILL.md" in str(exc.value) and "at most 10 bytes" in str(exc.value)
    skill.write_text("x" * 10, encoding="utf-8")
    assert _common.read_skill_md(skill) == "x" * 10


def test_caveman_reads_a_skill_md_under_the_one_limit_every_reader_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # caveman refused a SKILL.md over 1 MiB, its own limit, where every other reader takes
    # 32 MiB: 1 MiB and 4 bytes of "x" is read, ceil(1,048,580 / 4) = 262,145 tokens
    from caveman_snapshot import small_snapshot, write_snapshot

    from driftproof import _json
    from driftproof.importers.caveman import CavemanOptions, import_caveman

    snap, skills = write_snapshot(tmp_path, small_snapshot())
    (skills / "caveman" / "SKILL.md").write_bytes(b"x" * (1024 * 1024 + 4))
    (got,) = import_caveman(snap, CavemanOptions(skills_dir=skills))
    assert got.body.skill.tokens == 262_145
    monkeypatch.setattr(_json, "SKILL_MD_MAX_BYTES", 10)  # the one limit, lowered, is caveman's
    with pytest.raises(ImportError_) as exc:
        import_caveman(snap, CavemanOptions(skills_dir=skills))
    assert exc.value.problems[0].pointer == "/arms/caveman"
    assert "SKILL.md: expected at most 10 bytes" in exc.value.problems[0].message


def test_a_member_name_listed_twice_is_refused_naming_it(tmp_path: Path) -> None:
    # found: an .eval holding samples/1_epoch_1.json twice (score C, then I) was imported from
    # the last copy, silently; which copy a reader means cannot be told, so it is refused
    import warnings
    import zipfile

    from driftproof.importers._archive import Archive

    path = tmp_path / "log.eval"
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as z:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        z.writestr("header.json", "{}")
        z.writestr("samples/1_epoch_1.json", '{"value": "C"}')
        z.writestr("samples/1_epoch_1.json", '{"value": "I"}')
    with pytest.raises(ImportError_) as exc:
        Archive(path)
    assert str(exc.value) == (
        f"{path}, member samples/1_epoch_1.json: expected each member once; the archive lists this "
        "name more than once, so which copy is meant cannot be told"
    )


def test_an_empty_skill_md_is_refused_naming_it_and_nothing_is_written(tmp_path: Path) -> None:
    # found: an empty SKILL.md was measured as 1 skill token ("+1000.000 per 1,000 skill
    # tokens"); ceil(0 / 4) is 0 and there is no skill to measure
    from caveman_snapshot import small_snapshot, write_snapshot
    from click.testing import CliRunner

    from driftproof.cli import cli

    src = tmp_path / "export.json"
    src.write_text(json.dumps(_promptfoo("q")), encoding="utf-8")
    snap, skills = write_snapshot(tmp_path, small_snapshot())
    for text, found in (("", "an empty file"), (" \n\t\r\n", "only whitespace")):
        (skills / "caveman" / "SKILL.md").write_text(text, encoding="utf-8")
        skill = skills / "caveman" / "SKILL.md"
        why = f"expected the skill's instructions, found {found}: no skill to measure"
        arms = ["--arm", "with_skill=a", "--arm", "baseline=b", "--skill-name", "s"]
        for argv, line in (
            (["promptfoo", str(src), *arms, "--skill-md", str(skill)], f"{skill}: {why}"),
            (
                ["caveman", str(snap), "--skills", str(skills)],
                f"{snap}: /arms/caveman: {skill}: {why}",
            ),
        ):
            res = CliRunner().invoke(cli, ["import", *argv, "--out", str(tmp_path / "out")])
            assert isinstance(res.exception, ImportError_), res.output
            assert str(res.exception) == line
            assert not (tmp_path / "out").exists()
