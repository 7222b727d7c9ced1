"""Fuzzing patterns and paths: the Go/RE2 translator, searches under the time limit, JSON paths.

The contracts under test:

- `compile_pattern` returns a `Pattern` or raises `ValueError` (naming the pattern); a pattern
  that compiles pickles back to an equal one;
- a compiled pattern searches any text and returns a match or None, or raises
  `RegexTimeoutError` once its time limit is used up, never hangs; inside a check a timeout
  is an `error` result;
- `compile_path` returns a `JsonPath` or raises `ValueError`; `find` over any JSON value returns
  `(value, where)` pairs whose `location` is a string, or (a JSONPath regex extension running
  out of time) `RegexTimeoutError`;
- the JSON-response assertions that take paths are built or refused with `ValueError`, and
  checking any JSON value with them returns a result that serialises as strict JSON.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import specgen
from fuzzing import fuzz_target
from hypothesis import given, strategies as st
from subjects import RESPONSES

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    Assertion,
    FieldContains,
    FieldEquals,
    HasFields,
    InRange,
    Matches,
    Result,
    SortedDesc,
    Status,
)
from chatassert._jsonpath import MISSING, JsonPath, PathEvaluationError, compile_path
from chatassert._regex import Pattern, compile_pattern
from chatassert.errors import RegexTimeoutError
from chatassert.expect import AllInRange, ArrayContains, NoneMatchPattern
from chatassert.reporting import json_line


def compiled(source: str, timeout: float = 1.0) -> Pattern | None:
    """Compile a Go pattern; a `ValueError` naming the pattern is a fine outcome."""
    try:
        pattern = compile_pattern(source, timeout=timeout)
    except ValueError as exc:
        message = str(exc)
    else:
        return pattern
    assert message.startswith("invalid regular expression") or "regular expression" in message
    return None


@given(specgen.go_regexes())
@fuzz_target("regex.translate")
def test_go_patterns_translate_or_fail_with_a_value_error(source: str) -> None:
    pattern = compiled(source)
    if pattern is not None:
        assert pattern.source == source
        again = pickle.loads(pickle.dumps(pattern))
        assert again == pattern
        assert hash(again) == hash(pattern)


def texts() -> st.SearchStrategy[str]:
    """Text to search: odd characters, and the long runs catastrophic patterns choke on."""
    run = st.tuples(
        st.sampled_from(["a", "ab", "x", " ", "\n", "é", "\u0130"]), st.integers(0, 5000)
    )
    return st.one_of(
        specgen.odd_text(40),
        st.text(specgen.ALL_CHARACTERS, max_size=80),
        st.tuples(run, st.sampled_from(["", "!", "x", "\n"])).map(
            lambda t: t[0][0] * t[0][1] + t[1]
        ),
        st.sampled_from(["refund", "Refund issued.", "booking confirmed #AB12CD", ""]),
    )


_CATASTROPHIC = st.sampled_from(["(a+)+$", "(a|aa)+$", "(.*)*x", "^(a?){25}a{25}$", "(x+x+)+y"])


@given(st.one_of(specgen.go_regexes(), _CATASTROPHIC), texts())
@fuzz_target("regex.search")
def test_patterns_search_any_text_within_their_time_limit(source: str, text: str) -> None:
    pattern = compiled(source, timeout=0.05)
    if pattern is None:
        return
    try:
        found = pattern.search(text)
    except RegexTimeoutError as exc:
        timed_out = exc
    else:
        timed_out = None
        assert found is None or 0 <= found.start() <= found.end() <= len(text)
    assert timed_out is None or timed_out.pattern == source
    if not source:
        return  # `matches` wants a pattern (a spec error), the translator takes ""
    result = Matches(source, regex_timeout=0.05).check(text)
    assert result.status in (Status.PASSED, Status.FAILED, Status.ERROR)
    json.dumps(result.to_dict(), allow_nan=False)


def documents() -> st.SearchStrategy[Any]:
    """JSON values to look into: the example responses, and any nested value."""
    return st.one_of(st.sampled_from(RESPONSES), specgen.json_values(max_leaves=10))


def path_or_none(source: str) -> JsonPath | None:
    """Compile a path; a `ValueError` is a fine outcome."""
    try:
        return compile_path(source)
    except ValueError as exc:
        message = str(exc)
    assert message
    return None


def find_all(path: JsonPath, doc: Any) -> None:
    """Find with a path: locations are strings, `get` agrees with `find`, `values` too."""
    try:
        found = path.find(doc)
    except (RegexTimeoutError, PathEvaluationError):
        return
    for _, where in found:
        assert isinstance(path.location(where), str)
    first = path.get(doc)
    assert (first == found[0][0] or _nan_in(found)) if found else first is MISSING
    assert [v for v, _ in found] == path.values(doc) or _nan_in(found)
    if not path.fans_out:
        assert len(found) <= 1, (path, found)


def _nan_in(found: list[tuple[Any, Any]]) -> bool:
    return any(isinstance(v, float) and v != v for v, _ in found)


@given(specgen.dotted_paths(), documents())
@fuzz_target("jsonpath.dotted")
def test_dotted_paths_compile_or_fail_and_find(source: str, doc: Any) -> None:
    path = path_or_none(source)
    if path is not None:
        assert pickle.loads(pickle.dumps(path)) == path
        find_all(path, doc)


@given(specgen.jsonpaths(), documents())
@fuzz_target("jsonpath.full")
def test_full_jsonpaths_compile_or_fail_and_find(source: str, doc: Any) -> None:
    path = path_or_none(source)
    if path is not None:
        find_all(path, doc)


_BUILDERS: tuple[Any, ...] = (
    lambda p, v: FieldContains(p, str(v)),
    lambda p, v: SortedDesc(p),
    lambda p, v: AllInRange(p, 0, 1),
    lambda p, v: InRange(p, None, 10),
    lambda p, v: AllMatchPattern(p, r"^journal/"),
    lambda p, v: NoneMatchPattern(p, "(a+)+$"),
    lambda p, v: HasFields([p]),
    lambda p, v: FieldEquals({p: v}),
    lambda p, v: AllMatch(p, v),
    lambda p, v: ArrayContains(p, [v]),
    lambda p, v: AllDatesBetween(p, "2026-01-01", "2026-01-31"),
)


@given(
    specgen.paths(),
    st.integers(0, len(_BUILDERS) - 1),
    specgen.json_scalars(),
    documents(),
)
@fuzz_target("jsonpath.check")
def test_json_checks_over_any_path_give_results(
    source: str, which: int, value: Any, doc: Any
) -> None:
    try:
        check: Assertion = _BUILDERS[which](source, value)
    except ValueError as exc:
        message = str(exc)
        assert message
        return
    result = check.check(doc)
    assert isinstance(result, Result)
    json.dumps(result.to_dict(), allow_nan=False)
    json_line(result.to_dict())
    result.render(verbose=True)
