"""A regrade's receipt is marked as one on the results page and in ``badge``'s output, naming
the receipt it regrades (it was listed as an ordinary measured run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from day_one_helpers import run_args, write_files  # noqa: E402
from factories import run_main  # noqa: E402

from driftproof.pages.results import results_rows  # noqa: E402
from driftproof.receipt import read_receipt  # noqa: E402
from driftproof.site.html import page_env, results_page_from_rows  # noqa: E402

#: How the regrade (same grader, rubrics of the --rubric suite) says it graded.
HOW = "its kept answers graded again by its judge, under the rubrics given to the regrade"


def _regraded(tmp_path: Path, capsys) -> tuple[Path, Path]:
    """A stub run kept with its transcripts, and its regrade under the same suite's rubrics."""
    suite, skill = write_files(tmp_path)
    run, regraded = tmp_path / "run.json", tmp_path / "regraded.json"
    assert run_main(run_args(suite, skill, run, "--keep-transcripts"), capsys)[0] == 0
    regrade = ["regrade", str(run), "--rubric", str(suite), "--out", str(regraded)]
    assert run_main(regrade, capsys)[0] == 0
    return run, regraded


def test_the_results_row_of_a_regrade_names_its_original(tmp_path, capsys) -> None:
    run, regraded = _regraded(tmp_path, capsys)
    original_seal = json.loads(run.read_text())["seal"]["sha256"]  # from the original's file
    orig, reg = read_receipt(run), read_receipt(regraded)
    # with the original among the receipts, by its name; alone, by its seal's first 12 digits
    rows = {x.receipt: x for x in results_rows({"first-run": orig, "rubric-v2": reg})}
    assert rows["first-run"].regrade_of == ""
    assert rows["rubric-v2"].regrade_of == f"a regrade of receipt first-run: {HOW}"
    (alone,) = results_rows({"rubric-v2": reg})
    assert alone.regrade_of == f"a regrade of the receipt sealed {original_seal[:12]}…: {HOW}"
    # the page shows it under the receipt's name, the original named though its row came alone
    html = results_page_from_rows([rows["first-run"], alone], page_env()).decode()
    named = '<a href="../receipts/first-run/index.html">receipt first-run</a>'  # linked
    assert f'rubric-v2</a><br><span class="meta">a regrade of {named}: {HOW}' in html


def test_badge_says_which_receipt_a_regrade_regrades(tmp_path, capsys) -> None:
    run, regraded = _regraded(tmp_path, capsys)
    original_seal = json.loads(run.read_text())["seal"]["sha256"]
    code, out, _ = run_main(["badge", str(regraded), "--out-dir", str(tmp_path / "b")], capsys)
    assert code == 0
    assert out.splitlines()[1] == f"a regrade of the receipt sealed {original_seal[:12]}…: {HOW}"
    # an ordinary run's badge says nothing of the kind
    code, out, _ = run_main(["badge", str(run), "--out-dir", str(tmp_path / "c")], capsys)
    assert code == 0 and "regrade" not in out


def test_a_regrade_links_its_original_and_its_page_says_it_is_a_regrade(tmp_path, capsys) -> None:
    from driftproof.site.html import receipt_files

    run, regraded = _regraded(tmp_path, capsys)
    original_seal = json.loads(run.read_text())["seal"]["sha256"]
    orig, reg = read_receipt(run), read_receipt(regraded)
    rows = results_rows({"first-run": orig, "rubric-v2": reg})
    html = results_page_from_rows(rows, page_env()).decode()
    linked = '<a href="../receipts/first-run/index.html">receipt first-run</a>'
    assert f'<span class="meta">a regrade of {linked}: {HOW}</span>' in html
    # under the receipt page's title, the regrade is said, its original by its seal
    page = receipt_files("rubric-v2", reg, regraded.read_bytes(), [], page_env())
    sheet = page["receipts/rubric-v2/index.html"].decode()
    said = f"<p>A regrade of the receipt sealed {original_seal[:12]}…: {HOW}.</p>"
    assert sheet.index(said) < sheet.index("<h2")


def test_a_regrades_own_page_links_its_original_or_says_the_site_does_not_publish_it(
    tmp_path, capsys
) -> None:
    # a regrade's page named its original by seal alone, though the site publishes it
    from driftproof.site import build_site_files

    run, regraded = _regraded(tmp_path, capsys)
    original_seal = json.loads(run.read_text())["seal"]["sha256"]
    both = {"first-run": run.read_bytes(), "rubric-v2": regraded.read_bytes()}
    files = build_site_files(both, [], nav=[])
    sheet = files["receipts/rubric-v2/index.html"].decode()
    # receipts/rubric-v2/index.html is two folders below the root
    linked = '<a href="../../receipts/first-run/index.html">receipt first-run</a>'
    assert f"<p>A regrade of {linked}: {HOW}.</p>" in sheet
    # the regrade alone: its original is not on the site, and its page says so
    files = build_site_files({"rubric-v2": regraded.read_bytes()}, [], nav=[])
    sheet = files["receipts/rubric-v2/index.html"].decode()
    alone = f"the receipt sealed {original_seal[:12]}…, which this site does not publish"
    assert f"<p>A regrade of {alone}: {HOW}.</p>" in sheet and "first-run" not in sheet
    # the receipts page lists them in name order though the regrade's page was made last
    renamed = {"zz-first-run": run.read_bytes(), "rubric-v2": regraded.read_bytes()}
    listing = build_site_files(renamed, [], nav=[])["receipts/index.html"].decode()
    assert listing.index('href="rubric-v2/index.html"') < listing.index('href="zz-first-run/')
