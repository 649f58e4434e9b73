"""A label longer than the 200 characters a receipt field holds is cut where the reader sees it.

Found (round 14): a suite name taken from a file's name, a grader's or an assertion's name, an
arm's label, a printed figure and a quote inside a "not recorded" item were cut to their first
200 characters, saying nothing, so a reader took the cut for the source's whole text. Each is
now its first 199 characters and "…" (200 in all); a label that fits is kept whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import test_skill_eval_harness as harness
from interop_helpers import nvidia_card, sealed, write_json
from openai_evals_items import api_item, jsonl

from driftproof.importers.caveman import CavemanOptions, import_caveman
from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.importers.nvidia import NvidiaOptions, import_nvidia
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.skill_eval_harness import import_skill_eval_harness
from driftproof.receipt import Receipt

FIX = Path(__file__).resolve().parent / "fixtures" / "caveman"
CPE = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"
PF = "data/interop/promptfoo/sample-export.json"
INSPECT = "data/interop/inspect_ai/2025-05-12T20-28-13-04-00_popularity.json"
CARD = "data/interop/nvidia/skillevaluator/sparkpath-0.3.0/academic-warning/BENCHMARK.md"
REVISION = "- Evaluator container revision: not recorded (not supplied by the orchestration input)"


def test_a_label_that_fits_is_whole_and_a_longer_one_ends_in_a_mark() -> None:
    from driftproof.receipt import cut_label

    assert cut_label("a" * 200) == "a" * 200
    assert cut_label("a" * 201) == "a" * 199 + "…"
    assert cut_label("abcdef", 4) == "abc…"


def test_caveman_suite_named_by_a_long_file_name(tmp_path: Path) -> None:
    cases = tmp_path / ("f" * 240 + ".json")  # a folder takes names of 255 bytes
    shutil.copy(FIX / "evals" / "prompts" / "fidelity.json", cases)
    snapshot = FIX / "evals" / "snapshots" / "fidelity.json"
    (item,) = import_caveman(snapshot, CavemanOptions(skills_dir=FIX / "skills", cases=cases))
    assert sealed(item).suite.name == "f" * 199 + "…"  # was "f" * 200


def test_claude_plugin_eval_grader_named_at_length(shared: Path, tmp_path: Path) -> None:
    doc: dict[str, Any] = json.loads((shared / CPE).read_text("utf-8"))
    case, name = doc["cases"][0], "c" * 300
    for g in [
        *case["graders"],
        *(g for k in ("with", "without") for g in case["arms"][k][0]["graders"]),
    ]:
        g["name"] = name if g["name"] == "criteria" else g["name"]
    arms = sealed(import_claude_plugin_eval(write_json(tmp_path / "a.json", doc))).cases[0].arms
    assert [c.name for c in arms.baseline.draws[0].checks] == ["c" * 199 + "…"]


def _promptfoo(shared: Path, tmp_path: Path, label: str, value: str) -> Receipt:
    """The sample, its gpt-5-mini rows' prompt labelled ``label``, its ``contains`` ``value``."""
    doc: dict[str, Any] = json.loads((shared / PF).read_text("utf-8"))
    for row in doc["results"]["results"]:
        mini = row["provider"]["id"] == "openai:gpt-5-mini"
        row["prompt"]["label"] = label if mini else "bare"
        for comp in row["gradingResult"]["componentResults"]:
            if comp["assertion"]["type"] == "contains":
                comp["assertion"]["value"] = value
    arms = {"with_skill": label, "baseline": "bare"}
    options = PromptfooOptions(arms=arms, by="prompt", skill_name="s")
    return sealed(import_promptfoo(write_json(tmp_path / "p.json", doc), options))


def test_promptfoo_assertion_named_at_length(shared: Path, tmp_path: Path) -> None:
    r = _promptfoo(shared, tmp_path, "with-skill", "e" * 300)
    # "contains: " is 10 characters, so 189 of the value's fit before the mark
    names = [c.name for c in r.cases[0].arms.with_skill.draws[0].checks]
    assert names[2] == "contains: " + "e" * 189 + "…"


def test_promptfoo_prompt_label_at_length(shared: Path, tmp_path: Path) -> None:
    # found: the label's first 200 characters and then its providers, 220 characters in all,
    # more than the receipt holds: the import was refused at the receipt's /arms/with_skill/label
    r = _promptfoo(shared, tmp_path, "w" * 250, "echo")
    # "prompt:" is 7 characters; the providers that followed the label are past the cut
    assert r.arms.with_skill.label == "prompt:" + "w" * 192 + "…"
    assert r.arms.baseline.label == "prompt:bare (openai:gpt-5)"


def test_openai_evals_arm_of_a_long_run_id(tmp_path: Path) -> None:
    run = "r" * 200  # was cut to "run:" + 146 of its characters, then its model
    rows = [api_item(run, 0, 0.9), api_item("bare", 0, 0.4)]
    arms = {"with_skill": run, "baseline": "bare"}
    options = OpenAIEvalsOptions(skill_name="s", arms=arms, grader="quality")
    r = sealed(import_openai_evals(jsonl(tmp_path / "items.jsonl", rows), options))
    assert r.arms.with_skill.label == "run:" + "r" * 195 + "…"
    assert r.arms.baseline.label == "run:bare (gpt-5-mini-2026-08-01)"


def test_inspect_arm_labelled_by_a_long_file_name(shared: Path, tmp_path: Path) -> None:
    log = tmp_path / ("l" * 240 + ".json")
    shutil.copy(shared / INSPECT, log)
    r = sealed(import_inspect(log, InspectOptions(skill_name="s")))
    assert r.arms.with_skill.label == "l" * 199 + "…"


