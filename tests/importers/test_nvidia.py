"""NVIDIA cards and catalogue: aggregates only, figures as printed, no band/lift/verdict (D-15).

Expected values are read by hand from the source files; each literal says where.
Blob ids were computed with ``git hash-object <file>`` on the shared copies.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from interop_helpers import docs, sealed

from driftproof.errors import ImportError_
from driftproof.importers._nvidia_card import parse_card, parse_cell
from driftproof.importers.nvidia import NvidiaOptions, import_nvidia

NV = "data/interop/nvidia"
REPO = "https://github.com/NVIDIA/skills"
COMMIT = "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"  # nvidia/SOURCE.md


def _row(r, dimension: str, agent: str) -> dict:
    rows = r.source_figures.model_dump(mode="json")["rows"]  # as written
    (row,) = [x for x in rows if x["dimension"] == dimension and x["agent"] == agent]
    return row


def test_v1_card_as_printed(shared: Path) -> None:
    f = shared / NV / "skills/accelerated-computing-cudf/BENCHMARK.md"
    r = sealed(import_nvidia([f], NvidiaOptions(repository=REPO, commit=COMMIT))[0])
    assert r.is_aggregates_only and r.verification_level == "DECLARED"
    assert r.cases == [] and r.judge is None and r.band_source is None
    sf = r.source_figures.model_dump(mode="json")  # as written
    assert sf["repository"] == REPO and sf["commit"] == COMMIT
    # git hash-object skills/accelerated-computing-cudf/BENCHMARK.md
    assert sf["files"] == [
        {
            "path": "skills/accelerated-computing-cudf/BENCHMARK.md",
            "git_blob_sha1": "64e1906be594f40bc8277095632750263c800b78",
        }
    ]
    # "## Results": | Security | 8 | 92% (+12%) | 100% (+0%) |
    sec = _row(r, "Security", "claude-code")
    assert sec["printed"] == "92% (+12%)" and sec["num"] == 8
    assert sec["score"] == {"value": 92.0, "unit": "%"} and sec["uplift"]["value"] == 12.0
    assert sec["baseline"] is None  # a v1 card prints no baseline; none is worked out
    # | Effectiveness | 8 | 90% (+5%) | 86% (-0%) |
    eff = _row(r, "Effectiveness", "codex")
    assert eff["printed"] == "86% (-0%)" and eff["uplift"] == {
        "printed": "-0%",
        "value": 0.0,
        "unit": "%",
    }
    assert len(sf["rows"]) == 10  # 5 dimensions x 2 agents
    # "- Dataset: 13 evaluation tasks", "- Attempts per task: 2", "- Overall verdict: PASS"
    assert sf["summary"]["tasks"] == 13 and sf["summary"]["attempts_per_task"] == 2
    assert r.run.generations_per_arm == 2  # attempts per task, defined by the card
    assert r.run.judge_samples_per_generation is None


def test_catalogue_every_skill_and_row(shared: Path) -> None:
    found = docs(
        import_nvidia(
            [shared / NV / "benchmarks.json"], NvidiaOptions(repository=REPO, commit=COMMIT)
        )
    )
    # benchmarks.json: "skill_count": 343, "result_row_count": 3210
    assert len(found) == 343
    assert sum(len(d["source_figures"]["rows"]) for d in found) == 3210
    # "skills_without_results" lists 19 skills: their receipts carry no rows
    assert sum(1 for d in found if not d["source_figures"]["rows"]) == 19
    by = {d["skill"]["name"]: d for d in found}
    r = sealed(by["cuopt-install"])
    # benchmarks.json rows for cuopt-install: Discoverability claude-code 100.0 / +100.0,
    # codex 97.0 / +72.0
    assert _row(r, "Discoverability", "claude-code")["uplift"]["value"] == 100.0
    assert _row(r, "Discoverability", "codex")["score"]["value"] == 97.0
    assert r.source_figures.files[0].git_blob_sha1 == "6f6c3946e835520844d2b770bf8d91faf701a526"
    assert (
        r.provenance.document_sha256
        == "62aeb7511d3759521b5510921e0db6eac5bd996a539aa1aa47783f88b7023e6c"
    )
    # accelerated-computing-cudf Effectiveness codex: the file writes "uplift_pct": -0.0
    # (card: "86% (-0%)")
    eff = _row(sealed(by["accelerated-computing-cudf"]), "Effectiveness", "codex")["uplift"]
    assert eff["printed"] == "-0.0" and eff["value"] == 0.0


def test_card_and_catalogue_agree(shared: Path) -> None:
    card = docs(import_nvidia([shared / NV / "skills/cuopt-install"]))[0]["source_figures"]["rows"]
    cat = docs(
        import_nvidia([shared / NV / "benchmarks.json"], NvidiaOptions(skills=["cuopt-install"]))
    )[0]["source_figures"]["rows"]
    key = lambda x: (x["dimension"], x["agent"])  # noqa: E731
    assert {key(x): (x["score"]["value"], x["uplift"]["value"]) for x in card} == {
        key(x): (x["score"]["value"], x["uplift"]["value"]) for x in cat
    }


def test_figures_written_keep_absent_members_absent_and_nulls_null(shared: Path) -> None:
    # a card gives no catalogue schema_version and its figures no field; a catalogue row has no
    # column; a repository not given is null, not absent; read back, the same members
    card = docs(import_nvidia([shared / NV / "skills/cuopt-install"]))[0]["source_figures"]
    (cat,) = docs(
        import_nvidia([shared / NV / "benchmarks.json"], NvidiaOptions(skills=["cuopt-install"]))
    )
    assert set(card) == {*SHAPE, "card_format"} and card["repository"] is None
    assert set(cat["source_figures"]) == {*SHAPE, "schema_version"}
    assert set(card["rows"][0]) == {*ROW, "column"} and set(cat["source_figures"]["rows"][0]) == ROW
    assert set(card["rows"][0]["score"]) == {"value", "unit"}
    assert sealed(cat).to_json_dict()["source_figures"] == cat["source_figures"]


SHAPE = {"source", "repository", "commit", "files", "summary", "agents", "rows"}
ROW = {"dimension", "agent", "num", "printed", "score", "baseline", "uplift", "note"}

V2_CARD = (
    """# Skill Benchmark: demo-skill

