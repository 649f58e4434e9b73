"""The method's prose threshold for a pointing line, at its edge ("Which answer is graded").

A pointing line "followed by ... at least 200 characters of the reply's own prose" shows its
file, "and prose on the pointing line itself counts"; a pointing line "below the reply's own
answer" shows it with "at least 200 characters of prose above it". 200 is graded, 199 is not.
"""

from __future__ import annotations

import pytest

from driftproof.run.lost import lost_reason

POINTING = "I saved the plan to plan.md."
LOST = "the reply points at plan.md (line {}), a file the grader was not shown"


def prose(n: int) -> str:
    """``n`` characters of plain prose, no file name in it, no blank at either end."""
    text = ("The cache stays warm between requests, so the second call is quick. " * 9)[:n]
    text = text[:-1] + "." if text.endswith(" ") else text
    assert len(text) == n and text == text.strip()
    return text


@pytest.mark.parametrize(("total", "lost"), [(200, False), (199, True)])
def test_prose_below_counts_the_pointing_line_and_reaches_the_file_at_200(total, lost):
    reply = f"{POINTING}\n{prose(total - len(POINTING))}"
    assert lost_reason(reply) == (LOST.format(1) if lost else None)


@pytest.mark.parametrize(("above", "lost"), [(200, False), (199, True)])
def test_prose_above_a_pointing_line_shows_its_file_from_200(above, lost):
    reply = f"{prose(above)}\n{POINTING}"
    assert lost_reason(reply) == (LOST.format(2) if lost else None)


@pytest.mark.parametrize(
    ("name", "is_file"),
    [
        ("README", True),  # a well-known bare name
        ("results.zip", True),  # an extension the platform's MIME table knows
        ("main.tf", True),  # one it does not, a common source file all the same
        ("plot.pict", True),  # one only the MIME table's non-strict part knows
        ("section 4.2", False),  # a section number, not a file
    ],
)
def test_what_reads_as_a_file_name_on_a_pointing_line(name, is_file):
    reply = f"The full analysis is in {name}."
    file = name.rsplit(" ", 1)[-1]
    assert lost_reason(reply) == (LOST.format(1).replace("plan.md", file) if is_file else None)


def test_a_line_inside_a_fenced_block_never_points_even_when_the_block_is_never_closed():
    assert (
        lost_reason("Here is the script:\n```sh\necho done > plan.md\nI saved the plan to plan.md")
        is None
    )


def test_code_above_a_pointing_line_is_no_prose_unless_the_line_refers_back_to_it():
    code = "\n".join(f"total_{i} = round(price_{i} * quantity_{i}, 2)" for i in range(8))
    assert len(code) > 200
    reply = f"```python\n{code}\n```\nThe full plan is in plan.md."
    assert lost_reason(reply) == LOST.format(
        11
    )  # the fence, 8 lines of code, the fence, then this line
    assert lost_reason(reply.replace("The full plan is in", "I saved the above to")) is None


@pytest.mark.parametrize(
    "reply",
    [
        # a commit message: an imperative subject, a blank line, a body listing the files
        "Add retries to the client\n\n- Updated client.py to retry on 429",
        # a pull request description under a heading
        "## Summary\n\n- Updated client.py to retry on 429",
        # a Changes list under the answer, with a continuation line
        "Round the total before tax.\n\nChanges:\n- Updated cart.py to round totals\n"
        "  before the tax is added\n- Updated tax.py to match",
        # a Changes list under an answer that is a fenced block
        "```python\ntotal = round(total, 2)\n```\nChanges:\n- Updated cart.py to round totals",
    ],
)
def test_a_commit_body_pr_description_or_changes_list_under_the_answer_is_graded(reply):
    assert lost_reason(reply) is None


def test_files_the_prompt_names_or_the_grader_is_shown_are_never_pointed_at():
    assert lost_reason("The full fix is in settings.py.", prompt="Fix settings.py") is None
    assert lost_reason("The full write-up is in out/answer.md.", shown_files=["answer.md"]) is None
