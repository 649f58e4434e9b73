"""Replies that cannot be graded (method, "Which answer is graded"), and files read back
under the method's limits: 50 files, 65,536 bytes each, 262,144 together."""

from __future__ import annotations

import os

import pytest

from driftproof.run.capture import compose_answer, read_back
from driftproof.run.lost import lost_reason

PROSE_200 = (
    "The retry policy caps attempts at three and waits 250 ms between them, except for HTTP 429, "
    "where the server's Retry-After header decides the wait. This keeps load bounded and honours "
    "rate limits without guessing."
)
assert len(PROSE_200) >= 200


@pytest.mark.parametrize(
    "reply",
    [
        "I saved the summary to summary.md.",
        "The full write-up is in docs/plan.md.",
        "See **notes.md** for the answer.",
        "**Created:** answer.md",
        "I’ve written the answer to “answer.md”.",  # typographic quotes read as plain ones
        "Changes:\n- Updated cart.py to round totals",
        "Output written to report.txt",
        "The full analysis is in analysis.md.",
        "The answer has been saved to out.md.",
    ],
)
def test_pointing_at_an_unshown_file_is_lost(reply):
    reason = lost_reason(reply)
    assert reason is not None and "a file the grader was not shown" in reason


def test_reason_names_the_file_and_line():
    assert (
        lost_reason("Done below.\n\nI saved the plan to plan.md")
        == "the reply points at plan.md (line 3), a file the grader was not shown"
    )


@pytest.mark.parametrize(
    "reply",
    [
        # followed by a fenced block
        "I saved the summary to summary.md:\n\n```\nsummary here\n```",
        "I saved the summary to summary.md. " + PROSE_200,  # 200 characters of prose, same line
        "I saved the summary to summary.md.\n\n" + PROSE_200,  # 200 characters of prose after
        PROSE_200 + "\n\nI also saved this to summary.md.",  # 200 characters of prose above
        # a fenced block above, referred back to
        "```python\nprint(cart.total)\n```\n\nI saved this to fix.py.",
        "```\nI saved the result to out.md\n```",  # inside a fenced block: never pointing
        # code names are not file names
        "Round the total with cart.total.quantize(). Then call order.save().",
        # first-person advice is an answer
        "I'd add an index on users.email; it is the column the query filters.",
        # commit body listing files
        "fix(cart): round totals to cents\n\nUpdated cart.py and tests/test_cart.py.",
        # a Changes list under the answer
        "Use half-even rounding for the totals.\n\nChanges:\n- Updated cart.py",
        "Edit settings.py as the task says and set DEBUG = False.",  # the prompt's own file
        "Open config.yaml and set port: 8080.",  # advice about the user's file
        "I'd write the handler in app.py and keep the retry in client.py.",  # first-person advice
        "The port is stored in config.yaml under server.port.",  # where the user's setting lives
    ],
)
def test_answers_that_show_their_file_are_graded(reply):
    assert lost_reason(reply, prompt="Fix the bug in settings.py") is None


@pytest.mark.parametrize(
    "reply,reason",
    [
        ("", "the reply holds no answer"),
        ("   \n", "the reply holds no answer"),
        (
            "I've implemented the feature and all tests pass.",
            "the reply only describes work it did and holds no answer",
        ),
        ("Done.", "the reply only describes work it did and holds no answer"),
    ],
)
def test_no_answer_or_work_report_only(reply, reason):
    assert lost_reason(reply) == reason


def test_a_shown_file_is_not_pointed_at_unseen():
    assert lost_reason("I saved the answer to answer.md.", shown_files=["answer.md"]) is None
    assert (
        lost_reason("I saved it to `my_long_name.py`.", shown_files=["src/my_long_name.py"]) is None
    )
    assert lost_reason("I saved it to _my_long_name.py_.", shown_files=["my_long_name.py"]) is None


def test_read_back_limits(tmp_path):
    (tmp_path / "a.md").write_text("hello")
    (tmp_path / "big.txt").write_bytes(b"x" * 65_537)
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01")
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    sub = tmp_path / "sub"
    sub.mkdir()
    for i in range(4):
        (sub / f"f{i}.txt").write_bytes(
            b"y" * 65_536
        )  # 4 × 65,536 = 262,144: the fourth does not fit after a.md
    os.symlink("/etc/hostname", tmp_path / "link.txt")
    cap = read_back(tmp_path)
    got = {f["path"]: (f["bytes"], f["status"]) for f in cap.files}
    assert got == {
        "a.md": (5, "read"),
        "big.txt": (65_537, "truncated"),
        "bin.dat": (2, "binary"),
        "latin.txt": (4, "not_utf8"),
        "link.txt": (got["link.txt"][0], "unreadable"),
        "sub/f0.txt": (65_536, "read"),
        "sub/f1.txt": (65_536, "read"),
        "sub/f2.txt": (65_536, "read"),
        "sub/f3.txt": (65_536, "past_total_cap"),
    }
    assert [p for p, _ in cap.shown] == ["a.md", "sub/f0.txt", "sub/f1.txt", "sub/f2.txt"]
    reasons = {f["path"]: f["reason"] for f in cap.files}
    assert reasons["big.txt"] == "65537 bytes, over the 65536-byte cap per file"
    assert reasons["sub/f3.txt"] == "past the 262144-byte total cap"
    assert cap.error is None


def test_read_back_names_files_past_the_50_file_cap(tmp_path):
    for i in range(52):
        (tmp_path / f"f{i:02d}.txt").write_text(str(i))
    cap = read_back(tmp_path)
    assert [f["status"] for f in cap.files] == ["read"] * 50 + ["past_file_cap"] * 2
    assert cap.files[50]["path"] == "f50.txt" and cap.files[50]["reason"] == "past the 50-file cap"


def test_compose_answer_names_every_file(tmp_path):
    (tmp_path / "a.md").write_text("hello")
    (tmp_path / "b.bin").write_bytes(b"\x00")
    cap = read_back(tmp_path)
    assert compose_answer("See the files.", cap) == (
        "See the files.\n\n--- file: a.md (5 bytes) ---\nhello\n\n"
        "--- file: b.bin (1 bytes), not shown: binary (holds NUL bytes) ---"
    )


def test_a_vanished_directory_is_an_error(tmp_path):
    assert (
        read_back(tmp_path / "gone").error
        == "the working directory could not be read back (it is gone)"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_text("x")
    p.chmod(0)
    cap = read_back(tmp_path)
    assert (cap.files[0]["status"], cap.files[0]["reason"]) == ("unreadable", "permission denied")
