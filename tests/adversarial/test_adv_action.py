"""Adversarial: ``python -m driftproof.action`` with hostile environments and receipts."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest
from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof import action

GOOD = [
    case("c1", [0.9, 0.95, 0.92], [0.3, 0.35, 0.32]),
    case("c2", [0.8, 0.85, 0.82], [0.5, 0.52, 0.55]),
]
WORSE = [
    case("c1", [0.2, 0.25, 0.22], [0.3, 0.35, 0.32]),
    case("c2", [0.8, 0.85, 0.82], [0.5, 0.52, 0.55]),
]


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def setup(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    a: dict[str, Any],
    b: dict[str, Any],
    summary: Path | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
) -> tuple[Path, Path]:
    summary = summary or tmp_path / "summary.md"
    output = output or tmp_path / "output"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    monkeypatch.setenv("DRIFTPROOF_BASELINE", str(write(tmp_path, "a.json", a)))
    monkeypatch.setenv("DRIFTPROOF_RECEIPT", str(write(tmp_path, "b.json", b)))
    if fail_on is None:
        monkeypatch.delenv("DRIFTPROOF_FAIL_ON", raising=False)
    else:
        monkeypatch.setenv("DRIFTPROOF_FAIL_ON", fail_on)
    return summary, output


def test_unwritable_step_summary_is_a_clean_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: GITHUB_STEP_SUMMARY in a missing folder (or naming a directory) ended in a
    # FileNotFoundError / IsADirectoryError traceback.
    setup(
        tmp_path,
        monkeypatch,
        make_receipt(GOOD),
        make_receipt(WORSE),
        summary=tmp_path / "missing" / "s.md",
        output=tmp_path,
    )
    assert action.main([]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{tmp_path / 'missing' / 's.md'}: cannot append the job summary" in err
    assert f"{tmp_path}: cannot append the outputs (GITHUB_OUTPUT): Is a directory" in err


def test_outputs_not_written_leave_a_summary_that_says_error_not_a_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: the summary was written first, "the job passes" (GOOD against itself), then the
    # outputs failed and the step exited 2: the summary said the opposite of what happened
    summary, _ = setup(
        tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(GOOD), output=tmp_path
    )
    assert action.main([]) == 2
    said = f"{tmp_path}: cannot append the outputs (GITHUB_OUTPUT): Is a directory"
    escaped = said.replace("_", "\\_")  # Markdown's underscores, as every summary line escapes
    assert summary.read_text(encoding="utf-8") == f"## Driftproof: error\n\n- {escaped}\n"


def test_blank_fail_on_keeps_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found: DRIFTPROOF_FAIL_ON=" " (an empty workflow expression) parsed to no decision at all,
    # so a regressed case passed the job (exit 0).
    setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(WORSE), fail_on=" ")
    assert action.main([]) == 1


def test_fail_on_naming_no_decision_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(WORSE), fail_on=" , ")
    assert action.main([]) == 2
    assert "names no decision" in capsys.readouterr().err


def test_no_case_in_common_decides_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found: a new receipt whose case ids all differ from the baseline's (a renamed suite) read
    # "no separation detected" and passed, though not one case was compared.
    renamed = [
        case("x1", [0.1, 0.12, 0.11], [0.3, 0.35, 0.32]),
        case("x2", [0.1, 0.12, 0.11], [0.5, 0.52, 0.55]),
    ]
    summary, output = setup(
        tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(renamed), fail_on="none"
    )
    assert action.main([]) == 1  # "none" is in fail-on, so the job fails
    text = summary.read_text(encoding="utf-8")
    assert "## Driftproof: no decision" in text
    assert "No case is in both receipts" in text
    assert "no separation detected at this sample size" not in text
    assert "decision<<" in output.read_text(encoding="utf-8")
    assert "\nnone\n" in output.read_text(encoding="utf-8")


def test_both_unreadable_receipts_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: only the baseline's problem was reported; the new receipt's came on the next run.
    tampered = make_receipt(GOOD)
    tampered["cases"][0]["prompt"] = "changed after sealing"
    summary, _ = setup(tmp_path, monkeypatch, {"schema_version": "9.9"}, tampered)
    assert action.main([]) == 2
    err = capsys.readouterr().err
    assert "a.json: /schema_version" in err
    assert "b.json: /seal/sha256: seal mismatch" in err


def test_hostile_text_in_the_job_summary_is_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = make_receipt(WORSE)
    hostile["skill"]["name"] = "<img src=x onerror=alert(1)>|[x](javascript:alert(1))\n## injected"
    hostile["run"]["model"] = "<script>alert(2)</script>"
    summary, _ = setup(tmp_path, monkeypatch, make_receipt(GOOD), seal_document(hostile))
    assert action.main([]) == 1
    text = summary.read_text(encoding="utf-8")
    # every "<" and "](" of the untrusted text is backslash-escaped (inert in GitHub Markdown)
    assert not re.search(r"(?<!\\)<(img|script)", text)
    assert "\\<img src=x" in text
    assert not re.search(r"(?<!\\)\]\(javascript", text)
    assert "\n## injected" not in text


def test_cancelled_job_is_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: a cancelled job (SIGINT while comparing) printed a KeyboardInterrupt traceback.
    summary, output = setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(WORSE))

    def cancelled(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(action, "compare_receipts", cancelled)
    try:
        code = action.main([])
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped main()")
    assert code == 130
    err = capsys.readouterr().err
    assert err == "error: interrupted before a decision; no output was written\n"
    assert not summary.exists() and not output.exists()


def test_a_named_pipe_no_one_reads_as_github_output_is_refused_never_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found: GITHUB_OUTPUT or GITHUB_STEP_SUMMARY naming a named pipe no one reads left the
    # step waiting for a reader until the job's timeout. The alarm fails the test, not hangs it.
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(GOOD), output=pipe)
    signal.alarm(20)
    try:
        assert action.main([]) == 2
    finally:
        signal.alarm(0)
    said = f"{pipe}: cannot append the outputs (GITHUB_OUTPUT): expected a file to append to, "
    assert said + "found a named pipe no one reads" in capsys.readouterr().err


def test_a_named_pipe_a_reader_holds_takes_the_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GITHUB_OUTPUT=/dev/stdout with the step's output piped (trying the step locally) is a
    # named pipe with a reader: the outputs are written to it, as to a file
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(GOOD), output=pipe)
        assert action.main([]) == 0
        got = os.read(reader, 65536).decode()
    finally:
        os.close(reader)
    assert re.match(r"decision<<(driftproof_\w+)\n[A-Z]+\n\1\n", got), got


def test_a_socket_as_github_output_is_not_called_a_named_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a socket also refuses open() with "No such device or address" (ENXIO), as a named pipe
    # no one reads does; it was refused as "a named pipe no one reads", which it is not
    import socket

    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(GOOD), output=path)
        assert action.main([]) == 2
    err = capsys.readouterr().err
    assert f"{path}: cannot append the outputs (GITHUB_OUTPUT): " in err
    assert "No such device or address" in err and "named pipe" not in err


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="no file size limit on this system")
def test_github_output_a_full_disk_cuts_short_is_taken_back_whole(tmp_path: Path) -> None:
    # Found: `badge --github-output` on a full disk left "reading<<driftproof_…\nno verdict\n"
    # and half a delimiter at the end of $GITHUB_OUTPUT, a block the runner cannot close. A file
    # size limit 40 bytes past what the file holds cuts the append short as a full disk does.
    import subprocess
    import sys

    receipt = write(tmp_path, "r.json", make_receipt(GOOD))
    output = tmp_path / "output"
    output.write_text("earlier=kept\n", encoding="utf-8")  # 13 bytes another step wrote
    code = (
        "import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (53, 53))\n"
        f"from driftproof.cli import main\nmain(['badge', {str(receipt)!r}, '--github-output'])\n"
    )
    env = {**os.environ, "GITHUB_OUTPUT": str(output)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"error: {output}: cannot append to $GITHUB_OUTPUT: File too")
    assert output.read_text(encoding="utf-8") == "earlier=kept\n"


@pytest.mark.parametrize(
    ("variable", "receipt"), [("GITHUB_STEP_SUMMARY", "b.json"), ("GITHUB_OUTPUT", "a.json")]
)
def test_a_github_file_naming_a_receipt_read_is_refused_and_nothing_is_appended(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    receipt: str,
) -> None:
    # Found: the summary (or the outputs) was appended to the receipt it named, which then
    # failed to read as JSON; the step is refused before any write, as badge refuses it
    summary, output = setup(tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(WORSE))
    monkeypatch.setenv(variable, str(tmp_path / receipt))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert action.main([]) == 2
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing written
    which = "new" if receipt == "b.json" else "baseline"
    said = f"{tmp_path / receipt}: {variable} names the {which} receipt read; appending to it"
    assert said in capsys.readouterr().err


def test_a_summary_not_written_after_the_outputs_leaves_decision_error_and_no_other_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found: the outputs (decision regressed, its cases) were written, then the summary failed
    # and the step exited 2; action.yml says an error sets the decision error and no other output
    from test_action import parse_outputs

    _, output = setup(
        tmp_path, monkeypatch, make_receipt(GOOD), make_receipt(WORSE), summary=tmp_path
    )
    assert action.main([]) == 2
    read = parse_outputs(output.read_text(encoding="utf-8"))
    assert read["decision"] == "error"
    assert {k: v for k, v in read.items() if k != "decision"} == dict.fromkeys(
        ["lift", "baseline-lift", "regressed-cases", "unmeasured-cases", "draws-needed"], ""
    )


def test_a_reader_gone_from_stdout_ends_the_step_141_without_a_traceback(tmp_path: Path) -> None:
    # Found: the decision line's print raised BrokenPipeError: a traceback and status 1, which
    # fails the job as a regressed case does; the outputs and summary were already written
    import subprocess
    import sys

    a, b = (
        write(tmp_path, "a.json", make_receipt(GOOD)),
        write(tmp_path, "b.json", make_receipt(GOOD)),
    )
    env = {
        **os.environ,
        "GITHUB_OUTPUT": str(tmp_path / "o"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "s"),
    }
    read, gone = os.pipe()
    os.close(read)
    cmd = [sys.executable, "-m", "driftproof.action", "--baseline", str(a), "--receipt", str(b)]
    done = subprocess.run(cmd, stdout=gone, stderr=subprocess.PIPE, text=True, env=env, check=False)
    os.close(gone)
    assert done.returncode == 141 and "Traceback" not in done.stderr
    assert "decision<<" in (tmp_path / "o").read_text(encoding="utf-8")
