"""The internal link check (issues 15 and 19) on small hand-made sites: what counts as a link
and an id, and how targets resolve; and the demo's links, which must work offline."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from site_check import broken_links

from driftproof.site.links import page_anchors


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The folder ``driftproof demo`` wrote and the walkthrough it printed."""
    from driftproof.demo import run_demo

    folder = tmp_path_factory.mktemp("demo") / "demo"
    return folder, run_demo(folder)


def _site(root: Path, pages: dict[str, str]) -> Path:
    for rel, body in pages.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"<!doctype html><title>t</title>{body}", encoding="utf-8")
    return root


def test_page_anchors_reads_ids_names_and_every_kind_of_link_in_order() -> None:
    html = (
        b'<p id="top"><a href>no value</a><a name="old" href="b/?x=1&amp;y=2#f">y</a>'
        b'<img srcset="a.png 1x, b.png 2x" src="c.png">'
        b'<script>var s = "<a href=\\"in-a-script\\">";</script><span id="">empty id</span>'
    )
    ids, links = page_anchors(html)
    assert ids == ["top", "old"]
    # href before src before srcset on one element; the entity decoded; script text is not HTML
    assert links == ["b/?x=1&y=2#f", "c.png", "a.png", "b.png"]


def test_page_anchors_reads_bytes_that_are_not_utf8() -> None:
    assert page_anchors(b'<a id="caf\xe9" href="x/">') == (["caf\ufffd"], ["x/"])


def test_targets_resolve_as_a_browser_would_and_never_leave_the_site(tmp_path: Path) -> None:
    site = _site(
        tmp_path / "site",
        {
            "index.html": '<h1 id="h">x</h1>',
            "a/index.html": (
                '<a href="../">root</a><a href="/#h">abs</a><a href="?q=1">query</a>'
                '<a href="#missing">frag</a><a href="../b/">no folder</a>'
                '<a href="/../../etc/passwd">climbs out</a><a href="../../x">out</a>'
                '<a href="https://example.org/">ext</a><a href="//cdn.example/x">ext2</a>'
                '<a href="mailto:x@example.org">mail</a><a href="../index.html#%68">encoded</a>'
            ),
        },
    )
    assert broken_links(site) == [
        "a/index.html: #missing (no element with id 'missing')",
        "a/index.html: ../b/ (no such file)",
        # "/.." is the site's root on a web server: outside it there is nothing to reach
        "a/index.html: /../../etc/passwd (no such file)",
        "a/index.html: ../../x (no such file)",
    ]


def test_a_receipts_pages_checked_apart_give_what_the_whole_check_gives(tmp_path: Path) -> None:
    from driftproof.site.links import SiteLinks, receipt_links

    receipt = {
        "receipts/a/index.html": b'<p id="case-1"></p><a href="cases/x/index.html#nope">x</a>'
        b'<a href="../../results/index.html">r</a><a href="../../gone.html">g</a>',
        "receipts/a/cases/x/index.html": b'<a href="../../index.html#case-1">s</a>'
        b'<a href="../../index.html#case-2">t</a><a href="../y/">y</a>',
    }
    other = {"results/index.html": b'<a href="../receipts/a/index.html#case-3">c</a>'}
    for rel, data in {**receipt, **other}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    links = SiteLinks()
    links.add(receipt_links(receipt))
    expected = [
        "receipts/a/cases/x/index.html: ../../index.html#case-2 (no element with id 'case-2')",
        "receipts/a/cases/x/index.html: ../y/ (no such file)",
        "receipts/a/index.html: cases/x/index.html#nope (no element with id 'nope')",
        "receipts/a/index.html: ../../gone.html (no such file)",
        "results/index.html: ../receipts/a/index.html#case-3 (no element with id 'case-3')",
    ]
    assert broken_links(tmp_path) == expected
    assert links.broken(tmp_path) == expected


def test_the_demo_names_its_own_method_page_which_works_offline(demo: tuple[Path, str]) -> None:
    folder, walk = demo
    site = folder / "site"
    assert (folder / "WALKTHROUGH.txt").read_text(encoding="utf-8") == walk
    # the walkthrough names the site's copy of the method page, never the hosted one: items 1, 3,
    # 7 and the last line the worked examples, 2 the section on bands (it named the Improved
    # example), 4 the lost draw, 5 planning, 6 the section on the paired interval
    named = re.findall(r"site/method\.html#([\w-]+)", walk)
    assert Counter(named) == {
        "worked-examples": 4,
        "bands": 1,
        "inconclusive-lost-draws": 1,
        "planning-a-run": 1,
        "the-paired-interval-on-the-lift": 1,
    }
    assert "http" not in walk
    assert set(named) <= set(page_anchors((site / "method.html").read_bytes())[0])
    # no page of the demo site links out of it, and every link in it resolves
    out = [
        (p.relative_to(site).as_posix(), link)
        for p in sorted(site.rglob("*.html"))
        for link in page_anchors(p.read_bytes())[1]
        if "://" in link or link.startswith("//")
    ]
    assert out == []
    assert broken_links(site) == []


def test_the_demo_sites_walkthrough_links_the_plan_and_the_diff_it_names(
    demo: tuple[Path, str],
) -> None:
    folder, _ = demo
    site = folder / "site"
    index = (site / "index.html").read_text(encoding="utf-8")
    # "5. Plan: ... (plan.txt)" and "The diff of v1 run 1 against v2 run 1 (diff.txt)"
    assert index.count('(<a href="plan.txt">plan.txt</a>)') == 1
    assert index.count('(<a href="diff.txt">diff.txt</a>)') == 1
    for name in ("plan.txt", "diff.txt"):  # the text beside WALKTHROUGH.txt, marked as UTF-8
        text = (folder / name).read_text(encoding="utf-8")
        assert text.startswith("SIMULATED DATA: ")
        assert (site / name).read_bytes() == b"\xef\xbb\xbf" + text.encode("utf-8")
    assert broken_links(site) == []


