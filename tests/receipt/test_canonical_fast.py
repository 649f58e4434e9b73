"""canonical_bytes takes a fast path through the C JSON encoder (issue 19); it must give
exactly the bytes of the ``rfc8785`` library (D-12) for every JSON value, and refuse what
the library refuses."""

from __future__ import annotations

import math

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.receipt import canonical_bytes
from driftproof.receipt._seal import _fast_canonical

# Keys and strings from the whole of Unicode (surrogates excluded: JSON text cannot carry them),
# so member names above U+E000 and astral characters sort as RFC 8785 says (UTF-16 order).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
NUMBERS = st.one_of(
    st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e-7, 1e-6, 9.999e-5, 1e-4, 1e16, 1e21, 1e22, 5e-324, 1.7976931348623157e308,
                     0.1 + 0.2, 123456789012345680.0, 2.0**53, -2.0**53 - 2]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(TEXT, inner, max_size=5)), max_leaves=25)


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(TEXT, VALUES, max_size=6))
def test_fast_path_gives_the_librarys_bytes(doc: dict) -> None:
    doc.pop("seal", None)
    assert canonical_bytes(doc) == rfc8785.dumps(doc)


@pytest.mark.parametrize("doc", [
    {"k": 1.0, "l": -0.0, "m": 1e-7, "n": 1e21, "o": 0.000123, "p": 1e16, "q": [2.5, 3, True, None]},
    {"\ue000": 1, "\U0001f600": 2, "z": 3},  # astral sorts before U+E000 in UTF-16, after it by code point
    {"s": "tab\there \"quoted\" back\\slash \x00 \x1f \x7f \u2028 é 😀"},
])
def test_known_hard_cases(doc: dict) -> None:
    assert canonical_bytes(doc) == rfc8785.dumps(doc)


def test_astral_member_names_are_left_to_the_library() -> None:
    assert _fast_canonical({"\U0001f600": 1, "\ue000": 2}) is None
    assert _fast_canonical({"a": "\U0001f600"}) is not None  # astral text in a value is fine


@pytest.mark.parametrize("bad", [{"x": math.nan}, {"x": math.inf}, {"x": 2**53}, {"x": "\ud800"}, {"x": -(2**60)}])
def test_what_the_library_refuses_is_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        canonical_bytes(bad)