def test_a_card_quote_in_a_not_recorded_item(shared: Path, tmp_path: Path) -> None:
    said = "not recorded (" + "x" * 300 + ")"
    card = nvidia_card(shared, tmp_path, CARD, REVISION, f"- Evaluator container revision: {said}")
    r = sealed(import_nvidia(card, NvidiaOptions()))
    item = f"the evaluator container digest (the card: {said})"
    assert r.provenance.unrecorded.count(item[:199] + "…") == 1  # was item[:200]


def test_a_long_verdict_printed_as_a_figure(tmp_path: Path) -> None:
    doc = harness._report()
    doc["paired_summary"]["noise_check"]["verdict"] = "v" * 300
    doc["paired_summary"]["significance"]["method"] = "m" * 150
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "h.json", doc)))
    (figure,) = [f for f in r.source_report.figures if f.label == "noise check"]
    assert figure.printed == "v" * 199 + "…"
    # the test's name was cut to 100 characters before the words after it
    test = "m" * 99 + "… (two-sided permutation test over per-case paired deltas)"
    assert r.source_report.decision.test == test


def test_promptfoo_grader_provider_at_length(shared: Path, tmp_path: Path) -> None:
    # the grader's id is kept whole; its 150-character prefix is no provider promptfoo names
    doc: dict[str, Any] = json.loads((shared / PF).read_text("utf-8"))
    doc["config"]["defaultTest"]["options"]["provider"] = "p" * 150 + ":m"
    arms = {"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"}
    options = PromptfooOptions(arms=arms, skill_name="s")
    r = sealed(import_promptfoo(write_json(tmp_path / "p.json", doc), options))
    assert (r.judge.model, r.judge.provider) == ("p" * 150 + ":m", None)


GOLDEN = "data/interop/nvidia/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"
GLANCE_END = "45 percentage points above its 47% no-skill baseline.\n"
INLINE = "- Agents: Claude Code (`claude-sonnet`), Codex (`gpt-codex`)"
PARTIAL = "A partial dimension was calculated from only the available configured signals; "


def test_quotes_inside_notes_end_in_a_mark_where_cut(shared: Path, tmp_path: Path) -> None:
    # a card's own words beside its results were kept as their first 500 characters, and a
    # governance card's agent bullet as its first 200, saying nothing
    said = PARTIAL + "p" * 600
    card = nvidia_card(shared, tmp_path, GOLDEN, GLANCE_END, f"{GLANCE_END}\n{said}\n")
    notes = sealed(import_nvidia([card])[0]).provenance.notes
    assert f"The card says: {said[:499]}…" in notes
    not_run = "Agents: requested but not run — " + "q" * 600  # 32 characters, then the q's
    card = nvidia_card(shared, tmp_path, GOLDEN, INLINE, f"- {not_run}")
    notes = sealed(import_nvidia([card])[0]).provenance.notes
    assert "The card says: Agents: requested but not run — " + "q" * 467 + "…" in notes
    governance = tmp_path / "skill-card.md"
    text = (
        shared / "data/interop/nvidia/skills/accelerated-computing-cudf/skill-card.md"
    ).read_text()
    governance.write_text(text.replace("- codex <br>", f"- {'a' * 300} <br>"), "utf-8")
    notes = sealed(import_nvidia([governance])).provenance.notes
    agent = "The card says: Evaluation Agents Used (not read as its agents): " + "a" * 199 + "…"
    assert agent in notes


def test_rows_left_out_named_at_length(shared: Path, tmp_path: Path) -> None:
    # the note naming the rows of other variants was cut to 900 characters, saying nothing
    doc = harness._report()
    doc["results"].append({**doc["results"][0], "variant": "v" * 1000})  # one run of another
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "h.json", doc)))
    (note,) = [n for n in r.provenance.notes if n.startswith("Runs of other")]
    # the report's own other variant comes first: '"ablation:examples" (1), "' is 26 characters
    shown = '"ablation:examples" (1), "' + "v" * 873 + "…"
    assert note == "Runs of other variants were not imported: " + shown


def test_promptfoo_rows_left_out_named_at_length(shared: Path, tmp_path: Path) -> None:
    # a single-arm import's note naming the rows it left out was cut to 900, saying nothing
    doc: dict[str, Any] = json.loads((shared / PF).read_text("utf-8"))
    rows = doc["results"]["results"]
    mini = next(r for r in rows if r["provider"]["id"] == "openai:gpt-5-mini")
    rows[:] = [r for r in rows if r["provider"]["id"] == "openai:gpt-5"]
    ids = [f"{i:02d}" + "o" * 38 for i in range(20)]  # 40 characters each, 20 providers
    rows += [{**mini, "provider": {"id": pid}} for pid in ids]
    options = PromptfooOptions(arms={"with_skill": "openai:gpt-5"}, skill_name="s")
    r = sealed(import_promptfoo(write_json(tmp_path / "p.json", doc), options))
    (note,) = [n for n in r.provenance.notes if n.startswith("Rows of other")]
    # each left-out provider is named as a JSON string with its count of rows: 46 characters
    # and ", " between; 43 of "Rows of other providers were not imported: " before them
    whole = "Rows of other providers were not imported: " + ", ".join(f'"{p}" (1)' for p in ids)
    assert len(whole) == 43 + 20 * 46 + 19 * 2 and note == whole[:899] + "…"
