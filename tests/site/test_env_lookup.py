"""The page environment's shortcut for ``d.name`` on a plain dict (issue 19): it must find
what Jinja finds (attribute first, then item), so every page renders the same with it as
with Jinja's own lookup."""

from __future__ import annotations

import collections
from types import SimpleNamespace
from typing import Any

import jinja2
import pytest

from driftproof.site.html import make_env


def _both(template: str, **ctx: Any) -> tuple[str, str]:
    ours = make_env([])
    theirs = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, finalize=ours.finalize
    )
    return (
        ours.from_string(template).render(**ctx),
        theirs.from_string(template).render(**ctx),
    )


@pytest.mark.parametrize(
    ("template", "ctx", "expected"),
    [
        # a member name that no dict attribute has: the item
        ("{{ d.score }}", {"d": {"score": "0.70"}}, "0.70"),
        # a name that is a dict method: the method, as Jinja gives it, not the item
        ("{{ d.items()|list|length }}", {"d": {"items": "x", "b": 1}}, "2"),
        ("{{ d.get('b') }}", {"d": {"get": "x", "b": 1}}, "1"),
        # a dict subclass and an object: Jinja's own rule, untouched
        ("{{ d.score }}", {"d": collections.OrderedDict(score=1)}, "1"),
        ("{{ d.score }}", {"d": SimpleNamespace(score=2)}, "2"),
        # an undefined member that a test asks about
        ("{{ d.missing is defined }}", {"d": {"score": 1}}, "False"),
        ("{{ d.missing | default('none') }}", {"d": {}}, "none"),
        # untrusted text is escaped either way
        ("{{ d.answer }}", {"d": {"answer": "<script>"}}, "&lt;script&gt;"),
    ],
)
def test_the_shortcut_finds_what_jinja_finds(template: str, ctx: Any, expected: str) -> None:
    ours, theirs = _both(template, **ctx)
    assert ours == theirs == expected


def test_a_missing_member_still_fails_the_page() -> None:
    env = make_env([])
    with pytest.raises(jinja2.UndefinedError, match="'dict object' has no attribute 'missing'"):
        env.from_string("{{ d.missing }}").render(d={"score": 1})
