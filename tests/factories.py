"""Builders of receipt documents with hand-chosen scores, shared by the tests.

Import as ``from factories import case, make_receipt`` (never ``from conftest import``:
sub-folder conftest modules would shadow it)."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from receipt_docs import draw_doc, judge_sample_doc, receipt_doc, seal_document

from driftproof.pages.plan import CasePlan, Plan
from driftproof.receipt import Receipt, ReceiptBody, Seal, compute_seal

#: ../shared (read-only reference data): DRIFTPROOF_SHARED when set, else the folder CI lays
#: beside the clone. Tests that need it skip, naming the reason, when it is absent.
SHARED = (
    Path(os.environ["DRIFTPROOF_SHARED"]).resolve()
    if os.environ.get("DRIFTPROOF_SHARED")
    else Path(__file__).resolve().parents[1].parent / "shared"
)

JUDGE = {
    "model": "claude-haiku-4-5-20251001",
    "provider": "anthropic",
    "surface": "api",
    "service": "https://api.anthropic.com",
    "sampling": {"temperature": 1.0, "max_tokens": 512},
    "template_sha256": "0" * 64,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 5.0},
}


def arm(scores: list[float | None], lost_reason: str = "timeout after 2 retries") -> dict[str, Any]:
    """An arm whose draws have the given per-draw scores; ``None`` marks a lost draw."""
    draws = []
    for i, s in enumerate(scores):
        if s is None:
            draws.append(draw_doc(i, answer=None, lost_reason=lost_reason))
        else:
            draws.append(
                draw_doc(
                    i,
                    answer=f"answer {i}",
                    judge_samples=[
                        judge_sample_doc(s, reply=f"{s}", reported_model=JUDGE["model"])
                    ],
                )
            )
    return {"draws": draws, "generation": None}


def case(cid: str, with_skill: list[float | None], baseline: list[float | None]) -> dict[str, Any]:
    """A case document with the given per-draw scores in each arm."""
    return {
        "id": cid,
        "prompt": f"prompt of {cid}",
        "prompt_sha256": None,
        "rubric_sha256": "1" * 64,
        "threshold": None,
        "arms": {"with_skill": arm(with_skill), "baseline": arm(baseline)},
    }


def _uniform(cases: list[dict[str, Any]], *, draws: bool) -> int | None:
    """As a run records them: the draws of every arm (``draws``), or the judge samples of every
    judged draw, when they are all the same number; else ``None`` (with none: 3 draws, 1 sample)."""
    arms = [a for c in cases for a in c["arms"].values() if a is not None]
    if draws:
        counts = {len(a["draws"]) for a in arms if a["draws"]} or {3}
    else:
        counts = {len(d["judge_samples"]) for a in arms for d in a["draws"] if d["judge_samples"]}
        counts = counts or {1}
    return counts.pop() if len(counts) == 1 else None


def make_receipt(
    cases: list[dict[str, Any]],
    *,
    level: str = "TESTED",
    preset: str | None = None,
    band_source: str = "generation",
    **kw: Any,
) -> dict[str, Any]:
    """A sealed receipt document (plain JSON data) with a judge and the given cases."""
    doc = receipt_doc(
        level=level,
        skill_name="demo-skill",
        skill_text=kw.pop("skill_text", "x" * 1600),
        cases=cases,
        model="claude-sonnet-4-5",
        provider="anthropic",
        surface="api",
        preset=preset,
        judge=kw.pop("judge", copy.deepcopy(JUDGE)),
        band_source=band_source,
        generations_per_arm=kw.pop("generations_per_arm", _uniform(cases, draws=True)),
        judge_samples_per_generation=kw.pop(
            "judge_samples_per_generation", _uniform(cases, draws=False)
        ),
        **kw,
    )
    return seal_document(doc)


def _replaced(node: Any, parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(node, list):
        out = list(node)
        out[int(head)] = _replaced(node[int(head)], rest, value)
        return out
    assert isinstance(node, BaseModel), f"no member {head!r} under {type(node).__name__}"
    return node.model_copy(update={head: _replaced(getattr(node, head), rest, value)})


def _sealed(body: ReceiptBody) -> Receipt:
    """``body`` sealed (D-12), not validated again and not written."""
    seal = Seal(algorithm="sha256-rfc8785", sha256=compute_seal(body.to_json_dict()))
    members = {name: getattr(body, name) for name in ReceiptBody.model_fields}
    return Receipt.model_construct(body.model_fields_set | {"seal"}, **members, seal=seal)


def edited(receipt: Receipt, pointer: str, value: Any) -> Receipt:
    """``receipt`` with the member at ``pointer`` (a JSON pointer such as ``/cases/0/id``,
    field names as the model spells them) set to ``value``, then sealed again.

    ``model_copy`` checks nothing, so this is how a test holds a receipt the model and the
    frozen schema refuse (a smoke run restamped TESTED, a bad hash, a score off the scale): what
    a buggy writer could hold in memory, to test a reader's own defences. ``value`` is given as
    the model holds it (a nested part as its model, not as a dict).
    """
    return _sealed(_replaced(receipt, pointer.split("/")[1:], value))


def run_main(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    """Run the ``driftproof`` entry point as the console does: (exit status, stdout, stderr)."""
    from driftproof.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def imported(tool: str, source: Path, out_dir: Path, capsys: Any) -> Path:
    """``driftproof import TOOL SOURCE --out-dir OUT_DIR``, which must write one receipt: it."""
    code, _, err = run_main(["import", tool, str(source), "--out-dir", str(out_dir)], capsys)
    assert code == 0, err
    (path,) = out_dir.glob("*.json")
    return path


def view_formats(path: Path, capsys: Any) -> dict[str, str]:
    """``driftproof view PATH`` in text, markdown and json -> each one's stdout (each exits 0)."""
    out = {}
    for fmt in ("text", "markdown", "json"):
        code, text, err = run_main(["view", str(path), "--format", fmt], capsys)
        assert code == 0, err
        out[fmt] = text
    return out


def run_action(
    tmp_path: Path, monkeypatch: Any, baseline: Path, receipt: Path, fail_on: str | None
) -> tuple[int, str]:
    """Run the GitHub Action on two receipt files as action.yml does, through the environment:
    (exit status, the job summary). ``fail_on`` None leaves the input unset (its default)."""
    from driftproof import action

    summary = tmp_path / "summary.md"
    summary.unlink(missing_ok=True)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # as GitHub sets it for every step
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("DRIFTPROOF_BASELINE", str(baseline))
    monkeypatch.setenv("DRIFTPROOF_RECEIPT", str(receipt))
    if fail_on is None:
        monkeypatch.delenv("DRIFTPROOF_FAIL_ON", raising=False)
    else:
        monkeypatch.setenv("DRIFTPROOF_FAIL_ON", fail_on)
    return action.main([]), summary.read_text(encoding="utf-8")


def small_plan(case_id: str = "c1") -> Plan:
    """A plan of 7 draws per arm for one case ``case_id`` (a pilot of 3 a side), costed by hand."""
    return Plan(
        draws_per_arm=7,
        cases=(CasePlan(case_id, 7, False, (3, 3)),),
        no_count_cases=(),
        unknown_cases=(),
        cases_disagree=False,
        sentence=None,
        suite_band=None,
        arms=("with_skill", "baseline"),
        answer_calls=14,
        judge_calls=42,
        judge_usd=0.5,
        cost_note="by hand",
    )
