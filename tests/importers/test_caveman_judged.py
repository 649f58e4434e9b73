"""caveman PR #579's judged fidelity snapshots (../shared/data/caveman/history, SOURCE.md section
3): each fact judged pass or fail by a model against ``rubrics.json``. Read as their own kind:
DECLARED, no verdict (D-15); only the arms the file holds, the others unrecorded (D-13); the
per-prompt fidelity and risk as the source's figures; the grader as the source's. Expected
figures are counted by hand from the JSON (the helper ``_count`` is a few lines of plain
Python, apart from the product)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from caveman_snapshot import small_snapshot, write_snapshot
from click.testing import CliRunner

from driftproof._json import pointer
from driftproof.cli.import_ import import_group
from driftproof.errors import ImportError_
from driftproof.importers import get_importer, write_imported
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_json, sheet_text

HISTORY = "data/caveman/history"
SKILLS_AT = "data/caveman/at-snapshot-2b10489/skills"  # results.json's caveman arm's SKILL.md


def _paths(shared: Path, commit: str) -> tuple[Path, Path, Path]:
    base = shared / HISTORY / commit / "evals"
    return (
        base / "snapshots" / "fidelity.json",
        shared / HISTORY / "pr579-902028f" / "evals" / "prompts" / "rubrics.json",
        shared / SKILLS_AT,
    )


def _cli(args: list[str]) -> Any:
    return CliRunner().invoke(import_group, ["caveman", *args], catch_exceptions=True)


def _view(path: Path) -> dict[str, Any]:
    return json.loads(sheet_json(sheet(read_receipt(path), path=path)))


#: The snapshot's arms in the method's words, as the sheet names them (one name per arm).
SHOWN = {"caveman": "with skill", "__baseline__": "baseline"}


def _count(doc: dict[str, Any], arm: str) -> tuple[str, str, str, str]:
    """The arm row recounted from the snapshot: facts passed / facts, the rate, and the mean of
    the printed per-prompt fidelity, both in whole percent (one format for both figures)."""
    cells = doc["fidelity"][arm].values()
    facts = [f["pass"] for c in cells for f in c["facts"]]
    mean = f"{sum(c['fidelity'] for c in cells) / len(cells):.0f}"
    rate = f"{sum(facts) / len(facts):.0%}"
    return (SHOWN[arm], f"{sum(facts)} / {len(facts)}", rate, f"{mean}%")


def test_pr579_902028f_with_rubrics(shared: Path, tmp_path: Path) -> None:
    snap, rubrics, skills = _paths(shared, "pr579-902028f")
    out = tmp_path / "r"
    commit = "902028f2aba2c642a49664cf2b68ad4ccf78497f"
    args = [str(snap), "--skills", str(skills), "--rubrics", str(rubrics)]
    result = _cli([*args, "--source-commit", commit, "--out", str(out)])
    assert result.exit_code == 0, result.output
    path = out / "caveman-902028f-judged-fidelity-caveman.json"
    assert sorted(out.iterdir()) == [path]
    r = read_receipt(path)
    doc = json.loads(snap.read_text("utf-8"))
    cells = list(doc["fidelity"]["caveman"].values())
    assert r.verification_level == "DECLARED"  # D-15
    assert r.judge is not None and r.judge.model == "claude-haiku-4-5"
    assert r.judge.channel == "source"
    assert r.suite.name == "rubrics.json"
    assert r.suite.sha256 == hashlib.sha256(rubrics.read_bytes()).hexdigest()
    assert r.arms.baseline is not None and r.arms.baseline.recorded is False  # D-13
    assert r.arms.control is not None and r.arms.control.recorded is False
    assert [c.prompt for c in r.cases] == list(doc["fidelity"]["caveman"])
    assert [c.id for c in r.cases] == [f"p{i:02d}" for i in range(1, 11)]
    for case, cell in zip(r.cases, cells, strict=True):
        (d,) = case.arms.with_skill.draws
        assert d.answer is None and d.lost is None and d.score is None  # answer unknown, not ""
        assert [(k.name, k.pass_) for k in d.checks] == [
            *((f["fact"], f["pass"]) for f in cell["facts"]),
            ("verbatim", cell["verbatim_ok"]),
        ]
        assert case.arms.baseline is not None and case.arms.baseline.draws == []
    assert r.source_report is not None
    figures = [
        (f.label, f.case, f.arm, f.value, f.unit, f.printed) for f in r.source_report.figures
    ]
    assert figures[:2] == [
        ("fidelity", "p01", "with_skill", 100.0, "percent", "100.0"),
        ("risk", "p01", "with_skill", None, None, "normal"),
    ]
    assert figures[17] == ("risk", "p09", "with_skill", None, None, "high")  # git rebase
    assert len(figures) == 20
    f = _view(path)["fidelity"]
    # 9 prompts with 2 facts and the rebase prompt with 3: 21 facts, every one judged pass;
    # every printed fidelity is 100.0; their mean is shown as the rate is, in whole percent (it
    # read "100.0%" beside the rate's "100%", and "100%" for 5c7e19a, which printed 100)
    assert f["arm_rows"] == [
        ["baseline", "not recorded", "not recorded", "not recorded"],
        ["control", "not recorded", "not recorded", "not recorded"],
        ["with skill", "21 / 21", "100%", "100%"],
    ]
    assert tuple(f["arm_rows"][2]) == _count(doc, "caveman")
    assert f["failures"] == [] and f["category_rows"] == []
    assert "claude-haiku-4-5" in f["summary"][1]["value"]


def test_pr579_5c7e19a_without_rubrics(shared: Path, tmp_path: Path) -> None:
    snap, _, skills = _paths(shared, "pr579-5c7e19a")
    out = tmp_path / "r"
    result = _cli([str(snap), "--skills", str(skills), "--out", str(out)])
    assert result.exit_code == 0, result.output
    r = read_receipt(out / "caveman-judged-fidelity-caveman.json")
    assert r.judge is not None and r.judge.model == "claude-opus-4-8"
    assert r.suite.sha256 is None
    assert r.provenance is not None and r.provenance.notes is not None
    assert any("inline judgment" in n for n in r.provenance.notes)  # the source's words kept
    assert any(n.startswith("the source's note: Baseline fidelity") for n in r.provenance.notes)
    assert any(u.startswith("suite:") for u in r.provenance.unrecorded)
    assert r.source_report is not None and r.source_report.figures[0].printed == "100"
    doc = json.loads(snap.read_text("utf-8"))
    rows = _view(out / "caveman-judged-fidelity-caveman.json")["fidelity"]["arm_rows"]
    assert tuple(rows[2]) == _count(doc, "caveman") == ("with skill", "21 / 21", "100%", "100%")


def _built(shared: Path) -> dict[str, Any]:
    """902028f's snapshot with a baseline arm added and failures worked in by hand: caveman
    fails the first fact of the TCP/UDP prompt (fidelity printed 50.0) and misses the verbatim
    token UDP; the baseline passes everything but the rebase prompt's third fact (66.7)."""
    snap, _, _ = _paths(shared, "pr579-902028f")
    doc = json.loads(snap.read_text("utf-8"))
    base = copy.deepcopy(doc["fidelity"]["caveman"])
    doc["fidelity"] = {"__baseline__": base, **doc["fidelity"]}
    tcp = doc["fidelity"]["caveman"]["What's the difference between TCP and UDP?"]
    tcp.update(fidelity=50.0, verbatim_ok=False, verbatim_missing=["UDP"])
    tcp["facts"][0]["pass"] = False
    rebase = base["How does git rebase differ from git merge?"]
    rebase["fidelity"] = 66.7
    rebase["facts"][2]["pass"] = False
    return doc


