"""JSON Lines split at `\\n` only, and the nesting of a JSON text measured without decoding it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings, strategies as st

from chatassert._jsonlines import json_lines, nesting_over

_SEPARATORS = "\u2028\u2029\u0085\x0b\x0c\x1c\x1d\x1e\r"  # str.splitlines() splits at each


def test_lines_end_at_a_line_feed_only() -> None:
    values = [{"text": f"a{sep}b"} for sep in _SEPARATORS]
    text = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)
    assert len(text.splitlines()) > len(values)  # what the commands read with before
    assert [json.loads(line) for _, line in json_lines(text)] == values


def test_blank_lines_are_json_whitespace_only_and_numbers_count_them() -> None:
    text = '[1]\r\n \t\r\n\n"\u2028"\n[2]'
    assert [(n, json.loads(line)) for n, line in json_lines(text)] == [
        (1, [1]),
        (4, "\u2028"),
        (5, [2]),
    ]


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_KEYS = st.text(st.sampled_from('ab[]{}"\\\u2028'), max_size=4)
_VALUES = st.recursive(
    st.none() | st.integers() | _KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_VALUES, st.integers(0, 12), st.booleans())
def test_nesting_is_that_of_the_decoded_value(value: Any, limit: int, ascii: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii)
    depth = _depth(value)
    assert nesting_over(text, limit) == (depth if depth > limit else None)


def test_deep_text_is_measured_without_a_recursion_limit() -> None:
    text = "[" * 50_000 + "]" * 50_000
    assert nesting_over(text, 1000) == 50_000
    assert nesting_over('["' + "[" * 5000 + '"]', 10) is None  # brackets inside a string
