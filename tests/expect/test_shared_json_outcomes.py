"""A check decided by one scalar of a response builds each outcome once per value and shares it.

`status`, `error_code`, `summary_contains`, `message_contains` and the results counts read one
field of a response (or the number of its results), so their outcome on a JSON object — a
failure included — is shared for a value met more than once (`JsonCheck._outcome_key`). A
shared outcome must be what the general path (`Assertion.check`, no quick test, nothing
remembered) builds for every response with that value, written alike: values that compare
equal but are shown otherwise (`1`, `True`, `1.0`; `0.0` and `-0.0`; NaN) must not share one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import Assertion, Result
from chatassert.expect import (
    ErrorCodeIs,
    MessageContains,
    ResultsCount,
    ResultsMax,
    ResultsMin,
    StatusIs,
    SummaryContains,
)
from chatassert.specs import loads_suite

# values that are equal to one another yet written apart, and their neighbours
scalars = st.sampled_from(
    [1, True, 1.0, 0, False, 0.0, -0.0, float("nan"), None, "1", "success", "error", "", 2]
)
texts = st.sampled_from(["Found 3 notes", "found 3 NOTES", "nothing", "", "1"]) | scalars
results = st.lists(st.just({"file": "a.md"}), max_size=4) | scalars
responses = st.fixed_dictionaries(
    {},
    optional={
        "status": scalars,
        "error_code": scalars,
        "error": texts,
        "summary": texts,
        "message": texts,
        "results": results,
    },
)

CHECKS: list[Assertion] = [
    StatusIs("success"),
    StatusIs(1),
    StatusIs(True),
    ErrorCodeIs("E1"),
    SummaryContains("notes"),
    MessageContains("1"),
    ResultsMin(1),
    ResultsMax(2),
    ResultsCount(0),
]

SPEC = """\
[{"id": "t", "expect": {"status": 1, "results_min": 1, "results_max": 2,
  "summary_contains": "notes", "error_code": "E1"}}]
"""


def _written(result: Result) -> str:
    return json.dumps(result.to_dict())  # `true` is not `1`, `-0.0` is not `0.0`


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(CHECKS))), st.lists(responses, min_size=2, max_size=8))
def test_each_response_gets_what_the_general_path_builds_for_it(
    which: int, docs: list[dict[str, Any]]
) -> None:
    check = type(CHECKS[which])(CHECKS[which].value)  # type: ignore[attr-defined]
    for doc in docs:  # one check over many responses: the later ones meet remembered values
        assert _written(check.check(doc)) == _written(Assertion.check(check, doc)), doc


@settings(max_examples=100, deadline=None)
@given(st.lists(responses, min_size=2, max_size=8))
def test_a_case_loaded_from_a_file_shares_outcomes_placed_as_the_file_has_them(
    docs: list[dict[str, Any]],
) -> None:
    case = loads_suite(SPEC, filename="t.json").cases[0]
    for doc in docs:
        fast = [_written(r) for r in case.check(doc).children]
        assert fast == [_written(Assertion.check(c, doc)) for c in case.checks], doc


def test_a_value_met_again_fails_with_one_shared_result_whose_details_cannot_change() -> None:
    check = StatusIs("success")
    once = check.check({"status": "error"})
    assert not once._shared  # met once: a fresh result, as for a value no other response has
    shared = check.check({"status": "error", "x": 1})
    assert shared == once
    assert check.check({"status": "error"}) is shared  # from then on, the same one
    assert shared.reason == "Expected status 'success', got 'error'"
    with pytest.raises(TypeError, match="read-only"):
        shared.details["actual"] = "changed"  # type: ignore[index]
    placed = shared._with_field("location", "turns[0]")  # annotating a shared result copies it
    assert placed is not shared
    assert shared.location is None
    other = check.check({"status": "pending"})
    assert other is not shared
    assert other.details["actual"] == "pending"


def test_values_met_once_are_not_shared() -> None:
    check = SummaryContains("notes")
    results = [check.check({"summary": f"Found {k} items"}) for k in range(50)]
    assert not any(r._shared for r in results)  # a log of ever new values shares nothing


def test_equal_values_shown_otherwise_do_not_share_a_result() -> None:
    check = StatusIs("success")
    reasons = [check.check({"status": value}).reason for value in (1, True, 1.0, 0.0, -0.0)]
    assert reasons == [
        "Expected status 'success', got 1",
        "Expected status 'success', got true",
        "Expected status 'success', got 1.0",
        "Expected status 'success', got 0.0",
        "Expected status 'success', got -0.0",
    ]
