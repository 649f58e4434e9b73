"""Options refused before anything is read or written: each refusal exits 2 with one line naming
the option (or the folder) and what was expected, and leaves no file behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from factories import case, make_receipt, run_main

from driftproof.errors import RefusalError
from driftproof.outputs import refuse_existing_output


def _last(err: str) -> str:
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def _receipt(tmp_path: Path) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(make_receipt([case("c1", [0.9], [0.2])])), encoding="utf-8")
    return path


def _run_argv(tmp_path: Path) -> list[str]:
    (tmp_path / "s.json").write_text("{}", encoding="utf-8")
    (tmp_path / "SKILL.md").write_text("Be brief.", encoding="utf-8")
    skill = str(tmp_path / "SKILL.md")
    return ["run", str(tmp_path / "s.json"), "--skill", skill, "--provider", "simulated"]


def test_a_model_id_of_201_characters_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "o.json"
    argv = [*_run_argv(tmp_path), "--model", "m" * 201, "--out", str(out)]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert _last(err) == "error: Invalid value for '--model': a model id is at most 200 characters"
    assert not out.exists()


def test_a_price_of_three_parts_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "o.json"
    argv = [*_run_argv(tmp_path), "--model", "m", "--out", str(out), "--judge-price", "1,2,3"]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert _last(err) == (
        "error: Invalid value for '--judge-price': expected IN,OUT or IN,OUT,CACHE_READ,"
        "CACHE_WRITE in USD per million tokens, found '1,2,3'"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("arms", "words"),
    [
        (["foo=x"], "--arm 'foo=x': expected ARM=LABEL with ARM one of with_skill, baseline, "),
        (["with_skill"], "--arm 'with_skill': expected ARM=LABEL with ARM one of with_skill, "),
        (["with_skill=a", "with_skill=b"], "--arm with_skill given twice"),
    ],
)
def test_a_bad_or_repeated_arm_is_refused(tmp_path: Path, capsys, arms, words) -> None:
    source = tmp_path / "results.json"
    source.write_text("{}", encoding="utf-8")
    argv = ["import", "promptfoo", str(source), "--out-dir", str(tmp_path / "o")]
    code, _, err = run_main([*argv, *(x for a in arms for x in ("--arm", a))], capsys)
    assert code == 2
    assert err.startswith("Usage: driftproof import promptfoo [OPTIONS] PATH\n")
    assert _last(err).startswith(f"error: {words}")
    assert not (tmp_path / "o").exists()


def test_demo_refuses_dir_and_out_dir_naming_two_folders(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    code, _, err = run_main(["demo", str(a), "--out-dir", str(b)], capsys)
    assert code == 2
    assert _last(err) == (
        f"error: DIR {a} and --out-dir {b} name two folders; give the folder once"
    )
    assert list(tmp_path.iterdir()) == []


def test_demo_takes_dir_and_out_dir_naming_one_folder(tmp_path: Path, capsys) -> None:
    a = tmp_path / "a"
    a.mkdir()
    (a / "keep.txt").write_text("x", encoding="utf-8")  # refused as not empty: one folder seen
    code, _, err = run_main(["demo", str(a), "--out-dir", str(a)], capsys)
    assert code == 2
    assert "the folder is not empty" in _last(err)


@pytest.mark.parametrize(
    "where", ["file", "no parent", "not empty", "dangling link", "link to an empty folder"]
)
def test_demo_refuses_a_folder_it_cannot_write(tmp_path: Path, capsys, where) -> None:
    (tmp_path / "f").write_text("a file", encoding="utf-8")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine", encoding="utf-8")
    # found: the demo replaced a link to nothing and left a hidden link beside it
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    # found: a link to an empty folder was replaced by a real folder (reports build refuses it)
    (tmp_path / "empty").mkdir()
    (tmp_path / "to-empty").symlink_to(tmp_path / "empty")
    folder, words = {
        "file": (tmp_path / "f", "exists and is not a folder"),
        "dangling link": (tmp_path / "link", "is a symbolic link to nothing"),
        "link to an empty folder": (
            tmp_path / "to-empty",
            f"is a symbolic link (to {tmp_path / 'empty'}); the demo would replace it",
        ),
        "no parent": (
            tmp_path / "no" / "demo",
            f"the folder {tmp_path / 'no'} does not exist; create it first",
        ),
        "not empty": (tmp_path / "full", "the folder is not empty; nothing in it was replaced"),
    }[where]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, _, err = run_main(["demo", str(folder)], capsys)
    assert code == 2
    assert _last(err).startswith(f"error: {folder}: {words}")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "full" / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_badge_github_output_without_the_variable(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("GITHUB_OUTPUT", raising=False)
    receipt = _receipt(tmp_path)
    code, _, err = run_main(["badge", str(receipt), "--github-output"], capsys)
    assert code == 2
    assert _last(err) == "error: --github-output needs the GITHUB_OUTPUT environment variable"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_stale_refuses_a_judge_template_it_cannot_read(tmp_path: Path, capsys) -> None:
    pipe = tmp_path / "template"
    os.mkfifo(pipe)  # exists and is no folder, so the option's own check lets it through
    code, out, err = run_main(
        ["stale", str(_receipt(tmp_path)), "--judge-template", str(pipe)], capsys
    )
    assert code == 2 and out == ""
    assert _last(err) == (
        f"error: Invalid value for --judge-template: {pipe}: cannot read: expected a file, "
        "found a named pipe or socket"
    )


def test_stale_refuses_a_judge_template_over_the_cap(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr("driftproof.cli.stale.MAX_HASHED_BYTES", 4)
    template = tmp_path / "template.txt"
    template.write_bytes(b"12345")  # 5 bytes, one over
    code, out, err = run_main(
        ["stale", str(_receipt(tmp_path)), "--judge-template", str(template)], capsys
    )
    assert code == 2 and out == ""
    assert _last(err) == (
        f"error: Invalid value for --judge-template: {template}: over 4 bytes, the limit"
    )


def test_an_output_that_became_a_folder_is_refused(tmp_path: Path) -> None:
    # the options refuse a folder when read; a folder made after that reaches this check
    with pytest.raises(RefusalError) as caught:
        refuse_existing_output(tmp_path, "--out", force=True)
    assert str(caught.value).startswith(f"--out {tmp_path} is a folder; --out names a file (")


def test_a_base_url_for_a_lane_that_calls_none_is_refused_for_that_not_for_its_form(
    tmp_path: Path, capsys
) -> None:
    # Found: "--judge-base-url ftp://x" for the stub read "expected an http or https URL …;
    # leave the option out": fixing the address as told would be refused again
    out = tmp_path / "o.json"
    demo = Path(__file__).parents[2] / "driftproof" / "demo_files"
    argv = ["run", str(demo / "suite.json"), "--skill", str(demo / "skill-v1" / "SKILL.md")]
    argv += ["--provider", "simulated", "--model", "m", "--out", str(out)]
    argv += ["--judge-base-url", "ftp://x"]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert _last(err).endswith("the simulated lane calls no address: leave it out")
    assert not out.exists()


def test_an_empty_folder_option_is_named_as_empty(tmp_path: Path, capsys) -> None:
    # found: `reports build --out ""` was read as the current folder and refused as holding
    # receipts/, saying nothing of the option being empty
    code, _, err = run_main(["reports", "build", "--out", ""], capsys)
    assert code == 2
    assert _last(err) == (
        "error: Invalid value for '--out-dir' / '--out': expected a path, found an empty text"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["demo", " "], "Invalid value for '[DIR]': expected a path, found ' '"),
        (["demo", ""], "Invalid value for '[DIR]': expected a path, found an empty text"),
        (["diff", "", "b.json"], "Invalid value for 'A': expected a path, found an empty text"),
        (["plan", "\u200b"], "Invalid value for 'RECEIPT': expected a path, found '\\u200b'"),
        (["demo", "--out-dir", "\u200b"], "expected a path, found '\\u200b'"),
    ],
)
def test_a_blank_path_argument_is_refused_naming_it(args, said, tmp_path, monkeypatch, capsys):
    # found: `demo " "` wrote a demo into a folder named by a space, `demo ""` into the current
    # folder, `diff "" B` said ".: expected a regular file", and a path of a zero-width space
    # passed the blank check the options held (spaces only)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(args, capsys)
    assert (code, _last(err).endswith(said)) == (2, True), err
    assert list(tmp_path.iterdir()) == []