> ✅ **Overall verdict: PASS — Recommended for publication**

## Evaluation Metadata

- Skill: `demo-skill`
- Evaluator version: `1.0.0`
- Agents: Claude Code (`aws/anthropic/bedrock-claude-opus-4-8`), Codex (`openai/openai/gpt-5.5`)
- Tasks: 3 evaluation tasks (3 positive)
- Dataset digest: `sha256:cd73` (skill-evaluator-dataset-snapshot/1)
- Attempts per task: 3

## Results at a Glance

| Measure | Claude Code (Baseline → Skill Uplift) | Codex (Baseline → Skill Uplift) |
|---|---:|---:|
"""
    "| Overall | 97.3% — baseline ran, but no comparable score was available; "
    "uplift unavailable | Not available |\n"
    """| Security | 100.0% → 100.0% (±0.0 points) | 65% → 97% (+33 points) |
| Correctness | 41.3% → 96.0% (+54.7 pp) | 20% → 60% (+40) |

**How to read this table:** baseline is the same task attempted without the target skill.

| Agent | Dataset case | With skill | Without skill |
|---|---|---:|---:|
| codex | All cases | 14,040 | 13,432 |

## Scoring Methodology

| Dimension | Question | Scored signals |
|---|---|---|
| Security | Is it safe to use? | `security` (100%) |

