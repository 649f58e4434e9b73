"""summary-json's summary.source, crafted: refused at its pointer unless it is what the exporter
writes, and what an import of it says (an adversary's findings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import sealed, summary_doc, write_json

from driftproof.errors import ImportError_, RefusalError
from driftproof.importers.summary_json import export_summary_json, import_summary_json

HASH = "ab" * 32


def _doc(source: Any = None, **summary: Any) -> dict[str, Any]:
    draws = {"with_skill": [{"score": 0.75}], "baseline": [{"score": 0.25}]}
    doc = summary_doc([{"id": "c1", "arms": draws}])
    if source is not None or summary:
        doc["summary"] = {"source": source, **summary}
    return doc


def _source(**changes: Any) -> dict[str, Any]:
    src = {
        "tool": "inspect_ai",
        "tool_version": "0.3",
        "document_sha256": HASH,
        "harness_recorded": True,
        "notes": ["n1"],
    }
    return src | changes


@pytest.mark.parametrize(
    ("source", "pointer", "expected"),
    [
        (_source(verification_level="TESTED"), "/summary/source/verification_level", "no member"),
        (_source(verdict="helps"), "/summary/source/verdict", "no member"),
        (_source(document_sha256="ZZZ not a hash"), "/summary/source/document_sha256", "[0-9a-f]"),
        (_source(document_sha256="AB" * 32), "/summary/source/document_sha256", "[0-9a-f]"),
        (_source(notes=["n"] * 51), "/summary/source/notes", "at most 50 items"),
        (_source(notes=["x" * 1001]), "/summary/source/notes/0", "at most 1,000 characters"),
        (_source(notes=[3]), "/summary/source/notes/0", "string"),
        (_source(tool_version="v" * 201), "/summary/source/tool_version", "at most 200"),
        (_source(tool="driftproof"), "/summary/source/tool", "the tool of an import"),
        (_source(harness_recorded="no"), "/summary/source/harness_recorded", "true or false"),
        (_source(harness_recorded=False), "/harness", "the source's tool and version"),
    ],
)
def test_a_source_the_exporter_would_not_write_is_refused_at_its_pointer(
    tmp_path: Path, source: dict[str, Any], pointer: str, expected: str
) -> None:
    path = write_json(tmp_path / "s.json", _doc(source))
    with pytest.raises(ImportError_) as e:
        import_summary_json(path)
    lines = e.value.lines()
    assert any(f"{path}: {pointer}: " in line and expected in line for line in lines), lines


def test_a_harness_not_recorded_names_the_source_tool_and_is_then_kept_unknown(
    tmp_path: Path,
) -> None:
    doc = _doc(_source(harness_recorded=False))
    doc["harness"] = {"name": "inspect_ai", "version": "0.3"}
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert r.run.harness is None


def test_an_older_export_with_no_source_imports_as_its_harness(tmp_path: Path) -> None:
    doc = _doc(None, verification_level="DECLARED", lift=0.5)
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert r.provenance is not None
    assert (r.provenance.tool, r.provenance.tool_version, r.provenance.notes) == ("h", "1", None)
    assert r.run.harness is not None and r.run.harness.name == "h"
    assert r.verification_level == "DECLARED"


def test_a_source_is_given_as_the_files_claim_and_its_notes_are_kept_whole(
    tmp_path: Path,
) -> None:
    # A hand-written file's source was sealed as fact ("this file was exported from a receipt
    # imported from inspect_ai"); each note was prefixed, so a note of 1,000 characters, as a
    # receipt holds, lost its last 29 without a word.
    long = "a" * 990 + "0123456789"
    doc = _doc(_source(notes=[long, "second"]))
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert r.provenance is not None and r.provenance.notes is not None
    assert r.provenance.notes == [
        "this file says it was exported from a receipt imported from inspect_ai 0.3 (document "
        f"sha256 {HASH}), which nothing in it proves; the document sha256 above is this file's. "
        "The 2 notes after this one are that import's, as the file gives them",
        long,
        "second",
    ]


def test_fifty_notes_keep_the_forty_nine_a_receipt_has_room_for_and_say_so(
    tmp_path: Path,
) -> None:
    # 50 notes (what a receipt holds) plus the note naming the source are 51: the 50th was
    # dropped without a word.
    notes = [f"note {i}" for i in range(1, 51)]
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", _doc(_source(notes=notes)))))
    assert r.provenance is not None and r.provenance.notes is not None
    assert r.provenance.notes[1:] == [f"note {i}" for i in range(1, 50)]
    assert r.provenance.notes[0].endswith(
        "The 49 notes after this one are that import's, as the file gives them (the file gives "
        "50; a receipt holds 50 notes at most)"
    )


def test_a_round_trip_names_the_labels_provider_grader_tokens_and_figures_it_drops(
    shared: Path, tmp_path: Path
) -> None:
    # An OpenAI Evals import (provider openai, surface api, the arm labelled with its run id)
    # and a promptfoo one (the grader's 848 input and 141 output tokens, its model "see the arms'
    # labels") came back from summary-json saying "provider not recorded", with no labels, no
    # grader tokens and an Inspect import's own figures gone, none of it listed as not carried.
    from driftproof.importers.inspect_ai import InspectOptions, import_inspect
    from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals
    from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
    from driftproof.importers.summary_json import export_summary_json

    data = shared / "data/interop"
    oe = import_openai_evals(
        data / "openai-evals/promptfoo-fixture-openai-evals-items.jsonl",
        OpenAIEvalsOptions(
            skill_name="kb",
            arms={"with_skill": "evalrun_import_fixture"},
            grader="Relevance",
            grader_range=(1, 7),
        ),
    )
    pf = import_promptfoo(
        data / "promptfoo/sample-export.json",
        PromptfooOptions(
            arms={"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"},
            skill_name="riddles",
        ),
    )
    log = data / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
    ins = import_inspect({"with_skill": log}, InspectOptions(skill_name="sec"))
    said = {}
    for name, imported in (("oe", oe), ("pf", pf), ("ins", ins)):
        out = write_json(tmp_path / f"{name}.json", export_summary_json(sealed(imported)))
        back = sealed(import_summary_json(out))
        assert back.provenance is not None
        said[name] = back.provenance.unrecorded
    tail = " (summary-json has no place for them)"
    assert "the arms' labels" + tail in said["oe"]
    assert "the run's provider and surface" + tail in said["oe"]
    assert "the arms' labels" + tail in said["pf"]
    assert "the grader's token counts" + tail in said["pf"]
    assert "the source's own figures" + tail in said["ins"]


def test_a_summary_json_import_exported_again_names_no_label_as_dropped(tmp_path: Path) -> None:
    # Its arms are labelled with their own names (with_skill, baseline), which summary-json
    # keeps as the arms' keys: nothing is dropped.
    from driftproof.importers.summary_json import export_summary_json

    first = sealed(import_summary_json(write_json(tmp_path / "a.json", _doc())))
    again = write_json(tmp_path / "b.json", export_summary_json(first))
    back = sealed(import_summary_json(again))
    assert back.provenance is not None
    assert not [u for u in back.provenance.unrecorded if "label" in u]


def _regrade(provider: str | None) -> Any:
    """0.16's valid-basic (an anthropic run of ours, 12 draws) as a rubric regrade of it."""
    from receipt_docs import regrade_doc

    fixture = Path(__file__).parents[1] / "receipt/fixtures/0.16/valid-basic.json"
    doc = json.loads(fixture.read_text(encoding="utf-8"))
    doc["run"]["provider"] = provider
    doc["regrade"] = regrade_doc("rubric", 12, 36)
    doc["provenance"] = {"tool": "driftproof regrade", "tool_version": "0.2", "document": "o.json"}
    doc["provenance"] |= {"document_sha256": "a" * 64, "unrecorded": []}
    return sealed(doc)


