"""The demo's walkthrough words its lift with the sheet's formatters, not digits of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

import driftproof.demo
from driftproof.receipt import read_receipt
from driftproof.stats.context import LiftInterval


def test_a_lift_rounding_to_zero_reads_as_on_the_sheet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driftproof.demo.run_demo(tmp_path / "d")
    read = {
        n: read_receipt(tmp_path / "d" / "receipts" / f"{n}.json") for n in ("v1-run1", "v2-run1")
    }
    # a lift of −0.0002 over 2 cases: the sheet prints it "+0.000" (a rounded zero has no
    # minus), the interval −0.004 to +0.004, the standard error 0.000
    iv = LiftInterval(-0.0002, 2, 0.0003, 1, 12.706, -0.0040, 0.0036, None)
    monkeypatch.setattr(driftproof.demo, "lift_interval", lambda b: iv)
    walk = driftproof.demo.walkthrough(read, "", "plan", "why")
    assert (
        "with its paired interval as context: suite lift +0.000, paired standard error 0.000 "
        "over 2 cases; approximate 95% interval −0.004 to +0.004 (the lift ± 12.706 standard "
        "errors, 12.706 being Student's t for 1 degree of freedom, one fewer than the cases: it "
        "assumes the cases' lifts are normally spread, where the exact paired test assumes no "
        "shape). Context only"
    ) in walk


def test_the_demo_site_does_not_point_at_itself_as_site_index(tmp_path: Path) -> None:
    # the walkthrough (a file in the demo's folder) names the local site as site/index.html;
    # read on that very page, inside the site, the path named a file that is not there
    driftproof.demo.run_demo(tmp_path / "d")
    index = (tmp_path / "d" / "site" / "index.html").read_text(encoding="utf-8")
    walk = (tmp_path / "d" / "WALKTHROUGH.txt").read_text(encoding="utf-8")
    assert "Local site: site/index.html" in walk and "site/index.html" not in index


def test_the_walkthrough_calls_the_worked_examples_what_the_method_page_calls_them() -> None:
    # the method's worked examples are made-up small numbers ("worked by hand on small numbers");
    # a demo that insists nothing in it is real said they were worked "on real numbers"
    method = (Path(__file__).parents[1] / "site_src" / "method.md").read_text(encoding="utf-8")
    assert "Every verdict word, worked by hand on small numbers." in method
    walk = (Path(driftproof.demo.__file__).parent / "demo_files" / "walkthrough.txt").read_text(
        encoding="utf-8"
    )
    assert "Every verdict word, worked by hand on small numbers: " in walk
    assert "real numbers" not in walk


def test_the_demo_page_walkthrough_ends_at_its_text_not_a_blank_line(tmp_path: Path) -> None:
    # its first block ended "…shows every case's bands under that reason:", then a blank line
    # inside the box, before the diff it introduces
    driftproof.demo.run_demo(tmp_path / "d")
    index = (tmp_path / "d" / "site" / "index.html").read_text(encoding="utf-8")
    assert "under that reason:</pre>" in index
