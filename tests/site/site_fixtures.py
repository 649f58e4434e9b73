"""Builders for the site tests: small receipts and reports (imported by name, not as conftest)."""

from __future__ import annotations

import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from receipt_docs import draw_doc, judge_sample_doc, receipt_doc

from driftproof.cli import main
from driftproof.errors import SiteBuildError
from driftproof.pages.report import Report
from driftproof.site import build_site
from driftproof.site.inputs import find_inputs

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class SiteInputs:
    """The inputs: each receipt file's bytes by name (name order), and the reports."""

    receipts: dict[str, bytes]
    reports: list[Report]


def load_inputs(receipts_dir: Path, reports_dir: Path) -> SiteInputs:
    """The inputs as found by the build, for :func:`build_site_files` (which checks receipts).

    For valid inputs only: refusals are tested on the real build (:func:`refused_build`).
    """
    found = find_inputs(receipts_dir, reports_dir)
    assert found.problems == []
    return SiteInputs({n: p.read_bytes() for n, p in found.paths.items()}, found.reports)


def refused_build(receipts_dir: Path, reports_dir: Path, out: Path) -> SiteBuildError:
    """The real build's refusal of these inputs (the shipped config, no cache).

    Asserts that ``out`` was not made and that no build folder was left beside it.
    """
    with pytest.raises(SiteBuildError) as exc:
        build_site(receipts_dir, reports_dir, out, config_file=REPO / "mkdocs.yml", cache_dir=None)
    assert not out.exists()
    assert [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")] == []
    return exc.value


JUDGE = {
    "model": "claude-haiku-4-5-20251001",
    "provider": "anthropic",
    "surface": "api",
    "service": "https://api.anthropic.com",
    "sampling": {"temperature": 1.0},
    "template_sha256": "0" * 64,
    "scale": {"worst": 0.0, "best": 1.0, "step": 0.05},
    "price": None,
}


def scored_arm(scores: list[float], answer: str = "an answer") -> dict[str, Any]:
    """An arm with one draw per score, each judged once with that score."""
    return {
        "draws": [
            draw_doc(i, answer=f"{answer} {i}", judge_samples=[judge_sample_doc(s, reply=str(s))])
            for i, s in enumerate(scores)
        ],
        "generation": None,
    }


def token_arm(output: int, answer: str = "an answer") -> dict[str, Any]:
    """One unscored draw with an output-token count (as caveman imports carry)."""
    return {
        "draws": [
            draw_doc(
                0,
                answer=answer,
                tokens={"input": None, "output": output, "counted_by": "o200k_base"},
            )
        ],
        "generation": None,
    }


def scored_receipt(
    cases: dict[str, tuple[list[float], list[float]]],
    *,
    answer: str = "an answer",
    skill: str = "demo-skill",
) -> dict[str, Any]:
    """An unsealed TESTED receipt document with a judge; cases: id → (with-skill, baseline)
    scores."""
    docs = [
        {
            "id": cid,
            "prompt": f"prompt {cid}",
            "prompt_sha256": None,
            "rubric_sha256": "1" * 64,
            "threshold": None,
            "arms": {"with_skill": scored_arm(w, answer), "baseline": scored_arm(b)},
        }
        for cid, (w, b) in cases.items()
    ]
    # as a run records it: the draws of every arm when they are all the same number
    counts = {len(scores) for pair in cases.values() for scores in pair}
    return receipt_doc(
        level="TESTED",
        skill_name=skill,
        skill_text="x" * 1600,
        cases=docs,
        model="claude-sonnet-4-5",
        provider="anthropic",
        surface="api",
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=counts.pop() if len(counts) == 1 else None,
        judge_samples_per_generation=1,
    )


def savings_receipt(
    skill: str, tokens: dict[str, tuple[int, int, int]], *, answer: str = "short"
) -> dict[str, Any]:
    """A DECLARED receipt with a control arm; tokens: case id → (skill, control, baseline)
    output tokens."""
    docs = [
        {
            "id": cid,
            "prompt": f"question {cid}",
            "prompt_sha256": None,
            "rubric_sha256": None,
            "threshold": None,
            "arms": {
                "with_skill": token_arm(s, answer),
                "control": token_arm(c),
                "baseline": token_arm(b),
            },
        }
        for cid, (s, c, b) in tokens.items()
    ]
    spec = {"label": None, "instruction": None, "system_prompt_sha256": None}
    return receipt_doc(
        level="DECLARED",
        skill_name=skill,
        skill_text="y" * 400,
        cases=docs,
        arms={
            "with_skill": dict(spec, label=skill),
            "baseline": dict(spec, label="__baseline__"),
            "control": dict(spec, label="__terse__"),
        },
    )


def write_report(reports: Path, name: str, front: str, body: str = "Some prose.\n") -> Path:
    reports.mkdir(parents=True, exist_ok=True)
    path = reports / name
    path.write_text("---\n" + textwrap.dedent(front).strip() + "\n---\n" + body, encoding="utf-8")
    return path


#: Answers a model or an imported file could hold, each of which must show as plain text
#: (issue 15: "the hostile-answer corpus in the tests renders as text").
HOSTILE_ANSWERS = (
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    "</pre></details></section><h1>injected</h1>",
    "[click](javascript:window.__pwned=3) and **bold** <b>tag</b>",
    "{{ 7 * 7 }} {% raw %} ${7*7} &lt;already&gt; &amp;",
    "NUL\x00 ESC\x1b[31m BEL\x07 DEL\x7f C1\x85",
    "right-to-left \u202eoverride\u202c and zero\u200bwidth",
    "x" * 3000,  # one unbroken token, longer than any screen
    "line\n" * 60,  # a long answer: folds open
)


def hostile_receipt() -> dict[str, Any]:
    """A TESTED receipt whose case ``h1`` holds every :data:`HOSTILE_ANSWERS` entry in both arms,
    with judge reasons, a refusal, a stop reason and a lost draw (0.15 fields)."""

    def arm(scores: list[float]) -> dict[str, Any]:
        draws = [
            draw_doc(
                i,
                answer=a,
                judge_samples=[judge_sample_doc(s, reply=str(s), reason=f"reason {i}: {a[:40]}")],
                stop_reason="end_turn",
            )
            for i, (a, s) in enumerate(zip(HOSTILE_ANSWERS, scores, strict=False))
        ]
        draws.append(
            draw_doc(
                len(draws),
                answer=None,
                lost_reason="<b>refused</b>",
                lost_kind="refusal",
                refusal={"text": "<i>I can't</i>", "category": "policy"},
                stop_reason="refusal",
            )
        )
        return {"draws": draws, "generation": None}

    n = len(HOSTILE_ANSWERS)
    docs = [
        {
            "id": "h1",
            "prompt": "<script>window.__pwned = 4</script> prompt",
            "prompt_sha256": None,
            "rubric_sha256": "1" * 64,
            "threshold": None,
            "arms": {"with_skill": arm([0.8] * n), "baseline": arm([0.5] * n)},
        }
    ]
    return receipt_doc(
        level="TESTED",
        skill_name="<b>hostile</b>",
        skill_text="x" * 1600,
        cases=docs,
        model="claude-sonnet-4-5",
        provider="anthropic",
        surface="api",
        judge=JUDGE,
        band_source="generation",
        generations_per_arm=n + 1,
        judge_samples_per_generation=1,
    )


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a built site by its path under the site, with its bytes."""
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def docs_config(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the hand-written pages in ``tmp_path/docs`` and an mkdocs.yml that builds them."""
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "site_src", docs)
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("docs_dir: site_src", f"docs_dir: {docs}")
    text = text.replace("custom_dir: templates/theme", f"custom_dir: {REPO / 'templates/theme'}")
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    return docs, config


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def build_args(
    receipts: Path, reports: Path, out: Path, config: Path = REPO / "mkdocs.yml"
) -> list[str]:
    """``reports build`` of ``receipts`` and ``reports`` into ``out`` with the mkdocs ``config``."""
    return [
        "reports",
        "build",
        "--receipts",
        str(receipts),
        "--reports",
        str(reports),
        "--out",
        str(out),
        "--config",
        str(config),
    ]


def section_html(section_type: str, receipt_name: str) -> str:
    """The HTML of a section of ``section_type`` over one committed receipt, default params."""
    from types import SimpleNamespace

    from driftproof.receipt import read_receipt
    from driftproof.site.html import make_env
    from driftproof.site.sections import SectionContext, section_types

    env = make_env([REPO / "templates" / "pages", REPO / "templates" / "theme"])
    r = read_receipt(REPO / "receipts" / f"{receipt_name}.json")
    ctx = SectionContext(report=SimpleNamespace(source="r.md"), receipts={"a": r}, env=env, root="")
    section = section_types()[section_type]
    return str(section.render(section.Params(), ctx).html)
