"""Write the receipt fixtures under ``tests/receipt/fixtures/<version>/``.

Run ``.venv/bin/python tests/receipt/make_fixtures.py`` after changing this file; the
outputs are committed. Every document is written by hand here from the shape each
version's frozen schema describes (not by the package's builders or migrations), and
sealed with the ``rfc8785`` library directly (D-12), so the tests check the reader
against data made independently of it.

Per version:
* ``valid-*.json`` — sealed receipts the reader must accept;
* ``invalid-<rule>.json`` — each breaks exactly one rule and is sealed again afterwards
  (except the seal fixtures), so only that rule can refuse it;
* ``expected.json`` — for each invalid fixture: the error class, the JSON pointer the
  message must name, and a phrase the message must contain.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from fixture_invalid import invalid
from fixture_shapes import OUT, VERSIONS, base, seal, valid


def write(path: Path, doc: Any) -> None:
    path.write_text(
        json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def main() -> None:
    for version in VERSIONS:
        folder = OUT / version
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.json"):
            old.unlink()
        for stem, doc in valid(version).items():
            write(folder / f"{stem}.json", seal(doc))
        expected: dict[str, dict[str, str]] = {}
        for stem, (mutate, error, pointer, phrase) in invalid(version).items():
            doc = copy.deepcopy(base(version))
            mutate(doc)
            write(folder / f"invalid-{stem}.json", doc if stem == "seal-algorithm" else seal(doc))
            expected[f"invalid-{stem}.json"] = {
                "error": error,
                "pointer": pointer,
                "contains": phrase,
            }
        # The seal itself: content changed after sealing, and no seal at all.
        tampered = seal(base(version))
        tampered["cases"][0]["arms"]["with_skill"]["draws"][0]["answer"] = "answer 0, edited"
        write(folder / "invalid-seal-mismatch.json", tampered)
        expected["invalid-seal-mismatch.json"] = {
            "error": "SealError",
            "pointer": "/seal/sha256",
            "contains": "changed after it was sealed",
        }
        write(folder / "invalid-seal-missing.json", base(version))
        expected["invalid-seal-missing.json"] = {
            "error": "ReceiptError",
            "pointer": "/seal",
            "contains": "expected member",
        }
        # Text-level faults JSON data cannot express.
        text = json.dumps(seal(base(version)), indent=2, sort_keys=True)
        (folder / "invalid-duplicate-key.json").write_text(
            text.replace(
                '"schema_version"', f'"schema_version": "{version}",\n  "schema_version"', 1
            ),
            encoding="utf-8",
        )
        expected["invalid-duplicate-key.json"] = {
            "error": "ReceiptError",
            "pointer": "",
            "contains": "unique member names",
        }
        (folder / "invalid-nan.json").write_text(
            text.replace('"score": 0.8,', '"score": NaN,', 1), encoding="utf-8"
        )
        expected["invalid-nan.json"] = {"error": "ReceiptError", "pointer": "", "contains": "NaN"}
        write(folder / "expected.json", expected)


if __name__ == "__main__":
    main()
