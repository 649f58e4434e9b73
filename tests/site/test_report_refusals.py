"""A report file ``reports build`` cannot take stops the build with one line per problem naming
the report, the front matter key (a JSON pointer) and what was expected; the site already
published is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_fixtures import build_args, run

FRONT = "title: T\ndate: 2026-11-01\n"


def _build(receipts: Path, reports: Path, site: Path, capsys) -> list[str]:
    code, _, err = run(build_args(receipts, reports, site), capsys)
    assert code == 2
    assert "Traceback" not in err
    assert sorted(p.name for p in site.iterdir()) == [".driftproof-site", "marker.txt"]
    return err.strip().splitlines()


def _report(reports: Path, name: str, front: str, *, raw: bytes | None = None) -> Path:
    path = reports / name
    path.write_bytes(raw if raw is not None else f"---\n{front}---\nProse.\n".encode())
    return path


@pytest.mark.parametrize(
    ("name", "front", "pointer", "words"),
    [
        (
            "009-x.md",
            "number: 8\nslug: x\nreceipts: [alpha]\n",
            "/number",
            "expected 9, the number in the file name, found 8",
        ),
        (
            "009-x.md",
            "number: 9\nslug: y\nreceipts: [alpha]\n",
            "/slug",
            "expected 'x', the slug in the file name, found 'y'",
        ),
        (
            "009-x.md",
            "number: 9\nslug: x\nreceipts: [alpha, alpha]\n",
            "/receipts/1",
            "receipt 'alpha' is listed twice",
        ),
        (
            "009-x.md",
            "number: 9\nslug: x\nreceipts: [alpha, gamma]\n",
            "/receipts/1",
            "expected the name of a receipt under receipts/ (without .json), found 'gamma'",
        ),
    ],
)
def test_front_matter_that_disagrees_is_refused_at_its_key(
    site_inputs, existing_site, capsys, name, front, pointer, words
) -> None:
    receipts, reports = site_inputs
    path = _report(reports, name, front + FRONT)
    assert _build(receipts, reports, existing_site, capsys) == [
        f"error: {path}: {pointer}: {words}"
    ]


NAME = "expected a file name NNN-slug.md (three digits, a dash, lowercase words joined by dashes)"
OK = "number: 9\nslug: x\nreceipts: [alpha]\n" + FRONT


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("9-x.md", None, NAME),  # two digits short
        ("009-X.md", None, NAME),  # an upper-case slug
        # "---\n" is 4 bytes and "number: 9\n" 10: the 0xff is byte 14
        (
            "009-x.md",
            b"---\nnumber: 9\n\xff\n---\n",
            "expected UTF-8 text, found an invalid byte at offset 14",
        ),
        (
            "009-x.md",
            b"Prose only.\n",
            "expected YAML front matter between a first line '---' and a closing '---'",
        ),
        (
            "009-x.md",
            b"---\n- a\n---\nB\n",
            "expected the front matter to be a mapping of keys to values, found an array",
        ),
        (
            "009-x.md",
            b"---\nnumber: 9\ntitle: 'T\n---\nB\n",
            "front matter is not valid YAML at line ",
        ),
    ],
)
def test_a_report_file_that_cannot_be_read_is_refused_by_name(
    site_inputs, existing_site, capsys, name, raw, words
) -> None:
    receipts, reports = site_inputs
    path = _report(reports, name, OK, raw=raw)
    (line,) = _build(receipts, reports, existing_site, capsys)
    assert line.startswith(f"error: {path}: {words}")


def test_a_report_over_the_size_cap_is_refused(site_inputs, existing_site, capsys, monkeypatch):
    monkeypatch.setattr("driftproof.site.inputs.MAX_REPORT_BYTES", 20)
    receipts, reports = site_inputs
    path = _report(reports, "009-x.md", OK)
    size = len(path.read_bytes())
    lines = _build(receipts, reports, existing_site, capsys)
    assert f"error: {path}: report is {size} bytes; the limit is 20" in lines


def test_two_reports_with_one_number_are_refused(site_inputs, existing_site, capsys) -> None:
    receipts, reports = site_inputs
    first = _report(reports, "009-x.md", OK)
    second = _report(reports, "009-z.md", OK.replace("slug: x", "slug: z"))
    assert _build(receipts, reports, existing_site, capsys) == [
        f"error: {second}: /number: report number 9 is already used by {first}"
    ]


def test_an_out_that_is_a_symbolic_link_is_refused(site_inputs, tmp_path, capsys) -> None:
    receipts, reports = site_inputs
    real = tmp_path / "real-site"
    real.mkdir()
    link = tmp_path / "site"
    link.symlink_to(real, target_is_directory=True)
    code, _, err = run(build_args(receipts, reports, link), capsys)
    assert code == 2 and "Traceback" not in err
    assert err == (
        f"error: {link}: refusing it: it is a symbolic link; name a real directory instead\n"
    )
    assert list(real.iterdir()) == [] and link.is_symlink()


def test_a_config_without_the_driftproof_plugin_is_refused(
    site_inputs, existing_site, tmp_path, capsys
) -> None:
    repo = Path(__file__).resolve().parents[2]
    text = (repo / "mkdocs.yml").read_text(encoding="utf-8")
    assert "plugins:\n  - driftproof\n" in text
    text = text.replace("plugins:\n  - driftproof\n", "plugins: []\n")
    text = text.replace("docs_dir: site_src", f"docs_dir: {repo / 'site_src'}")
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {repo / 'templates/theme'}")
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    receipts, reports = site_inputs
    code, _, err = run([*build_args(receipts, reports, existing_site)[:-1], str(config)], capsys)
    assert code == 2 and "Traceback" not in err
    assert err == f"error: {config}: /plugins: expected the plugin driftproof\n"
    assert sorted(p.name for p in existing_site.iterdir()) == [".driftproof-site", "marker.txt"]
