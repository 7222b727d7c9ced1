"""The quick tests of the expect checks agree with their full evaluation on every document.

A JSON check answers the common case, a pass, with a compiled quick test and leaves
everything else to `_eval`, the full evaluation. These properties hold the two together:
whenever the quick test answers, its result equals what `_eval` returns, and `check` always
returns what `_eval` does. The documents are response-shaped but deliberately untidy:
missing and `null` fields, wrong types, NaN, mixed numbers and strings, unparseable dates.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import pickle
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from chatassert import (
    AllDatesBetween,
    AllMatch,
    AllMatchPattern,
    Assertion,
    FieldContains,
    FieldEquals,
    HasFields,
    InRange,
    SortedDesc,
    Status,
)
from chatassert.expect import (
    AllHaveTags,
    AllInRange,
    AllMatchOneOf,
    DatesWithinDays,
    EachHasAnyTag,
    ErrorCodeIs,
    MessageContains,
    NoneHaveTags,
    NoneMatchPattern,
    ResultsCount,
    ResultsMax,
    ResultsMin,
    StatusIs,
    SummaryContains,
)
from chatassert.specs import Case

NOW = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.UTC)


def clock() -> dt.datetime:
    return NOW


CHECKS: list[Assertion] = [
    StatusIs("success"),
    StatusIs(1),
    ErrorCodeIs("NO_FILTERS"),
    SummaryContains("notes"),
    MessageContains("Filter", case_sensitive=True),
    ResultsMin(1),
    ResultsMax(3),
    ResultsCount(2),
    HasFields(["results", "summary", "pagination.total"]),
    FieldEquals({"pagination.offset": 0, "status": "success"}),
    FieldEquals({"pagination": {"offset": 0, "total": 2}}),
    FieldEquals({"results[*].metadata.type": "note", "pagination.offset": 0}),
    FieldContains("summary", "notes"),
    FieldContains("results[*].metadata.tags", "work", case_sensitive=True),
    AllMatch("results[*].metadata.type", "note"),
    AllMatch("results[*].relevance", 1),
    AllMatch("results[0].file", "a.md"),
    AllMatchOneOf("results[*].metadata.type", ["note", "task"]),
    AllMatchPattern("results[*].file", "^journal/"),
    AllMatchPattern("results[*].file", r"\.md$"),
    NoneMatchPattern("results[*].file", "^(people/|documents/)"),
    AllHaveTags(["work"]),
    AllHaveTags(["work", "security"]),
    NoneHaveTags(["draft"]),
    EachHasAnyTag(["work", "personal"]),
    AllInRange("results[*].relevance", 0.0, 1.0),
    AllInRange("results[*].relevance", min=0.5),
    InRange("pagination.total", 0, 5),
    InRange("results[*].relevance", 0, 1),
    InRange("$.results[*].relevance", 0, 1),
    AllMatch("$.results[*].metadata.type", "note"),
    SortedDesc("results[*].relevance"),
    SortedDesc("results[*].file"),
    AllDatesBetween("results[*].metadata.created", "2026-01-01", "2026-01-31"),
    DatesWithinDays("results[*].metadata.created", 10, clock=clock),
]

# Mostly tidy values, so that checks pass and fail on real content; now and then an odd one.
files = st.one_of(
    st.sampled_from(["journal/a.md", "journal/b.md", "journal/c.txt", "people/alice.md"]),
    st.sampled_from(["journal/a.md", "documents/x.md", "a.md", None, 3]),
)
numbers = st.one_of(
    st.floats(0, 1, allow_nan=False),
    st.floats(-0.5, 1.5, allow_nan=False),
    st.sampled_from([0, 1, 2, math.nan, "0.5", None, True]),
)
dates = st.one_of(
    st.sampled_from(["2026-01-15", "2026-01-31T23:59:59Z", "2026-01-15T10:00:00+02:00"]),
    st.sampled_from(
        [
            "2026-02-01T00:00:00Z",
            "2025-12-31T23:30:00-01:00",
            "January 12, 2026",
            "not a date",
            "",
            None,
            3,
        ]
    ),
)
tags = st.one_of(
    st.lists(st.sampled_from(["work", "security", "draft", "personal", "misc"]), max_size=3),
    st.lists(st.sampled_from(["work", "security"]), min_size=1, max_size=2),
    st.sampled_from(["work", None, 3]),
)
tidy_metadata = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["note", "note", "task", "incident-log"]),
        "tags": tags,
        "created": dates,
    }
)
odd_metadata = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={"type": st.sampled_from(["note", None, 1]), "tags": tags, "created": dates},
    ),
    st.none(),
    st.just("meta"),
)
tidy_item = st.fixed_dictionaries({"file": files, "relevance": numbers, "metadata": tidy_metadata})
odd_item = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"file": files, "relevance": numbers, "metadata": odd_metadata}
    ),
    st.none(),
    st.integers(0, 2),
)
results = st.one_of(
    st.lists(tidy_item, max_size=5),
    st.lists(st.one_of(tidy_item, odd_item), max_size=5),
    st.sampled_from([None, "results"]),
)
documents = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["success", "success", "error", 1, 1.0, True, None]),
        "error_code": st.sampled_from(["NO_FILTERS", "OTHER", None]),
        "error": st.sampled_from(["NO_FILTERS", 3]),
        "summary": st.sampled_from(["Found 3 notes", "Found 3 NOTES", "nothing", None, 4]),
        "message": st.sampled_from(["Please add a Filter", "please add a filter", None]),
        "results": results,
        "pagination": st.one_of(
            st.fixed_dictionaries(
                {
                    "offset": st.sampled_from([0, 0, 0.0, 1, "0", None, False]),
                    "total": st.integers(0, 6),
                }
            ),
            st.fixed_dictionaries({}, optional={"offset": numbers, "total": st.integers(0, 6)}),
            st.none(),
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_a_quick_answer_is_the_full_evaluation_and_check_returns_it(doc: dict[str, Any]) -> None:
    for check in CHECKS:
        full = check._eval(doc)  # type: ignore[attr-defined]
        quick = check._quick_test()(doc)
        if quick is not None:
            assert quick.passed, (check, doc)
            assert quick == full, (check, doc, quick, full)
        # what `check` returns is the full evaluation, its failures pointed at their evidence
        assert check.check(doc) == check._point_at_evidence(full, doc), (check, doc)


@settings(max_examples=100, deadline=None)
@given(st.lists(documents, min_size=1, max_size=4))
def test_a_json_case_equals_its_checks_one_by_one(docs: list[dict[str, Any]]) -> None:
    case = Case("all", checks=tuple(CHECKS), subject="json")
    for doc in docs:
        result = case.check(doc)
        assert list(result.children) == [check.check(doc) for check in CHECKS]


def test_passes_are_shared_per_count_and_carry_the_message() -> None:
    check = AllMatch("results[*].type", "note", message="all notes")
    two = check.check({"results": [{"type": "note"}, {"type": "note"}]})
    assert check.check({"results": [{"type": "note"}] * 2}) is two
    assert two.message == "all notes"
    assert two.details["checked"] == 2
    one = check.check({"results": [{"type": "note"}]})
    assert one is not two
    assert one.details["checked"] == 1


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.kind)
def test_a_check_pickles_after_it_has_compiled_its_quick_test(check: Assertion) -> None:
    doc = {"status": "success", "results": []}
    before = check.check(doc)
    copy = pickle.loads(pickle.dumps(check))
    assert copy == check
    assert copy.check(doc) == before


def test_a_range_check_over_no_values_fails_however_the_subject_arrives() -> None:
    check = InRange("results[*].score", 0, 1)
    for subject in ({"results": []}, '{"results": []}'):
        result = check.check(subject)
        assert result.status is Status.FAILED
        assert result.reason == "Missing field: results[*].score"


def test_a_failing_check_in_a_case_reads_the_clock_once() -> None:
    reads: list[dt.datetime] = []

    def counting_clock() -> dt.datetime:
        reads.append(NOW)
        return NOW

    check = DatesWithinDays("results[*].created", 3, clock=counting_clock)
    stale = {"results": [{"created": "2025-06-01"}]}
    assert not check.check(stale).passed
    assert len(reads) == 1
    reads.clear()
    assert not Case("dates", checks=(check,), subject="json").check(stale).passed
    assert len(reads) == 1


def test_a_case_tries_a_quick_test_once_per_check() -> None:
    calls: list[object] = []

    class Counted(StatusIs):
        __slots__ = ()

        def _compile_quick(self) -> Any:
            quick = super()._compile_quick()

            def counted(data: Any) -> Any:
                calls.append(data)
                return quick(data)

            return counted

    case = Case("status", checks=(Counted("ok"),), subject="json")
    assert not case.check({"status": "error"}).passed
    assert len(calls) == 1


def test_a_json_string_inside_a_turn_is_decoded_once_in_a_case_as_alone() -> None:
    from chatassert import Turn
    from chatassert.expect import JsonContains

    checks = (StatusIs("ok"), JsonContains("hello"))
    case = Case("text", checks=checks, subject="json")
    for turn in (Turn(text=json.dumps(json.dumps({"status": "ok"}))), Turn(text='"hello"')):
        assert list(case.check(turn).children) == [c.check(turn) for c in checks]


def test_a_case_pickles_after_it_has_checked() -> None:
    case = Case("all", checks=tuple(CHECKS[:5]), subject="json")
    doc = {"status": "success", "summary": "2 notes"}
    before = case.check(doc)
    copy = pickle.loads(pickle.dumps(case))
    assert copy.check(doc).children == before.children
