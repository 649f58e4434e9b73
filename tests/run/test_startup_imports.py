"""A run on an offline lane, and ``driftproof run --help``, import no provider SDK."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
{body}
print(json.dumps(sorted(m for m in ("openai", "anthropic") if m in sys.modules)))
"""


def _sdks_imported(body: str) -> list[str]:
    """The provider SDKs a fresh interpreter holds after running ``body``."""
    code = PROBE.format(body=body)
    cp = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(cp.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("lane", ["stub", "simulated"])
def test_an_offline_run_imports_no_provider_sdk(lane: str) -> None:
    body = (
        "import driftproof.run.engine, driftproof.run.suite\n"
        "from driftproof.run.providers import make_provider\n"
        f"make_provider({lane!r}, None)"
    )
    assert _sdks_imported(body) == []


def test_run_help_imports_no_provider_sdk_and_no_run_machinery() -> None:
    body = (
        "from click.testing import CliRunner\n"
        "from driftproof.cli import cli\n"
        "r = CliRunner().invoke(cli, ['run', '--help'])\n"
        "assert r.exit_code == 0, r.output\n"
        "assert 'driftproof.run.engine' not in sys.modules"
    )
    assert _sdks_imported(body) == []
