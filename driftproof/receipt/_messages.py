"""Schema failures in plain words: file, JSON pointer, what was expected, what was found.

Each failure is reworded from its keyword (jsonschema's own quote whole values and speak in
keywords); one inside an ``if``/``then`` rule is stated by that rule's ``description``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sized
from functools import cache
from itertools import islice
from typing import Any, cast

from jsonschema.exceptions import ValidationError, best_match
from jsonschema_rs import ValidationErrorKind as Kind
from pydantic import ValidationError as ModelError

from driftproof._json import escape
from driftproof._json import pointer as to_pointer
from driftproof.receipt._bounds import quote
from driftproof.receipt._model import CURRENT_VERSION
from driftproof.receipt._versions import compiled_validator_for, schema_for, validator_for

#: Schema failures collected from one file before they are sorted and cut to MAX_PROBLEMS.
_ERRORS_SCANNED = 1000

_JSON_TYPES = {str: "a string", bool: "a boolean", int: "an integer", float: "a number"}
#: A model's type error → what it expected (``source_figures``: where the model reads more
#: strictly than the frozen schema).
_MODEL_TYPES = {
    "string_type": "a string",
    "bool_type": "a boolean",
    "int_type": "an integer",
    "float_type": "a number",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
}


#: A limit keyword → what it expects; the keywords of :data:`_SIZED` measure a length.
_LIMITS = {
    "maxLength": "at most {} characters",
    "maxItems": "at most {} items",
    "maxProperties": "at most {} members",
    "minimum": "a number ≥ {}",
    "maximum": "a number ≤ {}",
    "exclusiveMinimum": "a number > {}",
    "exclusiveMaximum": "a number < {}",
}
_SIZED = frozenset({"maxLength", "maxItems", "maxProperties"})
#: jsonschema-rs's failures of the keywords of :data:`_SIZED`.
_SIZE_KINDS = (Kind.MaxLength, Kind.MaxItems, Kind.MaxProperties)


def _found(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return "null" if value is None else quote(value)
    return f"{_JSON_TYPES.get(type(value), type(value).__name__)} {quote(value)}"


def _lower(sentence: str) -> str:
    """A schema description as a clause: first letter lowered unless it starts an acronym."""
    sentence = sentence.rstrip(".")
    first = sentence.split(" ", 1)[0]
    return sentence if len(first) > 1 and first.isupper() else sentence[0].lower() + sentence[1:]


def resolve_ref(root: dict[str, Any], node: Any) -> Any:
    """``node`` with its local ``$ref`` chain followed inside ``root``."""
    while (
        isinstance(node, dict)
        and isinstance(node.get("$ref"), str)
        and node["$ref"].startswith("#/")
    ):
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _rule(root: dict[str, Any], schema_path: Iterable[Any]) -> str | None:
    """The description of the innermost ``if``/``then`` rule the failure sits in, if any."""
    node: Any = root
    rule = None
    for key in schema_path:
        if isinstance(node, dict) and key not in node:
            node = resolve_ref(root, node)
        if key == "then" and isinstance(node, dict) and isinstance(node.get("description"), str):
            rule = node["description"]
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return rule
    return rule


@cache
def _all_member_names(version: str) -> frozenset[str]:
    names: set[str] = set()
    stack: list[Any] = [schema_for(version)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                names.update(node["properties"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(names)


def _describe(e: ValidationError, version: str) -> tuple[str, str]:
    """(pointer, message) for one failure."""
    pointer = to_pointer(e.absolute_path)
    # jsonschema types these as "or Unset"; a failure always carries them, in JSON's types.
    kw, want, inst = e.validator, cast(Any, e.validator_value), cast(Any, e.instance)
    node: dict[str, Any] = e.schema if isinstance(e.schema, dict) else {}
    rule = _rule(schema_for(version), e.schema_path)
    if rule is not None:
        return pointer, f"{_lower(rule)}; found {_found(inst)}"
    if kw == "anyOf":
        # A nullable field: report why the non-null branch failed, not that null was not given.
        branches = [
            c for c in (e.context or []) if want[c.relative_schema_path[0]] != {"type": "null"}
        ]
        if branches:
            return _describe(best_match(branches), version)
        return pointer, f"expected one of the allowed shapes, found {_found(inst)}"
    if kw == "required":
        absent = [k for k in want if isinstance(inst, dict) and k not in inst]
        missing = next(
            (k for k in absent if e.message.startswith(repr(k))), absent[0] if absent else "?"
        )
        return (
            f"{pointer}/{escape(missing)}",
            f"expected member {quote(missing)}, which this version requires "
            "(null states it unknown); it is missing",
        )
    if kw == "additionalProperties":
        allowed = set(node.get("properties", {}))
        extra = sorted(k for k in inst if k not in allowed)
        name = extra[0] if extra else "?"
        hint = ""
        if version != CURRENT_VERSION and name in _all_member_names(CURRENT_VERSION):
            hint = f"; schema {CURRENT_VERSION} defines it: is schema_version right?"
        names = ", ".join(quote(k) for k in extra[:4]) + (
            f" and {len(extra) - 4} more" if len(extra) > 4 else ""
        )
        return (
            f"{pointer}/{escape(name)}",
            f"expected only the members this version defines, found {names}{hint}",
        )
    if kw == "type":
        kinds = want if isinstance(want, list) else [want]
        return pointer, f"expected {' or '.join(kinds)}, found {_found(inst)}"
    if kw == "const":
        return pointer, f"expected {quote(want)}, found {_found(inst)}"
    if kw == "enum":
        return pointer, f"expected one of {', '.join(quote(w) for w in want)}, found {_found(inst)}"
    if kw == "pattern":
        what = node.get("description") or f"text matching {quote(want)}"
        return pointer, f"expected {_lower(what)}, found {_found(inst)}"
    if kw == "format":
        desc = node.get("description")
        what = f" ({_lower(desc)})" if isinstance(desc, str) and desc else ""
        return pointer, f"expected a valid {want} value{what}, found {_found(inst)}"
    if kw in _LIMITS:
        found = len(inst) if kw in _SIZED else inst
        return pointer, f"expected {_LIMITS[kw].format(want)}, found {quote(found)}"
    if kw == "not":
        return pointer, f"expected a value other than {quote(inst)}"
    return pointer, f"fails the schema's {kw!r} rule"


def schema_found(doc: Any, version: str) -> list[tuple[str, str]]:
    """(pointer, message) of each place the frozen schema of ``version`` refuses, sorted.

    A size limit exceeded (``maxItems``, ``maxLength``, ``maxProperties``, outside an
    ``if``/``then`` rule) is named alone, found by the compiled validator and worded as
    python-jsonschema's is: that one's walk of a document over a size limit took minutes.
    Else python-jsonschema words them; for a document only the compiled validator refuses, its
    errors name the failed keyword (``root`` when none). At most ``MAX_QUOTE`` characters of a
    value are quoted.
    """
    if over := _over_sizes(doc, version):
        return over
    errors = list(islice(validator_for(version).iter_errors(doc), _ERRORS_SCANNED))
    if errors:
        return sorted({_describe(e, version) for e in errors})
    described: set[tuple[str, str]] = set()
    for e in islice(compiled_validator_for(version).iter_errors(doc), _ERRORS_SCANNED):
        keyword = str(e.schema_path[-1]) if e.schema_path else "root"
        message = (
            f"expected a value the schema's {keyword!r} rule accepts, found {_found(e.instance)}"
        )
        described.add((to_pointer(e.instance_path), message))
    return sorted(described)


def _over_sizes(doc: Any, version: str) -> list[tuple[str, str]]:
    """(pointer, message) of each size limit of :func:`schema_found` ``doc`` exceeds, sorted."""
    root, over = schema_for(version), set()
    for e in islice(compiled_validator_for(version).iter_errors(doc), _ERRORS_SCANNED):
        kind = e.kind
        if isinstance(kind, _SIZE_KINDS) and _rule(root, e.schema_path) is None:
            found = len(cast(Sized, e.instance))
            said = f"expected {_LIMITS[kind.name].format(kind.limit)}, found {quote(found)}"
            over.add((to_pointer(e.instance_path), said))
    return sorted(over)


def model_found(exc: ModelError) -> list[tuple[str, str]]:
    """(pointer, message) of each place the receipt model refuses, worded as the schema's are."""
    out = []
    for e in exc.errors():
        at, kind, found = to_pointer(e["loc"]), e["type"], _found(e["input"])
        if kind == "missing":
            message = f"expected member {quote(e['loc'][-1])}; it is missing"
        elif kind == "extra_forbidden":
            message = f"expected only the members read here, found {quote(e['loc'][-1])}"
        elif kind in _MODEL_TYPES:
            message = f"expected {_MODEL_TYPES[kind]}, found {found}"
        else:
            message = f"expected a value that fits: {_lower(e['msg'])}, found {found}"
        out.append((at, message))
    return sorted(out)
