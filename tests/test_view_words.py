"""The sheet's provenance in readers' words: counts that vary, unrecorded fields named plainly."""

from __future__ import annotations

from factories import case
from receipt_docs import seal_document
from test_view import C1, facts, mk, read

from driftproof.pages.sheet import sheet


def test_counts_that_vary_between_cases_say_so() -> None:
    # c1 holds 3 draws per arm, c4 holds 4: no single count (null), the range 3 to 4
    c4 = case("c4", [0.80, 0.82, 0.84, 0.86], [0.50, 0.52, 0.54, 0.56])
    doc = mk([C1, c4])
    assert doc["run"]["generations_per_arm"] is None
    p = facts(sheet(read(doc)).provenance)
    assert p["draws per arm"] == "varies, 3 to 4"
    # every draw of the factory is judged the same number of times: the count stands
    assert p["judge samples per draw"] == str(doc["run"]["judge_samples_per_generation"])


def test_unrecorded_fields_read_in_words() -> None:
    doc = mk([C1])
    doc["provenance"] = {
        "tool": "t",
        "tool_version": None,
        "document": "d.json",
        "document_sha256": "0" * 64,
        "unrecorded": [
            "run.generations_per_arm",
            "judge_samples_per_generation",
            "skill.sha256 and skill.tokens (SKILL.md not given)",
            "run.harness (agents are in source_figures)",
            "the with_skill arm (a single-arm import)",
            "run.harness.version",
        ],
    }
    p = facts(sheet(read(seal_document(doc))).provenance)
    assert p["unrecorded"] == (
        "draws per arm, judge samples per draw, the skill's sha256 and token count (SKILL.md "
        "not given), harness (agents are in the source's own figures), the with skill arm (a "
        "single-arm import), harness version"
    )
