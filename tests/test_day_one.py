"""Issue 16, day one for a skill author: each friction the issue names, as a test that fails on
the behaviour it reports (no clobbering, the simulated provider, stale from the receipt alone,
one validation path, lifts over the same cases, diff rows, plan's minimum, caveman's arms and
languages, the public site refusing simulated receipts)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from factories import SHARED, case, make_receipt, run_main  # noqa: E402

from driftproof.receipt import read_receipt, sha256_text, write_receipt  # noqa: E402
from driftproof.run.providers.base import Provider, Reply  # noqa: E402

SUITE = {
    "format": "driftproof-suite/1",
    "name": "two",
    "language": "en",
    "cases": [
        {
            "id": "a",
            "prompt": "Question A?",
            "rubric": "Score 1 for a right answer.",
            "translations": {"pt": "Pergunta A?"},
        },
        {
            "id": "b",
            "prompt": "Question B?",
            "rubric": "Score 1 for a right answer.",
            "translations": {"pt": "Pergunta B?"},
        },
    ],
}
SKILL = "---\nname: terse\n---\nBe terse.\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    suite, skill = tmp_path / "suite.json", tmp_path / "SKILL.md"
    suite.write_text(json.dumps(SUITE))
    skill.write_text(SKILL)
    return suite, skill


def _run(suite: Path, skill: Path, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        str(suite),
        "--skill",
        str(skill),
        "--model",
        "m",
        "--provider",
        "stub",
        "--out",
        str(out),
        *extra,
    ]


# ---- no clobbering ----------------------------------------------------------------------------


def test_a_second_run_does_not_replace_the_receipt(files, tmp_path, capsys):
    out = tmp_path / "receipt.json"
    assert run_main(_run(*files, out), capsys)[0] == 0
    before = out.read_bytes()
    code, _, err = run_main(_run(*files, out), capsys)
    assert code == 2
    assert (
        f"error: --out {out} already exists; it was not replaced. Choose another path, or give "
        "--force" in err
    )
    assert out.read_bytes() == before
    assert run_main(_run(*files, out, "--force"), capsys)[0] == 0


def test_an_out_whose_folder_does_not_exist_is_named_as_such(files, tmp_path, capsys):
    out = tmp_path / "missing" / "receipt.json"
    code, _, err = run_main(_run(*files, out), capsys)
    assert code == 2
    assert f"--out {out}: the folder {out.parent} does not exist" in err
    assert "journal" not in err


def test_export_and_regrade_refuse_an_existing_output(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(_run(*files, out, "--keep-transcripts"), capsys)[0] == 0
    taken = tmp_path / "taken.json"
    taken.write_text("{}")
    code, _, err = run_main(["export", "summary-json", str(out), "--out", str(taken)], capsys)
    assert code == 2 and f"--out {taken} already exists" in err and taken.read_text() == "{}"
    assert (
        run_main(["export", "summary-json", str(out), "--out", str(taken), "--force"], capsys)[0]
        == 0
    )
    assert json.loads(taken.read_text()) != {}
    taken.write_text("{}")
    code, _, err = run_main(
        ["regrade", str(out), "--rubric", str(files[0]), "--out", str(taken)], capsys
    )
    assert code == 2 and f"--out {taken} already exists" in err and taken.read_text() == "{}"


def test_import_refuses_existing_receipts_and_out_dir_names_the_folder(tmp_path, capsys):
    snap = SHARED / "data/caveman/evals/snapshots/results.json"
    if not snap.is_file():
        pytest.skip(f"shared data not found at {snap}")
    argv = [
        "import",
        "caveman",
        str(snap),
        "--skills",
        str(SHARED / "data/caveman/at-snapshot-2b10489/skills"),
        "--out-dir",
        str(tmp_path / "r"),
    ]
    code, out, err = run_main(argv, capsys)
    assert code == 0, err
    written = sorted((tmp_path / "r").iterdir())
    before = [p.read_bytes() for p in written]
    code, _, err = run_main(argv, capsys)
    assert (
        code == 2
        and f"--out-dir: {len(written)} file(s) already exist and were not replaced" in err
    )
    assert all(str(p) in err for p in written)
    assert [p.read_bytes() for p in written] == before
    assert run_main(argv + ["--force"], capsys)[0] == 0


# ---- the simulated provider -------------------------------------------------------------------


def test_simulated_draws_and_judge_samples_vary_and_are_repeatable(files, tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        assert (
            run_main(
                _run(*files, out)[:7] + ["simulated", "--out", str(out), "--concurrency", "1"],
                capsys,
            )[0]
            == 0
        )
    ra, rb = read_receipt(a), read_receipt(b)
    assert (ra.run.provider, ra.judge.provider, ra.verification_level) == (
        "simulated",
        "simulated",
        "UNVERIFIED",
    )
    scores = [d.score for c in ra.cases for d in c.arms.with_skill.draws]
    assert len(set(scores)) > 1  # the stub gives one score for every draw
    samples = {s.score for d in ra.cases[0].arms.baseline.draws for s in d.judge_samples}
    assert len(samples) > 1
    assert all(c.arms.with_skill.generation.sd > 0 for c in ra.cases)
    # seeded: the same command gives the same scores
    assert scores == [d.score for c in rb.cases for d in c.arms.with_skill.draws]


def test_simulated_lost_draw_and_criteria():
    from driftproof.run.providers.base import AttemptError
    from driftproof.run.providers.simulated import SimulatedProvider

    lane = SimulatedProvider(seed=1, lose={(sha256_text("p"), None, 2): "simulated timeout"})
    lane.call(model="m", system=None, prompt="p", timeout=1, max_tokens=10)
    with pytest.raises(AttemptError) as ei:
        lane.call(model="m", system=None, prompt="p", timeout=1, max_tokens=10)
    assert ei.value.reason == "simulated timeout" and not ei.value.retryable


# ---- stale from the receipt alone ------------------------------------------------------------


def test_stale_still_stands_with_no_template_file(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(_run(*files, out), capsys)[0] == 0
    r = read_receipt(out)
    from driftproof.run.judge import TEMPLATE_VERSION, template_sha256

    assert (r.judge.template_sha256, r.judge.template_version) == (
        template_sha256(),
        TEMPLATE_VERSION,
    )
    argv = [
        "stale",
        str(out),
        "--skill",
        str(files[1]),
        "--suite",
        str(files[0]),
        "--model",
        "m",
        "--judge-model",
        "stub-judge",
    ]
    code, text, _ = run_main(argv, capsys)
    assert code == 0 and text.startswith("with_skill: still stands\nbaseline: still stands\n")
    # a template edited outside the product still goes through --judge-template
    tpl = tmp_path / "template.txt"
    tpl.write_text("my own judge prompt")
    code, text, _ = run_main(argv + ["--judge-template", str(tpl)], capsys)
    assert code == 1 and "with_skill: regrade only (judge prompt template" in text


def test_stale_reads_a_recorded_template_that_moved_as_regrade_only(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(_run(*files, out), capsys)[0] == 0
    doc = json.loads(out.read_text())
    doc["judge"]["template_sha256"] = "a" * 64  # made by an older template
    doc.pop("seal")
    moved = tmp_path / "old.json"
    write_receipt(doc, moved)
    code, text, _ = run_main(
        [
            "stale",
            str(moved),
            "--skill",
            str(files[1]),
            "--suite",
            str(files[0]),
            "--model",
            "m",
            "--judge-model",
            "stub-judge",
        ],
        capsys,
    )
    assert code == 1 and text.startswith("with_skill: regrade only")
    from driftproof.run.judge import TEMPLATE_VERSION

    v = TEMPLATE_VERSION
    assert (
        f"the judge's instructions changed: regrade the saved answers (template version {v} "
        f"recorded, {v} today)" in text
    )


# ---- one validation path ----------------------------------------------------------------------


def test_suite_check_refuses_what_run_refuses(tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_text(
        json.dumps({"format": "driftproof-suite/1", "cases": [{"id": "a", "prompt": "p"}]})
    )
    code, out, _ = run_main(["suite", "check", str(p)], capsys)
    assert code == 1
    assert f"{p}: /cases/0: case 'a' has neither a rubric nor criteria" in out
    assert "ok" not in out.split("\n")[-2]
    assert (
        run_main(
            [
                "run",
                str(p),
                "--skill",
                str(p),
                "--model",
                "m",
                "--provider",
                "stub",
                "--out",
                str(tmp_path / "r.json"),
            ],
            capsys,
        )[0]
        == 2
    )


def test_a_suite_without_format_is_named_as_such(tmp_path, capsys):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"cases": [{"id": "a", "prompt": "p", "rubric": "r"}]}))
    code, _, err = run_main(["suite", "check", str(p)], capsys)
    assert code == 2
    assert (
        f'{p}: /format: missing: a Driftproof suite starts with "format": "driftproof-suite/1"'
        in err
    )
    assert "must_include" in err  # and why it was not read as caveman's


# ---- lifts over the same cases ---------------------------------------------------------------


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    # A: both cases measured, lifts +0.2 and +0.2. B: case y's with-skill draws all lost.
    a = make_receipt(
        [case("x", [0.7, 0.7, 0.7], [0.5, 0.5, 0.5]), case("y", [0.8, 0.8, 0.8], [0.6, 0.6, 0.6])]
    )
    b = make_receipt(
        [
            case("x", [0.7, 0.7, 0.7], [0.5, 0.5, 0.5]),
            case("y", [None, None, None], [0.2, 0.2, 0.2]),
        ]
    )
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return pa, pb


def test_action_compares_lifts_over_common_cases(tmp_path, monkeypatch):
    from driftproof.action import main

    pa, pb = _pair(tmp_path)
    out, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    main(["--baseline", str(pa), "--receipt", str(pb)])
    lines = out.read_text().splitlines()
    # name<<delimiter / value / delimiter blocks
    blocks = {lines[i].split("<<")[0]: lines[i + 1] for i in range(len(lines)) if "<<" in lines[i]}
    lifts = {k: blocks[k] for k in ("lift", "baseline-lift")}
    # before: baseline-lift +0.200 and lift +0.400, as if the lift had doubled; case x alone is
    # common
    assert lifts == {"lift": "+0.200", "baseline-lift": "+0.200"}
    s = summary.read_text()
    assert (
        "over the 1 case both receipts measured in both arms (baseline receipt 2 of 2, new receipt "
        "1 of 2)" in s
    )


def test_diff_and_view_say_how_many_cases_a_lift_covers(tmp_path, capsys):
    pa, pb = _pair(tmp_path)
    code, out, _ = run_main(["diff", str(pa), str(pb)], capsys)
    assert (
        f"Lift (with skill − baseline), context: {pa} +0.200, {pb} +0.200, over the 1 case both "
        "receipts "
        "measured in both arms" in out
    )
    code, out, _ = run_main(["view", str(pb)], capsys)
    assert "+0.200 (over 1 of 2 cases: the other 1 has no measured draw in an arm)" in out


def test_a_sentence_never_calls_zero_draws_a_single_draw():
    from driftproof.receipt import parse_receipt
    from driftproof.stats import receipt_reading

    # x: no separation; y: every with-skill draw lost, so its arm has no measured draw (not one)
    doc = make_receipt(
        [case("x", [0.7, 0.72, 0.71], [0.7, 0.72, 0.71]), case("y", [None, None], [0.6, 0.62])]
    )
    r = parse_receipt(json.dumps(doc).encode(), "b.json")
    rd = receipt_reading(r)
    assert rd.status == "UNDERPOWERED"
    assert "an arm has no measured draw (y)" in rd.reason
    assert "single" not in rd.reason


# ---- diff rows and plan's minimum ------------------------------------------------------------


def test_diff_of_two_unverified_receipts_shows_every_row_under_the_reason(tmp_path, capsys):
    a = make_receipt(
        [
            case("x", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51]),
            case("y", [0.6, None, 0.62], [0.6, 0.6, 0.6]),
        ],
        level="UNVERIFIED",
    )
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(a))
    code, out, _ = run_main(["diff", str(pa), str(pb)], capsys)
    assert code == 2
    lines = out.splitlines()
    assert lines[1:3] == ["no verdict", f"{pa}: verification level UNVERIFIED is below TESTED"]
    row_x = next(ln for ln in lines if ln.startswith("x "))
    assert "0.710 ± 0.010" in row_x and "no verdict" in row_x and "3/3" in row_x
    row_y = next(ln for ln in lines if ln.startswith("y "))
    assert "0.610 ± 0.014" in row_y and "2/3" in row_y and "timeout after 2 retries" in row_y


def test_plan_never_recommends_fewer_draws_than_the_runs_minimum(tmp_path, capsys):
    from driftproof.plan import RUN_MIN_DRAWS
    from driftproof.run.scheduler import MIN_DRAWS

    assert RUN_MIN_DRAWS == MIN_DRAWS == 3
    # spreads 0.01 and 0.01: D-5 alone gives 2 draws per arm (cases/verdicts.json C1)
    p = tmp_path / "r.json"
    p.write_text(json.dumps(make_receipt([case("x", [0.60, 0.62, 0.61], [0.45, 0.46, 0.47])])))
    code, out, _ = run_main(["plan", str(p)], capsys)
    assert code == 0 and out.startswith("3 draws per arm resolve the 0.05 effect floor")
    assert "  x: 3 (pilot measured 3 with skill, 3 baseline)" in out


# ---- caveman's arms and languages ------------------------------------------------------------


class Recording(Provider):
    name, surface, makes_endpoint_attempts = "stub", None, False

    def __init__(self) -> None:
        self.systems: list[tuple[str | None, str]] = []

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        return {}

    channel = "final_verdict"
    sends_budget = False

    def call(
        self,
        *,
        model: str,
        system: str | None,
        prompt: str,
        timeout: float,
        max_tokens: int,
        schema: dict[str, Any] | None = None,
    ) -> Reply:
        if schema is not None or "<answer" in prompt:
            return Reply(
                '{"score": 0.5, "reason": "r"}', reported_model=model, channel="final_verdict"
            )
        self.systems.append((system, prompt))
        return Reply("An answer.", reported_model=model)


def test_control_arm_is_the_control_then_skill_md(files, tmp_path):
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.suite import load_suite

    lane = Recording()
    res = run_suite(
        load_suite(files[0]),
        skill_text=SKILL,
        skill_name="terse",
        cfg=RunConfig(model="m", judge_model="j", control="Answer concisely."),
        provider=lane,
        judge=Recording(),
        out=tmp_path / "r.json",
    )
    systems = {s for s, _ in lane.systems}
    assert systems == {
        None,
        "Answer concisely.",
        "Answer concisely.\n\n" + SKILL,
    }  # seed 004's three arms
    r = res.receipt
    assert (
        r.arms.with_skill.construction,
        r.arms.baseline.construction,
        r.arms.control.construction,
    ) == ("control_then_skill", "bare", "control")
    assert r.arms.control.instruction == "Answer concisely."
    assert r.arms.with_skill.system_prompt_sha256 == sha256_text("Answer concisely.\n\n" + SKILL)
    assert r.skill.sha256 == sha256_text(SKILL)  # the skill itself, as stale compares it


def test_lang_takes_translated_prompts_and_control(files, tmp_path, capsys):
    out = tmp_path / "pt.json"
    code, _, err = run_main(
        _run(*files, out, "--control", "Answer concisely.", "--lang", "pt"), capsys
    )
    assert code == 0, err
    r = read_receipt(out)
    assert r.run.language == "pt"
    assert [c.prompt for c in r.cases] == ["Pergunta A?", "Pergunta B?"]
    assert (
        r.arms.control.instruction == "Responda de forma concisa."
    )  # caveman's TERSE_PREFIXES["pt"]


def test_a_language_without_prompts_or_control_stops_before_any_call(files, tmp_path, capsys):
    out = tmp_path / "fr.json"
    code, _, err = run_main(_run(*files, out, "--lang", "fr"), capsys)
    assert code == 2
    assert f"{files[0]}: /cases/0/translations/fr: case 'a' has no prompt in 'fr'" in err
    assert not out.exists() and not Path(str(out) + ".journal").exists()
    doc = copy.deepcopy(SUITE)
    for c in doc["cases"]:
        c["translations"]["de"] = "Frage?"
    files[0].write_text(json.dumps(doc))
    code, _, err = run_main(
        _run(*files, out, "--lang", "de", "--control", "Answer concisely."), capsys
    )
    assert code == 2 and "no translated control for 'de'" in err and not out.exists()
    # the suite's own table supplies one
    doc["controls"] = {"Answer concisely.": {"de": "Antworte knapp."}}
    files[0].write_text(json.dumps(doc))
    code, _, err = run_main(
        _run(*files, out, "--lang", "de", "--control", "Answer concisely."), capsys
    )
    assert code == 0, err
    assert read_receipt(out).arms.control.instruction == "Antworte knapp."


def test_caveman_language_snapshot_records_its_language(tmp_path):
    from driftproof.importers.caveman import import_caveman

    src = SHARED / "data/caveman/evals/snapshots/results.json"
    if not src.is_file():
        pytest.skip(f"shared data not found at {src}")
    doc = json.loads(src.read_text())
    doc["metadata"]["lang"] = "pt"
    doc["metadata"]["terse_prefix"] = "Responda de forma concisa."
    snap = tmp_path / "results.pt.json"
    snap.write_text(json.dumps(doc, ensure_ascii=False))
    items = import_caveman(snap, skills_dir=SHARED / "data/caveman/at-snapshot-2b10489/skills")
    assert items and all(i.document["run"]["language"] == "pt" for i in items)
    assert all(i.filename.endswith("-pt.json") for i in items)
    doc["metadata"].pop("lang")  # the file name alone names it
    snap.write_text(json.dumps(doc, ensure_ascii=False))
    assert (
        import_caveman(snap, skills_dir=SHARED / "data/caveman/at-snapshot-2b10489/skills")[
            0
        ].document["run"]["language"]
        == "pt"
    )


# ---- the public site refuses simulated receipts ---------------------------------------------


def test_public_site_refuses_simulated_receipts(files, tmp_path, capsys):
    from driftproof.errors import SiteBuildError
    from driftproof.site.publish import load_inputs

    receipts = tmp_path / "receipts"
    receipts.mkdir()
    out = receipts / "sim.json"
    assert run_main(_run(*files, out)[:7] + ["simulated", "--out", str(out)], capsys)[0] == 0
    (tmp_path / "reports").mkdir()
    with pytest.raises(SiteBuildError) as ei:
        load_inputs(receipts, tmp_path / "reports")
    assert any(
        p.pointer == "/run/provider" and "refuses simulated receipts" in p.message
        for p in ei.value.problems
    )


def test_a_receipt_that_appears_during_the_run_is_not_replaced(files, tmp_path, monkeypatch):
    from driftproof.errors import RefusalError
    from driftproof.run.engine import RunConfig, run_suite
    from driftproof.run.providers.stub import StubProvider
    from driftproof.run.suite import load_suite

    out = tmp_path / "r.json"
    real = StubProvider.call

    def appear(self, **kw):  # type: ignore[no-untyped-def]
        if not out.exists():
            out.write_text("another run's receipt")
        return real(self, **kw)

    monkeypatch.setattr(StubProvider, "call", appear)
    with pytest.raises(RefusalError, match="appeared while the run went on; it was not replaced"):
        run_suite(
            load_suite(files[0]),
            skill_text=SKILL,
            skill_name="terse",
            cfg=RunConfig(model="m", judge_model="j"),
            provider=StubProvider(),
            judge=StubProvider(),
            out=out,
            replace=False,
        )
    assert out.read_text() == "another run's receipt"
    assert (tmp_path / "r.json.journal").is_file()  # the finished draws are kept
    assert not list(tmp_path.glob(".r.json.unchecked"))


def test_lang_of_the_suite_itself_still_translates_a_known_control(tmp_path):
    from driftproof.run.suite import in_language, load_suite

    doc = copy.deepcopy(SUITE)
    doc["language"] = "pt"
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    s = load_suite(p)
    suite, control = in_language(s, "pt", "Answer concisely.")
    assert [c.prompt for c in suite.cases] == [
        "Question A?",
        "Question B?",
    ]  # its own prompts, as written
    assert control == "Responda de forma concisa."  # never the English control on a pt run
    assert (
        in_language(s, "pt", "Seja breve.")[1] == "Seja breve."
    )  # no table knows it: taken as given
