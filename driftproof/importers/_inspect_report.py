"""What an Inspect AI log reports about its own run, kept as the source's figures.

Each epoch stays a draw (D-1); the epoch reducers' results (``reductions[]`` per sample,
``results.scores[]`` per run, a ``ci()`` as one figure with its bounds) are read where Inspect
wrote them, never recomputed (D-15); a NaN is printed, with no value; an unnamed reducer stays
unnamed (D-13).
"""

from __future__ import annotations

import json
import math
from typing import Any

from driftproof._json import member_object
from driftproof.importers._common import Where, case_id_for, is_count, source_number
from driftproof.importers._declared import figure
from driftproof.importers._inspect_log import Log, value_to_float

#: The most figures a receipt's source report holds (the schema's bound).
MAX_FIGURES = 10000


def declared_reducers(log: Log) -> list[str] | None:
    """``eval.config.epochs_reducer`` as the log declares it; ``None`` when it declares none."""
    config = member_object(member_object(log.header, "eval"), "config")
    reducers = config.get("epochs_reducer")
    return [r[:200] for r in reducers][:20] if isinstance(reducers, list) else None


def _scalar(value: Any, w: Where) -> tuple[float | None, str | None]:
    """(value, print) of one reduced scalar: a NaN or infinity has no value, only its print."""
    f = value_to_float(value)
    if f is None:
        raise w.fail("expected a reduced score (C/I/P/N, a boolean or a number), or NaN")
    if not math.isfinite(f):
        return None, json.dumps(value)  # NaN, Infinity: as the log writes them
    return f, (value[:200] if isinstance(value, str) else None)


def sample_figures(log: Log, scorer: str, arm: str) -> list[dict[str, Any]]:
    """Each sample's reduced value from ``scorer``, per reducer, in the log's order.

    Raises:
        ImportError_: a reduced value that is not a score, a dict or list of scores, naming the
            file and pointer.
    """
    if log.reductions is None:
        return []
    reductions, rw = log.reductions
    out = []
    for i, red in enumerate(reductions):
        if red.get("scorer") != scorer:
            continue
        reducer = red.get("reducer")
        for k, s in enumerate(red["samples"]):
            sw = rw / i / "samples" / k
            if "value" not in s:
                raise (sw / "value").fail("expected the sample's reduced value, found none")
            value, vw = s["value"], sw / "value"
            if isinstance(value, dict):
                parts = [(f"{scorer} {key}, reduced", v, vw / key) for key, v in value.items()]
            elif isinstance(value, list):
                parts = [(f"{scorer} [{n + 1}], reduced", v, vw / n) for n, v in enumerate(value)]
            else:
                parts = [(f"{scorer}, reduced", value, vw)]
            sid = s.get("sample_id")
            case = None if sid is None else case_id_for(str(sid))
            for label, v, w in parts:
                number, printed = _scalar(v, w)
                out.append(
                    figure(label, number, case=case, arm=arm, reducer=reducer, printed=printed)
                )
    return out


def run_figures(log: Log, scorer: str, arm: str) -> list[dict[str, Any]]:
    """The run's figures from ``scorer`` in ``results.scores[]``: its counts and metrics."""
    out = []
    for i, score in enumerate(member_object(log.header, "results").get("scores") or []):
        if (score.get("scorer") or score.get("name")) != scorer:
            continue
        sw = log.where / "results" / "scores" / i
        name = str(score.get("name") or scorer)
        reducer = score.get("reducer")
        more = {"arm": arm, "reducer": reducer}
        for member in ("scored_samples", "unscored_samples"):
            if is_count(score.get(member)):
                label = f"{name} {member.replace('_', ' ')}"
                out.append(figure(label, sw.number(score, member), unit="count", **more))
        interval: dict[str, Any] = {}
        for key, m in (score.get("metrics") or {}).items():
            group, leaf = m.get("group"), str(m.get("name") or key)
            value = m.get("value")
            if isinstance(value, int):  # an integer no float holds exactly is refused
                source_number(value, sw / "metrics" / key / "value")
            number = value if isinstance(value, (int, float)) and math.isfinite(value) else None
            if group == "ci" and leaf in ("lower", "upper"):
                interval[leaf] = number
                level = (m.get("params") or {}).get("level")
                if isinstance(level, float) and 0 < level < 1:
                    interval["level"] = level
                continue
            label = f"{name} {group} {leaf}" if group else f"{name} {leaf}"
            printed = None if number is not None or value is None else json.dumps(value)
            out.append(figure(label, number, printed=printed, **more))
        if interval:
            out.append(figure(f"{name} ci", None, **interval, **more))
    return out


def source_report(
    read: dict[str, Log], scorers: dict[str, str], unrecorded: list[str]
) -> dict[str, Any] | None:
    """Every arm's run figures, then sample figures (unrecorded past the receipt's limit).

    ``None`` when the logs report nothing.
    """
    run_figs = [f for arm, log in read.items() for f in run_figures(log, scorers[arm], arm)]
    sample_figs = [f for arm, log in read.items() for f in sample_figures(log, scorers[arm], arm)]
    reducers = {arm: declared_reducers(log) for arm, log in read.items()}
    if len(run_figs) + len(sample_figs) > MAX_FIGURES:
        unrecorded.append(
            f"the source's per-sample reduced values ({len(sample_figs)}, more than a receipt "
            "holds)"
        )
        sample_figs = []
    declared = list({tuple(r) if r is not None else None for r in reducers.values()})
    if len(declared) > 1:
        unrecorded.append("the epoch reducers (the arms' logs declare different ones)")
    same = list(declared[0]) if len(declared) == 1 and declared[0] is not None else None
    if not run_figs and not sample_figs and same is None:
        return None
    report: dict[str, Any] = {"figures": run_figs + sample_figs}
    if same is not None:
        report["reducers"] = same
    return report