- Overall verdict: PASS only when every configured dimension passes.
"""
)


def test_v2_card_grammar(tmp_path: Path) -> None:
    f = tmp_path / "skills" / "demo-skill" / "BENCHMARK.md"
    f.parent.mkdir(parents=True)
    f.write_text(V2_CARD, encoding="utf-8")
    r = sealed(import_nvidia([f])[0])
    sf = r.source_figures.model_dump(mode="json")  # as written
    assert sf["card_format"] == "v2" and sf["summary"]["verdict"] == "PASS"
    assert sf["summary"]["evaluator_version"] == "1.0.0" and r.provenance.tool == "SkillEvaluator"
    assert [a["model"] for a in sf["agents"]] == [
        "aws/anthropic/bedrock-claude-opus-4-8",
        "openai/openai/gpt-5.5",
    ]
    codex_sec = _row(r, "Security", "codex")
    assert codex_sec["baseline"]["value"] == 65.0 and codex_sec["score"]["value"] == 97.0
    assert codex_sec["uplift"] == {"printed": "+33 points", "value": 33.0, "unit": "points"}
    assert (
        _row(r, "Security", "claude-code")["uplift"]["value"] == 0.0
    )  # "±0.0 points" is 0, not null
    assert _row(r, "Correctness", "claude-code")["uplift"]["unit"] == "pp"
    # "(+40)": an uplift printed with no unit keeps no unit
    assert _row(r, "Correctness", "codex")["uplift"] == {
        "printed": "+40",
        "value": 40.0,
        "unit": None,
    }
    assert (
        len(sf["rows"]) == 6
    )  # 3 measures x 2 agents; the token table and methodology table are not figures
    overall = _row(r, "Overall", "claude-code")
    assert (
        overall["score"]["value"] == 97.3
        and overall["uplift"] is None
        and "no comparable" in overall["note"]
    )
    assert _row(r, "Overall", "codex")["score"] is None
    # no repository or commit given: unknown, listed, never invented
    assert sf["repository"] is None and any("repository" in u for u in r.provenance.unrecorded)


def test_cell_grammar_edges() -> None:
    assert parse_cell("97%") == {
        "printed": "97%",
        "score": {"value": 97.0, "unit": "%"},
        "baseline": None,
        "uplift": None,
        "note": None,
    }
    assert parse_cell("12 apples") is None
    bold = parse_cell("**97%** (+12 pts)")
    assert bold["score"]["value"] == 97.0 and bold["uplift"] == {
        "printed": "+12 pts",
        "value": 12.0,
        "unit": "points",
    }
    # a score printed with no unit keeps no unit, like an uplift
    assert parse_cell("0.93")["score"] == {"value": 0.93, "unit": None}


def test_malformed_card_cell_refused_naming_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "BENCHMARK.md"
    f.write_text(
        "- Skill: `x`\n\n## Results\n\n| Dimension | Num | `codex` |\n|---|---:|---:|\n"
        "| Security | 8 | ninety |\n",
        encoding="utf-8",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert p.file == str(f) and p.pointer == "line 7, column 3" and "'ninety'" in p.message


def test_malformed_catalogue_refused_naming_pointer(tmp_path: Path) -> None:
    f = tmp_path / "benchmarks.json"
    f.write_text(
        '{"schema_version": 2, "skills": [{"skill": "a", "catalog_dir": "a"}], "results": '
        '[{"catalog_dir": "a", "dimension": "Security", "num": 1, "agent": "codex", '
        '"score_pct": "92%", "uplift_pct": 1}]}',
        encoding="utf-8",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert p.pointer == "/results/0/score_pct" and "a number" in p.message


def test_card_num_cell_read_only_as_ascii_digits() -> None:
    # "²" is a digit to str.isdigit() but not a count: the row keeps its figures and no task count
    # (int("²") raised ValueError, a traceback); "12" is the count 12
    card = (
        "- Skill: `x`\n\n## Results\n\n| Dimension | Num | `codex` |\n|---|---:|---:|\n"
        "| Security | ² | 92% (+12%) |\n| Safety | 12 | 80% |\n"
    )
    rows = parse_card(card, "BENCHMARK.md")["rows"]
    assert [(r["dimension"], r["num"], r["score"]["value"]) for r in rows] == [
        ("Security", None, 92.0),
        ("Safety", 12, 80.0),
    ]


def test_catalogue_zero_score_never_reads_negative_zero(tmp_path: Path) -> None:
    # a score_pct of -0.0 is the figure 0: the receipt keeps 0.0 and the sheet reads "0.0", as
    # an uplift's value already did; an uplift's printed text stays as the file wrote it
    from driftproof.pages.source import source_figures

    f = tmp_path / "benchmarks.json"
    f.write_text(
        '{"schema_version": 2, "skills": [{"skill": "a", "catalog_dir": "a"}], "results": ['
        '{"catalog_dir": "a", "dimension": "Security", "num": 1, "agent": "codex", '
        '"score_pct": -0.0, "uplift_pct": -0.0}, {"catalog_dir": "a", "dimension": "Safety", '
        '"num": 1, "agent": "codex", "score_pct": -0, "uplift_pct": 0}]}',
        encoding="utf-8",
    )
    r = sealed(import_nvidia([f]))
    assert [(x.score, x.uplift) for x in source_figures(r)] == [("0.0", "-0.0"), ("0.0", "0")]
    rows = docs(import_nvidia([f]))[0]["source_figures"]["rows"]
    assert [json.dumps(x["score"]["value"]) for x in rows] == ["0.0", "0.0"]


_CARD = "- Skill: `x`\n\n## Results\n\n| Dimension | Num | `codex` |\n|---|---:|---:|\n"


@pytest.mark.parametrize(
    ("rows", "pointer", "message"),
    [
        (
            "| Correctness | 8 | 92% (+8%) |\n| Security | 8 | 90% |\n| Correctness | 8 | 60% |\n",
            "line 9",
            "expected each measure once per agent; 'Correctness' for codex is already on line 7",
        ),
        (
            "| Security | 8 | 150% |\n",
            "line 7, column 3",
            "expected a percentage from 0% to 100%, found '150%'",
        ),
        (
            "| Security | 8 | 65% → 100.5% (+35.5 points) |\n",
            "line 7, column 3",
            "expected a percentage from 0% to 100%, found '65% → 100.5% (+35.5 points)'",
        ),
        (
            "| Security | 8 | 90% (-120%) |\n",
            "line 7, column 3",
            "expected an uplift of at most 100 percentage points either way, found '90% (-120%)'",
        ),
    ],
)
def test_card_repeated_or_impossible_figure_refused(
    tmp_path: Path, rows: str, pointer: str, message: str
) -> None:
    f = tmp_path / "BENCHMARK.md"
    f.write_text(_CARD + rows, encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert (p.file, p.pointer, p.message) == (str(f), pointer, message)


@pytest.mark.parametrize(
    ("second", "pointer", "message"),
    [
        (
            '"Security", "num": 1, "agent": "codex", "score_pct": 60, "uplift_pct": 1',
            "/results/1",
            "expected each dimension once per skill and agent; 'Security' for 'codex' of 'a' is "
            "given twice",
        ),
        (
            '"Safety", "num": 1, "agent": "codex", "score_pct": 150, "uplift_pct": 1',
            "/results/1/score_pct",
            "expected a finite number from 0 to 100, found the number 150",
        ),
    ],
)
def test_catalogue_repeated_or_impossible_figure_refused(
    tmp_path: Path, second: str, pointer: str, message: str
) -> None:
    f = tmp_path / "benchmarks.json"
    row = '{"catalog_dir": "a", "dimension": '
    f.write_text(
        '{"schema_version": 2, "skills": [{"skill": "a", "catalog_dir": "a"}], "results": ['
        f'{row}"Security", "num": 1, "agent": "codex", "score_pct": 92, "uplift_pct": 1}}, '
        f"{row}{second}}}]}}",
        encoding="utf-8",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert (p.pointer, p.message) == (pointer, message)


def test_the_sheet_shows_the_sources_own_verdict_from_its_summary() -> None:
    # report 002 says NVIDIA's verdicts are "kept in the receipts as printed"; the receipt held
    # them (source_figures.summary: verdict PASS, threshold 50.0, 9 tasks, 2 attempts per task,
    # average uplift 11.7) and no sheet showed them
    from driftproof.pages.source import source_origin
    from driftproof.receipt import read_receipt

    r = read_receipt(Path(__file__).parents[2] / "receipts" / "nvidia-7149a88-cudaq-guide.json")
    said = {f.label: f.value for f in source_origin(r)}
    assert said["the source's own verdict"] == (
        "PASS (pass threshold 50%, 9 tasks, 2 attempts per task, "
        "average uplift 11.7 percentage points)"
    )


def test_the_site_shows_where_the_figures_were_read_and_the_sources_verdict() -> None:
    # view showed the repository, commit, units, file and the source's verdict; the site's
    # receipt page showed none of them
    from driftproof.receipt import read_receipt
    from driftproof.site.html import page_env, receipt_files

    path = Path(__file__).parents[2] / "receipts" / "nvidia-7149a88-cudaq-guide.json"
    pages = receipt_files("n", read_receipt(path), path.read_bytes(), [], page_env())
    html = pages["receipts/n/index.html"].decode()
    assert "<dt>commit</dt><dd>7149a886d50da8db72cdc1f20ff01cefeadfe6a9</dd>" in html
    assert (
        "<dt>the source&#39;s own verdict</dt><dd>PASS (pass threshold 50%, 9 tasks, 2 attempts "
        "per task, average uplift 11.7 percentage points)</dd>"
    ) in html


@pytest.mark.parametrize(
    ("lines", "pointer", "message"),
    [
        (  # line 1 names the skill x; line 2 another
            "- Skill: `y`\n",
            "line 2",
            "expected 'x' as on line 1, the card's first such line; found 'y': the card "
            "contradicts itself",
        ),
        (
            "- Overall verdict: PASS\n- Overall verdict: FAIL\n",
            "line 3",
            "expected 'PASS' as on line 2, the card's first such line; found 'FAIL': the card "
            "contradicts itself",
        ),
        (
            "- Overall verdict: MAYBE\n",
            "line 2",
            "expected an overall verdict of PASS, FAIL, NEUTRAL or INCOMPLETE",
        ),
        ("- Attempts per task: 0\n", "line 2", "expected at least 1 attempt per task"),
        ("- Pass threshold: 150%\n", "line 2", "expected a pass threshold from 0% to 100%"),
    ],
)
def test_card_summary_lines_that_contradict_or_cannot_be_are_refused(
    tmp_path: Path, lines: str, pointer: str, message: str
) -> None:
    f = tmp_path / "BENCHMARK.md"
    skill, rest = _CARD.split("\n", 1)
    f.write_text(f"{skill}\n{lines}{rest}| Security | 8 | 90% |\n", encoding="utf-8")
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert (p.file, p.pointer) == (str(f), pointer) and p.message.startswith(message)


def test_a_summary_line_repeated_alike_is_read_once(tmp_path: Path) -> None:
    f = tmp_path / "BENCHMARK.md"
    skill, rest = _CARD.split("\n", 1)
    f.write_text(f"{skill}\n{skill}\n{rest}| Security | 8 | 90% |\n", encoding="utf-8")
    (r,) = import_nvidia([f])
    assert r.body.skill.name == "x"


def test_a_card_that_is_a_broken_link_in_a_checkout_is_refused_not_skipped(
    shared: Path, tmp_path: Path
) -> None:
    # Found: skills/b/BENCHMARK.md a link to a file not there was left out of the import without
    # a word, and the other skill's receipt written alone
    for name in ("a", "b"):
        (tmp_path / "skills" / name).mkdir(parents=True)
    shutil.copy(shared / NV / "skills/cuopt-install/BENCHMARK.md", tmp_path / "skills/a")
    (gone := tmp_path / "skills/b/BENCHMARK.md").symlink_to(tmp_path / "nowhere.md")
    with pytest.raises(ImportError_) as exc:
        import_nvidia([tmp_path])
    assert str(exc.value).startswith(f"{gone}: ")


def test_a_skill_folder_that_is_a_broken_link_in_a_checkout_is_refused_not_skipped(
    shared: Path, tmp_path: Path
) -> None:
    # Found: skills/b a link to a folder not there was left out of the import without a word
    (tmp_path / "skills/a").mkdir(parents=True)
    shutil.copy(shared / NV / "skills/cuopt-install/BENCHMARK.md", tmp_path / "skills/a")
    (tmp_path / "skills/b").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ImportError_) as exc:
        import_nvidia([tmp_path])
    assert str(exc.value).startswith(f"{tmp_path / 'skills/b/BENCHMARK.md'}: ")
