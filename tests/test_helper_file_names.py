"""An error making a temporary file, folder or lock beside an output names the user's path.

Found: in a folder the user cannot write, `regrade --out ro/rg.json` said
"ro/.rg.json.k2j4x9a1.tmp: Permission denied", `reports build --out ro/site`
"ro/.site.build-…" and `demo ro/demo` "ro/.demo.demo-lock": names the user never gave.
"""

from __future__ import annotations

import errno
import os
import tempfile

import pytest

from driftproof import demo, outputs


def _refusing(real, helper_part):  # type: ignore[no-untyped-def]
    """``real``, but a call naming ``helper_part`` fails as a folder not writable does."""

    def call(*args, **kwargs):  # type: ignore[no-untyped-def]
        named = f"{args[0] if args else ''} {kwargs.get('prefix', '')}"
        if helper_part in named:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), f"x/{helper_part}1")
        return real(*args, **kwargs)

    return call


def test_a_staged_copy_not_made_names_the_output(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "mkstemp", _refusing(tempfile.mkstemp, ".rg.json."))
    with pytest.raises(PermissionError) as info:
        outputs.staged_sibling(tmp_path / "rg.json")
    assert info.value.filename == str(tmp_path / "rg.json")


def test_a_demo_lock_or_stage_not_made_names_the_folder(tmp_path, monkeypatch):
    folder = tmp_path / "demo"
    with monkeypatch.context() as m:
        m.setattr(os, "open", _refusing(os.open, ".demo.demo-lock"))
        with pytest.raises(PermissionError) as info:
            demo.run_demo(folder)
    assert info.value.filename == str(folder)
    monkeypatch.setattr(tempfile, "mkdtemp", _refusing(tempfile.mkdtemp, ".demo.build-"))
    with pytest.raises(PermissionError) as info:
        demo.run_demo(folder)
    assert info.value.filename == str(folder) and not folder.exists()


def test_a_site_stage_not_made_names_the_out_folder(tmp_path, monkeypatch):
    from driftproof.site._paths import default_config
    from driftproof.site.publish import build_site

    (tmp_path / "receipts").mkdir()
    (tmp_path / "reports").mkdir()
    out = tmp_path / "site"
    monkeypatch.setattr(tempfile, "mkdtemp", _refusing(tempfile.mkdtemp, ".site.build-"))
    with pytest.raises(PermissionError) as info:
        build_site(tmp_path / "receipts", tmp_path / "reports", out, config_file=default_config())
    assert info.value.filename == str(out) and not out.exists()
