"""The sheet in readers' words: counts that vary, unrecorded fields, the verdict line, the split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import case
from receipt_docs import draw_doc, judge_sample_doc, seal_document
from test_view import C1, C2, facts, mk, read

from driftproof.errors import ReceiptError
from driftproof.pages.band_sources import band_facts
from driftproof.pages.sheet import sheet
from driftproof.render.sheet import sheet_text as render_text

FIXTURES = Path(__file__).parent / "receipt" / "fixtures" / "0.16"


def test_counts_that_vary_between_cases_say_so() -> None:
    # c1 holds 3 draws per arm, c4 holds 4: no single count (null), the range 3 to 4
    c4 = case("c4", [0.80, 0.82, 0.84, 0.86], [0.50, 0.52, 0.54, 0.56])
    doc = mk([C1, c4])
    assert doc["run"]["generations_per_arm"] is None
    p = facts(sheet(read(doc)).provenance)
    assert (
        p["draws per arm"] == "varies; the receipt holds 3 to 4 per case and arm"
    )  # as the site's
    # every draw of the factory is judged once: the count stands, and a lost draw (no sample)
    # does not make it "1; the receipt holds 0 to 1 per draw"
    r = read(mk([case("c5", [0.60, None, 0.62], [0.50, 0.52, 0.54])]))
    assert facts(sheet(r).provenance)["judge samples per draw"] == "1"
    assert (band_facts(r).draws, band_facts(r).judge_samples) == ("3", "1")


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
    # one field from the next by "; ": the fields' own words hold commas ("harness, ..." read
    # as one more field)
    assert p["unrecorded"] == (
        "draws per arm; judge samples per draw; the skill's sha256 and token count (SKILL.md "
        "not given); harness (agents are in the source's own figures); the with skill arm (a "
        "single-arm import); harness version"
    )


def test_an_importers_unnamed_grader_reads_in_words() -> None:
    # an importer not told the grader's model records unrecorded:<tool>/<grader>; the sheet
    # names the source's grader in words, without the marker or a pair of empty parentheses
    doc = mk([C1])
    doc["judge"].update({"model": "unrecorded:promptfoo/grader", "provider": None})
    doc["judge"].update({"surface": None, "template_sha256": None})
    p = facts(sheet(read(seal_document(doc))).provenance)
    assert p["judge"] == "not recorded (promptfoo's grader); template sha256 not recorded"
    doc["judge"].update({"model": "claude-haiku-4-5", "provider": "anthropic"})
    p = facts(sheet(read(seal_document(doc))).provenance)
    assert p["judge"] == (
        "claude-haiku-4-5 (provider anthropic, surface not recorded); template sha256 not recorded"
    )


@pytest.mark.parametrize(
    ("files", "first"),
    [
        (-1, "/source_figures/files: expected an array, found an integer -1"),
        (True, "/source_figures/files: expected an array, found a boolean true"),
        ("b.json", '/source_figures/files: expected an array, found a string "b.json"'),
        ([1, None], "/source_figures/files/0: expected an object, found an integer 1"),
    ],
)
def test_source_files_that_are_not_a_list_of_objects_are_refused_at_load(
    files: object, first: str
) -> None:
    # a files member that is not a list of objects once raised TypeError in view (validate
    # said ok), then listed no file; the model now refuses it where the receipt is read
    doc = json.loads((FIXTURES / "valid-aggregates-only.json").read_text(encoding="utf-8"))
    doc["source_figures"]["files"] = files
    with pytest.raises(ReceiptError) as caught:
        read(seal_document(doc))
    assert caught.value.lines()[0] == f"t.json: {first}"


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


def test_a_single_arm_source_leads_with_its_own_figures_not_a_missing_lift() -> None:
    from pathlib import Path

    from driftproof.pages.results import results_rows
    from driftproof.receipt import read_receipt

    path = Path(__file__).parents[1] / "receipts" / "caveman-902028f-judged-fidelity-caveman.json"
    r = read_receipt(path)
    # the source reported, per prompt p01..p10, a fidelity percent (a figure) and a risk
    # label ("normal" or "high", no number): 10 figures and 10 text labels, not 20 figures;
    # said plainly ("10 figures and 10 labels without a number as the source reported them"
    # was hard to parse; "10 text labels" did not say what they were): the ratings named; and
    # each kind named ("10 figures and 10 risk ratings in words rather than numbers" read as if
    # the figures were words too)
    # Both lead with the result, the with-skill arm's 21 judged facts (9 prompts of 2, the
    # rebase prompt's 3), all passed: view's headline left it out while the receipts index and
    # the results page gave it
    own = (
        "facts passed: with skill 21 / 21 (100%); the source reported 10 fidelity figures in "
        "numbers and 10 risk ratings in words (see "
    )
    lead = sheet(r).headline
    assert (lead.label, lead.value) == (
        "source figures",
        own + '"The source\'s own figures and decision"); no band, lift or verdict is computed '
        "from them",
    )
    # the results page holds no such section: it names the receipt page
    [row] = results_rows({"j": r})
    assert row.headline == (
        own + "\"The source's own figures and "
        'decision" on the receipt page); no band, lift or verdict is computed from them'
    )


def test_a_single_arm_receipt_says_why_its_panels_are_empty_and_counts_its_recorded_arm() -> None:
    from pathlib import Path

    from driftproof.receipt import read_receipt

    path = Path(__file__).parents[1] / "receipts" / "caveman-902028f-judged-fidelity-caveman.json"
    r = read_receipt(path)
    s = sheet(r)
    # only the with-skill arm was recorded: the lift by case says why, the context points to it
    assert s.breakdown.label == "Lift by case: unavailable, the baseline arm was not recorded"
    assert s.context.label == (
        "Context, beyond the method: unavailable, because the lift by case is unavailable"
    )
    # each of its 10 cases holds one with-skill draw; the unrecorded arms' empty lists are not
    # counted as arms of 0 draws ("0 to 1 per case and arm")
    assert band_facts(r).draws == "1"  # not "1; the receipt holds 0 to 1 per case and arm"


def test_counts_of_a_receipt_without_per_run_results_do_not_contradict_themselves() -> None:
    import json
    from pathlib import Path

    from driftproof.receipt import read_receipt

    root = Path(__file__).parents[1] / "receipts"
    path = root / "nvidia-7149a88-aiq-deploy.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["cases"] == []  # printed aggregates: no per-run result
    f = band_facts(read_receipt(path))
    declared = doc["run"]["generations_per_arm"]
    said = "as the source ran them; it printed aggregates only, so the receipt holds no per-run"
    assert f.draws == f"{declared}, {said} result"  # not "holds none", nor "2; the receipt …"
    assert f.judge_samples.endswith("; the receipt holds no judged draw")  # not "none per draw"
    legacy = band_facts(
        read_receipt(root / "skill-creator-nebius-skills-iteration-1-12a0aae8.json")
    )
    assert "band_source" not in legacy.source and "the receipt names none" in legacy.source


def test_an_excluded_case_is_named_as_a_case_not_read_as_a_count() -> None:
    from pathlib import Path

    from driftproof.receipt import read_receipt

    root = Path(__file__).parents[1] / "receipts"
    r = read_receipt(root / "skill-creator-nebius-skills-iteration-1-12a0aae8.json")
    # case "2" lost every baseline draw (the receipt's own draws): both its arms are left out
    [two] = [c for c in r.cases if c.id == "2"]
    assert all(d.lost is not None for d in two.arms.baseline.draws)
    text = render_text(sheet(r))
    assert "Excluded with both arms (an arm failed): case 2\n" in text


def test_the_band_source_legend_line_is_labelled() -> None:
    from pathlib import Path

    from driftproof.receipt import read_receipt

    root = Path(__file__).parents[1] / "receipts"
    text = render_text(sheet(read_receipt(root / "caveman-2b10489-caveman.json")))
    # said once, as a labelled fact (a second line ran the label into its value)
    lines = [" ".join(x.split()) for x in text.splitlines() if "band source" in x]
    assert lines == ["band source none (no judged score): the receipt has no band"]
    assert "\n  none: the receipt holds" not in text  # not an unlabelled line


def test_a_band_source_the_receipt_does_not_name_is_not_given_the_legacy_legend() -> None:
    # skill-creator records no band source and no judge samples: the legend said "judged several
    # times; the band measures the judge", a fact about a receipt that recorded none of it
    from pathlib import Path

    from driftproof.receipt import read_receipt

    root = Path(__file__).parents[1] / "receipts"
    r = read_receipt(root / "skill-creator-nebius-skills-iteration-1-12a0aae8.json")
    text = render_text(sheet(r))
    assert "several times" not in text
    lines = [" ".join(x.split()) for x in text.splitlines() if "band source" in x]
    assert lines == [
        "band source not recorded (one scored draw per arm, no spread): the receipt names none; "
        "no arm holds more than one scored draw, so no band has a spread"
    ]


def test_an_unavailable_lift_breakdown_carries_no_note_about_recorded_scores() -> None:
    # caveman's receipt has no judged score: the note "It describes the recorded scores at this
    # sample size" followed "Lift breakdown unavailable", describing scores that do not exist
    from pathlib import Path

    from driftproof.receipt import read_receipt

    root = Path(__file__).parents[1] / "receipts"
    text = render_text(sheet(read_receipt(root / "caveman-2b10489-caveman.json")))
    assert "Lift by case: unavailable, no judge is recorded" in text
    assert "It describes the recorded scores" not in text


def test_the_breakdown_heading_names_a_section_the_method_page_has() -> None:
    # the method page has no "Lift by case"; "When a change is called" defined none of the
    # breakdown's words (carrier, lift without it, no label, narrowed, non-model): view and
    # diff --help cite the section that does
    import re

    from click.testing import CliRunner

    from driftproof.cli import cli

    text = render_text(sheet(read(mk([C1, C2]))))
    (cited,) = re.findall(r'^Lift breakdown \(method, "([^"]+)"\)$', text, re.M)
    assert cited == "Reading the lift breakdown"
    method = (Path(__file__).parents[1] / "site_src" / "method.md").read_text(encoding="utf-8")
    assert f"\n## {cited}\n" in method
    help_text = " ".join(CliRunner().invoke(cli, ["diff", "--help"]).output.split())
    assert f'lift breakdown (method, "{cited}") after the comparison' in help_text


def test_the_arms_labels_an_import_recorded_are_shown_escaped() -> None:
    # promptfoo's arms ran different providers: the receipt's model is null and its unrecorded
    # list says "see the arms' labels"; the sheet (text, Markdown, JSON, site) shows those labels
    from driftproof.render.sheet import sheet_json, sheet_markdown
    from driftproof.site.html import page_env, receipt_files

    doc = mk([C1])
    doc["arms"]["with_skill"]["label"] = "provider:openai:gpt-5"
    doc["arms"]["baseline"]["label"] = "<b>|x\x1b"
    raw = json.dumps(seal_document(doc)).encode()
    s = sheet(read(json.loads(raw)))
    labels = "with skill: provider:openai:gpt-5; baseline: <b>|x\x1b"
    assert facts(s.provenance)["arm labels"] == labels
    assert "  arm labels  " in render_text(s) and "baseline: <b>|x\\x1b\n" in render_text(s)
    assert "- **arm labels**: with skill: provider:openai:gpt-5; baseline: \\<b\\>\\|x" in (
        sheet_markdown(s)
    )
    assert '"with skill: provider:openai:gpt-5; baseline: <b>|x\\u001b"' in sheet_json(s)
    page = receipt_files("t", read(json.loads(raw)), raw, [], page_env())["receipts/t/index.html"]
    assert b"<dd>with skill: provider:openai:gpt-5; baseline: &lt;b&gt;|x" in page
    # the runner's labels are the arms' own names: nothing to add
    assert "arm labels" not in facts(sheet(read(mk([C1]))).provenance)


def test_counts_of_one_read_in_the_singular_and_an_unpriced_cost_in_plain_words() -> None:
    # one case of one draw per arm: "none of 1 draws" read as a plural; the grading cost's
    # missing price read "grader cost  USD not recorded" where the run's summary said "unpriced"
    overhead = {"input_tokens": 90, "output_tokens": 10, "usd": None}
    overhead |= {"judged_draws_counted": 2, "judged_draws_missing_usage": 0}
    s = sheet(read(mk([case("c1", [0.6], [0.4])], judge_overhead=overhead)))
    assert [a.refusals for a in s.arms] == ["none of 1 draw", "none of 1 draw"]
    assert facts(s.judge_cost)["grading cost"] == "not recorded"
    assert "  grading cost   not recorded\n" in render_text(s)


def test_an_imports_notes_are_on_its_sheet_one_to_a_line() -> None:
    # an importer's caveats were kept in the receipt and shown nowhere, then shown joined with
    # " | " on one line; the committed caveman fidelity import keeps two notes: two lines
    from driftproof.receipt import read_receipt
    from driftproof.render.sheet import sheet_markdown
    from driftproof.site.html import page_env, receipt_files

    path = Path(__file__).parents[1] / "receipts" / "caveman-5c7e19a-judged-fidelity-caveman.json"
    raw = path.read_bytes()
    s = sheet(read_receipt(path), path=path)
    first = "the source names its grader as: claude-opus-4-8 (inline judgment; judge.py claude -p "
    second = "the source's note: Baseline fidelity for the committed results.json caveman arm."
    text = render_text(s)
    assert f"  import note             {first}" in text
    assert f"  import note             {second}" in text
    md = sheet_markdown(s)
    assert f"- **import note**: {first}" in md and f"- **import note**: {second}" in md
    page = receipt_files("t", read_receipt(path), raw, [], page_env())["receipts/t/index.html"]
    assert page.decode().count("<dt>import note</dt><dd>the source") == 2


def test_the_arm_tables_lost_kinds_read_in_words() -> None:
    # "3 (no_answer)" and "2 (handoff)": the runner's codes; each kind in words, once
    c = case("c1", [0.6, None, None, None], [0.4, None, None])
    for d, kind in zip(
        c["arms"]["with_skill"]["draws"][1:], ["no_answer", "no_answer", "error"], strict=True
    ):
        d["lost"]["kind"] = kind
    for d in c["arms"]["baseline"]["draws"][1:]:
        d["lost"]["kind"] = "handoff"
    c["arms"]["with_skill"]["draws"][3]["lost"]["reason"] = "HTTP 400: bad request; not retryable"
    s = sheet(read(mk([c])))
    # each kind in words, a failed request's with its reason's head as the case rows open it
    assert [a.lost for a in s.arms] == [
        "3 (no answer, request failed: HTTP 400)",
        "2 (another model answered)",
    ]


def test_an_arm_with_no_draws_reads_none_refused_without_a_count_of_zero() -> None:
    # NVIDIA's printed aggregates hold no draw: "refusals: none of 0 draws" read as if there were
    from driftproof.receipt import read_receipt

    r = read_receipt(Path(__file__).parents[1] / "receipts" / "nvidia-7149a88-aiq-deploy.json")
    s = sheet(r)
    # nor "0 drawn, 0 scored" under "draws per arm 2; the receipt holds no per-run result"
    assert [(a.draws, a.refusals) for a in s.arms] == [
        ("no per-run result (aggregates only)", "–")
    ] * 2


def test_refusals_read_not_recorded_where_no_refusal_could_be_recorded() -> None:
    # refusals came with schema 0.15 and no importer records them: a 0.3.1 receipt of 2 draws
    # per arm, and a summary-json import of C1 (3 per arm), read "none of N draws" as if counted
    from driftproof.receipt import read_receipt

    old = read_receipt(Path(__file__).parent / "receipt" / "fixtures/0.3.1/valid-basic.json")
    assert [a.refusals for a in sheet(old).arms] == ["not recorded"] * 2
    doc = mk([C1])
    del doc["seal"]
    doc["provenance"] = {
        "tool": "my-harness",
        "tool_version": "2.0.1",
        "document": "summary.json",
        "document_sha256": "2" * 64,
        "unrecorded": [],
    }
    assert [a.refusals for a in sheet(read(seal_document(doc))).arms] == ["not recorded"] * 2
    # a regrade carries its run's draws, refusals with them: counted as a run's are
    doc["provenance"]["tool"] = "driftproof regrade"
    assert [a.refusals for a in sheet(read(seal_document(doc))).arms] == ["none of 3 draws"] * 2


def test_a_legacy_receipts_bands_are_said_to_be_of_one_draws_judge_samples() -> None:
    # the 0.3.1 fixture holds one draw per arm (legacy): its n counts that draw's judge samples,
    # where the case table's caption and each case page said "(n = measured draws)"
    from driftproof.receipt import read_receipt
    from driftproof.site.html import page_env, receipt_files

    path = Path(__file__).parent / "receipt" / "fixtures/0.3.1/valid-basic.json"
    legacy = "the valid judge samples of the arm&#39;s one draw (n = judge samples): it measures"
    generation = "of the per-draw scores (n = measured draws)"
    doc = mk([C1])
    for r, raw, said in (
        (read_receipt(path), path.read_bytes(), legacy),
        (read(doc), json.dumps(doc).encode(), generation),
    ):
        pages = receipt_files("t", r, raw, [], page_env())
        text = [pages["receipts/t/index.html"].decode()]
        text.append(pages[f"receipts/t/cases/{r.cases[0].id}/index.html"].decode())
        assert all(said in t for t in text)
        # the band caption only: "fewer than two measured draws" is the spread split's own reason
        assert any("(n = measured draws)" in t for t in text) == (said == generation)


def test_a_draw_with_no_valid_judge_sample_is_lost_everywhere_the_sheet_counts() -> None:
    # a draw with no score, no judge sample and no lost record is lost (D-1): the band said
    # "(n = 2, 1 lost)" while the row's lost column, the Arms table and the Lost draws list
    # said none. With skill .8, .7 measured: mean .750, sd √((.05² + .05²)/1) = .071
    c = case("c1", [0.6, 0.8, 0.7], [0.4, 0.5, 0.45])
    c["arms"]["with_skill"]["draws"][0].update(score=None, judge_samples=[])
    s = sheet(read(mk([c])))
    (row,) = s.cases
    assert row.with_skill == "0.750 ± 0.071 (n = 2, 1 lost)"
    assert row.lost == "with skill 1 of 3"
    assert [a.lost for a in s.arms] == ["1 (no valid grade)", "none"]
    assert [(x.case_id, x.arm, x.draw, x.reason) for x in s.lost_draws] == [
        ("c1", "with skill", "1", "no valid judge sample")
    ]


def test_draws_whose_judge_samples_are_all_invalid_are_lost_though_none_is_scored() -> None:
    # a run whose judge failed on every call: each draw holds its invalid samples and no lost
    # record; with no scored draw anywhere the sheet said "lost none" (an adversary's finding)
    c = case("c1", [0.6, 0.8], [0.4, 0.5])
    for a in c["arms"].values():
        for d in a["draws"]:
            d["score"] = None
            for s in d["judge_samples"]:
                s.update(score=None, invalid_reason="the reply was not JSON")
    s = sheet(read(mk([c])))
    assert [a.lost for a in s.arms] == ["2 (no valid grade)", "2 (no valid grade)"]
    assert s.cases[0].lost == "with skill 2 of 2 · baseline 2 of 2"
    assert len(s.lost_draws) == 4
