"""A suite file's text parsed within the receipt loader's bounds, one line per problem.

JSON goes through :func:`driftproof._json.loads_strict`, YAML through :class:`SuiteLoader`.
"""

from __future__ import annotations

import re
import sys
from typing import Any, NoReturn

import yaml

from driftproof._json import JSONFault, loads_strict
from driftproof.errors import BoundsError, SuiteError
from driftproof.receipt._bounds import MAX_DEPTH, check_json_bounds

_STR = "tag:yaml.org,2002:str"
#: An integer as JSON writes it (a minus sign, digits, no leading zero).
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)")


def _refuse(error: type[yaml.MarkedYAMLError], problem: str, mark: yaml.Mark) -> NoReturn:
    raise error(None, None, problem, mark)


class SuiteLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` within the suite's bounds.

    Refuses, at its line and column, nesting past the depth bound, duplicate or non-text member
    names, over-long integers, integers not written in decimal, and anchors and aliases.
    """

    _depth = 0
    #: What the loader reads, as its refusals name it.
    what = "a suite"

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        """Compose a node, refusing nesting past the receipt loader's depth."""
        error, mark = yaml.composer.ComposerError, self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            why = "expected every value written out; anchors and aliases are not read in "
            why += self.what
            _refuse(error, why, mark)
        opens = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if opens and self._depth >= MAX_DEPTH:
            _refuse(error, f"expected nesting of at most {MAX_DEPTH} levels", mark)
        self._depth += opens
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= opens

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping, refusing a key given twice."""
        seen: set[str] = set()
        for key, _value in node.value:
            error, mark = yaml.constructor.ConstructorError, key.start_mark
            if not isinstance(key, yaml.ScalarNode) or key.tag != _STR:
                _refuse(error, "expected member names that are text", mark)
            if key.value in seen:
                _refuse(
                    error, f"expected unique member names, found {key.value[:80]!r} twice", mark
                )
            seen.add(key.value)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An integer written in decimal (never YAML 1.1's ``010``, ``0x1F``, ``1_000``, ``1:20``).

        One with more digits than a receipt holds is refused.
        """
        error, mark, v = yaml.constructor.ConstructorError, node.start_mark, node.value
        if not _DECIMAL.fullmatch(v):
            _as_text(node, "a decimal integer or quoted text", "another number")
        try:
            return int(super().construct_yaml_int(node))
        except ValueError:  # longer than Python converts
            digits = sys.get_int_max_str_digits()
            why = (
                f"expected an integer of at most {digits} digits, found one of {len(v)} characters"
            )
            _refuse(error, why, mark)


class SuiteFileLoader(SuiteLoader):
    """:class:`SuiteLoader` for a suite file, which holds only what JSON can hold.

    Also refuses, at its line and column, what YAML 1.1 reads as no JSON value: ``yes``, ``no``,
    ``on`` or ``off`` as a truth value, a date, and binary data (``!!binary``).
    """

    def construct_yaml_bool(self, node: yaml.ScalarNode) -> bool:
        """``true`` or ``false`` (never YAML 1.1's ``yes``, ``no``, ``on``, ``off``)."""
        value = bool(super().construct_yaml_bool(node))
        if node.value.lower() not in ("true", "false"):
            _as_text(node, "true, false or quoted text", str(value).lower())
        return value

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> NoReturn:
        """Refused: no suite value is a date."""
        _as_text(node, "quoted text", "a date")

    def construct_yaml_binary(self, node: yaml.ScalarNode) -> NoReturn:
        """Refused: no suite value is binary data."""
        why = "expected text, found binary data (!!binary), which is not read in "
        _refuse(yaml.constructor.ConstructorError, why + self.what, node.start_mark)


def _as_text(node: yaml.ScalarNode, expected: str, reads_as: str) -> NoReturn:
    """Refuses ``node``, a value YAML reads as ``reads_as``, saying how to write it as text."""
    v = node.value[:40]
    why = f"expected {expected}, found {v!r}, which YAML reads as {reads_as} "
    _refuse(yaml.constructor.ConstructorError, why + f'(write "{v}" for text)', node.start_mark)


SuiteLoader.add_constructor("tag:yaml.org,2002:int", SuiteLoader.construct_yaml_int)
for _tag in ("bool", "timestamp", "binary"):
    SuiteFileLoader.add_constructor(
        f"tag:yaml.org,2002:{_tag}", getattr(SuiteFileLoader, f"construct_yaml_{_tag}")
    )


def _where(exc: yaml.YAMLError) -> str:
    """A PyYAML error on one line: ``line L column C: problem``."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        at = f"line {mark.line + 1} column {mark.column + 1}: " if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "not YAML").split())
        return f"{at}{problem[:200]}"
    return " ".join(str(exc).split())[:200]


def parse_suite_text(text: str, file: str, *, is_yaml: bool) -> Any:
    """The suite document of ``text``; ``file`` is named in every message.

    Raises:
        SuiteError: one problem per place, by JSON pointer or (YAML, JSON syntax) line and column.
    """
    try:  # SuiteFileLoader: a SafeLoader, bounded
        doc = yaml.load(text, Loader=SuiteFileLoader) if is_yaml else loads_strict(text)
    except JSONFault as exc:
        detail = (
            f"expected nesting of at most {MAX_DEPTH} levels"
            if exc.too_deep
            else exc.worded("expected UTF-8 JSON (or YAML for .yaml/.yml)")
        )
        raise SuiteError.at(file, exc.pointer, detail) from None
    except yaml.YAMLError as exc:
        raise SuiteError.at(file, "", f"expected YAML: {_where(exc)}") from None
    except RecursionError:
        raise SuiteError.at(file, "", "expected nesting the reader can follow") from None
    try:
        check_json_bounds(doc, file)
    except BoundsError as exc:
        raise SuiteError(str(exc), exc.problems) from None
    return doc
