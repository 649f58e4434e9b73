"""summary-json: import, export, the round trip, and refusals (D-13, D-15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import scores, sealed, write_json

from driftproof.errors import ImportError_, RefusalError
from driftproof.importers._summary_source import schema
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.summary_json import export_summary_json, import_summary_json
from driftproof.receipt import read_receipt, write_receipt

DOC = {
    "format": "driftproof-summary-json",
    "format_version": "1",
    "harness": {"name": "my-harness", "version": "2.0.1"},
    "skill": {"name": "commit-writer"},
    "model": "claude-sonnet-4-5",
    "judge": {"model": "claude-haiku-4-5-20251001", "scale": {"worst": 0, "best": 1, "step": 0.05}},
    "generations_per_arm": 3,
    "unrecorded": ["judge sampling"],
    "cases": [
        {
            "id": "c1",
            "prompt": "Write a commit message.",
            "arms": {
                "with_skill": [
                    {"score": 0.8, "skill_fired": True},
                    {"judge_scores": [0.6, 0.8, None]},
                    {"error": "timeout after 600 s", "skill_fired": False},
                ],
                "baseline": [{"score": 0.4}, {"score": 0.5}, {"lost": "empty reply"}],
            },
        },
    ],
}


def test_import_hand_written_file(tmp_path: Path) -> None:
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", DOC)))
    assert r.verification_level == "DECLARED" and r.run.generations_per_arm == 3
    assert r.run.judge_samples_per_generation is None  # not stated: unknown, never 1
    c = r.cases[0]
    # judge_scores 0.6, 0.8 and one invalid: the draw's score is the valid mean 0.7 (D-1)
    assert scores(c.arms.with_skill) == [0.8, pytest.approx(0.7), None]
    err = c.arms.with_skill.draws[2]
    assert (
        err.source_error == "timeout after 600 s"
        and err.lost is not None
        and err.skill_fired is False
    )
    assert (
        c.arms.with_skill.draws[0].skill_fired is True
        and c.arms.with_skill.draws[1].skill_fired is None
    )
    assert (
        scores(c.arms.baseline) == [0.4, 0.5, None]
        and c.arms.baseline.draws[2].lost.reason == "empty reply"
    )
    assert r.run.harness.name == "my-harness" and r.provenance.tool_version == "2.0.1"
    assert (
        "judge sampling" in r.provenance.unrecorded
        and "run.judge_samples_per_generation" in r.provenance.unrecorded
    )


def test_schema_failure_names_pointer(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(DOC))
    bad["cases"][0]["arms"]["baseline"][1]["score"] = 1.5
    f = write_json(tmp_path / "bad.json", bad)
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    # the schema's maximum for a score is 1; it read "…fits the schema's 'maximum' rule: …"
    assert (p.file, p.pointer, p.message) == (
        str(f),
        "/cases/0/arms/baseline/1/score",
        "expected a number at most 1, found 1.5",
    )


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        ({"generations_per_arm": 3.0}, "/generations_per_arm", "integer"),
        ({"generations_per_arm": 1e308}, "/generations_per_arm", "integer"),
        ({"skill": {"name": "commit-writer", "tokens": 5.0}}, "/skill/tokens", "integer"),
        (
            {"judge": {"model": "m", "scale": {"worst": 0, "best": 1, "step": 10**400}}},
            "/judge/scale/step",
            "a receipt holds exactly",
        ),
    ],
)
def test_a_number_the_receipt_cannot_keep_is_refused_by_pointer(
    tmp_path: Path, change: dict[str, Any], pointer: str, words: str
) -> None:
    # JSON Schema counts 3.0 as an integer; the receipt keeps integers as integers, and no float
    # holds 10**400: each is refused naming its place, never raised from the receipt model
    f = write_json(tmp_path / "bad.json", {**DOC, **change})
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    assert p.pointer == pointer and words in p.message


@pytest.mark.parametrize(
    ("draw", "pointer", "words"),
    [
        ({"score": 0.7, "lost": "empty reply"}, "/cases/0/arms/with_skill/0", "'lost' or a score"),
        ({"judge_scores": [0.5], "lost": "x"}, "/cases/0/arms/with_skill/0", "'lost' or a score"),
        ({"score": 0.5, "error": "timeout"}, "/cases/0/arms/with_skill/0", "'error' or a score"),
        # the receipt's pointer (/cases/0/arms/with_skill/draws/0/score) is not the file's
        (
            {"score": 0.7, "judge_scores": [None, None]},
            "/cases/0/arms/with_skill/0/score",
            "every one of judge_scores is null",
        ),
    ],
)
def test_a_draw_that_says_two_things_is_refused_at_the_files_pointer(
    tmp_path: Path, draw: dict[str, Any], pointer: str, words: str
) -> None:
    bad = json.loads(json.dumps(DOC))
    bad["cases"][0]["arms"]["with_skill"][0] = draw
    f = write_json(tmp_path / "bad.json", bad)
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    assert (p.file, p.pointer) == (str(f), pointer) and words in p.message


def test_scores_need_a_judge(tmp_path: Path) -> None:
    bad = dict(DOC, judge=None)
    with pytest.raises(ImportError_) as e:
        import_summary_json(write_json(tmp_path / "nojudge.json", bad))
    assert e.value.problems[0].pointer == "/judge"


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema())


def test_export_round_trip_and_signed_lift(shared: Path, tmp_path: Path) -> None:
    doc = import_promptfoo(
        shared / "data/interop/promptfoo/sample-export.json",
        PromptfooOptions(
            arms={"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"},
            skill_name="riddles",
        ),
    )
    receipt = sealed(doc)
    out = export_summary_json(receipt)
    # lift = mean over the two cases of (with − baseline): ((0.75 − 0.5) + (2/3 − 2/3)) / 2 = 0.125
    assert (
        out["summary"]["lift"] == pytest.approx(0.125) and out["summary"]["lift_signed"] == "+0.125"
    )
    assert (
        out["summary"]["verification_level"] == "DECLARED" and out["summary"]["no_verdict_because"]
    )
    assert out["harness"] == {"name": "promptfoo", "version": "0.118.10"}
    back = sealed(import_summary_json(write_json(tmp_path / "x.json", out)))
    assert [scores(c.arms.with_skill) for c in back.cases] == [
        scores(c.arms.with_skill) for c in receipt.cases
    ]
    assert [scores(c.arms.baseline) for c in back.cases] == [
        scores(c.arms.baseline) for c in receipt.cases
    ]


def test_a_round_trip_names_what_summary_json_could_not_carry(tmp_path: Path) -> None:
    # the 0.16 fixture's draws hold checks and token counts; imported back they were gone with
    # no word (an adversary's finding): the export lists them as unrecorded, the import keeps it
    doc = json.loads((FIXTURES / "0.16" / "valid-basic.json").read_text(encoding="utf-8"))
    out = export_summary_json(sealed(doc))
    assert out["unrecorded"][:2] == [
        "the draws' checks (summary-json has no place for them)",
        "the draws' token counts (summary-json has no place for them)",
    ]
    back = sealed(import_summary_json(write_json(tmp_path / "x.json", out)))
    assert back.provenance is not None
    assert "the draws' checks (summary-json has no place for them)" in back.provenance.unrecorded


def test_single_arm_round_trip_keeps_the_arm_not_recorded(shared: Path, tmp_path: Path) -> None:
    from driftproof.importers.inspect_ai import InspectOptions, import_inspect
    from driftproof.stats.reading import lift_refusal

    log = shared / "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
    out = export_summary_json(sealed(import_inspect(log, InspectOptions(skill_name="pop"))))
    assert [c["arms"]["baseline"] for c in out["cases"]] == [[], [], []]  # the schema needs it
    back = sealed(import_summary_json(write_json(tmp_path / "x.json", out)))
    assert back.arms.baseline.recorded is False and back.arms.with_skill.recorded is True
    assert [scores(c.arms.with_skill) for c in back.cases] == [[1.0], [1.0], [0.0]]
    assert lift_refusal(back) == (
        "single-arm source: the baseline arm was not recorded, so there is no lift, no interval "
        "and no value per token"
    )
    # the source's own entry is kept; none is added beside it
    assert [u for u in back.provenance.unrecorded if u.startswith("the baseline arm")] == [
        "the baseline arm (a single-arm log: no lift, no interval, no value per token)"
    ]
    out["unrecorded"] = []  # a hand-written single-arm file: its entry is added
    back = sealed(import_summary_json(write_json(tmp_path / "y.json", out)))
    assert back.arms.baseline.recorded is False and back.provenance.unrecorded[-1] == (
        "the baseline arm (no case holds a draw of it: no lift, no interval, no value per token)"
    )


def test_export_refuses_aggregates_only(shared: Path) -> None:
    from driftproof.importers.nvidia import import_nvidia

    r = sealed(import_nvidia([shared / "data/interop/nvidia/skills/cuopt-install"])[0])
    with pytest.raises(RefusalError) as e:
        export_summary_json(r)
    assert "only the figures its source printed, with no score per draw" in str(e.value)
    assert "aggregates_only" not in str(e.value) and "uncertainty_unavailable" not in str(e.value)


FIXTURES = Path(__file__).parents[1] / "receipt/fixtures"


def test_export_refuses_an_aa_calibration() -> None:
    # exported and imported again, an A/A run read "What the skill adds: lift -0.004" with no
    # word of A/A (an adversary's finding)
    doc = json.loads((FIXTURES / "0.16" / "valid-basic.json").read_text(encoding="utf-8"))
    doc["run"]["aa"] = True
    doc["arms"]["baseline"] = dict(doc["arms"]["with_skill"])  # built as the with-skill arm
    with pytest.raises(RefusalError, match="is an A/A calibration"):
        export_summary_json(sealed(doc))


@pytest.mark.parametrize(
    "name",
    [
        # skill-creator's import names no band source; claude plugin eval's names "generation":
        # both hold one answer per arm, each with one score as its source gave it, no judge
        # sample. The first was refused ("summary-json has no place to say so"), the second
        # exported; both are exported now, alike
        "skill-creator-nebius-skills-iteration-1-12a0aae8.json",
        "claude-plugin-eval-probe-plugin-8955eb63.json",
    ],
)
def test_one_score_per_answer_as_the_source_gave_it_is_exported_whatever_the_band_source(
    name: str, tmp_path: Path
) -> None:
    src = Path(__file__).parents[2] / "receipts" / name
    r = read_receipt(src)
    doc = export_summary_json(r)
    (item,) = import_summary_json(write_json(tmp_path / "s.json", doc))
    back = sealed(item)
    # the same answers, each with the one score the receipt holds, and one draw per arm
    for c, d in zip(r.cases, back.cases, strict=True):
        for arm in ("with_skill", "baseline"):
            was, now = getattr(c.arms, arm), getattr(d.arms, arm)
            assert [x.score for x in now.draws] == [x.score for x in was.draws]
            assert len(now.draws) == len(was.draws) <= 1
            assert all(not x.judge_samples for x in now.draws)
    # the start as the receipt wrote it: claude plugin eval's 01:06:04.181Z came back .181000Z
    assert back.run.started_at == r.run.started_at


def test_the_readme_lists_what_export_refuses() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(x for x in readme.splitlines() if x.startswith("| `driftproof export summary-json"))
    assert "a receipt of one answer per arm judged several times" in row
    assert "each scored once by its source" in row and row.endswith("is exported |")


@pytest.mark.parametrize(
    ("fixture", "change", "words"),
    [
        # a stub run: exported, it would import as DECLARED data, the stub provider gone
        ("0.16", {"verification_level": "UNVERIFIED", "provider": "stub"}, "stub provider"),
        ("0.16", {"verification_level": "UNVERIFIED", "judge": "stub"}, "stub provider"),
        # legacy: one answer per arm judged 5 times (0.840 ± 0.042, n = 5 judge samples) would
        # import as one draw, 0.840 with n = 1 and band source generation
        ("0.3.1", {}, "holds one answer per arm, and any band it has is across that answer's"),
    ],
)
def test_export_refuses_what_summary_json_cannot_say(
    fixture: str, change: dict[str, str], words: str
) -> None:
    doc = json.loads((FIXTURES / fixture / "valid-basic.json").read_text(encoding="utf-8"))
    doc["verification_level"] = change.get("verification_level", doc["verification_level"])
    doc["run"]["provider"] = change.get("provider", doc["run"].get("provider"))
    if "judge" in change:
        doc["judge"]["provider"] = change["judge"]
    r = sealed(doc)
    with pytest.raises(RefusalError) as e:
        export_summary_json(r)
    assert words in str(e.value) and "not exported" in str(e.value)


def test_export_cli_writes_file(shared: Path, tmp_path: Path) -> None:
    from driftproof.cli.export import export

    (item,) = import_summary_json(write_json(tmp_path / "s.json", DOC))
    rec = tmp_path / "r.json"
    write_receipt(item.body, rec)
    (tmp_path / "out.json.tmp").write_text("the user's own file", encoding="utf-8")
    result = CliRunner().invoke(
        export, ["summary-json", str(rec), "-o", str(tmp_path / "out.json")]
    )
    assert result.exit_code == 0, result.output
    # it staged its writing in out.json.tmp, replacing a file of that name and moving it away
    assert (tmp_path / "out.json.tmp").read_text(encoding="utf-8") == "the user's own file"
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    # with-skill mean of measured draws (0.8 + 0.7) / 2 = 0.75; baseline (0.4 + 0.5) / 2 = 0.45;
    # lift +0.300
    assert data["summary"]["lift_signed"] == "+0.300"
    assert data["cases"][0]["arms"]["with_skill"][2] == {
        "error": "timeout after 600 s",
        "skill_fired": False,
    }


def test_wrong_type_at_nested_member_named_in_plain_words(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(DOC))
    bad["cases"][0]["arms"]["baseline"] = {"score": 0.5}  # an object where the draws array goes
    f = write_json(tmp_path / "bad.json", bad)
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    assert (p.file, p.pointer, p.message) == (
        str(f),
        "/cases/0/arms/baseline",
        "expected an array, found an object",
    )


def test_started_at_is_stored_in_utc_with_its_offset(tmp_path: Path, capsys: Any) -> None:
    # issue 14: every timestamp is parsed to an instant; 09:58:55-04:00 is 13:58:55Z
    from factories import case, make_receipt, run_main

    from driftproof.importers import get_importer

    receipt = tmp_path / "r.json"
    receipt.write_text(
        json.dumps(make_receipt([case("c1", [0.9, 0.8, 0.85], [0.2, 0.3, 0.25])])), encoding="utf-8"
    )
    exported = tmp_path / "summary.json"
    code, _, err = run_main(["export", "summary-json", str(receipt), "-o", str(exported)], capsys)
    assert code == 0, err
    doc = json.loads(exported.read_text(encoding="utf-8"))
    doc["started_at"] = "2026-01-01T09:58:55-04:00"
    exported.write_text(json.dumps(doc), encoding="utf-8")
    (item,) = get_importer("summary-json")(exported)
    assert item.body.to_json_dict()["run"]["started_at"] == "2026-01-01T13:58:55Z"
    assert item.body.to_json_dict()["run"]["started_at_offset"] == "-04:00"


def test_export_into_a_folder_that_is_a_file_says_so(tmp_path, capsys) -> None:
    # "the folder f does not exist; create it first", of a folder that exists as a file
    from factories import case, make_receipt, run_main

    receipt = tmp_path / "r.json"
    receipt.write_text(json.dumps(make_receipt([case("c1", [0.9], [0.2])])), encoding="utf-8")
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    out = tmp_path / "f" / "out.json"
    code, _, err = run_main(["export", "summary-json", str(receipt), "-o", str(out)], capsys)
    assert code == 2
    assert err == (
        f"error: --out {out}: the folder {tmp_path / 'f'} is a file, not a folder (nothing was "
        "written)\n"
    )


RECEIPTS = Path(__file__).parents[2] / "receipts"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        # caveman's import: one answer per arm, no grader, so no score and no judge sample; it
        # was refused as "any band it has is across that answer's judge samples"
        (
            "caveman-2b10489-caveman.json",
            "summary-json holds per-draw scores; this receipt holds one answer per arm and no "
            "score for any of them, so there is nothing to export",
        ),
    ],
)
def test_export_refusal_names_the_file_and_the_true_reason(name: str, said: str, capsys) -> None:
    from factories import run_main

    code, out, err = run_main(["export", "summary-json", str(RECEIPTS / name)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {RECEIPTS / name}: {said}")
    assert "judge samples" not in err


def test_export_help_says_what_it_writes_in_plain_words() -> None:
    # it read "(per-draw scores, skill_fired, errors; the lift as context)": a field name
    from driftproof.cli import cli

    text = " ".join(CliRunner().invoke(cli, ["export", "summary-json", "--help"]).output.split())
    assert (
        "RECEIPT as summary-json: each draw's score, whether the skill fired, why a draw was lost."
    ) in text
    assert "The suite lift goes with them as context." in text
    assert "skill_fired" not in text and "per-draw" not in text