def test_the_words_of_the_demos_breakdown_are_defined_where_view_cites(
    demo: tuple[Path, str],
) -> None:
    # `driftproof view` of a demo receipt printed "label", "no label", "lift without it" and
    # "No helps, hurts or carrier assertion: below TESTED (UNVERIFIED)", and cited a method
    # section that defined none of them; the built page's cited section now does, and the
    # sheet says them in plain words, leaving out a label column no case may fill
    import html as html_lib

    from driftproof.pages.sheet import sheet
    from driftproof.receipt import read_receipt
    from driftproof.render.sheet import sheet_text

    folder, _ = demo
    view = sheet_text(sheet(read_receipt(folder / "receipts" / "v1-run1.json")))
    (cited,) = re.findall(r'^Lift breakdown \(method, "([^"]+)"\)$', view, re.M)
    assert (
        "No case is said to help or hurt, and none is named as carrying the lift: the receipt's "
        "verification level, UNVERIFIED, is below TESTED"
    ) in view
    assert "lift without this case  note" in view and "helps or hurts" not in view
    page = (folder / "site" / "method.html").read_text(encoding="utf-8")
    start = page.index(f'<h2 id="reading-the-lift-breakdown">{cited}</h2>')
    section = page[start : page.index("<h2", start + 1)]
    terms = [html_lib.unescape(t) for t in re.findall(r"<strong>([^<]+)</strong>", section)]
    for term in (
        "helps or hurts",
        "not given",
        "lift without this case",
        "carrier",
        "No case is said to help or hurt, and none is named as carrying the lift",
        "below TESTED",
        "fewer than 3 draws per arm",
        "no model is recorded",
        "the stub provider answered, not a model",
    ):
        assert term in terms, term
    text = " ".join(re.sub(r"<[^>]+>", "", section).split())
    # each reason the code gives, in the words the sheet prints it
    assert "removing the case leaves zero or less" in text
    assert (
        "the run planned fewer than three draws per arm, or an arm of an included case drew "
        "fewer than three, lost ones counted"
    ) in text
    assert (
        "no model is recorded for the answers, or the stub provider answered, not a model (a "
        "test stand-in rather than a model)"
    ) in text
    assert "narrowed" not in text and "non-model" not in text  # no internal label


def test_a_receipt_pages_breakdown_links_the_section_that_defines_its_words(
    demo: tuple[Path, str],
) -> None:
    # the site's "Lift by case" box printed the breakdown's words with no way to their meaning
    folder, _ = demo
    site = folder / "site"
    page = site / "receipts" / "v1-run1" / "index.html"
    box = page.read_text(encoding="utf-8").split("<summary>Lift by case</summary>", 1)[1]
    box = box.split("</details>", 1)[0]
    assert '<a href="../../method.html#reading-the-lift-breakdown">' in box
    assert "reading-the-lift-breakdown" in page_anchors((site / "method.html").read_bytes())[0]
    assert broken_links(site) == []


def test_each_demo_page_title_names_the_site_once(demo: tuple[Path, str]) -> None:
    # the demo's home page was titled "Driftproof demo (simulated) · Driftproof demo (simulated)"
    folder, _ = demo
    site = folder / "site"
    for page in site.rglob("*.html"):
        title = page.read_text(encoding="utf-8").split("<title>", 1)[1].split("</title>", 1)[0]
        assert title.count("Driftproof demo") == 1, (page, title)
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "<title>Demo · Driftproof demo (simulated)</title>" in home


def test_every_path_the_walkthrough_names_is_inside_the_demo_folder_as_it_says(
    demo: tuple[Path, str],
) -> None:
    # a newcomer in the repository's root followed site/method.html from the printed text and
    # found nothing: the paths are the demo folder's, which its first line now says
    folder, walk = demo
    assert walk.splitlines()[0].endswith("Every path below is inside the demo's folder.")
    named = set(re.findall(r"\b((?:receipts|site)/[\w./-]+?\.(?:json|html)|\w+\.txt)\b", walk))
    assert {"receipts/v1-run1.json", "site/method.html", "plan.txt", "diff.txt"} <= named
    assert [n for n in sorted(named) if not (folder / n).is_file()] == []


def test_an_aggregates_only_receipts_case_pages_link_to_no_row_its_sheet_lacks() -> None:
    # Found: a valid aggregates-only receipt holding cases (the frozen fixtures' shape) could not
    # be published: its sheet shows the printed figures in place of a case table, and each case
    # page linked to "its row in the case table" (../../index.html#case-commit-1), so the build
    # stopped on broken links it blamed on mkdocs.yml.
    from driftproof.receipt import parse_receipt
    from driftproof.site.html import page_env, receipt_files

    fixture = Path(__file__).parents[1] / "receipt" / "fixtures" / "0.16"
    raw = (fixture / "valid-aggregates-only.json").read_bytes()
    files = receipt_files("agg", parse_receipt(raw), raw, [], page_env())
    sheet_ids, _ = page_anchors(files["receipts/agg/index.html"])
    for case in ("commit-1", "commit-2"):
        _, links = page_anchors(files[f"receipts/agg/cases/{case}/index.html"])
        to_sheet = [x.partition("#")[2] for x in links if x.startswith("../../index.html#")]
        assert set(to_sheet) <= set(sheet_ids)
        assert "../../index.html" in links  # the receipt itself stays linked
