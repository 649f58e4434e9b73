"""summary-json: the run's start time, read as RFC 3339 and the receipt's date-time allow."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import write_json
from test_summary_json import DOC

from driftproof.errors import ImportError_
from driftproof.importers.summary_json import import_summary_json


@pytest.mark.parametrize(
    "when", ["15 September 2026", "2026-13-45T25:61:61Z", "2026-02-30T10:00:00Z"]
)
def test_an_impossible_started_at_is_refused(tmp_path: Path, when: str) -> None:
    # The schema gives started_at no pattern, only format date-time: the format must be checked.
    f = write_json(tmp_path / "bad.json", dict(DOC, started_at=when))
    with pytest.raises(ImportError_) as e:
        import_summary_json(f)
    (p,) = e.value.problems
    assert p.pointer == "/started_at" and when in p.message


@pytest.mark.parametrize(
    ("when", "stored"),
    [  # RFC 3339 allows any number of fraction digits: kept as written, to the microsecond
        ("2026-01-01T00:00:00.123456789012Z", "2026-01-01T00:00:00.123456Z"),
        ("2026-01-01T09:58:55.9999999999-04:00", "2026-01-01T13:58:55.999999Z"),
        ("2026-01-01T00:00:00.181Z", "2026-01-01T00:00:00.181Z"),
    ],
)
def test_a_started_at_with_any_number_of_fraction_digits_imports(
    tmp_path: Path, when: str, stored: str
) -> None:
    # Found: ten or more fraction digits were refused as "not an RFC 3339 date-time"
    (item,) = import_summary_json(write_json(tmp_path / "s.json", dict(DOC, started_at=when)))
    assert item.body.to_json_dict()["run"]["started_at"] == stored


@pytest.mark.parametrize("when", ["2026-01-01t00:00:00z", "2026-01-01T00:00:00z"])
def test_a_started_at_in_small_letters_is_refused_saying_capitals(
    tmp_path: Path, when: str
) -> None:
    # RFC 3339 allows a small t and z; a receipt's date-time does not, and the refusal says so
    with pytest.raises(ImportError_) as e:
        import_summary_json(write_json(tmp_path / "s.json", dict(DOC, started_at=when)))
    (p,) = e.value.problems
    assert (p.pointer, p.message) == (
        "/started_at",
        f"expected an RFC 3339 date-time with an offset, its T and Z in capitals, found {when!r}",
    )
