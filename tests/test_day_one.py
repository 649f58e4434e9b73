"""Issue 16, day one for a skill author: each friction the issue names, as a test that fails on
the behaviour it reports (no clobbering, the simulated provider, stale from the receipt alone,
one validation path, lifts over the same cases, diff rows, plan's minimum, caveman's arms and
languages, the public site refusing simulated receipts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from day_one_helpers import run_args, write_files  # noqa: E402
from factories import SHARED, run_main  # noqa: E402
from receipt_docs import body_of  # noqa: E402

from driftproof.receipt import read_receipt, sha256_text, write_receipt  # noqa: E402


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_files(tmp_path)


# ---- no clobbering ----------------------------------------------------------------------------


def test_a_second_run_does_not_replace_the_receipt(files, tmp_path, capsys):
    out = tmp_path / "receipt.json"
    assert run_main(run_args(*files, out), capsys)[0] == 0
    before = out.read_bytes()
    code, _, err = run_main(run_args(*files, out), capsys)
    assert code == 2
    assert (
        f"error: --out {out} already exists; it was not replaced. Choose another path, or give "
        "--force" in err
    )
    assert out.read_bytes() == before
    assert run_main(run_args(*files, out, "--force"), capsys)[0] == 0


def test_an_out_whose_folder_does_not_exist_is_named_as_such(files, tmp_path, capsys):
    out = tmp_path / "missing" / "receipt.json"
    code, _, err = run_main(run_args(*files, out), capsys)
    assert code == 2
    assert f"--out {out}: the folder {out.parent} does not exist" in err
    assert "journal" not in err


def test_an_out_dir_that_does_not_exist_is_made_as_the_readme_says(tmp_path, capsys):
    # import and badge write several files into --out-dir and make it; only an --out file's
    # missing folder is refused (the README said only badge makes its folder)
    example = {
        "format": "driftproof-summary-json",
        "format_version": "1",
        "harness": {"name": "h", "version": None},
        "skill": {"name": "s"},
        "cases": [
            {"id": "c1", "arms": {"with_skill": [{"lost": "x"}], "baseline": [{"lost": "x"}]}}
        ],
    }
    src = tmp_path / "summary.json"
    src.write_text(json.dumps(example), encoding="utf-8")
    out_dir = tmp_path / "missing" / "deeper"
    code, said, err = run_main(
        ["import", "summary-json", str(src), "--out-dir", str(out_dir)], capsys
    )
    assert code == 0, err
    (made,) = out_dir.iterdir()
    read_receipt(made)
    badges = tmp_path / "also" / "missing"
    assert run_main(["badge", str(made), "--out-dir", str(badges)], capsys)[0] == 0
    assert len(list(badges.iterdir())) == 3
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert "(`badge` makes it)" not in text
    assert (
        "while `import` and `badge` make an `--out-dir` that does not exist, with any folders "
        "above it"
    ) in text


@pytest.mark.parametrize("tail", ["/", "/.", "/.."])
def test_an_out_that_names_a_folder_is_refused_by_every_command(files, tmp_path, capsys, tail):
    # Path("rdir/") is Path("rdir"): run wrote its receipt as a file named rdir, export
    # printed "wrote newdir"; the text as typed names a folder, so nothing is written
    r = tmp_path / "r.json"
    assert run_main(run_args(*files, r, "--keep-transcripts"), capsys)[0] == 0
    given = f"{tmp_path / 'rdir'}{tail}"
    for argv in (
        [*run_args(*files, r)[:-1], given],  # run_args ends with --out r
        ["export", "summary-json", str(r), "--out", given],
        ["export", "summary-json", str(r), "-o", given],
        ["regrade", str(r), "--rubric", str(files[0]), "--out", given],
    ):
        code, _, err = run_main(argv, capsys)
        assert (code, err) == (
            2,
            f"error: --out {given}: --out names a file, not a folder (nothing was written)\n",
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(f.name for f in files), "r.json", "r.json.transcripts.jsonl"]
    )


@pytest.mark.parametrize("given", ["", " ", "sub/  "])
def test_an_out_that_names_no_file_is_refused(files, tmp_path, capsys, given):
    # "--out ' '" wrote a receipt named with one space; "--out ''" said it named a folder
    r = tmp_path / "r.json"
    assert run_main(run_args(*files, r), capsys)[0] == 0
    code, _, err = run_main(["export", "summary-json", str(r), "--out", given], capsys)
    assert (code, err) == (
        2,
        f"error: --out {given!r}: expected a file name, found none (nothing was written)\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*(f.name for f in files), "r.json"]
    )


def test_export_and_regrade_refuse_an_existing_output(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(run_args(*files, out, "--keep-transcripts"), capsys)[0] == 0
    taken = tmp_path / "taken.json"
    taken.write_text("{}")
    # a stub run's receipt is not exported (summary-json cannot say it is a stub's): an import
    name = "claude-plugin-eval-probe-plugin-8955eb63.json"
    src = str(Path(__file__).parents[1] / "receipts" / name)
    code, _, err = run_main(["export", "summary-json", src, "--out", str(taken)], capsys)
    assert code == 2 and f"--out {taken} already exists" in err and taken.read_text() == "{}"
    assert run_main(["export", "summary-json", src, "--out", str(taken), "--force"], capsys)[0] == 0
    assert json.loads(taken.read_text()) != {}
    taken.write_text("{}")
    code, _, err = run_main(
        ["regrade", str(out), "--rubric", str(files[0]), "--out", str(taken)], capsys
    )
    assert code == 2 and f"--out {taken} already exists" in err and taken.read_text() == "{}"


def test_a_refusal_of_many_existing_outputs_names_ten_and_counts_the_rest(tmp_path):
    # report 002's command, run as printed, refused its 343 receipts in one 18,373-character line
    from driftproof.errors import RefusalError
    from driftproof.outputs import refuse_existing_outputs

    files = [tmp_path / f"r{i:02}.json" for i in range(12)]
    for f in files:
        f.write_text("{}")
    with pytest.raises(RefusalError) as e:
        refuse_existing_outputs(files, "--out-dir", force=False)
    named = ", ".join(str(f) for f in files[:10])
    assert str(e.value) == (
        f"--out-dir: 12 files already exist and were not replaced: {named} and 2 more; choose "
        "another folder, or give --force to replace them"
    )


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
    for p in written:  # the same bytes again are no conflict (a killed import's rerun): others
        p.write_bytes(p.read_bytes() + b"\n")
    before = [p.read_bytes() for p in written]
    code, _, err = run_main(argv, capsys)
    assert (
        code == 2 and f"--out-dir: {len(written)} files already exist and were not replaced" in err
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
                run_args(*files, out)[:7] + ["simulated", "--out", str(out), "--concurrency", "1"],
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
    from driftproof.run.providers.base import AttemptError, DrawId
    from driftproof.run.providers.simulated import SimulatedProvider

    lane = SimulatedProvider(seed=1, lose={(sha256_text("p"), None, 2): "simulated timeout"})
    # the second draw (index 1) is lost, however many calls came before (issue 33, item 6)
    for _ in range(2):
        lane.call(
            model="m", system=None, prompt="p", timeout=1, max_tokens=10, draw=DrawId("c", "b", 0)
        )
    with pytest.raises(AttemptError) as ei:
        lane.call(
            model="m", system=None, prompt="p", timeout=1, max_tokens=10, draw=DrawId("c", "b", 1)
        )
    assert ei.value.reason == "simulated timeout" and not ei.value.retryable


def test_simulated_tokens_are_counted_as_the_skill_is(files, tmp_path, capsys):
    # ceil(characters / 4), as skill.tokens (D-14); they were words, so the with-skill input
    # exceeded the baseline's by 6 words of a skill of 8 tokens (a skill that looked cut off)
    out = tmp_path / "r.json"
    argv = run_args(*files, out)[:7] + ["simulated", "--out", str(out), "--concurrency", "1"]
    assert run_main(argv, capsys)[0] == 0
    r = read_receipt(out)
    # "---\nname: terse\n---\nBe terse.\n": 30 characters -> 8; "Question A?": 11 -> 3
    assert r.skill.tokens == 8
    # the answer: "Simulated answer (draw N) to: " (30) + the prompt (11) + "\n" (1) + "No model
    # wrote this; its quality was drawn at random. " (54) + "[simulated quality 0.xxxx]" (26)
    # = 122 characters -> 31 (draw 10 adds a character: 123, still 31)
    for c in r.cases:
        for arm, given in (("with_skill", 3 + 8), ("baseline", 3)):
            assert {(d.tokens.input, d.tokens.output) for d in getattr(c.arms, arm).draws} == {
                (given, 31)
            }
    assert (r.arms.with_skill.input_tokens_median, r.arms.baseline.input_tokens_median) == (11, 3)


def test_the_simulated_judge_counts_its_tokens_as_the_skill_is():
    from driftproof.run.providers.base import DrawId
    from driftproof.run.providers.simulated import SimulatedProvider

    prompt = "<answer>[simulated quality 0.5000]</answer>\n<rubric>r</rubric>"  # 62 characters
    reply = SimulatedProvider(judge_spread=0.0).call(
        model="j", system=None, prompt=prompt, timeout=1, max_tokens=100, draw=DrawId("c", "b", 0)
    )
    # '{"score": 0.5, "reason": "simulated judge around quality 0.50"}': 63 characters -> 16
    assert json.loads(reply.text)["score"] == 0.5
    assert (reply.input_tokens, reply.output_tokens) == (16, 16)


# ---- stale from the receipt alone ------------------------------------------------------------


def test_stale_still_stands_with_no_template_file(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(run_args(*files, out, "--keep-transcripts"), capsys)[0] == 0
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
    assert code == 0 and text.startswith("with skill: still stands\nbaseline: still stands\n")
    # a template edited outside the product still goes through --judge-template
    tpl = tmp_path / "template.txt"
    tpl.write_text("my own judge prompt")
    code, text, _ = run_main(argv + ["--judge-template", str(tpl)], capsys)
    assert code == 1 and "with skill: regrade only (judge prompt template" in text


def test_stale_reads_a_recorded_template_that_moved_as_regrade_only(files, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert run_main(run_args(*files, out, "--keep-transcripts"), capsys)[0] == 0
    doc = json.loads(out.read_text())
    doc["judge"]["template_sha256"] = "a" * 64  # made by an older template
    doc.pop("seal")
    moved = tmp_path / "old.json"
    write_receipt(body_of(doc), moved)
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
    assert code == 1 and text.startswith("with skill: regrade only")
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
    assert out.count("driftproof run") == 2  # the case's line and the status line, once each
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


def test_a_receipt_given_as_the_suite_is_named_as_such(tmp_path, capsys):
    p = tmp_path / "r.json"  # a receipt's top members, as a newcomer's `run first.json` gave
    p.write_text(
        json.dumps({"schema_version": "0.16", "verification_level": "TESTED", "cases": []})
    )
    code, _, err = run_main(["suite", "check", str(p)], capsys)
    assert code == 2
    assert f"{p}: expected a suite (driftproof-suite/1), found a Driftproof receipt" in err


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


def test_a_simulated_run_with_draws_draws_each_arm_exactly_that_often(files, tmp_path, capsys):
    # the stopping rule stops an arm at 3 to 10 draws; --draws 12 draws every arm 12 times
    out = tmp_path / "r.json"
    argv = run_args(*files, out)[:7] + ["simulated", "--out", str(out), "--draws", "12"]
    assert run_main(argv, capsys)[0] == 0
    r = read_receipt(out)
    assert {len(a.draws) for c in r.cases for a in (c.arms.with_skill, c.arms.baseline)} == {12}
    assert r.run.generations_per_arm == 12


def test_a_receipt_that_cannot_be_built_leaves_the_journal_and_no_transcripts(
    files, tmp_path, capsys, monkeypatch
):
    # building the receipt failing after the transcripts were written left them unsealed beside
    # an unclosed journal; now, as when writing it fails, the journal stays and they go
    import driftproof.run.engine as engine

    def broken(*_a: object, **_k: object) -> None:
        raise ValueError("a receipt no model takes")

    monkeypatch.setattr(engine, "receipt_body", broken)
    out = tmp_path / "r.json"
    argv = run_args(*files, out)[:7] + ["simulated", "--out", str(out), "--keep-transcripts"]
    with pytest.raises(ValueError, match="a receipt no model takes"):
        run_main(argv, capsys)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("r.json")) == [
        "r.json.journal"
    ]


def test_a_simulated_runs_regrade_by_its_own_judge_and_rubric_gives_the_runs_samples(
    files, tmp_path, capsys
):
    # the simulated judge seeds each judge sample from its call's identity (case, arm, draw,
    # sample), as run identifies it; regrade called it with none, so a draw's five samples were
    # one score five times. The same answers, rubric and seeded judge grade as the run did.
    suite, _skill = files
    out, rg = tmp_path / "r.json", tmp_path / "rg.json"
    argv = run_args(*files, out)[:7] + ["simulated", "--out", str(out), "--keep-transcripts"]
    assert run_main(argv, capsys)[0] == 0
    assert run_main(["regrade", str(out), "--rubric", str(suite), "--out", str(rg)], capsys)[0] == 0

    def samples(path: Path) -> list[list[float | None]]:
        r = read_receipt(path)
        return [[s.score for s in d.judge_samples] for _, _, _, d in r.draws_at()]

    ran, regraded = samples(out), samples(rg)
    assert any(len(set(s)) > 1 for s in ran)  # the run's samples of a draw differ
    assert regraded == ran
