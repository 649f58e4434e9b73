"""``driftproof import skill-creator|nvidia|promptfoo|inspect|summary-json`` through the real CLI
group."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers import importers_reading
from driftproof.receipt import read_receipt

INTEROP = "data/interop"


def test_import_commands_write_valid_receipts(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    runs = [
        ["skill-creator", str(shared / INTEROP / "skill-creator/nebius-skills-workspace")],
        [
            "nvidia",
            str(shared / INTEROP / "nvidia/skills/cuopt-install/BENCHMARK.md"),
            "--commit",
            "7149a886d50da8db72cdc1f20ff01cefeadfe6a9",
        ],
        [
            "promptfoo",
            str(shared / INTEROP / "promptfoo/sample-export.json"),
            "--arm",
            "with_skill=openai:gpt-5-mini",
            "--arm",
            "baseline=openai:gpt-5",
            "--skill-name",
            "riddles",
        ],
        [
            "inspect",
            "--with-skill",
            str(shared / INTEROP / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"),
            "--skill-name",
            "sec",
        ],
    ]
    for args in runs:
        result = CliRunner().invoke(cli, ["import", *args, "--out", str(out)])
        assert result.exit_code == 0, (args, result.output, result.exception)
        assert result.output.startswith("wrote ")
    files = sorted(out.glob("*.json"))
    assert len(files) == 4
    assert {read_receipt(f).verification_level for f in files} == {"DECLARED"}
    assert (out / "nvidia-7149a88-cuopt-install-card.json").exists()


def test_failed_import_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "benchmarks.json"
    bad.write_text(
        (
            '{"schema_version": 2, "skills": [], "results": [{"catalog_dir": "x", '
            '"dimension": "d", "num": 1, "agent": "a", "score_pct": 50, "uplift_pct": 0}]}'
        ),
        encoding="utf-8",
    )
    out = tmp_path / "r"
    result = CliRunner().invoke(cli, ["import", "nvidia", str(bad), "--out", str(out)])
    assert isinstance(result.exception, ImportError_)
    assert result.exception.problems[0].pointer == "/results/0/catalog_dir"
    assert not out.exists()


def test_two_cards_of_one_skill_given_together_are_named_with_their_files(
    shared: Path, tmp_path: Path
) -> None:
    # both golden cards of SkillEvaluator name the skill demo-skill ("- Skill: `demo-skill`"),
    # so both would be nvidia-demo-skill-card.json: the refusal names the skill and both files
    cards = [
        shared / INTEROP / f"nvidia/skillevaluator/golden-e70f0e3/benchmark_{k}/BENCHMARK.md"
        for k in ("pass", "fail")
    ]
    out = tmp_path / "r"
    result = CliRunner().invoke(cli, ["import", "nvidia", *map(str, cards), "--out-dir", str(out)])
    assert isinstance(result.exception, ImportError_)
    message = str(result.exception)
    assert "would both be written as 'nvidia-demo-skill-card.json'" in message
    assert f"skill 'demo-skill' from {cards[0]} and skill 'demo-skill' from {cards[1]}" in message
    assert "separate folders (--out-dir)" in message
    assert not out.exists()


def test_import_skill_validator_and_vally_commands(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    run = shared / INTEROP / "dotnet-skills/skill-validator-results"
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "skill-validator",
            str(run / "run-2026-02-20T20-44-00-817Z/results.json"),
            "--out-dir",
            str(out),
        ],
    )
    assert result.exit_code == 0, (result.output, result.exception)
    (written,) = out.glob("skill-validator-analyzing-dotnet-performance-*.json")
    assert read_receipt(written).verification_level == "DECLARED"
    empty = CliRunner().invoke(
        cli,
        [
            "import",
            "vally",
            str(run / "run-2026-02-20T20-34-42-935Z/results.json"),
            "--out-dir",
            str(tmp_path / "v"),
        ],
    )
    assert isinstance(empty.exception, ImportError_)  # no verdicts: nothing to import
    assert not (tmp_path / "v").exists()


def test_one_label_given_to_two_arms_is_refused_as_such(shared: Path, tmp_path: Path) -> None:
    source = shared / "data/interop/promptfoo/sample-export.json"
    out = tmp_path / "out"
    args = ["--arm", "with_skill=openai:gpt-5", "--arm", "baseline=openai:gpt-5"]
    result = CliRunner().invoke(
        cli,
        ["import", "promptfoo", str(source), *args, "--skill-name", "sk", "--out-dir", str(out)],
    )
    assert result.exit_code == 2  # an option's value: click's usage error
    assert "'openai:gpt-5' is already the with_skill arm's label" in result.output
    assert not out.exists()


def test_two_mappings_of_one_promptfoo_file_get_two_names(shared: Path, tmp_path: Path) -> None:
    # both were promptfoo-riddles-60f4c9f1.json: the second import was refused as existing, and
    # --force would have replaced the first; the name now carries each arm's label
    source = str(shared / "data/interop/promptfoo/sample-export.json")
    out = tmp_path / "out"
    for a, b in (("gpt-5-mini", "gpt-5"), ("gpt-5", "gpt-5-mini")):
        args = ["--arm", f"with_skill=openai:{a}", "--arm", f"baseline=openai:{b}"]
        run = ["import", "promptfoo", source, *args, "--skill-name", "riddles", "--out", str(out)]
        result = CliRunner().invoke(cli, run)
        assert result.exit_code == 0, (result.output, result.exception)
    assert sorted(p.name for p in out.iterdir()) == [
        "promptfoo-riddles-with_skill-openai-gpt-5-baseline-openai-gpt-5-mini-60f4c9f1.json",
        "promptfoo-riddles-with_skill-openai-gpt-5-mini-baseline-openai-gpt-5-60f4c9f1.json",
    ]


def test_a_refusal_names_the_importer_that_reads_the_file(shared: Path, tmp_path: Path) -> None:
    # dotnet/skills' skill-validator wrote these results.json (SOURCE.md); vally refused them
    # without a word of the importer that reads them
    run = shared / INTEROP / "dotnet-skills/skill-validator-results"
    nebius = shared / INTEROP / "skill-creator/nebius-skills-workspace/evals/iteration-1"
    for tool, path, fits in [
        ("vally", run / "run-2026-02-20T20-44-00-817Z/results.json", "skill-validator"),
        ("skill-eval-harness", nebius / "benchmark.json", "skill-creator"),
    ]:
        res = CliRunner().invoke(cli, ["import", tool, str(path), "--out-dir", str(tmp_path)])
        assert isinstance(res.exception, ImportError_)
        hint = res.exception.problems[-1]
        assert (hint.file, hint.pointer) == (str(path), "")
        assert hint.message == f"driftproof import {fits} reads this file"
    # a run with no verdict: skill-validator refuses it too, so no importer is named
    empty = run / "run-2026-02-20T20-34-42-935Z/results.json"
    res = CliRunner().invoke(cli, ["import", "vally", str(empty), "--out-dir", str(tmp_path)])
    assert isinstance(res.exception, ImportError_) and len(res.exception.problems) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_directory_another_importer_reads_is_called_a_directory(
    shared: Path, tmp_path: Path
) -> None:
    nebius = shared / INTEROP / "skill-creator/nebius-skills-workspace/evals/iteration-1"
    res = CliRunner().invoke(cli, ["import", "nvidia", str(nebius), "--out-dir", str(tmp_path)])
    assert isinstance(res.exception, ImportError_)
    hint = res.exception.problems[-1]
    assert hint.message == "driftproof import skill-creator reads this directory"
    assert list(tmp_path.iterdir()) == []


def test_a_file_over_the_guess_limit_is_not_read_by_every_importer(
    shared: Path, tmp_path: Path
) -> None:
    # each importer parses the file again: a 64 MB refusal took a minute, seven parses
    run = shared / INTEROP / "dotnet-skills/skill-validator-results"
    data = (run / "run-2026-02-20T20-44-00-817Z/results.json").read_bytes()
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    small.write_bytes(data)
    big.write_bytes(data + b" " * (8 * 1024 * 1024 + 1 - len(data)))  # JSON still, one byte over
    assert importers_reading(small, "vally") == ["skill-validator"]
    assert importers_reading(big, "vally") == []


# Trimmed copies of real files' top levels: a promptfoo export (data/interop/promptfoo/
# sample-export.json), an Inspect .json log (data/interop/inspect_ai/2025-05-12T20-28-13-04-00_
# popularity.json), an Inspect .eval still being written (the same folder's .eval archive holds
# _journal/start.json and samples/, no header.json) and OpenAI Evals output items
# (data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl, its first two rows' keys).
PROMPTFOO = {
    "evalId": "eval-WJi-2025-10-01T20:08:11",
    "results": {"version": 3, "timestamp": "2025-10-01T20:08:11.168Z", "results": []},
    "config": {},
}
INSPECT_EVAL = {"task": "popularity", "model": "openai/gpt-4o-mini"}
INSPECT = {"version": 2, "status": "cancelled", "eval": INSPECT_EVAL}
ITEMS = [
    {"run_id": "evalrun_import_fixture", "data_source_idx": 10, "grades": {"Relevance": 6}},
    {"run_id": "evalrun_import_fixture", "data_source_idx": 3, "grades": {"Relevance": 2}},
]
GIVE = {
    "promptfoo": "give --arm with_skill=LABEL --arm baseline=LABEL and --skill-name NAME",
    "inspect": "give the log as --with-skill LOG or --baseline LOG, and --skill-name NAME",
    "openai-evals": "give --skill-name NAME",
}


def _written(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    if name.endswith(".eval"):
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": INSPECT_EVAL}))
            z.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "epoch": 1}))
        return path
    doc = {"results.json": PROMPTFOO, "log.json": INSPECT}.get(name)
    text = json.dumps(doc) if doc else "\n".join(json.dumps(r) for r in ITEMS) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("command", "name", "fits"),
    [
        (["inspect", "--with-skill"], "results.json", "promptfoo"),
        (["openai-evals"], "results.json", "promptfoo"),
        (["promptfoo", "--arm", "with_skill=a"], "run.eval", "inspect"),
        (["promptfoo", "--arm", "with_skill=a"], "log.json", "inspect"),
        (["inspect", "--baseline"], "items.jsonl", "openai-evals"),
    ],
)
def test_a_refusal_names_an_importer_that_needs_options(
    tmp_path: Path, command: list[str], name: str, fits: str
) -> None:
    path = _written(tmp_path, name)
    out = tmp_path / "out"
    run = ["import", *command, str(path), "--skill-name", "s", "--out-dir", str(out)]
    res = CliRunner().invoke(cli, run)
    assert isinstance(res.exception, ImportError_), res.output
    hint = res.exception.problems[-1]
    assert (hint.file, hint.pointer) == (str(path), "")
    assert hint.message == f"driftproof import {fits} ({GIVE[fits]}) reads this file"
    assert not out.exists()


def test_an_inspect_log_given_alone_is_refused_saying_how_to_give_it(
    shared: Path, tmp_path: Path
) -> None:
    # every other import takes its file as it is; inspect takes one log per arm, and a log
    # given alone met click's "Got unexpected extra argument (…)", naming no option to use
    log = str(shared / INTEROP / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json")
    out = tmp_path / "r"
    argv = ["import", "inspect", log, "--skill-name", "s", "--out-dir", str(out)]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2 and not out.exists()
    assert result.output.splitlines()[-1] == (
        "Error: expected each log after its arm's option (--with-skill LOG, --baseline LOG, "
        f"--control LOG); found {log!r} given alone"
    )


def test_a_refusal_names_a_known_format_no_importer_reads(shared: Path, tmp_path: Path) -> None:
    # dotnet/skills' dashboard data (SOURCE.md: github-action-benchmark's layout, entries of
    # {commit, date, tool, benches} per suite): skill-validator said only "expected member
    # 'verdicts'"
    dashboard = shared / INTEROP / "dotnet-skills/dashboard-gh-pages/data/dotnet-test.json"
    run = {"commit": {"id": "a"}, "date": 1, "tool": "cargo", "benches": []}
    made, unlike = tmp_path / "data.json", tmp_path / "other.json"
    made.write_text(json.dumps({"lastUpdate": 1, "entries": {"Rust": [run]}}), encoding="utf-8")
    unlike.write_text(json.dumps({"lastUpdate": 1, "entries": {"Rust": [{"date": 1}]}}), "utf-8")
    # the members named but not of the action's kinds (its Benchmark type: commit an object,
    # date and lastUpdate numbers, tool a string, benches an array): not recognised, so unnamed
    odd = [tmp_path / "odd1.json", tmp_path / "odd2.json"]
    odd[0].write_text(json.dumps({"lastUpdate": "today", "entries": {"R": [run]}}), "utf-8")
    odd[1].write_text(json.dumps({"lastUpdate": 1, "entries": {"R": [{**run, "benches": "x"}]}}))
    said = (
        "this file looks like a github-action-benchmark data file (one value per benchmark and "
        "commit, for a dashboard's charts), which no driftproof importer reads"
    )
    for path, note in ((dashboard, said), (made, said), (unlike, None), *((x, None) for x in odd)):
        res = CliRunner().invoke(
            cli, ["import", "skill-validator", str(path), "--out-dir", str(tmp_path / "o")]
        )
        assert isinstance(res.exception, ImportError_)
        first, *rest = res.exception.problems
        assert first.message.startswith("expected member 'verdicts'")
        assert [(p.file, p.pointer, p.message) for p in rest] == (
            [(str(path), "", note)] if note else []
        )
    # JSON lines, the first of which alone would be one: not the action's file, which is whole
    lines = tmp_path / "rows.jsonl"
    lines.write_text(made.read_text(encoding="utf-8") + '\n{"date": 2}\n', encoding="utf-8")
    res = CliRunner().invoke(cli, ["import", "skill-validator", str(lines), "--out-dir", "o"])
    assert isinstance(res.exception, ImportError_)
    assert not any("github-action-benchmark" in p.message for p in res.exception.problems)


def test_a_case_list_or_a_receipt_given_to_an_importer_is_named_as_such(
    shared: Path, tmp_path: Path
) -> None:
    # skill-creator's evals.json (its cases: id, prompt, expected_output, no result) and a
    # committed receipt read only "expected member 'eval_id'" and a list of unknown members
    sc = shared / INTEROP / "skill-creator"
    receipts = Path(__file__).resolve().parents[2] / "receipts"
    cases = "skill-creator's evals.json, the test cases and not their results"
    said = [
        (sc / "nebius-skills-workspace/evals/evals.json", "skill-creator", cases),
        (sc / "agent-skills-eval-example/evals.json", "skill-creator", cases),
        (sc / "nebius-skills-workspace/evals/evals.json", "summary-json", cases),
        (receipts / "claude-plugin-eval-probe-plugin-8955eb63.json", "summary-json", "a Driftp"),
    ]
    # results holding an object per configuration are not cases, whatever else they hold
    results = tmp_path / "benchmark.json"
    results.write_text(json.dumps({"evals": [{"prompt": "p", "with_skill": {}}]}), "utf-8")
    for path, tool, what in [*said, (results, "skill-creator", "")]:
        res = CliRunner().invoke(cli, ["import", tool, str(path), "--out-dir", str(tmp_path)])
        assert isinstance(res.exception, ImportError_)
        last = res.exception.problems[-1]
        named = (last.file, last.pointer, last.message.startswith(f"this file looks like {what}"))
        assert named == (
            (str(path), "", True) if what else (str(results), "/evals/0/eval_id", False)
        )