def test_an_exported_regrade_names_the_runner_of_its_answers_and_says_it_was_a_regrade() -> None:
    # exported, a regrade named "driftproof regrade" as the harness that drew its answers (it
    # drew none) and never said it was a regrade
    doc = export_summary_json(_regrade("anthropic"))
    assert doc["harness"] == {"name": "driftproof", "version": "0.1"}  # regrade_doc's original
    assert (
        "the regrade it is (the original receipt's seal and grader, and the rubrics it graded "
        "by) (summary-json has no place for them)"
    ) in doc["unrecorded"]


def test_a_regrade_of_an_import_that_named_no_harness_is_not_exported() -> None:
    with pytest.raises(RefusalError, match="regrade of an import that named no harness"):
        export_summary_json(_regrade(None))


@pytest.mark.parametrize("source", ["my-exporter 1.2", {"name": "my-exporter", "version": "1.2"}])
def test_another_writers_source_is_not_read_and_the_receipt_says_so(
    tmp_path: Path, source: Any
) -> None:
    # format 1 leaves summary free-form ("ignored on import" until summary.source was read): a
    # third-party writer's own summary.source was refused ("expected an object, found a string")
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", _doc(source))))
    assert r.provenance is not None and r.provenance.tool == "h"
    assert r.provenance.notes == [
        "the file's summary.source is not one driftproof export writes (an object of tool, "
        "tool_version, document_sha256, harness_recorded and notes), so it was not read"
    ]


