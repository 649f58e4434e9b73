"""The root ``tests/conftest.py`` builders, loaded by path for the view and breakdown tests.

``from conftest import …`` resolves to whichever ``conftest`` module pytest imported
last (``tests/site/conftest.py`` shadows the root one in a full run), so these tests
load the root file under a name of their own.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_NAME = "_driftproof_root_conftest"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).resolve().parent / "conftest.py")
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)

JUDGE = sys.modules[_NAME].JUDGE
case = sys.modules[_NAME].case
make_receipt = sys.modules[_NAME].make_receipt

__all__ = ["JUDGE", "case", "make_receipt"]
