"""The sheet in readers' words: counts that vary, unrecorded fields, the verdict line, the split."""

from __future__ import annotations

from factories import case
from receipt_docs import draw_doc, judge_sample_doc, seal_document
from test_view import C1, C2, facts, mk, read

from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_text as render_text


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


def test_the_text_sheet_reads_its_verdict_in_one_line() -> None:
    """Not the model's "reading" then "sentence" pair: one line, as the site's sheet has it."""
    text = render_text(sheet(read(mk([C1, C2]))))
    reading = text.split("\nReading\n", 1)[1].split("\n\n", 1)[0]
    assert reading.split("\n")[0].strip().startswith("verdict  regressed: hurts: c2. Why: ")
    assert "sentence" not in reading and "  reading " not in reading
    declared = render_text(sheet(read(mk([C1], level="DECLARED"))))
    assert "verdict  no verdict: verification level DECLARED is below TESTED" in declared


def test_judge_samples_split_in_context() -> None:
    c = case("j", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    c["arms"]["with_skill"]["draws"] = [
        draw_doc(
            i,
            answer=f"a{i}",
            judge_samples=[
                judge_sample_doc(x, reply=str(x), reported_model="claude-haiku-4-5-20251001")
                for x in p
            ],
        )
        for i, p in enumerate([(0.6, 0.8), (0.7, 0.9), (0.8, 1.0)])
    ]
    s = sheet(read(mk([c])))
    # scores .7 .8 .9: variance .01; within-draw s² = .02, /2 → judge part .01; draw part 0
    assert facts(s.context.splits)["j, with skill"] == (
        "variance 0.01000: judge samples 0.01000, draw to draw 0.00000 (100% judge, 0% draw)"
    )
    assert s.context.label.startswith("Context, beyond the method")
    # scores .50 .52 (judge samples .3/.7 and .32/.72): variance .0002; within-draw s² = .08,
    # /2 → judge part .04, two hundred times the whole: no split is claimed
    c["arms"]["with_skill"]["draws"] = [
        draw_doc(i, answer=f"a{i}", judge_samples=[judge_sample_doc(x, reply=str(x)) for x in p])
        for i, p in enumerate([(0.3, 0.7), (0.32, 0.72)])
    ]
    assert facts(sheet(read(mk([c]))).context.splits)["j, with skill"] == (
        "variance 0.00020: the judge samples' part, 0.04000, is more than the whole, so at 2 "
        "draws this split is noise"
    )
