"""The site builds from an installed wheel, in a directory holding only receipts/ and reports/
(issue 19).

The wheel is built from a copy of the source tree (offline: no build isolation, the pinned
setuptools of this environment), installed with ``--no-deps --no-index`` into a fresh venv
whose only other packages are this environment's (a ``.pth`` line, read after the wheel's
own site-packages, so the wheel's ``driftproof`` wins over the editable checkout). No network.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from site_fixtures import REPO

#: What a wheel is built from (the rest of the checkout is not needed).
SOURCES = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "mkdocs.yml",
    "driftproof",
    "templates",
    "site_src",
)
#: Report 001 and its four receipts: a small example site.
REPORT = "001-caveman-against-the-terse-control.md"


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"{cmd}: {res.stdout[-2000:]}\n{res.stderr[-4000:]}"
    return res


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel built from this checkout; returns its bin/ directory."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        p = REPO / name
        if p.is_dir():
            shutil.copytree(
                p, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            )
        else:
            shutil.copy2(p, src / name)
    dist = base / "dist"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(src),
        ],
        cwd=base,
    )
    (wheel,) = dist.glob("driftproof-*.whl")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        cwd=base,
    )
    # The dependencies: this environment's site-packages, after the venv's own.
    purelib = Path(
        subprocess.check_output(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()] or [
        sysconfig.get_paths()["purelib"]
    ]
    (purelib / "zz_test_deps.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return env_dir / "bin"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(SOURCE_DATE_EPOCH="1764374400", MPLBACKEND="Agg", NO_MKDOCS_2_WARNING="1")
    return env


def test_the_wheel_carries_templates_theme_pages_and_schemas(installed: Path) -> None:
    code = (
        "import driftproof, pathlib; from driftproof.site._paths import site_data_root; "
        "from driftproof.receipt import known_versions, schema_bytes; "
        "print(driftproof.__file__); print(site_data_root()); "
        "print(len(schema_bytes(known_versions()[-1])))"
    )
    out = _run(
        [str(installed / "python"), "-c", code], cwd=installed, env=_env()
    ).stdout.splitlines()
    package = Path(out[0]).parent
    assert not package.is_relative_to(REPO), (
        "the test must import the installed wheel, not the checkout"
    )
    assert Path(out[1]) == package / "_site"
    for rel in (
        "mkdocs.yml",
        "templates/theme/layout.html",
        "templates/pages/report.html",
        "site_src/index.md",
        "site_src/method.md",
    ):
        assert (Path(out[1]) / rel).is_file(), rel
    assert int(out[2]) > 1000


def test_reports_build_works_in_a_directory_with_only_receipts_and_reports(
    installed: Path, tmp_path: Path
) -> None:
    (tmp_path / "receipts").mkdir()
    (tmp_path / "reports").mkdir()
    shutil.copy2(REPO / "reports" / REPORT, tmp_path / "reports" / REPORT)
    for p in sorted((REPO / "receipts").glob("caveman-2b10489-*.json")):  # report 001's four
        shutil.copy2(p, tmp_path / "receipts" / p.name)
    res = _run([str(installed / "driftproof"), "reports", "build"], cwd=tmp_path, env=_env())
    assert "1 report, 4 receipts" in res.stdout
    site_dir = tmp_path / "site"
    home = (site_dir / "index.html").read_text(encoding="utf-8")
    assert "reports/001/" in home and "Caveman" in home
    assert (site_dir / "reports" / "001" / "index.html").is_file()
    assert (site_dir / "method.html").is_file()
    assert (site_dir / "spec" / "receipt.schema.json").is_file()
    assert (site_dir / "receipts" / "caveman-2b10489-caveman" / "index.html").is_file()
    # nothing but the site (and the build cache) was written beside the inputs
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".driftproof-cache") == [
        "receipts",
        "reports",
        "site",
    ]
