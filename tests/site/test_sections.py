"""Section types: the registry, and the comparison section in the words of `driftproof diff`."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest
from receipt_docs import body_of
from site_fixtures import load_inputs, refused_build, savings_receipt, scored_receipt, write_report
from site_html import cells_of_row, table_header

from driftproof.receipt import write_receipt
from driftproof.site import build_site_files, section_types


def test_registry_discovers_every_shipped_type() -> None:
    assert {"token_savings", "comparison", "receipt_sheets", "source_figures"} <= set(
        section_types()
    )


def _compare_report(reports: Path, receipts: str, sections: str) -> None:
    """Report 001, "Compare", over ``receipts`` (names, comma-separated), with ``sections``."""
    items = textwrap.indent(textwrap.dedent(sections).strip(), "  ")
    front = f"number: 1\nslug: compare\ntitle: Compare\ndate: 2026-04-30\nreceipts: [{receipts}]"
    write_report(reports, "001-compare.md", f"{front}\nsections:\n{items}")


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    # case c1: earlier with-skill 0.5, 0.55, 0.45 (mean 0.50, sd 0.05); later 0.8, 0.85, 0.9
    # (mean 0.85, sd 0.05): bands 0.45–0.55 and 0.80–0.90 apart, Δ +0.35 ≥ 0.05 → improved.
    # case c2: 0.6, 0.7, 0.65 vs 0.62, 0.66, 0.7: bands overlap, not separated.
    write_receipt(
        body_of(
            scored_receipt(
                {
                    "c1": ([0.5, 0.55, 0.45], [0.5, 0.5, 0.5]),
                    "c2": ([0.6, 0.7, 0.65], [0.5, 0.5, 0.5]),
                }
            )
        ),
        receipts / "march.json",
    )
    april = scored_receipt(
        {
            "c1": ([0.8, 0.85, 0.9], [0.5, 0.5, 0.5]),
            "c2": ([0.62, 0.66, 0.7], [0.5, 0.5, 0.5]),
        }
    )
    april["run"]["model"] = "gpt-5"  # March's is claude-sonnet-4-5
    write_receipt(body_of(april), receipts / "april.json")
    write_receipt(body_of(savings_receipt("alpha", {"c1": (1, 2, 3)})), receipts / "declared.json")
    _compare_report(
        reports,
        "march, april, declared",
        """
          - type: comparison
            a: march
            b: april
            a_label: March
            b_label: April
          - type: comparison
            a: declared
            b: april
        """,
    )
    return receipts, reports


def test_comparison_rows_are_the_diff_words(pair: tuple[Path, Path]) -> None:
    inputs = load_inputs(*pair)
    files = build_site_files(inputs.receipts, inputs.reports, nav=[])
    html = files["reports/001/index.html"].decode()
    # the receipts' columns say which is which in the legend's words (Δ = later − earlier), as
    # diff's do; the labels March and April are tied to them above the table and in its caption
    assert table_header(html, "table-comparison-march-april") == [
        "case",
        "earlier (generation)",
        "later (generation)",
        "Δ",
        "verdict",
        "note",
    ]
    assert "March (earlier) against April (later): with-skill bands" in html
    assert "Δ = later − earlier" in html
    # the legend gives the method's word, then its plain words (one source on the page: one entry)
    assert (
        "<li>generation: bands across draws: the band is the spread of the per-draw scores, each "
        "draw a separate answer of the arm.</li>"
    ) in html
    assert "legacy" not in html
    assert (
        "<p>The two receipts were answered by different models (claude-sonnet-4-5 and gpt-5): a "
        "change between them may be the model&#39;s, not the skill&#39;s.</p>"
    ) in html
    assert cells_of_row(html, "case-c1") == [
        "c1",
        "0.500 ± 0.050",
        "0.850 ± 0.050",
        "+0.350",
        "improved",
        "",
    ]
    c2 = cells_of_row(html, "case-c2")
    assert c2[4] != "improved" and c2[3] == "+0.010"
    # the declared side gets no verdict: its refusal is shown, and no second table
    assert "declared: verification level DECLARED is below TESTED" in html
    assert "case-c1-2" not in html
    assert any(p.endswith("-dark.svg") and "chart-comparison-march-april" in p for p in files)


def test_a_comparison_says_how_many_regressed_cases_noise_alone_gives(
    pair: tuple[Path, Path],
) -> None:
    # as diff and the Action do (method, "Regressed cases from noise alone"): c1 improved and c2
    # did not separate, so of the 2 cases none regressed
    inputs = load_inputs(*pair)
    html = build_site_files(inputs.receipts, inputs.reports, nav=[])["reports/001/index.html"]
    text = html.decode()
    assert "<p>Noise alone: if every case&#39;s true mean were the same in both receipts" in text
    # both sides drew every arm 3 times
    assert (
        "of these 2 cases would read regressed at the compared receipts&#39; spreads and 3 draws "
        "per arm; none did.</p>"
    ) in text


def test_a_comparison_with_no_verdict_shows_the_bands_and_lifts_as_context(
    tmp_path: Path,
) -> None:
    # as driftproof diff does on the same pair; the section showed the refusal line alone.
    # c1 earlier: with skill 0.5, 0.55, 0.45 (0.500 ± 0.050), baseline 0.5 × 3 (lift +0.000);
    # later: 0.8, 0.85, 0.9 (0.850 ± 0.050), baseline 0.5 × 3 (lift +0.350); Δ +0.350
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    early = scored_receipt({"c1": ([0.5, 0.55, 0.45], [0.5, 0.5, 0.5])})
    early["verification_level"] = "UNVERIFIED"
    write_receipt(body_of(early), receipts / "early.json")
    late = scored_receipt({"c1": ([0.8, 0.85, 0.9], [0.5, 0.5, 0.5])})
    write_receipt(body_of(late), receipts / "late.json")
    _compare_report(reports, "early, late", "- {type: comparison, a: early, b: late}")
    inputs = load_inputs(receipts, reports)
    html = build_site_files(inputs.receipts, inputs.reports, nav=[])["reports/001/index.html"]
    text = html.decode()
    assert "<li>early: verification level UNVERIFIED is below TESTED</li>" in text
    assert "<p>The bands below are shown as context; no verdict is given.</p>" in text
    assert (
        "<p>Lift (with skill − baseline), context: early +0.000, late +0.350, over the 1 case "
        "both receipts measured in both arms (early 1 of 1, late 1 of 1).</p>"
    ) in text
    assert cells_of_row(text, "case-c1") == [
        "c1",
        "0.500 ± 0.050",
        "0.850 ± 0.050",
        "+0.350",
        "no verdict",
        "3/3",
        "3/3",
        "",
    ]


def test_a_comparison_must_name_the_reports_receipts(
    tmp_path: Path, pair: tuple[Path, Path]
) -> None:
    receipts, reports = pair
    write_report(
        reports,
        "002-bad.md",
        """
        number: 2
        slug: bad
        title: Bad
        date: 2026-05-01
        receipts: [march]
        sections:
          - type: comparison
            a: march
            b: april
        """,
    )
    err = refused_build(receipts, reports, tmp_path / "site")
    assert any(
        ln.endswith("/sections/0/b: expected one of the report's receipts (march), found 'april'")
        for ln in err.lines()
    )


def test_public_api_is_exactly_what_all_names() -> None:
    import driftproof.site as site

    public = sorted(
        n
        for n in dir(site)
        if not n.startswith("_")
        and n != "annotations"  # the __future__ feature
        and not inspect.ismodule(getattr(site, n))  # the submodules
    )
    assert sorted(site.__all__) == site.__all__ == public


def test_register_section_takes_the_name_and_title_or_refuses_them() -> None:
    from driftproof.site.sections import _REGISTRY, ReceiptsSection, register_section

    try:

        @register_section(name="probe_type", title="A probe")
        class Probe(ReceiptsSection):
            pass

        assert (Probe.name, Probe.default_title) == ("probe_type", "A probe")
        assert type(section_types()["probe_type"]) is Probe
        for bad in ("Probe", "9lives", "with-dash", ""):
            with pytest.raises(ValueError, match="lowercase `name`"):
                register_section(name=bad)(type("Bad", (ReceiptsSection,), {}))
        with pytest.raises(ValueError, match="registered twice"):
            register_section(name="probe_type")(type("Other", (ReceiptsSection,), {}))
    finally:
        _REGISTRY.pop("probe_type", None)


@pytest.mark.parametrize(
    ("kind", "receipt", "words"),
    [
        (
            "fidelity",
            "declared",
            "fidelity needs caveman fidelity imports (draws with checks); declared is not one",
        ),
        (
            "source_figures",
            "declared",
            "source_figures needs aggregates-only receipts with printed rows; declared is not one",
        ),
        # named by its file (empty), not by its skill (alpha)
        (
            "token_savings",
            "empty",
            "token_savings cannot be computed from empty: the receipt has no cases",
        ),
    ],
)
def test_a_section_that_cannot_render_is_named_by_its_place(
    tmp_path: Path, pair: tuple[Path, Path], kind: str, receipt: str, words: str
) -> None:
    receipts, reports = pair
    write_receipt(body_of(savings_receipt("alpha", {})), receipts / "empty.json")
    write_report(
        reports,
        "002-third.md",
        f"""
        number: 2
        slug: third
        title: Third
        date: 2026-05-01
        receipts: [declared, empty]
        sections:
          - type: receipt_sheets
          - type: {kind}
            receipts: [{receipt}]
        """,
    )
    (line,) = refused_build(receipts, reports, tmp_path / "site").lines()
    assert line.endswith("002-third.md: /sections/1: " + words)  # the second section, not all


def test_every_section_that_cannot_render_is_named_in_one_build(
    tmp_path: Path, pair: tuple[Path, Path]
) -> None:
    # Found: the build stopped at the first such section, after every receipt had rendered
    # (minutes for a catalogue): two sections of report 2 and one of report 3 took three builds
    # to learn of. Each is refused as the parametrized test above words it alone.
    receipts, reports = pair
    write_receipt(body_of(savings_receipt("alpha", {})), receipts / "empty.json")
    head = "date: 2026-05-01\nreceipts: [declared, empty]\nsections:\n"
    write_report(
        reports,
        "002-two.md",
        "number: 2\nslug: two\ntitle: Two\n" + head + "  - type: fidelity\n"
        "    receipts: [declared]\n  - type: source_figures\n    receipts: [declared]\n",
    )
    write_report(
        reports,
        "003-one.md",
        "number: 3\nslug: one\ntitle: One\n" + head + "  - type: token_savings\n"
        "    receipts: [empty]\n",
    )
    err = refused_build(receipts, reports, tmp_path / "site")
    said = [line.removeprefix(f"{reports}/") for line in err.lines()]
    assert said == [
        "002-two.md: /sections/0: fidelity needs caveman fidelity imports (draws with checks); "
        "declared is not one",
        "002-two.md: /sections/1: source_figures needs aggregates-only receipts with printed "
        "rows; declared is not one",
        "003-one.md: /sections/0: token_savings cannot be computed from empty: the receipt has "
        "no cases",
    ]


def _two_savings_sections(tmp_path: Path) -> tuple[Path, Path]:
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    write_receipt(body_of(savings_receipt("alpha", {"c1": (2, 4, 8)})), receipts / "alpha.json")
    write_receipt(body_of(savings_receipt("beta", {"c1": (3, 4, 8)})), receipts / "beta.json")
    sections = "".join(f"  - type: token_savings\n    receipts: [{n}]\n" for n in ("alpha", "beta"))
    front = "number: 1\nslug: two\ntitle: Two\ndate: 2026-04-30\nreceipts: [alpha, beta]\n"
    write_report(reports, "001-two.md", front + "sections:\n" + sections)
    return receipts, reports


def test_two_sections_of_one_type_publish_each_table_in_a_csv_of_its_own(tmp_path: Path) -> None:
    # Found: two token_savings sections (one per skill) both published "token-savings.csv" and
    # "output-tokens-per-case.csv": the second section's files replaced the first's, and all four
    # download links led to the second's. alpha saves 1 − 2/4 = 0.5 against the control, beta
    # 1 − 3/4 = 0.25, on their one case c1.
    inputs = load_inputs(*_two_savings_sections(tmp_path))
    files = build_site_files(inputs.receipts, inputs.reports, nav=[])
    first = files["reports/001/output-tokens-per-case.csv"].decode().splitlines()
    second = files["reports/001/output-tokens-per-case-2.csv"].decode().splitlines()
    assert first[0].split(",")[3] == "alpha tokens"
    assert second[0].split(",")[3] == "beta tokens"
    assert first[1].split(",")[4] == "0.5"
    assert second[1].split(",")[4] == "0.25"
    assert files["reports/001/token-savings.csv"] != files["reports/001/token-savings-2.csv"]
    html = files["reports/001/index.html"].decode()
    assert html.count('href="token-savings.csv"') == html.count('href="token-savings-2.csv"') == 1


def test_a_page_whose_tables_share_an_id_is_refused_not_half_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a section type that does not make its tables' ids unique: one CSV would replace another
    from driftproof.site.sections import SectionContext

    monkeypatch.setattr(SectionContext, "own", lambda self, *tables: tables)
    (problem,) = refused_build(*_two_savings_sections(tmp_path), tmp_path / "site").problems
    assert (Path(problem.file).name, problem.pointer) == ("001-two.md", "/sections")
    assert "expected unique table ids" in problem.message


def test_sheets_of_receipts_x_slash_a_and_x_a_publish_csvs_of_their_own(tmp_path: Path) -> None:
    # Found: a sheet's tables are named after its receipt with "/" as "-", so receipts x/a and
    # x-a both published cases-x-a.csv, the second replacing the first (x/a holds case c1, x-a
    # case c9: each file must list its own)
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    (receipts / "x").mkdir(parents=True)
    one = scored_receipt({"c1": ([0.5, 0.6], [0.5, 0.5])})
    write_receipt(body_of(one), receipts / "x" / "a.json")
    write_receipt(body_of(scored_receipt({"c9": ([0.5, 0.6], [0.5, 0.5])})), receipts / "x-a.json")
    front = "number: 1\nslug: s\ntitle: S\ndate: 2026-04-30\nreceipts: [x/a, x-a]\n"
    write_report(reports, "001-s.md", front + "sections:\n  - type: receipt_sheets\n")
    inputs = load_inputs(receipts, reports)
    files = build_site_files(inputs.receipts, inputs.reports, nav=[])
    first = files["reports/001/cases-x-a.csv"].decode().splitlines()
    second = files["reports/001/cases-x-a-2.csv"].decode().splitlines()
    assert [r.split(",")[0] for r in (first[1], second[1])] == ["c1", "c9"]


def test_a_section_naming_one_receipt_twice_is_refused_at_its_second_place(
    tmp_path: Path,
) -> None:
    # "r" and "r.json" name one receipt: its sheet would be shown twice
    receipts, reports = tmp_path / "receipts", tmp_path / "reports"
    receipts.mkdir()
    write_receipt(body_of(scored_receipt({"c1": ([0.5, 0.6], [0.5, 0.5])})), receipts / "r.json")
    front = "number: 1\nslug: s\ntitle: S\ndate: 2026-04-30\nreceipts: [r]\n"
    sheets = "  - type: receipt_sheets\n    receipts: [r, r.json]\n"
    write_report(reports, "001-s.md", front + "sections:\n" + sheets)
    (problem,) = refused_build(receipts, reports, tmp_path / "site").problems
    assert (problem.pointer, problem.message) == (
        "/sections/0/receipts/1",
        "receipt 'r' is listed twice",
    )
