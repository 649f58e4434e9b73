"""The note when two compared receipts answered their prompts under different set-ups (D-6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

_SURFACE = {"api": "through the model's API", "cli": "through a command-line agent"}
_CAPTURE = {"text": "the reply alone", "files": "the reply and the files the agent left"}
_SKILL_ARM = {
    "skill": "the skill alone",
    "control_then_skill": "a fixed instruction followed by the skill",
}


def _harness(r: Receipt) -> str | None:
    h = r.run.harness
    if h is None:
        return None
    return h.name if h.version is None else f"{h.name} {h.version}"


def _differences(a: Receipt, b: Receipt) -> list[str]:
    """Each set-up both receipts record and that differs, labelled, in words (earlier, later)."""
    ra, rb = a.run, b.run
    pairs = (
        ("how it was answered", _SURFACE.get(ra.surface or ""), _SURFACE.get(rb.surface or "")),
        ("the agent", _harness(a), _harness(b)),
        ("what was graded", _CAPTURE.get(ra.capture or ""), _CAPTURE.get(rb.capture or "")),
        ("the prompts' language", ra.language, rb.language),
        (
            "the skill arm's instructions",
            _SKILL_ARM.get(a.arms.with_skill.construction or ""),
            _SKILL_ARM.get(b.arms.with_skill.construction or ""),
        ),
    )
    return [f"{what}: {x} (earlier), {y} (later)" for what, x, y in pairs if x and y and x != y]


def setup_note(a: Receipt, b: Receipt) -> str | None:
    """The note when ``a`` and ``b`` were run under different set-ups, else ``None``.

    A set-up either receipt does not record is not called different.
    """
    found = _differences(a, b)
    if not found:
        return None
    return (
        f"The two receipts were run differently ({'; '.join(found)}): a change between them may "
        "be the set-up's, not the skill's."
    )
