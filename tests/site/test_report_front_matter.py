"""A report's front matter in `driftproof reports build`: refused by key and file when it is
malformed, written twice or of the wrong type; nothing is published then.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from site_fixtures import build_args, run, write_report


def test_invalid_report_front_matter_stops_the_build(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipts, reports = site_inputs
    write_report(
        reports,
        "003-broken.md",
        """
        number: 4
        slug: broken
        title: Broken
        date: 2026-13-01
        receipts: [alpha, nowhere]
        sections:
          - type: pie_chart
          - type: token_savings
            receipts: [tested]
            colour: red
        """,
    )
    code, _, err = run(build_args(receipts, reports, existing_site), capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert all("003-broken.md" in ln for ln in lines)
    text = "\n".join(lines)
    assert "/date" in text  # month 13: YAML leaves it a string, the model refuses it
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]


@pytest.mark.parametrize(
    "front,words",
    [
        ("number: 3\nnumber: 4\n", "found 'number' twice"),  # not the last one silently
        ("number: &n 3\nalias: *n\n", "anchors and aliases are not read"),
    ],
)
def test_front_matter_keys_are_unique_and_written_out(
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
    front: str,
    words: str,
) -> None:
    receipts, reports = site_inputs
    rest = "slug: twice\ntitle: Twice\ndate: 2026-11-01\nreceipts: [tested]\n"
    (reports / "003-twice.md").write_text(f"---\n{front}{rest}---\nBody.\n", encoding="utf-8")
    code, _, err = run(build_args(receipts, reports, existing_site), capsys)
    assert code != 0
    assert "003-twice.md" in err and words in err and "Traceback" not in err
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]


NUMBER = (
    "expected the report's number: a whole number from 1 to 999, as the NNN of its file name, "
    "found "
)
DATE = "expected the report's date: a day of the calendar written YYYY-MM-DD, found "


@pytest.mark.parametrize(
    "line,pointer,found",
    [
        ("number: true", "/number", NUMBER + "True"),
        ("number: 3.0", "/number", NUMBER + "3.0"),
        ("number: '3.0'", "/number", NUMBER + "'3.0'"),
        ("title: !!binary aGk=", "/title", "expected the title: text of 1 to 200 characters, "
         "not blank, found b'hi'"),
        # found: a title of invisible characters only was published as a blank heading
        ('title: "\\u200b\\u202e"', "/title", "expected the title: text of 1 to 200 "
         "characters, not blank, found '\\u200b\\u202e'"),
        ("date: 0", "/date", DATE + "0"),
        ("date: 2026-13-01", "/date", DATE + "'2026-13-01'"),
        ("slug: Typed", "/slug", "expected the slug of the file name: lowercase letters and "
         "digits, words joined by single dashes, at most 80 characters, found 'Typed'"),
        ("receipts: [7]", "/receipts/0", "expected a receipt name: text, a path under receipts/ "
         "without .json, found 7"),
        (
            "sections: [{type: token_savings, title: !!binary aGk=}]",
            "/sections/0/title",
            "expected text, found b'hi'",
        ),
    ],
)  # fmt: skip
def test_front_matter_of_the_wrong_type_is_refused_not_converted(
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
    line: str,
    pointer: str,
    found: str,
) -> None:
    # the model converted: true and 3.0 published as report 3, bytes b'hi' as the title "hi"
    # and 0 as the date 1970-01-01; then its words were pydantic's ("Input should be a valid
    # integer")
    receipts, reports = site_inputs
    given = {"number": "number: 3", "title": "title: T", "date": "date: 2026-11-01"}
    given |= {"slug": "slug: typed", "receipts": "receipts: [tested]"}
    given[line.split(":")[0]] = line
    front = "\n".join(given.values())
    report = reports / "003-typed.md"
    report.write_text(f"---\n{front}\n---\nBody.\n", encoding="utf-8")
    code, _, err = run(build_args(receipts, reports, existing_site), capsys)
    assert (code, err) == (2, f"error: {report}: {pointer}: {found}\n")
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]


@pytest.mark.parametrize("number", ['"3"', "'003'", "3"])
def test_a_report_number_may_be_written_in_quotes(number: str) -> None:
    # strict typing refused "3" although the file name (003-…) says the same number
    from driftproof.site.inputs import parse_report

    text = (
        f"---\nnumber: {number}\nslug: typed\ntitle: T\ndate: 2026-11-01\nreceipts: [a]\n---\nB\n"
    )
    report, problems = parse_report(text.encode(), "reports/003-typed.md", ["a"])
    assert problems == [] and report is not None and report.number == 3


REST = "slug: typed\ntitle: T\ndate: 2026-11-01\nreceipts: [a]\n"


@pytest.mark.parametrize(
    ("text", "pointer", "message"),
    [
        (
            f"---\nnumber: 3\n{REST}sections:\n  - type: token_savings\n    colour: red\n---\nB\n",
            "/sections/0/colour",
            "unknown key: not a parameter of a token_savings section, which takes type, "
            "receipts, title",
        ),
        (  # the alias is on the file's third line; a report, not a suite
            f"---\nnumber: &n 3\nalias: *n\n{REST}---\nB\n",
            "",
            "front matter is not valid YAML at line 3: expected every value written out; "
            "anchors and aliases are not read in a report",
        ),
        (
            f"\ufeff---\nnumber: 3\n{REST}---\nB\n",
            "",
            "expected '---' first, found a byte-order mark (U+FEFF): save the file as UTF-8 "
            "without one",
        ),
        # YAML's escape of half a character: it read "expected the summary: text of at most
        # 500 characters" (or "a section title: text") of a text of 2 characters; a suite's
        # reader says what is wrong, in these words
        *(
            (
                f'---\nnumber: 3\n{REST}{key}: "a\\uD800"\n---\nB\n',
                pointer,
                "expected valid Unicode text, found a lone surrogate escape",
            )
            for key, pointer in (
                ("summary", "/summary"),
                ("sections:\n  - type: token_savings\n    title", "/sections/0/title"),
            )
        ),
    ],
)
def test_a_report_is_refused_in_its_own_words(text: str, pointer: str, message: str) -> None:
    from driftproof.site.inputs import parse_report

    report, problems = parse_report(text.encode(), "reports/003-typed.md", ["a"])
    assert report is None
    assert [(p.file, p.pointer, p.message) for p in problems] == [
        ("reports/003-typed.md", pointer, message)
    ]
