"""A long hand-written page (at least 4 second-level headings) opens with a Contents list of
them: a newcomer found the method and interop pages about 37,000 px tall at 390 px with no way
to jump to a section. Short pages and generated pages have none."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import REPO, docs_config

from driftproof.site import build_site


class _Contents(HTMLParser):
    """The ids of a page's h2 headings, and the (href, text) of its Contents list's links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.h2_ids: list[str] = []
        self.links: list[list[str]] = []
        self.in_contents = self.in_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "nav" and a.get("class") == "contents":
            self.in_contents = True
        elif tag == "h2":
            self.h2_ids.append(a.get("id") or "")
        elif tag == "a" and self.in_contents:
            self.links.append([a.get("href") or "", ""])
            self.in_link = True

    def handle_endtag(self, tag: str) -> None:
        self.in_contents = self.in_contents and tag != "nav"
        self.in_link = self.in_link and tag != "a"

    def handle_data(self, data: str) -> None:
        if self.in_link:
            self.links[-1][1] += data


def _contents(path: Path) -> _Contents:
    parser = _Contents()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, shared_site_inputs: tuple[Path, Path]) -> Path:
    """The hand-written pages plus long.md (4 h2, one with markup) and short.md (3 h2)."""
    tmp = tmp_path_factory.mktemp("contents")
    docs, config = docs_config(tmp)
    (docs / "long.md").write_text(
        "# Long\n\nLead.\n\n## One\n\n### Not listed\n\n## A & B <i>x</i> `<y>`\n\n"
        "## Three\n\n## One\n",
        encoding="utf-8",
    )
    (docs / "short.md").write_text("# Short\n\n## One\n\n## Two\n\n## Three\n", encoding="utf-8")
    build_site(*shared_site_inputs, tmp / "site", config_file=config, cache_dir=None)
    return tmp / "site"


def test_a_page_with_four_h2_lists_exactly_them_with_their_text_escaped_once(site: Path) -> None:
    page = _contents(site / "long.html")
    # ids by hand: the toc extension's slugs, "one" repeated becomes "one_1"; no h3
    assert page.links == [
        ["#one", "One"],
        ["#a-b-x-y", "A & B x <y>"],
        ["#three", "Three"],
        ["#one_1", "One"],
    ]
    assert [href for href, _ in page.links] == ["#" + i for i in page.h2_ids]
    html = (site / "long.html").read_text(encoding="utf-8")
    assert "A &amp; B x &lt;y&gt;</a>" in html  # escaped once, not &amp;amp;
    # the list follows the title, before the lead
    assert html.index("</h1>") < html.index('class="contents"') < html.index("<p>Lead.</p>")


@pytest.mark.parametrize("name", ("method", "interop", "decisions", "receipt-spec"))
def test_the_long_hand_written_pages_list_their_sections(site: Path, name: str) -> None:
    source = (REPO / "site_src" / f"{name}.md").read_text(encoding="utf-8")
    titles = re.findall(r"^## (.+)$", source, flags=re.M)
    page = _contents(site / f"{name}.html")
    assert len(titles) >= 4
    assert [text for _, text in page.links] == [t.replace("`", "") for t in titles]
    assert [href for href, _ in page.links] == ["#" + i for i in page.h2_ids]


@pytest.mark.parametrize(
    "path", ("short.html", "neutrality.html", "index.html", "reports/001/index.html")
)
def test_short_and_generated_pages_have_no_contents_list(site: Path, path: str) -> None:
    assert 'class="contents"' not in (site / path).read_text(encoding="utf-8")


@pytest.mark.browser
@pytest.mark.parametrize("width", (390, 1280))
def test_the_list_fits_the_screen_and_is_reached_by_keyboard(
    browser: Any, site: Path, width: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto((site / "method.html").as_uri())
    box = page.locator("nav.contents").evaluate("n => [n.scrollWidth, n.clientWidth]")
    assert box[0] <= box[1]
    for _ in range(30):  # past the skip link and the site's navigation
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('nav.contents')"):
            break
    page.keyboard.press("Enter")
    top = page.locator("h2#with-and-without-the-skill").evaluate(
        "h => h.getBoundingClientRect().top"
    )
    hash_ = page.evaluate("location.hash")
    page.close()
    assert hash_ == "#with-and-without-the-skill" and abs(top) < 2
