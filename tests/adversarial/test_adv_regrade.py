"""Adversarial: ``driftproof regrade --out`` never lands on a file the regrade reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from day_one_helpers import run_args
from factories import run_main as run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "run"))
from run_helpers import SKILL_TEXT, SUITE  # noqa: E402


@pytest.fixture
def original(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL_TEXT, encoding="utf-8")
    receipt = tmp_path / "run.json"
    code, _, err = run(
        run_args(suite, skill, receipt, "--keep-transcripts"),
        capsys,
    )
    assert code == 0, err
    return receipt, suite


@pytest.mark.parametrize("target", ["transcripts", "suite", "symlink"])
def test_regrade_out_never_overwrites_its_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], original: tuple[Path, Path], target: str
) -> None:
    # Found: `driftproof regrade run.json --rubric suite.json --out run.json.transcripts.jsonl`
    # replaced the original's kept transcripts with the regrade receipt (exit 0), and
    # `--out suite.json` replaced the revised suite; only the original receipt's own path was
    # refused.
    receipt, suite = original
    transcripts = receipt.with_name(receipt.name + ".transcripts.jsonl")
    assert transcripts.exists()
    if target == "transcripts":
        out = transcripts
    elif target == "suite":
        out = suite
    else:
        out = tmp_path / "link.json"
        out.symlink_to(receipt)
    before = {p: p.read_bytes() for p in (receipt, suite, transcripts)}
    code, _, err = run(["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)], capsys)
    assert code == 2, err
    assert "must not overwrite" in err
    assert {p: p.read_bytes() for p in before} == before


def test_a_missing_judge_key_in_regrade_says_it_is_the_judges(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    original: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the regrade's judge is the only lane it calls: its missing key is named as the judge's,
    # with the option that chooses another judge lane, and nothing is written
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    receipt, suite = original
    out = tmp_path / "regraded.json"
    judge = ["--judge-provider", "anthropic", "--judge-model", "m"]
    args = ["regrade", str(receipt), "--rubric", str(suite), *judge, "--out", str(out)]
    code, _, err = run(args, capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: ANTHROPIC_API_KEY is not set; the judge's anthropic api lane needs it (set it in "
        "the environment, or choose another judge lane with --judge-provider)"
    ]
    assert not out.exists()


@pytest.mark.parametrize(
    ("price", "spent"),
    [
        ("1,5", "$0.0030"),
        # Found: a cost printed in full at any size, 298 digits here, where every other cost
        # reads in three figures from a billion: 2,000 and 200 tokens at $1e300 per million
        # each are 2e297 + 2e296 = $2.2e+297.
        ("1e300,1e300", "$2.2e+297"),
    ],
)
def test_ctrl_c_says_nothing_was_written_and_what_was_spent(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    price: str,
    spent: str,
) -> None:
    # Found: Ctrl-C printed only "interrupted"; a regrade keeps no journal, so every paid grade
    # was lost without a word. Two replies of 1,000 in and 100 out tokens each, then Ctrl-C:
    # 2,000 and 200 tokens at the recorded $1 and $5 per million: .002 + .001 = $0.0030.
    from driftproof.run.providers.base import Reply
    from driftproof.run.providers.simulated import StubProvider

    suite, skill = tmp_path / "suite.json", tmp_path / "SKILL.md"
    suite.write_text(json.dumps(SUITE), encoding="utf-8")
    skill.write_text(SKILL_TEXT, encoding="utf-8")
    receipt = tmp_path / "run.json"
    prices = ["--judge-price", price]
    code, _, err = run(run_args(suite, skill, receipt, "--keep-transcripts", *prices), capsys)
    assert code == 0, err
    answer, calls = StubProvider.attempt, []

    def attempt(self: StubProvider, call: object) -> Reply:
        calls.append(call)
        if len(calls) == 3:
            raise KeyboardInterrupt
        reply = answer(self, call)
        return Reply(
            reply.text,
            reported_model=reply.reported_model,
            raw=reply.raw,
            input_tokens=1000,
            output_tokens=100,
        )

    monkeypatch.setattr(StubProvider, "attempt", attempt)
    out = tmp_path / "regraded.json"
    code, _, err = run(["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)], capsys)
    assert (code, err.splitlines()) == (
        130,
        [
            "interrupted: nothing was written and no grade was kept (a regrade keeps no "
            "journal), so running it again starts over; spent before the stop: 2 judge replies, "
            f"2,000 input and 200 output tokens reported, about {spent} at the judge's recorded "
            "price"
        ],
    )
    assert not out.exists()


def test_a_revised_suite_refused_names_its_file_and_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], original: tuple[Path, Path]
) -> None:
    # Found: "rubric regrade refused: the revised tasks have no case 'drop-py38'" named neither
    # the --rubric file nor where in it. Here case 0 is dropped, case 1's prompt changed (now
    # case 0) and a new case appended (now case 2).
    receipt, _ = original
    doc = json.loads(json.dumps(SUITE))
    doc["cases"].pop(0)  # commit-429
    doc["cases"][0]["prompt"] += " Briefly."  # explain-429
    doc["cases"].append({**doc["cases"][-1], "id": "new-case"})
    revised = tmp_path / "revised.json"
    revised.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "g.json"
    code, _, err = run(
        ["regrade", str(receipt), "--rubric", str(revised), "--out", str(out)], capsys
    )
    assert code == 2 and not out.exists()
    assert err.splitlines() == [
        f"error: rubric regrade refused: {revised}: /cases: expected a case 'commit-429', as the "
        f"original answered it; the revised tasks have none; {revised}: /cases/0/prompt: "
        "case explain-429's prompt differs from the original's; a new prompt needs a new "
        f"run; {revised}: /cases/2: the revised tasks add cases the original never "
        "answered: new-case"
    ]


@pytest.mark.parametrize("force", [False, True])
def test_an_out_written_by_another_command_meanwhile_is_not_replaced_without_force(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    original: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    force: bool,
) -> None:
    # Found: two regrades at once on the same --out both passed the "already exists" check at
    # start; the one finishing last replaced the other's sealed receipt and both exited 0.
    # Here the other command's file lands at --out while the judge answers the first grade.
    from driftproof.run.providers.simulated import StubProvider

    receipt, suite = original
    out = tmp_path / "regraded.json"
    answer = StubProvider.attempt

    def attempt(self: StubProvider, call: object) -> object:
        if not out.exists():
            out.write_text("the other command's receipt\n", encoding="utf-8")
        return answer(self, call)

    monkeypatch.setattr(StubProvider, "attempt", attempt)
    args = ["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)]
    code, _, err = run(args + ["--force"] * force, capsys)
    if force:  # --force: replaced, as --help says
        assert code == 0, err
        assert json.loads(out.read_text(encoding="utf-8"))["regrade"]["kind"] == "rubric"
        return
    assert (code, err.splitlines()) == (
        2,
        [
            f"error: {out} appeared while the regrade went on; it was not replaced and the "
            "regrade's grades were not kept. Run the same command with --force to write over "
            "it, or choose another path"
        ],
    )
    assert out.read_text(encoding="utf-8") == "the other command's receipt\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_an_original_judge_scale_the_grader_does_not_score_on_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], original: tuple[Path, Path]
) -> None:
    # Found: an original whose judge records a 0-to-10 scale (its scores, 0.2 to 0.9, lie on
    # it, so a reader accepts it) was regraded on the 0-to-1 scale the grader scores on, and
    # the regrade's receipt recorded the original's judge, 0 to 10, over those grades (exit 0;
    # `validate` ok): a lost draw would be bounded by 10. Nothing may be asked of the judge.
    import shutil

    from driftproof.receipt import ReceiptBody, read_receipt, write_receipt

    receipt, suite = original
    doc = read_receipt(receipt).model_dump(mode="json", by_alias=True, exclude_unset=True)
    doc.pop("seal")
    doc["judge"]["scale"] = {"worst": 0.0, "best": 10.0, "step": 0.05}
    ten = tmp_path / "ten.json"
    write_receipt(ReceiptBody.model_validate(doc), ten)
    shutil.copy(
        receipt.with_name(receipt.name + ".transcripts.jsonl"),
        tmp_path / "ten.json.transcripts.jsonl",
    )
    out = tmp_path / "regraded.json"
    code, _, err = run(["regrade", str(ten), "--rubric", str(suite), "--out", str(out)], capsys)
    assert (code, err.splitlines()) == (
        2,
        [
            f"error: rubric regrade refused: {ten}: /judge/scale: grader scale differs: original "
            "0 to 10 in steps of "
            "0.05, new 0 to 1 in steps of 0.05"
        ],
    )
    assert not out.exists()


def test_an_out_name_with_terminal_escapes_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], original: tuple[Path, Path]
) -> None:
    # Found: `regrade … --out $'r\e[2J.json'` printed the name raw at the head of its summary,
    # so the terminal ran ESC [ 2 J (clear the screen).
    receipt, suite = original
    out = tmp_path / "r\x1b[2J.json"
    code, said, err = run(
        ["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)], capsys
    )
    assert code == 0, err
    assert "\x1b" not in said and said.startswith(f"{tmp_path}/r\\x1b[2J.json: ")


def test_a_run_in_another_language_is_regraded_with_its_own_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: `run … --lang pt --keep-transcripts`, then `regrade` with the very same suite,
    # refused "case commit-429's prompt differs from the original's; a new prompt needs a new
    # run": the revised tasks were held to the run in the suite's own (English) prompts, not the
    # Portuguese ones the run asked and recorded.
    doc = json.loads(json.dumps(SUITE))
    for c in doc["cases"]:
        c["translations"] = {"pt": "Em português: " + c["prompt"]}
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL_TEXT, encoding="utf-8")
    receipt = tmp_path / "pt.json"
    args = ["run", str(suite), "--skill", str(skill), "--model", "m", "--provider", "simulated"]
    code, _, err = run([*args, "--lang", "pt", "--out", str(receipt), "--keep-transcripts"], capsys)
    assert code == 0, err
    regrade = ["regrade", str(receipt), "--rubric", str(suite), "--out", str(tmp_path / "r.json")]
    code, _, err = run(regrade, capsys)
    assert code == 0, err
    del doc["cases"][0]["translations"]  # a suite with no Portuguese prompt for the first case
    suite.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run([*regrade, "--force"], capsys)
    assert code == 2 and f"{suite}: /cases/0/translations/pt: case " in err, err


@pytest.mark.parametrize(("length", "refused"), [(241, False), (242, True)])
def test_an_out_name_too_long_for_the_temporary_copy_is_refused_before_any_grading(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    original: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    length: int,
    refused: bool,
) -> None:
    # a folder takes names of 255 bytes; the receipt is written through ".<name>.XXXXXXXX.tmp",
    # 14 bytes longer. Found: a 242-byte name was graded in full (paid), then not written.
    receipt, suite = original
    out = tmp_path / ("r" * (length - 5) + ".json")
    if refused:
        import driftproof.regrade.rubric as rubric

        monkeypatch.setattr(rubric, "rubric_regrade", lambda *a, **k: pytest.fail("graded"))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run(["regrade", str(receipt), "--rubric", str(suite), "--out", str(out)], capsys)
    if not refused:
        assert (code, out.exists()) == (0, True), err
        return
    assert (code, err) == (
        2,
        f"error: --out {out}: the name is 242 bytes; the files written beside it need it "
        "at most 241 bytes long (nothing was written)\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before