def test_a_harness_version_longer_than_the_format_holds_is_not_exported() -> None:
    # a receipt holds a tool version of up to 200 characters, summary-json a harness version of
    # up to 100: the export was refused by its own import ("at most 100 characters")
    fixture = Path(__file__).parents[1] / "receipt/fixtures/0.16/valid-basic.json"
    doc = json.loads(fixture.read_text(encoding="utf-8"))
    doc["run"]["provider"] = None  # an import that named no harness: its tool stands for it
    doc["provenance"] = {"tool": "t", "tool_version": "v" * 150, "document": "o.json"}
    doc["provenance"] |= {"document_sha256": "a" * 64, "unrecorded": []}
    with pytest.raises(RefusalError, match="harness version of at most 100 characters; this "):
        export_summary_json(sealed(doc))


@pytest.mark.parametrize(
    ("name", "recorded", "short"),
    [
        # skill-creator records no band source: exported and imported again its bands read
        # "one scored draw per arm, no spread" (band source generation), not "not recorded"
        (
            "skill-creator-nebius-skills-iteration-1-12a0aae8.json",
            None,
            "not recorded (one scored draw per arm, no spread)",
        ),
        (
            "claude-plugin-eval-probe-plugin-8955eb63.json",
            "generation",
            "one scored draw per arm, no spread",
        ),
    ],
)
def test_a_round_trip_names_the_bands_as_the_exported_receipt_did(
    tmp_path: Path, name: str, recorded: str | None, short: str
) -> None:
    from driftproof.pages.band_sources import band_facts
    from driftproof.receipt import read_receipt

    r = read_receipt(Path(__file__).parents[2] / "receipts" / name)
    doc = export_summary_json(r)
    assert doc["summary"]["source"]["band_source"] == r.band_source == recorded
    back = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert back.band_source == recorded
    assert band_facts(back).short == band_facts(r).short == short


@pytest.mark.parametrize("band_source", [None, "legacy", "generation"])
def test_the_band_source_the_exporter_writes_is_read(tmp_path: Path, band_source: str) -> None:
    doc = _doc(_source(band_source=band_source))
    assert sealed(import_summary_json(write_json(tmp_path / "s.json", doc))).band_source == (
        band_source
    )


def test_a_legacy_band_source_for_two_draws_or_judge_scores_is_refused(tmp_path: Path) -> None:
    said = (
        'expected "generation": this band source reads each arm as one answer scored as the '
        "source gave it, and an arm here holds more than one draw or a draw's judge scores"
    )
    for draws in ([{"score": 0.5}, {"score": 1.0}], [{"score": 0.5, "judge_scores": [0.5]}]):
        doc = _doc(_source(band_source="legacy"))
        doc["cases"][0]["arms"]["baseline"] = draws
        path = write_json(tmp_path / "s.json", doc)
        with pytest.raises(ImportError_) as exc:
            import_summary_json(path)
        (p,) = exc.value.problems
        assert (p.pointer, p.message) == ("/summary/source/band_source", said)
    doc = _doc(_source(band_source="other"))
    with pytest.raises(ImportError_, match="not what the exporter writes"):
        import_summary_json(write_json(tmp_path / "s.json", doc))


@pytest.mark.parametrize("band_source", [None, "legacy"])
def test_one_draw_per_arm_with_judge_scores_under_no_band_source_is_refused(
    tmp_path: Path, band_source: str | None
) -> None:
    # found: null here read each one-draw arm as one answer judged several times (method, "Every
    # report published before Report 007"), its band across the judge scores: spreads of 0.02
    # from one answer per arm, which the exporter refuses to write (it has no place to say so)
    doc = _doc(_source(band_source=band_source))
    doc["cases"][0]["arms"] = {
        "with_skill": [{"score": 0.9, "judge_scores": [0.88, 0.9, 0.92]}],
        "baseline": [{"score": 0.3, "judge_scores": [0.28, 0.3, 0.32]}],
    }
    with pytest.raises(ImportError_) as exc:
        import_summary_json(write_json(tmp_path / "s.json", doc))
    (p,) = exc.value.problems
    assert p.pointer == "/summary/source/band_source"
    assert p.message.startswith('expected "generation": ')
    doc["summary"]["source"]["band_source"] = "generation"  # each draw an answer: no spread
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert r.band_source == "generation"
