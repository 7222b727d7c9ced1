"""A regular expression's time limit bounds a whole check, and covers JSONPath extensions."""

from __future__ import annotations

import time

import pytest

from chatassert import AllMatchPattern, FieldContains, Matches, OnEveryTurn
from chatassert._budget import close_budget, open_budget
from chatassert._regex import compile_pattern
from chatassert.specs import loads_suite

SLOW = "a" * 40_000 + "!"  # `(a|aa)+$` backtracks for far longer than any limit here on this
LIMIT = 0.5


def _timed(call: object) -> tuple[object, float]:
    # The limit is CPU time, as the `regex` module counts it: wall time grows on a busy machine.
    start = time.process_time()
    result = call()  # type: ignore[operator]
    return result, time.process_time() - start


def test_a_check_over_twenty_turns_takes_one_limit_not_twenty() -> None:
    conversation = {
        "messages": [
            m
            for i in range(20)
            for m in ({"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": SLOW})
        ]
    }
    check = OnEveryTurn(Matches("(a|aa)+$", regex_timeout=LIMIT))
    result, took = _timed(lambda: check.check(conversation))
    assert result.status == "error"  # type: ignore[attr-defined]
    assert took < 3 * LIMIT, took


def test_the_quick_test_and_the_full_evaluation_share_one_limit() -> None:
    data = {"results": [{"text": SLOW}]}
    check = AllMatchPattern("results[*].text", "(a|aa)+$", regex_timeout=LIMIT)
    result, took = _timed(lambda: check.check(data))
    assert result.status == "error"  # type: ignore[attr-defined]
    assert took < 1.6 * LIMIT, took  # one limit: the quick test's search counts too


def test_a_json_suite_shares_the_limit_between_quick_test_and_full_check() -> None:
    suite = loads_suite(
        '{"all_match_pattern": {"path": "results[*].text", "regex": "(a|aa)+$"}}',
        dialect="expect",
    )
    case = suite.cases[0]
    for check in case.checks:  # a tighter limit than the default, for a fast test
        object.__setattr__(check, "_compiled", compile_pattern("(a|aa)+$", timeout=LIMIT))
    result, took = _timed(lambda: case.check({"results": [{"text": SLOW}]}))
    assert result.status == "error"  # type: ignore[attr-defined]
    assert took < 1.6 * LIMIT, took


@pytest.mark.parametrize(
    "path",
    [
        "$.results[*].file.`sub(/(a|aa)+$/, x)`",
        '$.results[?(@.file =~ "(a|aa)+$")].file',
    ],
    ids=["sub", "filter"],
)
def test_a_jsonpath_extension_pattern_runs_under_the_time_limit(path: str) -> None:
    check = FieldContains(path, "x")
    result, took = _timed(lambda: check.check({"results": [{"file": SLOW}]}))
    assert result.status == "error"  # type: ignore[attr-defined]
    assert "did not finish within 1s" in result.reason  # type: ignore[attr-defined]
    assert took < 2.0, took


def test_jsonpath_extension_patterns_still_match() -> None:
    data = {"results": [{"file": "notes/a.md"}, {"file": "people/b.md"}]}
    assert FieldContains("$.results[0].file.`sub(/\\.md$/, .txt)`", "a.txt").check(data).passed
    only_people = FieldContains('$.results[?(@.file =~ "^people/")].file', "people/b")
    assert only_people.check(data).passed


def test_a_nested_check_shares_the_outer_budget() -> None:
    pattern = compile_pattern("(a|aa)+$", timeout=LIMIT)
    token = open_budget()
    try:
        with pytest.raises(TimeoutError):
            pattern.search(SLOW)
        start = time.process_time()
        with pytest.raises(TimeoutError, match=r"did not finish within 0\.5s"):
            pattern.search(SLOW)  # nothing left but a small slice
        assert time.process_time() - start < LIMIT / 4
        assert pattern.search("aaa") is not None  # a cheap search still decides
    finally:
        close_budget(token)
    assert pattern.search("aaa") is not None  # outside a check, a search has its own limit
