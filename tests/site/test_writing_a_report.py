"""docs/reference.md, "Writing a report": its example is a report the build accepts as written,
and it names every section type there is, each once.

Before it, how to write a report was said only in a module docstring of the site's code."""

from __future__ import annotations

import re

from site_fixtures import REPO

from driftproof.site.inputs import parse_report
from driftproof.site.sections import section_types


def _section() -> str:
    text = (REPO / "docs" / "reference.md").read_text(encoding="utf-8")
    return text.split("\n## Writing a report\n", 1)[1].split("\n## ", 1)[0]


def test_the_example_report_is_accepted_as_written() -> None:
    example = _section().split("```yaml\n", 1)[1].split("```", 1)[0]
    report, problems = parse_report(
        example.encode("utf-8"), "reports/001-my-skill-first-run.md", ["my-first", "my-second"]
    )
    assert problems == []
    assert report is not None
    assert (report.number, report.slug, report.receipts) == (
        1,
        "my-skill-first-run",
        ("my-first", "my-second"),
    )
    assert report.body.strip() == "What was measured, and what the receipts cannot show."


def test_every_section_type_is_listed_once() -> None:
    listed = re.findall(r"^- `([a-z_]+)`:", _section(), re.M)
    assert sorted(listed) == sorted(section_types())
    assert len(listed) == len(set(listed))
