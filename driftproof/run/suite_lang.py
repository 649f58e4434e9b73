"""Suite languages: ``language``, ``translations``, the ``controls`` table, and ``--lang``."""

from __future__ import annotations

import re
from typing import Any

from driftproof._json import escape
from driftproof.errors import SuiteError
from driftproof.run.suite_fields import PROMPT_MAX_CHARS, Collector, Suite, read_text

LANGUAGE = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
#: The product's table of translated controls (caveman's ``TERSE_PREFIXES`` in
#: ``evals/llm_run.py``, seed 004): English control text → language → translation.
TRANSLATED_CONTROLS: dict[str, dict[str, str]] = {
    "Answer concisely.": {
        "en": "Answer concisely.",
        "pt": "Responda de forma concisa.",
        "fr": "Réponds de façon concise.",
    },
}


def read_language(c: Collector, v: Any, ptr: str) -> str | None:
    """The suite's ``language`` at ``ptr``, or ``None``; problems go to ``c``."""
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > 35 or not LANGUAGE.match(v):
        c.add(ptr, "expected a language tag such as en, pt or pt-BR")
        return None
    return v


def read_translations(c: Collector, raw: Any, ptr: str) -> dict[str, str]:
    """A case's ``translations`` at ``ptr``: language to prompt; problems go to ``c``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add(ptr, "expected an object {language: prompt}")
        return {}
    out = {}
    for lang in raw:
        if read_language(c, lang, f"{ptr}/{lang}") is None:
            continue
        t = read_text(c, raw, lang, ptr, max_chars=PROMPT_MAX_CHARS)
        if t is not None:
            out[lang] = t
    return out


def read_controls(c: Collector, raw: Any) -> dict[str, dict[str, str]]:
    """The suite's ``controls`` table: control text to its translations; problems go to ``c``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        c.add("/controls", "expected an object {control text: {language: translated control}}")
        return {}
    out: dict[str, dict[str, str]] = {}
    for text, table in raw.items():
        p = "/controls/" + escape(text)
        if not isinstance(table, dict):
            c.add(p, "expected an object {language: translated control}")
            continue
        out[text] = read_translations(c, table, p)
    return out


def in_language(suite: Suite, lang: str, control: str | None) -> tuple[Suite, str | None]:
    """The suite with each case's prompt, and the control, in ``lang``.

    A prompt is ``prompt`` when ``lang`` is the suite's ``language``, else ``translations[lang]``;
    the control comes from the suite's ``controls``, else :data:`TRANSLATED_CONTROLS`, else as
    given in the suite's own language.

    Raises:
        SuiteError: one problem per missing prompt and for a missing control; nothing falls back
            to English.
    """
    import dataclasses

    c = Collector(suite.path)
    if not LANGUAGE.match(lang) or len(lang) > 35:
        raise SuiteError.at(
            suite.path, "", f"--lang {lang!r}: expected a language tag such as en, pt or pt-BR"
        )
    native = suite.language == lang
    cases = []
    for case in suite.cases:
        text = case.prompt if native else case.translations.get(lang)
        if text is None:
            c.add(
                f"{case.pointer}/translations/{lang}",
                f"case {case.id!r} has no prompt in {lang!r}"
                + (
                    f" (the suite's prompts are in {suite.language!r})"
                    if suite.language
                    else " (the suite does not state the language of its prompts)"
                )
                + "; driftproof run stops before any call rather than fall back to another"
                " language",
            )
            continue
        cases.append(dataclasses.replace(case, prompt=text))
    translated = control
    if control is not None:
        table = suite.controls.get(control) or {}
        translated = table.get(lang) or TRANSLATED_CONTROLS.get(control, {}).get(lang)
        if translated is None and native:
            translated = control  # given for the suite's own language, and no table translates it
        if translated is None:
            c.add(
                f"/controls/{escape(control)}/{lang}",
                f"no translated control for {lang!r}: the control {control[:80]!r} has no "
                f"{lang!r} translation in the suite's controls table or the product's; "
                "driftproof run stops before any call rather than send the untranslated control",
            )
    c.raise_if_any()
    return dataclasses.replace(suite, cases=tuple(cases)), translated
