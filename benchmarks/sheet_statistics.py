"""The statistics' share of a receipt sheet's CPU, as ratios (issue 18, item 2; not a timed test).

The receipt of ``lift_breakdown.py`` (50 cases × 5 draws per arm × 5 judge samples per draw)
is read once; its sheet (``driftproof.pages.sheet.sheet``: reading, lift breakdown, context) is then
profiled. Prints the share of the sheet's CPU spent in the mean/variance helpers and in the
context figures, and the sheet's time as a ratio to reading the receipt. Run it on two trees
(``PYTHONPATH=<tree> python benchmarks/sheet_statistics.py``) to compare before and after.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lift_breakdown import _best, bench_receipt  # noqa: E402

from driftproof.pages.sheet import sheet  # noqa: E402
from driftproof.receipt import read_receipt, write_receipt  # noqa: E402

#: Functions whose cumulative time counts as "mean/variance": the stdlib's and ours.
_MOMENTS = ("statistics.py", "moments.py")


def _share(
    stats: pstats.Stats, total: float, files: tuple[str, ...], names: tuple[str, ...]
) -> float:
    """Largest cumulative time of a matching function, as a share of ``total``."""
    best = 0.0
    for (file, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        if any(file.endswith(f) for f in files) and name in names:
            best = max(best, row[3])
    return best / total if total else 0.0


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        write_receipt(bench_receipt(), path)
        r = read_receipt(path)
        read = _best(lambda: read_receipt(path))
        sh = _best(lambda: sheet(r, path=path))
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            sheet(r, path=path)
        prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    moments = sum(
        _share(stats, total, (f,), n)
        for f, n in (
            ("statistics.py", ("variance", "stdev")),
            ("moments.py", ("mean_var", "mean_sd", "mean_of")),
        )
    )
    context = _share(stats, total, ("context.py",), ("spread_split", "lift_interval"))
    print("sheet of 50 cases x 5 draws x 5 judge samples")
    print(f"whole sheet / read                   = {sh / read:.2f}")
    print(f"mean/variance helpers / whole sheet  = {moments:.2f}")
    print(f"context figures / whole sheet        = {context:.2f}")


if __name__ == "__main__":
    main()