def _imported(tmp_path: Path, doc: dict, skills: Path, rubrics: Path) -> Path:
    """The receipt ``import caveman`` writes from the judged snapshot ``doc``."""
    snap = tmp_path / "fidelity.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "r"
    result = _cli(
        [str(snap), "--skills", str(skills), "--rubrics", str(rubrics), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out / "caveman-judged-fidelity-caveman.json"


def test_built_failures_worked_by_hand(shared: Path, tmp_path: Path) -> None:
    _, rubrics, skills = _paths(shared, "pr579-902028f")
    doc = _built(shared)
    path = _imported(tmp_path, doc, skills, rubrics)
    r = read_receipt(path)
    assert r.arms.baseline is not None and r.arms.baseline.recorded is True
    assert r.arms.baseline.label == "__baseline__"
    f = _view(path)["fidelity"]
    tcp_fact = doc["fidelity"]["caveman"]["What's the difference between TCP and UDP?"]["facts"]
    rebase_fact = doc["fidelity"]["__baseline__"]["How does git rebase differ from git merge?"]
    # caveman: 20 of 21 facts (95.2%), mean (9 x 100 + 50) / 10 = 95.0; baseline: 20 of 21,
    # mean (9 x 100 + 66.7) / 10 = 96.67; each in whole percent
    assert f["arm_rows"] == [
        ["baseline", "20 / 21", "95%", "97%"],
        ["control", "not recorded", "not recorded", "not recorded"],
        ["with skill", "20 / 21", "95%", "95%"],
    ]
    assert tuple(f["arm_rows"][0]) == _count(doc, "__baseline__")
    assert tuple(f["arm_rows"][2]) == _count(doc, "caveman")
    assert f["failures"] == [
        f'baseline · p09: failed fact "{rebase_fact["facts"][2]["fact"]}"',
        f'with skill · p03: failed fact "{tcp_fact[0]["fact"]}"; failed verbatim',
    ]
    assert r.source_report is not None
    missing = [f for f in r.source_report.figures if f.label == "verbatim missing"]
    assert [(m.case, m.arm, m.value, m.printed) for m in missing] == [
        ("p03", "with_skill", 1, "UDP")
    ]
    text = sheet_text(sheet(r, path=path))
    assert "Fidelity as judged by the source's grader" in text and "By category" not in text


def test_provenance_is_cut_to_the_receipt_limits_as_other_importers_cut_it(
    tmp_path: Path,
) -> None:
    # a placeholder model padded to the 200 characters metadata allows: its unrecorded line is
    # cut to 200 characters by the shared provenance helper and the receipt writes
    doc = small_snapshot()
    doc["metadata"]["model"] = " " * 193 + "default"
    snap, skills = write_snapshot(tmp_path, doc)
    (path,) = write_imported(get_importer("caveman")(snap, skills_dir=skills), tmp_path / "out")
    r = read_receipt(path)
    assert r.provenance is not None
    (line,) = [u for u in r.provenance.unrecorded if u.startswith("model:")]
    assert len(line) == 200 and line.startswith('model: the snapshot records "   ')


def test_long_source_note_is_cut_to_the_receipt_limit(shared: Path, tmp_path: Path) -> None:
    # the snapshot's note may hold 4000 characters, a receipt note 1000: the shared provenance
    # helper cuts it, as it does for every other importer, to its first 999 and a mark of the
    # cut (round 14: it was cut to 1000, saying nothing)
    snap0, rubrics, skills = _paths(shared, "pr579-902028f")
    doc = json.loads(snap0.read_text("utf-8"))
    doc["metadata"]["note"] = "n" * 3000
    r = read_receipt(_imported(tmp_path, doc, skills, rubrics))
    assert r.provenance is not None and r.provenance.notes is not None
    assert r.provenance.notes[1] == ("the source's note: " + "n" * 3000)[:999] + "…"


# --- refusals: file, pointer, expectation; nothing written ------------------------------------

TCP = "What's the difference between TCP and UDP?"
MEMO = "Why does my React component re-render every time the parent updates?"


def _cell(doc: dict[str, Any], prompt: str = TCP) -> dict[str, Any]:
    cell: dict[str, Any] = doc["fidelity"]["caveman"][prompt]
    return cell


def _at(*parts: Any) -> str:
    return pointer(["fidelity", "caveman", *parts])


NEW_RUBRIC = {"prompt": "New?", "risk": "normal", "facts": ["x"], "verbatim": []}
REFUSED: list[tuple[str, Any, str, str]] = [
    # judge.py --runs N calls the judge N times per answer: none, fewer or a fraction is no run
    ("runs 0", lambda d, r: d["metadata"].update(runs=0), "snap", "/metadata/runs"),
    ("runs -1", lambda d, r: d["metadata"].update(runs=-1), "snap", "/metadata/runs"),
    ("runs 1.5", lambda d, r: d["metadata"].update(runs=1.5), "snap", "/metadata/runs"),
    ("no facts", lambda d, r: _cell(d).update(facts=[]), "snap", _at(TCP, "facts")),
    ("grader", lambda d, r: d["metadata"].update(judge_model=""), "snap", "/metadata/judge_model"),
    ("unknown", lambda d, r: _cell(d).update(score=1), "snap", _at(TCP, "score")),
    (
        "pass",
        lambda d, r: _cell(d)["facts"][0].update({"pass": "yes"}),
        "snap",
        _at(TCP, "facts", 0),
    ),
    ("percent", lambda d, r: _cell(d).update(fidelity=120), "snap", _at(TCP, "fidelity")),
    # TCP: fidelity 100.0 over its 2 facts, both passed; 50 says one failed
    ("share", lambda d, r: _cell(d).update(fidelity=50), "snap", _at(TCP, "fidelity")),
    (
        "failed",
        lambda d, r: _cell(d)["facts"][0].update({"pass": False}),
        "snap",
        _at(TCP, "fidelity"),
    ),
    (
        "verbatim",
        lambda d, r: _cell(d).update(verbatim_missing=["UDP"]),
        "snap",
        _at(TCP, "verbatim_ok"),
    ),
    (
        "fact text",
        lambda d, r: r["rubrics"][2]["facts"].__setitem__(1, "x"),
        "snap",
        _at(TCP, "facts", 1, "fact"),
    ),
    ("fact count", lambda d, r: r["rubrics"][2]["facts"].append("x"), "snap", _at(TCP, "facts")),
    ("risk", lambda d, r: r["rubrics"][2].update(risk="high"), "snap", _at(TCP, "risk")),
    (
        "token",
        lambda d, r: _cell(d, MEMO).update(verbatim_ok=False, verbatim_missing=["x"]),
        "snap",
        _at(MEMO, "verbatim_missing", 0),
    ),
    ("prompt", lambda d, r: r["rubrics"][2].update(prompt="TCP or UDP?"), "snap", _at(TCP)),
    ("rubric", lambda d, r: r["rubrics"].append(NEW_RUBRIC), "rubrics", "/rubrics/10/prompt"),
]


@pytest.mark.parametrize(("name", "edit", "file", "where"), REFUSED, ids=[x[0] for x in REFUSED])
def test_refusals(
    shared: Path, tmp_path: Path, name: str, edit: Any, file: str, where: str
) -> None:
    snap0, rubrics0, skills = _paths(shared, "pr579-902028f")
    doc, rub = json.loads(snap0.read_text("utf-8")), json.loads(rubrics0.read_text("utf-8"))
    edit(doc, rub)
    snap, rubrics = tmp_path / "fidelity.json", tmp_path / "rubrics.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    rubrics.write_text(json.dumps(rub), encoding="utf-8")
    out = tmp_path / "r"
    result = _cli(
        [str(snap), "--skills", str(skills), "--rubrics", str(rubrics), "--out", str(out)]
    )
    assert isinstance(result.exception, ImportError_), result.output
    (p,) = result.exception.problems
    assert (p.file, p.pointer) == (str(snap if file == "snap" else rubrics), where)
    assert "expected" in p.message
    assert not out.exists()


def test_rubrics_with_a_results_snapshot_refused(shared: Path, tmp_path: Path) -> None:
    results = shared / "data/caveman/evals/snapshots/results.json"
    _, rubrics, skills = _paths(shared, "pr579-902028f")
    out = tmp_path / "r"
    result = _cli(
        [str(results), "--skills", str(skills), "--rubrics", str(rubrics), "--out", str(out)]
    )
    assert isinstance(result.exception, ImportError_)
    assert [(p.file, p.pointer) for p in result.exception.problems] == [(str(results), "")]
    assert not out.exists()


def test_interop_page_says_the_judged_snapshots_are_read() -> None:
    page = (Path(__file__).resolve().parents[2] / "site_src" / "interop.md").read_text("utf-8")
    section = page.split("## caveman evals snapshots", 1)[1].split("\n## ", 1)[0]
    assert "they are refused" not in section
    # judge.py --runs N over 1 is read (each fact's majority verdict), not refused
    assert "`metadata.runs` other than" not in section
    assert "a fact's `pass` is the majority of those N verdicts" in section
    for words in (
        "[--cases prompts/fidelity.json | --rubrics prompts/rubrics.json]",
        "they are read as that kind, and Report 5 shows their pass\nrates.",
        "no public length snapshot has a `usage` block.",
        "| judged snapshot: arms |",
    ):
        assert words in section


def test_a_fidelity_its_facts_contradict_names_both(shared: Path, tmp_path: Path) -> None:
    """TCP's cell: 2 facts, one now failed, so 50%; the cell still prints 100.0."""
    snap0, _, skills = _paths(shared, "pr579-902028f")
    doc = json.loads(snap0.read_text("utf-8"))
    _cell(doc)["facts"][1]["pass"] = False
    snap = tmp_path / "fidelity.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    result = _cli([str(snap), "--skills", str(skills), "--out", str(tmp_path / "r")])
    assert isinstance(result.exception, ImportError_), result.output
    (p,) = result.exception.problems
    assert p.pointer == _at(TCP, "fidelity")
    assert p.message.startswith("expected 50, the percentage of its 2 facts judged passed (1)")


def test_runs_n_is_each_facts_majority_of_n_judge_calls(shared: Path, tmp_path: Path) -> None:
    """judge.py (PR #579 @ 41a3fd5) ``--runs 3`` writes ``"runs": 3`` and one majority-voted
    pass per fact (``judge_facts``); 902028f's snapshot as that run would write it."""
    snap0, rubrics, skills = _paths(shared, "pr579-902028f")
    doc = json.loads(snap0.read_text("utf-8"))
    assert doc["metadata"]["runs"] == 1
    doc["metadata"]["runs"] = 3
    snap = tmp_path / "fidelity.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "r"
    args = [str(snap), "--skills", str(skills), "--rubrics", str(rubrics), "--out", str(out)]
    result = _cli(args)
    assert result.exit_code == 0, result.output
    r = read_receipt(out / "caveman-judged-fidelity-caveman.json")
    assert r.provenance is not None and r.provenance.notes is not None
    assert r.provenance.details["runs"] == 3
    assert any(
        n.startswith("each fact's pass is the majority verdict of the judge's 3 calls")
        for n in r.provenance.notes
    )
    assert "the judge's 3 verdicts per fact behind each majority" in r.provenance.unrecorded
    # one check per fact, as with runs 1: 9 prompts x 2 facts + 3 for the rebase prompt = 21
    assert sum(len(c.arms.with_skill.draws[0].checks) - 1 for c in r.cases) == 21


def test_an_unknown_member_is_refused_in_the_words_of_the_results_snapshot(
    shared: Path, tmp_path: Path
) -> None:
    # Found: the judged reader refused a member it does not know by its own rule and words,
    # which did not name the member found
    snap0, rubrics, skills = _paths(shared, "pr579-902028f")
    doc = json.loads(snap0.read_text("utf-8"))
    _cell(doc).update(score=1)
    snap = tmp_path / "fidelity.json"
    snap.write_text(json.dumps(doc), encoding="utf-8")
    result = _cli(
        [
            str(snap),
            "--skills",
            str(skills),
            "--rubrics",
            str(rubrics),
            "--out",
            str(tmp_path / "r"),
        ]
    )
    (p,) = result.exception.problems
    assert p.pointer == _at(TCP, "score")
    assert p.message.startswith("expected only the members caveman writes here (")
    assert p.message.endswith('), found "score"')
