"""NVIDIA ``benchmarks.json`` checked against itself: counts, lists, verdicts and mean uplift.

A one-skill catalogue cut from the real one (``data/interop/nvidia/benchmarks.json``, skill
``aiq-deploy``), its counts set to what it holds: 1 skill, 10 rows, none without results. Read
by hand: the rows' uplift_pct are 0, 0, -3, 3, -2, 3, 3, 9, -3, 6, so their mean is 16 / 10 = 1.6,
the printed ``average_uplift_pct``; Correctness for codex scores 84 with uplift 3 (baseline 81).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers import write_imported
from driftproof.importers.nvidia import import_nvidia

CATALOGUE = "data/interop/nvidia/benchmarks.json"
SKILL = "aiq-deploy"


def _one(shared: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((shared / CATALOGUE).read_text(encoding="utf-8"))
    doc["skills"] = [s for s in doc["skills"] if s["catalog_dir"] == SKILL]
    doc["results"] = [r for r in doc["results"] if r["catalog_dir"] == SKILL]
    doc.update(skill_count=1, result_row_count=10, skills_without_results=[])
    return doc


def _refused(shared: Path, tmp_path: Path, change: Any) -> tuple[Path, Any]:
    """The one-skill catalogue changed by ``change``, written, and the one problem it meets."""
    doc = _one(shared)
    change(doc)
    path = write_json(tmp_path / "benchmarks.json", doc)
    with pytest.raises(ImportError_) as exc:
        import_nvidia(path)
    (p,) = exc.value.problems
    return path, p


def test_a_catalogue_that_agrees_with_itself_imports(shared: Path, tmp_path: Path) -> None:
    (r,) = import_nvidia(write_json(tmp_path / "benchmarks.json", _one(shared)))
    assert r.body.source_figures is not None
    assert r.body.source_figures.summary["average_uplift_pct"] == 1.6


def _skill(d: dict[str, Any]) -> dict[str, Any]:
    s: dict[str, Any] = d["skills"][0]
    return s


@pytest.mark.parametrize(
    ("change", "pointer", "words"),
    [
        (lambda d: d.update(skill_count=343), "/skill_count", "expected 1, the entries"),
        (lambda d: d.update(result_row_count=3210), "/result_row_count", "expected 10,"),
        (
            lambda d: d.update(skills_without_results=[SKILL]),
            "/skills_without_results",
            "no row in /results (none)",
        ),
        (
            lambda d: (d["skills"].append(dict(_skill(d))), d.update(skill_count=2)),
            "/skills/1/catalog_dir",
            "once; 'aiq-deploy' is also skill 0",
        ),
        (lambda d: _skill(d).update(has_results=False), "/skills/0/has_results", "expected true"),
        (
            lambda d: _skill(d).update(average_uplift_pct=16.0),
            "/skills/0/average_uplift_pct",
            "expected 1.6 (to 0.1), the mean uplift_pct of its 10 rows",
        ),
        (
            lambda d: _skill(d).update(verdict="WARN"),
            "/skills/0/verdict",
            "PASS, FAIL, NEUTRAL or INCOMPLETE",
        ),
        (lambda d: _skill(d).update(attempts_per_task=0), "/skills/0/attempts_per_task", "1"),
        (lambda d: _skill(d).update(pass_threshold_pct=150), "/skills/0/pass_threshold_pct", ""),
        (  # Correctness, codex: 84 with an uplift of 90 leaves a baseline of -6
            lambda d: d["results"][3].update(uplift_pct=90),
            "/results/3/uplift_pct",
            "found 90 beside a score of 84",
        ),
        (lambda d: d["results"][3].update(num=-1), "/results/3/num", "from 0"),
    ],
)
def test_a_catalogue_contradicting_itself_is_refused(
    shared: Path, tmp_path: Path, change: Any, pointer: str, words: str
) -> None:
    path, p = _refused(shared, tmp_path, change)
    assert (p.file, p.pointer) == (str(path), pointer) and words in p.message


def _more_agents(d: dict[str, Any]) -> None:
    """19 rows more, for agents a1 … a19 and no figure: with claude-code and codex, 21 agents."""
    row = d["results"][0]
    d["results"] += [
        row | {"agent": f"a{i}", "score_pct": None, "uplift_pct": None} for i in range(1, 20)
    ]
    d.update(result_row_count=29)


@pytest.mark.parametrize(
    ("change", "pointer", "message"),
    [
        (
            lambda d: _skill(d).update(agents=["claude-code", "co\x1bdex"]),
            "/skills/0/agents/1",
            "expected an agent's name with no control character, found 'co\\x1bdex'",
        ),
        (
            lambda d: d["results"][1].update(agent="co\x1bdex"),
            "/results/1/agent",
            "expected an agent's name with no control character, found 'co\\x1bdex'",
        ),
        (
            lambda d: _skill(d).update(agents=[f"a{i}" for i in range(1, 22)]),
            "/skills/0/agents/20",
            "expected at most 20 agents for one skill (SkillEvaluator runs three); 'a21' is "
            "agent 21",
        ),
        (  # rows 10 … 28 name a1 … a19, the 21st agent of the skill's rows at row 28
            _more_agents,
            "/results/28/agent",
            "expected at most 20 agents for one skill (SkillEvaluator runs three); 'a19' is "
            "agent 21",
        ),
    ],
)
def test_a_catalogue_agent_with_a_control_character_or_past_twenty_is_refused(
    shared: Path, tmp_path: Path, change: Any, pointer: str, message: str
) -> None:
    # found: each sealed, the control character in the receipt's agents or rows
    path, p = _refused(shared, tmp_path, change)
    assert (p.file, p.pointer, p.message) == (str(path), pointer, message)


def test_a_catalogue_of_another_schema_version_is_refused(shared: Path, tmp_path: Path) -> None:
    # the real catalogue says "schema_version": 2; a 3 may mean its members otherwise
    doc = _one(shared) | {"schema_version": 3}
    with pytest.raises(ImportError_) as exc:
        import_nvidia(write_json(tmp_path / "benchmarks.json", doc))
    assert str(exc.value).endswith("benchmarks.json: /schema_version: expected 2, found 3")


@pytest.mark.parametrize("verdict", ["NEUTRAL", "INCOMPLETE"])
def test_a_neutral_or_incomplete_verdict_is_read(
    shared: Path, tmp_path: Path, verdict: str
) -> None:
    # SkillEvaluator's card prints these two besides PASS and FAIL (reporting/benchmark.py
    # _verdict_callout @ e70f0e3); the aggregator copies the word after "Overall verdict: "
    doc = _one(shared)
    _skill(doc).update(verdict=verdict)
    (r,) = import_nvidia(write_json(tmp_path / "benchmarks.json", doc))
    assert sealed(r).source_figures.summary["verdict"] == verdict


def test_a_card_whose_every_cell_is_n_a_is_refused(tmp_path: Path) -> None:
    """A card whose every results cell is ``N/A`` is refused: it holds no figure.

    Its shape is NVIDIA/skills' own ``skills/nemoclaw-user-guide/BENCHMARK.md`` (CC-BY-4.0), at
    https://github.com/NVIDIA/skills/blob/7149a886d50da8db72cdc1f20ff01cefeadfe6a9/skills/nemoclaw-user-guide/BENCHMARK.md
    NVIDIA's aggregate lists that skill under ``skills_without_results``; it was written as a
    receipt whose sheet said "10 figures as the source printed them".
    """
    f = tmp_path / "BENCHMARK.md"
    rows = "".join(
        f"| {d} | N/A | N/A | N/A |\n"
        for d in ("Security", "Correctness", "Discoverability", "Effectiveness", "Efficiency")
    )
    f.write_text(
        "# Evaluation Report\n\n## Evaluation Summary\n\n- Skill: `nemoclaw-user-guide`\n"
        "- Overall verdict: PASS\n\n## Results\n\n| Dimension | Num | `claude-code` | `codex` |\n"
        "|---|---:|---:|---:|\n" + rows,
        encoding="utf-8",
    )
    with pytest.raises(ImportError_) as e:
        import_nvidia([f])
    (p,) = e.value.problems
    assert p.file == str(f) and "with figures" in p.message and "N/A" in p.message


def test_two_skills_named_alike_but_for_letter_case_are_refused(
    shared: Path, tmp_path: Path
) -> None:
    # macOS and Windows hold nvidia-aiq-deploy.json and nvidia-AIQ-DEPLOY.json as one file, and
    # the site refuses the pair: the import wrote both
    doc = _one(shared)
    up = [{**x, "catalog_dir": SKILL.upper()} for x in (*doc["skills"], *doc["results"])]
    doc["skills"].append({**up[0], "skill": SKILL.upper()})
    doc["results"] += up[1:]
    doc.update(skill_count=2, result_row_count=20)
    items = import_nvidia(write_json(tmp_path / "benchmarks.json", doc))
    assert len(items) == 2
    with pytest.raises(ImportError_) as exc:
        write_imported(items, tmp_path / "out")
    assert "would both be written as 'nvidia-AIQ-DEPLOY.json'" in str(exc.value)
    assert f"skill '{SKILL}' from " in str(exc.value) and f"skill '{SKILL.upper()}' from " in str(
        exc.value
    )
    assert not (tmp_path / "out").exists()


def test_a_json_file_whose_root_is_no_object_is_named_with_the_file_expected(
    shared: Path, tmp_path: Path
) -> None:
    # a skill's own benchmark/evals.json (an array of questions, not results) said only
    # "expected an object, found an array": no place, and not which file the importer reads
    expected = (
        "expected NVIDIA's catalogue benchmarks.json, an object "
        '{"schema_version": 2, "skills": [...], "results": [...]}, '
        "or a skill's BENCHMARK.md card (or a folder holding it)"
    )
    evals = shared / "data/interop/nvidia/skills/cuopt-install/benchmark/evals.json"
    assert json.loads(evals.read_text(encoding="utf-8"))[0]["expected_skill"] == "cuopt-install"
    for path, kind in ((evals, "an array"), (write_json(tmp_path / "n.json", 2), "the number 2")):
        with pytest.raises(ImportError_) as exc:
            import_nvidia(path)
        assert [str(p) for p in exc.value.problems] == [
            f"{path}: the document's root is {kind}; {expected}"
        ]
