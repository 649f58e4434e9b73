"""Adversarial sequences of builds with a cache (issue 19): each must leave the site a clean
build (``cache_dir=None``) of the same inputs gives, byte for byte (and, where a test says
so, mode for mode), or fail as the clean build fails. Each test here failed when it was
written; the docstring of each says what it broke, and how it was put right."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from site_fixtures import REPO, scored_receipt
from site_fixtures import site_files as _files

from driftproof.errors import SiteBuildError
from driftproof.receipt import write_receipt
from driftproof.site import build_site
from driftproof.site._cache import CACHE_DIR_NAME

CONFIG = REPO / "mkdocs.yml"


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")


def _config(tmp_path: Path, *, templates: Path | None = None, extra: str = "") -> Path:
    """The repository's config with absolute paths; ``templates``: a templates folder of its
    own (``<templates>/theme`` its custom_dir); ``extra``: replaces the site_url line."""
    text = CONFIG.read_text(encoding="utf-8")
    text = text.replace("docs_dir: site_src", f"docs_dir: {REPO / 'site_src'}")
    theme = (templates or REPO / "templates") / "theme"
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {theme}")
    if extra:
        text = text.replace("site_url: https://driftproof.dev/", extra)
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    return config


def _clean(receipts: Path, reports: Path, config: Path, where: Path) -> dict[str, bytes]:
    build_site(receipts, reports, where, config_file=config, cache_dir=None)
    return _files(where)


def _same_as_clean(
    inputs: tuple[Path, Path, Path], out: Path, where: Path, holds: tuple[str, bytes]
) -> None:
    """``out`` equals a clean build of ``inputs`` (receipts, reports, config) into ``where``,
    whose file ``holds[0]`` holds the bytes ``holds[1]``: the change reached a clean build."""
    clean = _clean(*inputs, where)
    assert holds[1] in clean[holds[0]]
    assert not (d := _diff(_files(out), clean)), d


def _diff(a: dict[str, bytes], b: dict[str, bytes]) -> list[str]:
    """The paths whose bytes differ, the search index's last (it follows the pages)."""
    differ = (p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
    return sorted(differ, key=lambda p: (p.startswith("pagefind/"), p))


@pytest.mark.parametrize("template", ["report.html", "receipt.html"])
def test_a_template_edited_between_two_builds_of_one_process_is_used(
    tmp_path: Path, site_inputs: tuple[Path, Path], template: str
) -> None:
    """BREAK 1. ``tree_key`` (driftproof/site/_cache.py) is ``functools.cache``d per process;
    ``input_key`` reads the templates afresh (``tree_key.__wrapped__``), so the second build
    is not taken as unchanged, but ``generate_site`` keys the report files
    (``cached_report_files``) and the receipt files (``receipt_files_key``, hence
    ``Staging.reuse``) with the *cached* tree key: the old pages come back from the cache."""
    receipts, reports = site_inputs
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    config = _config(tmp_path, templates=templates)
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    page = templates / "pages" / template
    text = page.read_text(encoding="utf-8")
    edited = text.replace("{% block content %}", "{% block content %}<p>EDITED</p>", 1)
    assert edited != text
    page.write_text(edited, encoding="utf-8")
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    clean = _clean(receipts, reports, config, tmp_path / "clean")
    assert not (d := _diff(_files(out), clean)), d


def test_a_config_value_taken_from_the_environment_is_used(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """BREAK 2. ``site_url: !ENV [...]`` (mkdocs' documented environment tag): ``input_key``
    hashes the config's *bytes*, not the loaded config, so a build after the variable
    changed is taken as unchanged (``_unchanged``) and the old ``feed.xml`` and sitemap stay."""
    receipts, reports = site_inputs
    config = _config(tmp_path, extra='site_url: !ENV [DP_SITE_URL, "https://driftproof.dev/"]')
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    monkeypatch.setenv("DP_SITE_URL", "https://one.example/")
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    monkeypatch.setenv("DP_SITE_URL", "https://two.example/")
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    _same_as_clean(
        (receipts, reports, config), out, tmp_path / "clean", ("feed.xml", b"two.example")
    )


def test_a_config_value_inherited_from_a_parent_config_is_used(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    """BREAK 2b. ``INHERIT: base.yml`` (mkdocs' config inheritance): the parent file is read
    by mkdocs but hashed by no input key, so an edit of it is not seen (``_unchanged``)."""
    receipts, reports = site_inputs
    config = _config(tmp_path)
    text = config.read_text(encoding="utf-8").replace("site_name: Driftproof\n", "")
    config.write_text("INHERIT: base.yml\n" + text, encoding="utf-8")
    base = tmp_path / "base.yml"
    base.write_text("site_name: Driftproof One\n", encoding="utf-8")
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    base.write_text("site_name: Driftproof Two\n", encoding="utf-8")
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    clean = _clean(receipts, reports, config, tmp_path / "clean")
    assert b"Driftproof Two" in clean["index.html"]
    assert not (d := _diff(_files(out), clean)), d


def _modes(site: Path) -> dict[str, int]:
    return {
        p.relative_to(site).as_posix(): stat.S_IMODE(p.lstat().st_mode)
        for p in sorted(site.rglob("*"))
    } | {"": stat.S_IMODE(site.lstat().st_mode)}


@pytest.mark.parametrize("inputs", ["unchanged", "changed"])
def test_a_build_under_another_umask_gives_a_clean_builds_modes(
    tmp_path: Path, site_inputs: tuple[Path, Path], inputs: str
) -> None:
    """BREAK 3. ``apply`` gives every file ``0o666`` and folder ``0o777`` less the umask, as a
    clean build does; but a build whose inputs did not change returns at ``_unchanged``,
    which compares the site's modes with the record's, not with the current umask."""
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    old = os.umask(0o022)
    try:
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
        os.umask(0o077)
        if inputs == "changed":
            write_receipt(
                scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
                receipts / "tested.json",
            )
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
        build_site(receipts, reports, tmp_path / "clean", config_file=CONFIG, cache_dir=None)
    finally:
        os.umask(old)
    clean = _modes(tmp_path / "clean")
    assert clean["index.html"] == 0o600  # the clean build's own modes
    assert _modes(out) == clean


@pytest.mark.parametrize("tamper", [False, True])
def test_a_search_mirror_page_edited_with_its_time_kept_is_copied_again(
    tmp_path: Path, site_inputs: tuple[Path, Path], tamper: bool
) -> None:
    """BREAK 4. ``sync_mirror`` trusts a mirrored page whose size and modification time
    match its manifest; unlike the site record (``_stats.trusted``) it does not look at the
    change time (nor the inode), so a page changed with its mtime put back (``touch -r``,
    ``rsync -t``, ``cp -p``, an unpacked cache) is indexed as it is, not as the site has it."""
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    [mirror] = [p for p in cache.rglob("*.search") if p.is_dir()]
    page = mirror / "method" / "index.html"
    st = page.stat()
    data = page.read_bytes()
    word = b"receipt"
    assert word in data
    if tamper:  # (without it, the control: the same builds agree)
        page.write_bytes(data.replace(word, b"zzzzzzz"))  # the same size
        os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    write_receipt(  # any change of input, so that the site is built again
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    clean = _clean(receipts, reports, CONFIG, tmp_path / "clean")
    assert not (d := _diff(_files(out), clean)), d


def test_two_receipts_whose_badge_files_share_a_path(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    """BREAK 5. Receipts ``alpha`` and ``alpha.details`` (a legal name, SAFE_NAME allows
    dots) both write ``badge/alpha.details.json`` (alpha's details, alpha.details'
    endpoint); nothing refused the clash: the later one won in a clean build, and an
    incremental build that kept alpha whole dropped the other's file. Now every build
    refuses it, naming the receipt and the file, and leaves the site as it was."""
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    before = _files(out)
    time.sleep(1.2)  # so that the next build trusts the kept files' stats and keeps alpha whole
    other = receipts / "alpha.details.json"
    write_receipt(scored_receipt({"c1": ([0.9, 0.8, 0.85], [0.5, 0.55, 0.45])}), other)
    with pytest.raises(SiteBuildError) as incremental:
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    with pytest.raises(SiteBuildError) as clean:
        build_site(receipts, reports, tmp_path / "clean", config_file=CONFIG, cache_dir=None)
    expected = (
        "expected a receipt name whose files no other receipt writes: receipt 'alpha' writes "
        "badge/alpha.details.json too; rename one of them"
    )
    assert [(p.file, p.message) for p in clean.value.problems] == [(str(other), expected)]
    assert incremental.value.lines() == clean.value.lines()
    assert _files(out) == before and not (tmp_path / "clean").exists()


def test_a_dependency_whose_output_changed_is_not_served_from_the_cache(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """BREAK 6. The product key (``_cache.product_key``) was Driftproof's version, files and
    templates; no installed library's version was in it, so after a lock-file bump of
    markdown-it-py (or Jinja2, pydantic, selectolax, mkdocs, Pagefind) every cache entry was
    still taken. Now every installed distribution's version is in it. Simulated: a new
    process (the key read again) sees markdown-it-py at another version, which renders
    differently."""
    import importlib.metadata

    import markdown_it

    from driftproof.site import _cache

    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    real = markdown_it.MarkdownIt.render
    monkeypatch.setattr(
        markdown_it.MarkdownIt, "render", lambda self, *a, **k: real(self, *a, **k) + "\n<!--2-->"
    )
    real_distributions = importlib.metadata.distributions

    class Upgraded:
        def __init__(self, d: importlib.metadata.Distribution) -> None:
            self.metadata, self.version = d.metadata, d.version
            if d.metadata["Name"].lower() == "markdown-it-py":
                self.version = d.version + ".post1"

    monkeypatch.setattr(
        importlib.metadata, "distributions", lambda: [Upgraded(d) for d in real_distributions()]
    )
    _cache.product_key.cache_clear()  # a new process reads it again
    write_receipt(  # a receipt Report 001 does not cite: its page's other inputs are unchanged
        scored_receipt({"c1": ([0.2, 0.3, 0.25], [0.5, 0.55, 0.45])}, answer="changed"),
        receipts / "tested.json",
    )
    try:
        build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    finally:
        _cache.product_key.cache_clear()
    where = tmp_path / "clean"
    _same_as_clean((receipts, reports, CONFIG), out, where, ("reports/001/index.html", b"<!--2-->"))


def test_a_page_in_a_linked_folder_of_the_docs_is_read_again(
    tmp_path: Path, site_inputs: tuple[Path, Path]
) -> None:
    """BREAK 7. mkdocs walks ``docs_dir`` following symbolic links (``get_files``:
    ``os.walk(..., followlinks=True)``); ``tree_key`` walks it with ``Path.rglob``, which
    (Python 3.11) does not enter a linked folder, so a page edited there is not seen and
    the build is taken as unchanged (``_unchanged``)."""
    receipts, reports = site_inputs
    docs, shared = tmp_path / "docs", tmp_path / "shared"
    shutil.copytree(REPO / "site_src", docs)
    shared.mkdir()
    (shared / "guide.md").write_text("# Guide\n\nFirst words.\n", encoding="utf-8")
    (docs / "extra").symlink_to(shared, target_is_directory=True)
    config = _config(tmp_path)
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            f"docs_dir: {REPO / 'site_src'}", f"docs_dir: {docs}"
        ),
        encoding="utf-8",
    )
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    (shared / "guide.md").write_text("# Guide\n\nSecond words.\n", encoding="utf-8")
    build_site(receipts, reports, out, config_file=config, cache_dir=cache)
    clean = _clean(receipts, reports, config, tmp_path / "clean")
    assert b"Second words." in clean["extra/guide/index.html"]
    assert not (d := _diff(_files(out), clean)), d


@pytest.mark.parametrize("where", ["environment", "pagefind.yml"])
def test_a_search_setting_from_outside_the_config_is_not_taken(
    tmp_path: Path, site_inputs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """BREAK 8. Pagefind takes settings from ``PAGEFIND_*`` variables and a ``pagefind.yml``
    in its working folder; ``index_for_search`` passed the environment and working folder
    on, and no input key held them, so a clean build's index changed while an unchanged
    build kept the old one. Now Pagefind runs without them (in the mirror, without the
    variables): every build gives the index of the build's own inputs."""
    receipts, reports = site_inputs
    out, cache = tmp_path / "site", tmp_path / CACHE_DIR_NAME
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    before = _files(out)
    if where == "environment":
        monkeypatch.setenv("PAGEFIND_FORCE_LANGUAGE", "fr")
    else:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "pagefind.yml").write_text("force_language: fr\n", encoding="utf-8")
    build_site(receipts, reports, out, config_file=CONFIG, cache_dir=cache)
    clean = _clean(receipts, reports, CONFIG, tmp_path / "clean")
    assert b'"fr"' not in clean["pagefind/pagefind-entry.json"]
    assert not (d := _diff(_files(out), clean)), d
    assert not (d := _diff(before, clean)), d
